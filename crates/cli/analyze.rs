//! `mancala analyze`: how large the first player's advantage is.
//!
//! - `analyze first-move`: over a grid of boards and rule sets, the exact
//!   value of the start and of every first move (where the solver finishes
//!   within a budget), and the first player's results when both seats are
//!   played by the same agent, for a ladder of agent strengths. Rows are
//!   appended as each board x rules x agent cell finishes, so a long grid
//!   can be stopped and resumed.
//! - `analyze fair`: starting positions one or two seeds away from the
//!   standard one whose perfect-play value is 0 (Neller's FairKalah idea),
//!   in the `fair` submodule.
//! - `analyze exact-positions` and `analyze accuracy`: a set of positions
//!   from real games with every move's exact value, and how close agents
//!   come to perfect play on it, in the `exact` submodule.
//!
//! See `docs/analysis.md`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use mancala_agents::{derive_seed, format_duration, parse_duration, StopCondition};
use mancala_arena::stats::json_float::to_value;
use mancala_arena::stats::{mean_with_ci, wilson_interval, Wdl, Z95};
use mancala_arena::{schedule, Arena, GameRecord, Players, RunOptions};
use mancala_core::spec::Spec;
use mancala_core::{with_game, CongkakRules, Game, GameSpec, KalahRules, OwareRules};
use mancala_solver::congkak::CongkakSolver;
use mancala_solver::oware::{OwareSolver, DEFAULT_TABLE_MIB as OWARE_TABLE_MIB};
use mancala_solver::{Perfect, PerfectSpec, Solution, SolveError, Solver, SolverOptions};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

mod exact;
mod fair;

use crate::agents::AnyAgentSpec;
use crate::progress::Progress;
use crate::svg;
use crate::{bad_input, Interrupted};

/// Arguments of `mancala analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(subcommand)]
    command: AnalyzeCommand,
}

#[derive(Subcommand, Debug)]
enum AnalyzeCommand {
    /// The first player's advantage over a grid of boards and rules: exact
    /// values where the solver finishes, and self-play results for a ladder
    /// of agents. Resumable: rerun the same command to finish it.
    FirstMove(FirstMoveArgs),
    /// Fair starting positions: one or two seeds moved from the standard
    /// start, with a perfect-play value of 0 (FairKalah).
    Fair(fair::FairArgs),
    /// A yardstick: positions from real Kalah games with the exact value of
    /// every move, written as JSON for `analyze accuracy` and training.
    ExactPositions(exact::ExactPositionsArgs),
    /// How close agents come to perfect play on a set of exact positions:
    /// how often they choose a best move, and the margin they give away.
    Accuracy(exact::AccuracyArgs),
}

/// `mancala analyze`.
pub fn run(args: &AnalyzeArgs) -> Result<()> {
    match &args.command {
        AnalyzeCommand::FirstMove(a) => first_move(a),
        AnalyzeCommand::Fair(a) => fair::run(a),
        AnalyzeCommand::ExactPositions(a) => exact::exact_positions(a),
        AnalyzeCommand::Accuracy(a) => exact::accuracy(a),
    }
}

/// The ladder when `--agents` is not given: weakest first.
const DEFAULT_LADDER: &[&str] = &[
    "random",
    "greedy",
    "minimax:depth=2",
    "minimax:depth=4",
    "minimax:depth=6",
    "mcts:sims=100",
    "mcts:sims=1000",
    "perfect",
];

/// Most boards (pits x seeds x rule sets) a grid may have.
const MAX_BOARDS: usize = 10_000;

/// Arguments of `mancala analyze first-move`.
#[derive(Args, Debug)]
pub struct FirstMoveArgs {
    /// Game: kalah, oware or congkak, optionally with options kept on every
    /// board (kalah:leftover=set_aside); pits and seeds come from
    /// --pits/--seeds.
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Pits per row: a number, a range with both ends included (3..6) or a
    /// comma-separated list of those (3,5..6).
    #[arg(long, default_value = "3..6")]
    pits: String,
    /// Seeds per pit at the start, written like --pits.
    #[arg(long, default_value = "1..6")]
    seeds: String,
    /// Rule sets, comma-separated: standard, empty_capture, pie, delayed,
    /// set_aside, or game options joined with + (empty_capture+pie,
    /// grand_slam=illegal).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The agent ladder, weakest first, as separate values (default:
    /// random greedy minimax:depth=2 minimax:depth=4 minimax:depth=6
    /// mcts:sims=100 mcts:sims=1000 perfect). `perfect` plays only on
    /// boards the solver finished.
    #[arg(long, num_args = 1.., value_name = "SPEC")]
    agents: Vec<String>,
    /// Games per board x rules x agent cell (self-play from the start).
    #[arg(long, short = 'n', default_value_t = 100)]
    games: u64,
    /// Seed of the whole analysis: each cell's games get their own stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Time the solver may spend on each board, e.g. 10s or 2m; 0 skips
    /// exact values. The endgame database's build is not counted.
    #[arg(long, default_value = "10s")]
    budget: String,
    /// Solver transposition table size in MiB (one table per board).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the solver's endgame database's fullest level (default:
    /// as `mancala solve`, kept in the same cache folder; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Output folder: first_move.csv, first_move.json, SVG charts.
    #[arg(long, default_value = "results/first-move")]
    out: PathBuf,
}

