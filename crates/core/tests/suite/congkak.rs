//! Congkak: one test per rule of the Congkak part of `docs/RULES.md`, each
//! on a hand-built board whose result was worked out by hand, seed by seed;
//! a second, naive implementation written from the rules text alone, which
//! must agree with the engine on perft and on 10^4 random games; and
//! property tests over random boards.
//!
//! Positions are written in the notation of `docs/RULES.md`; on a board of
//! 3 holes the ring is `P0 holes 1-3, store 0, P1 holes 1-3, store 1`, and
//! hole `i` faces the opponent's hole `4 - i` (counting from 1).

use std::collections::BTreeMap;
use std::path::PathBuf;

use mancala_core::Move::{Pit, Swap};
use mancala_core::{
    perft, CongkakRules, EndReason, Game, GameEnd, GameSpec, Move, Player, PositionError, Rounds,
    Setup,
};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// ---------------------------------------------------------------------------
// Helpers

fn congkak(spec: &str) -> CongkakRules {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Congkak(rules)) => rules,
        other => panic!("{spec} is not a Congkak spec: {other:?}"),
    }
}

/// The position written `text`, checked against `game`.
fn at(game: &CongkakRules, text: &str) -> <CongkakRules as Game>::State {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text} is not a position of {game}: {e}"))
}

fn show(game: &CongkakRules, state: &<CongkakRules as Game>::State) -> String {
    game.setup(state).to_string()
}

/// Plays `moves` from `from` (each must be legal) and checks the whole position.
fn check(
    game: &CongkakRules,
    from: &str,
    moves: &[Move],
    expected: &str,
) -> <CongkakRules as Game>::State {
    let mut state = at(game, from);
    for (k, &mv) in moves.iter().enumerate() {
        game.try_play(&mut state, mv).unwrap_or_else(|e| {
            panic!("{from}, move {k} ({mv}) after {}: {e}", show(game, &state))
        });
    }
    assert_eq!(
        show(game, &state),
        expected,
        "{game}: {from} then {moves:?}"
    );
    // The naive rules agree, position by position.
    let naive = Naive::of(game);
    let mut n = naive.parse(from);
    for &mv in moves {
        naive.play(&mut n, mv);
    }
    assert_eq!(
        naive.show(&n),
        expected,
        "naive {game}: {from} then {moves:?}"
    );
    state
}

