//! Differential tests of the alpha-beta search (minimax-rs `tests/strategies.rs`
//! style): `Minimax::value`, with its transposition table, move ordering and
//! every other enhancement, must return exactly the value of a plain
//! full-width minimax written here, at fixed depths, on many positions reached
//! by seeded random play.
//!
//! The plain minimax follows the documented convention of the search: values
//! are for player 0 in quarter seeds (`SCALE = 4`), a node maximises when
//! player 0 is to move and minimises otherwise (whoever that is after the
//! move: no sign flips, so extra turns need no case), a finished game scores
//! its exact margin times 4, a position at depth 0 scores `Eval::evaluate`,
//! and depth counts turns: a move after which the same player is to move
//! (Kalah's extra turn) uses no depth while the turn so far has at most
//! [`TURN_WIDTH`] move sequences (the product of the numbers of legal moves
//! at its positions); past that such a move uses a depth and the count
//! starts again (the search's bound on extra-turn chains).
//!
//! Each configuration also counts what the searched lines went through
//! (extra turns, swaps, grand slams, ends of game by reason) and asserts that
//! the interesting cases really occur, so that the comparison covers them.
//! The agent's own choice (`choose` with a depth budget: iterative deepening,
//! root ordering, the table kept from move to move) is checked too: its move
//! must be a best move by the plain minimax, and its reported value the best
//! value.

use std::collections::{BTreeMap, BTreeSet};

use mancala_agents::minimax::TURN_WIDTH;
use mancala_agents::NetEval;
use mancala_agents::{Agent, Budget, Eval, Minimax, MinimaxOptions};
use mancala_core::{
    CongkakRules, EndReason, Game, GameSpec, GrandSlam, KalahRules, Move, OwareRules, Player,
};
use mancala_evalnet::{Inputs, ValueNet};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Quarter seeds per seed, as in `eval.rs`.
const SCALE: i32 = 4;

// ---------------------------------------------------------------------------
// The reference: plain minimax, no pruning, no table, no ordering.

/// What the searched lines of the reference went through.
#[derive(Debug, Default)]
struct Seen {
    /// Moves after which the same player was to move again.
    extra_turns: u64,
    /// Of those, the ones that used a depth: the turn was too wide.
    beyond_free: u64,
    /// Nodes where the pie rule's swap was legal.
    swap_offered: u64,
    /// Ends of the game reached inside the search, by reason.
    ends: BTreeMap<String, u64>,
}

impl Seen {
    fn ends_by(&self, reason: EndReason) -> u64 {
        self.ends.get(&reason.to_string()).copied().unwrap_or(0)
    }
}

/// The fixed-depth minimax value of `state` for player 0, in quarter seeds,
/// `state` being reached by `width` move sequences of the current turn.
fn plain_minimax<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    width: u32,
    eval: &Eval,
    seen: &mut Seen,
) -> i32 {
    let Some(mover) = game.to_move(state) else {
        let outcome = game.outcome(state).expect("no player to move: game over");
        *seen.ends.entry(outcome.reason.to_string()).or_default() += 1;
        return outcome.margin() * SCALE;
    };
    if depth == 0 {
        return eval.evaluate(game, state);
    }
    let legal = game.legal_moves(state);
    assert!(!legal.is_empty(), "a game not over has a legal move");
    if legal.contains(Move::Swap) {
        seen.swap_offered += 1;
    }
    let wider = width * legal.len() as u32;
    let values = legal.into_iter().map(|mv| {
        let mut next = state.clone();
        game.play_unchecked(&mut next, mv);
        // Depth counts turns: a move that keeps the turn uses none while
        // the turn is not too wide.
        let (cost, next_width) = if game.to_move(&next) == Some(mover) {
            seen.extra_turns += 1;
            if wider <= TURN_WIDTH {
                (0, wider)
            } else {
                seen.beyond_free += 1;
                (1, 1)
            }
        } else {
            (1, 1)
        };
        plain_minimax(game, &next, depth - cost, next_width, eval, seen)
    });
    if mover == Player::ZERO {
        values.max().unwrap()
    } else {
        values.min().unwrap()
    }
}

