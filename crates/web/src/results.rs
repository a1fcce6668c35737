//! The results folders under the server's root: found, listed, and read,
//! never outside the root. A client names a folder by its path relative
//! to the root; [`Root::folder`] refuses absolute paths, `..` and links
//! that lead out.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};

use mancala_analysis::annotate::{GameNotes, ANNOTATIONS};
use mancala_arena::GameRecord;
use serde::Serialize;

use crate::ApiError;

/// How deep under the root folders are looked for.
pub const MAX_DEPTH: usize = 4;
/// Most folders listed.
pub const MAX_FOLDERS: usize = 1000;
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
}

/// The files that mark each kind of results folder.
const KINDS: &[(&str, &str)] = &[
    ("games.jsonl", "tournament"),
    ("summary.json", "tournament"),
    ("log.csv", "training"),
    ("first_move.json", "first-move"),
    ("exact_positions.json", "analysis"),
];

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
        // The folder's files are read by name (and by the report), so
        // each must be a plain file inside the root: a link out of it, a
        // device (/dev/zero) or a pipe, which would block a read for ever,
        // refuses the folder.
        if let Ok(entries) = fs::read_dir(&real) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() || self.plain_file(&path) {
                    continue;
                }
                return Err(ApiError::Forbidden(format!(
                    "`{rel}` holds `{}`, which is not a plain file inside the results root",
                    entry.file_name().to_string_lossy()
                )));
            }
        }
        Ok(real)
    }

    /// Whether `path` is a regular file, or a link to one, inside the root.
    fn plain_file(&self, path: &Path) -> bool {
        let inside = path
            .canonicalize()
            .is_ok_and(|real| real.starts_with(&self.path));
        inside && fs::metadata(path).is_ok_and(|m| m.is_file())
    }

    /// Every results folder under the root, to [`MAX_DEPTH`], sorted by path.
    /// Links are not followed: a link out of the root lists nothing.
    pub fn folders(&self) -> Vec<FolderView> {
        let mut found = Vec::new();
        let mut stack = vec![(self.path.clone(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            if found.len() >= MAX_FOLDERS {
                break;
            }
            if let Some(view) = self.view(&dir) {
                found.push(view);
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                let hidden = entry.file_name().to_string_lossy().starts_with('.');
                if is_dir && !hidden {
                    stack.push((entry.path(), depth + 1));
                }
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        found
    }

    /// What `dir` holds, if it is a results folder.
    fn view(&self, dir: &Path) -> Option<FolderView> {
        let mut kinds: Vec<&'static str> = Vec::new();
        for &(file, kind) in KINDS {
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
        let log = dir.join("games.jsonl");
        let games = self
            .plain_file(&log)
            .then(|| fs::File::open(&log).ok())
            .flatten()
            .map(|f| {
                BufReader::new(f)
                    .lines()
                    .map_while(Result::ok)
                    .filter(|l| !l.trim().is_empty())
                    .count() as u64
            });
        Some(FolderView {
            path: if path.is_empty() { ".".into() } else { path },
            kind,
            kinds,
            games,
            annotated: dir.join(ANNOTATIONS).is_file(),
        })
    }
}

/// Reads a file of the folder, bounded in size.
fn read_bounded(path: &Path) -> Result<Option<String>, ApiError> {
    let Ok(meta) = fs::metadata(path) else {
        return Ok(None);
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(ApiError::Unprocessable(format!(
            "{} is {} MiB, more than the {} MiB the web app reads",
            path.file_name().unwrap_or_default().to_string_lossy(),
            meta.len() >> 20,
            MAX_FILE_BYTES >> 20
        )));
    }
    fs::read_to_string(path)
        .map(Some)
        .map_err(|e| ApiError::Unprocessable(format!("{}: {e}", path.display())))
}

/// Each line of a JSON-lines file, parsed; a torn last line (a run still
/// writing, or killed) is left out, any other bad line is an error.
fn json_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, ApiError> {
    let Some(text) = read_bounded(path)? else {
        return Ok(Vec::new());
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str(line) {
            Ok(v) => out.push(v),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => {
                return Err(ApiError::Unprocessable(format!(
                    "{} line {}: {e}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    i + 1
                )))
            }
        }
    }
    Ok(out)
}

/// The games of a folder, in id order.
pub fn games(dir: &Path) -> Result<Vec<GameRecord>, ApiError> {
    let mut games: Vec<GameRecord> = json_lines(&dir.join("games.jsonl"))?;
    games.sort_by_key(|g| g.id);
    Ok(games)
}

/// The annotations of a folder by game id (empty when not annotated).
pub fn notes(dir: &Path) -> Result<HashMap<u64, GameNotes>, ApiError> {
    Ok(json_lines::<GameNotes>(&dir.join(ANNOTATIONS))?
        .into_iter()
        .map(|n| (n.id, n))
        .collect())
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
}

/// The games of `dir` that pass `filter`, a page of them.
pub fn game_page(dir: &Path, filter: &GameFilter) -> Result<GamePage, ApiError> {
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
    let games = games(dir)?;
    let notes = notes(dir)?;
    let mut agents: Vec<String> = games.iter().flat_map(|g| g.players.clone()).collect();
    agents.sort();
    agents.dedup();
    let mut ends: Vec<String> = games.iter().map(|g| g.end.clone()).collect();
    ends.sort();
    ends.dedup();
    let agent = filter.agent.as_deref().filter(|a| !a.is_empty());
    let end = filter.end.as_deref().filter(|e| !e.is_empty());
    let passes = |g: &GameRecord| {
        let seat = match agent {
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
        result.is_none_or(|r| r == outcome) && end.is_none_or(|e| e == g.end)
    };
    let matched: Vec<&GameRecord> = games.iter().filter(|g| passes(g)).collect();
    let page = matched
        .iter()
        .skip(filter.offset.unwrap_or(0))
        .take(limit)
        .map(|g| GameSummary {
            id: g.id,
            players: g.players.clone(),
            scores: g.scores,
            winner: g.winner,
            end: g.end.clone(),
            plies: g.plies,
            blunders: notes.get(&g.id).map(|n| {
                let mut count = [0u32; 2];
                for m in n.moves.iter().filter(|m| m.blunder) {
                    count[m.seat.min(1)] += 1;
                }
                count
            }),
        })
        .collect();
    Ok(GamePage {
        total: games.len(),
        matched: matched.len(),
        games: page,
        agents,
        ends,
    })
}
