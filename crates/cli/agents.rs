//! Agent specs as the binary knows them: the classical agents of
//! `mancala-agents`, `perfect` from the solver, plus `neural:...` when built
//! with the `neural` feature.

use std::fmt;

use mancala_agents::{Agent, AgentSpec};
use mancala_core::spec::Spec;
use mancala_core::{Game, SpecError};

/// Any agent this binary can build.
#[derive(Clone, Debug)]
pub enum AnyAgentSpec {
    /// random, greedy, minimax, mcts.
    Classical(AgentSpec),
    /// perfect, perfect:time=T,fallback=SPEC.
    Perfect(mancala_solver::PerfectSpec),
    /// neural:model=PATH,sims=N.
    #[cfg(feature = "neural")]
    Neural(mancala_neural::NeuralSpec),
}

impl AnyAgentSpec {
    /// Parses an agent spec (and, for a neural agent, loads its model).
    pub fn parse(text: &str) -> anyhow::Result<AnyAgentSpec> {
        // The fallback of `perfect` is a spec of its own, commas and all,
        // so `perfect` is read before the generic split.
        let trimmed = text.trim();
        if trimmed == "perfect" || trimmed.starts_with("perfect:") {
            return Ok(AnyAgentSpec::Perfect(mancala_solver::PerfectSpec::parse(
                trimmed,
            )?));
        }
        let spec = Spec::parse(text)?;
        if let Some(classical) = AgentSpec::from_spec(&spec)? {
            return Ok(AnyAgentSpec::Classical(classical));
        }
        #[cfg(feature = "neural")]
        if spec.name == "neural" {
            return Ok(AnyAgentSpec::Neural(mancala_neural::NeuralSpec::from_spec(
                &spec,
            )?));
        }
        if spec.name == "neural" {
            anyhow::bail!("the neural agent needs a build with `--features neural` (see scripts/install-libtorch.sh)");
        }
        let mut accepted = mancala_agents::spec_names().to_vec();
        accepted.push("perfect");
        if cfg!(feature = "neural") {
            accepted.push("neural");
        }
        Err(SpecError::UnknownName {
            kind: "agent",
            name: spec.name,
            accepted: accepted.join(", "),
        }
        .into())
    }

    /// Checks that the agent can play `game` (a model's board size).
    pub fn check<G: Game>(&self, game: &G) -> anyhow::Result<()> {
        match self {
            AnyAgentSpec::Classical(_) => {
                let _ = game;
                Ok(())
            }
            AnyAgentSpec::Perfect(p) => p.check(game).map_err(crate::bad_input),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => Ok(n.check(game)?),
        }
    }

    /// Builds a fresh agent for game `G`.
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        match self {
            AnyAgentSpec::Classical(c) => c.build::<G>(),
            AnyAgentSpec::Perfect(p) => p.build::<G>(),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.build::<G>(),
        }
    }
}

impl fmt::Display for AnyAgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyAgentSpec::Classical(c) => c.fmt(f),
            AnyAgentSpec::Perfect(p) => p.fmt(f),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.fmt(f),
        }
    }
}
