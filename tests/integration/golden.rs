//! Golden outputs, recorded with the binary as it was before the solver and
//! the analysis and report code moved into libraries (issue 24), so that
//! moving code can never change what a user gets:
//!
//! - `solve --json` of Kalah boards of 3 to 5 pits under standard,
//!   empty-capture and pie rules: identical, one-thread node counts and
//!   database sizes included (timings aside);
//! - `solve --json` of Congkak boards of 3 to 6 holes: the same value, move
//!   values and principal variation, and no more nodes than before;
//! - `mancala report` of every folder under `results/` (against the pages
//!   committed there) and of a small tournament kept in `tests/golden/`, in
//!   HTML and markdown with its charts: byte-identical;
//! - small `analyze first-move` grids of Kalah, Congkak and Oware: every
//!   file identical but for the columns that time the run.
//!
//! `MANCALA_BLESS=1 cargo test --test integration golden` rewrites the files
//! in `tests/golden/` from the binary under test: only for a change of
//! output that is meant, said so in its commit.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{ok, path};

/// The folder of the golden files.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Whether this run rewrites the golden files instead of checking them.
fn blessing() -> bool {
    std::env::var_os("MANCALA_BLESS").is_some_and(|v| v == "1")
}

/// Compares `actual` with the golden file `name`, or writes it when
/// blessing.
fn check_text(name: &str, actual: &str) {
    let file = golden_dir().join(name);
    if blessing() {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, actual).unwrap();
        return;
    }
    let expected = fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e} (MANCALA_BLESS=1 records it)", file.display()));
    compare(name, &expected, actual);
}

/// Fails, showing the first line that differs, unless the texts are equal.
fn compare(name: &str, expected: &str, actual: &str) {
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .map_or(expected.lines().count().min(actual.lines().count()), |i| i);
        panic!(
            "{name} differs from its golden file at line {}:\n  golden: {:?}\n  now:    {:?}",
            line + 1,
            expected.lines().nth(line).unwrap_or("(end)"),
            actual.lines().nth(line).unwrap_or("(end)"),
        );
    }
}

/// Kalah games whose `solve --json` must not change at all.
fn kalah_cases() -> Vec<String> {
    let mut cases = Vec::new();
    for pits in 3..=5 {
        let max_seeds = if pits == 5 { 3 } else { 4 };
        for seeds in 1..=max_seeds {
            for rules in ["", ",empty_capture=true", ",pie=true"] {
                cases.push(format!("kalah:pits={pits},seeds={seeds}{rules}"));
            }
        }
    }
    cases
}

/// Congkak games whose solutions must not change (their node counts may
/// only fall).
fn congkak_cases() -> Vec<String> {
    let mut cases = Vec::new();
    for holes in 3..=6 {
        let max_seeds = if holes == 6 { 4 } else { 5 };
        for seeds in 1..=max_seeds {
            cases.push(format!("congkak:pits={holes},seeds={seeds}"));
        }
    }
    cases
}

/// `solve --json` of `game` on one thread, from a 16 MiB table, with the
/// default database built in memory (`extra` may change it).
fn solve_json(game: &str, threads: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "solve",
        "--game",
        game,
        "--tt",
        "16",
        "--threads",
        threads,
        "--no-db-cache",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = ok(&args);
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("solve --json prints JSON");
    // What the run's timing was is not part of its result.
    let stats = &mut v["solution"]["stats"];
    for key in ["seconds", "endgame_seconds"] {
        assert!(stats.get(key).is_some(), "{game}: stats.{key}");
        stats[key] = Value::Null;
    }
    v
}

fn file_name(game: &str) -> String {
    game.replace([':', ','], "_").replace('=', "-")
}

#[test]
fn kalah_solutions_and_node_counts_are_as_recorded() {
    for game in kalah_cases() {
        let mut v = solve_json(&game, "1", &[]);
        check_text(
            &format!("solve/{}.json", file_name(&game)),
            &format!("{}\n", serde_json::to_string_pretty(&v).unwrap()),
        );
        // Without the database too: the search alone.
        v = solve_json(&game, "1", &["--db-seeds", "0"]);
        check_text(
            &format!("solve/{}_no-db.json", file_name(&game)),
            &format!("{}\n", serde_json::to_string_pretty(&v).unwrap()),
        );
    }
}

