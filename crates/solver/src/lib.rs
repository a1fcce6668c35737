//! Exact values of Kalah, single-round Congkak and small Oware positions,
//! and the `perfect` agent.
//!
//! [`Solver`] finds the final margin of a position of a store-free game
//! ([`ExactGame`]: Kalah, single-round Congkak) with perfect play by both
//! sides, the value of every legal move and a principal variation; one
//! generic search, monomorphised for each game. It searches the margin
//! still to come (the stores' margin is known) with
//! fail-soft alpha-beta driven by MTD(f) null-window probes (the first
//! aimed, on big positions, by a shallow heuristic search), over
//!
//! - a transposition table keyed by the pits alone, seen from the mover's
//!   side (so a position and its mirror image are one entry), holding exact
//!   bounds that stay true for the whole run and are shared lock-free by
//!   all threads ([`table`]);
//! - enhanced transposition cutoffs (a child's table entry may refute its
//!   parent before any child is searched) and move ordering by the table's
//!   move, extra turns and immediate gain;
//! - an endgame database of every position with few seeds left, built by
//!   exhaustive search with memoisation, level by level ([`endgame`]).
//!
//! Several threads search each MTD(f) probe's tree together (ABDADA),
//! sharing the table.
//!
//! Oware's values depend on the positions seen since the last capture, so
//! it has its own search ([`oware::OwareSolver`]); all three solvers answer
//! through one interface, [`ExactSolver`]. A game's [`Solvable`]
//! implementation says which solver it has and with which defaults, and
//! every front end gets its solvers from a [`Solvers`] pool
//! ([`solvers`]: the one path from a request to a table).
//!
//! ```
//! use mancala_core::{Game, KalahRules};
//! use mancala_solver::{Solver, SolverOptions};
//!
//! let rules = KalahRules::new(3, 2).unwrap();
//! let solver = Solver::new(rules, &SolverOptions::small()).unwrap();
//! let solution = solver.solve(&rules.start(), 1).unwrap();
//! // Every move's value is at most the position's, and one reaches it.
//! assert!(solution.moves.iter().all(|m| m.value <= solution.value));
//! assert!(solution.moves.iter().any(|m| m.value == solution.value));
//! ```

pub mod agent;
pub mod congkak;
pub mod endgame;
mod error;
mod exact;
mod game;
mod memory;
pub mod oware;
pub mod positions;
mod search;
pub mod solvers;
pub mod table;
pub mod view;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use mancala_agents::StopCondition;
use mancala_core::{KalahRules, Move, Player};
use serde::{Deserialize, Serialize};

pub use agent::{Perfect, PerfectError, PerfectSpec};
pub use endgame::{DatabasePlan, Endgame, EndgameError};
pub use error::SolveError;
pub use exact::ExactSolver;
pub use game::ExactGame;
use search::{children, holding, stores_margin, Busy, Search, Shared};
pub use solvers::{build_solver, exact_solver, Overrides, Profile, Solvable, Solvers};
pub use table::{Table, TableError};
pub use view::View;

/// How much memory a solver may use: the options of every solver's
/// constructor ([`Solver::new`], [`oware::OwareSolver::new`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SolverOptions {
    /// Transposition table size in MiB.
    pub table_mib: usize,
    /// Seeds in the fullest endgame database level (0: no database).
    pub endgame_seeds: usize,
    /// A folder where databases are kept: loaded from there when saved
    /// before, else built and saved there ([`Endgame::load_or_build`]).
    /// `None`: built in memory each time.
    pub endgame_dir: Option<std::path::PathBuf>,
}

impl Default for SolverOptions {
    /// A table of [`DEFAULT_TABLE_MIB`] and no database.
    fn default() -> SolverOptions {
        SolverOptions::table(DEFAULT_TABLE_MIB)
    }
}

/// Default table size of a big board: 1 GiB (about 45 M positions).
/// Smaller boards get the table their positions can fill
/// ([`table_mib_for`]).
pub const DEFAULT_TABLE_MIB: usize = 1024;

/// The smallest default table, 16 MiB: what the recorded node counts of
/// the small boards (`tests/golden/solve`) were searched with, so that a
/// default solve of those boards searches exactly as recorded; a smaller
/// one would save only milliseconds of allocation.
pub const MIN_TABLE_MIB: usize = 16;

/// Table slots per position a board can put in the table: even a search
/// that reached every one of them would leave half the slots free (and the
/// searches measured reach a small share: a solve of Kalah(4,4) without a
/// database fills under 250,000 slots, for 77 M placements).
const SLOTS_PER_POSITION: u64 = 2;

