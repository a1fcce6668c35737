//! What a resumed first-move analysis keeps of an earlier run: its rows,
//! read back and checked as a tournament checks its games, so that no
//! final file holds a row that a clean run would not have written.
//!
//! A row is kept only if it is a cell of this grid, in the order a clean
//! run writes cells, once, with counts that add up, a score and interval
//! that follow from the counts, its cell's seed, finite numbers, and the
//! board's exact value as the exact file holds it; an exact row only if it
//! is a board of this grid, in order, once, and its value, move values and
//! best moves agree with one another. Anything else is refused, naming the
//! file, the row and what is wrong. A last row cut short (a crash or a full
//! disk while it was written) is dropped, as a tournament drops a torn
//! last line, and the files are rewritten without it before the run goes
//! on.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;

use mancala_agents::derive_seed;
use mancala_arena::stats::{wilson_interval, Wdl, Z95};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::first_move::{cell_seed, Exact, Row};
use crate::grid::Board;
use crate::{io_error, AnalysisError, Result};

/// The rows of a CSV file written by a run. A file that does not end
/// with a newline was cut while its last row was written: that row is not
/// read (and goes when the file is rewritten).
pub(crate) fn read_rows<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let bytes = fs::read(path).map_err(io_error("read", path))?;
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut reader = csv::Reader::from_reader(&bytes[..whole]);
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize().enumerate() {
        rows.push(row.map_err(|e| damaged(path, i + 1, &e.to_string()))?);
    }
    Ok(rows)
}

/// Rewrites `path` with `rows` only (header first), through a temporary
/// file and a rename, so that a crash leaves the old file or the new one.
pub(crate) fn rewrite<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let tmp = path.with_extension("csv.tmp");
    let written = (|| -> std::io::Result<()> {
        let mut w = csv::Writer::from_path(&tmp)?;
        for row in rows {
            w.serialize(row).map_err(std::io::Error::other)?;
        }
        w.flush()?;
        w.into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .sync_all()
    })();
    written.map_err(io_error("write", &tmp))?;
    fs::rename(&tmp, path).map_err(io_error("write", path))
}

/// The error for row `row` (1-based, header not counted) of `path`.
fn damaged(path: &Path, row: usize, why: &str) -> AnalysisError {
    AnalysisError::Damaged {
        path: path.to_path_buf(),
        why: format!(
            "row {row}: {why}; a clean run does not write this row (remove it, or the folder, \
             and rerun)"
        ),
    }
}

/// The grid a resumed run checks rows against.
pub(crate) struct Grid<'a> {
    /// The game's name.
    pub game: &'a str,
    /// Every board, in grid order.
    pub boards: &'a [Board],
    /// The ladder's canonical specs, in order.
    pub agents: &'a [String],
    /// Whether agent `i` can play board `key`.
    pub playable: &'a HashMap<(usize, &'a str), bool>,
    /// Games per cell.
    pub games: u64,
    /// The analysis's seed.
    pub seed: u64,
}

/// Checks the exact rows read from `path`.
pub(crate) fn check_exacts(grid: &Grid<'_>, path: &Path, rows: &[Exact]) -> Result<()> {
    let order: HashMap<&str, usize> = grid
        .boards
        .iter()
        .enumerate()
        .map(|(i, b)| (b.key.as_str(), i))
        .collect();
    let mut last = None;
    let mut seen = std::collections::HashSet::new();
    for (i, e) in rows.iter().enumerate() {
        let bad = |why: String| damaged(path, i + 1, &why);
        let Some(&at) = order.get(e.spec.as_str()) else {
            return Err(bad(format!("board {} is not one of this grid's", e.spec)));
        };
        if !seen.insert(e.spec.as_str()) {
            return Err(bad(format!("board {} is there twice", e.spec)));
        }
        if last.is_some_and(|l| at < l) {
            return Err(bad(format!(
                "board {} comes after a board that follows it in the grid",
                e.spec
            )));
        }
        last = Some(at);
        check_exact(e).map_err(bad)?;
    }
    Ok(())
}

