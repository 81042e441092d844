//! The Scryer backend: the judged file in an embedded Scryer Prolog of its own, in a worker
//! process ([`crate::worker`], role `judge`) that is killed when a case's time is up and started
//! again (the file loaded again) for the next case.
//!
//! The engine has `prolog/judge.pl` (loading with syntax errors by line, `halt` turned into an
//! exception, bounded and checked answers) and, for a GNU-dialect file, the GNU Prolog layer
//! `prolog/gnu.pl`; not our `kenken.pl`.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use scryer_prolog::{LeafAnswer, Machine, MachineBuilder, OutputStreamConfig, StreamConfig, Term};
use serde::{Deserialize, Serialize};

use super::jail::{death_end, exception_end};
use super::verdict::{JudgedAnswer, Run, RunEnd};
use super::{Backend, Dialect, Jail, JudgeError, Loaded};
use crate::process::{Worker, WorkerError};
use crate::prolog::{chars_of, quote, quoted_text, term_text, term_to_grid};

/// The judge's Prolog side.
pub(super) const JUDGE_PL: &str = include_str!("../../prolog/judge.pl");
/// The GNU Prolog compatibility layer.
pub(super) const GNU_PL: &str = include_str!("../../prolog/gnu.pl");

/// The worker role that serves the judge.
pub(crate) const ROLE: &str = "judge";

/// The environment variable that tells a judge worker the dialect of the file it will load
/// (JSON), so that it builds its engine before it says it is ready.
const DIALECT_VAR: &str = "KENKEN_JUDGE_DIALECT";

/// At most this much of what the judged file writes to `user_error` while loading is kept.
const MAX_WARNINGS: usize = 4096;

#[derive(Serialize, Deserialize)]
enum Request {
    Load {
        file: PathBuf,
        dialect: Dialect,
    },
    Solve {
        goal: String,
        size: usize,
        max: usize,
    },
}

#[derive(Serialize, Deserialize)]
enum WireAnswer {
    Grid(Vec<Vec<u32>>),
    Bad(String),
}

#[derive(Serialize, Deserialize)]
enum WireEnd {
    Complete,
    Limit,
    Exception(String),
    Unsupported(String),
    Halted(i64),
    /// The engine panicked, saying this.
    Panicked(String),
}

#[derive(Serialize, Deserialize)]
enum Reply {
    Loaded {
        warnings: String,
    },
    SyntaxErrors(Vec<(u64, String)>),
    LoadFailed(String),
    /// A case's answers and how it ended; `spent`: the engine cannot serve another case (an
    /// answer it could not read, or answers left unasked), so the parent starts a fresh one.
    Answers {
        answers: Vec<WireAnswer>,
        end: WireEnd,
        spent: bool,
    },
    Failed(String),
}

/// Why a request got no reply.
enum Failure {
    /// The worker could not confine itself.
    CannotConfine(String),
    /// How the case ends (the worker died: a crash, a limit, a forbidden system call).
    RunEnd(RunEnd),
}

