//! Pentanomial counts: results of game pairs rather than of single games.
//!
//! Every opening is played twice by the same two agents, seats swapped
//! (see the arena's `schedule`). The two games of a pair share their
//! opening, so their results are correlated: an opening that favours the
//! first seat gives each agent one easy game and one hard one. Counting the
//! pair's total instead of the single games removes that shared part from
//! the variance, which is what makes the pair-based Elo interval (and the
//! SPRT of [`super::Sprt`]) narrower than the game-based one and right.
//!
//! A pair scores 0, ½, 1, 1½ or 2 points for one agent: LL, LD, DD or WL,
//! WD, WW. The middle category is the pentanomial's `DD+WL`; both parts are
//! kept here, since how often pairs split one win each says how much the
//! openings (or the first move) decide.

use std::ops::{Add, AddAssign};

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::wdl::{elo_from_score, EloEstimate, Wdl};
use super::{StatsError, Z95};

/// The mean game score of a pair in each pentanomial category, in order LL,
/// LD, DD+WL, WD, WW: the pair's points over its two games.
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// How many pairs of games ended in each way, from one side's point of view.
///
/// In JSON: `{"ll", "ld", "dd_wl", "wd", "ww", "dd", "wl"}`, the five
/// pentanomial counts first, then the two parts of `dd_wl`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs lost twice (0 points).
    pub ll: u64,
    /// Pairs with a loss and a draw (½ point).
    pub ld: u64,
    /// Pairs with two draws (1 point).
    pub dd: u64,
    /// Pairs with a win and a loss (1 point).
    pub wl: u64,
    /// Pairs with a win and a draw (1½ points).
    pub wd: u64,
    /// Pairs won twice (2 points).
    pub ww: u64,
}

impl Pentanomial {
    /// Counts from explicit numbers.
    pub const fn new(ll: u64, ld: u64, dd: u64, wl: u64, wd: u64, ww: u64) -> Self {
        Self {
            ll,
            ld,
            dd,
            wl,
            wd,
            ww,
        }
    }

    /// Adds one pair from this side's scores in its two games (each `1.0`,
    /// `0.5` or `0.0`; the order does not matter).
    ///
    /// # Errors
    /// [`StatsError::InvalidScore`] for any other score; nothing is counted then.
    pub fn record_pair(&mut self, first: f64, second: f64) -> Result<(), StatsError> {
        let points = |score: f64| -> Result<u8, StatsError> {
            if score == 1.0 {
                Ok(2)
            } else if score == 0.5 {
                Ok(1)
            } else if score == 0.0 {
                Ok(0)
            } else {
                Err(StatsError::InvalidScore(score))
            }
        };
        let (a, b) = (points(first)?, points(second)?);
        match (a + b, a == b) {
            (0, _) => self.ll += 1,
            (1, _) => self.ld += 1,
            (2, true) => self.dd += 1,
            (2, false) => self.wl += 1,
            (3, _) => self.wd += 1,
            _ => self.ww += 1,
        }
        Ok(())
    }

    /// The five pentanomial counts `[LL, LD, DD+WL, WD, WW]`, by pair
    /// score (see [`PAIR_SCORES`]).
    pub fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.dd + self.wl, self.wd, self.ww]
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// The single games of these pairs, as win/draw/loss counts.
    pub fn games(&self) -> Wdl {
        Wdl::new(
            2 * self.ww + self.wd + self.wl,
            self.ld + 2 * self.dd + self.wd,
            2 * self.ll + self.ld + self.wl,
        )
    }

    /// The same pairs seen from the opponent's side.
    pub fn swapped(&self) -> Self {
        Self::new(self.ww, self.wd, self.dd, self.wl, self.ld, self.ll)
    }

    /// Mean game score over the pairs, in `[0, 1]` (the same as the games'
    /// points fraction); `None` without pairs.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| {
            let points: f64 = self
                .counts()
                .iter()
                .zip(PAIR_SCORES)
                .map(|(&n, a)| n as f64 * a)
                .sum();
            points / pairs as f64
        })
    }

    /// Variance of the pair score (the mean game score of a pair, in
    /// `[0, 1]`) over the pairs, dividing by the number of pairs; `None`
    /// without pairs.
    pub fn pair_variance(&self) -> Option<f64> {
        let mean = self.score()?;
        let pairs = self.pairs() as f64;
        let squares: f64 = self
            .counts()
            .iter()
            .zip(PAIR_SCORES)
            .map(|(&n, a)| n as f64 * (a - mean).powi(2))
            .sum();
        Some(squares / pairs)
    }

    /// Elo difference with a 95% interval computed from the pairs (logistic
    /// Elo, `400 log10(s / (1 - s))`, as [`Wdl::elo`] and fastchess).
    ///
    /// The score `s` is the mean pair score, its standard error
    /// `sqrt(pair variance / pairs)`, and the interval is the Elo of the
    /// score interval's ends, `s ± Z95 * stderr` (transformed ends, not the
    /// delta method, so it is asymmetric as it should be and reaches
    /// `±inf` when an end leaves `(0, 1)`). With paired openings this
    /// variance is the right one: the game-based [`Wdl::elo`] treats the
    /// two games of a pair as independent and is usually too wide.
    ///
    /// `None` without pairs. When every pair has the same result the
    /// variance is 0: the interval is the point estimate itself (`±inf`
    /// for all WW or all LL), and [`EloEstimate::error`] is 0 (or `+inf`).
    pub fn elo(&self) -> Option<EloEstimate> {
        let score = self.score()?;
        let score_stderr = (self.pair_variance()? / self.pairs() as f64).sqrt();
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
}

