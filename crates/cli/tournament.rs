//! `mancala tournament CONFIG`: the main job. Plays a round-robin or a
//! gauntlet in parallel, logs every game as it ends, resumes, rates.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use anyhow::Result;
use clap::Args;
use mancala_arena::{
    pairs, random_openings, schedule, summarize, write_summary, Arena, EncodedRecord, GameLog,
    GameRecord, LogError, OutputDir, Players, RunOptions, Summary, TournamentConfig,
};
use mancala_core::{with_game, Game, GameSpec};
use serde::Serialize;

use crate::agents::AnyAgentSpec;
use crate::progress::Progress;
use crate::{bad_input, Interrupted};

/// Arguments of `mancala tournament`.
#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The tournament config, e.g. configs/quick.toml.
    config: PathBuf,
    /// Continue the tournament in the output folder (rerunning the same
    /// command does this too; with --resume a missing folder is an error).
    #[arg(long, conflicts_with = "fresh")]
    resume: bool,
    /// Delete the tournament files in the output folder and start again
    /// (only files a tournament writes, in a folder that holds one).
    #[arg(long)]
    fresh: bool,
    /// Worker threads (default: the config's, else all cores). Results do not depend on it.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Output folder (default: the config's `output`, else `results/<name>`).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// What must match for a rerun to continue a folder's tournament.
#[derive(Serialize)]
struct Identity<'a> {
    name: &'a str,
    game: String,
    format: &'a str,
    champion: &'a Option<String>,
    games_per_pair: u32,
    seed: u64,
    opening_plies: u32,
    opening_count: usize,
    move_timeout: &'a Option<String>,
    agents: Vec<(String, String)>,
}

