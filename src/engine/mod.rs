//! One interface for every engine: a [`Request`] says what to find, an [`Engine`] finds it in a
//! puzzle, and a [`Report`] says what happened.
//!
//! Two implementations stand behind the [`Engine`] trait:
//! - [`NativeEngine`], the native Rust solver;
//! - `SystemEngine` (feature `prolog`), the homework's `kenken/3` or `plain_kenken/3` in a
//!   Prolog system behind the seam ([`crate::system`]), one generic engine for every system:
//!   `PrologEngine` (an embedded Scryer Prolog in this thread), `WorkerEngine` (the same in a
//!   child process that is killed when the request's timeout passes, so that a Prolog solve is
//!   really bounded), `GprologEngine` (`prolog/gnu_kenken.pl` under the real `gprolog`) and
//!   `SwiplEngine` (`prolog/swi_kenken.pl` under the real `swipl`), each child system one
//!   confined process per solve, when it is installed.
//!
//! [`EngineKind::open`] makes the right one, and [`solve_all`] runs many puzzles on a pool of
//! engines. Commands (`solve`, `bench`) use only this module: none of them matches on the engine.
//!
//! ```
//! use kenken::engine::{EngineKind, Isolation, Request, Status};
//! use kenken::format;
//!
//! let p = &format::read_auto("kenken_testcase(2, [+(3, [[1|1], [1|2]]), +(3, [[2|1], [2|2]])]).")
//!     .unwrap()[0];
//! let mut engine = EngineKind::Native.open(Isolation::InProcess).unwrap();
//! let report = engine.solve(p, &Request::all());
//! assert_eq!(report.status, Status::Solved);
//! assert_eq!(report.solutions, vec![vec![vec![1, 2], vec![2, 1]], vec![vec![2, 1], vec![1, 2]]]);
//! ```

mod native;
#[cfg(feature = "prolog")]
mod prolog;

use std::fmt;
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::puzzle::{Grid, InvalidPuzzle, Puzzle};

pub use crate::limit::Limit;
pub use native::NativeEngine;
#[cfg(feature = "prolog")]
pub use prolog::{GprologEngine, PrologEngine, SwiplEngine, SystemEngine, WorkerEngine};

/// One of the solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    /// The native Rust solver.
    Native,
    /// `kenken/3` of `prolog/kenken.pl` (CLP(FD)) in Scryer Prolog.
    Fd,
    /// `plain_kenken/3` of `prolog/kenken.pl` (plain enumeration) in Scryer Prolog.
    Plain,
    /// `kenken/3` of `prolog/gnu_kenken.pl` (GNU Prolog's finite domains) under `gprolog`.
    GprologFd,
    /// `plain_kenken/3` of `prolog/gnu_kenken.pl` (plain enumeration) under `gprolog`.
    GprologPlain,
    /// `kenken/3` of `prolog/swi_kenken.pl` (`kenken.pl` with `library(clpfd)`) under `swipl`.
    SwiplFd,
    /// `plain_kenken/3` of `prolog/swi_kenken.pl` (plain enumeration) under `swipl`.
    SwiplPlain,
}

/// The Prolog system a Prolog engine runs in ([`EngineKind::system`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SystemKind {
    /// The embedded Scryer Prolog (`prolog/kenken.pl`).
    Scryer,
    /// GNU Prolog, the real `gprolog` (`prolog/gnu_kenken.pl`).
    Gprolog,
    /// SWI-Prolog, the real `swipl` (`prolog/swi_kenken.pl`).
    Swipl,
}

impl SystemKind {
    /// Every system, in the order they are reported.
    pub const ALL: [SystemKind; 3] = [SystemKind::Scryer, SystemKind::Gprolog, SystemKind::Swipl];

    /// The system's name (`scryer`, `gprolog`, `swipl`), as [`crate::system`] says it.
    pub fn name(self) -> &'static str {
        match self {
            SystemKind::Scryer => "scryer",
            SystemKind::Gprolog => "gprolog",
            SystemKind::Swipl => "swipl",
        }
    }
}

