//! End-to-end tests of the `mancala` binary: one test binary (linked once)
//! with a module per topic and the helpers they share in `util`.

mod golden;
mod util;
