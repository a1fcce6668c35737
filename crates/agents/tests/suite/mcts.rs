//! Monte Carlo tree search on hand-built positions whose best move is known.
//!
//! Every Kalah position's claim ("only this move wins", "only this move
//! avoids losing") is checked first by an exact minimax to the end of the
//! game, so a test fails if the position is not what its comment says. Each
//! position is also searched from player 1's side (rows and stores
//! exchanged), which fails if values are backed up with the wrong sign, and
//! several of the winning lines go through extra turns, where the same
//! player moves twice in a row.

use std::collections::HashMap;

use mancala_agents::{
    Agent, AgentSpec, Budget, Mcts, MctsOptions, RolloutEvaluator, RolloutPolicy,
};
use mancala_core::{Game, KalahRules, Move, OwareRules, Player, Setup};

// ---------------------------------------------------------------------------
// Helpers

/// The position written `text`, checked against `game`.
fn at<G: Game>(game: &G, text: &str) -> G::State {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text} is not a position of {game:?}: {e}"))
}

/// The same position seen from the other seat: rows and stores exchanged,
/// the other player to move.
fn mirrored(text: &str) -> String {
    let setup: Setup = text.parse().expect("a position");
    Setup {
        rows: setup.rows.clone().swapped(),
        stores: setup.stores.swapped(),
        to_move: setup.to_move.map(Player::opponent),
        swap_available: false,
        ..Setup::default()
    }
    .to_string()
}

/// The exact final margin (`store0 - store1`) with perfect play.
fn exact<G: Game>(game: &G, state: &G::State, memo: &mut HashMap<G::State, i32>) -> i32 {
    let Some(mover) = game.to_move(state) else {
        return game.outcome(state).expect("over").margin();
    };
    if let Some(&v) = memo.get(state) {
        return v;
    }
    let values = game.legal_moves(state).into_iter().map(|mv| {
        let mut next = state.clone();
        game.play_unchecked(&mut next, mv);
        exact(game, &next, memo)
    });
    let v = if mover == Player::ZERO {
        values.max().unwrap()
    } else {
        values.min().unwrap()
    };
    memo.insert(state.clone(), v);
    v
}

/// Each legal move with its exact final margin for the mover.
fn exact_move_values<G: Game>(game: &G, state: &G::State) -> Vec<(Move, i32)> {
    let mover = game.to_move(state).expect("not over");
    let mut memo = HashMap::new();
    game.legal_moves(state)
        .into_iter()
        .map(|mv| {
            let mut next = state.clone();
            game.play_unchecked(&mut next, mv);
            let margin = exact(game, &next, &mut memo);
            (
                mv,
                if mover == Player::ZERO {
                    margin
                } else {
                    -margin
                },
            )
        })
        .collect()
}

fn mcts<G: Game>(sims: u64, seed: u64) -> Mcts<G, RolloutEvaluator> {
    let mut agent = Mcts::new(
        MctsOptions {
            budget: Budget::Sims(sims),
            ..MctsOptions::default()
        },
        RolloutEvaluator::new(RolloutPolicy::Random),
    );
    agent.new_game(seed);
    agent
}

/// Checks with MCTS (several seeds, and through an agent spec) that the mover
/// plays `expected` in `state`, and that the reported expected score of the
/// mover is above `min_value` (above ½ for a win; a lost position scores
/// near 0).
fn assert_finds<G: Game>(
    game: &G,
    state: &G::State,
    expected: Move,
    sims: u64,
    min_value: f64,
    what: &str,
) {
    for seed in [1, 2, 3] {
        let mut agent = mcts::<G>(sims, seed);
        let mv = agent.choose(game, state).unwrap();
        assert_eq!(
            mv,
            expected,
            "{what}, seed {seed}: {} (root visits {:?})",
            game.setup(state),
            agent.root_visits()
        );
        let value = agent.info().value.expect("a value");
        assert!(
            value > min_value,
            "{what}, seed {seed}: the mover's expected score {value}, not above {min_value}"
        );
    }
    let spec: AgentSpec = format!("mcts:sims={sims}").parse().unwrap();
    let mut agent = spec.build::<G>();
    agent.new_game(99);
    assert_eq!(
        agent.choose(game, state).unwrap(),
        expected,
        "{what}, spec {spec}"
    );
}

