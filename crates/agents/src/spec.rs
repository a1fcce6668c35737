//! Agent specs: `random`, `greedy`, `minimax:depth=10`, `mcts:time=100ms,c=1.4`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use mancala_core::spec::{bad_value, write_spec, Spec};
use mancala_core::{Game, SpecError};

use crate::eval::SCALE;
use crate::tt::MAX_TT_MIB;
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
    /// `time=auto`: manage the game clock the move is given (see
    /// [`crate::clock::time_for_move`]); without one, think for
    /// [`AUTO_WITHOUT_CLOCK`].
    Auto,
}

/// How long a `time=auto` agent thinks when its move comes with no game
/// clock (`play`, an analysis, a tournament without a time control).
pub const AUTO_WITHOUT_CLOCK: Duration = Duration::from_secs(1);

impl Budget {
    /// The deadline of a search that starts at `start` with this budget,
    /// as its own clock sees it (`None`: a count, not a time, ends it), for
    /// the mover of a position whose move comes with `clock`.
    pub fn deadline(
        self,
        start: std::time::Instant,
        clock: Option<&crate::clock::Clock>,
        mover: mancala_core::Player,
    ) -> Option<std::time::Instant> {
        match self {
            Budget::Depth(_) | Budget::Sims(_) => None,
            Budget::Time(t) => start.checked_add(t),
            Budget::Auto => start.checked_add(match clock {
                Some(c) => crate::clock::time_for_move(c, mover),
                None => AUTO_WITHOUT_CLOCK,
            }),
        }
    }
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
            AgentSpec::Mcts(o) => match &o.value {
                Some(net) => Box::new(Mcts::new(
                    o.clone(),
                    crate::mcts::NetValueEvaluator::new(net.clone(), o.net_priors),
                )),
                None => Box::new(Mcts::new(
                    o.clone(),
                    crate::RolloutEvaluator::new(o.rollout),
                )),
            },
        }
    }

    /// Checks that the agent can play `game`: a value network reads one
    /// game and board.
    ///
    /// # Errors
    /// The network's refusal, naming the network and the game.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), mancala_evalnet::EvalNetError> {
        match self {
            AgentSpec::Minimax(o) => o.eval.check(game),
            AgentSpec::Mcts(MctsOptions {
                value: Some(net), ..
            }) => net.net().inputs().check(game),
            _ => Ok(()),
        }
    }

    /// Whether the spec `text` reads a file when parsed (a value network,
    /// `eval=net:PATH`), without reading it: what a server must refuse
    /// before parsing a client's spec. Any text that names a network
    /// anywhere (a fallback's too) counts.
    pub fn reads_a_file(text: &str) -> bool {
        let squeezed: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        squeezed.contains(&format!("eval={}", Eval::NET_PREFIX))
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
                if let Some(m) = o.margin {
                    opts.push(format!("margin={}", f64::from(m) / f64::from(SCALE)));
                }
                write_spec(f, "minimax", &opts)
            }
            AgentSpec::Mcts(o) => {
                let d = MctsOptions::default();
                let mut opts = vec![budget_option(o.budget)];
                if o.c != MctsOptions::default_c(o.net_priors) {
                    opts.push(format!("c={}", o.c));
                }
                if o.rollout != d.rollout {
                    opts.push(format!("rollout={}", o.rollout));
                }
                if o.reuse != d.reuse {
                    opts.push(format!("reuse={}", o.reuse));
                }
                if let Some(net) = &o.value {
                    opts.push(format!("eval={}{}", Eval::NET_PREFIX, net.path()));
                }
                if o.net_priors {
                    opts.push("priors=net".to_string());
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
        Budget::Auto => "time=auto".to_string(),
    }
}

/// The smallest time a spec can give (`time=`, a tournament's
/// `move_timeout`, a training `time_limit`): one microsecond. Times are
/// kept in whole microseconds; a finer part is rounded to the nearest.
pub const MIN_DURATION: Duration = Duration::from_micros(1);

/// The largest time a spec can give: 720 hours (30 days), far more than any
/// move or training run, and small enough that no clock arithmetic overflows.
pub const MAX_DURATION: Duration = Duration::from_secs(720 * 3600);

