//! An external program as an [`Agent`]: the runner's side of the protocol.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mancala_agents::{Agent, AgentError, SearchInfo, SearchKind, StopCondition};
use mancala_core::{Game, Move};

use crate::log::EngineLog;
use crate::process::EngineProcess;
use crate::protocol::{Command, GoLimits, PositionBase, Reply};
use crate::EngineError;

/// How long an engine has to start, introduce itself and get ready for a
/// game, unless its config says otherwise.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a `go` without `movetime` may take when the run sets no move
/// timeout either: an engine that never answers must not block forever.
pub const UNLIMITED_GO_TIMEOUT: Duration = Duration::from_secs(60);

/// After this many failed starts in a row, an engine instance stops trying
/// and forfeits its games at once: a missing or broken program would
/// otherwise cost a handshake timeout per game.
pub const MAX_FAILED_STARTS: u32 = 3;

/// The name of the option through which the runner seeds an engine before
/// each game, if the engine declares it.
pub const SEED_OPTION: &str = "Seed";

/// The margin a `go movetime T` gets on top of `T` before it counts as a
/// timeout: 100 ms for starting up and piping, plus a tenth of `T` for
/// engines that overshoot a little.
pub fn movetime_margin(movetime: Duration) -> Duration {
    Duration::from_millis(100) + movetime / 10
}

/// How to run an engine: what tournament configs and `--engine` describe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The agent's name in results.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The folder it runs in (default: the caller's).
    pub workdir: Option<PathBuf>,
    /// `setoption` commands sent after every start, in this order.
    pub options: Vec<(String, String)>,
    /// The limits of every `go`.
    pub go: GoLimits,
    /// Where each instance appends its standard error
    /// (`<dir>/<name>.<instance>.stderr`, capped: see [`EngineLog`]);
    /// `None` drops it.
    pub stderr_dir: Option<PathBuf>,
    /// Time to start and to get ready for a game.
    pub handshake_timeout: Duration,
}

impl EngineConfig {
    /// A config with the defaults: no options, plain `go`, stderr dropped.
    pub fn new(name: impl Into<String>, command: Vec<String>) -> EngineConfig {
        EngineConfig {
            name: name.into(),
            command,
            workdir: None,
            options: Vec::new(),
            go: GoLimits::default(),
            stderr_dir: None,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }
}

/// Numbers instances, so that each keeps its own stderr log.
static INSTANCES: AtomicUsize = AtomicUsize::new(1);

/// An engine program playing as an agent. The process starts on the first
/// game, is reused across games, and is killed and started again after any
/// failure (a crash, garbage, a timeout), which loses only the game it
/// happened in.
pub struct ExternalAgent {
    config: Arc<EngineConfig>,
    game_spec: String,
    instance: usize,
    process: Option<EngineProcess>,
    /// The instance's stderr log, opened at its first start and kept over
    /// restarts (its size cap is for the instance, not for each start).
    log: Option<EngineLog>,
    failed_starts: u32,
    /// Why the current game cannot be played, found while preparing it.
    not_ready: Option<String>,
    /// Moves of the current game, as the runner reported them.
    history: Vec<Move>,
    info: SearchInfo,
}

impl ExternalAgent {
    /// An agent that will run `config` for games of `game_spec` (sent in
    /// `newgame`). Nothing starts until the first game.
    pub fn new(config: Arc<EngineConfig>, game_spec: String) -> ExternalAgent {
        ExternalAgent {
            config,
            game_spec,
            instance: INSTANCES.fetch_add(1, Ordering::Relaxed),
            process: None,
            log: None,
            failed_starts: 0,
            not_ready: None,
            history: Vec::new(),
            info: SearchInfo::default(),
        }
    }

    /// What the running engine said about itself, if it is running.
    pub fn id(&self) -> Option<&crate::EngineId> {
        self.process.as_ref().map(|p| &p.id)
    }

    fn stderr_path(&self) -> Option<PathBuf> {
        self.config
            .stderr_dir
            .as_ref()
            .map(|dir| dir.join(format!("{}.{}.stderr", self.config.name, self.instance)))
    }

    /// The stderr log, opened on first use.
    fn log(&mut self) -> Result<Option<EngineLog>, EngineError> {
        if self.log.is_none() {
            if let Some(path) = self.stderr_path() {
                self.log = Some(EngineLog::open(&path)?);
            }
        }
        Ok(self.log.clone())
    }

