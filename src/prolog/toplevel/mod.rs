//! The Prolog top level behind `kenken query` and `kenken repl`.
//!
//! A [`Toplevel`] is one Scryer `Machine` whose `user_output` and `user_error` are the real
//! standard output and error, running each goal through the Prolog-side loop `kk_top/3`
//! (`prolog/host.pl`): answers are printed as they are found, in order with whatever the goal
//! prints itself, and the next answer is asked of the goal that is already running (by
//! backtracking into it), so side effects happen once per answer.
//!
//! Scryer cannot be interrupted from outside, so the interactive top level runs its engine in a
//! child process, a [`TopProcess`]: the program itself started with `KENKEN_WORKER=toplevel`,
//! sharing the terminal, and talking to its parent over two named pipes (requests one way;
//! replies and "which key?" questions the other). The child loads while the user types its
//! first goal. Ctrl-C, a timeout or a failure of the engine ends that child; at the next goal a
//! fresh one is started and given the session's state back, as it was after the last goal that
//! ended: the modules imported, operators and flags changed, files consulted, every clause of
//! every dynamic predicate and the values of bb_put/2 (`kk_state/1` in `host.pl`).
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
//! wherever it is called (the engine's own would only fail: `host.pl` turns it into an
//! exception the host obeys); a consulted file that defines one of the homework's predicates
//! replaces `kenken.pl` wholly ([`Setup::loads_kenken`]); the engine's process has a memory
//! bound ([`Setup::memory`], [`limit_memory`]), reaching which is a resource error after which
//! a fresh engine gets the state back; a message after a goal that was stopped starts on a
//! line of its own ([`LINE_VAR`]); and `statistics/2` goes on across restarts (`Clocks`).

use crate::error::Context;
use crate::process::{Child, Spawn};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scryer_prolog::{
    InputStreamConfig, LeafAnswer, Machine, MachineBuilder, OutputStreamConfig, StreamConfig, Term,
};
use serde::{Deserialize, Serialize};

use super::{quote, PrologError, ALL_LIBRARIES, HOST_EXPAND_PL, HOST_PL, KENKEN_PL};

mod feed;
use feed::Feeder;
pub use feed::{Got, PipedInput};

/// The `$toplevel` module the engine is built with, instead of Scryer's own `toplevel.pl`
/// (whose REPL is not used here): building an engine then skips compiling the libraries that
/// REPL needs (lambda, si, os, ...), a fifth of a cold start. What Scryer itself looks up in
/// `$toplevel` is kept: `started/0` (dynamic; see `kk_loader_throws` in `host.pl`), and
/// `term_variables_under_max_depth/3`, which `host.pl` uses to name an answer's variables.
const TOPLEVEL_MODULE: &str = "\
:- module('$toplevel', []).
:- dynamic(started/0).
term_variables_under_max_depth(Term, MaxDepth, Vars) :-
    '$term_variables_under_max_depth'(Term, MaxDepth, Vars).
";

/// The top level's own `statistics/0,2`, `time/1` and `listing/1` (defined in `host.pl`),
/// loaded last: they replace library(time)'s and library(format)'s, which `kenken.pl`'s engine
/// imports after `host.pl`.
const TOP_PREDICATES: &str = "\
:- dynamic(time/1).
:- dynamic(statistics/2).
:- dynamic(listing/1).
:- meta_predicate(time(0)).
time(G) :- kk_time(G).
statistics(K, V) :- kk_statistics2(K, V).
statistics :- kk_statistics0.
listing(Spec) :- kk_listing(Spec).
";

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
    /// Ask: the Prolog side writes `ask` to the second path and reads `next.`, `all.` or
    /// `stop.` from the first (two named pipes the host serves).
    Ask(PathBuf, PathBuf),
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
    /// defines one of the homework's predicates ([`homework_defined`]): a student's own
    /// `kenken.pl` answers alone, a predicate it lacks is an existence error (as in SWI-Prolog
    /// and GNU Prolog), never ours.
    pub fn loads_kenken(&self) -> bool {
        !self.no_kenken && !self.consult.iter().any(|f| homework_defined(f).is_some())
    }
}

/// The homework's predicates (`prolog/kenken.pl`, the spec's contract): a consulted file that
/// defines any of them replaces `kenken.pl` wholly.
const HOMEWORK: &[(&str, usize)] = &[
    ("kenken", 3),
    ("plain_kenken", 3),
    ("kenken_testcase", 2),
    ("noop_kenken", 4),
    ("noop_kenken_testcase", 0),
    ("noop_kenken_testcase", 2),
];

/// The first of the homework's predicates (`name/arity`) that the Prolog file `file` (or
/// `file.pl`, as consult/1 finds it) defines: a clause whose head is one of them. The file is
/// cut into clauses as a Prolog reader cuts it ([`split_goals`]); `None` when it cannot be
/// read.
pub fn homework_defined(file: &Path) -> Option<String> {
    let text = std::fs::read(file)
        .or_else(|_| {
            let mut f = file.as_os_str().to_owned();
            f.push(".pl");
            std::fs::read(f)
        })
        .ok()?;
    let text = String::from_utf8_lossy(&text);
    split_goals(&text).complete.iter().find_map(|c| {
        let (name, arity) = clause_head(c)?;
        HOMEWORK
            .iter()
            .any(|&(n, a)| n == name && a == arity)
            .then(|| format!("{name}/{arity}"))
    })
}

