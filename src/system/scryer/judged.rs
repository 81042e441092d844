//! A judged file's engine, in a Scryer worker: an embedded Scryer Prolog of its own with
//! `prolog/judge.pl` (loading with syntax errors by line, `halt` turned into an exception,
//! refused file operations made errors) and, for a GNU-dialect file, the GNU Prolog layer
//! `prolog/gnu/`; not our `kenken.pl`. An engine without FD solver (a judged
//! `plain_kenken/3`'s) has stubs for the constraint libraries (`no_fd`: `prolog/judge_no_fd.pl`
//! for library(clpz), loaded before the judged file and the GNU layer), so that every
//! constraint throws.
//!
//! A goal's answers are read here, in Rust: no Prolog predicate collects or checks them, so
//! nothing the judged file defines (it can redefine any predicate of any module, ours
//! included, and expand any goal) stands between its answers and the caller. What the file
//! writes goes to streams kept in memory: to the load's warnings while it loads, nowhere
//! after.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use scryer_prolog::{LeafAnswer, Machine, OutputStreamConfig, StreamConfig, Term};

use super::{Found, Reply, WireEnd};
use crate::dialect::Dialect;
use crate::prolog::lexer;
use crate::prolog::{
    chars_of, guard, quote, quoted_text, term_text, term_to_grid, Builder, Purpose,
};

/// The judge's Prolog side.
const JUDGE_PL: &str = include_str!("../../../prolog/judge.pl");
/// The GNU Prolog compatibility layer: the pieces of `prolog/gnu/`, as one text, in order.
const GNU_PL: &str = concat!(
    include_str!("../../../prolog/gnu/setup.pl"),
    include_str!("../../../prolog/gnu/fd.pl"),
    include_str!("../../../prolog/gnu/labeling.pl"),
    include_str!("../../../prolog/gnu/builtins.pl"),
    include_str!("../../../prolog/gnu/loading.pl"),
);

/// At most this much of what the judged file writes while loading is kept.
const MAX_WARNINGS: usize = 4096;

/// At most this many syntax errors are reported.
const MAX_SYNTAX_ERRORS: usize = 10;

/// At most about this many bytes of a bad answer's or an exception's text are sent.
const TEXT_CAP: usize = 2000;

/// The variable a goal's query binds to what its goal threw.
const BALL: &str = "KkJudgeBall";

