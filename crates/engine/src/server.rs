//! An agent served over the protocol: the engine's side, for
//! `mancala engine AGENT_SPEC`, so that this toolkit's agents can play in
//! other people's tools.

use std::io::{BufRead, Write};
use std::time::Instant;

use mancala_agents::{Agent, SearchInfo, SearchKind, StopCondition};
use mancala_core::spec::truncate_input;
use mancala_core::{with_game, CongkakRules, Game, GameSpec, KalahRules, OwareRules};

use crate::client::SEED_OPTION;
use crate::process::MAX_LINE_BYTES;
use crate::protocol::{
    plain_number, read_line, skip_rest_of_line, Command, GoLimits, Info, InputLine, OptionDecl,
    PositionBase, Reply,
};
use crate::EngineError;

/// A line of the runner's that cannot be read as a command at all.
struct Unreadable {
    /// Its first word, to tell a broken `position` from other lines.
    first_word: String,
    /// What is wrong, for the `error` reply.
    why: String,
}

/// The runner's commands, line by line, each at most [`MAX_LINE_BYTES`]
/// long as the runner's side reads the engine's: a longer line is skipped
/// without being kept, whatever its size.
struct Lines<R> {
    input: R,
}

impl<R: BufRead> Lines<R> {
    /// The next line; `None` at the end of the input.
    fn next(&mut self) -> Result<Option<Result<String, Unreadable>>, EngineError> {
        let line = match read_line(&mut self.input, MAX_LINE_BYTES).map_err(EngineError::Io)? {
            None => return Ok(None),
            Some(InputLine::Text(text)) => return Ok(Some(Ok(text))),
            Some(line) => line,
        };
        let first_word = line.first_word().to_string();
        let why = match &line {
            InputLine::TooLong(start) => {
                let rest = skip_rest_of_line(&mut self.input).map_err(EngineError::Io)?;
                format!(
                    "a line of {} bytes is longer than the limit of {} KiB: `{}`",
                    start.len() as u64 + rest,
                    MAX_LINE_BYTES / 1024,
                    truncate_input(start)
                )
            }
            other => format!(
                "a line that is not UTF-8 text: `{}`",
                truncate_input(other.text())
            ),
        };
        Ok(Some(Err(Unreadable { first_word, why })))
    }
}

/// Builds the agent being served for games of `G`.
pub trait AgentSource<G: Game> {
    /// A fresh agent for `game`.
    ///
    /// # Errors
    /// Why the agent cannot play this game, in words (it becomes `error`).
    fn build(&self, game: &G) -> Result<Box<dyn Agent<G>>, String>;
}

/// Builds the agent being served, for whichever game `newgame` names: a
/// source for each game. (A trait per game, rather than one generic
/// method, lets a source ask more of the game than [`Game`]: the agent
/// registry's needs the solver's bound.)
pub trait EverySource:
    AgentSource<KalahRules> + AgentSource<CongkakRules> + AgentSource<OwareRules>
{
    /// The name the engine gives in `id name`.
    fn name(&self) -> String;
}

/// What ended a game's session.
enum Next {
    /// `newgame` with other rules: a new session.
    NewGame(String),
    /// `quit` or the end of the input.
    Quit,
}

struct Server<'a, S, W> {
    source: &'a S,
    output: W,
    seed: u64,
}

