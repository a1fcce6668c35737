//! Plays scheduled games in parallel, each reproducible from its seed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mancala_agents::{derive_seed, Agent, AgentError, GameClocks, StopCondition, TimeControl};

use crate::seat::{Choice, Seat, HANG_GRACE};
use mancala_core::{Game, Move, Player};
use rayon::prelude::*;

use crate::adjudication::{perfect_play_scores, Adjudicator, ADJUDICATED};
use crate::moves::{MoveStats, MoveTable};
use crate::openings::Opening;
use crate::record::{GameRecord, MoveSearch, RecordMismatch};
use crate::schedule::ScheduledGame;
use crate::ArenaError;

/// Builds a fresh agent for the agent index it is given.
pub type AgentFactory<'a, G> = dyn Fn(usize) -> Box<dyn Agent<G>> + Sync + 'a;

/// The players of a tournament: names, specs and how to build each.
pub struct Players<'a, G: Game> {
    /// Display names, by agent index.
    pub names: Vec<String>,
    /// Agent specs, by agent index.
    pub specs: Vec<String>,
    /// Builds agent `i`.
    pub factory: Box<AgentFactory<'a, G>>,
}

/// How games are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads.
    pub threads: usize,
    /// The tournament's seed; game `id` uses `derive_seed(seed, id)`.
    pub seed: u64,
    /// A move that takes longer forfeits the game (`None`: no limit).
    pub move_timeout: Option<Duration>,
    /// The game clock (`None`: none): a player whose clock runs out loses
    /// the game on time.
    pub time_control: Option<TimeControl>,
    /// How far a move may overrun its clock without losing: the latency of
    /// pipes and of the runner itself.
    pub time_margin: Duration,
}

/// The default [`RunOptions::time_margin`]: small against any clock worth
/// playing, large against a pipe's latency.
pub const DEFAULT_TIME_MARGIN: Duration = Duration::from_millis(50);

impl RunOptions {
    /// Whether moves have a deadline: a move timeout or a clock.
    pub fn timed(&self) -> bool {
        self.move_timeout.is_some() || self.time_control.is_some()
    }
}

/// The moves of a game so far, and what was measured of each.
#[derive(Default)]
struct Trace {
    moves: Vec<Move>,
    /// Per move after the opening: microseconds, and the mover's clock after
    /// it (with a time control).
    move_us: Vec<u64>,
    clock_ms: Vec<u64>,
    search: Vec<MoveSearch>,
    /// The same moves summed by seat, for [`MoveTable`].
    stats: [MoveStats; 2],
}

/// How one game ended, before it becomes a record.
struct Played {
    trace: Trace,
    scores: [u8; 2],
    winner: Option<u8>,
    end: String,
    error: Option<String>,
    /// The seat whose agent panicked or hung (it must be rebuilt).
    agent_lost: Option<usize>,
}

