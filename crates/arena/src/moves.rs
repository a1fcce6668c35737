//! Per-agent figures from the move-by-move records of `games.jsonl`: time
//! per move, search depth or simulations, and search speed.
//!
//! A record lists its moves in order but not who played each (an extra
//! turn keeps the mover), so the games are replayed to tell the seats'
//! moves apart: [`movers`].

use std::collections::BTreeMap;

use mancala_core::{Game, Move};
use serde::{Deserialize, Serialize};

use crate::record::{GameRecord, MoveSearch};

/// The seat (0 or 1) that played each move of `record`, the opening's
/// included; `None` when the moves do not replay in `game` (a record of
/// another game, or a corrupt one).
pub fn movers<G: Game>(game: &G, record: &GameRecord) -> Option<Vec<u8>> {
    let mut state = record.start_state(game).ok()?;
    let mut seats = Vec::with_capacity(record.plies as usize);
    for token in record.moves.split_whitespace() {
        let mv = Move::parse_human(token).ok()?;
        let mover = game.to_move(&state)?;
        game.try_play(&mut state, mv).ok()?;
        seats.push(mover.index() as u8);
    }
    Some(seats)
}

/// What one agent's moves cost and searched, summed over games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// Moves timed (the openings' moves are not the agents').
    pub moves: u64,
    /// Their time, in microseconds.
    pub micros: u64,
    /// The longest move, in microseconds.
    pub longest_us: u64,
    /// The least any clock of the agent's showed after one of its moves, in
    /// milliseconds (`None` without a clock).
    pub least_clock_ms: Option<u64>,
    /// Moves with a depth reported.
    pub depth_moves: u64,
    /// Their depths, summed.
    pub depth_sum: u64,
    /// Moves with nodes reported.
    pub node_moves: u64,
    /// Their nodes, summed.
    pub nodes: u64,
    /// Their time, in microseconds.
    pub node_micros: u64,
    /// Moves with simulations reported.
    pub sim_moves: u64,
    /// Their simulations, summed.
    pub sims: u64,
    /// Their time, in microseconds.
    pub sim_micros: u64,
}

impl MoveStats {
    /// Counts one move that took `us` microseconds, left `clock_ms` on the
    /// mover's clock (with a time control), and searched as `note` says.
    pub fn add_move(&mut self, us: u64, clock_ms: Option<u64>, note: Option<&MoveSearch>) {
        self.moves += 1;
        self.micros += us;
        self.longest_us = self.longest_us.max(us);
        if let Some(clock) = clock_ms {
            self.least_clock_ms = Some(self.least_clock_ms.map_or(clock, |c| c.min(clock)));
        }
        let Some(note) = note else { return };
        if let Some(depth) = note.depth {
            self.depth_moves += 1;
            self.depth_sum += u64::from(depth);
        }
        if let Some(nodes) = note.nodes {
            self.node_moves += 1;
            self.nodes += nodes;
            self.node_micros += us;
        }
        if let Some(sims) = note.sims {
            self.sim_moves += 1;
            self.sims += sims;
            self.sim_micros += us;
        }
    }

    /// Adds `other`'s moves.
    pub fn merge(&mut self, other: &MoveStats) {
        self.moves += other.moves;
        self.micros += other.micros;
        self.longest_us = self.longest_us.max(other.longest_us);
        self.least_clock_ms = match (self.least_clock_ms, other.least_clock_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.depth_moves += other.depth_moves;
        self.depth_sum += other.depth_sum;
        self.node_moves += other.node_moves;
        self.nodes += other.nodes;
        self.node_micros += other.node_micros;
        self.sim_moves += other.sim_moves;
        self.sims += other.sims;
        self.sim_micros += other.sim_micros;
    }

    /// Mean time per move in milliseconds.
    pub fn ms_per_move(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.micros as f64 / self.moves as f64 / 1000.0)
    }

    /// Mean depth over the moves that reported one.
    pub fn mean_depth(&self) -> Option<f64> {
        (self.depth_moves > 0).then(|| self.depth_sum as f64 / self.depth_moves as f64)
    }

    /// Mean simulations per move, over the moves that reported them.
    pub fn sims_per_move(&self) -> Option<f64> {
        (self.sim_moves > 0).then(|| self.sims as f64 / self.sim_moves as f64)
    }

    /// Positions searched per second, over the moves that reported nodes.
    pub fn nodes_per_second(&self) -> Option<f64> {
        (self.node_micros > 0).then(|| self.nodes as f64 * 1e6 / self.node_micros as f64)
    }

    /// Simulations per second, over the moves that reported them.
    pub fn sims_per_second(&self) -> Option<f64> {
        (self.sim_micros > 0).then(|| self.sims as f64 * 1e6 / self.sim_micros as f64)
    }
}

/// [`MoveStats`] per agent (display name), gathered game by game:
/// `moves.json` of a tournament's folder.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveTable {
    /// By display name.
    pub agents: BTreeMap<String, MoveStats>,
    /// Games whose moves could not be replayed (left out).
    #[serde(default)]
    pub unreadable: u64,
}

impl MoveTable {
    /// Adds the moves of `record`, a game of `game`, replaying it to tell
    /// the seats' moves apart.
    pub fn add<G: Game>(&mut self, game: &G, record: &GameRecord) {
        let Some(seats) = movers(game, record) else {
            self.unreadable += 1;
            return;
        };
        let opening = seats.len() - record.move_us.len().min(seats.len());
        let mut stats: [MoveStats; 2] = Default::default();
        let mut notes = record.search.iter().peekable();
        for (k, &us) in record.move_us.iter().enumerate() {
            let ply = (opening + k + 1) as u32;
            while notes.next_if(|n| n.ply < ply).is_some() {}
            let note = notes.next_if(|n| n.ply == ply);
            let seat = usize::from(seats[opening + k]);
            stats[seat].add_move(us, record.clock_ms.get(k).copied(), note);
        }
        self.add_game(&record.players, &stats);
    }

    /// Adds one game's figures, `stats` by seat, to the players of
    /// `players` (display names in seat order).
    pub fn add_game(&mut self, players: &[String; 2], stats: &[MoveStats; 2]) {
        for (name, s) in players.iter().zip(stats) {
            if s.moves == 0 {
                continue;
            }
            match self.agents.get_mut(name) {
                Some(total) => total.merge(s),
                None => {
                    self.agents.insert(name.clone(), s.clone());
                }
            }
        }
    }

    /// Adds `other`'s games.
    pub fn merge(&mut self, other: &MoveTable) {
        for (name, s) in &other.agents {
            match self.agents.get_mut(name) {
                Some(total) => total.merge(s),
                None => {
                    self.agents.insert(name.clone(), s.clone());
                }
            }
        }
        self.unreadable += other.unreadable;
    }
}
