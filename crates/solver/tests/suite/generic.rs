//! What the generic search brought to Congkak (endgame databases, threads
//! on one tree), the one exact-solver interface of every game, and the
//! solvers' typed errors.

use std::collections::HashMap;

use mancala_agents::StopCondition;
use mancala_core::{CongkakRules, Game, GameEnd, KalahRules, Move, OwareRules};
use mancala_solver::congkak::CongkakSolver;
use mancala_solver::endgame::EndgameError;
use mancala_solver::{
    exact_solver, Endgame, ExactGame, Solution, SolveError, SolverOptions, Table, TableError,
};

// The plain minimax and board helpers of the Congkak solver's own tests.
use crate::congkak::{plain, reachable, variants};

fn with_database(table_mib: usize, endgame_seeds: usize) -> SolverOptions {
    SolverOptions {
        endgame_seeds,
        ..SolverOptions::table(table_mib)
    }
}

/// What no search may change: the value, every move's, the PV.
fn result(s: &Solution) -> (i32, Vec<(Move, i32)>, Vec<Move>) {
    (
        s.value,
        s.moves.iter().map(|m| (m.mv, m.value)).collect(),
        s.pv.clone(),
    )
}

#[test]
fn congkak_with_a_database_agrees_with_plain_minimax_and_with_no_database() {
    let mut positions = 0;
    for (pits, seeds) in [(2, 2), (2, 3), (3, 2), (3, 3), (4, 2)] {
        for rules in variants(pits, seeds) {
            for k in [3, 6] {
                let db = CongkakSolver::new(rules, &with_database(1, k)).unwrap();
                assert_eq!(db.endgame().map(|e| e.max_seeds()), Some(k));
                let none = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
                let mut memo = HashMap::new();
                for state in reachable(&rules) {
                    let v = db.value(&state, StopCondition::NEVER).unwrap();
                    assert_eq!(
                        v,
                        plain(&rules, &state, &mut memo),
                        "{rules} k={k} {state:?}"
                    );
                    positions += 1;
                }
                // Whole solutions too, on a sample: the moves' values and
                // the principal variation.
                for state in reachable(&rules).iter().step_by(17) {
                    let a = db.solve(state, 1).unwrap();
                    let b = none.solve(state, 1).unwrap();
                    assert_eq!(result(&a), result(&b), "{rules} k={k} {state:?}");
                }
            }
        }
    }
    assert!(positions > 10_000, "{positions} positions");
}

#[test]
fn congkak_database_values_are_the_searchs_values_of_the_same_holes() {
    for rules in variants(3, 2) {
        let k = 7;
        let db = Endgame::build(&rules, k).unwrap();
        let solver = CongkakSolver::new(rules, &SolverOptions::table(1)).unwrap();
        // Every position the database holds that play reaches.
        let mut checked = 0;
        for state in reachable(&rules) {
            let mover = rules.to_move(&state).unwrap();
            let view = rules.view(&state, mover);
            if view.seeds() as usize > k {
                continue;
            }
            let stores = rules.scores(&state);
            let margin = i32::from(stores[mover]) - i32::from(stores[mover.opponent()]);
            let expected = solver.value(&state, StopCondition::NEVER).unwrap() - margin;
            assert_eq!(
                db.lookup(view.board(), view.seeds() as usize),
                expected,
                "{rules} {state:?}"
            );
            checked += 1;
        }
        assert!(checked > 20, "{rules}: {checked}");
    }
}

#[test]
fn congkak_on_two_threads_gives_the_one_thread_solution() {
    // Boards big enough that the threads split nodes among themselves
    // (marks from `ExactGame::ETC_MARGIN` seeds above the database).
    for (pits, seeds, k) in [(4, 3, 2), (5, 3, 4), (6, 2, 3)] {
        for rules in variants(pits, seeds) {
            let options = with_database(4, k);
            let one = CongkakSolver::new(rules, &options).unwrap();
            let two = CongkakSolver::new(rules, &options).unwrap();
            let mut state = rules.start();
            for _ in 0..4 {
                if rules.is_over(&state) {
                    break;
                }
                let a = one.solve(&state, 1).unwrap();
                let b = two.solve(&state, 2).unwrap();
                assert_eq!(result(&a), result(&b), "{rules} {state:?}");
                let (v1, top1) = one.best_moves(&state, 1, StopCondition::NEVER).unwrap();
                let (v2, top2) = two.best_moves(&state, 2, StopCondition::NEVER).unwrap();
                assert_eq!((v1, &top1), (v2, &top2), "{rules} {state:?}");
                rules.play_unchecked(&mut state, top1[0]);
            }
        }
    }
}

