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
fn query_answer_with_a_hundred_thousand_elements() {
    let (out, code) = query("numlist(1,100000,L).");
    assert!(out.starts_with("L = [1,2,3,"), "{}", &out[..50]);
    assert!(out.ends_with(",99999,100000].\n"));
    assert_eq!(code, 0);
    assert_eq!(
        query("numlist(1,100000,_L), length(_L,N)."),
        ("N = 100000.\n".into(), 0)
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
        "nest(100000, T).",
    );
    assert!(
        out.starts_with("T = f(f(f("),
        "{}",
        &out[..out.len().min(300)]
    );
    assert!(out.contains("f(f(a)))))"));
    assert!(out.ends_with("))))).\n"));
    assert_eq!(code, 0);
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
