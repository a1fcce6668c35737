//! Typed errors of the rules crate.

use std::borrow::Cow;

use thiserror::Error;

use crate::{Move, MoveSet};

/// Most characters of the user's input that an error message quotes; longer
/// input is cut there (see [`truncate_input`]).
pub const ECHO_CHARS: usize = 60;

/// `text` as an error message should quote it: unchanged up to
/// [`ECHO_CHARS`] characters, otherwise its first [`ECHO_CHARS`] characters
/// followed by `… (N bytes)`, N being the length of the whole input. A 100 KB
/// spec then gives a one-line message rather than a 100 KB one.
///
/// Reachable as `mancala_core::spec::truncate_input`.
///
/// ```
/// use mancala_core::spec::truncate_input;
/// assert_eq!(truncate_input("kalah:pits=4"), "kalah:pits=4");
/// let long = "x".repeat(1000);
/// assert_eq!(truncate_input(&long), format!("{}… (1000 bytes)", "x".repeat(60)));
/// ```
pub fn truncate_input(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(ECHO_CHARS) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}… ({} bytes)", &text[..cut], text.len())),
    }
}

/// A move that the position does not allow.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}", describe_illegal(*.mv, *.legal, *.game_over))]
pub struct IllegalMove {
    /// The move that was tried.
    pub mv: Move,
    /// The moves that are legal (empty when the game is over).
    pub legal: MoveSet,
    /// Whether the game was already over.
    pub game_over: bool,
}

fn describe_illegal(mv: Move, legal: MoveSet, over: bool) -> String {
    if over {
        format!("illegal move {mv}: the game is over")
    } else {
        format!("illegal move {mv}: legal moves are {}", legal.to_human())
    }
}

/// A game or agent spec string that cannot be used.
///
/// The fields hold the input as given; the message quotes at most
/// [`ECHO_CHARS`] characters of each (see [`truncate_input`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The text is empty or not `name[:key=value,...]`.
    #[error(
        "malformed spec '{}': {why} (expected NAME or NAME:key=value,key=value)",
        truncate_input(.spec)
    )]
    Malformed {
        /// The whole spec.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// The name before the colon is not known.
    #[error("unknown {kind} '{}' (accepted: {accepted})", truncate_input(.name))]
    UnknownName {
        /// What was named: `game` or `agent`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The accepted names.
        accepted: String,
    },
    /// A key the named thing does not have.
    #[error(
        "unknown option '{}' for {} (accepted: {accepted})",
        truncate_input(.key),
        truncate_input(.name)
    )]
    UnknownKey {
        /// The game or agent.
        name: String,
        /// The key given.
        key: String,
        /// The accepted keys.
        accepted: String,
    },
    /// The same key twice.
    #[error("option '{}' is given twice", truncate_input(.key))]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A value that the key does not accept.
    #[error(
        "bad value '{}' for '{}': expected {expected}",
        truncate_input(.value),
        truncate_input(.key)
    )]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The accepted values.
        expected: String,
    },
    /// Options that are each fine but impossible together, e.g. too many seeds.
    #[error("impossible {} board: {why}", truncate_input(.name))]
    ImpossibleBoard {
        /// The game.
        name: String,
        /// Why.
        why: String,
    },
}

/// A text that is not a move as people write it (a pit number from 1, or
/// `swap`).
///
/// The message quotes at most [`ECHO_CHARS`] characters of the text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "'{}' is not a move: write a pit number from 1 (as counted from the mover's side) or 'swap'",
    truncate_input(.text)
)]
pub struct MoveParseError {
    /// The text.
    pub text: String,
}

/// A position that does not fit the rules.
///
/// The message quotes at most [`ECHO_CHARS`] characters of the text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PositionError {
    /// The notation itself cannot be read.
    #[error("cannot read position '{}': {why}", truncate_input(.text))]
    Syntax {
        /// The text.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// A row has the wrong number of pits.
    #[error("player {player}'s row has {found} pits, the rules have {expected}")]
    PitCount {
        /// Whose row.
        player: usize,
        /// Pits found.
        found: usize,
        /// Pits the rules have.
        expected: usize,
    },
    /// The seeds on the board and in the stores do not add up to the game's total.
    #[error("the position holds {found} seeds, the rules start with {expected}")]
    SeedTotal {
        /// Seeds found.
        found: usize,
        /// Seeds expected.
        expected: usize,
    },
    /// The player to move does not agree with the board.
    #[error("inconsistent player to move: {why}")]
    ToMove {
        /// What is wrong.
        why: String,
    },
    /// A swap flag on a position where no swap can be offered.
    #[error("a swap is not possible here: {why}")]
    Swap {
        /// Why not.
        why: String,
    },
    /// Burnt holes or a round that the rules do not have, or that do not
    /// fit them.
    #[error("rounds: {why}")]
    Rounds {
        /// What does not fit.
        why: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_input_keeps_short_text_and_cuts_long_text_on_a_char_boundary() {
        assert_eq!(truncate_input(""), "");
        let exact = "a".repeat(ECHO_CHARS);
        assert_eq!(truncate_input(&exact), exact.as_str());
        let long = "é".repeat(ECHO_CHARS + 1);
        let cut = truncate_input(&long);
        assert_eq!(
            cut,
            format!("{}… ({} bytes)", "é".repeat(ECHO_CHARS), long.len())
        );
    }

    #[test]
    fn errors_quote_long_input_truncated() {
        let huge = "k".repeat(100_000);
        let errors = [
            SpecError::Malformed {
                spec: huge.clone(),
                why: "x".into(),
            },
            SpecError::UnknownName {
                kind: "game",
                name: huge.clone(),
                accepted: "kalah".into(),
            },
            SpecError::UnknownKey {
                name: huge.clone(),
                key: huge.clone(),
                accepted: "pits".into(),
            },
            SpecError::DuplicateKey { key: huge.clone() },
            SpecError::BadValue {
                key: huge.clone(),
                value: huge.clone(),
                expected: "a number".into(),
            },
            SpecError::ImpossibleBoard {
                name: huge.clone(),
                why: "x".into(),
            },
        ];
        for e in errors {
            let m = e.to_string();
            assert!(m.len() < 400 && m.contains("(100000 bytes)"), "{m}");
        }
        let m = PositionError::Syntax {
            text: huge,
            why: "x".into(),
        }
        .to_string();
        assert!(m.len() < 200 && m.contains("(100000 bytes)"), "{m}");
    }
}
