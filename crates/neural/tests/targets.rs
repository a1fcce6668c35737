//! Perfect-play targets (`exact_nodes`): the solver's values and best
//! moves, in the self-play samples, and what training on them learns.

use std::sync::atomic::AtomicBool;

use mancala_agents::StopCondition;
use mancala_core::{Game, KalahRules, Move};
use mancala_neural::buffer::Sample;
use mancala_neural::targets::ExactTargets;
use mancala_neural::{GenerationLog, PolicyValueNet, TrainConfig, Trainer, ValueTarget};
use mancala_solver::positions::{ExactPosition, ExactPositions};
use mancala_solver::{Solver, SolverOptions};
use rand::{Rng, SeedableRng};
use tch::Device;

fn config(game: &str, dir: &std::path::Path) -> TrainConfig {
    TrainConfig {
        name: "targets".into(),
        game: game.into(),
        generations: 1,
        games_per_generation: 8,
        sims: 8,
        workers: 2,
        buffer_size: 5000,
        batch_size: 32,
        train_steps: 5,
        hidden: 16,
        blocks: 1,
        gate_games: 2,
        eval_sims: 4,
        eval_games: 0,
        baselines: Vec::new(),
        output: Some(dir.to_path_buf()),
        ..TrainConfig::default()
    }
}

/// The positions of `games` seeded random games, each kept with
/// probability 1/`every`.
fn random_positions(
    game: &KalahRules,
    seed: u64,
    games: usize,
    every: u32,
) -> Vec<(u32, Vec<Move>)> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut lines = Vec::new();
    for _ in 0..games {
        let mut state = game.start();
        let mut line = Vec::new();
        while !game.is_over(&state) {
            if rng.random_range(0..every) == 0 {
                lines.push((line.len() as u32, line.clone()));
            }
            let legal = game.legal_moves(&state);
            let mv = legal.nth(rng.random_range(0..legal.len()));
            game.play_unchecked(&mut state, mv);
            line.push(mv);
        }
    }
    lines
}

fn reach(game: &KalahRules, line: &[Move]) -> <KalahRules as Game>::State {
    let mut state = game.start();
    for &mv in line {
        game.play_unchecked(&mut state, mv);
    }
    state
}

#[test]
fn targets_are_the_solvers_values_and_best_moves() {
    let dir = tempfile::tempdir().unwrap();
    let game = KalahRules::new(4, 3).unwrap();
    let targets = ExactTargets::new(
        &game,
        &TrainConfig {
            exact_nodes: 2_000,
            ..config("kalah:pits=4,seeds=3", dir.path())
        },
    )
    .unwrap()
    .expect("exact_nodes > 0 makes targets");
    // The full solver, as `mancala solve` runs it.
    let solver = Solver::new(game, &SolverOptions::small()).unwrap();
    let (mut valued, mut with_moves, mut total) = (0, 0, 0);
    for (_, line) in random_positions(&game, 3, 30, 3) {
        let state = reach(&game, &line);
        total += 1;
        let Some(target) = targets.target(&game, &state).unwrap() else {
            continue;
        };
        valued += 1;
        let exact = solver.value(&state, StopCondition::NEVER).unwrap();
        assert_eq!(target.margin, exact, "after {line:?}");
        if let Some(best) = target.best {
            with_moves += 1;
            let values = solver.move_values(&state, 1, StopCondition::NEVER).unwrap();
            let top = values.iter().map(|m| m.value).max().unwrap();
            let want: Vec<Move> = values
                .iter()
                .filter(|m| m.value == top)
                .map(|m| m.mv)
                .collect();
            assert_eq!(best, want, "after {line:?}");
        }
    }
    // The endgame database holds most positions of this small board.
    assert!(valued * 2 > total, "{valued} of {total} valued");
    assert!(with_moves > 0);
    // Beyond the database, the node budget decides: one node proves
    // nothing at the start of Kalah(4,4), a million do.
    let four = KalahRules::new(4, 4).unwrap();
    let start = four.start();
    let with = |nodes: u64| {
        let config = TrainConfig {
            exact_nodes: nodes,
            ..config("kalah:pits=4,seeds=4", dir.path())
        };
        ExactTargets::new(&four, &config)
            .unwrap()
            .unwrap()
            .target(&four, &start)
            .unwrap()
    };
    assert_eq!(with(1), None);
    let solved = Solver::new(four, &SolverOptions::small())
        .unwrap()
        .value(&start, StopCondition::NEVER)
        .unwrap();
    assert_eq!(with(1_000_000).map(|t| t.margin), Some(solved));
    // No budget, no targets.
    assert!(
        ExactTargets::new(&game, &config("kalah:pits=4,seeds=3", dir.path()))
            .unwrap()
            .is_none()
    );
}

