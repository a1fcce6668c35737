//! `mancala analyze fair`: starting positions one or two seeds away from
//! the standard one whose perfect-play value is 0 (Neller's FairKalah).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Result;
use clap::{Args, ValueEnum};
use mancala_agents::{parse_duration, StopCondition};
use mancala_arena::stats::json_float::to_value;
use mancala_core::{ByPlayer, Game, GameSpec, Player, Setup};
use mancala_solver::Solver;
use serde_json::{json, Value};

use super::solver_options;
use crate::{bad_input, Interrupted};

/// Which capture rules `analyze fair` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Capture {
    /// Both: empty_capture=false, then empty_capture=true.
    Both,
    /// empty_capture=false only (a capture needs seeds opposite).
    Standard,
    /// empty_capture=true only (Neller's FairKalah rules).
    Empty,
}

/// Arguments of `mancala analyze fair`.
#[derive(Args, Debug)]
pub struct FairArgs {
    /// The Kalah board and rules, e.g. kalah:pits=4,seeds=3 (empty_capture
    /// is set by --capture).
    #[arg(long, short, default_value = "kalah:pits=4,seeds=3")]
    game: String,
    /// Seeds moved from the standard start: candidates move 1, or up to 2.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    moves: u8,
    /// Capture rules to search.
    #[arg(long, value_enum, default_value_t = Capture::Both)]
    capture: Capture,
    /// Worker threads (default: all cores): candidates are solved in parallel.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Solver transposition table size in MiB (one per rule set, shared by
    /// every candidate).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Stop after this long for each rule set (e.g. 10m); unsolved
    /// candidates are counted as such.
    #[arg(long)]
    budget: Option<String>,
    /// Work out every candidate's exact value too (a histogram of them in
    /// the output). Without it, each candidate only gets compared with 0,
    /// which takes at most two null-window searches instead of a full
    /// MTD(f): about half the time on Kalah(6,4).
    #[arg(long)]
    values: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// A candidate start: its flat board `[P0 pits, P0 store, P1 pits, P1
/// store]` and how many seeds were moved to get there.
struct Candidate {
    cells: Vec<u8>,
    moved: usize,
}

/// Every board `moves` or fewer seed moves from `start` (a seed taken from
/// a pit and put in any other pit or store, of either side), the start
/// itself excluded, in a fixed order.
fn candidates(start: &[u8], pits: usize, moves: u8) -> Vec<Candidate> {
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
fn describe_change(start: &[u8], cells: &[u8], pits: usize) -> String {
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

/// `mancala analyze fair`.
pub fn run(args: &FairArgs) -> Result<()> {
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let GameSpec::Kalah(base) = spec else {
        return Err(bad_input(format!(
            "--game: fair starts need the solver, which plays Kalah only; not {spec}"
        )));
    };
    let budget = match &args.budget {
        None => None,
        Some(t) => {
            Some(parse_duration("budget", t).map_err(|e| bad_input(format!("--budget: {e}")))?)
        }
    };
    let threads = crate::threads(args.threads, usize::MAX);
    let pool = crate::thread_pool(threads)?;
    let captures: &[bool] = match args.capture {
        Capture::Both => &[false, true],
        Capture::Standard => &[false],
        Capture::Empty => &[true],
    };
    let stop = crate::stop_flag();
    let pits = base.pits();
    let mut reports = Vec::new();
    let mut interrupted = false;
    for &empty_capture in captures {
        let mut rules = base;
        rules.empty_capture = empty_capture;
        // Setup::board is [P0 pits, P1 pits, store 0, store 1]; candidates
        // use the ring order [P0 pits, store 0, P1 pits, store 1].
        let setup = rules.setup(&rules.start());
        let mut start_flat = setup.rows[Player::ZERO].clone();
        start_flat.push(setup.stores[Player::ZERO]);
        start_flat.extend_from_slice(&setup.rows[Player::ONE]);
        start_flat.push(setup.stores[Player::ONE]);
        let options = solver_options(&rules, args.tt, args.db_seeds)?;
        if !args.json {
            eprintln!("{rules}: building the solver...");
        }
        // One solver per rule set: its table carries over from candidate
        // to candidate (they share most of their positions).
        let solver = pool
            .install(|| Solver::new(rules, &options))
            .map_err(|e| bad_input(format!("{e} (try a smaller --tt or --db-seeds)")))?;
        let t0 = Instant::now();
        let until = StopCondition {
            deadline: budget.and_then(|b| t0.checked_add(b)),
            cancel: Some(stop),
        };
        let start_value = solver.value(&rules.start(), until).ok();
        let all = candidates(&start_flat, pits, args.moves);
        // Positions that are over before the first move (a row empty) are
        // not starts: left out and counted.
        let mut states = Vec::new();
        let mut over = 0usize;
        for c in &all {
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
        if !args.json {
            eprintln!(
                "{rules}: solving {} candidate starts on {threads} threads...",
                states.len()
            );
        }
        // Each candidate on one thread, candidates in parallel: the values
        // are exact, so neither the order nor the thread count changes them.
        // Without --values a candidate's "value" is only its sign: -1, 0
        // or +1 for the first player.
        // Kalah(6,4) takes minutes: a bar (on a terminal, not with --json).
        let progress =
            crate::progress::Progress::counting(states.len() as u64, args.json, "candidates");
        let values: Vec<Option<i32>> = pool.install(|| {
            use rayon::prelude::*;
            states
                .par_iter()
                .with_max_len(1)
                .map(|(_, state, _)| {
                    let value = if args.values {
                        solver.value(state, until).ok()
                    } else {
                        solver.compare(state, 0, until).ok().map(|o| o as i32)
                    };
                    progress.step();
                    value
                })
                .collect()
        });
        progress.finish();
        let seconds = t0.elapsed().as_secs_f64();
        let unsolved = values.iter().filter(|v| v.is_none()).count();
        let favour = |sign: i32| {
            values
                .iter()
                .flatten()
                .filter(|v| v.signum() == sign)
                .count()
        };
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
        }
        let fair: Vec<Value> = states
            .iter()
            .zip(&values)
            .filter(|(_, v)| **v == Some(0))
            .map(|((c, _, text), _)| {
                json!({
                    "position": text,
                    "seeds_moved": c.moved,
                    "change": describe_change(&start_flat, &c.cells, pits),
                })
            })
            .collect();
        let count_moved = |k: usize| fair.iter().filter(|f| f["seeds_moved"] == json!(k)).count();
        let mut by_value: BTreeMap<i32, usize> = BTreeMap::new();
        for v in values.iter().flatten() {
            *by_value.entry(*v).or_insert(0) += 1;
        }
        let mut report = json!({
            "game": rules.to_string(),
            "empty_capture": empty_capture,
            "start_value": start_value,
            "candidates": states.len(),
            "over_at_start": over,
            "solved": states.len() - unsolved,
            "unsolved": unsolved,
            "fair_count": fair.len(),
            "fair_one_seed": count_moved(1),
            "fair_two_seeds": count_moved(2),
            "favours_first": favour(1),
            "favours_second": favour(-1),
            "seconds": to_value(seconds),
            "fair": fair,
        });
        if args.values {
            report["values"] = by_value.iter().map(|(v, n)| json!([v, n])).collect();
        }
        reports.push(report);
        if interrupted {
            break;
        }
    }
    if args.json {
        println!("{}", json!({ "moves": args.moves, "rule_sets": reports }));
    } else {
        for r in &reports {
            print_fair(r);
        }
    }
    if interrupted {
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
}

fn print_fair(r: &Value) {
    println!(
        "{} (empty capture {}): the standard start is worth {} for the first player",
        r["game"].as_str().unwrap_or(""),
        if r["empty_capture"] == json!(true) {
            "on"
        } else {
            "off"
        },
        match r["start_value"].as_i64() {
            Some(v) => format!("{v:+}"),
            None => "? (not solved)".into(),
        }
    );
    println!(
        "  {} candidate starts ({} more end at once), {} solved in {:.2} s: {} fair \
         ({} with one seed moved, {} with two); {} favour the first player, {} the second",
        r["candidates"],
        r["over_at_start"],
        r["solved"],
        r["seconds"].as_f64().unwrap_or(0.0),
        r["fair_count"],
        r["fair_one_seed"],
        r["fair_two_seeds"],
        r["favours_first"],
        r["favours_second"]
    );
    if let Some(values) = r["values"].as_array() {
        let text: Vec<String> = values
            .iter()
            .map(|p| format!("{:+}: {}", p[0].as_i64().unwrap_or(0), p[1]))
            .collect();
        println!("  values (count): {}", text.join(", "));
    }
    if r["unsolved"] != json!(0) {
        println!(
            "  {} candidates not solved within the budget",
            r["unsolved"]
        );
    }
    for f in r["fair"].as_array().into_iter().flatten() {
        println!(
            "  {}   ({})",
            f["position"].as_str().unwrap_or(""),
            f["change"].as_str().unwrap_or("")
        );
    }
    println!();
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
