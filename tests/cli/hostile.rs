//! Hostile and careless input, through the command line: each case was a bug (a crash, a hang,
//! a misleading answer) and is now a clear error with its exit code, or the right answer.

use std::process::{Command, Stdio};

use predicates::prelude::*;

fn data(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// What a command said: its stderr, then its stdout (`check` reports problems on stdout).
fn report(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    )
}

/// A file of the first `k` lines of data file `rel`.
fn first_lines(rel: &str, k: usize) -> String {
    let text = std::fs::read_to_string(data(rel)).unwrap();
    let head: Vec<&str> = text.lines().take(k).collect();
    file(&format!("first-{k}.jsonl"), &(head.join("\n") + "\n"))
}

/// Writes `text` to a fresh file and returns its path.
fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("kenken-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn deeply_nested_terms_are_refused_with_the_line() {
    let deep_pl = format!(
        "% a comment\nkenken_testcase(2, {}{}).\n",
        "[".repeat(1_000_000),
        "]".repeat(1_000_000)
    );
    let deep_json = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let deep_cages = format!(
        "{{\"size\": 1, \"cages\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    for (name, text, says) in [
        ("deep.pl", deep_pl, "line 2: the term is nested too deeply"),
        ("deep.json", deep_json, "nested too deeply"),
        ("deep2.json", deep_cages, "line 1"),
    ] {
        refused_by_every_reader(name, &text, |said| said.contains(says));
    }
}

/// Runs `check`, `show`, `solve` and `convert` on `text`: each must exit 2, saying what
/// `expected` looks for and never panicking. (`check` reports on stdout; the others on stderr.)
fn refused_by_every_reader(name: &str, text: &str, expected: impl Fn(&str) -> bool) {
    for cmd in ["check", "show", "solve", "convert"] {
        let mut k = kenken();
        k.args([cmd, &file(name, text)]);
        if cmd == "convert" {
            k.args(["--to", "json"]);
        }
        let out = k.output().unwrap();
        let said = report(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd} {name}: {said}");
        assert!(
            expected(&said) && !said.contains("panicked"),
            "{cmd} {name}: {said}"
        );
    }
}

