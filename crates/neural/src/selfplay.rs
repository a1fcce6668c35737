//! Self-play with batched evaluations: each worker thread owns a copy of
//! the network and plays a group of games side by side. Every game's tree
//! search stops at its next leaf, the leaves of the whole group go through
//! the network in one call, and each search goes on with its answer.
//!
//! Why this shape: the network is small, so a call costs about the same for
//! one position as for dozens, and what limits self-play on a CPU is the
//! number of calls. A search in its own thread sending single positions to
//! a shared inference thread gave batches of 2 to 3 positions and a thread
//! switch per evaluation; a group of 50 games gives batches of about 40 with
//! no switching at all.
//!
//! Groups are made from the game indices alone, so which games share a
//! network call, and therefore every number the network returns, does not
//! depend on the number of threads: the same seed gives the same games on
//! any machine with the same libtorch.

use std::ops::Range;

use mancala_agents::gumbel::GumbelRoot;
use mancala_agents::{AgentError, Budget, Evaluator, Mcts, MctsOptions, RootNoise};
use mancala_core::{Game, Move, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::buffer::Sample;
use crate::config::{RootSelection, TrainConfig};
use crate::net::PolicyValueNet;
use crate::targets::ExactTargets;
use crate::NeuralError;
use mancala_agents::policy::priors_and_value;

/// The games of a generation split into groups of at most `batch_games`,
/// as even as can be (sizes differ by at most one).
pub fn groups(games: usize, batch_games: usize) -> Vec<Range<usize>> {
    if games == 0 {
        return Vec::new();
    }
    let count = games.div_ceil(batch_games.max(1));
    let (base, extra) = (games / count, games % count);
    let mut start = 0;
    (0..count)
        .map(|g| {
            let len = base + usize::from(g < extra);
            start += len;
            start - len..start
        })
        .collect()
}

/// Stands in for the network inside the tree searches: their leaves are
/// evaluated in batches by [`SelfPlay::play_group`], never one by one.
struct BatchedLeaves;

impl<G: Game> Evaluator<G> for BatchedLeaves {
    fn uses_priors(&self) -> bool {
        true
    }

    fn evaluate(
        &mut self,
        _game: &G,
        _state: &G::State,
        _rng: &mut SmallRng,
        _priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        Err(AgentError::Failed(
            "self-play evaluates its leaves in batches".into(),
        ))
    }
}

/// One game of a group: its search, position and the samples so far.
struct GameInProgress<G: Game> {
    index: usize,
    mcts: Mcts<G, BatchedLeaves>,
    state: G::State,
    rng: SmallRng,
    /// Moves played so far.
    plies: u32,
    /// Whether the search in progress is a full one, whose position
    /// becomes a sample (every search is, without `fast_sims`).
    full: bool,
    /// Each position of a full search: its observation, policy target,
    /// mover and (with perfect-play targets) the position itself.
    history: Vec<Searched<G>>,
}

/// A position searched in self-play, before its game's end gives it a value.
struct Searched<G: Game> {
    obs: Vec<f32>,
    policy: Vec<f32>,
    mover: Player,
    state: Option<G::State>,
}

impl<G: Game> GameInProgress<G> {
    fn new(game: &G, config: &TrainConfig, index: usize, seed: u64) -> GameInProgress<G> {
        let options = MctsOptions {
            budget: Budget::Sims(config.sims),
            c: config.c_puct,
            reuse: false,
            ..MctsOptions::default()
        };
        let mut mcts = Mcts::new(options, BatchedLeaves);
        mancala_agents::Agent::new_game(&mut mcts, seed);
        let mut one = GameInProgress {
            index,
            mcts,
            state: game.start(),
            rng: SmallRng::seed_from_u64(mancala_agents::derive_seed(seed, 7)),
            plies: 0,
            full: true,
            history: Vec::new(),
        };
        one.begin_search(game, config);
        one
    }

    /// Begins the search of the next move: a full one (noise, `sims`, a
    /// sample) or, with playout cap randomization, maybe a fast one.
    fn begin_search(&mut self, game: &G, config: &TrainConfig) {
        self.full = config.fast_sims == 0 || self.rng.random::<f32>() < config.full_search_share;
        let sims = if self.full {
            config.sims
        } else {
            config.fast_sims
        };
        self.mcts.set_budget(Budget::Sims(sims));
        match config.root_selection {
            RootSelection::Puct => self.mcts.set_root_noise(self.full.then_some(RootNoise {
                alpha: config.dirichlet_alpha,
                epsilon: config.dirichlet_epsilon,
            })),
            RootSelection::Gumbel => self.mcts.set_gumbel_root(Some(GumbelRoot {
                value_scale: config.gumbel_value_scale,
                rescale: config.gumbel_rescale,
                ..GumbelRoot::new(config.gumbel_actions, self.full)
            })),
        }
        self.mcts
            .begin(game, &self.state)
            .expect("the game is not over");
    }

    /// Records a full search as a sample and plays its move; starts the
    /// next search unless the game is over. Returns whether it is.
    fn play_searched_move(&mut self, game: &G, config: &TrainConfig, keep_states: bool) -> bool {
        let mover = game.to_move(&self.state).expect("a search needs a mover");
        let visits = self.mcts.root_visits();
        // A Gumbel root has chosen its move (its draws were the sampling)
        // and has a better target than its visits.
        let gumbel = self.mcts.improved_policy();
        let chosen = self.mcts.end_search().ok();
        if self.full {
            let mut policy = vec![0.0f32; game.num_actions()];
            match &gumbel {
                Some(improved) => {
                    for (mv, p) in improved {
                        policy[mv.action_index(game.pits())] = *p;
                    }
                }
                None => {
                    let total: u32 = visits.iter().map(|(_, n)| n).sum::<u32>().max(1);
                    for (mv, n) in &visits {
                        policy[mv.action_index(game.pits())] = *n as f32 / total as f32;
                    }
                }
            }
            let mut obs = vec![0.0; game.observation_len()];
            game.observe(&self.state, &mut obs);
            self.history.push(Searched {
                obs,
                policy,
                mover,
                state: keep_states.then(|| self.state.clone()),
            });
        }
        self.plies += 1;
        let mv = match (&gumbel, chosen) {
            (Some(improved), _) if self.plies <= config.temperature_moves => {
                sample_by_policy(improved, &mut self.rng)
            }
            (Some(_), Some(mv)) => mv,
            _ if self.plies <= config.temperature_moves => sample_by_visits(&visits, &mut self.rng),
            _ => visits
                .iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .map(|(m, _)| *m)
                .expect("a position not over has moves"),
        };
        game.play_unchecked(&mut self.state, mv);
        if game.is_over(&self.state) {
            return true;
        }
        self.begin_search(game, config);
        false
    }

    /// The training samples of the finished game, and how many of them
    /// have perfect-play targets: the game's result (or margin) from each
    /// mover's side, or, where `targets` values the position, its exact
    /// value, with the best moves mixed into the visit distribution.
    fn samples(
        self,
        game: &G,
        config: &TrainConfig,
        targets: Option<&ExactTargets<G>>,
    ) -> Result<(Vec<Sample>, u64), NeuralError> {
        let Some(outcome) = game.outcome(&self.state) else {
            return Ok((Vec::new(), 0));
        };
        let value_of = |margin: i32| config.value_target.of_margin(margin, game.total_seeds());
        let mut exact = 0;
        let mut samples = Vec::with_capacity(self.history.len());
        for searched in self.history {
            let Searched {
                obs,
                mut policy,
                mover,
                state,
            } = searched;
            let target = match (targets, &state) {
                (Some(t), Some(state)) => t.target(game, state)?,
                _ => None,
            };
            let value = match target {
                Some(target) => {
                    exact += 1;
                    if let Some(best) = target.best.filter(|_| config.exact_policy > 0.0) {
                        let w = config.exact_policy;
                        let share = w / best.len() as f32;
                        for p in &mut policy {
                            *p *= 1.0 - w;
                        }
                        for mv in best {
                            policy[mv.action_index(game.pits())] += share;
                        }
                    }
                    value_of(target.margin)
                }
                None => value_of(outcome.margin_for(mover)),
            };
            samples.push(Sample { obs, policy, value });
        }
        Ok((samples, exact))
    }
}

/// What a group of games produced.
pub struct GroupResult {
    /// Each game's index and samples, in the order the games ended.
    pub games: Vec<(usize, Vec<Sample>)>,
    /// Network evaluations.
    pub evaluations: u64,
    /// Network calls.
    pub batches: u64,
    /// Samples whose targets are perfect play's.
    pub exact: u64,
}

/// What self-play plays: the game, the training config and, where the
/// config asks for them, the perfect-play targets of its samples.
pub struct SelfPlay<'a, G: Game> {
    /// The game played.
    pub game: &'a G,
    /// Simulations, temperatures, noise and targets.
    pub config: &'a TrainConfig,
    /// Exact values and best moves, where `config.exact_nodes` asks.
    pub targets: Option<&'a ExactTargets<G>>,
}

