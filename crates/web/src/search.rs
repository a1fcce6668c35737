//! The searches a request may start: an agent's move and an analysis of
//! every move of a position. Both run on blocking threads, at most
//! `--threads` at once; each is bounded in time by the server, and stopped
//! when its client goes away (the handler's future is dropped, and with it
//! the [`CancelOnDrop`] guard).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mancala_agents::{Agent, AgentSpec, SearchInfo, SearchKind, StopCondition};
use mancala_core::{Game, Move, Player};
use mancala_registry::AnyAgentSpec;
use mancala_solver::{ExactSolver, Profile, Solvable, SolveError, SolverOptions, Solvers};
use serde::Serialize;

use crate::ApiError;

/// Longest an agent may think for one move requested from the web.
pub const MAX_AGENT_TIME: Duration = Duration::from_secs(10);
/// Longest an analysis may search.
pub const MAX_ANALYSIS_TIME: Duration = Duration::from_secs(10);
/// Default search time of an analysis.
pub const DEFAULT_ANALYSIS_TIME: Duration = Duration::from_secs(2);
/// Default node budget for settling each move of an analysis.
pub const DEFAULT_SETTLE_NODES: u64 = 200_000;
/// Most nodes an analysis may settle each move with.
pub const MAX_SETTLE_NODES: u64 = 2_000_000;
/// The analyses' estimator when the request names none: alpha-beta that
/// deepens until the analysis's own deadline (its share of the time asked
/// for), so an estimate uses the time it is given; the spec's 10 s, the
/// longest analysis, never ends it first.
pub const DEFAULT_ESTIMATOR: &str = "minimax:time=10s";
/// How long a request waits for a search thread before 503.
pub const QUEUE_WAIT: Duration = Duration::from_secs(5);
/// Solvers the server keeps (the analyses' and the `perfect` agent's, one
/// pool): each holds a table and an endgame database, so their number
/// bounds the server's memory. The least recently used goes first.
pub const MAX_SOLVED_RULE_SETS: usize = 4;
/// Largest `perfect:tt=` accepted from the web, in MiB.
pub const MAX_WEB_TABLE_MIB: usize = 256;
/// Table of the analyses' solvers, in MiB.
const ANALYSIS_TABLE_MIB: usize = 64;
/// Most positions of an analysis solver's endgame database: it is built
/// when a rule set is first analysed, while the user waits, so it must
/// take well under a second (the `perfect` agent's, 2^24, takes seconds).
const ANALYSIS_ENDGAME_POSITIONS: u64 = 1 << 21;

/// Raises its flag when dropped: held by a request's handler, it stops the
/// request's search once the client has gone and the handler is dropped.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The server's searching resources: the threads' permits, the cancel
/// flags of the searches in progress, and the solvers.
pub struct Searches {
    permits: Arc<tokio::sync::Semaphore>,
    threads: usize,
    /// The flags of the searches in progress, raised all at once when the
    /// server stops.
    live: Mutex<Vec<Weak<AtomicBool>>>,
    stopping: AtomicBool,
    /// The solvers of the analyses and of the `perfect` agent, at most
    /// [`MAX_SOLVED_RULE_SETS`]. A solver's first build (its table and
    /// endgame database) can take a minute on a big board, longer than
    /// any search may take, so it goes on in the background, one at a
    /// time; searches wait for it only until their deadline, and meanwhile
    /// answer with estimates (an analysis) or the fallback's move.
    solvers: Arc<Solvers>,
}

/// Why an analysis has no solver.
enum NoSolver {
    /// It does not play these rules.
    Refused(String),
    /// It is still being built (or waits for another rule set's build).
    Building,
}

impl Searches {
    /// Resources for `threads` searches at once.
    pub fn new(threads: usize) -> Searches {
        Searches {
            permits: Arc::new(tokio::sync::Semaphore::new(threads.max(1))),
            threads: threads.max(1),
            live: Mutex::default(),
            stopping: AtomicBool::new(false),
            solvers: Arc::new(
                Solvers::new(MAX_SOLVED_RULE_SETS).with_build_threads(threads.max(1)),
            ),
        }
    }

