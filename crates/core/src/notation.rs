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
//! Multi-round Congkak (`congkak:rounds=many`) adds two things, and only it
//! writes them: a burnt hole is written `x` in its row, and a fifth field
//! `rR,P` says that the game is in round `R` (from 1), which player `P`
//! began:
//!
//! ```text
//! x,x,7,7,7,7,7/7,7,7,7,7,7,7/3,11/1/r2,0
//! ```
//!
//! Parsing gives a [`Setup`], which is not checked against any rules;
//! [`crate::Game::from_setup`] turns it into a valid position or says why not
//! (the shakmaty setup/position split).

use std::fmt;
use std::str::FromStr;

use crate::error::truncate_input;
use crate::{ByPlayer, Player, PositionError, MAX_PITS};

/// Where a multi-round game stands: the round being played and who began it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Round {
    /// The round, from 1.
    pub number: u16,
    /// The player who moved first in this round.
    pub first: Player,
}

/// Position data as written, not yet checked against any rules.
///
/// `Setup::default()` is an empty board (no pits) with the game over:
/// a base for struct updates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
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
    /// Each player's burnt holes (multi-round Congkak), bit `i` for their
    /// pit `i`: out of play, and empty. Written `x` in the rows.
    pub burnt: ByPlayer<u16>,
    /// The round of a multi-round game (`None` for every other game).
    /// Written as a fifth field `rR,P`.
    pub round: Option<Round>,
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

/// A row as written: seed counts, `x` for a burnt hole.
fn join(values: &[u8], burnt: u16) -> String {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if i < 16 && burnt & (1 << i) != 0 {
                "x".to_string()
            } else {
                v.to_string()
            }
        })
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
            join(&self.rows[Player::ZERO], self.burnt[Player::ZERO]),
            join(&self.rows[Player::ONE], self.burnt[Player::ONE]),
            self.stores[Player::ZERO],
            self.stores[Player::ONE],
            to_move
        )?;
        if let Some(round) = self.round {
            write!(f, "/r{},{}", round.number, round.first)?;
        }
        Ok(())
    }
}

impl FromStr for Setup {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Setup, PositionError> {
        let parser = SetupParser { text };
        let fields: Vec<&str> = text.trim().split('/').collect();
        if !(4..=5).contains(&fields.len()) {
            return Err(parser.syntax(format!(
                "expected 4 fields separated by '/' (pits of player 0, pits of player 1, stores, to move) \
                 and in multi-round Congkak a fifth (the round, e.g. r2,0), found {}",
                fields.len()
            )));
        }
        let (row0, burnt0) = parser.row(fields[0], "player 0's pits")?;
        let (row1, burnt1) = parser.row(fields[1], "player 1's pits")?;
        let stores = parser.stores(fields[2])?;
        let (to_move, swap_available) = parser.to_move(fields[3])?;
        let round = match fields.get(4) {
            None => None,
            Some(field) => Some(parser.round(field)?),
        };
        Ok(Setup {
            rows: ByPlayer([row0, row1]),
            stores,
            to_move,
            swap_available,
            burnt: ByPlayer([burnt0, burnt1]),
            round,
        })
    }
}

/// Reads the fields of a position string, each error naming the whole
/// string.
struct SetupParser<'a> {
    /// The whole position string, as given.
    text: &'a str,
}

