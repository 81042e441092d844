//! The command line: argument parsing (clap derive) and one small function per subcommand.
//!
//! Exit codes: 0 solved (or valid), 1 no solution, 2 bad input or usage, 3 a limit was reached.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use kenken::format::{self, Notation};
use kenken::puzzle::{Puzzle, Severity};
use kenken::render::{render, Style};

mod bench;
mod cage;
mod generate;
mod grade;
mod hint;
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
    /// An interactive Prolog top level with kenken.pl loaded (line editing, history; `;` for the
    /// next answer).
    Repl {
        /// Bound on inferences per query.
        #[arg(long, default_value_t = kenken::prolog::DEFAULT_INFERENCE_LIMIT)]
        inferences: u64,
    },
    /// Run the engines side by side on puzzle files and compare their times.
    Bench(bench::BenchArgs),
    /// Serve Prolog solves on standard input (used by `bench` and `solve`).
    #[command(hide = true)]
    Worker {
        /// fd or plain.
        engine: kenken::bench::EngineKind,
    },
    /// Run a Prolog goal against kenken.pl and print the answers as a Prolog top level does.
    Query {
        /// The goal, e.g. 'kenken(2, [], T).'
        goal: String,
        /// Print at most this many answers.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Bound on inferences per answer.
        #[arg(long, default_value_t = kenken::prolog::DEFAULT_INFERENCE_LIMIT)]
        inferences: u64,
        /// Wall-clock bound in seconds.
        #[arg(long)]
        timeout: Option<f64>,
    },
    /// Generate puzzles with exactly one solution, graded on Keen's scale.
    Generate(generate::GenerateArgs),
    /// Grade puzzles on Keen's scale by the deduction rules they need.
    Grade(grade::GradeArgs),
    /// The next deduction in words, or every step to the solution.
    Hint(hint::HintArgs),
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

/// Reads the puzzles of `input`; errors name the file.
pub fn read_input(input: &Input) -> Result<Vec<Puzzle>> {
    let (name, text) = if input.file == "-" {
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
    format::read(&text, notation).map_err(|e| bad_input(format!("{name}: {e}")))
}

/// Fails with every validation error of every puzzle, each prefixed by the puzzle's name.
pub fn require_valid(puzzles: &[Puzzle]) -> Result<()> {
    let mut lines = Vec::new();
    for (i, p) in puzzles.iter().enumerate() {
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
        Command::Worker { engine } => bench::worker(engine),
        Command::Query {
            goal,
            limit,
            inferences,
            timeout,
        } => query::query(goal, limit, inferences, timeout),
        Command::Repl { inferences } => query::repl(inferences),
        Command::Convert { input, to } => {
            let puzzles = read_input(&input)?;
            let out = format::write(&puzzles, to).map_err(|e| bad_input(e.to_string()))?;
            print!("{out}");
            Ok(0)
        }
        Command::Generate(args) => generate::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Hint(args) => hint::run(args),
    }
}

fn show(input: &Input, ascii: bool, candidates: bool) -> Result<i32> {
    let puzzles = read_input(input)?;
    if candidates {
        require_valid(&puzzles)?;
    }
    let mut code = 0;
    for (i, p) in puzzles.iter().enumerate() {
        if puzzles.len() > 1 {
            println!("{}", puzzle_name(p, i));
        }
        let style = Style { ascii };
        if !candidates {
            print!("{}", render(p, p.solution.as_ref(), style));
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
    let puzzles = read_input(input)?;
    let mut errors = 0;
    for (i, p) in puzzles.iter().enumerate() {
        let problems = p.validate();
        let name = puzzle_name(p, i);
        if problems.is_empty() {
            println!(
                "{name}: ok ({}x{}, {} cages)",
                p.size,
                p.size,
                p.cages.len()
            );
        }
        for problem in &problems {
            if problem.severity == Severity::Error {
                errors += 1;
            }
            println!("{name}: {problem}");
        }
    }
    Ok(if errors > 0 { EXIT_BAD_INPUT } else { 0 })
}
