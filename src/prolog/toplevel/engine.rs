//! The in-process engine: a [`Toplevel`] runs goals through `kk_top/3` on the real standard
//! streams (used in the child process, and by `kenken query` where nothing needs a restart).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use scryer_prolog::{
    InputStreamConfig, LeafAnswer, Machine, OutputStreamConfig, StreamConfig, Term,
};

use super::clocks::{epoch_ms, Clocks};
use super::goals::{ends_in_quote, lazy_libraries, reads_input};
use super::homework::HOMEWORK;
use super::interrupt::is_interrupt;
use super::output::{ask, Host, HostSlot, Shown, CLOCK, FLUSH, FRESH_LINE, HOST, QUESTION_CAP};
use super::{Mode, TopResult};
use crate::prolog::guard;
pub use crate::prolog::guard::quiet_panics;
use crate::prolog::write::quoted_atom;
use crate::prolog::{quote, Builder, PrologError, Purpose};

/// The `$toplevel` module the engine is built with, instead of Scryer's own `toplevel.pl`
/// (whose REPL is not used here): building an engine then skips compiling the libraries that
/// REPL needs (lambda, si, os, ...), a fifth of a cold start. What Scryer itself looks up in
/// `$toplevel` is kept: `started/0` (dynamic; see `kk_loader_throws` in `prolog/host/consult.pl`), and
/// `term_variables_under_max_depth/3`, which `prolog/host/answers.pl` uses to name an answer's variables.
const TOPLEVEL_MODULE: &str = "\
:- module('$toplevel', []).
:- dynamic(started/0).
term_variables_under_max_depth(Term, MaxDepth, Vars) :-
    '$term_variables_under_max_depth'(Term, MaxDepth, Vars).
";

/// The top level's own `statistics/0,2`, `time/1` and `listing/1` (defined in `prolog/host/commands.pl`),
/// loaded last: they replace library(time)'s and library(format)'s, which `kenken.pl`'s engine
/// imports after `prolog/host/`.
const TOP_PREDICATES: &str = "\
:- dynamic(time/1).
:- dynamic(statistics/2).
:- dynamic(listing/1).
:- meta_predicate(time(0)).
time(G) :- kk_time(G).
statistics(K, V) :- kk_statistics2(K, V).
statistics :- kk_statistics0.
listing(Spec) :- kk_listing(Spec).
";

/// One engine answering top-level goals on the real standard streams.
pub struct Toplevel {
    machine: Machine,
    /// Whether what user_output showed last ends a line (or nothing was shown yet).
    at_line_start: Arc<AtomicBool>,
    /// What user_output wrote, on its way to standard output.
    shown: Shown,
    /// Whether the engine panicked: it is not to be trusted, and runs nothing more.
    broken: bool,
    /// Whether the engine has `kenken.pl`.
    kenken: bool,
    /// The named pipe the goals read from (a piped repl's), if any.
    feed: Option<PathBuf>,
    /// The host the engine's questions go to ([`Toplevel::talk_to`]).
    host: HostSlot,
    /// The private directory where a copy of each file consulted is kept, as it was loaded
    /// (a restart loads the copies again, never the files as they are now), and the
    /// directory itself when this engine made it (an engine of the top level's child gets
    /// its parent's, which outlives it).
    scratch: PathBuf,
    _own_scratch: Option<tempfile::TempDir>,
    /// Whether the last goal run was stopped by an interrupt (Ctrl-C, or a timeout's
    /// `SIGINT`: see `interrupt.rs`).
    interrupted: bool,
}

impl Toplevel {
    /// Starts an engine with the top level (and `kenken.pl` unless `no_kenken`).
    ///
    /// The copies of the files it consults are kept in a private directory of its own,
    /// removed with it.
    pub fn new(no_kenken: bool) -> Toplevel {
        let own = tempfile::Builder::new()
            .prefix("kenken-consulted-")
            .tempdir()
            .ok();
        let dir = own
            .as_ref()
            .map_or_else(std::env::temp_dir, |d| d.path().to_path_buf());
        let mut top = Toplevel::with_scratch(no_kenken, &dir);
        top._own_scratch = own;
        top
    }

