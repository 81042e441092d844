//! The parent side: a [`TopProcess`] keeps the session in a killable child, restarting it
//! with the session's state after Ctrl-C, a timeout, a failure or the memory bound.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Context;
use crate::process::{Child, Spawn};

use super::child::{ChildSetup, Reply, Request, TOP_VAR};
use super::clocks::{children_cpu_ms, epoch_ms, Clocks, CLOCKS_VAR};
use super::feed::{Feeder, PipedInput};
use super::{ends_a_line, Setup, TopResult, LINE_VAR};
use crate::prolog::PrologError;

/// How a goal sent to a [`TopProcess`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The goal ended by itself.
    Done(TopResult),
    /// Ctrl-C stopped it (the engine was restarted with the session's state).
    Interrupted,
    /// The timeout stopped it (the engine was restarted with the session's state).
    TimedOut,
    /// The engine failed (this says how); it was restarted with the session's state.
    Failed(String),
    /// The engine reached its memory bound ([`Setup::memory`], this many bytes); it was
    /// restarted with the session's state.
    OutOfMemory(u64),
}

/// What the host answers when the top level asks what to do after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// The next answer.
    Next,
    /// All the remaining answers.
    All,
    /// No more answers.
    Stop,
    /// The answer again, whole (no `...`); then the question again.
    Whole,
    /// The answer again, as it was first written (`...` past a depth of 20); then the
    /// question again.
    Print,
    /// The next answers, up to the next multiple of 5 (as Scryer's `f`).
    Five,
    /// The keys, then the answer and the question again.
    Help,
}

struct Running {
    child: Child,
    pipes: [PathBuf; 2],
    to_child: std::fs::File,
    replies: Receiver<String>,
    /// Whether the child said it is ready (its engine loaded).
    ready: bool,
    /// The offset from its CPU time to the session's, once it is ready (`Reply::Ready`).
    cpu_offset: Option<i64>,
    /// [`children_cpu_ms`] before it started.
    children_cpu: u64,
}

/// What [`TopProcess::wait`] saw.
enum Waited {
    Reply(Reply),
    /// The child ended without a reply: killed by Ctrl-C (`true`), or otherwise (it says how).
    Died(bool, String),
    /// The deadline passed (the child was killed).
    Late,
    /// The child aborted at its memory bound, this many bytes.
    OutOfMemory(u64),
}

/// A top level in a killable child process that keeps its session across interrupts.
///
/// The child starts loading at once ([`TopProcess::start`] does not wait for it): the first
/// goal waits until it is ready.
pub struct TopProcess {
    setup: Setup,
    dir: PathBuf,
    running: Option<Running>,
    /// The session's state after the last goal that ended, replayed after a kill.
    state: Option<String>,
    /// Where the next engine's clocks start (`statistics/2`).
    clocks: Clocks,
    /// The names of the predicates the session sees, as the engine last told them.
    names: Vec<String>,
    /// The input the goals read, when the repl's input is piped (see [`PipedInput`]).
    input: Option<Arc<PipedInput>>,
    /// What feeds it to the goal running.
    feeder: Option<Feeder>,
}

