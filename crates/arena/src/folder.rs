//! Reading a results folder: the names of the files the toolkit's runs
//! write, what kind of folder a set of files makes, and the games of
//! `games.jsonl` streamed, found by id, with a torn last line left out.
//!
//! Every reader of a results folder (the CLI's `replay`, `annotate`, the
//! report, the web app) goes through here, so the conventions of the
//! JSON-lines files are kept in one place: a line per record, a torn last
//! line left out (a run killed while writing leaves at most one; a last
//! line that lacks only its line break is a record), and no line longer
//! than [`MAX_RECORD_BYTES`]
//! (a longer one is not a record of this toolkit, and is refused without
//! being held in memory).

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use thiserror::Error;

use crate::lines::{read_capped_line, CappedLine, MAX_RECORD_BYTES};
use crate::GameRecord;

/// A tournament's (or a merge's, or a match's) games, a line each.
pub const GAMES_FILE: &str = "games.jsonl";
/// What a tournament was run with: a resumed run must match it.
pub const IDENTITY_FILE: &str = "tournament.json";
/// A tournament's standings, ratings and statistics.
pub const SUMMARY_FILE: &str = "summary.json";
/// `mancala annotate`'s notes on the games of a folder, a line per game.
pub const ANNOTATIONS_FILE: &str = "annotations.jsonl";
/// A training run's log.
pub const TRAINING_LOG_FILE: &str = "log.csv";
/// `mancala analyze first-move`'s table.
pub const FIRST_MOVE_FILE: &str = "first_move.json";
/// `mancala analyze exact-positions`' set.
pub const EXACT_POSITIONS_FILE: &str = "exact_positions.json";

/// What wrote a results folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderKind {
    /// A tournament, a merge of its shards, or a match with `--out`.
    Tournament,
    /// A training run (`mancala train`).
    Training,
    /// `mancala analyze first-move`.
    FirstMove,
    /// `mancala analyze exact-positions`.
    ExactPositions,
}

impl FolderKind {
    /// Its name in listings: tournament, training, first-move, analysis.
    pub fn name(self) -> &'static str {
        match self {
            FolderKind::Tournament => "tournament",
            FolderKind::Training => "training",
            FolderKind::FirstMove => "first-move",
            FolderKind::ExactPositions => "analysis",
        }
    }

    /// The kind a file of this name marks a folder as, if any.
    pub fn marked_by(file_name: &str) -> Option<FolderKind> {
        match file_name {
            GAMES_FILE | SUMMARY_FILE => Some(FolderKind::Tournament),
            TRAINING_LOG_FILE => Some(FolderKind::Training),
            FIRST_MOVE_FILE => Some(FolderKind::FirstMove),
            EXACT_POSITIONS_FILE => Some(FolderKind::ExactPositions),
            _ => None,
        }
    }

    /// The kind of the folder `dir` by the files it holds (that of the
    /// first of [`MARKING_FILES`] it holds), or `None`.
    pub fn of(dir: &Path) -> Option<FolderKind> {
        MARKING_FILES
            .iter()
            .find(|name| dir.join(name).is_file())
            .and_then(|name| FolderKind::marked_by(name))
    }
}

/// The files that mark a results folder's kinds, the first kind first.
pub const MARKING_FILES: &[&str] = &[
    GAMES_FILE,
    SUMMARY_FILE,
    TRAINING_LOG_FILE,
    FIRST_MOVE_FILE,
    EXACT_POSITIONS_FILE,
];

/// Why a results file could not be read.
#[derive(Debug, Error)]
pub enum FolderError {
    /// The folder has no such file.
    #[error("{} holds no {file}: give the folder a tournament, merge or match wrote", dir.display())]
    Missing {
        /// The folder.
        dir: PathBuf,
        /// The file looked for.
        file: &'static str,
    },
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A whole line is not a record.
    #[error("{} line {line}: {why}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// Why.
        why: String,
    },
    /// A line longer than any record of the toolkit.
    #[error("{} line {line} is longer than {} MiB: not a record of this toolkit", path.display(), MAX_RECORD_BYTES >> 20)]
    LineTooLong {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
    },
    /// The file changed between finding a record and reading it.
    #[error("{} changed while it was read: {why}", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
        /// What was found.
        why: String,
    },
    /// No game of that id.
    #[error("{} has no game {id}{}", path.display(), match range {
        Some((a, b)) => format!(" (its ids run from {a} to {b})"),
        None => " (it has no games)".to_string(),
    })]
    NoSuchGame {
        /// The file.
        path: PathBuf,
        /// The id asked for.
        id: u64,
        /// The smallest and largest ids it has.
        range: Option<(u64, u64)>,
    },
}

