//! One seam for every Prolog system: what the engines and the judge ask of Scryer Prolog, GNU
//! Prolog and SWI-Prolog, and nothing of how each does it.
//!
//! A [`PrologSystem`] loads a [`Program`] (the homework, or a judged file with its
//! [`Dialect`](crate::dialect::Dialect)), then runs [`Goal`]s against it: a goal binding `T`,
//! written in the spec's canonical terms, within a deadline and bounds (answers, inferences).
//! Each answer is given back as it comes ([`Answer`], the binding of `T` read as a grid of the
//! goal's size, or its text when it is not one), and the run ends with one typed [`Outcome`]:
//! how it ended ([`End`]: complete, stopped by which [`Bound`], an exception, a `halt`, a
//! crash, or a reply that cannot be trusted) and its time, taken by this process's clock.
//!
//! The implementations:
//! - [`ScryerThread`]: the embedded Scryer Prolog in this process, on a thread of its own.
//!   Nothing stops it by the clock, so it refuses a goal with a deadline ([`SystemError::NeedsWorker`]).
//! - [`ScryerWorker`]: the embedded Scryer Prolog in a worker process ([`crate::worker`]),
//!   killed at the deadline, with a warm spare; it loads a judged file too, in a fresh worker
//!   for every goal, with the judge's Prolog side (`system/scryer/`: one worker role and one
//!   protocol for both programs), confined when built with [`ScryerWorker::confined`].
//! - [`Gprolog`]: GNU Prolog as a child, one confined `gprolog` per goal (`system::gnu`, its
//!   driver `prolog/gnu_driver.pl`).
//! - [`Swipl`]: SWI-Prolog as a child, one confined `swipl` per goal (its driver
//!   `prolog/swi_driver.pl`, the homework `prolog/swi_kenken.pl`).
//!
//! A child system (`gprolog`, `swipl`) speaks the process layer's frames
//! (`crate::process::Ticket`): its driver reads the request (with a fresh nonce) from standard
//! input before it loads the program, says `part loaded`, gives each answer as a `part` frame,
//! and ends with a `done` frame (`complete`, `limit`, `exception(B)`); anything else it writes
//! is the program's printed output. The parent times the goal from the `loaded` frame to the
//! `done` frame by its own clock ([`Clock`]): no number from the child is believed.
//! `system::child` holds what every child system shares: reading those frames into answers and an
//! [`End`].
//!
//! # Adding a system
//! `docs/systems.md` walks through it: a module here implementing [`PrologSystem`], a driver
//! `.pl` speaking the frames above, the homework in that system's dialect, and an
//! [`EngineKind`](crate::engine::EngineKind) pair (`-fd`, `-plain`) that opens it.
//!
//! # The judge
//! `kenken judge` runs on this seam for every system (`judge/system.rs`: any [`PrologSystem`]
//! plugs in): [`Program::File`] carries the judged file, its dialect and
//! whether its FD solver may be reached (`fd: false` for `plain_kenken/3`), [`Loaded`] the
//! load's warnings, [`SystemError::Syntax`] its syntax errors, and the judge's `RunEnd` is read
//! from [`End`] (`Complete`, `Stopped(Answers)` as its limit, `Stopped(Time)` as its timeout,
//! `Exception`, `Unsupported`, `Halted`, `Crashed` whose [`Crash`] keeps the exit status and standard error
//! for the jail to tell a blocked call or an exceeded limit, and `Untrusted` as a broken
//! protocol). Confinement belongs to the system's constructor ([`ChildSetup`]): the judge's
//! jail gives its limits and what the judged code may read, and [`PrologSystem::reach`] tells
//! the jail what the system's processes may reach.

mod child;
mod gnu;
mod gprolog;
mod scryer;
mod swipl;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::limit::Limit;
use crate::process::{Limits, WorkerError};
use crate::puzzle::Grid;

