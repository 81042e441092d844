//! Reads a Keen game ID (Simon Tatham's puzzle collection) and draws the puzzle and its solution.
//!
//! `cargo run --example keen_draw [GAME_ID]` (default: a 6x6 extreme puzzle).
//!
//! It prints the game ID, the puzzle drawn (each cage's target and operator in its top-left
//! cell), the native solver's status (`unique:` for the default) and the puzzle drawn again with
//! its solution. A reader checks that each row and column holds 1 to 6 once and that each cage
//! meets its target.

use kenken::engine::{Engine, NativeEngine, Request};
use kenken::format::keen;
use kenken::render::{render, Style};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::quiet_on_closed_stdout();
    let id = std::env::args().nth(1).unwrap_or_else(|| {
        "6dx:a_11aa_a_a_aa_aa_aa__aa_a__b_3ba_,d2d2d2a7m30s4s1a8m12d2a7m60m6m6a8s2s1".into()
    });
    let puzzle = keen::read_id(&id, 1)?;
    println!("Keen game {id}");
    print!("{}", render(&puzzle, None, Style { ascii: false }));
    let report = NativeEngine.solve(&puzzle, &Request::unique());
    println!("\n{}:", report.status);
    if let Some(grid) = report.solutions.first() {
        print!("{}", render(&puzzle, Some(grid), Style { ascii: false }));
    }
    Ok(())
}
