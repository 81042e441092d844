//! What a judgement runs: the Prolog [`System`], the [`Suite`] and the [`Config`].

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use super::Dialect;
use crate::format::Entry;
use crate::process::Limits;
use crate::prolog::Predicate;

/// A fresh seed for a run's random puzzles, from the operating system's randomness
/// (`/dev/urandom`; where that cannot be read, std's randomly keyed hasher). It has 48 bits, so that it reads and types easily and stays exact in JSON readers that
/// hold numbers as doubles.
pub fn fresh_seed() -> u64 {
    // (12 hexadecimal digits of the process layer's 128 random bits)
    u64::from_str_radix(&crate::process::random_hex()[..12], 16).unwrap_or(0)
}

/// The Prolog system a judged file runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum System {
    /// The embedded Scryer Prolog (with the GNU layer for a GNU-dialect file).
    Scryer,
    /// The real GNU Prolog (`gprolog` on the `PATH`).
    Gprolog,
    /// The real SWI-Prolog (`swipl` on the `PATH`), with `library(clpfd)`.
    Swipl,
}

impl System {
    /// The system's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            System::Scryer => "scryer",
            System::Gprolog => "gprolog",
            System::Swipl => "swipl",
        }
    }
}

/// Whether a predicate's answers must come in the spec's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Every answer, each once, in any order: the spec defines each answer (a grid meeting
    /// the puzzle) and never says another order is wrong; its transcripts show the answers as
    /// one solver (labeling row by row, smallest value first) gives them. Answers in another
    /// order pass, and the case's report says so.
    #[default]
    Any,
    /// The answers in the spec's order too (row by row, smallest value first, as its
    /// transcripts show them): another order is the verdict [`Verdict::Order`](super::Verdict::Order), a failure.
    Strict,
}

impl Order {
    /// The order's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Order::Any => "any",
            Order::Strict => "strict",
        }
    }
}

/// Which cases to run.
#[derive(Debug, Clone)]
pub enum Suite {
    /// The spec's examples, as the spec writes them.
    Spec,
    /// The spec's examples, edge cases of the spec's terms and of its easy misreadings, and
    /// random puzzles of sizes 1 to the maximum size (made from [`Config::seed`]).
    Standard,
    /// The puzzles of a file.
    Puzzles(Vec<Entry>),
}

/// How to judge.
#[derive(Debug, Clone)]
pub struct Config {
    /// The Prolog system; `None`: GNU Prolog for a GNU-dialect file when `gprolog` is installed,
    /// else Scryer.
    pub system: Option<System>,
    /// The dialect; `None`: detected from the file.
    pub dialect: Option<Dialect>,
    /// The predicates judged.
    pub predicates: Vec<Predicate>,
    /// The cases.
    pub suite: Suite,
    /// The seed of the standard suite's random puzzles: the same seed, the same puzzles.
    /// `None`: a fresh one ([`fresh_seed`]) for each file judged, so a class run (the same
    /// puzzles for every file) sets it.
    pub seed: Option<u64>,
    /// The largest grid run; `None`: 7 under Scryer and SWI-Prolog, 9 under GNU Prolog.
    pub max_size: Option<usize>,
    /// Wall-clock limit per case (and for loading the file).
    pub timeout: Duration,
    /// Cases run at once, each in an engine of its own.
    pub jobs: usize,
    /// The memory (address space) each engine process may use, in bytes.
    pub memory: u64,
    /// The space each engine process may write in its scratch folder, all files together, in
    /// bytes (past it, writes fail: "no space left").
    pub scratch: u64,
    /// Whether the judged code runs confined (see the crate's README, "Security"); `false`
    /// only for files you trust.
    pub confine: bool,
    /// Files and folders the judged code may read besides the judged file itself (a helper
    /// file it includes, a folder of data); empty by default: confined, a judged file reads
    /// nothing of its folder but itself. Relative paths are taken from the current folder.
    pub read: Vec<PathBuf>,
    /// Only the cases whose name (as reports show it: `spec 4x4 example (six answers)`,
    /// `random 3x3 #1`) contains one of these texts, case-sensitive; empty: every case. The
    /// suite is planned whole first, then filtered (the standard suite's random puzzles are
    /// the same with and without it, for the same seed); the form check runs whatever it says.
    /// A filter that leaves no case is an error ([`JudgeError::NoCaseNamed`](super::JudgeError::NoCaseNamed)).
    /// (A shrink judges puzzles of its own: give [`shrink`](super::shrink::shrink) a config
    /// without it.)
    pub only: Vec<String>,
    /// Whether answers must come in the spec's order ([`Order::Strict`]) or may come in any
    /// ([`Order::Any`], the default).
    pub order: Order,
    /// The time the whole judgement may take (loading and every case; `None`: no bound but
    /// the cases' own). No case starts once less than a second of it is left, and a case's
    /// limit is cut to what is left: the cases it does not reach, or stops, are
    /// [`Verdict::Skipped`](super::Verdict::Skipped), saying so.
    pub budget: Option<Duration>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            system: None,
            dialect: None,
            predicates: vec![Predicate::Fd, Predicate::Plain],
            suite: Suite::Standard,
            seed: None,
            max_size: None,
            timeout: Duration::from_secs(30),
            jobs: 1,
            memory: Limits::default().memory,
            scratch: Limits::default().scratch,
            confine: true,
            read: Vec::new(),
            only: Vec::new(),
            order: Order::Any,
            budget: None,
        }
    }
}
