//! Engines as agent specs: `engine:cmd=python3 bot.py --fast,movetime=100`,
//! so that an engine can play wherever an agent spec is accepted.

use std::fmt;

use mancala_agents::{format_duration, parse_duration};
use mancala_core::spec::{bad_value, write_spec, Spec};
use mancala_core::SpecError;

use crate::client::{EngineConfig, DEFAULT_HANDSHAKE_TIMEOUT};
use crate::protocol::GoLimits;

/// The agent name of engine specs.
pub const ENGINE_SPEC_NAME: &str = "engine";

const KEYS: &[&str] = &[
    "cmd",
    "name",
    "movetime",
    "nodes",
    "depth",
    "options",
    "handshake",
];

impl EngineConfig {
    /// Reads an `engine:` agent spec:
    ///
    /// - `cmd=PROGRAM ARGS...` (required; split like a shell would, so
    ///   quote arguments with spaces; no commas),
    /// - `name=NAME` (default: the file stem of the script or program:
    ///   `python3 bot.py 1` is `bot`),
    /// - `movetime=100ms`, `nodes=N`, `depth=D`: the limits of each `go`,
    /// - `options=NAME=VALUE;NAME=VALUE`: `setoption`s after each start,
    /// - `handshake=10s`: time to start and get ready for a game.
    ///
    /// # Errors
    /// [`SpecError`] naming the key that is wrong.
    pub fn from_spec(spec: &Spec) -> Result<EngineConfig, SpecError> {
        spec.check_keys(KEYS)?;
        let cmd = spec.get("cmd").ok_or_else(|| SpecError::Malformed {
            spec: ENGINE_SPEC_NAME.into(),
            why: "an engine needs `cmd=PROGRAM ARGS...`".into(),
        })?;
        let command = shell_words::split(cmd)
            .map_err(|e| bad_value("cmd", cmd, &format!("a command line ({e})")))?;
        if command.is_empty() {
            return Err(bad_value("cmd", cmd, "a program to run"));
        }
        let name = match spec.get("name") {
            Some(name) => checked_name(name)?,
            None => default_name(&command),
        };
        let mut config = EngineConfig::new(name, command);
        if let Some(t) = spec.get("movetime") {
            config.go.movetime = Some(parse_duration("movetime", t)?);
        }
        config.go.nodes = spec.get_int("nodes", 1..=u64::MAX)?;
        config.go.depth = spec.get_int("depth", 1..=1000)?.map(|d| d as u32);
        if let Some(list) = spec.get("options") {
            config.options = parse_options(list)?;
        }
        if let Some(t) = spec.get("handshake") {
            config.handshake_timeout = parse_duration("handshake", t)?;
        }
        Ok(config)
    }
}

/// `NAME=VALUE;NAME=VALUE`.
fn parse_options(list: &str) -> Result<Vec<(String, String)>, SpecError> {
    list.split(';')
        .filter(|part| !part.trim().is_empty())
        .map(|part| match part.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(bad_value(
                "options",
                list,
                "NAME=VALUE pairs separated by ';'",
            )),
        })
        .collect()
}

/// A name usable in results and as a file name.
fn checked_name(name: &str) -> Result<String, SpecError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
    if ok {
        Ok(name.to_string())
    } else {
        Err(bad_value(
            "name",
            name,
            "letters, digits, '-', '_', '.' or '+' (not starting with '.')",
        ))
    }
}

/// Programs that run another one named on their command line (a script, a
/// jar, a command): an engine started through them is named after that.
const RUNNERS: &[&str] = &[
    "python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit",
    "julia", "rscript", "java", "sh", "bash", "dash", "zsh", "env", "exec",
];

/// Whether `word` names one of the [`RUNNERS`], with or without a version
/// (`python3.12`, `/usr/bin/node18`).
fn is_runner(word: &str) -> bool {
    let name = std::path::Path::new(word)
        .file_name()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let bare = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    RUNNERS.contains(&bare)
}

/// The word of `command` that names the engine: the first that is not a
/// flag, a variable setting (`env X=1`) or a runner. The script of a
/// shell's `-c` is looked into.
fn naming_word(command: &[String]) -> Option<String> {
    let mut after_c = false;
    for word in command {
        if word.starts_with('-') {
            after_c = word == "-c";
            continue;
        }
        if std::mem::take(&mut after_c) {
            if let Some(inner) = shell_words::split(word)
                .ok()
                .and_then(|words| naming_word(&words))
            {
                return Some(inner);
            }
        }
        if !is_runner(word) && !word.contains('=') {
            return Some(word.clone());
        }
    }
    None
}

