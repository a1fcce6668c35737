//! Statistics over game results: win/draw/loss counts with Elo intervals,
//! pentanomial (game pair) counts with their Elo and the GSPRT on them,
//! Wilson and normal-approximation intervals, a Bradley–Terry (Elo) fit with
//! a first-move advantage and Hessian and profile-likelihood intervals, and
//! first-seat summaries. Infinite values are written to JSON as `"inf"` /
//! `"-inf"` ([`json_float`]).
//!
//! Everything here is plain `f64` arithmetic with no randomness, so results
//! are deterministic for a given input order. The special functions (`erf`,
//! the normal CDF) are implemented here rather than pulled from a numerics
//! crate. It knows no game: tournaments (`mancala-arena`), analyses and
//! reports feed it counts and scores.
//!
//! ```
//! use mancala_stats::Wdl;
//!
//! // 76 wins, 89 draws and 123 losses: a score of 41.8%, about -57 Elo.
//! let wdl = Wdl { wins: 76, draws: 89, losses: 123 };
//! let elo = wdl.elo().unwrap();
//! assert_eq!(elo.score, 120.5 / 288.0);
//! assert!(elo.lo < elo.elo && elo.elo < elo.hi && elo.hi < 0.0);
//! ```

mod bradley_terry;
mod first_player;
mod interval;
pub mod json_float;
mod linalg;
mod pentanomial;
mod special;
mod sprt;
mod wdl;

pub use bradley_terry::{
    fit_ratings, Anchor, FitOptions, GameResult, RatingFit, DEFAULT_PRIOR_DRAWS, PROFILE_DROP_95,
};
pub use first_player::FirstPlayerStats;
pub use interval::{mean_with_ci, wilson_interval, MeanCi};
pub use pentanomial::{PairedResults, Pentanomial, PAIR_SCORES};
pub use special::{erf, erfc, normal_cdf};
pub use sprt::{
    llr_normal_approximation, pentanomial_llr, score_from_elo, Sprt, SprtDecision, SprtSpec,
    SprtSpecError, SprtStatus, EMPTY_CATEGORY_PAIRS, MAX_SPRT_ELO, SPRT_KEYS,
};
pub use wdl::{elo_from_score, EloEstimate, Wdl};

/// Two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Errors from building statistics out of malformed input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A game score outside what the function accepts (non-finite, outside
    /// `[0, 1]`, or not one of `0`, `0.5`, `1` where a W/D/L is needed).
    #[error("invalid game score {0}")]
    InvalidScore(f64),
    /// A margin that is not a finite number.
    #[error("invalid margin {0}")]
    InvalidMargin(f64),
    /// A player index that is not below the number of players.
    #[error("player index {index} out of range for {n_players} players")]
    PlayerOutOfRange {
        /// The offending index.
        index: usize,
        /// Number of players the fit was asked for.
        n_players: usize,
    },
    /// The anchored player played no game against another player, so it
    /// cannot fix the rating scale of those who did.
    #[error("anchor player {0} has no games against other players")]
    AnchorWithoutGames(usize),
    /// A fit option that makes no sense (negative prior, non-finite anchor
    /// rating, non-positive tolerance).
    #[error("invalid fit option: {0}")]
    InvalidOption(&'static str),
    /// The information matrix was not positive definite, which happens
    /// without a prior when players form disconnected groups.
    #[error("information matrix is singular; add a prior or connect the players")]
    Singular,
    /// Newton's method did not reach the tolerance, which happens without a
    /// prior when some player (or the first seat) won or lost everything.
    #[error("rating fit did not converge in {iterations} iterations")]
    NotConverged {
        /// Iterations performed before giving up.
        iterations: usize,
    },
}
