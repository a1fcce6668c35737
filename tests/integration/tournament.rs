//! End-to-end tests of `mancala tournament` (and `mancala match`): the built
//! binary, run on configs written into temporary folders.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{command, read_json, text, tournament, tournament_cmd, write_config};

const CSV_HEADER: &str =
    "id,pair,round,opening,player0,player1,winner,score0,score1,margin,plies,duration_ms,end,error";

const RATINGS_HEADER: &str = "rank,name,spec,elo,elo_lo,elo_hi,games,points,score,wins,draws,\
losses,mean_margin,margin_lo,margin_hi,first_seat_score,second_seat_score,forfeits,\
elo_profile_lo,elo_profile_hi,time_losses";

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
const TINY_GAMES: usize = 18;

/// Search agents that keep state between games (trees, tables), and enough
/// games to take a few seconds: long enough to be stopped half-way.
const SLOW: &str = r#"
name = "slow"
game = "kalah"
games_per_pair = 30
seed = 5

[openings]
plies = 2

[[agents]]
name = "mcts"
spec = "mcts:sims=600"

[[agents]]
name = "mm6"
spec = "minimax:depth=6"

[[agents]]
spec = "greedy"
"#;
const SLOW_GAMES: usize = 90;

/// Runs a tournament that must succeed.
fn tournament_ok(config: &Path, out: &Path, extra: &[&str]) -> Output {
    let output = tournament(config, out, extra);
    assert!(
        output.status.success(),
        "tournament failed: {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

/// Splits one CSV line into fields (quotes as the csv crate writes them).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// A CSV file as a header and rows of fields.
fn read_csv(path: &Path) -> (String, Vec<Vec<String>>) {
    let content = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        content.ends_with('\n'),
        "{} does not end with a newline",
        path.display()
    );
    let mut lines = content.lines();
    let header = lines.next().expect("a header").to_string();
    (header, lines.map(csv_fields).collect())
}

/// The game rows of games.csv without the duration_ms column (the only one
/// that may vary between identical runs).
fn games_csv_without_durations(dir: &Path) -> Vec<Vec<String>> {
    let (header, rows) = read_csv(&dir.join("games.csv"));
    assert_eq!(header, CSV_HEADER);
    let col = CSV_HEADER
        .split(',')
        .position(|c| c == "duration_ms")
        .unwrap();
    rows.into_iter()
        .map(|mut r| {
            assert_eq!(r.len(), 14, "row {r:?}");
            r.remove(col);
            r
        })
        .collect()
}

/// Every line of games.jsonl, parsed (each must be a complete JSON object).
fn read_jsonl(dir: &Path) -> Vec<Value> {
    let path = dir.join("games.jsonl");
    let content = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        content.is_empty() || content.ends_with('\n'),
        "games.jsonl ends with a cut line"
    );
    content
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("games.jsonl line {}: {e}: {line}", i + 1));
            assert!(v.is_object(), "line {}: {line}", i + 1);
            v
        })
        .collect()
}

