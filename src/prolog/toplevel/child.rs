//! The child process side: the `toplevel` worker role, serving a [`TopProcess`](super::TopProcess) parent over
//! two named pipes.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::engine::{quiet_panics, Toplevel};
use super::relay::{relay, RELAY_VAR};
use super::{limit_memory, Mode, Setup, TopResult};

/// The environment variable that gives the child top level its two pipes and setup.
pub(super) const TOP_VAR: &str = "KENKEN_TOPLEVEL";

#[derive(Serialize, Deserialize)]
pub(super) struct ChildSetup {
    pub(super) to_child: PathBuf,
    pub(super) from_child: PathBuf,
    pub(super) setup: Setup,
    /// The named pipe where the parent feeds the goals their input (see [`PipedInput`](super::PipedInput)).
    pub(super) feed: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
pub(super) enum Request {
    Goal(String, bool),
    Restore(String),
}

/// What the child tells its parent: `Ready` with its engine's CPU offset (the session's CPU
/// time is its process's plus this, in milliseconds) and the names of the predicates it sees;
/// `Done` with the goal's end, the state after it (when asked for), the session's inferences,
/// the names of the predicates it sees then, and whether its engine has `kenken.pl` (a file
/// the goal consulted may have replaced it).
#[derive(Serialize, Deserialize)]
pub(super) enum Reply {
    Ready(i64, Vec<String>),
    Done(TopResult, Option<String>, Option<u64>, Vec<String>, bool),
    Failed(String),
}

/// The `toplevel` worker role: serves a [`TopProcess`](super::TopProcess) parent until it goes away (or its
/// engine failed: the parent starts another).
pub(crate) fn serve_child() -> std::io::Result<()> {
    if std::env::var_os(RELAY_VAR).is_some() {
        return relay();
    }
    quiet_panics();
    let setup: ChildSetup = serde_json::from_str(&std::env::var(TOP_VAR).unwrap_or_default())
        .map_err(std::io::Error::other)?;
    if let Some(m) = setup.setup.memory {
        limit_memory(m).map_err(std::io::Error::other)?;
    }
    let requests = BufReader::new(std::fs::File::open(&setup.to_child)?);
    let mut replies = std::fs::OpenOptions::new()
        .write(true)
        .open(&setup.from_child)?;
    let mut send = |r: &Reply| -> std::io::Result<()> {
        let line = serde_json::to_string(r).map_err(std::io::Error::other)?;
        writeln!(replies, "{line}")?;
        replies.flush()
    };
    let mut top = Toplevel::new(!setup.setup.loads_kenken());
    if let Some(fifo) = &setup.feed {
        top.feed_from(fifo).map_err(std::io::Error::other)?;
    }
    for f in &setup.setup.consult {
        // (a file that halts ends the session before it starts, with its code)
        if let Ok(TopResult::Halt(n)) = top.consult(f) {
            return send(&Reply::Done(
                TopResult::Halt(n),
                None,
                None,
                Vec::new(),
                top.has_kenken(),
            ));
        }
    }
    let (cpu_offset, _) = top.clocks().unwrap_or((0, 0));
    send(&Reply::Ready(cpu_offset, top.names().unwrap_or_default()))?;
    let ask = Mode::Ask(setup.to_child.clone(), setup.from_child.clone());
    for line in requests.lines() {
        let line = line?;
        let (reply, failed) = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Goal(g, keep_state)) => match top.run(&g, &ask) {
                Ok(r) => {
                    let state = if keep_state { top.state().ok() } else { None };
                    let inferences = top.clocks().ok().map(|(_, i)| i);
                    let names = top.names().unwrap_or_default();
                    let kenken = top.has_kenken();
                    (Reply::Done(r, state, inferences, names, kenken), false)
                }
                Err(e) => (Reply::Failed(e.to_string()), true),
            },
            Ok(Request::Restore(g)) => match top.restore(&g) {
                Ok(()) => (
                    Reply::Done(
                        TopResult::True,
                        None,
                        None,
                        top.names().unwrap_or_default(),
                        top.has_kenken(),
                    ),
                    false,
                ),
                Err(e) => (Reply::Failed(e.to_string()), true),
            },
            Err(e) => (Reply::Failed(e.to_string()), false),
        };
        send(&reply)?;
        if failed {
            break;
        }
    }
    Ok(())
}