/// One row of `first_move.csv`: a board, a rule set and an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    game: String,
    pits: usize,
    seeds: usize,
    rules: String,
    spec: String,
    agent: String,
    games: u64,
    first_wins: u64,
    draws: u64,
    first_losses: u64,
    first_score: Option<f64>,
    score_lo: Option<f64>,
    score_hi: Option<f64>,
    mean_margin: Option<f64>,
    margin_lo: Option<f64>,
    margin_hi: Option<f64>,
    forfeits: u64,
    mean_plies: Option<f64>,
    exact: String,
    exact_value: Option<i32>,
    move_values: String,
    best_moves: String,
    solve_seconds: Option<f64>,
    solve_nodes: Option<u64>,
    seed: u64,
    seconds: f64,
}

/// What is known exactly about one board's start: one row of
/// `first_move_exact.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Exact {
    spec: String,
    /// `solved`, `over_budget`, `unavailable` (no solver for this game) or
    /// `skipped` (`--budget 0`).
    status: String,
    value: Option<i32>,
    /// Every first move and its value: `1:+2 2:+2 3:-4`.
    move_values: String,
    /// The first moves that keep the value.
    best_moves: String,
    seconds: Option<f64>,
    nodes: Option<u64>,
    /// Why there is no value, in words.
    note: String,
}

impl Exact {
    fn none(spec: &str, status: &str, note: &str) -> Exact {
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
    fn solved(spec: &str, s: &Solution) -> Exact {
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

    fn over_budget(spec: &str, budget: Duration) -> Exact {
        Exact {
            seconds: Some(budget.as_secs_f64()),
            ..Exact::none(
                spec,
                "over_budget",
                &format!("not solved within {}", format_duration(budget)),
            )
        }
    }

    fn is_solved(&self) -> bool {
        self.status == "solved"
    }
}

/// One board of the grid.
#[derive(Clone, Debug)]
struct Board {
    pits: usize,
    seeds: usize,
    /// The rule set's name as given.
    rules: String,
    spec: GameSpec,
    /// `spec` as text: the board's key.
    key: String,
}

/// Reads `3`, `3..6`, `3..=6` or a comma-separated list of them; every
/// value from 1 to `max`.
fn parse_numbers(flag: &str, text: &str, max: usize) -> Result<Vec<usize>> {
    let bad = |why: String| bad_input(format!("{flag} '{}': {why}", text.trim()));
    let number = |t: &str| -> Result<usize> {
        match t.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(bad(format!(
                "'{}' is not a whole number from 1 to {max}",
                t.trim()
            ))),
        }
    };
    let mut out = BTreeSet::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad("an entry is empty (write 3..6 or 3,4,5)".into()));
        }
        if let Some((a, b)) = part.split_once("..") {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(bad(format!("the range {a}..{b} is empty (write {b}..{a})")));
            }
            out.extend(a..=b);
        } else {
            out.insert(number(part)?);
        }
    }
    Ok(out.into_iter().collect())
}

/// The options a named rule set stands for.
fn rule_options(name: &str) -> Result<Vec<String>> {
    let mut opts = Vec::new();
    for part in name.split('+') {
        let part = part.trim();
        match part {
            "standard" if name.trim() == "standard" => {}
            "standard" => {
                return Err(bad_input(format!(
                    "--rules '{name}': 'standard' means no options and cannot be combined"
                )))
            }
            "empty_capture" => opts.push("empty_capture=true".into()),
            "pie" => opts.push("pie=true".into()),
            "delayed" => opts.push("game_end=delayed".into()),
            "set_aside" => opts.push("leftover=set_aside".into()),
            p if p.contains('=') && !p.contains(',') && !p.contains(':') => opts.push(p.into()),
            p => {
                return Err(bad_input(format!(
                    "--rules: unknown rule set '{p}' (accepted: standard, empty_capture, pie, \
                     delayed, set_aside, or game options such as empty_capture=true, joined with +)"
                )))
            }
        }
    }
    Ok(opts)
}

