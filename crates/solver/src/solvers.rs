//! The front door to the solvers: [`Solvable`], what every game the
//! toolkit solves provides (its default options, its checks, how its
//! solver is built), and [`Solvers`], the pool that hands solvers out.
//!
//! Every front end reaches a table the same way: it asks a [`Solvers`]
//! pool for the solver of some rules and options, and the pool gives the
//! one it holds, builds it (on the caller's thread, or in the background
//! for a caller with a deadline), or waits for a build in progress. The
//! CLI's agents use the process's pool ([`Solvers::shared`]), the web
//! server holds one with its own limit, the Python package one that keeps
//! a single solver: how solvers are built, cached or bounded is decided
//! here, once.
//!
//! The game is a bound, not a run-time test: [`Solvable`] gives each game
//! its own typed shelf in the pool, so no solver is ever stored as `dyn
//! Any` and recovered by a downcast.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mancala_agents::StopCondition;
use mancala_core::{CongkakRules, Game, KalahRules, OwareRules, Rounds};

use crate::agent::{AGENT_ENDGAME_POSITIONS, AGENT_TABLE_MIB};
use crate::endgame::{DatabasePlan, MAX_DB_SEEDS};
use crate::oware::OwareSolver;
use crate::{ExactGame, ExactSolver, SolveError, Solver, SolverOptions, DEFAULT_TABLE_MIB};

/// What a solver is for, which decides its default table and database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Profile {
    /// Solving positions to the end (`mancala solve`, the analyses): the
    /// biggest defaults ([`SolverOptions::for_rules`]: a table of up to
    /// [`DEFAULT_TABLE_MIB`] sized to the board, the database that pays
    /// for itself); Oware's table may grow to [`DEFAULT_TABLE_MIB`].
    Solve,
    /// Playing and interactive answers (the `perfect` agent, the web
    /// server): a table of at most [`AGENT_TABLE_MIB`] and a database of
    /// at most [`AGENT_ENDGAME_POSITIONS`] positions, which builds in
    /// seconds.
    Play,
    /// Exact values settled in scratch tables of their own
    /// ([`Solver::settle`]: adjudication, annotation, labels): the
    /// database of [`Profile::Solve`] and the smallest main table.
    Settle,
}

/// What a user may change of a profile's defaults (`--tt`, `--db-seeds`,
/// `--db-dir`, or the same-named arguments of a Python call).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// The table, in MiB.
    pub table_mib: Option<usize>,
    /// Seeds in the fullest endgame database level (at most the board's
    /// and [`MAX_DB_SEEDS`]).
    pub endgame_seeds: Option<usize>,
    /// Where databases are kept.
    pub endgame_dir: Option<PathBuf>,
}

/// A game whose positions the toolkit solves exactly: Kalah (every
/// variant), single-round Congkak and small Oware boards. Code generic
/// over a game that may need a solver (the `perfect` agent and everything
/// that builds agents from specs) takes `G: Solvable`.
pub trait Solvable: Game + Copy + PartialEq {
    /// Whether the solver of this game takes these rules.
    ///
    /// # Errors
    /// Why not: [`SolveError::MultiRound`] for multi-round Congkak,
    /// [`SolveError::TooLarge`] for an Oware board past the Oware solver.
    fn check_solvable(&self) -> Result<(), SolveError>;

    /// Whether a position's value depends on the position alone, so that
    /// it can be settled by a small search, kept in an endgame database or
    /// written as a label: Kalah and single-round Congkak.
    ///
    /// # Errors
    /// [`SolveError::NeedsHistory`] for Oware, whose values depend on the
    /// positions seen since the last capture; else as
    /// [`Solvable::check_solvable`].
    fn check_store_free(&self) -> Result<(), SolveError>;

    /// The default options of `profile` for these rules.
    fn default_options(&self, profile: Profile) -> SolverOptions;

    /// The endgame database a solver with `options` loads or builds
    /// (`None`: none, or a game without databases), to say before a build
    /// what it costs.
    fn database_plan(&self, options: &SolverOptions) -> Option<DatabasePlan>;

    /// Builds this game's solver: allocates its table and loads or builds
    /// its database (on the current rayon pool). Front ends go through a
    /// [`Solvers`] pool or [`build_solver`] rather than calling this.
    ///
    /// # Errors
    /// As [`Solvable::check_solvable`], and what the solver's constructor
    /// returns ([`Solver::new`], [`OwareSolver::new`]).
    fn new_solver(&self, options: &SolverOptions)
        -> Result<Arc<dyn ExactSolver<Self>>, SolveError>;