static NEXT_DIR: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl TopProcess {
    /// Starts the child (without waiting for its engine to load).
    ///
    /// With `input` (a piped repl, which reads its goals from it), a goal that reads gets the
    /// input after it, and what it does not read goes back to `input` ([`PipedInput`]);
    /// without, a goal reads standard input itself (the terminal).
    pub fn start(setup: Setup, input: Option<Arc<PipedInput>>) -> Result<TopProcess, PrologError> {
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kenken-top-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut p = TopProcess {
            setup,
            dir,
            running: None,
            state: None,
            names: Vec::new(),
            clocks: Clocks {
                wall_origin: Some(epoch_ms()),
                ..Clocks::default()
            },
            input,
            feeder: None,
        };
        p.spawn()?;
        Ok(p)
    }

    fn pipe(&self, name: &str) -> Result<PathBuf, PrologError> {
        let path = self.dir.join(name);
        if !path.exists() {
            nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU)
                .map_err(std::io::Error::from)
                .with_context(|| format!("making the pipe {}", path.display()))?;
        }
        Ok(path)
    }

    fn spawn(&mut self) -> Result<(), PrologError> {
        // Fresh pipes for every child: a killed child's reader thread keeps its own.
        let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
        let (to, from) = (
            self.pipe(&format!("to-child-{n}"))?,
            self.pipe(&format!("from-child-{n}"))?,
        );
        let feed = match self.input {
            Some(_) => Some(self.pipe("feed")?),
            None => None,
        };
        let env = serde_json::to_string(&ChildSetup {
            to_child: to.clone(),
            from_child: from.clone(),
            setup: self.setup.clone(),
            feed,
        })
        .context("encoding the top level's setup")?;
        let line = self.line_file();
        std::fs::write(&line, b"1").with_context(|| format!("writing {}", line.display()))?;
        let clocks = format!(
            "{} {} {}",
            self.clocks.wall_origin.unwrap_or_else(epoch_ms),
            self.clocks.cpu_ms,
            self.clocks.inferences
        );
        let children_cpu = children_cpu_ms();
        let child = Spawn::worker("toplevel").and_then(|s| {
            s.env(TOP_VAR, &env)
                .env(CLOCKS_VAR, &clocks)
                .env(LINE_VAR, &line.to_string_lossy())
                .terminal()
                .spawn()
        })?;
        // Both ends of both pipes stay open here for the child's whole life (a read end of
        // its own for the requests keeps the child's writes to it from failing).
        let to_child = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&to)
            .with_context(|| format!("opening the pipe {}", to.display()))?;
        let from_child = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&from)
            .with_context(|| format!("opening the pipe {}", from.display()))?;
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(from_child).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.running = Some(Running {
            child,
            pipes: [to, from],
            to_child,
            replies,
            ready: false,
            cpu_offset: None,
            children_cpu,
        });
        Ok(())
    }

    /// Waits until the child's engine is loaded; `None` when it died first (it says how).
    fn ready(&mut self) -> Result<Option<Waited>, PrologError> {
        if self.running.as_ref().is_none_or(|r| r.ready) {
            return Ok(None);
        }
        match self.wait(None, &mut |_| Key::Stop)? {
            Waited::Reply(Reply::Ready(cpu_offset, names)) => {
                if !names.is_empty() {
                    self.names = names;
                }
                if let Some(r) = self.running.as_mut() {
                    r.ready = true;
                    r.cpu_offset = Some(cpu_offset);
                }
                Ok(None)
            }
            // (a consulted file called halt/0,1)
            w @ Waited::Reply(Reply::Done(TopResult::Halt(_), ..)) => Ok(Some(w)),
            Waited::Reply(_) => Err(PrologError::Failed("the top level did not start".into())),
            w => Ok(Some(w)),
        }
    }

    /// Waits for the child's next reply, answering its questions with `key`; the child is
    /// killed when it died or `deadline` passed.
    fn wait(
        &mut self,
        deadline: Option<Instant>,
        key: &mut dyn FnMut(&mut Self) -> Key,
    ) -> Result<Waited, PrologError> {
        loop {
            let Some(r) = self.running.as_mut() else {
                return Ok(Waited::Died(false, "the engine is not running".into()));
            };
            let got = match deadline {
                Some(d) => r
                    .replies
                    .recv_timeout(d.saturating_duration_since(Instant::now())),
                None => r.replies.recv_timeout(Duration::from_millis(100)),
            };
            match got {
                // (the goal stops reading the input fed to it: the feeder stops, and the goal's
                // engine is told so; it then gives back what it did not read)
                Ok(line) if line == "drain" => {
                    if let Some(f) = self.feeder.as_mut() {
                        f.stop(true);
                    }
                    if let Some(r) = self.running.as_mut() {
                        let _ = writeln!(r.to_child, "fed.").and_then(|_| r.to_child.flush());
                    }
                }
                Ok(line) if line.starts_with("left") => {
                    let left: String = line
                        .split_whitespace()
                        .skip(1)
                        .filter_map(|c| c.parse::<u32>().ok().and_then(char::from_u32))
                        .collect();
                    if let (Some(input), Some(f)) = (&self.input, self.feeder.take()) {
                        input.unread_pieces(f.pieces_of(left.as_bytes()));
                    }
                    // (the goal may read again, after a key)
                    self.start_feeding();
                }
                Ok(line) if line == "ask" => {
                    let k = key(self);
                    let word = match k {
                        Key::Next => "next.",
                        Key::All => "all.",
                        Key::Stop => "stop.",
                        Key::Whole => "whole.",
                        Key::Print => "print.",
                        Key::Five => "five.",
                        Key::Help => "help.",
                    };
                    if let Some(r) = self.running.as_mut() {
                        let _ = writeln!(r.to_child, "{word}").and_then(|_| r.to_child.flush());
                    }
                }
                Ok(line) => {
                    return serde_json::from_str(&line)
                        .map(Waited::Reply)
                        .with_context(|| format!("reading the top level's reply {line:?}"))
                        .map_err(PrologError::from)
                }
                Err(RecvTimeoutError::Timeout) => {
                    if r.child.has_ended() {
                        let how = self.end_of_child();
                        return Ok(how);
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        self.kill();
                        return Ok(Waited::Late);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let how = self.end_of_child();
                    return Ok(how);
                }
            }
        }
    }

    /// How the child ended (it is reaped).
    fn end_of_child(&mut self) -> Waited {
        use std::os::unix::process::ExitStatusExt;
        let status = self.running.as_mut().and_then(|r| r.child.wait());
        self.kill();
        match status {
            Some(s) if s.signal() == Some(nix::sys::signal::Signal::SIGINT as i32) => {
                Waited::Died(true, "interrupted".into())
            }
            // (an allocation past the bound aborts)
            Some(s) if s.signal() == Some(nix::sys::signal::Signal::SIGABRT as i32) => {
                match self.setup.memory {
                    Some(m) => Waited::OutOfMemory(m),
                    None => Waited::Died(false, format!("the engine stopped ({s})")),
                }
            }
            Some(s) => Waited::Died(false, format!("the engine stopped ({s})")),
            None => Waited::Died(false, "the engine stopped".into()),
        }
    }

    fn kill(&mut self) {
        if let Some(mut r) = self.running.take() {
            r.child.kill();
            // (the CPU time its goals took, the one stopped too, goes on in the next engine)
            if let Some(offset) = r.cpu_offset {
                let spent = children_cpu_ms().saturating_sub(r.children_cpu) as i64;
                self.clocks.cpu_ms = self.clocks.cpu_ms.max((spent + offset).max(0) as u64);
            }
            for p in &r.pipes {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    fn send(&mut self, request: &Request) -> Result<(), PrologError> {
        let line = serde_json::to_string(request).context("encoding a request")?;
        if let Some(r) = self.running.as_mut() {
            writeln!(r.to_child, "{line}")
                .and_then(|_| r.to_child.flush())
                .context("sending a request to the top level")?;
        }
        Ok(())
    }

    /// What ends a goal when the child did not answer (a fresh engine gets the session's state
    /// back at the next goal).
    fn after_death(&mut self, waited: Waited) -> Result<Ended, PrologError> {
        let ended = match waited {
            Waited::Late => Ended::TimedOut,
            Waited::OutOfMemory(m) => Ended::OutOfMemory(m),
            Waited::Died(true, _) => Ended::Interrupted,
            Waited::Died(false, how) => Ended::Failed(how),
            Waited::Reply(Reply::Failed(e)) => Ended::Failed(e),
            Waited::Reply(Reply::Done(r, ..)) => Ended::Done(r),
            Waited::Reply(_) => Ended::Failed("the engine answered out of turn".into()),
        };
        self.kill();
        Ok(ended)
    }

    /// Feeds the input to the goal running, when the repl's input is piped.
    fn start_feeding(&mut self) {
        if let (Some(input), None) = (&self.input, &self.feeder) {
            let fifo = self.dir.join("feed");
            self.feeder = Some(Feeder::start(&fifo, input.clone()));
        }
    }

    /// The child's [`LINE_VAR`] file.
    fn line_file(&self) -> PathBuf {
        self.dir.join("line")
    }

    /// Whether what the engine showed last ends a line (so that a message after a goal that
    /// was stopped starts on a line of its own).
    pub fn ends_a_line(&self) -> bool {
        ends_a_line(&self.line_file())
    }

    /// The names of the predicates the session sees (as of the last goal, or the start):
    /// what the repl completes a name with.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Waits until the engine is loaded and the files of the setup consulted: `Some` when
    /// it ended meanwhile (a file called `halt/0,1`: [`Ended::Done`] with
    /// [`TopResult::Halt`]; or it failed).
    pub fn started(&mut self) -> Result<Option<Ended>, PrologError> {
        match self.ready()? {
            Some(w) => self.after_death(w).map(Some),
            None => Ok(None),
        }
    }

    /// Runs `goal`, answering the child's "next answer?" questions with `key`, within
    /// `timeout` (counted once the engine is loaded). After an interrupt, a timeout or a
    /// failure of the engine, a fresh engine gets the session's state back.
    pub fn run(
        &mut self,
        goal: &str,
        timeout: Option<Duration>,
        key: &mut dyn FnMut(&mut Self) -> Key,
    ) -> Result<Ended, PrologError> {
        if self.running.is_none() {
            self.restart()?;
        }
        if let Some(w) = self.ready()? {
            return self.after_death(w);
        }
        self.send(&Request::Goal(goal.to_string(), true))?;
        self.start_feeding();
        let deadline = timeout.map(|t| Instant::now() + t);
        let waited = self.wait(deadline, key);
        if let Some(mut f) = self.feeder.take() {
            f.stop(false);
        }
        match waited? {
            Waited::Reply(Reply::Done(r, state, inferences, names, kenken)) => {
                if state.is_some() {
                    self.state = state;
                }
                if !names.is_empty() {
                    self.names = names;
                }
                if let Some(i) = inferences {
                    self.clocks.inferences = i;
                }
                if !kenken {
                    // (replaced by a file the goal consulted: a fresh engine after a kill
                    // starts without kenken.pl too)
                    self.setup.no_kenken = true;
                }
                if r == TopResult::OutOfMemory {
                    // (its engine holds the memory it took: a fresh one gets the state back)
                    self.kill();
                    return Ok(Ended::OutOfMemory(self.setup.memory.unwrap_or(0)));
                }
                Ok(Ended::Done(r))
            }
            w => self.after_death(w),
        }
    }

    /// A fresh child, loaded and given the session's state back.
    fn restart(&mut self) -> Result<(), PrologError> {
        for _ in 0..3 {
            self.kill();
            self.spawn()?;
            if self.ready()?.is_some() {
                continue;
            }
            let Some(state) = self.state.clone() else {
                return Ok(());
            };
            self.send(&Request::Restore(state))?;
            match self.wait(None, &mut |_| Key::Stop)? {
                Waited::Reply(Reply::Done(_, _, _, names, _)) => {
                    if !names.is_empty() {
                        self.names = names;
                    }
                    return Ok(());
                }
                // (a state that breaks the engine is given up, and said so)
                _ => {
                    self.state = None;
                    println!(
                        "% the session's state broke the engine: a fresh one starts without it"
                    );
                }
            }
        }
        Err(PrologError::Failed("the top level cannot start".into()))
    }
}

impl Drop for TopProcess {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