/// A judged file in Scryer, one worker process at a time.
pub(crate) struct ScryerBackend {
    file: PathBuf,
    dialect: Dialect,
    worker: Worker,
    jail: Option<Jail>,
    scratch: tempfile::TempDir,
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
        let scratch = super::scratch()?;
        // the judged file itself, not its folder (a class's files often share one)
        let read = vec![file.to_path_buf()];
        let confinement = jail
            .as_ref()
            .map(|j| j.confinement(scratch.path(), read.clone(), Vec::new()));
        Ok(ScryerBackend {
            file: file.to_path_buf(),
            dialect,
            worker: Worker::confined(ROLE, confinement, scratch.path()).with_env(
                DIALECT_VAR,
                &serde_json::to_string(&dialect).unwrap_or_default(),
            ),
            jail,
            scratch,
            read,
        })
    }

    /// How a case ends when its worker failed: a refusal or a limit of the confinement when
    /// one explains it, else a crash.
    fn ended(&self, e: WorkerError) -> RunEnd {
        if let WorkerError::Died { status, stderr } = &e {
            if let Some(end) = death_end(self.jail.as_ref(), status, stderr) {
                return end;
            }
        }
        RunEnd::Crashed(e.to_string())
    }

    /// Sends a request; `Err` says why no reply came (the kernel cannot confine, or how the
    /// worker ended).
    fn request(&mut self, r: &Request, deadline: Instant) -> Result<Option<Reply>, Failure> {
        let line = serde_json::to_string(r)
            .map_err(|e| Failure::RunEnd(RunEnd::Crashed(e.to_string())))?;
        // (starting the engine counts against the deadline)
        let got = self.worker.request(&line, Some(deadline));
        match got {
            Err(WorkerError::Confine(why)) => Err(Failure::CannotConfine(why)),
            Err(e) => Err(Failure::RunEnd(self.ended(e))),
            Ok(None) => Ok(None),
            Ok(Some(reply)) => serde_json::from_str(&reply).map(Some).map_err(|e| {
                Failure::RunEnd(RunEnd::Crashed(format!(
                    "bad reply from the judge's worker: {e}"
                )))
            }),
        }
    }
}

impl Backend for ScryerBackend {
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError> {
        // (the engine's own start is not the file's: its time starts once the engine is up)
        self.start_engine()?;
        self.load_by(Instant::now() + timeout, timeout)
    }

    fn run(&mut self, case: &super::suite::Case, max: usize, timeout: Duration) -> Run {
        let reload = !self.worker.is_running();
        if let Err(e) = self.start_engine() {
            return Run {
                answers: Vec::new(),
                end: RunEnd::Crashed(format!("the engine did not start: {e}")),
                elapsed: Duration::ZERO,
            };
        }
        // the case's time: from the engine's start, a reload after a timeout or a crash included
        let start = Instant::now();
        let deadline = start + timeout;
        let crashed = |why: String| Run {
            answers: Vec::new(),
            end: RunEnd::Crashed(why),
            elapsed: start.elapsed(),
        };
        if reload {
            // a fresh worker after a timeout or a crash: the file was loaded fine before
            match self.load_by(deadline, timeout) {
                Ok(_) => {}
                Err(JudgeError::Load { .. }) if Instant::now() >= deadline => {
                    return Run {
                        answers: Vec::new(),
                        end: RunEnd::Timeout,
                        elapsed: timeout,
                    }
                }
                Err(e) => return crashed(format!("loading the file again failed: {e}")),
            }
        }
        let solve = Request::Solve {
            goal: case.goal.clone(),
            size: case.size,
            max,
        };
        let sent = Instant::now();
        let reply = self.request(&solve, deadline);
        // (the time is this process's clock, from the request to its reply)
        let elapsed = sent.elapsed();
        match reply {
            Ok(None) => Run {
                answers: Vec::new(),
                end: RunEnd::Timeout,
                elapsed: timeout,
            },
            Ok(Some(Reply::Answers {
                answers,
                end,
                spent,
            })) => {
                if spent {
                    self.worker.stop();
                }
                Run {
                    answers: answers
                        .into_iter()
                        .map(|a| match a {
                            WireAnswer::Grid(g) => JudgedAnswer::Grid(g),
                            WireAnswer::Bad(t) => JudgedAnswer::Bad(t),
                        })
                        .collect(),
                    end: match end {
                        WireEnd::Complete => RunEnd::Complete,
                        WireEnd::Limit => RunEnd::Limit,
                        WireEnd::Exception(e) => {
                            exception_end(self.jail.as_ref(), e, self.scratch.path(), &self.read)
                        }
                        WireEnd::Unsupported(pi) => RunEnd::Unsupported(pi),
                        WireEnd::Halted(c) => RunEnd::Halted(c),
                        WireEnd::Panicked(why) => death_end(self.jail.as_ref(), "panicked", &why)
                            .unwrap_or_else(|| {
                                RunEnd::Crashed(format!("the engine failed: {why}"))
                            }),
                    },
                    elapsed,
                }
            }
            Ok(Some(Reply::Failed(why))) => {
                self.worker.stop();
                crashed(why)
            }
            Ok(Some(_)) => {
                self.worker.stop();
                crashed("the judge's worker answered out of turn".into())
            }
            Err(Failure::CannotConfine(why)) => crashed(format!("cannot confine: {why}")),
            Err(Failure::RunEnd(end)) => Run {
                answers: Vec::new(),
                end,
                elapsed,
            },
        }
    }
}

