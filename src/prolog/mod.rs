//! The embedded Scryer Prolog engine running `prolog/kenken.pl`: a [`Session`] answers goals.
//!
//! Every query goes through the Prolog-side wrapper `kk_host_query/5` (`prolog/host_query.pl`):
//! the goal travels as an escaped string, so `Machine::run_query` always receives text that parses; the
//! wrapper parses it with `read_term_from_chars/3` inside `catch/3`, bounds the work with
//! `call_with_inference_limit/3`, collects a bounded number of answers with `findall/3` (leaving no
//! choice point) and returns one result term. Nothing a user types can panic the process or leave
//! the machine broken.

pub mod toplevel;

use std::time::Duration;

use scryer_prolog::{LeafAnswer, Machine, MachineBuilder, Term};
use serde::{Deserialize, Serialize};

use crate::format::prolog::cage_text;
use crate::puzzle::{Grid, Op, Puzzle};

/// The homework contract, compiled into the binary.
pub const KENKEN_PL: &str = include_str!("../../prolog/kenken.pl");
/// The host's Prolog side: the top level and what the query wrapper shares with it.
pub const HOST_PL: &str = include_str!("../../prolog/host.pl");
/// The host's query wrapper (`kk_host_query/5`), loaded after [`HOST_PL`] by a [`Session`].
pub const HOST_QUERY_PL: &str = include_str!("../../prolog/host_query.pl");
/// What follows `host.pl` when `kenken.pl` is loaded too: the libraries `host.pl` otherwise
/// loads only when a goal needs them (`kk_need_libraries/1`), imported at once as before
/// (`kenken.pl` has loaded most of them already), so that every goal finds them.
pub const ALL_LIBRARIES: &str = "
:- use_module(library(charsio)).
:- use_module(library(time)).
:- use_module(library(format)).
:- use_module(library(between)).
";

/// Default bound on inferences per answer.
pub const DEFAULT_INFERENCE_LIMIT: u64 = 2_000_000_000;

/// What went wrong talking to the engine.
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
    /// The worker running the engine stopped unexpectedly.
    #[error("the Prolog worker stopped: {0}")]
    Worker(String),
}

/// One answer of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// `Name = Value` bindings of the query's variables (unbound ones left out).
    pub bindings: Vec<(String, Term)>,
    /// The answer as a Prolog top level prints it, residual constraints included.
    pub text: String,
}

/// How a query ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// Every answer was collected (possibly none: `false`).
    Complete,
    /// More answers exist than were asked for.
    AnswerLimit,
    /// The inference limit was reached before the next answer.
    InferenceLimit,
    /// The goal raised an exception, printed as Prolog writes it.
    Exception(String),
}

/// The outcome of [`Session::query`].
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The text is not a goal; the message says why.
    SyntaxError(String),
    /// The answers found, and how the query ended.
    Answers {
        /// The answers found.
        answers: Vec<Answer>,
        /// How the query ended.
        status: Status,
    },
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

/// Solutions found by a Prolog solver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrologSolutions {
    /// The grids, in the predicate's order.
    pub grids: Vec<Grid>,
    /// Every answer was enumerated.
    pub complete: bool,
    /// Stopped by the inference limit.
    pub limit_reached: bool,
    /// Prolog inferences the solve took.
    pub inferences: Option<u64>,
}

/// Answers of the no-op solver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoopSolutions {
    /// Each answer: the grid and, per cage in order, an operator under which it holds.
    pub answers: Vec<(Grid, Vec<Op>)>,
    /// Every answer was enumerated.
    pub complete: bool,
    /// Stopped by the inference limit.
    pub limit_reached: bool,
}

/// One Scryer `Machine` with `kenken.pl` consulted once, answering goals.
pub struct Session {
    machine: Machine,
    /// Inferences of the last query.
    last_inferences: Option<u64>,
}

/// Escapes `text` as a Prolog double-quoted string: only printable ASCII stays as is.
pub(crate) fn quote(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            ' '..='~' => s.push(c),
            c => s.push_str(&format!("\\x{:x}\\", c as u32)),
        }
    }
    s.push('"');
    s
}

/// Prolog's text for a term that came back as [`Term`] (for messages).
pub fn term_text(t: &Term) -> String {
    match t {
        Term::Integer(i) => i.to_string(),
        Term::Rational(r) => r.to_string(),
        Term::Float(f) => f.to_string(),
        Term::Atom(a) => a.clone(),
        Term::String(s) => format!("{s:?}"),
        Term::List(items) => format!(
            "[{}]",
            items.iter().map(term_text).collect::<Vec<_>>().join(",")
        ),
        Term::Compound(f, args) if f == "." && args.len() == 2 => {
            format!("[{}|{}]", term_text(&args[0]), term_text(&args[1]))
        }
        Term::Compound(f, args) => format!(
            "{f}({})",
            args.iter().map(term_text).collect::<Vec<_>>().join(",")
        ),
        Term::Var(v) => v.clone(),
        _ => format!("{t:?}"),
    }
}

