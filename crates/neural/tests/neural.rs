//! The neural crate on the CPU: model files, network shapes, the agent, and
//! a tiny training run that checkpoints and resumes.

use std::sync::atomic::AtomicBool;

use mancala_agents::Agent;
use mancala_core::{Game, GameSpec, KalahRules, OwareRules};
use mancala_neural::{
    GenerationLog, ModelInfo, NetShape, NeuralError, NeuralSpec, PolicyValueNet, RootSelection,
    TrainConfig, TrainEvent, Trainer,
};
use rand::SeedableRng;
use tch::{Device, Tensor};

fn info_for<G: Game>(game: &G, spec: &str, hidden: usize, blocks: usize) -> ModelInfo {
    ModelInfo {
        game: spec.to_string(),
        shape: NetShape {
            inputs: game.observation_len(),
            actions: game.num_actions(),
            hidden,
            blocks,
        },
    }
}

fn observation<G: Game>(game: &G) -> Vec<f32> {
    let mut obs = vec![0.0; game.observation_len()];
    game.observe(&game.start(), &mut obs);
    obs
}

#[test]
fn save_and_load_give_the_same_network() {
    let game = KalahRules::default();
    let net = PolicyValueNet::new(info_for(&game, "kalah", 32, 2), Device::Cpu, 7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.ot");
    net.save(&path).unwrap();
    let loaded = PolicyValueNet::load(&path, Device::Cpu).unwrap();
    assert_eq!(loaded.info(), net.info());
    let obs = observation(&game);
    let (a, va) = net.infer(&obs, 1).unwrap();
    let (b, vb) = loaded.infer(&obs, 1).unwrap();
    assert_eq!(a, b);
    assert_eq!(va, vb);
    // And through bytes, as training hands networks to other threads.
    let copy = PolicyValueNet::from_bytes(&net.to_bytes().unwrap(), Device::Cpu).unwrap();
    assert_eq!(copy.infer(&obs, 1).unwrap().0, a);
    // A different seed gives a different network: the comparison above can fail.
    let other = PolicyValueNet::new(info_for(&game, "kalah", 32, 2), Device::Cpu, 8);
    assert_ne!(other.infer(&obs, 1).unwrap().0, a);
}

#[test]
fn output_shapes_follow_the_rules() {
    for spec in [
        "kalah",
        "kalah:pits=4,seeds=3,pie=true",
        "kalah:pits=8,seeds=5",
        "oware",
        "oware:pits=5,seeds=3",
        "congkak",
        "congkak:pits=5,seeds=5,rounds=many",
    ] {
        let spec: GameSpec = spec.parse().unwrap();
        mancala_core::with_game!(&spec, game => {
            let net = PolicyValueNet::new(info_for(game, &spec.to_string(), 16, 1), Device::Cpu, 1);
            let batch = 5;
            let x = Tensor::zeros([batch, game.observation_len() as i64], (tch::Kind::Float, Device::Cpu));
            let (logits, value) = net.forward(&x);
            assert_eq!(logits.size(), vec![batch, (game.pits() + 1) as i64], "{spec}");
            assert_eq!(value.size(), vec![batch], "{spec}");
            let v: Vec<f32> = Vec::try_from(value).unwrap();
            assert!(v.iter().all(|x| (-1.0..=1.0).contains(x)));
        });
    }
}

#[test]
fn damaged_or_foreign_models_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.ot");
    std::fs::write(&junk, b"not a model at all").unwrap();
    let e = PolicyValueNet::load(&junk, Device::Cpu).unwrap_err();
    assert!(matches!(e, NeuralError::BadModel { .. }), "{e}");
    assert!(e.to_string().contains("junk.ot"), "{e}");

    // Cut a real model in half.
    let game = KalahRules::default();
    let net = PolicyValueNet::new(info_for(&game, "kalah", 16, 1), Device::Cpu, 1);
    let bytes = net.to_bytes().unwrap();
    let cut = dir.path().join("cut.ot");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        PolicyValueNet::load(&cut, Device::Cpu),
        Err(NeuralError::BadModel { .. })
    ));

    // A Kalah(6,4) model used on Oware(5,3) is refused before play.
    let good = dir.path().join("kalah.ot");
    net.save(&good).unwrap();
    let spec = mancala_core::spec::Spec::parse(&format!("neural:model={},sims=0", good.display()))
        .unwrap();
    let neural = NeuralSpec::from_spec(&spec).unwrap();
    neural.check(&KalahRules::default()).unwrap();
    let e = neural.check(&OwareRules::new(5, 3).unwrap()).unwrap_err();
    assert!(e.to_string().contains("trained for kalah"), "{e}");
    let missing = mancala_core::spec::Spec::parse("neural:model=/nonexistent/model.ot").unwrap();
    assert!(matches!(
        NeuralSpec::from_spec(&missing),
        Err(NeuralError::Io { .. })
    ));
}

