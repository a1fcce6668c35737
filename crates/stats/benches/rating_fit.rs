//! The Bradley–Terry rating fit on a large table: 200 players and 1 M
//! games drawn from known ratings (seeded), fitted with and without the
//! profile-likelihood intervals (two constrained fits per player). A
//! tournament's standings pay this once per report, so it must stay far
//! under the time of the games themselves.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use mancala_stats::{fit_ratings, FitOptions, GameResult};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const PLAYERS: usize = 200;
const GAMES: usize = 1_000_000;

/// Games between random pairs of players whose true ratings are spread
/// over 796 Elo, with a first-move advantage of 30 Elo (no draws, so that
/// the logistic model the fit assumes is the one the games follow).
fn table() -> Vec<GameResult> {
    let mut rng = SmallRng::seed_from_u64(200);
    let ratings: Vec<f64> = (0..PLAYERS).map(|i| i as f64 * 4.0 - 400.0).collect();
    (0..GAMES)
        .map(|_| {
            let first = rng.random_range(0..PLAYERS);
            let mut second = rng.random_range(0..PLAYERS - 1);
            if second >= first {
                second += 1;
            }
            let diff = ratings[first] - ratings[second] + 30.0;
            let expected = 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
            let score = if rng.random_bool(expected) { 1.0 } else { 0.0 };
            GameResult {
                first,
                second,
                score,
            }
        })
        .collect()
}

fn rating_fit(c: &mut Criterion) {
    let games = table();
    let mut group = c.benchmark_group("fit_ratings_200_players_1m_games");
    group.sample_size(10);
    for profile in [false, true] {
        let options = FitOptions {
            profile,
            ..FitOptions::default()
        };
        let name = if profile {
            "with_profile"
        } else {
            "hessian_only"
        };
        // The fit must find the spread it was drawn from: a bench of a
        // fit that fails measures nothing. Checked on every fit timed (a
        // subtraction beside the fit), so that a test run (`cargo test
        // --bench`, one fit each) pays for no fit besides the one timed.
        group.bench_function(name, |b| {
            b.iter(|| {
                let fit = fit_ratings(&games, PLAYERS, &options).expect("the fit converges");
                let spread = fit.ratings[PLAYERS - 1] - fit.ratings[0];
                assert!((700.0..900.0).contains(&spread), "spread {spread}");
                fit
            })
        });
    }
    group.finish();
}

criterion_group!(benches, rating_fit);
criterion_main!(benches);
