//! One test per rule of `docs/RULES.md` (Kalah and Oware) and per variant
//! option, each on a hand-built board. Every expected position was worked out
//! by hand from the rules, seed by seed, and is compared whole (both rows,
//! both stores, the player to move) in the notation
//! `P0 pits/P1 pits/store0,store1/to_move`.

use mancala_core::Move::{Pit, Swap};
use mancala_core::{
    EndReason, Game, GameEnd, GameSpec, GrandSlam, KalahRules, Leftover, Move, OwareRules, Player,
    PositionError, Setup,
};

// ---------------------------------------------------------------------------
// Helpers

fn kalah(spec: &str) -> KalahRules {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Kalah(rules)) => rules,
        other => panic!("{spec} is not a Kalah spec: {other:?}"),
    }
}

fn oware(spec: &str) -> OwareRules {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Oware(rules)) => rules,
        other => panic!("{spec} is not an Oware spec: {other:?}"),
    }
}

/// The position written `text`, checked against `game`.
fn at<G: Game>(game: &G, text: &str) -> G::State {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text} is not a position of {game:?}: {e}"))
}

fn show<G: Game>(game: &G, state: &G::State) -> String {
    game.setup(state).to_string()
}

fn legal<G: Game>(game: &G, state: &G::State) -> Vec<Move> {
    game.legal_moves(state).into_iter().collect()
}

/// Plays `moves` from `from` (each must be legal) and checks the whole board.
fn check<G: Game>(game: &G, from: &str, moves: &[Move], expected: &str) -> G::State {
    let mut state = at(game, from);
    for (k, &mv) in moves.iter().enumerate() {
        game.try_play(&mut state, mv).unwrap_or_else(|e| {
            panic!("{from}, move {k} ({mv}) after {}: {e}", show(game, &state))
        });
    }
    assert_eq!(show(game, &state), expected, "{from} then {moves:?}");
    state
}

fn assert_close(found: &[f32], expected: &[f32]) {
    assert_eq!(found.len(), expected.len(), "{found:?} vs {expected:?}");
    for (k, (a, b)) in found.iter().zip(expected).enumerate() {
        assert!((a - b).abs() < 1e-6, "entry {k}: {found:?} vs {expected:?}");
    }
}

fn position_error<G: Game>(game: &G, text: &str) -> PositionError {
    let setup: Setup = text.parse().expect("the notation itself is readable");
    match game.from_setup(&setup) {
        Ok(state) => panic!("{text} should be rejected, got {state:?}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------
// Kalah: sowing

#[test]
fn kalah_sowing_drops_one_seed_in_each_following_pit() {
    let k = KalahRules::default();
    // Player 0, pit 1 (index 0): four seeds into pits 2..5.
    check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0",
        &[Pit(0)],
        "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1",
    );
    // Player 1, index 1: into their own pits 2..5 (indices 2..=5).
    check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/1",
        &[Pit(1)],
        "4,4,4,4,4,4/4,0,5,5,5,5/0,0/0",
    );
}

#[test]
fn kalah_sowing_continues_through_own_store_into_opponent_row() {
    let k = KalahRules::default();
    // Index 4 holds 5: pit 5, store, opponent pits 0..2.
    check(
        &k,
        "4,4,4,4,5,3/4,4,4,4,4,4/0,0/0",
        &[Pit(4)],
        "4,4,4,4,0,4/5,5,5,4,4,4/1,0/1",
    );
}

#[test]
fn kalah_sowing_skips_opponent_store() {
    let k = KalahRules::default();
    // Player 0 sows 10 from index 5: store, P1's six pits, (P1's store
    // skipped), own pits 0, 1, 2. The last lands on a 1: no capture.
    check(
        &k,
        "1,1,1,1,1,10/2,2,2,2,2,2/5,16/0",
        &[Pit(5)],
        "2,2,2,1,1,0/3,3,3,3,3,3/6,16/1",
    );
    // The same from player 1's side: player 0's store is skipped.
    check(
        &k,
        "2,2,2,2,2,2/1,1,1,1,1,10/16,5/1",
        &[Pit(5)],
        "3,3,3,3,3,3/2,2,2,1,1,0/16,6/0",
    );
}

#[test]
fn kalah_lap_drops_seed_in_origin_pit() {
    let k = KalahRules::default();
    // 14 seeds from index 0: pits 1..5, store, P1's 6 pits (13 places), then
    // the origin itself and pit 1 again.
    check(
        &k,
        "14,1,1,1,1,1/1,1,1,1,1,1/10,13/0",
        &[Pit(0)],
        "1,3,2,2,2,2/2,2,2,2,2,2/11,13/1",
    );
}

#[test]
fn kalah_last_seed_in_store_gives_extra_turn() {
    let k = KalahRules::default();
    // Index 2 holds 4: pits 3, 4, 5 and the store. Player 0 moves again.
    check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0",
        &[Pit(2)],
        "4,4,0,5,5,5/4,4,4,4,4,4/1,0/0",
    );
    // The same for player 1.
    check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/1",
        &[Pit(2)],
        "4,4,4,4,4,4/4,4,0,5,5,5/0,1/1",
    );
    // After a whole lap: 14 from index 5 ends in the store (1 + 6 + 6 + 1).
    check(
        &k,
        "1,1,1,1,1,14/1,1,1,1,1,1/0,23/0",
        &[Pit(5)],
        "2,2,2,2,2,1/2,2,2,2,2,2/2,23/0",
    );
}

#[test]
fn kalah_extra_turns_have_no_limit() {
    let k = KalahRules::default();
    let s = check(
        &k,
        "0,0,0,3,2,1/4,4,4,4,4,4/10,8/0",
        &[Pit(5), Pit(4), Pit(5), Pit(3), Pit(5)],
        "0,0,0,0,1,0/4,4,4,4,4,4/15,8/0",
    );
    assert_eq!(k.to_move(&s), Some(Player::ZERO));
    // The sixth move lands in the empty pit 5 and captures pit 0 opposite;
    // player 0's row is then empty and the game ends.
    check(
        &k,
        "0,0,0,0,1,0/4,4,4,4,4,4/15,8/0",
        &[Pit(4)],
        "0,0,0,0,0,0/0,0,0,0,0,0/20,28/-",
    );
}

#[test]
fn kalah_turn_ends_when_last_seed_in_opponent_pit() {
    let k = KalahRules::default();
    // Two seeds from index 5: store, then P1's empty pit 0 -- no capture
    // there (captures are only in the mover's own pits); player 1 moves.
    check(
        &k,
        "4,4,4,4,4,2/0,4,4,4,4,4/0,6/0",
        &[Pit(5)],
        "4,4,4,4,4,0/1,4,4,4,4,4/1,6/1",
    );
}

// ---------------------------------------------------------------------------
// Kalah: captures

#[test]
fn kalah_capture_takes_opposite_and_last_seed() {
    let k = KalahRules::default();
    // Player 0: two seeds from index 0 end in the empty pit 2, opposite
    // P1's pit 3 (7 seeds): 1 + 7 go to the store.
    check(
        &k,
        "2,1,0,4,4,4/4,4,4,7,4,4/0,6/0",
        &[Pit(0)],
        "0,2,0,4,4,4/4,4,4,0,4,4/8,6/1",
    );
    // Player 1: three seeds from index 1 end in their empty pit 4, opposite
    // P0's pit 1 (5 seeds).
    check(
        &k,
        "4,5,4,4,4,4/4,3,4,4,0,4/0,4/1",
        &[Pit(1)],
        "4,0,4,4,4,4/4,0,5,5,0,4/0,10/0",
    );
}

