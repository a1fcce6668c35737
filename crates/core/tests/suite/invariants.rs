//! Invariants over random games of every variant: Kalah, Oware and Congkak
//! (single and multi-round) with 1 to 8 pits, 1 to 10 seeds and every
//! combination of options. Proptest draws the rules and a seed; the seed
//! drives the random moves of the game.

use std::collections::HashMap;

use mancala_core::{
    ByPlayer, Game, GameSpec, KalahRules, Leftover, Move, Player, Round, Setup, MAX_PITS,
};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// No Kalah game should come anywhere near this many moves.
const KALAH_PLY_LIMIT: usize = 10_000;

fn kalah_spec() -> impl Strategy<Value = String> {
    (
        1usize..=8,
        1usize..=10,
        any::<bool>(),
        prop_oneof![Just("immediate"), Just("delayed")],
        prop_oneof![Just("owner"), Just("set_aside")],
        any::<bool>(),
    )
        .prop_map(|(pits, seeds, empty_capture, end, leftover, pie)| {
            format!(
                "kalah:pits={pits},seeds={seeds},empty_capture={empty_capture},\
                 game_end={end},leftover={leftover},pie={pie}"
            )
        })
}

fn oware_spec() -> impl Strategy<Value = String> {
    (
        1usize..=8,
        1usize..=10,
        prop_oneof![Just("no_capture"), Just("illegal"), Just("capture_all")],
        prop_oneof![1u32..=40, Just(1000u32)],
    )
        .prop_map(|(pits, seeds, slam, max_plies)| {
            format!("oware:pits={pits},seeds={seeds},grand_slam={slam},max_plies={max_plies}")
        })
}

fn congkak_spec() -> impl Strategy<Value = String> {
    (
        1usize..=8,
        1usize..=10,
        any::<bool>(),
        prop_oneof![Just("immediate"), Just("delayed")],
        prop_oneof![
            Just(String::new()),
            (1u32..=12).prop_map(|m| format!(",rounds=many,max_rounds={m}")),
        ],
    )
        .prop_map(|(pits, seeds, empty_capture, end, rounds)| {
            format!(
                "congkak:pits={pits},seeds={seeds},empty_capture={empty_capture},\
                 game_end={end}{rounds}"
            )
        })
}

fn any_spec() -> impl Strategy<Value = GameSpec> {
    prop_oneof![kalah_spec(), oware_spec(), congkak_spec()]
        .prop_map(|s| s.parse::<GameSpec>().unwrap())
}

fn kalah_rules() -> impl Strategy<Value = KalahRules> {
    kalah_spec().prop_map(|s| match s.parse::<GameSpec>().unwrap() {
        GameSpec::Kalah(rules) => rules,
        _ => unreachable!(),
    })
}

/// Plays a random game from the start; calls `visit(state, move)` before each
/// move and `visit(final_state, None)` at the end. Returns the moves played.
fn random_game<G: Game>(
    game: &G,
    seed: u64,
    mut visit: impl FnMut(&G::State, Option<Move>),
) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = game.start();
    let mut plies = 0;
    loop {
        let legal = game.legal_moves(&state);
        if legal.is_empty() {
            visit(&state, None);
            return plies;
        }
        let mv = legal.nth(rng.random_range(0..legal.len()));
        visit(&state, Some(mv));
        game.try_play(&mut state, mv)
            .unwrap_or_else(|e| panic!("{game:?}: {e}"));
        plies += 1;
        assert!(
            plies <= KALAH_PLY_LIMIT,
            "{game:?}: no end after {plies} moves"
        );
    }
}

fn board_total(setup: &Setup) -> usize {
    setup.total_seeds()
}

