//! End-to-end tests of sharded tournaments: `mancala tournament --shard
//! K/N` in several concurrent processes, and `mancala merge`, whose folder
//! must be the one a single run of the same config writes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use mancala_core::{with_game, Game, GameSpec, Move};
use serde_json::Value;
use tempfile::TempDir;

use crate::util::{
    command, read_json, refused, show, succeeded, text, tournament, tournament_cmd, write_config,
};

/// Three agents on a small board, twelve games a pair: 36 games, rated
/// with an anchor (which a merge must carry over from the shards).
const CONFIG: &str = r#"
name = "sharded"
game = "kalah:pits=4,seeds=3"
games_per_pair = 12
seed = 21

[openings]
plies = 2

[ratings]
anchor = "random"

[[agents]]
spec = "random"

[[agents]]
spec = "greedy"

[[agents]]
name = "mm2"
spec = "minimax:depth=2"
"#;
const GAMES: u64 = 36;

fn merge(dirs: &[&Path], out: &Path, extra: &[&str]) -> Output {
    command()
        .arg("merge")
        .args(dirs)
        .arg("--output")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// Runs shards 1..=n of `config` as n processes at once, into
/// `root/shard-K`, and returns the folders.
fn run_shards_concurrently(config: &Path, root: &Path, n: u64) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = (1..=n).map(|k| root.join(format!("shard-{k}"))).collect();
    let children: Vec<_> = dirs
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            tournament_cmd(config, dir, &["--shard", &format!("{}/{n}", i + 1)])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        succeeded(child.wait_with_output().unwrap());
    }
    dirs
}

/// games.jsonl without its timings, one value per line.
fn games(dir: &Path) -> Vec<Value> {
    fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            assert!(o.remove("duration_ms").is_some_and(|d| d.is_number()));
            o.remove("move_us");
            o.remove("clock_ms");
            v
        })
        .collect()
}

fn ids(dir: &Path) -> Vec<u64> {
    games(dir)
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect()
}

/// games.csv without the duration column (the csv crate quotes nothing
/// in these games, so a plain split is exact).
fn csv_without_durations(dir: &Path) -> Vec<String> {
    let content = fs::read_to_string(dir.join("games.csv")).unwrap();
    let mut lines = content.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "duration_ms").unwrap();
    std::iter::once(header.join(","))
        .chain(lines.map(|l| {
            let mut fields: Vec<&str> = l.split(',').collect();
            assert_eq!(fields.len(), header.len(), "{l}");
            fields.remove(col);
            fields.join(",")
        }))
        .collect()
}

/// Asserts that `merged` is the folder a single run wrote in `whole`:
/// every file byte for byte, the durations of games aside.
fn assert_same_tournament(whole: &Path, merged: &Path) {
    let (a, b) = (games(whole), games(merged));
    assert_eq!(a.len(), b.len(), "games.jsonl lengths");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "games.jsonl differs");
    }
    assert_eq!(csv_without_durations(whole), csv_without_durations(merged));
    for file in ["summary.json", "ratings.csv", "tournament.json"] {
        assert_eq!(
            fs::read_to_string(whole.join(file)).unwrap(),
            fs::read_to_string(merged.join(file)).unwrap(),
            "{file} differs"
        );
    }
}

/// The config in a temporary folder, and its single-machine run.
fn setup() -> (TempDir, PathBuf, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "sharded.toml", CONFIG);
    let whole = tmp.path().join("whole");
    succeeded(tournament(&config, &whole, &[]));
    assert_eq!(ids(&whole), (0..GAMES).collect::<Vec<_>>());
    (tmp, config, whole)
}

