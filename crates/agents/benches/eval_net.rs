//! What a learned evaluation costs: evaluations a second of value
//! networks by size, against the hand-written `material`, and minimax's
//! nodes a second with each at a fixed depth over the same positions.
//! Run with `cargo bench -p mancala-agents --bench eval_net`; the
//! throughput lines are evaluations (or nodes) a second.
// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mancala_agents::{Agent, Budget, Eval, Minimax, MinimaxOptions, NetEval};
use mancala_core::{Game, KalahRules, KalahState};
use mancala_evalnet::{Inputs, ValueNet};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Hidden widths measured, smallest first.
const SIZES: [&[usize]; 5] = [&[16], &[32, 16], &[64, 32], &[128, 32], &[256, 32]];

/// Positions of seeded random Kalah(6,4) games, a ply apart.
fn positions(game: &KalahRules, count: usize) -> Vec<KalahState> {
    let mut rng = SmallRng::seed_from_u64(1);
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = game.start();
        while !game.is_over(&s) && out.len() < count {
            out.push(s);
            let moves = game.legal_moves(&s);
            game.play_unchecked(&mut s, moves.nth(rng.random_range(0..moves.len())));
        }
    }
    out
}

fn evals(game: &KalahRules) -> Vec<(String, Eval)> {
    let mut all = vec![("material".to_string(), Eval::Material)];
    for hidden in SIZES {
        let net = ValueNet::seeded(Inputs::for_game(game, 16), hidden, 1).expect("a network");
        let name = format!(
            "net {}",
            net.hidden()
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join("x")
        );
        all.push((name.clone(), Eval::Net(NetEval::new(&name, Arc::new(net)))));
    }
    all
}

fn evaluations(c: &mut Criterion) {
    let game = KalahRules::default();
    let states = positions(&game, 1000);
    let mut group = c.benchmark_group("evaluations");
    group.throughput(Throughput::Elements(states.len() as u64));
    for (name, eval) in evals(&game) {
        group.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| states.iter().map(|s| eval.evaluate(&game, s)).sum::<i32>())
        });
    }
    group.finish();
}

fn minimax_nodes(c: &mut Criterion) {
    let game = KalahRules::default();
    let states: Vec<KalahState> = positions(&game, 400).into_iter().step_by(20).collect();
    let mut group = c.benchmark_group("minimax depth 5 nodes");
    group.sample_size(10);
    for (name, eval) in evals(&game) {
        let mut agent = Minimax::<KalahRules>::new(MinimaxOptions {
            budget: Budget::Depth(5),
            eval,
            tt_mib: 4,
            margin: None,
        });
        let mut search = || {
            let mut nodes = 0;
            for s in &states {
                agent.new_game(1);
                agent.choose(&game, s).expect("a move");
                nodes += agent.info().nodes;
            }
            nodes
        };
        // Nodes differ by evaluation (it orders the moves and cuts), so each
        // one's throughput is its own count.
        group.throughput(Throughput::Elements(search()));
        group.bench_function(BenchmarkId::from_parameter(&name), |b| b.iter(&mut search));
    }
    group.finish();
}

criterion_group!(benches, evaluations, minimax_nodes);
criterion_main!(benches);