/// The default table of a solver of `rules`, in MiB: no more than the
/// positions of the board can fill (every placement of its seeds in the
/// pits, once per pending-swap state: [`ExactGame::keys_per_board`]),
/// two slots each (`SLOTS_PER_POSITION`), rounded up to a power of two, at
/// least [`MIN_TABLE_MIB`] and at most `most`. Without it a small board
/// paid for a table of `most`: `solve` of Kalah(4,1), 12,870 placements,
/// allocated and touched 1 GiB, seconds of work for a search of
/// microseconds. A big board (Kalah(4,4) and up) gets `most`.
pub fn table_mib_for<G: ExactGame>(rules: &G, most: usize) -> usize {
    let bytes = endgame::positions(rules.pits(), rules.total_seeds())
        .and_then(|boards| boards.checked_mul(rules.keys_per_board()))
        .and_then(|keys| keys.checked_mul(SLOTS_PER_POSITION * table::SLOT_BYTES as u64));
    match bytes {
        Some(bytes) => usize::try_from(bytes.div_ceil(1 << 20).next_power_of_two())
            .unwrap_or(most)
            .clamp(MIN_TABLE_MIB.min(most), most),
        None => most,
    }
}

/// Most positions an endgame database holds by default (one byte each):
/// 22 seeds on six pits. Every 2 seeds more halve the nodes of a Kalah(6,4)
/// solve (48 M nodes with 16 seeds, 24 M with 18, 12 M with 20), and
/// databases are kept between runs, so the first build (about 3.5 minutes
/// on two cores for six pits) is paid once.
pub const DEFAULT_ENDGAME_POSITIONS: u64 = 600_000_000;

impl SolverOptions {
    /// A table of `mib` MiB (0: one bucket, for tests) and no database.
    pub fn table(mib: usize) -> SolverOptions {
        SolverOptions {
            table_mib: mib,
            endgame_seeds: 0,
            endgame_dir: None,
        }
    }

    /// A 16 MiB table and a database of up to 2^20 positions: for tests and
    /// small boards.
    pub fn small() -> SolverOptions {
        SolverOptions {
            table_mib: 16,
            endgame_seeds: 0,
            endgame_dir: None,
        }
        .with_endgame_positions(1 << 20, 3)
    }

    /// The default for `rules`: a table of at most [`DEFAULT_TABLE_MIB`]
    /// sized to the board ([`table_mib_for`]) and the largest database of
    /// at most [`ExactGame::DATABASE_POSITIONS`] positions (Kalah:
    /// [`DEFAULT_ENDGAME_POSITIONS`]) holding at most a share of the
    /// board's seeds ([`ExactGame::DATABASE_SHARE`]: half for Kalah, a
    /// quarter for Congkak), beyond which a bigger database costs more to
    /// build than the search it saves.
    pub fn for_rules<G: ExactGame>(rules: &G) -> SolverOptions {
        let mut options = SolverOptions::table(table_mib_for(rules, DEFAULT_TABLE_MIB))
            .with_endgame_positions(G::DATABASE_POSITIONS, rules.pits());
        options.endgame_seeds = options
            .endgame_seeds
            .min(rules.total_seeds() / G::DATABASE_SHARE);
        options
    }

    /// The largest database level whose database has at most `limit`
    /// positions on a board of `pits` pits.
    pub fn with_endgame_positions(mut self, limit: u64, pits: usize) -> SolverOptions {
        let mut k = 0;
        while k < endgame::MAX_DB_SEEDS
            && endgame::positions(pits, k + 1).is_some_and(|n| n <= limit)
        {
            k += 1;
        }
        self.endgame_seeds = k;
        self
    }
}

/// Most nodes the deepest step of MTD(f)'s first guess may cost (about
/// two seconds): from the start of a six-pit board it stops 14 moves deep.
const GUESS_NODES: u64 = 1 << 24;

/// How far above its heuristic estimate MTD(f) starts. The estimate counts
/// only half of each row's seeds to its owner at the horizon and misses the
/// mover's initiative beyond it: on the big boards and positions measured
/// (six pits, 46 to 60 seeds in the pits, 14 moves deep) it fell 1 to 5
/// below the exact value, 3 on average. Starting a little high is also the
/// cheaper mistake in the runs measured: a probe above the value failed low
/// with the value itself as its bound, so the next probe ended the search,
/// while one below it failed high with no more than its own threshold,
/// and each step up cost another probe.
const GUESS_BIAS: i32 = 3;

/// A move and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveValue {
    /// The move (as text: a pit number from 1, or `swap`).
    pub mv: Move,
    /// The final margin for the position's mover after this move and
    /// perfect play.
    pub value: i32,
}

/// What solving cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SolveStats {
    /// Positions searched (database look-ups not included).
    pub nodes: u64,
    /// Wall time of the search (the database build not included).
    pub seconds: f64,
    /// Transposition table size in bytes.
    pub table_bytes: usize,
    /// Table slots in use at the end.
    pub table_entries: usize,
    /// Seeds in the database's fullest level (0: none).
    pub endgame_seeds: usize,
    /// Positions in the database.
    pub endgame_positions: usize,
    /// Seconds the database took to build.
    pub endgame_seconds: f64,
}

