//! Property tests of the agent spec parser and of times in specs: random
//! bytes (read as lossy UTF-8) and strings built from the real tokens give
//! `Ok` or `Err`, never a panic; an accepted spec or time displays in a
//! canonical form that parses back to the same value; errors stay short.

use std::time::Duration;

use mancala_agents::{parse_duration, AgentSpec, Budget};
use mancala_core::spec::ECHO_CHARS;
use proptest::prelude::*;

fn lossy_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..120)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn token_text(tokens: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(tokens), 0..max).prop_map(|t| t.concat())
}

const SPEC_TOKENS: &[&str] = &[
    "random",
    "greedy",
    "minimax",
    "alphabeta",
    "mcts",
    "uct",
    "neural",
    "MCTS",
    ":",
    ":",
    "=",
    "=",
    ",",
    ",",
    " ",
    "depth",
    "time",
    "eval",
    "tt",
    "sims",
    "c",
    "rollout",
    "reuse",
    "store",
    "material",
    "heuristic",
    "true",
    "false",
    "0",
    "1",
    "2",
    "8",
    "200",
    "201",
    "4096",
    "4097",
    "65536",
    "1000000000",
    "1000000001",
    "-1",
    "1.5",
    "1e3",
    "1e-10",
    "nan",
    "inf",
    "ms",
    "us",
    "ns",
    "s",
    "m",
    "h",
    "µs",
    "é",
    "\u{0}",
];

/// `name:key=value,...` from real names, keys and values, mostly well-formed.
fn structured_agent_spec() -> impl Strategy<Value = String> {
    let name = prop::sample::select(&["minimax", "mcts", "random", "greedy", "uct"][..]);
    let key = prop::sample::select(
        &[
            "depth", "time", "eval", "tt", "sims", "c", "rollout", "reuse", "time",
        ][..],
    );
    let value = prop_oneof![
        prop::sample::select(
            &[
                "1",
                "8",
                "200",
                "0",
                "4096",
                "4097",
                "store",
                "material",
                "random",
                "heuristic",
                "greedy",
                "true",
                "no",
                "0.5",
                "100",
                "100.5",
                "1e-300",
                "-0",
            ][..]
        )
        .prop_map(str::to_string),
        duration_text(),
    ];
    (name, prop::collection::vec((key, value), 0..4)).prop_map(|(name, options)| {
        if options.is_empty() {
            name.to_string()
        } else {
            let opts: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{name}:{}", opts.join(","))
        }
    })
}

/// A number in one of several spellings, then a unit (or junk).
fn duration_text() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        (-12i32..12, 1u32..1000).prop_map(|(e, m)| format!("{m}e{e}")),
        (0u32..1000, 0u32..1_000_000).prop_map(|(a, b)| format!("{a}.{b:06}")),
        prop::sample::select(&["nan", "inf", "-1", "-0", "", "+2", " 3 ", "1_0"][..])
            .prop_map(str::to_string),
    ];
    let unit = prop::sample::select(
        &[
            "ns", "us", "µs", "μs", "ms", "s", "m", "h", "S", "MS", "", "sec", "d", " s",
        ][..],
    );
    (number, unit).prop_map(|(n, u)| format!("{n}{u}"))
}

fn assert_short(message: &str, input: &str) {
    let limit = 400 + 2 * 4 * ECHO_CHARS;
    assert!(
        message.len() <= limit.max(2 * input.len() + 400),
        "message of {} bytes for input of {}: {message}",
        message.len(),
        input.len()
    );
}

fn check_agent_spec(text: &str) {
    match text.parse::<AgentSpec>() {
        Ok(spec) => {
            let shown = spec.to_string();
            let back: AgentSpec = shown
                .parse()
                .unwrap_or_else(|e| panic!("{text:?} shows as {shown:?}, which fails: {e}"));
            assert_eq!(back, spec, "{text:?} -> {shown:?}");
            assert_eq!(back.to_string(), shown, "the canonical form is stable");
        }
        Err(e) => assert_short(&e.to_string(), text),
    }
}

fn check_duration(text: &str) {
    match parse_duration("time", text) {
        Ok(t) => {
            assert!(
                (Duration::from_micros(1)..=Duration::from_secs(720 * 3600)).contains(&t),
                "{text:?} -> {t:?}"
            );
            assert_eq!(t.subsec_nanos() % 1000, 0, "whole microseconds: {text:?}");
            let shown = mancala_agents_format(t);
            assert_eq!(
                parse_duration("time", &shown).as_ref(),
                Ok(&t),
                "{text:?} -> {shown:?}"
            );
        }
        Err(e) => assert_short(&e.to_string(), text),
    }
}

/// The canonical form of a time, as a spec displays it.
fn mancala_agents_format(t: Duration) -> String {
    let shown = AgentSpec::Mcts(mancala_agents::MctsOptions {
        budget: Budget::Time(t),
        ..Default::default()
    })
    .to_string();
    shown
        .strip_prefix("mcts:time=")
        .expect("a time budget comes first")
        .to_string()
}

proptest! {
    #![proptest_config(crate::cases::config())]

    #[test]
    fn agent_spec_parser_never_panics_on_bytes(text in lossy_text()) {
        check_agent_spec(&text);
    }

    #[test]
    fn agent_spec_parser_never_panics_on_tokens(text in token_text(SPEC_TOKENS, 12)) {
        check_agent_spec(&text);
    }

    #[test]
    fn agent_specs_built_from_real_options_round_trip(text in structured_agent_spec()) {
        check_agent_spec(&text);
    }

    #[test]
    fn times_parse_or_fail_cleanly_and_round_trip(
        text in prop_oneof![duration_text(), lossy_text()],
    ) {
        check_duration(&text);
    }

    #[test]
    fn every_whole_microsecond_time_round_trips(
        micros in prop_oneof![1u64..10_000, 1u64..=720 * 3600 * 1_000_000],
    ) {
        let t = Duration::from_micros(micros);
        let shown = mancala_agents_format(t);
        prop_assert_eq!(parse_duration("time", &shown), Ok(t), "{}", shown);
    }
}

#[test]
fn a_long_spec_gives_a_short_error() {
    let long = format!("minimax:depth={}", "9".repeat(100_000));
    let e = long.parse::<AgentSpec>().unwrap_err().to_string();
    assert!(e.len() < 400 && e.contains(" bytes)"), "{e}");
    let long = format!("mcts:{}", "x=1,".repeat(25_000));
    let e = long.parse::<AgentSpec>().unwrap_err().to_string();
    assert!(e.len() < 400, "{e}");
    let e = parse_duration("time", &"5".repeat(100_000)).unwrap_err();
    assert!(e.to_string().len() < 400, "{e}");
}

/// The generators reach the accepted path often enough for the round trips
/// to be tested, and the rejected one too.
#[test]
fn generated_inputs_are_often_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let specs = structured_agent_spec();
    let times = duration_text();
    let (mut spec_ok, mut time_ok) = (0, 0);
    for _ in 0..1000 {
        let text = specs.new_tree(&mut runner).unwrap().current();
        spec_ok += usize::from(text.parse::<AgentSpec>().is_ok());
        let text = times.new_tree(&mut runner).unwrap().current();
        time_ok += usize::from(parse_duration("time", &text).is_ok());
    }
    assert!(
        (100..950).contains(&spec_ok),
        "agent specs: {spec_ok} of 1000"
    );
    assert!((100..950).contains(&time_ok), "times: {time_ok} of 1000");
}
