//! PUCT (the tree search with priors that a network drives) backs values up
//! by the player stored at each node: with an exact evaluator it must pick
//! a best move whoever moves, extra turns and swaps included.

use std::collections::HashMap;

use mancala_agents::gumbel::{halving_visits, GumbelRoot};
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

/// An evaluator of arbitrary but fixed values and priors (from a hash of
/// the position): for tests of the search's bookkeeping, where what the
/// values are does not matter and solving would only cost time.
struct Hashed;

impl Evaluator<KalahRules> for Hashed {
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
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        let mut rng = SmallRng::seed_from_u64(h.finish());
        let n = game.legal_moves(s).len();
        priors.clear();
        priors.extend((0..n).map(|_| rng.random_range(0.1f32..1.0)));
        let total: f32 = priors.iter().sum();
        priors.iter_mut().for_each(|p| *p /= total);
        Ok(rng.random_range(0.0..1.0))
    }
}

/// Runs a search begun with `begin` to its end, `batch` leaves in flight at
/// a time; returns the move, the leaves evaluated and the batches.
fn search_in_batches<E: Evaluator<KalahRules>>(
    mcts: &mut Mcts<KalahRules, E>,
    oracle: &mut E,
    game: &KalahRules,
    s: &KalahState,
    batch: usize,
) -> (mancala_core::Move, usize, usize) {
    let mut unused = SmallRng::seed_from_u64(0);
    mcts.begin(game, s).unwrap();
    let (mut batches, mut evaluated) = (0, 0);
    loop {
        let mut leaves = Vec::new();
        while leaves.len() < batch {
            match mcts.next_leaf(game) {
                Some(leaf) => leaves.push(*leaf),
                None => break,
            }
        }
        if leaves.is_empty() {
            break;
        }
        batches += 1;
        evaluated += leaves.len();
        for leaf in &leaves {
            mcts.finish_leaf(game, |state, priors| {
                assert_eq!(state, leaf, "leaves finish in the order given");
                oracle.evaluate(game, state, &mut unused, priors).unwrap()
            });
        }
    }
    let mv = mcts.end_search().unwrap();
    let visits: u32 = mcts.root_visits().iter().map(|(_, n)| n).sum();
    // Every simulation is one visit of a root child, leaves and finished
    // games alike (the root's own first visit excepted).
    assert_eq!(u64::from(visits) + 1, mcts.info().nodes);
    (mv, evaluated, batches)
}

fn check_best_moves(game: KalahRules, positions: usize, seed: u64) -> (usize, usize) {
    check_best_moves_in_batches(game, positions, seed, 0)
}

fn check_best_moves_in_batches(
    game: KalahRules,
    positions: usize,
    seed: u64,
    batch: usize,
) -> (usize, usize) {
    check_best_moves_with(game, positions, seed, batch, None)
}

/// `batch` 0: the ordinary search; else leaves evaluated `batch` at a
/// time. `gumbel`: the root chooses by Gumbel sampling and halving.
fn check_best_moves_with(
    game: KalahRules,
    positions: usize,
    seed: u64,
    batch: usize,
    gumbel: Option<GumbelRoot>,
) -> (usize, usize) {
    let mut oracle = Oracle {
        game,
        memo: HashMap::new(),
    };
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
    mcts.set_gumbel_root(gumbel);
    let (mut checked, mut extra_turn_positions) = (0, 0);
    let (mut evaluated, mut batches) = (0, 0);
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
        let mv = if batch == 0 {
            mcts.choose(&game, &s).unwrap()
        } else {
            let (mv, leaves, calls) = search_in_batches(&mut mcts, &mut oracle, &game, &s, batch);
            (evaluated, batches) = (evaluated + leaves, batches + calls);
            mv
        };
        let i = legal.into_iter().position(|m| m == mv).unwrap();
        assert_eq!(
            values[i],
            best,
            "position {:?}: chose {mv}, values {values:?}",
            game.setup(&s).to_string()
        );
        checked += 1;
    }
    // Virtual loss sends each descent elsewhere, so batches fill up (a
    // descent that meets a pending leaf ends its batch early; small trees
    // soon run out of leaves).
    assert!(
        batch == 0 || evaluated as f64 > 2.0 * batches as f64,
        "{evaluated} leaves in {batches} batches"
    );
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

