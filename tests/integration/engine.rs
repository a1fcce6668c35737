//! End-to-end tests of the engine protocol: `mancala engine` serving an
//! agent, external engines (a Python example, the binary itself, and
//! misbehaving ones) playing matches, and every failure costing the game
//! in which it happened, never the run, and leaving no process behind.
//!
//! The test engines (`tests/engines/*.py`) append the pid of each of their
//! processes to the file named by `MANCALA_TEST_PIDS`, which they inherit
//! from `mancala`: [`Pids`] then checks that none is left.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{command, mancala, stderr, BIN};

/// The processes that the test engines of one run started.
struct Pids {
    dir: tempfile::TempDir,
}

impl Pids {
    fn new() -> Pids {
        Pids {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("pids")
    }

    /// Runs the binary with `args`, its engines recording their pids here.
    fn mancala(&self, args: &[&str]) -> Output {
        command()
            .env("MANCALA_TEST_PIDS", self.file())
            .args(args)
            .output()
            .expect("run mancala")
    }

    /// Insists that the engines recorded at least `at_least` processes
    /// (so that the check is not vacuous) and that none is running now.
    /// Killed processes take a moment to die: each gets a few seconds.
    fn assert_none_left(&self, at_least: usize, what: &str) {
        let text = std::fs::read_to_string(self.file()).unwrap_or_default();
        let pids: Vec<u32> = text.lines().map(|l| l.parse().unwrap()).collect();
        assert!(pids.len() >= at_least, "{what}: only {pids:?} recorded");
        let until = Instant::now() + Duration::from_secs(5);
        for pid in pids {
            while running(pid) {
                assert!(
                    Instant::now() < until,
                    "{what}: process {pid} of the engine is still running"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// Whether process `pid` exists and is not a zombie (a zombie has ended;
/// whoever inherited it reaps it when they get to it).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `PID (NAME) STATE ...`; the name may hold spaces and parentheses.
        Ok(stat) => stat
            .rfind(')')
            .and_then(|at| stat[at + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// `mancala match A B --json` with the pids of its engines kept in `pids`.
fn match_with(pids: &Pids, a: &str, b: &str, games: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "match",
        a,
        b,
        "--game",
        "kalah:pits=4,seeds=3",
        "--games",
        games,
        "--json",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    let o = pids.mancala(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

/// The reasons of a match's forfeits (its JSON's `errors`).
fn errors(r: &serde_json::Value) -> Vec<String> {
    r["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors in {r}"))
        .iter()
        .map(|e| e["error"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// An `engine:` spec of `tests/engines/nasty_engine.py MODE`.
fn nasty(mode: &str, options: &str) -> String {
    format!("engine:cmd=python3 tests/engines/nasty_engine.py {mode},{options}")
}

/// `mancala match A B --json`, as JSON.
fn match_json(a: &str, b: &str, games: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "match",
        a,
        b,
        "--game",
        "kalah:pits=4,seeds=3",
        "--games",
        games,
        "--json",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    let o = mancala(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

/// Whether python3 runs here; CI sets `MANCALA_REQUIRE_PYTHON` so that a
/// missing python3 fails there instead of skipping the Python engines.
fn python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found && std::env::var_os("MANCALA_REQUIRE_PYTHON").is_some() {
        panic!("python3 is required (MANCALA_REQUIRE_PYTHON is set) but does not run");
    }
    found
}

/// Talks to `mancala engine minimax:depth=4` line by line.
#[test]
fn the_engine_command_speaks_the_protocol() {
    let mut child = command()
        .args(["engine", "minimax:depth=4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |command: &str, replies: usize| -> Vec<String> {
        writeln!(input, "{command}").unwrap();
        input.flush().unwrap();
        (0..replies)
            .map(|_| {
                let mut line = String::new();
                output.read_line(&mut line).unwrap();
                line.trim_end().to_string()
            })
            .collect()
    };
    let hello = ask("mancala", 4);
    assert_eq!(hello[0], "id name mancala minimax:depth=4");
    assert!(
        hello[2].starts_with("option name Seed type spin"),
        "{hello:?}"
    );
    assert_eq!(hello[3], "mancalaok");
    assert_eq!(
        ask("go", 1),
        ["error no game: send a `newgame` this engine can play"]
    );
    ask("setoption name Seed value 5", 0);
    ask("newgame kalah:pits=4,seeds=3", 0);
    assert_eq!(ask("isready", 1), ["readyok"]);
    ask("position startpos moves 2", 0);
    let go = ask("go movetime 1000", 2);
    assert!(go[0].starts_with("info depth 4 nodes "), "{go:?}");
    let mv: usize = go[1].strip_prefix("bestmove ").unwrap().parse().unwrap();
    assert!((1..=4).contains(&mv), "{go:?}");
    // Player 1 to move with a single seed left in pit 3: the only move.
    ask("position 1,0,0,0/0,0,1,0/11,11/1", 0);
    assert_eq!(ask("go", 2)[1], "bestmove 3");
    let illegal = ask("position startpos moves 9", 1);
    assert!(illegal[0].starts_with("error move 1 (9)"), "{illegal:?}");
    let bad = ask("go", 1);
    assert!(bad[0].starts_with("error no valid position"), "{bad:?}");
    assert!(ask("position 1,2/3/4", 1)[0].starts_with("error "));
    ask("newgame oware:pits=3,seeds=2", 0);
    ask("position startpos", 0);
    assert!(ask("go", 2)[1].starts_with("bestmove "));
    assert!(ask("newgame chess", 1)[0].starts_with("error newgame: unknown game 'chess'"));
    ask("quit", 0);
    assert!(child.wait().unwrap().success());
}

/// The binary as an engine plays exactly as the same agent built in: the
/// runner seeds it through the `Seed` option, so the games are the same.
#[test]
fn an_agent_served_over_the_protocol_plays_the_same_games() {
    let served = format!("engine:cmd={BIN} engine minimax:depth=3,name=served");
    let built_in = match_json(
        "minimax:depth=3",
        "mcts:sims=50",
        "8",
        &["--opening-plies", "2"],
    );
    let external = match_json(&served, "mcts:sims=50", "8", &["--opening-plies", "2"]);
    for key in ["a_wdl", "a_mean_margin", "first_player_wdl", "forfeits"] {
        assert_eq!(
            built_in[key], external[key],
            "{key}: {built_in} vs {external}"
        );
    }
    assert_eq!(external["forfeits"], 0);
}

#[test]
fn the_python_example_engine_plays_legally() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let r = match_json(
        "engine:cmd=python3 examples/engines/greedy_kalah.py,movetime=2s",
        "random",
        "40",
        &["--opening-plies", "2"],
    );
    // A single illegal move or protocol slip would be a forfeit.
    assert_eq!(r["forfeits"], 0, "{r}");
    assert_eq!(r["games"], 40);
    // Greedy play beats random play clearly.
    assert!(r["a_score"].as_f64().unwrap() > 0.6, "{r}");
}

#[test]
fn misbehaving_engines_lose_their_games_and_the_match_completes() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    for (mode, reason) in [
        ("crash", "the engine exited while we waited for bestmove"),
        ("hang", "no `bestmove` within"),
        ("garbage", "garbage from the engine"),
        ("illegal", "illegal move"),
        // After three failed starts an instance says so instead.
        ("silent", "start"),
        ("refuse", "refused `newgame"),
    ] {
        // A short handshake only where the test waits for it to expire: a
        // loaded machine (the tests run in parallel) may take more than a
        // second to start Python.
        let handshake = if mode == "silent" { "1s" } else { "10s" };
        // A move time long enough for a loaded machine too: the engine
        // answers at once until its fault, and a late answer before it
        // would be a timeout instead of the fault under test. Only `hang`
        // waits it out.
        let spec = format!(
            "engine:cmd=python3 tests/engines/faulty_engine.py {mode},movetime=1s,\
             handshake={handshake}"
        );
        let pids = Pids::new();
        let r = match_with(&pids, &spec, "random", "4", &[]);
        assert_eq!(r["games"], 4, "{mode}: {r}");
        assert_eq!(r["a_wdl"], serde_json::json!([0, 0, 4]), "{mode}: {r}");
        assert_eq!(r["forfeits"], 4, "{mode}: {r}");
        // The JSON gives each forfeit's reason, not only their count.
        let reasons = errors(&r);
        assert_eq!(reasons.len(), 4, "{mode}: {r}");
        assert!(reasons.iter().all(|e| e.contains(reason)), "{mode}: {r}");
        pids.assert_none_left(1, mode);
    }
}

/// An engine printing `info` lines without end, during its `go` or while
/// its opponent thinks, floods: it loses the game at once (not at its
/// time limit, with a runner grown by gigabytes), and is killed.
#[test]
fn a_flooding_engine_forfeits_and_is_killed() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    for (mode, fault_at) in [("flood-go", 2), ("flood-idle", 1)] {
        let pids = Pids::new();
        let spec = format!(
            "engine:cmd=python3 tests/engines/nasty_engine.py {mode} {fault_at},movetime=1s"
        );
        let r = match_with(&pids, &spec, "random", "2", &[]);
        assert_eq!(r["forfeits"], 2, "{mode}: {r}");
        for e in errors(&r) {
            assert!(e.contains("the engine flooded its output"), "{mode}: {e}");
        }
        pids.assert_none_left(2, mode);
    }
}

/// An engine started through a wrapper script, or that starts a helper of
/// its own, leaves no process behind, whether it hangs or quits cleanly.
#[test]
fn engines_leave_no_process_behind() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    // The shell waits for its engine; the engine hangs at its 2nd `go`.
    let pids = Pids::new();
    let wrapped =
        "engine:cmd=sh tests/engines/wrapper.sh faulty_engine.py hang 2,movetime=50ms,name=wrapped";
    let r = match_with(&pids, wrapped, "random", "2", &[]);
    assert_eq!(r["forfeits"], 2, "{r}");
    pids.assert_none_left(2, "a wrapped engine that hangs");
    // A helper that sleeps for an hour, of an engine that plays and quits.
    let pids = Pids::new();
    let r = match_with(&pids, &nasty("fork", "movetime=1s"), "random", "2", &[]);
    assert_eq!(r["forfeits"], 0, "{r}");
    pids.assert_none_left(2, "an engine that forks");
    // A helper that left the engine's process group (`setsid`), which
    // killing the group does not reach.
    let pids = Pids::new();
    let r = match_with(&pids, &nasty("setsid", "movetime=1s"), "random", "2", &[]);
    assert_eq!(r["forfeits"], 0, "{r}");
    pids.assert_none_left(2, "an engine whose helper calls setsid");
}

/// An engine that exits while a child of its holds its output open loses
/// the game at once, as an exit: its output never closes, and the runner
/// used to wait for the whole time limit.
#[test]
fn an_engine_that_exits_is_noticed_while_its_child_holds_the_pipe() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let r = match_with(&pids, &nasty("orphan", "movetime=5s"), "random", "2", &[]);
    assert_eq!(r["forfeits"], 2, "{r}");
    for e in errors(&r) {
        assert!(
            e.contains("the engine exited while we waited for bestmove"),
            "{e}"
        );
    }
    pids.assert_none_left(4, "an engine that exits, leaving a child");
}

/// A second `bestmove` to one `go` is stale: it must not answer the next.
#[test]
fn a_stale_second_answer_does_not_answer_the_next_go() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let r = match_with(&pids, &nasty("double", "movetime=2s"), "random", "4", &[]);
    assert_eq!(r["forfeits"], 0, "{r}");
    assert_eq!(r["games"], 4, "{r}");
    pids.assert_none_left(1, "an engine that answers twice");
}

/// A line that is not UTF-8 is garbage that costs the game, not the run.
#[test]
fn an_answer_that_is_not_text_is_garbage() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let r = match_with(&pids, &nasty("binary", "movetime=1s"), "random", "2", &[]);
    assert_eq!(r["forfeits"], 2, "{r}");
    for e in errors(&r) {
        assert!(e.contains("garbage from the engine: `bestmove"), "{e}");
    }
    pids.assert_none_left(1, "an engine that prints bytes");
}

/// An engine that keeps printing `info` but never answers is reported with
/// the time it was given, not the time since its last line.
#[test]
fn a_timeout_counts_from_the_go_not_from_the_last_line() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let r = match_with(
        &pids,
        &nasty("chatty", "movetime=200ms"),
        "random",
        "2",
        &[],
    );
    assert_eq!(r["forfeits"], 2, "{r}");
    for e in errors(&r) {
        let waited: u64 = e
            .split("no `bestmove` within ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("{e}"));
        // 200 ms plus the margin of 100 ms + 20 ms.
        assert!(waited >= 320, "{e}");
    }
    pids.assert_none_left(2, "a chatty engine");
}

/// `mancala engine` survives what a runner may send it: a `position` it
/// cannot read (which leaves no position to answer `go` for), a line that
/// is not UTF-8, and a line of 64 MiB, which it skips without keeping.
#[test]
fn the_engine_command_survives_bad_lines() {
    let mut child = command()
        .args(["engine", "minimax:depth=2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |command: &[u8], replies: usize| -> Vec<String> {
        input.write_all(command).unwrap();
        input.write_all(b"\n").unwrap();
        input.flush().unwrap();
        (0..replies)
            .map(|_| {
                let mut line = String::new();
                output.read_line(&mut line).unwrap();
                line.trim_end().to_string()
            })
            .collect()
    };
    ask(b"newgame kalah:pits=4,seeds=3", 0);
    ask(b"position startpos moves 2", 0);
    assert!(ask(b"go", 2)[1].starts_with("bestmove "));
    // A broken `position` clears the one before.
    assert!(ask(b"position startpos moves x", 1)[0].starts_with("error "));
    let go = ask(b"go", 1);
    assert!(go[0].starts_with("error no valid position"), "{go:?}");
    // One byte that is not UTF-8: an `error`, and the engine goes on.
    ask(b"position startpos moves 2", 0);
    let bad = ask(b"position startpos moves \xff", 1);
    assert!(
        bad[0].starts_with("error a line that is not UTF-8"),
        "{bad:?}"
    );
    assert_eq!(ask(b"isready", 1), ["readyok"]);
    let go = ask(b"go", 1);
    assert!(go[0].starts_with("error no valid position"), "{go:?}");
    // A line of 64 MiB costs no 64 MiB of memory.
    let peak = || peak_memory_kib(pid);
    let before = peak();
    let mut long = b"position startpos moves ".to_vec();
    long.resize(64 << 20, b'1');
    let too_long = ask(&long, 1);
    assert!(
        too_long[0].starts_with("error a line of 67108864 bytes is longer than"),
        "{}",
        too_long[0].chars().take(200).collect::<String>()
    );
    assert!(too_long[0].len() < 300, "the line is not echoed back");
    let grown = peak() - before;
    assert!(grown < 16 << 10, "the engine grew by {grown} KiB");
    // It was a `position`, if a broken one: there is no position now.
    let go = ask(b"go", 1);
    assert!(go[0].starts_with("error no valid position"), "{go:?}");
    ask(b"position startpos moves 2", 0);
    assert!(ask(b"go", 2)[1].starts_with("bestmove "));
    ask(b"quit", 0);
    assert!(child.wait().unwrap().success());
}

/// The most memory process `pid` has held so far (VmHWM), in KiB.
fn peak_memory_kib(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"))
}

#[test]
fn bad_engine_specs_are_refused_up_front() {
    for (spec, needle) in [
        (
            "engine:cmd=./no/such/bot",
            "engine program `./no/such/bot` not found",
        ),
        ("engine:cmd=no-such-program-xyz", "not found on PATH"),
        (
            "engine:cmd=tests/engines",
            "engine program `tests/engines` is a directory, not a program",
        ),
        ("engine:movetime=1s", "cmd="),
        ("engine:cmd=python3 x.py,go=fast", "unknown option 'go'"),
    ] {
        let o = mancala(&["match", spec, "random", "-n", "2"]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{spec}: {}", stderr(&o));
    }
}

/// A tournament of built-in agents, the Python example, the binary served
/// as an engine, and engines that crash, hang, print garbage and play
/// illegally: every game is played, each fault is a forfeit with its
/// reason, and each engine's standard error is kept.
#[test]
fn engines_play_in_a_tournament_and_their_faults_are_recorded() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    // A generous movetime: on a loaded machine a sound answer must not be
    // late, and the hanging engine then costs 1.2 s a game.
    let faulty = |mode: &str| {
        format!(
            "[[agents]]\nname = \"{mode}\"\ncommand = [\"python3\", \"{root}/tests/engines/faulty_engine.py\", \"{mode}\"]\n\
             go = \"movetime 1000\"\n"
        )
    };
    let config = format!(
        "name = \"engines\"\ngame = \"kalah:pits=4,seeds=3\"\nformat = \"gauntlet\"\nchampion = \"greedy\"\n\
         games_per_pair = 4\nseed = 3\nmove_timeout = \"5s\"\n[openings]\nplies = 1\n\
         [[agents]]\nspec = \"greedy\"\n\
         [[agents]]\nname = \"py\"\ncommand = [\"python3\", \"{root}/examples/engines/greedy_kalah.py\"]\n\
         options = {{ Seed = 1 }}\n\
         [[agents]]\nname = \"served\"\ncommand = [\"{BIN}\", \"engine\", \"minimax:depth=4\"]\n{}{}{}{}",
        faulty("crash"),
        faulty("hang"),
        faulty("garbage"),
        faulty("illegal"),
    );
    let path = dir.path().join("engines.toml");
    std::fs::write(&path, config).unwrap();
    let out = dir.path().join("out");
    let pids = Pids::new();
    let o = pids.mancala(&[
        "tournament",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    pids.assert_none_left(4, "the engines of a tournament");
    let games = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let rows: Vec<Vec<&str>> = games
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 6 * 4, "every game is played");
    for (engine, reason) in [
        ("crash", "the engine exited while we waited for bestmove"),
        ("hang", "no `bestmove` within"),
        (
            "garbage",
            "garbage from the engine: `I think pit four is nice`",
        ),
        ("illegal", "illegal move"),
    ] {
        let theirs: Vec<_> = games
            .lines()
            .filter(|l| l.contains(&format!(",{engine},")))
            .collect();
        assert_eq!(theirs.len(), 4, "{engine}");
        for line in theirs {
            assert!(
                line.contains(",forfeit,") && line.contains(reason),
                "{engine}: {line}"
            );
        }
    }
    for clean in ["py", "served"] {
        let theirs: Vec<_> = games
            .lines()
            .filter(|l| l.contains(&format!(",{clean},")))
            .collect();
        assert_eq!(theirs.len(), 4, "{clean}");
        assert!(
            theirs.iter().all(|l| !l.contains("forfeit")),
            "{clean}: {theirs:?}"
        );
    }
    let logs: Vec<String> = std::fs::read_dir(out.join("engines"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for engine in ["py", "served", "crash", "hang", "garbage", "illegal"] {
        assert!(
            logs.iter()
                .any(|l| l.starts_with(&format!("{engine}.")) && l.ends_with(".stderr")),
            "{engine}: {logs:?}"
        );
    }
    let crash_log: String = logs
        .iter()
        .filter(|l| l.starts_with("crash."))
        .map(|l| std::fs::read_to_string(out.join("engines").join(l)).unwrap())
        .collect();
    assert!(
        crash_log.contains("--- mancala: starting python3"),
        "{crash_log}"
    );
}

/// An engine's standard error is kept, but only its beginning and its end:
/// an engine printing without end cannot fill the disk.
#[test]
fn engine_stderr_logs_keep_their_beginning_and_end_only() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let config = format!(
        "name = \"stderr\"\ngame = \"kalah:pits=4,seeds=3\"\ngames_per_pair = 2\nseed = 3\n\
         [[agents]]\nspec = \"greedy\"\n\
         [[agents]]\nname = \"noisy\"\n\
         command = [\"python3\", \"{root}/tests/engines/nasty_engine.py\", \"stderr\"]\n\
         go = \"movetime 1000\"\n"
    );
    let path = dir.path().join("stderr.toml");
    std::fs::write(&path, config).unwrap();
    let out = dir.path().join("out");
    let pids = Pids::new();
    let o = pids.mancala(&[
        "tournament",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let logs: Vec<_> = std::fs::read_dir(out.join("engines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!logs.is_empty());
    for log in logs {
        let bytes = std::fs::read(&log).unwrap();
        // The engine printed 8 MiB; 1 MiB of head and 1 MiB of tail stay.
        assert!(
            bytes.len() < (2 << 20) + 4096,
            "{}: {} bytes",
            log.display(),
            bytes.len()
        );
        let text = String::from_utf8_lossy(&bytes);
        for part in [
            "--- mancala: starting python3",
            "BEGIN-OF-STDERR",
            "bytes left out",
            "END-OF-STDERR",
        ] {
            assert!(text.contains(part), "{}: no {part}", log.display());
        }
    }
    pids.assert_none_left(1, "a noisy engine");
}

/// The `go` lines a clock engine logged, as (mover, line).
fn go_lines(log: &std::path::Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let (mover, go) = l.split_once(' ').unwrap();
            (mover.parse().unwrap(), go.to_string())
        })
        .collect()
}

/// The value of `key` in a `go` line.
fn go_field(line: &str, key: &str) -> Option<u64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == key)?;
    words.get(at + 1)?.parse().ok()
}

/// An engine given no limits of its own is sent the clocks (`w` for
/// player 0), which lose what its moves took and gain the increment; one
/// given `movetime` keeps it and is not sent the clocks.
#[test]
fn engines_are_sent_the_clocks_and_lose_on_time() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pids = Pids::new();
    let run = |engine: &str, tc: &str, log: &str| -> (serde_json::Value, Vec<(usize, String)>) {
        let log = dir.path().join(log);
        let o = command()
            .env("MANCALA_TEST_PIDS", pids.file())
            .env("MANCALA_TEST_GO_LOG", &log)
            .args([
                "match",
                engine,
                "random",
                "--game",
                "kalah:pits=4,seeds=3",
                "--games",
                "2",
                "--threads",
                "1",
                "--json",
                "--tc",
                tc,
                "--time-margin",
                "25ms",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        (serde_json::from_slice(&o.stdout).unwrap(), go_lines(&log))
    };

    // A quick engine at 5+0.1: every game played out, the clocks sent.
    let (r, lines) = run(
        "engine:cmd=python3 tests/engines/clock_engine.py 0",
        "5+0.1",
        "quick",
    );
    assert_eq!(r["time_losses"], serde_json::json!([0, 0]), "{r}");
    assert_eq!(r["forfeits"], 0, "{r}");
    let (mover, first) = &lines[0];
    assert_eq!(*mover, 0, "the engine moves first in game 0");
    assert_eq!(first, "go wtime 5000 btime 5000 winc 100 binc 100");
    // Its clock gains the increment after each move, and loses no more
    // than the move took (a quick move: its clock grows).
    let own: Vec<u64> = lines
        .iter()
        .take_while(|(m, _)| *m == 0)
        .map(|(_, l)| go_field(l, "wtime").unwrap())
        .collect();
    assert!(own.len() >= 2, "{lines:?}");
    assert!(own[1] > own[0] && own[1] <= 5_100, "{own:?}");

    // A slow engine: 150 ms moves at 0.5+0.05 with 25 ms of margin lose on
    // the 5th move (its clock shows 500, 400, 300, 200 and 100 ms before
    // its moves: 175 ms are too few for the 5th). Game 0 only: it moves
    // first there, so its go lines come before any of game 1.
    let (r, lines) = run(
        "engine:cmd=python3 tests/engines/clock_engine.py 150",
        "0.5+0.05",
        "slow",
    );
    assert_eq!(r["time_losses"], serde_json::json!([2, 0]), "{r}");
    for e in errors(&r) {
        assert!(
            e.contains("out of time") && e.contains("margin 25 ms"),
            "{e}"
        );
    }
    let game_0: Vec<u64> = lines
        .iter()
        .take(5)
        .map(|(m, l)| {
            assert_eq!(*m, 0, "{l}");
            go_field(l, "wtime").unwrap()
        })
        .collect();
    for (k, own) in game_0.iter().enumerate() {
        let expected = 500 - 100 * k as u64;
        assert!(
            *own <= expected && *own + 40 >= expected,
            "move {}: {own} ms, expected about {expected} ({game_0:?})",
            k + 1
        );
    }
    assert_ne!(
        lines[5].0, 0,
        "the 5th go of game 0 was its last: {lines:?}"
    );

    // Given movetime, it keeps movetime: no clock fields.
    let (_, lines) = run(
        "engine:cmd=python3 tests/engines/clock_engine.py 0,movetime=50ms",
        "5+0.1",
        "movetime",
    );
    assert!(!lines.is_empty());
    for (_, l) in &lines {
        assert_eq!(l, "go movetime 50");
    }
    pids.assert_none_left(3, "the clock engines");
}

/// `mancala engine` hands the clocks to a `time=auto` agent, which plays
/// a game at 2+0.02 without losing on time.
#[test]
fn the_engine_command_plans_with_the_clocks() {
    let served = format!("engine:cmd={BIN} engine minimax:time=auto,name=served");
    let r = match_json(&served, "greedy", "4", &["--tc", "2+0.02"]);
    assert_eq!(r["time_losses"], serde_json::json!([0, 0]), "{r}");
    assert_eq!(r["forfeits"], 0, "{r}");
}

/// `mancala engine check` on `engine` (arguments after `--`), with a
/// generous move time so that a loaded machine does not fail a check.
fn check(pids: &Pids, games: &[&str], engine: &[&str]) -> (bool, String) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut args = vec![
        "engine",
        "check",
        "--movetime",
        "300ms",
        "--handshake",
        "5s",
    ];
    for game in games {
        args.extend(["--game", game]);
    }
    args.push("--");
    let engine: Vec<String> = engine.iter().map(|a| a.replace("ROOT", root)).collect();
    args.extend(engine.iter().map(String::as_str));
    let o = pids.mancala(&args);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    // Failing is exit 1 (not 2, a bad argument), with the count.
    if !o.status.success() {
        assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
        assert!(stderr(&o).contains("failed"), "{}", stderr(&o));
    }
    (o.status.success(), out)
}

/// The first failed check's line.
fn first_failure(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("FAIL"))
        .unwrap_or_else(|| panic!("no failed check in\n{out}"))
}

#[test]
fn the_example_engine_and_a_served_agent_pass_every_check() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let (ok, out) = check(
        &pids,
        &[],
        &["python3", "ROOT/examples/engines/greedy_kalah.py"],
    );
    assert!(ok, "{out}");
    for expected in [
        "pass  start: `id name greedy-kalah.py`",
        "pass  setoption Seed value 0",
        "pass  newgame kalah: accepted",
        // It knows Kalah only, and says so as the protocol allows.
        "pass  newgame oware: refused (`error",
        "pass  positions (kalah): legal answers in 6 positions (the start, after an extra turn",
        "pass  go movetime 300",
        "pass  go depth 1",
        "pass  go nodes 1000",
        "pass  go wtime 1500 btime 1300 winc 20 binc 30:",
        "pass  go wtime 1500 btime 1300 winc 20 binc 30 movestogo 5",
        "pass  whole game (kalah:pits=4,seeds=3)",
        "pass  next game (kalah:empty_capture=true)",
        "pass  quit: exited",
    ] {
        assert!(out.contains(expected), "{expected}:\n{out}");
    }
    assert!(!out.contains("FAIL"), "{out}");
    // This toolkit's own agent, served, plays every game offered: the
    // pie rule's `swap` and the other families are checked too.
    let bin = BIN.to_string();
    let (ok, out) = check(&pids, &[], &[&bin, "engine", "minimax:depth=2"]);
    assert!(ok, "{out}");
    for expected in [
        "pass  positions (kalah:pie=true): legal answers in 7 positions",
        "after `swap`",
        "pass  whole game (oware)",
        "pass  whole game (congkak)",
    ] {
        assert!(out.contains(expected), "{expected}:\n{out}");
    }
}

#[test]
fn each_misbehaviour_fails_the_check_it_should() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let faulty = "ROOT/tests/engines/faulty_engine.py";
    // Each mode turns bad at the engine's third `go`: the middle game of
    // the position checks.
    let at_third_go = "FAIL  positions (kalah): the middle game: ";
    for (mode, failure) in [
        (
            "crash",
            format!("{at_third_go}the engine exited while we waited for bestmove"),
        ),
        ("hang", format!("{at_third_go}no `bestmove` within 430 ms")),
        (
            "garbage",
            format!("{at_third_go}garbage from the engine: `I think pit four is nice`"),
        ),
        (
            "illegal",
            format!("{at_third_go}`bestmove 1` is not legal here"),
        ),
        (
            "silent",
            "FAIL  start: no `mancalaok` within 5000 ms".to_string(),
        ),
        (
            "refuse",
            "FAIL  newgame kalah: refused (`error not today`), but this game was asked for"
                .to_string(),
        ),
    ] {
        let (ok, out) = check(&pids, &["kalah"], &["python3", faulty, mode]);
        assert!(!ok, "{mode}: {out}");
        assert!(first_failure(&out).starts_with(&failure), "{mode}: {out}");
        // What was said before the failure is shown with it.
        if mode != "refuse" {
            assert!(out.contains("        > "), "{mode}: {out}");
        }
    }
    // Refusing every game offered is a failure of its own.
    let (ok, out) = check(&pids, &[], &["python3", faulty, "refuse"]);
    assert!(!ok);
    assert!(
        first_failure(&out).starts_with("FAIL  games: it accepted none"),
        "{out}"
    );
    pids.assert_none_left(7, "faulty engines under check");
}

#[test]
fn the_check_finds_stale_answers_and_processes_left_behind() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let pids = Pids::new();
    let nasty = "ROOT/tests/engines/nasty_engine.py";
    // A second `bestmove` after the first, before the `readyok`.
    let (ok, out) = check(&pids, &["kalah"], &["python3", nasty, "double", "1"]);
    assert!(!ok);
    assert!(first_failure(&out).contains("`bestmove 99`"), "{out}");
    // A child left running after `quit`, found and killed.
    let (ok, out) = check(&pids, &["kalah"], &["python3", nasty, "fork"]);
    assert!(!ok);
    assert!(
        first_failure(&out).starts_with("FAIL  quit: it exited, but left 1 process running"),
        "{out}"
    );
    // A helper that left the engine's group (`setsid`) is still the
    // engine's: found, named, and killed.
    let (ok, out) = check(&pids, &["kalah"], &["python3", nasty, "setsid"]);
    assert!(!ok);
    let failure = first_failure(&out);
    assert!(
        failure.starts_with("FAIL  quit: it exited, but left 1 process running"),
        "{out}"
    );
    assert!(failure.contains("nasty_engine.py setsid"), "{out}");
    // Run through a wrapper script, the example passes, quit included.
    let (ok, out) = check(
        &pids,
        &["kalah:pits=4,seeds=3"],
        &[
            "sh",
            "ROOT/tests/engines/wrapper.sh",
            "faulty_engine.py",
            "crash",
            "1000",
        ],
    );
    assert!(ok, "{out}");
    assert!(out.contains("pass  quit: exited"), "{out}");
    pids.assert_none_left(5, "nasty engines under check");
}
