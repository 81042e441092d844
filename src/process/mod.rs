//! The process layer: every child process the program starts goes through here (Prolog
//! workers, the top level's child, judged Scryer engines, GNU Prolog).
//!
//! It owns spawning (each child leads a process group of its own), line I/O with deadlines,
//! reading output with a cap, killing the whole process group (not only the child) and reaping,
//! and (for code we did not write) confinement and limits ([`Confinement`], [`Limits`]). It imports nothing
//! above it: the table of worker roles lives at the top, in [`crate::worker::init`].
//!
//! A worker is this program started again with the environment variable `KENKEN_WORKER` naming
//! its role; `Worker` is the parent's side of one (start, request, reply, kill, restart).

pub(crate) mod confine;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::os::unix::process::{CommandExt, ExitStatusExt};

pub use confine::{Confinement, Limits};

use crate::error::{Context, IoError, JsonError};

/// The environment variable that names a child's role.
pub(crate) const ROLE_VAR: &str = "KENKEN_WORKER";
/// The environment variable that names the program an `exec` child runs (JSON: program, args).
const EXEC_VAR: &str = "KENKEN_EXEC";
/// The role of a child that confines itself, then `exec`s another program.
pub(crate) const EXEC_ROLE: &str = "exec";
/// The line a child prints once it is ready for requests (before it runs anything of a
/// request: only accepted while the child starts).
pub(crate) const READY: &str = "kenken-worker-ready";
/// The start of every frame of a reply. A frame is one line,
/// `kenken-frame ID NONCE KIND PAYLOAD`: the request's id and nonce (see [`Ticket`]), `part`
/// (an answer sent as soon as it is found, so that what was found before a deadline reaches the
/// parent) or `done` (the reply: the request is over), and the payload, which holds no newline.
/// Any other line a child writes is its printed output: kept (capped) and never parsed.
pub(crate) const FRAME: &str = "kenken-frame ";
/// The longest line of a child's output kept when it is not a frame (the rest is read away).
const PRINTED_LINE_CAP: usize = 4096;
/// At most this much of a child's printed output (lines that are not frames) is kept.
const PRINTED_CAP: usize = 64 * 1024;
/// The longest frame a child may send by default; past it the child is killed.
pub(crate) const FRAME_CAP: usize = 256 << 20;
/// The prefix of the line a child prints when it cannot confine itself, then exits.
pub(crate) const CANNOT_CONFINE: &str = "kenken-cannot-confine ";
/// How long a fresh worker may take to get ready (building a Prolog engine takes about 0.4 s:
/// `examples/worker_start.rs` times it).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the rest of a process group may hold a pipe open after its leader ended.
const DRAIN: Duration = Duration::from_millis(500);
/// At most this much of a child's standard error is kept.
const STDERR_CAP: usize = 64 * 1024;

/// Answers one request line of a worker with one reply line; it may send parts of its reply
/// first, each as soon as it has it, through the function it is given.
pub(crate) type Handler = Box<dyn FnMut(&str, &mut dyn FnMut(&str)) -> String>;

static PROGRAM: Mutex<Option<PathBuf>> = Mutex::new(None);
/// Whether [`crate::worker::init`] ran in this process: a program that never called it cannot
/// serve as a worker (started as one, it would run its own `main` again).
static INIT_CALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that [`crate::worker::init`] ran in this process.
pub(crate) fn init_called() {
    INIT_CALLED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Makes workers run `program` (which must call [`crate::worker::init`] first thing) instead of
/// this program.
pub fn set_program(program: PathBuf) {
    if let Ok(mut p) = PROGRAM.lock() {
        *p = Some(program);
    }
}

/// The program workers run: the one [`set_program`] named, or this one.
pub(crate) fn worker_program() -> Result<PathBuf, WorkerError> {
    match PROGRAM.lock().ok().and_then(|p| p.clone()) {
        Some(p) => Ok(p),
        None => Ok(std::env::current_exe().context("finding this program")?),
    }
}

/// Finds `name` on the `PATH`, as an absolute path with links resolved.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// What went wrong with a child process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    /// The child could not be started or talked to.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A message to the child could not be encoded.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// The child did not become a worker, answered something unexpected, or stopped.
    #[error("{0}")]
    Protocol(String),
    /// The child wrote a frame that is not the current request's (forged, or out of step),
    /// a malformed one, one cut short, or more than the caps allow: it was killed.
    #[error("the process's reply cannot be trusted: {0}")]
    BadFrame(String),
    /// The child could not confine itself (the kernel lacks what confinement needs).
    #[error("cannot confine the child process: {0}")]
    Confine(String),
    /// The child died: how it ended, and the end of what it wrote to standard error.
    #[error("{}", died_text(.status, .stderr))]
    Died {
        /// How it ended (`exit status: 1`, `signal: 6 (SIGABRT)`).
        status: String,
        /// The end of its standard error (when it was captured).
        stderr: String,
    },
}

