//! End-to-end tests of `mancala analyze first-move` and `mancala analyze
//! fair`: the built binary, on tiny boards, writing into temporary folders.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{mancala, ok, stderr, stdout};

/// Two board sizes, two seed counts, two capture rules, three agents:
/// 8 boards, 24 cells of 6 games.
const GRID: &[&str] = &[
    "analyze",
    "first-move",
    "--game",
    "kalah",
    "--pits",
    "2..3",
    "--seeds",
    "1..2",
    "--rules",
    "standard,empty_capture",
    "--games",
    "6",
    "--tt",
    "16",
    "--agents",
    "random",
    "greedy",
    "perfect",
];
const GRID_ROWS: usize = 24;

fn grid(out: &Path, threads: &str, extra: &[&str]) -> Output {
    let out = out.to_str().unwrap();
    let mut args = GRID.to_vec();
    args.extend(["--out", out, "--threads", threads]);
    args.extend(extra);
    mancala(&args)
}

type CsvRow = BTreeMap<String, String>;

fn read_rows(path: &Path) -> Vec<CsvRow> {
    let mut reader = csv::Reader::from_path(path).expect("open csv");
    reader.deserialize().map(|r| r.expect("csv row")).collect()
}

/// The rows without the columns that measure time or work done, which
/// differ from run to run.
fn comparable(rows: &[CsvRow]) -> Vec<CsvRow> {
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            for k in ["solve_seconds", "solve_nodes", "seconds"] {
                assert!(r.remove(k).is_some(), "column {k}");
            }
            r
        })
        .collect()
}

fn solve_value(game: &str, position: Option<&str>) -> i64 {
    let mut args = vec!["solve", "--game", game, "--tt", "16", "--json"];
    if let Some(p) = position {
        args.extend(["--position", p]);
    }
    let o = ok(&args);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["solution"]["value"].as_i64().unwrap()
}