/// The name and arity of the head of `clause` (text from [`split_goals`], which may start with
/// comments); `None` for a directive or a head that is not a plain or quoted atom.
fn clause_head(clause: &str) -> Option<(String, usize)> {
    let mut t = clause.trim_start();
    loop {
        if let Some(r) = t.strip_prefix('%') {
            t = r.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(r) = t.strip_prefix("/*") {
            t = r.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let (name, rest) = if let Some(r) = t.strip_prefix('\'') {
        let end = r.find('\'')?;
        (r[..end].to_string(), &r[end + 1..])
    } else if t.starts_with(|c: char| c.is_lowercase()) {
        let end = t.find(|c: char| !is_word_char(c)).unwrap_or(t.len());
        (t[..end].to_string(), &t[end..])
    } else {
        return None;
    };
    let Some(args) = rest.strip_prefix('(') else {
        return Some((name, 0));
    };
    // the arguments: commas at depth 1, outside quotes
    let cs: Vec<char> = args.chars().collect();
    let (mut depth, mut arity, mut i) = (1usize, 1usize, 0usize);
    while i < cs.len() {
        match cs[i] {
            '\'' if i > 0 && cs[i - 1] == '0' && !(i > 1 && is_word_char(cs[i - 2])) => {
                i += if cs.get(i + 1) == Some(&'\\') { 2 } else { 1 };
            }
            q @ ('\'' | '"' | '`') => {
                i += 1;
                while i < cs.len() && cs[i] != q {
                    i += if cs[i] == '\\' { 2 } else { 1 };
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((name, arity));
                }
            }
            ',' if depth == 1 => arity += 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// One engine answering top-level goals on the real standard streams.
pub struct Toplevel {
    machine: Machine,
    /// Whether what user_output showed last ends a line (or nothing was shown yet).
    at_line_start: Arc<AtomicBool>,
    /// What user_output wrote, on its way to standard output.
    shown: Shown,
    /// Whether the engine panicked: it is not to be trusted, and runs nothing more.
    broken: bool,
    /// Whether the engine has `kenken.pl`.
    kenken: bool,
    /// The named pipe the goals read from (a piped repl's), if any.
    feed: Option<PathBuf>,
}

/// What user_output writes, shown on standard output in batches: Scryer hands over every
/// write/1 and nl/0 on its own (two system calls a line were a fifth of the time of a goal
/// printing lines). A batch is written at most [`Shown::DELAY`] after its first byte (by a
/// thread of its own, so a goal that writes and then computes is seen at once), when it is
/// big, when `host.pl` asks ([`FLUSH`]: before it asks the host for a key), before anything is
/// written to standard error, and at the end of every host goal.
#[derive(Clone)]
struct Shown {
    state: Arc<(std::sync::Mutex<ShownState>, std::sync::Condvar)>,
}

struct ShownState {
    /// Bytes not yet written.
    bytes: Vec<u8>,
    /// Whether the bytes end a line.
    ends_line: bool,
    /// The file where the parent reads whether what was shown ends a line ([`LINE_VAR`]),
    /// and what it says.
    line_file: Option<std::fs::File>,
    told: bool,
}

impl Shown {
    /// How long a byte may wait in a batch.
    const DELAY: Duration = Duration::from_millis(10);
    /// A batch this big is written at once.
    const BIG: usize = 1 << 16;

    /// A batch, and the thread that writes it out within [`Shown::DELAY`].
    fn new(line_file: Option<std::fs::File>) -> Shown {
        let shown = Shown {
            state: Arc::new((
                std::sync::Mutex::new(ShownState {
                    bytes: Vec::new(),
                    ends_line: true,
                    line_file,
                    told: true,
                }),
                std::sync::Condvar::new(),
            )),
        };
        let writer = shown.clone();
        std::thread::spawn(move || loop {
            let (lock, ready) = &*writer.state;
            let Ok(mut st) = lock.lock() else { return };
            while st.bytes.is_empty() {
                st = match ready.wait(st) {
                    Ok(st) => st,
                    Err(_) => return,
                };
            }
            drop(st);
            std::thread::sleep(Shown::DELAY);
            writer.flush();
        });
        shown
    }

    /// Adds `bytes` (which end a line or not) to the batch.
    fn push(&self, bytes: &[u8], ends_line: bool) {
        let (lock, ready) = &*self.state;
        let Ok(mut st) = lock.lock() else { return };
        if st.bytes.is_empty() {
            ready.notify_one();
        }
        st.bytes.extend_from_slice(bytes);
        st.ends_line = ends_line;
        let big = st.bytes.len() >= Shown::BIG;
        drop(st);
        if big {
            self.flush();
        }
    }

    /// Writes the batch out, and tells the parent whether it ends a line.
    fn flush(&self) {
        let Ok(mut st) = self.state.0.lock() else {
            return;
        };
        if st.bytes.is_empty() {
            return;
        }
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(&st.bytes).and_then(|_| o.flush());
        st.bytes.clear();
        let now = st.ends_line;
        if now != st.told {
            if let Some(f) = st.line_file.as_mut() {
                use std::os::unix::fs::FileExt;
                let _ = f.write_at(if now { b"1" } else { b"0" }, 0);
            }
            st.told = now;
        }
    }
}

/// The environment variable that names a file where a top level's process keeps whether what
/// it showed on standard output last ends a line (`1`, or nothing yet) or not (`0`): a parent
/// that kills it (a timeout, the memory bound) then starts its own message on a line of its
/// own ([`ends_a_line`]). (Scryer writes out what a goal wrote at its next write: the last
/// `nl/0` of a goal that is killed is never shown.)
pub const LINE_VAR: &str = "KENKEN_TOPLEVEL_LINE";

/// Whether the top level whose [`LINE_VAR`] file is `file` left the output at the start of a
/// line (or the file says nothing).
pub fn ends_a_line(file: &Path) -> bool {
    std::fs::read(file).map_or(true, |b| b.first() != Some(&b'0'))
}

/// What `host.pl` writes to user_output for the host (never shown): [`FRESH_LINE`] asks for a
/// new line unless the output so far ends one; [`CLOCK`] for the wall-clock time, in
/// milliseconds since the engine started, which the host sends back through user_input's
/// channel (`kk_wall_ms/1`: Scryer has no clock finer than seconds).
const FRESH_LINE: u8 = 1;
const CLOCK: u8 = 2;
/// What `host.pl` writes to user_output for the batch of output to be shown now ([`Shown`]).
const FLUSH: u8 = 3;

impl Toplevel {
    /// Starts an engine with the top level (and `kenken.pl` unless `no_kenken`).
    pub fn new(no_kenken: bool) -> Toplevel {
        // user_output is the real standard output, except while our own program loads (its
        // loader's warnings are not the user's business).
        let quiet = Arc::new(AtomicBool::new(true));
        let loud = quiet.clone();
        let at_line_start = Arc::new(AtomicBool::new(true));
        let line_start = at_line_start.clone();
        // (told to the parent that may kill this process, see LINE_VAR)
        let line_file = std::env::var_os(LINE_VAR)
            .and_then(|p| std::fs::OpenOptions::new().write(true).open(p).ok());
        let shown = Shown::new(line_file);
        let to_show = shown.clone();
        let (mut clock, input) = InputStreamConfig::channel();
        // (the session's clocks go on from where the engine before this one left them)
        let clocks = Clocks::from_env();
        let started = Instant::now();
        let origin = clocks.wall_origin;
        let out = OutputStreamConfig::callback(Box::new(move |buf| {
            let bytes = std::mem::take(buf.get_mut());
            buf.set_position(0);
            let mut shown = Vec::with_capacity(bytes.len() + 1);
            let mut flush = false;
            for b in bytes {
                match b {
                    FLUSH => flush = true,
                    FRESH_LINE => {
                        if !line_start.load(Ordering::Relaxed) {
                            shown.push(b'\n');
                            line_start.store(true, Ordering::Relaxed);
                        }
                    }
                    CLOCK => {
                        let ms = match origin {
                            Some(o) => epoch_ms().saturating_sub(o),
                            None => started.elapsed().as_millis() as u64,
                        };
                        let _ = clock.write_all(format!("{ms}.\n").as_bytes());
                    }
                    b => {
                        shown.push(b);
                        line_start.store(b == b'\n', Ordering::Relaxed);
                    }
                }
            }
            if !loud.load(Ordering::Relaxed) && !shown.is_empty() {
                to_show.push(&shown, line_start.load(Ordering::Relaxed));
            }
            if flush {
                to_show.flush();
            }
        }));
        let hushed = quiet.clone();
        let before_err = shown.clone();
        let err = OutputStreamConfig::callback(Box::new(move |buf| {
            let bytes = std::mem::take(buf.get_mut());
            buf.set_position(0);
            if !hushed.load(Ordering::Relaxed) && !bytes.is_empty() {
                before_err.flush();
                let mut o = std::io::stderr().lock();
                let _ = o.write_all(&bytes).and_then(|_| o.flush());
            }
        }));
        let mut machine = MachineBuilder::default()
            .with_streams(
                StreamConfig::stdio()
                    .with_user_output(out)
                    .with_user_error(err)
                    .with_user_input(input),
            )
            .with_toplevel(TOPLEVEL_MODULE)
            .build();
        let program = if no_kenken {
            format!("{HOST_PL}\n{HOST_EXPAND_PL}")
        } else {
            format!("{KENKEN_PL}\n{HOST_PL}\n{HOST_EXPAND_PL}{ALL_LIBRARIES}")
        };
        machine.consult_module_string("user", program);
        machine.consult_module_string("user", TOP_PREDICATES.to_string());
        let relay = std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        // (flush what the loader wrote, quietly)
        // (with kenken.pl, the homework's predicates are noted: a file consulted in the
        // session that defines one is not loaded, see kk_consult_one/1 in host.pl)
        let homework = if no_kenken {
            String::new()
        } else {
            let pis: Vec<String> = HOMEWORK.iter().map(|(n, a)| format!("{n}/{a}")).collect();
            format!("bb_put(kk_homework, [{}]), ", pis.join(", "))
        };
        let _ = machine
            .run_query(format!(
                "kk_top_start({}), kk_clock_offsets({}, {}), {homework}flush_output.",
                quote_atom(&relay),
                clocks.cpu_ms,
                clocks.inferences
            ))
            .count();
        quiet.store(false, Ordering::Relaxed);
        at_line_start.store(true, Ordering::Relaxed);
        shown.flush();
        Toplevel {
            machine,
            at_line_start,
            shown,
            broken: false,
            kenken: !no_kenken,
            feed: None,
        }
    }

    /// Runs `goal` (Prolog text; a missing final `.` is added) in `mode`.
    pub fn run(&mut self, goal: &str, mode: &Mode) -> Result<TopResult, PrologError> {
        let asked = mode;
        // (the goal was typed on a line of its own, or is the first thing shown)
        self.at_line_start.store(true, Ordering::Relaxed);
        // (a quote left open is ended by a new line, as the user's Enter ends it for Scryer's
        // top level: its reader then says missing_quote or invalid_single_quoted_character)
        let mut text = goal.trim_end().to_string();
        if ends_in_quote(&text) {
            text.push('\n');
        } else if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let libraries = lazy_libraries(&text);
        if !libraries.is_empty() {
            self.one(
                &format!("kk_need_libraries([{}]), R = true.", libraries.join(", ")),
                "R",
            )?;
        }
        // (`query`: every goal reads through one relay, which goes on to the next goal)
        let reads = match mode {
            Mode::Batch(_) => "keep",
            Mode::Ask(..) if reads_input(&text) => "true",
            Mode::Ask(..) => "false",
        };
        let mode = match mode {
            Mode::Batch(n) => format!("batch({})", (*n).max(1)),
            Mode::Ask(i, o) => format!(
                "ask({}, {})",
                quote_atom(&i.to_string_lossy()),
                quote_atom(&o.to_string_lossy())
            ),
        };
        RESOURCE_PANIC.store(false, Ordering::Relaxed);
        let r = match self.one(
            &format!("kk_top({}, {mode}, {reads}, R).", quote(&text)),
            "R",
        ) {
            Ok(r) => r,
            // (the engine is not to be trusted after a panic: the host replaces it)
            Err(PrologError::Failed(_)) if RESOURCE_PANIC.load(Ordering::Relaxed) => {
                return Ok(TopResult::OutOfMemory)
            }
            Err(e) => return Err(e),
        };
        match &r {
            Term::Atom(a) if a == "true" => Ok(TopResult::True),
            Term::Atom(a) if a == "false" => Ok(TopResult::False),
            Term::Atom(a) if a == "error" => Ok(TopResult::Error),
            Term::Atom(a) if a == "limit" => Ok(TopResult::Limit),
            Term::Atom(a) if a == "memory" => Ok(TopResult::OutOfMemory),
            // (a file the goal names replaces kenken.pl: the goal runs in an engine without it)
            Term::Atom(a) if a == "swap" => {
                self.without_kenken()?;
                self.run(goal, asked)
            }
            Term::Atom(a) if a == "swapped" => {
                self.without_kenken()?;
                Ok(TopResult::Replaced)
            }
            Term::Compound(h, _) if h == "halt" => {
                Ok(halt_code(&r).map_or(TopResult::Error, TopResult::Halt))
            }
            _ => Err(PrologError::Protocol(super::term_text(&r))),
        }
    }

    /// Consults `file` (reported and survived when it does not load): [`TopResult::Halt`]
    /// when the file called `halt/0,1` (in a directive or an `initialization/1` goal).
    pub fn consult(&mut self, file: &Path) -> Result<TopResult, PrologError> {
        let goal = format!(
            "kk_top_consult({}, R).",
            quote_atom(&file.to_string_lossy())
        );
        match self.one(&goal, "R")? {
            Term::Atom(a) if a == "true" => Ok(TopResult::True),
            r => Ok(halt_code(&r).map_or(TopResult::False, TopResult::Halt)),
        }
    }

    /// The engine's clocks: the offset from its process's CPU time to the session's (in
    /// milliseconds), and the session's inferences so far (`statistics/2`).
    fn clocks(&mut self) -> Result<(i64, u64), PrologError> {
        let t = self.one("kk_clocks(B, I), R = B-I.", "R")?;
        let number = |t: &Term| match t {
            Term::Integer(i) => i.to_string().parse::<i64>().ok(),
            _ => None,
        };
        match &t {
            Term::Compound(h, args) if h == "-" && args.len() == 2 => {
                match (number(&args[0]), number(&args[1])) {
                    (Some(b), Some(i)) => Ok((b, i.max(0) as u64)),
                    _ => Err(PrologError::Protocol(super::term_text(&t))),
                }
            }
            _ => Err(PrologError::Protocol(super::term_text(&t))),
        }
    }

    /// This engine replaced by one without `kenken.pl`, given this one's state.
    fn without_kenken(&mut self) -> Result<(), PrologError> {
        let state = self.state()?;
        let feed = self.feed.take();
        *self = Toplevel::new(true);
        if let Some(fifo) = feed {
            self.feed_from(&fifo)?;
        }
        self.restore(&state)
    }

    /// The goals that read get their input from the named pipe `fifo`, where the host feeds
    /// them (see [`PipedInput`]), through the relay.
    fn feed_from(&mut self, fifo: &Path) -> Result<(), PrologError> {
        self.feed = Some(fifo.to_path_buf());
        self.one(
            &format!(
                "bb_put(kk_feed, {}), R = true.",
                quote_atom(&fifo.to_string_lossy())
            ),
            "R",
        )
        .map(|_| ())
    }

    /// Whether the engine has `kenken.pl` (a file consulted in the session may have replaced
    /// it: [`TopResult::Replaced`]).
    pub fn has_kenken(&self) -> bool {
        self.kenken
    }

    /// The names of the predicates the session sees (its own, those of its files, those it
    /// imports; not the top level's own): what the repl completes a name with.
    pub fn names(&mut self) -> Result<Vec<String>, PrologError> {
        let t = self.one("kk_user_names(Cs).", "Cs")?;
        let text =
            super::chars_of(&t).ok_or_else(|| PrologError::Protocol(super::term_text(&t)))?;
        Ok(text.split_whitespace().map(str::to_string).collect())
    }

    /// The session's state as a goal that restores it in a fresh engine.
    pub fn state(&mut self) -> Result<String, PrologError> {
        let t = self.one("kk_state(S).", "S")?;
        super::chars_of(&t).ok_or_else(|| PrologError::Protocol(super::term_text(&t)))
    }

    /// Runs a state goal made by [`Toplevel::state`] (quietly, but for what the restart lost:
    /// a value of `bb_put/2`, a file that loaded before and no longer does).
    fn restore(&mut self, state: &str) -> Result<(), PrologError> {
        self.one(
            &format!("kk_top_restore({}, R).", quote(&format!("{state} ."))),
            "R",
        )
        .map(|_| ())
    }

    /// Runs a host goal that binds `var` once, deterministically. Scryer 0.10 panics on a few
    /// goals instead of raising an error (asserting a cyclic term deep in a user's predicate,
    /// ...): the panic is caught and told as an error, after which the engine is not to be
    /// trusted ([`TopProcess`] replaces it).
    fn one(&mut self, query: &str, var: &str) -> Result<Term, PrologError> {
        let r = self.one_(query, var);
        self.shown.flush();
        r
    }

    /// [`Toplevel::one`], its output perhaps not shown yet.
    fn one_(&mut self, query: &str, var: &str) -> Result<Term, PrologError> {
        if self.broken {
            return Err(PrologError::Failed(
                "the Prolog engine failed on an earlier goal".into(),
            ));
        }
        let machine = &mut self.machine;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut found = None;
            for a in machine.run_query(query.to_string()) {
                match a {
                    Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                        if let Some(r) = bindings.get(var) {
                            found.get_or_insert(r.clone());
                        }
                    }
                    Ok(LeafAnswer::False) | Ok(LeafAnswer::True) => {}
                    Ok(LeafAnswer::Exception(e)) | Err(e) => {
                        return Err(PrologError::Protocol(super::term_text(&e)))
                    }
                }
            }
            found.ok_or_else(|| PrologError::Protocol(format!("{query} failed")))
        }));
        run.unwrap_or_else(|panic| {
            self.broken = true;
            let why = super::query::panic_text(&panic);
            Err(PrologError::Failed(format!(
                "the Prolog engine failed on this goal (Scryer Prolog: {why})"
            )))
        })
    }
}

/// The exit code of `halt(Code)` as the host's Prolog side reports it: Code as a process
/// exit code (its low 8 bits, as the system keeps them; one too big for an `i64` is 2).
fn halt_code(t: &Term) -> Option<i32> {
    match t {
        Term::Compound(h, args) if h == "halt" && args.len() == 1 => match &args[0] {
            Term::Integer(i) => Some(
                i.to_string()
                    .parse::<i64>()
                    .map_or(2, |n| (n & 0xff) as i32),
            ),
            _ => None,
        },
        _ => None,
    }
}

/// Keeps a panic's message and backtrace off the screen: the panics of the engine are caught
/// and told as errors (see `Toplevel::one`). For the processes that run a top level. A panic
/// within Scryer's own way of throwing a resource error (its heap could not grow: 0.10 panics
/// there when the error itself does not fit, `numlist(1, 200000000, L)` under `--memory`) is
/// noted (`RESOURCE_PANIC`): the goal reached the memory bound.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        if trace.contains("throw_resource_error") {
            RESOURCE_PANIC.store(true, Ordering::Relaxed);
        }
    }));
}