fn died_text(status: &str, stderr: &str) -> String {
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    match last {
        Some(l) => format!("the process stopped ({status}): {}", l.trim()),
        None => format!("the process stopped ({status})"),
    }
}

/// What a child's standard error is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stderr {
    /// This process's own.
    Inherit,
    /// A pipe whose first [`STDERR_CAP`] bytes are kept.
    Capture,
}

/// How to start a child: a program or a worker role, its environment and its confinement.
pub struct Spawn {
    command: std::process::Command,
    /// Shares this process's terminal: standard input and output inherited, and this
    /// process's group (so that Ctrl-C reaches it, as any job of a shell).
    terminal: bool,
    stderr: Stderr,
    /// At most this many bytes of standard output are read; past it the child is killed.
    output_cap: usize,
    /// The longest frame read; past it the child is killed.
    frame_cap: usize,
}

/// The environment of a confined child, besides what its [`Spawn`] sets (`HOME` and `TMPDIR`
/// are its scratch directory).
pub(crate) const CONFINED_ENV: [(&str, &str); 3] = [
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("SHELL", "/bin/sh"),
    ("LANG", "C.UTF-8"),
];

impl Spawn {
    /// A child running `program` with `args`.
    pub fn program(program: &Path, args: &[OsString]) -> Spawn {
        let mut command = std::process::Command::new(program);
        command.args(args);
        Spawn {
            command,
            terminal: false,
            stderr: Stderr::Inherit,
            output_cap: usize::MAX,
            frame_cap: FRAME_CAP,
        }
    }

    /// This program (or the one [`set_program`] named) started as a worker of `role`.
    pub(crate) fn worker(role: &str) -> Result<Spawn, WorkerError> {
        if std::env::var_os(ROLE_VAR).is_some() {
            return Err(WorkerError::Protocol(
                "this process was started as a kenken worker, but its main did not call \
                 kenken::worker::init() first"
                    .into(),
            ));
        }
        let named = PROGRAM.lock().map(|p| p.is_some()).unwrap_or(false);
        if !named && !INIT_CALLED.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(WorkerError::Protocol(format!(
                "this program cannot start a kenken worker (for the {role} role): call \
                 kenken::worker::init() first thing in main, or name a program that does with \
                 kenken::worker::set_program"
            )));
        }
        let mut s = Spawn::program(&worker_program()?, &[]);
        s.command.env(ROLE_VAR, role);
        Ok(s)
    }

    /// `program` with `args`, run by a worker that confines itself first (`exec` keeps the
    /// confinement).
    pub(crate) fn confined_exec(
        program: &Path,
        args: &[OsString],
        confinement: &Confinement,
    ) -> Result<Spawn, WorkerError> {
        let mut s = Spawn::worker(EXEC_ROLE)?;
        let call: Vec<String> = std::iter::once(program.as_os_str())
            .chain(args.iter().map(|a| a.as_os_str()))
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let call = serde_json::to_string(&call).context("encoding the program to run")?;
        s.command.env(EXEC_VAR, call);
        s.confine(confinement)
    }

    /// Confines the child (it applies `confinement` to itself before anything else); its
    /// working directory, `HOME` and `TMPDIR` become the scratch directory.
    ///
    /// The child inherits none of this process's environment (which may hold the user's
    /// secrets): it gets the variables set on this `Spawn` so far and a fixed few, the same on
    /// every machine ([`CONFINED_ENV`]). `SHELL` is among them, so that code which would start
    /// a program through the shell tries to, and is stopped and named by the confinement,
    /// rather than failing quietly where the user has no `SHELL` set.
    pub(crate) fn confine(mut self, confinement: &Confinement) -> Result<Spawn, WorkerError> {
        let text = serde_json::to_string(confinement).context("encoding the confinement")?;
        let set: Vec<(OsString, OsString)> = self
            .command
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
            .collect();
        self.command
            .env_clear()
            .envs(set)
            .envs(CONFINED_ENV.iter().copied());
        self.command
            .env(confine::CONFINE_VAR, text)
            .env("HOME", &confinement.scratch);
        Ok(self.current_dir(&confinement.scratch))
    }

    /// Sets an environment variable of the child.
    pub fn env(mut self, key: &str, value: &str) -> Spawn {
        self.command.env(key, value);
        self
    }

    /// Gives the child this process's terminal (standard input and output) and process group:
    /// for a child that runs the user's own goals in the foreground. Killing it kills only it.
    pub fn terminal(mut self) -> Spawn {
        self.terminal = true;
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Spawn
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets the child's working directory and `TMPDIR`.
    pub(crate) fn current_dir(mut self, dir: &Path) -> Spawn {
        self.command.current_dir(dir).env("TMPDIR", dir);
        self
    }

    /// Where the child's standard error goes.
    pub(crate) fn stderr(mut self, stderr: Stderr) -> Spawn {
        self.stderr = stderr;
        self
    }

    /// Reads at most `cap` bytes of standard output.
    pub(crate) fn output_cap(mut self, cap: usize) -> Spawn {
        self.output_cap = cap;
        self
    }

    /// Reads frames of at most `cap` bytes.
    pub(crate) fn frame_cap(mut self, cap: usize) -> Spawn {
        self.frame_cap = cap;
        self
    }

    /// Starts the child: the leader of a new process group, with piped standard output, unless
    /// it shares the terminal.
    pub fn spawn(mut self) -> Result<Child, WorkerError> {
        let name = self.command.get_program().to_string_lossy().into_owned();
        if self.terminal {
            self.command
                .stdin(Stdio::inherit())
                .stdout(Stdio::inherit());
        } else {
            self.command
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
        }
        self.command.stderr(match self.stderr {
            Stderr::Inherit => Stdio::inherit(),
            Stderr::Capture => Stdio::piped(),
        });
        let mut child = self
            .command
            .spawn()
            .with_context(|| format!("starting {name}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err_reader = child.stderr.take().map(|e| {
            let kept = stderr.clone();
            std::thread::spawn(move || keep_start(e, &kept))
        });
        let (tx, lines) = mpsc::sync_channel(4);
        let (cap, frame_cap) = (self.output_cap, self.frame_cap);
        if let Some(out) = stdout {
            std::thread::spawn(move || read_lines(out, cap, frame_cap, &tx));
        }
        Ok(Child {
            group: !self.terminal,
            child,
            stdin,
            lines,
            stderr,
            err_reader,
            status: None,
            printed: Vec::new(),
            printed_len: 0,
            overflowed: false,
            last_at: None,
        })
    }
}

