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

    /// The goal the engine runs: the wrapper `kk_host_stream/6` of `prolog/host_query.pl`,
    /// the user's text passed as an escaped string, so that it always parses.
    pub(crate) fn wrapped(&self) -> String {
        let mut text = self.goal.trim_end().to_string();
        if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let max = self.max_answers.unwrap_or(usize::MAX / 2).max(1);
        format!(
            "kk_host_stream({}, {}, {}, {}, R, I).",
            super::quote(&text),
            self.inferences,
            max,
            self.answer_cap.clamp(1, usize::MAX / 2)
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
    /// The engine failed on this goal (Scryer panicked on it, not a Prolog exception): the
    /// engine was replaced, and what it held (asserted clauses, ...) is gone.
    Crashed(String),
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
    /// A timeout was asked of a query in this thread, which cannot be stopped by the clock.
    #[error(
        "a query in this thread cannot be stopped by the clock: run it in a QueryWorker for a \
         timeout, or bound it with Query::inferences"
    )]
    NeedsWorker,
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
    Answer(Answer),
    End(End),
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
/// next query (about 0.3 s): Scryer cannot leave a query half-run. Ask only for the answers you
/// want with [`Query::max_answers`]. A worker's answers dropped before their end replace the
/// worker (the replacement starts at once).
pub struct Answers<'a, S: AnswerSource = InThread<'a>> {
    source: S,
    /// Items read ahead (the first one, to tell a syntax error).
    ahead: VecDeque<Item>,
    end: Option<End>,
    inferences: Option<u64>,
    _source: std::marker::PhantomData<&'a ()>,
}

/// Where the [`Answers`] of a query come from: [`InThread`] or [`InWorker`] (sealed).
pub trait AnswerSource: source::Read {}

mod source {
    use super::{Item, QueryError};

    /// The next item a source gives (`None`: the source is done).
    pub struct Next(pub(super) Option<Result<Item, QueryError>>);

    /// What [`super::Answers`] asks of its source.
    pub trait Read {
        /// The next item; `inferences` is updated.
        fn read(&mut self, inferences: &mut Option<u64>) -> Next;
        /// The query is over: what is left of its reply is read.
        fn finish(&mut self);
        /// The query is left before its end (an error, or the answers dropped).
        fn abandon(&mut self);
    }
}

/// The source of answers in this thread (a [`Session`](super::Session)'s machine).
pub struct InThread<'a> {
    state: Option<QueryState<'a>>,
    /// Set when the query is left before its end, or the engine failed.
    broken: &'a mut bool,
}

/// The source of answers from a worker process (a [`QueryWorker`]).
pub struct InWorker<'a> {
    /// `None` once the reply is read (or there was none).
    worker: Option<&'a mut Worker>,
    deadline: Option<Instant>,
}

impl AnswerSource for InThread<'_> {}
impl AnswerSource for InWorker<'_> {}

impl source::Read for InThread<'_> {
    fn read(&mut self, inferences: &mut Option<u64>) -> source::Next {
        source::Next(self.next_item(inferences))
    }

    fn finish(&mut self) {
        self.state = None;
    }

    fn abandon(&mut self) {
        if self.state.take().is_some() {
            // left before its end: the machine still holds the query
            *self.broken = true;
        }
    }
}

impl InThread<'_> {
    fn next_item(&mut self, inferences: &mut Option<u64>) -> Option<Result<Item, QueryError>> {
        let state = self.state.as_mut()?;
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.next()));
        Some(match got {
            Ok(Some(Ok(LeafAnswer::LeafAnswer { mut bindings, .. }))) => {
                if let Some(ScryerTerm::Integer(i)) = bindings.get("I") {
                    *inferences = i.to_string().parse().ok();
                }
                match bindings.remove("R") {
                    Some(r) => item(r).map_err(QueryError::from),
                    None => Err(PrologError::Protocol("the wrapper bound no R".into()).into()),
                }
            }
            Ok(Some(Ok(_))) | Ok(None) => {
                *self.broken = true;
                Err(PrologError::Protocol("the wrapper ended without end/1".into()).into())
            }
            Ok(Some(Err(e))) => {
                *self.broken = true;
                let text = excerpt(&term_text(&e));
                drop_scryer(e);
                Err(PrologError::Protocol(text).into())
            }
            Err(panic) => {
                // Scryer 0.10 panics on a few goals instead of raising an error (`-a:A`
                // deep in a goal): the machine is no longer to be trusted.
                *self.broken = true;
                Ok(Item::End(End::Crashed(format!(
                    "the Prolog engine failed on this goal (Scryer Prolog: {}); the session \
                     was restarted",
                    panic_text(&panic)
                ))))
            }
        })
    }
}