pub use gprolog::Gprolog;
pub(crate) use scryer::{scryer_worker, OPEN_ROUTE as SCRYER_OPEN_ROUTE};
pub use scryer::{ScryerThread, ScryerWorker};
pub use swipl::Swipl;

/// What a system loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// The homework (`kenken/3`, `plain_kenken/3`, with the spec's answers in its order), as
    /// the system has it: `prolog/kenken.pl` in Scryer, `prolog/gnu_kenken.pl` in GNU Prolog,
    /// `prolog/swi_kenken.pl` (`kenken.pl` under `library(clpfd)`) in SWI-Prolog.
    Homework,
    /// A file of Prolog text we did not write (a judged `kenken.pl`), written for `dialect`.
    File {
        /// The file.
        path: PathBuf,
        /// The dialect it is written in.
        dialect: crate::dialect::Dialect,
        /// Whether the program may reach the system's FD solver. `false` for a judged
        /// `plain_kenken/3`, which the spec forbids to use one: the system then loads the file
        /// where no FD solver exists (Scryer with a stub `library(clpz)` whose constraints
        /// throw, GNU Prolog built without its FD library), so that such a use fails by
        /// behaviour.
        fd: bool,
    },
}

/// A goal to run against the loaded program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goal {
    /// Prolog text binding `T`, in the spec's canonical terms, with or without its final `.`
    /// (`kenken(4, [+(3, [[1|1], [1|2]])], T)`).
    pub text: String,
    /// The side of the grid `T` should be: an answer that is no such grid comes back as
    /// [`Answer::value`]'s error.
    pub size: usize,
    /// Stop after this many answers (`None`: every one).
    pub max_answers: Option<usize>,
    /// Stop at this instant (this process's clock). A system that cannot be stopped by the
    /// clock refuses the goal ([`SystemError::NeedsWorker`]).
    pub deadline: Option<Instant>,
    /// Stop after this many inferences, where the system counts them (Scryer); others ignore
    /// it.
    pub inferences: Option<u64>,
}

impl Goal {
    /// `text` for a grid of side `size`, every answer, no deadline, no inference bound.
    pub fn new(text: &str, size: usize) -> Goal {
        Goal {
            text: text.trim().trim_end_matches('.').to_string(),
            size,
            max_answers: None,
            deadline: None,
            inferences: None,
        }
    }

    /// The goal's text without its final `.`.
    pub fn bare(&self) -> &str {
        self.text.trim().trim_end_matches('.')
    }
}

/// One answer of a goal, given as soon as the system gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// `T` as a grid of the goal's size, or, when it is not one, its text as the system wrote
    /// it.
    pub value: Result<Grid, String>,
    /// The inferences from the goal's start to this answer, where the system counts them.
    pub inferences: Option<u64>,
}

/// A bound that stopped a goal before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// [`Goal::max_answers`] answers were given; the rest was not searched.
    Answers,
    /// The deadline passed; the system was stopped (a child killed).
    Time,
    /// The inference bound was reached.
    Inferences,
}

impl Bound {
    /// The crate's [`Limit`] for a bound other than the answers' count.
    pub fn limit(self) -> Option<Limit> {
        match self {
            Bound::Answers => None,
            Bound::Time => Some(Limit::Time),
            Bound::Inferences => Some(Limit::Inferences),
        }
    }
}

/// What is known of a system that died while running a goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// Why, in words (the system's last words, or its exit status).
    pub why: String,
    /// How the process ended (`exit status 1`, `killed by SIGSEGV`), for a child system.
    pub status: Option<String>,
    /// The end of its standard error, for a child system.
    pub stderr: String,
}

/// How a goal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Every answer was given.
    Complete,
    /// A bound stopped it (the answers given before are kept).
    Stopped(Bound),
    /// The goal raised this exception (as the system writes it).
    Exception(String),
    /// The program called `halt` with this code (no reply came).
    Halted(i64),
    /// The program called a built-in of its dialect that this system does not give
    /// (`Name/Arity`): a GNU Prolog file's in Scryer's GNU Prolog layer.
    Unsupported(String),
    /// The system died (or failed: a Scryer panic, a worker lost).
    Crashed(Crash),
    /// The system's output broke the protocol (a frame that is not the request's, malformed,
    /// cut short or past the caps): no answer of the run is to be believed.
    Untrusted(String),
}