fn position_error(game: &CongkakRules, text: &str) -> PositionError {
    let setup: Setup = text.parse().expect("the notation itself is readable");
    match game.from_setup(&setup) {
        Ok(state) => panic!("{text} should be rejected, got {state:?}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------
// Sowing and relays

#[test]
fn congkak_sowing_passes_own_store_into_opponent_row() {
    let g = congkak("congkak:pits=3,seeds=4");
    // Hole 3's two seeds: the own store, then the opponent's empty hole 1,
    // where the turn ends.
    check(&g, "1,1,2/0,1,1/10,8/0", &[Pit(2)], "1,1,0/1,1,1/11,8/1");
}

#[test]
fn congkak_sowing_skips_opponent_store() {
    let g = congkak("congkak:pits=3,seeds=4");
    // Six seeds from hole 3: store 0, P1's three holes, (store 1 passed
    // over), P0's holes 1 and 2. Hole 2 was empty: it captures P1's hole 2.
    check(&g, "0,0,6/1,1,1/8,7/0", &[Pit(2)], "1,0,0/2,0,2/12,7/1");
    // The same from player 1's side: store 0 is passed over.
    check(&g, "1,1,1/0,0,6/7,8/1", &[Pit(2)], "2,0,2/1,0,0/7,12/0");
}

#[test]
fn congkak_lap_drops_seed_in_origin_hole() {
    let g = congkak("congkak:pits=2,seeds=4");
    // Six seeds round a circuit of five places: the origin (hole 1) gets
    // the fifth, hole 2 the sixth; hole 2 held a seed, so the relay lifts
    // its two: store, P1's hole 1, which held two: three more, P1's hole 2,
    // (store 1 passed over), hole 1, hole 2, empty again: the last seed
    // stays there, facing P1's emptied hole 1: no capture.
    check(&g, "6,0/1,1/4,4/0", &[Pit(0)], "2,1/0,3/6,4/1");
}

#[test]
fn congkak_relay_lifts_a_hole_that_held_seeds() {
    let g = congkak("congkak:pits=3,seeds=4");
    // Hole 1 (2 seeds) ends on hole 3, which held one: the relay lifts two,
    // sows the store and P1's hole 1, lifts its two, sows P1's holes 2 and
    // 3, lifts two from hole 3, passes store 1, sows P0's holes 1 and 2;
    // hole 2 held four: five seeds on to hole 3, the store, P1's holes 1, 2
    // and 3, empty: the turn ends there.
    let mut s = at(&g, "2,3,1/1,1,1/8,7/0");
    let sowing = g.play_measured(&mut s, Pit(0));
    assert_eq!(show(&g, &s), "1,0,1/1,3,1/10,7/1");
    assert_eq!((sowing.sown, sowing.relays), (2 + 2 + 2 + 2 + 5, 4));
    check(&g, "2,3,1/1,1,1/8,7/0", &[Pit(0)], "1,0,1/1,3,1/10,7/1");
}

#[test]
fn congkak_relay_crosses_both_rows_several_times() {
    let g = congkak("congkak:pits=3,seeds=3");
    // Player 0's hole 2: hole 3, the store, P1's hole 1 (now 4): relay of
    // four over P1's holes 2 and 3 and P0's hole 1 to P0's emptied hole 2,
    // which captures P1's hole 2 (4) with the last seed.
    let after = "4,0,4/0,0,4/6,0/1";
    check(&g, "3,3,3/3,3,3/0,0/0", &[Pit(1)], after);
    // Player 1's hole 3 (4): store 1, P0's holes 1, 2, 3 (held 4): relay
    // of five over P1's holes 1, 2, 3, store 1 and P0's hole 1 (held 5):
    // relay of six over P0's holes 2 and 3, (store 0 passed over), P1's
    // three holes and store 1: an extra turn after crossing into the other
    // row three times.
    let mut s = at(&g, after);
    let sowing = g.play_measured(&mut s, Pit(2));
    assert_eq!(show(&g, &s), "0,2,1/2,2,2/6,3/1");
    assert_eq!((sowing.sown, sowing.relays), (4 + 5 + 6, 2));
    check(&g, after, &[Pit(2)], "0,2,1/2,2,2/6,3/1");
}

#[test]
fn congkak_relay_ending_in_own_store_gives_extra_turn() {
    let g = congkak("congkak:pits=3,seeds=4");
    // A plain sowing into the store.
    check(&g, "3,3,3/3,3,3/3,3/0", &[Pit(0)], "0,4,4/3,3,3/4,3/0");
    // Hole 1's seed makes hole 2 three: relay to hole 3, the store and
    // P1's hole 1 (held 1): relay to P1's holes 2 and 3 (held 3): relay of
    // four past store 1 to P0's holes 1, 2 and 3 and the store.
    check(&g, "1,2,0/1,0,3/8,9/0", &[Pit(0)], "1,1,2/0,1,0/10,9/0");
    // The extra turn can be taken at once.
    check(
        &g,
        "1,2,0/1,0,3/8,9/0",
        &[Pit(0), Pit(2)],
        "1,1,0/1,1,0/11,9/1",
    );
}

#[test]
fn congkak_last_seed_in_empty_opponent_hole_ends_turn() {
    let g = congkak("congkak:pits=3,seeds=4");
    // Hole 3's seeds: the store, P1's hole 1, P1's empty hole 2.
    check(&g, "0,0,3/2,0,1/9,9/0", &[Pit(2)], "0,0,0/3,1,1/10,9/1");
}

#[test]
fn congkak_last_seed_in_empty_own_hole_captures_opposite() {
    let g = congkak("congkak:pits=3,seeds=4");
    // After relays through both rows, the last seed falls in P0's emptied
    // hole 2, facing P1's hole 2 (2 seeds): 3 to the store. Player 1 is
    // then to move with no seeds: the game ends, P0's hole 1 going to P0.
    check(&g, "1,1,1/1,1,1/9,9/0", &[Pit(1)], "0,0,0/0,0,0/15,9/-");
}

#[test]
fn congkak_no_capture_when_opposite_empty() {
    let g = congkak("congkak:pits=3,seeds=4");
    // Hole 1's seed lands in empty hole 2, facing P1's empty hole 2.
    check(&g, "1,0,2/3,0,1/9,8/0", &[Pit(0)], "0,1,2/3,0,1/9,8/1");
}

#[test]
fn congkak_empty_capture_option_captures_lone_seed() {
    let g = congkak("congkak:pits=3,seeds=4,empty_capture=true");
    check(&g, "1,0,2/3,0,1/9,8/0", &[Pit(0)], "0,0,2/3,0,1/10,8/1");
    // With seeds opposite it captures as usual.
    check(&g, "1,0,2/3,2,0/9,7/0", &[Pit(0)], "0,0,2/3,0,0/12,7/1");
}

// ---------------------------------------------------------------------------
// End of a (single-round) game

#[test]
fn congkak_game_ends_when_mover_has_no_seeds() {
    let g = congkak("congkak:pits=3,seeds=4");
    // P0 captures P1's hole 1 and empties their own row; P1 still has
    // seeds and moves on (game_end=delayed, the standard).
    let s = check(&g, "0,1,0/2,1,1/9,10/0", &[Pit(1)], "0,0,0/0,1,1/12,10/1");
    assert_eq!(g.legal_moves(&s).len(), 2);
    // Into the store with the last seeds of the row: the mover is to move
    // again with nothing to sow, so the game ends; P1's seeds go to P1.
    let s = check(&g, "0,0,1/2,0,0/10,11/0", &[Pit(2)], "0,0,0/0,0,0/11,13/-");
    let out = g.outcome(&s).unwrap();
    assert_eq!(
        (out.reason, out.winner()),
        (EndReason::EmptyRow, Some(Player::ONE))
    );
    assert!(g.legal_moves(&s).is_empty());
}

#[test]
fn congkak_game_end_immediate_option() {
    let g = congkak("congkak:pits=3,seeds=4,game_end=immediate");
    // The same capture ends the game at once: P0's row is empty.
    let s = check(&g, "0,1,0/2,1,1/9,10/0", &[Pit(1)], "0,0,0/0,0,0/12,12/-");
    assert_eq!(g.outcome(&s).unwrap().winner(), None);
}

#[test]
fn congkak_every_move_ends_within_lap_bound() {
    // The lap bound: a move sows fewer than L * (U + 1) seeds, L the places
    // of the mover's circuit, U the seeds outside the mover's store.
    let g = CongkakRules::default();
    let s = g.start();
    assert_eq!(g.sowing_bound(&s), 15 * 99 - 1);
    // A long relay on a full board stays well inside it.
    let g = congkak("congkak:pits=2,seeds=1");
    let s = at(&g, "1,1/1,1/0,0/0");
    assert_eq!(g.sowing_bound(&s), 5 * 5 - 1);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut longest = 0;
    for text in [
        "congkak",
        "congkak:pits=15,seeds=8",
        "congkak:pits=2,seeds=30,rounds=many",
    ] {
        let g = congkak(text);
        for _ in 0..300 {
            let mut s = g.start();
            while !g.is_over(&s) {
                let legal = g.legal_moves(&s);
                let bound = g.sowing_bound(&s);
                let sowing = g.play_measured(&mut s, legal.nth(rng.random_range(0..legal.len())));
                assert!(sowing.sown <= bound, "{text}: {} > {bound}", sowing.sown);
                longest = longest.max(sowing.sown);
            }
        }
    }
    assert!(longest > 100, "relays do run long: {longest}");
}

// ---------------------------------------------------------------------------
// Multi-round play

#[test]
fn congkak_rounds_refill_nearest_store_first_and_burn_the_rest() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P0's last seed goes to the store: 5 against 7, and P0 has nothing
    // left to sow: the round ends. P0 fills holes 3 and 2 (4 seeds) and
    // keeps 1; hole 1 is burnt. P1 fills all three and keeps 1. P0 lost
    // the round and begins the next.
    let s = check(&g, "0,0,1/0,0,0/4,7/0", &[Pit(2)], "x,2,2/2,2,2/1,1/0/r2,0");
    assert_eq!(g.round(&s), 2);
    assert_eq!(
        g.legal_moves(&s).into_iter().collect::<Vec<_>>(),
        [Pit(1), Pit(2)]
    );
}

#[test]
fn congkak_burnt_holes_skipped_by_both_players() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P0: hole 3 (3) to the store, (P1's burnt hole 1 passed over), P1's
    // holes 2 and 3 (held 3): relay of four past store 1 and P0's burnt
    // hole 1 to holes 2, 3, the store and P1's hole 2 (held 3): relay of
    // four to P1's hole 3, P0's holes 2 and 3, and the store.
    check(
        &g,
        "x,2,3/x,2,3/1,1/0/r2,0",
        &[Pit(2)],
        "x,4,2/x,0,1/4,1/0/r2,0",
    );
    // P1 skips both burnt holes as well.
    check(
        &g,
        "x,2,3/x,2,3/1,1/1/r2,1",
        &[Pit(2)],
        "x,0,1/x,4,2/1,4/1/r2,1",
    );
}

#[test]
fn congkak_burnt_hole_never_captured_from() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P0's last seed lands in empty hole 3, facing P1's burnt hole 1.
    check(
        &g,
        "x,1,0/x,3,3/2,3/0/r2,0",
        &[Pit(1)],
        "x,0,1/x,3,3/2,3/1/r2,0",
    );
    let g = congkak("congkak:pits=3,seeds=2,rounds=many,empty_capture=true");
    check(
        &g,
        "x,1,0/x,3,3/2,3/0/r2,0",
        &[Pit(1)],
        "x,0,0/x,3,3/3,3/1/r2,0",
    );
}

#[test]
fn congkak_round_loser_begins_next_round() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P1 wins the round 7 to 5 though P0 ends it: P0 begins round 2.
    check(&g, "0,0,1/0,0,0/4,7/0", &[Pit(2)], "x,2,2/2,2,2/1,1/0/r2,0");
    // P0 wins it 7 to 5: P1 begins.
    check(&g, "0,0,1/0,0,0/6,5/0", &[Pit(2)], "2,2,2/x,2,2/1,1/1/r2,1");
}

