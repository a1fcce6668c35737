//! `mancala.VectorGame`: many games held in Rust and stepped together,
//! without the GIL and across cores, writing NumPy arrays in place: the
//! environment of a training loop.

use mancala_core::{Game, GameSpec, Move};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::game::{PyState, TERMINAL};
use crate::position::Pos;

/// Fewest games worth a thread of their own in a step: starting a thread
/// for each step costs about as much as stepping a few thousand games
/// (measured on 2 cores: 4,096 games stepped slower on two threads than on
/// one, 65,536 faster).
const CHUNK: usize = 8192;

/// The arrays one step writes, as slices, one row per game.
struct Out<'a> {
    observations: &'a mut [f32],
    legal: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    to_move: &'a mut [i8],
}

/// The games of a batch, whichever game they play.
trait Batch: Send + Sync {
    /// Restarts every game (`None`) or those marked in `only`, and writes
    /// their outputs; the others' are left as they are.
    fn reset(&mut self, only: Option<&[bool]>, out: Out<'_>, threads: usize);
    /// Checks that `actions[i]` is legal in game `i`: the index and a
    /// message for the first that is not.
    fn check(&self, actions: &[i64]) -> Result<(), String>;
    /// Plays `actions[i]` in game `i` (checked) and writes the outputs.
    fn step(&mut self, actions: &[i64], out: Out<'_>, threads: usize);
    /// Game `i`'s position.
    fn state(&self, i: usize) -> PyState;
    /// Writes a uniformly random legal action of each game (-1 for a game
    /// that is over), the `draw`-th draw of this batch.
    fn sample(&self, draw: u64, out: &mut [i64]);
    /// Bytes the games take (their positions and counts).
    fn nbytes(&self) -> usize;
}

struct Games<G: Game> {
    spec: GameSpec,
    game: G,
    /// The start position, cloned at each restart (building it is slower).
    start: G::State,
    states: Vec<G::State>,
    /// Games begun in each slot: with the seed, what decides its opening.
    episodes: Vec<u64>,
    seed: u64,
    opening_plies: u32,
    auto_reset: bool,
}

/// One slot's view of the outputs.
struct Row<'a> {
    observation: &'a mut [f32],
    legal: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut bool,
    to_move: &'a mut i8,
}

impl<G: Game> Games<G> {
    /// A new game in slot `slot`: the start, then `opening_plies` random
    /// moves drawn from the seed, the slot and its game count (so the
    /// same seed gives the same openings at any thread count).
    fn restart(&self, slot: usize, episode: u64) -> G::State {
        let mut state = self.start.clone();
        if self.opening_plies == 0 {
            return state;
        }
        let mut rng = SmallRng::seed_from_u64(
            self.seed
                ^ (slot as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ episode.wrapping_mul(0xD1B5_4A32_D192_ED03),
        );
        for _ in 0..self.opening_plies {
            let legal = self.game.legal_moves(&state);
            if legal.is_empty() {
                // An opening that ends the game is no opening: start plain.
                return self.start.clone();
            }
            let mv = legal.nth(rng.random_range(0..legal.len()));
            self.game.play_unchecked(&mut state, mv);
        }
        if self.game.is_over(&state) {
            return self.start.clone();
        }
        state
    }

    /// Writes slot's outputs for `state`.
    fn write(&self, state: &G::State, row: Row<'_>) {
        self.game.observe(state, row.observation);
        // Straight from the move set's bits (pit i is bit i, the swap bit
        // 31): no fill and no iteration over the moves, this is per game
        // and per step.
        let bits = self.game.legal_moves(state).bits();
        let (swap, pits) = row.legal.split_last_mut().expect("a swap entry");
        for (i, l) in pits.iter_mut().enumerate() {
            *l = bits & (1 << i) != 0;
        }
        *swap = bits & (1 << 31) != 0;
        *row.to_move = self
            .game
            .to_move(state)
            .map_or(TERMINAL as i8, |p| p.index() as i8);
    }

    /// Runs `each(slot, state, episode, row)` over every slot, on up to
    /// `threads` threads.
    fn for_each_slot<F>(&mut self, out: Out<'_>, threads: usize, each: F)
    where
        F: Fn(&Self, usize, &mut G::State, &mut u64, Row<'_>) + Sync,
    {
        let width = self.game.observation_len();
        let actions = self.game.num_actions();
        let mut states = std::mem::take(&mut self.states);
        let mut episodes = std::mem::take(&mut self.episodes);
        {
            let this = &*self;
            let run = |offset: usize,
                       states: &mut [G::State],
                       episodes: &mut [u64],
                       obs: &mut [f32],
                       legal: &mut [bool],
                       rewards: &mut [f32],
                       terminated: &mut [bool],
                       to_move: &mut [i8]| {
                let rows = obs
                    .chunks_mut(width)
                    .zip(legal.chunks_mut(actions))
                    .zip(rewards.chunks_mut(2))
                    .zip(terminated.iter_mut())
                    .zip(to_move.iter_mut());
                for (k, ((((o, l), r), t), p)) in rows.enumerate() {
                    let row = Row {
                        observation: o,
                        legal: l,
                        rewards: r,
                        terminated: t,
                        to_move: p,
                    };
                    each(this, offset + k, &mut states[k], &mut episodes[k], row);
                }
            };
            let n = states.len();
            // One contiguous share of the games per thread, the calling
            // thread taking the first: threads started for the step and
            // gone after it, so that none spins beside the Python code
            // between steps (a rayon pool's waiting workers competed with
            // the Python code on two cores).
            let parts = threads.min(n.div_ceil(CHUNK)).max(1);
            let share = n.div_ceil(parts);
            let mut tasks: Vec<_> = states
                .chunks_mut(share)
                .zip(episodes.chunks_mut(share))
                .zip(out.observations.chunks_mut(share * width))
                .zip(out.legal.chunks_mut(share * actions))
                .zip(out.rewards.chunks_mut(share * 2))
                .zip(out.terminated.chunks_mut(share))
                .zip(out.to_move.chunks_mut(share))
                .collect();
            let first = tasks.remove(0);
            std::thread::scope(|scope| {
                for (part, ((((((s, e), o), l), r), t), p)) in tasks.into_iter().enumerate() {
                    let run = &run;
                    scope.spawn(move || run((part + 1) * share, s, e, o, l, r, t, p));
                }
                let ((((((s, e), o), l), r), t), p) = first;
                run(0, s, e, o, l, r, t, p);
            });
        }
        self.states = states;
        self.episodes = episodes;
    }
}

impl<G: Game> Batch for Games<G> {
    fn reset(&mut self, only: Option<&[bool]>, out: Out<'_>, threads: usize) {
        self.for_each_slot(out, threads, |this, slot, state, episode, row| {
            if only.is_some_and(|only| !only[slot]) {
                return;
            }
            *episode += 1;
            *state = this.restart(slot, *episode);
            row.rewards[0] = 0.0;
            row.rewards[1] = 0.0;
            *row.terminated = false;
            this.write(state, row);
        });
    }

    fn check(&self, actions: &[i64]) -> Result<(), String> {
        let pits = self.game.pits();
        for (i, (&a, state)) in actions.iter().zip(&self.states).enumerate() {
            let legal = self.game.legal_moves(state);
            if legal.is_empty() && a == -1 {
                // A game that is over (auto_reset off) sits the step out.
                continue;
            }
            let ok = usize::try_from(a)
                .ok()
                .filter(|&a| a <= pits)
                .is_some_and(|a| legal.contains(Move::from_action_index(a, pits)));
            if !ok {
                let legal: Vec<String> = legal
                    .into_iter()
                    .map(|m| m.action_index(pits).to_string())
                    .collect();
                return Err(if legal.is_empty() {
                    format!(
                        "game {i} is over (auto_reset is off): its action is -1 (as \
                         sample_actions() gives it), or reset([{i}]) before stepping it again"
                    )
                } else {
                    format!(
                        "game {i}: action {a} is not legal; legal actions are {}",
                        legal.join(" ")
                    )
                });
            }
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], out: Out<'_>, threads: usize) {
        let pits = self.game.pits();
        let auto_reset = self.auto_reset;
        self.for_each_slot(out, threads, |this, slot, state, episode, row| {
            if actions[slot] < 0 {
                // A game already over (checked): it stays over, with no
                // new reward.
                row.rewards[0] = 0.0;
                row.rewards[1] = 0.0;
                *row.terminated = true;
                this.write(state, row);
                return;
            }
            let mv = Move::from_action_index(actions[slot] as usize, pits);
            this.game.play_unchecked(state, mv);
            match this.game.outcome(state) {
                None => {
                    row.rewards[0] = 0.0;
                    row.rewards[1] = 0.0;
                    *row.terminated = false;
                }
                outcome @ Some(_) => {
                    row.rewards
                        .copy_from_slice(&crate::position::returns(outcome));
                    *row.terminated = true;
                    if auto_reset {
                        *episode += 1;
                        *state = this.restart(slot, *episode);
                    }
                }
            }
            this.write(state, row);
        });
    }

    fn sample(&self, draw: u64, out: &mut [i64]) {
        let pits = self.game.pits();
        // A counter-based draw (a hash of the seed, the draw and the slot)
        // rather than a generator per game: as cheap as the step's own
        // work, and the same at any thread count.
        let base = splitmix(self.seed ^ draw.wrapping_mul(0xD1B5_4A32_D192_ED03));
        for (slot, (state, action)) in self.states.iter().zip(out.iter_mut()).enumerate() {
            let legal = self.game.legal_moves(state);
            *action = if legal.is_empty() {
                -1
            } else {
                let r = splitmix(base ^ (slot as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                // The high bits, scaled to the count: unbiased to 2^-32.
                let k = ((r >> 32) * legal.len() as u64) >> 32;
                legal.nth(k as usize).action_index(pits) as i64
            };
        }
    }

    fn nbytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<G::State>()
            + self.episodes.capacity() * std::mem::size_of::<u64>()
    }

    fn state(&self, i: usize) -> PyState {
        PyState::new(
            self.spec,
            Box::new(Pos {
                game: self.game.clone(),
                state: self.states[i].clone(),
            }),
            None,
        )
    }
}

/// The splitmix64 finaliser: every input bit affects every output bit.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn batch(
    spec: GameSpec,
    n: usize,
    seed: u64,
    opening_plies: u32,
    auto_reset: bool,
) -> Box<dyn Batch> {
    mancala_core::with_game!(&spec, game => Box::new(Games {
        spec,
        game: *game,
        start: game.start(),
        states: vec![game.start(); n],
        episodes: vec![0; n],
        seed,
        opening_plies,
        auto_reset,
    }) as Box<dyn Batch>)
}

/// What a batch is asked to do.
enum Job<'a> {
    /// Restart every game, or those marked.
    Reset(Option<&'a [bool]>),
    /// Play an action in each game (checked).
    Step(&'a [i64]),
}

/// `values` (the argument `what`) as a contiguous int64 array: an int64
/// array as it is, any other array or sequence of integers copied (a
/// strided view too). Floats, booleans and strings are refused
/// (`TypeError`), not cast: 0.9 is no action.
fn integer_array<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if let Ok(array) = values.cast::<PyArray1<i64>>() {
        if array.is_c_contiguous() {
            return Ok(array.clone());
        }
    }
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (values,))?;
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let size: usize = array.getattr("size")?.extract()?;
    // An empty list has NumPy's default type, float: it holds no float.
    if kind != "i" && kind != "u" && size > 0 {
        return Err(PyTypeError::new_err(format!(
            "{what}: integers expected, not {}",
            dtype.str()?
        )));
    }
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "{what}: a list of integers expected, not an array of {ndim} dimensions"
        )));
    }
    let array = numpy.call_method1("ascontiguousarray", (array, "int64"))?;
    Ok(array.cast_into::<PyArray1<i64>>()?)
}