/// How a run went: its end and its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// How it ended.
    pub end: End,
    /// The goal's time by this process's clock ([`Clock`]): for a child system, from the frame
    /// that says the goal starts (its program loaded) to its end; for Scryer, from the call.
    pub elapsed: Duration,
    /// Inferences of the whole run, where the system counts them.
    pub inferences: Option<u64>,
    /// The CPU time the engine spent on the goal, as `time/1` in it would say (Scryer: the
    /// engine's thread, from the query's start to its end, our wrapper included), where the
    /// system measures it; never more than [`Outcome::elapsed`].
    pub cpu: Option<Duration>,
}

/// What a load said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// What the system and the program wrote while loading (warnings), trimmed.
    pub warnings: String,
}

/// Why a system could not load a program or run a goal at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SystemError {
    /// The system is not installed (the package to install, in words).
    #[error("{system} is not installed: {install}")]
    NotInstalled {
        /// The system's name, as people say it (`GNU Prolog`).
        system: &'static str,
        /// How to install it.
        install: &'static str,
    },
    /// The system cannot load this kind of program (yet).
    #[error("{0}")]
    Unsupported(String),
    /// No program is loaded.
    #[error("no program is loaded in {0}")]
    NotLoaded(&'static str),
    /// A goal with a deadline was given to a system that nothing stops by the clock here.
    #[error("{0} cannot be stopped by the clock in this process")]
    NeedsWorker(&'static str),
    /// The program has syntax errors: (line, message).
    #[error("{file} has syntax errors: {}", .errors.iter().map(|(l, m)| format!("line {l}: {m}")).collect::<Vec<_>>().join("; "))]
    Syntax {
        /// The file.
        file: String,
        /// (line, message) for each.
        errors: Vec<(usize, String)>,
    },
    /// The program does not load.
    #[error("{0}")]
    Load(String),
    /// The child could not confine itself.
    #[error("cannot confine the child process: {0}")]
    CannotConfine(String),
    /// A process or thread of the system could not be started or talked to.
    #[error(transparent)]
    Process(#[from] WorkerError),
    /// A file could not be written.
    #[error("{0}")]
    Io(String),
}

/// How a child system is started: confined (as every child we did not write is), with these
/// limits and these extra paths readable, and how much of its output is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSetup {
    /// Resource limits.
    pub limits: Limits,
    /// Files and folders the child reads besides its installation and its scratch folder (a
    /// judged file).
    pub read: Vec<PathBuf>,
    /// Files and folders the child never reads, whatever else says it may (the judge's own
    /// program, a classmate's file): see [`Confinement::hidden`](crate::process::Confinement::hidden).
    pub hidden: Vec<PathBuf>,
    /// At most this many bytes of a goal's output are read (answers and printed output
    /// together); past it the child is killed and the run is [`End::Untrusted`]. 16 MiB by
    /// default; the engines, which may be asked for every answer of a puzzle with millions,
    /// take [`ChildSetup::for_answers`].
    pub output_cap: usize,
    /// The longest frame (an answer) read; past it the child is killed and the run is
    /// [`End::Untrusted`]. 1 MiB by default; the judge takes 4 KiB (a 9x9 grid is some 200
    /// bytes).
    pub frame_cap: usize,
    /// Whether the child runs confined (`true` by default; `false` only for programs the user
    /// trusts, as `kenken judge --no-confine` says): unconfined it runs with the user's rights,
    /// in its scratch folder.
    pub confined: bool,
}

impl Default for ChildSetup {
    fn default() -> ChildSetup {
        ChildSetup {
            limits: Limits::default(),
            read: Vec::new(),
            hidden: Vec::new(),
            output_cap: 16 << 20,
            frame_cap: 1 << 20,
            confined: true,
        }
    }
}

impl ChildSetup {
    /// The default setup, reading up to 1 GiB of output a goal (about ten million answers of
    /// a 6x6 grid; the caller keeps them all anyway).
    pub fn for_answers() -> ChildSetup {
        ChildSetup {
            output_cap: 1 << 30,
            ..ChildSetup::default()
        }
    }
}

/// A goal's time by this process's clock: from its start (a child's `loaded` frame, or the
/// call) to its end (the `done` frame, the deadline, or the process's end).
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    called: Instant,
    started: Option<Instant>,
}

