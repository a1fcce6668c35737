use mancala_core::{CongkakRules, Game, KalahRules, OwareRules};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;

/// A network of random weights with these hidden widths.
fn random_net(inputs: Inputs, hidden: &[usize], seed: u64) -> ValueNet {
    ValueNet::seeded(inputs, hidden, seed).unwrap()
}

/// Positions of random games of `game`, every ply.
fn positions<G: Game>(game: &G, games: usize, seed: u64) -> Vec<G::State> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut s = game.start();
        while !game.is_over(&s) {
            out.push(s.clone());
            let moves = game.legal_moves(&s);
            game.play_unchecked(&mut s, moves.nth(rng.random_range(0..moves.len())));
        }
    }
    out
}

/// The network's output by the book: the full input vector, then each
/// layer as a plain matrix product.
fn naive<G: Game>(net: &ValueNet, game: &G, state: &G::State) -> (f32, f32) {
    let inputs = net.inputs();
    let mut obs = vec![0.0; inputs.observation];
    let mut x = vec![0.0; inputs.len()];
    let stores = inputs.encode(game, state, &mut obs, &mut x);
    let n = net.layers().len();
    for (k, layer) in net.layers().iter().enumerate() {
        let mut y: Vec<f32> = (0..layer.outputs)
            .map(|o| {
                layer.bias[o]
                    + (0..layer.inputs)
                        .map(|i| layer.weight[o * layer.inputs + i] * x[i])
                        .sum::<f32>()
            })
            .collect();
        if k + 1 < n {
            y.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        x = y;
    }
    (x[0], stores)
}

fn check_forward<G: Game>(game: &G, buckets: usize, hidden: &[usize]) {
    let net = random_net(Inputs::for_game(game, buckets), hidden, 7);
    net.inputs().check(game).unwrap();
    for s in positions(game, 20, 3) {
        let (fast, stores) = net.forward(game, &s);
        let (slow, stores_slow) = naive(&net, game, &s);
        assert_eq!(stores, stores_slow);
        assert!(
            (fast - slow).abs() <= 1e-5 * (1.0 + slow.abs()),
            "{game} {s:?}: {fast} against {slow}"
        );
        let margin = net.margin(game, &s);
        assert!((margin - (stores + fast * game.total_seeds() as f32)).abs() < 1e-4);
    }
}

#[test]
fn the_sparse_forward_pass_equals_the_dense_one_on_every_game() {
    check_forward(&KalahRules::default(), 16, &[64, 32]);
    check_forward(&KalahRules::new(4, 3).unwrap(), 4, &[8]);
    check_forward(&OwareRules::default(), 12, &[32, 16, 8]);
    check_forward(&CongkakRules::default(), 20, &[48]);
}

#[test]
fn the_one_hot_part_marks_each_pits_exact_count_capped_at_the_last_bucket() {
    let game = KalahRules::default();
    let inputs = Inputs::for_game(&game, 6);
    // Mover (player 1) has 7 seeds in its first pit: the last bucket.
    let s = game
        .parse_position("1,2,3,0,4,5/7,0,1,2,3,4/10,6/1")
        .unwrap();
    let mut obs = vec![0.0; inputs.observation];
    let mut x = vec![0.0; inputs.len()];
    let stores = inputs.encode(&game, &s, &mut obs, &mut x);
    assert_eq!(stores, -4.0, "the mover's store minus the other's");
    let hot: Vec<(usize, usize)> = (0..12)
        .map(|pit| {
            let row = &x[pit * 6..pit * 6 + 6];
            assert_eq!(row.iter().sum::<f32>(), 1.0, "pit {pit}: one bucket set");
            (pit, row.iter().position(|&v| v == 1.0).unwrap())
        })
        .collect();
    let counts: Vec<usize> = hot.iter().map(|&(_, b)| b).collect();
    assert_eq!(counts, [5, 0, 1, 2, 3, 4, 1, 2, 3, 0, 4, 5]);
    assert_eq!(&x[72..], &obs[..]);
}

#[test]
fn a_network_written_and_read_back_is_the_same_network() {
    let game = KalahRules::default();
    let net = random_net(Inputs::for_game(&game, 16), &[32, 16], 1)
        .with_metadata("trained_on", "labels/kalah-6-4");
    let back = ValueNet::from_bytes(&net.to_bytes()).unwrap();
    assert_eq!(back, net);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.safetensors");
    net.save(&path).unwrap();
    assert_eq!(ValueNet::load(&path).unwrap(), net);
    assert_eq!(
        back.extra_metadata(),
        [("trained_on".to_string(), "labels/kalah-6-4".to_string())]
    );
    assert_eq!(back.hidden(), [32, 16]);
    assert_eq!(back.cost(), 32 * (12 + 15) + 32 * 16 + 16);
}

/// The file of `net` with its tensors changed by `edit` (name, shape, bytes).
fn edited(
    net: &ValueNet,
    edit: impl Fn(&mut Vec<(String, Dtype, Vec<usize>, Vec<u8>)>),
) -> Vec<u8> {
    let bytes = net.to_bytes();
    let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let mut tensors: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = file
        .tensors()
        .into_iter()
        .map(|(n, v)| (n, v.dtype(), v.shape().to_vec(), v.data().to_vec()))
        .collect();
    edit(&mut tensors);
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, d, s, b)| (n.clone(), TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    safetensors::serialize(views, header.metadata()).unwrap()
}

fn refusal(bytes: &[u8]) -> String {
    ValueNet::from_bytes(bytes).unwrap_err().to_string()
}

#[test]
fn a_corrupt_or_mismatched_file_is_refused_naming_the_tensor() {
    let game = KalahRules::default();
    let net = random_net(Inputs::for_game(&game, 16), &[32, 16], 2);
    let find = |t: &mut Vec<(String, Dtype, Vec<usize>, Vec<u8>)>, name: &str| {
        t.iter().position(|(n, ..)| n == name).unwrap()
    };

    let e = refusal(&edited(&net, |t| {
        let i = find(t, "fc1.bias");
        t.remove(i);
    }));
    assert_eq!(e, "tensor `fc1.bias`: missing");

    let e = refusal(&edited(&net, |t| {
        let i = find(t, "fc1.weight");
        t[i].2 = vec![16, 31];
        t[i].3.truncate(16 * 31 * 4);
    }));
    assert!(e.starts_with("tensor `fc1.weight`: shapes [16, 31]"), "{e}");

    let e = refusal(&edited(&net, |t| {
        let i = find(t, "value.bias");
        t[i].1 = Dtype::I32;
    }));
    assert_eq!(e, "tensor `value.bias`: type I32, expected F32");

    let e = refusal(&edited(&net, |t| {
        let i = find(t, "fc0.bias");
        t[i].3[8..12].copy_from_slice(&f32::NAN.to_le_bytes());
    }));
    assert_eq!(e, "tensor `fc0.bias`: entry 2 is NaN, not a finite number");

    let e = refusal(&edited(&net, |t| {
        t.push(("policy.weight".into(), Dtype::F32, vec![1], vec![0; 4]));
    }));
    assert!(
        e.starts_with("tensor `policy.weight`: not a tensor of this network"),
        "{e}"
    );

    // A value layer of two outputs.
    let e = refusal(&edited(&net, |t| {
        let w = find(t, "value.weight");
        t[w].2 = vec![2, 16];
        t[w].3 = vec![0; 2 * 16 * 4];
        let b = find(t, "value.bias");
        t[b].2 = vec![2];
        t[b].3 = vec![0; 8];
    }));
    assert!(e.starts_with("tensor `value.weight`"), "{e}");

    // Not safetensors at all, or cut short.
    assert!(refusal(b"hello").starts_with("not a safetensors file"));
    let bytes = net.to_bytes();
    assert!(refusal(&bytes[..bytes.len() - 3]).starts_with("not a safetensors file"));
}

#[test]
fn metadata_says_what_the_network_reads_and_a_game_it_cannot_read_is_refused() {
    let game = KalahRules::default();
    let net = random_net(Inputs::for_game(&game, 16), &[8], 3);
    let with_meta = |key: &str, value: Option<&str>| {
        let bytes = net.to_bytes();
        let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
        let mut meta = header.metadata().clone().unwrap();
        match value {
            Some(v) => meta.insert(key.into(), v.into()),
            None => meta.remove(key),
        };
        let file = SafeTensors::deserialize(&bytes).unwrap();
        safetensors::serialize(file.tensors(), &Some(meta)).unwrap()
    };
    assert_eq!(
        refusal(&with_meta("format", None)),
        "metadata `format`: missing: not a value network of this toolkit"
    );
    assert_eq!(
        refusal(&with_meta("format", Some("mancala-evalnet-9"))),
        "metadata `format`: 'mancala-evalnet-9', expected 'mancala-evalnet-1'"
    );
    assert_eq!(
        refusal(&with_meta("buckets", Some("lots"))),
        "metadata `buckets`: 'lots' is not a whole number"
    );
    assert!(refusal(&with_meta("buckets", Some("0"))).starts_with("metadata `buckets`: 0"));
    // Another bucket count changes the first layer's inputs.
    assert!(refusal(&with_meta("buckets", Some("8"))).starts_with("tensor `fc0.weight`"));

    let e = net
        .inputs()
        .check(&KalahRules::new(4, 3).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("the network is for kalah (6 pits a row"),
        "{e}"
    );
    assert!(net.inputs().check(&OwareRules::default()).is_err());
    // Other seeds on the same board read the same inputs.
    net.inputs().check(&KalahRules::new(6, 5).unwrap()).unwrap();
}

#[test]
fn a_file_past_the_size_cap_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.safetensors");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    let e = ValueNet::load(&path).unwrap_err();
    assert!(matches!(e, EvalNetError::TooLarge { .. }), "{e}");
    let e = ValueNet::load(&dir.path().join("none")).unwrap_err();
    assert!(matches!(e, EvalNetError::Io { .. }), "{e}");
}

