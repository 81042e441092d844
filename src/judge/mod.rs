//! `kenken judge`: anyone's `kenken.pl` checked against the spec and the native solver.
//!
//! A judged file is loaded in an engine of its own (without our `kenken.pl`): the embedded Scryer
//! Prolog with, for a file written for GNU Prolog, a compatibility layer (`prolog/gnu/`), or
//! the real GNU Prolog when it is installed. Each [`Case`] (a goal binding `T` and every answer
//! it must give, in the spec's order, from the native solver) runs under a wall-clock limit in a
//! killable process, and gets a [`Verdict`]: a looping, halting or crashing solution costs only
//! its case.
//!
//! Timeouts never hide wrong answers. A case of a grid up to 3x3 (at most 12 answers: any
//! correct solver answers at once) that does not end in time is a failure ([`Verdict::Hang`]),
//! and the larger cases still run. Only once a predicate times out on a larger grid (a case of
//! at most 100 answers) are its cases of larger grids skipped: a file that hangs on the
//! smallest grids and is skipped above fails (exit 1), it is not "only timeouts" (exit 3).
//!
//! The standard suite's random puzzles come from a seed drawn afresh for each run (the same for
//! every file of a class), shown in the report: a table of answers learnt by heart does not
//! pass it, and [`Config::seed`] makes a run again. Each case runs in a process of its own,
//! and a `plain_kenken/3` case where no FD solver exists (which the spec forbids there): a
//! verdict is earned by behaviour. Besides the cases, a form check ([`form`]) reads the file's
//! text (it never runs it) for a `plain_kenken/3` that reaches the FD solver, and reports it.
//! `docs/judge.md` is the security model: what a judged file can and cannot do.
//!
//! ```no_run
//! use kenken::judge::{judge, Config};
//! kenken::worker::init();
//! let judgement = judge(std::path::Path::new("kenken.pl"), &Config::default(), |_| {}).unwrap();
//! println!("{} cases, {} passed", judgement.cases.len(), judgement.count(kenken::judge::Verdict::Pass));
//! ```

pub mod class;
mod config;
mod dialect;
mod error;
pub mod form;
mod jail;
mod judgement;
pub mod report;
mod run;
pub mod shrink;
mod source;
mod suite;
mod system;
mod verdict;
mod visible;

pub use crate::dialect::Dialect;
pub use config::{fresh_seed, Config, Suite, System};
pub use dialect::detect;
pub(crate) use error::cut;
pub use error::JudgeError;
pub use form::FormCheck;
pub(crate) use jail::Jail;
pub use jail::{parse_size, size_text};
pub use judgement::Judgement;
pub use run::{check_only, judge, judge_among, left_out, only_text};
pub(crate) use run::{Backend, Loaded};
pub use source::MAX_SOURCE;
pub use suite::Case;
pub use verdict::{CaseReport, JudgedAnswer, Run, RunEnd, Verdict};
pub use visible::{invisible, path_text, visible};
