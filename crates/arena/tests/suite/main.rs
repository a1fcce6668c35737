//! The tournament crate's tests, in one test binary (linked once instead of
//! once per file): a module per topic, and `cases`, which sets how many
//! cases each property test draws.

mod cases;
mod failing_agents;
mod fuzz_config;
mod ratings_intervals;
