//! The binary without the `neural` feature; the build with it is tested
//! by its own test binary (`tests/neural_build.rs`), so that the feature
//! does not rebuild every end-to-end test.

use crate::util::{ok, stdout};

/// The default build never needs libtorch, and has no `train`.
#[test]
fn the_default_build_has_no_train() {
    let help = stdout(&ok(&["--help"]));
    assert!(!help
        .lines()
        .any(|line| line.split_whitespace().next() == Some("train")));
}
