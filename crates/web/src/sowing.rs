//! Where each seed of a move goes, for the app to animate the sowing seed
//! by seed. The engine sows a whole lap in one vector step and keeps no
//! trace, so the path is followed here again from the rules' sowing order
//! alone (which places a sowing passes, and Congkak's relays); what comes
//! after the sowing (captures, the end of a game or a round) is left to the
//! state the engine gives. The tests check every traced move of random
//! games against the engine's result.

use mancala_core::{GameSpec, Move, Player, Setup};
use serde::Serialize;

/// One lift and its seeds' path: the seeds of `from` dropped one at a time
/// in the cells of `to`, in order. Cells are those of [`Setup::board`]:
/// player 0's pits, player 1's pits, store 0, store 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lift {
    /// The cell the seeds were lifted from.
    pub from: usize,
    /// Where each seed was dropped.
    pub to: Vec<usize>,
}

/// How a family of games sows: which ring it goes round and what it passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// Both rows and both stores; the mover's opponent's store is passed.
    Kalah,
    /// As Kalah, with relays: a last seed in a hole that held seeds lifts
    /// them all and sows on.
    Congkak,
    /// Both rows, no stores; the house sown from is passed on every lap.
    Oware,
}

/// The lifts of `mv` played by the player to move in `before` (none for
/// the pie rule's swap, which sows nothing, or a finished game).
pub fn trace(spec: &GameSpec, before: &Setup, mv: Move) -> Vec<Lift> {
    let (Move::Pit(pit), Some(mover)) = (mv, before.to_move) else {
        return Vec::new();
    };
    let family = match spec {
        GameSpec::Kalah(_) => Family::Kalah,
        GameSpec::Congkak(_) => Family::Congkak,
        GameSpec::Oware(_) => Family::Oware,
    };
    let n = before.rows[Player::ZERO].len();
    let mut board = before.board();
    let ring = ring_of(family, n, mover, &before.burnt);
    let own_store = 2 * n + mover.index();
    let mut pos = ring
        .iter()
        .position(|&c| c == mover.index() * n + usize::from(pit))
        .expect("a legal move's pit is on the ring");
    let mut lifts = Vec::new();
    loop {
        let from = ring[pos];
        let seeds = std::mem::take(&mut board[from]);
        let mut to = Vec::with_capacity(usize::from(seeds));
        for _ in 0..seeds {
            pos = (pos + 1) % ring.len();
            if family == Family::Oware && ring[pos] == from {
                pos = (pos + 1) % ring.len();
            }
            board[ring[pos]] += 1;
            to.push(ring[pos]);
        }
        lifts.push(Lift { from, to });
        let last = ring[pos];
        // A relay goes on from a hole that was not empty before the last
        // seed fell in it; it never lifts a store.
        if family != Family::Congkak || last == own_store || board[last] == 1 {
            return lifts;
        }
    }
}

/// The cells the mover's sowing goes round, in order: for Kalah and
/// Congkak player 0's pits, store 0, player 1's pits, store 1, without the
/// opponent's store and burnt holes; for Oware the two rows.
fn ring_of(
    family: Family,
    n: usize,
    mover: Player,
    burnt: &mancala_core::ByPlayer<u16>,
) -> Vec<usize> {
    let row = |p: usize| {
        (0..n)
            .filter(move |&i| i >= 16 || burnt.0[p] & (1 << i) == 0)
            .map(move |i| p * n + i)
    };
    let store = |p: usize| (family != Family::Oware && p == mover.index()).then_some(2 * n + p);
    row(0)
        .chain(store(0))
        .chain(row(1))
        .chain(store(1))
        .collect()
}
