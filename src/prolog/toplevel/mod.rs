//! The Prolog top level behind `kenken query` and `kenken repl`.
//!
//! A [`Toplevel`] is one Scryer `Machine` whose `user_output` and `user_error` are the real
//! standard output and error, running each goal through the Prolog-side loop `kk_top/3`
//! (`prolog/host/`): answers are printed as they are found, in order with whatever the goal
//! prints itself, and the next answer is asked of the goal that is already running (by
//! backtracking into it), so side effects happen once per answer.
//!
//! Scryer cannot be interrupted from outside, so `kenken repl` and `kenken query` run the engine
//! in a child process, a [`TopProcess`]: the program itself started as the `toplevel` worker of
//! the process layer ([`crate::process`]), sharing the terminal (the goals read and write it),
//! and speaking the layer's protocol on a channel that is not the terminal (two named pipes):
//! each request with a ticket (an id and a fresh nonce), each line of its reply a frame that
//! carries it back, read by the layer's one reader with its caps; the engine's questions within
//! a goal ("which key?", the input fed to it) are parts of the reply, answered with the
//! request's ticket (`child.rs`). The child loads while the user types its first goal. Ctrl-C, a timeout or a failure of the engine ends that child; at the next goal a
//! fresh one is started and given the session's state back, as it was after the last goal that
//! ended: the modules imported, operators and flags changed, files consulted, every clause of
//! every dynamic predicate and the values of bb_put/2 (`kk_state/1` in `prolog/host/state.pl`).
//!
//! Answers start on a line of their own (`FRESH_LINE`), goals are cut where a Prolog reader
//! ends them ([`split_goals`]), a goal that reads (`read/1`, `get_char/1`, `[user]`, or a
//! consulted predicate that does) reads standard input through a relay process while it runs
//! (Scryer's own `user_input` reads nothing without its line editor; in `query` one relay
//! serves every goal, in turn; in a piped repl the parent feeds each goal the input after it,
//! and takes back what it did not read: [`PipedInput`]), reading past the end of the input
//! gives `end_of_file`, and a goal Scryer panics on is told as an error. The host's rewriting
//! of goals (`halt/0,1`, `bb_put/2` keys, `read/1` at the end of the input, imports replayed)
//! is done once, on the goal typed and on consulted files as they load, never as a
//! `goal_expansion/2` that Scryer would run inside `kenken.pl`'s meta-calls (`docs/toplevel.md`).
//!
//! What happened is said as a Prolog user expects (issue 37): an uncaught exception is written
//! as Scryer's top level writes it (`throw(true)`, never `true.`); `halt/0,1` ends the session
//! wherever it is called (the engine's own would only fail: `prolog/host/` turns it into an
//! exception the host obeys); a consulted file that defines one of the homework's predicates
//! replaces `kenken.pl` wholly ([`Setup::loads_kenken`]); the engine's process has a memory
//! bound ([`Setup::memory`], [`limit_memory`]), reaching which is a resource error after which
//! a fresh engine gets the state back; a message after a goal that was stopped starts on a
//! line of its own (the child says, as a part of its reply, whether its output ends a line);
//! and `statistics/2` goes on across restarts (`Clocks`).

use std::path::PathBuf;

use crate::error::Context;

use serde::{Deserialize, Serialize};

use super::PrologError;

mod child;
mod clocks;
mod engine;
mod feed;
mod homework;
mod interrupt;
mod output;
mod relay;
mod session;

// (a leaf module of its own, shared with the query API)
use super::goals;

pub(crate) use child::serve_child;
pub use engine::{quiet_panics, Toplevel};
pub use feed::{Got, PipedInput};
pub use goals::{needs_kenken, split_goals, Goals};
pub use homework::homework_defined;
pub(crate) use interrupt::block_interrupt;
pub use session::{CtrlC, Ended, Key, TopProcess, GRACE};

/// How a top-level goal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TopResult {
    /// At least one answer was shown.
    True,
    /// No answer: `false.` was shown.
    False,
    /// A syntax error or an uncaught exception (shown).
    Error,
    /// The answer limit was reached with more answers perhaps to come.
    Limit,
    /// `halt/0,1` was called with this exit code.
    Halt(i32),
    /// The engine's heap could not grow (the memory bound, [`Setup::memory`], was reached):
    /// the goal was stopped, nothing shown. The engine keeps what it took: it is best replaced.
    OutOfMemory,
    /// The goal consulted a file, whose name it built as it ran, that defines one of the
    /// homework's predicates: it was stopped there (and said so), and `kenken.pl` unloaded:
    /// the engine now is one without it, with the session's state, that file among its files.
    /// (A goal that names such a file in its text is run in such an engine from the start:
    /// its own result is given.)
    Replaced,
}

/// How the top level goes on after an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Every answer, at most this many, separated by ` ;`.
    Batch(usize),
    /// Ask the host after each answer: `next`, `all`, `stop`, ... (see [`TopProcess`]: the
    /// engine's host is its parent, asked through the process layer's frames).
    Ask,
}

/// What a top level starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Leave `kenken.pl` out (faster start, only Scryer's builtins and the top level).
    pub no_kenken: bool,
    /// Files to consult, in order.
    pub consult: Vec<PathBuf>,
    /// The memory the engine's process may take besides what it had before its engine was
    /// built (its stacks reserved, the program), in bytes (`--memory`); `None`: no bound.
    #[serde(default)]
    pub memory: Option<u64>,
}

/// Bounds this process's address space (`RLIMIT_AS`) to what it has now plus `bytes`: past
/// that an allocation fails and the process aborts (`SIGABRT`), which the parent tells as a
/// resource error ([`Ended::OutOfMemory`]). For the processes that run a top level's engine,
/// before they build it.
pub fn limit_memory(bytes: u64) -> Result<(), PrologError> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    // (VmSize: the address space taken now, in kB)
    let now = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0)
        .saturating_mul(1024);
    let (_, hard) = getrlimit(Resource::RLIMIT_AS)
        .map_err(std::io::Error::from)
        .context("reading the memory limit")?;
    let limit = bytes.saturating_add(now).min(hard);
    setrlimit(Resource::RLIMIT_AS, limit, hard)
        .map_err(std::io::Error::from)
        .context("bounding the top level's memory")?;
    Ok(())
}

impl Setup {
    /// Whether the engine loads `kenken.pl`: not with `no_kenken`, nor when a file to consult
    /// defines one of the homework's solvers ([`homework_defined`]): a student's own
    /// `kenken.pl` answers alone, a predicate it lacks is an existence error (as in SWI-Prolog
    /// and GNU Prolog), never ours.
    pub fn loads_kenken(&self) -> bool {
        !self.no_kenken && !self.consult.iter().any(|f| homework_defined(f).is_some())
    }
}
