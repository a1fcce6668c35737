//! Tournament configuration files (`configs/*.toml`).
//!
//! ```toml
//! name = "quick"
//! game = "kalah"                 # a game spec
//! format = "round_robin"         # or "gauntlet" (with champion = "NAME")
//! games_per_pair = 20            # each opening twice, seats swapped
//! seed = 1
//! threads = 2                    # optional: default all cores
//! output = "results/quick"       # optional: default results/<name>
//! move_timeout = "10s"           # optional: a slower move forfeits the game
//! time_control = "10+0.1"        # optional: a game clock, base+increment in seconds (or "40/60+0", "inf")
//! time_margin = "50ms"           # optional: how far a move may overrun its clock (default 50 ms)
//!
//! [openings]
//! plies = 4                      # 0: every game from the start position
//! count = 10                     # optional: default games_per_pair / 2
//! # file = "openings/kalah-6-4-fair-empty-capture.txt"  # instead of plies: a suite, one per line
//! # order = "random"             # with a file: "sequential" (default) or "random" (seeded)
//!
//! [ratings]
//! anchor = "random"              # optional: an agent's name fixed at 0 Elo; default the mean
//!
//! [[agents]]
//! spec = "random"
//! [[agents]]
//! name = "minimax-6"             # optional display name; default the spec
//! spec = "minimax:depth=6"
//!
//! [[agents]]                     # an external program (docs/engine-protocol.md)
//! name = "pybot"                 # required for an engine
//! command = ["python3", "bot.py", "--flag"]
//! options = { Hash = "64" }      # optional: `setoption`s after each start
//! go = "movetime 100"            # optional: limits of each `go` (movetime, nodes, depth)
//! handshake_timeout = "10s"      # optional: time to start and get ready
//! ```
//!
//! Parsing checks the shape and every value it can check without knowing
//! which games and agents exist; the caller checks the game and agent specs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use mancala_core::spec::truncate_input;

use crate::openings::{OpeningOrder, UnknownOrder};
use crate::schedule::{pair_count, Format};

/// Most games one tournament or match may plan. The schedule and the
/// results are held in memory (a few hundred bytes a game), so this keeps a
/// run within a few GiB; larger studies are several tournaments.
pub const MAX_GAMES: u64 = 10_000_000;

/// Most worker threads a config or `--threads` may ask for.
pub const MAX_THREADS: usize = 1024;

/// Worker threads used per core at most, whatever was asked: games are
/// CPU-bound, so more threads only add memory and switching.
pub const THREADS_PER_CORE: usize = 4;

/// Longest agent name, in characters (names are table headers and CSV cells).
pub const MAX_NAME_CHARS: usize = 64;

/// A configuration that cannot be used; every message names the key.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not valid TOML, or a key that does not exist, or a value of the wrong type.
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// The TOML parser's message (with line, column and key).
        message: String,
    },
    /// A value that is the right type but not allowed.
    #[error("{path}: key `{key}`: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The key, e.g. `agents[2].spec`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// Why a config's `format` and `champion` give no pairing format.
///
/// Messages quote at most a few dozen characters of what the config says.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FormatError {
    /// A format other than `round_robin` or `gauntlet`.
    #[error("'{}' is not a format: use round_robin or gauntlet", truncate_input(.0))]
    Unknown(String),
    /// A gauntlet without its champion.
    #[error("a gauntlet needs `champion = \"NAME\"`, the agent that plays all others")]
    NoChampion,
    /// A champion that is not one of the agents.
    #[error(
        "champion '{}' is not an agent's name (agents: {})",
        truncate_input(.champion),
        .agents.join(", ")
    )]
    UnknownChampion {
        /// The champion named.
        champion: String,
        /// The agents' names.
        agents: Vec<String>,
    },
}

