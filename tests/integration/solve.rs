//! End-to-end tests of `mancala solve` and of `perfect` as an agent.

use serde_json::Value;

use crate::util::{mancala, ok};

#[test]
fn solve_json_gives_the_value_every_move_and_a_line_that_keeps_it() {
    let out = mancala(&[
        "solve",
        "--game",
        "kalah:pits=3,seeds=3",
        "--tt",
        "16",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["solution"];
    assert_eq!(v["game"], "kalah:pits=3,seeds=3");
    assert_eq!(s["value"], 2);
    assert_eq!(s["mover"], 0);
    let moves: Vec<(String, i64)> = s["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mv"].as_str().unwrap().to_string(),
                m["value"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(moves, [("1".into(), 2), ("2".into(), 2), ("3".into(), -4)]);
    // Replaying the principal variation ends the game with that margin.
    assert_eq!(replayed_margin("kalah:pits=3,seeds=3", &s["pv"]), 2);
}

/// Player 0's final margin after replaying `pv` (a JSON list of moves)
/// from the start of `game`.
fn replayed_margin(game: &str, pv: &Value) -> i64 {
    let moves: Vec<&str> = pv
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let replay = mancala(&[
        "replay",
        "--game",
        game,
        "--moves",
        &moves.join(" "),
        "--json",
    ]);
    assert!(replay.status.success());
    let text = String::from_utf8_lossy(&replay.stdout);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let scores = &last["final_scores"];
    scores[0].as_i64().unwrap() - scores[1].as_i64().unwrap()
}

#[test]
fn what_cannot_be_solved_is_the_users_error() {
    for args in [
        &["solve", "--game", "oware"][..],
        &[
            "solve",
            "--game",
            "kalah",
            "--position",
            "0,0,0,0,0,0/0,0,0,0,0,0/24,24/-",
        ],
        &["match", "perfect", "random", "--game", "oware", "-n", "2"],
        &["match", "perfect:time=1s", "random", "-n", "2"],
    ] {
        let out = mancala(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn perfect_play_never_loses_the_won_side_of_a_small_board() {
    // Kalah(3,3) is a first-player win by 2: moving first, perfect wins
    // every game; second, it never loses by more than 2.
    let out = mancala(&[
        "match",
        "perfect",
        "greedy",
        "--game",
        "kalah:pits=3,seeds=3",
        "-n",
        "8",
        "--opening-plies",
        "0",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["forfeits"], 0);
    let score = v["a_score"].as_f64().unwrap();
    assert!(score >= 0.5, "{v}");
}

#[test]
fn solve_oware_json_gives_the_value_every_move_and_a_line_that_keeps_it() {
    let out = mancala(&[
        "solve",
        "--game",
        "oware:pits=3,seeds=2",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["solution"];
    assert_eq!(v["game"], "oware:pits=3,seeds=2");
    assert_eq!(v["position"], "2,2,2/2,2,2/0,0/0");
    assert_eq!(s["value"], 8);
    assert_eq!(s["mover"], 0);
    let moves: Vec<(String, i64)> = s["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mv"].as_str().unwrap().to_string(),
                m["value"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(moves, [("1".into(), -2), ("2".into(), 4), ("3".into(), 8)]);
    assert_eq!(replayed_margin("oware:pits=3,seeds=2", &s["pv"]), 8);
}

#[test]
fn solve_oware_from_a_position_prints_the_kalah_style_report() {
    // Player 1 to move on Oware(2,2) after a capture: a position read from
    // text carries no history, so the game restarts its repetitions there.
    let out = mancala(&[
        "solve",
        "--game",
        "oware:pits=2,seeds=2",
        "--position",
        "3,0/0,3/2,0/1",
        "--threads",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "position 3,0/0,3/2,0/1",
        "value: ",
        "for player 1 (to move)",
        "moves: ",
        "principal variation: ",
        "cost: ",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

#[test]
fn solve_oware_refuses_boards_too_large_saying_what_is_supported() {
    for game in ["oware", "oware:pits=4,seeds=1"] {
        let out = mancala(&["solve", "--game", game]);
        assert_eq!(out.status.code(), Some(2), "{game}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("too large") && err.contains("at most") && err.contains("pits=3,seeds=2"),
            "{err}"
        );
    }
    let out = mancala(&["solve", "--game", "oware:pits=2,seeds=2,max_plies=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_plies"));
}

/// `solve --json` on one thread, the database in memory, `extra` added,
/// with the times (not part of the result) blanked.
fn solve_json(game: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "solve",
        "--game",
        game,
        "--threads",
        "1",
        "--no-db-cache",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = ok(&args);
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["seconds", "endgame_seconds"] {
        v["solution"]["stats"][key] = Value::Null;
    }
    v
}

/// The recorded `solve --json` of `game` (`tests/golden/solve`, searched
/// with `--tt 16` and the default database).
fn recorded(game: &str) -> Value {
    let name = game.replace([':', ','], "_").replace('=', "-");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/solve")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn the_default_table_is_sized_to_the_board_and_tt_still_wins() {
    const MIB: u64 = 1 << 20;
    // Small boards get the 16 MiB floor (Kalah(4,1) took 1 GiB before):
    // the table their recorded solutions were searched with, so the whole
    // result, node counts included, is as recorded.
    for game in [
        "kalah:pits=3,seeds=1",
        "kalah:pits=3,seeds=3,pie=true",
        "kalah:pits=4,seeds=1",
        "kalah:pits=4,seeds=1,empty_capture=true",
    ] {
        let v = solve_json(game, &[]);
        assert_eq!(v["solution"]["stats"]["table_bytes"], 16 * MIB, "{game}");
        assert_eq!(v, recorded(game), "{game}");
    }
    // Larger ones get what their positions can fill (Kalah(3,4): 593,775
    // placements, two 16-byte slots each, rounded up to 32 MiB), and the
    // same search: the bigger table evicts nothing the recorded one kept.
    let game = "kalah:pits=3,seeds=4";
    let v = solve_json(game, &[]);
    let stats = &v["solution"]["stats"];
    assert_eq!(stats["table_bytes"], 32 * MIB);
    let golden = recorded(game);
    assert_eq!(stats["nodes"], golden["solution"]["stats"]["nodes"]);
    assert_eq!(v["solution"]["moves"], golden["solution"]["moves"]);
    // An explicit --tt is used as given, larger than needed or not.
    for tt in ["1", "64"] {
        let v = solve_json("kalah:pits=4,seeds=1", &["--tt", tt]);
        let mib: u64 = tt.parse().unwrap();
        assert_eq!(
            v["solution"]["stats"]["table_bytes"],
            mib * MIB,
            "--tt {tt}"
        );
    }
}

#[test]
fn db_seeds_above_the_boards_seeds_are_capped_at_them() {
    // Kalah(2,1) has 4 seeds: a database of more holds nothing more (as
    // the `perfect` agent's is capped), so --db-seeds 100 builds 4.
    let capped = solve_json("kalah:pits=2,seeds=1", &["--db-seeds", "100"]);
    let stats = &capped["solution"]["stats"];
    assert_eq!(stats["endgame_seeds"], 4, "{capped}");
    assert_eq!(
        stats["endgame_positions"], 70,
        "placements of up to 4 seeds in 4 pits"
    );
    let none = solve_json("kalah:pits=2,seeds=1", &["--db-seeds", "0"]);
    assert_eq!(capped["solution"]["value"], none["solution"]["value"]);
    assert_eq!(capped["solution"]["moves"], none["solution"]["moves"]);
}
