//! A whole tournament run, as `mancala tournament` and the Python package
//! do it: the plan from the config, the output folder claimed (and
//! resumed, or cleared), the games played in parallel and logged as each
//! ends, and the finished tournament rated and written.
//!
//! Which agents play is the caller's: it gives their canonical specs and a
//! factory. What the run shows while it goes on is the caller's too: an
//! [`Observer`] hears of the start, of every game and of the standings so
//! far, and prints them (or not) as it likes.

use std::collections::HashSet;
use std::ffi::OsString;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mancala_core::{Game, GameSpec};
use thiserror::Error;

use crate::config::{TournamentConfig, THREADS_PER_CORE};
use crate::identity::Identity;
use crate::log::{EncodedRecord, GameLog, LogError, OutputDir};
use crate::merge::{id_ranges, read_identity, shard_identity, ShardStamp};
use crate::moves::MoveTable;
use crate::openings::{self, read_openings, Opening, OpeningOrder, OpeningsError};
use crate::record::GameRecord;
use crate::report::{interim_standings, summarize, write_moves, write_summary, Summary};
use crate::runner::{AgentFactory, Arena, Players, RunOptions};
use crate::schedule::{pairs, random_openings, schedule, ScheduledGame, Shard};
use crate::stats::StatsError;
use crate::{Adjudicator, ArenaError};

/// Why a tournament run did not finish.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TournamentError {
    /// The config, the openings or the request do not make a run (the
    /// user's to fix); the message says where.
    #[error("{0}")]
    Input(String),
    /// The output folder cannot be used: locked, corrupt, unwritable, or
    /// holding another tournament.
    #[error(transparent)]
    Output(LogError),
    /// Writing a game to the log failed during the run; the games logged
    /// before it are kept.
    #[error("cannot write the game log; the games logged so far are kept: {0}")]
    LogWrite(LogError),
    /// Stopped (Ctrl-C) before every game was played; the log keeps the
    /// finished ones and the same run continues them.
    #[error("stopped after {played} of {planned} games; the log is in {}", dir.display())]
    Stopped {
        /// Games finished, this run's and earlier ones'.
        played: u64,
        /// Games this run (or shard) has to play.
        planned: u64,
        /// The output folder.
        dir: PathBuf,
    },
    /// The worker threads could not start.
    #[error(transparent)]
    Arena(#[from] ArenaError),
    /// The ratings could not be fitted.
    #[error("cannot rate the tournament: {0}")]
    Rating(#[from] StatsError),
    /// A results file could not be written.
    #[error(transparent)]
    Write(LogError),
}

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
/// names where the config came from, for messages. The arena runs on one
/// thread until its options say otherwise.
///
/// # Errors
/// [`TournamentError::Input`] for openings that do not fit the game, a
/// bad format, move timeout or clock.
pub fn prepare<'a, G: Game>(
    game: &'a G,
    spec: &GameSpec,
    config: &TournamentConfig,
    specs: Vec<String>,
    factory: Box<AgentFactory<'a, G>>,
    origin: &str,
) -> Result<Prepared<'a, G>, TournamentError> {
    let input = |e: String| TournamentError::Input(e);
    let names = config.agent_names();
    let format = config.format().map_err(|e| input(e.to_string()))?;
    let openings = match &config.openings.file {
        Some(file) => {
            let order = config.openings.order().map_err(|e| input(e.to_string()))?;
            load_openings(game, file, order, config.seed)
                .map_err(|e| input(format!("{origin}: key `openings.file`: {e}")))?
        }
        None => random_openings(
            game,
            config.opening_count(),
            config.openings.plies,
            config.seed,
        )
        .map_err(|e| input(format!("{origin}: key `openings.plies`: {e}")))?
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
        Some(t) => Some(
            mancala_agents::parse_duration("move_timeout", t).map_err(|e| input(e.to_string()))?,
        ),
        None => None,
    };
    let (time_control, time_margin) = config.clock().map_err(|e| input(e.to_string()))?;
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
            live: None,
        },
        adjudicator: None,
    };
    Ok(Prepared {
        arena,
        plan,
        identity,
    })
}

/// Worker threads for `jobs` games: `requested`, or every core; never
/// more than there are games, nor more than a few per core (more threads
/// than that only add memory and switching, and results do not depend on
/// the count). With a note when the request was cut.
pub fn worker_threads(requested: Option<usize>, jobs: usize) -> (usize, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = cores * THREADS_PER_CORE;
    let wanted = requested.unwrap_or(cores).max(1);
    let note = (wanted > most).then(|| {
        format!("using {most} worker threads ({THREADS_PER_CORE} per core on {cores} cores), not {wanted}")
    });
    (wanted.min(most).min(jobs.max(1)), note)
}

