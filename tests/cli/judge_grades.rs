//! `kenken judge` as a course TA grades with it (issue #52): a Latin-1 file loads and is
//! judged, a budget ends a never-answering file in time with a valid `results.json` naming the
//! cases it did not reach, `--order any` passes a file that only orders differently while
//! `strict` keeps the verdict `order`, every kind of failure a file has is shown, points add
//! up exactly (an empty file earns nothing, a file that does not load lists every test at 0),
//! Gradescope's options, and JUnit XML valid against the structure of Jenkins' junit-10.xsd,
//! CSV points and the HTML page's additions. The cases are few (`--only`, tiny suites).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::kenken;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/");

fn fixture(name: &str) -> String {
    format!("{DIR}{name}")
}

/// Runs `kenken judge` with `args`: stdout, stderr, exit code.
fn judge(args: &[&str]) -> (String, String, i32) {
    let out = kenken().arg("judge").args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Under Scryer, the spec suite, kenken/3 only, time enough for a busy machine, no shrink.
const SCRYER_SPEC: &[&str] = &[
    "--prolog",
    "scryer",
    "--suite",
    "spec",
    "--timeout",
    "120",
    "--shrink-time",
    "0",
];

/// The 1x1, 2x2 and 3x3 cases of the spec suite.
const SMALL: &[&str] = &[
    "--only",
    "spec: kenken(1,",
    "--only",
    "spec: kenken(2,",
    "--only",
    "spec: kenken(3,",
];

/// The JSON summary (the last line) of a `--output json` run.
fn summary(out: &str) -> Value {
    serde_json::from_str::<Value>(out.lines().last().unwrap()).unwrap()["summary"].clone()
}

#[test]
fn a_file_with_a_latin1_byte_loads_and_is_judged_saying_how_it_was_read() {
    let dir = tempfile::tempdir().unwrap();
    // (0xD7, the multiplication sign in Latin-1, in a comment: not UTF-8)
    let mut text = b"% products such as 3 \xd7 4\n".to_vec();
    text.extend(std::fs::read(fixture("clpz_correct.pl")).unwrap());
    let file = write(dir.path(), "kenken.pl", &text);
    let mut args = vec![file.to_str().unwrap(), "--output", "json"];
    args.extend(SCRYER_SPEC);
    args.extend(["--predicates", "kenken", "--only", "spec: kenken(2,"]);
    let (out, err, code) = judge(&args);
    assert_eq!(code, 0, "{err}");
    let s = summary(&out);
    assert_eq!(s["verdicts"]["pass"], 1);
    assert!(s["notes"].as_array().unwrap().iter().any(|n| n
        == "the file is not UTF-8 (byte 0xD7 on line 1): it was read as Latin-1 \
                       (ISO 8859-1, every byte a character), as GNU Prolog reads it (and \
                       SWI-Prolog loads it, with a warning)"));
}

#[test]
fn a_budget_ends_a_never_answering_file_in_time_with_the_cases_it_did_not_reach() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "kenken.pl",
        b"kenken(_, _, _) :- repeat, fail.\nplain_kenken(_, _, _) :- repeat, fail.\n",
    );
    let start = Instant::now();
    let (out, err, _) = judge(&[
        file.to_str().unwrap(),
        "--prolog",
        "scryer",
        "--suite",
        "spec",
        "--timeout",
        "3",
        "--budget",
        "8",
        "--output",
        "gradescope",
    ]);
    // (within the budget, and a little for the program's own start and end)
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    assert_eq!(r["score"], 0.0);
    let tests = r["tests"].as_array().unwrap();
    // every test the suite has, its cases not reached said so
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "kenken/3 spec examples",
            "plain_kenken/3 spec examples",
            "plain_kenken/3 form check"
        ]
    );
    let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert_eq!(max, 16.0);
    assert!(
        tests[1]["output"]
            .as_str()
            .unwrap()
            .contains("spec: plain_kenken(4, [], T): skipped: not reached: "),
        "{}",
        tests[1]["output"]
    );
}

