//! Fair starts (Neller's FairKalah): starting positions one or two seeds
//! away from the standard one whose perfect-play value is 0, found by the
//! solver under either capture rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mancala_agents::StopCondition;
use mancala_arena::stats::json_float::to_value;
use mancala_core::{ByPlayer, Game, KalahRules, KalahState, Player, Setup};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{build_solver, solver_options, Observer, Result};
use mancala_solver::{ExactSolver, Profile};

/// What `fair_starts` searches.
#[derive(Clone, Debug)]
pub struct FairOptions {
    /// The Kalah board and rules (`empty_capture` is set by `captures`).
    pub rules: KalahRules,
    /// Seeds moved from the standard start: candidates move 1, or up to 2.
    pub moves: u8,
    /// The capture rules searched, in order: `false` (a capture needs
    /// seeds opposite), `true` (Neller's FairKalah rules).
    pub captures: Vec<bool>,
    /// Worker threads: candidates are solved in parallel.
    pub threads: usize,
    /// Solver transposition table size in MiB (one per rule set, shared by
    /// every candidate).
    pub tt: u64,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`; 0: none).
    pub db_seeds: Option<usize>,
    /// Where endgame databases are kept (`None`: in memory only).
    pub db_dir: Option<PathBuf>,
    /// Search time for each rule set; unsolved candidates are counted as
    /// such. The solver's endgame database is built (or loaded) first and
    /// is not counted: the first run of a pit count builds it, later ones
    /// load it from the cache, and a budget that counted it would give
    /// the same command different results on the first run and the next.
    pub budget: Option<Duration>,
    /// Work out every candidate's exact value too. Without it, each
    /// candidate is only compared with 0, which takes at most two
    /// null-window searches instead of a full MTD(f): about half the time
    /// on Kalah(6,4).
    pub values: bool,
}

/// A fair start: its position, how many seeds were moved and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FairStart {
    /// The position, in the project's notation.
    pub position: String,
    /// Seeds moved from the standard start.
    pub seeds_moved: usize,
    /// The change, in words: `P0 pit 1 -1, P1 store +1`.
    pub change: String,
}

/// The fair starts of `report` as an openings file (see
/// `mancala_arena::openings`): a comment saying what they are, then one
/// position per line with its change from the standard start, so that a
/// tournament can start every game from a position worth exactly 0.
pub fn openings_text(report: &FairReport) -> String {
    let mut text = format!(
        "# Fair starts of {}: the standard start with one or two seeds moved, each worth\n\
         # exactly 0 for the first player with perfect play (mancala analyze fair).\n\
         # {} positions; one opening per line, for `[openings] file` or `match --openings`.\n",
        report.game,
        report.fair.len()
    );
    if report.unsolved > 0 {
        text.push_str(&format!(
            "# {} candidates were not solved within the budget: there may be more.\n",
            report.unsolved
        ));
    }
    for start in &report.fair {
        text.push_str(&format!("{}  # {}\n", start.position, start.change));
    }
    text
}

/// What `mancala analyze fair --json` writes: the seed moves searched and
/// a report per rule set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FairDocument {
    /// Seeds moved from the standard start ([`FairOptions::moves`]).
    pub moves: u8,
    /// One report per capture rule searched, in order.
    pub rule_sets: Vec<FairReport>,
}

/// The fair starts of one rule set, and what the search found on the way.
/// Documents written before `favours_first`/`favours_second` were added
/// read back with them 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FairReport {
    /// The rules (their canonical spec).
    pub game: String,
    /// Whether an empty-pit capture takes nothing opposite too.
    pub empty_capture: bool,
    /// The standard start's value for the first player (`None`: not
    /// solved within the budget).
    pub start_value: Option<i32>,
    /// Candidate starts searched.
    pub candidates: usize,
    /// Boards left out because they end before the first move.
    pub over_at_start: usize,
    /// Candidates solved.
    pub solved: usize,
    /// Candidates not solved within the budget.
    pub unsolved: usize,
    /// Fair starts found.
    pub fair_count: usize,
    /// Of which one seed away.
    pub fair_one_seed: usize,
    /// Of which two seeds away.
    pub fair_two_seeds: usize,
    /// Candidates won by the first player.
    #[serde(default)]
    pub favours_first: usize,
    /// Candidates won by the second player.
    #[serde(default)]
    pub favours_second: usize,
    /// Seconds the search took (the database's build not counted).
    pub seconds: Value,
    /// Seconds the endgame database took to build or load before the
    /// search, outside the budget (`null` in documents written before it
    /// was recorded; 0 without a database).
    #[serde(default)]
    pub database_seconds: Value,
    /// The fair starts, in candidate order.
    pub fair: Vec<FairStart>,
    /// With [`FairOptions::values`]: how many candidates have each value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<(i32, usize)>>,
}

/// A candidate start: its flat board `[P0 pits, P0 store, P1 pits, P1
/// store]` and how many seeds were moved to get there.
pub(crate) struct Candidate {
    cells: Vec<u8>,
    moved: usize,
}

/// Every board `moves` or fewer seed moves from `start` (a seed taken from
/// a pit and put in any other pit or store, of either side), the start
/// itself excluded, in a fixed order.
pub(crate) fn candidates(start: &[u8], pits: usize, moves: u8) -> Vec<Candidate> {
    let stores = [pits, 2 * pits + 1];
    let step = |from: &[u8]| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for src in 0..from.len() {
            if stores.contains(&src) || from[src] == 0 {
                continue;
            }
            for dst in 0..from.len() {
                if dst == src || from[dst] == u8::MAX {
                    continue;
                }
                let mut b = from.to_vec();
                b[src] -= 1;
                b[dst] += 1;
                out.push(b);
            }
        }
        out
    };
    let mut seen: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut frontier = vec![start.to_vec()];
    for _ in 0..moves {
        let mut next = Vec::new();
        for b in &frontier {
            for c in step(b) {
                if c != start && seen.insert(c.clone()) {
                    next.push(c);
                }
            }
        }
        frontier = next;
    }
    seen.into_iter()
        .map(|cells| {
            // Seeds moved: what the pits and stores gained in all (a seed
            // moved twice counts once, as the shortest way there does).
            let moved = cells
                .iter()
                .zip(start)
                .map(|(&c, &s)| usize::from(c.saturating_sub(s)))
                .sum();
            Candidate { cells, moved }
        })
        .collect()
}

/// The change from the start, in words: `P0 pit 1 -1, P1 store +1`.
pub(crate) fn describe_change(start: &[u8], cells: &[u8], pits: usize) -> String {
    let mut parts = Vec::new();
    for (i, (&c, &s)) in cells.iter().zip(start).enumerate() {
        if c == s {
            continue;
        }
        let (player, place) = if i < pits {
            (0, format!("pit {}", i + 1))
        } else if i == pits {
            (0, "store".into())
        } else if i < 2 * pits + 1 {
            (1, format!("pit {}", i - pits))
        } else {
            (1, "store".into())
        };
        parts.push(format!(
            "P{player} {place} {:+}",
            i32::from(c) - i32::from(s)
        ));
    }
    parts.join(", ")
}

/// Every fair start of `options` on each capture rule, in order; stops
/// early (with what it found) when `stop` is raised: the second value
/// says whether it did.
///
/// # Errors
/// [`crate::AnalysisError::BadInput`] for a solver that cannot be had
/// (memory, database size).
pub fn fair_starts(
    options: &FairOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<(Vec<FairReport>, bool)> {
    let pool = crate::thread_pool(options.threads)?;
    let search = FairSearch {
        options,
        pool: &pool,
        observer,
        stop,
    };
    let mut reports = Vec::new();
    let mut interrupted = false;
    for &empty_capture in &options.captures {
        let (report, stopped) = search.report(empty_capture)?;
        interrupted = stopped;
        reports.push(report);
        if interrupted {
            break;
        }
    }
    Ok((reports, interrupted))
}

/// The start of `rules` as cells in ring order.
///
/// `Setup::board` is [P0 pits, P1 pits, store 0, store 1]; candidates use
/// the ring order [P0 pits, store 0, P1 pits, store 1].
fn start_ring(rules: &KalahRules) -> Vec<u8> {
    let setup = rules.setup(&rules.start());
    let mut start_flat = setup.rows[Player::ZERO].clone();
    start_flat.push(setup.stores[Player::ZERO]);
    start_flat.extend_from_slice(&setup.rows[Player::ONE]);
    start_flat.push(setup.stores[Player::ONE]);
    start_flat
}

/// A candidate start that is a position of `rules`, with its notation.
type Start<'c> = (&'c Candidate, KalahState, String);

/// The candidates of `all` that are starts of `rules`, and how many are
/// not: positions that are over before the first move (a row empty) are
/// left out and counted.
fn playable_starts<'c>(rules: &KalahRules, all: &'c [Candidate]) -> (Vec<Start<'c>>, usize) {
    let pits = rules.pits();
    let mut states = Vec::new();
    let mut over = 0usize;
    for c in all {
        let s = Setup {
            rows: ByPlayer([
                c.cells[..pits].to_vec(),
                c.cells[pits + 1..2 * pits + 1].to_vec(),
            ]),
            stores: ByPlayer([c.cells[pits], c.cells[2 * pits + 1]]),
            to_move: Some(Player::ZERO),
            swap_available: rules.pie,
            ..Setup::default()
        };
        match rules.from_setup(&s) {
            Ok(state) if !rules.is_over(&state) => states.push((c, state, s.to_string())),
            _ => over += 1,
        }
    }
    (states, over)
}