impl ScryerBackend {
    /// Starts the engine (a Scryer Prolog with the judge's Prolog side, no file yet) unless
    /// it runs.
    fn start_engine(&mut self) -> Result<(), JudgeError> {
        self.worker.start().map(|_| ()).map_err(JudgeError::from)
    }

    /// Loads the file in a fresh engine by `deadline` (`timeout` is what it was given).
    fn load_by(&mut self, deadline: Instant, timeout: Duration) -> Result<Loaded, JudgeError> {
        let file = self.file.display().to_string();
        let load = Request::Load {
            file: self.file.clone(),
            dialect: self.dialect,
        };
        match self.request(&load, deadline) {
            Ok(Some(Reply::Loaded { warnings })) => Ok(Loaded { warnings }),
            Ok(Some(Reply::SyntaxErrors(errors))) => {
                self.worker.stop();
                Err(JudgeError::Syntax {
                    file,
                    errors: errors.into_iter().map(|(l, m)| (l as usize, m)).collect(),
                })
            }
            Ok(Some(Reply::LoadFailed(why))) | Ok(Some(Reply::Failed(why))) => {
                self.worker.stop();
                Err(JudgeError::Load { file, why })
            }
            Ok(Some(Reply::Answers { .. })) => Err(JudgeError::Load {
                file,
                why: "the judge's worker answered out of turn".into(),
            }),
            Ok(None) => Err(JudgeError::Load {
                file,
                why: format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
            }),
            Err(Failure::CannotConfine(why)) => Err(JudgeError::CannotConfine(why)),
            Err(Failure::RunEnd(RunEnd::Blocked(what))) => Err(JudgeError::Load {
                file,
                why: format!("{what} while loading: not allowed while judging"),
            }),
            Err(Failure::RunEnd(end)) => Err(JudgeError::Load {
                file,
                why: match end {
                    RunEnd::Crashed(why) | RunEnd::OverLimit(why) => why,
                    other => format!("{other:?}"),
                },
            }),
        }
    }
}

/// A sink for an engine's output stream that keeps at most `keep` bytes (none when 0).
fn sink(kept: Arc<Mutex<Vec<u8>>>, keep: usize) -> OutputStreamConfig {
    OutputStreamConfig::callback(Box::new(move |buf: &mut Cursor<Vec<u8>>| {
        let bytes = std::mem::take(buf.get_mut());
        buf.set_position(0);
        if let Ok(mut k) = kept.lock() {
            let room = keep.saturating_sub(k.len());
            k.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }))
}

/// The engine of a judge worker.
struct Judged {
    machine: Machine,
    warnings: Arc<Mutex<Vec<u8>>>,
    /// The GNU built-ins the layer lacks (`Name/Arity`), read before the judged file loaded.
    unsupported: Vec<String>,
    /// The dialect it reads.
    dialect: Dialect,
}

/// Runs `query` (text that parses) and returns its binding of `R`.
fn result_of(machine: &mut Machine, query: String) -> Result<Term, String> {
    let mut result = None;
    for a in machine.run_query(query) {
        match a {
            Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                if let Some(r) = bindings.get("R") {
                    result.get_or_insert(r.clone());
                }
            }
            Ok(LeafAnswer::False) | Ok(LeafAnswer::True) => {}
            Ok(LeafAnswer::Exception(e)) | Err(e) => {
                return Err(format!("the judge's wrapper failed: {}", term_text(&e)))
            }
        }
    }
    result.ok_or_else(|| "the judge's wrapper failed".to_string())
}

