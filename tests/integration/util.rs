//! What every end-to-end test needs: running the built binary and reading
//! what it printed, and the few files and commands several topics share.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mancala");

/// What a scheduler sets: a child must not inherit the test runner's own
/// (the suite may itself run in a Slurm job or a Kubernetes indexed job,
/// where a plain tournament would otherwise run as one shard).
const SCHEDULER_VARIABLES: &[&str] = &[
    "SLURM_JOB_ID",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    "MANCALA_SHARD_COUNT",
];

/// A command for the binary under test, run in the package root (where the
/// relative paths of tests/data and tests/engines start, whoever runs the
/// test binary), without the scheduler's variables.
pub fn command() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    for var in SCHEDULER_VARIABLES {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs the binary with `args` and waits for it.
pub fn mancala(args: &[&str]) -> Output {
    command().args(args).output().expect("run mancala")
}

/// `bytes` as text (invalid UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What `o` printed on stdout.
pub fn stdout(o: &Output) -> String {
    text(&o.stdout)
}

/// What `o` printed on stderr.
pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// Everything about a finished run, for a failed assertion's message.
pub fn show(o: &Output) -> String {
    format!(
        "{:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    )
}

/// Runs the binary and insists that it succeeds.
pub fn ok(args: &[&str]) -> Output {
    let o = mancala(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// Insists that a finished run succeeded, and hands it back.
pub fn succeeded(o: Output) -> Output {
    assert!(o.status.success(), "failed: {}", show(&o));
    o
}

/// Insists on exit code 2 (the user's error) and an error message; returns
/// stderr.
pub fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", show(o));
    let e = stderr(o);
    assert!(e.starts_with("error: "), "{e}");
    e
}

/// `p` as an argument (temporary folders have UTF-8 names).
pub fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Writes `body` to `dir/name` and returns the path.
pub fn write_config(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, body).expect("write config");
    path
}

/// A JSON file, parsed; a failure names the file.
pub fn read_json(path: &Path) -> Value {
    let content = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&content).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `mancala tournament CONFIG --output OUT --quiet EXTRA...`.
pub fn tournament_cmd(config: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = command();
    cmd.arg("tournament")
        .arg(config)
        .arg("--output")
        .arg(out)
        .arg("--quiet")
        .args(extra);
    cmd
}

/// Runs `tournament_cmd` and waits for it.
pub fn tournament(config: &Path, out: &Path, extra: &[&str]) -> Output {
    tournament_cmd(config, out, extra)
        .output()
        .expect("run mancala tournament")
}