#[test]
fn three_concurrent_shards_merge_into_the_unsharded_run() {
    let (tmp, config, whole) = setup();
    let dirs = run_shards_concurrently(&config, &tmp.path().join("shards"), 3);

    // Each folder holds one contiguous block of games and says which.
    let mut start = 0;
    for (k, dir) in dirs.iter().enumerate() {
        let block = ids(dir);
        assert_eq!(block.len(), 12, "{}", dir.display());
        assert_eq!(block, (start..start + 12).collect::<Vec<_>>());
        start += 12;
        let label = read_json(&dir.join("tournament.json"));
        assert_eq!(
            label["shard"],
            serde_json::json!({"index": k + 1, "count": 3, "ratings_anchor": "random"})
        );
        let mut rest = label.clone();
        rest.as_object_mut().unwrap().remove("shard");
        assert_eq!(rest, read_json(&whole.join("tournament.json")));
        // No ratings from a third of the games.
        assert!(!dir.join("summary.json").exists() && !dir.join("ratings.csv").exists());
    }

    let merged = tmp.path().join("merged");
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).rev().collect();
    let output = succeeded(merge(&refs, &merged, &[]));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("36 games, ratings anchored on random"),
        "{stdout}"
    );
    assert_same_tournament(&whole, &merged);

    // A merged folder is an ordinary tournament folder: a rerun of the
    // config there finds every game played and writes the same results.
    succeeded(tournament(&config, &merged, &[]));
    assert_same_tournament(&whole, &merged);
    // Merging again into it changes nothing either.
    succeeded(merge(&refs, &merged, &[]));
    assert_same_tournament(&whole, &merged);
}

#[test]
fn merging_shards_of_different_tournaments_is_refused() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "a.toml", CONFIG);
    let other = write_config(
        tmp.path(),
        "b.toml",
        &CONFIG.replace("seed = 21", "seed = 22"),
    );
    let a1 = tmp.path().join("a1");
    let b2 = tmp.path().join("b2");
    let a2_of_4 = tmp.path().join("a2-of-4");
    succeeded(tournament(&config, &a1, &["--shard", "1/2"]));
    succeeded(tournament(&other, &b2, &["--shard", "2/2"]));
    succeeded(tournament(&config, &a2_of_4, &["--shard", "2/4"]));
    let out = tmp.path().join("merged");

    let e = refused(&merge(&[&a1, &b2], &out, &[]));
    assert!(
        e.contains("b2 is a shard of a different tournament than")
            && e.contains("`seed` differs: was 21, now 22"),
        "{e}"
    );
    let e = refused(&merge(&[&a1, &a2_of_4], &out, &[]));
    assert!(
        e.contains("is shard 2/4 but") && e.contains("is shard 1/2"),
        "{e}"
    );
    // A whole tournament's folder is not a shard.
    let whole = tmp.path().join("whole");
    succeeded(tournament(&config, &whole, &[]));
    let e = refused(&merge(&[&a1, &whole], &out, &[]));
    assert!(e.contains("not a shard"), "{e}");
    assert!(!out.exists(), "a refused merge leaves no folder");
}

#[test]
fn missing_shards_and_games_are_reported_and_a_partial_merge_can_be_finished() {
    let (tmp, config, whole) = setup();
    let dirs = run_shards_concurrently(&config, &tmp.path().join("shards"), 3);
    let out = tmp.path().join("merged");

    // Shard 3 never ran.
    let e = refused(&merge(&[&dirs[0], &dirs[1]], &out, &[]));
    assert!(
        e.contains("12 of 36 games are missing:\n  shard 3/3 (games 24-35): no folder was given"),
        "{e}"
    );
    assert!(!out.exists(), "a refused merge leaves no folder");

    // Shard 2 (games 12-23) stopped before its last three games.
    let log = dirs[1].join("games.jsonl");
    let lines: Vec<String> = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    fs::write(&log, lines[..9].join("\n") + "\n").unwrap();
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let e = refused(&merge(&refs, &out, &[]));
    assert!(
        e.contains(
            "3 of 36 games are missing:\n  shard 2/3 (games 12-23): 3 of its 12 games are not in"
        ) && e.contains("21-23"),
        "{e}"
    );

    // --allow-partial writes the games there are, and no ratings; the
    // config, run on that folder, plays the missing games.
    let output = succeeded(merge(&refs, &out, &["--allow-partial"]));
    assert!(
        text(&output.stderr).contains("partial merge"),
        "{}",
        show(&output)
    );
    assert_eq!(ids(&out).len(), 33);
    assert!(!out.join("summary.json").exists());
    succeeded(tournament(&config, &out, &[]));
    assert_same_tournament(&whole, &out);

    // Rerunning the stopped shard instead finishes it; then the merge is whole.
    succeeded(tournament(&config, &dirs[1], &["--shard", "2/3"]));
    assert_eq!(ids(&dirs[1]), (12..24).collect::<Vec<_>>());
    let again = tmp.path().join("again");
    succeeded(merge(&refs, &again, &[]));
    assert_same_tournament(&whole, &again);
}