/// The solved position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    /// Who is to move.
    #[serde(serialize_with = "player_index")]
    pub mover: Player,
    /// The final margin (mover's store minus the opponent's) with perfect
    /// play by both sides.
    pub value: i32,
    /// Every legal move with its value, in move order.
    pub moves: Vec<MoveValue>,
    /// A principal variation: moves that keep the value, to the game's end.
    #[serde(serialize_with = "moves_as_text")]
    pub pv: Vec<Move>,
    /// What it cost.
    pub stats: SolveStats,
}

fn player_index<S: serde::Serializer>(p: &Player, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(p.index() as u64)
}

fn moves_as_text<S: serde::Serializer>(moves: &[Move], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(moves.iter().map(Move::to_string))
}

/// Whether a move (to `child`, gaining `gain`, passing the turn or not)
/// reaches `to_come`, the value still to come before it: one null-window
/// probe.
fn reaches<G: ExactGame>(
    search: &mut Search<'_, G>,
    child: &G::State,
    gain: i32,
    passes: bool,
    to_come: i32,
) -> bool {
    let rules = search.shared.rules;
    reaches_by(rules, child, gain, passes, to_come, |state, threshold| {
        Ok::<_, SolveError>(search.at_least(state, threshold))
    })
    .unwrap_or(false)
}

/// [`reaches`], whether the child's value is at least a threshold told by
/// `at_least` (one search, or several threads' together).
fn reaches_by<G: ExactGame, E>(
    rules: &G,
    child: &G::State,
    gain: i32,
    passes: bool,
    to_come: i32,
    mut at_least: impl FnMut(&G::State, i32) -> Result<bool, E>,
) -> Result<bool, E> {
    Ok(match rules.to_move(child) {
        None => gain >= to_come,
        Some(_) if passes => !at_least(child, gain - to_come + 1)?,
        Some(_) => at_least(child, to_come - gain)?,
    })
}

/// What one MTD(f) probe of a position's value established, for a
/// progress report: a long solve narrows the value probe by probe.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Probe {
    /// The value (the stores' margin included) is at least this...
    pub lower: i32,
    /// ... and at most this; the two meet when the value is known.
    pub upper: i32,
    /// Positions searched for this value so far, on all threads.
    pub nodes: u64,
    /// Seconds since the value was asked for.
    pub seconds: f64,
}

/// A progress callback: see [`Solver::on_probe`].
pub type ProbeCallback = Arc<dyn Fn(Probe) + Send + Sync>;

/// Solves positions of one rule set of a store-free game (Kalah unless `G`
/// says otherwise; [`congkak::CongkakSolver`] for Congkak). Keeps its
/// table between calls, so later positions of the same game are cheap.
pub struct Solver<G: ExactGame = KalahRules> {
    rules: G,
    table: Table,
    endgame: Option<Endgame<G>>,
    /// Why the database, built, was not saved in its folder.
    not_saved: Option<EndgameError>,
    bits: u32,
    nodes: AtomicU64,
    /// Set once the solver is shared, so behind a lock: read once a probe.
    on_probe: std::sync::Mutex<Option<ProbeCallback>>,
    /// Small tables [`Solver::settle`] searches in, one per caller at a
    /// time, kept for the next call.
    scratch: std::sync::Mutex<Vec<Table>>,
}

/// MiB of each table [`Solver::settle`] searches in: enough for the
/// budgets it is meant for (up to about a million nodes), small enough to
/// clear for every position.
pub const SETTLE_TABLE_MIB: usize = 4;

impl<G: ExactGame> std::fmt::Debug for Solver<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Solver({}, {:?}, {:?})",
            self.rules, self.table, self.endgame
        )
    }
}

