//! A test oracle that shares no code with `src/`: random valid puzzles made from random Latin
//! squares, and a brute-force solver with cage arithmetic of its own.
//!
//! Only the puzzle's data types (`Puzzle`, `Cage`, `Op`, `Cell`) come from the crate: every
//! rule (Latin square, each operator's meaning, n-ary `-` and `/`, `?`, free cells) is written
//! here again, plainly, so that a bug in the crate's arithmetic cannot hide in its own tests.
#![allow(dead_code)]

use kenken::puzzle::{Cage, Cell, Op, Puzzle};

/// Whether `values` meet `target` under `op`, written independently of `Op::holds`.
pub fn meets(op: Op, target: u64, values: &[u64]) -> bool {
    let k = values.len();
    let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
    let product: u128 = values
        .iter()
        .fold(1u128, |p, &v| p.saturating_mul(u128::from(v)));
    let largest = values.iter().copied().max().unwrap_or(0);
    let t = u128::from(target);
    match op {
        Op::Given => k == 1 && values[0] == target,
        Op::Add => sum == t,
        Op::Mul => product == t,
        // The largest value minus every other value.
        Op::Sub => {
            k >= 2 && {
                let rest = sum - u128::from(largest);
                u128::from(largest) >= rest && u128::from(largest) - rest == t
            }
        }
        // The largest value divided by every other value, exactly.
        Op::Div => {
            k >= 2 && {
                let rest = product / u128::from(largest.max(1));
                rest != 0 && u128::from(largest) % rest == 0 && u128::from(largest) / rest == t
            }
        }
        Op::Unknown => {
            if k == 1 {
                values[0] == target
            } else {
                [Op::Add, Op::Sub, Op::Mul, Op::Div]
                    .into_iter()
                    .any(|o| meets(o, target, values))
            }
        }
    }
}

/// Every solution of `p` in the spec's order (row by row, lexicographic), at most `cap` of
/// them: every Latin square is tried, each cage checked once its last cell is filled.
pub fn solutions(p: &Puzzle, cap: usize) -> Vec<Vec<Vec<u32>>> {
    let n = p.size;
    // For each cell (row-major), the cages whose last cell (row-major) it is.
    let mut closes: Vec<Vec<usize>> = vec![Vec::new(); n * n];
    for (k, cage) in p.cages.iter().enumerate() {
        if let Some(last) = cage.cells.iter().map(|c| (c.row - 1) * n + c.col - 1).max() {
            closes[last].push(k);
        }
    }
    let mut grid = vec![vec![0u32; n]; n];
    let mut out = Vec::new();
    fill(p, &closes, 0, &mut grid, &mut out, cap);
    out
}

fn fill(
    p: &Puzzle,
    closes: &[Vec<usize>],
    i: usize,
    grid: &mut Vec<Vec<u32>>,
    out: &mut Vec<Vec<Vec<u32>>>,
    cap: usize,
) {
    let n = p.size;
    if out.len() >= cap {
        return;
    }
    if i == n * n {
        out.push(grid.clone());
        return;
    }
    let (r, c) = (i / n, i % n);
    for v in 1..=n as u32 {
        if (0..c).any(|j| grid[r][j] == v) || (0..r).any(|j| grid[j][c] == v) {
            continue;
        }
        grid[r][c] = v;
        let ok = closes[i].iter().all(|&k| {
            let cage = &p.cages[k];
            let values: Vec<u64> = cage
                .cells
                .iter()
                .map(|x| u64::from(grid[x.row - 1][x.col - 1]))
                .collect();
            meets(cage.op, cage.target, &values)
        });
        if ok {
            fill(p, closes, i + 1, grid, out, cap);
        }
    }
    grid[r][c] = 0;
}

/// A small random generator of the tests' own (SplitMix64), so that cases depend on the seed
/// alone.
pub struct Dice(u64);

