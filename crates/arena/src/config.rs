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
//!
//! [openings]
//! plies = 4                      # 0: every game from the start position
//! count = 10                     # optional: default games_per_pair / 2
//!
//! [ratings]
//! anchor = "random"              # optional: an agent's name fixed at 0 Elo; default the mean
//!
//! [[agents]]
//! spec = "random"
//! [[agents]]
//! name = "minimax-6"             # optional display name; default the spec
//! spec = "minimax:depth=6"
//! ```
//!
//! Parsing checks the shape and every value it can check without knowing
//! which games and agents exist; the caller checks the game and agent specs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::schedule::Format;

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

/// One agent of a tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentEntry {
    /// Display name (default: the spec).
    #[serde(default)]
    pub name: Option<String>,
    /// Agent spec, e.g. `minimax:depth=6`.
    pub spec: String,
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
}

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
    /// Openings.
    #[serde(default)]
    pub openings: OpeningsConfig,
    /// Rating options.
    #[serde(default)]
    pub ratings: RatingsConfig,
    /// The agents.
    pub agents: Vec<AgentEntry>,
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
            message: e.to_string().trim_end().to_string(),
        })?;
        config.check(path)?;
        Ok(config)
    }

    fn check(&self, path: &str) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_string(),
            key: key.to_string(),
            message,
        };
        if self.name.trim().is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(invalid(
                "name",
                format!("'{}' must be non-empty and use only letters, digits, '-', '_' and '.' (it names the output folder)", self.name),
            ));
        }
        if self.agents.len() < 2 {
            return Err(invalid(
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
                return Err(invalid(
                    &format!("agents[{i}].name"),
                    "must not be empty".into(),
                ));
            }
            if let Some(j) = names[..i].iter().position(|n| n == name) {
                return Err(invalid(
                    &format!("agents[{i}]"),
                    format!("the name '{name}' is already used by agents[{j}]; give one of them a `name`"),
                ));
            }
        }
        if self.games_per_pair == 0 {
            return Err(invalid("games_per_pair", "must be at least 1".into()));
        }
        if self.threads == Some(0) {
            return Err(invalid(
                "threads",
                "must be at least 1 (or left out for all cores)".into(),
            ));
        }
        if self.openings.count == Some(0) {
            return Err(invalid("openings.count", "must be at least 1".into()));
        }
        self.format().map_err(|m| {
            invalid(
                if m.contains("champion") {
                    "champion"
                } else {
                    "format"
                },
                m,
            )
        })?;
        if let Some(anchor) = &self.ratings.anchor {
            if !names.contains(anchor) {
                return Err(invalid(
                    "ratings.anchor",
                    format!(
                        "no agent is named '{anchor}' (agents: {})",
                        names.join(", ")
                    ),
                ));
            }
        }
        if let Some(t) = &self.move_timeout {
            mancala_agents::parse_duration("move_timeout", t)
                .map_err(|e| invalid("move_timeout", e.to_string()))?;
        }
        Ok(())
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
    /// A message for an unknown format or a missing or unknown champion.
    pub fn format(&self) -> Result<Format, String> {
        match self.format.as_str() {
            "round_robin" => Ok(Format::RoundRobin),
            "gauntlet" => {
                let Some(champion) = &self.champion else {
                    return Err(
                        "a gauntlet needs `champion = \"NAME\"`, the agent that plays all others"
                            .into(),
                    );
                };
                let names = self.agent_names();
                match names.iter().position(|n| n == champion) {
                    Some(i) => Ok(Format::Gauntlet(i)),
                    None => Err(format!(
                        "champion '{champion}' is not an agent's name (agents: {})",
                        names.join(", ")
                    )),
                }
            }
            other => Err(format!(
                "'{other}' is not a format: use round_robin or gauntlet"
            )),
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
        let e = error_of(&GOOD.replace("seed = 3", "seed = \"three\""));
        assert!(e.contains("seed"), "{e}");
        let e = error_of(&GOOD.replace("[[agents]]\nname = \"g\"\nspec = \"greedy\"\n", ""));
        assert!(e.contains("at least 2 agents"), "{e}");
    }
}
