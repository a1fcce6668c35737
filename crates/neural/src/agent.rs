//! The `neural` agent: `neural:model=PATH,sims=200` (PUCT guided by the
//! network), `neural:model=PATH,time=100ms` (PUCT for a time per move) or
//! `neural:model=PATH,sims=0` (the raw policy's best move). `batch=N` sets
//! how many leaves of the tree go through the network in one call;
//! `gumbel=N` makes the root consider the policy's N best moves and halve
//! them down (Gumbel root selection without its draws), for small `sims`.

use std::path::PathBuf;
use std::sync::Arc;

use mancala_agents::gumbel::GumbelRoot;
use mancala_agents::{
    Agent, AgentError, Budget, Mcts, MctsOptions, Pv, SearchInfo, SearchKind, StopCondition,
};
use mancala_core::spec::{bad_value, Spec};
use mancala_core::{Game, Move};
use tch::Device;

use crate::evaluator::{preferred, priors_and_value, LocalEvaluator};
use crate::net::{ModelInfo, PolicyValueNet};
use crate::NeuralError;

/// The PUCT exploration constant unless `c=` says otherwise.
pub const DEFAULT_C_PUCT: f64 = 1.5;

/// Leaves evaluated in one network call unless `batch=` says otherwise. A
/// call of 8 positions costs little more than a call of one, and virtual
/// loss keeps 8 leaves of a few hundred simulations from crowding into one
/// line; `batch=1` is the plain sequential search.
pub const DEFAULT_BATCH: usize = 8;

/// Simulations a move when a spec gives no budget.
pub const DEFAULT_SIMS: u64 = 200;

/// A parsed `neural:...` spec, with the model read and checked once.
#[derive(Clone, Debug)]
pub struct NeuralSpec {
    /// The model file.
    pub model: PathBuf,
    /// Simulations or time per move; `Sims(0)` plays the raw policy.
    pub budget: Budget,
    /// PUCT exploration constant.
    pub c: f64,
    /// Leaves per network call.
    pub batch: usize,
    /// Moves a Gumbel root considers (`None`: PUCT at the root).
    pub gumbel: Option<usize>,
    bytes: Arc<Vec<u8>>,
    info: ModelInfo,
}

impl PartialEq for NeuralSpec {
    fn eq(&self, other: &Self) -> bool {
        self.model == other.model
            && self.budget == other.budget
            && self.c == other.c
            && self.batch == other.batch
            && self.gumbel == other.gumbel
    }
}

impl NeuralSpec {
    /// Reads `model` (required), `sims` (default 200) or `time`, `c` and
    /// `batch`, and loads the model.
    ///
    /// # Errors
    /// [`NeuralError::Spec`] for a bad option, [`NeuralError::BadModel`] or
    /// [`NeuralError::Io`] for a model that cannot be used.
    pub fn from_spec(spec: &Spec) -> Result<NeuralSpec, NeuralError> {
        spec.check_keys(&["model", "sims", "time", "c", "batch", "gumbel"])?;
        let model = spec.get("model").ok_or_else(|| {
            bad_value(
                "model",
                "(missing)",
                "the path of a model file, e.g. model=results/train-kalah/best.ot",
            )
        })?;
        let model = PathBuf::from(model);
        let budget = mancala_agents::read_budget(
            spec,
            mancala_agents::BudgetCount::Sims { fewest: 0 },
            Budget::Sims(DEFAULT_SIMS),
        )?;
        let c = spec.get_float("c", 0.0..=100.0)?.unwrap_or(DEFAULT_C_PUCT);
        let batch = spec
            .get_int("batch", 1..=1024)?
            .map_or(DEFAULT_BATCH, |b| b as usize);
        let gumbel = spec
            .get_int("gumbel", 1..=crate::config::MAX_GUMBEL_ACTIONS as u64)?
            .map(|n| n as usize);
        if gumbel.is_some() && !matches!(budget, Budget::Sims(s) if s > 0) {
            // Sequential halving plans its phases from the simulation count.
            return Err(bad_value(
                "gumbel",
                spec.get("gumbel").unwrap_or_default(),
                "a Gumbel root needs a simulation count: sims=N with N at least 1, not time=",
            )
            .into());
        }
        let bytes = std::fs::read(&model).map_err(|e| NeuralError::io(&model, e))?;
        let net = PolicyValueNet::from_bytes(&bytes, Device::Cpu).map_err(|e| match e {
            NeuralError::BadModel { why, .. } => NeuralError::BadModel {
                path: model.display().to_string(),
                why,
            },
            other => other,
        })?;
        Ok(NeuralSpec {
            info: net.info().clone(),
            model,
            budget,
            c,
            batch,
            gumbel,
            bytes: Arc::new(bytes),
        })
    }

    /// A spec over a model held in memory (training uses this).
    pub fn from_bytes(bytes: Arc<Vec<u8>>, info: ModelInfo, sims: u64, c: f64) -> NeuralSpec {
        NeuralSpec {
            model: PathBuf::from("(in memory)"),
            budget: Budget::Sims(sims),
            c,
            batch: DEFAULT_BATCH,
            gumbel: None,
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
                self.model.display(),
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
            Ok(net) => Box::new(
                NeuralAgent::<G>::new(self.to_string(), net, self.budget, self.c)
                    .with_batch(self.batch)
                    .with_gumbel_root(self.gumbel),
            ),
            Err(e) => Box::new(BrokenAgent(self.to_string(), e.to_string())),
        }
    }
}

