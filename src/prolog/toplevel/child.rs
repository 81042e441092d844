//! The child process side: the `toplevel` worker role, serving a
//! [`TopProcess`](super::TopProcess) parent on the process layer's channel (two named pipes:
//! the child keeps the terminal as its standard input and output).
//!
//! The protocol is the process layer's: each request carries a ticket (an id and a fresh
//! nonce) and every line of its reply is a frame with that ticket; a goal's questions to the
//! parent (which key after an answer; the input fed to it) are `part` frames, and the parent's
//! answers come back as lines with the same ticket, checked as requests are. The payloads are
//! JSON: [`Request`] and [`Answer`] one way, [`Part`] and [`Reply`] the other.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::engine::{quiet_panics, Toplevel};
use super::interrupt::Installing;
use super::output::Host;
use super::relay::{relay, RELAY_VAR};
use super::{limit_memory, Mode, Setup, TopResult};
use crate::process::{read_request, Channel, Ticket};

/// The environment variable that gives the child top level its setup.
pub(super) const TOP_VAR: &str = "KENKEN_TOPLEVEL";

/// The stack of the engine's thread: Scryer recurses deeply on big terms.
const STACK: usize = 1 << 30;

#[derive(Serialize, Deserialize)]
pub(super) struct ChildSetup {
    pub(super) setup: Setup,
    /// The named pipe where the parent feeds the goals their input (see
    /// [`PipedInput`](super::PipedInput)).
    pub(super) feed: Option<std::path::PathBuf>,
    /// The parent's private directory where the engine keeps a copy of each file it
    /// consults, as loaded (a fresh engine loads the copies again).
    pub(super) scratch: std::path::PathBuf,
}

/// What the parent asks.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Request {
    /// Whether the engine is loaded (and the files of the setup consulted): [`Reply::Started`].
    Start,
    /// Run a goal in a mode; with `report`, the reply carries the session's state and names.
    Goal {
        goal: String,
        mode: Mode,
        report: bool,
    },
    /// Restore a state ([`Toplevel::state`]).
    Restore(String),
}

/// What the child says within a request, before its reply.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Part {
    /// Whether what the engine showed last ends a line (said when it changes): a parent that
    /// kills the child starts its message on a line of its own.
    Line(bool),
    /// A question of the engine's Prolog side (`kk_host/2` in `prolog/host/input.pl`):
    /// `ask` (which key after an answer: `next`, `all`, ...), `drain` (stop feeding the
    /// input: `fed`), `left ...` (the input the goal did not read, as character codes: `ok`).
    /// The parent answers with an [`Answer`].
    Ask(String),
    /// The goal has stopped (by itself, or interrupted): what is left of the request is the
    /// host's own work (the state, the names).
    Stopped,
    /// The engine is loaded (the first [`Request::Start`]'s part): the setup's files are
    /// consulted next. A query's `--timeout` counts from here, not the engine's own start.
    Loaded,
}

/// The parent's answer to a [`Part::Ask`].
pub(super) type Answer = String;

/// What the child replies to a request.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Reply {
    /// The engine is loaded: its CPU offset (the session's CPU time is its process's plus
    /// this, in milliseconds), the names of the predicates it sees, and whether a file of the
    /// setup did not load.
    Started {
        cpu_offset: i64,
        names: Vec<String>,
        consult_failed: bool,
    },
    /// A goal's end, the state after it (when asked for), the session's inferences, the names
    /// of the predicates it sees then, and whether its engine has `kenken.pl` (a file the goal
    /// consulted may have replaced it).
    Done {
        result: TopResult,
        /// An interrupt stopped the goal, in place (`interrupt.rs`): what it did stays.
        #[serde(default)]
        interrupted: bool,
        state: Option<String>,
        inferences: Option<u64>,
        names: Vec<String>,
        kenken: bool,
    },
    /// The engine failed: this child serves no more.
    Failed(String),
}

/// The child's channel, shared by its loop (requests and replies) and its engine's output
/// (questions, and whether the output ends a line).
struct Link {
    /// Frames out; the request that runs.
    out: Mutex<Out>,
    /// Requests, and the answers within one.
    requests: Mutex<Box<dyn std::io::BufRead + Send>>,
}

struct Out {
    replies: Box<dyn std::io::Write + Send>,
    current: Option<Ticket>,
    /// Whether the output ends a line, and what the parent was told of it.
    line: bool,
    told: bool,
}

impl Out {
    fn frame(&mut self, kind: &str, payload: &str) -> std::io::Result<()> {
        let Some(t) = &self.current else {
            return Ok(());
        };
        let line = t.frame(kind, payload);
        writeln!(self.replies, "{line}")?;
        self.replies.flush()
    }

    fn part(&mut self, part: &Part) -> std::io::Result<()> {
        let text = serde_json::to_string(part).map_err(std::io::Error::other)?;
        self.frame("part", &text)
    }

