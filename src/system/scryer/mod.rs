//! The embedded Scryer Prolog behind the seam: in this process on a thread of its own
//! ([`ScryerThread`], the homework only), or in a killable worker process ([`ScryerWorker`],
//! the homework or a judged file, confined when asked).
//!
//! By concern:
//! - `mod.rs` (here): the one worker protocol ([`Request`], [`Found`], [`Reply`]) and the
//!   worker's side of it ([`scryer_worker`]), which serves either program;
//! - `thread.rs`: [`ScryerThread`];
//! - `worker.rs`: [`ScryerWorker`], the parent's side of the worker;
//! - `judged.rs`: a judged file's engine (`prolog/judge.pl`, the GNU layer `prolog/gnu/`), its
//!   load and its goals;
//! - `no_fd.rs`: the stub constraint libraries of an engine without FD solver
//!   (`prolog/judge_no_fd.pl` for `library(clpz)`, `library(clpb)`, `library(simplex)`).
//!
//! A worker builds its engine before it says it is ready (so that a load's time is the
//! file's): the homework's [`Session`], or, when [`PROGRAM_VAR`] names one, a judged file's
//! engine for a dialect, with or without an FD solver. It is then sent a [`Request::Load`] (a
//! judged file's engine only) and [`Request::Solve`]s; each answer comes back as a part
//! ([`Found`]) as soon as it is found, and the request's end as its reply ([`Reply`]).

mod judged;
mod no_fd;
mod thread;
mod worker;

use serde::{Deserialize, Serialize};

use super::{cut, Answer, Bound, Crash, End, Goal};
use crate::dialect::Dialect;
use crate::process::Handler;
use crate::prolog::{PrologError, Session, DEFAULT_INFERENCE_LIMIT};
use crate::puzzle::Grid;

pub(crate) use no_fd::OPEN_ROUTE;
pub use thread::ScryerThread;
pub use worker::ScryerWorker;

/// The system's name.
const NAME: &str = "scryer";
/// The worker role of the embedded Scryer Prolog.
const ROLE: &str = "scryer";
/// The environment variable that tells a worker which judged file's engine to build
/// ([`FileEngine`], JSON); without it, the worker has the homework.
const PROGRAM_VAR: &str = "KENKEN_SCRYER_FILE_ENGINE";

/// The engine of a worker for judged files: the dialect they are written in, and whether it
/// has an FD solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct FileEngine {
    dialect: Dialect,
    fd: bool,
}

/// What a worker is asked.
#[derive(Debug, Serialize, Deserialize)]
enum Request {
    /// Load this judged file (in the engine built for its dialect at the start).
    Load { file: std::path::PathBuf },
    /// Run a goal binding `T` (text that ends with its `.`), sending each answer as a part.
    Solve {
        goal: String,
        size: usize,
        /// Stop after this many answers.
        limit: Option<usize>,
        /// Stop after this many inferences (the homework's goals only).
        inferences: Option<u64>,
    },
}

impl Request {
    /// The request for `goal`.
    fn solve(goal: &Goal) -> Request {
        Request::Solve {
            goal: format!("{}.", goal.bare()),
            size: goal.size,
            limit: goal.max_answers,
            inferences: goal.inferences,
        }
    }
}

/// An answer, sent as soon as it is found: `T` as a grid, or its text when it is not one.
#[derive(Debug, Serialize, Deserialize)]
struct Found {
    answer: Result<Grid, String>,
    inferences: Option<u64>,
}

impl Found {
    /// The seam's answer.
    fn answer(self) -> Answer {
        Answer {
            value: self.answer,
            inferences: self.inferences,
        }
    }
}

/// How a goal ended, as a worker says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum WireEnd {
    Complete,
    /// The answers' bound.
    Answers,
    /// The inferences' bound.
    Inferences,
    Exception(String),
    /// A built-in the GNU layer lacks (`Name/Arity`).
    Unsupported(String),
    Halted(i64),
    /// The engine failed (an error of ours, or a panic), saying this.
    Failed(String),
}

impl WireEnd {
    /// The seam's end.
    fn end(self) -> End {
        match self {
            WireEnd::Complete => End::Complete,
            WireEnd::Answers => End::Stopped(Bound::Answers),
            WireEnd::Inferences => End::Stopped(Bound::Inferences),
            WireEnd::Exception(ball) => End::Exception(cut(&ball)),
            WireEnd::Unsupported(pi) => End::Unsupported(cut(&pi)),
            WireEnd::Halted(code) => End::Halted(code),
            // (what it said is kept as its standard error too: an allocation that failed
            // says that a memory limit was reached)
            WireEnd::Failed(why) => End::Crashed(Crash {
                why: cut(&why),
                status: None,
                stderr: cut(&why),
            }),
        }
    }
}

