//! `kenken judge`: verdicts and exit codes on judged files written as students write them
//! (tests/data/judge/README.md says what each one is), under the embedded Scryer Prolog with the
//! GNU layer, and under the real GNU Prolog when it is installed.

use std::collections::BTreeMap;

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{gprolog, kenken};

mod bounds;
mod cheats;
mod contain;
mod hostile;
mod names;
mod solvers;
mod swipl;
mod trust;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/");

fn fixture(name: &str) -> String {
    format!("{DIR}{name}")
}

/// The judgement as JSON lines: (case, predicate) -> verdict, the summary, the exit code.
struct Judged {
    verdicts: BTreeMap<(String, String), String>,
    details: BTreeMap<(String, String), String>,
    summary: Value,
    code: i32,
}

impl Judged {
    fn verdict(&self, case: &str, predicate: &str) -> &str {
        self.verdicts
            .get(&(case.to_string(), predicate.to_string()))
            .unwrap_or_else(|| panic!("no case {case} for {predicate}: {:?}", self.verdicts))
    }

    fn detail(&self, case: &str, predicate: &str) -> &str {
        &self.details[&(case.to_string(), predicate.to_string())]
    }

    fn count(&self, verdict: &str) -> usize {
        self.verdicts.values().filter(|v| *v == verdict).count()
    }
}

fn judge(file: &str, args: &[&str]) -> Judged {
    judge_in_env(file, args, &[])
}

/// [`judge`] with the environment changed: each `(name, Some(value))` set, each
/// `(name, None)` removed.
fn judge_in_env(file: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> Judged {
    let mut command = kenken();
    // (the smallest failing puzzle is judge_course.rs's)
    command
        .args(["judge", file, "--output", "json", "--shrink-time", "0"])
        .args(args);
    for (name, value) in env {
        match value {
            Some(v) => command.env(name, v),
            None => command.env_remove(name),
        };
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut verdicts = BTreeMap::new();
    let mut details = BTreeMap::new();
    let mut summary = Value::Null;
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if let Some(s) = v.get("summary") {
            summary = s.clone();
            continue;
        }
        let key = (
            v["case"].as_str().unwrap().to_string(),
            v["predicate"].as_str().unwrap().to_string(),
        );
        verdicts.insert(key.clone(), v["verdict"].as_str().unwrap().to_string());
        details.insert(key, v["detail"].as_str().unwrap().to_string());
    }
    Judged {
        verdicts,
        details,
        summary,
        code: out.status.code().unwrap(),
    }
}

/// The spec's cases, kenken/3 only, under Scryer, with time enough for a busy machine.
const SPEC_KENKEN_SCRYER: &[&str] = &[
    "--suite",
    "spec",
    "--prolog",
    "scryer",
    "--predicates",
    "kenken",
    "--timeout",
    "120",
];

const SPEC_CASES: [&str; 8] = [
    "spec: kenken(1, [], T)",
    "spec: kenken(2, [], T)",
    "spec: kenken(3, [], T)",
    "spec: kenken(4, [], T)",
    "spec 4x4 example (six answers)",
    "spec 4x4, T partly given",
    "spec 4x4 made unsatisfiable",
    "spec 6x6 testcase",
];

#[test]
fn our_kenken_pl_passes_the_standard_suite() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/prolog/kenken.pl");
    let j = judge(file, &["--prolog", "scryer", "--timeout", "120"]);
    assert_eq!(j.code, 0, "{:?}", j.details);
    for case in SPEC_CASES {
        assert_eq!(j.verdict(case, "kenken"), "pass");
    }
    // plain_kenken/3 on grids up to 4x4 only
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "plain_kenken"),
        "pass"
    );
    assert_eq!(j.verdict("N = 0", "plain_kenken"), "pass");
    assert!(!j
        .verdicts
        .contains_key(&("spec 6x6 testcase".into(), "plain_kenken".into())));
    assert_eq!(j.verdict("random 7x7 #2", "kenken"), "pass");
    assert_eq!(j.summary["dialect"], "scryer");
    assert_eq!(j.summary["prolog"], "scryer");
    assert_eq!(j.summary["suite"], "standard");
    assert_eq!(j.summary["max_size"], 7);
    assert_eq!(j.summary["exit_code"], 0);
}