/// Whether the engine panicked while throwing a resource error (see [`quiet_panics`]).
static RESOURCE_PANIC: AtomicBool = AtomicBool::new(false);

/// The libraries `host.pl` loads only when needed (`kk_need_libraries/1`), with the names of
/// the predicates each exports (Scryer 0.10.0's `library(charsio)`, `format`, `time`,
/// `between`; `format_//2` and `format_time//2` as `format_` and `format_time`).
const LAZY_LIBRARIES: &[(&str, &[&str])] = &[
    (
        "charsio",
        &[
            "char_type",
            "chars_utf8bytes",
            "get_single_char",
            "get_n_chars",
            "get_line_to_chars",
            "read_from_chars",
            "read_term_from_chars",
            "write_term_to_chars",
            "chars_base64",
        ],
    ),
    (
        "format",
        &[
            "format_",
            "format",
            "portray_clause_",
            "portray_clause",
            "listing",
        ],
    ),
    (
        "time",
        // (not time/1 nor statistics/2: the top level has its own)
        &["max_sleep_time", "sleep", "current_time", "format_time"],
    ),
    (
        "between",
        &["between", "gen_int", "gen_nat", "numlist", "repeat"],
    ),
];

/// Whether `c` is part of a word: a letter, a digit or `_`.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words of `goal` (runs of letters, digits and `_`), which name the predicates it may call.
fn words(goal: &str) -> std::collections::HashSet<&str> {
    goal.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The words that call a goal they are given (`call(F, ...)`, `maplist(F, ...)`...): a goal
/// holding one may call a predicate whose name it builds (`atom_concat(for, mat, F), call(F,
/// "~w", [x])`), which no word of its text names.
const META_CALLS: &[&str] = &[
    "call",
    "apply",
    "maplist",
    "foldl",
    "findall",
    "forall",
    "bagof",
    "setof",
    "once",
    "ignore",
    "catch",
    "call_cleanup",
    "setup_call_cleanup",
    "assertz",
    "asserta",
    "assert",
];

/// The lazy libraries whose predicates `goal` names: a word of its text (letters, digits and
/// `_`, quoted or not, in a comment or a string too: loading one library too many does no
/// harm) that one of them exports; all of them when it calls a goal it is given (`=..`, or a
/// word of [`META_CALLS`]), since that goal's name may be built as it runs. (A variable where
/// a goal stands, `G = format("~w", [x]), G`, loads them all as it runs: `kk_var_goal/1` in
/// `host.pl`.)
fn lazy_libraries(goal: &str) -> Vec<&'static str> {
    let words = words(goal);
    let meta = goal.contains("=..") || META_CALLS.iter().any(|m| words.contains(m));
    LAZY_LIBRARIES
        .iter()
        .filter(|(_, names)| meta || names.iter().any(|n| words.contains(n)))
        .map(|(lib, _)| *lib)
        .collect()
}

