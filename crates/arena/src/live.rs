//! Games in progress, shown while a tournament plays them. Each worker
//! keeps the game it is playing in `live/<worker>.json` of the results
//! folder, rewritten at most every [`LIVE_EVERY`] and removed when the game
//! ends, so that a viewer (the web app's results view) can follow a game
//! before it reaches `games.jsonl`. A game that ends within
//! [`LIVE_EVERY`] is never written: fast tournaments pay nothing for it.
//!
//! What is written is a preview, not a record: a write that fails is
//! skipped (the next move tries again), and the games log stays the only
//! account of a finished game.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::lines::MAX_RECORD_BYTES;

/// The folder of the games in progress, inside a results folder.
pub const LIVE_DIR: &str = "live";

/// How often a game in progress is written, at most.
pub const LIVE_EVERY: Duration = Duration::from_millis(500);

/// A file not rewritten for this long is from a run that no longer plays
/// (stopped, or killed before it could tidy up): readers leave it out.
pub const LIVE_STALE: Duration = Duration::from_secs(60);

/// Files read from a live folder, at most (a run has a worker per file).
pub const MAX_LIVE_FILES: usize = 256;

/// A game in progress, with the fields of a [`crate::GameRecord`] that
/// replay it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveRecord {
    /// The game's id in the tournament (its record's, once it ends).
    pub id: u64,
    /// The rules, as a game spec.
    pub game: String,
    /// The players' names, by seat.
    pub players: [String; 2],
    /// Their agent specs, by seat.
    pub agents: [String; 2],
    /// The position the game started from; `None`: the rules' start.
    pub start: Option<String>,
    /// The moves so far (the opening's first), as records write them.
    pub moves: String,
    /// How many.
    pub plies: u32,
}

/// The game a worker is playing, and when it is next written. Nothing is
/// built for a game until its first write is due (most games of a fast
/// tournament end before): the file's name and the record's fields come
/// from `dir`, `worker` and `describe` then.
pub(crate) struct LiveGame<'a> {
    dir: &'a Path,
    worker: usize,
    describe: &'a dyn Fn() -> LiveRecord,
    /// The file and what it holds, from the first write on.
    shown: Option<(PathBuf, LiveRecord)>,
    next: Instant,
    written: bool,
}

impl<'a> LiveGame<'a> {
    /// The game of worker `worker` begun at `started`, shown in `dir` (the
    /// live folder) from [`LIVE_EVERY`] after it began; `describe` gives
    /// its record's fields (the opening's moves for `moves`).
    pub(crate) fn new(
        dir: &'a Path,
        worker: usize,
        describe: &'a dyn Fn() -> LiveRecord,
        started: Instant,
    ) -> LiveGame<'a> {
        LiveGame {
            dir,
            worker,
            describe,
            shown: None,
            next: started + LIVE_EVERY,
            written: false,
        }
    }

    /// A move was played at `now`, the game's `plies`-th; `text` gives the
    /// moves so far as records write them (called only when due).
    pub(crate) fn moved(&mut self, now: Instant, plies: usize, text: impl FnOnce() -> String) {
        if now < self.next {
            return;
        }
        self.next = now + LIVE_EVERY;
        let (dir, worker, describe) = (self.dir, self.worker, self.describe);
        let (path, record) = self
            .shown
            .get_or_insert_with(|| (dir.join(format!("{worker}.json")), describe()));
        record.moves = text();
        record.plies = plies as u32;
        // A preview: a failed write is tried again at the next move.
        if write(path, record).is_ok() {
            self.written = true;
        }
    }

    /// The game ended (or was stopped): its file goes.
    pub(crate) fn finish(self) {
        if let (true, Some((path, _))) = (self.written, &self.shown) {
            let _ = fs::remove_file(path);
        }
    }
}

/// Replaces `path` whole with `record` (a reader never sees half a game).
fn write(path: &Path, record: &LiveRecord) -> io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    fs::write(&tmp, serde_json::to_vec(record).map_err(io::Error::other)?)?;
    fs::rename(&tmp, path)
}

