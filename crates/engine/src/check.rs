//! `mancala engine check`: takes an engine program through every step of
//! the protocol that a tournament uses, one check at a time, so that a bot
//! author learns what is wrong before a tournament forfeits their games.
//!
//! Each check is a [`CheckLine`]: passed, failed (with why and the last
//! lines exchanged), or not run. A failed check kills the engine, as a
//! tournament would; the next check starts it again, so that one fault
//! does not hide the others.

use std::time::{Duration, Instant};

use mancala_agents::Clock;
use mancala_core::{with_game, Game, GameSpec, Move, MoveSet};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::client::{movetime_margin, DEFAULT_HANDSHAKE_TIMEOUT, SEED_OPTION};
use crate::descendants::Leftover;
use crate::process::{EngineProcess, QuitOutcome};
use crate::protocol::{Command, GoLimits, OptionDecl, PositionBase, Reply};
use crate::EngineError;

/// The games a check offers an engine when it is given none: each family
/// and the rules that change what an engine must know (a smaller board,
/// empty captures, the pie rule's `swap`). Refusing a game is allowed.
pub const DEFAULT_CHECK_GAMES: &[&str] = &[
    "kalah",
    "kalah:pits=4,seeds=3",
    "kalah:empty_capture=true",
    "kalah:pie=true",
    "oware",
    "congkak",
];

/// `go movetime` of the whole game each accepted game is played through:
/// short, since the check is about answers, not strength.
pub const WHOLE_GAME_MOVETIME: Duration = Duration::from_millis(20);

/// How long `go depth 1` and `go nodes 1000` may take: a search that small
/// is instant for any engine that honours the limit.
pub const SMALL_SEARCH_LIMIT: Duration = Duration::from_secs(5);

/// The clock margin of the clock checks: a tournament's default.
pub const CLOCK_MARGIN: Duration = Duration::from_millis(50);

/// How long an engine may take to exit after `quit`. A tournament waits
/// 200 ms and then kills it; the check is more patient, and says so.
pub const QUIT_LIMIT: Duration = Duration::from_secs(1);

/// The most moves of a whole game played by the check (Oware games can
/// cycle for long before the rules end them).
const MAX_GAME_MOVES: usize = 1000;

/// How many of the last lines exchanged a failed check shows.
const EXCHANGE_LINES: usize = 8;

/// What the check runs and how long it waits.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The games offered; `None`: [`DEFAULT_CHECK_GAMES`], any of which the
    /// engine may refuse. Games given here must be accepted.
    pub games: Option<Vec<GameSpec>>,
    /// `go movetime` of the position and `go` checks.
    pub movetime: Duration,
    /// How long starting, `isready` and `newgame` may take.
    pub handshake_timeout: Duration,
    /// Seeds the positions tried and the engine's `Seed` option.
    pub seed: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            games: None,
            movetime: Duration::from_millis(100),
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            seed: 1,
        }
    }
}

/// How a check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It did what the protocol asks.
    Pass,
    /// It did not.
    Fail,
    /// Not run: an earlier failure left nothing to check it with.
    NotRun,
}

/// One check's result: a line of `mancala engine check`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine {
    /// How it ended.
    pub verdict: Verdict,
    /// What was checked (`go movetime 100`, `newgame oware`).
    pub name: String,
    /// What happened, in words.
    pub detail: String,
    /// For a failure, the last lines exchanged: `> ` sent, `< ` received.
    pub exchange: Vec<String>,
}

/// Runs every check on `command` (a program and its arguments), calling
/// `report` with each line as it is decided, and returns them all.
pub fn check_engine(
    command: &[String],
    options: &CheckOptions,
    report: &mut dyn FnMut(&CheckLine),
) -> Vec<CheckLine> {
    let mut checker = Checker {
        command,
        options,
        engine: None,
        lines: Vec::new(),
        report,
    };
    checker.run();
    checker.lines
}

