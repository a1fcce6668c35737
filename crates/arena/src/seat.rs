//! A seat at the table: an agent, and how the runner asks it for moves.
//!
//! When moves have a time limit, an agent that does not promise to keep it
//! itself (see [`Agent::enforces_deadline`]) plays from a thread of its
//! own, watched from the worker: a move that has not come back a grace
//! period after the deadline loses the game, and the worker moves on to the
//! next game with a new agent. The runaway thread cannot be killed (Rust
//! threads cannot be), so it is left behind; if it ever returns, it finds
//! nobody listening and ends.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use mancala_agents::{Agent, AgentError, Clock, SearchInfo, StopCondition};
use mancala_core::{Game, Move};

/// How long after a move's deadline a watched agent may still return
/// before it is given up as hung. Its game is lost either way (the move is
/// late); the grace only decides whether the agent is kept.
pub const HANG_GRACE: Duration = Duration::from_secs(1);

/// How often a worker waiting on a watched agent looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(20);

/// What asking for a move gave.
pub(crate) enum Choice {
    /// The agent answered (a move or an error).
    Answer(Result<Move, AgentError>),
    /// The agent panicked; the message.
    Panicked(String),
    /// The agent did not return within the deadline and grace.
    Hung,
}

/// An agent, played directly or from a watched thread.
pub(crate) enum Seat<G: Game> {
    /// Called on the worker's thread; whether to ask it what it searched.
    Direct(Box<dyn Agent<G>>, bool),
    /// Called through a thread of its own.
    Watched(Watched<G>),
}

impl<G: Game> Seat<G> {
    /// Seats `agent`, watched when moves have a deadline (`timed`: a move
    /// timeout or a clock) that it does not keep by itself.
    pub(crate) fn new(agent: Box<dyn Agent<G>>, game: &G, timed: bool) -> Seat<G> {
        if timed && !agent.enforces_deadline() {
            Seat::Watched(Watched::spawn(agent, game.clone()))
        } else {
            let reports = agent.reports_search();
            Seat::Direct(agent, reports)
        }
    }

    pub(crate) fn new_game(&mut self, seed: u64) {
        match self {
            Seat::Direct(agent, _) => agent.new_game(seed),
            Seat::Watched(w) => w.send(Request::NewGame(seed)),
        }
    }

    pub(crate) fn observe(&mut self, mv: Move) {
        match self {
            Seat::Direct(agent, _) => agent.observe(mv),
            Seat::Watched(w) => w.send(Request::Observe(mv)),
        }
    }

    /// Asks for a move: what came back, and what the agent said of its
    /// search (nothing when it did not answer).
    pub(crate) fn choose(
        &mut self,
        game: &G,
        state: &G::State,
        until: StopCondition<'_>,
    ) -> (Choice, SearchInfo) {
        match self {
            Seat::Direct(agent, reports) => answer_of(agent.as_mut(), *reports, game, state, until),
            Seat::Watched(w) => w.choose(state, until),
        }
    }
}

/// Asks `agent` for a move, a panic caught, and what it searched if it
/// `reports` searches.
fn answer_of<G: Game>(
    agent: &mut dyn Agent<G>,
    reports: bool,
    game: &G,
    state: &G::State,
    until: StopCondition<'_>,
) -> (Choice, SearchInfo) {
    match catch_unwind(AssertUnwindSafe(|| agent.choose_until(game, state, until))) {
        Ok(answer) => {
            let info = if reports {
                agent.info()
            } else {
                SearchInfo::default()
            };
            (Choice::Answer(answer), info)
        }
        Err(panic) => (
            Choice::Panicked(panic_message(panic.as_ref())),
            SearchInfo::default(),
        ),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

enum Request<G: Game> {
    NewGame(u64),
    Observe(Move),
    Choose {
        state: G::State,
        deadline: Option<Instant>,
        clock: Option<Clock>,
    },
}

/// An agent on a thread of its own.
pub(crate) struct Watched<G: Game> {
    requests: Sender<Request<G>>,
    answers: Receiver<(Choice, SearchInfo)>,
    /// Raised when the run stops, for the agent's search to see.
    cancel: Arc<AtomicBool>,
    /// Whether the thread is known to be gone or stuck.
    lost: bool,
}

impl<G: Game> Watched<G> {
    fn spawn(mut agent: Box<dyn Agent<G>>, game: G) -> Watched<G> {
        let (requests, inbox) = mpsc::channel::<Request<G>>();
        let (outbox, answers) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let reports = agent.reports_search();
        let spawned = thread::Builder::new()
            .name(format!("agent {}", agent.name()))
            .spawn(move || {
                for request in inbox {
                    match request {
                        Request::NewGame(seed) => agent.new_game(seed),
                        Request::Observe(mv) => agent.observe(mv),
                        Request::Choose {
                            state,
                            deadline,
                            clock,
                        } => {
                            let until = StopCondition {
                                deadline,
                                cancel: Some(&flag),
                                clock,
                            };
                            let answer = answer_of(agent.as_mut(), reports, &game, &state, until);
                            if outbox.send(answer).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        Watched {
            requests,
            answers,
            cancel,
            lost: spawned.is_err(),
        }
    }

    fn send(&mut self, request: Request<G>) {
        if self.requests.send(request).is_err() {
            self.lost = true;
        }
    }

    fn choose(&mut self, state: &G::State, until: StopCondition<'_>) -> (Choice, SearchInfo) {
        self.send(Request::Choose {
            state: state.clone(),
            deadline: until.deadline,
            clock: until.clock,
        });
        let failed = |why: &str| {
            (
                Choice::Answer(Err(AgentError::Failed(why.into()))),
                SearchInfo::default(),
            )
        };
        if self.lost {
            return failed("the agent's thread could not start or has ended");
        }
        let give_up = until.deadline.map(|d| d + HANG_GRACE);
        loop {
            let wait = match give_up {
                Some(t) => t.saturating_duration_since(Instant::now()).min(STOP_POLL),
                None => STOP_POLL,
            };
            match self.answers.recv_timeout(wait) {
                Ok(choice) => return choice,
                Err(RecvTimeoutError::Disconnected) => {
                    self.lost = true;
                    return failed("the agent's thread ended");
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if until.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                self.cancel.store(true, Ordering::Relaxed);
            }
            if give_up.is_some_and(|t| Instant::now() >= t) {
                self.lost = true;
                return (Choice::Hung, SearchInfo::default());
            }
        }
    }
}

impl<G: Game> Drop for Watched<G> {
    fn drop(&mut self) {
        // A stuck search may be looking at this flag; either way the thread
        // ends once it sees its request channel closed.
        self.cancel.store(true, Ordering::Relaxed);
    }
}
