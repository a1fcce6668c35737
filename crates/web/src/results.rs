//! The results folders under the server's root: found, listed, and read,
//! never outside the root. A client names a folder by its path relative
//! to the root; [`Root::folder`] refuses absolute paths, `..` and links
//! that lead out.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::fs;
use std::io::BufReader;
use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};

use mancala_analysis::annotate::{GameNotes, ANNOTATIONS};
use mancala_arena::folder::{self, FolderError, FolderKind, GAMES_FILE, MARKING_FILES};
use mancala_arena::lines::{count_records, MAX_RECORD_BYTES};
use mancala_arena::GameRecord;
use serde::Serialize;

use crate::ApiError;

/// How deep under the root folders are looked for.
pub const MAX_DEPTH: usize = 4;
/// Most folders listed.
pub const MAX_FOLDERS: usize = 1000;
/// Most folders looked into for a listing (results folders or not).
pub const MAX_VISITED: usize = 20_000;
/// Most files and folders checked under a folder before it is read.
pub const MAX_CHECKED_ENTRIES: usize = 10_000;
/// Most games a page of the games list holds.
pub const MAX_PAGE: usize = 500;
/// Largest file read (a games log of millions of games is for the command line).
pub const MAX_FILE_BYTES: u64 = 512 << 20;

/// The results root, canonical.
#[derive(Clone, Debug)]
pub struct Root {
    path: PathBuf,
}

/// A results folder, as listed.
#[derive(Clone, Debug, Serialize)]
pub struct FolderView {
    /// Its path under the root, with `/` between names.
    pub path: String,
    /// tournament, training, first-move or analysis; the first that applies.
    pub kind: &'static str,
    /// Every kind of result it holds.
    pub kinds: Vec<&'static str>,
    /// Games in its `games.jsonl`.
    pub games: Option<u64>,
    /// Whether `mancala annotate` judged its games.
    pub annotated: bool,
    /// Games in its `annotations.jsonl`: fewer than `games` when
    /// `annotate` was stopped before the end.
    pub annotated_games: Option<u64>,
}

/// The results folders of a root.
#[derive(Clone, Debug, Serialize)]
pub struct Listing {
    /// The folders, sorted by path.
    pub folders: Vec<FolderView>,
    /// Whether the listing stopped at [`MAX_FOLDERS`] or [`MAX_VISITED`]:
    /// deeper folders may be missing.
    pub truncated: bool,
}

