//! The Scryer backend: the judged file in an embedded Scryer Prolog of its own, in a worker
//! process ([`crate::worker`], role `judge`), a fresh one for every case: nothing a case does
//! (a fact asserted, a global variable, a flag, a file in its scratch) reaches another case.
//! A warm spare, its engine built while the previous case runs, takes each next case.
//!
//! The engine has `prolog/judge.pl` (loading with syntax errors by line, `halt` turned into an
//! exception, bounded and checked answers) and, for a GNU-dialect file, the GNU Prolog layer
//! `prolog/gnu/`; not our `kenken.pl`. A `kenken/3` case and a `plain_kenken/3` case never
//! share an engine, and a `plain_kenken/3` engine has no FD solver: `prolog/judge_no_fd.pl`
//! stands for library(clpz) there (loaded before the judged file and the GNU layer), so that
//! every constraint throws.

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
use crate::prolog::{chars_of, quote, quoted_text, term_text, term_to_grid, Predicate};

/// The judge's Prolog side.
pub(super) const JUDGE_PL: &str = include_str!("../../prolog/judge.pl");
/// The GNU Prolog compatibility layer: the pieces of `prolog/gnu/`, as one text, in order.
pub(super) const GNU_PL: &str = concat!(
    include_str!("../../prolog/gnu/setup.pl"),
    include_str!("../../prolog/gnu/fd.pl"),
    include_str!("../../prolog/gnu/labeling.pl"),
    include_str!("../../prolog/gnu/builtins.pl"),
    include_str!("../../prolog/gnu/loading.pl"),
);
/// library(clpz) as a `plain_kenken/3` engine has it: every constraint throws.
const NO_FD_PL: &str = include_str!("../../prolog/judge_no_fd.pl");

/// The worker role that serves the judge.
pub(crate) const ROLE: &str = "judge";

/// The environment variable that tells a judge worker the dialect of the file it will load
/// (JSON), so that it builds its engine before it says it is ready.
const DIALECT_VAR: &str = "KENKEN_JUDGE_DIALECT";

/// The environment variable that tells a judge worker whether its engine serves
/// `plain_kenken/3` (`plain`: no FD solver) or `kenken/3`.
const MODE_VAR: &str = "KENKEN_JUDGE_MODE";

/// The longest reply read from a judge worker (a case's answers, each bad one cut to
/// [`TEXT_CAP`]); past it the worker is killed.
const REPLY_CAP: usize = 4 << 20;

/// At most this much of what the judged file writes to `user_error` while loading is kept.
const MAX_WARNINGS: usize = 4096;

/// At most this many syntax errors are reported.
const MAX_SYNTAX_ERRORS: usize = 10;

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

/// Which engine a case runs in: `kenken/3`'s (library(clpz) there) or `plain_kenken/3`'s (none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Fd,
    Plain,
}

impl Mode {
    fn of(p: Predicate) -> Mode {
        match p {
            Predicate::Fd => Mode::Fd,
            Predicate::Plain => Mode::Plain,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Fd => "fd",
            Mode::Plain => "plain",
        }
    }
}