/// A valid record of `game` that differs from it: the same game lost on
/// time by the player to move after the opening and one more move, as a
/// slow machine with a move timeout could have recorded it.
fn forfeited_on_time(game: &Value) -> Value {
    let spec: GameSpec = game["game"].as_str().unwrap().parse().unwrap();
    let moves: Vec<&str> = game["moves"].as_str().unwrap().split(' ').collect();
    let played = &moves[..3];
    let (scores, mover) = with_game!(&spec, g => {
        let mut state = g.start();
        for m in played {
            g.try_play(&mut state, m.parse::<Move>().unwrap()).unwrap();
        }
        (g.scores(&state).0, g.to_move(&state).expect("not over").index())
    });
    let mut forfeit = game.clone();
    forfeit["moves"] = played.join(" ").into();
    forfeit["plies"] = 3.into();
    forfeit["scores"] = serde_json::json!(scores);
    forfeit["margin"] = (i64::from(scores[0]) - i64::from(scores[1])).into();
    forfeit["winner"] = (1 - mover).into();
    forfeit["end"] = "forfeit".into();
    forfeit["error"] =
        format!("seat {mover}: timeout: move 4 took 12 ms, the limit is 10 ms").into();
    forfeit["duration_ms"] = 20.5.into();
    // The move-by-move records end where the moves do.
    let opening = game["opening_moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .count();
    let times = game["move_us"].as_array().unwrap();
    forfeit["move_us"] = times[..3 - opening].to_vec().into();
    let notes: Vec<Value> = game["search"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|n| n["ply"].as_u64().unwrap() <= 3)
        .cloned()
        .collect();
    forfeit["search"] = notes.into();
    forfeit
}

#[test]
fn a_duplicate_shard_folder_is_reported_and_must_agree() {
    let (tmp, config, whole) = setup();
    let dirs = run_shards_concurrently(&config, &tmp.path().join("shards"), 3);
    // A copy of shard 1 (a task that ran twice), with its own durations.
    let copy = tmp.path().join("copy-of-1");
    fs::create_dir(&copy).unwrap();
    for file in ["tournament.json", "games.csv"] {
        fs::copy(dirs[0].join(file), copy.join(file)).unwrap();
    }
    let copied: Vec<String> = fs::read_to_string(dirs[0].join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["duration_ms"] = 1234.5.into();
            v.to_string()
        })
        .collect();
    fs::write(copy.join("games.jsonl"), copied.join("\n") + "\n").unwrap();

    let out = tmp.path().join("merged");
    let refs = [&dirs[0], &dirs[1], &dirs[2], &copy, &dirs[1]].map(PathBuf::as_path);
    let output = succeeded(merge(&refs, &out, &[]));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{} was given twice", dirs[1].display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "shard 1/3 is in 2 folders: {}, {}",
            dirs[0].display(),
            copy.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "12 games were found more than once, the same each time, and kept once: 0-11"
        ),
        "{stderr}"
    );
    assert_same_tournament(&whole, &out);
    // The first folder's copy is kept, durations included.
    let first: Value = serde_json::from_str(
        fs::read_to_string(dirs[0].join("games.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let kept: Value = serde_json::from_str(
        fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first, kept);

    // The copy now says game 5 was lost on time: both are valid games, so
    // the merge cannot choose, and says which game and folders.
    let mut changed: Vec<Value> = copied
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    changed[5] = forfeited_on_time(&changed[5]);
    let lines: Vec<String> = changed.iter().map(Value::to_string).collect();
    fs::write(copy.join("games.jsonl"), lines.join("\n") + "\n").unwrap();
    let out2 = tmp.path().join("merged2");
    let e = refused(&merge(&[&dirs[0], &copy, &dirs[1], &dirs[2]], &out2, &[]));
    assert!(
        e.contains("1 game differ between folders")
            && e.contains(&format!(
                "game 5: {} and {}: `",
                dirs[0].display(),
                copy.display()
            )),
        "{e}"
    );
    assert!(!out2.exists());
}

#[test]
fn bad_shards_are_refused_with_exit_2() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "c.toml", CONFIG);
    let out = tmp.path().join("out");
    for (shard, says) in [
        ("0/3", "shard 0/3 does not exist"),
        ("4/3", "shard 4/3 does not exist"),
        ("1/0", "shard 1/0 does not exist"),
        ("three", "'three' is not a shard: write K/N"),
        ("1/3/5", "not a shard"),
        ("", "not a shard"),
        ("auto", "--shard auto: neither SLURM_ARRAY_TASK_ID"),
    ] {
        let e = refused(&tournament(&config, &out, &["--shard", shard]));
        assert!(e.contains(says), "--shard {shard:?}: {e}");
        assert!(!out.exists(), "--shard {shard:?} created the folder");
    }
    // A Kubernetes pod without the shard count.
    let e = refused(
        &tournament_cmd(&config, &out, &["--shard", "auto"])
            .env("JOB_COMPLETION_INDEX", "0")
            .output()
            .unwrap(),
    );
    assert!(e.contains("MANCALA_SHARD_COUNT is not set"), "{e}");
    // A Slurm array that is not a range.
    let e = refused(
        &tournament_cmd(&config, &out, &["--shard", "auto"])
            .envs([
                ("SLURM_ARRAY_TASK_ID", "5"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "5"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ])
            .output()
            .unwrap(),
    );
    assert!(e.contains("evenly spaced"), "{e}");
    let e = refused(&merge(&[], &out, &[]));
    assert!(e.contains("DIR"), "{e}");
}

