//! [`ScryerWorker`]: the embedded Scryer Prolog in a worker process, for the homework or a
//! judged file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{checked_cpu, FileEngine, Found, Reply, Request, NAME, PROGRAM_VAR, ROLE};
use crate::error::Context;
use crate::process::{Confinement, Reply as Frame, Worker, WorkerError};
use crate::prolog::excerpt;
use crate::system::{
    cut, Answer, Bound, ChildSetup, Clock, Crash, End, Goal, Loaded, Outcome, Program,
    PrologSystem, Reach, SystemError,
};

/// How long [`PrologSystem::settle`] waits for a worker's spare to start.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest frame read from a worker that runs a judged file (an answer, each bad one cut
/// short, or a reply); past it the worker is killed.
const FILE_FRAME_CAP: usize = 4 << 20;

/// The embedded Scryer Prolog in a worker process ([`crate::worker`]). A goal's deadline is
/// kept by killing the worker.
///
/// - The homework ([`Program::Homework`]) is loaded once, in a worker that serves goal after
///   goal; its deadline bounds the whole run, wall clock, from the call to its end (a worker
///   started again after a timeout counts).
/// - A judged file ([`Program::File`]) is loaded in a fresh worker for every goal, so that
///   nothing a goal does (a fact asserted, a global variable, a flag, a file in its scratch)
///   reaches another. Its engine has `prolog/judge.pl` and, for the GNU dialect, the GNU
///   Prolog layer `prolog/gnu/`, not our `kenken.pl`; without `fd`, no FD solver (a stub
///   library(clpz) whose every constraint throws). [`PrologSystem::load`] loads it once to see
///   that it loads (syntax errors by line, its warnings), in a worker of its own. A goal's
///   deadline is a span from the call, moved on by the start of the goal's fresh worker: the
///   file's load in that worker and the goal share it (neither the worker's start nor the
///   load is the goal's time, but the load counts against the deadline). Goals of a file
///   count no inferences and take no inference bound.
///
/// It keeps a warm spare: a second worker, started once the first is ready, which takes over
/// at once when the running one is killed or done with (a new spare then starts in the
/// background), so that the next goal does not wait for a start (about 0.3 to 0.6 s); the cost
/// is a second process. [`ScryerWorker::keep_spare`] turns it off.
///
/// [`ScryerWorker::confined`] confines every worker it starts (Landlock, rlimits:
/// `src/process/confine.rs`): it reads what its [`ChildSetup`] says and the file it loads,
/// writes only in a private scratch folder, starts nothing, within the setup's limits.
pub struct ScryerWorker {
    /// The confinement's setup; `None`: not confined.
    setup: Option<ChildSetup>,
    /// The scratch folder of a worker that is confined or runs a judged file.
    scratch: Option<crate::process::TempFolder>,
    keep_spare: bool,
    /// The program loaded, and its worker.
    loaded: Option<(Program, Worker)>,
    /// Whether the running worker has just loaded the judged file and run nothing since: it
    /// is then as fresh as one started for a goal, and the next goal runs there.
    fresh: bool,
}

/// How a judged file's load in a worker ended.
enum LoadEnd {
    Loaded(Loaded),
    /// The deadline passed first.
    TimedOut,
    Failed(SystemError),
}

impl ScryerWorker {
    /// A system whose goals run in a child process, not confined, started when a program is
    /// loaded. The program must call [`crate::worker::init`] first thing in `main`.
    pub fn new() -> ScryerWorker {
        ScryerWorker {
            setup: None,
            scratch: None,
            keep_spare: true,
            loaded: None,
            fresh: false,
        }
    }

    /// [`ScryerWorker::new`], every worker confined as `setup` says (its limits, what it may
    /// read besides the system's files and the file it loads), its scratch folder a private
    /// one of at most [`Limits::scratch`](crate::process::Limits::scratch) bytes.
    pub fn confined(setup: ChildSetup) -> Result<ScryerWorker, SystemError> {
        Ok(ScryerWorker {
            setup: Some(setup),
            scratch: Some(new_scratch()?),
            ..ScryerWorker::new()
        })
    }

    /// Keeps a warm spare worker (`true`, the default) or not: without one, the goal after a
    /// timeout (or any goal of a judged file) waits for a fresh worker's start.
    pub fn keep_spare(&mut self, keep: bool) {
        self.keep_spare = keep;
        if let Some((_, w)) = &mut self.loaded {
            w.keep_spare(keep);
        }
    }

    /// The process id of the running worker.
    pub fn pid(&self) -> Option<u32> {
        self.loaded.as_ref().and_then(|(_, w)| w.pid())
    }

