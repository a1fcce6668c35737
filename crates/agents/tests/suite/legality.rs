//! Every agent spec plays only legal moves, on every game and rule option,
//! and says `GameOver` in a finished game; plus the greedy and random
//! agents' own promises (whole-turn gain, seeded tie-breaks, uniform draws).

use std::collections::BTreeMap;

use mancala_agents::{Agent, AgentError, AgentSpec};
use mancala_core::{
    Game, GameEnd, GameSpec, GrandSlam, KalahRules, Leftover, Move, OwareRules, Player,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The agents under test: each budget kind and rollout policy.
const SPECS: &[&str] = &[
    "random",
    "greedy",
    "minimax:depth=3",
    "minimax:time=2ms",
    "mcts:sims=50",
    "mcts:sims=30,rollout=greedy",
    "mcts:time=2ms",
];

/// How many positions each spec was asked about, and how often a legal swap
/// was offered and taken.
#[derive(Debug, Default)]
struct Tally {
    asked: BTreeMap<String, u64>,
    swap_offered: u64,
    swap_taken: BTreeMap<String, u64>,
}

/// The position written `text`, checked against `game`.
fn at<G: Game>(game: &G, text: &str) -> G::State {
    game.parse_position(text)
        .unwrap_or_else(|e| panic!("{text} is not a position of {game:?}: {e}"))
}

/// Plays `games` games of `game`, with one agent of each spec built per
/// game and seeded from (`seed`, game number). At each ply the mover is an
/// agent drawn at random, so that every agent sees positions of every stage
/// (and MCTS sees positions out of its tree as well as in it). Every answer
/// must be a legal move of the position. The cheap agents (`random`,
/// `greedy`, `minimax:depth=3`) are asked at every ply, the others at one
/// ply in `costly_every`.
fn play_all<G: Game>(game: &G, games: u64, seed: u64, costly_every: u32, tally: &mut Tally) {
    let specs: Vec<AgentSpec> = SPECS.iter().map(|s| s.parse().unwrap()).collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    for g in 0..games {
        let mut agents: Vec<_> = specs.iter().map(|s| s.build::<G>()).collect();
        for (k, agent) in agents.iter_mut().enumerate() {
            agent.new_game(mancala_agents::derive_seed(seed ^ g, k as u64));
        }
        let mut state = game.start();
        let mut ply = 0u32;
        while !game.is_over(&state) {
            let legal = game.legal_moves(&state);
            if legal.contains(Move::Swap) {
                tally.swap_offered += 1;
            }
            let mut played = None;
            for (k, (spec, agent)) in specs.iter().zip(agents.iter_mut()).enumerate() {
                let cheap = k < 3;
                if !cheap && rng.random_range(0..costly_every) != 0 {
                    continue;
                }
                let name = spec.to_string();
                let mv = agent.choose(game, &state).unwrap_or_else(|e| {
                    panic!("{name} on {game:?} at {}: {e}", game.setup(&state))
                });
                assert!(
                    legal.contains(mv),
                    "{name} chose {mv} on {game:?} at {} (legal: {})",
                    game.setup(&state),
                    legal.to_human()
                );
                *tally.asked.entry(name.clone()).or_default() += 1;
                if mv == Move::Swap {
                    *tally.swap_taken.entry(name).or_default() += 1;
                }
                if played.is_none() || rng.random_range(0..3) == 0 {
                    played = Some(mv);
                }
            }
            let mv = played.expect("the cheap agents always answer");
            game.try_play(&mut state, mv).expect("checked legal");
            ply += 1;
            assert!(ply < 5000, "{game:?}: a game that does not end");
        }
        // A finished game: an error, not a panic, from every agent.
        for (spec, agent) in specs.iter().zip(agents.iter_mut()) {
            assert!(
                matches!(agent.choose(game, &state), Err(AgentError::GameOver)),
                "{spec} in a finished game of {game:?}"
            );
        }
    }
}

fn kalah_rules(
    pits: usize,
    seeds: usize,
    empty_capture: bool,
    delayed: bool,
    set_aside: bool,
    pie: bool,
) -> KalahRules {
    let mut rules = KalahRules::new(pits, seeds).unwrap();
    rules.empty_capture = empty_capture;
    rules.game_end = if delayed {
        GameEnd::Delayed
    } else {
        GameEnd::Immediate
    };
    rules.leftover = if set_aside {
        Leftover::SetAside
    } else {
        Leftover::Owner
    };
    rules.pie = pie;
    rules
}

#[test]
fn agents_play_legal_moves_on_every_kalah_board() {
    let mut tally = Tally::default();
    let mut rng = SmallRng::seed_from_u64(2024);
    for pits in 1..=8 {
        for seeds in 1..=6 {
            // One game with options drawn at random, one with all options on.
            let game = kalah_rules(
                pits,
                seeds,
                rng.random(),
                rng.random(),
                rng.random(),
                rng.random(),
            );
            play_all(&game, 1, (pits * 10 + seeds) as u64, 6, &mut tally);
            let game = kalah_rules(pits, seeds, true, true, true, true);
            play_all(&game, 1, (pits * 10 + seeds) as u64 + 1000, 6, &mut tally);
        }
    }
    let total: u64 = tally.asked.values().sum();
    assert!(total > 5000, "{tally:?}");
    for spec in SPECS {
        assert!(
            tally.asked[*spec] > 100,
            "{spec} asked too seldom: {tally:?}"
        );
    }
    assert!(tally.swap_offered > 50, "{tally:?}");
    assert!(
        tally.swap_taken.get("random").copied().unwrap_or(0) > 0,
        "the random agent never took a legal swap: {tally:?}"
    );
}

#[test]
fn agents_play_legal_moves_in_each_kalah_variant() {
    let mut tally = Tally::default();
    for (k, spec) in [
        "kalah",
        "kalah:empty_capture=true",
        "kalah:game_end=delayed",
        "kalah:leftover=set_aside",
        "kalah:pie=true",
        "kalah:pits=4,seeds=3,pie=true,game_end=delayed",
    ]
    .into_iter()
    .enumerate()
    {
        let GameSpec::Kalah(game) = spec.parse().unwrap() else {
            panic!("{spec}");
        };
        play_all(&game, 4, 500 + k as u64, 3, &mut tally);
    }
    assert!(tally.asked.values().sum::<u64>() > 2000, "{tally:?}");
    assert!(tally.swap_offered >= 8, "{tally:?}");
}

#[test]
fn agents_play_legal_moves_in_oware() {
    let mut tally = Tally::default();
    for (k, spec) in [
        "oware",
        "oware:grand_slam=illegal",
        "oware:grand_slam=capture_all",
        "oware:max_plies=7",
        "oware:max_plies=40,grand_slam=illegal",
        "oware:pits=3,seeds=2",
        "oware:pits=4,seeds=2,grand_slam=illegal",
        "oware:pits=2,seeds=3,grand_slam=capture_all",
        "oware:pits=1,seeds=1",
        "oware:pits=8,seeds=5",
    ]
    .into_iter()
    .enumerate()
    {
        let GameSpec::Oware(game) = spec.parse().unwrap() else {
            panic!("{spec}");
        };
        play_all(&game, 2, 900 + k as u64, 6, &mut tally);
    }
    assert!(tally.asked.values().sum::<u64>() > 2000, "{tally:?}");
}

#[test]
fn agents_play_legal_moves_in_congkak() {
    let mut tally = Tally::default();
    for (k, spec) in [
        "congkak",
        "congkak:empty_capture=true,game_end=immediate",
        "congkak:pits=5,seeds=5",
        "congkak:pits=4,seeds=3,rounds=many,max_rounds=4",
        "congkak:pits=1,seeds=1,rounds=many",
        "congkak:pits=9,seeds=3",
    ]
    .into_iter()
    .enumerate()
    {
        let GameSpec::Congkak(game) = spec.parse().unwrap() else {
            panic!("{spec}");
        };
        play_all(&game, 3, 1300 + k as u64, 4, &mut tally);
    }
    assert!(tally.asked.values().sum::<u64>() > 1000, "{tally:?}");
}

/// Random positions (seeded random play), each asked of every spec with a
/// fresh seed: no agent state carried from move to move.
#[test]
fn agents_play_legal_moves_in_random_positions() {
    let specs: Vec<AgentSpec> = SPECS.iter().map(|s| s.parse().unwrap()).collect();
    let kalah = kalah_rules(6, 4, false, false, false, true);
    let oware: OwareRules = match "oware:grand_slam=illegal,max_plies=60".parse() {
        Ok(GameSpec::Oware(o)) => o,
        other => panic!("{other:?}"),
    };
    fn check<G: Game>(game: &G, specs: &[AgentSpec], seed: u64, count: usize) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut agents: Vec<_> = specs.iter().map(|s| s.build::<G>()).collect();
        for i in 0..count {
            let mut state = game.start();
            let plies = rng.random_range(0..80);
            for _ in 0..plies {
                let legal = game.legal_moves(&state);
                if legal.is_empty() {
                    break;
                }
                game.play_unchecked(&mut state, legal.nth(rng.random_range(0..legal.len())));
            }
            let legal = game.legal_moves(&state);
            for (spec, agent) in specs.iter().zip(agents.iter_mut()) {
                agent.new_game(i as u64);
                match agent.choose(game, &state) {
                    Ok(mv) => assert!(
                        legal.contains(mv),
                        "{spec}: {mv} at {} of {game:?}",
                        game.setup(&state)
                    ),
                    Err(AgentError::GameOver) => {
                        assert!(legal.is_empty(), "{spec}: GameOver at a live position")
                    }
                    Err(e) => panic!("{spec}: {e}"),
                }
            }
        }
    }
    check(&kalah, &specs, 1, 60);
    check(&oware, &specs, 2, 60);
}

