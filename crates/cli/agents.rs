//! Agent specs as the binary knows them: the classical agents of
//! `mancala-agents`, plus the neural agent when built with it.

use std::fmt;

use mancala_agents::{Agent, AgentSpec};
use mancala_core::Game;

/// Any agent this binary can build.
#[derive(Clone, Debug)]
pub struct AnyAgentSpec(AgentSpec);

impl AnyAgentSpec {
    /// Parses an agent spec.
    pub fn parse(text: &str) -> Result<AnyAgentSpec, mancala_core::SpecError> {
        Ok(AnyAgentSpec(text.parse()?))
    }

    /// Builds a fresh agent for game `G`.
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        self.0.build::<G>()
    }
}

impl fmt::Display for AnyAgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
