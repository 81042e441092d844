//! `kenken judge`: anyone's `kenken.pl` checked against the spec and the native solver.
//!
//! A judged file is loaded in an engine of its own (without our `kenken.pl`): the embedded Scryer
//! Prolog with, for a file written for GNU Prolog, a compatibility layer (`prolog/gnu.pl`), or
//! the real GNU Prolog when it is installed. Each [`Case`] (a goal binding `T` and every answer
//! it must give, in the spec's order, from the native solver) runs under a wall-clock limit in a
//! killable process, and gets a [`Verdict`]: a looping, halting or crashing solution costs only
//! its case.
//!
//! Timeouts never hide wrong answers. A case of a grid up to 3x3 (at most 12 answers: any
//! correct solver answers at once) that does not end in time is a failure ([`Verdict::Hang`]),
//! and the larger cases still run. Only once a predicate times out on a larger grid (a case of
//! at most 100 answers) are its cases of larger grids skipped: a file that hangs on the
//! smallest grids and is skipped above fails (exit 1), it is not "only timeouts" (exit 3).
//!
//! The standard suite's random puzzles come from a seed drawn afresh for each run (the same for
//! every file of a class), shown in the report: a table of answers learnt by heart does not
//! pass it, and [`Config::seed`] makes a run again. Each case runs in a process of its own,
//! and a `plain_kenken/3` case where no FD solver exists (which the spec forbids there): a
//! verdict is earned by behaviour. Besides the cases, a form check ([`form`]) reads the file's
//! text (it never runs it) for a `plain_kenken/3` that reaches the FD solver, and reports it.
//! `docs/judge.md` is the security model: what a judged file can and cannot do.
//!
//! ```no_run
//! use kenken::judge::{judge, Config};
//! kenken::worker::init();
//! let judgement = judge(std::path::Path::new("kenken.pl"), &Config::default(), |_| {}).unwrap();
//! println!("{} cases, {} passed", judgement.cases.len(), judgement.count(kenken::judge::Verdict::Pass));
//! ```

pub mod class;
mod dialect;
pub mod form;
mod gprolog;
mod jail;
pub mod report;
mod scryer;
pub mod shrink;
mod suite;
mod verdict;

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

pub use dialect::{detect, Dialect};
pub use form::FormCheck;
pub use jail::{parse_size, size_text};
pub(crate) use jail::{scratch, Jail};
pub(crate) use scryer::{worker as scryer_worker, ROLE as SCRYER_ROLE};
pub use suite::Case;
pub use verdict::{CaseReport, JudgedAnswer, Run, RunEnd, Verdict};

use crate::error::{Context, IoError};
use crate::format::Entry;
use crate::process::{Limits, WorkerError};
use crate::prolog::Predicate;

/// A case with more expected answers than this does not make its predicate's larger cases
/// skipped when it times out.
const SKIP_AFTER_ANSWERS: usize = 100;

/// At most this many bytes of any text a judged child wrote or made (a load error, a warning,
/// an exception) are kept, shown or put in a report.
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

/// [`JudgeError`] with every text the judged file had a hand in cut ([`cut`]).
fn cut_error(e: JudgeError) -> JudgeError {
    match e {
        JudgeError::Syntax { file, errors } => JudgeError::Syntax {
            file,
            errors: errors
                .into_iter()
                .take(10)
                .map(|(l, m)| (l, cut(&m)))
                .collect(),
        },
        JudgeError::Load { file, why } => JudgeError::Load {
            file,
            why: cut(&why),
        },
        JudgeError::Failed(why) => JudgeError::Failed(cut(&why)),
        JudgeError::CannotConfine(why) => JudgeError::CannotConfine(cut(&why)),
        e => e,
    }
}

/// The largest grid whose timeout is a failure ([`Verdict::Hang`]): up to 3x3 there are at
/// most 12 answers, which any correct solver gives at once.
pub(crate) const HANG_MAX_SIZE: usize = 3;

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
}

impl System {
    /// The system's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            System::Scryer => "scryer",
            System::Gprolog => "gprolog",
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
    /// The largest grid run; `None`: 7 under Scryer, 9 under GNU Prolog.
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
        }
    }
}