/// The folder a run writes: `output`, else the config's; a shard's
/// default folder has `-shard-K-of-N` added, K as wide as N so that
/// folders sort.
///
/// # Errors
/// [`TournamentError::Input`] for an empty `output`.
pub fn output_folder(
    config: &TournamentConfig,
    output: Option<&Path>,
    shard: Option<Shard>,
) -> Result<PathBuf, TournamentError> {
    if let Some(dir) = output {
        if dir.as_os_str().is_empty() {
            return Err(TournamentError::Input("--output must not be empty".into()));
        }
        return Ok(dir.to_path_buf());
    }
    let dir = config.output_dir();
    let Some(shard) = shard else {
        return Ok(dir);
    };
    let width = shard.count().to_string().len();
    let mut name = OsString::from(dir.as_os_str());
    name.push(format!(
        "-shard-{:0width$}-of-{}",
        shard.index(),
        shard.count()
    ));
    Ok(PathBuf::from(name))
}

/// How one run of a tournament goes, beyond its config.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// The output folder (see [`output_folder`]).
    pub dir: PathBuf,
    /// Play only this slice of the planned games.
    pub shard: Option<Shard>,
    /// The folder must hold this tournament already.
    pub resume: bool,
    /// Delete the folder's tournament files first.
    pub fresh: bool,
    /// Worker threads asked for (default: the config's, else all cores).
    pub threads: Option<usize>,
    /// Standings every this many games (default: the config's).
    pub rating_interval: Option<u64>,
}

/// What a run is about to do, for its [`Observer`].
#[derive(Clone, Debug)]
pub struct RunStart {
    /// One line: the tournament, the game, the agents, the games and the
    /// folder.
    pub description: String,
    /// Games this run (or shard) holds, played or not.
    pub games: u64,
    /// Of those, games an earlier run finished.
    pub already_played: u64,
    /// Worker threads.
    pub threads: usize,
    /// The leader of the games already played, as [`Observer::game_done`]
    /// gives it.
    pub leader: Option<String>,
}

/// What a front end shows of a run. Every method has a default that
/// shows nothing; they are called from the worker threads, one at a time.
pub trait Observer: Sync {
    /// Something the user should know that does not stop the run.
    fn note(&self, _text: &str) {}
    /// The run is about to play its games.
    fn started(&self, _start: &RunStart) {}
    /// A game ended and was logged; `leader` is the leader so far as a
    /// short label (e.g. "leader minimax 61.2%"), given at most ten times
    /// a second.
    fn game_done(&self, _record: &GameRecord, _leader: Option<&str>) {}
    /// The standings so far, as a table, every `rating_interval` games.
    fn standings(&self, _table: &str) {}
    /// Every game is played (or the run stopped): the run now rates and
    /// writes.
    fn games_over(&self) {}
}

/// An observer that shows nothing.
pub struct Silent;

impl Observer for Silent {}

/// How a run ended.
#[derive(Debug)]
pub enum RunEnd {
    /// The whole tournament is played, rated and written.
    Finished(Box<Results>),
    /// A shard is played and logged; ratings come from the merged folder.
    Shard {
        /// The shard.
        shard: Shard,
        /// Its games.
        played: u64,
        /// The tournament's games.
        planned: u64,
        /// Its folder.
        dir: PathBuf,
    },
}

/// A finished tournament's results, as written to its folder.
#[derive(Debug)]
pub struct Results {
    /// What `summary.json` holds: standings, ratings with intervals,
    /// first-player statistics.
    pub summary: Summary,
    /// What `moves.json` holds.
    pub moves: MoveTable,
    /// The folder.
    pub dir: PathBuf,
}