impl Clock {
    /// A clock started at the call.
    pub fn start() -> Clock {
        Clock {
            called: Instant::now(),
            started: None,
        }
    }

    /// The goal itself started at `at` (the system said its program is loaded).
    pub fn goal_started(&mut self, at: Instant) {
        self.started.get_or_insert(at);
    }

    /// When the call was made.
    pub fn called(&self) -> Instant {
        self.called
    }

    /// The time from the goal's start (or the call, when the goal never started) to `end`.
    pub fn until(&self, end: Instant) -> Duration {
        end.saturating_duration_since(self.started.unwrap_or(self.called))
    }
}

/// A Prolog system: loads a program, then runs goals against it, one at a time.
///
/// Every implementation gives the same contract: answers come to `answer` in the system's
/// order as soon as they are found (so that what was found before a deadline is kept), and
/// [`PrologSystem::run`] never panics: whatever goes wrong is its [`End`] (or, before
/// anything ran, a [`SystemError`]).
pub trait PrologSystem: Send {
    /// The system's name in messages (`scryer`, `gprolog`, `swipl`).
    fn name(&self) -> &'static str;

    /// Loads `program` (replacing any loaded before) within `timeout`: a child system checks
    /// that it loads, and loads it again in each goal's fresh process.
    fn load(&mut self, program: &Program, timeout: Duration) -> Result<Loaded, SystemError>;

    /// Runs `goal` against the loaded program within its deadline and bounds, calling `answer`
    /// with each answer as it comes.
    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError>;

    /// Waits until every process the system keeps in reserve (a warm spare) has started.
    fn settle(&mut self) {}

    /// Where the system's confined processes may write and what they may read, so that a
    /// refusal of confinement can be told from the program's own errors (the judge's
    /// `jail`); `None` for a system that runs nothing confined.
    fn reach(&self) -> Option<Reach> {
        None
    }

    /// The constraint libraries of the system that the loaded program cannot read, loaded
    /// without FD solver ([`Program::File`] with `fd: false`) where confinement hides them
    /// (SWI-Prolog's `library/clp/`), so that a refused read of one is told as such; empty
    /// for a system that hides none that way.
    fn hidden_solvers(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Keeps a process in reserve (a warm spare) for the next goal, or not: a caller that
    /// holds several systems keeps one only in the one that runs (the judge: `kenken/3`'s and
    /// `plain_kenken/3`'s). Systems without spares ignore it.
    fn keep_spare(&mut self, _keep: bool) {}
}

/// The most bytes of a text a program we did not write had a hand in (an exception, a
/// message) that a system or the judge gives back.
pub(crate) const MESSAGE_CAP: usize = 4096;

/// `text` cut to [`MESSAGE_CAP`] bytes (at a character's boundary), saying how much was cut.
pub(crate) fn cut(text: &str) -> String {
    if text.len() <= MESSAGE_CAP {
        return text.to_string();
    }
    let mut end = MESSAGE_CAP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes more)", &text[..end], text.len() - end)
}

/// What a system's confined processes may reach ([`PrologSystem::reach`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// The one folder they may write in (their scratch folder).
    pub scratch: PathBuf,
    /// What they may read besides the system's libraries (its installation, the program).
    pub read: Vec<PathBuf>,
}