/// The same position seen from the other side: rows, stores and burnt
/// holes exchanged, the other player to move (and to have begun the round).
fn mirror(setup: &Setup) -> Setup {
    Setup {
        rows: setup.rows.clone().swapped(),
        stores: setup.stores.swapped(),
        to_move: setup.to_move.map(Player::opponent),
        swap_available: false,
        burnt: setup.burnt.swapped(),
        round: setup.round.map(|r| Round {
            first: r.first.opponent(),
            ..r
        }),
    }
}

fn conserves_seeds<G: Game>(game: &G, set_aside: bool, seed: u64) {
    let total = game.total_seeds();
    random_game(game, seed, |state, mv| {
        let setup = game.setup(state);
        if mv.is_some() || !set_aside {
            assert_eq!(board_total(&setup), total, "{game:?}: {setup}");
        } else {
            // Kalah with leftovers set aside: only the stores are left.
            assert!(board_total(&setup) <= total, "{game:?}: {setup}");
        }
        let out = game.outcome(state);
        if let Some(out) = out {
            let scored =
                usize::from(out.scores[Player::ZERO]) + usize::from(out.scores[Player::ONE]);
            assert!(scored <= total);
            if !set_aside {
                assert_eq!(scored, total, "{game:?}: {setup}");
            }
            assert!(setup.rows.0.iter().flatten().all(|&s| s == 0), "{setup}");
            assert_eq!(out.scores, setup.stores);
        }
    });
}

fn over_exactly_without_moves<G: Game>(game: &G, seed: u64) {
    random_game(game, seed, |state, mv| {
        let legal = game.legal_moves(state);
        let over = game.to_move(state).is_none();
        assert_eq!(legal.is_empty(), over, "{game:?}: {state:?}");
        assert_eq!(game.is_over(state), over);
        assert_eq!(game.outcome(state).is_some(), over, "{game:?}: {state:?}");
        assert_eq!(mv.is_none(), over);
        if let Some(mv) = mv {
            assert!(legal.contains(mv));
        }
        // Every legal move can be played; no other can.
        let tries = (0..=game.pits() as u8).map(Move::Pit).chain([Move::Swap]);
        for m in tries {
            let mut copy = state.clone();
            let ok = game.try_play(&mut copy, m).is_ok();
            assert_eq!(ok, legal.contains(m), "{game:?}: {m} at {state:?}");
            if !ok {
                assert_eq!(&copy, state, "a refused move leaves the state alone");
            }
        }
    });
}

fn round_trips<G: Game>(game: &G, exact_state: bool, seed: u64) {
    random_game(game, seed, |state, _| {
        let setup = game.setup(state);
        let text = setup.to_string();
        let parsed: Setup = text.parse().unwrap();
        assert_eq!(parsed, setup, "parse(print(p)) for {text}");
        assert_eq!(parsed.to_string(), text);
        let back = game
            .from_setup(&setup)
            .unwrap_or_else(|e| panic!("{game:?}: {text}: {e}"));
        assert_eq!(game.setup(&back), setup, "{text}");
        assert_eq!(game.legal_moves(&back), game.legal_moves(state), "{text}");
        assert_eq!(game.to_move(&back), game.to_move(state), "{text}");
        assert_eq!(
            game.outcome(&back).map(|o| o.scores),
            game.outcome(state).map(|o| o.scores)
        );
        if exact_state {
            assert_eq!(&back, state, "{text}");
            assert_eq!(game.key(&back), game.key(state), "{text}");
        }
    });
}

fn keys_follow_positions<G: Game>(game: &G, by_setup: bool, seed: u64) {
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut keys: HashMap<u64, String> = HashMap::new();
    random_game(game, seed, |state, _| {
        let text = game.setup(state).to_string();
        let key = game.key(state);
        assert_eq!(game.key(&state.clone()), key);
        let fresh = |t: &str| game.from_setup(&t.parse().unwrap()).unwrap();
        assert_eq!(game.key(&fresh(&text)), game.key(&fresh(&text)));
        if by_setup {
            // Kalah: the setup is the whole state.
            assert_eq!(*seen.entry(text.clone()).or_insert(key), key, "{text}");
        }
        // Different positions, different keys (a collision here would be
        // a 1 in 2^50 accident).
        let first = keys.entry(key).or_insert_with(|| text.clone());
        assert!(
            !by_setup || *first == text,
            "{first} and {text} have one key"
        );
    });
}

