//! Relay and result statistics of random Congkak games: how long relay
//! moves and turns run against the lap bound, and the first player's
//! wins, draws and losses in single and multi-round play.
//!
//! ```text
//! cargo run --release -p mancala-core --example congkak_stats -- [GAMES] [SPEC...]
//! ```
//!
//! `GAMES` defaults to 100000; the specs to `congkak` and
//! `congkak:rounds=many`. Seeded: the same arguments give the same figures.
#![allow(clippy::print_stdout)]

use mancala_core::{CongkakRules, Game, GameSpec, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::time::Instant;

#[derive(Default)]
struct Stats {
    games: u64,
    moves: u64,
    sown: u64,
    max_sown: u32,
    /// The largest share of its position's lap bound a move used.
    max_bound_share: f64,
    max_bound: u32,
    relays: u64,
    max_relays: u32,
    turns: u64,
    max_turn_moves: u32,
    /// Turns by their number of moves (1 = no extra turn).
    turn_moves: BTreeMap<u32, u64>,
    rounds: u64,
    max_rounds: usize,
    first_player: [u64; 3],
    reasons: BTreeMap<String, u64>,
}

fn play(rules: &CongkakRules, rng: &mut SmallRng, stats: &mut Stats) {
    let mut state = rules.start();
    let mut turn_moves = 0u32;
    while let Some(p) = rules.to_move(&state) {
        let legal = rules.legal_moves(&state);
        let mv = legal.nth(rng.random_range(0..legal.len()));
        let bound = rules.sowing_bound(&state);
        let round_before = rules.round(&state);
        let sowing = rules.play_measured(&mut state, mv);
        stats.moves += 1;
        stats.sown += u64::from(sowing.sown);
        stats.max_sown = stats.max_sown.max(sowing.sown);
        stats.max_bound = stats.max_bound.max(bound);
        stats.max_bound_share = stats
            .max_bound_share
            .max(f64::from(sowing.sown) / f64::from(bound));
        stats.relays += u64::from(sowing.relays);
        stats.max_relays = stats.max_relays.max(sowing.relays);
        turn_moves += 1;
        // A turn ends when someone else is to move, the round changed, or the game ended.
        let same_turn = rules.to_move(&state) == Some(p) && rules.round(&state) == round_before;
        if !same_turn {
            stats.turns += 1;
            stats.max_turn_moves = stats.max_turn_moves.max(turn_moves);
            *stats.turn_moves.entry(turn_moves).or_default() += 1;
            turn_moves = 0;
        }
    }
    let outcome = rules.outcome(&state).expect("over");
    stats.games += 1;
    stats.rounds += rules.round(&state) as u64;
    stats.max_rounds = stats.max_rounds.max(rules.round(&state));
    let k = match outcome.winner() {
        Some(Player::ZERO) => 0,
        None => 1,
        Some(_) => 2,
    };
    stats.first_player[k] += 1;
    *stats.reasons.entry(outcome.reason.to_string()).or_default() += 1;
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: u64 = args
        .next()
        .map_or(100_000, |g| g.parse().expect("GAMES: a number"));
    let mut specs: Vec<String> = args.collect();
    if specs.is_empty() {
        specs = vec!["congkak".into(), "congkak:rounds=many".into()];
    }
    for text in specs {
        let GameSpec::Congkak(rules) = text.parse().expect("a game spec") else {
            panic!("{text} is not a Congkak spec");
        };
        let mut rng = SmallRng::seed_from_u64(2024);
        let mut stats = Stats::default();
        let t0 = Instant::now();
        for _ in 0..games {
            play(&rules, &mut rng, &mut stats);
        }
        let secs = t0.elapsed().as_secs_f64();
        let g = stats.games as f64;
        let pct = |x: u64| 100.0 * x as f64 / g;
        println!(
            "{rules}: {games} random games ({:.1} s, {:.0} games/s with measuring)",
            secs,
            g / secs
        );
        println!("  moves per game           {:.1}", stats.moves as f64 / g);
        println!(
            "  seeds sown per move      mean {:.2}, max {} (lap bound of that game's positions at most {}; the largest share of its own bound a move used: {:.3})",
            stats.sown as f64 / stats.moves as f64,
            stats.max_sown,
            stats.max_bound,
            stats.max_bound_share
        );
        println!(
            "  relays per move          mean {:.2}, max {}",
            stats.relays as f64 / stats.moves as f64,
            stats.max_relays
        );
        println!(
            "  moves per turn           mean {:.3}, max {}; turns with an extra move {:.2}%",
            stats.moves as f64 / stats.turns as f64,
            stats.max_turn_moves,
            100.0 * (stats.turns - stats.turn_moves.get(&1).copied().unwrap_or(0)) as f64
                / stats.turns as f64
        );
        let long: Vec<String> = stats
            .turn_moves
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect();
        println!("  turns by moves           {}", long.join(" "));
        println!(
            "  rounds per game          mean {:.2}, max {}",
            stats.rounds as f64 / g,
            stats.max_rounds
        );
        println!(
            "  first player W/D/L       {:.2}% / {:.2}% / {:.2}%  ({} / {} / {})",
            pct(stats.first_player[0]),
            pct(stats.first_player[1]),
            pct(stats.first_player[2]),
            stats.first_player[0],
            stats.first_player[1],
            stats.first_player[2]
        );
        let reasons: Vec<String> = stats
            .reasons
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        println!("  end reasons              {}", reasons.join(", "));
    }
}
