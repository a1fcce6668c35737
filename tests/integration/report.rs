//! End-to-end tests of `mancala report`: the built binary reports a tiny
//! tournament, a tiny training log (tests/data/train) and a tiny first-move
//! analysis. Each page must parse as HTML without a parse error (html5ever,
//! the HTML standard's parser, through `scraper`), hold the numbers of its
//! inputs, load nothing from elsewhere, and be byte-identical when made
//! twice from the same folder.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use scraper::{Html, Selector};
use tempfile::TempDir;

use crate::util::{mancala, ok, path, read_json, stderr};

/// Three agents, six games per pair, openings of two moves: 18 games.
const TINY: &str = r#"
name = "tiny"
game = "kalah"
games_per_pair = 6
seed = 11

[openings]
plies = 2

[[agents]]
spec = "random"

[[agents]]
spec = "greedy"

[[agents]]
name = "mm2"
spec = "minimax:depth=2"
"#;

/// A finished tiny tournament in a temporary folder: (the temp dir, the
/// tournament's folder).
fn tiny_tournament() -> (TempDir, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let config = tmp.path().join("tiny.toml");
    fs::write(&config, TINY).unwrap();
    let out = tmp.path().join("tiny");
    ok(&[
        "tournament",
        path(&config),
        "--output",
        path(&out),
        "--quiet",
        "--threads",
        "2",
    ]);
    (tmp, out)
}

/// Writes the default report of `dir` and returns its text.
fn report(dir: &Path) -> String {
    ok(&["report", path(dir), "--quiet"]);
    fs::read_to_string(dir.join("report.html")).expect("report.html written")
}

fn select<'a>(page: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    page.select(&Selector::parse(css).unwrap()).collect()
}

/// Parses `text` as a browser would and checks what every report must be:
/// free of parse errors, in standards mode, self-contained, with charts
/// that carry a title and a description, and unique ids.
fn check_page(text: &str) -> Html {
    let page = Html::parse_document(text);
    assert!(
        page.errors.is_empty(),
        "HTML parse errors: {:?}",
        page.errors
    );
    assert_eq!(format!("{:?}", page.quirks_mode), "NoQuirks");
    // Nothing is fetched: no scripts, no external style sheets, frames,
    // images or objects, and no http(s) in any src or href.
    for tag in [
        "script", "link", "img", "iframe", "object", "embed", "video", "audio",
    ] {
        assert!(select(&page, tag).is_empty(), "a <{tag}> element");
    }
    for el in select(&page, "[src], [href]") {
        for attr in ["src", "href"] {
            if let Some(v) = el.value().attr(attr) {
                assert!(!v.contains("http"), "{attr}={v:?}");
                assert!(v.starts_with('#'), "{attr}={v:?} leaves the page");
            }
        }
    }
    assert!(!text.contains("@import") && !text.contains("url("));
    // The only "http" is the SVG namespace name, which is not a request.
    let namespace = "xmlns=\"http://www.w3.org/2000/svg\"";
    assert_eq!(
        text.matches("http").count(),
        text.matches(namespace).count(),
        "http outside the SVG namespace"
    );
    let charts = select(&page, "svg");
    assert!(!charts.is_empty(), "no chart");
    for svg in &charts {
        let label = svg
            .value()
            .attr("aria-labelledby")
            .expect("aria-labelledby");
        let title = svg
            .children()
            .filter_map(scraper::ElementRef::wrap)
            .find(|c| c.value().name() == "title")
            .expect("a chart without <title>");
        assert!(!title.text().collect::<String>().trim().is_empty());
        assert!(
            svg.children()
                .filter_map(scraper::ElementRef::wrap)
                .any(|c| c.value().name() == "desc"),
            "a chart without <desc>"
        );
        for id in label.split_whitespace() {
            assert_eq!(select(&page, &format!("#{id}")).len(), 1, "id {id}");
        }
    }
    let mut ids = BTreeSet::new();
    for el in select(&page, "[id]") {
        let id = el.value().attr("id").unwrap();
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
    }
    page
}

/// The page's text (what a reader sees, charts' text included).
fn visible_text(page: &Html) -> String {
    page.root_element().text().collect::<Vec<_>>().join(" ")
}