    /// The scratch folder its workers write in (and, confined, the only one), once there is
    /// one (a confined system, or a judged file loaded).
    pub fn scratch(&self) -> Option<&Path> {
        self.scratch.as_ref().map(crate::process::TempFolder::path)
    }

    /// A worker for `program` (not started).
    fn worker(&mut self, program: &Program) -> Result<Worker, SystemError> {
        let worker = match program {
            Program::Homework => match (&self.setup, &self.scratch) {
                (Some(setup), Some(scratch)) => Worker::confined(
                    ROLE,
                    Some(confinement(setup, scratch.path(), None)),
                    scratch.path(),
                ),
                _ => Worker::new(ROLE),
            },
            Program::File { path, dialect, fd } => {
                if self.scratch.is_none() {
                    self.scratch = Some(new_scratch()?);
                }
                let scratch = self.scratch().unwrap_or(Path::new("."));
                let engine = FileEngine {
                    dialect: *dialect,
                    fd: *fd,
                };
                let engine = serde_json::to_string(&engine)
                    .map_err(|e| SystemError::Io(format!("encoding the engine: {e}")))?;
                Worker::confined(
                    ROLE,
                    self.setup
                        .as_ref()
                        .map(|s| confinement(s, scratch, Some(path))),
                    scratch,
                )
                .with_env(PROGRAM_VAR, &engine)
                .with_frame_cap(FILE_FRAME_CAP)
            }
        };
        let mut worker = worker;
        worker.keep_spare(self.keep_spare);
        Ok(worker)
    }
}

/// A fresh scratch folder (removed when dropped).
fn new_scratch() -> Result<crate::process::TempFolder, SystemError> {
    crate::process::TempFolder::new("kenken-scryer-")
        .map_err(|e| SystemError::Io(format!("making a scratch folder for Scryer: {e}")))
}

/// The confinement of a worker as `setup` says, writing in `scratch`, reading `file` too.
fn confinement(setup: &ChildSetup, scratch: &Path, file: Option<&PathBuf>) -> Confinement {
    let mut read = setup.read.clone();
    if let Some(f) = file.filter(|f| !read.contains(f)) {
        read.push(f.clone());
    }
    Confinement {
        read,
        hidden: setup.hidden.clone(),
        scratch: scratch.to_path_buf(),
        exec: Vec::new(),
        limits: setup.limits,
        scratch_size: Some(setup.limits.scratch),
    }
}

impl std::fmt::Debug for ScryerWorker {
    /// The program loaded and the process running it, whether it is confined and keeps a spare.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScryerWorker")
            .field("confined", &self.setup.is_some())
            .field("keep_spare", &self.keep_spare)
            .field("program", &self.loaded.as_ref().map(|(p, _)| p))
            .field("pid", &self.loaded.as_ref().and_then(|(_, w)| w.pid()))
            .finish_non_exhaustive()
    }
}

impl Default for ScryerWorker {
    fn default() -> ScryerWorker {
        ScryerWorker::new()
    }
}

/// Starts `worker` unless it runs, and waits until it is ready (its start is no program's
/// time).
fn start(worker: &mut Worker) -> Result<(), SystemError> {
    match worker.start() {
        Ok(_) => Ok(()),
        Err(WorkerError::Confine(why)) => Err(SystemError::CannotConfine(why)),
        Err(e) => Err(e.into()),
    }
}

/// Sends `request` to `worker` and reads what comes back until its reply or `deadline`
/// (`None` then), giving each answer to `answer` as it comes. `restart`: after a timeout, a
/// fresh worker starts at once.
fn exchange(
    worker: &mut Worker,
    request: &Request,
    deadline: Option<Instant>,
    restart: bool,
    answer: &mut dyn FnMut(Answer),
    last: &mut Option<u64>,
) -> Result<Option<Reply>, WorkerError> {
    let line = serde_json::to_string(request).context("encoding the request")?;
    if !worker.send(&line, deadline)? {
        if restart {
            let _ = worker.prestart();
        }
        return Ok(None);
    }
    loop {
        match worker.next(deadline)? {
            Frame::Part(p) => {
                let found: Found = serde_json::from_str(&p)
                    .with_context(|| format!("reading the worker's answer {}", excerpt(&p)))?;
                *last = found.inferences.or(*last);
                answer(found.answer());
            }
            Frame::Done(d) => {
                return Ok(Some(serde_json::from_str(&d).with_context(|| {
                    format!("reading the worker's reply {}", excerpt(&d))
                })?))
            }
            Frame::Timeout => {
                // a fresh worker starts at once, while the caller goes on
                if restart {
                    let _ = worker.prestart();
                }
                return Ok(None);
            }
        }
    }
}

