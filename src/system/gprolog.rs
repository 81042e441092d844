//! GNU Prolog as a child: the real `gprolog`, one process per goal (`system::gnu`: the driver
//! `prolog/gnu_driver.pl` and the program compiled to byte code by `pl2wam` first, since a
//! confined gprolog may start no compiler); the homework is `prolog/gnu_kenken.pl`.
//!
//! gprolog is a program we did not write: it reads only its installation, its byte code and
//! what the setup adds (a judged file), writes only in its scratch folder (a private tmpfs
//! for each goal; `pl2wam`, which runs nothing of the program, writes the byte code in the
//! folder itself), starts nothing, opens no socket, within the setup's
//! [`Limits`](crate::process::Limits). GNU Prolog counts no inferences.
//!
//! A [`Program::File`] loaded with `fd: false` runs in a GNU Prolog built without its FD
//! solver (`gplc --no-fd-lib`, once per [`Gprolog`]): `fd_domain/3`, `#=/2` and the rest do
//! not exist there, and a call raises an existence error. Without `gplc` (or the C compiler
//! it needs) it runs in `gprolog`, FD solver included ([`Gprolog::without_fd_available`] says
//! which).
//!
//! Its exit code does not tell `halt(1)` from a fatal error (a stack overflow exits with 1),
//! and what it writes to standard error may be the program's: a gprolog that ended without a
//! reply halted when it exited with 0, or with another code and no word of a fatal error on
//! its standard error; otherwise it crashed, named by its status alone (never by what it
//! wrote).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use super::child;
use super::gnu::{self, Gnu, Install};
use super::{
    Answer, Bound, ChildSetup, Clock, End, Goal, Loaded, Outcome, Program, PrologSystem, Reach,
    SystemError,
};
use crate::process::{status_text, Child, Ticket, WorkerError};

/// The homework for GNU Prolog.
const GNU_KENKEN_PL: &str = include_str!("../../prolog/gnu_kenken.pl");

/// The system's name.
const NAME: &str = "gprolog";

/// How long building a GNU Prolog without FD solver may take.
const NO_FD_BUILD: Duration = Duration::from_secs(60);

/// GNU Prolog, one confined `gprolog` per goal.
pub struct Gprolog {
    gnu: Gnu,
    setup: ChildSetup,
    scratch: crate::process::TempFolder,
    /// Where the GNU Prolog without FD solver is built (not in the scratch: a confined
    /// child's scratch runs no program), and that GNU Prolog once built (`Some(None)`: it
    /// could not be).
    no_fd: Option<(crate::process::TempFolder, Option<PathBuf>)>,
    /// The loaded program runs in the GNU Prolog without FD solver (`Some(true)`), in
    /// `gprolog` (`Some(false)`); `None`: nothing is loaded.
    loaded: Option<bool>,
}

impl std::fmt::Debug for Gprolog {
    /// Its confinement, and which GNU Prolog runs the program loaded.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gprolog")
            .field("setup", &self.setup)
            .field("without_fd", &self.loaded)
            .finish_non_exhaustive()
    }
}

impl Gprolog {
    /// Whether `gprolog` (and its compiler beside it) is installed.
    pub fn available() -> bool {
        Install::find().is_some()
    }

    /// Whether a GNU Prolog without its FD solver can be built here (`gplc` is installed), for
    /// a program loaded with `fd: false`.
    pub fn without_fd_available() -> bool {
        gnu::no_fd_available()
    }

    /// GNU Prolog as installed (`gprolog` on the `PATH`), started as `setup` says; fails when
    /// it is not installed. It runs confined, which a worker of this program does for it: the
    /// program must call [`crate::worker::init`] first thing in `main`.
    pub fn new(setup: ChildSetup) -> Result<Gprolog, SystemError> {
        let install = Install::find().ok_or(SystemError::NotInstalled {
            system: "GNU Prolog",
            install: "install it (Debian and Ubuntu: apt-get install gprolog) so that gprolog \
                      is on the PATH",
        })?;
        let scratch = folder("kenken-gprolog-")?;
        Ok(Gprolog {
            gnu: Gnu::new(install, scratch.path()),
            setup,
            scratch,
            no_fd: None,
            loaded: None,
        })
    }

    /// What a gprolog reads of its own: its installation and its scratch folder.
    fn own_reads(&self) -> Vec<PathBuf> {
        let mut read = self.gnu.install().home();
        read.push(self.scratch.path().to_path_buf());
        read
    }

    /// Starts `program` of the installation (or the GNU Prolog without FD solver) with `args`.
    /// Only the compiler writes in the scratch folder itself (the byte code, read next).
    fn start(&self, program: &Path, args: &[OsString]) -> Result<Child, WorkerError> {
        let compiler = program == self.gnu.install().pl2wam;
        child::start(
            &self.setup,
            program,
            args,
            self.scratch.path(),
            self.own_reads(),
            !compiler,
        )
    }

    /// The GNU Prolog without FD solver, built the first time it is asked for (`None`: it
    /// cannot be built here).
    fn without_fd(&mut self) -> Result<Option<PathBuf>, SystemError> {
        if self.no_fd.is_none() {
            let tools = folder("kenken-gprolog-tools-")?;
            let built = gnu::build_no_fd(tools.path(), NO_FD_BUILD);
            self.no_fd = Some((tools, built));
        }
        Ok(self.no_fd.as_ref().and_then(|(_, p)| p.clone()))
    }

