//! End-to-end tests of `mancala play`: the built binary, driven through a pipe.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::util::{command, text};

/// Runs `mancala play ARGS` with `input` on standard input.
fn play(args: &[&str], input: &str) -> Output {
    let mut child = command()
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mancala");
    let mut stdin = child.stdin.take().expect("stdin");
    // The game may end before it has read everything: a broken pipe is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("wait for mancala")
}

/// Many lines of every pit number: the illegal ones are re-prompted, so
/// this plays some legal move at every turn until the game ends.
fn every_pit(pits: usize, rounds: usize) -> String {
    let line: String = (1..=pits).map(|p| format!("{p}\n")).collect();
    line.repeat(rounds)
}

#[test]
fn a_whole_game_with_mistakes_hints_and_undo() {
    // Start 1,1,1/1,1,1: pit 3 ends in the store (extra turn) and is then empty.
    let input = format!("x\n9\nhint\nundo\n3\n3\nundo\nhelp\n{}", every_pit(3, 30));
    let out = play(
        &[
            "--game",
            "kalah:pits=3,seeds=1",
            "--opponent",
            "random",
            "--seed",
            "1",
        ],
        &input,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{out:?}\n{stdout}");
    for expected in [
        "You are player 0 and move first",
        "<- player 0 (you)",
        "<- player 1 (random)",
        "'x' is not a move or a command",
        "there is no pit 9",
        "hint: random suggests",
        "nothing to undo",
        "you play 3: your last seed landed in your store: extra turn",
        "illegal move: pit 3 is empty",
        "took back your move 3",
        "commands:",
        "player 1 (random) plays",
        "game over (",
        "final score player 0 (you) ",
        "result: ",
        "margin ",
        "replay: mancala replay --game kalah:pits=3,seeds=1 --moves",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in\n{stdout}"
        );
    }
    // The mistakes come before the first move is played, and undo restored
    // the starting row.
    let undone = stdout.find("took back your move 3").unwrap();
    assert!(stdout[undone..].contains("|  1  |  1  |  1  |"), "{stdout}");
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

#[test]
fn playing_second_against_minimax_reaches_the_end() {
    let out = play(
        &[
            "--game",
            "kalah:pits=4,seeds=2",
            "--opponent",
            "minimax:depth=4",
            "--second",
            "--seed",
            "7",
        ],
        &format!("hint\n{}", every_pit(4, 40)),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("You are player 1 and move second"),
        "{stdout}"
    );
    // The opponent opens.
    let first_move = stdout.find("plays").unwrap();
    assert!(
        stdout[..first_move].ends_with("player 0 (minimax:depth=4) "),
        "{stdout}"
    );
    assert!(
        stdout.contains("hint: minimax:depth=4 suggests"),
        "{stdout}"
    );
    assert!(stdout.contains("depth "), "{stdout}");
    assert!(stdout.contains("game over ("), "{stdout}");
    assert!(stdout.contains("result: "), "{stdout}");
}

#[test]
fn end_of_input_and_quit_end_the_game_cleanly() {
    let args = ["--game", "kalah", "--opponent", "greedy", "--seed", "1"];
    let out = play(&args, "1\n");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("end of input: game abandoned"), "{stdout}");
    assert!(!stdout.contains("game over ("), "{stdout}");

    let out = play(&args, "quit\n1\n");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("you quit"), "{stdout}");
    assert!(!stdout.contains("you play 1"), "{stdout}");
}

#[test]
fn bad_arguments_exit_with_code_2() {
    for (args, expected) in [
        (
            vec!["--opponent", "nonsense"],
            "--opponent: unknown agent 'nonsense'",
        ),
        (vec!["--opponent", "minimax:depth=x"], "--opponent"),
        (vec!["--game", "chess", "--opponent", "random"], "--game"),
        (
            vec!["--opponent", "random", "--position", "1,2/3"],
            "--position",
        ),
        (
            vec![
                "--game",
                "oware",
                "--opponent",
                "random",
                "--position",
                "4,4,4,4,4,4/4,4,4,4,4,5/0,0/0",
            ],
            "--position",
        ),
    ] {
        let out = play(&args, "1\n");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let out = play(&["--opponent", "random", "--first", "--second"], "");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A runaway pipe's line of 8 MiB is skipped: neither kept, echoed, nor
/// quoted in the error message.
#[test]
fn a_huge_line_is_not_echoed_back() {
    let input = format!("{}\n1\nq\n", "7".repeat(8 << 20));
    let out = play(
        &[
            "--game",
            "kalah:pits=3,seeds=1",
            "--opponent",
            "random",
            "--seed",
            "1",
        ],
        &input,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("that line is too long"), "{stdout}");
    assert!(stdout.contains("you play 1"), "{stdout}");
    assert!(stdout.len() < 64 << 10, "{} bytes of output", stdout.len());
}
