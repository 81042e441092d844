//! `kenken query GOAL`: its arguments and its `run`; the top level itself (reading goals,
//! printing answers, timeouts) is in `toplevel.rs`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::args::{at_least_one, seconds};
use crate::cli::exit_code;
use kenken::prolog::toplevel::Setup;

/// The arguments of `kenken query`. A bounded query runs this program again with the same
/// options (`--limit`, `--consult`, `--no-kenken`) in a child process: they keep their names.
#[derive(clap::Args)]
pub struct Args {
    /// The goal, e.g. 'kenken(2, [], T).' (one starting with '-', such as '- 1 =:= X.', is a
    /// goal too)
    #[arg(allow_hyphen_values = true)]
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
    /// The memory the Prolog engine may take (e.g. 2G, 512M); past it the goal stops with a
    /// resource error.
    #[arg(long, default_value = "2G", value_parser = kenken::judge::parse_size)]
    memory: u64,
}

/// Runs the goal; the exit code is the goal's (0 answered, 1 false, 2 an error or the memory
/// bound, 3 a limit, `halt(N)`: N).
pub fn run(args: Args) -> Result<ExitCode> {
    let setup = Setup {
        no_kenken: args.no_kenken,
        consult: args.consult,
        memory: Some(args.memory),
    };
    let code = crate::cli::toplevel::query(&args.goal, args.limit, setup, args.timeout)?;
    Ok(exit_code(code))
}
