//! Every agent of the toolkit from its spec: the classical agents of
//! `mancala-agents`, `perfect` from the solver, external programs
//! (`engine:cmd=...`), and `neural:...`: over a safetensors policy–value
//! network in every build, over a libtorch model when built with the
//! `neural` feature. The command line, the Python package and the web server build
//! their agents here, so that a spec means the same agent in each.
//!
//! ```
//! use mancala_core::{Game, KalahRules};
//! use mancala_registry::AnyAgentSpec;
//!
//! let rules = KalahRules::new(4, 3).unwrap();
//! let spec = AnyAgentSpec::parse("minimax:depth=4").unwrap();
//! spec.check(&rules).unwrap();
//! let mut agent = spec.build(&rules);
//! agent.new_game(1);
//! let mv = agent.choose(&rules, &rules.start()).unwrap();
//! assert!(rules.legal_moves(&rules.start()).contains(mv));
//! ```

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use mancala_agents::{Agent, AgentSpec, Budget, NetPolicySpec, PolicyOptions};
use mancala_arena::config::AgentEntry;
use mancala_core::spec::{truncate_input, Spec};
use mancala_core::SpecError;
use mancala_solver::{Solvable, Solvers};
use thiserror::Error;

/// Why an agent spec was refused, or cannot play a game.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The spec does not parse, names no agent, or has a bad option.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A neural spec over a libtorch model asked of a build without the
    /// `neural` feature.
    #[error(
        "{0}: a libtorch model needs a build with `--features neural` (see \
         scripts/install-libtorch.sh); a policy-value network in safetensors \
         (mancala export-net) plays in every build"
    )]
    NeuralNotBuilt(String),
    /// A neural spec's safetensors network that cannot be read or used.
    #[error("model {path}: {source}")]
    Network {
        /// The file.
        path: String,
        /// What is wrong.
        source: mancala_evalnet::EvalNetError,
    },
    /// A neural spec whose model cannot be loaded or does not fit.
    #[cfg(feature = "neural")]
    #[error(transparent)]
    Neural(#[from] mancala_neural::NeuralError),
    /// The agent cannot play this game (`perfect` on rules the solver
    /// does not take, say).
    #[error("{0}")]
    Unplayable(String),
    /// An engine's program is not there to run.
    #[error("engine program `{program}` not found{}", if *on_path { " on PATH" } else { "" })]
    ProgramNotFound {
        /// The program as the spec names it.
        program: String,
        /// Whether it was looked for on `PATH` (a bare name).
        on_path: bool,
    },
    /// An agent of a tournament's config that cannot be made or cannot
    /// play its game.
    #[error("{origin}: key `agents[{index}].{key}`: {why}")]
    Entry {
        /// Where the config came from (its file, or "the config dict").
        origin: String,
        /// The agent's place in the config's list, from 0.
        index: usize,
        /// The key at fault: `spec`, `command`, or another key of an
        /// engine's entry.
        key: String,
        /// Why.
        why: String,
    },
    /// An engine's program names a directory.
    #[error("engine program `{0}` is a directory, not a program")]
    ProgramIsDirectory(String),
}

/// Any agent this binary can build.
#[derive(Clone, Debug)]
pub enum AnyAgentSpec {
    /// random, greedy, minimax, mcts.
    Classical(AgentSpec),
    /// perfect, perfect:time=T,fallback=SPEC.
    Perfect(mancala_solver::PerfectSpec),
    /// engine:cmd=PROGRAM ARGS,movetime=T: a program speaking the engine protocol.
    Engine(Arc<mancala_engine::EngineConfig>),
    /// neural:model=PATH,sims=N over a safetensors policy–value network.
    Net(mancala_agents::NetPolicySpec),
    /// neural:model=PATH,sims=N over a libtorch model.
    #[cfg(feature = "neural")]
    Neural(mancala_neural::NeuralSpec),
}

