//! The generalized sequential probability ratio test (GSPRT) on pentanomial
//! data, as fishtest, OpenBench and fastchess run it.
//!
//! The test asks whether one agent is `elo0` or `elo1` Elo stronger than
//! the other (H0 against H1), playing pairs of games until the evidence
//! settles it with error rates `alpha` (accepting H1 when H0 holds) and
//! `beta` (accepting H0 when H1 holds).
//!
//! **Elo model: logistic.** `elo0` and `elo1` are logistic Elo, the scale
//! of [`super::elo_from_score`]: a difference `e` means an expected game
//! score of `1 / (1 + 10^(-e / 400))`. (fastchess defaults to normalized
//! Elo, fishtest and OpenBench offer both; normalized Elo is not offered
//! here: its maximum-likelihood fit is a fixed-point iteration that does
//! not converge on the lopsided pair counts common between bots.)
//!
//! **The log-likelihood ratio** (Michel Van den Bergh, "Comments on
//! normalized Elo", proposition 1.1; "GSPRT approximation"). The data are
//! the pentanomial frequencies `p_i` of the pair scores
//! `a = [0, 1/4, 1/2, 3/4, 1]` over `N` pairs. Under a hypothesis "the
//! expected pair score is `s`" the maximum-likelihood distribution is
//!
//! ```text
//! q_i = p_i / (1 + θ (a_i - s)),   with θ the root of
//! Σ p_i (a_i - s) / (1 + θ (a_i - s)) = 0,
//! ```
//!
//! and `LLR = N Σ p_i ln(q1_i / q0_i)` for `s0`, `s1` the scores of `elo0`
//! and `elo1`. The root is found by Newton's method safeguarded by
//! bisection on the interval where every `1 + θ (a_i - s)` is positive (the
//! function falls from `+inf` to `-inf` there, so the root is unique and
//! always bracketed). Empty categories are counted as 0.001 pairs, as
//! fishtest and fastchess do, so that the fit never has to put zero
//! probability anywhere; `N` includes these.
//!
//! For many pairs the LLR approaches the normal approximation
//! `N (s1 - s0) (2 mean - s0 - s1) / (2 var)` ([`llr_normal_approximation`]).
//!
//! **Bounds.** The test accepts H1 when `LLR >= ln((1 - beta) / alpha)` and
//! H0 when `LLR <= ln(beta / (1 - alpha))` (Wald's bounds).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::pentanomial::{Pentanomial, PAIR_SCORES};
use super::StatsError;

/// Pairs an empty pentanomial category counts as in the LLR (fishtest's
/// and fastchess' regularisation).
pub const EMPTY_CATEGORY_PAIRS: f64 = 1e-3;

/// Largest `|elo0|`, `|elo1|` accepted: beyond it the expected score is
/// within 0.3% of 0 or 1 and no match of bots needs a finer test.
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// The keys of an SPRT spec, in the order they are written.
pub const SPRT_KEYS: [&str; 5] = ["elo0", "elo1", "alpha", "beta", "model"];

/// An SPRT's hypotheses and error rates: `elo0=0,elo1=10,alpha=0.05,beta=0.05`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtSpec {
    /// Logistic Elo difference of H0.
    pub elo0: f64,
    /// Logistic Elo difference of H1, greater than `elo0`.
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds, in `(0, 0.5)`.
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds, in `(0, 0.5)`.
    pub beta: f64,
}

/// What is wrong with an SPRT spec; every message names the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SprtSpecError {
    /// A part without `=`.
    #[error("`{0}` is not key=value (expected elo0=0,elo1=10,alpha=0.05,beta=0.05)")]
    NotKeyValue(String),
    /// A key that is not one of [`SPRT_KEYS`].
    #[error("unknown key `{0}` (the keys are elo0, elo1, alpha, beta and optionally model)")]
    UnknownKey(String),
    /// A key given twice.
    #[error("key `{0}` is given twice")]
    Repeated(&'static str),
    /// One of the four required keys is missing.
    #[error("key `{0}` is missing (expected elo0=0,elo1=10,alpha=0.05,beta=0.05)")]
    Missing(&'static str),
    /// A value that is not a finite number.
    #[error("key `{key}`: `{value}` is not a finite number")]
    NotANumber {
        /// The key.
        key: &'static str,
        /// Its value as written.
        value: String,
    },
    /// A value outside its range.
    #[error("key `{key}`: {value} is out of range: {range}")]
    OutOfRange {
        /// The key.
        key: &'static str,
        /// Its value.
        value: f64,
        /// The range it must be in, in words.
        range: &'static str,
    },
    /// `elo1` not above `elo0`.
    #[error("key `elo1`: {elo1} must be greater than elo0 ({elo0})")]
    NotOrdered {
        /// The value of `elo0`.
        elo0: f64,
        /// The value of `elo1`.
        elo1: f64,
    },
    /// A `model` other than `logistic`.
    #[error(
        "key `model`: `{0}` is not available; the only model is `logistic` \
         (elo0 and elo1 are logistic Elo)"
    )]
    Model(String),
}

