//! The `minimax` agent: alpha-beta on the margin with iterative deepening,
//! a transposition table and move ordering.
//!
//! Depth counts turns, not moves: a move that keeps the turn (Kalah's extra
//! turn) uses no depth, so a line of extra turns is searched to its end.
//! This extension is what makes a shallow search see the chains that
//! decide Kalah games (depth 6 against greedy: 41% with it counted as a
//! move, 80% without).
//!
//! The extension has a bound, [`TURN_WIDTH`]: a move that keeps the turn
//! is free while the turn so far has at most that many move sequences (the
//! product of the numbers of legal moves at each of its positions, the
//! one the move is played from included); beyond it each such move uses a
//! depth, as a new turn would, and the count starts again. Without a bound
//! a search could not finish in games where extra turns are common: in
//! Congkak a relay ends in the own store so often that the moves of one
//! turn form a tree that grows two- to threefold with each extra move (on
//! the standard board about 265 positions on average by the seventh move,
//! 13,000 by the thirteenth; on 15 holes of 8 seeds 15,000 by the
//! seventh), and a search of a few turns multiplies such trees. A bound on
//! the sequences rather than on the moves keeps a turn to a few thousand
//! positions whatever the board: about four free moves where every pit can
//! be played, more where few can. Kalah's turns are small trees (10
//! positions on average, about a hundred at most), and the bound cuts only
//! its rare long chains of extra turns among many choices, which the search
//! now sees one depth shorter. The turn's count so far is part of the
//! transposition table's key: the same position can be worth different
//! values with different allowances.
//!
//! Values are always from player 0's side (the margin `store0 - store1`,
//! in quarter seeds): a node maximises when player 0 is to move and
//! minimises otherwise. Whose turn it is comes from the state after every
//! move, so Kalah's extra turns need no special case and no sign flips.

use std::marker::PhantomData;
use std::time::Instant;

use mancala_core::{Game, Move, Player};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::eval::SCALE;
use crate::tt::{Bound, Table, NO_MOVE};
use crate::{Agent, AgentError, Budget, Eval, Pv, SearchInfo, SearchKind, StopCondition};

/// Search tunables, gathered here rather than spread through the code.
mod params {
    /// Deepest iteration a time budget may reach.
    pub const MAX_DEPTH: u32 = 64;
    /// Nodes between two looks at the clock.
    pub const CLOCK_INTERVAL: u64 = 1024;
    /// Ordering bonus of the transposition table's move.
    pub const TT_MOVE_BONUS: i32 = 1 << 20;
    /// Ordering bonus of a move that keeps the turn (Kalah's extra turn).
    pub const EXTRA_TURN_BONUS: i32 = 1 << 12;
}

/// The most move sequences a turn may have for its moves to use no depth
/// (see the module's documentation). Also the greedy agent's bound on the
/// turns it looks through.
pub const TURN_WIDTH: u32 = 4096;

/// Options of the minimax agent.
#[derive(Clone, Debug, PartialEq)]
pub struct MinimaxOptions {
    /// Depth in turns (moves that keep the turn are free) or time per move.
    pub budget: Budget,
    /// How leaves are scored.
    pub eval: Eval,
    /// Transposition table size in MiB (0: the smallest, 12 KiB).
    pub tt_mib: usize,
    /// With `Some(m)`, the move is drawn (seeded) among every root move
    /// searched to within `m` quarter seeds of the best value, instead of
    /// the first best move in search order: `Some(0)` breaks exact ties at
    /// random, keeping the agent's strength; a wider margin trades a little
    /// strength for variety. The other moves' values are settled by one
    /// null-window search each, at the last completed depth.
    pub margin: Option<u32>,
}

impl Default for MinimaxOptions {
    fn default() -> MinimaxOptions {
        MinimaxOptions {
            budget: Budget::Depth(8),
            eval: Eval::Material,
            tt_mib: 16,
            margin: None,
        }
    }
}

