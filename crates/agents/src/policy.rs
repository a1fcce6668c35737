//! Agents that play with a policy–value network, whichever runs it: PUCT
//! search guided by the network (`neural:model=PATH,sims=200` or
//! `time=100ms`), or its raw policy (`sims=0`). `batch=N` sets how many
//! leaves of the tree go through the network in one call; `gumbel=N` makes
//! the root consider the policy's N best moves and halve them down
//! (Gumbel root selection without its draws), for small `sims`.
//!
//! The network is anything that implements [`PolicyNet`]: the plain-Rust
//! network of a safetensors file ([`mancala_evalnet::PolicyValueNet`],
//! here, in every build) or libtorch's (the `mancala-neural` crate). Both
//! play through [`PolicyAgent`], so an improvement to the search reaches
//! both.

use std::path::PathBuf;
use std::sync::Arc;

use mancala_core::spec::{bad_value, Spec};
use mancala_core::SpecError;
use mancala_core::{Game, Move, Player};
use mancala_evalnet::{EvalNetError, PolicyValueNet};
use rand::rngs::SmallRng;

use crate::gumbel::GumbelRoot;
use crate::{
    Agent, AgentError, Budget, Evaluator, Mcts, MctsOptions, Pv, SearchInfo, SearchKind,
    StopCondition,
};

/// The PUCT exploration constant unless `c=` says otherwise.
pub const DEFAULT_C_PUCT: f64 = 1.5;

/// Leaves evaluated in one network call unless `batch=` says otherwise. A
/// call of 8 positions costs little more than a call of one in libtorch,
/// and virtual loss keeps 8 leaves of a few hundred simulations from
/// crowding into one line; `batch=1` is the plain sequential search.
pub const DEFAULT_BATCH: usize = 8;

/// Simulations a move when a spec gives no budget.
pub const DEFAULT_SIMS: u64 = 200;

/// The most moves a Gumbel root may consider.
pub const MAX_GUMBEL_ACTIONS: usize = 64;

/// A policy–value network as the agents use it.
pub trait PolicyNet: Send {
    /// The logits (`batch` rows of one per action) and the values (one a
    /// row, -1..1 for the mover) of `batch` observations laid end to end.
    ///
    /// # Errors
    /// Why the network could not run.
    fn infer(&self, observations: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), String>;

    /// Called on the thread that searches, before each search: libtorch
    /// limits its own threads here. Nothing by default.
    fn prepare_thread(&self) {}
}

impl PolicyNet for PolicyValueNet {
    fn infer(&self, observations: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
        let shape = self.shape();
        if observations.len() != batch * shape.inputs {
            return Err(format!(
                "{} numbers given for {batch} observations of {}",
                observations.len(),
                shape.inputs
            ));
        }
        let mut logits = vec![0.0; batch * shape.actions];
        let mut values = vec![0.0; batch];
        self.forward_rows(observations, &mut logits, &mut values);
        Ok((logits, values))
    }
}

impl<N: PolicyNet + Sync> PolicyNet for Arc<N> {
    fn infer(&self, observations: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
        (**self).infer(observations, batch)
    }
    fn prepare_thread(&self) {
        (**self).prepare_thread();
    }
}

/// Turns `values` into a distribution, `e^v` over their sum, in place
/// (the largest subtracted first, so that nothing overflows). Every
/// search's priors and policies go through it.
pub fn softmax_in_place(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        total += *v;
    }
    for v in values.iter_mut() {
        *v /= total;
    }
}

/// Turns a network's output for `state` into priors over the legal moves
/// (a softmax restricted to them, in `MoveSet` order) and player 0's
/// expected score.
pub fn priors_and_value<G: Game>(
    game: &G,
    state: &G::State,
    logits: &[f32],
    value: f32,
    priors: &mut Vec<f32>,
) -> f32 {
    let pits = game.pits();
    priors.clear();
    priors.extend(
        game.legal_moves(state)
            .into_iter()
            .map(|m| logits[m.action_index(pits)]),
    );
    softmax_in_place(priors);
    // The value is from the mover's side, in -1..1.
    let mover_score = (value.clamp(-1.0, 1.0) + 1.0) / 2.0;
    match game.to_move(state) {
        Some(Player::ONE) => 1.0 - mover_score,
        _ => mover_score,
    }
}

