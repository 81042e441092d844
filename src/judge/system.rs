//! The judge's backend over the system seam ([`crate::system`]): a judged file loaded as a
//! [`Program::File`] in any [`PrologSystem`], each [`Case`] run as a [`Goal`], and what the
//! system says read as the judge's [`Run`].
//!
//! A backend holds one system per predicate, each loaded the first time a case of its
//! predicate runs: `kenken/3`'s with the FD solver (`fd: true`), `plain_kenken/3`'s where none
//! exists (`fd: false`: the system makes the FD solver unreachable, so that a plain solution
//! that calls it fails by behaviour). Nothing here knows which system it is: the verdicts are
//! read from [`End`] alone, and a refusal of confinement is told from the program's own errors
//! by what the system's processes may reach ([`PrologSystem::reach`], the [`Jail`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::jail::{death_end, exception_end};
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{cut, Backend, Case, Dialect, Jail, JudgeError, Loaded};
use crate::process::WorkerError;
use crate::prolog::Predicate;
use crate::system::{Bound, End, Goal, Program, PrologSystem, SystemError};

/// Opens a fresh, unloaded system (as the judge set it up: confined by its jail).
pub(crate) type Open = dyn Fn() -> Result<Box<dyn PrologSystem>, SystemError> + Send + Sync;

/// A judged file in a Prolog system of the seam.
pub(crate) struct SystemBackend {
    open: Arc<Open>,
    file: PathBuf,
    /// The file's name in reports ([`super::path_text`] of the path it was given by).
    name: String,
    dialect: Dialect,
    jail: Option<Jail>,
    /// The predicate whose system [`Backend::load`] loads.
    first: Predicate,
    /// `kenken/3`'s system and `plain_kenken/3`'s, once loaded.
    fd: Option<Box<dyn PrologSystem>>,
    plain: Option<Box<dyn PrologSystem>>,
}

impl SystemBackend {
    /// The backend for `file` (written in `dialect`; `name` in reports), whose systems `open`
    /// gives; `first` is
    /// the predicate whose system loads first (its load's warnings are the judgement's).
    pub(crate) fn new(
        open: Arc<Open>,
        (file, name): (&Path, &str),
        dialect: Dialect,
        jail: Option<Jail>,
        first: Predicate,
    ) -> SystemBackend {
        SystemBackend {
            open,
            file: file.to_path_buf(),
            name: name.to_string(),
            dialect,
            jail,
            first,
            fd: None,
            plain: None,
        }
    }

    /// The system of `predicate`, opened and loaded within `timeout` the first time.
    fn system(
        &mut self,
        predicate: Predicate,
        timeout: Duration,
    ) -> Result<(&mut Box<dyn PrologSystem>, Option<Loaded>), JudgeError> {
        let program = Program::File {
            path: self.file.clone(),
            dialect: self.dialect,
            fd: predicate == Predicate::Fd,
        };
        let file = self.name.clone();
        let slot = match predicate {
            Predicate::Fd => &mut self.fd,
            Predicate::Plain => &mut self.plain,
        };
        let mut loaded = None;
        if slot.is_none() {
            let jail = self.jail.as_ref();
            let mut system = (self.open)().map_err(|e| judge_error(&file, jail, e))?;
            // (a spare only in the system that runs: see `Backend::run`)
            system.keep_spare(false);
            let l = system
                .load(&program, timeout)
                .map_err(|e| judge_error(&file, jail, e))?;
            loaded = Some(Loaded {
                warnings: l.warnings,
            });
            *slot = Some(system);
        }
        match slot {
            Some(system) => Ok((system, loaded)),
            None => Err(JudgeError::Failed("no system".into())),
        }
    }
}

