//! Training configs (`configs/train-*.toml`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::NeuralError;

/// Most nodes `exact_nodes` may give each move: more makes self-play wait
/// on the solver.
pub const MAX_EXACT_NODES: u64 = 10_000_000;

/// What the value head learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueTarget {
    /// The game's result from the mover's side: 1, 0 or -1.
    Result,
    /// The final margin from the mover's side, divided by half the seeds
    /// (clamped to -1..1): more signal per game than the result.
    Margin,
}

impl ValueTarget {
    /// The value head's target for a final margin of `margin` seeds (the
    /// mover's) in a game of `total_seeds`.
    pub fn of_margin(self, margin: i32, total_seeds: usize) -> f32 {
        match self {
            ValueTarget::Result => margin.signum() as f32,
            ValueTarget::Margin => (margin as f32 / (total_seeds as f32 / 2.0)).clamp(-1.0, 1.0),
        }
    }
}

/// How self-play chooses among the root's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootSelection {
    /// PUCT with Dirichlet noise; the policy target is the visit share.
    Puct,
    /// Gumbel sampling of `gumbel_actions` moves and sequential halving;
    /// the policy target is the improved policy (see
    /// [`mancala_agents::gumbel`]). Made for small `sims`.
    Gumbel,
}

pub use mancala_agents::policy::MAX_GUMBEL_ACTIONS;