/// How a goal ends whose worker failed.
fn failed_end(e: WorkerError) -> End {
    let crash = |why: String, status: Option<String>, stderr: String| {
        End::Crashed(Crash {
            why,
            status,
            stderr,
        })
    };
    match e {
        WorkerError::BadFrame(why) => End::Untrusted(why),
        WorkerError::Died { status, stderr } => crash(
            format!("the engine process ended ({status})"),
            Some(status),
            stderr,
        ),
        // (only a child that has not said it is ready may say it cannot confine itself)
        WorkerError::Confine(_) => crash("the engine process ended".into(), None, String::new()),
        e => crash(cut(&e.to_string()), None, String::new()),
    }
}

/// Loads `file` in `worker` (started) by `deadline`.
fn load_file(worker: &mut Worker, file: &Path, deadline: Option<Instant>) -> LoadEnd {
    let request = Request::Load {
        file: file.to_path_buf(),
    };
    let reply = exchange(worker, &request, deadline, false, &mut |_| {}, &mut None);
    let name = file.display().to_string();
    LoadEnd::Failed(match reply {
        Ok(Some(Reply::Loaded { warnings })) => {
            return LoadEnd::Loaded(Loaded {
                warnings: cut(&warnings),
            })
        }
        Ok(None) => return LoadEnd::TimedOut,
        Ok(Some(Reply::SyntaxErrors(errors))) => SystemError::Syntax {
            file: name,
            errors: errors
                .into_iter()
                .take(10)
                .map(|(l, m)| (l as usize, cut(&m)))
                .collect(),
        },
        Ok(Some(Reply::LoadFailed(why) | Reply::Failed(why))) => SystemError::Load(cut(&why)),
        Ok(Some(Reply::Ended { .. })) => {
            SystemError::Load("the Scryer worker answered out of turn".into())
        }
        // (what confinement says of a death is the caller's to tell: see `Crash`)
        Err(WorkerError::Died { status, stderr }) => {
            SystemError::Process(WorkerError::Died { status, stderr })
        }
        Err(e) => match failed_end(e) {
            End::Crashed(c) => SystemError::Load(c.why),
            End::Untrusted(why) => SystemError::Load(why),
            other => SystemError::Load(format!("{other:?}")),
        },
    })
}

impl ScryerWorker {
    /// Runs `goal` against the judged file `file` in a fresh worker: the running one when it
    /// is `fresh` (it loaded the file and ran nothing since), else one started for it.
    fn run_file(
        worker: &mut Worker,
        file: &Path,
        goal: &Goal,
        answer: &mut dyn FnMut(Answer),
        fresh: bool,
    ) -> Result<Outcome, SystemError> {
        let mut clock = Clock::start();
        let span = goal
            .deadline
            .map(|d| d.saturating_duration_since(clock.called()));
        // (the deadline from the call, moved on by the worker's start when one starts: the
        // file's load in it and the goal share the span, so that a case ends within its
        // timeout and a start)
        let mut deadline = goal.deadline;
        let ended = |end: End, clock: &Clock| Outcome {
            end,
            elapsed: clock.until(Instant::now()),
            inferences: None,
            cpu: None,
        };
        let timed_out = |clock: &Clock| Outcome {
            end: End::Stopped(Bound::Time),
            elapsed: span.unwrap_or_else(|| clock.until(Instant::now())),
            inferences: None,
            cpu: None,
        };
        // (a fresh worker that died meanwhile is started again, as any other)
        let reuse = fresh && worker.is_running() && !worker.running_has_ended();
        if !reuse {
            worker.stop();
            if let Err(e) = start(worker) {
                return match e {
                    SystemError::CannotConfine(_) => Err(e),
                    e => Ok(ended(
                        End::Crashed(Crash {
                            why: format!("the engine did not start: {e}"),
                            status: None,
                            stderr: String::new(),
                        }),
                        &clock,
                    )),
                };
            }
            // (the file loaded before, in a worker of its own)
            deadline = span.map(|s| Instant::now() + s);
            match load_file(worker, file, deadline) {
                LoadEnd::Loaded(_) => {}
                LoadEnd::TimedOut => {
                    worker.stop();
                    return Ok(timed_out(&clock));
                }
                LoadEnd::Failed(e) => {
                    worker.stop();
                    let (status, stderr) = match &e {
                        SystemError::Process(WorkerError::Died { status, stderr }) => {
                            (Some(status.clone()), stderr.clone())
                        }
                        _ => (None, String::new()),
                    };
                    let why = format!("loading the file again failed: {e}");
                    return Ok(ended(
                        End::Crashed(Crash {
                            why: cut(&why),
                            status,
                            stderr,
                        }),
                        &clock,
                    ));
                }
            }
        }
        let started = Instant::now();
        clock.goal_started(started);
        let request = Request::solve(&Goal {
            inferences: None,
            ..goal.clone()
        });
        let got = exchange(worker, &request, deadline, false, answer, &mut None);
        worker.stop();
        Ok(match got {
            Ok(Some(Reply::Ended { end, .. })) => ended(end.end(), &clock),
            Ok(Some(_)) => ended(
                End::Untrusted("the Scryer worker answered out of turn".into()),
                &clock,
            ),
            Ok(None) => timed_out(&clock),
            Err(e) => ended(failed_end(e), &clock),
        })
    }

