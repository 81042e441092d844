//! `kenken show`: draw puzzles (and their solution, when the file gives one), or each cell's
//! candidates after the cage and row/column deductions.

use std::process::ExitCode;

use anyhow::Result;

use super::input::{puzzle_name, read_input, require_valid, Input};
use super::{exit_code, EXIT_FAILED};
use kenken::format::Entry;
use kenken::puzzle::Puzzle;
use kenken::render::{render, render_text, Style};

/// The arguments of `kenken show`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// ASCII instead of box-drawing characters.
    #[arg(long)]
    ascii: bool,
    /// Draw each cell's candidates after the cage and row/column deductions.
    #[arg(long)]
    candidates: bool,
}

/// Draws each puzzle; exit code 1 when `--candidates` finds a puzzle without a solution.
pub fn run(args: Args) -> Result<ExitCode> {
    let entries = read_input(&args.input)?;
    if args.candidates {
        require_valid(entries.iter().map(|e| &e.puzzle))?;
    }
    let style = Style { ascii: args.ascii };
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
        if !args.candidates {
            print!("{}", render(p, expected.solution.as_ref(), style));
            continue;
        }
        match candidate_texts(p)? {
            None => {
                println!("no solution: the cage and row/column deductions contradict");
                code = EXIT_FAILED;
            }
            Some(texts) => print!("{}", render_text(p, Some(&texts), style)),
        }
    }
    Ok(exit_code(code))
}

/// Each cell's candidates as digits (comma-separated from 10x10 on), row by row; `None` when
/// the deductions leave a cell without any.
fn candidate_texts(p: &Puzzle) -> Result<Option<Vec<Vec<String>>>> {
    let Some(doms) = kenken::native::Solver::new(p)?.candidates() else {
        return Ok(None);
    };
    Ok(Some(
        doms.chunks(p.size)
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
            .collect(),
    ))
}