#[test]
fn a_correct_clpz_file_passes_the_standard_suite() {
    let j = judge(
        &fixture("clpz_correct.pl"),
        &[
            "--max-size",
            "5",
            "--prolog",
            "scryer",
            "--timeout",
            "120",
            "--jobs",
            "2",
        ],
    );
    assert_eq!(j.code, 0, "{:?}", j.verdicts);
    // (the 6x6 testcase is larger than --max-size)
    for case in &SPEC_CASES[..7] {
        assert_eq!(j.verdict(case, "kenken"), "pass");
    }
    assert!(!j
        .verdicts
        .contains_key(&("spec 6x6 testcase".into(), "kenken".into())));
    for case in ["N = 0", "difference 0, quotient 1", "random 5x5 #1"] {
        assert_eq!(j.verdict(case, "kenken"), "pass");
    }
    // plain enumeration only up to 4x4
    assert!(j
        .verdicts
        .keys()
        .all(|(c, p)| p != "plain_kenken" || !c.contains("5x5")));
    assert_eq!(j.verdict("random 4x4 #1", "plain_kenken"), "pass");
    assert_eq!(j.summary["dialect"], "scryer");
}

#[test]
fn a_correct_gnu_file_passes_under_the_gnu_layer() {
    let j = judge(&fixture("gnu_correct.pl"), SPEC_KENKEN_SCRYER);
    assert_eq!(j.code, 0, "{:?}", j.verdicts);
    assert_eq!(j.count("pass"), 8);
    assert_eq!(j.summary["dialect"], "gnu");
    assert_eq!(j.summary["dialect_detected"], true);
    // a file that loads quietly gets no lines of what was said while loading (see
    // clauses_gnu_prolog_ignores_are_ignored_under_the_gnu_layer)
    assert_eq!(j.summary["warnings"], "");
}

#[test]
fn clauses_gnu_prolog_ignores_are_ignored_under_the_gnu_layer() {
    // a clause for a GNU built-in, and a clause of a predicate defined earlier in the file
    // and the report says so (regression: what was said while loading was never shown)
    let said = [
        "error: native code procedure nth/3 cannot be redefined (ignored)",
        "warning: discontiguous predicate kenken/3 - clause ignored",
    ];
    let j = judge(&fixture("ignored_clauses.pl"), SPEC_KENKEN_SCRYER);
    assert_eq!(j.code, 0, "{:?}", j.verdicts);
    assert_eq!(j.count("pass"), 8);
    let warnings = j.summary["warnings"].as_str().unwrap();
    assert!(said.iter().all(|s| warnings.contains(s)), "{warnings}");
    // (what was said while loading, whatever the cases: one is enough)
    let table = kenken()
        .args(["judge", &fixture("ignored_clauses.pl")])
        .args(SPEC_KENKEN_SCRYER)
        .args(["--max-size", "1"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    let under_header: Vec<&str> = table.lines().skip(1).take(3).collect();
    assert_eq!(
        under_header[0], "while loading, the file and its loader said:",
        "{table}"
    );
    assert!(
        said.iter()
            .all(|s| under_header.iter().any(|l| l.contains(s))),
        "{table}"
    );
    if gprolog() {
        let j = judge(
            &fixture("ignored_clauses.pl"),
            &[
                "--suite",
                "spec",
                "--predicates",
                "kenken",
                "--prolog",
                "gprolog",
            ],
        );
        assert_eq!(j.code, 0, "{:?}", j.verdicts);
        // gprolog's own words, without its banner
        let warnings = j.summary["warnings"].as_str().unwrap();
        assert!(
            warnings.contains("discontiguous predicate kenken/3"),
            "{warnings}"
        );
        assert!(!warnings.contains("Daniel Diaz"), "{warnings}");
    }
    // (a file that loads quietly gets no such lines: a_correct_gnu_file_passes_under_the_gnu_layer)
}

#[test]
fn a_loop_on_the_empty_grid_skips_nothing() {
    let j = judge(
        &fixture("loops_on_empty.pl"),
        &[
            "--prolog",
            "scryer",
            "--predicates",
            "kenken",
            "--max-size",
            "2",
            "--timeout",
            "3",
        ],
    );
    assert_eq!(j.verdict("N = 0", "kenken"), "timeout");
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "pass");
    assert_eq!(j.count("skipped"), 0);
}

#[test]
fn largest_value_first_is_the_wrong_order() {
    // (the cases asserted: not kenken(3, [], T)'s 12 answers nor kenken(4, [], T)'s 576)
    let only = [
        "--only", "(1,", "--only", "(2,", "--only", "4x4 ex", "--only", "4x4 made",
    ];
    let j = judge(
        &fixture("largest_first.pl"),
        &[SPEC_KENKEN_SCRYER, &only, &["--only", "6x6"]].concat(),
    );
    assert_eq!(j.code, 1);
    for case in ["spec: kenken(2, [], T)", "spec 4x4 example (six answers)"] {
        assert_eq!(j.verdict(case, "kenken"), "order");
    }
    // one answer or none: no order to get wrong
    for case in [
        "spec: kenken(1, [], T)",
        "spec 6x6 testcase",
        "spec 4x4 made unsatisfiable",
    ] {
        assert_eq!(j.verdict(case, "kenken"), "pass");
    }
    assert!(j
        .detail("spec 4x4 example (six answers)", "kenken")
        .contains("answer 1 is [[3,2,4,1],[1,4,2,3],[4,3,1,2],[2,1,3,4]]"));
}

#[test]
fn a_missing_answer_is_wrong_and_shown() {
    let only = ["--only", "4x4 example", "--only", "kenken(4,"];
    let j = judge(
        &fixture("missing_answer.pl"),
        &[SPEC_KENKEN_SCRYER, &only].concat(),
    );
    assert_eq!(j.code, 1);
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "wrong"
    );
    assert!(j
        .detail("spec 4x4 example (six answers)", "kenken")
        .starts_with("3 of 6 expected; 3 answers missing, e.g. [["));
    assert_eq!(j.verdict("spec: kenken(4, [], T)", "kenken"), "pass");
}