/// Plays whole games of `game` with an untrained network of its shape,
/// under every kind of budget: every move must be legal.
fn plays_legally<G: Game>(game: &G, spec: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.ot");
    PolicyValueNet::new(info_for(game, spec, 16, 1), Device::Cpu, 3)
        .save(&path)
        .unwrap();
    for budget in [
        "sims=0",
        "sims=16",
        "time=2ms",
        "sims=30,batch=1",
        "sims=30,batch=4",
        "sims=12,gumbel=4",
        "sims=12,batch=1,gumbel=16",
    ] {
        let text = format!("neural:model={},{budget}", path.display());
        let neural =
            NeuralSpec::from_spec(&mancala_core::spec::Spec::parse(&text).unwrap()).unwrap();
        // The spec names itself as it was written.
        assert_eq!(neural.to_string(), text);
        let mut agent = neural.build::<G>();
        for seed in 1..=2 {
            agent.new_game(seed);
            let mut state = game.start();
            while !game.is_over(&state) {
                let mv = agent.choose(game, &state).unwrap();
                game.try_play(&mut state, mv).unwrap();
            }
        }
    }
}

#[test]
fn neural_agents_play_legal_moves_on_every_game() {
    for text in [
        "kalah:pie=true",
        "kalah:pits=4,seeds=3,empty_capture=true",
        "oware:pits=5,seeds=3",
        "congkak:pits=4,seeds=3",
        "congkak:pits=4,seeds=2,rounds=many,max_rounds=3",
    ] {
        match text.parse::<GameSpec>().unwrap() {
            GameSpec::Kalah(g) => plays_legally(&g, text),
            GameSpec::Oware(g) => plays_legally(&g, text),
            GameSpec::Congkak(g) => plays_legally(&g, text),
        }
    }
}

#[test]
fn neural_specs_take_one_budget() {
    let game = KalahRules::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.ot");
    PolicyValueNet::new(info_for(&game, "kalah", 16, 1), Device::Cpu, 3)
        .save(&path)
        .unwrap();
    let spec = |rest: &str| {
        let text = format!("neural:model={},{rest}", path.display());
        NeuralSpec::from_spec(&mancala_core::spec::Spec::parse(&text).unwrap())
    };
    assert_eq!(
        spec("time=100ms").unwrap().options.budget,
        mancala_agents::Budget::Time(std::time::Duration::from_millis(100))
    );
    assert_eq!(
        spec("sims=5").unwrap().options.budget,
        mancala_agents::Budget::Sims(5)
    );
    let e = spec("sims=5,time=1s").unwrap_err().to_string();
    assert!(e.contains("only one budget"), "{e}");
    let e = spec("time=soon").unwrap_err().to_string();
    assert!(e.contains("time"), "{e}");
    // Leaves per network call: 8 unless told, named only when not 8.
    assert_eq!(spec("sims=5").unwrap().options.batch, 8);
    let one = spec("sims=5,batch=1").unwrap();
    assert_eq!(one.options.batch, 1);
    assert!(one.to_string().ends_with(",sims=5,batch=1"), "{one}");
    let e = spec("batch=0").unwrap_err().to_string();
    assert!(e.contains("batch"), "{e}");
    // A Gumbel root plans its halving from a simulation count.
    assert_eq!(spec("sims=8,gumbel=6").unwrap().options.gumbel, Some(6));
    for bad in ["time=100ms,gumbel=6", "sims=0,gumbel=6", "sims=8,gumbel=0"] {
        let e = spec(bad).unwrap_err().to_string();
        assert!(e.contains("gumbel"), "{bad}: {e}");
    }
}

