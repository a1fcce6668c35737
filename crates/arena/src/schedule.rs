//! Which games a tournament plays: pairings, seats and openings, with ids
//! fixed up front so that a resumed run knows exactly what is missing.

use mancala_core::{Game, Move};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use mancala_agents::derive_seed;

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// Position in the schedule, from 0; also the game's seed stream.
    pub id: u64,
    /// Which pair of agents (index into the schedule's pairs).
    pub pair: u32,
    /// How many games this pair played before this one.
    pub round: u32,
    /// Which opening (index into the opening list).
    pub opening: u32,
    /// The agents (indices) in seat order: `seats[0]` moves first.
    pub seats: [usize; 2],
}

/// How agents are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// Every pair of agents.
    RoundRobin,
    /// The agent with this index against every other one.
    Gauntlet(usize),
}

/// The pairs of agents a format plays, in a fixed order.
pub fn pairs(format: Format, agents: usize) -> Vec<[usize; 2]> {
    match format {
        Format::RoundRobin => (0..agents)
            .flat_map(|a| (a + 1..agents).map(move |b| [a, b]))
            .collect(),
        Format::Gauntlet(champion) => (0..agents)
            .filter(|&b| b != champion)
            .map(|b| [champion, b])
            .collect(),
    }
}

/// The whole schedule: for each pair, `games_per_pair` games; opening `k`
/// is played twice in a row with seats swapped (games `2k` and `2k + 1` of
/// the pair), cycling through `openings` openings.
///
/// Games are interleaved pair by pair (every pair's first game, then every
/// pair's second, ...) so that a tournament stopped early is balanced.
pub fn schedule(pairs: &[[usize; 2]], games_per_pair: u32, openings: usize) -> Vec<ScheduledGame> {
    let mut games = Vec::with_capacity(pairs.len() * games_per_pair as usize);
    for round in 0..games_per_pair {
        for (pair, &[a, b]) in pairs.iter().enumerate() {
            let opening = (round / 2) as usize % openings.max(1);
            let seats = if round % 2 == 0 { [a, b] } else { [b, a] };
            games.push(ScheduledGame {
                id: games.len() as u64,
                pair: pair as u32,
                round,
                opening: opening as u32,
                seats,
            });
        }
    }
    games
}

/// `count` random openings of `plies` moves each (seeded), none of which
/// ends the game, all different where the game allows. With `plies == 0`,
/// one opening: the start position.
pub fn random_openings<G: Game>(game: &G, count: usize, plies: u32, seed: u64) -> Vec<Vec<Move>> {
    if plies == 0 || count == 0 {
        return vec![Vec::new()];
    }
    let mut openings: Vec<Vec<Move>> = Vec::with_capacity(count);
    let mut attempt = 0u64;
    // Duplicates are skipped for a while; small games may have fewer
    // distinct openings than asked, and then some repeat.
    let patience = 50 * count as u64 + 1000;
    while openings.len() < count {
        attempt += 1;
        let mut rng = SmallRng::seed_from_u64(derive_seed(seed, attempt));
        let mut state = game.start();
        let mut moves = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let legal = game.legal_moves(&state);
            if legal.is_empty() {
                break;
            }
            let mv = legal.nth(rand::Rng::random_range(&mut rng, 0..legal.len()));
            game.play_unchecked(&mut state, mv);
            moves.push(mv);
        }
        if game.is_over(&state) {
            continue;
        }
        if attempt < patience && openings.contains(&moves) {
            continue;
        }
        openings.push(moves);
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::KalahRules;

    #[test]
    fn round_robin_pairs_every_two_agents_once() {
        assert_eq!(pairs(Format::RoundRobin, 3), vec![[0, 1], [0, 2], [1, 2]]);
        assert_eq!(pairs(Format::Gauntlet(1), 3), vec![[1, 0], [1, 2]]);
    }

    #[test]
    fn each_opening_is_played_twice_with_seats_swapped() {
        let games = schedule(&pairs(Format::RoundRobin, 3), 4, 10);
        assert_eq!(games.len(), 12);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.id, i as u64);
        }
        let pair0: Vec<_> = games.iter().filter(|g| g.pair == 0).collect();
        assert_eq!(pair0[0].seats, [0, 1]);
        assert_eq!(pair0[1].seats, [1, 0]);
        assert_eq!(pair0[0].opening, pair0[1].opening);
        assert_ne!(pair0[1].opening, pair0[2].opening);
    }

    #[test]
    fn openings_are_seeded_distinct_and_unfinished() {
        let game = KalahRules::default();
        let a = random_openings(&game, 20, 4, 7);
        let b = random_openings(&game, 20, 4, 7);
        assert_eq!(a, b);
        assert_ne!(a, random_openings(&game, 20, 4, 8));
        for (i, o) in a.iter().enumerate() {
            assert_eq!(o.len(), 4);
            assert!(!a[..i].contains(o), "opening {i} repeats");
            let mut s = game.start();
            for &m in o {
                game.try_play(&mut s, m).unwrap();
            }
            assert!(!game.is_over(&s));
        }
        assert_eq!(random_openings(&game, 5, 0, 1), vec![Vec::<Move>::new()]);
    }
}