#[test]
fn congkak_drawn_round_other_player_begins() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // Round 1, begun by P0, drawn 6 to 6: P1 begins round 2 ...
    check(&g, "0,0,1/0,0,0/5,6/0", &[Pit(2)], "2,2,2/2,2,2/0,0/1/r2,1");
    // ... and a drawn round 2 begun by P1 is followed by P0's round 3.
    check(
        &g,
        "0,0,0/1,0,0/6,5/1/r2,1",
        &[Pit(0)],
        "2,2,2/2,2,2/0,0/0/r3,0",
    );
}

#[test]
fn congkak_ruin_ends_game() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P0 ends the round with 1 seed: not enough for a single hole.
    let s = check(
        &g,
        "0,0,1/0,0,0/0,11/0",
        &[Pit(2)],
        "0,0,0/0,0,0/1,11/-/r1,0",
    );
    let out = g.outcome(&s).unwrap();
    assert_eq!((out.reason, out.scores.0), (EndReason::Ruin, [1, 11]));
}

#[test]
fn congkak_max_rounds_ends_game() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many,max_rounds=1");
    let s = check(&g, "0,0,1/0,0,0/5,6/0", &[Pit(2)], "0,0,0/0,0,0/6,6/-/r1,0");
    let out = g.outcome(&s).unwrap();
    assert_eq!((out.reason, out.winner()), (EndReason::MaxRounds, None));
    // Round 2 of at most 2 ends the game too, however the seeds stand.
    let g = congkak("congkak:pits=3,seeds=2,rounds=many,max_rounds=2");
    check(
        &g,
        "0,0,1/0,0,0/4,7/0/r2,1",
        &[Pit(2)],
        "0,0,0/0,0,0/5,7/-/r2,1",
    );
}