/// A fresh engine for a file of `dialect`: the judge's Prolog side loaded, no file yet.
fn engine(dialect: Dialect) -> Judged {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    // (what the loader and the file's directives write, to either stream, is the load's
    // warnings; what a case's goal writes is not kept)
    let streams = StreamConfig::in_memory()
        .with_user_output(sink(warnings.clone(), MAX_WARNINGS))
        .with_user_error(sink(warnings.clone(), MAX_WARNINGS));
    let mut machine = MachineBuilder::default().with_streams(streams).build();
    let program = match dialect {
        Dialect::Gnu => format!("{JUDGE_PL}\n{GNU_PL}"),
        // (SWI's library(clpfd) is read as Scryer's library(clpz): see judge.pl)
        Dialect::Scryer => format!("{JUDGE_PL}\nkk_judge_clpfd_is_clpz.\n"),
    };
    machine.consult_module_string("user", program);
    if let Ok(mut w) = warnings.lock() {
        w.clear();
    }
    // (read now: once the judged file is loaded, nothing in Prolog is ours alone)
    let unsupported = match dialect {
        Dialect::Gnu => {
            match result_of(&mut machine, "findall(P, kk_gnu_unsupported(P), R).".into()) {
                Ok(Term::List(items)) => items.iter().map(|t| quoted_text(t, TEXT_CAP)).collect(),
                _ => Vec::new(),
            }
        }
        Dialect::Scryer => Vec::new(),
    };
    Judged {
        machine,
        warnings,
        unsupported,
        dialect,
    }
}

/// Loads `file` in a fresh engine of `dialect` (`ready`, when it is one).
fn load(file: &Path, dialect: Dialect, ready: Option<Judged>) -> (Option<Judged>, Reply) {
    let Judged {
        mut machine,
        warnings,
        unsupported,
        ..
    } = match ready {
        Some(j) if j.dialect == dialect => j,
        _ => engine(dialect),
    };
    // (an error reported after the last line of code is Scryer's, not the file's)
    let last_line = std::fs::read(file)
        .map(|b| super::dialect::last_code_line(&String::from_utf8_lossy(&b)))
        .unwrap_or(usize::MAX);
    let query = format!(
        "kk_judge_load({}, {last_line}, R).",
        quote(&file.display().to_string())
    );
    let r = match result_of(&mut machine, query) {
        Ok(r) => r,
        Err(e) => return (None, Reply::LoadFailed(e)),
    };
    let reply = match &r {
        Term::Atom(a) if a == "loaded" => {
            let text = warnings
                .lock()
                .map(|w| String::from_utf8_lossy(&w).into_owned())
                .unwrap_or_default();
            return (
                Some(Judged {
                    machine,
                    warnings,
                    unsupported,
                    dialect,
                }),
                Reply::Loaded { warnings: text },
            );
        }
        Term::Compound(f, args) if f == "syntax_errors" && args.len() == 1 => {
            let errors = list(&args[0])
                .iter()
                .filter_map(|e| match e {
                    Term::Compound(f, a) if f == "error" && a.len() == 2 => {
                        let line = match &a[0] {
                            Term::Integer(i) => i.to_string().parse().unwrap_or(0),
                            _ => 0,
                        };
                        Some((line, chars_of(&a[1]).unwrap_or_else(|| term_text(&a[1]))))
                    }
                    _ => None,
                })
                .collect();
            Reply::SyntaxErrors(errors)
        }
        Term::Compound(f, args) if f == "error" && args.len() == 1 => {
            Reply::LoadFailed(chars_of(&args[0]).unwrap_or_else(|| term_text(&args[0])))
        }
        other => Reply::LoadFailed(format!("unexpected load result {}", term_text(other))),
    };
    (None, reply)
}

