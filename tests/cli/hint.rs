//! Hints: every step is valid (no step removes a cell's true value, every placement is the true
//! value), applying all the steps reaches the solution, and `kenken hint` on the command line.

use kenken::format;
use kenken::generate::{generate, Options};
use kenken::logic::{explain, grade, Grade, Level, Rule};
use kenken::Puzzle;
use predicates::prelude::*;

use crate::common::kenken;

fn keen(name: &str) -> Vec<Puzzle> {
    let path = format!("{}/tests/data/keen/{name}", env!("CARGO_MANIFEST_DIR"));
    format::read_auto(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Applies every step of the path from `start` to candidate masks of the test's own, checking
/// each against the solution; the path must end with every cell at its true value. Returns the
/// hardest level used.
fn check_path(p: &Puzzle, start: &[u32]) -> Level {
    let n = p.size;
    let g = grade(p, None).unwrap();
    let solution = g.solution.unwrap();
    let truth: Vec<u32> = solution.iter().flatten().copied().collect();
    let full = (1u64 << n) - 1;
    let mut dom: Vec<u64> = start
        .iter()
        .map(|&v| if v == 0 { full } else { 1 << (v - 1) })
        .collect();
    let steps = explain(p, &solution, start, None, None).unwrap();
    let mut hardest = Level::Easy;
    for s in &steps {
        hardest = hardest.max(s.step.rule.level());
        assert!(!s.text.is_empty());
        for &(cell, mask) in &s.step.removals {
            assert_eq!(
                mask & 1 << (truth[cell] - 1),
                0,
                "{} removes the true value",
                s.text
            );
            dom[cell] &= !mask;
        }
        if let Some((cell, v)) = s.step.place {
            assert_eq!(v, truth[cell], "{}", s.text);
            dom[cell] = 1 << (v - 1);
        }
    }
    for (cell, &d) in dom.iter().enumerate() {
        assert_eq!(d, 1 << (truth[cell] - 1), "cell {cell} not reached");
    }
    if let (Grade::Graded(level), true) = (g.verdict, start.iter().all(|&v| v == 0)) {
        assert_eq!(
            hardest, level,
            "the path shows why the puzzle got its grade"
        );
    }
    hardest
}

#[test]
fn steps_are_valid_and_reach_the_solution() {
    for d in ['e', 'n', 'h', 'x', 'u'] {
        for n in [4, 6, 9] {
            for p in keen(&format!("keen-{n}d{d}.jsonl")).iter().take(3) {
                check_path(p, &vec![0; n * n]);
            }
        }
    }
    for level in Level::ALL {
        let g = generate(&Options::new(7, level), 3, None).unwrap();
        assert_eq!(check_path(&g.puzzle, &[0; 49]), level);
    }
}

#[test]
fn steps_from_a_partly_filled_grid() {
    let p = &keen("keen-6dh.jsonl")[0];
    let solution = grade(p, None).unwrap().solution.unwrap();
    // The first two rows filled in.
    let start: Vec<u32> = solution
        .iter()
        .enumerate()
        .flat_map(|(r, row)| row.iter().map(move |&v| if r < 2 { v } else { 0 }))
        .collect();
    check_path(p, &start);
    // A wrong entry is refused by the library.
    let mut wrong = start.clone();
    wrong[35] = if solution[5][5] == 1 { 2 } else { 1 };
    assert!(explain(p, &solution, &wrong, None, None).is_err());
}

#[test]
fn first_hint_names_cells_and_cage() {
    let p = &keen("keen-4de.jsonl")[0];
    let solution = grade(p, None).unwrap().solution.unwrap();
    let steps = explain(p, &solution, &[0; 16], Some(1), None).unwrap();
    assert_eq!(steps.len(), 1);
    let text = &steps[0].text;
    assert!(text.contains("cage"), "{text}");
    assert!(text.contains(|c: char| c.is_ascii_uppercase()), "{text}");
    assert!(Rule::ALL.contains(&steps[0].step.rule));
}

const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-6x6.pl");

#[test]
fn cli_hint_and_steps() {
    let one = kenken()
        .args(["hint", SPEC])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let one = String::from_utf8(one).unwrap();
    assert_eq!(one.lines().count(), 1, "{one}");
    let all = kenken()
        .args(["hint", SPEC, "--steps"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let all = String::from_utf8(all).unwrap();
    assert!(all.lines().count() >= 36, "{all}");
    assert_eq!(all.lines().next().unwrap(), one.trim_end());
    // Every cell is placed somewhere on the path.
    let placed = all.lines().filter(|l| l.contains(" must be ")).count();
    assert!(placed >= 36);
}

#[test]
fn cli_hint_reports_wrong_entries() {
    // The solution of spec-6x6 has 5 at A1; 1 there is wrong, 6 at A2 is right.
    let grid = "1 6 . . . .\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\n";
    kenken()
        .args(["hint", SPEC, "--grid", grid])
        .assert()
        .success()
        .stdout(predicate::str::contains("A1 = 1 is wrong"))
        .stdout(predicate::str::contains("A2 = 6 is wrong").not());
    kenken()
        .args(["hint", SPEC, "--grid", "1 2\n"])
        .assert()
        .code(2);
}

#[test]
fn cli_hint_without_a_single_solution() {
    let dir = std::env::temp_dir().join(format!("kenken-hint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("two.jsonl");
    std::fs::write(
        &f,
        r#"{"size":2,"cages":[{"op":"+","target":3,"cells":[[1,1],[1,2]]},{"op":"+","target":3,"cells":[[2,1],[2,2]]}]}"#,
    )
    .unwrap();
    kenken()
        .args(["hint", f.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("more than one solution"));
}
