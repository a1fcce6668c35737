//! The protocol's lines as data: the [`Command`]s a runner sends and the
//! [`Reply`]s an engine gives, each parsed from and written as one line.
//!
//! `docs/engine-protocol.md` is the specification; this module is the one
//! place that reads and writes it, for both sides.

use std::fmt;
use std::io::{self, BufRead};
use std::time::Duration;

use mancala_agents::clock::MAX_CLOCK;
use mancala_agents::{Clock, Pv};
use mancala_core::spec::truncate_input;
use mancala_core::Move;

use crate::ProtocolError;

/// The limits of a `go` command. An empty set means "your own default".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    /// Think for at most this long.
    pub movetime: Option<Duration>,
    /// Search at most this many nodes (the engine's own unit).
    pub nodes: Option<u64>,
    /// Search at most this deep (the engine's own unit).
    pub depth: Option<u32>,
    /// The game's clocks (`wtime`, `btime`, `winc`, `binc`, `movestogo`:
    /// `w` is player 0, who moved first, `b` player 1): the engine plans
    /// its own time and loses the game if its clock runs out.
    pub clock: Option<Clock>,
}

/// The clock fields of `go`, in the order they are written.
const CLOCK_KEYS: [&str; 5] = ["wtime", "btime", "winc", "binc", "movestogo"];

impl GoLimits {
    /// Reads the arguments of a `go` command (`movetime 100 nodes 5000`),
    /// with or without the leading `go`.
    ///
    /// # Errors
    /// An unknown key, a missing or bad number.
    pub fn parse(text: &str) -> Result<GoLimits, ProtocolError> {
        let mut tokens = text.split_whitespace().peekable();
        if tokens.peek() == Some(&"go") {
            tokens.next();
        }
        let mut limits = GoLimits::default();
        // wtime, btime, winc, binc, movestogo as read (milliseconds, moves).
        let mut clock: [Option<u64>; 5] = [None; 5];
        while let Some(key) = tokens.next() {
            let value = tokens.next().ok_or_else(|| ProtocolError::BadCommand {
                line: text.to_string(),
                why: format!("`{key}` needs a number after it"),
            })?;
            let number = |max: u64| -> Result<u64, ProtocolError> {
                plain_number::<u64>(value)
                    .filter(|&n| n <= max)
                    .ok_or_else(|| ProtocolError::BadCommand {
                        line: text.to_string(),
                        why: format!("`{key} {value}`: expected a whole number up to {max}"),
                    })
            };
            match key {
                "movetime" => {
                    limits.movetime = Some(Duration::from_millis(number(u32::MAX as u64)?))
                }
                "nodes" => limits.nodes = Some(number(u64::MAX)?),
                "depth" => limits.depth = Some(number(1000)? as u32),
                _ if CLOCK_KEYS.contains(&key) => {
                    let at = CLOCK_KEYS
                        .iter()
                        .position(|k| *k == key)
                        .expect("a clock key");
                    let most = if key == "movestogo" {
                        10_000
                    } else {
                        MAX_CLOCK.as_millis() as u64
                    };
                    clock[at] = Some(number(most)?);
                }
                _ => {
                    return Err(ProtocolError::BadCommand {
                        line: text.to_string(),
                        why: format!(
                            "unknown limit `{key}` (expected movetime, nodes, depth, wtime, \
                             btime, winc, binc or movestogo)"
                        ),
                    })
                }
            }
        }
        let [wtime, btime, winc, binc, movestogo] = clock;
        let ms = |n: Option<u64>| Duration::from_millis(n.unwrap_or(0));
        limits.clock = match (wtime, btime) {
            (Some(_), Some(_)) => Some(Clock {
                remaining: [ms(wtime), ms(btime)],
                increment: [ms(winc), ms(binc)],
                moves_to_go: movestogo.map(|n| n as u32).filter(|&n| n > 0),
            }),
            (None, None) if clock.iter().all(Option::is_none) => None,
            _ => {
                return Err(ProtocolError::BadCommand {
                    line: text.to_string(),
                    why: "a clock needs both wtime and btime".into(),
                })
            }
        };
        Ok(limits)
    }

    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        *self == GoLimits::default()
    }
}