/// Several leaves of one tree evaluated together (virtual loss keeps them
/// apart) still find the best move, extra turns and the swap included.
#[test]
fn puct_with_leaves_in_batches_finds_the_best_moves() {
    let game = KalahRules::new(3, 2).unwrap();
    check_best_moves_in_batches(game, 100, 1, 8);
    let mut pie = game;
    pie.pie = true;
    check_best_moves_in_batches(pie, 60, 2, 4);
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
    // Values from a hash: the bookkeeping is what is compared, and three
    // exact solvers of the whole game took 20 s of the suite.
    let mut inside = Mcts::new(options.clone(), Hashed);
    let mut outside = Mcts::new(options, Hashed);
    let mut oracle = Hashed;
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

/// A Gumbel root with an exact evaluator finds the best moves too, with
/// or without its draws, leaves one at a time or in batches.
#[test]
fn a_gumbel_root_finds_the_best_moves() {
    let game = KalahRules::new(3, 2).unwrap();
    for (noise, batch) in [(false, 0), (true, 0), (false, 4)] {
        let gumbel = Some(GumbelRoot::new(16, noise));
        check_best_moves_with(game, 80, 3, batch, gumbel);
    }
    let mut pie = game;
    pie.pie = true;
    check_best_moves_with(pie, 40, 4, 0, Some(GumbelRoot::new(16, true)));
}

/// A full budget gives the root's moves exactly the visits sequential
/// halving plans (whichever moves win each phase), only considered moves
/// are visited, and the improved policy is a distribution over the legal
/// moves; batched leaves (virtual visits) change none of that.
#[test]
fn a_gumbel_root_spends_its_budget_as_sequential_halving_says() {
    let game = KalahRules::new(6, 2).unwrap();
    let mut hashed = Hashed;
    let mut rng = SmallRng::seed_from_u64(5);
    let mut positions = 0;
    while positions < 40 {
        let mut s = game.start();
        for _ in 0..rng.random_range(0..4) {
            let legal = game.legal_moves(&s);
            if legal.is_empty() {
                break;
            }
            game.play_unchecked(&mut s, legal.nth(rng.random_range(0..legal.len())));
        }
        let legal = game.legal_moves(&s);
        if legal.len() < 3 {
            continue;
        }
        positions += 1;
        let considered = [2, 4, 16][positions % 3];
        let sims = [10u64, 31, 64][positions % 3];
        for batch in [0, 3] {
            let options = MctsOptions {
                budget: Budget::Sims(sims),
                c: 1.5,
                reuse: false,
                ..MctsOptions::default()
            };
            let mut mcts = Mcts::new(options, Hashed);
            mcts.set_gumbel_root(Some(GumbelRoot::new(considered, true)));
            mcts.new_game(positions as u64);
            let mv = if batch == 0 {
                mcts.choose(&game, &s).unwrap()
            } else {
                search_in_batches(&mut mcts, &mut hashed, &game, &s, batch).0
            };
            let mut visits: Vec<u32> = mcts.root_visits().iter().map(|(_, n)| *n).collect();
            visits.sort_unstable_by(|a, b| b.cmp(a));
            let m = considered.min(legal.len());
            let mut planned = halving_visits(m, sims as usize - 1);
            planned.resize(legal.len(), 0);
            assert_eq!(
                visits,
                planned,
                "{considered} of {} moves, {sims} sims",
                legal.len()
            );
            // The move played is one of the most visited.
            let most = visits[0];
            let chosen = mcts
                .root_visits()
                .into_iter()
                .find(|(m, _)| *m == mv)
                .unwrap();
            assert_eq!(chosen.1, most);
            let policy = mcts.improved_policy().expect("a Gumbel root");
            assert_eq!(
                policy.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
                legal.into_iter().collect::<Vec<_>>()
            );
            let total: f32 = policy.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-5, "{policy:?}");
            assert!(policy.iter().all(|(_, p)| *p >= 0.0));
        }
    }
    // PUCT has no improved policy.
    let mut puct = Mcts::new(MctsOptions::default(), Hashed);
    puct.new_game(0);
    puct.search(&game, &game.start()).unwrap();
    assert!(puct.improved_policy().is_none());
}

