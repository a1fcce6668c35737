//! The `mcts` agent: Monte Carlo tree search.
//!
//! One tree search serves two kinds of agents. With the default
//! [`RolloutEvaluator`] it is UCT with random (or greedy) rollouts; an
//! [`Evaluator`] that supplies move priors and values, such as a neural
//! network, turns selection into PUCT (AlphaZero) without other changes.
//!
//! Each node stores the player who made the move into it, and its value sum
//! is from that player's side. A parent picks among its children by their
//! values as they are (the children's mover is the parent's player to move),
//! and backing up adds a result from each node's own player's side. No sign
//! is flipped by depth, so Kalah's extra turns are handled without a special
//! case.

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, Instant};

use mancala_core::{random_playout, Game, Move, Player, MAX_PITS};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::greedy::turn_gains;
use crate::gumbel::{self, GumbelRoot};
use crate::{Agent, AgentError, Budget, Clock, Pv, SearchInfo, SearchKind, StopCondition};

/// Search tunables.
mod params {
    /// The tree is dropped and grown anew past this many nodes (about 24
    /// bytes each), so time budgets cannot exhaust memory.
    pub const MAX_NODES: usize = 4_000_000;
    /// How deep below the old root a reused tree is searched for the new position.
    pub const REUSE_DEPTH: u32 = 6;
    /// Simulations between two looks at the clock.
    pub const CLOCK_INTERVAL: u64 = 64;
    /// Chance of a random move in a heuristic rollout: some randomness keeps
    /// the rollouts from all telling the same story (0.1 to 0.3 played
    /// alike against greedy; 0 is worse).
    pub const ROLLOUT_EPSILON: f32 = 0.2;
    /// The longest sequential-halving schedule a Gumbel root plans (time
    /// budgets have no simulation count); past it every considered move
    /// is visited in turn.
    pub const MAX_SCHEDULE: u64 = 1 << 16;
}

/// How rollouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RolloutPolicy {
    /// Uniformly random moves: the fastest, and the classic UCT.
    Random,
    /// Mostly the move with the best immediate gain (an extra turn counts
    /// one seed more), a random one with probability 0.2; ties at random.
    /// About five times slower than random, and much stronger per
    /// simulation (2000 simulations against greedy on Kalah(6,4): 88%
    /// against 65% with random rollouts).
    Heuristic,
    /// The greedy agent's choice, whole turns looked through, ties at random.
    Greedy,
}

impl RolloutPolicy {
    /// Names as written in a spec, in the order of [`RolloutPolicy::ALL`].
    pub const NAMES: &'static [&'static str] = &["random", "heuristic", "greedy"];
    /// Every policy.
    pub const ALL: [RolloutPolicy; 3] = [
        RolloutPolicy::Random,
        RolloutPolicy::Heuristic,
        RolloutPolicy::Greedy,
    ];
}

impl fmt::Display for RolloutPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(RolloutPolicy::NAMES[*self as usize])
    }
}

/// Options of the MCTS agent.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsOptions {
    /// Simulations or time per move.
    pub budget: Budget,
    /// Exploration constant (UCT's `c`, or PUCT's `c_puct` with priors).
    pub c: f64,
    /// Rollout policy of the default evaluator.
    pub rollout: RolloutPolicy,
    /// Keep the subtree of the position reached between two moves of a game.
    pub reuse: bool,
    /// A value network scores the leaves instead of rollouts
    /// (`eval=net:PATH`, [`NetValueEvaluator`]).
    pub value: Option<crate::NetEval>,
    /// With a value network: PUCT, with each move's prior from the
    /// network's value of the position it leads to (`priors=net`), instead
    /// of UCT. `c` is then PUCT's constant.
    pub net_priors: bool,
}

impl MctsOptions {
    /// The exploration constant when the spec gives none: UCT's, or with
    /// priors the PUCT constant of the `neural:` agent.
    pub fn default_c(net_priors: bool) -> f64 {
        if net_priors {
            crate::policy::DEFAULT_C_PUCT
        } else {
            MctsOptions::default().c
        }
    }
}

impl Default for MctsOptions {
    fn default() -> MctsOptions {
        MctsOptions {
            budget: Budget::Sims(1000),
            // Tuned against greedy on Kalah(6,4) with heuristic rollouts
            // (0.3: 86%, 0.5: 91%, 0.8: 83%); with random rollouts 0.7 and
            // 1.4 did alike.
            c: 0.5,
            rollout: RolloutPolicy::Heuristic,
            reuse: true,
            value: None,
            net_priors: false,
        }
    }
}

/// Scores positions for the tree search: a value, and optionally priors.
pub trait Evaluator<G: Game>: Send {
    /// Whether [`Evaluator::evaluate`] fills priors (PUCT) or not (UCT).
    fn uses_priors(&self) -> bool;

