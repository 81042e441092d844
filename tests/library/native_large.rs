//! The native solver on large generated grids (12 to 30): every solution it gives is checked by
//! an independent checker written here (its own Latin and cage arithmetic, no code shared with
//! the crate), two solutions given are distinct, and a uniqueness claim agrees with the
//! generator's square being the solution found. Speed is not asserted (see `native_times` and
//! `scripts/cpsat/` for that); a generous deadline only keeps a pathological run bounded, and
//! what was found before it is still checked.

use std::time::{Duration, Instant};

use kenken::native::Solver;
use kenken::random;
use kenken::{Cage, Cell, Grid, Op, Puzzle};

/// Whether `grid` is an `n`x`n` Latin square over `1..=n` meeting every cage of `p`.
fn check(p: &Puzzle, grid: &Grid) -> Result<(), String> {
    let n = p.size;
    if grid.len() != n || grid.iter().any(|row| row.len() != n) {
        return Err("wrong shape".into());
    }
    for i in 0..n {
        let mut in_row = vec![false; n + 1];
        let mut in_col = vec![false; n + 1];
        for (j, row) in grid.iter().enumerate() {
            for (seen, v) in [(&mut in_row, grid[i][j]), (&mut in_col, row[i])] {
                let v = v as usize;
                if !(1..=n).contains(&v) || seen[v] {
                    return Err(format!("line {i}: {v} repeated or out of range"));
                }
                seen[v] = true;
            }
        }
    }
    let mut covered = vec![0u32; n * n];
    for (k, cage) in p.cages.iter().enumerate() {
        let mut vals: Vec<i128> = Vec::new();
        for c in &cage.cells {
            covered[(c.row - 1) * n + c.col - 1] += 1;
            vals.push(i128::from(grid[c.row - 1][c.col - 1]));
        }
        let t = i128::from(cage.target);
        let ok = match (cage.op, vals.as_slice()) {
            (Op::Given, [v]) => *v == t,
            (Op::Add, _) => vals.iter().sum::<i128>() == t,
            (Op::Mul, _) => vals.iter().product::<i128>() == t,
            (Op::Sub, [a, b]) => (a - b).abs() == t,
            (Op::Div, [a, b]) => a * t == *b || b * t == *a,
            _ => false,
        };
        if !ok {
            return Err(format!("cage {k} ({:?} {t}) not met by {vals:?}", cage.op));
        }
    }
    if covered.iter().any(|&c| c != 1) {
        return Err("the cages do not cover each cell once".into());
    }
    Ok(())
}

/// Solves `p` asking for two solutions and checks what comes back against `square`, the grid it
/// was cut from. Returns whether the search resolved the puzzle within the deadline.
fn solve_and_check(p: &Puzzle, square: &Grid) -> bool {
    solve_and_check_with(p, square, 1)
}

