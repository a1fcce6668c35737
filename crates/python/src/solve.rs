//! `mancala.solve` and `mancala.exact_positions`: the solver of `mancala
//! solve`, with its endgame database cache, and the perfect-play dataset of
//! `mancala analyze exact-positions` as NumPy arrays.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use mancala_agents::StopCondition;
use mancala_core::{Game, GameSpec, KalahRules, Move};
use mancala_solver::positions::ExactPosition;
use mancala_solver::{Overrides, Profile, Solvable, SolveError, SolverOptions, Solvers};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTimeoutError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::game::{PyGame, PyState};
use crate::interrupt::interruptible;
use crate::position::{Pos, Position};

/// The package's solvers: `solve`'s, kept for the next call on the same
/// game and options (its table and endgame database are what make repeated
/// solves fast), and the `perfect` agents'. One at a time, since a table
/// takes up to a GiB: the old one is let go before a new one is built.
pub(crate) static SOLVERS: LazyLock<Arc<Solvers>> = LazyLock::new(|| Arc::new(Solvers::new(1)));

/// The solver options of `mancala solve` for `spec` with these overrides.
fn options_for(
    spec: &GameSpec,
    tt: Option<u64>,
    db_seeds: Option<usize>,
    db_dir: Option<PathBuf>,
) -> PyResult<SolverOptions> {
    let overrides = Overrides {
        table_mib: tt.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
        endgame_seeds: db_seeds,
        endgame_dir: db_dir,
    };
    mancala_core::with_game!(spec, rules => {
        rules.check_solvable().map_err(solve_error)?;
        rules.options(Profile::Solve, &overrides).map_err(solve_error)
    })
}

/// A solver's refusal as a Python exception.
fn solve_error(e: SolveError) -> PyErr {
    match e {
        SolveError::Stopped => PyTimeoutError::new_err("stopped before the position was solved"),
        e if e.is_out_of_memory() => {
            PyMemoryError::new_err(format!("{e} (try a smaller tt or db_seeds)"))
        }
        e => PyValueError::new_err(e.to_string()),
    }
}

/// Where databases are kept unless told otherwise: `mancala solve`'s cache;
/// `ValueError` for a `db_dir` that is something other than a folder
/// (a database could never be saved there).
fn db_folder(db_dir: Option<PathBuf>, db_cache: bool) -> PyResult<Option<PathBuf>> {
    if let Some(dir) = &db_dir {
        if dir.exists() && !dir.is_dir() {
            return Err(PyValueError::new_err(format!(
                "db_dir {} is not a folder: endgame databases are kept in a folder",
                dir.display()
            )));
        }
    }
    if !db_cache {
        return Ok(None);
    }
    Ok(db_dir.or_else(mancala_solver::endgame::default_dir))
}

