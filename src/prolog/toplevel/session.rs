//! The parent side: a [`TopProcess`] keeps the session in a killable child, restarting it
//! with the session's state after Ctrl-C, a timeout, a failure or the memory bound.
//!
//! The child is a [`Worker`] of the process layer that keeps the terminal: requests and their
//! frames go through the layer's channel (two named pipes), with a ticket each, read by the
//! layer's reader with its caps; the child's questions within a goal (which key; the input fed
//! to it) are parts of the reply, answered with the request's ticket (`child.rs`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Context;
use crate::process::{Reply as Frame, Worker, WorkerError};

use super::child::{Answer, ChildSetup, Part, Reply, Request, TOP_VAR};
use super::clocks::{children_cpu_ms, epoch_ms, Clocks, CLOCKS_VAR};
use super::feed::{Feeder, PipedInput};
use super::{Mode, Setup, TopResult};
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

/// How long a goal may take to stop after Ctrl-C or its timeout (Scryer stops it where it is,
/// within 256 instructions: `interrupt.rs`) before its engine is killed and replaced by a fresh
/// one with the session's state as it was before the goal.
pub const GRACE: Duration = Duration::from_secs(1);

/// The Ctrl-C presses of the process, as its `SIGINT` handler counts them
/// ([`CtrlC::pressed`]): a [`TopProcess`] that watches them ([`TopProcess::watch`]) kills a goal
/// that did not stop within [`GRACE`] of one (the child gets the terminal's `SIGINT` itself).
#[derive(Debug, Clone, Default)]
pub struct CtrlC(Arc<AtomicU64>);