fn mirror_symmetric<G: Game>(game: &G, seed: u64) {
    let mut out = vec![0.0; game.observation_len()];
    let mut mirrored_out = vec![0.0; game.observation_len()];
    random_game(game, seed, |state, _| {
        let setup = game.setup(state);
        if setup.swap_available || setup.to_move.is_none() {
            return;
        }
        // Fresh positions on both sides (no Oware history on either).
        let here = game.from_setup(&setup).unwrap();
        let there = game
            .from_setup(&mirror(&setup))
            .unwrap_or_else(|e| panic!("mirror of {setup}: {e}"));
        assert_eq!(game.legal_moves(&here), game.legal_moves(&there), "{setup}");
        game.observe(&here, &mut out);
        game.observe(&there, &mut mirrored_out);
        assert_eq!(out, mirrored_out, "observation of {setup} and its mirror");
        for mv in game.legal_moves(&here) {
            let (mut a, mut b) = (here.clone(), there.clone());
            game.play_unchecked(&mut a, mv);
            game.play_unchecked(&mut b, mv);
            assert_eq!(
                mirror(&game.setup(&a)),
                game.setup(&b),
                "{setup}, move {mv}"
            );
            let (oa, ob) = (game.outcome(&a), game.outcome(&b));
            assert_eq!(oa.map(|o| o.scores.swapped()), ob.map(|o| o.scores));
            assert_eq!(oa.map(|o| o.reason), ob.map(|o| o.reason));
        }
    });
}

fn observation_is_well_formed<G: Game>(game: &G, seed: u64) {
    let mut out = vec![f32::NAN; game.observation_len()];
    let n = game.pits();
    let scale = 1.0 / game.total_seeds() as f32;
    random_game(game, seed, |state, _| {
        game.observe(state, &mut out);
        let setup = game.setup(state);
        let me = game.to_move(state).unwrap_or(Player::ZERO);
        let them = me.opponent();
        let expect = |v: u8| f32::from(v) * scale;
        for i in 0..n {
            assert!((out[i] - expect(setup.rows[me][i])).abs() < 1e-6);
            assert!((out[n + i] - expect(setup.rows[them][i])).abs() < 1e-6);
        }
        assert!((out[2 * n] - expect(setup.stores[me])).abs() < 1e-6);
        assert!((out[2 * n + 1] - expect(setup.stores[them])).abs() < 1e-6);
        assert!((0.0..=1.0).contains(&out[2 * n + 2]));
        // Multi-round Congkak: then one input per hole, 1 where burnt.
        if game.observation_len() > 2 * n + 3 {
            assert_eq!(game.observation_len(), 4 * n + 3);
            let burnt = |p: Player, i: usize| f32::from(u8::from(setup.burnt[p] >> i & 1 == 1));
            for i in 0..n {
                assert_eq!(out[2 * n + 3 + i], burnt(me, i));
                assert_eq!(out[3 * n + 3 + i], burnt(them, i));
            }
        }
    });
}

fn scores_of(setup: &Setup) -> ByPlayer<u8> {
    setup.stores
}