impl Root {
    /// The root at `path`.
    ///
    /// # Errors
    /// A path that is not a folder.
    pub fn new(path: &Path) -> std::io::Result<Root> {
        let path = path.canonicalize()?;
        if !path.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a folder",
                path.display()
            )));
        }
        Ok(Root { path })
    }

    /// The root's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `rel` names, checked to be a folder inside the root.
    pub fn folder(&self, rel: &str) -> Result<PathBuf, ApiError> {
        let named = Path::new(rel);
        if rel.contains('\0')
            || named
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(ApiError::Forbidden(format!(
                "path `{rel}`: give a folder under the results root, without `..` or a leading `/`"
            )));
        }
        let full = self.path.join(named);
        let real = full
            .canonicalize()
            .map_err(|_| ApiError::NotFound(format!("no results folder `{rel}`")))?;
        if !real.starts_with(&self.path) {
            return Err(ApiError::Forbidden(format!(
                "path `{rel}` leads outside the results root"
            )));
        }
        if !real.is_dir() {
            return Err(ApiError::NotFound(format!("`{rel}` is not a folder")));
        }
        // The folder's files are read by name, and the report reads its
        // subfolders' too (a training run's `checkpoint/state.json`), so
        // every entry of the folder and its subfolders must be a plain file
        // or folder inside the root: a link out of it, a device
        // (/dev/zero) or a pipe, which would block a read for ever,
        // refuses the folder.
        self.check_tree(&real, rel)?;
        Ok(real)
    }

    /// Checks every entry under `dir` (to [`MAX_DEPTH`] levels, at most
    /// [`MAX_CHECKED_ENTRIES`] of them): see [`Root::folder`].
    fn check_tree(&self, dir: &Path, rel: &str) -> Result<(), ApiError> {
        let mut pending = vec![(dir.to_path_buf(), 0usize)];
        let mut checked = 0usize;
        while let Some((at, depth)) = pending.pop() {
            let Ok(entries) = fs::read_dir(&at) else {
                continue;
            };
            for entry in entries.flatten() {
                checked += 1;
                if checked > MAX_CHECKED_ENTRIES {
                    return Err(ApiError::Unprocessable(format!(
                        "`{rel}` holds more than {MAX_CHECKED_ENTRIES} files and folders, \
                         more than the web app checks before reading a folder"
                    )));
                }
                let path = entry.path();
                let inside = path
                    .canonicalize()
                    .is_ok_and(|real| real.starts_with(&self.path));
                // Whether it is a folder, looking through a link (which
                // must then lead inside the root).
                let meta = fs::metadata(&path);
                let is_dir = meta.as_ref().is_ok_and(fs::Metadata::is_dir);
                let is_file = meta.as_ref().is_ok_and(fs::Metadata::is_file);
                if inside && is_dir {
                    // A link to a folder inside the root is walked too:
                    // what it holds is read through it. (A cycle of links
                    // ends at the depth bound.)
                    if depth < MAX_DEPTH {
                        pending.push((path, depth + 1));
                    }
                    continue;
                }
                if inside && is_file {
                    continue;
                }
                let shown = path.strip_prefix(dir).unwrap_or(&path);
                return Err(ApiError::Forbidden(format!(
                    "`{rel}` holds `{}`, which is not a plain file or folder inside the results \
                     root",
                    shown.display()
                )));
            }
        }
        Ok(())
    }

    /// Whether `path` is a regular file, or a link to one, inside the root.
    fn plain_file(&self, path: &Path) -> bool {
        let inside = path
            .canonicalize()
            .is_ok_and(|real| real.starts_with(&self.path));
        inside && fs::metadata(path).is_ok_and(|m| m.is_file())
    }

    /// The results folders under the root, to [`MAX_DEPTH`], sorted by
    /// path: looked for breadth first, level by level, so that when the
    /// listing stops at [`MAX_FOLDERS`] (or at [`MAX_VISITED`] folders
    /// looked into) the folders near the root are the ones listed, and the
    /// listing says it stopped. Links are not followed: a link out of the
    /// root lists nothing.
    pub fn folders(&self) -> Listing {
        let mut found = Vec::new();
        let mut queue = VecDeque::from([(self.path.clone(), 0usize)]);
        let mut visited = 0usize;
        let mut truncated = false;
        while let Some((dir, depth)) = queue.pop_front() {
            if found.len() >= MAX_FOLDERS || visited >= MAX_VISITED {
                truncated = true;
                break;
            }
            visited += 1;
            if let Some(view) = self.view(&dir) {
                found.push(view);
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            let mut children: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect();
            // In name order, so that a cut listing is the same at each request.
            children.sort();
            queue.extend(children.into_iter().map(|c| (c, depth + 1)));
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Listing {
            folders: found,
            truncated,
        }
    }

    /// What `dir` holds, if it is a results folder.
    fn view(&self, dir: &Path) -> Option<FolderView> {
        let mut kinds: Vec<&'static str> = Vec::new();
        for file in MARKING_FILES {
            let Some(kind) = FolderKind::marked_by(file).map(FolderKind::name) else {
                continue;
            };
            if self.plain_file(&dir.join(file)) && !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        let kind = *kinds.first()?;
        let rel = dir.strip_prefix(&self.path).ok()?;
        let path = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        // Counted as a stream of bytes: no line is held, whatever its size.
        let records = |file: &str| {
            let path = dir.join(file);
            self.plain_file(&path)
                .then(|| fs::File::open(&path).ok())
                .flatten()
                .and_then(|f| count_records(&mut BufReader::new(f)).ok())
        };
        Some(FolderView {
            path: if path.is_empty() { ".".into() } else { path },
            kind,
            kinds,
            games: records(GAMES_FILE),
            annotated: dir.join(ANNOTATIONS).is_file(),
            annotated_games: records(ANNOTATIONS),
        })
    }
}

/// Calls `each` on every record of a JSON-lines file of the folder, with
/// its byte offset, until it says to stop ([`folder::each_record`]: a
/// stream holding one line at a time, whatever the file's size, no line
/// past the record cap, a torn last line left out). A missing file has
/// none; a file past [`MAX_FILE_BYTES`] is refused before it is read.
fn each_line<T: serde::de::DeserializeOwned>(
    path: &Path,
    each: impl FnMut(u64, T) -> ControlFlow<()>,
) -> Result<(), ApiError> {
    if !within_cap(path)? {
        return Ok(());
    }
    folder::each_record(path, each)
        .map(drop)
        .map_err(unreadable)
}

/// Whether the folder has the file `path`, refusing one past
/// [`MAX_FILE_BYTES`] before it is read: its read is bounded in time, as
/// the stream bounds its memory.
fn within_cap(path: &Path) -> Result<bool, ApiError> {
    let Ok(meta) = fs::metadata(path) else {
        return Ok(false);
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(ApiError::Unprocessable(format!(
            "{} is {} MiB, more than the {} MiB the web app reads",
            file_name(path),
            meta.len() >> 20,
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(true)
}

/// The record at byte `offset` of `path` (found by [`each_line`]).
fn line_at<T: serde::de::DeserializeOwned>(path: &Path, offset: u64) -> Result<T, ApiError> {
    folder::record_at(path, offset).map_err(unreadable)
}

/// A results file's name, without its folder: no response shows a path
/// outside the results root.
fn file_name(path: &Path) -> std::borrow::Cow<'_, str> {
    path.file_name().unwrap_or_default().to_string_lossy()
}

/// Why a results file cannot be read, naming the file, not its path.
fn unreadable(e: FolderError) -> ApiError {
    ApiError::Unprocessable(match e {
        FolderError::Missing { file, .. } => format!("the folder holds no {file}"),
        FolderError::Io { path, source } => format!("{}: {source}", file_name(&path)),
        FolderError::Corrupt { path, line, why } => {
            format!("{} line {line}: {why}", file_name(&path))
        }
        FolderError::LineTooLong { path, line } => format!(
            "{} line {line} is longer than {} MiB: not a record of this toolkit",
            file_name(&path),
            MAX_RECORD_BYTES >> 20
        ),
        FolderError::Changed { path, why } => {
            format!("{} changed while it was read: {why}", file_name(&path))
        }
        FolderError::NoSuchGame { path, id, .. } => {
            format!("{} has no game {id}", file_name(&path))
        }
    })
}

/// What the games list reads of each record, so that the rest of the line
/// (the moves, times and searches, most of it) is skipped, not built.
#[derive(serde::Deserialize)]
struct Listed {
    id: u64,
    players: [String; 2],
    winner: Option<u8>,
    end: String,
}

/// Just the id of a record or a note.
#[derive(serde::Deserialize)]
struct Id {
    id: u64,
}

/// The game `id` of a folder.
pub fn game(dir: &Path, id: u64) -> Result<Option<GameRecord>, ApiError> {
    find(&dir.join(GAMES_FILE), id)
}

/// The games a run is playing in a folder now (see `mancala_arena::live`).
pub fn live_games(dir: &Path) -> Result<Vec<mancala_arena::live::LiveRecord>, ApiError> {
    mancala_arena::live::live_games(dir)
        .map_err(|e| ApiError::Unprocessable(format!("{}: {e}", mancala_arena::live::LIVE_DIR)))
}

/// The annotations of game `id` of a folder (`None` when not annotated).
pub fn game_notes(dir: &Path, id: u64) -> Result<Option<GameNotes>, ApiError> {
    find(&dir.join(ANNOTATIONS), id)
}

/// The first record of `path` with id `id` ([`folder::find_record`]); a
/// missing file has none.
fn find<T: serde::de::DeserializeOwned>(path: &Path, id: u64) -> Result<Option<T>, ApiError> {
    if !within_cap(path)? {
        return Ok(None);
    }
    folder::find_record(path, id).map_err(unreadable)
}

/// The filters of the games list.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameFilter {
    /// The folder.
    pub path: String,
    /// A player of the game (its name in the records).
    pub agent: Option<String>,
    /// win, loss or draw, for `agent` (else for seat 0).
    pub result: Option<String>,
    /// The end reason.
    pub end: Option<String>,
    /// Games to skip.
    pub offset: Option<usize>,
    /// Games to list.
    pub limit: Option<usize>,
}

/// One game in the list.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// Its id.
    pub id: u64,
    /// The players' names by seat.
    pub players: [String; 2],
    /// Final scores by seat.
    pub scores: [u8; 2],
    /// The winning seat.
    pub winner: Option<u8>,
    /// Why it ended.
    pub end: String,
    /// Plies played.
    pub plies: u32,
    /// Each seat's blunders, in an annotated folder.
    pub blunders: Option<[u32; 2]>,
}

/// A page of the games list.
#[derive(Clone, Debug, Serialize)]
pub struct GamePage {
    /// Games in the folder.
    pub total: usize,
    /// Games that pass the filters.
    pub matched: usize,
    /// The page.
    pub games: Vec<GameSummary>,
    /// Agents of the folder, for the filter's choices.
    pub agents: Vec<String>,
    /// End reasons of the folder.
    pub ends: Vec<String>,
    /// Every game of the folder (whatever the filters) scored by agent, best
    /// first: the interim standings of a tournament still being played.
    pub standings: Vec<Standing>,
    /// Every game by result for the seats: the first seat's wins, draws,
    /// the second seat's wins.
    pub seats: [u32; 3],
}

/// One agent's line of the standings.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Standing {
    /// Its name in the records.
    pub agent: String,
    /// Games it played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Standing {
    /// Points: a win 1, a draw a half.
    fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }
}

/// The games of `dir` that pass `filter`, a page of them.
pub fn game_page(dir: &Path, filter: &GameFilter) -> Result<GamePage, ApiError> {
    let query = GameQuery::parse(filter)?;
    let log = dir.join(GAMES_FILE);
    let mut index = LogIndex::read(&log, &query)?;
    let shown = &index.matched[index.matched.len().min(filter.offset.unwrap_or(0))..];
    let shown = &shown[..shown.len().min(query.limit)];
    let wanted: HashSet<u64> = shown.iter().map(|g| g.0).collect();
    let blunders = if wanted.is_empty() {
        HashMap::new()
    } else {
        blunder_counts(&dir.join(ANNOTATIONS), &wanted)?
    };
    let games = summaries(&log, shown, &blunders)?;
    let standings = index.standings();
    Ok(GamePage {
        total: index.total,
        matched: index.matched.len(),
        games,
        agents: index.agents.into_iter().collect(),
        ends: index.ends.into_iter().collect(),
        standings,
        seats: index.seats,
    })
}

/// A [`GameFilter`], checked: which games pass, and how many a page shows.
struct GameQuery<'a> {
    /// `win`, `loss` or `draw`, for the agent's seat (the first seat's
    /// when no agent is named).
    result: Option<&'a str>,
    /// Only games this agent plays.
    agent: Option<&'a str>,
    /// Only games that ended this way.
    end: Option<&'a str>,
    /// Most games on the page.
    limit: usize,
}

