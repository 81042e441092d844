//! One answer of a query ([`Answer`]), how a query ended ([`End`]), and what an engine replaced
//! could not get back ([`Lost`]).

use serde::{Deserialize, Serialize};

use super::{ConsultError, Exception};
use crate::prolog::term::Term;
use crate::prolog::PrologError;
use crate::puzzle::Grid;
use crate::Limit;

/// One answer of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// `Name = Value` bindings of the query's variables, in the query's order (unbound ones
    /// left out).
    pub bindings: Vec<(String, Term)>,
    /// The answer as a Prolog top level prints it, residual constraints included.
    pub text: String,
}

impl Answer {
    /// The value bound to the variable `name`.
    pub fn get(&self, name: &str) -> Option<&Term> {
        self.bindings
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }

    /// The value of `name`, which must be bound ([`PrologError::Unbound`]).
    pub fn term(&self, name: &str) -> Result<&Term, PrologError> {
        self.get(name)
            .ok_or_else(|| PrologError::Unbound(name.to_string()))
    }

    /// The value of `name` as an `n` x `n` grid (the `T` of `kenken(N, C, T)`).
    pub fn grid(&self, name: &str, n: usize) -> Result<Grid, PrologError> {
        self.term(name)?.as_grid(n)
    }

    /// The value of `name` as an integer: a typed error when it is unbound
    /// ([`PrologError::Unbound`]) or no integer of 64 bits ([`PrologError::NotA`]).
    pub fn integer(&self, name: &str) -> Result<i64, PrologError> {
        let t = self.term(name)?;
        t.as_i64().ok_or_else(|| PrologError::NotA {
            name: name.to_string(),
            expected: if matches!(t, Term::BigInteger(_)) {
                "an integer of 64 bits"
            } else {
                "an integer"
            },
            value: t.to_string(),
        })
    }
}

/// How a query ended.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum End {
    /// Every answer was given (possibly none: `false`).
    Complete,
    /// More answers exist than were asked for.
    AnswerLimit,
    /// A bound stopped the query: the timeout, or the inferences of one answer.
    Stopped(Limit),
    /// An answer had more nodes than [`Query::answer_cap`](super::Query::answer_cap) (the iterator
    /// gave [`QueryError::AnswerTooLarge`](super::QueryError::AnswerTooLarge) in its place).
    AnswerTooLarge(usize),
    /// The goal raised an exception.
    Exception(Exception),
    /// The goal called `halt/0` (code 0) or `halt/1`: the query ended there; the engine goes
    /// on (a [`Session`](crate::prolog::Session) keeps its state).
    Halted(i64),
    /// The engine failed on this goal (Scryer panicked on it, not a Prolog exception; or a worker's
    /// process died): the engine was replaced, and the next query finds the state the engine had
    /// after the last query that ended ([`Answers::lost`](super::Answers::lost) names what of it
    /// could not be given back). The text says what failed (Scryer's panic message, or how the
    /// process ended and the end of what it wrote to its standard error).
    Crashed(String),
}

/// What of an engine's state its replacement did not get back
/// ([`Answers::lost`](super::Answers::lost)).
///
/// An engine is replaced after a worker's timeout or crash, a worker's query whose
/// [`Answers`](super::Answers) were dropped before their end while it still ran, a protocol
/// error, or a Scryer panic in a [`Session`](crate::prolog::Session). The replacement gets the state the engine had after
/// the last query that ended (a query cut short by the replacement keeps nothing it did): the files
/// consulted, the clauses of the dynamic predicates of `user` (asserted or consulted) and of the
/// modules a goal asserted into (`assertz(m:fact(1))`), the flags and operators changed, the
/// modules imported and the values put with `bb_put/2`; the same record and replay as the top
/// level's (`kk_state/1` and `kk_restore/8` in `prolog/host/state.pl`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lost {
    /// The value of a `bb_put/2` key that cannot be replayed: `why` is `not ground`, or
    /// `cyclic, or too big` (more than 10,000 cells).
    Global {
        /// The key, as Prolog writes it.
        key: String,
        /// Why it was not kept.
        why: String,
    },
    /// The clauses of a predicate that could not be read to be kept (none of them were given
    /// back; the other predicates were).
    Predicate {
        /// The predicate, as Prolog writes it (`p/1`, `m:p/1`).
        name: String,
        /// Why, as Prolog writes the error.
        why: String,
    },
    /// A file consulted before that did not load again.
    File(ConsultError),
    /// The whole state: giving it back failed (this says how), so the replacement started
    /// without it.
    State(String),
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lost::Global { key, why } => write!(f, "the value of {key} (bb_put/2; {why})"),
            Lost::Predicate { name, why } => write!(f, "the clauses of {name} ({why})"),
            Lost::File(e) => write!(f, "a consulted file: {e}"),
            Lost::State(why) => write!(f, "the whole state: {why}"),
        }
    }
}