impl source::Read for InWorker<'_> {
    fn read(&mut self, inferences: &mut Option<u64>) -> source::Next {
        source::Next(self.next_item(inferences))
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

    /// A worker whose reply was not read to its end is replaced at once (its next reply would
    /// be this query's), the replacement starting while the caller goes on.
    fn abandon(&mut self) {
        if let Some(worker) = self.worker.take() {
            if worker.awaiting_reply() {
                worker.stop();
                let _ = worker.prestart();
            }
        }
    }
}

impl InWorker<'_> {
    fn next_item(&mut self, inferences: &mut Option<u64>) -> Option<Result<Item, QueryError>> {
        let worker = self.worker.as_mut()?;
        let got = match worker.next(self.deadline) {
            Ok(r) => r,
            Err(e) => return Some(Err(e.into())),
        };
        Some(match got {
            Reply::Part(line) => serde_json::from_str::<(Item, Option<u64>)>(&line)
                .with_context(|| format!("reading the worker's answer {}", excerpt(&line)))
                .map_err(|e| PrologError::from(e).into())
                .map(|(item, i)| {
                    *inferences = i.or(*inferences);
                    item
                }),
            Reply::Done(line) => {
                let got = serde_json::from_str::<Result<(), String>>(&line)
                    .with_context(|| format!("reading the worker's reply {}", excerpt(&line)))
                    .map_err(PrologError::from);
                let e = match got {
                    Ok(Err(e)) => PrologError::Protocol(excerpt(&e)),
                    Ok(Ok(())) => PrologError::Protocol("the worker ended without end/1".into()),
                    Err(e) => e,
                };
                Err(e.into())
            }
            Reply::Timeout => {
                // a fresh worker starts at once, while the caller goes on
                let _ = worker.prestart();
                Ok(Item::End(End::Stopped(Limit::Time)))
            }
        })
    }
}

impl<'a> Answers<'a, InThread<'a>> {
    /// Answers read from a query running in a machine; `broken` is set when the machine must
    /// not be used again.
    pub(crate) fn engine(
        state: QueryState<'a>,
        broken: &'a mut bool,
    ) -> Result<Answers<'a, InThread<'a>>, QueryError> {
        Answers::started(InThread {
            state: Some(state),
            broken,
        })
    }
}

impl<'a> Answers<'a, InWorker<'a>> {
    /// Answers read from a worker that was sent a query; its reply ends at `deadline`.
    pub(crate) fn worker(
        worker: &'a mut Worker,
        deadline: Option<Instant>,
    ) -> Result<Answers<'a, InWorker<'a>>, QueryError> {
        Answers::started(InWorker {
            worker: Some(worker),
            deadline,
        })
    }

    /// An answer-less query that ended as said.
    pub(crate) fn ended(end: End) -> Answers<'a, InWorker<'a>> {
        Answers {
            source: InWorker {
                worker: None,
                deadline: None,
            },
            ahead: VecDeque::new(),
            end: Some(end),
            inferences: None,
            _source: std::marker::PhantomData,
        }
    }
}

