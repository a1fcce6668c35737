//! Plays scheduled games in parallel, each reproducible from its seed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mancala_agents::{
    derive_seed, Agent, AgentError, GameClocks, SearchInfo, StopCondition, TimeControl,
};

use crate::seat::{Choice, Seat, HANG_GRACE};
use mancala_core::{Game, Move, Player};
use rayon::prelude::*;

use crate::adjudication::{perfect_play_scores, Adjudicator, ADJUDICATED};
use crate::live::{self, LiveGame, LiveRecord};
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
    /// Where the games in progress are shown (a results folder's
    /// [`crate::live::LIVE_DIR`]); `None`: nowhere.
    pub live: Option<PathBuf>,
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

/// How a game begins: its opening, its seed, and where it is shown while
/// it is played.
struct GameStart<'a, 'l, S> {
    opening: &'a Opening<S>,
    seed: u64,
    live: Option<&'a mut LiveGame<'l>>,
}

/// Plays one game between `seats` (in seat order) after `opening`, ended
/// early where `adjudicator` knows the position's value.
/// Returns `None` if `stop` was raised before the end.
fn play_one<G: Game>(
    game: &G,
    seats: [&mut Seat<G>; 2],
    start: GameStart<'_, '_, G::State>,
    options: &RunOptions,
    adjudicator: Option<&dyn Adjudicator<G>>,
    stop: &AtomicBool,
) -> Result<Option<Played>, ArenaError> {
    let mut seats = seats;
    let GameStart {
        opening,
        seed,
        mut live,
    } = start;
    let mut play = InPlay::start(game, &mut seats, opening, seed, options)?;
    while let Some(mover) = game.to_move(&play.state) {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let seat = mover.index();
        let limit = play.limit(mover);
        let t0 = Instant::now();
        // The search itself watches the deadline and Ctrl-C, so a runaway
        // budget neither blocks the worker nor delays the stop; an agent
        // that ignores them is watched from outside (see `seat`).
        let until = StopCondition {
            deadline: limit.limit.and_then(|limit| t0.checked_add(limit)),
            cancel: Some(stop),
            clock: play.clocks.as_ref().map(|c| c.view(mover)),
        };
        let (choice, info) = seats[seat].choose(game, &play.state, until);
        let took = t0.elapsed();
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mv = match play.judge(seat, choice, took, limit) {
            Ok(mv) => mv,
            Err(loss) => return Ok(Some(play.lose(loss))),
        };
        if let Err(loss) = play.play(mover, mv, took, &info) {
            return Ok(Some(play.lose(loss)));
        }
        if let Some(live) = live.as_deref_mut() {
            let moves = &play.trace.moves;
            live.moved(t0 + took, moves.len(), || human_moves(moves));
        }
        seats.iter_mut().for_each(|s| s.observe(mv));
        if let Some(scores) = adjudicator.and_then(|a| adjudicate(game, a, &play.state)) {
            return Ok(Some(play.adjudicated(scores)));
        }
    }
    Ok(Some(play.finish()))
}

/// The hard limit of one move: the earlier of the move timeout and the
/// flag's fall, and whether it is the clock's (which one it is decides how
/// a late move is lost: on time or by forfeit).
#[derive(Clone, Copy)]
struct MoveLimit {
    limit: Option<Duration>,
    clock_decides: bool,
}

/// Why a seat lost the game by its own move, before it becomes a
/// [`Played`].
struct Loss {
    seat: usize,
    /// How the game ended: "forfeit" or "time".
    end: &'static str,
    /// What went wrong, without the seat.
    why: String,
    /// Whether the agent panicked or hung (it must be rebuilt).
    agent_lost: bool,
}

impl Loss {
    /// `seat` forfeits the game.
    fn forfeit(seat: usize, why: String, agent_lost: bool) -> Loss {
        Loss {
            seat,
            end: "forfeit",
            why,
            agent_lost,
        }
    }
}

/// One game in progress: the position, the clocks and what was measured
/// of the moves so far.
struct InPlay<'g, G: Game> {
    game: &'g G,
    options: &'g RunOptions,
    clocks: Option<GameClocks>,
    state: G::State,
    trace: Trace,
}

impl<'g, G: Game> InPlay<'g, G> {
    /// The game after `opening`, with fresh clocks; `seats` are told that a
    /// new game begins (each seeded from `seed`) and shown the opening.
    fn start(
        game: &'g G,
        seats: &mut [&mut Seat<G>; 2],
        opening: &Opening<G::State>,
        seed: u64,
        options: &'g RunOptions,
    ) -> Result<Self, ArenaError> {
        let clocks = options
            .time_control
            .map(|control| GameClocks::new(control, options.time_margin));
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
        Ok(InPlay {
            game,
            options,
            clocks,
            state,
            trace,
        })
    }