#[test]
fn huge_sizes_are_refused_in_every_notation() {
    let cases = [
        (
            "size.json",
            "{\"size\": 3000000000, \"cages\": []}".to_string(),
        ),
        (
            "size2.json",
            "{\"size\": 100000, \"cages\": []}".to_string(),
        ),
        ("size.txt", "# 100000\n+ 3 A1 A2\n".to_string()),
        ("size.pl", "kenken_testcase(3000000000, []).".to_string()),
        (
            "size2.pl",
            "kenken_testcase(18446744073709551616, []).".to_string(),
        ),
        ("size.keen", "100000:_,a3\n".to_string()),
    ];
    for (name, text) in cases {
        refused_by_every_reader(name, &text, |said| {
            said.contains("above the maximum")
                || said.contains("fit in 64 bits")
                || said.contains("out of range")
        });
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kenken"))
        .args(["solve", &data("tests/data/keen/keen-9du.jsonl")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe, as `| head -1` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_numbers_are_usage_errors() {
    for args in [
        &["--limit", "0"][..],
        &["--jobs", "0"],
        &["--timeout=-1"],
        &["--timeout", "nan"],
        &["--timeout", "inf"],
        &["--limit", "-3"],
    ] {
        kenken()
            .arg("solve")
            .arg(data("examples/spec-4x4.pl"))
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("error"));
    }
    kenken()
        .args(["query", "true.", "--limit", "0"])
        .assert()
        .code(2);
    kenken().args(["bench", "--repeat", "0"]).assert().code(2);
}

#[test]
fn a_timed_out_prolog_solve_does_not_say_false() {
    kenken()
        .args([
            "solve",
            &first_lines("tests/data/keen/keen-9du.jsonl", 3),
            "--engine",
            "plain",
            "--timeout",
            "0.3",
            "--output",
            "prolog",
            "--all",
        ])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains("% the time limit was reached")
                .and(predicate::str::contains("false.").not()),
        );
}

#[test]
fn json_output_tells_a_timeout_from_no_solution() {
    let none = file(
        "none.pl",
        "kenken_testcase(2, [+(4, [[1|1], [1|2]]), +(3, [[2|1], [2|2]])]).\n",
    );
    let out = kenken()
        .args(["solve", &none, "--output", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        (v["index"].as_u64(), v["status"].as_str()),
        (Some(1), Some("no_solution"))
    );
    let out = kenken()
        .args([
            "solve",
            &first_lines("tests/data/keen/keen-9du.jsonl", 4),
            "--engine",
            "plain",
            "--timeout",
            "0.2",
            "--output",
            "json",
        ])
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let statuses: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["status"].to_string())
        .collect();
    assert_eq!(statuses.len(), 4);
    assert!(statuses.iter().any(|s| s == "\"timeout\""), "{statuses:?}");
    assert!(statuses
        .iter()
        .all(|s| s == "\"timeout\"" || s == "\"unique\""));
}

#[test]
fn names_survive_every_notation() {
    let start = file(
        "named.jsonl",
        &std::fs::read_to_string(data("tests/data/real-world.jsonl")).unwrap(),
    );
    let mut text = std::fs::read_to_string(&start).unwrap();
    let mut from = "json";
    for to in ["prolog", "keen", "text", "prolog", "json"] {
        let out = kenken()
            .args(["convert", "-", "--from", from, "--to", to])
            .write_stdin(text.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        text = String::from_utf8(out).unwrap();
        from = to;
    }
    assert!(text.contains("\"name\":\"kenkenpuzzle-82698\""), "{text}");
    assert!(text.contains("\"name\":\"menneske9-4474\""), "{text}");
}

#[test]
fn check_catches_a_wrong_solution_in_the_file() {
    let line = std::fs::read_to_string(data("tests/data/keen/keen-4dx.jsonl")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    // Two values of row 3 swapped: the row still holds 1..4, but columns repeat.
    let row = v["solution"][2].as_array_mut().unwrap();
    row.swap(0, 1);
    let path = file("wrong.jsonl", &v.to_string());
    kenken()
        .args(["check", &path])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "the file's solution is wrong: column 1 repeats",
        ));
    // A solution that is a Latin square but misses a cage.
    let mut v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let grid: Vec<Vec<u64>> = serde_json::from_value(v["solution"].clone()).unwrap();
    let relabelled: Vec<Vec<u64>> = grid
        .iter()
        .map(|r| r.iter().map(|&x| x % 4 + 1).collect())
        .collect();
    v["solution"] = serde_json::to_value(relabelled).unwrap();
    kenken()
        .args(["check", &file("wrong2.jsonl", &v.to_string())])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("is not met by"));
}

#[test]
fn one_bad_puzzle_does_not_stop_the_others() {
    let lines: Vec<String> = std::fs::read_to_string(data("tests/data/keen/keen-4dx.jsonl"))
        .unwrap()
        .lines()
        .take(2)
        .map(String::from)
        .collect();
    let text = format!(
        "{}\n{{\"size\":2,\"cages\":[{{\"op\":\"+\",\"target\":9,\"cells\":[[1,1],[1,2]]}}]}}\n{}\n",
        lines[0], lines[1]
    );
    let out = kenken()
        .args(["solve", &file("mixed.jsonl", &text), "--output", "json"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("puzzle 2 (line 2)").and(predicate::str::contains("make 9")),
        )
        .get_output()
        .stdout
        .clone();
    let statuses: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["status"].to_string())
        .collect();
    assert_eq!(statuses, ["\"unique\"", "\"error\"", "\"unique\""]);
}

#[test]
fn counts_are_singular_and_plural() {
    let one = file(
        "one.pl",
        "kenken_testcase(2, [+(3, [[1|1], [1|2]]), =(2, [[2|1]]), =(1, [[2|2]])]).\n",
    );
    kenken()
        .args(["solve", &one, "--count"])
        .assert()
        .success()
        .stdout("puzzle 1: 1 solution\n");
    kenken()
        .args(["check", &one])
        .assert()
        .success()
        .stdout("puzzle 1: ok (2x2, 3 cages)\n");
    kenken()
        .args([
            "cage",
            "3",
            "+",
            "--cells",
            "2",
            "--size",
            "4",
            "--distinct",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("% 1 combination;"));
}

#[test]
fn candidates_line_up_on_large_grids() {
    let out = kenken()
        .args([
            "show",
            "--candidates",
            "--ascii",
            &data("tests/data/keen/keen-9du.jsonl"),
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // Every line of a drawing is as long as its top border.
    for drawing in text.split("puzzle ").filter(|d| d.contains('+')) {
        let lines: Vec<&str> = drawing
            .lines()
            .filter(|l| l.starts_with(['+', '|']))
            .collect();
        let width = lines[0].len();
        for l in &lines {
            assert!(l.len() <= width, "{l}");
            // Column separators sit at the same places on every line (or the line ends early).
            for (i, ch) in l.char_indices() {
                if ch == '|' {
                    assert!(matches!(lines[0].as_bytes()[i], b'+' | b'-'), "{l}");
                }
            }
        }
    }
}

/// The four commands that read a puzzle file, each bounded so that nothing can hang.
fn reading_commands() -> [Vec<&'static str>; 4] {
    [
        vec!["check", "-"],
        vec!["show", "-"],
        vec!["solve", "-", "--timeout", "5"],
        vec!["convert", "-", "--to", "prolog"],
    ]
}

/// Runs a reading command on `input`: it must end with a documented exit code and no panic.
fn answers_or_says_why(args: &[&str], input: Vec<u8>) -> Result<(), TestCaseError> {
    let out = kenken()
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    prop_assert!(
        matches!(out.status.code(), Some(0..=3)),
        "{args:?}: exit {:?}: {err}",
        out.status.code()
    );
    prop_assert!(
        !err.contains("panicked") && !err.contains("overflow"),
        "{args:?}: {err}"
    );
    if out.status.code() == Some(2) {
        let said = report(&out);
        prop_assert!(
            err.starts_with("kenken: ") || said.contains(": error: "),
            "{args:?}: an error must say what: {said}"
        );
    }
    Ok(())
}

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::common::kenken;

/// The shipped example files, whole.
fn shipped() -> Vec<Vec<u8>> {
    [
        "examples/spec-6x6.pl",
        "examples/spec-4x4.txt",
        "examples/spec-6x6.keen",
        "examples/spec-4x4.jsonl",
        "tests/data/real-world.jsonl",
    ]
    .iter()
    .map(|f| std::fs::read(data(f)).unwrap())
    .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_get_an_answer_or_a_clear_error(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        which in 0usize..4,
    ) {
        answers_or_says_why(&reading_commands()[which], bytes)?;
    }

    #[test]
    fn truncated_and_mutated_files_get_an_answer_or_a_clear_error(
        file in 0usize..5,
        cut in any::<proptest::sample::Index>(),
        flip in proptest::option::of((any::<proptest::sample::Index>(), any::<u8>())),
        which in 0usize..4,
    ) {
        let mut bytes = shipped()[file].clone();
        let len = cut.index(bytes.len() + 1);
        bytes.truncate(len);
        if let (Some((at, b)), false) = (flip, bytes.is_empty()) {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        answers_or_says_why(&reading_commands()[which], bytes)?;
    }

    #[test]
    fn huge_integers_anywhere_are_refused_cleanly(
        digits in "[1-9][0-9]{19,60}",
        slot in 0usize..4,
        which in 0usize..4,
    ) {
        let text = match slot {
            0 => format!("kenken_testcase({digits}, [])."),
            1 => format!("kenken_testcase(2, [+({digits}, [[1|1], [1|2]])])."),
            2 => format!("kenken_testcase(2, [+(3, [[{digits}|1], [1|2]])])."),
            _ => format!("{{\"size\": 2, \"cages\": [{{\"op\": \"+\", \"target\": {digits}, \"cells\": [[1,1],[1,2]]}}]}}"),
        };
        answers_or_says_why(&reading_commands()[which], text.into_bytes())?;
    }
}

#[test]
fn ten_megabytes_are_read_and_checked() {
    // About 10 MB of valid puzzles (every Keen 9x9 "unreasonable" puzzle, repeated).
    let one = std::fs::read_to_string(data("tests/data/keen/keen-9du.jsonl")).unwrap();
    let text = one.repeat(10_000_000 / one.len() + 1);
    assert!(text.len() >= 10_000_000);
    let out = kenken()
        .args(["check", "-"])
        .write_stdin(text.clone())
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out).lines().count(),
        text.lines().count()
    );
    // And 10 MB of one long Prolog list: refused or read, never a crash.
    let long = format!(
        "kenken_testcase(2, [{}+(1, [[1|1]])]).",
        "+(1, [[1|1]]), ".repeat(700_000)
    );
    assert!(long.len() >= 10_000_000);
    let out = kenken()
        .args(["check", "-"])
        .write_stdin(long)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_puzzle_that_cannot_be_read_does_not_stop_the_others() {
    let cases = [
        (
            "mixed.pl",
            "kenken_testcase(1, [+(1, [[1|1]])]).\nkenken_testcase(2, [+(3 [[1|1]])]).\nkenken_testcase(1, [+(1, [[1|1]])]).\n",
            "line 2: expected ')'",
        ),
        ("mixed.txt", "# 1\n+ 1 A1\n# 2\n+ x A1\n# 1\n! 1 A1\n", "line 4: target 'x'"),
        (
            "mixed.jsonl",
            "{\"size\":1,\"cages\":[{\"op\":\"=\",\"target\":1,\"cells\":[[1,1]]}]}\n{\"size\":2,\"cages\":[{\"op\":\"+\"\n{\"size\":1,\"cages\":[{\"op\":\"=\",\"target\":1,\"cells\":[[1,1]]}]}\n",
            "line 2",
        ),
        (
            "mixed.keen",
            "1:_,a1\n4:_a_b,a5\n1:_,a1\n",
            "line 2",
        ),
    ];
    for (name, text, says) in cases {
        let path = file(name, text);
        kenken()
            .args(["solve", &path, "--count"])
            .assert()
            .code(2)
            .stdout("puzzle 1: 1 solution\npuzzle 3: 1 solution\n")
            .stderr(predicate::str::contains(says).and(predicate::str::contains("(puzzle 2)")));
        kenken().args(["check", &path]).assert().code(2).stdout(
            predicate::str::starts_with("puzzle 1: ok")
                .and(predicate::str::contains("puzzle 2: error:"))
                .and(predicate::str::contains("puzzle 3: ok")),
        );
    }
}

#[test]
fn every_engine_lists_all_solutions_in_the_spec_order() {
    let spec_order = "T = [[1,2,3,4],[3,4,2,1],[4,3,1,2],[2,1,4,3]].\n\
                      T = [[1,2,4,3],[3,4,2,1],[4,3,1,2],[2,1,3,4]].\n\
                      T = [[2,1,3,4],[3,4,2,1],[4,3,1,2],[1,2,4,3]].\n\
                      T = [[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]].\n\
                      T = [[3,1,2,4],[2,4,3,1],[4,3,1,2],[1,2,4,3]].\n\
                      T = [[3,2,4,1],[1,4,2,3],[4,3,1,2],[2,1,3,4]].\n";
    for engine in ["native", "fd", "plain"] {
        kenken()
            .args([
                "solve",
                &data("examples/spec-4x4.pl"),
                "--all",
                "--output",
                "prolog",
            ])
            .args(["--engine", engine])
            .assert()
            .success()
            .stdout(spec_order);
    }
}

#[test]
fn a_cage_question_too_big_to_answer_is_bounded() {
    kenken()
        .args([
            "cage",
            "300",
            "+",
            "--cells",
            "12",
            "--size",
            "40",
            "--timeout",
            "1",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("placements of 40 values in 12 cells to try")
                .and(predicate::str::contains("stopped by the timeout")),
        );
    kenken()
        .args([
            "cage",
            "3",
            "+",
            "--cells",
            "2",
            "--size",
            "4",
            "--timeout",
            "0",
        ])
        .assert()
        .code(2);
}

/// Goals nested 100,000 deep, a conjunction 100,000 long and answers nested 1,000,000 deep
/// through the repl (the lines read from standard input): each is answered, the session goes
/// on and ends normally.
#[test]
fn the_repl_answers_deeply_nested_goals() {
    let nest = file(
        "nest.pl",
        "nest(0, a) :- !.\nnest(N, f(T)) :- N1 is N-1, nest(N1, T).\n",
    );
    let f20 = format!("{}...{}", "f(".repeat(20), ")".repeat(20));
    let input = format!(
        "X = {}a{}.\n{}X = 1{}.\n{}, Y = 2.\n['{nest}'].\nnest(1000000, T).\n\
         use_module(library(lambda)).\n\
         length(L, 200000), foldl(\\X^A^f(A)^true, L, a, T), L = [_|_].\n\
         foldl([X,A,f(A)]>>true, [1], a, T).\nhalt(5).\n",
        "f(".repeat(100_000),
        ")".repeat(100_000),
        "(".repeat(100_000),
        ")".repeat(100_000),
        vec!["true"; 100_000].join(","),
    );
    let out = kenken()
        .args(["repl", "--no-kenken"])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let answers: Vec<&str> = said.lines().filter(|l| !l.starts_with("?- ")).collect();
    assert_eq!(
        answers,
        [
            format!("X = {f20}."),
            "X = 1.".into(),
            "Y = 2.".into(),
            "true.".into(),
            format!("T = {f20}."),
            "true.".into(),
            "L = [_A,_B,_C,_D,_E,_F,_G,_H,_I,_J,_K,_L,_M,_N,_O,_P,_Q,_R,_S,_T|...],".into(),
            format!("T = {f20}."),
            // (Scryer 0.10 has no library(yall))
            "   error(existence_error(procedure,(>>)/5),(>>)/5).".into(),
        ],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(5));
}
