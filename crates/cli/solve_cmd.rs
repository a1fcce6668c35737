//! `mancala solve`: the exact value of a position, every move's value and a
//! principal variation, with what it cost.

use anyhow::Result;
use clap::Args;
use mancala_core::{Game, GameSpec, KalahRules};
use mancala_solver::{Solution, SolveError, Solver, SolverOptions, DEFAULT_TABLE_MIB};
use serde_json::json;

use crate::bad_input;
use crate::game_cmds::{start_state, GameArgs};

/// Arguments of `mancala solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Threads (default: all cores): the root's moves are solved in parallel.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_TABLE_MIB as u64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    tt: u64,
    /// Seeds in the endgame database's fullest level (default: the largest
    /// with at most 2^27 positions, one byte each; 0: no database).
    #[arg(long)]
    db_seeds: Option<usize>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// `mancala solve`.
pub fn run(args: &SolveArgs) -> Result<()> {
    let spec = args.game.spec()?;
    let GameSpec::Kalah(rules) = spec else {
        return Err(bad_input(format!(
            "--game: the solver plays Kalah; {spec} cannot be solved yet"
        )));
    };
    let state = start_state(&rules, args.game.position.as_deref())?;
    if rules.is_over(&state) {
        return Err(bad_input(
            "--position: the game is over; there is nothing to solve",
        ));
    }
    let mut options = SolverOptions::for_rules(&rules);
    options.table_mib = args.tt as usize;
    if let Some(k) = args.db_seeds {
        if k > mancala_solver::endgame::MAX_DB_SEEDS {
            return Err(bad_input(format!(
                "--db-seeds: at most {}",
                mancala_solver::endgame::MAX_DB_SEEDS
            )));
        }
        options.endgame_seeds = k;
    }
    let threads = crate::threads(args.threads, usize::MAX);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start threads: {e}"))?;
    if !args.json {
        eprintln!(
            "solving {rules} with a {} MiB table and {} on {threads} threads...",
            options.table_mib,
            match options.endgame_seeds {
                0 => "no endgame database".to_string(),
                k => format!("an endgame database of up to {k} seeds"),
            }
        );
    }
    let solver = pool
        .install(|| Solver::new(rules, &options))
        .map_err(|e| bad_input(format!("{e} (try a smaller --tt or --db-seeds)")))?;
    let stop = crate::stop_flag();
    let until = mancala_agents::StopCondition {
        deadline: None,
        cancel: Some(stop),
    };
    let solution = match solver.solve_until(&state, threads, until) {
        Ok(s) => s,
        Err(SolveError::Stopped) => return Err(anyhow::Error::new(crate::Interrupted)),
        Err(e) => return Err(e.into()),
    };
    let position = rules.setup(&state).to_string();
    if args.json {
        let out = json!({
            "game": rules.to_string(),
            "position": position,
            "solution": solution,
        });
        println!("{out}");
    } else {
        print_solution(&rules, &position, &solution);
    }
    Ok(())
}

fn print_solution(rules: &KalahRules, position: &str, s: &Solution) {
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
    println!(
        "cost: {} nodes in {:.2} s ({:.2} M nodes/s); table {} MiB, {:.1}% full",
        st.nodes,
        st.seconds,
        st.nodes as f64 / st.seconds.max(1e-9) / 1e6,
        st.table_bytes >> 20,
        100.0 * st.table_entries as f64
            / (st.table_bytes / mancala_solver::table::SLOT_BYTES).max(1) as f64
    );
    if st.endgame_seeds > 0 {
        println!(
            "endgame database: up to {} seeds, {} positions, built in {:.2} s",
            st.endgame_seeds, st.endgame_positions, st.endgame_seconds
        );
    }
}
