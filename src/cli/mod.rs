//! The command line: argument parsing (clap derive) and one small function per subcommand.
//!
//! Exit codes: 0 solved (or valid), 1 no solution, 2 bad input or usage, 3 a limit was reached.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use kenken::format::{self, Entry, Notation};
use kenken::puzzle::{Puzzle, Severity};
use kenken::render::{render, Style};

mod bench;
mod cage;
mod generate;
mod grade;
mod hint;
mod judge;
mod query;
mod solve;

/// Exit code: bad input or usage.
pub const EXIT_BAD_INPUT: i32 = 2;

#[derive(Parser)]
#[command(
    name = "kenken",
    version,
    about = "KenKen toolkit: Prolog (kenken/3, plain_kenken/3) and native solvers"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
pub struct Input {
    /// Puzzle file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Notation of the input (default: detected from the text).
    #[arg(long, default_value = "auto")]
    from: String,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every puzzle in a file.
    Solve(solve::SolveArgs),
    /// Validate puzzles and list every problem found.
    Check {
        #[command(flatten)]
        input: Input,
    },
    /// Draw puzzles (and their solution, when the file gives one).
    Show {
        #[command(flatten)]
        input: Input,
        /// ASCII instead of box-drawing characters.
        #[arg(long)]
        ascii: bool,
        /// Draw each cell's candidates after the cage and row/column deductions.
        #[arg(long)]
        candidates: bool,
    },
    /// List the value combinations a cage can hold.
    Cage(cage::CageArgs),
    /// Write puzzles in another notation.
    Convert {
        #[command(flatten)]
        input: Input,
        /// Target notation: prolog, text, keen or json.
        #[arg(long)]
        to: Notation,
    },
    /// An interactive Prolog top level with kenken.pl loaded.
    ///
    /// After an answer, ';' or space asks the running goal for the next one, 'a' for all the
    /// rest, Enter or '.' stops. Goals may span lines (they end with '. '); history is kept in
    /// the user's data directory; 'help.' lists the commands. Ctrl-C (or --timeout) stops the
    /// running goal, not the session: the files consulted and every clause of every dynamic
    /// predicate, as they were after the last goal that ended, survive it (the engine is
    /// restarted and given them back); other global state (flags, operators, bb_put/2 values)
    /// does not.
    Repl {
        /// Prolog files to consult at the start.
        files: Vec<PathBuf>,
        /// Start without kenken.pl (only Scryer's builtins and the top level's commands).
        #[arg(long)]
        no_kenken: bool,
        /// Wall-clock bound on each goal, in seconds (the goal is stopped as by Ctrl-C).
        #[arg(long, value_parser = seconds)]
        timeout: Option<f64>,
    },
    /// Run the engines side by side on puzzle files and compare their times.
    Bench(bench::BenchArgs),
    /// Run a Prolog goal against kenken.pl and print the answers as a Prolog top level does.
    ///
    /// Every answer is printed, separated by ' ;', then 'false.' when the goal has no more.
    /// Exit code: 0 answered, 1 false, 2 error (syntax error, uncaught exception), 3 the
    /// --limit or the --timeout reached; halt(N) exits with N.
    Query {
        /// The goal, e.g. 'kenken(2, [], T).'
        goal: String,
        /// Print at most this many answers.
        #[arg(long, default_value_t = 10, value_parser = at_least_one)]
        limit: usize,
        /// A Prolog file to consult first (repeatable).
        #[arg(long = "consult", value_name = "FILE")]
        consult: Vec<PathBuf>,
        /// Start without kenken.pl (only Scryer's builtins).
        #[arg(long)]
        no_kenken: bool,
        /// Wall-clock bound in seconds.
        #[arg(long, value_parser = seconds)]
        timeout: Option<f64>,
    },
    /// Generate puzzles with exactly one solution, graded on Keen's scale.
    Generate(generate::GenerateArgs),
    /// Grade puzzles on Keen's scale by the deduction rules they need.
    Grade(grade::GradeArgs),
    /// The next deduction in words, or every step to the solution.
    Hint(hint::HintArgs),
    /// Check anyone's kenken.pl (GNU Prolog dialect too) against the spec and the native
    /// solver.
    ///
    /// The file is loaded in a Prolog engine of its own (not with our kenken.pl). Each case
    /// runs in a killable process under --timeout and is compared with every answer the native
    /// solver finds: the set (missing and extra grids), duplicates, the spec's order (row by
    /// row, smallest first) and the count. Verdicts: pass, wrong, order, duplicate, timeout,
    /// skipped, error, halted, crashed. Exit code: 0 every case passes, 1 a case fails, 2 the
    /// file cannot be loaded (its syntax errors are listed by line) or usage, 3 only timeouts.
    Judge(judge::JudgeArgs),
}

/// `n` and the noun, singular or plural as `n` asks: `1 solution`, `2 solutions`.
pub(crate) fn count_of(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Argument parser: a whole number of at least 1.
pub(crate) fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}' is not a whole number of at least 1")),
    }
}

/// Argument parser: a number of threads, 1 to [`kenken::native::MAX_THREADS`].
pub(crate) fn threads(s: &str) -> Result<usize, String> {
    let max = kenken::native::MAX_THREADS;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from 1 to {max}")),
    }
}

