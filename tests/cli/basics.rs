//! The command line: exit codes and outputs.

use predicates::prelude::*;

use crate::common::kenken;

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
        .code(0)
        .stdout(predicate::str::contains(
            "warning: cell C1 [3|1] is in no cage: it is free",
        ));
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
            "2 5 6 7\n3 4 6 7\n% 2 combinations; all cells in one row or column (--distinct)\n",
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

const BENCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bench/");

fn bench_records(args: &[&str], code: i32) -> Vec<serde_json::Value> {
    bench_run(args, code).0
}

/// The records a bench run writes, and what it prints.
fn bench_run(args: &[&str], code: i32) -> (Vec<serde_json::Value>, String) {
    let dir = std::env::temp_dir().join(format!("kenken-bench-{}-{code}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let json = dir.join(format!("{run}.jsonl"));
    let svg = dir.join(format!("{run}.svg"));
    let out = kenken()
        .arg("bench")
        .args(args)
        .args([
            "--json",
            json.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ])
        .assert()
        .code(code);
    let printed = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.starts_with("<svg") && plot.contains("grid size N"),
        "{plot}"
    );
    let records = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (records, printed)
}

#[test]
fn bench_reports_every_engine_and_no_solution() {
    let file = format!("{BENCH}small.jsonl");
    let (records, printed) = bench_run(&[&file, "--timeout", "20"], 0);
    assert_eq!(records.len(), 9, "{records:?}");
    // what our layer adds is reported, engine by engine, as a ratio (its value is the machine's)
    let layer = printed
        .lines()
        .find(|l| l.starts_with("our layer"))
        .unwrap_or_else(|| panic!("no line on our layer: {printed}"));
    for engine in ["fd ×", "plain ×"] {
        assert!(layer.contains(engine), "{layer}");
    }
    assert!(!layer.contains("native"), "{layer}");
    let starts = printed
        .lines()
        .find(|l| l.starts_with("engines' start"))
        .unwrap_or_else(|| panic!("no line on the engines' start: {printed}"));
    assert!(
        starts.contains("fd ") && starts.contains("plain "),
        "{starts}"
    );
    for engine in ["native", "fd", "plain"] {
        let mine: Vec<_> = records.iter().filter(|r| r["engine"] == engine).collect();
        assert_eq!(mine.len(), 3, "{engine}");
        for r in &mine {
            let status = r["status"].as_str().unwrap();
            let expected = if r["puzzle"] == "contradiction" {
                "no_solution"
            } else {
                "solved"
            };
            assert_eq!(status, expected, "{r}");
            let time = r["time_ms"].as_f64().unwrap();
            assert!(time >= 0.0);
            // (the Prolog engines' own CPU time for the goal, which never exceeds the time)
            match r["cpu_ms"].as_f64() {
                Some(cpu) => assert!(engine != "native" && cpu <= time, "{r}"),
                None => assert_eq!(engine, "native", "{r}"),
            }
        }
        let spec = mine.iter().find(|r| r["puzzle"] == "spec-4x4").unwrap();
        assert_eq!(spec["solutions"], 6);
        assert_eq!(spec["complete"], true);
    }
}

#[test]
fn bench_flags_a_wrong_count_loudly() {
    let file = format!("{BENCH}miscounted.jsonl");
    kenken()
        .args(["bench", &file, "--engines", "native"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "WRONG: native on spec-4x4-miscounted: 6 or more solutions, the file says 5",
        ));
}

#[test]
fn bench_timeout_bounds_every_engine() {
    // plain_kenken/3 needs far longer than a tenth of a second on these 9x9 puzzles (0.7 s at
    // best in a release build): the timeout must stop it.
    let file = format!("{BENCH}keen-9dx-2.jsonl");
    let start = std::time::Instant::now();
    let records = bench_records(&[&file, "--engines", "fd,plain", "--timeout", "0.1"], 0);
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(records.len(), 4);
    for r in records.iter().filter(|r| r["engine"] == "plain") {
        assert_eq!(r["status"], "timeout", "{r}");
        assert!(r["time_ms"].is_null());
    }
    // 4 solves of at most 0.1 s each, plus an engine start-up after each timeout (about a
    // second each, several on a busy machine): a guard against a hang, not a speed figure.
    assert!(elapsed < 0.4 + 120.0, "took {elapsed} s");
}

#[test]
fn bench_makes_random_puzzles() {
    let records = bench_records(
        &[
            "--random",
            "5,7",
            "--random-count",
            "2",
            "--engines",
            "native",
        ],
        0,
    );
    assert_eq!(records.len(), 4);
    assert!(
        records.iter().all(|r| r["status"] == "solved"),
        "{records:?}"
    );
    assert_eq!(records[2]["puzzle"], "random-7-0");
}

#[test]
fn bench_rejects_bad_arguments() {
    kenken()
        .args(["bench", "--engines", "fast"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown engine 'fast'"));
    kenken()
        .args(["bench", "--timeout", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--timeout"));
}

#[test]
fn repl_answers_one_at_a_time() {
    let session = "kenken(2, [], T).\n;\nkenken(3,\n [], T).\n;\n\nfoo(.\nmember(X, [a]), X = b.\nthrow(oops).\nhalt.\nX = never.\n";
    kenken()
        .arg("repl")
        .write_stdin(session)
        .assert()
        .success()
        .stdout(
            "?- kenken(2, [], T).\n\
             T = [[1,2],[2,1]] ;\n\
             T = [[2,1],[1,2]].\n\
             ?- kenken(3,\n\
             |     [], T).\n\
             T = [[1,2,3],[2,3,1],[3,1,2]] ;\n\
             T = [[1,2,3],[3,1,2],[2,3,1]] .\n\
             ?- foo(.\n   error(syntax_error(incomplete_reduction),read_term/3:1).\n\
             ?- member(X, [a]), X = b.\nfalse.\n\
             ?- throw(oops).\n   throw(oops).\n\
             ?- halt.\n",
        );
}

#[test]
fn solve_with_a_pool_of_prolog_engines_matches_native() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/keen/keen-4dx.jsonl"
    );
    let run = |args: &[&str]| {
        let out = kenken()
            .args(["solve", file, "--output", "prolog"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let native = run(&[]);
    assert_eq!(native.lines().count(), 20);
    assert_eq!(run(&["--engine", "fd", "--jobs", "3"]), native);
    assert_eq!(run(&["--engine", "plain", "--jobs", "2"]), native);
}

#[test]
fn solve_reports_the_operators_of_noop_cages() {
    let puzzle = "# 2\n? 3 A1 A2\n? 1 B1 B2\n";
    kenken()
        .args(["solve", "-", "--all"])
        .write_stdin(puzzle)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cage 1 (3? at A1 A2): +\ncage 2 (1? at B1 B2): -\n",
        ));
    kenken()
        .args(["solve", "-", "--all", "--output", "json"])
        .write_stdin(puzzle)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            r#""operators":[[["+"],["-"]],[["+"],["-"]]]"#,
        ));
}

#[test]
fn bench_runs_generated_unique_puzzles() {
    let records = bench_records(
        &[
            "--generate",
            "4,5",
            "--count",
            "2",
            "--difficulty",
            "normal",
            "--engines",
            "native,fd",
        ],
        0,
    );
    assert_eq!(records.len(), 8);
    for r in &records {
        // Each puzzle has exactly one solution, which every engine finds (and proves).
        assert_eq!(r["status"], "solved", "{r}");
        assert_eq!(r["solutions"], 1, "{r}");
        assert!(r["puzzle"].as_str().unwrap().starts_with("generated-"));
    }
}

/// `--threads`: a whole 25x25 benchmark puzzle whose search runs long enough to go on as two
/// searches gives the generator's square, proved unique; and `--threads 0` is a usage error.
#[test]
fn solve_with_two_threads() {
    let (p, square) = kenken::random::puzzles(25, 0, 9).swap_remove(8);
    let text = kenken::format::write(&[p], kenken::format::Notation::Json).unwrap();
    let out = kenken()
        .args([
            "solve",
            "-",
            "--threads",
            "2",
            "--output",
            "json",
            "--stats",
        ])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "unique", "{v}");
    assert_eq!(v["solutions"], serde_json::json!([square]));
    assert!(v["stats"]["failures"].as_u64().unwrap() > 500, "{v}");
    for bad in ["0", "65", "x"] {
        kenken()
            .args(["solve", "-", "--threads", bad])
            .write_stdin(text.clone())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--threads"));
    }
}

#[test]
fn a_bad_value_to_a_typed_option_is_a_usage_error_naming_the_values() {
    // (arguments, the option, the allowed values as the error lists them)
    let cases: [(&[&str], &str, &str); 12] = [
        (
            &["solve", "--engine", "fast"],
            "--engine",
            "native, fd, plain, gprolog-fd, gprolog-plain, swipl-fd, swipl-plain",
        ),
        (
            &["bench", "--engines", "native,fast"],
            "--engines",
            "native, fd, plain, gprolog-fd, gprolog-plain, swipl-fd, swipl-plain",
        ),
        (
            &["solve", "--output", "xml"],
            "--output",
            "grid, json, prolog",
        ),
        (
            &["solve", "--from", "yaml"],
            "--from",
            "auto, json, keen, text, prolog",
        ),
        (
            &["convert", "--to", "yaml"],
            "--to",
            "json, keen, text, prolog",
        ),
        (
            &[
                "cage", "5", "+", "--cells", "2", "--size", "6", "--output", "xml",
            ],
            "--output",
            "text, json",
        ),
        (&["grade", "--output", "xml"], "--output", "text, json"),
        (
            &["generate", "--size", "4", "--output", "xml"],
            "--output",
            "grid, json, prolog, text, keen",
        ),
        (&["bench", "--group", "colour"], "--group", "file, size"),
        (
            &["judge", "x.pl", "--prolog", "swi"],
            "--prolog",
            "scryer, gprolog, swipl",
        ),
        (
            &["judge", "x.pl", "--dialect", "swi"],
            "--dialect",
            "gnu, scryer",
        ),
        (
            &["judge", "x.pl", "--predicates", "kenken,foo"],
            "--predicates",
            "kenken, plain_kenken",
        ),
    ];
    for (args, option, values) in cases {
        // Nothing is read: the arguments are refused first.
        kenken()
            .args(args)
            .write_stdin("")
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(option))
            .stderr(predicate::str::contains(format!(
                "[possible values: {values}]"
            )));
    }
    kenken()
        .args(["judge", "x.pl", "--output", "xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("table, json, csv"));
    // Values that are not one word: the message says which are allowed.
    kenken()
        .args(["generate", "--size", "4", "--ops", "+%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'%' is not one of + - * /"));
    kenken()
        .args(["generate", "--size", "4", "--difficulty", "z"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "use easy, normal, hard, extreme or unreasonable",
        ));
}

#[test]
fn help_lists_the_values_of_typed_options() {
    for (command, values) in [
        (
            "solve",
            "[possible values: native, fd, plain, gprolog-fd, gprolog-plain, swipl-fd, swipl-plain]",
        ),
        ("solve", "[possible values: auto, json, keen, text, prolog]"),
        (
            "bench",
            "[possible values: native, fd, plain, gprolog-fd, gprolog-plain, swipl-fd, swipl-plain]",
        ),
        ("convert", "[possible values: json, keen, text, prolog]"),
        ("judge", "[possible values: scryer, gprolog, swipl]"),
    ] {
        kenken()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains(values));
    }
}
