//! The GNU Prolog backend: the judged file under the real `gprolog`, one process per case (killed
//! when the case's time is up), driven by `prolog/gnu_driver.pl`.
//!
//! For each case a small file holds one fact, `kk_case(T, Goal, Max).`; the driver prints
//! `kk_loaded.` once the files are consulted, `kk_answer(T).` per answer as it is found, then
//! `kk_end(complete, Ms).`, `kk_end(limit, Ms).` or `kk_exception(Ball, Ms).`. A process that
//! ends without one of these called `halt` (or died).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::suite::Case;
use super::verdict::{Answer, End, Run};
use super::{Backend, JudgeError, Loaded};

/// The driver, written next to each case file.
pub const DRIVER_PL: &str = include_str!("../../prolog/gnu_driver.pl");

/// The program run.
const GPROLOG: &str = "gprolog";

/// Whether `gprolog` can be started.
pub fn available() -> bool {
    Command::new(GPROLOG)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A scratch directory of this process, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, JudgeError> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kenken-judge-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| JudgeError::Io(format!("creating {}: {e}", dir.display())))?;
        std::fs::write(dir.join("driver.pl"), DRIVER_PL)
            .map_err(|e| JudgeError::Io(format!("writing the driver: {e}")))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one `gprolog` process printed, and how it ended.
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
    scratch: Scratch,
}

impl GprologBackend {
    /// The backend for `file`; fails when no scratch directory can be made.
    pub(crate) fn new(file: &Path) -> Result<GprologBackend, JudgeError> {
        Ok(GprologBackend {
            file: file.to_path_buf(),
            scratch: Scratch::new()?,
        })
    }

    /// Runs the driver on the case fact `fact`, for at most `timeout`.
    fn spawn(&self, fact: &str, timeout: Duration) -> Result<Output, JudgeError> {
        let case = self.scratch.0.join("case.pl");
        std::fs::write(&case, fact)
            .map_err(|e| JudgeError::Io(format!("writing {}: {e}", case.display())))?;
        let start = Instant::now();
        let mut child = Command::new(GPROLOG)
            .arg("--consult-file")
            .arg(&self.file)
            .arg("--consult-file")
            .arg(self.scratch.0.join("driver.pl"))
            .arg("--consult-file")
            .arg(&case)
            .arg("--entry-goal")
            .arg("kk_drv_main")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| JudgeError::Io(format!("starting {GPROLOG}: {e}")))?;
        // (read to the end in threads: a full pipe must not block the child)
        let out_reader = child.stdout.take().map(|out| {
            std::thread::spawn(move || {
                BufReader::new(out.take(16 << 20))
                    .lines()
                    .map_while(Result::ok)
                    .collect::<Vec<String>>()
            })
        });
        let err_reader = child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut s = String::new();
                let _ = e.by_ref().take(64 * 1024).read_to_string(&mut s);
                s
            })
        });
        let deadline = start + timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(JudgeError::Io(format!("waiting for {GPROLOG}: {e}"))),
            }
        };
        let elapsed = start.elapsed();
        let stderr = err_reader.and_then(|h| h.join().ok()).unwrap_or_default();
        // the pipes close when the process ends (killed or not): the readers finish
        let lines = out_reader.and_then(|h| h.join().ok()).unwrap_or_default();
        Ok(Output {
            lines,
            stderr,
            status,
            elapsed,
        })
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
        let out = self.spawn("kk_case(T, T = [], 1).\n", timeout)?;
        let file = self.file.display().to_string();
        let all = format!("{}\n{}", out.lines.join("\n"), out.stderr);
        let errors = syntax_errors(&self.file, &all);
        if !errors.is_empty() {
            return Err(JudgeError::Syntax { file, errors });
        }
        if !out.lines.iter().any(|l| l == "kk_loaded.") {
            let why = match out.status {
                None => format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
                Some(s) => format!(
                    "gprolog stopped while loading it ({s}): {}",
                    out.stderr.trim()
                ),
            };
            return Err(JudgeError::Load { file, why });
        }
        Ok(Loaded {
            warnings: out.stderr.trim().to_string(),
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
                    end: End::Crashed(e.to_string()),
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
                        Answer::Grid(g)
                    }
                    _ => Answer::Bad(t.to_string()),
                });
            } else if let Some(args) = call_args(line, "kk_end") {
                let (what, ms) = split_ms(args);
                end = Some(if what == "limit" {
                    End::Limit
                } else {
                    End::Complete
                });
                elapsed = ms.map_or(elapsed, |ms| Duration::from_secs_f64(ms / 1000.0));
            } else if let Some(args) = call_args(line, "kk_exception") {
                let (ball, ms) = split_ms(args);
                end = Some(
                    match ball.strip_prefix("error(existence_error(procedure,") {
                        Some(rest) => match rest.split_once(')') {
                            Some((pi, _)) => End::Exception(format!(
                                "existence_error(procedure,{pi}): {pi} is not defined"
                            )),
                            None => End::Exception(ball.to_string()),
                        },
                        None => End::Exception(ball.to_string()),
                    },
                );
                elapsed = ms.map_or(elapsed, |ms| Duration::from_secs_f64(ms / 1000.0));
            }
        }
        let end = match (end, out.status) {
            (Some(End::Limit | End::Complete), _) if answers.len() > max => {
                answers.truncate(max);
                End::Limit
            }
            (Some(e), _) => e,
            (None, None) => End::Timeout,
            (None, Some(s)) => {
                let fatal = out
                    .stderr
                    .lines()
                    .find(|l| l.contains("Fatal Error") || l.contains("overflow"));
                match (fatal, s.code()) {
                    (Some(f), _) => End::Crashed(f.trim().to_string()),
                    (None, Some(code)) => End::Halted(code.into()),
                    (None, None) => End::Crashed(format!("gprolog was stopped ({s})")),
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
