//! Search benchmarks: one move of MCTS and of minimax from the Kalah(6,4)
//! start. Run with `cargo bench -p mancala-agents`.
// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mancala_agents::{Agent, AgentSpec};
use mancala_core::{Game, KalahRules};

fn one_move(c: &mut Criterion, spec: &str, work: u64) {
    let game = KalahRules::default();
    let spec: AgentSpec = spec.parse().expect("valid spec");
    let mut agent = spec.build::<KalahRules>();
    let start = game.start();
    let mut group = c.benchmark_group("search");
    group.throughput(Throughput::Elements(work));
    group.sample_size(20);
    group.bench_function(spec.to_string(), |b| {
        b.iter(|| {
            agent.new_game(1);
            agent.choose(&game, &start).expect("a move")
        })
    });
    group.finish();
}

fn searches(c: &mut Criterion) {
    one_move(c, "mcts:sims=2000,rollout=random,reuse=false", 2000);
    one_move(c, "mcts:sims=2000,reuse=false", 2000);
    one_move(c, "minimax:depth=6", 1);
}

criterion_group!(benches, searches);
criterion_main!(benches);