/// A judged file's engine.
pub(super) struct Judged {
    machine: Machine,
    /// Why the engine cannot serve (an engine without FD solver whose FD solver could not be
    /// taken away): every load fails with it.
    broken: Option<String>,
    warnings: Arc<Mutex<Vec<u8>>>,
    /// The GNU built-ins the layer lacks (`Name/Arity`), read before the judged file loaded.
    unsupported: Vec<String>,
    /// Whether a file was loaded (`Some(true)`), or its load failed (`Some(false)`): an engine
    /// loads one file, once.
    loaded: Option<bool>,
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

/// The directive that loads library(clpz) before the judged file: the real one for an engine
/// with an FD solver (so that a file's own import costs nothing), the stubs of `no_fd` for
/// one without, and the stubs' files, to be removed once loaded; `Err` when they cannot be
/// written.
fn clpz_directive(fd: bool) -> Result<(String, Vec<PathBuf>), String> {
    // (zcompare/3 only is imported into user: an empty list loads nothing in Scryer 0.10, and
    // a file's own all_different/1 or label/1 must not clash with an import)
    if fd {
        return Ok((
            ":- use_module(library(clpz), [zcompare/3]).\n".into(),
            Vec::new(),
        ));
    }
    super::no_fd::directives()
}

/// A fresh engine for a file of `dialect`: the judge's Prolog side loaded, no file yet; with
/// an FD solver or none (`fd`).
pub(super) fn engine(dialect: Dialect, fd: bool) -> Judged {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    // (what the loader and the file's directives write, to either stream, is the load's
    // warnings; what a goal writes is not kept)
    let streams = StreamConfig::in_memory()
        .with_user_output(sink(warnings.clone(), MAX_WARNINGS))
        .with_user_error(sink(warnings.clone(), MAX_WARNINGS));
    let mut machine = Builder::new(Purpose::Bare).streams(streams).build();
    let (clpz, stubs, mut broken) = match clpz_directive(fd) {
        Ok((d, stubs)) => (d, stubs, None),
        Err(why) => (String::new(), Vec::new(), Some(why)),
    };
    let program = match dialect {
        Dialect::Gnu => format!("{JUDGE_PL}\n{clpz}{GNU_PL}"),
        // (SWI's library(clpfd) is read as Scryer's library(clpz): see judge.pl)
        Dialect::Scryer => format!("{JUDGE_PL}\n{clpz}kk_judge_clpfd_is_clpz.\n"),
    };
    machine.consult_module_string("user", program);
    for stub in stubs {
        let _ = std::fs::remove_file(stub);
    }
    if let Ok(mut w) = warnings.lock() {
        w.clear();
    }
    // (fail closed: an engine without FD solver whose clpz is the real one serves no file)
    if !fd && broken.is_none() {
        match result_of(&mut machine, super::no_fd::PROBE.into()) {
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
        loaded: None,
    }
}

/// The last line (1-based) of `text` that holds anything but comments and white space; 0 when
/// there is none. Scryer 0.10's reader reports a syntax error at the end of a file whose last
/// clause is followed by a `/* ... */` comment: an error after this line is not one.
fn last_code_line(text: &str) -> usize {
    lexer::tokens(text)
        .filter(|t| !t.is_comment())
        .last()
        .map_or(0, |t| t.end_line())
}

fn list(t: &Term) -> &[Term] {
    match t {
        Term::List(items) => items,
        _ => &[],
    }
}

impl Judged {
    /// Loads `file`: its warnings, its syntax errors by line, or why it does not load.
    pub(super) fn load(&mut self, file: &Path) -> Reply {
        if self.loaded.is_some() {
            return Reply::Failed("this engine has loaded a file already".into());
        }
        self.loaded = Some(false);
        if let Some(why) = &self.broken {
            return Reply::Failed(why.clone());
        }
        // (an error reported after the last line of code is Scryer's, not the file's)
        let last_line = std::fs::read(file)
            .map(|b| last_code_line(&String::from_utf8_lossy(&b)))
            .unwrap_or(usize::MAX);
        let query = format!(
            "kk_judge_load({}, {last_line}, R).",
            quote(&file.display().to_string())
        );
        let r = match result_of(&mut self.machine, query) {
            Ok(r) => r,
            Err(e) => return Reply::LoadFailed(e),
        };
        match &r {
            Term::Atom(a) if a == "loaded" => {
                self.loaded = Some(true);
                let warnings = self
                    .warnings
                    .lock()
                    .map(|w| String::from_utf8_lossy(&w).into_owned())
                    .unwrap_or_default();
                Reply::Loaded { warnings }
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
                            Some((line, crate::system::cut(&text)))
                        }
                        _ => None,
                    })
                    .take(MAX_SYNTAX_ERRORS)
                    .collect();
                Reply::SyntaxErrors(errors)
            }
            Term::Compound(f, args) if f == "error" && args.len() == 1 => Reply::LoadFailed(
                crate::system::cut(&chars_of(&args[0]).unwrap_or_else(|| term_text(&args[0]))),
            ),
            other => Reply::LoadFailed(format!("unexpected load result {}", term_text(other))),
        }
    }

    /// Runs `goal` (Prolog text binding `T`, ending with its `.`) against the loaded file,
    /// calling `found` with each answer (a grid of side `size`, or its text) as it is read;
    /// at most `limit` answers are read. The query's choice points are left when it stops
    /// early, and an engine that panicked is spent: a worker serves one goal of a judged file.
    pub(super) fn solve(
        &mut self,
        goal: &str,
        size: usize,
        limit: Option<usize>,
        found: &mut dyn FnMut(Found),
    ) -> Reply {
        if self.loaded != Some(true) {
            return Reply::Failed("no file is loaded".into());
        }
        if let Ok(mut w) = self.warnings.lock() {
            w.clear();
        }
        let goal = goal.trim().trim_end_matches('.');
        let machine = &mut self.machine;
        let unsupported = &self.unsupported;
        let mut count = 0;
        let mut give = |answer: Result<Vec<Vec<u32>>, String>| {
            count += 1;
            found(Found {
                answer,
                inferences: None,
            });
            limit.is_some_and(|k| count >= k)
        };
        let read = guard::catch(|| {
            // (caught in the query itself: an exception that escapes a query is seen again by
            // the engine's next query)
            for a in machine.run_query(format!("catch(({goal}), {BALL}, true).")) {
                let full = match a {
                    Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                        if let Some(ball) =
                            bindings.get(BALL).filter(|b| !matches!(b, Term::Var(_)))
                        {
                            return ball_end(ball, unsupported);
                        }
                        give(match bindings.get("T") {
                            Some(t) => term_to_grid(t, size).map_err(|_| quoted_text(t, TEXT_CAP)),
                            None => Err("_ (T left unbound)".into()),
                        })
                    }
                    Ok(LeafAnswer::True) => give(Err("_ (T left unbound)".into())),
                    Ok(LeafAnswer::False) => return WireEnd::Complete,
                    Ok(LeafAnswer::Exception(e)) | Err(e) => return ball_end(&e, unsupported),
                };
                if full {
                    return WireEnd::Answers;
                }
            }
            WireEnd::Complete
        });
        let end = match read {
            Ok(end) => end,
            Err(why) => {
                // Scryer cannot make a term of some cyclic answers (an unreachable case): the
                // answer is bad; any other panic (memory it could not get, a goal the file's
                // operators broke) ends the goal
                if why.contains("unreachable") {
                    found(Found {
                        answer: Err("an answer the engine cannot read (a cyclic term?)".into()),
                        inferences: None,
                    });
                    WireEnd::Complete
                } else {
                    WireEnd::Failed(format!("the engine failed: {why}"))
                }
            }
        };
        Reply::Ended {
            end,
            inferences: None,
            cpu_us: None,
        }
    }
}

