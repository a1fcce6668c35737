//! The tournament crate's tests, in one test binary (linked once instead of
//! once per file): a module per topic, and `cases`, which sets how many
//! cases each property test draws.

// The one setting of every crate's property tests (core's file), so that
// CI and a thorough run differ by one variable in every crate alike.
#[path = "../../../core/tests/suite/cases.rs"]
mod cases;
mod clocks;
mod failing_agents;
mod fuzz_config;
mod move_records;
mod ratings_intervals;
mod whole_run;