/// The grid's boards, checked: every spec parses, in a fixed order (rule
/// set, then pits, then seeds).
fn boards(args: &FirstMoveArgs) -> Result<(String, Vec<String>, Vec<Board>)> {
    let base = Spec::parse(&args.game).map_err(|e| bad_input(format!("--game: {e}")))?;
    if !mancala_core::spec::GAME_NAMES.contains(&base.name.as_str()) {
        return Err(bad_input(format!(
            "--game: unknown game '{}' (accepted: {})",
            base.name,
            mancala_core::spec::GAME_NAMES.join(", ")
        )));
    }
    if let Some((k, _)) = base
        .options
        .iter()
        .find(|(k, _)| k == "pits" || k == "seeds")
    {
        return Err(bad_input(format!(
            "--game: give {k} with --{k}, not in the game spec"
        )));
    }
    let pits = parse_numbers("--pits", &args.pits, mancala_core::MAX_PITS)?;
    let seeds = parse_numbers("--seeds", &args.seeds, mancala_core::MAX_SEEDS)?;
    let mut rule_sets: Vec<String> = Vec::new();
    for r in args.rules.split(',') {
        let r = r.trim();
        if r.is_empty() {
            return Err(bad_input("--rules: a rule set is empty"));
        }
        if rule_sets.iter().any(|x| x == r) {
            return Err(bad_input(format!("--rules: '{r}' is listed twice")));
        }
        rule_sets.push(r.to_string());
    }
    if rule_sets.len() * pits.len() * seeds.len() > MAX_BOARDS {
        return Err(bad_input(format!(
            "the grid has {} boards; at most {MAX_BOARDS} (use smaller ranges)",
            rule_sets.len() * pits.len() * seeds.len()
        )));
    }
    let base_opts: Vec<String> = base
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut out = Vec::new();
    for r in &rule_sets {
        let extra = rule_options(r)?;
        for &p in &pits {
            for &s in &seeds {
                let mut opts = vec![format!("pits={p}"), format!("seeds={s}")];
                opts.extend(base_opts.iter().cloned());
                opts.extend(extra.iter().cloned());
                let text = format!("{}:{}", base.name, opts.join(","));
                let spec = text.parse::<GameSpec>().map_err(|e| {
                    bad_input(format!(
                        "board pits={p}, seeds={s}, rules '{r}' ({text}): {e}"
                    ))
                })?;
                out.push(Board {
                    pits: p,
                    seeds: s,
                    rules: r.clone(),
                    key: spec.to_string(),
                    spec,
                });
            }
        }
    }
    Ok((base.name, rule_sets, out))
}

/// Parses `--budget`: `0` (no solving) or a duration.
fn parse_budget(text: &str) -> Result<Option<Duration>> {
    let t = text.trim();
    if t == "0" || t == "0s" || t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_duration("budget", t)
        .map(Some)
        .map_err(|e| bad_input(format!("--budget: {e}")))
}

/// `--db-seeds` within what the endgame database supports.
fn check_db_seeds(k: Option<usize>) -> Result<()> {
    match k {
        Some(k) if k > mancala_solver::endgame::MAX_DB_SEEDS => Err(bad_input(format!(
            "--db-seeds: at most {}",
            mancala_solver::endgame::MAX_DB_SEEDS
        ))),
        _ => Ok(()),
    }
}

/// The solver's options for `rules` under the user's flags.
fn solver_options(rules: &KalahRules, tt: u64, db_seeds: Option<usize>) -> Result<SolverOptions> {
    // The same databases as `mancala solve`, from the same cache folder: a
    // grid of boards with one pit count shares one database per rule set.
    let mut options = SolverOptions::for_rules(rules);
    options.table_mib = tt as usize;
    options.endgame_dir = crate::solve_cmd::default_db_dir();
    check_db_seeds(db_seeds)?;
    if let Some(k) = db_seeds {
        options.endgame_seeds = k;
    }
    options.endgame_seeds = options.endgame_seeds.min(rules.total_seeds());
    Ok(options)
}

/// The options that decide the results, as saved in the output folder: a
/// rerun with other values must not mix its rows with these.
fn options_record(
    game: &str,
    args: &FirstMoveArgs,
    boards: &[Board],
    rule_sets: &[String],
    agents: &[String],
) -> Value {
    let pits: BTreeSet<usize> = boards.iter().map(|b| b.pits).collect();
    let seeds: BTreeSet<usize> = boards.iter().map(|b| b.seeds).collect();
    json!({
        "game": args.game.trim(),
        "game_name": game,
        "pits": pits,
        "seeds": seeds,
        "rules": rule_sets,
        "agents": agents,
        "games": args.games,
        "seed": args.seed,
        "budget": args.budget.trim(),
        "tt": args.tt,
        "db_seeds": args.db_seeds,
    })
}

const CSV_NAME: &str = "first_move.csv";
const EXACT_NAME: &str = "first_move_exact.csv";
const OPTIONS_NAME: &str = "first_move_options.json";
const JSON_NAME: &str = "first_move.json";

/// Reads the rows of a CSV file written by this module.
fn read_csv<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, row) in reader.deserialize().enumerate() {
        out.push(row.map_err(|e| {
            anyhow::anyhow!(
                "{} is damaged at row {}: {e} (remove the row, or the folder, and rerun)",
                path.display(),
                i + 1
            )
        })?);
    }
    Ok(out)
}

