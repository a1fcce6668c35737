//! End-to-end tests of `replay`, `perft`, `show`, `bench`, and `solve` on
//! Congkak.

use crate::util::{mancala, ok, stderr, stdout};

#[test]
fn replay_json_prints_each_move_and_the_result() {
    // Kalah(3,1): 3 is an extra turn (last seed in the store), then 2; player
    // 1's 3 is an extra turn too, and its 2 captures and empties its row.
    let o = mancala(&[
        "replay",
        "--game",
        "kalah:pits=3,seeds=1",
        "--moves",
        "3 2 3 2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 5, "{}", stdout(&o));
    assert_eq!(lines[0]["ply"], 1);
    assert_eq!(lines[0]["mover"], 0);
    assert_eq!(lines[0]["pit"], 3);
    assert_eq!(
        lines[0]["board"],
        serde_json::json!([1, 1, 0, 1, 1, 1, 1, 0])
    );
    assert_eq!(lines[0]["to_move"], 0);
    assert_eq!(lines[0]["legal"], serde_json::json!([1, 2]));
    assert_eq!(lines[1]["to_move"], 1);
    assert_eq!(lines[1]["legal"], serde_json::json!([2, 3]));
    assert_eq!(
        lines[2]["board"],
        serde_json::json!([1, 0, 0, 0, 1, 0, 3, 1])
    );
    assert_eq!(lines[2]["to_move"], 1);
    assert_eq!(lines[3]["mover"], 1);
    assert_eq!(lines[3]["to_move"], serde_json::Value::Null);
    assert_eq!(lines[3]["legal"], serde_json::json!([]));
    let last = &lines[4];
    let scores = last["final_scores"].as_array().unwrap();
    assert_eq!(scores.iter().map(|s| s.as_u64().unwrap()).sum::<u64>(), 6);
    assert!(last.get("winner").is_some());
}

#[test]
fn an_illegal_move_stops_replay_with_exit_code_2() {
    let o = mancala(&["replay", "--game", "kalah", "--moves", "3 3"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("move 2")
            && e.contains("illegal move 3")
            && e.contains("legal moves are 1 2 4 5 6"),
        "{e}"
    );
    let o = mancala(&["replay", "--game", "kalah", "--moves", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
    let o = mancala(&["replay", "--game", "kalah:pits=4,seed=3", "--moves", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'seed'"), "{}", stderr(&o));
}

#[test]
fn perft_prints_the_counts_per_depth() {
    let o = mancala(&["perft", "--game", "kalah", "--depth", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let counts: Vec<u64> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(counts, vec![6, 35, 185, 942]);
    let o = mancala(&[
        "perft",
        "--game",
        "oware",
        "--depth",
        "2",
        "--position",
        "4,4,4,4,4,4/4,4,4,4,4,4/0,0/1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn show_draws_a_position_and_rejects_a_bad_one() {
    let o = mancala(&[
        "show",
        "--game",
        "kalah:pie=true",
        "--position",
        "4,4,0,5,5,5/4,4,4,4,4,4/1,0/1s",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("may swap") && out.contains("legal moves: 1 2 3 4 5 6 swap"),
        "{out}"
    );
    let o = mancala(&[
        "show",
        "--game",
        "kalah",
        "--position",
        "4,4,4,4,4,4/4,4,4,4,4,4/1,0/0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("49 seeds"), "{}", stderr(&o));
}

#[test]
fn congkak_replays_perfts_and_shows_with_burnt_holes_and_rounds() {
    // Multi-round Congkak(3,2): player 0's last seed goes to the store and
    // ends round 1, 5 to 7; player 0 refills holes 3 and 2, hole 1 is burnt,
    // and begins round 2 (as the loser).
    let o = mancala(&[
        "replay",
        "--game",
        "congkak:pits=3,seeds=2,rounds=many",
        "--position",
        "0,0,1/0,0,0/4,7/0",
        "--moves",
        "3 3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert_eq!(
        lines[0]["board"],
        serde_json::json!([0, 2, 2, 2, 2, 2, 1, 1])
    );
    assert_eq!(lines[0]["burnt"], serde_json::json!([[1], []]));
    assert_eq!(lines[0]["round"], 2);
    assert_eq!(lines[0]["round_first"], 0);
    assert_eq!(lines[0]["to_move"], 0);
    assert_eq!(lines[0]["legal"], serde_json::json!([2, 3]));
    // Hole 3's two seeds: the store, P1's hole 1 (held 2): relay of three
    // to P1's holes 2 and 3 and, past store 1 and the burnt hole 1, hole 2
    // (held 2): relay of three to hole 3, the store and P1's emptied hole 1.
    assert_eq!(
        lines[1]["board"],
        serde_json::json!([0, 0, 1, 1, 3, 3, 3, 1])
    );
    assert_eq!(lines[1]["to_move"], 1);
    // A single round has no round fields.
    let o = mancala(&["replay", "--game", "congkak", "--moves", "1", "--json"]);
    let line: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert!(
        line.get("round").is_none() && line.get("burnt").is_none(),
        "{line}"
    );

    let o = mancala(&["perft", "--game", "congkak", "--depth", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let counts: Vec<u64> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(counts, vec![7, 36, 230, 1406, 8295]);

    let o = mancala(&[
        "show",
        "--game",
        "congkak:rounds=many",
        "--position",
        "x,x,7,7,7,7,7/7,7,7,7,7,7,7/3,11/1/r2,0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("|  x  |  x  |  7  |"), "{out}");
    assert!(out.contains("round 2 (begun by player 0)"), "{out}");
    let o = mancala(&[
        "show",
        "--game",
        "congkak",
        "--position",
        "x,x,7,7,7,7,7/7,7,7,7,7,7,7/3,11/1/r2,0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("rounds=many"), "{}", stderr(&o));
}

#[test]
fn bench_prints_both_tables() {
    let o = mancala(&[
        "bench",
        "--seconds",
        "0.05",
        "--game",
        "kalah:pits=4,seeds=3",
        "--game",
        "oware",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("games/s") && out.contains("speedup"), "{out}");
    assert!(out.contains("sims") && out.contains("nodes"), "{out}");
    assert!(
        out.contains("kalah:pits=4,seeds=3") && out.contains("oware"),
        "{out}"
    );
}

/// Congkak's final margin for the mover of `state` with perfect play, by
/// plain minimax over the engine: every line to the end, no table.
fn congkak_minimax(rules: &mancala_core::CongkakRules, state: &mancala_core::CongkakState) -> i32 {
    use mancala_core::Game;
    let mover = rules.to_move(state).expect("a game not over");
    rules
        .legal_moves(state)
        .into_iter()
        .map(|mv| congkak_move_value(rules, state, mv, mover))
        .max()
        .expect("a game not over has moves")
}

/// The final margin for `mover` after `mv` in `state` and perfect play.
fn congkak_move_value(
    rules: &mancala_core::CongkakRules,
    state: &mancala_core::CongkakState,
    mv: mancala_core::Move,
    mover: mancala_core::Player,
) -> i32 {
    use mancala_core::Game;
    let mut child = *state;
    rules.play_unchecked(&mut child, mv);
    match rules.to_move(&child) {
        None => rules.outcome(&child).unwrap().margin_for(mover),
        Some(p) if p == mover => congkak_minimax(rules, &child),
        Some(_) => -congkak_minimax(rules, &child),
    }
}

#[test]
fn solve_congkak_json_agrees_with_plain_minimax() {
    use mancala_core::{Game, GameSpec, Move};
    for (game, position) in [
        ("congkak:pits=3,seeds=2", None),
        ("congkak:pits=3,seeds=2,empty_capture=true", None),
        ("congkak:pits=3,seeds=3,game_end=immediate", None),
        ("congkak:pits=3,seeds=2", Some("0,3,1/2,0,2/3,1/1")),
    ] {
        let GameSpec::Congkak(rules) = game.parse::<GameSpec>().unwrap() else {
            unreachable!()
        };
        let state = match position {
            Some(p) => rules.parse_position(p).unwrap(),
            None => rules.start(),
        };
        let mover = rules.to_move(&state).unwrap();
        let mut results = Vec::new();
        for threads in ["1", "2"] {
            let mut args = vec![
                "solve",
                "--game",
                game,
                "--tt",
                "16",
                "--threads",
                threads,
                "--json",
            ];
            if let Some(p) = position {
                args.extend(["--position", p]);
            }
            let o = mancala(&args);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let solution = v["solution"].clone();
            let value = solution["value"].as_i64().unwrap() as i32;
            assert_eq!(value, congkak_minimax(&rules, &state), "{game}");
            assert_eq!(solution["mover"], mover.index());
            for m in solution["moves"].as_array().unwrap() {
                let mv: Move = m["mv"].as_str().unwrap().parse().unwrap();
                assert_eq!(
                    m["value"].as_i64().unwrap() as i32,
                    congkak_move_value(&rules, &state, mv, mover),
                    "{game} move {mv}"
                );
            }
            // The principal variation ends the game with the value's margin.
            let mut s = state;
            for mv in solution["pv"].as_array().unwrap() {
                let mv: Move = mv.as_str().unwrap().parse().unwrap();
                rules.try_play(&mut s, mv).unwrap();
            }
            assert_eq!(rules.outcome(&s).unwrap().margin_for(mover), value);
            results.push((
                solution["value"].clone(),
                solution["moves"].clone(),
                solution["pv"].clone(),
            ));
        }
        assert_eq!(results[0], results[1], "{game}: 1 and 2 threads");
    }
    // The text report has the same fields as Kalah's.
    let o = mancala(&["solve", "--game", "congkak:pits=3,seeds=2", "--tt", "16"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for field in [
        "value: +",
        "moves: 1:",
        "principal variation:",
        "cost:",
        "table 16 MiB",
    ] {
        assert!(text.contains(field), "{field}: {text}");
    }
}

#[test]
fn solve_refuses_multi_round_congkak_saying_why() {
    let o = mancala(&["solve", "--game", "congkak:pits=3,seeds=2,rounds=many"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("rounds=many") && err.contains("stores"),
        "{err}"
    );
    // Congkak takes a database of any size, as Kalah does, with the same
    // values.
    let solve = |db: &str| {
        let o = ok(&[
            "solve",
            "--game",
            "congkak:pits=3,seeds=2",
            "--db-seeds",
            db,
            "--no-db-cache",
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let s = &v["solution"];
        (
            s["value"].clone(),
            s["pv"].clone(),
            s["stats"]["endgame_seeds"].clone(),
        )
    };
    let (none, with) = (solve("0"), solve("4"));
    assert_eq!((&none.0, &none.1), (&with.0, &with.1));
    assert_eq!((none.2.as_u64(), with.2.as_u64()), (Some(0), Some(4)));
    let o = mancala(&[
        "solve",
        "--game",
        "congkak:pits=3,seeds=2",
        "--position",
        "0,0,0/0,0,0/7,5/-",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
