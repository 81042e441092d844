//! The GNU Prolog backend: the judged file under the real `gprolog`, one process per case (killed
//! when the case's time is up), driven by `prolog/gnu_driver.pl`.
//!
//! `consult/1` in gprolog starts its compiler `pl2wam` as a child process; a confined gprolog
//! may start none. So the judge runs `pl2wam` itself (confined the same way) once on the
//! judged file and once on the driver (its names made unguessable for each judged file), and
//! each case's gprolog only `load/1`s the byte code.
//!
//! The driver and the judged file share one gprolog, so nothing the driver writes can be
//! hidden from the judged code's view of its output, nor its names from the judged code's
//! calls: the judge trusts neither. The case travels on standard input with a fresh nonce, read
//! by the driver before the judged file loads (see `prolog/gnu_driver.pl`), and only frames
//! that carry it are read as the reply ([`crate::process::Ticket`]); times are taken here,
//! from the frame that says the goal starts to the one that ends it; every grid is checked
//! against the native solver's answers. A process that ends without a reply called `halt`
//! (or died): its verdict names its exit status, never what it wrote (which is the file's).
//! The nonce travels as integers, which no atom of gprolog's atom table holds.
//!
//! A `plain_kenken/3` case runs in a GNU Prolog built without its FD solver (`gplc
//! --no-fd-lib`, once per judged file): `fd_domain/3`, `#=/2` and the rest do not exist there.
//! Without `gplc` it runs in `gprolog`, and the judgement says so.
//!
//! Each line the judge reads from a judged gprolog is at most [`JUDGED_FRAME_CAP`] bytes: an
//! answer of a 9x9 grid takes some 200.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::jail::{death_end, exception_end};
use super::suite::Case;
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{Backend, Jail, JudgeError, Loaded};
use crate::gnu::{self, Ended, Gnu, GnuError, Install};
use crate::process::{status_text, Child, Spawn, Stderr, WorkerError};
use crate::prolog::Predicate;

/// The longest frame (an answer, or the reply) read from a judged gprolog; past it, the
/// process is killed and the case crashed.
const JUDGED_FRAME_CAP: usize = 4096;

/// How long building a GNU Prolog without FD solver may take.
const NO_FD_BUILD: Duration = Duration::from_secs(60);

/// Whether a GNU Prolog without FD solver can be built here (`gplc` is installed).
pub(super) fn no_fd_available() -> bool {
    crate::process::find_program("gplc").is_some()
}

/// Whether `gprolog` (and its compiler beside it) can be found.
pub(super) fn available() -> bool {
    Install::find().is_some()
}

/// A judged file under GNU Prolog.
pub(crate) struct GprologBackend {
    file: PathBuf,
    gnu: Gnu,
    jail: Option<Jail>,
    scratch: tempfile::TempDir,
    /// Whether the byte code of the driver and the judged file is built (in the scratch).
    built: bool,
    /// Where the GNU Prolog without FD solver is built (not in the scratch: a confined
    /// child's scratch runs no program).
    tools: tempfile::TempDir,
    /// That GNU Prolog, once built (`Some(None)`: it could not be).
    no_fd: Option<Option<PathBuf>>,
}

impl GprologBackend {
    /// The backend for `file`; fails when gprolog is not installed or no scratch directory can
    /// be made.
    pub(crate) fn new(file: &Path, jail: Option<Jail>) -> Result<GprologBackend, JudgeError> {
        let install = Install::find().ok_or(JudgeError::NoGprolog)?;
        let scratch = super::scratch()?;
        Ok(GprologBackend {
            file: file.to_path_buf(),
            gnu: Gnu::new(install, scratch.path()),
            jail,
            scratch,
            built: false,
            tools: super::scratch()?,
            no_fd: None,
        })
    }

    fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// What a judged gprolog reads: its installation and the judged file itself (not its
    /// folder: a class's files often share one).
    fn read(&self) -> Vec<PathBuf> {
        let mut read = self.gnu.install().home();
        read.push(self.file.clone());
        read
    }

    /// Starts `program` with `args`, confined unless judging without confinement.
    fn start(&self, program: &Path, args: &[OsString]) -> Result<Child, WorkerError> {
        let spawn = match &self.jail {
            Some(jail) => {
                let c = jail.confinement(self.scratch(), self.read(), vec![program.to_path_buf()]);
                Spawn::confined_exec(program, args, &c)?
            }
            None => Spawn::program(program, args).current_dir(self.scratch()),
        };
        spawn
            .stderr(Stderr::Capture)
            .output_cap(gnu::OUTPUT_CAP)
            .frame_cap(JUDGED_FRAME_CAP)
            .spawn()
    }

