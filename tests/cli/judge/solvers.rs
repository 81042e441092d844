//! No constraint solver for `plain_kenken/3` (issue #53, point 1): each way a file reached a
//! solver there, written as a student would and judged for real, one class per system (one
//! `kenken` run each, 1x1 cases only, `plain_kenken/3` only: a few seconds). Under SWI-Prolog
//! none passes: confinement leaves the solvers' files unreadable there. Under Scryer the stubs
//! hold for `library(clpb)` and `library(simplex)`, but the loader still gives out
//! `library(clpz)`'s text: that route passes, and every plain row says so. Also: a file that
//! defines library predicates the judge's own Prolog uses is judged on its answers.

use serde_json::Value;

use super::{fixture, judge, kenken};
use crate::common::swipl;

/// Judges the class folder `class` with `args`: one JSON row per file (by file name) and the
/// class's line, and the exit code.
fn class_rows(class: &std::path::Path, args: &[&str]) -> (Vec<(String, Value)>, Value, i32) {
    let out = kenken()
        .arg("judge")
        .arg(class)
        .args(["--output", "json", "--shrink-time", "0", "--jobs", "2"])
        .args(args)
        .output()
        .unwrap();
    let mut rows = Vec::new();
    let mut summary = Value::Null;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v.get("class") {
            Some(c) => summary = c.clone(),
            None => {
                let name = std::path::Path::new(v["file"].as_str().unwrap())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                rows.push((name, v));
            }
        }
    }
    (rows, summary, out.status.code().unwrap())
}

/// The row of `name` in `rows`.
fn row<'a>(rows: &'a [(String, Value)], name: &str) -> &'a Value {
    &rows
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no row {name}: {rows:?}"))
        .1
}

/// The 1x1 spec case, `plain_kenken/3` alone.
const PLAIN_1X1: &[&str] = &[
    "--suite",
    "spec",
    "--only",
    "kenken(1,",
    "--predicates",
    "plain_kenken",
    "--timeout",
    "60",
];

/// A `plain_kenken/3` by FD constraints on rows (enough for 1x1), after `head` (imports).
fn fd_plain(head: &str, ins: &str) -> String {
    format!(
        "{head}\nrow(N, R) :- length(R, N), {ins}, all_different(R).\n\
         plain_kenken(N, _, T) :- length(T, N), maplist(row(N), T), maplist(label, T).\n"
    )
}

/// Each way to a solver under SWI-Prolog, and what its row must say.
fn swi_attacks() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "redefine_module.pl",
            fd_plain(
                ":- use_module(library(clpfd)).\n\
                 :- load_files(library(clp/clpfd), [redefine_module(true)]).",
                "R ins 1..N",
            ),
            "plain_kenken/3 called the FD solver",
        ),
        (
            "unload_file.pl",
            fd_plain(
                ":- use_module(library(clpfd)).\n\
                 :- module_property(clpfd, file(F)), unload_file(F), \
                 use_module(library(clp/clpfd)).",
                "R ins 1..N",
            ),
            "error",
        ),
        (
            "bounds.pl",
            fd_plain(":- use_module(library(clp/bounds)).", "R in 1..N"),
            "plain_kenken/3 called the FD solver",
        ),
        (
            "clpb.pl",
            ":- use_module(library(clpb)).\n\
             plain_kenken(1, _, [[X]]) :- sat(B =:= 1), labeling([B]), X is B.\n"
                .into(),
            "error",
        ),
        (
            "clpq.pl",
            ":- use_module(library(clpq)).\n\
             plain_kenken(1, _, [[X]]) :- {X = 1}.\n"
                .into(),
            "error",
        ),
        (
            "simplex.pl",
            ":- use_module(library(simplex)).\n\
             plain_kenken(1, _, [[X]]) :- gen_state(S0), constraint([x] >= 1, S0, S1), \
             minimize([x], S1, S), variable_value(S, x, X).\n"
                .into(),
            "error",
        ),
        (
            "text.pl",
            "plain_kenken(1, _, [[1]]) :- file_search_path(swi, H), \
             atom_concat(H, '/library/clp/clpfd.pl', F), read_file_to_string(F, _, []).\n"
                .into(),
            "plain_kenken/3 tried to read the constraint library",
        ),
        ("honest.pl", "plain_kenken(1, _, [[1]]).\n".into(), ""),
    ]
}

#[test]
fn under_swipl_no_constraint_library_can_be_reached_from_plain_kenken() {
    if !swipl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    for (name, text, _) in swi_attacks() {
        std::fs::write(class.join(name), text).unwrap();
    }
    let (rows, summary, code) = class_rows(&class, &[PLAIN_1X1, &["--prolog", "swipl"]].concat());
    assert_eq!(code, 1, "{rows:?}");
    assert_eq!(summary["passed"], 1, "{rows:?}");
    for (name, _, says) in swi_attacks() {
        let r = row(&rows, name);
        if name == "honest.pl" {
            assert_eq!(r["ok"], true, "{r}");
            // (closed there: no caveat)
            assert!(r.get("plain_caveat").is_none(), "{r}");
            continue;
        }
        assert_eq!(r["passed"][0][1], 0, "{name}: {r}");
        assert_eq!(r["exit_code"], 1, "{name}: {r}");
        assert_eq!(r["verdicts"]["pass"], 0, "{name}: {r}");
        assert!(
            r["first_failure"].as_str().unwrap().contains(says),
            "{name}: {r}"
        );
    }
}