/// Argument parser: a positive, finite number of seconds.
pub(crate) fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t.is_finite() && t < 1e9 => Ok(t),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

/// An error that carries its exit code.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    pub code: i32,
    pub message: String,
}

pub(crate) fn bad_input(message: String) -> anyhow::Error {
    Exit {
        code: EXIT_BAD_INPUT,
        message,
    }
    .into()
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
        let path = PathBuf::from(&input.file);
        let bytes = std::fs::read(&path).map_err(|e| bad_input(format!("{}: {e}", input.file)))?;
        let s = String::from_utf8(bytes)
            .map_err(|_| bad_input(format!("{}: not UTF-8 text", input.file)))?;
        (input.file.clone(), s)
    };
    let notation = if input.from == "auto" {
        format::detect(&text)
    } else {
        input
            .from
            .parse::<Notation>()
            .map_err(|e| bad_input(format!("--from: {e}")))?
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

/// Runs the command line; returns the exit code.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Check { input } => check(&input),
        Command::Show {
            input,
            ascii,
            candidates,
        } => show(&input, ascii, candidates),
        Command::Cage(args) => cage::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Query {
            goal,
            limit,
            consult,
            no_kenken,
            timeout,
        } => query::query(
            &goal,
            limit,
            kenken::prolog::toplevel::Setup { no_kenken, consult },
            timeout,
        ),
        Command::Repl {
            files,
            no_kenken,
            timeout,
        } => query::repl(
            kenken::prolog::toplevel::Setup {
                no_kenken,
                consult: files,
            },
            timeout,
        ),
        Command::Convert { input, to } => {
            let entries = read_input(&input)?;
            let out = format::write_entries(&entries, to).map_err(|e| bad_input(e.to_string()))?;
            print!("{out}");
            Ok(0)
        }
        Command::Generate(args) => generate::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Hint(args) => hint::run(args),
        Command::Judge(args) => judge::run(args),
    }
}

fn show(input: &Input, ascii: bool, candidates: bool) -> Result<i32> {
    let entries = read_input(input)?;
    if candidates {
        require_valid(entries.iter().map(|e| &e.puzzle))?;
    }
    let mut code = 0;
    for (
        i,
        Entry {
            puzzle: p,
            expected,
            ..
        },
    ) in entries.iter().enumerate()
    {
        if entries.len() > 1 {
            println!("{}", puzzle_name(p, i));
        }
        let style = Style { ascii };
        if !candidates {
            print!("{}", render(p, expected.solution.as_ref(), style));
            continue;
        }
        match kenken::native::Solver::new(p)?.candidates() {
            None => {
                println!("no solution: the cage and row/column deductions contradict");
                code = 1;
            }
            Some(doms) => {
                let texts: Vec<Vec<String>> = doms
                    .chunks(p.size)
                    .map(|row| {
                        row.iter()
                            .map(|&d| {
                                let digits: Vec<String> = (1..=p.size)
                                    .filter(|v| d >> (v - 1) & 1 == 1)
                                    .map(|v| v.to_string())
                                    .collect();
                                digits.join(if p.size > 9 { "," } else { "" })
                            })
                            .collect()
                    })
                    .collect();
                print!("{}", kenken::render::render_text(p, Some(&texts), style));
            }
        }
    }
    Ok(code)
}

fn check(input: &Input) -> Result<i32> {
    let (file, each) = read_input_each(input)?;
    let mut errors = 0;
    for (i, entry) in each.iter().enumerate() {
        let Entry {
            puzzle: p,
            expected,
            ..
        } = match entry {
            Ok(e) => e,
            Err(e) => {
                errors += 1;
                println!("puzzle {}: error: {file}: {e}", i + 1);
                continue;
            }
        };
        let name = puzzle_name(p, i);
        let mut lines: Vec<String> = Vec::new();
        let problems = p.validate();
        let valid = !problems.iter().any(|x| x.severity == Severity::Error);
        errors += problems.len()
            - problems
                .iter()
                .filter(|x| x.severity == Severity::Warning)
                .count();
        lines.extend(problems.iter().map(ToString::to_string));
        // The file's own answers must be solutions of a valid puzzle.
        let given = expected.solution.iter().map(|g| (None, g));
        let listed = expected.solutions.iter().flatten().enumerate();
        for (k, grid) in given.chain(listed.map(|(k, g)| (Some(k + 1), g))) {
            let which = k.map_or_else(|| "solution".to_string(), |k| format!("solutions[{k}]"));
            let problems = if valid {
                p.grid_problems(grid)
            } else {
                Vec::new()
            };
            for problem in problems {
                errors += 1;
                lines.push(format!("error: the file's {which} is wrong: {problem}"));
            }
        }
        if lines.is_empty() {
            println!(
                "{name}: ok ({}x{}, {})",
                p.size,
                p.size,
                count_of(p.cages.len() as u64, "cage")
            );
        }
        for line in lines {
            println!("{name}: {line}");
        }
    }
    Ok(if errors > 0 { EXIT_BAD_INPUT } else { 0 })
}
