//! Opening suites: a tournament or match started from the lines of a file
//! (positions and move lists), every bad line refused before any game, the
//! fair starts `analyze fair --openings-out` writes, the balanced books of
//! `analyze openings`, and the suites shipped in `openings/`.

use std::fs;
use std::path::Path;

use mancala_analysis::books::{book_text, BookReport};
use mancala_analysis::fair::{openings_text, FairDocument};
use mancala_arena::openings::read_openings;
use mancala_core::{with_game, Game, GameSpec};
use serde_json::Value;
use tempfile::TempDir;

use crate::util::{mancala, ok, path, read_json, refused, stdout, tournament, write_config};

/// Two positions of Kalah(4,3) and a move list (its first move sows into
/// the store, so the same player moves again).
const SUITE: &str = "\
# a small suite
4,3,3,2/3,3,3,3/0,0/0   # pit 1 +1, pit 4 -1
3,3,3,3/3,3,3,2/0,1/1   # player 1 to move

2 1
";

fn config(file: &Path, order: &str) -> String {
    format!(
        r#"
name = "suite"
game = "kalah:pits=4,seeds=3"
games_per_pair = 6
seed = 3

[openings]
file = "{}"
{order}

[[agents]]
spec = "random"

[[agents]]
spec = "greedy"
"#,
        file.display()
    )
}