pub(crate) fn chars_of(t: &Term) -> Option<String> {
    // Text comes back as a String, a list of one-character atoms, or cons cells ending in either.
    let mut out = String::new();
    let mut cur = t;
    loop {
        match cur {
            Term::String(s) => {
                out.push_str(s);
                return Some(out);
            }
            Term::Atom(a) if a == "[]" => return Some(out),
            Term::List(items) => {
                for i in items {
                    out.push_str(&chars_of_atom(i)?);
                }
                return Some(out);
            }
            Term::Compound(f, args) if f == "." && args.len() == 2 => {
                out.push_str(&chars_of_atom(&args[0])?);
                cur = &args[1];
            }
            _ => return None,
        }
    }
}

fn chars_of_atom(t: &Term) -> Option<String> {
    match t {
        Term::Atom(a) => Some(a.clone()),
        Term::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn list_of(t: &Term) -> Option<&[Term]> {
    match t {
        Term::List(items) => Some(items),
        Term::Atom(a) if a == "[]" => Some(&[]),
        _ => None,
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
pub fn solve_goal(p: &Puzzle, pred: Predicate) -> String {
    format!("{}({}, {}, T).", pred.name(), p.size, cages_term(p))
}

/// The puzzle's cages as the spec's list term.
fn cages_term(p: &Puzzle) -> String {
    let cages: Vec<String> = p.cages.iter().map(cage_text).collect();
    format!("[{}]", cages.join(", "))
}

/// The goal that solves `p` with `noop_kenken/4`, binding `T` and `Ops`.
pub fn noop_goal(p: &Puzzle) -> String {
    format!("noop_kenken({}, {}, T, Ops).", p.size, cages_term(p))
}

/// Turns an answer term into a grid of side `n`.
pub fn term_to_grid(t: &Term, n: usize) -> Result<Grid, PrologError> {
    let bad = || PrologError::BadGrid(n, term_text(t));
    let rows = list_of(t).ok_or_else(bad)?;
    if rows.len() != n {
        return Err(bad());
    }
    rows.iter()
        .map(|r| {
            let cells = list_of(r).ok_or_else(bad)?;
            if cells.len() != n {
                return Err(bad());
            }
            cells
                .iter()
                .map(|c| match c {
                    Term::Integer(i) => i.to_string().parse::<u32>().map_err(|_| bad()),
                    _ => Err(bad()),
                })
                .collect()
        })
        .collect()
}

impl Session {
    /// Starts a machine and consults `kenken.pl` and the host wrapper (about 0.3 s).
    pub fn new() -> Session {
        let mut machine = MachineBuilder::default().build();
        machine.consult_module_string(
            "user",
            format!("{KENKEN_PL}\n{HOST_PL}\n{HOST_QUERY_PL}{ALL_LIBRARIES}"),
        );
        Session {
            machine,
            last_inferences: None,
        }
    }

    /// Runs `goal` (Prolog text, final `.` optional) and collects up to `max_answers` answers,
    /// each within `inference_limit` inferences.
    pub fn query(
        &mut self,
        goal: &str,
        max_answers: usize,
        inference_limit: u64,
    ) -> Result<Outcome, PrologError> {
        let mut text = goal.trim_end().to_string();
        if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let q = format!(
            "kk_host_query({}, {}, {}, R, I).",
            quote(&text),
            inference_limit,
            max_answers.max(1)
        );
        // Scryer 0.10 panics on a few goals instead of raising an error (`-a:A`, a module
        // qualification whose module is not an atom, deep in a goal): the panic is caught, the
        // machine (no longer to be trusted) replaced by a fresh one, and the goal answered
        // with an exception that says so.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.machine.run_query(q).collect::<Vec<_>>()
        }));
        let answers = match run {
            Ok(answers) => answers,
            Err(panic) => {
                let why = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic")
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                *self = Session::new();
                return Ok(Outcome::Answers {
                    answers: Vec::new(),
                    status: Status::Exception(format!(
                        "the Prolog engine failed on this goal (Scryer Prolog: {why}); the \
                         session was restarted"
                    )),
                });
            }
        };
        let mut result = None;
        self.last_inferences = None;
        for a in answers {
            match a {
                Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                    if let Some(r) = bindings.get("R") {
                        result.get_or_insert(r.clone());
                    }
                    if let Some(Term::Integer(i)) = bindings.get("I") {
                        self.last_inferences = i.to_string().parse().ok();
                    }
                }
                Ok(LeafAnswer::False) | Ok(LeafAnswer::True) => {}
                Ok(LeafAnswer::Exception(e)) | Err(e) => {
                    return Err(PrologError::Protocol(term_text(&e)))
                }
            }
        }
        let r = result.ok_or_else(|| PrologError::Protocol("the wrapper failed".into()))?;
        parse_result(&r)
    }

    /// Solves `p` with `kenken/3` or `plain_kenken/3`, returning at most `limit` grids
    /// (every one with `None`).
    pub fn solve(
        &mut self,
        p: &Puzzle,
        pred: Predicate,
        limit: Option<usize>,
        inference_limit: u64,
    ) -> Result<PrologSolutions, PrologError> {
        self.solve_goal(&solve_goal(p, pred), p.size, limit, inference_limit)
    }

    /// Runs a solving goal made by [`solve_goal`] for a puzzle of side `size`: its answers'
    /// `T` as grids, at most `limit` of them (every one with `None`). This is the one path by
    /// which Prolog answers become grids.
    pub fn solve_goal(
        &mut self,
        goal: &str,
        size: usize,
        limit: Option<usize>,
        inference_limit: u64,
    ) -> Result<PrologSolutions, PrologError> {
        let (answers, complete, limit_reached) = self.run_solve(goal, limit, inference_limit)?;
        let grids = answers
            .iter()
            .map(|a| term_to_grid(binding(a, "T")?, size))
            .collect::<Result<_, _>>()?;
        Ok(PrologSolutions {
            grids,
            complete,
            limit_reached,
            inferences: self.last_inferences,
        })
    }

    /// Solves `p` with `noop_kenken/4`: each answer is a grid and, for every cage, an operator
    /// under which the grid meets it (a grid that fits several is given once per choice;
    /// one-square cages report `Given`).
    pub fn solve_noop(
        &mut self,
        p: &Puzzle,
        limit: Option<usize>,
        inference_limit: u64,
    ) -> Result<NoopSolutions, PrologError> {
        let (answers, complete, limit_reached) =
            self.run_solve(&noop_goal(p), limit, inference_limit)?;
        let mut out = Vec::with_capacity(answers.len());
        for a in &answers {
            let grid = term_to_grid(binding(a, "T")?, p.size)?;
            let ops_term = binding(a, "Ops")?;
            let bad = || PrologError::Protocol(format!("operators: {}", term_text(ops_term)));
            let ops = list_of(ops_term)
                .ok_or_else(bad)?
                .iter()
                .map(|c| match c {
                    Term::Compound(f, _) => Op::from_symbol(f).ok_or_else(bad),
                    _ => Err(bad()),
                })
                .collect::<Result<Vec<Op>, _>>()?;
            if ops.len() != p.cages.len() {
                return Err(bad());
            }
            // A one-square cage comes back as +(V, [Sq]): its value is simply given.
            let ops = ops
                .into_iter()
                .zip(&p.cages)
                .map(|(op, c)| if c.cells.len() == 1 { Op::Given } else { op })
                .collect();
            out.push((grid, ops));
        }
        Ok(NoopSolutions {
            answers: out,
            complete,
            limit_reached,
        })
    }

    /// Runs a solving goal: its answers, whether they are all, whether the inference limit hit.
    fn run_solve(
        &mut self,
        goal: &str,
        limit: Option<usize>,
        inference_limit: u64,
    ) -> Result<(Vec<Answer>, bool, bool), PrologError> {
        let max = limit.unwrap_or(usize::MAX / 2).max(1);
        match self.query(goal, max, inference_limit)? {
            Outcome::SyntaxError(e) => Err(PrologError::Syntax(e)),
            Outcome::Answers {
                status: Status::Exception(e),
                ..
            } => Err(PrologError::Exception(e)),
            Outcome::Answers { answers, status } => Ok((
                answers,
                status == Status::Complete,
                status == Status::InferenceLimit,
            )),
        }
    }
}