    /// Whether the final scores of perfect play follow from a position's
    /// value and stores (adjudication ends games on it): not with Kalah's
    /// `leftover=set_aside`, which takes seeds off the board uncounted.
    fn value_gives_scores(&self) -> bool {
        true
    }

    /// This game's shelf in a pool's shelves.
    #[doc(hidden)]
    fn shelf(shelves: &mut Shelves) -> &mut Shelf<Self>;

    /// The options of `profile` with the user's `overrides`, checked.
    ///
    /// # Errors
    /// [`SolveError::DatabaseTooLarge`] for more database seeds than a
    /// database may hold; [`SolveError::NoDatabase`] for database seeds
    /// asked of a game without databases.
    fn options(
        &self,
        profile: Profile,
        overrides: &Overrides,
    ) -> Result<SolverOptions, SolveError> {
        let mut options = self.default_options(profile);
        if let Some(mib) = overrides.table_mib {
            options.table_mib = mib;
        }
        if let Some(seeds) = overrides.endgame_seeds {
            if self.check_store_free().is_err() {
                return Err(SolveError::NoDatabase { game: self.name() });
            }
            if seeds > MAX_DB_SEEDS {
                return Err(SolveError::DatabaseTooLarge {
                    seeds,
                    max: MAX_DB_SEEDS,
                });
            }
            options.endgame_seeds = seeds;
        }
        options.endgame_seeds = options.endgame_seeds.min(self.total_seeds());
        if overrides.endgame_dir.is_some() {
            options.endgame_dir.clone_from(&overrides.endgame_dir);
        }
        Ok(options)
    }
}

/// The default options of a store-free game (Kalah, Congkak), each sized
/// by the game's own constants ([`SolverOptions::for_rules`]).
fn store_free_options<G: ExactGame>(rules: &G, profile: Profile) -> SolverOptions {
    let solve = SolverOptions::for_rules(rules);
    match profile {
        Profile::Solve => solve,
        Profile::Settle => SolverOptions {
            table_mib: 1,
            ..solve
        },
        Profile::Play => {
            let options = SolverOptions::table(crate::table_mib_for(rules, AGENT_TABLE_MIB))
                .with_endgame_positions(AGENT_ENDGAME_POSITIONS, rules.pits());
            SolverOptions {
                endgame_seeds: options.endgame_seeds.min(rules.total_seeds()),
                ..options
            }
        }
    }
}

/// The database plan of a store-free game's solver with `options`.
fn store_free_plan<G: ExactGame>(rules: &G, options: &SolverOptions) -> Option<DatabasePlan> {
    DatabasePlan::new(rules, options.endgame_seeds, options.endgame_dir.as_deref())
}

/// A store-free game's solver: the generic search.
fn store_free_solver<G: ExactGame>(
    rules: &G,
    options: &SolverOptions,
) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
    Ok(Arc::new(Solver::new(*rules, options)?))
}

impl Solvable for KalahRules {
    fn check_solvable(&self) -> Result<(), SolveError> {
        Ok(())
    }

    fn value_gives_scores(&self) -> bool {
        self.leftover != mancala_core::Leftover::SetAside
    }

    fn check_store_free(&self) -> Result<(), SolveError> {
        Ok(())
    }

    fn default_options(&self, profile: Profile) -> SolverOptions {
        store_free_options(self, profile)
    }

    fn database_plan(&self, options: &SolverOptions) -> Option<DatabasePlan> {
        store_free_plan(self, options)
    }

    fn new_solver(
        &self,
        options: &SolverOptions,
    ) -> Result<Arc<dyn ExactSolver<Self>>, SolveError> {
        store_free_solver(self, options)
    }

    fn shelf(shelves: &mut Shelves) -> &mut Shelf<Self> {
        &mut shelves.kalah
    }
}

impl Solvable for CongkakRules {
    fn check_solvable(&self) -> Result<(), SolveError> {
        match self.rounds {
            Rounds::One => Ok(()),
            Rounds::Many => Err(SolveError::MultiRound { rules: *self }),
        }
    }

    fn check_store_free(&self) -> Result<(), SolveError> {
        self.check_solvable()
    }

    fn default_options(&self, profile: Profile) -> SolverOptions {
        store_free_options(self, profile)
    }

    fn database_plan(&self, options: &SolverOptions) -> Option<DatabasePlan> {
        store_free_plan(self, options)
    }

