//! The `neural` agent over libtorch's network (`neural:model=PATH.ot,...`).
//! The search, its options and the spec's text are the agents crate's
//! ([`mancala_agents::policy`]), shared with the plain-Rust network of a
//! safetensors file; this file reads a libtorch model and runs it.

use std::sync::Arc;

use mancala_agents::policy::{PolicyNet, PolicyOptions};
use mancala_agents::{Agent, AgentError, Budget, StopCondition};
use mancala_core::spec::Spec;
use mancala_core::{Game, Move};
use tch::Device;

use crate::net::{ModelInfo, PolicyValueNet};
use crate::NeuralError;

pub use mancala_agents::policy::{DEFAULT_BATCH, DEFAULT_C_PUCT, DEFAULT_SIMS};

/// The agent over a libtorch network.
pub type NeuralAgent<G> = mancala_agents::PolicyAgent<G, PolicyValueNet>;

impl PolicyNet for PolicyValueNet {
    fn infer(&self, observations: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
        PolicyValueNet::infer(self, observations, batch).map_err(|e| e.to_string())
    }

    /// The network sees a few positions per call: libtorch's own threads
    /// would cost more than they give, and contend with the other games of
    /// a tournament. (Per thread, so set where the searching happens.)
    fn prepare_thread(&self) {
        tch::set_num_threads(1);
    }
}

/// A parsed `neural:...` spec over a libtorch model, read and checked
/// once.
#[derive(Clone, Debug)]
pub struct NeuralSpec {
    /// The spec's options.
    pub options: PolicyOptions,
    bytes: Arc<Vec<u8>>,
    info: ModelInfo,
}

impl PartialEq for NeuralSpec {
    fn eq(&self, other: &Self) -> bool {
        self.options == other.options
    }
}

impl NeuralSpec {
    /// Reads `model` (required), `sims` (default 200) or `time`, `c`,
    /// `batch` and `gumbel`, and loads the model.
    ///
    /// # Errors
    /// [`NeuralError::Spec`] for a bad option, [`NeuralError::BadModel`] or
    /// [`NeuralError::Io`] for a model that cannot be used.
    pub fn from_spec(spec: &Spec) -> Result<NeuralSpec, NeuralError> {
        NeuralSpec::from_options(PolicyOptions::from_spec(spec)?)
    }

    /// Loads the model that `options` name.
    ///
    /// # Errors
    /// [`NeuralError::BadModel`] or [`NeuralError::Io`] for a model that
    /// cannot be used.
    pub fn from_options(options: PolicyOptions) -> Result<NeuralSpec, NeuralError> {
        let model = &options.model;
        let bytes = std::fs::read(model).map_err(|e| NeuralError::io(model, e))?;
        let net = PolicyValueNet::from_bytes(&bytes, Device::Cpu).map_err(|e| match e {
            NeuralError::BadModel { why, .. } => NeuralError::BadModel {
                path: model.display().to_string(),
                why,
            },
            other => other,
        })?;
        Ok(NeuralSpec {
            info: net.info().clone(),
            options,
            bytes: Arc::new(bytes),
        })
    }

    /// A spec over a model held in memory (training uses this).
    pub fn from_bytes(bytes: Arc<Vec<u8>>, info: ModelInfo, sims: u64, c: f64) -> NeuralSpec {
        NeuralSpec {
            options: PolicyOptions {
                model: "(in memory)".into(),
                budget: Budget::Sims(sims),
                c,
                batch: DEFAULT_BATCH,
                gumbel: None,
            },
            bytes,
            info,
        }
    }

    /// What the model was trained for.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Checks that the model fits `game` (observation and policy sizes).
    ///
    /// # Errors
    /// [`NeuralError::Mismatch`] naming the game the model was trained for.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), NeuralError> {
        let s = self.info.shape;
        if s.inputs != game.observation_len() || s.actions != game.num_actions() {
            return Err(NeuralError::Mismatch(format!(
                "{} was trained for {} ({} inputs, {} actions), this game has {} inputs and {} actions",
                self.options.model.display(),
                self.info.game,
                s.inputs,
                s.actions,
                game.observation_len(),
                game.num_actions()
            )));
        }
        Ok(())
    }

    /// Builds the agent; a model that fails to load gives an agent whose
    /// every move is an error (so a tournament scores it as forfeits).
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        match PolicyValueNet::from_bytes(&self.bytes, Device::Cpu) {
            Ok(net) => Box::new(self.options.agent::<G, _>(net)),
            Err(e) => Box::new(BrokenAgent(self.to_string(), e.to_string())),
        }
    }
}

impl std::fmt::Display for NeuralSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.options.fmt(f)
    }
}

/// An agent whose model could not be loaded: every move is an error.
struct BrokenAgent(String, String);

impl<G: Game> Agent<G> for BrokenAgent {
    fn name(&self) -> String {
        self.0.clone()
    }
    fn new_game(&mut self, _seed: u64) {}
    fn choose_until(
        &mut self,
        _game: &G,
        _state: &G::State,
        _stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        Err(AgentError::Failed(self.1.clone()))
    }
}
