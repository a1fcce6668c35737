//! The solver against a plain minimax that searches every line to the end
//! with no table, no pruning and no database, on tiny boards under every
//! rule option; the endgame database against the same plain search; and
//! the published values of Kalah(6,4) (ignored: they take minutes;
//! `MANCALA_DB_DIR=DIR cargo test --release -p mancala-solver -- --ignored`).

use std::collections::HashMap;

use mancala_agents::StopCondition;
use mancala_core::{Game, GameEnd, GameSpec, KalahRules, KalahState, Leftover, Player};
use mancala_solver::{Endgame, Solver, SolverOptions};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The final margin for the mover, by looking at every line (memoised on
/// the whole state, stores included, so it shares nothing with the solver's
/// store-free keys).
fn plain(rules: &KalahRules, state: &KalahState, memo: &mut HashMap<KalahState, i32>) -> i32 {
    let Some(mover) = rules.to_move(state) else {
        unreachable!("asked for a finished game")
    };
    if let Some(&v) = memo.get(state) {
        return v;
    }
    let mut best = i32::MIN;
    for mv in rules.legal_moves(state) {
        let mut child = *state;
        rules.play_unchecked(&mut child, mv);
        let v = match rules.to_move(&child) {
            None => rules.outcome(&child).unwrap().margin_for(mover),
            Some(next) if next == mover => plain(rules, &child, memo),
            Some(_) => -plain(rules, &child, memo),
        };
        best = best.max(v);
    }
    memo.insert(*state, best);
    best
}

/// Every rule set on a board.
fn variants(pits: usize, seeds: usize) -> Vec<KalahRules> {
    let mut all = Vec::new();
    for empty_capture in [false, true] {
        for game_end in [GameEnd::Immediate, GameEnd::Delayed] {
            for leftover in [Leftover::Owner, Leftover::SetAside] {
                for pie in [false, true] {
                    let mut r = KalahRules::new(pits, seeds).unwrap();
                    r.empty_capture = empty_capture;
                    r.game_end = game_end;
                    r.leftover = leftover;
                    r.pie = pie;
                    all.push(r);
                }
            }
        }
    }
    all
}

/// Positions of random games from the start, the start included.
fn positions(rules: &KalahRules, games: usize, seed: u64) -> Vec<KalahState> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = vec![rules.start()];
    for _ in 0..games {
        let mut s = rules.start();
        while !rules.is_over(&s) {
            out.push(s);
            let legal = rules.legal_moves(&s);
            rules.play_unchecked(&mut s, legal.nth(rng.random_range(0..legal.len())));
        }
    }
    out
}