/// The Kalah position `text` (player 0 to move): checks by exact search that
/// `expected` is the only move reaching the best result, that every other
/// move is worse than `others_at_most` for the mover, then that MCTS finds it
/// from both seats.
fn kalah_case(text: &str, expected: Move, best: i32, others_at_most: i32, what: &str) {
    let game = KalahRules::default();
    for (seat, position) in [("player 0", text.to_string()), ("player 1", mirrored(text))] {
        let state = at(&game, &position);
        let values = exact_move_values(&game, &state);
        for &(mv, v) in &values {
            if mv == expected {
                assert_eq!(v, best, "{what} ({seat}): exact value of {mv}: {values:?}");
            } else {
                assert!(
                    v <= others_at_most,
                    "{what} ({seat}): {mv} is worth {v}: {values:?}"
                );
            }
        }
        assert!(values.len() >= 3, "{what}: too few moves to choose from");
        let min_value = if best > 0 { 0.5 } else { 0.3 };
        assert_finds(
            &game,
            &state,
            expected,
            3000,
            min_value,
            &format!("{what} ({seat})"),
        );
    }
}

// ---------------------------------------------------------------------------
// Finding the winning move

/// Pit 5 (index 4) holds one seed: it lands in the empty pit 6 and captures
/// the 5 seeds opposite, winning by 6. Every other move loses.
#[test]
fn mcts_takes_the_capture_that_wins() {
    kalah_case(
        "1,0,1,1,1,0/5,1,1,1,0,0/18,18/0",
        Move::Pit(4),
        6,
        -2,
        "capture that wins",
    );
    // Pit 1's single seed lands in the empty pit 2 and takes the 2 seeds
    // opposite; the only win among four moves.
    kalah_case(
        "1,0,0,2,1,2/1,2,0,0,2,1/18,18/0",
        Move::Pit(0),
        2,
        -4,
        "small capture that wins",
    );
}

/// Pit 6 (one seed) ends in the store, and the extra turns chain on: pit 5
/// (2 seeds) ends in the store, pit 6 again, pit 4 (3 seeds)... The only
/// move that wins; the winning line is all extra turns, so the same player
/// moves many times in a row in the tree.
#[test]
fn mcts_follows_an_extra_turn_chain_that_wins() {
    kalah_case(
        "0,0,0,3,2,1/1,1,1,1,1,1/18,18/0",
        Move::Pit(5),
        2,
        -2,
        "extra-turn chain",
    );
    kalah_case(
        "0,0,1,2,3,1/3,0,0,0,2,0/17,19/0",
        Move::Pit(5),
        6,
        -2,
        "extra turn, then more",
    );
}

/// Every move but pit 6 loses by 8; pit 6 draws.
#[test]
fn mcts_finds_the_only_move_that_does_not_lose() {
    kalah_case(
        "0,1,0,1,1,1/3,1,2,0,0,2/17,19/0",
        Move::Pit(5),
        0,
        -8,
        "only move that does not lose",
    );
}

/// Oware: house 5's four seeds end in the opponent's houses 1-3, making
/// them 3, 2 and 2: all three are captured, 7 seeds, for 25 of 48, a
/// majority that ends the game. The only move that wins at once.
#[test]
fn mcts_finds_the_oware_capture_that_wins() {
    let game = OwareRules::default();
    for text in [
        "0,1,0,1,4,1/2,1,1,1,1,0/18,17/0".to_string(),
        mirrored("0,1,0,1,4,1/2,1,1,1,1,0/18,17/0"),
    ] {
        let state = at(&game, &text);
        let mover = game.to_move(&state).unwrap();
        let winning: Vec<Move> = game
            .legal_moves(&state)
            .into_iter()
            .filter(|&mv| {
                let mut next = state.clone();
                game.play_unchecked(&mut next, mv);
                game.outcome(&next)
                    .is_some_and(|o| o.winner() == Some(mover))
            })
            .collect();
        assert_eq!(winning, vec![Move::Pit(4)], "{text}");
        assert!(game.legal_moves(&state).len() >= 4);
        assert_finds(
            &game,
            &state,
            Move::Pit(4),
            3000,
            0.5,
            &format!("oware {text}"),
        );
    }
}

