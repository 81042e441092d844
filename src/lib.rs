//! kenken: a toolkit for KenKen puzzles, built around a Prolog program.
//!
//! # A tour
//! - [`puzzle`]: the model — [`Puzzle`] (size, [`Cage`]s, name), [`Op`], [`Cell`], [`Grid`] — and
//!   its validation, with errors that name the cage and cell.
//! - [`mod@format`]: the notations a puzzle is written in (the spec's Prolog terms, seed 003's
//!   lines, Keen game IDs, JSON), each with a reader and a writer; a file's expected answers
//!   come beside each puzzle ([`format::Entry`]).
//! - [`engine`]: one interface for every solver — a [`engine::Request`] (how many solutions,
//!   a timeout, an inference bound) goes in, a [`engine::Report`] (solutions, status, time,
//!   statistics) comes out — implemented by the native solver, `kenken/3` and
//!   `plain_kenken/3` in this thread, and the same in a killable worker process.
//! - [`native`]: the native solver (candidate bitsets, cage tables, propagation, search).
//! - `prolog` (feature `prolog`): `prolog/kenken.pl` in an embedded Scryer Prolog, and
//!   `worker`, the child processes that bound its work (their roles); `process`, the layer
//!   every child process goes through (spawning, deadlines, killing the whole process group,
//!   and the confinement of judged code); `judge` (feature `prolog`): anyone's `kenken.pl`
//!   (GNU Prolog dialect too) run, confined, on the spec's examples and random puzzles and
//!   compared with the native solver, one file or a whole class.
//! - [`render`]: grids drawn for a person; [`cage`]: which values a cage can hold;
//!   [`random`]: the random benchmark
//!   puzzles (uniform Latin squares cut into cages).
//!
//! # Features
//! Without default features the crate is the model, the notations and the native solver only.
//! `prolog` adds Scryer Prolog; `cli` (the default) adds the `kenken` binary's crates and
//! `bench`.
//!
//! # Example
//! Read a puzzle in the spec's notation, solve it natively, draw the answer:
//!
//! ```
//! use kenken::engine::{EngineKind, Isolation, Request, Status};
//! use kenken::render::{render, Style};
//!
//! let text = "kenken_testcase(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], \
//!             [2|3], [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), \
//!             +(8, [[3|3], [4|3], [4|4]]), *(2, [[3|4]])]).";
//! let puzzle = &kenken::format::read_auto(text).unwrap()[0];
//! let mut engine = EngineKind::Native.open(Isolation::InProcess).unwrap();
//! let report = engine.solve(puzzle, &Request::all());
//! assert_eq!(report.status, Status::Solved);
//! assert_eq!(report.count, 6);
//! // With every solution asked for, they come in the spec's order.
//! assert_eq!(report.solutions[0], vec![vec![1, 2, 3, 4], vec![3, 4, 2, 1],
//!                                      vec![4, 3, 1, 2], vec![2, 1, 4, 3]]);
//! print!("{}", render(puzzle, Some(&report.solutions[0]), Style { ascii: true }));
//! ```

// Every `pub` item is part of the library's API; what only the crate uses is `pub(crate)`.
#![warn(unreachable_pub)]

#[cfg(feature = "cli")]
pub mod bench;
pub mod cage;
#[cfg(feature = "prolog")]
mod dialect;
pub mod engine;
pub mod error;
pub mod format;
pub mod generate;
#[cfg(feature = "prolog")]
pub mod judge;
mod limit;
pub mod logic;
pub mod native;
#[cfg(feature = "prolog")]
pub mod process;
#[cfg(feature = "prolog")]
pub mod prolog;
pub mod puzzle;
pub mod random;
pub mod render;
pub(crate) mod rng;
#[cfg(feature = "prolog")]
mod source;
#[cfg(feature = "prolog")]
pub mod system;
#[cfg(feature = "prolog")]
pub mod worker;

pub use limit::Limit;
pub use puzzle::{Cage, Cell, Grid, Op, Puzzle};

/// Ends the program quietly when standard output is closed under it (`kenken solve ... | head`,
/// `cargo run --example NAME | head`), as ripgrep does: `print!` panics on a closed pipe, and
/// this hook turns that one panic into a plain exit. Every other panic is reported as usual. The
/// `kenken` binary and the examples call it first thing in `main`.
pub fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