proptest! {
    // Failures are not saved to a file: the cases found so far are tests in
    // tests/suite/rules.rs (`kalah_game_ended_by_opening_turn_equals_its_setup`,
    // `kalah_key_differs_for_different_positions`).
    #![proptest_config(crate::cases::config())]

    #[test]
    fn seeds_conserved_at_every_step(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => conserves_seeds(&g, g.leftover == Leftover::SetAside, seed),
            GameSpec::Oware(g) => conserves_seeds(&g, false, seed),
            GameSpec::Congkak(g) => conserves_seeds(&g, false, seed),
        }
    }

    #[test]
    fn no_legal_move_exactly_when_game_over(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => over_exactly_without_moves(&g, seed),
            GameSpec::Oware(g) => over_exactly_without_moves(&g, seed),
            GameSpec::Congkak(g) => over_exactly_without_moves(&g, seed),
        }
    }

    #[test]
    fn setup_and_notation_round_trip(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => round_trips(&g, true, seed),
            // An Oware state also holds its history, which a setup has not.
            GameSpec::Oware(g) => round_trips(&g, false, seed),
            GameSpec::Congkak(g) => round_trips(&g, true, seed),
        }
    }

    #[test]
    fn keys_equal_for_equal_positions(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => keys_follow_positions(&g, true, seed),
            GameSpec::Oware(g) => keys_follow_positions(&g, false, seed),
            GameSpec::Congkak(g) => keys_follow_positions(&g, true, seed),
        }
    }

    #[test]
    fn mirrored_position_plays_mirrored(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => mirror_symmetric(&g, seed),
            GameSpec::Oware(g) => mirror_symmetric(&g, seed),
            GameSpec::Congkak(g) => mirror_symmetric(&g, seed),
        }
    }

    #[test]
    fn kalah_mirror_symmetry_of_played_states(rules in kalah_rules(), seed in any::<u64>()) {
        // The state reached in play (not a fresh setup) against its mirror.
        random_game(&rules, seed, |state, _| {
            let setup = rules.setup(state);
            if setup.swap_available || setup.to_move.is_none() {
                return;
            }
            let there = rules.from_setup(&mirror(&setup)).unwrap();
            for mv in rules.legal_moves(state) {
                let (mut a, mut b) = (*state, there);
                rules.play_unchecked(&mut a, mv);
                rules.play_unchecked(&mut b, mv);
                assert_eq!(mirror(&rules.setup(&a)), rules.setup(&b), "{setup}, move {mv}");
            }
        });
    }

    #[test]
    fn kalah_store_gain_is_what_playing_gains(rules in kalah_rules(), seed in any::<u64>()) {
        random_game(&rules, seed, |state, _| {
            check_store_gains(&rules, state);
        });
    }

    #[test]
    fn observation_matches_setup(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => observation_is_well_formed(&g, seed),
            GameSpec::Oware(g) => observation_is_well_formed(&g, seed),
            GameSpec::Congkak(g) => observation_is_well_formed(&g, seed),
        }
    }

    #[test]
    fn every_game_ends(spec in any_spec(), seed in any::<u64>()) {
        match spec {
            GameSpec::Kalah(g) => {
                let plies = random_game(&g, seed, |_, _| {});
                prop_assert!(plies as u64 <= g.max_game_length());
            }
            GameSpec::Oware(g) => {
                let mut last = None;
                let plies = random_game(&g, seed, |s, mv| {
                    if mv.is_none() {
                        last = Some(s.clone());
                    }
                });
                prop_assert!(plies <= g.max_plies as usize, "{} > {}", plies, g.max_plies);
                let last = last.unwrap();
                prop_assert_eq!(last.plies() as usize, plies);
                let out = g.outcome(&last).unwrap();
                prop_assert_eq!(out.scores, scores_of(&g.setup(&last)));
            }
            GameSpec::Congkak(g) => {
                // Every move sows within the lap bound, and the game ends
                // within its rounds.
                let mut rng = SmallRng::seed_from_u64(seed);
                let mut state = g.start();
                let mut plies = 0;
                while !g.is_over(&state) {
                    let legal = g.legal_moves(&state);
                    let bound = g.sowing_bound(&state);
                    let sowing = g.play_measured(&mut state, legal.nth(rng.random_range(0..legal.len())));
                    prop_assert!(sowing.sown <= bound, "{} > {}", sowing.sown, bound);
                    plies += 1;
                    prop_assert!(plies <= g.max_game_length());
                }
                prop_assert!(g.round(&state) <= g.max_rounds());
            }
        }
    }
}