impl Add for Pentanomial {
    type Output = Pentanomial;

    fn add(self, other: Pentanomial) -> Pentanomial {
        Pentanomial::new(
            self.ll + other.ll,
            self.ld + other.ld,
            self.dd + other.dd,
            self.wl + other.wl,
            self.wd + other.wd,
            self.ww + other.ww,
        )
    }
}

impl AddAssign for Pentanomial {
    fn add_assign(&mut self, other: Pentanomial) {
        *self = *self + other;
    }
}

impl Serialize for Pentanomial {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Pentanomial", 7)?;
        s.serialize_field("ll", &self.ll)?;
        s.serialize_field("ld", &self.ld)?;
        s.serialize_field("dd_wl", &(self.dd + self.wl))?;
        s.serialize_field("wd", &self.wd)?;
        s.serialize_field("ww", &self.ww)?;
        s.serialize_field("dd", &self.dd)?;
        s.serialize_field("wl", &self.wl)?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for Pentanomial {
    /// Reads what [`Serialize`] writes; `dd_wl` must be `dd + wl`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            ll: u64,
            ld: u64,
            dd_wl: u64,
            wd: u64,
            ww: u64,
            dd: u64,
            wl: u64,
        }
        let w = Written::deserialize(deserializer)?;
        if w.dd.checked_add(w.wl) != Some(w.dd_wl) {
            return Err(serde::de::Error::custom(format!(
                "dd_wl {} is not dd {} + wl {}",
                w.dd_wl, w.dd, w.wl
            )));
        }
        Ok(Pentanomial::new(w.ll, w.ld, w.dd, w.wl, w.wd, w.ww))
    }
}

