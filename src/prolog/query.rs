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
//! them, [`super::toplevel::split_goals`]) is refused ([`QueryError::SeveralGoals`]) rather
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

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use scryer_prolog::{LeafAnswer, QueryState, Term as ScryerTerm};
use serde::{Deserialize, Serialize};

use super::term::{chars_of_owned, drop_scryer, term_text, Term};
use super::{PrologError, DEFAULT_ANSWER_CAP, DEFAULT_INFERENCE_LIMIT};
use crate::error::Context;
use crate::process::{Reply, Worker, WorkerError};
use crate::puzzle::Grid;
use crate::Limit;
use source::Got;

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
    /// parameter, as `rusqlite`'s `params!` are, never spliced into the goal's text (the value
    /// travels as Prolog text that reads back as the same term: [`Term::to_prolog`]). The
    /// value's variables are the goal's of the same names. A name the goal has no variable
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

    /// Refuses a text of several goals: [`QueryError::SeveralGoals`].
    pub(crate) fn check(&self) -> Result<(), QueryError> {
        let goals = super::toplevel::split_goals(&self.goal);
        let count = goals.complete.len() + usize::from(goals.rest.is_some());
        if count > 1 {
            return Err(QueryError::SeveralGoals { count });
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

    /// The goal the engine runs: the wrapper `kk_host_stream/8` of `prolog/host_query.pl`,
    /// the user's text passed as an escaped string, so that it always parses.
    pub(crate) fn wrapped(&self) -> String {
        let mut text = self.goal.trim_end().to_string();
        if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let max = self.max_answers.unwrap_or(usize::MAX / 2).max(1);
        let mut params = String::from("[");
        for (i, (name, value)) in self.params.iter().enumerate() {
            if i > 0 {
                params.push(',');
            }
            super::write::atom(&mut params, name);
            params.push_str("=(");
            super::write::write(value, &mut params, None);
            params.push(')');
        }
        params.push_str("] .");
        format!(
            "kk_host_stream({}, {}, {}, {}, {}, {}, R, I).",
            super::quote(&text),
            super::quote(&params),
            self.inferences,
            max,
            self.answer_cap.clamp(1, usize::MAX / 2),
            if self.text { "text" } else { "bindings" }
        )
    }
}

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

    /// The value of `name`, which must be bound.
    pub fn term(&self, name: &str) -> Result<&Term, PrologError> {
        self.get(name)
            .ok_or_else(|| PrologError::Protocol(format!("the answer binds no {name}")))
    }

    /// The value of `name` as an `n` x `n` grid (the `T` of `kenken(N, C, T)`).
    pub fn grid(&self, name: &str, n: usize) -> Result<Grid, PrologError> {
        self.term(name)?.as_grid(n)
    }

    /// The value of `name` as an integer.
    pub fn integer(&self, name: &str) -> Result<i64, PrologError> {
        let t = self.term(name)?;
        t.as_i64()
            .ok_or_else(|| PrologError::Protocol(format!("{name} = {t} is not an integer")))
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
    /// An answer had more nodes than [`Query::answer_cap`] (the iterator gave
    /// [`QueryError::AnswerTooLarge`] in its place).
    AnswerTooLarge(usize),
    /// The goal raised an exception.
    Exception(Exception),
    /// The goal called `halt/0` (code 0) or `halt/1`: the query ended there; the engine goes
    /// on (a [`Session`](super::Session) keeps its state).
    Halted(i64),
    /// The engine failed on this goal (Scryer panicked on it, not a Prolog exception; or a
    /// worker's process died): the engine was replaced, and the next query finds the state
    /// the engine had after the last query that ended ([`Answers::lost`] names what of it
    /// could not be given back). The text says what failed (Scryer's panic message, or how
    /// the process ended and the end of what it wrote to its standard error).
    Crashed(String),
}

/// What of an engine's state its replacement did not get back ([`Answers::lost`]).
///
/// An engine is replaced after a worker's timeout or crash, a query whose [`Answers`] were
/// dropped before their end, a protocol error, or a Scryer panic in a [`Session`](super::Session).
/// The replacement gets the state the engine had after the last query that ended (a query
/// cut short by the replacement keeps nothing it did): the files consulted, the clauses of
/// the dynamic predicates of `user` (asserted or consulted) and of the modules a goal
/// asserted into (`assertz(m:fact(1))`), the flags and operators changed,
/// the modules imported and the values put with `bb_put/2`; the same record and replay as the
/// top level's (`kk_state/1` and `kk_restore/8` in `prolog/host/state.pl`).
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
            Lost::File(e) => write!(f, "a consulted file: {e}"),
            Lost::State(why) => write!(f, "the whole state: {why}"),
        }
    }
}

/// Why a file was not consulted ([`super::Session::consult`], [`QueryWorker::consult`]).
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
    /// An answer has more nodes than [`Query::answer_cap`]: the query was stopped there.
    #[error("an answer has more than {cap} nodes (Query::answer_cap): the query was stopped")]
    AnswerTooLarge {
        /// The cap.
        cap: usize,
    },
    /// A worker did not get ready within the time it was given
    /// ([`QueryWorker::start_within`]); it goes on starting in the background, killed when the
    /// error is dropped with nothing else holding it.
    #[error("the Prolog worker did not start within {0:?}")]
    StartTimeout(Duration),
    /// A parameter ([`Query::bind`]) names no variable of the goal.
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

/// What the wrapper gives, item by item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Item {
    Syntax(String, Option<usize>),
    /// A parameter names no variable of the goal.
    Param(String),
    Answer(Answer),
    /// How the query ended, and the engine's state after it when the goal may have changed
    /// it (`kk_state/1`'s text).
    End(End, Option<String>),
    /// What the engine lost when it was replaced before this query (a worker's own session
    /// tells its parent).
    Lost(Vec<Lost>),
}

