//! A [`Session`]: one Scryer engine in this thread with `kenken.pl` loaded, answering queries
//! ([`Session::query`]) and running the homework's solvers with their answers as grids.
//!
//! What the engine writes to `user_output` is kept for the query that runs
//! ([`Answers::printed`]); Scryer's panics are kept off the standard error (`guard.rs`).

use std::rc::Rc;

use super::start::{Builder, Purpose};

use scryer_prolog::Machine;
use scryer_prolog::{InputStreamConfig, OutputStreamConfig, StreamConfig};

use super::query::{consult_query, consulted, read_consult, restore_query, restored, Consulted};
use super::query::{Answers, Capture, End, Kept, Lost, Query, QueryError};
use super::{noop_goal, solve_goal, Predicate, PrologError};
use crate::puzzle::{Grid, Op, Puzzle};
use crate::Limit;

/// What a solve does with each answer, given the inferences so far.
type EachAnswer<'a> = dyn FnMut(&super::Answer, Option<u64>) -> Result<(), PrologError> + 'a;

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

/// One Scryer `Machine` with `kenken.pl` consulted once, answering goals in this thread.
///
/// A `Session` is not `Send` (Scryer's machine is not): use it on the thread that made it, or
/// use a [`super::QueryWorker`] or a worker engine, which run it in a child process.
///
/// Its machine is replaced when Scryer panics on a goal ([`End::Crashed`]) or the goal halts
/// the machine itself (a query's [`Answers`] dropped before their end stop the query, and the
/// machine goes on: see [`Answers`]); the new one gets the state the old one had after the
/// last query that ended (consulted files, asserted clauses, flags, operators, modules,
/// `bb_put/2` values), and the next query's [`Answers::lost`] names what it could not get.
///
/// # What it writes, and where
///
/// A `Session` owns nothing of the process: it never touches its file descriptors (another
/// thread's `println!` lines go out as they are written, whatever the engine does), and
/// what the engine writes is kept for the query that wrote it:
///
/// - `user_output` (`write/1`, `format/2`): [`Answers::printed`], up to
///   [`super::PRINTED_CAP`] bytes; `user_error`: dropped.
/// - Scryer's loader warning `% Warning: overwriting p/1 because the clauses are
///   discontiguous` (a run of clauses after another predicate's, a predicate a library or
///   another file defined), which Scryer 0.10 writes with `println!` to the process's standard
///   output: told on the Prolog side as the file loads (`prolog/host_warnings.pl`), given by
///   [`Consulted::warnings`] (or [`Answers::warnings`] for a goal that consults), told once
///   (a replacement engine that consults the file anew says nothing); Scryer is kept from
///   printing it by declaring the predicate dynamic before the clauses that replace it, which
///   replaces it as Scryer would have: such a predicate is dynamic
///   (`predicate_property/2`, `assertz/1` add to it), the one difference.
/// - The flag `unknown` set to `warning` (Scryer then writes `% Warning: predicate p/0 is
///   undefined` with `println!` at each call of an undefined predicate): refused,
///   `domain_error(flag_value, unknown+warning)`, when `set_prolog_flag/2` is called by the
///   goal, a consulted file's clause or directive, or a goal built as the goal runs. A
///   [`super::QueryWorker`] allows it and keeps its warnings ([`Answers::warnings`]): its
///   process is the crate's.
/// - Not kept: `% Warning: overwriting multifile predicate m:p/1 because it was not locally
///   declared multifile` (a consulted file's clause for another module's multifile predicate,
///   which the file did not declare multifile), and `unknown` set to `warning` by a closure
///   (`call(set_prolog_flag, unknown, warning)`): Scryer writes those to the process's
///   standard output. A [`super::QueryWorker`] keeps them.
///
/// # A panic in Scryer
///
/// A goal Scryer 0.10 panics on (rather than raising a Prolog error) ends its query with
/// [`End::Crashed`], the panic caught, and the machine is replaced. A program built with
/// `panic = "abort"` cannot catch it: the whole process aborts (exit code 134, with nothing
/// said by the library). Use a [`super::QueryWorker`] there (and wherever a goal may be
/// hostile): a panic kills the worker process only, and the query ends with
/// [`End::Crashed`].
pub struct Session {
    machine: Machine,
    /// What the machine was built for (a replacement is built alike).
    purpose: Purpose,
    /// Where it runs: the program's own process, or a worker process of the crate's.
    place: Place,
    /// What is kept for a replacement machine.
    kept: Kept,
    /// What the machine writes to `user_output`.
    capture: Rc<Capture>,
    /// How many machines this session has built (the first one included).
    engines: usize,
}

