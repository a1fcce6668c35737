//! Exact adjudication: a game ends as soon as the result of perfect play
//! from its position is known, with that result. The runner asks an
//! [`Adjudicator`] after every move; which positions it knows (an endgame
//! database, a solver within a node budget) is the caller's business, so
//! the tournament crate needs no solver.

use mancala_core::Game;

/// What `end` says of a game ended by adjudication.
pub const ADJUDICATED: &str = "adjudicated";

/// Knows the exact value of some positions.
pub trait Adjudicator<G: Game>: Sync {
    /// The final margin for the mover of `state` (a game not over) with
    /// perfect play, if known. Must depend on `state` alone: the same
    /// answer on any thread, machine, and after any other question, or
    /// the games would depend on the schedule.
    fn exact_value(&self, state: &G::State) -> Option<i32>;
}

/// The final scores of perfect play from `state`, whose mover's final
/// margin is `value`: the stores now, plus the seeds still in the pits
/// shared as that margin says. `None` when no such share exists (the
/// value and the seeds disagree in parity or range), or for a finished
/// game.
pub fn perfect_play_scores<G: Game>(game: &G, state: &G::State, value: i32) -> Option<[u8; 2]> {
    let mover = game.to_move(state)?.index();
    let stores = game.scores(state).0;
    let in_pits = game.total_seeds() as i32 - i32::from(stores[0]) - i32::from(stores[1]);
    let (own, other) = (i32::from(stores[mover]), i32::from(stores[1 - mover]));
    // own + x - (other + in_pits - x) = value
    let twice = value - own + other + in_pits;
    if twice % 2 != 0 || !(0..=2 * in_pits).contains(&twice) {
        return None;
    }
    let x = twice / 2;
    let mut scores = [0u8; 2];
    scores[mover] = u8::try_from(own + x).ok()?;
    scores[1 - mover] = u8::try_from(other + in_pits - x).ok()?;
    Some(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::KalahRules;

    #[test]
    fn the_pits_are_shared_as_the_margin_says() {
        let rules = KalahRules::new(3, 2).unwrap();
        let start = rules.start();
        // 12 seeds in the pits, none in the stores: +4 for the mover is 8-4.
        assert_eq!(perfect_play_scores(&rules, &start, 4), Some([8, 4]));
        assert_eq!(perfect_play_scores(&rules, &start, -12), Some([0, 12]));
        assert_eq!(perfect_play_scores(&rules, &start, 3), None, "parity");
        assert_eq!(perfect_play_scores(&rules, &start, 14), None, "range");
        let mut moved = start;
        rules.play_unchecked(&mut moved, "3".parse().unwrap());
        // Pit 3's two seeds go to the store and player 1's first pit:
        // player 1 to move, 1 seed in a store and 11 in the pits.
        let scores = perfect_play_scores(&rules, &moved, 0).unwrap();
        assert_eq!(scores, [6, 6]);
    }
}
