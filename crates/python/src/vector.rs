//! `mancala.VectorGame`: many games held in Rust and stepped together,
//! without the GIL and across cores, writing NumPy arrays in place: the
//! environment of a training loop.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use mancala_agents::{Agent, StopCondition};
use mancala_core::{Game, GameSpec, Move, Player};
use mancala_registry::AnyAgentSpec;
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
    margins: &'a mut [f32],
    terminated: &'a mut [bool],
    to_move: &'a mut [i8],
}

/// What went wrong in a step or reset that did not complete: an
/// opponent's failure (the first, with its game), or a stop asked for.
type Failure = Mutex<Option<String>>;

/// The games of a batch, whichever game they play.
trait Batch: Send + Sync {
    /// Restarts every game (`None`) or those marked in `only`, and writes
    /// their outputs; the others' are left as they are.
    fn reset(
        &mut self,
        only: Option<&[bool]>,
        out: Out<'_>,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Result<(), String>;
    /// Checks that `actions[i]` is legal in game `i`: the index and a
    /// message for the first that is not.
    fn check(&self, actions: &[i64]) -> Result<(), String>;
    /// Plays `actions[i]` in game `i` (checked) and writes the outputs.
    fn step(
        &mut self,
        actions: &[i64],
        out: Out<'_>,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Result<(), String>;
    /// Game `i`'s position.
    fn state(&self, i: usize) -> PyState;
    /// Writes a uniformly random legal action of each game (-1 for a game
    /// that is over), the `draw`-th draw of this batch.
    fn sample(&self, draw: u64, out: &mut [i64]);
    /// Bytes the games take (their positions and counts).
    fn nbytes(&self) -> usize;
    /// Starts the batch afresh from `seed`: its openings, samples and
    /// opponents' choices as a new batch of that seed makes them.
    fn reseed(&mut self, seed: u64);
    /// The learner's seat in each game, with an opponent.
    fn seats(&self) -> Option<Vec<i8>>;
    /// Whether the opponent searches (a step may then take long).
    fn opponent_searches(&self) -> bool;
}

/// The built-in agent that plays the other seat of every game.
struct Opponent<G: Game> {
    /// One agent for each thread's share of a step (agents keep tables
    /// and trees; each move is chosen afresh, from its own seed). Behind a
    /// lock only so that the batch can be shared: a step takes them out.
    agents: Mutex<Vec<Box<dyn Agent<G>>>>,
    /// Whether it searches (a step may then take long).
    searches: bool,
    /// The learner's seat: one for every game, or (`None`) seat `i % 2`
    /// in game `i`, half the batch in each seat.
    seat: Option<Player>,
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
    opponent: Option<Opponent<G>>,
    /// Resets and steps done since the batch was seeded: with the seed,
    /// the slot and its game count, what an opponent's move is drawn from.
    calls: u64,
}

/// One slot's view of the outputs.
struct Row<'a> {
    observation: &'a mut [f32],
    legal: &'a mut [bool],
    /// Fixed-size rows: a fill of a slice of unknown length is a call.
    rewards: &'a mut [f32; 2],
    margins: &'a mut [f32; 2],
    terminated: &'a mut bool,
    to_move: &'a mut i8,
}

impl Row<'_> {
    /// A game that goes on (or sat the step out): no reward.
    fn no_result(&mut self) {
        *self.rewards = [0.0; 2];
        *self.margins = [0.0; 2];
        *self.terminated = false;
    }
}

/// One thread's share of a batch: its games, their rows of the outputs
/// and its opponent.
struct Share<'a, G: Game> {
    /// The slot of its first game.
    offset: usize,
    states: &'a mut [G::State],
    episodes: &'a mut [u64],
    out: Out<'a>,
    opponent: Option<&'a mut Box<dyn Agent<G>>>,
}

