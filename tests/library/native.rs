//! The native solver against every shipped puzzle and a brute-force enumeration.

use crate::common;

use std::collections::BTreeSet;

use kenken::native::Solver;
use kenken::puzzle::{Cage, Cell, Grid, Op, Puzzle};
use proptest::prelude::*;

#[test]
fn solves_every_shipped_puzzle() {
    for (name, puzzles) in common::all_files() {
        for (i, e) in puzzles.iter().enumerate() {
            let p = &e.puzzle;
            let s = Solver::new(p).unwrap().solve(None);
            assert!(s.complete, "{name} #{i}");
            let distinct: BTreeSet<&Grid> = s.grids.iter().collect();
            assert_eq!(distinct.len(), s.grids.len(), "{name} #{i}: repeated grids");
            assert!(s.grids.iter().all(|g| p.is_solution(g)), "{name} #{i}");
            if let Some(sol) = &e.expected.solution {
                assert_eq!(s.grids, vec![sol.clone()], "{name} #{i}");
            }
            if let Some(count) = e.expected.count {
                assert_eq!(s.grids.len() as u64, count, "{name} #{i}");
            }
            for known in e.expected.solutions.iter().flatten() {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn native_equals_brute_force(p in common::arb_puzzle(1..=4)) {
        if let Ok(solver) = Solver::new(&p) {
            let grids = solver.solve(None).grids;
            let got: BTreeSet<Grid> = grids.iter().cloned().collect();
            prop_assert_eq!(got.len(), grids.len(), "a grid came twice");
            prop_assert_eq!(&got, &common::brute_force(&p));
            // The iterator, the count and the solve agree, in the same order.
            prop_assert_eq!(solver.solutions().collect::<Vec<_>>(), grids.clone());
            prop_assert_eq!(solver.count(None), (grids.len() as u64, None));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn native_equals_brute_force_5x5(p in common::arb_puzzle(5..=5)) {
        if let Ok(solver) = Solver::new(&p) {
            let got: BTreeSet<Grid> = solver.solve(None).grids.into_iter().collect();
            prop_assert_eq!(got, common::brute_force(&p));
        }
    }
}

#[test]
fn the_iterator_can_stop_anywhere() {
    // The empty 4x4 (one '+' cage over the grid): 576 Latin squares.
    let all: Vec<Cell> = (1..=4)
        .flat_map(|r| (1..=4).map(move |c| Cell::new(r, c)))
        .collect();
    let p = Puzzle::new(4, vec![Cage::new(Op::Add, 40, all)]);
    let solver = Solver::new(&p).unwrap();
    let every: Vec<Grid> = solver.solutions().collect();
    assert_eq!(every.len(), 576);
    for k in [0, 1, 2, 17, 575, 576] {
        let mut it = solver.solutions();
        let first: Vec<Grid> = it.by_ref().take(k).collect();
        assert_eq!(first, every[..k]);
        drop(it);
    }
    let mut it = solver.solutions();
    assert!(it.nth(575).is_some());
    assert!(it.next().is_none() && it.next().is_none());
    assert_eq!(it.stopped(), None);
    assert_eq!(solver.count(Some(10)).0, 10);
    assert!(!solver.solve(Some(3)).complete);
}

#[test]
fn cages_of_more_than_64_cells_do_not_panic() {
    // Regression: an n-ary '-' cage over the whole 9x9 grid (81 values to check at once).
    let all: Vec<Cell> = (1..=9)
        .flat_map(|r| (1..=9).map(move |c| Cell::new(r, c)))
        .collect();
    let p = Puzzle::new(9, vec![Cage::new(Op::Sub, 0, all)]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    let s = Solver::new(&p).unwrap().with_deadline(Some(deadline));
    let mut it = s.solutions();
    assert!(it.next().is_none());
    assert_eq!(it.stopped(), Some(kenken::native::Stop::Deadline));
}

#[test]
fn the_deadline_holds_while_propagating() {
    // Regression: a 64x64 grid cut into 6-cell '+' cages along the rows has cages too big for
    // tables; filtering them by search at the root took seconds past the deadline.
    let n = 64;
    let mut cages = Vec::new();
    for r in 0..n {
        for start in (0..n).step_by(6) {
            let cells: Vec<Cell> = (start..(start + 6).min(n))
                .map(|c| Cell::new(r + 1, c + 1))
                .collect();
            let target = (start..(start + 6).min(n))
                .map(|c| ((r + c) % n + 1) as u64)
                .sum();
            cages.push(Cage::new(Op::Add, target, cells));
        }
    }
    let p = Puzzle::new(n, cages);
    let solver = Solver::new(&p).unwrap();
    let start = std::time::Instant::now();
    let deadline = start + std::time::Duration::from_millis(300);
    let s = solver.with_deadline(Some(deadline)).solve(Some(2));
    // Either it finished in time or it stopped at the deadline, not seconds later.
    assert!(s.timed_out || !s.grids.is_empty());
    let late = start.elapsed().as_secs_f64() - 0.3;
    assert!(late < 3.0, "stopped {late:.1} s after the deadline");
}
