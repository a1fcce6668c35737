//! The `perfect` agent: plays a move of the best value, found by the solver.
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

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mancala_agents::{parse_duration, Agent, AgentError, AgentSpec, SearchInfo, StopCondition};
use mancala_core::spec::{bad_value, Spec};
use mancala_core::{Game, KalahRules, KalahState, Move, SpecError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::{SolveError, Solver, SolverOptions};

/// Table size of the `perfect` agent unless `tt=` says otherwise.
pub const AGENT_TABLE_MIB: usize = 256;

/// Positions of the agent's endgame database (one byte each).
pub const AGENT_ENDGAME_POSITIONS: u64 = 1 << 24;

/// Largest `tt=` accepted, in MiB.
pub const MAX_TABLE_MIB: usize = 16 * 1024;

/// A parsed `perfect:...` spec.
#[derive(Clone, Debug, PartialEq)]
pub struct PerfectSpec {
    /// Give up solving after this long (and play the fallback's move).
    pub time: Option<Duration>,
    /// Transposition table size in MiB.
    pub table_mib: usize,
    /// Who moves when the solver gives up; without one, the solver never does.
    pub fallback: Option<AgentSpec>,
}

impl Default for PerfectSpec {
    fn default() -> PerfectSpec {
        PerfectSpec {
            time: None,
            table_mib: AGENT_TABLE_MIB,
            fallback: None,
        }
    }
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
        if let Some(t) = spec.get("time") {
            out.time = Some(parse_duration("time", t)?);
        }
        if let Some(mib) = spec.get_int("tt", 1..=MAX_TABLE_MIB as u64)? {
            out.table_mib = mib as usize;
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

    /// Whether the agent can play `game` (the solver knows Kalah only).
    ///
    /// # Errors
    /// A message saying which games it plays.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), String> {
        if (game as &dyn Any).is::<KalahRules>() {
            Ok(())
        } else {
            Err(format!(
                "perfect play is available for Kalah only, not {}",
                game.name()
            ))
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
        if let Some(t) = self.time {
            opts.push(format!("time={}", mancala_agents::format_duration(t)));
        }
        if self.table_mib != AGENT_TABLE_MIB {
            opts.push(format!("tt={}", self.table_mib));
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

/// One solver per rule set and table size, for the whole process.
fn shared_solver(rules: &KalahRules, table_mib: usize) -> Result<Arc<Solver>, SolveError> {
    type Cache = Mutex<HashMap<(String, usize), Arc<Solver>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    let key = (rules.to_string(), table_mib);
    if let Some(s) = cache.get(&key) {
        return Ok(Arc::clone(s));
    }
    let options = SolverOptions {
        table_mib,
        endgame_seeds: 0,
        endgame_dir: None,
    }
    .with_endgame_positions(AGENT_ENDGAME_POSITIONS, rules.pits());
    let options = SolverOptions {
        endgame_seeds: options.endgame_seeds.min(rules.total_seeds()),
        ..options
    };
    let solver = Arc::new(Solver::new(*rules, &options)?);
    cache.insert(key, Arc::clone(&solver));
    Ok(solver)
}

/// The `perfect` agent.
pub struct Perfect<G: Game> {
    spec: PerfectSpec,
    solver: Option<Arc<Solver>>,
    fallback: Option<Box<dyn Agent<G>>>,
    rng: SmallRng,
    info: SearchInfo,
}

impl<G: Game> Perfect<G> {
    fn solve(
        &mut self,
        rules: &KalahRules,
        state: &KalahState,
        stop: StopCondition<'_>,
    ) -> Result<Move, SolveError> {
        let solver = match &self.solver {
            Some(s) => Arc::clone(s),
            None => {
                let s = shared_solver(rules, self.spec.table_mib)?;
                self.solver = Some(Arc::clone(&s));
                s
            }
        };
        let (best, top) = solver.best_moves(state, 1, stop)?;
        self.info.value = Some(f64::from(best));
        Ok(top[self.rng.random_range(0..top.len())])
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

    fn choose(&mut self, game: &G, state: &G::State) -> Result<Move, AgentError> {
        self.choose_until(game, state, StopCondition::NEVER)
    }

    fn choose_until(
        &mut self,
        game: &G,
        state: &G::State,
        outer: StopCondition<'_>,
    ) -> Result<Move, AgentError> {
        let t0 = Instant::now();
        let (Some(rules), Some(kalah)) = (
            (game as &dyn Any).downcast_ref::<KalahRules>(),
            (state as &dyn Any).downcast_ref::<KalahState>(),
        ) else {
            return Err(AgentError::Failed(format!(
                "perfect play is available for Kalah only, not {}",
                game.name()
            )));
        };
        let stop = outer.or_by(self.spec.time.and_then(|t| t0.checked_add(t)));
        self.info = SearchInfo::default();
        let result = self.solve(rules, kalah, stop);
        self.info.elapsed = t0.elapsed();
        match result {
            Ok(mv) => Ok(mv),
            Err(SolveError::Stopped) if !outer.reached() => match &mut self.fallback {
                Some(fallback) => fallback.choose_until(game, state, outer),
                None => Err(AgentError::Stopped),
            },
            Err(SolveError::Stopped) => Err(AgentError::Stopped),
            Err(SolveError::GameOver) => Err(AgentError::GameOver),
            Err(e) => Err(AgentError::Failed(e.to_string())),
        }
    }

    fn info(&self) -> SearchInfo {
        self.info
    }
}
