//! Mancala agents behind one [`Agent`] trait.
#![deny(missing_docs)]
#![deny(clippy::print_stdout)]