#[test]
fn congkak_seeds_left_in_rows_go_to_owner_between_rounds() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many");
    // P0's capture empties P1's row: P1, to move, has nothing to sow and
    // the round ends. P0's hole 1 goes to P0: 7 against 5 (without it, P0
    // would have refilled every hole with nothing left over).
    check(&g, "1,1,0/1,0,0/4,5/0", &[Pit(1)], "2,2,2/x,2,2/1,1/1/r2,1");
}

// ---------------------------------------------------------------------------
// Specs, notation, positions, observations

#[test]
fn congkak_spec_options_and_canonical_form() {
    let g = CongkakRules::default();
    assert_eq!(g.to_string(), "congkak");
    assert_eq!((g.pits(), g.seeds(), g.total_seeds()), (7, 7, 98));
    assert_eq!(
        (g.game_end, g.rounds, g.empty_capture),
        (GameEnd::Delayed, Rounds::One, false)
    );
    for alias in ["Congklak", "kongkak", " CONGKAK "] {
        assert_eq!(congkak(alias), g);
    }
    let g = congkak("congkak:pits=5,seeds=5");
    assert_eq!(
        (g.pits(), g.total_seeds(), g.to_string().as_str()),
        (5, 50, "congkak:pits=5,seeds=5")
    );
    let g = congkak("congkak:rounds=many");
    assert_eq!(
        (g.rounds, g.max_rounds(), g.to_string().as_str()),
        (Rounds::Many, 20, "congkak:rounds=many")
    );
    assert_eq!(congkak("congkak:rounds=many,max_rounds=20"), g);
    assert_eq!(congkak("congkak:rounds=one"), CongkakRules::default());
    let e = "congkak:max_rounds=5"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'max_rounds'") && e.contains("rounds=many"),
        "{e}"
    );
    let e = "congkak:rounds=some"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("one of one, many"), "{e}");
    let e = "congkak:pie=true"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'pie'") && e.contains("rounds, max_rounds"),
        "{e}"
    );
    let e = "congkak:pits=15,seeds=9"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("impossible congkak board") && e.contains("270 seeds"),
        "{e}"
    );
    let e = "congkak:rounds=many,max_rounds=0"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("from 1 to 10000"), "{e}");
    assert_eq!(
        CongkakRules::new(5, 5)
            .unwrap()
            .multi_round(3)
            .unwrap()
            .to_string(),
        "congkak:pits=5,seeds=5,rounds=many,max_rounds=3"
    );
}

#[test]
fn congkak_notation_burnt_holes_and_round() {
    let g = congkak("congkak:rounds=many");
    let start = g.start();
    assert_eq!(show(&g, &start), "7,7,7,7,7,7,7/7,7,7,7,7,7,7/0,0/0/r1,0");
    // Without the round field a multi-round position is in round 1, begun by P0.
    assert_eq!(at(&g, "7,7,7,7,7,7,7/7,7,7,7,7,7,7/0,0/0"), start);
    let text = "x,x,7,7,7,7,7/7,7,7,7,7,7,7/3,11/1/r2,0";
    let s = at(&g, text);
    assert_eq!(show(&g, &s), text);
    let setup = g.setup(&s);
    assert_eq!(setup.burnt.0, [0b11, 0]);
    assert_eq!(setup.board()[..3], [0, 0, 7]);
    // A single round is written as Kalah is.
    let single = CongkakRules::default();
    assert_eq!(
        show(&single, &single.start()),
        "7,7,7,7,7,7,7/7,7,7,7,7,7,7/0,0/0"
    );
}