#[test]
fn a_saved_congkak_database_loads_with_the_same_values_and_is_never_kalahs() {
    let dir = tempfile::tempdir().unwrap();
    let rules = CongkakRules::new(3, 2).unwrap();
    let (built, not_saved) = Endgame::load_or_build(&rules, 8, dir.path()).unwrap();
    assert!(not_saved.is_none(), "{not_saved:?}");
    let path = Endgame::path_in(dir.path(), &rules, 8);
    assert!(path.exists());
    assert!(path.to_string_lossy().contains("congkak-pits3"), "{path:?}");
    // Another board with as many holes reads the same file.
    let other = CongkakRules::new(3, 5).unwrap();
    assert_eq!(Endgame::path_in(dir.path(), &other, 8), path);
    let (loaded, _) = Endgame::load_or_build(&other, 8, dir.path()).unwrap();
    assert_eq!(loaded.len(), built.len());
    // The same values: saved again, the files are the same bytes.
    let again = dir.path().join("again.endgame");
    loaded.save(&again).unwrap();
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&path).unwrap()
    );
    // Values are read from the file, as a fresh build finds them.
    let solver = CongkakSolver::new(
        rules,
        &SolverOptions {
            endgame_dir: Some(dir.path().to_path_buf()),
            ..with_database(1, 8)
        },
    )
    .unwrap();
    let fresh = CongkakSolver::new(rules, &with_database(1, 8)).unwrap();
    for state in reachable(&rules) {
        assert_eq!(
            solver.value(&state, StopCondition::NEVER).unwrap(),
            fresh.value(&state, StopCondition::NEVER).unwrap()
        );
    }
    // A Kalah database of as many pits is another file, and a Congkak
    // file is refused as a Kalah database, by name.
    let kalah = KalahRules::new(3, 2).unwrap();
    assert_ne!(Endgame::path_in(dir.path(), &kalah, 8), path);
    let err = Endgame::load(&kalah, 8, &path).unwrap_err();
    assert!(matches!(err, EndgameError::Invalid { .. }), "{err:?}");
    assert!(err
        .to_string()
        .contains("not the endgame database expected"));
    // Nor do the rules that change play share a file.
    let mut capture = rules;
    capture.empty_capture = true;
    assert_ne!(Endgame::path_in(dir.path(), &capture, 8), path);
    let mut immediate = rules;
    immediate.game_end = GameEnd::Immediate;
    assert_ne!(Endgame::path_in(dir.path(), &immediate, 8), path);
}

#[test]
fn the_default_congkak_database_is_small_and_its_solutions_unchanged() {
    let rules = CongkakRules::new(4, 3).unwrap();
    let options = SolverOptions {
        table_mib: 4,
        ..SolverOptions::for_rules(&rules)
    };
    assert_eq!(
        options.endgame_seeds,
        rules.total_seeds() / CongkakRules::DATABASE_SHARE
    );
    let with = CongkakSolver::new(rules, &options).unwrap();
    let without = CongkakSolver::new(rules, &SolverOptions::table(4)).unwrap();
    let a = with.solve(&rules.start(), 1).unwrap();
    let b = without.solve(&rules.start(), 1).unwrap();
    assert_eq!(result(&a), result(&b));
    assert!(
        a.stats.nodes < b.stats.nodes,
        "{} {}",
        a.stats.nodes,
        b.stats.nodes
    );
    assert_eq!(a.stats.endgame_seeds, options.endgame_seeds);
}

