//! The Congkak solver against a plain minimax over the `Game` trait, on
//! every reachable position of tiny boards under every option; its moves'
//! values, principal variations, thread counts, stop condition, and the
//! refusal of multi-round play.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use mancala_agents::StopCondition;
use mancala_core::{CongkakRules, CongkakState, Game, GameEnd, Move};
use mancala_solver::congkak::CongkakSolver;
use mancala_solver::Solution;
use mancala_solver::{SolveError, SolverOptions};

/// The final margin for the mover with perfect play, by looking at every
/// line to the end of the game. Memoised on the engine's whole state,
/// stores included, so it assumes nothing of what the solver assumes (that
/// the stores do not matter).
pub(crate) fn plain(
    rules: &CongkakRules,
    state: &CongkakState,
    memo: &mut HashMap<CongkakState, i32>,
) -> i32 {
    let mover = rules.to_move(state).expect("asked for a finished game");
    if let Some(&v) = memo.get(state) {
        return v;
    }
    let mut best = i32::MIN;
    for mv in rules.legal_moves(state) {
        let v = move_value(rules, state, mv, memo);
        best = best.max(v);
    }
    assert!(best > i32::MIN, "a game not over has moves");
    let _ = mover;
    memo.insert(*state, best);
    best
}

/// The final margin for the mover of `state` after `mv` and perfect play:
/// an extra turn keeps the sign, a passed turn flips it.
fn move_value(
    rules: &CongkakRules,
    state: &CongkakState,
    mv: Move,
    memo: &mut HashMap<CongkakState, i32>,
) -> i32 {
    let mover = rules.to_move(state).unwrap();
    let mut child = *state;
    rules.play_unchecked(&mut child, mv);
    match rules.to_move(&child) {
        None => rules.outcome(&child).unwrap().margin_for(mover),
        Some(next) if next == mover => plain(rules, &child, memo),
        Some(_) => -plain(rules, &child, memo),
    }
}

/// Every rule set of single-round Congkak on a board.
pub(crate) fn variants(pits: usize, seeds: usize) -> Vec<CongkakRules> {
    let mut all = Vec::new();
    for empty_capture in [false, true] {
        for game_end in [GameEnd::Immediate, GameEnd::Delayed] {
            let mut r = CongkakRules::new(pits, seeds).unwrap();
            r.empty_capture = empty_capture;
            r.game_end = game_end;
            all.push(r);
        }
    }
    all
}

/// Every position reachable from the start that is not over, in the order
/// found (breadth first).
pub(crate) fn reachable(rules: &CongkakRules) -> Vec<CongkakState> {
    let start = rules.start();
    let mut seen = HashSet::from([start]);
    let mut out = vec![start];
    let mut i = 0;
    while i < out.len() {
        let state = out[i];
        i += 1;
        for mv in rules.legal_moves(&state) {
            let mut child = state;
            rules.play_unchecked(&mut child, mv);
            if !rules.is_over(&child) && seen.insert(child) {
                out.push(child);
            }
        }
    }
    out
}

/// The final margin (for the mover of `state`) after playing `pv` from it,
/// which must end the game.
fn replayed(rules: &CongkakRules, state: &CongkakState, pv: &[Move]) -> i32 {
    let mover = rules.to_move(state).unwrap();
    let mut s = *state;
    for &mv in pv {
        rules
            .try_play(&mut s, mv)
            .expect("the PV's moves are legal");
    }
    rules
        .outcome(&s)
        .expect("the PV ends the game")
        .margin_for(mover)
}

/// Checks a solution against the plain minimax: the value, every move's
/// value, the best move's and the principal variation's.
fn check_solution(
    rules: &CongkakRules,
    state: &CongkakState,
    solution: &Solution,
    memo: &mut HashMap<CongkakState, i32>,
) {
    let value = plain(rules, state, memo);
    assert_eq!(solution.value, value, "{rules} {state:?}");
    assert_eq!(Some(solution.mover), rules.to_move(state));
    let legal: Vec<Move> = rules.legal_moves(state).into_iter().collect();
    let listed: Vec<Move> = solution.moves.iter().map(|m| m.mv).collect();
    assert_eq!(listed, legal, "{rules} {state:?}");
    for m in &solution.moves {
        assert_eq!(
            m.value,
            move_value(rules, state, m.mv, memo),
            "{rules} {state:?} move {}",
            m.mv
        );
    }
    let max = solution.moves.iter().map(|m| m.value).max().unwrap();
    assert_eq!(max, value, "{rules} {state:?}");
    assert_eq!(
        replayed(rules, state, &solution.pv),
        value,
        "{rules} {state:?} pv {:?}",
        solution.pv
    );
}