/// Keeps the first [`STDERR_CAP`] bytes of `from` in `kept`, and the last [`STDERR_CAP`] of
/// the rest after a line `...`: what a child says last (a panic's message) is kept too.
fn keep_start(mut from: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 8192];
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut skipped = false;
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        if let Ok(mut k) = kept.lock() {
            let room = STDERR_CAP.saturating_sub(k.len());
            k.extend_from_slice(&buf[..n.min(room)]);
            if n > room {
                tail.extend(&buf[room..n]);
                while tail.len() > STDERR_CAP {
                    tail.pop_front();
                    skipped = true;
                }
                // (the start, then the end so far)
                k.truncate(STDERR_CAP);
                k.extend_from_slice(if skipped { b"\n...\n" } else { b"" });
                k.extend(tail.iter());
            }
        }
    }
}

/// One line of a child's standard output, or why there are no more.
#[derive(Debug)]
enum Line {
    /// A line, without its newline; `complete` is false for the last one when the output
    /// ended without a newline (a frame cut short); `at`: when it was read.
    Text {
        text: String,
        complete: bool,
        at: Instant,
    },
    /// A frame longer than the cap, or more output in all than the cap.
    Overflow,
    Error,
}

/// Sends the lines of `from` (at most `cap` bytes in all) to `tx`: a frame of at most
/// `frame_cap` bytes whole, any other line cut at [`PRINTED_LINE_CAP`] (the rest is read away).
/// The channel is bounded, so a child that writes faster than the parent reads waits: the
/// parent's memory stays bounded whatever the child writes.
fn read_lines(from: impl Read, cap: usize, frame_cap: usize, tx: &mpsc::SyncSender<Line>) {
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    let mut total = 0usize;
    loop {
        let line = match read_line_capped(&mut reader, frame_cap, cap.saturating_sub(total)) {
            Ok(Some(l)) => l,
            Ok(None) => return,
            Err(_) => {
                let _ = tx.send(Line::Error);
                return;
            }
        };
        total = total.saturating_add(line.read);
        if total > cap || line.over {
            let _ = tx.send(Line::Overflow);
            return;
        }
        let text = String::from_utf8_lossy(&line.kept).into_owned();
        let complete = line.complete;
        let at = Instant::now();
        if tx.send(Line::Text { text, complete, at }).is_err() || !complete {
            return;
        }
    }
}