#[test]
fn repeated_answers_are_duplicates() {
    let j = judge(
        &fixture("repeats.pl"),
        &[
            "--max-size",
            "3",
            "--prolog",
            "scryer",
            "--predicates",
            "kenken",
            "--timeout",
            "120",
            "--only",
            "difference 0",
            "--only",
            "kenken(3,",
        ],
    );
    assert_eq!(j.code, 1);
    assert_eq!(j.verdict("difference 0, quotient 1", "kenken"), "duplicate");
    assert!(j
        .detail("difference 0, quotient 1", "kenken")
        .contains("given more than once"));
    assert_eq!(j.verdict("spec: kenken(3, [], T)", "kenken"), "pass");
}

#[test]
fn a_looping_file_hangs_on_small_grids_and_its_cases_larger_than_a_timeout_are_skipped() {
    let j = judge(
        &fixture("loops.pl"),
        &["--suite", "spec", "--prolog", "scryer", "--timeout", "1"],
    );
    // a hang on a grid up to 3x3 is a failure, and skips nothing
    assert_eq!(j.code, 1, "{:?}", j.details);
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "hang");
    assert_eq!(j.verdict("spec: kenken(3, [], T)", "kenken"), "hang");
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "timeout"
    );
    assert_eq!(j.verdict("spec 6x6 testcase", "kenken"), "skipped");
    assert_eq!(
        j.detail("spec 6x6 testcase", "kenken"),
        "kenken/3 timed out on a 4x4 grid"
    );
    assert_eq!(j.count("hang"), 4); // two per predicate
}

#[test]
fn a_halting_file_costs_only_its_cases() {
    // (the case that halts, after one that does not)
    let only = ["--only", "4x4 made", "--only", "6x6"];
    let j = judge(&fixture("halts.pl"), &[SPEC_KENKEN_SCRYER, &only].concat());
    assert_eq!(j.code, 1);
    assert_eq!(j.verdict("spec 6x6 testcase", "kenken"), "halted");
    assert_eq!(
        j.detail("spec 6x6 testcase", "kenken"),
        "called halt (exit code 0)"
    );
    // no answer, no halt: the unsatisfiable puzzle passes
    assert_eq!(j.verdict("spec 4x4 made unsatisfiable", "kenken"), "pass");
}