#[test]
fn congkak_position_errors() {
    let single = CongkakRules::default();
    let e = position_error(&single, "x,7,7,7,7,7,14/7,7,7,7,7,7,7/0,0/0");
    assert!(
        matches!(e, PositionError::Rounds { .. }) && e.to_string().contains("rounds=many"),
        "{e}"
    );
    let e = position_error(&single, "7,7,7,7,7,7,7/7,7,7,7,7,7,7/0,0/0/r1,0");
    assert!(matches!(e, PositionError::Rounds { .. }), "{e}");
    let e = position_error(&single, "7,7,7,7,7,7,7/7,7,7,7,7,7,7/0,0/1s");
    assert!(matches!(e, PositionError::Swap { .. }), "{e}");
    let e = position_error(&single, "0,0,0,0,0,0,0/7,7,7,7,7,7,7/49,0/0");
    assert!(e.to_string().contains("the mover has no seeds"), "{e}");
    let e = position_error(&single, "0,0,0,0,0,0,0/7,7,7,7,7,7,7/49,0/-");
    assert!(e.to_string().contains("marked over"), "{e}");
    let immediate = congkak("congkak:game_end=immediate");
    let e = position_error(&immediate, "0,0,0,0,0,0,0/7,7,7,7,7,7,7/49,0/1");
    assert!(e.to_string().contains("a row is empty"), "{e}");

    let many = congkak("congkak:pits=3,seeds=2,rounds=many,max_rounds=5");
    for (text, part) in [
        ("x,2,2/2,2,2/1,1/0", "no hole is burnt in round 1"),
        ("x,2,2/2,2,2/1,1/0/r6,0", "past max_rounds=5"),
        ("2,x,2/2,2,2/1,1/0/r2,0", "their first ones"),
        ("x,x,x/2,2,2/4,2/1/r2,0", "every hole burnt"),
        ("0,0,0/0,0,0/6,6/-/r2,0", "another round follows"),
    ] {
        let e = position_error(&many, text);
        assert!(e.to_string().contains(part), "{text}: {e}");
    }
    // A burnt hole holding seeds cannot be written, but can be set up.
    let mut setup: Setup = "x,2,2/2,2,2/1,1/0/r2,0".parse().unwrap();
    setup.rows.0[0][0] = 1;
    setup.stores.0[0] = 0;
    let e = many.from_setup(&setup).unwrap_err();
    assert!(e.to_string().contains("holds seeds"), "{e}");
    // Finished games: ruined, or at max_rounds.
    at(&many, "0,0,0/0,0,0/1,11/-/r2,0");
    at(&many, "0,0,0/0,0,0/6,6/-/r5,1");
}

#[test]
fn congkak_observe_burnt_holes_and_round() {
    let g = congkak("congkak:pits=3,seeds=2,rounds=many,max_rounds=4");
    let s = at(&g, "x,2,2/2,2,2/1,1/1/r2,0");
    let mut out = vec![0.0; g.observation_len()];
    g.observe(&s, &mut out);
    let t = 1.0 / 12.0;
    // P1 to move: own holes first, then P0's, whose hole 1 is burnt (and
    // empty); then the stores, the round, and the burnt plane.
    let expected = [
        2.0 * t,
        2.0 * t,
        2.0 * t,
        0.0,
        2.0 * t,
        2.0 * t,
        t,
        t,
        0.25,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
    ];
    assert_eq!(out.len(), expected.len());
    for (k, (a, b)) in out.iter().zip(expected).enumerate() {
        assert!((a - b).abs() < 1e-6, "entry {k}: {out:?}");
    }
    // A single round has no burnt holes and no plane for them.
    assert_eq!(congkak("congkak:pits=3,seeds=2").observation_len(), 9);
}

#[test]
fn congkak_has_no_swap_and_refuses_empty_holes() {
    let g = CongkakRules::default();
    let mut s = g.start();
    assert!(g.try_play(&mut s, Swap).is_err());
    g.try_play(&mut s, Pit(0)).unwrap();
    let e = g.try_play(&mut s.clone(), Pit(7)).unwrap_err();
    assert!(e.to_string().contains("illegal move 8"), "{e}");
}

// ---------------------------------------------------------------------------
// The naive rules: written from the rules text alone, one seed at a time.

#[derive(Clone, Debug)]
struct Naive {
    pits: usize,
    seeds: u8,
    empty_capture: bool,
    immediate: bool,
    many: bool,
    max_rounds: u16,
}

#[derive(Clone, Debug, PartialEq)]
struct Pos {
    rows: [Vec<u8>; 2],
    stores: [u8; 2],
    burnt: [Vec<bool>; 2],
    to_move: Option<usize>,
    round: u16,
    first: usize,
}

/// A place a seed can be dropped in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    Hole(usize, usize),
    Store(usize),
}

impl Naive {
    fn of(game: &CongkakRules) -> Naive {
        Naive {
            pits: game.pits(),
            seeds: game.seeds() as u8,
            empty_capture: game.empty_capture,
            immediate: game.game_end == GameEnd::Immediate,
            many: game.rounds == Rounds::Many,
            max_rounds: game.max_rounds() as u16,
        }
    }

