//! The command line: one module per subcommand, each with its `Args` (clap derive) and its
//! `run`, dispatched from [`Command`]; the arguments they share (`args`, `input`); how a result
//! becomes an exit code.
//!
//! Exit codes: 0 solved (or valid), 1 no solution, 2 bad input or usage, 3 a limit was reached.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

mod args;
mod bench;
mod cage;
mod check;
mod convert;
mod generate;
mod grade;
mod hint;
mod input;
mod judge;
mod query;
mod repl;
mod show;
mod solve;
mod toplevel;
mod untrusted;

/// Exit code: no solution (or a case failed).
pub const EXIT_FAILED: i32 = 1;
/// Exit code: bad input or usage.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: a limit (time, inferences) was reached.
pub const EXIT_LIMIT: i32 = 3;

/// The whole command line.
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

/// The subcommands, in the order `--help` lists them. Each variant's doc comment is the
/// subcommand's `--help` text.
#[derive(Subcommand)]
enum Command {
    /// Solve every puzzle in a file.
    Solve(solve::Args),
    /// Validate puzzles and list every problem found.
    Check(check::Args),
    /// Draw puzzles (and their solution, when the file gives one).
    Show(show::Args),
    /// List the value combinations a cage can hold.
    Cage(cage::Args),
    /// Write puzzles in another notation.
    Convert(convert::Args),
    /// An interactive Prolog top level with kenken.pl loaded.
    ///
    /// After an answer, ';' or space asks the running goal for the next one, 'a' for all the
    /// rest, Enter or '.' stops. Goals may span lines (they end with '. '); history is kept in
    /// the user's data directory; 'help.' lists the commands. Ctrl-C (or --timeout) stops the
    /// running goal, not the session: the files consulted and every clause of every dynamic
    /// predicate, as they were after the last goal that ended, survive it (the engine is
    /// restarted and given them back); other global state (flags, operators, bb_put/2 values)
    /// does not.
    Repl(repl::Args),
    /// Run the engines side by side on puzzle files and compare their times.
    Bench(bench::Args),
    /// Run a Prolog goal against kenken.pl and print the answers as a Prolog top level does.
    ///
    /// Every answer is printed, separated by ' ;', then 'false.' when the goal has no more.
    /// Exit code: 0 answered, 1 false, 2 error (syntax error, uncaught exception), 3 the
    /// --limit or the --timeout reached; halt(N) exits with N.
    Query(query::Args),
    /// Generate puzzles with exactly one solution, graded on Keen's scale.
    Generate(generate::Args),
    /// Grade puzzles on Keen's scale by the deduction rules they need.
    Grade(grade::Args),
    /// The next deduction in words, or every step to the solution.
    Hint(hint::Args),
    /// Check anyone's kenken.pl (GNU Prolog dialect too) against the spec and the native
    /// solver.
    ///
    /// The file is loaded in a Prolog engine of its own (not with our kenken.pl). Each case
    /// runs in a killable process under --timeout and is compared with every answer the native
    /// solver finds: the set (missing and extra grids), duplicates, the spec's order (row by
    /// row, smallest first) and the count. Verdicts: pass, wrong, order, duplicate, timeout,
    /// hang (a timeout on a grid up to 3x3: a failure), skipped, error, halted, crashed. When
    /// plain_kenken is judged, a form check reads the file's text (never running it): a
    /// plain_kenken/3 that reaches the FD solver (clpz/clpfd's #= ... label, GNU's fd_*, or
    /// the file's own kenken/3) fails it, and the chain of calls is shown. The standard
    /// suite's random puzzles come from a fresh seed per run, shown in the report (--seed
    /// repeats it). Exit code: 0 every case passes, 1 a case or the form check fails, 2 the
    /// file cannot be loaded (its syntax errors are listed by line) or usage, 3 only timeouts
    /// on grids larger than 3x3.
    Judge(judge::Args),
}

/// Runs the subcommand of the command line; returns its exit code.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Check(args) => check::run(args),
        Command::Show(args) => show::run(args),
        Command::Cage(args) => cage::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Repl(args) => repl::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Query(args) => query::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Hint(args) => hint::run(args),
        Command::Judge(args) => judge::run(args),
    }
}

/// The exit code `code` gives the operating system: its low 8 bits, as `exit(code)` would
/// (`halt(-1)` exits with 255).
pub fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(code.to_le_bytes()[0])
}

/// An error that carries its exit code.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    /// The exit code.
    pub code: i32,
    /// What went wrong, for standard error.
    pub message: String,
}

impl Exit {
    /// The exit code of a run that ended with `e`: the code it carries when it is an [`Exit`]
    /// (with context or not), else 2 (bad input).
    pub fn code_of(e: &anyhow::Error) -> ExitCode {
        exit_code(e.downcast_ref::<Exit>().map_or(EXIT_BAD_INPUT, |x| x.code))
    }
}

/// An error of bad input or usage (exit code 2).
pub fn bad_input(message: String) -> anyhow::Error {
    Exit {
        code: EXIT_BAD_INPUT,
        message,
    }
    .into()
}

/// An error for a limit (time, inferences) reached (exit code 3).
pub fn limit_reached(message: String) -> anyhow::Error {
    Exit {
        code: EXIT_LIMIT,
        message,
    }
    .into()
}

/// `n` and the noun, singular or plural as `n` asks: `1 solution`, `2 solutions`.
pub fn count_of(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
