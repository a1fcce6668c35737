//! Game clocks in the runner: the increment is added after each move, the
//! flag falls when a move overruns its clock by more than the margin (and
//! only then), a move timeout still works beside the clock, and agents
//! that manage their time (`time=auto`) are given the clock and keep it.
//!
//! The slow agent sleeps known amounts far larger than the jitter of a
//! sleep, so that each check has milliseconds of slack on either side.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;

use mancala_agents::{Agent, AgentError, AgentSpec, Clock, StopCondition, TimeControl};
use mancala_arena::{pairs, schedule, Arena, Format, GameRecord, Players, RunOptions};
use mancala_core::{Game, KalahRules, Move, Player};

/// Plays the first legal move after sleeping `sleep`, and keeps the clocks
/// it was shown.
struct Sleeper {
    sleep: Duration,
    seen: std::sync::Arc<Mutex<Vec<Clock>>>,
}

impl Agent<KalahRules> for Sleeper {
    fn name(&self) -> String {
        "sleeper".into()
    }

    fn new_game(&mut self, _seed: u64) {}

    fn choose_until(
        &mut self,
        game: &KalahRules,
        state: &<KalahRules as Game>::State,
        stop: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        if let Some(clock) = stop.clock {
            self.seen.lock().unwrap().push(clock);
        }
        std::thread::sleep(self.sleep);
        Ok(game.legal_moves(state).nth(0))
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

struct Run {
    records: Vec<GameRecord>,
    /// The clocks the sleeper saw, move by move (one game at a time).
    seen: Vec<Clock>,
}

/// Two games (seats swapped) of a sleeper against `opponent`.
fn play(
    sleep: Duration,
    opponent: &str,
    control: &str,
    margin: Duration,
    move_timeout: Option<Duration>,
) -> Run {
    let game = KalahRules::default();
    let opponent: AgentSpec = opponent.parse().unwrap();
    let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
    let mine = std::sync::Arc::clone(&seen);
    let arena = Arena {
        game: &game,
        game_spec: "kalah".into(),
        players: Players {
            names: vec!["sleeper".into(), opponent.to_string()],
            specs: vec!["sleeper".into(), opponent.to_string()],
            factory: Box::new(move |i| -> Box<dyn Agent<KalahRules>> {
                if i == 0 {
                    Box::new(Sleeper {
                        sleep,
                        seen: std::sync::Arc::clone(&mine),
                    })
                } else {
                    opponent.build::<KalahRules>()
                }
            }),
        },
        openings: vec![mancala_arena::Opening::default()],
        options: RunOptions {
            threads: 1,
            seed: 1,
            move_timeout,
            time_control: TimeControl::parse(control).unwrap(),
            time_margin: margin,
            live: None,
        },
        adjudicator: None,
    };
    let plan = schedule(&pairs(Format::RoundRobin, 2), 2, 1);
    let records = Mutex::new(Vec::new());
    arena
        .run(&plan, &AtomicBool::new(false), &|r| {
            records.lock().unwrap().push(r)
        })
        .unwrap();
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.id);
    // What the runner logs is what a resumed run accepts.
    for r in &records {
        arena.check_record(&plan[r.id as usize], r).unwrap();
    }
    let seen = seen.lock().unwrap().clone();
    Run { records, seen }
}

/// The moves the agent in `seat` made in `r`, replayed.
fn moves_of(r: &GameRecord, seat: usize) -> usize {
    let game = KalahRules::default();
    let mut state = game.start();
    let mut count = 0;
    for token in r.moves.split_whitespace() {
        if game.to_move(&state) == Some(if seat == 0 { Player::ZERO } else { Player::ONE }) {
            count += 1;
        }
        game.try_play(&mut state, token.parse().unwrap()).unwrap();
    }
    count
}

#[test]
fn the_flag_falls_after_the_increments_and_the_margin_are_spent() {
    // 250 ms + 50 ms a move, moves of 100 ms, 25 ms of margin: before its
    // k-th move the clock shows 250 - 50 (k - 1) ms, so moves 1 to 4 fit
    // (the 4th with 100 ms on the clock) and the 5th (50 ms, 75 with the
    // margin) loses. Without the increment the 3rd would lose; without
    // the margin, the 4th.
    let run = play(ms(100), "random", "0.25+0.05", ms(25), None);
    for r in &run.records {
        let seat = r.seats.iter().position(|&a| a == 0).unwrap();
        assert_eq!(r.end, "time", "{r:?}");
        assert_eq!(r.winner, Some(1 - seat as u8), "{r:?}");
        assert_eq!(moves_of(r, seat), 4, "{r:?}");
        let error = r.error.as_deref().unwrap();
        assert!(
            error.starts_with(&format!("seat {seat}: out of time: move "))
                && error.contains("on the clock (margin 25 ms)"),
            "{error}"
        );
    }
    // The clocks it was shown: its own falling by about 50 ms a move, the
    // opponent's (random, instant) near its start plus increments.
    let first_game: Vec<&Clock> = run.seen.iter().take(5).collect();
    let seat = run.records[0].seats.iter().position(|&a| a == 0).unwrap();
    for (k, clock) in first_game.iter().enumerate() {
        let own = clock.remaining[seat].as_millis() as i64;
        let expected = 250 - 50 * k as i64;
        assert!(
            (expected - 15..=expected).contains(&own),
            "move {}: {own} ms, expected about {expected}",
            k + 1
        );
        assert_eq!(clock.increment, [ms(50), ms(50)]);
        assert!(clock.remaining[1 - seat] >= ms(250), "{clock:?}");
        assert_eq!(clock.moves_to_go, None);
    }
}

#[test]
fn a_move_timeout_still_works_beside_the_clock() {
    // The 60 ms cap comes before the clock's 10 s: the slow move is a
    // forfeit for the cap, not a loss on time.
    let run = play(ms(100), "random", "10+0", ms(25), Some(ms(60)));
    for r in &run.records {
        assert_eq!(r.end, "forfeit", "{r:?}");
        assert!(r.error.as_deref().unwrap().contains("timeout"), "{r:?}");
    }
}

#[test]
fn periods_and_time_auto_agents_keep_their_clocks() {
    // `minimax:time=auto` spends its share of a short clock and never
    // loses on time; the sleeper, fast enough here, plays every game out.
    let run = play(ms(2), "minimax:time=auto", "3/0.3+0", ms(50), None);
    for r in &run.records {
        assert_ne!(r.end, "time", "{r:?}");
        assert!(r.error.is_none(), "{r:?}");
    }
    // Three moves a period: the sleeper is told its moves left, 3, 2, 1,
    // 3, ..., and its clock gains the base after every third move.
    let to_go: Vec<u32> = run
        .seen
        .iter()
        .take(6)
        .map(|c| c.moves_to_go.unwrap())
        .collect();
    assert_eq!(to_go, [3, 2, 1, 3, 2, 1]);
    let seat = run.records[0].seats.iter().position(|&a| a == 0).unwrap();
    let own = run.seen[3].remaining[seat];
    assert!(own > ms(550) && own <= ms(600), "{own:?}");
}
