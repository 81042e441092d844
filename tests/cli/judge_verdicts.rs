//! `kenken judge`: verdicts that cannot be gamed and say what happened (issue #35). The random
//! puzzles are new on every run (`--seed` repeats a run), the easy misreadings of the spec each
//! fail a case, a timeout on a small grid is a failure that hides nothing, and a
//! `plain_kenken/3` that reaches the FD solver fails the form check. Every judged file here is
//! written by the test into its own temp dir.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;

use crate::common::kenken;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/");

/// A correct Scryer solution (CLP(Z) `kenken/3`, plain `plain_kenken/3`).
fn clpz_correct() -> String {
    std::fs::read_to_string(format!("{DIR}clpz_correct.pl")).unwrap()
}

/// `text` with each `(from, to)` replaced; each `from` must be there.
fn changed(text: &str, changes: &[(&str, &str)]) -> String {
    let mut text = text.to_string();
    for (from, to) in changes {
        assert!(text.contains(from), "{from:?} is not in the file");
        text = text.replace(from, to);
    }
    text
}

/// Writes `text` as `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A run's JSON lines: the cases, the summary, the exit code.
struct Run {
    cases: Vec<Value>,
    summary: Value,
    code: i32,
}

impl Run {
    fn of(file: &Path, args: &[&str]) -> Run {
        let out = kenken()
            .arg("judge")
            .arg(file)
            // (the smallest failing puzzle is judge_course.rs's)
            .args(["--output", "json", "--shrink-time", "0"])
            .args(args)
            .output()
            .unwrap();
        let mut lines: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        let summary = lines.pop().expect("a summary")["summary"].clone();
        Run {
            cases: lines,
            summary,
            code: out.status.code().unwrap(),
        }
    }

    /// The case `name` of `predicate`.
    /// The case of `predicate` made from the item `name` (a spec goal's case is named with the
    /// predicate it runs: `spec: plain_kenken(2, [], T)`).
    fn case(&self, name: &str, predicate: &str) -> &Value {
        let name = match (predicate, name.strip_prefix("spec: kenken(")) {
            ("plain_kenken", Some(rest)) => format!("spec: plain_kenken({rest}"),
            _ => name.to_string(),
        };
        self.cases
            .iter()
            .find(|c| c["case"] == name.as_str() && c["predicate"] == predicate)
            .unwrap_or_else(|| panic!("no case {name} of {predicate}"))
    }