/// Appends rows to a CSV file, writing the header when the file is new.
struct Appender {
    path: PathBuf,
}

impl Appender {
    fn append<T: Serialize>(&self, row: &T) -> Result<()> {
        let new = !self.path.exists() || fs::metadata(&self.path)?.len() == 0;
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        let mut w = csv::WriterBuilder::new().has_headers(new).from_writer(file);
        w.serialize(row)
            .and_then(|()| w.flush().map_err(Into::into))
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(())
    }
}

/// Checks that `out` holds nothing or the results of these same options;
/// returns the finished rows and exact values found there.
fn open_output(out: &Path, options: &Value) -> Result<(Vec<Row>, Vec<Exact>)> {
    fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let options_path = out.join(OPTIONS_NAME);
    let csv_path = out.join(CSV_NAME);
    if options_path.exists() {
        let text = fs::read_to_string(&options_path)
            .with_context(|| format!("cannot read {}", options_path.display()))?;
        let saved: Value = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{} is damaged: {e}", options_path.display()))?;
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
        let text = serde_json::to_string_pretty(options)? + "\n";
        fs::write(&options_path, text)
            .with_context(|| format!("cannot write {}", options_path.display()))?;
    }
    let rows = if csv_path.exists() {
        read_csv(&csv_path)?
    } else {
        Vec::new()
    };
    let exact_path = out.join(EXACT_NAME);
    let exact = if exact_path.exists() {
        read_csv(&exact_path)?
    } else {
        Vec::new()
    };
    Ok((rows, exact))
}

/// The solver that solved a board, its table warm: `perfect` plays from it.
enum BoardSolver {
    Kalah(Arc<Solver>),
    Congkak(Arc<CongkakSolver>),
}

/// The exact value of a board's start, for the games a solver knows, and
/// the solver that found it, if `perfect` can play from it.
fn exact_value(
    board: &Board,
    budget: Option<Duration>,
    args: &FirstMoveArgs,
    threads: usize,
) -> Result<(Exact, Option<BoardSolver>)> {
    let key = &board.key;
    let Some(budget) = budget else {
        return Ok((Exact::none(key, "skipped", "--budget 0: not solved"), None));
    };
    match &board.spec {
        GameSpec::Kalah(rules) => Ok(solve_kalah(key, rules, budget, args, threads)?),
        GameSpec::Oware(rules) => Ok((solve_oware(key, rules, budget, threads)?, None)),
        GameSpec::Congkak(rules) => solve_congkak(key, rules, budget, args.tt, threads),
    }
}

/// The exact value of a single-round Congkak board (see
/// docs/congkak-solver.md); multi-round play has no solver and is
/// `unavailable`, with the solver's reason as the note.
fn solve_congkak(
    key: &str,
    rules: &CongkakRules,
    budget: Duration,
    tt: u64,
    threads: usize,
) -> Result<(Exact, Option<BoardSolver>)> {
    let solver = match CongkakSolver::new(*rules, &SolverOptions::table(tt as usize)) {
        Ok(s) => s,
        Err(e @ SolveError::MultiRound { .. }) => {
            return Ok((Exact::none(key, "unavailable", &e.to_string()), None))
        }
        Err(e) => return Err(bad_input(format!("{e} (try a smaller --tt)"))),
    };
    let stop = crate::stop_flag();
    let until = StopCondition {
        deadline: Instant::now().checked_add(budget),
        cancel: Some(stop),
    };
    match solver.solve_until(&rules.start(), threads, until) {
        Ok(s) => Ok((
            Exact::solved(key, &s),
            Some(BoardSolver::Congkak(Arc::new(solver))),
        )),
        Err(SolveError::Stopped) if stop.load(Ordering::Relaxed) => {
            Err(anyhow::Error::new(Interrupted))
        }
        Err(SolveError::Stopped) => Ok((Exact::over_budget(key, budget), None)),
        Err(e) => Err(e.into()),
    }
}

/// The exact value of an Oware board, where the Oware solver takes it
/// (small boards: see docs/oware-solver.md). `perfect` does not play Oware.
fn solve_oware(key: &str, rules: &OwareRules, budget: Duration, threads: usize) -> Result<Exact> {
    let solver = match OwareSolver::new(*rules, &SolverOptions::table(OWARE_TABLE_MIB)) {
        Ok(s) => s,
        Err(e @ SolveError::TooLarge { .. }) => {
            return Ok(Exact::none(key, "unavailable", &e.to_string()))
        }
        Err(e) => return Err(e.into()),
    };
    let stop = crate::stop_flag();
    let until = StopCondition {
        deadline: Instant::now().checked_add(budget),
        cancel: Some(stop),
    };
    match solver.solve_until(&rules.start(), threads, until) {
        Ok(s) => Ok(Exact::solved(key, &s)),
        Err(SolveError::Stopped) if stop.load(Ordering::Relaxed) => {
            Err(anyhow::Error::new(Interrupted))
        }
        Err(SolveError::Stopped) => Ok(Exact::over_budget(key, budget)),
        Err(e @ SolveError::PlyLimit { .. }) => Ok(Exact::none(key, "unavailable", &e.to_string())),
        Err(e) => Err(e.into()),
    }
}