/// A line read by [`read_line_capped`].
struct CappedLine {
    /// Its first bytes (without the newline).
    kept: Vec<u8>,
    /// How many bytes were read, the newline included.
    read: usize,
    /// Whether it ended with a newline.
    complete: bool,
    /// A frame longer than the cap.
    over: bool,
}

/// Reads one line: a frame (a line that starts with [`FRAME`]) of at most `frame_cap` bytes
/// is kept whole, any other line up to [`PRINTED_LINE_CAP`] bytes; `None` at the end. A line
/// longer than `left` bytes in all is over (the rest is not read).
fn read_line_capped(
    reader: &mut impl BufRead,
    frame_cap: usize,
    left: usize,
) -> std::io::Result<Option<CappedLine>> {
    let mut line = CappedLine {
        kept: Vec::new(),
        read: 0,
        complete: false,
        over: false,
    };
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((line.read > 0).then_some(line));
        }
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        // (a line is a frame while its start is the start of FRAME)
        let head: Vec<u8> = line
            .kept
            .iter()
            .chain(chunk.iter())
            .take(FRAME.len())
            .copied()
            .collect();
        let limit = if FRAME.as_bytes().starts_with(&head) {
            frame_cap
        } else {
            PRINTED_LINE_CAP
        };
        let room = limit.saturating_sub(line.kept.len());
        line.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if limit == frame_cap && chunk.len() > room {
            line.over = true;
        }
        let used = chunk.len() + usize::from(newline);
        line.read = line.read.saturating_add(used);
        reader.consume(used);
        if line.read > left {
            line.over = true;
        }
        if line.over {
            return Ok(Some(line));
        }
        if newline {
            line.complete = true;
            return Ok(Some(line));
        }
    }
}

/// Serves the `exec` role: replaces this (already confined) process by the program
/// `KENKEN_EXEC` names, which keeps the confinement; returns only on failure.
pub(crate) fn exec_from_env() -> std::io::Error {
    let call: Vec<String> = match std::env::var(EXEC_VAR)
        .map_err(std::io::Error::other)
        .and_then(|t| serde_json::from_str(&t).map_err(std::io::Error::other))
    {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some((program, args)) = call.split_first() else {
        return std::io::Error::other("no program to run");
    };
    std::process::Command::new(program)
        .args(args)
        .env_remove(ROLE_VAR)
        .env_remove(EXEC_VAR)
        .env_remove(confine::CONFINE_VAR)
        .exec()
}

/// A request's id and nonce: a reply frame is the request's only when it carries both.
///
/// The id orders the requests of one child; the nonce (128 random bits, new for every request)
/// makes a frame impossible to forge for code in the child that never saw the request: the
/// child's own code reads the request before anything it runs can, and only it writes the
/// nonce back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ticket {
    id: u64,
    nonce: String,
}

impl Ticket {
    /// The ticket of request `id`, with a fresh nonce.
    pub(crate) fn new(id: u64) -> Ticket {
        Ticket {
            id,
            nonce: random_hex(),
        }
    }

    /// The request's id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The request's nonce (32 hexadecimal digits).
    pub(crate) fn nonce(&self) -> &str {
        &self.nonce
    }

    /// The line that carries `payload` (no newline in it) as this request.
    pub(crate) fn request_line(&self, payload: &str) -> String {
        format!("{} {} {payload}", self.id, self.nonce)
    }

    /// The request a line carries (the child's side): its ticket and payload.
    pub(crate) fn parse_request(line: &str) -> Option<(Ticket, &str)> {
        let mut parts = line.splitn(3, ' ');
        let id = parts.next()?.parse().ok()?;
        let nonce = parts.next()?;
        let payload = parts.next().unwrap_or("");
        Some((
            Ticket {
                id,
                nonce: nonce.to_string(),
            },
            payload,
        ))
    }

    /// The frame line (without its newline) that answers this request: `kind` is `part` or
    /// `done`, and `payload` must hold no newline (a JSON text holds none).
    pub(crate) fn frame(&self, kind: &str, payload: &str) -> String {
        format!("{FRAME}{} {} {kind} {payload}", self.id, self.nonce)
    }

