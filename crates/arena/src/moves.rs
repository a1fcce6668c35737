//! Per-agent figures from the move-by-move records of `games.jsonl`: time
//! per move, search depth or simulations, and search speed.
//!
//! A record lists its moves in order but not who played each (an extra
//! turn keeps the mover), so the games are replayed to tell the seats'
//! moves apart: [`movers`].

use std::collections::BTreeMap;

use mancala_core::{Game, Move};

use crate::record::GameRecord;

/// The seat (0 or 1) that played each move of `record`, the opening's
/// included; `None` when the moves do not replay in `game` (a record of
/// another game, or a corrupt one).
pub fn movers<G: Game>(game: &G, record: &GameRecord) -> Option<Vec<u8>> {
    let mut state = game.start();
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
#[derive(Clone, Debug, Default, PartialEq)]
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

/// [`MoveStats`] per agent (display name), gathered game by game.
#[derive(Clone, Debug, Default)]
pub struct MoveTable {
    /// By display name.
    pub agents: BTreeMap<String, MoveStats>,
    /// Games whose moves could not be replayed (left out).
    pub unreadable: u64,
}

impl MoveTable {
    /// Adds the moves of `record`, a game of `game`.
    pub fn add<G: Game>(&mut self, game: &G, record: &GameRecord) {
        let Some(seats) = movers(game, record) else {
            self.unreadable += 1;
            return;
        };
        let opening = seats.len() - record.move_us.len().min(seats.len());
        let seat_of = |ply: usize| seats.get(ply - 1).map(|&s| usize::from(s));
        for (k, &us) in record.move_us.iter().enumerate() {
            let ply = opening + k + 1;
            let Some(seat) = seat_of(ply) else { continue };
            let stats = self.entry(record, seat);
            stats.moves += 1;
            stats.micros += us;
            stats.longest_us = stats.longest_us.max(us);
            if let Some(&clock) = record.clock_ms.get(k) {
                stats.least_clock_ms = Some(stats.least_clock_ms.map_or(clock, |c| c.min(clock)));
            }
        }
        for search in &record.search {
            let ply = search.ply as usize;
            let (Some(seat), Some(&us)) = (
                seat_of(ply),
                ply.checked_sub(opening + 1)
                    .and_then(|k| record.move_us.get(k)),
            ) else {
                continue;
            };
            let stats = self.entry(record, seat);
            if let Some(depth) = search.depth {
                stats.depth_moves += 1;
                stats.depth_sum += u64::from(depth);
            }
            if let Some(nodes) = search.nodes {
                stats.node_moves += 1;
                stats.nodes += nodes;
                stats.node_micros += us;
            }
            if let Some(sims) = search.sims {
                stats.sim_moves += 1;
                stats.sims += sims;
                stats.sim_micros += us;
            }
        }
    }

    fn entry(&mut self, record: &GameRecord, seat: usize) -> &mut MoveStats {
        let name = &record.players[seat];
        if !self.agents.contains_key(name) {
            self.agents.insert(name.clone(), MoveStats::default());
        }
        self.agents.get_mut(name).expect("inserted above")
    }
}
