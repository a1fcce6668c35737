//! `mancala tournament CONFIG`: the main job. Plays a round-robin or a
//! gauntlet in parallel, logs every game as it ends, resumes, rates; with
//! `--shard K/N`, plays one slice of the games for `mancala merge`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Result;
use clap::Args;
use mancala_arena::tournament::{self, percent, RunStart};
use mancala_arena::{
    Adjudicator, GameRecord, LogError, Observer, RunEnd, RunSettings, Shard, Summary,
    TournamentConfig, TournamentError,
};
use mancala_core::{with_game, GameSpec};
use mancala_registry::AnyAgentSpec;

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
    /// Do not write report.html at the end (`mancala report DIR` writes it later).
    #[arg(long)]
    no_report: bool,
    /// Play only shard K of N (1 <= K <= N): one contiguous block of the
    /// planned games, for a tournament split over machines; `mancala merge`
    /// joins the shards' folders. `auto`: this task's shard in a Slurm job
    /// array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT) or a Kubernetes Indexed
    /// Job (JOB_COMPLETION_INDEX of MANCALA_SHARD_COUNT). The default
    /// folder is the tournament's with `-shard-K-of-N` added.
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    shard: Option<ShardArg>,
    /// Print the standings every N finished games (default: the config's
    /// `rating_interval`, else only at the end). The files are the same.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    rating_interval: Option<u64>,
}

/// `--shard`: a shard, or `auto` (from the environment, when the run starts).
#[derive(Clone, Copy, Debug)]
pub enum ShardArg {
    /// `--shard auto`.
    Auto,
    /// `--shard K/N`.
    Given(Shard),
}

fn parse_shard(text: &str) -> Result<ShardArg, String> {
    if text.trim() == "auto" {
        return Ok(ShardArg::Auto);
    }
    text.parse().map(ShardArg::Given).map_err(|e| e.to_string())
}

/// Environment variables that mean a run is one task of a job array.
const ARRAY_VARIABLES: &[&str] = &["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"];

/// `mancala tournament`.
pub fn run(args: &TournamentArgs) -> Result<()> {
    let config = TournamentConfig::load(&args.config).map_err(bad_input)?;
    let path = args.config.display().to_string();
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| bad_input(format!("{path}: key `game`: {e}")))?;
    let shard = match args.shard {
        None => {
            // Even with --quiet: N array tasks each playing everything is
            // a costly mistake to make silently.
            if let Some(var) = ARRAY_VARIABLES
                .iter()
                .find(|v| std::env::var_os(v).is_some())
            {
                eprintln!(
                    "note: {var} is set but --shard is not: playing the whole tournament \
                     (--shard auto plays this task's shard)"
                );
            }
            None
        }
        Some(ShardArg::Given(shard)) => Some(shard),
        Some(ShardArg::Auto) => {
            Some(Shard::from_env(&|name| std::env::var(name).ok()).map_err(bad_input)?)
        }
    };
    with_game!(&spec, game => run_tournament(game, &spec, &config, shard, args))
}

