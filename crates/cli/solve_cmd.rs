//! `mancala solve`: the exact value of a position, every move's value and a
//! principal variation, with what it cost.

use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use mancala_core::{with_game, Game};
use mancala_solver::{ExactSolver, Profile, Solution, Solvable, SolveError, SolverOptions};
use serde_json::json;

use crate::bad_input;
use crate::game_cmds::{start_state, GameArgs};

/// Arguments of `mancala solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Threads (default: all cores): they search the tree together.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Transposition table size in MiB (default: Kalah and Congkak, what
    /// the board's positions can fill, from 16 to 1024; Oware: the most the
    /// table may grow to, 1024).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: Option<u64>,
    /// Seeds in the endgame database's fullest level, at most the board's
    /// (default: Kalah, the largest with at most 600 M positions, one byte
    /// each, and at most half the board's seeds; Congkak, at most 2^25
    /// positions and a quarter of its seeds; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Folder where endgame databases are kept between runs: loaded from
    /// there, or built and saved there the first time (default:
    /// $MANCALA_DB_DIR, else $XDG_CACHE_HOME/mancala/endgame, else
    /// ~/.cache/mancala/endgame).
    #[arg(long, value_name = "DIR")]
    db_dir: Option<std::path::PathBuf>,
    /// Build the endgame database in memory only, neither reading nor
    /// saving one.
    #[arg(long, conflicts_with = "db_dir")]
    no_db_cache: bool,
    /// Benchmark instead: solve each of these Kalah games from the start
    /// (specs separated by spaces; default: Kalah(6,4) under both capture
    /// rules), each from an empty table, check the published values, and
    /// print what it cost.
    #[arg(long, value_name = "GAME", num_args = 0.., conflicts_with = "position")]
    bench: Option<Vec<String>>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

impl SolveArgs {
    /// The solver's options for `rules` under these flags: those of
    /// `mancala analyze`, from the same cache folder.
    pub fn options<G: Solvable>(&self, rules: &G) -> Result<SolverOptions> {
        let dir = if self.no_db_cache {
            None
        } else {
            self.db_dir.clone().or_else(default_db_dir)
        };
        mancala_analysis::solver_options(
            rules,
            Profile::Solve,
            self.tt,
            self.db_seeds,
            dir.as_deref(),
        )
        .map_err(crate::analyze::cli_error)
    }

    /// Threads asked for (default: all cores).
    pub fn threads(&self) -> usize {
        crate::threads(self.threads, usize::MAX)
    }

    /// Whether to print JSON.
    pub fn json(&self) -> bool {
        self.json
    }
}

/// Where endgame databases are kept when `--db-dir` is not given (the
/// solver library's policy, shared by every front end).
pub fn default_db_dir() -> Option<std::path::PathBuf> {
    mancala_solver::endgame::default_dir()
}

/// What the user should know about the database before a long build
/// on `threads` threads: whether it is built now (and about how long that
/// takes), and where it is kept.
pub fn database_note<G: Solvable>(
    rules: &G,
    options: &SolverOptions,
    threads: usize,
) -> Option<String> {
    rules
        .database_plan(options)
        .map(|plan| plan.describe(threads))
}

/// Builds the solver for `rules`, its database on `threads` threads,
/// turning what can go wrong into the user's error with a hint. A database
/// built but not saved is only warned about: the solve goes on with it.
pub fn build_solver<G: Solvable>(
    rules: &G,
    options: &SolverOptions,
    threads: usize,
) -> Result<Arc<dyn ExactSolver<G>>> {
    let solver =
        mancala_solver::build_solver(rules, options, Some(threads)).map_err(solver_error)?;
    if let Some(e) = solver.endgame_not_saved() {
        eprintln!("warning: {}", not_saved_warning(e));
    }
    Ok(solver)
}

/// What to say of a database built but not saved: why, that the solve goes
/// on, and how not to try next time.
pub fn not_saved_warning(e: &mancala_solver::EndgameError) -> String {
    format!(
        "the endgame database was not saved for the next run: {e}; solving on with it in \
         memory (--no-db-cache builds it in memory without trying to save it, --db-dir DIR \
         keeps it elsewhere)"
    )
}

/// A solver's refusal as the user's error: a smaller table or database
/// suggested when the memory could not be had, rules no solver takes named
/// as `--game`'s fault, database seeds as `--db-seeds`'.
pub fn solver_error(e: SolveError) -> anyhow::Error {
    match e {
        e if e.is_out_of_memory() => bad_input(format!("{e} (try a smaller --tt or --db-seeds)")),
        e @ (SolveError::MultiRound { .. } | SolveError::TooLarge { .. }) => {
            bad_input(format!("--game: {e}"))
        }
        e @ (SolveError::NoDatabase { .. } | SolveError::DatabaseTooLarge { .. }) => {
            bad_input(format!("--db-seeds: {e}"))
        }
        e => bad_input(e),
    }
}

/// `mancala solve`.
pub fn run(args: &SolveArgs) -> Result<()> {
    if let Some(games) = &args.bench {
        return crate::solve_bench::run(args, games);
    }
    with_game!(&args.game.spec()?, rules => solve(args, rules))
}