#[test]
fn every_agent_says_game_over_in_a_finished_position() {
    let kalah = KalahRules::default();
    let oware = OwareRules::default();
    let kalah_over = at(&kalah, "0,0,0,0,0,0/0,0,0,0,0,0/25,23/-");
    let oware_over = at(&oware, "0,0,0,0,0,0/0,0,0,0,0,0/25,23/-");
    for text in SPECS {
        let spec: AgentSpec = text.parse().unwrap();
        let mut a = spec.build::<KalahRules>();
        a.new_game(1);
        assert!(
            matches!(a.choose(&kalah, &kalah_over), Err(AgentError::GameOver)),
            "{text} (kalah)"
        );
        let mut b = spec.build::<OwareRules>();
        b.new_game(1);
        assert!(
            matches!(b.choose(&oware, &oware_over), Err(AgentError::GameOver)),
            "{text} (oware)"
        );
        // Still usable afterwards.
        let s = kalah.start();
        assert!(kalah
            .legal_moves(&s)
            .contains(a.choose(&kalah, &s).unwrap()));
    }
}

// ---------------------------------------------------------------------------
// Greedy

/// The mover's store gain of the whole turn after `mv`, extra turns followed
/// with their best continuation (written here independently of the agent).
fn turn_gain(game: &KalahRules, state: &<KalahRules as Game>::State, mv: Move) -> i32 {
    let mover = game.to_move(state).unwrap();
    let mut next = *state;
    game.play_unchecked(&mut next, mv);
    let gain = i32::from(game.scores(&next)[mover]) - i32::from(game.scores(state)[mover]);
    if game.to_move(&next) == Some(mover) {
        gain + game
            .legal_moves(&next)
            .into_iter()
            .map(|m| turn_gain(game, &next, m))
            .max()
            .unwrap()
    } else {
        gain
    }
}

