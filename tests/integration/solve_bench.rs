//! End-to-end tests of `mancala solve --bench` and of the endgame
//! databases `mancala solve` keeps between runs.

use serde_json::Value;

use crate::util::command;

/// Runs the binary with `args`, keeping its endgame databases in `db_dir`.
fn with_db(args: &[&str], db_dir: &std::path::Path) -> std::process::Output {
    command()
        .args(args)
        .env("MANCALA_DB_DIR", db_dir)
        .output()
        .expect("run mancala")
}

#[test]
fn bench_solves_each_game_and_reports_what_it_cost() {
    let dir = tempfile::tempdir().unwrap();
    let out = with_db(
        &[
            "solve",
            "--bench",
            "kalah:pits=3,seeds=3",
            "kalah:pits=4,seeds=2,empty_capture=true",
            "--tt",
            "16",
            "--threads",
            "2",
            "--json",
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["game"], "kalah:pits=3,seeds=3");
    // The value `mancala solve` gives (the `solve` module), and every move's.
    assert_eq!(rows[0]["value"], 2);
    let moves: Vec<i64> = rows[0]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m[1].as_i64().unwrap())
        .collect();
    assert_eq!(moves, [2, 2, -4]);
    assert!(rows[0]["value_nodes"].as_u64().unwrap() > 0);
    assert_eq!(rows[0]["published"], Value::Null);
    assert_eq!(rows[1]["threads"], 2);
    // Each game's database was saved for the next run.
    let saved = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(saved, 2, "one database per pit count and rule set");
}

#[test]
fn a_saved_database_is_reused_and_a_damaged_one_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "--game",
            "kalah:pits=3,seeds=4",
            "--tt",
            "8",
            "--json",
        ];
        args.extend_from_slice(extra);
        with_db(&args, dir.path())
    };
    let first = solve(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let value = |out: &std::process::Output| -> Value {
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["solution"]["value"].clone()
    };
    let again = solve(&[]);
    assert_eq!(value(&again), value(&first));

    // Flip one value: the checksum catches it, and the message names the file.
    let mut bytes = std::fs::read(&files[0]).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x40;
    std::fs::write(&files[0], &bytes).unwrap();
    let bad = solve(&[]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("checksum"), "{err}");
    assert!(
        err.contains(&*files[0].file_name().unwrap().to_string_lossy()),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    // Without the cache the damaged file is not read at all.
    let fresh = solve(&["--no-db-cache"]);
    assert!(
        fresh.status.success(),
        "{}",
        String::from_utf8_lossy(&fresh.stderr)
    );
    assert_eq!(value(&fresh), value(&first));
}

#[test]
fn bench_refuses_games_it_cannot_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let out = with_db(
        &["solve", "--bench", "kalah:pits=3,seeds=3", "oware"],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--bench") && err.contains("only Kalah"),
        "{err}"
    );
    let out = with_db(&["solve", "--bench", "kalah:pits=99"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}