fn run_tournament<G: mancala_solver::Solvable>(
    game: &G,
    spec: &GameSpec,
    config: &TournamentConfig,
    shard: Option<Shard>,
    args: &TournamentArgs,
) -> Result<()> {
    let origin = args.config.display().to_string();
    let agents =
        mancala_registry::tournament_agents(game, &config.agents, &origin).map_err(bad_input)?;
    let specs: Vec<String> = agents.iter().map(ToString::to_string).collect();
    let dir = tournament::output_folder(config, args.output.as_deref(), shard)
        .map_err(tournament_error)?;
    // Engines keep their standard error beside the games.
    let agents: Vec<AnyAgentSpec> = agents
        .iter()
        .map(|a| a.with_engine_logs(&dir.join(mancala_arena::log::ENGINE_LOG_DIR)))
        .collect();
    let settings = RunSettings {
        dir,
        shard,
        resume: args.resume,
        fresh: args.fresh,
        threads: args.threads,
        rating_interval: args.rating_interval,
    };
    let terminal = Terminal {
        quiet: args.quiet,
        agents: &agents,
        clock: config.clock().map_err(bad_input)?.0,
        progress: OnceLock::new(),
    };
    let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
        game,
        &config.adjudication,
        crate::solve_cmd::default_db_dir().as_deref(),
        &crate::progress::AnalysisProgress::new(args.quiet),
    )
    .map_err(|e| bad_input(format!("{origin}: {e}")))?;
    if let (Some(a), false) = (&adjudicator, args.quiet) {
        eprintln!("{}", a.describe());
    }
    let end = tournament::run(
        game,
        spec,
        config,
        specs,
        Box::new(|i: usize| agents[i].build(game)),
        adjudicator.as_ref().map(|a| a as &dyn Adjudicator<G>),
        &settings,
        crate::stop_flag(),
        &terminal,
        &origin,
    )
    .map_err(tournament_error)?;
    match end {
        RunEnd::Shard {
            shard,
            played,
            planned,
            dir,
        } => {
            // A shard's games are not the tournament's: no summary, which
            // would look like results. Ratings come from the merged folder.
            println!(
                "{}: shard {shard} done, {played} of the tournament's {planned} games -> {}\n\
                 when all {} shards are done: mancala merge SHARD_FOLDERS... --output FOLDER",
                config.name,
                dir.display(),
                shard.count()
            );
            Ok(())
        }
        RunEnd::Finished(results) => {
            show_results(&results.summary, &results.dir, !args.no_report);
            Ok(())
        }
    }
}

/// Prints the standings of a written tournament and writes its report.
pub fn show_results(summary: &Summary, dir: &Path, report: bool) {
    print_standings(summary);
    println!("results: {}", dir.display());
    if report {
        match crate::report::write_default_report(dir) {
            Ok(path) => println!("report: {}", path.display()),
            Err(e) => eprintln!("warning: no report written: {e:#}"),
        }
    }
}

/// A run's error as the command line reports it: bad input and unusable
/// folders are the user's to fix (exit 2, with what to do), a stop is an
/// interruption (exit 130) after saying how to continue.
pub fn tournament_error(e: TournamentError) -> anyhow::Error {
    match e {
        TournamentError::Input(message) => bad_input(message),
        TournamentError::Output(e) => output_error(e),
        e @ TournamentError::Stopped { .. } => {
            eprintln!("{e}. Run the same command again to continue.");
            anyhow::Error::new(Interrupted)
        }
        other => anyhow::Error::new(other),
    }
}

/// An output folder that cannot be used: the user's to fix (exit 2), with
/// what to do about it.
pub fn output_error(e: LogError) -> anyhow::Error {
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

/// What a run shows on the terminal: its notes and plan, a progress bar
/// with the leader (unless quiet), forfeits, and the standings so far.
struct Terminal<'a> {
    quiet: bool,
    agents: &'a [AnyAgentSpec],
    clock: Option<mancala_agents::TimeControl>,
    /// The bar, once the run knows how many games it plays.
    progress: OnceLock<Progress>,
}

impl Observer for Terminal<'_> {
    fn note(&self, text: &str) {
        eprintln!("note: {text}");
    }

    fn started(&self, start: &RunStart) {
        if !self.quiet {
            crate::clock_notes(self.agents, self.clock.as_ref());
            eprintln!("{}", start.description);
        }
        let progress = self
            .progress
            .get_or_init(|| Progress::new(start.games, self.quiet));
        progress.skip(start.already_played);
        if let Some(leader) = &start.leader {
            progress.set_message(leader.clone());
        }
    }

    fn game_done(&self, record: &GameRecord, leader: Option<&str>) {
        if let Some(progress) = self.progress.get() {
            progress.game_done(record);
            if let Some(leader) = leader {
                progress.set_message(leader.to_string());
            }
        }
    }

    // Asked for, the standings come even with --quiet (which hides the bar).
    fn standings(&self, table: &str) {
        match self.progress.get() {
            Some(progress) => progress.print(table),
            None => eprintln!("{table}"),
        }
    }

    fn games_over(&self) {
        if let Some(progress) = self.progress.get() {
            progress.finish();
        }
    }
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
            percent(a.score),
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
        percent(o.score),
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
    print!("{}", mancala_arena::pentanomial_table(s));
    if s.forfeits > 0 {
        println!(
            "forfeits: {} (reasons in games.csv, column error)",
            s.forfeits
        );
    }
}