    /// The hard limit of `mover`'s next move.
    fn limit(&self, mover: Player) -> MoveLimit {
        let move_timeout = self.options.move_timeout;
        let on_clock = self.clocks.as_ref().map(|c| c.allowance(mover));
        let clock_decides = on_clock.is_some_and(|c| move_timeout.is_none_or(|cap| c <= cap));
        let limit = if clock_decides {
            on_clock
        } else {
            move_timeout
        };
        MoveLimit {
            limit,
            clock_decides,
        }
    }

    /// The move `seat`'s `choice` gives, which `took` that long under
    /// `limit`; or why the seat loses instead: out of time, hung, panicked,
    /// over the move timeout, or an agent error.
    fn judge(
        &self,
        seat: usize,
        choice: Choice,
        took: Duration,
        limit: MoveLimit,
    ) -> Result<Move, Loss> {
        let ply = self.trace.moves.len() + 1;
        let move_timeout = self.options.move_timeout;
        let late_move = limit.limit.is_some_and(|l| took > l)
            || matches!(choice, Choice::Hung)
            || (limit.limit.is_some()
                && matches!(choice, Choice::Answer(Err(AgentError::Stopped))));
        if limit.clock_decides && late_move {
            let clocks = self.clocks.as_ref().expect("the clock decides");
            return Err(Loss {
                seat,
                end: "time",
                why: format!(
                    "out of time: move {ply} took {} ms with {} ms on the clock (margin {} ms)",
                    took.as_millis(),
                    clocks.remaining()[seat].as_millis(),
                    self.options.time_margin.as_millis()
                ),
                agent_lost: matches!(choice, Choice::Hung),
            });
        }
        let late = |limit: Duration| {
            format!(
                "timeout: move {ply} took {} ms, the limit is {} ms",
                took.as_millis(),
                limit.as_millis()
            )
        };
        match choice {
            Choice::Hung => {
                let limit = move_timeout.expect("only a move with a deadline is given up");
                let why = format!(
                    "timeout: move {ply} had not returned {} ms after the {} ms limit; \
                     the agent was abandoned",
                    HANG_GRACE.as_millis(),
                    limit.as_millis()
                );
                Err(Loss::forfeit(seat, why, true))
            }
            Choice::Panicked(why) => {
                Err(Loss::forfeit(seat, format!("agent panicked: {why}"), true))
            }
            _ if move_timeout.is_some_and(|limit| took > limit) => Err(Loss::forfeit(
                seat,
                late(move_timeout.expect("checked")),
                false,
            )),
            Choice::Answer(Err(AgentError::Stopped)) if move_timeout.is_some() => Err(
                Loss::forfeit(seat, late(move_timeout.expect("checked")), false),
            ),
            Choice::Answer(Err(e)) => Err(Loss::forfeit(seat, format!("agent error: {e}"), false)),
            Choice::Answer(Ok(mv)) => Ok(mv),
        }
    }

    /// Charges `took` to `mover`'s clock and plays `mv`, recording its time,
    /// the clock after it and what its search reported (`info`); or why the
    /// mover loses instead: its flag fell, or the move is illegal.
    fn play(
        &mut self,
        mover: Player,
        mv: Move,
        took: Duration,
        info: &SearchInfo,
    ) -> Result<(), Loss> {
        let seat = mover.index();
        let ply = self.trace.moves.len() + 1;
        if let Some(clocks) = self.clocks.as_mut() {
            // Within its allowance (checked above), so the charge succeeds.
            if let Err(flag) = clocks.charge(mover, took) {
                return Err(Loss {
                    seat,
                    end: "time",
                    why: flag.to_string(),
                    agent_lost: false,
                });
            }
        }
        if let Err(e) = self.game.try_play(&mut self.state, mv) {
            return Err(Loss::forfeit(seat, e.to_string(), false));
        }
        let trace = &mut self.trace;
        trace.moves.push(mv);
        let us = took.as_micros() as u64;
        trace.move_us.push(us);
        let clock = self
            .clocks
            .as_ref()
            .map(|c| c.remaining()[seat].as_millis() as u64);
        if let Some(clock) = clock {
            trace.clock_ms.push(clock);
        }
        let note = MoveSearch::from_info(ply as u32, info);
        trace.stats[seat].add_move(us, clock, note.as_ref());
        if let Some(note) = note {
            trace.search.push(note);
        }
        Ok(())
    }