impl FromStr for SprtSpec {
    type Err = SprtSpecError;

    /// Parses `elo0=A,elo1=B,alpha=X,beta=Y` (any order, spaces allowed
    /// around keys and values); `model=logistic` may be added.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut values: [Option<f64>; 4] = [None; 4];
        let mut model_seen = false;
        for part in text.split(',') {
            let part = part.trim();
            let Some((key, value)) = part.split_once('=') else {
                return Err(SprtSpecError::NotKeyValue(clip(part)));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(index) = SPRT_KEYS.iter().position(|k| *k == key) else {
                return Err(SprtSpecError::UnknownKey(clip(key)));
            };
            let key = SPRT_KEYS[index];
            if index == 4 {
                if model_seen {
                    return Err(SprtSpecError::Repeated(key));
                }
                model_seen = true;
                if value != "logistic" {
                    return Err(SprtSpecError::Model(clip(value)));
                }
                continue;
            }
            if values[index].is_some() {
                return Err(SprtSpecError::Repeated(key));
            }
            let number = value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| SprtSpecError::NotANumber {
                    key,
                    value: clip(value),
                })?;
            values[index] = Some(number);
        }
        let get = |i: usize| values[i].ok_or(SprtSpecError::Missing(SPRT_KEYS[i]));
        let spec = SprtSpec {
            elo0: get(0)?,
            elo1: get(1)?,
            alpha: get(2)?,
            beta: get(3)?,
        };
        spec.validate()?;
        Ok(spec)
    }
}

/// At most 40 characters of user input in a message, so that a huge
/// argument is not echoed back whole.
fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