#[test]
fn a_syntax_error_names_file_and_line() {
    for system in ["scryer", "gprolog"] {
        if system == "gprolog" && !gprolog() {
            continue;
        }
        kenken()
            .args(["judge", &fixture("syntax_error.pl"), "--prolog", system])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "syntax_error.pl:12: syntax error: ",
            ));
    }
}

#[test]
fn a_file_ending_with_a_block_comment_loads() {
    // Regression: Scryer's reader reported a syntax error after the last clause.
    let j = judge(
        &fixture("ends_with_comment.pl"),
        &["--suite", "spec", "--prolog", "scryer", "--max-size", "1"],
    );
    assert_eq!(j.code, 0, "{:?}", j.details);
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "plain_kenken"), "pass");
}

#[test]
fn an_unsupported_gnu_builtin_is_named() {
    let j = judge(
        &fixture("unsupported.pl"),
        &[SPEC_KENKEN_SCRYER, &["--only", "6x6"]].concat(),
    );
    assert_eq!(j.code, 1);
    assert_eq!(j.verdict("spec 6x6 testcase", "kenken"), "error");
    assert_eq!(
        j.detail("spec 6x6 testcase", "kenken"),
        "uses fd_minimize/2, which judge does not support"
    );
}

#[test]
fn the_table_says_what_ran_and_a_puzzle_file_is_a_suite() {
    kenken()
        .args([
            "judge",
            &fixture("clpz_correct.pl"),
            "--suite",
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-6x6.pl"),
            "--prolog",
            "scryer",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "under scryer (scryer dialect, detected); ",
        ))
        .stdout(predicate::str::contains(
            "examples/spec-6x6.pl suite, cases up to 7x7",
        ))
        .stdout(predicate::str::contains(
            "clpz_correct.pl: 1 case: 1 pass (",
        ))
        .stdout(predicate::str::contains(
            "plain_kenken/3 is run on grids up to 4x4",
        ));
}

#[test]
fn usage_errors_exit_2() {
    kenken()
        .args(["judge", "/nonexistent/kenken.pl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "/nonexistent/kenken.pl: cannot be read",
        ));
}

#[test]
fn under_gnu_prolog_the_same_verdicts() {
    if !gprolog() {
        return;
    }
    let j = judge(
        &fixture("gnu_correct.pl"),
        &["--max-size", "6", "--prolog", "gprolog"],
    );
    assert_eq!(j.code, 0, "{:?}", j.verdicts);
    assert_eq!(j.summary["prolog"], "gprolog");
    // (below, only the case asserted)
    let j = judge(
        &fixture("halts.pl"),
        &["--suite", "spec", "--prolog", "gprolog", "--only", "6x6"],
    );
    assert_eq!(j.verdict("spec 6x6 testcase", "kenken"), "halted");
    let j = judge(
        &fixture("loops.pl"),
        &[
            "--suite",
            "spec",
            "--prolog",
            "gprolog",
            "--timeout",
            "5",
            "--only",
            "(2,",
        ],
    );
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "crashed");
    assert!(j
        .detail("spec: kenken(2, [], T)", "kenken")
        .contains("stack overflow"));
    let j = judge(
        &fixture("largest_first.pl"),
        &[
            "--suite",
            "spec",
            "--prolog",
            "gprolog",
            "--only",
            "4x4 example",
        ],
    );
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "order"
    );
    // a GNU-dialect file runs under gprolog unless told otherwise
    let j = judge(
        &fixture("gnu_correct.pl"),
        &["--suite", "spec", "--only", "(1,"],
    );
    assert_eq!(j.summary["prolog"], "gprolog");
}