impl Dice {
    /// Dice for `seed`.
    pub fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    /// A number in `0..n` (n > 0).
    pub fn roll(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// What kinds of cage a generated puzzle may have.
#[derive(Debug, Clone, Copy)]
pub struct Mix {
    /// Largest cage.
    pub max_cage: usize,
    /// Per mille of cages written as `?` (operator unknown).
    pub unknown: usize,
    /// Per mille of cells left in no cage (free).
    pub free: usize,
}

impl Default for Mix {
    fn default() -> Mix {
        Mix {
            max_cage: 4,
            unknown: 150,
            free: 40,
        }
    }
}

/// A random valid puzzle of side `n` made from `seed`, and the Latin square it was cut from:
/// a random Latin square (rows, columns and symbols of a cyclic square shuffled, then random
/// intercalate swaps), cut into random connected cages, each given an operator its values meet
/// (n-ary `-` and `/` where they hold, `=` for one cell, `?` sometimes), some cells left free.
pub fn puzzle(n: usize, seed: u64, mix: Mix) -> (Puzzle, Vec<Vec<u32>>) {
    let mut d = Dice::new(seed);
    let grid = latin(n, &mut d);
    let mut owner = vec![usize::MAX; n * n];
    let mut cages: Vec<Cage> = Vec::new();
    let mut order: Vec<usize> = (0..n * n).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, d.roll(i + 1));
    }
    for start in order {
        if owner[start] != usize::MAX {
            continue;
        }
        if d.roll(1000) < mix.free {
            owner[start] = usize::MAX - 1;
            continue;
        }
        let want = 1 + d.roll(mix.max_cage);
        let k = cages.len();
        let mut cells = vec![start];
        owner[start] = k;
        while cells.len() < want {
            let free: Vec<usize> = cells
                .iter()
                .flat_map(|&i| {
                    let (r, c) = (i / n, i % n);
                    [
                        (r > 0).then(|| i - n),
                        (r + 1 < n).then(|| i + n),
                        (c > 0).then(|| i - 1),
                        (c + 1 < n).then(|| i + 1),
                    ]
                })
                .flatten()
                .filter(|&j| owner[j] == usize::MAX)
                .collect();
            if free.is_empty() {
                break;
            }
            let next = free[d.roll(free.len())];
            owner[next] = k;
            cells.push(next);
        }
        let values: Vec<u64> = cells
            .iter()
            .map(|&i| u64::from(grid[i / n][i % n]))
            .collect();
        let cells: Vec<Cell> = cells
            .iter()
            .map(|&i| Cell::new(i / n + 1, i % n + 1))
            .collect();
        cages.push(cage(&values, cells, &mut d, mix));
    }
    (Puzzle::new(n, cages), grid)
}

fn cage(values: &[u64], cells: Vec<Cell>, d: &mut Dice, mix: Mix) -> Cage {
    if values.len() == 1 {
        return Cage::new(Op::Given, values[0], cells);
    }
    let largest = *values.iter().max().unwrap_or(&0);
    let sum: u64 = values.iter().sum();
    let product: u64 = values.iter().product();
    let mut options = vec![(Op::Add, sum), (Op::Mul, product)];
    if largest * 2 >= sum {
        options.push((Op::Sub, largest - (sum - largest)));
    }
    let rest = product / largest;
    if largest.is_multiple_of(rest) {
        options.push((Op::Div, largest / rest));
    }
    let (op, target) = options[d.roll(options.len())];
    let op = if d.roll(1000) < mix.unknown {
        Op::Unknown
    } else {
        op
    };
    Cage::new(op, target, cells)
}

fn latin(n: usize, d: &mut Dice) -> Vec<Vec<u32>> {
    let perm = |d: &mut Dice| {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, d.roll(i + 1));
        }
        p
    };
    let (rows, cols, syms) = (perm(d), perm(d), perm(d));
    let mut g: Vec<Vec<u32>> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| syms[(rows[r] + cols[c]) % n] as u32 + 1)
                .collect()
        })
        .collect();
    // Intercalate swaps (2x2 subsquares a b / b a turned over) leave the cyclic family.
    for _ in 0..n * n {
        let (r1, r2, c1, c2) = (d.roll(n), d.roll(n), d.roll(n), d.roll(n));
        if r1 != r2 && c1 != c2 && g[r1][c1] == g[r2][c2] && g[r1][c2] == g[r2][c1] {
            let (a, b) = (g[r1][c1], g[r1][c2]);
            g[r1][c1] = b;
            g[r2][c2] = b;
            g[r1][c2] = a;
            g[r2][c1] = a;
        }
    }
    g
}

/// Whether `g` is a Latin square of side `n` (each row and column holds 1..n once).
pub fn is_latin(g: &[Vec<u32>], n: usize) -> bool {
    g.len() == n
        && (0..n).all(|i| {
            let mut row: Vec<u32> = g[i].clone();
            let mut col: Vec<u32> = (0..n).map(|j| g[j][i]).collect();
            row.sort_unstable();
            col.sort_unstable();
            let want: Vec<u32> = (1..=n as u32).collect();
            row == want && col == want
        })
}