    /// The expected score of player 0 (1 win, ½ draw, 0 loss) in a
    /// position that is not over; with priors, also fills `priors` with
    /// one probability per legal move, in [`mancala_core::MoveSet`] order.
    ///
    /// # Errors
    /// [`AgentError::Failed`] when the evaluator cannot answer (a network
    /// that fails to run): the search stops with that error rather than go
    /// on with made-up values.
    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        rng: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError>;
}

/// The classic evaluator: play the game out with a rollout policy.
#[derive(Clone, Copy, Debug)]
pub struct RolloutEvaluator {
    policy: RolloutPolicy,
}

impl RolloutEvaluator {
    /// Rollouts with `policy`.
    pub fn new(policy: RolloutPolicy) -> RolloutEvaluator {
        RolloutEvaluator { policy }
    }
}

/// A value network's estimate instead of a rollout: its margin for player
/// 0, `m` seeds, becomes the expected score `1 / (1 + e^(-m / 2))`, a
/// logistic whose scale (2 seeds) is about the half the networks'
/// typical error, so that a lead of a seed or two is not taken for a sure
/// win.
///
/// With priors (`priors=net`) it also gives PUCT its priors: each move's
/// is a softmax of the mover's margin after it, as the network values the
/// position the move leads to (a finished game by its final margin), at
/// the same 2 seeds a unit. A value network has no policy head; one ply of
/// its values is the policy it implies, for six or so more evaluations a
/// leaf, which cost far less than the tree's own work.
#[derive(Clone, Debug)]
pub struct NetValueEvaluator {
    net: crate::NetEval,
    priors: bool,
}

impl NetValueEvaluator {
    /// Seeds of margin per unit of the logistic.
    pub const SCALE_SEEDS: f32 = 2.0;

    /// Leaves scored by `net`, and with `priors` PUCT's priors too.
    pub fn new(net: crate::NetEval, priors: bool) -> NetValueEvaluator {
        NetValueEvaluator { net, priors }
    }

    /// The mover's margin after each legal move, in `MoveSet` order, as a
    /// softmax at [`NetValueEvaluator::SCALE_SEEDS`] into `priors`.
    fn fill_priors<G: Game>(
        &self,
        game: &G,
        state: &G::State,
        mover: Player,
        priors: &mut Vec<f32>,
    ) {
        priors.clear();
        let mut child = state.clone();
        for mv in game.legal_moves(state) {
            child.clone_from(state);
            game.play_unchecked(&mut child, mv);
            let margin = match game.to_move(&child) {
                None => game.outcome(&child).expect("finished").margin_for(mover) as f32,
                Some(next) if next == mover => self.net.net().margin(game, &child),
                Some(_) => -self.net.net().margin(game, &child),
            };
            priors.push(margin / Self::SCALE_SEEDS);
        }
        crate::policy::softmax_in_place(priors);
    }
}

impl<G: Game> Evaluator<G> for NetValueEvaluator {
    fn uses_priors(&self) -> bool {
        self.priors
    }

    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        _rng: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        // Cheap when it fits; a network of another game would read past
        // its inputs.
        self.net
            .net()
            .inputs()
            .check(game)
            .map_err(|e| AgentError::Failed(format!("eval=net:{}: {e}", self.net.path())))?;
        let mover = game.to_move(state).expect("a leaf not over");
        if self.priors {
            self.fill_priors(game, state, mover, priors);
        }
        let margin = self.net.net().margin(game, state);
        let for_zero = if mover == Player::ONE {
            -margin
        } else {
            margin
        };
        Ok(1.0 / (1.0 + (-for_zero / Self::SCALE_SEEDS).exp()))
    }
}

/// Player 0's score for a finished game: 1, ½ or 0.
fn score_for_zero(winner: Option<Player>) -> f32 {
    match winner {
        Some(Player::ZERO) => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn uses_priors(&self) -> bool {
        false
    }

    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        rng: &mut SmallRng,
        _priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        let mut s = state.clone();
        let outcome = match self.policy {
            RolloutPolicy::Random => random_playout(game, &mut s, rng),
            RolloutPolicy::Heuristic => {
                while game.to_move(&s).is_some() {
                    let mv = heuristic_rollout_move(game, &s, rng);
                    game.play_unchecked(&mut s, mv);
                }
                game.outcome(&s).expect("finished")
            }
            RolloutPolicy::Greedy => {
                while let Some(mover) = game.to_move(&s) {
                    let mv = greedy_rollout_move(game, &s, mover, rng);
                    game.play_unchecked(&mut s, mv);
                }
                game.outcome(&s).expect("finished")
            }
        };
        Ok(score_for_zero(outcome.winner()))
    }
}

