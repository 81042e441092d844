//! `kenken query GOAL` and `kenken repl`: Prolog goals against `kenken.pl`, answered the way a
//! Prolog top level answers them.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use anyhow::Result;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use super::bad_input;
use kenken::prolog::{query_in_worker, Answer, Outcome, Session, Status, TextOutcome};

/// How a query ended, as the top level says it, with the exit code `query` returns.
fn ending(status: &Status, shown: usize) -> (Option<String>, i32) {
    match status {
        Status::Complete if shown == 0 => (Some("false.".into()), 1),
        Status::Complete => (None, 0),
        Status::AnswerLimit => (
            Some(format!(
                "% stopped after {} (--limit)",
                super::count_of(shown as u64, "answer")
            )),
            0,
        ),
        Status::InferenceLimit => (Some("% inference limit reached".into()), 3),
        Status::Exception(e) => (Some(format!("   error: {e}")), 1),
    }
}

/// `kenken query`: prints up to `limit` answers, separated by `;`. With a timeout the goal runs
/// in a worker process, killed when the time is up.
pub fn query(goal: String, limit: usize, inferences: u64, timeout: Option<f64>) -> Result<i32> {
    let outcome = match timeout {
        Some(t) => {
            let t = Duration::from_secs_f64(t.max(0.0));
            let Some(outcome) = query_in_worker(&goal, limit, inferences, Some(t))? else {
                println!("% timed out");
                return Ok(3);
            };
            outcome
        }
        // Scryer recurses deeply on big terms: run it on a roomy stack.
        None => std::thread::Builder::new()
            .name("kenken-query".into())
            .stack_size(256 << 20)
            .spawn(move || Session::new().query(&goal, limit, inferences))?
            .join()
            .map_err(|_| anyhow::anyhow!("the query stopped"))?
            .map(TextOutcome::from)?,
    };
    match outcome {
        TextOutcome::SyntaxError(e) => Err(bad_input(format!("syntax error: {e}"))),
        TextOutcome::Answers { answers, status } => {
            let n = answers.len();
            for (i, a) in answers.iter().enumerate() {
                let more = i + 1 < n || status == Status::AnswerLimit;
                println!("{a}{}", if more { "\n;" } else { "." });
            }
            let (line, code) = ending(&status, n);
            if let Some(line) = line {
                println!("{line}");
            }
            Ok(code)
        }
    }
}

/// Where the top level reads its lines: a line editor with history on a terminal, plain standard
/// input otherwise (so that a session can be scripted; the lines read are echoed).
enum Lines {
    Editor(Box<DefaultEditor>),
    Plain(std::io::StdinLock<'static>),
}

impl Lines {
    /// The next line, `None` at the end of input.
    fn read(&mut self, prompt: &str) -> Result<Option<String>> {
        match self {
            Lines::Editor(ed) => match ed.readline(prompt) {
                Ok(l) => Ok(Some(l)),
                Err(ReadlineError::Interrupted) => Ok(Some(String::new())),
                Err(ReadlineError::Eof) => Ok(None),
                Err(e) => Err(e.into()),
            },
            Lines::Plain(input) => {
                let mut l = String::new();
                if input.read_line(&mut l)? == 0 {
                    return Ok(None);
                }
                let l = l.trim_end_matches(['\n', '\r']).to_string();
                println!("{prompt}{l}");
                Ok(Some(l))
            }
        }
    }

    fn remember(&mut self, goal: &str) {
        if let Lines::Editor(ed) = self {
            let _ = ed.add_history_entry(goal);
        }
    }
}

fn history_file() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".kenken_history"))
}

/// Reads one goal, which may span lines, up to its final `.`; `None` at the end of input.
fn read_goal(lines: &mut Lines) -> Result<Option<String>> {
    let mut goal = String::new();
    let mut prompt = "?- ";
    loop {
        let Some(line) = lines.read(prompt)? else {
            return Ok(None);
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

/// `kenken repl`: an interactive top level. After an answer, `;` (or `n`, space) asks for the next
/// one and anything else stops. Answers are fetched in growing batches, re-running the goal when
/// more are wanted, so no choice point is ever left open in the engine.
pub fn repl(inferences: u64) -> Result<i32> {
    // Scryer recurses deeply on big terms: give the engine a roomy stack.
    std::thread::Builder::new()
        .name("kenken-repl".into())
        .stack_size(64 << 20)
        .spawn(move || top_level(inferences))?
        .join()
        .map_err(|_| anyhow::anyhow!("the top level stopped"))?
}

fn top_level(inferences: u64) -> Result<i32> {
    let stdin = std::io::stdin();
    let mut lines = if stdin.is_terminal() {
        let mut ed = DefaultEditor::new()?;
        if let Some(h) = history_file() {
            let _ = ed.load_history(&h);
        }
        println!(
            "kenken.pl is loaded (Scryer Prolog). Goals end with '.'; after an answer, ';' asks \
             for the next one. halt. or Ctrl-D leaves."
        );
        Lines::Editor(Box::new(ed))
    } else {
        Lines::Plain(stdin.lock())
    };
    let mut engine = Session::new();
    while let Some(goal) = read_goal(&mut lines)? {
        if goal.is_empty() {
            continue;
        }
        lines.remember(&goal);
        if goal == "halt." {
            break;
        }
        answer(&mut engine, &mut lines, &goal, inferences)?;
    }
    if let (Lines::Editor(ed), Some(h)) = (&mut lines, history_file()) {
        let _ = ed.save_history(&h);
    }
    Ok(0)
}

/// Shows the answers of `goal` one at a time.
fn answer(engine: &mut Session, lines: &mut Lines, goal: &str, inferences: u64) -> Result<()> {
    let mut shown = 0;
    let mut batch = 8;
    loop {
        let (answers, status): (Vec<Answer>, Status) =
            match engine.query(goal, shown + batch, inferences)? {
                Outcome::SyntaxError(e) => {
                    println!("   syntax error: {e}");
                    return Ok(());
                }
                Outcome::Answers { answers, status } => (answers, status),
            };
        let fresh = answers.len().saturating_sub(shown);
        for (i, a) in answers.iter().enumerate().skip(shown) {
            shown += 1;
            let more = i + 1 < answers.len() || status == Status::AnswerLimit;
            if !more {
                println!("{}.", a.text);
                break;
            }
            // The answer's last line is the prompt, so ';' is typed right after it.
            let (head, last) = a.text.rsplit_once('\n').unwrap_or(("", &a.text));
            if !head.is_empty() {
                println!("{head}");
            }
            std::io::stdout().flush()?;
            let reply = lines.read(&format!("{last} "))?.unwrap_or_default();
            let next = matches!(reply.trim(), ";" | "n" | "r")
                || (!reply.is_empty() && reply.trim().is_empty());
            if !next {
                return Ok(());
            }
        }
        if status != Status::AnswerLimit || fresh == 0 {
            if let (Some(line), _) = ending(&status, shown) {
                if status != Status::AnswerLimit {
                    println!("{line}");
                }
            }
            return Ok(());
        }
        batch *= 2;
    }
}