/// The games in progress in results folder `dir`, by id: every file of its
/// live folder rewritten within [`LIVE_STALE`], at most [`MAX_LIVE_FILES`]
/// of them. Links, other files, files over [`MAX_RECORD_BYTES`] and files
/// that do not parse (being replaced) are left out; no live folder means
/// no game in progress.
///
/// # Errors
/// Only the live folder's own read error, when it exists and cannot be
/// listed.
pub fn live_games(dir: &Path) -> io::Result<Vec<LiveRecord>> {
    let live = dir.join(LIVE_DIR);
    let entries = match fs::read_dir(&live) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let now = SystemTime::now();
    let mut games = Vec::new();
    for entry in entries.take(MAX_LIVE_FILES).flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // Not followed: a link could lead out of the results root.
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let fresh = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age <= LIVE_STALE);
        if !meta.is_file() || meta.len() > MAX_RECORD_BYTES as u64 || !fresh {
            continue;
        }
        if let Some(game) = fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<LiveRecord>(&bytes).ok())
        {
            games.push(game);
        }
    }
    games.sort_by_key(|g| g.id);
    Ok(games)
}

/// Makes the live folder of a run about to play, empty: files of an
/// earlier run that was killed are gone. `None` when it cannot be made
/// (the run plays on without showing its games in progress).
pub(crate) fn prepare(dir: &Path) -> Option<PathBuf> {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).ok().map(|()| dir.to_path_buf())
}

/// Removes the live folder of a run that has played.
pub(crate) fn tidy(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: u64) -> LiveRecord {
        LiveRecord {
            id,
            game: "kalah".into(),
            players: ["a".into(), "b".into()],
            agents: ["random".into(), "greedy".into()],
            start: None,
            moves: String::new(),
            plies: 0,
        }
    }

    /// Nothing is written before LIVE_EVERY has passed; then the moves are,
    /// read back whole; finish removes the file.
    #[test]
    fn a_game_in_progress_is_written_when_due_and_removed_at_its_end() {
        let root = tempfile::tempdir().unwrap();
        let dir = prepare(&root.path().join(LIVE_DIR)).unwrap();
        let t0 = Instant::now();
        let describe = || record(7);
        let mut live = LiveGame::new(&dir, 3, &describe, t0);
        live.moved(t0 + Duration::from_millis(10), 1, || "3".into());
        assert!(
            live_games(root.path()).unwrap().is_empty(),
            "written before it was due"
        );
        live.moved(t0 + LIVE_EVERY, 2, || "3 6".into());
        let games = live_games(root.path()).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(
            (games[0].id, games[0].moves.as_str(), games[0].plies),
            (7, "3 6", 2)
        );
        assert!(dir.join("3.json").is_file());
        // Not again until LIVE_EVERY after that write.
        live.moved(t0 + LIVE_EVERY + Duration::from_millis(1), 3, || {
            "3 6 1".into()
        });
        assert_eq!(live_games(root.path()).unwrap()[0].plies, 2);
        live.finish();
        assert!(live_games(root.path()).unwrap().is_empty());
        tidy(&dir);
        assert!(!dir.exists());
    }

    /// Links, stray files, damaged and stale files are left out; no folder
    /// is no game.
    #[test]
    fn only_fresh_plain_live_files_are_read() {
        let root = tempfile::tempdir().unwrap();
        assert!(live_games(root.path()).unwrap().is_empty());
        let dir = prepare(&root.path().join(LIVE_DIR)).unwrap();
        fs::write(dir.join("0.json"), serde_json::to_vec(&record(2)).unwrap()).unwrap();
        fs::write(dir.join("1.json"), b"{\"id\": 3, \"gam").unwrap();
        fs::write(dir.join("notes.txt"), b"x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("0.json"), dir.join("2.json")).unwrap();
        // A file no run has rewritten for longer than LIVE_STALE.
        let stale = dir.join("3.json");
        fs::write(&stale, serde_json::to_vec(&record(5)).unwrap()).unwrap();
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * LIVE_STALE)
            .unwrap();
        // A file too large to be a game (sparse: no disk used).
        fs::File::create(dir.join("4.json"))
            .unwrap()
            .set_len(MAX_RECORD_BYTES as u64 + 1)
            .unwrap();
        let games = live_games(root.path()).unwrap();
        assert_eq!(games.iter().map(|g| g.id).collect::<Vec<_>>(), vec![2]);
    }
}
