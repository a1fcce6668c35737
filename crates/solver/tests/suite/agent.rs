//! The `perfect` agent: plays a move of the best value, falls back when its
//! time runs out, and refuses games it cannot solve.

use std::time::{Duration, Instant};

use mancala_agents::{Agent, StopCondition};
use mancala_core::{Game, KalahRules, OwareRules};
use mancala_solver::{PerfectSpec, Solver, SolverOptions};

#[test]
fn specs_parse_check_and_print_back() {
    for text in [
        "perfect",
        "perfect:tt=64",
        "perfect:time=2s,fallback=minimax:depth=8",
        "perfect:time=500ms,fallback=mcts:sims=100,c=1.4",
    ] {
        let spec = PerfectSpec::parse(text).unwrap();
        assert_eq!(spec.to_string(), text);
        assert_eq!(PerfectSpec::parse(&spec.to_string()).unwrap(), spec);
    }
    let e = PerfectSpec::parse("perfect:time=1s")
        .unwrap_err()
        .to_string();
    assert!(e.contains("fallback"), "{e}");
    assert!(PerfectSpec::parse("perfect:depth=3").is_err());
    assert!(PerfectSpec::parse("perfect:fallback=greedy:x=1,time=1s").is_err());
    let spec = PerfectSpec::parse("perfect").unwrap();
    assert!(spec.check(&KalahRules::default()).is_ok());
    let refused = spec.check(&OwareRules::default()).unwrap_err();
    assert!(
        matches!(
            refused,
            mancala_solver::PerfectError::Unsupported { game: "oware" }
        ),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("Kalah only"));
}

#[test]
fn every_move_it_plays_keeps_the_value() {
    let rules = KalahRules::new(3, 3).unwrap();
    let solver = Solver::new(rules, &SolverOptions::small()).unwrap();
    let mut agent = PerfectSpec::parse("perfect:tt=16")
        .unwrap()
        .build::<KalahRules>();
    for seed in 0..5 {
        agent.new_game(seed);
        let mut state = rules.start();
        while let Some(mover) = rules.to_move(&state) {
            let best = solver.solve(&state, 1).unwrap();
            let mv = agent.choose(&rules, &state).unwrap();
            let played = best.moves.iter().find(|m| m.mv == mv).unwrap();
            assert_eq!(played.value, best.value, "seed {seed} {state:?}");
            assert_eq!(best.mover, mover);
            rules.play_unchecked(&mut state, mv);
        }
    }
}

#[test]
fn out_of_time_it_lets_the_fallback_move() {
    // Kalah(6,6) is far beyond a millisecond.
    let rules = KalahRules::new(6, 6).unwrap();
    let mut agent = PerfectSpec::parse("perfect:time=1ms,tt=16,fallback=greedy")
        .unwrap()
        .build::<KalahRules>();
    agent.new_game(1);
    let start = rules.start();
    let t0 = Instant::now();
    let mv = agent.choose(&rules, &start).unwrap();
    assert!(rules.legal_moves(&start).contains(mv));
    // Without a fallback, an outer deadline stops it with an error.
    let mut alone = PerfectSpec::parse("perfect:tt=16")
        .unwrap()
        .build::<KalahRules>();
    let until = StopCondition {
        deadline: Some(Instant::now() + Duration::from_millis(20)),
        cancel: None,
        clock: None,
    };
    assert!(alone.choose_until(&rules, &start, until).is_err());
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
}