impl fmt::Display for GoLimits {
    /// The arguments of a `go` command, without the `go`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(t) = self.movetime {
            parts.push(format!("movetime {}", t.as_millis()));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes {n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(c) = &self.clock {
            let ms = |d: Duration| d.as_millis();
            parts.push(format!(
                "wtime {} btime {} winc {} binc {}",
                ms(c.remaining[0]),
                ms(c.remaining[1]),
                ms(c.increment[0]),
                ms(c.increment[1])
            ));
            if let Some(n) = c.moves_to_go {
                parts.push(format!("movestogo {n}"));
            }
        }
        f.write_str(&parts.join(" "))
    }
}

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionBase {
    /// The game's start position.
    Start,
    /// A position in the toolkit's position notation.
    Notation(String),
}

/// A line from the runner to the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `mancala`: introduce yourself.
    Mancala,
    /// `setoption name N value V`.
    SetOption {
        /// The option's name (may hold spaces).
        name: String,
        /// Its value (may hold spaces, may be empty).
        value: String,
    },
    /// `newgame SPEC`: a new game of these rules begins.
    NewGame(String),
    /// `isready`: answer `readyok` once every command before it is done.
    IsReady,
    /// `position startpos|NOTATION [moves M ...]`.
    Position {
        /// Where the moves start from.
        base: PositionBase,
        /// Moves played from there, in the CLI's move notation.
        moves: Vec<Move>,
    },
    /// `go [movetime MS] [nodes N] [depth D] [wtime MS btime MS [winc MS]
    /// [binc MS] [movestogo N]]`.
    Go(GoLimits),
    /// `quit`.
    Quit,
}

/// `text` as a whole number, written in digits only: Rust's integer
/// parsers also take a leading `+`, which the protocol does not.
pub(crate) fn plain_number<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn bad(line: &str, why: impl Into<String>) -> ProtocolError {
    ProtocolError::BadCommand {
        line: truncate_input(line).into_owned(),
        why: why.into(),
    }
}

fn parse_moves<'a>(
    line: &str,
    tokens: impl Iterator<Item = &'a str>,
) -> Result<Vec<Move>, ProtocolError> {
    tokens
        .map(|t| Move::parse_human(t).map_err(|e| bad(line, e.to_string())))
        .collect()
}

impl Command {
    /// Reads one line (without its line break).
    ///
    /// # Errors
    /// [`ProtocolError::BadCommand`] saying what is wrong.
    pub fn parse(line: &str) -> Result<Command, ProtocolError> {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let no_args = |command: Command| {
            if rest.is_empty() {
                Ok(command)
            } else {
                Err(bad(line, format!("`{word}` takes no arguments")))
            }
        };
        match word {
            "mancala" => no_args(Command::Mancala),
            "isready" => no_args(Command::IsReady),
            "quit" => no_args(Command::Quit),
            "newgame" if !rest.is_empty() => Ok(Command::NewGame(rest.to_string())),
            "newgame" => Err(bad(line, "`newgame` needs a game spec")),
            "go" => Ok(Command::Go(GoLimits::parse(rest)?)),
            "setoption" => {
                let body = rest
                    .strip_prefix("name ")
                    .ok_or_else(|| bad(line, "expected `setoption name N value V`"))?;
                let (name, value) = match body.split_once(" value") {
                    Some((name, value)) => (name.trim(), value.trim()),
                    None => (body.trim(), ""),
                };
                if name.is_empty() {
                    return Err(bad(line, "the option has no name"));
                }
                Ok(Command::SetOption {
                    name: name.to_string(),
                    value: value.to_string(),
                })
            }
            "position" => {
                let mut tokens = rest.split_whitespace();
                let base = match tokens.next() {
                    Some("startpos") => PositionBase::Start,
                    Some("moves") | None => {
                        return Err(bad(
                            line,
                            "expected `startpos` or a position after `position`",
                        ))
                    }
                    Some(notation) => PositionBase::Notation(notation.to_string()),
                };
                let moves = match tokens.next() {
                    None => Vec::new(),
                    Some("moves") => parse_moves(line, tokens)?,
                    Some(other) => {
                        return Err(bad(line, format!("expected `moves`, found `{other}`")))
                    }
                };
                Ok(Command::Position { base, moves })
            }
            "" => Err(bad(line, "empty line")),
            _ => Err(bad(
                line,
                format!("unknown command `{}`", truncate_input(word)),
            )),
        }
    }
}