/// Boards whose every reachable position is solved: every board of 2 and
/// 3 holes a row up to 4 seeds each, and the smaller ones of 4 to 6 holes
/// (about 5,000 positions per option set on 4 holes of 2 seeds).
const EXHAUSTIVE: &[(usize, usize)] = &[
    (2, 1),
    (2, 2),
    (2, 3),
    (2, 4),
    (3, 1),
    (3, 2),
    (3, 3),
    (3, 4),
    (4, 1),
    (4, 2),
    (5, 1),
    (6, 1),
];

#[test]
fn values_agree_with_plain_minimax_on_every_reachable_position() {
    let mut positions = 0;
    for &(pits, seeds) in EXHAUSTIVE {
        for rules in variants(pits, seeds) {
            let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
            let mut memo = HashMap::new();
            for state in reachable(&rules) {
                let v = solver.value(&state, StopCondition::NEVER).unwrap();
                assert_eq!(v, plain(&rules, &state, &mut memo), "{rules} {state:?}");
                positions += 1;
            }
        }
    }
    assert!(positions > 30_000, "{positions} positions");
}

#[test]
fn every_moves_value_and_the_pv_agree_on_every_reachable_position() {
    for &(pits, seeds) in EXHAUSTIVE {
        for rules in variants(pits, seeds) {
            let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
            let mut memo = HashMap::new();
            for state in reachable(&rules) {
                let solution = solver.solve(&state, 1).unwrap();
                check_solution(&rules, &state, &solution, &mut memo);
                let (best, top) = solver.best_moves(&state, 1, StopCondition::NEVER).unwrap();
                assert_eq!(best, solution.value);
                let keep: Vec<Move> = solution
                    .moves
                    .iter()
                    .filter(|m| m.value == best)
                    .map(|m| m.mv)
                    .collect();
                assert_eq!(top, keep, "{rules} {state:?}");
            }
        }
    }
}

#[test]
fn a_one_bucket_table_still_gives_exact_values() {
    // Two slots for the whole game: nearly every entry is overwritten
    // before it is read again, so the search must not rely on any.
    for rules in variants(3, 2).into_iter().chain(variants(2, 3)) {
        let solver = CongkakSolver::new(rules, &SolverOptions::table(0)).unwrap();
        let mut memo = HashMap::new();
        for state in reachable(&rules).into_iter().step_by(7) {
            let solution = solver.solve(&state, 1).unwrap();
            check_solution(&rules, &state, &solution, &mut memo);
        }
    }
}

#[test]
fn larger_boards_agree_along_sampled_games() {
    // Positions of a few deterministic games (each move the one the seed
    // picks) on boards whose whole tree is still small for the minimax.
    for (pits, seeds) in [(4, 2), (3, 4), (5, 1)] {
        for rules in variants(pits, seeds) {
            let solver = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
            let mut memo = HashMap::new();
            for game in 0..4u64 {
                let mut state = rules.start();
                let mut ply = 0u64;
                while !rules.is_over(&state) {
                    let solution = solver.solve(&state, 1).unwrap();
                    check_solution(&rules, &state, &solution, &mut memo);
                    let legal: Vec<Move> = rules.legal_moves(&state).into_iter().collect();
                    let pick = (game * 7 + ply * 13 + ply * ply) as usize % legal.len();
                    rules.play_unchecked(&mut state, legal[pick]);
                    ply += 1;
                }
            }
        }
    }
}

/// A solution without its cost, which differs between runs.
fn result(s: &Solution) -> (i32, Vec<(Move, i32)>, Vec<Move>) {
    (
        s.value,
        s.moves.iter().map(|m| (m.mv, m.value)).collect(),
        s.pv.clone(),
    )
}