fn solve_kalah(
    key: &str,
    rules: &KalahRules,
    budget: Duration,
    args: &FirstMoveArgs,
    threads: usize,
) -> Result<(Exact, Option<BoardSolver>)> {
    let options = solver_options(rules, args.tt, args.db_seeds)?;
    let pool = crate::thread_pool(threads)?;
    let solver = pool
        .install(|| Solver::new(*rules, &options))
        .map_err(|e| bad_input(format!("{e} (try a smaller --tt or --db-seeds)")))?;
    let stop = crate::stop_flag();
    let until = StopCondition {
        deadline: Instant::now().checked_add(budget),
        cancel: Some(stop),
    };
    let start = rules.start();
    match solver.solve_until(&start, threads, until) {
        Ok(s) => Ok((
            Exact::solved(key, &s),
            Some(BoardSolver::Kalah(Arc::new(solver))),
        )),
        Err(SolveError::Stopped) if stop.load(Ordering::Relaxed) => {
            Err(anyhow::Error::new(Interrupted))
        }
        Err(SolveError::Stopped) => Ok((Exact::over_budget(key, budget), None)),
        Err(e) => Err(e.into()),
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
fn play_cell<G: Game>(
    game: &G,
    cell: &Cell<'_>,
    threads: Option<usize>,
    progress: &Progress,
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
            CellAgent::Solved(BoardSolver::Kalah(s)) => {
                Box::new(Perfect::<G>::from_solver(Arc::clone(s)))
            }
            CellAgent::Solved(BoardSolver::Congkak(s)) => {
                Box::new(Perfect::<G>::from_solver(Arc::clone(s)))
            }
        }),
    };
    let planned = schedule(&[[0, 0]], games as u32, 1);
    let arena = Arena {
        game,
        game_spec: spec.to_string(),
        players,
        openings: vec![Vec::new()],
        options: RunOptions {
            threads: crate::threads(threads, planned.len()),
            seed,
            move_timeout: None,
        },
    };
    let records = Mutex::new(Vec::new());
    arena.run(&planned, crate::stop_flag(), &|r: GameRecord| {
        progress.game_done(&r);
        records.lock().unwrap_or_else(|p| p.into_inner()).push(r);
    })?;
    let mut records = records.into_inner().unwrap_or_else(|p| p.into_inner());
    if records.len() < planned.len() {
        return Ok(None);
    }
    records.sort_by_key(|r| r.id);
    Ok(Some(records))
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
    let (lo, hi) = wilson_interval(first.points(), n, Z95);
    let margin = mean_with_ci(&margins);
    Ok(Row {
        game: game.to_string(),
        pits: board.pits,
        seeds: board.seeds,
        rules: board.rules.clone(),
        spec: board.key.clone(),
        agent: agent.to_string(),
        games: first.games(),
        first_wins: first.wins,
        draws: first.draws,
        first_losses: first.losses,
        first_score: first.score(),
        score_lo: (n > 0.0).then_some(lo),
        score_hi: (n > 0.0).then_some(hi),
        mean_margin: margin.and_then(|m| finite(m.mean)),
        margin_lo: margin.and_then(|m| finite(m.lo)),
        margin_hi: margin.and_then(|m| finite(m.hi)),
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

/// `mancala analyze first-move`.
fn first_move(args: &FirstMoveArgs) -> Result<()> {
    let most = mancala_arena::config::MAX_GAMES.min(u64::from(u32::MAX));
    if args.games == 0 || args.games > most {
        return Err(bad_input(format!(
            "--games must be between 1 and {most} (per cell)"
        )));
    }
    let budget = parse_budget(&args.budget)?;
    check_db_seeds(args.db_seeds)?;
    let (game_name, rule_sets, boards) = boards(args)?;
    let ladder: Vec<String> = if args.agents.is_empty() {
        DEFAULT_LADDER.iter().map(|s| s.to_string()).collect()
    } else {
        args.agents.clone()
    };
    let mut agents = Vec::new();
    for text in &ladder {
        let a =
            AnyAgentSpec::parse(text).map_err(|e| bad_input(format!("--agents '{text}': {e}")))?;
        if agents
            .iter()
            .any(|b: &AnyAgentSpec| b.to_string() == a.to_string())
        {
            return Err(bad_input(format!("--agents: '{a}' is listed twice")));
        }
        agents.push(a);
    }
    let names: Vec<String> = agents.iter().map(ToString::to_string).collect();
    // Plain `perfect` plays from the board's own solver (see CellAgent).
    let board_perfect: Vec<bool> = agents
        .iter()
        .map(|a| matches!(a, AnyAgentSpec::Perfect(p) if *p == PerfectSpec::default()))
        .collect();
    // Which agents can play which board: `perfect` knows Kalah and
    // single-round Congkak only (boards, not games: a grid of Congkak may
    // hold both single and multi-round rule sets).
    let mut playable: HashMap<(usize, &str), bool> = HashMap::new();
    let mut unplayable = BTreeSet::new();
    for b in &boards {
        for (i, a) in agents.iter().enumerate() {
            let ok = with_game!(&b.spec, game => match a.check(game) {
                Ok(()) => true,
                Err(_) if matches!(a, AnyAgentSpec::Perfect(_)) => false,
                Err(e) => return Err(bad_input(format!("--agents '{a}': {e}"))),
            });
            if !ok {
                unplayable.insert(format!("{} on {}", names[i], game_label(&b.spec)));
            }
            playable.insert((i, b.key.as_str()), ok);
        }
    }
    let options = options_record(&game_name, args, &boards, &rule_sets, &names);
    let (mut rows, exact_rows) = open_output(&args.out, &options)?;
    let mut exacts: BTreeMap<String, Exact> = exact_rows
        .into_iter()
        .map(|e| (e.spec.clone(), e))
        .collect();
    let done: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r.spec.clone(), r.agent.clone()))
        .collect();
    if !done.is_empty() {
        eprintln!(
            "resuming in {}: {} finished cells kept, {} boards' exact values known",
            args.out.display(),
            done.len(),
            exacts.len()
        );
    }
    let threads = crate::threads(args.threads, usize::MAX);
    let csv = Appender {
        path: args.out.join(CSV_NAME),
    };
    let exact_csv = Appender {
        path: args.out.join(EXACT_NAME),
    };

    // Board by board: the exact value (saved as soon as known), then the
    // cells still to play, one after another, each one's games in
    // parallel; a cell's row is written when its last game ends.
    let plan: Vec<(&Board, Vec<usize>)> = boards
        .iter()
        .map(|b| {
            let left = (0..agents.len())
                .filter(|&i| playable[&(i, b.key.as_str())])
                .filter(|&i| !done.contains(&(b.key.clone(), names[i].clone())))
                .collect();
            (b, left)
        })
        .collect();
    let total: u64 = plan.iter().map(|(_, l)| l.len() as u64).sum::<u64>() * args.games;
    let progress = Progress::new(total, false);
    let mut position = 0u64;
    let mut skipped_perfect = Vec::new();
    let mut interrupted = false;
    let log_to_terminal = std::io::stderr().is_terminal();
    'boards: for (b, left) in &plan {
        let mut solver = None;
        if !exacts.contains_key(&b.key) {
            let (e, s) = exact_value(b, budget, args, threads)?;
            // A log line per board where no progress bar is drawn (a
            // redirected standard error); on a terminal the bar would be
            // garbled by it, and the table at the end says the same.
            if !log_to_terminal {
                match e.value {
                    Some(v) => eprintln!(
                        "{}: exact value {v:+} in {:.2} s",
                        b.key,
                        e.seconds.unwrap_or(0.0)
                    ),
                    None => eprintln!("{}: {}", b.key, e.note),
                }
            }
            exact_csv.append(&e)?;
            exacts.insert(b.key.clone(), e);
            solver = s;
        }
        let exact = &exacts[&b.key];
        for &i in left {
            let agent = if board_perfect[i] {
                if !exact.is_solved() {
                    skipped_perfect.push(b.key.clone());
                    position += args.games;
                    progress.skip(position);
                    continue;
                }
                if solver.is_none() {
                    // Resumed: the value is known but the table is gone;
                    // solve again (it fitted the budget before).
                    solver = exact_value(b, budget, args, threads)?.1;
                }
                match &solver {
                    Some(s) => CellAgent::Solved(s),
                    None => {
                        skipped_perfect.push(b.key.clone());
                        position += args.games;
                        progress.skip(position);
                        continue;
                    }
                }
            } else {
                CellAgent::Spec(&agents[i])
            };
            let seed = derive_seed(args.seed, stable_hash(&format!("{}|{}", b.key, names[i])));
            let t0 = Instant::now();
            let cell = Cell {
                spec: &b.key,
                name: &names[i],
                agent,
                games: args.games,
                seed,
            };
            let played =
                with_game!(&b.spec, game => play_cell(game, &cell, args.threads, &progress))?;
            let Some(records) = played else {
                interrupted = true;
                break 'boards;
            };
            position += args.games;
            let row = summarise(
                b,
                &game_name,
                &names[i],
                exact,
                &records,
                seed,
                t0.elapsed().as_secs_f64(),
            )?;
            csv.append(&row)?;
            rows.push(row);
        }
    }
    progress.finish();

    // Rows in grid order, whatever order earlier runs wrote them in.
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
    let known: Vec<&Board> = boards
        .iter()
        .filter(|b| exacts.contains_key(&b.key))
        .collect();
    write_json(&args.out, &options, &known, &exacts, &rows)?;
    write_charts(
        &args.out, &game_name, &rule_sets, &known, &exacts, &rows, &names,
    )?;
    print_markdown(&known, &exacts, &rows);
    if !skipped_perfect.is_empty() {
        println!(
            "\n`perfect` plays only on solved boards: not on {} ({})",
            skipped_perfect.join(", "),
            if budget.is_some() {
                "not solved within --budget"
            } else {
                "--budget 0 solves nothing"
            }
        );
    }
    if !unplayable.is_empty() {
        println!(
            "\nLeft out: {} (perfect play needs a solver: Kalah and single-round Congkak \
             only).",
            unplayable.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    if boards.iter().any(|b| matches!(b.spec, GameSpec::Oware(_))) {
        println!(
            "\nOware exact values come from the Oware solver, which takes small boards only \
             (docs/oware-solver.md); larger boards have exact = unavailable."
        );
    }
    if boards
        .iter()
        .any(|b| matches!(b.spec, GameSpec::Congkak(_)))
    {
        println!(
            "\nCongkak exact values come from the Congkak solver, which plays a single round \
             only (docs/congkak-solver.md); rounds=many boards have exact = unavailable."
        );
    }
    eprintln!("results in {}", args.out.display());
    if interrupted {
        eprintln!("interrupted: rerun the same command to finish the grid");
        return Err(anyhow::Error::new(Interrupted));
    }
    Ok(())
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

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, to_value)
}

