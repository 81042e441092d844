//! The errors of a query and of a consult: [`QueryError`], [`ConsultError`], [`Exception`].

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::process::WorkerError;
use crate::prolog::term::Term;
use crate::prolog::PrologError;

/// Why a file was not consulted ([`crate::prolog::Session::consult`],
/// [`QueryWorker::consult`](super::QueryWorker::consult)).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ConsultError {
    /// There is no such file (nor one with `.pl` added).
    #[error("{file}: no such file")]
    NoSuchFile {
        /// The file, as given.
        file: String,
    },
    /// The file does not parse: what the loader said, and the line where it stopped when it
    /// says (the clauses before it are loaded).
    #[error("{file}{}: syntax error: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Syntax {
        /// The file, as given.
        file: String,
        /// The line, from 1.
        line: Option<usize>,
        /// What is wrong, as Prolog writes it.
        message: String,
    },
    /// The file could not be loaded (an error in a directive, a permission, ...).
    #[error("{file} was not loaded: {why}")]
    NotLoaded {
        /// The file, as given.
        file: String,
        /// The error, as Prolog writes it.
        why: String,
    },
    /// A directive of the file called `halt/0,1` (the engine goes on; the clauses before it
    /// are loaded).
    #[error("{file} called halt({code}) while loading")]
    Halted {
        /// The file, as given.
        file: String,
        /// The code halt was given.
        code: i64,
    },
    /// The worker's timeout passed while the file loaded (the worker was replaced).
    #[error("{file}: loading it took longer than the timeout")]
    Timeout {
        /// The file, as given.
        file: String,
    },
}

/// An exception a goal raised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exception {
    /// As Prolog writes it (`writeq`).
    pub text: String,
    /// The term thrown, its variables named as in `text` (`None` when it is cyclic or has
    /// more than a million nodes).
    pub term: Option<Term>,
}

impl std::fmt::Display for Exception {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a query gave no answers at all.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The text is not a Prolog goal.
    #[error("syntax error: {message}{}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Syntax {
        /// What is wrong, as Prolog says it (`incomplete_reduction`, ...).
        message: String,
        /// The line (from 1) where the reader found it, when it says. (Scryer 0.10's reader
        /// knows the column too, but its error term carries only the line.)
        line: Option<usize>,
    },
    /// The text holds several goals (`X = 1. Y = 2.`): a query is one goal. (The command line
    /// runs each in turn; here they would run in one engine with no answer telling them apart.)
    #[error("the text holds {count} goals: a query is one goal (run each in a query of its own)")]
    SeveralGoals {
        /// How many goals the text holds (the last may be incomplete).
        count: usize,
    },
    /// An answer has more nodes than [`Query::answer_cap`](super::Query::answer_cap): the query was
    /// stopped there.
    #[error("an answer has more than {cap} nodes (Query::answer_cap): the query was stopped")]
    AnswerTooLarge {
        /// The cap.
        cap: usize,
    },
    /// A worker did not get ready within the time it was given
    /// ([`QueryWorker::start_within`](super::QueryWorker::start_within)); it goes on starting in
    /// the background, killed when the error is dropped with nothing else holding it.
    #[error("the Prolog worker did not start within {0:?}")]
    StartTimeout(Duration),
    /// A parameter's value ([`Query::bind`](super::Query::bind)) is no term: a
    /// [`Term::BigInteger`] or [`Term::Rational`] whose text is not a number.
    #[error("the parameter {name} is no term: {why}")]
    BadParam {
        /// The parameter's name.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// A parameter ([`Query::bind`](super::Query::bind)) names no variable of the goal.
    #[error("the goal has no variable {name} to bind (Query::bind)")]
    UnknownParam {
        /// The parameter's name.
        name: String,
    },
    /// A timeout was asked of a query in this thread, which cannot be stopped by the clock.
    #[error(
        "a query in this thread cannot be stopped by the clock: run it in a QueryWorker for a \
         timeout, or bound it with Query::inferences"
    )]
    NeedsWorker,
    /// A file was not consulted.
    #[error(transparent)]
    Consult(#[from] ConsultError),
    /// The engine failed (it answered something unexpected, or its worker stopped).
    #[error(transparent)]
    Engine(#[from] PrologError),
}

impl From<WorkerError> for QueryError {
    fn from(e: WorkerError) -> QueryError {
        QueryError::Engine(PrologError::Process(e))
    }
}