/// The index of the largest prior (ties: the first): the raw policy's move,
/// in `MoveSet` order.
pub fn preferred(priors: &[f32]) -> usize {
    (0..priors.len())
        .max_by(|&a, &b| priors[a].total_cmp(&priors[b]).then(b.cmp(&a)))
        .expect("a position not over has moves")
}

/// Evaluates positions one at a time with a network owned by the search.
#[derive(Debug)]
pub struct NetEvaluator<N> {
    net: N,
    obs: Vec<f32>,
}

impl<N: PolicyNet> NetEvaluator<N> {
    /// An evaluator over `net`.
    pub fn new(net: N) -> NetEvaluator<N> {
        NetEvaluator {
            net,
            obs: Vec::new(),
        }
    }

    /// The network.
    pub fn net(&self) -> &N {
        &self.net
    }
}

impl<G: Game, N: PolicyNet> Evaluator<G> for NetEvaluator<N> {
    fn uses_priors(&self) -> bool {
        true
    }

    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        _rng: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        self.obs.resize(game.observation_len(), 0.0);
        game.observe(state, &mut self.obs);
        // A failing network must not play on with made-up values: the
        // error ends the search, and the agent forfeits with the reason.
        let (logits, value) = self
            .net
            .infer(&self.obs, 1)
            .map_err(|e| AgentError::Failed(format!("network inference failed: {e}")))?;
        Ok(priors_and_value(game, state, &logits, value[0], priors))
    }
}

/// The options of a `neural:` spec, whichever network it names.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyOptions {
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
}

impl PolicyOptions {
    /// Reads `model` (required), `sims` (default 200) or `time`, `c`,
    /// `batch` and `gumbel`; reads no file.
    ///
    /// # Errors
    /// [`SpecError`] for a missing model or a bad option.
    pub fn from_spec(spec: &Spec) -> Result<PolicyOptions, SpecError> {
        spec.check_keys(&["model", "sims", "time", "c", "batch", "gumbel"])?;
        let model = spec.get("model").ok_or_else(|| {
            bad_value(
                "model",
                "(missing)",
                "the path of a model file, e.g. model=results/reference/kalah-best.safetensors",
            )
        })?;
        let budget = crate::read_budget(
            spec,
            crate::BudgetCount::Sims { fewest: 0 },
            Budget::Sims(DEFAULT_SIMS),
        )?;
        let c = spec.get_float("c", 0.0..=100.0)?.unwrap_or(DEFAULT_C_PUCT);
        let batch = spec
            .get_int("batch", 1..=1024)?
            .map_or(DEFAULT_BATCH, |b| b as usize);
        let gumbel = spec
            .get_int("gumbel", 1..=MAX_GUMBEL_ACTIONS as u64)?
            .map(|n| n as usize);
        if gumbel.is_some() && !matches!(budget, Budget::Sims(s) if s > 0) {
            // Sequential halving plans its phases from the simulation count.
            return Err(bad_value(
                "gumbel",
                spec.get("gumbel").unwrap_or_default(),
                "a Gumbel root needs a simulation count: sims=N with N at least 1, not time=",
            ));
        }
        Ok(PolicyOptions {
            model: PathBuf::from(model),
            budget,
            c,
            batch,
            gumbel,
        })
    }

    /// The agent these options make over `net`, named by the spec.
    pub fn agent<G: Game, N: PolicyNet + 'static>(&self, net: N) -> PolicyAgent<G, N> {
        PolicyAgent::new(self.to_string(), net, self.budget, self.c)
            .with_batch(self.batch)
            .with_gumbel_root(self.gumbel)
    }
}

