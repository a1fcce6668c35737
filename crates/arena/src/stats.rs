//! The statistics of results: those of `mancala-stats` (which knows no
//! game: counts, scores, the rating fit), and the pairing of this crate's
//! records into pentanomial observations ([`paired_results`]).

pub use crate::pairs::{paired_margins, paired_results};
pub use mancala_stats::*;