#[test]
fn kalah_capture_on_eight_pits_uses_opposite_pit() {
    let k = kalah("kalah:pits=8,seeds=3");
    // Pit 7 (index 7) faces P1's pit 0.
    check(
        &k,
        "4,4,3,3,3,0,4,0/4,4,4,3,3,3,3,0/2,1/0",
        &[Pit(4)],
        "4,4,3,3,0,1,5,0/0,4,4,3,3,3,3,0/7,1/1",
    );
}

#[test]
fn kalah_no_capture_when_opposite_empty() {
    let k = KalahRules::default();
    check(
        &k,
        "2,1,0,4,4,4/4,4,4,0,4,4/0,13/0",
        &[Pit(0)],
        "0,2,1,4,4,4/4,4,4,0,4,4/0,13/1",
    );
}

#[test]
fn kalah_no_capture_when_last_pit_was_not_empty() {
    let k = KalahRules::default();
    check(
        &k,
        "2,1,1,4,4,4/4,4,4,4,4,4/0,8/0",
        &[Pit(0)],
        "0,2,2,4,4,4/4,4,4,4,4,4/0,8/1",
    );
}

#[test]
fn kalah_empty_capture_option_captures_lone_seed() {
    let k = kalah("kalah:empty_capture=true");
    assert!(k.empty_capture);
    // The lone last seed goes to the store; the turn ends.
    check(
        &k,
        "2,1,0,4,4,4/4,4,4,0,4,4/0,13/0",
        &[Pit(0)],
        "0,2,0,4,4,4/4,4,4,0,4,4/1,13/1",
    );
    // A normal capture is unchanged by the option.
    check(
        &k,
        "2,1,0,4,4,4/4,4,4,7,4,4/0,6/0",
        &[Pit(0)],
        "0,2,0,4,4,4/4,4,4,0,4,4/8,6/1",
    );
}

#[test]
fn kalah_empty_capture_can_empty_own_row_and_end_game() {
    let from = "1,0,0,0,0,0/4,4,4,4,0,4/20,7/0";
    // Default: the seed stays in pit 1 (opposite pit empty), the game goes on.
    check(
        &KalahRules::default(),
        from,
        &[Pit(0)],
        "0,1,0,0,0,0/4,4,4,4,0,4/20,7/1",
    );
    // With empty_capture it is captured, player 0's row is empty: game over,
    // player 1 adds their 20 seeds.
    let k = kalah("kalah:empty_capture=true");
    let s = check(&k, from, &[Pit(0)], "0,0,0,0,0,0/0,0,0,0,0,0/21,27/-");
    assert_eq!(k.outcome(&s).unwrap().winner(), Some(Player::ONE));
}

#[test]
fn kalah_capture_in_origin_after_exact_lap() {
    let k = KalahRules::default();
    // 13 seeds from index 2: pits 3..5, store, P1's six pits, pits 0, 1 and
    // the origin (now holding exactly 1): it captures P1's pit 3 opposite.
    check(
        &k,
        "1,1,13,1,1,1/2,2,2,2,2,2/5,13/0",
        &[Pit(2)],
        "2,2,0,2,2,2/3,3,3,0,3,3/10,13/1",
    );
}

// ---------------------------------------------------------------------------
// Kalah: end of game and leftovers

#[test]
fn kalah_immediate_end_when_either_row_empty() {
    let k = KalahRules::default();
    assert_eq!(k.game_end, GameEnd::Immediate);
    // The mover empties their own row (even with an extra turn earned).
    let s = check(
        &k,
        "0,0,0,0,0,1/4,4,4,4,4,4/10,13/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/11,37/-",
    );
    let out = k.outcome(&s).unwrap();
    assert_eq!(out.scores.0, [11, 37]);
    assert_eq!(out.reason, EndReason::EmptyRow);
    assert_eq!(out.margin(), -26);
    // The mover's capture empties the opponent's row: player 0 keeps pit 5.
    check(
        &k,
        "1,0,0,0,0,3/0,0,0,0,5,0/20,19/0",
        &[Pit(0)],
        "0,0,0,0,0,0/0,0,0,0,0,0/29,19/-",
    );
    // The mover's own row empties by sowing into the opponent's row.
    check(
        &k,
        "0,0,0,0,0,2/4,4,4,4,4,4/10,12/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/11,37/-",
    );
}

#[test]
fn kalah_delayed_end_only_when_mover_has_no_seeds() {
    let k = kalah("kalah:game_end=delayed");
    assert_eq!(k.game_end, GameEnd::Delayed);
    // Player 0 empties their row; player 1, to move, has seeds: no end.
    let s = check(
        &k,
        "0,0,0,0,0,2/4,4,4,4,4,4/10,12/0",
        &[Pit(5)],
        "0,0,0,0,0,0/5,4,4,4,4,4/11,12/1",
    );
    assert!(k.outcome(&s).is_none());
    // Player 1 sows into player 0's row: player 0 can move again.
    check(
        &k,
        "0,0,0,0,0,0/5,4,4,4,4,4/11,12/1",
        &[Pit(5)],
        "1,1,1,0,0,0/5,4,4,4,4,0/11,13/0",
    );
    // Player 1 stays on their side: player 0, to move, has no seeds: over.
    check(
        &k,
        "0,0,0,0,0,0/5,4,4,4,4,4/11,12/1",
        &[Pit(0)],
        "0,0,0,0,0,0/0,0,0,0,0,0/11,37/-",
    );
    // The opponent's row is empty: player 0 keeps moving (here on extra
    // turns) until they have nothing left.
    check(
        &k,
        "0,0,0,0,2,1/0,0,0,0,0,0/20,25/0",
        &[Pit(5), Pit(4)],
        "0,0,0,0,0,1/0,0,0,0,0,0/22,25/0",
    );
    let s = check(
        &k,
        "0,0,0,0,0,1/0,0,0,0,0,0/22,25/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/23,25/-",
    );
    assert_eq!(k.outcome(&s).unwrap().reason, EndReason::EmptyRow);
}

#[test]
fn kalah_delayed_end_after_capture_empties_opponent_row() {
    // Player 0 captures player 1's last seeds; player 1 is to move with an
    // empty row, so even the delayed rule ends the game.
    check(
        &kalah("kalah:game_end=delayed"),
        "1,0,0,0,0,3/0,0,0,0,5,0/20,19/0",
        &[Pit(0)],
        "0,0,0,0,0,0/0,0,0,0,0,0/29,19/-",
    );
}

#[test]
fn kalah_leftover_owner() {
    let k = KalahRules::default();
    assert_eq!(k.leftover, Leftover::Owner);
    let s = check(
        &k,
        "0,0,0,0,0,1/1,2,3,0,0,0/20,21/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/21,27/-",
    );
    let out = k.outcome(&s).unwrap();
    assert_eq!(out.scores.0, [21, 27]);
    assert_eq!(out.winner(), Some(Player::ONE));
}

