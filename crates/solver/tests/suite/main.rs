//! The solver crate's tests, in one test binary (linked once instead of
//! once per file): a module per topic.

mod agent;
mod congkak;
mod exact;
mod generic;
mod oware;