/// Refuses a batch of `n` games that this machine cannot hold, before
/// anything is allocated (an allocation that fails would abort the
/// interpreter): `ValueError` when its size does not fit in the address
/// space, `MemoryError` when it is more than the memory available now.
fn check_batch_memory(spec: GameSpec, n: usize) -> PyResult<()> {
    let state = mancala_core::with_game!(&spec, game => std::mem::size_of_val(&game.start()));
    let width = crate::position::observation_len(&spec);
    let actions = crate::position::num_actions(&spec);
    // A game's position and count, its rows of the five output arrays,
    // and its sampled action.
    let per_game = state + 8 + width * 4 + actions + 2 * 4 + 1 + 1 + 8;
    let Some(bytes) = n
        .checked_mul(per_game)
        .filter(|&b| b <= isize::MAX as usize)
    else {
        return Err(PyValueError::new_err(format!(
            "n: {n} games of {per_game} bytes are more than this machine can address"
        )));
    };
    match available_memory() {
        Some(available) if bytes > available => Err(PyMemoryError::new_err(format!(
            "n: {n} games need {} MiB, and {} MiB of memory are available",
            bytes >> 20,
            available >> 20
        ))),
        _ => Ok(()),
    }
}

/// Bytes of memory available to new allocations (Linux's `MemAvailable`),
/// or `None` where the system does not say.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `n` games of one spec held in Rust and stepped together, for training
/// loops: `reset()` and `step(actions)` return the same five NumPy arrays,
/// written in place each time (copy what you keep):
///
/// - `observations`: float32 `(n, *game.observation_shape())`, each game's
///   `State.observation_tensor()` (the mover's point of view);
/// - `legal`: bool `(n, num_distinct_actions)`, each game's legal actions;
/// - `rewards`: float32 `(n, 2)`, each player's result of a game that the
///   step ended (1 win, 0 draw, -1 loss), else 0;
/// - `terminated`: bool `(n,)`, whether the game is over after the step;
/// - `to_move`: int8 `(n,)`, the player to move next (`TERMINAL`, -4, in a
///   finished game that was not reset).
///
/// With `auto_reset` (the default) a game that ends starts again at once:
/// its row then shows the new game, while `rewards` and `terminated` tell of
/// the one that ended. Without it a game that ends stays over: its action
/// is then -1 (as `sample_actions()` gives it), it gets no new reward, and
/// `reset(indices)` restarts it alone, so a batch plays to its end.
/// `opening_plies` random moves begin every game
/// (drawn from `seed`, the game's slot and its count, so that the same
/// seed gives the same games at any thread count). Steps run without the
/// GIL on `threads` threads (default: all cores), each taking a share of
/// at least 8,192 games.
#[pyclass(name = "VectorGame", module = "mancala")]
pub struct PyVectorGame {
    spec: GameSpec,
    n: usize,
    games: Box<dyn Batch>,
    /// Threads a step may use.
    threads: usize,
    observations: Py<PyArray2<f32>>,
    legal: Py<PyArray2<bool>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    to_move: Py<PyArray1<i8>>,
    /// What `sample_actions` writes, and how many times it has.
    samples: Py<PyArray1<i64>>,
    draws: u64,
}