impl SprtSpec {
    /// Checks the ranges: `|elo| <= MAX_SPRT_ELO`, `elo0 < elo1`, `alpha`
    /// and `beta` in `(0, 0.5)`.
    ///
    /// # Errors
    /// The first value out of range, by key.
    pub fn validate(&self) -> Result<(), SprtSpecError> {
        for (key, value) in [("elo0", self.elo0), ("elo1", self.elo1)] {
            if value.is_nan() || value.abs() > MAX_SPRT_ELO {
                return Err(SprtSpecError::OutOfRange {
                    key,
                    value,
                    range: "Elo from -1000 to 1000",
                });
            }
        }
        for (key, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if value.is_nan() || value <= 0.0 || value >= 0.5 {
                return Err(SprtSpecError::OutOfRange {
                    key,
                    value,
                    range: "an error rate greater than 0 and less than 0.5",
                });
            }
        }
        if self.elo0 >= self.elo1 {
            return Err(SprtSpecError::NotOrdered {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        Ok(())
    }

    /// The LLR at or below which H0 is accepted: `ln(beta / (1 - alpha))`.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The LLR at or above which H1 is accepted: `ln((1 - beta) / alpha)`.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The exact GSPRT log-likelihood ratio of H1 against H0 for these
    /// pentanomial counts `[LL, LD, DD+WL, WD, WW]` (see the module docs).
    pub fn llr(&self, counts: [u64; 5]) -> f64 {
        pentanomial_llr(counts, self.elo0, self.elo1)
    }

    /// Where an LLR stands against the bounds.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

impl fmt::Display for SprtSpec {
    /// The spec as it is parsed: `elo0=0,elo1=10,alpha=0.05,beta=0.05`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// Expected game score of a logistic Elo difference, `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The exact GSPRT log-likelihood ratio of "logistic Elo `elo1`" against
/// "logistic Elo `elo0`" for pentanomial counts `[LL, LD, DD+WL, WD, WW]`
/// (see the module docs for the formula and the regularisation).
///
/// 0 without pairs. Elo values must lie in `[-MAX_SPRT_ELO, MAX_SPRT_ELO]`
/// (as [`SprtSpec::validate`] checks); outside it the result is not
/// meaningful (but still finite or NaN-free for finite input).
pub fn pentanomial_llr(counts: [u64; 5], elo0: f64, elo1: f64) -> f64 {
    if counts.iter().all(|&n| n == 0) {
        return 0.0;
    }
    let regularised = counts.map(|n| {
        if n == 0 {
            EMPTY_CATEGORY_PAIRS
        } else {
            n as f64
        }
    });
    let total: f64 = regularised.iter().sum();
    let freq = regularised.map(|n| n / total);
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    let theta0 = lagrange_multiplier(&freq, s0);
    let theta1 = lagrange_multiplier(&freq, s1);
    // ln(q1_i / q0_i) = ln(1 + θ0 (a_i - s0)) - ln(1 + θ1 (a_i - s1)),
    // the p_i cancelling; ln_1p keeps precision for the small θ of close
    // hypotheses.
    let per_pair: f64 = freq
        .iter()
        .zip(PAIR_SCORES)
        .map(|(&p, a)| p * ((theta0 * (a - s0)).ln_1p() - (theta1 * (a - s1)).ln_1p()))
        .sum();
    total * per_pair
}

/// The root θ of `f(θ) = Σ p_i (a_i - s) / (1 + θ (a_i - s))` for
/// frequencies `p` that are all positive and `0 < s < 1`.
///
/// On `(-1 / (1 - s), 1 / s)`, where every denominator is positive, `f`
/// falls strictly from `+inf` to `-inf`, so the root is unique. Newton's
/// method converges fast near it; a step that would leave the current
/// bracket is replaced by bisection, so the iteration cannot escape or
/// cycle.
fn lagrange_multiplier(p: &[f64; 5], s: f64) -> f64 {
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    let mut theta = 0.0;
    for _ in 0..200 {
        let (mut f, mut slope) = (0.0, 0.0);
        for (&pi, a) in p.iter().zip(PAIR_SCORES) {
            let c = a - s;
            let d = 1.0 + theta * c;
            f += pi * c / d;
            slope -= pi * c * c / (d * d);
        }
        if f == 0.0 {
            return theta;
        }
        // f falls, so a positive value means the root lies above theta.
        if f > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let newton = theta - f / slope;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let converged = (next - theta).abs() <= 4.0 * f64::EPSILON * theta.abs().max(1.0);
        theta = next;
        if converged || hi <= lo {
            break;
        }
    }
    theta
}

/// The normal approximation of the LLR,
/// `N (s1 - s0) (2 mean - s0 - s1) / (2 var)`, with `mean` and `var` the
/// mean and variance of the pair score (no regularisation). The exact
/// [`pentanomial_llr`] approaches it for many pairs; `None` without pairs
/// or when every pair scored the same (zero variance).
pub fn llr_normal_approximation(pairs: &Pentanomial, elo0: f64, elo1: f64) -> Option<f64> {
    let mean = pairs.score()?;
    let var = pairs.pair_variance()?;
    if var <= 0.0 {
        return None;
    }
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    Some(pairs.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var))
}

/// Where an SPRT stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum SprtDecision {
    /// Neither bound reached: play more pairs.
    #[serde(rename = "continue")]
    Continue,
    /// The LLR reached the lower bound: H0 (`elo0`) is accepted.
    #[serde(rename = "H0")]
    AcceptH0,
    /// The LLR reached the upper bound: H1 (`elo1`) is accepted.
    #[serde(rename = "H1")]
    AcceptH1,
}

impl SprtDecision {
    /// Whether the test has stopped.
    pub fn is_final(self) -> bool {
        self != SprtDecision::Continue
    }
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "no decision",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        })
    }
}

/// A running SPRT, fed one pair at a time (in a fixed order, so that the
/// pair where it stops is the same however the games were played).
///
/// Once a bound is reached the decision is final and later pairs are not
/// counted: [`Sprt::pentanomial`] then holds exactly the pairs up to the
/// one that decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Sprt {
    spec: SprtSpec,
    pentanomial: Pentanomial,
    llr: f64,
    decision: SprtDecision,
}

impl Sprt {
    /// A test with no pairs yet (LLR 0).
    pub fn new(spec: SprtSpec) -> Self {
        Self {
            spec,
            pentanomial: Pentanomial::default(),
            llr: 0.0,
            decision: SprtDecision::Continue,
        }
    }