/// Why a file could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// The file has syntax errors: (line, message) each; the first one's line is exact.
    #[error("{}", syntax_text(.file, .errors))]
    Syntax {
        /// The file.
        file: String,
        /// The errors found, by line.
        errors: Vec<(usize, String)>,
    },
    /// The file could not be loaded.
    #[error("{file}: cannot be loaded: {why}")]
    Load {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
    /// GNU Prolog was asked for and is not installed.
    #[error("gprolog is not installed (or not on the PATH): install GNU Prolog, or judge with --prolog scryer")]
    NoGprolog,
    /// The kernel cannot confine the judged code (and `--no-confine` was not given).
    #[error("cannot judge safely: {0}; judge only files you trust with --no-confine")]
    CannotConfine(String),
    /// Reading the file or writing scratch files failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A judged engine's process failed in a way that is not the judged file's doing.
    #[error(transparent)]
    Process(WorkerError),
    /// A folder holds no `.pl` file, or the judge itself failed (its own driver).
    #[error("{0}")]
    Failed(String),
}

impl From<WorkerError> for JudgeError {
    fn from(e: WorkerError) -> JudgeError {
        match e {
            WorkerError::Confine(why) => JudgeError::CannotConfine(why),
            other => JudgeError::Process(other),
        }
    }
}

fn syntax_text(file: &str, errors: &[(usize, String)]) -> String {
    // Only the first error's line is sure: after an error Scryer's reader may count lines short.
    let Some((line, message)) = errors.first() else {
        return format!("{file}: syntax error");
    };
    let more = match errors.len() {
        1 => String::new(),
        2 => " (and 1 more syntax error after it)".to_string(),
        n => format!(" (and {} more syntax errors after it)", n - 1),
    };
    format!("{file}:{line}: syntax error: {message}{more}")
}

/// A file that loaded: what it printed to `user_error` meanwhile (warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    /// The loader's and the file's warnings.
    pub warnings: String,
}

/// Runs a judged file's cases: one engine, loaded once (and again after a kill).
pub(crate) trait Backend: Send {
    /// Loads the file; fails with its syntax errors or why it does not load.
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError>;
    /// Runs one case, asking for at most `max` answers, within `timeout`.
    fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run;
}

/// The outcome of judging a file.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    /// The file judged.
    pub file: String,
    /// The Prolog system the file ran in.
    pub system: System,
    /// The file's dialect.
    pub dialect: Dialect,
    /// Whether the dialect was detected (not chosen).
    pub dialect_detected: bool,
    /// The largest grid run.
    pub max_size: usize,
    /// The suite: `spec`, `standard`, or the puzzles' file.
    pub suite: String,
    /// The seed the standard suite's random puzzles were made from (`None` for another suite).
    pub seed: Option<u64>,
    /// What the loader and the file wrote to `user_error` while loading.
    pub warnings: String,
    /// Every case, in the order run.
    pub cases: Vec<CaseReport>,
    /// The form check of `plain_kenken/3` (no FD solver), when it is judged.
    pub form: Option<FormCheck>,
    /// Things a reader should know (what was left out and why).
    pub notes: Vec<String>,
    /// Wall-clock time of the whole judgement, in seconds.
    pub elapsed_s: f64,
}