#[test]
fn another_order_passes_under_any_and_is_the_verdict_order_under_strict() {
    // largest_first.pl labels the largest value first: kenken(2, [], T)'s two answers reversed
    let file = fixture("largest_first.pl");
    let run = |order: &str| {
        let mut args = vec![file.as_str(), "--output", "json", "--order", order];
        args.extend(SCRYER_SPEC);
        args.extend(["--predicates", "kenken", "--only", "spec: kenken(2,"]);
        let (out, err, code) = judge(&args);
        let case: Value = serde_json::from_str(out.lines().next().unwrap())
            .unwrap_or_else(|e| panic!("{e}: {err}"));
        (case, summary(&out), code)
    };
    let (case, s, code) = run("any");
    assert_eq!((case["verdict"].as_str(), code), (Some("pass"), 0));
    assert!(case["detail"]
        .as_str()
        .unwrap()
        .starts_with("the right answers, in another order than the spec's (--order any): answer 1 is [[2,1],[1,2]]"));
    assert_eq!(case["out_of_order"]["at"], 1);
    assert_eq!(s["order"], "any");
    let (case, s, code) = run("strict");
    assert_eq!((case["verdict"].as_str(), code), (Some("order"), 1));
    assert_eq!(
        s["failures"][0].as_str().unwrap().split(':').next(),
        Some("answers in the wrong order")
    );
}