impl<G: ExactGame> Solver<G> {
    /// A solver for `rules`: allocates the table and builds the endgame
    /// database (on the current rayon pool).
    ///
    /// A database built but not saved in [`SolverOptions::endgame_dir`] (a
    /// full disk, a folder that cannot be written) is no error: the solver
    /// uses it, and [`Solver::endgame_not_saved`] says why the next run
    /// builds it again.
    ///
    /// # Errors
    /// [`SolveError::MultiRound`] for rules the search cannot solve
    /// ([`Solvable::check_solvable`]); [`SolveError::Table`] or
    /// [`SolveError::Endgame`] when the memory cannot be had or a saved
    /// database cannot be read.
    pub fn new(rules: G, options: &SolverOptions) -> Result<Solver<G>, SolveError> {
        rules.check_solvable()?;
        let table = Table::new(options.table_mib)?;
        let (endgame, not_saved) = match (options.endgame_seeds, &options.endgame_dir) {
            (0, _) => (None, None),
            (k, Some(dir)) => {
                let (db, not_saved) = Endgame::load_or_build(&rules, k, dir)?;
                (Some(db), not_saved)
            }
            (k, None) => (Some(Endgame::build(&rules, k)?), None),
        };
        Ok(Solver {
            bits: view::bits_for(rules.total_seeds()),
            rules,
            table,
            endgame,
            not_saved,
            nodes: AtomicU64::new(0),
            on_probe: std::sync::Mutex::new(None),
            scratch: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Calls `report` after each null-window probe of a position's own
    /// value (not of its moves'), with the bounds known so far: how a
    /// solve that takes minutes shows it is getting somewhere.
    pub fn on_probe(&self, report: impl Fn(Probe) + Send + Sync + 'static) {
        *self.on_probe.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(report));
    }

    /// The rules solved.
    pub fn rules(&self) -> &G {
        &self.rules
    }

    /// The endgame database, if any.
    pub fn endgame(&self) -> Option<&Endgame<G>> {
        self.endgame.as_ref()
    }

    /// Why the endgame database, built for this solver, could not be saved
    /// in [`SolverOptions::endgame_dir`] for the next run (`None`: it was
    /// saved, loaded, or not to be kept).
    pub fn endgame_not_saved(&self) -> Option<&EndgameError> {
        self.not_saved.as_ref()
    }

    /// Slots of the table holding an entry.
    pub fn table_entries(&self) -> usize {
        self.table.filled()
    }

    fn shared(&self) -> Shared<'_, G> {
        Shared {
            rules: &self.rules,
            table: &self.table,
            endgame: self.endgame.as_ref(),
            bits: self.bits,
            busy: None,
        }
    }

    /// The final margin for the mover of `state` with perfect play.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], or [`SolveError::Stopped`] when `stop`
    /// came first.
    pub fn value(&self, state: &G::State, stop: StopCondition<'_>) -> Result<i32, SolveError> {
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        Ok(stores_margin(&self.rules, state, mover) + self.to_come(state, stop)?)
    }

    /// The final margin for the mover of `state` with perfect play when
    /// it comes cheaply: the endgame database holds the position, or (with
    /// `max_nodes > 0`) a search of at most `max_nodes` nodes proves it.
    /// `None` otherwise, and for a finished game.
    ///
    /// The answer depends on `state` and `max_nodes` alone, never on what
    /// was solved before or on other threads: the search runs on this
    /// thread in a table of its own, cleared first, and the database is
    /// read only. So a tournament that ends games with it plays the same
    /// games on any machine and at any thread count.
    ///
    /// # Errors
    /// [`SolveError::Table`] when a scratch table cannot be had.
    pub fn settle(&self, state: &G::State, max_nodes: u64) -> Result<Option<i32>, SolveError> {
        let Some(mover) = self.rules.to_move(state) else {
            return Ok(None);
        };
        let base = stores_margin(&self.rules, state, mover);
        let view = self.rules.view(state, mover);
        let seeds = view.seeds();
        if let Some(db) = holding(self.endgame.as_ref(), &view, seeds) {
            return Ok(Some(base + db.lookup(view.board(), seeds as usize)));
        }
        if max_nodes == 0 {
            return Ok(None);
        }
        let table = {
            let mut pool = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            pool.pop()
        };
        let table = match table {
            Some(t) => {
                t.clear();
                t
            }
            None => Table::new(SETTLE_TABLE_MIB)?,
        };
        let shared = Shared {
            table: &table,
            ..self.shared()
        };
        let mut search = Search::new(&shared, StopCondition::NEVER);
        search.node_limit = max_nodes;
        let to_come = search.solve(state, 0);
        let settled = (!search.stopped).then_some(base + to_come);
        self.scratch
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(table);
        Ok(settled)
    }

    /// How the final margin of `state` for its mover with perfect play
    /// compares with `margin`: at most two null-window probes, far cheaper
    /// than the value itself (which takes a probe per step of MTD(f), and
    /// an exact bound at the end). Enough to tell a fair start from one
    /// that favours a player.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], or [`SolveError::Stopped`] when `stop`
    /// came first.
    pub fn compare(
        &self,
        state: &G::State,
        margin: i32,
        stop: StopCondition<'_>,
    ) -> Result<std::cmp::Ordering, SolveError> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let to_come = margin - stores_margin(&self.rules, state, mover);
        let shared = self.shared();
        let mut search = Search::new(&shared, stop);
        let order = if search.at_least(state, to_come + 1) {
            Greater
        } else if search.at_least(state, to_come) {
            Equal
        } else {
            Less
        };
        self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
        if search.stopped {
            return Err(SolveError::Stopped);
        }
        Ok(order)
    }

    /// Solves `state`: its value, every move's value and a principal
    /// variation, on `threads` threads.
    ///
    /// # Errors
    /// [`SolveError::GameOver`] for a finished game.
    pub fn solve(&self, state: &G::State, threads: usize) -> Result<Solution, SolveError> {
        self.solve_until(state, threads, StopCondition::NEVER)
    }