    /// `(case, goal)` of every random case.
    fn random_goals(&self) -> Vec<(String, String)> {
        self.cases
            .iter()
            .filter(|c| c["case"].as_str().unwrap().starts_with("random "))
            .map(|c| {
                (
                    c["case"].as_str().unwrap().to_string(),
                    c["goal"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The cases that did not pass, as `predicate case: verdict`.
    fn failures(&self) -> Vec<String> {
        self.cases
            .iter()
            .filter(|c| c["verdict"] != "pass")
            .map(|c| format!("{} {}: {}", c["predicate"], c["case"], c["verdict"]))
            .collect()
    }
}

/// The standard suite up to 4x4 under Scryer (every misreading case is there).
const SMALL_STANDARD: &[&str] = &["--prolog", "scryer", "--max-size", "4", "--timeout", "60"];

#[test]
fn random_cases_are_new_on_every_run_and_the_same_with_the_same_seed() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "kenken.pl", &clpz_correct());
    // (the random cases alone: the suite is planned whole, then filtered)
    let args = [
        "--predicates",
        "kenken",
        "--max-size",
        "3",
        "--prolog",
        "scryer",
        "--timeout",
        "60",
        "--only",
        "random",
    ];
    let run = |seed: Option<&str>| {
        let mut a: Vec<&str> = args.to_vec();
        if let Some(s) = seed {
            a.extend(["--seed", s]);
        }
        Run::of(&file, &a)
    };
    let (a, b) = (run(None), run(None));
    for r in [&a, &b] {
        assert_eq!(r.code, 0, "{:?}", r.failures());
        assert_eq!(
            r.random_goals().len(),
            6,
            "two of each size from 1x1 to 3x3"
        );
        assert!(r.summary["seed"].is_u64(), "{}", r.summary);
    }
    assert_ne!(a.summary["seed"], b.summary["seed"]);
    assert_ne!(a.random_goals(), b.random_goals());
    // the case names are the same, the puzzles not
    let names = |r: &Run| -> Vec<String> { r.random_goals().into_iter().map(|g| g.0).collect() };
    assert_eq!(names(&a), names(&b));
    // a run's seed makes it again
    let seed = a.summary["seed"].to_string();
    let again = run(Some(&seed));
    assert_eq!(again.random_goals(), a.random_goals());
    assert_eq!(again.summary["seed"], a.summary["seed"]);
    let (c, d) = (run(Some("12345")), run(Some("12345")));
    assert_eq!(c.random_goals(), d.random_goals());
    assert_eq!(c.summary["seed"], 12345);
    // the table shows it
    kenken()
        .arg("judge")
        .arg(&file)
        .args(args)
        .args(["--seed", "12345"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "standard suite (random puzzles of seed 12345: --seed 12345 makes them again), \
             cases up to 3x3",
        ));
    // a suite without random puzzles has no seed
    let spec = Run::of(
        &file,
        &["--suite", "spec", "--predicates", "kenken", "--only", "(1,"],
    );
    assert_eq!(spec.code, 0, "{:?}", spec.failures());
    assert_eq!(spec.summary["seed"], Value::Null);
    kenken()
        .args(["judge", "--seed", "-1", "x.pl"])
        .assert()
        .code(2);
}

#[test]
fn a_class_gets_one_seed_for_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    write(&class, "ann.pl", &clpz_correct());
    write(&class, "bob.pl", &clpz_correct());
    let csv = |seed: &[&str]| -> Vec<String> {
        let out = kenken()
            .arg("judge")
            .arg(&class)
            // (the seed is the run's, whatever the sizes: 1x1 has random puzzles too)
            .args(["--output", "csv", "--max-size", "1", "--prolog", "scryer"])
            .args(["--timeout", "60"])
            .args(seed)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let rows = csv(&["--seed", "99"]);
    assert_eq!(
        rows[0],
        "file,kenken_passed,kenken_cases,plain_kenken_passed,plain_kenken_cases,points,\
         max_points,failures,first_failure,kenken_ms,plain_over_fd,form,seed,exit_code"
    );
    for row in &rows[1..] {
        assert!(row.ends_with(",pass,99,0"), "{row}");
    }
    // without --seed, a fresh one, the same for both files
    let rows = csv(&[]);
    let seed = |row: &str| row.rsplit(',').nth(1).unwrap().to_string();
    assert_ne!(seed(&rows[1]), "99");
    assert_eq!(seed(&rows[1]), seed(&rows[2]));
    assert!(seed(&rows[1]).parse::<u64>().is_ok(), "{}", rows[1]);
}

/// A misreading: what it is, the changes that make it of the correct file, the case that must
/// fail and its predicate.
type Misreading<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str, &'a str);

#[test]
fn the_easy_misreadings_of_the_spec_each_fail_a_case() {
    let dir = tempfile::tempdir().unwrap();
    let correct = clpz_correct();
    let repeats = "repeats allowed: L-shaped +, quotient 1 on a diagonal, one-square +";
    let misreadings: [Misreading; 9] = [
        (
            "integer division",
            vec![
                (
                    "(A #= Q * B) #\\/ (B #= Q * A)",
                    "(Q #= A // B) #\\/ (Q #= B // A)",
                ),
                (
                    "(A =:= Q * B -> true ; B =:= Q * A)",
                    "(Q =:= A // B -> true ; Q =:= B // A)",
                ),
            ],
            repeats,
            "plain_kenken",
        ),
        (
            "- one order",
            vec![
                ("abs(A - B) #= D", "A - B #= D"),
                ("D =:= abs(A - B)", "D =:= A - B"),
            ],
            "spec 4x4 example (six answers)",
            "plain_kenken",
        ),
        (
            "/ one order",
            vec![
                ("(A #= Q * B) #\\/ (B #= Q * A)", "A #= Q * B"),
                ("(A =:= Q * B -> true ; B =:= Q * A)", "A =:= Q * B"),
            ],
            "squares in any order, one-square *: two solutions",
            "plain_kenken",
        ),
        (
            "[I|J] as column|row",
            vec![(
                "nth1(I, Grid, Row), nth1(J, Row, V)",
                "nth1(J, Grid, Row), nth1(I, Row, V)",
            )],
            "spec 4x4 example (six answers)",
            "plain_kenken",
        ),
        (
            "every cage's digits distinct",
            vec![
                (
                    "Vs), sum(Vs, #=, S)",
                    "Vs), all_distinct(Vs), sum(Vs, #=, S)",
                ),
                (
                    "Vs), product(Vs, P)",
                    "Vs), all_distinct(Vs), product(Vs, P)",
                ),
            ],
            "spec 4x4 example (six answers)",
            "kenken",
        ),
        (
            "a + cage's digits distinct",
            vec![(
                "Vs), sum_list(Vs, S).",
                "Vs), sort(Vs, Us), same_length(Us, Vs), sum_list(Vs, S).",
            )],
            repeats,
            "plain_kenken",
        ),
        (
            "one-square + not checked",
            vec![(
                "\ncage(Grid, +(S, Sqs)) :-",
                "\ncage(_, +(_, [_])) :- !.\ncage(Grid, +(S, Sqs)) :-",
            )],
            repeats,
            "kenken",
        ),
        (
            "one-square * not checked",
            vec![(
                "plain_cage(Grid, *(P, Sqs)) :-",
                "plain_cage(_, *(_, [_])) :- !.\nplain_cage(Grid, *(P, Sqs)) :-",
            )],
            "squares in any order, one-square *: two solutions",
            "plain_kenken",
        ),
        (
            "a cage T gives is not checked",
            vec![(
                "\ncage(Grid, +(S, Sqs)) :-",
                "\ncage(Grid, +(_, Sqs)) :- maplist(at(Grid), Sqs, Vs), ground(Vs), !.\n\
                 cage(Grid, +(S, Sqs)) :-",
            )],
            "repeats allowed, T partly given breaking the + cage",
            "kenken",
        ),
    ];
    for (what, changes, case, predicate) in misreadings {
        let file = write(
            dir.path(),
            &format!("{}.pl", what.replace(|c: char| !c.is_alphanumeric(), "_")),
            &changed(&correct, &changes),
        );
        // a plain_kenken/3 misreading: its predicate alone (the form check is run with it); a
        // kenken/3 one: both (the form check needs plain_kenken/3 judged); only the standard
        // suite's case that catches it (the correct file runs them all, below)
        let only = ["--only", case];
        let run = if predicate == "plain_kenken" {
            Run::of(
                &file,
                &[SMALL_STANDARD, &["--predicates", predicate], &only].concat(),
            )
        } else {
            Run::of(&file, &[SMALL_STANDARD, &only].concat())
        };
        assert_eq!(run.code, 1, "{what}: {:?}", run.failures());
        let verdict = &run.case(case, predicate)["verdict"];
        assert_eq!(verdict, "wrong", "{what}: {:?}", run.failures());
        // the form check has nothing against these
        assert_eq!(run.summary["form"]["passed"], true, "{what}");
    }
    // and the correct file passes every case
    let file = write(dir.path(), "correct.pl", &correct);
    let run = Run::of(&file, SMALL_STANDARD);
    assert_eq!(run.code, 0, "{:?}", run.failures());
    assert!(run.failures().is_empty());
    for predicate in ["kenken", "plain_kenken"] {
        for case in [
            repeats,
            "repeats allowed, T partly given breaking the + cage",
        ] {
            assert_eq!(run.case(case, predicate)["verdict"], "pass");
        }
    }
    assert_eq!(
        run.case(repeats, "kenken")["expected"],
        10,
        "{}",
        run.case(repeats, "kenken")
    );
}

/// A file that loops on 1x1 grids and answers a grid of 1s on every other.
const LOOPS_ON_ONE: &str = "\
kenken(N, _, T) :- N =:= 1, !, length(T, N), repeat, fail.
kenken(N, _, T) :- length(T, N), maplist(ones(N), T).
ones(N, Row) :- length(Row, N), maplist(=(1), Row).
plain_kenken(N, _, T) :- N =:= 1, !, length(T, N), repeat, fail.
plain_kenken(N, _, T) :- length(T, N), maplist(ones(N), T).
";

#[test]
fn a_file_that_loops_on_1x1_and_is_wrong_elsewhere_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "loops_on_one.pl", LOOPS_ON_ONE);
    // (the spec's cases and the 1x1 ones: the larger grids after a hang are the spec's)
    let run = Run::of(
        &file,
        &[
            "--prolog",
            "scryer",
            "--max-size",
            "6",
            "--timeout",
            "1",
            "--only",
            "spec",
            "--only",
            "1x1",
        ],
    );
    assert_eq!(run.code, 1, "{:?}", run.failures());
    for predicate in ["kenken", "plain_kenken"] {
        let one = run.case("spec: kenken(1, [], T)", predicate);
        assert_eq!(one["verdict"], "hang");
        assert_eq!(
            one["detail"],
            "no end within the time limit on a 1x1 grid (0 answers), which any correct \
             solver answers at once: a failure (the larger grids still run)"
        );
        // nothing skipped: the larger grids are judged, and wrong
        assert_eq!(run.case("spec 6x6 testcase", "kenken")["verdict"], "wrong");
        assert_eq!(
            run.case("spec 4x4 example (six answers)", predicate)["verdict"],
            "wrong"
        );
    }
    assert!(run.cases.iter().all(|c| c["verdict"] != "skipped"));
    assert_eq!(run.summary["verdicts"]["skipped"], 0);
    assert_eq!(
        run.summary["verdicts"]["hang"], 6,
        "3 1x1 cases, 2 predicates"
    );
}

/// `clpz_correct.pl` whose `plain_kenken/3` calls its `kenken/3` through a helper.
fn delegating() -> String {
    changed(
        &clpz_correct(),
        &[(
            "plain_kenken(N, Cages, Grid) :-",
            "plain_kenken(N, Cages, Grid) :- solve(N, Cages, Grid).\n\
             solve(N, Cages, Grid) :- kenken(N, Cages, Grid).\n\
             unused(N, Cages, Grid) :-",
        )],
    )
}

const CHAIN: &str = "plain_kenken/3 uses the FD solver: plain_kenken/3 -> solve/3 -> kenken/3 \
                     (the spec forbids it there)";

#[test]
fn a_plain_kenken_that_uses_the_fd_solver_fails_the_form_check() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "delegates.pl", &delegating());
    let spec = ["--suite", "spec", "--prolog", "scryer", "--timeout", "60"];
    let run = Run::of(&file, &spec);
    // kenken/3 passes; plain_kenken/3 finds no FD solver in its engine (its cases with answers
    // fail, naming it), and the form check says so too
    let failures = run.failures();
    assert!(!failures.is_empty());
    assert!(
        failures.iter().all(|f| f.starts_with("\"plain_kenken\"")),
        "{failures:?}"
    );
    assert!(
        run.case("spec 4x4 example (six answers)", "plain_kenken")["detail"]
            .as_str()
            .unwrap()
            .contains("plain_kenken/3 called the FD solver")
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.summary["exit_code"], 1);
    assert_eq!(run.summary["form"]["passed"], false);
    assert_eq!(run.summary["form"]["detail"], CHAIN);
    assert_eq!(
        run.summary["form"]["chain"],
        serde_json::json!(["plain_kenken/3", "solve/3", "kenken/3"])
    );
    // (below, a case with answers is enough: the form check runs whatever --only says)
    let example = ["--only", "spec 4x4 example"];
    kenken()
        .arg("judge")
        .arg(&file)
        .args(spec)
        .args(example)
        .args(["--shrink-time", "0"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "form check: no FD solver in plain_kenken/3",
        ))
        .stdout(predicate::str::contains(
            "form: plain_kenken/3 uses the FD solver",
        ))
        .stdout(predicate::str::contains("; form check failed ("));
    // not judged, not checked
    let fd_only = Run::of(
        &file,
        &[&spec[..], &["--predicates", "kenken"], &example].concat(),
    );
    assert_eq!(fd_only.code, 0);
    assert_eq!(fd_only.summary["form"], Value::Null);
    // the correct file, which imports clpz for its kenken/3, passes
    let correct = Run::of(
        Path::new(&format!("{DIR}clpz_correct.pl")),
        &[&spec[..], &example].concat(),
    );
    assert_eq!(correct.code, 0);
    assert_eq!(correct.summary["form"]["passed"], true);
    // in a class, a plain_kenken/3 case is the first failure, and the form check fails
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    write(&class, "ann.pl", &clpz_correct());
    write(&class, "bob.pl", &delegating());
    let out = kenken()
        .arg("judge")
        .arg(&class)
        .args(["--output", "csv"])
        .args(spec)
        .args(example)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let csv = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[1].ends_with(",pass,,0"), "{}", rows[1]);
    assert!(rows[2].contains("called the FD solver"), "{}", rows[2]);
    assert!(rows[2].ends_with(",fail,,1"), "{}", rows[2]);
}

