//! `mancala tournament CONFIG`: the main job. Plays a round-robin or a
//! gauntlet in parallel, logs every game as it ends, resumes, rates; with
//! `--shard K/N`, plays one slice of the games for `mancala merge`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use mancala_arena::identity::Identity;
use mancala_arena::merge::{read_identity, shard_identity, ShardStamp};
use mancala_arena::openings::{self, read_openings, Opening, OpeningOrder, OpeningsError};
use mancala_arena::runner::AgentFactory;
use mancala_arena::{
    interim_standings, pairs, random_openings, schedule, summarize, write_moves, write_summary,
    Arena, EncodedRecord, GameLog, GameRecord, LogError, MoveTable, OutputDir, Players, RunOptions,
    ScheduledGame, Shard, Summary, TournamentConfig,
};
use mancala_core::{with_game, Game, GameSpec};

use crate::progress::Progress;
use crate::{bad_input, Interrupted};
use mancala_registry::AnyAgentSpec;

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

/// The openings of `file` for `game`, in `order` (shuffled by `seed`).
///
/// # Errors
/// The file cannot be read, or a line is not an opening of the game.
pub fn load_openings<G: Game>(
    game: &G,
    file: &Path,
    order: OpeningOrder,
    seed: u64,
) -> Result<Vec<Opening<G::State>>, OpeningsError> {
    Ok(openings::ordered(read_openings(game, file)?, order, seed))
}

/// Everything a run derives from its config: the plan, the arena that
/// plays (or checks) its games, and the tournament's identity.
pub struct Prepared<'a, G: Game> {
    /// The game, players, openings and options.
    pub arena: Arena<'a, G>,
    /// Every planned game, by id.
    pub plan: Vec<ScheduledGame>,
    /// What the folder's `tournament.json` holds (without a shard stamp).
    pub identity: Identity,
}

/// Builds the plan, arena and identity of `config` (whose agent specs,
/// written canonically, are `specs`; `factory` builds them). `origin`
/// names where the config came from, for messages.
///
/// # Errors
/// Bad input (exit 2) for openings that do not fit the game or a bad
/// move timeout.
pub fn prepare<'a, G: Game>(
    game: &'a G,
    spec: &GameSpec,
    config: &TournamentConfig,
    specs: Vec<String>,
    factory: Box<AgentFactory<'a, G>>,
    origin: &str,
) -> Result<Prepared<'a, G>> {
    let names = config.agent_names();
    let format = config.format().map_err(bad_input)?;
    let openings = match &config.openings.file {
        Some(file) => {
            let order = config.openings.order().map_err(bad_input)?;
            load_openings(game, file, order, config.seed)
                .map_err(|e| bad_input(format!("{origin}: key `openings.file`: {e}")))?
        }
        None => random_openings(
            game,
            config.opening_count(),
            config.openings.plies,
            config.seed,
        )
        .map_err(|e| bad_input(format!("{origin}: key `openings.plies`: {e}")))?
        .into_iter()
        .map(Opening::from)
        .collect(),
    };
    let plan = schedule(
        &pairs(format, names.len()),
        config.games_per_pair,
        openings.len(),
    );
    let identity = Identity::new(config, &spec.to_string(), &specs)
        .with_openings(openings.len(), openings::digest(&openings));
    let move_timeout = match &config.move_timeout {
        Some(t) => Some(mancala_agents::parse_duration("move_timeout", t).map_err(bad_input)?),
        None => None,
    };
    let (time_control, time_margin) = config.clock().map_err(bad_input)?;
    let arena = Arena {
        game,
        game_spec: spec.to_string(),
        players: Players {
            names,
            specs,
            factory,
        },
        openings,
        options: RunOptions {
            threads: 1,
            seed: config.seed,
            move_timeout,
            time_control,
            time_margin,
        },
    };
    Ok(Prepared {
        arena,
        plan,
        identity,
    })
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
    with_game!(&spec, game => run_tournament(game, &spec, &config, &agents, shard, args))
}

/// `dir` with `-shard-K-of-N` added, K as wide as N so that folders sort.
fn shard_folder(dir: &Path, shard: Shard) -> PathBuf {
    let width = shard.count().to_string().len();
    let mut name = OsString::from(dir.as_os_str());
    name.push(format!(
        "-shard-{:0width$}-of-{}",
        shard.index(),
        shard.count()
    ));
    PathBuf::from(name)
}

