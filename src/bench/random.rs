//! Random puzzles for benchmarks at sizes no shipped file has: a random Latin square (a cyclic
//! square with its rows, columns and symbols shuffled) cut into random connected cages of one to
//! four cells, each given an operator that its values meet. The answer is kept as `solution`;
//! the puzzle may have other solutions too (uniqueness is not sought).

use crate::rng::Rng;

use crate::puzzle::{Cage, Cell, Grid, Op, Puzzle};

/// The random puzzle of side `n` (1..=64) made from `seed`, and the grid it was cut from; the
/// same seed gives the same puzzle.
pub fn puzzle(n: usize, seed: u64) -> (Puzzle, Grid) {
    let n = n.clamp(1, 64);
    let mut rng = Rng::new(seed ^ (n as u64) << 32);
    let grid = latin_square(n, &mut rng);
    let mut owner = vec![usize::MAX; n * n];
    let mut order: Vec<usize> = (0..n * n).collect();
    rng.shuffle(&mut order);
    let mut cages = Vec::new();
    for start in order {
        if owner[start] != usize::MAX {
            continue;
        }
        let size = match rng.below(20) {
            0..=1 => 1,
            2..=11 => 2,
            12..=16 => 3,
            _ => 4,
        };
        let k = cages.len();
        let mut cells = vec![start];
        owner[start] = k;
        while cells.len() < size {
            let free: Vec<usize> = cells
                .iter()
                .flat_map(|&i| neighbours(i, n))
                .filter(|&j| owner[j] == usize::MAX)
                .collect();
            let Some(&next) = rng.choose(&free) else {
                break;
            };
            owner[next] = k;
            cells.push(next);
        }
        cages.push(cage(&grid, n, cells, &mut rng));
    }
    let mut p = Puzzle::new(n, cages);
    p.name = Some(format!("random-{n}-{seed}"));
    (p, grid)
}

fn latin_square(n: usize, rng: &mut Rng) -> Grid {
    let mut rows: Vec<usize> = (0..n).collect();
    let mut cols: Vec<usize> = (0..n).collect();
    let mut symbols: Vec<u32> = (1..=n as u32).collect();
    rng.shuffle(&mut rows);
    rng.shuffle(&mut cols);
    rng.shuffle(&mut symbols);
    rows.iter()
        .map(|&r| cols.iter().map(|&c| symbols[(r + c) % n]).collect())
        .collect()
}

fn neighbours(i: usize, n: usize) -> impl Iterator<Item = usize> {
    let (r, c) = (i / n, i % n);
    [
        (r > 0).then(|| i - n),
        (r + 1 < n).then(|| i + n),
        (c > 0).then(|| i - 1),
        (c + 1 < n).then(|| i + 1),
    ]
    .into_iter()
    .flatten()
}

/// A cage over `cells` with an operator its values in `grid` meet.
fn cage(grid: &Grid, n: usize, cells: Vec<usize>, rng: &mut Rng) -> Cage {
    let values: Vec<u64> = cells.iter().map(|&i| grid[i / n][i % n] as u64).collect();
    let cells: Vec<Cell> = cells
        .iter()
        .map(|&i| Cell::new(i / n + 1, i % n + 1))
        .collect();
    if cells.len() == 1 {
        return Cage::new(Op::Given, values[0], cells);
    }
    let mut ops = vec![Op::Add, Op::Mul];
    if cells.len() == 2 {
        ops.push(Op::Sub);
        if Op::Div.apply(&values).is_some() {
            ops.extend([Op::Div, Op::Div]);
        }
    }
    loop {
        let op = ops[rng.index(ops.len())];
        if let Some(target) = op.apply(&values) {
            return Cage::new(op, target, cells);
        }
        ops.retain(|&o| o != op);
        if ops.is_empty() {
            return Cage::new(Op::Add, values.iter().sum(), cells);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_puzzles_are_valid_and_solved_by_their_grid() {
        for n in [1, 2, 5, 9, 12, 16, 25] {
            for seed in 0..3 {
                let (p, grid) = puzzle(n, seed);
                assert!(p.check().is_ok(), "{n}/{seed}: {:?}", p.check());
                assert!(p.is_solution(&grid));
                assert_eq!((p, grid), puzzle(n, seed));
            }
        }
    }
}