    fn new_solver(
        &self,
        options: &SolverOptions,
    ) -> Result<Arc<dyn ExactSolver<Self>>, SolveError> {
        store_free_solver(self, options)
    }

    fn shelf(shelves: &mut Shelves) -> &mut Shelf<Self> {
        &mut shelves.congkak
    }
}

impl Solvable for OwareRules {
    fn check_solvable(&self) -> Result<(), SolveError> {
        OwareSolver::check(self)
    }

    fn check_store_free(&self) -> Result<(), SolveError> {
        Err(SolveError::NeedsHistory { game: self.name() })
    }

    fn default_options(&self, profile: Profile) -> SolverOptions {
        // The Oware solver's table grows as it fills, up to its size: the
        // cap is all there is to choose, and it has no database.
        SolverOptions::table(match profile {
            Profile::Play => AGENT_TABLE_MIB,
            Profile::Solve | Profile::Settle => DEFAULT_TABLE_MIB,
        })
    }

    fn database_plan(&self, _options: &SolverOptions) -> Option<DatabasePlan> {
        None
    }

    fn new_solver(
        &self,
        options: &SolverOptions,
    ) -> Result<Arc<dyn ExactSolver<Self>>, SolveError> {
        Ok(Arc::new(OwareSolver::new(*self, options)?))
    }

    fn shelf(shelves: &mut Shelves) -> &mut Shelf<Self> {
        &mut shelves.oware
    }
}

/// The exact solver of `rules`' game, built with `options` (its database
/// on the current rayon pool): the one way a solver is made, by the pools
/// and by the commands that solve once and exit.
///
/// # Errors
/// As [`Solvable::check_solvable`] and [`Solvable::new_solver`].
pub fn exact_solver<G: Solvable>(
    rules: &G,
    options: &SolverOptions,
) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
    rules.check_solvable()?;
    rules.new_solver(options)
}

/// [`exact_solver`], its database built on `threads` threads (`None`: the
/// current rayon pool).
///
/// # Errors
/// As [`exact_solver`]; [`SolveError::Threads`] when the threads cannot
/// start.
pub fn build_solver<G: Solvable>(
    rules: &G,
    options: &SolverOptions,
    threads: Option<usize>,
) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
    match threads {
        None => exact_solver(rules, options),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| SolveError::Threads(Box::new(e)))?
            .install(|| exact_solver(rules, options)),
    }
}

/// What a build gave: the solver, or why not (shared by every caller
/// waiting for it).
type Built<G> = Result<Arc<dyn ExactSolver<G>>, Arc<SolveError>>;

/// Where the callers waiting for a build find what it gave, whatever
/// happens to the build's slot meanwhile (a full pool may let the new
/// solver go before a waiter wakes).
type Ticket<G> = Arc<OnceLock<Built<G>>>;

/// One rule set's solver in a pool.
enum Slot<G: Solvable> {
    /// Being built (on a caller's thread or in the background); the build
    /// puts what it gives in the ticket.
    Building(Ticket<G>),
    /// Built; `used` orders the slots by their last use, for eviction.
    Ready {
        solver: Arc<dyn ExactSolver<G>>,
        used: u64,
    },
    /// A background build failed: requests until `retry` get the same
    /// error (the same rules and options would most likely fail the same
    /// way), later ones build again (memory may have been freed since).
    Failed {
        error: Arc<SolveError>,
        retry: Instant,
    },
}

/// A key of a shelf: the rules (as they print: the game is the shelf's)
/// and the options.
type Key = (String, SolverOptions);

/// The solvers of one game, by rules and options.
#[doc(hidden)]
pub struct Shelf<G: Solvable> {
    slots: HashMap<Key, Slot<G>>,
}

impl<G: Solvable> Default for Shelf<G> {
    fn default() -> Self {
        Shelf {
            slots: HashMap::new(),
        }
    }
}

impl<G: Solvable> Shelf<G> {
    fn built(&self) -> usize {
        self.slots
            .values()
            .filter(|s| matches!(s, Slot::Ready { .. }))
            .count()
    }

    /// The least recently used built solver: its key and last use.
    fn oldest(&self) -> Option<(&Key, u64)> {
        self.slots
            .iter()
            .filter_map(|(k, s)| match s {
                Slot::Ready { used, .. } => Some((k, *used)),
                _ => None,
            })
            .min_by_key(|&(_, used)| used)
    }

