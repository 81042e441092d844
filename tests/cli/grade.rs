//! The grader: agreement with Keen's own grades on the shipped Keen puzzles, verdicts for
//! puzzles with no or several solutions, and `kenken grade` on the command line.

use std::path::PathBuf;

use kenken::format;
use kenken::logic::{grade, Grade, Level};
use kenken::puzzle::{Cage, Cell, Op, Puzzle};
use serde_json::Value;

use crate::common::kenken;

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
                let Grade::Graded(ours) = g.verdict else {
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

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kenken-grade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn several_solutions_or_none() {
    let c = |r, col| Cell::new(r, col);
    let two = Puzzle::new(
        2,
        vec![
            Cage::new(Op::Add, 3, vec![c(1, 1), c(1, 2)]),
            Cage::new(Op::Add, 3, vec![c(2, 1), c(2, 2)]),
        ],
    );
    assert_eq!(grade(&two, None).unwrap().verdict, Grade::Ambiguous);
    let none = Puzzle::new(
        2,
        vec![
            Cage::new(Op::Add, 4, vec![c(1, 1), c(1, 2)]),
            Cage::new(Op::Add, 3, vec![c(2, 1), c(2, 2)]),
        ],
    );
    assert_eq!(grade(&none, None).unwrap().verdict, Grade::NoSolution);
}

#[test]
fn cli_json_has_index_name_grade_and_rule_counts() {
    let f = write_temp(
        "named.jsonl",
        concat!(
            r#"{"name":"first","size":2,"cages":[{"op":"+","target":3,"cells":[[1,1],[1,2]]},{"op":"=","target":2,"cells":[[2,1]]},{"op":"=","target":1,"cells":[[2,2]]}]}"#,
            "\n",
            r#"{"size":2,"cages":[{"op":"+","target":3,"cells":[[1,1],[1,2]]},{"op":"+","target":3,"cells":[[2,1],[2,2]]}]}"#,
            "\n"
        ),
    );
    let out = kenken()
        .args(["grade", f.to_str().unwrap(), "--output", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let objs: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["index"], 1);
    assert_eq!(objs[0]["name"], "first");
    assert_eq!(objs[0]["grade"], "easy");
    assert!(objs[0]["rules"]["naked_single"].as_u64().unwrap() >= 1);
    assert_eq!(objs[0]["rules"]["guess"], 0);
    assert_eq!(objs[1]["index"], 2);
    assert!(objs[1].get("name").is_none());
    assert_eq!(objs[1]["grade"], "ambiguous");
}

#[test]
fn cli_grade_replaces_the_input_grade_and_sets_exit_codes() {
    let path = keen_dir().join("keen-5dx.jsonl");
    let out = kenken()
        .args(["grade", path.to_str().unwrap(), "--output", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 20);
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["grade"], "extreme");
        assert!(
            v["rules"]["fish"].as_u64().unwrap() + v["rules"]["forcing_chain"].as_u64().unwrap()
                >= 1
        );
    }
    let none = write_temp(
        "none.jsonl",
        r#"{"size":2,"cages":[{"op":"+","target":4,"cells":[[1,1],[1,2]]},{"op":"+","target":3,"cells":[[2,1],[2,2]]}]}"#,
    );
    kenken()
        .args(["grade", none.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("no_solution"));
    // Invalid (no two values of 1..2 make 9): refused, as every command refuses it.
    let bad = write_temp(
        "bad.jsonl",
        r#"{"size":2,"cages":[{"op":"+","target":9,"cells":[[1,1],[1,2]]}]}"#,
    );
    kenken()
        .args(["grade", bad.to_str().unwrap()])
        .assert()
        .code(2);
}

#[test]
fn grading_at_most_a_level() {
    let read = |name: &str| {
        let text = std::fs::read_to_string(keen_dir().join(name)).unwrap();
        format::read_auto(&text).unwrap().remove(0)
    };
    let hard = read("keen-7dh.jsonl");
    assert_eq!(
        kenken::logic::grade_at_most(&hard, Level::Normal, None).unwrap(),
        None
    );
    let (level, counts) = kenken::logic::grade_at_most(&hard, Level::Hard, None)
        .unwrap()
        .unwrap();
    assert_eq!(level, Level::Hard);
    assert!(
        counts[kenken::logic::Rule::CageLine.index()]
            + counts[kenken::logic::Rule::LineSubset.index()]
            > 0
    );
    assert_eq!(Level::Hard.easier(), Some(Level::Normal));
    assert_eq!(Level::Easy.easier(), None);
}