    /// Searches that may run at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Waits for a search thread, for at most [`QUEUE_WAIT`]. The permit
    /// goes with the search to its thread and is given back when the
    /// search ends, not when its request does: a client that leaves frees
    /// no thread before its search has stopped.
    pub async fn permit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        if self.stopping.load(Ordering::Relaxed) {
            return Err(ApiError::Busy("the server is stopping".into()));
        }
        match tokio::time::timeout(QUEUE_WAIT, Arc::clone(&self.permits).acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(ApiError::Busy(format!(
                "all {} search threads are busy; try again",
                self.threads
            ))),
        }
    }

    /// Has [`Searches::stop`] raise `flag`, the cancel flag of a search.
    pub fn watch(&self, flag: &Arc<AtomicBool>) {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.retain(|f| f.strong_count() > 0);
        live.push(Arc::downgrade(flag));
        drop(live);
        // A search that starts as the server stops is stopped too.
        if self.stopping.load(Ordering::Relaxed) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Stops every search in progress and refuses new ones.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        for flag in live.iter().filter_map(Weak::upgrade) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// The analyses' solver of `game`'s rules, waiting for its build until
    /// `until` (or `cancel`); the first request for a rule set starts the
    /// build, which goes on after the request has its answer.
    fn solver<G: Solvable>(
        &self,
        game: &G,
        until: Instant,
        cancel: &AtomicBool,
    ) -> Result<Arc<dyn ExactSolver<G>>, NoSolver> {
        let stop = StopCondition {
            deadline: Some(until),
            cancel: Some(cancel),
            clock: None,
        };
        match self.solvers.get_by(game, &analysis_options(game), stop) {
            Ok(solver) => Ok(solver),
            Err(SolveError::Stopped) => Err(NoSolver::Building),
            Err(e) => Err(NoSolver::Refused(format!("the solver refused {game}: {e}"))),
        }
    }

    /// Checks that `spec` may be played from the web on `game`.
    pub fn admit_agent<G: Solvable>(&self, game: &G, spec: &AnyAgentSpec) -> Result<(), ApiError> {
        match spec {
            AnyAgentSpec::Classical(AgentSpec::Minimax(o)) if o.tt_mib > MAX_WEB_TABLE_MIB => {
                return Err(ApiError::Forbidden(format!(
                    "minimax:tt= is at most {MAX_WEB_TABLE_MIB} MiB from the web"
                )));
            }
            AnyAgentSpec::Classical(_) => {}
            AnyAgentSpec::Perfect(p) => {
                if p.table_mib.is_some_and(|t| t > MAX_WEB_TABLE_MIB) {
                    return Err(ApiError::Forbidden(format!(
                        "perfect:tt= is at most {MAX_WEB_TABLE_MIB} MiB from the web"
                    )));
                }
                // The fallback plays on the server too: the same limits.
                if let Some(fallback) = &p.fallback {
                    self.admit_agent(game, &AnyAgentSpec::Classical(fallback.clone()))?;
                }
            }
            _ => return Err(refused_from_web(&spec.to_string())),
        }
        spec.check(game)
            .map_err(|e| ApiError::Unprocessable(e.to_string()))
    }
}

/// The analyses' solver options for `game`: the `perfect` agent's, with a
/// smaller table and a database that builds in well under a second.
fn analysis_options<G: Solvable>(game: &G) -> SolverOptions {
    let mut options = game.default_options(Profile::Play);
    options.table_mib = ANALYSIS_TABLE_MIB;
    options.endgame_seeds = options.endgame_seeds.min(
        SolverOptions::table(0)
            .with_endgame_positions(ANALYSIS_ENDGAME_POSITIONS, game.pits())
            .endgame_seeds,
    );
    options
}

