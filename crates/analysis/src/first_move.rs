//! `analyze first-move`: over a grid of boards and rule sets, the exact
//! value of the start and of every first move (where the solver finishes
//! within a budget), and the first player's results when both seats are
//! played by the same agent, for a ladder of agent strengths.
//!
//! The output folder holds `first_move_options.json` (the options that
//! decide the results), `first_move_exact.csv` and `first_move.csv`
//! (appended as each board is solved and each cell is played, so that a
//! run can be stopped and resumed) and, at the end, `first_move.json`. The
//! charts are drawn from a [`FirstMove`] by `mancala-report`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mancala_agents::{derive_seed, format_duration, parse_duration, StopCondition};
use mancala_arena::stats::json_float;
use mancala_arena::stats::{mean_with_ci, wilson_interval, Wdl, Z95};
use mancala_arena::{schedule, Arena, FolderLock, GameRecord, Players, RunOptions};
use mancala_core::{with_game, Game, GameSpec, OwareRules};
use mancala_registry::AnyAgentSpec;
use mancala_solver::oware::DEFAULT_TABLE_MIB as OWARE_TABLE_MIB;
use mancala_solver::{
    ExactGame, Perfect, PerfectSpec, Profile, Solution, SolveError, SolverOptions, Solvers,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::grid::{grid, Board};
use crate::resume;
use crate::{
    bad_input, build_solver, check_db_seeds, io_error, solver_options, AnalysisError, Observer,
    Result,
};

/// The ladder when none is given: weakest first.
pub const DEFAULT_LADDER: &[&str] = &[
    "random",
    "greedy",
    "minimax:depth=2,margin=0",
    "minimax:depth=4,margin=0",
    "minimax:depth=6,margin=0",
    "mcts:sims=100",
    "mcts:sims=1000",
    "perfect",
];

/// What a first-move analysis is asked to do: `mancala analyze
/// first-move`'s flags, as given (the texts are saved with the results, so
/// that a rerun with other options cannot mix its rows with these).
#[derive(Clone, Debug)]
pub struct FirstMoveOptions {
    /// Game: kalah, oware or congkak, optionally with options kept on
    /// every board (`kalah:leftover=set_aside`); no pits or seeds.
    pub game: String,
    /// Pits per row: a number, a range (`3..6`) or a list of those.
    pub pits: String,
    /// Seeds per pit at the start, written like `pits`.
    pub seeds: String,
    /// Rule sets, comma-separated (see [`crate::grid::rule_options`]).
    pub rules: String,
    /// The agent ladder, weakest first (empty: [`DEFAULT_LADDER`]).
    pub agents: Vec<String>,
    /// Games per board x rules x agent cell.
    pub games: u64,
    /// Seed of the whole analysis: each cell's games get their own stream.
    pub seed: u64,
    /// Worker threads. Results do not depend on it.
    pub threads: usize,
    /// Time the solver may spend on each board (`10s`, `2m`; `0` skips
    /// exact values). The endgame database's build is not counted.
    pub budget: String,
    /// Solver transposition table size in MiB (one table per board).
    pub tt: u64,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`; 0: no database).
    pub db_seeds: Option<usize>,
    /// Where endgame databases are kept between runs (`None`: built in
    /// memory each time).
    pub db_dir: Option<PathBuf>,
    /// The output folder.
    pub out: PathBuf,
}

impl FirstMoveOptions {
    /// The command line's defaults, writing to `out`.
    pub fn new(out: &Path) -> FirstMoveOptions {
        FirstMoveOptions {
            game: "kalah".into(),
            pits: "3..6".into(),
            seeds: "1..6".into(),
            rules: "standard".into(),
            agents: Vec::new(),
            games: 100,
            seed: 1,
            threads: 1,
            budget: "10s".into(),
            tt: 256,
            db_seeds: None,
            db_dir: None,
            out: out.to_path_buf(),
        }
    }
}

/// One row of `first_move.csv`: a board, a rule set and an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The game's name.
    pub game: String,
    /// Pits per row.
    pub pits: usize,
    /// Seeds per pit.
    pub seeds: usize,
    /// The rule set's name.
    pub rules: String,
    /// The board's game spec.
    pub spec: String,
    /// The agent playing both seats.
    pub agent: String,
    /// Games played.
    pub games: u64,
    /// Distinct games among them (by their moves): 1 for an agent that
    /// plays one game over and over, which then has no interval (0 in rows
    /// written before this was counted).
    #[serde(default)]
    pub distinct_games: u64,
    /// Games the first player won.
    pub first_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the first player lost.
    pub first_losses: u64,
    /// The first player's score (0 to 1).
    pub first_score: Option<f64>,
    /// Its 95% interval's lower end.
    pub score_lo: Option<f64>,
    /// Its upper end.
    pub score_hi: Option<f64>,
    /// The first player's mean final margin.
    pub mean_margin: Option<f64>,
    /// Its 95% interval's lower end.
    pub margin_lo: Option<f64>,
    /// Its upper end.
    pub margin_hi: Option<f64>,
    /// Games lost by a forfeit.
    pub forfeits: u64,
    /// Mean moves per game.
    pub mean_plies: Option<f64>,
    /// The board's exact status (see [`Exact::status`]).
    pub exact: String,
    /// The board's exact value.
    pub exact_value: Option<i32>,
    /// Every first move's exact value.
    pub move_values: String,
    /// The first moves that keep the value.
    pub best_moves: String,
    /// Seconds the solver took.
    pub solve_seconds: Option<f64>,
    /// Positions it searched.
    pub solve_nodes: Option<u64>,
    /// The cell's seed.
    pub seed: u64,
    /// Seconds the cell's games took.
    pub seconds: f64,
}

/// What is known exactly about one board's start: one row of
/// `first_move_exact.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exact {
    /// The board's game spec.
    pub spec: String,
    /// `solved`, `over_budget`, `unavailable` (no solver for this game) or
    /// `skipped` (`--budget 0`).
    pub status: String,
    /// The final margin for the first player with perfect play.
    pub value: Option<i32>,
    /// Every first move and its value: `1:+2 2:+2 3:-4`.
    pub move_values: String,
    /// The first moves that keep the value.
    pub best_moves: String,
    /// Seconds the solver took.
    pub seconds: Option<f64>,
    /// Positions it searched.
    pub nodes: Option<u64>,
    /// Why there is no value, in words.
    pub note: String,
}

impl Exact {
    /// No value, with its status and why.
    pub fn none(spec: &str, status: &str, note: &str) -> Exact {
        Exact {
            spec: spec.to_string(),
            status: status.to_string(),
            value: None,
            move_values: String::new(),
            best_moves: String::new(),
            seconds: None,
            nodes: None,
            note: note.to_string(),
        }
    }

    /// A solved start: its value, every first move's and the best ones.
    pub fn solved(spec: &str, s: &Solution) -> Exact {
        let moves: Vec<String> = s
            .moves
            .iter()
            .map(|m| format!("{}:{:+}", m.mv, m.value))
            .collect();
        let best: Vec<String> = s
            .moves
            .iter()
            .filter(|m| m.value == s.value)
            .map(|m| m.mv.to_string())
            .collect();
        Exact {
            spec: spec.to_string(),
            status: "solved".into(),
            value: Some(s.value),
            move_values: moves.join(" "),
            best_moves: best.join(" "),
            seconds: Some(s.stats.seconds),
            nodes: Some(s.stats.nodes),
            note: String::new(),
        }
    }

    /// Not solved within `budget`.
    pub fn over_budget(spec: &str, budget: Duration) -> Exact {
        Exact {
            seconds: Some(budget.as_secs_f64()),
            ..Exact::none(
                spec,
                "over_budget",
                &format!("not solved within {}", format_duration(budget)),
            )
        }
    }

    /// Whether the value is known.
    pub fn is_solved(&self) -> bool {
        self.status == "solved"
    }
}

/// Parses `--budget`: `0` (no solving) or a duration.
///
/// # Errors
/// [`AnalysisError::BadInput`] for a text that is neither.
pub fn parse_budget(text: &str) -> Result<Option<Duration>> {
    let t = text.trim();
    if t == "0" || t == "0s" || t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_duration("budget", t)
        .map(Some)
        .map_err(|e| bad_input(format!("--budget: {e}")))
}

/// The options that decide the results, as saved in the output folder: a
/// rerun with other values must not mix its rows with these.
fn options_record(
    game: &str,
    args: &FirstMoveOptions,
    boards: &[Board],
    rule_sets: &[String],
    agents: &[String],
) -> OptionsRecord {
    OptionsRecord {
        game: args.game.trim().to_string(),
        game_name: game.to_string(),
        pits: boards.iter().map(|b| b.pits).collect(),
        seeds: boards.iter().map(|b| b.seeds).collect(),
        rules: rule_sets.to_vec(),
        agents: agents.to_vec(),
        games: args.games,
        seed: args.seed,
        budget: args.budget.trim().to_string(),
        tt: args.tt,
        db_seeds: args.db_seeds,
    }
}

/// The rows, one per cell, appended as cells finish.
pub const CSV_NAME: &str = "first_move.csv";
/// The boards' exact values, appended as boards are solved.
pub const EXACT_NAME: &str = "first_move_exact.csv";
/// The options the rows were made with.
pub const OPTIONS_NAME: &str = "first_move_options.json";
/// Everything, written at the end.
pub const JSON_NAME: &str = "first_move.json";

/// Appends rows to a CSV file, writing the header when the file is new.
struct Appender {
    path: PathBuf,
}

impl Appender {
    fn append<T: Serialize>(&self, row: &T) -> Result<()> {
        let new = fs::metadata(&self.path).map_or(true, |m| m.len() == 0);
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io_error("write", &self.path))?;
        let mut w = csv::WriterBuilder::new().has_headers(new).from_writer(file);
        let written = w.serialize(row).map_err(|e| match e.into_kind() {
            csv::ErrorKind::Io(io) => io,
            other => std::io::Error::other(format!("{other:?}")),
        });
        written
            .and_then(|()| w.flush())
            .map_err(io_error("write", &self.path))
    }
}

/// What an output folder holds when a run opens it.
struct Opened {
    /// Held while the run writes the folder.
    _lock: FolderLock,
    /// The cells of an earlier run, as read (not yet checked).
    rows: Vec<Row>,
    /// Its exact values, as read.
    exacts: Vec<Exact>,
    /// Whether an earlier run's files are there (to check and rewrite).
    resumed: bool,
}

/// Takes the lock of `out` (so that two runs never write one folder) and
/// checks that it holds nothing or the results of these same options;
/// returns the lock and the earlier run's rows.
fn open_output(out: &Path, options: &Value) -> Result<Opened> {
    fs::create_dir_all(out).map_err(io_error("create", out))?;
    let lock = FolderLock::take(out).map_err(|e| bad_input(e.to_string()))?;
    let options_path = out.join(OPTIONS_NAME);
    let csv_path = out.join(CSV_NAME);
    if options_path.exists() {
        let text = fs::read_to_string(&options_path).map_err(io_error("read", &options_path))?;
        let saved: Value = serde_json::from_str(&text).map_err(|e| AnalysisError::Damaged {
            path: options_path.clone(),
            why: format!("damaged: {e}"),
        })?;
        if &saved != options {
            let mut differ = Vec::new();
            if let (Some(a), Some(b)) = (saved.as_object(), options.as_object()) {
                for (k, v) in b {
                    let old = a.get(k).unwrap_or(&Value::Null);
                    if old != v {
                        differ.push(format!("{k}: {old} there, {v} now"));
                    }
                }
            }
            return Err(bad_input(format!(
                "{} holds results of other options ({}); rerun with the same options to \
                 resume, or choose another --out",
                out.display(),
                if differ.is_empty() {
                    "unreadable options".to_string()
                } else {
                    differ.join("; ")
                }
            )));
        }
    } else if csv_path.exists() || out.join(EXACT_NAME).exists() {
        return Err(bad_input(format!(
            "{} holds results without {OPTIONS_NAME}: they cannot be resumed; choose another --out",
            out.display()
        )));
    } else {
        let text = serde_json::to_string_pretty(options).expect("JSON values print") + "\n";
        fs::write(&options_path, text).map_err(io_error("write", &options_path))?;
    }
    let exact_path = out.join(EXACT_NAME);
    let resumed = csv_path.exists() || exact_path.exists();
    let rows = if csv_path.exists() {
        resume::read_rows(&csv_path)?
    } else {
        Vec::new()
    };
    let exacts = if exact_path.exists() {
        resume::read_rows(&exact_path)?
    } else {
        Vec::new()
    };
    Ok(Opened {
        _lock: lock,
        rows,
        exacts,
        resumed,
    })
}

/// The solver that solved a board, its table warm, in a pool of its own:
/// `perfect` plays from it (see [`CellAgent::Solved`]).
type BoardSolver = Arc<Solvers>;

/// The exact value of a board's start, for the games a solver knows, and
/// the solver that found it, if `perfect` can play from it.
fn exact_value(
    board: &Board,
    budget: Option<Duration>,
    args: &FirstMoveOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<(Exact, Option<BoardSolver>)> {
    let threads = args.threads;
    let key = &board.key;
    let Some(budget) = budget else {
        return Ok((Exact::none(key, "skipped", "--budget 0: not solved"), None));
    };
    match &board.spec {
        GameSpec::Kalah(rules) => solve_store_free(key, rules, budget, args, observer, stop),
        GameSpec::Oware(rules) => Ok((solve_oware(key, rules, budget, threads, stop)?, None)),
        GameSpec::Congkak(rules) => solve_store_free(key, rules, budget, args, observer, stop),
    }
}

/// The exact value of a Kalah or single-round Congkak board (see
/// docs/congkak-solver.md), solved with the database of `mancala solve`
/// from the same cache folder, and the solver, kept in a pool of its own
/// for `perfect`. Multi-round Congkak has no solver and is `unavailable`, with
/// the solver's reason as the note.
fn solve_store_free<G: ExactGame>(
    key: &str,
    rules: &G,
    budget: Duration,
    args: &FirstMoveOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<(Exact, Option<BoardSolver>)> {
    let threads = args.threads;
    if let Err(e @ SolveError::MultiRound { .. }) = rules.check_solvable() {
        return Ok((Exact::none(key, "unavailable", &e.to_string()), None));
    }
    let options = solver_options(
        rules,
        Profile::Solve,
        Some(args.tt),
        args.db_seeds,
        args.db_dir.as_deref(),
    )?;
    let solver = build_solver(rules, &options, threads, &rules.to_string(), observer)?;
    let until = StopCondition {
        deadline: Instant::now().checked_add(budget),
        cancel: Some(stop),
        clock: None,
    };
    match solver.solve_until(&rules.start(), threads, until) {
        Ok(s) => {
            let pool = Arc::new(Solvers::new(1));
            pool.insert(rules, &options, solver);
            Ok((Exact::solved(key, &s), Some(pool)))
        }
        Err(SolveError::Stopped) if stop.load(Ordering::Relaxed) => Err(AnalysisError::Interrupted),
        Err(SolveError::Stopped) => Ok((Exact::over_budget(key, budget), None)),
        Err(e) => Err(AnalysisError::Solver(e.to_string())),
    }
}

/// The exact value of an Oware board, where the Oware solver takes it
/// (small boards: see docs/oware-solver.md). `perfect` does not play Oware.
fn solve_oware(
    key: &str,
    rules: &OwareRules,
    budget: Duration,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Exact> {
    let options = SolverOptions::table(OWARE_TABLE_MIB);
    let solver = match mancala_solver::build_solver(rules, &options, None) {
        Ok(s) => s,
        Err(e @ SolveError::TooLarge { .. }) => {
            return Ok(Exact::none(key, "unavailable", &e.to_string()))
        }
        Err(e) => return Err(AnalysisError::Solver(e.to_string())),
    };
    let until = StopCondition {
        deadline: Instant::now().checked_add(budget),
        cancel: Some(stop),
        clock: None,
    };
    match solver.solve_until(&rules.start(), threads, until) {
        Ok(s) => Ok(Exact::solved(key, &s)),
        Err(SolveError::Stopped) if stop.load(Ordering::Relaxed) => Err(AnalysisError::Interrupted),
        Err(SolveError::Stopped) => Ok(Exact::over_budget(key, budget)),
        Err(e @ SolveError::PlyLimit { .. }) => Ok(Exact::none(key, "unavailable", &e.to_string())),
        Err(e) => Err(AnalysisError::Solver(e.to_string())),
    }
}

/// A stable 64-bit hash (FNV-1a) of a cell's key: its seed stream must not
/// change between Rust versions or runs, nor depend on the cells before it.
fn stable_hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The seed stream of the cell of agent `agent` on board `spec`.
pub(crate) fn cell_seed(spec: &str, agent: &str) -> u64 {
    stable_hash(&format!("{spec}|{agent}"))
}

/// Who plays both seats of a cell.
enum CellAgent<'a> {
    /// Built from its spec.
    Spec(&'a AnyAgentSpec),
    /// Plain `perfect`, from the board's own solver. The solver crate's
    /// agent would keep one solver (and its table) per rule set for the
    /// whole process, which over a grid of boards would hold every board's
    /// table at once; this one shares the table that just solved the start,
    /// and it goes when the board is done.
    Solved(&'a BoardSolver),
}

/// One board x rules x agent cell to play.
struct Cell<'a> {
    /// The game spec, as the records name it.
    spec: &'a str,
    /// The agent's name (its canonical spec).
    name: &'a str,
    /// Who plays both seats.
    agent: CellAgent<'a>,
    /// Games to play.
    games: u64,
    /// The cell's seed.
    seed: u64,
}

/// Plays one cell's games (self-play from the start); `None` when stopped.
fn play_cell<G: mancala_solver::Solvable>(
    game: &G,
    cell: &Cell<'_>,
    threads: usize,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Option<Vec<GameRecord>>> {
    let Cell {
        spec,
        name,
        agent,
        games,
        seed,
    } = cell;
    let (games, seed) = (*games, *seed);
    let players = Players {
        names: vec![name.to_string()],
        specs: vec![name.to_string()],
        factory: Box::new(|_| match agent {
            CellAgent::Spec(a) => a.build(game),
            CellAgent::Solved(pool) => match pool.find(game) {
                Some(solver) => Box::new(Perfect::<G>::playing_from(solver)),
                // Not this game's: the board's own solver is always of
                // its game, but the agent would still play, from the
                // process's pool.
                None => PerfectSpec::default().build::<G>(),
            },
        }),
    };
    let planned = schedule(&[[0, 0]], games as u32, 1);
    let arena = Arena {
        game,
        game_spec: spec.to_string(),
        players,
        openings: vec![mancala_arena::Opening::default()],
        options: RunOptions {
            threads: threads.clamp(1, planned.len().max(1)),
            seed,
            move_timeout: None,
            time_control: None,
            time_margin: mancala_arena::DEFAULT_TIME_MARGIN,
            live: None,
        },
        adjudicator: None,
    };
    let records = Mutex::new(Vec::new());
    arena.run(&planned, stop, &|r: GameRecord| {
        observer.game_done(&r);
        records.lock().unwrap_or_else(|p| p.into_inner()).push(r);
    })?;
    let mut records = records.into_inner().unwrap_or_else(|p| p.into_inner());
    if records.len() < planned.len() {
        return Ok(None);
    }
    records.sort_by_key(|r| r.id);
    Ok(Some(records))
}

/// How many different games `records` hold, told apart by their moves.
pub(crate) fn distinct_games(records: &[GameRecord]) -> u64 {
    let games: std::collections::HashSet<&str> = records.iter().map(|r| r.moves.as_str()).collect();
    games.len() as u64
}

fn finite(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// Summarises a cell's games from the first player's (seat 0's) side.
fn summarise(
    board: &Board,
    game: &str,
    agent: &str,
    exact: &Exact,
    records: &[GameRecord],
    seed: u64,
    seconds: f64,
) -> Result<Row> {
    let mut first = Wdl::default();
    let mut margins = Vec::new();
    let mut forfeits = 0;
    let mut plies = 0u64;
    for r in records {
        first.record(r.first_seat_score())?;
        plies += u64::from(r.plies);
        if r.is_forfeit() {
            forfeits += 1;
        } else {
            margins.push(f64::from(r.margin));
        }
    }
    let n = first.games() as f64;
    let distinct_games = distinct_games(records);
    // The games of a cell are independent only when they can differ: every
    // game has its own seed, so an agent that draws its moves gives
    // independent games however often one recurs, but an agent that plays
    // one game every time has made one observation, not `n`.
    let independent = distinct_games > 1 || n <= 1.0;
    let (lo, hi) = wilson_interval(first.points(), n, Z95);
    let margin = mean_with_ci(&margins);
    let margin_ci = margin.filter(|_| independent);
    Ok(Row {
        game: game.to_string(),
        pits: board.pits,
        seeds: board.seeds,
        rules: board.rules.clone(),
        spec: board.key.clone(),
        agent: agent.to_string(),
        games: first.games(),
        distinct_games,
        first_wins: first.wins,
        draws: first.draws,
        first_losses: first.losses,
        first_score: first.score(),
        score_lo: (n > 0.0 && independent).then_some(lo),
        score_hi: (n > 0.0 && independent).then_some(hi),
        mean_margin: margin.and_then(|m| finite(m.mean)),
        margin_lo: margin_ci.and_then(|m| finite(m.lo)),
        margin_hi: margin_ci.and_then(|m| finite(m.hi)),
        forfeits,
        mean_plies: (n > 0.0).then(|| plies as f64 / n),
        exact: exact.status.clone(),
        exact_value: exact.value,
        move_values: exact.move_values.clone(),
        best_moves: exact.best_moves.clone(),
        solve_seconds: exact.seconds,
        solve_nodes: exact.nodes,
        seed,
        seconds,
    })
}

/// A finished (or interrupted) first-move analysis: what its files hold.
#[derive(Clone, Debug)]
pub struct FirstMove {
    /// The game's name (`kalah`, `oware`, `congkak`).
    pub game: String,
    /// The rule sets, as given.
    pub rule_sets: Vec<String>,
    /// The agents of the ladder, by canonical spec, weakest first.
    pub agents: Vec<String>,
    /// Every board of the grid, in grid order.
    pub boards: Vec<Board>,
    /// Each board's exact value, by board key.
    pub exacts: BTreeMap<String, Exact>,
    /// Every finished cell, in grid order.
    pub rows: Vec<Row>,
    /// Boards on which `perfect` did not play (not solved in the budget).
    pub skipped_perfect: Vec<String>,
    /// `agent on game` pairs left out: agents that cannot play a board.
    pub unplayable: Vec<String>,
    /// Whether the stop flag ended the run before the grid's end.
    pub interrupted: bool,
    /// The options record saved in the folder.
    pub options: OptionsRecord,
}

impl FirstMove {
    /// The boards whose exact value is known (or known to be out of
    /// reach: every board of a run that was not stopped), in grid order.
    pub fn known_boards(&self) -> impl Iterator<Item = &Board> {
        self.boards
            .iter()
            .filter(|b| self.exacts.contains_key(&b.key))
    }
}

/// Runs (or resumes) the first-move analysis `args` into `args.out`,
/// telling `observer` what it does and stopping when `stop` is raised
/// (what was finished is kept: rerun the same options to finish).
///
/// # Errors
/// [`AnalysisError::BadInput`] for bad options or an output folder of other
/// options; [`AnalysisError::Io`] and [`AnalysisError::Damaged`] for its
/// files; [`AnalysisError::Interrupted`] when stopped while solving.
pub fn run(
    args: &FirstMoveOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<FirstMove> {
    check_games(args.games)?;
    let budget = parse_budget(&args.budget)?;
    check_db_seeds(args.db_seeds)?;
    let grid = grid(&args.game, &args.pits, &args.seeds, &args.rules)?;
    let (game_name, rule_sets, boards) = (grid.game, grid.rule_sets, grid.boards);
    let ladder = Ladder::of(&args.agents)?;
    let (playable, unplayable) = playable_cells(&boards, &ladder.agents)?;
    let options = options_record(&game_name, args, &boards, &rule_sets, &ladder.names);
    // Compared as JSON values with the saved file, which may come from an
    // older version with other keys.
    let record = serde_json::to_value(&options).expect("the options serialise");
    // Held (with the folder's lock) to the end of the run.
    let opened = open_output(&args.out, &record)?;
    let exacts = if opened.resumed {
        let checked = resume::Grid {
            game: &game_name,
            boards: &boards,
            agents: &ladder.names,
            playable: &playable,
            games: args.games,
            seed: args.seed,
        };
        resume_earlier(&checked, &args.out, &opened)?
    } else {
        BTreeMap::new()
    };
    let mut work = Work {
        args,
        budget,
        observer,
        stop,
        game_name: &game_name,
        ladder: &ladder,
        exact_path: args.out.join(EXACT_NAME),
        csv: Appender {
            path: args.out.join(CSV_NAME),
        },
        exact_csv: Appender {
            path: args.out.join(EXACT_NAME),
        },
        exacts,
        rows: opened.rows,
        position: 0,
        skipped_perfect: Vec::new(),
    };
    let plan = work.plan(&boards, &playable);
    let interrupted = work.play_all(&plan)?;
    let Work {
        exacts,
        mut rows,
        skipped_perfect,
        ..
    } = work;

    sort_in_grid_order(&mut rows, &boards, &ladder.names);
    let result = FirstMove {
        game: game_name,
        rule_sets,
        agents: ladder.names,
        boards,
        exacts,
        rows,
        skipped_perfect,
        unplayable: unplayable.into_iter().collect(),
        interrupted,
        options,
    };
    write_json(&args.out, &result)?;
    Ok(result)
}

/// Refuses a number of games per cell of 0 or past what a tournament plays.
fn check_games(games: u64) -> Result<()> {
    let most = mancala_arena::config::MAX_GAMES.min(u64::from(u32::MAX));
    if games == 0 || games > most {
        return Err(bad_input(format!(
            "--games must be between 1 and {most} (per cell)"
        )));
    }
    Ok(())
}

/// Checks an earlier run's files in `out` against `grid`, then rewrites
/// them as read, without a row a crash cut short (new rows are appended
/// after whole ones); returns its exact values by board.
fn resume_earlier(
    grid: &resume::Grid<'_>,
    out: &Path,
    opened: &Opened,
) -> Result<BTreeMap<String, Exact>> {
    let csv_path = out.join(CSV_NAME);
    let exact_path = out.join(EXACT_NAME);
    resume::check_exacts(grid, &exact_path, &opened.exacts)?;
    let exacts = opened
        .exacts
        .iter()
        .map(|e| (e.spec.clone(), e.clone()))
        .collect();
    resume::check_rows(grid, &csv_path, &opened.rows, &exacts)?;
    resume::rewrite(&exact_path, &opened.exacts)?;
    resume::rewrite(&csv_path, &opened.rows)?;
    Ok(exacts)
}

/// The agent ladder of a run, by index.
struct Ladder {
    /// The agents, weakest first.
    agents: Vec<AnyAgentSpec>,
    /// Their names (canonical specs).
    names: Vec<String>,
    /// Whether each is plain `perfect` (played from the board's solver).
    board_perfect: Vec<bool>,
}

impl Ladder {
    /// The ladder of `--agents` (see [`ladder`]).
    fn of(texts: &[String]) -> Result<Ladder> {
        let agents = ladder(texts)?;
        let names = agents.iter().map(ToString::to_string).collect();
        // Plain `perfect` plays from the board's own solver (see CellAgent).
        let board_perfect = agents
            .iter()
            .map(|a| matches!(a, AnyAgentSpec::Perfect(p) if *p == PerfectSpec::default()))
            .collect();
        Ok(Ladder {
            agents,
            names,
            board_perfect,
        })
    }
}

/// Each board with the agents still to play it: those that can, whose
/// cell is not among the `done` ones of an earlier run.
fn plan_cells<'b>(
    boards: &'b [Board],
    ladder: &Ladder,
    playable: &HashMap<(usize, &str), bool>,
    done: &BTreeSet<(String, String)>,
) -> Vec<(&'b Board, Vec<usize>)> {
    boards
        .iter()
        .map(|b| {
            let left = (0..ladder.agents.len())
                .filter(|&i| playable[&(i, b.key.as_str())])
                .filter(|&i| !done.contains(&(b.key.clone(), ladder.names[i].clone())))
                .collect();
            (b, left)
        })
        .collect()
}

/// A run's work board by board: the exact value (saved as soon as known),
/// then the cells still to play, one after another, each one's games in
/// parallel; a cell's row is written when its last game ends.
struct Work<'a> {
    /// The run's options.
    args: &'a FirstMoveOptions,
    /// The solver's time per board (`None`: no exact values).
    budget: Option<Duration>,
    /// Told what the run does.
    observer: &'a dyn Observer,
    /// Raised to stop.
    stop: &'a AtomicBool,
    /// The game, as the rows name it.
    game_name: &'a str,
    /// The agents.
    ladder: &'a Ladder,
    /// The exact values' file (named in errors).
    exact_path: PathBuf,
    /// The cells' file.
    csv: Appender,
    /// The exact values' file, appended to.
    exact_csv: Appender,
    /// Exact values known so far, by board key.
    exacts: BTreeMap<String, Exact>,
    /// Rows finished so far (an earlier run's first).
    rows: Vec<Row>,
    /// Games played or skipped so far, for the observer.
    position: u64,
    /// Boards on which `perfect` did not play.
    skipped_perfect: Vec<String>,
}

impl Work<'_> {
    /// The cells still to play, board by board: those of `playable` not
    /// already in the rows of an earlier run. Tells the observer what was
    /// resumed and how many games are to come.
    fn plan<'b>(
        &self,
        boards: &'b [Board],
        playable: &HashMap<(usize, &str), bool>,
    ) -> Vec<(&'b Board, Vec<usize>)> {
        let done: BTreeSet<(String, String)> = self
            .rows
            .iter()
            .map(|r| (r.spec.clone(), r.agent.clone()))
            .collect();
        if !done.is_empty() {
            self.observer.resumed(done.len(), self.exacts.len());
        }
        let plan = plan_cells(boards, self.ladder, playable, &done);
        let total: u64 = plan.iter().map(|(_, l)| l.len() as u64).sum::<u64>() * self.args.games;
        self.observer.start(total, "games");
        plan
    }

    /// Plays the boards of `plan` in order; `true` when the stop flag
    /// ended the run before its end.
    fn play_all(&mut self, plan: &[(&Board, Vec<usize>)]) -> Result<bool> {
        for (b, left) in plan {
            if !self.board(b, left)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Solves board `b` if need be and plays its cells `left`; `false`
    /// when the stop flag ended a cell.
    fn board(&mut self, b: &Board, left: &[usize]) -> Result<bool> {
        let solver = self.board_solver(b, left)?;
        for &i in left {
            let Some(agent) = self.cell_agent(b, i, &solver) else {
                continue;
            };
            if !self.play(b, i, agent)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The exact value of board `b`, solved (and saved) if not yet known,
    /// and the solver for plain `perfect`, if one of `left` is it and the
    /// board can be solved.
    fn board_solver(&mut self, b: &Board, left: &[usize]) -> Result<Option<BoardSolver>> {
        let (args, observer, stop) = (self.args, self.observer, self.stop);
        let mut solver = None;
        if !self.exacts.contains_key(&b.key) {
            let (e, s) = exact_value(b, self.budget, args, observer, stop)?;
            observer.solved(&e);
            self.exact_csv.append(&e)?;
            self.exacts.insert(b.key.clone(), e);
            solver = s;
        }
        let exact = &self.exacts[&b.key];
        let wants_perfect = left.iter().any(|&i| self.ladder.board_perfect[i]);
        if solver.is_none() && exact.is_solved() && wants_perfect {
            // Resumed: the value is known but the table is gone; solve
            // again for `perfect` (it fitted the budget before), and check
            // the saved value before any cell of the board is played.
            let (again, s) = exact_value(b, self.budget, args, observer, stop)?;
            self.check_again(b, exact, &again)?;
            solver = s;
        }
        Ok(solver)
    }

    /// Refuses a saved exact value of board `b` that the solver, solving
    /// `again`, does not find.
    fn check_again(&self, b: &Board, exact: &Exact, again: &Exact) -> Result<()> {
        let answer = |e: &Exact| (e.value, e.move_values.clone(), e.best_moves.clone());
        if again.is_solved() && answer(again) != answer(exact) {
            return Err(AnalysisError::Damaged {
                path: self.exact_path.clone(),
                why: format!(
                    "board {}: the saved value {} ('{}') is not the solver's {} ('{}'); \
                     remove the board's rows, or the folder, and rerun",
                    b.key,
                    value_in_words(exact.value),
                    exact.move_values,
                    value_in_words(again.value),
                    again.move_values
                ),
            });
        }
        Ok(())
    }

    /// Who plays agent `i`'s cell on board `b`; `None` (the cell skipped
    /// and counted as done) for plain `perfect` without a `solver`.
    fn cell_agent<'s>(
        &mut self,
        b: &Board,
        i: usize,
        solver: &'s Option<BoardSolver>,
    ) -> Option<CellAgent<'s>>
    where
        Self: 's,
    {
        let ladder = self.ladder;
        if !ladder.board_perfect[i] {
            return Some(CellAgent::Spec(&ladder.agents[i]));
        }
        match solver {
            Some(s) if self.exacts[&b.key].is_solved() => Some(CellAgent::Solved(s)),
            _ => {
                self.skipped_perfect.push(b.key.clone());
                self.position += self.args.games;
                self.observer.skipped_to(self.position);
                None
            }
        }
    }

    /// Plays agent `i`'s cell on board `b` and writes its row; `false`
    /// when stopped (nothing written).
    fn play(&mut self, b: &Board, i: usize, agent: CellAgent<'_>) -> Result<bool> {
        let (args, observer, stop) = (self.args, self.observer, self.stop);
        let name = &self.ladder.names[i];
        let seed = derive_seed(args.seed, cell_seed(&b.key, name));
        let t0 = Instant::now();
        let cell = Cell {
            spec: &b.key,
            name,
            agent,
            games: args.games,
            seed,
        };
        let played =
            with_game!(&b.spec, game => play_cell(game, &cell, args.threads, observer, stop))?;
        let Some(records) = played else {
            return Ok(false);
        };
        self.position += args.games;
        let row = summarise(
            b,
            self.game_name,
            name,
            &self.exacts[&b.key],
            &records,
            seed,
            t0.elapsed().as_secs_f64(),
        )?;
        self.csv.append(&row)?;
        self.rows.push(row);
        Ok(true)
    }
}

/// The agents of `--agents` (the default ladder when none is given),
/// each once.
fn ladder(texts: &[String]) -> Result<Vec<AnyAgentSpec>> {
    let texts: Vec<String> = if texts.is_empty() {
        DEFAULT_LADDER.iter().map(|s| s.to_string()).collect()
    } else {
        texts.to_vec()
    };
    let mut agents: Vec<AnyAgentSpec> = Vec::new();
    for text in &texts {
        let a =
            AnyAgentSpec::parse(text).map_err(|e| bad_input(format!("--agents '{text}': {e}")))?;
        if agents.iter().any(|b| b.to_string() == a.to_string()) {
            return Err(bad_input(format!("--agents: '{a}' is listed twice")));
        }
        agents.push(a);
    }
    Ok(agents)
}

/// Which agent (by index) can play which board (by key), and the notes
/// on those that cannot: `perfect` knows Kalah and single-round Congkak
/// only (boards, not games: a grid of Congkak may hold both single and
/// multi-round rule sets). Any other agent that cannot play a board is
/// the user's error.
#[allow(clippy::type_complexity)]
fn playable_cells<'b>(
    boards: &'b [Board],
    agents: &[AnyAgentSpec],
) -> Result<(HashMap<(usize, &'b str), bool>, BTreeSet<String>)> {
    let mut playable = HashMap::new();
    let mut unplayable = BTreeSet::new();
    for b in boards {
        for (i, a) in agents.iter().enumerate() {
            let ok = with_game!(&b.spec, game => match a.check(game) {
                Ok(()) => true,
                Err(_) if matches!(a, AnyAgentSpec::Perfect(_)) => false,
                Err(e) => return Err(bad_input(format!("--agents '{a}': {e}"))),
            });
            if !ok {
                unplayable.insert(format!("{a} on {}", game_label(&b.spec)));
            }
            playable.insert((i, b.key.as_str()), ok);
        }
    }
    Ok((playable, unplayable))
}

/// Sorts `rows` board by board and agent by agent, as the grid lists
/// them, whatever order earlier runs wrote them in.
fn sort_in_grid_order(rows: &mut [Row], boards: &[Board], names: &[String]) {
    let per_board = names.len();
    let order: HashMap<(&str, &str), usize> = boards
        .iter()
        .enumerate()
        .flat_map(|(bi, b)| {
            names
                .iter()
                .enumerate()
                .map(move |(ai, a)| ((b.key.as_str(), a.as_str()), bi * per_board + ai))
        })
        .collect();
    rows.sort_by_key(|r| {
        order
            .get(&(r.spec.as_str(), r.agent.as_str()))
            .copied()
            .unwrap_or(usize::MAX)
    });
}

/// The game of a board, as the note on agents left out names it.
fn game_label(spec: &GameSpec) -> &'static str {
    match spec {
        GameSpec::Kalah(_) => "kalah",
        GameSpec::Oware(_) => "oware",
        GameSpec::Congkak(r) if r.rounds == mancala_core::Rounds::Many => "congkak:rounds=many",
        GameSpec::Congkak(_) => "congkak",
    }
}

/// One board of `first_move.json`: its exact value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BoardRecord {
    /// The board's game spec.
    pub spec: String,
    /// Pits per row.
    pub pits: usize,
    /// Seeds per pit.
    pub seeds: usize,
    /// The rule set's name.
    pub rules: String,
    /// `solved`, `over_budget`, `unavailable` or `skipped`.
    pub exact: String,
    /// The final margin for the first player with perfect play.
    pub value: Option<i32>,
    /// Every first move's value: `1:+2 2:+2 3:-4`.
    pub move_values: String,
    /// The first moves that keep the value.
    pub best_moves: String,
    /// Seconds the solver took.
    #[serde(with = "json_float::optional")]
    pub solve_seconds: Option<f64>,
    /// Positions it searched.
    pub solve_nodes: Option<u64>,
    /// Why there is no value, in words.
    pub note: String,
}

/// One board x agent cell of `first_move.json`: the first player's
/// results in self-play.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CellRecord {
    /// The game's name.
    pub game: String,
    /// Pits per row.
    pub pits: usize,
    /// Seeds per pit.
    pub seeds: usize,
    /// The rule set's name.
    pub rules: String,
    /// The board's game spec.
    pub spec: String,
    /// The agent in both seats.
    pub agent: String,
    /// Games played.
    pub games: u64,
    /// Distinct games among them (see [`Row::distinct_games`]).
    pub distinct_games: u64,
    /// The first player's wins, draws and losses.
    pub first_wdl: [u64; 3],
    /// The first player's score (0 to 1).
    #[serde(with = "json_float::optional")]
    pub first_score: Option<f64>,
    /// Its 95% interval.
    #[serde(with = "json_float::optional_pair")]
    pub first_score_95: [Option<f64>; 2],
    /// The first player's mean final margin.
    #[serde(with = "json_float::optional")]
    pub mean_margin: Option<f64>,
    /// Its 95% interval.
    #[serde(with = "json_float::optional_pair")]
    pub mean_margin_95: [Option<f64>; 2],
    /// Games lost by a forfeit.
    pub forfeits: u64,
    /// Mean moves per game.
    #[serde(with = "json_float::optional")]
    pub mean_plies: Option<f64>,
    /// The board's exact status.
    pub exact: String,
    /// The board's exact value.
    pub exact_value: Option<i32>,
    /// Every first move's exact value.
    pub move_values: String,
    /// The first moves that keep the value.
    pub best_moves: String,
    /// Seconds the solver took.
    #[serde(with = "json_float::optional")]
    pub solve_seconds: Option<f64>,
    /// Positions it searched.
    pub solve_nodes: Option<u64>,
    /// The cell's seed.
    pub seed: u64,
    /// Seconds the cell's games took.
    #[serde(with = "json_float::optional")]
    pub seconds: Option<f64>,
}

/// The options a first-move analysis's results were made with, as
/// `first_move_options.json` and `first_move.json` hold them: a rerun with
/// other options must not mix its rows with these.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptionsRecord {
    /// The game spec as given (without pits and seeds).
    pub game: String,
    /// The game's name.
    pub game_name: String,
    /// Every pit count of the grid.
    pub pits: BTreeSet<usize>,
    /// Every seed count of the grid.
    pub seeds: BTreeSet<usize>,
    /// The rule sets, as given.
    pub rules: Vec<String>,
    /// The ladder, by canonical spec.
    pub agents: Vec<String>,
    /// Games per cell.
    pub games: u64,
    /// The analysis's seed.
    pub seed: u64,
    /// The solver's budget per board, as given.
    pub budget: String,
    /// The solver's table in MiB.
    pub tt: u64,
    /// The endgame database's seeds, when given.
    pub db_seeds: Option<usize>,
}

/// `first_move.json`: the options, the boards' exact values and the
/// cells' results. Written with its keys sorted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FirstMoveDocument {
    /// The options the results were made with.
    pub options: OptionsRecord,
    /// The boards whose exact value is known, in grid order.
    pub boards: Vec<BoardRecord>,
    /// Every finished cell, in grid order.
    pub rows: Vec<CellRecord>,
}

impl FirstMoveDocument {
    /// The document of `grid`.
    pub fn of(grid: &FirstMove) -> FirstMoveDocument {
        let boards = grid
            .known_boards()
            .map(|b| {
                let e = &grid.exacts[&b.key];
                BoardRecord {
                    spec: b.key.clone(),
                    pits: b.pits,
                    seeds: b.seeds,
                    rules: b.rules.clone(),
                    exact: e.status.clone(),
                    value: e.value,
                    move_values: e.move_values.clone(),
                    best_moves: e.best_moves.clone(),
                    solve_seconds: e.seconds,
                    solve_nodes: e.nodes,
                    note: e.note.clone(),
                }
            })
            .collect();
        let rows = grid
            .rows
            .iter()
            .map(|r| CellRecord {
                game: r.game.clone(),
                pits: r.pits,
                seeds: r.seeds,
                rules: r.rules.clone(),
                spec: r.spec.clone(),
                agent: r.agent.clone(),
                games: r.games,
                distinct_games: r.distinct_games,
                first_wdl: [r.first_wins, r.draws, r.first_losses],
                first_score: r.first_score,
                first_score_95: [r.score_lo, r.score_hi],
                mean_margin: r.mean_margin,
                mean_margin_95: [r.margin_lo, r.margin_hi],
                forfeits: r.forfeits,
                mean_plies: r.mean_plies,
                exact: r.exact.clone(),
                exact_value: r.exact_value,
                move_values: r.move_values.clone(),
                best_moves: r.best_moves.clone(),
                solve_seconds: r.solve_seconds,
                solve_nodes: r.solve_nodes,
                seed: r.seed,
                seconds: Some(r.seconds),
            })
            .collect();
        FirstMoveDocument {
            options: grid.options.clone(),
            boards,
            rows,
        }
    }

    /// Reads `first_move.json` at `path`.
    ///
    /// # Errors
    /// [`AnalysisError::Io`] when it cannot be read, [`AnalysisError::Damaged`]
    /// when it is not such a document.
    pub fn load(path: &Path) -> Result<FirstMoveDocument> {
        let text = fs::read_to_string(path).map_err(io_error("read", path))?;
        serde_json::from_str(&text).map_err(|e| AnalysisError::Damaged {
            path: path.to_path_buf(),
            why: format!("not a first-move analysis: {e}"),
        })
    }
}

/// Writes `first_move.json` for `grid` into `out`. Its keys are sorted (the
/// document goes through a JSON value), as they always were.
fn write_json(out: &Path, grid: &FirstMove) -> Result<()> {
    let doc = FirstMoveDocument::of(grid);
    let value = serde_json::to_value(&doc).expect("the document serialises");
    let path = out.join(JSON_NAME);
    let text = serde_json::to_string_pretty(&value).expect("JSON values print") + "\n";
    fs::write(&path, text).map_err(io_error("write", &path))
}

/// `v [lo, hi]` with `digits` decimals (signed when `sign`), `-` for none.
fn fmt_interval(
    v: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    digits: usize,
    sign: bool,
) -> String {
    let f = |x: f64| {
        if x.is_infinite() {
            if x > 0.0 {
                "inf".into()
            } else {
                "-inf".into()
            }
        } else if sign {
            format!("{x:+.digits$}")
        } else {
            format!("{x:.digits$}")
        }
    };
    match v {
        None => "-".into(),
        Some(v) => match (lo, hi) {
            (Some(lo), Some(hi)) => format!("{} [{}, {}]", f(v), f(lo), f(hi)),
            _ => f(v),
        },
    }
}

/// The grid's results as a markdown table: a line per cell, with the
/// board's exact value beside the first player's results, and the cell's
/// distinct games beside its games (1 of many: one game repeated, which is
/// why that cell has no interval).
pub fn markdown_table(grid: &FirstMove) -> String {
    use std::fmt::Write;
    let boards: Vec<&Board> = grid.known_boards().collect();
    let (exacts, rows) = (&grid.exacts, &grid.rows);
    let mut out = String::new();
    out.push_str("| board | rules | exact value | agent | games | distinct | first W/D/L | first score [95%] | mean margin [95%] |\n");
    out.push_str("|---|---|---|---|---:|---:|---|---|---|\n");
    for b in boards {
        let e = &exacts[&b.key];
        let exact = match (e.value, e.status.as_str()) {
            (Some(v), _) => format!(
                "{v:+} (best: {})",
                if e.best_moves.is_empty() {
                    "-"
                } else {
                    &e.best_moves
                }
            ),
            (None, "over_budget") => "over budget".into(),
            (None, "unavailable") => "n/a (no solver)".into(),
            (None, "skipped") => "not solved".into(),
            (None, _) => "-".into(),
        };
        for r in rows.iter().filter(|r| r.spec == b.key) {
            let _ = writeln!(
                out,
                "| {}x{} | {} | {} | {} | {} | {} | {}/{}/{} | {} | {} |",
                b.pits,
                b.seeds,
                b.rules,
                exact,
                r.agent,
                r.games,
                r.distinct_games,
                r.first_wins,
                r.draws,
                r.first_losses,
                fmt_interval(r.first_score, r.score_lo, r.score_hi, 3, false),
                fmt_interval(r.mean_margin, r.margin_lo, r.margin_hi, 2, true),
            );
        }
    }
    out
}

/// An exact value as the messages write it (`+2`), not as Rust's debug
/// notation would (`Some(2)`).
fn value_in_words(value: Option<i32>) -> String {
    value.map_or_else(|| "unknown".into(), |v| format!("{v:+}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_is_the_default_or_the_agents_given_each_once() {
        let default = ladder(&[]).unwrap();
        let names: Vec<String> = default.iter().map(ToString::to_string).collect();
        assert_eq!(names, DEFAULT_LADDER);
        let given = ladder(&["greedy".into(), "minimax:depth=2".into()]).unwrap();
        assert_eq!(given.len(), 2);
        // The same agent written two ways is still listed twice.
        let e = ladder(&["minimax:depth=2".into(), " minimax:depth=2".into()]).unwrap_err();
        assert!(e.to_string().contains("listed twice"), "{e}");
        let e = ladder(&["nonsense".into()]).unwrap_err();
        assert!(e.to_string().contains("--agents 'nonsense'"), "{e}");
    }

    #[test]
    fn perfect_is_left_out_of_boards_it_cannot_solve_and_other_agents_must_play() {
        let grid = crate::grid::grid("congkak", "3", "2", "standard,rounds=many").unwrap();
        let agents = ladder(&["greedy".into(), "perfect".into()]).unwrap();
        let (playable, unplayable) = playable_cells(&grid.boards, &agents).unwrap();
        let [one, many] = [&grid.boards[0], &grid.boards[1]];
        assert!(!one.key.contains("rounds=many") && many.key.contains("rounds=many"));
        assert!(playable[&(0, one.key.as_str())] && playable[&(0, many.key.as_str())]);
        // `perfect` solves a single round only.
        assert!(playable[&(1, one.key.as_str())]);
        assert!(!playable[&(1, many.key.as_str())]);
        assert_eq!(
            unplayable.into_iter().collect::<Vec<_>>(),
            ["perfect on congkak:rounds=many"]
        );
        // Any other agent that cannot play a board is refused.
        let grid = crate::grid::grid("oware", "2", "2", "standard").unwrap();
        let agents = ladder(&["engine:cmd=/no/such/program".into()]).unwrap();
        let e = playable_cells(&grid.boards, &agents)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not found"), "{e}");
    }

    #[test]
    fn stable_hash_is_fnv1a() {
        assert_eq!(stable_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
