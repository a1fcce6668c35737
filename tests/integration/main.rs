//! End-to-end tests of the `mancala` binary: one test binary (linked once)
//! with a module per topic and the helpers they share in `util`.
//!
//! Tests that need the `neural` feature live in `neural`, under
//! `#[cfg(feature = "neural")]`, so that CI's neural step runs just them:
//! `cargo test -p mancala --features neural --test integration -- neural::`.

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