/// Why a check failed.
struct Failure(String);

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Failure {
        Failure(e.to_string())
    }
}

/// A game offered to the engine.
struct Offered {
    spec: GameSpec,
    /// Whether the engine must accept it (the user named it).
    required: bool,
}

struct Checker<'a> {
    command: &'a [String],
    options: &'a CheckOptions,
    /// The running engine, and the game it was last given.
    engine: Option<(EngineProcess, Option<String>)>,
    lines: Vec<CheckLine>,
    report: &'a mut dyn FnMut(&CheckLine),
}

impl Checker<'_> {
    fn run(&mut self) {
        let started = Instant::now();
        match self.start() {
            Ok(engine) => {
                let detail = introduction(&engine, started.elapsed());
                let options = engine.id.options.clone();
                self.engine = Some((engine, None));
                self.pass("start", detail);
                for option in &options {
                    self.check_option(option);
                }
            }
            Err((failure, exchange)) => {
                self.fail("start", failure, exchange);
                for name in ["setoption", "newgame", "go", "quit"] {
                    self.record(CheckLine {
                        verdict: Verdict::NotRun,
                        name: name.into(),
                        detail: "the engine did not start".into(),
                        exchange: Vec::new(),
                    });
                }
                return;
            }
        }
        let offered: Vec<Offered> = match &self.options.games {
            Some(games) => games
                .iter()
                .map(|&spec| Offered {
                    spec,
                    required: true,
                })
                .collect(),
            None => DEFAULT_CHECK_GAMES
                .iter()
                .map(|text| Offered {
                    spec: text.parse().expect("the default games parse"),
                    required: false,
                })
                .collect(),
        };
        let mut accepted = Vec::new();
        for game in &offered {
            if self.check_newgame(game) {
                accepted.push(game.spec);
            }
        }
        if accepted.is_empty() {
            let tried: Vec<String> = offered.iter().map(|g| g.spec.to_string()).collect();
            self.fail(
                "games",
                Failure(format!(
                    "it accepted none of the games offered ({}): nothing is left to check",
                    tried.join(", ")
                )),
                Vec::new(),
            );
        }
        for (k, spec) in accepted.iter().enumerate() {
            with_game!(spec, game => {
                let text = spec.to_string();
                let positions = Positions::of(game, self.options.seed);
                self.check_positions(game, &text, &positions);
                if k == 0 {
                    // The `go` forms are the same for every game: one is enough.
                    self.check_go_forms(game, &text, &positions);
                }
                self.check_whole_game(game, &text);
                self.check_second_game(game, &text);
            });
        }
        self.check_quit();
    }

    /// Starts the engine: the program, its introduction, nothing else.
    fn start(&self) -> Result<EngineProcess, (Failure, Vec<String>)> {
        let mut engine = EngineProcess::spawn(self.command, None, None)
            .map_err(|e| (Failure::from(e), Vec::new()))?;
        match engine.introduce(self.options.handshake_timeout, None) {
            Ok(()) => Ok(engine),
            Err(e) => Err((e.into(), engine.transcript(EXCHANGE_LINES))),
        }
    }

    /// The running engine, started again (with its options) after a
    /// failure killed it.
    fn engine(&mut self) -> Result<&mut EngineProcess, Failure> {
        if self.engine.is_none() {
            let mut engine = self
                .start()
                .map_err(|(f, _)| Failure(format!("starting the engine again failed: {}", f.0)))?;
            for option in engine.id.options.clone() {
                if let Some(value) = check_value(&option) {
                    engine.send(&Command::SetOption {
                        name: option.name.clone(),
                        value,
                    })?;
                }
            }
            self.engine = Some((engine, None));
        }
        Ok(&mut self.engine.as_mut().expect("started above").0)
    }

    /// Makes sure the engine plays `spec`: `newgame` (with the `Seed`
    /// option first, as a tournament does) unless it was the last one.
    fn play(&mut self, spec: &str) -> Result<&mut EngineProcess, Failure> {
        let seed = self.options.seed;
        let timeout = self.options.handshake_timeout;
        self.engine()?;
        let (engine, game) = self.engine.as_mut().expect("started above");
        if game.as_deref() != Some(spec) {
            if let Some(why) = new_game(engine, spec, seed, timeout)? {
                return Err(Failure(format!(
                    "`newgame {spec}` refused (`error {why}`) after it was accepted"
                )));
            }
            *game = Some(spec.to_string());
        }
        Ok(engine)
    }

    /// Records a check's result; a failure kills the engine.
    fn outcome(&mut self, name: String, result: Result<String, Failure>) -> bool {
        if let Some((engine, _)) = &mut self.engine {
            // A helper that leaves the engine's group is found only while
            // its parent lives: look at every step.
            engine.track_descendants();
        }
        match result {
            Ok(detail) => {
                self.pass(name, detail);
                true
            }
            Err(failure) => {
                let exchange = self
                    .engine
                    .as_ref()
                    .map(|(e, _)| e.transcript(EXCHANGE_LINES))
                    .unwrap_or_default();
                // Dropping it kills its group, as a tournament would.
                self.engine = None;
                self.fail(name, failure, exchange);
                false
            }
        }
    }

    fn check_option(&mut self, option: &OptionDecl) {
        let Some(value) = check_value(option) else {
            self.pass(
                format!("setoption {}", option.name),
                format!("type `{}` has no value to set; left alone", option.kind),
            );
            return;
        };
        let timeout = self.options.handshake_timeout;
        let result = self.engine().and_then(|engine| {
            engine.send(&Command::SetOption {
                name: option.name.clone(),
                value: value.clone(),
            })?;
            ready(engine, timeout, "after `setoption`")?;
            Ok(format!("value `{value}` taken (`readyok` after it)"))
        });
        self.outcome(format!("setoption {} value {value}", option.name), result);
    }

    /// `newgame`: accepted (true), refused or failed (false).
    fn check_newgame(&mut self, offered: &Offered) -> bool {
        let spec = offered.spec.to_string();
        let name = format!("newgame {spec}");
        let seed = self.options.seed;
        let timeout = self.options.handshake_timeout;
        let result = self
            .engine()
            .and_then(|engine| new_game(engine, &spec, seed, timeout));
        match result {
            Ok(None) => {
                if let Some((_, game)) = self.engine.as_mut() {
                    *game = Some(spec);
                }
                self.pass(name, "accepted (`readyok` after it)".into());
                true
            }
            Ok(Some(why)) if !offered.required => {
                // A refused game is the engine's considered answer.
                if let Some((_, game)) = self.engine.as_mut() {
                    *game = None;
                }
                self.pass(
                    name,
                    format!("refused (`error {why}`), as the protocol allows: not checked further"),
                );
                false
            }
            Ok(Some(why)) => {
                self.outcome(
                    name,
                    Err(Failure(format!(
                        "refused (`error {why}`), but this game was asked for"
                    ))),
                );
                false
            }
            Err(failure) => {
                self.outcome(name, Err(failure));
                false
            }
        }
    }

    /// Legal answers in several positions: moves from the start through
    /// extra turns and `swap`, and positions in notation.
    fn check_positions<G: Game>(&mut self, game: &G, spec: &str, positions: &Positions) {
        let movetime = self.options.movetime;
        let timeout = self.options.handshake_timeout;
        let mut slowest = Duration::ZERO;
        let mut tried = Vec::new();
        let mut result = Ok(());
        for (what, position) in positions.commands(game) {
            let limits = GoLimits {
                movetime: Some(movetime),
                ..GoLimits::default()
            };
            let legal = game.legal_moves(&state_of(game, &position));
            let answer = self.play(spec).and_then(|engine| {
                go(
                    engine,
                    &position,
                    limits,
                    movetime + movetime_margin(movetime),
                    legal,
                    timeout,
                )
            });
            match answer {
                Ok(took) => {
                    slowest = slowest.max(took);
                    tried.push(what);
                }
                Err(Failure(why)) => {
                    result = Err(Failure(format!("{what}: {why}")));
                    break;
                }
            }
        }
        let detail = result.map(|()| {
            format!(
                "legal answers in {} positions ({}), the slowest in {} ms",
                tried.len(),
                tried.join(", "),
                slowest.as_millis()
            )
        });
        self.outcome(format!("positions ({spec})"), detail);
    }

    /// Every form of `go` a tournament sends, on one position.
    fn check_go_forms<G: Game>(&mut self, game: &G, spec: &str, positions: &Positions) {
        let movetime = self.options.movetime;
        let timeout = self.options.handshake_timeout;
        let position = positions.mid_game();
        let state = state_of(game, &position);
        let legal = game.legal_moves(&state);
        let mover = game.to_move(&state).expect("the middle of a game").index();
        let clock = |moves_to_go| Clock {
            remaining: [Duration::from_millis(1500), Duration::from_millis(1300)],
            increment: [Duration::from_millis(20), Duration::from_millis(30)],
            moves_to_go,
        };
        let forms = [
            (
                GoLimits {
                    movetime: Some(movetime),
                    ..GoLimits::default()
                },
                movetime + movetime_margin(movetime),
            ),
            (
                GoLimits {
                    depth: Some(1),
                    ..GoLimits::default()
                },
                SMALL_SEARCH_LIMIT,
            ),
            (
                GoLimits {
                    nodes: Some(1000),
                    ..GoLimits::default()
                },
                SMALL_SEARCH_LIMIT,
            ),
            (
                GoLimits {
                    clock: Some(clock(None)),
                    ..GoLimits::default()
                },
                clock(None).remaining[mover] + CLOCK_MARGIN,
            ),
            (
                GoLimits {
                    clock: Some(clock(Some(5))),
                    ..GoLimits::default()
                },
                clock(Some(5)).remaining[mover] + CLOCK_MARGIN,
            ),
        ];
        for (limits, limit) in forms {
            let result = self
                .play(spec)
                .and_then(|engine| go(engine, &position, limits, limit, legal, timeout))
                .map(|took| {
                    format!(
                        "a legal answer in {} ms (allowed: {} ms)",
                        took.as_millis(),
                        limit.as_millis()
                    )
                });
            self.outcome(format!("go {limits}"), result);
        }
    }

    /// A whole game, the engine playing both sides, every move legal.
    fn check_whole_game<G: Game>(&mut self, game: &G, spec: &str) {
        let timeout = self.options.handshake_timeout;
        let limits = GoLimits {
            movetime: Some(WHOLE_GAME_MOVETIME),
            ..GoLimits::default()
        };
        let limit = WHOLE_GAME_MOVETIME + movetime_margin(WHOLE_GAME_MOVETIME);
        let mut state = game.start();
        let mut moves = Vec::new();
        let result = (|| -> Result<String, Failure> {
            while !game.is_over(&state) && moves.len() < MAX_GAME_MOVES {
                let position = Command::Position {
                    base: PositionBase::Start,
                    moves: moves.clone(),
                };
                let engine = self.play(spec)?;
                let mv = go_move(
                    engine,
                    &position,
                    limits,
                    limit,
                    game.legal_moves(&state),
                    timeout,
                )?;
                game.play_unchecked(&mut state, mv.0);
                moves.push(mv.0);
            }
            Ok(match game.outcome(&state) {
                Some(outcome) => format!(
                    "{} moves to the end ({}-{}), every one legal",
                    moves.len(),
                    outcome.scores.0[0],
                    outcome.scores.0[1]
                ),
                None => format!(
                    "{} legal moves (stopped there, the game not over)",
                    moves.len()
                ),
            })
        })();
        self.outcome(format!("whole game ({spec})"), result);
    }

    /// `newgame` and `isready` between games, then a first move.
    fn check_second_game<G: Game>(&mut self, game: &G, spec: &str) {
        let seed = self.options.seed;
        let timeout = self.options.handshake_timeout;
        let movetime = self.options.movetime;
        let limits = GoLimits {
            movetime: Some(movetime),
            ..GoLimits::default()
        };
        let start = Command::Position {
            base: PositionBase::Start,
            moves: Vec::new(),
        };
        let result = self.play(spec).and_then(|engine| {
            if let Some(why) = new_game(engine, spec, seed.wrapping_add(1), timeout)? {
                return Err(Failure(format!("the next game refused (`error {why}`)")));
            }
            go(
                engine,
                &start,
                limits,
                movetime + movetime_margin(movetime),
                game.legal_moves(&game.start()),
                timeout,
            )?;
            Ok("`readyok` after the next `newgame`, and a legal first move".to_string())
        });
        self.outcome(format!("next game ({spec})"), result);
    }

    /// `quit`: the engine exits by itself, and leaves nothing running.
    fn check_quit(&mut self) {
        let result = self.engine().map(|_| ()).and_then(|()| {
            let (engine, _) = self.engine.take().expect("started above");
            match engine.quit_and_wait(QUIT_LIMIT) {
                QuitOutcome::Exited {
                    after,
                    left_behind,
                    status,
                } if left_behind.is_empty() => Ok(format!(
                    "exited ({status}) {} ms after `quit`, nothing of it left running",
                    after.as_millis()
                )),
                QuitOutcome::Exited { left_behind, .. } => Err(Failure(left_running(&left_behind))),
                QuitOutcome::StillRunning => Err(Failure(format!(
                    "still running {} ms after `quit` (killed now; a tournament kills it after 200 ms)",
                    QUIT_LIMIT.as_millis()
                ))),
            }
        });
        self.outcome("quit".into(), result);
    }

    fn pass(&mut self, name: impl Into<String>, detail: String) {
        self.record(CheckLine {
            verdict: Verdict::Pass,
            name: name.into(),
            detail,
            exchange: Vec::new(),
        });
    }

    fn fail(&mut self, name: impl Into<String>, failure: Failure, exchange: Vec<String>) {
        self.record(CheckLine {
            verdict: Verdict::Fail,
            name: name.into(),
            detail: failure.0,
            exchange,
        });
    }

    fn record(&mut self, line: CheckLine) {
        (self.report)(&line);
        self.lines.push(line);
    }
}

