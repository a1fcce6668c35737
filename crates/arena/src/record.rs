//! What is kept of each finished game: one row of `games.csv`, one line of
//! `games.jsonl`.

use std::fmt::Write as _;

use mancala_agents::{SearchInfo, SearchKind};
use mancala_core::Game;
use serde::{Deserialize, Serialize};
use thiserror::Error;

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
    /// The position the game started from, in the project's notation,
    /// when its opening was a position (an openings file's line); `None`:
    /// the rules' start. `moves` are played from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
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
    /// The microseconds each move after the opening took, in the order of
    /// `moves` (the first is the opening's next move). Like `duration_ms`,
    /// it varies between identical runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_us: Vec<u64>,
    /// With a time control, the mover's clock after each move of
    /// `move_us`, increment included, in milliseconds (empty without one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock_ms: Vec<u64>,
    /// What the agents said of their searches, for the moves where they
    /// said anything (`random` and `greedy` never do), in ply order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search: Vec<MoveSearch>,
}

/// The fields of a [`GameRecord`] that measure time and so differ between
/// identical runs; everything else is decided by the seeds (with no clock
/// and no time budgets).
pub const TIMING_FIELDS: [&str; 3] = ["duration_ms", "move_us", "clock_ms"];

/// What an agent said of the search behind one move. Which fields are
/// present depends on the agent: alpha-beta gives `depth`, `nodes` and a
/// `score`; MCTS (and the neural agent) `sims`, `depth` (its deepest
/// path), `win` and `share`; `perfect` an exact `score`; an engine what its
/// last `info` lines said.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveSearch {
    /// The move's number in `moves`, from 1.
    pub ply: u32,
    /// Depth completed (alpha-beta, engines) or the deepest path (MCTS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Positions searched (alpha-beta, engines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Simulations run (MCTS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sims: Option<u64>,
    /// The expected final margin for the mover, in seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Whether `score` is proven (a solver's value), not estimated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The expected score for the mover in `0..=1` (MCTS: the chosen
    /// move's mean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win: Option<f64>,
    /// The chosen move's share of the root's visits (MCTS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// The first moves of the line the agent expected, its move first.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pv: String,
}

impl MoveSearch {
    /// What `info` says of the search behind move `ply`; `None` when the
    /// agent said nothing, or searched nothing (a forced move).
    pub fn from_info(ply: u32, info: &SearchInfo) -> Option<MoveSearch> {
        // Checked before anything is built: most moves of a fast
        // tournament are by agents that say nothing.
        if info.kind == SearchKind::None || (info.nodes == 0 && info.value.is_none()) {
            return None;
        }
        let some = |n: u64| (n > 0).then_some(n);
        let mut pv = String::new();
        for (i, mv) in info.pv.moves().iter().enumerate() {
            if i > 0 {
                pv.push(' ');
            }
            // Writing to a String cannot fail.
            let _ = write!(pv, "{mv}");
        }
        let base = MoveSearch {
            ply,
            pv,
            ..MoveSearch::default()
        };
        Some(match info.kind {
            SearchKind::None => return None,
            SearchKind::AlphaBeta | SearchKind::Engine => MoveSearch {
                depth: (info.depth > 0).then_some(info.depth),
                nodes: some(info.nodes),
                score: info.value,
                ..base
            },
            SearchKind::Mcts => MoveSearch {
                depth: (info.depth > 0).then_some(info.depth),
                sims: some(info.nodes),
                win: info.value,
                share: info.share,
                ..base
            },
            SearchKind::Exact => MoveSearch {
                score: info.value,
                exact: info.value.is_some(),
                ..base
            },
        })
    }
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

    /// The position the game's `moves` are played from: its `start`, or
    /// the rules' start.
    ///
    /// # Errors
    /// [`BadStart`] when `start` is not a position of `game`.
    pub fn start_state<G: Game>(&self, game: &G) -> Result<G::State, BadStart> {
        match &self.start {
            None => Ok(game.start()),
            Some(text) => game.parse_position(text).map_err(|e| BadStart {
                text: text.clone(),
                why: e.to_string(),
            }),
        }
    }

    /// The index in `move_us` (and `clock_ms`) of move `ply` (from 1, as
    /// in `moves`); `None` for an opening's move or a ply not played.
    pub fn timed_index(&self, ply: usize) -> Option<usize> {
        let opening = (self.plies as usize).checked_sub(self.move_us.len())?;
        ply.checked_sub(opening + 1)
            .filter(|&k| k < self.move_us.len())
    }

    /// The seat that lost the game on time, if one did.
    pub fn time_loser(&self) -> Option<usize> {
        if self.end != "time" {
            return None;
        }
        self.winner.map(|w| 1 - usize::from(w))
    }
}

/// A record's start position that is not a position of its game.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("its start position '{text}': {why}")]
pub struct BadStart {
    /// The position as the record gives it.
    pub text: String,
    /// Why it is not one.
    pub why: String,
}

/// Why a game read back from a log is not the game its plan says, or not a
/// game at all (its moves do not replay to its result): what differs, in
/// words, for the user who resumes or merges.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct RecordMismatch(pub String);

/// `record` as JSON without its [`TIMING_FIELDS`]: what two runs of the
/// same games must agree on.
pub fn timeless_json(record: &GameRecord) -> serde_json::Value {
    let mut v = serde_json::to_value(record).expect("records serialise");
    if let Some(o) = v.as_object_mut() {
        for field in TIMING_FIELDS {
            o.remove(field);
        }
    }
    v
}

/// A finished game of Kalah between agents `a` and `b` for unit tests: game
/// `id` of opening `opening`, `seats` giving the agent in each seat, won by
/// seat `winner` (`None`: a draw) by `margin` seeds for seat 0, in 40
/// plies; nothing else recorded.
#[cfg(test)]
pub(crate) fn test_record(
    id: u64,
    opening: u32,
    seats: [usize; 2],
    winner: Option<u8>,
    margin: i32,
) -> GameRecord {
    GameRecord {
        id,
        pair: 0,
        round: id as u32,
        opening,
        game: "kalah".into(),
        players: ["a".into(), "b".into()],
        agents: ["a".into(), "b".into()],
        seats,
        seed: 0,
        start: None,
        opening_moves: String::new(),
        moves: String::new(),
        scores: [0, 0],
        winner,
        margin,
        plies: 40,
        duration_ms: 0.0,
        end: "rules".into(),
        error: None,
        move_us: Vec::new(),
        clock_ms: Vec::new(),
        search: Vec::new(),
    }
}