    /// [`Toplevel::new`], the copies of the files it consults kept in `scratch` (a private
    /// directory that outlives the engine: a fresh one loads the copies again).
    pub(super) fn with_scratch(no_kenken: bool, scratch: &Path) -> Toplevel {
        // user_output is the real standard output, except while our own program loads (its
        // loader's warnings are not the user's business).
        let quiet = Arc::new(AtomicBool::new(true));
        let loud = quiet.clone();
        let at_line_start = Arc::new(AtomicBool::new(true));
        let line_start = at_line_start.clone();
        // (the host is told whether the output ends a line: a parent that kills this process
        // starts its message on a line of its own)
        let host = HostSlot::default();
        let shown = Shown::new(host.clone());
        let questions = host.clone();
        // (a question to the host being read: `HOST` ... new line)
        let mut question: Option<Vec<u8>> = None;
        let to_show = shown.clone();
        let (mut clock, input) = InputStreamConfig::channel();
        // (the session's clocks go on from where the engine before this one left them)
        let clocks = Clocks::from_env();
        let started = Instant::now();
        let origin = clocks.wall_origin;
        let out = OutputStreamConfig::callback(Box::new(move |buf| {
            let bytes = std::mem::take(buf.get_mut());
            buf.set_position(0);
            let mut shown = Vec::with_capacity(bytes.len() + 1);
            let mut flush = false;
            for b in bytes {
                if let Some(q) = question.as_mut() {
                    if b != b'\n' {
                        // (past the cap, the rest of a question is dropped: it is answered all
                        // the same at its end)
                        if q.len() < QUESTION_CAP {
                            q.push(b);
                        }
                        continue;
                    }
                    // (what came before the question is shown first)
                    if !shown.is_empty() {
                        to_show.push(
                            &std::mem::take(&mut shown),
                            line_start.load(Ordering::Relaxed),
                        );
                    }
                    to_show.flush();
                    let answer = ask(&questions, &question.take().unwrap_or_default());
                    let _ = clock.write_all(format!("{answer}.\n").as_bytes());
                    continue;
                }
                match b {
                    HOST => question = Some(Vec::new()),
                    FLUSH => flush = true,
                    FRESH_LINE => {
                        if !line_start.load(Ordering::Relaxed) {
                            shown.push(b'\n');
                            line_start.store(true, Ordering::Relaxed);
                        }
                    }
                    CLOCK => {
                        let ms = match origin {
                            Some(o) => epoch_ms().saturating_sub(o),
                            None => started.elapsed().as_millis() as u64,
                        };
                        let _ = clock.write_all(format!("{ms}.\n").as_bytes());
                    }
                    b => {
                        shown.push(b);
                        line_start.store(b == b'\n', Ordering::Relaxed);
                    }
                }
            }
            if !loud.load(Ordering::Relaxed) && !shown.is_empty() {
                to_show.push(&shown, line_start.load(Ordering::Relaxed));
            }
            if flush {
                to_show.flush();
            }
        }));
        let hushed = quiet.clone();
        let before_err = shown.clone();
        let err = OutputStreamConfig::callback(Box::new(move |buf| {
            let bytes = std::mem::take(buf.get_mut());
            buf.set_position(0);
            if !hushed.load(Ordering::Relaxed) && !bytes.is_empty() {
                before_err.flush();
                let mut o = std::io::stderr().lock();
                let _ = o.write_all(&bytes).and_then(|_| o.flush());
            }
        }));
        let mut machine = Builder::new(Purpose::TopLevel { kenken: !no_kenken })
            .streams(
                StreamConfig::stdio()
                    .with_user_output(out)
                    .with_user_error(err)
                    .with_user_input(input),
            )
            .toplevel(TOPLEVEL_MODULE)
            .build();
        machine.consult_module_string("user", TOP_PREDICATES.to_string());
        let relay = std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        // (flush what the loader wrote, quietly)
        // (with kenken.pl, the homework's predicates are noted: a file consulted in the
        // session that defines one is not loaded, see kk_consult_one/1 in prolog/host/consult.pl)
        let homework = if no_kenken {
            String::new()
        } else {
            let pis: Vec<String> = HOMEWORK.iter().map(|(n, a)| format!("{n}/{a}")).collect();
            format!("bb_put(kk_homework, [{}]), ", pis.join(", "))
        };
        let _ = machine
            .run_query(format!(
                "kk_top_start({}, {}), kk_clock_offsets({}, {}), {homework}flush_output.",
                quoted_atom(&relay),
                quoted_atom(&scratch.to_string_lossy()),
                clocks.cpu_ms,
                clocks.inferences
            ))
            .count();
        quiet.store(false, Ordering::Relaxed);
        at_line_start.store(true, Ordering::Relaxed);
        shown.flush();
        Toplevel {
            machine,
            at_line_start,
            shown,
            broken: false,
            kenken: !no_kenken,
            feed: None,
            host,
            scratch: scratch.to_path_buf(),
            _own_scratch: None,
            interrupted: false,
        }
    }