/// One agent of a tournament: a built-in agent (`spec`) or an external
/// program speaking the engine protocol (`command`, with `options`, `go`
/// and `handshake_timeout`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentEntry {
    /// Display name (default: the spec; required for an engine).
    #[serde(default)]
    pub name: Option<String>,
    /// Agent spec, e.g. `minimax:depth=6` (empty for an engine entry,
    /// whose agent the registry makes from its keys).
    #[serde(default)]
    pub spec: String,
    /// An engine's program and arguments, e.g. `["python3", "bot.py"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// An engine's `setoption`s, e.g. `{ Hash = "64" }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<BTreeMap<String, toml::Value>>,
    /// An engine's `go` limits, e.g. `"movetime 100"` or `"nodes 20000"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go: Option<String>,
    /// Time an engine has to start and get ready for a game, e.g. `"10s"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake_timeout: Option<String>,
}

impl AgentEntry {
    /// The key that holds this agent in the config, for messages:
    /// `command` for an engine entry, else `spec`.
    pub fn key(&self) -> &'static str {
        if self.command.is_some() {
            "command"
        } else {
            "spec"
        }
    }

    /// Checks that exactly one of `spec` and `command` is given, with an
    /// engine's keys only beside `command`, and a name and a program for
    /// an engine.
    fn resolve(&mut self, i: usize) -> Result<(), (String, String)> {
        let key = |k: &str| format!("agents[{i}].{k}");
        let engine_keys = [
            ("options", self.options.is_some()),
            ("go", self.go.is_some()),
            ("handshake_timeout", self.handshake_timeout.is_some()),
        ];
        let Some(command) = &self.command else {
            if self.spec.trim().is_empty() {
                return Err((
                    format!("agents[{i}]"),
                    "needs `spec` (a built-in agent) or `command` (an engine program)".into(),
                ));
            }
            if let Some((k, _)) = engine_keys.iter().find(|(_, given)| *given) {
                return Err((
                    key(k),
                    "is only for an engine (an agent with `command`)".into(),
                ));
            }
            return Ok(());
        };
        if !self.spec.trim().is_empty() {
            return Err((
                key("spec"),
                "give either `spec` (a built-in agent) or `command` (an engine), not both".into(),
            ));
        }
        if self.name.is_none() {
            return Err((
                format!("agents[{i}]"),
                "an engine (`command`) needs a `name`".into(),
            ));
        }
        if command.is_empty() || command[0].trim().is_empty() {
            return Err((
                key("command"),
                "must name a program: [\"program\", \"arg\", ...]".into(),
            ));
        }
        // The engine itself is made from these keys by the agent registry
        // (`mancala_registry::tournament_agents`), which checks them.
        Ok(())
    }
}

/// The `[openings]` table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpeningsConfig {
    /// Random moves before the agents take over (0: the start position).
    #[serde(default)]
    pub plies: u32,
    /// How many different openings (default: one per pair of games).
    #[serde(default)]
    pub count: Option<u32>,
    /// An openings file instead of random moves: one opening per line, a
    /// position or moves from the start (see [`crate::openings`]); a
    /// relative path is taken from the working directory, as engine
    /// commands are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// With a file: `sequential` (the file's order) or `random` (shuffled
    /// by the seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
}

impl OpeningsConfig {
    /// The order of a file's openings (sequential unless said).
    ///
    /// # Errors
    /// [`UnknownOrder`] for an order that is neither.
    pub fn order(&self) -> Result<OpeningOrder, UnknownOrder> {
        self.order
            .as_deref()
            .map_or(Ok(OpeningOrder::Sequential), str::parse)
    }
}

/// The `[adjudication]` table: games ended early where the result of
/// perfect play is known.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdjudicationConfig {
    /// After each move, end the game where the position's exact value is
    /// known (the endgame database holds it, or the solver proves it
    /// within `exact_nodes`), with the result of perfect play from there.
    #[serde(default)]
    pub exact: bool,
    /// Nodes the solver may search for each position (default 0: the
    /// endgame database only). A node budget, not a time, so that a config
    /// gives the same games on any machine and at any thread count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_nodes: Option<u64>,
    /// Seeds in the endgame database's fullest level (default: as `mancala
    /// solve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_seeds: Option<usize>,
}

