//! Which games a tournament plays: pairings, seats and openings, with ids
//! fixed up front so that a resumed run knows exactly what is missing.

use mancala_core::{Game, Move};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use mancala_agents::derive_seed;

use crate::ArenaError;

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

/// How many pairs [`pairs`] gives, without listing them.
pub fn pair_count(format: Format, agents: usize) -> u64 {
    let n = agents as u64;
    match format {
        Format::RoundRobin => n * n.saturating_sub(1) / 2,
        Format::Gauntlet(_) => n.saturating_sub(1),
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
///
/// Small games may have fewer distinct openings than asked, and then some
/// repeat; tries are bounded, so no board or ply count can make this loop.
///
/// # Errors
/// [`ArenaError::Opening`] when no random line of `plies` moves leaves the
/// game unfinished (every game of that board ends sooner).
pub fn random_openings<G: Game>(
    game: &G,
    count: usize,
    plies: u32,
    seed: u64,
) -> Result<Vec<Vec<Move>>, ArenaError> {
    if plies == 0 || count == 0 {
        return Ok(vec![Vec::new()]);
    }
    let mut openings: Vec<Vec<Move>> = Vec::with_capacity(count.min(1 << 16));
    // Duplicates are skipped for a while, then accepted; unfinished lines
    // are looked for a while longer, then the ones found are reused.
    let patience = 50 * count as u64 + 1000;
    let give_up = 2 * patience;
    let mut attempt = 0u64;
    while openings.len() < count {
        attempt += 1;
        if attempt > give_up {
            if openings.is_empty() {
                return Err(ArenaError::Opening(format!(
                    "no random opening of {plies} moves leaves the game unfinished \
                     ({give_up} tries): games of this board end sooner; use fewer opening moves"
                )));
            }
            let found = openings.len();
            for i in 0..count - found {
                openings.push(openings[i % found].clone());
            }
            break;
        }
        let mut rng = SmallRng::seed_from_u64(derive_seed(seed, attempt));
        let mut state = game.start();
        let mut moves = Vec::with_capacity(plies.min(1024) as usize);
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
    Ok(openings)
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
        let a = random_openings(&game, 20, 4, 7).unwrap();
        let b = random_openings(&game, 20, 4, 7).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, random_openings(&game, 20, 4, 8).unwrap());
        for (i, o) in a.iter().enumerate() {
            assert_eq!(o.len(), 4);
            assert!(!a[..i].contains(o), "opening {i} repeats");
            let mut s = game.start();
            for &m in o {
                game.try_play(&mut s, m).unwrap();
            }
            assert!(!game.is_over(&s));
        }
        assert_eq!(
            random_openings(&game, 5, 0, 1).unwrap(),
            vec![Vec::<Move>::new()]
        );
    }

    #[test]
    fn openings_longer_than_any_game_are_an_error_not_a_hang() {
        let game = KalahRules::default();
        let e = random_openings(&game, 10, 500, 1).unwrap_err().to_string();
        assert!(e.contains("500 moves") && e.contains("fewer"), "{e}");
        let tiny: KalahRules = "kalah:pits=1,seeds=1"
            .parse::<mancala_core::GameSpec>()
            .map(|s| match s {
                mancala_core::GameSpec::Kalah(r) => r,
                _ => unreachable!(),
            })
            .unwrap();
        assert!(random_openings(&tiny, 3, 1, 1).is_err());
    }

    #[test]
    fn rare_unfinished_openings_are_reused_rather_than_searched_for_ever() {
        // Kalah(2,1) has only two one-move openings: far fewer than asked,
        // so the ones found are reused.
        let game: KalahRules = match "kalah:pits=2,seeds=1".parse::<mancala_core::GameSpec>() {
            Ok(mancala_core::GameSpec::Kalah(r)) => r,
            _ => unreachable!(),
        };
        let openings = random_openings(&game, 500, 1, 3).unwrap();
        assert_eq!(openings.len(), 500);
        for o in &openings {
            let mut s = game.start();
            for &m in o {
                game.try_play(&mut s, m).unwrap();
            }
            assert!(!game.is_over(&s));
        }
    }
}