/// The value bound to `name` in an answer.
fn binding<'a>(a: &'a Answer, name: &str) -> Result<&'a Term, PrologError> {
    a.bindings
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, t)| t)
        .ok_or_else(|| PrologError::Protocol(format!("answer without {name}")))
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

fn parse_result(r: &Term) -> Result<Outcome, PrologError> {
    let proto = || PrologError::Protocol(term_text(r));
    match r {
        Term::Compound(f, args) if f == "syntax_error" && args.len() == 1 => {
            Ok(Outcome::SyntaxError(syntax_message(&args[0])))
        }
        Term::Compound(f, args) if f == "answers" && args.len() == 2 => {
            let items = list_of(&args[0]).ok_or_else(proto)?;
            let mut answers = Vec::new();
            for item in items {
                let Term::Compound(a, parts) = item else {
                    return Err(proto());
                };
                if a != "a" || parts.len() != 2 {
                    return Err(proto());
                }
                let mut bindings = Vec::new();
                for b in list_of(&parts[0]).ok_or_else(proto)? {
                    match b {
                        Term::Compound(eq, nv) if eq == "=" && nv.len() == 2 => {
                            let name = match &nv[0] {
                                Term::Atom(n) => n.clone(),
                                Term::String(n) => n.clone(),
                                _ => return Err(proto()),
                            };
                            bindings.push((name, nv[1].clone()));
                        }
                        _ => return Err(proto()),
                    }
                }
                let text = chars_of(&parts[1]).ok_or_else(proto)?;
                answers.push(Answer { bindings, text });
            }
            let status = match &args[1] {
                Term::Atom(s) if s == "complete" => Status::Complete,
                Term::Atom(s) if s == "answer_limit" => Status::AnswerLimit,
                Term::Atom(s) if s == "inference_limit" => Status::InferenceLimit,
                Term::Compound(f, e) if f == "exception" && e.len() == 2 => {
                    Status::Exception(chars_of(&e[1]).unwrap_or_else(|| term_text(&e[0])))
                }
                _ => return Err(proto()),
            };
            Ok(Outcome::Answers { answers, status })
        }
        _ => Err(proto()),
    }
}

