//! Typed errors of the rules crate.

use thiserror::Error;

use crate::{Move, MoveSet};

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
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The text is empty or not `name[:key=value,...]`.
    #[error("malformed spec '{spec}': {why} (expected NAME or NAME:key=value,key=value)")]
    Malformed {
        /// The whole spec.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// The name before the colon is not known.
    #[error("unknown {kind} '{name}' (accepted: {accepted})")]
    UnknownName {
        /// What was named: `game` or `agent`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The accepted names.
        accepted: String,
    },
    /// A key the named thing does not have.
    #[error("unknown option '{key}' for {name} (accepted: {accepted})")]
    UnknownKey {
        /// The game or agent.
        name: String,
        /// The key given.
        key: String,
        /// The accepted keys.
        accepted: String,
    },
    /// The same key twice.
    #[error("option '{key}' is given twice")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A value that the key does not accept.
    #[error("bad value '{value}' for '{key}': expected {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The accepted values.
        expected: String,
    },
    /// Options that are each fine but impossible together, e.g. too many seeds.
    #[error("impossible {name} board: {why}")]
    ImpossibleBoard {
        /// The game.
        name: String,
        /// Why.
        why: String,
    },
}

/// A position that does not fit the rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PositionError {
    /// The notation itself cannot be read.
    #[error("cannot read position '{text}': {why}")]
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
}