    /// [`Solver::solve`], giving up when `stop` is reached.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`], or
    /// [`SolveError::Threads`] when the threads cannot start.
    pub fn solve_until(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, SolveError> {
        let t0 = Instant::now();
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let base = stores_margin(&self.rules, state, mover);
        let nodes0 = self.nodes.load(Ordering::Relaxed);
        let moves = self.move_values(state, threads, stop)?;
        let value = moves
            .iter()
            .map(|m| m.value)
            .max()
            .expect("a game not over has moves");
        let pv = self.principal_variation(state, value - base, threads, stop)?;
        let seconds = t0.elapsed().as_secs_f64();
        Ok(Solution {
            mover,
            value,
            moves,
            pv,
            stats: SolveStats {
                nodes: self.nodes.load(Ordering::Relaxed) - nodes0,
                seconds,
                table_bytes: self.table.bytes(),
                table_entries: self.table.filled(),
                endgame_seeds: self.endgame.as_ref().map_or(0, |db| db.max_seeds()),
                endgame_positions: self.endgame.as_ref().map_or(0, |db| db.len()),
                endgame_seconds: self
                    .endgame
                    .as_ref()
                    .map_or(Duration::ZERO, |db| db.build_time())
                    .as_secs_f64(),
            },
        })
    }

    /// The value of every legal move of `state`, in move order, found by
    /// `threads` threads (1: this thread).
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`], or
    /// [`SolveError::Threads`] when the threads cannot start.
    pub fn move_values(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, SolveError> {
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let base = stores_margin(&self.rules, state, mover);
        let (_, moves) = self.root_search(state, threads, stop, true)?;
        Ok(moves
            .into_iter()
            .map(|(mv, v)| MoveValue {
                mv,
                value: base + v,
            })
            .collect())
    }

    /// [`Solver::value`] found by `threads` threads: while this one searches
    /// the position, the others solve its moves, best first, and what they
    /// learn reaches it through the shared table.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`], or
    /// [`SolveError::Threads`] when the threads cannot start.
    pub fn value_with_threads(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let base = stores_margin(&self.rules, state, mover);
        Ok(base + self.root_search(state, threads, stop, false)?.0)
    }