#[test]
fn a_class_is_one_row_per_file_and_a_bad_file_is_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir_all(class.join("ann")).unwrap();
    for (name, fixture_name) in [
        ("ann/kenken.pl", "clpz_correct.pl"),
        ("bob.pl", "missing_answer.pl"),
        ("cy.pl", "syntax_error.pl"),
    ] {
        std::fs::copy(fixture(fixture_name), class.join(name)).unwrap();
    }
    std::fs::write(class.join("notes.txt"), "not a Prolog file").unwrap();
    let args = |output: &str| {
        let class = class.to_str().unwrap().to_string();
        let mut a: Vec<String> = vec!["judge".into(), class, "--output".into(), output.into()];
        a.extend(SPEC_KENKEN_SCRYER.iter().map(|s| s.to_string()));
        // (the smallest failing puzzle is judge_course.rs's; the spec's three 4x4 puzzles,
        // one of which bob.pl fails)
        a.extend(["--jobs", "2", "--shrink-time", "0", "--only", "4x4"].map(String::from));
        a
    };
    let out = kenken().args(args("csv")).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a file failed");
    let csv = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "file,kenken_passed,kenken_cases,first_failure,kenken_ms,plain_over_fd,form,seed,exit_code"
    );
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(rows[1].contains("class/ann/kenken.pl,3,3,,"), "{}", rows[1]);
    assert!(rows[1].ends_with(",0"), "{}", rows[1]);
    assert!(rows[2].contains("class/bob.pl,"), "{}", rows[2]);
    assert!(rows[2].contains("wrong"), "{}", rows[2]);
    assert!(rows[2].ends_with(",1"), "{}", rows[2]);
    assert!(rows[3].contains("class/cy.pl,0,0,"), "{}", rows[3]);
    assert!(rows[3].contains("not judged: "), "{}", rows[3]);
    assert!(rows[3].contains("syntax error"), "{}", rows[3]);
    assert!(rows[3].ends_with(",2"), "{}", rows[3]);

    let out = kenken().args(args("json")).output().unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(lines[0]["verdicts"]["pass"], 3);
    assert_eq!(lines[0]["warnings"], "");
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(lines[3]["class"]["files"], 3);
    assert_eq!(lines[3]["class"]["passed"], 1);
    assert_eq!(lines[3]["class"]["confined"], true);
    assert_eq!(lines[3]["class"]["exit_code"], 1);
    assert_eq!(lines[3]["class"]["only"], serde_json::json!(["4x4"]));

    // every file passing: exit 0, and the table's rows
    kenken()
        .args([
            "judge",
            &fixture("clpz_correct.pl"),
            &fixture("clpz_correct.pl"),
        ])
        .args(SPEC_KENKEN_SCRYER)
        .args(["--max-size", "2", "--only", "(1,"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "judging 2 files (confined, memory 2 GiB per engine); spec suite, only the cases \
             named with \"(1,\"\n",
        ))
        .stdout(predicate::str::contains("2 of 2 files passed every case"));
}

#[test]
fn a_file_that_does_not_load_still_ends_with_a_json_summary() {
    let out = kenken()
        .args(["judge", &fixture("syntax_error.pl"), "--output", "json"])
        .args(SPEC_KENKEN_SCRYER)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["exit_code"], 2);
    assert!(last["summary"]["error"]
        .as_str()
        .unwrap()
        .contains("syntax error"));
}

#[test]
fn bad_memory_sizes_are_usage_errors() {
    kenken()
        .args(["judge", &fixture("clpz_correct.pl"), "--memory", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--memory"));
}

#[test]
fn a_gnu_file_with_a_stray_clpfd_import_is_judged_as_gnu() {
    for system in ["scryer", "gprolog"] {
        if system == "gprolog" && !gprolog() {
            continue;
        }
        let j = judge(
            &fixture("gnu_with_clpfd_import.pl"),
            &[
                "--suite",
                "spec",
                "--prolog",
                system,
                "--predicates",
                "kenken",
                "--timeout",
                "120",
            ],
        );
        assert_eq!(j.summary["dialect"], "gnu");
        assert_eq!(j.code, 0, "{:?}", j.details);
    }
}

#[test]
fn a_swi_file_with_library_clpfd_is_judged_with_clpz() {
    let j = judge(&fixture("swi_clpfd.pl"), SPEC_KENKEN_SCRYER);
    assert_eq!(j.summary["dialect"], "scryer");
    assert_eq!(j.code, 0, "{:?}", j.details);
}
