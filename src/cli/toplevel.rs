//! The top level behind `kenken query GOAL` and `kenken repl`: Prolog goals against `kenken.pl`,
//! answered the way a Prolog top level answers them (see [`kenken::prolog::toplevel`]).

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use kenken::prolog::toplevel::{
    needs_kenken, split_goals, CtrlC, Ended, Got, Key, PipedInput, Setup, TopProcess, TopResult,
    GRACE,
};

/// The exit code of a goal that ended with `r`.
fn code(r: TopResult) -> i32 {
    match r {
        TopResult::True => 0,
        TopResult::False => 1,
        TopResult::Error => 2,
        TopResult::Limit => 3,
        TopResult::Halt(n) => n,
        TopResult::OutOfMemory => 2,
        TopResult::Replaced => 0,
    }
}

/// `kenken query`: every answer, separated by ` ;`, at most `limit`. Several goals (`X = 1. Y =
/// 2.`) run in order, up to the first that does not answer (its exit code is the query's).
/// `kenken.pl` is loaded only when a goal may need it ([`needs_kenken`]) or files are
/// consulted. The goals run in the top level's child process ([`TopProcess`]), bounded by
/// `setup.memory` (reaching it is a resource error) and killed when `timeout` is up (counted
/// once the engine is loaded: the files' consults count, the engine's own start does not).
pub fn query(goal: &str, limit: usize, mut setup: Setup, timeout: Option<f64>) -> Result<i32> {
    let timeout = timeout.map(|t| Duration::from_secs_f64(t.max(0.0)));
    let split = split_goals(goal);
    let mut goals = split.complete;
    goals.extend(split.rest);
    if goals.is_empty() {
        // (as the one goal before: a syntax error, said as such)
        goals.push(goal.to_string());
    }
    // kenken.pl (most of the start-up) only for goals that may need it
    if setup.consult.is_empty() && !needs_kenken(goal) {
        setup.no_kenken = true;
    }
    let mut top = TopProcess::batch(setup, limit)?;
    let deadline = match top.started_within(timeout)? {
        Ok(deadline) => deadline,
        Err(ended) => return query_ended(&top, ended),
    };
    if top.consult_failed() {
        return Ok(2);
    }
    for g in &goals {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let ended = top.run(g, left, &mut |_| Key::Stop)?;
        let code = query_ended(&top, ended.clone())?;
        // (halt/0,1 ends the query, whatever its code: the goals after it do not run)
        if matches!(ended, Ended::Done(TopResult::Halt(_))) || code != 0 {
            return Ok(code);
        }
    }
    Ok(0)
}

/// The exit code of a query's goal that ended so, after what is said of it (on a line of its
/// own, after what the goal showed); an engine that failed is an error (said on standard
/// error, exit 2).
fn query_ended(top: &TopProcess, ended: Ended) -> Result<i32> {
    let fresh = if top.ends_a_line() { "" } else { "\n" };
    Ok(match ended {
        Ended::Done(r) => code(r),
        Ended::TimedOut => {
            println!("{fresh}% timed out{}", lost(top));
            3
        }
        Ended::OutOfMemory(m) => {
            println!("{fresh}{}", out_of_memory(m));
            2
        }
        Ended::Interrupted => {
            println!("{fresh}% interrupted{}", lost(top));
            130
        }
        Ended::Failed(why) => {
            // (what the goal showed ends its line first)
            print!("{fresh}");
            anyhow::bail!(why)
        }
    })
}

/// What the top level adds when a goal stopped by Ctrl-C or its timeout was killed (it did
/// not stop within the grace period: a builtin that runs long, a read that waits) rather
/// than stopped in place, which keeps what it did.
fn lost(top: &TopProcess) -> String {
    if top.goal_lost() {
        format!(
            ": the goal did not stop within {} s, so its engine was replaced; the session is \
             as it was before the goal (what the goal did is lost)",
            GRACE.as_secs_f64()
        )
    } else {
        String::new()
    }
}

/// What the top level says when a goal reached the memory bound `m` (`--memory`).
fn out_of_memory(m: u64) -> String {
    format!(
        "% resource error: the goal reached the memory limit ({}, --memory)",
        kenken::judge::size_text(m)
    )
}

