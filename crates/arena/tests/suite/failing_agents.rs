//! A failing agent (panic, error, illegal move, timeout, a move that never
//! returns) loses its game with the reason recorded, and the run goes on.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;

use mancala_agents::{
    Agent, AgentError, AgentSpec, Budget, Evaluator, Mcts, MctsOptions, StopCondition,
};
use mancala_arena::{pairs, schedule, Arena, Format, GameRecord, Players, RunOptions};
use mancala_core::{Game, KalahRules, Move};
use rand::rngs::SmallRng;

/// How the bad agent misbehaves on its third move.
#[derive(Clone, Copy)]
enum Fault {
    Panic,
    Error,
    Illegal,
    Slow,
    /// Never returns, and ignores every stop condition.
    Hang,
    /// A search whose evaluator fails (a broken network).
    BrokenEvaluator,
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

    fn choose_until(
        &mut self,
        game: &KalahRules,
        state: &<KalahRules as Game>::State,
        _stop: StopCondition<'_>,
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
            Fault::Hang => loop {
                std::thread::sleep(Duration::from_millis(50));
            },
            Fault::BrokenEvaluator => unreachable!("a search, not this agent"),
        }
    }
}

/// An evaluator whose model stops working after a few positions.
struct Failing {
    calls: u32,
}

impl Evaluator<KalahRules> for Failing {
    fn uses_priors(&self) -> bool {
        false
    }

    fn evaluate(
        &mut self,
        _: &KalahRules,
        _: &<KalahRules as Game>::State,
        _: &mut SmallRng,
        _: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        self.calls += 1;
        if self.calls > 20 {
            return Err(AgentError::Failed("network down".into()));
        }
        Ok(0.5)
    }
}

fn faulty(fault: Fault) -> Box<dyn Agent<KalahRules>> {
    match fault {
        Fault::BrokenEvaluator => Box::new(Mcts::new(
            MctsOptions {
                budget: Budget::Sims(8),
                ..MctsOptions::default()
            },
            Failing { calls: 0 },
        )),
        _ => Box::new(Faulty { fault, moves: 0 }),
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
                    faulty(fault)
                } else {
                    greedy.build::<KalahRules>()
                }
            }),
        },
        openings: vec![mancala_arena::Opening::default()],
        options: RunOptions {
            threads: 2,
            seed: 1,
            // Only the slow agent's case needs a limit; elsewhere a loaded
            // machine must not turn a fault into a timeout.
            move_timeout: matches!(fault, Fault::Slow | Fault::Hang)
                .then_some(Duration::from_millis(10)),
            time_control: None,
            time_margin: mancala_arena::DEFAULT_TIME_MARGIN,
            live: None,
        },
        adjudicator: None,
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
    // What the runner logs is what a resumed run accepts.
    for r in &records {
        arena.check_record(&plan[r.id as usize], r).unwrap();
    }
    records
}

#[test]
fn failing_agents_forfeit_and_the_run_goes_on() {
    for (fault, reason) in [
        (Fault::Panic, "agent panicked: deliberate failure"),
        (Fault::Error, "agent error: deliberate error"),
        (Fault::Illegal, "illegal move"),
        (Fault::Slow, "timeout"),
        (Fault::Hang, "the agent was abandoned"),
        (Fault::BrokenEvaluator, "agent error: network down"),
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
            // The forfeit happens on the faulty agent's third move (the
            // broken evaluator fails whenever its count runs out).
            if !matches!(fault, Fault::BrokenEvaluator) {
                assert!(r.plies >= 2, "{r:?}");
            }
        }
    }
}