impl AdjudicationConfig {
    /// `exact_nodes` and `db_seeds` only with `exact`, and a node budget of
    /// at most [`MAX_EXACT_NODES`].
    fn check(&self) -> Result<(), BadEntry> {
        if !self.exact && (self.exact_nodes.is_some() || self.db_seeds.is_some()) {
            let key = if self.exact_nodes.is_some() {
                "adjudication.exact_nodes"
            } else {
                "adjudication.db_seeds"
            };
            return Err(bad(
                key,
                "applies to exact adjudication: add `exact = true` to [adjudication]",
            ));
        }
        if self.exact_nodes.is_some_and(|n| n > MAX_EXACT_NODES) {
            return Err(bad(
                "adjudication.exact_nodes",
                format!("at most {MAX_EXACT_NODES}"),
            ));
        }
        Ok(())
    }
}

/// A config entry that fails its check: its key and what is wrong.
type BadEntry = (String, String);

/// The [`BadEntry`] for `key`.
fn bad(key: &str, message: impl Into<String>) -> BadEntry {
    (key.to_string(), message.into())
}

/// The most nodes `exact_nodes` may give each position: beyond this, an
/// adjudication costs more than the moves it saves.
pub const MAX_EXACT_NODES: u64 = 100_000_000;

/// The `[ratings]` table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingsConfig {
    /// The agent (by name) whose rating is fixed at 0; default: mean 0.
    #[serde(default)]
    pub anchor: Option<String>,
}

/// A tournament configuration as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// Name, also the default output folder `results/<name>`.
    pub name: String,
    /// Game spec.
    pub game: String,
    /// `round_robin` or `gauntlet`.
    #[serde(default = "default_format")]
    pub format: String,
    /// For a gauntlet: the name of the agent that plays all others.
    #[serde(default)]
    pub champion: Option<String>,
    /// Games per pair of agents.
    pub games_per_pair: u32,
    /// Seed of the whole tournament.
    #[serde(default)]
    pub seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[serde(default)]
    pub threads: Option<usize>,
    /// Output folder (default `results/<name>`).
    #[serde(default)]
    pub output: Option<PathBuf>,
    /// A move slower than this forfeits the game, e.g. `5s`.
    #[serde(default)]
    pub move_timeout: Option<String>,
    /// A game clock, as fastchess writes it: `10+0.1`, `40/60+0`, `inf`.
    #[serde(default)]
    pub time_control: Option<String>,
    /// How far a move may overrun its clock without losing, e.g. `50ms`.
    #[serde(default)]
    pub time_margin: Option<String>,
    /// Print the standings every this many finished games while the run
    /// goes on (fastchess's `-ratinginterval`); the files are the same
    /// either way.
    #[serde(default)]
    pub rating_interval: Option<u64>,
    /// Openings.
    #[serde(default)]
    pub openings: OpeningsConfig,
    /// Rating options.
    #[serde(default)]
    pub ratings: RatingsConfig,
    /// Exact adjudication.
    #[serde(default, skip_serializing_if = "is_default")]
    pub adjudication: AdjudicationConfig,
    /// The agents.
    pub agents: Vec<AgentEntry>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn default_format() -> String {
    "round_robin".into()
}