/// At most this much of what a query prints is kept ([`Answers::printed`]).
pub const PRINTED_CAP: usize = 1 << 20;

/// What a query printed so far, at most [`PRINTED_CAP`] bytes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Printed {
    text: String,
    cut: bool,
}

impl Printed {
    /// Adds `more` (cut at the cap, on a character boundary).
    pub(crate) fn push(&mut self, more: &str, cut: bool) {
        let room = PRINTED_CAP.saturating_sub(self.text.len());
        if more.len() <= room {
            self.text.push_str(more);
        } else {
            let mut end = room;
            while !more.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&more[..end]);
            self.cut = true;
        }
        self.cut |= cut;
    }
}

/// At most this much of a reply is quoted in an error.
const EXCERPT: usize = 200;

/// The start of `text`, at most [`EXCERPT`] bytes, with `...` and its length when it is
/// longer: what an error quotes of a reply (a reply may be megabytes).
pub(crate) fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT {
        return text.to_string();
    }
    let mut end = EXCERPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len())
}

/// The answers of a query, as they are found ([`super::Session::query`], [`QueryWorker::query`]);
/// after the last one, [`Answers::end`] says how the query ended.
///
/// `S` is where they come from: [`InThread`] (a [`Session`](super::Session): not `Send`, as
/// Scryer's machine is not) or [`InWorker`] (a [`QueryWorker`]: `Send`, so that answers can be
/// held across an `.await` or read on another thread).
///
/// In this thread, an iterator dropped before its end leaves the session to be rebuilt on its
/// next query (about 0.4 s): Scryer cannot leave a query half-run. Ask only for the answers you
/// want with [`Query::max_answers`]. A worker's answers dropped before their end (`.take(3)`)
/// keep the worker when the rest of its reply comes within a quarter of a second (the goal had
/// found its other answers); a query still running then replaces the worker (the replacement
/// starts at once, and gets the state back at the next query).
pub struct Answers<'a, S: AnswerSource = InThread<'a>> {
    source: S,
    /// Items read ahead (the first one, to tell a syntax error).
    ahead: VecDeque<Item>,
    end: Option<End>,
    got: Got,
    /// What the engine lost when it was replaced before this query.
    lost: Vec<Lost>,
    /// The engine's state after the query, when the goal may have changed it.
    state: Option<String>,
    _source: std::marker::PhantomData<&'a ()>,
}

/// Where the [`Answers`] of a query come from: [`InThread`] or [`InWorker`] (sealed).
pub trait AnswerSource: source::Read {}

mod source {
    use super::{Item, Printed, QueryError};

    /// What a source gives besides its items.
    #[derive(Debug, Default)]
    pub struct Got {
        /// The inferences so far.
        pub(super) inferences: Option<u64>,
        /// What the goal printed so far.
        pub(super) printed: Printed,
    }

    /// The next item a source gives (`None`: the source is done).
    pub struct Next(pub(super) Option<Result<Item, QueryError>>);

    /// What [`super::Answers`] asks of its source.
    pub trait Read {
        /// The next item; the inferences and what was printed are updated.
        fn read(&mut self, got: &mut Got) -> Next;
        /// The engine's state after the query (kept for its replacement).
        fn keep(&mut self, state: &str);
        /// The query is over: what is left of its reply is read.
        fn finish(&mut self);
        /// The query is left before its end (an error, or the answers dropped).
        fn abandon(&mut self);
    }
}

/// The source of answers in this thread (a [`Session`](super::Session)'s machine).
pub struct InThread<'a> {
    state: Option<QueryState<'a>>,
    /// What the session keeps for a replacement engine.
    kept: &'a mut Kept,
    /// What the engine writes to `user_output`.
    capture: &'a super::session::Capture,
}

/// What an engine's owner keeps for the engine that may replace it.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The engine must be replaced before the next query (a query was left half-run, or the
    /// engine failed).
    pub(crate) broken: bool,
    /// The state after the last query that may have changed it (`kk_state/1`'s text).
    pub(crate) state: Option<String>,
    /// The process id of the worker that holds the state (a [`QueryWorker`]).
    pub(crate) holder: Option<u32>,
    /// What the engine lost when it was last replaced, not yet told (by [`Answers::lost`]).
    pub(crate) lost: Vec<Lost>,
}

/// The source of answers from a worker process (a [`QueryWorker`]).
pub struct InWorker<'a> {
    /// `None` once the reply is read (or there was none).
    worker: Option<&'a mut Worker>,
    deadline: Option<Instant>,
    /// Where the state after the query goes.
    kept: Option<&'a mut Kept>,
}

impl AnswerSource for InThread<'_> {}
impl AnswerSource for InWorker<'_> {}

impl source::Read for InThread<'_> {
    fn read(&mut self, got: &mut Got) -> source::Next {
        source::Next(self.next_item(got))
    }

    fn keep(&mut self, state: &str) {
        self.kept.state = Some(state.to_string());
    }

    fn finish(&mut self) {
        self.state = None;
    }

    fn abandon(&mut self) {
        if self.state.take().is_some() {
            // left before its end: the machine still holds the query
            self.kept.broken = true;
        }
    }
}