/// The predicates of library(clpz) (Scryer 0.10.0) that `kenken.pl` brings to the top level,
/// by name; its operators all hold `#`, or are `in`, `ins` and `..`.
const CLPZ_NAMES: &[&str] = &[
    "in",
    "ins",
    "all_different",
    "all_distinct",
    "nvalue",
    "sum",
    "scalar_product",
    "tuples_in",
    "labeling",
    "label",
    "indomain",
    "lex_chain",
    "serialized",
    "global_cardinality",
    "circuit",
    "cumulative",
    "disjoint2",
    "element",
    "automaton",
    "zcompare",
    "chain",
    "fd_var",
    "fd_inf",
    "fd_sup",
    "fd_size",
    "fd_dom",
    "clpz_t",
];

/// Whether `goal` may need `kenken.pl` (with library(clpz)): whether it holds `#` or `..`, or
/// a word (as `lazy_libraries` reads words) that names a predicate `kenken.pl` defines (a
/// clause head at the start of a line) or one of clpz's. `kenken query` loads `kenken.pl` only
/// then (or when files are consulted): the load is most of its time. A goal that builds such
/// a name (`atom_concat(ken, ken, F), call(F, ...)`) is not seen.
pub fn needs_kenken(goal: &str) -> bool {
    if goal.contains('#') || goal.contains("..") {
        return true;
    }
    let words = words(goal);
    let defined = KENKEN_PL.lines().filter_map(|l| {
        let name: &str = &l[..l.find(|c: char| !is_word_char(c)).unwrap_or(l.len())];
        name.starts_with(|c: char| c.is_ascii_lowercase())
            .then_some(name)
    });
    CLPZ_NAMES
        .iter()
        .copied()
        .chain(defined)
        .any(|n| words.contains(n))
}