/// Why a `plain_kenken/3` case judged under `system` (confined or not, GNU Prolog's FD-free
/// build at hand or not) proves less than it says: where the FD solver stays reachable from
/// it, said on every such case; `None` where it does not (SWI-Prolog confined, GNU Prolog
/// with `gplc`).
pub(crate) fn plain_caveat(system: super::System, confined: bool) -> Option<String> {
    use super::System;
    match system {
        System::Scryer => Some(crate::system::SCRYER_OPEN_ROUTE.to_string()),
        System::Gprolog if !crate::system::Gprolog::without_fd_available() => Some(
            "plain_kenken/3 ran in gprolog with its FD solver: gplc (GNU Prolog's compiler, \
             with a C compiler), which builds a GNU Prolog without it, is not installed"
                .into(),
        ),
        System::Swipl if !confined => Some(
            "not confined (--no-confine): plain_kenken/3 could read and load SWI-Prolog's \
             constraint libraries"
                .into(),
        ),
        System::Gprolog | System::Swipl => None,
    }
}

/// The judge's error for the seam's, on loading `file` (confined by `jail`).
fn judge_error(file: &str, jail: Option<&Jail>, e: SystemError) -> JudgeError {
    let file = file.to_string();
    match e {
        SystemError::Syntax { errors, .. } => JudgeError::Syntax { file, errors },
        SystemError::Load(why) | SystemError::Unsupported(why) => JudgeError::Load { file, why },
        SystemError::CannotConfine(why) => JudgeError::CannotConfine(why),
        // (a process that died while loading: what its confinement refused, or a limit)
        SystemError::Process(WorkerError::Died { status, stderr }) => JudgeError::Load {
            file,
            why: match death_end(jail, &status, &stderr) {
                Some(RunEnd::Blocked(what)) => {
                    format!("{what} while loading: not allowed while judging")
                }
                Some(RunEnd::OverLimit(why)) => why,
                _ => format!("the engine process ended ({status})"),
            },
        },
        SystemError::Process(e) => JudgeError::from(e),
        SystemError::NotInstalled { system, install } => JudgeError::Failed(format!(
            "{system} is not installed: {install}; or judge with --prolog scryer"
        )),
        e => JudgeError::Failed(e.to_string()),
    }
}

/// An exception's text as the report gives it: the FD solver reached where it does not
/// exist, or a procedure that does not exist, said in words.
fn exception_text(ball: &str) -> String {
    if let Some(pi) = ball
        .strip_prefix("kk_judge_no_fd(")
        .and_then(|b| b.strip_suffix(')'))
    {
        return format!(
            "{pi}: plain_kenken/3 called the FD solver, which the spec forbids there (its \
             engine has none)"
        );
    }
    match ball
        .strip_prefix("error(existence_error(procedure,")
        .and_then(balanced)
    {
        Some(pi) => format!("existence_error(procedure,{pi}): {pi} is not defined"),
        None => ball.to_string(),
    }
}

/// The constraint library (of `solvers`, the ones hidden from the engine) that the exception
/// `ball` says could not be read, if it says so.
fn solver_read(ball: &str, solvers: &[PathBuf]) -> Option<String> {
    let path = super::jail::quoted_path(ball)?;
    solvers
        .iter()
        .any(|s| Path::new(&path).starts_with(s))
        .then_some(path)
}

