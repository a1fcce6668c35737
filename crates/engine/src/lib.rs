//! The mancala engine protocol: a line-based text protocol, in the spirit
//! of UCI, through which programs in any language play in this toolkit's
//! tournaments, and this toolkit's agents play in other people's tools.
//!
//! - [`ExternalAgent`] runs a program and plays it as an
//!   [`Agent`](mancala_agents::Agent). Every wait has a deadline, so a
//!   program that hangs, crashes, floods its output or prints garbage loses
//!   the game it was playing and is started again for the next; it never
//!   blocks the runner, fills its memory or its disk, or outlives it.
//! - [`serve`] is the other side: it answers the protocol on behalf of any
//!   agent (`mancala engine AGENT_SPEC`).
//! - [`check_engine`] takes a program through every step of the protocol
//!   a tournament uses and says what it got wrong (`mancala engine check`).
//! - [`protocol`] reads and writes the lines themselves.
//!
//! The protocol is specified in `docs/engine-protocol.md`.

mod check;
mod client;
mod descendants;
mod log;
mod process;
pub mod protocol;
mod server;
mod spec;

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

pub use check::{
    check_engine, CheckLine, CheckOptions, Verdict, CLOCK_MARGIN, DEFAULT_CHECK_GAMES, QUIT_LIMIT,
    SMALL_SEARCH_LIMIT, WHOLE_GAME_MOVETIME,
};
pub use client::{
    movetime_margin, EngineConfig, ExternalAgent, DEFAULT_HANDSHAKE_TIMEOUT, MAX_FAILED_STARTS,
    SEED_OPTION, UNLIMITED_GO_TIMEOUT,
};
pub use descendants::Leftover;
pub use log::{EngineLog, LOG_HEAD_BYTES, LOG_TAIL_BYTES};
pub use process::{
    EngineId, EngineProcess, QuitOutcome, FLOOD_BURST_BYTES, FLOOD_RATE_BYTES, MAX_HELD_BYTES,
    MAX_HELD_LINES, MAX_LINE_BYTES, TRANSCRIPT_LINES,
};
pub use protocol::{Command, GoLimits, InputLine, Reply};
pub use server::{serve, AgentSource, EverySource};
pub use spec::ENGINE_SPEC_NAME;

/// A line that does not follow the protocol.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A command the engine side cannot read.
    #[error("bad command `{line}`: {why}")]
    BadCommand {
        /// The line (shortened if long).
        line: String,
        /// What is wrong.
        why: String,
    },
    /// An engine's line that is none of the replies.
    #[error("garbage from the engine: `{line}`: {why}")]
    Garbage {
        /// The line (shortened if long).
        line: String,
        /// What is wrong.
        why: String,
    },
}

/// Why talking to an engine failed. Every variant ends the engine's
/// current game.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The engine's command is empty.
    #[error("the engine's command is empty")]
    NoCommand,
    /// The program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The stderr log could not be opened.
    #[error("cannot open the engine's log {path}: {source}")]
    Log {
        /// The log file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No answer in time.
    #[error("no `{waiting_for}` within {} ms", after.as_millis())]
    Timeout {
        /// The reply awaited.
        waiting_for: &'static str,
        /// How long it was allowed to take.
        after: Duration,
    },
    /// The engine exited or closed its output.
    #[error("the engine exited while we waited for {waiting_for} ({status})")]
    Exited {
        /// The reply awaited.
        waiting_for: &'static str,
        /// The exit status, in words.
        status: String,
    },
    /// Its output could not be read as lines.
    #[error("unreadable output: {0}")]
    Output(String),
    /// It printed more than the protocol's flood limits allow (and was
    /// killed).
    #[error("the engine flooded its output: {0}")]
    Flood(String),
    /// A line that is not a reply.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// A reply, but not one that may come now.
    #[error("`{line}` while waiting for {waiting_for}")]
    Unexpected {
        /// The reply awaited.
        waiting_for: &'static str,
        /// What came instead.
        line: String,
    },
    /// The engine answered `error`.
    #[error("the engine said: error {0}")]
    Refused(String),
    /// The run was stopped (Ctrl-C) while waiting.
    #[error("stopped while waiting for the engine")]
    Cancelled,
    /// Reading commands or writing replies failed (serving side).
    #[error("input/output: {0}")]
    Io(std::io::Error),
}