    /// Runs `goal` (Prolog text; a missing final `.` is added) in `mode`.
    pub fn run(&mut self, goal: &str, mode: &Mode) -> Result<TopResult, PrologError> {
        let asked = mode;
        // (the goal was typed on a line of its own, or is the first thing shown)
        self.at_line_start.store(true, Ordering::Relaxed);
        // (a quote left open is ended by a new line, as the user's Enter ends it for Scryer's
        // top level: its reader then says missing_quote or invalid_single_quoted_character)
        let mut text = goal.trim_end().to_string();
        if ends_in_quote(&text) {
            text.push('\n');
        } else if !text.ends_with('.') || text.ends_with("..") {
            text.push_str(" .");
        } else {
            text.push(' ');
        }
        let libraries = lazy_libraries(&text);
        if !libraries.is_empty() {
            self.one(
                &format!("kk_need_libraries([{}]), R = true.", libraries.join(", ")),
                "R",
            )?;
        }
        // (`query`: every goal reads through one relay, which goes on to the next goal)
        let reads = match mode {
            Mode::Batch(_) => "keep",
            Mode::Ask if reads_input(&text) => "true",
            Mode::Ask => "false",
        };
        let mode = match mode {
            Mode::Batch(n) => format!("batch({})", (*n).max(1)),
            Mode::Ask => "ask".to_string(),
        };
        guard::clear_resource_panic();
        // (an interrupt that came while no goal ran, between two, is not this goal's: it is
        // taken here, where it stops nothing)
        self.one("catch(kk_burn(200), _, true), R = true.", "R")?;
        self.interrupted = false;
        let r = match self.run_once(
            &format!("kk_top({}, {mode}, {reads}, R).", quote(&text)),
            "R",
        ) {
            Ok(r) => r,
            // (the engine is not to be trusted after a panic: the host replaces it)
            Err(PrologError::Failed(_)) if guard::resource_panic() => {
                return Ok(TopResult::OutOfMemory)
            }
            Err(e) => return Err(e),
        };
        match &r {
            Term::Atom(a) if a == "true" => Ok(TopResult::True),
            Term::Atom(a) if a == "false" => Ok(TopResult::False),
            Term::Atom(a) if a == "error" => Ok(TopResult::Error),
            Term::Atom(a) if a == "limit" => Ok(TopResult::Limit),
            Term::Atom(a) if a == "memory" => Ok(TopResult::OutOfMemory),
            // (Ctrl-C or a timeout stopped the goal in place: see interrupt.rs)
            Term::Atom(a) if a == "interrupted" || a == "$kk_interrupted" => {
                self.interrupted = true;
                Ok(TopResult::Error)
            }
            // (a file the goal names replaces kenken.pl: the goal runs in an engine without it)
            Term::Atom(a) if a == "swap" => {
                self.without_kenken()?;
                self.run(goal, asked)
            }
            Term::Atom(a) if a == "swapped" => {
                self.without_kenken()?;
                Ok(TopResult::Replaced)
            }
            Term::Compound(h, _) if h == "halt" => {
                Ok(halt_code(&r).map_or(TopResult::Error, TopResult::Halt))
            }
            _ => Err(PrologError::Protocol(crate::prolog::term_text(&r))),
        }
    }