fn list(t: &Term) -> &[Term] {
    match t {
        Term::List(items) => items,
        _ => &[],
    }
}

/// Runs the case's goal (`goal`: Prolog text binding `T`) and reads its answers here, in Rust:
/// no Prolog predicate collects or checks them, so nothing the judged file defines (it can
/// redefine any predicate of any module, ours included, and expand any goal) stands between
/// its answers and the verdict. At most `max` answers are read; one more says there are more.
fn solve(judged: &mut Judged, goal: &str, size: usize, max: usize) -> Reply {
    let mut answers = Vec::new();
    let mut spent = false;
    let machine = &mut judged.machine;
    let unsupported = &judged.unsupported;
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // (caught in the query itself: an exception that escapes a query is seen again by the
        // engine's next query)
        for a in machine.run_query(format!("catch(({goal}), {BALL}, true).")) {
            match a {
                Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                    if let Some(ball) = bindings.get(BALL).filter(|b| !matches!(b, Term::Var(_))) {
                        return ball_end(ball, unsupported);
                    }
                    answers.push(match bindings.get("T") {
                        Some(t) => match term_to_grid(t, size) {
                            Ok(grid) => WireAnswer::Grid(grid),
                            Err(_) => WireAnswer::Bad(quoted_text(t, TEXT_CAP)),
                        },
                        None => WireAnswer::Bad("_ (T left unbound)".into()),
                    });
                }
                Ok(LeafAnswer::True) => answers.push(WireAnswer::Bad("_ (T left unbound)".into())),
                Ok(LeafAnswer::False) => return WireEnd::Complete,
                Ok(LeafAnswer::Exception(e)) | Err(e) => return ball_end(&e, unsupported),
            }
            if answers.len() > max {
                // (the query's choice points are left: this engine serves no more cases)
                return WireEnd::Limit;
            }
        }
        WireEnd::Complete
    }));
    let end = match read {
        Ok(WireEnd::Limit) => {
            spent = true;
            answers.truncate(max);
            WireEnd::Limit
        }
        Ok(end) => end,
        Err(payload) => {
            // the engine panicked: it is spent. Scryer cannot make a term of some cyclic
            // answers (an unreachable case): the answer is bad; any other panic (memory it
            // could not get, a goal the file's operators broke) ends the case
            spent = true;
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if why.contains("unreachable") {
                answers.push(WireAnswer::Bad(
                    "an answer the engine cannot read (a cyclic term?)".into(),
                ));
                WireEnd::Complete
            } else {
                WireEnd::Panicked(why)
            }
        }
    };
    Reply::Answers {
        answers,
        end,
        spent,
    }
}

/// The variable the case's query binds to what its goal threw.
const BALL: &str = "KkJudgeBall";

/// How a case ends when its goal threw `ball`.
fn ball_end(ball: &Term, unsupported: &[String]) -> WireEnd {
    if let Term::Compound(f, a) = ball {
        if f == "kk_judge_halt" && a.len() == 1 {
            return WireEnd::Halted(match &a[0] {
                Term::Integer(i) => i.to_string().parse().unwrap_or(0),
                _ => 0,
            });
        }
        if f == "error" && a.len() == 2 {
            if let Term::Compound(e, pi) = &a[0] {
                if e == "existence_error" && pi.len() == 2 {
                    let text = quoted_text(&pi[1], TEXT_CAP);
                    if unsupported.contains(&text) {
                        return WireEnd::Unsupported(text);
                    }
                }
            }
        }
    }
    WireEnd::Exception(plain_ball(ball).quoted(TEXT_CAP))
}

/// `ball` with a file name given as a list of characters (as Scryer's file predicates report
/// it) made an atom, so that the report names the file.
fn plain_ball(ball: &Term) -> crate::prolog::Term {
    use crate::prolog::Term as T;
    let mut t = T::from_scryer(ball);
    if let T::Compound(e, args) = &mut t {
        if let (true, Some(T::Compound(_, formal))) = (e == "error", args.first_mut()) {
            if let Some(culprit) = formal.get_mut(2) {
                if let T::Chars(name) = culprit {
                    *culprit = T::Atom(std::mem::take(name));
                }
            }
        }
    }
    t
}

