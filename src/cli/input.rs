//! The puzzle file a subcommand reads (`FILE` or `-`, `--from`), read into puzzles with messages
//! that name the file, and the checks every solving subcommand makes of them.

use std::io::{IsTerminal, Read};

use anyhow::{Context, Result};

use super::args::OneOf;
use super::bad_input;
use kenken::format::{self, Entry, Notation};
use kenken::puzzle::Puzzle;

/// The notation an input is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputNotation {
    /// Detected from the text.
    Auto,
    /// The one given.
    Given(Notation),
}

impl InputNotation {
    /// Its name on the command line: `auto`, or the notation's.
    fn name(self) -> &'static str {
        match self {
            InputNotation::Auto => "auto",
            InputNotation::Given(n) => n.name(),
        }
    }

    /// The parser of `--from`: `auto` or a notation's name.
    fn parser() -> OneOf<InputNotation> {
        let all: Vec<InputNotation> = std::iter::once(InputNotation::Auto)
            .chain(Notation::ALL.map(InputNotation::Given))
            .collect();
        OneOf::named("notation", &all, InputNotation::name)
    }
}

/// A puzzle file and its notation.
#[derive(clap::Args, Clone)]
pub struct Input {
    /// Puzzle file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Notation of the input (default: detected from the text).
    #[arg(long, default_value = "auto", value_parser = InputNotation::parser())]
    from: InputNotation,
}

impl Input {
    /// The file `file` (`-`: standard input), its notation detected.
    pub fn file(file: &str) -> Input {
        Input {
            file: file.to_string(),
            from: InputNotation::Auto,
        }
    }
}

/// Reads the puzzles of `input`, with what the file expects of them; errors name the file.
pub fn read_input(input: &Input) -> Result<Vec<Entry>> {
    let (name, each) = read_input_each(input)?;
    each.into_iter()
        .collect::<Result<Vec<Entry>, _>>()
        .map_err(|e| bad_input(format!("{name}: {e}")))
}

/// Reads the puzzles of `input` (without the file's expectations).
pub fn read_puzzles(input: &Input) -> Result<Vec<Puzzle>> {
    Ok(read_input(input)?.into_iter().map(|e| e.puzzle).collect())
}

/// Reads the puzzles of `input` each on its own (a puzzle that cannot be read gives its error,
/// the others are still read); also returns the file's name for messages.
pub fn read_input_each(input: &Input) -> Result<(String, Vec<Result<Entry, format::FormatError>>)> {
    let (name, text) = if input.file == "-" {
        if std::io::stdin().is_terminal() {
            eprintln!("kenken: reading puzzles from standard input (end with Ctrl-D)");
        }
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        ("<stdin>".to_string(), s)
    } else {
        let bytes =
            std::fs::read(&input.file).map_err(|e| bad_input(format!("{}: {e}", input.file)))?;
        let s = String::from_utf8(bytes)
            .map_err(|_| bad_input(format!("{}: not UTF-8 text", input.file)))?;
        (input.file.clone(), s)
    };
    let notation = match input.from {
        InputNotation::Auto => format::detect(&text),
        InputNotation::Given(n) => n,
    };
    Ok((name, format::read_each(&text, notation)))
}

/// Fails with every validation error of every puzzle, each prefixed by the puzzle's name.
pub fn require_valid<'a>(puzzles: impl IntoIterator<Item = &'a Puzzle>) -> Result<()> {
    let mut lines = Vec::new();
    for (i, p) in puzzles.into_iter().enumerate() {
        if let Err(e) = p.check() {
            for problem in e.problems {
                lines.push(format!("{}: {problem}", puzzle_name(p, i)));
            }
        }
    }
    if lines.is_empty() {
        Ok(())
    } else {
        Err(bad_input(lines.join("\n")))
    }
}

/// The puzzle's name, or `puzzle K` (1-based).
pub fn puzzle_name(p: &Puzzle, index: usize) -> String {
    p.name
        .clone()
        .unwrap_or_else(|| format!("puzzle {}", index + 1))
}