type StepArrays<'py> = Bound<'py, PyTuple>;

#[pymethods]
impl PyVectorGame {
    #[new]
    #[pyo3(signature = (spec, n, seed = 0, *, auto_reset = true, opening_plies = 0, threads = None))]
    fn new(
        py: Python<'_>,
        spec: &str,
        n: i64,
        seed: u64,
        auto_reset: bool,
        opening_plies: u32,
        threads: Option<usize>,
    ) -> PyResult<PyVectorGame> {
        let spec = crate::game::parse_spec(spec)?;
        let n = match usize::try_from(n) {
            Ok(n) if n > 0 => n,
            _ => return Err(PyValueError::new_err("n must be at least 1")),
        };
        check_batch_memory(spec, n)?;
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(t) => t,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let width = crate::position::observation_len(&spec);
        let actions = crate::position::num_actions(&spec);
        let mut vector = PyVectorGame {
            spec,
            n,
            games: batch(spec, n, seed, opening_plies, auto_reset),
            threads,
            observations: PyArray2::zeros(py, [n, width], false).unbind(),
            legal: PyArray2::zeros(py, [n, actions], false).unbind(),
            rewards: PyArray2::zeros(py, [n, 2], false).unbind(),
            terminated: PyArray1::zeros(py, n, false).unbind(),
            to_move: PyArray1::zeros(py, n, false).unbind(),
            samples: PyArray1::zeros(py, n, false).unbind(),
            draws: 0,
        };
        vector.run(py, Job::Reset(None))?;
        Ok(vector)
    }