impl AnyAgentSpec {
    /// Parses an agent spec (and, for a neural agent, loads its model).
    ///
    /// # Errors
    /// [`RegistryError::Spec`] for a bad spec, [`RegistryError::NeuralNotBuilt`]
    /// for a neural spec without the feature, and a neural model's errors.
    pub fn parse(text: &str) -> Result<AnyAgentSpec, RegistryError> {
        let text = text.trim();
        // Each family is known by the name before its options. `perfect`
        // reads its own text, since its fallback is a spec of its own,
        // commas and all; the others share the generic `name:key=value`
        // split.
        let family = text.split_once(':').map_or(text, |(name, _)| name);
        if family == "perfect" {
            return Ok(AnyAgentSpec::Perfect(mancala_solver::PerfectSpec::parse(
                text,
            )?));
        }
        let spec = Spec::parse(text)?;
        if spec.name == mancala_engine::ENGINE_SPEC_NAME {
            return Ok(AnyAgentSpec::Engine(Arc::new(
                mancala_engine::EngineConfig::from_spec(&spec)?,
            )));
        }
        if let Some(classical) = AgentSpec::from_spec(&spec)? {
            return Ok(AnyAgentSpec::Classical(classical));
        }
        if spec.name == "neural" {
            return neural_spec(PolicyOptions::from_spec(&spec)?);
        }
        let mut accepted = mancala_agents::spec_names().to_vec();
        accepted.extend(["perfect", "engine", "neural"]);
        Err(SpecError::UnknownName {
            kind: "agent",
            name: spec.name,
            accepted: accepted.join(", "),
        }
        .into())
    }

    /// Checks that the agent can play `game` (a model's board size, the
    /// solver's rules, an engine's program).
    ///
    /// # Errors
    /// [`RegistryError::Unplayable`], [`RegistryError::ProgramNotFound`],
    /// [`RegistryError::ProgramIsDirectory`], or a neural model's error.
    pub fn check<G: Solvable>(&self, game: &G) -> Result<(), RegistryError> {
        match self {
            AnyAgentSpec::Classical(c) => c
                .check(game)
                .map_err(|e| RegistryError::Unplayable(e.to_string())),
            AnyAgentSpec::Perfect(p) => {
                if let Some(fallback) = &p.fallback {
                    fallback
                        .check(game)
                        .map_err(|e| RegistryError::Unplayable(format!("fallback: {e}")))?;
                }
                p.check(game)
                    .map_err(|e| RegistryError::Unplayable(e.to_string()))
            }
            AnyAgentSpec::Engine(e) => check_program(&e.command[0], e.workdir.as_deref()),
            AnyAgentSpec::Net(n) => n
                .check(game)
                .map_err(|e| RegistryError::Unplayable(e.to_string())),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => Ok(n.check(game)?),
        }
    }

    /// Whether the agent plans its moves with the game clock (`time=auto`,
    /// itself or as a fallback); without a clock it thinks for
    /// [`mancala_agents::AUTO_WITHOUT_CLOCK`] a move. External engines are
    /// given the clocks whenever they have no limits of their own, but
    /// play without them too, so they do not count.
    pub fn uses_time_auto(&self) -> bool {
        fn classical(spec: &AgentSpec) -> bool {
            match spec {
                AgentSpec::Minimax(o) => o.budget == Budget::Auto,
                AgentSpec::Mcts(o) => o.budget == Budget::Auto,
                _ => false,
            }
        }
        match self {
            AnyAgentSpec::Classical(c) => classical(c),
            AnyAgentSpec::Perfect(p) => {
                p.time == Some(Budget::Auto) || p.fallback.as_ref().is_some_and(classical)
            }
            AnyAgentSpec::Engine(_) => false,
            AnyAgentSpec::Net(n) => n.options.budget == Budget::Auto,
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.options.budget == Budget::Auto,
        }
    }

    /// This spec with an engine's standard error kept in `dir` (a
    /// tournament's output folder); other agents are unchanged.
    pub fn with_engine_logs(&self, dir: &Path) -> AnyAgentSpec {
        match self {
            AnyAgentSpec::Engine(e) => {
                let mut config = (**e).clone();
                config.stderr_dir = Some(dir.to_path_buf());
                AnyAgentSpec::Engine(Arc::new(config))
            }
            other => other.clone(),
        }
    }