impl CtrlC {
    /// Counts a press (for the process's `SIGINT` handler: it only counts).
    pub fn pressed(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why a goal is being stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    CtrlC,
    Timeout,
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

/// What [`TopProcess::wait`] saw.
#[derive(Debug)]
enum Waited {
    Reply(Reply),
    /// The child ended without a reply: killed by Ctrl-C (`true`), or otherwise (it says how).
    Died(bool, String),
    /// The deadline passed (the child was killed).
    Late,
    /// The goal did not stop within [`GRACE`] of Ctrl-C or its timeout: the child was
    /// killed.
    Killed(Why),
    /// The child aborted at its memory bound, this many bytes.
    OutOfMemory(u64),
}

/// A top level in a killable child process that keeps its session across interrupts.
///
/// The child starts loading at once ([`TopProcess::start`] does not wait for it): the first
/// goal waits until it is ready.
pub struct TopProcess {
    setup: Setup,
    /// The session's private directory: the copies of the files consulted, as they were
    /// loaded (a fresh engine loads them again), and the pipe that feeds the goals their
    /// input (a piped repl's).
    dir: tempfile::TempDir,
    /// The child.
    worker: Worker,
    /// Whether the child's engine is loaded (its reply to [`Request::Start`] came).
    started: bool,
    /// The offset from the child's CPU time to the session's, once it started.
    cpu_offset: Option<i64>,
    /// [`children_cpu_ms`] before the child started.
    children_cpu: u64,
    /// Whether what the child showed last ends a line (as it said).
    line: bool,
    /// How goals run: asking for keys (`repl`) or in a batch (`query`).
    mode: Mode,
    /// Whether the session's state and names are asked for after each goal (`repl`).
    report: bool,
    /// A file of the setup did not load (as the child said when it started).
    consult_failed: bool,
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
    /// Whether a goal is stopped in place by Ctrl-C or its timeout (a repl's), rather than
    /// killed (a query's: it ends then).
    in_place: bool,
    /// The Ctrl-C presses watched ([`TopProcess::watch`]).
    ctrl_c: Option<CtrlC>,
    /// Why the goal running is being stopped, if it is.
    stopping: Option<Why>,
    /// The last goal stopped by Ctrl-C or its timeout was killed, what it did lost.
    lost: bool,
    /// The start's timeout, counted once the engine is loaded ([`TopProcess::started_within`]),
    /// and when it was.
    after_load: Option<Duration>,
    loaded_at: Option<Instant>,
}

impl TopProcess {
    /// Starts the child (without waiting for its engine to load), for goals that ask which
    /// key after an answer (`kenken repl`).
    ///
    /// With `input` (a piped repl, which reads its goals from it), a goal that reads gets the
    /// input after it, and what it does not read goes back to `input` ([`PipedInput`]);
    /// without, a goal reads standard input itself (the terminal).
    pub fn start(setup: Setup, input: Option<Arc<PipedInput>>) -> Result<TopProcess, PrologError> {
        TopProcess::new(setup, input, Mode::Ask, true)
    }

    /// Starts the child (without waiting for its engine to load), for goals that show every
    /// answer, at most `limit` (`kenken query`): no state is kept across a kill.
    pub fn batch(setup: Setup, limit: usize) -> Result<TopProcess, PrologError> {
        TopProcess::new(setup, None, Mode::Batch(limit), false)
    }

    fn new(
        setup: Setup,
        input: Option<Arc<PipedInput>>,
        mode: Mode,
        report: bool,
    ) -> Result<TopProcess, PrologError> {
        let dir = tempfile::Builder::new()
            .prefix("kenken-top-")
            .tempdir()
            .context("making the top level's directory")?;
        // (a repl's goals are stopped in place: interrupt.rs; a query's are killed, and it
        // ends)
        let in_place = mode == Mode::Ask;
        let args: &[&str] = if in_place {
            &super::interrupt::ARGS
        } else {
            &[]
        };
        let mut p = TopProcess {
            setup,
            dir,
            worker: Worker::new("toplevel").terminal().with_args(args),
            in_place,
            started: false,
            cpu_offset: None,
            children_cpu: 0,
            line: true,
            mode,
            report,
            consult_failed: false,
            state: None,
            names: Vec::new(),
            clocks: Clocks {
                wall_origin: Some(epoch_ms()),
                ..Clocks::default()
            },
            input,
            feeder: None,
            ctrl_c: None,
            stopping: None,
            lost: false,
            after_load: None,
            loaded_at: None,
        };
        p.spawn()?;
        Ok(p)
    }

    /// Watches `presses` (counted by the process's `SIGINT` handler): a goal that does not
    /// stop within [`GRACE`] of one is killed (its engine replaced by a fresh one with the
    /// session's state as it was before the goal). The child gets the terminal's `SIGINT`
    /// itself: it stops the goal in place.
    pub fn watch(&mut self, presses: CtrlC) {
        self.ctrl_c = Some(presses);
    }

    /// Whether the last goal stopped by Ctrl-C or its timeout did not stop within [`GRACE`]:
    /// its engine was killed, and what the goal did is lost (the session is as it was before
    /// the goal). A goal stopped in time keeps what it did.
    pub fn goal_lost(&self) -> bool {
        self.lost
    }

    /// The named pipe that feeds the goals their input (a piped repl's).
    fn feed_pipe(&self) -> Result<Option<PathBuf>, PrologError> {
        if self.input.is_none() {
            return Ok(None);
        }
        let path = self.dir.path().join("feed");
        if !path.exists() {
            nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU)
                .map_err(std::io::Error::from)
                .with_context(|| format!("making the pipe {}", path.display()))?;
        }
        Ok(Some(path))
    }

    fn spawn(&mut self) -> Result<(), PrologError> {
        let env = serde_json::to_string(&ChildSetup {
            setup: self.setup.clone(),
            feed: self.feed_pipe()?,
            scratch: self.dir.path().to_path_buf(),
        })
        .context("encoding the top level's setup")?;
        let clocks = format!(
            "{} {} {}",
            self.clocks.wall_origin.unwrap_or_else(epoch_ms),
            self.clocks.cpu_ms,
            self.clocks.inferences
        );
        self.worker.set_env(TOP_VAR, &env);
        self.worker.set_env(CLOCKS_VAR, &clocks);
        self.children_cpu = children_cpu_ms();
        self.started = false;
        self.cpu_offset = None;
        self.line = true;
        self.worker.prestart()?;
        Ok(())
    }

    /// Sends `request`; `Some` when the child could not take it (it died, or `deadline`
    /// passed while it started: it is killed).
    fn send(
        &mut self,
        request: &Request,
        deadline: Option<Instant>,
    ) -> Result<Option<Waited>, PrologError> {
        let line = serde_json::to_string(request).context("encoding a request")?;
        match self.worker.send(&line, deadline) {
            Ok(true) => Ok(None),
            Ok(false) => {
                self.kill();
                Ok(Some(Waited::Late))
            }
            Err(e) => Ok(Some(self.end_of_child(e))),
        }
    }

    /// Waits until the child's engine is loaded (or `deadline` passes); `None` when it is,
    /// `Some` when it ended first (a file called `halt/0,1`, or it died, or it was late).
    fn ready(&mut self, deadline: Option<Instant>) -> Result<Option<Waited>, PrologError> {
        if self.started {
            return Ok(None);
        }
        if !self.worker.is_running() {
            return Ok(Some(Waited::Died(
                false,
                "the engine is not running".into(),
            )));
        }
        if let Some(w) = self.send(&Request::Start, deadline)? {
            return Ok(Some(w));
        }
        match self.wait(deadline, false, &mut |_| Key::Stop)? {
            Waited::Reply(Reply::Started {
                cpu_offset,
                names,
                consult_failed,
            }) => {
                if !names.is_empty() {
                    self.names = names;
                }
                self.started = true;
                self.cpu_offset = Some(cpu_offset);
                self.consult_failed = consult_failed;
                Ok(None)
            }
            // (a consulted file called halt/0,1)
            w @ Waited::Reply(Reply::Done {
                result: TopResult::Halt(_),
                ..
            }) => Ok(Some(w)),
            Waited::Reply(_) => Err(PrologError::Failed("the top level did not start".into())),
            w => Ok(Some(w)),
        }
    }

    /// Waits for the child's reply, answering its questions (`key` answers which key after
    /// an answer); the child is killed when it died or lied. When `deadline` passes, the
    /// child is killed, unless the request runs a goal (`goal`): it is then interrupted
    /// (`SIGINT`), and so it is by Ctrl-C (it gets the terminal's itself), and killed only
    /// when the goal has not stopped within [`GRACE`] (`self.stopping` says why it stops).
    fn wait(
        &mut self,
        mut deadline: Option<Instant>,
        goal: bool,
        key: &mut dyn FnMut(&mut Self) -> Key,
    ) -> Result<Waited, PrologError> {
        let count = |c: &Option<CtrlC>| c.as_ref().map(CtrlC::count);
        let mut presses = count(&self.ctrl_c);
        // (the goal runs: it has not said it stopped)
        let mut running = goal;
        // (when the goal is killed unless it stopped first)
        let mut kill_at: Option<Instant> = None;
        loop {
            let until = if let Some(k) = kill_at {
                Some(k)
            } else if !goal {
                deadline
            } else if !running || self.stopping.is_some() {
                // (the host's own work after the goal: no deadline)
                None
            } else if presses.is_some() {
                // (Ctrl-C is looked for every 50 ms)
                let look = Instant::now() + Duration::from_millis(50);
                Some(deadline.map_or(look, |d| d.min(look)))
            } else {
                deadline
            };
            let frame = match self.worker.next_or_wait(until) {
                Ok(f) => f,
                Err(e) => return Ok(self.end_of_child(e)),
            };
            match frame {
                Frame::Timeout => {
                    let now = Instant::now();
                    if let Some(k) = kill_at {
                        if now >= k {
                            self.kill();
                            let why = self.stopping.unwrap_or(Why::Timeout);
                            return Ok(Waited::Killed(why));
                        }
                        continue;
                    }
                    if !goal || (!self.in_place && deadline.is_some_and(|d| now >= d)) {
                        self.kill();
                        return Ok(Waited::Late);
                    }
                    if presses.is_some() && count(&self.ctrl_c) != presses {
                        self.stopping = Some(Why::CtrlC);
                        kill_at = Some(now + GRACE);
                    } else if deadline.is_some_and(|d| now >= d) {
                        self.stopping = Some(Why::Timeout);
                        kill_at = Some(now + GRACE);
                        self.worker.interrupt();
                    }
                }
                Frame::Part(p) => match serde_json::from_str::<Part>(&p) {
                    Ok(Part::Line(ends)) => self.line = ends,
                    // (the start's timeout counts from here: `started_within`)
                    Ok(Part::Loaded) => {
                        let now = Instant::now();
                        self.loaded_at = Some(now);
                        if let Some(t) = self.after_load.take() {
                            deadline = Some(now + t);
                        }
                    }
                    // (the goal stopped: what is left is the host's; it is not killed)
                    Ok(Part::Stopped) => {
                        running = false;
                        kill_at = None;
                    }
                    // (an answer: the goal is alive, it caught the interrupt perhaps; the next
                    // Ctrl-C stops it again)
                    Ok(Part::Ask(question)) => {
                        kill_at = None;
                        self.stopping = None;
                        presses = count(&self.ctrl_c);
                        let answer: Answer = self.answer(&question, key);
                        let text = serde_json::to_string(&answer).context("encoding an answer")?;
                        if let Err(e) = self.worker.answer(&text) {
                            return Ok(self.end_of_child(e));
                        }
                    }
                    Err(e) => return Ok(self.not_understood(&p, &e)),
                },
                Frame::Done(d) => {
                    return Ok(match serde_json::from_str::<Reply>(&d) {
                        Ok(r) => Waited::Reply(r),
                        Err(e) => self.not_understood(&d, &e),
                    })
                }
            }
        }
    }

    /// The answer to a question of the engine's (`kk_host/2`).
    fn answer(&mut self, question: &str, key: &mut dyn FnMut(&mut Self) -> Key) -> Answer {
        let word = if question == "ask" {
            match key(self) {
                Key::Next => "next",
                Key::All => "all",
                Key::Stop => "stop",
                Key::Whole => "whole",
                Key::Print => "print",
                Key::Five => "five",
                Key::Help => "help",
            }
        } else if question == "drain" {
            // (the goal stops reading the input fed to it: the feeder stops; the goal's
            // engine then gives back what it did not read)
            if let Some(f) = self.feeder.as_mut() {
                f.stop(true);
            }
            "fed"
        } else if let Some(codes) = question.strip_prefix("left") {
            let left: String = codes
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok().and_then(char::from_u32))
                .collect();
            if let (Some(input), Some(f)) = (&self.input, self.feeder.take()) {
                input.unread_pieces(f.pieces_of(left.as_bytes()));
            }
            // (the goal may read again, after a key)
            self.start_feeding();
            "ok"
        } else {
            "none"
        };
        word.to_string()
    }