    /// The game as lost by `loss.seat` in the position now.
    fn lose(self, loss: Loss) -> Played {
        Played {
            scores: self.game.scores(&self.state).0,
            winner: Some(1 - loss.seat as u8),
            end: loss.end.into(),
            error: Some(format!("seat {}: {}", loss.seat, loss.why)),
            agent_lost: loss.agent_lost.then_some(loss.seat),
            trace: self.trace,
        }
    }

    /// The game ended by adjudication with the `scores` of perfect play.
    fn adjudicated(mut self, scores: [u8; 2]) -> Played {
        self.trace.move_us = self.trace.move_us.to_vec();
        Played {
            trace: self.trace,
            scores,
            winner: winner_of(scores),
            end: ADJUDICATED.into(),
            error: None,
            agent_lost: None,
        }
    }

    /// The game played to its end.
    fn finish(mut self) -> Played {
        let outcome = self
            .game
            .outcome(&self.state)
            .expect("a game with no player to move is over");
        // Records are kept until the run ends: an exact copy, and the roomy
        // buffer freed for the next game (shrinking it in place would leave
        // the heap full of holes too small to reuse).
        self.trace.move_us = self.trace.move_us.to_vec();
        Played {
            trace: self.trace,
            scores: outcome.scores.0,
            winner: outcome.winner().map(|p: Player| p.index() as u8),
            end: outcome.reason.to_string(),
            error: None,
            agent_lost: None,
        }
    }
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
        self.setup_difference(planned, r)?;
        let (state, moves) = self.replay(planned, r)?;
        self.count_difference(planned, r, &moves)?;
        let ending = self.ending(r, &state)?;
        expect("the end is", r.end.clone(), ending.end)?;
        let scores = ending.scores;
        let score = |[a, b]: [u8; 2]| format!("{a}-{b}");
        expect("the scores are", score(r.scores), score(scores))?;
        expect(
            "the winner is",
            seat_in_words(r.winner),
            seat_in_words(ending.winner),
        )?;
        expect(
            "the margin is",
            r.margin.to_string(),
            (i32::from(scores[0]) - i32::from(scores[1])).to_string(),
        )
    }

    /// The first way `r`'s setup differs from `planned`'s: the game, the
    /// pairing, the players and their specs, the seed, the start position
    /// and the opening.
    fn setup_difference(&self, planned: &ScheduledGame, r: &GameRecord) -> Result<(), String> {
        let [i, j] = planned.seats;
        let names = &self.players.names;
        let specs = &self.players.specs;
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
        )
    }

    /// `r`'s moves played from `planned`'s start: the position they reach
    /// and the moves; an error for a move that does not parse or is
    /// illegal, or moves that do not start with the opening.
    fn replay(
        &self,
        planned: &ScheduledGame,
        r: &GameRecord,
    ) -> Result<(G::State, Vec<Move>), String> {
        let game = self.game;
        let opening = &self.openings[planned.opening as usize];
        let mut state = opening.start_state(game);
        let mut moves = Vec::new();
        for (k, token) in r.moves.split_whitespace().enumerate() {
            let mv: Move = token
                .parse()
                .map_err(|e| format!("move {} ('{token}'): {e}", k + 1))?;
            game.try_play(&mut state, mv)
                .map_err(|e| format!("move {} ('{token}') is illegal: {e}", k + 1))?;
            moves.push(mv);
        }
        if !moves.starts_with(&opening.moves) {
            return Err("its moves do not start with its opening".into());
        }
        Ok((state, moves))
    }

    /// The first way `r`'s counts differ from its `moves` (which start with
    /// `planned`'s opening): plies, move times, clock readings, and search
    /// notes for played moves in order.
    fn count_difference(
        &self,
        planned: &ScheduledGame,
        r: &GameRecord,
        moves: &[Move],
    ) -> Result<(), String> {
        let opening = &self.openings[planned.opening as usize].moves;
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
        Ok(())
    }

    /// How the game `r` records must have ended in `state`, where its moves
    /// lead: the game's own end, an adjudication (only where this arena
    /// adjudicates and knows the value), or a loss of the player to move
    /// (only a forfeit or a clock ends an unfinished game).
    fn ending(&self, r: &GameRecord, state: &G::State) -> Result<Ending, String> {
        let game = self.game;
        Ok(match game.outcome(state) {
            Some(outcome) => Ending {
                scores: outcome.scores.0,
                winner: outcome.winner().map(|p| p.index() as u8),
                end: outcome.reason.to_string(),
            },
            None if r.end == ADJUDICATED => {
                // Adjudicated: only if this run adjudicates, and then with
                // the result it gives (it depends on the position alone).
                let Some(adjudicator) = self.adjudicator else {
                    return Err("it was adjudicated, but this tournament plays games out".into());
                };
                let Some(scores) = adjudicate(game, adjudicator, state) else {
                    return Err("it was adjudicated where its position's value is not known".into());
                };
                Ending {
                    scores,
                    winner: winner_of(scores),
                    end: ADJUDICATED.to_string(),
                }
            }
            None => {
                // Only a forfeit or a clock ends an unfinished game: the
                // player to move lost.
                let mover = game.to_move(state).expect("a game not over has a mover");
                if r.error.is_none() {
                    return Err("its moves do not finish the game, and it is not a forfeit".into());
                }
                let end = if r.end == "time" && self.options.time_control.is_some() {
                    "time"
                } else {
                    "forfeit"
                };
                Ending {
                    scores: game.scores(state).0,
                    winner: Some(1 - mover.index() as u8),
                    end: end.to_string(),
                }
            }
        })
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

/// `Ok` when `found` is `wanted`, else the difference as a sentence:
/// `what` holds its verb ("the players are"). These messages reach users
/// of resume and merge, so they are sentences, with values in words rather
/// than in Rust's debug notation.
fn expect(what: &str, found: String, wanted: String) -> Result<(), String> {
    if found == wanted {
        Ok(())
    } else {
        Err(format!("{what} {found} but should be {wanted}"))
    }
}

/// How a game ended: what a record's result must be.
struct Ending {
    scores: [u8; 2],
    winner: Option<u8>,
    end: String,
}

/// Plays `games` on the arena's threads: [`Arena::run`].
fn run_games<G: Game>(
    arena: &Arena<'_, G>,
    games: &[ScheduledGame],
    stop: &AtomicBool,
    on_record: &(dyn Fn(GameRecord) + Sync),
) -> Result<MoveTable, ArenaError> {
    let threads = arena.options.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ArenaError::Threads(e.to_string()))?;
    let workers = Workers::new(threads, arena.players.names.len());
    let live = arena.options.live.as_deref().and_then(live::prepare);
    pool.install(|| {
        games
            .par_iter()
            .with_max_len(1)
            .for_each(|g| workers.play(arena, g, stop, live.as_deref(), on_record));
    });
    if let Some(dir) = &live {
        live::tidy(dir);
    }
    workers.finish()
}

