//! End-to-end tests of the `mancala` binary: one test binary (linked once)
//! with a module per topic and the helpers they share in `util`.
//!
//! The binary built with the `neural` feature has a test binary of its
//! own, `tests/neural_build.rs`: with the feature, CI rebuilds only the
//! binary and that file.

mod adjudication;
mod analyze;
mod annotate;
mod cli;
mod engine;
mod eval_net;
mod golden;
mod hardening;
mod inputs;
mod neural;
mod openings;
mod play;
mod report;
mod serve;
mod shard;
mod solve;
mod solve_bench;
mod sprt;
mod tournament;
mod util;
