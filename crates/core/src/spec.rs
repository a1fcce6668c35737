//! Spec strings, `name[:key=value,...]`, as used for games (`kalah:pits=4`)
//! and agents (`minimax:depth=10`) on the command line, in configs and in
//! records.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{CongkakRules, KalahRules, OwareRules, SpecError};

pub use crate::error::{truncate_input, ECHO_CHARS};

/// A parsed but not yet interpreted spec: a name and its options, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The part before the colon, lower-cased.
    pub name: String,
    /// `key=value` pairs after the colon, keys lower-cased.
    pub options: Vec<(String, String)>,
}

impl Spec {
    /// Splits `text` into a name and options.
    ///
    /// # Errors
    /// [`SpecError::Malformed`] for an empty name or an option without `=`,
    /// [`SpecError::DuplicateKey`] for a key given twice.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let malformed = |why: &str| SpecError::Malformed {
            spec: text.to_string(),
            why: why.to_string(),
        };
        let text_trimmed = text.trim();
        let (name, rest) = match text_trimmed.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text_trimmed, None),
        };
        if name.is_empty() {
            return Err(malformed("the name is empty"));
        }
        let mut options: Vec<(String, String)> = Vec::new();
        if let Some(rest) = rest {
            for part in rest.split(',') {
                let part = part.trim();
                if part.is_empty() {
                    return Err(malformed("an option is empty"));
                }
                let Some((k, v)) = part.split_once('=') else {
                    return Err(malformed(&format!(
                        "option '{}' has no '='",
                        truncate_input(part)
                    )));
                };
                let key = k.trim().to_ascii_lowercase();
                if key.is_empty() || v.trim().is_empty() {
                    return Err(malformed(&format!(
                        "option '{}' needs a key and a value",
                        truncate_input(part)
                    )));
                }
                if options.iter().any(|(existing, _)| *existing == key) {
                    return Err(SpecError::DuplicateKey { key });
                }
                options.push((key, v.trim().to_string()));
            }
        }
        Ok(Spec {
            name: name.to_ascii_lowercase(),
            options,
        })
    }

    /// Fails on the first key not in `accepted`.
    ///
    /// # Errors
    /// [`SpecError::UnknownKey`] naming the key and the accepted ones.
    pub fn check_keys(&self, accepted: &[&str]) -> Result<(), SpecError> {
        for (key, _) in &self.options {
            if !accepted.contains(&key.as_str()) {
                return Err(SpecError::UnknownKey {
                    name: self.name.clone(),
                    key: key.clone(),
                    accepted: if accepted.is_empty() {
                        "none: it takes no options".into()
                    } else {
                        accepted.join(", ")
                    },
                });
            }
        }
        Ok(())
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key` as an integer in `range`, if given.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] when it is not a number in the range.
    pub fn get_int(&self, key: &str, range: RangeInclusive<u64>) -> Result<Option<u64>, SpecError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.parse::<u64>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(bad_value(
                key,
                v,
                &format!("a whole number from {} to {}", range.start(), range.end()),
            )),
        }
    }

    /// The value of `key` as a float in `range`, if given.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] when it is not a number in the range.
    pub fn get_float(
        &self,
        key: &str,
        range: RangeInclusive<f64>,
    ) -> Result<Option<f64>, SpecError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.parse::<f64>() {
            Ok(x) if range.contains(&x) => Ok(Some(x)),
            _ => Err(bad_value(
                key,
                v,
                &format!("a number from {} to {}", range.start(), range.end()),
            )),
        }
    }

    /// The value of `key` as `true`/`false`, if given.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] for anything else.
    pub fn get_bool(&self, key: &str) -> Result<Option<bool>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" | "on" => Ok(Some(true)),
                "false" | "no" | "0" | "off" => Ok(Some(false)),
                _ => Err(bad_value(key, v, "true or false")),
            },
        }
    }

    /// The value of `key` as one of `choices` (returns its index), if given.
    ///
    /// # Errors
    /// [`SpecError::BadValue`] listing the choices.
    pub fn get_choice(&self, key: &str, choices: &[&str]) -> Result<Option<usize>, SpecError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let lower = v.to_ascii_lowercase();
        match choices.iter().position(|c| *c == lower) {
            Some(i) => Ok(Some(i)),
            None => Err(bad_value(key, v, &format!("one of {}", choices.join(", ")))),
        }
    }
}

/// A [`SpecError::BadValue`].
pub fn bad_value(key: &str, value: &str, expected: &str) -> SpecError {
    SpecError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

/// Writes `name` followed by `:k=v,...` for the non-empty list of options.
pub fn write_spec(f: &mut fmt::Formatter<'_>, name: &str, options: &[String]) -> fmt::Result {
    f.write_str(name)?;
    if !options.is_empty() {
        write!(f, ":{}", options.join(","))?;
    }
    Ok(())
}

/// A game and its rules, as named by a game spec such as
/// `kalah`, `kalah:pits=4,seeds=3`, `kalah:empty_capture=true,pie=true`,
/// `oware:grand_slam=illegal` or `congkak:rounds=many`.
///
/// It displays in a canonical form that lists only the options that differ
/// from the defaults, and parses back to an equal value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameSpec {
    /// Kalah with these rules.
    Kalah(KalahRules),
    /// Oware (Abapa) with these rules.
    Oware(OwareRules),
    /// Congkak with these rules.
    Congkak(CongkakRules),
}

/// The game names a spec accepts.
pub const GAME_NAMES: &[&str] = &["kalah", "oware", "congkak"];

impl FromStr for GameSpec {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<GameSpec, SpecError> {
        let spec = Spec::parse(text)?;
        match spec.name.as_str() {
            "kalah" => Ok(GameSpec::Kalah(KalahRules::from_spec(&spec)?)),
            "oware" | "abapa" => Ok(GameSpec::Oware(OwareRules::from_spec(&spec)?)),
            "congkak" | "congklak" | "kongkak" => {
                Ok(GameSpec::Congkak(CongkakRules::from_spec(&spec)?))
            }
            _ => Err(SpecError::UnknownName {
                kind: "game",
                name: spec.name,
                accepted: GAME_NAMES.join(", "),
            }),
        }
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::Kalah(r) => r.fmt(f),
            GameSpec::Oware(r) => r.fmt(f),
            GameSpec::Congkak(r) => r.fmt(f),
        }
    }
}

impl Serialize for GameSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GameSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameSpec, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Checks `pits` and `seeds` against the board representation.
pub(crate) fn check_board(name: &str, pits: usize, seeds: usize) -> Result<(), SpecError> {
    let total = 2 * pits * seeds;
    if total > crate::MAX_SEEDS {
        return Err(SpecError::ImpossibleBoard {
            name: name.to_string(),
            why: format!(
                "{pits} pits x {seeds} seeds x 2 rows = {total} seeds, more than the {} a board can hold",
                crate::MAX_SEEDS
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_splits_name_and_options() {
        let s = Spec::parse(" Kalah:pits=4, seeds=3 ").unwrap();
        assert_eq!(s.name, "kalah");
        assert_eq!(s.get("pits"), Some("4"));
        assert_eq!(s.get("seeds"), Some("3"));
        assert!(matches!(Spec::parse(""), Err(SpecError::Malformed { .. })));
        assert!(matches!(
            Spec::parse("kalah:pits"),
            Err(SpecError::Malformed { .. })
        ));
        assert!(matches!(
            Spec::parse("kalah:pits=4,"),
            Err(SpecError::Malformed { .. })
        ));
        assert!(matches!(
            Spec::parse("kalah:pits=4,pits=5"),
            Err(SpecError::DuplicateKey { .. })
        ));
    }

    #[test]
    fn game_spec_round_trips_in_canonical_form() {
        for text in [
            "kalah",
            "kalah:pits=4,seeds=3",
            "kalah:empty_capture=true,pie=true",
            "kalah:game_end=delayed,leftover=set_aside",
            "oware",
            "oware:grand_slam=illegal",
            "oware:pits=5,seeds=3,grand_slam=capture_all,max_plies=300",
            "congkak",
            "congkak:pits=5,seeds=5",
            "congkak:rounds=many",
            "congkak:pits=4,seeds=3,empty_capture=true,game_end=immediate,rounds=many,max_rounds=7",
        ] {
            let spec: GameSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<GameSpec>().unwrap(), spec);
        }
        assert_eq!(
            "kalah:pits=6,seeds=4"
                .parse::<GameSpec>()
                .unwrap()
                .to_string(),
            "kalah"
        );
    }

    #[test]
    fn game_spec_errors_name_the_key_and_accepted_values() {
        let e = "chess".parse::<GameSpec>().unwrap_err().to_string();
        assert!(
            e.contains("unknown game 'chess'") && e.contains("kalah, oware"),
            "{e}"
        );
        let e = "kalah:pit=4".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("'pit'") && e.contains("pits, seeds"), "{e}");
        let e = "kalah:pie=maybe"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("'pie'") && e.contains("true or false"), "{e}");
        let e = "oware:grand_slam=sometimes"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("no_capture, illegal, capture_all"), "{e}");
        let e = "kalah:pits=0".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("'pits'") && e.contains("from 1 to 15"), "{e}");
        let e = "kalah:pits=12,seeds=12"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("288 seeds"), "{e}");
    }

    #[test]
    fn spec_errors_quote_long_input_truncated() {
        let long = "y".repeat(100_000);
        for text in [
            format!("kalah:pits={long}"),
            format!("kalah:{long}"),
            format!("kalah:{long}=1"),
            long.clone(),
            format!("kalah:pits=4,{long}"),
            format!(":{long}"),
        ] {
            let e = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(
                e.len() < 400,
                "{} bytes: {}",
                e.len(),
                &e[..400.min(e.len())]
            );
            assert!(e.contains(" bytes)"), "{e}");
        }
    }
}