/// Pit 6 (one seed) goes to the store for an extra turn; then pit 1's single
/// seed lands in the empty pit 2 and captures the 8 seeds opposite: 1 + 9 =
/// 10. Capturing at once with pit 1 gives only 9, and pit 5 gives 1. A
/// greedy agent that did not follow the extra turn would capture at once.
#[test]
fn greedy_follows_the_extra_turn_to_the_best_whole_turn() {
    let game = KalahRules::default();
    for (text, expected) in [
        ("1,0,0,0,3,1/2,2,2,2,8,2/12,13/0", Move::Pit(5)),
        // The same from player 1's seat.
        ("2,2,2,2,8,2/1,0,0,0,3,1/13,12/1", Move::Pit(5)),
    ] {
        let state = at(&game, text);
        let gains: Vec<(Move, i32)> = game
            .legal_moves(&state)
            .into_iter()
            .map(|m| (m, turn_gain(&game, &state, m)))
            .collect();
        assert_eq!(
            gains,
            vec![(Move::Pit(0), 9), (Move::Pit(4), 1), (Move::Pit(5), 10)],
            "{text}"
        );
        let spec: AgentSpec = "greedy".parse().unwrap();
        let mut agent = spec.build::<KalahRules>();
        for seed in 0..20 {
            agent.new_game(seed);
            assert_eq!(agent.choose(&game, &state).unwrap(), expected, "{text}");
        }
        assert_eq!(agent.info().value, Some(10.0));
        let mover = game.to_move(&state).unwrap();
        assert_eq!(mover == Player::ZERO, text.ends_with("/0"));
    }
}

