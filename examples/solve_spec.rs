//! Solves a puzzle written in the spec's Prolog notation with the native solver and draws it.
//!
//! `cargo run --example solve_spec [FILE.pl]` (default: the spec's 6x6, `examples/spec-6x6.pl`).
//!
//! For each puzzle of the file it prints one line (size, cages, status, solutions found, time,
//! search nodes), e.g. `6x6 puzzle, 15 cages: unique (1 solution(s) found in 0.210 ms, 1 search
//! nodes)`, then the puzzle drawn with its solution. A reader checks that the status is `unique`
//! and that the grid is the spec's answer (first row `5 6 3 4 1 2`).

use kenken::engine::{Engine, NativeEngine, Request};
use kenken::format::{self, Notation};
use kenken::render::{render, Style};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::quiet_on_closed_stdout();
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-6x6.pl").into());
    let text = std::fs::read_to_string(&path)?;
    for puzzle in format::read(&text, Notation::Prolog)? {
        let report = NativeEngine.solve(&puzzle, &Request::unique());
        println!(
            "{}x{} puzzle, {} cages: {} ({} solution(s) found in {:.3} ms, {} search nodes)",
            puzzle.size,
            puzzle.size,
            puzzle.cages.len(),
            report.status,
            report.count,
            report.elapsed_ms(),
            report.stats.nodes.unwrap_or(0)
        );
        if let Some(grid) = report.solutions.first() {
            print!("{}", render(&puzzle, Some(grid), Style { ascii: false }));
        }
    }
    Ok(())
}