/// Agent families that run a program or read a file, which no request may
/// make the server do.
const REFUSED_FAMILIES: &[&str] = &["engine", "neural"];

/// The refusal of an `engine:` or `neural:` spec.
fn refused_from_web(spec: &str) -> ApiError {
    ApiError::Forbidden(format!(
        "agent `{spec}`: external engines, neural models and value networks cannot be started \
         from the web (they run a program or read a file); run them with `mancala play` or a \
         tournament"
    ))
}

/// Parses an agent spec sent by a client, refusing the families that run
/// a program or read a file before parsing them.
pub fn parse_agent(text: &str) -> Result<AnyAgentSpec, ApiError> {
    let family = text.trim().split(':').next().unwrap_or("").trim();
    if REFUSED_FAMILIES
        .iter()
        .any(|f| family.eq_ignore_ascii_case(f))
        || AgentSpec::reads_a_file(text)
    {
        return Err(refused_from_web(text.trim()));
    }
    AnyAgentSpec::parse(text).map_err(|e| ApiError::BadRequest(format!("agent `{text}`: {e}")))
}

/// The engines the operator offers (`mancala serve --engine NAME=COMMAND`):
/// the only programs a request can make the server start, each by its
/// name alone.
#[derive(Clone, Debug, Default)]
pub struct OfferedEngines {
    by_name: std::collections::BTreeMap<String, AnyAgentSpec>,
}

impl OfferedEngines {
    /// Default thinking time of an engine offered as a bare command.
    const DEFAULT_MOVETIME: &'static str = "1s";

    /// The engines of `(name, command or engine: spec)` pairs.
    ///
    /// # Errors
    /// A name that is not lowercase letters, digits, `-` and `_`, or that
    /// names a built-in agent, given twice, a spec that does not parse, or
    /// a program that is not there.
    pub fn new(engines: &[(String, String)]) -> Result<OfferedEngines, String> {
        let mut by_name = std::collections::BTreeMap::new();
        for (name, command) in engines {
            let bad = |why: String| format!("--engine {name}={command}: {why}");
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            {
                return Err(bad(
                    "a name is lowercase letters, digits, '-' and '_'".into()
                ));
            }
            // A built-in agent's name would be shadowed (`random` is a
            // whole spec), and a family's would read as one.
            if AnyAgentSpec::parse(name).is_ok() || REFUSED_FAMILIES.contains(&name.as_str()) {
                return Err(bad(format!("`{name}` is a built-in agent's name")));
            }
            let text = if command.trim_start().starts_with("engine:") {
                command.clone()
            } else {
                format!(
                    "engine:cmd={},name={name},movetime={}",
                    command.trim(),
                    Self::DEFAULT_MOVETIME
                )
            };
            let spec = AnyAgentSpec::parse(&text).map_err(|e| bad(e.to_string()))?;
            let AnyAgentSpec::Engine(_) = &spec else {
                return Err(bad(
                    "not an engine: give a command or an engine: spec".into()
                ));
            };
            // The program must be there now, not at the first request; it
            // plays every game, so any one checks it.
            spec.check(&mancala_core::KalahRules::default())
                .map_err(|e| bad(e.to_string()))?;
            if by_name.insert(name.clone(), spec).is_some() {
                return Err(bad("the name is given twice".into()));
            }
        }
        Ok(OfferedEngines { by_name })
    }

    /// The names offered.
    pub fn names(&self) -> Vec<&str> {
        self.by_name.keys().map(String::as_str).collect()
    }

    /// A client's agent spec, and whether it is one of the engines offered
    /// (by its name; the server then checks it plays the game and admits
    /// it), or else any spec [`parse_agent`] takes.
    ///
    /// # Errors
    /// As [`parse_agent`].
    pub fn parse_agent(&self, text: &str) -> Result<(AnyAgentSpec, bool), ApiError> {
        match self.by_name.get(text.trim()) {
            Some(spec) => Ok((spec.clone(), true)),
            None => Ok((parse_agent(text)?, false)),
        }
    }
}

