//! How many cases each property test draws, in this crate and in the
//! agents and arena crates (whose test suites include this file): the one
//! place that sets it, so that CI and a thorough run differ by one
//! variable.
//!
//! CI (`MANCALA_FUZZ_CASES` unset) draws 2,000 cases per property: the
//! vacuity guards (`generated_inputs_are_often_accepted` and the like)
//! require a tenth (agents, core) or a fiftieth (arena) of the generated
//! inputs to be accepted, so even then every round trip runs on 200 or 40
//! accepted inputs. The thorough runs, 10,000 cases per property:
//! `MANCALA_FUZZ_CASES=10000 cargo test` (README, "Tests").

use proptest::test_runner::Config;

/// Cases per property when `MANCALA_FUZZ_CASES` is not set.
const CI_CASES: u32 = 2_000;

/// The cases per property: `MANCALA_FUZZ_CASES`, or CI's default.
///
/// # Panics
///
/// If `MANCALA_FUZZ_CASES` is set to something that is not a positive
/// number (a typo must not silently run the default).
pub fn cases() -> u32 {
    match std::env::var("MANCALA_FUZZ_CASES") {
        Err(std::env::VarError::NotPresent) => CI_CASES,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => panic!("MANCALA_FUZZ_CASES={v:?}: expected a positive number of cases"),
        },
        Err(e) => panic!("MANCALA_FUZZ_CASES: {e}"),
    }
}

/// The config of every property test: `cases()` cases, and no regression
/// files in the checkout (a failure prints its input).
pub fn config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    }
}