// ---------------------------------------------------------------------------
// Positions

/// `count` positions reached by seeded random play from the start, after
/// `plies` random moves each (drawn from the range; a game that ends sooner
/// gives its last position before the end, or the end itself now and then,
/// so that finished positions are compared too).
fn random_positions<G: Game>(
    game: &G,
    seed: u64,
    count: usize,
    plies: std::ops::Range<u32>,
) -> Vec<G::State> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let target = rng.random_range(plies.clone());
            let mut state = game.start();
            for _ in 0..target {
                let legal = game.legal_moves(&state);
                let mv = legal.nth(rng.random_range(0..legal.len()));
                let mut next = state.clone();
                game.play_unchecked(&mut next, mv);
                if game.is_over(&next) && rng.random_range(0..8) != 0 {
                    break;
                }
                state = next;
                if game.is_over(&state) {
                    break;
                }
            }
            state
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The comparison

/// Compares `Minimax::value` with the plain minimax on every position at
/// every depth, with several searchers:
/// - one kept across all positions and depths (table never cleared), asked
///   the depths in increasing order on even positions and decreasing order
///   on odd ones, so that deeper and shallower entries of the same positions
///   are in the table when a position is searched;
/// - one with the smallest table (`tt_mib = 0`, 1024 slots), also kept, so
///   that slots are shared by many positions and replaced all the time;
/// - a fresh one per position (every fifth position, to keep it fast).
fn compare<G: Game>(
    label: &str,
    game: &G,
    positions: &[G::State],
    depths: std::ops::RangeInclusive<u32>,
    eval: &Eval,
) -> Seen {
    let options = |tt_mib| MinimaxOptions {
        margin: None,
        budget: Budget::Depth(1),
        eval: eval.clone(),
        tt_mib,
    };
    let mut kept = Minimax::<G>::new(options(1));
    let mut tiny = Minimax::<G>::new(options(0));
    kept.new_game(1);
    tiny.new_game(2);
    let mut seen = Seen::default();
    for (i, state) in positions.iter().enumerate() {
        let mut order: Vec<u32> = depths.clone().collect();
        if i % 2 == 1 {
            order.reverse();
        }
        let mut fresh = (i % 5 == 0).then(|| Minimax::<G>::new(options(0)));
        for depth in order {
            let expected = plain_minimax(game, state, depth, 1, eval, &mut seen);
            let where_ = || {
                format!(
                    "{label}, eval={eval}, position #{i} {} (to move {:?}), depth {depth}",
                    game.setup(state),
                    game.to_move(state),
                )
            };
            assert_eq!(
                kept.value(game, state, depth),
                expected,
                "searcher kept across positions: {}",
                where_()
            );
            assert_eq!(
                tiny.value(game, state, depth),
                expected,
                "searcher with the smallest table: {}",
                where_()
            );
            if let Some(f) = fresh.as_mut() {
                assert_eq!(
                    f.value(game, state, depth),
                    expected,
                    "fresh searcher: {}",
                    where_()
                );
            }
        }
    }
    seen
}

