//! Evaluation functions for depth-limited search.

use std::fmt;

use mancala_core::{Game, Player};

/// Value units per seed: evaluations are integers in quarter seeds, so that
/// a fractional weight on seeds in the pits still compares exactly.
pub const SCALE: i32 = 4;

/// How a non-final position is scored, always as an estimate of the final
/// margin (`store0 - store1`) in quarter seeds. Finished games score their
/// exact margin, whatever the evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eval {
    /// The difference of the stores (or captures) so far.
    Store,
    /// The store difference plus a quarter of the difference of the seeds
    /// in each side's row: seeds at home tend to end up in their owner's
    /// store (Kalah leftovers) or to keep the mover's options open.
    Material,
}

impl Eval {
    /// Names as written in a spec (`eval=store`), in the order of [`Eval::ALL`].
    pub const NAMES: &'static [&'static str] = &["store", "material"];
    /// Every evaluation.
    pub const ALL: [Eval; 2] = [Eval::Store, Eval::Material];

    /// The value of `state` for player 0, in quarter seeds.
    #[inline]
    pub fn evaluate<G: Game>(self, game: &G, state: &G::State) -> i32 {
        let stores = game.scores(state);
        let store_diff = i32::from(stores[Player::ZERO]) - i32::from(stores[Player::ONE]);
        match self {
            Eval::Store => store_diff * SCALE,
            Eval::Material => {
                let rows = game.row_seeds(state);
                store_diff * SCALE + i32::from(rows[Player::ZERO]) - i32::from(rows[Player::ONE])
            }
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Eval::NAMES[*self as usize])
    }
}
