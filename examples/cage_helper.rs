//! The cage helper: which values can a cage hold? Lists the combinations for a few cages a
//! solver meets on a 6x6 grid.
//!
//! `cargo run --example cage_helper` (no arguments) prints one line per cage: the cage, then each
//! multiset of values it can hold, e.g. `11+ over two cells of a row (6x6): {5,6}`. A reader
//! checks the arithmetic, and that a value repeats only where two cells of the cage share neither
//! a row nor a column: `{3,4,4,5}` for the 2x2 square (the 4s on a diagonal), `{1,1,6}` for the L,
//! never for a row.

use kenken::cage::{combinations, row_shape};
use kenken::puzzle::{Cell, Op};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::quiet_on_closed_stdout();
    let l_shape = [Cell::new(1, 1), Cell::new(2, 1), Cell::new(2, 2)];
    let cases: [(&str, Op, u64, Vec<Cell>); 4] = [
        ("11+ over two cells of a row", Op::Add, 11, row_shape(2)),
        (
            "240× over a 2x2 square",
            Op::Mul,
            240,
            vec![
                Cell::new(1, 1),
                Cell::new(1, 2),
                Cell::new(2, 1),
                Cell::new(2, 2),
            ],
        ),
        ("6× over an L of three cells", Op::Mul, 6, l_shape.to_vec()),
        ("2÷ over two cells of a row", Op::Div, 2, row_shape(2)),
    ];
    for (what, op, target, cells) in cases {
        let combos = combinations(6, op, target, &cells, &[])?;
        let shown: Vec<String> = combos
            .iter()
            .map(|c| {
                format!(
                    "{{{}}}",
                    c.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                )
            })
            .collect();
        println!("{what} (6x6): {}", shown.join(" "));
    }
    Ok(())
}