impl InThread<'_> {
    fn next_item(&mut self, got: &mut Got) -> Option<Result<Item, QueryError>> {
        let state = self.state.as_mut()?;
        let next = super::session::quietly(|| state.next());
        let (printed, cut) = self.capture.take();
        got.printed.push(&printed, cut);
        Some(match next {
            Ok(Some(Ok(LeafAnswer::LeafAnswer { mut bindings, .. }))) => {
                if let Some(ScryerTerm::Integer(i)) = bindings.get("I") {
                    got.inferences = i.to_string().parse().ok();
                }
                match bindings.remove("R") {
                    Some(r) => item(r).map_err(QueryError::from),
                    // The wrapper stopped before its end: the machine itself halted (halt/0,1
                    // in a goal built as it ran, which the host's load-time and typed-goal
                    // rewriting cannot see): no longer to be trusted, as after a panic.
                    None => {
                        self.kept.broken = true;
                        Ok(Item::End(
                            End::Crashed(
                                "the goal stopped the Prolog engine (halt/0,1 in a goal built \
                                 as it ran); the session was restarted"
                                    .into(),
                            ),
                            None,
                        ))
                    }
                }
            }
            Ok(Some(Ok(_))) | Ok(None) => {
                self.kept.broken = true;
                Err(PrologError::Protocol("the wrapper ended without end/2".into()).into())
            }
            Ok(Some(Err(e))) => {
                self.kept.broken = true;
                let text = excerpt(&term_text(&e));
                drop_scryer(e);
                Err(PrologError::Protocol(text).into())
            }
            Err(panic) => {
                // Scryer 0.10 panics on a few goals instead of raising an error (asserting a
                // cyclic term in a user's predicate): the machine is no longer to be trusted.
                // (Its message was kept off the standard error: `quietly`.)
                self.kept.broken = true;
                Ok(Item::End(
                    End::Crashed(format!(
                        "the Prolog engine failed on this goal (Scryer Prolog: {panic}); the \
                         session was restarted"
                    )),
                    None,
                ))
            }
        })
    }
}

impl source::Read for InWorker<'_> {
    fn read(&mut self, got: &mut Got) -> source::Next {
        source::Next(self.next_item(got))
    }

    fn keep(&mut self, state: &str) {
        if let Some(kept) = self.kept.as_mut() {
            kept.state = Some(state.to_string());
            kept.holder = self.worker.as_ref().and_then(|w| w.pid());
        }
    }

    /// A worker's final reply is read (it follows the last item). A worker that was replaced
    /// (after a timeout) has no reply to read: the replacement is kept, starting, for the next
    /// query.
    fn finish(&mut self) {
        if let Some(worker) = self.worker.take() {
            if worker.awaiting_reply() {
                while let Ok(Reply::Part(_)) = worker.next(self.deadline) {}
            }
        }
    }

    /// A worker whose reply was not read to its end (`.take(3)`, a `break`) reads the rest
    /// of it for a moment ([`DRAIN`], and not past the query's deadline): a query whose other
    /// answers were found already ends there, and the worker is kept with its state. One
    /// still running then is replaced at once (its next reply would be this query's), the
    /// replacement starting while the caller goes on.
    fn abandon(&mut self) {
        let Some(worker) = self.worker.take() else {
            return;
        };
        if !worker.awaiting_reply() {
            return;
        }
        let drain = Instant::now() + DRAIN;
        let until = self.deadline.map_or(drain, |d| d.min(drain));
        loop {
            match worker.next(Some(until)) {
                Ok(Reply::Part(line)) => {
                    if let Ok((Item::End(_, Some(state)), _, _)) =
                        serde_json::from_str::<Part>(&line)
                    {
                        if let Some(kept) = self.kept.as_mut() {
                            kept.state = Some(state);
                            kept.holder = worker.pid();
                        }
                    }
                }
                Ok(Reply::Done(_)) => return,
                Ok(Reply::Timeout) | Err(_) => break,
            }
        }
        worker.stop();
        let _ = worker.prestart();
    }
}

impl InWorker<'_> {
    fn next_item(&mut self, got: &mut Got) -> Option<Result<Item, QueryError>> {
        let worker = self.worker.as_mut()?;
        let reply = match worker.next(self.deadline) {
            Ok(r) => r,
            Err(e @ WorkerError::Died { .. }) => {
                // the process died (a crash, not a Prolog error): a fresh one starts at once,
                // and gets the state back at the next query
                let _ = worker.prestart();
                return Some(Ok(Item::End(End::Crashed(died_text(&e)), None)));
            }
            Err(e) => return Some(Err(e.into())),
        };
        Some(match reply {
            Reply::Part(line) => serde_json::from_str::<Part>(&line)
                .with_context(|| format!("reading the worker's answer {}", excerpt(&line)))
                .map_err(|e| PrologError::from(e).into())
                .map(|(item, i, printed)| {
                    got.inferences = i.or(got.inferences);
                    got.printed.push(&printed.0, printed.1);
                    item
                }),
            Reply::Done(line) => {
                let got = serde_json::from_str::<Result<(), String>>(&line)
                    .with_context(|| format!("reading the worker's reply {}", excerpt(&line)))
                    .map_err(PrologError::from);
                let e = match got {
                    Ok(Err(e)) => PrologError::Protocol(excerpt(&e)),
                    Ok(Ok(())) => PrologError::Protocol("the worker ended without end/2".into()),
                    Err(e) => e,
                };
                Err(e.into())
            }
            Reply::Timeout => {
                // a fresh worker starts at once, while the caller goes on
                let _ = worker.prestart();
                Ok(Item::End(End::Stopped(Limit::Time), None))
            }
        })
    }
}

/// How long answers dropped before their end wait for the rest of a worker's reply before
/// the worker is replaced ([`InWorker`]'s `abandon`).
const DRAIN: Duration = Duration::from_millis(250);

/// A part of a worker's reply: an item, the inferences so far, and what the goal printed
/// since the part before (and whether some of it was cut).
type Part = (Item, Option<u64>, (String, bool));

/// What a worker's death says: how it ended and the end of its standard error (where a
/// panic's message is), or the error as it reads.
fn died_text(e: &WorkerError) -> String {
    match e {
        WorkerError::Died { status, stderr } => {
            let tail = stderr.trim_end();
            let mut start = tail.len().saturating_sub(EXCERPT * 4);
            while !tail.is_char_boundary(start) {
                start += 1;
            }
            if tail.is_empty() {
                format!("the Prolog worker stopped ({status}); a fresh one was started")
            } else {
                format!(
                    "the Prolog worker stopped ({status}); a fresh one was started. It wrote: {}",
                    &tail[start..]
                )
            }
        }
        e => e.to_string(),
    }
}