/// How many leftovers a failed `quit` check names; the count says the rest.
const LEFTOVERS_NAMED: usize = 5;

/// The failure of an engine that exited after `quit` but left processes
/// running: how many, and the first few by pid and command line.
fn left_running(left: &[Leftover]) -> String {
    let named: Vec<String> = left
        .iter()
        .take(LEFTOVERS_NAMED)
        .map(|p| format!("pid {} ({})", p.pid, p.command))
        .collect();
    let more = left.len().saturating_sub(LEFTOVERS_NAMED);
    format!(
        "it exited, but left {} running (killed now): {}{}",
        match left.len() {
            1 => "1 process".to_string(),
            n => format!("{n} processes"),
        },
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// `setoption Seed` (when declared), `newgame SPEC`, `isready`, as a
/// tournament prepares a game; `Some(why)` when the engine refused it.
fn new_game(
    engine: &mut EngineProcess,
    spec: &str,
    seed: u64,
    timeout: Duration,
) -> Result<Option<String>, Failure> {
    if engine.id.has_option(SEED_OPTION) {
        engine.send(&Command::SetOption {
            name: SEED_OPTION.into(),
            value: seed.to_string(),
        })?;
    }
    engine.send(&Command::NewGame(spec.to_string()))?;
    let since = Instant::now();
    engine.send(&Command::IsReady)?;
    let refused = wait_ready(engine, since, timeout, "after `newgame`")?;
    if refused.is_some() {
        // The `error` answered `newgame`; the `readyok` is still to come.
        if let Some(why) = wait_ready(engine, since, timeout, "after `error`")? {
            return Err(Failure(format!("a second `error {why}` after `newgame`")));
        }
    }
    Ok(refused)
}

/// Sends `isready` and waits for `readyok`; only `info` may come first.
fn ready(engine: &mut EngineProcess, timeout: Duration, when: &str) -> Result<(), Failure> {
    let since = Instant::now();
    engine.send(&Command::IsReady)?;
    match wait_ready(engine, since, timeout, when)? {
        None => Ok(()),
        Some(why) => Err(Failure(format!("`error {why}` {when}"))),
    }
}

/// Waits for the `readyok` of an `isready` sent at `since`, only `info`
/// allowed before it; an `error` before it is returned (the answer to the
/// command before the `isready`), and the `readyok` is left to come.
fn wait_ready(
    engine: &mut EngineProcess,
    since: Instant,
    timeout: Duration,
    when: &str,
) -> Result<Option<String>, Failure> {
    loop {
        match engine.next_reply("readyok", since, since + timeout, None)? {
            Reply::ReadyOk => return Ok(None),
            Reply::Info(_) => {}
            Reply::Error(why) => return Ok(Some(why)),
            other => {
                return Err(Failure(format!(
                    "`{other}` {when}, where only `readyok` (or `info`) may come"
                )))
            }
        }
    }
}

/// Sends `position` and `go`, waits for a legal `bestmove` within `limit`,
/// then checks that nothing but `info` comes before the `readyok` of the
/// `isready` that follows, as a tournament sends it. Returns the time the
/// answer took.
fn go(
    engine: &mut EngineProcess,
    position: &Command,
    limits: GoLimits,
    limit: Duration,
    legal: MoveSet,
    timeout: Duration,
) -> Result<Duration, Failure> {
    go_move(engine, position, limits, limit, legal, timeout).map(|(_, took)| took)
}

fn go_move(
    engine: &mut EngineProcess,
    position: &Command,
    limits: GoLimits,
    limit: Duration,
    legal: MoveSet,
    timeout: Duration,
) -> Result<(Move, Duration), Failure> {
    engine.send(position)?;
    let since = Instant::now();
    engine.send(&Command::Go(limits))?;
    let (mv, took) = loop {
        match engine.next_reply("bestmove", since, since + limit, None)? {
            Reply::Info(_) => {}
            Reply::BestMove(mv) => break (mv, since.elapsed()),
            Reply::Error(why) => {
                return Err(Failure(format!("`error {why}` instead of `bestmove`")))
            }
            other => {
                return Err(Failure(format!(
                    "`{other}` while waiting for `bestmove`, where only `info` may come"
                )))
            }
        }
    };
    if !legal.contains(mv) {
        return Err(Failure(format!(
            "`bestmove {mv}` is not legal here (legal: {})",
            legal.to_human()
        )));
    }
    ready(engine, timeout, "after `bestmove` (a second answer?)")?;
    Ok((mv, took))
}

/// The value a check sets an option to: its declared default, else the
/// type's natural one; `None` for a `button` (nothing to set).
fn check_value(option: &OptionDecl) -> Option<String> {
    let words: Vec<&str> = option.details.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|at| words.get(at + 1))
            .map(|w| (*w).to_string())
    };
    match option.kind.as_str() {
        "button" => None,
        "spin" => Some(
            after("default")
                .or_else(|| after("min"))
                .unwrap_or_else(|| "0".into()),
        ),
        "check" => Some(after("default").unwrap_or_else(|| "false".into())),
        "combo" => Some(
            after("default")
                .or_else(|| after("var"))
                .unwrap_or_default(),
        ),
        _ => Some(after("default").unwrap_or_default()),
    }
}