#[test]
fn under_gnu_prolog_a_plain_kenken_reaching_fd_domain_fails_the_form_check() {
    if !crate::common::gprolog() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gnu = std::fs::read_to_string(format!("{DIR}gnu_correct.pl")).unwrap();
    // plain_kenken/3's rows get fd_domain/3 through row_domain/2
    let file = write(
        dir.path(),
        "gnu_fd.pl",
        &changed(
            &gnu,
            &[(
                "    maplist(row_length(N), T),\n    maplist(permutation(Ns), T),",
                "    maplist(row_length(N), T),\n    maplist(row_domain(N), T),\n    \
                 maplist(permutation(Ns), T),",
            )],
        ),
    );
    let spec = ["--suite", "spec", "--prolog", "gprolog", "--timeout", "60"];
    let run = Run::of(&file, &spec);
    assert_eq!(run.code, 1, "{:?}", run.failures());
    assert_eq!(
        run.summary["form"]["chain"],
        serde_json::json!(["plain_kenken/3", "row_domain/2", "fd_domain/3"])
    );
    let correct = Run::of(Path::new(&format!("{DIR}gnu_correct.pl")), &spec);
    assert_eq!(correct.code, 0, "{:?}", correct.failures());
    assert_eq!(correct.summary["form"]["passed"], true);
}