#[test]
fn tournament_report_is_valid_self_contained_and_holds_the_results() {
    let (_tmp, dir) = tiny_tournament();
    let text = report(&dir);
    let page = check_page(&text);
    let seen = visible_text(&page);

    let summary = read_json(&dir.join("summary.json"));
    assert!(seen.contains("Tournament tiny"));
    for agent in summary["standings"].as_array().unwrap() {
        let elo = agent["elo"].as_f64().unwrap();
        let name = agent["name"].as_str().unwrap();
        assert!(seen.contains(name), "{name}");
        assert!(
            seen.contains(&format!("{elo:+.1}")),
            "{name}'s Elo {elo:+.1}"
        );
        let (w, d, l) = (
            &agent["wdl"]["wins"],
            &agent["wdl"]["draws"],
            &agent["wdl"]["losses"],
        );
        assert!(seen.contains(&format!("{w}-{d}-{l}")), "{name}'s W-D-L");
    }
    // The crosstable: each cell's score and games.
    let cell = &summary["crosstable"][1][0];
    let score = 100.0 * cell["score"].as_f64().unwrap();
    let shown = format!("{score:.1}");
    let shown = shown.trim_end_matches('0').trim_end_matches('.');
    assert!(seen.contains(&format!("{shown}%")), "crosstable {shown}%");
    assert!(seen.contains(&format!("{} games", cell["games"])));
    // The first-move advantage: overall first-seat record and fitted term.
    let overall = &summary["first_player"]["overall"]["wdl"];
    assert!(seen.contains(&format!(
        "{}-{}-{} W-D-L",
        overall["wins"], overall["draws"], overall["losses"]
    )));
    let advantage = summary["first_player"]["advantage_elo"].as_f64().unwrap();
    assert!(seen.contains(&format!("{advantage:+.1} Elo")));
    // Every chart of a tournament report.
    for id in ["ladder", "crosstable", "first-seat", "margins"] {
        assert_eq!(select(&page, &format!("#fig-{id} svg")).len(), 1, "{id}");
    }
    // The moves: one row per agent, every timed move counted once, and
    // only the searcher with a depth (2 at most).
    let rows: Vec<Vec<String>> = select(&page, "#moves tbody tr")
        .iter()
        .map(|tr| {
            tr.text()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let timed: u64 = fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["move_us"].as_array().unwrap().len() as u64
        })
        .sum();
    let counted: u64 = rows.iter().map(|r| r[1].parse::<u64>().unwrap()).sum();
    assert_eq!(counted, timed);
    for row in &rows {
        let depth = &row[4];
        if row[0] == "mm2" {
            let d: f64 = depth.parse().unwrap();
            assert!(d > 1.0 && d <= 2.0, "{row:?}");
        } else {
            assert_eq!(depth, "-", "{row:?}");
        }
    }
    assert!(seen.contains("No game was forfeited"));
    assert!(seen.contains("mancala tournament tiny.toml"));
    assert!(seen.contains("games_per_pair = 6"));

    // Byte-identical when made again, and through --out.
    assert_eq!(report(&dir), text);
    let elsewhere = dir.parent().unwrap().join("elsewhere.html");
    ok(&["report", path(&dir), "--out", path(&elsewhere), "--quiet"]);
    assert_eq!(fs::read_to_string(&elsewhere).unwrap(), text);
}

