//! `kenken repl`: its arguments and its `run`; the top level itself is in `toplevel.rs`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::args::seconds;
use crate::cli::exit_code;
use kenken::prolog::toplevel::Setup;

/// The arguments of `kenken repl`.
#[derive(clap::Args)]
pub struct Args {
    /// Prolog files to consult at the start.
    files: Vec<PathBuf>,
    /// Start without kenken.pl (only Scryer's builtins and the top level's commands).
    #[arg(long)]
    no_kenken: bool,
    /// Wall-clock bound on each goal, in seconds (the goal is stopped as by Ctrl-C).
    #[arg(long, value_parser = seconds)]
    timeout: Option<f64>,
    /// The memory the Prolog engine may take (e.g. 2G, 512M); past it the goal stops with a
    /// resource error, and the session goes on with its state (as after Ctrl-C).
    #[arg(long, default_value = "2G", value_parser = kenken::judge::parse_size)]
    memory: u64,
}

/// Runs the session until end of input or `halt.`; the exit code is `halt(N)`'s N, else 0.
pub fn run(args: Args) -> Result<ExitCode> {
    let setup = Setup {
        no_kenken: args.no_kenken,
        consult: args.files,
        memory: Some(args.memory),
    };
    Ok(exit_code(crate::cli::toplevel::repl(setup, args.timeout)?))
}