/// The parts of a solution that no search may change: the value, every
/// move's value, the principal variation.
fn solution_of(v: &Value) -> Value {
    let s = &v["solution"];
    serde_json::json!({
        "game": v["game"],
        "position": v["position"],
        "mover": s["mover"],
        "value": s["value"],
        "moves": s["moves"],
        "pv": s["pv"],
    })
}

#[test]
fn congkak_solutions_are_as_recorded_and_cost_no_more_nodes() {
    for game in congkak_cases() {
        let v = solve_json(&game, "1", &[]);
        let name = format!("solve/{}.json", file_name(&game));
        let nodes = v["solution"]["stats"]["nodes"].as_u64().unwrap();
        let recorded = serde_json::json!({ "solution": solution_of(&v), "nodes": nodes });
        if blessing() {
            check_text(
                &name,
                &format!("{}\n", serde_json::to_string_pretty(&recorded).unwrap()),
            );
            continue;
        }
        let golden: Value =
            serde_json::from_str(&fs::read_to_string(golden_dir().join(&name)).unwrap()).unwrap();
        assert_eq!(solution_of(&v), golden["solution"], "{game}");
        let before = golden["nodes"].as_u64().unwrap();
        assert!(nodes <= before, "{game}: {nodes} nodes, {before} before");
    }
}

#[test]
fn solutions_on_two_threads_are_those_on_one() {
    // Node counts on two threads depend on scheduling; the solution does not.
    for game in [
        "kalah:pits=4,seeds=4",
        "kalah:pits=4,seeds=3,pie=true",
        "kalah:pits=5,seeds=3,empty_capture=true",
        "congkak:pits=5,seeds=5",
        "congkak:pits=6,seeds=4",
    ] {
        let one = solve_json(game, "1", &[]);
        let two = solve_json(game, "2", &[]);
        assert_eq!(solution_of(&one), solution_of(&two), "{game}");
    }
}

/// Every file `dir` holds, by name, as text.
fn files_of(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_file() && !name.starts_with('.') {
            files.insert(name, fs::read_to_string(entry.path()).unwrap());
        }
    }
    files
}

/// Checks every file of `dir` against the golden folder `name`, and that
/// the golden folder has no file that `dir` lacks.
fn check_folder(name: &str, dir: &Path, normalise: impl Fn(&str, &str) -> String) {
    let files = files_of(dir);
    if !blessing() {
        let golden: Vec<String> = files_of(&golden_dir().join(name)).into_keys().collect();
        let made: Vec<String> = files.keys().cloned().collect();
        assert_eq!(made, golden, "{name}: the files written");
    }
    for (file, text) in &files {
        let golden = format!("{name}/{file}");
        if blessing() {
            check_text(&golden, &normalise(file, text));
        } else {
            // The golden file goes through the same normalisation: a
            // column dropped since it was recorded is dropped from both.
            let expected = fs::read_to_string(golden_dir().join(&golden)).unwrap();
            compare(&golden, &normalise(file, &expected), &normalise(file, text));
        }
    }
}

#[test]
fn reports_of_the_committed_results_are_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let tmp = TempDir::new().unwrap();
    for folder in [
        "first-move",
        "first-move/oware",
        "reference",
        "reference/oware",
    ] {
        let dir = root.join(folder);
        let name = folder.replace('/', "-");
        // The page committed beside the results is the golden HTML.
        let html = tmp.path().join(format!("{name}.html"));
        ok(&["report", path(&dir), "--out", path(&html), "--quiet"]);
        let committed = dir.join("report.html");
        if blessing() {
            fs::copy(&html, &committed).unwrap();
        } else {
            assert!(
                fs::read(&html).unwrap() == fs::read(&committed).unwrap(),
                "{folder}: the report differs from {}",
                committed.display()
            );
        }
        // Markdown and its charts.
        let md_dir = tmp.path().join(&name);
        fs::create_dir(&md_dir).unwrap();
        let md = md_dir.join("report.md");
        ok(&[
            "report",
            path(&dir),
            "--out",
            path(&md),
            "--format",
            "md",
            "--quiet",
        ]);
        check_folder(&format!("report/{name}"), &md_dir, |_, t| t.to_string());
    }
}