impl EngineKind {
    /// All engines, in the order they are run and reported.
    pub const ALL: [EngineKind; 7] = [
        EngineKind::Native,
        EngineKind::Fd,
        EngineKind::Plain,
        EngineKind::GprologFd,
        EngineKind::GprologPlain,
        EngineKind::SwiplFd,
        EngineKind::SwiplPlain,
    ];

    /// The engines that need nothing but this crate (GNU Prolog's need `gprolog`, SWI-Prolog's
    /// `swipl`): what `kenken bench` runs by default.
    pub const BUILT_IN: [EngineKind; 3] = [EngineKind::Native, EngineKind::Fd, EngineKind::Plain];

    /// The engine's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Native => "native",
            EngineKind::Fd => "fd",
            EngineKind::Plain => "plain",
            EngineKind::GprologFd => "gprolog-fd",
            EngineKind::GprologPlain => "gprolog-plain",
            EngineKind::SwiplFd => "swipl-fd",
            EngineKind::SwiplPlain => "swipl-plain",
        }
    }

    /// The Prolog system the engine runs in (`None`: the native solver).
    pub fn system(self) -> Option<SystemKind> {
        match self {
            EngineKind::Native => None,
            EngineKind::Fd | EngineKind::Plain => Some(SystemKind::Scryer),
            EngineKind::GprologFd | EngineKind::GprologPlain => Some(SystemKind::Gprolog),
            EngineKind::SwiplFd | EngineKind::SwiplPlain => Some(SystemKind::Swipl),
        }
    }

    /// The homework's predicate the engine calls (`None`: the native solver).
    #[cfg(feature = "prolog")]
    pub fn predicate(self) -> Option<crate::prolog::Predicate> {
        use crate::prolog::Predicate;
        match self {
            EngineKind::Native => None,
            EngineKind::Fd | EngineKind::GprologFd | EngineKind::SwiplFd => Some(Predicate::Fd),
            EngineKind::Plain | EngineKind::GprologPlain | EngineKind::SwiplPlain => {
                Some(Predicate::Plain)
            }
        }
    }

    /// Whether the engine runs under GNU Prolog.
    pub fn is_gprolog(self) -> bool {
        self.system() == Some(SystemKind::Gprolog)
    }

    /// Makes an engine of this kind. `isolation` says where a Prolog engine runs (the native
    /// engine always runs in this thread: its deadline stops it promptly). Fails for the Prolog
    /// engines when the crate is built without the `prolog` feature.
    pub fn open(self, isolation: Isolation) -> Result<Box<dyn Engine>, EngineError> {
        match (self.system(), isolation) {
            (None, _) => Ok(Box::new(NativeEngine)),
            #[cfg(feature = "prolog")]
            (Some(SystemKind::Scryer), Isolation::InProcess) => {
                Ok(Box::new(PrologEngine::new(self)?))
            }
            #[cfg(feature = "prolog")]
            (Some(SystemKind::Scryer), Isolation::Worker) => Ok(Box::new(WorkerEngine::new(self)?)),
            #[cfg(feature = "prolog")]
            (Some(SystemKind::Gprolog), _) => Ok(Box::new(GprologEngine::new(self)?)),
            #[cfg(feature = "prolog")]
            (Some(SystemKind::Swipl), _) => Ok(Box::new(SwiplEngine::new(self)?)),
            #[cfg(not(feature = "prolog"))]
            (Some(_), _) => Err(EngineError::Unavailable(self)),
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EngineKind::ALL
            .into_iter()
            .find(|e| e.name() == s.trim())
            .ok_or_else(|| {
                let names = EngineKind::ALL.map(EngineKind::name);
                format!(
                    "unknown engine '{s}' (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// Where a Prolog engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// In this process: cheapest, but nothing stops a Prolog engine by the clock here, so a
    /// request with a timeout is refused ([`EngineError::NeedsWorker`]); bound it by
    /// inferences instead.
    InProcess,
    /// In a child process (started when the engine is opened) that is killed when the timeout
    /// passes, keeping the solutions found before (a fresh one is started at once for the next
    /// request). The program must call [`crate::worker::init`] first thing in `main`.
    Worker,
}

/// What to find in a puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Stop after this many solutions; `None` finds them all.
    pub limit: Option<usize>,
    /// Count the solutions without keeping them (the report's `solutions` stays empty).
    pub count_only: bool,
    /// Wall-clock bound for the solve.
    pub timeout: Option<Duration>,
    /// Bound on Prolog inferences (ignored by the native engine).
    pub inferences: Option<u64>,
    /// Threads the native engine may use for one puzzle (1: its search is deterministic; see
    /// [`crate::native::Solver::with_threads`]); the Prolog engines use one.
    pub threads: usize,
}

impl Request {
    /// Two solutions at most: enough to tell whether the first one is unique.
    pub fn unique() -> Request {
        Request::at_most(2)
    }

    /// At most `k` solutions.
    pub(crate) fn at_most(k: usize) -> Request {
        Request {
            limit: Some(k),
            count_only: false,
            timeout: None,
            inferences: None,
            threads: 1,
        }
    }

    /// Every solution.
    pub fn all() -> Request {
        Request {
            limit: None,
            ..Request::unique()
        }
    }

    /// This request, counting solutions without keeping them.
    pub fn counting(self) -> Request {
        Request {
            count_only: true,
            ..self
        }
    }

    /// This request, bounded by `timeout` of wall-clock time: the whole solve, from the call to
    /// the report. Solutions found before the deadline are reported.
    pub fn with_timeout(self, timeout: Duration) -> Request {
        Request {
            timeout: Some(timeout),
            ..self
        }
    }

    /// This request, letting the native engine use up to `threads` threads per puzzle.
    pub fn with_threads(self, threads: usize) -> Request {
        Request {
            threads: threads.max(1),
            ..self
        }
    }

    /// This request, bounded by `inferences` Prolog inferences.
    pub fn with_inferences(self, inferences: Option<u64>) -> Request {
        Request { inferences, ..self }
    }
}

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Exactly one solution, and the search proved there is no other.
    Unique,
    /// Solutions were found: more than one, or the limit stopped the search before it could
    /// tell.
    Solved,
    /// The search proved there is no solution.
    NoSolution,
    /// The timeout stopped the search (solutions found before it are reported).
    Timeout,
    /// The inference bound stopped the search.
    Limit,
    /// The engine failed; the report's `error` says why.
    Error,
}

impl Status {
    /// The status's name, as in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Status::Unique => "unique",
            Status::Solved => "solved",
            Status::NoSolution => "no_solution",
            Status::Timeout => "timeout",
            Status::Limit => "limit",
            Status::Error => "error",
        }
    }

    /// The process exit code for this status: 0 solved, 1 no solution, 2 error, 3 a limit.
    pub fn exit_code(self) -> i32 {
        match self {
            Status::Unique | Status::Solved => 0,
            Status::NoSolution => 1,
            Status::Error => 2,
            Status::Timeout | Status::Limit => 3,
        }
    }

    /// The bound that stopped the search, for [`Status::Timeout`] and [`Status::Limit`].
    pub fn limit(self) -> Option<Limit> {
        match self {
            Status::Timeout => Some(Limit::Time),
            Status::Limit => Some(Limit::Inferences),
            _ => None,
        }
    }

    /// The status of a search that found `found` solutions and ended as said.
    pub fn of(found: u64, complete: bool, timed_out: bool, limit_reached: bool) -> Status {
        if timed_out {
            Status::Timeout
        } else if limit_reached {
            Status::Limit
        } else if found == 0 && complete {
            Status::NoSolution
        } else if found == 1 && complete {
            Status::Unique
        } else {
            Status::Solved
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// Search statistics; each engine fills what it measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Search nodes (native): the root and every value tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Dead ends met (native).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<u64>,
    /// Propagation steps (native).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagations: Option<u64>,
    /// Restarts of the search (native).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u64>,
    /// Prolog inferences (Prolog engines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferences: Option<u64>,
    /// The CPU time in microseconds the engine spent on the goal, as `time/1` in that engine
    /// would measure it (our query wrapper included), where the engine measures it (Scryer,
    /// in this process or in a worker). Beside the report's wall-clock time, it shows what
    /// the layer between the caller and the engine adds ([`crate::bench`]'s "our layer").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
}

/// What an engine found in a puzzle, and how the search ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The engine that ran.
    pub engine: EngineKind,
    /// The solutions found, in the engine's order; with [`Request::all`], in the spec's order
    /// (row by row, lexicographic) whatever the engine. Empty with [`Request::counting`].
    pub solutions: Vec<Grid>,
    /// How many solutions were found.
    pub count: u64,
    /// How the search ended.
    pub status: Status,
    /// Whether every solution was enumerated.
    pub complete: bool,
    /// Wall-clock time of the solve, from the call to the report.
    pub elapsed: Duration,
    /// Search statistics.
    pub stats: Stats,
    /// Why the engine failed, when `status` is [`Status::Error`].
    pub error: Option<EngineError>,
}

impl Report {
    /// The report of a solve that failed before searching.
    pub fn failed(engine: EngineKind, error: EngineError) -> Report {
        Report {
            engine,
            solutions: Vec::new(),
            count: 0,
            status: Status::Error,
            complete: false,
            elapsed: Duration::ZERO,
            stats: Stats::default(),
            error: Some(error),
        }
    }

    /// The elapsed time in milliseconds.
    pub fn elapsed_ms(&self) -> f64 {
        self.elapsed.as_secs_f64() * 1000.0
    }
}

/// Why an engine could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The puzzle does not validate.
    #[error(transparent)]
    InvalidPuzzle(#[from] InvalidPuzzle),
    /// The engine is not built into this program.
    #[error("the {0} engine needs the crate's `prolog` feature")]
    Unavailable(EngineKind),
    /// The Prolog program raised an exception or answered something that is not a grid.
    #[error("{0}")]
    Prolog(String),
    /// A thread the engine solves in stopped (it panicked, or could not start).
    #[error("{0} stopped")]
    ThreadStopped(&'static str),
    /// The engine could not start a thread or talk to it.
    #[error(transparent)]
    Io(#[from] crate::error::IoError),
    /// A worker's reply (or a request to it) is not the JSON it should be.
    #[error(transparent)]
    Json(#[from] crate::error::JsonError),
    /// The worker process failed.
    #[cfg(feature = "prolog")]
    #[error("Prolog worker: {0}")]
    Process(#[from] crate::process::WorkerError),
    /// The engine's Prolog system (GNU Prolog, SWI-Prolog) is not installed.
    #[error("the {kind} engine needs {system}: {install}")]
    NotInstalled {
        /// The engine.
        kind: EngineKind,
        /// The system it needs, as people name it (`GNU Prolog`).
        system: &'static str,
        /// How to install it.
        install: &'static str,
    },
    /// A timeout was asked of a Prolog engine in this process, which nothing can stop by the
    /// clock.
    #[error(
        "the {0} engine cannot be stopped by the clock in this process: open it with \
         Isolation::Worker for a timeout, or bound it with Request::with_inferences"
    )]
    NeedsWorker(EngineKind),
}

/// A solver of puzzles: native, in-process Prolog or a Prolog worker process. Every engine
/// can be sent to another thread.
pub trait Engine: Send {
    /// Which engine this is.
    fn kind(&self) -> EngineKind;

    /// Solves `puzzle` as `request` asks. Never panics: failures come back as a report with
    /// [`Status::Error`].
    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report;

    /// Waits until every process the engine keeps in reserve (a worker engine's warm spare)
    /// has started, so that its start does not slow the solves that follow; a benchmark calls
    /// it before each timed solve. Nothing to wait for by default.
    fn settle(&mut self) {}
}

impl fmt::Debug for dyn Engine + '_ {
    /// The engine's kind (`Engine { kind: Fd }`); each engine's own type says more.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("kind", &self.kind())
            .finish_non_exhaustive()
    }
}

/// Puts the solutions of a complete enumeration in the spec's order (row by row,
/// lexicographic), so that every engine lists them alike.
pub(crate) fn spec_order(report: &mut Report, request: &Request) {
    if request.limit.is_none() && report.complete {
        report.solutions.sort();
    }
}

/// Solves every puzzle with `jobs` engines of `kind` at once, each on a thread of its own;
/// yields the reports in the puzzles' order, each as soon as it and those before it are done.
///
/// An engine that cannot be opened gives an error report for each puzzle it would have solved.
pub fn solve_all(
    kind: EngineKind,
    isolation: Isolation,
    puzzles: Vec<Puzzle>,
    request: Request,
    jobs: usize,
) -> impl Iterator<Item = Report> {
    let total = puzzles.len();
    let puzzles = std::sync::Arc::new(puzzles);
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<(usize, Report)>();
    for _ in 0..jobs.clamp(1, total.max(1)) {
        let (puzzles, next, tx) = (puzzles.clone(), next.clone(), tx.clone());
        // A thread that cannot start leaves its share to the others; with none at all, the
        // reports say so (see `Ordered`).
        let _ = std::thread::Builder::new()
            .name("kenken-solve".into())
            // Scryer recurses deeply on big terms: give an in-process engine a roomy stack.
            .stack_size(64 << 20)
            .spawn(move || {
                let mut engine = kind.open(isolation);
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(p) = puzzles.get(i) else { break };
                    let report = match &mut engine {
                        Ok(e) => e.solve(p, &request),
                        Err(e) => Report::failed(kind, e.clone()),
                    };
                    if tx.send((i, report)).is_err() {
                        break;
                    }
                }
            });
    }
    drop(tx);
    Ordered {
        rx,
        pending: std::collections::BTreeMap::new(),
        next: 0,
        total,
        kind,
    }
}

