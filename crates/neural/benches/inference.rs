//! Network inference on a CPU: positions a second against the batch size,
//! libtorch's intra-op threads and the network's width, for Kalah(6,4).
//! Run with `cargo bench -p mancala-neural` (libtorch needed). Self-play
//! sends batches of about 50 positions with one thread per worker; the
//! `neural` agent sends 8 at a time.
// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mancala_core::{Game, KalahRules};
use mancala_neural::{Device, ModelInfo, NetShape, PolicyValueNet};

fn inference(c: &mut Criterion) {
    let game = KalahRules::default();
    let mut group = c.benchmark_group("inference");
    group.sample_size(20);
    for hidden in [128, 256] {
        let info = ModelInfo {
            game: "kalah".into(),
            shape: NetShape {
                inputs: game.observation_len(),
                actions: game.num_actions(),
                hidden,
                blocks: 3,
            },
        };
        let net = PolicyValueNet::new(info, Device::Cpu, 1);
        let mut one = vec![0.0; game.observation_len()];
        game.observe(&game.start(), &mut one);
        for threads in [1, 2] {
            tch::set_num_threads(threads);
            for batch in [1usize, 8, 64, 256] {
                let obs: Vec<f32> = one
                    .iter()
                    .copied()
                    .cycle()
                    .take(batch * one.len())
                    .collect();
                group.throughput(Throughput::Elements(batch as u64));
                group.bench_with_input(
                    BenchmarkId::new(format!("hidden {hidden}, {threads} threads"), batch),
                    &batch,
                    |b, &batch| b.iter(|| net.infer(&obs, batch).expect("inference")),
                );
            }
        }
    }
    group.finish();
}

criterion_group!(benches, inference);
criterion_main!(benches);