/// Refuses, with what to do, a folder that holds this tournament as
/// another shard (or whole, or sharded when this run is not): its games
/// are not this run's to continue.
fn check_folder_shard(dir: &Path, identity: &Identity, stamp: Option<&ShardStamp>) -> Result<()> {
    let Some(found) = read_identity(dir).map_err(bad_input)? else {
        return Ok(());
    };
    let ours = identity.to_value();
    if found.tournament != ours || found.stamp.as_ref() == stamp {
        // Another tournament, or this one: GameLog::open says which.
        return Ok(());
    }
    let dir = dir.display();
    let shard_of = |s: &ShardStamp| format!("{}/{}", s.index, s.count);
    Err(bad_input(match (&found.stamp, stamp) {
        (None, Some(new)) => format!(
            "{dir} holds this tournament run whole, not as shards: run shard {} into its own \
             folder (--output)",
            shard_of(new)
        ),
        (Some(old), None) => format!(
            "{dir} holds shard {} of this tournament: continue it with --shard {}, or merge the \
             shards' folders with `mancala merge`",
            shard_of(old),
            shard_of(old)
        ),
        (Some(old), Some(new)) if (old.index, old.count) != (new.index, new.count) => format!(
            "{dir} holds shard {} of this tournament, not shard {}: run each shard into its own \
             folder (--output), or continue this one with --shard {}",
            shard_of(old),
            shard_of(new),
            shard_of(old)
        ),
        (Some(old), Some(_)) => format!(
            "{dir} holds shard {} of this tournament, begun with ratings.anchor = {}: finish \
             every shard with the anchor it began with (after `mancala merge`, running \
             `mancala tournament CONFIG --output MERGED` rates the merged games with the \
             config's anchor)",
            shard_of(old),
            old.ratings_anchor.as_deref().unwrap_or("(none)")
        ),
        (None, None) => unreachable!("equal stamps return above"),
    }))
}

