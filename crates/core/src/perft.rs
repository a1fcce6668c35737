//! Perft: counting move sequences, the standard check of a move generator.

use crate::Game;

/// The number of move sequences of exactly `depth` moves from `state`.
///
/// Every move counts, extra-turn moves and swaps included; a game that ends
/// before `depth` moves contributes nothing. `perft(_, _, 0)` is 1.
///
/// ```
/// use mancala_core::{perft, Game, KalahRules};
/// let kalah = KalahRules::default();
/// // Six first moves; one of them (pit 3) earns an extra turn with five replies.
/// assert_eq!(perft(&kalah, &kalah.start(), 1), 6);
/// assert_eq!(perft(&kalah, &kalah.start(), 2), 5 * 6 + 5);
/// ```
pub fn perft<G: Game>(game: &G, state: &G::State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let legal = game.legal_moves(state);
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .into_iter()
        .map(|mv| {
            let mut next = state.clone();
            game.play_unchecked(&mut next, mv);
            perft(game, &next, depth - 1)
        })
        .sum()
}