/// What the search of every capture rule shares.
struct FairSearch<'a> {
    /// What is searched.
    options: &'a FairOptions,
    /// The worker threads.
    pool: &'a rayon::ThreadPool,
    /// Told of each candidate solved.
    observer: &'a dyn Observer,
    /// Raised to stop.
    stop: &'a AtomicBool,
}

impl FairSearch<'_> {
    /// The fair starts under one capture rule, and whether the stop flag
    /// was raised by the end of their solving.
    ///
    /// # Errors
    /// A solver that cannot be had (memory, database size).
    fn report(&self, empty_capture: bool) -> Result<(FairReport, bool)> {
        let (options, observer, threads) = (self.options, self.observer, self.options.threads);
        let mut rules = options.rules;
        rules.empty_capture = empty_capture;
        let pits = rules.pits();
        let start_flat = start_ring(&rules);
        let solver_options = solver_options(
            &rules,
            Profile::Solve,
            Some(options.tt),
            options.db_seeds,
            options.db_dir.as_deref(),
        )?;
        // One solver per rule set: its table carries over from candidate
        // to candidate (they share most of their positions).
        let solver = build_solver(
            &rules,
            &solver_options,
            threads,
            &rules.to_string(),
            observer,
        )?;
        let database_seconds = solver.database_seconds();
        // The budget starts now, after the database: see `FairOptions::budget`.
        let t0 = Instant::now();
        let until = StopCondition {
            deadline: options.budget.and_then(|b| t0.checked_add(b)),
            cancel: Some(self.stop),
            clock: None,
        };
        let start_value = solver.value(&rules.start(), until).ok();
        let all = candidates(&start_flat, pits, options.moves);
        let (states, over) = playable_starts(&rules, &all);
        observer.message(&format!(
            "{rules}: solving {} candidate starts on {threads} threads...",
            states.len()
        ));
        let values = self.solve(&*solver, &states, until);
        let seconds = t0.elapsed().as_secs_f64();
        let unsolved = values.iter().filter(|v| v.is_none()).count();
        let favour = |sign: i32| {
            values
                .iter()
                .flatten()
                .filter(|v| v.signum() == sign)
                .count()
        };
        let interrupted = self.stop.load(Ordering::Relaxed);
        let fair = fair_of(&states, &values, &start_flat, pits);
        let count_moved = |k: usize| fair.iter().filter(|f| f.seeds_moved == k).count();
        let mut by_value: BTreeMap<i32, usize> = BTreeMap::new();
        for v in values.iter().flatten() {
            *by_value.entry(*v).or_insert(0) += 1;
        }
        let report = FairReport {
            game: rules.to_string(),
            empty_capture,
            start_value,
            candidates: states.len(),
            over_at_start: over,
            solved: states.len() - unsolved,
            unsolved,
            fair_count: fair.len(),
            fair_one_seed: count_moved(1),
            fair_two_seeds: count_moved(2),
            favours_first: favour(1),
            favours_second: favour(-1),
            seconds: to_value(seconds),
            database_seconds: to_value(database_seconds),
            fair,
            values: options.values.then(|| by_value.into_iter().collect()),
        };
        Ok((report, interrupted))
    }

    /// Each of `states` solved on one thread, candidates in parallel: the
    /// values are exact, so neither the order nor the thread count changes
    /// them. Without `values` a candidate's "value" is only its sign: -1,
    /// 0 or +1 for the first player; `None` where `until` cut it short.
    fn solve(
        &self,
        solver: &dyn ExactSolver<KalahRules>,
        states: &[Start<'_>],
        until: StopCondition<'_>,
    ) -> Vec<Option<i32>> {
        let (observer, exact) = (self.observer, self.options.values);
        observer.start(states.len() as u64, "candidates");
        let values = self.pool.install(|| {
            use rayon::prelude::*;
            states
                .par_iter()
                .with_max_len(1)
                .map(|(_, state, _)| {
                    let value = if exact {
                        solver.value(state, until).ok()
                    } else {
                        solver.compare(state, 0, until).ok().map(|o| o as i32)
                    };
                    observer.step();
                    value
                })
                .collect()
        });
        observer.finish();
        values
    }
}

