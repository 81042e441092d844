//! Prolog solves in a child process, so that a timeout really stops them.
//!
//! Scryer Prolog cannot be interrupted from outside, and a thread cannot be killed; a process can.
//! A [`Worker`] starts `EXE ARGS...` (the `kenken` binary's hidden `worker` command), which builds
//! one engine, says it is ready, and then answers one JSON request per line with [`serve`]. When a
//! solve outlives its timeout the parent kills the child and starts a fresh one for the next
//! request. The engine's start-up (about 0.3 s) is paid once per child, not per puzzle, and is not
//! part of any measured time: the child times each solve itself.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Engine, Predicate, DEFAULT_INFERENCE_LIMIT};
use crate::format::json;
use crate::puzzle::{Grid, Puzzle};

/// The line a child prints once its engine is built.
const READY: &str = "kenken-ready";
/// The prefix of every reply line.
const REPLY: &str = "kenken-reply ";

/// How long a fresh child may take to build its engine.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// What went wrong with a worker.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The child could not be started or talked to.
    #[error("Prolog worker: {0}")]
    Io(String),
    /// The child answered something unexpected, or stopped.
    #[error("Prolog worker: {0}")]
    Protocol(String),
}

#[derive(Serialize, Deserialize)]
struct Request {
    limit: Option<usize>,
    puzzle: serde_json::Value,
}

/// The answer to one solve request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The grids found, in the predicate's order.
    pub grids: Vec<Grid>,
    /// Every answer was enumerated.
    pub complete: bool,
    /// Stopped by the inference limit.
    pub inference_limit: bool,
    /// Time the solve took inside the child, in milliseconds.
    pub elapsed_ms: f64,
    /// The engine's error, if the solve failed.
    pub error: Option<String>,
}

/// The result of [`Worker::solve`].
#[derive(Debug, Clone, PartialEq)]
pub enum Solve {
    /// The child answered in time.
    Done(Reply),
    /// The timeout passed; the child was killed.
    TimedOut,
}

/// Serves requests from `input` to `output` with one engine running `pred`, until `input` ends.
pub fn serve(pred: Predicate, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut engine = Engine::new();
    writeln!(output, "{READY}")?;
    output.flush()?;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&mut engine, pred, &line);
        let text = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
        writeln!(output, "{REPLY}{text}")?;
        output.flush()?;
    }
    Ok(())
}

fn answer(engine: &mut Engine, pred: Predicate, line: &str) -> Reply {
    let failed = |error: String| Reply {
        grids: Vec::new(),
        complete: false,
        inference_limit: false,
        elapsed_ms: 0.0,
        error: Some(error),
    };
    let request: Request = match serde_json::from_str(line) {
        Ok(r) => r,
        Err(e) => return failed(format!("bad request: {e}")),
    };
    let puzzle = match json::read(&request.puzzle.to_string()) {
        Ok(mut ps) if ps.len() == 1 => ps.remove(0),
        Ok(_) => return failed("bad request: not one puzzle".into()),
        Err(e) => return failed(format!("bad request: {e}")),
    };
    let start = Instant::now();
    let result = engine.solve(&puzzle, pred, request.limit, DEFAULT_INFERENCE_LIMIT);
    let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(s) => Reply {
            grids: s.grids,
            complete: s.complete,
            inference_limit: s.limit_reached,
            elapsed_ms,
            error: None,
        },
        Err(e) => failed(e.to_string()),
    }
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

/// A child process running one Prolog engine; restarted after each timeout.
pub struct Worker {
    command: Vec<String>,
    exe: PathBuf,
    running: Option<Running>,
}

impl Worker {
    /// A worker that runs `exe` with `args` (started on the first solve).
    pub fn new(exe: PathBuf, args: &[&str]) -> Worker {
        Worker {
            command: args.iter().map(|s| s.to_string()).collect(),
            exe,
            running: None,
        }
    }

    fn start(&mut self) -> Result<&mut Running, WorkerError> {
        if self.running.is_none() {
            let mut child = Command::new(&self.exe)
                .args(&self.command)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| WorkerError::Io(format!("starting {}: {e}", self.exe.display())))?;
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
                        return Err(WorkerError::Protocol(format!(
                            "the engine did not start: {other:?}"
                        )));
                    }
                }
            }
            self.running = Some(running);
        }
        self.running
            .as_mut()
            .ok_or_else(|| WorkerError::Io("the worker did not start".into()))
    }

    /// Stops the child, if one runs.
    pub fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    /// Solves `p` for at most `limit` grids; kills the child if no answer comes within `timeout`.
    pub fn solve(
        &mut self,
        p: &Puzzle,
        limit: Option<usize>,
        timeout: Option<Duration>,
    ) -> Result<Solve, WorkerError> {
        let text = json::write(p).map_err(|e| WorkerError::Protocol(e.to_string()))?;
        let puzzle =
            serde_json::from_str(&text).map_err(|e| WorkerError::Protocol(e.to_string()))?;
        let request = serde_json::to_string(&Request { limit, puzzle })
            .map_err(|e| WorkerError::Protocol(e.to_string()))?;
        let running = self.start()?;
        let sent = writeln!(running.stdin, "{request}").and_then(|_| running.stdin.flush());
        if let Err(e) = sent {
            self.stop();
            return Err(WorkerError::Io(format!("sending a puzzle: {e}")));
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
                // Anything else the child prints (it should print nothing) is skipped.
                Ok(Ok(line)) if !line.starts_with(REPLY) => continue,
                Ok(Ok(line)) => {
                    return serde_json::from_str(&line[REPLY.len()..])
                        .map(Solve::Done)
                        .map_err(|e| WorkerError::Protocol(format!("bad reply {line:?}: {e}")))
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.stop();
                    return Ok(Solve::TimedOut);
                }
                Ok(Err(e)) => WorkerError::Io(e.to_string()),
                Err(RecvTimeoutError::Disconnected) => {
                    WorkerError::Protocol("the worker stopped (crashed or out of memory)".into())
                }
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

/// Solves every puzzle with `jobs` workers at once (a pool of child processes, one engine each),
/// each solve bounded by `timeout`; results come back in the puzzles' order.
pub fn solve_many(
    exe: &std::path::Path,
    args: &[&str],
    puzzles: &[Puzzle],
    limit: Option<usize>,
    timeout: Option<Duration>,
    jobs: usize,
) -> Vec<Result<Solve, WorkerError>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Solve, WorkerError>>>> =
        Mutex::new((0..puzzles.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, puzzles.len().max(1)) {
            s.spawn(|| {
                let mut worker = Worker::new(exe.to_path_buf(), args);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = puzzles.get(i) else { break };
                    let r = worker.solve(p, limit, timeout);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(r);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(WorkerError::Protocol("no result".into()))))
        .collect()
}