/// Units [`parse_duration`] accepts, with their length in nanoseconds.
/// Suffixes that end another one (`s` of `ms`) come after it.
const UNITS: [(&str, f64); 8] = [
    ("ns", 1.0),
    ("us", 1e3),
    ("\u{b5}s", 1e3),
    ("\u{3bc}s", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("m", 60e9),
    ("h", 3600e9),
];

/// Formats a duration as a spec writes it, in its canonical form: a whole
/// number of the largest of `s`, `ms` and `us` that divides it, e.g.
/// `2s`, `250ms`, `1500ms`, `500us`. Any duration that [`parse_duration`]
/// returns formats to text that parses back to the same duration. Others
/// (zero, or a part finer than a microsecond) are written rounded to the
/// microsecond.
pub fn format_duration(t: Duration) -> String {
    let micros = (t.as_nanos() + 500) / 1000;
    if micros.is_multiple_of(1_000_000) && micros > 0 {
        format!("{}s", micros / 1_000_000)
    } else if micros.is_multiple_of(1000) && micros > 0 {
        format!("{}ms", micros / 1000)
    } else {
        format!("{micros}us")
    }
}

/// Parses a time: a number (decimals and exponents allowed) and a unit,
/// `ns`, `us` (or `µs`, `μs`), `ms`, `s`, `m` or `h`: `250ms`, `2s`, `1.5s`,
/// `500us`, `30m`, `2h`. The time must be from [`MIN_DURATION`] (1us) to
/// [`MAX_DURATION`] (720h); it is rounded to whole microseconds.
///
/// # Errors
/// [`SpecError::BadValue`] saying which rule the value breaks: no number
/// or unit, not positive (zero, negative, NaN), under 1us, or over 720h.
pub fn parse_duration(key: &str, value: &str) -> Result<Duration, SpecError> {
    const SYNTAX: &str =
        "a time such as 200ms, 1.5s or 30m: a number and a unit (ns, us, ms, s, m or h)";
    let v = value.trim().to_ascii_lowercase();
    let (number, unit_ns) = UNITS
        .iter()
        .find_map(|(suffix, ns)| v.strip_suffix(suffix).map(|n| (n.trim(), *ns)))
        .ok_or_else(|| bad_value(key, value, SYNTAX))?;
    let x = number
        .parse::<f64>()
        .map_err(|_| bad_value(key, value, SYNTAX))?;
    if x.is_nan() || x <= 0.0 {
        return Err(bad_value(
            key,
            value,
            "a positive time, at least 1us (such as 200ms, 1.5s or 30m)",
        ));
    }
    let micros = x * unit_ns / 1000.0;
    if micros > MAX_DURATION.as_micros() as f64 {
        return Err(bad_value(key, value, "a time of at most 720h (30 days)"));
    }
    // A little slack for the rounding of decimals such as 0.001ms.
    if micros < MIN_DURATION.as_micros() as f64 - 1e-9 {
        return Err(bad_value(
            key,
            value,
            "a time of at least 1us, the smallest time a spec can give",
        ));
    }
    Ok(Duration::from_micros(micros.round().max(1.0) as u64))
}

/// What a search agent's budget may count besides time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetCount {
    /// `depth=D`, plies from 1 to 200.
    Depth,
    /// `sims=N`, simulations from `fewest` to a billion (a neural agent
    /// takes 0: its raw policy, no search).
    Sims {
        /// The smallest count accepted.
        fewest: u64,
    },
}