    /// Takes the slot of `key` out, to be dropped once the pool's lock is
    /// let go.
    fn take(&mut self, key: &Key) -> Option<Evicted> {
        self.slots.remove(key).map(|slot| Box::new(slot) as Evicted)
    }
}

/// A slot taken out of the pool. It is dropped after the pool's lock is let
/// go: freeing a table of gigabytes takes a while, and other callers should
/// not wait for it.
type Evicted = Box<dyn Send>;

/// Every game's shelf, under the pool's one lock.
#[doc(hidden)]
#[derive(Default)]
pub struct Shelves {
    kalah: Shelf<KalahRules>,
    congkak: Shelf<CongkakRules>,
    oware: Shelf<OwareRules>,
    /// Whether a build is in progress (one at a time: each holds a table
    /// and a database being filled).
    building: bool,
    /// Counts uses, to order them.
    clock: u64,
}

impl Shelves {
    fn built(&self) -> usize {
        self.kalah.built() + self.congkak.built() + self.oware.built()
    }

    /// Takes out least recently used built solvers, of whichever game,
    /// until fewer than `capacity` are left. Their memory goes once the
    /// caller drops them and the agents still playing from them are done.
    fn make_room(&mut self, capacity: usize) -> Vec<Evicted> {
        let mut evicted = Vec::new();
        while self.built() >= capacity {
            let oldest = [
                self.kalah.oldest().map(|(k, u)| (0, k.clone(), u)),
                self.congkak.oldest().map(|(k, u)| (1, k.clone(), u)),
                self.oware.oldest().map(|(k, u)| (2, k.clone(), u)),
            ]
            .into_iter()
            .flatten()
            .min_by_key(|&(_, _, used)| used);
            let taken = match oldest {
                Some((0, key, _)) => self.kalah.take(&key),
                Some((1, key, _)) => self.congkak.take(&key),
                Some((_, key, _)) => self.oware.take(&key),
                None => None,
            };
            match taken {
                Some(slot) => evicted.push(slot),
                None => break,
            }
        }
        evicted
    }
}

/// A pool of solvers, by game, rules and options: what every front end
/// holds to reach a solver. It keeps at most `capacity` built solvers
/// (each holds a table and a database), forgetting the least recently
/// used to make room, and builds one at a time.
pub struct Solvers {
    capacity: usize,
    /// Threads a build may use (`None`: rayon's global pool, every core).
    build_threads: Option<usize>,
    /// How long a failed background build's error is given to later
    /// requests before they build again.
    retry_failed_after: Duration,
    shelves: Mutex<Shelves>,
    /// Told when a build ends.
    built: Condvar,
    /// Builds begun.
    builds: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Solvers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let built = self.lock().built();
        write!(f, "Solvers({built} of at most {} built)", self.capacity)
    }
}

/// How often a waiting caller looks at its stop condition.
const WAIT_STEP: Duration = Duration::from_millis(20);

/// How long a failed background build's error stands by default.
pub const RETRY_FAILED_AFTER: Duration = Duration::from_secs(30);

impl Solvers {
    /// A pool keeping at most `capacity` built solvers (at least one),
    /// building on every core.
    pub fn new(capacity: usize) -> Solvers {
        Solvers {
            capacity: capacity.max(1),
            build_threads: None,
            retry_failed_after: RETRY_FAILED_AFTER,
            shelves: Mutex::default(),
            built: Condvar::new(),
            builds: Default::default(),
        }
    }

    /// The pool with its builds on at most `threads` threads (a server's
    /// share of the machine).
    pub fn with_build_threads(mut self, threads: usize) -> Solvers {
        self.build_threads = Some(threads.max(1));
        self
    }

    /// The pool with a failed background build's error given for `after`
    /// (default [`RETRY_FAILED_AFTER`]) before a request builds again.
    pub fn with_retry_failed_after(mut self, after: Duration) -> Solvers {
        self.retry_failed_after = after;
        self
    }