/// The start line of a passed `start` check.
fn introduction(engine: &EngineProcess, took: Duration) -> String {
    let id = &engine.id;
    let name = id
        .name
        .as_ref()
        .map_or("no `id name` (optional)".to_string(), |n| {
            format!("`id name {n}`")
        });
    let options: Vec<String> = id
        .options
        .iter()
        .map(|o| format!("{} ({})", o.name, o.kind))
        .collect();
    let options = if options.is_empty() {
        "no options".to_string()
    } else {
        format!("options {}", options.join(", "))
    };
    format!(
        "{name}, {options}; `mancalaok` after {} ms",
        took.as_millis()
    )
}

/// The positions of one game the checks send, found by seeded random
/// play: where an extra turn has just been taken, where `swap` has just
/// been played, the middle and the end of a game.
struct Positions {
    /// One game's moves from the start, to its end.
    moves: Vec<Move>,
    /// After how many moves each named position comes.
    marks: Vec<(&'static str, usize)>,
}

impl Positions {
    fn of<G: Game>(game: &G, seed: u64) -> Positions {
        let mut rng = SmallRng::seed_from_u64(seed);
        // A game with an extra turn and (where the rules offer it) a swap,
        // the positions an engine most often gets wrong; the fullest of
        // a few tries.
        let mut best: Option<RandomGame> = None;
        for _ in 0..64 {
            let tried = RandomGame::play(game, &mut rng);
            if best.as_ref().is_none_or(|b| tried.found() > b.found()) {
                best = Some(tried);
            }
            let b = best.as_ref().expect("set above");
            if b.found() == 1 + usize::from(b.swap_offered) {
                break;
            }
        }
        let RandomGame {
            moves, extra, swap, ..
        } = best.expect("at least one game");
        let mut marks = vec![("the start", 0)];
        if let Some(at) = extra {
            marks.push(("after an extra turn", at));
        }
        if let Some(at) = swap {
            marks.push(("after `swap`", at));
        }
        marks.push(("the middle game", moves.len() / 2));
        marks.push(("near the end", moves.len().saturating_sub(2)));
        Positions { moves, marks }
    }