/// Plays one game between `seats` (in seat order) after `opening`, ended
/// early where `adjudicator` knows the position's value.
/// Returns `None` if `stop` was raised before the end.
fn play_one<G: Game>(
    game: &G,
    seats: [&mut Seat<G>; 2],
    opening: &Opening<G::State>,
    seed: u64,
    options: &RunOptions,
    adjudicator: Option<&dyn Adjudicator<G>>,
    stop: &AtomicBool,
) -> Result<Option<Played>, ArenaError> {
    let move_timeout = options.move_timeout;
    let mut clocks = options
        .time_control
        .map(|control| GameClocks::new(control, options.time_margin));
    let mut seats = seats;
    for (index, seat) in seats.iter_mut().enumerate() {
        seat.new_game(derive_seed(seed, index as u64));
    }
    let mut state = opening.start_state(game);
    let mut trace = Trace {
        moves: Vec::with_capacity(128),
        move_us: Vec::with_capacity(128),
        clock_ms: Vec::with_capacity(if clocks.is_some() { 128 } else { 0 }),
        search: Vec::new(),
        stats: Default::default(),
    };
    for &mv in &opening.moves {
        game.try_play(&mut state, mv)
            .map_err(|e| ArenaError::Opening(e.to_string()))?;
        trace.moves.push(mv);
        seats.iter_mut().for_each(|s| s.observe(mv));
    }
    let forfeit = |seat: usize, trace: Trace, state: &G::State, why: String, lost: bool| Played {
        trace,
        scores: game.scores(state).0,
        winner: Some(1 - seat as u8),
        end: "forfeit".into(),
        error: Some(format!("seat {seat}: {why}")),
        agent_lost: lost.then_some(seat),
    };
    while let Some(mover) = game.to_move(&state) {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let seat = mover.index();
        // The move's hard limit is the earlier of the move timeout and the
        // flag's fall; which one it is decides how a late move is lost.
        let on_clock = clocks.as_ref().map(|c| c.allowance(mover));
        let clock_decides = on_clock.is_some_and(|c| move_timeout.is_none_or(|cap| c <= cap));
        let limit = if clock_decides {
            on_clock
        } else {
            move_timeout
        };
        let t0 = Instant::now();
        // The search itself watches the deadline and Ctrl-C, so a runaway
        // budget neither blocks the worker nor delays the stop; an agent
        // that ignores them is watched from outside (see `seat`).
        let until = StopCondition {
            deadline: limit.and_then(|limit| t0.checked_add(limit)),
            cancel: Some(stop),
            clock: clocks.as_ref().map(|c| c.view(mover)),
        };
        let (choice, info) = seats[seat].choose(game, &state, until);
        let took = t0.elapsed();
        let ply = trace.moves.len() + 1;
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let late_move = limit.is_some_and(|l| took > l)
            || matches!(choice, Choice::Hung)
            || (limit.is_some() && matches!(choice, Choice::Answer(Err(AgentError::Stopped))));
        if clock_decides && late_move {
            let clocks = clocks.as_ref().expect("the clock decides");
            let why = format!(
                "seat {seat}: out of time: move {ply} took {} ms with {} ms on the clock \
                 (margin {} ms)",
                took.as_millis(),
                clocks.remaining()[seat].as_millis(),
                options.time_margin.as_millis()
            );
            return Ok(Some(Played {
                scores: game.scores(&state).0,
                winner: Some(1 - seat as u8),
                end: "time".into(),
                error: Some(why),
                agent_lost: matches!(choice, Choice::Hung).then_some(seat),
                trace,
            }));
        }
        let late = |limit: Duration| {
            format!(
                "timeout: move {ply} took {} ms, the limit is {} ms",
                took.as_millis(),
                limit.as_millis()
            )
        };
        let mv = match choice {
            Choice::Hung => {
                let limit = move_timeout.expect("only a move with a deadline is given up");
                let why = format!(
                    "timeout: move {ply} had not returned {} ms after the {} ms limit; \
                     the agent was abandoned",
                    HANG_GRACE.as_millis(),
                    limit.as_millis()
                );
                return Ok(Some(forfeit(seat, trace, &state, why, true)));
            }
            Choice::Panicked(why) => {
                let why = format!("agent panicked: {why}");
                return Ok(Some(forfeit(seat, trace, &state, why, true)));
            }
            _ if move_timeout.is_some_and(|limit| took > limit) => {
                let why = late(move_timeout.expect("checked"));
                return Ok(Some(forfeit(seat, trace, &state, why, false)));
            }
            Choice::Answer(Err(AgentError::Stopped)) if move_timeout.is_some() => {
                let why = late(move_timeout.expect("checked"));
                return Ok(Some(forfeit(seat, trace, &state, why, false)));
            }
            Choice::Answer(Err(e)) => {
                let why = format!("agent error: {e}");
                return Ok(Some(forfeit(seat, trace, &state, why, false)));
            }
            Choice::Answer(Ok(mv)) => mv,
        };
        if let Some(clocks) = clocks.as_mut() {
            // Within its allowance (checked above), so the charge succeeds.
            if let Err(flag) = clocks.charge(mover, took) {
                let why = format!("seat {seat}: {flag}");
                return Ok(Some(Played {
                    end: "time".into(),
                    error: Some(why),
                    ..forfeit(seat, trace, &state, String::new(), false)
                }));
            }
        }
        if let Err(e) = game.try_play(&mut state, mv) {
            return Ok(Some(forfeit(seat, trace, &state, e.to_string(), false)));
        }
        trace.moves.push(mv);
        let us = took.as_micros() as u64;
        trace.move_us.push(us);
        let clock = clocks
            .as_ref()
            .map(|c| c.remaining()[seat].as_millis() as u64);
        if let Some(clock) = clock {
            trace.clock_ms.push(clock);
        }
        let note = MoveSearch::from_info(ply as u32, &info);
        trace.stats[seat].add_move(us, clock, note.as_ref());
        if let Some(note) = note {
            trace.search.push(note);
        }
        seats.iter_mut().for_each(|s| s.observe(mv));
        if let Some(scores) = adjudicator.and_then(|a| adjudicate(game, a, &state)) {
            trace.move_us = trace.move_us.to_vec();
            return Ok(Some(Played {
                trace,
                scores,
                winner: winner_of(scores),
                end: ADJUDICATED.into(),
                error: None,
                agent_lost: None,
            }));
        }
    }
    let outcome = game
        .outcome(&state)
        .expect("a game with no player to move is over");
    // Records are kept until the run ends: an exact copy, and the roomy
    // buffer freed for the next game (shrinking it in place would leave
    // the heap full of holes too small to reuse).
    trace.move_us = trace.move_us.to_vec();
    Ok(Some(Played {
        trace,
        scores: outcome.scores.0,
        winner: outcome.winner().map(|p: Player| p.index() as u8),
        end: outcome.reason.to_string(),
        error: None,
        agent_lost: None,
    }))
}

