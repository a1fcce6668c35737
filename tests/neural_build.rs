//! The binary built with the `neural` feature. A test binary of its own
//! (`required-features`), so that CI's neural step rebuilds only the
//! binary and this file with the feature, not every end-to-end test: `cargo
//! test -p mancala --features neural --test neural_build`. The default
//! build's side is the `neural` module of the `integration` tests.

use std::process::Command;

/// `mancala train` exists when the binary is built with libtorch, and its
/// help says what it trains.
#[test]
fn the_neural_build_has_train() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(args)
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let help = run(&["--help"]);
    assert!(
        help.lines()
            .any(|line| line.split_whitespace().next() == Some("train")),
        "{help}"
    );
    assert!(run(&["train", "--help"]).contains("<CONFIG>"));
}