/// What a search said, as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct SearchView {
    /// alpha_beta, mcts, exact, or engine.
    pub kind: &'static str,
    /// Positions (alpha-beta, the solver) or simulations (MCTS).
    pub nodes: u64,
    /// Depth completed, or the deepest tree path (MCTS).
    pub depth: u32,
    /// The move's value for the mover: margin in seeds, or a score in 0..1 (MCTS).
    pub value: Option<f64>,
    /// The move's share of the root visits (MCTS).
    pub share: Option<f64>,
    /// The line the search expects.
    pub pv: Vec<String>,
}

impl SearchView {
    /// The view of `info`, `None` for an agent that does not search.
    pub fn of(info: &SearchInfo) -> Option<SearchView> {
        let kind = match info.kind {
            SearchKind::None => return None,
            SearchKind::AlphaBeta => "alpha_beta",
            SearchKind::Mcts => "mcts",
            SearchKind::Exact => "exact",
            SearchKind::Engine => "engine",
        };
        Some(SearchView {
            kind,
            nodes: info.nodes,
            depth: info.depth,
            value: info.value,
            share: info.share,
            pv: info.pv.moves().iter().map(Move::to_string).collect(),
        })
    }
}

/// An agent's move, as the API answers it.
#[derive(Clone, Debug, Serialize)]
pub struct AgentMove {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// The agent, as its spec prints.
    pub agent: String,
    /// Milliseconds the agent took.
    pub ms: f64,
    /// What its search said.
    pub search: Option<SearchView>,
    /// Whether the server's limit ended the search.
    pub cut: bool,
}

/// Runs `spec`'s choice in `state`, for at most [`MAX_AGENT_TIME`] or until
/// `cancel`.
pub fn agent_move<G: Solvable>(
    searches: &Searches,
    game: &G,
    state: &G::State,
    spec: &AnyAgentSpec,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<AgentMove, ApiError> {
    if game.is_over(state) {
        return Err(ApiError::Unprocessable("the game is over".into()));
    }
    // `perfect` plays from the server's pool, within its bound.
    let mut agent = spec.build_with(game, &searches.solvers);
    agent.new_game(seed);
    let start = Instant::now();
    let deadline = start + MAX_AGENT_TIME;
    let stop = StopCondition {
        deadline: Some(deadline),
        cancel: Some(cancel),
        clock: None,
    };
    let chosen = agent.choose_until(game, state, stop);
    let elapsed = start.elapsed();
    let cut = Instant::now() >= deadline;
    match chosen {
        Ok(mv) => Ok(AgentMove {
            mv: mv.to_string(),
            agent: agent.name(),
            ms: elapsed.as_secs_f64() * 1e3,
            search: SearchView::of(&agent.info()),
            cut,
        }),
        Err(_) if cancel.load(Ordering::Relaxed) => Err(ApiError::Gone),
        Err(mancala_agents::AgentError::Stopped) => Err(ApiError::Unprocessable(format!(
            "`{spec}` found no move within the server's limit of {} s; give it a budget of its \
             own (perfect:time=2s,fallback=minimax:depth=8, say)",
            MAX_AGENT_TIME.as_secs()
        ))),
        Err(e) => Err(ApiError::Unprocessable(format!("`{spec}`: {e}"))),
    }
}

/// What an analysis asks for.
#[derive(Clone, Debug)]
pub struct AnalysisRequest {
    /// The solver's time for the position and its moves.
    pub time: Duration,
    /// Nodes to settle each move's position with first.
    pub nodes: u64,
    /// The estimator of moves the solver cannot value.
    pub estimator: AgentSpec,
}

/// One move's value.
#[derive(Clone, Debug, Serialize)]
pub struct MoveAnalysis {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Final margin for the player to move after it: exact, or the
    /// estimator's score.
    pub value: Option<f64>,
    /// Whether `value` is the solver's.
    pub exact: bool,
    /// Whether it is a move of the best value found.
    pub best: bool,
    /// Milliseconds spent on it.
    pub ms: f64,
}

/// Every move of a position, valued.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// Whether every value is exact.
    pub exact: bool,
    /// The position's value: the best move's.
    pub value: Option<f64>,
    /// Milliseconds in all.
    pub ms: f64,
    /// Each legal move, in move order.
    pub moves: Vec<MoveAnalysis>,
    /// A principal variation: the solver's when the position is solved,
    /// else the best estimated move and the estimator's line after it.
    pub pv: Vec<String>,
    /// The estimator, when some value is its.
    pub estimator: Option<String>,
    /// Why the solver gave no values at all: a game it does not solve, or
    /// a solver still being built.
    pub solver: Option<String>,
    /// Whether the solver is still being built: the same request, sent
    /// again later, gets exact values.
    pub building: bool,
}

