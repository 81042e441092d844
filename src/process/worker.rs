//! The parent's side of a worker: this program started again in a role, sent one request at a
//! time and read its reply (answering the questions the child asks within it), killed at a
//! deadline and started again, with a warm spare; on its standard input and output, or, for a
//! child that keeps the terminal, on two named pipes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::child::{Child, Recv};
use super::frame::{Reply, Ticket};
use super::spawn::{worker_program, Spawn, Stderr};
use super::{Confinement, WorkerError, CANNOT_CONFINE, FRAME_CAP, READY};
use crate::error::IoError;

/// How long a fresh worker may take to get ready (building a Prolog engine takes about 0.4 s:
/// `examples/worker_start.rs` times it).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The parent's side of one worker of a given role: started on the first request, killed at a
/// deadline and started again for the next request.
///
/// A worker may keep a warm spare ([`Worker::with_spare`]): a second child, started as soon as
/// the first is ready, that takes over at once when the running one is killed (a new spare then
/// starts at once too). The request after a timeout then waits for no start.
pub(crate) struct Worker {
    role: String,
    confinement: Option<Confinement>,
    /// The working directory (and `TMPDIR`) of the child.
    dir: Option<PathBuf>,
    stderr: Stderr,
    running: Option<Child>,
    /// The running child said it is ready.
    ready: bool,
    /// The id of the last request sent.
    last_id: u64,
    /// The request whose reply is awaited: a new request before its reply came (the caller
    /// gave up reading it) restarts the child, so that no reply is ever another's.
    current: Option<Ticket>,
    /// Environment variables the child gets.
    env: Vec<(String, String)>,
    /// The arguments the child gets.
    args: Vec<String>,
    /// Whether a spare is kept ([`Worker::with_spare`]).
    keep_spare: bool,
    /// The spare child (started, ready or not), and whether it said it is ready.
    spare: Option<(Child, bool)>,
    /// The longest frame read from the child; past it the child is killed.
    frame_cap: usize,
    /// The child keeps this process's terminal; it speaks through named pipes
    /// ([`Worker::terminal`]).
    terminal: bool,
    /// How the last child that was stopped had ended by then (`None`: it ran on, and was
    /// killed).
    last_status: Option<std::process::ExitStatus>,
}

impl Worker {
    /// A worker for `role` (not started yet), its standard error shown.
    pub(crate) fn new(role: &str) -> Worker {
        Worker {
            role: role.to_string(),
            confinement: None,
            dir: None,
            stderr: Stderr::Inherit,
            running: None,
            ready: false,
            last_id: 0,
            current: None,
            env: Vec::new(),
            args: Vec::new(),
            keep_spare: false,
            spare: None,
            frame_cap: FRAME_CAP,
            terminal: false,
            last_status: None,
        }
    }

    /// A worker that confines itself with `confinement` (when given) before it serves, working
    /// in `dir`; its standard error is captured (what it says of a crash is part of the error).
    pub(crate) fn confined(role: &str, confinement: Option<Confinement>, dir: &Path) -> Worker {
        Worker {
            confinement,
            dir: Some(dir.to_path_buf()),
            stderr: Stderr::Capture,
            ..Worker::new(role)
        }
    }

    /// This worker, keeping a warm spare child: started as soon as the running child is ready,
    /// it takes over when that one is killed (a deadline, a crash, a reply left unread).
    pub(crate) fn with_spare(mut self) -> Worker {
        self.keep_spare(true);
        self
    }

    /// Keeps a warm spare from now on, or stops the one there is.
    pub(crate) fn keep_spare(&mut self, keep: bool) {
        self.keep_spare = keep;
        if !keep {
            self.spare = None;
        }
    }

    /// This worker, reading frames of at most `cap` bytes (a longer one kills the child).
    pub(crate) fn with_frame_cap(mut self, cap: usize) -> Worker {
        self.frame_cap = cap;
        self
    }

    /// This worker, its standard error captured (the start and the end of it are kept: see
    /// [`WorkerError::Died`]).
    pub(crate) fn capture_stderr(mut self) -> Worker {
        self.stderr = Stderr::Capture;
        self
    }

    /// This worker, its child started with the environment variable `key` set to `value`.
    pub(crate) fn with_env(mut self, key: &str, value: &str) -> Worker {
        self.set_env(key, value);
        self
    }