/// The final scores of perfect play from `state`, where `adjudicator`
/// knows its value (and the game is not over).
fn adjudicate<G: Game>(
    game: &G,
    adjudicator: &dyn Adjudicator<G>,
    state: &G::State,
) -> Option<[u8; 2]> {
    game.to_move(state)?;
    let value = adjudicator.exact_value(state)?;
    perfect_play_scores(game, state, value)
}

/// The seat with more seeds, or `None` for a draw.
fn winner_of(scores: [u8; 2]) -> Option<u8> {
    match scores[0].cmp(&scores[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    }
}

fn human_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Everything fixed for a run: the game, its players, openings and options.
pub struct Arena<'a, G: Game> {
    /// The rules.
    pub game: &'a G,
    /// The rules as a game spec, for the records.
    pub game_spec: String,
    /// Who plays.
    pub players: Players<'a, G>,
    /// Openings, indexed by [`ScheduledGame::opening`].
    pub openings: Vec<Opening<G::State>>,
    /// Threads, seed, time limit.
    pub options: RunOptions,
    /// Ends games where it knows the result of perfect play (`None`: every
    /// game is played out).
    pub adjudicator: Option<&'a dyn Adjudicator<G>>,
}

/// A worker's agents, built on first use, by agent index, and what its
/// games' moves cost.
struct Worker<G: Game> {
    seats: Vec<Option<Seat<G>>>,
    moves: MoveTable,
}

