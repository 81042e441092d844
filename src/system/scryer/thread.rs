//! [`ScryerThread`]: the embedded Scryer Prolog in this process, on a thread of its own.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{checked_cpu, run_homework, Found, Reply, Request, NAME};
use crate::error::Context;
use crate::process::WorkerError;
use crate::prolog::Session;
use crate::system::{Clock, Crash, End, Goal, Loaded, Outcome, Program, PrologSystem, SystemError};

/// The stack of the thread an in-process system runs on: Scryer recurses deeply on big terms.
const STACK: usize = 256 << 20;
/// The thread, as errors name it.
const THREAD: &str = "the Scryer thread";

/// What the thread gives back: an answer, or the goal's end.
enum Event {
    Answer(Found),
    End(Reply),
}

type Job = (Request, mpsc::Sender<Event>);

/// The embedded Scryer Prolog in this process, on a thread of its own (so that it is `Send`,
/// and has a roomy stack), with the homework loaded.
///
/// Nothing can stop Scryer by the clock in this process, so a goal with a deadline is refused
/// ([`SystemError::NeedsWorker`]): bound it by inferences, or use a
/// [`ScryerWorker`](super::ScryerWorker). A judged file is refused too
/// ([`SystemError::Unsupported`]): it runs only in a worker, a fresh one for each goal.
#[derive(Debug)]
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
                    let Request::Solve {
                        goal,
                        size,
                        limit,
                        inferences,
                    } = request
                    else {
                        continue;
                    };
                    let end =
                        run_homework(&mut session, &goal, size, limit, inferences, &mut |f| {
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
        match program {
            Program::Homework => Ok(Loaded::default()),
            Program::File { path, .. } => Err(SystemError::Unsupported(format!(
                "{}: a file we did not write runs in a Scryer worker, not in this process",
                path.display()
            ))),
        }
    }

    fn run(
        &mut self,
        goal: &Goal,
        answer: &mut dyn FnMut(super::Answer),
    ) -> Result<Outcome, SystemError> {
        if goal.deadline.is_some() {
            return Err(SystemError::NeedsWorker(NAME));
        }
        let clock = Clock::start();
        let (tx, events) = mpsc::channel();
        self.jobs
            .send((Request::solve(goal), tx))
            .map_err(|_| stopped())?;
        let mut last = None;
        for event in events {
            match event {
                Event::Answer(f) => {
                    last = f.inferences.or(last);
                    answer(f.answer());
                }
                Event::End(reply) => {
                    let (end, inferences, cpu_us) = match reply {
                        Reply::Ended {
                            end,
                            inferences,
                            cpu_us,
                        } => (end.end(), inferences, cpu_us),
                        other => (
                            End::Crashed(Crash {
                                why: format!("{THREAD} answered out of turn: {other:?}"),
                                status: None,
                                stderr: String::new(),
                            }),
                            None,
                            None,
                        ),
                    };
                    let elapsed = clock.until(Instant::now());
                    return Ok(Outcome {
                        end,
                        elapsed,
                        inferences: inferences.or(last),
                        cpu: checked_cpu(cpu_us, elapsed),
                    });
                }
            }
        }
        Err(stopped())
    }
}