/// A worker's reply to a request.
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    /// The file is loaded; what the loader and the file wrote meanwhile.
    Loaded { warnings: String },
    /// The file has syntax errors: (line, message) each.
    SyntaxErrors(Vec<(u64, String)>),
    /// The file does not load: why.
    LoadFailed(String),
    /// A goal ended (its answers came before, one part each).
    Ended {
        end: WireEnd,
        inferences: Option<u64>,
        /// The CPU time of the engine's thread on the goal, in microseconds.
        #[serde(default)]
        cpu_us: Option<u64>,
    },
    /// The request could not be served.
    Failed(String),
}

/// Runs one goal against the homework in `session`, calling `found` with each answer as it
/// is found.
fn run_homework(
    session: &mut Session,
    goal: &str,
    size: usize,
    limit: Option<usize>,
    inferences: Option<u64>,
    found: &mut dyn FnMut(Found),
) -> Reply {
    let cpu = thread_cpu();
    let got = session.solve_goal_each(
        goal,
        size,
        limit,
        inferences.unwrap_or(DEFAULT_INFERENCE_LIMIT),
        &mut |grid, inferences| {
            found(Found {
                answer: Ok(grid.clone()),
                inferences,
            })
        },
    );
    let (end, inferences) = match got {
        Ok(s) if s.limit_reached => (WireEnd::Inferences, s.inferences),
        Ok(s) if s.complete => (WireEnd::Complete, s.inferences),
        Ok(s) => (WireEnd::Answers, s.inferences),
        Err(PrologError::Exception(ball)) => (WireEnd::Exception(ball), None),
        Err(e) => (WireEnd::Failed(e.to_string()), None),
    };
    let cpu_us = cpu
        .zip(thread_cpu())
        .and_then(|(before, after)| u64::try_from(after.saturating_sub(before).as_micros()).ok());
    Reply::Ended {
        end,
        inferences,
        cpu_us,
    }
}

/// The CPU time this thread has used (`None` where it cannot be read).
fn thread_cpu() -> Option<std::time::Duration> {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_THREAD).ok()?;
    let micros = |t: nix::sys::time::TimeVal| -> Option<u64> {
        Some(u64::try_from(t.tv_sec()).ok()? * 1_000_000 + u64::try_from(t.tv_usec()).ok()?)
    };
    Some(std::time::Duration::from_micros(
        micros(usage.user_time())? + micros(usage.system_time())?,
    ))
}

/// The CPU time a reply says, if the parent's clock allows it (a thread's CPU time within a
/// span is at most the span).
fn checked_cpu(cpu_us: Option<u64>, elapsed: std::time::Duration) -> Option<std::time::Duration> {
    let cpu = std::time::Duration::from_micros(cpu_us?);
    (cpu <= elapsed).then_some(cpu)
}

/// The engine a worker serves with.
enum Engine {
    Homework(Box<Session>),
    File(Box<judged::Judged>),
}

/// The request handler of the Scryer worker role, with its engine built (the homework's, or
/// a judged file's engine as [`PROGRAM_VAR`] says); `None` for another role.
pub(crate) fn scryer_worker(role: &str) -> Option<Handler> {
    if role != ROLE {
        return None;
    }
    let program = std::env::var(PROGRAM_VAR).ok();
    // (read once: the judged file, which runs in this process, reads no setting of the judge)
    std::env::remove_var(PROGRAM_VAR);
    let mut engine = match program.map(|p| serde_json::from_str::<FileEngine>(&p)) {
        None => Ok(Engine::Homework(Box::new(Session::for_solving()))),
        Some(Ok(e)) => Ok(Engine::File(Box::new(judged::engine(e.dialect, e.fd)))),
        Some(Err(e)) => Err(format!("bad {PROGRAM_VAR}: {e}")),
    };
    Some(Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let mut found = |f: Found| {
            if let Ok(l) = serde_json::to_string(&f) {
                part(&l);
            }
        };
        let reply = match (serde_json::from_str::<Request>(line), &mut engine) {
            (Err(e), _) => Reply::Failed(format!("bad request: {e}")),
            (_, Err(why)) => Reply::Failed(why.clone()),
            (Ok(Request::Load { file }), Ok(Engine::File(j))) => j.load(&file),
            (Ok(Request::Load { .. }), Ok(Engine::Homework(_))) => {
                Reply::Failed("this worker has the homework, and loads no file".into())
            }
            (
                Ok(Request::Solve {
                    goal,
                    size,
                    limit,
                    inferences,
                }),
                Ok(Engine::Homework(s)),
            ) => run_homework(s, &goal, size, limit, inferences, &mut found),
            (
                Ok(Request::Solve {
                    goal, size, limit, ..
                }),
                Ok(Engine::File(j)),
            ) => j.solve(&goal, size, limit, &mut found),
        };
        serde_json::to_string(&reply).unwrap_or_else(|_| r#"{"Failed":"unwritable reply"}"#.into())
    }))
}
