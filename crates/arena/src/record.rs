//! What is kept of each finished game: one row of `games.csv`, one line of
//! `games.jsonl`.

use serde::{Deserialize, Serialize};

/// A finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The schedule's game id.
    pub id: u64,
    /// Pair id in the schedule.
    pub pair: u32,
    /// How many games the pair played before this one.
    pub round: u32,
    /// Opening id.
    pub opening: u32,
    /// The game spec (rules), e.g. `kalah:pie=true`.
    pub game: String,
    /// Display names in seat order (seat 0 moved first).
    pub players: [String; 2],
    /// Agent specs in seat order.
    pub agents: [String; 2],
    /// Agent indices in seat order.
    pub seats: [usize; 2],
    /// The game's seed (agents get streams derived from it).
    pub seed: u64,
    /// The opening's moves, as people write them (`3 6 1 swap`).
    pub opening_moves: String,
    /// Every move of the game, the opening's included, as people write
    /// them: `mancala replay --game GAME --moves MOVES` replays it.
    pub moves: String,
    /// Seeds credited to each seat at the end.
    pub scores: [u8; 2],
    /// The winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// `scores[0] - scores[1]`.
    pub margin: i32,
    /// Moves played.
    pub plies: u32,
    /// Wall time of the game in milliseconds (the only column that varies
    /// between identical runs).
    pub duration_ms: f64,
    /// Why the game ended: the rules' reason, `forfeit` when an agent
    /// failed, or `time` when a player's clock ran out.
    pub end: String,
    /// What went wrong when an agent failed (panic, error, timeout,
    /// illegal move); the failing seat lost the game.
    pub error: Option<String>,
}

impl GameRecord {
    /// Seat 0's score: 1 win, ½ draw, 0 loss.
    pub fn first_seat_score(&self) -> f64 {
        match self.winner {
            Some(0) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// Whether an agent failed and forfeited, or lost on time.
    pub fn is_forfeit(&self) -> bool {
        self.error.is_some()
    }

    /// The seat that lost the game on time, if one did.
    pub fn time_loser(&self) -> Option<usize> {
        if self.end != "time" {
            return None;
        }
        self.winner.map(|w| 1 - usize::from(w))
    }
}
