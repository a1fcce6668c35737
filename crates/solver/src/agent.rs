//! The `perfect` agent: plays a move of the best value, found by the solver
//! of its game ([`exact_solver`]): [`Solver`] for Kalah and single-round
//! Congkak.
//!
//! `perfect` solves every position it is asked about, however long that
//! takes. `perfect:time=2s,fallback=minimax:depth=8` gives up after two
//! seconds and lets the fallback agent move instead (the fallback spec comes
//! last, as it may hold commas of its own). Among moves of equal value the
//! game's seed decides.
//!
//! Agents of one process with the same rules and table size share one
//! solver: its table holds exact values, so what one game or thread learns
//! is good for all, and the endgame database is built once.
//! [`Perfect::from_solver`] plays from a solver the caller already has
//! instead (its table warm from solving
//! the position the games start from).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use mancala_agents::{
    parse_duration, Agent, AgentError, AgentSpec, Budget, Pv, SearchInfo, SearchKind, StopCondition,
};
use mancala_core::spec::{bad_value, Spec};
use mancala_core::{CongkakRules, Game, KalahRules, Move, SpecError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use thiserror::Error;

use crate::exact::erased;
use crate::{exact_solver, ExactGame, ExactSolver, SolveError, Solver, SolverOptions};

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
    /// round (the solvers know no other game).
    ///
    /// # Errors
    /// [`PerfectError::Unsolvable`] for multi-round Congkak,
    /// [`PerfectError::Unsupported`] for another game.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), PerfectError> {
        let any = game as &dyn Any;
        if any.is::<KalahRules>() {
            return Ok(());
        }
        match any.downcast_ref::<CongkakRules>() {
            Some(rules) => rules.check_solvable().map_err(PerfectError::Unsolvable),
            None => Err(PerfectError::Unsupported { game: game.name() }),
        }
    }

    /// A fresh agent.
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        Box::new(Perfect {
            spec: self.clone(),
            solver: None,
            fallback: self.fallback.as_ref().map(AgentSpec::build::<G>),
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
        })
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

/// The `perfect` agent's solver options for `rules`: its table
/// (`table_mib`, else sized to the board, at most [`AGENT_TABLE_MIB`]) and a
/// database of at most [`AGENT_ENDGAME_POSITIONS`] positions, built in
/// memory. Also what other interactive front ends (the web server's
/// analyses) solve with: a database that builds in seconds.
pub fn agent_options<G: Game>(rules: &G, table_mib: Option<usize>) -> SolverOptions {
    let table_mib =
        table_mib.unwrap_or_else(|| crate::exact::default_table_mib(rules, AGENT_TABLE_MIB));
    let options = SolverOptions::table(table_mib)
        .with_endgame_positions(AGENT_ENDGAME_POSITIONS, rules.pits());
    SolverOptions {
        endgame_seeds: options.endgame_seeds.min(rules.total_seeds()),
        ..options
    }
}

/// One solver per game, rule set and table size, for the whole process.
fn shared_solver<G: Game>(
    rules: &G,
    table_mib: Option<usize>,
) -> Result<Arc<dyn ExactSolver<G>>, SolveError> {
    let options = agent_options(rules, table_mib);
    type Cache = Mutex<HashMap<(String, usize), Box<dyn Any + Send>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    // The game's name too: two games' rules may print alike.
    let key = (format!("{} {rules}", rules.name()), options.table_mib);
    if let Some(s) = cache
        .get(&key)
        .and_then(|s| s.downcast_ref::<Arc<dyn ExactSolver<G>>>())
    {
        return Ok(Arc::clone(s));
    }
    let solver = exact_solver(rules, &options)?;
    cache.insert(key, Box::new(Arc::clone(&solver)));
    Ok(solver)
}

/// Why the solver gave no move.
enum Failure {
    Stopped,
    GameOver,
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
pub struct Perfect<G: Game> {
    spec: PerfectSpec,
    solver: Option<Arc<dyn ExactSolver<G>>>,
    fallback: Option<Box<dyn Agent<G>>>,
    rng: SmallRng,
    info: SearchInfo,
}

impl<G: Game> Perfect<G> {
    /// Plain `perfect` playing from `solver` (for positions of its rules)
    /// rather than from the process's shared solver: a caller that has just
    /// solved a position hands over the warm table, and it is freed with
    /// the last agent holding it. A solver of another game than `G` is not
    /// used: the agent then plays from the shared one.
    pub fn from_solver<H: ExactGame>(solver: Arc<Solver<H>>) -> Perfect<G> {
        let solver: Arc<dyn ExactSolver<H>> = solver;
        Perfect {
            spec: PerfectSpec::default(),
            solver: erased::<G>(Box::new(solver)).map(|s| *s),
            fallback: None,
            rng: SmallRng::seed_from_u64(0),
            info: SearchInfo::default(),
        }
    }

    /// The position's value and the moves that keep it, by the solver of
    /// its game: the agent's own if it solves these rules, else the
    /// process's shared one (kept for the next move).
    fn best_moves(
        &mut self,
        game: &G,
        state: &G::State,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), Failure> {
        let solver = match &self.solver {
            Some(s) if s.solves(game) => Arc::clone(s),
            _ => {
                let s = shared_solver(game, self.spec.table_mib)?;
                self.solver = Some(Arc::clone(&s));
                s
            }
        };
        Ok(solver.best_moves(state, 1, stop)?)
    }
}

impl<G: Game> Agent<G> for Perfect<G> {
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
            Err(Failure::Stopped) if !outer.reached() => match &mut self.fallback {
                Some(fallback) => {
                    // The fallback plans with the clock as it is now.
                    let mut outer = outer;
                    if let (Some(clock), Some(mover)) = (&mut outer.clock, game.to_move(state)) {
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
                None => Err(AgentError::Stopped),
            },
            Err(Failure::Stopped) => Err(AgentError::Stopped),
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

    #[test]
    fn the_agents_table_is_sized_to_the_board_unless_tt_says() {
        let small = KalahRules::new(4, 1).unwrap();
        let big = KalahRules::default();
        let mib = |rules: &KalahRules, spec: &str| {
            agent_options(rules, PerfectSpec::parse(spec).unwrap().table_mib).table_mib
        };
        assert_eq!(mib(&small, "perfect"), crate::MIN_TABLE_MIB);
        assert_eq!(mib(&big, "perfect"), AGENT_TABLE_MIB);
        assert_eq!(mib(&small, "perfect:tt=64"), 64);
        assert_eq!(mib(&big, "perfect:tt=1024"), 1024);
        let congkak = CongkakRules::new(3, 2).unwrap();
        assert_eq!(
            agent_options(&congkak, None).table_mib,
            crate::MIN_TABLE_MIB
        );
        // Oware's table grows as it fills: the cap is all there is to say.
        let oware = mancala_core::OwareRules::default();
        assert_eq!(agent_options(&oware, None).table_mib, AGENT_TABLE_MIB);
        // An explicit size prints back, even the cap.
        let spec = PerfectSpec::parse("perfect:tt=256").unwrap();
        assert_eq!(spec.to_string(), "perfect:tt=256");
        assert_eq!(
            PerfectSpec::parse("perfect").unwrap().to_string(),
            "perfect"
        );
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
