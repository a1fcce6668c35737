//! Position notation: plain position data ([`Setup`]) and its text form.
//!
//! A position is written as four fields separated by `/`:
//!
//! ```text
//! 4,4,4,4,4,4/4,4,4,4,4,4/0,0/0
//! ^ player 0's pits   ^ player 1's pits   ^ stores (or captures) 0,1   ^ to move
//! ```
//!
//! Pits are listed in sowing order (pit 1 first). The last field is `0` or
//! `1` for the player to move, followed by `s` while the pie rule's swap is
//! still to be offered to player 1 (`0s` during player 0's opening turn,
//! `1s` when player 1 may swap now), or `-` when the game is over.
//!
//! Parsing gives a [`Setup`], which is not checked against any rules;
//! [`crate::Game::from_setup`] turns it into a valid position or says why not
//! (the shakmaty setup/position split).

use std::fmt;
use std::str::FromStr;

use crate::error::truncate_input;
use crate::{ByPlayer, Player, PositionError};

/// Position data as written, not yet checked against any rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Each player's pits in sowing order.
    pub rows: ByPlayer<Vec<u8>>,
    /// Each player's store (Kalah) or captured seeds (Oware).
    pub stores: ByPlayer<u8>,
    /// The player to move, `None` when the game is over.
    pub to_move: Option<Player>,
    /// Whether the pie rule's swap is still to be offered to player 1
    /// (on their first turn).
    pub swap_available: bool,
}

impl Setup {
    /// The flat board `[P0 pits.., P1 pits.., store0, store1]`, the layout of
    /// the reference traces and of `mancala replay --json`.
    pub fn board(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.rows[Player::ZERO].len() * 2 + 2);
        b.extend_from_slice(&self.rows[Player::ZERO]);
        b.extend_from_slice(&self.rows[Player::ONE]);
        b.push(self.stores[Player::ZERO]);
        b.push(self.stores[Player::ONE]);
        b
    }

    /// All seeds on the board and in the stores.
    pub fn total_seeds(&self) -> usize {
        self.rows
            .0
            .iter()
            .flatten()
            .chain(self.stores.0.iter())
            .map(|&s| usize::from(s))
            .sum()
    }
}

fn join(values: &[u8]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let to_move = match (self.to_move, self.swap_available) {
            (None, _) => "-".to_string(),
            (Some(p), true) => format!("{p}s"),
            (Some(p), false) => p.to_string(),
        };
        write!(
            f,
            "{}/{}/{},{}/{}",
            join(&self.rows[Player::ZERO]),
            join(&self.rows[Player::ONE]),
            self.stores[Player::ZERO],
            self.stores[Player::ONE],
            to_move
        )
    }
}

impl FromStr for Setup {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Setup, PositionError> {
        let syntax = |why: String| PositionError::Syntax {
            text: text.to_string(),
            why,
        };
        let fields: Vec<&str> = text.trim().split('/').collect();
        if fields.len() != 4 {
            return Err(syntax(format!(
                "expected 4 fields separated by '/' (pits of player 0, pits of player 1, stores, to move), found {}",
                fields.len()
            )));
        }
        let numbers = |field: &str, what: &str| -> Result<Vec<u8>, PositionError> {
            field
                .split(',')
                .map(|n| {
                    n.trim().parse::<u8>().map_err(|_| {
                        syntax(format!(
                            "{what}: '{}' is not a seed count from 0 to 255",
                            truncate_input(n.trim())
                        ))
                    })
                })
                .collect()
        };
        let row0 = numbers(fields[0], "player 0's pits")?;
        let row1 = numbers(fields[1], "player 1's pits")?;
        let stores = numbers(fields[2], "stores")?;
        if stores.len() != 2 {
            return Err(syntax(format!(
                "stores: expected two numbers 'store0,store1', found {}",
                stores.len()
            )));
        }
        let (to_move, swap_available) = match fields[3].trim() {
            "0" => (Some(Player::ZERO), false),
            "1" => (Some(Player::ONE), false),
            "0s" => (Some(Player::ZERO), true),
            "1s" => (Some(Player::ONE), true),
            "-" => (None, false),
            other => {
                return Err(syntax(format!(
                    "to move: '{}' is not 0, 1, 0s, 1s (swap still to be offered) or - (game over)",
                    truncate_input(other)
                )))
            }
        };
        Ok(Setup {
            rows: ByPlayer([row0, row1]),
            stores: ByPlayer([stores[0], stores[1]]),
            to_move,
            swap_available,
        })
    }
}

/// Checks what every game needs of a setup: row lengths and the seed total.
pub(crate) fn check_common(setup: &Setup, pits: usize, total: usize) -> Result<(), PositionError> {
    for p in Player::BOTH {
        let found = setup.rows[p].len();
        if found != pits {
            return Err(PositionError::PitCount {
                player: p.index(),
                found,
                expected: pits,
            });
        }
    }
    let found = setup.total_seeds();
    if found != total {
        return Err(PositionError::SeedTotal {
            found,
            expected: total,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for text in [
            "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0",
            "0,5,5,5,5,4/4,4,4,4,4,4/1,0/1s",
            "0,0,0/1,2,0/9,6/-",
        ] {
            let setup: Setup = text.parse().unwrap();
            assert_eq!(setup.to_string(), text);
        }
    }

    #[test]
    fn notation_errors_are_precise() {
        let e = "4,4/4,4/0,0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("expected 4 fields"), "{e}");
        let e = "4,x/4,4/0,0/0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("player 0's pits: 'x'"), "{e}");
        let e = "4,4/4,4/0/0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("two numbers"), "{e}");
        let e = "4,4/4,4/0,0/2".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("'2' is not 0, 1"), "{e}");
    }

    #[test]
    fn notation_errors_quote_long_input_truncated() {
        let long = "9".repeat(100_000);
        for text in [
            format!("{long}/4/0,0/0"),
            format!("4/4/0,0/{long}"),
            format!("4/4/0,0/0/{long}"),
            format!("4/4/{long}/0"),
        ] {
            let e = text.parse::<Setup>().unwrap_err().to_string();
            assert!(e.len() < 400, "{} bytes", e.len());
            assert!(e.contains(" bytes)"), "{e}");
        }
    }
}
