//! `kenken/3` and `plain_kenken/3` behind the [`Engine`] interface: in this process
//! ([`PrologEngine`]) or in a killable worker process ([`WorkerEngine`]).
//!
//! Either way a puzzle becomes the spec's goal text once ([`crate::prolog::solve_goal`]), a
//! [`Session`] runs it, and its answers come back as grids through one path
//! ([`Session::solve_goal_each`]). A worker sends each grid as soon as it is found, so that a
//! deadline keeps every solution found before it.

use std::sync::mpsc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{spec_order, Engine, EngineError, EngineKind, Report, Request, Stats, Status};
use crate::error::Context;
use crate::process::{Handler, Reply, Worker};
use crate::prolog::{excerpt, solve_goal, Predicate, Session, DEFAULT_INFERENCE_LIMIT};
use crate::puzzle::{Grid, Puzzle};

/// The stack of the thread an in-process engine runs on: Scryer recurses deeply on big terms.
const STACK: usize = 256 << 20;
/// How long [`Engine::settle`] waits for a worker engine's spare to start.
const SETTLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// The thread an in-process Prolog engine solves in, as errors name it.
const THREAD: &str = "the engine's thread";

fn predicate(kind: EngineKind) -> Result<Predicate, EngineError> {
    match kind {
        EngineKind::Fd => Ok(Predicate::Fd),
        EngineKind::Plain => Ok(Predicate::Plain),
        other => Err(EngineError::Prolog(format!(
            "the {other} engine is not a Scryer Prolog engine"
        ))),
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

/// A solution a worker sends as soon as it is found, with the inferences so far.
#[derive(Serialize, Deserialize)]
struct Found {
    grid: Grid,
    inferences: Option<u64>,
}

/// How a solve ended (its grids came before, one [`Found`] each).
#[derive(Serialize, Deserialize)]
struct SolveEnd {
    complete: bool,
    inference_limit: bool,
    inferences: Option<u64>,
    error: Option<String>,
}

/// Runs one solve in `session`, calling `found` with each solution as it is found.
fn run(session: &mut Session, request: &SolveRequest, found: &mut dyn FnMut(Found)) -> SolveEnd {
    let got = session.solve_goal_each(
        &request.goal,
        request.size,
        request.limit,
        request.inferences,
        &mut |grid, inferences| {
            found(Found {
                grid: grid.clone(),
                inferences,
            })
        },
    );
    match got {
        Ok(s) => SolveEnd {
            complete: s.complete,
            inference_limit: s.limit_reached,
            inferences: s.inferences,
            error: None,
        },
        Err(e) => SolveEnd {
            complete: false,
            inference_limit: false,
            inferences: None,
            error: Some(e.to_string()),
        },
    }
}

/// A report being built from what an engine found.
struct Partial {
    kind: EngineKind,
    start: Instant,
    grids: Vec<Grid>,
    count: u64,
    inferences: Option<u64>,
}

impl Partial {
    fn new(kind: EngineKind) -> Partial {
        Partial {
            kind,
            start: Instant::now(),
            grids: Vec::new(),
            count: 0,
            inferences: None,
        }
    }

    fn found(&mut self, f: Found, request: &Request) {
        self.count += 1;
        self.inferences = f.inferences.or(self.inferences);
        if !request.count_only {
            self.grids.push(f.grid);
        }
    }

    /// The report: `end` says how the solve ended (`None`: stopped by the deadline).
    fn report(self, request: &Request, end: Option<SolveEnd>) -> Report {
        let (complete, inference_limit, timed_out) = match &end {
            Some(e) => (e.complete, e.inference_limit, false),
            None => (false, false, true),
        };
        if let Some(e) = end.as_ref().and_then(|e| e.error.clone()) {
            let mut r = Report::failed(self.kind, EngineError::Prolog(e));
            r.elapsed = self.start.elapsed();
            return r;
        }
        let inferences = end.and_then(|e| e.inferences).or(self.inferences);
        let mut report = Report {
            engine: self.kind,
            solutions: self.grids,
            count: self.count,
            status: Status::of(self.count, complete, timed_out, inference_limit),
            complete,
            elapsed: self.start.elapsed(),
            stats: Stats {
                inferences,
                ..Stats::default()
            },
            error: None,
        };
        spec_order(&mut report, request);
        report
    }
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

/// A solve for the engine's own thread, and where its report goes.
type Job = (SolveRequest, Request, mpsc::Sender<Report>);

/// `kenken/3` or `plain_kenken/3` in an embedded Scryer Prolog, in this process, on a thread of
/// its own (so that the engine is `Send`, and has a roomy stack).
///
/// Nothing can stop Scryer by the clock in this process, so a request with a timeout is
/// refused ([`EngineError::NeedsWorker`]): bound the work with [`Request::with_inferences`], or
/// use a [`WorkerEngine`].
pub struct PrologEngine {
    kind: EngineKind,
    jobs: mpsc::Sender<Job>,
}

impl PrologEngine {
    /// A fresh session with `kenken.pl` consulted (about 0.4 s), solving with `kind` (`Fd` or
    /// `Plain`).
    pub fn new(kind: EngineKind) -> Result<PrologEngine, EngineError> {
        predicate(kind)?;
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel();
        std::thread::Builder::new()
            .name(format!("kenken-{}", kind.name()))
            .stack_size(STACK)
            .spawn(move || {
                let mut session = Session::for_solving();
                let _ = ready_tx.send(());
                for (solve, request, reply) in rx {
                    let mut partial = Partial::new(kind);
                    let end = run(&mut session, &solve, &mut |f| partial.found(f, &request));
                    let _ = reply.send(partial.report(&request, Some(end)));
                }
            })
            .context("starting the engine's thread")?;
        ready
            .recv()
            .map_err(|_| EngineError::ThreadStopped(THREAD))?;
        Ok(PrologEngine { kind, jobs })
    }
}

impl Engine for PrologEngine {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        if request.timeout.is_some() {
            return Report::failed(self.kind, EngineError::NeedsWorker(self.kind));
        }
        let solve = match solve_request(self.kind, puzzle, request) {
            Ok(r) => r,
            Err(e) => return Report::failed(self.kind, e),
        };
        let (tx, rx) = mpsc::channel();
        if self.jobs.send((solve, *request, tx)).is_err() {
            return Report::failed(self.kind, EngineError::ThreadStopped(THREAD));
        }
        rx.recv()
            .unwrap_or_else(|_| Report::failed(self.kind, EngineError::ThreadStopped(THREAD)))
    }
}

/// `kenken/3` or `plain_kenken/3` in a worker process ([`crate::worker`]), started when the
/// engine is made. A request's timeout bounds the whole solve, wall clock, from the call to
/// the report (a worker started again after a timeout counts): at the deadline the child is
/// killed, and the report holds every solution it found before, in order.
///
/// The engine keeps a warm spare: a second worker, started once the first is ready, which
/// takes over at once when a deadline kills the running one (a new spare then starts in the
/// background). So the solve after a timeout does not wait for a start (about 0.3 to 0.6 s);
/// the cost is a second process. [`WorkerEngine::spare`] turns it off.
pub struct WorkerEngine {
    kind: EngineKind,
    worker: Worker,
}

impl WorkerEngine {
    /// An engine whose solves run in a child process, started now (about 0.5 s). The program
    /// must call [`crate::worker::init`] first thing in `main`.
    pub fn new(kind: EngineKind) -> Result<WorkerEngine, EngineError> {
        predicate(kind)?;
        let mut worker = Worker::new(&role(kind)).with_spare();
        worker.start()?;
        Ok(WorkerEngine { kind, worker })
    }

    /// This engine, keeping a warm spare worker (`true`, the default) or not: without one, the
    /// solve after a timeout waits for a fresh worker's start.
    pub fn spare(mut self, keep: bool) -> WorkerEngine {
        self.worker.keep_spare(keep);
        self
    }

    /// The process id of the running worker.
    pub fn pid(&self) -> Option<u32> {
        self.worker.pid()
    }

    /// Sends the solve and reads what comes back until its end or the deadline.
    fn exchange(
        &mut self,
        line: &str,
        request: &Request,
        partial: &mut Partial,
    ) -> Result<Option<SolveEnd>, EngineError> {
        let deadline = request.timeout.map(|t| partial.start + t);
        if !self.worker.send(line, deadline)? {
            let _ = self.worker.prestart();
            return Ok(None);
        }
        loop {
            match self.worker.next(deadline)? {
                Reply::Part(p) => {
                    let found: Found = serde_json::from_str(&p)
                        .with_context(|| format!("reading the worker's answer {}", excerpt(&p)))?;
                    partial.found(found, request);
                }
                Reply::Done(d) => {
                    return serde_json::from_str(&d)
                        .map(Some)
                        .with_context(|| format!("reading the worker's reply {}", excerpt(&d)))
                        .map_err(EngineError::from)
                }
                Reply::Timeout => {
                    // a fresh worker starts at once, while the caller goes on
                    let _ = self.worker.prestart();
                    return Ok(None);
                }
            }
        }
    }
}

impl Engine for WorkerEngine {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn settle(&mut self) {
        self.worker.spare_ready(Instant::now() + SETTLE_TIMEOUT);
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        let mut partial = Partial::new(self.kind);
        let line = match solve_request(self.kind, puzzle, request)
            .and_then(|r| Ok(serde_json::to_string(&r).context("encoding the request")?))
        {
            Ok(l) => l,
            Err(e) => return Report::failed(self.kind, e),
        };
        match self.exchange(&line, request, &mut partial) {
            Ok(end) => partial.report(request, end),
            Err(e) => {
                let mut r = Report::failed(self.kind, e);
                r.elapsed = partial.start.elapsed();
                r
            }
        }
    }
}

/// The request handler of a solve worker's role (`solve-fd`, `solve-plain`), with its session
/// built; `None` for another role. Each solution is sent as a part as soon as it is found.
pub(crate) fn solve_worker(role: &str) -> Option<Handler> {
    let kind = EngineKind::ALL
        .into_iter()
        .find(|&k| self::role(k) == role)?;
    predicate(kind).ok()?;
    let mut session = Session::for_solving();
    Some(Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let end = match serde_json::from_str::<SolveRequest>(line) {
            Ok(r) => run(&mut session, &r, &mut |f| {
                if let Ok(l) = serde_json::to_string(&f) {
                    part(&l);
                }
            }),
            Err(e) => SolveEnd {
                complete: false,
                inference_limit: false,
                inferences: None,
                error: Some(format!("bad request: {e}")),
            },
        };
        serde_json::to_string(&end).unwrap_or_else(|_| {
            r#"{"complete":false,"inference_limit":false,"inferences":null,"error":"unwritable reply"}"#.into()
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