/// Reads the budget keys of a search agent: at most one of its count
/// (`depth` or `sims`) and `time`; `default` when neither is given.
///
/// # Errors
/// [`SpecError`] for a bad value, or for both keys at once.
pub fn read_budget(spec: &Spec, count: BudgetCount, default: Budget) -> Result<Budget, SpecError> {
    let mut found = Vec::new();
    match count {
        BudgetCount::Depth => {
            if let Some(d) = spec.get_int("depth", 1..=200)? {
                found.push(("depth", Budget::Depth(d as u32)));
            }
        }
        BudgetCount::Sims { fewest } => {
            if let Some(s) = spec.get_int("sims", fewest..=1_000_000_000)? {
                found.push(("sims", Budget::Sims(s)));
            }
        }
    }
    match spec.get("time") {
        Some("auto") => found.push(("time", Budget::Auto)),
        Some(t) => found.push(("time", Budget::Time(parse_duration("time", t)?))),
        None => {}
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
    /// Reads `depth`, `time`, `eval`, `tt` (MiB, from 0 to 4096: each
    /// agent in each worker thread has its own table) and `margin` (seeds,
    /// a multiple of 0.25 from 0 to 100: see [`MinimaxOptions::margin`]).
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<MinimaxOptions, SpecError> {
        spec.check_keys(&["depth", "time", "eval", "tt", "margin"])?;
        let d = MinimaxOptions::default();
        let eval = read_eval(spec)?.unwrap_or(d.eval);
        Ok(MinimaxOptions {
            budget: read_budget(spec, BudgetCount::Depth, d.budget)?,
            eval,
            tt_mib: read_tt_mib(spec)?.unwrap_or(d.tt_mib),
            margin: read_margin(spec)?,
        })
    }
}

/// Reads `eval`: a built-in evaluation by name, or `net:PATH`, a value
/// network read from the file now.
fn read_eval(spec: &Spec) -> Result<Option<Eval>, SpecError> {
    let Some(value) = spec.get("eval") else {
        return Ok(None);
    };
    if let Some(path) = value.strip_prefix(Eval::NET_PREFIX) {
        let net = crate::NetEval::load(path)
            .map_err(|e| bad_value("eval", value, &format!("a value network file: {e}")))?;
        return Ok(Some(Eval::Net(net)));
    }
    let lower = value.to_ascii_lowercase();
    match Eval::NAMES.iter().position(|n| *n == lower) {
        Some(i) => Ok(Some(Eval::ALL[i].clone())),
        None => Err(bad_value(
            "eval",
            value,
            &format!(
                "one of {}, or {}PATH (a value network file)",
                Eval::NAMES.join(", "),
                Eval::NET_PREFIX
            ),
        )),
    }
}

/// Reads `margin`, in seeds, as quarter seeds (the evaluation's unit).
fn read_margin(spec: &Spec) -> Result<Option<u32>, SpecError> {
    let Some(seeds) = spec.get_float("margin", 0.0..=100.0)? else {
        return Ok(None);
    };
    let quarters = seeds * f64::from(SCALE);
    if quarters.fract() != 0.0 {
        return Err(bad_value(
            "margin",
            spec.get("margin").unwrap_or_default(),
            "a margin in seeds, a multiple of 0.25 (the evaluation's unit) from 0 to 100",
        ));
    }
    Ok(Some(quarters as u32))
}

/// Reads `tt`, the table size in MiB, from 0 to [`MAX_TT_MIB`].
fn read_tt_mib(spec: &Spec) -> Result<Option<usize>, SpecError> {
    let Some(v) = spec.get("tt") else {
        return Ok(None);
    };
    match v.parse::<usize>() {
        Ok(n) if n <= MAX_TT_MIB => Ok(Some(n)),
        _ => Err(bad_value(
            "tt",
            v,
            &format!(
                "a table size in MiB from 0 to {MAX_TT_MIB}, the most one agent may have \
                 (each agent in each worker thread has its own table)"
            ),
        )),
    }
}

impl MctsOptions {
    /// Reads `sims`, `time`, `c`, `rollout`, `reuse`, `eval` (only
    /// `net:PATH`: a value network scores the leaves instead of rollouts)
    /// and `priors` (only `net`, with `eval=net:PATH`: PUCT with the
    /// network's priors).
    ///
    /// # Errors
    /// [`SpecError`] naming the key and the accepted values.
    pub fn from_spec(spec: &Spec) -> Result<MctsOptions, SpecError> {
        spec.check_keys(&["sims", "time", "c", "rollout", "reuse", "eval", "priors"])?;
        let value = match read_eval(spec)? {
            None => None,
            Some(Eval::Net(net)) => Some(net),
            Some(other) => {
                return Err(bad_value(
                    "eval",
                    &other.to_string(),
                    "net:PATH, a value network scoring the leaves instead of rollouts",
                ))
            }
        };
        let net_priors = match spec.get_choice("priors", &["net"])? {
            None => false,
            Some(_) if value.is_none() => {
                return Err(bad_value(
                    "priors",
                    spec.get("priors").unwrap_or_default(),
                    "priors=net with a value network to take them from (eval=net:PATH)",
                ))
            }
            Some(_) => true,
        };
        let d = MctsOptions::default();
        let rollout = match spec.get_choice("rollout", RolloutPolicy::NAMES)? {
            Some(i) => RolloutPolicy::ALL[i],
            None => d.rollout,
        };
        Ok(MctsOptions {
            budget: read_budget(spec, BudgetCount::Sims { fewest: 1 }, d.budget)?,
            c: spec
                .get_float("c", 0.0..=100.0)?
                .unwrap_or(MctsOptions::default_c(net_priors)),
            rollout,
            reuse: spec.get_bool("reuse")?.unwrap_or(d.reuse),
            value,
            net_priors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_one_count_or_a_time_and_counts_have_their_floor() {
        let read =
            |text: &str, count| read_budget(&Spec::parse(text).unwrap(), count, Budget::Depth(3));
        let sims = |fewest| BudgetCount::Sims { fewest };
        assert_eq!(read("x", BudgetCount::Depth).unwrap(), Budget::Depth(3));
        assert_eq!(
            read("x:depth=7", BudgetCount::Depth).unwrap(),
            Budget::Depth(7)
        );
        assert_eq!(
            read("x:time=20ms", sims(1)).unwrap(),
            Budget::Time(Duration::from_millis(20))
        );
        // A neural agent's raw policy is zero simulations; MCTS needs one.
        assert_eq!(read("x:sims=0", sims(0)).unwrap(), Budget::Sims(0));
        assert!(read("x:sims=0", sims(1)).is_err());
        // A key of the other count is not read as a budget.
        assert_eq!(
            read("x:sims=9", BudgetCount::Depth).unwrap(),
            Budget::Depth(3)
        );
        let e = read("x:sims=5,time=1s", sims(1)).unwrap_err().to_string();
        assert!(
            e.contains("only one budget: 'sims' is already given"),
            "{e}"
        );
        let e = read("x:depth=5,time=1s", BudgetCount::Depth)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'depth' is already given"), "{e}");
    }

    #[test]
    fn a_value_network_is_read_by_path_checked_against_the_game_and_written_back() {
        use mancala_core::{Game, KalahRules, OwareRules};
        use mancala_evalnet::{Inputs, ValueNet};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kalah.safetensors");
        let game = KalahRules::default();
        ValueNet::seeded(Inputs::for_game(&game, 8), &[16], 1)
            .unwrap()
            .save(&path)
            .unwrap();
        let text = format!("minimax:depth=4,eval=net:{}", path.display());
        let spec: AgentSpec = text.parse().unwrap();
        assert_eq!(spec.to_string(), text);
        assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec);
        spec.check(&game).unwrap();
        let e = spec.check(&OwareRules::default()).unwrap_err().to_string();
        assert!(e.starts_with("the network is for kalah"), "{e}");
        // Built for the wrong game anyway, the agent refuses to move.
        let mut agent = spec.build::<OwareRules>();
        agent.new_game(1);
        let oware = OwareRules::default();
        assert!(agent.choose(&oware, &oware.start()).is_err());

        let missing = dir.path().join("none.safetensors");
        let e = format!("minimax:eval=net:{}", missing.display())
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("a value network file"), "{e}");
        std::fs::write(&missing, b"not weights").unwrap();
        let e = format!("minimax:eval=net:{}", missing.display())
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a safetensors file"), "{e}");
        let e = "minimax:eval=nets"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("net:PATH"), "{e}");

        // PUCT with the network's one-ply priors: c is PUCT's then, and
        // priors need a network to come from.
        let puct = format!("mcts:sims=50,eval=net:{},priors=net", path.display());
        let spec: AgentSpec = puct.parse().unwrap();
        assert_eq!(spec.to_string(), puct);
        let AgentSpec::Mcts(o) = &spec else {
            panic!("{spec:?}")
        };
        assert!(o.net_priors);
        assert_eq!(o.c, crate::policy::DEFAULT_C_PUCT);
        let tuned = format!("mcts:sims=50,c=0.5,eval=net:{},priors=net", path.display());
        assert_eq!(tuned.parse::<AgentSpec>().unwrap().to_string(), tuned);
        let mut agent = spec.build::<KalahRules>();
        agent.new_game(1);
        assert!(game
            .legal_moves(&game.start())
            .contains(agent.choose(&game, &game.start()).unwrap()));
        let e = "mcts:priors=net"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("eval=net:PATH"), "{e}");
        let e = format!("mcts:eval=net:{},priors=policy", path.display())
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("one of net"), "{e}");

        // MCTS scores its leaves with the network instead of rollouts.
        let mcts = format!("mcts:sims=200,eval=net:{}", path.display());
        let spec: AgentSpec = mcts.parse().unwrap();
        assert_eq!(spec.to_string(), mcts);
        spec.check(&game).unwrap();
        assert!(spec.check(&OwareRules::default()).is_err());
        let mut agent = spec.build::<KalahRules>();
        agent.new_game(1);
        let mv = agent.choose(&game, &game.start()).unwrap();
        assert!(game.legal_moves(&game.start()).contains(mv));
        let mut agent = spec.build::<OwareRules>();
        agent.new_game(1);
        assert!(agent.choose(&oware, &oware.start()).is_err());
        let e = "mcts:eval=material"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("net:PATH"), "{e}");

        assert!(AgentSpec::reads_a_file(&text));
        assert!(AgentSpec::reads_a_file(
            "perfect:fallback=minimax:EVAL = NET:x"
        ));
        assert!(!AgentSpec::reads_a_file("minimax:eval=material"));
    }

    #[test]
    fn agent_specs_round_trip() {
        for text in [
            "random",
            "greedy",
            "minimax:depth=10",
            "minimax:time=200ms",
            "minimax:depth=6,eval=store,tt=4",
            "minimax:depth=4,margin=0",
            "minimax:depth=4,margin=0.5",
            "minimax:time=20ms,margin=2",
            "minimax:time=auto",
            "mcts:time=auto,c=2",
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
            e.contains("'sims'") && e.contains("depth, time, eval, tt, margin"),
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
        for bad in [
            "minimax:margin=0.3",
            "minimax:margin=-1",
            "minimax:margin=x",
        ] {
            let e = bad.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(e.contains("margin"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations_have_one_range_and_one_resolution() {
        let ok = |v: &str| parse_duration("time", v).unwrap();
        assert_eq!(ok("250ms"), Duration::from_millis(250));
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok("500us"), Duration::from_micros(500));
        assert_eq!(ok("500\u{b5}s"), Duration::from_micros(500));
        assert_eq!(ok("2h"), Duration::from_secs(7200));
        assert_eq!(ok("30m"), Duration::from_secs(1800));
        assert_eq!(ok(" 2 S "), Duration::from_secs(2));
        assert_eq!(ok("1e3ms"), Duration::from_secs(1));
        // The smallest time, in every unit.
        for v in ["1us", "1000ns", "0.001ms", "1e-6s", "0.000001s"] {
            assert_eq!(ok(v), MIN_DURATION, "{v}");
        }
        // Finer parts round to the microsecond.
        assert_eq!(ok("1.4us"), Duration::from_micros(1));
        assert_eq!(ok("1500ns"), Duration::from_micros(2));
        assert_eq!(ok("720h"), MAX_DURATION);
        let err = |v: &str| parse_duration("time", v).unwrap_err().to_string();
        for v in ["1ns", "999ns", "0.0001ms", "1e-10s", "0.5us"] {
            assert!(err(v).contains("at least 1us"), "{v}: {}", err(v));
        }
        for v in ["0s", "-1s", "-0ms", "nan s", "NaNms"] {
            assert!(err(v).contains("positive"), "{v}: {}", err(v));
        }
        for v in ["721h", "1e20s", "infs", "inf ms", "1e400s"] {
            assert!(err(v).contains("at most 720h"), "{v}: {}", err(v));
        }
        for v in ["", "5", "s", "fast", "5 sec", "1_000ms", "0x10s", "5mss"] {
            assert!(err(v).contains("a number and a unit"), "{v}: {}", err(v));
        }
    }

    #[test]
    fn durations_print_in_a_canonical_form_that_parses_back() {
        for (text, canonical) in [
            ("2s", "2s"),
            ("2000ms", "2s"),
            ("1.5s", "1500ms"),
            ("200ms", "200ms"),
            ("0.5ms", "500us"),
            ("1us", "1us"),
            ("1e-6s", "1us"),
            ("1m", "60s"),
            ("720h", "2592000s"),
            ("1.0000005s", "1000001us"),
        ] {
            let t = parse_duration("time", text).unwrap();
            assert_eq!(format_duration(t), canonical, "{text}");
            assert_eq!(parse_duration("time", canonical).unwrap(), t, "{text}");
        }
        let spec: AgentSpec = "mcts:time=0.001ms,c=1".parse().unwrap();
        assert_eq!(spec.to_string(), "mcts:time=1us,c=1");
        assert!("minimax:time=1e-10s".parse::<AgentSpec>().is_err());
    }

    #[test]
    fn table_size_is_bounded() {
        let spec: AgentSpec = "minimax:tt=4096".parse().unwrap();
        assert_eq!(spec.to_string(), "minimax:depth=8,tt=4096");
        assert!("minimax:tt=0".parse::<AgentSpec>().is_ok());
        for v in [
            "4097",
            "40000",
            "65536",
            "18446744073709551616",
            "-1",
            "1.5",
        ] {
            let e = format!("minimax:tt={v}")
                .parse::<AgentSpec>()
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("from 0 to 4096") && e.contains(&format!("'{v}'")),
                "{v}: {e}"
            );
        }
    }
}