/// Calls `each` with the byte offset and the parsed record of every whole
/// line of `path`, in the file's order, until it breaks; blank lines are
/// skipped, and so is a torn last line (one without its line break that
/// does not parse). A missing file has no records. Returns the records
/// given.
///
/// # Errors
/// [`FolderError::Io`], [`FolderError::LineTooLong`], or
/// [`FolderError::Corrupt`] for a whole line that is not a `T`.
pub fn each_record<T: DeserializeOwned>(
    path: &Path,
    mut each: impl FnMut(u64, T) -> ControlFlow<()>,
) -> Result<u64, FolderError> {
    let io = |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let (mut offset, mut given) = (0u64, 0u64);
    for number in 1.. {
        let at = offset;
        let whole = match read_capped_line(&mut reader, &mut line, MAX_RECORD_BYTES).map_err(io)? {
            CappedLine::End => break,
            CappedLine::Line { bytes, whole } => {
                offset += bytes;
                whole
            }
            // Only the last line can lack its line break: a torn one.
            CappedLine::TooLong { whole: false, .. } => break,
            CappedLine::TooLong { whole: true, .. } => {
                return Err(FolderError::LineTooLong {
                    path: path.to_path_buf(),
                    line: number,
                })
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record = match serde_json::from_slice(&line) {
            Ok(record) => record,
            // Only the last line can lack its line break: torn, not a
            // record yet. (Whole but for its line break, it is one.)
            Err(_) if !whole => break,
            Err(e) => {
                return Err(FolderError::Corrupt {
                    path: path.to_path_buf(),
                    line: number,
                    why: e.to_string(),
                })
            }
        };
        given += 1;
        if each(at, record).is_break() {
            break;
        }
    }
    Ok(given)
}

/// The record of the line at byte `offset` of `path` (an offset
/// [`each_record`] gave).
///
/// # Errors
/// [`FolderError::Changed`] when no whole record is there any more.
pub fn record_at<T: DeserializeOwned>(path: &Path, offset: u64) -> Result<T, FolderError> {
    let changed = |why: String| FolderError::Changed {
        path: path.to_path_buf(),
        why,
    };
    let file = File::open(path).map_err(|e| changed(e.to_string()))?;
    let mut reader = BufReader::new(file);
    reader
        .seek(SeekFrom::Start(offset))
        .map_err(|e| changed(e.to_string()))?;
    let mut line = Vec::new();
    match read_capped_line(&mut reader, &mut line, MAX_RECORD_BYTES) {
        Ok(CappedLine::Line { .. }) => {}
        Ok(_) => return Err(changed("its line is gone or has grown".into())),
        Err(e) => return Err(changed(e.to_string())),
    }
    serde_json::from_slice(&line).map_err(|e| changed(e.to_string()))
}

/// Just the id of a record.
#[derive(serde::Deserialize)]
struct Id {
    id: u64,
}

/// The record with id `id` in `path` (a file of records with an `id`: a
/// folder's games or notes), read whole only once found; `None` if none.
///
/// # Errors
/// As [`each_record`] and [`record_at`].
pub fn find_record<T: DeserializeOwned>(path: &Path, id: u64) -> Result<Option<T>, FolderError> {
    let mut found = None;
    each_record(path, |at, line: Id| {
        if line.id == id {
            found = Some(at);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    found.map(|at| record_at(path, at)).transpose()
}

/// Calls `each` with every game of `dir`'s `games.jsonl`, in the file's
/// order, until it breaks; returns the games given.
///
/// # Errors
/// [`FolderError::Missing`] for a folder without games; as
/// [`each_record`].
pub fn each_game(
    dir: &Path,
    mut each: impl FnMut(GameRecord) -> ControlFlow<()>,
) -> Result<u64, FolderError> {
    let path = games_path(dir)?;
    each_record(&path, |_, game| each(game))
}

/// Every game of `dir`'s `games.jsonl`, in the file's order.
///
/// # Errors
/// As [`each_game`].
pub fn read_games(dir: &Path) -> Result<Vec<GameRecord>, FolderError> {
    let mut games = Vec::new();
    each_game(dir, |g| {
        games.push(g);
        ControlFlow::Continue(())
    })?;
    Ok(games)
}

/// Game `id` of `dir`'s `games.jsonl`, read whole only once found.
///
/// # Errors
/// [`FolderError::NoSuchGame`] (saying which ids there are); as
/// [`each_game`].
pub fn find_game(dir: &Path, id: u64) -> Result<GameRecord, FolderError> {
    let path = games_path(dir)?;
    if let Some(game) = find_record(&path, id)? {
        return Ok(game);
    }
    let mut range: Option<(u64, u64)> = None;
    each_record(&path, |_, line: Id| {
        range = Some(range.map_or((line.id, line.id), |(a, b)| {
            (a.min(line.id), b.max(line.id))
        }));
        ControlFlow::Continue(())
    })?;
    Err(FolderError::NoSuchGame { path, id, range })
}

/// `dir/games.jsonl`, which must be a file.
fn games_path(dir: &Path) -> Result<PathBuf, FolderError> {
    let path = dir.join(GAMES_FILE);
    if path.is_file() {
        Ok(path)
    } else {
        Err(FolderError::Missing {
            dir: dir.to_path_buf(),
            file: GAMES_FILE,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn folder(lines: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(GAMES_FILE), lines).unwrap();
        dir
    }

    fn game_line(id: u64) -> String {
        serde_json::to_string(&crate::record::test_record(id, 0, [0, 1], Some(0), 2)).unwrap()
    }

    #[test]
    fn games_are_streamed_in_order_and_a_torn_last_line_is_left_out() {
        let whole = format!("{}\n\n{}\n", game_line(3), game_line(1));
        let torn = &game_line(7)[..40];
        let dir = folder(&format!("{whole}{torn}"));
        let ids: Vec<u64> = read_games(dir.path())
            .unwrap()
            .iter()
            .map(|g| g.id)
            .collect();
        assert_eq!(ids, [3, 1]);
        // A last line whole but for its line break is a game.
        let unended = folder(&format!("{whole}{}", game_line(7)));
        assert_eq!(read_games(unended.path()).unwrap().len(), 3);
        // Stopped early: only what was given counts.
        let mut seen = 0;
        let given = each_game(dir.path(), |_| {
            seen += 1;
            ControlFlow::Break(())
        })
        .unwrap();
        assert_eq!((seen, given), (1, 1));
    }

    #[test]
    fn a_game_is_found_by_id_or_the_ids_there_are_named() {
        let dir = folder(&format!(
            "{}\n{}\n{}\n",
            game_line(4),
            game_line(9),
            game_line(6)
        ));
        assert_eq!(find_game(dir.path(), 9).unwrap().id, 9);
        let e = find_game(dir.path(), 5).unwrap_err().to_string();
        assert!(e.contains("no game 5 (its ids run from 4 to 9)"), "{e}");
        let empty = folder("");
        let e = find_game(empty.path(), 0).unwrap_err().to_string();
        assert!(e.contains("it has no games"), "{e}");
        let none = tempfile::tempdir().unwrap();
        let e = find_game(none.path(), 0).unwrap_err();
        assert!(matches!(e, FolderError::Missing { .. }), "{e}");
    }

    #[test]
    fn a_damaged_line_is_named_and_a_line_past_the_cap_refused_unheld() {
        let dir = folder(&format!("{}\nnot json\n{}\n", game_line(1), game_line(2)));
        let e = read_games(dir.path()).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let long = format!("{}\n{}\n", game_line(1), "x".repeat(MAX_RECORD_BYTES + 10));
        let dir = folder(&long);
        let e = read_games(dir.path()).unwrap_err();
        assert!(matches!(e, FolderError::LineTooLong { line: 2, .. }), "{e}");
    }

    #[test]
    fn folders_are_known_by_their_files() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(FolderKind::of(dir.path()), None);
        fs::write(dir.path().join(FIRST_MOVE_FILE), "{}").unwrap();
        assert_eq!(FolderKind::of(dir.path()), Some(FolderKind::FirstMove));
        fs::write(dir.path().join(SUMMARY_FILE), "{}").unwrap();
        assert_eq!(FolderKind::of(dir.path()), Some(FolderKind::Tournament));
        assert_eq!(FolderKind::marked_by("log.csv"), Some(FolderKind::Training));
        assert_eq!(FolderKind::marked_by("notes.txt"), None);
    }
}