/// At most about this many bytes of a bad answer's or an exception's text are sent.
const TEXT_CAP: usize = 2000;

/// The request handler of the `judge` worker role: a `Load` first, then `Solve`s.
pub(crate) fn worker() -> crate::process::Handler {
    // (the engine is built before the worker says it is ready: a load's time is the file's)
    let mut judged: Option<Judged> = std::env::var(DIALECT_VAR)
        .ok()
        .and_then(|d| serde_json::from_str::<Dialect>(&d).ok())
        .map(engine);
    Box::new(move |line: &str, _part: &mut dyn FnMut(&str)| {
        let reply = match serde_json::from_str::<Request>(line) {
            Err(e) => Reply::Failed(format!("bad request: {e}")),
            Ok(Request::Load { file, dialect }) => {
                let (j, reply) = load(&file, dialect, judged.take());
                judged = j;
                reply
            }
            Ok(Request::Solve { goal, size, max }) => match judged.as_mut() {
                Some(j) => {
                    if let Ok(mut w) = j.warnings.lock() {
                        w.clear();
                    }
                    solve(j, &goal, size, max)
                }
                None => Reply::Failed("no file is loaded".into()),
            },
        };
        serde_json::to_string(&reply).unwrap_or_else(|_| r#"{"Failed":"unwritable reply"}"#.into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread with the stack a worker has (Scryer recurses deeply).
    fn big_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn the_gnu_layer_gives_what_gnu_prolog_gives() {
        big_stack(|| {
            let file = Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/judge/gnu_layer_checks.pl"
            ));
            let (judged, reply) = load(file, Dialect::Gnu, None);
            assert!(matches!(reply, Reply::Loaded { .. }));
            let mut judged = judged.unwrap();
            // (a grid of size 0 is [], the only answer when every check holds)
            match solve(&mut judged, "kk_checks_pass, T = []", 0, 2) {
                Reply::Answers { answers, end, .. } => {
                    assert!(matches!(end, WireEnd::Complete));
                    assert_eq!(answers.len(), 1, "a check of gnu_layer_checks.pl fails");
                }
                _ => panic!("no answers"),
            }
        });
    }

    #[test]
    fn halt_and_bad_answers_are_reported_not_obeyed() {
        big_stack(|| {
            let dir =
                std::env::temp_dir().join(format!("kenken-judge-test-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("k.pl");
            std::fs::write(
                &file,
                "kenken(_, _, _) :- halt(4).\nplain_kenken(_, _, T) :- T = f(T).\n\
                 p(T) :- T = [[1, _]].\n",
            )
            .unwrap();
            let (judged, _) = load(&file, Dialect::Scryer, None);
            let mut judged = judged.unwrap();
            let reply = solve(&mut judged, "kenken(1, [], T)", 1, 4);
            assert!(matches!(
                reply,
                Reply::Answers {
                    end: WireEnd::Halted(4),
                    ..
                }
            ));
            let reply = solve(&mut judged, "plain_kenken(1, [], T)", 1, 4);
            match reply {
                Reply::Answers { answers, .. } => {
                    // (a cyclic answer is read as its own text, or not at all: either way not a grid)
                    assert!(matches!(&answers[..], [WireAnswer::Bad(_)]))
                }
                _ => panic!("no answers"),
            }
            let reply = solve(&mut judged, "p(T)", 1, 4);
            match reply {
                Reply::Answers { answers, .. } => {
                    assert!(matches!(&answers[..], [WireAnswer::Bad(t)] if t.starts_with("[[1,")))
                }
                _ => panic!("no answers"),
            }
            let _ = std::fs::remove_dir_all(&dir);
        });
    }
}
