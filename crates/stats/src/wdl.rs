//! Win/draw/loss counts and the Elo estimate derived from them.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use super::json_float;
use super::special::erf;
use super::{StatsError, Z95};

/// Win/draw/loss counts from one side's point of view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

/// An Elo difference estimated from a score, with a 95% confidence interval.
///
/// Bounds are `±inf` when the score or one end of its interval reaches 0 or
/// 1 (a perfect record has no finite Elo). In JSON an infinite value is the
/// string `"inf"` or `"-inf"` (see [`super::json_float`]), never `null`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Elo difference implied by the score, `400 * log10(s / (1 - s))`.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub elo: f64,
    /// Lower end of the 95% interval, `elo(score - Z95 * score_stderr)`.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub lo: f64,
    /// Upper end of the 95% interval, `elo(score + Z95 * score_stderr)`.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub hi: f64,
    /// Half the interval width, `(hi - lo) / 2`: the `±` figure fastchess
    /// and cutechess print; `+inf` when either bound is infinite (even a
    /// perfect record's, where both are the same infinity).
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub error: f64,
    /// Points fraction the estimate comes from (draws count half).
    #[serde(deserialize_with = "json_float::read_number")]
    pub score: f64,
    /// Standard error of the mean score, `sqrt(per-game variance / games)`.
    #[serde(deserialize_with = "json_float::read_number")]
    pub score_stderr: f64,
}

impl Wdl {
    /// Counts from explicit numbers.
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    /// Adds one game scored `1.0` (win), `0.5` (draw) or `0.0` (loss).
    ///
    /// Any other value is rejected so that fractional scores are not
    /// silently rounded into a category.
    pub fn record(&mut self, score: f64) -> Result<(), StatsError> {
        if score == 1.0 {
            self.wins += 1;
        } else if score == 0.5 {
            self.draws += 1;
        } else if score == 0.0 {
            self.losses += 1;
        } else {
            return Err(StatsError::InvalidScore(score));
        }
        Ok(())
    }

    /// Total number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points won: one per win, half per draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Points fraction `(wins + draws / 2) / games`, or `None` with no games.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// The same games seen from the opponent's side.
    pub fn swapped(&self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }

    /// Elo difference with a 95% interval, the way fastchess/cutechess
    /// compute it: the per-game score variance of the trinomial
    /// `W*(1-s)^2 + D*(1/2-s)^2 + L*s^2) / n` gives the standard error of the
    /// mean score `sqrt(var / n)`, and the interval is the Elo of
    /// `score ± Z95 * stderr`.
    ///
    /// `None` with no games. With all wins (all losses) the estimate and both
    /// bounds are `+inf` (`-inf`), since the variance is zero.
    pub fn elo(&self) -> Option<EloEstimate> {
        let score = self.score()?;
        let n = self.games() as f64;
        let variance = (self.wins as f64 * (1.0 - score).powi(2)
            + self.draws as f64 * (0.5 - score).powi(2)
            + self.losses as f64 * score.powi(2))
            / n;
        let score_stderr = (variance / n).sqrt();
        let lo = elo_from_score(score - Z95 * score_stderr);
        let hi = elo_from_score(score + Z95 * score_stderr);
        Some(EloEstimate {
            elo: elo_from_score(score),
            lo,
            hi,
            error: if lo.is_finite() && hi.is_finite() {
                (hi - lo) / 2.0
            } else {
                f64::INFINITY
            },
            score,
            score_stderr,
        })
    }

    /// Likelihood of superiority: the probability that this side is the
    /// stronger one, `0.5 * (1 + erf((W - L) / sqrt(2 * (W + L))))`.
    /// Draws carry no information here. With no decisive game it is `0.5`.
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        let lead = self.wins as f64 - self.losses as f64;
        0.5 * (1.0 + erf(lead / (2.0 * decisive).sqrt()))
    }
}

impl Add for Wdl {
    type Output = Wdl;

    fn add(self, other: Wdl) -> Wdl {
        Wdl::new(
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
        )
    }
}

impl AddAssign for Wdl {
    fn add_assign(&mut self, other: Wdl) {
        *self = *self + other;
    }
}

