//! Random puzzles for benchmarks at sizes no shipped file has: a uniformly random Latin square
//! (Jacobson–Matthews), cut into random connected cages of one to four cells, each given an
//! operator its values meet. The puzzle may have other solutions than the square it was cut from
//! (uniqueness is not sought).
//!
//! The distribution, fixed so that the same seed gives the same puzzles on every machine (the
//! stream comes from `rng::Rng`):
//! - **The square**: Jacobson–Matthews' Markov chain on the incidence cube, started from the cyclic
//!   square, run for `n³` steps (at least 100) and then until the cube is proper again.
//! - **The cages**: the cells are visited in a random order; each cell not yet in a cage starts one
//!   whose intended size is drawn as 1 cell with probability 10 %, 2 cells 50 %, 3 cells 25 %,
//!   4 cells 15 %, and which grows one cell at a time into a uniformly chosen free orthogonal
//!   neighbour of its cells (it stays smaller when none is free).
//! - **The operators**: `=` for one cell; uniform over `+ - * /` for two (when `/` does not divide,
//!   uniform over `+ - *` instead); `+` or `*` with probability 1/2 each for three or four.

use crate::puzzle::{neighbours, Cage, Cell, Grid, Op, Puzzle};
use crate::rng::Rng;

/// The random puzzle of side `n` (clamped to 1..=64) made from `seed`, named `random-{n}-{seed}`,
/// with the Latin square it was cut from. The same `n` and seed give the same puzzle.
pub fn puzzle(n: usize, seed: u64) -> (Puzzle, Grid) {
    let n = n.clamp(1, 64);
    let mut rng = Rng::new(seed ^ (n as u64).rotate_right(8));
    let grid = latin_square(n, &mut rng);
    let mut owner = vec![usize::MAX; n * n];
    let mut order: Vec<usize> = (0..n * n).collect();
    rng.shuffle(&mut order);
    let mut cages = Vec::new();
    let mut free = Vec::new();
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
            free.clear();
            for &i in &cells {
                for j in neighbours(n, i) {
                    if owner[j] == usize::MAX && !free.contains(&j) {
                        free.push(j);
                    }
                }
            }
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

/// `count` random puzzles of side `n`: puzzle `i` is [`puzzle`]`(n, seed + i)` (wrapping), so each
/// one can be made again alone from the seed in its name.
pub fn puzzles(n: usize, seed: u64, count: usize) -> Vec<(Puzzle, Grid)> {
    (0..count as u64)
        .map(|i| puzzle(n, seed.wrapping_add(i)))
        .collect()
}

/// A uniformly random Latin square of side `n` (values `1..=n`), by Jacobson and Matthews' chain.
fn latin_square(n: usize, rng: &mut Rng) -> Grid {
    let mut cube = Cube::cyclic(n);
    let steps = (n * n * n).max(100);
    let mut step = 0;
    while step < steps || cube.improper.is_some() {
        cube.step(rng);
        step += 1;
    }
    (0..n)
        .map(|r| {
            (0..n)
                .map(|c| {
                    let s = (0..n).find(|&s| cube.at(r, c, s) == 1).unwrap_or(0);
                    s as u32 + 1
                })
                .collect()
        })
        .collect()
}

/// The incidence cube of a (possibly improper) Latin square: entry `(r, c, s)` is 1 when cell
/// `(r, c)` holds symbol `s`; an improper cube has one entry -1, with the line sums still 1.
struct Cube {
    n: usize,
    m: Vec<i8>,
    improper: Option<(usize, usize, usize)>,
}

impl Cube {
    fn cyclic(n: usize) -> Cube {
        let mut m = vec![0; n * n * n];
        for r in 0..n {
            for c in 0..n {
                m[(r * n + c) * n + (r + c) % n] = 1;
            }
        }
        Cube {
            n,
            m,
            improper: None,
        }
    }

    fn at(&self, r: usize, c: usize, s: usize) -> i8 {
        self.m[(r * self.n + c) * self.n + s]
    }

    fn add(&mut self, r: usize, c: usize, s: usize, d: i8) {
        self.m[(r * self.n + c) * self.n + s] += d;
    }

    /// The indices `i` where `f(i)` is 1: one in a proper line, two in the improper cell's lines.
    fn ones(n: usize, f: impl Fn(usize) -> i8) -> ([usize; 2], usize) {
        let mut out = [0; 2];
        let mut k = 0;
        for i in 0..n {
            if f(i) == 1 && k < 2 {
                out[k] = i;
                k += 1;
            }
        }
        (out, k)
    }

    /// One move of the chain.
    fn step(&mut self, rng: &mut Rng) {
        let n = self.n;
        if n < 2 {
            return;
        }
        let (r, c, s) = match self.improper {
            Some(cell) => cell,
            None => {
                // A uniform zero entry: any cell, any symbol but its own.
                let (r, c) = (rng.index(n), rng.index(n));
                let own = (0..n).find(|&s| self.at(r, c, s) == 1).unwrap_or(0);
                let s = (own + 1 + rng.index(n - 1)) % n;
                (r, c, s)
            }
        };
        let pick = |(v, k): ([usize; 2], usize), rng: &mut Rng| v[rng.index(k.max(1))];
        let r2 = pick(Self::ones(n, |x| self.at(x, c, s)), rng);
        let c2 = pick(Self::ones(n, |y| self.at(r, y, s)), rng);
        let s2 = pick(Self::ones(n, |z| self.at(r, c, z)), rng);
        self.add(r, c, s, 1);
        self.add(r, c2, s2, 1);
        self.add(r2, c, s2, 1);
        self.add(r2, c2, s, 1);
        self.add(r, c, s2, -1);
        self.add(r, c2, s, -1);
        self.add(r2, c, s, -1);
        self.add(r2, c2, s2, -1);
        self.improper = (self.at(r2, c2, s2) == -1).then_some((r2, c2, s2));
    }
}

/// A cage over `cells` with an operator its values in `grid` meet.
fn cage(grid: &Grid, n: usize, cells: Vec<usize>, rng: &mut Rng) -> Cage {
    let values: Vec<u64> = cells.iter().map(|&i| grid[i / n][i % n] as u64).collect();
    let cells: Vec<Cell> = cells
        .iter()
        .map(|&i| Cell::new(i / n + 1, i % n + 1))
        .collect();
    let op = match cells.len() {
        1 => return Cage::new(Op::Given, values[0], cells),
        2 => {
            let op = *rng
                .choose(&[Op::Add, Op::Sub, Op::Mul, Op::Div])
                .unwrap_or(&Op::Add);
            if op == Op::Div && Op::Div.apply(&values).is_none() {
                *rng.choose(&[Op::Add, Op::Sub, Op::Mul]).unwrap_or(&Op::Add)
            } else {
                op
            }
        }
        _ => *rng.choose(&[Op::Add, Op::Mul]).unwrap_or(&Op::Add),
    };
    // Every choice above applies (products of four values up to 64 fit in a u64).
    let target = op
        .apply(&values)
        .unwrap_or_else(|| values.iter().sum::<u64>());
    Cage::new(op, target, cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_latin(g: &Grid, n: usize) -> bool {
        let full: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        (0..n).all(|i| {
            let row = g[i].iter().fold(0u64, |a, &v| a | 1 << (v - 1));
            let col = (0..n).fold(0u64, |a, r| a | 1 << (g[r][i] - 1));
            g[i].len() == n && row == full && col == full
        })
    }

    #[test]
    fn random_puzzles_are_valid_and_solved_by_their_grid() {
        for n in [1, 2, 3, 5, 9, 12, 16, 25, 64] {
            for seed in 0..2 {
                let (p, g) = puzzle(n, seed);
                assert!(p.check().is_ok(), "{n}/{seed}: {:?}", p.check());
                assert!(is_latin(&g, n), "{n}/{seed}");
                assert!(p.is_solution(&g));
                assert_eq!((p.clone(), g.clone()), puzzle(n, seed));
                assert_eq!(p.name.as_deref(), Some(&*format!("random-{n}-{seed}")));
                assert!(p.cages.iter().all(|c| (1..=4).contains(&c.cells.len())));
            }
        }
        let many = puzzles(7, 40, 3);
        assert_eq!(many.len(), 3);
        assert_eq!(many[2], puzzle(7, 42));
    }

    #[test]
    fn latin_squares_of_order_3_are_all_reached() {
        // There are 12 Latin squares of order 3; a uniform sampler reaches each about as often.
        let mut counts = std::collections::BTreeMap::new();
        let mut rng = Rng::new(3);
        for _ in 0..1200 {
            *counts.entry(latin_square(3, &mut rng)).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 12);
        assert!(
            counts.values().all(|&c| (50..150).contains(&c)),
            "{counts:?}"
        );
    }
}