/// Checks the agent's move choice at a fixed depth: the chosen move must be
/// one of the best moves by the plain minimax, and the reported value must be
/// that best value from the mover's side.
fn check_choices<G: Game>(label: &str, game: &G, positions: &[G::State], depth: u32, eval: &Eval) {
    let mut agent = Minimax::<G>::new(MinimaxOptions {
        budget: Budget::Depth(depth),
        eval: eval.clone(),
        tt_mib: 1,
        margin: None,
    });
    agent.new_game(9);
    let mut seen = Seen::default();
    let mut checked = 0;
    for (i, state) in positions.iter().enumerate() {
        let Some(mover) = game.to_move(state) else {
            continue;
        };
        if game.legal_moves(state).len() < 2 {
            continue;
        }
        let best = plain_minimax(game, state, depth, 1, eval, &mut seen);
        let mv = agent.choose(game, state).expect("a move");
        let mut next = state.clone();
        game.try_play(&mut next, mv).expect("a legal move");
        // The root's moves are always free when they keep the turn: a turn
        // of one position is never too wide.
        let keeps_turn = game.to_move(&next) == Some(mover);
        let width = if keeps_turn {
            game.legal_moves(state).len() as u32
        } else {
            1
        };
        let got = plain_minimax(
            game,
            &next,
            depth - u32::from(!keeps_turn),
            width,
            eval,
            &mut seen,
        );
        let where_ = format!("{label}, eval={eval}, position #{i} {}", game.setup(state));
        assert_eq!(
            got, best,
            "move {mv} is not a best move at depth {depth}: {where_}"
        );
        let for_mover = if mover == Player::ZERO { best } else { -best };
        let info = agent.info();
        assert_eq!(
            info.value,
            Some(f64::from(for_mover) / f64::from(SCALE)),
            "reported value: {where_}"
        );
        checked += 1;
    }
    assert!(
        checked >= positions.len() / 3,
        "{label}: only {checked} positions of {} checked",
        positions.len()
    );
}

/// The plain minimax value, for player 0, of playing `mv` in `state` and
/// searching on to `depth` turns in all.
fn move_value<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    depth: u32,
    eval: &Eval,
    seen: &mut Seen,
) -> i32 {
    let mover = game.to_move(state);
    let mut next = state.clone();
    game.try_play(&mut next, mv).expect("a legal move");
    let keeps_turn = game.to_move(&next) == mover;
    let width = if keeps_turn {
        game.legal_moves(state).len() as u32
    } else {
        1
    };
    plain_minimax(
        game,
        &next,
        depth - u32::from(!keeps_turn),
        width,
        eval,
        seen,
    )
}

/// With a margin, every move the agent plays is within the margin of the
/// best by plain minimax, and over many seeds every such move is played.
fn check_margin<G: Game>(label: &str, game: &G, positions: &[G::State], depth: u32, margin: u32) {
    let eval = Eval::Store;
    let mut seen = Seen::default();
    let mut agent = Minimax::<G>::new(MinimaxOptions {
        budget: Budget::Depth(depth),
        eval: eval.clone(),
        tt_mib: 1,
        margin: Some(margin),
    });
    let mut varied = 0;
    for (i, state) in positions.iter().enumerate() {
        let Some(mover) = game.to_move(state) else {
            continue;
        };
        let moves = game.legal_moves(state);
        if moves.len() < 2 {
            continue;
        }
        let sign = if mover == Player::ZERO { 1 } else { -1 };
        let values: Vec<(Move, i32)> = moves
            .into_iter()
            .map(|mv| {
                (
                    mv,
                    sign * move_value(game, state, mv, depth, &eval, &mut seen),
                )
            })
            .collect();
        let best = values.iter().map(|(_, v)| *v).max().unwrap();
        let within: BTreeSet<Move> = values
            .iter()
            .filter(|(_, v)| *v >= best - margin as i32)
            .map(|(m, _)| *m)
            .collect();
        let mut played = BTreeSet::new();
        for seed in 0..40 {
            agent.new_game(seed);
            played.insert(agent.choose(game, state).expect("a move"));
        }
        let where_ = format!(
            "{label}, margin {margin}, position #{i} {}",
            game.setup(state)
        );
        assert_eq!(
            played, within,
            "moves played against moves within the margin: {where_}"
        );
        varied += usize::from(within.len() > 1);
    }
    assert!(
        varied >= positions.len() / 10,
        "{label}: {varied} positions with a choice"
    );
}

#[test]
fn a_margin_draws_among_the_moves_within_it() {
    let game = kalah("kalah:pits=4,seeds=3");
    let positions = random_positions(&game, 5, 60, 0..20);
    for margin in [0, 4, 8] {
        check_margin("kalah 4x3", &game, &positions, 3, margin);
    }
}

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

