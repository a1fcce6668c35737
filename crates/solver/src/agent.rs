//! The `perfect` agent: plays a move of the best value, found by the solver
//! of its game ([`crate::exact_solver`]): [`Solver`] for Kalah and single-round
//! Congkak.
//!
//! `perfect` solves every position it is asked about, however long that
//! takes. `perfect:time=2s,fallback=minimax:depth=8` gives up after two
//! seconds and lets the fallback agent move instead (the fallback spec comes
//! last, as it may hold commas of its own). Among moves of equal value the
//! game's seed decides.
//!
//! The agent gets its solver from a [`Solvers`] pool: the process's
//! ([`Solvers::shared`]) unless built with one of its own
//! ([`PerfectSpec::build_with`]: the web server's, bounded). Agents of one
//! pool with the same rules and table size share one solver: its table
//! holds exact values, so what one game or thread learns is good for all,
//! and the endgame database is built once. With `time=`, a database that
//! is still being built does not hold the move up: the pool builds it in
//! the background and the fallback moves until it is ready.
//! [`Perfect::from_solver`] plays from a solver the caller already has
//! instead (its table warm from solving the position the games start
//! from).

use std::sync::Arc;
use std::time::Instant;

use mancala_agents::{
    parse_duration, Agent, AgentError, AgentSpec, Budget, Pv, SearchInfo, SearchKind, StopCondition,
};
use mancala_core::spec::{bad_value, Spec};
use mancala_core::{Move, SpecError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use thiserror::Error;

use crate::solvers::{Profile, Solvable, Solvers};
use crate::{ExactGame, ExactSolver, SolveError, Solver, SolverOptions};

/// Why the `perfect` agent cannot play a game.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PerfectError {
    /// The game's solver refuses these rules (multi-round Congkak).
    #[error("perfect play is not available for {0}")]
    Unsolvable(SolveError),
    /// No solver the agent plays from knows the game.
    #[error("perfect play is available for single-round Congkak and Kalah only, not {game}")]
    Unsupported {
        /// The game's name.
        game: &'static str,
    },
}

/// Most table the `perfect` agent takes unless `tt=` says otherwise: a
/// small board's is smaller, sized to what its positions can fill
/// ([`crate::table_mib_for`]).
pub const AGENT_TABLE_MIB: usize = 256;

/// Positions of the agent's endgame database (one byte each).
pub const AGENT_ENDGAME_POSITIONS: u64 = 1 << 24;

/// Largest `tt=` accepted, in MiB.
pub const MAX_TABLE_MIB: usize = 16 * 1024;

/// A parsed `perfect:...` spec; the default is plain `perfect`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerfectSpec {
    /// Give up solving after this long (and play the fallback's move):
    /// `Budget::Time`, or `Budget::Auto` (`time=auto`) for half of what the
    /// game clock's time manager gives the move, the rest left to the
    /// fallback.
    pub time: Option<Budget>,
    /// Transposition table size in MiB (`tt=`); `None`: sized to the
    /// board, at most [`AGENT_TABLE_MIB`].
    pub table_mib: Option<usize>,
    /// Who moves when the solver gives up; without one, the solver never does.
    pub fallback: Option<AgentSpec>,
}

impl PerfectSpec {
    /// Parses `perfect`, `perfect:time=1s,tt=512,fallback=SPEC` (fallback last).
    ///
    /// # Errors
    /// [`SpecError`] naming the key.
    pub fn parse(text: &str) -> Result<PerfectSpec, SpecError> {
        let text = text.trim();
        let (own, fallback) = match text.find("fallback=") {
            Some(i) => (
                text[..i].trim_end_matches(','),
                Some(text[i + "fallback=".len()..].trim()),
            ),
            None => (text, None),
        };
        let spec = Spec::parse(own)?;
        if spec.name != "perfect" {
            return Err(bad_value("agent", &spec.name, "perfect"));
        }
        spec.check_keys(&["time", "tt"])?;
        let mut out = PerfectSpec::default();
        match spec.get("time") {
            Some("auto") => out.time = Some(Budget::Auto),
            Some(t) => out.time = Some(Budget::Time(parse_duration("time", t)?)),
            None => {}
        }
        if let Some(mib) = spec.get_int("tt", 1..=MAX_TABLE_MIB as u64)? {
            out.table_mib = Some(mib as usize);
        }
        if let Some(f) = fallback {
            out.fallback = Some(f.parse::<AgentSpec>()?);
        }
        if out.time.is_some() != out.fallback.is_some() {
            return Err(bad_value(
                "fallback",
                fallback.unwrap_or(""),
                "both `time` and `fallback` (the agent that moves when time runs out), or neither",
            ));
        }
        Ok(out)
    }

