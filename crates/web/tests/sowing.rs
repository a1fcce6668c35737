//! The animation's sowing paths against the engine: for every move of
//! random games of each family and rule set, the seeds the path drops,
//! added to the board before the move, must give the board after it but for
//! what captures and the end of the game move from pits to the stores.

use mancala_core::{with_game, Game, GameSpec, Move};
use mancala_web::sowing::trace;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Checks each move of `games` random games of `spec`; returns the moves
/// checked, and how many had a relay (more than one lift).
fn check(spec_text: &str, games: usize) -> (usize, usize) {
    let spec: GameSpec = spec_text.parse().unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let (mut moves, mut relays) = (0, 0);
    with_game!(&spec, game => {
        for g in 0..games {
            let mut state = game.start();
            while game.to_move(&state).is_some() {
                let before = game.setup(&state);
                let legal: Vec<Move> = game.legal_moves(&state).into_iter().collect();
                let mv = legal[rng.random_range(0..legal.len())];
                game.play_unchecked(&mut state, mv);
                let after = game.setup(&state);
                let lifts = trace(&spec, &before, mv);
                moves += 1;
                if mv == Move::Swap {
                    assert!(lifts.is_empty());
                    continue;
                }
                if lifts.len() > 1 {
                    relays += 1;
                }
                // A new round of multi-round Congkak lays the board out anew.
                if after.round.map(|r| r.number) != before.round.map(|r| r.number) {
                    continue;
                }
                let mut dropped = before.board();
                for lift in &lifts {
                    let seeds = std::mem::take(&mut dropped[lift.from]);
                    assert_eq!(usize::from(seeds), lift.to.len(), "{spec_text} game {g}: {lift:?}");
                    for &c in &lift.to {
                        dropped[c] += 1;
                    }
                }
                let end = after.board();
                let pits = 2 * game.pits();
                let what = || format!("{spec_text} game {g}: {before} then {mv}: dropped {dropped:?}, engine {end:?}");
                // Pits: as dropped, or emptied into a store.
                let mut emptied = 0u32;
                for c in 0..pits {
                    assert!(end[c] == dropped[c] || end[c] == 0, "{}", what());
                    emptied += u32::from(dropped[c] - end[c]);
                }
                // Stores: as dropped plus what the pits lost, unless seeds
                // were set aside (Kalah's leftover=set_aside).
                let gained: u32 = (pits..pits + 2).map(|c| {
                    assert!(end[c] >= dropped[c], "{}", what());
                    u32::from(end[c] - dropped[c])
                }).sum();
                assert!(gained <= emptied, "{}", what());
                if !spec_text.contains("set_aside") {
                    assert_eq!(gained, emptied, "{}", what());
                }
            }
        }
    });
    (moves, relays)
}

#[test]
fn kalah_paths_match_the_engine() {
    for spec in [
        "kalah",
        "kalah:pits=4,seeds=3",
        "kalah:pits=3,seeds=12",
        "kalah:empty_capture=true,pie=true",
        "kalah:game_end=delayed,leftover=set_aside",
        "kalah:pits=15,seeds=8",
    ] {
        let (moves, relays) = check(spec, 300);
        assert!(moves > 3000, "{spec}: {moves}");
        assert_eq!(relays, 0, "{spec}");
    }
}

#[test]
fn oware_paths_pass_the_house_sown_from() {
    for spec in [
        "oware",
        "oware:pits=3,seeds=9",
        "oware:grand_slam=capture_all",
    ] {
        let (moves, _) = check(spec, 200);
        assert!(moves > 3000, "{spec}: {moves}");
    }
}

#[test]
fn congkak_paths_follow_the_relays() {
    for spec in [
        "congkak",
        "congkak:pits=5,seeds=5,empty_capture=true",
        "congkak:rounds=many",
    ] {
        let (moves, relays) = check(spec, 200);
        assert!(moves > 2000, "{spec}: {moves}");
        assert!(
            relays > moves / 10,
            "{spec}: {relays} relays in {moves} moves"
        );
    }
}
