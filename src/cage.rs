//! The cage helper: which multisets of values can a cage hold?
//!
//! Seed 000 lists additive and multiplicative partitions for a cage; here the question is answered
//! exactly for a cage of a given shape: a multiset is listed when its values can be placed in the
//! cage's cells with no repeat in any row or column (so multiplicative cages include their 1s
//! where the cells allow). The tuples come from the native solver's own enumeration.

use std::collections::BTreeSet;

use crate::puzzle::{Cell, Op, MAX_SIZE};

/// A cage question that cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CageError {
    /// The grid size is not in 1..=`MAX_SIZE`.
    #[error("grid size {0} is out of range 1..{MAX_SIZE}")]
    Size(usize),
    /// A cell lies outside the grid.
    #[error("cell {0} is outside the {1}x{1} grid")]
    Outside(Cell, usize),
    /// A cell is given twice.
    #[error("cell {0} is listed twice")]
    Repeated(Cell),
    /// No cells.
    #[error("a cage needs at least one cell")]
    Empty,
    /// More distinct cells than a line holds.
    #[error("{0} cells cannot share one row or column of a {1}x{1} grid")]
    TooManyDistinct(usize, usize),
    /// An excluded digit is not a value of the grid.
    #[error("excluded digit {0} is not in 1..{1}")]
    Exclude(u32, usize),
}

/// The shape `--distinct` assumes: `k` cells in one row.
pub fn row_shape(k: usize) -> Vec<Cell> {
    (1..=k).map(|c| Cell::new(1, c)).collect()
}

/// Every sorted multiset of values in `1..=n`, none in `exclude`, that meets `target` under `op`
/// and can be placed in `cells` with no repeat in a row or column. Sorted, each listed once.
pub fn combinations(
    n: usize,
    op: Op,
    target: u64,
    cells: &[Cell],
    exclude: &[u32],
) -> Result<Vec<Vec<u32>>, CageError> {
    if n == 0 || n > MAX_SIZE {
        return Err(CageError::Size(n));
    }
    if cells.is_empty() {
        return Err(CageError::Empty);
    }
    let mut seen = BTreeSet::new();
    for &c in cells {
        if c.row == 0 || c.col == 0 || c.row > n || c.col > n {
            return Err(CageError::Outside(c, n));
        }
        if !seen.insert(c) {
            return Err(CageError::Repeated(c));
        }
    }
    let full: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut allowed = full;
    for &d in exclude {
        if d == 0 || d as usize > n {
            return Err(CageError::Exclude(d, n));
        }
        allowed &= !(1u64 << (d - 1));
    }
    let mut out = BTreeSet::new();
    crate::native::for_each_cage_tuple(n, op, target, cells, allowed, |vals| {
        let mut m: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
        m.sort_unstable();
        out.insert(m);
    });
    Ok(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::text::parse_cell;

    #[test]
    fn seed_000_sum_example() {
        let got = combinations(9, Op::Add, 20, &row_shape(4), &[8, 9]).unwrap();
        assert_eq!(got, vec![vec![2, 5, 6, 7], vec![3, 4, 6, 7]]);
    }

    #[test]
    fn seed_000_product_example_square_vs_distinct() {
        let square: Vec<Cell> = ["A1", "A2", "B1", "B2"]
            .iter()
            .map(|s| parse_cell(s).unwrap())
            .collect();
        let shaped = combinations(9, Op::Mul, 72, &square, &[]).unwrap();
        let distinct = combinations(9, Op::Mul, 72, &row_shape(4), &[]).unwrap();
        // The 2x2 shape allows each value twice (on a diagonal), never three times.
        assert!(shaped.contains(&vec![1, 1, 8, 9]) && !shaped.contains(&vec![2, 2, 2, 9]));
        assert!(shaped.contains(&vec![2, 2, 3, 6]) && !distinct.contains(&vec![2, 2, 3, 6]));
        let with_repeat: Vec<&Vec<u32>> = shaped
            .iter()
            .filter(|m| m.windows(2).any(|w| w[0] == w[1]))
            .collect();
        let without: Vec<&Vec<u32>> = shaped
            .iter()
            .filter(|m| m.windows(2).all(|w| w[0] != w[1]))
            .collect();
        assert_eq!(without, distinct.iter().collect::<Vec<_>>());
        assert!(!with_repeat.is_empty());
    }

    #[test]
    fn errors() {
        assert_eq!(
            combinations(4, Op::Add, 3, &[Cell::new(5, 1)], &[]),
            Err(CageError::Outside(Cell::new(5, 1), 4))
        );
        assert_eq!(combinations(4, Op::Add, 3, &[], &[]), Err(CageError::Empty));
        assert_eq!(
            combinations(4, Op::Add, 3, &row_shape(2), &[7]),
            Err(CageError::Exclude(7, 4))
        );
    }
}
