//! The top level (`kenken query`, `kenken repl`) as a Prolog user meets it: each row of
//! issue 14's table, `query` through its output and exit code, `repl` through a
//! pseudo-terminal (keys sent as a person types them).

use assert_cmd::Command;
use rexpect::process::WaitStatus;
use rexpect::session::{spawn_command, PtySession};

const SPEC_4X4_CAGES: &str = "[+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], \
     [2|3], [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), \
     *(2, [[3|4]])]";

fn query(goal: &str) -> (String, i32) {
    query_with(&[], goal)
}

fn query_with(args: &[&str], goal: &str) -> (String, i32) {
    let out = Command::cargo_bin("kenken")
        .unwrap()
        .arg("query")
        .args(args)
        .arg("--")
        .arg(goal)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn query_prints_what_the_goal_writes() {
    assert_eq!(query("write(hello), nl."), ("hello\ntrue.\n".into(), 0));
}

#[test]
fn query_noop_testcase_prints_its_output() {
    let (out, code) = query("noop_kenken_testcase.");
    assert!(
        out.starts_with("T = [[3,2,1,4],[1,4,3,2],[2,1,4,3],[4,3,2,1]],\nOps = ["),
        "{out}"
    );
    assert!(out.ends_with("true.\n"), "{out}");
    assert_eq!(code, 0);
}

#[test]
fn query_failure_driven_loop_prints_six_grids_then_false() {
    let (out, code) = query(&format!(
        "kenken(4, {SPEC_4X4_CAGES}, T), write(T), nl, fail."
    ));
    assert_eq!(
        out,
        "[[1,2,3,4],[3,4,2,1],[4,3,1,2],[2,1,4,3]]\n\
         [[1,2,4,3],[3,4,2,1],[4,3,1,2],[2,1,3,4]]\n\
         [[2,1,3,4],[3,4,2,1],[4,3,1,2],[1,2,4,3]]\n\
         [[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]\n\
         [[3,1,2,4],[2,4,3,1],[4,3,1,2],[1,2,4,3]]\n\
         [[3,2,4,1],[1,4,2,3],[4,3,1,2],[2,1,3,4]]\n\
         false.\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn query_answers_in_order_with_side_effects_once() {
    let (out, code) = query("member(X, [a,b]), write(got(X)), nl.");
    assert_eq!(out, "got(a)\nX = a ;\ngot(b)\nX = b.\n");
    assert_eq!(code, 0);
}

#[test]
fn query_limit_and_exit_codes() {
    assert_eq!(
        query_with(&["--limit", "2"], "between(1, 5, X)."),
        (
            "X = 1 ;\nX = 2 ;\n% stopped after 2 answers (--limit)\n".into(),
            3
        )
    );
    assert_eq!(query("1 = 2."), ("false.\n".into(), 1));
    let (out, code) = query("foo(.");
    assert!(out.contains("syntax_error"), "{out}");
    assert_eq!(code, 2);
    assert_eq!(query("throw(oops)."), ("   oops.\n".into(), 2));
}

#[test]
fn query_cyclic_answer() {
    assert_eq!(query("X = f(X)."), ("X = f(X).\n".into(), 0));
}

#[test]
fn query_answer_with_a_hundred_thousand_elements_is_abbreviated() {
    // As Scryer's top level writes answers: at most 20 levels (list elements count) deep.
    assert_eq!(
        query("numlist(1,100000,L)."),
        (
            "L = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,...|...].\n".into(),
            0
        )
    );
    assert_eq!(
        query("numlist(1,100000,_L), length(_L,N)."),
        ("N = 100000.\n".into(), 0)
    );
    // 200,000 fresh variables: only those shown get names.
    let (out, code) = query_with(&["--no-kenken"], "length(L, 200000).");
    assert_eq!(
        out,
        "L = [_A,_B,_C,_D,_E,_F,_G,_H,_I,_J,_K,_L,_M,_N,_O,_P,_Q,_R,_S,_T|...].\n"
    );
    assert_eq!(code, 0);
    // The whole answer, as in Scryer, through the flag answer_write_options.
    assert_eq!(
        query("set_prolog_flag(answer_write_options, [max_depth(0)]), numlist(1,25,L)."),
        (
            "L = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25].\n".into(),
            0
        )
    );
}

#[test]
fn query_answers_are_written_as_scryer_writes_them() {
    assert_eq!(
        query_with(&["--no-kenken"], "X = (a:-b), Y = \"abc\", Z = (-)."),
        ("X = (a:-b),\nY = \"abc\",\nZ = (-).\n".into(), 0)
    );
}

#[test]
fn query_deeply_nested_answer() {
    let dir = tempdir();
    let file = dir.join("nest.pl");
    std::fs::write(
        &file,
        "nest(0, a) :- !.\nnest(N, f(T)) :- N1 is N-1, nest(N1, T).\n",
    )
    .unwrap();
    let (out, code) = query_with(
        &["--no-kenken", "--consult", file.to_str().unwrap()],
        "nest(1000000, T).",
    );
    let f20 = format!("{}...{}", "f(".repeat(20), ")".repeat(20));
    assert_eq!(out, format!("T = {f20}.\n"));
    assert_eq!(code, 0);
}

#[test]
fn query_deeply_nested_goals_are_answered() {
    // (a command-line argument holds at most 128 KiB)
    let f20 = format!("{}...{}", "f(".repeat(20), ")".repeat(20));
    let deep = format!("X = {}a{}.", "f(".repeat(40_000), ")".repeat(40_000));
    assert_eq!(query(&deep), (format!("X = {f20}.\n"), 0));
    let brackets = format!("{}X = 1{}.", "(".repeat(60_000), ")".repeat(60_000));
    assert_eq!(query(&brackets), ("X = 1.\n".into(), 0));
    // call/1 would take minutes to expand this conjunction; it is compiled instead
    let start = std::time::Instant::now();
    let long = format!("{}, X = 1.", vec!["true"; 20_000].join(","));
    assert_eq!(query(&long), ("X = 1.\n".into(), 0));
    let choices = format!(
        "{}, !, Y = 2 ; Y = 3.",
        vec!["member(X, [1,2])"; 2_000].join(",")
    );
    assert_eq!(query(&choices), ("X = 1,\nY = 2.\n".into(), 0));
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}

#[test]
fn query_halt_exits_with_its_code() {
    assert_eq!(query("halt.").1, 0);
    assert_eq!(query("halt(3).").1, 3);
    assert_eq!(query("X = 1, (true ; fail), halt(4).").1, 4);
    assert_eq!(query("catch(halt(5), _, true).").1, 5);
}

#[test]
fn query_spec_example_with_fd_set_vector_max() {
    let (out, code) = query("fd_set_vector_max(255), kenken_testcase(N,C), kenken(N,C,T).");
    assert!(
        out.contains(
            "T = [[5,6,3,4,1,2],[6,1,4,5,2,3],[4,5,2,3,6,1],[3,4,1,2,5,6],[2,3,6,1,4,5],[1,2,5,6,3,4]]"
        ),
        "{out}"
    );
    assert_eq!(code, 0);
}

#[test]
fn query_spec_timing_with_statistics() {
    let (out, code) = query(&format!(
        "statistics(runtime, [T0|_]), kenken(4, {SPEC_4X4_CAGES}, _T), \
         statistics(runtime, [T1|_]), D is T1 - T0, D >= 0, statistics."
    ));
    assert!(out.contains("s of CPU time\n"), "{out}");
    assert!(out.contains("D = "), "{out}");
    assert_eq!(code, 0);
}

#[test]
fn query_empty_puzzle() {
    assert_eq!(query("kenken(0, [], T)."), ("T = [].\n".into(), 0));
}

#[test]
fn query_consults_user_files_and_starts_without_kenken() {
    let dir = tempdir();
    let file = dir.join("mine.pl");
    std::fs::write(&file, "mine(1).\nmine(2).\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--consult", f, "--no-kenken"], "mine(X)."),
        ("X = 1 ;\nX = 2.\n".into(), 0)
    );
    let (out, code) = query_with(&["--no-kenken"], "kenken(0, [], T).");
    assert!(out.contains("existence_error"), "{out}");
    assert_eq!(code, 2);
}

