//! `kenken convert`: write puzzles in another notation.

use std::process::ExitCode;

use anyhow::Result;

use super::args::notation;
use super::input::{read_input, Input};
use super::{bad_input, exit_code};
use kenken::format::{self, Notation};

/// The arguments of `kenken convert`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Target notation.
    #[arg(long, value_parser = notation())]
    to: Notation,
}

/// Prints every puzzle of the input (with what the file expects of it) in `--to`'s notation.
pub fn run(args: Args) -> Result<ExitCode> {
    let entries = read_input(&args.input)?;
    let out = format::write_entries(&entries, args.to).map_err(|e| bad_input(e.to_string()))?;
    print!("{out}");
    Ok(exit_code(0))
}