    /// Adds one pair from the first agent's scores in its two games (each
    /// 1, ½ or 0), updates the LLR and returns the decision. After a
    /// decision this does nothing and returns it again.
    ///
    /// # Errors
    /// [`StatsError::InvalidScore`] for a score other than 1, ½ or 0.
    pub fn add_pair(&mut self, first: f64, second: f64) -> Result<SprtDecision, StatsError> {
        if self.decision.is_final() {
            return Ok(self.decision);
        }
        self.pentanomial.record_pair(first, second)?;
        self.llr = self.spec.llr(self.pentanomial.counts());
        self.decision = self.spec.decide(self.llr);
        Ok(self.decision)
    }

    /// The hypotheses and error rates.
    pub fn spec(&self) -> &SprtSpec {
        &self.spec
    }

    /// The pairs counted so far.
    pub fn pentanomial(&self) -> &Pentanomial {
        &self.pentanomial
    }

    /// The current log-likelihood ratio.
    pub fn llr(&self) -> f64 {
        self.llr
    }

    /// The current decision.
    pub fn decision(&self) -> SprtDecision {
        self.decision
    }

    /// A serialisable snapshot for reports.
    pub fn status(&self) -> SprtStatus {
        SprtStatus {
            elo0: self.spec.elo0,
            elo1: self.spec.elo1,
            alpha: self.spec.alpha,
            beta: self.spec.beta,
            model: "logistic",
            lower_bound: self.spec.lower_bound(),
            upper_bound: self.spec.upper_bound(),
            llr: self.llr,
            decision: self.decision,
            pairs: self.pentanomial.pairs(),
        }
    }
}

