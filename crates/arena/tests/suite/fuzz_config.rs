//! Property tests of the tournament config parser: random bytes (read as
//! lossy UTF-8), edits of a good config and configs built from real keys
//! and values give `Ok` or `Err`, never a panic; an accepted config
//! serialises to TOML that parses back to the same config, and its game
//! and agent specs and `move_timeout` can be read without a panic.

use mancala_agents::{parse_duration, AgentSpec};
use mancala_arena::config::TournamentConfig;
use mancala_core::GameSpec;
use proptest::prelude::*;

const GOOD: &str = r#"name = "t"
game = "kalah"
games_per_pair = 4
seed = 3
move_timeout = "10s"
[openings]
plies = 2
[[agents]]
spec = "random"
[[agents]]
name = "g"
spec = "greedy"
"#;

/// Pieces of TOML and of the values a config holds.
const TOKENS: &[&str] = &[
    "name",
    "game",
    "format",
    "champion",
    "games_per_pair",
    "seed",
    "threads",
    "output",
    "move_timeout",
    "[openings]",
    "[ratings]",
    "[[agents]]",
    "plies",
    "count",
    "anchor",
    "spec",
    " = ",
    "=",
    "\"",
    "\"",
    "'",
    "\n",
    "\n",
    " ",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "#",
    "\\",
    "0",
    "1",
    "2",
    "4",
    "-1",
    "1e3",
    "9223372036854775807",
    "9223372036854775808",
    "true",
    "\"kalah\"",
    "\"oware:pits=4\"",
    "\"random\"",
    "\"minimax:depth=2\"",
    "\"10s\"",
    "\"1e-10s\"",
    "\"round_robin\"",
    "\"gauntlet\"",
    "é",
    "\u{0}",
];

fn lossy_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..300)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// `GOOD` with a few tokens inserted, or characters deleted or replaced.
fn edited_good() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            0..3u8,
            any::<prop::sample::Index>(),
            prop::sample::select(TOKENS),
        ),
        0..4,
    )
    .prop_map(|edits| {
        let mut chars: Vec<char> = GOOD.chars().collect();
        for (kind, at, token) in edits {
            let at = at.index(chars.len() + 1);
            match kind {
                0 => {
                    chars.splice(at..at, token.chars());
                }
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ if at < chars.len() => {
                    chars.splice(at..=at, token.chars());
                }
                _ => {}
            }
        }
        chars.into_iter().collect()
    })
}

/// A TOML basic string holding `s`.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Mostly `good`, sometimes one of `odd`.
fn mostly(good: &'static str, odd: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just(good.to_string()),
        1 => prop::sample::select(odd).prop_map(str::to_string),
    ]
}

/// Mostly `good`, sometimes one of `odd`.
fn mostly_int(good: i64, odd: &'static [i64]) -> impl Strategy<Value = i64> {
    prop_oneof![8 => Just(good), 1 => prop::sample::select(odd)]
}

/// Sometimes left out.
fn maybe<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::weighted(0.3, s)
}