#[test]
fn one_interface_solves_every_game() {
    let kalah = KalahRules::new(3, 2).unwrap();
    let congkak = CongkakRules::new(3, 2).unwrap();
    let oware: OwareRules = match "oware:pits=2,seeds=2".parse().unwrap() {
        mancala_core::GameSpec::Oware(r) => r,
        _ => unreachable!(),
    };
    let options = SolverOptions::small();
    let k = exact_solver(&kalah, &options).unwrap();
    let c = exact_solver(&congkak, &options).unwrap();
    let o = exact_solver(&oware, &options).unwrap();
    assert!(k.solves(&kalah) && c.solves(&congkak) && o.solves(&oware));
    fn agree<G: Game>(solver: &dyn mancala_solver::ExactSolver<G>, rules: &G) {
        let start = rules.start();
        let s = solver.solve_until(&start, 1, StopCondition::NEVER).unwrap();
        let value = solver.value(&start, StopCondition::NEVER).unwrap();
        assert_eq!(s.value, value, "{rules}");
        let moves = solver.move_values(&start, 2, StopCondition::NEVER).unwrap();
        assert_eq!(moves, s.moves, "{rules}");
        let (v, best) = solver.best_moves(&start, 1, StopCondition::NEVER).unwrap();
        assert_eq!(v, value, "{rules}");
        let expected: Vec<Move> = moves
            .iter()
            .filter(|m| m.value == value)
            .map(|m| m.mv)
            .collect();
        assert_eq!(best, expected, "{rules}");
    }
    agree(k.as_ref(), &kalah);
    agree(c.as_ref(), &congkak);
    agree(o.as_ref(), &oware);
}

#[test]
fn the_solvers_errors_are_typed() {
    // Rules the search cannot solve, and boards too large.
    let many = CongkakRules::new(3, 2).unwrap().multi_round(2).unwrap();
    let err = exact_solver(&many, &SolverOptions::small()).unwrap_err();
    assert!(matches!(err, SolveError::MultiRound { .. }), "{err:?}");
    let oware = OwareRules::default();
    let err = exact_solver(&oware, &SolverOptions::small()).unwrap_err();
    assert!(matches!(err, SolveError::TooLarge { .. }), "{err:?}");
    // Memory that cannot be had.
    let err = Table::new(usize::MAX >> 4).unwrap_err();
    assert!(matches!(err, TableError::Allocation { .. }), "{err:?}");
    let err = CongkakSolver::new(
        CongkakRules::new(3, 2).unwrap(),
        &SolverOptions::table(usize::MAX >> 4),
    )
    .unwrap_err();
    assert!(err.is_out_of_memory(), "{err:?}");
    assert!(matches!(err, SolveError::Table(_)), "{err:?}");
    let big = CongkakRules::new(15, 8).unwrap();
    let err = Endgame::build(&big, 120).unwrap_err();
    assert!(
        matches!(err, EndgameError::TooLarge { max_seeds: 120 }),
        "{err:?}"
    );
    // Files that cannot be read or written.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.endgame");
    let rules = CongkakRules::new(2, 2).unwrap();
    let err = Endgame::load(&rules, 4, &missing).unwrap_err();
    assert!(matches!(err, EndgameError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("missing.endgame"), "{err}");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    // A database folder that cannot be made: the database is built and
    // used all the same, and the solver says why it was not saved.
    let solver = CongkakSolver::new(
        rules,
        &SolverOptions {
            endgame_dir: Some(file.join("db")),
            ..with_database(1, 4)
        },
    )
    .unwrap();
    assert!(
        matches!(
            solver.endgame_not_saved(),
            Some(EndgameError::CreateDir { .. })
        ),
        "{:?}",
        solver.endgame_not_saved()
    );
    assert_eq!(solver.endgame().map(Endgame::max_seeds), Some(4));
    let fresh = CongkakSolver::new(rules, &with_database(1, 4)).unwrap();
    assert_eq!(
        solver.value(&rules.start(), StopCondition::NEVER).unwrap(),
        fresh.value(&rules.start(), StopCondition::NEVER).unwrap()
    );
    // A finished game and a spent budget, through the interface.
    let solver = exact_solver(&rules, &SolverOptions::small()).unwrap();
    let mut over = rules.start();
    while !rules.is_over(&over) {
        let mv = rules.legal_moves(&over).into_iter().next().unwrap();
        rules.play_unchecked(&mut over, mv);
    }
    assert!(matches!(
        solver.value(&over, StopCondition::NEVER),
        Err(SolveError::GameOver)
    ));
}