/// Without kenken.pl, library(charsio), format, time and between are loaded only when a goal
/// names one of their predicates (or a file is consulted): each must still work as the first
/// goal of a fresh engine, and from a consulted file that does not load them itself.
#[test]
fn query_without_kenken_loads_libraries_when_a_goal_needs_them() {
    let nk = &["--no-kenken"];
    let (out, code) = query_with(nk, "statistics.");
    assert!(
        out.starts_with("% ") && out.ends_with(" s of CPU time\ntrue.\n"),
        "{out}"
    );
    assert_eq!(code, 0);
    let (out, code) = query_with(nk, "statistics(runtime, [T|_]), T > 0.");
    assert!(out.starts_with("T = "), "{out}");
    assert_eq!(code, 0);
    assert_eq!(
        query_with(nk, "format(\"~a~n\", [x])."),
        ("x\ntrue.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, "maplist(format(\"~a-\"), [[a], [b]]), nl."),
        ("a-b-\ntrue.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, "between(1, 2, X)."),
        ("X = 1 ;\nX = 2.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, "numlist(1, 3, L), append(L, [4], M), member(4, M)."),
        ("L = [1,2,3],\nM = [1,2,3,4].\n".into(), 0)
    );
    assert_eq!(
        query_with(
            nk,
            "write_term_to_chars(f(x), [], Cs), read_term_from_chars(\"g(Y).\", T, [])."
        ),
        ("Cs = \"f(x)\",\nT = g(_A).\n".into(), 0)
    );
    let (out, code) = query_with(nk, "time(true).");
    assert!(
        out.starts_with("% CPU time: ") && out.ends_with("true.\n"),
        "{out}"
    );
    assert_eq!(code, 0);
    let dir = tempdir();
    let file = dir.join("fmt.pl");
    std::fs::write(
        &file,
        "p(X) :- format(\"p ~a~n\", [X]), between(1, 2, Y), Y > 1, \
         write_term_to_chars(Y, [], Cs), atom_chars(A, Cs), write(A), nl.\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "p(x)."),
        ("p x\n2\ntrue.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, &format!("consult('{f}'), p(y).")),
        ("p y\n2\ntrue.\n".into(), 0)
    );
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "kenken-toplevel-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A repl on a pseudo-terminal, its history in `data` (the user's data directory).
fn repl(data: &std::path::Path, args: &[&str]) -> PtySession {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"));
    cmd.arg("repl").args(args).env("XDG_DATA_HOME", data);
    let mut p = spawn_command(cmd, Some(30_000)).unwrap();
    p.exp_string("?- ").unwrap();
    p
}

fn exit_code(p: &PtySession) -> Option<i32> {
    match p.process().wait().unwrap() {
        WaitStatus::Exited(_, c) => Some(c),
        _ => None,
    }
}

#[test]
fn repl_semicolon_asks_the_running_goal() {
    let data = tempdir();
    let mut p = repl(&data, &[]);
    p.send_line("between(1,20,X), assertz(seen(X)).").unwrap();
    p.exp_string("X = 1 ").unwrap();
    for i in 2..=10 {
        p.send(";").unwrap();
        p.flush().unwrap();
        p.exp_string(&format!("X = {i} ")).unwrap();
    }
    p.send_line("").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("findall(X, seen(X), L), length(L, N).")
        .unwrap();
    p.exp_string("N = 10.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn repl_cyclic_answer_and_the_session_goes_on() {
    let data = tempdir();
    let mut p = repl(&data, &[]);
    p.send_line("X = f(X).").unwrap();
    p.exp_string("X = f(X).").unwrap();
    p.send_line("numlist(1,100000,_L), length(_L,N).").unwrap();
    p.exp_string("N = 100000.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn repl_halt_saves_history_and_exits_with_its_code() {
    let data = tempdir();
    let mut p = repl(&data, &[]);
    p.send_line("X = remembered.").unwrap();
    p.exp_string("X = remembered.").unwrap();
    p.send_line("halt(3).").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(3));
    let history = std::fs::read_to_string(data.join("kenken").join("history")).unwrap();
    assert!(history.contains("X = remembered."), "{history}");
}

#[test]
fn repl_ctrl_c_stops_the_goal_and_keeps_the_session() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("mine.pl");
    std::fs::write(&file, "mine(1).\n").unwrap();
    let mut p = repl(&data, &[file.to_str().unwrap()]);
    p.send_line("assertz(kept(1)).").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), N > 10000000.").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("kept(X), mine(Y).").unwrap();
    p.exp_string("X = 1,").unwrap();
    p.exp_string("Y = 1.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn repl_consult_in_the_session_and_help() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("mine.pl");
    std::fs::write(&file, "mine(1).\n").unwrap();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line(&format!("['{}'].", file.display())).unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("mine(X).").unwrap();
    p.exp_string("X = 1.").unwrap();
    std::fs::write(&file, "mine(2).\n").unwrap();
    p.send_line("make.").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("mine(X).").unwrap();
    p.exp_string("X = 2.").unwrap();
    p.send_line("help.").unwrap();
    p.exp_string("make.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn repl_timeout_stops_the_goal_and_keeps_the_session() {
    let data = tempdir();
    let mut p = repl(&data, &["--timeout", "1"]);
    p.send_line("assertz(kept(2)).").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), N > 10000000.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("kept(X).").unwrap();
    p.exp_string("X = 2.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn query_timeout() {
    assert_eq!(
        query_with(&["--timeout", "1"], "length(L, N), N > 10000000."),
        ("% timed out\n".into(), 3)
    );
}

#[test]
fn query_consult_syntax_error_names_the_file_and_line() {
    let dir = tempdir();
    let file = dir.join("bad.pl");
    std::fs::write(&file, "foo(1).\nfoo(2) :- .\nfoo(3).\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "true."),
        (format!("% {f}:2: syntax error: incomplete_reduction\n"), 2)
    );
    // The file is named as consult/1 finds it (bad for bad.pl); the session goes on, and later
    // consults and goals work.
    let good = dir.join("good.pl");
    std::fs::write(&good, "good(1).\n").unwrap();
    let stem = dir.join("bad");
    let (out, code) = query_with(
        &["--no-kenken"],
        &format!(
            "(consult('{}') -> true ; true), consult('{}'), good(X), assertz(d(2)), d(Y).",
            stem.display(),
            good.display()
        ),
    );
    assert_eq!(
        out,
        format!("% {f}:2: syntax error: incomplete_reduction\nX = 1,\nY = 2.\n")
    );
    assert_eq!(code, 0);
}

#[test]
fn repl_consult_syntax_error_then_make_after_the_fix() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("bad.pl");
    std::fs::write(&file, "foo(1).\nfoo(2) :- .\n").unwrap();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line(&format!("['{}'].", dir.join("bad").display()))
        .unwrap();
    p.exp_string(&format!(
        "% {}:2: syntax error: incomplete_reduction",
        file.display()
    ))
    .unwrap();
    p.exp_string("false.").unwrap();
    p.send_line("X = 1.").unwrap();
    p.exp_string("X = 1.").unwrap();
    std::fs::write(&file, "foo(3).\n").unwrap();
    p.send_line("make.").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("foo(X).").unwrap();
    p.exp_string("X = 3.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}