impl std::fmt::Display for PolicyOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "neural:model={}", self.model.display())?;
        match self.budget {
            Budget::Time(t) => write!(f, ",time={}", crate::format_duration(t))?,
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

/// A `neural:` spec over a plain-Rust network (a safetensors file of
/// [`mancala_evalnet::POLICY_FORMAT`]), read once and shared by the agents
/// it builds: plays in every build, without libtorch.
#[derive(Clone, Debug)]
pub struct NetPolicySpec {
    /// The spec's options.
    pub options: PolicyOptions,
    net: Arc<PolicyValueNet>,
}

impl PartialEq for NetPolicySpec {
    fn eq(&self, other: &Self) -> bool {
        self.options == other.options
    }
}

impl NetPolicySpec {
    /// The spec of `options` over `net`, read from the file they name.
    pub fn new(options: PolicyOptions, net: PolicyValueNet) -> NetPolicySpec {
        NetPolicySpec {
            options,
            net: Arc::new(net),
        }
    }

    /// Reads the network the options name.
    ///
    /// # Errors
    /// What [`PolicyValueNet::load`] refuses.
    pub fn load(options: PolicyOptions) -> Result<NetPolicySpec, EvalNetError> {
        let net = PolicyValueNet::load(&options.model)?;
        Ok(NetPolicySpec {
            options,
            net: Arc::new(net),
        })
    }

    /// The network.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// Checks that the network fits `game`.
    ///
    /// # Errors
    /// [`EvalNetError::WrongGame`].
    pub fn check<G: Game>(&self, game: &G) -> Result<(), EvalNetError> {
        self.net.check(game)
    }

    /// A fresh agent.
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        Box::new(self.options.agent::<G, _>(Arc::clone(&self.net)))
    }
}

impl std::fmt::Display for NetPolicySpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.options.fmt(f)
    }
}

/// Plays with a policy–value network: PUCT search, or the raw policy.
pub struct PolicyAgent<G: Game, N: PolicyNet> {
    name: String,
    search: Option<Mcts<G, NetEvaluator<N>>>,
    raw: Option<NetEvaluator<N>>,
    batch: usize,
    /// Observations of a batch of leaves.
    obs: Vec<f32>,
    info: SearchInfo,
}

impl<G: Game, N: PolicyNet> PolicyAgent<G, N> {
    /// An agent over `net` searching within `budget` per move
    /// (`Budget::Sims(0)`: the raw policy), [`DEFAULT_BATCH`] leaves per
    /// network call unless [`PolicyAgent::with_batch`] says otherwise.
    pub fn new(name: String, net: N, budget: Budget, c: f64) -> PolicyAgent<G, N> {
        let evaluator = NetEvaluator::new(net);
        let (search, raw) = if budget == Budget::Sims(0) {
            (None, Some(evaluator))
        } else {
            let options = MctsOptions {
                budget,
                c,
                reuse: true,
                ..MctsOptions::default()
            };
            (Some(Mcts::new(options, evaluator)), None)
        };
        PolicyAgent {
            name,
            search,
            raw,
            batch: DEFAULT_BATCH,
            obs: Vec::new(),
            info: SearchInfo::default(),
        }
    }

    /// Evaluates up to `batch` leaves of the tree in one network call
    /// (virtual loss keeps them apart); 1 is the sequential search.
    pub fn with_batch(mut self, batch: usize) -> PolicyAgent<G, N> {
        self.batch = batch.max(1);
        self
    }

    /// Chooses the root's moves by sequential halving over the policy's
    /// `considered` best moves (no Gumbel draws: play is deterministic);
    /// `None` keeps PUCT. Needs a simulation budget.
    pub fn with_gumbel_root(mut self, considered: Option<usize>) -> PolicyAgent<G, N> {
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

    /// The raw policy's move: the network's preferred legal move.
    fn raw_policy(&mut self, game: &G, state: &G::State) -> Result<Move, AgentError> {
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
        let best = legal.nth(preferred(&priors));
        self.info = SearchInfo {
            kind: SearchKind::Mcts,
            nodes: 1,
            depth: 0,
            value: Some(f64::from(if game.to_move(state) == Some(Player::ZERO) {
                v
            } else {
                1.0 - v
            })),
            pv: Pv::of([best]),
            elapsed: t0.elapsed(),
            ..SearchInfo::default()
        };
        Ok(best)
    }
}

impl<G: Game, N: PolicyNet> Agent<G> for PolicyAgent<G, N> {
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
        let Some(search) = &mut self.search else {
            self.raw
                .as_ref()
                .expect("raw policy")
                .net()
                .prepare_thread();
            return self.raw_policy(game, state);
        };
        search.evaluator_mut().net().prepare_thread();
        let mv = if self.batch > 1 {
            self.search_in_batches(game, state, stop)?
        } else {
            search.choose_until(game, state, stop)?
        };
        self.info = self.search.as_ref().expect("searching").info();
        Ok(mv)
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