#[test]
fn tournament_report_reads_summaries_with_and_without_newer_fields() {
    let (_tmp, dir) = tiny_tournament();
    let summary_path = dir.join("summary.json");
    let mut summary = read_json(&summary_path);

    // With pentanomial counts (this version writes them): a table of pairs.
    let page = Html::parse_document(&report(&dir));
    let seen = visible_text(&page);
    assert!(seen.contains("Pairs of games"));
    let first = &summary["pentanomial"][0];
    let p = &first["pentanomial"];
    let counts = format!(
        "{} {} {} {} {}",
        p["ll"], p["ld"], p["dd_wl"], p["wd"], p["ww"]
    );
    let row_texts: Vec<String> = select(&page, "#pairs tbody tr")
        .iter()
        .map(|r| {
            r.select(&Selector::parse("td").unwrap())
                .map(|c| c.text().collect::<String>())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert!(
        row_texts.iter().any(|r| r.contains(&counts)),
        "{counts} in {row_texts:?}"
    );

    // A summary of an earlier version, without the fields added since, and
    // with one a later version might add: still a report, quoting the
    // Hessian intervals where there are no profile ones.
    let hessian = summary["standings"][0]["elo_95"].clone();
    let object = summary.as_object_mut().unwrap();
    for key in ["pentanomial", "likelihood_of_superiority"] {
        object.remove(key).unwrap();
    }
    for agent in summary["standings"].as_array_mut().unwrap() {
        agent
            .as_object_mut()
            .unwrap()
            .remove("elo_95_profile")
            .unwrap();
    }
    let first = summary["first_player"].as_object_mut().unwrap();
    first.remove("advantage_elo_95_profile").unwrap();
    summary["written_by_a_later_version"] = serde_json::json!({"x": 1});
    fs::write(&summary_path, summary.to_string()).unwrap();
    let text = report(&dir);
    let page = check_page(&text);
    let seen = visible_text(&page);
    assert!(!seen.contains("Pairs of games"));
    let lo = hessian[0].as_f64().unwrap();
    assert!(seen.contains(&format!("[{lo:+.1}, ")), "{lo} in {seen}");

    // A summary of the wrong shape is refused, naming the file and the field.
    summary["standings"] = serde_json::json!("none");
    fs::write(&summary_path, summary.to_string()).unwrap();
    let o = mancala(&["report", path(&dir)]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("summary.json is not a tournament summary") && e.contains("expected a sequence"),
        "{e}"
    );
}

#[test]
fn markdown_report_has_the_tables_and_writes_the_charts_beside_it() {
    let (tmp, dir) = tiny_tournament();
    let out = tmp.path().join("md").join("tiny.md");
    ok(&[
        "report",
        path(&dir),
        "--format",
        "md",
        "--out",
        path(&out),
        "--quiet",
    ]);
    let text = fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("# Tournament tiny\n"));
    assert!(text.contains("| rank | agent | spec | Elo |"));
    assert!(text.contains("| ---: | --- | --- | ---: |"));
    for id in ["ladder", "crosstable", "first-seat", "margins"] {
        let name = format!("tiny-{id}.svg");
        assert!(text.contains(&format!("]({name})")), "{name}");
        let svg = fs::read_to_string(out.with_file_name(&name)).unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("<title id=\"title\">") && svg.contains("<desc id=\"desc\">"));
    }
    let again = tmp.path().join("again.md");
    ok(&[
        "report",
        path(&dir),
        "--format",
        "md",
        "--out",
        path(&again),
        "--quiet",
    ]);
    // The same text but for the charts' file names, which follow the file's.
    assert_eq!(
        fs::read_to_string(&again).unwrap(),
        text.replace("tiny-", "again-")
    );
}

/// A copy of tests/data/train in a temporary folder (a report writes into
/// the folder it reports).
fn training_folder(with_state: bool) -> (TempDir, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    let dir = tmp.path().join("train-tiny");
    fs::create_dir_all(dir.join("checkpoint")).unwrap();
    fs::copy(data.join("log.csv"), dir.join("log.csv")).unwrap();
    if with_state {
        fs::copy(
            data.join("checkpoint/state.json"),
            dir.join("checkpoint/state.json"),
        )
        .unwrap();
    }
    (tmp, dir)
}

#[test]
fn training_report_shows_the_curves_and_the_final_evaluation() {
    let (_tmp, dir) = training_folder(true);
    let text = report(&dir);
    let page = check_page(&text);
    let seen = visible_text(&page);
    assert!(seen.contains("Training run train-tiny"));
    assert!(seen.contains("kalah:pits=4,seeds=3"));
    // The threshold comes from the run's config (0.6), not the default.
    assert!(seen.contains("threshold 0.60"));
    assert!(seen.contains("2 of 4 generations beat the best network"));
    assert!(seen.contains("generation 3"));
    for id in ["losses", "gate", "baselines", "throughput"] {
        assert_eq!(select(&page, &format!("#fig-{id} svg")).len(), 1, "{id}");
    }
    // Points carry their values: first and last losses, and a gate score.
    assert!(text.contains("policy loss: 1.4375 at 1"));
    assert!(text.contains("value loss: 0.1625 at 4"));
    assert!(text.contains("gate score: 0.65 at 3"));
    // Throughput: 800 positions in the first 10.5 s.
    assert!(text.contains("positions per second: 76.1905 at 1"));
    // The final evaluation with Wilson intervals over the config's 20 games.
    let final_rows: Vec<String> = select(&page, "#final tbody tr")
        .iter()
        .map(|r| r.text().collect::<Vec<_>>().join("|"))
        .collect();
    assert_eq!(
        final_rows,
        [
            "random|100.0%|[83.9%, 100.0%]|20",
            "greedy|55.0%|[34.2%, 74.2%]|20"
        ]
    );
    assert_eq!(report(&dir), text);

    // Without the checkpoint: the default threshold, said to be one.
    let (_tmp, bare) = training_folder(false);
    let seen = visible_text(&check_page(&report(&bare)));
    assert!(seen.contains("0.55 (the config's default"));
    assert!(seen.contains("Training run train-tiny"));
}

