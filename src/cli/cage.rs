//! `kenken cage`: the value combinations a cage can hold.

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::args::{seconds, TextOrJson};
use super::{bad_input, count_of, exit_code, limit_reached, EXIT_FAILED};
use kenken::cage::{combinations, row_shape};
use kenken::format::text::parse_cell;
use kenken::puzzle::{Cell, Op};

/// The arguments of `kenken cage`.
#[derive(clap::Args)]
pub struct Args {
    /// The cage's target.
    target: u64,
    /// The operator: + - * / (also x, ÷), or ? for any.
    #[arg(value_parser = cage_op)]
    op: Op,
    /// Number of cells (implied by --shape).
    #[arg(long)]
    cells: Option<usize>,
    /// Grid side N.
    #[arg(long)]
    size: usize,
    /// Digits that may not appear, e.g. 8,9.
    #[arg(long, value_delimiter = ',')]
    exclude: Vec<u32>,
    /// All cells share one row or column (no value repeats).
    #[arg(long, conflicts_with = "shape")]
    distinct: bool,
    /// The cage's cells in the line notation (A1 B1 B2 ...): repeats are allowed exactly where
    /// this shape allows them.
    #[arg(long, num_args = 1..)]
    shape: Vec<String>,
    /// Output: text or json.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    output: TextOrJson,
    /// Wall-clock bound in seconds (exit code 3 when it is reached).
    #[arg(long, default_value_t = 60.0, value_parser = seconds)]
    timeout: f64,
}

/// Argument parser: a cage's operator, `+ - * /` (also `x`, `÷`) or `?`.
fn cage_op(s: &str) -> Result<Op, String> {
    match Op::from_symbol(s) {
        Some(op @ (Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Unknown)) => Ok(op),
        _ => Err(format!("unknown operator '{s}': use + - * / or ?")),
    }
}

#[derive(Serialize)]
struct JsonOut<'a> {
    target: u64,
    op: &'a str,
    size: usize,
    cells: Vec<String>,
    exclude: &'a [u32],
    count: usize,
    combinations: &'a [Vec<u32>],
}

/// Lists the combinations; exit code 1 when there are none, 3 when the timeout is reached.
pub fn run(args: Args) -> Result<ExitCode> {
    let op = args.op;
    let (cells, assumption): (Vec<Cell>, &str) = if !args.shape.is_empty() {
        let cells = args
            .shape
            .iter()
            .map(|s| {
                parse_cell(s)
                    .ok_or_else(|| bad_input(format!("--shape: '{s}' is not a cell like A1")))
            })
            .collect::<Result<Vec<_>>>()?;
        if args.cells.is_some_and(|k| k != cells.len()) {
            return Err(bad_input(format!(
                "--cells says {} but --shape lists {} cells",
                args.cells.unwrap_or(0),
                cells.len()
            )));
        }
        (cells, "the given shape")
    } else {
        let k = args
            .cells
            .ok_or_else(|| bad_input("give --cells K or --shape CELL...".into()))?;
        if k > args.size {
            return Err(bad_input(format!(
                "{k} cells cannot share one row of a {0}x{0} grid: give --shape",
                args.size
            )));
        }
        let how = if args.distinct {
            "all cells in one row or column (--distinct)"
        } else {
            "no --shape given: assumed all cells in one row or column (no repeats)"
        };
        (row_shape(k), how)
    };
    // The search tries at most one value per cell in turn: say how much that can be up front.
    let values = args.size.saturating_sub(args.exclude.len()).max(1) as f64;
    let placements = values.powi(cells.len().min(1000) as i32);
    if placements > 1e6 {
        eprintln!(
            "kenken: up to {} placements of {} values in {} cells to try (--timeout {} s)",
            if placements.is_finite() {
                format!("{placements:.1e}")
            } else {
                "more than 1e308".into()
            },
            values,
            cells.len(),
            args.timeout
        );
    }
    // The enumeration cannot be interrupted: it runs on a thread of its own, and the command
    // ends when the timeout passes.
    let (tx, rx) = std::sync::mpsc::channel();
    let (size, target, exclude, shape) =
        (args.size, args.target, args.exclude.clone(), cells.clone());
    std::thread::spawn(move || {
        let _ = tx.send(combinations(size, op, target, &shape, &exclude));
    });
    let combos = match rx.recv_timeout(std::time::Duration::from_secs_f64(args.timeout)) {
        Ok(got) => got.map_err(|e| bad_input(e.to_string()))?,
        Err(_) => {
            return Err(limit_reached(format!(
                "stopped by the timeout ({} s)",
                args.timeout
            )))
        }
    };
    if args.output == TextOrJson::Json {
        println!(
            "{}",
            serde_json::to_string(&JsonOut {
                target: args.target,
                op: op.symbol(),
                size: args.size,
                cells: cells.iter().map(Cell::to_string).collect(),
                exclude: &args.exclude,
                count: combos.len(),
                combinations: &combos,
            })?
        );
    } else {
        for c in &combos {
            println!(
                "{}",
                c.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
            );
        }
        println!(
            "% {}; {}",
            count_of(combos.len() as u64, "combination"),
            assumption
        );
    }
    Ok(exit_code(if combos.is_empty() { EXIT_FAILED } else { 0 }))
}
