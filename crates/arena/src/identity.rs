//! A tournament's identity: what a folder's `tournament.json` holds, what
//! must match for a rerun to continue the folder's games, and what
//! `mancala merge` rebuilds the tournament from (a shard's folder adds its
//! [`ShardStamp`](crate::merge::ShardStamp) under
//! [`SHARD_KEY`](crate::merge::SHARD_KEY)).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::config::{AdjudicationConfig, FormatError, TournamentConfig, MAX_GAMES};

/// Why an identity does not give back a tournament (a hand-edited file).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// Not an identity this program writes, or not a config once read.
    #[error("{0}")]
    Shape(String),
    /// Its format or champion does not fit its agents.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Too few agents, or more games than a tournament may plan.
    #[error("{agents} agents and {games} games is not a tournament")]
    Size {
        /// Agents named.
        agents: usize,
        /// Games the identity plans.
        games: u64,
    },
}

/// Everything that decides which games a tournament plays, as written to
/// its folder's `tournament.json`. The field order is the file's: keep it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    name: String,
    game: String,
    format: String,
    champion: Option<String>,
    games_per_pair: u32,
    seed: u64,
    opening_plies: u32,
    opening_count: usize,
    /// An openings file: the path as the config wrote it, the order, and
    /// a digest of the openings it held ([`crate::openings::digest`]), so
    /// that a resumed run notices an edited file. Left out without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    openings_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    openings_order: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    openings_digest: Option<String>,
    move_timeout: Option<String>,
    /// Left out when there is no clock, so that folders of tournaments
    /// without one read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time_control: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time_margin: Option<String>,
    agents: Vec<(String, String)>,
    /// Exact adjudication: part of what decides the games. Left out when
    /// off, so that folders of tournaments without it read as before.
    #[serde(default, skip_serializing_if = "is_off")]
    adjudication: AdjudicationConfig,
}

fn is_off(a: &AdjudicationConfig) -> bool {
    *a == AdjudicationConfig::default()
}

impl Identity {
    /// The identity of `config` played on `game` (its canonical spec) by
    /// agents whose canonical specs are `specs`, in the config's order.
    pub fn new(config: &TournamentConfig, game: &str, specs: &[String]) -> Identity {
        Identity {
            name: config.name.clone(),
            game: game.to_string(),
            format: config.format.clone(),
            champion: config.champion.clone(),
            games_per_pair: config.games_per_pair,
            seed: config.seed,
            opening_plies: config.openings.plies,
            opening_count: config.opening_count(),
            openings_file: config
                .openings
                .file
                .as_ref()
                .map(|f| f.display().to_string()),
            openings_order: config.openings.order.clone(),
            openings_digest: None,
            move_timeout: config.move_timeout.clone(),
            time_control: config.time_control.clone(),
            time_margin: config.time_margin.clone(),
            agents: config
                .agent_names()
                .into_iter()
                .zip(specs.iter().cloned())
                .collect(),
            adjudication: config.adjudication.clone(),
        }
    }

    /// The identity a folder's `tournament.json` holds (its shard stamp
    /// taken out).
    ///
    /// # Errors
    /// [`IdentityError::Shape`] for a file this program did not write.
    pub fn from_value(value: &Value) -> Result<Identity, IdentityError> {
        Identity::deserialize(value).map_err(|e| IdentityError::Shape(e.to_string()))
    }