/// The exact final margin for the mover of every position reachable in
/// `game`, by plain memoised minimax.
fn solve_all<G: Game>(game: &G) -> Vec<(G::State, i32)> {
    fn value<G: Game>(
        game: &G,
        s: &G::State,
        memo: &mut std::collections::HashMap<G::State, i32>,
    ) -> i32 {
        if let Some(&v) = memo.get(s) {
            return v;
        }
        let v = match game.to_move(s) {
            None => game.outcome(s).unwrap().margin(),
            Some(mover) => {
                let sign = |p| {
                    if p == mancala_core::Player::ZERO {
                        1
                    } else {
                        -1
                    }
                };
                game.legal_moves(s)
                    .into_iter()
                    .map(|mv| {
                        let mut next = s.clone();
                        game.play_unchecked(&mut next, mv);
                        // Values are kept for player 0; the mover maximises its own.
                        sign(mover) * value(game, &next, memo)
                    })
                    .max()
                    .unwrap()
                    * sign(mover)
            }
        };
        memo.insert(s.clone(), v);
        v
    }
    let mut memo = std::collections::HashMap::new();
    value(game, &game.start(), &mut memo);
    let mut all: Vec<(G::State, i32)> = memo
        .into_iter()
        .filter_map(|(s, v)| {
            let mover = game.to_move(&s)?;
            Some((
                s,
                if mover == mancala_core::Player::ZERO {
                    v
                } else {
                    -v
                },
            ))
        })
        .collect();
    all.sort_by_key(|(s, _)| game.key(s));
    all
}