// ---------------------------------------------------------------------------
// Tree reuse

/// Sum of the root's children's visits: a search of `n` simulations on a new
/// tree leaves `n - 1` (the first one only expands the root).
fn root_child_visits<G: Game>(agent: &Mcts<G, RolloutEvaluator>) -> u64 {
    agent.root_visits().iter().map(|&(_, v)| u64::from(v)).sum()
}

#[test]
fn mcts_reuses_the_tree_after_a_move_pair() {
    let game = KalahRules::default();
    let sims = 2000;
    let start = game.start();
    for reuse in [true, false] {
        let options = MctsOptions {
            budget: Budget::Sims(sims),
            reuse,
            ..MctsOptions::default()
        };
        let mut agent: Mcts<KalahRules, _> =
            Mcts::new(options, RolloutEvaluator::new(RolloutPolicy::Random));
        agent.new_game(5);
        // Player 0 moves from the start; then the opponent's first reply
        // that passes the turn back.
        let mut state = game.start();
        let first = agent.choose(&game, &state).unwrap();
        assert_eq!(root_child_visits(&agent), sims - 1);
        game.try_play(&mut state, first).unwrap();
        while game.to_move(&state) == Some(Player::ZERO) {
            // An extra turn: player 0 again, and the tree follows along.
            let mv = agent.choose(&game, &state).unwrap();
            game.try_play(&mut state, mv).unwrap();
        }
        let reply = game
            .legal_moves(&state)
            .into_iter()
            .find(|&r| {
                let mut next = state;
                game.play_unchecked(&mut next, r);
                game.to_move(&next) == Some(Player::ZERO)
            })
            .expect("a reply that passes the turn");
        game.try_play(&mut state, reply).unwrap();
        let mv = agent.choose(&game, &state).unwrap();
        assert!(game.legal_moves(&state).contains(mv));
        let visits = root_child_visits(&agent);
        if reuse {
            assert!(
                visits > sims,
                "the position after a move pair was in the tree: {visits} visits at the root"
            );
        } else {
            assert_eq!(visits, sims - 1, "a new tree each move without reuse");
        }
        // The same position asked again: the whole tree is kept.
        agent.choose(&game, &state).unwrap();
        if reuse {
            assert!(root_child_visits(&agent) > visits + sims - 1);
        }
        // A position that is not in the tree (the start, then one far away)
        // gets a new tree, and a legal move.
        for far in [
            start,
            at(&game, "0,1,0,1,1,1/3,1,2,0,0,2/17,19/0"),
            at(&game, "3,0,5,1,0,2/1,0,4,2,3,0/13,14/1"),
        ] {
            let mv = agent.choose(&game, &far).unwrap();
            assert!(game.legal_moves(&far).contains(mv));
            assert_eq!(root_child_visits(&agent), sims - 1, "{}", game.setup(&far));
        }
    }
}

