//! One query API, in this thread or in a worker process: a [`Query`] (goal text and its bounds)
//! gives [`Answers`], a lazy iterator of [`Answer`]s (bindings by name, as the crate's own
//! [`Term`]), and once they are all read, how the query [`End`]ed.
//!
//! In this thread ([`super::Session::query`]) a query cannot be stopped by the clock (Scryer cannot be
//! interrupted), so a query with a timeout is refused there
//! ([`QueryError::NeedsWorker`]); a [`QueryWorker`] runs it in a child process that is killed at
//! the deadline, and every answer found before it is kept (the worker sends each answer as it
//! finds it).
//!
//! ```no_run
//! use kenken::prolog::{End, Query, QueryWorker};
//! use std::time::Duration;
//!
//! kenken::worker::init(); // first thing in main: a worker is this program started again
//! let mut worker = QueryWorker::new().unwrap();
//! let query = Query::new("length(L, N).").timeout(Duration::from_millis(200));
//! let mut answers = worker.query(&query).unwrap();
//! let mut found = 0;
//! for answer in answers.by_ref() {
//!     let answer = answer.unwrap();
//!     assert_eq!(answer.integer("N").unwrap(), found);
//!     found += 1;
//! }
//! assert_eq!(answers.end(), Some(&End::Stopped(kenken::Limit::Time)));
//! ```
//!
//! One text is one goal: a text of several (`X = 1. Y = 2.`, cut where the command line cuts
//! them, [`super::goals::split_goals`]) is refused ([`QueryError::SeveralGoals`]) rather
//! than run in part. An answer of any depth comes back (the wrapper encodes it so that its
//! conversion is linear in its size and never recursive: `prolog/host_query.pl`), up to
//! [`Query::answer_cap`] nodes ([`QueryError::AnswerTooLarge`] past it).
//!
//! An engine replaced (a worker after its timeout or a crash, a machine left with a query
//! half-run, ...) gets back the state the one before had after the last query that ended, by
//! the top level's record and replay (`kk_state/1` and `kk_restore/8` of `prolog/host/state.pl`,
//! called by `kk_end_state/1` and `kk_query_restore/2` of `prolog/host_query.pl`): the state
//! is taken after a goal that may have changed it, and given back at the next query, whose
//! [`Answers::lost`] names what could not be ([`Lost`]). Files are consulted with typed errors
//! ([`ConsultError`]); what a goal writes to `user_output` is kept ([`Answers::printed`]).

//!
//! By concern: the [`Query`] and its parameters here; [`Answer`], [`End`] and [`Lost`] in
//! `answer.rs`; the errors in `error.rs`; the [`Answers`] iterator in `answers.rs`, and where they
//! come from ([`InThread`], [`InWorker`]) in `sources.rs`; what a machine in this thread prints,
//! and the channel its wrapper reads between answers, in `capture.rs`; what the wrapper gives
//! ([`Item`]) and its reading from Scryer's terms in `item.rs`; the parent's side of a
//! [`QueryWorker`] in `worker.rs` (the worker's side, a [`crate::prolog::Session`] serving it, is
//! `src/prolog/serve.rs`); the consult and restore queries a session and a worker share in
//! `consult.rs`; a worker's state sent to its parent as what changed in `delta.rs`. This module imports none of `session.rs`, `serve.rs` or `toplevel/`: they
//! build on it.

mod answer;
mod answers;
mod capture;
mod consult;
mod delta;
mod error;
mod item;
mod sources;
mod worker;

pub use answer::{Answer, End, Lost};
use answers::EXCERPT;
pub(crate) use answers::{excerpt, Printed};
pub use answers::{Answers, PRINTED_CAP};
pub(crate) use capture::Capture;
pub use consult::Consulted;
pub(crate) use consult::{consult_query, consulted, read_consult, restore_query, restored};
pub(crate) use delta::StateDelta;
pub use error::{ConsultError, Exception, QueryError};
use item::item;
pub(crate) use item::Item;
use sources::source;
pub(crate) use sources::Kept;
pub use sources::{AnswerSource, InThread, InWorker};
pub use worker::QueryWorker;
pub(crate) use worker::ROLE;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::term::Term;
use super::{DEFAULT_ANSWER_CAP, DEFAULT_INFERENCE_LIMIT};

/// A goal to run, and its bounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// The goal's text (the final `.` may be left out).
    pub goal: String,
    /// At most this many answers; `None`: every answer.
    pub max_answers: Option<usize>,
    /// At most this many inferences for each answer.
    pub inferences: u64,
    /// Wall-clock bound on the whole query (a [`QueryWorker`] only).
    pub timeout: Option<Duration>,
    /// At most this many nodes (atomic terms, variables, compound terms, list cells) in the
    /// bindings of one answer; past it the query ends with [`QueryError::AnswerTooLarge`]. A
    /// compound term nested more than a million levels deep (list tails aside), or a cyclic
    /// one, is too large whatever the cap.
    pub answer_cap: usize,
    /// Whether each answer's text ([`Answer::text`]) is written (the default). Without it,
    /// an answer whose bindings are ground comes with an empty text and no residual goals,
    /// which saves the engine most of its work per answer when a goal has many (the
    /// homework's solvers run so); one with variables is written as ever.
    #[serde(default = "written")]
    pub text: bool,
    /// Values for variables of the goal, by name ([`Query::bind`]): bound before the goal
    /// runs, and not shown in its answers.
    #[serde(default)]
    pub params: Vec<(String, Term)>,
}