#[test]
fn every_kind_of_failure_a_file_has_is_shown_not_only_the_first() {
    // repeats.pl gives each answer twice (difference 0, quotient 1) and, labeling its
    // disjunctions, the spec's 4x4 example in another order
    let mut args = vec![
        fixture("repeats.pl"),
        "--prolog".into(),
        "scryer".into(),
        "--predicates".into(),
        "kenken".into(),
        "--order".into(),
        "strict".into(),
        "--timeout".into(),
        "120".into(),
        "--shrink-time".into(),
        "0".into(),
        "--only".into(),
        "spec 4x4 example".into(),
        "--only".into(),
        "difference 0".into(),
    ];
    let run = |args: &[String], output: &str| {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(["--output", output]);
        judge(&a)
    };
    let (out, err, code) = run(&args, "gradescope");
    assert_eq!(code, 1, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let output = r["output"].as_str().unwrap();
    let extra = output
        .find("- extra answer (a solution given twice): 1 case")
        .unwrap();
    let order = output.find("- answers in the wrong order: 1 case").unwrap();
    assert!(extra < order, "the most serious first: {output}");
    // the class table too: both kinds, the most serious first
    args.push(fixture("clpz_correct.pl"));
    let (out, _, _) = run(&args, "table");
    let row = out.lines().find(|l| l.contains("repeats.pl")).unwrap();
    assert!(
        row.contains("extra answer (a solution given twice), answers in the wrong order"),
        "{out}"
    );
}

#[test]
fn points_add_up_exactly_and_nothing_is_earned_for_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // 100 points over three cases: 33.34, 33.33, 33.33
    let weights = write(dir.path(), "w.txt", b"kenken/3 spec examples = 100\n");
    let file = fixture("clpz_correct.pl");
    let mut args = vec![
        file.as_str(),
        "--output",
        "gradescope",
        "--grade-by",
        "case",
        "--predicates",
        "kenken",
        "--weights",
        weights.to_str().unwrap(),
    ];
    args.extend(SCRYER_SPEC);
    args.extend(SMALL);
    let (out, err, code) = judge(&args);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let tests = r["tests"].as_array().unwrap();
    let max: Vec<f64> = tests
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .collect();
    assert_eq!(max, [33.34, 33.33, 33.33]);
    assert_eq!(max.iter().sum::<f64>(), 100.0);
    assert_eq!(r["score"], 100.0);

    // an empty file: no point at all (the form check needs a plain_kenken/3 that works)
    let empty = write(dir.path(), "empty.pl", b"");
    let mut args = vec![empty.to_str().unwrap(), "--output", "gradescope"];
    args.extend(SCRYER_SPEC);
    args.extend([
        "--only",
        "spec: kenken(1,",
        "--only",
        "spec: plain_kenken(1,",
    ]);
    let (out, _, _) = judge(&args);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["score"], 0.0);
    let form = r["tests"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(form["name"], "plain_kenken/3 form check");
    assert_eq!(
        (form["score"].as_f64(), form["max_score"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    assert!(form["output"]
        .as_str()
        .unwrap()
        .contains("plain_kenken/3 is not defined in the file"));

    // a file that does not load: every test of the suite, at 0 (not -0.0)
    let (out, _, code) = judge(&[
        &fixture("syntax_error.pl"),
        "--prolog",
        "scryer",
        "--suite",
        "spec",
        "--output",
        "gradescope",
    ]);
    assert_eq!(code, 2);
    assert!(!out.contains("-0.0"), "{out}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "kenken/3 spec examples",
            "plain_kenken/3 spec examples",
            "plain_kenken/3 form check"
        ]
    );
    assert!(r["output"].as_str().unwrap().contains("score: 0 of 16"));
}

#[test]
fn weights_and_suites_that_cannot_be_graded_are_refused_before_judging() {
    let dir = tempfile::tempdir().unwrap();
    // a group the spec suite has no case of: its 30 points would be lost for every file
    let weights = write(
        dir.path(),
        "w.txt",
        b"kenken/3 spec examples = 70\nkenken/3 random puzzles = 30\n",
    );
    let (_, err, code) = judge(&[
        &fixture("clpz_correct.pl"),
        "--suite",
        "spec",
        "--weights",
        weights.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the suite has no case of \"kenken/3 random puzzles\" (30 points)"),
        "{err}"
    );
    // a suite whose only puzzle is not valid: no case to run, no score of 1.0/1.0
    let suite = write(
        dir.path(),
        "mine.pl",
        b"kenken_testcase(2, [+(3, [[1|1], [3|1]])]).\n",
    );
    let (out, err, code) = judge(&[
        &fixture("clpz_correct.pl"),
        "--suite",
        suite.to_str().unwrap(),
        "--output",
        "gradescope",
    ]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("puzzle 1 (line 1) is not a valid puzzle: "),
        "{err}"
    );
}

#[test]
fn gradescope_options_visibility_a_seed_per_assignment_and_the_judge_named() {
    let dir = tempfile::tempdir().unwrap();
    let weights = write(dir.path(), "w.txt", b"kenken/3 spec examples = 10 hidden\n");
    let run = || {
        let mut args = vec![
            fixture("clpz_correct.pl"),
            "--output".into(),
            "gradescope".into(),
            "--predicates".into(),
            "kenken".into(),
            "--visibility".into(),
            "after_due_date".into(),
            "--weights".into(),
            weights.to_str().unwrap().into(),
            "--seed".into(),
            "cs131-hw4".into(),
            "--only".into(),
            "spec: kenken(1,".into(),
        ];
        args.extend(SCRYER_SPEC.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, err, code) = judge(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let r = run();
    assert_eq!(r["visibility"], "after_due_date");
    assert_eq!(r["tests"][0]["visibility"], "hidden");
    let output = r["output"].as_str().unwrap();
    assert!(output.starts_with(&format!("kenken judge {}\n", env!("CARGO_PKG_VERSION"))));
    assert!(
        output.contains("Prolog system: scryer (Scryer Prolog 0.10.0"),
        "{output}"
    );
    // a word for a seed: the same word, the same random puzzles, for every resubmission
    let seed = || {
        let (out, err, _) = judge(&[
            &fixture("clpz_correct.pl"),
            "--seed",
            "cs131-hw4",
            "--prolog",
            "scryer",
            "--only",
            "random 2x2 #1",
            "--predicates",
            "kenken",
            "--shrink-time",
            "0",
            "--output",
            "json",
        ]);
        let s = summary(&out);
        let case: Value = serde_json::from_str(out.lines().next().unwrap())
            .unwrap_or_else(|e| panic!("{e}: {err}"));
        (s["seed"].as_u64().unwrap(), case["goal"].clone())
    };
    let (first, goal) = seed();
    assert!(first > 0 && first < 1 << 48);
    assert_eq!(seed(), (first, goal));
}

/// A time as junit-10.xsd's `SUREFIRE_TIME` takes it: digits, and a fraction.
fn junit_time(v: &str) -> bool {
    let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// Checks that `node` carries only `allowed` attributes, and every `required` one.
fn junit_attributes(node: roxmltree::Node, allowed: &[&str], required: &[&str]) {
    let tag = node.tag_name().name();
    for a in node.attributes() {
        assert!(
            allowed.contains(&a.name()),
            "{tag} may not carry {}",
            a.name()
        );
        if a.name() == "time" {
            assert!(junit_time(a.value()), "time {:?}", a.value());
        }
    }
    for r in required {
        assert!(node.attribute(*r).is_some(), "{tag} needs {r}");
    }
}

/// The elements `node` holds.
fn elements<'a, 'i>(node: roxmltree::Node<'a, 'i>) -> Vec<roxmltree::Node<'a, 'i>> {
    node.children().filter(|c| c.is_element()).collect()
}

/// Checks `xml` against the structure Jenkins' junit-10.xsd (xunit-plugin) requires: the
/// elements each may hold, the attributes each may carry (and must), a time as digits with an
/// optional fraction. Gives the number of test cases.
fn junit_10(xml: &str) -> usize {
    let doc = roxmltree::Document::parse(xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    junit_attributes(root, &["name", "time", "tests", "failures", "errors"], &[]);
    let mut cases = 0;
    for suite in elements(root) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        junit_attributes(
            suite,
            &[
                "name",
                "tests",
                "failures",
                "errors",
                "group",
                "time",
                "skipped",
                "timestamp",
                "hostname",
                "id",
                "package",
                "file",
                "log",
                "url",
            ],
            &["name", "tests", "failures", "errors"],
        );
        for child in elements(suite) {
            match child.tag_name().name() {
                "properties" => {
                    for p in elements(child) {
                        assert_eq!(p.tag_name().name(), "property");
                        junit_attributes(p, &["name", "value"], &["name", "value"]);
                    }
                }
                "testcase" => {
                    cases += 1;
                    junit_attributes(child, &["name", "time", "classname", "group"], &["name"]);
                    for c in elements(child) {
                        let name = c.tag_name().name();
                        assert!(
                            ["skipped", "error", "failure", "system-out", "system-err"]
                                .contains(&name),
                            "testcase may not hold {name}"
                        );
                        if ["skipped", "error", "failure"].contains(&name) {
                            junit_attributes(c, &["type", "message"], &[]);
                        }
                    }
                }
                "system-out" | "system-err" => assert!(elements(child).is_empty()),
                other => panic!("testsuite may not hold {other}"),
            }
        }
    }
    cases
}

#[test]
fn junit_is_valid_against_jenkins_junit_10_and_a_timeout_takes_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "kenken.pl",
        b"kenken(1, [], [[1]]).\nkenken(N, _, _) :- N > 1, repeat, fail.\nplain_kenken(_, _, _).\n",
    );
    let (out, err, code) = judge(&[
        file.to_str().unwrap(),
        &fixture("syntax_error.pl"),
        "--output",
        "junit",
        "--prolog",
        "scryer",
        "--suite",
        "spec",
        "--predicates",
        "kenken",
        "--timeout",
        "2",
        "--shrink-time",
        "0",
        "--only",
        "spec: kenken(1,",
        "--only",
        "spec: kenken(2,",
    ]);
    assert_eq!(code, 1, "{err}");
    // two cases of the file, and the file that does not load as one
    assert_eq!(junit_10(&out), 3, "{out}");
    let doc = roxmltree::Document::parse(&out).unwrap();
    let hang = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("spec: kenken(2, [], T)"))
        .unwrap();
    let time: f64 = hang.attribute("time").unwrap().parse().unwrap();
    assert!((2.0..3.0).contains(&time), "{time}");
    assert!(
        out.contains("<property name=\"points\" value=\"1\"/>"),
        "{out}"
    );
    // (the checker refuses what junit-10.xsd refuses)
    let bad = out.replace("<testsuites name=", "<testsuites skipped=\"0\" name=");
    assert!(std::panic::catch_unwind(|| junit_10(&bad)).is_err());
}

#[test]
fn csv_has_points_and_every_failure_and_the_page_has_what_a_ta_needs() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.pl", b"");
    let good = fixture("clpz_correct.pl");
    let mut args = vec![good.as_str(), empty.to_str().unwrap(), "--output", "csv"];
    args.extend(SCRYER_SPEC);
    args.extend([
        "--only",
        "spec: kenken(1,",
        "--only",
        "spec: plain_kenken(1,",
    ]);
    let (out, err, _) = judge(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(
            "file,kenken_passed,kenken_cases,plain_kenken_passed,plain_kenken_cases,points,\
             max_points,failures,first_failure,"
        ),
        "{out} {err}"
    );
    assert!(lines[1].contains(",1,1,1,1,3,3,,,"), "{}", lines[1]);
    assert!(lines[2].contains(",0,1,0,1,0,3,"), "{}", lines[2]);
    assert!(lines[2].contains("error: 2 cases, the first kenken/3 spec: kenken(1, [], T)"));
    assert!(lines[2].contains("; form check: plain_kenken/3 is not defined in the file"));
    // the page: points, the system, the date and the judge; every failing case; 0x0 drawn
    *args.iter_mut().find(|a| **a == "csv").unwrap() = "html";
    let (page, _, _) = judge(&args);
    assert!(page.contains("<td data-v=\"1.0000\">3 / 3</td>"), "{page}");
    assert!(page.contains("<td data-v=\"0.0000\">0 / 3</td>"));
    assert!(page.contains(&format!(
        "kenken judge {}; Prolog system: scryer",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(page.contains(" UTC</p>"));
    assert!(page.contains("<summary>the 2 cases that did not pass</summary>"));
    assert!(page.contains("<td>spec: plain_kenken(1, [], T)</td><td>error</td>"));
}