/// The starts of `states` whose value is 0, each with its change from the
/// standard start `start_flat`.
fn fair_of(
    states: &[Start<'_>],
    values: &[Option<i32>],
    start_flat: &[u8],
    pits: usize,
) -> Vec<FairStart> {
    states
        .iter()
        .zip(values)
        .filter(|(_, v)| **v == Some(0))
        .map(|((c, _, text), _)| FairStart {
            position: text.clone(),
            seeds_moved: c.moved,
            change: describe_change(start_flat, &c.cells, pits),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_move_one_or_two_seeds() {
        // Kalah(1,1): [1, 0, 1, 0]. One move: 2 sources x 3 places.
        let start = [1u8, 0, 1, 0];
        let one = candidates(&start, 1, 1);
        assert_eq!(one.len(), 6);
        assert!(one.iter().all(|c| c.moved == 1));
        let two = candidates(&start, 1, 2);
        assert!(two.iter().any(|c| c.moved == 2));
        assert!(two.iter().all(|c| c.cells != start));
        assert_eq!(
            describe_change(&start, &[0, 1, 1, 0], 1),
            "P0 pit 1 -1, P0 store +1"
        );
    }

    #[test]
    fn candidate_counts_match_a_direct_count() {
        // Kalah(3,2) and Kalah(6,4): 525 and 6,396 boards one or two seeds
        // away (counted independently by brute force over all moves).
        let start = |n: usize, s: u8| {
            let mut v = vec![s; n];
            v.push(0);
            v.extend(vec![s; n]);
            v.push(0);
            v
        };
        assert_eq!(candidates(&start(3, 2), 3, 2).len(), 525);
        assert_eq!(candidates(&start(6, 4), 6, 1).len(), 12 * 13);
        assert_eq!(candidates(&start(6, 4), 6, 2).len(), 6396);
    }
}
