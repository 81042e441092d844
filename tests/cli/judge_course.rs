//! `kenken judge` in a course (issue #44): Gradescope's `results.json`, JUnit XML, a teacher's
//! own suite file, the smallest failing puzzle (shrunk from a shipped wrong file, and a file
//! that answers at random reported as not reproducible), and the class page as HTML, looked at
//! in a real browser (headless Chromium, when installed).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::kenken;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/");

fn fixture(name: &str) -> String {
    format!("{DIR}{name}")
}

/// The spec's cases, kenken/3 only, under Scryer, with time enough for a busy machine.
const SPEC_KENKEN: &[&str] = &[
    "--suite",
    "spec",
    "--prolog",
    "scryer",
    "--predicates",
    "kenken",
    "--timeout",
    "120",
];

/// Time enough to shrink a failing case to the smallest failing puzzle on a busy machine (the
/// default, 20 s, is for a teacher's run; a shrink that is done stops before).
const SHRINK: [&str; 2] = ["--shrink-time", "120"];

/// Runs `kenken judge` with `args`: stdout, stderr, exit code.
fn judge(args: &[&str]) -> (String, String, i32) {
    let out = kenken().arg("judge").args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The JSON summary of judging `file` with `args`.
fn summary(file: &str, args: &[&str]) -> Value {
    let mut all = vec![file, "--output", "json"];
    all.extend(args);
    let (out, err, _) = judge(&all);
    let last = out
        .lines()
        .last()
        .unwrap_or_else(|| panic!("no output: {err}"));
    serde_json::from_str::<Value>(last).unwrap()["summary"].clone()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn gradescope_results_have_every_field_the_seed_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--prolog",
        "scryer",
        "--predicates",
        "kenken",
        "--max-size",
        "4",
        "--seed",
        "4242",
        "--timeout",
        "120",
        "--output",
        "gradescope",
    ];
    let file = fixture("missing_answer.pl");
    let mut all = vec![file.as_str()];
    all.extend(args);
    all.extend(SHRINK);
    let (out, err, code) = judge(&all);
    assert_eq!(code, 1, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let tests = r["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "kenken/3 spec examples",
            "kenken/3 edge cases",
            "kenken/3 random puzzles"
        ]
    );
    for t in tests {
        for field in ["score", "max_score"] {
            assert!(t[field].as_f64().unwrap() >= 0.0, "{t}");
        }
        assert!(["passed", "failed"].contains(&t["status"].as_str().unwrap()));
        assert_eq!(t["visibility"], "visible");
        assert!(t["output"].is_string());
    }
    // 1 point per case by default: the spec examples' 6x6 and 4x4 example fail
    let spec = &tests[0];
    assert_eq!(spec["status"], "failed");
    assert_eq!(spec["max_score"], 7.0);
    assert_eq!(spec["score"], 5.0);
    assert!(spec["output"]
        .as_str()
        .unwrap()
        .contains("spec 4x4 example (six answers): wrong: 3 of 6 expected"));
    let sum: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    assert_eq!(r["score"].as_f64().unwrap(), sum);
    assert!(r["execution_time"].is_u64());
    let output = r["output"].as_str().unwrap();
    assert!(
        output.contains("--seed 4242` makes the same cases again"),
        "{output}"
    );
    assert!(output.contains("smallest failing puzzle: kenken/3, missing answer"));

    // a teacher's weights: the group's points shared by its cases
    let weights = write(
        dir.path(),
        "weights.txt",
        "# points per group\nkenken/3 spec examples = 30\nkenken/3 edge cases = 0\n",
    );
    // (the spec examples, whose names all hold "spec", and one edge case: the two groups
    // weighed)
    let mut all = vec![file.as_str(), "--shrink-time", "0", "--weights"];
    all.push(weights.to_str().unwrap());
    all.extend(["--only", "spec", "--only", "N = 0"]);
    all.extend(args);
    let (out, _, _) = judge(&all);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["tests"][0]["max_score"], 30.0);
    assert_eq!(r["tests"][0]["score"], 21.44);
    assert_eq!(r["tests"][1]["name"], "kenken/3 edge cases");
    assert_eq!(r["tests"][1]["max_score"], 0.0);
    assert!(!r["output"]
        .as_str()
        .unwrap()
        .contains("smallest failing puzzle"));

    // one test per case
    let mut all = vec![file.as_str(), "--shrink-time", "0", "--grade-by", "case"];
    all.extend(["--only", "spec 4x4 example"]);
    all.extend(args);
    let (out, _, _) = judge(&all);
    let r: Value = serde_json::from_str(&out).unwrap();
    let t = r["tests"].as_array().unwrap();
    assert!(t.iter().any(|t| t["name"]
        == "kenken/3 spec examples: spec 4x4 example (six answers)"
        && t["status"] == "failed"
        && t["score"] == 0.0
        && t["max_score"] == 1.0));
}