impl<'a> Answers<'a, InThread<'a>> {
    /// Answers read from a query running in a machine whose `user_output` is `capture`;
    /// `kept` is told when the machine must not be used again, and the state after the query.
    /// `lost`: what the engine lost when it was replaced before this query.
    pub(crate) fn engine(
        state: QueryState<'a>,
        kept: &'a mut Kept,
        capture: &'a super::session::Capture,
        lost: Vec<Lost>,
    ) -> Result<Answers<'a, InThread<'a>>, QueryError> {
        Answers::started(
            InThread {
                state: Some(state),
                kept,
                capture,
            },
            lost,
        )
    }
}

impl<'a> Answers<'a, InWorker<'a>> {
    /// Answers read from a worker that was sent a query; its reply ends at `deadline`; the
    /// state after the query goes to `kept`.
    pub(crate) fn worker(
        worker: &'a mut Worker,
        deadline: Option<Instant>,
        kept: &'a mut Kept,
        lost: Vec<Lost>,
    ) -> Result<Answers<'a, InWorker<'a>>, QueryError> {
        Answers::started(
            InWorker {
                worker: Some(worker),
                deadline,
                kept: Some(kept),
            },
            lost,
        )
    }

    /// An answer-less query that ended as said.
    pub(crate) fn ended(end: End, lost: Vec<Lost>) -> Answers<'a, InWorker<'a>> {
        Answers {
            source: InWorker {
                worker: None,
                deadline: None,
                kept: None,
            },
            ahead: VecDeque::new(),
            end: Some(end),
            got: Got::default(),
            lost,
            state: None,
            _source: std::marker::PhantomData,
        }
    }
}

impl<'a, S: AnswerSource> Answers<'a, S> {
    /// Reads the first item: a syntax error is the query's error.
    fn started(source: S, lost: Vec<Lost>) -> Result<Answers<'a, S>, QueryError> {
        let mut answers = Answers {
            source,
            ahead: VecDeque::new(),
            end: None,
            got: Got::default(),
            lost,
            state: None,
            _source: std::marker::PhantomData,
        };
        // (what a worker's own session lost comes first)
        let first = loop {
            match answers.read() {
                Ok(Item::Lost(lost)) => answers.lost.extend(lost),
                other => break other,
            }
        };
        match first {
            Err(e) => {
                answers.source.abandon();
                Err(e)
            }
            Ok(Item::Syntax(message, line)) => {
                answers.source.finish();
                Err(QueryError::Syntax { message, line })
            }
            Ok(Item::Param(name)) => {
                answers.source.finish();
                Err(QueryError::UnknownParam { name })
            }
            Ok(item) => {
                answers.ahead.push_back(item);
                Ok(answers)
            }
        }
    }

    /// How the query ended, once every answer has been read (`None` before).
    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    /// Prolog inferences the query took so far (`None` where not measured).
    pub fn inferences(&self) -> Option<u64> {
        self.got.inferences
    }

    /// What the goal wrote to `user_output` so far (`write/1`, `format/2`, ...): all of it
    /// once the answers are read to their end; up to each answer, once it is read. At most
    /// [`PRINTED_CAP`] bytes are kept ([`Answers::printed_cut`] says when more was written).
    /// What goes to `user_error` is not kept. (A worker stopped by its timeout loses what
    /// its goal wrote after its last answer.)
    pub fn printed(&self) -> &str {
        &self.got.printed.text
    }

    /// Whether the goal wrote more than [`PRINTED_CAP`] bytes (the rest is not in
    /// [`Answers::printed`]).
    pub fn printed_cut(&self) -> bool {
        self.got.printed.cut
    }

    /// What the engine lost when it was replaced before this query (empty when it was not,
    /// or lost nothing): the state it had after the last query that ended was given back
    /// to its replacement, save these. See [`Lost`].
    pub fn lost(&self) -> &[Lost] {
        &self.lost
    }

    /// The engine's state after the query (`kk_state/1`'s text), when the goal may have
    /// changed it; once the answers are read to their end.
    pub(crate) fn state(&self) -> Option<&str> {
        self.state.as_deref()
    }

    /// Every answer left, and how the query ended.
    pub fn collect_all(mut self) -> Result<(Vec<Answer>, End), QueryError> {
        let answers = self.by_ref().collect::<Result<Vec<_>, _>>()?;
        let end = self.end.clone().unwrap_or(End::Complete);
        Ok((answers, end))
    }

    /// The next item from the source.
    fn read(&mut self) -> Result<Item, QueryError> {
        match self.source.read(&mut self.got).0 {
            Some(got) => got,
            None => Ok(Item::End(self.end.clone().unwrap_or(End::Complete), None)),
        }
    }
}

impl<S: AnswerSource> Iterator for Answers<'_, S> {
    type Item = Result<Answer, QueryError>;

    fn next(&mut self) -> Option<Result<Answer, QueryError>> {
        if self.end.is_some() {
            return None;
        }
        let item = match self.ahead.pop_front() {
            Some(item) => Ok(item),
            None => self.read(),
        };
        if let Ok(Item::End(_, Some(state))) = &item {
            self.source.keep(state);
        }
        match item {
            Ok(Item::Answer(a)) => Some(Ok(a)),
            Ok(Item::Lost(lost)) => {
                self.lost.extend(lost);
                self.next()
            }
            Ok(Item::End(End::AnswerTooLarge(cap), state)) => {
                self.end = Some(End::AnswerTooLarge(cap));
                self.state = state;
                self.source.finish();
                Some(Err(QueryError::AnswerTooLarge { cap }))
            }
            Ok(Item::End(end, state)) => {
                self.end = Some(end);
                self.state = state;
                self.source.finish();
                None
            }
            Ok(Item::Syntax(message, line)) => {
                self.end = Some(End::Complete);
                self.source.finish();
                Some(Err(QueryError::Syntax { message, line }))
            }
            Ok(Item::Param(name)) => {
                self.end = Some(End::Complete);
                self.source.finish();
                Some(Err(QueryError::UnknownParam { name }))
            }
            Err(e) => {
                self.end = Some(End::Complete);
                self.source.abandon();
                Some(Err(e))
            }
        }
    }
}