fn tiny_config(dir: &std::path::Path) -> TrainConfig {
    TrainConfig {
        name: "tiny".into(),
        game: "kalah:pits=4,seeds=2".into(),
        generations: 1,
        games_per_generation: 4,
        sims: 8,
        workers: 2,
        buffer_size: 500,
        batch_size: 16,
        train_steps: 5,
        hidden: 16,
        blocks: 1,
        gate_games: 2,
        eval_sims: 4,
        eval_games: 2,
        baselines: vec!["random".into()],
        output: Some(dir.to_path_buf()),
        ..TrainConfig::default()
    }
}

#[test]
fn a_tiny_training_run_checkpoints_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let game = KalahRules::new(4, 2).unwrap();
    let spec = "kalah:pits=4,seeds=2";
    let config = tiny_config(dir.path());
    let never = AtomicBool::new(false);
    let mut trainer =
        Trainer::new(&game, spec, config.clone(), dir.path(), Device::Cpu, false).unwrap();
    trainer.run(&never, &|_| {}).unwrap();
    assert_eq!(trainer.generation(), 1);
    for f in [
        "log.csv",
        "best.ot",
        "best.safetensors",
        "checkpoint/net.ot",
        "checkpoint/adam.ot",
        "checkpoint/buffer.ot",
        "checkpoint/state.json",
    ] {
        assert!(dir.path().join(f).exists(), "{f} missing");
    }
    let log = std::fs::read_to_string(dir.path().join("log.csv")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.contains("random="), "{log}");

    // Starting afresh over a checkpoint is refused; resuming continues.
    assert!(matches!(
        Trainer::new(&game, spec, config.clone(), dir.path(), Device::Cpu, false),
        Err(NeuralError::Checkpoint { .. })
    ));
    let more = TrainConfig {
        generations: 2,
        ..config.clone()
    };
    let mut resumed = Trainer::new(&game, spec, more, dir.path(), Device::Cpu, true).unwrap();
    assert_eq!(resumed.generation(), 1);
    resumed.run(&never, &|_| {}).unwrap();
    assert_eq!(resumed.generation(), 2);
    let log = std::fs::read_to_string(dir.path().join("log.csv")).unwrap();
    assert_eq!(log.lines().count(), 3, "{log}");
    // The exported best network is a model the agent can use.
    let model = mancala_core::spec::Spec::parse(&format!(
        "neural:model={},sims=0",
        dir.path().join("best.ot").display()
    ))
    .unwrap();
    NeuralSpec::from_spec(&model).unwrap().check(&game).unwrap();

    // A changed config or a damaged checkpoint is a clear error, not a crash.
    let changed = TrainConfig {
        hidden: 32,
        ..config.clone()
    };
    let e = Trainer::new(&game, spec, changed, dir.path(), Device::Cpu, true)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("config changed"), "{e}");
    std::fs::write(dir.path().join("checkpoint/adam.ot"), b"garbage").unwrap();
    let e = Trainer::new(&game, spec, config, dir.path(), Device::Cpu, true)
        .err()
        .expect("refused");
    assert!(matches!(e, NeuralError::Checkpoint { .. }), "{e}");
}

/// `game = "congkak"` trains like any other game: multi-round play on a
/// small board, through every stage of a generation.
#[test]
fn a_tiny_congkak_training_run() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "name = \"tiny-congkak\"\ngame = \"congkak:pits=4,seeds=2,rounds=many,max_rounds=2\"\n";
    let parsed = TrainConfig::parse(text, "t.toml").unwrap();
    let config = TrainConfig {
        game: parsed.game.clone(),
        ..tiny_config(dir.path())
    };
    let spec: GameSpec = config.game.parse().unwrap();
    let GameSpec::Congkak(game) = spec else {
        panic!("{spec} is not Congkak");
    };
    let never = AtomicBool::new(false);
    let mut trainer = Trainer::new(
        &game,
        &spec.to_string(),
        config,
        dir.path(),
        Device::Cpu,
        false,
    )
    .unwrap();
    trainer.run(&never, &|_| {}).unwrap();
    assert_eq!(trainer.generation(), 1);
    let model = mancala_core::spec::Spec::parse(&format!(
        "neural:model={},sims=4",
        dir.path().join("best.ot").display()
    ))
    .unwrap();
    let neural = NeuralSpec::from_spec(&model).unwrap();
    neural.check(&game).unwrap();
    // The trained network plays a whole multi-round game legally.
    let mut agent = neural.build::<mancala_core::CongkakRules>();
    agent.new_game(5);
    let mut state = game.start();
    while !game.is_over(&state) {
        let mv = agent.choose(&game, &state).unwrap();
        game.try_play(&mut state, mv).unwrap();
    }
}

