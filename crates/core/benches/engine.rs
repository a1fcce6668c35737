//! Engine benchmarks: random games and perft. Run with `cargo bench -p mancala-core`.
// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mancala_core::{perft, random_playout, CongkakRules, Game, KalahRules, OwareRules};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn playouts<G: Game>(c: &mut Criterion, name: &str, game: G) {
    let mut group = c.benchmark_group("random_game");
    group.throughput(Throughput::Elements(1));
    let start = game.start();
    let mut rng = SmallRng::seed_from_u64(1);
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut s = start.clone();
            black_box(random_playout(&game, &mut s, &mut rng))
        })
    });
    group.finish();
}

fn random_games(c: &mut Criterion) {
    playouts(c, "kalah_6x4", KalahRules::default());
    playouts(c, "oware_6x4", OwareRules::default());
    playouts(c, "congkak_7x7", CongkakRules::default());
}

fn perft_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    let kalah = KalahRules::default();
    // The node count is asserted so a benchmark never times a wrong engine.
    assert_eq!(perft(&kalah, &kalah.start(), 6), 23_233);
    group.throughput(Throughput::Elements(23_233));
    group.bench_function("kalah_6x4_depth6", |b| {
        b.iter(|| perft(&kalah, black_box(&kalah.start()), 6))
    });
    let oware = OwareRules::default();
    assert_eq!(perft(&oware, &oware.start(), 6), 27_332);
    group.throughput(Throughput::Elements(27_332));
    group.bench_function("oware_6x4_depth6", |b| {
        b.iter(|| perft(&oware, black_box(&oware.start()), 6))
    });
    let congkak = CongkakRules::default();
    assert_eq!(perft(&congkak, &congkak.start(), 6), 48_305);
    group.throughput(Throughput::Elements(48_305));
    group.bench_function("congkak_7x7_depth6", |b| {
        b.iter(|| perft(&congkak, black_box(&congkak.start()), 6))
    });
    group.finish();
}

criterion_group!(benches, random_games, perft_bench);
criterion_main!(benches);