/// Where the top level reads its lines: a line editor with history on a terminal, plain standard
/// input otherwise (so that a session can be scripted; the lines read are echoed, once), which
/// the goals read too ([`PipedInput`]).
enum Lines {
    Editor(Box<Editor<Names, DefaultHistory>>),
    Plain(Arc<PipedInput>),
}

/// What [`Lines::read`] got.
enum Line {
    Text(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    Eof,
}

impl Lines {
    fn read(&mut self, prompt: &str) -> Result<Line> {
        match self {
            Lines::Editor(ed) => match ed.readline(prompt) {
                Ok(l) => Ok(Line::Text(l)),
                Err(ReadlineError::Interrupted) => Ok(Line::Interrupted),
                Err(ReadlineError::Eof) => Ok(Line::Eof),
                Err(e) => Err(e.into()),
            },
            Lines::Plain(input) => match input.line(None) {
                // (given back: shown before)
                Got::Back(l) => Ok(Line::Text(l.trim_end_matches(['\n', '\r']).to_string())),
                Got::Fresh(l) => {
                    let l = l.trim_end_matches(['\n', '\r']).to_string();
                    println!("{prompt}{l}");
                    Ok(Line::Text(l))
                }
                Got::Waiting | Got::End => Ok(Line::Eof),
            },
        }
    }

    /// The key that answers "next answer?": one key on a terminal (no Enter), a line otherwise.
    fn key(&mut self) -> Key {
        match self {
            Lines::Editor(_) => terminal_key(),
            Lines::Plain(input) => {
                let (l, shown) = match input.line(None) {
                    Got::Back(l) => (l, true),
                    Got::Fresh(l) => (l, false),
                    Got::Waiting | Got::End => return Key::Stop,
                };
                let l = l.trim_end_matches(['\n', '\r']);
                match l.trim() {
                    ";" | "n" | "r" => Key::Next,
                    "a" => Key::All,
                    "w" => Key::Whole,
                    "p" => Key::Print,
                    "f" => Key::Five,
                    "h" | "?" => Key::Help,
                    "" | "." => {
                        if l.is_empty() || l.trim() == "." {
                            Key::Stop
                        } else {
                            Key::Next
                        }
                    }
                    _ => {
                        // (a goal after all: read as one, not shown again)
                        input.unread(format!("{l}\n").as_bytes(), shown);
                        Key::Stop
                    }
                }
            }
        }
    }

    /// In a piped session, what follows the goal about to run (`goals` and the start of
    /// one, `pending`) goes back to the input, where the goal may read it; what it leaves is
    /// read as goals after it.
    fn give_back(&mut self, goals: &mut std::collections::VecDeque<String>, pending: &mut String) {
        if let Lines::Plain(input) = self {
            let mut text: String = goals.drain(..).map(|g| g + "\n").collect();
            text.push_str(&std::mem::take(pending));
            input.unread(text.as_bytes(), true);
        }
    }

    fn remember(&mut self, goal: &str) {
        if let Lines::Editor(ed) = self {
            let _ = ed.add_history_entry(goal);
        }
    }