    /// Compiles the driver and the judged file to byte code by `deadline`: the compiler's
    /// messages on the judged file.
    fn build(&mut self, deadline: Instant) -> Result<String, JudgeError> {
        let file = self.file.display().to_string();
        let left = || deadline.saturating_duration_since(Instant::now());
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        if let Err(messages) = self.gnu.build_driver(&start, left()).map_err(judge_error)? {
            return Err(JudgeError::Failed(format!(
                "the judge's driver does not compile: {messages}"
            )));
        }
        let (messages, ok) = self
            .gnu
            .build_program(&start, &self.file, left())
            .map_err(judge_error)?;
        let errors = syntax_errors(&self.file, &messages);
        if !errors.is_empty() {
            return Err(JudgeError::Syntax { file, errors });
        }
        if !ok {
            return Err(JudgeError::Load {
                file,
                why: format!("gprolog's compiler refused it: {messages}"),
            });
        }
        self.built = true;
        Ok(messages)
    }

    /// Runs `goal` (binding `T`; at most `max` answers) in a fresh gprolog by `deadline`.
    fn exchange(&self, goal: &str, max: usize, deadline: Instant) -> Result<Ended, JudgeError> {
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        self.gnu
            .run(&start, goal, max, deadline)
            .map_err(judge_error)
    }

    /// [`GprologBackend::exchange`] for a `plain_kenken/3` case: in the GNU Prolog without
    /// FD solver when one can be built (the first time, here), else in gprolog.
    fn exchange_plain(
        &mut self,
        goal: &str,
        max: usize,
        deadline: Instant,
    ) -> Result<Ended, JudgeError> {
        let tools = self.tools.path().to_path_buf();
        let no_fd = self
            .no_fd
            .get_or_insert_with(|| gnu::build_no_fd(&tools, NO_FD_BUILD))
            .clone();
        let Some(no_fd) = no_fd else {
            return self.exchange(goal, max, deadline);
        };
        let start = |p: &Path, a: &[OsString]| self.start(p, a);
        self.gnu
            .run_without_fd(&start, &no_fd, goal, max, deadline)
            .map_err(judge_error)
    }
}

/// The judge's error for GNU Prolog's.
fn judge_error(e: GnuError) -> JudgeError {
    match e {
        GnuError::CannotConfine(why) => JudgeError::CannotConfine(why),
        GnuError::Process(e) => JudgeError::from(e),
        GnuError::CompileTimeout(file, s) => JudgeError::Load {
            file,
            why: format!("compiling did not end within {s}"),
        },
        GnuError::Io(why) => JudgeError::Failed(why),
    }
}

/// The syntax errors GNU Prolog reported while consulting `file`: (line, message).
fn syntax_errors(file: &Path, output: &str) -> Vec<(usize, String)> {
    let name = file.display().to_string();
    output
        .lines()
        .filter(|l| l.contains("syntax error"))
        .filter_map(|l| {
            let rest = &l[l.find(&name)? + name.len()..];
            let rest = rest.strip_prefix(':')?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let line = digits.parse().ok()?;
            let message = l[l.find("syntax error")? + "syntax error".len()..]
                .trim_start_matches([':', ' '])
                .trim()
                .to_string();
            Some((line, message))
        })
        .collect()
}

/// What the compiler said of a file that compiled, less its chatter (`compiling ...`,
/// `... compiled, N lines read`), one message a line, ending with a newline when any.
/// A line of the banner gprolog prints as it starts (not the file's).
fn is_banner(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("GNU Prolog ")
        || l.starts_with("Compiled ")
        || l == "By Daniel Diaz"
        || l.starts_with("Copyright (C)")
}