/// A training run. Every key has a default; see `configs/train-kalah.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Name, also the default output folder `results/<name>`.
    pub name: String,
    /// Game spec.
    pub game: String,
    /// Seed of the run.
    pub seed: u64,
    /// Generations to run (each: self-play, training, gating, evaluation).
    pub generations: u32,
    /// Stop after the first generation that ends past this time (e.g. `30m`).
    pub time_limit: Option<String>,
    /// Self-play games per generation.
    pub games_per_generation: u32,
    /// MCTS simulations per self-play move.
    pub sims: u64,
    /// Self-play threads, each with its own copy of the network: one per
    /// core is best on a CPU.
    pub workers: usize,
    /// Self-play games each thread plays side by side, their searches'
    /// leaves evaluated together in one network call: a larger group means
    /// fewer, fuller calls. The games of a generation are split into groups
    /// of at most this many, as even as can be.
    pub batch_games: usize,
    /// PUCT exploration constant.
    pub c_puct: f64,
    /// How the root of a self-play search chooses its moves.
    pub root_selection: RootSelection,
    /// Moves a Gumbel root samples and halves down (all legal moves when
    /// there are fewer).
    pub gumbel_actions: usize,
    /// The Gumbel root's `c_scale`: logits a value difference is worth
    /// (per 50 visits plus the most visited move's).
    pub gumbel_value_scale: f32,
    /// Whether the Gumbel root stretches its moves' values to span
    /// `[0, 1]` before scaling them. The paper does; here it made every
    /// small difference worth five logits, the targets nearly one-hot and
    /// self-play the same few games (docs/training.md), so it is off
    /// unless asked for.
    pub gumbel_rescale: bool,
    /// Playout cap randomization (0: off): a move that is not one of the
    /// `full_search_share` full searches gets only this many simulations,
    /// no noise and no training sample. Many cheap moves make more games;
    /// the few full ones make the targets.
    pub fast_sims: u64,
    /// The share of moves searched with `sims` when `fast_sims` is set.
    pub full_search_share: f32,
    /// Moves at the start of a self-play game drawn from the search's
    /// policy (temperature 1): the visit shares with PUCT, the improved
    /// policy with a Gumbel root. Later moves take the most visited, or
    /// the Gumbel root's choice (its draws are a sampling of their own).
    pub temperature_moves: u32,
    /// Dirichlet noise at the root: concentration.
    pub dirichlet_alpha: f32,
    /// Dirichlet noise at the root: weight.
    pub dirichlet_epsilon: f32,
    /// What the value head learns.
    pub value_target: ValueTarget,
    /// Positions kept in the replay buffer.
    pub buffer_size: usize,
    /// Positions per training step.
    pub batch_size: usize,
    /// Training steps per generation.
    pub train_steps: usize,
    /// Adam learning rate.
    pub learning_rate: f64,
    /// Decoupled weight decay (AdamW).
    pub weight_decay: f64,
    /// Hidden width of the network.
    pub hidden: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Games of the new network against the best one per generation.
    pub gate_games: u32,
    /// Score the new network needs to replace the best one.
    pub gate_threshold: f64,
    /// Simulations per move in gating and evaluation games.
    pub eval_sims: u64,
    /// Games against each baseline per generation (0: no evaluation).
    pub eval_games: u32,
    /// Measure against the baselines every this many generations (and at
    /// the first): the games cost more than self-play on a small network.
    pub eval_every: u32,
    /// Fixed opponents the best network is measured against.
    pub baselines: Vec<String>,
    /// Random opening moves of gating and evaluation games.
    pub eval_opening_plies: u32,
    /// Output folder (default `results/<name>`).
    pub output: Option<PathBuf>,
    /// A set of positions with exact move values for this game (`mancala
    /// analyze exact-positions`): each generation then logs how the newly
    /// trained network's raw policy and value compare with perfect play.
    pub exact_positions: Option<PathBuf>,
    /// Perfect-play targets: nodes the solver may spend settling each move
    /// of a self-play position (0: none). A position it values gets its
    /// exact final margin as the value target instead of the game's
    /// result; the endgame database answers without search.
    pub exact_nodes: u64,
    /// Where every move of a position was settled: the weight of the best
    /// moves (shared equally) in its policy target, the visits having the
    /// rest.
    pub exact_policy: f32,
    /// Folders of exact labels (`mancala analyze labels`) to train the new
    /// network on before the first generation: every position whose moves
    /// were all settled, with its exact value and its best moves as the
    /// policy. Empty: self-play starts from random weights.
    pub warm_start: Vec<PathBuf>,
    /// Files of positions the warm start never trains on, one a line (what
    /// `analyze exact-positions --held-out` writes for a yardstick's
    /// games), as `train-eval --exclude` takes them.
    pub warm_start_exclude: Vec<PathBuf>,
    /// Minibatches of the warm start (of `batch_size` positions each).
    pub warm_start_steps: usize,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            name: "train".into(),
            game: "kalah".into(),
            seed: 1,
            generations: 20,
            time_limit: None,
            games_per_generation: 100,
            sims: 64,
            workers: 2,
            batch_games: 128,
            c_puct: 1.5,
            root_selection: RootSelection::Puct,
            gumbel_actions: 16,
            gumbel_value_scale: mancala_agents::gumbel::DEFAULT_VALUE_SCALE,
            gumbel_rescale: false,
            fast_sims: 0,
            full_search_share: 0.25,
            temperature_moves: 8,
            dirichlet_alpha: 0.5,
            dirichlet_epsilon: 0.25,
            value_target: ValueTarget::Result,
            buffer_size: 50_000,
            batch_size: 256,
            train_steps: 200,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            hidden: 128,
            blocks: 3,
            gate_games: 40,
            gate_threshold: mancala_arena::DEFAULT_GATE_THRESHOLD,
            eval_sims: 32,
            eval_games: 20,
            eval_every: 1,
            baselines: vec!["random".into(), "greedy".into(), "minimax:depth=2".into()],
            eval_opening_plies: 2,
            output: None,
            exact_positions: None,
            exact_nodes: 0,
            exact_policy: 0.5,
            warm_start: Vec::new(),
            warm_start_exclude: Vec::new(),
            warm_start_steps: 4000,
        }
    }
}

impl TrainConfig {
    /// Reads and checks a config file.
    ///
    /// # Errors
    /// [`NeuralError::Config`] naming the file and the key.
    pub fn load(path: &Path) -> Result<TrainConfig, NeuralError> {
        let text = std::fs::read_to_string(path).map_err(|e| NeuralError::io(path, e))?;
        TrainConfig::parse(&text, &path.display().to_string())
    }

