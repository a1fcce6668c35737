//! Confidence intervals for a proportion (Wilson) and for a mean (normal
//! approximation).

use serde::{Deserialize, Serialize};

use super::json_float;
use super::Z95;

/// Wilson score interval for a proportion `successes / n` at normal quantile
/// `z` (use [`Z95`] for 95%).
///
/// Unlike the plain `p ± z*sqrt(p(1-p)/n)` interval it stays inside `[0, 1]`
/// and does not collapse to a point at `p = 0` or `p = 1`. `successes` may be
/// fractional, so a game score can be passed with draws as half successes
/// (`wins + draws / 2`); that treats a draw as half a win and half a loss,
/// which slightly overstates the variance when draws are common.
///
/// Returns `(0, 1)`, the whole range, when `n` is not positive or not
/// finite. `successes` is clamped into `[0, n]`.
pub fn wilson_interval(successes: f64, n: f64, z: f64) -> (f64, f64) {
    if !(n.is_finite() && n > 0.0) {
        return (0.0, 1.0);
    }
    let p = (successes / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denominator;
    let half_width = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    (
        (center - half_width).max(0.0),
        (center + half_width).min(1.0),
    )
}

/// A sample mean with its 95% normal-approximation interval.
///
/// In JSON an infinite field is the string `"inf"` or `"-inf"` (see
/// [`super::json_float`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanCi {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub mean: f64,
    /// Standard error of the mean, `s / sqrt(n)` with the sample standard
    /// deviation `s` (divisor `n - 1`); `+inf` for a single value.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub stderr: f64,
    /// `mean - Z95 * stderr`.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub lo: f64,
    /// `mean + Z95 * stderr`.
    #[serde(
        serialize_with = "json_float::number",
        deserialize_with = "json_float::read_number"
    )]
    pub hi: f64,
}

/// Mean of `values` with a 95% interval `mean ± Z95 * s / sqrt(n)`.
///
/// The normal approximation (rather than Student's t) is deliberate: it is
/// meant for the thousands of games of a tournament, where the two agree.
/// Returns `None` for an empty slice; a single value gets an infinite
/// interval, since its spread is unknown. Non-finite values propagate.
pub fn mean_with_ci(values: &[f64]) -> Option<MeanCi> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let stderr = if values.len() == 1 {
        f64::INFINITY
    } else {
        // Two passes: summing squared deviations from the mean avoids the
        // cancellation of E[x^2] - E[x]^2.
        let squares: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
        (squares / (n - 1.0) / n).sqrt()
    };
    Some(MeanCi {
        n: values.len(),
        mean,
        stderr,
        lo: mean - Z95 * stderr,
        hi: mean + Z95 * stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        got == want || (got - want).abs() <= tol
    }

    #[test]
    fn wilson_matches_reference() {
        for &(successes, n, z, lo, hi) in WILSON_TABLE {
            let (got_lo, got_hi) = wilson_interval(successes, n, z);
            assert!(
                close(got_lo, lo, 1e-14),
                "{successes}/{n}: lo {got_lo} vs {lo}"
            );
            assert!(
                close(got_hi, hi, 1e-14),
                "{successes}/{n}: hi {got_hi} vs {hi}"
            );
        }
    }

    #[test]
    fn wilson_edge_cases() {
        assert_eq!(wilson_interval(0.0, 0.0, Z95), (0.0, 1.0));
        assert_eq!(wilson_interval(1.0, f64::NAN, Z95), (0.0, 1.0));
        let (lo, hi) = wilson_interval(0.0, 10.0, Z95);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.0 && hi < 1.0);
        let (lo, hi) = wilson_interval(10.0, 10.0, Z95);
        assert!(lo > 0.0 && lo < 1.0);
        assert!(hi > 1.0 - 1e-12 && hi <= 1.0);
    }

    #[test]
    fn mean_matches_reference() {
        let got = mean_with_ci(MARGINS).unwrap();
        assert_eq!(got.n, MARGINS.len());
        assert!(close(got.mean, MARGIN_MEAN, 1e-13), "{got:?}");
        assert!(close(got.stderr, MARGIN_STDERR, 1e-13), "{got:?}");
        assert!(close(got.lo, MARGIN_LO, 1e-12), "{got:?}");
        assert!(close(got.hi, MARGIN_HI, 1e-12), "{got:?}");
    }

    #[test]
    fn mean_edge_cases() {
        assert_eq!(mean_with_ci(&[]), None);
        let one = mean_with_ci(&[3.0]).unwrap();
        assert_eq!(one.mean, 3.0);
        assert_eq!((one.lo, one.hi), (f64::NEG_INFINITY, f64::INFINITY));
        let flat = mean_with_ci(&[2.0; 5]).unwrap();
        assert_eq!((flat.lo, flat.mean, flat.hi), (2.0, 2.0, 2.0));
    }

    /// python3 textbook Wilson formula: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n).
    const WILSON_TABLE: &[(f64, f64, f64, f64, f64)] = &[
        (
            7.0,
            10.0,
            1.959963984540054,
            0.3967781474611453,
            0.8922087325936988,
        ),
        (
            55.5,
            100.0,
            1.959963984540054,
            0.4573588254505884,
            0.6485718897466433,
        ),
        (0.0, 10.0, 1.959963984540054, 0.0, 0.2775327998628892),
        (
            10.0,
            10.0,
            1.959963984540054,
            0.7224672001371106,
            0.9999999999999999,
        ),
        (
            1234.5,
            2000.0,
            1.959963984540054,
            0.5957424252567481,
            0.6383080271557979,
        ),
        (
            3.0,
            40.0,
            2.5758293035489004,
            0.019163255329385138,
            0.2517689761520616,
        ),
    ];
    /// python3: statistics.fmean / statistics.stdev(values) / sqrt(n).
    const MARGINS: &[f64] = &[
        3.0, -2.0, 5.0, 0.0, 7.0, 1.0, -4.0, 6.0, 2.0, 2.0, 9.0, -1.0, 4.0, 3.0, 0.0, 8.0,
    ];
    const MARGIN_MEAN: f64 = 2.6875;
    const MARGIN_STDERR: f64 = 0.9206824914160147;
    const MARGIN_LO: f64 = 0.8829954756280038;
    const MARGIN_HI: f64 = 4.492004524371996;
}