    /// As written to `tournament.json`.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an identity serialises")
    }

    /// The identity of a tournament whose openings file held `count`
    /// openings with this `digest`: both are part of what it plays.
    pub fn with_openings(mut self, count: usize, digest: String) -> Identity {
        if self.openings_file.is_some() {
            self.opening_count = count;
            self.openings_digest = Some(digest);
        }
        self
    }

    /// The tournament's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The agents' specs, by agent index.
    pub fn agent_specs(&self) -> Vec<String> {
        self.agents.iter().map(|(_, spec)| spec.clone()).collect()
    }

    /// A config that plans exactly this tournament, rated with `anchor`.
    ///
    /// # Errors
    /// [`IdentityError`] when the identity does not make a config (a
    /// hand-edited file).
    pub fn config(&self, anchor: Option<&str>) -> Result<TournamentConfig, IdentityError> {
        let value = serde_json::json!({
            "name": self.name,
            "game": self.game,
            "format": self.format,
            "champion": self.champion,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "move_timeout": self.move_timeout,
            "time_control": self.time_control,
            "time_margin": self.time_margin,
            "openings": match &self.openings_file {
                None => serde_json::json!({"plies": self.opening_plies, "count": self.opening_count}),
                Some(file) => serde_json::json!({"file": file, "order": self.openings_order}),
            },
            "ratings": {"anchor": anchor},
            "adjudication": self.adjudication,
            "agents": self.agents.iter()
                .map(|(name, spec)| serde_json::json!({"name": name, "spec": spec}))
                .collect::<Vec<_>>(),
        });
        let config = TournamentConfig::deserialize(value)
            .map_err(|e| IdentityError::Shape(e.to_string()))?;
        // What `TournamentConfig::parse` would refuse that the plan relies on.
        config.format()?;
        let planned = config.planned_games();
        if config.agents.len() < 2 || planned > MAX_GAMES {
            return Err(IdentityError::Size {
                agents: config.agents.len(),
                games: planned,
            });
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"
name = "id"
game = "kalah:pits=4,seeds=3"
games_per_pair = 4
seed = 9

[[agents]]
spec = "random"

[[agents]]
name = "g"
spec = "greedy"
"#;

    #[test]
    fn an_identity_gives_back_the_config_it_was_made_from() {
        let config = TournamentConfig::parse(CONFIG, "id.toml").unwrap();
        let specs = vec!["random".to_string(), "greedy".to_string()];
        let identity = Identity::new(&config, "kalah:pits=4,seeds=3", &specs);
        assert_eq!(identity.agent_specs(), specs);
        let back = Identity::from_value(&identity.to_value()).unwrap();
        assert_eq!(back, identity);
        let again = back.config(None).unwrap();
        assert_eq!(again.agent_names(), config.agent_names());
        assert_eq!(again.planned_games(), config.planned_games());
        assert_eq!(again.seed, 9);
        assert_eq!(
            Identity::new(&again, "kalah:pits=4,seeds=3", &specs),
            identity
        );
    }

    #[test]
    fn the_file_keeps_its_field_order() {
        let config = TournamentConfig::parse(CONFIG, "id.toml").unwrap();
        let identity = Identity::new(&config, "kalah", &["random".into(), "greedy".into()]);
        let text = serde_json::to_string(&identity).unwrap();
        assert!(
            text.starts_with(r#"{"name":"id","game":"kalah","format":"round_robin","champion":null,"games_per_pair":4,"seed":9,"opening_plies":"#),
            "{text}"
        );
        assert!(
            text.ends_with(r#""agents":[["random","random"],["g","greedy"]]}"#),
            "{text}"
        );
    }

    #[test]
    fn edited_identities_are_refused_with_the_reason() {
        let config = TournamentConfig::parse(CONFIG, "id.toml").unwrap();
        let identity = Identity::new(&config, "kalah", &["random".into(), "greedy".into()]);
        let mut value = identity.to_value();
        value["extra"] = Value::from(1);
        assert!(matches!(
            Identity::from_value(&value),
            Err(IdentityError::Shape(_))
        ));
        let mut value = identity.to_value();
        value["format"] = Value::from("gauntlet");
        let e = Identity::from_value(&value)
            .unwrap()
            .config(None)
            .unwrap_err();
        assert!(
            matches!(e, IdentityError::Format(FormatError::NoChampion)),
            "{e:?}"
        );
        let mut value = identity.to_value();
        value["agents"] = serde_json::json!([["random", "random"]]);
        let e = Identity::from_value(&value)
            .unwrap()
            .config(None)
            .unwrap_err();
        assert!(matches!(e, IdentityError::Size { agents: 1, .. }), "{e:?}");
    }
}