impl<S: EverySource, W: Write> Server<'_, S, W> {
    fn say(&mut self, reply: &Reply) -> Result<(), EngineError> {
        writeln!(self.output, "{reply}")
            .and_then(|()| self.output.flush())
            .map_err(EngineError::Io)
    }

    fn introduce(&mut self) -> Result<(), EngineError> {
        self.say(&Reply::IdName(format!("mancala {}", self.source.name())))?;
        self.say(&Reply::IdAuthor("the mancala toolkit".into()))?;
        self.say(&Reply::Option(OptionDecl {
            name: SEED_OPTION.into(),
            kind: "spin".into(),
            details: format!("default 0 min 0 max {}", u64::MAX),
        }))?;
        self.say(&Reply::MancalaOk)
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        if name.eq_ignore_ascii_case(SEED_OPTION) {
            match plain_number(value) {
                Some(seed) => self.seed = seed,
                None => self.say(&Reply::Error(format!(
                    "option {SEED_OPTION}: '{value}' is not a whole number"
                )))?,
            }
            return Ok(());
        }
        self.say(&Reply::Info(Info {
            text: Some(format!("ignoring unknown option {name}")),
            ..Info::default()
        }))
    }

    /// Answers the commands that mean the same in and out of a game; `Ok(false)`
    /// for the others.
    fn common(&mut self, command: &Command) -> Result<bool, EngineError> {
        match command {
            Command::Mancala => self.introduce()?,
            Command::IsReady => self.say(&Reply::ReadyOk)?,
            Command::SetOption { name, value } => self.set_option(name, value)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Plays games of `spec` until the rules change or the input ends.
    fn session<G: Game>(
        &mut self,
        game: &G,
        spec: &str,
        lines: &mut Lines<impl BufRead>,
    ) -> Result<Next, EngineError>
    where
        S: AgentSource<G>,
    {
        let mut agent = match self.source.build(game) {
            Ok(agent) => agent,
            Err(why) => {
                self.say(&Reply::Error(why))?;
                return self.wait_for_newgame(lines);
            }
        };
        agent.new_game(self.seed);
        let mut state = Some(game.start());
        while let Some(line) = lines.next()? {
            let command = match parse_command(line) {
                None => continue,
                Some(Ok(c)) => c,
                Some(Err(bad)) => {
                    // A `position` that cannot be read leaves no position:
                    // answering the next `go` for the previous one would be
                    // answering another question.
                    if bad.first_word == "position" {
                        state = None;
                    }
                    self.say(&Reply::Error(bad.why))?;
                    continue;
                }
            };
            if self.common(&command)? {
                continue;
            }
            match command {
                Command::NewGame(next) if next.trim() == spec => {
                    agent.new_game(self.seed);
                    state = Some(game.start());
                }
                Command::NewGame(next) => return Ok(Next::NewGame(next)),
                Command::Quit => return Ok(Next::Quit),
                Command::Position { base, moves } => {
                    state = match position(game, &base, &moves) {
                        Ok(s) => Some(s),
                        Err(why) => {
                            self.say(&Reply::Error(why))?;
                            None
                        }
                    };
                }
                Command::Go(limits) => {
                    let Some(current) = &state else {
                        self.say(&Reply::Error(
                            "no valid position: send `position` first".into(),
                        ))?;
                        continue;
                    };
                    self.go(game, agent.as_mut(), current, &limits)?;
                }
                Command::Mancala | Command::IsReady | Command::SetOption { .. } => {
                    unreachable!("answered by `common`")
                }
            }
        }
        Ok(Next::Quit)
    }

    /// Answers `go` for `current`: the agent thinks within `limits`, then
    /// the engine reports what it found (`info`) and its move (`bestmove`),
    /// or `error` when it has none.
    fn go<G: Game>(
        &mut self,
        game: &G,
        agent: &mut dyn Agent<G>,
        current: &G::State,
        limits: &GoLimits,
    ) -> Result<(), EngineError> {
        let started = Instant::now();
        let stop = go_stop(game, current, limits, started);
        match agent.choose_until(game, current, stop) {
            Ok(mv) => {
                self.say(&Reply::Info(search_report(agent.info(), started)))?;
                self.say(&Reply::BestMove(mv))
            }
            Err(e) => self.say(&Reply::Error(e.to_string())),
        }
    }

    /// After a game the agent cannot play: answer what can be answered
    /// until the next `newgame`.
    fn wait_for_newgame(&mut self, lines: &mut Lines<impl BufRead>) -> Result<Next, EngineError> {
        while let Some(line) = lines.next()? {
            let line = match line {
                Ok(line) => line,
                Err(bad) => {
                    self.say(&Reply::Error(bad.why))?;
                    continue;
                }
            };
            match Command::parse(&line) {
                Ok(Command::NewGame(spec)) => return Ok(Next::NewGame(spec)),
                Ok(Command::Quit) => return Ok(Next::Quit),
                Ok(c) if self.common(&c)? => {}
                Ok(_) => self.say(&Reply::Error(
                    "no game: send a `newgame` this engine can play".into(),
                ))?,
                Err(e) if line.trim().is_empty() => drop(e),
                Err(e) => self.say(&Reply::Error(e.to_string()))?,
            }
        }
        Ok(Next::Quit)
    }
}

/// A line of the runner's as a command; `None` for a blank line, which
/// needs no answer.
fn parse_command(line: Result<String, Unreadable>) -> Option<Result<Command, Unreadable>> {
    match line {
        Ok(text) if text.trim().is_empty() => None,
        Ok(text) => Some(Command::parse(&text).map_err(|e| Unreadable {
            first_word: text.split_whitespace().next().unwrap_or("").to_string(),
            why: e.to_string(),
        })),
        Err(bad) => Some(Err(bad)),
    }
}

/// When a `go` begun at `started` must stop: at `movetime` when one is
/// given, and with a clock never past the mover's own flag, whatever the
/// agent's budget (`time=auto` plans within it).
fn go_stop<G: Game>(
    game: &G,
    current: &G::State,
    limits: &GoLimits,
    started: Instant,
) -> StopCondition<'static> {
    let flag = limits.clock.and_then(|c| {
        let mover = game.to_move(current)?;
        started.checked_add(c.remaining_for(mover))
    });
    StopCondition {
        deadline: limits.movetime.map(|t| started + t),
        cancel: None,
        clock: limits.clock,
    }
    .or_by(flag)
}