/// The pairs two agents played, from the first agent's side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PairedResults {
    /// Counts of the complete pairs.
    pub pentanomial: Pentanomial,
    /// Pairs left out because one game is missing (an interrupted run, an
    /// odd number of games) or the two games do not form a pair.
    pub incomplete_pairs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        got == want || (got - want).abs() <= tol
    }

    #[test]
    fn pairs_are_classified_by_their_total() {
        let mut p = Pentanomial::default();
        for (a, b) in [
            (0.0, 0.0),
            (0.5, 0.0),
            (0.0, 0.5),
            (0.5, 0.5),
            (1.0, 0.0),
            (0.0, 1.0),
            (1.0, 0.5),
            (1.0, 1.0),
        ] {
            p.record_pair(a, b).unwrap();
        }
        assert_eq!(p, Pentanomial::new(1, 2, 1, 2, 1, 1));
        assert_eq!(p.counts(), [1, 2, 3, 1, 1]);
        assert_eq!(p.pairs(), 8);
        assert_eq!(p.games(), Wdl::new(5, 5, 6));
        assert_eq!(p.swapped(), Pentanomial::new(1, 1, 1, 2, 2, 1));
        assert_eq!(p.swapped().games(), p.games().swapped());
        assert_eq!(p.score(), Some(0.46875));
        assert_eq!(p.score(), p.games().score());
        assert_eq!(p + p, Pentanomial::new(2, 4, 2, 4, 2, 2));
        assert_eq!(
            p.record_pair(0.25, 1.0),
            Err(StatsError::InvalidScore(0.25))
        );
        assert_eq!(p.pairs(), 8, "a rejected pair is not counted");
    }

    #[test]
    fn json_names_the_five_counts_and_the_parts_of_the_middle_one() {
        let json = serde_json::to_string(&Pentanomial::new(1, 2, 3, 4, 5, 6)).unwrap();
        assert_eq!(
            json,
            r#"{"ll":1,"ld":2,"dd_wl":7,"wd":5,"ww":6,"dd":3,"wl":4}"#
        );
        let back: Pentanomial = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Pentanomial::new(1, 2, 3, 4, 5, 6));
        // A middle count that is not the sum of its parts is refused.
        let bad = r#"{"ll":1,"ld":2,"dd_wl":8,"wd":5,"ww":6,"dd":3,"wl":4}"#;
        let e = serde_json::from_str::<Pentanomial>(bad).unwrap_err();
        assert!(e.to_string().contains("dd_wl 8 is not dd 3 + wl 4"), "{e}");
    }

    /// python3, independently: a = [0, .25, .5, .75, 1]; n = sum(c);
    /// s = sum(c_i a_i)/n; var = sum(c_i (a_i - s)^2)/n; se = sqrt(var/n);
    /// elo(x) = -400*log10(1/x - 1) at s, s - 1.959963984540054*se and
    /// s + 1.959963984540054*se.
    #[test]
    fn pair_elo_matches_reference() {
        let cases: &[([u64; 6], f64, f64, f64, f64)] = &[
            // counts (ll, ld, dd, wl, wd, ww), score, elo, lo, hi
            (
                [10, 30, 40, 20, 30, 10],
                0.5,
                0.0,
                -28.8419347768397,
                28.84193477683966,
            ),
            (
                [5, 20, 25, 15, 45, 20],
                0.6057692307692307,
                74.62267709353844,
                42.52674644801699,
                108.02808271214725,
            ),
            (
                [0, 1, 0, 2, 3, 14],
                0.875,
                338.0392160057028,
                219.9838443262519,
                603.1829699291541,
            ),
        ];
        for &([ll, ld, dd, wl, wd, ww], score, elo, lo, hi) in cases {
            let p = Pentanomial::new(ll, ld, dd, wl, wd, ww);
            let e = p.elo().unwrap();
            assert!(close(e.score, score, 1e-15), "{p:?}: {e:?}");
            assert!(close(e.elo, elo, 1e-9), "{p:?}: {e:?}");
            assert!(close(e.lo, lo, 1e-9), "{p:?}: {e:?}");
            assert!(close(e.hi, hi, 1e-9), "{p:?}: {e:?}");
        }
    }

    #[test]
    fn pairs_narrow_the_interval_when_openings_decide() {
        // Every pair a win each (the first seat always wins): as games,
        // 50% with a wide interval; as pairs, exactly even.
        let p = Pentanomial::new(0, 0, 0, 50, 0, 0);
        let by_games = p.games().elo().unwrap();
        let by_pairs = p.elo().unwrap();
        assert!(by_games.hi > 60.0, "{by_games:?}");
        assert_eq!((by_pairs.lo, by_pairs.elo, by_pairs.hi), (0.0, 0.0, 0.0));
    }

    #[test]
    fn degenerate_counts_give_infinities_not_nan() {
        assert_eq!(Pentanomial::default().elo(), None);
        assert_eq!(Pentanomial::default().score(), None);
        let all_ww = Pentanomial::new(0, 0, 0, 0, 0, 7).elo().unwrap();
        assert_eq!(
            (all_ww.elo, all_ww.lo, all_ww.hi, all_ww.error),
            (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY)
        );
        assert_eq!(all_ww.score_stderr, 0.0);
        let json = serde_json::to_value(all_ww).unwrap();
        assert_eq!(json["elo"], "inf");
        assert_eq!(json["error"], "inf");
        let all_ll = Pentanomial::new(3, 0, 0, 0, 0, 0).elo().unwrap();
        assert_eq!(all_ll.hi, f64::NEG_INFINITY);
        let all_wd = Pentanomial::new(0, 0, 0, 0, 4, 0).elo().unwrap();
        assert!(
            all_wd.elo.is_finite() && all_wd.lo == all_wd.hi,
            "{all_wd:?}"
        );
        assert_eq!(all_wd.error, 0.0);
        let one = Pentanomial::new(0, 1, 0, 0, 0, 0).elo().unwrap();
        assert!(one.elo < 0.0 && one.elo.is_finite(), "{one:?}");
    }
}
