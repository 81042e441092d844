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
//! (or died).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::jail::{death_end, exception_end};
use super::suite::Case;
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{Backend, Jail, JudgeError, Loaded};
use crate::error::Context;
use crate::process::{
    find_program, random_hex, status_text, Child, Reply, Spawn, Stderr, Ticket, WorkerError,
};

/// The driver, compiled next to the judged file's byte code.
pub(super) const DRIVER_PL: &str = include_str!("../../prolog/gnu_driver.pl");

/// The program run.
const GPROLOG: &str = "gprolog";

/// At most this much of a gprolog's standard output is read (answers included).
const OUTPUT_CAP: usize = 16 << 20;

/// The longest frame (an answer) read from a gprolog.
const FRAME_CAP: usize = 1 << 20;

/// Whether `gprolog` (and its compiler beside it) can be found.
pub(super) fn available() -> bool {
    Install::find().is_some()
}

/// Where GNU Prolog is installed: its programs, with links resolved.
#[derive(Debug, Clone)]
struct Install {
    gprolog: PathBuf,
    pl2wam: PathBuf,
}

impl Install {
    fn find() -> Option<Install> {
        let gprolog = find_program(GPROLOG)?;
        let pl2wam = gprolog.parent()?.join("pl2wam");
        let pl2wam = if pl2wam.is_file() {
            pl2wam
        } else {
            find_program("pl2wam")?
        };
        Some(Install { gprolog, pl2wam })
    }

    /// What gprolog reads of its own: the folder above its programs' folder.
    fn home(&self) -> Vec<PathBuf> {
        [&self.gprolog, &self.pl2wam]
            .iter()
            .filter_map(|p| Some(p.parent()?.parent()?.to_path_buf()))
            .collect()
    }
}

/// What one process printed, and how it ended.
struct Output {
    lines: Vec<String>,
    stderr: String,
    /// `None` when killed at the deadline.
    status: Option<std::process::ExitStatus>,
}

/// A judged file under GNU Prolog.
pub(crate) struct GprologBackend {
    file: PathBuf,
    install: Install,
    jail: Option<Jail>,
    scratch: tempfile::TempDir,
    /// What the driver's names start with (`kk_drv_` and a random part).
    prefix: String,
    /// Whether the byte code of the driver and the judged file is built (in the scratch).
    built: bool,
}

/// Quotes `path` as a Prolog atom.
fn atom(path: &Path) -> String {
    let mut q = String::from("'");
    for c in path.display().to_string().chars() {
        match c {
            '\\' => q.push_str("\\\\"),
            '\'' => q.push_str("''"),
            c if c.is_control() => q.push_str(&format!("\\x{:x}\\", c as u32)),
            c => q.push(c),
        }
    }
    q.push('\'');
    q
}

impl GprologBackend {
    /// The backend for `file`; fails when gprolog is not installed or no scratch directory can
    /// be made.
    pub(crate) fn new(file: &Path, jail: Option<Jail>) -> Result<GprologBackend, JudgeError> {
        let install = Install::find().ok_or(JudgeError::NoGprolog)?;
        let scratch = super::scratch()?;
        Ok(GprologBackend {
            file: file.to_path_buf(),
            install,
            jail,
            scratch,
            prefix: format!("kk_drv_{}_", &random_hex()[..16]),
            built: false,
        })
    }

    fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// What a judged gprolog reads: its installation and the judged file itself (not its
    /// folder: a class's files often share one).
    fn read(&self) -> Vec<PathBuf> {
        let mut read = self.install.home();
        read.push(self.file.clone());
        read
    }

    /// Starts `program` with `args`, confined unless judging without confinement.
    fn start(&self, program: &Path, args: &[OsString]) -> Result<Child, JudgeError> {
        let spawn = match &self.jail {
            Some(jail) => {
                let c = jail.confinement(self.scratch(), self.read(), vec![program.to_path_buf()]);
                Spawn::confined_exec(program, args, &c).map_err(JudgeError::from)?
            }
            None => Spawn::program(program, args).current_dir(self.scratch()),
        };
        spawn
            .stderr(Stderr::Capture)
            .output_cap(OUTPUT_CAP)
            .frame_cap(FRAME_CAP)
            .spawn()
            .map_err(JudgeError::from)
    }