fn heuristic_rollout_move<G: Game>(game: &G, state: &G::State, rng: &mut SmallRng) -> Move {
    let legal = game.legal_moves(state);
    if legal.len() == 1 || rng.random::<f32>() < params::ROLLOUT_EPSILON {
        return legal.nth(rng.random_range(0..legal.len()));
    }
    let mover = game.to_move(state).expect("not over");
    let before = i32::from(game.scores(state)[mover]);
    let mut best = (i32::MIN, 0u32, Move::Pit(0));
    for mv in legal {
        let mut next = state.clone();
        game.play_unchecked(&mut next, mv);
        let gain = i32::from(game.scores(&next)[mover]) - before
            + i32::from(game.to_move(&next) == Some(mover));
        let tie = rng.random::<u32>();
        if (gain, tie) > (best.0, best.1) {
            best = (gain, tie, mv);
        }
    }
    best.2
}

fn greedy_rollout_move<G: Game>(
    game: &G,
    state: &G::State,
    mover: Player,
    rng: &mut SmallRng,
) -> Move {
    let mut best = (i32::MIN, 0u32, Move::Pit(0));
    let mut gains = [0; MAX_PITS + 1];
    turn_gains(game, state, mover, &mut gains);
    for mv in game.legal_moves(state) {
        let gain = gains[mv.action_index(game.pits())];
        // Random tie-break: a fresh random key per move.
        let tie = rng.random::<u32>();
        if (gain, tie) > (best.0, best.1) {
            best = (gain, tie, mv);
        }
    }
    best.2
}

/// Dirichlet noise mixed into the root's priors, as in AlphaZero's
/// self-play: `prior = (1 - epsilon) * prior + epsilon * Dir(alpha)`.
/// Applied when the root is expanded, so use it with `reuse = false`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootNoise {
    /// Concentration of the Dirichlet distribution.
    pub alpha: f32,
    /// Weight of the noise.
    pub epsilon: f32,
}

/// Adds `value` (player 0's score) to the value sums of the nodes of
/// `path`, each from its own player's side.
fn add_value(nodes: &mut [Node], path: &[u32], value: f32) {
    for &i in path {
        let n = &mut nodes[i as usize];
        n.value_sum += if n.player == Player::ZERO {
            value
        } else {
            1.0 - value
        };
    }
}

/// A tree node. Children of a node are contiguous in the arena.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The move into this node.
    mv: Move,
    /// Who played `mv`; `value_sum` is from their side.
    player: Player,
    /// Whether the children exist.
    expanded: bool,
    num_children: u8,
    first_child: u32,
    visits: u32,
    value_sum: f32,
    prior: f32,
}

impl Node {
    fn new(mv: Move, player: Player, prior: f32) -> Node {
        Node {
            mv,
            player,
            expanded: false,
            num_children: 0,
            first_child: 0,
            visits: 0,
            value_sum: 0.0,
            prior,
        }
    }