#[test]
fn kalah_leftover_set_aside() {
    let k = kalah("kalah:leftover=set_aside");
    assert_eq!(k.leftover, Leftover::SetAside);
    // Player 1's 6 seeds count for nobody: 21-21, a draw.
    let s = check(
        &k,
        "0,0,0,0,0,1/1,2,3,0,0,0/20,21/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/21,21/-",
    );
    let out = k.outcome(&s).unwrap();
    assert_eq!(out.scores.0, [21, 21]);
    assert_eq!(out.winner(), None);
    // Such a finished position (42 of 48 seeds) is valid for these rules only.
    assert_eq!(
        show(&k, &at(&k, "0,0,0,0,0,0/0,0,0,0,0,0/21,21/-")),
        "0,0,0,0,0,0/0,0,0,0,0,0/21,21/-"
    );
    assert_eq!(
        position_error(&KalahRules::default(), "0,0,0,0,0,0/0,0,0,0,0,0/21,21/-"),
        PositionError::SeedTotal {
            found: 42,
            expected: 48
        }
    );
}

#[test]
fn kalah_leftover_set_aside_with_delayed_end() {
    let k = kalah("kalah:game_end=delayed,leftover=set_aside");
    check(
        &k,
        "0,0,0,0,0,0/5,4,4,4,4,4/11,12/1",
        &[Pit(0)],
        "0,0,0,0,0,0/0,0,0,0,0,0/11,12/-",
    );
}

// ---------------------------------------------------------------------------
// Kalah: pie rule

#[test]
fn kalah_pie_swap_mirrors_position_and_player_zero_moves() {
    let k = kalah("kalah:pie=true");
    assert!(k.pie);
    assert_eq!(show(&k, &k.start()), "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0s");
    // Player 0's opening: index 2 (extra turn), then index 0.
    let mut s = check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0s",
        &[Pit(2), Pit(0)],
        "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1s",
    );
    assert!(legal(&k, &s).contains(&Swap));
    k.try_play(&mut s, Swap).unwrap();
    // Rows and stores exchange; player 0 is to move; no swap any more.
    assert_eq!(show(&k, &s), "4,4,4,4,4,4/0,5,1,6,6,5/0,1/0");
    assert_eq!(k.to_move(&s), Some(Player::ZERO));
    assert_eq!(legal(&k, &s), (0..6).map(Pit).collect::<Vec<_>>());
    k.try_play(&mut s, Pit(0)).unwrap();
    assert_eq!(show(&k, &s), "0,5,5,5,5,4/0,5,1,6,6,5/0,1/1");
    assert_eq!(legal(&k, &s), (1..6).map(Pit).collect::<Vec<_>>());
    assert_eq!(Swap.to_string(), "swap");
}

#[test]
fn kalah_pie_swap_offered_only_on_first_turn_of_player_one() {
    let k = kalah("kalah:pie=true");
    let mut s = k.start();
    // Not to player 0 at the start.
    assert!(!legal(&k, &s).contains(&Swap));
    assert!(k.try_play(&mut s, Swap).is_err());
    // Not after player 0's extra turn: their opening turn is not over.
    k.try_play(&mut s, Pit(2)).unwrap();
    assert_eq!(show(&k, &s), "4,4,0,5,5,5/4,4,4,4,4,4/1,0/0s");
    assert!(!legal(&k, &s).contains(&Swap));
    let err = k.try_play(&mut s, Swap).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal move swap: legal moves are 1 2 4 5 6"
    );
    // Offered once player 0's turn is complete.
    k.try_play(&mut s, Pit(0)).unwrap();
    assert_eq!(
        legal(&k, &s),
        vec![Pit(0), Pit(1), Pit(2), Pit(3), Pit(4), Pit(5), Swap]
    );

    // Player 1 plays a pit instead: never offered again.
    let s = check(
        &k,
        "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1s",
        &[Pit(0), Pit(1), Pit(2)],
        "0,0,0,8,8,6/0,5,5,5,5,4/2,0/1",
    );
    assert!(!legal(&k, &s).contains(&Swap));
    // Player 1's first move earns an extra turn: no swap on that extra turn.
    let s = check(
        &k,
        "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1s",
        &[Pit(2)],
        "0,5,1,6,6,5/4,4,0,5,5,5/1,1/1",
    );
    assert_eq!(legal(&k, &s), vec![Pit(0), Pit(1), Pit(3), Pit(4), Pit(5)]);
    // After a swap and player 0's turn, player 1 gets no second swap.
    let s = check(
        &k,
        "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1s",
        &[Swap, Pit(0)],
        "0,5,5,5,5,4/0,5,1,6,6,5/0,1/1",
    );
    assert!(!legal(&k, &s).contains(&Swap));
}