#[test]
fn gradescope_gets_results_even_when_the_file_does_not_load_and_bad_weights_are_refused() {
    let (out, _, code) = judge(&[
        &fixture("syntax_error.pl"),
        "--prolog",
        "scryer",
        "--output",
        "gradescope",
    ]);
    assert_eq!(code, 2);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["score"], 0.0);
    assert!(r["output"]
        .as_str()
        .unwrap()
        .contains("could not be judged: "));
    assert!(r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["score"] == 0.0 && t["status"] == "failed"));

    let dir = tempfile::tempdir().unwrap();
    let weights = write(dir.path(), "w.txt", "kenken/3 spec = 10\n");
    let (_, err, code) = judge(&[
        &fixture("clpz_correct.pl"),
        "--output",
        "gradescope",
        "--weights",
        weights.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("w.txt: line 1: unknown group \"kenken/3 spec\""),
        "{err}"
    );
    // a class is not one submission
    let (_, err, code) = judge(&[DIR, "--output", "gradescope"]);
    assert_eq!(code, 2);
    assert!(err.contains("--output gradescope grades one submission"));
}

/// Checks that `xml` is well formed as far as its tags go (each opened tag closed in order),
/// and gives every tag's name with its attribute text, in order.
fn xml_tags(xml: &str) -> Vec<(String, String)> {
    let mut open: Vec<String> = Vec::new();
    let mut tags = Vec::new();
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .unwrap();
    let mut rest = body;
    while let Some(at) = rest.find('<') {
        let end = rest[at..].find('>').unwrap() + at;
        let tag = &rest[at + 1..end];
        assert!(!rest[..at].contains(['<', '>']), "stray markup: {rest}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "{xml}");
        } else {
            let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            let name = name.trim_end_matches('/');
            tags.push((name.to_string(), attrs.to_string()));
            if !tag.ends_with('/') {
                open.push(name.to_string());
            }
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "{open:?} not closed");
    tags
}

#[test]
fn junit_xml_has_a_test_case_per_case_and_a_failure_per_failing_one() {
    let (out, err, code) = judge(
        &[
            &fixture("missing_answer.pl"),
            "--output",
            "junit",
            "--shrink-time",
            "0",
        ]
        .into_iter()
        .chain(SPEC_KENKEN.iter().copied())
        .collect::<Vec<_>>(),
    );
    assert_eq!(code, 1, "{err}");
    let tags = xml_tags(&out);
    let count = |name: &str| tags.iter().filter(|(n, _)| n == name).count();
    assert_eq!(count("testsuites"), 1);
    assert_eq!(count("testsuite"), 1);
    assert_eq!(count("testcase"), 8);
    assert_eq!(count("failure"), 3);
    let suite = &tags.iter().find(|(n, _)| n == "testsuite").unwrap().1;
    assert!(suite.contains("tests=\"8\" failures=\"3\" errors=\"0\" skipped=\"0\""));
    assert!(out.contains("<testcase classname=\"/".to_string().as_str()));
    assert!(out.contains("name=\"spec 4x4 example (six answers)\""));
    assert!(out.contains("<failure message=\"wrong: 3 of 6 expected; 3 answers missing"));
    // a halting file: errors, not failures
    let (out, _, _) = judge(
        &[
            &fixture("halts.pl"),
            "--output",
            "junit",
            "--shrink-time",
            "0",
        ]
        .into_iter()
        .chain(SPEC_KENKEN.iter().copied())
        .collect::<Vec<_>>(),
    );
    let tags = xml_tags(&out);
    assert!(tags.iter().filter(|(n, _)| n == "error").count() >= 5);
}

#[test]
fn junit_escapes_what_a_judged_file_prints() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "evil.pl",
        "kenken(_, _, _) :- throw(']]></failure></testcase><x a=\"&').\n\
         plain_kenken(_, _, _).\n",
    );
    let (out, _, code) = judge(&[
        file.to_str().unwrap(),
        "--output",
        "junit",
        "--shrink-time",
        "0",
        "--max-size",
        "1",
        "--suite",
        "spec",
        "--predicates",
        "kenken",
    ]);
    assert_eq!(code, 1);
    let tags = xml_tags(&out);
    assert!(!tags.iter().any(|(n, _)| n == "x"));
    assert!(out.contains("]]&gt;&lt;/failure&gt;&lt;/testcase&gt;&lt;x a=&quot;&amp;"));
}