impl<'a> GameQuery<'a> {
    /// Checks `filter`'s result, then its limit; empty fields filter
    /// nothing.
    fn parse(filter: &'a GameFilter) -> Result<Self, ApiError> {
        let result = match filter.result.as_deref() {
            None | Some("") => None,
            Some(r @ ("win" | "loss" | "draw")) => Some(r),
            Some(other) => {
                return Err(ApiError::BadRequest(format!(
                    "result `{other}`: win, loss or draw"
                )))
            }
        };
        let limit = filter.limit.unwrap_or(100);
        if limit > MAX_PAGE {
            return Err(ApiError::BadRequest(format!(
                "limit {limit}: at most {MAX_PAGE} games a page"
            )));
        }
        Ok(GameQuery {
            result,
            agent: filter.agent.as_deref().filter(|a| !a.is_empty()),
            end: filter.end.as_deref().filter(|e| !e.is_empty()),
            limit,
        })
    }

    /// Whether `g` passes every filter.
    fn passes(&self, g: &Listed) -> bool {
        let seat = match self.agent {
            Some(a) => match g.players.iter().position(|p| p == a) {
                Some(seat) => seat,
                None => return false,
            },
            None => 0,
        };
        let outcome = match g.winner {
            None => "draw",
            Some(w) if usize::from(w) == seat => "win",
            Some(_) => "loss",
        };
        self.result.is_none_or(|r| r == outcome) && self.end.is_none_or(|e| e == g.end)
    }
}