    /// Builds a fresh agent for `game`; `perfect` plays from the process's
    /// pool of solvers ([`Solvers::shared`]).
    pub fn build<G: Solvable>(&self, game: &G) -> Box<dyn Agent<G>> {
        self.build_with(game, Solvers::shared())
    }

    /// Builds a fresh agent for `game`; `perfect` plays from `solvers`
    /// (a server's own pool, bounded).
    pub fn build_with<G: Solvable>(&self, game: &G, solvers: &Arc<Solvers>) -> Box<dyn Agent<G>> {
        match self {
            AnyAgentSpec::Classical(c) => c.build::<G>(),
            AnyAgentSpec::Perfect(p) => p.build_with::<G>(Arc::clone(solvers)),
            AnyAgentSpec::Engine(e) => Box::new(mancala_engine::ExternalAgent::new(
                Arc::clone(e),
                game.to_string(),
            )),
            AnyAgentSpec::Net(n) => n.build::<G>(),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.build::<G>(),
        }
    }
}

/// A `neural:` spec: over the plain-Rust network when the model is a
/// safetensors policy–value network (every build), else over libtorch's
/// (the `neural` feature).
fn neural_spec(options: PolicyOptions) -> Result<AnyAgentSpec, RegistryError> {
    let network = |source| RegistryError::Network {
        path: options.model.display().to_string(),
        source,
    };
    if let Some(net) = mancala_evalnet::read_policy_file(&options.model).map_err(network)? {
        return Ok(AnyAgentSpec::Net(NetPolicySpec::new(options, net)));
    }
    #[cfg(feature = "neural")]
    return Ok(AnyAgentSpec::Neural(
        mancala_neural::NeuralSpec::from_options(options)?,
    ));
    #[cfg(not(feature = "neural"))]
    Err(RegistryError::NeuralNotBuilt(
        options.model.display().to_string(),
    ))
}

/// The agents of a tournament's config, made and checked for `game`: a
/// built-in agent from its `spec`, an engine from its `command` entry's
/// keys; a refusal names `origin` and the key, as in
/// ``configs/quick.toml: key `agents[1].spec`: ...``.
///
/// # Errors
/// [`RegistryError::Entry`] for the first agent that cannot be made or
/// cannot play `game`.
pub fn tournament_agents<G: Solvable>(
    game: &G,
    agents: &[AgentEntry],
    origin: &str,
) -> Result<Vec<AnyAgentSpec>, RegistryError> {
    agents
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let refused = |key: &str, e: &dyn fmt::Display| RegistryError::Entry {
                origin: origin.to_string(),
                index,
                key: key.to_string(),
                why: e.to_string(),
            };
            let spec = match &entry.command {
                Some(command) => engine_entry(entry, command)
                    .map(|config| AnyAgentSpec::Engine(Arc::new(config)))
                    .map_err(|(key, e)| refused(&key, &e))?,
                None => AnyAgentSpec::parse(&entry.spec).map_err(|e| refused("spec", &e))?,
            };
            spec.check(game).map_err(|e| refused(entry.key(), &e))?;
            Ok(spec)
        })
        .collect()
}

/// The engine of a config's `command` entry (whose structure the config
/// checked when it was read: a name, a program), or the key at fault (the
/// part after `agents[i].`) and why.
fn engine_entry(
    entry: &AgentEntry,
    command: &[String],
) -> Result<mancala_engine::EngineConfig, (String, String)> {
    // An engine is recorded as its `engine:` spec, which separates its keys
    // with commas and options with semicolons, so those cannot be inside
    // them.
    if let Some(arg) = command.iter().find(|a| a.contains(',')) {
        return Err((
            "command".into(),
            format!("'{}': arguments cannot contain commas", truncate_input(arg)),
        ));
    }
    let name = entry.name.clone().unwrap_or_default();
    let mut config = mancala_engine::EngineConfig::new(name, command.to_vec());
    for (option, value) in entry.options.iter().flatten() {
        let key = || format!("options.{option}");
        let value = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(n) => n.to_string(),
            toml::Value::Float(x) => x.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => return Err((key(), "must be a string, number or boolean".into())),
        };
        if [option.as_str(), value.as_str()]
            .iter()
            .any(|t| t.contains([',', ';']))
            || option.contains('=')
        {
            return Err((
                key(),
                "names and values cannot contain ',' or ';' (nor names '=')".into(),
            ));
        }
        config.options.push((option.clone(), value));
    }
    if let Some(go) = &entry.go {
        config.go =
            mancala_engine::GoLimits::parse(go).map_err(|e| ("go".into(), e.to_string()))?;
        if config.go.clock.is_some() {
            return Err((
                "go".into(),
                "the clocks of `go` come from the tournament's time_control, not from here".into(),
            ));
        }
    }
    if let Some(t) = &entry.handshake_timeout {
        config.handshake_timeout = mancala_agents::parse_duration("handshake_timeout", t)
            .map_err(|e| ("handshake_timeout".into(), e.to_string()))?;
    }
    Ok(config)
}

