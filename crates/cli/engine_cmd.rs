//! `mancala engine AGENT_SPEC`: serves one of this toolkit's agents over
//! the engine protocol on standard input and output, so that it can play in
//! other people's tools (and so that the protocol is tested against itself).

use std::io::{self, BufWriter};

use anyhow::Result;
use clap::Args;
use mancala_registry::AnyAgentSpec;

use crate::bad_input;

/// Arguments of `mancala engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The agent to serve, e.g. minimax:depth=8 or mcts:time=100ms.
    agent: String,
}

/// `mancala engine`.
pub fn run(args: &EngineArgs) -> Result<()> {
    let agent = AnyAgentSpec::parse(&args.agent).map_err(bad_input)?;
    let stdin = io::stdin().lock();
    let stdout = BufWriter::new(io::stdout().lock());
    mancala_engine::serve(&agent, stdin, stdout)?;
    Ok(())
}
