//! `kenken query GOAL` and `kenken repl`: Prolog goals against `kenken.pl`, answered the way a
//! Prolog top level answers them (see [`kenken::prolog::toplevel`]).

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use kenken::process::Spawn;
use kenken::prolog::toplevel::{Ended, Key, Mode, Setup, TopProcess, TopResult, Toplevel};

/// The stack of the engine's thread: Scryer recurses deeply on big terms.
const STACK: usize = 1 << 30;

/// The exit code of a goal that ended with `r`.
fn code(r: TopResult) -> i32 {
    match r {
        TopResult::True => 0,
        TopResult::False => 1,
        TopResult::Error => 2,
        TopResult::Limit => 3,
        TopResult::Halt(n) => n,
    }
}

/// `kenken query`: every answer, separated by ` ;`, at most `limit`. With a timeout the query
/// runs in a child process (this program again, without the timeout), killed when time is up.
pub fn query(goal: &str, limit: usize, setup: Setup, timeout: Option<f64>) -> Result<i32> {
    if let Some(t) = timeout {
        return query_bounded(goal, limit, &setup, Duration::from_secs_f64(t.max(0.0)));
    }
    let goal = goal.to_string();
    std::thread::Builder::new()
        .name("kenken-query".into())
        .stack_size(STACK)
        .spawn(move || -> Result<i32> {
            let mut top = Toplevel::new(setup.no_kenken);
            for f in &setup.consult {
                if top.consult(f)? != TopResult::True {
                    return Ok(2);
                }
            }
            Ok(code(top.run(&goal, &Mode::Batch(limit))?))
        })?
        .join()
        .map_err(|_| anyhow::anyhow!("the query stopped"))?
}

fn query_bounded(goal: &str, limit: usize, setup: &Setup, timeout: Duration) -> Result<i32> {
    let mut args: Vec<OsString> = vec!["query".into(), "--limit".into(), limit.to_string().into()];
    for f in &setup.consult {
        args.extend(["--consult".into(), f.clone().into_os_string()]);
    }
    if setup.no_kenken {
        args.push("--no-kenken".into());
    }
    args.extend(["--".into(), goal.into()]);
    let mut child = Spawn::program(&std::env::current_exe()?, &args)
        .terminal()
        .spawn()?;
    let deadline = Instant::now() + timeout;
    loop {
        if child.has_ended() {
            return Ok(child.wait().and_then(|s| s.code()).unwrap_or(2));
        }
        if Instant::now() >= deadline {
            child.kill();
            println!("% timed out");
            return Ok(3);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Where the top level reads its lines: a line editor with history on a terminal, plain standard
/// input otherwise (so that a session can be scripted; the lines read are echoed).
enum Lines {
    Editor(Box<DefaultEditor>),
    Plain {
        input: std::io::StdinLock<'static>,
        /// A line read as an answer's key that was a goal after all.
        back: Option<String>,
    },
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
            Lines::Plain { input, back } => {
                let l = match back.take() {
                    Some(l) => l,
                    None => {
                        let mut l = String::new();
                        if input.read_line(&mut l)? == 0 {
                            return Ok(Line::Eof);
                        }
                        l.trim_end_matches(['\n', '\r']).to_string()
                    }
                };
                println!("{prompt}{l}");
                Ok(Line::Text(l))
            }
        }
    }

    /// The key that answers "next answer?": one key on a terminal (no Enter), a line otherwise.
    fn key(&mut self) -> Key {
        match self {
            Lines::Editor(_) => terminal_key(),
            Lines::Plain { input, back } => {
                let mut l = String::new();
                if input.read_line(&mut l).unwrap_or(0) == 0 {
                    return Key::Stop;
                }
                let l = l.trim_end_matches(['\n', '\r']);
                match l.trim() {
                    ";" | "n" | "r" => Key::Next,
                    "a" => Key::All,
                    "" | "." => {
                        if l.is_empty() || l.trim() == "." {
                            Key::Stop
                        } else {
                            Key::Next
                        }
                    }
                    _ => {
                        *back = Some(l.to_string());
                        Key::Stop
                    }
                }
            }
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

/// One key from the terminal, read with line buffering and echo off for that key only.
fn terminal_key() -> Key {
    use nix::sys::termios::{tcgetattr, tcsetattr, LocalFlags, SetArg, SpecialCharacterIndices};
    let stdin = std::io::stdin();
    let saved = tcgetattr(&stdin).ok();
    if let Some(mut raw) = saved.clone() {
        raw.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO);
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
        _ => Key::Stop,
    }
}

/// The history file: `kenken/history` in the user's data directory.
fn history_file() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("kenken").join("history"))
}

/// Reads one goal, which may span lines, up to its final `.`; `None` at the end of input.
fn read_goal(lines: &mut Lines) -> Result<Option<String>> {
    let mut goal = String::new();
    let mut prompt = "?- ";
    loop {
        let line = match lines.read(prompt)? {
            Line::Text(l) => l,
            Line::Interrupted => {
                goal.clear();
                prompt = "?- ";
                continue;
            }
            Line::Eof => return Ok(None),
        };
        goal.push_str(&line);
        goal.push('\n');
        let t = goal.trim_end();
        if t.is_empty() || (t.ends_with('.') && !t.ends_with("..")) {
            return Ok(Some(goal.trim().to_string()));
        }
        prompt = "|    ";
    }
}

/// `kenken repl`: an interactive top level whose engine runs in a child process, so that
/// Ctrl-C and `timeout` stop a goal and not the session.
pub fn repl(setup: Setup, timeout: Option<f64>) -> Result<i32> {
    // Ctrl-C is for the engine (which it kills); this process goes on.
    let _ = ctrlc::set_handler(|| {});
    let stdin = std::io::stdin();
    let mut lines = if stdin.is_terminal() {
        let mut ed = DefaultEditor::new()?;
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
        Lines::Plain {
            input: stdin.lock(),
            back: None,
        }
    };
    let timeout = timeout.map(|t| Duration::from_secs_f64(t.max(0.0)));
    let mut top = TopProcess::start(setup)?;
    let mut exit = 0;
    while let Some(goal) = read_goal(&mut lines)? {
        if goal.is_empty() {
            continue;
        }
        lines.remember(&goal);
        match top.run(&goal, timeout, &mut |_| lines.key())? {
            Ended::Done(TopResult::Halt(n)) => {
                exit = n;
                break;
            }
            Ended::Done(_) => {}
            Ended::Interrupted => println!("\n% interrupted"),
            Ended::TimedOut => println!("\n% timed out"),
        }
    }
    lines.save();
    Ok(exit)
}