    /// Whether the agent can play `game`: Kalah, and Congkak in a single
    /// round (the games whose positions alone decide their values).
    ///
    /// # Errors
    /// [`PerfectError::Unsolvable`] for multi-round Congkak,
    /// [`PerfectError::Unsupported`] for Oware.
    pub fn check<G: Solvable>(&self, game: &G) -> Result<(), PerfectError> {
        match game.check_store_free() {
            Ok(()) => Ok(()),
            Err(SolveError::NeedsHistory { game }) => Err(PerfectError::Unsupported { game }),
            Err(e) => Err(PerfectError::Unsolvable(e)),
        }
    }

    /// A fresh agent playing from the process's pool of solvers.
    pub fn build<G: Solvable>(&self) -> Box<dyn Agent<G>> {
        self.build_with(Arc::clone(Solvers::shared()))
    }

    /// A fresh agent playing from `solvers`.
    pub fn build_with<G: Solvable>(&self, solvers: Arc<Solvers>) -> Box<dyn Agent<G>> {
        Box::new(Perfect {
            spec: self.clone(),
            solvers,
            solver: None,
            fallback: self.fallback.as_ref().map(AgentSpec::build::<G>),
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
        })
    }

    /// The solver options the agent plays `rules` with: those of
    /// [`Profile::Play`], with the table of `tt=` if given.
    pub fn options<G: Solvable>(&self, rules: &G) -> SolverOptions {
        let mut options = rules.default_options(Profile::Play);
        if let Some(mib) = self.table_mib {
            options.table_mib = mib;
        }
        options
    }
}

impl std::fmt::Display for PerfectSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut opts = Vec::new();
        match self.time {
            Some(Budget::Time(t)) => {
                opts.push(format!("time={}", mancala_agents::format_duration(t)));
            }
            Some(Budget::Auto) => opts.push("time=auto".into()),
            _ => {}
        }
        if let Some(mib) = self.table_mib {
            opts.push(format!("tt={mib}"));
        }
        if let Some(fb) = &self.fallback {
            opts.push(format!("fallback={fb}"));
        }
        if opts.is_empty() {
            f.write_str("perfect")
        } else {
            write!(f, "perfect:{}", opts.join(","))
        }
    }
}

/// Why the solver gave no move.
enum Failure {
    Stopped,
    GameOver,
    /// The pool could not give a solver (a build that failed, perhaps for
    /// want of memory): the fallback, if any, moves.
    Unavailable(String),
    Failed(String),
}

impl From<SolveError> for Failure {
    fn from(e: SolveError) -> Failure {
        match e {
            SolveError::Stopped => Failure::Stopped,
            SolveError::GameOver => Failure::GameOver,
            e => Failure::Failed(e.to_string()),
        }
    }
}

/// The `perfect` agent.
pub struct Perfect<G: Solvable> {
    spec: PerfectSpec,
    /// Where its solver comes from.
    solvers: Arc<Solvers>,
    /// The solver it plays from, once it has one.
    solver: Option<Arc<dyn ExactSolver<G>>>,
    fallback: Option<Box<dyn Agent<G>>>,
    rng: SmallRng,
    info: SearchInfo,
}

impl<G: ExactGame> Perfect<G> {
    /// Plain `perfect` playing from `solver`: see [`Perfect::playing_from`].
    pub fn from_solver(solver: Arc<Solver<G>>) -> Perfect<G> {
        Perfect::playing_from(solver)
    }
}