#[test]
fn training_on_a_solved_tiny_board_learns_its_values_and_not_without_them() {
    let game = KalahRules::new(3, 2).unwrap();
    let inputs = Inputs::for_game(&game, 7);
    let solved = solve_all(&game);
    assert!(solved.len() > 300, "{} positions", solved.len());
    let examples: Vec<Example> = solved
        .iter()
        .map(|(s, v)| Example::new(&inputs, &game, s, *v as f32))
        .collect();
    let total = game.total_seeds() as f32;
    let mean = examples.iter().map(|e| e.target).sum::<f32>() / examples.len() as f32;
    let spread = (examples
        .iter()
        .map(|e| f64::from((e.target - mean) * total).powi(2))
        .sum::<f64>()
        / examples.len() as f64)
        .sqrt();
    let options = TrainOptions {
        hidden: vec![32, 16],
        epochs: 150,
        batch: 32,
        learning_rate: 3e-3,
        ..TrainOptions::default()
    };
    let mut last = None;
    let net = train(
        inputs.clone(),
        &examples,
        &examples,
        total,
        &options,
        &mut |r| last = Some(r),
    )
    .unwrap();
    let fitted = last.unwrap();
    assert!(
        fitted.validation_rmse < 0.2 * spread,
        "error {} seeds against a spread of {spread}",
        fitted.validation_rmse
    );
    // The forward pass of the trained network is the trainer's own.
    for (ex, (s, v)) in examples.iter().zip(&solved).take(50) {
        let m = net.margin(&game, s);
        let err = (m - *v as f32).abs();
        assert!(
            err < 3.0 * fitted.validation_rmse as f32 + 0.5,
            "{s:?}: {m} for {v}"
        );
        let _ = ex;
    }
    // The same examples with their targets shuffled among them: nothing to
    // learn, and the fit to the true values is no better than the mean's.
    let mut shuffled = examples.clone();
    let mut targets: Vec<f32> = shuffled.iter().map(|e| e.target).collect();
    use rand::seq::SliceRandom;
    targets.shuffle(&mut SmallRng::seed_from_u64(1));
    for (e, t) in shuffled.iter_mut().zip(targets) {
        e.target = t;
    }
    let mut blind = None;
    train(inputs, &shuffled, &examples, total, &options, &mut |r| {
        blind = Some(r)
    })
    .unwrap();
    let blind = blind.unwrap();
    assert!(
        blind.validation_rmse > 0.6 * spread,
        "shuffled labels still fit: {} against a spread of {spread}",
        blind.validation_rmse
    );
}

#[test]
fn training_is_the_same_for_the_same_seed() {
    let game = KalahRules::new(3, 2).unwrap();
    let inputs = Inputs::for_game(&game, 7);
    let examples: Vec<Example> = solve_all(&game)
        .iter()
        .map(|(s, v)| Example::new(&inputs, &game, s, *v as f32))
        .collect();
    let options = TrainOptions {
        hidden: vec![16],
        epochs: 3,
        ..TrainOptions::default()
    };
    let run = || train(inputs.clone(), &examples, &[], 6.0, &options, &mut |_| {}).unwrap();
    assert_eq!(run(), run());
}