/// What one pass over a games log finds.
struct LogIndex {
    /// Games in the log.
    total: usize,
    /// The id and byte offset of each game that passes, in id order, each
    /// id once.
    matched: Vec<(u64, u64)>,
    /// Every agent of the log.
    agents: BTreeSet<String>,
    /// Every end reason of the log.
    ends: BTreeSet<String>,
    /// Every game's result by agent (each id counted once).
    scores: HashMap<String, Standing>,
    /// Every game's result by seat: first seat's wins, draws, second's.
    seats: [u32; 3],
    /// Ids counted in `scores` and `seats`.
    counted: HashSet<u64>,
}

impl LogIndex {
    /// One pass over the stream keeps the id and byte offset of each game
    /// that passes `query` (16 bytes a game, not a record); the log is in
    /// finishing order, the list in id order. The page's games are then
    /// read at their offsets.
    fn read(log: &Path, query: &GameQuery) -> Result<Self, ApiError> {
        let mut index = LogIndex {
            total: 0,
            matched: Vec::new(),
            agents: BTreeSet::new(),
            ends: BTreeSet::new(),
            scores: HashMap::new(),
            seats: [0; 3],
            counted: HashSet::new(),
        };
        each_line(log, |at, g: Listed| {
            index.total += 1;
            if query.passes(&g) {
                index.matched.push((g.id, at));
            }
            index.score(&g);
            if !index.agents.contains(&g.players[0]) || !index.agents.contains(&g.players[1]) {
                index.agents.extend(g.players);
            }
            if !index.ends.contains(&g.end) {
                index.ends.insert(g.end);
            }
            ControlFlow::Continue(())
        })?;
        index.matched.sort_unstable();
        // A game logged twice (a damaged log) is listed once.
        index.matched.dedup_by_key(|g| g.0);
        Ok(index)
    }

