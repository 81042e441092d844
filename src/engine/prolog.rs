//! Every Prolog engine: `kenken/3` or `plain_kenken/3` of the homework in a Prolog system
//! behind the seam ([`crate::system`]), one generic [`SystemEngine`] for all.
//!
//! A puzzle becomes the spec's goal text once ([`crate::prolog::solve_goal`]); the system runs
//! it within the request's deadline and bounds and gives each answer as it comes; the
//! [`Outcome`] becomes the [`Report`]. Nothing here knows one system from another: the
//! engine's kind says which system to open ([`EngineKind::system`]) and which predicate to
//! call ([`EngineKind::predicate`]).

use std::time::{Duration, Instant};

use super::{spec_order, Engine, EngineError, EngineKind, Report, Request, Stats, Status};
use crate::prolog::{solve_goal, Predicate};
use crate::puzzle::Puzzle;
use crate::system::{
    Bound, ChildSetup, End, Goal, Gprolog, Program, PrologSystem, ScryerThread, ScryerWorker,
    Swipl, SystemError,
};

/// How long loading the homework may take (gprolog compiles it first).
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// `kenken/3` or `plain_kenken/3` of the homework in the Prolog system `S`.
#[derive(Debug)]
pub struct SystemEngine<S: PrologSystem> {
    kind: EngineKind,
    predicate: Predicate,
    system: S,
}

/// The homework in an embedded Scryer Prolog in this process, on a thread of its own.
///
/// Nothing can stop Scryer by the clock in this process, so a request with a timeout is
/// refused ([`EngineError::NeedsWorker`]): bound the work with [`Request::with_inferences`], or
/// use a [`WorkerEngine`].
pub type PrologEngine = SystemEngine<ScryerThread>;

/// The homework in an embedded Scryer Prolog in a worker process ([`crate::worker`]), started
/// when the engine is made. A request's timeout bounds the whole solve, wall clock, from the
/// call to the report (a worker started again after a timeout counts): at the deadline the
/// child is killed, and the report holds every solution it found before, in order. It keeps a
/// warm spare ([`ScryerWorker`]); [`WorkerEngine::spare`] turns it off.
pub type WorkerEngine = SystemEngine<ScryerWorker>;

/// The homework's own system, GNU Prolog: `prolog/gnu_kenken.pl` under the real `gprolog`,
/// one confined process per solve ([`Gprolog`]). GNU Prolog counts no inferences.
pub type GprologEngine = SystemEngine<Gprolog>;

/// SWI-Prolog: `prolog/swi_kenken.pl` (`kenken.pl` under `library(clpfd)`) under the real
/// `swipl`, one confined process per solve ([`Swipl`]). Its statistics are empty.
pub type SwiplEngine = SystemEngine<Swipl>;

impl<S: PrologSystem> SystemEngine<S> {
    /// An engine of `kind` on `system`, the homework loaded.
    pub fn on(kind: EngineKind, mut system: S) -> Result<SystemEngine<S>, EngineError> {
        let predicate = kind.predicate().ok_or_else(|| {
            EngineError::Prolog(format!("the {kind} engine is not a Prolog engine"))
        })?;
        system
            .load(&Program::Homework, LOAD_TIMEOUT)
            .map_err(|e| engine_error(kind, e))?;
        Ok(SystemEngine {
            kind,
            predicate,
            system,
        })
    }

    /// The system the engine runs in.
    pub fn system(&self) -> &S {
        &self.system
    }

    /// Checks that `kind` runs on the system `name`.
    fn check(kind: EngineKind, name: &str) -> Result<(), EngineError> {
        match kind.system() {
            Some(s) if s.name() == name => Ok(()),
            _ => Err(EngineError::Prolog(format!(
                "the {kind} engine does not run in {name}"
            ))),
        }
    }
}

impl PrologEngine {
    /// A fresh session with `kenken.pl` consulted (about 0.4 s), solving with `kind` (`Fd` or
    /// `Plain`).
    pub fn new(kind: EngineKind) -> Result<PrologEngine, EngineError> {
        Self::check(kind, "scryer")?;
        let system = ScryerThread::new().map_err(|e| engine_error(kind, e))?;
        SystemEngine::on(kind, system)
    }
}

impl WorkerEngine {
    /// An engine whose solves run in a child process, started now (about 0.5 s). The program
    /// must call [`crate::worker::init`] first thing in `main`.
    pub fn new(kind: EngineKind) -> Result<WorkerEngine, EngineError> {
        Self::check(kind, "scryer")?;
        SystemEngine::on(kind, ScryerWorker::new())
    }

    /// This engine, keeping a warm spare worker (`true`, the default) or not: without one, the
    /// solve after a timeout waits for a fresh worker's start.
    pub fn spare(mut self, keep: bool) -> WorkerEngine {
        self.system.keep_spare(keep);
        self
    }

    /// The process id of the running worker.
    pub fn pid(&self) -> Option<u32> {
        self.system.pid()
    }
}

impl GprologEngine {
    /// Compiles `gnu_kenken.pl` for `kind` ([`EngineKind::GprologFd`] or
    /// [`EngineKind::GprologPlain`]); fails with [`EngineError::NotInstalled`] when GNU Prolog
    /// is not installed. gprolog runs confined, which a worker of this program does for it:
    /// the program must call [`crate::worker::init`] first thing in `main`.
    pub fn new(kind: EngineKind) -> Result<GprologEngine, EngineError> {
        Self::check(kind, "gprolog")?;
        let system = Gprolog::new(ChildSetup::for_answers()).map_err(|e| engine_error(kind, e))?;
        SystemEngine::on(kind, system)
    }
}