    /// Parses and checks config text; `path` is for messages.
    ///
    /// # Errors
    /// [`NeuralError::Config`] naming the file and the key.
    pub fn parse(text: &str, path: &str) -> Result<TrainConfig, NeuralError> {
        let config: TrainConfig = toml::from_str(text).map_err(|e| NeuralError::Config {
            path: path.into(),
            why: e.to_string().trim_end().to_string(),
        })?;
        let bad = |key: &str, why: &str| NeuralError::Config {
            path: path.into(),
            why: format!("key `{key}`: {why}"),
        };
        let positive: [(&str, u64); 11] = [
            ("generations", u64::from(config.generations)),
            (
                "games_per_generation",
                u64::from(config.games_per_generation),
            ),
            ("sims", config.sims),
            ("workers", config.workers as u64),
            ("batch_games", config.batch_games as u64),
            ("buffer_size", config.buffer_size as u64),
            ("batch_size", config.batch_size as u64),
            ("hidden", config.hidden as u64),
            ("eval_sims", config.eval_sims),
            ("gate_games", u64::from(config.gate_games)),
            ("eval_every", u64::from(config.eval_every)),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(bad(key, "must be at least 1"));
            }
        }
        if !(config.learning_rate > 0.0 && config.learning_rate < 1.0) {
            return Err(bad("learning_rate", "must be between 0 and 1"));
        }
        if !(0.0..1.0).contains(&config.weight_decay) {
            return Err(bad("weight_decay", "must be from 0 to below 1"));
        }
        if !(0.0..=1.0).contains(&config.gate_threshold) {
            return Err(bad("gate_threshold", "must be from 0 to 1"));
        }
        if !(0.0..=1.0).contains(&config.dirichlet_epsilon) || config.dirichlet_alpha <= 0.0 {
            return Err(bad(
                "dirichlet_alpha",
                "alpha must be positive and epsilon from 0 to 1",
            ));
        }
        if !(1..=MAX_GUMBEL_ACTIONS).contains(&config.gumbel_actions) {
            return Err(bad(
                "gumbel_actions",
                &format!("must be from 1 to {MAX_GUMBEL_ACTIONS}"),
            ));
        }
        if config.root_selection == RootSelection::Gumbel && config.sims < 2 {
            // The first simulation expands the root: halving needs more.
            return Err(bad("sims", "a Gumbel root needs at least 2"));
        }
        if !(config.gumbel_value_scale > 0.0 && config.gumbel_value_scale <= 10.0) {
            return Err(bad("gumbel_value_scale", "must be above 0 and at most 10"));
        }
        if config.fast_sims >= config.sims {
            return Err(bad(
                "fast_sims",
                &format!("must be below sims ({}); 0 turns it off", config.sims),
            ));
        }
        if !(config.full_search_share > 0.0 && config.full_search_share <= 1.0) {
            return Err(bad("full_search_share", "must be above 0 and at most 1"));
        }
        if !(0.0..=1.0).contains(&config.exact_policy) {
            return Err(bad("exact_policy", "must be from 0 to 1"));
        }
        if config.exact_nodes > MAX_EXACT_NODES {
            return Err(bad(
                "exact_nodes",
                &format!("at most {MAX_EXACT_NODES} a move (a few thousand is typical)"),
            ));
        }
        if !config.warm_start.is_empty() && config.warm_start_steps == 0 {
            return Err(bad(
                "warm_start_steps",
                "must be at least 1 with warm_start folders",
            ));
        }
        if let Some(t) = &config.time_limit {
            mancala_agents::parse_duration("time_limit", t)
                .map_err(|e| bad("time_limit", &e.to_string()))?;
        }
        Ok(config)
    }

    /// The time limit, if any.
    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit
            .as_ref()
            .and_then(|t| mancala_agents::parse_duration("time_limit", t).ok())
    }

    /// The output folder.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join(&self.name))
    }

    /// The settings that must not change when a run is resumed (every one
    /// but the stopping rules, the worker count, the self-play group size,
    /// the measurements (how often the baselines are played, the exact
    /// positions) and the output folder).
    pub fn resume_identity(&self) -> TrainConfig {
        TrainConfig {
            generations: 0,
            time_limit: None,
            workers: 0,
            batch_games: 0,
            eval_every: 0,
            output: None,
            exact_positions: None,
            ..self.clone()
        }
    }
}