    /// The part of a line of the child's output that is a frame of this request: `None` for a
    /// line that is not a frame (printed output), an error for a frame that is not this
    /// request's or is malformed.
    fn read(&self, line: &str) -> Option<Result<Reply, String>> {
        let rest = line.strip_prefix(FRAME)?;
        let mut parts = rest.splitn(4, ' ');
        let (id, nonce, kind) = (parts.next()?, parts.next()?, parts.next()?);
        let payload = parts.next().unwrap_or("").to_string();
        if nonce != self.nonce {
            return Some(Err(format!(
                "it wrote a reply frame that is not the current request's (id {}, nonce not \
                 the request's): forged, or out of step",
                shorten(id, 24)
            )));
        }
        if id.parse::<u64>().ok() != Some(self.id) {
            return Some(Err(format!(
                "it wrote a frame with the request's nonce and another id ({})",
                shorten(id, 24)
            )));
        }
        Some(match kind {
            "part" => Ok(Reply::Part(payload)),
            "done" => Ok(Reply::Done(payload)),
            other => Err(format!(
                "it wrote a frame of unknown kind {:?}",
                shorten(other, 24)
            )),
        })
    }
}

/// The first `max` characters of `text`, with `...` when it was longer.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// 128 random bits as 32 hexadecimal digits, from the kernel's generator (or, should it be
/// unreadable, from the randomly keyed hasher the standard library seeds from it).
pub(crate) fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u128(Instant::now().elapsed().as_nanos());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What [`Child::recv`] got.
#[derive(Debug)]
pub(crate) enum Recv {
    /// A line of standard output (without its newline).
    Line(String),
    /// The last line of standard output, which ended without a newline.
    Cut(String),
    /// The deadline passed first (the child still runs).
    Timeout,
    /// Standard output ended: the child ended (its group is killed and it is reaped), or its
    /// output passed the cap (then it is killed).
    Ended,
}

/// A running child process and its process group, killed when dropped.
pub struct Child {
    /// Whether the child leads a process group of its own (killed with it).
    group: bool,
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<Vec<u8>>>,
    err_reader: Option<std::thread::JoinHandle<()>>,
    status: Option<ExitStatus>,
    /// What the child printed (lines that are not frames), at most [`PRINTED_CAP`] bytes.
    printed: Vec<String>,
    printed_len: usize,
    /// Its output passed a cap (it was killed).
    overflowed: bool,
    /// When the last line received was read from the pipe.
    last_at: Option<Instant>,
}

impl Child {
    /// The child's process id.
    pub(crate) fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes `line` and a newline to the child's standard input.
    pub(crate) fn send(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the child has no standard input"))?;
        writeln!(stdin, "{line}")?;
        stdin.flush()
    }

    /// When the last line [`Child::recv`] (or [`Child::next_reply`]) returned was read from the
    /// child's output: this process's clock, as close to the child's writing it as a reader
    /// can be.
    pub(crate) fn last_read_at(&self) -> Option<Instant> {
        self.last_at
    }

