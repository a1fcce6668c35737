//! How much moving first is worth, summarised over a set of games.

use serde::{Deserialize, Serialize};

use super::interval::{mean_with_ci, wilson_interval, MeanCi};
use super::json_float;
use super::wdl::{EloEstimate, Wdl};
use super::{StatsError, Z95};

/// First-seat statistics: results, score with a Wilson interval, the Elo
/// that score implies, and the mean seed margin with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstPlayerStats {
    /// Wins, draws and losses of the player who moved first.
    pub wdl: Wdl,
    /// First seat's points fraction (draws half); `None` with no games.
    pub score: Option<f64>,
    /// 95% Wilson interval of the score, draws as half successes;
    /// `(0, 1)` with no games.
    pub score_interval: (f64, f64),
    /// First-seat advantage as an Elo difference with its 95% interval
    /// (see [`Wdl::elo`]); `None` with no games.
    pub elo: Option<EloEstimate>,
    /// Likelihood that the first seat is the better one (see [`Wdl::los`]).
    #[serde(deserialize_with = "json_float::read_number")]
    pub los: f64,
    /// Mean margin (first-seat seeds minus second-seat seeds) with its 95%
    /// interval; `None` with no games.
    pub margin: Option<MeanCi>,
}

impl FirstPlayerStats {
    /// Builds the statistics from the first seat's score per game (1, 0.5
    /// or 0) and, separately, the margins (first seat's final seeds minus
    /// the second seat's) of the games that have one.
    ///
    /// The two are separate because they need not cover the same games: a
    /// forfeit has a result but no meaningful margin.
    ///
    /// Fails on any other score or a non-finite margin.
    pub fn new<S, M>(scores: S, margins: M) -> Result<Self, StatsError>
    where
        S: IntoIterator<Item = f64>,
        M: IntoIterator<Item = f64>,
    {
        let mut wdl = Wdl::default();
        for score in scores {
            wdl.record(score)?;
        }
        let margins = margins
            .into_iter()
            .map(|margin| {
                if margin.is_finite() {
                    Ok(margin)
                } else {
                    Err(StatsError::InvalidMargin(margin))
                }
            })
            .collect::<Result<Vec<f64>, StatsError>>()?;
        Ok(Self {
            wdl,
            score: wdl.score(),
            score_interval: wilson_interval(wdl.points(), wdl.games() as f64, Z95),
            elo: wdl.elo(),
            los: wdl.los(),
            margin: mean_with_ci(&margins),
        })
    }

    /// [`FirstPlayerStats::new`] from `(first_seat_score, margin)` per game,
    /// for when every game has both.
    ///
    /// Fails on a score other than 1, 0.5 or 0, or a non-finite margin.
    pub fn from_games<I>(games: I) -> Result<Self, StatsError>
    where
        I: IntoIterator<Item = (f64, f64)>,
    {
        let (scores, margins): (Vec<f64>, Vec<f64>) = games.into_iter().unzip();
        Self::new(scores, margins)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        (got - want).abs() <= tol
    }

    /// Reference numbers from python3 (`statistics`, `math`): textbook
    /// Wilson formula on 8 of 12, Elo bounds from `pvariance(scores)`,
    /// LOS via `math.erf`, margin `fmean ± Z95 * stdev / sqrt(n)`.
    #[test]
    fn matches_reference() {
        let games = [
            (1.0, 7.0),
            (1.0, 3.0),
            (0.5, 0.0),
            (0.0, -4.0),
            (1.0, 12.0),
            (1.0, 2.0),
            (0.0, -6.0),
            (0.5, 0.0),
            (1.0, 5.0),
            (0.0, -1.0),
            (1.0, 9.0),
            (1.0, 4.0),
        ];
        let stats = FirstPlayerStats::from_games(games).unwrap();
        assert_eq!(stats.wdl, Wdl::new(7, 2, 3));
        assert!(close(stats.score.unwrap(), 0.6666666666666666, 1e-15));
        assert!(close(stats.score_interval.0, 0.39062208887279953, 1e-14));
        assert!(close(stats.score_interval.1, 0.8618799089087867, 1e-14));
        let elo = stats.elo.unwrap();
        assert!(close(elo.elo, 120.41199826559247, 1e-10));
        assert!(close(elo.lo, -51.6226637724696, 1e-9));
        assert!(close(elo.hi, 395.81951466081676, 1e-9));
        assert!(close(stats.los, 0.8970483946339658, 1e-13));
        let margin = stats.margin.unwrap();
        assert_eq!(margin.n, 12);
        assert!(close(margin.mean, 2.5833333333333335, 1e-13));
        assert!(close(margin.stderr, 1.509858177833838, 1e-13));
        assert!(close(margin.lo, -0.37593431698426105, 1e-12));
        assert!(close(margin.hi, 5.542600983650928, 1e-12));
    }

    #[test]
    fn empty_input() {
        let stats = FirstPlayerStats::from_games(std::iter::empty()).unwrap();
        assert_eq!(stats.wdl, Wdl::default());
        assert_eq!(stats.score, None);
        assert_eq!(stats.score_interval, (0.0, 1.0));
        assert_eq!(stats.elo, None);
        assert_eq!(stats.los, 0.5);
        assert_eq!(stats.margin, None);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            FirstPlayerStats::from_games([(0.25, 1.0)]),
            Err(StatsError::InvalidScore(0.25))
        );
        assert!(matches!(
            FirstPlayerStats::from_games([(1.0, f64::NAN)]),
            Err(StatsError::InvalidMargin(m)) if m.is_nan()
        ));
    }

    #[test]
    fn results_and_margins_may_cover_different_games() {
        // Three results, one of them a forfeit without a margin.
        let stats = FirstPlayerStats::new([1.0, 0.0, 1.0], [5.0, -3.0]).unwrap();
        assert_eq!(stats.wdl, Wdl::new(2, 0, 1));
        let margin = stats.margin.unwrap();
        assert_eq!((margin.n, margin.mean), (2, 1.0));
        let stats = FirstPlayerStats::new([0.5], []).unwrap();
        assert_eq!(stats.margin, None);
        assert_eq!(
            FirstPlayerStats::new([1.0], [f64::INFINITY]),
            Err(StatsError::InvalidMargin(f64::INFINITY))
        );
    }

    #[test]
    fn infinite_bounds_are_strings_in_json() {
        // The first seat won everything: Elo and both bounds are +inf, and
        // the single margin has an unbounded interval.
        let stats = FirstPlayerStats::new([1.0, 1.0, 1.0], [4.0]).unwrap();
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(json["elo"]["elo"], "inf");
        assert_eq!(json["elo"]["lo"], "inf");
        assert_eq!(json["elo"]["hi"], "inf");
        assert_eq!(json["elo"]["error"], "inf");
        assert_eq!(json["margin"]["mean"], 4.0);
        assert_eq!(json["margin"]["lo"], "-inf");
        assert_eq!(json["margin"]["hi"], "inf");
        let stats = FirstPlayerStats::new([0.0, 0.0, 0.5], []).unwrap();
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(json["elo"]["lo"], "-inf");
        assert!(json["elo"]["hi"].is_number(), "{json}");
        assert!(json["margin"].is_null());
    }

    #[test]
    fn serializable() {
        fn assert_serialize<T: Serialize>() {}
        assert_serialize::<FirstPlayerStats>();
    }
}