fn records(dir: &Path) -> Vec<Value> {
    fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_tournament_plays_each_line_of_its_file_with_both_seatings() {
    let tmp = TempDir::new().unwrap();
    let suite = tmp.path().join("suite.txt");
    fs::write(&suite, SUITE).unwrap();
    let cfg = write_config(tmp.path(), "suite.toml", &config(&suite, ""));
    let out = tmp.path().join("out");
    let run = tournament(&cfg, &out, &["--threads", "2"]);
    assert!(run.status.success(), "{}", crate::util::show(&run));
    let games = records(&out);
    assert_eq!(games.len(), 6);
    let starts = [
        Some("4,3,3,2/3,3,3,3/0,0/0"),
        Some("3,3,3,3/3,3,3,2/0,1/1"),
        None,
    ];
    for g in &games {
        let k = g["opening"].as_u64().unwrap() as usize;
        // The first pair plays the first line, and so on, in file order.
        assert_eq!(k as u64, g["round"].as_u64().unwrap() / 2, "{g}");
        assert_eq!(g["start"].as_str(), starts[k], "{g}");
        let opening = if k == 2 { "2 1" } else { "" };
        assert_eq!(g["opening_moves"], opening, "{g}");
        assert!(g["moves"].as_str().unwrap().starts_with(opening), "{g}");
    }
    // Each opening once with each seating.
    for k in 0..3 {
        let seats: Vec<&Value> = games
            .iter()
            .filter(|g| g["opening"] == k)
            .map(|g| &g["seats"])
            .collect();
        assert_eq!(seats.len(), 2);
        assert_ne!(seats[0], seats[1]);
    }
    // A game from a position replays from it, to its recorded result.
    let from_position = games.iter().find(|g| g["opening"] == 1).unwrap();
    let id = from_position["id"].to_string();
    let lines = stdout(&ok(&[
        "replay",
        "--from",
        path(&out),
        "--id",
        &id,
        "--json",
    ]));
    let last: Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(last["final_scores"], from_position["scores"]);
    let shown = stdout(&ok(&["replay", "--from", path(&out), "--id", &id]));
    assert!(
        shown.contains("from the position 3,3,3,3/3,3,3,2/0,1/1"),
        "{shown}"
    );
    // The identity names the file and what it held.
    let identity = read_json(&out.join("tournament.json"));
    assert_eq!(identity["opening_count"], 3);
    assert!(identity["openings_digest"].is_string(), "{identity}");

    // Run again: nothing to play. Edit the file: the folder is another
    // tournament's, and the run says so before playing anything.
    let again = tournament(&cfg, &out, &[]);
    assert!(again.status.success(), "{}", crate::util::show(&again));
    fs::write(&suite, SUITE.replace("2 1", "2 3")).unwrap();
    let e = refused(&tournament(&cfg, &out, &[]));
    assert!(e.contains("openings_digest"), "{e}");
}

#[test]
fn a_random_order_is_seeded_and_plays_the_same_lines() {
    let tmp = TempDir::new().unwrap();
    let suite = tmp.path().join("suite.txt");
    // Pit 2 of the start keeps the turn: "2 2" would be illegal.
    let lines: String = [1, 3, 4]
        .into_iter()
        .flat_map(|a| (1..=4).map(move |b| format!("{a} {b}\n")))
        .collect();
    fs::write(&suite, &lines).unwrap();
    let played = |order: &str, name: &str| -> Vec<String> {
        let cfg = write_config(tmp.path(), &format!("{name}.toml"), &config(&suite, order));
        let out = tmp.path().join(name);
        let run = tournament(&cfg, &out, &[]);
        assert!(run.status.success(), "{}", crate::util::show(&run));
        records(&out)
            .iter()
            .filter(|g| g["seats"][0] == 0)
            .map(|g| g["opening_moves"].as_str().unwrap().to_string())
            .collect()
    };
    let sequential = played("", "seq");
    assert_eq!(sequential, ["1 1", "1 2", "1 3"]);
    let random = played("order = \"random\"", "rnd");
    assert_eq!(random, played("order = \"random\"", "rnd2"));
    assert_ne!(random, sequential);
    assert!(
        random.iter().all(|o| lines.contains(o.as_str())),
        "{random:?}"
    );
}

#[test]
fn a_bad_openings_file_is_refused_before_any_game() {
    let tmp = TempDir::new().unwrap();
    let suite = tmp.path().join("bad.txt");
    fs::write(&suite, "3 1\n# fine so far\n3 9\n").unwrap();
    let cfg = write_config(tmp.path(), "bad.toml", &config(&suite, ""));
    let out = tmp.path().join("out");
    let e = refused(&tournament(&cfg, &out, &[]));
    assert!(
        e.contains("key `openings.file`") && e.contains("bad.txt, line 3: move 2 ('9')"),
        "{e}"
    );
    assert!(!out.join("games.jsonl").exists());
    // A missing file, and keys that contradict a file.
    let missing = tmp.path().join("none.txt");
    let cfg = write_config(tmp.path(), "none.toml", &config(&missing, ""));
    let e = refused(&tournament(&cfg, &out, &[]));
    assert!(
        e.contains("cannot read the openings file") && e.contains("none.txt"),
        "{e}"
    );
    let cfg = write_config(tmp.path(), "both.toml", &config(&suite, "plies = 2"));
    let e = refused(&tournament(&cfg, &out, &[]));
    assert!(e.contains("openings.plies"), "{e}");
    let cfg = write_config(
        tmp.path(),
        "order.toml",
        &config(&suite, "order = \"shuffled\""),
    );
    let e = refused(&tournament(&cfg, &out, &[]));
    assert!(e.contains("sequential or random"), "{e}");
    // The same from `match`.
    let e = refused(&mancala(&[
        "match",
        "random",
        "greedy",
        "--game",
        "kalah:pits=4,seeds=3",
        "--openings",
        path(&suite),
    ]));
    assert!(e.contains("--openings: ") && e.contains("line 3"), "{e}");
}

#[test]
fn a_match_starts_from_the_lines_of_a_file() {
    let tmp = TempDir::new().unwrap();
    let suite = tmp.path().join("suite.txt");
    fs::write(&suite, SUITE).unwrap();
    let args = [
        "match",
        "greedy",
        "random",
        "--game",
        "kalah:pits=4,seeds=3",
        "--games",
        "6",
        "--openings",
        path(&suite),
        "--json",
    ];
    let a: Value = serde_json::from_str(&stdout(&ok(&args))).unwrap();
    assert_eq!(a["games"], 6);
    assert_eq!(a["pairs"], 3);
    // Other openings, other games; --opening-plies beside a file is refused.
    let other = tmp.path().join("other.txt");
    fs::write(&other, "1\n2\n3\n").unwrap();
    let mut b_args = args;
    b_args[8] = path(&other);
    let b: Value = serde_json::from_str(&stdout(&ok(&b_args))).unwrap();
    assert_ne!(
        (&a["a_wdl"], &a["a_mean_margin"]),
        (&b["a_wdl"], &b["a_mean_margin"])
    );
    refused(&mancala(&[
        "match",
        "greedy",
        "random",
        "--openings",
        path(&suite),
        "--opening-plies",
        "2",
    ]));
}

#[test]
fn analyze_fair_writes_its_fair_starts_as_an_openings_file() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("fair.txt");
    let game = "kalah:pits=4,seeds=3";
    let json = stdout(&ok(&[
        "analyze",
        "fair",
        "--game",
        game,
        "--capture",
        "empty",
        "--db-seeds",
        "0",
        "--openings-out",
        path(&file),
        "--json",
    ]));
    let doc: FairDocument = serde_json::from_str(&json).unwrap();
    let [report] = doc.rule_sets.as_slice() else {
        panic!("{json}")
    };
    assert!(!report.fair.is_empty());
    let text = fs::read_to_string(&file).unwrap();
    assert_eq!(text, openings_text(report));
    // Every line is an opening of those rules, the positions in order.
    let rules: GameSpec = format!("{game},empty_capture=true").parse().unwrap();
    with_game!(&rules, g => {
        let openings = read_openings(g, &file).unwrap();
        let starts: Vec<&str> = openings.iter().map(|o| o.start_text().unwrap()).collect();
        let fair: Vec<&str> = report.fair.iter().map(|f| f.position.as_str()).collect();
        assert_eq!(starts, fair);
    });
    let e = refused(&mancala(&[
        "analyze",
        "fair",
        "--game",
        game,
        "--openings-out",
        path(&file),
    ]));
    assert!(e.contains("--capture standard or --capture empty"), "{e}");
}