fn join_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Mancala => f.write_str("mancala"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::NewGame(spec) => write!(f, "newgame {spec}"),
            Command::IsReady => f.write_str("isready"),
            Command::Position { base, moves } => {
                f.write_str("position ")?;
                match base {
                    PositionBase::Start => f.write_str("startpos")?,
                    PositionBase::Notation(n) => f.write_str(n)?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", join_moves(moves))?;
                }
                Ok(())
            }
            Command::Go(limits) if limits.is_empty() => f.write_str("go"),
            Command::Go(limits) => write!(f, "go {limits}"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

/// An option an engine declares in its introduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The option's name.
    pub name: String,
    /// Its type as declared (`spin`, `check`, `string`, ...).
    pub kind: String,
    /// The rest of the declaration (`default 16 min 1 max 1024`), as written.
    pub details: String,
}

/// What an engine reports while it thinks (`info depth 9 nodes 1234 score 4`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// `depth D`.
    pub depth: Option<u32>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `score S`: the expected final margin for the mover.
    pub score: Option<f64>,
    /// `time MS`.
    pub time: Option<u64>,
    /// `pv M1 M2 ...`: the line the engine expects, its move first (the
    /// moves up to the next key or the end; the first
    /// [`PV_MOVES`](mancala_agents::PV_MOVES) kept).
    pub pv: Pv,
    /// `string TEXT`: free text (everything after `string`).
    pub text: Option<String>,
}

impl Info {
    fn parse(rest: &str) -> Info {
        // Engines add keys of their own; unknown keys and values that do not
        // parse are skipped, since an `info` line never decides a game.
        let mut info = Info::default();
        let mut tokens = rest.split_whitespace().peekable();
        while let Some(key) = tokens.next() {
            if key == "pv" {
                while let Some(mv) = tokens.peek().and_then(|t| Move::parse_human(t).ok()) {
                    info.pv.push(mv);
                    tokens.next();
                }
                continue;
            }
            if key == "string" {
                let text = rest.split_once("string").map_or("", |(_, t)| t.trim());
                info.text = Some(text.to_string());
                break;
            }
            let Some(value) = tokens.next() else { break };
            match key {
                "depth" => info.depth = plain_number(value),
                "nodes" => info.nodes = plain_number(value),
                "score" => info.score = value.parse().ok().filter(|s: &f64| s.is_finite()),
                "time" => info.time = plain_number(value),
                _ => {}
            }
        }
        info
    }
}

/// A line from an engine to the runner.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `id name TEXT`.
    IdName(String),
    /// `id author TEXT`.
    IdAuthor(String),
    /// `option name N type T [details]`.
    Option(OptionDecl),
    /// `mancalaok`: the introduction is over.
    MancalaOk,
    /// `readyok`.
    ReadyOk,
    /// `info ...`.
    Info(Info),
    /// `bestmove M`.
    BestMove(Move),
    /// `error TEXT`: the engine refuses the last command.
    Error(String),
}

