//! Positions with the exact value of every move: a yardstick for agents and
//! networks. How often does an agent pick a best move, and how many seeds
//! of final margin does it give away when it does not?
//!
//! A set is made once (`mancala analyze exact-positions`, which samples
//! positions from real games and solves them) and kept as JSON; measuring
//! an agent against it (`mancala analyze accuracy`, or each generation of a
//! training run) then costs one move choice per position, no solving.

use std::path::Path;

use mancala_core::Move;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::MoveValue;

/// A file of positions that cannot be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PositionsError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a set of exact positions.
    #[error("{path}: not a file of exact positions: {why}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
}

/// Positions of one game with the exact value of each of their moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactPositions {
    /// The game spec the values hold for, e.g. `kalah:pits=6,seeds=4`.
    pub game: String,
    /// How the set was made (the command line), for the record.
    pub made_by: String,
    /// The positions.
    pub positions: Vec<ExactPosition>,
}

/// One position and the value of each legal move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactPosition {
    /// The position, in the notation of [`mancala_core::notation`].
    pub position: String,
    /// Plies played before it in the game it was taken from.
    pub ply: u32,
    /// Every legal move with the final margin for the player to move after
    /// it, with perfect play by both sides from there.
    pub moves: Vec<MoveValue>,
}

impl ExactPosition {
    /// The position's value: its best move's.
    pub fn value(&self) -> i32 {
        self.moves.iter().map(|m| m.value).max().unwrap_or(0)
    }

    /// The margin that `mv` gives away against the best move (0 for a best
    /// move); `None` if `mv` is not one of the position's moves.
    pub fn loss(&self, mv: Move) -> Option<i32> {
        let chosen = self.moves.iter().find(|m| m.mv == mv)?;
        Some(self.value() - chosen.value)
    }
}

impl ExactPositions {
    /// Reads a set written by [`ExactPositions::save`].
    ///
    /// # Errors
    /// [`PositionsError`] naming the file.
    pub fn load(path: &Path) -> Result<ExactPositions, PositionsError> {
        let text = std::fs::read_to_string(path).map_err(|source| PositionsError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let set: ExactPositions =
            serde_json::from_str(&text).map_err(|e| PositionsError::Format {
                path: path.display().to_string(),
                why: e.to_string(),
            })?;
        if let Some((i, _)) = set
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| p.moves.is_empty())
        {
            return Err(PositionsError::Format {
                path: path.display().to_string(),
                why: format!("position {} has no moves", i + 1),
            });
        }
        Ok(set)
    }

    /// Writes the set as JSON, one position per line (through a temporary
    /// file, so that a half-written set never replaces a whole one).
    ///
    /// # Errors
    /// [`PositionsError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), PositionsError> {
        let io = |source| PositionsError::Io {
            path: path.display().to_string(),
            source,
        };
        let lines: Vec<String> = self.positions.iter().map(one_line).collect();
        let text = format!(
            "{{\n  \"game\": {},\n  \"made_by\": {},\n  \"positions\": [\n    {}\n  ]\n}}",
            one_line(&self.game),
            one_line(&self.made_by),
            lines.join(",\n    ")
        );
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text + "\n").map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// How an agent's moves compare with perfect play over a set of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Agreement {
    /// Positions scored.
    pub positions: u64,
    /// Positions where the move was a best one.
    pub best: u64,
    /// Total margin given away.
    pub loss: u64,
}

impl Agreement {
    /// Adds one position where the chosen move gave away `loss` seeds.
    pub fn add(&mut self, loss: i32) {
        self.positions += 1;
        self.best += u64::from(loss == 0);
        self.loss += loss.max(0) as u64;
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, other: Agreement) {
        self.positions += other.positions;
        self.best += other.best;
        self.loss += other.loss;
    }

    /// Fraction of positions where a best move was chosen (top-1 accuracy).
    pub fn top1(&self) -> f64 {
        self.best as f64 / self.positions.max(1) as f64
    }

    /// Mean margin given away per position, in seeds.
    pub fn mean_loss(&self) -> f64 {
        self.loss as f64 / self.positions.max(1) as f64
    }
}

/// One line of JSON.
fn one_line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position() -> ExactPosition {
        ExactPosition {
            position: "4,4,4/4,4,4/0,0/0".into(),
            ply: 0,
            moves: vec![
                MoveValue {
                    mv: Move::Pit(0),
                    value: -2,
                },
                MoveValue {
                    mv: Move::Pit(1),
                    value: 4,
                },
                MoveValue {
                    mv: Move::Pit(2),
                    value: 4,
                },
            ],
        }
    }

    #[test]
    fn losses_are_measured_from_the_best_move() {
        let p = position();
        assert_eq!(p.value(), 4);
        assert_eq!(p.loss(Move::Pit(0)), Some(6));
        assert_eq!(p.loss(Move::Pit(1)), Some(0));
        assert_eq!(p.loss(Move::Pit(2)), Some(0));
        assert_eq!(p.loss(Move::Pit(3)), None);
        assert_eq!(p.loss(Move::Swap), None);
        let mut a = Agreement::default();
        for mv in [Move::Pit(0), Move::Pit(1), Move::Pit(2), Move::Pit(0)] {
            a.add(p.loss(mv).unwrap());
        }
        assert_eq!((a.positions, a.best, a.loss), (4, 2, 12));
        assert_eq!((a.top1(), a.mean_loss()), (0.5, 3.0));
    }

    #[test]
    fn sets_round_trip_and_damaged_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        let set = ExactPositions {
            game: "kalah:pits=3,seeds=4".into(),
            made_by: "test".into(),
            positions: vec![position()],
        };
        set.save(&path).unwrap();
        assert_eq!(ExactPositions::load(&path).unwrap(), set);
        std::fs::write(&path, "{\"game\": 3}").unwrap();
        let e = ExactPositions::load(&path).unwrap_err();
        assert!(matches!(e, PositionsError::Format { .. }), "{e}");
        assert!(e.to_string().contains("set.json"), "{e}");
        let e = ExactPositions::load(&dir.path().join("missing.json")).unwrap_err();
        assert!(matches!(e, PositionsError::Io { .. }), "{e}");
    }
}
