//! The native solver against every shipped puzzle and a brute-force enumeration.

mod common;

use std::collections::BTreeSet;

use kenken::native::Solver;
use kenken::puzzle::{Cage, Cell, Grid, Op, Puzzle};
use proptest::prelude::*;

#[test]
fn solves_every_shipped_puzzle() {
    for (name, puzzles) in common::all_files() {
        for (i, p) in puzzles.iter().enumerate() {
            let s = Solver::new(p).unwrap().solve(None);
            assert!(s.complete, "{name} #{i}");
            let distinct: BTreeSet<&Grid> = s.grids.iter().collect();
            assert_eq!(distinct.len(), s.grids.len(), "{name} #{i}: repeated grids");
            assert!(s.grids.iter().all(|g| p.is_solution(g)), "{name} #{i}");
            if let Some(sol) = &p.solution {
                assert_eq!(s.grids, vec![sol.clone()], "{name} #{i}");
            }
            if let Some(count) = p.count {
                assert_eq!(s.grids.len() as u64, count, "{name} #{i}");
            }
            for known in p.solutions.iter().flatten() {
                assert!(
                    distinct.contains(known),
                    "{name} #{i}: misses a listed solution"
                );
            }
        }
    }
}

#[test]
fn unsolvable_and_huge_puzzles_do_not_panic() {
    // Contradictory givens.
    let p = Puzzle::new(
        2,
        vec![
            Cage::new(Op::Given, 1, vec![Cell::new(1, 1)]),
            Cage::new(Op::Given, 1, vec![Cell::new(1, 2)]),
            Cage::new(Op::Add, 3, vec![Cell::new(2, 1), Cell::new(2, 2)]),
        ],
    );
    assert!(Solver::new(&p).unwrap().solve(None).grids.is_empty());
    // N = 64, each row one '*' cage with the product 64!, which overflows: rejected by validation.
    let rows: Vec<Cage> = (1..=64)
        .map(|r| {
            Cage::new(
                Op::Mul,
                u64::MAX,
                (1..=64).map(|c| Cell::new(r, c)).collect(),
            )
        })
        .collect();
    assert!(Solver::new(&Puzzle::new(64, rows)).is_err());
}

fn brute_force(p: &Puzzle) -> BTreeSet<Grid> {
    let n = p.size;
    let mut out = BTreeSet::new();
    let mut grid = vec![vec![0u32; n]; n];
    fn rec(i: usize, n: usize, g: &mut Grid, p: &Puzzle, out: &mut BTreeSet<Grid>) {
        if i == n * n {
            if p.is_solution(g) {
                out.insert(g.clone());
            }
            return;
        }
        let (r, c) = (i / n, i % n);
        for v in 1..=n as u32 {
            if (0..c).all(|j| g[r][j] != v) && (0..r).all(|j| g[j][c] != v) {
                g[r][c] = v;
                rec(i + 1, n, g, p, out);
            }
        }
        g[r][c] = 0;
    }
    rec(0, n, &mut grid, p, &mut out);
    out
}

fn arb_small_puzzle() -> impl Strategy<Value = Puzzle> {
    (1usize..=4)
        .prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec(0usize..n * n, n * n),
                proptest::collection::vec((0usize..6, 0u64..30), n * n),
            )
        })
        .prop_map(|(n, labels, ops)| {
            let mut cages: Vec<Cage> = Vec::new();
            let mut index = std::collections::BTreeMap::new();
            for (cell, &label) in labels.iter().enumerate() {
                let k = *index.entry(label).or_insert_with(|| {
                    let (o, t) = ops[label];
                    cages.push(Cage::new(
                        [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Unknown, Op::Given][o],
                        t,
                        vec![],
                    ));
                    cages.len() - 1
                });
                cages[k].cells.push(Cell::new(cell / n + 1, cell % n + 1));
            }
            Puzzle::new(n, cages)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn native_equals_brute_force(p in arb_small_puzzle()) {
        if let Ok(solver) = Solver::new(&p) {
            let got: BTreeSet<Grid> = solver.solve(None).grids.into_iter().collect();
            prop_assert_eq!(got, brute_force(&p));
        }
    }
}