impl Reply {
    /// Reads one line (without its line break).
    ///
    /// # Errors
    /// [`ProtocolError::Garbage`] for a line that is none of the replies.
    pub fn parse(line: &str) -> Result<Reply, ProtocolError> {
        let trimmed = line.trim();
        let garbage = |why: &str| ProtocolError::Garbage {
            line: truncate_input(trimmed).into_owned(),
            why: why.to_string(),
        };
        let (word, rest) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        let rest = rest.trim();
        match word {
            "mancalaok" if rest.is_empty() => Ok(Reply::MancalaOk),
            "readyok" if rest.is_empty() => Ok(Reply::ReadyOk),
            "info" => Ok(Reply::Info(Info::parse(rest))),
            "error" => Ok(Reply::Error(rest.to_string())),
            "bestmove" => {
                let mv = rest.split_whitespace().next().unwrap_or("");
                Move::parse_human(mv).map(Reply::BestMove).map_err(|_| {
                    garbage("`bestmove` must be followed by a pit number from 1 or `swap`")
                })
            }
            "id" => match rest.split_once(char::is_whitespace) {
                Some(("name", text)) => Ok(Reply::IdName(text.trim().to_string())),
                Some(("author", text)) => Ok(Reply::IdAuthor(text.trim().to_string())),
                _ => Err(garbage("expected `id name TEXT` or `id author TEXT`")),
            },
            "option" => {
                let body = rest
                    .strip_prefix("name ")
                    .ok_or_else(|| garbage("expected `option name N type T ...`"))?;
                let (name, after) = body
                    .split_once(" type ")
                    .ok_or_else(|| garbage("an option needs `type T`"))?;
                let (kind, details) = after.trim().split_once(' ').unwrap_or((after.trim(), ""));
                Ok(Reply::Option(OptionDecl {
                    name: name.trim().to_string(),
                    kind: kind.to_string(),
                    details: details.trim().to_string(),
                }))
            }
            _ => Err(garbage("not a reply of the protocol")),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::IdName(t) => write!(f, "id name {t}"),
            Reply::IdAuthor(t) => write!(f, "id author {t}"),
            Reply::Option(o) if o.details.is_empty() => {
                write!(f, "option name {} type {}", o.name, o.kind)
            }
            Reply::Option(o) => write!(f, "option name {} type {} {}", o.name, o.kind, o.details),
            Reply::MancalaOk => f.write_str("mancalaok"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(i) => {
                f.write_str("info")?;
                if let Some(d) = i.depth {
                    write!(f, " depth {d}")?;
                }
                if let Some(n) = i.nodes {
                    write!(f, " nodes {n}")?;
                }
                if let Some(s) = i.score {
                    write!(f, " score {s}")?;
                }
                if let Some(t) = i.time {
                    write!(f, " time {t}")?;
                }
                if !i.pv.is_empty() {
                    f.write_str(" pv")?;
                    for mv in i.pv.moves() {
                        write!(f, " {mv}")?;
                    }
                }
                if let Some(text) = &i.text {
                    write!(f, " string {text}")?;
                }
                Ok(())
            }
            Reply::BestMove(m) => write!(f, "bestmove {m}"),
            Reply::Error(t) => write!(f, "error {t}"),
        }
    }
}

/// One line read by [`read_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    /// A line of text, without its line break (and a `\r` before it).
    Text(String),
    /// A line that is not UTF-8, as text with the bad bytes replaced.
    NotUtf8(String),
    /// A line longer than the limit: its first bytes, as text (lossy). The
    /// rest of it is still unread; [`skip_rest_of_line`] discards it.
    TooLong(String),
}

impl InputLine {
    /// The line as text (lossy for a line that is not UTF-8, only the
    /// beginning of a line that is too long).
    pub fn text(&self) -> &str {
        match self {
            InputLine::Text(t) | InputLine::NotUtf8(t) | InputLine::TooLong(t) => t,
        }
    }

    /// The line's first word (`position`, `go`, ...), even if the line is
    /// not whole or not text.
    pub fn first_word(&self) -> &str {
        self.text().split_whitespace().next().unwrap_or("")
    }
}

/// Reads one line of at most `max` bytes (line break excluded) from
/// `input`, keeping no more than `max` bytes of it in memory whatever its
/// length: a line sent by a runaway program can be any size. `None` at the
/// end of the input.
///
/// # Errors
/// Only when reading fails.
pub fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Option<InputLine>> {
    let mut line = Vec::new();
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            // The end of the input; a last line without its line break
            // still counts.
            return Ok((!line.is_empty()).then(|| finish_line(line)));
        }
        let (take, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (chunk.len(), false),
        };
        let room = max - line.len();
        if take > room {
            // Only what fits is read; the rest of the line stays unread, so
            // that the caller decides whether to skip it or stop.
            line.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Ok(Some(InputLine::TooLong(
                String::from_utf8_lossy(&line).into_owned(),
            )));
        }
        line.extend_from_slice(&chunk[..take]);
        input.consume(if ends { take + 1 } else { take });
        if ends {
            return Ok(Some(finish_line(line)));
        }
    }
}