    /// Runs `goal` in a fresh gprolog (or GNU Prolog without FD solver) that loads the byte
    /// code.
    fn run_in(
        &self,
        no_fd: bool,
        goal: &Goal,
        answer: &mut dyn FnMut(Answer),
    ) -> Result<child::Framed, SystemError> {
        let clock = Clock::start();
        let program = match (no_fd, &self.no_fd) {
            (true, Some((_, Some(p)))) => p.clone(),
            _ => self.gnu.install().gprolog.clone(),
        };
        let mut child = self.start(&program, &self.gnu.args(no_fd))?;
        let ticket = Ticket::new(1);
        // (a gprolog that died at once is seen by the reader)
        let _ = child.send(&Gnu::request(
            &ticket,
            goal.bare(),
            child::max_answers(goal),
        ));
        child.close_stdin();
        child::read_run(child, &ticket, goal, clock, &death, answer)
    }
}

/// A fresh folder of ours, removed when dropped.
fn folder(prefix: &str) -> Result<crate::process::TempFolder, SystemError> {
    crate::process::TempFolder::new(prefix)
        .map_err(|e| SystemError::Io(format!("making a scratch folder for gprolog: {e}")))
}

/// How a gprolog that ended without a reply ended (see the module's doc).
fn death(status: Option<ExitStatus>, stderr: &str) -> End {
    let fatal = stderr
        .lines()
        .any(|l| l.contains("Fatal Error") || l.contains("overflow"));
    let why = match status.and_then(|s| s.code()) {
        Some(code) if code == 0 || !fatal => return End::Halted(code.into()),
        Some(code) => format!(
            "gprolog ended before the goal did, with exit status {code} (halt({code}), or a \
             fatal error such as a stack overflow)"
        ),
        None => match status {
            Some(s) => format!("gprolog was stopped ({})", status_text(s)),
            None => "gprolog stopped".into(),
        },
    };
    child::crash(Some(why), status, stderr)
}

impl PrologSystem for Gprolog {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, timeout: Duration) -> Result<Loaded, SystemError> {
        self.loaded = None;
        let (source, fd): (PathBuf, bool) = match program {
            Program::Homework => {
                let source = self.scratch.path().join("gnu_kenken.pl");
                std::fs::write(&source, GNU_KENKEN_PL)
                    .map_err(|e| SystemError::Io(format!("writing gnu_kenken.pl: {e}")))?;
                (source, true)
            }
            Program::File { path, fd, .. } => {
                if !self.setup.read.contains(path) {
                    self.setup.read.push(path.clone());
                }
                (path.clone(), *fd)
            }
        };
        let no_fd = !fd && self.without_fd()?.is_some();
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        if let Err(messages) = self.gnu.build_driver(&start, left())? {
            return Err(SystemError::Load(format!(
                "the gprolog driver does not compile: {messages}"
            )));
        }
        let (messages, ok) = self.gnu.build_program(&start, &source, left())?;
        let errors = gnu::syntax_errors(&source, &messages);
        if !errors.is_empty() {
            return Err(SystemError::Syntax {
                file: source.display().to_string(),
                errors,
            });
        }
        if !ok {
            return Err(SystemError::Load(format!(
                "gprolog's compiler refused it: {messages}"
            )));
        }
        // (a goal that does nothing: the byte code loads, or says why not)
        let mut probe = Goal::new("T = []", 0);
        probe.max_answers = Some(1);
        probe.deadline = Some(deadline);
        let run = self.run_in(no_fd, &probe, &mut |_| {})?;
        if !run.loaded {
            return Err(SystemError::Load(match run.outcome.end {
                End::Stopped(Bound::Time) => format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
                End::Untrusted(why) => format!("its output broke the protocol: {why}"),
                End::Crashed(c) => format!(
                    "gprolog stopped while loading it ({}): {}",
                    c.status.unwrap_or(c.why),
                    c.stderr.trim()
                ),
                End::Halted(code) => format!(
                    "gprolog stopped while loading it (exit status {code}): {}",
                    run.stderr.trim()
                ),
                end => format!("gprolog stopped while loading it ({end:?})"),
            }));
        }
        // what the program said while loading: the compiler's warnings, then the load's
        let mut warnings = gnu::compiler_warnings(&messages);
        let said: Vec<&str> = run
            .printed_before_loading
            .iter()
            .map(String::as_str)
            .chain(run.stderr.lines())
            .map(str::trim_end)
            .filter(|l| !l.trim().is_empty() && !gnu::is_banner(l))
            .collect();
        warnings.push_str(&said.join("\n"));
        self.loaded = Some(no_fd);
        Ok(Loaded {
            warnings: warnings.trim().to_string(),
        })
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        let no_fd = self.loaded.ok_or(SystemError::NotLoaded(NAME))?;
        Ok(self.run_in(no_fd, goal, answer)?.outcome)
    }

    fn reach(&self) -> Option<Reach> {
        child::reach(&self.setup, self.scratch.path(), self.own_reads())
    }
}
