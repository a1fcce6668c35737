//! `mancala solve --bench`: how long the solver takes on whole games, the
//! measure behind the solver's speed goals, with the published values
//! checked on the way.

use std::time::Instant;

use anyhow::Result;
use mancala_agents::StopCondition;
use mancala_core::{Game, GameSpec, KalahRules};
use serde::Serialize;

use crate::bad_input;
use crate::solve_cmd::{build_solver, SolveArgs};

/// The games benchmarked when `--bench` names none: the published
/// Kalah(6,4) values, standard and empty capture.
const DEFAULT_GAMES: [&str; 2] = [
    "kalah:pits=6,seeds=4",
    "kalah:pits=6,seeds=4,empty_capture=true",
];

/// First-player values published for whole games: Irving, Donkers and
/// Uiterwijk (2000) under empty capture, Rawlings (2015) under standard
/// rules.
fn published(rules: &KalahRules) -> Option<i32> {
    let plain = !rules.pie
        && rules.game_end == mancala_core::GameEnd::Immediate
        && rules.leftover == mancala_core::Leftover::Owner;
    match (
        plain,
        rules.pits(),
        rules.total_seeds() / (2 * rules.pits()),
        rules.empty_capture,
    ) {
        (true, 6, 4, true) => Some(10),
        (true, 6, 5, true) => Some(12),
        (true, 6, 4, false) => Some(8),
        (true, 6, 5, false) => Some(10),
        _ => None,
    }
}

/// One benchmarked game.
#[derive(Serialize)]
struct Row {
    game: String,
    value: i32,
    published: Option<i32>,
    /// Seconds and nodes for the start's value, from an empty table.
    value_seconds: f64,
    value_nodes: u64,
    /// Seconds and nodes for every first move's value after it.
    moves_seconds: f64,
    moves_nodes: u64,
    moves: Vec<(String, i32)>,
    endgame_seeds: usize,
    /// Seconds to build the database, or to load it when it was saved.
    endgame_seconds: f64,
    threads: usize,
}

/// `mancala solve --bench [GAME ...]`.
pub fn run(args: &SolveArgs, games: &[String]) -> Result<()> {
    let all = parse_games(games)?;
    let bench = Bench {
        args,
        threads: args.threads(),
        stop: StopCondition {
            deadline: None,
            cancel: Some(crate::stop_flag()),
            clock: None,
        },
    };
    let mut rows = Vec::new();
    if !args.json() {
        println!("| game | value | published | value: time | value: nodes | every move: time | every move: nodes | database | threads |");
        println!("|---|---|---|---|---|---|---|---|---|");
    }
    for rules in all {
        let row = bench.measure(rules)?;
        if !args.json() {
            print_row(&row);
        }
        if row.published.is_some_and(|p| p != row.value) {
            anyhow::bail!(
                "{}: the solver found {:+}, the published value is {:+}",
                row.game,
                row.value,
                row.published.unwrap_or_default()
            );
        }
        rows.push(row);
    }
    if args.json() {
        println!("{}", serde_json::to_string(&rows)?);
    }
    Ok(())
}

/// The games to benchmark, [`DEFAULT_GAMES`] when none are named; all
/// Kalah, all parsed before the first is solved.
fn parse_games(games: &[String]) -> Result<Vec<KalahRules>> {
    let games: Vec<String> = if games.is_empty() {
        DEFAULT_GAMES.iter().map(|g| g.to_string()).collect()
    } else {
        games.to_vec()
    };
    let mut all = Vec::new();
    for game in &games {
        let rules = match game.parse::<GameSpec>() {
            Ok(GameSpec::Kalah(rules)) => rules,
            Ok(other) => {
                return Err(bad_input(format!(
                    "--bench: {other}: only Kalah is benchmarked"
                )))
            }
            Err(e) => return Err(bad_input(format!("--bench: {e}"))),
        };
        all.push(rules);
    }
    Ok(all)
}

/// What every benchmarked game shares: the arguments, the threads and the
/// stop (Ctrl-C).
struct Bench<'a> {
    args: &'a SolveArgs,
    threads: usize,
    stop: StopCondition<'a>,
}

impl Bench<'_> {
    /// Solves the start of `rules`, then every first move, timing each and
    /// counting nodes.
    fn measure(&self, rules: KalahRules) -> Result<Row> {
        let threads = self.threads;
        let options = self.args.options(&rules)?;
        if let Some(note) = crate::solve_cmd::database_note(&rules, &options, threads) {
            eprintln!("{rules}: {note}");
        }
        let solver = build_solver(&rules, &options, threads)?;
        // A (6,5) solve takes many minutes: show the value closing in.
        solver.on_probe(std::sync::Arc::new(move |p| {
            eprintln!(
                "{rules}: value in {:+}..={:+} after {:.1} s, {} nodes",
                p.lower, p.upper, p.seconds, p.nodes
            )
        }));
        let start = rules.start();
        let t0 = Instant::now();
        let value = solver
            .value_with_threads(&start, threads, self.stop)
            .map_err(interrupted)?;
        let value_seconds = t0.elapsed().as_secs_f64();
        let value_nodes = solver.nodes();
        let t1 = Instant::now();
        let moves = solver
            .move_values(&start, threads, self.stop)
            .map_err(interrupted)?;
        Ok(Row {
            game: rules.to_string(),
            value,
            published: published(&rules),
            value_seconds,
            value_nodes,
            moves_seconds: t1.elapsed().as_secs_f64(),
            moves_nodes: solver.nodes() - value_nodes,
            moves: moves.iter().map(|m| (m.mv.to_string(), m.value)).collect(),
            endgame_seeds: options.endgame_seeds,
            endgame_seconds: solver.database_seconds(),
            threads,
        })
    }
}

/// A stopped solve is an interruption (the exit status says so); other
/// errors stay as they are.
fn interrupted(e: mancala_solver::SolveError) -> anyhow::Error {
    match e {
        mancala_solver::SolveError::Stopped => anyhow::Error::new(crate::Interrupted),
        e => e.into(),
    }
}

/// `row` as a line of the Markdown table, with the published value checked.
fn print_row(row: &Row) {
    let value = row.value;
    let threads = row.threads;
    let check = match row.published {
        Some(p) if p == value => format!("{p:+} (agrees)"),
        Some(p) => format!("{p:+} (DISAGREES)"),
        None => "-".into(),
    };
    println!(
        "| {} | {:+} | {check} | {:.2} s | {} | {:.2} s | {} | {} seeds, {:.1} s | {threads} |",
        row.game,
        value,
        row.value_seconds,
        row.value_nodes,
        row.moves_seconds,
        row.moves_nodes,
        row.endgame_seeds,
        row.endgame_seconds
    );
}
