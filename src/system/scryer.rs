//! The embedded Scryer Prolog behind the seam: in this process on a thread of its own
//! ([`ScryerThread`]), or in a killable worker process ([`ScryerWorker`]).
//!
//! Either way a [`Session`] with the homework (`prolog/kenken.pl`) runs the goal, and its
//! answers become grids through one path ([`Session::solve_goal_each`]). A worker sends each
//! answer as soon as it is found, so that a deadline keeps every answer found before it.
//!
//! A judged file ([`Program::File`]) is loaded by the judge's own Scryer worker today
//! (`judge/scryer.rs`, with `prolog/judge.pl`): both refuse it here until it moves onto the
//! seam.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{
    Answer, Bound, Clock, Crash, End, Goal, Loaded, Outcome, Program, PrologSystem, SystemError,
};
use crate::error::Context;
use crate::process::{Handler, Reply, Worker, WorkerError};
use crate::prolog::{excerpt, PrologError, Session, DEFAULT_INFERENCE_LIMIT};
use crate::puzzle::Grid;

/// The stack of the thread an in-process system runs on: Scryer recurses deeply on big terms.
const STACK: usize = 256 << 20;
/// How long [`PrologSystem::settle`] waits for a worker's spare to start.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The thread an in-process system solves in, as errors name it.
const THREAD: &str = "the Scryer thread";
/// The system's name.
const NAME: &str = "scryer";
/// The worker role that runs goals against the homework.
const ROLE: &str = "solve";

/// What a worker is asked: the goal text, made once by the parent.
#[derive(Serialize, Deserialize)]
struct SolveRequest {
    goal: String,
    size: usize,
    limit: Option<usize>,
    inferences: u64,
}

/// An answer a worker sends as soon as it is found, with the inferences so far.
#[derive(Serialize, Deserialize)]
struct Found {
    grid: Grid,
    inferences: Option<u64>,
}

/// How a goal ended (its answers came before, one [`Found`] each).
#[derive(Serialize, Deserialize)]
struct SolveEnd {
    complete: bool,
    inference_limit: bool,
    inferences: Option<u64>,
    error: Option<String>,
    /// The goal raised this exception (`error` holds the whole message).
    #[serde(default)]
    exception: Option<String>,
}

impl SolveEnd {
    fn failed(why: String) -> SolveEnd {
        SolveEnd {
            complete: false,
            inference_limit: false,
            inferences: None,
            error: Some(why),
            exception: None,
        }
    }

    /// The seam's end.
    fn end(&self) -> End {
        match (&self.exception, &self.error) {
            (Some(ball), _) => End::Exception(ball.clone()),
            (None, Some(why)) => End::Crashed(Crash {
                why: why.clone(),
                status: None,
                stderr: String::new(),
            }),
            (None, None) if self.inference_limit => End::Stopped(Bound::Inferences),
            (None, None) if self.complete => End::Complete,
            (None, None) => End::Stopped(Bound::Answers),
        }
    }
}

/// Runs one goal in `session`, calling `found` with each answer as it is found.
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
            exception: None,
        },
        Err(PrologError::Exception(ball)) => SolveEnd {
            exception: Some(ball.clone()),
            ..SolveEnd::failed(PrologError::Exception(ball).to_string())
        },
        Err(e) => SolveEnd::failed(e.to_string()),
    }
}

/// The request for `goal`.
fn solve_request(goal: &Goal) -> SolveRequest {
    SolveRequest {
        goal: format!("{}.", goal.bare()),
        size: goal.size,
        limit: goal.max_answers,
        inferences: goal.inferences.unwrap_or(DEFAULT_INFERENCE_LIMIT),
    }
}

/// The seam's answer for a worker's.
fn answer(f: Found) -> Answer {
    Answer {
        value: Ok(f.grid),
        inferences: f.inferences,
    }
}

/// The homework is the only program of a Scryer system here.
fn only_homework(program: &Program) -> Result<Loaded, SystemError> {
    match program {
        Program::Homework => Ok(Loaded::default()),
        Program::File { path, .. } => Err(SystemError::Unsupported(format!(
            "{}: a file is judged by the judge's own Scryer worker, not loaded here",
            path.display()
        ))),
    }
}

/// What the thread is told: a goal, and where its answers and end go.
enum Event {
    Answer(Found),
    End(SolveEnd),
}

type Job = (SolveRequest, mpsc::Sender<Event>);

/// The embedded Scryer Prolog in this process, on a thread of its own (so that it is `Send`,
/// and has a roomy stack), with the homework loaded.
///
/// Nothing can stop Scryer by the clock in this process, so a goal with a deadline is refused
/// ([`SystemError::NeedsWorker`]): bound it by inferences, or use a [`ScryerWorker`].
pub struct ScryerThread {
    jobs: mpsc::Sender<Job>,
}

impl ScryerThread {
    /// A fresh session with `kenken.pl` consulted (about 0.4 s), on a thread of its own.
    pub fn new() -> Result<ScryerThread, SystemError> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel();
        std::thread::Builder::new()
            .name("kenken-scryer".into())
            .stack_size(STACK)
            .spawn(move || {
                let mut session = Session::for_solving();
                let _ = ready_tx.send(());
                for (request, events) in rx {
                    let end = run(&mut session, &request, &mut |f| {
                        let _ = events.send(Event::Answer(f));
                    });
                    let _ = events.send(Event::End(end));
                }
            })
            .context("starting the Scryer thread")
            .map_err(WorkerError::from)?;
        ready.recv().map_err(|_| stopped())?;
        Ok(ScryerThread { jobs })
    }
}

