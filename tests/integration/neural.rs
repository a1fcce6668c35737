//! The binary with and without the `neural` feature. CI's neural step runs
//! this module alone (`--test integration -- neural::`), with the feature;
//! the plain `cargo test` runs it without.

use crate::util::{ok, stdout};

/// Whether `mancala --help` lists a `train` subcommand.
fn lists_train() -> bool {
    let help = stdout(&ok(&["--help"]));
    help.lines()
        .any(|line| line.split_whitespace().next() == Some("train"))
}

/// `mancala train` exists exactly when the binary is built with libtorch.
#[cfg(feature = "neural")]
#[test]
fn the_neural_build_has_train() {
    assert!(lists_train());
}

/// The default build never needs libtorch, and has no `train`.
#[cfg(not(feature = "neural"))]
#[test]
fn the_default_build_has_no_train() {
    assert!(!lists_train());
}