#[test]
fn the_report_of_a_tournament_is_unchanged() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("tournament");
    fs::create_dir(&dir).unwrap();
    for (file, text) in files_of(&golden_dir().join("tournament")) {
        fs::write(dir.join(file), text).unwrap();
    }
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    ok(&[
        "report",
        path(&dir),
        "--out",
        path(&out.join("report.html")),
        "--quiet",
    ]);
    ok(&[
        "report",
        path(&dir),
        "--out",
        path(&out.join("report.md")),
        "--format",
        "md",
        "--quiet",
    ]);
    check_folder("report/tournament", &out, |_, t| t.to_string());
}

/// What [`edit_fields`] does to the named columns and fields.
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    /// Keeps them, with a placeholder for their value (`-`, `null`).
    Blank,
    /// Removes them.
    Drop,
}

/// `text` (a CSV file or a JSON document of an analysis; other files as
/// they are) with the columns and fields `names` edited by `edit`.
fn edit_fields(file: &str, text: &str, names: &[&str], edit: Edit) -> String {
    if file.ends_with(".json") {
        fn walk(v: &mut Value, names: &[&str], edit: Edit) {
            match v {
                Value::Object(map) => {
                    if edit == Edit::Drop {
                        map.retain(|k, _| !names.contains(&k.as_str()));
                    }
                    for (k, x) in map.iter_mut() {
                        if names.contains(&k.as_str()) {
                            *x = Value::Null;
                        } else {
                            walk(x, names, edit);
                        }
                    }
                }
                Value::Array(items) => items.iter_mut().for_each(|x| walk(x, names, edit)),
                _ => {}
            }
        }
        let mut v: Value = serde_json::from_str(text).unwrap();
        walk(&mut v, names, edit);
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap())
    } else if file.ends_with(".csv") {
        let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let header = reader.headers().unwrap().clone();
        let named: Vec<bool> = header.iter().map(|h| names.contains(&h)).collect();
        // A row without the dropped fields, the others blanked in a record
        // (never in the header).
        let kept = |row: &csv::StringRecord, blank: bool| -> Vec<String> {
            row.iter()
                .zip(&named)
                .filter(|(_, &n)| !(n && edit == Edit::Drop))
                .map(|(f, &n)| if n && blank { "-" } else { f }.to_string())
                .collect()
        };
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(kept(&header, false)).unwrap();
        for row in reader.records() {
            writer.write_record(kept(&row.unwrap(), true)).unwrap();
        }
        String::from_utf8(writer.into_inner().unwrap()).unwrap()
    } else {
        text.to_string()
    }
}

#[test]
fn first_move_grids_write_the_same_files() {
    let grids: [(&str, &[&str]); 3] = [
        (
            "kalah",
            &[
                "--game",
                "kalah",
                "--pits",
                "3..4",
                "--seeds",
                "1..2",
                "--rules",
                "standard,empty_capture,pie",
                "--agents",
                "random",
                "greedy",
                "minimax:depth=2",
                "mcts:sims=50",
                "perfect",
                "--db-seeds",
                "0",
            ],
        ),
        (
            "congkak",
            &[
                "--game", "congkak", "--pits", "3..4", "--seeds", "1..2", "--agents", "random",
                "greedy", "perfect",
            ],
        ),
        (
            "oware",
            &[
                "--game",
                "oware",
                "--pits",
                "2..3",
                "--seeds",
                "1..2",
                "--agents",
                "random",
                "greedy",
                "minimax:depth=2",
            ],
        ),
    ];
    let tmp = TempDir::new().unwrap();
    for (name, args) in grids {
        let out = tmp.path().join(name);
        let mut all = vec!["analyze", "first-move", "--games", "8", "--tt", "16"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--threads", "1", "--out", path(&out)]);
        ok(&all);
        // One thread: node counts that do not depend on scheduling. Congkak's
        // solver may come to count fewer nodes; its values and
        // everything else stay.
        check_folder(&format!("first-move/{name}"), &out, |file, text| {
            // The columns that time the run are blanked.
            let text = edit_fields(file, text, &["seconds", "solve_seconds"], Edit::Blank);
            if name == "congkak" {
                edit_fields(file, &text, &["solve_nodes", "nodes"], Edit::Drop)
            } else {
                text
            }
        });
    }
}