/// The file stem of the word that names the program (`python3 bot.py 1`
/// and `./bot --fast` are `bot`, `java -jar champ.jar` is `champ`: see
/// [`naming_word`]), made safe for file names.
fn default_name(command: &[String]) -> String {
    let word = naming_word(command).unwrap_or_else(|| command[0].clone());
    let stem = std::path::Path::new(&word)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        "engine".into()
    } else {
        safe
    }
}

impl fmt::Display for EngineConfig {
    /// The canonical `engine:` spec; it parses back to an equal config
    /// (without the stderr folder and working folder, which are where a
    /// run puts things, not what the engine is).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut options = vec![format!("cmd={}", shell_words::join(&self.command))];
        if self.name != default_name(&self.command) {
            options.push(format!("name={}", self.name));
        }
        // A config's limits never hold a clock: the run sends its own.
        let GoLimits {
            movetime,
            nodes,
            depth,
            clock: _,
        } = self.go;
        if let Some(t) = movetime {
            options.push(format!("movetime={}", format_duration(t)));
        }
        if let Some(n) = nodes {
            options.push(format!("nodes={n}"));
        }
        if let Some(d) = depth {
            options.push(format!("depth={d}"));
        }
        if !self.options.is_empty() {
            let list: Vec<String> = self
                .options
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            options.push(format!("options={}", list.join(";")));
        }
        if self.handshake_timeout != DEFAULT_HANDSHAKE_TIMEOUT {
            options.push(format!(
                "handshake={}",
                format_duration(self.handshake_timeout)
            ));
        }
        write_spec(f, ENGINE_SPEC_NAME, &options)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn parse(text: &str) -> Result<EngineConfig, SpecError> {
        EngineConfig::from_spec(&Spec::parse(text).unwrap())
    }

    #[test]
    fn engine_specs_parse_and_print_back() {
        let c =
            parse("engine:cmd=python3 'my bot.py' --fast,movetime=100ms,options=Hash=64;Threads=1")
                .unwrap();
        assert_eq!(c.command, ["python3", "my bot.py", "--fast"]);
        assert_eq!(c.name, "my_bot");
        assert_eq!(c.go.movetime, Some(Duration::from_millis(100)));
        assert_eq!(
            c.options,
            [
                ("Hash".to_string(), "64".to_string()),
                ("Threads".into(), "1".into())
            ]
        );
        let text = c.to_string();
        assert_eq!(parse(&text).unwrap(), c, "{text}");
        let d = parse("engine:cmd=./bot,name=champ,nodes=5000,depth=9,handshake=2s").unwrap();
        assert_eq!(d.name, "champ");
        assert_eq!(d.go.nodes, Some(5000));
        assert_eq!(d.go.depth, Some(9));
        assert_eq!(d.handshake_timeout, Duration::from_secs(2));
        assert_eq!(parse(&d.to_string()).unwrap(), d);
    }

    #[test]
    fn bad_engine_specs_name_the_key() {
        for (text, needle) in [
            ("engine", "cmd="),
            ("engine:movetime=1s", "cmd="),
            ("engine:cmd=bot 'unclosed", "cmd"),
            ("engine:cmd=./bot,name=../x", "name"),
            ("engine:cmd=./bot,movetime=fast", "movetime"),
            ("engine:cmd=./bot,depth=0", "depth"),
            ("engine:cmd=./bot,options=Hash", "options"),
            ("engine:cmd=./bot,hash=1", "unknown option 'hash'"),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn the_default_name_is_the_script_or_program_not_an_argument() {
        for (cmd, name) in [
            ("python3 bot.py 1", "bot"),
            ("python3 -u bots/champ.py --depth 3", "champ"),
            ("/usr/bin/python3.12 bot.py", "bot"),
            ("./target/release/kalah-bot 7", "kalah-bot"),
            ("java -jar engines/champ.jar 100", "champ"),
            ("env SEED=1 node bot.js fast", "bot"),
            ("sh -c 'exec python3 wrapped.py 2'", "wrapped"),
            ("python3", "python3"),
        ] {
            let config = parse(&format!("engine:cmd={cmd}")).unwrap();
            assert_eq!(config.name, name, "{cmd}");
            // The name is left out of the canonical spec, and comes back.
            assert!(!config.to_string().contains("name="), "{config}");
            assert_eq!(parse(&config.to_string()).unwrap(), config);
        }
    }
}