fn write_json(
    out: &Path,
    options: &Value,
    boards: &[&Board],
    exacts: &BTreeMap<String, Exact>,
    rows: &[Row],
) -> Result<()> {
    let board_list: Vec<Value> = boards
        .iter()
        .map(|b| {
            let e = &exacts[&b.key];
            json!({
                "spec": b.key, "pits": b.pits, "seeds": b.seeds, "rules": b.rules,
                "exact": e.status, "value": e.value, "move_values": e.move_values,
                "best_moves": e.best_moves, "solve_seconds": opt(e.seconds),
                "solve_nodes": e.nodes, "note": e.note,
            })
        })
        .collect();
    let row_list: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "game": r.game, "pits": r.pits, "seeds": r.seeds, "rules": r.rules,
                "spec": r.spec, "agent": r.agent, "games": r.games,
                "first_wdl": [r.first_wins, r.draws, r.first_losses],
                "first_score": opt(r.first_score),
                "first_score_95": [opt(r.score_lo), opt(r.score_hi)],
                "mean_margin": opt(r.mean_margin),
                "mean_margin_95": [opt(r.margin_lo), opt(r.margin_hi)],
                "forfeits": r.forfeits, "mean_plies": opt(r.mean_plies),
                "exact": r.exact, "exact_value": r.exact_value,
                "move_values": r.move_values, "best_moves": r.best_moves,
                "solve_seconds": opt(r.solve_seconds), "solve_nodes": r.solve_nodes,
                "seed": r.seed, "seconds": to_value(r.seconds),
            })
        })
        .collect();
    let doc = json!({ "options": options, "boards": board_list, "rows": row_list });
    let path = out.join(JSON_NAME);
    fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A file-name-safe form of a rule set's name.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn write_charts(
    out: &Path,
    game: &str,
    rule_sets: &[String],
    boards: &[&Board],
    exacts: &BTreeMap<String, Exact>,
    rows: &[Row],
    names: &[String],
) -> Result<()> {
    let write = |name: String, body: String| -> Result<()> {
        let path = out.join(name);
        fs::write(&path, body).with_context(|| format!("cannot write {}", path.display()))
    };
    for b in boards {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.spec == b.key).collect();
        if mine.is_empty() {
            continue;
        }
        let e = &exacts[&b.key];
        let find = |a: &String| mine.iter().find(|r| &r.agent == a);
        let mut score_refs = vec![svg::Reference {
            y: 0.5,
            label: "even".into(),
            strong: false,
        }];
        let mut margin_refs = vec![svg::Reference {
            y: 0.0,
            label: "even".into(),
            strong: false,
        }];
        if let Some(v) = e.value {
            let outcome = match v.signum() {
                1 => 1.0,
                0 => 0.5,
                _ => 0.0,
            };
            score_refs.push(svg::Reference {
                y: outcome,
                label: "perfect play".into(),
                strong: true,
            });
            margin_refs.push(svg::Reference {
                y: f64::from(v),
                label: format!("exact {v:+}"),
                strong: true,
            });
        }
        let est = |v: Option<f64>, lo: Option<f64>, hi: Option<f64>| {
            v.map(|value| svg::Estimate {
                value,
                lo: lo.unwrap_or(f64::NEG_INFINITY),
                hi: hi.unwrap_or(f64::INFINITY),
            })
        };
        let exact_text = match e.value {
            Some(v) => format!("the exact value is {v:+}"),
            None => format!("no exact value ({})", e.note),
        };
        let chart = svg::LadderChart {
            title: format!("First-player advantage by skill: {}", b.key),
            desc: format!(
                "First player's score and mean final margin, with 95% intervals, when both \
                 seats are played by the same agent, for agents from weakest to strongest \
                 ({}); {exact_text}.",
                names.join(", ")
            ),
            x_label: "agent (both seats), weakest to strongest".into(),
            categories: names.to_vec(),
            panels: vec![
                svg::Panel {
                    y_label: "first player's score (0 to 1)".into(),
                    y_range: (0.0, 1.0),
                    points: names
                        .iter()
                        .map(|a| find(a).and_then(|r| est(r.first_score, r.score_lo, r.score_hi)))
                        .collect(),
                    references: score_refs,
                },
                svg::Panel {
                    y_label: "first player's margin (seeds)".into(),
                    y_range: (0.0, 0.0),
                    points: names
                        .iter()
                        .map(|a| find(a).and_then(|r| est(r.mean_margin, r.margin_lo, r.margin_hi)))
                        .collect(),
                    references: margin_refs,
                },
            ],
        };
        write(
            format!(
                "skill_{game}_p{}_s{}_{}.svg",
                b.pits,
                b.seeds,
                slug(&b.rules)
            ),
            svg::ladder_chart(&chart),
        )?;
    }
    for r in rule_sets {
        let mine: Vec<&Board> = boards.iter().copied().filter(|b| &b.rules == r).collect();
        let pits: BTreeSet<usize> = mine.iter().map(|b| b.pits).collect();
        let seeds: BTreeSet<usize> = mine.iter().map(|b| b.seeds).collect();
        let cells = pits
            .iter()
            .map(|&p| {
                seeds
                    .iter()
                    .map(|&s| {
                        let e = mine
                            .iter()
                            .find(|b| b.pits == p && b.seeds == s)
                            .map(|b| &exacts[&b.key]);
                        match e.and_then(|e| e.value) {
                            Some(v) => svg::Cell {
                                value: Some(f64::from(v)),
                                label: if v == 0 { "0".into() } else { format!("{v:+}") },
                            },
                            None => svg::Cell {
                                value: None,
                                label: match e.map(|e| e.status.as_str()) {
                                    Some("over_budget") => "?".into(),
                                    _ => "n/a".into(),
                                },
                            },
                        }
                    })
                    .collect()
            })
            .collect();
        let map = svg::HeatMap {
            title: format!("Exact value of the start: {game}, rules {r}"),
            desc: format!(
                "Final margin for the first player with perfect play, in seeds, for each \
                 board of {game} under rules {r}: rows are pits per side, columns seeds per \
                 pit. Positive favours the first player. ? marks a board not solved within \
                 the budget; n/a, one with no solver."
            ),
            x_label: "seeds per pit".into(),
            y_label: "pits per side".into(),
            columns: seeds.iter().map(ToString::to_string).collect(),
            rows: pits.iter().map(ToString::to_string).collect(),
            cells,
            note: "blue: first player wins; red: second player wins; ? not solved in budget".into(),
        };
        write(format!("exact_{game}_{}.svg", slug(r)), svg::heat_map(&map))?;
    }
    Ok(())
}

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