/// `mancala solve` of any game: Kalah and single-round Congkak with their
/// endgame databases (see `docs/congkak-solver.md`), small Oware boards
/// exactly, repetitions included (see `docs/oware-solver.md`). Rules no
/// solver takes (multi-round Congkak, a big Oware board) are refused,
/// saying why.
fn solve<G: Solvable>(args: &SolveArgs, rules: &G) -> Result<()> {
    rules.check_solvable().map_err(solver_error)?;
    // An Oware position carries no history (RULES.md), so `--position`
    // starts a game there: repetitions and `max_plies` count from it.
    let state = unfinished(rules, args)?;
    let options = args.options(rules)?;
    // Oware's table grows as it fills: its size is its use.
    let growing_table = rules.check_store_free().is_err();
    announce(args, rules, &options, growing_table);
    let solver = build_solver(rules, &options, args.threads())?;
    run_with(args, rules, &state, solver.as_ref(), growing_table)
}

/// The position to solve: the start or `--position`, refused when over.
fn unfinished<G: Game>(rules: &G, args: &SolveArgs) -> Result<G::State> {
    let state = start_state(rules, args.game.position.as_deref())?;
    if rules.is_over(&state) {
        return Err(bad_input(
            "--position: the game is over; there is nothing to solve",
        ));
    }
    Ok(state)
}

/// Says, unless printing JSON, what is solved with what.
fn announce<G: Solvable>(
    args: &SolveArgs,
    rules: &G,
    options: &SolverOptions,
    growing_table: bool,
) {
    if args.json {
        return;
    }
    if growing_table {
        eprintln!(
            "solving {rules} exactly (repetitions included) on {} threads...",
            args.threads()
        );
        return;
    }
    eprintln!(
        "solving {rules} with a {} MiB table and {} on {} threads...",
        options.table_mib,
        match options.endgame_seeds {
            0 => "no endgame database".to_string(),
            k => format!("an endgame database of up to {k} seeds"),
        },
        args.threads()
    );
    if let Some(note) = database_note(rules, options, args.threads()) {
        eprintln!("{note}");
    }
}

/// Solves `state` with `solver`, whichever game's, and prints the result;
/// `growing_table` as for [`print_solution`].
fn run_with<G: Game>(
    args: &SolveArgs,
    rules: &G,
    state: &G::State,
    solver: &dyn ExactSolver<G>,
    growing_table: bool,
) -> Result<()> {
    let until = mancala_agents::StopCondition {
        deadline: None,
        cancel: Some(crate::stop_flag()),
        clock: None,
    };
    let solution = match solver.solve_until(state, args.threads(), until) {
        Ok(s) => s,
        Err(SolveError::Stopped) => return Err(anyhow::Error::new(crate::Interrupted)),
        Err(e @ SolveError::PlyLimit { .. }) => return Err(bad_input(e)),
        Err(e) => return Err(e.into()),
    };
    report(
        args,
        rules,
        &rules.setup(state).to_string(),
        &solution,
        growing_table,
    );
    Ok(())
}

/// Prints a solution as `--json` or text asks.
fn report(
    args: &SolveArgs,
    rules: &dyn std::fmt::Display,
    position: &str,
    solution: &Solution,
    growing_table: bool,
) {
    if args.json {
        let out = json!({
            "game": rules.to_string(),
            "position": position,
            "solution": solution,
        });
        println!("{out}");
    } else {
        print_solution(rules, position, solution, growing_table);
    }
}

/// Prints a solution; `growing_table`: the table is Oware's, which grows
/// as it fills (its size is its use), not Kalah's fixed one.
fn print_solution(
    rules: &dyn std::fmt::Display,
    position: &str,
    s: &Solution,
    growing_table: bool,
) {
    println!("{rules}, position {position}");
    println!(
        "value: {:+} for player {} (to move): the final margin with perfect play",
        s.value,
        s.mover.index()
    );
    let moves: Vec<String> = s
        .moves
        .iter()
        .map(|m| format!("{}: {:+}", m.mv, m.value))
        .collect();
    println!("moves: {}", moves.join("  "));
    let pv: Vec<String> = s.pv.iter().map(ToString::to_string).collect();
    println!("principal variation: {}", pv.join(" "));
    let st = &s.stats;
    if growing_table {
        // The Oware table grows as it fills: its size is its use.
        println!(
            "cost: {} nodes in {:.2} s ({:.2} M nodes/s); table {} positions",
            st.nodes,
            st.seconds,
            st.nodes as f64 / st.seconds.max(1e-9) / 1e6,
            st.table_entries
        );
    } else {
        println!(
            "cost: {} nodes in {:.2} s ({:.2} M nodes/s); table {} MiB, {:.1}% full",
            st.nodes,
            st.seconds,
            st.nodes as f64 / st.seconds.max(1e-9) / 1e6,
            st.table_bytes >> 20,
            100.0 * st.table_entries as f64
                / (st.table_bytes / mancala_solver::table::SLOT_BYTES).max(1) as f64
        );
    }
    if st.endgame_seeds > 0 {
        println!(
            "endgame database: up to {} seeds, {} positions, built in {:.2} s",
            st.endgame_seeds, st.endgame_positions, st.endgame_seconds
        );
    }
}