fn compiler_warnings(messages: &str) -> String {
    messages
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !(l.starts_with("compiling ") && l.ends_with("...")))
        .filter(|l| !l.contains(" compiled, "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The milliseconds from `from` to `to`, as a duration (zero when `from` is later).
fn between(from: Instant, to: Instant) -> Duration {
    to.saturating_duration_since(from)
}

impl Backend for GprologBackend {
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError> {
        let deadline = Instant::now() + timeout;
        let file = self.file.display().to_string();
        let messages = self.build(deadline)?;
        let out = self.exchange("T = []", 1, deadline)?;
        if out.loaded.is_none() {
            let why = match out.status {
                Some(s) if out.ended => format!(
                    "gprolog stopped while loading it ({}): {}",
                    status_text(s),
                    out.stderr.trim()
                ),
                _ => format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
            };
            return Err(JudgeError::Load { file, why });
        }
        // what the file said while loading: the compiler's warnings, then the load's
        let mut warnings = compiler_warnings(&messages);
        let said: Vec<&str> = out
            .printed_before_loading
            .iter()
            .map(String::as_str)
            .chain(out.stderr.lines())
            .filter(|l| !l.trim().is_empty() && !is_banner(l))
            .collect();
        if !said.is_empty() {
            warnings.push_str(&said.join("\n"));
        }
        Ok(Loaded {
            warnings: warnings.trim().to_string(),
        })
    }

    fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run {
        let start = Instant::now();
        let deadline = start + timeout;
        let failed = |end: RunEnd| Run {
            answers: Vec::new(),
            end,
            elapsed: start.elapsed(),
        };
        if !self.built {
            // (a backend of its own, for another job: its byte code is built on first use)
            if let Err(e) = self.build(deadline) {
                return failed(RunEnd::Crashed(format!(
                    "building the byte code failed: {e}"
                )));
            }
        }
        // one more than wanted: the driver stops at Max, and one more says "there are more"
        let out = match case.predicate {
            Predicate::Plain => self.exchange_plain(&case.goal, max + 1, deadline),
            Predicate::Fd => self.exchange(&case.goal, max + 1, deadline),
        };
        let out = match out {
            Ok(o) => o,
            Err(e) => return failed(RunEnd::Crashed(e.to_string())),
        };
        let mut answers: Vec<JudgedAnswer> = out
            .answers
            .iter()
            .map(|t| match gnu::parse_grid(t) {
                Some(g) if g.len() == case.size && g.iter().all(|r| r.len() == case.size) => {
                    JudgedAnswer::Grid(g)
                }
                _ => JudgedAnswer::Bad(t.to_string()),
            })
            .collect();
        // (this process's clock: from the goal's start to its reply, or to the deadline)
        let elapsed = match out.loaded {
            Some(l) => between(l, out.at),
            None => between(start, out.at),
        };
        let end = match (&out.end, out.status) {
            (Some(Err(why)), _) => RunEnd::Crashed(format!(
                "its output broke the judge's protocol, so no answer of it is believed: {why}"
            )),
            (Some(Ok(d)), _) if d == "complete" || d == "limit" => {
                if answers.len() > max {
                    answers.truncate(max);
                    RunEnd::Limit
                } else if d == "limit" {
                    RunEnd::Limit
                } else {
                    RunEnd::Complete
                }
            }
            (Some(Ok(d)), _) => match d
                .strip_prefix("exception(")
                .and_then(|b| b.strip_suffix(')'))
            {
                Some(ball) => {
                    let e = match ball.strip_prefix("error(existence_error(procedure,") {
                        Some(rest) => match rest.split_once(')') {
                            Some((pi, _)) => {
                                format!("existence_error(procedure,{pi}): {pi} is not defined")
                            }
                            None => ball.to_string(),
                        },
                        None => ball.to_string(),
                    };
                    exception_end(self.jail.as_ref(), e, self.scratch(), &self.read())
                }
                None => RunEnd::Crashed(format!("an unknown reply {d:?}")),
            },
            (None, Some(s)) if out.ended => {
                // (what it wrote is the file's to write: only how it ended is the judge's)
                let status = status_text(s);
                match death_end(self.jail.as_ref(), &status, "") {
                    Some(end) => end,
                    None => match s.code() {
                        Some(0) => RunEnd::Halted(0),
                        Some(code) => RunEnd::Crashed(format!(
                            "gprolog ended before the goal did, with exit status {code} \
                             (halt({code}), or a fatal error such as a stack overflow)"
                        )),
                        None => RunEnd::Crashed(format!("gprolog was stopped ({status})")),
                    },
                }
            }
            (None, _) => RunEnd::Timeout,
        };
        let elapsed = if end == RunEnd::Timeout {
            timeout
        } else {
            elapsed
        };
        Run {
            answers,
            end,
            elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_read_from_the_compilers_messages() {
        assert_eq!(
            syntax_errors(
                Path::new("/t/bad.pl"),
                "/t/bad.pl:12:5: syntax error: . or operator expected after expression"
            ),
            vec![(12, ". or operator expected after expression".to_string())]
        );
    }
}