#[test]
fn shards_are_found_from_the_schedulers_environment() {
    let (tmp, config, whole) = setup();
    // A Slurm array submitted as --array=5-7: task 5 is shard 1.
    let slurm: Vec<PathBuf> = (5..=7)
        .map(|task| {
            let dir = tmp.path().join(format!("slurm-{task}"));
            succeeded(
                tournament_cmd(&config, &dir, &["--shard", "auto"])
                    .envs([
                        ("SLURM_JOB_ID", "100"),
                        ("SLURM_ARRAY_TASK_ID", &task.to_string()),
                        ("SLURM_ARRAY_TASK_MIN", "5"),
                        ("SLURM_ARRAY_TASK_MAX", "7"),
                        ("SLURM_ARRAY_TASK_COUNT", "3"),
                    ])
                    .output()
                    .unwrap(),
            );
            let label = read_json(&dir.join("tournament.json"));
            assert_eq!(label["shard"]["index"], task - 4, "task {task}");
            assert_eq!(label["shard"]["count"], 3);
            dir
        })
        .collect();
    let out = tmp.path().join("from-slurm");
    let refs: Vec<&Path> = slurm.iter().map(PathBuf::as_path).collect();
    succeeded(merge(&refs, &out, &[]));
    assert_same_tournament(&whole, &out);

    // A Kubernetes Indexed Job of two completions: indices 0 and 1.
    let k8s: Vec<PathBuf> = (0..2)
        .map(|index| {
            let dir = tmp.path().join(format!("k8s-{index}"));
            succeeded(
                tournament_cmd(&config, &dir, &["--shard", "auto"])
                    .envs([
                        ("JOB_COMPLETION_INDEX", index.to_string()),
                        ("MANCALA_SHARD_COUNT", "2".to_string()),
                    ])
                    .output()
                    .unwrap(),
            );
            assert_eq!(
                read_json(&dir.join("tournament.json"))["shard"]["index"],
                index + 1
            );
            dir
        })
        .collect();
    assert_eq!(ids(&k8s[1]), (18..36).collect::<Vec<_>>());
    let out = tmp.path().join("from-k8s");
    succeeded(merge(&[&k8s[0], &k8s[1]], &out, &[]));
    assert_same_tournament(&whole, &out);

    // Without --shard, an array task plays everything, and says so.
    let dir = tmp.path().join("no-flag");
    let output = succeeded(
        tournament_cmd(&config, &dir, &[])
            .env("SLURM_ARRAY_TASK_ID", "1")
            .output()
            .unwrap(),
    );
    assert!(
        text(&output.stderr).contains("SLURM_ARRAY_TASK_ID is set but --shard is not"),
        "{}",
        show(&output)
    );
    assert_eq!(ids(&dir).len() as u64, GAMES);
}

