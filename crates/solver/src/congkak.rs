//! Exact values of single-round Congkak positions.
//!
//! [`CongkakSolver`] finds the final margin of a position with perfect play
//! by both sides (from the mover's side), the value of every legal move and
//! a principal variation, for single-round Congkak (`rounds=one`) on every
//! board the engine allows, under both `empty_capture` settings and both
//! `game_end` rules.
//!
//! # Why the stores can be left out
//!
//! In a single round nothing ever leaves a store, and nothing a move does
//! depends on what a store holds: the sowing passes through the mover's
//! store (dropping a seed there) and over the opponent's, a relay goes on
//! while the last seed lands in a hole that held seeds, a capture looks at
//! the hole facing the last one, and the round ends when a row is empty
//! (the mover's with `game_end=delayed`, either with `immediate`), after
//! which each row's seeds go to its owner. None of these reads a store; the
//! engine's [`CongkakRules`] reads them only to report the scores. So the
//! rest of the game, and what it adds to each store, depends only on the
//! holes and the player to move, and a position's value is the stores'
//! margin plus the margin *still to come*. Only the second part is searched
//! and tabled, under a key made of the holes alone, seen from the mover's
//! side (the rules are the same for both players, so a position and its
//! mirror image share one entry). The tests check the result against a
//! plain minimax over the engine's whole state, stores included.
//!
//! Multi-round play (`rounds=many`) breaks this: at the end of a round the
//! stores refill the holes, decide which holes are burnt and who begins
//! the next round, so the future depends on the stores. The solver refuses
//! it ([`SolveError::MultiRound`]) rather than table a wrong key.
//!
//! # The method
//!
//! Congkak is an [`ExactGame`](crate::ExactGame), so it is solved by the
//! same generic search as Kalah ([`crate::Solver`], monomorphised for
//! [`CongkakRules`]): MTD(f) over fail-soft alpha-beta on the margin still
//! to come, a lock-free table of exact bounds, enhanced transposition
//! cutoffs, several threads on one tree (ABDADA), a first guess on big
//! positions and an endgame database (whose fingerprint names Congkak, so
//! that it is never mistaken for a Kalah database of as many pits). Moves
//! are ordered by the table's move, then by immediate gain with a bonus
//! for an extra turn.
//!
//! Every move is played by the engine ([`Game::play_unchecked`]), so the
//! relays, laps, captures and the end of the round are exactly the
//! engine's. The search terminates without a ply limit: a move that puts
//! no seed in a store only moves seeds of the mover's row towards the
//! store, so no position (holes and mover) can recur, and every line is
//! finite (see `docs/RULES.md`, "Every move ends"). The same argument
//! lets the endgame database be built level by level.
//!
//! The values are exact, so they do not depend on the thread count, and
//! neither does the principal variation: it takes, at each step, the first
//! legal move that keeps the value.
//!
//! ```
//! use mancala_core::{CongkakRules, Game};
//! use mancala_solver::congkak::CongkakSolver;
//! use mancala_solver::SolverOptions;
//!
//! let rules = CongkakRules::new(3, 2).unwrap();
//! let solver = CongkakSolver::new(rules, &SolverOptions::small()).unwrap();
//! let solution = solver.solve(&rules.start(), 1).unwrap();
//! assert!(solution.moves.iter().all(|m| m.value <= solution.value));
//! assert!(solution.moves.iter().any(|m| m.value == solution.value));
//! ```

use mancala_core::CongkakRules;
#[cfg(doc)]
use mancala_core::Game;

#[cfg(doc)]
use crate::SolveError;

/// The solver of single-round Congkak: the generic [`crate::Solver`] for
/// [`CongkakRules`].
pub type CongkakSolver = crate::Solver<CongkakRules>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::bits_for;
    use crate::ExactGame;
    use mancala_core::{CongkakState, Game, Move, Player};

    #[test]
    fn mirrored_positions_share_a_key_and_the_stores_are_not_in_it() {
        let rules = CongkakRules::new(3, 2).unwrap();
        let a = rules.parse_position("1,2,0/0,3,1/4,1/0").unwrap();
        let b = rules.parse_position("0,3,1/1,2,0/0,5/1").unwrap();
        let c = rules.parse_position("1,2,0/0,1,3/4,1/0").unwrap();
        let bits = bits_for(rules.total_seeds());
        let key = |s: &CongkakState| {
            let mover = rules.to_move(s).unwrap();
            rules.view(s, mover).key(bits)
        };
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
    }

    #[test]
    fn large_boards_hash_and_keep_different_holes_apart() {
        let rules = CongkakRules::new(15, 8).unwrap();
        let start = rules.start();
        let mut after = start;
        rules.play_unchecked(&mut after, Move::Pit(0));
        let bits = bits_for(rules.total_seeds());
        let k0 = rules.view(&start, Player::ZERO).key(bits);
        let mover = rules.to_move(&after).unwrap();
        let k1 = rules.view(&after, mover).key(bits);
        assert_ne!(k0, k1);
    }
}
