//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod oracle;

use std::path::PathBuf;

use std::collections::BTreeSet;

use kenken::format::{self, Entry, Notation};
use kenken::puzzle::{Cage, Cell, Grid, Op};
use kenken::Puzzle;
use proptest::prelude::*;

/// `tests/data/<rel>`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// Every `.jsonl` file under `tests/data`, with its puzzles (and what the file expects).
pub fn all_files() -> Vec<(String, Vec<Entry>)> {
    let mut out = Vec::new();
    let mut dirs = vec![data("")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                let puzzles = format::read_entries(&text, Notation::Json)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                out.push((p.display().to_string(), puzzles));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The puzzles of one data file (and what the file expects).
pub fn file(rel: &str) -> Vec<Entry> {
    let text = std::fs::read_to_string(data(rel)).unwrap();
    format::read_entries(&text, format::detect(&text)).unwrap()
}

/// Every solution of `p`, by trying every Latin square row by row.
pub fn brute_force(p: &Puzzle) -> BTreeSet<Grid> {
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

/// Random puzzles of the given sizes: a random partition into cages (not always connected),
/// each with a random operator and target (so many have no solution).
pub fn arb_puzzle(sizes: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Puzzle> {
    sizes
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