    fn start(&self) -> Pos {
        Pos {
            rows: [vec![self.seeds; self.pits], vec![self.seeds; self.pits]],
            stores: [0, 0],
            burnt: [vec![false; self.pits], vec![false; self.pits]],
            to_move: Some(0),
            round: 1,
            first: 0,
        }
    }

    /// The next place after `place` for the mover `p`: the rest of the row,
    /// the row owner's store, the other row; the opponent's store and
    /// burnt holes are passed over.
    fn next(&self, s: &Pos, place: Place, p: usize) -> Place {
        let mut place = place;
        loop {
            place = match place {
                Place::Hole(q, i) if i + 1 < self.pits => Place::Hole(q, i + 1),
                Place::Hole(q, _) => Place::Store(q),
                Place::Store(q) => Place::Hole(1 - q, 0),
            };
            match place {
                Place::Store(q) if q != p => continue,
                Place::Hole(q, i) if s.burnt[q][i] => continue,
                _ => return place,
            }
        }
    }

    fn legal(&self, s: &Pos) -> Vec<Move> {
        match s.to_move {
            None => vec![],
            Some(p) => (0..self.pits)
                .filter(|&i| s.rows[p][i] > 0)
                .map(|i| Pit(i as u8))
                .collect(),
        }
    }

    fn play(&self, s: &mut Pos, mv: Move) {
        let p = s.to_move.expect("a game in progress");
        let Pit(i) = mv else {
            panic!("no swap in Congkak")
        };
        let i = usize::from(i);
        assert!(s.rows[p][i] > 0, "an empty hole");
        let mut place = Place::Hole(p, i);
        let mut hand = std::mem::take(&mut s.rows[p][i]);
        loop {
            while hand > 0 {
                place = self.next(s, place, p);
                match place {
                    Place::Hole(q, j) => s.rows[q][j] += 1,
                    Place::Store(q) => s.stores[q] += 1,
                }
                hand -= 1;
            }
            match place {
                Place::Store(_) => return self.after(s, p),
                Place::Hole(q, j) if s.rows[q][j] > 1 => {
                    hand = std::mem::take(&mut s.rows[q][j]);
                }
                Place::Hole(q, j) => {
                    if q == p {
                        let opposite = self.pits - 1 - j;
                        let taken = s.rows[1 - p][opposite];
                        if taken > 0 || self.empty_capture {
                            s.stores[p] += taken + 1;
                            s.rows[1 - p][opposite] = 0;
                            s.rows[p][j] = 0;
                        }
                    }
                    return self.after(s, 1 - p);
                }
            }
        }
    }

    fn empty(s: &Pos, p: usize) -> bool {
        s.rows[p].iter().all(|&x| x == 0)
    }

    fn after(&self, s: &mut Pos, next: usize) {
        let over = if self.immediate {
            Self::empty(s, 0) || Self::empty(s, 1)
        } else {
            Self::empty(s, next)
        };
        if !over {
            s.to_move = Some(next);
            return;
        }
        for p in 0..2 {
            let left: u8 = s.rows[p].iter().sum();
            s.stores[p] += left;
            s.rows[p] = vec![0; self.pits];
            s.burnt[p] = vec![false; self.pits];
        }
        s.to_move = None;
        if !self.many || s.stores.iter().any(|&x| x < self.seeds) || s.round >= self.max_rounds {
            return;
        }
        let owned = s.stores;
        for p in 0..2 {
            for j in (0..self.pits).rev() {
                if s.stores[p] >= self.seeds {
                    s.stores[p] -= self.seeds;
                    s.rows[p][j] = self.seeds;
                } else {
                    s.burnt[p][j] = true;
                }
            }
        }
        let starter = if owned[0] < owned[1] {
            0
        } else if owned[1] < owned[0] {
            1
        } else {
            1 - s.first
        };
        s.round += 1;
        s.first = starter;
        s.to_move = Some(starter);
    }

    fn show(&self, s: &Pos) -> String {
        let row = |p: usize| {
            (0..self.pits)
                .map(|i| {
                    if s.burnt[p][i] {
                        "x".to_string()
                    } else {
                        s.rows[p][i].to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let to_move = s.to_move.map_or("-".to_string(), |p| p.to_string());
        let mut text = format!(
            "{}/{}/{},{}/{}",
            row(0),
            row(1),
            s.stores[0],
            s.stores[1],
            to_move
        );
        if self.many {
            text += &format!("/r{},{}", s.round, s.first);
        }
        text
    }

    fn parse(&self, text: &str) -> Pos {
        let f: Vec<&str> = text.split('/').collect();
        let row = |field: &str| -> (Vec<u8>, Vec<bool>) {
            field
                .split(',')
                .map(|x| {
                    if x == "x" {
                        (0, true)
                    } else {
                        (x.parse().unwrap(), false)
                    }
                })
                .unzip()
        };
        let (r0, b0) = row(f[0]);
        let (r1, b1) = row(f[1]);
        let st: Vec<u8> = f[2].split(',').map(|x| x.parse().unwrap()).collect();
        let (round, first) = match f.get(4) {
            Some(r) => {
                let (a, b) = r[1..].split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            }
            None => (1, 0),
        };
        Pos {
            rows: [r0, r1],
            stores: [st[0], st[1]],
            burnt: [b0, b1],
            to_move: match f[3] {
                "-" => None,
                p => Some(p.parse().unwrap()),
            },
            round,
            first,
        }
    }
}

fn naive_perft(naive: &Naive, s: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    naive
        .legal(s)
        .into_iter()
        .map(|mv| {
            let mut next = s.clone();
            naive.play(&mut next, mv);
            naive_perft(naive, &next, depth - 1)
        })
        .sum()
}

// ---------------------------------------------------------------------------
// The engine against the naive rules

/// Perft depths from the start of the standard game that the naive rules
/// check (a second in the test profile) ...
const NAIVE_PERFT_DEPTH: u32 = 6;
/// ... and that the engine checks against `tests/data/perft.txt`.
const PERFT_DEPTH: u32 = 8;

fn committed_counts(game: &str) -> BTreeMap<u32, u64> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0] == game).then(|| (f[1].parse().unwrap(), f[2].parse().unwrap()))
        })
        .collect()
}