#[test]
fn the_smallest_failing_puzzle_of_a_shipped_wrong_file_is_smaller_and_fails_the_same_way() {
    let file = fixture("missing_answer.pl");
    let s = summary(&file, &[SPEC_KENKEN, &SHRINK].concat());
    let c = &s["counterexample"];
    assert_eq!(c["failure"], "missing_answer", "{s}");
    assert_eq!(c["reproducible"], true);
    assert_eq!(c["verdict"], "wrong");
    let size = c["size"].as_u64().unwrap();
    let from = c["from_size"].as_u64().unwrap();
    assert!(size < from, "{c}");
    // the file posts A - B #= D only: the smallest puzzle is a 2x2 with one `-` cage
    assert_eq!((size, c["cages"].as_u64().unwrap()), (2, 1), "{c}");
    assert!(c["goal"].as_str().unwrap().starts_with("kenken(2, [-(1, "));
    assert!(c["expected"].is_array());
    // saved, it is a suite: the file fails it the same way, a correct file passes it
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "smallest.pl", c["puzzle"].as_str().unwrap());
    let suite = suite.to_str().unwrap();
    let again = summary(
        &file,
        &[
            "--suite",
            suite,
            "--prolog",
            "scryer",
            "--predicates",
            "kenken",
            "--shrink-time",
            "0",
        ],
    );
    assert_eq!(again["cases"], 1);
    assert_eq!(again["verdicts"]["wrong"], 1);
    assert_eq!(again["exit_code"], 1);
    let (out, _, code) = judge(&[
        &fixture("clpz_correct.pl"),
        "--suite",
        suite,
        "--prolog",
        "scryer",
    ]);
    assert_eq!(code, 0, "{out}");
    // the table names it and draws it (shrunk again from the saved puzzle: it is as small)
    let (out, _, _) = judge(&[
        &file,
        "--suite",
        suite,
        "--prolog",
        "scryer",
        "--predicates",
        "kenken",
        SHRINK[0],
        SHRINK[1],
    ]);
    assert!(out.contains("smallest failing puzzle: kenken/3, missing answer (2x2, 1 cage;"));
    assert!(out.contains("│1-     │"), "{out}");
}

#[test]
fn an_extra_answer_shrinks_to_the_cage_that_repeats_it() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(
        dir.path(),
        "zero.pl",
        "% difference 0, quotient 1\nkenken_testcase(3, [-(0, [1|1], [2|2]), /(1, [1|2], [2|3])]).\n",
    );
    let s = summary(
        &fixture("repeats.pl"),
        &[
            "--suite",
            suite.to_str().unwrap(),
            "--prolog",
            "scryer",
            "--predicates",
            "kenken",
            "--timeout",
            "120",
            SHRINK[0],
            SHRINK[1],
        ],
    );
    let c = &s["counterexample"];
    assert_eq!(c["failure"], "extra_answer", "{s}");
    assert_eq!(c["verdict"], "duplicate");
    assert_eq!(c["cages"], 1, "{c}");
    assert!(c["size"].as_u64().unwrap() <= c["from_size"].as_u64().unwrap());
    assert_eq!(c["answer"], c["expected"]);
}

#[test]
fn a_file_that_answers_at_random_is_reported_as_not_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "random.pl",
        ":- use_module(library(random)).\n\
         :- use_module(library(lists)).\n\
         % a grid of random digits, whatever the puzzle\n\
         kenken(N, _, T) :- length(T, N), maplist(random_row(N), T).\n\
         plain_kenken(N, C, T) :- kenken(N, C, T).\n\
         random_row(N, R) :- length(R, N), maplist(random_digit, R).\n\
         random_digit(V) :- random_integer(1, 10, V).\n",
    );
    let file = file.to_str().unwrap();
    let s = summary(file, &[SPEC_KENKEN, &SHRINK].concat());
    let c = &s["counterexample"];
    assert_eq!(c["reproducible"], false, "{s}");
    assert_eq!(c["size"], c["from_size"]);
    let (out, _, code) = judge(&[&[file][..], SPEC_KENKEN, &SHRINK].concat());
    assert_eq!(code, 1);
    assert!(
        out.contains("NOT REPRODUCIBLE: the file answered differently"),
        "{out}"
    );
}

