//! The value network's file is PyTorch's layout: libtorch, reading the same
//! safetensors file with `nn.Linear` semantics (`x @ weight.T + bias`, a
//! ReLU after each `fc` layer), computes what the plain Rust forward pass
//! of `mancala_evalnet` computes, to 1e-5.

use std::collections::HashMap;
use std::path::Path;

use mancala_core::{CongkakRules, Game, KalahRules, OwareRules};
use mancala_evalnet::{Inputs, ValueNet};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tch::Tensor;

/// The network of the file at `path`, run by libtorch on a batch.
fn torch_forward(path: &Path, batch: &Tensor) -> Vec<f32> {
    let tensors: HashMap<String, Tensor> = Tensor::read_safetensors(path)
        .expect("libtorch reads the file")
        .into_iter()
        .collect();
    let mut x = batch.shallow_clone();
    let mut k = 0;
    while let Some(w) = tensors.get(&format!("fc{k}.weight")) {
        x = x.linear(w, Some(&tensors[&format!("fc{k}.bias")])).relu();
        k += 1;
    }
    let out = x.linear(&tensors["value.weight"], Some(&tensors["value.bias"]));
    Vec::<f32>::try_from(out.flatten(0, -1)).expect("floats")
}

fn check<G: Game>(game: &G, buckets: usize, hidden: &[usize], seed: u64) {
    let net = ValueNet::seeded(Inputs::for_game(game, buckets), hidden, seed).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.safetensors");
    net.save(&path).unwrap();

    let mut rng = SmallRng::seed_from_u64(seed);
    let mut states = Vec::new();
    while states.len() < 300 {
        let mut s = game.start();
        while !game.is_over(&s) && states.len() < 300 {
            states.push(s.clone());
            let moves = game.legal_moves(&s);
            game.play_unchecked(&mut s, moves.nth(rng.random_range(0..moves.len())));
        }
    }
    let inputs = net.inputs();
    let mut obs = vec![0.0; inputs.observation];
    let mut row = vec![0.0; inputs.len()];
    let mut flat = Vec::with_capacity(states.len() * inputs.len());
    for s in &states {
        inputs.encode(game, s, &mut obs, &mut row);
        flat.extend_from_slice(&row);
    }
    let batch = Tensor::from_slice(&flat).reshape([states.len() as i64, inputs.len() as i64]);
    let torch = torch_forward(&path, &batch);
    for (s, t) in states.iter().zip(&torch) {
        let (rust, _) = net.forward(game, s);
        assert!(
            (rust - t).abs() <= 1e-5 * (1.0 + t.abs()),
            "{game}: {s:?}: Rust {rust}, libtorch {t}"
        );
    }
}

#[test]
fn libtorch_computes_what_the_rust_forward_pass_computes() {
    check(&KalahRules::default(), 16, &[64, 32], 1);
    check(&KalahRules::new(4, 3).unwrap(), 4, &[8], 2);
    check(&OwareRules::default(), 12, &[32, 16, 8], 3);
    check(&CongkakRules::default(), 20, &[48], 4);
}
