//! GNU Prolog as a child: the real `gprolog`, one confined process per goal ([`crate::gnu`]:
//! the driver `prolog/gnu_driver.pl` and the program compiled to byte code by `pl2wam` first,
//! since a confined gprolog may start no compiler); the homework is `prolog/gnu_kenken.pl`.
//!
//! gprolog is a program we did not write: it reads only its installation and its byte code,
//! writes only in its scratch folder, starts nothing, opens no socket, within the setup's
//! [`Limits`](crate::process::Limits). GNU Prolog counts no inferences.
//!
//! [`crate::gnu`] reads a goal's frames to the end before it returns, so the answers reach
//! [`PrologSystem::run`]'s caller when the process has ended (all of them, deadline or not);
//! once its loop gives way to [`super::child::read_run`] (which `Swipl` uses), they stream.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::child;
use super::{
    Answer, ChildSetup, Clock, End, Goal, Loaded, Outcome, Program, PrologSystem, SystemError,
};
use crate::gnu::{self, Gnu, GnuError, Install};
use crate::process::{Child, Confinement, Spawn, Stderr, WorkerError};

/// The homework for GNU Prolog.
const GNU_KENKEN_PL: &str = include_str!("../../prolog/gnu_kenken.pl");

/// The system's name.
const NAME: &str = "gprolog";

/// GNU Prolog, one confined `gprolog` per goal.
pub struct Gprolog {
    gnu: Gnu,
    setup: ChildSetup,
    scratch: tempfile::TempDir,
    /// Whether the driver and a program are compiled.
    loaded: bool,
}

impl Gprolog {
    /// Whether `gprolog` (and its compiler beside it) is installed.
    pub fn available() -> bool {
        Install::find().is_some()
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
        let scratch = tempfile::Builder::new()
            .prefix("kenken-gprolog-")
            .tempdir()
            .map_err(|e| SystemError::Io(format!("making a scratch folder for gprolog: {e}")))?;
        Ok(Gprolog {
            gnu: Gnu::new(install, scratch.path()),
            setup,
            scratch,
            loaded: false,
        })
    }

    /// Starts `program` of the installation, confined.
    fn start(&self, program: &Path, args: &[OsString]) -> Result<Child, WorkerError> {
        let mut read = self.gnu.install().home();
        read.push(self.scratch.path().to_path_buf());
        read.extend(self.setup.read.iter().cloned());
        let confinement = Confinement {
            read,
            scratch: self.scratch.path().to_path_buf(),
            exec: vec![program.to_path_buf()],
            limits: self.setup.limits,
            // (pl2wam's byte code is read by the next process: the scratch folder is shared)
            scratch_size: None,
        };
        Spawn::confined_exec(program, args, &confinement)?
            .stderr(Stderr::Capture)
            .output_cap(self.setup.output_cap)
            .frame_cap(gnu::FRAME_CAP)
            .spawn()
    }
}

/// The seam's error for GNU Prolog's.
fn system_error(e: GnuError) -> SystemError {
    match e {
        GnuError::CannotConfine(why) => SystemError::CannotConfine(why),
        GnuError::Process(e) => SystemError::Process(e),
        GnuError::CompileTimeout(file, s) => {
            SystemError::Load(format!("compiling {file} did not end within {s}"))
        }
        GnuError::Io(why) => SystemError::Io(why),
    }
}

/// Whether a line of gprolog's standard error says it died (not that it halted).
fn is_fatal(line: &str) -> bool {
    line.contains("Fatal Error") || line.contains("overflow")
}

impl PrologSystem for Gprolog {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, timeout: Duration) -> Result<Loaded, SystemError> {
        self.loaded = false;
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let source: PathBuf = match program {
            Program::Homework => {
                let source = self.scratch.path().join("gnu_kenken.pl");
                std::fs::write(&source, GNU_KENKEN_PL)
                    .map_err(|e| SystemError::Io(format!("writing gnu_kenken.pl: {e}")))?;
                source
            }
            Program::File { path, .. } => {
                if !self.setup.read.contains(path) {
                    self.setup.read.push(path.clone());
                }
                path.clone()
            }
        };
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        if let Err(messages) = self
            .gnu
            .build_driver(&start, left())
            .map_err(system_error)?
        {
            return Err(SystemError::Load(format!(
                "the gprolog driver does not compile: {messages}"
            )));
        }
        let (messages, ok) = self
            .gnu
            .build_program(&start, &source, left())
            .map_err(system_error)?;
        if !ok {
            return Err(SystemError::Load(format!(
                "{} does not compile: {messages}",
                source.display()
            )));
        }
        // (a goal that does nothing: the byte code loads, or says why not)
        let out = self
            .gnu
            .run(&start, "T = []", 1, deadline)
            .map_err(system_error)?;
        let said: Vec<&str> = std::iter::once(messages.as_str())
            .chain(out.printed_before_loading.iter().map(String::as_str))
            .chain(std::iter::once(out.stderr.as_str()))
            .flat_map(str::lines)
            .map(str::trim_end)
            .filter(|l| !l.trim().is_empty())
            .collect();
        if out.loaded.is_none() {
            return Err(SystemError::Load(if out.ended {
                format!("gprolog stopped while loading it: {}", said.join("\n"))
            } else {
                format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                )
            }));
        }
        self.loaded = true;
        Ok(Loaded {
            warnings: said.join("\n"),
        })
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        if !self.loaded {
            return Err(SystemError::NotLoaded(NAME));
        }
        let mut clock = Clock::start();
        let deadline = child::deadline(goal, &clock);
        let max = child::max_answers(goal) as usize;
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        let out = self
            .gnu
            .run(&start, goal.bare(), max, deadline)
            .map_err(system_error)?;
        if let Some(l) = out.loaded {
            clock.goal_started(l);
        }
        for a in &out.answers {
            answer(child::answer(a, goal.size));
        }
        let end = match &out.end {
            Some(Ok(done)) => child::reply_end(done),
            Some(Err(why)) => End::Untrusted(why.clone()),
            None if out.ended => child::death_end(out.status, &out.stderr, &is_fatal),
            None => End::Stopped(super::Bound::Time),
        };
        let elapsed = match end {
            End::Stopped(super::Bound::Time) => deadline.saturating_duration_since(clock.called()),
            _ => clock.until(out.at),
        };
        Ok(Outcome {
            end,
            elapsed,
            inferences: None,
        })
    }
}