#[test]
fn greedy_breaks_ties_by_seed_reproducibly() {
    // Oware's start: no move captures anything, all six tie.
    let oware = OwareRules::default();
    // Kalah: pits 1 and 3 each capture 2 seeds (3 with the sowing seed);
    // pits 5 and 6 put one seed in the store.
    let kalah = KalahRules::default();
    let kalah_tie = at(&kalah, "1,0,1,0,5,5/4,4,2,4,2,4/8,8/0");
    let kalah_gains: Vec<(Move, i32)> = kalah
        .legal_moves(&kalah_tie)
        .into_iter()
        .map(|m| (m, turn_gain(&kalah, &kalah_tie, m)))
        .collect();
    let best = kalah_gains.iter().map(|g| g.1).max().unwrap();
    let kalah_best: Vec<Move> = kalah_gains
        .iter()
        .filter(|g| g.1 == best)
        .map(|g| g.0)
        .collect();
    assert_eq!(
        kalah_best,
        vec![Move::Pit(0), Move::Pit(2)],
        "{kalah_gains:?}"
    );

    let spec: AgentSpec = "greedy".parse().unwrap();
    let mut a = spec.build::<OwareRules>();
    let mut b = spec.build::<OwareRules>();
    let mut k = spec.build::<KalahRules>();
    let mut seen_oware = BTreeMap::<Move, u32>::new();
    let mut seen_kalah = BTreeMap::<Move, u32>::new();
    for seed in 0..60 {
        a.new_game(seed);
        b.new_game(seed);
        let mv = a.choose(&oware, &oware.start()).unwrap();
        assert_eq!(mv, b.choose(&oware, &oware.start()).unwrap(), "seed {seed}");
        // Again after new_game: the same.
        a.new_game(seed);
        assert_eq!(mv, a.choose(&oware, &oware.start()).unwrap(), "seed {seed}");
        *seen_oware.entry(mv).or_default() += 1;

        k.new_game(seed);
        let mv = k.choose(&kalah, &kalah_tie).unwrap();
        assert!(kalah_best.contains(&mv), "{mv} is not among {kalah_best:?}");
        k.new_game(seed);
        assert_eq!(mv, k.choose(&kalah, &kalah_tie).unwrap());
        *seen_kalah.entry(mv).or_default() += 1;
    }
    assert_eq!(
        seen_oware.len(),
        6,
        "every tied move comes up: {seen_oware:?}"
    );
    assert_eq!(seen_kalah.len(), kalah_best.len(), "{seen_kalah:?}");
}

// ---------------------------------------------------------------------------
// Random

/// Draws `n` moves at `state`: `per_seed` draws per seed, seeds 0, 1, ...
/// Greedy keeps the next choice of its own turn, weighed with the move
/// that leads there; the moves and values must be those of weighing it
/// afresh. Kalah's turns are short; Congkak's often pass the width bound,
/// where nothing may be kept.
#[test]
fn greedy_chooses_as_afresh_when_its_turn_goes_on() {
    fn check<G: Game>(game: &G, games: u64) -> (u32, u32) {
        let spec: AgentSpec = "greedy".parse().unwrap();
        let mut kept = spec.build::<G>();
        let (mut goes_on, mut from_memory) = (0, 0);
        for seed in 0..games {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut state = game.start();
            let mut last = None;
            while let Some(mover) = game.to_move(&state) {
                let mv = if mover == Player::ONE {
                    let choice_seed = rng.random::<u64>();
                    let mut fresh = spec.build::<G>();
                    fresh.new_game(choice_seed);
                    kept.new_game(choice_seed);
                    let mv = kept.choose(game, &state).unwrap();
                    assert_eq!(
                        fresh.choose(game, &state).unwrap(),
                        mv,
                        "{}",
                        game.setup(&state)
                    );
                    assert_eq!(fresh.info().value, kept.info().value);
                    if last == Some(mover) {
                        goes_on += 1;
                        from_memory += u32::from(kept.info().nodes == 0);
                    }
                    mv
                } else {
                    let legal = game.legal_moves(&state);
                    legal.nth(rng.random_range(0..legal.len()))
                };
                last = Some(mover);
                game.play_unchecked(&mut state, mv);
            }
        }
        (goes_on, from_memory)
    }
    let (goes_on, from_memory) = check(&KalahRules::default(), 200);
    assert!(from_memory * 2 > goes_on, "{from_memory} of {goes_on}");
    let congkak: GameSpec = "congkak".parse().unwrap();
    let GameSpec::Congkak(congkak) = congkak else {
        unreachable!()
    };
    let (goes_on, from_memory) = check(&congkak, 20);
    assert!(
        goes_on > 0 && from_memory < goes_on,
        "{from_memory} of {goes_on}"
    );
}