#[test]
fn kalah_no_swap_without_pie_option() {
    let k = KalahRules::default();
    assert!(!k.pie);
    let mut s = at(&k, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1");
    assert!(!legal(&k, &s).contains(&Swap));
    let err = k.try_play(&mut s, Swap).unwrap_err();
    assert!(!err.game_over);
    assert_eq!(
        err.to_string(),
        "illegal move swap: legal moves are 1 2 3 4 5 6"
    );
    assert_eq!(show(&k, &s), "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1");
}

// ---------------------------------------------------------------------------
// Kalah: boards of other sizes, moves and errors

#[test]
fn kalah_spec_sets_pits_and_seeds() {
    let k = kalah("kalah:pits=4,seeds=3");
    assert_eq!((k.pits(), k.seeds(), k.total_seeds()), (4, 3, 24));
    assert_eq!(show(&k, &k.start()), "3,3,3,3/3,3,3,3/0,0/0");
    // Index 1: pits 2, 3 and the store (extra turn); index 3: store, P1's
    // pits 0..2.
    let s = check(
        &k,
        "3,3,3,3/3,3,3,3/0,0/0",
        &[Pit(1), Pit(3)],
        "3,0,4,0/4,4,4,3/2,0/1",
    );
    assert_eq!(k.to_move(&s), Some(Player::ONE));
    // Player 1, index 3: store, P0's pits 0 and 1 (no capture on P0's side).
    check(
        &k,
        "3,0,4,0/4,4,4,3/2,0/1",
        &[Pit(3)],
        "4,1,4,0/4,4,4,0/2,1/0",
    );
    // Index 0 to the store, index 3 to the store, then index 1 ends in the
    // empty pit 3, opposite P1's pit 0 (4 seeds).
    check(
        &k,
        "4,1,4,0/4,4,4,0/2,1/0",
        &[Pit(0), Pit(3), Pit(1)],
        "0,0,6,0/0,4,4,0/9,1/1",
    );
}

#[test]
fn kalah_one_pit_board() {
    // Store, P1's pit, own pit (the origin, empty): captures 1 + 4.
    check(
        &kalah("kalah:pits=1,seeds=3"),
        "3/3/0,0/0",
        &[Pit(0)],
        "0/0/6,0/-",
    );
    // One seed into the store: an extra turn, but player 0's row is empty.
    let k = kalah("kalah:pits=1,seeds=1");
    let s = check(&k, "1/1/0,0/0", &[Pit(0)], "0/0/1,1/-");
    assert_eq!(k.outcome(&s).unwrap().winner(), None);
    // Store, then P1's pit; player 0's row is empty.
    check(
        &kalah("kalah:pits=1,seeds=2"),
        "2/2/0,0/0",
        &[Pit(0)],
        "0/0/1,3/-",
    );
}

#[test]
fn kalah_fifteen_pit_board() {
    let k = kalah("kalah:pits=15,seeds=1");
    assert_eq!(k.total_seeds(), 30);
    let ones = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
    let start = format!("{ones}/{ones}/0,0/0");
    assert_eq!(show(&k, &k.start()), start);
    // Index 14 into the store (extra turn); index 13 into the now empty pit
    // 14, which faces P1's pit 0.
    check(
        &k,
        &start,
        &[Pit(14), Pit(13)],
        "1,1,1,1,1,1,1,1,1,1,1,1,1,0,0/0,1,1,1,1,1,1,1,1,1,1,1,1,1,1/3,0/1",
    );
    // An exact lap on the largest board is 31 places (15 pits, the store,
    // 15 opponent pits): 31 seeds from index 0 end in the origin, which then
    // holds 1 and captures P1's pit 14 (2 + 1 seeds) opposite.
    let k = kalah("kalah:pits=15,seeds=2");
    let zeros = "0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    let ones = "1,1,1,1,1,1,1,1,1,1,1,1,1,1";
    check(
        &k,
        &format!("31,{zeros}/{zeros},2/10,17/0"),
        &[Pit(0)],
        &format!("0,{ones}/{ones},0/15,17/1"),
    );
}

#[test]
fn kalah_moves_from_empty_pits_or_after_the_end_are_illegal() {
    let k = KalahRules::default();
    let mut s = at(&k, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/0");
    let err = k.try_play(&mut s, Pit(0)).unwrap_err();
    assert_eq!(err.to_string(), "illegal move 1: legal moves are 2 3 4 5 6");
    assert!(k.try_play(&mut s, Pit(6)).is_err());
    let mut s = at(&k, "0,0,0,0,0,0/0,0,0,0,0,0/20,28/-");
    assert!(k.legal_moves(&s).is_empty());
    let err = k.try_play(&mut s, Pit(0)).unwrap_err();
    assert!(err.game_over);
    assert_eq!(err.to_string(), "illegal move 1: the game is over");
}

#[test]
fn kalah_position_errors() {
    let k = KalahRules::default();
    let e = position_error(&k, "4,4,4,4,4/4,4,4,4,4,4/0,4/0");
    assert_eq!(
        e,
        PositionError::PitCount {
            player: 0,
            found: 5,
            expected: 6
        }
    );
    assert_eq!(e.to_string(), "player 0's row has 5 pits, the rules have 6");
    let e = position_error(&k, "4,4,4,4,4,4/4,4,4,4,4,4,0/0,0/0");
    assert_eq!(
        e,
        PositionError::PitCount {
            player: 1,
            found: 7,
            expected: 6
        }
    );

    let e = position_error(&k, "4,4,4,4,4,4/4,4,4,4,4,4/1,0/0");
    assert_eq!(
        e,
        PositionError::SeedTotal {
            found: 49,
            expected: 48
        }
    );
    assert_eq!(
        e.to_string(),
        "the position holds 49 seeds, the rules start with 48"
    );

    // A row is empty under the immediate rule: the game is over already.
    let e = position_error(&k, "0,0,0,0,0,0/4,4,4,4,4,4/24,0/1");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("inconsistent player to move: player 1 is to move"),
        "{msg}"
    );
    assert!(msg.contains("a row is empty"), "{msg}");
    // The same position is fine with the delayed rule, unless the mover is empty.
    let delayed = kalah("kalah:game_end=delayed");
    assert_eq!(
        show(&delayed, &at(&delayed, "0,0,0,0,0,0/4,4,4,4,4,4/24,0/1")),
        "0,0,0,0,0,0/4,4,4,4,4,4/24,0/1"
    );
    let e = position_error(&delayed, "0,0,0,0,0,0/4,4,4,4,4,4/24,0/0");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    assert!(e.to_string().contains("the mover has no seeds"), "{e}");
    // Marked over with seeds still in the pits.
    let e = position_error(&k, "4,4,4,4,4,4/4,4,4,4,4,4/0,0/-");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    assert!(e.to_string().contains("marked over"), "{e}");

    // A swap flag without the pie rule.
    let e = position_error(&k, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1s");
    assert!(matches!(e, PositionError::Swap { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "a swap is not possible here: these rules have no pie rule (add pie=true)"
    );
    let pie = kalah("kalah:pie=true");
    let s = at(&pie, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1s");
    assert!(legal(&pie, &s).contains(&Swap));
    let s = at(&pie, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1");
    assert!(!legal(&pie, &s).contains(&Swap));

    // Wrong board sizes for other specs.
    let small = kalah("kalah:pits=4,seeds=3");
    assert_eq!(
        position_error(&small, "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0"),
        PositionError::PitCount {
            player: 0,
            found: 6,
            expected: 4
        }
    );
    assert_eq!(
        position_error(&small, "4,4,4,4/4,4,4,4/0,0/0"),
        PositionError::SeedTotal {
            found: 32,
            expected: 24
        }
    );
}

#[test]
fn notation_syntax_errors() {
    for (text, part) in [
        ("4,4,4/4,4,4/0,0", "expected 4 fields"),
        // (`x` is a burnt hole of multi-round Congkak, see tests/suite/congkak.rs.)
        ("4,4,y/4,4,4/0,0/0", "player 0's pits: 'y'"),
        ("4,4,4/4,4,256/0,0/0", "player 1's pits: '256'"),
        ("4,4,4/4,4,4/0,0,0/0", "two numbers"),
        ("4,4,4/4,4,4/0,0/2", "'2' is not 0, 1"),
        ("4,4,4/4,4,4/0,0/0x", "'0x' is not 0, 1"),
    ] {
        let err = text.parse::<Setup>().unwrap_err();
        assert!(
            matches!(err, PositionError::Syntax { .. }),
            "{text}: {err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("cannot read position '{text}'")),
            "{msg}"
        );
        assert!(msg.contains(part), "{text}: {msg}");
    }
}

#[test]
fn kalah_and_oware_have_no_burnt_holes_or_rounds() {
    for game in [
        GameSpec::Kalah(KalahRules::default()),
        GameSpec::Oware(OwareRules::default()),
    ] {
        for text in [
            "x,4,4,4,4,8/4,4,4,4,4,4/0,0/0",
            "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0/r1,0",
        ] {
            let e = mancala_core::with_game!(&game, g => position_error(g, text));
            assert!(matches!(e, PositionError::Rounds { .. }), "{game}: {e:?}");
            assert!(e.to_string().contains("congkak:rounds=many"), "{e}");
        }
    }
}

#[test]
fn kalah_observe_from_each_side() {
    let k = KalahRules::default();
    let mut out = vec![f32::NAN; k.observation_len()];
    assert_eq!(out.len(), 15);
    let scaled = |v: &[u8]| v.iter().map(|&x| f32::from(x) / 48.0).collect::<Vec<f32>>();

    // Player 1 to move: own row first, then player 0's, then own store.
    k.observe(&at(&k, "1,2,3,4,5,6/7,0,1,2,3,4/2,8/1"), &mut out);
    let mut expected = scaled(&[7, 0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 8, 2]);
    expected.push(0.0);
    assert_close(&out, &expected);

    // Player 0 to move.
    k.observe(&at(&k, "1,2,3,4,5,6/7,0,1,2,3,4/2,8/0"), &mut out);
    let mut expected = scaled(&[1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 2, 8]);
    expected.push(0.0);
    assert_close(&out, &expected);

    // The last entry is 1 when the mover may swap.
    let pie = kalah("kalah:pie=true");
    pie.observe(&at(&pie, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1s"), &mut out);
    let mut expected = scaled(&[4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 0, 0]);
    expected.push(1.0);
    assert_close(&out, &expected);
    // ...and 0 during player 0's opening turn.
    pie.observe(&pie.start(), &mut out);
    assert_eq!(out[14], 0.0);

    // A finished game is seen from player 0's side.
    k.observe(&at(&k, "0,0,0,0,0,0/0,0,0,0,0,0/20,28/-"), &mut out);
    let mut expected = scaled(&[0; 12]);
    expected.extend(scaled(&[20, 28]));
    expected.push(0.0);
    assert_close(&out, &expected);
}

#[test]
fn kalah_key_depends_on_position_only() {
    let k = KalahRules::default();
    // Two move orders reach the same position.
    let a = check(
        &k,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0",
        &[Pit(0)],
        "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1",
    );
    let b = at(&k, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1");
    assert_eq!(a, b);
    assert_eq!(k.key(&a), k.key(&b));
    // The player to move and the pending swap are part of the position.
    assert_ne!(k.key(&b), k.key(&at(&k, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/0")));
    let pie = kalah("kalah:pie=true");
    assert_ne!(
        pie.key(&at(&pie, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1s")),
        pie.key(&at(&pie, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1"))
    );
}

// ---------------------------------------------------------------------------
// Oware: sowing

#[test]
fn oware_sowing_counter_clockwise_without_stores() {
    let o = OwareRules::default();
    // Index 5: into player 1's houses 0..3; the last makes 5: no capture.
    check(
        &o,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0",
        &[Pit(5)],
        "4,4,4,4,4,0/5,5,5,5,4,4/0,0/1",
    );
    // Player 1, index 5: into player 0's houses 0..3.
    check(
        &o,
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/1",
        &[Pit(5)],
        "5,5,5,5,4,4/4,4,4,4,4,0/0,0/0",
    );
}

#[test]
fn oware_origin_skipped_on_laps() {
    let o = OwareRules::default();
    // 12 seeds from index 0: houses 1..5, P1's six (11), origin skipped,
    // house 1 again. The origin stays empty.
    check(
        &o,
        "12,0,0,0,0,0/1,1,1,1,1,1/10,20/0",
        &[Pit(0)],
        "0,2,1,1,1,1/2,2,2,2,2,2/10,20/1",
    );
    // 17 seeds: a second lap past the origin ends in P1's house 0 (2 seeds):
    // captured; the house before it is player 0's own: the chain stops.
    check(
        &o,
        "17,0,0,0,0,0/0,1,1,1,1,1/3,23/0",
        &[Pit(0)],
        "0,2,2,2,2,2/0,2,2,2,2,2/5,23/1",
    );
}

#[test]
fn oware_exact_lap_ends_just_before_origin() {
    let o = OwareRules::default();
    // 11 seeds from P1's house 0: P1's 1..5, P0's 0..5; the last lands in
    // P0's house 5. It and houses 4, 3 hold 2: captured; house 2 holds 4:
    // the chain stops there. The origin gets nothing.
    check(
        &o,
        "1,1,3,1,1,1/11,0,0,0,0,0/20,9/1",
        &[Pit(0)],
        "2,2,4,0,0,0/0,1,1,1,1,1/20,15/0",
    );
}

// ---------------------------------------------------------------------------
// Oware: captures

#[test]
fn oware_captures_twos_and_threes() {
    let o = OwareRules::default();
    // The last seed makes 2: captured.
    check(
        &o,
        "4,4,4,4,4,1/1,4,4,4,4,4/0,6/0",
        &[Pit(5)],
        "4,4,4,4,4,0/0,4,4,4,4,4/2,6/1",
    );
    // Makes 3: captured.
    check(
        &o,
        "4,4,4,4,4,1/2,4,4,4,4,4/0,5/0",
        &[Pit(5)],
        "4,4,4,4,4,0/0,4,4,4,4,4/3,5/1",
    );
    // Makes 4 or 1: nothing.
    check(
        &o,
        "4,4,4,4,4,1/3,4,4,4,4,4/0,4/0",
        &[Pit(5)],
        "4,4,4,4,4,0/4,4,4,4,4,4/0,4/1",
    );
    check(
        &o,
        "4,4,4,4,4,1/0,4,4,4,4,4/0,7/0",
        &[Pit(5)],
        "4,4,4,4,4,0/1,4,4,4,4,4/0,7/1",
    );
    // Player 1 captures in player 0's row.
    check(
        &o,
        "1,4,4,4,4,4/4,4,4,4,4,1/6,0/1",
        &[Pit(5)],
        "0,4,4,4,4,4/4,4,4,4,4,0/6,2/0",
    );
}

#[test]
fn oware_chain_capture_stops_at_first_non_qualifying_house() {
    let o = OwareRules::default();
    // Four seeds into P1's houses 0..3 (1,3,2,1 -> 2,4,3,2): houses 3 and 2
    // are captured, house 1 (4) stops the chain, so house 0 (2) stays.
    check(
        &o,
        "4,4,4,4,4,4/1,3,2,1,4,4/0,9/0",
        &[Pit(5)],
        "4,4,4,4,4,0/2,4,0,0,4,4/5,9/1",
    );
}

#[test]
fn oware_chain_capture_stops_at_end_of_opponent_row() {
    let o = OwareRules::default();
    // P0 index 4 sows house 5 (1 -> 2), P1's 0 (1 -> 2) and 1 (2 -> 3): P1's
    // 1 and 0 are captured, the own house 5 is not.
    check(
        &o,
        "4,4,4,4,3,1/1,2,4,4,4,4/0,9/0",
        &[Pit(4)],
        "4,4,4,4,0,2/0,0,4,4,4,4/5,9/1",
    );
    // The same for player 1, across the wrap of the board.
    check(
        &o,
        "1,2,4,4,4,4/4,4,4,4,3,1/9,0/1",
        &[Pit(4)],
        "0,0,4,4,4,4/4,4,4,4,0,2/9,5/0",
    );
}

#[test]
fn oware_no_capture_in_own_row() {
    let o = OwareRules::default();
    // The last seed makes 3 in the mover's own house 2 (and 2 in house 1).
    check(
        &o,
        "2,1,2,4,4,4/4,4,4,4,4,4/0,7/0",
        &[Pit(0)],
        "0,2,3,4,4,4/4,4,4,4,4,4/0,7/1",
    );
    check(
        &o,
        "4,4,4,4,4,4/2,1,2,4,4,4/7,0/1",
        &[Pit(0)],
        "4,4,4,4,4,4/0,2,3,4,4,4/7,0/0",
    );
}

// Opponent holds 1 and 2 only: sowing index 5 (2 seeds) or index 3 (4 seeds)
// would capture both houses, all the opponent's seeds. Index 2 (4 seeds)
// captures house 0 only; indices 0, 1, 4 capture nothing.
const GRAND_SLAM_POSITION: &str = "4,4,4,4,4,2/1,2,0,0,0,0/13,10/0";

#[test]
fn oware_grand_slam_no_capture() {
    let o = OwareRules::default();
    assert_eq!(o.grand_slam, GrandSlam::NoCapture);
    let s = at(&o, GRAND_SLAM_POSITION);
    assert_eq!(legal(&o, &s), (0..6).map(Pit).collect::<Vec<_>>());
    check(
        &o,
        GRAND_SLAM_POSITION,
        &[Pit(5)],
        "4,4,4,4,4,0/2,3,0,0,0,0/13,10/1",
    );
    check(
        &o,
        GRAND_SLAM_POSITION,
        &[Pit(3)],
        "4,4,4,0,5,3/2,3,0,0,0,0/13,10/1",
    );
    // A capture of part of the opponent's seeds is not a grand slam.
    check(
        &o,
        GRAND_SLAM_POSITION,
        &[Pit(2)],
        "4,4,0,5,5,3/0,2,0,0,0,0/15,10/1",
    );
}

#[test]
fn oware_grand_slam_illegal() {
    let o = oware("oware:grand_slam=illegal");
    assert_eq!(o.grand_slam, GrandSlam::Illegal);
    // Excluded while other moves exist.
    let mut s = at(&o, GRAND_SLAM_POSITION);
    assert_eq!(legal(&o, &s), vec![Pit(0), Pit(1), Pit(2), Pit(4)]);
    let err = o.try_play(&mut s, Pit(5)).unwrap_err();
    assert_eq!(err.to_string(), "illegal move 6: legal moves are 1 2 3 5");
    check(
        &o,
        GRAND_SLAM_POSITION,
        &[Pit(2)],
        "4,4,0,5,5,3/0,2,0,0,0,0/15,10/1",
    );
    // When every legal move is a grand slam it may be played, capturing nothing.
    let from = "0,0,0,0,0,4/2,2,2,2,0,0/18,18/0";
    assert_eq!(legal(&o, &at(&o, from)), vec![Pit(5)]);
    let s = check(&o, from, &[Pit(5)], "0,0,0,0,0,0/3,3,3,3,0,0/18,18/1");
    // Player 1 must feed: only index 3 reaches player 0's row.
    assert_eq!(legal(&o, &s), vec![Pit(3)]);
}

#[test]
fn oware_grand_slam_capture_all() {
    let o = oware("oware:grand_slam=capture_all");
    assert_eq!(o.grand_slam, GrandSlam::CaptureAll);
    let s = at(&o, GRAND_SLAM_POSITION);
    assert_eq!(legal(&o, &s), (0..6).map(Pit).collect::<Vec<_>>());
    // Captures all five; player 1 then has no seeds, so no legal move: the
    // game ends and player 0 adds their 20.
    let s = check(
        &o,
        GRAND_SLAM_POSITION,
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/38,10/-",
    );
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::NoLegalMove);
    // Captures 12, more than half: the game ends by majority.
    let s = check(
        &o,
        "0,0,0,0,0,4/2,2,2,2,0,0/18,18/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/30,18/-",
    );
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::Majority);
}

// ---------------------------------------------------------------------------
// Oware: feeding and the end of the game

#[test]
fn oware_must_feed() {
    let o = OwareRules::default();
    // P1 is empty: index 2 (3 seeds) and 3 (1 seed) stay in P0's row; only
    // index 4 (2 seeds) reaches P1's.
    let mut s = at(&o, "0,0,3,1,2,0/0,0,0,0,0,0/20,22/0");
    assert_eq!(legal(&o, &s), vec![Pit(4)]);
    assert!(o.try_play(&mut s, Pit(2)).is_err());
    check(
        &o,
        "0,0,3,1,2,0/0,0,0,0,0,0/20,22/0",
        &[Pit(4)],
        "0,0,3,1,0,1/1,0,0,0,0,0/20,22/1",
    );
    // Player 1 feeding player 0: index 3 (5 seeds) and 5 (1 seed) do, 4 not.
    let s = at(&o, "0,0,0,0,0,0/0,0,0,5,1,1/20,21/1");
    assert_eq!(legal(&o, &s), vec![Pit(3), Pit(5)]);
    // While the opponent has seeds, any non-empty house may be sown.
    let s = at(&o, "0,0,3,1,2,0/1,0,0,0,0,0/20,21/0");
    assert_eq!(legal(&o, &s), vec![Pit(2), Pit(3), Pit(4)]);
}

#[test]
fn oware_game_ends_when_cannot_feed() {
    let o = OwareRules::default();
    // Player 1 sows their last seed into P0's house 0. Player 0 must feed,
    // but 1 seed in house 0 or 1 cannot reach: over; player 0 keeps their 2.
    let s = check(
        &o,
        "0,1,0,0,0,0/0,0,0,0,0,1/23,23/1",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/25,23/-",
    );
    let out = o.outcome(&s).unwrap();
    assert_eq!(out.reason, EndReason::NoLegalMove);
    assert_eq!(out.winner(), Some(Player::ZERO));
    // A grand slam (captured nothing) leaves player 1 unable to feed: player
    // 1 keeps the 2 seeds of their row.
    let s = check(
        &o,
        "0,0,0,0,0,1/1,0,0,0,0,0/22,24/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/22,26/-",
    );
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::NoLegalMove);
}

#[test]
fn oware_majority_ends_game() {
    let o = OwareRules::default();
    // Capturing 2 takes player 0 to 25 of 48: over, leftovers to owners.
    let s = check(
        &o,
        "1,0,0,0,0,1/1,1,0,0,0,0/23,21/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/26,22/-",
    );
    let out = o.outcome(&s).unwrap();
    assert_eq!(out.reason, EndReason::Majority);
    assert_eq!(out.scores.0, [26, 22]);
    assert_eq!(out.margin(), 4);
    // Exactly half for one player alone does not end the game.
    let s = check(
        &o,
        "1,0,0,0,0,1/1,1,0,0,0,0/22,22/0",
        &[Pit(5)],
        "1,0,0,0,0,0/0,1,0,0,0,0/24,22/1",
    );
    assert!(o.outcome(&s).is_none());
}

#[test]
fn oware_exact_half_each_is_draw() {
    // With 24 each the board is empty, so only a grand slam capture can get
    // there by a move: capture_all.
    let o = oware("oware:grand_slam=capture_all");
    let s = check(
        &o,
        "0,0,0,0,0,1/1,0,0,0,0,0/22,24/0",
        &[Pit(5)],
        "0,0,0,0,0,0/0,0,0,0,0,0/24,24/-",
    );
    let out = o.outcome(&s).unwrap();
    assert_eq!(out.reason, EndReason::Majority);
    assert_eq!(out.winner(), None);
    assert_eq!(out.margin(), 0);
    // A finished 24-24 position reads back as a majority end.
    let s = at(&OwareRules::default(), "0,0,0,0,0,0/0,0,0,0,0,0/24,24/-");
    assert_eq!(
        OwareRules::default().outcome(&s).unwrap().reason,
        EndReason::Majority
    );
}

/// Each player has one seed in house 5; every move is forced and the two
/// seeds go round the board, back to this position after 12 plies.
const CYCLE: &str = "0,0,0,0,0,1/0,0,0,0,0,1/23,23/0";
const CYCLE_MOVES: [u8; 12] = [5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4];

#[test]
fn oware_repetition_since_last_capture_ends_game() {
    let o = OwareRules::default();
    let mut s = at(&o, CYCLE);
    let boards = [
        "0,0,0,0,0,0/1,0,0,0,0,1/23,23/1",
        "1,0,0,0,0,0/1,0,0,0,0,0/23,23/0",
        "0,1,0,0,0,0/1,0,0,0,0,0/23,23/1",
        "0,1,0,0,0,0/0,1,0,0,0,0/23,23/0",
        "0,0,1,0,0,0/0,1,0,0,0,0/23,23/1",
        "0,0,1,0,0,0/0,0,1,0,0,0/23,23/0",
        "0,0,0,1,0,0/0,0,1,0,0,0/23,23/1",
        "0,0,0,1,0,0/0,0,0,1,0,0/23,23/0",
        "0,0,0,0,1,0/0,0,0,1,0,0/23,23/1",
        "0,0,0,0,1,0/0,0,0,0,1,0/23,23/0",
        "0,0,0,0,0,1/0,0,0,0,1,0/23,23/1",
    ];
    for (k, &pit) in CYCLE_MOVES.iter().enumerate() {
        assert_eq!(legal(&o, &s), vec![Pit(pit)], "ply {k}: forced move");
        o.try_play(&mut s, Pit(pit)).unwrap();
        if k < 11 {
            assert_eq!(show(&o, &s), boards[k], "after ply {k}");
        }
    }
    // The start position is back, with the same player to move: over, and
    // each player takes the seed in their row.
    assert_eq!(show(&o, &s), "0,0,0,0,0,0/0,0,0,0,0,0/24,24/-");
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::Repetition);
    assert_eq!(s.plies(), 12);
}

#[test]
fn oware_repetition_counts_position_right_after_capture() {
    let o = OwareRules::default();
    // Player 0's house 4 (2 seeds) ends in P1's house 0 (1 -> 2): a capture.
    let mut s = check(
        &o,
        "0,0,0,0,2,0/1,0,0,0,0,1/21,23/0",
        &[Pit(4)],
        "0,0,0,0,0,1/0,0,0,0,0,1/23,23/1",
    );
    // Then twelve forced plies bring that position back, player 1 to move.
    for (k, pit) in [5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4].into_iter().enumerate() {
        assert!(o.outcome(&s).is_none(), "ply {k}");
        assert_eq!(legal(&o, &s), vec![Pit(pit)], "ply {k}: forced move");
        o.try_play(&mut s, Pit(pit)).unwrap();
    }
    assert_eq!(show(&o, &s), "0,0,0,0,0,0/0,0,0,0,0,0/24,24/-");
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::Repetition);
}

#[test]
fn oware_repetition_on_one_house_board() {
    // One-house board: the two seeds shuttle between the houses. Grand slams
    // capture nothing. After ply 1 the board is 0/2 with player 1 to move;
    // after ply 3 that position recurs.
    let o = oware("oware:pits=1,seeds=1");
    let mut s = o.start();
    o.try_play(&mut s, Pit(0)).unwrap();
    assert_eq!(show(&o, &s), "0/2/0,0/1");
    o.try_play(&mut s, Pit(0)).unwrap();
    assert_eq!(show(&o, &s), "2/0/0,0/0");
    o.try_play(&mut s, Pit(0)).unwrap();
    assert_eq!(show(&o, &s), "0/0/0,2/-");
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::Repetition);
}

#[test]
fn oware_max_plies_ends_game() {
    let o = oware("oware:max_plies=3");
    assert_eq!(o.max_plies, 3);
    let mut s = o.start();
    for pit in [0, 0] {
        o.try_play(&mut s, Pit(pit)).unwrap();
    }
    assert_eq!(show(&o, &s), "0,5,5,5,5,4/0,5,5,5,5,4/0,0/0");
    o.try_play(&mut s, Pit(5)).unwrap();
    // Third ply: P1's 0, 1, 2, 3 get a seed (1, 6, 6, 6): no capture; the
    // game ends and each player takes their row (20 and 28).
    assert_eq!(show(&o, &s), "0,0,0,0,0,0/0,0,0,0,0,0/20,28/-");
    assert_eq!(o.outcome(&s).unwrap().reason, EndReason::MaxPlies);
    assert_eq!(s.plies(), 3);
    // Plies count from the position set up; a single ply here ends the game.
    let one = oware("oware:max_plies=1");
    let s = check(&one, CYCLE, &[Pit(5)], "0,0,0,0,0,0/0,0,0,0,0,0/23,25/-");
    assert_eq!(one.outcome(&s).unwrap().reason, EndReason::MaxPlies);
    // The cycle's repetition comes first with the default limit.
    assert_eq!(OwareRules::default().max_plies, 1000);
}

#[test]
fn oware_leftovers_swept_in_every_end_case() {
    // Majority, repetition, no legal move, max plies: both rows are emptied
    // into their owner's score each time (the boards above show the sums);
    // here the final scores always add up to all 48 seeds.
    let cases: [(OwareRules, &str, &[u8], EndReason); 4] = [
        (
            OwareRules::default(),
            "1,0,0,0,0,1/1,1,0,0,0,0/23,21/0",
            &[5],
            EndReason::Majority,
        ),
        (
            OwareRules::default(),
            CYCLE,
            &CYCLE_MOVES,
            EndReason::Repetition,
        ),
        (
            OwareRules::default(),
            "0,1,0,0,0,0/0,0,0,0,0,1/23,23/1",
            &[5],
            EndReason::NoLegalMove,
        ),
        (oware("oware:max_plies=1"), CYCLE, &[5], EndReason::MaxPlies),
    ];
    for (o, from, moves, reason) in cases {
        let mut s = at(&o, from);
        for &m in moves {
            o.try_play(&mut s, Pit(m)).unwrap();
        }
        let setup = o.setup(&s);
        assert!(
            setup.rows.0.iter().flatten().all(|&x| x == 0),
            "{from}: {setup}"
        );
        let out = o.outcome(&s).unwrap();
        assert_eq!(out.reason, reason, "{from}");
        assert_eq!(
            usize::from(out.scores[Player::ZERO]) + usize::from(out.scores[Player::ONE]),
            48
        );
    }
}

#[test]
fn oware_spec_sets_pits_and_seeds() {
    let o = oware("oware:pits=8,seeds=2");
    assert_eq!((o.pits(), o.seeds(), o.total_seeds()), (8, 2, 32));
    assert_eq!(
        show(&o, &o.start()),
        "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/0,0/0"
    );
    // Index 7 into P1's houses 0 and 1 (3 each): both captured.
    check(
        &o,
        "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/0,0/0",
        &[Pit(7)],
        "2,2,2,2,2,2,2,0/0,0,2,2,2,2,2,2/6,0/1",
    );
    let small = oware("oware:pits=4,seeds=3,max_plies=50");
    assert_eq!(show(&small, &small.start()), "3,3,3,3/3,3,3,3/0,0/0");
    // Index 2: house 3, P1's 0 and 1 (4 each): no capture.
    check(
        &small,
        "3,3,3,3/3,3,3,3/0,0/0",
        &[Pit(2)],
        "3,3,0,4/4,4,3,3/0,0/1",
    );
    // "abapa" names the same game.
    assert_eq!(
        "abapa".parse::<GameSpec>().unwrap(),
        GameSpec::Oware(OwareRules::default())
    );
}

#[test]
fn oware_position_errors() {
    let o = OwareRules::default();
    assert_eq!(
        position_error(&o, "4,4,4,4,4,4/4,4,4,4,4/0,4/0"),
        PositionError::PitCount {
            player: 1,
            found: 5,
            expected: 6
        }
    );
    assert_eq!(
        position_error(&o, "4,4,4,4,4,4/4,4,4,4,4,4/0,1/0"),
        PositionError::SeedTotal {
            found: 49,
            expected: 48
        }
    );
    // A player already has more than half, or both have half.
    let e = position_error(&o, "1,0,0,0,0,0/0,0,0,0,0,1/25,21/0");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    assert!(e.to_string().contains("half the seeds"), "{e}");
    // The mover cannot feed: the game is over already.
    let e = position_error(&o, "1,0,0,0,0,0/0,0,0,0,0,0/24,23/0");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    assert!(e.to_string().contains("no legal move"), "{e}");
    // Marked over with seeds on the board.
    let e = position_error(&o, "1,0,0,0,0,0/0,0,0,0,0,1/23,23/-");
    assert!(matches!(e, PositionError::ToMove { .. }), "{e:?}");
    // No pie rule in Oware.
    let e = position_error(&o, "4,4,4,4,4,4/4,4,4,4,4,4/0,0/0s");
    assert_eq!(
        e,
        PositionError::Swap {
            why: "Oware has no pie rule".into()
        }
    );
    let mut s = o.start();
    assert!(o.try_play(&mut s, Swap).is_err());
}

#[test]
fn oware_observe_from_each_side() {
    let o = oware("oware:max_plies=10");
    assert_eq!(o.observation_len(), 15);
    let mut out = vec![f32::NAN; 15];
    let scaled = |v: &[u8]| v.iter().map(|&x| f32::from(x) / 48.0).collect::<Vec<f32>>();
    let mut s = at(&o, "4,4,4,4,4,1/1,4,4,4,4,4/0,6/0");
    o.observe(&s, &mut out);
    let mut expected = scaled(&[4, 4, 4, 4, 4, 1, 1, 4, 4, 4, 4, 4, 0, 6]);
    expected.push(0.0);
    assert_close(&out, &expected);
    // Player 1 to move after one ply of ten: own row first, own score first.
    o.try_play(&mut s, Pit(5)).unwrap();
    assert_eq!(show(&o, &s), "4,4,4,4,4,0/0,4,4,4,4,4/2,6/1");
    o.observe(&s, &mut out);
    let mut expected = scaled(&[0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 6, 2]);
    expected.push(0.1);
    assert_close(&out, &expected);
}

#[test]
fn oware_key_equal_for_equal_states() {
    let o = OwareRules::default();
    // The same game played twice, and the same position set up twice.
    let mut a = o.start();
    let mut b = o.start();
    for s in [&mut a, &mut b] {
        o.try_play(s, Pit(0)).unwrap();
    }
    assert_eq!(a, b);
    assert_eq!(o.key(&a), o.key(&b));
    assert_eq!(a.plies(), 1);
    let fresh = at(&o, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1");
    assert_eq!(o.setup(&a), o.setup(&fresh));
    assert_eq!(fresh.plies(), 0);
    assert_eq!(
        o.key(&fresh),
        o.key(&at(&o, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/1"))
    );
    // The player to move and the board are part of the key.
    assert_ne!(
        o.key(&fresh),
        o.key(&at(&o, "0,5,5,5,5,4/4,4,4,4,4,4/0,0/0"))
    );
    assert_ne!(
        o.key(&fresh),
        o.key(&at(&o, "5,0,5,5,5,4/4,4,4,4,4,4/0,0/1"))
    );
}

#[test]
fn game_specs_select_rules() {
    let k = kalah(
        "kalah:pits=5,seeds=2,empty_capture=true,game_end=delayed,leftover=set_aside,pie=true",
    );
    assert_eq!((k.pits(), k.seeds()), (5, 2));
    assert!(k.empty_capture && k.pie);
    assert_eq!(
        (k.game_end, k.leftover),
        (GameEnd::Delayed, Leftover::SetAside)
    );
    assert_eq!(KalahRules::new(5, 2).unwrap().total_seeds(), 20);
    let o = oware("oware:pits=3,seeds=5,grand_slam=illegal,max_plies=7");
    assert_eq!(
        (o.pits(), o.seeds(), o.grand_slam, o.max_plies),
        (3, 5, GrandSlam::Illegal, 7)
    );
    assert!("kalah:pits=15,seeds=8".parse::<GameSpec>().is_ok());
    for bad in [
        "kalah:pits=16",
        "oware:pits=0",
        "kalah:seeds=0",
        "oware:max_plies=0",
        "kalah:pits=15,seeds=9",
    ] {
        assert!(bad.parse::<GameSpec>().is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------
// Regressions found by tests/suite/invariants.rs

#[test]
fn kalah_game_ended_by_opening_turn_equals_its_setup() {
    // With the pie rule, player 0's opening turn ends the game (one pit, one
    // seed: into the store, and the row is empty). The finished state must
    // be the same position as the finished setup: no swap still pending.
    let k = kalah("kalah:pits=1,seeds=1,pie=true");
    let s = check(&k, "1/1/0,0/0s", &[Pit(0)], "0/0/1,1/-");
    let fresh = at(&k, "0/0/1,1/-");
    assert_eq!(s, fresh);
    assert_eq!(k.key(&s), k.key(&fresh));
}

#[test]
fn kalah_key_differs_for_different_positions() {
    // Pairs of valid positions whose keys once collided, because the player
    // to move and the swap flag were XORed into the first pits' bytes.
    let pie = kalah("kalah:pie=true");
    assert_ne!(
        pie.key(&at(&pie, "3,2,4,4,4,4/4,4,4,4,4,4/0,3/0")),
        pie.key(&at(&pie, "2,3,4,4,4,4/4,4,4,4,4,4/0,3/1s"))
    );
    let k = kalah("kalah:pits=7,seeds=7,game_end=delayed,leftover=set_aside");
    assert_ne!(
        k.key(&at(&k, "2,0,0,0,0,0,0/0,0,0,0,0,0,0/30,66/0")),
        k.key(&at(&k, "0,0,0,0,0,0,0/0,0,0,0,0,0,0/30,66/-"))
    );
}

#[test]
fn oware_key_differs_for_different_positions() {
    // Right after a capture (P1 to move, one ply played) and a fresh setup
    // (P0 to move, none played) whose first two houses are exchanged: the
    // keys once collided, the player to move and the ply count being XORed
    // into the first houses' bytes.
    let o = OwareRules::default();
    let after_capture = check(
        &o,
        "2,3,4,4,4,1/1,4,4,4,4,4/0,9/0",
        &[Pit(5)],
        "2,3,4,4,4,0/0,4,4,4,4,4/2,9/1",
    );
    let fresh = at(&o, "3,2,4,4,4,0/0,4,4,4,4,4/2,9/0");
    assert_ne!(o.key(&after_capture), o.key(&fresh));
}