impl SetupParser<'_> {
    /// A syntax error in the position string: `why`.
    fn syntax(&self, why: String) -> PositionError {
        PositionError::Syntax {
            text: self.text.to_string(),
            why,
        }
    }

    /// A seed count, `what` naming where it stands.
    fn count(&self, n: &str, what: &str) -> Result<u8, PositionError> {
        n.trim().parse::<u8>().map_err(|_| {
            self.syntax(format!(
                "{what}: '{}' is not a seed count from 0 to 255",
                truncate_input(n.trim())
            ))
        })
    }

    /// A row: seed counts, or `x` for a burnt hole (which holds none); the
    /// seeds and the burnt holes as a bit set.
    fn row(&self, field: &str, what: &str) -> Result<(Vec<u8>, u16), PositionError> {
        let mut burnt = 0u16;
        let mut seeds = Vec::new();
        for (i, n) in field.split(',').enumerate() {
            if n.trim().eq_ignore_ascii_case("x") {
                if i >= MAX_PITS {
                    return Err(self.syntax(format!(
                        "{what}: a burnt hole (x) at pit {}, but no board has more than {MAX_PITS} pits",
                        i + 1
                    )));
                }
                burnt |= 1 << i;
                seeds.push(0);
            } else {
                seeds.push(self.count(n, what)?);
            }
        }
        Ok((seeds, burnt))
    }

    /// The stores: `store0,store1`.
    fn stores(&self, field: &str) -> Result<ByPlayer<u8>, PositionError> {
        let stores = field
            .split(',')
            .map(|n| self.count(n, "stores"))
            .collect::<Result<Vec<u8>, _>>()?;
        if stores.len() != 2 {
            return Err(self.syntax(format!(
                "stores: expected two numbers 'store0,store1', found {}",
                stores.len()
            )));
        }
        Ok(ByPlayer([stores[0], stores[1]]))
    }

    /// Who is to move (`None` when the game is over), and whether the swap
    /// is still to be offered.
    fn to_move(&self, field: &str) -> Result<(Option<Player>, bool), PositionError> {
        match field.trim() {
            "0" => Ok((Some(Player::ZERO), false)),
            "1" => Ok((Some(Player::ONE), false)),
            "0s" => Ok((Some(Player::ZERO), true)),
            "1s" => Ok((Some(Player::ONE), true)),
            "-" => Ok((None, false)),
            other => Err(self.syntax(format!(
                "to move: '{}' is not 0, 1, 0s, 1s (swap still to be offered) or - (game over)",
                truncate_input(other)
            ))),
        }
    }

    /// The round of multi-round Congkak: `rR,P`.
    fn round(&self, field: &str) -> Result<Round, PositionError> {
        parse_round(field.trim()).ok_or_else(|| {
            self.syntax(format!(
                "round: '{}' is not rR,P (round R from 1, begun by player P, 0 or 1), e.g. r2,0",
                truncate_input(field.trim())
            ))
        })
    }
}

/// `rR,P`: round `R` (from 1), begun by player `P`.
fn parse_round(text: &str) -> Option<Round> {
    let rest = text.strip_prefix('r').or_else(|| text.strip_prefix('R'))?;
    let (number, first) = rest.split_once(',')?;
    let number = number.trim().parse::<u16>().ok().filter(|&r| r >= 1)?;
    let first = match first.trim() {
        "0" => Player::ZERO,
        "1" => Player::ONE,
        _ => return None,
    };
    Some(Round { number, first })
}

/// Checks what every single-round game needs of a setup: row lengths, the
/// seed total, and no burnt holes or round.
pub(crate) fn check_common(setup: &Setup, pits: usize, total: usize) -> Result<(), PositionError> {
    if setup.burnt.0 != [0, 0] || setup.round.is_some() {
        return Err(PositionError::Rounds {
            why: "burnt holes (x) and the round field (rR,P) belong to multi-round play \
                  (congkak:rounds=many)"
                .into(),
        });
    }
    check_shape(setup, pits, total)
}

/// Checks row lengths and the seed total.
pub(crate) fn check_shape(setup: &Setup, pits: usize, total: usize) -> Result<(), PositionError> {
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
            "x,x,7/7,7,7/0,0/1/r2,0",
            "0,0,0/x,0,0/20,22/-/r17,1",
        ] {
            let setup: Setup = text.parse().unwrap();
            assert_eq!(setup.to_string(), text);
        }
    }

    #[test]
    fn notation_errors_are_precise() {
        let e = "4,4/4,4/0,0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("expected 4 fields"), "{e}");
        let e = "4,y/4,4/0,0/0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("player 0's pits: 'y'"), "{e}");
        // `x` is a burnt hole; stores have none.
        let burnt: Setup = "4,X/4,4/0,0/0".parse().unwrap();
        assert_eq!((burnt.rows[Player::ZERO][1], burnt.burnt.0), (0, [0b10, 0]));
        let e = "4,4/4,4/x,0/0".parse::<Setup>().unwrap_err().to_string();
        assert!(e.contains("stores: 'x'"), "{e}");
        let e = "4,4/4,4/0,0/0/r0,1"
            .parse::<Setup>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("round: 'r0,1' is not rR,P"), "{e}");
        let e = "4,4/4,4/0,0/0/r2,0/1"
            .parse::<Setup>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected 4 fields"), "{e}");
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
