//! `kenken/3` and `plain_kenken/3` behind the [`Engine`] interface: in this thread
//! ([`PrologEngine`]) or in a killable worker process ([`WorkerEngine`]).
//!
//! Either way a puzzle becomes the spec's goal text once ([`crate::prolog::solve_goal`]), a
//! [`Session`] runs it, and its answers come back as grids through one path
//! ([`Session::solve_goal`]).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{spec_order, Engine, EngineError, EngineKind, Report, Request, Stats, Status};
use crate::process::{Handler, Worker};
use crate::prolog::{solve_goal, Predicate, Session, DEFAULT_INFERENCE_LIMIT};
use crate::puzzle::{Grid, Puzzle};

fn predicate(kind: EngineKind) -> Result<Predicate, EngineError> {
    match kind {
        EngineKind::Fd => Ok(Predicate::Fd),
        EngineKind::Plain => Ok(Predicate::Plain),
        EngineKind::Native => Err(EngineError::Prolog(
            "the native engine is not a Prolog engine".into(),
        )),
    }
}

/// The worker role that serves solves for `kind`.
fn role(kind: EngineKind) -> String {
    format!("solve-{}", kind.name())
}

/// What a worker is asked: the goal text, made once by the parent.
#[derive(Serialize, Deserialize)]
struct SolveRequest {
    goal: String,
    size: usize,
    limit: Option<usize>,
    inferences: u64,
}

/// What a worker answers.
#[derive(Serialize, Deserialize)]
struct SolveReply {
    grids: Vec<Grid>,
    complete: bool,
    inference_limit: bool,
    inferences: Option<u64>,
    elapsed_ms: f64,
    error: Option<String>,
}

/// Runs one solve in `session` and times it.
fn run(session: &mut Session, request: &SolveRequest) -> SolveReply {
    let start = Instant::now();
    let got = session.solve_goal(
        &request.goal,
        request.size,
        request.limit,
        request.inferences,
    );
    let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    match got {
        Ok(s) => SolveReply {
            grids: s.grids,
            complete: s.complete,
            inference_limit: s.limit_reached,
            inferences: s.inferences,
            elapsed_ms,
            error: None,
        },
        Err(e) => SolveReply {
            grids: Vec::new(),
            complete: false,
            inference_limit: false,
            inferences: None,
            elapsed_ms,
            error: Some(e.to_string()),
        },
    }
}

/// Builds the report of a reply.
fn report(kind: EngineKind, request: &Request, reply: SolveReply) -> Report {
    if let Some(e) = reply.error {
        return Report::failed(kind, EngineError::Prolog(e));
    }
    let count = reply.grids.len() as u64;
    let mut report = Report {
        engine: kind,
        solutions: if request.count_only {
            Vec::new()
        } else {
            reply.grids
        },
        count,
        status: Status::of(count, reply.complete, false, reply.inference_limit),
        complete: reply.complete,
        elapsed: Duration::from_secs_f64(reply.elapsed_ms.max(0.0) / 1000.0),
        stats: Stats {
            inferences: reply.inferences,
            ..Stats::default()
        },
        error: None,
    };
    spec_order(&mut report, request);
    report
}

/// The request as a worker (or the session) takes it; fails when the puzzle is invalid.
fn solve_request(
    kind: EngineKind,
    puzzle: &Puzzle,
    request: &Request,
) -> Result<SolveRequest, EngineError> {
    puzzle.check()?;
    Ok(SolveRequest {
        goal: solve_goal(puzzle, predicate(kind)?),
        size: puzzle.size,
        limit: request.limit,
        inferences: request.inferences.unwrap_or(DEFAULT_INFERENCE_LIMIT),
    })
}

/// `kenken/3` or `plain_kenken/3` in an embedded Scryer Prolog, in this thread.
///
/// Scryer cannot be interrupted, so the request's timeout is not enforced here: bound the work
/// with [`Request::with_inferences`], or use a [`WorkerEngine`].
pub struct PrologEngine {
    kind: EngineKind,
    session: Session,
}

impl PrologEngine {
    /// A fresh session with `kenken.pl` consulted (about 0.3 s), solving with `kind` (`Fd` or
    /// `Plain`).
    pub fn new(kind: EngineKind) -> Result<PrologEngine, EngineError> {
        predicate(kind)?;
        Ok(PrologEngine {
            kind,
            session: Session::new(),
        })
    }
}

impl Engine for PrologEngine {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        match solve_request(self.kind, puzzle, request) {
            Ok(r) => report(self.kind, request, run(&mut self.session, &r)),
            Err(e) => Report::failed(self.kind, e),
        }
    }
}

/// `kenken/3` or `plain_kenken/3` in a worker process ([`crate::worker`]): the child is killed
/// when the request's timeout passes, and a fresh one serves the next request. The engine's
/// start-up (about 0.3 s, once per child) is not part of a report's time.
pub struct WorkerEngine {
    kind: EngineKind,
    worker: Worker,
}

impl WorkerEngine {
    /// An engine whose solves run in a child process (started on the first solve).
    pub fn new(kind: EngineKind) -> Result<WorkerEngine, EngineError> {
        predicate(kind)?;
        Ok(WorkerEngine {
            kind,
            worker: Worker::new(&role(kind)),
        })
    }
}

impl Engine for WorkerEngine {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        let kind = self.kind;
        let line = match solve_request(kind, puzzle, request)
            .and_then(|r| serde_json::to_string(&r).map_err(|e| EngineError::Worker(e.to_string())))
        {
            Ok(l) => l,
            Err(e) => return Report::failed(kind, e),
        };
        match self.worker.request(&line, request.timeout) {
            Err(e) => Report::failed(kind, EngineError::Worker(e.to_string())),
            Ok(None) => Report {
                engine: kind,
                solutions: Vec::new(),
                count: 0,
                status: Status::Timeout,
                complete: false,
                elapsed: request.timeout.unwrap_or_default(),
                stats: Stats::default(),
                error: None,
            },
            Ok(Some(reply)) => match serde_json::from_str(&reply) {
                Ok(r) => report(kind, request, r),
                Err(e) => Report::failed(
                    kind,
                    EngineError::Worker(format!("bad reply {reply:?}: {e}")),
                ),
            },
        }
    }
}

/// The request handler of a solve worker's role (`solve-fd`, `solve-plain`), with its session
/// built; `None` for another role.
pub(crate) fn solve_worker(role: &str) -> Option<Handler> {
    let kind = EngineKind::ALL
        .into_iter()
        .find(|&k| self::role(k) == role)?;
    predicate(kind).ok()?;
    let mut session = Session::new();
    Some(Box::new(move |line: &str| {
        let reply = match serde_json::from_str::<SolveRequest>(line) {
            Ok(r) => run(&mut session, &r),
            Err(e) => SolveReply {
                grids: Vec::new(),
                complete: false,
                inference_limit: false,
                inferences: None,
                elapsed_ms: 0.0,
                error: Some(format!("bad request: {e}")),
            },
        };
        serde_json::to_string(&reply).unwrap_or_else(|_| {
            r#"{"grids":[],"complete":false,"inference_limit":false,"inferences":null,"elapsed_ms":0,"error":"unwritable reply"}"#.into()
        })
    }))
}
