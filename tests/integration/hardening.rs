//! End-to-end tests of inputs that used to lose data, hang or mislead:
//! output folders that are not a tournament's, two runs in one folder,
//! openings that cannot exist, runaway searches, edited logs and sizes
//! beyond what a machine holds. Each gets a clear error or a bounded,
//! documented behaviour.

use std::fs::{self, File};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{command, refused, succeeded, text, write_config};

/// Two fast agents, four games per pair.
const SMALL: &str = r#"
name = "small"
game = "kalah"
games_per_pair = 4
seed = 3

[openings]
plies = 2

[[agents]]
spec = "random"

[[agents]]
spec = "greedy"
"#;

/// `mancala tournament CONFIG --quiet [--output OUT] EXTRA...`, run in `cwd`.
fn tournament(cwd: &Path, config: &Path, out: Option<&Path>, extra: &[&str]) -> Output {
    let mut cmd = command();
    cmd.current_dir(cwd)
        .arg("tournament")
        .arg(config)
        .arg("--quiet");
    if let Some(out) = out {
        cmd.arg("--output").arg(out);
    }
    cmd.args(extra).output().expect("run mancala")
}

#[test]
fn fresh_deletes_only_what_a_tournament_wrote() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "small.toml", SMALL);

    // A folder of someone's files is never written into, let alone emptied.
    let victim = tmp.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("thesis.txt"), "years of work").unwrap();
    for extra in [&["--fresh"][..], &[]] {
        let stderr = refused(&tournament(tmp.path(), &config, Some(&victim), extra));
        assert!(
            stderr.contains("not a tournament folder") && stderr.contains("thesis.txt"),
            "{stderr}"
        );
    }
    assert_eq!(
        fs::read_to_string(victim.join("thesis.txt")).unwrap(),
        "years of work"
    );
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 1);

    // In a tournament's folder, --fresh deletes its files and keeps the rest.
    let out = tmp.path().join("out");
    succeeded(tournament(tmp.path(), &config, Some(&out), &[]));
    fs::write(out.join("notes.txt"), "mine").unwrap();
    let before = fs::read_to_string(out.join("games.jsonl")).unwrap();
    succeeded(tournament(tmp.path(), &config, Some(&out), &["--fresh"]));
    assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(
        fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        before.lines().count()
    );
}

#[test]
fn names_and_outputs_that_are_not_plain_folders_are_refused() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().join("work");
    fs::create_dir(&cwd).unwrap();
    fs::write(cwd.join("keep.txt"), "keep").unwrap();
    for (name, replacement, key) in [
        ("dotdot", "name = \"..\"", "key `name`"),
        ("dot", "name = \".\"", "key `name`"),
        ("slash", "name = \"a/b\"", "key `name`"),
        ("hidden", "name = \".x\"", "key `name`"),
        (
            "empty-output",
            "name = \"small\"\noutput = \"\"",
            "key `output`",
        ),
    ] {
        let config = write_config(
            &cwd,
            &format!("{name}.toml"),
            &SMALL.replace("name = \"small\"", replacement),
        );
        for extra in [&["--fresh"][..], &[]] {
            let stderr = refused(&tournament(&cwd, &config, None, extra));
            assert!(stderr.contains(key), "{name}: {stderr}");
        }
        assert!(config.exists(), "{name}: the config was deleted");
    }
    assert_eq!(fs::read_to_string(cwd.join("keep.txt")).unwrap(), "keep");
    assert!(!cwd.join("results").exists());
    let config = cwd.join("dot.toml");
    let stderr = refused(&tournament(&cwd, &config, Some(Path::new("")), &[]));
    assert!(stderr.contains("--output"), "{stderr}");
}

#[test]
fn a_second_run_into_a_busy_folder_is_refused() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "small.toml", SMALL);
    let out = tmp.path().join("out");
    succeeded(tournament(tmp.path(), &config, Some(&out), &[]));
    let log = fs::read_to_string(out.join("games.jsonl")).unwrap();

    // Hold the folder's lock as a running tournament does.
    let lock = File::options()
        .read(true)
        .write(true)
        .open(out.join(".lock"))
        .expect("a finished run leaves its lock file");
    lock.try_lock().expect("nobody else holds it");
    for extra in [&["--fresh"][..], &[]] {
        let stderr = refused(&tournament(tmp.path(), &config, Some(&out), extra));
        assert!(stderr.contains("in use by another run"), "{stderr}");
    }
    assert_eq!(fs::read_to_string(out.join("games.jsonl")).unwrap(), log);
    drop(lock);
    succeeded(tournament(tmp.path(), &config, Some(&out), &[]));
}

/// Runs `mancala ARGS` that must be refused quickly; returns stderr.
fn refused_quickly(args: &[&str]) -> String {
    let t0 = Instant::now();
    let output = command().args(args).output().expect("run mancala");
    assert!(
        t0.elapsed() < Duration::from_secs(30),
        "{args:?} took {:?}",
        t0.elapsed()
    );
    refused(&output)
}

