//! Worker processes: Prolog work in a child process that can be killed.
//!
//! Scryer Prolog cannot be interrupted from outside and a thread cannot be killed; a process
//! can. So a bounded Prolog solve ([`crate::engine::WorkerEngine`]) or a bounded query runs in
//! a child process started from the same program: the child is the program itself, started again
//! with the environment variable `KENKEN_WORKER` naming its role. [`init`], called first thing in
//! `main`, turns such a child into a worker (it serves requests, one JSON line each, then exits)
//! and returns at once in the parent. This is the pattern of the `procspawn` crate, with a line
//! protocol of our own.
//!
//! ```no_run
//! kenken::worker::init(); // first thing in main: serves and exits when started as a worker
//! // ... the program proper, which may use `Isolation::Worker` engines
//! ```
//!
//! A program that cannot call [`init`] (a test harness, say) points the workers at another
//! program that does, with [`set_program`] (the `kenken` binary does). A child that does not turn
//! into a worker is reported as an error, never started twice over.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The environment variable that names a child's role.
pub(crate) const ROLE_VAR: &str = "KENKEN_WORKER";
/// The line a child prints once it is ready for requests.
const READY: &str = "kenken-worker-ready";
/// The prefix of every reply line (anything else a child prints is skipped).
const REPLY: &str = "kenken-reply ";
/// How long a fresh child may take to get ready (building a Prolog engine takes about 0.3 s).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// The stack of the thread that serves requests: Scryer recurses deeply on big terms.
const STACK: usize = 256 << 20;

static PROGRAM: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Turns this process into a worker when it was started as one, and never returns then;
/// returns at once otherwise. Call it first thing in `main` of any program that uses worker
/// engines.
pub fn init() {
    let Ok(role) = std::env::var(ROLE_VAR) else {
        return;
    };
    let served = std::thread::Builder::new()
        .name("kenken-worker".into())
        .stack_size(STACK)
        .spawn(move || serve_role(&role));
    let code = match served.map(|t| t.join()) {
        Ok(Ok(Ok(()))) => 0,
        // The parent went away: nothing to report to anyone.
        Ok(Ok(Err(e))) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Ok(Ok(Err(e))) => {
            eprintln!("kenken worker: {e}");
            2
        }
        _ => {
            eprintln!("kenken worker: the serving thread stopped");
            2
        }
    };
    std::process::exit(code);
}

/// Makes workers run `program` (which must call [`init`] first thing) instead of this program.
pub fn set_program(program: PathBuf) {
    if let Ok(mut p) = PROGRAM.lock() {
        *p = Some(program);
    }
}

/// Serves `role`: the interactive top level on its own pipes, any other role on standard input
/// and output.
fn serve_role(role: &str) -> std::io::Result<()> {
    if role == "toplevel" {
        return crate::prolog::toplevel::serve_child();
    }
    serve(role)
}

/// The program workers run: the one [`set_program`] named, or this one.
pub(crate) fn program() -> Result<PathBuf, WorkerError> {
    match PROGRAM.lock().ok().and_then(|p| p.clone()) {
        Some(p) => Ok(p),
        None => std::env::current_exe()
            .map_err(|e| WorkerError::Io(format!("finding this program: {e}"))),
    }
}

/// Serves one role on standard input and output until the input ends.
fn serve(role: &str) -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut handler = crate::engine::serve_worker(role)
        .ok_or_else(|| std::io::Error::other(format!("unknown worker role '{role}'")))?;
    writeln!(stdout, "{READY}")?;
    stdout.flush()?;
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = handler(&line);
        writeln!(stdout, "{REPLY}{reply}")?;
        stdout.flush()?;
    }
    Ok(())
}

/// What went wrong with a worker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    /// The child could not be started or talked to.
    #[error("{0}")]
    Io(String),
    /// The child did not become a worker, answered something unexpected, or stopped.
    #[error("{0}")]
    Protocol(String),
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

/// One worker child of a given role, started on the first request and restarted after a
/// timeout killed it.
pub(crate) struct Worker {
    role: String,
    running: Option<Running>,
}

impl Worker {
    /// A worker for `role` (not started yet).
    pub(crate) fn new(role: &str) -> Worker {
        Worker {
            role: role.to_string(),
            running: None,
        }
    }

    fn start(&mut self) -> Result<&mut Running, WorkerError> {
        if self.running.is_some() {
            return self
                .running
                .as_mut()
                .ok_or_else(|| WorkerError::Io("no worker".into()));
        }
        if std::env::var_os(ROLE_VAR).is_some() {
            return Err(WorkerError::Protocol(
                "this process was started as a kenken worker, but its main did not call \
                 kenken::worker::init() first"
                    .into(),
            ));
        }
        let program = program()?;
        let mut child = Command::new(&program)
            .env(ROLE_VAR, &self.role)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| WorkerError::Io(format!("starting {}: {e}", program.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(WorkerError::Io("no pipes to the worker".into()));
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let stop = line.is_err();
                if tx.send(line).is_err() || stop {
                    break;
                }
            }
        });
        let mut running = Running {
            child,
            stdin,
            lines,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match running.lines.recv_timeout(wait) {
                Ok(Ok(l)) if l == READY => break,
                Ok(Ok(_)) => continue,
                other => {
                    let _ = running.child.kill();
                    let _ = running.child.wait();
                    let why = match other {
                        Err(RecvTimeoutError::Timeout) => "did not get ready in time".to_string(),
                        Ok(Err(e)) => e.to_string(),
                        _ => "stopped".to_string(),
                    };
                    return Err(WorkerError::Protocol(format!(
                        "{} did not start as a kenken worker ({why}); a program that uses \
                         worker engines must call kenken::worker::init() first thing in main",
                        program.display()
                    )));
                }
            }
        }
        Ok(self.running.insert(running))
    }

    /// Whether a child runs (it stops after a timeout or a crash).
    pub(crate) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Stops the child, if one runs.
    pub(crate) fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    /// Sends one request line and waits for the reply line; `Ok(None)` when `timeout` passed
    /// first (the child is then killed, and the next request starts a fresh one).
    pub(crate) fn request(
        &mut self,
        line: &str,
        timeout: Option<Duration>,
    ) -> Result<Option<String>, WorkerError> {
        let running = self.start()?;
        let sent = writeln!(running.stdin, "{line}").and_then(|_| running.stdin.flush());
        if let Err(e) = sent {
            self.stop();
            return Err(WorkerError::Io(format!("sending a request: {e}")));
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let got = match deadline {
                Some(d) => running
                    .lines
                    .recv_timeout(d.saturating_duration_since(Instant::now())),
                None => running
                    .lines
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
            };
            let failure = match got {
                Ok(Ok(l)) => match l.strip_prefix(REPLY) {
                    Some(reply) => return Ok(Some(reply.to_string())),
                    None => continue,
                },
                Err(RecvTimeoutError::Timeout) => {
                    self.stop();
                    return Ok(None);
                }
                Ok(Err(e)) => WorkerError::Io(e.to_string()),
                Err(RecvTimeoutError::Disconnected) => WorkerError::Protocol(
                    "the worker stopped (crashed, or ran out of memory)".into(),
                ),
            };
            self.stop();
            return Err(failure);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}