#[test]
fn the_shipped_suites_are_the_fair_starts_of_the_committed_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (result, suite, spec, count) in [
        (
            "kalah-6-4-empty-capture.json",
            "kalah-6-4-fair-empty-capture.txt",
            "kalah:empty_capture=true",
            254,
        ),
        (
            "kalah-6-4-standard.json",
            "kalah-6-4-fair-standard.txt",
            "kalah",
            323,
        ),
    ] {
        let doc: FairDocument =
            serde_json::from_value(read_json(&root.join("results/fair").join(result))).unwrap();
        let [report] = doc.rule_sets.as_slice() else {
            panic!("{result}")
        };
        let path = root.join("openings").join(suite);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            openings_text(report),
            "{suite}"
        );
        let rules: GameSpec = spec.parse().unwrap();
        with_game!(&rules, g => {
            assert_eq!(read_openings(g, &path).unwrap().len(), count, "{suite}");
        });
    }
}

/// Runs `analyze openings` on `game` into `dir/name.txt`; the summary.
fn book(dir: &Path, name: &str, game: &str, extra: &[&str]) -> BookReport {
    let file = dir.join(format!("{name}.txt"));
    let mut args = vec![
        "analyze",
        "openings",
        "--game",
        game,
        "--db-seeds",
        "0",
        "--tt",
        "16",
        "--quiet",
        "--out",
        path(&file),
    ];
    args.extend_from_slice(extra);
    let o = ok(&args);
    assert!(stdout(&o).contains("kept"), "{}", stdout(&o));
    let report: BookReport =
        serde_json::from_value(read_json(&dir.join(format!("{name}.json")))).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), book_text(&report));
    report
}