#[test]
fn openings_longer_than_the_game_are_an_error_not_a_hang() {
    let e = refused_quickly(&["match", "random", "random", "--opening-plies", "500"]);
    assert!(
        e.contains("--opening-plies") && e.contains("500 moves"),
        "{e}"
    );
    let e = refused_quickly(&[
        "match",
        "random",
        "random",
        "--game",
        "kalah:pits=1,seeds=1",
        "--opening-plies",
        "1",
    ]);
    assert!(e.contains("fewer opening moves"), "{e}");

    let tmp = TempDir::new().unwrap();
    let config = write_config(
        tmp.path(),
        "long.toml",
        &SMALL.replace("plies = 2", "plies = 500"),
    );
    let t0 = Instant::now();
    let e = refused(&tournament(tmp.path(), &config, None, &[]));
    assert!(t0.elapsed() < Duration::from_secs(30));
    assert!(e.contains("key `openings.plies`"), "{e}");
}

#[test]
fn thread_counts_agree_between_flags_and_configs() {
    let e = refused_quickly(&["match", "random", "greedy", "-n", "2", "-t", "0"]);
    assert!(e.contains("from 1 to 1024"), "{e}");
    let e = refused_quickly(&["match", "random", "greedy", "-n", "2", "-t", "100000"]);
    assert!(e.contains("from 1 to 1024"), "{e}");

    let tmp = TempDir::new().unwrap();
    for threads in ["0", "100000"] {
        let config = write_config(
            tmp.path(),
            "t.toml",
            &SMALL.replace("seed = 3", &format!("seed = 3\nthreads = {threads}")),
        );
        let e = refused(&tournament(tmp.path(), &config, None, &[]));
        assert!(
            e.contains("key `threads`") && e.contains("1 to 1024"),
            "{e}"
        );
    }
    // Many threads asked for: capped, and the games are still played.
    let out = tmp.path().join("many");
    let config = write_config(tmp.path(), "small.toml", SMALL);
    let output = tournament(tmp.path(), &config, Some(&out), &["-t", "1000"]);
    let output = succeeded(output);
    assert!(text(&output.stderr).contains("worker threads"));
    assert_eq!(
        fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        4
    );
}

#[test]
fn a_runaway_search_forfeits_on_time_without_blocking_the_run() {
    let tmp = TempDir::new().unwrap();
    let body = SMALL
        .replace("seed = 3", "seed = 3\nmove_timeout = \"200ms\"")
        .replace("spec = \"greedy\"", "spec = \"minimax:depth=200\"")
        .replace("games_per_pair = 4", "games_per_pair = 2");
    let config = write_config(tmp.path(), "runaway.toml", &body);
    let out = tmp.path().join("out");
    let t0 = Instant::now();
    succeeded(tournament(tmp.path(), &config, Some(&out), &["-t", "1"]));
    assert!(
        t0.elapsed() < Duration::from_secs(60),
        "took {:?}",
        t0.elapsed()
    );
    let records: Vec<Value> = fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    for r in &records {
        let loser_seat = if r["players"][0] == "minimax:depth=200" {
            0
        } else {
            1
        };
        assert_eq!(r["end"], "forfeit", "{r}");
        assert_eq!(r["winner"], 1 - loser_seat, "{r}");
        let error = r["error"].as_str().unwrap();
        assert!(
            error.contains(&format!("seat {loser_seat}: timeout")) && error.contains("200 ms"),
            "{error}"
        );
    }
}

