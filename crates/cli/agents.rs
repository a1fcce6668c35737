//! Agent specs as the binary knows them: the classical agents of
//! `mancala-agents`, `perfect` from the solver, external programs
//! (`engine:cmd=...`), plus `neural:...` when built with the `neural`
//! feature.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

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
    /// engine:cmd=PROGRAM ARGS,movetime=T: a program speaking the engine protocol.
    Engine(Arc<mancala_engine::EngineConfig>),
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
        if spec.name == mancala_engine::ENGINE_SPEC_NAME {
            return Ok(AnyAgentSpec::Engine(Arc::new(
                mancala_engine::EngineConfig::from_spec(&spec)?,
            )));
        }
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
        accepted.push("engine");
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
            AnyAgentSpec::Engine(e) => check_program(&e.command[0], e.workdir.as_deref()),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => Ok(n.check(game)?),
        }
    }

    /// This spec with an engine's standard error kept in `dir` (a
    /// tournament's output folder); other agents are unchanged.
    pub fn with_engine_logs(&self, dir: &Path) -> AnyAgentSpec {
        match self {
            AnyAgentSpec::Engine(e) => {
                let mut config = (**e).clone();
                config.stderr_dir = Some(dir.to_path_buf());
                AnyAgentSpec::Engine(Arc::new(config))
            }
            other => other.clone(),
        }
    }

    /// Builds a fresh agent for `game`.
    pub fn build<G: Game>(&self, game: &G) -> Box<dyn Agent<G>> {
        match self {
            AnyAgentSpec::Classical(c) => c.build::<G>(),
            AnyAgentSpec::Perfect(p) => p.build::<G>(),
            AnyAgentSpec::Engine(e) => Box::new(mancala_engine::ExternalAgent::new(
                Arc::clone(e),
                game.to_string(),
            )),
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
            AnyAgentSpec::Engine(e) => e.fmt(f),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.fmt(f),
        }
    }
}

/// Fails unless `program` names a file that can be run: a path (relative
/// to `workdir` when one is given), or a name found on `PATH`. Saying so
/// before a tournament beats forfeiting every game of the engine.
fn check_program(program: &str, workdir: Option<&Path>) -> anyhow::Result<()> {
    let path = Path::new(program);
    let found = if path.components().count() > 1 || path.is_absolute() {
        let full = match workdir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        full.is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(path).is_file()))
    };
    if found {
        Ok(())
    } else {
        Err(crate::bad_input(format!(
            "engine program `{program}` not found{}",
            if path.components().count() > 1 {
                ""
            } else {
                " on PATH"
            }
        )))
    }
}