/// games.jsonl without its timings (duration_ms, move_us, clock_ms: the
/// fields that vary between identical runs).
fn jsonl_without_durations(dir: &Path) -> Vec<Value> {
    read_jsonl(dir)
        .into_iter()
        .map(|mut v| {
            let o = v.as_object_mut().unwrap();
            let removed = o.remove("duration_ms");
            assert!(removed.is_some_and(|d| d.is_number()), "{v}");
            let plies = o["plies"].as_u64().unwrap();
            let opening = o["opening_moves"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .count();
            let times = o.remove("move_us");
            let timed = times.as_ref().and_then(Value::as_array).map_or(0, Vec::len);
            assert_eq!(
                timed as u64,
                plies - opening as u64,
                "every move timed: {v}"
            );
            o.remove("clock_ms");
            v
        })
        .collect()
}

fn ids(records: &[Value]) -> Vec<u64> {
    records.iter().map(|r| r["id"].as_u64().unwrap()).collect()
}

/// Complete lines in games.jsonl so far (0 while it does not exist).
fn logged_lines(dir: &Path) -> usize {
    fs::read(dir.join("games.jsonl")).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Waits until `child` has logged at least `lines` games; panics if it ends first.
fn wait_for_games(child: &mut Child, dir: &Path, lines: usize) {
    let t0 = Instant::now();
    while logged_lines(dir) < lines {
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!("the tournament ended ({status}) before logging {lines} games");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no games logged after a minute"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Asserts that two finished tournaments logged the same games, durations aside.
fn assert_same_games(a: &Path, b: &Path) {
    let (ja, jb) = (jsonl_without_durations(a), jsonl_without_durations(b));
    assert_eq!(ja.len(), jb.len(), "games.jsonl lengths differ");
    for (x, y) in ja.iter().zip(&jb) {
        assert_eq!(x, y, "games.jsonl differs");
    }
    assert_eq!(
        games_csv_without_durations(a),
        games_csv_without_durations(b),
        "games.csv differs"
    );
}

/// The ids are exactly 0..n, in order.
fn assert_complete(dir: &Path, n: usize) {
    let records = read_jsonl(dir);
    assert_eq!(ids(&records), (0..n as u64).collect::<Vec<_>>());
    let rows = games_csv_without_durations(dir);
    let csv_ids: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(csv_ids, (0..n as u64).collect::<Vec<_>>());
}

fn as_f64(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn wdl_games(wdl: &Value) -> u64 {
    wdl["wins"].as_u64().unwrap() + wdl["draws"].as_u64().unwrap() + wdl["losses"].as_u64().unwrap()
}

#[test]
fn a_tiny_round_robin_writes_consistent_results() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "tiny.toml", TINY);
    let out = tmp.path().join("out");
    let started = Instant::now();
    let output = tournament_ok(&config, &out, &[]);
    // No game can take longer than the whole run that played it.
    let run_ms = started.elapsed().as_secs_f64() * 1000.0;
    let stdout = text(&output.stdout);
    assert!(stdout.contains(&format!("{TINY_GAMES} games")), "{stdout}");
    assert!(stdout.contains("results: "), "{stdout}");

    // games.csv: the header, then one row per planned game, in id order.
    let (header, rows) = read_csv(&out.join("games.csv"));
    assert_eq!(header, CSV_HEADER);
    assert_eq!(rows.len(), TINY_GAMES);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 14, "{row:?}");
        assert_eq!(row[0], i.to_string(), "{row:?}");
        let ms: f64 = row[11].parse().unwrap();
        assert!(
            (0.0..=run_ms).contains(&ms),
            "{row:?}: the run took {run_ms} ms"
        );
    }

    // games.jsonl: one object per game, agreeing with the CSV.
    let records = read_jsonl(&out);
    assert_eq!(ids(&records), (0..TINY_GAMES as u64).collect::<Vec<_>>());
    let names = ["random", "greedy", "mm2"];
    for (r, row) in records.iter().zip(&rows) {
        let players = [
            r["players"][0].as_str().unwrap(),
            r["players"][1].as_str().unwrap(),
        ];
        assert_eq!([row[4].as_str(), row[5].as_str()], players);
        for (seat, name) in players.iter().enumerate() {
            let agent = r["seats"][seat].as_u64().unwrap() as usize;
            assert_eq!(names[agent], *name, "{r}");
        }
        assert_ne!(players[0], players[1]);
        let winner = match &r["winner"] {
            Value::Null => "draw".to_string(),
            w => w.to_string(),
        };
        assert_eq!(row[6], winner);
        assert_eq!(row[7], r["scores"][0].to_string());
        assert_eq!(row[8], r["scores"][1].to_string());
        let margin = r["scores"][0].as_i64().unwrap() - r["scores"][1].as_i64().unwrap();
        assert_eq!(r["margin"].as_i64().unwrap(), margin);
        assert_eq!(row[9], margin.to_string());
        let moves: Vec<&str> = r["moves"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(row[10], moves.len().to_string());
        assert_eq!(r["plies"].as_u64().unwrap(), moves.len() as u64);
        let opening: Vec<&str> = r["opening_moves"].as_str().unwrap().split(' ').collect();
        assert_eq!(opening.len(), 2, "{r}");
        assert_eq!(
            &moves[..2],
            &opening[..],
            "the moves start with the opening"
        );
        assert_eq!(r["game"], "kalah");
        assert_eq!(r["error"], Value::Null, "{r}");
        assert_eq!(row[12], r["end"].as_str().unwrap());
        assert_eq!(row[13], "");
        // The CSV holds the log's time, to the microsecond.
        let ms = r["duration_ms"].as_f64().unwrap();
        assert_eq!(row[11], format!("{ms:.3}"), "{r}");
    }

    // Each opening is played twice by each pair, seats swapped.
    let mut by_pair_opening: BTreeMap<(u64, u64), Vec<&Value>> = BTreeMap::new();
    for r in &records {
        let key = (r["pair"].as_u64().unwrap(), r["opening"].as_u64().unwrap());
        by_pair_opening.entry(key).or_default().push(r);
    }
    assert_eq!(by_pair_opening.len(), 3 * 3, "3 pairs x 3 openings");
    for ((pair, opening), games) in &by_pair_opening {
        assert_eq!(games.len(), 2, "pair {pair} opening {opening}");
        let (a, b) = (games[0], games[1]);
        assert_eq!(a["players"][0], b["players"][1], "seats swapped: {a} / {b}");
        assert_eq!(a["players"][1], b["players"][0], "seats swapped: {a} / {b}");
        assert_eq!(a["opening_moves"], b["opening_moves"]);
        let rounds = [a["round"].as_u64().unwrap(), b["round"].as_u64().unwrap()];
        assert_eq!(
            rounds[0] / 2,
            rounds[1] / 2,
            "consecutive rounds: {rounds:?}"
        );
    }
    // The CSV says the same: (pair, opening) -> the two seatings.
    let mut seatings: BTreeMap<(&str, &str), BTreeSet<(&str, &str)>> = BTreeMap::new();
    for row in &rows {
        seatings
            .entry((row[1].as_str(), row[3].as_str()))
            .or_default()
            .insert((row[4].as_str(), row[5].as_str()));
    }
    for (key, seats) in &seatings {
        let v: Vec<_> = seats.iter().collect();
        assert_eq!(v.len(), 2, "{key:?}: {seats:?}");
        assert_eq!((v[0].0, v[0].1), (v[1].1, v[1].0), "{key:?}: {seats:?}");
    }
    // Different openings exist (random openings of 2 plies, seeded).
    let openings: BTreeSet<&str> = records
        .iter()
        .map(|r| r["opening_moves"].as_str().unwrap())
        .collect();
    assert!(openings.len() > 1, "{openings:?}");

    // A few games replay to the same end.
    for r in records.iter().step_by(4) {
        let replay = command()
            .args(["replay", "--json", "--game"])
            .arg(r["game"].as_str().unwrap())
            .arg("--moves")
            .arg(r["moves"].as_str().unwrap())
            .output()
            .expect("run mancala replay");
        assert!(replay.status.success(), "{replay:?}");
        let stdout = text(&replay.stdout);
        let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert_eq!(
            last["final_scores"], r["scores"],
            "game {}: {last}",
            r["id"]
        );
        assert_eq!(last["winner"], r["winner"], "game {}: {last}", r["id"]);
    }

    // ratings.csv: one row per agent.
    let (header, ratings) = read_csv(&out.join("ratings.csv"));
    assert_eq!(header, RATINGS_HEADER);
    assert_eq!(ratings.len(), 3);
    let rated: BTreeSet<&str> = ratings.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(rated, names.into_iter().collect());
    let mut points_total = 0.0;
    for (rank, row) in ratings.iter().enumerate() {
        assert_eq!(row.len(), 21, "{row:?}");
        assert_eq!(row[0], (rank + 1).to_string());
        let spec = if row[1] == "mm2" {
            "minimax:depth=2"
        } else {
            row[1].as_str()
        };
        assert!(
            row[2].starts_with(spec.split(':').next().unwrap()),
            "{row:?}"
        );
        row[3].parse::<f64>().unwrap();
        let games: u64 = row[6].parse().unwrap();
        let points: f64 = row[7].parse().unwrap();
        let (w, d, l): (u64, u64, u64) = (
            row[9].parse().unwrap(),
            row[10].parse().unwrap(),
            row[11].parse().unwrap(),
        );
        assert_eq!(games, 12, "{row:?}");
        assert_eq!(w + d + l, games, "{row:?}");
        assert!(
            (points - (w as f64 + 0.5 * d as f64)).abs() < 1e-9,
            "{row:?}"
        );
        points_total += points;
    }
    assert!((points_total - TINY_GAMES as f64).abs() < 1e-9);
    let elos: Vec<f64> = ratings.iter().map(|r| r[3].parse().unwrap()).collect();
    assert!(elos.windows(2).all(|w| w[0] >= w[1]), "{elos:?}");

    // summary.json.
    let s = read_json(&out.join("summary.json"));
    assert_eq!(s["name"], "tiny");
    assert_eq!(s["games_planned"], TINY_GAMES as u64);
    assert_eq!(s["games_played"], TINY_GAMES as u64);
    assert_eq!(s["forfeits"], 0);
    assert_eq!(s["agents"], serde_json::json!(names));
    let standings = s["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3);
    let points: f64 = standings.iter().map(|a| as_f64(&a["points"])).sum();
    assert!((points - TINY_GAMES as f64).abs() < 1e-9, "points {points}");
    for a in standings {
        assert_eq!(a["games"], 12);
        assert_eq!(wdl_games(&a["wdl"]), 12);
    }
    let cross = s["crosstable"].as_array().unwrap();
    assert_eq!(cross.len(), 3);
    let los = s["likelihood_of_superiority"].as_array().unwrap();
    assert_eq!(los.len(), 3);
    for i in 0..3 {
        assert_eq!(cross[i].as_array().unwrap().len(), 3);
        assert!(cross[i][i].is_null());
        for j in 0..3 {
            if i == j {
                continue;
            }
            let (c, d) = (&cross[i][j], &cross[j][i]);
            assert_eq!(c["games"], 6);
            assert_eq!(wdl_games(&c["wdl"]), 6);
            assert_eq!(c["wdl"]["wins"], d["wdl"]["losses"]);
            assert_eq!(c["wdl"]["draws"], d["wdl"]["draws"]);
            let p = as_f64(&los[i][j]) + as_f64(&los[j][i]);
            assert!((p - 1.0).abs() < 1e-6, "LOS {i},{j}: {p}");
        }
    }
    let fp = &s["first_player"];
    assert_eq!(wdl_games(&fp["overall"]["wdl"]), TINY_GAMES as u64);
    assert!(as_f64(&fp["advantage_elo"]).is_finite());
    let first_wins = records.iter().filter(|r| r["winner"] == 0).count() as u64;
    assert_eq!(fp["overall"]["wdl"]["wins"], first_wins);
    let per_pair = fp["per_pair"].as_array().unwrap();
    assert_eq!(per_pair.len(), 3);
    for p in per_pair {
        assert_eq!(wdl_games(&p["stats"]["wdl"]), 6, "{p}");
    }
}

#[test]
fn a_killed_tournament_resumes_to_the_same_results() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "slow.toml", SLOW);
    let out = tmp.path().join("killed");
    let mut child = tournament_cmd(&config, &out, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mancala");
    wait_for_games(&mut child, &out, 3);
    child.kill().expect("kill");
    child.wait().expect("wait");
    let log_path = out.join("games.jsonl");
    let logged = fs::read_to_string(&log_path).unwrap();
    let complete = logged.lines().count() - usize::from(!logged.ends_with('\n'));
    assert!(
        (3..SLOW_GAMES).contains(&complete),
        "{complete} games logged: the tournament finished before the kill (make it longer)"
    );
    // A crash in the middle of a write leaves a cut last line (unless the
    // kill already did).
    if logged.ends_with('\n') {
        let first = logged.lines().next().unwrap();
        let mut log = fs::OpenOptions::new().append(true).open(&log_path).unwrap();
        log.write_all(&first.as_bytes()[..first.len() / 2]).unwrap();
    }

    let output = tournament(&config, &out, &[]);
    assert!(
        output.status.success(),
        "resume failed: {}",
        text(&output.stderr)
    );
    assert_complete(&out, SLOW_GAMES);

    let fresh = tmp.path().join("uninterrupted");
    tournament_ok(&config, &fresh, &[]);
    assert_same_games(&out, &fresh);
    assert_eq!(
        read_json(&out.join("summary.json")),
        read_json(&fresh.join("summary.json"))
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_a_rerun_completes() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "slow.toml", SLOW);
    let out = tmp.path().join("out");
    let mut child = tournament_cmd(&config, &out, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mancala");
    wait_for_games(&mut child, &out, 3);
    let sent = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    let output = child.wait_with_output().expect("wait");
    let stderr = text(&output.stderr);
    assert!(
        sent.elapsed() < Duration::from_secs(20),
        "took {:?} to stop",
        sent.elapsed()
    );
    assert_eq!(output.status.code(), Some(130), "stderr:\n{stderr}");
    assert!(
        stderr.contains("Run the same command again to continue"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("of {SLOW_GAMES} games")),
        "{stderr}"
    );
    assert!(
        !out.join("summary.json").exists(),
        "an unfinished run has no summary"
    );

    // Only complete games, each once, the CSV agreeing with the JSON log.
    let partial = jsonl_without_durations(&out);
    assert!(!partial.is_empty() && partial.len() < SLOW_GAMES);
    let unique: BTreeSet<u64> = ids(&partial).into_iter().collect();
    assert_eq!(unique.len(), partial.len(), "a game logged twice");
    let csv_ids: BTreeSet<u64> = games_csv_without_durations(&out)
        .iter()
        .map(|r| r[0].parse().unwrap())
        .collect();
    assert_eq!(csv_ids, unique);
    for r in &partial {
        assert!(r["end"].is_string() && r["error"].is_null(), "{r}");
        let plies = r["moves"].as_str().unwrap().split_whitespace().count();
        assert_eq!(r["plies"].as_u64().unwrap(), plies as u64);
    }

    // Rerunning plays the rest and keeps the games already logged.
    tournament_ok(&config, &out, &[]);
    assert_complete(&out, SLOW_GAMES);
    let done = jsonl_without_durations(&out);
    for r in &partial {
        let id = r["id"].as_u64().unwrap() as usize;
        assert_eq!(&done[id], r, "game {id} changed on resume");
    }
    assert_eq!(
        read_json(&out.join("summary.json"))["games_played"],
        SLOW_GAMES as u64
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "slow.toml", SLOW);
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    tournament_ok(&config, &one, &["--threads", "1"]);
    tournament_ok(&config, &two, &["--threads", "2"]);
    assert_complete(&one, SLOW_GAMES);
    assert_same_games(&one, &two);
    for file in ["summary.json", "ratings.csv"] {
        assert_eq!(
            fs::read_to_string(one.join(file)).unwrap(),
            fs::read_to_string(two.join(file)).unwrap(),
            "{file} differs"
        );
    }
}

/// Runs a tournament that must fail as the user's error; returns stderr.
fn bad_input(config: &Path, out: &Path) -> String {
    let output = tournament(config, out, &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn broken_configs_are_the_users_error() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let cases: &[(&str, &str, &str, &[&str])] = &[
        ("typo", "seed = 11", "sead = 11", &["sead"]),
        ("typo-table", "plies = 2", "plys = 2", &["plys"]),
        (
            "game",
            "game = \"kalah\"",
            "game = \"kalha\"",
            &["key `game`"],
        ),
        (
            "agent",
            "spec = \"greedy\"",
            "spec = \"greedy:depth=3\"",
            &["key `agents[1].spec`"],
        ),
        (
            "zero",
            "games_per_pair = 6",
            "games_per_pair = 0",
            &["key `games_per_pair`"],
        ),
        (
            "gauntlet",
            "seed = 11",
            "seed = 11\nformat = \"gauntlet\"",
            &["key `champion`", "gauntlet"],
        ),
    ];
    for (name, from, to, expected) in cases {
        let body = TINY.replace(from, to);
        assert_ne!(body, TINY, "{name}: the replacement did nothing");
        let config = write_config(tmp.path(), &format!("{name}.toml"), &body);
        let stderr = bad_input(&config, &out);
        assert!(
            stderr.contains(&format!("{name}.toml")),
            "{name}: the message names the file: {stderr}"
        );
        for e in *expected {
            assert!(stderr.contains(e), "{name}: expected `{e}` in: {stderr}");
        }
        assert!(
            !out.exists(),
            "{name}: a broken config created the output folder"
        );
    }

    let missing = tmp.path().join("missing.toml");
    let stderr = bad_input(&missing, &out);
    assert!(stderr.contains("missing.toml"), "{stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");

    // A folder of another tournament is left alone.
    let config = write_config(tmp.path(), "tiny.toml", TINY);
    tournament_ok(&config, &out, &[]);
    let log = fs::read_to_string(out.join("games.jsonl")).unwrap();
    let changed = write_config(
        tmp.path(),
        "tiny.toml",
        &TINY.replace("seed = 11", "seed = 12"),
    );
    let stderr = bad_input(&changed, &out);
    assert!(stderr.contains("different tournament"), "{stderr}");
    assert!(
        stderr.contains("(`seed` differs: was 11, now 12)"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(out.join("games.jsonl")).unwrap(), log);
    // --resume into an empty folder is an error too.
    let output = tournament(&config, &tmp.path().join("nothing"), &["--resume"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
}

#[test]
fn a_gauntlet_plays_only_the_champions_pairs() {
    let tmp = TempDir::new().unwrap();
    let body = TINY.replace(
        "seed = 11",
        "seed = 11\nformat = \"gauntlet\"\nchampion = \"greedy\"",
    ) + "\n[[agents]]\nname = \"mm1\"\nspec = \"minimax:depth=1\"\n";
    let config = write_config(tmp.path(), "gauntlet.toml", &body);
    let out = tmp.path().join("out");
    tournament_ok(&config, &out, &[]);
    // 3 challengers x 6 games.
    assert_complete(&out, 18);
    let records = read_jsonl(&out);
    let mut per_opponent: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        let players = [
            r["players"][0].as_str().unwrap(),
            r["players"][1].as_str().unwrap(),
        ];
        assert!(players.contains(&"greedy"), "{r}");
        let other = if players[0] == "greedy" {
            players[1]
        } else {
            players[0]
        };
        assert_ne!(other, "greedy");
        *per_opponent.entry(other.to_string()).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = ["random", "mm2", "mm1"]
        .into_iter()
        .map(|n| (n.to_string(), 6))
        .collect();
    assert_eq!(per_opponent, expected);
    let s = read_json(&out.join("summary.json"));
    let cross = &s["crosstable"];
    // greedy is agent 1; challengers never meet.
    for (i, j) in [(0, 2), (0, 3), (2, 3)] {
        assert!(cross[i][j].is_null() && cross[j][i].is_null(), "{i} vs {j}");
    }
    assert_eq!(cross[1][0]["games"], 6);
    assert_eq!(s["first_player"]["per_pair"].as_array().unwrap().len(), 3);
}

#[test]
fn match_json_adds_up_and_ignores_threads() {
    let run = |threads: &str| {
        let output = command()
            .args(["match", "random", "greedy", "--games", "20", "--json"])
            .args(["--threads", threads])
            .output()
            .expect("run mancala match");
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let one = run("1");
    let v: Value = serde_json::from_str(one.trim()).unwrap_or_else(|e| panic!("{e}: {one}"));
    assert_eq!(v["games"], 20);
    let sum = |key: &str| -> u64 {
        let a = v[key].as_array().unwrap();
        assert_eq!(a.len(), 3, "{key}: {v}");
        a.iter().map(|x| x.as_u64().unwrap()).sum()
    };
    assert_eq!(sum("a_wdl"), 20);
    assert_eq!(sum("first_player_wdl"), 20);
    assert_eq!(v["a"], "random");
    assert_eq!(v["b"], "greedy");
    assert_eq!(run("2"), one);
}

#[test]
fn replay_from_a_results_folder_shows_what_each_move_searched() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "tiny.toml", TINY);
    let out = tmp.path().join("out");
    let run = tournament(&config, &out, &["--threads", "2"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let records = read_jsonl(&out);
    let game = records
        .iter()
        .find(|r| r["players"].as_array().unwrap().iter().any(|p| p == "mm2"))
        .unwrap();
    let id = game["id"].as_u64().unwrap().to_string();
    let dir = out.to_str().unwrap();

    // JSON: one line per move with its record's time and search, then the end.
    let json = crate::util::ok(&["replay", "--from", dir, "--id", &id, "--json"]);
    let lines: Vec<Value> = text(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let plies = game["plies"].as_u64().unwrap() as usize;
    assert_eq!(lines.len(), plies + 1);
    let notes = game["search"].as_array().unwrap();
    assert!(!notes.is_empty(), "{game}");
    let opening = game["opening_moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .count();
    for (k, line) in lines[..plies].iter().enumerate() {
        let ply = k + 1;
        assert_eq!(line["ply"], ply);
        assert_eq!(line["move_us"].is_u64(), ply > opening, "{line}");
        let note = notes.iter().find(|n| n["ply"] == ply);
        assert_eq!(line.get("search"), note, "{line}");
        if note.is_some() {
            assert_eq!(line["player"], "mm2", "{line}");
        }
    }
    assert_eq!(lines[plies]["final_scores"], game["scores"]);

    // Text: the players, and the notes under the moves mm2 searched.
    let shown = text(&crate::util::ok(&["replay", "--from", dir, "--id", &id]).stdout);
    assert!(
        shown.starts_with(&format!("game {id} of kalah: ")),
        "{shown}"
    );
    let note = &notes[0];
    let depth = format!("depth {}", note["depth"]);
    let nodes = format!("{} nodes", note["nodes"]);
    assert!(shown.contains("(mm2) plays"), "{shown}");
    assert!(shown.contains(&depth) && shown.contains(&nodes), "{shown}");
    assert!(
        shown.contains(&format!("line {}", note["pv"].as_str().unwrap())),
        "{shown}"
    );

    // A game that is not there, and a folder without a log.
    let missing = crate::util::refused(&crate::util::mancala(&[
        "replay", "--from", dir, "--id", "999",
    ]));
    assert!(
        missing.contains(&format!(
            "has no game 999 (its ids run from 0 to {})",
            TINY_GAMES - 1
        )),
        "{missing}"
    );
    let empty = tmp.path().to_str().unwrap();
    let missing = crate::util::refused(&crate::util::mancala(&[
        "replay", "--from", empty, "--id", "1",
    ]));
    assert!(
        missing.contains("holds no games.jsonl")
            && missing.contains("a tournament, merge or match wrote"),
        "{missing}"
    );
    // --from wants --id, and no moves beside it.
    crate::util::refused(&crate::util::mancala(&["replay", "--from", dir]));
    crate::util::refused(&crate::util::mancala(&[
        "replay", "--from", dir, "--id", "1", "--moves", "3",
    ]));
}

/// The interim tables of a run's standard error: for each, the number of
/// games it follows and the games column of its rows.
fn interim_tables(stderr: &str) -> Vec<(u64, Vec<u64>)> {
    let mut tables: Vec<(u64, Vec<u64>)> = Vec::new();
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("standings after ") {
            let n = rest.split_whitespace().next().unwrap().parse().unwrap();
            tables.push((n, Vec::new()));
        } else if let Some((_, rows)) = tables.last_mut() {
            let words: Vec<&str> = line.split_whitespace().collect();
            // rank, agent, elo, [lo, hi], games, score, W-D-L
            if words.len() == 8 && words[0].parse::<u64>().is_ok() {
                rows.push(words[5].parse().unwrap());
            }
        }
    }
    tables
}

#[test]
fn interim_standings_are_printed_every_n_games_and_change_no_file() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "tiny.toml", TINY);
    let plain = tmp.path().join("plain");
    let interim = tmp.path().join("interim");
    tournament_ok(&config, &plain, &["--threads", "2"]);
    let o = tournament_ok(
        &config,
        &interim,
        &["--threads", "2", "--rating-interval", "4"],
    );
    let tables = interim_tables(&text(&o.stderr));
    // After 4, 8, 12 and 16 of the 18 games; the final standings follow
    // on standard output as always.
    let after: Vec<u64> = tables.iter().map(|(n, _)| *n).collect();
    assert_eq!(after, [4, 8, 12, 16], "{}", text(&o.stderr));
    for (n, games) in &tables {
        assert_eq!(games.len(), 3, "every agent has a row");
        assert_eq!(
            games.iter().sum::<u64>(),
            2 * n,
            "each game counts for two agents"
        );
    }
    assert_same_games(&plain, &interim);
    for file in ["summary.json", "ratings.csv"] {
        assert_eq!(
            fs::read_to_string(plain.join(file)).unwrap(),
            fs::read_to_string(interim.join(file)).unwrap(),
            "{file} differs"
        );
    }
    // The config's key; the flag, had it been given, would win.
    let keyed = write_config(
        tmp.path(),
        "keyed.toml",
        &TINY.replacen("seed = ", "rating_interval = 6\nseed = ", 1),
    );
    let o = tournament_ok(&keyed, &tmp.path().join("keyed"), &[]);
    let after: Vec<u64> = interim_tables(&text(&o.stderr))
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(after, [6, 12], "{}", text(&o.stderr));
    // Zero is refused, by name.
    let zero = write_config(
        tmp.path(),
        "zero.toml",
        &TINY.replacen("seed = ", "rating_interval = 0\nseed = ", 1),
    );
    let e = bad_input(&zero, &tmp.path().join("zero"));
    assert!(e.contains("rating_interval"), "{e}");
}