#[test]
fn self_play_samples_carry_the_targets() {
    let dir = tempfile::tempdir().unwrap();
    let game = KalahRules::new(3, 2).unwrap();
    let config = TrainConfig {
        exact_nodes: 1_000_000,
        exact_policy: 0.5,
        value_target: ValueTarget::Margin,
        ..config("kalah:pits=3,seeds=2", dir.path())
    };
    let targets = ExactTargets::new(&game, &config).unwrap().unwrap();
    let info = mancala_neural::ModelInfo {
        game: config.game.clone(),
        shape: mancala_neural::NetShape {
            inputs: game.observation_len(),
            actions: game.num_actions(),
            hidden: 8,
            blocks: 1,
        },
    };
    let net = PolicyValueNet::new(info, Device::Cpu, 1);
    let group = mancala_neural::selfplay::SelfPlay {
        game: &game,
        config: &config,
        targets: Some(&targets),
    }
    .play_group(&net, 0..6, |i| i as u64, || false, || {})
    .unwrap()
    .unwrap();
    let samples: Vec<_> = group.games.iter().flat_map(|(_, s)| s).collect();
    // A board of 12 seeds settles everywhere: every sample is exact.
    assert_eq!(group.exact, samples.len() as u64);
    let half = game.total_seeds() as f32 / 2.0;
    for s in samples {
        let sum: f32 = s.policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "policy sums to {sum}");
        // Half the policy is on the best moves, so some move has at least
        // half over its share of them; and values are whole margins.
        assert!(s.policy.iter().any(|&p| p >= 0.5 / game.pits() as f32));
        let margin = s.value * half;
        assert!((margin - margin.round()).abs() < 1e-4, "{}", s.value);
    }
}

/// A tiny board trained on perfect-play targets learns its exact values;
/// the same run on game results does not come close. The test fails if
/// the targets are ignored.
#[test]
fn training_on_exact_targets_learns_the_exact_values() {
    let game = KalahRules::new(3, 2).unwrap();
    let spec = "kalah:pits=3,seeds=2";
    let solver = Solver::new(game, &SolverOptions::small()).unwrap();
    let positions: Vec<ExactPosition> = random_positions(&game, 11, 40, 2)
        .into_iter()
        .map(|(ply, line)| {
            let state = reach(&game, &line);
            ExactPosition {
                position: game.setup(&state).to_string(),
                ply,
                moves: solver.move_values(&state, 1, StopCondition::NEVER).unwrap(),
            }
        })
        .collect();
    let root = tempfile::tempdir().unwrap();
    let set_path = root.path().join("exact.json");
    ExactPositions {
        game: spec.into(),
        made_by: "test".into(),
        positions,
    }
    .save(&set_path)
    .unwrap();
    let error_after = |exact_nodes: u64| {
        let dir = root.path().join(format!("run-{exact_nodes}"));
        let config = TrainConfig {
            exact_nodes,
            exact_positions: Some(set_path.clone()),
            value_target: ValueTarget::Margin,
            generations: 3,
            games_per_generation: 40,
            train_steps: 500,
            hidden: 64,
            learning_rate: 3e-3,
            ..config(spec, &dir)
        };
        let never = AtomicBool::new(false);
        let mut trainer = Trainer::new(&game, spec, config, &dir, Device::Cpu, false).unwrap();
        trainer.run(&never, &|_| {}).unwrap();
        let rows: Vec<GenerationLog> = csv::Reader::from_path(dir.join("log.csv"))
            .unwrap()
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        let last = rows.last().unwrap();
        if exact_nodes > 0 {
            assert!(last.exact_targets.unwrap() > 0.99, "{last:?}");
        } else {
            assert_eq!(last.exact_targets, None);
        }
        last.exact_value_error.unwrap()
    };
    let exact = error_after(1_000_000);
    let results = error_after(0);
    eprintln!("value error in seeds: {exact:.3} with exact targets, {results:.3} with results");
    // Measured: 1.36 seeds against 2.27 (seeded, so the same on every run
    // with the same libtorch); the bounds leave room for another libtorch.
    assert!(exact < 1.8, "exact targets: off by {exact:.2} seeds");
    assert!(
        exact < 0.75 * results,
        "exact targets {exact:.2} seeds, results {results:.2}"
    );
}

