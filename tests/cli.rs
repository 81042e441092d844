//! The command line: exit codes and outputs.

use assert_cmd::Command;
use predicates::prelude::*;

fn kenken() -> Command {
    Command::cargo_bin("kenken").unwrap()
}

const EX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/");

#[test]
fn solve_spec_6x6_with_each_engine() {
    for engine in ["native", "fd", "plain"] {
        kenken()
            .args(["solve", &format!("{EX}spec-6x6.pl"), "--engine", engine, "--output", "prolog"])
            .assert()
            .success()
            .stdout("T = [[5,6,3,4,1,2],[6,1,4,5,2,3],[4,5,2,3,6,1],[3,4,1,2,5,6],[2,3,6,1,4,5],[1,2,5,6,3,4]].\n");
    }
    kenken()
        .args(["solve", &format!("{EX}spec-6x6.pl")])
        .assert()
        .success()
        .stdout(predicate::str::contains("unique solution"));
}

#[test]
fn solve_json_and_count() {
    kenken()
        .args([
            "solve",
            &format!("{EX}spec-4x4.pl"),
            "--all",
            "--output",
            "json",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"count\":6,\"complete\":true"));
    kenken()
        .args(["solve", &format!("{EX}spec-4x4.pl"), "--count"])
        .assert()
        .success()
        .stdout("puzzle 1: 6 solutions\n");
}

#[test]
fn exit_codes() {
    // No solution: 1.
    kenken()
        .args(["solve", "-"])
        .write_stdin("# 2\n! 1 A1\n! 1 A2\n+ 3 B1 B2\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("no solution"));
    // Bad input: 2, naming file and line.
    kenken()
        .args(["solve", "-"])
        .write_stdin("# 2\n+ x A1\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<stdin>: line 2"));
    kenken()
        .args(["check", &format!("{EX}seed-003-noop.txt")])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("cell C1 [3|1] is in no cage"));
    kenken().args(["solve", "/no/such/file"]).assert().code(2);
    kenken().args(["frobnicate"]).assert().code(2);
    // Timeout: 3.
    kenken()
        .args([
            "solve",
            "-",
            "--engine",
            "plain",
            "--timeout",
            "0.5",
            "--all",
        ])
        .write_stdin(
            std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/keen/keen-9dx.jsonl"
            ))
            .unwrap(),
        )
        .assert()
        .code(3);
}

#[test]
fn convert_and_show() {
    kenken()
        .args(["convert", &format!("{EX}spec-4x4.pl"), "--to", "text"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "# 4\n+ 6 A1 A2 B1\n* 96 A3 A4 B2 B3 B4\n- 1 C1 C2\n",
        ));
    kenken()
        .args(["convert", &format!("{EX}seed-003-noop.txt"), "--to", "keen"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("keen notation cannot hold"));
    kenken()
        .args(["show", &format!("{EX}spec-4x4.pl"), "--ascii"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "+-------+-------+\n|6+     |96*    |",
        ));
}

#[test]
fn cage_helper() {
    kenken()
        .args([
            "cage",
            "20",
            "+",
            "--cells",
            "4",
            "--size",
            "9",
            "--exclude",
            "8,9",
            "--distinct",
        ])
        .assert()
        .success()
        .stdout(
            "2 5 6 7\n3 4 6 7\n% 2 combination(s); all cells in one row or column (--distinct)\n",
        );
    kenken()
        .args(["cage", "20", "+", "--cells", "4", "--size", "9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("no --shape given: assumed"));
    kenken()
        .args([
            "cage", "72", "x", "--size", "9", "--shape", "A1", "A2", "B1", "B2", "--output", "json",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("[2,2,3,6]"));
    kenken()
        .args(["cage", "7", "*", "--cells", "2", "--size", "6"])
        .assert()
        .code(1);
    kenken()
        .args(["cage", "5", "%", "--cells", "2", "--size", "6"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown operator '%'"));
}

#[test]
fn show_candidates() {
    // The spec's 6x6: the deductions alone pin the 5 at row 3, column 2 (the spec's own argument).
    let out = kenken()
        .args([
            "show",
            "--candidates",
            "--ascii",
            &format!("{EX}spec-6x6.pl"),
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // Row 3's digit line: the 5 at column 2 is deduced (here the deductions solve it all).
    assert_eq!(
        text.lines().nth(8),
        Some("| 4    5  | 2    3  | 6  | 1  |"),
        "{text}"
    );
}