#[test]
fn one_and_two_threads_give_the_same_solution() {
    for (pits, seeds) in [(3, 3), (4, 3), (5, 2)] {
        for rules in variants(pits, seeds) {
            // Fresh solvers, so that neither reads what the other learnt.
            let one = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
            let two = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
            let three = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
            let mut state = rules.start();
            let mut ply = 0;
            while !rules.is_over(&state) && ply < 6 {
                let a = one.solve(&state, 1).unwrap();
                let b = two.solve(&state, 2).unwrap();
                let c = three.solve(&state, 3).unwrap();
                assert_eq!(result(&a), result(&b), "{rules} {state:?}");
                assert_eq!(result(&a), result(&c), "{rules} {state:?}");
                let (v2, top2) = two.best_moves(&state, 2, StopCondition::NEVER).unwrap();
                let (v1, top1) = one.best_moves(&state, 1, StopCondition::NEVER).unwrap();
                assert_eq!((v1, &top1), (v2, &top2));
                assert_eq!(v1, a.value);
                state = {
                    let mut s = state;
                    rules.play_unchecked(&mut s, *top1.last().unwrap());
                    s
                };
                ply += 1;
            }
        }
    }
}

#[test]
fn the_stores_only_shift_the_value() {
    // The same holes and mover with other stores: the value moves by the
    // stores' margin, nothing else (the reason the table leaves them out).
    let rules = CongkakRules::new(3, 3).unwrap();
    let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
    let a = rules.parse_position("2,0,3/1,4,0/6,2/0").unwrap();
    let b = rules.parse_position("2,0,3/1,4,0/1,7/0").unwrap();
    let va = solver.value(&a, StopCondition::NEVER).unwrap();
    let vb = solver.value(&b, StopCondition::NEVER).unwrap();
    assert_eq!(va - vb, (6 - 2) - (1 - 7));
    let mut memo = HashMap::new();
    assert_eq!(va, plain(&rules, &a, &mut memo));
    assert_eq!(vb, plain(&rules, &b, &mut memo));
}

#[test]
fn multi_round_play_is_refused_and_saying_why() {
    let rules = CongkakRules::new(3, 2).unwrap().multi_round(5).unwrap();
    let err = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap_err();
    assert!(matches!(err, SolveError::MultiRound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("rounds=many") && text.contains("stores"),
        "{text}"
    );
}

#[test]
fn a_finished_game_and_a_spent_budget_are_errors() {
    let rules = CongkakRules::new(3, 2).unwrap();
    let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
    let over = rules.parse_position("0,0,0/0,0,0/7,5/-").unwrap();
    assert!(matches!(solver.solve(&over, 1), Err(SolveError::GameOver)));
    // The standard board is far beyond the first look at the clock.
    let rules = CongkakRules::default();
    let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
    let past = StopCondition {
        deadline: Some(Instant::now()),
        cancel: None,
        clock: None,
    };
    for threads in [1, 2] {
        assert!(matches!(
            solver.solve_until(&rules.start(), threads, past),
            Err(SolveError::Stopped)
        ));
    }
    assert!(matches!(
        solver.value(&rules.start(), past),
        Err(SolveError::Stopped)
    ));
}

#[test]
fn the_perfect_agent_plays_congkak_moves_that_keep_the_value() {
    use mancala_solver::{Perfect, PerfectSpec};
    use std::sync::Arc;

    let rules = CongkakRules::new(4, 2).unwrap();
    let spec = PerfectSpec::parse("perfect:tt=4").unwrap();
    assert!(spec.check(&rules).is_ok());
    let many = CongkakRules::new(4, 2).unwrap().multi_round(3).unwrap();
    let why = spec.check(&many).unwrap_err();
    assert!(
        matches!(
            why,
            mancala_solver::PerfectError::Unsolvable(SolveError::MultiRound { .. })
        ),
        "{why:?}"
    );
    assert!(why.to_string().contains("rounds=many"), "{why}");
    let solver = Arc::new(CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap());
    let judge = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
    let mut agents = [
        spec.build::<CongkakRules>(),
        Box::new(Perfect::<CongkakRules>::from_solver(Arc::clone(&solver))),
    ];
    for seed in 0..4 {
        for agent in agents.iter_mut() {
            agent.new_game(seed);
            let mut state = rules.start();
            while !rules.is_over(&state) {
                let best = judge.solve(&state, 1).unwrap();
                let mv = agent.choose(&rules, &state).unwrap();
                let played = best.moves.iter().find(|m| m.mv == mv).unwrap();
                assert_eq!(played.value, best.value, "seed {seed} {state:?}");
                assert_eq!(agent.info().value, Some(f64::from(best.value)));
                rules.play_unchecked(&mut state, mv);
            }
        }
    }
}