/// Plays the tournament `config` (on `game`, whose spec is `spec`) into
/// `settings.dir`: the agents' canonical specs are `specs` and `factory`
/// builds agent `i`; `adjudicator` ends games early where the config asks
/// for exact adjudication. Games an earlier run logged there are kept (after a
/// check that this tournament played them); raising `stop` ends the run
/// cleanly after the games in progress. `origin` names the config in
/// messages.
///
/// # Errors
/// [`TournamentError`]: bad input, an unusable folder, a log that cannot
/// be written, a stop before the end, a rating fit or results file that
/// fails.
#[allow(clippy::too_many_arguments)]
pub fn run<'a, G: Game>(
    game: &'a G,
    spec: &GameSpec,
    config: &TournamentConfig,
    specs: Vec<String>,
    factory: Box<AgentFactory<'a, G>>,
    adjudicator: Option<&'a dyn Adjudicator<G>>,
    settings: &RunSettings,
    stop: &AtomicBool,
    observer: &dyn Observer,
    origin: &str,
) -> Result<RunEnd, TournamentError> {
    check_adjudicator(config, adjudicator.is_some(), origin)?;
    let out = claim_output(settings)?;
    let dir = &settings.dir;
    let shard = settings.shard;
    let Prepared {
        mut arena,
        plan,
        identity,
    } = prepare(game, spec, config, specs.clone(), factory, origin)?;
    arena.adjudicator = adjudicator;
    let names = arena.players.names.clone();
    let label = folder_label(dir, &identity, config, shard)?;
    let share = Share::new(&plan, shard);
    let (log, done) = GameLog::open_shard(out, &label, &plan, shard, &|planned, record| {
        arena.check_record(planned, record)
    })
    .map_err(TournamentError::Output)?;
    let todo = share.unplayed(&done);
    let (threads, note) = worker_threads(settings.threads.or(config.threads), todo.len());
    if let Some(note) = note {
        observer.note(&note);
    }
    arena.options.threads = threads;
    // The games in progress, for viewers of the folder (crate::live).
    arena.options.live = Some(dir.join(crate::live::LIVE_DIR));
    share.note_if_empty(observer);
    let description = share.describe(config, spec, names.len(), done.len());
    let live = LiveStandings::for_run(config, settings, &names, share.games(), &done);
    observer.started(&RunStart {
        description: format!("{description}, {threads} threads -> {}", dir.display()),
        games: share.games(),
        already_played: done.len() as u64,
        threads,
        leader: live.leader(),
    });
    // The games of an earlier run are replayed for their move figures; the
    // runner sums its own as it plays.
    let mut moves = MoveTable::default();
    for r in &done {
        moves.add(game, r);
    }
    let records = Progress::new(log, done, live)
        .play(&arena, &todo, stop, observer, &mut moves)?
        .finish(share.games(), dir)?;
    if let Some(shard) = shard {
        // A shard's games are not the tournament's: no summary, which would
        // look like results.
        return Ok(RunEnd::Shard {
            shard,
            played: records.len() as u64,
            planned: plan.len() as u64,
            dir: dir.clone(),
        });
    }
    let summary = write_results(
        dir,
        config,
        &names,
        &specs,
        &spec.to_string(),
        &records,
        &moves,
        plan.len() as u64,
    )?;
    Ok(RunEnd::Finished(Box::new(Results {
        summary,
        moves,
        dir: dir.clone(),
    })))
}

/// The label of the run's folder `dir`: the tournament's `identity`, and
/// for a shard's folder which shard of which tournament it holds and what
/// the merged ratings need (the anchor is not in the games). A folder that
/// holds another shard, or another tournament's, is refused.
fn folder_label(
    dir: &Path,
    identity: &Identity,
    config: &TournamentConfig,
    shard: Option<Shard>,
) -> Result<serde_json::Value, TournamentError> {
    let stamp = shard.map(|s| ShardStamp::new(s, config.ratings.anchor.as_deref()));
    check_folder_shard(dir, identity, stamp.as_ref())?;
    Ok(match &stamp {
        Some(stamp) => shard_identity(identity, stamp),
        None => identity.to_value(),
    })
}

/// Refuses a run whose adjudicator (`given` or not) disagrees with the
/// config's `[adjudication] exact`: the games would not be the ones the
/// config describes.
fn check_adjudicator(
    config: &TournamentConfig,
    given: bool,
    origin: &str,
) -> Result<(), TournamentError> {
    if config.adjudication.exact != given {
        return Err(TournamentError::Input(format!(
            "{origin}: [adjudication] exact = {} but the run was {} an adjudicator",
            config.adjudication.exact,
            if given { "given" } else { "not given" }
        )));
    }
    Ok(())
}