/// A config with every key drawn from real and borderline values: mostly
/// accepted, each key sometimes wrong.
fn structured() -> impl Strategy<Value = String> {
    let name = mostly(
        "t",
        &["quick-1", "a.b", "", " ", ".", "..", ".hidden", "a/b", "é"],
    );
    let game = mostly(
        "kalah",
        &[
            "oware",
            "kalah:pits=4,seeds=3",
            "chess",
            "kalah:pits=99",
            "",
        ],
    );
    let format = maybe(mostly("round_robin", &["gauntlet", "swiss", ""]));
    let champion = prop::option::weighted(0.1, mostly("a0", &["a1", "nobody", ""]));
    let games = mostly_int(4, &[0, 1, 2, 3, 1_000_000_000, -1, i64::MAX]);
    let seed = mostly_int(1, &[0, -1, i64::MAX]);
    let threads = maybe(mostly_int(2, &[0, 1, 1024, 1025, i64::MAX, -1]));
    let output = maybe(mostly("results/x", &["", "/tmp/x", "."]));
    let timeout = maybe(mostly(
        "10s",
        &[
            "1us", "1e-10s", "0s", "-1s", "1ns", "720h", "721h", "soon", "", "infs",
        ],
    ));
    let plies = mostly_int(2, &[0, -1, 1_000_000]);
    let count = maybe(mostly_int(1, &[0, 2, 3, 1_000_000]));
    let anchor = maybe(mostly("a1", &["random", "x", ""]));
    let agent = (
        prop_oneof![8 => Just(None), 1 => maybe(Just("a1".to_string())).prop_map(Some)],
        mostly(
            "random",
            &[
                "greedy",
                "minimax:depth=2",
                "minimax:tt=65536",
                "mcts:sims=10",
                "mcts:time=1e-10s",
                "alphazero",
                "",
                "a\u{7}b",
            ],
        ),
    );
    let agents = prop::collection::vec(agent, 0..5);
    (
        (name, game, format, champion, games, seed),
        (threads, output, timeout, plies, count, anchor),
        agents,
    )
        .prop_map(
            |(
                (name, game, format, champion, games, seed),
                (threads, output, timeout, plies, count, anchor),
                agents,
            )| {
                let mut t = format!(
                    "name = {}\ngame = {}\ngames_per_pair = {games}\nseed = {seed}\n",
                    quoted(&name),
                    quoted(&game)
                );
                if let Some(f) = format {
                    t += &format!("format = {}\n", quoted(&f));
                }
                if let Some(c) = champion {
                    t += &format!("champion = {}\n", quoted(&c));
                }
                if let Some(n) = threads {
                    t += &format!("threads = {n}\n");
                }
                if let Some(o) = output {
                    t += &format!("output = {}\n", quoted(&o));
                }
                if let Some(m) = timeout {
                    t += &format!("move_timeout = {}\n", quoted(&m));
                }
                t += &format!("[openings]\nplies = {plies}\n");
                if let Some(c) = count {
                    t += &format!("count = {c}\n");
                }
                if let Some(a) = anchor {
                    t += &format!("[ratings]\nanchor = {}\n", quoted(&a));
                }
                for (i, (name, spec)) in agents.into_iter().enumerate() {
                    t += "[[agents]]\n";
                    // Named a0, a1, ... unless the draw says otherwise.
                    let name = match name {
                        None => Some(format!("a{i}")),
                        Some(odd) => odd,
                    };
                    if let Some(n) = name {
                        t += &format!("name = {}\n", quoted(&n));
                    }
                    t += &format!("spec = {}\n", quoted(&spec));
                }
                t
            },
        )
}

fn check(text: &str) {
    let Ok(config) = TournamentConfig::parse(text, "fuzz.toml") else {
        return;
    };
    // What the caller does next with an accepted config must not panic either.
    let _ = config.game.parse::<GameSpec>();
    for agent in &config.agents {
        let _ = agent.spec.parse::<AgentSpec>();
    }
    let timeout = config
        .move_timeout
        .as_deref()
        .map(|t| parse_duration("move_timeout", t).expect("the config checked move_timeout"));
    let _ = (
        config.format(),
        config.agent_names(),
        config.output_dir(),
        config.opening_count(),
        timeout,
    );
    // Written back as TOML, it reads as the same config.
    let written = toml::to_string(&config)
        .unwrap_or_else(|e| panic!("{text:?} parses but does not serialise: {e}"));
    let back = TournamentConfig::parse(&written, "fuzz.toml")
        .unwrap_or_else(|e| panic!("{text:?} is written as {written:?}, which fails: {e}"));
    assert_eq!(back, config, "{written}");
}

proptest! {
    #![proptest_config(crate::cases::config())]

    #[test]
    fn config_parser_never_panics_on_bytes(text in lossy_text()) {
        check(&text);
    }

    #[test]
    fn config_parser_never_panics_on_tokens(
        text in prop::collection::vec(prop::sample::select(TOKENS), 0..40)
            .prop_map(|t| t.concat()),
    ) {
        check(&text);
    }

    #[test]
    fn config_parser_never_panics_on_edits_of_a_good_config(text in edited_good()) {
        check(&text);
    }

    #[test]
    fn configs_built_from_real_keys_parse_or_fail_cleanly(text in structured()) {
        check(&text);
    }
}

#[test]
fn the_good_config_is_accepted_and_round_trips() {
    check(GOOD);
    assert!(TournamentConfig::parse(GOOD, "good.toml").is_ok());
}

/// The generators reach the accepted path often enough for the round trip
/// to be tested, and the rejected one too.
#[test]
fn built_configs_are_often_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    for (what, strategy) in [
        ("structured", structured().boxed()),
        ("edited", edited_good().boxed()),
    ] {
        let accepted = (0..1000)
            .filter(|_| {
                let text = strategy.new_tree(&mut runner).unwrap().current();
                TournamentConfig::parse(&text, "fuzz.toml").is_ok()
            })
            .count();
        eprintln!("{what}: {accepted} of 1000 accepted");
        assert!((20..980).contains(&accepted), "{what}: {accepted} of 1000");
    }
}
