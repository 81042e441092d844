//! kenken: a toolkit for KenKen puzzles.
//!
//! - [`puzzle`]: the model and its validation;
//! - [`format`]: the notations (spec Prolog terms, seed 003's lines, Keen IDs, JSON);
//! - [`render`]: the grid drawn for a person;
//! - [`native`]: the native solver;
//! - [`prolog`]: `prolog/kenken.pl` run in embedded Scryer Prolog;
//! - [`bench`]: the engines side by side.

pub mod bench;
pub mod cage;
pub mod format;
pub mod generate;
pub mod logic;
pub mod native;
pub mod prolog;
pub mod puzzle;
pub mod render;
pub mod rng;

pub use puzzle::{Cage, Cell, Grid, Op, Puzzle};