/// Claims `settings.dir` for the run: a `--resume` needs a tournament
/// there, and `--fresh` deletes the old one. The lock is taken before
/// anything is deleted or written, and held until the run ends.
fn claim_output(settings: &RunSettings) -> Result<OutputDir, TournamentError> {
    let dir = &settings.dir;
    if settings.resume && !dir.join(crate::folder::GAMES_FILE).exists() {
        return Err(TournamentError::Input(format!(
            "--resume: {} holds no tournament to continue",
            dir.display()
        )));
    }
    let out = OutputDir::claim(dir).map_err(TournamentError::Output)?;
    if settings.fresh {
        out.clear().map_err(|e| {
            TournamentError::Input(format!("--fresh: cannot delete the old results: {e}"))
        })?;
    }
    Ok(out)
}

/// The part of the tournament's `plan` this run plays: all of it, or one
/// shard's slice of ids.
struct Share<'p> {
    plan: &'p [ScheduledGame],
    shard: Option<Shard>,
    slice: Range<u64>,
}

impl<'p> Share<'p> {
    fn new(plan: &'p [ScheduledGame], shard: Option<Shard>) -> Share<'p> {
        let slice = shard.map_or(0..plan.len() as u64, |s| s.range(plan.len() as u64));
        Share { plan, shard, slice }
    }

    /// The games of this run (or shard), played or not.
    fn mine(&self) -> &'p [ScheduledGame] {
        &self.plan[self.slice.start as usize..self.slice.end as usize]
    }

    /// How many games [`Share::mine`] holds.
    fn games(&self) -> u64 {
        self.mine().len() as u64
    }

    /// This run's games that are not among the `done` ones, in plan order.
    fn unplayed(&self, done: &[GameRecord]) -> Vec<ScheduledGame> {
        let done_ids: HashSet<u64> = done.iter().map(|r| r.id).collect();
        self.mine()
            .iter()
            .filter(|g| !done_ids.contains(&g.id))
            .copied()
            .collect()
    }

    /// Tells the user when a shard gets no games (more shards than games).
    fn note_if_empty(&self, observer: &dyn Observer) {
        if let (Some(shard), true) = (self.shard, self.mine().is_empty()) {
            observer.note(&format!(
                "shard {shard} has no games: the tournament has only {} games for {} shards",
                self.plan.len(),
                shard.count()
            ));
        }
    }

    /// The run's line for [`RunStart::description`], before the threads
    /// and folder: the tournament, the game, how many `agents` and games,
    /// and how many of those were `already` played.
    fn describe(
        &self,
        config: &TournamentConfig,
        spec: &GameSpec,
        agents: usize,
        already: usize,
    ) -> String {
        match self.shard {
            Some(shard) => format!(
                "{}, shard {shard}: {} on {}, {} agents, {} of {} games (ids {}), {} already played",
                config.name,
                config.format,
                spec,
                agents,
                self.mine().len(),
                self.plan.len(),
                id_ranges(&self.slice.clone().collect::<Vec<_>>()),
                already,
            ),
            None => format!(
                "{}: {} on {}, {} agents, {} games ({} already played)",
                config.name,
                config.format,
                spec,
                agents,
                self.plan.len(),
                already,
            ),
        }
    }
}

/// What the workers share while they play, under one lock: the log, the
/// records so far (the earlier run's first), the first error writing the
/// log, and the live standings.
struct Progress<'n> {
    log: GameLog,
    records: Vec<GameRecord>,
    error: Option<LogError>,
    live: LiveStandings<'n>,
}

