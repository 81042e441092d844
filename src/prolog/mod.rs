//! The embedded Scryer Prolog engine running `prolog/kenken.pl`.
//!
//! - [`Session`]: one engine in this thread, with `kenken.pl` loaded: queries, and
//!   the homework's solvers with their answers as grids.
//! - [`Query`], [`Answers`], [`QueryWorker`]: one query API, in this thread or in a
//!   worker process bounded by a timeout; answers bind variables to the crate's own [`Term`]
//!   (`term.rs`).
//! - [`toplevel`]: the top level behind `kenken query` and `kenken repl`.
//!
//! Every query goes through the Prolog-side wrapper `kk_host_stream/9` (`prolog/host_query.pl`):
//! the goal travels as an escaped string, so `Machine::run_query` always receives text that
//! parses; the wrapper parses it with `read_term_from_chars/3` inside `catch/3`, bounds each
//! answer with `call_with_inference_limit/3`, and gives the answers one by one, then how the
//! query ended, never leaving the goal with a choice point. Nothing a user types can panic the
//! process or leave the machine broken. Each answer's values come encoded so that their
//! conversion into [`Term`]s is linear and never recursive, whatever their depth.
//!
//! A `Session` holds a Scryer `Machine`, which is not `Send`: it stays on the thread that made
//! it (a [`QueryWorker`] or a worker engine can be sent anywhere).

mod goals;
pub(crate) mod guard;
pub(crate) mod lexer;
pub(crate) mod query;
pub(crate) mod serve;
mod session;
mod start;
mod stdout;
mod term;
pub mod toplevel;
pub(crate) mod write;

use crate::format::prolog::cage_text;
use crate::process::WorkerError;
use crate::puzzle::{Grid, Puzzle};

pub(crate) use query::excerpt;
pub use query::{
    Answer, AnswerSource, Answers, ConsultError, Consulted, End, Exception, InThread, InWorker,
    Lost, Query, QueryError, QueryWorker, PRINTED_CAP,
};
pub use session::{NoopSolutions, PrologSolutions, Session};
pub use start::{start_phases, StartPhase};
pub(crate) use start::{Builder, Purpose};
pub use term::Term;
pub(crate) use term::{chain_text, chars_of, quoted_text, term_text, term_to_grid};
pub(crate) use write::quote;

/// The homework contract, compiled into the binary.
pub(crate) const KENKEN_PL: &str = include_str!("../../prolog/kenken.pl");
/// The host's Prolog side: the top level and what the query wrapper shares with it, the files
/// of `prolog/host/` in order, as one text.
pub(crate) const HOST_PL: &str = concat!(
    include_str!("../../prolog/host/toplevel.pl"),
    include_str!("../../prolog/host/rewrite.pl"),
    include_str!("../../prolog/host/consult.pl"),
    include_str!("../../prolog/host/commands.pl"),
    include_str!("../../prolog/host/input.pl"),
    include_str!("../../prolog/host/state.pl"),
    include_str!("../../prolog/host/answers.pl"),
);
/// The load-time rewriting of the files a person consults (a term expansion), loaded right
/// after [`HOST_PL`] by the engines that answer a person's goals (the top level, a query
/// [`Session`]), not by those that only solve puzzles.
pub(crate) const HOST_EXPAND_PL: &str = include_str!("../../prolog/host_expand.pl");
/// The host's query wrapper (`kk_host_stream/9`), loaded after [`HOST_PL`] by a [`Session`],
/// and the loader's warnings kept from the process's standard output (`host_warnings.pl`).
pub(crate) const HOST_QUERY_PL: &str = concat!(
    include_str!("../../prolog/host_query.pl"),
    include_str!("../../prolog/host_warnings.pl"),
);
/// What follows [`HOST_PL`] when `kenken.pl` is loaded too: the libraries it otherwise
/// loads only when a goal needs them (`kk_need_libraries/1`), imported at once as before
/// (`kenken.pl` has loaded most of them already), so that every goal finds them.
pub(crate) const ALL_LIBRARIES: &str = "
:- use_module(library(charsio)).
:- use_module(library(time)).
:- use_module(library(format)).
:- use_module(library(between)).
";

/// Default bound on inferences per answer.
pub const DEFAULT_INFERENCE_LIMIT: u64 = 2_000_000_000;
/// Default bound on the nodes of one answer's bindings ([`Query::answer_cap`]): a list of a
/// million integers is two million nodes.
pub const DEFAULT_ANSWER_CAP: usize = 10_000_000;

/// What went wrong talking to the engine.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrologError {
    /// The engine answered with something the host does not understand.
    #[error("unexpected answer from the Prolog engine: {0}")]
    Protocol(String),
    /// A goal raised an exception (for solves, where an exception is not an answer).
    #[error("Prolog exception: {0}")]
    Exception(String),
    /// The query text is not a Prolog goal.
    #[error("syntax error: {0}")]
    Syntax(String),
    /// The answer is not a grid of the puzzle's size.
    #[error("answer is not an {0}x{0} grid: {1}")]
    BadGrid(usize, String),
    /// The answer binds no such variable (it is unbound, or not one of the query's).
    #[error("the answer binds no {0}")]
    Unbound(String),
    /// The value of a variable is not of the type asked for
    /// ([`Answer::integer`](query::Answer::integer) of an atom).
    #[error("{name} = {value} is not {expected}")]
    NotA {
        /// The variable.
        name: String,
        /// What was asked for (`an integer`, `an integer of 64 bits`).
        expected: &'static str,
        /// Its value, as Prolog writes it.
        value: String,
    },
    /// The engine could not go on (it failed on a goal, or its process could not start).
    #[error("{0}")]
    Failed(String),
    /// A file or pipe of the engine's could not be made, read or written.
    #[error(transparent)]
    Io(#[from] crate::error::IoError),
    /// A message to or from a worker is not the JSON it should be.
    #[error(transparent)]
    Json(#[from] crate::error::JsonError),
    /// The worker process running the engine failed.
    #[error("the Prolog worker: {0}")]
    Process(#[from] WorkerError),
}

/// Which of the two solvers of `kenken.pl` to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// `kenken/3` (CLP(FD)).
    Fd,
    /// `plain_kenken/3` (plain enumeration).
    Plain,
}

impl Predicate {
    /// The predicate's name.
    pub fn name(self) -> &'static str {
        match self {
            Predicate::Fd => "kenken",
            Predicate::Plain => "plain_kenken",
        }
    }
}

/// The grid as a Prolog term: `[[1,2],[2,1]]`.
pub fn grid_term(g: &Grid) -> String {
    let rows: Vec<String> = g
        .iter()
        .map(|r| {
            format!(
                "[{}]",
                r.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    format!("[{}]", rows.join(","))
}

/// The goal that solves `p` with `pred`, binding `T`.
pub(crate) fn solve_goal(p: &Puzzle, pred: Predicate) -> String {
    format!("{}({}, {}, T).", pred.name(), p.size, cages_term(p))
}

/// The puzzle's cages as the spec's list term.
fn cages_term(p: &Puzzle) -> String {
    let cages: Vec<String> = p.cages.iter().map(cage_text).collect();
    format!("[{}]", cages.join(", "))
}

/// The goal that solves `p` with `noop_kenken/4`, binding `T` and `Ops`.
pub(crate) fn noop_goal(p: &Puzzle) -> String {
    format!("noop_kenken({}, {}, T, Ops).", p.size, cages_term(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_everything_unusual() {
        assert_eq!(quote("a\"b\\c\nd é"), "\"a\\\"b\\\\c\\xa\\d \\xe9\\\"");
    }
}
