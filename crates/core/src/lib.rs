//! Rules of the mancala games: Kalah (with its variants), Oware (Abapa) and
//! Congkak (relay sowing, single or multi-round).
//!
//! Every game implements the [`Game`] trait: a rules value (for example
//! [`KalahRules`]) plays moves on a state (for example [`KalahState`]).
//! Hot code (search, playouts, perft) is generic over `G: Game`; the
//! [`GameSpec`] enum, parsed from strings such as `kalah:pits=4,seeds=3`,
//! picks a game at the edges of a program.
//!
//! ```
//! use mancala_core::{Game, GameSpec, KalahRules, Move, perft};
//!
//! let rules: KalahRules = match "kalah:pits=6,seeds=4".parse::<GameSpec>().unwrap() {
//!     GameSpec::Kalah(rules) => rules,
//!     _ => unreachable!(),
//! };
//! let mut state = rules.start();
//! // Pit 3 (index 2) holds 4 seeds: the last one lands in the store, an extra turn.
//! rules.try_play(&mut state, Move::Pit(2)).unwrap();
//! assert_eq!(rules.to_move(&state), Some(mancala_core::Player::ZERO));
//! assert_eq!(perft(&rules, &rules.start(), 2), 35);
//! ```

pub mod board;
mod congkak;
mod error;
mod game;
mod kalah;
pub mod notation;
mod oware;
mod perft;
mod ring;
mod size;
pub mod spec;
mod types;

pub use congkak::{CongkakRules, CongkakState, Rounds, Sowing};
pub use error::{IllegalMove, MoveParseError, PositionError, SpecError};
pub use game::{random_playout, store_gains_by_move, EndReason, Game, Outcome};
pub use kalah::{GameEnd, KalahRules, KalahState, Leftover};
pub use notation::{Round, Setup};
pub use oware::{GrandSlam, OwareRules, OwareState};
pub use perft::perft;
pub use spec::GameSpec;
pub use types::{ByPlayer, Move, MoveSet, Player};

/// The most pits a row may have. Boards are fixed arrays sized by this
/// constant: with 15 pits a Kalah ring (two rows and two stores) is exactly
/// 32 bytes, two SIMD registers, which keeps sowing branch-free.
pub const MAX_PITS: usize = 15;

/// The most seeds a board may hold in all. Pits and stores are `u8`.
pub const MAX_SEEDS: usize = u8::MAX as usize;

/// Runs `$body` with `$game` bound to the concrete rules inside a [`GameSpec`],
/// so that generic code is monomorphised once per game.
///
/// ```
/// use mancala_core::{with_game, Game, GameSpec};
/// let spec: GameSpec = "oware".parse().unwrap();
/// let pits = with_game!(&spec, game => game.pits());
/// assert_eq!(pits, 6);
/// ```
#[macro_export]
macro_rules! with_game {
    ($spec:expr, $game:ident => $body:expr) => {
        match $spec {
            $crate::GameSpec::Kalah($game) => $body,
            $crate::GameSpec::Oware($game) => $body,
            $crate::GameSpec::Congkak($game) => $body,
        }
    };
}