/// A judged file in Scryer: a fresh worker process for each case, from one of two workers
/// (`kenken/3`'s and `plain_kenken/3`'s), each keeping a warm spare while its cases run.
pub(crate) struct ScryerBackend {
    file: PathBuf,
    dialect: Dialect,
    /// `kenken/3`'s worker and `plain_kenken/3`'s.
    workers: [Worker; 2],
    /// The worker of the case running.
    current: usize,
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
        let worker = |mode: Mode| {
            Worker::confined(ROLE, confinement.clone(), scratch.path())
                .with_env(
                    DIALECT_VAR,
                    &serde_json::to_string(&dialect).unwrap_or_default(),
                )
                .with_env(MODE_VAR, mode.name())
                .with_frame_cap(REPLY_CAP)
        };
        Ok(ScryerBackend {
            file: file.to_path_buf(),
            dialect,
            workers: [worker(Mode::Fd), worker(Mode::Plain)],
            current: 0,
            jail,
            scratch,
            read,
        })
    }

    /// The worker of the case running.
    fn worker(&mut self) -> &mut Worker {
        &mut self.workers[self.current]
    }

    /// How a case ends when its worker failed: a refusal or a limit of the confinement when
    /// one explains it, else a crash named by how the process ended (the engine's standard
    /// error is ours: the judged code writes to an engine stream kept in memory).
    fn ended(&self, e: WorkerError) -> RunEnd {
        match &e {
            WorkerError::Died { status, stderr } => death_end(self.jail.as_ref(), status, stderr)
                .unwrap_or_else(|| RunEnd::Crashed(format!("the engine process ended ({status})"))),
            // (only a child that has not said it is ready may say it cannot confine itself)
            WorkerError::Confine(_) => RunEnd::Crashed("the engine process ended".into()),
            e => RunEnd::Crashed(super::cut(&e.to_string())),
        }
    }

    /// Sends a request; `Err` says why no reply came (the kernel cannot confine, or how the
    /// worker ended).
    fn request(&mut self, r: &Request, deadline: Instant) -> Result<Option<Reply>, Failure> {
        let line = serde_json::to_string(r)
            .map_err(|e| Failure::RunEnd(RunEnd::Crashed(e.to_string())))?;
        // (starting the engine counts against the deadline; it is the only time a child may
        // say it cannot confine itself: it has run nothing of the judged file yet)
        match self.worker().start_within(deadline) {
            Err(WorkerError::Confine(why)) => return Err(Failure::CannotConfine(why)),
            Err(e) => return Err(Failure::RunEnd(self.ended(e))),
            Ok(false) => return Ok(None),
            Ok(true) => {}
        }
        let got = self.worker().request(&line, Some(deadline));
        match got {
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
        self.current = 0;
        self.start_engine()?;
        let loaded = self.load_by(Instant::now() + timeout, timeout);
        // (no case runs where the file was loaded to see whether it loads)
        if self.worker().is_running() {
            self.worker().stop();
        }
        loaded
    }

    fn run(&mut self, case: &super::suite::Case, max: usize, timeout: Duration) -> Run {
        // a fresh engine for every case, of the predicate's kind; the other kind keeps no
        // spare meanwhile (the cases of one predicate come together)
        let mode = Mode::of(case.predicate);
        self.current = mode as usize;
        let other = 1 - self.current;
        self.workers[other].keep_spare(false);
        self.workers[other].stop();
        self.worker().keep_spare(true);
        let run = self.run_fresh(case, max, timeout);
        self.worker().stop();
        run
    }
}

impl ScryerBackend {
    /// Runs `case` in a fresh engine: the file loaded, then the goal.
    fn run_fresh(&mut self, case: &super::suite::Case, max: usize, timeout: Duration) -> Run {
        if let Err(e) = self.start_engine() {
            return Run {
                answers: Vec::new(),
                end: RunEnd::Crashed(format!("the engine did not start: {e}")),
                elapsed: Duration::ZERO,
            };
        }
        let start = Instant::now();
        let crashed = |why: String| Run {
            answers: Vec::new(),
            end: RunEnd::Crashed(why),
            elapsed: start.elapsed(),
        };
        // (the file loaded fine before, in an engine of its own; loading has a time limit of
        // its own, as when the file was first loaded, and the goal's time starts after it)
        match self.load_by(start + timeout, timeout) {
            Ok(_) => {}
            Err(JudgeError::Load { .. }) if Instant::now() >= start + timeout => {
                return Run {
                    answers: Vec::new(),
                    end: RunEnd::Timeout,
                    elapsed: timeout,
                }
            }
            Err(e) => return crashed(format!("loading the file again failed: {e}")),
        }
        let deadline = Instant::now() + timeout;
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
                let _ = spent;
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
            Ok(Some(Reply::Failed(why))) => crashed(super::cut(&why)),
            Ok(Some(_)) => crashed("the judge's worker answered out of turn".into()),
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
        self.worker().start().map(|_| ()).map_err(JudgeError::from)
    }

