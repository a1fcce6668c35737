//! `mancala annotate`: every move of a results folder judged against
//! perfect play; the same files at any thread count and after a kill.

use std::fs;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mancala_analysis::annotate::{AgentAccuracy, GameNotes};
use mancala_core::{Game, GameSpec};
use serde_json::Value;
use tempfile::TempDir;

use crate::util::{
    command, mancala, ok, path, read_json, refused, stdout, succeeded, tournament, write_config,
};

const GAME: &str = "kalah:pits=4,seeds=3";

fn folder(tmp: &Path, games_per_pair: u32) -> std::path::PathBuf {
    let cfg = write_config(
        tmp,
        "t.toml",
        &format!(
            r#"
name = "ann"
game = "{GAME}"
games_per_pair = {games_per_pair}
seed = 3
[openings]
plies = 1
[[agents]]
spec = "perfect"
[[agents]]
spec = "random"
[[agents]]
spec = "minimax:depth=2"
"#
        ),
    );
    let out = tmp.join("games");
    succeeded(tournament(&cfg, &out, &["--no-report"]));
    out
}

fn notes(dir: &Path) -> Vec<GameNotes> {
    fs::read_to_string(dir.join("annotations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The records of `dir/games.jsonl`.
fn games(dir: &Path) -> Vec<Value> {
    fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every move's value of a `mancala solve --json` solution or an exact
/// position: `[{"mv": "3", "value": 4}, ...]`.
fn move_values(moves: &Value) -> Vec<(String, i64)> {
    moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mv"].as_str().unwrap().to_string(),
                m["value"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for name in ["games.jsonl", "tournament.json"] {
        fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

#[test]
fn annotations_judge_every_move_as_the_solver_does() {
    let tmp = TempDir::new().unwrap();
    let dir = folder(tmp.path(), 6);
    ok(&["annotate", path(&dir), "--quiet", "--threads", "2"]);
    let all = notes(&dir);
    assert_eq!(all.len(), 18);
    let spec: GameSpec = GAME.parse().unwrap();
    let GameSpec::Kalah(rules) = spec else {
        unreachable!()
    };
    let records = games(&dir);
    let mut checked_with_solve = 0;
    let mut blunders = 0;
    for game in &all {
        let record = records.iter().find(|r| r["id"] == game.id).unwrap();
        let moves: Vec<&str> = record["moves"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .collect();
        for m in &game.moves {
            // On Kalah(4,3) the budget settles every position.
            let (value, played) = (m.value.unwrap(), m.played.unwrap());
            assert_eq!(m.loss, Some(value - played));
            assert!(value >= played);
            let best = m.best.as_ref().unwrap();
            assert_eq!(best.contains(&m.mv), value == played);
            // A blunder exactly where the outcome class changes.
            assert_eq!(m.blunder, played.signum() < value.signum(), "{m:?}");
            blunders += usize::from(m.blunder);
            if game.players[m.seat] == "perfect" {
                assert_eq!(m.loss, Some(0), "perfect's move {m:?} of game {}", game.id);
            }
            // Every fifth move: the position before it, solved on its own.
            if m.ply % 5 == 0 {
                let mut state = rules.start();
                for token in &moves[..m.ply as usize - 1] {
                    rules.try_play(&mut state, token.parse().unwrap()).unwrap();
                }
                let position = rules.setup(&state).to_string();
                let o = ok(&[
                    "solve",
                    "--game",
                    GAME,
                    "--position",
                    &position,
                    "--tt",
                    "16",
                    "--json",
                ]);
                let v: Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(v["solution"]["value"].as_i64(), Some(i64::from(value)));
                let solved = move_values(&v["solution"]["moves"]);
                let top: Vec<&String> = solved
                    .iter()
                    .filter(|(_, v)| *v == i64::from(value))
                    .map(|(m, _)| m)
                    .collect();
                assert_eq!(top, best.iter().collect::<Vec<_>>());
                let mine = solved.iter().find(|(mv, _)| *mv == m.mv).unwrap().1;
                assert_eq!(mine, i64::from(played));
                checked_with_solve += 1;
            }
        }
    }
    assert!(
        checked_with_solve > 10 && blunders > 0,
        "{checked_with_solve} {blunders}"
    );
    let rows: Vec<AgentAccuracy> =
        serde_json::from_value(read_json(&dir.join("accuracy.json"))).unwrap();
    let perfect = rows.iter().find(|r| r.agent == "perfect").unwrap();
    assert_eq!(perfect.overall.best_share, Some(1.0));
    assert_eq!(perfect.overall.blunders, 0);
    let random = rows.iter().find(|r| r.agent == "random").unwrap();
    assert!(random.overall.mean_loss.unwrap() > 0.5);
    let csv = fs::read_to_string(dir.join("accuracy.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("perfect,all,")), "{csv}");
    // The report shows the accuracy: the table and the chart by phase.
    ok(&["report", path(&dir)]);
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("Seeds lost per move against perfect play"),
        "no accuracy chart"
    );
    assert!(
        html.contains("Accuracy against perfect play"),
        "no accuracy table"
    );

    // `replay --from` shows each move's judgement.
    let game = &all[1];
    let o = ok(&[
        "replay",
        "--from",
        path(&dir),
        "--id",
        &game.id.to_string(),
        "--json",
    ]);
    let lines: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shown: Vec<GameNotes> = vec![GameNotes {
        id: game.id,
        players: game.players.clone(),
        moves: lines
            .iter()
            .filter_map(|l| l.get("annotation"))
            .map(|a| serde_json::from_value(a.clone()).unwrap())
            .collect(),
    }];
    assert_eq!(&shown[0], game);
    let text = stdout(&ok(&[
        "replay",
        "--from",
        path(&dir),
        "--id",
        &game.id.to_string(),
    ]));
    assert_eq!(
        text.matches("perfect play: position").count(),
        game.moves.len(),
        "{text}"
    );

    // The same files at one thread, and an unknown folder refused.
    let one = tmp.path().join("one");
    copy(&dir, &one);
    ok(&["annotate", path(&one), "--quiet", "--threads", "1"]);
    for name in ["annotations.jsonl", "accuracy.json", "accuracy.csv"] {
        assert_eq!(
            fs::read(one.join(name)).unwrap(),
            fs::read(dir.join(name)).unwrap(),
            "{name}"
        );
    }
    let e = refused(&mancala(&[
        "annotate",
        path(&tmp.path().join("nothing")),
        "--quiet",
    ]));
    assert!(e.contains("games.jsonl"), "{e}");
    let e = refused(&mancala(&[
        "annotate",
        path(&one),
        "--quiet",
        "--nodes",
        "5",
    ]));
    assert!(e.contains("same settings"), "{e}");
}

#[test]
fn annotate_resumes_after_kill_9_and_a_torn_line_with_identical_files() {
    let tmp = TempDir::new().unwrap();
    let dir = folder(tmp.path(), 24);
    let whole = tmp.path().join("whole");
    copy(&dir, &whole);
    ok(&["annotate", path(&whole), "--quiet", "--threads", "1"]);
    let expected = fs::read(whole.join("annotations.jsonl")).unwrap();
    let games = notes(&whole).len();
    assert_eq!(games, 72);

    // Killed while it writes: the rerun finishes the same file.
    let mut child = command()
        .args(["annotate", path(&dir), "--quiet", "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let lines =
        |d: &Path| fs::read_to_string(d.join("annotations.jsonl")).map_or(0, |t| t.lines().count());
    while lines(&dir) == 0 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = lines(&dir);
    assert!(at_kill > 0, "annotate wrote nothing in a minute");
    ok(&["annotate", path(&dir), "--quiet", "--threads", "2"]);
    assert_eq!(
        fs::read(dir.join("annotations.jsonl")).unwrap(),
        expected,
        "killed after {at_kill} lines"
    );

    // A torn last line (a kill in the middle of a write) is judged again.
    let text = String::from_utf8(expected.clone()).unwrap();
    let cut = text
        .lines()
        .take(10)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + &text.lines().nth(10).unwrap()[..40];
    fs::write(dir.join("annotations.jsonl"), cut).unwrap();
    ok(&["annotate", path(&dir), "--quiet"]);
    assert_eq!(fs::read(dir.join("annotations.jsonl")).unwrap(), expected);
}

#[test]
fn annotate_agrees_with_analyze_exact_positions_where_they_meet() {
    let tmp = TempDir::new().unwrap();
    let dir = folder(tmp.path(), 10);
    ok(&["annotate", path(&dir), "--quiet"]);
    let set = tmp.path().join("set.json");
    ok(&[
        "analyze",
        "exact-positions",
        "--game",
        GAME,
        "--count",
        "400",
        "--tt",
        "16",
        "--quiet",
        "--out",
        path(&set),
    ]);
    // The set's positions: every move's exact value.
    let mut exact: std::collections::HashMap<String, Vec<(String, i64)>> = Default::default();
    for p in read_json(&set)["positions"].as_array().unwrap() {
        exact.insert(
            p["position"].as_str().unwrap().to_string(),
            move_values(&p["moves"]),
        );
    }
    let GameSpec::Kalah(rules) = GAME.parse().unwrap() else {
        unreachable!()
    };
    let records = games(&dir);
    let mut met = 0;
    for game in notes(&dir) {
        let record = records.iter().find(|r| r["id"] == game.id).unwrap();
        let mut state = rules.start();
        let moves: Vec<&str> = record["moves"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .collect();
        for (k, token) in moves.iter().enumerate() {
            let position = rules.setup(&state).to_string();
            if let (Some(values), Some(note)) = (
                exact.get(&position),
                game.moves.iter().find(|m| m.ply as usize == k + 1),
            ) {
                let best = values.iter().map(|(_, v)| *v).max().unwrap();
                assert_eq!(note.value.map(i64::from), Some(best), "{position}");
                let played = values.iter().find(|(m, _)| m == token).unwrap().1;
                assert_eq!(note.played.map(i64::from), Some(played), "{position}");
                let top: Vec<String> = values
                    .iter()
                    .filter(|(_, v)| *v == best)
                    .map(|(m, _)| m.clone())
                    .collect();
                assert_eq!(note.best.as_ref(), Some(&top), "{position}");
                met += 1;
            }
            rules.try_play(&mut state, token.parse().unwrap()).unwrap();
        }
    }
    assert!(met >= 5, "the two sets share only {met} positions");
}

#[test]
fn a_second_annotate_of_a_busy_folder_is_refused_and_writes_nothing() {
    let tmp = TempDir::new().unwrap();
    let dir = folder(tmp.path(), 6);
    ok(&["annotate", path(&dir), "--quiet", "--threads", "1"]);
    // Half the lines, as a run still at work would have left: a second run
    // let in would append to them while the first does.
    let text = fs::read_to_string(dir.join("annotations.jsonl")).unwrap();
    let half: String = text.lines().take(9).map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("annotations.jsonl"), &half).unwrap();
    let accuracy = fs::read(dir.join("accuracy.json")).unwrap();

    // Hold the folder's lock as a running tournament or annotate does.
    let lock = fs::File::options()
        .read(true)
        .write(true)
        .open(dir.join(".lock"))
        .expect("the tournament leaves its lock file");
    lock.try_lock().expect("nobody else holds it");
    let started = Instant::now();
    let e = refused(&mancala(&["annotate", path(&dir), "--quiet"]));
    assert!(started.elapsed() < Duration::from_secs(10), "not at once");
    assert!(e.contains("in use by another run"), "{e}");
    assert!(e.contains(path(&dir)), "the message names no folder: {e}");
    assert_eq!(
        fs::read_to_string(dir.join("annotations.jsonl")).unwrap(),
        half
    );
    assert_eq!(fs::read(dir.join("accuracy.json")).unwrap(), accuracy);

    // Once it is free, the run resumes to the whole file.
    drop(lock);
    ok(&["annotate", path(&dir), "--quiet", "--threads", "1"]);
    assert_eq!(
        fs::read_to_string(dir.join("annotations.jsonl")).unwrap(),
        text
    );
}

/// Writes `dir/annotations.jsonl` as the first `keep` lines of `whole`,
/// line `edit` changed by `change` (a resumed run keeps them all).
fn edit_kept_line(dir: &Path, whole: &str, keep: usize, edit: usize, change: impl Fn(&mut Value)) {
    let mut lines: Vec<Value> = whole
        .lines()
        .take(keep)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    change(&mut lines[edit]);
    let kept: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("annotations.jsonl"), kept).unwrap();
}

#[test]
fn a_resumed_annotate_refuses_kept_lines_a_clean_run_would_not_write() {
    let tmp = TempDir::new().unwrap();
    let dir = folder(tmp.path(), 6);
    ok(&["annotate", path(&dir), "--quiet", "--threads", "1"]);
    let whole = fs::read_to_string(dir.join("annotations.jsonl")).unwrap();
    let accuracy = fs::read(dir.join("accuracy.json")).unwrap();
    let refuse = |what: &str| {
        let e = refused(&mancala(&["annotate", path(&dir), "--quiet"]));
        assert!(e.contains("annotations.jsonl"), "{what}: {e}");
        assert!(e.contains("line 3"), "{what}: the line is not named: {e}");
        assert_eq!(
            fs::read(dir.join("accuracy.json")).unwrap(),
            accuracy,
            "{what}: the accuracy was rewritten"
        );
        e
    };

    // A loss of 99 seeds on a board of 24 (the edit the review made).
    edit_kept_line(&dir, &whole, 5, 2, |l| l["moves"][0]["loss"] = 99.into());
    let e = refuse("a loss of 99");
    assert!(e.contains("99"), "{e}");
    // A value beyond the board's seeds, loss and played kept in step.
    edit_kept_line(&dir, &whole, 5, 2, |l| {
        let m = &mut l["moves"][0];
        let value = m["value"].as_i64().unwrap();
        m["value"] = (value + 40).into();
        m["loss"] = (m["loss"].as_i64().unwrap() + 40).into();
        m["blunder"] = (m["played"].as_i64().unwrap().signum() < (value + 40).signum()).into();
    });
    refuse("a value of more than 24");
    // A ply the game does not have.
    edit_kept_line(&dir, &whole, 5, 2, |l| l["moves"][0]["ply"] = 400.into());
    refuse("ply 400");

    // The moves of another game: this game's moves are not those.
    let lines: Vec<Value> = whole
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let other = lines
        .iter()
        .find(|l| l["moves"][0]["move"] != lines[2]["moves"][0]["move"])
        .unwrap()["moves"]
        .clone();
    edit_kept_line(&dir, &whole, 5, 2, |l| l["moves"] = other.clone());
    let e = refuse("another game's moves");
    assert!(e.contains("move"), "{e}");
    // One move changed: not the game's move at that ply.
    edit_kept_line(&dir, &whole, 5, 2, |l| {
        let mv = &mut l["moves"][0]["move"];
        *mv = if *mv == "1" { "2" } else { "1" }.into();
    });
    let e = refuse("another move");
    assert!(e.contains("is not the game's move there"), "{e}");
    // The seat that moved, changed.
    edit_kept_line(&dir, &whole, 5, 2, |l| {
        let seat = l["moves"][0]["seat"].as_u64().unwrap();
        l["moves"][0]["seat"] = (1 - seat).into();
    });
    refuse("the other seat");
    // The game's moves changed under the notes: the record is not the
    // one annotated.
    let games_text = fs::read_to_string(dir.join("games.jsonl")).unwrap();
    edit_kept_line(&dir, &whole, 5, 0, |_| {});
    let mut records = games(&dir);
    records.sort_by_key(|r| r["id"].as_u64().unwrap());
    let id = records[2]["id"].clone();
    let changed: String = games_text
        .lines()
        .map(|l| {
            let mut r: Value = serde_json::from_str(l).unwrap();
            if r["id"] == id {
                r["players"] = serde_json::json!(["random", "random"]);
            }
            format!("{r}\n")
        })
        .collect();
    fs::write(dir.join("games.jsonl"), changed).unwrap();
    refuse("the record's players changed");
    fs::write(dir.join("games.jsonl"), &games_text).unwrap();

    // Untouched (the kept lines rewritten by `Value`, keys reordered),
    // the same notes resume to the whole file's.
    edit_kept_line(&dir, &whole, 5, 0, |_| {});
    ok(&["annotate", path(&dir), "--quiet"]);
    let expected: Vec<GameNotes> = whole
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(notes(&dir) == expected, "the resumed notes differ");
}