impl Judgement {
    /// How many cases got `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.cases.iter().filter(|c| c.verdict == verdict).count()
    }

    /// Whether the form check was run and failed.
    pub fn form_failed(&self) -> bool {
        self.form.as_ref().is_some_and(|f| !f.passed)
    }

    /// The exit code: 0 every case passes, 1 a case fails (a hang on a small grid is a
    /// failure) or the form check fails, 3 only timeouts on larger grids (or skips).
    pub fn exit_code(&self) -> i32 {
        if self.form_failed() || self.cases.iter().any(|c| c.verdict.is_failure()) {
            1
        } else if self.cases.iter().all(|c| c.verdict == Verdict::Pass) {
            0
        } else {
            3
        }
    }

    /// The summary line: counts per verdict.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .map(|&v| (v, self.count(v)))
            .filter(|&(_, n)| n > 0)
            .map(|(v, n)| format!("{n} {v}"))
            .collect();
        format!(
            "{}: {}: {}{} ({:.1} s, {}, {} dialect)",
            self.file,
            verdict::plural(self.cases.len(), "case"),
            if counts.is_empty() {
                "none run".to_string()
            } else {
                counts.join(", ")
            },
            if self.form_failed() {
                "; form check failed"
            } else {
                ""
            },
            self.elapsed_s,
            self.system.name(),
            self.dialect.name()
        )
    }

    /// `plain_kenken/3`'s total time over `kenken/3`'s on the cases both passed (when both
    /// took a millisecond or more).
    pub fn plain_over_fd(&self) -> Option<f64> {
        let (_, fd, plain) = self.both_passed()?;
        (fd.min(plain) >= 1.0).then(|| plain / fd)
    }

    /// On the cases both predicates passed: how many, `kenken/3`'s total time and
    /// `plain_kenken/3`'s, in milliseconds.
    pub(crate) fn both_passed(&self) -> Option<(usize, f64, f64)> {
        let time = |p: Predicate| -> HashMap<&str, f64> {
            self.cases
                .iter()
                .filter(|c| c.predicate == p.name() && c.verdict == Verdict::Pass)
                .filter_map(|c| Some((c.case.as_str(), c.elapsed_ms?)))
                .collect()
        };
        let (fd, plain) = (time(Predicate::Fd), time(Predicate::Plain));
        let both: Vec<(&str, f64, f64)> = plain
            .iter()
            .filter_map(|(name, &p)| Some((*name, fd.get(name).copied()?, p)))
            .collect();
        if both.is_empty() {
            return None;
        }
        let fd_total: f64 = both.iter().map(|b| b.1).sum();
        let plain_total: f64 = both.iter().map(|b| b.2).sum();
        Some((both.len(), fd_total, plain_total))
    }

    /// `plain_kenken/3`'s time beside `kenken/3`'s on the cases both passed, as a sentence.
    pub fn plain_vs_fd(&self) -> Option<String> {
        let (n, fd_total, plain_total) = self.both_passed()?;
        if fd_total.min(plain_total) < 1.0 {
            return Some(format!(
                "on the {n} cases both passed, plain_kenken/3 took {plain_total:.1} ms in all \
                 and kenken/3 {fd_total:.1} ms (too short to compare)"
            ));
        }
        let (faster, slower, ratio) = if plain_total <= fd_total {
            ("plain_kenken/3", "kenken/3", fd_total / plain_total)
        } else {
            ("kenken/3", "plain_kenken/3", plain_total / fd_total)
        };
        Some(format!(
            "on the {n} cases both passed, plain_kenken/3 took {plain_total:.1} ms in all and \
             kenken/3 {fd_total:.1} ms: {faster} is {ratio:.1} times as fast as {slower}"
        ))
    }
}

/// Judges `file` as `config` says, calling `on_case` as each case is judged (in the order they
/// finish). Fails when the file cannot be loaded (syntax errors name file and line).
pub fn judge(
    file: &Path,
    config: &Config,
    on_case: impl FnMut(&CaseReport) + Send,
) -> Result<Judgement, JudgeError> {
    judge_among(file, &[], config, on_case)
}

/// [`judge`] for a file among `others` (the other files of its class): confined, its code reads
/// none of them, whatever [`Config::read`] says.
pub fn judge_among(
    file: &Path,
    others: &[PathBuf],
    config: &Config,
    on_case: impl FnMut(&CaseReport) + Send,
) -> Result<Judgement, JudgeError> {
    judge_file(file, others, config, on_case).map_err(cut_error)
}

