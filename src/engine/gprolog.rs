//! `kenken/3` and `plain_kenken/3` under the homework's own system, GNU Prolog: the real
//! `gprolog` runs `prolog/gnu_kenken.pl` (same predicates, same answers in the same order as
//! `prolog/kenken.pl`), one process per solve ([`crate::gnu`]), confined as a judged file is
//! (gprolog is a program we did not write): it reads only its installation and its byte code,
//! writes only in its scratch folder, starts nothing, opens no socket, and has the default
//! [`Limits`].
//!
//! The deadline contract is the other engines': a request's timeout bounds the whole solve,
//! and the report holds every solution found before it (they stream out of gprolog as found);
//! the process group is killed at the deadline. GNU Prolog counts no inferences, so the
//! report's statistics are empty; its time is this process's clock, from the goal's start in
//! gprolog (after its start-up and loading) to its last answer.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use super::{Engine, EngineError, EngineKind, Report, Request, Stats, Status};
use crate::error::Context;
use crate::gnu::{self, Gnu, GnuError, Install};
use crate::process::{Child, Confinement, Limits, Spawn, Stderr, WorkerError};
use crate::prolog::{solve_goal, Predicate};
use crate::puzzle::Puzzle;

/// The homework for GNU Prolog.
const GNU_KENKEN_PL: &str = include_str!("../../prolog/gnu_kenken.pl");

/// How long compiling `gnu_kenken.pl` and the driver may take.
const BUILD_TIMEOUT: Duration = Duration::from_secs(60);

/// The most answers asked of gprolog when every one is wanted (its integers are 60-bit).
const ALL_ANSWERS: u64 = 1 << 50;

/// `kenken/3` or `plain_kenken/3` of `prolog/gnu_kenken.pl` under `gprolog`.
pub struct GprologEngine {
    kind: EngineKind,
    gnu: Gnu,
    scratch: tempfile::TempDir,
}

impl GprologEngine {
    /// Compiles `gnu_kenken.pl` for `kind` ([`EngineKind::GprologFd`] or
    /// [`EngineKind::GprologPlain`]); fails with [`EngineError::NoGprolog`] when GNU Prolog is
    /// not installed. gprolog runs confined, which a worker of this program does for it: the
    /// program must call [`crate::worker::init`] first thing in `main`.
    pub fn new(kind: EngineKind) -> Result<GprologEngine, EngineError> {
        if !kind.is_gprolog() {
            return Err(EngineError::Prolog(format!(
                "the {kind} engine is not a GNU Prolog engine"
            )));
        }
        let install = Install::find().ok_or(EngineError::NoGprolog(kind))?;
        let scratch = tempfile::Builder::new()
            .prefix("kenken-gprolog-")
            .tempdir()
            .context("making a scratch folder for gprolog")?;
        let source = scratch.path().join("gnu_kenken.pl");
        std::fs::write(&source, GNU_KENKEN_PL).context("writing gnu_kenken.pl")?;
        let engine = GprologEngine {
            kind,
            gnu: Gnu::new(install, scratch.path()),
            scratch,
        };
        let start = |p: &Path, a: &[OsString]| engine.start(p, a);
        if let Err(messages) = engine
            .gnu
            .build_driver(&start, BUILD_TIMEOUT)
            .map_err(engine_error)?
        {
            return Err(EngineError::Prolog(format!(
                "the gprolog driver does not compile: {messages}"
            )));
        }
        let (messages, ok) = engine
            .gnu
            .build_program(&start, &source, BUILD_TIMEOUT)
            .map_err(engine_error)?;
        if !ok {
            return Err(EngineError::Prolog(format!(
                "gnu_kenken.pl does not compile: {messages}"
            )));
        }
        Ok(engine)
    }

    /// Starts `program` of the installation, confined.
    fn start(&self, program: &Path, args: &[OsString]) -> Result<Child, WorkerError> {
        let mut read = self.gnu.install().home();
        read.push(self.scratch.path().to_path_buf());
        let confinement = Confinement {
            read,
            scratch: self.scratch.path().to_path_buf(),
            exec: vec![program.to_path_buf()],
            limits: Limits::default(),
            // (pl2wam's byte code is read by the next process: the scratch folder is shared)
            scratch_size: None,
        };
        Spawn::confined_exec(program, args, &confinement)?
            .stderr(Stderr::Capture)
            .output_cap(gnu::OUTPUT_CAP)
            .frame_cap(gnu::FRAME_CAP)
            .spawn()
    }

    fn predicate(&self) -> Predicate {
        match self.kind {
            EngineKind::GprologPlain => Predicate::Plain,
            _ => Predicate::Fd,
        }
    }
}

/// The engine's error for GNU Prolog's.
fn engine_error(e: GnuError) -> EngineError {
    match e {
        GnuError::Process(e) => EngineError::Process(e),
        other => EngineError::Prolog(other.to_string()),
    }
}

impl Engine for GprologEngine {
    fn kind(&self) -> EngineKind {
        self.kind
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
        let goal = solve_goal(puzzle, self.predicate());
        let goal = goal.trim_end_matches('.');
        let max = request.limit.map_or(ALL_ANSWERS, |k| k as u64);
        if max == 0 {
            return Report {
                engine: self.kind,
                solutions: Vec::new(),
                count: 0,
                status: Status::Solved,
                complete: false,
                elapsed: called.elapsed(),
                stats: Stats::default(),
                error: None,
            };
        }
        // (a deadline beyond any solve when none is asked)
        let deadline = request
            .timeout
            .and_then(|t| called.checked_add(t))
            .unwrap_or_else(|| called + Duration::from_secs(100 * 365 * 86_400));
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        let out = match self.gnu.run(&start, goal, max as usize, deadline) {
            Ok(o) => o,
            Err(e) => return failed(engine_error(e)),
        };
        let mut solutions = Vec::new();
        for a in &out.answers {
            match gnu::parse_grid(a) {
                Some(g) if g.len() == puzzle.size && g.iter().all(|r| r.len() == puzzle.size) => {
                    solutions.push(g)
                }
                _ => {
                    return failed(EngineError::Prolog(format!(
                        "gprolog answered T = {a}, which is not a {0}x{0} grid",
                        puzzle.size
                    )))
                }
            }
        }
        let count = solutions.len() as u64;
        let (complete, timed_out) = match &out.end {
            Some(Ok(end)) if end == "complete" => (true, false),
            Some(Ok(end)) if end == "limit" => (false, false),
            Some(Ok(end)) => {
                return failed(EngineError::Prolog(format!("gprolog: {end}")));
            }
            Some(Err(why)) => {
                return failed(EngineError::Prolog(format!(
                    "gprolog's reply cannot be read: {why}"
                )))
            }
            None if out.ended => {
                let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty());
                return failed(EngineError::Prolog(format!(
                    "gprolog stopped: {}",
                    last.unwrap_or("(it said nothing)").trim()
                )));
            }
            None => (false, true),
        };
        let elapsed = out
            .at
            .saturating_duration_since(out.loaded.unwrap_or(called));
        Report {
            engine: self.kind,
            solutions: if request.count_only {
                Vec::new()
            } else {
                solutions
            },
            count,
            status: Status::of(count, complete, timed_out, false),
            complete,
            elapsed,
            stats: Stats::default(),
            error: None,
        }
    }
}