    /// Number of games.
    fn __len__(&self) -> usize {
        self.n
    }

    /// The game spec, canonical.
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// Bytes the batch holds: its games in Rust and its output arrays.
    #[getter]
    fn nbytes(&self, py: Python<'_>) -> usize {
        fn array_bytes<T: numpy::Element, D: numpy::ndarray::Dimension>(
            a: &Bound<'_, numpy::PyArray<T, D>>,
        ) -> usize {
            numpy::PyUntypedArrayMethods::len(a) * std::mem::size_of::<T>()
        }
        self.games.nbytes()
            + array_bytes(self.observations.bind(py))
            + array_bytes(self.legal.bind(py))
            + array_bytes(self.rewards.bind(py))
            + array_bytes(self.terminated.bind(py))
            + array_bytes(self.to_move.bind(py))
            + array_bytes(self.samples.bind(py))
    }

    /// Restarts every game, or the games listed in `indices` (the others
    /// are left as they are, in the arrays too); returns `(observations,
    /// legal, rewards, terminated, to_move)`.
    #[pyo3(signature = (indices = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        indices: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<StepArrays<'py>> {
        let only = match indices {
            None => None,
            Some(indices) => {
                let indices = integer_array(py, indices, "indices")?;
                let indices = indices.readonly();
                let mut only = vec![false; self.n];
                for &i in indices.as_slice()? {
                    let slot = usize::try_from(i).ok().filter(|&i| i < self.n);
                    let Some(slot) = slot else {
                        return Err(PyValueError::new_err(format!(
                            "indices: game {i} does not exist: there are {}",
                            self.n
                        )));
                    };
                    only[slot] = true;
                }
                Some(only)
            }
        };
        self.run(py, Job::Reset(only.as_deref()))?;
        self.arrays(py)
    }

    /// Plays `actions[i]` (an action id) in game `i`, every game at once;
    /// returns `(observations, legal, rewards, terminated, to_move)`.
    /// `ValueError` naming the first game whose action is not legal (then
    /// no game moves).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<StepArrays<'py>> {
        let actions = integer_array(py, actions, "actions")?;
        let actions = actions.readonly();
        let actions = actions
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("actions: {e}")))?;
        if actions.len() != self.n {
            return Err(PyValueError::new_err(format!(
                "actions: {} given for {} games",
                actions.len(),
                self.n
            )));
        }
        self.games.check(actions).map_err(PyValueError::new_err)?;
        self.run(py, Job::Step(actions))?;
        self.arrays(py)
    }

    /// A uniformly random legal action of every game (-1 for a game that
    /// is over), drawn in Rust from the batch's seed: the same draws for
    /// the same seed and calls, at any thread count. Written in place into
    /// one int64 array `(n,)`, returned each time (copy what you keep); a
    /// random opponent or rollout policy without a NumPy draw per step.
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let samples = self.samples.bind(py);
        {
            let mut out = samples.try_readwrite()?;
            let out = out.as_slice_mut().map_err(|e| changed(&e))?;
            let games = &self.games;
            let draw = self.draws;
            crate::interrupt::guarded(|| py.detach(|| games.sample(draw, out)))?;
        }
        self.draws += 1;
        Ok(samples.clone())
    }

    /// Game `i`'s position, as a `State` (a copy).
    fn state(&self, i: i64) -> PyResult<PyState> {
        let Some(i) = usize::try_from(i).ok().filter(|&i| i < self.n) else {
            return Err(PyValueError::new_err(format!(
                "game {i} does not exist: there are {}",
                self.n
            )));
        };
        Ok(self.games.state(i))
    }
}