/// A position with each legal move's exact margin for the mover.
type Judged = (KalahState, Vec<(String, i64)>);

/// The reference value network and the 300 exact Kalah(6,4) positions,
/// each with every move's exact margin.
fn reference_positions() -> (mancala_agents::NetEval, Vec<Judged>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/reference");
    let net = root.join("kalah-6-4-evalnet.safetensors");
    let net = mancala_agents::NetEval::load(net.to_str().unwrap()).unwrap();
    let text = std::fs::read_to_string(root.join("kalah-6-4-exact.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let game = KalahRules::default();
    let positions = json["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let state = game
                .parse_position(p["position"].as_str().unwrap())
                .unwrap();
            let moves = p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["mv"].as_str().unwrap().to_string(),
                        m["value"].as_i64().unwrap(),
                    )
                })
                .collect();
            (state, moves)
        })
        .collect();
    (net, positions)
}

/// `priors=net`: a value network's priors are a softmax of the mover's
/// margin one ply on. On exact positions the largest prior is a best move
/// far more often than chance; with a sign wrong (the opponent's margin
/// after a move that passes the turn taken as the mover's) it would be
/// the worst.
#[test]
fn a_value_networks_priors_favour_the_best_moves() {
    use mancala_agents::mcts::NetValueEvaluator;
    let game = KalahRules::default();
    let (net, positions) = reference_positions();
    let mut eval = NetValueEvaluator::new(net, true);
    let mut rng = SmallRng::seed_from_u64(1);
    let mut priors = Vec::new();
    let (mut best, mut chance) = (0.0, 0.0);
    for (state, moves) in &positions {
        let value = eval.evaluate(&game, state, &mut rng, &mut priors).unwrap();
        assert!((0.0..=1.0).contains(&value));
        let legal: Vec<String> = game
            .legal_moves(state)
            .into_iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(priors.len(), legal.len());
        assert!(
            (priors.iter().sum::<f32>() - 1.0).abs() < 1e-4,
            "{priors:?}"
        );
        assert!(priors.iter().all(|&p| p > 0.0), "{priors:?}");
        let top = (0..priors.len())
            .max_by(|&a, &b| priors[a].total_cmp(&priors[b]))
            .unwrap();
        let value_of = |mv: &str| moves.iter().find(|(m, _)| m == mv).unwrap().1;
        let most = moves.iter().map(|m| m.1).max().unwrap();
        if value_of(&legal[top]) == most {
            best += 1.0;
        }
        chance += moves.iter().filter(|m| m.1 == most).count() as f64 / moves.len() as f64;
    }
    let n = positions.len() as f64;
    let (best, chance) = (best / n, chance / n);
    assert!(
        best > 0.75 && best > chance + 0.2,
        "best move {best:.3}, by chance {chance:.3}"
    );
}

/// PUCT over the network's priors and values is deterministic at a fixed
/// simulation count and seed.
#[test]
fn puct_with_a_value_network_repeats_itself() {
    let game = KalahRules::default();
    let (net, positions) = reference_positions();
    let options = MctsOptions {
        budget: Budget::Sims(60),
        c: mancala_agents::policy::DEFAULT_C_PUCT,
        value: Some(net.clone()),
        net_priors: true,
        ..MctsOptions::default()
    };
    let play = || {
        let mut agent = Mcts::new(
            options.clone(),
            mancala_agents::mcts::NetValueEvaluator::new(net.clone(), true),
        );
        agent.new_game(3);
        positions
            .iter()
            .take(20)
            .map(|(s, _)| agent.choose(&game, s).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(play(), play());
}