fn syntax_message(e: &Term) -> String {
    term_text(e)
}

/// A query's outcome as text: what a top level prints (no Prolog terms), so that it can come
/// from a worker process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextOutcome {
    /// The text is not a goal; the message says why.
    SyntaxError(String),
    /// Each answer as a top level prints it, and how the query ended.
    Answers {
        /// The answers' texts.
        answers: Vec<String>,
        /// How the query ended.
        status: Status,
    },
}

impl From<Outcome> for TextOutcome {
    fn from(o: Outcome) -> TextOutcome {
        match o {
            Outcome::SyntaxError(e) => TextOutcome::SyntaxError(e),
            Outcome::Answers { answers, status } => TextOutcome::Answers {
                answers: answers.into_iter().map(|a| a.text).collect(),
                status,
            },
        }
    }
}

#[derive(Serialize, Deserialize)]
struct QueryRequest {
    goal: String,
    max_answers: usize,
    inferences: u64,
}

/// Runs `goal` (see [`Session::query`]) in a worker process with a fresh session, killed when
/// `timeout` passes: `Ok(None)` then.
pub fn query_in_worker(
    goal: &str,
    max_answers: usize,
    inferences: u64,
    timeout: Option<Duration>,
) -> Result<Option<TextOutcome>, PrologError> {
    let request = serde_json::to_string(&QueryRequest {
        goal: goal.to_string(),
        max_answers,
        inferences,
    })
    .map_err(|e| PrologError::Worker(e.to_string()))?;
    let mut worker = crate::process::Worker::new("query");
    let reply = worker
        .request(&request, timeout)
        .map_err(|e| PrologError::Worker(e.to_string()))?;
    let Some(reply) = reply else { return Ok(None) };
    let got: Result<TextOutcome, String> =
        serde_json::from_str(&reply).map_err(|e| PrologError::Worker(e.to_string()))?;
    got.map(Some).map_err(PrologError::Protocol)
}

/// The request handler of the `query` worker role.
pub(crate) fn query_worker() -> crate::process::Handler {
    let mut session = Session::new();
    Box::new(move |line: &str| {
        let got: Result<TextOutcome, String> = serde_json::from_str::<QueryRequest>(line)
            .map_err(|e| format!("bad request: {e}"))
            .and_then(|r| {
                session
                    .query(&r.goal, r.max_answers, r.inferences)
                    .map(TextOutcome::from)
                    .map_err(|e| e.to_string())
            });
        serde_json::to_string(&got).unwrap_or_else(|_| r#"{"Err":"unwritable reply"}"#.into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_everything_unusual() {
        assert_eq!(quote("a\"b\\c\nd é"), "\"a\\\"b\\\\c\\xa\\d \\xe9\\\"");
    }
}
