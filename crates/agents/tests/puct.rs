//! PUCT (the tree search with priors that a network drives) backs values up
//! by the player stored at each node: with an exact evaluator it must pick
//! a best move whoever moves, extra turns and swaps included.

use std::collections::HashMap;

use mancala_agents::{Agent, AgentError, Budget, Evaluator, Mcts, MctsOptions, RootNoise};
use mancala_core::{Game, KalahRules, KalahState, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Player 0's exact score (1, ½, 0) under perfect play, memoised.
fn exact(game: &KalahRules, s: &KalahState, memo: &mut HashMap<KalahState, f32>) -> f32 {
    if let Some(&v) = memo.get(s) {
        return v;
    }
    let v = match game.to_move(s) {
        None => match game.outcome(s).unwrap().winner() {
            Some(Player::ZERO) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        },
        Some(p) => {
            let values = game.legal_moves(s).into_iter().map(|m| {
                let mut n = *s;
                game.play_unchecked(&mut n, m);
                exact(game, &n, memo)
            });
            if p == Player::ZERO {
                values.fold(0.0, f32::max)
            } else {
                values.fold(1.0, f32::min)
            }
        }
    };
    memo.insert(*s, v);
    v
}

/// An evaluator that knows the answer, with priors that favour the first
/// legal move (so that the search, not the priors, must find the best one).
struct Oracle {
    game: KalahRules,
    memo: HashMap<KalahState, f32>,
}

impl Evaluator<KalahRules> for Oracle {
    fn uses_priors(&self) -> bool {
        true
    }

    fn evaluate(
        &mut self,
        game: &KalahRules,
        s: &KalahState,
        _: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        let n = game.legal_moves(s).len();
        priors.clear();
        priors.extend((0..n).map(|i| {
            if i == 0 {
                0.6
            } else {
                0.4 / (n - 1).max(1) as f32
            }
        }));
        Ok(exact(&self.game, s, &mut self.memo))
    }
}

fn check_best_moves(game: KalahRules, positions: usize, seed: u64) -> (usize, usize) {
    let mut memo = HashMap::new();
    let mut rng = SmallRng::seed_from_u64(seed);
    let options = MctsOptions {
        budget: Budget::Sims(300),
        c: 1.5,
        reuse: false,
        ..MctsOptions::default()
    };
    let mut mcts = Mcts::new(
        options,
        Oracle {
            game,
            memo: HashMap::new(),
        },
    );
    let (mut checked, mut extra_turn_positions) = (0, 0);
    while checked < positions {
        // A random position with a real choice in it.
        let mut s = game.start();
        for _ in 0..rng.random_range(0..8) {
            let legal = game.legal_moves(&s);
            if legal.is_empty() {
                break;
            }
            game.play_unchecked(&mut s, legal.nth(rng.random_range(0..legal.len())));
        }
        let Some(mover) = game.to_move(&s) else {
            continue;
        };
        let legal = game.legal_moves(&s);
        let values: Vec<f32> = legal
            .into_iter()
            .map(|m| {
                let mut n = s;
                game.play_unchecked(&mut n, m);
                let v = exact(&game, &n, &mut memo);
                if mover == Player::ZERO {
                    v
                } else {
                    1.0 - v
                }
            })
            .collect();
        let best = values.iter().cloned().fold(f32::MIN, f32::max);
        if values.iter().all(|&v| v == best) {
            continue; // nothing to find
        }
        let keeps_turn = legal.into_iter().any(|m| {
            let mut n = s;
            game.play_unchecked(&mut n, m);
            game.to_move(&n) == Some(mover)
        });
        extra_turn_positions += usize::from(keeps_turn);
        mcts.new_game(checked as u64);
        let mv = mcts.choose(&game, &s).unwrap();
        let i = legal.into_iter().position(|m| m == mv).unwrap();
        assert_eq!(
            values[i],
            best,
            "position {:?}: chose {mv}, values {values:?}",
            game.setup(&s).to_string()
        );
        checked += 1;
    }
    (checked, extra_turn_positions)
}

#[test]
fn puct_backs_values_up_by_the_player_at_each_node() {
    let game = KalahRules::new(3, 2).unwrap();
    let (checked, extra) = check_best_moves(game, 150, 1);
    assert_eq!(checked, 150);
    assert!(
        extra >= 30,
        "only {extra} positions with an extra-turn move"
    );
}

#[test]
fn puct_handles_the_pie_swap() {
    let mut game = KalahRules::new(3, 2).unwrap();
    game.pie = true;
    check_best_moves(game, 80, 2);
}

#[test]
fn root_noise_changes_priors_but_not_legality() {
    let game = KalahRules::new(3, 2).unwrap();
    let options = MctsOptions {
        budget: Budget::Sims(50),
        reuse: false,
        ..MctsOptions::default()
    };
    let mut plain = Mcts::new(
        options.clone(),
        Oracle {
            game,
            memo: HashMap::new(),
        },
    );
    let mut noisy = Mcts::new(
        options,
        Oracle {
            game,
            memo: HashMap::new(),
        },
    );
    noisy.set_root_noise(Some(RootNoise {
        alpha: 0.3,
        epsilon: 0.75,
    }));
    let s = game.start();
    let mut differs = false;
    for seed in 0..10 {
        plain.new_game(seed);
        noisy.new_game(seed);
        plain.search(&game, &s).unwrap();
        noisy.search(&game, &s).unwrap();
        let (a, b) = (plain.root_visits(), noisy.root_visits());
        assert_eq!(
            a.iter().map(|x| x.0).collect::<Vec<_>>(),
            b.iter().map(|x| x.0).collect::<Vec<_>>()
        );
        differs |= a != b;
    }
    assert!(differs, "noise never changed the visit counts");
}

/// A search whose leaves the caller evaluates (`begin`, `next_leaf`,
/// `finish_leaf`: how self-play batches many games' leaves) is the same
/// search as one that calls its evaluator: same tree, root noise included.
#[test]
fn a_search_evaluated_from_outside_is_the_same_search() {
    let game = KalahRules::new(4, 3).unwrap();
    let options = MctsOptions {
        budget: Budget::Sims(200),
        c: 1.5,
        reuse: false,
        ..MctsOptions::default()
    };
    let noise = Some(RootNoise {
        alpha: 0.5,
        epsilon: 0.25,
    });
    let mut inside = Mcts::new(
        options.clone(),
        Oracle {
            game,
            memo: HashMap::new(),
        },
    );
    let mut outside = Mcts::new(
        options,
        Oracle {
            game,
            memo: HashMap::new(),
        },
    );
    let mut oracle = Oracle {
        game,
        memo: HashMap::new(),
    };
    let mut unused = SmallRng::seed_from_u64(0);
    inside.set_root_noise(noise);
    outside.set_root_noise(noise);
    inside.new_game(11);
    outside.new_game(11);
    let mut state = game.start();
    let mut rng = SmallRng::seed_from_u64(3);
    let mut leaves = 0;
    while !game.is_over(&state) {
        inside.search(&game, &state).unwrap();
        outside.begin(&game, &state).unwrap();
        while let Some(leaf) = outside.next_leaf(&game) {
            let leaf = *leaf;
            // Asked again before it is finished, it is the same leaf.
            assert_eq!(outside.next_leaf(&game), Some(&leaf));
            outside.finish_leaf(&game, |s, priors| {
                assert_eq!(*s, leaf);
                oracle.evaluate(&game, s, &mut unused, priors).unwrap()
            });
            leaves += 1;
        }
        assert_eq!(inside.root_visits(), outside.root_visits());
        let legal = game.legal_moves(&state);
        game.play_unchecked(&mut state, legal.nth(rng.random_range(0..legal.len())));
    }
    assert!(leaves > 200, "{leaves} leaves");
    // A finished game has no search to begin.
    assert!(matches!(
        outside.begin(&game, &state),
        Err(AgentError::GameOver)
    ));
}