/// The predicates that read the current input (Scryer 0.10.0's builtins and library(charsio)),
/// and `user` (of `[user]`). `kk_input_goal/1` in `host.pl` names the same predicates.
const INPUT_NAMES: &[&str] = &[
    "read",
    "read_term",
    "get_char",
    "get_code",
    "get_byte",
    "peek_char",
    "peek_code",
    "peek_byte",
    "get_single_char",
    "get_line_to_chars",
    "get_n_chars",
    "user",
];

/// Whether `goal` names a predicate that reads the input (a word, as [`lazy_libraries`] reads
/// words): in the repl it then reads through a relay of standard input (`kk_reader_start/0` in
/// `host.pl`), and so does every goal once a consulted file's code reads (`host.pl` marks it as
/// it loads). Other goals read standard input opened as a file, where read/1 reads as it should
/// but get_char/1 only the first character (Scryer 0.10 takes it for ended then). In `query`
/// every goal reads through the relay.
fn reads_input(goal: &str) -> bool {
    let words = words(goal);
    INPUT_NAMES.iter().any(|n| words.contains(n))
}

/// The environment variable that makes the `toplevel` worker a relay of standard input.
const RELAY_VAR: &str = "KENKEN_TOPLEVEL_RELAY";

/// The relay of standard input (see [`reads_input`]): copies it to standard output as it
/// comes, until its end or until its parent (the top level's engine) dies (as every worker,
/// it dies with its parent: see `crate::process::lifecycle`).
fn relay() -> std::io::Result<()> {
    use std::io::Read;
    // (from the named pipe the parent feeds, in a piped repl; or standard input)
    let from = std::env::var_os(RELAY_VAR).filter(|v| v != "1");
    let mut input: Box<dyn Read> = match from {
        Some(fifo) => Box::new(std::fs::File::open(fifo)?),
        None => Box::new(std::io::stdin().lock()),
    };
    let mut output = std::io::stdout().lock();
    let mut buf = [0u8; 4096];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        output.write_all(&buf[..n])?;
        output.flush()?;
    }
}