    fn mean(&self) -> f32 {
        if self.visits == 0 {
            0.5
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// Monte Carlo tree search with an [`Evaluator`].
pub struct Mcts<G: Game, E: Evaluator<G>> {
    options: MctsOptions,
    evaluator: E,
    rng: SmallRng,
    nodes: Vec<Node>,
    root: u32,
    /// The position at `root`, for finding the next position in the tree.
    root_state: Option<G::State>,
    priors: Vec<f32>,
    path: Vec<u32>,
    info: SearchInfo,
    noise: Option<RootNoise>,
    /// Gumbel root selection instead of PUCT at the root.
    gumbel: Option<GumbelRoot>,
    /// The Gumbel draws and schedule of the current search's root, made
    /// once the root is expanded.
    root_gumbel: Option<RootGumbel>,
    /// Simulations the current search may make.
    budget_sims: u64,
    /// The search in progress when the caller evaluates the leaves.
    stepwise: Option<Stepwise<G::State>>,
}

/// What a Gumbel root keeps for one search, per root child in order.
struct RootGumbel {
    /// What the search was begun with.
    config: GumbelRoot,
    /// The Gumbel draws (zero without noise).
    noise: Vec<f32>,
    /// The priors' logits.
    logits: Vec<f32>,
    /// Whether the child is among the moves considered.
    considered: Vec<bool>,
    /// The visits the chosen child must have, by simulation.
    schedule: Vec<u32>,
    /// The evaluator's value of the root, from its mover's side.
    value: f32,
}

/// A search whose leaves are evaluated by the caller ([`Mcts::begin`]).
struct Stepwise<S> {
    root_state: S,
    sims: u64,
    max_sims: u64,
    deadline: Option<Instant>,
    started: Instant,
    /// The longest path from the root so far.
    deepest: u32,
    /// Leaves given out and not yet evaluated, oldest first.
    pending: VecDeque<Leaf<S>>,
}

/// A leaf waiting for its evaluation: every node on its path already
/// counts the visit (a virtual loss for the players who moved into them),
/// so the next descent looks elsewhere; the value comes with
/// [`Mcts::finish_leaf`].
struct Leaf<S> {
    node: u32,
    state: S,
    path: Vec<u32>,
}

impl<G: Game, E: Evaluator<G>> fmt::Debug for Mcts<G, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mcts")
            .field("options", &self.options)
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

impl<G: Game, E: Evaluator<G>> Mcts<G, E> {
    /// A tree search with `options` and `evaluator`; seed it with [`Agent::new_game`].
    pub fn new(options: MctsOptions, evaluator: E) -> Mcts<G, E> {
        Mcts {
            options,
            evaluator,
            rng: SmallRng::seed_from_u64(0),
            nodes: Vec::new(),
            root: 0,
            root_state: None,
            priors: Vec::new(),
            path: Vec::new(),
            info: SearchInfo::default(),
            noise: None,
            gumbel: None,
            root_gumbel: None,
            budget_sims: 0,
            stepwise: None,
        }
    }

    /// Chooses the root's moves by Gumbel sampling and sequential halving
    /// (see [`crate::gumbel`]) instead of PUCT; the move played is then the
    /// best of the last ones standing, and [`Mcts::improved_policy`] gives
    /// the training target. Each search grows its tree anew (the halving
    /// counts the root's visits from zero), and Dirichlet noise is not
    /// added: the Gumbel draws explore instead.
    pub fn set_gumbel_root(&mut self, gumbel: Option<GumbelRoot>) {
        self.gumbel = gumbel;
    }

    /// The budget of the searches from now on (self-play gives some moves
    /// fewer simulations than others).
    pub fn set_budget(&mut self, budget: Budget) {
        self.options.budget = budget;
    }

    /// Mixes Dirichlet noise into the priors of every new root (self-play).
    pub fn set_root_noise(&mut self, noise: Option<RootNoise>) {
        self.noise = noise;
    }

    /// The evaluator (for example to reach a network).
    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.evaluator
    }

    fn reset_tree(&mut self, game: &G, state: &G::State) {
        self.nodes.clear();
        // The root's own move and player are never read.
        let player = game.to_move(state).unwrap_or(Player::ZERO);
        self.nodes.push(Node::new(Move::Pit(0), player, 1.0));
        self.root = 0;
        self.root_state = Some(state.clone());
    }

    /// Moves the root to the node of `state` if the tree has it.
    fn reuse_tree(&mut self, game: &G, state: &G::State) -> bool {
        let Some(old) = self.root_state.clone() else {
            return false;
        };
        if old == *state {
            return true;
        }
        if let Some(node) = self.find(game, &old, self.root, state, params::REUSE_DEPTH) {
            self.root = node;
            self.root_state = Some(state.clone());
            return true;
        }
        false
    }

    fn find(
        &self,
        game: &G,
        at: &G::State,
        node: u32,
        target: &G::State,
        depth: u32,
    ) -> Option<u32> {
        let n = self.nodes[node as usize];
        if depth == 0 || !n.expanded {
            return None;
        }
        for c in n.first_child..n.first_child + u32::from(n.num_children) {
            let mut s = at.clone();
            game.play_unchecked(&mut s, self.nodes[c as usize].mv);
            if s == *target {
                return Some(c);
            }
            if let Some(found) = self.find(game, &s, c, target, depth - 1) {
                return Some(found);
            }
        }
        None
    }

    /// Creates the children of `node` (at `state`, not over) and returns
    /// the evaluator's value for player 0.
    fn expand(&mut self, game: &G, state: &G::State, node: u32) -> Result<f32, AgentError> {
        self.priors.clear();
        let value = self
            .evaluator
            .evaluate(game, state, &mut self.rng, &mut self.priors)?;
        self.add_children(game, state, node);
        Ok(value)
    }

    /// Creates the children of `node` (at `state`, not over), with the
    /// priors in `self.priors` when the evaluator gives priors.
    fn add_children(&mut self, game: &G, state: &G::State, node: u32) {
        let legal = game.legal_moves(state);
        let mover = game.to_move(state).expect("expanding a finished game");
        let first = self.nodes.len() as u32;
        let uniform = 1.0 / legal.len() as f32;
        let with_priors = self.evaluator.uses_priors() && self.priors.len() == legal.len();
        for (i, mv) in legal.into_iter().enumerate() {
            let prior = if with_priors { self.priors[i] } else { uniform };
            self.nodes.push(Node::new(mv, mover, prior));
        }
        if !self.evaluator.uses_priors() {
            // Unvisited children are tried in a seeded random order.
            self.nodes[first as usize..].shuffle(&mut self.rng);
        } else if let (Some(noise), true) = (self.noise, node == self.root && self.gumbel.is_none())
        {
            self.add_noise(first as usize, noise);
        }
        let n = &mut self.nodes[node as usize];
        n.expanded = true;
        n.first_child = first;
        n.num_children = legal.len() as u8;
    }

    fn add_noise(&mut self, first: usize, noise: RootNoise) {
        let children = &mut self.nodes[first..];
        if children.len() < 2 {
            return;
        }
        let Ok(gamma) = rand_distr::Gamma::new(noise.alpha.max(1e-3), 1.0) else {
            return;
        };
        let draws: Vec<f32> = children
            .iter()
            .map(|_| rand_distr::Distribution::sample(&gamma, &mut self.rng))
            .collect();
        let total: f32 = draws.iter().sum::<f32>().max(f32::MIN_POSITIVE);
        for (child, d) in children.iter_mut().zip(draws) {
            child.prior = (1.0 - noise.epsilon) * child.prior + noise.epsilon * d / total;
        }
    }

    /// The child of `node` to descend into.
    fn select(&self, node: u32) -> u32 {
        let n = self.nodes[node as usize];
        let children = n.first_child..n.first_child + u32::from(n.num_children);
        let c = self.options.c as f32;
        let mut best = (f32::NEG_INFINITY, n.first_child);
        if self.evaluator.uses_priors() {
            let sqrt_n = (n.visits as f32).sqrt();
            // Unvisited children start from the parent's value for the player
            // to move there (first-play urgency); that player is every
            // child's `player`, and may be the parent's own (extra turn).
            let mover = self.nodes[n.first_child as usize].player;
            let fpu = if n.player == mover {
                n.mean()
            } else {
                1.0 - n.mean()
            };
            for i in children {
                let ch = &self.nodes[i as usize];
                let q = if ch.visits == 0 { fpu } else { ch.mean() };
                let score = q + c * ch.prior * sqrt_n / (1.0 + ch.visits as f32);
                if score > best.0 {
                    best = (score, i);
                }
            }
        } else {
            let log_n = (n.visits.max(1) as f32).ln();
            for i in children {
                let ch = &self.nodes[i as usize];
                if ch.visits == 0 {
                    return i;
                }
                let score = ch.mean() + c * (log_n / ch.visits as f32).sqrt();
                if score > best.0 {
                    best = (score, i);
                }
            }
        }
        best.1
    }

    /// Walks from the root to a node not yet expanded or a finished game,
    /// leaving the nodes passed in `self.path`; returns that position and node.
    fn descend(&mut self, game: &G, root_state: &G::State) -> (G::State, u32) {
        let mut state = root_state.clone();
        let mut node = self.root;
        self.path.clear();
        self.path.push(node);
        while !game.is_over(&state) && self.nodes[node as usize].expanded {
            node = if node == self.root && self.gumbel.is_some() {
                self.select_gumbel_root()
            } else {
                self.select(node)
            };
            game.play_unchecked(&mut state, self.nodes[node as usize].mv);
            self.path.push(node);
        }
        (state, node)
    }

    /// Adds `value` (player 0's score) to every node of `self.path`.
    fn backup(&mut self, value: f32) {
        for &i in &self.path {
            self.nodes[i as usize].visits += 1;
        }
        add_value(&mut self.nodes, &self.path, value);
    }

    /// One simulation from the root; returns the depth it reached.
    fn simulate(&mut self, game: &G, root_state: &G::State) -> Result<u32, AgentError> {
        let (state, node) = self.descend(game, root_state);
        let value = match game.outcome(&state) {
            Some(outcome) => score_for_zero(outcome.winner()),
            None => self.expand(game, &state, node)?,
        };
        self.backup(value);
        Ok(self.path.len() as u32 - 1)
    }

    /// Prepares a search from `state` (the tree reused or grown anew).
    fn prepare(&mut self, game: &G, state: &G::State) -> Result<(), AgentError> {
        if game.is_over(state) {
            return Err(AgentError::GameOver);
        }
        if !(self.options.reuse && self.gumbel.is_none() && self.reuse_tree(game, state))
            || self.nodes.len() > params::MAX_NODES
        {
            self.reset_tree(game, state);
        }
        self.root_gumbel = None;
        Ok(())
    }

    /// The simulation count and deadline of the budget, from `t0`, for
    /// the mover of `state` when its move comes with `clock`.
    fn limits(
        &self,
        game: &G,
        state: &G::State,
        t0: Instant,
        clock: Option<&Clock>,
    ) -> (u64, Option<Instant>) {
        let sims = match self.options.budget {
            Budget::Sims(s) => s,
            Budget::Time(_) | Budget::Auto => u64::MAX,
            // Not reachable from a spec: treat a depth as a simulation count.
            Budget::Depth(d) => u64::from(d),
        };
        let mover = game.to_move(state).unwrap_or(Player::ZERO);
        (sims, self.options.budget.deadline(t0, clock, mover))
    }

    /// Starts a search from `state` whose leaves the caller evaluates, so
    /// that leaves can go through a network in batches: those of many games
    /// (self-play), or several of one tree (the `neural` agent). Call
    /// [`Mcts::next_leaf`] up to the batch size, evaluate the positions it
    /// gives, hand the results to [`Mcts::finish_leaf`] in the same order,
    /// and repeat until `next_leaf` gives nothing with no leaf pending;
    /// [`Mcts::end_search`] then gives the move. One leaf at a time, this is
    /// exactly the search [`Mcts::search`] makes. The evaluator given to
    /// [`Mcts::new`] is not called, but its [`Evaluator::uses_priors`] still
    /// chooses PUCT or UCT.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] when the game is over.
    pub fn begin(&mut self, game: &G, state: &G::State) -> Result<(), AgentError> {
        self.begin_with_clock(game, state, None)
    }

    /// [`Mcts::begin`] for a move that comes with a game clock, which a
    /// `time=auto` budget plans with.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] when the game is over.
    pub fn begin_with_clock(
        &mut self,
        game: &G,
        state: &G::State,
        clock: Option<&Clock>,
    ) -> Result<(), AgentError> {
        // An abandoned search's leaves still hold their virtual visits: that
        // tree cannot be reused.
        if self
            .stepwise
            .take()
            .is_some_and(|step| !step.pending.is_empty())
        {
            self.root_state = None;
        }
        let started = Instant::now();
        self.prepare(game, state)?;
        let (max_sims, deadline) = self.limits(game, state, started, clock);
        self.budget_sims = max_sims;
        self.stepwise = Some(Stepwise {
            root_state: state.clone(),
            sims: 0,
            max_sims,
            deadline,
            started,
            deepest: 0,
            pending: VecDeque::new(),
        });
        Ok(())
    }

    /// The next position of the search started by [`Mcts::begin`] that
    /// needs an evaluation, or `None` when there is none to give now: the
    /// budget is spent, or (with leaves pending) the search came back to a
    /// pending leaf, and the pending ones must be finished first. Finished
    /// games met on the way are scored and backed up here. Every call gives
    /// a new leaf, and every leaf counts as a simulation.
    pub fn next_leaf(&mut self, game: &G) -> Option<&G::State> {
        let mut step = self.stepwise.take()?;
        let taken = loop {
            let spent = step.sims >= step.max_sims
                || self.nodes.len() > params::MAX_NODES
                || (step.sims > 0
                    && step.sims.is_multiple_of(params::CLOCK_INTERVAL)
                    && step.deadline.is_some_and(|d| Instant::now() >= d));
            if spent {
                break false;
            }
            let (state, node) = self.descend(game, &step.root_state);
            if step.pending.iter().any(|leaf| leaf.node == node) {
                break false;
            }
            step.sims += 1;
            step.deepest = step.deepest.max(self.path.len() as u32 - 1);
            if let Some(outcome) = game.outcome(&state) {
                self.backup(score_for_zero(outcome.winner()));
                continue;
            }
            for &i in &self.path {
                self.nodes[i as usize].visits += 1;
            }
            // The path moves into the leaf; `finish_leaf` hands its buffer
            // back, so one leaf at a time allocates nothing.
            step.pending.push_back(Leaf {
                node,
                state,
                path: std::mem::take(&mut self.path),
            });
            break true;
        };
        let step = self.stepwise.insert(step);
        if taken {
            step.pending.back().map(|leaf| &leaf.state)
        } else {
            None
        }
    }

    /// Completes the oldest pending leaf [`Mcts::next_leaf`] gave:
    /// `evaluate` fills the priors (one per legal move, in
    /// [`mancala_core::MoveSet`] order) and returns player 0's expected
    /// score there. Does nothing without a pending leaf.
    pub fn finish_leaf(
        &mut self,
        game: &G,
        evaluate: impl FnOnce(&G::State, &mut Vec<f32>) -> f32,
    ) {
        let Some(leaf) = self.stepwise.as_mut().and_then(|s| s.pending.pop_front()) else {
            return;
        };
        self.priors.clear();
        let value = evaluate(&leaf.state, &mut self.priors);
        self.add_children(game, &leaf.state, leaf.node);
        // The visits were counted when the leaf was given out.
        add_value(&mut self.nodes, &leaf.path, value);
        if self.path.capacity() == 0 {
            self.path = leaf.path;
        }
    }

    /// Ends the search started by [`Mcts::begin`], whose leaves must all be
    /// finished: its move, with [`Agent::info`] set as after
    /// [`Mcts::search`].
    ///
    /// # Errors
    /// [`AgentError::Stopped`] when the search made no simulation, or
    /// without a search begun; [`AgentError::Failed`] with leaves pending.
    pub fn end_search(&mut self) -> Result<Move, AgentError> {
        let Some(step) = self.stepwise.take() else {
            return Err(AgentError::Stopped);
        };
        if !step.pending.is_empty() {
            let pending = step.pending.len();
            self.stepwise = Some(step);
            return Err(AgentError::Failed(format!(
                "the search ended with {pending} leaves not evaluated"
            )));
        }
        if step.sims == 0 {
            return Err(AgentError::Stopped);
        }
        let best = self.best_child();
        self.info = self.search_info(best, step.sims, step.deepest, step.started.elapsed());
        Ok(self.nodes[best as usize].mv)
    }

    /// Runs the search from `state` under the budget.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] when the game is over.
    pub fn search(&mut self, game: &G, state: &G::State) -> Result<(), AgentError> {
        self.search_until(game, state, StopCondition::NEVER)
    }

    /// Runs the search from `state` under the budget, giving up early when
    /// `stop` is reached.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] when the game is over;
    /// [`AgentError::Stopped`] when `stop` came before the first simulation.
    pub fn search_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<(), AgentError> {
        let t0 = Instant::now();
        self.prepare(game, state)?;
        let (max_sims, deadline) = self.limits(game, state, t0, stop.clock.as_ref());
        self.budget_sims = max_sims;
        let mut sims = 0;
        let mut deepest = 0;
        while sims < max_sims {
            if sims.is_multiple_of(params::CLOCK_INTERVAL) && stop.reached() {
                if sims == 0 {
                    return Err(AgentError::Stopped);
                }
                break;
            }
            deepest = deepest.max(self.simulate(game, state)?);
            sims += 1;
            if self.nodes.len() > params::MAX_NODES {
                break;
            }
            if let Some(deadline) = deadline {
                if sims.is_multiple_of(params::CLOCK_INTERVAL) && Instant::now() >= deadline {
                    break;
                }
            }
        }
        let best = self.best_child();
        self.info = self.search_info(best, sims, deepest, t0.elapsed());
        Ok(())
    }

    /// What a search of `sims` simulations that chose the root's child
    /// `best` reports: the child's mean and share of the root's visits,
    /// and the most visited path from it.
    fn search_info(&self, best: u32, sims: u64, deepest: u32, elapsed: Duration) -> SearchInfo {
        let chosen = &self.nodes[best as usize];
        let root_visits = self.nodes[self.root as usize].visits;
        let mut pv = Pv::default();
        let mut at = best;
        while self.nodes[at as usize].visits > 0 && pv.push(self.nodes[at as usize].mv) {
            let n = &self.nodes[at as usize];
            if !n.expanded || n.num_children == 0 {
                break;
            }
            at = (n.first_child..n.first_child + u32::from(n.num_children))
                .max_by(|&a, &b| {
                    let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
                    x.visits.cmp(&y.visits).then(b.cmp(&a))
                })
                .expect("an expanded node has children");
        }
        SearchInfo {
            kind: SearchKind::Mcts,
            nodes: sims,
            depth: deepest,
            value: Some(f64::from(chosen.mean())),
            share: (root_visits > 0).then(|| f64::from(chosen.visits) / f64::from(root_visits)),
            pv,
            elapsed,
        }
    }

    /// The most visited root child (ties: the better mean); with a Gumbel
    /// root, the best scored of the most visited considered children.
    fn best_child(&self) -> u32 {
        let r = self.nodes[self.root as usize];
        if let Some(rg) = &self.root_gumbel {
            let scores = self.gumbel_scores(rg);
            let children = r.first_child..r.first_child + u32::from(r.num_children);
            let most = children
                .clone()
                .zip(&rg.considered)
                .filter(|(_, &c)| c)
                .map(|(i, _)| self.nodes[i as usize].visits)
                .max()
                .unwrap_or(0);
            let best = children
                .zip(&rg.considered)
                .enumerate()
                .filter(|(_, (i, &c))| c && self.nodes[*i as usize].visits == most)
                .max_by(|(a, _), (b, _)| scores[*a].total_cmp(&scores[*b]).then(b.cmp(a)));
            if let Some((_, (i, _))) = best {
                return i;
            }
        }
        (r.first_child..r.first_child + u32::from(r.num_children))
            .max_by(|&a, &b| {
                let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
                x.visits
                    .cmp(&y.visits)
                    .then(x.mean().total_cmp(&y.mean()))
                    .then(b.cmp(&a))
            })
            .expect("the root of a game not over has children")
    }

    /// The root's children's priors, visits and means (from the root
    /// mover's side: the children's `player`).
    fn root_children(&self) -> (Vec<f32>, Vec<u32>, Vec<f32>) {
        let r = self.nodes[self.root as usize];
        let children = &self.nodes
            [r.first_child as usize..r.first_child as usize + usize::from(r.num_children)];
        (
            children.iter().map(|c| c.prior).collect(),
            children.iter().map(|c| c.visits).collect(),
            children.iter().map(|c| c.mean()).collect(),
        )
    }

    /// `σ(completed Q)` of the root's children.
    fn gumbel_sigma(&self, rg: &RootGumbel) -> Vec<f32> {
        let (priors, visits, means) = self.root_children();
        let completed = gumbel::completed_values(&priors, &visits, &means, rg.value);
        gumbel::sigma(&completed, &visits, &rg.config)
    }

    /// Each root child's score: Gumbel draw + logit + `σ(completed Q)`.
    fn gumbel_scores(&self, rg: &RootGumbel) -> Vec<f32> {
        let sigma = self.gumbel_sigma(rg);
        (0..sigma.len())
            .map(|i| rg.noise[i] + rg.logits[i] + sigma[i])
            .collect()
    }

    /// Draws the Gumbel noise and chooses the considered moves of a root
    /// just expanded.
    fn start_gumbel_root(&mut self, config: GumbelRoot) -> RootGumbel {
        let r = self.nodes[self.root as usize];
        let (priors, _, _) = self.root_children();
        let logits = gumbel::logits(&priors);
        let noise: Vec<f32> = if config.noise {
            (0..priors.len())
                .map(|_| gumbel::gumbel_from_uniform(self.rng.random::<f64>()))
                .collect()
        } else {
            vec![0.0; priors.len()]
        };
        let mut order: Vec<usize> = (0..priors.len()).collect();
        order.sort_by(|&a, &b| {
            (noise[b] + logits[b])
                .total_cmp(&(noise[a] + logits[a]))
                .then(a.cmp(&b))
        });
        let count = config.considered.clamp(1, priors.len().max(1));
        let mut considered = vec![false; priors.len()];
        for &i in order.iter().take(count) {
            considered[i] = true;
        }
        // The root's first simulation was its own expansion.
        let sims = self.budget_sims.saturating_sub(1).min(params::MAX_SCHEDULE);
        RootGumbel {
            config,
            noise,
            logits,
            considered,
            schedule: gumbel::halving_schedule(count, sims as usize),
            value: r.mean(),
        }
    }

    /// The root child the next simulation goes to: of the considered
    /// children with the visits the schedule asks for, the best scored.
    fn select_gumbel_root(&mut self) -> u32 {
        let config = self.gumbel.expect("a Gumbel root");
        let rg = match self.root_gumbel.take() {
            Some(rg) => rg,
            None => self.start_gumbel_root(config),
        };
        let r = self.nodes[self.root as usize];
        let scores = self.gumbel_scores(&rg);
        let visits = |k: usize| self.nodes[r.first_child as usize + k].visits;
        let done = r.visits.saturating_sub(1) as usize;
        let wanted = rg.schedule.get(done).copied().or_else(|| {
            // Past the schedule: the least visited considered move.
            (0..scores.len())
                .filter(|&k| rg.considered[k])
                .map(visits)
                .min()
        });
        let pick = |exact: bool| {
            (0..scores.len())
                .filter(|&k| rg.considered[k] && (!exact || Some(visits(k)) == wanted))
                .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))
        };
        // A pending leaf can leave no child at the count asked for: then
        // the best considered one.
        let k = pick(true).or_else(|| pick(false)).unwrap_or(0);
        self.root_gumbel = Some(rg);
        r.first_child + k as u32
    }