    /// The next child started gets the environment variable `key` set to `value` (in place
    /// of what it was set to before).
    pub(crate) fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
    }

    /// This worker, its child started with these arguments (after the program's name).
    pub(crate) fn with_args(mut self, args: &[&str]) -> Worker {
        self.args = args.iter().map(|a| a.to_string()).collect();
        self
    }

    /// This worker, its child sharing this process's terminal (its standard input and output,
    /// and its process group: Ctrl-C reaches it) and speaking the same protocol through two
    /// named pipes (`channel.rs`): for a child whose work reads and writes the terminal.
    pub(crate) fn terminal(mut self) -> Worker {
        self.terminal = true;
        self
    }

    /// Starts the child unless it runs, and waits until it is ready.
    pub(crate) fn start(&mut self) -> Result<&mut Child, WorkerError> {
        match self.start_by(None)? {
            Some(child) => Ok(child),
            None => Err(WorkerError::Protocol("did not get ready in time".into())),
        }
    }

    /// Starts the child unless it runs, and waits until it is ready or `deadline` passes:
    /// whether it is ready (a child not ready goes on starting).
    pub(crate) fn start_within(&mut self, deadline: Instant) -> Result<bool, WorkerError> {
        Ok(self.start_by(Some(deadline))?.is_some())
    }

    /// Spawns the child, without waiting for it to be ready, unless one runs: the next request
    /// finds it starting, or ready. With a spare, the spare takes over (and a new spare is
    /// started once the new child is ready).
    pub(crate) fn prestart(&mut self) -> Result<(), WorkerError> {
        if self.running.is_none() {
            let spare = self.spare.take();
            if let Some((child, ready)) =
                spare.and_then(|(mut c, r)| (!c.has_ended()).then_some((c, r)))
            {
                self.running = Some(child);
                self.ready = ready;
                self.start_spare()?;
            } else {
                self.running = Some(self.spawn()?);
                self.ready = false;
            }
        }
        Ok(())
    }

    /// A new child of this worker's role, not waited for.
    fn spawn(&self) -> Result<Child, WorkerError> {
        let mut spawn = Spawn::worker(&self.role)?
            .stderr(self.stderr)
            .frame_cap(self.frame_cap);
        if self.terminal {
            spawn = spawn.terminal();
        }
        for (k, v) in &self.env {
            spawn = spawn.env(k, v);
        }
        spawn = spawn.args(&self.args);
        if let Some(dir) = &self.dir {
            spawn = spawn.current_dir(dir);
        }
        if let Some(c) = &self.confinement {
            spawn = spawn.confine(c)?;
        }
        spawn.spawn()
    }

    /// Starts the spare, when one is kept, none runs, and the running child is ready (two
    /// starts at once would only slow each other).
    fn start_spare(&mut self) -> Result<(), WorkerError> {
        if self.keep_spare && self.spare.is_none() && self.running.is_some() && self.ready {
            self.spare = Some((self.spawn()?, false));
        }
        Ok(())
    }

    /// Waits until the spare (when one is kept) is ready, or `deadline` passes: whether it is.
    /// A spare that died or cannot start is dropped (the next one is started in its place).
    pub(crate) fn spare_ready(&mut self, deadline: Instant) -> bool {
        if self.start_spare().is_err() {
            return false;
        }
        let Some((child, ready)) = self.spare.as_mut() else {
            return !self.keep_spare;
        };
        while !*ready {
            match child.recv(Some(deadline)) {
                Recv::Line(l) if l == READY => *ready = true,
                Recv::Line(_) | Recv::Cut(_) => {}
                Recv::Timeout => return false,
                _ => {
                    self.spare = None;
                    return false;
                }
            }
        }
        true
    }

    /// Starts the child unless it runs, and waits until it is ready, or until `deadline`:
    /// `Ok(None)` then. The child goes on starting (it has been given nothing to do), so that
    /// the next request finds it further on: a deadline shorter than a start would otherwise
    /// kill every start, and no request after a kill would ever be answered.
    fn start_by(&mut self, deadline: Option<Instant>) -> Result<Option<&mut Child>, WorkerError> {
        self.prestart()?;
        if !self.ready {
            let start_deadline = Instant::now() + START_TIMEOUT;
            let deadline = deadline.map_or(start_deadline, |d| d.min(start_deadline));
            let timed_out = deadline < start_deadline;
            let child = self
                .running
                .as_mut()
                .ok_or_else(|| WorkerError::Protocol("no worker is running".into()))?;
            loop {
                match child.recv(Some(deadline)) {
                    Recv::Line(l) if l == READY => break,
                    Recv::Line(l) | Recv::Cut(l) => {
                        if let Some(why) = l.strip_prefix(CANNOT_CONFINE) {
                            self.stop();
                            return Err(WorkerError::Confine(why.to_string()));
                        }
                    }
                    Recv::Timeout if timed_out => return Ok(None),
                    other => {
                        let program = worker_program()?;
                        let why = match other {
                            Recv::Timeout => "did not get ready in time".to_string(),
                            _ => child.died().to_string(),
                        };
                        self.stop();
                        return Err(WorkerError::Protocol(format!(
                            "{} did not start as a kenken worker ({why}); a program that uses \
                             worker engines must call kenken::worker::init() first thing in main",
                            program.display()
                        )));
                    }
                }
            }
            self.ready = true;
            self.start_spare()?;
        }
        Ok(self.running.as_mut())
    }

    /// How the child stopped last had ended by itself (`None`: it was killed, or none was
    /// stopped): after [`Worker::next`] said it died, say.
    pub(crate) fn last_status(&self) -> Option<std::process::ExitStatus> {
        self.last_status
    }

    /// Answers a question the child asked within the request that runs (a part of its reply
    /// that asks): `payload` goes to it as a line of that request's ticket, which the child
    /// checks as it checks a request's.
    pub(crate) fn answer(&mut self, payload: &str) -> Result<(), WorkerError> {
        let (Some(child), Some(ticket)) = (self.running.as_mut(), self.current.as_ref()) else {
            return Err(WorkerError::Protocol("no request is running".into()));
        };
        if let Err(e) = child.send(&ticket.request_line(payload)) {
            let died = child.died();
            self.stop();
            return Err(match died {
                WorkerError::Died { .. } => died,
                _ => IoError::new("answering the process", e).into(),
            });
        }
        Ok(())
    }

    /// Whether a child runs (it stops after a timeout or a crash).
    pub(crate) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Whether the running child has ended (it died while it waited for a request, say), so
    /// that a request sent to it could only fail.
    pub(crate) fn running_has_ended(&mut self) -> bool {
        self.running.as_mut().is_some_and(Child::has_ended)
    }

    /// Whether the reply to the last request has not been read to its end yet.
    pub(crate) fn awaiting_reply(&self) -> bool {
        self.current.is_some()
    }

    /// The process id of the running child, if one runs (started, or starting).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.running.as_ref().map(Child::id)
    }

    /// Stops the child (and its group), if one runs.
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.running.take() {
            self.last_status = if c.has_ended() { c.wait() } else { None };
        }
        self.ready = false;
        self.current = None;
    }

    /// Sends one request (`payload`: a line without newline), starting the child first
    /// unless it runs; `Ok(false)` when `deadline` passed while it started. Read the reply
    /// with [`Worker::next`]. When the reply to the previous request was not read to its end,
    /// the child is started again first.
    pub(crate) fn send(
        &mut self,
        payload: &str,
        deadline: Option<Instant>,
    ) -> Result<bool, WorkerError> {
        if self.current.is_some() {
            self.stop();
        }
        let ticket = Ticket::new(self.last_id + 1);
        let Some(child) = self.start_by(deadline)? else {
            return Ok(false);
        };
        if let Err(e) = child.send(&ticket.request_line(payload)) {
            let died = child.died();
            self.stop();
            return Err(match died {
                WorkerError::Died { .. } => died,
                _ => IoError::new("sending a request", e).into(),
            });
        }
        self.last_id += 1;
        self.current = Some(ticket);
        Ok(true)
    }

    /// The next frame of the reply to the request sent last: a part, the reply, or the
    /// deadline (the child is then killed; the next request starts a fresh one, or
    /// [`Worker::prestart`] does at once). Any error stops the child.
    pub(crate) fn next(&mut self, deadline: Option<Instant>) -> Result<Reply, WorkerError> {
        let r = self.next_or_wait(deadline);
        if let Ok(Reply::Timeout) = r {
            self.stop();
        }
        r
    }

    /// [`Worker::next`], but at the deadline the child runs on (the request is still awaited:
    /// call this again, or stop the child).
    pub(crate) fn next_or_wait(&mut self, deadline: Option<Instant>) -> Result<Reply, WorkerError> {
        let (Some(child), Some(ticket)) = (self.running.as_mut(), self.current.as_ref()) else {
            return Err(WorkerError::Protocol("no request is running".into()));
        };
        match child.next_reply(ticket, deadline) {
            Ok(Reply::Done(d)) => {
                self.current = None;
                Ok(Reply::Done(d))
            }
            Ok(r) => Ok(r),
            Err(e) => {
                self.stop();
                Err(e)
            }
        }
    }

    /// Sends `SIGINT` to the running child alone (not its group, nor the children it started):
    /// whether there was one to send it to.
    pub(crate) fn interrupt(&mut self) -> bool {
        self.running.as_mut().is_some_and(Child::interrupt)
    }
}