#[test]
fn only_runs_the_cases_named_with_the_puzzles_of_the_whole_suite() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "kenken.pl", &clpz_correct());
    let args = [
        "--predicates",
        "kenken",
        "--max-size",
        "2",
        "--prolog",
        "scryer",
        "--timeout",
        "60",
        "--seed",
        "7",
    ];
    let with = |only: &[&str]| Run::of(&file, &[&args[..], only].concat());
    let all = with(&[]);
    assert_eq!(all.code, 0, "{:?}", all.failures());
    assert_eq!(all.summary["only"], serde_json::json!([]));
    assert_eq!(all.summary["only_left_out"], 0);
    // the suite is planned whole, then filtered: the same random puzzles for the same seed
    let random = with(&["--only", "random"]);
    assert_eq!(random.code, 0, "{:?}", random.failures());
    assert_eq!(random.random_goals(), all.random_goals());
    assert_eq!(random.cases.len(), 4, "two of each size from 1x1 to 2x2");
    assert_eq!(random.summary["cases"], 4);
    assert_eq!(random.summary["only"], serde_json::json!(["random"]));
    assert_eq!(random.summary["only_left_out"], all.cases.len() - 4);
    let note = format!(
        "--only \"random\": {} of {} cases left out",
        all.cases.len() - 4,
        all.cases.len()
    );
    assert!(
        random.summary["notes"]
            .as_array()
            .unwrap()
            .contains(&note.clone().into()),
        "{}",
        random.summary["notes"]
    );
    // repeatable: a case named by any of the texts runs (a substring, case-sensitive)
    let two = with(&["--only", "N = 0", "--only", "random 2x2"]);
    let names: Vec<&str> = two
        .cases
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["N = 0", "random 2x2 #1", "random 2x2 #2"]);
    assert_eq!(
        two.random_goals(),
        all.random_goals()
            .into_iter()
            .filter(|(name, _)| name.starts_with("random 2x2"))
            .collect::<Vec<_>>()
    );
    // the table's first line says so
    kenken()
        .arg("judge")
        .arg(&file)
        .args(args)
        .args(["--only", "random 1x1"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "cases up to 2x2, only the cases named with \"random 1x1\" ({} left out); ",
            all.cases.len() - 2
        )))
        .stdout(predicate::str::contains("kenken.pl: 2 cases: 2 pass ("));

    // the exit code is the cases run's: a file wrong on the spec's 4x4 example
    let wrong = write(
        dir.path(),
        "one_order.pl",
        &changed(
            &clpz_correct(),
            &[
                ("abs(A - B) #= D", "A - B #= D"),
                ("D =:= abs(A - B)", "D =:= A - B"),
            ],
        ),
    );
    // (the spec's goals are named with the predicate they run)
    let one = Run::of(&wrong, &[SMALL_STANDARD, &["--only", "kenken(1,"]].concat());
    assert_eq!(one.code, 0, "{:?}", one.failures());
    assert_eq!(one.cases.len(), 2, "kenken/3 and plain_kenken/3");
    let example = Run::of(
        &wrong,
        &[SMALL_STANDARD, &["--only", "spec 4x4 example"]].concat(),
    );
    assert_eq!(example.code, 1);
    assert_eq!(
        example.case("spec 4x4 example (six answers)", "kenken")["verdict"],
        "wrong"
    );
    assert_eq!(example.summary["form"]["passed"], true);
    // the form check runs whatever --only says: a plain_kenken/3 that calls kenken/3 where no
    // case goes passes its cases, and fails the form check
    let unreached = write(
        dir.path(),
        "unreached.pl",
        &changed(
            &clpz_correct(),
            &[(
                "plain_kenken(N, Cages, Grid) :-",
                "plain_kenken(N, Cages, Grid) :- N < 0, !, kenken(N, Cages, Grid).\n\
                 plain_kenken(N, Cages, Grid) :-",
            )],
        ),
    );
    let form = Run::of(
        &unreached,
        &[SMALL_STANDARD, &["--only", "spec 4x4 example"]].concat(),
    );
    assert!(form.failures().is_empty(), "{:?}", form.failures());
    assert_eq!(form.cases.len(), 2);
    assert_eq!(form.summary["form"]["passed"], false);
    assert_eq!(
        form.summary["form"]["chain"],
        serde_json::json!(["plain_kenken/3", "kenken/3"])
    );
    assert_eq!(form.code, 1);
    // every output filters: a JUnit test case per case run
    let out = kenken()
        .arg("judge")
        .arg(&wrong)
        .args(SMALL_STANDARD)
        .args([
            "--only",
            "kenken(1,",
            "--output",
            "junit",
            "--shrink-time",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let xml = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        xml.matches("<testcase ").count(),
        2 + 1,
        "2 cases and the form check: {xml}"
    );
}

#[test]
fn only_with_no_case_of_that_name_is_a_usage_error_naming_some() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "kenken.pl", &clpz_correct());
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    write(&class, "ann.pl", &clpz_correct());
    for (path, output) in [
        (&file, "table"),
        (&file, "json"),
        (&file, "junit"),
        (&file, "gradescope"),
        (&class, "table"),
        (&class, "csv"),
    ] {
        let out = kenken()
            .arg("judge")
            .arg(path)
            .args(SMALL_STANDARD)
            .args(["--output", output, "--only", "Spec", "--only", "n = 0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{output}");
        assert!(out.stdout.is_empty(), "{output}: no report");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(
                "--only \"Spec\", \"n = 0\": no case of the standard suite up to 4x4 has a name \
                 containing any of them (case-sensitive); its 25 case names include \"N = 0\", "
            ),
            "{output}: {stderr}"
        );
    }
    kenken()
        .arg("judge")
        .arg(&file)
        .args(["--suite", "spec", "--only", "random"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--only \"random\": no case of the spec suite has a name containing it",
        ))
        .stderr(predicate::str::contains(
            "\"spec 4x4 example (six answers)\"",
        ));
}