/// The `info` reply for a search begun at `started`.
fn search_report(info: SearchInfo, started: Instant) -> Info {
    // The protocol's score is in seeds: an MCTS value (an expected score)
    // is not one.
    let score = info.value.filter(|_| info.kind != SearchKind::Mcts);
    Info {
        depth: Some(info.depth),
        nodes: Some(info.nodes),
        score,
        time: Some(started.elapsed().as_millis() as u64),
        pv: info.pv,
        text: None,
    }
}

/// The state a `position` command describes.
fn position<G: Game>(
    game: &G,
    base: &PositionBase,
    moves: &[mancala_core::Move],
) -> Result<G::State, String> {
    let mut state = match base {
        PositionBase::Start => game.start(),
        PositionBase::Notation(text) => game.parse_position(text).map_err(|e| e.to_string())?,
    };
    for (k, &mv) in moves.iter().enumerate() {
        game.try_play(&mut state, mv)
            .map_err(|e| format!("move {} ({mv}): {e}", k + 1))?;
    }
    Ok(state)
}

/// Serves `source`'s agent: reads commands from `input` until `quit` or
/// its end, and writes replies to `output`, one flushed line each.
///
/// A command that cannot be carried out gets `error TEXT`; the engine keeps
/// serving. So does a line that cannot be read: one that is not UTF-8, or
/// longer than [`MAX_LINE_BYTES`] (skipped without being kept). A
/// `position` that fails leaves no position, so that the next `go` gets
/// `error` rather than a move for an older one. `go` thinks with the
/// agent's own budget, and stops at `movetime` when one is given.
///
/// # Errors
/// Only when reading the input or writing the output fails.
pub fn serve<S: EverySource>(
    source: &S,
    input: impl BufRead,
    output: impl Write,
) -> Result<(), EngineError> {
    let mut server = Server {
        source,
        output,
        seed: 0,
    };
    let mut lines = Lines { input };
    let mut next = server.wait_for_newgame(&mut lines)?;
    while let Next::NewGame(spec) = next {
        next = match spec.parse::<GameSpec>() {
            Ok(rules) => {
                let spec = spec.trim().to_string();
                with_game!(&rules, game => server.session(game, &spec, &mut lines))?
            }
            Err(e) => {
                server.say(&Reply::Error(format!("newgame: {e}")))?;
                server.wait_for_newgame(&mut lines)?
            }
        };
    }
    Ok(())
}
