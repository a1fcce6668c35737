//! The rules crate's tests, in one test binary (linked once instead of once
//! per file): a module per topic, and `cases`, which sets how many cases
//! each property test draws.

mod cases;
mod congkak;
mod fuzz;
mod invariants;
mod openspiel;
mod perft;
mod rules;