fn print_markdown(boards: &[&Board], exacts: &BTreeMap<String, Exact>, rows: &[Row]) {
    println!("| board | rules | exact value | agent | games | first W/D/L | first score [95%] | mean margin [95%] |");
    println!("|---|---|---|---|---:|---|---|---|");
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
            println!(
                "| {}x{} | {} | {} | {} | {} | {}/{}/{} | {} | {} |",
                b.pits,
                b.seeds,
                b.rules,
                exact,
                r.agent,
                r.games,
                r.first_wins,
                r.draws,
                r.first_losses,
                fmt_interval(r.first_score, r.score_lo, r.score_hi, 3, false),
                fmt_interval(r.mean_margin, r.margin_lo, r.margin_hi, 2, true),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lists_and_ranges() {
        assert_eq!(parse_numbers("--pits", "3..6", 15).unwrap(), [3, 4, 5, 6]);
        assert_eq!(
            parse_numbers("--pits", "2, 5..=6,2", 15).unwrap(),
            [2, 5, 6]
        );
        for bad in ["0..3", "6..3", "", "3..", "x", "1..16", "3,,4"] {
            assert!(parse_numbers("--pits", bad, 15).is_err(), "{bad}");
        }
    }

    #[test]
    fn rule_set_names() {
        assert!(rule_options("standard").unwrap().is_empty());
        assert_eq!(
            rule_options("empty_capture+pie").unwrap(),
            ["empty_capture=true", "pie=true"]
        );
        assert!(rule_options("standard+pie").is_err());
        assert!(rule_options("nonsense").is_err());
    }

    #[test]
    fn stable_hash_is_fnv1a() {
        assert_eq!(stable_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
