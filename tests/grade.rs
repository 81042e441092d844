//! The grader: agreement with Keen's own grades on the shipped Keen puzzles, verdicts for
//! puzzles with no or several solutions, and `kenken grade` on the command line.

use std::path::PathBuf;

use assert_cmd::Command;
use kenken::format;
use kenken::logic::{grade, Level, Verdict};
use kenken::puzzle::{Cage, Cell, Op, Puzzle};

fn keen_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/keen")
}

/// Keen's grade letter of a shipped file name `keen-<N>d<D>.jsonl`.
fn keen_level(letter: char) -> Level {
    letter.to_string().parse().unwrap()
}

/// The confusion matrix on every shipped Keen puzzle: `m[keen][ours]`, printed as a table.
fn confusion() -> [[usize; 5]; 5] {
    let mut m = [[0usize; 5]; 5];
    for n in 4..=9 {
        for d in ['e', 'n', 'h', 'x', 'u'] {
            let path = keen_dir().join(format!("keen-{n}d{d}.jsonl"));
            let text = std::fs::read_to_string(&path).unwrap();
            let puzzles = format::read_auto(&text).unwrap();
            assert_eq!(puzzles.len(), 20, "{}", path.display());
            for p in &puzzles {
                let g = grade(p, None).unwrap();
                let Verdict::Graded(ours) = g.verdict else {
                    panic!("{}: {}", path.display(), g.verdict)
                };
                m[keen_level(d) as usize][ours as usize] += 1;
            }
        }
    }
    println!("keen \\ ours   easy normal   hard extreme unreas.");
    for (i, row) in m.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>6}")).collect();
        println!("{:<12}{}", Level::ALL[i].name(), cells.join(" "));
    }
    m
}

#[test]
fn grades_agree_with_keen() {
    let m = confusion();
    let total: usize = m.iter().flatten().sum();
    let exact: usize = (0..5).map(|i| m[i][i]).sum();
    let far: usize = (0..5)
        .flat_map(|i: usize| (0..5).map(move |j: usize| (i, j)))
        .filter(|&(i, j)| i.abs_diff(j) > 1)
        .map(|(i, j)| m[i][j])
        .sum();
    println!("exact {exact}/{total}, two or more levels apart {far}");
    assert_eq!(total, 600);
    assert!(exact * 100 >= total * 95, "exact {exact}/{total}");
    assert_eq!(far, 0);
}