/// How a goal ends when it threw `ball`.
fn ball_end(ball: &Term, unsupported: &[String]) -> WireEnd {
    if let Term::Compound(f, a) = ball {
        if f == "kk_judge_no_fd" && a.len() == 1 {
            return WireEnd::Exception(super::no_fd::reached(&a[0]));
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

    /// `file` loaded in a fresh engine of `dialect` (with an FD solver or none).
    fn loaded(file: &Path, dialect: Dialect, fd: bool) -> Judged {
        let mut judged = engine(dialect, fd);
        let reply = judged.load(file);
        assert!(matches!(reply, Reply::Loaded { .. }), "{reply:?}");
        judged
    }

    /// What a goal gave: each answer, a grid or its text.
    type Answers = Vec<Result<Vec<Vec<u32>>, String>>;

    /// `goal`'s answers (at most `limit`) and end.
    fn solve(judged: &mut Judged, goal: &str, size: usize, limit: usize) -> (Answers, WireEnd) {
        let mut answers = Vec::new();
        match judged.solve(goal, size, Some(limit), &mut |f| answers.push(f.answer)) {
            Reply::Ended { end, .. } => (answers, end),
            other => panic!("{goal}: {other:?}"),
        }
    }

    #[test]
    fn the_last_line_of_code() {
        let text = "a :- b.\n% c\nd('%x\n').\n/* e\n f */\n\n";
        assert_eq!(last_code_line(text), 4);
        assert_eq!(last_code_line("a.\n/*\nfoo\n*/\n"), 1);
        assert_eq!(last_code_line("% only\n"), 0);
        assert_eq!(last_code_line("p :-\n  q"), 2);
    }

    #[test]
    fn the_gnu_layer_gives_what_gnu_prolog_gives() {
        big_stack(|| {
            let file = Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/judge/gnu_layer_checks.pl"
            ));
            let mut judged = loaded(file, Dialect::Gnu, true);
            // (a grid of size 0 is [], the only answer when every check holds)
            let (answers, end) = solve(&mut judged, "kk_checks_pass, T = [].", 0, 2);
            assert_eq!(end, WireEnd::Complete);
            assert_eq!(answers.len(), 1, "a check of gnu_layer_checks.pl fails");
        });
    }

    #[test]
    fn an_engine_without_fd_solver_has_none_and_one_with_has_one() {
        big_stack(|| {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("k.pl");
            std::fs::write(
                &file,
                ":- use_module(library(clpz)).\np(T) :- X #= 1 + 1, T = [[X]].\n\
                 q(T) :- clpz:(X #= 2), T = [[X]].\n",
            )
            .unwrap();
            for goal in ["p(T)", "q(T)"] {
                let mut plain = loaded(&file, Dialect::Scryer, false);
                match solve(&mut plain, goal, 1, 2) {
                    (_, WireEnd::Exception(e)) => {
                        assert!(e.contains("plain_kenken/3 called the FD solver"), "{e}")
                    }
                    other => panic!("{goal}: the FD solver answered: {other:?}"),
                }
            }
            let mut fd = loaded(&file, Dialect::Scryer, true);
            assert_eq!(
                solve(&mut fd, "p(T)", 1, 2),
                (vec![Ok(vec![vec![2]])], WireEnd::Complete)
            );
        });
    }

    #[test]
    fn halt_and_bad_answers_are_reported_not_obeyed() {
        big_stack(|| {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("k.pl");
            std::fs::write(
                &file,
                "kenken(_, _, _) :- halt(4).\nplain_kenken(_, _, T) :- T = f(T).\n\
                 p(T) :- T = [[1, _]].\n",
            )
            .unwrap();
            let mut judged = loaded(&file, Dialect::Scryer, true);
            assert_eq!(
                solve(&mut judged, "kenken(1, [], T)", 1, 4).1,
                WireEnd::Halted(4)
            );
            // (a cyclic answer is read as its own text, or not at all: either way not a grid)
            let (answers, _) = solve(&mut judged, "plain_kenken(1, [], T)", 1, 4);
            assert!(matches!(&answers[..], [Err(_)]), "{answers:?}");
            let (answers, _) = solve(&mut judged, "p(T)", 1, 4);
            assert!(
                matches!(&answers[..], [Err(t)] if t.starts_with("[[1,")),
                "{answers:?}"
            );
            // (one file, once)
            assert!(matches!(judged.load(&file), Reply::Failed(_)));
        });
    }
}