/// Elo difference implied by an expected score: `-400 * log10(1/s - 1)`.
///
/// Scores at or below 0 give `-inf`, at or above 1 give `+inf` (so interval
/// ends that overshoot stay meaningful); NaN gives NaN.
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        f64::NAN
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Same as -400 * log10(1/s - 1), without forming 1/s.
        400.0 * (score / (1.0 - score)).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        got == want || (got - want).abs() <= tol
    }

    #[test]
    fn counts_and_score() {
        let mut wdl = Wdl::default();
        for s in [1.0, 0.5, 0.0, 1.0] {
            wdl.record(s).unwrap();
        }
        assert_eq!(wdl, Wdl::new(2, 1, 1));
        assert_eq!(wdl.games(), 4);
        assert_eq!(wdl.score(), Some(0.625));
        assert_eq!(wdl.swapped(), Wdl::new(1, 1, 2));
        assert_eq!(wdl + Wdl::new(1, 0, 0), Wdl::new(3, 1, 1));
        assert_eq!(wdl.record(0.7), Err(StatsError::InvalidScore(0.7)));
        assert_eq!(Wdl::default().score(), None);
    }

    #[test]
    fn elo_from_score_values() {
        // python3: -400 * math.log10(1 / 0.64 - 1)
        assert!(close(elo_from_score(0.64), PY_ELO_064, 1e-10));
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(-0.1), f64::NEG_INFINITY);
    }

    #[test]
    fn elo_interval_matches_reference() {
        for &(w, d, l, elo, lo, hi, err) in ELO_TABLE {
            let est = Wdl::new(w, d, l).elo().unwrap();
            assert!(close(est.elo, elo, 1e-9), "{w}/{d}/{l}: {est:?}");
            assert!(close(est.lo, lo, 1e-9), "{w}/{d}/{l}: {est:?}");
            assert!(close(est.hi, hi, 1e-9), "{w}/{d}/{l}: {est:?}");
            assert!(close(est.error, err, 1e-9), "{w}/{d}/{l}: {est:?}");
        }
    }

    #[test]
    fn elo_edge_cases() {
        assert_eq!(Wdl::default().elo(), None);
        let all_wins = Wdl::new(10, 0, 0).elo().unwrap();
        assert_eq!(all_wins.elo, f64::INFINITY);
        assert_eq!(all_wins.lo, f64::INFINITY);
        assert_eq!(all_wins.error, f64::INFINITY);
        assert_eq!(all_wins.score_stderr, 0.0);
        let all_losses = Wdl::new(0, 0, 7).elo().unwrap();
        assert_eq!(all_losses.elo, f64::NEG_INFINITY);
        assert_eq!(all_losses.hi, f64::NEG_INFINITY);
        assert_eq!(all_losses.error, f64::INFINITY);
        let json = serde_json::to_value(all_losses).unwrap();
        assert_eq!(json["elo"], "-inf");
        assert_eq!(json["lo"], "-inf");
        assert_eq!(json["error"], "inf");
        assert_eq!(json["score"], 0.0);
        let all_draws = Wdl::new(0, 9, 0).elo().unwrap();
        assert_eq!((all_draws.elo, all_draws.lo, all_draws.hi), (0.0, 0.0, 0.0));
    }

    #[test]
    fn los_matches_reference() {
        for &(w, d, l, want) in LOS_TABLE {
            let got = Wdl::new(w, d, l).los();
            assert!(close(got, want, 1e-13), "{w}/{d}/{l}: {got} vs {want}");
        }
        assert_eq!(Wdl::new(0, 5, 0).los(), 0.5);
    }

    const PY_ELO_064: f64 = 99.95098928663995;
    /// python3, independently: s = (W + D/2)/n, var = (W + D/4)/n - s^2,
    /// se = sqrt(var/n), bounds = -400*log10(1/(s ± 1.959963984540054*se) - 1).
    const ELO_TABLE: &[(u64, u64, u64, f64, f64, f64, f64)] = &[
        (
            120,
            60,
            90,
            38.76400520322261,
            2.3468246745096337,
            76.05300853355041,
            36.85309192952039,
        ),
        (
            76,
            110,
            64,
            16.689733705293428,
            -15.495958830379418,
            49.16507163684872,
            32.33051523361407,
        ),
        (
            1,
            1,
            0,
            190.848501887865,
            -67.88940991190478,
            f64::INFINITY,
            f64::INFINITY,
        ),
        (
            5,
            1,
            0,
            416.5570740632898,
            207.52755349762063,
            f64::INFINITY,
            f64::INFINITY,
        ),
        (
            300,
            500,
            280,
            6.434727957381963,
            -8.74793100975499,
            21.642015449790662,
            15.194973229772826,
        ),
        (
            10,
            0,
            30,
            -190.84850188786498,
            -353.1190697470881,
            -81.96059471222803,
            135.57923751743002,
        ),
    ];
    /// python3: 0.5 * (1 + math.erf((W - L) / math.sqrt(2 * (W + L)))).
    const LOS_TABLE: &[(u64, u64, u64, f64)] = &[
        (120, 60, 90, 0.9807830348816091),
        (76, 110, 64, 0.8447527828413826),
        (1, 0, 0, 0.8413447460685429),
        (3, 4, 5, 0.23975006109347674),
        (1000, 0, 900, 0.9891092686044403),
        (50, 0, 10, 0.9999998791218059),
    ];
}