    /// Starts the engine if needed and prepares it for a game.
    fn prepare(&mut self, seed: u64) -> Result<(), String> {
        if self.process.is_none() {
            if self.failed_starts >= MAX_FAILED_STARTS {
                return Err(format!(
                    "engine {} failed to start {} times in a row; not trying again",
                    self.config.name, self.failed_starts
                ));
            }
            let started = self.log().and_then(|log| {
                EngineProcess::start(
                    &self.config.command,
                    self.config.workdir.as_ref(),
                    log.as_ref(),
                    self.config.handshake_timeout,
                    None,
                )
            });
            match started {
                Ok(mut process) => {
                    self.failed_starts = 0;
                    for (name, value) in &self.config.options {
                        let set = Command::SetOption {
                            name: name.clone(),
                            value: value.clone(),
                        };
                        if let Err(e) = process.send(&set) {
                            return Err(format!("engine {}: {e}", self.config.name));
                        }
                    }
                    self.process = Some(process);
                }
                Err(e) => {
                    self.failed_starts += 1;
                    return Err(format!("engine {} did not start: {e}", self.config.name));
                }
            }
        }
        let process = self.process.as_mut().expect("started above");
        let since = Instant::now();
        let deadline = since + self.config.handshake_timeout;
        let mut prepare = || -> Result<(), EngineError> {
            // What the engine printed after the last game's last move
            // must not pass for its answer to this game's `newgame`.
            process.clear_stale(since, deadline, None)?;
            if process.id.has_option(SEED_OPTION) {
                process.send(&Command::SetOption {
                    name: SEED_OPTION.into(),
                    value: seed.to_string(),
                })?;
            }
            process.send(&Command::NewGame(self.game_spec.clone()))?;
            process.sync(deadline, None)?;
            // The helpers it started by now, including any that left its
            // process group, are killed with it later.
            process.track_descendants_if_due();
            Ok(())
        };
        match prepare() {
            Ok(()) => Ok(()),
            // A refused game is the engine's considered answer, not a fault:
            // the process stays, and the next game asks again.
            Err(EngineError::Refused(why)) => Err(format!(
                "engine {} refused `newgame {}`: {why}",
                self.config.name, self.game_spec
            )),
            Err(e) => {
                self.process = None;
                Err(format!("engine {}: {e}", self.config.name))
            }
        }
    }

    /// The `position` command for `state`: the game's moves from the start
    /// when they lead there (engines that keep history, e.g. for Oware's
    /// repetitions, see it all), else the position's notation.
    fn position<G: Game>(&self, game: &G, state: &G::State) -> Command {
        let mut replay = game.start();
        let replays = self
            .history
            .iter()
            .all(|&mv| game.try_play(&mut replay, mv).is_ok());
        if replays && replay == *state {
            Command::Position {
                base: PositionBase::Start,
                moves: self.history.clone(),
            }
        } else {
            Command::Position {
                base: PositionBase::Notation(game.setup(state).to_string()),
                moves: Vec::new(),
            }
        }
    }

    fn go<G: Game>(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, EngineError> {
        let position = self.position(game, state);
        let mut go = self.config.go;
        // The clocks go to an engine given no limits of its own; one that
        // was given `movetime` (it may know nothing else) keeps it.
        if go.is_empty() {
            go.clock = stop.clock;
        }
        let started = Instant::now();
        // With a clock, the runner's deadline (the flag's fall) comes first.
        let own_limit = match go.movetime {
            Some(t) => t + movetime_margin(t),
            None => UNLIMITED_GO_TIMEOUT,
        };
        let deadline = stop
            .deadline
            .map_or(started + own_limit, |d| d.min(started + own_limit));
        let process = self.process.as_mut().expect("a prepared engine");
        // A second `bestmove` to the last `go`, or `info`s printed since,
        // must not answer this one.
        process.clear_stale(started, deadline, stop.cancel)?;
        process.send(&position)?;
        process.send(&Command::Go(go))?;
        self.info = SearchInfo::default();
        loop {
            match process.next_reply("bestmove", started, deadline, stop.cancel)? {
                Reply::Info(info) => {
                    // Each field as the last line that gave it: engines
                    // often print the score and the line apart.
                    self.info.kind = SearchKind::Engine;
                    self.info.depth = info.depth.unwrap_or(self.info.depth);
                    self.info.nodes = info.nodes.unwrap_or(self.info.nodes);
                    self.info.value = info.score.or(self.info.value);
                    if !info.pv.is_empty() {
                        self.info.pv = info.pv;
                    }
                }
                Reply::BestMove(mv) => {
                    self.info.elapsed = started.elapsed();
                    // Marks where this move's output ends, for the next
                    // `clear_stale`. An engine that no longer reads its
                    // input is found out at its next command.
                    let _ = process.fence();
                    return Ok(mv);
                }
                Reply::Error(why) => return Err(EngineError::Refused(why)),
                other => {
                    return Err(EngineError::Unexpected {
                        waiting_for: "bestmove",
                        line: other.to_string(),
                    })
                }
            }
        }
    }
}

impl Drop for ExternalAgent {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            process.quit();
        }
    }
}

impl<G: Game> Agent<G> for ExternalAgent {
    fn name(&self) -> String {
        self.config.name.clone()
    }

    fn new_game(&mut self, seed: u64) {
        self.history.clear();
        self.info = SearchInfo::default();
        self.not_ready = self.prepare(seed).err();
    }

    fn observe(&mut self, mv: Move) {
        self.history.push(mv);
    }

    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        if game.is_over(state) {
            return Err(AgentError::GameOver);
        }
        if let Some(why) = &self.not_ready {
            return Err(AgentError::Failed(why.clone()));
        }
        if self.process.is_none() {
            // Used outside a runner, without `new_game`: prepare now.
            self.not_ready = self.prepare(0).err();
            if let Some(why) = &self.not_ready {
                return Err(AgentError::Failed(why.clone()));
            }
        }
        match self.go(game, state, stop) {
            Ok(mv) => Ok(mv),
            Err(e) => {
                // Whatever the engine is doing now, it is not following the
                // game: it starts afresh for the next one.
                self.process = None;
                self.not_ready = Some(format!("engine {} was stopped: {e}", self.config.name));
                match e {
                    EngineError::Cancelled => Err(AgentError::Stopped),
                    e => Err(AgentError::Failed(format!(
                        "engine {}: {e}",
                        self.config.name
                    ))),
                }
            }
        }
    }

    fn info(&self) -> SearchInfo {
        self.info
    }

    fn enforces_deadline(&self) -> bool {
        true
    }
}