    fn save(&mut self) {
        if let (Lines::Editor(ed), Some(h)) = (self, history_file()) {
            if let Some(d) = h.parent() {
                let _ = std::fs::create_dir_all(d);
            }
            let _ = ed.save_history(&h);
        }
    }
}

/// The names of Scryer's builtins (ISO's and its own) and of the top level's commands, which
/// Tab completes (with the predicates the session sees, which its engine tells: [`Names`]).
const BUILTINS: &[&str] = &[
    "abolish",
    "acyclic_term",
    "arg",
    "asserta",
    "assertz",
    "at_end_of_stream",
    "atom",
    "atom_chars",
    "atom_codes",
    "atom_concat",
    "atom_length",
    "atomic",
    "bagof",
    "call",
    "callable",
    "catch",
    "char_code",
    "clause",
    "close",
    "compare",
    "compound",
    "consult",
    "copy_term",
    "current_input",
    "current_op",
    "current_output",
    "current_predicate",
    "current_prolog_flag",
    "fail",
    "false",
    "findall",
    "float",
    "flush_output",
    "functor",
    "get_byte",
    "get_char",
    "get_code",
    "ground",
    "halt",
    "help",
    "integer",
    "is",
    "keysort",
    "listing",
    "make",
    "msort",
    "nl",
    "nonvar",
    "number",
    "number_chars",
    "number_codes",
    "once",
    "op",
    "open",
    "peek_byte",
    "peek_char",
    "peek_code",
    "put_byte",
    "put_char",
    "put_code",
    "read",
    "read_term",
    "repeat",
    "retract",
    "retractall",
    "set_input",
    "set_output",
    "set_prolog_flag",
    "set_stream_position",
    "setof",
    "sort",
    "statistics",
    "stream_property",
    "sub_atom",
    "subsumes_term",
    "term_variables",
    "throw",
    "time",
    "true",
    "unify_with_occurs_check",
    "use_module",
    "var",
    "write",
    "write_canonical",
    "write_term",
    "writeq",
];

/// The line editor's helper: Tab completes the name of a predicate at the cursor (a word that
/// starts with a small letter), among [`BUILTINS`] and the predicates the session sees (its
/// own, its files', those it imports), as its engine told them after the last goal.
struct Names {
    session: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
}

impl Helper for Names {}
impl Highlighter for Names {}
impl Validator for Names {}
impl Hinter for Names {
    type Hint = String;
}

impl Completer for Names {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .last()
            .map_or(pos, |(i, _)| i);
        let word = &line[start..pos];
        if !word.starts_with(|c: char| c.is_lowercase()) {
            return Ok((pos, Vec::new()));
        }
        let session = self.session.borrow();
        let names: std::collections::BTreeSet<String> = BUILTINS
            .iter()
            .copied()
            .chain(session.iter().map(String::as_str))
            .filter(|n| n.starts_with(word))
            .map(str::to_string)
            .collect();
        Ok((start, names.into_iter().collect()))
    }
}

/// One key from the terminal, read with line buffering and echo off for that key only.
fn terminal_key() -> Key {
    use nix::sys::termios::{tcgetattr, tcsetattr, LocalFlags, SetArg, SpecialCharacterIndices};
    let stdin = std::io::stdin();
    let saved = tcgetattr(&stdin).ok();
    if let Some(mut raw) = saved.clone() {
        // (Ctrl-C too comes as a key: it stops the answers, the goal's state kept)
        raw.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG);
        raw.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
        raw.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
        let _ = tcsetattr(&stdin, SetArg::TCSANOW, &raw);
    }
    let mut b = [0u8; 1];
    let got = stdin.lock().read(&mut b);
    if let Some(s) = saved {
        let _ = tcsetattr(&stdin, SetArg::TCSANOW, &s);
    }
    match (got, b[0]) {
        (Ok(1), b';' | b' ' | b'n' | b'r' | b'\t') => Key::Next,
        (Ok(1), b'a') => Key::All,
        (Ok(1), b'w') => Key::Whole,
        (Ok(1), b'p') => Key::Print,
        (Ok(1), b'f') => Key::Five,
        // Enter, '.', c, Ctrl-C, Ctrl-D, Escape
        (Ok(1), b'\r' | b'\n' | b'.' | b'c' | 3 | 4 | 0x1b) => Key::Stop,
        (Ok(1), _) => Key::Help,
        _ => Key::Stop,
    }
}

/// The history file: `kenken/history` in the user's data directory.
fn history_file() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("kenken").join("history"))
}

/// The goals typed: a line may hold several (each run in turn, as typed), and a goal may span
/// lines, up to the `.` that ends it (outside quotes and comments).
struct Reader {
    lines: Lines,
    /// Goals read and not yet run.
    queue: std::collections::VecDeque<String>,
    /// The start of a goal still being typed.
    pending: String,
}

