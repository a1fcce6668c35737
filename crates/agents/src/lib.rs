//! Mancala agents behind one [`Agent`] trait: `random`, `greedy`,
//! `minimax` (alpha-beta) and `mcts` (UCT, ready for network priors).
//!
//! Agents are built from an agent spec string, the same everywhere (command
//! line, configs, records):
//!
//! ```
//! use mancala_agents::{Agent, AgentSpec};
//! use mancala_core::{Game, KalahRules};
//!
//! let spec: AgentSpec = "minimax:depth=4".parse().unwrap();
//! let game = KalahRules::default();
//! let mut agent = spec.build::<KalahRules>();
//! agent.new_game(7);
//! let mv = agent.choose(&game, &game.start()).unwrap();
//! assert!(game.legal_moves(&game.start()).contains(mv));
//! ```
//!
//! Every agent is seeded through [`Agent::new_game`]: the same seed and
//! position give the same move, so tournaments are reproducible.

pub mod clock;
mod eval;
mod greedy;
pub mod gumbel;
pub mod mcts;
pub mod minimax;
pub mod policy;
mod random;
mod spec;
mod tt;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mancala_core::{Game, Move, SpecError};
use thiserror::Error;

pub use clock::{time_for_move, Clock, Flagged, GameClocks, TimeControl, TimeControlError};
pub use eval::{Eval, NetEval};
pub use greedy::Greedy;
pub use mcts::{Evaluator, Mcts, MctsOptions, RolloutEvaluator, RolloutPolicy, RootNoise};
pub use minimax::{Minimax, MinimaxOptions};
pub use policy::{NetPolicySpec, PolicyAgent, PolicyNet, PolicyOptions};
pub use random::RandomAgent;
pub use spec::{
    format_duration, parse_duration, read_budget, spec_names, AgentSpec, Budget, BudgetCount,
    AUTO_WITHOUT_CLOCK, MAX_DURATION, MIN_DURATION,
};

/// An error of an agent while choosing a move.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The position has no legal move: the game is over.
    #[error("asked to move in a finished game")]
    GameOver,
    /// The agent failed for a reason of its own (an external program that
    /// crashed, a model that could not run, ...).
    #[error("{0}")]
    Failed(String),
    /// A bad agent spec.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The search was stopped from outside (a move deadline or a cancel
    /// flag, see [`StopCondition`]) before it had a move to give.
    #[error("stopped before choosing a move")]
    Stopped,
}

/// When a search must give up, whatever its own budget says: the deadline
/// of this move (a tournament's move timeout) and a cancel flag (Ctrl-C).
///
/// Searches look at it as often as at their own clock (every few hundred
/// microseconds at most), so a run can be stopped promptly even while an
/// agent with a huge budget is thinking.
///
/// It also carries the mover's game clock when the game has one, for the
/// agents that manage their own time (`time=auto`, external engines fed
/// `go wtime ...`): the deadline is the runner's hard limit, the clock what
/// a time manager plans with.
#[derive(Clone, Copy, Debug, Default)]
pub struct StopCondition<'a> {
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Give up once this flag is raised.
    pub cancel: Option<&'a AtomicBool>,
    /// The game's clocks when this move began, if the game has a clock.
    pub clock: Option<Clock>,
}

impl<'a> StopCondition<'a> {
    /// Never stops: the agent's own budget alone decides.
    pub const NEVER: StopCondition<'static> = StopCondition {
        deadline: None,
        cancel: None,
        clock: None,
    };

    /// This condition with an agent's own deadline as well: whichever of
    /// the two comes first.
    pub fn or_by(self, own: Option<Instant>) -> StopCondition<'a> {
        StopCondition {
            deadline: match (own, self.deadline) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            cancel: self.cancel,
            clock: self.clock,
        }
    }

    /// Whether the search must stop now.
    pub fn reached(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What kind of search an agent ran: it decides what [`SearchInfo`]'s
/// numbers mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchKind {
    /// No search to speak of (`random`, `greedy`): nothing is reported.
    #[default]
    None,
    /// Alpha-beta: `nodes` are positions, `depth` the last completed
    /// iteration, `value` the expected margin in seeds.
    AlphaBeta,
    /// Monte Carlo tree search: `nodes` are simulations, `depth` the
    /// deepest tree path, `value` the expected score in `0..=1`, `share`
    /// the chosen move's share of the root's visits.
    Mcts,
    /// A solver: `value` is the exact margin in seeds.
    Exact,
    /// An external engine's last `info` line: its own depth, nodes and
    /// score (in seeds, as the protocol asks).
    Engine,
}

/// How many moves of a principal variation [`SearchInfo`] keeps: enough to
/// read the plan, little enough to copy with every move.
pub const PV_MOVES: usize = 8;

/// The first moves of a principal variation, kept inline (no allocation:
/// an agent's info is copied after every move of every game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pv {
    moves: [Move; PV_MOVES],
    len: u8,
}

