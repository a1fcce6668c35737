//! What every end-to-end test needs: running the built binary and reading
//! what it printed.

use std::path::Path;
use std::process::{Command, Output};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mancala");

/// A command for the binary under test.
pub fn command() -> Command {
    Command::new(BIN)
}

/// Runs the binary with `args` and waits for it.
pub fn mancala(args: &[&str]) -> Output {
    command().args(args).output().expect("run mancala")
}

/// What `o` printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs the binary and insists that it succeeds.
pub fn ok(args: &[&str]) -> Output {
    let o = mancala(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// `p` as an argument (temporary folders have UTF-8 names).
pub fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}
