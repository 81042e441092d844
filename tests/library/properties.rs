//! Every engine against an oracle that shares no code with `src/` (`tests/common/oracle.rs`), on
//! random puzzles that are valid by construction: random Latin squares cut into random connected
//! cages (n-ary `-` and `/`, `=` cells, `?` operators, free cells). Every engine's full answer
//! list must equal the oracle's, order included (the spec's order).

use crate::common;

use common::oracle::{self, Mix};
use kenken::engine::{Engine, EngineKind, Isolation, Request, Status};
use kenken::puzzle::{Op, Severity};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// At most this many solutions are enumerated by the oracle; a puzzle with more is skipped.
const CAP: usize = 300;

/// The generated cases are real: valid puzzles, solved by the square they were cut from, of
/// every kind the generator promises.
#[test]
fn generated_puzzles_are_valid_and_varied() {
    let (mut total, mut valid) = (0, 0);
    let (mut nary, mut unknown, mut given, mut free) = (0, 0, 0, 0);
    for n in 1..=7 {
        for seed in 0..60u64 {
            let (p, grid) = oracle::puzzle(n, seed, Mix::default());
            total += 1;
            let errors = p
                .validate()
                .iter()
                .filter(|x| x.severity == Severity::Error)
                .count();
            let meets = p.cages.iter().all(|c| {
                let values: Vec<u64> = c
                    .cells
                    .iter()
                    .map(|x| u64::from(grid[x.row - 1][x.col - 1]))
                    .collect();
                oracle::meets(c.op, c.target, &values)
            });
            if errors == 0 && meets && oracle::is_latin(&grid, n) {
                valid += 1;
            }
            nary += p
                .cages
                .iter()
                .filter(|c| matches!(c.op, Op::Sub | Op::Div) && c.cells.len() > 2)
                .count();
            unknown += p.cages.iter().filter(|c| c.op == Op::Unknown).count();
            given += p.cages.iter().filter(|c| c.op == Op::Given).count();
            let covered: usize = p.cages.iter().map(|c| c.cells.len()).sum();
            free += n * n - covered;
        }
    }
    // Every case is valid (the generator cannot make an invalid one), and each kind occurs.
    assert_eq!(
        valid, total,
        "{valid} of {total} generated puzzles are valid"
    );
    assert!(
        nary > 20 && unknown > 50 && given > 50 && free > 20,
        "{nary} {unknown} {given} {free}"
    );
}

/// The oracle itself: on the 2x2 and 3x3 with one cage over everything (a sum), it finds every
/// Latin square (2 and 12), and it finds the square a puzzle was cut from.
#[test]
fn the_oracle_counts_latin_squares_and_finds_the_cut_square() {
    for (n, squares) in [(1, 1), (2, 2), (3, 12), (4, 576)] {
        let cells = (1..=n)
            .flat_map(|r| (1..=n).map(move |c| kenken::Cell::new(r, c)))
            .collect();
        let total = (n * n * (n + 1) / 2) as u64;
        let p = kenken::Puzzle::new(n, vec![kenken::Cage::new(Op::Add, total, cells)]);
        let all = oracle::solutions(&p, 1000);
        assert_eq!(all.len(), squares);
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(sorted, all, "lexicographic order");
    }
    for seed in 0..20 {
        let (p, grid) = oracle::puzzle(5, seed, Mix::default());
        assert!(oracle::solutions(&p, CAP).contains(&grid));
    }
}

/// Runs `engine` on random puzzles of sizes `sizes` and compares with the oracle; returns how
/// many cases were compared.
fn against_the_oracle(
    engine: &mut dyn Engine,
    sizes: std::ops::RangeInclusive<usize>,
    cases: u32,
) -> usize {
    let compared = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (sizes, any::<u64>());
    let kind = engine.kind();
    let engine = std::cell::RefCell::new(engine);
    runner
        .run(&strategy, |(n, seed)| {
            let (p, _) = oracle::puzzle(n, seed, Mix::default());
            let expected = oracle::solutions(&p, CAP);
            if expected.len() >= CAP {
                return Ok(());
            }
            let report = engine.borrow_mut().solve(&p, &Request::all());
            prop_assert!(report.complete, "{kind}: incomplete on {p:?}");
            prop_assert_eq!(&report.solutions, &expected, "{} on {:?}", kind, p);
            let status = match expected.len() {
                0 => Status::NoSolution,
                1 => Status::Unique,
                _ => Status::Solved,
            };
            prop_assert_eq!(report.status, status);
            compared.set(compared.get() + 1);
            Ok(())
        })
        .unwrap();
    compared.get()
}

#[test]
fn native_equals_the_oracle_on_sizes_1_to_7() {
    let mut engine = EngineKind::Native.open(Isolation::InProcess).unwrap();
    let compared = against_the_oracle(engine.as_mut(), 1..=7, 400);
    // Nearly every case has few enough solutions to compare.
    assert!(compared >= 360, "{compared} of 400 compared");
}

#[test]
fn kenken_3_equals_the_oracle_on_sizes_1_to_5() {
    let mut engine = EngineKind::Fd.open(Isolation::InProcess).unwrap();
    let compared = against_the_oracle(engine.as_mut(), 1..=5, 60);
    assert!(compared >= 50, "{compared} of 60 compared");
}

#[test]
fn plain_kenken_3_equals_the_oracle_on_sizes_1_to_5() {
    let mut engine = EngineKind::Plain.open(Isolation::InProcess).unwrap();
    let compared = against_the_oracle(engine.as_mut(), 1..=5, 60);
    assert!(compared >= 50, "{compared} of 60 compared");
}