/// The most moves any game from `state` can still last: the longest path
/// of the game's tree, each position's length remembered.
fn longest_game<G: Game>(game: &G, state: &G::State, memo: &mut HashMap<G::State, u64>) -> u64 {
    if let Some(&n) = memo.get(state) {
        return n;
    }
    let mut most = 0;
    for mv in game.legal_moves(state) {
        let mut child = state.clone();
        game.play_unchecked(&mut child, mv);
        most = most.max(1 + longest_game(game, &child, memo));
    }
    memo.insert(state.clone(), most);
    most
}

#[test]
fn every_game_ends_within_its_max_game_length() {
    // The longest game of each small board, by visiting its whole tree,
    // against the bound of docs/RULES.md; and the bounds of the standard
    // boards that the rules document gives.
    for text in [
        "kalah:pits=2,seeds=2",
        "kalah:pits=3,seeds=2,pie=true",
        "kalah:pits=3,seeds=2,game_end=delayed,empty_capture=true",
        "kalah:pits=4,seeds=1,game_end=delayed",
        "congkak:pits=2,seeds=2",
        "congkak:pits=3,seeds=1,empty_capture=true",
        "congkak:pits=2,seeds=1,rounds=many,max_rounds=3",
        "oware:pits=2,seeds=2,max_plies=30",
    ] {
        let spec: GameSpec = text.parse().unwrap();
        mancala_core::with_game!(&spec, game => {
            let longest = longest_game(game, &game.start(), &mut HashMap::new());
            let bound = game.max_game_length();
            assert!(longest <= bound, "{text}: a game of {longest} moves, bound {bound}");
            assert!(longest > 0, "{text}");
        });
    }
    let bound = |text: &str| {
        let spec: GameSpec = text.parse().unwrap();
        mancala_core::with_game!(&spec, game => game.max_game_length())
    };
    assert_eq!(bound("kalah"), 11_808);
    assert_eq!(bound("kalah:pie=true"), 11_809);
    assert_eq!(bound("congkak"), 58_310);
    assert_eq!(bound("congkak:rounds=many"), 20 * 58_310);
    assert_eq!(bound("oware:max_plies=300"), 300);
}

#[test]
fn random_playout_ends_every_variant() {
    let mut rng = SmallRng::seed_from_u64(7);
    for text in [
        "kalah",
        "kalah:pits=1,seeds=1,pie=true",
        "kalah:pits=15,seeds=8,game_end=delayed,leftover=set_aside",
        "oware",
        "oware:pits=1,seeds=1",
        "oware:pits=15,seeds=8,grand_slam=illegal,max_plies=2000",
        "congkak",
        "congkak:pits=1,seeds=1,rounds=many",
        "congkak:pits=15,seeds=8,game_end=immediate,empty_capture=true,rounds=many",
    ] {
        let spec: GameSpec = text.parse().unwrap();
        for _ in 0..50 {
            mancala_core::with_game!(&spec, game => {
                let mut state = game.start();
                let out = mancala_core::random_playout(game, &mut state, &mut rng);
                assert!(game.is_over(&state), "{text}");
                assert_eq!(Some(out), game.outcome(&state));
            });
        }
    }
}