    /// The value still to come for the mover of `state` and, with
    /// `every_move`, each move's value (the gain included, the stores'
    /// margin before it not), found by `threads` threads.
    ///
    /// The position's own value comes first (on several threads, by
    /// [`Solver::parallel_mtdf`]). With `every_move` the threads then share out
    /// the moves, every move's search starting from the position's value
    /// (the best move's value is that value; the others' first probe fails
    /// low at once on what the table learnt), which costs far less than one
    /// MTD(f) from scratch per move.
    fn root_search(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
        every_move: bool,
    ) -> Result<(i32, Vec<(Move, i32)>), SolveError> {
        let rules = &self.rules;
        let mover = rules.to_move(state).ok_or(SolveError::GameOver)?;
        let kids = children(rules, state, mover);
        let root = self.parallel_mtdf(state, threads, stop)?;
        if !every_move {
            return Ok((root, Vec::new()));
        }
        // The moves, most promising first, shared out among the threads.
        let mut queue: Vec<usize> = (0..kids.len()).collect();
        queue.sort_by_key(|&i| std::cmp::Reverse((!kids[i].3, kids[i].2)));
        let shared = self.shared();
        // Raised only when a thread cannot start: the others then stop.
        let failed = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let values: Vec<OnceLock<i32>> = kids.iter().map(|_| OnceLock::new()).collect();
        let work = || -> Result<(), SolveError> {
            let mut search = Search::new(&shared, stop);
            search.abort = Some(&failed);
            let result = loop {
                let Some(&i) = queue.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break Ok(());
                };
                let (_, child, gain, passes) = &kids[i];
                let value = if rules.to_move(child).is_none() {
                    *gain
                } else {
                    // No move is worth more than the root: start there.
                    let guess = if *passes { gain - root } else { root - gain };
                    let v = search.solve(child, guess);
                    if search.stopped {
                        break Err(SolveError::Stopped);
                    }
                    if *passes {
                        gain - v
                    } else {
                        gain + v
                    }
                };
                let _ = values[i].set(value);
            };
            self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
            result
        };
        std::thread::scope(|scope| {
            let helpers = (1..threads.max(1))
                .map(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, work)
                        .map_err(|e| SolveError::Threads(Box::new(e)))
                })
                .collect::<Result<Vec<_>, _>>();
            let mine = match helpers {
                Ok(_) => work(),
                Err(_) => {
                    failed.store(true, Ordering::Relaxed);
                    Ok(())
                }
            };
            for h in helpers? {
                h.join().expect("a solver thread panicked")?;
            }
            mine
        })?;
        let moves = kids
            .iter()
            .zip(values)
            .map(|((mv, ..), v)| (*mv, v.into_inner().expect("every move was solved")))
            .collect();
        Ok((root, moves))
    }

    /// The value still to come for the mover of `state` (not over).
    fn to_come(&self, state: &G::State, stop: StopCondition<'_>) -> Result<i32, SolveError> {
        self.parallel_mtdf(state, 1, stop)
    }

    /// Moves that keep the value `to_come` (still to come for the mover of
    /// `state`), to the end of the game: at each position the first move,
    /// in move order, that keeps it. On several threads each move's
    /// null-window search is searched by all of them together
    /// ([`Solver::probe`]): on Congkak's long lines of big positions the
    /// walk, which one thread made alone while the others waited, took
    /// half of a solve.
    fn principal_variation(
        &self,
        state: &G::State,
        mut to_come: i32,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<Move>, SolveError> {
        let rules = &self.rules;
        let busy = (threads > 1).then(Busy::new);
        let shared = Shared {
            busy: busy.as_ref(),
            ..self.shared()
        };
        let mut search = Search::new(&shared, stop);
        let mut pv = Vec::new();
        let mut state = *state;
        while let Some(mover) = rules.to_move(&state) {
            let kids = children(rules, &state, mover);
            let mut chosen = None;
            for (mv, child, gain, passes) in kids {
                let reaches = if threads > 1 {
                    self.reaches_on(&shared, &child, gain, passes, to_come, threads, stop)
                } else {
                    let reaches = reaches(&mut search, &child, gain, passes, to_come);
                    if search.stopped {
                        Err(SolveError::Stopped)
                    } else {
                        Ok(reaches)
                    }
                };
                let reaches = match reaches {
                    Ok(r) => r,
                    Err(e) => {
                        self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
                        return Err(e);
                    }
                };
                if reaches {
                    let rest = if passes {
                        gain - to_come
                    } else {
                        to_come - gain
                    };
                    chosen = Some((mv, child, rest));
                    break;
                }
            }
            let (mv, child, rest) = chosen.expect("some move reaches the position's value");
            pv.push(mv);
            to_come = rest;
            state = child;
        }
        self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
        Ok(pv)
    }

    /// [`reaches`], each null-window search made by `threads` threads
    /// together ([`Solver::probe`]).
    #[allow(clippy::too_many_arguments)]
    fn reaches_on(
        &self,
        shared: &Shared<'_, G>,
        child: &G::State,
        gain: i32,
        passes: bool,
        to_come: i32,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<bool, SolveError> {
        reaches_by(
            &self.rules,
            child,
            gain,
            passes,
            to_come,
            |state, threshold| Ok(self.probe(shared, state, threshold, threads, stop)? >= threshold),
        )
    }

    /// The value of `state` and the moves that keep it: what a player
    /// needs to play perfectly. Cheaper than [`Solver::move_values`]: once
    /// the value is known, whether a move keeps it takes one null-window
    /// search, where its exact value takes several.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`], or
    /// [`SolveError::Threads`] when the threads cannot start.
    pub fn best_moves(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), SolveError> {
        let rules = &self.rules;
        let mover = rules.to_move(state).ok_or(SolveError::GameOver)?;
        let to_come = self.root_search(state, threads, stop, false)?.0;
        let shared = self.shared();
        let mut search = Search::new(&shared, stop);
        let mut best = Vec::new();
        for (mv, child, gain, passes) in children(rules, state, mover) {
            if reaches(&mut search, &child, gain, passes, to_come) {
                best.push(mv);
            }
            if search.stopped {
                break;
            }
        }
        self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
        if search.stopped {
            return Err(SolveError::Stopped);
        }
        Ok((stores_margin(rules, state, mover) + to_come, best))
    }

    /// The value still to come for the mover of `state` (not over), by
    /// MTD(f) whose every null-window probe `threads` threads search
    /// together, ABDADA-style (see [`search::Busy`]): all start at the root,
    /// put off moves another thread is on, and share what they prove
    /// through the table. The first thread to finish a probe ends it for
    /// the others; a thread that cannot start just leaves the work to the
    /// rest.
    fn parallel_mtdf(
        &self,
        state: &G::State,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        let rules = &self.rules;
        let mover = rules.to_move(state).ok_or(SolveError::GameOver)?;
        let view = rules.view(state, mover);
        let reach = view.reach();
        let base = stores_margin(rules, state, mover);
        let (t0, nodes0) = (Instant::now(), self.nodes());
        // One thread alone has no one to put moves off for.
        let busy = (threads > 1).then(Busy::new);
        let shared = Shared {
            busy: busy.as_ref(),
            ..self.shared()
        };
        let (mut lower, mut upper) = (-reach, reach);
        let mut g = self.first_guess(state, &view, stop);
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.probe(&shared, state, beta, threads, stop)?;
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
            let report = self
                .on_probe
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            if let Some(report) = report {
                report(Probe {
                    lower: base + lower,
                    upper: base + upper,
                    nodes: self.nodes() - nodes0,
                    seconds: t0.elapsed().as_secs_f64(),
                });
            }
        }
        Ok(lower)
    }

    /// One null-window search of `state` at `beta` (fail-soft: a value
    /// below `beta` is an upper bound, one at or above it a lower bound),
    /// which `threads` threads search together, ABDADA-style, through
    /// `shared` (its `busy` marks set when they are several): all start at
    /// the root, and the first to finish ends it for the others. A thread
    /// that cannot start just leaves the work to the rest.
    fn probe(
        &self,
        shared: &Shared<'_, G>,
        state: &G::State,
        beta: i32,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, SolveError> {
        let done = AtomicBool::new(false);
        let result = OnceLock::new();
        let work = || {
            let mut search = Search::new(shared, stop);
            search.abort = Some(&done);
            let v = search.search(state, beta - 1, beta);
            if !search.stopped {
                let _ = result.set(v);
                done.store(true, Ordering::Relaxed);
            }
            self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                if std::thread::Builder::new()
                    .spawn_scoped(scope, work)
                    .is_err()
                {
                    break;
                }
            }
            work();
        });
        result.into_inner().ok_or(SolveError::Stopped)
    }

    /// Where MTD(f) starts for `state`, seen as `view`: each probe proves a
    /// bound, so a start near the value saves the probes in between, and on
    /// the biggest boards each costs minutes. The guess is kept within what
    /// the table knows (a position solved before, as the `perfect` agent's
    /// are, needs no guess at all). Positions at least [`ExactGame::GUESS_MARGIN`]
    /// seeds above the database get a shallow alpha-beta
    /// [`Search::estimate`], deepened two moves at a time while the next
    /// depth stays under [`GUESS_NODES`], plus [`GUESS_BIAS`] where it had
    /// to guess at its horizon; smaller ones are solved too fast for it to
    /// pay, and start at 0.
    fn first_guess(&self, state: &G::State, view: &View, stop: StopCondition<'_>) -> i32 {
        let reach = view.reach();
        let (lower, upper) = match self.table.probe(&view.key(self.bits)) {
            Some(e) => (i32::from(e.lower), i32::from(e.upper)),
            None => (-reach, reach),
        };
        // Written as max-then-min, not clamp: two hashed keys sharing a
        // slot may leave bounds that cross, and any start is still correct.
        let within = |g: i32| g.max(lower).min(upper);
        let db_seeds = self.endgame.as_ref().map_or(0, |db| db.max_seeds());
        if lower >= upper || (view.seeds() as usize) < db_seeds + G::GUESS_MARGIN {
            return within(0);
        }
        let shared = self.shared();
        let mut search = Search::new(&shared, stop);
        let mut guess = 0;
        let mut depth = 2;
        loop {
            let (nodes, leaves) = (search.nodes, search.horizon_leaves);
            let estimate = search.estimate(state, depth, -reach, reach);
            if search.stopped {
                break;
            }
            let exact = search.horizon_leaves == leaves;
            guess = if exact {
                estimate
            } else {
                estimate + GUESS_BIAS
            };
            // Each two moves deeper cost about seven times as many nodes.
            if exact || (search.nodes - nodes) * 7 > GUESS_NODES {
                break;
            }
            depth += 2;
        }
        self.nodes.fetch_add(search.nodes, Ordering::Relaxed);
        within(guess)
    }

    /// Positions searched by this solver so far, on all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Forgets the table (the database stays).
    pub fn clear_table(&self) {
        self.table.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::{Game, KalahState};

    /// The value still to come of `state` by MTD(f) from 0, as before any
    /// guess, on a fresh table.
    fn from_zero(rules: KalahRules, options: &SolverOptions, state: &KalahState) -> i32 {
        let solver = Solver::new(rules, options).unwrap();
        let shared = solver.shared();
        Search::new(&shared, StopCondition::NEVER).solve(state, 0)
    }

    #[test]
    fn the_default_table_is_sized_to_the_board_and_an_explicit_size_wins() {
        let kalah = |pits, seeds| KalahRules::new(pits, seeds).unwrap();
        let default = |rules: &KalahRules| SolverOptions::for_rules(rules).table_mib;
        // Kalah(4,1): 12,870 placements of up to 8 seeds in 8 pits, 400 KiB of
        // slots at two a position: the 16 MiB floor, not 1 GiB.
        assert_eq!(default(&kalah(4, 1)), MIN_TABLE_MIB);
        assert_eq!(default(&kalah(3, 1)), MIN_TABLE_MIB);
        // Kalah(3,4): 593,775 placements, 18.1 MiB of slots: 32 MiB; with
        // the pie rule three keys a board: 54.4 MiB, so 64 MiB.
        assert_eq!(default(&kalah(3, 4)), 32);
        let mut pie = kalah(3, 4);
        pie.pie = true;
        assert_eq!(default(&pie), 64);
        // Kalah(4,3): 10,518,300 placements, 321 MiB: 512 MiB.
        assert_eq!(default(&kalah(4, 3)), 512);
        // Big boards keep the whole default.
        for rules in [
            kalah(4, 4),
            kalah(5, 3),
            KalahRules::default(),
            kalah(12, 10),
        ] {
            assert_eq!(default(&rules), DEFAULT_TABLE_MIB, "{rules}");
        }
        // Congkak sizes the same way; a smaller cap (the agent's) wins.
        let congkak = mancala_core::CongkakRules::new(3, 2).unwrap();
        assert_eq!(SolverOptions::for_rules(&congkak).table_mib, MIN_TABLE_MIB);
        assert_eq!(table_mib_for(&kalah(4, 3), 256), 256);
        assert_eq!(table_mib_for(&kalah(4, 1), 8), 8);
        // Every size holds at least two slots for each key the board has.
        for pits in 1..=6 {
            for seeds in 1..=6 {
                let rules = kalah(pits, seeds);
                let mib = table_mib_for(&rules, usize::MAX);
                let keys = endgame::positions(pits, rules.total_seeds()).unwrap();
                let slots = ((mib as u64) << 20) / table::SLOT_BYTES as u64;
                assert!(slots >= 2 * keys, "{rules}: {mib} MiB for {keys} keys");
                assert!(
                    mib.is_power_of_two() && mib >= MIN_TABLE_MIB,
                    "{rules}: {mib}"
                );
            }
        }
        // The table the solver allocates is the one asked for: an explicit
        // size is used as given.
        let rules = kalah(4, 1);
        for mib in [default(&rules), 64] {
            let solver = Solver::new(rules, &SolverOptions::table(mib)).unwrap();
            assert_eq!(solver.table.bytes(), mib << 20);
        }
    }

    #[test]
    fn several_threads_find_the_same_line_as_one() {
        // The line is the first move in order that keeps the value at each
        // position, whether one thread tries each move or several search
        // each try together.
        fn check<G: ExactGame>(rules: G) {
            let solve = |threads| {
                let solver = Solver::new(rules, &SolverOptions::table(16)).unwrap();
                solver
                    .solve_until(&rules.start(), threads, StopCondition::NEVER)
                    .unwrap()
            };
            let one = solve(1);
            for threads in [2, 3] {
                let many = solve(threads);
                assert_eq!(
                    (many.value, &many.moves, &many.pv),
                    (one.value, &one.moves, &one.pv),
                    "{rules} on {threads} threads"
                );
            }
        }
        check(KalahRules::new(4, 3).unwrap());
        let mut pie = KalahRules::new(3, 3).unwrap();
        pie.pie = true;
        check(pie);
        check(mancala_core::CongkakRules::new(4, 3).unwrap());
    }

    #[test]
    fn big_positions_start_from_a_guess_near_the_value_and_end_at_the_same_value() {
        for spec in [
            "kalah:pits=4,seeds=4",
            "kalah:pits=4,seeds=4,empty_capture=true",
            "kalah:pits=4,seeds=4,pie=true",
            "kalah:pits=3,seeds=6",
        ] {
            let mancala_core::GameSpec::Kalah(rules) = spec.parse().unwrap() else {
                unreachable!()
            };
            let start = rules.start();
            let mover = rules.to_move(&start).unwrap();
            let view = rules.view(&start, mover);
            // The biggest database that leaves the start a big position...
            let options = SolverOptions {
                table_mib: 16,
                endgame_seeds: rules.total_seeds() - KalahRules::GUESS_MARGIN,
                endgame_dir: None,
            };
            let solver = Solver::new(rules, &options).unwrap();
            let guess = solver.first_guess(&start, &view, StopCondition::NEVER);
            assert!(solver.nodes() > 0, "{spec}: the estimate searched");
            let value = solver.value(&start, StopCondition::NEVER).unwrap();
            assert_eq!(value, from_zero(rules, &options, &start), "{spec}");
            assert!(
                (guess - value).abs() <= 2 * GUESS_BIAS,
                "{spec}: guess {guess}, value {value}"
            );
            // Once solved, the table's value is the guess.
            assert_eq!(
                solver.first_guess(&start, &view, StopCondition::NEVER),
                value
            );
            // ... and with one seed more in the database, no guess is made.
            let options = SolverOptions {
                endgame_seeds: options.endgame_seeds + 1,
                ..options
            };
            let solver = Solver::new(rules, &options).unwrap();
            assert_eq!(solver.first_guess(&start, &view, StopCondition::NEVER), 0);
            assert_eq!(solver.nodes(), 0, "{spec}");
        }
    }
}