fn check_board(pits: usize, seeds: usize, options: &SolverOptions, games: usize) -> usize {
    let mut checked = 0;
    for rules in variants(pits, seeds) {
        let solver = Solver::new(rules, options).unwrap();
        let mut memo = HashMap::new();
        for (i, state) in positions(&rules, games, pits as u64 * 31 + seeds as u64)
            .iter()
            .enumerate()
        {
            let mover = rules.to_move(state).unwrap();
            let expected = plain(&rules, state, &mut memo);
            // Alternate: a fresh table, and one warm from earlier positions.
            if i % 2 == 0 {
                solver.clear_table();
            }
            let solution = solver.solve(state, 1 + i % 2).unwrap();
            assert_eq!(solution.value, expected, "{rules} {state:?}");
            assert_eq!(solution.mover, mover);
            // Each move's value, and their best is the position's.
            for m in &solution.moves {
                let mut child = *state;
                rules.play_unchecked(&mut child, m.mv);
                let v = match rules.to_move(&child) {
                    None => rules.outcome(&child).unwrap().margin_for(mover),
                    Some(next) if next == mover => plain(&rules, &child, &mut memo),
                    Some(_) => -plain(&rules, &child, &mut memo),
                };
                assert_eq!(m.value, v, "{rules} {state:?} move {}", m.mv);
            }
            // The principal variation reaches the value.
            let mut s = *state;
            for &mv in &solution.pv {
                rules.try_play(&mut s, mv).unwrap();
            }
            let end = rules.outcome(&s).expect("the pv ends the game");
            assert_eq!(
                end.margin_for(mover),
                expected,
                "{rules} pv {:?}",
                solution.pv
            );
            assert_eq!(
                solver.value(state, Default::default()).unwrap(),
                expected,
                "value of {rules} {state:?}"
            );
            // The best moves are exactly those of the best value.
            let (value, best) = solver
                .best_moves(state, 1 + i % 2, Default::default())
                .unwrap();
            assert_eq!(value, expected);
            let top: Vec<_> = solution
                .moves
                .iter()
                .filter(|m| m.value == expected)
                .map(|m| m.mv)
                .collect();
            assert_eq!(best, top, "best moves of {rules} {state:?}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn the_solver_agrees_with_plain_minimax_under_every_option() {
    let no_db = SolverOptions {
        table_mib: 1,
        endgame_seeds: 0,
        endgame_dir: None,
    };
    let mut checked = 0;
    for (pits, seeds) in [(1, 1), (1, 3), (2, 1), (2, 2), (3, 1), (3, 2), (4, 1)] {
        checked += check_board(pits, seeds, &no_db, 12);
    }
    assert!(checked > 2000, "{checked} positions");
}

#[test]
fn the_solver_with_a_database_and_a_tiny_table_agrees_too() {
    // A table of one bucket: entries are evicted all the time.
    let options = SolverOptions {
        table_mib: 0,
        endgame_seeds: 5,
        endgame_dir: None,
    };
    let mut checked = 0;
    for (pits, seeds) in [(2, 2), (3, 2), (3, 3)] {
        checked += check_board(pits, seeds, &options, 8);
    }
    assert!(checked > 500, "{checked} positions");
}

#[test]
fn endgame_databases_agree_with_direct_search() {
    let mut rng = SmallRng::seed_from_u64(5);
    for rules in variants(3, 3).into_iter().filter(|r| !r.pie) {
        let db = Endgame::build(&rules, 9).unwrap();
        let mut memo = HashMap::new();
        for _ in 0..300 {
            // A random placement of up to 9 seeds, player 0 to move.
            let seeds = rng.random_range(0..=9usize);
            let mut board = [0u8; 6];
            for _ in 0..seeds {
                board[rng.random_range(0..6)] += 1;
            }
            let state = rules.position_unchecked([&board[..3], &board[3..]], [0, 0], Player::ZERO);
            let expected = match rules.outcome(&state) {
                Some(o) => o.margin(),
                None => plain(&rules, &state, &mut memo),
            };
            assert_eq!(db.lookup(&board, seeds), expected, "{rules} {board:?}");
        }
    }
}

fn solve_start(spec: &str) -> i32 {
    let rules = match spec.parse::<mancala_core::GameSpec>().unwrap() {
        mancala_core::GameSpec::Kalah(r) => r,
        _ => unreachable!(),
    };
    // The databases `mancala solve` keeps, when the caller points at them:
    // the 22-seed one takes minutes to build.
    let options = SolverOptions {
        endgame_dir: std::env::var_os("MANCALA_DB_DIR").map(Into::into),
        ..SolverOptions::for_rules(&rules)
    };
    let solver = Solver::new(rules, &options).unwrap();
    solver
        .value_with_threads(&rules.start(), 2, StopCondition::NEVER)
        .unwrap()
}

#[test]
#[ignore = "takes minutes (a 22-seed database): run with --ignored, and MANCALA_DB_DIR to keep it"]
fn kalah_6_4_is_a_win_by_10_under_empty_capture() {
    // Irving, Donkers & Uiterwijk (2000).
    assert_eq!(solve_start("kalah:empty_capture=true"), 10);
}

#[test]
#[ignore = "takes minutes (a 22-seed database): run with --ignored, and MANCALA_DB_DIR to keep it"]
fn kalah_6_4_is_a_win_by_8_under_standard_rules() {
    // Rawlings (2015).
    assert_eq!(solve_start("kalah"), 8);
}

#[test]
fn every_thread_count_finds_the_same_values() {
    for spec in [
        "kalah:pits=4,seeds=3",
        "kalah:pits=4,seeds=3,empty_capture=true,pie=true",
    ] {
        let GameSpec::Kalah(rules) = spec.parse::<GameSpec>().unwrap() else {
            unreachable!()
        };
        let options = SolverOptions {
            table_mib: 4,
            endgame_seeds: 4,
            endgame_dir: None,
        };
        let one = Solver::new(rules, &options).unwrap();
        let expected = one.solve(&rules.start(), 1).unwrap();
        for threads in [2, 3] {
            let solver = Solver::new(rules, &options).unwrap();
            let value = solver
                .value_with_threads(&rules.start(), threads, StopCondition::NEVER)
                .unwrap();
            assert_eq!(value, expected.value, "{spec} on {threads} threads");
            solver.clear_table();
            let moves = solver.move_values(&rules.start(), threads, StopCondition::NEVER);
            assert_eq!(
                moves.unwrap(),
                expected.moves,
                "{spec} on {threads} threads"
            );
        }
    }
}

#[test]
fn threads_searching_one_tree_together_find_the_plain_values() {
    // Boards big enough that the threads split nodes among themselves (the
    // parallel search only marks nodes six seeds or more above the
    // database), under every rule set, with a table small enough that
    // entries are evicted while the threads work.
    let mut checked = 0;
    for rules in variants(4, 2) {
        let options = SolverOptions {
            table_mib: 1,
            endgame_seeds: 2,
            endgame_dir: None,
        };
        let solver = Solver::new(rules, &options).unwrap();
        let mut memo = HashMap::new();
        for (i, state) in positions(&rules, 6, 77).iter().enumerate() {
            let stores = rules.scores(state);
            let in_stores = usize::from(stores[Player::ZERO]) + usize::from(stores[Player::ONE]);
            if rules.is_over(state) || in_stores + 8 > rules.total_seeds() {
                continue;
            }
            let expected = plain(&rules, state, &mut memo);
            let threads = 2 + i % 2;
            let got = solver
                .value_with_threads(state, threads, StopCondition::NEVER)
                .unwrap();
            assert_eq!(got, expected, "{rules} at {state:?} on {threads} threads");
            if i % 3 == 0 {
                solver.clear_table();
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} positions checked");
}

#[test]
fn settle_gives_the_plain_value_or_nothing_whatever_was_solved_before() {
    let options = SolverOptions {
        table_mib: 1,
        endgame_seeds: 4,
        endgame_dir: None,
    };
    let (mut from_db, mut searched, mut unsettled) = (0, 0, 0);
    for rules in variants(3, 3) {
        let solver = Solver::new(rules, &options).unwrap();
        let mut memo = HashMap::new();
        let states = positions(&rules, 10, 17);
        // What a budget of 300 nodes settles, asked in one order...
        let small: Vec<Option<i32>> = states
            .iter()
            .map(|s| solver.settle(s, 300).unwrap())
            .collect();
        for (state, small) in states.iter().zip(&small) {
            let expected = plain(&rules, state, &mut memo);
            match solver.settle(state, 0).unwrap() {
                // Without a budget: only the database, and then exactly.
                Some(v) => {
                    assert_eq!(v, expected, "{rules} {state:?}");
                    from_db += 1;
                }
                None => {
                    // A budget that settles it finds the plain value.
                    assert_eq!(solver.settle(state, 1 << 30).unwrap(), Some(expected));
                    if small.is_some() {
                        searched += 1;
                    } else {
                        unsettled += 1;
                    }
                }
            }
            assert!(small.is_none_or(|v| v == expected), "{rules} {state:?}");
        }
        // ... is what it settles in the reverse order, after a big solve
        // filled the solver's own table: nothing carries over.
        solver.solve(&rules.start(), 1).unwrap();
        for (state, small) in states.iter().zip(&small).rev() {
            assert_eq!(
                &solver.settle(state, 300).unwrap(),
                small,
                "{rules} {state:?}"
            );
        }
        assert_eq!(
            solver
                .settle(
                    &{
                        let mut over = rules.start();
                        while let Some(mv) = rules.legal_moves(&over).into_iter().next() {
                            rules.play_unchecked(&mut over, mv);
                        }
                        over
                    },
                    1 << 20
                )
                .unwrap(),
            None,
            "a finished game has no value to settle"
        );
    }
    // Every kind is seen: settled from the database, by a search within
    // the budget, and not at all.
    assert!(
        from_db > 100 && searched > 100 && unsettled > 20,
        "{from_db} {searched} {unsettled}"
    );
}