    /// Tells the parent whether the output ends a line, if that changed since it was told.
    fn tell_line(&mut self) {
        if self.line != self.told && self.current.is_some() {
            let line = self.line;
            if self.part(&Part::Line(line)).is_ok() {
                self.told = line;
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Link {
    /// The next request (its ticket made current); `None` at the end.
    fn next_request(&self) -> std::io::Result<Option<String>> {
        let got = {
            let mut requests = lock(&self.requests);
            read_request(&mut **requests)?
        };
        let Some((ticket, payload)) = got else {
            return Ok(None);
        };
        let mut out = lock(&self.out);
        out.current = Some(ticket);
        out.tell_line();
        Ok(Some(payload))
    }

    /// Sends a part of the reply to the current request.
    fn tell(&self, part: &Part) -> std::io::Result<()> {
        let mut out = lock(&self.out);
        out.tell_line();
        out.part(part)
    }

    /// Replies to the current request (which is then over).
    fn reply(&self, reply: &Reply) -> std::io::Result<()> {
        let text = serde_json::to_string(reply).map_err(std::io::Error::other)?;
        let mut out = lock(&self.out);
        out.tell_line();
        out.frame("done", &text)?;
        out.current = None;
        Ok(())
    }
}

/// The engine's side of the link: its questions, and whether its output ends a line.
struct Asker(Arc<Link>);

impl Host for Asker {
    fn ask(&mut self, question: &str) -> Option<String> {
        let ticket = {
            let mut out = lock(&self.0.out);
            out.tell_line();
            out.part(&Part::Ask(question.to_string())).ok()?;
            out.current.clone()?
        };
        // (the answer carries the request's ticket: anything else is not the parent's)
        let got = read_request(&mut **lock(&self.0.requests)).ok()??;
        if got.0 != ticket {
            return None;
        }
        serde_json::from_str::<Answer>(&got.1).ok()
    }

    fn line(&mut self, ends: bool) {
        let mut out = lock(&self.0.out);
        out.line = ends;
        out.tell_line();
    }
}

/// The `toplevel` worker role: serves a [`TopProcess`](super::TopProcess) parent until it goes
/// away (or its engine failed: the parent starts another). Also the relay of standard input,
/// when started as one (`relay.rs`).
pub(crate) fn serve_child() -> std::io::Result<()> {
    if std::env::var_os(RELAY_VAR).is_some() {
        return relay();
    }
    quiet_panics();
    let setup: ChildSetup = serde_json::from_str(&std::env::var(TOP_VAR).unwrap_or_default())
        .map_err(std::io::Error::other)?;
    // (Ctrl-C stops a goal in place, once the engine is loaded: interrupt.rs)
    let installing = Installing::start();
    let mut channel = Channel::open()?;
    // (at once: the engine loads while the first request comes)
    channel.ready()?;
    let link = Arc::new(Link {
        out: Mutex::new(Out {
            replies: channel.replies,
            current: None,
            line: true,
            told: true,
        }),
        requests: Mutex::new(channel.requests),
    });
    // (a thread with a large stack: its stack is reserved before the memory bound is set)
    std::thread::Builder::new()
        .name("kenken-toplevel".into())
        .stack_size(STACK)
        .spawn(move || serve(&setup, &link, installing))?
        .join()
        .map_err(|_| std::io::Error::other("the top level's thread stopped"))?
}

fn serve(setup: &ChildSetup, link: &Arc<Link>, installing: Installing) -> std::io::Result<()> {
    let mut top = Toplevel::with_scratch(!setup.setup.loads_kenken(), &setup.scratch);
    installing.wait();
    // (bounded once the engine is loaded and `run_binary()` has returned: its threads' stacks
    // and allocator arenas are in the address space by then, so the bound is what goals get)
    if let Some(m) = setup.setup.memory {
        limit_memory(m).map_err(std::io::Error::other)?;
    }
    top.talk_to(Box::new(Asker(link.clone())));
    if let Some(fifo) = &setup.feed {
        top.feed_from(fifo).map_err(std::io::Error::other)?;
    }
    let mut halted = None;
    let mut consult_failed = false;
    // (the setup's files, consulted at the first Start, once the parent is told the engine
    // is loaded)
    let mut consults = Some(&setup.setup.consult);
    while let Some(payload) = link.next_request()? {
        let request = serde_json::from_str::<Request>(&payload);
        if let (Ok(Request::Start), Some(files)) = (&request, consults.take()) {
            let _ = link.tell(&Part::Loaded);
            for f in files {
                match top.consult(f) {
                    Ok(TopResult::True) => {}
                    // (a file that halts ends the session before it starts, with its code)
                    Ok(TopResult::Halt(n)) => {
                        halted = Some(n);
                        break;
                    }
                    _ => consult_failed = true,
                }
            }
        }
        let (reply, failed) = match request {
            Ok(Request::Start) => match halted {
                Some(n) => (done(&mut top, TopResult::Halt(n), false, false), false),
                None => {
                    let (cpu_offset, _) = top.clocks().unwrap_or((0, 0));
                    let reply = Reply::Started {
                        cpu_offset,
                        names: top.names().unwrap_or_default(),
                        consult_failed,
                    };
                    (reply, false)
                }
            },
            Ok(Request::Goal { goal, mode, report }) => {
                let r = top.run(&goal, &mode);
                let _ = link.tell(&Part::Stopped);
                match r {
                    Ok(r) => (done(&mut top, r, report, report), false),
                    Err(e) => (Reply::Failed(e.to_string()), true),
                }
            }
            Ok(Request::Restore(g)) => match top.restore(&g) {
                Ok(()) => (done(&mut top, TopResult::True, false, true), false),
                Err(e) => (Reply::Failed(e.to_string()), true),
            },
            Err(e) => (
                Reply::Failed(format!("a request not understood: {e}")),
                true,
            ),
        };
        link.reply(&reply)?;
        if failed {
            break;
        }
    }
    Ok(())
}

/// The reply to a goal that ended with `result`, with the session's state and the names of
/// its predicates when asked for.
fn done(top: &mut Toplevel, result: TopResult, state: bool, names: bool) -> Reply {
    let state = if state { top.state().ok() } else { None };
    let inferences = top.clocks().ok().map(|(_, i)| i);
    let names = if names {
        top.names().unwrap_or_default()
    } else {
        Vec::new()
    };
    Reply::Done {
        result,
        interrupted: top.interrupted(),
        state,
        inferences,
        names,
        kenken: top.has_kenken(),
    }
}
