//! The binary built with the `neural` feature. A test binary of its own
//! (`required-features`), so that CI's neural step rebuilds only the
//! binary and this file with the feature, not every end-to-end test: `cargo
//! test -p mancala --features neural --test neural_build`. The default
//! build's side is the `neural` module of the `integration` tests.

use std::process::Command;

/// `mancala train` exists when the binary is built with libtorch, and its
/// help says what it trains.
#[test]
fn the_neural_build_has_train() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(args)
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let help = run(&["--help"]);
    assert!(
        help.lines()
            .any(|line| line.split_whitespace().next() == Some("train")),
        "{help}"
    );
    assert!(run(&["train", "--help"]).contains("<CONFIG>"));
}

/// The line a successful `mancala train` printed about its warm start.
fn warm_start_line(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    stderr
        .lines()
        .find(|l| l.starts_with("warm start: "))
        .unwrap_or_else(|| panic!("{stderr}"))
        .to_string()
}

/// `warm_start` in a config: the new network is first trained on the exact
/// labels of `mancala analyze labels`, and the run says so; labels of
/// other rules are refused naming the key.
#[test]
fn a_training_run_warm_starts_from_exact_labels() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(args)
            .output()
            .expect("the binary runs")
    };
    let labels = dir.path().join("labels");
    let out = run(&[
        "analyze",
        "labels",
        "--game",
        "kalah:pits=3,seeds=2",
        "--games",
        "20",
        "--agent",
        "greedy",
        "--agent",
        "random",
        "-t",
        "1",
        "-q",
        "--out",
        labels.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let config = |game: &str, name: &str| {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &path,
            format!(
                "name = \"warm\"\ngame = \"{game}\"\ngenerations = 1\ngames_per_generation = 2\n\
                 sims = 4\nworkers = 1\nhidden = 16\nblocks = 1\ntrain_steps = 2\ngate_games = 2\n\
                 eval_games = 0\nbaselines = []\nwarm_start = [{:?}]\nwarm_start_steps = 50\n\
                 output = {:?}\n",
                labels.display().to_string(),
                dir.path().join(name).display().to_string()
            ),
        )
        .unwrap();
        path
    };
    let out = run(&[
        "train",
        config("kalah:pits=3,seeds=2", "same").to_str().unwrap(),
        "-q",
    ]);
    let line = warm_start_line(&out);
    let line = line.as_str();
    assert!(
        line.contains("positions with every move settled") && line.contains("50 steps"),
        "{line}"
    );
    assert!(dir.path().join("same/best.ot").exists());
    let count = |line: &str, before: &str| -> usize {
        let at = line
            .find(before)
            .unwrap_or_else(|| panic!("{before}: {line}"));
        let words: Vec<&str> = line[..at].split_whitespace().collect();
        words
            .last()
            .unwrap()
            .trim_start_matches('(')
            .parse()
            .unwrap()
    };
    let all = count(line, " positions with every move settled");
    assert_eq!(count(line, " left out"), 0, "{line}");

    // `warm_start_exclude`: the positions of the first labelled game are
    // never trained on, and exactly those solved ones are counted out.
    let first = std::fs::read_to_string(labels.join("labels.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let held: Vec<String> = first["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["position"].as_str().unwrap().to_string())
        .collect();
    let held_path = dir.path().join("held-out.txt");
    std::fs::write(&held_path, format!("# held out\n{}\n", held.join("\n"))).unwrap();
    let with_exclude = |name: &str, exclude: &std::path::Path| {
        let path = config("kalah:pits=3,seeds=2", name);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            format!(
                "{text}warm_start_exclude = [{:?}]\n",
                exclude.display().to_string()
            ),
        )
        .unwrap();
        run(&["train", path.to_str().unwrap(), "-q"])
    };
    let out = with_exclude("held", &held_path);
    let line = warm_start_line(&out);
    let line = line.as_str();
    let left_out = count(line, " left out");
    assert!(left_out > 0, "{line}");
    assert_eq!(
        count(line, " positions with every move settled") + left_out,
        all,
        "{line}"
    );
    let out = with_exclude("missing", &dir.path().join("no-such-file.txt"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("key `warm_start_exclude`") && stderr.contains("no-such-file.txt"),
        "{stderr}"
    );
    let out = run(&[
        "train",
        config("kalah:pits=4,seeds=2", "other").to_str().unwrap(),
        "-q",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("key `warm_start`") && stderr.contains("holds labels of"),
        "{stderr}"
    );
}