impl<'n> Progress<'n> {
    /// The progress of a run whose `log` holds the `done` games, counted
    /// in `live`.
    fn new(log: GameLog, done: Vec<GameRecord>, live: LiveStandings<'n>) -> Progress<'n> {
        Progress {
            log,
            records: done,
            error: None,
            live,
        }
    }

    /// Plays `todo` on `arena`, logging and showing each game as it ends,
    /// and adds the games' move figures to `moves`.
    ///
    /// # Errors
    /// When the arena fails.
    fn play<G: Game>(
        self,
        arena: &Arena<'_, G>,
        todo: &[ScheduledGame],
        stop: &AtomicBool,
        observer: &dyn Observer,
        moves: &mut MoveTable,
    ) -> Result<Self, TournamentError> {
        let state = Mutex::new(self);
        let played = arena.run(todo, stop, &|record: GameRecord| {
            // Encode in the worker; only the writes happen under the lock.
            let encoded = EncodedRecord::new(&record);
            let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
            guard.add(&encoded, record, stop, observer);
        })?;
        moves.merge(&played);
        observer.games_over();
        Ok(state.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// Logs one finished game (`encoded` is `record` as the log writes it)
    /// and shows it. A log that cannot be written raises `stop`: without a
    /// log nothing is safe.
    fn add(
        &mut self,
        encoded: &EncodedRecord,
        record: GameRecord,
        stop: &AtomicBool,
        observer: &dyn Observer,
    ) {
        if let Err(e) = self.log.append_encoded(encoded) {
            // Without a log nothing is safe: stop, and say why.
            self.error.get_or_insert(e);
            stop.store(true, Ordering::SeqCst);
        }
        self.live.add(&record);
        observer.game_done(&record, self.live.leader_now().as_deref());
        self.records.push(record);
        if let Some(table) = self.live.interim(&self.records) {
            observer.standings(&table);
        }
    }

    /// The records in id order, once the log is finished: an error when
    /// writing the log failed, or when fewer than the `planned` games were
    /// played (the run was stopped; `dir` keeps them for a resume).
    fn finish(self, planned: u64, dir: &Path) -> Result<Vec<GameRecord>, TournamentError> {
        let Progress {
            log,
            mut records,
            error,
            live: _,
        } = self;
        if let Some(e) = error {
            return Err(TournamentError::LogWrite(e));
        }
        records.sort_by_key(|r| r.id);
        if (records.len() as u64) < planned {
            return Err(TournamentError::Stopped {
                played: records.len() as u64,
                planned,
                dir: dir.to_path_buf(),
            });
        }
        log.finish(&records).map_err(TournamentError::Write)?;
        Ok(records)
    }
}

/// Rates a finished tournament's `records` and writes `summary.json`,
/// `ratings.csv` and `moves.json` (`moves`, what the records' moves cost)
/// into `dir`. The same for a run and a merge, so that both write the
/// same files.
///
/// # Errors
/// When the rating fit fails or a file cannot be written.
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
) -> Result<Summary, TournamentError> {
    let anchor = config
        .ratings
        .anchor
        .as_ref()
        .and_then(|a| names.iter().position(|n| n == a));
    let summary = summarize(&config.name, game, names, specs, records, planned, anchor)?;
    write_summary(dir, &summary).map_err(TournamentError::Write)?;
    write_moves(dir, moves).map_err(TournamentError::Write)?;
    Ok(summary)
}

/// Refuses, with what to do, a folder that holds this tournament as
/// another shard (or whole, or sharded when this run is not): its games
/// are not this run's to continue.
fn check_folder_shard(
    dir: &Path,
    identity: &Identity,
    stamp: Option<&ShardStamp>,
) -> Result<(), TournamentError> {
    let Some(found) = read_identity(dir).map_err(|e| TournamentError::Input(e.to_string()))? else {
        return Ok(());
    };
    let ours = identity.to_value();
    if found.tournament != ours || found.stamp.as_ref() == stamp {
        // Another tournament, or this one: GameLog::open says which.
        return Ok(());
    }
    let dir = dir.display();
    let shard_of = |s: &ShardStamp| format!("{}/{}", s.index, s.count);
    Err(TournamentError::Input(match (&found.stamp, stamp) {
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

/// What a run shows while it goes on: the leader and, every `interval`
/// finished games, the standings so far.
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

    /// The standings a run of `total` games starts from: the `done` games
    /// of an earlier run, shown every interval the settings (else the
    /// config) ask for, and none for a shard, whose games are not the
    /// tournament's.
    fn for_run(
        config: &TournamentConfig,
        settings: &RunSettings,
        names: &'a [String],
        total: u64,
        done: &[GameRecord],
    ) -> LiveStandings<'a> {
        let anchor = config
            .ratings
            .anchor
            .as_ref()
            .and_then(|a| names.iter().position(|n| n == a));
        // A shard's games are not the tournament's: no standings of its own.
        let interval = settings
            .rating_interval
            .or(config.rating_interval)
            .filter(|_| settings.shard.is_none());
        let mut live = LiveStandings::new(names, total, interval, anchor);
        for r in done {
            live.add(r);
        }
        live
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
        self.leader()
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
    /// a progress bar shows it.
    fn leader(&self) -> Option<String> {
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
        best.map(|(i, score)| format!("leader {} {:.1}%", self.names[i], 100.0 * score))
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
                percent(s.wdl.score()),
                format!("{}-{}-{}", s.wdl.wins, s.wdl.draws, s.wdl.losses),
            ));
        }
        Some(text)
    }
}

/// A share as a percentage, or `-` when there is none.
pub fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
}