fn judge_file(
    file: &Path,
    others: &[PathBuf],
    config: &Config,
    mut on_case: impl FnMut(&CaseReport) + Send,
) -> Result<Judgement, JudgeError> {
    let start = Instant::now();
    let text =
        std::fs::read(file).with_context(|| format!("{}: cannot be read", file.display()))?;
    let (dialect, dialect_detected) = match config.dialect {
        Some(d) => (d, false),
        None => (detect(&String::from_utf8_lossy(&text)), true),
    };
    let system = match config.system {
        Some(System::Gprolog) if !gprolog::available() => return Err(JudgeError::NoGprolog),
        Some(s) => s,
        None if dialect == Dialect::Gnu && gprolog::available() => System::Gprolog,
        None => System::Scryer,
    };
    // (links resolved: confinement grants the folder the file really is in)
    let absolute = std::fs::canonicalize(file).with_context(|| file.display().to_string())?;
    let max_size = config.max_size.unwrap_or(match system {
        System::Scryer => 7,
        System::Gprolog => 9,
    });
    let mut notes = Vec::new();
    let seed =
        matches!(config.suite, Suite::Standard).then(|| config.seed.unwrap_or_else(fresh_seed));
    let cases = plan(config, max_size, seed.unwrap_or(0), &mut notes);
    let form = config
        .predicates
        .contains(&Predicate::Plain)
        .then(|| form::check(&String::from_utf8_lossy(&text)));
    // Each engine process gets the whole run's time as CPU seconds: the wall clock bounds
    // every case, and this bounds whatever the wall clock does not see.
    let budget = config.timeout * (cases.len() as u32 + 1);
    // what judged code may never read: the judge itself and the class's other files
    let mut hidden = jail::own_programs();
    hidden.extend(
        others
            .iter()
            .filter_map(|o| std::fs::canonicalize(o).ok())
            .filter(|o| *o != absolute),
    );
    let jail = match config.confine {
        true => Some(Jail {
            hidden,
            limits: Limits {
                memory: config.memory,
                scratch: config.scratch,
                cpu_seconds: budget.as_secs().max(1),
                ..Limits::default()
            },
            // (not confined, everything is readable)
            also_read: config
                .read
                .iter()
                .map(|p| {
                    std::fs::canonicalize(p)
                        .with_context(|| format!("{}: cannot be read (--read)", p.display()))
                })
                .collect::<Result<_, _>>()?,
        }),
        false => None,
    };
    if system == System::Gprolog
        && config.predicates.contains(&Predicate::Plain)
        && !gprolog::no_fd_available()
    {
        notes.push(
            "plain_kenken/3 ran in gprolog, FD solver included: gplc (GNU Prolog's compiler, \
             with a C compiler), which builds a GNU Prolog without it, is not installed; only \
             the form check looks for the FD solver there"
                .into(),
        );
    }
    if let Some(j) = &jail {
        if jail::narrow(&j.also_read, &j.hidden) != j.also_read {
            notes.push(
                "--read: judged code reads neither the judge's own program nor another file of \
                 the class; those were taken out of what it may read"
                    .into(),
            );
        }
    }
    let open = || -> Result<Box<dyn Backend>, JudgeError> {
        Ok(match system {
            System::Scryer => Box::new(scryer::ScryerBackend::new(
                &absolute,
                dialect,
                jail.clone(),
            )?),
            System::Gprolog => Box::new(gprolog::GprologBackend::new(&absolute, jail.clone())?),
        })
    };
    // (the first engine loads the file: its warnings, or why it cannot be loaded)
    let mut first = open()?;
    let loaded = first
        .load(config.timeout)
        .map_err(|e| read_hint(e, config.confine))?;
    let mut backends = vec![first];
    for _ in 1..config.jobs.clamp(1, cases.len().max(1)) {
        backends.push(open()?);
    }
    let reports = run_cases(&cases, backends, config.timeout, &mut on_case);
    let skipped = reports
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .count();
    if skipped > 0 {
        notes.push(format!(
            "{skipped} cases skipped: their predicate timed out on a smaller grid"
        ));
    }
    Ok(Judgement {
        file: file.display().to_string(),
        system,
        dialect,
        dialect_detected,
        max_size,
        suite: match &config.suite {
            Suite::Spec => "spec".into(),
            Suite::Standard => "standard".into(),
            Suite::Puzzles(_) => "puzzles".into(),
        },
        seed,
        warnings: cut(&loaded.warnings),
        cases: reports,
        form,
        notes,
        elapsed_s: start.elapsed().as_secs_f64(),
    })
}

/// A load that failed on a file it could not open, confined, says how to let it read more:
/// confined, a judged file reads only itself, and a helper file it loads is refused (GNU
/// Prolog's compiler says such a file "does not exist").
fn read_hint(e: JudgeError, confined: bool) -> JudgeError {
    match e {
        JudgeError::Load { file, why }
            if confined
                && [
                    "cannot open",
                    "does not exist",
                    "existence_error",
                    "permission_error",
                ]
                .iter()
                .any(|w| why.contains(w)) =>
        {
            JudgeError::Load {
                file,
                why: format!(
                    "{why} (a judged file may read only itself: --read PATH lets it read \
                     a file it loads)"
                ),
            }
        }
        e => e,
    }
}

