//! Rating intervals at an extreme score: the profile-likelihood interval
//! against the Hessian one and against independent computations, the size
//! of the virtual-draw prior, and how infinite bounds reach `summary.json`
//! and `ratings.csv`.
// It prints the intervals it compares, for the record of a run.
#![allow(clippy::print_stdout)]

use mancala_arena::report::{summarize, write_summary, RATINGS_HEADER};
use mancala_arena::stats::{
    fit_ratings, Anchor, FitOptions, GameResult, RatingFit, PROFILE_DROP_95, Z95,
};
use mancala_arena::GameRecord;

/// `(first, second, wins, draws, losses)` from the first seat's side.
type Row = (usize, usize, u32, u32, u32);

/// Agent 1 scores 1%: moving first 150 times and second 150 times against
/// agent 0, it wins one game and draws one each way, 3 points of 300.
const EXTREME: &[Row] = &[(0, 1, 148, 1, 1), (1, 0, 1, 1, 148)];

/// A typical pairing: agent 0 scores 64% over 100 games, 32 of 50 each way.
const TYPICAL: &[Row] = &[(0, 1, 28, 8, 14), (1, 0, 12, 12, 26)];

fn expand(rows: &[Row]) -> Vec<GameResult> {
    let mut games = Vec::new();
    for &(first, second, wins, draws, losses) in rows {
        for (count, score) in [(wins, 1.0), (draws, 0.5), (losses, 0.0)] {
            games.extend((0..count).map(|_| GameResult {
                first,
                second,
                score,
            }));
        }
    }
    games
}

fn fit(rows: &[Row], prior_draws: f64, anchor: Anchor) -> RatingFit {
    let options = FitOptions {
        prior_draws,
        anchor,
        ..FitOptions::default()
    };
    fit_ratings(&expand(rows), 2, &options).unwrap()
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol
}

/// Reference values for `EXTREME` with the mean anchor (`r_1 = -d / 2`),
/// computed once with python3 + numpy/scipy, independently of the Rust
/// code: the log-likelihood of the four (seat, result) counts plus the
/// prior's virtual draws written directly in Elo, maximised by BFGS;
/// se from the inverse of a Richardson-extrapolated finite-difference
/// Hessian; the profile of `d` maximised over the advantage with
/// `minimize_scalar` (xatol 1e-12) and its bounds found by `brentq` (xtol
/// 1e-12) on `max - profile(d) = chi2.ppf(0.95, 1) / 2`. The point
/// estimate also has a closed form, `400 log10((297 + w/2) / (3 + w/2))`.
struct Reference {
    prior_draws: f64,
    /// Rating of agent 1.
    rating: f64,
    /// Hessian standard error of agent 1's rating.
    stderr: f64,
    /// Profile-likelihood 95% interval of agent 1's rating.
    profile: (f64, f64),
}

const REFERENCES: [Reference; 2] = [
    Reference {
        prior_draws: 1.0,
        rating: -385.8837851428586,
        stderr: 46.700342041310485,
        profile: (-496.31234412379024, -307.62362069029683),
    },
    Reference {
        prior_draws: 0.0,
        rating: -399.12703891950995,
        stderr: 50.400643556332746,
        profile: (-520.3245032215777, -315.6653004126218),
    },
];

/// A second, brute-force check written here: the same log-likelihood of
/// `EXTREME` in Elo, the advantage profiled out by golden-section search,
/// the maximum over `d` by golden section, and each bound by bisection.
/// No Newton steps, no Hessian, no shared code with the library.
mod brute_force {
    use super::PROFILE_DROP_95;

    fn ln_p(margin: f64) -> f64 {
        // ln(1 / (1 + 10^(-margin / 400))), stable for either sign.
        let z = margin * std::f64::consts::LN_10 / 400.0;
        if z >= 0.0 {
            -(-z).exp().ln_1p()
        } else {
            z - z.exp().ln_1p()
        }
    }

    /// Log-likelihood (prior included) with `r_0 = d / 2`, `r_1 = -d / 2`.
    fn log_likelihood(d: f64, advantage: f64, prior_draws: f64) -> f64 {
        // (first-seat margin, games, first-seat points)
        let terms = [
            (d + advantage, 150.0, 148.5),
            (-d + advantage, 150.0, 1.5),
            (d, prior_draws, prior_draws / 2.0),
            (advantage, prior_draws, prior_draws / 2.0),
        ];
        terms
            .iter()
            .map(|&(m, n, points)| points * ln_p(m) + (n - points) * ln_p(-m))
            .sum()
    }