#[test]
fn analysis_report_shows_exact_values_and_skill_per_board() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("first-move");
    ok(&[
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
        "--threads",
        "2",
        "--out",
        path(&dir),
    ]);
    let text = report(&dir);
    let page = check_page(&text);
    let seen = visible_text(&page);
    assert!(seen.contains("First-move analysis of kalah"));
    let analysis = read_json(&dir.join("first_move.json"));
    let boards = analysis["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 8);
    let mut fair = 0;
    for b in boards {
        let v = b["value"].as_i64().expect("tiny boards are solved");
        fair += usize::from(v == 0);
        let label = if v == 0 { "0".into() } else { format!("{v:+}") };
        // The heat map cell and the skill panel's caption of this board.
        let (p, s) = (&b["pits"], &b["seeds"]);
        assert!(
            text.contains(&format!("pits per side {p}, seeds per pit {s}: {label}")),
            "{p}x{s}: {label}"
        );
        assert!(seen.contains(&format!("{p}x{s}, exact {label}")));
    }
    for rules in ["standard", "empty-capture"] {
        for chart in ["exact", "skill"] {
            assert_eq!(
                select(&page, &format!("#fig-{chart}-{rules} svg")).len(),
                1,
                "{chart} {rules}"
            );
        }
    }
    // A self-play row: the first player's record of one cell.
    let row = &analysis["rows"][0];
    let wdl = &row["first_wdl"];
    assert!(seen.contains(&format!("{}-{}-{}", wdl[0], wdl[1], wdl[2])));
    // Fair boards are counted per rule set.
    let fair_cells: Vec<String> = select(&page, "#fair tbody tr td:nth-child(3)")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    let counted: usize = fair_cells.iter().map(|c| c.parse::<usize>().unwrap()).sum();
    assert_eq!(counted, fair);
    assert_eq!(report(&dir), text);
}

#[test]
fn a_folder_without_results_is_bad_input() {
    let tmp = TempDir::new().unwrap();
    let o = mancala(&["report", path(tmp.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to report"), "{}", stderr(&o));
    assert!(!tmp.path().join("report.html").exists());

    let missing = tmp.path().join("missing");
    let o = mancala(&["report", path(&missing)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a folder"), "{}", stderr(&o));

    // A shard's folder has no ratings yet: the message says to merge.
    let shard = tmp.path().join("shard");
    fs::create_dir(&shard).unwrap();
    fs::write(
        shard.join("tournament.json"),
        r#"{"name": "big", "game": "kalah", "agents": [], "shard": {"index": 1, "count": 4}}"#,
    )
    .unwrap();
    let o = mancala(&["report", path(&shard)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mancala merge"), "{}", stderr(&o));

    // A damaged summary names the file.
    let damaged = tmp.path().join("damaged");
    fs::create_dir(&damaged).unwrap();
    fs::write(damaged.join("summary.json"), "{ not json").unwrap();
    let o = mancala(&["report", path(&damaged)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("summary.json"), "{}", stderr(&o));
}

#[test]
fn the_validity_check_catches_what_it_should() {
    // The checks above rest on html5ever reporting parse errors and quirks
    // mode: a stray end tag and a missing doctype must show.
    let broken = Html::parse_document("<!DOCTYPE html><html><body><p>x</div></p></body></html>");
    assert!(!broken.errors.is_empty());
    let quirky = Html::parse_document("<html><body>x</body></html>");
    assert_ne!(format!("{:?}", quirky.quirks_mode), "NoQuirks");
}