/// The workers of a run, one per thread. Each keeps its own agents (their
/// tables, trees) between games; `new_game` resets them, so reuse never
/// leaks into results. The first error of any stops them all.
struct Workers<G: Game> {
    workers: Vec<Mutex<Worker<G>>>,
    first_error: Mutex<Option<ArenaError>>,
}

impl<G: Game> Workers<G> {
    /// `threads` workers for a tournament of `agents` agents.
    fn new(threads: usize, agents: usize) -> Workers<G> {
        let workers = (0..threads)
            .map(|_| {
                Mutex::new(Worker {
                    seats: (0..agents).map(|_| None).collect(),
                    moves: MoveTable::default(),
                })
            })
            .collect();
        Workers {
            workers,
            first_error: Mutex::new(None),
        }
    }

    /// Plays `g` with the calling thread's worker and hands its record to
    /// `on_record`. Nothing once `stop` is raised; an error is kept for
    /// [`Workers::finish`] and raises `stop`.
    fn play(
        &self,
        arena: &Arena<'_, G>,
        g: &ScheduledGame,
        stop: &AtomicBool,
        live: Option<&Path>,
        on_record: &(dyn Fn(GameRecord) + Sync),
    ) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let worker = rayon::current_thread_index().unwrap_or(0) % self.workers.len();
        let mut guard = self.workers[worker]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        guard.build_seats(arena, g);
        let seed = derive_seed(arena.options.seed, g.id);
        let t0 = Instant::now();
        let describe = || arena.live_record(g);
        let mut shown = live.map(|dir| LiveGame::new(dir, worker, &describe, t0));
        let result = guard.play(arena, g, seed, stop, shown.as_mut());
        if let Some(shown) = shown {
            shown.finish();
        }
        let played = match result {
            Ok(Some(p)) => p,
            Ok(None) => return,
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                self.first_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                return;
            }
        };
        let names = guard.settle(arena, g, &played);
        drop(guard);
        on_record(arena.record(g, seed, names, played, t0));
    }

    /// What the recorded games' moves cost, summed over the workers; or
    /// the first error.
    fn finish(self) -> Result<MoveTable, ArenaError> {
        match self
            .first_error
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
        {
            Some(e) => Err(e),
            None => {
                let mut total = MoveTable::default();
                for worker in self.workers {
                    let worker = worker.into_inner().unwrap_or_else(|p| p.into_inner());
                    total.merge(&worker.moves);
                }
                Ok(total)
            }
        }
    }
}