/// `library(clpz)`'s own text, read from Scryer's loader, renamed and loaded: the route the
/// judge cannot close under Scryer.
const CLPZ_TEXT: &str = r#"
:- use_module(library(lists)).
:- use_module(library(os)).
chars(S, Cs) :- get_char(S, C), ( C == end_of_file -> Cs = [] ; Cs = [C|Cs1], chars(S, Cs1) ).
renamed(Cs0, Cs) :- append(B, [m,o,d,u,l,e,'(',c,l,p,z,','|A], Cs0), !,
    append(B, [m,o,d,u,l,e,'(',c,l,p,z,'2',','|A], Cs).
bring :- '$load_library_as_stream'(clpz, S, _), chars(S, Cs0), renamed(Cs0, Cs),
    getenv("TMPDIR", Dir), append(Dir, "/clpz2.pl", F), atom_chars(File, F),
    open(File, write, W), maplist(put_char(W), Cs), close(W), use_module(File).
:- initialization(bring).
row(N, R) :- length(R, N), clpz2:ins(R, '..'(1, N)), clpz2:all_different(R).
plain_kenken(N, _, T) :- length(T, N), maplist(row(N), T), maplist(clpz2:label, T).
"#;

#[test]
fn under_scryer_clpb_and_simplex_are_stubs_and_every_plain_row_says_clpz_text_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let files = [
        ("clpz_text.pl", CLPZ_TEXT.to_string(), ""),
        (
            "clpb.pl",
            ":- use_module(library(clpb)).\n\
             plain_kenken(1, _, [[X]]) :- sat(B =:= 1), labeling([B]), X is B.\n"
                .into(),
            "plain_kenken/3 called a constraint solver (library(clpb))",
        ),
        (
            "simplex.pl",
            ":- use_module(library(simplex)).\n\
             plain_kenken(1, _, [[X]]) :- gen_state(S0), constraint([x] >= 1, S0, S1), \
             minimize([x], S1, S), variable_value(S, x, X).\n"
                .into(),
            "plain_kenken/3 called a constraint solver (library(simplex))",
        ),
        ("honest.pl", "plain_kenken(1, _, [[1]]).\n".into(), ""),
    ];
    for (name, text, _) in &files {
        std::fs::write(class.join(name), text).unwrap();
    }
    let (rows, summary, code) = class_rows(&class, &[PLAIN_1X1, &["--prolog", "scryer"]].concat());
    assert_eq!(code, 1, "{rows:?}");
    for (name, _, says) in &files {
        let r = row(&rows, name);
        // (every row judged under Scryer says that the FD solver stays reachable there)
        assert!(
            r["plain_caveat"]
                .as_str()
                .is_some_and(|k| k.contains("'$load_library_as_stream'/3")),
            "{name}: {r}"
        );
        if says.is_empty() {
            // the route that stays open passes its case, as an honest file does: the caveat
            // is all (the form check, a reading of the text, may see the names it uses)
            assert_eq!(r["passed"][0][1], 1, "{name}: {r}");
            continue;
        }
        assert_eq!(r["verdicts"]["error"], 1, "{name}: {r}");
        assert!(
            r["first_failure"].as_str().unwrap().contains(says),
            "{name}: {r}"
        );
    }
    assert_eq!(summary["passed"], 1, "{rows:?}");

    // one file: each plain case carries the caveat, and the table marks it
    let file = class.join("honest.pl");
    let scryer = [PLAIN_1X1, &["--prolog", "scryer"]].concat();
    let j = judge(file.to_str().unwrap(), &scryer);
    assert_eq!(j.code, 0);
    assert!(j.summary["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .starts_with("* every plain_kenken/3 case marked so")));
    let out = kenken()
        .args(["judge", file.to_str().unwrap(), "--shrink-time", "0"])
        .args(&scryer)
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table
            .lines()
            .any(|l| l.contains("spec: kenken(1, [], T)") && l.contains("pass *")),
        "{table}"
    );
}

#[test]
fn a_gnu_file_with_bb_put_and_random_integer_of_its_own_is_judged_on_its_answers() {
    // its own bb_put/2 throws and bb_get/2 fails: the GNU layer's labeling counts its
    // backtracks with the libraries' own (before, every case was an error)
    let j = judge(
        &fixture("gnu_own_library.pl"),
        &[
            "--prolog",
            "scryer",
            "--suite",
            "spec",
            "--max-size",
            "2",
            "--predicates",
            "kenken",
            "--timeout",
            "60",
        ],
    );
    assert_eq!(j.code, 0, "{:?}", j.details);
    assert_eq!(j.count("pass"), 2);
}
