//! Evaluation functions for depth-limited search.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use mancala_core::{Game, Player};
use mancala_evalnet::{EvalNetError, ValueNet};

/// Value units per seed: evaluations are integers in quarter seeds, so that
/// a fractional weight on seeds in the pits still compares exactly.
pub const SCALE: i32 = 4;

/// How a non-final position is scored, always as an estimate of the final
/// margin (`store0 - store1`) in quarter seeds. Finished games score their
/// exact margin, whatever the evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Eval {
    /// The difference of the stores (or captures) so far.
    Store,
    /// The store difference plus a quarter of the difference of the seeds
    /// in each side's row: seeds at home tend to end up in their owner's
    /// store (Kalah leftovers) or to keep the mover's options open.
    Material,
    /// A learned value network ([`mancala_evalnet`]): the store
    /// difference plus what the network expects still to come.
    Net(NetEval),
}

/// A value network as an evaluation, with the path it was read from
/// (which the spec writes back).
#[derive(Clone, Debug)]
pub struct NetEval {
    path: String,
    net: Arc<ValueNet>,
}

impl NetEval {
    /// Reads the network at `path`.
    ///
    /// # Errors
    /// What [`ValueNet::load`] refuses.
    pub fn load(path: &str) -> Result<NetEval, EvalNetError> {
        Ok(NetEval {
            path: path.to_string(),
            net: Arc::new(ValueNet::load(Path::new(path))?),
        })
    }

    /// A network already in memory, shown as `path`.
    pub fn new(path: &str, net: Arc<ValueNet>) -> NetEval {
        NetEval {
            path: path.to_string(),
            net,
        }
    }

    /// The file the network was read from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The network.
    pub fn net(&self) -> &ValueNet {
        &self.net
    }
}

/// Two evaluations by the same file are the same if they hold the same
/// weights (a file rewritten in between is another evaluation).
impl PartialEq for NetEval {
    fn eq(&self, other: &NetEval) -> bool {
        self.path == other.path && (Arc::ptr_eq(&self.net, &other.net) || self.net == other.net)
    }
}

impl Eval {
    /// Names as written in a spec (`eval=store`), in the order of
    /// [`Eval::ALL`]; a network is `eval=net:PATH`.
    pub const NAMES: &'static [&'static str] = &["store", "material"];
    /// Every evaluation that needs no file.
    pub const ALL: [Eval; 2] = [Eval::Store, Eval::Material];
    /// What an `eval=` value of a network starts with.
    pub const NET_PREFIX: &'static str = "net:";

    /// The value of `state` for player 0, in quarter seeds. A network's
    /// estimate is rounded to the unit and kept within the game's seeds.
    #[inline]
    pub fn evaluate<G: Game>(&self, game: &G, state: &G::State) -> i32 {
        let stores = game.scores(state);
        let store_diff = i32::from(stores[Player::ZERO]) - i32::from(stores[Player::ONE]);
        match self {
            Eval::Store => store_diff * SCALE,
            Eval::Material => {
                let rows = game.row_seeds(state);
                store_diff * SCALE + i32::from(rows[Player::ZERO]) - i32::from(rows[Player::ONE])
            }
            Eval::Net(n) => {
                let total = game.total_seeds() as f32;
                let margin = n.net.margin(game, state).clamp(-total, total);
                let units = (margin * SCALE as f32).round() as i32;
                if game.to_move(state) == Some(Player::ONE) {
                    -units
                } else {
                    units
                }
            }
        }
    }

    /// Checks that the evaluation can score `game`'s positions (a network
    /// reads one game and board).
    ///
    /// # Errors
    /// The network's refusal, naming both.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), EvalNetError> {
        match self {
            Eval::Net(n) => n.net.inputs().check(game),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Eval::Store => f.write_str("store"),
            Eval::Material => f.write_str("material"),
            Eval::Net(n) => write!(f, "{}{}", Eval::NET_PREFIX, n.path),
        }
    }
}
