//! End-to-end tests of `mancala solve --bench` and of the endgame
//! databases `mancala solve` keeps between runs.

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{command, refused, show, succeeded, text};

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

/// `solve --json` of `game` keeping its database in `db_dir` (`--tt 1`:
/// the table does not matter here), as a command to run.
fn solve_cmd(game: &str, db_dir: &Path, extra: &[&str]) -> std::process::Command {
    let mut cmd = command();
    cmd.args(["solve", "--game", game, "--tt", "1", "--json"])
        .args(extra)
        .env("MANCALA_DB_DIR", db_dir);
    cmd
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The value `solve --json` printed.
fn solved_value(out: &Output) -> Value {
    serde_json::from_slice::<Value>(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", show(out)))
        ["solution"]["value"]
        .clone()
}

/// Kalah(4,3): a 12-seed database of 125,970 positions, built in well under
/// a second, saved as a file of as many bytes.
const GAME: &str = "kalah:pits=4,seeds=3";

/// The name the database of [`GAME`] is saved under.
fn database_name() -> String {
    let dir = tempfile::tempdir().unwrap();
    succeeded(solve_cmd(GAME, dir.path(), &[]).output().unwrap());
    let names = names(dir.path());
    assert_eq!(names.len(), 1, "{names:?}");
    names[0].clone()
}

#[test]
fn processes_building_one_database_at_once_all_solve_and_leave_one_file() {
    // Before, every save went through one temporary name: a process whose
    // file another had just renamed away failed after its whole build.
    // Rounds of three processes at once make such a collision likely.
    for round in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let children: Vec<_> = (0..3)
            .map(|_| {
                solve_cmd(GAME, dir.path(), &[])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let values: Vec<Value> = children
            .into_iter()
            .map(|c| {
                let out = succeeded(c.wait_with_output().unwrap());
                // Not even a warning: the loser uses the winner's file.
                assert!(!text(&out.stderr).contains("warning"), "{}", show(&out));
                solved_value(&out)
            })
            .collect();
        assert!(
            values.iter().all(|v| *v == values[0]),
            "round {round}: {values:?}"
        );
        let names = names(dir.path());
        assert_eq!(
            names.len(),
            1,
            "round {round}: one database, no temporary: {names:?}"
        );
        assert!(names[0].ends_with(".endgame"), "{names:?}");
        // And it is whole: the next run loads it.
        let again = succeeded(solve_cmd(GAME, dir.path(), &[]).output().unwrap());
        assert_eq!(solved_value(&again), values[0]);
    }
}

/// Insists that `out` solved, warning that the database was not saved and
/// naming `--no-db-cache`.
fn solved_with_a_warning(out: Output, expected: &Value) {
    let out = succeeded(out);
    assert_eq!(&solved_value(&out), expected);
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: the endgame database was not saved")
            && err.contains("solving on with it in memory (--no-db-cache"),
        "{err}"
    );
}

#[test]
fn a_database_that_cannot_be_saved_is_warned_about_and_the_solve_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let expected = solved_value(&succeeded(
        solve_cmd(GAME, tmp.path(), &["--no-db-cache"])
            .output()
            .unwrap(),
    ));
    // A cache folder that cannot be created: under a regular file. (A
    // read-only folder does not stop root, who may run the tests.)
    let file = tmp.path().join("a-file");
    fs::write(&file, "not a folder").unwrap();
    solved_with_a_warning(
        solve_cmd(GAME, &file.join("cache"), &[]).output().unwrap(),
        &expected,
    );
    // An unwritable home: the default folder under it cannot be made.
    solved_with_a_warning(
        solve_cmd(GAME, tmp.path(), &[])
            .env_remove("MANCALA_DB_DIR")
            .env_remove("XDG_CACHE_HOME")
            .env("HOME", &file)
            .output()
            .unwrap(),
        &expected,
    );
    // A read-only folder, where that stops this user.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = tmp.path().join("read-only");
        fs::create_dir(&read_only).unwrap();
        fs::set_permissions(&read_only, fs::Permissions::from_mode(0o555)).unwrap();
        if fs::write(read_only.join("probe"), "").is_err() {
            solved_with_a_warning(
                solve_cmd(GAME, &read_only, &[]).output().unwrap(),
                &expected,
            );
            assert!(names(&read_only).is_empty());
        }
        fs::set_permissions(&read_only, fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A full disk: a file size limit (`ulimit -f`, with SIGXFSZ ignored so
    // that a write past it fails as on a full disk rather than killing the
    // process) far below the database's 125,970 bytes. The file begun is
    // removed.
    #[cfg(unix)]
    {
        let full = tmp.path().join("full");
        fs::create_dir(&full).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 8 && exec \"$0\" \"$@\"")
            .arg(crate::util::BIN)
            .args(["solve", "--game", GAME, "--tt", "1", "--json"])
            .env("MANCALA_DB_DIR", &full)
            .output()
            .unwrap();
        solved_with_a_warning(out, &expected);
        assert!(
            names(&full).is_empty(),
            "no partial file left: {:?}",
            names(&full)
        );
    }
}

#[test]
fn a_directory_at_the_database_path_is_refused_by_name() {
    let name = database_name();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&name);
    fs::create_dir(&path).unwrap();
    let err = refused(&solve_cmd(GAME, dir.path(), &[]).output().unwrap());
    assert!(
        err.contains(&*path.to_string_lossy())
            && err.contains("a directory, not an endgame database"),
        "{err}"
    );
    assert!(!err.contains("too short"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_at_the_database_path_is_refused_by_name_without_blocking() {
    let name = database_name();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&name);
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfifo command to make a FIFO with");
        return;
    }
    let mut child = solve_cmd(GAME, dir.path(), &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Reading a FIFO waits for a writer: a solve that opened it would never
    // end. A minute is far more than the refusal takes.
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("solve still waits on the FIFO at {}", path.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let err = refused(&child.wait_with_output().unwrap());
    assert!(
        err.contains(&*path.to_string_lossy()) && err.contains("a FIFO"),
        "{err}"
    );
}