#[test]
fn training_configs_are_checked() {
    let e = TrainConfig::parse("name = \"x\"\nsims = 0\n", "t.toml").unwrap_err();
    assert!(e.to_string().contains("key `sims`"), "{e}");
    let e = TrainConfig::parse("name = \"x\"\nsimulations = 5\n", "t.toml").unwrap_err();
    assert!(e.to_string().contains("simulations"), "{e}");
    let e = TrainConfig::parse("time_limit = \"soon\"\n", "t.toml").unwrap_err();
    assert!(e.to_string().contains("time_limit"), "{e}");
    // The Gumbel root and playout caps: each key checked by name.
    for (text, key) in [
        ("root_selection = \"halving\"\n", "root_selection"),
        ("gumbel_actions = 0\n", "gumbel_actions"),
        ("gumbel_value_scale = 0.0\n", "gumbel_value_scale"),
        ("sims = 16\nfast_sims = 16\n", "fast_sims"),
        (
            "fast_sims = 8\nfull_search_share = 0.0\n",
            "full_search_share",
        ),
        ("root_selection = \"gumbel\"\nsims = 1\n", "key `sims`"),
    ] {
        let e = TrainConfig::parse(text, "t.toml").unwrap_err().to_string();
        assert!(e.contains(key), "{text}: {e}");
    }
    let gumbel = TrainConfig::parse(
        "root_selection = \"gumbel\"\nsims = 16\nfast_sims = 4\n",
        "t.toml",
    )
    .unwrap();
    assert_eq!(gumbel.root_selection, RootSelection::Gumbel);
    assert!(!gumbel.gumbel_rescale, "not stretched unless asked");
    // Every shipped training config loads, and names a game that exists.
    let configs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut shipped = 0;
    for entry in std::fs::read_dir(&configs).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("train-") && name.ends_with(".toml") {
            let config = TrainConfig::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            config
                .game
                .parse::<GameSpec>()
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Some(set) = &config.exact_positions {
                // Paths in configs are relative to the repository root.
                let set = configs.join("..").join(set);
                mancala_solver::positions::ExactPositions::load(&set)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            shipped += 1;
        }
    }
    assert!(shipped >= 4, "{shipped} training configs");
}

#[test]
fn a_failing_network_is_an_error_never_made_up_values() {
    let game = KalahRules::default();
    let net = PolicyValueNet::new(info_for(&game, "kalah", 16, 1), Device::Cpu, 3);
    // Observations one number too long: the network cannot take them.
    let mut obs = observation(&game);
    obs.push(0.0);
    assert!(matches!(net.infer(&obs, 1), Err(NeuralError::Mismatch(_))));

    // Self-play with a network of another game stops at once with the reason.
    let oware = OwareRules::new(5, 3).unwrap();
    let config = tiny_config(std::path::Path::new("unused"));
    let e = mancala_neural::selfplay::SelfPlay {
        game: &oware,
        config: &config,
        targets: None,
    }
    .play_group(&net, 0..2, |i| i as u64, || false, || {})
    .err()
    .expect("refused");
    assert!(matches!(e, NeuralError::Mismatch(_)), "{e}");
}

