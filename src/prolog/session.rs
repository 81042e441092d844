//! A [`Session`]: one Scryer engine in this thread with `kenken.pl` loaded, answering queries
//! ([`Session::query`]) and running the homework's solvers with their answers as grids.

use scryer_prolog::Machine;

use super::start::Purpose;

use super::query::{Answers, End, Query, QueryError};
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
pub struct Session {
    machine: Machine,
    /// What the machine was built for (a replacement is built alike).
    purpose: Purpose,
    /// The machine must be replaced before the next query (a query was left half-run, or the
    /// engine failed).
    broken: bool,
}

impl Session {
    /// Starts a machine and consults `kenken.pl` and the host wrapper (about 0.3 s).
    pub fn new() -> Session {
        Session::for_purpose(Purpose::Queries)
    }

    /// A session that only runs the homework's solvers for the host (worker engines): built
    /// without the host's goal expansions, which Scryer would run on the solvers' meta-calls.
    pub(crate) fn for_solving() -> Session {
        Session::for_purpose(Purpose::Solving)
    }

    fn for_purpose(purpose: Purpose) -> Session {
        Session {
            machine: machine(purpose),
            purpose,
            broken: false,
        }
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
        if self.broken {
            self.machine = machine(self.purpose);
            self.broken = false;
        }
        let Session {
            machine, broken, ..
        } = self;
        Answers::engine(machine.run_query(query.wrapped()), broken)
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
        let mut query = Query::new(goal).inferences(inference_limit);
        query.max_answers = limit;
        let mut answers = self.query(&query).map_err(|e| match e {
            QueryError::Syntax { message, .. } => PrologError::Syntax(message),
            QueryError::Engine(e) => e,
            e @ (QueryError::NeedsWorker
            | QueryError::SeveralGoals { .. }
            | QueryError::AnswerTooLarge { .. }
            | QueryError::StartTimeout(_)) => PrologError::Protocol(e.to_string()),
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

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// A machine with `kenken.pl`, the host's wrapper and the libraries every goal finds.
fn machine(purpose: Purpose) -> Machine {
    super::start::machine(purpose, &mut |_| {})
}
