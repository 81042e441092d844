//! The GNU Prolog backend: the judged file under the real `gprolog`, one process per case (killed
//! when the case's time is up), driven by `prolog/gnu_driver.pl`.
//!
//! `consult/1` in gprolog starts its compiler `pl2wam` as a child process; a confined gprolog
//! may start none. So the judge runs `pl2wam` itself (confined the same way) once on the
//! judged file and once on the driver, and each case's gprolog only `load/1`s the byte code.
//! The case is a file holding one term, `kk_case(T, Goal, Max).`; the driver prints
//! `kk_loaded.` once the files are loaded, `kk_answer(T).` per answer as it is found, then
//! `kk_end(complete, Ms).`, `kk_end(limit, Ms).` or `kk_exception(Ball, Ms).`. A process that
//! ends without one of these called `halt` (or died).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::jail::{death_end, exception_end};
use super::suite::Case;
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{Backend, Jail, JudgeError, Loaded};
use crate::error::Context;
use crate::process::{find_program, status_text, Child, Spawn, Stderr};

/// The driver, compiled next to the judged file's byte code.
pub(super) const DRIVER_PL: &str = include_str!("../../prolog/gnu_driver.pl");

/// The program run.
const GPROLOG: &str = "gprolog";

/// At most this much of a gprolog's standard output is read (answers included).
const OUTPUT_CAP: usize = 16 << 20;

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
    elapsed: Duration,
}

/// A judged file under GNU Prolog.
pub(crate) struct GprologBackend {
    file: PathBuf,
    install: Install,
    jail: Option<Jail>,
    scratch: tempfile::TempDir,
}

/// Quotes `path` as a Prolog atom.
fn atom(path: &Path) -> String {
    let text = path.display().to_string();
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "''"))
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
            .no_stdin()
            .stderr(Stderr::Capture)
            .output_cap(OUTPUT_CAP)
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
        let (lines, ended) = child.collect(start + timeout);
        let elapsed = start.elapsed();
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
            elapsed,
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

    /// Runs the case term `case` (text ending with `.`) for at most `timeout`.
    fn spawn(&self, case: &str, timeout: Duration) -> Result<Output, JudgeError> {
        let file = self.scratch().join("case.pl");
        std::fs::write(&file, case).with_context(|| format!("writing {}", file.display()))?;
        let goal = format!(
            "load({}), load({}), kk_drv_main({})",
            atom(&self.scratch().join("judged.wbc")),
            atom(&self.scratch().join("driver.wbc")),
            atom(&file)
        );
        let args: Vec<OsString> = vec!["--entry-goal".into(), goal.into()];
        self.run_program(&self.install.gprolog, &args, timeout)
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

/// The argument of a `name(...).` line, and the text after its last comma (the milliseconds).
fn call_args<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(name)?
        .strip_prefix('(')?
        .strip_suffix(").")
}

fn split_ms(args: &str) -> (&str, Option<f64>) {
    match args.rfind(',') {
        Some(i) => match args[i + 1..].trim().parse::<f64>() {
            Ok(ms) => (&args[..i], Some(ms)),
            Err(_) => (args, None),
        },
        None => (args, None),
    }
}

impl Backend for GprologBackend {
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError> {
        let start = Instant::now();
        let file = self.file.display().to_string();
        let driver = self.scratch().join("driver.pl");
        std::fs::write(&driver, DRIVER_PL).context("writing the driver")?;
        let (messages, ok) = self.compile(&driver, &self.scratch().join("driver.wbc"), timeout)?;
        if !ok {
            return Err(JudgeError::Failed(format!(
                "the judge's driver does not compile: {messages}"
            )));
        }
        let (messages, ok) =
            self.compile(&self.file, &self.scratch().join("judged.wbc"), timeout)?;
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
        let left = timeout.saturating_sub(start.elapsed());
        let out = self.spawn("kk_case(T, T = [], 1).\n", left)?;
        if !out.lines.iter().any(|l| l == "kk_loaded.") {
            let why = match out.status {
                None => format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
                Some(s) => format!(
                    "gprolog stopped while loading it ({}): {}",
                    status_text(s),
                    out.stderr.trim()
                ),
            };
            return Err(JudgeError::Load { file, why });
        }
        // what the file said while loading: the compiler's warnings, then the load's
        let mut warnings = compiler_warnings(&messages);
        let said: Vec<&str> = out
            .lines
            .iter()
            .take_while(|l| *l != "kk_loaded.")
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
        // one more than wanted: the driver stops at Max, and one more says "there are more"
        let fact = format!("kk_case(T, ({}), {}).\n", case.goal, max + 1);
        let out = match self.spawn(&fact, timeout) {
            Ok(o) => o,
            Err(e) => {
                return Run {
                    answers: Vec::new(),
                    end: RunEnd::Crashed(e.to_string()),
                    elapsed: Duration::ZERO,
                }
            }
        };
        let mut answers = Vec::new();
        let mut end = None;
        let mut elapsed = out.elapsed;
        for line in &out.lines {
            if let Some(t) = call_args(line, "kk_answer") {
                answers.push(match parse_grid(t) {
                    Some(g) if g.len() == case.size && g.iter().all(|r| r.len() == case.size) => {
                        JudgedAnswer::Grid(g)
                    }
                    _ => JudgedAnswer::Bad(t.to_string()),
                });
            } else if let Some(args) = call_args(line, "kk_end") {
                let (what, ms) = split_ms(args);
                end = Some(if what == "limit" {
                    RunEnd::Limit
                } else {
                    RunEnd::Complete
                });
                elapsed = ms.map_or(elapsed, |ms| Duration::from_secs_f64(ms / 1000.0));
            } else if let Some(args) = call_args(line, "kk_exception") {
                let (ball, ms) = split_ms(args);
                end = Some(
                    match ball.strip_prefix("error(existence_error(procedure,") {
                        Some(rest) => match rest.split_once(')') {
                            Some((pi, _)) => RunEnd::Exception(format!(
                                "existence_error(procedure,{pi}): {pi} is not defined"
                            )),
                            None => RunEnd::Exception(ball.to_string()),
                        },
                        None => RunEnd::Exception(ball.to_string()),
                    },
                );
                elapsed = ms.map_or(elapsed, |ms| Duration::from_secs_f64(ms / 1000.0));
            }
        }
        let end = match (end, out.status) {
            (Some(RunEnd::Limit | RunEnd::Complete), _) if answers.len() > max => {
                answers.truncate(max);
                RunEnd::Limit
            }
            (Some(RunEnd::Exception(e)), _) => {
                exception_end(self.jail.as_ref(), e, self.scratch(), &self.read())
            }
            (Some(e), _) => e,
            (None, None) => RunEnd::Timeout,
            (None, Some(s)) => {
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
        assert_eq!(call_args("kk_answer([[1]]).", "kk_answer"), Some("[[1]]"));
        assert_eq!(split_ms("complete,12"), ("complete", Some(12.0)));
        assert_eq!(
            syntax_errors(
                Path::new("/t/bad.pl"),
                "/t/bad.pl:12:5: syntax error: . or operator expected after expression"
            ),
            vec![(12, ". or operator expected after expression".to_string())]
        );
    }
}