/// Where an SPRT stands, for reports (every number is finite).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtStatus {
    /// Logistic Elo of H0.
    pub elo0: f64,
    /// Logistic Elo of H1.
    pub elo1: f64,
    /// Error rate of accepting H1 under H0.
    pub alpha: f64,
    /// Error rate of accepting H0 under H1.
    pub beta: f64,
    /// The Elo model, always `logistic`.
    pub model: &'static str,
    /// `ln(beta / (1 - alpha))`.
    pub lower_bound: f64,
    /// `ln((1 - beta) / alpha)`.
    pub upper_bound: f64,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// `"H0"`, `"H1"` or `"continue"`.
    pub decision: SprtDecision,
    /// Pairs counted.
    pub pairs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> SprtSpec {
        text.parse().unwrap()
    }

    fn error(text: &str) -> String {
        text.parse::<SprtSpec>().unwrap_err().to_string()
    }

    #[test]
    fn parses_a_spec_in_any_order() {
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        assert_eq!(
            s,
            SprtSpec {
                elo0: 0.0,
                elo1: 10.0,
                alpha: 0.05,
                beta: 0.05
            }
        );
        assert_eq!(s.to_string(), "elo0=0,elo1=10,alpha=0.05,beta=0.05");
        assert_eq!(s.to_string().parse::<SprtSpec>().unwrap(), s);
        let t = spec(" beta=0.1, alpha = 0.01,elo1=5.5,elo0=-2.5,model=logistic");
        assert_eq!((t.elo0, t.elo1, t.alpha, t.beta), (-2.5, 5.5, 0.01, 0.1));
    }

    #[test]
    fn bad_specs_name_the_key() {
        let cases = [
            ("elo0=0,elo1=10,alpha=0.05", "`beta` is missing"),
            (
                "elo0=0,elo1=10,alpha=0.05,beta=0.05,gamma=1",
                "unknown key `gamma`",
            ),
            (
                "elo0=0,elo1=10,elo1=5,alpha=0.05,beta=0.05",
                "`elo1` is given twice",
            ),
            ("elo0=10,elo1=10,alpha=0.05,beta=0.05", "key `elo1`"),
            ("elo0=20,elo1=10,alpha=0.05,beta=0.05", "greater than elo0"),
            ("elo0=0,elo1=10,alpha=0.5,beta=0.05", "key `alpha`"),
            ("elo0=0,elo1=10,alpha=0,beta=0.05", "key `alpha`"),
            ("elo0=0,elo1=10,alpha=0.05,beta=-1", "key `beta`"),
            ("elo0=0,elo1=ten,alpha=0.05,beta=0.05", "key `elo1`: `ten`"),
            ("elo0=nan,elo1=10,alpha=0.05,beta=0.05", "key `elo0`"),
            ("elo0=0,elo1=inf,alpha=0.05,beta=0.05", "key `elo1`"),
            ("elo0=0,elo1=5000,alpha=0.05,beta=0.05", "key `elo1`"),
            ("elo0=0,elo1=10,alpha=0.05,beta", "`beta` is not key=value"),
            ("", "is not key=value"),
            (
                "elo0=0,elo1=10,alpha=0.05,beta=0.05,model=normalized",
                "key `model`",
            ),
        ];
        for (text, expected) in cases {
            let e = error(text);
            assert!(e.contains(expected), "{text}: {e}");
        }
        let long = format!("elo0={},elo1=1,alpha=0.05,beta=0.05", "9".repeat(5000));
        assert!(error(&long).len() < 200, "{}", error(&long));
    }

    #[test]
    fn bounds_are_walds() {
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        // python3: math.log(0.05 / 0.95), math.log(0.95 / 0.05)
        assert!((s.lower_bound() - -2.9444389791664403).abs() < 1e-15);
        assert!((s.upper_bound() - 2.9444389791664403).abs() < 1e-15);
        let s = spec("elo0=0,elo1=10,alpha=0.01,beta=0.1");
        assert!((s.lower_bound() - (0.1f64 / 0.99).ln()).abs() < 1e-15);
        assert!((s.upper_bound() - (0.9f64 / 0.01).ln()).abs() < 1e-15);
        assert_eq!(s.decide(0.0), SprtDecision::Continue);
        assert_eq!(s.decide(s.upper_bound()), SprtDecision::AcceptH1);
        assert_eq!(s.decide(s.lower_bound()), SprtDecision::AcceptH0);
    }

    /// LLRs computed by scripts/sprt_reference.py (python3, standard
    /// library), which maximises the concave dual
    /// `g(θ) = Σ p ln(1 + θ (a - s))` by golden-section search and takes
    /// `LLR = N (max g0 - max g1)`: a different formula and a different
    /// numerical method from the Newton root and primal sum here.
    const REFERENCE: &[([u64; 5], f64, f64, f64)] = &[
        ([10, 30, 60, 30, 10], 0.0, 10.0, -0.2315568386941761),
        ([5, 20, 40, 45, 20], 0.0, 10.0, 2.298951170263981),
        ([0, 0, 3, 10, 37], 0.0, 20.0, 2.7954137432766215),
        ([0, 0, 0, 0, 12], 0.0, 20.0, 0.6710128422877191),
        ([40, 0, 0, 0, 0], -10.0, 10.0, -2.3027002097697875),
        ([3, 150, 900, 160, 2], -5.0, 5.0, 1.67880528911739),
        ([1, 2, 3, 4, 5], 0.0, 50.0, 1.1682232721608403),
        (
            [223, 9863, 21279, 10037, 246],
            0.5,
            2.5,
            -3.0741264395893437,
        ),
        (
            [871, 26175, 55983, 26678, 821],
            0.0,
            2.0,
            -4.978672863449041,
        ),
    ];

    #[test]
    fn llr_matches_the_independent_reference() {
        for &(counts, elo0, elo1, want) in REFERENCE {
            let got = pentanomial_llr(counts, elo0, elo1);
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{counts:?} {elo0}..{elo1}: {got} vs {want}"
            );
        }
    }

    /// fastchess' tests/sprt_test.cpp ("logistic pentanomial 1" and "2"):
    /// `Stats(ll, ld, wl, dd, wd, ww)`, checked there to doctest's
    /// default tolerance, `0.01 * (1 + |value|)`.
    #[test]
    fn llr_matches_fastchess_published_values() {
        let cases = [
            ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, -3.07),
            ([871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, -4.98),
        ];
        for (counts, elo0, elo1, published) in cases {
            let got = pentanomial_llr(counts, elo0, elo1);
            assert!(
                (got - published).abs() <= 0.01 * (1.0 + published.abs()),
                "{counts:?}: {got} vs {published}"
            );
            // To the two decimals published.
            assert_eq!(format!("{got:.2}"), format!("{published:.2}"));
        }
    }

    #[test]
    fn llr_approaches_the_normal_approximation_for_many_pairs() {
        // scripts/sprt_reference.py: exact 5.696304830832444,
        // approximation 5.7016080298453415.
        let counts = [20_000, 60_000, 100_000, 62_000, 21_000];
        let exact = pentanomial_llr(counts, 0.0, 5.0);
        assert!((exact - 5.696304830832444).abs() < 1e-8, "{exact}");
        let p = Pentanomial::new(20_000, 60_000, 100_000, 0, 62_000, 21_000);
        let approx = llr_normal_approximation(&p, 0.0, 5.0).unwrap();
        assert!((approx - 5.7016080298453415).abs() < 1e-9, "{approx}");
        assert!(
            (exact - approx).abs() < 0.002 * approx.abs(),
            "{exact} vs {approx}"
        );
        // Scaling the counts scales both, and they stay within 0.2%.
        for scale in [1u64, 3, 10] {
            let counts = [
                2000 * scale,
                6000 * scale,
                10_000 * scale,
                6300 * scale,
                2100 * scale,
            ];
            let p = Pentanomial::new(counts[0], counts[1], counts[2], 0, counts[3], counts[4]);
            let exact = pentanomial_llr(counts, -3.0, 3.0);
            let approx = llr_normal_approximation(&p, -3.0, 3.0).unwrap();
            assert!(
                (exact - approx).abs() < 0.002 * approx.abs(),
                "x{scale}: {exact} vs {approx}"
            );
        }
        assert_eq!(
            llr_normal_approximation(&Pentanomial::new(0, 0, 0, 0, 0, 9), 0.0, 5.0),
            None
        );
    }

    #[test]
    fn llr_is_finite_and_monotone_at_the_extremes() {
        assert_eq!(pentanomial_llr([0; 5], 0.0, 10.0), 0.0);
        for counts in [
            [1, 0, 0, 0, 0],
            [0, 0, 0, 0, 1],
            [0, 0, 1, 0, 0],
            [1_000_000, 0, 0, 0, 0],
            [0, 0, 0, 0, 1_000_000],
            [0, 7, 0, 0, 0],
        ] {
            for (elo0, elo1) in [
                (0.0, 10.0),
                (-1000.0, 1000.0),
                (990.0, 1000.0),
                (-1000.0, -999.0),
            ] {
                let llr = pentanomial_llr(counts, elo0, elo1);
                assert!(llr.is_finite(), "{counts:?} {elo0}..{elo1}: {llr}");
            }
        }
        // More wins, more evidence for H1.
        let mut last = f64::NEG_INFINITY;
        for ww in 0..50 {
            let llr = pentanomial_llr([10, 10, 20, 10, 10 + ww], 0.0, 10.0);
            assert!(llr > last, "ww {ww}: {llr} after {last}");
            last = llr;
        }
        // Symmetry: swapping sides and hypotheses flips the sign.
        let counts = [7, 31, 52, 40, 12];
        let swapped = [12, 40, 52, 31, 7];
        let a = pentanomial_llr(counts, -2.0, 8.0);
        let b = pentanomial_llr(swapped, -8.0, 2.0);
        assert!((a + b).abs() < 1e-10, "{a} {b}");
    }

    #[test]
    fn running_test_stops_at_the_first_crossing_and_then_holds() {
        let s = spec("elo0=0,elo1=20,alpha=0.05,beta=0.05");
        let mut sprt = Sprt::new(s);
        assert_eq!(sprt.llr(), 0.0);
        let mut stopped_at = None;
        for pair in 1..=200u64 {
            let decision = sprt.add_pair(1.0, 1.0).unwrap();
            let llr = pentanomial_llr(
                [0, 0, 0, 0, pair.min(sprt.pentanomial().pairs())],
                0.0,
                20.0,
            );
            assert_eq!(sprt.llr(), llr);
            if decision.is_final() && stopped_at.is_none() {
                stopped_at = Some(pair);
            }
        }
        let stopped_at = stopped_at.expect("all wins reach H1");
        assert_eq!(sprt.decision(), SprtDecision::AcceptH1);
        assert_eq!(sprt.pentanomial().pairs(), stopped_at);
        assert!(sprt.llr() >= s.upper_bound());
        // The pair before did not reach the bound.
        let before = pentanomial_llr([0, 0, 0, 0, stopped_at - 1], 0.0, 20.0);
        assert!(before < s.upper_bound(), "{before}");
        let status = sprt.status();
        assert_eq!(status.pairs, stopped_at);
        let json = serde_json::to_value(status).unwrap();
        assert_eq!(json["decision"], "H1");
        assert_eq!(json["model"], "logistic");
        assert!(
            sprt.add_pair(0.25, 1.0).is_ok(),
            "a stopped test ignores pairs"
        );

        // Even pairs accept H0 eventually.
        let mut sprt = Sprt::new(s);
        let mut k = 0;
        while !sprt.decision().is_final() {
            let (a, b) = [(1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 0.5), (0.0, 0.5)][k % 5];
            sprt.add_pair(a, b).unwrap();
            k += 1;
            assert!(k < 100_000);
        }
        assert_eq!(sprt.decision(), SprtDecision::AcceptH0);
        assert!(Sprt::new(s).add_pair(0.3, 1.0).is_err());
    }
}