    /// Runs `program` with `args` for at most `timeout`.
    fn run_program(
        &self,
        program: &Path,
        args: &[OsString],
        timeout: Duration,
    ) -> Result<Output, JudgeError> {
        let start = Instant::now();
        let mut child = self.start(program, args)?;
        child.close_stdin();
        let (lines, ended) = child.collect(start + timeout);
        let status = if ended { child.wait() } else { None };
        let stderr = child.stderr_text();
        if let Some(why) = lines
            .iter()
            .map(String::as_str)
            .chain(stderr.lines())
            .find_map(|l| l.strip_prefix(crate::process::CANNOT_CONFINE))
        {
            return Err(JudgeError::CannotConfine(why.to_string()));
        }
        Ok(Output {
            lines,
            stderr,
            status,
        })
    }

    /// Compiles `source` to byte code `target` with pl2wam: its messages, and whether it
    /// succeeded.
    fn compile(
        &self,
        source: &Path,
        target: &Path,
        timeout: Duration,
    ) -> Result<(String, bool), JudgeError> {
        let args: Vec<OsString> = vec![
            "-w".into(),
            "--no-redef-error".into(),
            "-o".into(),
            target.into(),
            source.into(),
        ];
        let out = self.run_program(&self.install.pl2wam, &args, timeout)?;
        let mut text = out.lines.join("\n");
        if !out.stderr.trim().is_empty() {
            text = format!("{text}\n{}", out.stderr.trim());
        }
        let ok = out.status.is_some_and(|s| s.success()) && target.is_file();
        if out.status.is_none() {
            return Err(JudgeError::Load {
                file: source.display().to_string(),
                why: format!("compiling did not end within {} s", timeout.as_secs_f64()),
            });
        }
        Ok((text.trim().to_string(), ok))
    }