/// Reports received in any order, yielded in the puzzles' order.
struct Ordered {
    rx: mpsc::Receiver<(usize, Report)>,
    pending: std::collections::BTreeMap<usize, Report>,
    next: usize,
    total: usize,
    kind: EngineKind,
}

impl Iterator for Ordered {
    type Item = Report;

    fn next(&mut self) -> Option<Report> {
        if self.next >= self.total {
            return None;
        }
        loop {
            if let Some(r) = self.pending.remove(&self.next) {
                self.next += 1;
                return Some(r);
            }
            match self.rx.recv() {
                Ok((i, r)) => {
                    self.pending.insert(i, r);
                }
                Err(_) => {
                    // Every thread is gone (or none could start): the rest failed.
                    self.next += 1;
                    return Some(Report::failed(
                        self.kind,
                        EngineError::ThreadStopped("the solving thread"),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_the_search() {
        assert_eq!(Status::of(1, true, false, false), Status::Unique);
        assert_eq!(Status::of(2, true, false, false), Status::Solved);
        assert_eq!(Status::of(2, false, false, false), Status::Solved);
        assert_eq!(Status::of(0, true, false, false), Status::NoSolution);
        assert_eq!(Status::of(1, false, true, false), Status::Timeout);
        assert_eq!(Status::of(0, false, false, true), Status::Limit);
        assert_eq!(Status::Timeout.exit_code(), 3);
        assert_eq!(
            format!("[{:>8}|{:<8}]", Status::Unique, EngineKind::Fd),
            "[  unique|fd      ]"
        );
        assert_eq!(
            serde_json::to_string(&Status::NoSolution).unwrap(),
            "\"no_solution\""
        );
    }

    #[test]
    fn the_pool_keeps_the_puzzles_order() {
        let puzzles: Vec<Puzzle> = (1..=6)
            .map(|n| {
                let cells = (1..=n)
                    .flat_map(|r| (1..=n).map(move |c| crate::Cell::new(r, c)))
                    .collect();
                let sum = (n * n * (n + 1) / 2) as u64;
                Puzzle::new(n, vec![crate::Cage::new(crate::Op::Add, sum, cells)])
            })
            .collect();
        let reports: Vec<Report> = solve_all(
            EngineKind::Native,
            Isolation::InProcess,
            puzzles,
            Request::at_most(3),
            3,
        )
        .collect();
        let counts: Vec<u64> = reports.iter().map(|r| r.count).collect();
        assert_eq!(counts, vec![1, 2, 3, 3, 3, 3]);
        assert_eq!(reports[0].status, Status::Unique);
    }
}
