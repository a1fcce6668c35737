//! Balanced opening books from exact values: every distinct position
//! reached after K moves from the start, solved exactly, keeping those
//! whose perfect-play value for the player to move is close to 0. Chess
//! engine testers build balanced books from an engine's evaluation; these
//! are exact, so a tournament that plays them measures the agents, not
//! the luck of the opening.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mancala_agents::StopCondition;
use mancala_arena::stats::json_float::to_value;
use mancala_core::{Game, Move, Player};
use mancala_solver::{ExactGame, Profile};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{bad_input, build_solver, solver_options, AnalysisError, Observer, Result};

/// Most positions a book search takes on: beyond this, K is too deep for
/// every position to be solved in a run anyone waits for.
pub const MAX_POSITIONS: usize = 200_000;

/// What [`balanced_book`] searches.
#[derive(Clone, Debug)]
pub struct BookOptions {
    /// Moves from the start (a move is one sowing, or the swap; an extra
    /// turn makes the same player move again).
    pub plies: u32,
    /// Keep positions whose value for the mover lies within `-max_abs ..=
    /// max_abs` (`None`: no bound, see `count`).
    pub max_abs: Option<i32>,
    /// Keep at most this many, those closest to 0 (ties in the order the
    /// positions were found).
    pub count: Option<usize>,
    /// Worker threads: positions are solved in parallel.
    pub threads: usize,
    /// Solver transposition table size in MiB (`None`: `mancala solve`'s).
    pub tt: Option<u64>,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`; 0: none).
    pub db_seeds: Option<usize>,
    /// Where endgame databases are kept (`None`: in memory only).
    pub db_dir: Option<PathBuf>,
}

/// A position of the book: how it is reached, and its exact value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BookEntry {
    /// The moves from the start that reach it first (in move order), as
    /// an opening file writes them: pits from 1, `swap`.
    pub moves: String,
    /// The position, in the project's notation.
    pub position: String,
    /// The player to move (0 or 1).
    pub to_move: usize,
    /// The final margin for the player to move with perfect play.
    pub value: i32,
}

/// What `mancala analyze openings` writes beside the book, as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BookReport {
    /// The rules (their canonical spec).
    pub game: String,
    /// Moves from the start.
    pub plies: u32,
    /// The bound on |value| asked for.
    pub max_abs: Option<i32>,
    /// The most openings asked for.
    pub count: Option<usize>,
    /// Move sequences of `plies` moves from the start (games that ended
    /// on the way not counted).
    pub paths: u64,
    /// Distinct positions they reach (transpositions merged).
    pub positions: usize,
    /// Move sequences that ended the game before `plies` moves.
    pub ended: u64,
    /// Positions solved.
    pub solved: usize,
    /// Positions kept in the book.
    pub kept: usize,
    /// How many positions have each value for the mover, over all solved.
    pub values: Vec<(i32, usize)>,
    /// How many kept positions have each value.
    pub kept_values: Vec<(i32, usize)>,
    /// Seconds the solves took (the database's build or load not counted).
    pub seconds: Value,
    /// Seconds the endgame database took to build or load.
    pub database_seconds: Value,
    /// The book, in the order the positions were found.
    pub book: Vec<BookEntry>,
}

/// The positions a number of moves from the start reaches.
#[derive(Clone, Debug)]
pub struct Reached<S> {
    /// Each distinct position with the first move sequence that reaches
    /// it (moves tried in legal order, so the same rules give the same
    /// list).
    pub positions: Vec<(Vec<Move>, S)>,
    /// Move sequences that reach them.
    pub paths: u64,
    /// Move sequences that ended the game on the way.
    pub ended: u64,
}

/// Every distinct position after `plies` moves from `rules`' start.
///
/// # Errors
/// [`crate::AnalysisError::BadInput`] past [`MAX_POSITIONS`].
pub fn positions_after<G: Game>(rules: &G, plies: u32) -> Result<Reached<G::State>> {
    // Each level's positions with their counts of paths, in the order
    // found; a map from position to its place merges transpositions.
    let mut level: Vec<(Vec<Move>, G::State, u64)> = vec![(Vec::new(), rules.start(), 1)];
    let mut ended = 0u64;
    for ply in 0..plies {
        let mut next: Vec<(Vec<Move>, G::State, u64)> = Vec::new();
        let mut seen: HashMap<G::State, usize> = HashMap::new();
        for (moves, state, paths) in &level {
            for mv in rules.legal_moves(state) {
                let mut child = state.clone();
                rules.play_unchecked(&mut child, mv);
                if rules.is_over(&child) {
                    ended += paths;
                    continue;
                }
                match seen.get(&child) {
                    Some(&i) => next[i].2 += paths,
                    None => {
                        if next.len() == MAX_POSITIONS {
                            return Err(bad_input(format!(
                                "--plies {plies}: more than {MAX_POSITIONS} distinct positions \
                                 after {} moves; choose fewer plies",
                                ply + 1
                            )));
                        }
                        seen.insert(child.clone(), next.len());
                        let mut path = moves.clone();
                        path.push(mv);
                        next.push((path, child, *paths));
                    }
                }
            }
        }
        level = next;
    }
    Ok(Reached {
        paths: level.iter().map(|(_, _, p)| p).sum(),
        positions: level.into_iter().map(|(m, s, _)| (m, s)).collect(),
        ended,
    })
}

/// The balanced book of `rules` under `options`: every position after
/// `plies` (at least 1) moves solved exactly (in parallel, one position per thread:
/// the values are exact, so neither order nor thread count changes them),
/// the kept ones in the order found. Stops early when `stop` is raised
/// ([`crate::AnalysisError::Interrupted`]).
///
/// # Errors
/// Bad options (no moves, a count of 0), a bound that no position meets,
/// a solver that cannot be had, or a stop.
pub fn balanced_book<G: ExactGame>(
    rules: G,
    options: &BookOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<BookReport> {
    check_book_options(options)?;
    rules.check_solvable().map_err(AnalysisError::Refused)?;
    let Reached {
        positions: found,
        paths,
        ended,
    } = positions_after(&rules, options.plies)?;
    if found.is_empty() {
        return Err(bad_input(format!(
            "no position lasts {} moves: every game ends before",
            options.plies
        )));
    }
    let solved = solve_values(&rules, options, &found, observer, stop)?;
    let values = &solved.values;
    let (mut entries, histogram) = book_entries(&rules, options, &found, values)?;
    if let Some(n) = options.count {
        entries = closest_to_zero(entries, n);
    }
    let mut kept_values: BTreeMap<i32, usize> = BTreeMap::new();
    for e in &entries {
        *kept_values.entry(e.value).or_insert(0) += 1;
    }
    Ok(BookReport {
        game: rules.to_string(),
        plies: options.plies,
        max_abs: options.max_abs,
        count: options.count,
        paths,
        positions: found.len(),
        ended,
        solved: values.iter().flatten().count(),
        kept: entries.len(),
        values: histogram.into_iter().collect(),
        kept_values: kept_values.into_iter().collect(),
        seconds: to_value(solved.seconds),
        database_seconds: to_value(solved.database_seconds),
        book: entries,
    })
}

/// Refuses options that ask for no book: no moves, a count or bound that
/// keeps nothing, or neither a count nor a bound.
fn check_book_options(options: &BookOptions) -> Result<()> {
    // An opening file holds move sequences; the start alone would be an
    // empty line, which the file's reader refuses, and is what a
    // tournament without openings plays anyway.
    if options.plies == 0 {
        return Err(bad_input(
            "--plies: at least 1 move (a book of the start position alone is not a book)",
        ));
    }
    if options.count == Some(0) {
        return Err(bad_input("--count: at least 1 opening"));
    }
    if options.max_abs.is_some_and(|v| v < 0) {
        return Err(bad_input("--max-abs: a bound on |value|, 0 or more"));
    }
    if options.max_abs.is_none() && options.count.is_none() {
        return Err(bad_input(
            "say which positions to keep: --max-abs V (|value| at most V), --count N (the N \
             closest to 0), or both",
        ));
    }
    Ok(())
}

/// The exact values of a book's positions and what finding them took.
struct SolvedValues {
    /// Each position's value, in the order found.
    values: Vec<Option<i32>>,
    /// Seconds the solving took.
    seconds: f64,
    /// Seconds the endgame database's build took.
    database_seconds: f64,
}

/// Solves every one of `found` (in parallel, one position per thread).
///
/// # Errors
/// A solver that cannot be had, or [`AnalysisError::Interrupted`] when
/// `stop` is raised.
fn solve_values<G: ExactGame>(
    rules: &G,
    options: &BookOptions,
    found: &[(Vec<Move>, G::State)],
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<SolvedValues> {
    let solver_options = solver_options(
        rules,
        Profile::Solve,
        options.tt,
        options.db_seeds,
        options.db_dir.as_deref(),
    )?;
    let pool = crate::thread_pool(options.threads)?;
    let solver = build_solver(
        rules,
        &solver_options,
        options.threads,
        &rules.to_string(),
        observer,
    )?;
    let database_seconds = solver.database_seconds();
    observer.message(&format!(
        "{rules}: solving {} positions after {} moves on {} threads...",
        found.len(),
        options.plies,
        options.threads
    ));
    let t0 = Instant::now();
    let until = StopCondition {
        deadline: None,
        cancel: Some(stop),
        clock: None,
    };
    observer.start(found.len() as u64, "positions");
    let values: Vec<Option<i32>> = pool.install(|| {
        use rayon::prelude::*;
        found
            .par_iter()
            .with_max_len(1)
            .map(|(_, state)| {
                let value = solver.value(state, until).ok();
                observer.step();
                value
            })
            .collect()
    });
    observer.finish();
    if stop.load(Ordering::Relaxed) {
        return Err(crate::AnalysisError::Interrupted);
    }
    Ok(SolvedValues {
        values,
        seconds: t0.elapsed().as_secs_f64(),
        database_seconds,
    })
}

/// The positions of `found` within `--max-abs`, as book entries in the
/// order found, and how many positions have each value (all of them).
///
/// # Errors
/// A bound that no position meets (an empty book would play no game).
fn book_entries<G: ExactGame>(
    rules: &G,
    options: &BookOptions,
    found: &[(Vec<Move>, G::State)],
    values: &[Option<i32>],
) -> Result<(Vec<BookEntry>, BTreeMap<i32, usize>)> {
    let mut entries: Vec<BookEntry> = Vec::new();
    let mut histogram: BTreeMap<i32, usize> = BTreeMap::new();
    for ((moves, state), value) in found.iter().zip(values) {
        let value = value.expect("a solve without a deadline finishes unless stopped");
        *histogram.entry(value).or_insert(0) += 1;
        if options.max_abs.is_some_and(|v| value.abs() > v) {
            continue;
        }
        entries.push(BookEntry {
            moves: moves
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            position: rules.setup(state).to_string(),
            to_move: rules.to_move(state).map_or(0, |p: Player| p.index()),
            value,
        });
    }
    if entries.is_empty() {
        // Only the bound can leave nothing (the count is at least 1, and
        // some position was found): an empty book would play no game.
        let closest = histogram
            .keys()
            .min_by_key(|v| v.abs())
            .expect("a value per position found");
        return Err(bad_input(format!(
            "no opening after {} move{} has |value| <= {}: the closest to 0 is worth \
             {closest:+} (of {} positions solved); raise --max-abs or choose other --plies",
            options.plies,
            if options.plies == 1 { "" } else { "s" },
            options.max_abs.unwrap_or_default(),
            found.len()
        )));
    }
    Ok((entries, histogram))
}

/// The `n` entries closest to 0, back in the order found (a stable sort
/// keeps that order among equals).
fn closest_to_zero(entries: Vec<BookEntry>, n: usize) -> Vec<BookEntry> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].value.abs());
    order.truncate(n);
    order.sort_unstable();
    order.into_iter().map(|i| entries[i].clone()).collect()
}

/// The book of `report` as an opening file (see `mancala_arena::openings`):
/// comments saying what it is, then one move sequence per line with the
/// position it reaches and its value, for `[openings] file` or `match
/// --openings`.
pub fn book_text(report: &BookReport) -> String {
    let bound = match (report.max_abs, report.count) {
        (Some(v), None) => format!("|value| <= {v}"),
        (None, Some(n)) => format!("the {n} closest to 0"),
        (Some(v), Some(n)) => format!("|value| <= {v}, at most {n} closest to 0"),
        (None, None) => "all".into(),
    };
    let mut text = format!(
        "# Balanced openings of {}: every distinct position after {} moves from the start\n\
         # ({} of {} solved exactly), keeping {bound} for the player to move with perfect\n\
         # play (mancala analyze openings). {} openings; values kept: {}.\n\
         # One opening per line: the moves from the start, then the position and its value.\n",
        report.game,
        report.plies,
        report.solved,
        report.positions,
        report.kept,
        report
            .kept_values
            .iter()
            .map(|(v, n)| format!("{v:+}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for e in &report.book {
        text.push_str(&format!(
            "{}  # {} P{} to move, value {:+}\n",
            e.moves, e.position, e.to_move, e.value
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::KalahRules;

    /// Options for a book of `plies` moves keeping `|value| <= max_abs`
    /// and at most `count`, on a small table without a database.
    fn book_options(plies: u32, max_abs: Option<i32>, count: Option<usize>) -> BookOptions {
        BookOptions {
            plies,
            max_abs,
            count,
            threads: 1,
            tt: Some(16),
            db_seeds: Some(0),
            db_dir: None,
        }
    }

    #[test]
    fn a_book_no_tournament_could_play_is_refused() {
        let rules = KalahRules::new(2, 2).unwrap();
        let book = |o: BookOptions| balanced_book(rules, &o, &(), &AtomicBool::new(false));
        let refused = |o: BookOptions| match book(o) {
            Err(crate::AnalysisError::BadInput(e)) => e,
            other => panic!("not refused: {other:?}"),
        };
        assert!(refused(book_options(0, Some(8), None)).contains("--plies"));
        assert!(refused(book_options(1, None, Some(0))).contains("--count"));
        // After one move of Kalah(2,2): values -4 and +2, none within 1.
        let e = refused(book_options(1, Some(1), None));
        assert!(e.contains("no opening") && e.contains("+2"), "{e}");
        assert_eq!(book(book_options(1, Some(2), None)).unwrap().kept, 1);
    }

    #[test]
    fn positions_after_merge_transpositions_and_count_paths() {
        let rules = KalahRules::new(3, 2).unwrap();
        let none = positions_after(&rules, 0).unwrap();
        assert_eq!((none.positions.len(), none.paths, none.ended), (1, 1, 0));
        // Every path of two moves, counted by brute force, is one of the
        // positions or ended on the way.
        let mut all = 0u64;
        let mut over = 0u64;
        let mut distinct = std::collections::HashSet::new();
        for a in rules.legal_moves(&rules.start()) {
            let mut s = rules.start();
            rules.play_unchecked(&mut s, a);
            if rules.is_over(&s) {
                over += 1;
                continue;
            }
            for b in rules.legal_moves(&s) {
                let mut t = s;
                rules.play_unchecked(&mut t, b);
                if rules.is_over(&t) {
                    over += 1;
                } else {
                    all += 1;
                    distinct.insert(t);
                }
            }
        }
        let two = positions_after(&rules, 2).unwrap();
        assert_eq!((two.paths, two.ended), (all, over));
        assert_eq!(two.positions.len(), distinct.len());
        // Each position is reached by its own moves.
        for (moves, state) in &two.positions {
            let mut s = rules.start();
            for &m in moves {
                rules.play_unchecked(&mut s, m);
            }
            assert_eq!(&s, state);
        }
        // Kalah(6,4): 6, 35, 185, 942 distinct positions after 1 to 4
        // moves, as a separate breadth-first walk over notations counted
        // them (through the Python package's states).
        let rules = KalahRules::new(6, 4).unwrap();
        let counts: Vec<usize> = (1..=4)
            .map(|k| positions_after(&rules, k).unwrap().positions.len())
            .collect();
        assert_eq!(counts, [6, 35, 185, 942]);
        // After 5 moves, 12 of the 4,690 move sequences reach a position
        // another one reached first.
        let five = positions_after(&rules, 5).unwrap();
        assert_eq!((five.positions.len(), five.paths), (4678, 4690));
    }
}