impl<G: Game> SelfPlay<'_, G> {
    /// Plays the games `indices` side by side with `net`, each seeded by
    /// `seed_of(index)`; `on_game` is called as each one ends. `None` if
    /// `stopped()` became true first.
    ///
    /// # Errors
    /// [`NeuralError`] if the network fails: no game goes on with made-up
    /// values.
    pub fn play_group(
        &self,
        net: &PolicyValueNet,
        indices: Range<usize>,
        seed_of: impl Fn(usize) -> u64,
        stopped: impl Fn() -> bool,
        on_game: impl Fn(),
    ) -> Result<Option<GroupResult>, NeuralError> {
        let (game, config, targets) = (self.game, self.config, self.targets);
        let (inputs, actions) = (net.info().shape.inputs, net.info().shape.actions);
        if inputs != game.observation_len() || actions != game.num_actions() {
            return Err(NeuralError::Mismatch(format!(
                "the network takes {inputs} inputs and gives {actions} actions, the game has {} and {}",
                game.observation_len(),
                game.num_actions()
            )));
        }
        let mut playing: Vec<GameInProgress<G>> = indices
            .map(|i| GameInProgress::new(game, config, i, seed_of(i)))
            .collect();
        let mut result = GroupResult {
            games: Vec::with_capacity(playing.len()),
            evaluations: 0,
            batches: 0,
            exact: 0,
        };
        let mut obs = vec![0.0f32; playing.len() * inputs];
        let mut waiting: Vec<usize> = Vec::with_capacity(playing.len());
        while !playing.is_empty() {
            if stopped() {
                return Ok(None);
            }
            // Bring every game to its next leaf; a game whose search is spent
            // plays its move first, and a game that ends leaves the group.
            waiting.clear();
            let mut t = 0;
            while t < playing.len() {
                let one = &mut playing[t];
                let over = loop {
                    if let Some(leaf) = one.mcts.next_leaf(game) {
                        let row = waiting.len();
                        game.observe(leaf, &mut obs[row * inputs..(row + 1) * inputs]);
                        waiting.push(t);
                        break false;
                    }
                    if one.play_searched_move(game, config, targets.is_some()) {
                        break true;
                    }
                };
                if over {
                    // The last game moves into slot `t`: its leaf is not taken yet.
                    let one = playing.swap_remove(t);
                    let index = one.index;
                    let (samples, exact) = one.samples(game, config, targets)?;
                    result.exact += exact;
                    result.games.push((index, samples));
                    on_game();
                } else {
                    t += 1;
                }
            }
            if waiting.is_empty() {
                continue;
            }
            let n = waiting.len();
            let (logits, values) = net.infer(&obs[..n * inputs], n)?;
            result.evaluations += n as u64;
            result.batches += 1;
            for (row, &t) in waiting.iter().enumerate() {
                let logits = &logits[row * actions..(row + 1) * actions];
                playing[t].mcts.finish_leaf(game, |state, priors| {
                    priors_and_value(game, state, logits, values[row], priors)
                });
            }
        }
        Ok(Some(result))
    }
}

/// A move drawn from `policy`, a distribution over the moves.
fn sample_by_policy(policy: &[(Move, f32)], rng: &mut SmallRng) -> Move {
    let mut pick = rng.random::<f32>() * policy.iter().map(|(_, p)| p).sum::<f32>();
    for (mv, p) in policy {
        if pick < *p {
            return *mv;
        }
        pick -= p;
    }
    policy[policy.len() - 1].0
}

/// A move drawn in proportion to its visits (temperature 1).
fn sample_by_visits(visits: &[(Move, u32)], rng: &mut SmallRng) -> Move {
    let total: u32 = visits.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return visits[rng.random_range(0..visits.len())].0;
    }
    let mut pick = rng.random_range(0..total);
    for (mv, n) in visits {
        if pick < *n {
            return *mv;
        }
        pick -= n;
    }
    visits[visits.len() - 1].0
}