/// What is wrong with an exact row in itself, if anything.
fn check_exact(e: &Exact) -> std::result::Result<(), String> {
    let finite = |x: Option<f64>| x.is_none_or(|x| x.is_finite() && x >= 0.0);
    if !finite(e.seconds) {
        return Err(format!("seconds {:?} is not a time", e.seconds));
    }
    match e.status.as_str() {
        "solved" => {
            let Some(value) = e.value else {
                return Err("a solved board without a value".into());
            };
            let moves = parse_move_values(&e.move_values)
                .ok_or_else(|| format!("move values '{}' do not read", e.move_values))?;
            let best = moves.iter().map(|(_, v)| *v).max();
            if best != Some(value) {
                return Err(format!(
                    "value {value:+} is not the best of the move values '{}'",
                    e.move_values
                ));
            }
            let keep: Vec<&str> = moves
                .iter()
                .filter(|(_, v)| *v == value)
                .map(|(m, _)| *m)
                .collect();
            if keep.join(" ") != e.best_moves {
                return Err(format!(
                    "best moves '{}' are not the moves worth {value:+} in '{}'",
                    e.best_moves, e.move_values
                ));
            }
            Ok(())
        }
        "over_budget" | "unavailable" | "skipped" => {
            if e.value.is_some() || !e.move_values.is_empty() || !e.best_moves.is_empty() {
                Err(format!("a board {} with a value", e.status))
            } else {
                Ok(())
            }
        }
        other => Err(format!("status '{other}' is not one this program writes")),
    }
}

/// `1:+2 2:-4` as moves and values; `None` if it does not read or is empty.
fn parse_move_values(text: &str) -> Option<Vec<(&str, i32)>> {
    let moves: Option<Vec<(&str, i32)>> = text
        .split_whitespace()
        .map(|part| {
            let (m, v) = part.split_once(':')?;
            Some((m, v.parse().ok()?))
        })
        .collect();
    moves.filter(|m| !m.is_empty())
}

/// Checks the cell rows read from `path` against the grid and the boards'
/// exact values.
pub(crate) fn check_rows(
    grid: &Grid<'_>,
    path: &Path,
    rows: &[Row],
    exacts: &BTreeMap<String, Exact>,
) -> Result<()> {
    let per_board = grid.agents.len();
    let boards: HashMap<&str, (usize, &Board)> = grid
        .boards
        .iter()
        .enumerate()
        .map(|(i, b)| (b.key.as_str(), (i, b)))
        .collect();
    let mut last = None;
    for (i, r) in rows.iter().enumerate() {
        let bad = |why: String| damaged(path, i + 1, &why);
        let cell = format!("{} by {}", r.spec, r.agent);
        let (Some(&(board_at, board)), Some(agent_at)) = (
            boards.get(r.spec.as_str()),
            grid.agents.iter().position(|a| *a == r.agent),
        ) else {
            return Err(bad(format!("{cell} is not a cell of this grid")));
        };
        if !grid.playable[&(agent_at, board.key.as_str())] {
            return Err(bad(format!("{cell}: the agent cannot play this board")));
        }
        let at = board_at * per_board + agent_at;
        match last {
            Some(l) if at == l => return Err(bad(format!("{cell} is there twice"))),
            Some(l) if at < l => {
                return Err(bad(format!(
                    "{cell} comes after a cell that follows it in the grid"
                )))
            }
            _ => last = Some(at),
        }
        let Some(exact) = exacts.get(&r.spec) else {
            return Err(bad(format!(
                "{cell}: its board has no row in the exact file, which a run writes first"
            )));
        };
        check_row(grid, board, exact, r).map_err(|why| bad(format!("{cell}: {why}")))?;
    }
    Ok(())
}