/// The share of an analysis's time that its solver may use; the
/// estimator has the rest.
const SOLVER_SHARE: f64 = 0.9;

/// Longest run of forced moves followed before an estimate.
const MAX_FORCED_PLIES: usize = 256;

/// `state` after the moves that are the only legal ones in turn, and
/// those moves.
fn past_forced_moves<G: Game>(game: &G, state: &G::State) -> (G::State, Vec<String>) {
    let mut at = state.clone();
    let mut line = Vec::new();
    while line.len() < MAX_FORCED_PLIES && !game.is_over(&at) {
        let legal = game.legal_moves(&at);
        let mut moves = legal.into_iter();
        let (Some(only), None) = (moves.next(), moves.next()) else {
            break;
        };
        game.play_unchecked(&mut at, only);
        line.push(only.to_string());
    }
    (at, line)
}

/// Values every legal move of `state`: the solver's where it settles the
/// move's position within `nodes` or solves it within a share of the time,
/// else the estimator's.
pub fn analyse<G: Solvable>(
    searches: &Searches,
    game: &G,
    state: &G::State,
    request: &AnalysisRequest,
    cancel: &AtomicBool,
) -> Result<Analysis, ApiError> {
    let start = Instant::now();
    let Some(mover) = game.to_move(state) else {
        return Err(ApiError::Unprocessable("the game is over".into()));
    };
    // One deadline for the whole analysis, counted from here (waiting for
    // a rule set's first solver build is part of it): the thread is held
    // for at most the time asked. The solver has the first
    // [`SOLVER_SHARE`] of it; the estimator, needed only for the moves the
    // solver did not value, what is left. (Each used to have the whole
    // time, one after the other: twice the time asked.)
    let end = start + request.time;
    let deadline = start + request.time.mul_f64(SOLVER_SHARE);
    let found = find_solver(searches, game, deadline, cancel);
    let analyser = Analyser {
        game,
        state,
        mover,
        request,
        cancel,
        solver: found.solver,
        deadline,
        end,
    };
    let (mut moves, children) = analyser.solve_moves()?;
    let exact = moves.iter().all(|m| m.exact);
    let (pv, estimator) = if exact {
        (analyser.solver_line(), None)
    } else {
        let pv = analyser.estimate(&mut moves, &children)?;
        (pv, Some(request.estimator.to_string()))
    };
    let value = mark_best(&mut moves);
    Ok(Analysis {
        exact,
        value,
        ms: start.elapsed().as_secs_f64() * 1e3,
        moves,
        pv,
        estimator,
        solver: found.refusal,
        building: found.building,
    })
}

/// The analyses' solver of a rule set, or why there is none.
struct FoundSolver<G: Solvable> {
    /// The solver, when it is built and plays these rules.
    solver: Option<Arc<dyn ExactSolver<G>>>,
    /// Why there is no solver: [`Analysis::solver`].
    refusal: Option<String>,
    /// Whether it is still being built: [`Analysis::building`].
    building: bool,
}

