//! `kenken hint`: the next deduction in words, or the whole path to the solution.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::args::{at_least_one, seconds};
use super::input::{read_puzzles, require_valid, Input};
use super::{bad_input, exit_code, limit_reached, EXIT_FAILED};
use kenken::logic::{explain, LogicError};
use kenken::native::Solver;
use kenken::puzzle::{Cell, Puzzle};

/// The arguments of `kenken hint`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Which puzzle of the file (1-based).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    index: usize,
    /// Entries already made: a file, or the text itself, of N rows of N entries (digits, or
    /// `.`, `_`, `0` for an empty cell; separated by spaces or commas, or run together up to 9x9).
    #[arg(long)]
    grid: Option<String>,
    /// Print every step from the grid to the solution, one a line.
    #[arg(long)]
    steps: bool,
    /// Wall-clock bound, in seconds (exit 3 when reached).
    #[arg(long, default_value_t = 60.0, value_parser = seconds)]
    timeout: f64,
}

/// Parses a grid of entries for a puzzle of side `n`: row-major, 0 for an empty cell.
fn parse_grid(text: &str, n: usize) -> Result<Vec<u32>, String> {
    let rows: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('%') && !l.starts_with('#'))
        .collect();
    if rows.len() != n {
        return Err(format!("{} rows given, the puzzle has {n}", rows.len()));
    }
    let mut out = Vec::with_capacity(n * n);
    for (r, row) in rows.iter().enumerate() {
        let tokens: Vec<String> = if row.contains(|c: char| c.is_whitespace() || c == ',') {
            row.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            row.chars().map(|c| c.to_string()).collect()
        };
        if tokens.len() != n {
            return Err(format!(
                "row {} has {} entries, the puzzle has {n} columns",
                Cell::row_name(r + 1),
                tokens.len()
            ));
        }
        for (c, t) in tokens.iter().enumerate() {
            let v = match t.as_str() {
                "." | "_" | "-" | "0" => 0,
                t => match t.parse::<u32>() {
                    Ok(v) if (1..=n as u32).contains(&v) => v,
                    _ => {
                        return Err(format!(
                            "{}: '{t}' is not a value from 1 to {n} or an empty mark",
                            Cell::new(r + 1, c + 1)
                        ))
                    }
                },
            };
            out.push(v);
        }
    }
    Ok(out)
}

/// Prints the next deduction (or every step with `--steps`); exit code 1 when the puzzle has
/// no solution or more than one, 3 when the timeout is reached.
pub fn run(args: Args) -> Result<ExitCode> {
    let puzzles = read_puzzles(&args.input)?;
    let Some(p): Option<&Puzzle> = args.index.checked_sub(1).and_then(|i| puzzles.get(i)) else {
        return Err(bad_input(format!(
            "--index {}: the file has {} puzzle(s)",
            args.index,
            puzzles.len()
        )));
    };
    require_valid(std::slice::from_ref(p))?;
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(bad_input(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    let deadline = Instant::now().checked_add(Duration::from_secs_f64(args.timeout.min(1e9)));
    let n = p.size;
    let found = Solver::new(p)?.with_deadline(deadline).solve(Some(2));
    if found.timed_out {
        return Err(limit_reached("time limit reached while solving".into()));
    }
    let solution = match found.grids.len() {
        0 => {
            println!("no solution: there is nothing to hint at");
            return Ok(exit_code(EXIT_FAILED));
        }
        1 => &found.grids[0],
        _ => {
            println!("more than one solution: no deduction can lead to just one");
            return Ok(exit_code(EXIT_FAILED));
        }
    };
    let mut out = std::io::stdout().lock();
    let mut start = vec![0u32; n * n];
    if let Some(g) = &args.grid {
        let text = match std::fs::read_to_string(g) {
            Ok(t) => t,
            Err(_) if !std::path::Path::new(g).exists() => g.clone(),
            Err(e) => return Err(bad_input(format!("--grid {g}: {e}"))),
        };
        start = parse_grid(&text, n).map_err(|e| bad_input(format!("--grid: {e}")))?;
        for (i, v) in start.iter_mut().enumerate() {
            let right = solution[i / n][i % n];
            if *v != 0 && *v != right {
                writeln!(
                    out,
                    "{} = {v} is wrong: it contradicts the solution",
                    Cell::new(i / n + 1, i % n + 1)
                )?;
                *v = 0;
            }
        }
    }
    let steps = match explain(p, solution, &start, (!args.steps).then_some(1), deadline) {
        Ok(s) => s,
        Err(LogicError::Timeout) => {
            return Err(limit_reached("time limit reached while deducing".into()))
        }
        Err(e) => return Err(bad_input(e.to_string())),
    };
    if steps.is_empty() {
        writeln!(out, "the grid is solved")?;
    }
    for s in &steps {
        writeln!(out, "{}", s.text)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_grid;

    #[test]
    fn grids_in_each_layout() {
        assert_eq!(parse_grid("1.\n.2\n", 2).unwrap(), vec![1, 0, 0, 2]);
        assert_eq!(parse_grid("1 _\n0,2\n", 2).unwrap(), vec![1, 0, 0, 2]);
        assert!(parse_grid("13\n..\n", 2).is_err());
        assert!(parse_grid("1.\n", 2).is_err());
    }
}