    /// The process's pool, which agents built without one of their own
    /// play from: agents of one process with the same rules and options
    /// share a solver, so what one game or thread learns is good for all
    /// and a database is built once. It keeps every solver asked for.
    pub fn shared() -> &'static Arc<Solvers> {
        static SHARED: OnceLock<Arc<Solvers>> = OnceLock::new();
        SHARED.get_or_init(|| Arc::new(Solvers::new(usize::MAX)))
    }

    fn lock(&self) -> MutexGuard<'_, Shelves> {
        self.shelves.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Solvers built and held now.
    pub fn len(&self) -> usize {
        self.lock().built()
    }

    /// Whether the pool holds no built solver.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds begun by this pool: how often solvers were built, and built
    /// again after being let go or failing.
    pub fn builds(&self) -> u64 {
        self.builds.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Puts `solver`, a solver of `rules` built with `options`, in the
    /// pool (making room as for a build): a solver a caller built, its
    /// table warm, for agents to play from.
    pub fn insert<G: Solvable>(
        &self,
        rules: &G,
        options: &SolverOptions,
        solver: Arc<dyn ExactSolver<G>>,
    ) {
        let mut shelves = self.lock();
        let evicted = shelves.make_room(self.capacity);
        shelves.clock += 1;
        let used = shelves.clock;
        let replaced = G::shelf(&mut shelves).slots.insert(
            (rules.to_string(), options.clone()),
            Slot::Ready { solver, used },
        );
        drop(shelves);
        drop((evicted, replaced));
    }

    /// A solver of `rules` the pool holds, with whatever options; `None`
    /// if it holds none. Builds nothing.
    pub fn find<G: Solvable>(&self, rules: &G) -> Option<Arc<dyn ExactSolver<G>>> {
        let name = rules.to_string();
        let mut shelves = self.lock();
        G::shelf(&mut shelves)
            .slots
            .iter()
            .find_map(|((r, _), slot)| match slot {
                Slot::Ready { solver, .. } if *r == name => Some(Arc::clone(solver)),
                _ => None,
            })
    }

    /// Forgets every solver built (and every failed build); a build in
    /// progress goes on. The memory goes once no agent plays from them.
    pub fn clear(&self) {
        fn take_built<G: Solvable>(shelf: &mut Shelf<G>, into: &mut Vec<Evicted>) {
            let keys: Vec<Key> = shelf
                .slots
                .iter()
                .filter(|(_, s)| !matches!(s, Slot::Building(_)))
                .map(|(k, _)| k.clone())
                .collect();
            into.extend(keys.iter().filter_map(|k| shelf.take(k)));
        }
        let mut evicted = Vec::new();
        let mut shelves = self.lock();
        take_built(&mut shelves.kalah, &mut evicted);
        take_built(&mut shelves.congkak, &mut evicted);
        take_built(&mut shelves.oware, &mut evicted);
        drop(shelves);
        drop(evicted);
    }

    /// The solver of `rules` with `options`, built on this thread if the
    /// pool has none (after any build in progress).
    ///
    /// # Errors
    /// What the build returns ([`Solvable::new_solver`]); a background
    /// build that failed lately for the same rules and options fails again
    /// at once ([`SolveError::Shared`]).
    pub fn get<G: Solvable>(
        self: &Arc<Self>,
        rules: &G,
        options: &SolverOptions,
    ) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
        self.get_until(rules, options, StopCondition::NEVER, false)
    }

    /// [`Solvers::get`], but a caller whose `stop` comes while another
    /// build holds the pool gets [`SolveError::Stopped`] instead of
    /// waiting on. Its own build, once begun, is not stopped.
    ///
    /// # Errors
    /// [`SolveError::Stopped`], or as [`Solvers::get`].
    pub fn get_or_stop<G: Solvable>(
        self: &Arc<Self>,
        rules: &G,
        options: &SolverOptions,
        stop: StopCondition<'_>,
    ) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
        self.get_until(rules, options, stop, false)
    }

    /// The solver of `rules` with `options`, waiting for it until `stop`:
    /// a solver the pool has not got is built in the background, and a
    /// caller whose stop comes first gets [`SolveError::Stopped`] while the
    /// build goes on for the next request. This is how an agent with
    /// `time=` keeps its time while a database builds.
    ///
    /// # Errors
    /// [`SolveError::Stopped`], or as [`Solvers::get`].
    pub fn get_by<G: Solvable>(
        self: &Arc<Self>,
        rules: &G,
        options: &SolverOptions,
        stop: StopCondition<'_>,
    ) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
        self.get_until(rules, options, stop, true)
    }

    /// [`Solvers::get`] and [`Solvers::get_or_stop`] (`background` false:
    /// built on this thread) and [`Solvers::get_by`].
    fn get_until<G: Solvable>(
        self: &Arc<Self>,
        rules: &G,
        options: &SolverOptions,
        stop: StopCondition<'_>,
        background: bool,
    ) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
        rules.check_solvable()?;
        let key: Key = (rules.to_string(), options.clone());
        // The build this caller waits for, once it has seen one begin.
        let mut ticket: Option<Ticket<G>> = None;
        let mut shelves = self.lock();
        loop {
            if let Some(built) = ticket.as_ref().and_then(|t| t.get()) {
                return built.clone().map_err(SolveError::Shared);
            }
            shelves.clock += 1;
            let (now, building) = (shelves.clock, shelves.building);
            let shelf = G::shelf(&mut shelves);
            match shelf.slots.get_mut(&key) {
                Some(Slot::Ready { solver, used }) => {
                    *used = now;
                    return Ok(Arc::clone(solver));
                }
                Some(Slot::Failed { error, retry }) if Instant::now() < *retry => {
                    return Err(SolveError::Shared(Arc::clone(error)));
                }
                Some(Slot::Failed { .. }) => {
                    // Its time is up: built again below.
                    let stale = shelf.take(&key);
                    drop(shelves);
                    drop(stale);
                    shelves = self.lock();
                    continue;
                }
                Some(Slot::Building(t)) => ticket = Some(Arc::clone(t)),
                None if !building => {
                    let evicted = shelves.make_room(self.capacity);
                    shelves.building = true;
                    let mine: Ticket<G> = Arc::default();
                    G::shelf(&mut shelves)
                        .slots
                        .insert(key.clone(), Slot::Building(Arc::clone(&mine)));
                    drop(shelves);
                    drop(evicted);
                    if !background {
                        return self
                            .build(*rules, key, &mine, false)
                            .map_err(SolveError::Shared);
                    }
                    shelves = self.build_in_background(*rules, &key, &mine)?;
                    ticket = Some(mine);
                    continue;
                }
                None => {}
            }
            if stop.reached() {
                return Err(SolveError::Stopped);
            }
            shelves = self.wait_for_build(shelves, &stop);
        }
    }

    /// Starts building `key`, whose slot says it is being built into
    /// `ticket`, on a thread of its own, and takes the pool's lock again.
    ///
    /// # Errors
    /// The thread cannot start: the slot is removed (the next request
    /// tries again) and those waiting are woken to see it.
    fn build_in_background<G: Solvable>(
        self: &Arc<Self>,
        rules: G,
        key: &Key,
        ticket: &Ticket<G>,
    ) -> Result<MutexGuard<'_, Shelves>, SolveError> {
        let pool = Arc::clone(self);
        let (key2, theirs) = (key.clone(), Arc::clone(ticket));
        let started = std::thread::Builder::new()
            .name("solver-build".into())
            .spawn(move || {
                let _ = pool.build(rules, key2, &theirs, true);
            });
        let mut shelves = self.lock();
        if let Err(e) = started {
            let e = Arc::new(SolveError::Threads(Box::new(e)));
            shelves.building = false;
            G::shelf(&mut shelves).slots.remove(key);
            self.built.notify_all();
            return Err(SolveError::Shared(e));
        }
        Ok(shelves)
    }

    /// Waits, holding `shelves` no longer, until a build ends or a short
    /// step passes (no later than `stop`'s deadline), so that the caller
    /// looks at its stop condition between; the lock held again.
    fn wait_for_build<'a>(
        &'a self,
        shelves: MutexGuard<'a, Shelves>,
        stop: &StopCondition<'_>,
    ) -> MutexGuard<'a, Shelves> {
        let wait = stop.deadline.map_or(WAIT_STEP, |d| {
            d.saturating_duration_since(Instant::now()).min(WAIT_STEP)
        });
        self.built
            .wait_timeout(shelves, wait)
            .unwrap_or_else(|p| p.into_inner())
            .0
    }

    /// Builds the solver of `key`, whose slot says it is being built, and
    /// puts what the build gave in `ticket` and in the slot: the solver, or
    /// for a build in the `background` its error (stood by for a while; a
    /// build on a caller's thread fails to that caller and to those waiting
    /// with it, and the next request tries again).
    fn build<G: Solvable>(
        &self,
        rules: G,
        key: Key,
        ticket: &Ticket<G>,
        background: bool,
    ) -> Built<G> {
        self.builds
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            build_solver(&rules, &key.1, self.build_threads)
        }))
        .unwrap_or_else(|_| {
            Err(SolveError::Threads(
                format!("the build of {rules}'s solver panicked").into(),
            ))
        })
        .map_err(Arc::new);
        let mut shelves = self.lock();
        shelves.building = false;
        shelves.clock += 1;
        let used = shelves.clock;
        let _ = ticket.set(built.clone());
        let slot = match &built {
            Ok(solver) => Some(Slot::Ready {
                solver: Arc::clone(solver),
                used,
            }),
            Err(error) if background => Some(Slot::Failed {
                error: Arc::clone(error),
                retry: Instant::now() + self.retry_failed_after,
            }),
            Err(_) => None,
        };
        let shelf = G::shelf(&mut shelves);
        // The slot is this build's unless it was let go meanwhile.
        let ours =
            matches!(shelf.slots.get(&key), Some(Slot::Building(t)) if Arc::ptr_eq(t, ticket));
        let old = match (ours, slot) {
            (true, Some(slot)) => shelf.slots.insert(key, slot),
            (true, None) => shelf.slots.remove(&key),
            (false, _) => None,
        };
        self.built.notify_all();
        drop(shelves);
        drop(old);
        built
    }
}