fn stopped() -> SystemError {
    SystemError::Process(WorkerError::Protocol(format!("{THREAD} stopped")))
}

impl PrologSystem for ScryerThread {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, _timeout: Duration) -> Result<Loaded, SystemError> {
        only_homework(program)
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        if goal.deadline.is_some() {
            return Err(SystemError::NeedsWorker(NAME));
        }
        let clock = Clock::start();
        let (tx, events) = mpsc::channel();
        self.jobs
            .send((solve_request(goal), tx))
            .map_err(|_| stopped())?;
        let mut last = None;
        for event in events {
            match event {
                Event::Answer(f) => {
                    last = f.inferences.or(last);
                    answer(self::answer(f));
                }
                Event::End(end) => {
                    return Ok(Outcome {
                        end: end.end(),
                        elapsed: clock.until(Instant::now()),
                        inferences: end.inferences.or(last),
                    })
                }
            }
        }
        Err(stopped())
    }
}

/// The embedded Scryer Prolog in a worker process ([`crate::worker`], role `solve`), started
/// when the homework is loaded. A goal's deadline bounds the whole run, wall clock, from the
/// call to its end (a worker started again after a timeout counts): at the deadline the child
/// is killed, and every answer it found before has been given.
///
/// It keeps a warm spare: a second worker, started once the first is ready, which takes over
/// at once when a deadline kills the running one (a new spare then starts in the
/// background). So the goal after a timeout does not wait for a start (about 0.3 to 0.6 s);
/// the cost is a second process. [`ScryerWorker::keep_spare`] turns it off.
pub struct ScryerWorker {
    worker: Worker,
    started: bool,
}

impl ScryerWorker {
    /// A system whose goals run in a child process, started when the homework is loaded. The
    /// program must call [`crate::worker::init`] first thing in `main`.
    pub fn new() -> ScryerWorker {
        ScryerWorker {
            worker: Worker::new(ROLE).with_spare(),
            started: false,
        }
    }

    /// Keeps a warm spare worker (`true`, the default) or not: without one, the goal after a
    /// timeout waits for a fresh worker's start.
    pub fn keep_spare(&mut self, keep: bool) {
        self.worker.keep_spare(keep);
    }

    /// The process id of the running worker.
    pub fn pid(&self) -> Option<u32> {
        self.worker.pid()
    }

    /// Sends the goal and reads what comes back until its end or the deadline.
    fn exchange(
        &mut self,
        line: &str,
        deadline: Option<Instant>,
        answer: &mut dyn FnMut(Answer),
        last: &mut Option<u64>,
    ) -> Result<Option<SolveEnd>, WorkerError> {
        if !self.worker.send(line, deadline)? {
            let _ = self.worker.prestart();
            return Ok(None);
        }
        loop {
            match self.worker.next(deadline)? {
                Reply::Part(p) => {
                    let found: Found = serde_json::from_str(&p)
                        .with_context(|| format!("reading the worker's answer {}", excerpt(&p)))?;
                    *last = found.inferences.or(*last);
                    answer(self::answer(found));
                }
                Reply::Done(d) => {
                    return Ok(Some(serde_json::from_str(&d).with_context(|| {
                        format!("reading the worker's reply {}", excerpt(&d))
                    })?))
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

impl Default for ScryerWorker {
    fn default() -> ScryerWorker {
        ScryerWorker::new()
    }
}

impl PrologSystem for ScryerWorker {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, _timeout: Duration) -> Result<Loaded, SystemError> {
        let loaded = only_homework(program)?;
        if !self.started {
            self.worker.start()?;
            self.started = true;
        }
        Ok(loaded)
    }

    fn settle(&mut self) {
        self.worker.spare_ready(Instant::now() + SETTLE_TIMEOUT);
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        if !self.started {
            return Err(SystemError::NotLoaded(NAME));
        }
        let clock = Clock::start();
        let line = serde_json::to_string(&solve_request(goal))
            .context("encoding the request")
            .map_err(WorkerError::from)?;
        let mut last = None;
        let end = match self.exchange(&line, goal.deadline, answer, &mut last) {
            Ok(Some(end)) => end,
            Ok(None) => {
                return Ok(Outcome {
                    end: End::Stopped(Bound::Time),
                    elapsed: clock.until(Instant::now()),
                    inferences: last,
                })
            }
            Err(WorkerError::BadFrame(why)) => {
                return Ok(Outcome {
                    end: End::Untrusted(why),
                    elapsed: clock.until(Instant::now()),
                    inferences: None,
                })
            }
            Err(e) => return Err(e.into()),
        };
        Ok(Outcome {
            end: end.end(),
            elapsed: clock.until(Instant::now()),
            inferences: end.inferences.or(last),
        })
    }
}

/// The request handler of the Scryer solve worker's role (`solve`), with its session built;
/// `None` for another role. Each answer is sent as a part as soon as it is found.
pub(crate) fn solve_worker(role: &str) -> Option<Handler> {
    if role != ROLE {
        return None;
    }
    let mut session = Session::for_solving();
    Some(Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let end = match serde_json::from_str::<SolveRequest>(line) {
            Ok(r) => run(&mut session, &r, &mut |f| {
                if let Ok(l) = serde_json::to_string(&f) {
                    part(&l);
                }
            }),
            Err(e) => SolveEnd::failed(format!("bad request: {e}")),
        };
        serde_json::to_string(&end).unwrap_or_else(|_| {
            r#"{"complete":false,"inference_limit":false,"inferences":null,"error":"unwritable reply"}"#.into()
        })
    }))
}