impl std::fmt::Display for NeuralSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "neural:model={}", self.model.display())?;
        match self.budget {
            Budget::Time(t) => write!(f, ",time={}", mancala_agents::format_duration(t))?,
            Budget::Auto => write!(f, ",time=auto")?,
            Budget::Sims(s) => write!(f, ",sims={s}")?,
            // Not made by a neural spec.
            Budget::Depth(d) => write!(f, ",sims={d}")?,
        }
        if self.c != DEFAULT_C_PUCT {
            write!(f, ",c={}", self.c)?;
        }
        if self.batch != DEFAULT_BATCH {
            write!(f, ",batch={}", self.batch)?;
        }
        if let Some(n) = self.gumbel {
            write!(f, ",gumbel={n}")?;
        }
        Ok(())
    }
}

/// Plays with a policy–value network: PUCT search, or the raw policy.
pub struct NeuralAgent<G: Game> {
    name: String,
    search: Option<Mcts<G, LocalEvaluator>>,
    raw: Option<LocalEvaluator>,
    batch: usize,
    /// Observations of a batch of leaves.
    obs: Vec<f32>,
    info: SearchInfo,
}

impl<G: Game> NeuralAgent<G> {
    /// An agent over `net` searching within `budget` per move
    /// (`Budget::Sims(0)`: the raw policy), [`DEFAULT_BATCH`] leaves per
    /// network call unless [`NeuralAgent::with_batch`] says otherwise.
    pub fn new(name: String, net: PolicyValueNet, budget: Budget, c: f64) -> NeuralAgent<G> {
        let evaluator = LocalEvaluator::new(net);
        if budget == Budget::Sims(0) {
            return NeuralAgent {
                name,
                search: None,
                raw: Some(evaluator),
                batch: DEFAULT_BATCH,
                obs: Vec::new(),
                info: SearchInfo::default(),
            };
        }
        let options = MctsOptions {
            budget,
            c,
            reuse: true,
            ..MctsOptions::default()
        };
        NeuralAgent {
            name,
            search: Some(Mcts::new(options, evaluator)),
            raw: None,
            batch: DEFAULT_BATCH,
            obs: Vec::new(),
            info: SearchInfo::default(),
        }
    }

    /// Evaluates up to `batch` leaves of the tree in one network call
    /// (virtual loss keeps them apart); 1 is the sequential search.
    pub fn with_batch(mut self, batch: usize) -> NeuralAgent<G> {
        self.batch = batch.max(1);
        self
    }

    /// Chooses the root's moves by sequential halving over the policy's
    /// `considered` best moves (no Gumbel draws: play is deterministic);
    /// `None` keeps PUCT. Needs a simulation budget.
    pub fn with_gumbel_root(mut self, considered: Option<usize>) -> NeuralAgent<G> {
        if let Some(search) = &mut self.search {
            search.set_gumbel_root(considered.map(|considered| GumbelRoot::new(considered, false)));
        }
        self
    }

    /// The search with `batch` leaves per network call.
    fn search_in_batches(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        let search = self.search.as_mut().expect("searching");
        let (inputs, actions) = (game.observation_len(), game.num_actions());
        self.obs.resize(self.batch * inputs, 0.0);
        search.begin_with_clock(game, state, stop.clock.as_ref())?;
        loop {
            if stop.reached() {
                break;
            }
            let mut n = 0;
            while n < self.batch {
                let Some(leaf) = search.next_leaf(game) else {
                    break;
                };
                game.observe(leaf, &mut self.obs[n * inputs..(n + 1) * inputs]);
                n += 1;
            }
            if n == 0 {
                break;
            }
            // A failing network must not play on with made-up values (the
            // tree with leaves left pending is dropped by the next search).
            let (logits, values) = search
                .evaluator_mut()
                .net()
                .infer(&self.obs[..n * inputs], n)
                .map_err(|e| AgentError::Failed(format!("network inference failed: {e}")))?;
            for row in 0..n {
                let logits = &logits[row * actions..(row + 1) * actions];
                search.finish_leaf(game, |leaf, priors| {
                    priors_and_value(game, leaf, logits, values[row], priors)
                });
            }
        }
        search.end_search()
    }
}

impl<G: Game> Agent<G> for NeuralAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, seed: u64) {
        if let Some(s) = &mut self.search {
            s.new_game(seed);
        }
    }

    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        // The network sees one position per call: libtorch's own threads
        // would cost more than they give, and contend with the other games
        // of a tournament. (Per thread, so set where the searching happens.)
        tch::set_num_threads(1);
        if self.search.is_some() && self.batch > 1 {
            let mv = self.search_in_batches(game, state, stop)?;
            self.info = self.search.as_ref().expect("searching").info();
            return Ok(mv);
        }
        if let Some(search) = &mut self.search {
            let mv = search.choose_until(game, state, stop)?;
            self.info = search.info();
            return Ok(mv);
        }
        let evaluator = self.raw.as_mut().expect("raw policy when not searching");
        let legal = game.legal_moves(state);
        if legal.is_empty() {
            return Err(AgentError::GameOver);
        }
        let t0 = std::time::Instant::now();
        let mut obs = vec![0.0; game.observation_len()];
        game.observe(state, &mut obs);
        let (logits, value) = evaluator
            .net()
            .infer(&obs, 1)
            .map_err(|e| AgentError::Failed(e.to_string()))?;
        let mut priors = Vec::new();
        let v = priors_and_value(game, state, &logits, value[0], &mut priors);
        let best = preferred(&priors);
        self.info = SearchInfo {
            kind: SearchKind::Mcts,
            nodes: 1,
            depth: 0,
            value: Some(f64::from(
                if game.to_move(state) == Some(mancala_core::Player::ZERO) {
                    v
                } else {
                    1.0 - v
                },
            )),
            pv: Pv::of([legal.nth(best)]),
            elapsed: t0.elapsed(),
            ..SearchInfo::default()
        };
        Ok(legal.nth(best))
    }

    fn info(&self) -> SearchInfo {
        self.info
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