#[test]
fn congkak_perft_matches_naive_and_committed_counts() {
    let g = CongkakRules::default();
    let naive = Naive::of(&g);
    let committed = committed_counts("congkak");
    let mut lines = Vec::new();
    for depth in 1..=PERFT_DEPTH {
        let engine = perft(&g, &g.start(), depth);
        if depth <= NAIVE_PERFT_DEPTH {
            assert_eq!(
                engine,
                naive_perft(&naive, &naive.start(), depth),
                "depth {depth}"
            );
        }
        lines.push(format!("congkak {depth} {engine}"));
        assert_eq!(
            committed.get(&depth),
            Some(&engine),
            "perft({depth}) against tests/data/perft.txt; engine and naive give:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn congkak_variants_perft_match_naive() {
    for (spec, position, depth) in [
        ("congkak:pits=5,seeds=5", None, 5),
        (
            "congkak:pits=3,seeds=3,empty_capture=true,game_end=immediate",
            None,
            8,
        ),
        ("congkak:pits=3,seeds=2,rounds=many,max_rounds=3", None, 14),
        (
            "congkak:pits=4,seeds=3,rounds=many",
            Some("x,3,3,3/x,x,3,3/6,3/1/r2,1"),
            6,
        ),
    ] {
        let g = congkak(spec);
        let naive = Naive::of(&g);
        let (s, n) = match position {
            None => (g.start(), naive.start()),
            Some(text) => (at(&g, text), naive.parse(text)),
        };
        for depth in 1..=depth {
            assert_eq!(
                perft(&g, &s, depth),
                naive_perft(&naive, &n, depth),
                "{spec} depth {depth}"
            );
        }
    }
}

/// 10^4 random games over many variants, engine and naive side by side:
/// the same legal moves and the same position after every move.
#[test]
fn congkak_engine_and_naive_agree_on_random_games() {
    let mut rng = SmallRng::seed_from_u64(20_250_909);
    let mut ends = BTreeMap::<String, u32>::new();
    let mut burnt_plies = 0;
    for game in 0..10_000 {
        let spec = if game % 4 == 0 {
            "congkak".to_string()
        } else {
            let pits = rng.random_range(1..=8);
            let seeds = rng.random_range(1..=10);
            let rounds = if rng.random_bool(0.5) {
                format!(",rounds=many,max_rounds={}", rng.random_range(1..=6))
            } else {
                String::new()
            };
            format!(
                "congkak:pits={pits},seeds={seeds},empty_capture={},game_end={}{rounds}",
                rng.random_bool(0.5),
                ["immediate", "delayed"][rng.random_range(0..2)],
            )
        };
        let g = congkak(&spec);
        let naive = Naive::of(&g);
        let mut s = g.start();
        let mut n = naive.start();
        loop {
            let shown = show(&g, &s);
            assert_eq!(shown, naive.show(&n), "{spec}, game {game}");
            let legal: Vec<Move> = g.legal_moves(&s).into_iter().collect();
            assert_eq!(legal, naive.legal(&n), "{spec}: legal moves at {shown}");
            if legal.is_empty() {
                let out = g.outcome(&s).expect("over");
                *ends.entry(out.reason.to_string()).or_default() += 1;
                break;
            }
            burnt_plies += usize::from(shown.contains('x'));
            let mv = legal[rng.random_range(0..legal.len())];
            g.play_unchecked(&mut s, mv);
            naive.play(&mut n, mv);
        }
    }
    // Every kind of end, and plenty of play on boards with burnt holes.
    assert!(
        ends.len() == 3 && ends.values().all(|&n| n > 100),
        "{ends:?}"
    );
    assert!(burnt_plies > 10_000, "{burnt_plies}");
}

// ---------------------------------------------------------------------------
// Properties over random boards

/// A board of `pits` holes with any seeds (total fixed by the rules), any
/// burnt prefix in multi-round play, and a player to move who has seeds.
fn random_position() -> impl Strategy<Value = (String, String)> {
    (
        1usize..=7,
        1usize..=8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(pits, seeds, many, immediate, empty_capture, seed)| {
            let spec = format!(
                "congkak:pits={pits},seeds={seeds},empty_capture={empty_capture},game_end={}{}",
                if immediate { "immediate" } else { "delayed" },
                if many { ",rounds=many" } else { "" }
            );
            let mut rng = SmallRng::seed_from_u64(seed);
            let total = 2 * pits * seeds;
            // Burnt holes: a prefix of each row, never the whole row.
            let burnt: [usize; 2] = if many {
                [rng.random_range(0..pits), rng.random_range(0..pits)]
            } else {
                [0, 0]
            };
            let mut cells = vec![0u8; 2 * pits + 2];
            let live: Vec<usize> = (0..2 * pits + 2)
                .filter(|&k| {
                    let (p, i) = (k / (pits + 1), k % (pits + 1));
                    i == pits || i >= burnt[p]
                })
                .collect();
            for _ in 0..total {
                cells[live[rng.random_range(0..live.len())]] += 1;
            }
            // The mover needs a seed (and with game_end=immediate, so does
            // the opponent): move one into the row's last hole (never
            // burnt) from a store if one has seeds, else from the fullest
            // hole of the other row, which holds all the seeds then (at
            // least two: the board has 2 x pits x seeds).
            let mover = rng.random_range(0..2usize);
            let row = |p: usize| p * (pits + 1);
            let stores = [pits, 2 * pits + 1];
            let feed = |cells: &mut Vec<u8>, p: usize| {
                if cells[row(p)..row(p) + pits].iter().any(|&c| c > 0) {
                    return;
                }
                let other = row(1 - p);
                let from = stores
                    .into_iter()
                    .find(|&k| cells[k] > 0)
                    .unwrap_or_else(|| (other..other + pits).max_by_key(|&k| cells[k]).unwrap());
                cells[from] -= 1;
                cells[row(p) + pits - 1] += 1;
            };
            feed(&mut cells, mover);
            if immediate {
                feed(&mut cells, 1 - mover);
            }
            let show_row = |p: usize| {
                (0..pits)
                    .map(|i| {
                        if i < burnt[p] {
                            "x".to_string()
                        } else {
                            cells[row(p) + i].to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let round = if many {
                if burnt == [0, 0] {
                    "/r1,0".to_string()
                } else {
                    format!("/r2,{}", 1 - mover)
                }
            } else {
                String::new()
            };
            let text = format!(
                "{}/{}/{},{}/{mover}{round}",
                show_row(0),
                show_row(1),
                cells[pits],
                cells[2 * pits + 1]
            );
            (spec, text)
        })
}

proptest! {
    #![proptest_config(crate::cases::config())]

    /// From any board: every legal move ends within the lap bound, keeps
    /// every seed, agrees with the naive rules, and leaves a position where
    /// the game is over exactly when there is no legal move.
    #[test]
    fn congkak_moves_from_random_boards((spec, text) in random_position()) {
        let g = congkak(&spec);
        let s = g.parse_position(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let naive = Naive::of(&g);
        for mv in g.legal_moves(&s) {
            let mut a = s;
            let bound = g.sowing_bound(&a);
            let sowing = g.play_measured(&mut a, mv);
            prop_assert!(sowing.sown <= bound, "{} > {}", sowing.sown, bound);
            prop_assert!(sowing.sown >= 1);
            let setup = g.setup(&a);
            prop_assert_eq!(setup.total_seeds(), g.total_seeds());
            prop_assert_eq!(g.legal_moves(&a).is_empty(), g.is_over(&a));
            prop_assert_eq!(g.outcome(&a).is_some(), g.is_over(&a));
            let mut n = naive.parse(&text);
            naive.play(&mut n, mv);
            prop_assert_eq!(setup.to_string(), naive.show(&n), "{} {}", text, mv);
        }
    }

    /// Whole random games: seeds conserved at every step, every move within
    /// the lap bound, and the game over exactly when no move is legal.
    #[test]
    fn congkak_random_games_keep_every_seed(
        pits in 1usize..=8,
        seeds in 1usize..=10,
        many in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let spec = format!("congkak:pits={pits},seeds={seeds}{}", if many { ",rounds=many,max_rounds=8" } else { "" });
        let g = congkak(&spec);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut s = g.start();
        loop {
            let legal = g.legal_moves(&s);
            prop_assert_eq!(legal.is_empty(), g.is_over(&s));
            prop_assert_eq!(g.setup(&s).total_seeds(), g.total_seeds());
            if legal.is_empty() {
                let out = g.outcome(&s).unwrap();
                prop_assert_eq!(usize::from(out.scores.0[0]) + usize::from(out.scores.0[1]), g.total_seeds());
                break;
            }
            let bound = g.sowing_bound(&s);
            let sowing = g.play_measured(&mut s, legal.nth(rng.random_range(0..legal.len())));
            prop_assert!(sowing.sown <= bound);
        }
    }
}