    /// The `position` commands: every mark from the start with its moves,
    /// then the middle game in notation, without and with moves after it.
    fn commands<G: Game>(&self, game: &G) -> Vec<(String, Command)> {
        let mut commands: Vec<(String, Command)> = self
            .marks
            .iter()
            .map(|&(what, at)| (what.to_string(), self.after_moves(at)))
            .collect();
        let middle = self.moves.len() / 2;
        let mut state = game.start();
        for &mv in &self.moves[..middle] {
            game.play_unchecked(&mut state, mv);
        }
        let notation = game.setup(&state).to_string();
        commands.push((
            "a position in notation".into(),
            Command::Position {
                base: PositionBase::Notation(notation.clone()),
                moves: Vec::new(),
            },
        ));
        // Two moves on, the game still going (it ends after the last move).
        if middle + 2 < self.moves.len() {
            commands.push((
                "a position in notation with moves".into(),
                Command::Position {
                    base: PositionBase::Notation(notation),
                    moves: self.moves[middle..middle + 2].to_vec(),
                },
            ));
        }
        commands
    }

    /// The middle game, with its moves from the start.
    fn mid_game(&self) -> Command {
        self.after_moves(self.moves.len() / 2)
    }

    fn after_moves(&self, moves: usize) -> Command {
        Command::Position {
            base: PositionBase::Start,
            moves: self.moves[..moves].to_vec(),
        }
    }
}

/// One game of random moves, and where its interesting positions are.
struct RandomGame {
    moves: Vec<Move>,
    /// The moves before the first position reached by an extra turn.
    extra: Option<usize>,
    /// The moves before the first position reached by `swap`.
    swap: Option<usize>,
    /// Whether the rules offered `swap` at all.
    swap_offered: bool,
}

impl RandomGame {
    fn play<G: Game>(game: &G, rng: &mut SmallRng) -> RandomGame {
        let mut state = game.start();
        let mut played = RandomGame {
            moves: Vec::new(),
            extra: None,
            swap: None,
            swap_offered: false,
        };
        while let Some(mover) = game.to_move(&state) {
            if played.moves.len() >= MAX_GAME_MOVES {
                break;
            }
            let legal = game.legal_moves(&state);
            played.swap_offered |= legal.contains(Move::Swap);
            let mv = legal.nth(rng.random_range(0..legal.len()));
            game.play_unchecked(&mut state, mv);
            played.moves.push(mv);
            let at = played.moves.len();
            if mv == Move::Swap {
                played.swap.get_or_insert(at);
            } else if game.to_move(&state) == Some(mover) {
                played.extra.get_or_insert(at);
            }
        }
        played
    }