#[test]
fn a_shard_folder_resumes_only_as_the_same_shard() {
    let (tmp, config, _whole) = setup();
    let dir = tmp.path().join("shard-2");
    succeeded(tournament(&config, &dir, &["--shard", "2/3"]));
    let complete = games(&dir);
    // Cut the log as a killed run leaves it: the rerun plays what is missing.
    let log = dir.join("games.jsonl");
    let content = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = content.lines().collect();
    fs::write(&log, lines[..5].join("\n") + "\n" + &lines[5][..20]).unwrap();
    succeeded(tournament(&config, &dir, &["--shard", "2/3"]));
    assert_eq!(games(&dir), complete);

    let e = refused(&tournament(&config, &dir, &["--shard", "1/3"]));
    assert!(
        e.contains("holds shard 2/3 of this tournament, not shard 1/3"),
        "{e}"
    );
    let e = refused(&tournament(&config, &dir, &["--shard", "2/4"]));
    assert!(e.contains("not shard 2/4"), "{e}");
    let e = refused(&tournament(&config, &dir, &[]));
    assert!(e.contains("continue it with --shard 2/3"), "{e}");
    let e = refused(&tournament(
        &config,
        &tmp.path().join("whole"),
        &["--shard", "2/3"],
    ));
    assert!(e.contains("run whole, not as shards"), "{e}");
    // A game of another shard in the log is refused with its line.
    let foreign = fs::read_to_string(tmp.path().join("whole/games.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    fs::write(&log, format!("{foreign}\n{content}")).unwrap();
    let e = refused(&tournament(&config, &dir, &["--shard", "2/3"]));
    assert!(
        e.contains("line 1: game 0 belongs to shard 1/3, not to this folder's shard 2/3"),
        "{e}"
    );
    // The default folder of a shard is the tournament's, with the shard added.
    let default_config = write_config(
        tmp.path(),
        "default.toml",
        &CONFIG.replace(
            "seed = 21",
            &format!(
                "seed = 21\noutput = {:?}",
                tmp.path().join("results/sharded").display().to_string()
            ),
        ),
    );
    succeeded(
        command()
            .args(["tournament", "--quiet", "--shard", "3/3"])
            .arg(&default_config)
            .output()
            .unwrap(),
    );
    assert_eq!(
        ids(&tmp.path().join("results/sharded-shard-3-of-3")),
        (24..36).collect::<Vec<_>>()
    );
}

#[test]
fn a_tampered_shard_is_refused_with_a_hint_that_names_the_tournament_command() {
    let tmp = TempDir::new().unwrap();
    let config = write_config(tmp.path(), "sharded.toml", CONFIG);
    let dirs = run_shards_concurrently(&config, &tmp.path().join("shards"), 2);
    // The winner of shard 2's second game flipped by hand.
    let log = dirs[1].join("games.jsonl");
    let mut lines: Vec<String> = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut record: Value = serde_json::from_str(&lines[1]).unwrap();
    let winner = record["winner"].as_u64().map_or(0, |w| 1 - w);
    record["winner"] = winner.into();
    lines[1] = record.to_string();
    fs::write(&log, lines.join("\n") + "\n").unwrap();
    let out = tmp.path().join("merged");
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let e = refused(&merge(&refs, &out, &[]));
    assert!(e.contains("games.jsonl, line 2"), "{e}");
    // `--fresh` is the tournament's option, not merge's: the hint says
    // which command, shard and folder it goes with.
    let shard = dirs[1].display();
    assert!(
        e.contains(&format!(
            "mancala tournament CONFIG --shard 2/2 --output {shard} --fresh"
        )),
        "{e}"
    );
    assert!(!e.contains("start over with --fresh"), "{e}");
    assert!(!out.exists(), "a refused merge leaves no folder");
}