impl<G: Game> Worker<G> {
    /// Builds the agents of `g`'s seats that this worker does not hold yet.
    fn build_seats(&mut self, arena: &Arena<'_, G>, g: &ScheduledGame) {
        for &k in &g.seats {
            if self.seats[k].is_none() {
                self.seats[k] = Some(arena.new_seat(k));
            }
        }
    }

    /// Plays `g` (seeded with `seed`) between this worker's agents, built
    /// by [`Worker::build_seats`]: `play_one`'s result.
    fn play(
        &mut self,
        arena: &Arena<'_, G>,
        g: &ScheduledGame,
        seed: u64,
        stop: &AtomicBool,
        live: Option<&mut LiveGame<'_>>,
    ) -> Result<Option<Played>, ArenaError> {
        let [i, j] = g.seats;
        let start = GameStart {
            opening: &arena.openings[g.opening as usize],
            seed,
            live,
        };
        let cache = &mut self.seats;
        let (game, options, adjudicator) = (arena.game, &arena.options, arena.adjudicator);
        if i == j {
            // Self-play: two instances of the same agent.
            let mut twin = arena.new_seat(i);
            let own = cache[i].as_mut().expect("built above");
            play_one(game, [own, &mut twin], start, options, adjudicator, stop)
        } else {
            let (lo, hi) = (i.min(j), i.max(j));
            let (left, right) = cache.split_at_mut(hi);
            let (a, b) = (
                left[lo].as_mut().expect("built"),
                right[0].as_mut().expect("built"),
            );
            let agents = if i < j { [a, b] } else { [b, a] };
            play_one(game, agents, start, options, adjudicator, stop)
        }
    }

    /// After `g` was `played`: forgets an agent that panicked or hung, and
    /// adds the game's moves to this worker's figures. Returns the players'
    /// names, in seat order.
    fn settle(&mut self, arena: &Arena<'_, G>, g: &ScheduledGame, played: &Played) -> [String; 2] {
        if let Some(seat) = played.agent_lost {
            // A panicked agent may be in any state, and a hung one is
            // gone: build it anew.
            self.seats[g.seats[seat]] = None;
        }
        let [i, j] = g.seats;
        let names = [
            arena.players.names[i].clone(),
            arena.players.names[j].clone(),
        ];
        self.moves.add_game(&names, &played.trace.stats);
        names
    }
}

impl<G: Game> Arena<'_, G> {
    /// A fresh seat for agent `k`.
    fn new_seat(&self, k: usize) -> Seat<G> {
        Seat::new((self.players.factory)(k), self.game, self.options.timed())
    }

    /// The record of `g`, `played` between `names` with `seed` since `t0`.
    fn live_record(&self, g: &ScheduledGame) -> LiveRecord {
        let [i, j] = g.seats;
        let opening = &self.openings[g.opening as usize];
        LiveRecord {
            id: g.id,
            game: self.game_spec.clone(),
            players: [self.players.names[i].clone(), self.players.names[j].clone()],
            agents: [self.players.specs[i].clone(), self.players.specs[j].clone()],
            start: opening.start_text().map(str::to_string),
            moves: human_moves(&opening.moves),
            plies: opening.moves.len() as u32,
        }
    }

    fn record(
        &self,
        g: &ScheduledGame,
        seed: u64,
        names: [String; 2],
        played: Played,
        t0: Instant,
    ) -> GameRecord {
        let [i, j] = g.seats;
        let players = &self.players;
        let opening = &self.openings[g.opening as usize];
        GameRecord {
            id: g.id,
            pair: g.pair,
            round: g.round,
            opening: g.opening,
            game: self.game_spec.to_string(),
            players: names,
            agents: [players.specs[i].clone(), players.specs[j].clone()],
            seats: g.seats,
            seed,
            start: opening.start_text().map(str::to_string),
            opening_moves: human_moves(&opening.moves),
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
        }
    }
}