    /// Consults `file` (reported and survived when it does not load): [`TopResult::Halt`]
    /// when the file called `halt/0,1` (in a directive or an `initialization/1` goal).
    pub fn consult(&mut self, file: &Path) -> Result<TopResult, PrologError> {
        let goal = format!(
            "kk_top_consult({}, R).",
            quoted_atom(&file.to_string_lossy())
        );
        match self.one(&goal, "R")? {
            Term::Atom(a) if a == "true" => Ok(TopResult::True),
            r => Ok(halt_code(&r).map_or(TopResult::False, TopResult::Halt)),
        }
    }

    /// The engine's clocks: the offset from its process's CPU time to the session's (in
    /// milliseconds), and the session's inferences so far (`statistics/2`).
    pub(super) fn clocks(&mut self) -> Result<(i64, u64), PrologError> {
        let t = self.one("kk_clocks(B, I), R = B-I.", "R")?;
        let number = |t: &Term| match t {
            Term::Integer(i) => i.to_string().parse::<i64>().ok(),
            _ => None,
        };
        match &t {
            Term::Compound(h, args) if h == "-" && args.len() == 2 => {
                match (number(&args[0]), number(&args[1])) {
                    (Some(b), Some(i)) => Ok((b, i.max(0) as u64)),
                    _ => Err(PrologError::Protocol(crate::prolog::term_text(&t))),
                }
            }
            _ => Err(PrologError::Protocol(crate::prolog::term_text(&t))),
        }
    }

    /// This engine replaced by one without `kenken.pl`, given this one's state.
    fn without_kenken(&mut self) -> Result<(), PrologError> {
        let state = self.state()?;
        let feed = self.feed.take();
        let host = lock_host(&self.host).take();
        let own = self._own_scratch.take();
        *self = Toplevel::with_scratch(true, &self.scratch.clone());
        self._own_scratch = own;
        *lock_host(&self.host) = host;
        if let Some(fifo) = feed {
            self.feed_from(&fifo)?;
        }
        self.restore(&state)
    }

    /// The engine's questions (which key after an answer, the input fed to a goal) go to
    /// `host` from now on, and it is told whether the output ends a line.
    pub(super) fn talk_to(&mut self, host: Box<dyn Host>) {
        *lock_host(&self.host) = Some(host);
    }

    /// The goals that read get their input from the named pipe `fifo`, where the host feeds
    /// them (see [`PipedInput`](super::PipedInput)), through the relay.
    pub(super) fn feed_from(&mut self, fifo: &Path) -> Result<(), PrologError> {
        self.feed = Some(fifo.to_path_buf());
        self.one(
            &format!(
                "bb_put(kk_feed, {}), R = true.",
                quoted_atom(&fifo.to_string_lossy())
            ),
            "R",
        )
        .map(|_| ())
    }

    /// Whether the engine has `kenken.pl` (a file consulted in the session may have replaced
    /// it: [`TopResult::Replaced`]).
    pub fn has_kenken(&self) -> bool {
        self.kenken
    }

    /// The names of the predicates the session sees (its own, those of its files, those it
    /// imports; not the top level's own): what the repl completes a name with.
    pub fn names(&mut self) -> Result<Vec<String>, PrologError> {
        let t = self.one("kk_user_names(Cs).", "Cs")?;
        let text = crate::prolog::chars_of(&t)
            .ok_or_else(|| PrologError::Protocol(crate::prolog::term_text(&t)))?;
        Ok(text.split_whitespace().map(str::to_string).collect())
    }

    /// The session's state as a goal that restores it in a fresh engine (`kk_state_pieces/1`:
    /// each predicate's text written anew only when its clauses changed).
    pub fn state(&mut self) -> Result<String, PrologError> {
        let t = self.one("kk_state_pieces(S).", "S")?;
        crate::prolog::chain_text(t)
            .ok_or_else(|| PrologError::Protocol("the state is not a chain of texts".into()))
    }

