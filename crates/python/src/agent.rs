//! `mancala.Agent`: any agent spec the command line takes, built through
//! the same registry, choosing moves for `mancala.State`s.

use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, TryLockError};

use mancala_agents::{Agent, AgentError, SearchInfo, SearchKind, StopCondition};
use mancala_core::{Game, GameSpec, Move};
use mancala_registry::{AnyAgentSpec, RegistryError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::game::PyState;
use crate::interrupt::{guarded, interruptible};
use crate::position::{Pos, Position};

/// An agent built for one game, behind an interface without the game's
/// type, written once for every game.
trait AnyAgent: Send {
    /// The move for `pos` (a position of the game the agent was built for).
    fn choose(&mut self, pos: &dyn Position, cancel: &AtomicBool) -> Result<Move, AgentError>;
    fn new_game(&mut self, seed: u64);
    fn info(&self) -> SearchInfo;
    /// Whether it searches (else it answers at once: no thread needed).
    fn searches(&self) -> bool;
}

struct ForGame<G: Game> {
    game: G,
    agent: Box<dyn Agent<G>>,
}

impl<G: Game> AnyAgent for ForGame<G> {
    fn choose(&mut self, pos: &dyn Position, cancel: &AtomicBool) -> Result<Move, AgentError> {
        let pos = pos
            .as_any()
            .downcast_ref::<Pos<G>>()
            .expect("the agent is rebuilt whenever the game changes");
        let stop = StopCondition {
            cancel: Some(cancel),
            ..StopCondition::NEVER
        };
        self.agent.choose_until(&self.game, &pos.state, stop)
    }
    fn new_game(&mut self, seed: u64) {
        self.agent.new_game(seed);
    }
    fn info(&self) -> SearchInfo {
        self.agent.info()
    }
    fn searches(&self) -> bool {
        self.agent.reports_search()
    }
}

fn build(spec: &AnyAgentSpec, game: &GameSpec) -> Result<Box<dyn AnyAgent>, RegistryError> {
    mancala_core::with_game!(game, g => {
        spec.check(g)?;
        // `perfect` plays from the package's solvers, those of `solve`.
        let agent = spec.build_with(g, &crate::solve::SOLVERS);
        Ok(Box::new(ForGame { game: *g, agent }) as Box<dyn AnyAgent>)
    })
}

/// What a bare `perfect` is in Python. On the command line it solves each
/// position however long that takes: at the start of Kalah(6,4) that is
/// minutes of building a database before the first move (464 s measured),
/// with nothing said, in what looks like a hung interpreter. Here it moves
/// within its budget, by alpha-beta while the database builds in the
/// background, and exactly once the solver answers in time (at once on
/// small boards). A longer `time=` asks for more patience.
pub const PERFECT_DEFAULT: &str = "perfect:time=5s,fallback=minimax:time=1s";

/// What changes as an agent plays.
struct Playing {
    /// The agent, built for the game of the states it was last given.
    built: Option<(GameSpec, Box<dyn AnyAgent>)>,
    /// Games begun after the first (the default seed of the next is the
    /// agent's seed plus one more).
    games: u64,
    /// The seed of the current game, given to an agent built in it.
    game_seed: u64,
}

/// An agent from a spec, exactly as `mancala tournament` builds it:
/// `"random"`, `"greedy"`, `"minimax:depth=8"`, `"mcts:sims=1000"`,
/// `"perfect"`, `"engine:cmd=./my-bot"`, ... (`ValueError` for a bad spec,
/// with the command line's message). One difference: a bare `"perfect"`
/// is `"perfect:time=5s,fallback=minimax:time=1s"` ([`PERFECT_DEFAULT`]).
///
/// The agent is built for a game the first time it is given one of its
/// states, and starts a game with `seed`; `new_game()` starts another.
/// The same seed gives the same moves. `choose` releases the GIL while it
/// searches and stops on Ctrl-C (`KeyboardInterrupt`).
#[pyclass(name = "Agent", module = "mancala", frozen)]
pub struct PyAgent {
    spec: AnyAgentSpec,
    seed: u64,
    playing: Mutex<Playing>,
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<PyAgent> {
        let parse = |text: &str| {
            AnyAgentSpec::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))
        };
        let mut spec = parse(spec)?;
        if matches!(&spec, AnyAgentSpec::Perfect(p) if p.time.is_none() && p.fallback.is_none()) {
            spec = parse(PERFECT_DEFAULT)?;
        }
        Ok(PyAgent {
            spec,
            seed,
            playing: Mutex::new(Playing {
                built: None,
                games: 0,
                game_seed: seed,
            }),
        })
    }

    /// The canonical spec of the agent.
    #[getter]
    fn name(&self) -> String {
        self.spec.to_string()
    }

    /// Starts a new game: search trees and tables are forgotten, and the
    /// agent's random choices follow `seed` (default: the agent's seed
    /// plus the number of games begun before).
    #[pyo3(signature = (seed = None))]
    fn new_game(&self, seed: Option<u64>) -> PyResult<()> {
        let mut playing = self.lock()?;
        playing.games += 1;
        playing.game_seed = seed.unwrap_or(self.seed.wrapping_add(playing.games));
        let game_seed = playing.game_seed;
        if let Some((_, agent)) = playing.built.as_mut() {
            agent.new_game(game_seed);
        }
        Ok(())
    }

    /// The agent's move in `state`, as an action id. `ValueError` if the
    /// game is over or the agent cannot play this game (`perfect` on
    /// multi-round Congkak, an engine that is not there).
    fn choose(&self, py: Python<'_>, state: PyRef<'_, PyState>) -> PyResult<usize> {
        let spec = state.spec;
        let pits = crate::position::pits(&spec);
        if state.pos.to_move().is_none() {
            return Err(PyValueError::new_err(
                "the game is over: there is no move to choose",
            ));
        }
        let mut playing = self.lock()?;
        let game_seed = playing.game_seed;
        let agent = match &mut playing.built {
            Some((built_for, agent)) if *built_for == spec => agent,
            built => {
                let mut agent =
                    build(&self.spec, &spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
                agent.new_game(game_seed);
                &mut built.insert((spec, agent)).1
            }
        };
        let pos = state.pos.as_ref();
        let chosen = if agent.searches() {
            interruptible(py, |cancel| agent.choose(pos, cancel))?
        } else {
            let cancel = AtomicBool::new(false);
            guarded(|| agent.choose(pos, &cancel))?
        };
        match chosen {
            Ok(mv) => Ok(mv.action_index(pits)),
            Err(AgentError::Stopped) => Err(PyRuntimeError::new_err(
                "the agent was stopped before it had a move",
            )),
            Err(e) => Err(PyRuntimeError::new_err(format!("{}: {e}", self.spec))),
        }
    }

    /// What the last `choose` searched, as a dict: `kind` (`"alphabeta"`,
    /// `"mcts"`, `"exact"`, `"engine"` or `None` for agents that do not
    /// search), `nodes` (positions, or MCTS simulations), `depth`, `value`
    /// (alpha-beta, engines and solvers: the margin in seeds for the
    /// mover; MCTS: the expected score in 0..1), `share` (MCTS: the
    /// move's share of the root's visits), `pv` (the first actions of the
    /// expected line) and `seconds`.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let playing = self.lock()?;
        let info = playing
            .built
            .as_ref()
            .map(|(_, a)| a.info())
            .unwrap_or_default();
        let pits = playing
            .built
            .as_ref()
            .map_or(0, |(g, _)| crate::position::pits(g));
        let d = PyDict::new(py);
        let kind = match info.kind {
            SearchKind::None => None,
            SearchKind::AlphaBeta => Some("alphabeta"),
            SearchKind::Mcts => Some("mcts"),
            SearchKind::Exact => Some("exact"),
            SearchKind::Engine => Some("engine"),
        };
        d.set_item("kind", kind)?;
        d.set_item("nodes", info.nodes)?;
        d.set_item("depth", info.depth)?;
        d.set_item("value", info.value)?;
        d.set_item("share", info.share)?;
        let pv: Vec<usize> = info
            .pv
            .moves()
            .iter()
            .map(|m| m.action_index(pits))
            .collect();
        d.set_item("pv", pv)?;
        d.set_item("seconds", info.elapsed.as_secs_f64())?;
        Ok(d)
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "mancala.Agent({:?}, seed={})",
            self.spec.to_string(),
            self.seed
        )
    }
}

impl PyAgent {
    /// The agent's state, or an error if another thread is using it (its
    /// lock is never waited for with the GIL held: that could deadlock).
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Playing>> {
        match self.playing.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "this agent is in use by another thread: give each thread its own agent",
            )),
            // A panic while choosing was caught and reported; what it
            // left is an agent that is rebuilt from its spec.
            Err(TryLockError::Poisoned(p)) => {
                let mut guard = p.into_inner();
                guard.built = None;
                Ok(guard)
            }
        }
    }
}