#[test]
fn first_move_writes_rows_charts_and_the_solvers_values() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("fm");
    let o = grid(&out, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));

    // The markdown table: a header, a rule, one line per cell.
    let text = stdout(&o);
    assert!(
        text.starts_with("| board | rules | exact value | agent |"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("| ")).count(),
        GRID_ROWS + 1
    );

    let rows = read_rows(&out.join("first_move.csv"));
    assert_eq!(rows.len(), GRID_ROWS);
    // Each cell's distinct games, as the CSV has them: without them a
    // score of one game repeated reads as many.
    assert!(
        text.starts_with("| board | rules | exact value | agent | games | distinct |"),
        "{text}"
    );
    for line in text.lines().skip(2).filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (board, rules, agent, distinct) = (cells[1], cells[2], cells[4], cells[6]);
        let row = rows
            .iter()
            .find(|r| {
                format!("{}x{}", r["pits"], r["seeds"]) == board
                    && r["rules"] == rules
                    && r["agent"] == agent
            })
            .unwrap_or_else(|| panic!("no row for {line}"));
        assert_eq!(distinct, row["distinct_games"], "{line}");
    }
    for r in &rows {
        let n: u64 = r["games"].parse().unwrap();
        let wdl: u64 = ["first_wins", "draws", "first_losses"]
            .iter()
            .map(|k| r[*k].parse::<u64>().unwrap())
            .sum();
        assert_eq!((n, wdl), (6, 6), "{r:?}");
        assert_eq!(r["exact"], "solved", "{r:?}");
    }
    // Exact values as `mancala solve` finds them, on every row of a board.
    for (spec, rules) in [
        ("kalah:pits=3,seeds=2", "standard"),
        ("kalah:pits=2,seeds=2,empty_capture=true", "empty_capture"),
        ("kalah:pits=3,seeds=1", "standard"),
    ] {
        let value = solve_value(spec, None);
        let mine: Vec<&CsvRow> = rows.iter().filter(|r| r["spec"] == spec).collect();
        assert_eq!(mine.len(), 3, "{spec}");
        for r in mine {
            assert_eq!(r["rules"], rules);
            assert_eq!(r["exact_value"], value.to_string(), "{spec}");
            assert!(
                r["best_moves"].split(' ').count() >= 1 && !r["move_values"].is_empty(),
                "{r:?}"
            );
        }
    }
    // Perfect play against itself ends with exactly the solver's margin.
    for r in rows.iter().filter(|r| r["agent"] == "perfect") {
        let margin: f64 = r["mean_margin"].parse().unwrap();
        let exact: f64 = r["exact_value"].parse().unwrap();
        assert_eq!(margin, exact, "{r:?}");
    }

    let json: Value =
        serde_json::from_str(&fs::read_to_string(out.join("first_move.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), GRID_ROWS);
    assert_eq!(json["boards"].as_array().unwrap().len(), 8);
    assert_eq!(json["options"]["games"], 6);
    let first = &json["rows"][0];
    assert_eq!(first["first_wdl"].as_array().unwrap().len(), 3);
    assert!(first["first_score_95"].is_array());

    // One skill chart per board, one heat map per rule set.
    let mut svgs: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    svgs.sort();
    assert_eq!(svgs.len(), 8 + 2, "{svgs:?}");
    assert!(svgs.contains(&"exact_kalah_standard.svg".to_string()));
    assert!(svgs.contains(&"exact_kalah_empty_capture.svg".to_string()));
    assert!(svgs.contains(&"skill_kalah_p3_s2_standard.svg".to_string()));
    for name in &svgs {
        let body = fs::read_to_string(out.join(name)).unwrap();
        assert!(
            body.starts_with("<svg") && body.ends_with("</svg>\n"),
            "{name}"
        );
        assert!(body.contains("<title") && body.contains("<desc"), "{name}");
        assert!(body.contains("prefers-color-scheme: dark"), "{name}");
    }
    let heat = fs::read_to_string(out.join("exact_kalah_standard.svg")).unwrap();
    assert!(heat.contains("pits per side") && heat.contains("seeds per pit"));
    let v = solve_value("kalah:pits=3,seeds=2", None);
    assert!(heat.contains(&format!(">{v:+}</text>")), "{heat}");
}

#[test]
fn results_do_not_depend_on_threads_and_a_rerun_resumes() {
    let dir = TempDir::new().unwrap();
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    let o = grid(&one, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = grid(&two, "2", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = comparable(&read_rows(&one.join("first_move.csv")));
    assert_eq!(reference.len(), GRID_ROWS);
    assert_eq!(
        comparable(&read_rows(&two.join("first_move.csv"))),
        reference
    );
    let svg = |d: &Path| fs::read_to_string(d.join("skill_kalah_p3_s2_standard.svg")).unwrap();
    assert_eq!(svg(&one), svg(&two));

    // Lose the last rows, as a stopped run would: the rerun plays only those.
    let csv_path = two.join("first_move.csv");
    let text = fs::read_to_string(&csv_path).unwrap();
    let kept: Vec<&str> = text.lines().take(1 + 10).collect();
    fs::write(&csv_path, kept.join("\n") + "\n").unwrap();
    let o = grid(&two, "2", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("10 finished cells kept"),
        "{}",
        stderr(&o)
    );
    assert_eq!(comparable(&read_rows(&csv_path)), reference);

    // A finished grid: nothing more to play, nothing written twice.
    let o = grid(&two, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("24 finished cells kept"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read_rows(&csv_path).len(), GRID_ROWS);

    // Other options in the same folder: refused, nothing touched.
    let before = fs::read_to_string(&csv_path).unwrap();
    let o = grid(&two, "1", &["--seed", "9"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("other options") && stderr(&o).contains("seed: 1 there, 9 now"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(&csv_path).unwrap(), before);
}

#[test]
fn oware_rows_have_the_oware_solvers_values_and_no_perfect() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("oware");
    let o = ok(&[
        "analyze",
        "first-move",
        "--game",
        "oware",
        "--pits",
        "3",
        "--seeds",
        "1..2",
        "--agents",
        "random",
        "perfect",
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("Oware solver, which takes small boards only"),
        "{text}"
    );
    assert!(text.contains("perfect on oware"), "{text}");
    let rows = read_rows(&out.join("first_move.csv"));
    assert_eq!(rows.len(), 2);
    // Oware(3,1) is a draw and Oware(3,2) a win by 8 (docs/oware-solver.md).
    for (r, value) in rows.iter().zip(["0", "8"]) {
        assert_eq!(r["agent"], "random");
        assert_eq!(r["exact"], "solved");
        assert_eq!(r["exact_value"], value, "{r:?}");
    }
}

#[test]
fn congkak_rows_have_the_congkak_solvers_values_and_perfect_play() {
    // Single-round boards are solved and `perfect` plays them; a
    // multi-round rule set in the same grid has no solver, and no perfect.
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("congkak");
    let o = ok(&[
        "analyze",
        "first-move",
        "--game",
        "congkak",
        "--pits",
        "2..3",
        "--seeds",
        "1..2",
        "--rules",
        "standard,rounds=many",
        "--agents",
        "random",
        "perfect",
        "--games",
        "4",
        "--tt",
        "16",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("Congkak exact values come from the Congkak solver"),
        "{text}"
    );
    assert!(text.contains("perfect on congkak:rounds=many"), "{text}");
    let rows = read_rows(&out.join("first_move.csv"));
    // 4 single-round boards with both agents, 4 multi-round ones with random.
    assert_eq!(rows.len(), 4 * 2 + 4);
    for spec in [
        "congkak:pits=2,seeds=1",
        "congkak:pits=2,seeds=2",
        "congkak:pits=3,seeds=1",
        "congkak:pits=3,seeds=2",
    ] {
        let value = solve_value(spec, None);
        let mine: Vec<&CsvRow> = rows.iter().filter(|r| r["spec"] == spec).collect();
        assert_eq!(mine.len(), 2, "{spec}");
        for r in mine {
            assert_eq!(r["exact"], "solved", "{r:?}");
            assert_eq!(r["exact_value"], value.to_string(), "{spec}");
            assert!(!r["move_values"].is_empty() && !r["best_moves"].is_empty());
            if r["agent"] == "perfect" {
                // Perfect play against itself ends with exactly the value.
                let margin: f64 = r["mean_margin"].parse().unwrap();
                assert_eq!(margin, value as f64, "{r:?}");
            }
        }
    }
    for r in rows.iter().filter(|r| r["rules"] == "rounds=many") {
        assert_eq!(r["agent"], "random");
        assert_eq!(r["exact"], "unavailable", "{r:?}");
        assert_eq!(r["exact_value"], "");
    }
    let exact = read_rows(&out.join("first_move_exact.csv"));
    let many = exact
        .iter()
        .find(|e| e["spec"].contains("rounds=many"))
        .unwrap();
    assert!(many["note"].contains("single round"), "{many:?}");
}

#[test]
fn bad_options_are_clear_errors() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("bad");
    let out = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--pits", "0..3"], "--pits"),
        (&["--pits", "5..3"], "empty"),
        (&["--seeds", "x"], "--seeds"),
        (&["--rules", "nonsense"], "unknown rule set"),
        (&["--rules", "standard,standard"], "twice"),
        (&["--agents", "bogus"], "--agents"),
        (&["--games", "0"], "--games"),
        (&["--budget", "soon"], "--budget"),
        (&["--game", "chess"], "unknown game"),
        (&["--game", "kalah:pits=4"], "--pits"),
        (
            &["--game", "oware", "--rules", "empty_capture"],
            "empty_capture",
        ),
        (&["--pits", "15", "--seeds", "10"], "seeds"),
        (&["--db-seeds", "121"], "--db-seeds"),
    ];
    for (extra, says) in cases {
        // Every case fails before any game is played, on the default grid.
        let mut args = vec![
            "analyze",
            "first-move",
            "--games",
            "2",
            "--agents",
            "random",
            "--out",
            out,
        ];
        args.extend(*extra);
        let o = mancala(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        let _ = fs::remove_dir_all(out);
    }
    for args in [
        &["analyze", "fair", "--game", "oware"][..],
        &["analyze", "fair", "--moves", "3"],
        &["analyze", "fair", "--game", "kalah:pits=2", "--budget", "x"],
    ] {
        let o = mancala(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}

#[test]
fn fair_starts_are_worth_zero_by_the_solver() {
    let o = ok(&[
        "analyze",
        "fair",
        "--game",
        "kalah:pits=3,seeds=2",
        "--tt",
        "16",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sets = v["rule_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0]["empty_capture"], false);
    assert_eq!(sets[1]["empty_capture"], true);
    for set in sets {
        let game = set["game"].as_str().unwrap();
        assert_eq!(
            set["start_value"].as_i64().unwrap(),
            solve_value(game, None),
            "{game}"
        );
        let fair = set["fair"].as_array().unwrap();
        let count = set["fair_count"].as_u64().unwrap() as usize;
        assert!(count > 0, "{game}");
        assert_eq!(fair.len(), count);
        assert_eq!(
            set["fair_one_seed"].as_u64().unwrap() + set["fair_two_seeds"].as_u64().unwrap(),
            count as u64
        );
        assert_eq!(set["unsolved"], 0);
        // Every candidate is fair or favours a player.
        let sides = set["favours_first"].as_u64().unwrap()
            + set["favours_second"].as_u64().unwrap()
            + count as u64;
        assert_eq!(sides, set["candidates"].as_u64().unwrap());
        assert!(set.get("values").is_none(), "values only with --values");
        // A few of them, checked one by one with `mancala solve --position`.
        for f in [&fair[0], &fair[count / 2], &fair[count - 1]] {
            let position = f["position"].as_str().unwrap();
            assert_eq!(solve_value(game, Some(position)), 0, "{game} {position}");
        }
    }
    // With --values, every candidate's exact value, and the same verdicts.
    let o = ok(&[
        "analyze",
        "fair",
        "--game",
        "kalah:pits=3,seeds=2",
        "--tt",
        "16",
        "--values",
        "--json",
    ]);
    let exact: Value = serde_json::from_slice(&o.stdout).unwrap();
    for (set, with_values) in sets.iter().zip(exact["rule_sets"].as_array().unwrap()) {
        assert_eq!(set["fair"], with_values["fair"]);
        let histogram = with_values["values"].as_array().unwrap();
        let count = |keep: fn(i64) -> bool| -> u64 {
            histogram
                .iter()
                .filter(|p| keep(p[0].as_i64().unwrap()))
                .map(|p| p[1].as_u64().unwrap())
                .sum()
        };
        assert_eq!(count(|v| v > 0), set["favours_first"].as_u64().unwrap());
        assert_eq!(count(|v| v < 0), set["favours_second"].as_u64().unwrap());
        assert_eq!(count(|v| v == 0), set["fair_count"].as_u64().unwrap());
    }
    // One seed moved: every pit to every other place, 6 x 7 on this board.
    let o = ok(&[
        "analyze",
        "fair",
        "--game",
        "kalah:pits=3,seeds=2",
        "--moves",
        "1",
        "--capture",
        "empty",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let set = &v["rule_sets"][0];
    assert_eq!(set["candidates"], 42);
    assert_eq!(set["fair_two_seeds"], 0);
    assert_eq!(set["fair_one_seed"], set["fair_count"]);
}

/// `analyze exact-positions` solves positions of real games, and `analyze
/// accuracy` measures agents on them: `perfect` always chooses a best
/// move, and every value agrees with `mancala solve` on that position.
#[test]
fn exact_positions_are_solved_and_perfect_play_agrees_with_them() {
    let dir = TempDir::new().unwrap();
    let set = dir.path().join("set.json");
    let set_s = set.to_str().unwrap();
    let game = "kalah:pits=3,seeds=3";
    // Twelve games of greedy and random players, seed 5, on `threads` threads.
    let make = |out: &Path, threads: &str| {
        ok(&[
            "analyze",
            "exact-positions",
            "--game",
            game,
            "--count",
            "12",
            "--agent",
            "greedy",
            "--agent",
            "random",
            "--seed",
            "5",
            "--tt",
            "16",
            "-t",
            threads,
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        serde_json::from_str::<Value>(&fs::read_to_string(out).unwrap()).unwrap()
    };
    let v = make(&set, "2");
    assert_eq!(v["game"], game);
    let positions = v["positions"].as_array().unwrap();
    assert!(positions.len() >= 10, "{} positions", positions.len());
    for p in positions.iter().take(4) {
        let text = p["position"].as_str().unwrap();
        let best = p["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["value"].as_i64().unwrap())
            .max()
            .unwrap();
        assert_eq!(best, solve_value(game, Some(text)), "{text}");
        // Taken after the two random opening moves.
        assert!(p["ply"].as_u64().unwrap() >= 2);
    }
    // The same seed gives the same set, whatever the thread count.
    let w = make(&dir.path().join("again.json"), "1");
    assert_eq!(v["positions"], w["positions"]);

    let o = ok(&[
        "analyze",
        "accuracy",
        "--positions",
        set_s,
        "--agent",
        "perfect",
        "--agent",
        "random",
        "--json",
    ]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let perfect = &r["agents"][0];
    assert_eq!(perfect["agent"], "perfect");
    assert_eq!(perfect["top1"], 1.0);
    assert_eq!(perfect["mean_loss"], 0.0);
    assert_eq!(
        perfect["positions"].as_u64().unwrap() as usize,
        positions.len()
    );
    let random = &r["agents"][1];
    assert!(random["top1"].as_f64().unwrap() < 1.0, "{random}");
    assert!(random["mean_loss"].as_f64().unwrap() > 0.0, "{random}");

    // A set without positions has no accuracy to give: refused, not
    // "0.0% [0.0%, 100.0%]".
    let mut empty = v.clone();
    empty["positions"] = serde_json::json!([]);
    fs::write(&set, empty.to_string()).unwrap();
    for json in [true, false] {
        let mut args = vec![
            "analyze",
            "accuracy",
            "--positions",
            set_s,
            "--agent",
            "greedy",
        ];
        if json {
            args.push("--json");
        }
        let o = mancala(&args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("holds no positions"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    }

    // A damaged set is a clear error.
    fs::write(&set, "{\"game\": \"kalah\"").unwrap();
    let o = mancala(&[
        "analyze",
        "accuracy",
        "--positions",
        set_s,
        "--agent",
        "greedy",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("set.json"), "{}", stderr(&o));
}

/// A child process, killed when dropped, so that a failing test leaves no
/// run behind.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn two_runs_never_write_one_folder() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("out");
    // A run long enough to be caught in the act: many games of a slow agent.
    let long_run = |stderr: std::process::Stdio| {
        let child = crate::util::command()
            .args([
                "analyze",
                "first-move",
                "--game",
                "kalah",
                "--pits",
                "4",
                "--seeds",
                "3",
                "--games",
                "100000",
                "--agents",
                "mcts:sims=2000",
                "--budget",
                "0",
                "--threads",
                "1",
                "--out",
            ])
            .arg(&out)
            .stderr(stderr)
            .spawn()
            .unwrap();
        Running(child)
    };
    let first = long_run(std::process::Stdio::null());
    let pid = first.0.id().to_string();
    // The options file is written once the folder is the run's.
    let options = out.join("first_move_options.json");
    let waited = std::time::Instant::now();
    while !options.exists() {
        assert!(waited.elapsed().as_secs() < 30, "the first run never began");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The second must be refused at once; one that is not would write
    // into the folder for hours: stopped after a few seconds, and failed.
    let mut second = long_run(std::process::Stdio::piped());
    let waited = std::time::Instant::now();
    while second.0.try_wait().unwrap().is_none() && waited.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        second.0.try_wait().unwrap().is_some(),
        "the second run wrote into the folder the first was writing"
    );
    let mut message = String::new();
    std::io::Read::read_to_string(&mut second.0.stderr.take().unwrap(), &mut message).unwrap();
    assert_eq!(second.0.wait().unwrap().code(), Some(2), "{message}");
    assert!(
        message.contains(&format!("in use by another run (process {pid})")),
        "{message}"
    );
    // Once the first is gone the folder is free (the lock is the OS's):
    // the next run gets as far as the options.
    drop(first);
    let o = mancala(&[
        "analyze",
        "first-move",
        "--game",
        "kalah",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--games",
        "100000",
        "--agents",
        "mcts:sims=2000",
        "--budget",
        "0",
        "--seed",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stderr(&o).contains("other options"), "{}", stderr(&o));
}

/// A finished grid's folder, copied to `to`.
fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// The CSV file at `path` as a header and rows of fields.
fn csv_table(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(header).unwrap();
    for r in rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
}

#[test]
fn a_resumed_grid_keeps_only_rows_a_clean_run_writes() {
    let dir = TempDir::new().unwrap();
    let clean = dir.path().join("clean");
    let o = grid(&clean, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = comparable(&read_rows(&clean.join("first_move.csv")));
    let (header, rows) = csv_table(&clean.join("first_move.csv"));
    let (exact_header, exacts) = csv_table(&clean.join("first_move_exact.csv"));
    let col = |h: &[String], name: &str| h.iter().position(|c| c == name).unwrap();

    // Each edit of the rows a run keeps, and what the refusal must say.
    type Edit = Box<dyn Fn(&mut Vec<Vec<String>>, &mut Vec<Vec<String>>)>;
    let score = col(&header, "first_score");
    let margin = col(&header, "mean_margin");
    let agent = col(&header, "agent");
    let value = col(&exact_header, "value");
    let exact_copy = col(&header, "exact_value");
    let seed = col(&header, "seed");
    let games = col(&header, "first_wins");
    let distinct = col(&header, "distinct_games");
    let score_lo = col(&header, "score_lo");
    // A row of one game repeated (perfect on a board with one best line),
    // to be given an interval it must not have.
    let repeated = rows
        .iter()
        .position(|r| r[distinct] == "1")
        .expect("a cell of one game repeated");
    assert_eq!(rows[repeated][score_lo], "", "{:?}", rows[repeated]);
    let varied = rows
        .iter()
        .position(|r| r[distinct] != "1")
        .expect("a cell of games that differ");
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a score edited",
            Box::new(move |r, _| r[3][score] = "0.99".into()),
            "does not follow from",
        ),
        (
            "a row twice",
            Box::new(|r, _| {
                let again = r[5].clone();
                r.insert(6, again);
            }),
            "is there twice",
        ),
        (
            "a NaN margin",
            Box::new(move |r, _| r[2][margin] = "NaN".into()),
            "mean margin",
        ),
        (
            "rows out of order",
            Box::new(|r, _| r.swap(1, 2)),
            "comes after a cell that follows it",
        ),
        (
            "an agent not in the grid",
            Box::new(move |r, _| r[0][agent] = "minimax:depth=3".into()),
            "is not a cell of this grid",
        ),
        (
            "counts that do not add up",
            Box::new(move |r, _| r[4][games] = "99".into()),
            "does not add up",
        ),
        (
            "a seed edited",
            Box::new(move |r, _| r[7][seed] = "12345".into()),
            "is not the cell's",
        ),
        (
            "a row's copy of the exact value edited",
            Box::new(move |r, _| r[2][exact_copy] = "5".into()),
            "its exact columns",
        ),
        (
            "an exact value edited",
            Box::new(move |_, e| e[1][value] = "7".into()),
            "is not the best of the move values",
        ),
        (
            "a row without the count of distinct games",
            Box::new(move |r, _| r[3][distinct] = "0".into()),
            "written by an earlier version",
        ),
        (
            "more distinct games than games",
            Box::new(move |r, _| r[3][distinct] = "7".into()),
            "distinct games among 6 games",
        ),
        (
            "one game repeated, with an interval",
            Box::new(move |r, _| r[varied][distinct] = "1".into()),
            "does not follow from",
        ),
        (
            "games that differ, without an interval",
            Box::new(move |r, _| r[repeated][distinct] = "2".into()),
            "does not follow from",
        ),
    ];
    for (i, (what, edit, says)) in cases.iter().enumerate() {
        let run = dir.path().join(format!("case{i}"));
        copy_folder(&clean, &run);
        let (mut r, mut e) = (rows.clone(), exacts.clone());
        edit(&mut r, &mut e);
        write_csv(&run.join("first_move.csv"), &header, &r);
        write_csv(&run.join("first_move_exact.csv"), &exact_header, &e);
        fs::remove_file(run.join("first_move.json")).unwrap();
        let before = fs::read_to_string(run.join("first_move.csv")).unwrap();
        let o = grid(&run, "1", &[]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{what}: {}", stderr(&o));
        // Refused before anything is written.
        assert_eq!(
            fs::read_to_string(run.join("first_move.csv")).unwrap(),
            before,
            "{what}"
        );
        assert!(!run.join("first_move.json").exists(), "{what}");
    }

    // A last row cut short by a crash or a full disk is dropped and played
    // again: the files end as a clean run's.
    let torn = dir.path().join("torn");
    copy_folder(&clean, &torn);
    let csv_path = torn.join("first_move.csv");
    let text = fs::read_to_string(&csv_path).unwrap();
    let kept: Vec<&str> = text.lines().take(1 + 20).collect();
    let cut = &text.lines().nth(21).unwrap()[..30];
    fs::write(&csv_path, kept.join("\n") + "\n" + cut).unwrap();
    let o = grid(&torn, "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("20 finished cells kept"),
        "{}",
        stderr(&o)
    );
    assert_eq!(comparable(&read_rows(&csv_path)), reference);

    // A saved value that agrees with itself but not with the solver is
    // caught when `perfect` solves its board again, before the board's
    // cells are played: every row of the last board gone, its exact row
    // made consistently wrong.
    let wrong = dir.path().join("wrong");
    copy_folder(&clean, &wrong);
    let (mut r, mut e) = (rows.clone(), exacts.clone());
    let last = e.last().unwrap()[col(&exact_header, "spec")].clone();
    let spec = col(&header, "spec");
    r.retain(|row| row[spec] != last);
    let last_exact = e.last_mut().unwrap();
    let shift = |text: &str| -> String {
        text.split_whitespace()
            .map(|mv| {
                let (m, v) = mv.split_once(':').unwrap();
                format!("{m}:{:+}", v.parse::<i64>().unwrap() + 2)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let moves = col(&exact_header, "move_values");
    last_exact[moves] = shift(&last_exact[moves]);
    last_exact[value] = (last_exact[value].parse::<i64>().unwrap() + 2).to_string();
    write_csv(&wrong.join("first_move.csv"), &header, &r);
    write_csv(&wrong.join("first_move_exact.csv"), &exact_header, &e);
    let rows_before = r.len();
    let o = grid(&wrong, "1", &[]);
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("is not the solver's"), "{}", stderr(&o));
    assert_eq!(
        csv_table(&wrong.join("first_move.csv")).1.len(),
        rows_before
    );
}

/// An agent that plays one game over and over has made one observation:
/// its row says so and gives no interval, while agents whose games differ
/// (a seeded draw among tied moves, random play) keep theirs.
#[test]
fn one_game_repeated_gives_no_interval() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("fm");
    let o = mancala(&[
        "analyze",
        "first-move",
        "--game",
        "kalah",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--games",
        "20",
        "--budget",
        "0",
        "--agents",
        "random",
        "minimax:depth=4",
        "minimax:depth=4,margin=0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = read_rows(&out.join("first_move.csv"));
    let row = |agent: &str| rows.iter().find(|r| r["agent"] == agent).unwrap();
    let distinct = |agent: &str| row(agent)["distinct_games"].parse::<u64>().unwrap();
    let has_intervals = |agent: &str| {
        let r = row(agent);
        let columns = ["score_lo", "score_hi", "margin_lo", "margin_hi"];
        let given = columns.iter().filter(|c| !r[**c].is_empty()).count();
        assert!(given == 0 || given == 4, "{r:?}");
        given == 4
    };
    assert_eq!(distinct("minimax:depth=4"), 1);
    assert!(!has_intervals("minimax:depth=4"));
    // Its score and margin are still that game's.
    assert!(!row("minimax:depth=4")["first_score"].is_empty());
    assert!(!row("minimax:depth=4")["mean_margin"].is_empty());
    for agent in ["random", "minimax:depth=4,margin=0"] {
        assert!(distinct(agent) > 1, "{:?}", row(agent));
        assert!(has_intervals(agent), "{agent}");
    }
    // The JSON and the report say the same.
    let json: Value =
        serde_json::from_str(&fs::read_to_string(out.join("first_move.json")).unwrap()).unwrap();
    let cell = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["agent"] == "minimax:depth=4")
        .unwrap();
    assert_eq!(cell["distinct_games"], 1);
    assert_eq!(cell["first_score_95"], serde_json::json!([null, null]));
}

#[test]
fn fair_says_its_budget_does_not_cover_the_database_build() {
    let help = stdout(&ok(&["analyze", "fair", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("The endgame database's build is not counted"),
        "{help}"
    );
    let db = TempDir::new().unwrap();
    let run = |json: bool| {
        let mut cmd = crate::util::command();
        cmd.args([
            "analyze",
            "fair",
            "--game",
            "kalah:pits=2,seeds=2",
            "--capture",
            "standard",
            "--tt",
            "1",
            "--budget",
            "1m",
        ])
        .env("MANCALA_DB_DIR", db.path());
        if json {
            cmd.arg("--json");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    let first = run(false);
    let text = stdout(&first);
    assert!(
        text.contains("endgame database ready in") && text.contains("(not counted in --budget)"),
        "{text}"
    );
    // Before it starts, the command says what it builds and about how long
    // that takes, so that a big board's build is no surprise.
    let err = stderr(&first);
    assert!(
        err.contains("kalah:pits=2,seeds=2: building the endgame database (up to")
            && err.contains("; about "),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&run(true).stdout).unwrap();
    let set = &v["rule_sets"][0];
    assert!(set["database_seconds"].as_f64().is_some(), "{set}");
}

/// `analyze labels` labels every position of its games, says what each
/// phase of the game cost, resumes, and refuses what it cannot label.
#[test]
fn labels_are_written_resumed_and_refused_where_they_cannot_be_made() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("labels");
    let args = [
        "analyze",
        "labels",
        "--game",
        "kalah:pits=4,seeds=3",
        "--games",
        "4",
        "--nodes",
        "5000",
        "--db-seeds",
        "6",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let first = ok(&args);
    let err = stderr(&first);
    assert!(
        err.contains("4 games labelled (0 kept from before)"),
        "{err}"
    );
    assert!(
        err.contains("seeds in pits") && err.contains("positions/s"),
        "{err}"
    );
    let lines = fs::read_to_string(out.join("labels.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4);
    let game: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    let position = &game["positions"][0];
    assert!(
        position["position"].as_str().unwrap().contains('/'),
        "{game}"
    );
    assert!(
        position["moves"].as_array().is_some_and(|m| !m.is_empty()),
        "{game}"
    );
    let identity: Value =
        serde_json::from_str(&fs::read_to_string(out.join("labels.json")).unwrap()).unwrap();
    assert_eq!(identity["nodes"], 5000);
    // The same command again has nothing left to do.
    let again = stderr(&ok(&args));
    assert!(
        again.contains("0 games labelled (4 kept from before)"),
        "{again}"
    );
    // Oware has no exact values past small boards (a search labels it);
    // other options in the same folder would mix two sets.
    let o = mancala(&[
        "analyze",
        "labels",
        "--game",
        "oware",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        !o.status.success()
            && stderr(&o).contains("too large for the exact Oware solver")
            && stderr(&o).contains("--search minimax:depth="),
        "{}",
        stderr(&o)
    );
    let mut other = args.to_vec();
    other[7] = "6000";
    let o = mancala(&other);
    assert!(
        !o.status.success() && stderr(&o).contains("other options"),
        "{}",
        stderr(&o)
    );
}