impl fmt::Display for AnyAgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyAgentSpec::Classical(c) => c.fmt(f),
            AnyAgentSpec::Perfect(p) => p.fmt(f),
            AnyAgentSpec::Engine(e) => e.fmt(f),
            AnyAgentSpec::Net(n) => n.fmt(f),
            #[cfg(feature = "neural")]
            AnyAgentSpec::Neural(n) => n.fmt(f),
        }
    }
}

/// Any spec can be served over the engine protocol (`mancala engine SPEC`).
impl<G: Solvable> mancala_engine::AgentSource<G> for AnyAgentSpec {
    fn build(&self, game: &G) -> Result<Box<dyn Agent<G>>, String> {
        self.check(game).map_err(|e| e.to_string())?;
        Ok(AnyAgentSpec::build(self, game))
    }
}

impl mancala_engine::EverySource for AnyAgentSpec {
    fn name(&self) -> String {
        self.to_string()
    }
}

/// Fails unless `program` names a file that can be run: a path (relative
/// to `workdir` when one is given), or a name found on `PATH`. Saying so
/// before a tournament beats forfeiting every game of the engine.
fn check_program(program: &str, workdir: Option<&Path>) -> Result<(), RegistryError> {
    let path = Path::new(program);
    let found = if path.components().count() > 1 || path.is_absolute() {
        let full = match workdir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        if full.is_dir() {
            return Err(RegistryError::ProgramIsDirectory(program.to_string()));
        }
        full.is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(path).is_file()))
    };
    if found {
        Ok(())
    } else {
        Err(RegistryError::ProgramNotFound {
            program: program.to_string(),
            on_path: path.components().count() <= 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::{Game, KalahRules};

    /// The agents of a config holding greedy and the engine `engine`
    /// (the keys of an `[[agents]]` table, after `name = "py"`), as made for
    /// Kalah, or the refusal.
    fn config_agents(engine: &str) -> Result<Vec<AnyAgentSpec>, RegistryError> {
        let text = format!(
            "name = \"t\"\ngame = \"kalah\"\ngames_per_pair = 2\n[[agents]]\nspec = \"greedy\"\n\
             [[agents]]\nname = \"py\"\n{engine}"
        );
        let config = mancala_arena::config::TournamentConfig::parse(&text, "t.toml").unwrap();
        tournament_agents(&KalahRules::default(), &config.agents, "t.toml")
    }

    #[test]
    fn an_engine_entry_becomes_an_engine_and_its_errors_name_the_key() {
        let good = "command = [\"sh\", \"my bot.sh\"]\n\
                    options = { Hash = 64, Book = \"off\" }\ngo = \"movetime 100\"\n";
        let agents = config_agents(good).unwrap();
        assert_eq!(agents[0].to_string(), "greedy");
        assert_eq!(
            agents[1].to_string(),
            "engine:cmd=sh 'my bot.sh',name=py,movetime=100ms,options=Book=off;Hash=64"
        );
        // What the registry makes parses back as the same engine.
        let again = AnyAgentSpec::parse(&agents[1].to_string()).unwrap();
        assert_eq!(again.to_string(), agents[1].to_string());
        for (from, to, needle) in [
            (
                "go = \"movetime 100\"",
                "go = \"wtime 5\"",
                "key `agents[1].go`",
            ),
            (
                "go = \"movetime 100\"",
                "go = \"wtime 5 btime 5\"",
                "come from the tournament's time_control",
            ),
            (
                "\"my bot.sh\"",
                "\"a,b\"",
                "key `agents[1].command`: 'a,b': arguments cannot contain commas",
            ),
            ("Hash = 64", "Hash = [1]", "key `agents[1].options.Hash`"),
            ("Hash = 64", "\"H;x\" = 64", "cannot contain"),
            (
                "\"sh\"",
                "\"./no-such-bot\"",
                "key `agents[1].command`: engine program",
            ),
        ] {
            let e = config_agents(&good.replace(from, to)).unwrap_err();
            assert!(
                matches!(&e, RegistryError::Entry { origin, index: 1, .. } if origin == "t.toml"),
                "{from} -> {to}: {e:?}"
            );
            let e = e.to_string();
            assert!(
                e.starts_with("t.toml: ") && e.contains(needle),
                "{from} -> {to}: {e}"
            );
        }
    }

    #[test]
    fn every_family_parses_and_prints_its_canonical_spec() {
        for (text, canonical) in [
            ("random", "random"),
            (" greedy ", "greedy"),
            ("minimax:depth=4", "minimax:depth=4"),
            ("mcts:sims=100", "mcts:sims=100"),
            ("perfect", "perfect"),
        ] {
            let spec = AnyAgentSpec::parse(text).unwrap();
            assert_eq!(spec.to_string(), canonical, "{text}");
            assert_eq!(
                AnyAgentSpec::parse(&spec.to_string()).unwrap().to_string(),
                canonical
            );
        }
        assert!(matches!(
            AnyAgentSpec::parse("engine:cmd=python3 bot.py").unwrap(),
            AnyAgentSpec::Engine(_)
        ));
    }

    #[test]
    fn agents_that_plan_with_the_clock_are_known() {
        for (text, auto) in [
            ("minimax:time=auto", true),
            ("mcts:time=auto", true),
            ("perfect:time=auto,fallback=greedy", true),
            ("perfect:time=1s,fallback=minimax:time=auto", true),
            ("minimax:time=1s", false),
            ("perfect", false),
            ("random", false),
            ("engine:cmd=python3 bot.py", false),
        ] {
            let spec = AnyAgentSpec::parse(text).unwrap();
            assert_eq!(spec.uses_time_auto(), auto, "{text}");
        }
    }

    #[test]
    fn perfects_fallback_keeps_its_own_commas() {
        let spec = AnyAgentSpec::parse("perfect:time=1s,fallback=mcts:sims=50,c=1.2").unwrap();
        let AnyAgentSpec::Perfect(perfect) = &spec else {
            panic!("{spec:?}")
        };
        assert!(perfect.to_string().contains("mcts:"), "{perfect}");
        assert!(perfect.to_string().contains("c=1.2"), "{perfect}");
    }

    #[test]
    fn an_unknown_name_lists_every_family() {
        let e = AnyAgentSpec::parse("minmax:depth=2").unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, RegistryError::Spec(_)), "{e:?}");
        for name in ["random", "greedy", "minimax", "mcts", "perfect", "engine"] {
            assert!(text.contains(name), "{text}");
        }
    }

    /// The reference network, a libtorch model.
    #[cfg(not(feature = "neural"))]
    const LIBTORCH_MODEL: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../results/reference/kalah-best.ot"
    );

    #[cfg(not(feature = "neural"))]
    #[test]
    fn a_libtorch_model_without_the_feature_says_how_to_get_it() {
        let e = AnyAgentSpec::parse(&format!("neural:model={LIBTORCH_MODEL}")).unwrap_err();
        assert!(matches!(e, RegistryError::NeuralNotBuilt(_)), "{e:?}");
        assert!(e.to_string().contains("--features neural"));
        assert!(e.to_string().contains("safetensors"));
    }

    #[test]
    fn a_safetensors_policy_network_plays_in_every_build() {
        use mancala_evalnet::{Layer, PolicyLayers, PolicyValueNet};
        let kalah = KalahRules::new(4, 3).unwrap();
        let layer = |inputs: usize, outputs: usize| Layer {
            inputs,
            outputs,
            weight: (0..inputs * outputs)
                .map(|i| ((i % 7) as f32 - 3.0) / 10.0)
                .collect(),
            bias: vec![0.1; outputs],
        };
        let (inputs, actions) = (kalah.observation_len(), kalah.num_actions());
        let net = PolicyValueNet::new(
            &kalah.to_string(),
            PolicyLayers {
                input: layer(inputs, 8),
                blocks: vec![(layer(8, 8), layer(8, 8))],
                policy: layer(8, actions),
                value_hidden: layer(8, 8),
                value: layer(8, 1),
            },
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("net.safetensors");
        net.save(&path).unwrap();
        let text = format!("neural:model={},sims=20", path.display());
        let spec = AnyAgentSpec::parse(&text).unwrap();
        assert!(matches!(spec, AnyAgentSpec::Net(_)), "{spec:?}");
        assert_eq!(spec.to_string(), text);
        spec.check(&kalah).unwrap();
        let mut agent = spec.build(&kalah);
        agent.new_game(1);
        let mv = agent.choose(&kalah, &kalah.start()).unwrap();
        assert!(kalah.legal_moves(&kalah.start()).contains(mv));
        let other = KalahRules::new(6, 4).unwrap();
        let e = spec.check(&other).unwrap_err().to_string();
        assert!(e.contains("kalah:pits=4,seeds=3"), "{e}");
    }

    #[test]
    fn a_value_network_named_as_a_neural_model_is_refused_with_its_use() {
        let value = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../results/reference/kalah-6-4-evalnet.safetensors"
        );
        let e = AnyAgentSpec::parse(&format!("neural:model={value}")).unwrap_err();
        assert!(matches!(e, RegistryError::Network { .. }), "{e:?}");
        assert!(e.to_string().contains("minimax:eval=net:"), "{e}");
        let e = AnyAgentSpec::parse("neural:model=/no/such/model.safetensors").unwrap_err();
        assert!(e.to_string().contains("/no/such/model.safetensors"), "{e}");
    }

    #[test]
    fn check_refuses_what_cannot_play() {
        let missing = AnyAgentSpec::parse("engine:cmd=./no-such-engine-here").unwrap();
        let kalah = KalahRules::new(4, 3).unwrap();
        match missing.check(&kalah) {
            Err(RegistryError::ProgramNotFound { program, on_path }) => {
                assert_eq!(program, "./no-such-engine-here");
                assert!(!on_path);
            }
            other => panic!("{other:?}"),
        }
        let bare = AnyAgentSpec::parse("engine:cmd=no-such-engine-here").unwrap();
        let e = bare.check(&kalah).unwrap_err();
        assert!(e.to_string().ends_with("not found on PATH"), "{e}");
        let dir = std::env::temp_dir();
        let folder = AnyAgentSpec::parse(&format!("engine:cmd={}", dir.display())).unwrap();
        let e = folder.check(&kalah).unwrap_err();
        assert!(matches!(e, RegistryError::ProgramIsDirectory(_)), "{e:?}");
        assert!(
            e.to_string().ends_with("is a directory, not a program"),
            "{e}"
        );
        // `perfect` plays Kalah and single-round Congkak, not multi-round.
        let perfect = AnyAgentSpec::parse("perfect").unwrap();
        perfect.check(&kalah).unwrap();
        let Ok(mancala_core::GameSpec::Congkak(rounds)) =
            "congkak:pits=4,seeds=3,rounds=many".parse()
        else {
            panic!("multi-round congkak")
        };
        assert!(matches!(
            perfect.check(&rounds),
            Err(RegistryError::Unplayable(_))
        ));
    }

    #[test]
    fn built_agents_play_legal_moves() {
        let kalah = KalahRules::new(3, 2).unwrap();
        for text in [
            "random",
            "greedy",
            "minimax:depth=2",
            "mcts:sims=20",
            "perfect",
        ] {
            let spec = AnyAgentSpec::parse(text).unwrap();
            let mut agent = spec.build(&kalah);
            agent.new_game(7);
            let start = kalah.start();
            let mv = agent.choose(&kalah, &start).unwrap();
            assert!(kalah.legal_moves(&start).contains(mv), "{text}");
        }
    }
}