/// The threads to use: all cores unless told.
fn threads_or_all(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// What `solve` finds, before it becomes a dict.
struct Solved {
    mover: usize,
    value: i32,
    moves: Vec<(usize, i32)>,
    pv: Vec<usize>,
    nodes: u64,
    seconds: f64,
    /// Why the endgame database built for this solve was not saved.
    not_saved: Option<String>,
}

fn solve_position<G: Solvable>(
    rules: &G,
    pos: &dyn Position,
    options: &SolverOptions,
    threads: usize,
    deadline: Option<Instant>,
    cancel: &AtomicBool,
) -> Result<Solved, SolveError> {
    let state = &pos
        .as_any()
        .downcast_ref::<Pos<G>>()
        .expect("the state is of the game of its spec")
        .state;
    let stop = StopCondition {
        deadline,
        cancel: Some(cancel),
        clock: None,
    };
    // The timeout (and Ctrl-C) also end a wait for another build.
    let solver = SOLVERS.get_or_stop(rules, options, stop)?;
    let s = solver.solve_until(state, threads, stop)?;
    let pits = rules.pits();
    let action = |m: Move| m.action_index(pits);
    Ok(Solved {
        mover: s.mover.index(),
        value: s.value,
        moves: s.moves.iter().map(|m| (action(m.mv), m.value)).collect(),
        pv: s.pv.iter().map(|&m| action(m)).collect(),
        nodes: s.stats.nodes,
        seconds: s.stats.seconds,
        not_saved: solver.endgame_not_saved().map(|e| e.to_string()),
    })
}

/// Solves `state` exactly, as `mancala solve` does: Kalah and
/// single-round Congkak with the endgame database of `mancala solve`
/// (loaded from its cache folder, or built and saved there the first time;
/// `db_cache=False` keeps it in memory only), Oware on small boards.
///
/// Returns a dict: `player` (to move), `value` (the final margin for that
/// player with perfect play), `moves` (each legal action's value, a dict),
/// `best` (the actions that keep the value), `pv` (a principal variation to
/// the end, as actions), `nodes` and `seconds`. `timeout` (seconds) raises
/// `TimeoutError` if the solve takes longer; Ctrl-C raises
/// `KeyboardInterrupt` (a database build finishes first). The solver is kept
/// for the next call on the same game and options.
#[pyfunction]
#[pyo3(signature = (state, *, threads = None, tt = None, db_seeds = None, db_dir = None, db_cache = true, timeout = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve<'py>(
    py: Python<'py>,
    state: PyRef<'_, PyState>,
    threads: Option<usize>,
    tt: Option<u64>,
    db_seeds: Option<usize>,
    db_dir: Option<PathBuf>,
    db_cache: bool,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = state.spec;
    if state.pos.to_move().is_none() {
        return Err(PyValueError::new_err(
            "the game is over: there is nothing to solve",
        ));
    }
    let threads = threads_or_all(threads)?;
    let options = options_for(&spec, tt, db_seeds, db_folder(db_dir, db_cache)?)?;
    let deadline = match timeout {
        Some(t) if t.is_finite() && t > 0.0 => Some(Instant::now() + Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "timeout must be a positive number of seconds, not {t}"
            )))
        }
        None => None,
    };
    let pos = state.pos.as_ref();
    let solved = interruptible(py, |cancel| {
        mancala_core::with_game!(&spec, rules => solve_position(
            rules, pos, &options, threads, deadline, cancel))
    })?;
    let solved = match solved {
        Ok(s) => s,
        Err(SolveError::Stopped) if deadline.is_some_and(|d| Instant::now() >= d) => {
            return Err(PyTimeoutError::new_err(format!(
                "not solved within the timeout of {} s",
                timeout.unwrap_or_default()
            )))
        }
        Err(SolveError::Stopped) => return Err(PyKeyboardInterrupt::new_err("")),
        Err(e) => return Err(solve_error(e)),
    };
    if let Some(why) = &solved.not_saved {
        // Solved, but the next run builds the database again: say so.
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyUserWarning>(),
            &std::ffi::CString::new(format!("the endgame database was not saved: {why}"))
                .unwrap_or_default(),
            1,
        )?;
    }
    let d = PyDict::new(py);
    d.set_item("player", solved.mover)?;
    d.set_item("value", solved.value)?;
    let moves = PyDict::new(py);
    for &(a, v) in &solved.moves {
        moves.set_item(a, v)?;
    }
    d.set_item("moves", moves)?;
    let best: Vec<usize> = solved
        .moves
        .iter()
        .filter(|&&(_, v)| v == solved.value)
        .map(|&(a, _)| a)
        .collect();
    d.set_item("best", best)?;
    d.set_item("pv", solved.pv)?;
    d.set_item("nodes", solved.nodes)?;
    d.set_item("seconds", solved.seconds)?;
    Ok(d)
}

/// Forgets the solver kept between calls of `solve`, freeing its table
/// and database.
#[pyfunction]
pub fn clear_solver() {
    SOLVERS.clear();
}

/// Positions of real games with the exact value of every move: the dataset
/// of `mancala analyze exact-positions`, as NumPy arrays for training.
///
/// `count` games are played by `agents` (default: greedy, minimax:depth=4
/// and mcts:sims=400, seats drawn from them) after `opening_plies` random
/// moves; one position is taken from each at a random ply and solved.
/// Kalah only (any board and rules). The same seed gives the same arrays at
/// any thread count.
///
/// Returns a dict of arrays, one row per position: `observations` (float32,
/// `game.observation_shape()` per row), `legal` (bool, one per action),
/// `move_values` (int32: the final margin for the mover after each legal
/// action with perfect play; 0 where illegal), `values` (int32: the
/// position's value, its best move's), `best` (bool: the actions that keep
/// the value), `players` (int8: the player to move), `plies` (int32: moves
/// played before the position), and `positions` (a list of their
/// notations). `distinct=True` makes every position different (a game whose
/// position is an earlier game's gives none, and more games are played, up
/// to ten a position asked); `ValueError` when the games cannot give
/// `count` of them, or no position at all (every game ended within its
/// opening). Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (game, count, seed = 1, *, agents = None, opening_plies = 2, threads = None, tt = 256, db_seeds = None, db_dir = None, db_cache = true, distinct = false))]
#[allow(clippy::too_many_arguments)]
pub fn exact_positions<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    count: u32,
    seed: u64,
    agents: Option<Vec<String>>,
    opening_plies: u32,
    threads: Option<usize>,
    tt: u64,
    db_seeds: Option<usize>,
    db_dir: Option<PathBuf>,
    db_cache: bool,
    distinct: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, rules) = kalah_rules(game)?;
    if count == 0 {
        return Err(PyValueError::new_err("count must be at least 1"));
    }
    let options = mancala_analysis::positions::ExactPositionsOptions {
        rules,
        count,
        agents: agents.unwrap_or_default(),
        opening_plies,
        seed,
        threads: threads_or_all(threads)?,
        tt,
        db_seeds,
        db_dir: db_folder(db_dir, db_cache)?,
        made_by: format!("mancala.exact_positions({spec}, count={count}, seed={seed})"),
        games_only: false,
        distinct,
    };
    let made = make_positions(py, &options)?;
    PositionArrays::new(rules, &made.set.positions)?.into_dict(py)
}