impl Session {
    /// Starts a machine and consults `kenken.pl` and the host wrapper (about 0.4 s).
    pub fn new() -> Session {
        Session::for_purpose(Purpose::Queries, Place::Program)
    }

    /// A session that only runs the homework's solvers for the host (worker engines): built as
    /// [`Session::new`] is (so that `kenken/3` costs the same in both), keeping nothing of the
    /// process's standard output.
    pub(crate) fn for_solving() -> Session {
        Session::for_purpose(Purpose::Solving, Place::Program)
    }

    /// The session of a [`super::QueryWorker`]'s worker process, which is the crate's own:
    /// what Scryer writes to the process's standard output (the parent's channel) is kept
    /// there (`stdout.rs`), the flag `unknown` set to `warning` among it.
    pub(crate) fn serving() -> Session {
        Session::for_purpose(Purpose::Queries, Place::Worker)
    }

    fn for_purpose(purpose: Purpose, place: Place) -> Session {
        let capture = Rc::new(Capture::new(
            purpose == Purpose::Queries && place == Place::Worker,
        ));
        Session {
            machine: machine(purpose, place, &capture),
            purpose,
            place,
            kept: Kept::default(),
            capture,
            engines: 1,
        }
    }

    /// How many engines this session has built, the first one included: a measure of the
    /// rebuilds (for tests).
    #[doc(hidden)]
    pub fn engines_built(&self) -> usize {
        self.engines
    }

    /// Consults `file` (it is consulted again in a machine that replaces this one): a typed
    /// error when it does not load ([`QueryError::Consult`]); the clauses before a syntax
    /// error are loaded. Nothing bounds its time here (use [`super::QueryWorker::consult`]).
    /// What the loader warned of is dropped: [`Session::load`] gives it.
    pub fn consult(&mut self, file: &std::path::Path) -> Result<(), QueryError> {
        self.load(file).map(drop)
    }

    /// [`Session::consult`], and what Scryer's loader warned of ([`Consulted::warnings`]),
    /// kept from the process's standard output (see [`Session`]) and told once (not again
    /// when a replacement engine consults the file anew).
    pub fn load(&mut self, file: &std::path::Path) -> Result<Consulted, QueryError> {
        let answers = self.query(&consult_query(file))?;
        let (lost, got) = read_consult(answers);
        // (told by the next query)
        self.kept.lost.extend(lost);
        consulted(file, got?)
    }

    /// Replaces a broken machine, and gives the new one the state of the old: what could
    /// not be given back is kept in `kept.lost`, to be told.
    fn renew(&mut self) {
        self.machine = machine(self.purpose, self.place, &self.capture);
        self.engines += 1;
        self.kept.broken = false;
        let Some(state) = self.kept.state.clone() else {
            return;
        };
        let query = restore_query(&state);
        let got = self
            .machine_query(&query, Vec::new())
            .and_then(Answers::collect_all);
        let lost = match got {
            Ok((answers, End::Complete)) => restored(&answers),
            Ok((_, end)) => vec![Lost::State(format!("giving it back ended so: {end:?}"))],
            Err(e) => vec![Lost::State(e.to_string())],
        };
        if matches!(lost.as_slice(), [Lost::State(_)]) {
            // (the machine may hold part of it: a fresh one starts without it)
            self.kept.state = None;
            self.machine = machine(self.purpose, self.place, &self.capture);
            self.engines += 1;
            self.kept.broken = false;
        }
        self.kept.lost.extend(lost);
    }