#[test]
fn analyze_openings_keeps_the_positions_whose_exact_value_is_near_zero() {
    let tmp = TempDir::new().unwrap();
    let game = "kalah:pits=4,seeds=3";
    let report = book(
        tmp.path(),
        "book",
        game,
        &["--plies", "3", "--max-abs", "2"],
    );
    assert_eq!(report.plies, 3);
    assert_eq!(report.solved, report.positions);
    let histogram: usize = report.values.iter().map(|(_, n)| n).sum();
    assert_eq!(histogram, report.positions);
    let near: usize = report
        .values
        .iter()
        .filter(|(v, _)| v.abs() <= 2)
        .map(|(_, n)| n)
        .sum();
    assert_eq!(report.kept, near);
    assert_eq!(report.book.len(), report.kept);
    assert!(
        report.kept > 5 && report.kept < report.positions,
        "{report:?}"
    );
    // Every opening reads as an opening of the game, reaches the position
    // the book says, and has the value `mancala solve` gives it.
    let rules: GameSpec = game.parse().unwrap();
    with_game!(&rules, g => {
        let openings = read_openings(g, &tmp.path().join("book.txt")).unwrap();
        assert_eq!(openings.len(), report.kept);
        for (opening, entry) in openings.iter().zip(&report.book) {
            let mut state = opening.start_state(g);
            for &m in &opening.moves {
                g.play_unchecked(&mut state, m);
            }
            assert_eq!(g.setup(&state).to_string(), entry.position);
            assert!(entry.value.abs() <= 2);
        }
    });
    for entry in &report.book {
        let o = ok(&[
            "solve",
            "--game",
            game,
            "--position",
            &entry.position,
            "--tt",
            "16",
            "--json",
        ]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            v["solution"]["value"].as_i64(),
            Some(i64::from(entry.value)),
            "{}",
            entry.position
        );
    }

    // --count keeps the N closest to 0, in the order found.
    let five = book(tmp.path(), "five", game, &["--plies", "3", "--count", "5"]);
    assert_eq!(five.kept, 5);
    let zeros = report.book.iter().filter(|e| e.value == 0).count();
    assert!(
        zeros >= 5,
        "Kalah(4,3) has {zeros} balanced positions after 3 moves"
    );
    let first_zeros: Vec<_> = report
        .book
        .iter()
        .filter(|e| e.value == 0)
        .take(5)
        .collect();
    assert_eq!(five.book.iter().collect::<Vec<_>>(), first_zeros);

    // A tournament plays the book.
    let o = ok(&[
        "match",
        "greedy",
        "random",
        "--game",
        game,
        "--games",
        "4",
        "--openings",
        path(&tmp.path().join("book.txt")),
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"].as_u64(), Some(4), "{v}");
}

#[test]
fn analyze_openings_takes_congkak_and_refuses_what_it_cannot_solve() {
    let tmp = TempDir::new().unwrap();
    let report = book(
        tmp.path(),
        "congkak",
        "congkak:pits=4,seeds=2",
        &["--plies", "2", "--max-abs", "0"],
    );
    assert!(report.book.iter().all(|e| e.value == 0));
    let out = tmp.path().join("x.txt");
    let run = |extra: &[&str]| {
        let mut args = vec!["analyze", "openings", "--out", path(&out)];
        args.extend_from_slice(extra);
        refused(&mancala(&args))
    };
    let e = run(&["--game", "kalah:pits=3,seeds=2", "--plies", "2"]);
    assert!(e.contains("--max-abs") && e.contains("--count"), "{e}");
    let e = run(&["--game", "oware", "--plies", "2", "--max-abs", "1"]);
    assert!(e.contains("Oware"), "{e}");
    let e = run(&[
        "--game",
        "congkak:pits=3,seeds=2,rounds=many",
        "--plies",
        "2",
        "--max-abs",
        "1",
    ]);
    assert!(e.contains("round"), "{e}");
    let e = run(&[
        "--game",
        "kalah:pits=3,seeds=2",
        "--plies",
        "2",
        "--max-abs=-1",
    ]);
    assert!(e.contains("--max-abs"), "{e}");
    let json = tmp.path().join("x.json");
    let e = refused(&mancala(&[
        "analyze",
        "openings",
        "--game",
        "kalah",
        "--plies",
        "1",
        "--count",
        "1",
        "--out",
        path(&json),
    ]));
    assert!(e.contains("another extension"), "{e}");
    assert!(!out.exists() && !json.exists());
}

#[test]
fn the_shipped_balanced_books_are_their_summaries_and_play() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (stem, spec, kept) in [
        ("kalah-6-4-balanced-standard", "kalah", 225),
        (
            "kalah-6-4-balanced-empty-capture",
            "kalah:empty_capture=true",
            190,
        ),
    ] {
        let dir = root.join("openings");
        let report: BookReport =
            serde_json::from_value(read_json(&dir.join(format!("{stem}.json")))).unwrap();
        let path = dir.join(format!("{stem}.txt"));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            book_text(&report),
            "{stem}"
        );
        assert_eq!(
            (report.kept, report.solved),
            (kept, report.positions),
            "{stem}"
        );
        assert!(report.book.iter().all(|e| e.value.abs() <= 2));
        let rules: GameSpec = spec.parse().unwrap();
        assert_eq!(report.game, rules.to_string());
        with_game!(&rules, g => {
            let openings = read_openings(g, &path).unwrap();
            assert_eq!(openings.len(), kept, "{stem}");
            for (opening, entry) in openings.iter().zip(&report.book) {
                let mut state = opening.start_state(g);
                for &m in &opening.moves {
                    g.play_unchecked(&mut state, m);
                }
                assert_eq!(g.setup(&state).to_string(), entry.position, "{stem}");
            }
        });
    }
    // The config that plays the standard book reads it.
    let config =
        mancala_arena::TournamentConfig::load(&root.join("configs/kalah-balanced.toml")).unwrap();
    assert_eq!(
        config.openings.file.as_deref(),
        Some(Path::new("openings/kalah-6-4-balanced-standard.txt"))
    );
    assert_eq!(config.games_per_pair, 450);
}

#[test]
fn analyze_openings_refuses_a_book_no_tournament_could_play() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("book.txt");
    let summary = tmp.path().join("book.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "analyze",
            "openings",
            "--db-seeds",
            "0",
            "--tt",
            "16",
            "--quiet",
            "--out",
            path(&out),
        ];
        args.extend_from_slice(extra);
        let e = refused(&mancala(&args));
        assert!(!out.exists() && !summary.exists(), "{extra:?} wrote a book");
        e
    };
    // The start alone, written as an empty line, is a book `--openings`
    // refuses: refused when asked for.
    let e = run(&[
        "--game",
        "kalah:pits=3,seeds=2",
        "--plies",
        "0",
        "--max-abs",
        "8",
    ]);
    assert!(e.contains("--plies"), "{e}");
    let e = run(&[
        "--game",
        "kalah:pits=3,seeds=2",
        "--plies",
        "1",
        "--count",
        "0",
    ]);
    assert!(e.contains("--count"), "{e}");
    // Kalah(2,2) after one move: values -4 and +2, none within 1.
    let e = run(&[
        "--game",
        "kalah:pits=2,seeds=2",
        "--plies",
        "1",
        "--max-abs",
        "1",
    ]);
    assert!(
        e.contains("no opening") && e.contains("|value| <= 1") && e.contains("+2"),
        "{e}"
    );
}