    /// The improved policy of the last search with a Gumbel root:
    /// `softmax(logits + σ(completed Q))` over the root's moves, a
    /// distribution defined however few simulations were made. `None`
    /// without a Gumbel root or before its first simulation.
    pub fn improved_policy(&self) -> Option<Vec<(Move, f32)>> {
        let rg = self.root_gumbel.as_ref()?;
        let sigma = self.gumbel_sigma(rg);
        let policy = gumbel::improved_policy(&rg.logits, &sigma);
        let r = self.nodes[self.root as usize];
        Some(
            (r.first_child..r.first_child + u32::from(r.num_children))
                .zip(policy)
                .map(|(i, p)| (self.nodes[i as usize].mv, p))
                .collect(),
        )
    }

    /// Visit counts of the root's moves after a search (a policy target).
    pub fn root_visits(&self) -> Vec<(Move, u32)> {
        let r = self.nodes[self.root as usize];
        (r.first_child..r.first_child + u32::from(r.num_children))
            .map(|i| (self.nodes[i as usize].mv, self.nodes[i as usize].visits))
            .collect()
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for Mcts<G, E> {
    fn name(&self) -> String {
        crate::AgentSpec::Mcts(self.options.clone()).to_string()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.nodes.clear();
        self.root_state = None;
        self.stepwise = None;
    }

    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        self.search_until(game, state, stop)?;
        let best = self.best_child();
        Ok(self.nodes[best as usize].mv)
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
