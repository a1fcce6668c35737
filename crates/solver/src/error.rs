//! The one error type of the three solvers (Kalah, Congkak, Oware).

use mancala_core::{CongkakRules, OwareRules};
use thiserror::Error;

use crate::endgame::EndgameError;
use crate::table::TableError;

/// Errors of the solvers: each variant names the solver it can come from
/// where only one can.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The position is over: there is nothing to solve.
    #[error("the game is over")]
    GameOver,
    /// The stop condition came first.
    #[error("stopped before the position was solved")]
    Stopped,
    /// No exact solver plays this game.
    #[error("no exact solver plays {game}")]
    NoSolver {
        /// The game's name.
        game: &'static str,
    },
    /// Congkak's multi-round play: the rest of the game depends on the
    /// stores, which the search leaves out.
    #[error(
        "{rules}: the Congkak solver plays a single round only (rounds=one): with \
         rounds=many the stores refill the holes between rounds, burn the holes they \
         cannot fill and decide who begins, so the rest of the game depends on the \
         stores, which the solver's table leaves out"
    )]
    MultiRound {
        /// The rules asked for.
        rules: CongkakRules,
    },
    /// An Oware board beyond what the Oware solver supports.
    #[error(
        "{rules} is too large for the exact Oware solver: {boards} boards of {seeds} seeds \
         on {houses} houses, at most {max_boards} supported{pits_note} \
         (e.g. oware:pits=3,seeds=2 or oware:pits=2,seeds=7)"
    )]
    TooLarge {
        /// The rules asked for.
        rules: OwareRules,
        /// Seeds on the board in all.
        seeds: usize,
        /// Houses on the board (both rows).
        houses: usize,
        /// Boards (seed distributions over the houses) with all the seeds:
        /// what one capture-free stretch may wander through.
        boards: u128,
        /// The most boards supported.
        max_boards: u128,
        /// Extra words when the pit count alone is too large.
        pits_note: &'static str,
    },
    /// Oware: the search reached far enough that `max_plies` could change
    /// the value, so the solver does not give one.
    #[error(
        "the game limit max_plies={max_plies} may decide this value: the search expanded \
         positions up to ply {reached}; raise max_plies to solve it"
    )]
    PlyLimit {
        /// The rules' limit.
        max_plies: u32,
        /// The deepest ply (counted as the engine does) of a position the
        /// search expanded, plus one.
        reached: u64,
    },
    /// Oware: the table outgrew its limit.
    #[error("the Oware solver's table is full ({entries} positions); give it more memory")]
    TableFull {
        /// The most positions it may hold.
        entries: usize,
    },
    /// The transposition table cannot be allocated.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The endgame database cannot be built, saved or loaded.
    #[error(transparent)]
    Endgame(#[from] EndgameError),
    /// The search threads cannot start.
    #[error("cannot start threads: {0}")]
    Threads(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Exact values of positions alone (settled, kept in a database,
    /// written as labels) asked of a game whose values depend on history.
    #[error(
        "{}'s values depend on the positions seen since the last capture, not on the \
         position alone: it has no endgame database, settled values or labels",
        capitalised(game)
    )]
    NeedsHistory {
        /// The game's name.
        game: &'static str,
    },
    /// Endgame database seeds asked of a game that has no database.
    #[error("the {game} solver has no endgame database")]
    NoDatabase {
        /// The game's name.
        game: &'static str,
    },
    /// More endgame database seeds than a database may hold.
    #[error("an endgame database of {seeds} seeds: at most {max}")]
    DatabaseTooLarge {
        /// The seeds asked for.
        seeds: usize,
        /// The most a database holds.
        max: usize,
    },
    /// A solver's build that another caller started failed with this
    /// ([`crate::Solvers`]): every caller of the same rules and options
    /// is told.
    #[error(transparent)]
    Shared(std::sync::Arc<SolveError>),
}

/// `name` with its first letter in capitals, to begin a sentence.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

impl SolveError {
    /// Whether the memory asked for (table or database) cannot be had: a
    /// smaller table or database may do.
    pub fn is_out_of_memory(&self) -> bool {
        match self {
            SolveError::Shared(e) => e.is_out_of_memory(),
            e => matches!(
                e,
                SolveError::Table(TableError::Allocation { .. })
                    | SolveError::Endgame(EndgameError::Allocation { .. })
            ),
        }
    }

    /// Whether the rules or the options asked for are at fault (rules no
    /// solver takes, a database too large, memory that cannot be had),
    /// rather than the position or the run: what a front end shows as
    /// the user's error.
    pub fn is_users(&self) -> bool {
        match self {
            SolveError::Shared(e) => e.is_users(),
            SolveError::MultiRound { .. }
            | SolveError::TooLarge { .. }
            | SolveError::NoSolver { .. }
            | SolveError::NeedsHistory { .. }
            | SolveError::NoDatabase { .. }
            | SolveError::DatabaseTooLarge { .. } => true,
            e => e.is_out_of_memory(),
        }
    }
}