/// The leaves of many searches go through the network together: each
/// row of a batch must be what the network gives that position alone.
#[test]
fn batched_evaluations_equal_single_evaluations() {
    let game = KalahRules::default();
    let net = PolicyValueNet::new(info_for(&game, "kalah", 32, 2), Device::Cpu, 5);
    // Positions from a seeded random game, laid end to end.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let mut state = game.start();
    let mut rows = Vec::new();
    while !game.is_over(&state) && rows.len() < 40 {
        let mut obs = vec![0.0; game.observation_len()];
        game.observe(&state, &mut obs);
        rows.push(obs);
        let legal = game.legal_moves(&state);
        let mv = legal.nth(rand::Rng::random_range(&mut rng, 0..legal.len()));
        game.play_unchecked(&mut state, mv);
    }
    let batch: Vec<f32> = rows.concat();
    let (logits, values) = net.infer(&batch, rows.len()).unwrap();
    let actions = game.num_actions();
    for (i, row) in rows.iter().enumerate() {
        let (one_logits, one_value) = net.infer(row, 1).unwrap();
        for (a, b) in one_logits
            .iter()
            .zip(&logits[i * actions..(i + 1) * actions])
        {
            assert!(
                (a - b).abs() < 1e-5,
                "row {i}: logit {a} alone, {b} in the batch"
            );
        }
        assert!((one_value[0] - values[i]).abs() < 1e-5, "row {i}: value");
    }
}