/// What is wrong with a cell's row in itself, if anything.
fn check_row(
    grid: &Grid<'_>,
    board: &Board,
    exact: &Exact,
    r: &Row,
) -> std::result::Result<(), String> {
    if (r.game.as_str(), r.pits, r.seeds, r.rules.as_str())
        != (grid.game, board.pits, board.seeds, board.rules.as_str())
    {
        return Err(format!(
            "game {}, {} pits, {} seeds, rules {} are not its board's",
            r.game, r.pits, r.seeds, r.rules
        ));
    }
    let wdl = check_counts(grid, r)?;
    let n = wdl.games() as f64;
    let independent = r.distinct_games > 1 || r.games <= 1;
    let (lo, hi) = wilson_interval(wdl.points(), n, Z95);
    let interval = |x: f64| independent.then_some(x);
    let score = (wdl.score(), interval(lo), interval(hi));
    if (r.first_score, r.score_lo, r.score_hi) != score {
        return Err(format!(
            "score {:?} [{:?}, {:?}] does not follow from {}-{}-{}",
            r.first_score, r.score_lo, r.score_hi, r.first_wins, r.draws, r.first_losses
        ));
    }
    check_margin(board, r, independent)?;
    let plies_ok = r.mean_plies.is_some_and(|p| p.is_finite() && p >= 0.0);
    if !(plies_ok && r.seconds.is_finite() && r.seconds >= 0.0) {
        return Err(format!(
            "mean plies {:?} or seconds {} is not a number of moves or a time",
            r.mean_plies, r.seconds
        ));
    }
    check_exact_columns(exact, r)?;
    let seed = derive_seed(grid.seed, cell_seed(&r.spec, &r.agent));
    if r.seed != seed {
        return Err(format!("seed {} is not the cell's ({seed})", r.seed));
    }
    Ok(())
}

/// The counting columns: the cell's number of games, its results adding
/// up to them, and forfeits and distinct games among them; returns the
/// results.
fn check_counts(grid: &Grid<'_>, r: &Row) -> std::result::Result<Wdl, String> {
    if r.games != grid.games {
        return Err(format!(
            "{} games, where each cell plays {}",
            r.games, grid.games
        ));
    }
    let wdl = Wdl::new(r.first_wins, r.draws, r.first_losses);
    if wdl.games() != r.games {
        return Err(format!(
            "{}-{}-{} does not add up to {} games",
            r.first_wins, r.draws, r.first_losses, r.games
        ));
    }
    if r.forfeits > r.games {
        return Err(format!("{} forfeits in {} games", r.forfeits, r.games));
    }
    if r.distinct_games == 0 {
        return Err(
            "it has no count of distinct games: it was written by an earlier \
                    version; rerun into a new folder"
                .into(),
        );
    }
    if r.distinct_games > r.games {
        return Err(format!(
            "{} distinct games among {} games",
            r.distinct_games, r.games
        ));
    }
    Ok(wdl)
}

/// The exact columns, copied from the board's row of the exact file.
fn check_exact_columns(exact: &Exact, r: &Row) -> std::result::Result<(), String> {
    let copied = (
        r.exact.as_str(),
        r.exact_value,
        r.move_values.as_str(),
        r.best_moves.as_str(),
        r.solve_seconds,
        r.solve_nodes,
    );
    let known = (
        exact.status.as_str(),
        exact.value,
        exact.move_values.as_str(),
        exact.best_moves.as_str(),
        exact.seconds,
        exact.nodes,
    );
    if copied != known {
        return Err(format!(
            "its exact columns ({} {:?} '{}') are not its board's ({} {:?} '{}')",
            r.exact, r.exact_value, r.move_values, exact.status, exact.value, exact.move_values
        ));
    }
    Ok(())
}

/// The margin columns: present exactly when some game was played out,
/// within the board's seeds, the mean inside its interval; no interval
/// when the games were one game repeated (`independent` false).
fn check_margin(board: &Board, r: &Row, independent: bool) -> std::result::Result<(), String> {
    let played = r.games - r.forfeits;
    let seeds = (2 * board.pits * board.seeds) as f64;
    match (r.mean_margin, r.margin_lo, r.margin_hi) {
        (None, None, None) if played == 0 => Ok(()),
        (Some(m), None, None) if played > 0 && !independent && m.abs() <= seeds => Ok(()),
        (Some(m), Some(lo), Some(hi))
            if played > 0
                && independent
                && m.abs() <= seeds
                && !lo.is_nan()
                && !hi.is_nan()
                && lo <= m
                && m <= hi =>
        {
            Ok(())
        }
        (m, lo, hi) => Err(format!(
            "mean margin {m:?} [{lo:?}, {hi:?}] is not one of {played} games played out on \
             a board of {seeds} seeds"
        )),
    }
}