/// The default of [`Query::text`].
fn written() -> bool {
    true
}

impl Query {
    /// `goal`, for every answer, within the default inference bound per answer, with no
    /// timeout.
    pub fn new(goal: &str) -> Query {
        Query {
            goal: goal.to_string(),
            max_answers: None,
            inferences: DEFAULT_INFERENCE_LIMIT,
            timeout: None,
            answer_cap: DEFAULT_ANSWER_CAP,
            text: true,
            params: Vec::new(),
        }
    }

    /// This query, its goal's variable `name` bound to `value` before the goal runs: a
    /// parameter, as `rusqlite`'s `params!` are, never spliced into the goal's text: the
    /// engine builds the very term (the value travels as a flat list of tokens, none read as
    /// an operator: `(a:b)-c`, `xor(1, 2)`, `dynamic(a/1)` arrive as they are, whatever the
    /// engine's operators and flags, at any depth). The value's variables are the goal's of
    /// the same names. A [`Term::BigInteger`] or [`Term::Rational`] whose text is not a number
    /// is an error of the query ([`QueryError::BadParam`]). A name the goal has no variable
    /// of is an error of the query ([`QueryError::UnknownParam`]); the answers do not show
    /// the variables bound so.
    ///
    /// ```no_run
    /// use kenken::prolog::{Query, Session, Term};
    ///
    /// let mut session = Session::new();
    /// let query = Query::new("member(X, Xs), X > Min")
    ///     .bind("Xs", vec![3, 1, 4, 1, 5])
    ///     .bind("Min", 2);
    /// let (answers, _) = session.query(&query).unwrap().collect_all().unwrap();
    /// let xs: Vec<i64> = answers.iter().map(|a| a.integer("X").unwrap()).collect();
    /// assert_eq!(xs, [3, 4, 5]);
    /// # let _ = Term::atom("a");
    /// ```
    pub fn bind(mut self, name: &str, value: impl Into<Term>) -> Query {
        self.params.push((name.to_string(), value.into()));
        self
    }

    /// This query, its answers' text left unwritten where their bindings are ground
    /// ([`Query::text`]).
    pub fn without_text(self) -> Query {
        Query {
            text: false,
            ..self
        }
    }

    /// This query, with at most `nodes` nodes in one answer's bindings.
    pub fn answer_cap(self, nodes: usize) -> Query {
        Query {
            answer_cap: nodes,
            ..self
        }
    }

    /// Refuses a text of several goals ([`QueryError::SeveralGoals`]), and a parameter that
    /// is no term ([`QueryError::BadParam`]: a number whose text is not one).
    pub(crate) fn check(&self) -> Result<(), QueryError> {
        let goals = super::goals::split_goals(&self.goal);
        let count = goals.complete.len() + usize::from(goals.rest.is_some());
        if count > 1 {
            return Err(QueryError::SeveralGoals { count });
        }
        for (name, value) in &self.params {
            super::term::param::tokens(value, &mut String::new()).map_err(|why| {
                QueryError::BadParam {
                    name: name.clone(),
                    why,
                }
            })?;
        }
        Ok(())
    }

    /// This query, for at most `max` answers.
    pub fn max_answers(self, max: usize) -> Query {
        Query {
            max_answers: Some(max),
            ..self
        }
    }

    /// This query, with at most `inferences` inferences for each answer.
    pub fn inferences(self, inferences: u64) -> Query {
        Query { inferences, ..self }
    }

    /// This query, stopped after `timeout` of wall-clock time (in a [`QueryWorker`]).
    pub fn timeout(self, timeout: Duration) -> Query {
        Query {
            timeout: Some(timeout),
            ..self
        }
    }

    /// The goal the engine runs: the wrapper `kk_host_stream/9` of `prolog/host_query.pl`,
    /// the user's text passed as an escaped string, so that it always parses.
    pub(crate) fn wrapped(&self) -> String {
        let mut text = self.goal.trim_end().to_string();
        if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let max = self.max_answers.unwrap_or(usize::MAX / 2).max(1);
        // (each value as the tokens the engine builds it of: the very term, whatever the
        // engine's operators; a value `check` refused is left out)
        let mut params = String::from("[");
        for (name, value) in &self.params {
            let mut tokens = String::new();
            if super::term::param::tokens(value, &mut tokens).is_err() {
                continue;
            }
            if params.len() > 1 {
                params.push(',');
            }
            params.push_str("p(");
            super::write::quoted(&mut params, name);
            params.push(',');
            params.push_str(&tokens);
            params.push(')');
        }
        params.push_str("] .");
        format!(
            "kk_host_stream({}, {}, {}, {}, {}, {}, R, I, W).",
            super::quote(&text),
            super::quote(&params),
            self.inferences,
            max,
            self.answer_cap.clamp(1, usize::MAX / 2),
            if self.text { "text" } else { "bindings" }
        )
    }
}
