//! A yardstick of exact positions, made once, and how close agents come to
//! perfect play on it: `analyze exact-positions` takes one position from
//! each of many seeded games between agents and solves every move of it;
//! `analyze accuracy` measures how often an agent's move is a best one
//! (top-1 agreement) and the margin it gives away per move.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mancala_agents::{derive_seed, StopCondition};
use mancala_core::{Game, KalahRules, KalahState};
use mancala_registry::AnyAgentSpec;
use mancala_solver::positions::{Agreement, ExactPosition, ExactPositions};
use mancala_solver::{ExactSolver, Profile, Solvable};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::{bad_input, build_solver, solver_options, AnalysisError, Observer, Result};

/// The agents whose games give the positions when none are named: a
/// spread of styles, so that the set is not one agent's habits.
pub const DEFAULT_SOURCES: &[&str] = &["greedy", "minimax:depth=4", "mcts:sims=400"];

/// How to make a set of exact positions.
#[derive(Clone, Debug)]
pub struct ExactPositionsOptions {
    /// The Kalah board and rules.
    pub rules: KalahRules,
    /// Positions in the set: one from each of this many games.
    pub count: u32,
    /// Agents whose games give the positions (each game's two seats are
    /// drawn from these; empty: [`DEFAULT_SOURCES`]).
    pub agents: Vec<String>,
    /// Random moves at the start of each game; positions are taken after.
    pub opening_plies: u32,
    /// Seed of the games and of the choice of positions.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Solver transposition table size in MiB (shared by every position).
    pub tt: u64,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`; 0: none).
    pub db_seeds: Option<usize>,
    /// Where endgame databases are kept (`None`: in memory only).
    pub db_dir: Option<PathBuf>,
    /// What made the set, saved with it (the command line).
    pub made_by: String,
    /// Play the games and pick the positions, but solve nothing (for
    /// [`MadePositions::game_positions`] alone).
    pub games_only: bool,
    /// Every position of the set different: a game whose position is one
    /// of an earlier game's gives none, and more games are played (up to
    /// [`DISTINCT_GAMES_PER_POSITION`] a position asked) until the set has
    /// `count`.
    pub distinct: bool,
}

/// At most this many games a position asked are played for a set of
/// distinct positions.
pub const DISTINCT_GAMES_PER_POSITION: u64 = 10;

/// A set of exact positions and what making it cost.
#[derive(Clone, Debug)]
pub struct MadePositions {
    /// The positions solved (all of them, unless stopped: a partial set is
    /// still usable).
    pub set: ExactPositions,
    /// Positions picked from the games (some of which a stop may have left
    /// unsolved).
    pub picked: usize,
    /// Seconds the games took.
    pub games_seconds: f64,
    /// Seconds solving took (the database's build not counted).
    pub solve_seconds: f64,
    /// Positions the solver searched.
    pub nodes: u64,
    /// Whether the stop flag ended it early.
    pub interrupted: bool,
    /// Every position of the set's games (sorted, once each), in the
    /// toolkit's notation: what training must leave out for the set to be
    /// a held-out yardstick.
    pub game_positions: Vec<String>,
}

/// Makes the set `options` describe: games in parallel, then every move of
/// every position solved, positions in parallel (one thread each, sharing
/// the table: they share much of their futures).
///
/// # Errors
/// [`AnalysisError::BadInput`] for an agent that cannot play the rules or a
/// solver that cannot be had; [`AnalysisError::Interrupted`] when stopped
/// before any position was solved.
pub fn exact_positions(
    options: &ExactPositionsOptions,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<MadePositions> {
    let rules = options.rules;
    let sources = source_agents(options)?;
    let pool = crate::thread_pool(options.threads)?;

    // Positions: one from each seeded game, at a random ply after the opening.
    let t0 = Instant::now();
    let picking = Picking {
        options,
        sources: &sources,
        pool: &pool,
        observer,
        stop,
    };
    let Picked {
        states,
        game_positions,
    } = picking.pick()?;
    let games_seconds = t0.elapsed().as_secs_f64();
    if options.games_only {
        return Ok(MadePositions {
            set: ExactPositions {
                game: rules.to_string(),
                made_by: options.made_by.clone(),
                positions: Vec::new(),
            },
            picked: states.len(),
            games_seconds,
            solve_seconds: 0.0,
            nodes: 0,
            interrupted: false,
            game_positions,
        });
    }

    let solver_options = solver_options(
        &rules,
        Profile::Solve,
        Some(options.tt),
        options.db_seeds,
        options.db_dir.as_deref(),
    )?;
    let solver = build_solver(
        &rules,
        &solver_options,
        options.threads,
        &rules.to_string(),
        observer,
    )?;
    let t1 = Instant::now();
    let solved = picking.solve(&*solver, &states);
    let solve_seconds = t1.elapsed().as_secs_f64();
    let picked = solved.len();
    let positions: Vec<ExactPosition> = solved.into_iter().flatten().collect();
    let interrupted = positions.len() < picked;
    Ok(MadePositions {
        set: ExactPositions {
            game: rules.to_string(),
            made_by: options.made_by.clone(),
            positions,
        },
        picked,
        games_seconds,
        solve_seconds,
        nodes: solver.nodes(),
        interrupted,
        game_positions,
    })
}

/// The agents of `options` (or [`DEFAULT_SOURCES`]), each checked to play
/// its rules.
fn source_agents(options: &ExactPositionsOptions) -> Result<Vec<AnyAgentSpec>> {
    let texts: Vec<String> = if options.agents.is_empty() {
        DEFAULT_SOURCES.iter().map(|s| s.to_string()).collect()
    } else {
        options.agents.clone()
    };
    let mut sources = Vec::new();
    for t in &texts {
        let a = AnyAgentSpec::parse(t).map_err(|e| bad_input(format!("--agent {t}: {e}")))?;
        a.check(&options.rules)
            .map_err(|e| bad_input(format!("--agent {t}: {e}")))?;
        sources.push(a);
    }
    Ok(sources)
}

/// The positions picked from a set's games.
struct Picked {
    /// The positions taken, with their plies.
    states: Vec<(u32, KalahState)>,
    /// Every position of the games they came from (sorted, once each).
    game_positions: Vec<String>,
}

/// What picking and solving a set's positions share.
struct Picking<'a> {
    /// The set asked for.
    options: &'a ExactPositionsOptions,
    /// The agents whose games give the positions.
    sources: &'a [AnyAgentSpec],
    /// The worker threads.
    pool: &'a rayon::ThreadPool,
    /// Told of each game and position.
    observer: &'a dyn Observer,
    /// Raised to stop.
    stop: &'a AtomicBool,
}

impl Picking<'_> {
    /// Plays games until the set has its count of positions (distinct
    /// ones, if asked, within [`DISTINCT_GAMES_PER_POSITION`] games a
    /// position), or one round of games when they need not differ.
    ///
    /// # Errors
    /// [`AnalysisError::Interrupted`] when stopped, and a bad input when no
    /// game (or too few for distinct positions) gives a position.
    fn pick(&self) -> Result<Picked> {
        let (options, rules) = (self.options, &self.options.rules);
        let count = u64::from(options.count);
        let most_games = if options.distinct {
            count.saturating_mul(DISTINCT_GAMES_PER_POSITION)
        } else {
            count
        };
        let mut game_positions = std::collections::BTreeSet::new();
        let mut states: Vec<(u32, KalahState)> = Vec::new();
        let mut chosen_texts = std::collections::HashSet::new();
        let mut played = 0u64;
        while (states.len() as u64) < count && played < most_games {
            // The games still wanted (twice the shortfall after the first
            // round, as some of them repeat), by id in order: the same set
            // at any thread count.
            let wanted = if played == 0 {
                count
            } else {
                2 * (count - states.len() as u64)
            };
            let ids = played..(played + wanted).min(most_games);
            played = ids.end;
            for (chosen, all) in self.play(ids).into_iter().flatten() {
                if (states.len() as u64) == count
                    || (options.distinct
                        && !chosen_texts.insert(rules.setup(&chosen.1).to_string()))
                {
                    continue;
                }
                game_positions.extend(all.iter().map(|s| rules.setup(s).to_string()));
                states.push(chosen);
            }
            if self.stop.load(Ordering::Relaxed) {
                return Err(AnalysisError::Interrupted);
            }
            if !options.distinct {
                break;
            }
        }
        self.check_enough(&states, played)?;
        Ok(Picked {
            states,
            game_positions: game_positions.into_iter().collect(),
        })
    }

    /// Refuses a set with no position, or with fewer distinct positions
    /// than asked, after `played` games.
    fn check_enough(&self, states: &[(u32, KalahState)], played: u64) -> Result<()> {
        let options = self.options;
        if states.is_empty() {
            return Err(bad_input(format!(
                "no game of {played} lasted past its opening of {} random moves (or its agents \
                 failed): no position to take",
                options.opening_plies
            )));
        }
        if options.distinct && (states.len() as u64) < u64::from(options.count) {
            return Err(bad_input(format!(
                "only {} distinct positions in {played} games ({DISTINCT_GAMES_PER_POSITION} a \
                 position asked): ask fewer, or draw the games from more varied agents or openings",
                states.len()
            )));
        }
        Ok(())
    }

    /// Plays games `ids` in parallel, each giving a position (or `None`:
    /// ended within the opening, an agent failed, or stopped).
    fn play(&self, ids: std::ops::Range<u64>) -> Vec<Option<PickedPosition>> {
        let (options, observer, stop) = (self.options, self.observer, self.stop);
        observer.start(ids.end - ids.start, "games");
        let picked = self.pool.install(|| {
            ids.collect::<Vec<u64>>()
                .into_par_iter()
                .with_max_len(1)
                .map(|i| {
                    if stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let p = pick_position(&options.rules, self.sources, options, i);
                    observer.step();
                    p
                })
                .collect()
        });
        observer.finish();
        picked
    }

    /// Every move of each of `states` solved, in parallel (`None` where
    /// the stop flag cut a solve short).
    fn solve(
        &self,
        solver: &dyn ExactSolver<KalahRules>,
        states: &[(u32, KalahState)],
    ) -> Vec<Option<ExactPosition>> {
        let (rules, observer) = (&self.options.rules, self.observer);
        let until = StopCondition {
            deadline: None,
            cancel: Some(self.stop),
            clock: None,
        };
        observer.start(states.len() as u64, "positions");
        let solved = self.pool.install(|| {
            states
                .par_iter()
                .with_max_len(1)
                .map(|(ply, state)| {
                    let moves = solver.move_values(state, 1, until).ok()?;
                    observer.step();
                    Some(ExactPosition {
                        position: rules.setup(state).to_string(),
                        ply: *ply,
                        moves,
                    })
                })
                .collect()
        });
        observer.finish();
        solved
    }
}

/// A position picked from a game, with its ply, and every position of the
/// game.
type PickedPosition = ((u32, KalahState), Vec<KalahState>);

/// Plays game `i` of the set between two of `sources` (after random
/// opening moves) and returns one of its positions after the opening, with
/// its ply, and every position of the game (the opening's too); `None` if
/// the game ended within the opening or an agent failed.
fn pick_position(
    rules: &KalahRules,
    sources: &[AnyAgentSpec],
    options: &ExactPositionsOptions,
    i: u64,
) -> Option<PickedPosition> {
    let (game, mut rng) = sourced_game(
        rules,
        sources,
        options.opening_plies,
        derive_seed(options.seed, i),
    )?;
    if game.positions.is_empty() {
        return None;
    }
    let chosen = game.positions[rng.random_range(0..game.positions.len())];
    Some((chosen, game.every_position))
}

/// A game between two agents drawn from a list, and its positions.
pub(crate) struct SourcedGame<S> {
    /// The agents' specs in seats 0 and 1.
    pub agents: [String; 2],
    /// Every position after the opening where a player was to move, with
    /// the plies before it.
    pub positions: Vec<(u32, S)>,
    /// Every position of the game, the opening's and the last included.
    pub every_position: Vec<S>,
}

/// Plays the game of `seed`: two of `sources` drawn for the seats, then
/// `opening_plies` random moves, then the agents' moves to the end.
/// Returns it with its random stream, for draws that follow from the same
/// seed; `None` if an agent failed.
pub(crate) fn sourced_game<G: Solvable>(
    rules: &G,
    sources: &[AnyAgentSpec],
    opening_plies: u32,
    seed: u64,
) -> Option<(SourcedGame<G::State>, SmallRng)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let picked = [
        &sources[rng.random_range(0..sources.len())],
        &sources[rng.random_range(0..sources.len())],
    ];
    let mut seats = [picked[0].build(rules), picked[1].build(rules)];
    seats[0].new_game(derive_seed(seed, 1));
    seats[1].new_game(derive_seed(seed, 2));
    let mut state = rules.start();
    let mut seen = Vec::new();
    let mut every_position = vec![state.clone()];
    let mut ply = 0u32;
    while let Some(mover) = rules.to_move(&state) {
        let mv = if ply < opening_plies {
            let legal = rules.legal_moves(&state);
            legal.nth(rng.random_range(0..legal.len()))
        } else {
            seen.push((ply, state.clone()));
            seats[mover.index()].choose(rules, &state).ok()?
        };
        for s in seats.iter_mut() {
            s.observe(mv);
        }
        rules.play_unchecked(&mut state, mv);
        every_position.push(state.clone());
        ply += 1;
    }
    let game = SourcedGame {
        agents: [picked[0].to_string(), picked[1].to_string()],
        positions: seen,
        every_position,
    };
    Some((game, rng))
}

/// One agent's agreement with perfect play on a set.
#[derive(Clone, Debug)]
pub struct AccuracyRow {
    /// The agent's spec, as given.
    pub agent: String,
    /// Positions judged, best moves chosen and margin given away.
    pub tally: Agreement,
    /// Seconds the agent took over the set.
    pub seconds: f64,
}

/// How close each of `agents` comes to perfect play on `set` (of `game`):
/// each position is given to a fresh agent seeded from `seed` and the
/// position's index, positions in parallel on `threads` threads.
///
/// # Errors
/// [`AnalysisError::BadInput`] for a set without positions, a position
/// that does not fit the game,
/// an agent that cannot play it or a move the set has no value for
/// (`origin` names the set in messages); [`AnalysisError::Agent`] for an
/// agent that fails; [`AnalysisError::Interrupted`] when stopped.
pub fn accuracy<G: mancala_solver::Solvable>(
    game: &G,
    set: &ExactPositions,
    origin: &str,
    agents: &[String],
    seed: u64,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Vec<AccuracyRow>> {
    if set.positions.is_empty() {
        // No agreement to measure: an interval over no positions says
        // nothing, so none is given.
        return Err(bad_input(format!(
            "{origin} holds no positions: make a set with `mancala analyze exact-positions` \
             (a stopped one keeps the positions solved so far)"
        )));
    }
    let mut states = Vec::with_capacity(set.positions.len());
    for (i, p) in set.positions.iter().enumerate() {
        let state = game
            .parse_position(&p.position)
            .map_err(|e| bad_input(format!("{origin}: position {}: {e}", i + 1)))?;
        states.push(state);
    }
    let pool = crate::thread_pool(threads)?;
    let mut rows = Vec::new();
    for text in agents {
        let agent =
            AnyAgentSpec::parse(text).map_err(|e| bad_input(format!("--agent {text}: {e}")))?;
        agent
            .check(game)
            .map_err(|e| bad_input(format!("--agent {text}: {e}")))?;
        let t0 = Instant::now();
        let tally: Result<Agreement> = pool.install(|| {
            states
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map_init(
                    || agent.build(game),
                    |a, (i, state)| -> Result<Agreement> {
                        a.new_game(derive_seed(seed, i as u64));
                        let mv = a.choose(game, state).map_err(|e| {
                            AnalysisError::Agent(format!("{text} at position {}: {e}", i + 1))
                        })?;
                        let loss = set.positions[i].loss(mv).ok_or_else(|| {
                            bad_input(format!(
                                "{origin}: position {} has no value for move {mv}",
                                i + 1
                            ))
                        })?;
                        let mut one = Agreement::default();
                        one.add(loss);
                        Ok(one)
                    },
                )
                .try_reduce(Agreement::default, |mut x, y| {
                    x.merge(y);
                    Ok(x)
                })
        });
        rows.push(AccuracyRow {
            agent: text.clone(),
            tally: tally?,
            seconds: t0.elapsed().as_secs_f64(),
        });
        if stop.load(Ordering::Relaxed) {
            return Err(AnalysisError::Interrupted);
        }
    }
    Ok(rows)
}