/// `mancala tournament`.
pub fn run(args: &TournamentArgs) -> Result<()> {
    let config = TournamentConfig::load(&args.config).map_err(bad_input)?;
    let path = args.config.display().to_string();
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| bad_input(format!("{path}: key `game`: {e}")))?;
    let agents = config
        .agents
        .iter()
        .enumerate()
        .map(|(i, a)| {
            AnyAgentSpec::parse(&a.spec)
                .map_err(|e| bad_input(format!("{path}: key `agents[{i}].spec`: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    with_game!(&spec, game => run_tournament(game, &spec, &config, &agents, args))
}

fn run_tournament<G: Game>(
    game: &G,
    spec: &GameSpec,
    config: &TournamentConfig,
    agents: &[AnyAgentSpec],
    args: &TournamentArgs,
) -> Result<()> {
    let names = config.agent_names();
    for (i, a) in agents.iter().enumerate() {
        a.check(game).map_err(|e| {
            bad_input(format!(
                "{}: key `agents[{i}].spec`: {e}",
                args.config.display()
            ))
        })?;
    }
    let specs: Vec<String> = agents.iter().map(ToString::to_string).collect();
    let dir = args.output.clone().unwrap_or_else(|| config.output_dir());
    if dir.as_os_str().is_empty() {
        return Err(bad_input("--output must not be empty"));
    }
    if args.resume && !dir.join("games.jsonl").exists() {
        return Err(bad_input(format!(
            "--resume: {} holds no tournament to continue",
            dir.display()
        )));
    }
    // The lock is taken before anything is deleted or written, and held
    // until the run ends.
    let out = OutputDir::claim(&dir).map_err(output_error)?;
    if args.fresh {
        out.clear()
            .map_err(|e| bad_input(format!("--fresh: cannot delete the old results: {e}")))?;
    }
    let format = config.format().map_err(bad_input)?;
    let openings = random_openings(
        game,
        config.opening_count(),
        config.openings.plies,
        config.seed,
    )
    .map_err(|e| {
        bad_input(format!(
            "{}: key `openings.plies`: {e}",
            args.config.display()
        ))
    })?;
    let plan = schedule(
        &pairs(format, names.len()),
        config.games_per_pair,
        openings.len(),
    );
    let identity = Identity {
        name: &config.name,
        game: spec.to_string(),
        format: &config.format,
        champion: &config.champion,
        games_per_pair: config.games_per_pair,
        seed: config.seed,
        opening_plies: config.openings.plies,
        opening_count: config.opening_count(),
        move_timeout: &config.move_timeout,
        agents: names.iter().cloned().zip(specs.iter().cloned()).collect(),
    };
    let move_timeout = match &config.move_timeout {
        Some(t) => Some(mancala_agents::parse_duration("move_timeout", t).map_err(bad_input)?),
        None => None,
    };
    let mut arena = Arena {
        game,
        game_spec: spec.to_string(),
        players: Players {
            names: names.clone(),
            specs: specs.clone(),
            factory: Box::new(|i: usize| agents[i].build(game)),
        },
        openings,
        options: RunOptions {
            threads: 1,
            seed: config.seed,
            move_timeout,
        },
    };
    let (log, done) = GameLog::open(out, &identity, &plan, &|planned, record| {
        arena.check_record(planned, record)
    })
    .map_err(output_error)?;
    let done_ids: std::collections::HashSet<u64> = done.iter().map(|r| r.id).collect();
    let todo: Vec<_> = plan
        .iter()
        .filter(|g| !done_ids.contains(&g.id))
        .copied()
        .collect();
    let threads = crate::threads(args.threads.or(config.threads), todo.len());
    arena.options.threads = threads;
    if !args.quiet {
        eprintln!(
            "{}: {} on {}, {} agents, {} games ({} already played), {} threads -> {}",
            config.name,
            config.format,
            spec,
            names.len(),
            plan.len(),
            done.len(),
            threads,
            dir.display()
        );
    }

    let progress = Progress::new(plan.len() as u64, args.quiet);
    progress.skip(done.len() as u64);
    let stop = crate::stop_flag();
    let state = Mutex::new((log, done, None::<LogError>));
    arena.run(&todo, stop, &|record: GameRecord| {
        // Encode in the worker; only the writes happen under the lock.
        let encoded = EncodedRecord::new(&record);
        let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
        let (log, records, error) = &mut *guard;
        if let Err(e) = log.append_encoded(&encoded) {
            // Without a log nothing is safe: stop, and say why.
            error.get_or_insert(e);
            stop.store(true, Ordering::SeqCst);
        }
        progress.game_done(&record);
        records.push(record);
    })?;
    progress.finish();
    let (log, mut records, error) = state.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = error {
        return Err(anyhow::Error::new(e)
            .context("cannot write the game log; the games logged so far are kept"));
    }
    records.sort_by_key(|r| r.id);
    if records.len() < plan.len() {
        eprintln!(
            "stopped after {} of {} games; the log is in {}. Run the same command again to continue.",
            records.len(),
            plan.len(),
            dir.display()
        );
        return Err(anyhow::Error::new(Interrupted));
    }
    let _out = log.finish(&records)?;
    let anchor = config
        .ratings
        .anchor
        .as_ref()
        .and_then(|a| names.iter().position(|n| n == a));
    let summary = summarize(
        &config.name,
        &spec.to_string(),
        &names,
        &specs,
        &records,
        plan.len() as u64,
        anchor,
    )?;
    write_summary(&dir, &summary)?;
    print_standings(&summary);
    println!("results: {}", dir.display());
    Ok(())
}

/// An output folder that cannot be used: the user's to fix (exit 2), with
/// what to do about it.
fn output_error(e: LogError) -> anyhow::Error {
    match e {
        LogError::Corrupt { .. } => bad_input(format!(
            "{e}\nhint: the log was damaged or edited. Delete that line to play the game again, \
             or start over with --fresh (which deletes only this tournament's files)"
        )),
        LogError::Io { .. } => bad_input(format!(
            "cannot use the output folder: {e}\nhint: choose another folder with --output"
        )),
        other => bad_input(other),
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
}

fn print_standings(s: &Summary) {
    let width = s
        .standings
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(4)
        .max(5);
    println!(
        "\n{} ({}): {} games, ratings anchored on {}",
        s.name, s.game, s.games_played, s.anchor
    );
    println!(
        "{:>4}  {:<width$}  {:>7}  {:>17}  {:>6}  {:>7}  {:>13}  {:>8}",
        "rank", "agent", "elo", "95% interval", "games", "score", "W-D-L", "margin"
    );
    for (i, a) in s.standings.iter().enumerate() {
        let ci = a.elo_95_profile.map_or("(anchor)".to_string(), |(lo, hi)| {
            format!("[{lo:+.0}, {hi:+.0}]")
        });
        let margin = a
            .margin
            .as_ref()
            .map_or("-".to_string(), |m| format!("{:+.2}", m.mean));
        println!(
            "{:>4}  {:<width$}  {:>+7.1}  {:>17}  {:>6}  {:>7}  {:>13}  {:>8}",
            i + 1,
            a.name,
            a.elo,
            ci,
            a.games,
            pct(a.score),
            format!("{}-{}-{}", a.wdl.wins, a.wdl.draws, a.wdl.losses),
            margin
        );
    }
    let fp = &s.first_player;
    let o = &fp.overall;
    print!(
        "first seat: {}-{}-{} (W-D-L), score {} [{:.1}%, {:.1}%]",
        o.wdl.wins,
        o.wdl.draws,
        o.wdl.losses,
        pct(o.score),
        100.0 * o.score_interval.0,
        100.0 * o.score_interval.1
    );
    if let Some(m) = &o.margin {
        print!(", mean margin {:+.2} [{:+.2}, {:+.2}]", m.mean, m.lo, m.hi);
    }
    println!();
    match fp.advantage_elo_95_profile {
        Some((lo, hi)) => println!(
            "first-move advantage: {:+.1} Elo [{lo:+.1}, {hi:+.1}]",
            fp.advantage_elo
        ),
        None => println!("first-move advantage: {:+.1} Elo", fp.advantage_elo),
    }
    if s.forfeits > 0 {
        println!(
            "forfeits: {} (reasons in games.csv, column error)",
            s.forfeits
        );
    }
}