impl<S: AnswerSource> Drop for Answers<'_, S> {
    fn drop(&mut self) {
        // (nothing left once the query is over: a source forgets it at its end)
        self.source.abandon();
    }
}

/// The first line of a panic's message.
pub(crate) fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic")
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The item the wrapper bound to `R`, taken apart as it is read (an answer's values may be
/// deep: they are never dropped recursively).
fn item(r: ScryerTerm) -> Result<Item, PrologError> {
    let proto = |what: &str| PrologError::Protocol(format!("the wrapper gave {what}"));
    let ScryerTerm::Compound(f, args) = r else {
        return Err(proto("no item"));
    };
    if f == "end" && args.len() == 2 {
        let [status, state]: [ScryerTerm; 2] =
            args.try_into().map_err(|_| proto("a malformed end"))?;
        return end_item(status, state);
    }
    let [arg]: [ScryerTerm; 1] = args
        .try_into()
        .map_err(|_| proto("an item of several arguments"))?;
    match (f.as_str(), arg) {
        ("syntax_error", e) => {
            let (message, line) = syntax_error(&e);
            Ok(Item::Syntax(message, line))
        }
        ("param_error", ScryerTerm::Atom(name)) => Ok(Item::Param(name)),
        ("answer", ScryerTerm::Compound(a, parts)) if a == "a" => {
            let [bindings, text]: [ScryerTerm; 2] =
                parts.try_into().map_err(|_| proto("a malformed answer"))?;
            let items = match bindings {
                ScryerTerm::List(items) => items,
                ScryerTerm::Atom(n) if n == "[]" => Vec::new(),
                _ => return Err(proto("malformed bindings")),
            };
            let mut out = Vec::with_capacity(items.len());
            for b in items {
                let ScryerTerm::Compound(eq, nv) = b else {
                    return Err(proto("a malformed binding"));
                };
                let [name, value]: [ScryerTerm; 2] = match (eq.as_str(), nv.try_into()) {
                    ("=", Ok(nv)) => nv,
                    _ => return Err(proto("a malformed binding")),
                };
                let name = match name {
                    ScryerTerm::Atom(n) | ScryerTerm::String(n) => n,
                    _ => return Err(proto("a binding without a name")),
                };
                let value = Term::from_encoded(value).map_err(|e| proto(&e))?;
                out.push((name, value));
            }
            let text = answer_text(text).ok_or_else(|| proto("an answer without its text"))?;
            Ok(Item::Answer(Answer {
                bindings: out,
                text,
            }))
        }
        ("end", _) => Err(proto("an end without the state")),
        _ => Err(proto("an unknown item")),
    }
}

/// An answer's text from the wrapper's `text(Pieces)` (`kk_answer_text/4` of
/// `prolog/host_query.pl`): its pieces joined, each binding `Name = Value`, each residual goal
/// as it is, `true` for none; `[]` (the text left unwritten) is empty. Taken apart as it is
/// read: the chain of pieces is as deep as they are many.
fn answer_text(t: ScryerTerm) -> Option<String> {
    let (mut pieces, numbered) = match t {
        ScryerTerm::Compound(f, mut args) if f == "text" && args.len() == 2 => {
            let numbered = matches!(args.pop()?, ScryerTerm::Atom(n) if n == "true");
            (args.pop()?, numbered)
        }
        ScryerTerm::Atom(a) if a == "[]" => return Some(String::new()),
        ScryerTerm::List(items) if items.is_empty() => return Some(String::new()),
        ScryerTerm::String(s) if s.is_empty() => return Some(String::new()),
        other => {
            drop_scryer(other);
            return None;
        }
    };
    let mut text = String::new();
    loop {
        match pieces {
            ScryerTerm::Compound(f, args) if f == KK_CELL && args.len() == 3 => {
                let mut args = args.into_iter().skip(1);
                let (piece, rest) = (args.next()?, args.next()?);
                if !text.is_empty() {
                    text.push_str(",\n");
                }
                match piece {
                    ScryerTerm::Compound(eq, nv) if eq == "=" && nv.len() == 2 => {
                        let mut nv = nv.into_iter();
                        match (nv.next()?, nv.next()?) {
                            (ScryerTerm::Atom(name), value) => {
                                text.push_str(&name);
                                text.push_str(" = ");
                                text.push_str(&chars_of_owned(value)?);
                            }
                            (name, value) => {
                                drop_scryer(name);
                                drop_scryer(value);
                                drop_scryer(rest);
                                return None;
                            }
                        }
                    }
                    ScryerTerm::Compound(g, mut goal) if g == "g" && goal.len() == 1 => {
                        text.push_str(&chars_of_owned(goal.pop()?)?);
                    }
                    other => {
                        drop_scryer(other);
                        drop_scryer(rest);
                        return None;
                    }
                }
                pieces = rest;
            }
            ScryerTerm::Atom(a) if a == "[]" => break,
            ScryerTerm::List(items) if items.is_empty() => break,
            other => {
                drop_scryer(other);
                return None;
            }
        }
    }
    if text.is_empty() {
        text.push_str("true");
    }
    Some(if numbered { unnumbered(&text) } else { text })
}

/// `text` with the variables the wrapper numbered (written as `'$VAR'(K + 26 * 10^12)` is: a
/// capital letter and 13 digits starting with 1) named as [`Term::fresh_name`] names the
/// `K`-th: `_A`, ..., `_Z`, `_A1`, ... Quoted atoms and strings are left as they are.
fn unnumbered(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"' | b'`') => {
                // to the closing quote: \ escapes the next character, a doubled quote is one
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == b'\\' || (bytes[i] == q && bytes.get(i + 1) == Some(&q)) {
                        i += 2;
                    } else if bytes[i] == q {
                        i += 1;
                        break;
                    } else {
                        i += 1;
                    }
                }
            }
            b'A'..=b'Z' if i == 0 || !word(bytes[i - 1]) => {
                let start = i;
                while i < bytes.len() && word(bytes[i]) {
                    i += 1;
                }
                let token = &text[start..i];
                let digits = &token[1..];
                if token.len() == 14
                    && digits.starts_with('1')
                    && digits.bytes().all(|b| b.is_ascii_digit())
                {
                    if let Ok(n) = digits.parse::<u64>() {
                        let k = (n - 1_000_000_000_000) * 26 + u64::from(bytes[start] - b'A');
                        out.push_str(&text[copied..start]);
                        out.push_str(&Term::fresh_name(k));
                        copied = i;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The name of the cells of the wrapper's chains (`'$kk'(l, Head, Tail)`).
const KK_CELL: &str = "$kk";

/// The item `end(Status, State)` the wrapper bound to `R` (see `item`).
fn end_item(status: ScryerTerm, state: ScryerTerm) -> Result<Item, PrologError> {
    let proto = |what: &str| PrologError::Protocol(format!("the wrapper gave {what}"));
    let state = match state {
        ScryerTerm::Compound(f, mut v) if f == "state" && v.len() == 1 => {
            v.pop().and_then(chars_of_owned)
        }
        other => {
            drop_scryer(other);
            None
        }
    };
    let end = match status {
        ScryerTerm::Atom(s) if s == "complete" => End::Complete,
        ScryerTerm::Atom(s) if s == "answer_limit" => End::AnswerLimit,
        ScryerTerm::Atom(s) if s == "inference_limit" => End::Stopped(Limit::Inferences),
        ScryerTerm::Compound(f, e) if f == "answer_too_large" && e.len() == 1 => {
            End::AnswerTooLarge(integer(&e[0]).unwrap_or(0).try_into().unwrap_or(0))
        }
        ScryerTerm::Compound(f, e) if f == "halted" && e.len() == 1 => {
            End::Halted(integer(&e[0]).unwrap_or(0))
        }
        ScryerTerm::Compound(f, e) if f == "exception" && e.len() == 2 => {
            let [text, term]: [ScryerTerm; 2] =
                e.try_into().map_err(|_| proto("a malformed exception"))?;
            let text = chars_of_owned(text).unwrap_or_else(|| "an exception".into());
            let term = match term {
                ScryerTerm::Compound(t, mut v) if t == "term" && v.len() == 1 => {
                    v.pop().and_then(|v| Term::from_encoded(v).ok())
                }
                _ => None,
            };
            End::Exception(Exception { text, term })
        }
        _ => return Err(proto("an unknown end")),
    };
    Ok(Item::End(end, state))
}

/// The integer a Scryer term is, when it fits in an `i64`.
fn integer(t: &ScryerTerm) -> Option<i64> {
    match t {
        ScryerTerm::Integer(i) => i.to_string().parse().ok(),
        _ => None,
    }
}

/// The message and line of a syntax error term: Scryer's reader throws
/// `error(syntax_error(What), read_term_from_chars/3:Line)` (the line counted from 0, where it
/// says one).
fn syntax_error(e: &ScryerTerm) -> (String, Option<usize>) {
    match e {
        ScryerTerm::Compound(f, args) if f == "error" && args.len() == 2 => {
            let message = match &args[0] {
                ScryerTerm::Compound(s, what) if s == "syntax_error" && what.len() == 1 => {
                    term_text(&what[0])
                }
                other => term_text(other),
            };
            let line = match &args[1] {
                ScryerTerm::Compound(c, at) if c == ":" && at.len() == 2 => match &at[1] {
                    ScryerTerm::Integer(i) => i.to_string().parse::<usize>().ok().map(|c| c + 1),
                    _ => None,
                },
                _ => None,
            };
            (message, line)
        }
        other => (term_text(other).replace('_', " "), None),
    }
}

/// Queries in a worker process: each one bounded by its timeout, wall clock, from the call to
/// the last answer (the worker is started by [`QueryWorker::new`]). A warm spare worker is
/// kept, started once the first is ready: it takes over at once when a timeout kills the
/// running one (a new spare starts in the background), so the query after a timeout waits for
/// no start; the cost is a second process.
///
/// A worker replaced (after a timeout, a crash, answers dropped before their end, a protocol
/// error) gets back the state the one before had after the last query that ended: the files
/// consulted, the clauses asserted, the flags, operators, modules and `bb_put/2` values. The
/// first query after the replacement gives it back (within that query's timeout), and its
/// [`Answers::lost`] names what could not be ([`Lost`]).
pub struct QueryWorker {
    /// (in a mutex, only so that a `QueryWorker` is `Sync`: every use has `&mut self`)
    worker: std::sync::Mutex<Worker>,
    kept: Kept,
}

impl QueryWorker {
    /// Starts a worker (about 0.5 s) and waits until it is ready. The program must call
    /// [`crate::worker::init`] first thing in `main`.
    pub fn new() -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE).capture_stderr().with_spare();
        worker.start()?;
        Ok(QueryWorker {
            worker: std::sync::Mutex::new(worker),
            kept: Kept::default(),
        })
    }

    /// Starts a worker and waits until it is ready, for `timeout` at most:
    /// [`QueryError::StartTimeout`] then (the child is stopped). [`QueryWorker::new`] waits up
    /// to a minute.
    pub fn start_within(timeout: Duration) -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE).capture_stderr().with_spare();
        if !worker.start_within(Instant::now() + timeout)? {
            worker.stop();
            return Err(QueryError::StartTimeout(timeout));
        }
        Ok(QueryWorker {
            worker: std::sync::Mutex::new(worker),
            kept: Kept::default(),
        })
    }

    /// The worker process (the mutex is never held across a call).
    fn worker(&mut self) -> &mut Worker {
        self.worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `query` in the worker: its answers as they come, until its end or its timeout.
    ///
    /// Each query gets its own answers, whatever happened to the one before: a reply left
    /// unread (the [`Answers`] dropped early, or ended by an error) replaces the worker, and a
    /// line of a reply that is not this query's stops it ([`crate::process`]). A worker that
    /// replaced another is given its state back first ([`Answers::lost`]).
    ///
    /// A worker process that died while it waited for this query (killed, say) is replaced
    /// before the query is sent, and given the state back: the query is answered as if
    /// nothing happened. One that dies while it runs the query ends it with
    /// [`End::Crashed`]. Neither is an `Err`.
    pub fn query(&mut self, query: &Query) -> Result<Answers<'_, InWorker<'_>>, QueryError> {
        query.check()?;
        let deadline = query.timeout.map(|t| Instant::now() + t);
        let line = serde_json::to_string(query)
            .context("encoding the query")
            .map_err(PrologError::from)?;
        let mut lost = std::mem::take(&mut self.kept.lost);
        let mut retried = false;
        loop {
            if self.worker().running_has_ended() {
                // (it died idle: a fresh one, which the restore below gives the state)
                self.worker().stop();
                self.worker().prestart()?;
            }
            match self.restore(deadline)? {
                Some(more) => lost.extend(more),
                None => {
                    self.kept.lost = lost;
                    return Ok(Answers::ended(End::Stopped(Limit::Time), Vec::new()));
                }
            }
            match self.worker().send(&line, deadline) {
                Ok(true) => break,
                Ok(false) => {
                    let _ = self.worker().prestart();
                    return Ok(Answers::ended(End::Stopped(Limit::Time), lost));
                }
                // (it died between the look above and the request: once more, afresh)
                Err(WorkerError::Died { .. }) if !retried => {
                    retried = true;
                    self.worker().stop();
                    self.worker().prestart()?;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let QueryWorker { worker, kept } = self;
        let worker = worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Answers::worker(worker, deadline, kept, lost)
    }

    /// Consults `file` in the worker (it is consulted again in a worker that replaces this
    /// one), within `timeout`: a typed error when it does not load
    /// ([`QueryError::Consult`]); the clauses before a syntax error are loaded.
    pub fn consult(&mut self, file: &std::path::Path, timeout: Duration) -> Result<(), QueryError> {
        let query = consult_query(file).timeout(timeout);
        let answers = self.query(&query)?;
        let lost = answers.lost().to_vec();
        let got = answers.collect_all();
        // (told by the next query)
        self.kept.lost.extend(lost);
        consulted(file, got?)
    }

    /// Sends `query` to the worker (started unless it runs).
    fn send(
        &mut self,
        query: &Query,
        deadline: Option<Instant>,
        lost: Vec<Lost>,
    ) -> Result<Answers<'_, InWorker<'_>>, QueryError> {
        let line = serde_json::to_string(query)
            .context("encoding the query")
            .map_err(PrologError::from)?;
        if !self.worker().send(&line, deadline)? {
            let _ = self.worker().prestart();
            return Ok(Answers::ended(End::Stopped(Limit::Time), lost));
        }
        let QueryWorker { worker, kept } = self;
        let worker = worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Answers::worker(worker, deadline, kept, lost)
    }

    /// Gives a worker that replaced another the state the other had (`Some` with what could
    /// not be given back; nothing to give: `Some` of nothing); `None` when `deadline` passed
    /// first (the state is given at the next query). A state that breaks the worker is given
    /// up, and said so.
    fn restore(&mut self, deadline: Option<Instant>) -> Result<Option<Vec<Lost>>, QueryError> {
        let Some(state) = self.kept.state.clone() else {
            return Ok(Some(Vec::new()));
        };
        let pid = self.worker().pid();
        if pid.is_some() && pid == self.kept.holder {
            return Ok(Some(Vec::new()));
        }
        let mut query = restore_query(&state);
        query.timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let got = self
            .send(&query, deadline, Vec::new())
            .and_then(Answers::collect_all);
        let lost = match got {
            Ok((_, End::Stopped(Limit::Time))) => return Ok(None),
            Ok((answers, End::Complete)) => restored(&answers),
            Ok((_, end)) => vec![Lost::State(format!("giving it back ended so: {end:?}"))],
            Err(e) => vec![Lost::State(e.to_string())],
        };
        if matches!(lost.as_slice(), [Lost::State(_)]) {
            // (the worker may hold part of it: a fresh one starts without it)
            self.kept.state = None;
            self.worker().stop();
            let _ = self.worker().prestart();
        }
        self.kept.holder = self.worker().pid();
        Ok(Some(lost))
    }

    /// The process id of the worker process, when one runs or starts (after a timeout, the
    /// replacement starts at once and is kept for the next query).
    pub fn pid(&self) -> Option<u32> {
        self.worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pid()
    }
}

/// The query that consults `file` (`kk_query_consult/2` of `prolog/host_query.pl`).
pub(crate) fn consult_query(file: &std::path::Path) -> Query {
    let name = super::quote(&file.to_string_lossy());
    Query::new(&format!("kk_query_consult({name}, R)")).max_answers(1)
}

/// How a consult went, from the answers of [`consult_query`].
pub(crate) fn consulted(
    file: &std::path::Path,
    (answers, end): (Vec<Answer>, End),
) -> Result<(), QueryError> {
    let file = file.to_string_lossy().into_owned();
    let r = match (answers.first().and_then(|a| a.get("R")), end) {
        (Some(r), _) => r.clone(),
        (None, End::Stopped(Limit::Time)) => return Err(ConsultError::Timeout { file }.into()),
        (None, End::Halted(code)) => return Err(ConsultError::Halted { file, code }.into()),
        (None, End::Exception(e)) => {
            return Err(ConsultError::NotLoaded { file, why: e.text }.into())
        }
        (None, End::Crashed(why)) => return Err(PrologError::Failed(why).into()),
        (None, end) => {
            return Err(PrologError::Protocol(format!("consulting ended so: {end:?}")).into())
        }
    };
    match consult_error(file, &r) {
        None => Ok(()),
        Some(e) => Err(e.into()),
    }
}

/// The error that `kk_query_consult/2`'s result `r` says (`None`: the file loaded).
fn consult_error(file: String, r: &Term) -> Option<ConsultError> {
    let text = |t: &Term| t.as_text().unwrap_or_else(|| t.to_string());
    match r {
        Term::Atom(a) if a == "true" => None,
        Term::Atom(a) if a == "no_such_file" => Some(ConsultError::NoSuchFile { file }),
        Term::Compound(f, args) if f == "syntax_error" && args.len() == 2 => {
            Some(ConsultError::Syntax {
                file,
                line: args[0]
                    .as_i64()
                    .and_then(|l| usize::try_from(l).ok())
                    .filter(|&l| l > 0),
                message: text(&args[1]),
            })
        }
        Term::Compound(f, args) if f == "halt" && args.len() == 1 => Some(ConsultError::Halted {
            file,
            code: args[0].as_i64().unwrap_or(0),
        }),
        Term::Compound(f, args) if f == "not_loaded" && args.len() == 1 => {
            Some(ConsultError::NotLoaded {
                file,
                why: text(&args[0]),
            })
        }
        other => Some(ConsultError::NotLoaded {
            file,
            why: other.to_string(),
        }),
    }
}

/// The query that gives a fresh engine `state` (`kk_query_restore/2`).
pub(crate) fn restore_query(state: &str) -> Query {
    let text = format!("{state} .");
    Query::new(&format!("kk_query_restore({}, L)", super::quote(&text))).max_answers(1)
}

/// What was lost, from the answers of [`restore_query`] (the failure to give it back when
/// there are none).
pub(crate) fn restored(answers: &[Answer]) -> Vec<Lost> {
    let Some(list) = answers.first().and_then(|a| a.get("L")) else {
        return vec![Lost::State("the state could not be read back".into())];
    };
    let text = |t: &Term| t.as_text().unwrap_or_else(|| t.to_string());
    list.as_list()
        .unwrap_or_default()
        .iter()
        .map(|l| match l {
            Term::Compound(f, a) if f == "global" && a.len() == 2 => Lost::Global {
                key: a[0].to_string(),
                why: text(&a[1]),
            },
            Term::Compound(f, a) if f == "file" && a.len() == 2 => {
                let file = text(&a[0]);
                Lost::File(
                    consult_error(file.clone(), &a[1]).unwrap_or(ConsultError::NotLoaded {
                        file,
                        why: "it did not load".into(),
                    }),
                )
            }
            other => Lost::State(format!("unreadable: {other}")),
        })
        .collect()
}

/// The worker role that serves queries.
pub(crate) const ROLE: &str = "query";

/// The request handler of the `query` worker role: each answer is sent as a part, as soon as
/// it is found, with what the goal printed before it; the last part is the end, with the
/// state after the goal when it may have changed it (the parent keeps it for a replacement).
/// The reply says only whether the query failed.
pub(crate) fn query_worker() -> crate::process::Handler {
    let mut session = super::Session::new();
    Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let got = serde_json::from_str::<Query>(line)
            .context("reading a request")
            .map_err(|e| QueryError::Engine(e.into()))
            .and_then(|q| {
                let q = Query { timeout: None, ..q };
                let mut sent = 0;
                let mut send = |item: Item, inferences: Option<u64>, printed: &Printed| {
                    let new = (printed.text[sent..].to_string(), printed.cut);
                    sent = printed.text.len();
                    if let Ok(l) = serde_json::to_string(&(item, inferences, new)) {
                        part(&l);
                    }
                };
                let mut answers = match session.query(&q) {
                    Err(QueryError::Syntax { message, line }) => {
                        send(Item::Syntax(message, line), None, &Printed::default());
                        return Ok(());
                    }
                    Err(QueryError::UnknownParam { name }) => {
                        send(Item::Param(name), None, &Printed::default());
                        return Ok(());
                    }
                    other => other?,
                };
                if !answers.lost().is_empty() {
                    send(
                        Item::Lost(answers.lost().to_vec()),
                        None,
                        &answers.got.printed,
                    );
                }
                while let Some(a) = answers.next() {
                    match a {
                        Ok(a) => send(Item::Answer(a), answers.inferences(), &answers.got.printed),
                        // (the end says it)
                        Err(QueryError::AnswerTooLarge { .. }) => {}
                        Err(e) => return Err(e),
                    }
                }
                let end = answers.end().cloned().unwrap_or(End::Complete);
                let state = answers.state().map(str::to_string);
                send(
                    Item::End(end, state),
                    answers.inferences(),
                    &answers.got.printed,
                );
                Ok(())
            });
        let got: Result<(), String> = got.map_err(|e| e.to_string());
        serde_json::to_string(&got).unwrap_or_else(|_| r#"{"Ok":null}"#.into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_quotes_a_reply_by_an_excerpt() {
        // Regression (#36): the error carried the whole reply (3.6 MB at depth 100,000).
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(1_000_000);
        let e = excerpt(&long);
        assert!(e.len() < 250, "{}", e.len());
        assert!(e.ends_with("... (2000000 bytes)"), "{e}");
    }
}
