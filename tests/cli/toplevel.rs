//! The top level (`kenken query`, `kenken repl`) as a Prolog user meets it: each row of
//! issue 14's table, `query` through its output and exit code, `repl` through a
//! pseudo-terminal (keys sent as a person types them).

use rexpect::process::WaitStatus;
use rexpect::session::{spawn_command, PtySession};

use crate::common::kenken;

const SPEC_4X4_CAGES: &str = "[+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], \
     [2|3], [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), \
     *(2, [[3|4]])]";

fn query(goal: &str) -> (String, i32) {
    query_with(&[], goal)
}

fn query_with(args: &[&str], goal: &str) -> (String, i32) {
    query_reading(args, goal, "")
}

/// `kenken query ARGS -- GOAL` with `input` as its standard input: what it printed, its exit
/// code.
fn query_reading(args: &[&str], goal: &str, input: &str) -> (String, i32) {
    let out = kenken()
        .arg("query")
        .args(args)
        .arg("--")
        .arg(goal)
        .write_stdin(input)
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
    assert_eq!(query("throw(oops)."), ("   throw(oops).\n".into(), 2));
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
    // Regression (#54 item 4): a fresh variable never takes a name of the query's own.
    assert_eq!(
        query_with(&["--no-kenken"], "X = g(_A, _, _B, _).").0,
        "X = g(_A,_C,_B,_D).\n"
    );
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
    assert!(out.contains("% runtime: "), "{out}");
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
        out.starts_with("% runtime: ") && out.ends_with("true.\n"),
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
///
/// An answer that reads as its goal (`X = 1.` for `X = 1.`) is expected as `"\r\nX = 1."`: the
/// echo of the typed line comes after the prompt, the answer on a line of its own. Expecting the
/// bare text would match the echo, and the next line would be typed while the goal runs.
fn repl(data: &std::path::Path, args: &[&str]) -> PtySession {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"));
    // (SHELL as a person's terminal has it: Scryer's shell/1 runs $SHELL, and fails without
    // one, as under CI's `env -i`)
    cmd.arg("repl")
        .args(args)
        .env("XDG_DATA_HOME", data)
        .env("SHELL", "/bin/sh");
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
    p.exp_string("\r\nX = f(X).").unwrap();
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
    p.exp_string("\r\nX = remembered.").unwrap();
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
        (
            format!(
                "% {f}:2:11: syntax error: incomplete_reduction\n\
                 % {f}: loading stopped at the first syntax error (line 2); not loaded: foo/1 \
                 (all its clauses: it was being read then)\n"
            ),
            2
        )
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
        format!(
            "% {f}:2:11: syntax error: incomplete_reduction\n\
             % {f}: loading stopped at the first syntax error (line 2); not loaded: foo/1 \
             (all its clauses: it was being read then)\nX = 1,\nY = 2.\n"
        )
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
        "% {}:2:11: syntax error: incomplete_reduction",
        file.display()
    ))
    .unwrap();
    p.exp_string(&format!(
        "% {}: loading stopped at the first syntax error (line 2); not loaded: foo/1 (all its \
         clauses: it was being read then)",
        file.display()
    ))
    .unwrap();
    p.exp_string("false.").unwrap();
    p.send_line("X = 1.").unwrap();
    p.exp_string("\r\nX = 1.").unwrap();
    std::fs::write(&file, "foo(3).\n").unwrap();
    p.send_line("make.").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("foo(X).").unwrap();
    p.exp_string("X = 3.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

// Issue 30, the top level's second round: one test (or more) per row.

/// Row 1: the answer starts on a line of its own after what the goal wrote.
#[test]
fn answers_start_on_a_new_line_after_the_goals_output() {
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "write(hello)."),
        ("hello\ntrue.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, "member(X, [a,b]), write(X)."),
        ("a\nX = a ;\nb\nX = b.\n".into(), 0)
    );
    assert_eq!(query_with(nk, "write(x), fail."), ("x\nfalse.\n".into(), 1));
    let dir = tempdir();
    let file = dir.join("init.pl");
    std::fs::write(&file, ":- initialization(write(loaded)).\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "X = 1."),
        ("loaded\nX = 1.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, &format!("consult('{f}'), X = 1.")),
        ("loaded\nX = 1.\n".into(), 0)
    );
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("member(X, [a,b]), write(X).").unwrap();
    p.exp_string("a\r\nX = a ").unwrap();
    p.send(";").unwrap();
    p.flush().unwrap();
    p.exp_string("b\r\nX = b.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 2: Ctrl-C keeps the modules imported, the operators, the flags and the global
/// variables, every value (the goal stops in place: nothing is rebuilt, nothing lost).
#[test]
fn repl_ctrl_c_keeps_modules_operators_flags_and_globals() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line(
        "use_module(library(reif)), op(700, xfx, ===>), set_prolog_flag(double_quotes, atom), \
         bb_put(k, v(1)), bb_put(open, f(_)).",
    )
    .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("if_(1 = 1, X = y, X = n), Y = (a ===> b), atom(\"abc\"), bb_get(k, V).")
        .unwrap();
    let said = p.exp_string("X = y,").unwrap();
    assert!(!said.contains("lost"), "{said}");
    p.exp_string("Y = (a===>b),").unwrap();
    p.exp_string("V = v(1).").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// A module a user's predicate imports (one consulted, one asserted) is imported again after
/// Ctrl-C (regression: only use_module/1,2 typed at the prompt was).
#[test]
fn repl_ctrl_c_keeps_modules_a_predicate_imported() {
    let data = tempdir();
    let file = data.join("setup.pl");
    std::fs::write(&file, "setup :- use_module(library(assoc)).\n").unwrap();
    let mut p = repl(&data, &["--no-kenken", file.to_str().unwrap()]);
    p.send_line("assertz((more :- use_module(library(reif)))).")
        .unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("setup, more.").unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("list_to_assoc([], _), if_(1 = 1, X = y, X = n).")
        .unwrap();
    p.exp_string("\r\nX = y.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 2: a timeout keeps them too.
#[test]
fn repl_timeout_keeps_flags_and_operators() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line("op(200, xfy, ^^), set_prolog_flag(double_quotes, codes).")
        .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("X = \"ab\", Y = (a ^^ b).").unwrap();
    p.exp_string("X = [97,98],").unwrap();
    p.exp_string("Y = a^^b.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// #45 item 5: the state is taken with each predicate's text written anew only when its
/// clauses changed: a timeout keeps every change since the one before (a retract, a clause
/// replaced by another, the same count; a clause asserted by a goal that then failed).
#[test]
fn repl_timeout_keeps_each_change_to_the_clauses() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line("assertz(f(1)), assertz(f(2)), assertz(f(3)), assertz(g(aa)).")
        .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("retract(f(2)), retract(g(aa)), assertz(g(bb)).")
        .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("assertz(f(4)), fail.").unwrap();
    p.exp_string("false.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("findall(X, f(X), Fs), findall(Y, g(Y), Gs).")
        .unwrap();
    p.exp_string("Fs = [1,3,4],").unwrap();
    p.exp_string("Gs = [bb].").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 3: every goal given runs, in order.
#[test]
fn query_runs_every_goal_given() {
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "X = 1. Y = 2."),
        ("X = 1.\nY = 2.\n".into(), 0)
    );
    // up to the first that does not answer, whose exit code is the query's
    assert_eq!(
        query_with(nk, "X = 1. fail. Y = 2."),
        ("X = 1.\nfalse.\n".into(), 1)
    );
    assert_eq!(
        query_with(nk, "X = 1. % a note\nY = 'a. b'."),
        ("X = 1.\nY = 'a. b'.\n".into(), 0)
    );
}

#[test]
fn repl_runs_every_goal_of_a_line_and_of_pasted_lines() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("X = 1. Y = 2.").unwrap();
    p.exp_string("\r\nX = 1.").unwrap();
    p.exp_string("Y = 2.").unwrap();
    p.exp_string("?- ").unwrap();
    // a comment after the goal: no continuation prompt, nothing thrown away
    p.send_line("X = 3. % note").unwrap();
    p.exp_string("\r\nX = 3.").unwrap();
    p.send_line("Y = 4.").unwrap();
    p.exp_string("\r\nY = 4.").unwrap();
    // two lines pasted at once (a terminal brackets a paste, then Enter)
    p.send("\x1b[200~A = 5.\nB = 6.\x1b[201~\r").unwrap();
    p.flush().unwrap();
    p.exp_string("A = 5.").unwrap();
    p.exp_string("B = 6.").unwrap();
    // an open quote waits for the rest
    // (a quoted atom goes on past the line's end after a backslash)
    p.send_line("Q = 'abc.\\").unwrap();
    p.exp_string("|").unwrap();
    p.send_line("def'.").unwrap();
    p.exp_string("Q = 'abc.def'.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Lines typed faster than the goals run (a burst of keys, a terminal without bracketed paste)
/// all run, in order: the line editor keeps what it read past the first line's Enter. Each
/// goal is typed while the one before runs. (Regression: all but the first were lost.)
#[test]
fn repl_keeps_lines_typed_ahead() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    // one write: the editor reads all three lines at once
    p.send("X = 1.\rY = 2.\rZ = 3.\rhalt.\r").unwrap();
    p.flush().unwrap();
    p.exp_string("\r\nX = 1.").unwrap();
    p.exp_string("\r\nY = 2.").unwrap();
    p.exp_string("\r\nZ = 3.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

/// Row 4: read/1 and get_char/1 read query's standard input, or the terminal.
#[test]
fn query_reads_its_standard_input() {
    assert_eq!(
        query_reading(
            &["--no-kenken"],
            "read(X), get_char(C), get_char(D), read(Y).",
            "foo(bar).\nxy\nbaz.\n"
        ),
        // (the layout after a term's end is the term's, as in ISO)
        ("X = foo(bar),\nC = x,\nD = y,\nY = baz.\n".into(), 0)
    );
}

/// Issue 45 item 7: read/1 typed at the top level, at the end of the input, binds
/// `end_of_file` (regression: with nothing piped it said `true.`, the binding lost), within
/// the goal arguments of meta-predicates too, with or without kenken.pl.
#[test]
fn query_read_at_the_end_of_the_input_gives_end_of_file() {
    for args in [&["--no-kenken"][..], &[]] {
        assert_eq!(
            query_reading(args, "read(X).", ""),
            ("X = end_of_file.\n".into(), 0),
            "{args:?}"
        );
    }
    assert_eq!(
        query_reading(
            &["--no-kenken"],
            "findall(X, (between(1, 3, _), read(X)), L), bagof(Y, Z^read_term(Y, [variables(Z)]), M).",
            "a.\n"
        ),
        (
            "L = [a,end_of_file,end_of_file],\nM = [end_of_file].\n".into(),
            0
        )
    );
}

/// Issue 45 item 2: the top level rewrites the goal typed once, and consulted files as they
/// load, never as a hook that runs inside the meta-calls of kenken.pl (Scryer runs
/// user:goal_expansion/2 at run time on every meta-call). The probe: the key of a bb_put/2
/// (recorded for a restart, `kk_bb_keys`) is recorded when the goal typed or a consulted
/// clause names it, and not when a goal built at run time is meta-called (regression: the
/// host's goal expansions did that at run time, and made kenken/3 4 times slower at the top
/// level than in a solving engine; measured by `toplevel_goal_against_the_solving_engine`).
#[test]
fn the_host_rewrites_no_goal_at_run_time() {
    let file = "p(G) :- call(G).\nq :- bb_put(named, 1).\n";
    let goal = "bb_put(typed, 1), q, G =.. [bb_put, built, 1], p(G), \
                bb_get(kk_bb_keys, Ks), sort(Ks, L).";
    assert_eq!(
        query_input(file, goal, ""),
        (
            "G = bb_put(built,1),\nKs = [named,typed],\nL = [named,typed].\n".into(),
            0
        )
    );
}

/// Issue 45 item 7: a piped repl reads its goals and what they read from one stream, as a
/// Prolog top level does: read/1 gets the lines after its goal, get_char/1 their characters,
/// an answer's key comes after what the goal read, and what a goal leaves is read as goals
/// (shown once) (regression: read/1 got nothing, the lines ran as goals).
#[test]
fn piped_repl_goals_read_the_lines_after_them() {
    let repl = |input: &str| {
        let out = kenken()
            .args(["repl", "--no-kenken"])
            .env("XDG_DATA_HOME", tempdir())
            .write_stdin(input)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
        )
    };
    assert_eq!(
        repl("read(X).\nfoo.\nY = 1.\n"),
        ("?- read(X).\nX = foo.\n?- Y = 1.\nY = 1.\n".into(), Some(0))
    );
    assert_eq!(
        repl("read(X). foo(bar).\nread(Z).\n"),
        (
            "?- read(X). foo(bar).\nX = foo(bar).\n?- read(Z).\nZ = end_of_file.\n".into(),
            Some(0)
        )
    );
    assert_eq!(
        repl("get_char(A), get_char(B).\nxy\nmember(X, [a,b]), read(Y).\nfoo.\n;\nbar.\nhalt(3).\nW = never.\n"),
        (
            "?- get_char(A), get_char(B).\nA = x,\nB = y.\n?- \n\
             ?- member(X, [a,b]), read(Y).\nX = a,\nY = foo ;\nX = b,\nY = bar.\n?- halt(3).\n"
                .into(),
            Some(3)
        )
    );
}

/// The host's rewriting of consulted files as they load leaves the terms it does not rewrite
/// to the other term expansions: a module file's `:- attribute` (library(atts)) loads, and
/// its clause's bb_put/2 is rewritten.
#[test]
fn query_consulted_module_with_attributes_loads() {
    let module = ":- module(m, [dom/2]).\n:- use_module(library(atts)).\n\
                  :- attribute dom/1.\n\
                  dom(X, D) :- put_atts(X, dom(D)), bb_put(mk, 1).\n";
    assert_eq!(
        query_input(
            module,
            "m:dom(X, [a]), m:get_atts(X, dom(D)), bb_get(kk_bb_keys, K).",
            ""
        ),
        (
            "D = \"a\",\nK = [mk],\nm:put_atts(X,dom(\"a\")).\n".into(),
            0
        )
    );
}

/// `query` with its standard input piped, run in turn on `goals`, with `file` consulted.
fn query_input(file: &str, goals: &str, input: &str) -> (String, i32) {
    let path = tempdir().join("reads.pl");
    std::fs::write(&path, file).unwrap();
    let consult = ["--no-kenken", "--consult", path.to_str().unwrap()];
    query_reading(&consult, goals, input)
}

/// A consulted predicate that reads gets every character (regression: the goal, naming no
/// reading predicate, read standard input opened as a file, which Scryer 0.10 takes to end
/// after one get_char/1); reading past the end gives end_of_file, so a loop up to it ends
/// (regression: the term was left unbound, and such a loop never ended); `_` is still a
/// variable; and what one goal leaves of the input is the next goal's (regression: it was lost
/// with the relay at the goal's end).
#[test]
fn query_reads_through_consulted_predicates_up_to_the_end() {
    let code = "three(A, B, C) :- get_char(A), get_char(B), get_char(C).\n\
                terms(L) :- read(X), ( X == end_of_file -> L = [] ; L = [X | T], terms(T) ).\n";
    assert_eq!(
        query_input(code, "three(A, B, C).", "xyz\n"),
        ("A = x,\nB = y,\nC = z.\n".into(), 0)
    );
    assert_eq!(
        query_input(code, "terms(L).", "a. f(b).\n'c d'."),
        ("L = [a,f(b),'c d'].\n".into(), 0)
    );
    assert_eq!(
        query_input(code, "read(X), read(Y), read_term(Z, []).", "a."),
        ("X = a,\nY = end_of_file,\nZ = end_of_file.\n".into(), 0)
    );
    assert_eq!(
        query_input(code, "read(X), var(X), read(Y).", "_. y."),
        ("Y = y.\n".into(), 0)
    );
    // in a module file too (regression: its read/1 and bb_put/2 became calls of the host's
    // predicates, which a module does not see)
    let module = ":- module(mr, [rd/2, put/1]).\n\
                  rd(X, Y) :- read(X), read(Y).\n\
                  put(V) :- bb_put(mrk, V).\n";
    assert_eq!(
        query_input(module, "rd(X, Y), put(1), bb_get(mrk, V).", "a."),
        ("X = a,\nY = end_of_file,\nV = 1.\n".into(), 0)
    );
    // read_term/2's own errors, as before
    assert_eq!(
        query_input(code, "read_term(X, foo).", "a."),
        ("   error(type_error(list,foo),read_term/3).\n".into(), 2)
    );
    assert_eq!(
        query_input(
            code,
            "read(X). three(A, B, C). terms(L).",
            "a.\nxy\nbb. cc.\n"
        ),
        (
            "X = a.\nA = x,\nB = y,\nC = '\\n'.\nL = [bb,cc].\n".into(),
            0
        )
    );
}

#[test]
fn query_consults_user_from_its_standard_input() {
    assert_eq!(
        query_reading(
            &["--no-kenken"],
            "[user]. typed(X).",
            "typed(1).\ntyped(2) :- true.\n"
        ),
        (
            "% reading clauses; end with Ctrl-D\n|: |: |: \ntrue.\nX = 1 ;\nX = 2.\n".into(),
            0
        )
    );
}

/// Row 4: at the terminal. (What is typed while the line editor still has the terminal is the
/// editor's, as with any line editor: each line is typed once the one before is taken.)
#[test]
fn repl_reads_the_terminal_and_consults_user() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    // a goal (echoed by the line editor), then what the goal reads (not echoed here)
    let typed = |p: &mut PtySession, line: &str| {
        p.send_line(line).unwrap();
        p.exp_string(line).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    let data = |p: &mut PtySession, line: &str| {
        p.send_line(line).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    typed(&mut p, "read(X).");
    data(&mut p, "foo(bar).");
    p.exp_string("X = foo(bar).").unwrap();
    typed(&mut p, "[user].");
    p.exp_string("|: ").unwrap();
    data(&mut p, "typed(1).");
    data(&mut p, "typed(2) :- true.");
    p.send_control('d').unwrap();
    p.exp_string("true.").unwrap();
    typed(&mut p, "typed(X).");
    p.exp_string("X = 1 ").unwrap();
    p.send(";").unwrap();
    p.flush().unwrap();
    p.exp_string("X = 2.").unwrap();
    // after the end of input (Ctrl-D), the terminal is read again
    typed(&mut p, "read(Y).");
    data(&mut p, "again.");
    p.exp_string("Y = again.").unwrap();
    typed(&mut p, "get_char(A), get_char(B), get_char(C).");
    data(&mut p, "xy");
    p.exp_string("A = x,").unwrap();
    p.exp_string("B = y,").unwrap();
    p.exp_string("C = '\\n'.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// A consulted predicate that reads, at the terminal: it reads every character typed, and a
/// loop reading terms ends at Ctrl-D (regression: get_char/1 read only the first character,
/// and read/1 at the end left its term unbound, so the loop never ended).
#[test]
fn repl_consulted_predicates_read_the_terminal() {
    let data = tempdir();
    let file = data.join("reads.pl");
    std::fs::write(
        &file,
        "three(A, B, C) :- get_char(A), get_char(B), get_char(C).\n\
         terms(L) :- read(X), ( X == end_of_file -> L = [] ; L = [X | T], terms(T) ).\n",
    )
    .unwrap();
    let mut p = repl(&data, &["--no-kenken", file.to_str().unwrap()]);
    p.send_line("three(A, B, C).").unwrap();
    p.exp_string("three(A, B, C).").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_line("xy").unwrap();
    p.exp_string("A = x,").unwrap();
    p.exp_string("B = y,").unwrap();
    p.exp_string("C = '\\n'.").unwrap();
    p.send_line("terms(L).").unwrap();
    p.exp_string("terms(L).").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_line("a. f(b).").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_control('d').unwrap();
    p.exp_string("L = [a,f(b)].").unwrap();
    // a clause asserted at the prompt reads as a consulted one does
    p.send_line("assertz((two(A, B) :- get_char(A), get_char(B))).")
        .unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("two(A, B).").unwrap();
    p.exp_string("two(A, B).").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send_line("uv").unwrap();
    p.exp_string("A = u,").unwrap();
    p.exp_string("B = v.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 5: exit 1 only when there was no answer at all.
#[test]
fn query_exit_code_is_0_when_some_answer_came() {
    assert_eq!(
        query_with(&["--no-kenken"], "(X = 1 ; fail)."),
        ("X = 1 ;\nfalse.\n".into(), 0)
    );
    assert_eq!(
        query_with(&["--no-kenken"], "fail."),
        ("false.\n".into(), 1)
    );
}

/// Row 6: statistics/2 as GNU Prolog and SWI-Prolog give it; statistics/0 writes it.
#[test]
fn statistics_gives_the_keys_of_gnu_and_swi_in_milliseconds() {
    // (kenken.pl's engine, which imports library(time), too: a goal that names kenken/3
    // loads it)
    for (args, first) in [(&["--no-kenken"][..], ""), (&[][..], "kenken(0, [], _), ")] {
        let (out, code) = query_with(
            args,
            &format!(
                "{first}statistics(runtime, [_, T]), format(\"~d~n\", [T]), \
             statistics(walltime, [W, _]), statistics(real_time, [R, _]), \
             statistics(cpu_time, [C, _]), statistics(process_cputime, [P, _]), \
             statistics(inferences, I), integer(W), integer(R), integer(C), integer(P), \
             integer(I), !."
            ),
        );
        assert!(out.lines().next().unwrap().parse::<u64>().is_ok(), "{out}");
        assert_eq!(code, 0, "{out}");
    }
    let (out, code) = query_with(&["--no-kenken"], "statistics.");
    for key in [
        "runtime",
        "cpu_time",
        "process_cputime",
        "real_time",
        "walltime",
        "inferences",
    ] {
        assert!(out.contains(&format!("% {key}: ")), "{out}");
    }
    assert_eq!(code, 0);
    let (out, code) = query_with(&["--no-kenken"], "statistics(nonsense, X).");
    assert!(
        out.contains("domain_error(statistics_key,nonsense)"),
        "{out}"
    );
    assert_eq!(code, 2);
}

/// Row 7: a hidden answer is not looked at (this one took minutes and gigabytes).
#[test]
fn query_hidden_big_answer() {
    assert_eq!(
        query_with(&["--no-kenken"], "length(_L, 3000000), length(_L, N)."),
        ("N = 3000000.\n".into(), 0)
    );
}

/// Row 8: w and h at an answer; Ctrl-C at an answer stops it and the next goal runs.
#[test]
fn repl_answer_keys_w_h_and_ctrl_c() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("length(L, 30), member(X, [a, b]).").unwrap();
    p.exp_string("_T|...]").unwrap();
    p.send("w").unwrap();
    p.flush().unwrap();
    p.exp_string("_D1],").unwrap();
    p.send("h").unwrap();
    p.flush().unwrap();
    p.exp_string("w: the whole answer").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("X = a .").unwrap();
    p.send_line("Y = next.").unwrap();
    p.exp_string("\r\nY = next.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 45 item 7: `p` writes the answer again as at first (after `w`), and `f` gives the
/// next answers up to a multiple of 5, as in Scryer (regression: both repeated the help).
#[test]
fn repl_answer_keys_p_and_f() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("length(L, 30), between(1, 12, X).").unwrap();
    p.exp_string("_T|...],").unwrap();
    p.exp_string("X = 1 ").unwrap();
    p.send("w").unwrap();
    p.flush().unwrap();
    p.exp_string("_D1],").unwrap();
    p.exp_string("X = 1 ").unwrap();
    p.send("p").unwrap();
    p.flush().unwrap();
    let again = p.exp_string("X = 1 ").unwrap();
    assert!(again.contains("_T|...],"), "{again}");
    assert!(!again.contains("the next answer"), "{again}");
    p.send("f").unwrap();
    p.flush().unwrap();
    let five = p.exp_string("X = 5 ").unwrap();
    for i in 2..=4 {
        assert!(five.contains(&format!("X = {i} ;")), "{five}");
    }
    p.send("f").unwrap();
    p.flush().unwrap();
    p.exp_string("X = 10 ").unwrap();
    p.send(".").unwrap();
    p.flush().unwrap();
    p.exp_string(".\r\n").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 8: Scryer's panics are error messages, never a backtrace; time/1's line is flush left.
#[test]
fn query_goals_scryer_panics_on_are_errors() {
    let nk = &["--no-kenken"];
    let (out, code) = query_with(nk, "true, -a:A.");
    assert_eq!(
        (out.as_str(), code),
        ("   error(type_error(atom,-a),(:)/2).\n", 2)
    );
    let (out, code) = query_with(nk, "X = f(X), assertz(p(X)).");
    assert!(
        out.starts_with("   error(type_error(acyclic_term,"),
        "{out}"
    );
    assert_eq!(code, 2);
    let (out, code) = query_with(nk, "time(member(X, [1, 2])).");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("% CPU time: "), "{out}");
    assert_eq!(lines[1], "X = 1 ;", "{out}");
    assert!(lines[2].starts_with("% CPU time: "), "{out}");
    assert_eq!(lines[3], "X = 2.", "{out}");
    assert_eq!(code, 0);
}

#[test]
fn repl_cyclic_assert_is_an_error_and_a_failed_file_is_not_told_again() {
    let data = tempdir();
    let dir = tempdir();
    let bad = dir.join("bad.pl");
    std::fs::write(&bad, "foo(1).\nfoo(2) :- .\n").unwrap();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line(&format!("['{}'].", bad.display())).unwrap();
    p.exp_string("syntax error").unwrap();
    p.exp_string("false.").unwrap();
    p.send_line("X = f(X), assertz(p(X)).").unwrap();
    p.exp_string("type_error(acyclic_term,").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("Z = after.").unwrap();
    let before = p.exp_string("\r\nZ = after.").unwrap();
    assert!(!before.contains("syntax error"), "{before}");
    assert!(!before.contains("panicked"), "{before}");
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Regression: Scryer 0.10's acyclic_term/1 garbles a list of characters read from text inside
/// a compound term, and the top level called it on every asserted clause and every bb_put/2
/// value it kept for a restart: `assertz(f(v(1,[a])))` stored `f(v(1,[e,p|_]))`, and after
/// `bb_put(k, v(1,[a]))` the next goal's restart lost the engine and the value.
#[test]
fn repl_lists_of_characters_survive_assertz_and_a_restart() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line("assertz(f(v(1,[a]))), f(X).").unwrap();
    p.exp_string("X = v(1,\"a\").").unwrap();
    p.send_line("bb_put(k, v(2,[b,c])).").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("repeat, fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("bb_get(k, Y), f(Z).").unwrap();
    let seen = p.exp_string("Z = v(1,\"a\").").unwrap();
    assert!(seen.contains("Y = v(2,\"bc\")"), "{seen}");
    assert!(!seen.contains("engine failed"), "{seen}");
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 9: the prompt comes before kenken.pl is loaded; a goal typed at once waits for it.
#[test]
fn repl_goal_typed_at_once_waits_for_the_engine() {
    let data = tempdir();
    let mut p = repl(&data, &[]);
    p.send_line("kenken(0, [], T).").unwrap();
    p.exp_string("T = [].").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 2: a crash of the engine (Scryer 0.10 panics asserting a cyclic term from a consulted
/// predicate) is told on one line, and the session goes on with its state.
#[test]
fn repl_engine_crash_keeps_the_session() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("keep.pl");
    std::fs::write(&file, "keep(X) :- assertz(kept(X)).\n").unwrap();
    let mut p = repl(&data, &["--no-kenken", file.to_str().unwrap()]);
    p.send_line("assertz(before(1)), set_prolog_flag(double_quotes, atom).")
        .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("X = f(X), keep(X).").unwrap();
    p.exp_string("% the Prolog engine failed on this goal (Scryer Prolog: ")
        .unwrap();
    let line = p.exp_string("?- ").unwrap();
    assert!(line.contains("the session goes on"), "{line}");
    assert!(!line.contains("backtrace"), "{line}");
    p.send_line("before(X), keep(2), kept(Y), atom(\"abc\").")
        .unwrap();
    p.exp_string("X = 1,").unwrap();
    p.exp_string("Y = 2.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Row 2: a value a consulted file's predicate puts with bb_put/2 is kept too.
#[test]
fn repl_timeout_keeps_what_a_files_predicate_put() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("setk.pl");
    std::fs::write(&file, "setk(V) :- bb_put(filekey, V).\n").unwrap();
    let mut p = repl(
        &data,
        &["--no-kenken", "--timeout", "1", file.to_str().unwrap()],
    );
    p.send_line("setk(f(3)).").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("bb_get(filekey, V).").unwrap();
    p.exp_string("V = f(3).").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

// Issue 37: the top level says what happened.

#[test]
fn query_uncaught_exception_is_never_an_answer() {
    // As Scryer's top level writes it: throw(Ball), or an error(_, _) term as it is.
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "throw(true)."),
        ("   throw(true).\n".into(), 2)
    );
    assert_eq!(
        query_with(nk, "throw(false)."),
        ("   throw(false).\n".into(), 2)
    );
    assert_eq!(
        query_with(nk, "throw(f(\"ab\"))."),
        ("   throw(f(\"ab\")).\n".into(), 2)
    );
    // (strings in error terms as Scryer writes them, not as lists of characters)
    assert_eq!(
        query_with(nk, "atom_length(\"ab\", X)."),
        (
            "   error(type_error(atom,\"ab\"),atom_length/2).\n".into(),
            2
        )
    );
    // After an answer, no indentation (as Scryer).
    assert_eq!(
        query_with(nk, "(X = 1 ; throw(oops))."),
        ("X = 1 ;\nthrow(oops).\n".into(), 2)
    );
}

#[test]
fn repl_uncaught_exception_is_never_an_answer() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("throw(true).").unwrap();
    p.exp_string("\r\n   throw(true).").unwrap();
    p.send_line("X = 1.").unwrap();
    p.exp_string("\r\nX = 1.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn query_halt_stops_the_goals_that_follow() {
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "X = 1. halt. Y = 2."),
        ("X = 1.\n".into(), 0)
    );
    assert_eq!(query_with(nk, "halt. write(after)."), ("".into(), 0));
    assert_eq!(query_with(nk, "halt(0). write(after)."), ("".into(), 0));
    assert_eq!(
        query_with(nk, "X = 1. halt(6). Y = 2."),
        ("X = 1.\n".into(), 6)
    );
    // A halt the goal builds, or one in a consulted predicate.
    assert_eq!(query_with(nk, "G = halt(4), call(G).").1, 4);
    let dir = tempdir();
    let file = dir.join("halts.pl");
    std::fs::write(&file, "stop :- write(x), nl, halt(3).\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "stop. write(after)."),
        ("x\n".into(), 3)
    );
}

#[test]
fn a_consulted_files_initialization_halt_ends_the_session() {
    let dir = tempdir();
    let file = dir.join("init.pl");
    std::fs::write(&file, ":- initialization((write(hi), nl, halt(5))).\n").unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "write(after)."),
        ("hi\n".into(), 5)
    );
    assert_eq!(
        query_with(&["--no-kenken"], &format!("consult('{f}'), write(after).")),
        ("hi\n".into(), 5)
    );
    // The repl: before its first prompt, as Scryer.
    let data = tempdir();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"));
    cmd.args(["repl", "--no-kenken", f])
        .env("XDG_DATA_HOME", &data);
    let mut p = spawn_command(cmd, Some(30_000)).unwrap();
    p.exp_string("hi").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(5));
}

#[test]
fn a_students_own_kenken_pl_is_not_mixed_with_ours() {
    let dir = tempdir();
    let file = dir.join("partial.pl");
    std::fs::write(
        &file,
        "% only kenken/3 so far\nkenken(N, _C, T) :- length(T, N).\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    // The predicate the student has not written is an existence error, as in SWI and GNU.
    assert_eq!(
        query_with(&["--consult", f], "plain_kenken(2, [], T)."),
        (
            "   error(existence_error(procedure,plain_kenken/3),plain_kenken/3).\n".into(),
            2
        )
    );
    // Their kenken/3 answers, with no warning that its clauses are discontiguous.
    let out = kenken()
        .args(["query", "--consult", f, "--", "kenken(2, [], T)."])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "T = [_A,_B].\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    // A head behind a comment, quoted, with a term of many arguments inside.
    let quoted = dir.join("quoted.pl");
    std::fs::write(
        &quoted,
        "/* kenken(a).\n*/ 'plain_kenken'(N, [f(a, b, 0',)], T) :- T = N.\n",
    )
    .unwrap();
    assert_eq!(
        query_with(
            &["--consult", quoted.to_str().unwrap()],
            "kenken_testcase(N, C)."
        ),
        (
            "   error(existence_error(procedure,kenken_testcase/2),kenken_testcase/2).\n".into(),
            2
        )
    );
    // Consulted once kenken.pl is loaded, such a file replaces it wholly, as at the start:
    // the goal that names it runs in an engine without kenken.pl (issue 45 item 7:
    // regression, it stopped at the consult, without true.); what the session had stays.
    let replaced = format!(
        "% {f} defines kenken/3: it is loaded in place of the kenken.pl built into this \
         program, whose predicates are all gone (as with kenken repl {f})"
    );
    let (out, code) = query(&format!(
        "assertz(kept(1)), consult('{f}'), write(here). kenken(2, [], T). kept(X). \
         catch(plain_kenken(1, [], T), error(E, _), true)."
    ));
    assert_eq!(
        out,
        format!(
            "{replaced}.\nhere\ntrue.\n\
             T = [_A,_B].\nX = 1.\nE = existence_error(procedure,plain_kenken/3).\n"
        )
    );
    assert_eq!(code, 0);
    // ... and its result is the goal's
    assert_eq!(
        query(&format!("consult('{f}'), fail.")),
        (format!("{replaced}.\nfalse.\n"), 1)
    );
    // A file whose name the goal builds as it runs stops the goal there, and says so.
    let (out, code) = query(&format!(
        "atom_concat('{f}', '', F), consult(F), write(not_here). kenken(2, [], T)."
    ));
    assert_eq!(
        out,
        format!("{replaced}; the goal stopped there.\nT = [_A,_B].\n")
    );
    assert_eq!(code, 0);
    // A file that defines none of them is loaded beside kenken.pl.
    let helper = dir.join("helper.pl");
    std::fs::write(&helper, "kenken_helper(x).\nkenken(bad).\n").unwrap();
    let (out, code) = query_with(
        &["--consult", helper.to_str().unwrap()],
        "kenken_helper(X), plain_kenken(1, [], T).",
    );
    assert!(out.starts_with("X = x,\nT = [[1]]"), "{out}");
    assert_eq!(code, 0);
}

#[test]
fn repl_a_students_own_kenken_pl_answers_alone() {
    let dir = tempdir();
    let file = dir.join("partial.pl");
    std::fs::write(&file, "kenken(N, _C, T) :- length(T, N).\n").unwrap();
    let data = tempdir();
    let mut p = repl(&data, &[file.to_str().unwrap()]);
    p.send_line("plain_kenken(2, [], T).").unwrap();
    p.exp_string("existence_error(procedure,plain_kenken/3)")
        .unwrap();
    p.send_line("kenken(1, [], T).").unwrap();
    p.exp_string("T = [_A].").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn repl_ctrl_d_within_a_goal_is_a_syntax_error_and_the_session_goes_on() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("assertz(kept(1)).").unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("X = f(").unwrap();
    p.exp_string("|    ").unwrap();
    p.send_control('d').unwrap();
    p.exp_string("syntax_error").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("kept(X).").unwrap();
    p.exp_string("\r\nX = 1.").unwrap();
    // Ctrl-D at an empty prompt ends the session.
    p.exp_string("?- ").unwrap();
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn query_runaway_recursion_is_a_resource_error() {
    assert_eq!(
        query_with(
            &["--no-kenken", "--memory", "300M"],
            "assertz((f(X) :- f([X]))), f(a)."
        ),
        (
            "% resource error: the goal reached the memory limit (300 MiB, --memory)\n".into(),
            2
        )
    );
    // --memory is read as judge --memory reads it.
    let out = kenken()
        .args(["query", "--memory", "lots", "true."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("'lots' is not a size"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn repl_runaway_recursion_is_a_resource_error_and_the_session_goes_on() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--memory", "300M"]);
    p.send_line("assertz(kept(1)), op(700, xfx, ===>).")
        .unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("assertz((f(X) :- f([X]))), f(a).").unwrap();
    p.exp_string("% resource error: the goal reached the memory limit (300 MiB, --memory)")
        .unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("kept(X), Y = (a ===> b).").unwrap();
    p.exp_string("X = 1,\r\nY = (a===>b).").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn query_our_messages_start_on_a_line_of_their_own() {
    let nk = &["--no-kenken", "--timeout", "1"];
    // The goal's last nl/0 is shown (Scryer had not written it out when it was stopped).
    assert_eq!(
        query_with(nk, "write(a), nl, write(b), nl, repeat, fail."),
        ("a\nb\n% timed out\n".into(), 3)
    );
    assert_eq!(
        query_with(nk, "write(a), repeat, fail."),
        ("a\n% timed out\n".into(), 3)
    );
    // user_error keeps its last newline when it is not a terminal.
    let out = kenken()
        .args(["query", "--no-kenken", "--"])
        .arg("write(user_error, x), nl(user_error), write(y), nl.")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "x\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "y\ntrue.\n");
}

#[test]
fn repl_timeout_message_starts_on_a_line_of_its_own() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line("write(abc), repeat, fail.").unwrap();
    p.exp_string("abc\r\n% timed out").unwrap();
    // (no empty line when the output ended a line)
    p.send_line("write(a), nl, flush_output, repeat, fail.")
        .unwrap();
    p.exp_string("\r\na\r\n% timed out").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn query_goal_may_start_with_a_minus() {
    let nk = &["--no-kenken"];
    assert_eq!(query_with(nk, "- X = -(1)."), ("X = 1.\n".into(), 0));
    // (without `--` too, after the options or before them)
    let out = kenken()
        .args(["query", "--no-kenken", "- X = -(1)."])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "X = 1.\n");
    assert_eq!(out.status.code(), Some(0));
    let out = kenken()
        .args(["query", "-X = -(2).", "--no-kenken"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "X = 2.\n");
    let (out, code) = query_with(nk, "- 1 =:= X.");
    assert!(out.contains("instantiation_error"), "{out}");
    assert_eq!(code, 2);
}

#[test]
fn repl_statistics_keep_growing_across_a_restart() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line(
        "numlist(1, 100000, _), statistics(runtime, [A, _]), statistics(walltime, [W, _]), \
         statistics(inferences, I), assertz(t0(A, W, I)), write(saved), nl.",
    )
    .unwrap();
    p.exp_string("saved").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("repeat, fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    // The fresh engine's clocks go on from the old one's (SWI and GNU only count up).
    p.send_line(
        "t0(A0, W0, I0), statistics(runtime, [A, _]), statistics(walltime, [W, _]), \
         statistics(inferences, I), (A >= A0, W > W0, I > I0 -> write(grew) ; write(restarted)), nl.",
    )
    .unwrap();
    p.exp_string("\r\ngrew").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn query_a_library_predicate_reached_by_a_built_name_is_there() {
    // Regression (#37 item 11): libraries were loaded only for the predicates a goal names, so
    // one reached through call/N or =.. with a built name was an existence error.
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "atom_concat(for, mat, F), call(F, \"~w~n\", [x])."),
        ("x\nF = format.\n".into(), 0)
    );
    assert_eq!(
        query_with(nk, "G =.. [numlist, 1, 3, L], G."),
        ("G = numlist(1,3,[1,2,3]),\nL = [1,2,3].\n".into(), 0)
    );
    // A variable where a goal stands, bound to a goal built without a word that names it
    // (nor call/N nor =..), in a conjunction and in a disjunction; halt/1 reached so ends the
    // session.
    assert_eq!(
        query_with(
            nk,
            "atom_concat(for, mat, F), functor(G, F, 2), arg(1, G, \"~w~n\"), arg(2, G, [x]), \
             (true, G)."
        ),
        ("x\nF = format,\nG = format(\"~w~n\",\"x\").\n".into(), 0)
    );
    assert_eq!(
        query_with(
            nk,
            "atom_concat(nu, mlist, F), functor(G, F, 3), arg(1, G, 1), arg(2, G, 2), \
             (fail ; G), arg(3, G, L)."
        ),
        (
            "F = numlist,\nG = numlist(1,2,[1,2]),\nL = [1,2].\n".into(),
            0
        )
    );
    assert_eq!(
        query_with(nk, "G = halt(3), G, write(after)."),
        ("".into(), 3)
    );
}

/// Issue 37 item 6: a file with syntax errors. Scryer's consult/1 stops at the first one,
/// dropping the predicate it was reading and everything after it: every error is reported
/// with its line (also after a multi-line term that did not read, and not the false one
/// Scryer's reader finds at a block comment ending the file), and what was not loaded is named.
#[test]
fn query_consult_reports_every_syntax_error_and_what_was_not_loaded() {
    let dir = tempdir();
    let file = dir.join("two.pl");
    std::fs::write(
        &file,
        "a(1).\nb(1) :- foo(.\na(2).\nc(1) :-\n    ) .\nc(2).\nd(1).\n/* the end */\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let report = format!(
        "% {f}:2:13: syntax error: incomplete_reduction\n\
         % {f}:5:7: syntax error: incomplete_reduction\n\
         % {f}: loading stopped at the first syntax error (line 2); not loaded: a/1 (all its \
         clauses: it was being read then); after line 2: c/1, d/1\n"
    );
    assert_eq!(
        query_with(&["--no-kenken", "--consult", f], "true."),
        (report.clone(), 2)
    );
    // consult/1 in a goal: the same report, and what it names is indeed not there.
    let (out, code) = query_with(
        &["--no-kenken"],
        &format!("(consult('{f}') -> true ; true), catch(d(_), E, true)."),
    );
    assert_eq!(
        out,
        format!("{report}E = error(existence_error(procedure,d/1),d/1).\n")
    );
    assert_eq!(code, 0);
    // The directives after the error are counted, a grammar rule named by its predicate, and a
    // file's operators are known to the reading of what follows them.
    let ops = dir.join("ops.pl");
    std::fs::write(
        &ops,
        ":- op(700, xfx, ===>).\nok(1).\n:- dynamic(q/1).\nb(X) :- X ===> (.\nc(1) ===> 2.\n\
         :- dynamic(r/1).\nd --> [x].\n",
    )
    .unwrap();
    let o = ops.to_str().unwrap();
    assert_eq!(
        query_with(&["--no-kenken", "--consult", o], "true."),
        (
            format!(
                "% {o}:4:17: syntax error: incomplete_reduction\n\
                 % {o}: loading stopped at the first syntax error (line 4); not loaded: after \
                 line 4: (===>)/2, d/2 and 1 directive\n"
            ),
            2
        )
    );
}

/// Item 6 in the repl: consult/1 and make/0 report every error; a timeout (the goal stopped in
/// place) does not load a file edited since it was consulted (issue 51: the program stays the
/// one loaded); make/0 does, and says what no longer loads.
#[test]
fn repl_broken_edit_is_reported_by_make_and_after_a_restart() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("edit.pl");
    std::fs::write(&file, "p(1).\nq(1).\n").unwrap();
    let f = file.to_str().unwrap();
    let mut p = repl(&data, &["--no-kenken", "--timeout", "1"]);
    p.send_line(&format!("consult('{f}').")).unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("q(X).").unwrap();
    p.exp_string("X = 1.").unwrap();
    // Broken behind the session's back, then a restart.
    std::fs::write(&file, "p(1).\nq(1).\nr(1) :- (.\ns(1).\nt(1) :- ).\n").unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("q(X).").unwrap();
    let said = p.exp_string("X = 1.").unwrap();
    assert!(!said.contains("syntax error"), "{said}");
    // make/0 loads the edit and says what does not load; once fixed, make/0 loads it.
    p.send_line("make.").unwrap();
    p.exp_string(&format!("% {f}:3:")).unwrap();
    p.exp_string(&format!("% {f}:5:")).unwrap();
    p.exp_string("not loaded: q/1").unwrap();
    std::fs::write(&file, "p(1).\nq(2).\n").unwrap();
    p.send_line("make.").unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("q(X).").unwrap();
    p.exp_string("X = 2.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 37 item 9: an error in the goal typed reads as Scryer's top level tells it: in
/// read_term/3, lines counted from 1, and a quote left open as Scryer's reader says
/// (missing_quote, invalid_single_quoted_character), not incomplete_reduction.
#[test]
fn query_syntax_errors_read_as_scryers() {
    let nk = &["--no-kenken"];
    let cases = [
        (
            "foo(.",
            "   error(syntax_error(incomplete_reduction),read_term/3:1).\n",
        ),
        (
            "X = a,\n  foo(.",
            "   error(syntax_error(incomplete_reduction),read_term/3:2).\n",
        ),
        (
            "X = 'abc.",
            "   error(syntax_error(invalid_single_quoted_character),read_term/3).\n",
        ),
        (
            "X = \"abc.",
            "   error(syntax_error(missing_quote),read_term/3:1).\n",
        ),
        (
            "X = `abc.",
            "   error(syntax_error(missing_quote),read_term/3:1).\n",
        ),
    ];
    for (goal, out) in cases {
        assert_eq!(query_with(nk, goal), (out.to_string(), 2), "{goal}");
    }
    // A goal's own read_term_from_chars/3 is named as it is.
    let (out, code) = query_with(nk, "read_term_from_chars(\"f(.\", T, []).");
    assert!(out.contains("read_term_from_chars/3"), "{out}");
    assert_eq!(code, 2);
}

/// Items 9 and 10 in the repl: a quote left open is an error at once (as in Scryer and GNU
/// Prolog), and the next goal runs; ISO conformity #259 answers as in Scryer.
#[test]
fn repl_open_quote_is_an_error_at_once_and_iso_259_answers() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("X = 'abc.").unwrap();
    p.exp_string("error(syntax_error(invalid_single_quoted_character),read_term/3).")
        .unwrap();
    p.send_line("Y = 1.").unwrap();
    p.exp_string("\r\nY = 1.").unwrap();
    p.send_line("X = 0'\\").unwrap();
    p.send_line("+'/*'. %*/1.").unwrap();
    p.exp_string("X = 0+1.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Item 10: ISO conformity #259 through `query`, with other goals a reader ends where a
/// naive cut at ". " would not.
#[test]
fn query_goals_are_cut_where_the_reader_ends_them() {
    let nk = &["--no-kenken"];
    assert_eq!(
        query_with(nk, "X = 0'\\\n+'/*'. %*/1."),
        ("X = 0+1.\n".into(), 0)
    );
    assert_eq!(
        query_with(
            nk,
            "X = 0'\\x41\\. Y = \"a%b. \". Z = 0'%. /* it's. */ W = 'it''s'."
        ),
        (
            "X = 65.\nY = \"a%b. \".\nZ = 37.\nW = 'it\\'s'.\n".into(),
            0
        )
    );
}

/// Item 12: output is shown in batches (printing 200,000 lines spent a fifth of its time in
/// system calls), but never held back: what a running goal wrote is seen while it runs, a
/// prompt before it reads, and what Ctrl-C stops keeps what it had shown.
#[test]
fn repl_output_of_a_running_goal_is_seen_while_it_runs() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("write(started), nl, between(1, 3, X), write(X), nl, fail ; repeat, fail.")
        .unwrap();
    // (Scryer holds the last nl/0 back until the next write)
    p.exp_string("started\r\n1\r\n2\r\n3").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    p.exp_string("?- ").unwrap();
    p.send_line("write('name? '), read(X).").unwrap();
    p.exp_string("name? ").unwrap();
    p.send_line("ann.").unwrap();
    p.exp_string("X = ann.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Item 12: make/0 says what it reloaded, that nothing changed when nothing did, and that no
/// file was consulted; an unchanged file is not loaded again (its clauses asserted since stay).
#[test]
fn repl_make_says_what_it_reloaded() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("m.pl");
    std::fs::write(&file, ":- dynamic(m/1).\nm(1).\n").unwrap();
    let other = dir.join("other.pl");
    std::fs::write(&other, "o(1).\n").unwrap();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line("make.").unwrap();
    p.exp_string("% make: no file was consulted in this session")
        .unwrap();
    p.send_line(&format!("['{}', '{}'].", file.display(), other.display()))
        .unwrap();
    p.exp_string("true.").unwrap();
    p.send_line("assertz(m(2)), make.").unwrap();
    p.exp_string("% make: nothing changed since the files were loaded")
        .unwrap();
    p.send_line("findall(X, m(X), Xs).").unwrap();
    p.exp_string("Xs = [1,2].").unwrap();
    std::fs::write(&file, ":- dynamic(m/1).\nm(3).\n").unwrap();
    p.send_line("make.").unwrap();
    let shown = p.exp_string("true.").unwrap();
    assert!(
        shown.contains(&format!("% make: reloaded {}", file.display())),
        "{shown}"
    );
    assert!(!shown.contains("other.pl"), "{shown}");
    p.send_line("findall(X, m(X), Xs).").unwrap();
    p.exp_string("Xs = [3].").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Item 12: listing/1 of a consulted (static) predicate prints its clauses as portray_clause/1
/// writes them (Scryer's own listing/1 is a permission error there), a grammar rule
/// translated, a dynamic predicate after its declaration, every arity for a bare name; with
/// kenken.pl loaded too.
#[test]
fn query_listing_prints_a_consulted_predicate() {
    let dir = tempdir();
    let file = dir.join("l.pl");
    std::fs::write(
        &file,
        ":- dynamic(d/1).\nd(1).\nm(1).\nm(X) :- X > 1, format(\"~w\", [X]).\ng --> [a], g.\n\
         m(X, Y) :- Y is X + 1.\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (out, code) = query_with(
        &["--no-kenken", "--consult", f],
        "listing(m), listing(g//0), assertz(d(2)), listing(d/1), catch(listing(nosuch), E, true).",
    );
    assert_eq!(
        out,
        "m(1).\nm(A) :-\n   A>1,\n   format(\"~w\",[A]).\n\n\
         m(A,B) :-\n   B is A+1.\n\n\
         g(A,B) :-\n   A=[a|C],\n   g(C,B).\n\n\
         :- dynamic(d/1).\n\nd(1).\nd(2).\n\n\
         E = error(existence_error(procedure,nosuch),listing/1).\n"
    );
    assert_eq!(code, 0);
    assert_eq!(
        query_with(&["--consult", f], "listing(m/1)."),
        (
            "m(1).\nm(A) :-\n   A>1,\n   format(\"~w\",[A]).\n\ntrue.\n".into(),
            0
        )
    );
}

/// Item 12: Tab completes a predicate's name: a builtin, one of a file consulted at the start,
/// one asserted in the session.
#[test]
fn repl_tab_completes_predicate_names() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("names.pl");
    std::fs::write(&file, "my_long_predicate(1).\n").unwrap();
    let mut p = repl(&data, &["--no-kenken", file.to_str().unwrap()]);
    p.send("my_long_p\t").unwrap();
    p.send_line("(X).").unwrap();
    p.exp_string("X = 1.").unwrap();
    p.send("atom_len\t").unwrap();
    p.send_line("(abc, N).").unwrap();
    p.exp_string("N = 3.").unwrap();
    p.send_line("assertz(session_made_this(2)).").unwrap();
    p.exp_string("true.").unwrap();
    p.send("session_m\t").unwrap();
    p.send_line("(Y).").unwrap();
    p.exp_string("Y = 2.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 45 item 7: `[kenken].` with a student's own kenken.pl that does not load is told as
/// a first load (regression: "in the restart, kenken (changed since it was loaded)..."), and
/// the message's last line ends before the next prompt (regression: `bar/0?- `).
#[test]
fn repl_a_students_broken_kenken_pl_is_told_as_a_first_load() {
    let dir = tempdir();
    std::fs::write(
        dir.join("kenken.pl"),
        "kenken(N, _C, T) :- length(T, N).\nfoo(.\nbar.\n",
    )
    .unwrap();
    let out = kenken()
        .arg("repl")
        .current_dir(&dir)
        .env("XDG_DATA_HOME", &dir)
        .write_stdin("[kenken].\nX = 1.\n")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out,
        "?- [kenken].\n\
         % kenken.pl defines kenken/3: it is loaded in place of the kenken.pl built into this \
         program, whose predicates are all gone (as with kenken repl kenken.pl).\n\
         % kenken.pl:2:5: syntax error: incomplete_reduction\n\
         % kenken.pl: loading stopped at the first syntax error (line 2); not loaded: kenken/3 \
         (all its clauses: it was being read then); after line 2: bar/0\n\
         false.\n\
         ?- X = 1.\n\
         X = 1.\n"
    );
}

/// A homework file consulted in the repl's session replaces kenken.pl wholly, and a fresh
/// engine after a timeout starts without kenken.pl too.
#[test]
fn repl_homework_file_consulted_in_the_session_replaces_ours() {
    let data = tempdir();
    let dir = tempdir();
    let file = dir.join("mine.pl");
    std::fs::write(&file, "kenken(N, _C, T) :- length(T, N).\n").unwrap();
    let f = file.to_str().unwrap();
    let mut p = repl(&data, &["--timeout", "1"]);
    p.send_line("once(plain_kenken(1, [], T)).").unwrap();
    p.exp_string("T = [[1]].").unwrap();
    p.send_line(&format!("['{f}'].")).unwrap();
    p.exp_string("it is loaded in place of the kenken.pl built into this program")
        .unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("catch(plain_kenken(1, [], T), error(E, _), true).")
        .unwrap();
    p.exp_string("E = existence_error(procedure,plain_kenken/3).")
        .unwrap();
    p.send_line("length(L, N), fail.").unwrap();
    p.exp_string("% timed out").unwrap();
    p.send_line("kenken(2, [], T), catch(plain_kenken(1, [], _), error(E, _), true).")
        .unwrap();
    p.exp_string("T = [_A,_B],").unwrap();
    p.exp_string("E = existence_error(procedure,plain_kenken/3).")
        .unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// A goal whose heap cannot grow where Scryer 0.10 panics while throwing its resource error
/// (a list of 200 million numbers under a 256 MiB bound) is a resource error too, never "the
/// engine failed"; in the repl the session goes on with its state.
#[test]
fn out_of_memory_where_scryer_panics_is_a_resource_error() {
    assert_eq!(
        query_with(
            &["--no-kenken", "--memory", "256M"],
            "numlist(1, 200000000, L)."
        ),
        (
            "% resource error: the goal reached the memory limit (256 MiB, --memory)\n".into(),
            2
        )
    );
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken", "--memory", "256M"]);
    p.send_line("assertz(kept(1)).").unwrap();
    p.exp_string("\r\ntrue.").unwrap();
    p.send_line("numlist(1, 200000000, L).").unwrap();
    let shown = p
        .exp_string("% resource error: the goal reached the memory limit (256 MiB, --memory)")
        .unwrap();
    assert!(!shown.contains("failed"), "{shown}");
    p.send_line("kept(X).").unwrap();
    p.exp_string("X = 1.").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 45 items 2 and 3, measured (no time is asserted): the wall-clock time of every answer
/// of `kenken(4, [], T)` through `kenken query` against `kenken solve --engine fd --all` on
/// the same empty 4x4 puzzle (both start an engine with kenken.pl), alternated, as ratios; and
/// the top level's answer text for lists of 10^3..10^5 one-character atoms and of fresh
/// variables, against the same goals without text. `KENKEN_BASELINE=/path/to/kenken` adds
/// another build's `kenken query` to the first comparison.
#[test]
#[ignore = "a measurement: cargo test --release --test cli -- --ignored --nocapture toplevel_goal_against_the_solving_engine"]
fn toplevel_goal_against_the_solving_engine() {
    let dir = tempdir();
    let puzzle = dir.join("empty4.pl");
    std::fs::write(&puzzle, "kenken_testcase(4, []).\n").unwrap();
    let ours = assert_cmd::cargo::cargo_bin("kenken");
    let baseline = std::env::var_os("KENKEN_BASELINE").map(std::path::PathBuf::from);
    let time = |program: &std::path::Path, args: &[&str]| {
        let start = std::time::Instant::now();
        let out = std::process::Command::new(program)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        start.elapsed().as_secs_f64()
    };
    let goal = "findall(T, kenken(4, [], T), L), length(L, N).";
    let solve = [
        "solve",
        "--engine",
        "fd",
        "--all",
        "--count",
        puzzle.to_str().unwrap(),
    ];
    for round in 1..=3 {
        let q = time(&ours, &["query", goal]);
        let s = time(&ours, &solve);
        let mut line = format!(
            "round {round}: query {q:.2} s, solve --engine fd {s:.2} s, query/solve {:.2}",
            q / s
        );
        if let Some(b) = &baseline {
            let bq = time(b, &["query", goal]);
            line += &format!(", baseline query {bq:.2} s, baseline/ours {:.2}", bq / q);
        }
        println!("{line}");
    }
    // The same goal through the query API, in this thread (an engine for a person's goals,
    // which carries the host's rewriting of consulted files), once it is started.
    for round in 1..=3 {
        let mut s = kenken::prolog::Session::new();
        let start = std::time::Instant::now();
        let (answers, _) = s
            .query(&kenken::prolog::Query::new(goal))
            .unwrap()
            .collect_all()
            .unwrap();
        assert_eq!(answers.len(), 1);
        println!(
            "round {round}: Session::query {:.2} s",
            start.elapsed().as_secs_f64()
        );
    }
    for n in [1_000, 10_000, 100_000] {
        for (shape, goal) in [
            (
                "one-character atoms",
                format!("length(L, {n}), maplist(=(x), L)"),
            ),
            ("fresh variables", format!("length(L, {n})")),
        ] {
            let shown = time(&ours, &["query", "--no-kenken", &format!("{goal}.")]);
            let whole = time(
                &ours,
                &[
                    "query",
                    "--no-kenken",
                    &format!("set_prolog_flag(answer_write_options, [max_depth(0)]), {goal}."),
                ],
            );
            let hidden = goal.replace('L', "_L");
            let hidden = time(&ours, &["query", "--no-kenken", &format!("{hidden}.")]);
            println!(
                "{n} {shape}: answer {shown:.2} s, whole answer {whole:.2} s, no text {hidden:.2} s"
            );
        }
    }
}

/// `consult/1` of a file that does not exist throws `existence_error(source_sink, F)`, as
/// Scryer's, SWI's and GNU Prolog's do: `catch/3` sees it, and uncaught the top level writes it
/// (issue 45: it printed a message and failed).
#[test]
fn consulting_a_missing_file_throws_an_existence_error() {
    assert_eq!(
        query_with(&["--no-kenken"], "catch(consult(nosuch), E, true)."),
        (
            "E = error(existence_error(source_sink,nosuch),consult/1).\n".into(),
            0
        )
    );
    let (out, code) = query_with(&["--no-kenken"], "[nosuch].");
    assert_eq!(
        (out.as_str(), code),
        (
            "   error(existence_error(source_sink,nosuch),consult/1).\n",
            2
        )
    );
}

/// A reply frame as the top level's child would write one, with a nonce guessed.
const FORGED: &str = "kenken-frame 2 00000000000000000000000000000000 done \
     {\"Done\":{\"result\":\"True\",\"state\":null,\"inferences\":null,\"names\":[],\"kenken\":false}}";

/// A goal that reads the name of a file from its standard input and writes `FORGED` there.
fn forging_goal() -> String {
    format!("read(P), open(P, write, S), write(S, '{FORGED}'), nl(S), close(S).")
}

/// `kenken ARGS`, its standard input `first`, then (once its engine runs) the name under
/// `/proc` of the engine's end of its replies' pipe (its own name is gone by then), as a
/// Prolog atom and a line, then, once it said that the engine was stopped, `rest`: what it
/// printed, what it said on standard error, and its exit code.
fn forging(args: &[&str], first: &str, rest: &str) -> (String, String, i32) {
    use std::io::{BufRead, Read, Write};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut e = String::new();
        let _ = stderr.read_to_string(&mut e);
        e
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first.as_bytes()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let replies = loop {
        let found = crate::common::procs::descendants(child.id() as i32)
            .into_iter()
            .find_map(|p| {
                let fds = std::fs::read_dir(format!("/proc/{}/fd", p.pid)).ok()?;
                fds.flatten().find_map(|fd| {
                    let to = std::fs::read_link(fd.path()).ok()?;
                    let to = to.to_string_lossy();
                    (to.contains("kenken-channel-") && to.contains("/replies")).then(|| fd.path())
                })
            });
        if let Some(f) = found {
            break f;
        }
        assert!(std::time::Instant::now() < deadline, "no engine found");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    writeln!(stdin, "'{}'.", replies.display()).unwrap();
    let mut out = String::new();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut stdin = Some(stdin);
    loop {
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap() == 0 {
            break;
        }
        out.push_str(&line);
        if line.contains("% the engine") {
            // (what was fed to the goal went with its engine: the rest comes after)
            if let Some(mut s) = stdin.take() {
                s.write_all(rest.as_bytes()).unwrap();
            }
        }
    }
    drop(stdin);
    let code = child.wait().unwrap().code().unwrap_or(-1);
    (out, err.join().unwrap(), code)
}

/// The other side lying (#42): the top level's engine speaks the process layer's protocol
/// (tickets with a nonce, frames on a channel that is not the terminal). A goal that writes a
/// reply frame to standard output or standard error has printed it, no more: the query's
/// result is the goal's own. One that writes it to the channel's pipe itself (found in
/// `/proc`: its name is gone) is found out (the nonce is not the request's): the engine is
/// stopped and says so, never believed.
#[test]
fn query_a_goal_that_writes_a_forged_reply_is_not_believed() {
    let nk = &["--no-kenken"];
    let (out, code) = query_with(nk, &format!("write('{FORGED}'), nl, fail."));
    assert_eq!((out, code), (format!("{FORGED}\nfalse.\n"), 1));
    let out = kenken()
        .args(["query", "--no-kenken", "--"])
        .arg(format!(
            "write(user_error, '{FORGED}'), nl(user_error), X = 1."
        ))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("{FORGED}\n"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "X = 1.\n");
    assert_eq!(out.status.code(), Some(0));
    let goal = forging_goal();
    // (the goal's answer may have been shown before the forged frame was read; the engine's
    // failure is an error, said on standard error)
    let (_, err, code) = forging(&["query", "--no-kenken", "--", &goal], "", "");
    assert!(
        err.starts_with(
            "kenken: the engine's reply cannot be trusted: it wrote a reply frame that is not \
             the current request's"
        ),
        "{err}"
    );
    assert_eq!(code, 2);
}

/// The repl's engine found out forging a reply is stopped, and the session goes on in a fresh
/// engine with its state.
#[test]
fn repl_a_goal_that_writes_to_the_channel_is_stopped_and_the_session_goes_on() {
    let first = format!("assertz(kept(1)).\n{}\n", forging_goal());
    let (text, _, code) = forging(&["repl", "--no-kenken"], &first, "kept(X).\n");
    assert!(
        text.contains(
            "\n% the engine's reply cannot be trusted: it wrote a reply frame that is not the \
             current request's"
        ),
        "{text}"
    );
    assert!(
        text.contains("; the session goes on in a fresh engine\n"),
        "{text}"
    );
    assert!(text.ends_with("?- kept(X).\nX = 1.\n"), "{text}");
    assert_eq!(code, 0);
}

/// An engine that dies in the middle of a goal (killed here by the goal itself) is said to
/// have stopped, and how: `query` exits 2 (an error), the repl goes on with the session's
/// state.
#[test]
fn an_engine_that_dies_mid_goal_is_said_so() {
    // (what it wrote is shown before it dies)
    let kill = "write(before), nl, use_module(library(os)), shell(\"sleep 0.5; kill -9 $PPID\").";
    // (shell/1 runs $SHELL: see `repl`)
    let out = kenken()
        .args(["query", "--no-kenken", "--", kill])
        .env("SHELL", "/bin/sh")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "before\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "kenken: the engine stopped (signal: 9 (SIGKILL))\n"
    );
    assert_eq!(out.status.code(), Some(2));
    let out = kenken()
        .args(["repl", "--no-kenken"])
        .env("SHELL", "/bin/sh")
        .write_stdin(format!("assertz(kept(1)).\n{kill}\nkept(X).\n"))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "before\n% the engine stopped (signal: 9 (SIGKILL)); the session goes on in a \
             fresh engine\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("?- kept(X).\nX = 1.\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
}

/// An engine killed from outside while it waits for the next goal is replaced, with the
/// session's state, before that goal runs: the goal runs, and nothing is said of a goal that
/// never ran in it.
#[test]
fn repl_an_engine_killed_while_it_waits_is_replaced_before_the_next_goal() {
    let data = tempdir();
    let mut p = repl(&data, &["--no-kenken"]);
    p.send_line(
        "assertz(kept(1)), use_module(library(os)), shell(\"(sleep 1; kill -9 $PPID) &\").",
    )
    .unwrap();
    p.exp_string("true.").unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    p.send_line("kept(X).").unwrap();
    let before = p.exp_string("\r\nX = 1.").unwrap();
    assert!(!before.contains('%'), "{before}");
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}