/// `train --bench`'s numbers add up, self-play really batches, and the
/// games do not depend on how many threads play them.
#[test]
fn self_play_batches_and_does_not_depend_on_threads() {
    let dir = tempfile::tempdir().unwrap();
    let game = KalahRules::new(4, 2).unwrap();
    let never = AtomicBool::new(false);
    let stats = |workers: usize, root_selection: RootSelection| {
        let config = TrainConfig {
            workers,
            batch_games: 4,
            games_per_generation: 9,
            root_selection,
            ..tiny_config(dir.path())
        };
        let trainer = Trainer::new(
            &game,
            "kalah:pits=4,seeds=2",
            config,
            dir.path(),
            Device::Cpu,
            false,
        )
        .unwrap();
        let games = std::sync::atomic::AtomicU32::new(0);
        let s = trainer
            .bench_self_play(9, &never, &|e| {
                if let TrainEvent::SelfPlayGame = e {
                    games.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
            .unwrap();
        assert_eq!(games.into_inner(), 9);
        s
    };
    let one = stats(1, RootSelection::Puct);
    assert_eq!(one.games, 9);
    assert!(one.positions >= 9 * 2, "{one:?}");
    // Every search evaluates at least its root, and at most once a simulation.
    assert!(one.evaluations >= one.positions, "{one:?}");
    assert!(one.evaluations <= one.positions * 8, "{one:?}");
    // Nine games in groups of at most four (3, 3, 3): several leaves a call.
    assert!(one.mean_batch() > 1.5, "{one:?}");
    assert!(one.batches * 3 >= one.evaluations, "{one:?}");
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let one = stats(1, root);
        for workers in [2, 3] {
            let many = stats(workers, root);
            assert_eq!(
                (many.positions, many.evaluations, many.batches),
                (one.positions, one.evaluations, one.batches),
                "{workers} workers, {root:?}"
            );
        }
    }
}

/// A Gumbel root's samples carry its improved policy (a distribution over
/// the legal moves, not visit shares), and with playout cap randomization
/// only the full searches become samples.
#[test]
fn gumbel_self_play_samples_improved_policies_of_full_searches() {
    let game = KalahRules::new(4, 2).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let net = PolicyValueNet::new(
        info_for(&game, "kalah:pits=4,seeds=2", 16, 1),
        Device::Cpu,
        3,
    );
    let play = |config: &TrainConfig| {
        mancala_neural::selfplay::SelfPlay {
            game: &game,
            config,
            targets: None,
        }
        .play_group(&net, 0..8, |i| i as u64, || false, || {})
        .unwrap()
        .unwrap()
    };
    let gumbel = TrainConfig {
        root_selection: RootSelection::Gumbel,
        sims: 8,
        ..tiny_config(dir.path())
    };
    let all = play(&gumbel);
    let samples: Vec<_> = all.games.iter().flat_map(|(_, s)| s).collect();
    let (mut choices, mut spread) = (0, 0);
    for s in &samples {
        let total: f32 = s.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-5, "{:?}", s.policy);
        assert!(s.policy.iter().all(|&p| p >= 0.0));
        // Where there was a choice, visit shares of 7 simulations would be
        // multiples of 1/7; an improved policy almost never is.
        if s.policy.iter().filter(|&&p| p > 1e-6).count() >= 2 {
            choices += 1;
            spread += usize::from(
                s.policy
                    .iter()
                    .any(|p| ((p * 7.0) - (p * 7.0).round()).abs() > 1e-3),
            );
        }
    }
    assert!(
        choices * 2 > samples.len(),
        "{choices} of {}",
        samples.len()
    );
    assert!(spread * 10 > choices * 9, "{spread} of {choices}");
    // A quarter of the moves searched fully: far fewer samples, and the
    // fast searches cost fewer evaluations than full ones would.
    let capped = play(&TrainConfig {
        fast_sims: 2,
        full_search_share: 0.25,
        ..gumbel.clone()
    });
    let kept: usize = capped.games.iter().map(|(_, s)| s.len()).sum();
    let plies_per_eval =
        |g: &mancala_neural::selfplay::GroupResult, n: usize| g.evaluations as f64 / n as f64;
    assert!(
        kept > 0 && kept * 2 < samples.len(),
        "{kept} of {}",
        samples.len()
    );
    assert!(
        plies_per_eval(&capped, kept) > plies_per_eval(&all, samples.len()),
        "a sample of a capped run stands for several moves"
    );
}

/// A run stopped in the middle of a generation keeps the last finished
/// one; resumed, it goes on exactly as if it had never stopped.
#[test]
fn a_run_interrupted_mid_generation_resumes_as_if_never_stopped() {
    let game = KalahRules::new(4, 2).unwrap();
    let spec = "kalah:pits=4,seeds=2";
    let never = AtomicBool::new(false);

    let straight = tempfile::tempdir().unwrap();
    // With perfect-play targets, whose solver is built again on resuming.
    let config = TrainConfig {
        generations: 2,
        exact_nodes: 1000,
        // And a Gumbel root with playout caps, whose draws and coin flips
        // must come out the same.
        root_selection: RootSelection::Gumbel,
        fast_sims: 3,
        ..tiny_config(straight.path())
    };
    Trainer::new(
        &game,
        spec,
        config.clone(),
        straight.path(),
        Device::Cpu,
        false,
    )
    .unwrap()
    .run(&never, &|_| {})
    .unwrap();

    let broken = tempfile::tempdir().unwrap();
    let config = TrainConfig {
        output: Some(broken.path().to_path_buf()),
        ..config
    };
    let stop = AtomicBool::new(false);
    let mut trainer = Trainer::new(
        &game,
        spec,
        config.clone(),
        broken.path(),
        Device::Cpu,
        false,
    )
    .unwrap();
    // Ctrl-C after the second generation's first self-play game.
    let in_second = AtomicBool::new(false);
    trainer
        .run(&stop, &|e| match e {
            TrainEvent::Generation { generation: 2, .. } => {
                in_second.store(true, std::sync::atomic::Ordering::Relaxed)
            }
            TrainEvent::SelfPlayGame if in_second.load(std::sync::atomic::Ordering::Relaxed) => {
                stop.store(true, std::sync::atomic::Ordering::Relaxed)
            }
            _ => {}
        })
        .unwrap();
    assert_eq!(trainer.generation(), 1);
    let log = std::fs::read_to_string(broken.path().join("log.csv")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");

    let mut resumed = Trainer::new(&game, spec, config, broken.path(), Device::Cpu, true).unwrap();
    resumed.run(&never, &|_| {}).unwrap();
    assert_eq!(resumed.generation(), 2);
    let rows = |dir: &std::path::Path| -> Vec<GenerationLog> {
        csv::Reader::from_path(dir.join("log.csv"))
            .unwrap()
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (a, b) = (rows(straight.path()), rows(broken.path()));
    assert_eq!(a.len(), 2);
    assert_eq!(b.len(), 2);
    for (x, y) in a.iter().zip(&b) {
        // Everything but the clock.
        let same = |g: &GenerationLog| {
            (
                g.generation,
                g.positions,
                g.buffer,
                g.policy_loss.to_bits(),
                g.value_loss.to_bits(),
                g.gate_score.to_bits(),
                g.promoted,
                g.baselines.clone(),
                g.exact_targets.map(f64::to_bits),
            )
        };
        assert_eq!(same(x), same(y));
    }
}

/// With `exact_positions`, each generation logs how the network just
/// trained compares with perfect play: the same numbers as its raw policy
/// playing those positions as an agent.
#[test]
fn training_logs_agreement_with_perfect_play() {
    use mancala_solver::positions::{Agreement, ExactPosition, ExactPositions};
    use mancala_solver::{Solver, SolverOptions};

    let dir = tempfile::tempdir().unwrap();
    let game = KalahRules::new(4, 2).unwrap();
    let spec = "kalah:pits=4,seeds=2";
    // Positions of seeded random games, solved.
    let solver = Solver::new(game, &SolverOptions::small()).unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
    let mut positions = Vec::new();
    for _ in 0..12 {
        let mut state = game.start();
        let mut ply = 0;
        while !game.is_over(&state) {
            if rand::Rng::random_range(&mut rng, 0..3) == 0 {
                let moves = solver
                    .move_values(&state, 1, mancala_agents::StopCondition::NEVER)
                    .unwrap();
                positions.push(ExactPosition {
                    position: game.setup(&state).to_string(),
                    ply,
                    moves,
                });
            }
            let legal = game.legal_moves(&state);
            game.play_unchecked(
                &mut state,
                legal.nth(rand::Rng::random_range(&mut rng, 0..legal.len())),
            );
            ply += 1;
        }
    }
    assert!(positions.len() >= 5, "{} positions", positions.len());
    let set_path = dir.path().join("exact.json");
    let set = ExactPositions {
        game: spec.into(),
        made_by: "test".into(),
        positions,
    };
    set.save(&set_path).unwrap();

    let config = TrainConfig {
        exact_positions: Some(set_path.clone()),
        value_target: mancala_neural::ValueTarget::Margin,
        ..tiny_config(dir.path())
    };
    let never = AtomicBool::new(false);
    let mut trainer =
        Trainer::new(&game, spec, config.clone(), dir.path(), Device::Cpu, false).unwrap();
    trainer.run(&never, &|_| {}).unwrap();
    let rows: Vec<GenerationLog> = csv::Reader::from_path(dir.path().join("log.csv"))
        .unwrap()
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap();
    let row = &rows[0];

    // The network trained in generation 1 is the checkpoint's net.ot.
    let model = dir.path().join("checkpoint/net.ot");
    let neural = NeuralSpec::from_spec(
        &mancala_core::spec::Spec::parse(&format!("neural:model={},sims=0", model.display()))
            .unwrap(),
    )
    .unwrap();
    let mut agent = neural.build::<KalahRules>();
    let mut expected = Agreement::default();
    for p in &set.positions {
        let state = game.parse_position(&p.position).unwrap();
        let mv = agent.choose(&game, &state).unwrap();
        expected.add(p.loss(mv).unwrap());
    }
    assert_eq!(row.exact_top1, Some(expected.top1()));
    assert_eq!(row.exact_loss, Some(expected.mean_loss()));
    // The value head gives the mover's margin over half the seeds.
    let net = PolicyValueNet::load(&model, Device::Cpu).unwrap();
    let half = game.total_seeds() as f64 / 2.0;
    let mut error = 0.0;
    for p in &set.positions {
        let state = game.parse_position(&p.position).unwrap();
        let mut obs = vec![0.0; game.observation_len()];
        game.observe(&state, &mut obs);
        let (_, value) = net.infer(&obs, 1).unwrap();
        error += (f64::from(value[0].clamp(-1.0, 1.0)) * half - f64::from(p.value())).abs();
    }
    let error = error / set.positions.len() as f64;
    let logged = row
        .exact_value_error
        .expect("margin targets give a value error");
    assert!(
        (logged - error).abs() < 1e-4,
        "logged {logged}, recomputed {error}"
    );

    // A set of another game is refused before any training.
    let other = TrainConfig {
        game: "kalah:pits=5,seeds=2".into(),
        ..config
    };
    let five = KalahRules::new(5, 2).unwrap();
    let e = Trainer::new(
        &five,
        "kalah:pits=5,seeds=2",
        other,
        &dir.path().join("x"),
        Device::Cpu,
        false,
    )
    .err()
    .expect("refused");
    assert!(e.to_string().contains("exact_positions"), "{e}");
}

#[test]
fn self_play_groups_cover_every_game_once_and_evenly() {
    use mancala_neural::selfplay::groups;
    assert!(groups(0, 8).is_empty());
    assert_eq!(groups(5, 8), vec![0..5]);
    assert_eq!(groups(200, 64), vec![0..50, 50..100, 100..150, 150..200]);
    assert_eq!(groups(10, 4), vec![0..4, 4..7, 7..10]);
    for (games, size) in [(1, 1), (7, 3), (100, 1), (99, 50), (3, 0)] {
        let g = groups(games, size);
        assert_eq!(g.first().map(|r| r.start), Some(0));
        assert_eq!(g.last().map(|r| r.end), Some(games));
        assert!(g.windows(2).all(|w| w[0].end == w[1].start));
        assert!(g.iter().all(|r| r.len() <= size.max(1) && !r.is_empty()));
    }
}

#[test]
fn the_plain_rust_network_computes_what_libtorch_computes() {
    for (spec, blocks) in [("kalah", 2), ("oware", 1), ("congkak:pits=5,seeds=4", 0)] {
        let spec: GameSpec = spec.parse().unwrap();
        mancala_core::with_game!(&spec, game => {
            let net = PolicyValueNet::new(info_for(game, &spec.to_string(), 48, blocks), Device::Cpu, 3);
            let plain = net.to_plain().unwrap();
            // Through a file, as `mancala export-net` writes it.
            let plain = mancala_evalnet::PolicyValueNet::from_bytes(&plain.to_bytes()).unwrap();
            let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
            let inputs = game.observation_len();
            let obs: Vec<f32> = (0..64 * inputs).map(|_| rand::Rng::random_range(&mut rng, 0.0..1.0)).collect();
            let (logits, values) = net.infer(&obs, 64).unwrap();
            let actions = game.num_actions();
            let mut out = vec![0.0; actions];
            for row in 0..64 {
                let v = plain.forward(&obs[row * inputs..(row + 1) * inputs], &mut out);
                assert!((v - values[row]).abs() < 1e-5, "{spec}: value {v} against {}", values[row]);
                for (a, b) in out.iter().zip(&logits[row * actions..(row + 1) * actions]) {
                    assert!((a - b).abs() < 1e-5, "{spec}: logit {a} against {b}");
                }
            }
        });
    }
}

#[test]
fn the_reference_network_plays_the_same_moves_without_libtorch() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../results/reference/kalah-best.ot"
    );
    let plain = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../results/reference/kalah-best.safetensors"
    );
    let torch = NeuralSpec::from_spec(
        &mancala_core::spec::Spec::parse(&format!("neural:model={model},sims=64")).unwrap(),
    )
    .unwrap();
    // The committed export is this model's.
    let exported = PolicyValueNet::load(std::path::Path::new(model), Device::Cpu)
        .unwrap()
        .to_plain()
        .unwrap();
    let committed = mancala_evalnet::PolicyValueNet::load(std::path::Path::new(plain)).unwrap();
    assert!(
        exported == committed,
        "regenerate it: mancala export-net {model} --out {plain}"
    );
    let rust = mancala_agents::NetPolicySpec::load(mancala_agents::PolicyOptions {
        model: plain.into(),
        ..torch.options.clone()
    })
    .unwrap();
    let game = KalahRules::default();
    let (mut a, mut b) = (torch.build::<KalahRules>(), rust.build::<KalahRules>());
    a.new_game(1);
    b.new_game(1);
    let mut state = game.start();
    let mut plies = 0;
    while !game.is_over(&state) && plies < 30 {
        let (x, y) = (
            a.choose(&game, &state).unwrap(),
            b.choose(&game, &state).unwrap(),
        );
        assert_eq!(x, y, "ply {plies}");
        game.try_play(&mut state, x).unwrap();
        plies += 1;
    }
}