impl Default for Pv {
    fn default() -> Pv {
        Pv {
            moves: [Move::Swap; PV_MOVES],
            len: 0,
        }
    }
}

impl Pv {
    /// The first [`PV_MOVES`] of `moves`.
    pub fn of(moves: impl IntoIterator<Item = Move>) -> Pv {
        let mut pv = Pv::default();
        for mv in moves {
            if !pv.push(mv) {
                break;
            }
        }
        pv
    }

    /// Appends `mv`; `false` (and nothing kept) when the line is full.
    pub fn push(&mut self, mv: Move) -> bool {
        let len = usize::from(self.len);
        if len == PV_MOVES {
            return false;
        }
        self.moves[len] = mv;
        self.len += 1;
        true
    }

    /// The moves, first first.
    pub fn moves(&self) -> &[Move] {
        &self.moves[..usize::from(self.len)]
    }

    /// Whether the line is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What the last search found and cost, for reports, records and
/// benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchInfo {
    /// What the numbers below mean.
    pub kind: SearchKind,
    /// Positions visited (alpha-beta, engines) or simulations run (MCTS).
    pub nodes: u64,
    /// Depth completed (alpha-beta, engines), or the deepest tree path (MCTS).
    pub depth: u32,
    /// The chosen move's value for the mover: the expected margin in seeds
    /// (alpha-beta, engines; exact for a solver) or the expected score in
    /// `0..=1` (MCTS); `None` when not searched.
    pub value: Option<f64>,
    /// The chosen move's share of the root's visits (MCTS).
    pub share: Option<f64>,
    /// The first moves of the line the search expects, the chosen move
    /// first (empty when the agent does not say).
    pub pv: Pv,
    /// Time spent.
    pub elapsed: Duration,
}

/// A player of a game `G`: anything that picks a move for a position.
///
/// The tournament runner, training and the command line know agents only
/// through this trait.
pub trait Agent<G: Game>: Send {
    /// A short name, the agent spec it was built from.
    fn name(&self) -> String;

    /// Prepares for a new game with its own seed: forgets search trees and
    /// tables, so a game's moves depend only on its seed and positions.
    fn new_game(&mut self, seed: u64);

    /// Chooses a move for the player to move in `state`, giving up when
    /// `stop` is reached: with the best move found so far, or
    /// [`AgentError::Stopped`] when there is none yet. The one method an
    /// agent must write: an agent that answers at once ignores `stop`.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] for a finished game; [`AgentError::Failed`]
    /// when the agent cannot answer; [`AgentError::Stopped`].
    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError>;

    /// [`Agent::choose_until`] with nothing to stop it: the agent's own
    /// budget (depth, simulations, time) alone ends its search.
    ///
    /// # Errors
    /// As [`Agent::choose_until`], but for [`AgentError::Stopped`].
    fn choose(&mut self, game: &G, state: &G::State) -> Result<Move, AgentError> {
        self.choose_until(game, state, StopCondition::NEVER)
    }

    /// What the last call to [`Agent::choose`] searched.
    fn info(&self) -> SearchInfo {
        SearchInfo::default()
    }

    /// Told each move of the current game as it is played, by either
    /// player (openings and the agent's own moves included), by callers
    /// that follow a whole game, like the tournament runner. Agents that
    /// need a game's history (an external engine fed `position startpos
    /// moves ...`) keep it; the default ignores it.
    fn observe(&mut self, mv: Move) {
        let _ = mv;
    }

    /// Whether [`Agent::info`] can say anything of a search: `false` for
    /// agents that do not search (`random`, `greedy`), whose moves the
    /// tournament runner then records without asking, at no cost.
    fn reports_search(&self) -> bool {
        true
    }

    /// Whether [`Agent::choose_until`] is certain to return by the
    /// deadline, whatever happens inside (an external program is killed
    /// when it is late). The runner guards other agents with a watchdog
    /// thread when moves have a time limit.
    fn enforces_deadline(&self) -> bool {
        false
    }
}

impl<G: Game> Agent<G> for Box<dyn Agent<G>> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn new_game(&mut self, seed: u64) {
        (**self).new_game(seed);
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<Move, AgentError> {
        (**self).choose(game, state)
    }
    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        (**self).choose_until(game, state, stop)
    }
    fn info(&self) -> SearchInfo {
        (**self).info()
    }
    fn observe(&mut self, mv: Move) {
        (**self).observe(mv);
    }
    fn reports_search(&self) -> bool {
        (**self).reports_search()
    }
    fn enforces_deadline(&self) -> bool {
        (**self).enforces_deadline()
    }
}

/// Mixes a base seed with a stream number (splitmix64), so that agents and
/// games get independent, reproducible random streams.
pub fn derive_seed(base: u64, stream: u64) -> u64 {
    let mut z = base ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