    /// Runs a state goal made by [`Toplevel::state`] (quietly, but for what the restart lost:
    /// a value of `bb_put/2`; and a file that did not load, where it loaded in the engine that
    /// made the state). What Scryer's loader writes past the engine's streams, its warnings of
    /// clauses overwritten (said when the files were consulted), is not shown again.
    pub(super) fn restore(&mut self, state: &str) -> Result<(), PrologError> {
        let query = format!("kk_top_restore({}, R).", quote(&format!("{state} .")));
        let (r, lines) = crate::prolog::stdout::kept(|| self.one(&query, "R"));
        for l in lines {
            if !l.starts_with("% Warning: overwriting ") {
                println!("{l}");
            }
        }
        r.map(|_| ())
    }

    /// Whether the last goal [`Toplevel::run`] ran was stopped by an interrupt (it then
    /// returned [`TopResult::Error`], having shown nothing of it).
    pub(super) fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Runs a host goal that binds `var` once, deterministically, again when an interrupt
    /// stopped it (a host goal only reads the session, or does what it did again: an
    /// interrupt is the user's, meant for the goal just ended). Scryer 0.10 panics on a few
    /// goals instead of raising an error (asserting a cyclic term deep in a user's predicate,
    /// ...): the panic is caught and told as an error, after which the engine is not to be
    /// trusted ([`TopProcess`](super::TopProcess) replaces it).
    fn one(&mut self, query: &str, var: &str) -> Result<Term, PrologError> {
        for _ in 0..8 {
            match self.run_once(query, var)? {
                Term::Atom(a) if a == "$kk_interrupted" => continue,
                t => return Ok(t),
            }
        }
        Err(PrologError::Protocol(format!("{query} was interrupted")))
    }

    /// Runs a host goal that binds `var` once (`interrupted` when an interrupt stopped it),
    /// and shows what it wrote.
    fn run_once(&mut self, query: &str, var: &str) -> Result<Term, PrologError> {
        let r = self.one_(query, var);
        self.shown.flush();
        r
    }

    /// [`Toplevel::run_once`], its output perhaps not shown yet.
    fn one_(&mut self, query: &str, var: &str) -> Result<Term, PrologError> {
        if self.broken {
            return Err(PrologError::Failed(
                "the Prolog engine failed on an earlier goal".into(),
            ));
        }
        let machine = &mut self.machine;
        let run = guard::catch(|| {
            let mut found = None;
            for a in machine.run_query(query.to_string()) {
                match a {
                    Ok(LeafAnswer::LeafAnswer { bindings, .. }) => {
                        if let Some(r) = bindings.get(var) {
                            found.get_or_insert(r.clone());
                        }
                    }
                    Ok(LeafAnswer::False) | Ok(LeafAnswer::True) => {}
                    // (in place of the answer: an interrupt stopped the host's goal)
                    Ok(LeafAnswer::Exception(e)) | Err(e) if is_interrupt(&e) => {
                        return Ok(Term::Atom("$kk_interrupted".into()))
                    }
                    Ok(LeafAnswer::Exception(e)) | Err(e) => {
                        return Err(PrologError::Protocol(crate::prolog::term_text(&e)))
                    }
                }
            }
            found.ok_or_else(|| PrologError::Protocol(format!("{query} failed")))
        });
        run.unwrap_or_else(|why| {
            self.broken = true;
            Err(PrologError::Failed(format!(
                "the Prolog engine failed on this goal (Scryer Prolog: {why})"
            )))
        })
    }
}

/// The exit code of `halt(Code)` as the host's Prolog side reports it: Code as a process
/// exit code (its low 8 bits, as the system keeps them; one too big for an `i64` is 2).
fn halt_code(t: &Term) -> Option<i32> {
    match t {
        Term::Compound(h, args) if h == "halt" && args.len() == 1 => match &args[0] {
            Term::Integer(i) => Some(
                i.to_string()
                    .parse::<i64>()
                    .map_or(2, |n| (n & 0xff) as i32),
            ),
            _ => None,
        },
        _ => None,
    }
}

fn lock_host(slot: &HostSlot) -> std::sync::MutexGuard<'_, Option<Box<dyn Host>>> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}
