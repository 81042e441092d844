//! The process layer: every child process the program starts goes through here (Prolog
//! workers, the top level's child, judged Scryer engines, GNU Prolog).
//!
//! It owns spawning (each child leads a process group of its own), line I/O with deadlines,
//! reading output with a cap, killing the whole process group (not only the child) and reaping,
//! and (for code we did not write) confinement and limits ([`Confinement`], [`Limits`]). It imports nothing
//! above it: the table of worker roles lives at the top, in [`crate::worker::init`].
//!
//! Every child has one lifecycle (`lifecycle.rs`, `docs/processes.md`): it is started by one
//! long-lived thread, dies with its parent however the parent ends, and is killed with its
//! group when dropped.
//!
//! A worker is this program started again with the environment variable `KENKEN_WORKER` naming
//! its role; `Worker` is the parent's side of one (start, request, reply, answer a question
//! the child asks within a request, kill, restart) and `Channel` the child's. Every worker, the
//! top level's engine included, speaks one protocol (`docs/processes.md`): requests with a
//! `Ticket` (an id and a fresh nonce), replies as frames that carry it back, read by one
//! reader with one cap, on the child's standard input and output or, for a child that keeps
//! the terminal, on two named pipes (`channel.rs`).
//!
//! By concern: `spawn.rs` (how to start a child: program, worker role, environment,
//! confinement), `lifecycle.rs` (the one place that builds and starts processes),
//! `lines.rs` (reading a child's output within caps), `frame.rs` (tickets and reply frames),
//! `channel.rs` (what requests and frames go through: standard input and output, or two named
//! pipes for a child that keeps the terminal),
//! `child.rs` (a running child and its process group), `worker.rs` (the parent's side of a
//! worker, with a warm spare) and `confine.rs` (confinement and limits).

pub(crate) mod confine;
pub(crate) mod lifecycle;

mod channel;
mod child;
mod frame;
mod lines;
mod spawn;
mod temp;
mod worker;

pub use child::Child;
pub use confine::{Confinement, Limits};
pub use spawn::{set_program, Spawn};
pub use temp::{remove_temporary_folders, TempFolder};

pub(crate) use channel::{read_request, Channel};
pub(crate) use child::status_text;
pub(crate) use frame::{random_hex, Reply, Ticket};
pub(crate) use lifecycle::exec_from_env;
pub(crate) use spawn::{find_program, init_called, worker_program, Stderr};
pub(crate) use worker::Worker;

use crate::error::{IoError, JsonError};

/// The environment variable that names a child's role.
pub(crate) const ROLE_VAR: &str = "KENKEN_WORKER";
/// The environment variable that names the program an `exec` child runs (with the child's own
/// arguments).
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
/// The longest frame a child may send by default; past it the child is killed.
pub(crate) const FRAME_CAP: usize = 256 << 20;
/// The prefix of the line a child prints when it cannot confine itself, then exits.
pub(crate) const CANNOT_CONFINE: &str = "kenken-cannot-confine ";
/// At most this much of a child's standard error is kept.
const STDERR_CAP: usize = 64 * 1024;

/// Answers one request line of a worker with one reply line; it may send parts of its reply
/// first, each as soon as it has it, through the function it is given.
pub(crate) type Handler = Box<dyn FnMut(&str, &mut dyn FnMut(&str)) -> String>;

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