impl<G: Solvable> Perfect<G> {
    /// Plain `perfect` playing from `solver` (for positions of its rules)
    /// rather than from a pool's: a caller that has just solved a position
    /// hands over the warm table, and it is freed with the last agent
    /// holding it. Positions of other rules are played from the process's
    /// pool.
    pub fn playing_from(solver: Arc<dyn ExactSolver<G>>) -> Perfect<G> {
        Perfect {
            spec: PerfectSpec::default(),
            solvers: Arc::clone(Solvers::shared()),
            solver: Some(solver),
            fallback: None,
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
        }
    }

    /// The position's value and the moves that keep it, by the agent's
    /// solver if it solves these rules, else by its pool's (kept for the
    /// next move); a pool still building the solver when `stop` comes
    /// stops it as a search would.
    fn best_moves(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), Failure> {
        let solver = match &self.solver {
            Some(s) if s.solves(game) => Arc::clone(s),
            _ => {
                let options = self.spec.options(game);
                let s = self
                    .solvers
                    .get_by(game, &options, stop)
                    .map_err(|e| match e {
                        SolveError::Stopped => Failure::Stopped,
                        e => Failure::Unavailable(e.to_string()),
                    })?;
                self.solver = Some(Arc::clone(&s));
                s
            }
        };
        Ok(solver.best_moves(state, 1, stop)?)
    }
}

