//! End-to-end tests of input handling: out-of-range numbers, sizes and
//! times are refused with exit code 2 and a message naming the limit, and
//! huge inputs give short messages.

use crate::util::{mancala, stderr, stdout};

/// Runs `args`, expects exit code 2 and a message containing each of `needles`.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let o = mancala(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    for n in needles {
        assert!(e.contains(n), "{args:?}: {n:?} not in {e}");
    }
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    e
}

#[test]
fn bench_refuses_seconds_out_of_range() {
    for s in [
        "1e20",
        "3600.5",
        "0.0000001",
        "0.009",
        "0",
        "-1",
        "nan",
        "inf",
        "-inf",
    ] {
        let arg = format!("--seconds={s}");
        refused(&["bench", &arg], &["--seconds must be from 0.01 to 3600"]);
    }
    let e = refused(&["bench", "--seconds", "1e20"], &["not 1e20"]);
    assert!(!e.contains("Duration"), "{e}");
    refused(&["bench", "--seconds", "-1"], &["not -1"]);
    refused(&["bench", "--seconds", "fast"], &["--seconds"]);
}

#[test]
fn bench_refuses_thread_counts_out_of_range() {
    refused(&["bench", "--threads", "0"], &["--threads", "1 to 1024"]);
    refused(
        &["bench", "--threads", "100000"],
        &["--threads", "1 to 1024"],
    );
}

#[test]
fn the_shortest_bench_measures_something() {
    let o = mancala(&[
        "bench",
        "--seconds",
        "0.01",
        "--game",
        "kalah:pits=3,seeds=2",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("0.01 s per line"), "{out}");
    let lower = out.to_ascii_lowercase();
    assert!(
        !lower.contains("inf") && !lower.contains("nan"),
        "no infinite or undefined rate: {out}"
    );
    // Every rate is a positive number.
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("kalah:pits=3,seeds=2"))
        .collect();
    assert_eq!(rows.len(), 2 + 3, "{out}");
    for row in &rows[..2] {
        let rate = row.split_whitespace().nth(2).unwrap();
        assert!(!rate.starts_with("0.0"), "{row}");
    }
}

#[test]
fn oversized_transposition_tables_are_refused() {
    for tt in ["65536", "40000", "4097"] {
        let spec = format!("minimax:tt={tt}");
        refused(
            &["match", &spec, "random", "-n", "2"],
            &["agent A", &format!("'{tt}'"), "from 0 to 4096"],
        );
    }
}

#[test]
fn agent_times_have_one_range() {
    for (time, why) in [
        ("1e-10s", "at least 1us"),
        ("1ns", "at least 1us"),
        ("0.0001ms", "at least 1us"),
        ("0s", "positive"),
        ("-1s", "positive"),
        ("721h", "at most 720h"),
        ("1e300s", "at most 720h"),
        ("soon", "a number and a unit"),
    ] {
        let spec = format!("mcts:time={time}");
        refused(&["match", "random", &spec, "-n", "2"], &["agent B", why]);
    }
}

#[test]
fn a_smallest_time_plays_and_shows_in_canonical_form() {
    let o = mancala(&[
        "match",
        "mcts:time=0.001ms,reuse=false",
        "random",
        "-g",
        "kalah:pits=3,seeds=2",
        "-n",
        "2",
        "--threads",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("mcts:time=1us,reuse=false"),
        "{}",
        stdout(&o)
    );
}

/// A message about a 100 KB input quotes a line of it, not all of it.
fn assert_short(e: &str) {
    assert!(e.len() < 1000, "{} bytes: {}", e.len(), &e[..1000]);
    assert!(e.contains(" bytes)"), "{e}");
}

#[test]
fn huge_inputs_give_short_messages() {
    let long = "x".repeat(100_000);
    let digits = "9".repeat(100_000);
    let agent = format!("minimax:depth={digits}");
    assert_short(&refused(
        &["match", &agent, "random", "-n", "2"],
        &["agent A"],
    ));
    assert_short(&refused(
        &["match", &long, "random", "-n", "2"],
        &["unknown agent"],
    ));
    let key = format!("mcts:{long}=1");
    assert_short(&refused(
        &["match", "random", &key, "-n", "2"],
        &["agent B"],
    ));
    let game = format!("kalah:pits={digits}");
    assert_short(&refused(&["show", "--game", &game], &["--game"]));
    assert_short(&refused(&["show", "--game", &long], &["unknown game"]));
    let position = format!("{digits}/4/0,0/0");
    assert_short(&refused(
        &["show", "--game", "kalah", "--position", &position],
        &["--position"],
    ));
    assert_short(&refused(
        &["show", "--game", "kalah", "--position", &long],
        &["--position"],
    ));
    assert_short(&refused(
        &["replay", "--game", "kalah", "--moves", &long],
        &["move 1"],
    ));
}
