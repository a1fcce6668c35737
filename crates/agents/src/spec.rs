//! Agent specs: `random`, `greedy`, `minimax:depth=10`, `mcts:time=100ms,c=1.4`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use mancala_core::spec::{bad_value, write_spec, Spec};
use mancala_core::{Game, SpecError};

use crate::{
    Agent, Eval, Greedy, Mcts, MctsOptions, Minimax, MinimaxOptions, RandomAgent, RolloutPolicy,
};

/// How much an agent may think per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Search to this depth in moves (reproducible).
    Depth(u32),
    /// Run this many simulations (reproducible).
    Sims(u64),
    /// Think for this long (not reproducible across machines).
    Time(Duration),
}

/// A parsed agent spec. Displays in a canonical form that parses back.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// Uniformly random legal moves.
    Random,
    /// Best store gain this turn, extra turns followed, ties at random.
    Greedy,
    /// Alpha-beta search.
    Minimax(MinimaxOptions),
    /// Monte Carlo tree search.
    Mcts(MctsOptions),
}

/// The agent names a spec accepts (without the extensions of other crates).
pub const AGENT_NAMES: &[&str] = &["random", "greedy", "minimax", "mcts"];

/// The agent names this crate builds.
pub fn spec_names() -> &'static [&'static str] {
    AGENT_NAMES
}

impl AgentSpec {
    /// Builds a fresh agent for game `G`. Call [`Agent::new_game`] with a seed
    /// before the first move.
    pub fn build<G: Game>(&self) -> Box<dyn Agent<G>> {
        match self {
            AgentSpec::Random => Box::new(RandomAgent::new()),
            AgentSpec::Greedy => Box::new(Greedy::new()),
            AgentSpec::Minimax(o) => Box::new(Minimax::<G>::new(o.clone())),
            AgentSpec::Mcts(o) => Box::new(Mcts::new(
                o.clone(),
                crate::RolloutEvaluator::new(o.rollout),
            )),
        }
    }

    /// Interprets an already split spec; `None` when the name is not one of
    /// this crate's agents (so that other crates can add their own).
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<Option<AgentSpec>, SpecError> {
        Ok(Some(match spec.name.as_str() {
            "random" => {
                spec.check_keys(&[])?;
                AgentSpec::Random
            }
            "greedy" => {
                spec.check_keys(&[])?;
                AgentSpec::Greedy
            }
            "minimax" | "alphabeta" => AgentSpec::Minimax(MinimaxOptions::from_spec(spec)?),
            "mcts" | "uct" => AgentSpec::Mcts(MctsOptions::from_spec(spec)?),
            _ => return Ok(None),
        }))
    }
}