    /// Closes the child's standard input (it reads the end of it from now on).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line of standard output, waiting until `deadline` at most.
    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Recv {
        loop {
            let slice = Duration::from_millis(50);
            let wait = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()).min(slice),
                None => slice,
            };
            match self.lines.recv_timeout(wait) {
                Ok(Line::Text { text, complete, at }) => {
                    self.last_at = Some(at);
                    return if complete {
                        Recv::Line(text)
                    } else {
                        Recv::Cut(text)
                    };
                }
                Ok(Line::Overflow) => {
                    self.overflowed = true;
                    self.kill();
                    return Recv::Ended;
                }
                Ok(Line::Error) | Err(RecvTimeoutError::Disconnected) => {
                    self.kill();
                    return Recv::Ended;
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if self.status.is_none() {
                if let Ok(Some(s)) = self.child.try_wait() {
                    // the leader ended: what it wrote is in the pipe, which the rest of its
                    // group may hold open; they go, and what is left is read
                    self.status = Some(s);
                    self.kill_group();
                    return match self.lines.recv_timeout(DRAIN) {
                        Ok(Line::Text { text, complete, at }) => {
                            self.last_at = Some(at);
                            if complete {
                                Recv::Line(text)
                            } else {
                                Recv::Cut(text)
                            }
                        }
                        _ => Recv::Ended,
                    };
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Recv::Timeout;
            }
        }
    }

    /// The next frame of the reply to the request of `ticket`, waiting until `deadline` at
    /// most: a part, the reply, or the deadline (the child then runs on). Lines that are not
    /// frames are kept as printed output ([`Child::printed`]). A frame that is not this
    /// request's, malformed or cut short, or output past the caps, ends the child: an error.
    pub(crate) fn next_reply(
        &mut self,
        ticket: &Ticket,
        deadline: Option<Instant>,
    ) -> Result<Reply, WorkerError> {
        loop {
            match self.recv(deadline) {
                Recv::Line(l) => match ticket.read(&l) {
                    None => self.keep_printed(l),
                    Some(Ok(reply)) => return Ok(reply),
                    Some(Err(why)) => {
                        self.kill();
                        return Err(WorkerError::BadFrame(why));
                    }
                },
                Recv::Cut(l) => {
                    if l.starts_with(FRAME) {
                        self.kill();
                        return Err(WorkerError::BadFrame(
                            "its reply was cut short (the output ended within a frame)".into(),
                        ));
                    }
                    self.keep_printed(l);
                }
                Recv::Timeout => return Ok(Reply::Timeout),
                Recv::Ended => {
                    if self.overflowed {
                        return Err(WorkerError::BadFrame(
                            "it wrote more than the judge reads (a frame over the cap, or \
                             more output in all than the cap): it was stopped"
                                .into(),
                        ));
                    }
                    return Err(self.died());
                }
            }
        }
    }

    fn keep_printed(&mut self, line: String) {
        if self.printed_len < PRINTED_CAP {
            self.printed_len += line.len() + 1;
            self.printed.push(line);
        }
    }

    /// What the child printed so far (lines of its standard output that were not frames), at
    /// most [`PRINTED_CAP`] bytes; taking it empties it.
    pub(crate) fn take_printed(&mut self) -> Vec<String> {
        self.printed_len = 0;
        std::mem::take(&mut self.printed)
    }

    /// Every remaining line until the child ends or `deadline` passes (then it is killed):
    /// the lines, and whether it ended by itself.
    pub(crate) fn collect(&mut self, deadline: Instant) -> (Vec<String>, bool) {
        let mut lines = Vec::new();
        loop {
            match self.recv(Some(deadline)) {
                Recv::Line(l) | Recv::Cut(l) => lines.push(l),
                Recv::Ended => return (lines, true),
                Recv::Timeout => {
                    self.kill();
                    return (lines, false);
                }
            }
        }
    }

    /// Whether the child has ended (without waiting).
    pub fn has_ended(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status.is_some()
    }

    /// How the child ended, once it has (waiting for it).
    pub fn wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.wait().ok();
        }
        self.status
    }

    /// What the child wrote to standard error (its start, when captured), once it ended.
    pub(crate) fn stderr_text(&mut self) -> String {
        if self.status.is_some() {
            if let Some(h) = self.err_reader.take() {
                let _ = h.join();
            }
        }
        self.stderr
            .lock()
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .unwrap_or_default()
    }

    /// The error that says the child died, with how and (if captured) its last words.
    pub(crate) fn died(&mut self) -> WorkerError {
        let status = self.wait().map_or_else(|| "unknown".into(), status_text);
        let stderr = self.stderr_text();
        if let Some(why) = stderr.lines().find_map(|l| l.strip_prefix(CANNOT_CONFINE)) {
            return WorkerError::Confine(why.to_string());
        }
        WorkerError::Died { status, stderr }
    }

    fn kill_group(&self) {
        if !self.group {
            return;
        }
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }

    /// Kills the child and every process of its group, and reaps the child.
    pub fn kill(&mut self) {
        if self.status.is_none() {
            self.kill_group();
            let _ = self.child.kill();
        } else {
            // (the group may outlive its leader)
            self.kill_group();
        }
        self.wait();
        self.stdin = None;
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How an exit status reads in a message: `exit status 1`, `killed by SIGKILL`.
pub(crate) fn status_text(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => match Signal::try_from(sig) {
            Ok(signal) => format!("killed by {}", signal.as_str()),
            Err(_) => format!("killed by signal {sig}"),
        },
        _ => s.to_string(),
    }
}

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
    /// Whether a spare is kept ([`Worker::with_spare`]).
    keep_spare: bool,
    /// The spare child (started, ready or not), and whether it said it is ready.
    spare: Option<(Child, bool)>,
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
            keep_spare: false,
            spare: None,
        }
    }

    /// A worker that confines itself with `confinement` (when given) before it serves, working
    /// in `dir`; its standard error is captured (what it says of a crash is part of the error).
    pub(crate) fn confined(role: &str, confinement: Option<Confinement>, dir: &Path) -> Worker {
        Worker {
            role: role.to_string(),
            confinement,
            dir: Some(dir.to_path_buf()),
            stderr: Stderr::Capture,
            running: None,
            ready: false,
            last_id: 0,
            current: None,
            env: Vec::new(),
            keep_spare: false,
            spare: None,
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

    /// This worker, its standard error captured (the start and the end of it are kept: see
    /// [`WorkerError::Died`]).
    pub(crate) fn capture_stderr(mut self) -> Worker {
        self.stderr = Stderr::Capture;
        self
    }

    /// This worker, its child started with the environment variable `key` set to `value`.
    pub(crate) fn with_env(mut self, key: &str, value: &str) -> Worker {
        self.env.push((key.to_string(), value.to_string()));
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
        let mut spawn = Spawn::worker(&self.role)?.stderr(self.stderr);
        for (k, v) in &self.env {
            spawn = spawn.env(k, v);
        }
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
        self.running = None;
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
        let (Some(child), Some(ticket)) = (self.running.as_mut(), self.current.as_ref()) else {
            return Err(WorkerError::Protocol("no request is running".into()));
        };
        match child.next_reply(ticket, deadline) {
            Ok(Reply::Done(d)) => {
                self.current = None;
                Ok(Reply::Done(d))
            }
            Ok(Reply::Part(p)) => Ok(Reply::Part(p)),
            Ok(Reply::Timeout) => {
                self.stop();
                Ok(Reply::Timeout)
            }
            Err(e) => {
                self.stop();
                Err(e)
            }
        }
    }

    /// Sends one request line and waits for the reply line, skipping parts; `Ok(None)` when
    /// `deadline` passed first (starting the child counts).
    pub(crate) fn request(
        &mut self,
        line: &str,
        deadline: Option<Instant>,
    ) -> Result<Option<String>, WorkerError> {
        if !self.send(line, deadline)? {
            return Ok(None);
        }
        loop {
            match self.next(deadline)? {
                Reply::Part(_) => {}
                Reply::Done(reply) => return Ok(Some(reply)),
                Reply::Timeout => return Ok(None),
            }
        }
    }
}

/// A line of a worker's reply ([`Worker::next`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// A part of the reply, sent as soon as the worker had it.
    Part(String),
    /// The reply: the request is done.
    Done(String),
    /// The deadline passed first.
    Timeout,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Child {
        Spawn::program(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .stderr(Stderr::Capture)
            .spawn()
            .unwrap()
    }

    #[test]
    fn lines_come_in_order_and_the_end_is_seen() {
        let mut c = sh("echo one; echo two >&2; printf 'three'");
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(10));
        assert!(ended);
        assert_eq!(lines, vec!["one", "three"]);
        assert_eq!(c.wait().and_then(|s| s.code()), Some(0));
        assert_eq!(c.stderr_text(), "two\n");
    }

    #[test]
    fn a_background_process_holding_the_pipe_does_not_hold_the_parent() {
        let start = Instant::now();
        let mut c = sh("sleep 30 & echo started");
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(20));
        assert!(ended);
        assert_eq!(lines, vec!["started"]);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_deadline_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let mut c = sh(&format!("sleep 30 & echo $! > {}; wait", pidfile.display()));
        let (lines, ended) = c.collect(Instant::now() + Duration::from_millis(500));
        assert!(!ended && lines.is_empty());
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // the background sleep was killed with its group (a zombie until init reaps it at most)
        std::thread::sleep(Duration::from_millis(200));
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z "), "{state}");
    }

    #[test]
    fn output_past_the_cap_ends_the_child() {
        let mut c = Spawn::program(Path::new("/bin/sh"), &["-c".into(), "yes".into()])
            .output_cap(1 << 16)
            .spawn()
            .unwrap();
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(10));
        assert!(ended);
        assert!(lines.len() <= 1 << 15);
    }

    #[test]
    fn a_program_that_never_called_init_starts_no_worker() {
        // this test program never calls worker::init nor names another program: no child is
        // started (it would run this program's main again), and the error says what to do
        let e = Spawn::worker("query").err().expect("a worker spawn");
        assert!(
            e.to_string()
                .contains("call kenken::worker::init() first thing in main"),
            "{e}"
        );
    }

    /// A child that runs `script` with `$N` the ticket's nonce, and the ticket.
    fn replying(script: &str, cap: usize) -> (Child, Ticket) {
        let ticket = Ticket::new(7);
        let script = script.replace("$N", ticket.nonce());
        let child = Spawn::program(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .stderr(Stderr::Capture)
            .frame_cap(cap)
            .spawn()
            .unwrap();
        (child, ticket)
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(20))
    }

    #[test]
    fn only_the_requests_frames_are_its_reply_and_the_rest_is_printed_output() {
        let (mut c, t) = replying(
            "echo 'kenken-reply {\"forged\":1}'; echo 'kenken-frame 7 $N part [1]'; \
             printf 'printed '; echo 'text'; echo 'kenken-frame 7 $N done {\"ok\":true}'",
            FRAME_CAP,
        );
        assert_eq!(c.next_reply(&t, soon()), Ok(Reply::Part("[1]".into())));
        assert_eq!(
            c.next_reply(&t, soon()),
            Ok(Reply::Done("{\"ok\":true}".into()))
        );
        assert_eq!(
            c.take_printed(),
            vec!["kenken-reply {\"forged\":1}", "printed text"]
        );
    }

    #[test]
    fn a_forged_an_out_of_step_or_a_cut_short_frame_ends_the_child() {
        for (script, says) in [
            // a guessed nonce
            (
                "echo 'kenken-frame 7 00000000000000000000000000000000 done {}'; sleep 30",
                "not the current request's",
            ),
            // the nonce with another id (a reply for another request)
            ("echo 'kenken-frame 6 $N done {}'; sleep 30", "another id"),
            (
                "echo 'kenken-frame 7 $N later {}'; sleep 30",
                "unknown kind",
            ),
            ("printf 'kenken-frame 7 $N done {\"cut'", "cut short"),
        ] {
            let (mut c, t) = replying(script, FRAME_CAP);
            match c.next_reply(&t, soon()) {
                Err(WorkerError::BadFrame(why)) => assert!(why.contains(says), "{script}: {why}"),
                other => panic!("{script}: {other:?}"),
            }
            // (killed: it does not sleep on)
            assert!(c.has_ended(), "{script}");
        }
    }

    #[test]
    fn what_a_child_writes_costs_the_parent_a_bounded_buffer() {
        // an endless line that is not a frame: kept to its first bytes, read away after
        let (mut c, t) = replying("head -c 50000000 /dev/zero | tr '\\0' x; echo", FRAME_CAP);
        match c.next_reply(&t, soon()) {
            Err(WorkerError::Died { .. }) => {}
            other => panic!("{other:?}"),
        }
        let printed = c.take_printed();
        assert_eq!(printed.len(), 1);
        assert_eq!(printed[0].len(), PRINTED_LINE_CAP);
        // a frame over the cap: the child is stopped
        let (mut c, t) = replying(
            "printf 'kenken-frame 7 $N part '; head -c 5000000 /dev/zero | tr '\\0' x; echo",
            1 << 20,
        );
        match c.next_reply(&t, soon()) {
            Err(WorkerError::BadFrame(why)) => assert!(why.contains("over the cap"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_end_of_a_long_stderr_is_kept_with_its_start() {
        // Regression (#36): only the first 64 KiB were kept, and a panic's message comes last.
        let mut c = sh(
            "echo first >&2; head -c 200000 /dev/zero | tr '\\0' x >&2; \
                        echo >&2; echo 'the last words' >&2; exit 3",
        );
        c.collect(Instant::now() + Duration::from_secs(20));
        let err = c.stderr_text();
        assert!(err.starts_with("first\n"), "{}", &err[..20]);
        assert!(
            err.ends_with("the last words\n"),
            "{}",
            &err[err.len() - 20..]
        );
        assert!(err.len() <= 2 * STDERR_CAP + 5, "{}", err.len());
        assert!(c.died().to_string().ends_with("the last words"));
    }

    #[test]
    fn nonces_differ() {
        let (a, b) = (Ticket::new(1), Ticket::new(1));
        assert_ne!(a.nonce(), b.nonce());
        assert_eq!(a.nonce().len(), 32);
        assert!(a.nonce().chars().all(|c| c.is_ascii_hexdigit()));
        let line = a.request_line("{\"x\":1}");
        assert_eq!(Ticket::parse_request(&line), Some((a.clone(), "{\"x\":1}")));
        assert_eq!(Ticket::parse_request("no id"), None);
    }

    #[test]
    fn exit_statuses_read_well() {
        let mut c = sh("kill -9 $$");
        c.collect(Instant::now() + Duration::from_secs(10));
        assert_eq!(
            c.wait().map(status_text).as_deref(),
            Some("killed by SIGKILL")
        );
        assert_eq!(
            c.died().to_string(),
            "the process stopped (killed by SIGKILL)"
        );
    }
}
