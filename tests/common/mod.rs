//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod oracle;
// (it reads /proc and signals with nix, a dependency of the `prolog` feature)
#[cfg(feature = "prolog")]
pub mod procs;

use std::path::PathBuf;

use std::collections::BTreeSet;

use kenken::format::{self, Entry, Notation};
use kenken::puzzle::Grid;
use kenken::Puzzle;
use proptest::prelude::*;

/// The `kenken` binary built for these tests, as a command to run.
pub fn kenken() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("kenken").unwrap()
}

/// Whether GNU Prolog is installed: what needs it is tested only then, and says so otherwise.
pub fn gprolog() -> bool {
    let there = std::process::Command::new("gprolog")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !there {
        eprintln!("gprolog is not installed: what runs under GNU Prolog is not tested");
    }
    there
}

/// Whether SWI-Prolog is installed: what needs it is tested only then, and says so otherwise.
pub fn swipl() -> bool {
    let there = std::process::Command::new("swipl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !there {
        eprintln!("swipl is not installed: what runs under SWI-Prolog is not tested");
    }
    there
}

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

/// Every solution of `p`, by the independent oracle (`oracle.rs`: its own Latin-square search and
/// cage arithmetic, no code shared with `src/`).
pub fn brute_force(p: &Puzzle) -> BTreeSet<Grid> {
    oracle::solutions(p, 1_000_000).into_iter().collect()
}

/// Random valid puzzles of the given sizes: random Latin squares cut into random connected
/// cages with operators their values meet (see `oracle::puzzle`).
pub fn arb_puzzle(sizes: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Puzzle> {
    (sizes, any::<u64>()).prop_map(|(n, seed)| oracle::puzzle(n, seed, oracle::Mix::default()).0)
}