impl FromStr for AgentSpec {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<AgentSpec, SpecError> {
        let spec = Spec::parse(text)?;
        AgentSpec::from_spec(&spec)?.ok_or_else(|| SpecError::UnknownName {
            kind: "agent",
            name: spec.name.clone(),
            accepted: AGENT_NAMES.join(", "),
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Greedy => f.write_str("greedy"),
            AgentSpec::Minimax(o) => {
                let d = MinimaxOptions::default();
                let mut opts = vec![budget_option(o.budget)];
                if o.eval != d.eval {
                    opts.push(format!("eval={}", o.eval));
                }
                if o.tt_mib != d.tt_mib {
                    opts.push(format!("tt={}", o.tt_mib));
                }
                write_spec(f, "minimax", &opts)
            }
            AgentSpec::Mcts(o) => {
                let d = MctsOptions::default();
                let mut opts = vec![budget_option(o.budget)];
                if o.c != d.c {
                    opts.push(format!("c={}", o.c));
                }
                if o.rollout != d.rollout {
                    opts.push(format!("rollout={}", o.rollout));
                }
                if o.reuse != d.reuse {
                    opts.push(format!("reuse={}", o.reuse));
                }
                write_spec(f, "mcts", &opts)
            }
        }
    }
}

fn budget_option(b: Budget) -> String {
    match b {
        Budget::Depth(d) => format!("depth={d}"),
        Budget::Sims(s) => format!("sims={s}"),
        Budget::Time(t) => format!("time={}", format_duration(t)),
    }
}

/// Formats a duration as a spec writes it: `250ms`, `2s`.
pub fn format_duration(t: Duration) -> String {
    let ms = t.as_secs_f64() * 1000.0;
    if ms >= 1000.0 && (ms / 1000.0).fract() == 0.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

/// Parses `250ms`, `2s`, `1.5s`, `500us`, `30m` or `2h`.
///
/// # Errors
/// [`SpecError::BadValue`] for anything else, or a zero or negative time.
pub fn parse_duration(key: &str, value: &str) -> Result<Duration, SpecError> {
    let v = value.trim().to_ascii_lowercase();
    let units: [(&str, f64); 5] = [
        ("ms", 1e-3),
        ("us", 1e-6),
        ("s", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
    ];
    let parsed = units
        .iter()
        .find_map(|(suffix, scale)| v.strip_suffix(suffix).map(|n| (n, *scale)))
        .and_then(|(n, scale)| n.trim().parse::<f64>().ok().map(|x| x * scale));
    match parsed {
        Some(secs) if secs > 0.0 && secs.is_finite() && secs < 1e7 => {
            Ok(Duration::from_secs_f64(secs))
        }
        _ => Err(bad_value(
            key,
            value,
            "a positive time such as 200ms, 1.5s or 30m",
        )),
    }
}

/// Reads the budget keys of a search agent: at most one of `depth_key`
/// (if any), `sims` (if accepted) and `time`.
pub(crate) fn read_budget(
    spec: &Spec,
    depth_key: Option<&str>,
    default: Budget,
) -> Result<Budget, SpecError> {
    let mut found = Vec::new();
    if let Some(key) = depth_key {
        if let Some(d) = spec.get_int(key, 1..=200)? {
            found.push((key, Budget::Depth(d as u32)));
        }
    } else if let Some(s) = spec.get_int("sims", 1..=1_000_000_000)? {
        found.push(("sims", Budget::Sims(s)));
    }
    if let Some(t) = spec.get("time") {
        found.push(("time", Budget::Time(parse_duration("time", t)?)));
    }
    match found.as_slice() {
        [] => Ok(default),
        [(_, b)] => Ok(*b),
        [(a, _), (b, v), ..] => Err(bad_value(
            b,
            &budget_option(*v),
            &format!("only one budget: '{a}' is already given"),
        )),
    }
}

impl MinimaxOptions {
    /// Reads `depth`, `time`, `eval` and `tt` (MiB).
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<MinimaxOptions, SpecError> {
        spec.check_keys(&["depth", "time", "eval", "tt"])?;
        let d = MinimaxOptions::default();
        let eval = match spec.get_choice("eval", Eval::NAMES)? {
            Some(i) => Eval::ALL[i],
            None => d.eval,
        };
        Ok(MinimaxOptions {
            budget: read_budget(spec, Some("depth"), d.budget)?,
            eval,
            tt_mib: spec
                .get_int("tt", 0..=65_536)?
                .map_or(d.tt_mib, |v| v as usize),
        })
    }
}

impl MctsOptions {
    /// Reads `sims`, `time`, `c`, `rollout` and `reuse`.
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<MctsOptions, SpecError> {
        spec.check_keys(&["sims", "time", "c", "rollout", "reuse"])?;
        let d = MctsOptions::default();
        let rollout = match spec.get_choice("rollout", RolloutPolicy::NAMES)? {
            Some(i) => RolloutPolicy::ALL[i],
            None => d.rollout,
        };
        Ok(MctsOptions {
            budget: read_budget(spec, None, d.budget)?,
            c: spec.get_float("c", 0.0..=100.0)?.unwrap_or(d.c),
            rollout,
            reuse: spec.get_bool("reuse")?.unwrap_or(d.reuse),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_specs_round_trip() {
        for text in [
            "random",
            "greedy",
            "minimax:depth=10",
            "minimax:time=200ms",
            "minimax:depth=6,eval=store,tt=4",
            "mcts:sims=2000",
            "mcts:time=100ms,c=2",
            "mcts:sims=50,rollout=greedy,reuse=false",
        ] {
            let spec: AgentSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "minimax".parse::<AgentSpec>().unwrap().to_string(),
            "minimax:depth=8"
        );
        assert_eq!(
            "mcts:time=2s".parse::<AgentSpec>().unwrap().to_string(),
            "mcts:time=2s"
        );
    }

    #[test]
    fn agent_spec_errors_name_what_is_accepted() {
        let e = "alphazero".parse::<AgentSpec>().unwrap_err().to_string();
        assert!(
            e.contains("unknown agent 'alphazero'") && e.contains("random, greedy, minimax, mcts"),
            "{e}"
        );
        let e = "minimax:sims=5"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'sims'") && e.contains("depth, time, eval, tt"),
            "{e}"
        );
        let e = "mcts:time=fast"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("200ms"), "{e}");
        let e = "mcts:sims=10,time=1s"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("only one budget"), "{e}");
        let e = "random:depth=3"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown option 'depth' for random"), "{e}");
        let e = "mcts:rollout=smart"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("random, heuristic, greedy"), "{e}");
    }
}