    /// How many of the wanted positions the game reached.
    fn found(&self) -> usize {
        usize::from(self.extra.is_some()) + usize::from(self.swap.is_some())
    }
}

/// The state a `position` command describes (commands made by the check
/// itself, so they are valid).
fn state_of<G: Game>(game: &G, position: &Command) -> G::State {
    let Command::Position { base, moves } = position else {
        unreachable!("a position command");
    };
    let mut state = match base {
        PositionBase::Start => game.start(),
        PositionBase::Notation(text) => game
            .parse_position(text)
            .expect("the check's own notation parses"),
    };
    for &mv in moves {
        game.play_unchecked(&mut state, mv);
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(kind: &str, details: &str) -> OptionDecl {
        OptionDecl {
            name: "X".into(),
            kind: kind.into(),
            details: details.into(),
        }
    }

    #[test]
    fn options_are_set_to_their_declared_defaults() {
        assert_eq!(
            check_value(&decl("spin", "default 16 min 1 max 1024")).as_deref(),
            Some("16")
        );
        assert_eq!(
            check_value(&decl("spin", "min 1 max 8")).as_deref(),
            Some("1")
        );
        assert_eq!(
            check_value(&decl("check", "default true")).as_deref(),
            Some("true")
        );
        assert_eq!(check_value(&decl("check", "")).as_deref(), Some("false"));
        assert_eq!(
            check_value(&decl("combo", "var fast var slow")).as_deref(),
            Some("fast")
        );
        assert_eq!(
            check_value(&decl("string", "default <empty>")).as_deref(),
            Some("<empty>")
        );
        assert_eq!(check_value(&decl("button", "")), None);
    }

    #[test]
    fn the_positions_tried_hold_an_extra_turn_and_a_swap_where_the_rules_have_them() {
        for (spec, swap) in [
            ("kalah", false),
            ("kalah:pie=true", true),
            ("congkak", false),
        ] {
            let spec: GameSpec = spec.parse().unwrap();
            with_game!(&spec, game => {
                let positions = Positions::of(game, 1);
                let names: Vec<&str> = positions.marks.iter().map(|(n, _)| *n).collect();
                assert!(names.contains(&"after an extra turn"), "{spec}: {names:?}");
                assert_eq!(names.contains(&"after `swap`"), swap, "{spec}: {names:?}");
                // Every command describes a position with a move to make.
                for (what, command) in positions.commands(game) {
                    let state = state_of(game, &command);
                    assert!(!game.legal_moves(&state).is_empty(), "{spec}, {what}");
                }
                // The position after an extra turn is one: the same player
                // moved last and moves now.
                let (_, at) = positions.marks[1];
                let mut before = game.start();
                for &mv in &positions.moves[..at - 1] {
                    game.play_unchecked(&mut before, mv);
                }
                let after = state_of(game, &positions.after_moves(at));
                assert_eq!(game.to_move(&before), game.to_move(&after), "{spec}");
                // The same seed, the same positions.
                assert_eq!(Positions::of(game, 1).moves, positions.moves);
            });
        }
    }
}