/// `game`'s solver from `searches`, waiting for its build until
/// `deadline`; a refusal or a build still going on is reported in the
/// analysis rather than failing it.
fn find_solver<G: Solvable>(
    searches: &Searches,
    game: &G,
    deadline: Instant,
    cancel: &AtomicBool,
) -> FoundSolver<G> {
    let (solver, refusal, building) = match searches.solver(game, deadline, cancel) {
        Ok(s) => (Some(s), None, false),
        Err(NoSolver::Refused(why)) => (None, Some(why), false),
        Err(NoSolver::Building) => (
            None,
            Some(format!(
                "the solver for {game} is still being built (its endgame database); \
                 analyse again for exact values"
            )),
            true,
        ),
    };
    FoundSolver {
        solver,
        refusal,
        building,
    }
}

/// One analysis in progress: the position, its limits and its solver.
struct Analyser<'a, G: Solvable> {
    game: &'a G,
    state: &'a G::State,
    /// The player to move in `state`, for whom every value is given.
    mover: Player,
    request: &'a AnalysisRequest,
    cancel: &'a AtomicBool,
    solver: Option<Arc<dyn ExactSolver<G>>>,
    /// When the solver's share of the time is up.
    deadline: Instant,
    /// When the whole analysis's time is up.
    end: Instant,
}