impl<G: Solvable> Agent<G> for Perfect<G> {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        if let Some(f) = &mut self.fallback {
            f.new_game(mancala_agents::derive_seed(seed, 1));
        }
    }

    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        outer: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        let t0 = Instant::now();
        self.spec
            .check(game)
            .map_err(|e| AgentError::Failed(e.to_string()))?;
        let own_deadline = match (self.spec.time, game.to_move(state)) {
            (Some(Budget::Auto), Some(mover)) => {
                // Half the move's share: the fallback may need the rest.
                let share = match &outer.clock {
                    Some(clock) => mancala_agents::time_for_move(clock, mover),
                    None => mancala_agents::AUTO_WITHOUT_CLOCK,
                };
                t0.checked_add(share / 2)
            }
            (Some(Budget::Time(t)), _) => t0.checked_add(t),
            _ => None,
        };
        let stop = outer.or_by(own_deadline);
        self.info = SearchInfo::default();
        let result = self.best_moves(game, state, stop);
        self.info.elapsed = t0.elapsed();
        match result {
            Ok((best, top)) => {
                let mv = top[self.rng.random_range(0..top.len())];
                self.info.kind = SearchKind::Exact;
                self.info.value = Some(f64::from(best));
                self.info.pv = Pv::of([mv]);
                Ok(mv)
            }
            Err(failure @ (Failure::Stopped | Failure::Unavailable(_))) if !outer.reached() => {
                match &mut self.fallback {
                    Some(fallback) => {
                        // The fallback plans with the clock as it is now.
                        let mut outer = outer;
                        if let (Some(clock), Some(mover)) = (&mut outer.clock, game.to_move(state))
                        {
                            clock.remaining[mover.index()] =
                                clock.remaining[mover.index()].saturating_sub(t0.elapsed());
                        }
                        let answer = fallback.choose_until(game, state, outer);
                        // What the move was chosen by, over the whole move's time.
                        self.info = SearchInfo {
                            elapsed: t0.elapsed(),
                            ..fallback.info()
                        };
                        answer
                    }
                    None => Err(match failure {
                        Failure::Unavailable(why) => AgentError::Failed(why),
                        _ => AgentError::Stopped,
                    }),
                }
            }
            Err(Failure::Stopped) => Err(AgentError::Stopped),
            Err(Failure::Unavailable(why)) => Err(AgentError::Failed(why)),
            Err(Failure::GameOver) => Err(AgentError::GameOver),
            Err(Failure::Failed(why)) => Err(AgentError::Failed(why)),
        }
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::{CongkakRules, Game, KalahRules};

    #[test]
    fn the_agents_table_is_sized_to_the_board_unless_tt_says() {
        let small = KalahRules::new(4, 1).unwrap();
        let big = KalahRules::default();
        let mib = |rules: &KalahRules, spec: &str| {
            PerfectSpec::parse(spec).unwrap().options(rules).table_mib
        };
        assert_eq!(mib(&small, "perfect"), crate::MIN_TABLE_MIB);
        assert_eq!(mib(&big, "perfect"), AGENT_TABLE_MIB);
        assert_eq!(mib(&small, "perfect:tt=64"), 64);
        assert_eq!(mib(&big, "perfect:tt=1024"), 1024);
        let congkak = CongkakRules::new(3, 2).unwrap();
        let plain = PerfectSpec::default();
        assert_eq!(plain.options(&congkak).table_mib, crate::MIN_TABLE_MIB);
        // Oware's table grows as it fills: the cap is all there is to say.
        let oware = mancala_core::OwareRules::default();
        assert_eq!(plain.options(&oware).table_mib, AGENT_TABLE_MIB);
        // An explicit size prints back, even the cap.
        let spec = PerfectSpec::parse("perfect:tt=256").unwrap();
        assert_eq!(spec.to_string(), "perfect:tt=256");
        assert_eq!(
            PerfectSpec::parse("perfect").unwrap().to_string(),
            "perfect"
        );
    }

    #[test]
    fn with_time_it_moves_by_its_fallback_while_its_database_builds() {
        // A database of 2^24 positions on six pits (14 seeds) takes seconds
        // to build: far longer than the move's 200 ms.
        let rules = KalahRules::new(6, 3).unwrap();
        let spec = PerfectSpec::parse("perfect:time=200ms,fallback=greedy").unwrap();
        assert!(spec.options(&rules).endgame_seeds >= 14);
        let pool = Arc::new(Solvers::new(1));
        let mut agent = spec.build_with::<KalahRules>(Arc::clone(&pool));
        let t0 = Instant::now();
        let mv = agent.choose(&rules, &rules.start()).unwrap();
        let took = t0.elapsed();
        assert!(rules.legal_moves(&rules.start()).contains(mv));
        // The fallback's move: greedy's, not the solver's.
        assert_ne!(agent.info().kind, SearchKind::Exact);
        assert!(took < std::time::Duration::from_secs(2), "{took:?}");
        // The build went on in the background, for the moves to come.
        let solver = pool.get(&rules, &spec.options(&rules)).unwrap();
        assert_eq!(solver.rules(), &rules);
    }

    #[test]
    fn a_pool_that_cannot_build_leaves_the_move_to_the_fallback() {
        let rules = KalahRules::new(4, 3).unwrap();
        let spec = PerfectSpec::parse("perfect:time=1s,fallback=greedy").unwrap();
        let pool = Arc::new(Solvers::new(1));
        let out_of_memory = || SolveError::Table(crate::TableError::Allocation { mib: 1 << 20 });
        pool.insert_failed(&rules, &spec.options(&rules), out_of_memory());
        let mut agent = spec.build_with::<KalahRules>(Arc::clone(&pool));
        let mv = agent.choose(&rules, &rules.start()).unwrap();
        assert!(rules.legal_moves(&rules.start()).contains(mv));
        assert_ne!(agent.info().kind, SearchKind::Exact);
        // Without a fallback the failure is the agent's, and says why.
        let alone = PerfectSpec::parse("perfect").unwrap();
        pool.insert_failed(&rules, &alone.options(&rules), out_of_memory());
        let mut agent = alone.build_with::<KalahRules>(Arc::clone(&pool));
        match agent.choose(&rules, &rules.start()) {
            Err(AgentError::Failed(why)) => assert!(why.contains("cannot allocate"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn time_auto_plans_with_the_clock_and_prints_back() {
        let text = "perfect:time=auto,fallback=minimax:time=auto";
        let spec = PerfectSpec::parse(text).unwrap();
        assert_eq!(spec.time, Some(Budget::Auto));
        assert_eq!(spec.to_string(), text);
        let fixed = PerfectSpec::parse("perfect:time=2s,fallback=greedy").unwrap();
        assert_eq!(fixed.to_string(), "perfect:time=2s,fallback=greedy");
        assert!(PerfectSpec::parse("perfect:time=auto").is_err());
    }
}