/// Checks [`Game::store_gain`] on every legal move of `state` against
/// playing it: where it answers, the move ends the turn, the game goes on
/// and the mover's store grows by the answer; and [`Game::store_gains`]
/// against it, move by move. Returns the moves it answered and the moves.
fn check_store_gains<G: Game>(game: &G, state: &G::State) -> (usize, usize) {
    let (mut answered, mut moves) = (0, 0);
    let Some(mover) = game.to_move(state) else {
        return (0, 0);
    };
    let mut gains = [i32::MIN; MAX_PITS + 1];
    let told = game.store_gains(state, &mut gains);
    let setup = game.setup(state);
    let legal = game.legal_moves(state);
    assert_eq!(
        told.bits() & !legal.bits(),
        0,
        "{setup}: told {told:?} of {legal:?}"
    );
    for mv in legal {
        moves += 1;
        let one = game.store_gain(state, mv);
        let all = told
            .contains(mv)
            .then(|| gains[mv.action_index(game.pits())]);
        assert_eq!(all, one, "{setup}, move {mv}: all at once and one by one");
        let Some(gain) = one else {
            continue;
        };
        answered += 1;
        let mut next = state.clone();
        game.play_unchecked(&mut next, mv);
        assert_eq!(
            game.to_move(&next),
            Some(mover.opponent()),
            "{setup}, move {mv}"
        );
        let grown = i32::from(game.scores(&next)[mover]) - i32::from(game.scores(state)[mover]);
        assert_eq!(gain, grown, "{setup}, move {mv}");
    }
    (answered, moves)
}

#[test]
fn kalah_store_gain_answers_most_moves_of_real_games() {
    // Standard play, laps (20 seeds a pit go round a 6-pit board) and
    // captures of empty pits.
    for spec in [
        "kalah",
        "kalah:pits=6,seeds=20",
        "kalah:pits=4,seeds=3,empty_capture=true,pie=true",
        // Wider than the 7 pits whose gains are weighed a register at once.
        "kalah:pits=9,seeds=5,empty_capture=true",
    ] {
        let GameSpec::Kalah(rules) = spec.parse::<GameSpec>().unwrap() else {
            unreachable!()
        };
        let (mut answered, mut moves) = (0, 0);
        for seed in 0..200 {
            random_game(&rules, seed, |state, _| {
                let (a, m) = check_store_gains(&rules, state);
                answered += a;
                moves += m;
            });
        }
        assert!(
            answered * 2 > moves,
            "{spec}: {answered} of {moves} moves answered"
        );
    }
}

#[test]
fn kalah_store_gains_agree_on_positions_with_pits_of_over_127_seeds() {
    // A pit may hold up to 255 seeds; random games seldom pile 128 in one,
    // where a byte read as signed turns negative. Positions of 1 to 9
    // pits, either player to move, one pit of 128 to 200 seeds and the
    // rest of up to 255 scattered, with and without empty captures.
    let mut rng = SmallRng::seed_from_u64(128);
    let mut big_pits_told = 0;
    for n in 1..=9usize {
        for empty_capture in [false, true] {
            let spec = format!("kalah:pits={n},seeds=4,empty_capture={empty_capture}");
            let GameSpec::Kalah(rules) = spec.parse::<GameSpec>().unwrap() else {
                unreachable!()
            };
            for _ in 0..300 {
                let mut rows = [vec![0u8; n], vec![0u8; n]];
                let big = rng.random_range(128..=200u8);
                let mut left = 255 - usize::from(big);
                rows[rng.random_range(0..2)][rng.random_range(0..n)] = big;
                for _ in 0..rng.random_range(0..4 * n) {
                    let (r, i) = (rng.random_range(0..2), rng.random_range(0..n));
                    let k = rng.random_range(0..=left.min(20).min(usize::from(255 - rows[r][i])));
                    rows[r][i] += k as u8;
                    left -= k;
                }
                let mover = Player::new(rng.random_range(0..2));
                let state = rules.position_unchecked([&rows[0], &rows[1]], [0, 0], mover);
                let (told, _) = check_store_gains(&rules, &state);
                let big_row = rows[mover.index()].iter().any(|&s| s >= 128);
                big_pits_told += usize::from(big_row && told > 0);
            }
        }
    }
    // The positions asked about: moves told beside a big pit of the mover.
    assert!(big_pits_told > 100, "{big_pits_told}");
}