/// One game of a batch as a step or reset sees it.
struct Slot<'a, G: Game> {
    index: usize,
    state: &'a mut G::State,
    /// Games begun in this slot.
    episode: &'a mut u64,
    row: Row<'a>,
    /// This thread's opponent, with one.
    opponent: Option<&'a mut Box<dyn Agent<G>>>,
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

    /// The learner's seat in game `slot`, with an opponent.
    fn seat(&self, slot: usize) -> Option<Player> {
        let opponent = self.opponent.as_ref()?;
        Some(opponent.seat.unwrap_or(Player::new(slot % 2)))
    }

    /// Plays the opponent's moves in `slot` (extra turns too) until the
    /// learner is to move or the game is over, with an opponent.
    #[inline]
    fn opponent_moves(&self, slot: &mut Slot<'_, G>, cancel: &AtomicBool) -> Result<(), String> {
        if slot.opponent.is_none() {
            // A step without an opponent: no call for each game.
            return Ok(());
        }
        self.play_opponent(slot, cancel)
    }

    /// [`Self::opponent_moves`] with an opponent. Each move is chosen
    /// afresh from a seed of the batch's, the slot, its game count, the
    /// call and the move's rank in it: the same at any thread count.
    fn play_opponent(&self, slot: &mut Slot<'_, G>, cancel: &AtomicBool) -> Result<(), String> {
        let (Some(agent), Some(seat)) = (slot.opponent.as_deref_mut(), self.seat(slot.index))
        else {
            return Ok(());
        };
        let stop = StopCondition {
            cancel: Some(cancel),
            ..StopCondition::NEVER
        };
        let base = self.seed
            ^ (slot.index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ slot.episode.wrapping_mul(0xD1B5_4A32_D192_ED03)
            ^ self.calls.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        let mut rank = 0u64;
        while let Some(mover) = self.game.to_move(slot.state) {
            if mover == seat {
                break;
            }
            agent.new_game(splitmix(base ^ rank.wrapping_mul(0xA24B_AED4_963E_E407)));
            let mv = agent
                .choose_until(&self.game, slot.state, stop)
                .map_err(|e| format!("game {}: the opponent failed: {e}", slot.index))?;
            if !self.game.legal_moves(slot.state).contains(mv) {
                return Err(format!(
                    "game {}: the opponent chose an illegal move ({mv:?})",
                    slot.index
                ));
            }
            self.game.play_unchecked(slot.state, mv);
            rank += 1;
        }
        Ok(())
    }

    /// A new game in `slot`, up to the learner's first move.
    fn begin(&self, slot: &mut Slot<'_, G>, cancel: &AtomicBool) -> Result<(), String> {
        *slot.episode += 1;
        *slot.state = self.restart(slot.index, *slot.episode);
        self.opponent_moves(slot, cancel)
    }

    /// Runs `each` over every slot, on up to `threads` threads; the first
    /// failure of any (the others still run).
    fn for_each_slot<F>(&mut self, out: Out<'_>, threads: usize, each: F) -> Result<(), String>
    where
        F: Fn(&Self, Slot<'_, G>) -> Result<(), String> + Sync,
    {
        let (width, actions) = (self.game.observation_len(), self.game.num_actions());
        let mut states = std::mem::take(&mut self.states);
        let mut episodes = std::mem::take(&mut self.episodes);
        let mut agents = self
            .opponent
            .as_mut()
            .map(|o| std::mem::take(o.agents.get_mut().unwrap_or_else(|p| p.into_inner())))
            .unwrap_or_default();
        let failure: Failure = Mutex::new(None);
        // One contiguous share of the games per thread, the calling thread
        // taking the first: threads started for the step and gone after
        // it, so that none spins beside the Python code between steps (a
        // rayon pool's waiting workers competed with the Python code on
        // two cores).
        let n = states.len();
        let parts = threads.min(n.div_ceil(CHUNK)).max(1);
        let share = n.div_ceil(parts);
        let mut shares = states
            .chunks_mut(share)
            .zip(episodes.chunks_mut(share))
            .zip(split(out, share, width, actions))
            .zip(
                agents
                    .iter_mut()
                    .map(Some)
                    .chain(std::iter::repeat_with(|| None)),
            )
            .enumerate()
            .map(|(part, (((states, episodes), out), opponent))| Share {
                offset: part * share,
                states,
                episodes,
                out,
                opponent,
            });
        let first = shares.next().expect("a batch has a game");
        let this = &*self;
        let (each, failure_ref) = (&each, &failure);
        std::thread::scope(|scope| {
            for rest in shares {
                scope.spawn(move || this.run_share(rest, each, failure_ref));
            }
            this.run_share(first, each, failure_ref);
        });
        self.states = states;
        self.episodes = episodes;
        if let Some(opponent) = self.opponent.as_mut() {
            *opponent.agents.get_mut().unwrap_or_else(|p| p.into_inner()) = agents;
        }
        self.calls += 1;
        failure
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .map_or(Ok(()), Err)
    }

    /// Runs `each` over the slots of one thread's share, keeping the first
    /// failure in `failure`.
    fn run_share<F>(&self, share: Share<'_, G>, each: &F, failure: &Failure)
    where
        F: Fn(&Self, Slot<'_, G>) -> Result<(), String>,
    {
        let (width, actions) = (self.game.observation_len(), self.game.num_actions());
        let Share {
            offset,
            states,
            episodes,
            out,
            mut opponent,
        } = share;
        let rows = out
            .observations
            .chunks_mut(width)
            .zip(out.legal.chunks_mut(actions))
            .zip(out.rewards.as_chunks_mut::<2>().0)
            .zip(out.margins.as_chunks_mut::<2>().0)
            .zip(out.terminated.iter_mut())
            .zip(out.to_move.iter_mut());
        let games = states.iter_mut().zip(episodes.iter_mut());
        for (k, ((state, episode), (((((o, l), r), m), t), p))) in games.zip(rows).enumerate() {
            let slot = Slot {
                index: offset + k,
                state,
                episode,
                row: Row {
                    observation: o,
                    legal: l,
                    rewards: r,
                    margins: m,
                    terminated: t,
                    to_move: p,
                },
                opponent: opponent.as_deref_mut().map(|a| &mut *a),
            };
            if let Err(e) = each(self, slot) {
                let mut first = failure.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert(e);
            }
        }
    }

    /// Writes the result of the game in `row`: `state`'s, if it is over.
    fn record_result(&self, state: &G::State, row: &mut Row<'_>) -> bool {
        let Some(outcome) = self.game.outcome(state) else {
            row.no_result();
            return false;
        };
        *row.rewards = crate::position::returns(Some(outcome));
        let margin = outcome.margin() as f32;
        *row.margins = [margin, -margin];
        *row.terminated = true;
        true
    }
}

/// The output arrays cut into shares of `share` games.
fn split(out: Out<'_>, share: usize, width: usize, actions: usize) -> Vec<Out<'_>> {
    let parts = out
        .observations
        .chunks_mut(share * width)
        .zip(out.legal.chunks_mut(share * actions))
        .zip(out.rewards.chunks_mut(share * 2))
        .zip(out.margins.chunks_mut(share * 2))
        .zip(out.terminated.chunks_mut(share))
        .zip(out.to_move.chunks_mut(share));
    parts
        .map(|(((((o, l), r), m), t), p)| Out {
            observations: o,
            legal: l,
            rewards: r,
            margins: m,
            terminated: t,
            to_move: p,
        })
        .collect()
}

impl<G: Game> Batch for Games<G> {
    fn reset(
        &mut self,
        only: Option<&[bool]>,
        out: Out<'_>,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Result<(), String> {
        self.for_each_slot(out, threads, |this, mut slot| {
            if only.is_some_and(|only| !only[slot.index]) {
                return Ok(());
            }
            let begun = this.begin(&mut slot, cancel);
            // An opponent's first moves cannot end a game here (every
            // game is longer), but say so if one did.
            this.record_result(slot.state, &mut slot.row);
            this.write(slot.state, slot.row);
            begun
        })
    }

    fn check(&self, actions: &[i64]) -> Result<(), String> {
        let pits = self.game.pits();
        for (i, (&a, state)) in actions.iter().zip(&self.states).enumerate() {
            let legal = self.game.legal_moves(state);
            if legal.is_empty() && a == -1 {
                // A game that is over (auto_reset is off) sits the step out.
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

    fn step(
        &mut self,
        actions: &[i64],
        out: Out<'_>,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Result<(), String> {
        let pits = self.game.pits();
        let auto_reset = self.auto_reset;
        self.for_each_slot(out, threads, |this, mut slot| {
            let action = actions[slot.index];
            if action < 0 {
                // A game already over (checked): it stays over, with no
                // new reward.
                slot.row.no_result();
                *slot.row.terminated = true;
                this.write(slot.state, slot.row);
                return Ok(());
            }
            let mv = Move::from_action_index(action as usize, pits);
            this.game.play_unchecked(slot.state, mv);
            let mut moved = this.opponent_moves(&mut slot, cancel);
            if this.record_result(slot.state, &mut slot.row) && auto_reset && moved.is_ok() {
                moved = this.begin(&mut slot, cancel);
            }
            this.write(slot.state, slot.row);
            moved
        })
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

    fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.calls = 0;
        self.episodes.fill(0);
    }

    fn seats(&self) -> Option<Vec<i8>> {
        self.opponent.as_ref()?;
        let seats =
            (0..self.states.len()).map(|slot| self.seat(slot).map_or(0, |p| p.index() as i8));
        Some(seats.collect())
    }

    fn opponent_searches(&self) -> bool {
        self.opponent.as_ref().is_some_and(|o| o.searches)
    }
}

/// The splitmix64 finaliser: every input bit affects every output bit.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a batch is made of, besides its rules and size.
struct Options {
    seed: u64,
    opening_plies: u32,
    auto_reset: bool,
    /// The opponent's spec and the learner's seat (`None`: alternate).
    opponent: Option<(AnyAgentSpec, Option<Player>)>,
    threads: usize,
}

fn batch(spec: GameSpec, n: usize, options: Options) -> PyResult<Box<dyn Batch>> {
    mancala_core::with_game!(&spec, game => {
        let opponent = match options.opponent {
            None => None,
            Some((agent, seat)) => {
                agent
                    .check(game)
                    .map_err(|e| PyValueError::new_err(format!("opponent: {e}")))?;
                let agents: Vec<_> = (0..options.threads)
                    .map(|_| agent.build_with(game, &crate::solve::SOLVERS))
                    .collect();
                let searches = agents[0].reports_search();
                Some(Opponent { agents: Mutex::new(agents), searches, seat })
            }
        };
        Ok(Box::new(Games {
            spec,
            game: *game,
            start: game.start(),
            states: vec![game.start(); n],
            episodes: vec![0; n],
            seed: options.seed,
            opening_plies: options.opening_plies,
            auto_reset: options.auto_reset,
            opponent,
            calls: 0,
        }) as Box<dyn Batch>)
    })
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
    // A game's position and count, its rows of the six output arrays,
    // and its sampled action.
    let per_game = state + 8 + width * 4 + actions + 2 * 4 + 2 * 4 + 1 + 1 + 8;
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
/// `margins`, a sixth array written in place beside them (float32
/// `(n, 2)`), holds each player's final seed margin of a game that the
/// step ended, else 0.
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
///
/// With an `opponent` (any agent spec but an external engine:
/// `"greedy"`, `"minimax:depth=4"`, ...) the learner holds one seat of
/// every game (`seat`: 0 or 1, or `None` for seat `i % 2` in game `i`; see
/// `seats`) and the opponent's moves, extra turns included, are played in
/// Rust inside `reset` and `step`, so every row is the learner's turn
/// (or a finished game). Each opponent move is chosen afresh from a seed
/// of the batch's, so the same seed gives the same games at any thread
/// count (a time-limited opponent excepted).
#[pyclass(name = "VectorGame", module = "mancala")]
pub struct PyVectorGame {
    spec: GameSpec,
    n: usize,
    games: Box<dyn Batch>,
    /// The opponent's canonical spec, with one.
    opponent: Option<String>,
    /// Threads a step may use.
    threads: usize,
    observations: Py<PyArray2<f32>>,
    legal: Py<PyArray2<bool>>,
    rewards: Py<PyArray2<f32>>,
    margins: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    to_move: Py<PyArray1<i8>>,
    /// What `sample_actions` writes, and how many times it has.
    samples: Py<PyArray1<i64>>,
    draws: u64,
    /// Why the batch cannot step until it is reset: a step or reset that
    /// did not complete (an opponent failed, or Ctrl-C stopped it).
    broken: Option<String>,
}

type StepArrays<'py> = Bound<'py, PyTuple>;

#[pymethods]
impl PyVectorGame {
    #[new]
    #[pyo3(signature = (
        spec, n, seed = 0, *, opponent = None, seat = Some(0), auto_reset = true,
        opening_plies = 0, threads = None
    ))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        py: Python<'_>,
        spec: &str,
        n: i64,
        seed: u64,
        opponent: Option<&str>,
        seat: Option<i64>,
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
        let seat = match seat {
            None => None,
            Some(s @ (0 | 1)) => Some(Player::new(s as usize)),
            Some(s) => {
                return Err(PyValueError::new_err(format!(
                    "seat must be 0, 1 or None (seat i % 2 in game i), not {s}"
                )))
            }
        };
        let opponent = match opponent {
            None if seat != Some(Player::ZERO) => {
                return Err(PyValueError::new_err(
                    "seat is the learner's seat against an opponent: give opponent= too",
                ))
            }
            None => None,
            Some(text) => Some((opponent_spec(text)?, seat)),
        };
        let name = opponent.as_ref().map(|(spec, _)| spec.to_string());
        let options = Options {
            seed,
            opening_plies,
            auto_reset,
            opponent,
            threads,
        };
        let width = crate::position::observation_len(&spec);
        let actions = crate::position::num_actions(&spec);
        let mut vector = PyVectorGame {
            spec,
            n,
            games: batch(spec, n, options)?,
            opponent: name,
            threads,
            observations: PyArray2::zeros(py, [n, width], false).unbind(),
            legal: PyArray2::zeros(py, [n, actions], false).unbind(),
            rewards: PyArray2::zeros(py, [n, 2], false).unbind(),
            margins: PyArray2::zeros(py, [n, 2], false).unbind(),
            terminated: PyArray1::zeros(py, n, false).unbind(),
            to_move: PyArray1::zeros(py, n, false).unbind(),
            samples: PyArray1::zeros(py, n, false).unbind(),
            draws: 0,
            broken: None,
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

    /// The opponent's canonical spec, or `None` without one.
    #[getter]
    fn opponent(&self) -> Option<String> {
        self.opponent.clone()
    }

    /// The learner's seat in each game (int8 `(n,)`, a copy), or `None`
    /// without an opponent: read game `i`'s reward as
    /// `rewards[i, seats[i]]`.
    #[getter]
    fn seats<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<i8>>> {
        self.games.seats().map(|s| PyArray1::from_vec(py, s))
    }

    /// Each player's final seed margin of the games that the last step or
    /// reset ended, else 0: float32 `(n, 2)`, written in place.
    #[getter]
    fn margins<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.margins.bind(py).clone()
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
            + array_bytes(self.margins.bind(py))
            + array_bytes(self.terminated.bind(py))
            + array_bytes(self.to_move.bind(py))
            + array_bytes(self.samples.bind(py))
    }

    /// One game's observations, a `gymnasium.spaces.Box` (needs the
    /// `[rl]` extra).
    #[getter]
    fn single_observation_space<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.space(py, "single_observation_space")
    }

    /// One game's actions, a `gymnasium.spaces.Discrete`.
    #[getter]
    fn single_action_space<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.space(py, "single_action_space")
    }

    /// The batch's observations, a `gymnasium.spaces.Box` of shape
    /// `(n, width)`.
    #[getter]
    fn observation_space<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.space(py, "observation_space")
    }

    /// The batch's actions, a `gymnasium.spaces.MultiDiscrete` of `n`.
    #[getter]
    fn action_space<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.space(py, "action_space")
    }

    /// Restarts every game, or the games listed in `indices` (the others
    /// are left as they are, in the arrays too); returns `(observations,
    /// legal, rewards, terminated, to_move)`. With `seed`, the batch
    /// starts afresh as a new batch of that seed would (its openings,
    /// samples and opponent's moves): every game, so not with `indices`.
    #[pyo3(signature = (indices = None, *, seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        indices: Option<&Bound<'py, PyAny>>,
        seed: Option<u64>,
    ) -> PyResult<StepArrays<'py>> {
        let only = match indices {
            None => None,
            Some(_) if seed.is_some() => {
                return Err(PyValueError::new_err(
                    "seed restarts the whole batch: give it without indices",
                ))
            }
            Some(_) if self.broken.is_some() => {
                return Err(self.broken_error());
            }
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
        if let Some(seed) = seed {
            self.games.reseed(seed);
            self.draws = 0;
        }
        if only.is_none() {
            self.broken = None;
        }
        self.run(py, Job::Reset(only.as_deref()))?;
        self.arrays(py)
    }

    /// Plays `actions[i]` (an action id) in game `i`, every game at once
    /// (then the opponent's replies, with one); returns `(observations,
    /// legal, rewards, terminated, to_move)`. `ValueError` naming the
    /// first game whose action is not legal (then no game moves).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<StepArrays<'py>> {
        if self.broken.is_some() {
            return Err(self.broken_error());
        }
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

/// An opponent's spec: any agent but an external engine (one program
/// cannot answer for thousands of games a step, and it would need each
/// game's history).
fn opponent_spec(text: &str) -> PyResult<AnyAgentSpec> {
    let spec =
        AnyAgentSpec::parse(text).map_err(|e| PyValueError::new_err(format!("opponent: {e}")))?;
    if matches!(spec, AnyAgentSpec::Engine(_)) {
        return Err(PyValueError::new_err(
            "opponent: an external engine cannot be a VectorGame's opponent; play it \
             through mancala.Agent or mancala.MancalaEnv",
        ));
    }
    Ok(spec)
}

/// The output arrays cannot be written as this batch's: their layout was
/// changed from Python.
fn changed(e: &dyn std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("the output arrays were changed: {e}"))
}

impl PyVectorGame {
    /// Resets or steps the games, with the GIL released; against a
    /// searching opponent on a thread of its own, so that Ctrl-C stops it.
    /// A job that does not complete leaves the batch to be reset.
    fn run(&mut self, py: Python<'_>, job: Job<'_>) -> PyResult<()> {
        let mut observations = self.observations.bind(py).try_readwrite()?;
        let mut legal = self.legal.bind(py).try_readwrite()?;
        let mut rewards = self.rewards.bind(py).try_readwrite()?;
        let mut margins = self.margins.bind(py).try_readwrite()?;
        let mut terminated = self.terminated.bind(py).try_readwrite()?;
        let mut to_move = self.to_move.bind(py).try_readwrite()?;
        let out = Out {
            observations: observations.as_slice_mut().map_err(|e| changed(&e))?,
            legal: legal.as_slice_mut().map_err(|e| changed(&e))?,
            rewards: rewards.as_slice_mut().map_err(|e| changed(&e))?,
            margins: margins.as_slice_mut().map_err(|e| changed(&e))?,
            terminated: terminated.as_slice_mut().map_err(|e| changed(&e))?,
            to_move: to_move.as_slice_mut().map_err(|e| changed(&e))?,
        };
        let searches = self.games.opponent_searches();
        let games = &mut self.games;
        let threads = self.threads;
        let work = |cancel: &AtomicBool| match job {
            Job::Reset(only) => games.reset(only, out, threads, cancel),
            Job::Step(actions) => games.step(actions, out, threads, cancel),
        };
        let done = if searches {
            crate::interrupt::interruptible(py, work)
        } else {
            let cancel = AtomicBool::new(false);
            crate::interrupt::guarded(|| py.detach(|| work(&cancel)))
        };
        match done {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => {
                self.broken = Some(why.clone());
                Err(PyRuntimeError::new_err(format!(
                    "{why}; reset() the batch before stepping it again"
                )))
            }
            Err(e) => {
                self.broken = Some(format!("a step or reset was stopped: {e}"));
                Err(e)
            }
        }
    }

    fn broken_error(&self) -> PyErr {
        let why = self.broken.as_deref().unwrap_or_default();
        PyRuntimeError::new_err(format!(
            "the batch cannot step: {why}; reset() every game first"
        ))
    }

    /// One of the batch's Gymnasium spaces, made in Python.
    fn space<'py>(&self, py: Python<'py>, which: &str) -> PyResult<Bound<'py, PyAny>> {
        let width = crate::position::observation_len(&self.spec);
        let actions = crate::position::num_actions(&self.spec);
        py.import("mancala._env")?
            .call_method1("vector_space", (which, width, actions, self.n))
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
