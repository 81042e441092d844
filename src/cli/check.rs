//! `kenken check`: validate puzzles and list every problem found (the file's own solutions too).

use std::process::ExitCode;

use anyhow::Result;

use super::input::{puzzle_name, read_input_each, Input};
use super::{count_of, exit_code, EXIT_BAD_INPUT};
use kenken::format::Entry;
use kenken::puzzle::Severity;

/// The arguments of `kenken check`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
}

/// Prints `NAME: ok (...)` for each sound puzzle, else a line per problem; exit code 2 when
/// any puzzle (or a solution the file gives) has an error.
pub fn run(args: Args) -> Result<ExitCode> {
    let (file, each) = read_input_each(&args.input)?;
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
    Ok(exit_code(if errors > 0 { EXIT_BAD_INPUT } else { 0 }))
}