fn run_tournament<G: Game>(
    game: &G,
    spec: &GameSpec,
    config: &TournamentConfig,
    agents: &[AnyAgentSpec],
    shard: Option<Shard>,
    args: &TournamentArgs,
) -> Result<()> {
    let origin = args.config.display().to_string();
    for (i, a) in agents.iter().enumerate() {
        let key = if config.agents[i].command.is_some() {
            "command"
        } else {
            "spec"
        };
        a.check(game)
            .map_err(|e| bad_input(format!("{origin}: key `agents[{i}].{key}`: {e}")))?;
    }
    let specs: Vec<String> = agents.iter().map(ToString::to_string).collect();
    let mut dir = args.output.clone().unwrap_or_else(|| config.output_dir());
    if dir.as_os_str().is_empty() {
        return Err(bad_input("--output must not be empty"));
    }
    if let (Some(shard), None) = (shard, &args.output) {
        dir = shard_folder(&dir, shard);
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
    // Engines keep their standard error beside the games.
    let agents: Vec<AnyAgentSpec> = agents
        .iter()
        .map(|a| a.with_engine_logs(&dir.join(mancala_arena::log::ENGINE_LOG_DIR)))
        .collect();
    let prepared = prepare(
        game,
        spec,
        config,
        specs.clone(),
        Box::new(|i: usize| agents[i].build(game)),
        &origin,
    )?;
    let Prepared {
        mut arena,
        plan,
        identity,
    } = prepared;
    let names = arena.players.names.clone();
    // A shard's folder says which shard of which tournament it holds, and
    // what the merged ratings need (the anchor is not in the games).
    let stamp = shard.map(|s| ShardStamp::new(s, config.ratings.anchor.as_deref()));
    check_folder_shard(&dir, &identity, stamp.as_ref())?;
    let label = match &stamp {
        Some(stamp) => shard_identity(&identity, stamp),
        None => identity.to_value(),
    };
    let slice = shard.map_or(0..plan.len() as u64, |s| s.range(plan.len() as u64));
    let mine = &plan[slice.start as usize..slice.end as usize];
    let (log, done) = GameLog::open_shard(out, &label, &plan, shard, &|planned, record| {
        arena.check_record(planned, record)
    })
    .map_err(output_error)?;
    let done_ids: std::collections::HashSet<u64> = done.iter().map(|r| r.id).collect();
    let todo: Vec<_> = mine
        .iter()
        .filter(|g| !done_ids.contains(&g.id))
        .copied()
        .collect();
    let threads = crate::threads(args.threads.or(config.threads), todo.len());
    arena.options.threads = threads;
    if let (Some(shard), true) = (shard, mine.is_empty()) {
        eprintln!(
            "note: shard {shard} has no games: the tournament has only {} games for {} shards",
            plan.len(),
            shard.count()
        );
    }
    if !args.quiet {
        crate::clock_notes(&agents, arena.options.time_control.as_ref());
        let what = match shard {
            Some(shard) => format!(
                "{}, shard {shard}: {} on {}, {} agents, {} of {} games (ids {}), {} already played",
                config.name,
                config.format,
                spec,
                names.len(),
                mine.len(),
                plan.len(),
                mancala_arena::merge::id_ranges(&slice.clone().collect::<Vec<_>>()),
                done.len(),
            ),
            None => format!(
                "{}: {} on {}, {} agents, {} games ({} already played)",
                config.name,
                config.format,
                spec,
                names.len(),
                plan.len(),
                done.len(),
            ),
        };
        eprintln!("{what}, {threads} threads -> {}", dir.display());
    }

    let progress = Progress::new(mine.len() as u64, args.quiet);
    progress.skip(done.len() as u64);
    let anchor = config
        .ratings
        .anchor
        .as_ref()
        .and_then(|a| names.iter().position(|n| n == a));
    // A shard's games are not the tournament's: no standings of its own.
    // Asked for, the standings come even with --quiet (which hides the bar).
    let interval = args
        .rating_interval
        .or(config.rating_interval)
        .filter(|_| shard.is_none());
    let mut live = LiveStandings::new(&names, mine.len() as u64, interval, anchor);
    for r in &done {
        live.add(r);
    }
    progress.set_message(live.leader());
    let stop = crate::stop_flag();
    // The games of an earlier run are replayed for their move figures; the
    // runner sums its own as it plays.
    let mut moves = MoveTable::default();
    for r in &done {
        moves.add(game, r);
    }
    let state = Mutex::new((log, done, None::<LogError>, live));
    let played = arena.run(&todo, stop, &|record: GameRecord| {
        // Encode in the worker; only the writes happen under the lock.
        let encoded = EncodedRecord::new(&record);
        let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
        let (log, records, error, live) = &mut *guard;
        if let Err(e) = log.append_encoded(&encoded) {
            // Without a log nothing is safe: stop, and say why.
            error.get_or_insert(e);
            stop.store(true, Ordering::SeqCst);
        }
        progress.game_done(&record);
        live.add(&record);
        records.push(record);
        if let Some(leader) = live.leader_now() {
            progress.set_message(leader);
        }
        if let Some(table) = live.interim(records) {
            progress.print(&table);
        }
    })?;
    moves.merge(&played);
    progress.finish();
    let (log, mut records, error, _) = state.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = error {
        return Err(anyhow::Error::new(e)
            .context("cannot write the game log; the games logged so far are kept"));
    }
    records.sort_by_key(|r| r.id);
    if records.len() < mine.len() {
        eprintln!(
            "stopped after {} of {} games; the log is in {}. Run the same command again to continue.",
            records.len(),
            mine.len(),
            dir.display()
        );
        return Err(anyhow::Error::new(Interrupted));
    }
    let _out = log.finish(&records)?;
    if let Some(shard) = shard {
        // A shard's games are not the tournament's: no summary, which would
        // look like results. Ratings come from the merged folder.
        println!(
            "{}: shard {shard} done, {} of the tournament's {} games -> {}\n\
             when all {} shards are done: mancala merge SHARD_FOLDERS... --output FOLDER",
            config.name,
            records.len(),
            plan.len(),
            dir.display(),
            shard.count()
        );
        return Ok(());
    }
    write_results(
        &dir,
        config,
        &names,
        &specs,
        &spec.to_string(),
        &records,
        &moves,
        plan.len() as u64,
        !args.no_report,
    )
}

/// Rates a finished tournament's `records`: writes `summary.json`,
/// `ratings.csv` and `moves.json` (`moves`, what the records' moves cost)
/// into `dir` (and `report.html` if `report`) and prints the
/// standings. The same for a run and a merge, so that both write the same
/// files.
///
/// # Errors
/// When the rating fit fails or a file cannot be written. A report that
/// cannot be written is only a warning: the results are safe.
#[allow(clippy::too_many_arguments)]
pub fn write_results(
    dir: &Path,
    config: &TournamentConfig,
    names: &[String],
    specs: &[String],
    game: &str,
    records: &[GameRecord],
    moves: &MoveTable,
    planned: u64,
    report: bool,
) -> Result<()> {
    let anchor = config
        .ratings
        .anchor
        .as_ref()
        .and_then(|a| names.iter().position(|n| n == a));
    let summary = summarize(&config.name, game, names, specs, records, planned, anchor)?;
    write_summary(dir, &summary)?;
    write_moves(dir, moves)?;
    print_standings(&summary);
    println!("results: {}", dir.display());
    if report {
        match crate::report::write_default_report(dir) {
            Ok(path) => println!("report: {}", path.display()),
            Err(e) => eprintln!("warning: no report written: {e:#}"),
        }
    }
    Ok(())
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

/// What a run shows while it goes on: the leader on the progress bar and,
/// every `interval` finished games, the standings so far.
struct LiveStandings<'a> {
    names: &'a [String],
    /// Points and games of each agent so far.
    points: Vec<f64>,
    games: Vec<u64>,
    /// The games of the run (or shard).
    total: u64,
    interval: Option<u64>,
    anchor: Option<usize>,
    /// When the leader was last shown: often enough for a person, rarely
    /// enough to cost nothing in a run of thousands of games a second.
    shown: Option<Instant>,
}

impl<'a> LiveStandings<'a> {
    fn new(
        names: &'a [String],
        total: u64,
        interval: Option<u64>,
        anchor: Option<usize>,
    ) -> LiveStandings<'a> {
        LiveStandings {
            names,
            points: vec![0.0; names.len()],
            games: vec![0; names.len()],
            total,
            interval,
            anchor,
            shown: None,
        }
    }

    /// [`LiveStandings::leader`], at most every tenth of a second.
    fn leader_now(&mut self) -> Option<String> {
        let now = Instant::now();
        if self
            .shown
            .is_some_and(|at| now.duration_since(at) < Duration::from_millis(100))
        {
            return None;
        }
        self.shown = Some(now);
        Some(self.leader())
    }

    fn add(&mut self, record: &GameRecord) {
        let first = record.first_seat_score();
        for (seat, score) in [(0, first), (1, 1.0 - first)] {
            let agent = record.seats[seat];
            self.points[agent] += score;
            self.games[agent] += 1;
        }
    }

    /// The agent with the best score so far (the first of those tied), as
    /// the progress bar shows it.
    fn leader(&self) -> String {
        let mut best: Option<(usize, f64)> = None;
        for (i, (&points, &games)) in self.points.iter().zip(&self.games).enumerate() {
            if games == 0 {
                continue;
            }
            let score = points / games as f64;
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((i, score));
            }
        }
        best.map_or(String::new(), |(i, score)| {
            format!("leader {} {:.1}%", self.names[i], 100.0 * score)
        })
    }

    /// The standings of `records`, when their number is a multiple of the
    /// interval (and the run is not over: its final standings follow).
    fn interim(&self, records: &[GameRecord]) -> Option<String> {
        let interval = self.interval?;
        let finished = records.len() as u64;
        if !finished.is_multiple_of(interval) || finished >= self.total {
            return None;
        }
        let standings = match interim_standings(self.names.len(), records, self.anchor) {
            Ok(s) => s,
            Err(e) => return Some(format!("standings after {finished} games: {e}")),
        };
        let width = self.names.iter().map(String::len).max().unwrap_or(4).max(5);
        let mut text = format!(
            "standings after {finished} of {} games:\n{:>4}  {:<width$}  {:>7}  {:>17}  {:>6}  {:>7}  {:>13}",
            self.total, "rank", "agent", "elo", "95% interval", "games", "score", "W-D-L"
        );
        for (rank, s) in standings.iter().enumerate() {
            let ci = match (s.elo_95, self.anchor) {
                (Some((lo, hi)), _) => format!("[{lo:+.0}, {hi:+.0}]"),
                (None, Some(a)) if a == s.agent => "(anchor)".into(),
                (None, _) => "-".into(),
            };
            text.push_str(&format!(
                "\n{:>4}  {:<width$}  {:>+7.1}  {:>17}  {:>6}  {:>7}  {:>13}",
                rank + 1,
                self.names[s.agent],
                s.elo,
                ci,
                s.wdl.games(),
                pct(s.wdl.score()),
                format!("{}-{}-{}", s.wdl.wins, s.wdl.draws, s.wdl.losses),
            ));
        }
        Some(text)
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
    print!("{}", mancala_arena::pentanomial_table(s));
    if s.forfeits > 0 {
        println!(
            "forfeits: {} (reasons in games.csv, column error)",
            s.forfeits
        );
    }
}