/// `text` as a quoted Prolog atom.
fn quote_atom(text: &str) -> String {
    let mut s = String::from("'");
    for c in text.chars() {
        match c {
            '\'' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            c => s.push(c),
        }
    }
    s.push('\'');
    s
}

/// The environment variable that gives a top level's engine the session's clocks as the
/// engine before it left them ([`Clocks`]): `statistics/2` only grows across restarts.
const CLOCKS_VAR: &str = "KENKEN_TOPLEVEL_CLOCKS";

/// Where a top level's clocks start (`statistics/2`): `walltime` counts from `wall_origin`
/// (milliseconds since the Unix epoch; `None`: from the engine's start), `runtime` from
/// `cpu_ms` and `inferences` from `inferences`, both counting only what the user's goals take
/// (not the engine's load).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Clocks {
    wall_origin: Option<u64>,
    cpu_ms: u64,
    inferences: u64,
}

impl Clocks {
    /// The clocks [`CLOCKS_VAR`] gives (`ORIGIN CPU INFERENCES`), or fresh ones.
    fn from_env() -> Clocks {
        let text = std::env::var(CLOCKS_VAR).unwrap_or_default();
        let n: Vec<u64> = text
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        match n[..] {
            [w, c, i] => Clocks {
                wall_origin: Some(w),
                cpu_ms: c,
                inferences: i,
            },
            _ => Clocks::default(),
        }
    }
}

/// Milliseconds since the Unix epoch.
fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The CPU time (user and system) of this process's children that have ended and been
/// reaped, in milliseconds.
fn children_cpu_ms() -> u64 {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::TimeValLike;
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0, |u| {
        (u.user_time().num_milliseconds() + u.system_time().num_milliseconds()).max(0) as u64
    })
}

/// The environment variable that gives the child top level its two pipes and setup.
const TOP_VAR: &str = "KENKEN_TOPLEVEL";