/// The Kalah rules of `game` (a `Game` or a spec string) and its spec;
/// `ValueError` for any other game.
fn kalah_rules(game: &Bound<'_, PyAny>) -> PyResult<(GameSpec, KalahRules)> {
    let spec = match game.cast::<PyGame>() {
        Ok(g) => g.get().spec,
        Err(_) => crate::game::parse_spec(&game.extract::<String>()?)?,
    };
    let GameSpec::Kalah(rules) = spec else {
        return Err(PyValueError::new_err(format!(
            "exact_positions plays Kalah only, not {spec}"
        )));
    };
    Ok((spec, rules))
}

/// Makes the set `options` describe, Ctrl-C stopping it: an interrupted
/// run raises `KeyboardInterrupt` even when it solved some positions, and
/// the analysis's errors become Python's.
fn make_positions(
    py: Python<'_>,
    options: &mancala_analysis::positions::ExactPositionsOptions,
) -> PyResult<mancala_analysis::positions::MadePositions> {
    let made = interruptible(py, |cancel| {
        mancala_analysis::positions::exact_positions(options, &(), cancel)
    })?;
    let made = made.map_err(|e| match e {
        mancala_analysis::AnalysisError::BadInput(why) => PyValueError::new_err(why),
        mancala_analysis::AnalysisError::Refused(e) => solve_error(e),
        mancala_analysis::AnalysisError::Interrupted => PyKeyboardInterrupt::new_err(""),
        e => PyRuntimeError::new_err(e.to_string()),
    })?;
    if made.interrupted {
        return Err(PyKeyboardInterrupt::new_err(""));
    }
    Ok(made)
}

/// The columns of `exact_positions`'s dict, flat, one row per position:
/// matrices are `n` rows of `width` observations or `actions` actions.
struct PositionArrays {
    n: usize,
    width: usize,
    actions: usize,
    observations: Vec<f32>,
    legal: Vec<bool>,
    move_values: Vec<i32>,
    best: Vec<bool>,
    values: Vec<i32>,
    players: Vec<i8>,
    plies: Vec<i32>,
    notations: Vec<String>,
}

impl PositionArrays {
    /// The rows of `positions`, solved positions of `rules`.
    fn new(rules: KalahRules, positions: &[ExactPosition]) -> PyResult<Self> {
        let n = positions.len();
        let width = rules.observation_len();
        let actions = rules.num_actions();
        let mut arrays = PositionArrays {
            n,
            width,
            actions,
            observations: vec![0f32; n * width],
            legal: vec![false; n * actions],
            move_values: vec![0i32; n * actions],
            best: vec![false; n * actions],
            values: Vec::with_capacity(n),
            players: Vec::with_capacity(n),
            plies: Vec::with_capacity(n),
            notations: Vec::with_capacity(n),
        };
        for (i, p) in positions.iter().enumerate() {
            arrays.push_row(rules, i, p)?;
        }
        Ok(arrays)
    }

    /// Fills row `i` with position `p`.
    fn push_row(&mut self, rules: KalahRules, i: usize, p: &ExactPosition) -> PyResult<()> {
        let (width, actions) = (self.width, self.actions);
        let state = rules
            .parse_position(&p.position)
            .map_err(|e| PyRuntimeError::new_err(format!("a solved position: {e}")))?;
        rules.observe(&state, &mut self.observations[i * width..(i + 1) * width]);
        let value = p.value();
        for m in &p.moves {
            let a = i * actions + m.mv.action_index(rules.pits());
            self.legal[a] = true;
            self.move_values[a] = m.value;
            self.best[a] = m.value == value;
        }
        self.values.push(value);
        self.players
            .push(rules.to_move(&state).map_or(-1, |p| p.index() as i8));
        self.plies.push(p.ply as i32);
        self.notations.push(p.position.clone());
        Ok(())
    }

    /// The dict of NumPy arrays (and the list of notations).
    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let n = self.n;
        let d = PyDict::new(py);
        let matrix = |v: Vec<f32>, w: usize| PyArray1::from_vec(py, v).reshape([n, w]);
        d.set_item("observations", matrix(self.observations, self.width)?)?;
        d.set_item(
            "legal",
            PyArray1::from_vec(py, self.legal).reshape([n, self.actions])?,
        )?;
        d.set_item(
            "move_values",
            PyArray1::from_vec(py, self.move_values).reshape([n, self.actions])?,
        )?;
        d.set_item(
            "best",
            PyArray1::from_vec(py, self.best).reshape([n, self.actions])?,
        )?;
        d.set_item("values", PyArray1::from_vec(py, self.values))?;
        d.set_item("players", PyArray1::from_vec(py, self.players))?;
        d.set_item("plies", PyArray1::from_vec(py, self.plies))?;
        d.set_item("positions", self.notations)?;
        Ok(d)
    }
}