// ---------------------------------------------------------------------------
// Kalah

#[test]
fn kalah_default_matches_plain_minimax() {
    let game = kalah("kalah");
    let positions = random_positions(&game, 11, 240, 0..60);
    let mut extra = 0;
    for eval in Eval::ALL {
        let seen = compare("kalah", &game, &positions, 1..=5, &eval);
        extra += seen.extra_turns;
        assert!(seen.ends_by(EndReason::EmptyRow) > 0, "{seen:?}");
    }
    assert!(
        extra > 1000,
        "extra turns inside the searched lines: {extra}"
    );
    // A few positions one ply deeper.
    compare("kalah", &game, &positions[..40], 6..=6, &Eval::Material);
}

/// A value network of seeded random weights as the evaluation: the search
/// with it is still exactly fixed-depth minimax, and an agent's moves and
/// values at a fixed depth depend only on its seed.
#[test]
fn kalah_with_a_value_network_matches_plain_minimax_and_is_deterministic() {
    let game = kalah("kalah");
    let net = ValueNet::seeded(Inputs::for_game(&game, 16), &[32, 16], 5).unwrap();
    let eval = Eval::Net(NetEval::new("random.safetensors", Arc::new(net)));
    let positions = random_positions(&game, 13, 120, 0..60);
    let seen = compare("kalah eval=net", &game, &positions, 1..=4, &eval);
    assert!(seen.extra_turns > 100, "{seen:?}");
    check_choices("kalah eval=net", &game, &positions, 4, &eval);

    let play = |seed| {
        let mut agent = Minimax::<KalahRules>::new(MinimaxOptions {
            budget: Budget::Depth(5),
            eval: eval.clone(),
            tt_mib: 1,
            margin: Some(0),
        });
        agent.new_game(seed);
        positions[..30]
            .iter()
            .filter(|s| !game.is_over(s))
            .map(|s| {
                let mv = agent.choose(&game, s).unwrap();
                (mv, agent.info().value)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(play(3), play(3));
}

#[test]
fn kalah_empty_capture_matches_plain_minimax() {
    let game = kalah("kalah:empty_capture=true");
    let positions = random_positions(&game, 12, 200, 0..60);
    for eval in Eval::ALL {
        let seen = compare("kalah empty_capture", &game, &positions, 1..=5, &eval);
        assert!(seen.extra_turns > 500, "{seen:?}");
    }
}

#[test]
fn kalah_delayed_end_matches_plain_minimax() {
    let game = kalah("kalah:game_end=delayed");
    let positions = random_positions(&game, 13, 200, 10..80);
    for eval in Eval::ALL {
        let seen = compare("kalah game_end=delayed", &game, &positions, 1..=5, &eval);
        assert!(seen.extra_turns > 500, "{seen:?}");
        assert!(seen.ends_by(EndReason::EmptyRow) > 0, "{seen:?}");
    }
}

#[test]
fn kalah_set_aside_matches_plain_minimax() {
    let game = kalah("kalah:pits=4,seeds=3,leftover=set_aside");
    let positions = random_positions(&game, 14, 150, 0..30);
    for eval in Eval::ALL {
        let seen = compare("kalah set_aside", &game, &positions, 1..=6, &eval);
        assert!(seen.ends_by(EndReason::EmptyRow) > 100, "{seen:?}");
    }
}

#[test]
fn kalah_pie_matches_plain_minimax() {
    let game = kalah("kalah:pie=true");
    // Many positions from the opening (where the swap is ahead in the
    // searched lines or legal now) and some from later on.
    let mut positions = random_positions(&game, 15, 100, 0..4);
    positions.extend(random_positions(&game, 16, 60, 4..50));
    let swap_now = positions
        .iter()
        .filter(|s| game.legal_moves(s).contains(Move::Swap))
        .count();
    assert!(
        swap_now >= 20,
        "positions where the swap is legal: {swap_now}"
    );
    for eval in Eval::ALL {
        let seen = compare("kalah pie", &game, &positions, 1..=5, &eval);
        assert!(seen.swap_offered > 1000, "{seen:?}");
        assert!(seen.extra_turns > 500, "{seen:?}");
    }
    check_choices("kalah pie", &game, &positions, 4, &Eval::Material);
}

#[test]
fn small_kalah_boards_match_plain_minimax_to_the_end() {
    for (k, spec) in [
        "kalah:pits=3,seeds=2",
        "kalah:pits=3,seeds=3,empty_capture=true",
        "kalah:pits=4,seeds=3",
        "kalah:pits=4,seeds=2,game_end=delayed,pie=true",
    ]
    .into_iter()
    .enumerate()
    {
        let game = kalah(spec);
        let positions = random_positions(&game, 20 + k as u64, 100, 0..20);
        for eval in Eval::ALL {
            let seen = compare(spec, &game, &positions, 1..=6, &eval);
            assert!(seen.ends_by(EndReason::EmptyRow) > 200, "{spec}: {seen:?}");
            assert!(seen.extra_turns > 100, "{spec}: {seen:?}");
        }
        check_choices(spec, &game, &positions, 5, &Eval::Store);
    }
}

#[test]
fn kalah_choices_are_best_moves() {
    let game = kalah("kalah");
    let positions = random_positions(&game, 30, 120, 0..50);
    check_choices("kalah", &game, &positions, 4, &Eval::Material);
    check_choices("kalah", &game, &positions, 3, &Eval::Store);
}

// ---------------------------------------------------------------------------
// Oware

#[test]
fn oware_default_matches_plain_minimax() {
    let game = oware("oware");
    let positions = random_positions(&game, 40, 200, 0..120);
    for eval in Eval::ALL {
        compare("oware", &game, &positions, 1..=5, &eval);
    }
    check_choices("oware", &game, &positions, 4, &Eval::Material);
}

#[test]
fn oware_grand_slam_variants_match_plain_minimax() {
    for (k, spec) in [
        "oware:grand_slam=illegal",
        "oware:grand_slam=capture_all",
        "oware:pits=4,seeds=2,grand_slam=capture_all",
        "oware:pits=4,seeds=2,grand_slam=illegal",
        "oware:pits=3,seeds=2",
    ]
    .into_iter()
    .enumerate()
    {
        let game = oware(spec);
        let plies = if spec.contains("pits=") {
            0..40
        } else {
            30..150
        };
        let positions = random_positions(&game, 50 + k as u64, 120, plies);
        let mut ends = 0;
        for eval in Eval::ALL {
            let seen = compare(spec, &game, &positions, 1..=5, &eval);
            ends += seen.ends.values().sum::<u64>();
        }
        let slams: usize = positions
            .iter()
            .map(|s| grand_slams_within(&game, s, 3))
            .sum();
        assert!(slams >= 3, "{spec}: {slams} grand slams within three plies");
        if spec.contains("pits=") {
            assert!(ends > 100, "{spec}: {ends} ends of game");
        }
    }
}

/// Moves within `depth` plies of `state` that would capture all the
/// opponent's seeds (a grand slam), found by playing each move under
/// `grand_slam=capture_all` and `grand_slam=no_capture` from the same board:
/// a grand slam is exactly a move after which the two disagree.
fn grand_slams_within(game: &OwareRules, state: &<OwareRules as Game>::State, depth: u32) -> usize {
    if depth == 0 || game.is_over(state) {
        return 0;
    }
    let setup = game.setup(state);
    let twin = |grand_slam| {
        let mut rules = *game;
        rules.grand_slam = grand_slam;
        let s = rules.from_setup(&setup).expect("the same board");
        (rules, s)
    };
    let (all, all_state) = twin(GrandSlam::CaptureAll);
    let (none, none_state) = twin(GrandSlam::NoCapture);
    let mut found = 0;
    for mv in all.legal_moves(&all_state) {
        let (mut a, mut b) = (all_state.clone(), none_state.clone());
        all.play_unchecked(&mut a, mv);
        none.play_unchecked(&mut b, mv);
        if all.scores(&a) != none.scores(&b) {
            found += 1;
        }
    }
    for mv in game.legal_moves(state) {
        let mut next = state.clone();
        game.play_unchecked(&mut next, mv);
        found += grand_slams_within(game, &next, depth - 1);
    }
    found
}

#[test]
fn oware_max_plies_inside_the_search_matches_plain_minimax() {
    // The game ends at ply 30: positions from ply 24 on end within the search.
    let game = oware("oware:max_plies=30");
    let positions = random_positions(&game, 60, 150, 20..30);
    for eval in Eval::ALL {
        let seen = compare("oware max_plies=30", &game, &positions, 1..=6, &eval);
        assert!(seen.ends_by(EndReason::MaxPlies) > 1000, "{seen:?}");
    }
    let game = oware("oware:pits=4,seeds=3,max_plies=16");
    let positions = random_positions(&game, 61, 150, 8..16);
    let seen = compare(
        "oware small max_plies=16",
        &game,
        &positions,
        1..=6,
        &Eval::Store,
    );
    assert!(seen.ends_by(EndReason::MaxPlies) > 100, "{seen:?}");
    check_choices("oware max_plies=16", &game, &positions, 5, &Eval::Material);
}

#[test]
fn oware_small_boards_reach_every_kind_of_end() {
    let mut ends = BTreeMap::<String, u64>::new();
    for (k, spec) in [
        "oware:pits=2,seeds=2",
        "oware:pits=3,seeds=1",
        "oware:pits=3,seeds=3",
        "oware:pits=2,seeds=3,grand_slam=capture_all",
    ]
    .into_iter()
    .enumerate()
    {
        let game = oware(spec);
        let positions = random_positions(&game, 70 + k as u64, 100, 0..30);
        for eval in Eval::ALL {
            let seen = compare(spec, &game, &positions, 1..=6, &eval);
            for (reason, n) in seen.ends {
                *ends.entry(reason).or_default() += n;
            }
        }
    }
    for reason in [
        EndReason::Majority,
        EndReason::Repetition,
        EndReason::NoLegalMove,
    ] {
        assert!(
            ends.get(&reason.to_string()).copied().unwrap_or(0) > 0,
            "no end by {reason} inside the searched lines: {ends:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Congkak

fn congkak(spec: &str) -> CongkakRules {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Congkak(rules)) => rules,
        other => panic!("{spec} is not a Congkak spec: {other:?}"),
    }
}

/// Congkak's relays end in the store so often that turns wider than
/// `TURN_WIDTH` are common inside the search: the bound on free moves is
/// exercised, and the search still returns the plain value.
#[test]
fn congkak_matches_plain_minimax_with_bounded_chains() {
    let mut beyond = 0;
    for (k, spec) in [
        "congkak:pits=4,seeds=3",
        "congkak:pits=4,seeds=3,empty_capture=true,game_end=immediate",
        "congkak:pits=4,seeds=2,rounds=many,max_rounds=3",
        "congkak",
    ]
    .into_iter()
    .enumerate()
    {
        let game = congkak(spec);
        let (count, depths) = if spec == "congkak" {
            (12, 1..=2)
        } else {
            (60, 1..=3)
        };
        let positions = random_positions(&game, 90 + k as u64, count, 0..20);
        for eval in Eval::ALL {
            let seen = compare(spec, &game, &positions, depths.clone(), &eval);
            assert!(seen.extra_turns > 100, "{spec}: {seen:?}");
            beyond += seen.beyond_free;
        }
        check_choices(spec, &game, &positions, 2, &Eval::Material);
    }
    assert!(beyond > 100, "moves past the free ones: {beyond}");
}