    /// Compiles the driver and the judged file to byte code by `deadline`: the compiler's
    /// messages on the judged file.
    fn build(&mut self, deadline: Instant) -> Result<String, JudgeError> {
        let file = self.file.display().to_string();
        let driver = self.scratch().join("driver.pl");
        let text = DRIVER_PL.replace("kk_drv_", &self.prefix);
        std::fs::write(&driver, text).context("writing the driver")?;
        let left = || deadline.saturating_duration_since(Instant::now());
        let (messages, ok) = self.compile(&driver, &self.scratch().join("driver.wbc"), left())?;
        if !ok {
            return Err(JudgeError::Failed(format!(
                "the judge's driver does not compile: {messages}"
            )));
        }
        // pl2wam writes the source's name into the byte code as it is, and gprolog cannot read
        // it back when the name holds a control character (a newline): such a file is
        // compiled from a copy with a plain name, and the messages name the file again
        let source = if file.chars().any(char::is_control) {
            let copy = self.scratch().join("judged-source.pl");
            std::fs::copy(&self.file, &copy).context("copying the judged file")?;
            copy
        } else {
            self.file.clone()
        };
        let (messages, ok) = self.compile(&source, &self.scratch().join("judged.wbc"), left())?;
        let messages = messages.replace(&source.display().to_string(), &file);
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
    fn exchange(
        &self,
        case_goal: &str,
        max: usize,
        deadline: Instant,
    ) -> Result<Ended, JudgeError> {
        let entry = format!(
            "load({}), {}main({})",
            atom(&self.scratch().join("driver.wbc")),
            self.prefix,
            atom(&self.scratch().join("judged.wbc"))
        );
        let args: Vec<OsString> = vec!["--entry-goal".into(), entry.into()];
        let mut child = self.start(&self.install.gprolog, &args)?;
        let ticket = Ticket::new(1);
        let request = format!(
            "kk_request({}, '{}', T, ({case_goal}), {max}).",
            ticket.id(),
            ticket.nonce(),
        );
        let _ = child.send(&request);
        child.close_stdin();
        let mut x = Exchange {
            loaded: None,
            answers: Vec::new(),
            end: None,
            printed_before_loading: Vec::new(),
            ended: false,
        };
        loop {
            match child.next_reply(&ticket, Some(deadline)) {
                Ok(Reply::Part(p)) if p == "loaded" && x.loaded.is_none() => {
                    x.loaded = Some(Instant::now());
                    x.printed_before_loading = child.take_printed();
                }
                Ok(Reply::Part(p)) if x.loaded.is_some() => x.answers.push(p),
                Ok(Reply::Part(p)) => {
                    x.end = Some(Err(format!("an answer before the goal started: {p}")));
                    break;
                }
                Ok(Reply::Done(d)) => {
                    x.end = Some(Ok(d));
                    break;
                }
                Ok(Reply::Timeout) => break,
                Err(WorkerError::BadFrame(why)) => {
                    x.end = Some(Err(why));
                    break;
                }
                Err(_) => {
                    x.ended = true;
                    break;
                }
            }
        }
        let end = Instant::now();
        if x.loaded.is_none() {
            x.printed_before_loading = child.take_printed();
        }
        x.ended |= child.has_ended();
        child.kill();
        let status = child.wait();
        let stderr = child.stderr_text();
        if let Some(why) = x
            .printed_before_loading
            .iter()
            .map(String::as_str)
            .chain(stderr.lines())
            .find_map(|l| l.strip_prefix(crate::process::CANNOT_CONFINE))
        {
            return Err(JudgeError::CannotConfine(why.to_string()));
        }
        Ok(Exchange {
            ended: x.ended && x.end.is_none(),
            ..x
        }
        .with(status, stderr, end))
    }
}

/// What one gprolog process did with a request.
struct Exchange {
    /// When the goal started (the driver said the judged file is loaded).
    loaded: Option<Instant>,
    /// Each answer's text, in order.
    answers: Vec<String>,
    /// The reply (`complete`, `limit`, `exception(B)`), or why the output broke the protocol;
    /// `None`: no reply (the deadline, or the process ended first).
    end: Option<Result<String, String>>,
    /// What the process printed before the goal started (the load's messages).
    printed_before_loading: Vec<String>,
    /// The process ended (by itself) without a reply.
    ended: bool,
}

/// An [`Exchange`] with how its process ended.
struct Ended {
    x: Exchange,
    status: Option<std::process::ExitStatus>,
    stderr: String,
    /// When the reply (or the end) came.
    at: Instant,
}

impl Exchange {
    fn with(self, status: Option<std::process::ExitStatus>, stderr: String, at: Instant) -> Ended {
        Ended {
            x: self,
            status,
            stderr,
            at,
        }
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

/// Parses `[[1,2],[2,1]]` (spaces allowed) as a grid.
fn parse_grid(text: &str) -> Option<Vec<Vec<u32>>> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let inner = inner.strip_prefix('[')?.strip_suffix(']')?;
    inner
        .split("],[")
        .map(|row| {
            if row.is_empty() {
                return Some(Vec::new());
            }
            row.split(',').map(|c| c.parse().ok()).collect()
        })
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
        if out.x.loaded.is_none() {
            let why = match out.status {
                Some(s) if out.x.ended => format!(
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
            .x
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
        let out = match self.exchange(&case.goal, max + 1, deadline) {
            Ok(o) => o,
            Err(e) => return failed(RunEnd::Crashed(e.to_string())),
        };
        let mut answers: Vec<JudgedAnswer> = out
            .x
            .answers
            .iter()
            .map(|t| match parse_grid(t) {
                Some(g) if g.len() == case.size && g.iter().all(|r| r.len() == case.size) => {
                    JudgedAnswer::Grid(g)
                }
                _ => JudgedAnswer::Bad(t.clone()),
            })
            .collect();
        // (this process's clock: from the goal's start to its reply, or to the deadline)
        let elapsed = match out.x.loaded {
            Some(l) => between(l, out.at),
            None => between(start, out.at),
        };
        let end = match (&out.x.end, out.status) {
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
            (None, Some(s)) if out.x.ended => {
                let status = status_text(s);
                let fatal = out
                    .stderr
                    .lines()
                    .find(|l| l.contains("Fatal Error") || l.contains("overflow"));
                match death_end(self.jail.as_ref(), &status, &out.stderr) {
                    Some(end) => end,
                    None => match (fatal, s.code()) {
                        (Some(f), _) => RunEnd::Crashed(f.trim().to_string()),
                        (None, Some(code)) => RunEnd::Halted(code.into()),
                        (None, None) => RunEnd::Crashed(format!("gprolog was stopped ({status})")),
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
    fn grids_and_lines_parse() {
        assert_eq!(
            parse_grid("[[1,2],[2,1]]"),
            Some(vec![vec![1, 2], vec![2, 1]])
        );
        assert_eq!(parse_grid("[]"), Some(vec![]));
        assert_eq!(parse_grid("[[1,_123],[2,1]]"), None);
        assert_eq!(
            syntax_errors(
                Path::new("/t/bad.pl"),
                "/t/bad.pl:12:5: syntax error: . or operator expected after expression"
            ),
            vec![(12, ". or operator expected after expression".to_string())]
        );
    }
}