    /// Loads the file in a fresh engine by `deadline` (`timeout` is what it was given).
    fn load_by(&mut self, deadline: Instant, timeout: Duration) -> Result<Loaded, JudgeError> {
        let file = self.file.display().to_string();
        let load = Request::Load {
            file: self.file.clone(),
            dialect: self.dialect,
        };
        match self.request(&load, deadline) {
            Ok(Some(Reply::Loaded { warnings })) => Ok(Loaded {
                warnings: super::cut(&warnings),
            }),
            Ok(Some(Reply::SyntaxErrors(errors))) => {
                self.worker().stop();
                Err(JudgeError::Syntax {
                    file,
                    errors: errors
                        .into_iter()
                        .take(MAX_SYNTAX_ERRORS)
                        .map(|(l, m)| (l as usize, super::cut(&m)))
                        .collect(),
                })
            }
            Ok(Some(Reply::LoadFailed(why))) | Ok(Some(Reply::Failed(why))) => {
                self.worker().stop();
                Err(JudgeError::Load {
                    file,
                    why: super::cut(&why),
                })
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
    /// Why the engine cannot serve (a `plain_kenken/3` engine whose FD solver could not be
    /// taken away): every load fails with it.
    broken: Option<String>,
    warnings: Arc<Mutex<Vec<u8>>>,
    /// The GNU built-ins the layer lacks (`Name/Arity`), read before the judged file loaded.
    unsupported: Vec<String>,
    /// The dialect it reads.
    dialect: Dialect,
    /// Which predicate's engine it is.
    mode: Mode,
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

/// The directive that loads library(clpz) before the judged file: the real one for a
/// `kenken/3` engine (so that a file's own import costs nothing), `prolog/judge_no_fd.pl` from
/// a file for a `plain_kenken/3` one (Scryer then takes it for the library), and that file
/// (in the temporary folder: a worker's is its scratch), to be removed once loaded; `Err` when
/// it cannot be written.
fn clpz_directive(mode: Mode) -> Result<(String, Option<PathBuf>), String> {
    // (zcompare/3 only is imported into user: an empty list loads nothing in Scryer 0.10, and
    // a file's own all_different/1 or label/1 must not clash with an import)
    match mode {
        Mode::Fd => Ok((":- use_module(library(clpz), [zcompare/3]).\n".into(), None)),
        Mode::Plain => {
            let file = std::env::temp_dir().join(format!(
                "kenken-judge-no-fd-{}.pl",
                &crate::process::random_hex()[..16]
            ));
            let path = file.clone();
            std::fs::write(&path, NO_FD_PL)
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
            // (an atom: the path of a scratch folder holds no quote or control character, and
            // one that did would only make the load fail, closed)
            let path = path
                .display()
                .to_string()
                .replace('\\', "\\\\")
                .replace('\'', "\\'");
            Ok((
                format!(":- use_module('{path}', [zcompare/3]).\n"),
                Some(file),
            ))
        }
    }
}

/// A fresh engine for a file of `dialect`: the judge's Prolog side loaded, no file yet; for
/// `plain_kenken/3` (`mode`), with no FD solver.
fn engine(dialect: Dialect, mode: Mode) -> Judged {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    // (what the loader and the file's directives write, to either stream, is the load's
    // warnings; what a case's goal writes is not kept)
    let streams = StreamConfig::in_memory()
        .with_user_output(sink(warnings.clone(), MAX_WARNINGS))
        .with_user_error(sink(warnings.clone(), MAX_WARNINGS));
    let mut machine = MachineBuilder::default().with_streams(streams).build();
    let (clpz, stub, mut broken) = match clpz_directive(mode) {
        Ok((d, stub)) => (d, stub, None),
        Err(why) => (String::new(), None, Some(why)),
    };
    let program = match dialect {
        Dialect::Gnu => format!("{JUDGE_PL}\n{clpz}{GNU_PL}"),
        // (SWI's library(clpfd) is read as Scryer's library(clpz): see judge.pl)
        Dialect::Scryer => format!("{JUDGE_PL}\n{clpz}kk_judge_clpfd_is_clpz.\n"),
    };
    machine.consult_module_string("user", program);
    if let Some(stub) = stub {
        let _ = std::fs::remove_file(stub);
    }
    if let Ok(mut w) = warnings.lock() {
        w.clear();
    }
    // (fail closed: a plain_kenken/3 engine whose clpz is the real one serves no file)
    if mode == Mode::Plain && broken.is_none() {
        let probe = "catch((clpz:'#='(1, 1), R = reached), kk_judge_no_fd(_), R = none).";
        match result_of(&mut machine, probe.into()) {
            Ok(Term::Atom(a)) if a == "none" => {}
            _ => broken = Some("the FD solver could not be taken away".into()),
        }
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
        broken: broken.map(|why| format!("the judge's plain_kenken/3 engine failed: {why}")),
        warnings,
        unsupported,
        dialect,
        mode,
    }
}

/// Loads `file` in a fresh engine of `dialect` for `mode` (`ready`, when it is one).
fn load(
    file: &Path,
    dialect: Dialect,
    mode: Mode,
    ready: Option<Judged>,
) -> (Option<Judged>, Reply) {
    let Judged {
        mut machine,
        broken,
        warnings,
        unsupported,
        ..
    } = match ready {
        Some(j) if j.dialect == dialect && j.mode == mode => j,
        _ => engine(dialect, mode),
    };
    if let Some(why) = broken {
        return (None, Reply::Failed(why));
    }
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
                    broken: None,
                    warnings,
                    unsupported,
                    dialect,
                    mode,
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
                        let text = chars_of(&a[1]).unwrap_or_else(|| term_text(&a[1]));
                        Some((line, super::cut(&text)))
                    }
                    _ => None,
                })
                .collect();
            Reply::SyntaxErrors(errors)
        }
        Term::Compound(f, args) if f == "error" && args.len() == 1 => Reply::LoadFailed(
            super::cut(&chars_of(&args[0]).unwrap_or_else(|| term_text(&args[0]))),
        ),
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
        if f == "kk_judge_no_fd" && a.len() == 1 {
            return WireEnd::Exception(format!(
                "{}: plain_kenken/3 called the FD solver, which the spec forbids there (its \
                 engine has none)",
                quoted_text(&a[0], 200)
            ));
        }
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
    let mode = match std::env::var(MODE_VAR).as_deref() {
        Ok("plain") => Mode::Plain,
        _ => Mode::Fd,
    };
    let mut judged: Option<Judged> = std::env::var(DIALECT_VAR)
        .ok()
        .and_then(|d| serde_json::from_str::<Dialect>(&d).ok())
        .map(|d| engine(d, mode));
    Box::new(move |line: &str, _part: &mut dyn FnMut(&str)| {
        let reply = match serde_json::from_str::<Request>(line) {
            Err(e) => Reply::Failed(format!("bad request: {e}")),
            Ok(Request::Load { file, dialect }) => {
                let (j, reply) = load(&file, dialect, mode, judged.take());
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
            let (judged, reply) = load(file, Dialect::Gnu, Mode::Fd, None);
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
    fn a_plain_engine_has_no_fd_solver_and_a_kenken_engine_has_one() {
        big_stack(|| {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("k.pl");
            std::fs::write(
                &file,
                ":- use_module(library(clpz)).\np(T) :- X #= 1 + 1, T = [[X]].\n\
                 q(T) :- clpz:(X #= 2), T = [[X]].\n",
            )
            .unwrap();
            let (plain, reply) = load(&file, Dialect::Scryer, Mode::Plain, None);
            assert!(matches!(reply, Reply::Loaded { .. }));
            let mut plain = plain.unwrap();
            for goal in ["p(T)", "q(T)"] {
                match solve(&mut plain, goal, 1, 2) {
                    Reply::Answers {
                        end: WireEnd::Exception(e),
                        ..
                    } => assert!(e.contains("plain_kenken/3 called the FD solver"), "{e}"),
                    _ => panic!("{goal}: the FD solver answered"),
                }
            }
            let (fd, _) = load(&file, Dialect::Scryer, Mode::Fd, None);
            match solve(&mut fd.unwrap(), "p(T)", 1, 2) {
                Reply::Answers { answers, .. } => {
                    assert!(matches!(&answers[..], [WireAnswer::Grid(g)] if g == &vec![vec![2]]))
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
            let (judged, _) = load(&file, Dialect::Scryer, Mode::Fd, None);
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
