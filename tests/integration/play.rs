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

/// Plays `input` as `human` against `minimax:depth=4` (seed 1) from the
/// start or `position`, and returns what `mancala play` printed.
fn transcript(game: &str, position: Option<&str>, human: Player, input: &str) -> String {
    let mut args = vec![
        "--game",
        game,
        "--opponent",
        "minimax:depth=4",
        "--seed",
        "1",
    ];
    if let Some(position) = position {
        args.extend(["--position", position]);
    }
    args.push(match human {
        Player::Zero => "--first",
        Player::One => "--second",
    });
    let out = play(&args, input);
    assert!(out.status.success(), "{out:?}");
    text(&out.stdout) + &text(&out.stderr)
}

/// The seats of `transcript`.
#[derive(Clone, Copy)]
enum Player {
    Zero,
    One,
}

#[test]
fn undo_goes_back_to_the_previous_decision() {
    // Pit 3 ends in the store (extra turn); pit 1 then hands over.
    let text = transcript(
        "kalah:pits=3,seeds=1",
        None,
        Player::Zero,
        "3\n1\nundo\nundo\nundo\nq\n",
    );
    assert!(
        text.contains("you play 3: your last seed landed in your store"),
        "{text}"
    );
    // The first undo takes back pit 1 and the agent's replies after it.
    let first = text
        .find("took back your move 1 and the repl")
        .expect(&text);
    let second = text[first..].find("took back your move 3\n").expect(&text);
    assert!(text[first + second..].contains("nothing to undo"), "{text}");
    // Back at the start: the board is the initial one again.
    let last_board = text.rfind("took back your move 3").unwrap();
    assert!(text[last_board..].contains("|  1  |  1  |  1  |"), "{text}");
}

#[test]
fn the_pie_rule_is_offered_and_explained() {
    let text = transcript(
        "kalah:pie=true,pits=3,seeds=2",
        None,
        Player::One,
        "swap\nq\n",
    );
    assert!(text.contains("you may now answer with swap"), "{text}");
    assert!(text.contains("you play swap (pie rule)"), "{text}");
}

#[test]
fn a_finished_position_reports_the_result_at_once() {
    let text = transcript(
        "kalah:pits=3,seeds=1",
        Some("0,0,0/0,0,0/4,2/-"),
        Player::Zero,
        "",
    );
    assert!(
        text.contains("game over (a row is empty): final score"),
        "{text}"
    );
    assert!(text.contains("result: you win by 2 (margin +2"), "{text}");
}

#[test]
fn congkak_rounds_are_announced_and_burnt_holes_refused() {
    // Player 0 (you) sows the last seed into the store: the round ends
    // 6 to 6, refilled in full, and player 1 begins round 2.
    let text = transcript(
        "congkak:pits=3,seeds=2,rounds=many,max_rounds=2",
        Some("0,0,1/0,0,0/5,6/0"),
        Player::Zero,
        "3\nq\n",
    );
    assert!(
        text.contains(
            "the round is over, player 0 (you) 6 to player 1 (minimax:depth=4) 6. Round 2 begins"
        ),
        "{text}"
    );
    assert!(text.contains("round 2 (begun by player 1"), "{text}");
    let text = transcript(
        "congkak:pits=3,seeds=2,rounds=many",
        Some("x,2,2/2,2,2/1,1/0/r2,0"),
        Player::Zero,
        "1\nq\n",
    );
    assert!(text.contains("pit 1 is burnt"), "{text}");
}

#[test]
fn bad_words_are_explained() {
    let text = transcript(
        "kalah:pits=3,seeds=1",
        None,
        Player::Zero,
        "x\n0\n4\nswap\nq\n",
    );
    assert!(text.contains("'x' is not a move or a command"), "{text}");
    assert!(text.contains("there is no pit 0"), "{text}");
    assert!(text.contains("there is no pit 4"), "{text}");
    assert!(
        text.contains("illegal move: swap is only offered"),
        "{text}"
    );
}