/// [`solve_and_check`], the solver using up to `threads` threads.
fn solve_and_check_with(p: &Puzzle, square: &Grid, threads: usize) -> bool {
    let name = p.name.clone().unwrap_or_default();
    check(p, square).unwrap_or_else(|e| panic!("{name}: the generator's own square: {e}"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let sols = Solver::new(p)
        .unwrap()
        .with_deadline(Some(deadline))
        .with_threads(threads)
        .solve(Some(2));
    for g in &sols.grids {
        check(p, g).unwrap_or_else(|e| panic!("{name}: a wrong solution: {e}"));
    }
    assert!(sols.grids.len() <= 2, "{name}");
    if sols.grids.len() == 2 {
        assert_ne!(
            sols.grids[0], sols.grids[1],
            "{name}: the same solution twice"
        );
    }
    if sols.complete {
        // The search ended: the square is a solution, so it was found, and it is the only one.
        assert_eq!(sols.grids, vec![square.clone()], "{name}");
    }
    assert!(
        sols.stats.nodes >= 1 && sols.stats.propagations >= 1,
        "{name}"
    );
    sols.complete || sols.grids.len() == 2
}

/// The generated puzzle with every `k`-th cage (counting from `offset`) replaced by givens from
/// `square`: still a puzzle the square solves, and easier, so that large sizes stay quick.
fn revealed(p: &Puzzle, square: &Grid, k: usize, offset: usize) -> Puzzle {
    let mut cages = Vec::new();
    for (i, c) in p.cages.iter().enumerate() {
        if i % k == offset % k {
            cages.extend(c.cells.iter().map(|&Cell { row, col }| {
                let v = u64::from(square[row - 1][col - 1]);
                Cage::new(Op::Given, v, vec![Cell::new(row, col)])
            }));
        } else {
            cages.push(c.clone());
        }
    }
    let mut q = Puzzle::new(p.size, cages);
    q.name = p.name.as_ref().map(|n| format!("{n}-revealed"));
    q
}

#[test]
fn generated_12_to_20_are_solved_correctly() {
    let mut resolved = 0;
    let mut total = 0;
    for n in [12, 16, 20] {
        for (p, square) in random::puzzles(n, 0, 2) {
            total += 1;
            resolved += usize::from(solve_and_check(&p, &square));
        }
    }
    // Correctness is asserted above; this only guards against a search that resolves nothing.
    assert!(resolved * 2 >= total, "{resolved} of {total} resolved");
}

#[test]
fn partly_revealed_25_and_30_are_solved_correctly() {
    for (n, seed) in [(25, 6), (25, 1), (30, 0), (30, 1)] {
        let (p, square) = random::puzzle(n, seed);
        for offset in 0..2 {
            let q = revealed(&p, &square, 3, offset);
            assert!(solve_and_check(&q, &square), "{n}/{seed}/{offset}");
        }
    }
}

/// Two whole 25x25 puzzles of the benchmark whose search fails thousands of times (the search
/// learns clauses from its failures and restarts): what it gives is still right, and the second
/// is proved to have one solution (the generator's square), when the search ends.
#[test]
fn hard_25_are_solved_correctly() {
    let puzzles = random::puzzles(25, 0, 9);
    for (p, square) in &puzzles[7..9] {
        assert!(solve_and_check(p, square), "{:?}", p.name);
    }
    let deadline = Instant::now() + Duration::from_secs(300);
    let solver = Solver::new(&puzzles[8].0).unwrap();
    let sols = solver.with_deadline(Some(deadline)).solve(Some(2));
    assert_eq!(sols.grids, vec![puzzles[8].1.clone()]);
    assert!(sols.complete);
    assert!(
        sols.stats.failures > 1000 && sols.stats.restarts > 5,
        "{:?}",
        sols.stats
    );
}

/// The same two 25x25 puzzles and two 30x30 ones, the solver using two threads: their searches
/// run long enough to go on as two searches sharing clauses, and what comes back is still
/// right: the unique one proved unique with the generator's square, whichever search ends first.
#[test]
fn hard_puzzles_with_two_threads_are_solved_correctly() {
    let puzzles = random::puzzles(25, 0, 9);
    for (p, square) in &puzzles[7..9] {
        assert!(solve_and_check_with(p, square, 2), "{:?}", p.name);
    }
    for (p, square) in &random::puzzles(30, 4, 2) {
        solve_and_check_with(p, square, 2);
    }
    let deadline = Instant::now() + Duration::from_secs(300);
    let solver = Solver::new(&puzzles[8].0).unwrap().with_threads(2);
    let sols = solver.with_deadline(Some(deadline)).solve(Some(2));
    assert_eq!(sols.grids, vec![puzzles[8].1.clone()]);
    assert!(sols.complete && !sols.timed_out);
}

/// A search stopped by its deadline while two searches run reports the stop, and the threads
/// end with it (the solve returns).
#[test]
fn a_deadline_stops_every_search() {
    let (p, _) = random::puzzle(25, 12);
    let deadline = Instant::now() + Duration::from_millis(1500);
    let solver = Solver::new(&p).unwrap().with_threads(2);
    let sols = solver.with_deadline(Some(deadline)).solve(Some(2));
    assert!(sols.timed_out && !sols.complete, "{:?}", sols.stats);
    assert!(sols.grids.iter().all(|g| check(&p, g).is_ok()));
}

#[test]
fn the_checker_rejects_wrong_grids() {
    let (p, square) = random::puzzle(12, 3);
    assert!(check(&p, &square).is_ok());
    // Two rows swapped: still Latin, but some cage is almost surely broken.
    let mut swapped = square.clone();
    swapped.swap(0, 5);
    assert!(check(&p, &swapped).is_err());
    // One value changed: a repeat in its row and column.
    let mut changed = square.clone();
    changed[3][3] = changed[3][4];
    assert!(check(&p, &changed).is_err());
}