    /// Runs `goal` against the homework in `worker`, which serves goal after goal.
    fn run_homework(
        worker: &mut Worker,
        goal: &Goal,
        answer: &mut dyn FnMut(Answer),
    ) -> Result<Outcome, SystemError> {
        let clock = Clock::start();
        let mut last = None;
        let request = Request::solve(goal);
        let got = exchange(worker, &request, goal.deadline, true, answer, &mut last);
        let (end, inferences, cpu_us) = match got {
            Ok(Some(Reply::Ended {
                end,
                inferences,
                cpu_us,
            })) => (end.end(), inferences.or(last), cpu_us),
            Ok(Some(_)) => (
                End::Untrusted("the Scryer worker answered out of turn".into()),
                None,
                None,
            ),
            Ok(None) => (End::Stopped(Bound::Time), last, None),
            Err(WorkerError::BadFrame(why)) => (End::Untrusted(why), None, None),
            Err(e) => return Err(e.into()),
        };
        let elapsed = clock.until(Instant::now());
        Ok(Outcome {
            end,
            elapsed,
            inferences,
            cpu: checked_cpu(cpu_us, elapsed),
        })
    }
}

impl PrologSystem for ScryerWorker {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, timeout: Duration) -> Result<Loaded, SystemError> {
        if let (Program::Homework, Some((Program::Homework, _))) = (program, &self.loaded) {
            return Ok(Loaded::default());
        }
        self.loaded = None;
        self.fresh = false;
        let mut worker = self.worker(program)?;
        start(&mut worker)?;
        let Program::File { path, .. } = program else {
            self.loaded = Some((Program::Homework, worker));
            return Ok(Loaded::default());
        };
        // (the worker's start is not the file's: its time starts once the worker is up; the
        // worker that loaded it runs the first goal, which no goal ran before, as a worker
        // started for that goal would)
        let loaded = load_file(&mut worker, path, Some(Instant::now() + timeout));
        if !matches!(loaded, LoadEnd::Loaded(_)) {
            worker.stop();
        }
        match loaded {
            LoadEnd::Loaded(l) => {
                self.loaded = Some((program.clone(), worker));
                self.fresh = true;
                Ok(l)
            }
            LoadEnd::TimedOut => Err(SystemError::Load(format!(
                "loading did not end within {} s (does a directive loop?)",
                timeout.as_secs_f64()
            ))),
            LoadEnd::Failed(e) => Err(e),
        }
    }

    fn reach(&self) -> Option<Reach> {
        let scratch = self.scratch()?.to_path_buf();
        let mut read = self
            .setup
            .as_ref()
            .map_or_else(Vec::new, |s| s.read.clone());
        if let Some((Program::File { path, .. }, _)) = &self.loaded {
            if !read.contains(path) {
                read.push(path.clone());
            }
        }
        Some(Reach { scratch, read })
    }

    fn keep_spare(&mut self, keep: bool) {
        ScryerWorker::keep_spare(self, keep);
    }

    fn settle(&mut self) {
        if let Some((_, w)) = &mut self.loaded {
            w.spare_ready(Instant::now() + SETTLE_TIMEOUT);
        }
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        match &mut self.loaded {
            None => Err(SystemError::NotLoaded(NAME)),
            Some((Program::Homework, worker)) => Self::run_homework(worker, goal, answer),
            Some((Program::File { path, .. }, worker)) => {
                let fresh = std::mem::take(&mut self.fresh);
                Self::run_file(worker, path, goal, answer, fresh)
            }
        }
    }
}