/// The output arrays cannot be written as this batch's: their layout was
/// changed from Python.
fn changed(e: &dyn std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("the output arrays were changed: {e}"))
}

impl PyVectorGame {
    /// Resets (`None`) or steps every game, with the GIL released.
    fn run(&mut self, py: Python<'_>, job: Job<'_>) -> PyResult<()> {
        let mut observations = self.observations.bind(py).try_readwrite()?;
        let mut legal = self.legal.bind(py).try_readwrite()?;
        let mut rewards = self.rewards.bind(py).try_readwrite()?;
        let mut terminated = self.terminated.bind(py).try_readwrite()?;
        let mut to_move = self.to_move.bind(py).try_readwrite()?;
        let out = Out {
            observations: observations.as_slice_mut().map_err(|e| changed(&e))?,
            legal: legal.as_slice_mut().map_err(|e| changed(&e))?,
            rewards: rewards.as_slice_mut().map_err(|e| changed(&e))?,
            terminated: terminated.as_slice_mut().map_err(|e| changed(&e))?,
            to_move: to_move.as_slice_mut().map_err(|e| changed(&e))?,
        };
        let games = &mut self.games;
        let threads = self.threads;
        crate::interrupt::guarded(|| {
            py.detach(|| match job {
                Job::Reset(only) => games.reset(only, out, threads),
                Job::Step(actions) => games.step(actions, out, threads),
            })
        })
    }

    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<StepArrays<'py>> {
        PyTuple::new(
            py,
            [
                self.observations.bind(py).clone().into_any(),
                self.legal.bind(py).clone().into_any(),
                self.rewards.bind(py).clone().into_any(),
                self.terminated.bind(py).clone().into_any(),
                self.to_move.bind(py).clone().into_any(),
            ],
        )
    }
}
