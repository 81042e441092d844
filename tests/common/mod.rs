//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use kenken::format::{self, Notation};
use kenken::Puzzle;

/// `tests/data/<rel>`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// Every `.jsonl` file under `tests/data`, with its puzzles.
pub fn all_files() -> Vec<(String, Vec<Puzzle>)> {
    let mut out = Vec::new();
    let mut dirs = vec![data("")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                let puzzles = format::read(&text, Notation::Json)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                out.push((p.display().to_string(), puzzles));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The puzzles of one data file.
pub fn file(rel: &str) -> Vec<Puzzle> {
    format::read_auto(&std::fs::read_to_string(data(rel)).unwrap()).unwrap()
}
