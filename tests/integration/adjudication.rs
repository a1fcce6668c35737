//! Exact adjudication: games ended where the solver knows the result of
//! perfect play, with that result; the same games up to that ply as when
//! they are played out, at any thread count, resumed and checked.

use std::fs;
use std::path::Path;

use mancala_core::{Game, GameSpec, KalahRules, Move};
use serde_json::Value;
use tempfile::TempDir;

use crate::util::{mancala, path, read_json, refused, succeeded, tournament, write_config};

const GAME: &str = "kalah:pits=4,seeds=3";

fn config(adjudication: &str) -> String {
    format!(
        r#"
name = "adj"
game = "{GAME}"
games_per_pair = 8
seed = 5
[openings]
plies = 2
[[agents]]
spec = "minimax:depth=3"
[[agents]]
spec = "greedy"
[[agents]]
spec = "mcts:sims=50"
{adjudication}
"#
    )
}

fn records(dir: &Path) -> Vec<Value> {
    let mut all: Vec<Value> = fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    all.sort_by_key(|r| r["id"].as_u64());
    all
}

fn moves(r: &Value) -> Vec<String> {
    r["moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// The position a record's moves reach.
fn position(rules: &KalahRules, r: &Value) -> String {
    let mut state = rules.start();
    for m in moves(r) {
        let mv: Move = m.parse().unwrap();
        rules.try_play(&mut state, mv).unwrap();
    }
    assert!(!rules.is_over(&state), "an adjudicated game is not over");
    rules.setup(&state).to_string()
}

#[test]
fn adjudicated_games_are_the_played_games_cut_at_a_known_value() {
    let tmp = TempDir::new().unwrap();
    let rules = match GAME.parse::<GameSpec>().unwrap() {
        GameSpec::Kalah(r) => r,
        _ => unreachable!(),
    };
    let on = write_config(
        tmp.path(),
        "on.toml",
        &config("[adjudication]\nexact = true\n"),
    );
    let off = write_config(tmp.path(), "off.toml", &config(""));
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    let played = tmp.path().join("played");
    succeeded(tournament(&on, &one, &["--threads", "1"]));
    succeeded(tournament(&on, &two, &["--threads", "2"]));
    succeeded(tournament(&off, &played, &["--threads", "2"]));
    let (a, b, c) = (records(&one), records(&two), records(&played));
    assert_eq!(a.len(), 24);
    let key = |r: &Value| (r["moves"].clone(), r["scores"].clone(), r["end"].clone());
    assert_eq!(
        a.iter().map(key).collect::<Vec<_>>(),
        b.iter().map(key).collect::<Vec<_>>(),
        "the same games at one and two threads"
    );
    let mut adjudicated = 0;
    let mut changed = 0;
    for (cut, full) in a.iter().zip(&c) {
        let (cut_moves, full_moves) = (moves(cut), moves(full));
        assert!(
            full_moves.starts_with(&cut_moves),
            "game {}: the adjudicated moves are the played game's first moves",
            cut["id"]
        );
        if cut["end"] == "adjudicated" {
            adjudicated += 1;
            assert!(cut_moves.len() < full_moves.len());
            let scores: Vec<u64> = serde_json::from_value(cut["scores"].clone()).unwrap();
            assert_eq!(scores.iter().sum::<u64>(), 24, "every seed is counted");
            if cut["winner"] != full["winner"] {
                // Only a blunder after the adjudicated ply changes the
                // result of a game played out.
                changed += 1;
            }
        } else {
            assert_eq!(
                key(cut),
                key(full),
                "a game not adjudicated is played out alike"
            );
        }
    }
    assert!(adjudicated > 12, "{adjudicated} of 24 adjudicated");
    let summary = read_json(&one.join("summary.json"));
    assert_eq!(summary["forfeits"], 0);
    assert!(
        changed < adjudicated,
        "{changed} of {adjudicated} results changed"
    );

    // From each adjudicated position, perfect play in both seats ends with
    // the adjudicated scores.
    let cut: Vec<&Value> = a.iter().filter(|r| r["end"] == "adjudicated").collect();
    let suite: String = cut.iter().map(|r| position(&rules, r) + "\n").collect();
    let suite_file = tmp.path().join("cut.txt");
    fs::write(&suite_file, &suite).unwrap();
    let perfect = write_config(
        tmp.path(),
        "perfect.toml",
        &format!(
            r#"
name = "perfect-check"
game = "{GAME}"
games_per_pair = {}
[openings]
file = "{}"
[[agents]]
name = "p"
spec = "perfect"
[[agents]]
name = "q"
spec = "perfect:tt=8"
"#,
            2 * cut.len(),
            path(&suite_file)
        ),
    );
    let out = tmp.path().join("perfect");
    succeeded(tournament(&perfect, &out, &["--threads", "2"]));
    for r in records(&out) {
        let opening = r["opening"].as_u64().unwrap() as usize;
        assert_eq!(
            r["scores"], cut[opening]["scores"],
            "perfect play from {}",
            r["start"]
        );
    }

    // A rerun finds every game logged and checks the adjudicated ones.
    succeeded(tournament(&on, &one, &[]));
    let again = records(&one);
    assert_eq!(again.len(), 24);
    assert_eq!(
        read_json(&one.join("summary.json"))["standings"],
        summary["standings"]
    );
    // The played-out folder is another tournament than the adjudicated one.
    let e = refused(&tournament(&on, &played, &[]));
    assert!(
        e.contains("different tournament") && e.contains("adjudication"),
        "{e}"
    );
}

#[test]
fn a_match_adjudicates_and_bad_adjudication_is_refused() {
    let o = succeeded(mancala(&[
        "match",
        "minimax:depth=3",
        "greedy",
        "--game",
        GAME,
        "--games",
        "20",
        "--adjudicate",
        "exact",
        "--exact-nodes",
        "2000",
        "--json",
    ]));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"], 20);
    assert!(v["adjudicated"].as_u64().unwrap() > 10, "{v}");
    let e = refused(&mancala(&[
        "match",
        "random",
        "greedy",
        "--game",
        "oware",
        "--adjudicate",
        "exact",
    ]));
    assert!(e.contains("Oware"), "{e}");
    let e = refused(&mancala(&[
        "match",
        "random",
        "greedy",
        "--game",
        "kalah:leftover=set_aside",
        "--adjudicate",
        "exact",
    ]));
    assert!(e.contains("set_aside"), "{e}");
    let tmp = TempDir::new().unwrap();
    let cfg = write_config(
        tmp.path(),
        "bad.toml",
        &config("[adjudication]\nexact_nodes = 10\n"),
    );
    let e = refused(&tournament(&cfg, &tmp.path().join("x"), &[]));
    assert!(
        e.contains("adjudication.exact_nodes") && e.contains("exact = true"),
        "{e}"
    );
    let cfg = write_config(
        tmp.path(),
        "bad2.toml",
        &config("[adjudication]\nexact = true\nnodes = 10\n"),
    );
    let e = refused(&tournament(&cfg, &tmp.path().join("y"), &[]));
    assert!(e.contains("nodes"), "{e}");
}

#[test]
fn exact_adjudication_says_what_database_it_builds_before_building_it() {
    let db = TempDir::new().unwrap();
    let run = || {
        crate::util::command()
            .env("MANCALA_DB_DIR", db.path())
            .args([
                "match",
                "greedy",
                "random",
                "--game",
                GAME,
                "--games",
                "2",
                "--adjudicate",
                "exact",
            ])
            .output()
            .unwrap()
    };
    let first = succeeded(run());
    let err = crate::util::stderr(&first);
    let said = err
        .find("exact adjudication of kalah:pits=4,seeds=3: building the endgame database (up to")
        .unwrap_or_else(|| panic!("{err}"));
    // Its size, the time it should take, and where it is kept, before the
    // build's own report.
    let note = err[said..].lines().next().unwrap();
    assert!(
        note.contains(" positions, ") && note.contains(" MiB; about ") && note.contains(" thread"),
        "{note}"
    );
    assert!(note.contains(&db.path().display().to_string()), "{note}");
    let built = err.find("exact adjudication: positions").unwrap();
    assert!(said < built, "{err}");
    // The next run loads it, and says so.
    let err = crate::util::stderr(&succeeded(run()));
    assert!(
        err.contains(
            "exact adjudication of kalah:pits=4,seeds=3: loading the endgame database (up to"
        ),
        "{err}"
    );
}