/// Alpha-beta searcher.
#[derive(Debug)]
pub struct Minimax<G: Game> {
    options: MinimaxOptions,
    tt: Table,
    rng: SmallRng,
    info: SearchInfo,
    nodes: u64,
    stopped: bool,
    /// Set when a line was cut by the depth limit (not by the game's end).
    hit_horizon: bool,
    _game: PhantomData<fn() -> G>,
}

/// A child position and how promising it looks.
struct Child<S> {
    mv: Move,
    state: S,
    priority: i32,
    /// Depth the move uses up: 0 for a free move that keeps the turn, else 1.
    cost: u32,
    /// The move sequences of the current turn that lead to the child: 1 when
    /// the child begins a turn (or a depth of one).
    width: u32,
}

/// The transposition table key of `state` reached by `width` move sequences
/// of the current turn: the free moves left are part of what the value of a
/// position depends on. A turn's first position keeps the game's key.
#[inline]
fn table_key<G: Game>(game: &G, state: &G::State, width: u32) -> u64 {
    let used = u64::from(width - 1);
    game.key(state) ^ used.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<G: Game> Minimax<G> {
    /// A searcher with these options; seed it with [`Agent::new_game`].
    pub fn new(options: MinimaxOptions) -> Minimax<G> {
        Minimax {
            tt: Table::new(options.tt_mib),
            options,
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
            nodes: 0,
            stopped: false,
            hit_horizon: false,
            _game: PhantomData,
        }
    }

    /// The children of `state`, reached by `width` move sequences of the
    /// current turn, best first: the table's move, then moves that keep the
    /// turn, then by the mover's immediate gain.
    fn ordered_children(
        &self,
        game: &G,
        state: &G::State,
        width: u32,
        tt_move: u8,
    ) -> Vec<Child<G::State>> {
        let mover = game.to_move(state).expect("children of a finished game");
        let before = i32::from(game.scores(state)[mover]);
        let legal = game.legal_moves(state);
        let wider = width * legal.len() as u32;
        let mut children: Vec<Child<G::State>> = legal
            .into_iter()
            .map(|mv| {
                let mut next = state.clone();
                game.play_unchecked(&mut next, mv);
                let mut priority = i32::from(game.scores(&next)[mover]) - before;
                let (mut cost, mut next_width) = (1, 1);
                if game.to_move(&next) == Some(mover) {
                    priority += params::EXTRA_TURN_BONUS;
                    // An extra turn is searched as part of the same turn,
                    // for free while the turn is not too wide.
                    if wider <= TURN_WIDTH {
                        (cost, next_width) = (0, wider);
                    }
                }
                if mv.action_index(game.pits()) as u8 == tt_move {
                    priority += params::TT_MOVE_BONUS;
                }
                Child {
                    mv,
                    state: next,
                    priority,
                    cost,
                    width: next_width,
                }
            })
            .collect();
        children.sort_by_key(|c| std::cmp::Reverse(c.priority));
        children
    }

    /// The alpha-beta value of `state` for player 0 to `depth` more turns,
    /// `state` being reached by `width` move sequences of the current turn;
    /// gives up (setting `stopped`) when `stop` is reached.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        game: &G,
        state: &G::State,
        depth: u32,
        width: u32,
        mut alpha: i32,
        mut beta: i32,
        stop: &StopCondition<'_>,
    ) -> i32 {
        self.nodes += 1;
        let Some(mover) = game.to_move(state) else {
            let outcome = game
                .outcome(state)
                .expect("a game with no player to move is over");
            return outcome.margin() * SCALE;
        };
        if depth == 0 {
            self.hit_horizon = true;
            return self.options.eval.evaluate(game, state);
        }
        if self.nodes.is_multiple_of(params::CLOCK_INTERVAL) && stop.reached() {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }

        let key = table_key(game, state, width);
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.best;
            // Only values of the same depth are used, so the search returns
            // exactly the fixed-depth minimax value (tested against a plain
            // minimax); deeper entries still order the moves.
            if u32::from(e.depth) == depth {
                // The entry stands for a subtree not visited now, which may
                // have met the depth limit (in an earlier search, too): a
                // deeper iteration can still change the answer.
                self.hit_horizon = true;
                match e.bound {
                    Bound::Exact => return e.value,
                    Bound::Lower => alpha = alpha.max(e.value),
                    Bound::Upper => beta = beta.min(e.value),
                    Bound::Empty => {}
                }
                if alpha >= beta {
                    return e.value;
                }
            }
        }

        let (alpha0, beta0) = (alpha, beta);
        let maximising = mover == Player::ZERO;
        let mut best = if maximising { i32::MIN } else { i32::MAX };
        let mut best_move = NO_MOVE;
        for child in self.ordered_children(game, state, width, tt_move) {
            let v = self.search(
                game,
                &child.state,
                depth - child.cost,
                child.width,
                alpha,
                beta,
                stop,
            );
            if self.stopped {
                return 0;
            }
            if (maximising && v > best) || (!maximising && v < best) {
                best = v;
                best_move = child.mv.action_index(game.pits()) as u8;
            }
            if maximising {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt
            .store(key, best, depth.min(255) as u8, bound, best_move);
        best
    }

    /// Searches the root to `depth`; returns the best move and its value for
    /// player 0, or `None` if time ran out.
    fn search_root(
        &mut self,
        game: &G,
        state: &G::State,
        depth: u32,
        root: &mut [Child<G::State>],
        stop: &StopCondition<'_>,
    ) -> Option<(Move, i32)> {
        let maximising = game.to_move(state) == Some(Player::ZERO);
        let (mut alpha, mut beta) = (i32::MIN, i32::MAX);
        let mut best: Option<(Move, i32)> = None;
        let mut values = Vec::with_capacity(root.len());
        for child in root.iter() {
            let v = self.search(
                game,
                &child.state,
                depth - child.cost,
                child.width,
                alpha,
                beta,
                stop,
            );
            if self.stopped {
                return None;
            }
            values.push(v);
            let better = match best {
                None => true,
                Some((_, b)) => (maximising && v > b) || (!maximising && v < b),
            };
            if better {
                best = Some((child.mv, v));
            }
            if maximising {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
        }
        // Next iteration starts with this one's best move.
        if let Some((mv, _)) = best {
            if let Some(i) = root.iter().position(|c| c.mv == mv) {
                root[..=i].rotate_right(1);
            }
        }
        best
    }

    /// A move drawn uniformly (with the game's seed) among `best_move` and
    /// the other root moves whose value at `depth` is within `margin` of
    /// `best` (player 0's value; `maximising` when player 0 moves). Each
    /// other move takes one null-window search at the margin's edge; when
    /// `stop` comes first, the moves found so far are drawn from.
    #[allow(clippy::too_many_arguments)]
    fn draw_within(
        &mut self,
        game: &G,
        root: &[Child<G::State>],
        depth: u32,
        best_move: Move,
        best: i32,
        margin: u32,
        maximising: bool,
        stop: &StopCondition<'_>,
    ) -> Move {
        let margin = i32::try_from(margin).unwrap_or(i32::MAX);
        // The value every candidate must reach (player 0's side): at least
        // `edge` when player 0 moves, at most `edge` otherwise.
        let edge = if maximising {
            best.saturating_sub(margin)
        } else {
            best.saturating_add(margin)
        };
        let mut candidates = vec![best_move];
        for child in root.iter().filter(|c| c.mv != best_move) {
            let (alpha, beta) = if maximising {
                (edge.saturating_sub(1), edge)
            } else {
                (edge, edge.saturating_add(1))
            };
            let v = self.search(
                game,
                &child.state,
                depth - child.cost,
                child.width,
                alpha,
                beta,
                stop,
            );
            if self.stopped {
                break;
            }
            if (maximising && v >= edge) || (!maximising && v <= edge) {
                candidates.push(child.mv);
            }
        }
        // In move order, so that the draw depends on the seed alone.
        candidates.sort();
        candidates[self.rng.random_range(0..candidates.len())]
    }

    /// The line the table expects after `first` is played from `state`:
    /// each position's stored best move, followed while it is legal, for
    /// at most [`PV_MOVES`](crate::PV_MOVES) moves. The keys are those of the search, the
    /// width of the turn included, so a free move is looked up as the
    /// search stored it.
    fn principal_variation(&self, game: &G, state: &G::State, first: Move) -> Pv {
        let mut pv = Pv::default();
        let (mut state, mut width, mut mv) = (state.clone(), 1, first);
        while let Some(mover) = game.to_move(&state) {
            let legal = game.legal_moves(&state);
            let wider = width * legal.len() as u32;
            if !legal.contains(mv) || !pv.push(mv) {
                break;
            }
            game.play_unchecked(&mut state, mv);
            width = if game.to_move(&state) == Some(mover) && wider <= TURN_WIDTH {
                wider
            } else {
                1
            };
            let Some(entry) = self.tt.probe(table_key(game, &state, width)) else {
                break;
            };
            if entry.best == NO_MOVE {
                break;
            }
            mv = Move::from_action_index(usize::from(entry.best), game.pits());
        }
        pv
    }

    /// The fixed-depth alpha-beta value of `state` for player 0, in quarter
    /// seeds, with every enhancement on (the table is kept between calls).
    /// `state` begins a turn: the free moves of the turn are all left.
    pub fn value(&mut self, game: &G, state: &G::State, depth: u32) -> i32 {
        self.stopped = false;
        self.search(
            game,
            state,
            depth,
            1,
            i32::MIN,
            i32::MAX,
            &StopCondition::NEVER,
        )
    }
}

impl<G: Game> Agent<G> for Minimax<G> {
    fn name(&self) -> String {
        crate::AgentSpec::Minimax(self.options.clone()).to_string()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.tt.clear();
    }

    /// Stopped from outside, it plays the best move of the deepest
    /// iteration completed (the first ordered move if none was).
    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        outer: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        let t0 = Instant::now();
        let mover = game.to_move(state).ok_or(AgentError::GameOver)?;
        self.options
            .eval
            .check(game)
            .map_err(|e| AgentError::Failed(format!("eval={}: {e}", self.options.eval)))?;
        let max_depth = match self.options.budget {
            Budget::Depth(d) => d.max(1),
            Budget::Time(_) | Budget::Auto => params::MAX_DEPTH,
            // Not reachable from a spec; a simulation count means nothing here.
            Budget::Sims(_) => 8,
        };
        let own_deadline = self
            .options
            .budget
            .deadline(t0, outer.clock.as_ref(), mover);
        // The earlier of the two deadlines; one check serves both.
        let stop = outer.or_by(own_deadline);
        self.nodes = 0;
        self.stopped = false;

        // Shuffle first (seeded), then order stably: among equally good
        // moves the seed decides which one is played.
        let mut root = self.ordered_children(game, state, 1, NO_MOVE);
        root.shuffle(&mut self.rng);
        root.sort_by_key(|c| std::cmp::Reverse(c.priority));

        let mut chosen = (root[0].mv, None);
        let mut completed = 0;
        if root.len() > 1 {
            for depth in 1..=max_depth {
                self.hit_horizon = false;
                match self.search_root(game, state, depth, &mut root, &stop) {
                    Some((mv, v)) => {
                        chosen = (mv, Some(v));
                        completed = depth;
                    }
                    None => break,
                }
                // Every line reached the end of the game: deeper is the same.
                if !self.hit_horizon {
                    break;
                }
            }
        }
        if let (Some(margin), Some(best)) = (self.options.margin, chosen.1) {
            if completed > 0 {
                let maximising = mover == Player::ZERO;
                chosen.0 = self.draw_within(
                    game, &root, completed, chosen.0, best, margin, maximising, &stop,
                );
            }
        }
        let value_for_mover = chosen.1.map(|v| {
            let v = f64::from(v) / f64::from(SCALE);
            if mover == Player::ZERO {
                v
            } else {
                -v
            }
        });
        self.info = SearchInfo {
            kind: SearchKind::AlphaBeta,
            nodes: self.nodes,
            depth: completed,
            value: value_for_mover,
            share: None,
            pv: self.principal_variation(game, state, chosen.0),
            elapsed: t0.elapsed(),
        };
        Ok(chosen.0)
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
