//! Tournaments for mancala agents: the schedule, the parallel runner, and
//! the statistics (Elo with intervals, first-player advantage) over results.
#![deny(missing_docs)]
#![deny(clippy::print_stdout)]

pub mod stats;