/// What greedy keeps of its turn holds for the rules it was weighed under:
/// a Kalah position of one board size can be the same bytes as one of
/// another (the ring's unused cells are empty), and weighs otherwise there.
#[test]
fn greedy_weighs_afresh_under_other_rules() {
    let four = KalahRules::new(4, 4).unwrap();
    let three = KalahRules::new(3, 4).unwrap();
    let start = four.position_unchecked([&[4, 3, 4, 1], &[3, 1, 4, 0]], [0, 0], Player::ZERO);
    let spec: AgentSpec = "greedy".parse().unwrap();
    let mut kept = spec.build::<KalahRules>();
    kept.new_game(1);
    let mv = kept.choose(&four, &start).unwrap();
    assert_eq!(mv, Move::Pit(3), "the move that earns another turn");
    let mut next = start;
    four.play_unchecked(&mut next, mv);
    let there = three.position_unchecked([&[4, 3, 4], &[1, 3, 1]], [0, 4], Player::ZERO);
    assert_eq!(next, there, "one position of both boards");
    let mut fresh = spec.build::<KalahRules>();
    fresh.new_game(2);
    kept.new_game(2);
    assert_eq!(
        kept.choose(&three, &there).unwrap(),
        fresh.choose(&three, &there).unwrap()
    );
    assert_eq!(kept.info().value, fresh.info().value);
}

fn draw_counts<G: Game>(game: &G, state: &G::State, n: u32, per_seed: u32) -> BTreeMap<Move, u32> {
    let mut agent = "random".parse::<AgentSpec>().unwrap().build::<G>();
    let mut counts = BTreeMap::new();
    for i in 0..n {
        if i % per_seed == 0 {
            agent.new_game(u64::from(i / per_seed));
        }
        *counts
            .entry(agent.choose(game, state).unwrap())
            .or_insert(0) += 1;
    }
    counts
}

/// Every legal move within 15% of its fair share (about 5 standard
/// deviations for these counts; a move never or twice as often chosen fails).
fn assert_uniform(counts: &BTreeMap<Move, u32>, legal: &[Move], n: u32) {
    let keys: Vec<Move> = counts.keys().copied().collect();
    assert_eq!(keys, legal, "only legal moves, and all of them");
    let fair = f64::from(n) / legal.len() as f64;
    for (mv, &c) in counts {
        assert!(
            (f64::from(c) - fair).abs() < 0.15 * fair,
            "{mv}: {c} draws of {n}, fair share {fair:.0}: {counts:?}"
        );
    }
}

#[test]
fn random_agent_draws_every_legal_move_equally_often() {
    let kalah = kalah_rules(6, 4, false, false, false, true);
    // Player 1 may swap: pits 1, 3, 4, 6 and the swap (gaps in the set).
    let state = at(&kalah, "5,5,1,5,5,5/3,0,5,6,0,5/1,2/1s");
    let legal: Vec<Move> = kalah.legal_moves(&state).into_iter().collect();
    assert_eq!(
        legal,
        vec![
            Move::Pit(0),
            Move::Pit(2),
            Move::Pit(3),
            Move::Pit(5),
            Move::Swap
        ]
    );
    // One seed, many draws; and one draw per seed over many seeds.
    assert_uniform(&draw_counts(&kalah, &state, 10_000, 10_000), &legal, 10_000);
    assert_uniform(&draw_counts(&kalah, &state, 10_000, 1), &legal, 10_000);

    let oware = OwareRules::default();
    let start = oware.start();
    let legal: Vec<Move> = oware.legal_moves(&start).into_iter().collect();
    assert_uniform(&draw_counts(&oware, &start, 12_000, 100), &legal, 12_000);

    // A board wider than 8 pits (moves past the table look-up).
    let wide = KalahRules::new(12, 2).unwrap();
    let start = wide.start();
    let legal: Vec<Move> = wide.legal_moves(&start).into_iter().collect();
    assert_eq!(legal.len(), 12);
    assert_uniform(&draw_counts(&wide, &start, 12_000, 3), &legal, 12_000);
}

#[test]
fn oware_grand_slam_rules_are_respected_by_the_agents() {
    // Grand slam illegal: house 2's two seeds would make both of the
    // opponent's houses 2 and capture them (all their seeds), so house 1 is
    // the only legal move.
    let mut rules = OwareRules::new(2, 3).unwrap();
    rules.grand_slam = GrandSlam::Illegal;
    let state = at(&rules, "1,2/1,1/4,3/0");
    assert_eq!(
        rules.legal_moves(&state).into_iter().collect::<Vec<_>>(),
        vec![Move::Pit(0)],
        "the grand slam is illegal here"
    );
    for text in SPECS {
        let mut agent = text.parse::<AgentSpec>().unwrap().build::<OwareRules>();
        agent.new_game(4);
        assert_eq!(
            agent.choose(&rules, &state).unwrap(),
            Move::Pit(0),
            "{text}"
        );
    }
}