    fn golden_max(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> (f64, f64) {
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let mut a = hi - ratio * (hi - lo);
        let mut b = lo + ratio * (hi - lo);
        let (mut fa, mut fb) = (f(a), f(b));
        for _ in 0..200 {
            if fa < fb {
                lo = a;
                (a, fa) = (b, fb);
                b = lo + ratio * (hi - lo);
                fb = f(b);
            } else {
                hi = b;
                (b, fb) = (a, fa);
                a = hi - ratio * (hi - lo);
                fa = f(a);
            }
        }
        if fa > fb {
            (a, fa)
        } else {
            (b, fb)
        }
    }

    fn profile(d: f64, prior_draws: f64) -> f64 {
        golden_max(|a| log_likelihood(d, a, prior_draws), -3000.0, 3000.0).1
    }

    /// `(d_hat, d_lo, d_hi)`: estimate and 95% profile bounds of `d`.
    pub fn interval(prior_draws: f64) -> (f64, f64, f64) {
        let (d_hat, top) = golden_max(|d| profile(d, prior_draws), 0.0, 3000.0);
        let crossing = |mut inside: f64, mut outside: f64| {
            for _ in 0..100 {
                let mid = 0.5 * (inside + outside);
                if top - profile(mid, prior_draws) < PROFILE_DROP_95 {
                    inside = mid;
                } else {
                    outside = mid;
                }
            }
            0.5 * (inside + outside)
        };
        (
            d_hat,
            crossing(d_hat, d_hat - 2000.0),
            crossing(d_hat, d_hat + 2000.0),
        )
    }
}

#[test]
fn profile_matches_independent_computations() {
    for reference in &REFERENCES {
        let w = reference.prior_draws;
        let fit = fit(EXTREME, w, Anchor::Mean);
        assert!(
            close(fit.ratings[1], reference.rating, 1e-6),
            "{w}: {fit:?}"
        );
        assert!(close(fit.ratings[0], -fit.ratings[1], 1e-9));
        assert!(close(fit.stderr[1].unwrap(), reference.stderr, 1e-4));
        let (lo, hi) = fit.profile_interval(1).unwrap();
        assert!(close(lo, reference.profile.0, 1e-6), "{w}: {lo}");
        assert!(close(hi, reference.profile.1, 1e-6), "{w}: {hi}");
        // Agent 0 mirrors agent 1.
        let (lo0, hi0) = fit.profile_interval(0).unwrap();
        assert!(close(lo0, -hi, 1e-6) && close(hi0, -lo, 1e-6));

        let (d_hat, d_lo, d_hi) = brute_force::interval(w);
        assert!(close(-d_hat / 2.0, fit.ratings[1], 1e-3), "{w}: {d_hat}");
        assert!(close(-d_hi / 2.0, lo, 1e-6), "{w}: {d_hi} vs {lo}");
        assert!(close(-d_lo / 2.0, hi, 1e-6), "{w}: {d_lo} vs {hi}");

        // Anchored on agent 0, agent 1's rating is -d itself.
        let anchored = fit_anchored(w);
        let (a_lo, a_hi) = anchored.profile_interval(1).unwrap();
        assert!(close(a_lo, -d_hi, 1e-5) && close(a_hi, -d_lo, 1e-5));
        assert_eq!(anchored.profile_interval(0), Some((0.0, 0.0)));
    }
}

fn fit_anchored(prior_draws: f64) -> RatingFit {
    fit(EXTREME, prior_draws, Anchor::Player(0, 0.0))
}

/// At 1% the Hessian interval is symmetric and too short on the far side;
/// the profile interval reaches further down and less far up.
#[test]
fn profile_is_wider_on_the_extreme_side_and_asymmetric() {
    let fit = fit(EXTREME, 1.0, Anchor::Mean);
    let rating = fit.ratings[1];
    let (h_lo, h_hi) = fit.interval(1).unwrap();
    let (p_lo, p_hi) = fit.profile_interval(1).unwrap();
    // Hessian: ±91.5 Elo.
    assert!(close(h_hi - rating, Z95 * 46.700342041310485, 1e-3));
    assert!(close(rating - h_lo, h_hi - rating, 1e-9));
    // Profile: -110.4 / +78.3 Elo.
    let (below, above) = (rating - p_lo, p_hi - rating);
    assert!(p_lo < h_lo - 15.0, "{p_lo} vs {h_lo}");
    assert!(p_hi < h_hi, "{p_hi} vs {h_hi}");
    assert!(below > above + 25.0, "{below} vs {above}");
    assert!(close(below, 110.4, 0.1) && close(above, 78.3, 0.1));
    // The strong agent mirrors it: wider above.
    let (p_lo0, p_hi0) = fit.profile_interval(0).unwrap();
    assert!(p_hi0 - fit.ratings[0] > fit.ratings[0] - p_lo0 + 25.0);

    // Balanced scores: the two intervals nearly agree (within 2 Elo).
    let fit = self::fit(TYPICAL, 1.0, Anchor::Mean);
    let (h_lo, h_hi) = fit.interval(0).unwrap();
    let (p_lo, p_hi) = fit.profile_interval(0).unwrap();
    assert!((p_lo - h_lo).abs() < 2.0 && (p_hi - h_hi).abs() < 2.0);
}

/// How far the default prior (one virtual draw per agent) moves the
/// ratings: the figures quoted in the README and the rustdoc.
#[test]
fn size_of_the_prior() {
    let shift = |rows: &[Row]| {
        let with = fit(rows, 1.0, Anchor::Mean);
        let without = fit(rows, 0.0, Anchor::Mean);
        (with.ratings[0] - with.ratings[1]) - (without.ratings[0] - without.ratings[1])
    };
    // 1% over 300 games: the difference shrinks by 26.5 Elo (13.2 each).
    let extreme = shift(EXTREME);
    assert!(close(extreme, -26.486507553, 1e-6), "{extreme}");
    // It is the closed form of adding one drawn game: 3 of 300 becomes 3.5
    // of 301.
    let closed = 400.0 * (297.5f64 / 3.5).log10() - 400.0 * (297.0f64 / 3.0).log10();
    assert!(close(extreme, closed, 1e-6));
    // The rule of thumb 174 (1/2 - s) / (n s (1 - s)) gives 28.7.
    let rule = |s: f64, n: f64| 400.0 / std::f64::consts::LN_10 * (0.5 - s) / (n * s * (1.0 - s));
    assert!(close(rule(0.01, 300.0), 28.66, 0.01));
    // 64% over 100 games: 1.0 Elo.
    let typical = shift(TYPICAL);
    assert!(close(typical, -1.0442492151, 1e-6), "{typical}");
    assert!(close(rule(0.64, 100.0), typical, 0.05));

    // A real round robin (random, greedy, minimax:depth=3; 40 games per
    // pair, seed 1): random scored 1/2 point of 80. The prior moves it 83
    // Elo up and 125 Elo against its opponents' mean; the rule says 173.
    let with = fit_ratings(&expand(ROUND_ROBIN), 3, &FitOptions::default()).unwrap();
    let without = fit_ratings(
        &expand(ROUND_ROBIN),
        3,
        &FitOptions {
            prior_draws: 0.0,
            ..FitOptions::default()
        },
    )
    .unwrap();
    let against_field = |r: &[f64]| r[0] - (r[1] + r[2]) / 2.0;
    let moved = against_field(&with.ratings) - against_field(&without.ratings);
    assert!(close(moved, 124.8, 0.1), "{moved}");
    assert!(close(with.ratings[0] - without.ratings[0], 83.2, 0.1));
    assert!(close(rule(0.5 / 80.0, 80.0), 172.6, 0.1));
}

/// First-seat results of a 120-game round robin of random (0), greedy (1)
/// and minimax:depth=3 (2) on Kalah, 40 games per pair, seed 1.
const ROUND_ROBIN: &[Row] = &[
    (0, 1, 0, 0, 20),
    (0, 2, 0, 0, 20),
    (1, 0, 19, 1, 0),
    (1, 2, 11, 2, 7),
    (2, 0, 20, 0, 0),
    (2, 1, 15, 0, 5),
];

fn record(
    id: u64,
    seats: [usize; 2],
    winner: Option<u8>,
    margin: i32,
    forfeit: bool,
) -> GameRecord {
    GameRecord {
        id,
        pair: 0,
        round: 0,
        opening: 0,
        game: "kalah".into(),
        players: [format!("p{}", seats[0]), format!("p{}", seats[1])],
        agents: ["random".into(), "random".into()],
        seats,
        seed: id,
        start: None,
        opening_moves: String::new(),
        moves: String::new(),
        scores: [0, 0],
        winner,
        margin,
        plies: 10,
        duration_ms: 1.0,
        end: if forfeit { "forfeit" } else { "no_moves" }.into(),
        error: forfeit.then(|| format!("seat {} panicked", winner.map_or(0, |w| 1 - w))),
        move_us: Vec::new(),
        clock_ms: Vec::new(),
        search: Vec::new(),
    }
}

/// `EXTREME` as game records: agent 0 is "strong", agent 1 "weak".
fn extreme_records() -> Vec<GameRecord> {
    let mut records = Vec::new();
    for &(first, second, wins, draws, losses) in EXTREME {
        for (count, winner, margin) in [(wins, Some(0), 4), (draws, None, 0), (losses, Some(1), -4)]
        {
            for _ in 0..count {
                let id = records.len() as u64;
                records.push(record(id, [first, second], winner, margin, false));
            }
        }
    }
    records
}

#[test]
fn summary_carries_both_intervals_and_writes_infinity_as_strings() {
    let names = vec!["strong".to_string(), "weak".to_string()];
    let specs = vec!["minimax".to_string(), "random".to_string()];
    let mut records = extreme_records();
    // A third agent that won its only game, as first seat, by forfeit: its
    // first-seat Elo and bounds are +inf, and it has no margin.
    let mut names3 = names.clone();
    names3.push("lucky".into());
    let mut specs3 = specs.clone();
    specs3.push("random".into());
    records.push(record(records.len() as u64, [2, 1], Some(0), 0, true));
    let summary = summarize("t", "kalah", &names3, &specs3, &records, 301, None).unwrap();

    let weak = summary.standings.iter().find(|a| a.name == "weak").unwrap();
    let (h_lo, h_hi) = weak.elo_95.unwrap();
    let (p_lo, p_hi) = weak.elo_95_profile.unwrap();
    assert!(p_lo < h_lo && p_hi < h_hi, "{weak:?}");
    assert!(weak.elo - p_lo > p_hi - weak.elo);
    let (a_lo, a_hi) = summary.first_player.advantage_elo_95_profile.unwrap();
    assert!(a_lo < summary.first_player.advantage_elo && summary.first_player.advantage_elo < a_hi);

    let json = serde_json::to_value(&summary).unwrap();
    let lucky = json["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "lucky")
        .unwrap();
    assert_eq!(lucky["as_first"]["elo"]["elo"], "inf", "{lucky}");
    assert_eq!(lucky["as_first"]["elo"]["lo"], "inf");
    assert_eq!(lucky["as_first"]["elo"]["hi"], "inf");
    assert!(lucky["as_first"]["margin"].is_null());
    assert_eq!(lucky["forfeits"], 0);
    let weak = json["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "weak")
        .unwrap();
    assert!(weak["elo_95"][0].is_number() && weak["elo_95_profile"][1].is_number());
    // Nothing infinite is ever written as null.
    let text = serde_json::to_string(&json).unwrap();
    assert!(text.contains("\"inf\""));

    let dir = tempfile::tempdir().unwrap();
    write_summary(dir.path(), &summary).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("ratings.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), RATINGS_HEADER.join(","));
    let weak_row: Vec<&str> = lines
        .find(|l| l.contains(",weak,"))
        .unwrap()
        .split(',')
        .collect();
    let column = |name: &str| RATINGS_HEADER.iter().position(|h| *h == name).unwrap();
    let lo: f64 = weak_row[column("elo_profile_lo")].parse().unwrap();
    assert!(close(lo, p_lo, 0.05), "{weak_row:?}");
    let hi: f64 = weak_row[column("elo_hi")].parse().unwrap();
    assert!(close(hi, h_hi, 0.05), "{weak_row:?}");
}

/// Summarising ~10^5 games among 10 agents (the fit works on per-pair
/// totals; the profile intervals cost 22 constrained fits of 10
/// parameters). Run with `cargo test -p mancala-arena --release --test
/// ratings_intervals -- --ignored --nocapture` to see the time.
#[test]
#[ignore = "timing, prints only"]
fn summary_of_a_large_tournament_is_fast() {
    let n = 10;
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let specs = vec!["random".to_string(); n];
    let mut records = Vec::new();
    let mut state = 12345u64;
    for _ in 0..1111 {
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                // A fixed pseudo-random stream, stronger agents winning more.
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                let p = 1.0 / (1.0 + 10f64.powf(-((j as f64 - i as f64) * 60.0 + 30.0) / 400.0));
                let winner = if u < p { Some(0) } else { Some(1) };
                let id = records.len() as u64;
                records.push(record(id, [i, j], winner, 2, false));
            }
        }
    }
    let start = std::time::Instant::now();
    let summary = summarize("big", "kalah", &names, &specs, &records, 0, None).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(summary.games_played, records.len() as u64);
    assert!(summary.standings.iter().all(|a| a.elo_95_profile.is_some()));
    println!(
        "{} games, 10 agents: summarize took {elapsed:?}",
        records.len()
    );
}