    /// A frame whose payload is not what the protocol says: the child is killed.
    fn not_understood(&mut self, payload: &str, e: &serde_json::Error) -> Waited {
        self.kill();
        let mut shown: String = payload.chars().take(80).collect();
        if shown.len() < payload.len() {
            shown.push_str("...");
        }
        Waited::Died(
            false,
            format!("the engine's reply cannot be read ({e}): {shown:?}"),
        )
    }

    /// How the child ended, when a request to it failed with `e` (it is reaped).
    fn end_of_child(&mut self, e: WorkerError) -> Waited {
        use std::os::unix::process::ExitStatusExt;
        let status = self.worker.last_status();
        self.kill();
        if let WorkerError::BadFrame(why) = e {
            return Waited::Died(
                false,
                format!("the engine's reply cannot be trusted: {why}"),
            );
        }
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
            None => Waited::Died(false, format!("the engine stopped ({e})")),
        }
    }

    fn kill(&mut self) {
        self.worker.stop();
        self.started = false;
        // (the CPU time its goals took, the one stopped too, goes on in the next engine)
        if let Some(offset) = self.cpu_offset.take() {
            let spent = children_cpu_ms().saturating_sub(self.children_cpu) as i64;
            self.clocks.cpu_ms = self.clocks.cpu_ms.max((spent + offset).max(0) as u64);
        }
    }

    /// What ends a goal when the child did not answer (a fresh engine gets the session's state
    /// back at the next goal).
    fn after_death(&mut self, waited: Waited) -> Result<Ended, PrologError> {
        let ended = match waited {
            Waited::Late => Ended::TimedOut,
            Waited::Killed(why) => {
                self.lost = true;
                match why {
                    Why::CtrlC => Ended::Interrupted,
                    Why::Timeout => Ended::TimedOut,
                }
            }
            Waited::OutOfMemory(m) => Ended::OutOfMemory(m),
            Waited::Died(true, _) => {
                self.lost = true;
                Ended::Interrupted
            }
            Waited::Died(false, how) => Ended::Failed(how),
            Waited::Reply(Reply::Failed(e)) => Ended::Failed(e),
            Waited::Reply(Reply::Done { result, .. }) => Ended::Done(result),
            Waited::Reply(_) => Ended::Failed("the engine answered out of turn".into()),
        };
        self.kill();
        Ok(ended)
    }

    /// Feeds the input to the goal running, when the repl's input is piped.
    fn start_feeding(&mut self) {
        if let (Some(input), None) = (&self.input, &self.feeder) {
            let fifo = self.dir.path().join("feed");
            self.feeder = Some(Feeder::start(&fifo, input.clone()));
        }
    }

    /// Whether what the engine showed last ends a line (so that a message after a goal that
    /// was stopped starts on a line of its own).
    pub fn ends_a_line(&self) -> bool {
        self.line
    }

    /// The names of the predicates the session sees (as of the last goal, or the start):
    /// what the repl completes a name with.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a file of the setup did not load (known once the engine started).
    pub fn consult_failed(&self) -> bool {
        self.consult_failed
    }

    /// Waits until the engine is loaded and the files of the setup consulted: `Some` when
    /// it ended meanwhile (a file called `halt/0,1`: [`Ended::Done`] with
    /// [`TopResult::Halt`]; or it failed).
    pub fn started(&mut self) -> Result<Option<Ended>, PrologError> {
        self.started_by(None)
    }

    /// [`TopProcess::started`], the engine killed when `deadline` passes first
    /// ([`Ended::TimedOut`]).
    pub fn started_by(&mut self, deadline: Option<Instant>) -> Result<Option<Ended>, PrologError> {
        match self.ready(deadline)? {
            Some(w) => self.after_death(w).map(Some),
            None => Ok(None),
        }
    }

    /// [`TopProcess::started`], within `timeout` counted once the engine is loaded (its own
    /// start does not count, however loaded the machine; consulting the setup's files does):
    /// the deadline that leaves for the goals, or how the engine ended first (killed at the
    /// deadline: [`Ended::TimedOut`]).
    pub fn started_within(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Result<Option<Instant>, Ended>, PrologError> {
        self.after_load = timeout;
        self.loaded_at = None;
        let waited = self.ready(None);
        self.after_load = None;
        match waited? {
            Some(w) => self.after_death(w).map(Err),
            None => {
                let loaded = self.loaded_at.unwrap_or_else(Instant::now);
                Ok(Ok(timeout.map(|t| loaded + t)))
            }
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
        // (a child that ended while it waited for this goal, killed from outside, is replaced
        // before the goal runs: the goal never ran in it)
        if !self.worker.is_running() || (self.started && self.worker.running_has_ended()) {
            self.restart()?;
        }
        if let Some(w) = self.ready(None)? {
            return self.after_death(w);
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let request = Request::Goal {
            goal: goal.to_string(),
            mode: self.mode.clone(),
            report: self.report,
        };
        if let Some(w) = self.send(&request, deadline)? {
            return self.after_death(w);
        }
        self.start_feeding();
        self.stopping = None;
        self.lost = false;
        let waited = self.wait(deadline, true, key);
        if let Some(mut f) = self.feeder.take() {
            f.stop(false);
        }
        let stopping = self.stopping.take();
        match waited? {
            Waited::Reply(Reply::Done {
                result,
                interrupted,
                state,
                inferences,
                names,
                kenken,
            }) => {
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
                if result == TopResult::OutOfMemory {
                    // (its engine holds the memory it took: a fresh one gets the state back)
                    self.kill();
                    return Ok(Ended::OutOfMemory(self.setup.memory.unwrap_or(0)));
                }
                // (stopped in place: what it did stays, and is in the state)
                Ok(match (interrupted, stopping) {
                    (true, Some(Why::Timeout)) => Ended::TimedOut,
                    (true, _) => Ended::Interrupted,
                    (false, _) => Ended::Done(result),
                })
            }
            w => self.after_death(w),
        }
    }

    /// A fresh child, loaded and given the session's state back.
    fn restart(&mut self) -> Result<(), PrologError> {
        for _ in 0..3 {
            self.kill();
            self.spawn()?;
            if self.ready(None)?.is_some() {
                continue;
            }
            let Some(state) = self.state.clone() else {
                return Ok(());
            };
            if self.send(&Request::Restore(state), None)?.is_some() {
                continue;
            }
            match self.wait(None, false, &mut |_| Key::Stop)? {
                Waited::Reply(Reply::Done { names, .. }) => {
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
    }
}
