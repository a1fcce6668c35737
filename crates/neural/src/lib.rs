//! AlphaZero-style training and the `neural` agent, on libtorch (`tch`).
//!
//! - [`net::PolicyValueNet`]: a residual MLP with a policy and a value
//!   head, sized from the game's observation and action counts;
//! - [`selfplay`]: self-play games side by side on each thread, their
//!   evaluations batched into one network call;
//! - [`agent::NeuralSpec`]: the `neural:model=PATH,sims=N` agent over a
//!   libtorch model (its search is `mancala_agents::policy`'s, shared with
//!   the plain-Rust network of a safetensors file);
//! - [`targets`]: perfect-play targets from the solver for self-play positions;
//! - [`train`]: self-play, replay buffer, training, gating, checkpoints.
//!
//! This crate needs libtorch; the binary enables it with the `neural` feature.

pub mod agent;
pub mod buffer;
pub mod config;
pub mod net;
pub mod selfplay;
pub mod targets;
pub mod train;

use std::path::Path;

use thiserror::Error;

pub use agent::{NeuralAgent, NeuralSpec};
pub use config::{RootSelection, TrainConfig, ValueTarget};
pub use net::{ModelInfo, NetShape, PolicyValueNet};
/// Where a network runs (libtorch's device), for [`Trainer::new`]: users of
/// this crate need no `tch` dependency of their own.
pub use tch::Device;
pub use train::{GenerationLog, SelfPlayStats, TrainEvent, Trainer, WarmStartLog};

/// Whether libtorch can use a CUDA device.
pub fn cuda_available() -> bool {
    tch::Cuda::is_available()
}

/// Errors of the neural crate.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum NeuralError {
    /// libtorch reported an error.
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    /// A file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A model file that is not one of ours, or is damaged.
    #[error("{path} is not a usable model: {why}")]
    BadModel {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
    /// A model for another game or board.
    #[error("model does not fit the game: {0}")]
    Mismatch(String),
    /// A checkpoint that cannot be resumed.
    #[error("checkpoint {path}: {why}")]
    Checkpoint {
        /// The checkpoint folder.
        path: String,
        /// Why.
        why: String,
    },
    /// A bad training config.
    #[error("{path}: {why}")]
    Config {
        /// The file.
        path: String,
        /// Why (with the key).
        why: String,
    },
    /// A bad agent spec.
    #[error(transparent)]
    Spec(#[from] mancala_core::SpecError),
    /// The solver failed while making perfect-play targets.
    #[error("perfect-play targets: {0}")]
    Solve(#[from] mancala_solver::SolveError),
    /// A tournament inside training failed.
    #[error(transparent)]
    Arena(#[from] mancala_arena::ArenaError),
}

impl NeuralError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> NeuralError {
        NeuralError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