impl Reader {
    /// The next goal; `None` at the end of input.
    fn next(&mut self) -> Result<Option<String>> {
        loop {
            if let Some(g) = self.queue.pop_front() {
                self.lines.remember(&g);
                self.lines.give_back(&mut self.queue, &mut self.pending);
                return Ok(Some(g));
            }
            let prompt = if self.pending.is_empty() {
                "?- "
            } else {
                "|    "
            };
            match self.lines.read(prompt)? {
                Line::Text(l) => {
                    self.pending.push_str(&l);
                    self.pending.push('\n');
                }
                Line::Interrupted => self.pending.clear(),
                // (the end of the input, Ctrl-D, ends the session at the prompt; within a goal
                // it ends the goal, which runs as it is: a syntax error, said as such, and the
                // session goes on, as in SWI-Prolog and GNU Prolog)
                Line::Eof if self.pending.trim().is_empty() => return Ok(None),
                Line::Eof => {
                    let goal = std::mem::take(&mut self.pending);
                    self.queue.push_back(goal.trim_end().to_string());
                    continue;
                }
            }
            let goals = split_goals(&self.pending);
            self.queue.extend(goals.complete);
            self.pending = goals.rest.map(|r| r + "\n").unwrap_or_default();
        }
    }
}

/// `kenken repl`: an interactive top level whose engine runs in a child process, so that
/// Ctrl-C and `timeout` stop a goal and not the session.
pub fn repl(setup: Setup, timeout: Option<f64>) -> Result<i32> {
    // Ctrl-C is for the engine, which gets the terminal's SIGINT itself and stops the goal
    // where it is; this process goes on, and kills a goal that does not stop.
    let presses = CtrlC::default();
    let counter = presses.clone();
    let _ = ctrlc::set_handler(move || counter.pressed());
    let stdin = std::io::stdin();
    // (the names Tab completes, as the engine tells them)
    let names = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let lines = if stdin.is_terminal() {
        let mut ed = Editor::<Names, DefaultHistory>::new()?;
        ed.set_helper(Some(Names {
            session: names.clone(),
        }));
        if let Some(h) = history_file() {
            let _ = ed.load_history(&h);
        }
        println!(
            "Scryer Prolog top level{}. Goals end with '.'; help. lists the commands; \
             halt. or Ctrl-D leaves.",
            if setup.no_kenken {
                ""
            } else {
                " with kenken.pl"
            }
        );
        Lines::Editor(Box::new(ed))
    } else {
        Lines::Plain(PipedInput::stdin())
    };
    let piped = match &lines {
        Lines::Plain(input) => Some(input.clone()),
        Lines::Editor(_) => None,
    };
    let timeout = timeout.map(|t| Duration::from_secs_f64(t.max(0.0)));
    let files = !setup.consult.is_empty();
    let mut top = TopProcess::start(setup, piped)?;
    top.watch(presses);
    // (files are consulted before the first prompt, as Scryer does: one may halt)
    if files {
        if let Some(Ended::Done(TopResult::Halt(n))) = top.started()? {
            return Ok(n);
        }
        *names.borrow_mut() = top.names().to_vec();
    }
    let mut reader = Reader {
        lines,
        queue: Default::default(),
        pending: String::new(),
    };
    let mut exit = 0;
    while let Some(goal) = reader.next()? {
        let ended = top.run(&goal, timeout, &mut |_| reader.lines.key())?;
        *names.borrow_mut() = top.names().to_vec();
        // (a message on a line of its own, after what the goal showed; Ctrl-C's ^C too)
        let fresh = if top.ends_a_line() { "" } else { "\n" };
        match ended {
            Ended::Done(TopResult::Halt(n)) => {
                exit = n;
                break;
            }
            Ended::Done(_) => {}
            Ended::Interrupted => println!("\n% interrupted{}", lost(&top)),
            Ended::TimedOut => println!("{fresh}% timed out{}", lost(&top)),
            Ended::OutOfMemory(m) => {
                println!(
                    "{fresh}{}; the session goes on in a fresh engine",
                    out_of_memory(m)
                )
            }
            Ended::Failed(why) => {
                println!("{fresh}% {why}; the session goes on in a fresh engine")
            }
        }
    }
    reader.lines.save();
    Ok(exit)
}