#[derive(Serialize, Deserialize)]
struct ChildSetup {
    to_child: PathBuf,
    from_child: PathBuf,
    setup: Setup,
    /// The named pipe where the parent feeds the goals their input (see [`PipedInput`]).
    feed: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
enum Request {
    Goal(String, bool),
    Restore(String),
}

/// What the child tells its parent: `Ready` with its engine's CPU offset (the session's CPU
/// time is its process's plus this, in milliseconds) and the names of the predicates it sees;
/// `Done` with the goal's end, the state after it (when asked for), the session's inferences,
/// the names of the predicates it sees then, and whether its engine has `kenken.pl` (a file
/// the goal consulted may have replaced it).
#[derive(Serialize, Deserialize)]
enum Reply {
    Ready(i64, Vec<String>),
    Done(TopResult, Option<String>, Option<u64>, Vec<String>, bool),
    Failed(String),
}

/// The `toplevel` worker role: serves a [`TopProcess`] parent until it goes away (or its
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

/// Text cut into goals by [`split_goals`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goals {
    /// The complete goals, in order, each with its final `.`.
    pub complete: Vec<String>,
    /// What follows the last complete goal, when it holds more than layout and comments (a
    /// goal still being typed, or a quoted item or comment not yet closed).
    pub rest: Option<String>,
}

/// Cuts `text` into goals where a Prolog reader ends a term: at a `.` followed by layout, `%`
/// or the end of the text, outside quotes (`'...'`, `"..."`, `` `...` ``, `0'c`) and comments,
/// and not part of a symbol (`=..`). A quoted item that meets a new line (not escaped by `\`)
/// ends its goal there, as Scryer's and GNU Prolog's readers stop at it with a syntax error
/// (a goal typed with a quote left open is told at once, not waited for).
pub fn split_goals(text: &str) -> Goals {
    scan_goals(text).0
}

/// Whether `goal` (one goal) ends within a quoted item: [`Toplevel::run`] then ends it with a
/// new line, for the reader to tell the quote left open as Scryer's top level does.
fn ends_in_quote(goal: &str) -> bool {
    scan_goals(goal).1
}