impl<'a, S: AnswerSource> Answers<'a, S> {
    /// Reads the first item: a syntax error is the query's error.
    fn started(source: S) -> Result<Answers<'a, S>, QueryError> {
        let mut answers = Answers {
            source,
            ahead: VecDeque::new(),
            end: None,
            inferences: None,
            _source: std::marker::PhantomData,
        };
        match answers.read() {
            Err(e) => {
                answers.source.abandon();
                Err(e)
            }
            Ok(Item::Syntax(message, line)) => {
                answers.source.finish();
                Err(QueryError::Syntax { message, line })
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
        self.inferences
    }

    /// Every answer left, and how the query ended.
    pub fn collect_all(mut self) -> Result<(Vec<Answer>, End), QueryError> {
        let answers = self.by_ref().collect::<Result<Vec<_>, _>>()?;
        let end = self.end.clone().unwrap_or(End::Complete);
        Ok((answers, end))
    }

    /// The next item from the source.
    fn read(&mut self) -> Result<Item, QueryError> {
        match self.source.read(&mut self.inferences).0 {
            Some(got) => got,
            None => Ok(Item::End(self.end.clone().unwrap_or(End::Complete))),
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
        match item {
            Ok(Item::Answer(a)) => Some(Ok(a)),
            Ok(Item::End(End::AnswerTooLarge(cap))) => {
                self.end = Some(End::AnswerTooLarge(cap));
                self.source.finish();
                Some(Err(QueryError::AnswerTooLarge { cap }))
            }
            Ok(Item::End(end)) => {
                self.end = Some(end);
                self.source.finish();
                None
            }
            Ok(Item::Syntax(message, line)) => {
                self.end = Some(End::Complete);
                self.source.finish();
                Some(Err(QueryError::Syntax { message, line }))
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
    let [arg]: [ScryerTerm; 1] = args
        .try_into()
        .map_err(|_| proto("an item of several arguments"))?;
    match (f.as_str(), arg) {
        ("syntax_error", e) => {
            let (message, line) = syntax_error(&e);
            Ok(Item::Syntax(message, line))
        }
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
            let text = chars_of_owned(text).ok_or_else(|| proto("an answer without its text"))?;
            Ok(Item::Answer(Answer {
                bindings: out,
                text,
            }))
        }
        ("end", status) => {
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
            Ok(Item::End(end))
        }
        _ => Err(proto("an unknown item")),
    }
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
/// the last answer (the worker is started by [`QueryWorker::new`], and again after a timeout
/// while the caller goes on).
pub struct QueryWorker {
    worker: Worker,
}

impl QueryWorker {
    /// Starts a worker (about 0.3 s) and waits until it is ready. The program must call
    /// [`crate::worker::init`] first thing in `main`.
    pub fn new() -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE);
        worker.start()?;
        Ok(QueryWorker { worker })
    }

    /// Starts a worker and waits until it is ready, for `timeout` at most:
    /// [`QueryError::StartTimeout`] then (the child is stopped). [`QueryWorker::new`] waits up
    /// to a minute.
    pub fn start_within(timeout: Duration) -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE);
        if !worker.start_within(Instant::now() + timeout)? {
            worker.stop();
            return Err(QueryError::StartTimeout(timeout));
        }
        Ok(QueryWorker { worker })
    }

    /// Runs `query` in the worker: its answers as they come, until its end or its timeout.
    ///
    /// Each query gets its own answers, whatever happened to the one before: a reply left
    /// unread (the [`Answers`] dropped early, or ended by an error) replaces the worker, and a
    /// line of a reply that is not this query's stops it ([`crate::process`]).
    pub fn query(&mut self, query: &Query) -> Result<Answers<'_, InWorker<'_>>, QueryError> {
        query.check()?;
        let deadline = query.timeout.map(|t| Instant::now() + t);
        let line = serde_json::to_string(query)
            .context("encoding the query")
            .map_err(PrologError::from)?;
        if !self.worker.send(&line, deadline)? {
            let _ = self.worker.prestart();
            return Ok(Answers::ended(End::Stopped(Limit::Time)));
        }
        Answers::worker(&mut self.worker, deadline)
    }

    /// The process id of the worker process, when one runs or starts (after a timeout, the
    /// replacement starts at once and is kept for the next query).
    pub fn pid(&self) -> Option<u32> {
        self.worker.pid()
    }
}

/// The worker role that serves queries.
pub(crate) const ROLE: &str = "query";

/// The request handler of the `query` worker role: each answer is sent as a part, as soon as
/// it is found; the reply says only whether the query failed.
pub(crate) fn query_worker() -> crate::process::Handler {
    let mut session = super::Session::new();
    Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let got = serde_json::from_str::<Query>(line)
            .context("reading a request")
            .map_err(|e| QueryError::Engine(e.into()))
            .and_then(|q| {
                let q = Query { timeout: None, ..q };
                let mut send = |item: Item, inferences: Option<u64>| {
                    if let Ok(l) = serde_json::to_string(&(item, inferences)) {
                        part(&l);
                    }
                };
                let mut answers = match session.query(&q) {
                    Err(QueryError::Syntax { message, line }) => {
                        send(Item::Syntax(message, line), None);
                        return Ok(());
                    }
                    other => other?,
                };
                while let Some(a) = answers.next() {
                    match a {
                        Ok(a) => send(Item::Answer(a), answers.inferences()),
                        // (the end says it)
                        Err(QueryError::AnswerTooLarge { .. }) => {}
                        Err(e) => return Err(e),
                    }
                }
                let end = answers.end().cloned().unwrap_or(End::Complete);
                send(Item::End(end), answers.inferences());
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