impl TournamentConfig {
    /// Reads and checks a config file.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file and the key.
    pub fn load(path: &Path) -> Result<TournamentConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        TournamentConfig::parse(&text, &path.display().to_string())
    }

    /// Parses and checks config text; `path` is only for messages.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file and the key.
    pub fn parse(text: &str, path: &str) -> Result<TournamentConfig, ConfigError> {
        let config: TournamentConfig = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_string(),
            message: clip_lines(e.to_string().trim_end()),
        })?;
        config.checked(path)
    }

    /// Reads and checks a config given as a table (the Python package's
    /// dict) rather than text; `origin` is only for messages.
    ///
    /// # Errors
    /// [`ConfigError`] naming `origin` and the key.
    pub fn from_table(table: toml::Table, origin: &str) -> Result<TournamentConfig, ConfigError> {
        let config = TournamentConfig::deserialize(toml::Value::Table(table)).map_err(|e| {
            ConfigError::Syntax {
                path: origin.to_string(),
                message: clip_lines(e.to_string().trim_end()),
            }
        })?;
        config.checked(origin)
    }

    /// The config, once its entries and settings are checked.
    fn checked(mut self, path: &str) -> Result<TournamentConfig, ConfigError> {
        let config = &mut self;
        for (i, agent) in config.agents.iter_mut().enumerate() {
            agent
                .resolve(i)
                .map_err(|(key, message)| ConfigError::Invalid {
                    path: path.to_string(),
                    key,
                    message,
                })?;
        }
        config.check(path)?;
        Ok(self)
    }

    /// Checks every setting against the others, in the order a user reads
    /// them; the first that fails is the error.
    fn check(&self, path: &str) -> Result<(), ConfigError> {
        let invalid = |(key, message): BadEntry| ConfigError::Invalid {
            path: path.to_string(),
            key,
            message,
        };
        self.check_output().map_err(invalid)?;
        let names = self.check_agents().map_err(invalid)?;
        self.check_counts().map_err(invalid)?;
        self.check_openings().map_err(invalid)?;
        self.check_format().map_err(invalid)?;
        if let Some(anchor) = &self.ratings.anchor {
            if !names.contains(anchor) {
                return Err(invalid(bad(
                    "ratings.anchor",
                    format!(
                        "no agent is named '{anchor}' (agents: {})",
                        names.join(", ")
                    ),
                )));
            }
        }
        if let Some(t) = &self.move_timeout {
            mancala_agents::parse_duration("move_timeout", t)
                .map_err(|e| invalid(bad("move_timeout", e.to_string())))?;
        }
        self.clock_in(path)?;
        self.adjudication.check().map_err(invalid)
    }

    /// `name`, which names the output folder, and `output`.
    fn check_output(&self) -> Result<(), BadEntry> {
        if !is_plain_folder_name(&self.name) {
            return Err(bad(
                "name",
                format!(
                    "'{}' must be a plain folder name: 1 to 64 letters, digits, '-', '_' or '.', \
                     not starting with '.' (it names the output folder results/<name>)",
                    truncate_input(&self.name)
                ),
            ));
        }
        if self
            .output
            .as_ref()
            .is_some_and(|o| o.as_os_str().is_empty())
        {
            return Err(bad(
                "output",
                "must not be empty (leave it out for results/<name>)",
            ));
        }
        Ok(())
    }

    /// At least two agents, with names that are non-empty, short, printable
    /// and distinct; returns the names.
    fn check_agents(&self) -> Result<Vec<String>, BadEntry> {
        if self.agents.len() < 2 {
            return Err(bad(
                "agents",
                format!(
                    "a tournament needs at least 2 agents, found {}",
                    self.agents.len()
                ),
            ));
        }
        let names = self.agent_names();
        for (i, name) in names.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(bad(&format!("agents[{i}].name"), "must not be empty"));
            }
            if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
                return Err(bad(
                    &format!("agents[{i}].name"),
                    format!(
                        "'{}' must be at most {MAX_NAME_CHARS} characters with no control characters",
                        truncate_input(name)
                    ),
                ));
            }
            if let Some(j) = names[..i].iter().position(|n| n == name) {
                return Err(bad(
                    &format!("agents[{i}]"),
                    format!("the name '{name}' is already used by agents[{j}]; give one of them a `name`"),
                ));
            }
        }
        Ok(names)
    }

    /// `rating_interval`, `games_per_pair` (even, so that seats are swapped
    /// evenly) and `threads`.
    fn check_counts(&self) -> Result<(), BadEntry> {
        if self.rating_interval == Some(0) {
            return Err(bad(
                "rating_interval",
                "0: give the finished games between two standings (at least 1), or leave it out",
            ));
        }
        if self.games_per_pair == 0 || self.games_per_pair % 2 == 1 {
            return Err(bad(
                "games_per_pair",
                format!(
                    "{} must be even and at least 2: each opening is played twice, seats swapped, \
                     so that neither agent gets the first move more often",
                    self.games_per_pair
                ),
            ));
        }
        if self
            .threads
            .is_some_and(|t| !(1..=MAX_THREADS).contains(&t))
        {
            return Err(bad(
                "threads",
                format!("must be from 1 to {MAX_THREADS} (or left out for all cores)"),
            ));
        }
        Ok(())
    }

    /// The `[openings]` table: a file's keys and the generated openings'
    /// keys exclude each other, and no more openings than a pair plays.
    fn check_openings(&self) -> Result<(), BadEntry> {
        let used_openings = self.games_per_pair.div_ceil(2);
        if self.openings.file.is_some() {
            for (key, given) in [
                ("openings.plies", self.openings.plies > 0),
                ("openings.count", self.openings.count.is_some()),
            ] {
                if given {
                    return Err(bad(
                        key,
                        "an openings file gives the openings: remove it or `openings.file`",
                    ));
                }
            }
        } else if self.openings.order.is_some() {
            return Err(bad(
                "openings.order",
                "orders the lines of an openings file: set `openings.file` too",
            ));
        }
        self.openings
            .order()
            .map_err(|e| bad("openings.order", e.to_string()))?;
        if let Some(count) = self.openings.count {
            if count == 0 || count > used_openings {
                return Err(bad(
                    "openings.count",
                    format!(
                        "{count} must be from 1 to {used_openings}: a pair of agents plays one \
                         opening per two games, so more openings would never be played"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `format` and `champion`, and the games they plan (at most
    /// [`MAX_GAMES`]).
    fn check_format(&self) -> Result<(), BadEntry> {
        let format = self.format().map_err(|e| {
            bad(
                match e {
                    FormatError::Unknown(_) => "format",
                    FormatError::NoChampion | FormatError::UnknownChampion { .. } => "champion",
                },
                e.to_string(),
            )
        })?;
        if format == Format::RoundRobin && self.champion.is_some() {
            return Err(bad(
                "champion",
                "only a gauntlet has a champion; remove it or set format = \"gauntlet\"",
            ));
        }
        let planned = pair_count(format, self.agents.len()) * u64::from(self.games_per_pair);
        if planned > MAX_GAMES {
            return Err(bad(
                "games_per_pair",
                format!(
                    "the tournament would play {planned} games; the limit is {MAX_GAMES} \
                     (fewer games per pair, fewer agents, or several tournaments)"
                ),
            ));
        }
        Ok(())
    }

    /// The time control and its margin (`None`: no clock, also for `inf`).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `time_control` or `time_margin`.
    pub fn clock(
        &self,
    ) -> Result<(Option<mancala_agents::TimeControl>, std::time::Duration), ConfigError> {
        self.clock_in("the config")
    }

    fn clock_in(
        &self,
        path: &str,
    ) -> Result<(Option<mancala_agents::TimeControl>, std::time::Duration), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_string(),
            key: key.to_string(),
            message,
        };
        let control = match &self.time_control {
            Some(text) => mancala_agents::TimeControl::parse(text)
                .map_err(|e| invalid("time_control", e.to_string()))?,
            None => None,
        };
        let margin = match &self.time_margin {
            Some(t) => {
                if control.is_none() {
                    return Err(invalid(
                        "time_margin",
                        "there is no time_control for it to apply to".into(),
                    ));
                }
                mancala_agents::parse_duration("time_margin", t)
                    .map_err(|e| invalid("time_margin", e.to_string()))?
            }
            None => crate::DEFAULT_TIME_MARGIN,
        };
        Ok((control, margin))
    }

    /// The planned number of games (pairs × games per pair).
    pub fn planned_games(&self) -> u64 {
        self.format().map_or(0, |f| {
            pair_count(f, self.agents.len()) * u64::from(self.games_per_pair)
        })
    }

    /// Display names, by agent index.
    pub fn agent_names(&self) -> Vec<String> {
        self.agents
            .iter()
            .map(|a| a.name.clone().unwrap_or_else(|| a.spec.trim().to_string()))
            .collect()
    }

    /// The pairing format.
    ///
    /// # Errors
    /// [`FormatError`] for an unknown format or a missing or unknown
    /// champion.
    pub fn format(&self) -> Result<Format, FormatError> {
        match self.format.as_str() {
            "round_robin" => Ok(Format::RoundRobin),
            "gauntlet" => {
                let Some(champion) = &self.champion else {
                    return Err(FormatError::NoChampion);
                };
                let names = self.agent_names();
                match names.iter().position(|n| n == champion) {
                    Some(i) => Ok(Format::Gauntlet(i)),
                    None => Err(FormatError::UnknownChampion {
                        champion: champion.clone(),
                        agents: names,
                    }),
                }
            }
            other => Err(FormatError::Unknown(other.to_string())),
        }
    }

    /// The output folder: `output`, or `results/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join(&self.name))
    }

    /// Number of openings: `openings.count`, or one per pair of games.
    pub fn opening_count(&self) -> usize {
        self.openings
            .count
            .map_or(self.games_per_pair.div_ceil(2) as usize, |c| c as usize)
    }
}

/// The TOML parser's message with each line (it quotes the offending
/// line, and a key in full) cut to a readable length; long enough to keep
/// its list of the keys that exist.
fn clip_lines(message: &str) -> String {
    const KEEP: usize = 400;
    message
        .lines()
        .map(|l| match l.char_indices().nth(KEEP) {
            None => l.to_string(),
            Some((cut, _)) => format!("{}… ({} bytes)", &l[..cut], l.len()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `name` can name a folder inside `results/` and nothing else:
/// not empty, not `.` or `..` or hidden, no separators.
pub fn is_plain_folder_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
game = "kalah"
games_per_pair = 4
seed = 3
[openings]
plies = 2
[[agents]]
spec = "random"
[[agents]]
name = "g"
spec = "greedy"
"#;

    #[test]
    fn a_good_config_parses_with_defaults() {
        let c = TournamentConfig::parse(GOOD, "t.toml").unwrap();
        assert_eq!(c.agent_names(), vec!["random", "g"]);
        assert_eq!(c.format(), Ok(Format::RoundRobin));
        assert_eq!(c.output_dir(), PathBuf::from("results/t"));
        assert_eq!(c.opening_count(), 2);
    }

    fn error_of(text: &str) -> String {
        TournamentConfig::parse(text, "bad.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn errors_name_the_file_and_key() {
        let e = error_of(&GOOD.replace("games_per_pair = 4", "games_per_pair = 4\ngames = 3"));
        assert!(e.starts_with("bad.toml") && e.contains("games"), "{e}");
        let e = error_of(&GOOD.replace("games_per_pair = 4", "games_per_pair = 0"));
        assert!(e.contains("key `games_per_pair`"), "{e}");
        let e = error_of(&GOOD.replace("name = \"g\"\n", "name = \"random\"\n"));
        assert!(e.contains("agents[1]") && e.contains("already used"), "{e}");
        let e = error_of(&GOOD.replace("seed = 3", "seed = 3\nformat = \"swiss\""));
        assert!(
            e.contains("key `format`") && e.contains("round_robin or gauntlet"),
            "{e}"
        );
        let e = error_of(&GOOD.replace("seed = 3", "seed = 3\nformat = \"gauntlet\""));
        assert!(e.contains("key `champion`"), "{e}");
        let e = error_of(&GOOD.replace("seed = 3", "seed = 3\n[ratings]\nanchor = \"x\""));
        assert!(
            e.contains("key `ratings.anchor`") && e.contains("random, g"),
            "{e}"
        );
        let e = error_of(&GOOD.replace("seed = 3", "seed = 3\nmove_timeout = \"soon\""));
        assert!(e.contains("key `move_timeout`"), "{e}");
        for (line, says) in [
            (
                "time_control = \"10+\"",
                "key `time_control`: bad time control '10+'",
            ),
            ("time_control = \"0+0\"", "no time at all"),
            ("time_control = \"1e20+0\"", "over a day"),
            ("time_margin = \"5ms\"", "no time_control for it"),
            (
                "time_control = \"1+0\"\ntime_margin = \"soon\"",
                "key `time_margin`",
            ),
        ] {
            let e = error_of(&GOOD.replace("seed = 3", &format!("seed = 3\n{line}")));
            assert!(e.contains(says), "{line}: {e}");
        }
        let clocked = GOOD.replace(
            "seed = 3",
            "seed = 3\ntime_control = \"40/60+0.5\"\ntime_margin = \"20ms\"",
        );
        let (control, margin) = TournamentConfig::parse(&clocked, "t.toml")
            .unwrap()
            .clock()
            .unwrap();
        assert_eq!(control.unwrap().to_string(), "40/60+0.5");
        assert_eq!(margin, std::time::Duration::from_millis(20));
        let inf = GOOD.replace("seed = 3", "seed = 3\ntime_control = \"inf\"");
        let (control, _) = TournamentConfig::parse(&inf, "t.toml")
            .unwrap()
            .clock()
            .unwrap();
        assert_eq!(control, None);
        let e = error_of(&GOOD.replace("seed = 3", "seed = \"three\""));
        assert!(e.contains("seed"), "{e}");
        let e = error_of(&GOOD.replace("[[agents]]\nname = \"g\"\nspec = \"greedy\"\n", ""));
        assert!(e.contains("at least 2 agents"), "{e}");
    }

    #[test]
    fn an_openings_file_is_the_only_source_of_openings() {
        let file = GOOD.replace("plies = 2", "file = \"s.txt\"\norder = \"random\"");
        let c = TournamentConfig::parse(&file, "t.toml").unwrap();
        assert_eq!(c.openings.file, Some(PathBuf::from("s.txt")));
        assert_eq!(c.openings.order(), Ok(OpeningOrder::Random));
        for (replace, says) in [
            (
                "plies = 2\nfile = \"s.txt\"",
                "key `openings.plies`: an openings file",
            ),
            (
                "count = 1\nfile = \"s.txt\"",
                "key `openings.count`: an openings file",
            ),
            (
                "plies = 2\norder = \"random\"",
                "key `openings.order`: orders the lines",
            ),
            (
                "file = \"s.txt\"\norder = \"shuffled\"",
                "sequential or random",
            ),
        ] {
            let e = error_of(&GOOD.replace("plies = 2", replace));
            assert!(e.contains(says), "{replace}: {e}");
        }
    }

    const ENGINE: &str = "[[agents]]\nname = \"py\"\ncommand = [\"python3\", \"my bot.py\"]\n\
                          options = { Hash = 64, Book = \"off\" }\ngo = \"movetime 100\"\n";

    #[test]
    fn an_engine_entry_keeps_its_keys_for_the_registry() {
        let c = TournamentConfig::parse(&format!("{GOOD}{ENGINE}"), "t.toml").unwrap();
        assert_eq!(c.agent_names(), vec!["random", "g", "py"]);
        let py = &c.agents[2];
        assert_eq!((py.key(), py.spec.as_str()), ("command", ""));
        assert_eq!(py.go.as_deref(), Some("movetime 100"));
    }

    #[test]
    fn engine_entry_errors_name_the_key() {
        for (from, to, needle) in [
            (
                "name = \"py\"\n",
                "",
                "agents[2]`: an engine (`command`) needs a `name`",
            ),
            (
                "command = [\"python3\", \"my bot.py\"]",
                "command = []",
                "agents[2].command`",
            ),
            (
                "name = \"py\"\n",
                "name = \"py\"\nspec = \"random\"\n",
                "not both",
            ),
            (
                "command = [\"python3\", \"my bot.py\"]\n",
                "spec = \"random\"\n",
                "agents[2].options`: is only for an engine",
            ),
        ] {
            let text = format!("{GOOD}{}", ENGINE.replace(from, to));
            let e = error_of(&text);
            assert!(e.contains(needle), "{from} -> {to}: {e}");
        }
        let e = error_of(&GOOD.replace("spec = \"greedy\"", ""));
        assert!(e.contains("needs `spec`"), "{e}");
    }
}