/// [`split_goals`], and whether the text ends within a quoted item.
fn scan_goals(text: &str) -> (Goals, bool) {
    const SYMBOL: &str = "+-*/\\^<>=~:.?@#&$";
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let n = cs.len();
    let at = |k: usize| if k < n { cs[k].0 } else { text.len() };
    let ch = |k: usize| if k < n { Some(cs[k].1) } else { None };
    let mut complete = Vec::new();
    let (mut start, mut content, mut open) = (0, false, false);
    let (mut after_symbol, mut quoted) = (false, false);
    let mut i = 0;
    while i < n {
        let c = cs[i].1;
        match c {
            '%' => {
                while i < n && cs[i].1 != '\n' {
                    i += 1;
                }
                after_symbol = false;
                continue;
            }
            '/' if ch(i + 1) == Some('*') => {
                i += 2;
                loop {
                    if i >= n {
                        open = true;
                        break;
                    }
                    if cs[i].1 == '*' && ch(i + 1) == Some('/') {
                        i += 2;
                        break;
                    }
                    i += 1;
                }
                after_symbol = false;
                continue;
            }
            '\'' if i > 0
                && cs[i - 1].1 == '0'
                && !(i > 1 && (cs[i - 2].1.is_alphanumeric() || cs[i - 2].1 == '_'))
                // (0'\ and a new line is no character code: 0 then a quoted atom, ISO
                // conformity #259)
                && !(ch(i + 1) == Some('\\') && ch(i + 2) == Some('\n')) =>
            {
                // 0'c: the character code of c (an escape or a doubled quote are one;
                // \x41\ and \101\ end at their closing \)
                content = true;
                i += 1;
                i += match (ch(i), ch(i + 1)) {
                    (Some('\\'), Some(d)) if d == 'x' || d.is_ascii_digit() => {
                        let mut k = 2;
                        while ch(i + k).is_some_and(|e| e.is_ascii_alphanumeric()) {
                            k += 1;
                        }
                        k + usize::from(ch(i + k) == Some('\\'))
                    }
                    (Some('\\'), _) | (Some('\''), Some('\'')) => 2,
                    _ => 1,
                };
                after_symbol = false;
                continue;
            }
            '\'' | '"' | '`' => {
                content = true;
                i += 1;
                loop {
                    match ch(i) {
                        None => {
                            open = true;
                            quoted = true;
                            break;
                        }
                        Some('\n') => {
                            // (the reader stops here: the goal ends, a syntax error)
                            complete.push(text[start..at(i)].trim().to_string());
                            start = at(i + 1);
                            content = false;
                            i += 1;
                            break;
                        }
                        Some('\\') => i += 2,
                        Some(d) if d == c && ch(i + 1) == Some(c) => i += 2,
                        Some(d) if d == c => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                after_symbol = false;
                continue;
            }
            '.' if !after_symbol && ch(i + 1).is_none_or(|d| d.is_whitespace() || d == '%') => {
                if content {
                    complete.push(text[start..at(i + 1)].trim().to_string());
                }
                start = at(i + 1);
                content = false;
            }
            c if c.is_whitespace() => after_symbol = false,
            c => {
                content = true;
                after_symbol = SYMBOL.contains(c);
            }
        }
        i += 1;
    }
    let rest = (content || open).then(|| text[start.min(text.len())..].trim().to_string());
    (Goals { complete, rest }, quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_that_calls_a_built_name_loads_every_lazy_library() {
        assert_eq!(lazy_libraries("format(\"~w\", [x])"), vec!["format"]);
        assert!(lazy_libraries("X = 1").is_empty());
        for goal in ["call(F, 1)", "G =.. [f], G", "maplist(P, L)"] {
            assert_eq!(
                lazy_libraries(goal),
                vec!["charsio", "format", "time", "between"],
                "{goal}"
            );
        }
    }

    fn split(text: &str) -> (Vec<String>, Option<String>) {
        let g = split_goals(text);
        (g.complete, g.rest)
    }

    #[test]
    fn kenken_pl_is_needed_by_goals_that_name_it_or_clpz() {
        assert!(needs_kenken("kenken(4, C, T)."));
        assert!(needs_kenken("noop_kenken_testcase."));
        assert!(needs_kenken("X #= 1 + 2."));
        assert!(needs_kenken("X in 1..3, label([X])."));
        assert!(needs_kenken("fd_set_vector_max(255)."));
        assert!(!needs_kenken("true."));
        assert!(!needs_kenken("X = 1, format(\"~a~n\", [x])."));
        assert!(!needs_kenken("member(X, [a, b])."));
    }

    #[test]
    fn clause_heads_are_read_as_a_prolog_reader_reads_them() {
        let head = |c: &str| clause_head(c).map(|(n, a)| format!("{n}/{a}"));
        assert_eq!(head("kenken(N, C, T) :- true."), Some("kenken/3".into()));
        assert_eq!(head("% c\n/* d */ p."), Some("p/0".into()));
        assert_eq!(head("p :- q(a, b)."), Some("p/0".into()));
        assert_eq!(
            head("'plain_kenken'(N, [f(a, b)], \"x,y\") :- true."),
            Some("plain_kenken/3".into())
        );
        assert_eq!(head("p(0',, 'a,b', `,`)."), Some("p/3".into()));
        assert_eq!(head(":- initialization(kenken(1, 2, 3))."), None);
        assert_eq!(head("X = 1."), None);
        assert_eq!(head("p(a, "), None);
    }

    #[test]
    fn goals_end_at_a_full_stop_outside_quotes_and_comments() {
        assert_eq!(
            split("X = 1. Y = 2."),
            (vec!["X = 1.".to_string(), "Y = 2.".to_string()], None)
        );
        assert_eq!(
            split("X = 1.\nY = 2.\n"),
            (vec!["X = 1.".to_string(), "Y = 2.".to_string()], None)
        );
        assert_eq!(split("X = 1. % note\n"), (vec!["X = 1.".to_string()], None));
        assert_eq!(split("X = 1.% note"), (vec!["X = 1.".to_string()], None));
        assert_eq!(
            split("X = 'abc."),
            (Vec::<String>::new(), Some("X = 'abc.".into()))
        );
        assert_eq!(
            split("X = 'a. b'."),
            (vec!["X = 'a. b'.".to_string()], None)
        );
        assert_eq!(
            split("X = \"it''s. \"."),
            (vec!["X = \"it''s. \".".to_string()], None)
        );
        assert_eq!(
            split("X = 0'., Y = 1."),
            (vec!["X = 0'., Y = 1.".to_string()], None)
        );
        assert_eq!(
            split("X = 0''', Y = 1."),
            (vec!["X = 0''', Y = 1.".to_string()], None)
        );
        assert_eq!(split("X =.. Y."), (vec!["X =.. Y.".to_string()], None));
        assert_eq!(split("X = 1.5 ."), (vec!["X = 1.5 .".to_string()], None));
        assert_eq!(
            split("X = 1. Y = "),
            (vec!["X = 1.".to_string()], Some("Y =".into()))
        );
        assert_eq!(
            split("/* a. */ X = 1."),
            (vec!["/* a. */ X = 1.".to_string()], None)
        );
        assert_eq!(
            split("/* a. "),
            (Vec::<String>::new(), Some("/* a.".into()))
        );
        assert_eq!(
            split("  \n% only a comment\n"),
            (Vec::<String>::new(), None)
        );
        assert_eq!(
            split("X = 'a\\'. b'."),
            (vec!["X = 'a\\'. b'.".to_string()], None)
        );
    }

    /// Issue 37 item 10: ISO conformity #259 and other splits a reader makes.
    #[test]
    fn goals_are_cut_where_the_reader_ends_them() {
        let one = |t: &str| (vec![t.to_string()], None::<String>);
        // 0'\ then a new line is 0, then the quoted atom '+' (\ and the new line are a
        // continuation), then a block comment holding '. %': one goal.
        assert_eq!(
            split("X = 0'\\\n+'/*'. %*/1."),
            one("X = 0'\\\n+'/*'. %*/1.")
        );
        // 0'c with escapes that hold more than one character
        assert_eq!(
            split("X = 0'\\x41\\. Y = 1."),
            (
                vec!["X = 0'\\x41\\.".to_string(), "Y = 1.".to_string()],
                None
            )
        );
        assert_eq!(split("X = 0'\\101\\."), one("X = 0'\\101\\."));
        assert_eq!(split("X = 0'%, Y = 0'.."), one("X = 0'%, Y = 0'.."));
        // % and . in quotes, a quote in a block comment
        assert_eq!(
            split("X = \"a%b. \", Y = '%'."),
            one("X = \"a%b. \", Y = '%'.")
        );
        assert_eq!(
            split("/* it's. */ X = `a. `."),
            one("/* it's. */ X = `a. `.")
        );
        assert_eq!(split("X = 'a\\\nb'."), one("X = 'a\\\nb'."));
        // a new line in a quoted item ends the goal (a syntax error, told at once)
        assert_eq!(
            split("X = 'abc.\nY = 1.\n"),
            (vec!["X = 'abc.".to_string(), "Y = 1.".to_string()], None)
        );
        assert!(ends_in_quote("X = 'abc."));
        assert!(ends_in_quote("X = \"abc."));
        assert!(!ends_in_quote("X = 'abc'."));
        assert!(!ends_in_quote("X = 0'\\\n+'/*'. %*/1."));
    }
}
