//! A failing agent (panic, error, illegal move, timeout) loses its game with
//! the reason recorded, and the run goes on.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;

use mancala_agents::{Agent, AgentError, AgentSpec};
use mancala_arena::{pairs, schedule, Arena, Format, GameRecord, Players, RunOptions};
use mancala_core::{Game, KalahRules, Move};

/// How the bad agent misbehaves on its third move.
#[derive(Clone, Copy)]
enum Fault {
    Panic,
    Error,
    Illegal,
    Slow,
}

struct Faulty {
    fault: Fault,
    moves: u32,
}

impl Agent<KalahRules> for Faulty {
    fn name(&self) -> String {
        "faulty".into()
    }

    fn new_game(&mut self, _seed: u64) {
        self.moves = 0;
    }

    fn choose(
        &mut self,
        game: &KalahRules,
        state: &<KalahRules as Game>::State,
    ) -> Result<Move, AgentError> {
        self.moves += 1;
        let legal = game.legal_moves(state);
        if self.moves < 3 {
            return Ok(legal.nth(0));
        }
        match self.fault {
            Fault::Panic => panic!("deliberate failure"),
            Fault::Error => Err(AgentError::Failed("deliberate error".into())),
            Fault::Illegal => Ok((0..6u8)
                .map(Move::Pit)
                .find(|m| !legal.contains(*m))
                .unwrap_or(Move::Swap)),
            Fault::Slow => {
                std::thread::sleep(Duration::from_millis(30));
                Ok(legal.nth(0))
            }
        }
    }
}

fn run_with(fault: Fault) -> Vec<GameRecord> {
    let game = KalahRules::default();
    let greedy: AgentSpec = "greedy".parse().unwrap();
    let arena = Arena {
        game: &game,
        game_spec: "kalah".into(),
        players: Players {
            names: vec!["faulty".into(), "greedy".into()],
            specs: vec!["faulty".into(), "greedy".into()],
            factory: Box::new(move |i| -> Box<dyn Agent<KalahRules>> {
                if i == 0 {
                    Box::new(Faulty { fault, moves: 0 })
                } else {
                    greedy.build::<KalahRules>()
                }
            }),
        },
        openings: vec![Vec::new()],
        options: RunOptions {
            threads: 2,
            seed: 1,
            move_timeout: Some(Duration::from_millis(10)),
        },
    };
    let plan = schedule(&pairs(Format::RoundRobin, 2), 6, 1);
    let records = Mutex::new(Vec::new());
    arena
        .run(&plan, &AtomicBool::new(false), &|r| {
            records.lock().unwrap().push(r)
        })
        .unwrap();
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.id);
    records
}

#[test]
fn failing_agents_forfeit_and_the_run_goes_on() {
    for (fault, reason) in [
        (Fault::Panic, "agent panicked: deliberate failure"),
        (Fault::Error, "agent error: deliberate error"),
        (Fault::Illegal, "illegal move"),
        (Fault::Slow, "timeout"),
    ] {
        let records = run_with(fault);
        assert_eq!(records.len(), 6, "every game is played and recorded");
        for r in &records {
            let seat = r.seats.iter().position(|&a| a == 0).unwrap();
            assert_eq!(r.end, "forfeit", "{r:?}");
            assert_eq!(
                r.winner,
                Some(1 - seat as u8),
                "the faulty agent loses: {r:?}"
            );
            let error = r.error.as_deref().unwrap();
            assert!(
                error.starts_with(&format!("seat {seat}:")) && error.contains(reason),
                "{error}"
            );
            // The forfeit happens on the faulty agent's third move.
            assert!(r.plies >= 2, "{r:?}");
        }
    }
}
