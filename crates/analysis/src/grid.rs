//! The grid of a first-move analysis: boards (pits x seeds x rule sets)
//! read from the command line's lists and ranges, each a checked game spec.

use std::collections::BTreeSet;

use mancala_core::spec::Spec;
use mancala_core::GameSpec;

use crate::{bad_input, Result};

/// Most boards (pits x seeds x rule sets) a grid may have.
pub const MAX_BOARDS: usize = 10_000;

/// One board of the grid.
#[derive(Clone, Debug)]
pub struct Board {
    /// Pits per row.
    pub pits: usize,
    /// Seeds per pit at the start.
    pub seeds: usize,
    /// The rule set's name as given.
    pub rules: String,
    /// The game.
    pub spec: GameSpec,
    /// `spec` as text: the board's key.
    pub key: String,
}

/// Reads `3`, `3..6`, `3..=6` or a comma-separated list of them; every
/// value from 1 to `max`.
pub fn parse_numbers(flag: &str, text: &str, max: usize) -> Result<Vec<usize>> {
    let bad = |why: String| bad_input(format!("{flag} '{}': {why}", text.trim()));
    let number = |t: &str| -> Result<usize> {
        match t.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(bad(format!(
                "'{}' is not a whole number from 1 to {max}",
                t.trim()
            ))),
        }
    };
    let mut out = BTreeSet::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad("an entry is empty (write 3..6 or 3,4,5)".into()));
        }
        if let Some((a, b)) = part.split_once("..") {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(bad(format!("the range {a}..{b} is empty (write {b}..{a})")));
            }
            out.extend(a..=b);
        } else {
            out.insert(number(part)?);
        }
    }
    Ok(out.into_iter().collect())
}

/// The options a named rule set stands for.
pub fn rule_options(name: &str) -> Result<Vec<String>> {
    let mut opts = Vec::new();
    for part in name.split('+') {
        let part = part.trim();
        match part {
            "standard" if name.trim() == "standard" => {}
            "standard" => {
                return Err(bad_input(format!(
                    "--rules '{name}': 'standard' means no options and cannot be combined"
                )))
            }
            "empty_capture" => opts.push("empty_capture=true".into()),
            "pie" => opts.push("pie=true".into()),
            "delayed" => opts.push("game_end=delayed".into()),
            "set_aside" => opts.push("leftover=set_aside".into()),
            p if p.contains('=') && !p.contains(',') && !p.contains(':') => opts.push(p.into()),
            p => {
                return Err(bad_input(format!(
                    "--rules: unknown rule set '{p}' (accepted: standard, empty_capture, pie, \
                     delayed, set_aside, or game options such as empty_capture=true, joined with +)"
                )))
            }
        }
    }
    Ok(opts)
}

/// A checked grid: the game's name, its rule sets and its boards.
#[derive(Clone, Debug)]
pub struct Grid {
    /// The game's name (`kalah`, `oware`, `congkak`).
    pub game: String,
    /// The rule sets' names, as given.
    pub rule_sets: Vec<String>,
    /// Every board, in a fixed order (rule set, then pits, then seeds).
    pub boards: Vec<Board>,
}

/// The grid's boards, checked: every spec parses, in a fixed order (rule
/// set, then pits, then seeds). `game` is a game spec without pits or
/// seeds; `pits` and `seeds` are lists and ranges ([`parse_numbers`]);
/// `rules` is a comma-separated list of rule sets ([`rule_options`]).
///
/// # Errors
/// [`crate::AnalysisError::BadInput`] naming the flag and what is wrong.
pub fn grid(game: &str, pits: &str, seeds: &str, rules: &str) -> Result<Grid> {
    let base = Spec::parse(game).map_err(|e| bad_input(format!("--game: {e}")))?;
    if !mancala_core::spec::GAME_NAMES.contains(&base.name.as_str()) {
        return Err(bad_input(format!(
            "--game: unknown game '{}' (accepted: {})",
            base.name,
            mancala_core::spec::GAME_NAMES.join(", ")
        )));
    }
    if let Some((k, _)) = base
        .options
        .iter()
        .find(|(k, _)| k == "pits" || k == "seeds")
    {
        return Err(bad_input(format!(
            "--game: give {k} with --{k}, not in the game spec"
        )));
    }
    let pits = parse_numbers("--pits", pits, mancala_core::MAX_PITS)?;
    let seeds = parse_numbers("--seeds", seeds, mancala_core::MAX_SEEDS)?;
    let mut rule_sets: Vec<String> = Vec::new();
    for r in rules.split(',') {
        let r = r.trim();
        if r.is_empty() {
            return Err(bad_input("--rules: a rule set is empty"));
        }
        if rule_sets.iter().any(|x| x == r) {
            return Err(bad_input(format!("--rules: '{r}' is listed twice")));
        }
        rule_sets.push(r.to_string());
    }
    if rule_sets.len() * pits.len() * seeds.len() > MAX_BOARDS {
        return Err(bad_input(format!(
            "the grid has {} boards; at most {MAX_BOARDS} (use smaller ranges)",
            rule_sets.len() * pits.len() * seeds.len()
        )));
    }
    let base_opts: Vec<String> = base
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut out = Vec::new();
    for r in &rule_sets {
        let extra = rule_options(r)?;
        for &p in &pits {
            for &s in &seeds {
                let mut opts = vec![format!("pits={p}"), format!("seeds={s}")];
                opts.extend(base_opts.iter().cloned());
                opts.extend(extra.iter().cloned());
                let text = format!("{}:{}", base.name, opts.join(","));
                let spec = text.parse::<GameSpec>().map_err(|e| {
                    bad_input(format!(
                        "board pits={p}, seeds={s}, rules '{r}' ({text}): {e}"
                    ))
                })?;
                out.push(Board {
                    pits: p,
                    seeds: s,
                    rules: r.clone(),
                    key: spec.to_string(),
                    spec,
                });
            }
        }
    }
    Ok(Grid {
        game: base.name,
        rule_sets,
        boards: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lists_and_ranges() {
        assert_eq!(parse_numbers("--pits", "3..6", 15).unwrap(), [3, 4, 5, 6]);
        assert_eq!(
            parse_numbers("--pits", "2, 5..=6,2", 15).unwrap(),
            [2, 5, 6]
        );
        for bad in ["0..3", "6..3", "", "3..", "x", "1..16", "3,,4"] {
            assert!(parse_numbers("--pits", bad, 15).is_err(), "{bad}");
        }
    }

    #[test]
    fn rule_set_names() {
        assert!(rule_options("standard").unwrap().is_empty());
        assert_eq!(
            rule_options("empty_capture+pie").unwrap(),
            ["empty_capture=true", "pie=true"]
        );
        assert!(rule_options("standard+pie").is_err());
        assert!(rule_options("nonsense").is_err());
    }
}