/// After the first link of an extra-turn chain, the position (same player
/// to move) is in the tree; the reused tree plays the same winning
/// continuation as a fresh search.
#[test]
fn mcts_reused_tree_plays_like_a_fresh_one_in_a_clear_position() {
    let game = KalahRules::default();
    for text in [
        "0,0,0,3,2,1/1,1,1,1,1,1/18,18/0".to_string(),
        mirrored("0,0,0,3,2,1/1,1,1,1,1,1/18,18/0"),
    ] {
        let mut state = at(&game, &text);
        let mover = game.to_move(&state).unwrap();
        let mut reused = mcts::<KalahRules>(3000, 11);
        let mut links = 0;
        while game.to_move(&state) == Some(mover) {
            let mv = reused.choose(&game, &state).unwrap();
            let values = exact_move_values(&game, &state);
            let best = values.iter().map(|&(_, v)| v).max().unwrap();
            assert_eq!(best, 2, "{text}: the chain still wins: {values:?}");
            let winners: Vec<Move> = values
                .iter()
                .filter(|&&(_, v)| v == best)
                .map(|&(m, _)| m)
                .collect();
            assert!(
                winners.contains(&mv),
                "{text}, link {links}: {mv} is not among the winning {winners:?}"
            );
            if links > 0 {
                assert!(
                    root_child_visits(&reused) > 3000,
                    "link {links}: tree reused"
                );
                let mut fresh = mcts::<KalahRules>(3000, 11);
                let fresh_mv = fresh.choose(&game, &state).unwrap();
                if winners.len() == 1 {
                    assert_eq!(fresh_mv, mv, "{text}, link {links}");
                }
                assert!(winners.contains(&fresh_mv));
            }
            game.try_play(&mut state, mv).unwrap();
            links += 1;
        }
        assert!(links >= 3, "{text}: the chain has {links} links");
    }
}

// ---------------------------------------------------------------------------
// Determinism

fn kalah_positions(game: &KalahRules) -> Vec<<KalahRules as Game>::State> {
    let mut out = Vec::new();
    let mut state = game.start();
    let mut k = 0u8;
    while !game.is_over(&state) && out.len() < 12 {
        out.push(state);
        let legal = game.legal_moves(&state);
        game.play_unchecked(&mut state, legal.nth(usize::from(k) % legal.len()));
        k = k.wrapping_mul(5).wrapping_add(3);
    }
    out
}

#[test]
fn mcts_same_seed_same_search() {
    let game = KalahRules::default();
    let positions = kalah_positions(&game);
    let run = |seed: u64| {
        let mut agent = mcts::<KalahRules>(300, seed);
        positions
            .iter()
            .map(|s| {
                let mv = agent.choose(&game, s).unwrap();
                (mv, agent.root_visits())
            })
            .collect::<Vec<_>>()
    };
    let a = run(42);
    assert_eq!(a, run(42), "same seed, same moves and visit counts");
    let others: Vec<_> = (0..4).map(|s| run(100 + s)).collect();
    assert!(
        others.iter().any(|o| *o != a),
        "the seed changes the search somewhere"
    );
}

#[test]
fn mcts_new_game_resets_the_rng_and_the_tree() {
    let game = KalahRules::default();
    let positions = kalah_positions(&game);
    // An agent that has played: its tree holds positions[1..] and its rng
    // has moved on.
    let mut used = mcts::<KalahRules>(400, 1);
    for s in &positions[..4] {
        used.choose(&game, s).unwrap();
    }
    used.new_game(7);
    let mut fresh = mcts::<KalahRules>(400, 7);
    for s in &positions[4..8] {
        let a = used.choose(&game, s).unwrap();
        let b = fresh.choose(&game, s).unwrap();
        assert_eq!(a, b);
        assert_eq!(used.root_visits(), fresh.root_visits(), "{}", game.setup(s));
    }
    // Through the agent spec as well (boxed agent).
    let spec: AgentSpec = "mcts:sims=200".parse().unwrap();
    let mut boxed = spec.build::<KalahRules>();
    boxed.new_game(3);
    let first: Vec<Move> = positions
        .iter()
        .map(|s| boxed.choose(&game, s).unwrap())
        .collect();
    boxed.new_game(3);
    let again: Vec<Move> = positions
        .iter()
        .map(|s| boxed.choose(&game, s).unwrap())
        .collect();
    assert_eq!(first, again);
}

#[test]
fn mcts_in_a_finished_game_is_an_error() {
    let game = KalahRules::default();
    let over = at(&game, "0,0,0,0,0,0/0,0,0,0,0,0/30,18/-");
    let mut agent = mcts::<KalahRules>(10, 0);
    assert!(matches!(
        agent.choose(&game, &over),
        Err(mancala_agents::AgentError::GameOver)
    ));
    // And it still plays afterwards.
    let s = game.start();
    assert!(game
        .legal_moves(&s)
        .contains(agent.choose(&game, &s).unwrap()));
}