#[test]
fn a_teachers_suite_in_any_notation_gets_its_answers_from_the_native_solver() {
    let dir = tempfile::tempdir().unwrap();
    // the JSON notation, no answers given; the second puzzle has 2 solutions
    let suite = write(
        dir.path(),
        "mine.jsonl",
        "{\"size\": 2, \"cages\": [{\"op\": \"-\", \"target\": 1, \"cells\": [[1,1],[1,2]]}]}\n\
         {\"size\": 3, \"cages\": [{\"op\": \"+\", \"target\": 6, \"cells\": [[1,1],[1,2],[1,3]]}, \
         {\"op\": \"=\", \"target\": 2, \"cells\": [[2,2]]}]}\n",
    );
    let suite = suite.to_str().unwrap();
    let args = ["--suite", suite, "--prolog", "scryer", "--shrink-time", "0"];
    let s = summary(&fixture("clpz_correct.pl"), &args);
    assert_eq!(s["exit_code"], 0, "{s}");
    assert_eq!(s["cases"], 4);
    let s = summary(&fixture("missing_answer.pl"), &args);
    assert_eq!(s["verdicts"]["wrong"], 1, "{s}");
    assert_eq!(s["verdicts"]["pass"], 3);
}

/// Chromium, when installed (`apt-get install chromium`).
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs headless Chromium on `url` with `args` (its profile in `dir`), bounded in time.
fn headless(browser: &str, dir: &Path, args: &[&str], url: &str) -> std::process::Output {
    let profile = format!("--user-data-dir={}", dir.join("profile").display());
    Command::new("timeout")
        .args([
            "120",
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-dev-shm-usage",
            &profile,
        ])
        .args(args)
        .arg(url)
        .output()
        .unwrap()
}

#[test]
fn the_class_page_is_self_contained_sortable_and_draws_the_smallest_failing_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    for (name, from) in [
        ("ann.pl", "clpz_correct.pl"),
        ("bob.pl", "missing_answer.pl"),
    ] {
        std::fs::copy(fixture(from), class.join(name)).unwrap();
    }
    let (page, err, code) = judge(&[
        class.to_str().unwrap(),
        "--output",
        "html",
        "--suite",
        "spec",
        "--prolog",
        "scryer",
        "--predicates",
        "kenken",
        "--timeout",
        "120",
        SHRINK[0],
        SHRINK[1],
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(page.starts_with("<!DOCTYPE html>"));
    // nothing from the network: no link out, no remote style, font or image
    for remote in ["src=", "href=\"http", "url(", "@import"] {
        assert!(!page.contains(remote), "{remote}");
    }
    assert!(page.contains("<h3>smallest failing puzzle: kenken/3, missing answer</h3>"));
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(page.contains("1 of 2 files passed every case."));
    assert!(page.contains(">2x2, 1 cage: missing answer</a>"));
    // the differing cells are marked where the file gave an answer that is not a solution:
    // here it gave none, and says so
    assert!(page.contains("The file does not give this answer."));
    let html = write(dir.path(), "class.html", &page);
    let Some(browser) = chromium() else {
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let url = format!("file://{}", html.display());
    // after layout and the page's script: the table sorted by file, the last first
    let dom = headless(
        browser,
        dir.path(),
        &["--dump-dom"],
        &format!("{url}#sort=-file"),
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let body = dom.split("<tbody>").nth(1).expect("a table");
    let bob = body.find("bob.pl").expect("bob's row");
    let ann = body.find("ann.pl").expect("ann's row");
    assert!(bob < ann, "not sorted: {body}");
    assert!(
        dom.contains("data-key=\"file\" aria-sort=\"descending\""),
        "{dom}"
    );
    // a screenshot of the page as drawn: a real image, not a blank one
    let png = dir.path().join("class.png");
    let shot = format!("--screenshot={}", png.display());
    let out = headless(
        browser,
        dir.path(),
        &[&shot, "--window-size=1400,1000"],
        &url,
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(bytes.len() > 20_000, "{} bytes", bytes.len());
    if let Ok(keep) = std::env::var("KENKEN_KEEP_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}