impl<'a, G: Solvable> Analyser<'a, G> {
    /// A stop at `until`, or when the client goes away.
    fn stop(&self, until: Instant) -> StopCondition<'a> {
        StopCondition {
            deadline: Some(until),
            cancel: Some(self.cancel),
            clock: None,
        }
    }

    /// Whether the client has gone away.
    fn gone(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The value for the mover of `v`, the value of `child` for its own
    /// mover.
    fn for_mover(&self, child: &G::State, v: i32) -> i32 {
        match self.game.to_move(child) {
            Some(next) if next != self.mover => -v,
            _ => v,
        }
    }

    /// Each legal move with the value the solver gives it (none where it
    /// gives none), and the position after each.
    fn solve_moves(&self) -> Result<(Vec<MoveAnalysis>, Vec<G::State>), ApiError> {
        let legal: Vec<Move> = self.game.legal_moves(self.state).into_iter().collect();
        let mut moves = Vec::with_capacity(legal.len());
        let mut children = Vec::with_capacity(legal.len());
        for (k, &mv) in legal.iter().enumerate() {
            let t0 = Instant::now();
            let mut child = self.state.clone();
            self.game.play_unchecked(&mut child, mv);
            let mut value = self.game.outcome(&child).map(|o| o.margin_for(self.mover));
            if self.gone() {
                return Err(ApiError::Gone);
            }
            if value.is_none() {
                value = self.solve_child(&child, legal.len() - k)?;
            }
            if self.gone() {
                return Err(ApiError::Gone);
            }
            moves.push(MoveAnalysis {
                mv: mv.to_string(),
                value: value.map(f64::from),
                exact: value.is_some(),
                best: false,
                ms: t0.elapsed().as_secs_f64() * 1e3,
            });
            children.push(child);
        }
        Ok((moves, children))
    }

    /// The solver's value of `child` for the mover: settled within the
    /// request's nodes, else solved within an equal share of the solver's
    /// time left for it and the `moves_left - 1` moves after it; none
    /// without a solver or once its time is up.
    fn solve_child(&self, child: &G::State, moves_left: usize) -> Result<Option<i32>, ApiError> {
        // Settling is bounded by nodes, not time: it is skipped once the
        // time is up.
        let Some(solver) = &self.solver else {
            return Ok(None);
        };
        if Instant::now() >= self.deadline {
            return Ok(None);
        }
        let settled = solver.settle(child, self.request.nodes).ok().flatten();
        if let Some(v) = settled {
            return Ok(Some(self.for_mover(child, v)));
        }
        let now = Instant::now();
        let share = self.deadline.saturating_duration_since(now) / moves_left as u32;
        match solver.value(child, self.stop(now + share)) {
            Ok(v) => Ok(Some(self.for_mover(child, v))),
            Err(SolveError::Stopped) => Ok(None),
            Err(e) => Err(ApiError::Unprocessable(e.to_string())),
        }
    }

    /// The solver's principal variation of the position, when it has a
    /// solver and the time for it.
    fn solver_line(&self) -> Vec<String> {
        let Some(solver) = &self.solver else {
            return Vec::new();
        };
        // The table is warm from the moves' searches: the line costs
        // little, and is skipped if even that runs out of time.
        match solver.solve_until(self.state, 1, self.stop(self.end)) {
            Ok(solution) => solution.pv.iter().map(Move::to_string).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Values with the estimator the moves the solver did not value, and
    /// gives the best estimated move and the estimator's line after it.
    fn estimate(
        &self,
        moves: &mut [MoveAnalysis],
        children: &[G::State],
    ) -> Result<Vec<String>, ApiError> {
        // The estimator has what is left of the analysis's time, shared
        // equally among the moves it values (a depth it does not complete
        // in its share gives the deepest it did).
        let mut agent: Box<dyn Agent<G>> = self.request.estimator.build();
        let mut lines = Vec::with_capacity(moves.len());
        let mut left = moves
            .iter()
            .zip(children)
            .filter(|(m, c)| !m.exact && !self.game.is_over(c))
            .count();
        for (m, child) in moves.iter_mut().zip(children) {
            if m.exact || self.game.is_over(child) {
                lines.push(Vec::new());
                continue;
            }
            lines.push(self.estimate_move(agent.as_mut(), m, child, left)?);
            left -= 1;
        }
        Ok(best_line(moves, lines))
    }

    /// Values `m`, whose position is `child`, with `agent` in an equal
    /// share of the time left for it and the `left - 1` moves after it,
    /// and gives the line after `m`: the forced moves and the agent's
    /// principal variation (none if the agent failed).
    fn estimate_move(
        &self,
        agent: &mut dyn Agent<G>,
        m: &mut MoveAnalysis,
        child: &G::State,
        left: usize,
    ) -> Result<Vec<String>, ApiError> {
        let t0 = Instant::now();
        let share = self.end.saturating_duration_since(t0) / left.max(1) as u32;
        // An agent plays a forced move without searching it, so the
        // value is looked for past the forced moves.
        let (at, mut line) = past_forced_moves(self.game, child);
        let same = self.game.to_move(&at) == Some(self.mover);
        if let Some(outcome) = self.game.outcome(&at) {
            m.value = Some(f64::from(outcome.margin_for(self.mover)));
            return Ok(line);
        }
        agent.new_game(0);
        match agent.choose_until(self.game, &at, self.stop(t0 + share)) {
            Ok(_) => {}
            Err(_) if self.gone() => return Err(ApiError::Gone),
            Err(_) => return Ok(Vec::new()),
        }
        let info = agent.info();
        m.value = info.value.map(|v| if same { v } else { -v });
        m.ms += t0.elapsed().as_secs_f64() * 1e3;
        line.extend(info.pv.moves().iter().map(Move::to_string));
        Ok(line)
    }
}

/// The best valued move followed by its line (`lines` has one per move;
/// the last of equal values), or nothing when no move has a value.
fn best_line(moves: &[MoveAnalysis], mut lines: Vec<Vec<String>>) -> Vec<String> {
    let best = moves
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.value.map(|v| (i, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let mut pv = Vec::new();
    if let Some((i, _)) = best {
        pv.push(moves[i].mv.clone());
        pv.append(&mut lines[i]);
    }
    pv
}

/// Marks the moves of the best value, and gives that value.
fn mark_best(moves: &mut [MoveAnalysis]) -> Option<f64> {
    let value = moves.iter().filter_map(|m| m.value).max_by(f64::total_cmp);
    for m in moves {
        m.best = m.value.is_some() && m.value == value;
    }
    value
}