impl SwiplEngine {
    /// `swi_kenken.pl` for `kind` ([`EngineKind::SwiplFd`] or [`EngineKind::SwiplPlain`]);
    /// fails with [`EngineError::NotInstalled`] when SWI-Prolog is not installed. swipl runs
    /// confined, which a worker of this program does for it: the program must call
    /// [`crate::worker::init`] first thing in `main`.
    pub fn new(kind: EngineKind) -> Result<SwiplEngine, EngineError> {
        Self::check(kind, "swipl")?;
        let system = Swipl::new(ChildSetup::for_answers()).map_err(|e| engine_error(kind, e))?;
        SystemEngine::on(kind, system)
    }
}

/// The engine's error for the seam's.
fn engine_error(kind: EngineKind, e: SystemError) -> EngineError {
    match e {
        SystemError::NotInstalled { system, install } => EngineError::NotInstalled {
            kind,
            system,
            install,
        },
        SystemError::NeedsWorker(_) => EngineError::NeedsWorker(kind),
        SystemError::Process(e) => EngineError::Process(e),
        other => EngineError::Prolog(other.to_string()),
    }
}

impl<S: PrologSystem> Engine for SystemEngine<S> {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn settle(&mut self) {
        self.system.settle();
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        let called = Instant::now();
        let failed = |e: EngineError| {
            let mut r = Report::failed(self.kind, e);
            r.elapsed = called.elapsed();
            r
        };
        if let Err(e) = puzzle.check() {
            return failed(e.into());
        }
        let mut report = Report {
            engine: self.kind,
            solutions: Vec::new(),
            count: 0,
            status: Status::Solved,
            complete: false,
            elapsed: Duration::ZERO,
            stats: Stats::default(),
            error: None,
        };
        if request.limit == Some(0) {
            report.elapsed = called.elapsed();
            return report;
        }
        let goal = Goal {
            max_answers: request.limit,
            deadline: request.timeout.and_then(|t| called.checked_add(t)),
            inferences: request.inferences,
            ..Goal::new(&solve_goal(puzzle, self.predicate), puzzle.size)
        };
        let name = self.system.name();
        let (mut bad, mut last_inferences) = (None, None);
        let outcome = self.system.run(&goal, &mut |a| {
            last_inferences = a.inferences.or(last_inferences);
            match a.value {
                Ok(grid) => {
                    report.count += 1;
                    if !request.count_only {
                        report.solutions.push(grid);
                    }
                }
                Err(text) => {
                    bad.get_or_insert(text);
                }
            }
        });
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => return failed(engine_error(self.kind, e)),
        };
        if let Some(text) = bad {
            return failed(EngineError::Prolog(format!(
                "{name} answered T = {text}, which is not a {0}x{0} grid",
                puzzle.size
            )));
        }
        let (complete, timed_out, inference_limit) = match outcome.end {
            End::Complete => (true, false, false),
            End::Stopped(Bound::Answers) => (false, false, false),
            End::Stopped(Bound::Time) => (false, true, false),
            End::Stopped(Bound::Inferences) => (false, false, true),
            End::Exception(ball) => {
                return failed(EngineError::Prolog(format!(
                    "{name}: Prolog exception: {ball}"
                )))
            }
            End::Halted(code) => {
                return failed(EngineError::Prolog(format!(
                    "{name} stopped: the goal halted ({code})"
                )))
            }
            End::Unsupported(pi) => {
                return failed(EngineError::Prolog(format!(
                    "{name}: the goal called {pi}, which {name} does not give"
                )))
            }
            End::Crashed(c) => {
                return failed(EngineError::Prolog(format!("{name} stopped: {}", c.why)))
            }
            End::Untrusted(why) => {
                return failed(EngineError::Prolog(format!(
                    "the {name} process's reply cannot be trusted: {why}"
                )))
            }
        };
        report.complete = complete;
        report.status = Status::of(report.count, complete, timed_out, inference_limit);
        // (stopped by the clock: the call's time, which the deadline bounds; else the goal's,
        // as the system timed it)
        report.elapsed = if timed_out {
            called.elapsed()
        } else {
            outcome.elapsed
        };
        report.stats.inferences = outcome.inferences.or(last_inferences);
        report.stats.cpu_us = outcome.cpu.and_then(|c| u64::try_from(c.as_micros()).ok());
        spec_order(&mut report, request);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_in_process_engine_can_be_sent_and_refuses_a_deadline() {
        fn sendable<T: Send>(_: &T) {}
        let mut engine = PrologEngine::new(EngineKind::Fd).unwrap();
        sendable(&engine);
        let p = crate::format::read_auto("kenken_testcase(1, []).").unwrap();
        let r = engine.solve(
            &p[0],
            &Request::all().with_timeout(Duration::from_millis(200)),
        );
        assert_eq!(r.status, Status::Error);
        assert_eq!(r.error, Some(EngineError::NeedsWorker(EngineKind::Fd)));
        let r = std::thread::spawn(move || engine.solve(&p[0], &Request::all()))
            .join()
            .unwrap();
        assert_eq!(
            (r.status, r.solutions),
            (Status::Unique, vec![vec![vec![1]]])
        );
    }
}