    /// Starts `query` (wrapped) in the machine as it is.
    fn machine_query(&mut self, query: &Query, lost: Vec<Lost>) -> Result<Answers<'_>, QueryError> {
        self.capture.reset();
        let Session {
            machine,
            kept,
            capture,
            ..
        } = self;
        Answers::engine(machine.run_query(query.wrapped()), kept, capture, lost)
    }

    /// Runs `query` in this thread: its answers, lazily, as the engine finds them. A syntax
    /// error is an error here; an exception the goal raises is how the answers end
    /// ([`End::Exception`]), as `halt/0,1` is ([`End::Halted`]: the session goes on, its state
    /// kept). A query with a timeout is refused ([`QueryError::NeedsWorker`]): nothing can
    /// stop the engine in this thread by the clock; so is a text of several goals
    /// ([`QueryError::SeveralGoals`]).
    ///
    /// Answers of any depth come back on any thread (a default `std::thread`'s 2 MiB stack
    /// will do): the conversion from the engine's terms is iterative, and compound terms may
    /// nest up to a million levels ([`QueryError::AnswerTooLarge`] past it).
    pub fn query(&mut self, query: &Query) -> Result<Answers<'_>, QueryError> {
        if query.timeout.is_some() {
            return Err(QueryError::NeedsWorker);
        }
        query.check()?;
        if self.kept.broken {
            self.renew();
        }
        let lost = std::mem::take(&mut self.kept.lost);
        self.machine_query(query, lost)
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
    /// `T` as grids, at most `limit` of them (every one with `None`).
    pub(crate) fn solve_goal(
        &mut self,
        goal: &str,
        size: usize,
        limit: Option<usize>,
        inference_limit: u64,
    ) -> Result<PrologSolutions, PrologError> {
        self.solve_goal_each(goal, size, limit, inference_limit, &mut |_, _| {})
    }

    /// [`Session::solve_goal`], calling `each` with every grid as soon as it is found, and the
    /// inferences so far. This is the one path by which Prolog answers become grids.
    pub(crate) fn solve_goal_each(
        &mut self,
        goal: &str,
        size: usize,
        limit: Option<usize>,
        inference_limit: u64,
        each: &mut dyn FnMut(&Grid, Option<u64>),
    ) -> Result<PrologSolutions, PrologError> {
        let mut grids = Vec::new();
        let (end, inferences) = self.run_solve(goal, limit, inference_limit, &mut |a, i| {
            let grid = a.grid("T", size)?;
            each(&grid, i);
            grids.push(grid);
            Ok(())
        })?;
        Ok(PrologSolutions {
            grids,
            complete: end == End::Complete,
            limit_reached: end == End::Stopped(Limit::Inferences),
            inferences,
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
        let mut out = Vec::new();
        let (end, _) = self.run_solve(&noop_goal(p), limit, inference_limit, &mut |a, _| {
            let grid = a.grid("T", p.size)?;
            let ops_term = a.term("Ops")?;
            let bad = || PrologError::Protocol(format!("operators: {ops_term}"));
            let ops = ops_term
                .as_list()
                .ok_or_else(bad)?
                .iter()
                .map(|c| match c {
                    super::Term::Compound(f, _) => Op::from_symbol(f).ok_or_else(bad),
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
            Ok(())
        })?;
        Ok(NoopSolutions {
            answers: out,
            complete: end == End::Complete,
            limit_reached: end == End::Stopped(Limit::Inferences),
        })
    }

    /// Runs a solving goal, calling `each` with every answer and the inferences so far: how it
    /// ended, and the inferences it took. An exception is an error here.
    fn run_solve(
        &mut self,
        goal: &str,
        limit: Option<usize>,
        inference_limit: u64,
        each: &mut EachAnswer<'_>,
    ) -> Result<(End, Option<u64>), PrologError> {
        let mut query = Query::new(goal).inferences(inference_limit).without_text();
        query.max_answers = limit;
        let mut answers = self.query(&query).map_err(|e| match e {
            QueryError::Syntax { message, .. } => PrologError::Syntax(message),
            QueryError::Engine(e) => e,
            e @ (QueryError::NeedsWorker
            | QueryError::UnknownParam { .. }
            | QueryError::BadParam { .. }
            | QueryError::SeveralGoals { .. }
            | QueryError::AnswerTooLarge { .. }
            | QueryError::StartTimeout(_)
            | QueryError::Consult(_)) => PrologError::Protocol(e.to_string()),
        })?;
        while let Some(a) = answers.next() {
            let a = a.map_err(|e| PrologError::Protocol(e.to_string()))?;
            each(&a, answers.inferences())?;
        }
        match answers.end().cloned().unwrap_or(End::Complete) {
            End::Exception(e) => Err(PrologError::Exception(e.text)),
            End::Crashed(e) => Err(PrologError::Failed(e)),
            End::Halted(code) => Err(PrologError::Failed(format!("the goal halted ({code})"))),
            end => Ok((end, answers.inferences())),
        }
    }
}

impl std::fmt::Debug for Session {
    /// What it is for, where it runs, how many machines it built and what it keeps for a
    /// replacement (Scryer's machine says nothing of itself).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("purpose", &self.purpose)
            .field("place", &self.place)
            .field("engines_built", &self.engines)
            .field("state_bytes", &self.kept.state.as_ref().map(String::len))
            .field("lost", &self.kept.lost)
            .finish_non_exhaustive()
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// Where a [`Session`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The program's own process: nothing of the process is the session's (its standard
    /// output is the program's).
    Program,
    /// A worker process of the crate's ([`Session::serving`]).
    Worker,
}

/// A machine with `kenken.pl`, the host's wrapper and the libraries every goal finds, for
/// `purpose`, its flags and operators noted (`kk_query_start/0`), the loader's warnings kept
/// from the process's standard output (`kk_keep_warnings/1` of `prolog/host_warnings.pl`;
/// in the program's own process, the flag `unknown` refused the value `warning`, whose
/// warnings Scryer writes there as a goal runs); what it writes to
/// `user_output` goes to `capture`, what it writes to `user_error` nowhere; its `user_input` is
/// a channel kept by `capture`, empty but for what the host tells the wrapper between answers
/// (`Capture::tell`).
fn machine(purpose: Purpose, place: Place, capture: &Rc<Capture>) -> Machine {
    let out = Rc::clone(capture);
    let (input, input_config) = InputStreamConfig::channel();
    capture.set_input(input);
    let streams = StreamConfig::in_memory()
        .with_user_input(input_config)
        .with_user_output(OutputStreamConfig::callback(Box::new(move |buf| {
            let bytes = std::mem::take(buf.get_mut());
            buf.set_position(0);
            out.push(&bytes);
        })))
        .with_user_error(OutputStreamConfig::callback(Box::new(|buf| {
            buf.get_mut().clear();
            buf.set_position(0);
        })));
    let mut machine = Builder::new(purpose).streams(streams).build();
    // (what loading wrote is flushed, and dropped)
    let keep = match (purpose, place) {
        (Purpose::Queries, Place::Program) => "kk_keep_warnings(true), ",
        (Purpose::Queries, Place::Worker) => "kk_keep_warnings(false), ",
        _ => "",
    };
    let _ = machine
        .run_query(format!("kk_query_start, {keep}flush_output(user_output)."))
        .count();
    capture.reset();
    machine
}