impl<G: Game> Arena<'_, G> {
    /// Plays `games` on `options.threads` threads and hands each finished
    /// game to `on_record` as soon as it ends (from a worker thread, in no
    /// particular order). Raising `stop` ends the run quickly: games not yet
    /// started are skipped and games in flight are abandoned, unrecorded.
    ///
    /// Every game depends only on its id and the seed, never on the thread
    /// that plays it or on the games before it.
    ///
    /// Returns what the recorded games' moves cost, per agent: the figures
    /// [`MoveTable::add`] gets from the records, without replaying them.
    ///
    /// # Errors
    /// [`ArenaError::Threads`] when the thread pool cannot start,
    /// [`ArenaError::Opening`] for an opening illegal in this game.
    pub fn run(
        &self,
        games: &[ScheduledGame],
        stop: &AtomicBool,
        on_record: &(dyn Fn(GameRecord) + Sync),
    ) -> Result<MoveTable, ArenaError> {
        run_games(self, games, stop, on_record)
    }

    /// Whether `record` is what playing `planned` in this arena can have
    /// produced: the same game, players, seats, seed and opening, moves that
    /// are legal, and the result that replaying them gives (for a forfeit:
    /// an unfinished game lost by the player to move). A resumed run trusts
    /// its log only this far.
    ///
    /// # Errors
    /// [`RecordMismatch`]: what differs, in words.
    pub fn check_record(
        &self,
        planned: &ScheduledGame,
        r: &GameRecord,
    ) -> Result<(), RecordMismatch> {
        self.difference(planned, r).map_err(RecordMismatch)
    }

    /// The first way `r` differs from what playing `planned` gives.
    fn difference(&self, planned: &ScheduledGame, r: &GameRecord) -> Result<(), String> {
        let game = self.game;
        let [i, j] = planned.seats;
        let names = &self.players.names;
        let specs = &self.players.specs;
        // `what` holds its verb ("the players are"): these messages reach
        // users of resume and merge, so they are sentences, with values in
        // words rather than in Rust's debug notation.
        let expect = |what: &str, found: String, wanted: String| {
            if found == wanted {
                Ok(())
            } else {
                Err(format!("{what} {found} but should be {wanted}"))
            }
        };
        let pairing = |pair: u32, round: u32, opening: u32, seats: [usize; 2]| {
            format!(
                "pair {pair}, round {round}, opening {opening}, players {} and {} in seats 0 and 1",
                seats[0], seats[1]
            )
        };
        let both = |[a, b]: [&str; 2]| format!("'{a}' and '{b}'");
        expect("the game is", r.game.clone(), self.game_spec.clone())?;
        expect(
            "the pairing is",
            pairing(r.pair, r.round, r.opening, r.seats),
            pairing(planned.pair, planned.round, planned.opening, planned.seats),
        )?;
        expect(
            "the players are",
            both([&r.players[0], &r.players[1]]),
            both([&names[i], &names[j]]),
        )?;
        expect(
            "the agents are",
            both([&r.agents[0], &r.agents[1]]),
            both([&specs[i], &specs[j]]),
        )?;
        expect(
            "the seed is",
            r.seed.to_string(),
            derive_seed(self.options.seed, r.id).to_string(),
        )?;
        let opening = &self.openings[planned.opening as usize];
        let start =
            |text: Option<&str>| text.map_or("the rules' start".into(), |t| format!("'{t}'"));
        expect(
            "the start position is",
            start(r.start.as_deref()),
            start(opening.start_text()),
        )?;
        expect(
            "the opening is",
            format!("'{}'", r.opening_moves),
            format!("'{}'", human_moves(&opening.moves)),
        )?;
        let opening = &opening.moves;

        let mut state = self.openings[planned.opening as usize].start_state(game);
        let mut moves = Vec::new();
        for (k, token) in r.moves.split_whitespace().enumerate() {
            let mv: Move = token
                .parse()
                .map_err(|e| format!("move {} ('{token}'): {e}", k + 1))?;
            game.try_play(&mut state, mv)
                .map_err(|e| format!("move {} ('{token}') is illegal: {e}", k + 1))?;
            moves.push(mv);
        }
        if !moves.starts_with(opening) {
            return Err("its moves do not start with its opening".into());
        }
        expect(
            "the move count is",
            r.plies.to_string(),
            moves.len().to_string(),
        )?;
        let played = moves.len() - opening.len();
        expect(
            "the count of move times is",
            r.move_us.len().to_string(),
            played.to_string(),
        )?;
        let clocked = if self.options.time_control.is_some() {
            played
        } else {
            0
        };
        expect(
            "the count of clock readings is",
            r.clock_ms.len().to_string(),
            clocked.to_string(),
        )?;
        let mut last = opening.len() as u32;
        for s in &r.search {
            if s.ply <= last || s.ply as usize > moves.len() {
                return Err(format!(
                    "its search notes are not for its moves in order (ply {} after {last}, \
                     of {})",
                    s.ply,
                    moves.len()
                ));
            }
            last = s.ply;
        }
        let (scores, winner, end) = match game.outcome(&state) {
            Some(outcome) => (
                outcome.scores.0,
                outcome.winner().map(|p| p.index() as u8),
                outcome.reason.to_string(),
            ),
            None if r.end == ADJUDICATED => {
                // Adjudicated: only if this run adjudicates, and then with
                // the result it gives (it depends on the position alone).
                let Some(adjudicator) = self.adjudicator else {
                    return Err("it was adjudicated, but this tournament plays games out".into());
                };
                let Some(scores) = adjudicate(game, adjudicator, &state) else {
                    return Err("it was adjudicated where its position's value is not known".into());
                };
                (scores, winner_of(scores), ADJUDICATED.to_string())
            }
            None => {
                // Only a forfeit or a clock ends an unfinished game: the
                // player to move lost.
                let mover = game.to_move(&state).expect("a game not over has a mover");
                if r.error.is_none() {
                    return Err("its moves do not finish the game, and it is not a forfeit".into());
                }
                let end = if r.end == "time" && self.options.time_control.is_some() {
                    "time"
                } else {
                    "forfeit"
                };
                (
                    game.scores(&state).0,
                    Some(1 - mover.index() as u8),
                    end.to_string(),
                )
            }
        };
        expect("the end is", r.end.clone(), end)?;
        let score = |[a, b]: [u8; 2]| format!("{a}-{b}");
        expect("the scores are", score(r.scores), score(scores))?;
        expect(
            "the winner is",
            seat_in_words(r.winner),
            seat_in_words(winner),
        )?;
        expect(
            "the margin is",
            r.margin.to_string(),
            (i32::from(scores[0]) - i32::from(scores[1])).to_string(),
        )
    }
}

