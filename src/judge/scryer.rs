//! The Scryer backend: the judge's [`Backend`] over the seam's [`ScryerWorker`]
//! (`src/system/scryer/`), which loads the judged file ([`Program::File`]) in a fresh worker
//! process for every case, with a warm spare. Two systems: `kenken/3`'s and
//! `plain_kenken/3`'s (no FD solver), so that the two never share an engine; the cases of one
//! predicate come together, and only the system running keeps a spare.
//!
//! What is here only maps: the jail to the system's [`ChildSetup`], the system's errors to
//! the judge's, and its [`End`]s to [`RunEnd`]s, with the jail's words for what confinement
//! refused or a limit it reached.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::jail::{death_end, exception_end, narrow};
use super::suite::Case;
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{cut, Backend, Dialect, Jail, JudgeError, Loaded};
use crate::process::WorkerError;
use crate::prolog::Predicate;
use crate::system::{
    Bound, ChildSetup, End, Goal, Program, PrologSystem, ScryerWorker, SystemError,
};

/// A judged file in Scryer: `kenken/3`'s system and `plain_kenken/3`'s.
pub(crate) struct ScryerBackend {
    file: PathBuf,
    dialect: Dialect,
    systems: [ScryerWorker; 2],
    /// Whether each system has loaded the file.
    loaded: [bool; 2],
    jail: Option<Jail>,
    /// What the judged file may read besides the system's and what it was told it may read
    /// too: itself (to tell a refused write from a refused read).
    read: Vec<PathBuf>,
}

impl ScryerBackend {
    /// The backend for `file` (not started yet), confined by `jail` when given.
    pub(crate) fn new(
        file: &Path,
        dialect: Dialect,
        jail: Option<Jail>,
    ) -> Result<ScryerBackend, JudgeError> {
        // the judged file itself, not its folder (a class's files often share one)
        let read = vec![file.to_path_buf()];
        let system = || -> Result<ScryerWorker, JudgeError> {
            let mut s = match &jail {
                Some(j) => ScryerWorker::confined(ChildSetup {
                    limits: j.limits,
                    read: narrow(&j.readable(read.clone()), &j.hidden),
                    ..ChildSetup::default()
                })
                .map_err(|e| JudgeError::Failed(e.to_string()))?,
                None => ScryerWorker::new(),
            };
            s.keep_spare(false);
            Ok(s)
        };
        Ok(ScryerBackend {
            file: file.to_path_buf(),
            dialect,
            systems: [system()?, system()?],
            loaded: [false; 2],
            jail,
            read,
        })
    }

    /// The judged file, for the system without FD solver or with (`i`: 1 or 0).
    fn program(&self, i: usize) -> Program {
        Program::File {
            path: self.file.clone(),
            dialect: self.dialect,
            fd: i == 0,
        }
    }

    /// The judge's error for a load's.
    fn load_error(&self, e: SystemError) -> JudgeError {
        let file = self.file.display().to_string();
        match e {
            SystemError::Syntax { file, errors } => JudgeError::Syntax { file, errors },
            SystemError::Load(why) => JudgeError::Load { file, why },
            SystemError::CannotConfine(why) => JudgeError::CannotConfine(why),
            SystemError::Process(WorkerError::Died { status, stderr }) => JudgeError::Load {
                file,
                why: match death_end(self.jail.as_ref(), &status, &stderr) {
                    Some(RunEnd::Blocked(what)) => {
                        format!("{what} while loading: not allowed while judging")
                    }
                    Some(RunEnd::OverLimit(why)) => why,
                    _ => format!("the engine process ended ({status})"),
                },
            },
            SystemError::Process(e) => JudgeError::from(e),
            e => JudgeError::Failed(e.to_string()),
        }
    }

    /// The judge's end for a run's, by system `i`.
    fn run_end(&self, end: End, i: usize) -> RunEnd {
        match end {
            End::Complete => RunEnd::Complete,
            End::Stopped(Bound::Answers) => RunEnd::Limit,
            End::Stopped(Bound::Time) => RunEnd::Timeout,
            End::Stopped(Bound::Inferences) => RunEnd::Crashed("an inference bound".into()),
            End::Exception(e) => exception_end(
                self.jail.as_ref(),
                e,
                self.systems[i].scratch().unwrap_or(Path::new("")),
                &self.read,
            ),
            End::Unsupported(pi) => RunEnd::Unsupported(pi),
            End::Halted(code) => RunEnd::Halted(code),
            End::Crashed(c) => death_end(
                self.jail.as_ref(),
                c.status.as_deref().unwrap_or(""),
                &c.stderr,
            )
            .unwrap_or(RunEnd::Crashed(c.why)),
            End::Untrusted(why) => RunEnd::Crashed(format!(
                "its output broke the judge's protocol, so no answer of it is believed: {why}"
            )),
        }
    }
}

impl Backend for ScryerBackend {
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError> {
        let loaded = self.systems[0].load(&self.program(0), timeout);
        self.loaded[0] = loaded.is_ok();
        loaded
            .map(|l| Loaded {
                warnings: l.warnings,
            })
            .map_err(|e| self.load_error(e))
    }

    fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run {
        let i = match case.predicate {
            Predicate::Fd => 0,
            Predicate::Plain => 1,
        };
        // (the other predicate's system keeps no spare meanwhile)
        self.systems[1 - i].keep_spare(false);
        self.systems[i].keep_spare(true);
        let start = Instant::now();
        let failed = |end: RunEnd, elapsed: Duration| Run {
            answers: Vec::new(),
            end,
            elapsed,
        };
        if !self.loaded[i] {
            match self.systems[i].load(&self.program(i), timeout) {
                Ok(_) => self.loaded[i] = true,
                Err(_) if start.elapsed() >= timeout => return failed(RunEnd::Timeout, timeout),
                Err(e) => {
                    let why = format!("loading the file again failed: {}", self.load_error(e));
                    return failed(RunEnd::Crashed(cut(&why)), start.elapsed());
                }
            }
        }
        // one more than wanted: one more says "there are more"
        let goal = Goal {
            max_answers: Some(max + 1),
            deadline: Some(Instant::now() + timeout),
            ..Goal::new(&case.goal, case.size)
        };
        let mut answers = Vec::new();
        let outcome = self.systems[i].run(&goal, &mut |a| {
            answers.push(match a.value {
                Ok(grid) => JudgedAnswer::Grid(grid),
                Err(text) => JudgedAnswer::Bad(text),
            })
        });
        let outcome = match outcome {
            Ok(o) => o,
            Err(SystemError::CannotConfine(why)) => {
                return failed(
                    RunEnd::Crashed(format!("cannot confine: {why}")),
                    start.elapsed(),
                )
            }
            Err(e) => return failed(RunEnd::Crashed(cut(&e.to_string())), start.elapsed()),
        };
        if matches!(outcome.end, End::Untrusted(_)) {
            answers.clear();
        }
        let mut end = self.run_end(outcome.end, i);
        if answers.len() > max {
            answers.truncate(max);
            if end == RunEnd::Complete {
                end = RunEnd::Limit;
            }
        }
        let elapsed = match end {
            RunEnd::Timeout => timeout,
            _ => outcome.elapsed,
        };
        Run {
            answers,
            end,
            elapsed,
        }
    }
}