impl Solvers {
    /// Puts a failed background build of `rules` with `options` in the
    /// pool, as if one had just failed with `error`.
    #[cfg(test)]
    pub(crate) fn insert_failed<G: Solvable>(
        &self,
        rules: &G,
        options: &SolverOptions,
        error: SolveError,
    ) {
        let retry = Instant::now() + self.retry_failed_after;
        G::shelf(&mut self.lock()).slots.insert(
            (rules.to_string(), options.clone()),
            Slot::Failed {
                error: Arc::new(error),
                retry,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_pool_hands_out_one_solver_per_rules_and_options() {
        let pool = Arc::new(Solvers::new(4));
        let rules = KalahRules::new(3, 2).unwrap();
        let options = SolverOptions::small();
        let a = pool.get(&rules, &options).unwrap();
        let b = pool.get(&rules, &options).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let other = pool.get(&rules, &SolverOptions::table(16)).unwrap();
        assert!(!Arc::ptr_eq(&a, &other));
        // Each game has its own shelf: Congkak's rules print otherwise, but
        // even rules that printed alike would not meet.
        let congkak = CongkakRules::new(3, 2).unwrap();
        pool.get(&congkak, &options).unwrap();
        let oware = OwareRules::new(2, 2).unwrap();
        pool.get(&oware, &SolverOptions::table(16)).unwrap();
        assert_eq!(pool.len(), 4);
    }

    #[test]
    fn a_failed_background_build_stands_for_a_while_then_is_built_again() {
        let pool = Arc::new(Solvers::new(2).with_retry_failed_after(Duration::from_millis(300)));
        let rules = KalahRules::new(3, 2).unwrap();
        // A table of an exbibyte cannot be had: the build fails at once.
        let huge = SolverOptions::table(1 << 40);
        let deadline = Instant::now() + Duration::from_secs(30);
        let stop = StopCondition {
            deadline: Some(deadline),
            ..StopCondition::NEVER
        };
        let e = pool.get_by(&rules, &huge, stop).unwrap_err();
        assert!(e.is_out_of_memory(), "{e}");
        assert_eq!(pool.builds(), 1);
        // Asked again at once: the same error, no build.
        let again = pool.get_by(&rules, &huge, stop).unwrap_err();
        assert!(again.is_out_of_memory(), "{again}");
        assert_eq!(pool.builds(), 1);
        // Later, memory may have been freed: it is built again.
        std::thread::sleep(Duration::from_millis(350));
        assert!(pool.get_by(&rules, &huge, stop).is_err());
        assert_eq!(pool.builds(), 2);
        // A build on the caller's thread that fails is not kept at all.
        assert!(pool.get(&rules, &SolverOptions::table(1 << 41)).is_err());
        assert!(pool.get(&rules, &SolverOptions::table(1 << 41)).is_err());
        assert_eq!(pool.builds(), 4);
        assert!(pool.is_empty());
    }

    #[test]
    fn a_pool_with_threads_of_its_own_builds_the_same_solver() {
        let pool = Arc::new(Solvers::new(1).with_build_threads(1));
        let rules = KalahRules::new(4, 2).unwrap();
        let options = SolverOptions::table(16).with_endgame_positions(1 << 16, rules.pits());
        let stop = StopCondition {
            deadline: Some(Instant::now() + Duration::from_secs(60)),
            ..StopCondition::NEVER
        };
        let solver = pool.get_by(&rules, &options, stop).unwrap();
        let start = rules.start();
        assert_eq!(
            solver.value(&start, StopCondition::NEVER).unwrap(),
            exact_solver(&rules, &options)
                .unwrap()
                .value(&start, StopCondition::NEVER)
                .unwrap()
        );
    }

    #[test]
    fn a_full_pool_forgets_the_least_recently_used() {
        let pool = Arc::new(Solvers::new(2));
        let small = SolverOptions::table(16);
        let rules = |seeds| KalahRules::new(3, seeds).unwrap();
        let first = pool.get(&rules(1), &small).unwrap();
        pool.get(&rules(2), &small).unwrap();
        // The first is used again: the second is now the oldest.
        assert!(Arc::ptr_eq(&first, &pool.get(&rules(1), &small).unwrap()));
        pool.get(&rules(3), &small).unwrap();
        assert_eq!(pool.len(), 2);
        assert!(Arc::ptr_eq(&first, &pool.get(&rules(1), &small).unwrap()));
        // Oware's solvers count towards the same limit.
        pool.get(&OwareRules::new(2, 2).unwrap(), &small).unwrap();
        assert_eq!(pool.len(), 2);
    }

    #[test]
    fn rules_no_solver_takes_are_refused_before_any_build() {
        let pool = Arc::new(Solvers::new(1));
        let mut congkak = CongkakRules::new(3, 2).unwrap();
        congkak.rounds = Rounds::Many;
        let e = pool.get(&congkak, &SolverOptions::small()).unwrap_err();
        assert!(matches!(e, SolveError::MultiRound { .. }), "{e}");
        let big = OwareRules::default();
        let e = pool.get(&big, &SolverOptions::table(16)).unwrap_err();
        assert!(matches!(e, SolveError::TooLarge { .. }), "{e}");
        assert!(pool.is_empty());
    }

    #[test]
    fn a_caller_with_a_deadline_gets_stopped_while_the_build_goes_on() {
        let pool = Arc::new(Solvers::new(2));
        let rules = KalahRules::new(6, 3).unwrap();
        // A database of 12 seeds on six pits (2.7 M positions): far longer
        // than 10 ms.
        let options = SolverOptions {
            table_mib: 16,
            endgame_seeds: 12,
            endgame_dir: None,
        };
        let t0 = Instant::now();
        let stop = StopCondition::NEVER.or_by(Some(t0 + Duration::from_millis(10)));
        let e = pool.get_by(&rules, &options, stop).unwrap_err();
        assert!(matches!(e, SolveError::Stopped), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
        // The build went on: a caller without a deadline gets it.
        let solver = pool.get(&rules, &options).unwrap();
        assert_eq!(solver.rules(), &rules);
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn the_profiles_size_tables_and_databases_and_overrides_are_checked() {
        let big = KalahRules::default();
        assert_eq!(
            big.default_options(Profile::Solve),
            SolverOptions::for_rules(&big)
        );
        assert_eq!(big.default_options(Profile::Settle).table_mib, 1);
        assert_eq!(
            big.default_options(Profile::Settle).endgame_seeds,
            SolverOptions::for_rules(&big).endgame_seeds
        );
        let play = big.default_options(Profile::Play);
        assert_eq!(play.table_mib, AGENT_TABLE_MIB);
        assert!(play.endgame_seeds < SolverOptions::for_rules(&big).endgame_seeds);
        let small = KalahRules::new(4, 1).unwrap();
        assert_eq!(
            small.default_options(Profile::Play).table_mib,
            crate::MIN_TABLE_MIB
        );
        let overrides = Overrides {
            table_mib: Some(64),
            endgame_seeds: Some(40),
            endgame_dir: Some("/tmp/dbs".into()),
        };
        let options = small.options(Profile::Solve, &overrides).unwrap();
        // At most the board's seeds.
        assert_eq!((options.table_mib, options.endgame_seeds), (64, 8));
        assert_eq!(options.endgame_dir, overrides.endgame_dir);
        let too_many = Overrides {
            endgame_seeds: Some(MAX_DB_SEEDS + 1),
            ..Overrides::default()
        };
        assert!(matches!(
            big.options(Profile::Solve, &too_many),
            Err(SolveError::DatabaseTooLarge { .. })
        ));
        let oware = OwareRules::new(2, 2).unwrap();
        let seeds = Overrides {
            endgame_seeds: Some(4),
            ..Overrides::default()
        };
        assert!(matches!(
            oware.options(Profile::Solve, &seeds),
            Err(SolveError::NoDatabase { .. })
        ));
        assert_eq!(
            oware.default_options(Profile::Play).table_mib,
            AGENT_TABLE_MIB
        );
    }
}