/// The cases to judge: the suite's puzzles up to `max_size` (the standard suite's random ones
/// made from `seed`), each with the predicates that are run on it, and a note for each kind of
/// puzzle or predicate left out.
fn plan(config: &Config, max_size: usize, seed: u64, notes: &mut Vec<String>) -> Vec<Case> {
    let items = match &config.suite {
        Suite::Spec => suite::spec_items(),
        Suite::Standard => {
            let mut items = suite::spec_items();
            items.extend(suite::edge_items());
            items.extend(suite::random_items(max_size, seed));
            items
        }
        Suite::Puzzles(entries) => entries
            .iter()
            .enumerate()
            .map(|(i, e)| suite::Item {
                name: e
                    .puzzle
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("puzzle {} (line {})", i + 1, e.line)),
                puzzle: e.puzzle.clone(),
                given: Vec::new(),
            })
            .collect(),
    };
    let wanted = items.len();
    let items: Vec<_> = items
        .into_iter()
        .filter(|i| i.puzzle.size <= max_size)
        .collect();
    if items.len() < wanted {
        notes.push(format!(
            "{} puzzles larger than {max_size}x{max_size} left out (--max-size)",
            wanted - items.len()
        ));
    }
    let cases = suite::cases(&items, &config.predicates);
    if items.len() * config.predicates.len() > cases.len() {
        if config.predicates.contains(&Predicate::Plain) {
            notes.push(format!(
                "plain_kenken/3 is run on grids up to {0}x{0} (plain enumeration of larger \
                 ones may take hours)",
                suite::PLAIN_MAX_SIZE
            ));
        }
        let unlisted = items
            .iter()
            .filter(|i| suite::expected(&i.puzzle).is_none())
            .count();
        if unlisted > 0 {
            notes.push(format!(
                "{unlisted} puzzles left out: invalid, or more than {} answers",
                suite::MAX_EXPECTED
            ));
        }
    }
    cases
}

