//! Tournaments for mancala agents: the schedule, the parallel runner, and
//! the statistics (Elo with intervals, first-player advantage) over results.
//!
//! The runner knows agents only through [`mancala_agents::Agent`]; which
//! agents exist is the caller's business (the binary adds neural ones).

pub mod adjudication;
pub mod config;
pub mod folder;
pub mod identity;
pub mod lines;
pub mod live;
pub mod log;
pub mod match_summary;
pub mod merge;
pub mod moves;
pub mod openings;
pub mod pairs;
pub mod record;
pub mod report;
pub mod runner;
pub mod schedule;
mod seat;
pub mod sequential;
pub mod stats;
pub mod tournament;

use thiserror::Error;

pub use adjudication::{Adjudicator, ADJUDICATED};
pub use config::{ConfigError, TournamentConfig};
pub use log::{EncodedRecord, FolderLock, GameLog, LogError, OutputDir};
pub use match_summary::MatchSummary;
pub use moves::{movers, MoveStats, MoveTable};
pub use openings::{read_openings, Opening, OpeningOrder, OpeningsError, UnknownOrder};
pub use record::{timeless_json, GameRecord, MoveSearch, TIMING_FIELDS};
pub use report::{
    interim_standings, pentanomial_table, summarize, write_moves, write_summary, InterimStanding,
    Summary,
};
pub use runner::{Arena, Players, RunOptions, DEFAULT_TIME_MARGIN};
pub use schedule::{pairs, random_openings, schedule, Format, ScheduledGame};
pub use schedule::{Shard, ShardError};
pub use seat::HANG_GRACE;
pub use tournament::{Observer, RunEnd, RunSettings, TournamentError};

/// The score a candidate must reach in its gating match against the
/// reigning agent to replace it: the default of training's
/// `gate_threshold`. Kept here, below both, because training and the
/// report of a training run (which reads it when the run's config is not
/// in the folder) must agree on it.
pub const DEFAULT_GATE_THRESHOLD: f64 = 0.55;

/// Errors of the tournament crate.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ArenaError {
    /// The worker threads could not start.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
    /// An opening is not legal in the game played.
    #[error("illegal opening: {0}")]
    Opening(String),
}