/// A record's winner as people say it: `seat 0 (the first player)`, or
/// `a draw`.
fn seat_in_words(winner: Option<u8>) -> String {
    match winner {
        Some(0) => "seat 0 (the first player)".into(),
        Some(1) => "seat 1 (the second player)".into(),
        Some(seat) => format!("seat {seat}"),
        None => "a draw".into(),
    }
}

fn run_games<G: Game>(
    arena: &Arena<'_, G>,
    games: &[ScheduledGame],
    stop: &AtomicBool,
    on_record: &(dyn Fn(GameRecord) + Sync),
) -> Result<MoveTable, ArenaError> {
    let Arena {
        game,
        game_spec,
        players,
        openings,
        options,
        adjudicator,
    } = arena;
    let game: &G = game;
    let threads = options.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ArenaError::Threads(e.to_string()))?;
    // Each worker keeps its own agents (their tables, trees) between games;
    // `new_game` resets them, so reuse never leaks into results.
    let caches: Vec<Mutex<Worker<G>>> = (0..threads)
        .map(|_| {
            Mutex::new(Worker {
                seats: (0..players.names.len()).map(|_| None).collect(),
                moves: MoveTable::default(),
            })
        })
        .collect();
    let first_error: Mutex<Option<ArenaError>> = Mutex::new(None);
    pool.install(|| {
        games.par_iter().with_max_len(1).for_each(|g| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let worker = rayon::current_thread_index().unwrap_or(0) % threads;
            let mut guard = caches[worker].lock().unwrap_or_else(|p| p.into_inner());
            let Worker {
                seats: cache,
                moves,
            } = &mut *guard;
            let [i, j] = g.seats;
            let seat_of = |k: usize| Seat::new((players.factory)(k), game, options.timed());
            for &k in &g.seats {
                if cache[k].is_none() {
                    cache[k] = Some(seat_of(k));
                }
            }
            let seed = derive_seed(options.seed, g.id);
            let t0 = Instant::now();
            let result = if i == j {
                // Self-play: two instances of the same agent.
                let mut twin = seat_of(i);
                let own = cache[i].as_mut().expect("built above");
                play_one(
                    game,
                    [own, &mut twin],
                    &openings[g.opening as usize],
                    seed,
                    options,
                    *adjudicator,
                    stop,
                )
            } else {
                let (lo, hi) = (i.min(j), i.max(j));
                let (left, right) = cache.split_at_mut(hi);
                let (a, b) = (
                    left[lo].as_mut().expect("built"),
                    right[0].as_mut().expect("built"),
                );
                let agents = if i < j { [a, b] } else { [b, a] };
                play_one(
                    game,
                    agents,
                    &openings[g.opening as usize],
                    seed,
                    options,
                    *adjudicator,
                    stop,
                )
            };
            let played = match result {
                Ok(Some(p)) => p,
                Ok(None) => return,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                    return;
                }
            };
            if let Some(seat) = played.agent_lost {
                // A panicked agent may be in any state, and a hung one is
                // gone: build it anew.
                cache[g.seats[seat]] = None;
            }
            let names = [players.names[i].clone(), players.names[j].clone()];
            moves.add_game(&names, &played.trace.stats);
            drop(guard);
            let record = GameRecord {
                id: g.id,
                pair: g.pair,
                round: g.round,
                opening: g.opening,
                game: game_spec.to_string(),
                players: names,
                agents: [players.specs[i].clone(), players.specs[j].clone()],
                seats: g.seats,
                seed,
                start: openings[g.opening as usize]
                    .start_text()
                    .map(str::to_string),
                opening_moves: human_moves(&openings[g.opening as usize].moves),
                plies: played.trace.moves.len() as u32,
                moves: human_moves(&played.trace.moves),
                scores: played.scores,
                winner: played.winner,
                margin: i32::from(played.scores[0]) - i32::from(played.scores[1]),
                duration_ms: t0.elapsed().as_secs_f64() * 1000.0,
                end: played.end,
                error: played.error,
                move_us: played.trace.move_us,
                clock_ms: played.trace.clock_ms,
                search: played.trace.search,
            };
            on_record(record);
        });
    });
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => {
            let mut total = MoveTable::default();
            for worker in caches {
                let worker = worker.into_inner().unwrap_or_else(|p| p.into_inner());
                total.merge(&worker.moves);
            }
            Ok(total)
        }
    }
}