/// Runs `cases` on the backends (one thread each). A timeout on a grid up to
/// [`HANG_MAX_SIZE`] is a failure ([`Verdict::Hang`]) and skips nothing; a timeout on a larger
/// grid (N > 0, a case of at most [`SKIP_AFTER_ANSWERS`] answers) skips the predicate's cases
/// of larger grids. Reports come back in the cases' order.
fn run_cases(
    cases: &[Case],
    backends: Vec<Box<dyn Backend>>,
    timeout: Duration,
    on_case: &mut (dyn FnMut(&CaseReport) + Send),
) -> Vec<CaseReport> {
    struct Shared<'a> {
        queue: VecDeque<usize>,
        /// Per predicate, the smallest size that timed out.
        timed_out: HashMap<Predicate, usize>,
        reports: Vec<Option<CaseReport>>,
        on_case: &'a mut (dyn FnMut(&CaseReport) + Send),
    }
    let shared = Mutex::new(Shared {
        queue: (0..cases.len()).collect(),
        timed_out: HashMap::new(),
        reports: vec![None; cases.len()],
        on_case,
    });
    std::thread::scope(|scope| {
        for mut backend in backends {
            let shared = &shared;
            scope.spawn(move || loop {
                let (i, skip) = {
                    let Ok(mut s) = shared.lock() else { return };
                    let Some(i) = s.queue.pop_front() else { return };
                    let c = &cases[i];
                    let skip = s
                        .timed_out
                        .get(&c.predicate)
                        .filter(|&&n| c.size > n)
                        .map(|&n| format!("{}/3 timed out on a {n}x{n} grid", c.predicate.name()));
                    (i, skip)
                };
                let c = &cases[i];
                let report = match skip {
                    Some(why) => CaseReport::skipped(c, why),
                    None => {
                        let run = backend.run(c, verdict::answers_wanted(c), timeout);
                        let mut report = verdict::judge(c, &run);
                        if report.verdict == Verdict::Timeout
                            && (1..=HANG_MAX_SIZE).contains(&c.size)
                        {
                            verdict::hang(&mut report);
                        }
                        report
                    }
                };
                let Ok(mut s) = shared.lock() else { return };
                // a loop on the empty grid (N = 0, often on backtracking) says nothing of
                // real grids: gprolog runs out of stack there, Scryer out of time; nor does
                // a slow enumeration of many answers (kenken(4, [], T)'s 576) say anything of
                // puzzles with few; and a hang on a small grid is a failure of its own, which
                // must not hide what the file answers on larger ones
                if report.verdict == Verdict::Timeout
                    && c.size > HANG_MAX_SIZE
                    && c.expected.len() <= SKIP_AFTER_ANSWERS
                {
                    let n = s.timed_out.entry(c.predicate).or_insert(c.size);
                    *n = (*n).min(c.size);
                }
                (s.on_case)(&report);
                s.reports[i] = Some(report);
            });
        }
    });
    let reports = shared.into_inner().map(|s| s.reports).unwrap_or_default();
    reports
        .into_iter()
        .zip(cases)
        .map(|(r, c)| r.unwrap_or_else(|| CaseReport::skipped(c, "not run".into())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_at_a_character_boundary() {
        assert_eq!(cut("short"), "short");
        let long = "é".repeat(MESSAGE_CAP);
        let c = cut(&long);
        assert!(c.len() < MESSAGE_CAP + 40, "{}", c.len());
        assert!(c.ends_with(&format!("... ({} bytes more)", long.len() - MESSAGE_CAP)));
        let e = cut_error(JudgeError::Load {
            file: "f.pl".into(),
            why: "x".repeat(1 << 20),
        });
        assert!(e.to_string().len() < MESSAGE_CAP + 100);
    }

    #[test]
    fn a_load_refused_a_file_it_loads_says_how_to_allow_it() {
        let load = |why: &str| JudgeError::Load {
            file: "/class/ann.pl".into(),
            why: why.into(),
        };
        let refused = "gprolog's compiler refused it: /class/ann.pl:1: fatal error: cannot \
                       open file helper.pl - does not exist";
        assert!(read_hint(load(refused), true).to_string().ends_with(
            "(a judged file may read only itself: --read PATH lets it read a file it loads)"
        ));
        // not confined, or another failure: as it was
        assert_eq!(read_hint(load(refused), false), load(refused));
        let other = "loading did not end within 30 s (does a directive loop?)";
        assert_eq!(read_hint(load(other), true), load(other));
    }

    /// Times out on the cases named, answers every other one right.
    struct Fake(Vec<&'static str>);

    impl Backend for Fake {
        fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
            Ok(Loaded {
                warnings: String::new(),
            })
        }
        fn run(&mut self, case: &Case, _: usize, timeout: Duration) -> Run {
            let slow = self.0.contains(&case.name.as_str());
            Run {
                answers: if slow {
                    Vec::new()
                } else {
                    case.expected
                        .iter()
                        .cloned()
                        .map(JudgedAnswer::Grid)
                        .collect()
                },
                end: if slow {
                    RunEnd::Timeout
                } else {
                    RunEnd::Complete
                },
                elapsed: timeout,
            }
        }
    }

    fn verdicts(slow: Vec<&'static str>) -> Vec<(String, Verdict)> {
        let mut items = suite::spec_items();
        items.extend(suite::edge_items());
        let cases = suite::cases(&items, &[Predicate::Fd]);
        run_cases(
            &cases,
            vec![Box::new(Fake(slow))],
            Duration::from_secs(1),
            &mut |_| {},
        )
        .into_iter()
        .map(|r| (r.case, r.verdict))
        .collect()
    }

    fn verdict_of(v: &[(String, Verdict)], case: &str) -> Verdict {
        v.iter().find(|(c, _)| c == case).map(|(_, v)| *v).unwrap()
    }

    #[test]
    fn a_timeout_on_a_small_grid_is_a_failure_and_skips_nothing() {
        for slow in [
            "spec: kenken(1, [], T)",
            "spec: kenken(2, [], T)",
            "spec: kenken(3, [], T)",
        ] {
            let v = verdicts(vec![slow]);
            assert_eq!(verdict_of(&v, slow), Verdict::Hang, "{slow}");
            assert_eq!(
                verdict_of(&v, "spec 4x4 example (six answers)"),
                Verdict::Pass
            );
            assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Pass);
            assert_eq!(v.iter().filter(|(_, v)| *v == Verdict::Skipped).count(), 0);
        }
        let reports = run_cases(
            &suite::cases(&suite::spec_items(), &[Predicate::Fd]),
            vec![Box::new(Fake(vec!["spec: kenken(2, [], T)"]))],
            Duration::from_secs(1),
            &mut |_| {},
        );
        let hang = reports.iter().find(|r| r.verdict == Verdict::Hang).unwrap();
        assert_eq!(
            hang.detail,
            "no end within the time limit on a 2x2 grid (0 answers), which any correct solver \
             answers at once: a failure (the larger grids still run)"
        );
        assert!(Verdict::Hang.is_failure());
    }

    #[test]
    fn a_timeout_on_a_larger_grid_skips_the_larger_cases_unless_it_had_many_answers_or_no_grid() {
        let v = verdicts(vec!["spec 4x4 example (six answers)"]);
        assert_eq!(
            verdict_of(&v, "spec 4x4 example (six answers)"),
            Verdict::Timeout
        );
        assert_eq!(verdict_of(&v, "spec: kenken(3, [], T)"), Verdict::Pass);
        assert_eq!(verdict_of(&v, "spec 4x4 made unsatisfiable"), Verdict::Pass);
        assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Skipped);
        // 576 answers, or N = 0: the rest still runs
        for slow in ["spec: kenken(4, [], T)", "N = 0"] {
            let v = verdicts(vec![slow]);
            assert_eq!(verdict_of(&v, slow), Verdict::Timeout);
            assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Pass);
            assert_eq!(v.iter().filter(|(_, v)| *v == Verdict::Skipped).count(), 0);
        }
    }

    /// Loops on grids of `loops_up_to` and smaller (N > 0), answers a wrong grid on larger ones.
    struct LoopsThenWrong(usize);

    impl Backend for LoopsThenWrong {
        fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
            Fake(Vec::new()).load(Duration::ZERO)
        }
        fn run(&mut self, case: &Case, _: usize, timeout: Duration) -> Run {
            if (1..=self.0).contains(&case.size) {
                return Run {
                    answers: Vec::new(),
                    end: RunEnd::Timeout,
                    elapsed: timeout,
                };
            }
            Run {
                answers: vec![JudgedAnswer::Grid(vec![vec![1; case.size]; case.size])],
                end: RunEnd::Complete,
                elapsed: Duration::from_millis(1),
            }
        }
    }

    fn judgement(cases: Vec<CaseReport>, form: Option<FormCheck>) -> Judgement {
        Judgement {
            file: "f.pl".into(),
            system: System::Scryer,
            dialect: Dialect::Scryer,
            dialect_detected: true,
            max_size: 7,
            suite: "standard".into(),
            seed: Some(1),
            warnings: String::new(),
            cases,
            form,
            notes: Vec::new(),
            elapsed_s: 0.0,
        }
    }

    #[test]
    fn a_file_that_loops_on_the_smallest_grids_and_is_wrong_above_fails() {
        let mut items = suite::spec_items();
        items.extend(suite::edge_items());
        items.extend(suite::random_items(5, 1));
        let cases = suite::cases(&items, &[Predicate::Fd, Predicate::Plain]);
        for loops_up_to in [1, 3] {
            let reports = run_cases(
                &cases,
                vec![Box::new(LoopsThenWrong(loops_up_to))],
                Duration::from_secs(1),
                &mut |_| {},
            );
            let j = judgement(reports, None);
            assert_eq!(j.exit_code(), 1);
            assert_eq!(j.count(Verdict::Skipped), 0);
            assert_eq!(j.count(Verdict::Timeout), 0);
            assert!(j.count(Verdict::Hang) >= 2 * loops_up_to);
            assert!(j.count(Verdict::Wrong) > 10);
        }
        // timeouts on larger grids alone: exit 3; a form check failed: exit 1
        let reports = run_cases(
            &cases,
            vec![Box::new(Fake(vec!["random 5x5 #1"]))],
            Duration::from_secs(1),
            &mut |_| {},
        );
        assert_eq!(judgement(reports.clone(), None).exit_code(), 3);
        let fd = form::check("plain_kenken(N, C, T) :- kenken(N, C, T).\nkenken(_, _, _).");
        let j = judgement(reports, Some(fd));
        assert_eq!(j.exit_code(), 1);
        assert!(
            j.summary().contains("; form check failed ("),
            "{}",
            j.summary()
        );
        let passes = judgement(Vec::new(), Some(form::check("plain_kenken(_, _, _).")));
        assert_eq!(passes.exit_code(), 0);
    }
}