/// With a clock, a search too slow for it loses on time (`end = "time"`),
/// the summary counts it apart from forfeits, and a rerun accepts the
/// games as its own; `time=auto` agents keep their clocks.
#[test]
fn a_tournament_with_a_clock_records_losses_on_time() {
    let tmp = TempDir::new().unwrap();
    let body = SMALL
        .replace(
            "seed = 3",
            "seed = 3\ntime_control = \"0.3+0.01\"\ntime_margin = \"20ms\"",
        )
        .replace("spec = \"random\"", "spec = \"minimax:time=auto\"")
        .replace("spec = \"greedy\"", "spec = \"minimax:time=100ms\"")
        .replace("games_per_pair = 4", "games_per_pair = 2");
    let config = write_config(tmp.path(), "clock.toml", &body);
    let out = tmp.path().join("out");
    succeeded(tournament(tmp.path(), &config, Some(&out), &["-t", "1"]));
    let records: Vec<Value> = fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    for r in &records {
        // 100 ms a move on a 300 ms clock that gains 10 ms a move: the
        // fixed budget runs out of clock within a few moves.
        let slow = if r["players"][0] == "minimax:time=100ms" {
            0
        } else {
            1
        };
        assert_eq!(r["end"], "time", "{r}");
        assert_eq!(r["winner"], 1 - slow, "{r}");
        let error = r["error"].as_str().unwrap();
        assert!(
            error.starts_with(&format!("seat {slow}: out of time")),
            "{error}"
        );
    }
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["time_losses"], 2, "{summary}");
    assert_eq!(summary["forfeits"], 0, "{summary}");
    let slow = summary["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "minimax:time=100ms")
        .unwrap();
    assert_eq!(slow["time_losses"], 2, "{slow}");
    // The folder is the tournament's: a rerun finds nothing to play.
    succeeded(tournament(tmp.path(), &config, Some(&out), &["-t", "1"]));
    assert_eq!(
        fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

#[test]
fn ctrl_c_interrupts_a_search_in_progress() {
    let child = command()
        .args(["match", "minimax:depth=200", "random", "-n", "2", "-t", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mancala");
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    let output = child.wait_with_output().expect("wait");
    // The search looks at the flag every few hundred microseconds; the
    // slack is for a loaded test machine.
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "took {:?} to stop",
        sent.elapsed()
    );
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
}

/// Plays SMALL into `out` and returns the log's lines.
fn played(tmp: &Path, out: &Path) -> Vec<String> {
    let config = write_config(tmp, "small.toml", SMALL);
    succeeded(tournament(tmp, &config, Some(out), &["--fresh"]));
    fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A change made to a logged record by hand.
type Edit = fn(&mut Value);

#[test]
fn edited_or_foreign_records_are_refused_on_resume() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let config = tmp.path().join("small.toml");
    let edits: &[(&str, Edit, &str)] = &[
        (
            "winner flipped",
            |r| {
                let w = r["winner"].as_u64().map_or(0, |w| 1 - w);
                r["winner"] = w.into();
            },
            "the winner",
        ),
        (
            "impossible score",
            |r| r["scores"][0] = 200.into(),
            "the scores",
        ),
        (
            "players renamed",
            |r| r["players"][0] = "other".into(),
            "the players",
        ),
        (
            "another game",
            |r| r["moves"] = "1 2 3".into(),
            "do not start with its opening",
        ),
        ("another seed", |r| r["seed"] = 1.into(), "the seed"),
    ];
    for (what, edit, expected) in edits {
        let mut lines = played(tmp.path(), &out);
        let mut record: Value = serde_json::from_str(&lines[1]).unwrap();
        edit(&mut record);
        lines[1] = record.to_string();
        fs::write(out.join("games.jsonl"), lines.join("\n") + "\n").unwrap();
        let stderr = refused(&tournament(tmp.path(), &config, Some(&out), &[]));
        assert!(
            stderr.contains("games.jsonl, line 2") && stderr.contains(expected),
            "{what}: {stderr}"
        );
        assert!(stderr.contains("--fresh"), "{what}: a hint: {stderr}");
    }

    // A log left without its tournament.json is not adopted by a
    // tournament of other agents.
    played(tmp.path(), &out);
    fs::remove_file(out.join("tournament.json")).unwrap();
    let other = write_config(
        tmp.path(),
        "other.toml",
        &SMALL.replace("spec = \"greedy\"", "spec = \"minimax:depth=1\""),
    );
    let stderr = refused(&tournament(tmp.path(), &other, Some(&out), &[]));
    assert!(
        stderr.contains("the agents") || stderr.contains("the players"),
        "{stderr}"
    );
    assert!(!out.join("tournament.json").exists());
    // The right tournament still resumes it.
    succeeded(tournament(tmp.path(), &config, Some(&out), &[]));
}

#[test]
fn sizes_beyond_the_machine_are_refused_with_the_limit() {
    let e = refused_quickly(&["match", "random", "greedy", "--games", "4294967295"]);
    assert!(e.contains("--games") && e.contains("10000000"), "{e}");

    let tmp = TempDir::new().unwrap();
    let long_name = "x".repeat(65536);
    let cases = [
        (
            "games_per_pair = 4",
            "games_per_pair = 1000000000".to_string(),
            "key `games_per_pair`",
        ),
        (
            "plies = 2",
            "plies = 2\ncount = 4294967295".to_string(),
            "key `openings.count`",
        ),
        (
            "spec = \"random\"",
            format!("spec = \"random\"\nname = \"{long_name}\""),
            "key `agents[0].name`",
        ),
        (
            "games_per_pair = 4",
            "games_per_pair = 5".to_string(),
            "must be even",
        ),
        (
            "seed = 3",
            "seed = 3\nchampion = \"random\"".to_string(),
            "only a gauntlet",
        ),
    ];
    for (from, to, expected) in cases {
        let config = write_config(tmp.path(), "c.toml", &SMALL.replace(from, &to));
        let e = refused(&tournament(tmp.path(), &config, None, &[]));
        assert!(e.contains(expected), "{e}");
        assert!(
            e.len() < 1000,
            "the message echoes the input: {} bytes",
            e.len()
        );
    }
}

#[test]
fn match_has_no_position_option() {
    let output = command()
        .args(["match", "random", "greedy", "--position", "4,4/4,4/0,0/0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let help = command().args(["match", "--help"]).output().unwrap();
    assert!(!text(&help.stdout).contains("--position"));
}