/// Discards `input` up to and including the next line break (or its end),
/// holding none of it; returns how many bytes of the line were discarded
/// (its line break not counted).
///
/// # Errors
/// Only when reading fails.
pub fn skip_rest_of_line(input: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(skipped);
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(skipped + at as u64);
            }
            None => {
                let n = chunk.len();
                input.consume(n);
                skipped += n as u64;
            }
        }
    }
}

fn finish_line(mut line: Vec<u8>) -> InputLine {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    match String::from_utf8(line) {
        Ok(text) => InputLine::Text(text),
        Err(e) => InputLine::NotUtf8(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_back_from_their_text() {
        let commands = [
            Command::Mancala,
            Command::SetOption {
                name: "Hash Size".into(),
                value: "64".into(),
            },
            Command::NewGame("kalah:pits=6,seeds=4,pie=true".into()),
            Command::IsReady,
            Command::Position {
                base: PositionBase::Start,
                moves: vec![Move::Pit(2), Move::Swap, Move::Pit(5)],
            },
            Command::Position {
                base: PositionBase::Notation("1,0,0/0,0,2/5,4/1".into()),
                moves: vec![],
            },
            Command::Go(GoLimits {
                movetime: Some(Duration::from_millis(100)),
                nodes: None,
                depth: Some(7),
                clock: None,
            }),
            Command::Go(GoLimits::default()),
            Command::Go(GoLimits {
                clock: Some(Clock {
                    remaining: [Duration::from_millis(9_800), Duration::from_millis(10_050)],
                    increment: [Duration::from_millis(100); 2],
                    moves_to_go: Some(12),
                }),
                ..GoLimits::default()
            }),
            Command::Quit,
        ];
        for c in commands {
            let text = c.to_string();
            assert_eq!(Command::parse(&text).unwrap(), c, "{text}");
        }
        assert_eq!(
            Command::parse("position startpos moves 3 swap").unwrap(),
            Command::Position {
                base: PositionBase::Start,
                moves: vec![Move::Pit(2), Move::Swap]
            }
        );
    }

    #[test]
    fn clocks_are_sent_in_milliseconds_with_player_0_as_white() {
        let go = GoLimits::parse("go wtime 9800 btime 10050 winc 100 binc 50").unwrap();
        let clock = go.clock.unwrap();
        assert_eq!(
            clock.remaining_for(mancala_core::Player::ZERO).as_millis(),
            9_800
        );
        assert_eq!(
            clock.remaining_for(mancala_core::Player::ONE).as_millis(),
            10_050
        );
        assert_eq!(
            clock.increment_for(mancala_core::Player::ONE).as_millis(),
            50
        );
        assert_eq!(clock.moves_to_go, None);
        assert_eq!(go.to_string(), "wtime 9800 btime 10050 winc 100 binc 50");
        // Increments default to 0; `movestogo 0` is no period.
        let go = GoLimits::parse("wtime 1 btime 2 movestogo 0").unwrap();
        assert_eq!(go.clock.unwrap().increment, [Duration::ZERO; 2]);
        assert_eq!(go.clock.unwrap().moves_to_go, None);
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        for (line, needle) in [
            ("position", "startpos"),
            ("position startpos moves 0", "not a move"),
            ("position startpos 3", "expected `moves`"),
            ("go movetime", "needs a number"),
            ("go movetime -5", "whole number"),
            ("go wtime 100", "both wtime and btime"),
            ("go winc 100 binc 100", "both wtime and btime"),
            ("go wtime 100 btime x", "whole number"),
            (
                "go wtime 100 btime 100 movestogo 20000",
                "whole number up to 10000",
            ),
            ("go wtime 100 btime 100 hurry 1", "unknown limit"),
            ("newgame", "game spec"),
            ("isready now", "no arguments"),
            ("fly", "unknown command"),
        ] {
            let err = Command::parse(line).unwrap_err().to_string();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn replies_parse_back_from_their_text() {
        let replies = [
            Reply::IdName("My Bot 2.0".into()),
            Reply::IdAuthor("A. Person".into()),
            Reply::Option(OptionDecl {
                name: "Seed".into(),
                kind: "spin".into(),
                details: "default 0 min 0 max 100".into(),
            }),
            Reply::MancalaOk,
            Reply::ReadyOk,
            Reply::Info(Info {
                depth: Some(9),
                nodes: Some(123_456),
                score: Some(-4.0),
                time: Some(15),
                pv: Pv::of([Move::Pit(2), Move::Swap, Move::Pit(5)]),
                text: None,
            }),
            Reply::BestMove(Move::Pit(0)),
            Reply::BestMove(Move::Swap),
            Reply::Error("oware is not supported".into()),
        ];
        for r in replies {
            let text = r.to_string();
            assert_eq!(Reply::parse(&text).unwrap(), r, "{text}");
        }
        // A line runs to the next key; more than `PV_MOVES` are cut.
        let info = Reply::parse("info pv 1 2 3 4 5 6 1 2 3 4 depth 7").unwrap();
        assert_eq!(
            info,
            Reply::Info(Info {
                depth: Some(7),
                pv: Pv::of([1, 2, 3, 4, 5, 6, 1, 2].map(|p| Move::Pit(p - 1))),
                ..Info::default()
            })
        );
        let info = Reply::parse("info string thinking hard about depth 3").unwrap();
        assert_eq!(
            info,
            Reply::Info(Info {
                text: Some("thinking hard about depth 3".into()),
                ..Info::default()
            })
        );
    }

    #[test]
    fn garbage_is_refused_with_the_line() {
        for line in [
            "hello",
            "bestmove",
            "bestmove 0",
            "bestmove pit",
            "id nick x",
            "readyok ok",
        ] {
            let err = Reply::parse(line).unwrap_err();
            assert!(matches!(err, ProtocolError::Garbage { .. }), "{line}");
            assert!(err.to_string().contains(line.split(' ').next().unwrap()));
        }
    }

    #[test]
    fn numbers_and_moves_are_plain_digits_without_a_sign() {
        // Rust's integer parsers take a leading `+`: `bestmove +3` must not
        // pass for pit 3, nor `+100` for a number of milliseconds.
        let err = Reply::parse("bestmove +3").unwrap_err();
        assert!(matches!(err, ProtocolError::Garbage { .. }), "{err}");
        for line in [
            "position startpos moves 1 +3",
            "go movetime +100",
            "go nodes +5",
            "go wtime +1 btime 2",
        ] {
            assert!(Command::parse(line).is_err(), "{line}");
        }
        // In an `info` line, what does not parse is skipped.
        let info = Reply::parse("info depth +7 nodes +9 time +1 pv 2 +3 4").unwrap();
        assert_eq!(
            info,
            Reply::Info(Info {
                pv: Pv::of([Move::Pit(1)]),
                ..Info::default()
            })
        );
    }

    #[test]
    fn lines_are_read_with_a_cap_whatever_their_length() {
        let mut bytes = format!("position {}\nisready\r\n", "1".repeat(100)).into_bytes();
        bytes.extend_from_slice(b"\xffgo\nlast");
        let mut input = io::BufReader::with_capacity(7, bytes.as_slice());
        // The long line: its first 20 bytes, the rest left for skipping.
        match read_line(&mut input, 20).unwrap() {
            Some(InputLine::TooLong(start)) => {
                assert_eq!(start.len(), 20);
                assert!(start.starts_with("position 111"), "{start}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(skip_rest_of_line(&mut input).unwrap(), 100 + 9 - 20);
        assert_eq!(
            read_line(&mut input, 20).unwrap(),
            Some(InputLine::Text("isready".into()))
        );
        let bad = read_line(&mut input, 20).unwrap().unwrap();
        assert!(matches!(bad, InputLine::NotUtf8(_)), "{bad:?}");
        assert_eq!(bad.first_word(), "\u{fffd}go");
        assert_eq!(
            read_line(&mut input, 20).unwrap(),
            Some(InputLine::Text("last".into()))
        );
        assert_eq!(read_line(&mut input, 20).unwrap(), None);
        // A line of exactly the limit is whole.
        let mut exact = "abcd\n".as_bytes();
        assert_eq!(
            read_line(&mut exact, 4).unwrap(),
            Some(InputLine::Text("abcd".into()))
        );
    }
}
