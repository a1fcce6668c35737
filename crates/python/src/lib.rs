//! The `mancala` Python package's extension module (`mancala._mancala`):
//! games and states in OpenSpiel's shape, agents from the registry, the
//! solver, perfect-play datasets, tournaments and a batched environment. The package in
//! `python/mancala` re-exports it and adds the PettingZoo and Gymnasium
//! environments.
//!
//! Everything here is a thin layer: rules, agents and solving live in the
//! toolkit's library crates, so that a spec or a position means the same
//! in Python as on the command line.

mod agent;
mod evalnet;
mod game;
mod interrupt;
mod position;
mod solve;
mod tournament;
mod vector;

use pyo3::prelude::*;

/// The Rust half of the `mancala` package.
#[pymodule]
fn _mancala(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyState>()?;
    m.add_class::<agent::PyAgent>()?;
    m.add_class::<vector::PyVectorGame>()?;
    m.add_class::<evalnet::PyEvalNet>()?;
    m.add_function(wrap_pyfunction!(evalnet::net_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve::clear_solver, m)?)?;
    m.add_function(wrap_pyfunction!(solve::exact_positions, m)?)?;
    m.add_function(wrap_pyfunction!(game::_restore_state, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::_tournament, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::_merge, m)?)?;
    m.add("TERMINAL", game::TERMINAL)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