    /// Counts `g` in the standings and the seats' results, once an id.
    fn score(&mut self, g: &Listed) {
        if !self.counted.insert(g.id) {
            return;
        }
        self.seats[match g.winner {
            Some(0) => 0,
            None => 1,
            Some(_) => 2,
        }] += 1;
        for (seat, name) in g.players.iter().enumerate() {
            // The name is copied once an agent, not once a game.
            if !self.scores.contains_key(name) {
                let first = Standing {
                    agent: name.clone(),
                    ..Standing::default()
                };
                self.scores.insert(name.clone(), first);
            }
            let line = self.scores.get_mut(name).expect("inserted above");
            line.games += 1;
            match g.winner {
                None => line.draws += 1,
                Some(w) if usize::from(w) == seat => line.wins += 1,
                Some(_) => line.losses += 1,
            }
        }
    }

    /// The standings, most points first (by share of points, then name).
    fn standings(&mut self) -> Vec<Standing> {
        let mut lines: Vec<Standing> = std::mem::take(&mut self.scores).into_values().collect();
        let share = |s: &Standing| s.points() / f64::from(s.games.max(1));
        lines.sort_by(|a, b| {
            share(b)
                .total_cmp(&share(a))
                .then_with(|| a.agent.cmp(&b.agent))
        });
        lines
    }
}

/// The blunders of each seat in the notes (`path`) of the `wanted` games
/// that have notes: the notes are found in one pass over ids, and only
/// theirs read whole.
fn blunder_counts(path: &Path, wanted: &HashSet<u64>) -> Result<HashMap<u64, [u32; 2]>, ApiError> {
    let mut noted = Vec::new();
    each_line(path, |at, n: Id| {
        if wanted.contains(&n.id) {
            noted.push(at);
        }
        ControlFlow::Continue(())
    })?;
    let mut blunders = HashMap::new();
    for at in noted {
        let n: GameNotes = line_at(path, at)?;
        let mut count = [0u32; 2];
        for m in n.moves.iter().filter(|m| m.blunder) {
            count[m.seat.min(1)] += 1;
        }
        blunders.insert(n.id, count);
    }
    Ok(blunders)
}

/// The summaries of the `shown` games, read at their offsets in `log`.
fn summaries(
    log: &Path,
    shown: &[(u64, u64)],
    blunders: &HashMap<u64, [u32; 2]>,
) -> Result<Vec<GameSummary>, ApiError> {
    let mut page = Vec::with_capacity(shown.len());
    for &(id, at) in shown {
        let g: GameRecord = line_at(log, at)?;
        page.push(GameSummary {
            id,
            blunders: blunders.get(&id).copied(),
            players: g.players,
            scores: g.scores,
            winner: g.winner,
            end: g.end,
            plies: g.plies,
        });
    }
    Ok(page)
}