/// The text of `rest` up to the `)` that closes a bracket open before it (`clpfd:(ins)/2`
/// of `clpfd:(ins)/2),foo)`), brackets inside it balanced; quoted atoms are not looked into.
fn balanced(rest: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            _ if quoted => {}
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return Some(&rest[..i]),
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

impl Backend for SystemBackend {
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError> {
        let (_, loaded) = self.system(self.first, timeout)?;
        Ok(loaded.unwrap_or(Loaded {
            warnings: String::new(),
        }))
    }

    fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run {
        let start = Instant::now();
        let failed = |end: RunEnd| Run {
            answers: Vec::new(),
            end,
            elapsed: start.elapsed(),
        };
        let jail = self.jail.clone();
        // (a spare only in the system that runs: the cases of one predicate come together)
        let other = match case.predicate {
            Predicate::Fd => &mut self.plain,
            Predicate::Plain => &mut self.fd,
        };
        if let Some(other) = other {
            other.keep_spare(false);
        }
        let system = match self.system(case.predicate, timeout) {
            Ok((system, _)) => system,
            Err(_) if start.elapsed() >= timeout => {
                return Run {
                    answers: Vec::new(),
                    end: RunEnd::Timeout,
                    elapsed: timeout,
                }
            }
            Err(e) => {
                return failed(RunEnd::Crashed(cut(&format!(
                    "loading the file again failed: {e}"
                ))))
            }
        };
        system.keep_spare(true);
        // one more than wanted: the system stops there, and one more says "there are more";
        // the case's time starts once its system is loaded (the first load of a predicate's
        // system has a timeout of its own; the file loaded again in the fresh process of each
        // later case shares the case's timeout: see each system's `run`)
        let goal = Goal {
            max_answers: Some(max + 1),
            deadline: Some(Instant::now() + timeout),
            ..Goal::new(&case.goal, case.size)
        };
        let mut answers = Vec::new();
        let outcome = match system.run(&goal, &mut |a| {
            answers.push(match a.value {
                Ok(grid) => JudgedAnswer::Grid(grid),
                Err(text) => JudgedAnswer::Bad(text),
            })
        }) {
            Ok(o) => o,
            Err(SystemError::CannotConfine(why)) => {
                return failed(RunEnd::Crashed(cut(&format!("cannot confine: {why}"))))
            }
            Err(e) => return failed(RunEnd::Crashed(cut(&e.to_string()))),
        };
        let reach = system.reach();
        let (scratch, read) = match &reach {
            Some(r) => (r.scratch.as_path(), r.read.as_slice()),
            None => (Path::new("/nonexistent"), &[][..]),
        };
        let more = answers.len() > max;
        answers.truncate(max);
        let end = match outcome.end {
            End::Complete | End::Stopped(Bound::Answers) if more => RunEnd::Limit,
            End::Complete => RunEnd::Complete,
            End::Stopped(Bound::Answers) => RunEnd::Limit,
            // (no system of the judge counts inferences: a bound of time, as it were)
            End::Stopped(Bound::Time | Bound::Inferences) => RunEnd::Timeout,
            End::Exception(ball) => match solver_read(&ball, &system.hidden_solvers()) {
                Some(library) => RunEnd::Blocked(format!(
                    "plain_kenken/3 tried to read the constraint library {library}, which the \
                     spec forbids there (its engine cannot read it)"
                )),
                None => exception_end(jail.as_ref(), exception_text(&ball), scratch, read),
            },
            End::Unsupported(pi) => RunEnd::Unsupported(pi),
            End::Halted(code) => RunEnd::Halted(code),
            End::Crashed(c) => {
                death_end(jail.as_ref(), c.status.as_deref().unwrap_or(""), &c.stderr)
                    .unwrap_or(RunEnd::Crashed(c.why))
            }
            End::Untrusted(why) => {
                answers.clear();
                RunEnd::Crashed(format!(
                    "its output broke the judge's protocol, so no answer of it is believed: {why}"
                ))
            }
        };
        Run {
            elapsed: if end == RunEnd::Timeout {
                timeout
            } else {
                outcome.elapsed
            },
            answers,
            end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceptions_are_said_in_words() {
        assert_eq!(
            exception_text("error(existence_error(procedure,fd_domain/3),row/2)"),
            "existence_error(procedure,fd_domain/3): fd_domain/3 is not defined"
        );
        assert_eq!(
            exception_text("kk_judge_no_fd(#= /2)"),
            "#= /2: plain_kenken/3 called the FD solver, which the spec forbids there (its \
             engine has none)"
        );
        assert_eq!(exception_text("foo"), "foo");
        assert_eq!(
            exception_text("error(existence_error(procedure,clpfd:(ins)/2),clpfd:(ins)/2)"),
            "existence_error(procedure,clpfd:(ins)/2): clpfd:(ins)/2 is not defined"
        );
    }
}