/// A warm start (`warm_start`) trains the new network on exact labels
/// before any self-play: afterwards its raw policy picks a best move, and
/// its value is the exact one, on nearly every labelled position, which
/// the random first weights do not. An empty set is refused.
#[test]
fn a_warm_start_learns_the_labels_before_self_play() {
    let game = KalahRules::new(3, 2).unwrap();
    let spec = "kalah:pits=3,seeds=2";
    let dir = tempfile::tempdir().unwrap();
    let config = TrainConfig {
        exact_nodes: 1_000_000,
        value_target: ValueTarget::Margin,
        warm_start_steps: 1500,
        batch_size: 64,
        hidden: 64,
        learning_rate: 3e-3,
        ..config(spec, dir.path())
    };
    let targets = ExactTargets::new(&game, &config).unwrap().unwrap();
    let actions = |moves: Vec<Move>| -> Vec<usize> {
        moves
            .into_iter()
            .map(|m| m.action_index(game.pits()))
            .collect()
    };
    // Each labelled position: its sample, best actions and legal actions.
    let mut labelled = Vec::new();
    for (_, line) in random_positions(&game, 5, 80, 1) {
        let state = reach(&game, &line);
        let target = targets.target(&game, &state).unwrap().unwrap();
        let sample = target.sample(&game, &state, config.value_target).unwrap();
        let best = actions(target.best.unwrap());
        let legal = actions(game.legal_moves(&state).into_iter().collect());
        labelled.push((sample, best, legal));
    }
    let samples: Vec<Sample> = labelled.iter().map(|(s, _, _)| s.clone()).collect();
    assert!(samples.len() > 300, "{} positions", samples.len());
    // The share of positions whose raw policy (the legal move of the
    // largest logit) is a best move, and the mean error of the value
    // (-1..1: a seed is a sixth here).
    let judge = |net: &PolicyValueNet| {
        let (mut best, mut error) = (0.0, 0.0);
        for (sample, best_actions, legal) in &labelled {
            let obs = tch::Tensor::from_slice(&sample.obs).view([1, -1]);
            let (logits, value) = net.forward(&obs);
            let logits: Vec<f32> = Vec::try_from(logits.view([-1])).unwrap();
            let top = legal
                .iter()
                .copied()
                .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
                .unwrap();
            if best_actions.contains(&top) {
                best += 1.0;
            }
            error += (value.double_value(&[0]) - f64::from(sample.value)).abs();
        }
        let n = labelled.len() as f64;
        (best / n, error / n)
    };
    let chance = labelled
        .iter()
        .map(|(_, b, l)| b.len() as f64 / l.len() as f64)
        .sum::<f64>()
        / labelled.len() as f64;
    let mut trainer =
        Trainer::new(&game, spec, config.clone(), dir.path(), Device::Cpu, false).unwrap();
    let before = judge(trainer.network());
    let log = trainer.warm_start(samples.clone()).unwrap();
    let after = judge(trainer.network());
    eprintln!("best move, value error: {before:?} -> {after:?} (chance {chance:.3}); {log:?}");
    // Measured: a best move 55% -> 99.5% (chance 63%), value error 0.63
    // -> 0.11 (seeded; the bounds leave room for another libtorch).
    assert_eq!(log.positions, samples.len());
    assert!(
        after.0 > 0.95 && after.0 > chance + 0.15,
        "best move {after:?}, chance {chance:.3}"
    );
    assert!(
        after.1 < 0.15 && after.1 < before.1 / 3.0,
        "value error {before:?} -> {after:?}"
    );
    assert!(log.value_loss.1 < log.value_loss.0 / 4.0, "{log:?}");
    let e = trainer.warm_start(Vec::new()).unwrap_err().to_string();
    assert!(e.contains("no position"), "{e}");
}
