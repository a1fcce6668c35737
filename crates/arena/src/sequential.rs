//! A match that plays until a sequential probability ratio test decides
//! (`mancala match --sprt`, fastchess's `-sprt`).
//!
//! The test is fed completed pairs in pair order and stops at the first
//! pair where the log-likelihood ratio reaches a bound; games of later
//! pairs (played in the same batch) are thrown away. So the decision, the
//! pairs counted and every number reported depend only on the seed and the
//! agents, not on threads or timing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use mancala_core::Game;

use crate::record::GameRecord;
use crate::runner::Arena;
use crate::schedule::ScheduledGame;
use crate::stats::{Sprt, SprtSpec, StatsError};
use crate::ArenaError;

/// Pairs in the first batches. The decision does not depend on it (pairs
/// are judged in order, whatever the batches), only how many games past
/// the deciding pair are played and thrown away.
pub const MIN_BATCH_PAIRS: usize = 32;

/// Why a sequential match could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SequentialError {
    /// The games could not be played.
    #[error(transparent)]
    Arena(#[from] ArenaError),
    /// A game's score could not be counted.
    #[error(transparent)]
    Stats(#[from] StatsError),
}

/// How a sequential match ended.
#[derive(Debug)]
pub struct SequentialMatch {
    /// The test with every counted pair: its decision, LLR and counts.
    pub sprt: Sprt,
    /// The games of the counted pairs, in id order.
    pub counted: Vec<GameRecord>,
    /// Whether `stop` ended it before a decision or the last pair.
    pub interrupted: bool,
}

/// Plays the pairs of `games` (games `2k` and `2k + 1` are pair `k`, agent
/// 0 of `arena` being the one tested) in batches until `spec`'s test
/// decides, the games run out, or `stop` is raised. `on_batch` sees the
/// test after each batch (for progress).
///
/// # Errors
/// [`SequentialError`] when the games cannot be played.
pub fn play_until_decided<G: Game>(
    arena: &Arena<'_, G>,
    games: &[ScheduledGame],
    spec: SprtSpec,
    stop: &AtomicBool,
    on_batch: &dyn Fn(&Sprt),
) -> Result<SequentialMatch, SequentialError> {
    let total_pairs = games.len() / 2;
    let mut sprt = Sprt::new(spec);
    let mut counted: Vec<GameRecord> = Vec::new();
    let mut next_pair = 0;
    let mut interrupted = false;
    while next_pair < total_pairs && !sprt.decision().is_final() {
        // Batches grow with the match, so that long tests are not slowed
        // by waiting for the slowest game of many small batches, while a
        // clear result stops after few games.
        let batch = MIN_BATCH_PAIRS
            .max(arena.options.threads)
            .max(next_pair / 4)
            .min(total_pairs - next_pair);
        let batch_games = &games[2 * next_pair..2 * (next_pair + batch)];
        let played = Mutex::new(Vec::with_capacity(batch_games.len()));
        arena.run(batch_games, stop, &|r: GameRecord| {
            played.lock().expect("records").push(r);
        })?;
        let mut played = played.into_inner().expect("records");
        played.sort_by_key(|r| r.id);
        let mut played = played.into_iter().peekable();
        let batch_start = next_pair;
        for pair in batch_start..batch_start + batch {
            let ids = [games[2 * pair].id, games[2 * pair + 1].id];
            // Records come sorted, from this batch's games only, whose ids
            // are those of its pairs in order.
            let first = played.next_if(|r| r.id == ids[0]);
            let second = played.next_if(|r| r.id == ids[1]);
            let (Some(first), Some(second)) = (first, second) else {
                // A game of this pair was never played (stopped): the test
                // ends here, undecided.
                interrupted = true;
                break;
            };
            sprt.add_pair(score_of_first_agent(&first), score_of_first_agent(&second))?;
            counted.push(first);
            counted.push(second);
            next_pair = pair + 1;
            if sprt.decision().is_final() {
                break;
            }
        }
        on_batch(&sprt);
        if interrupted || stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
    }
    Ok(SequentialMatch {
        sprt,
        counted,
        interrupted,
    })
}

/// The score of agent 0 in a game between agents 0 and 1.
pub fn score_of_first_agent(r: &GameRecord) -> f64 {
    if r.seats[0] == 0 {
        r.first_seat_score()
    } else {
        1.0 - r.first_seat_score()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{Players, RunOptions};
    use crate::schedule::{pairs, random_openings, schedule, Format};
    use mancala_agents::{Agent, AgentSpec};
    use mancala_core::KalahRules;

    /// Greedy (agent 0) against random on Kalah(4,3): `pairs` pairs of
    /// games from seeded openings, on `threads` threads.
    fn run(threads: usize, spec: &str, stop: bool) -> SequentialMatch {
        let game = KalahRules::new(4, 3).unwrap();
        let specs: Vec<AgentSpec> = ["greedy", "random"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let openings: Vec<crate::Opening<_>> = random_openings(&game, 200, 2, 5)
            .unwrap()
            .into_iter()
            .map(Into::into)
            .collect();
        let games = schedule(&pairs(Format::RoundRobin, 2), 400, openings.len());
        let arena = Arena {
            game: &game,
            game_spec: "kalah:pits=4,seeds=3".into(),
            players: Players {
                names: vec!["greedy".into(), "random".into()],
                specs: vec!["greedy".into(), "random".into()],
                factory: Box::new(|i| -> Box<dyn Agent<KalahRules>> { specs[i].build() }),
            },
            openings,
            options: RunOptions {
                threads,
                seed: 3,
                move_timeout: None,
                time_control: None,
                time_margin: crate::DEFAULT_TIME_MARGIN,
                live: None,
            },
            adjudicator: None,
        };
        let stop = AtomicBool::new(stop);
        play_until_decided(&arena, &games, spec.parse().unwrap(), &stop, &|_| {}).unwrap()
    }

    #[test]
    fn the_decision_and_its_pairs_do_not_depend_on_threads() {
        // Greedy is far stronger than random: H1 (elo1 = 100) is accepted.
        let one = run(1, "elo0=0,elo1=100,alpha=0.05,beta=0.05", false);
        assert_eq!(one.sprt.decision(), crate::stats::SprtDecision::AcceptH1);
        assert!(!one.interrupted);
        let pairs = one.sprt.pentanomial().pairs();
        assert!(pairs > 0 && pairs < 200, "{pairs} pairs");
        assert_eq!(one.counted.len() as u64, 2 * pairs);
        assert!(one.counted.windows(2).all(|w| w[0].id < w[1].id));
        let two = run(2, "elo0=0,elo1=100,alpha=0.05,beta=0.05", false);
        assert_eq!(two.sprt.decision(), one.sprt.decision());
        assert_eq!(two.sprt.pentanomial(), one.sprt.pentanomial());
        assert_eq!(two.sprt.llr(), one.sprt.llr());
        // Against a hypothesis far above the truth, H0 is accepted.
        let far = run(2, "elo0=900,elo1=1000,alpha=0.05,beta=0.05", false);
        assert_eq!(far.sprt.decision(), crate::stats::SprtDecision::AcceptH0);
    }

    #[test]
    fn a_stop_before_the_first_pair_counts_nothing() {
        let stopped = run(2, "elo0=0,elo1=100,alpha=0.05,beta=0.05", true);
        assert!(stopped.interrupted);
        assert_eq!(stopped.sprt.pentanomial().pairs(), 0);
        assert!(stopped.counted.is_empty());
    }
}
