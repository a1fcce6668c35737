//! The learned evaluation end to end: exact labels, a held-out yardstick's
//! games left out, a value network trained on the rest, and
//! `minimax:eval=net:PATH` playing with it.

use std::fs;

use tempfile::TempDir;

use crate::util::{mancala, ok, path, refused, stderr, stdout};

const GAME: &str = "kalah:pits=4,seeds=3";

#[test]
fn a_value_network_is_trained_on_labels_without_the_yardsticks_games_and_plays() {
    let tmp = TempDir::new().unwrap();
    let labels = tmp.path().join("labels");
    ok(&[
        "analyze",
        "labels",
        "--game",
        GAME,
        "--games",
        "40",
        "--nodes",
        "5000",
        "--db-seeds",
        "6",
        "--threads",
        "2",
        "--quiet",
        "--out",
        path(&labels),
    ]);
    // The yardstick's games, played again without solving anything.
    let held_out = tmp.path().join("held-out.txt");
    let o = ok(&[
        "analyze",
        "exact-positions",
        "--game",
        GAME,
        "--count",
        "10",
        "--seed",
        "99",
        "--held-out",
        path(&held_out),
        "--games-only",
        "--quiet",
    ]);
    assert!(
        stderr(&o).contains("positions of 10 games"),
        "{}",
        stderr(&o)
    );
    let listed: Vec<String> = fs::read_to_string(&held_out)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert!(listed.len() > 50, "{} positions", listed.len());
    assert!(
        listed.contains(&"3,3,3,3/3,3,3,3/0,0/0".to_string()),
        "the start is in every game"
    );

    let net = tmp.path().join("net.safetensors");
    let o = ok(&[
        "train-eval",
        "--labels",
        path(&labels),
        "--exclude",
        path(&held_out),
        "--hidden",
        "16",
        "--epochs",
        "30",
        "--validation-every",
        "5",
        "--out",
        path(&net),
    ]);
    let err = stderr(&o);
    assert!(err.contains("epoch  30: train"), "{err}");
    // Every yardstick position met in the labels was left out.
    let left_out: u64 = err
        .split(" left out as listed")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of positions left out: {err}"));
    assert!(left_out > 0, "{err}");
    assert!(
        stdout(&o).contains("16 multiply") || stdout(&o).contains("-> 16 -> 1"),
        "{}",
        stdout(&o)
    );
    let log = fs::read_to_string(net.with_extension("csv")).unwrap();
    assert_eq!(log.lines().count(), 31, "{log}");
    assert!(log.starts_with("epoch,train_rmse,validation_rmse"), "{log}");

    // The network plays: a match at a fixed depth, twice the same.
    let spec = format!("minimax:depth=3,eval=net:{}", path(&net));
    let play = || {
        stdout(&ok(&[
            "match",
            &spec,
            "minimax:depth=3",
            "--game",
            GAME,
            "--games",
            "4",
            "--seed",
            "3",
            "--json",
        ]))
    };
    let first = play();
    assert!(first.contains("\"games\""), "{first}");
    assert_eq!(first, play());

    // On another board it is refused before any game.
    let o = mancala(&["match", &spec, "random", "--game", "kalah", "--games", "2"]);
    let e = refused(&o);
    assert!(e.contains("the network is for kalah (4 pits a row"), "{e}");
    // A file that is not a network is refused naming what is wrong.
    let bad = tmp.path().join("bad.safetensors");
    fs::write(&bad, b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ").unwrap();
    let o = mancala(&[
        "match",
        &format!("minimax:eval=net:{}", path(&bad)),
        "random",
        "--game",
        GAME,
    ]);
    let e = refused(&o);
    assert!(e.contains("metadata `format`: missing"), "{e}");
    // Bad arguments are refused before any work.
    let none = tmp.path().join("none.safetensors");
    for (flag, value, why) in [
        ("--hidden", "0", "widths from 1"),
        ("--lr", "0", "a step size above 0"),
        ("--labels", "/nonexistent", "labels.json"),
    ] {
        let mut args = vec![
            "train-eval",
            "--labels",
            path(&labels),
            "--out",
            path(&none),
        ];
        if flag == "--labels" {
            args[2] = value;
        } else {
            args.extend([flag, value]);
        }
        let o = mancala(&args);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{flag} {value}: {}", stderr(&o));
    }
    assert!(!none.exists());
}
