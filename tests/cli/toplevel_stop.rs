//! Issue 51: the top level after Ctrl-C (`kenken repl` on a pseudo-terminal) and after
//! `--timeout` (piped input): a stopped goal keeps what it did, a restart rebuilds exactly the
//! program the user had, no flag a user may set makes Scryer panic, and messages name what
//! they should. Each session serves many assertions (an engine start costs half a second of
//! CPU, with `kenken.pl` more).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rexpect::session::{spawn_command, PtySession};

use crate::common::kenken;

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "kenken-stop-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A repl on a pseudo-terminal in `dir` (its history there too).
fn repl(dir: &Path, args: &[&str]) -> PtySession {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"));
    cmd.arg("repl")
        .args(args)
        .current_dir(dir)
        .env("XDG_DATA_HOME", dir)
        .env("SHELL", "/bin/sh");
    let mut p = spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string("?- ").unwrap();
    p
}

/// `kenken repl ARGS` in `dir` with `input` piped in: its standard output and exit code.
fn piped(dir: &Path, args: &[&str], input: &str) -> (String, i32) {
    let out = kenken()
        .arg("repl")
        .args(args)
        .current_dir(dir)
        .env("SHELL", "/bin/sh")
        .write_stdin(input)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `kenken query ARGS -- GOAL` in `dir` with `input` piped in: its standard output, standard
/// error and exit code.
fn query(dir: &Path, args: &[&str], goal: &str, input: &str) -> (String, String, i32) {
    let out = kenken()
        .arg("query")
        .args(args)
        .arg("--")
        .arg(goal)
        .current_dir(dir)
        .write_stdin(input)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// What every stopped goal below did, and what the next goal checks of it.
const EFFECTS: &str = "assertz(m(1)), op(700, xfx, ~~>), set_prolog_flag(double_quotes, atom), \
     consult(a), bb_put(k, 7), retract(m(1)), assertz(m(2)), assertz(gone(1)), retract(gone(1))";
const CHECK: &str = "m(X), Y = (a ~~> b), Z = \"ab\", bb_get(k, V), findall(Q, p(Q), L), \
     findall(G, gone(G), Gs).";
const CHECKED: [&str; 6] = [
    "X = 2,",
    "Y = (a~~>b),",
    "Z = ab,",
    "V = 7,",
    "L = [a1,a2],",
    "Gs = [].",
];

fn files(dir: &Path) {
    std::fs::write(dir.join("a.pl"), "p(a1).\np(a2).\nq(a).\n").unwrap();
    std::fs::write(dir.join("b.pl"), "p(b1).\n").unwrap();
}

/// Item 1 at a terminal: Ctrl-C stops the goal where it is, and everything it did stays (as at
/// Scryer's, SWI's and GNU Prolog's prompts): clauses asserted and retracted (a dynamic
/// predicate left without clauses is still known), an operator, a flag, a consult, a global
/// variable; thousands of facts asserted by a failure-driven loop. Nothing is said of a lost
/// state. Then item 2: a goal that does not stop (it catches every interrupt) is killed after
/// the grace period, and the engine rebuilt from the session's state is the program the user
/// had: `[a]. [b]. [a].` gives a's clauses, not b's; a file edited on disk is not reloaded
/// (make/0 does it); no loader warning is said again.
#[test]
fn repl_ctrl_c_keeps_what_the_goal_did_and_a_kill_rebuilds_the_same_program() {
    let dir = tempdir();
    files(&dir);
    let mut p = repl(&dir, &["--no-kenken"]);
    // (Ctrl-C once the goal runs: a press while the engine still loads, SIGINT blocked, stops
    // nothing, and the goal is killed after the grace period)
    // (the echo of the line typed says `write(runs)`, the goal `goal runs`)
    p.send_line(&format!(
        "{EFFECTS}, write('goal '), write(runs), nl, repeat, fail."
    ))
    .unwrap();
    p.exp_string("goal runs").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let start = std::time::Instant::now();
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    let said = p.exp_string("?- ").unwrap();
    println!(
        "Ctrl-C to the prompt, the goal stopped in place: {:?}",
        start.elapsed()
    );
    assert!(!said.contains("did not stop"), "{said}");
    p.send_line(CHECK).unwrap();
    for c in CHECKED {
        p.exp_string(c).unwrap();
    }
    p.send_line("write('goal '), write(runs), nl, repeat, assertz(tick(x)), fail.")
        .unwrap();
    p.exp_string("goal runs").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    p.send_control('c').unwrap();
    p.exp_string("% interrupted").unwrap();
    p.send_line("findall(x, tick(x), Ts), length(Ts, N), N > 100, write(many), nl.")
        .unwrap();
    p.exp_string("\r\nmany").unwrap();
    // (the consults in order: b's p/1 replaced by a's again; each says Scryer's warning)
    p.send_line("[b], [a], listing(p/1).").unwrap();
    p.exp_string("p(a1).\r\np(a2).\r\n").unwrap();
    std::fs::write(dir.join("a.pl"), "p(edited).\n").unwrap();
    p.send_line("repeat, catch((repeat, fail), _, true), fail.")
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let start = std::time::Instant::now();
    p.send_control('c').unwrap();
    let said = p
        .exp_string("the goal did not stop within 1 s, so its engine was replaced")
        .unwrap();
    assert!(said.contains("% interrupted"), "{said}");
    p.exp_string("?- ").unwrap();
    println!(
        "Ctrl-C to the prompt, the goal killed: {:?}",
        start.elapsed()
    );
    p.send_line(CHECK).unwrap();
    let before = p.exp_string(CHECKED[0]).unwrap();
    assert!(!before.contains("Warning"), "{before}");
    for c in &CHECKED[1..] {
        p.exp_string(c).unwrap();
    }
    p.send_line("listing(p/1), q(W).").unwrap();
    p.exp_string("p(a1).\r\np(a2).\r\n").unwrap();
    p.exp_string("W = a.").unwrap();
    p.send_line("make.").unwrap();
    p.exp_string("% make: reloaded a.pl").unwrap();
    p.send_line("findall(Q, p(Q), L).").unwrap();
    p.exp_string("L = [edited].").unwrap();
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}

/// Item 1 and 2 with piped input and `--timeout`: the timeout stops the goal in place (what it
/// did stays); an engine killed (here from outside: `kill -9`) is rebuilt with the consults in
/// their order, the copies of the texts loaded (a file edited on disk meanwhile is not
/// reloaded), the operators and flags, a dynamic predicate without clauses; `listing/1` shows
/// what the engine has (clauses that came apart, Scryer keeps the last); no warning again.
#[test]
fn piped_repl_timeout_keeps_what_the_goal_did_and_a_restart_rebuilds_the_same_program() {
    let dir = tempdir();
    files(&dir);
    std::fs::write(dir.join("c.pl"), "r(1).\ns.\nr(2).\n").unwrap();
    let input = format!(
        "{EFFECTS}, repeat, fail.\n{CHECK}\n\
         [b]. [a]. [c].\n\
         open('a.pl', write, S), write(S, 'p(edited).'), nl(S), close(S).\n\
         use_module(library(os)), atom_chars('kill -9 $PPID', K), shell(K).\n\
         {CHECK}\nlisting(r/1).\n"
    );
    let (out, code) = piped(&dir, &["--no-kenken", "--timeout", "1"], &input);
    assert_eq!(code, 0, "{out}");
    let checks: Vec<_> = out.match_indices(&CHECKED.join("\n")).collect();
    assert_eq!(checks.len(), 2, "{out}");
    assert!(out.contains("% timed out\n?- "), "{out}");
    assert!(!out.contains("did not stop"), "{out}");
    let (_, after) = out
        .split_once("the session goes on in a fresh engine")
        .unwrap();
    assert!(!after.contains("Warning"), "{out}");
    assert!(
        after.ends_with("?- listing(r/1).\nr(2).\n\ntrue.\n"),
        "{out}"
    );
}

/// Item 2 in a homework session: a student's buggy file, then the fixed one (each a kenken.pl
/// of its own, replacing the built-in one), then a restart: the spec's 6x6 is answered by the
/// fixed file, and its `helper/1` has only its clauses.
#[test]
fn a_homework_session_rebuilt_after_a_restart_answers_rightly() {
    let dir = tempdir();
    std::fs::write(
        dir.join("kenken_bad.pl"),
        "kenken(N, _, T) :- length(T, N).\nhelper(bad).\nhelper(worse).\n",
    )
    .unwrap();
    let kenken_pl =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("prolog/kenken.pl"))
            .unwrap();
    std::fs::write(
        dir.join("kenken.pl"),
        format!("{kenken_pl}\nhelper(good).\n"),
    )
    .unwrap();
    let input = "[kenken_bad].\n[kenken].\n\
                 use_module(library(os)), shell(\"kill -9 $PPID\").\n\
                 kenken_testcase(6, C), kenken(6, C, T).\nfindall(H, helper(H), Hs).\n";
    let (out, code) = piped(&dir, &[], input);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kenken_bad.pl defines kenken/3"), "{out}");
    let (_, after) = out
        .split_once("the session goes on in a fresh engine")
        .unwrap();
    assert!(
        after.contains("T = [[5,6,3,4,1,2],[6,1,4,5,2,3],[4,5,2,3,6,1],[3,4,1,2,5,6]"),
        "{out}"
    );
    assert!(
        after.ends_with("?- findall(H, helper(H), Hs).\nHs = [good].\n"),
        "{out}"
    );
}

/// Item 3: double_quotes set to codes, chars or atom, then read/1, get_char/1, format/2 and a
/// consult: no Scryer panic (with codes, library(process), loaded for the relay of standard
/// input, was read with codes and panicked in process_create/3), in `query` as in `repl`, and
/// a file that sets the flag leaves every goal after it working.
#[test]
fn double_quotes_of_every_kind_read_write_and_consult() {
    let dir = tempdir();
    std::fs::write(dir.join("s.pl"), "s(\"ab\").\n").unwrap();
    std::fs::write(
        dir.join("dq.pl"),
        ":- set_prolog_flag(double_quotes, codes).\n",
    )
    .unwrap();
    for (dq, s) in [("codes", "[97,98]"), ("chars", "\"ab\""), ("atom", "ab")] {
        let (out, err, code) = query(
            &dir,
            &["--no-kenken"],
            &format!(
                "set_prolog_flag(double_quotes, {dq}). read(X), get_char(C), \
                 format([~,w,~,n], [x]), consult(s), s(S). format(\"~w\", [x])."
            ),
            "foo. z",
        );
        // (format/2 takes a list of characters: with codes or atom, "~w" is Scryer's own
        // type error, as at its prompt)
        let format = match dq {
            "chars" => "x",
            "codes" => "   error(type_error(character,126),can_be/2).",
            _ => "   error(type_error(list,'~w'),can_be/2).",
        };
        assert!(
            out.starts_with(&format!("true.\nx\nX = foo,\nC = ' ',\nS = {s}.\n{format}")),
            "{dq}: {out}"
        );
        assert_eq!(
            (err.as_str(), code),
            ("", if dq == "chars" { 0 } else { 2 }),
            "{dq}"
        );
    }
    let (out, err, code) = query(
        &dir,
        &["--no-kenken", "--consult", "dq.pl"],
        "X = \"ab\".",
        "",
    );
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("X = [97,98].\n", "", 0)
    );
    let (out, code) = piped(
        &dir,
        &["--no-kenken"],
        "set_prolog_flag(double_quotes, codes).\nread(X).\nfoo.\nX = \"ab\".\n",
    );
    assert_eq!(
        out,
        "?- set_prolog_flag(double_quotes, codes).\ntrue.\n?- read(X).\nX = foo.\n\
         ?- X = \"ab\".\nX = [97,98].\n"
    );
    assert_eq!(code, 0);
}

/// Item 4: a syntax error names the file, the line and the column (never line 0, nor "none");
/// a file of test cases alone (as `kenken generate --output prolog` writes) leaves `kenken/3`,
/// in `query` as in `repl`.
#[test]
fn syntax_errors_say_line_and_column_and_test_cases_leave_kenken() {
    let dir = tempdir();
    for (name, text, said) in [
        (
            "e1.pl",
            "p(a.\nq(b).\n",
            "e1.pl:1:4: syntax error: incomplete_reduction",
        ),
        (
            "e3.pl",
            "p(\"abc\n",
            "e3.pl:1:6: syntax error: missing_quote",
        ),
        (
            "e4.pl",
            "a :- b\nc :- d.\n",
            "e4.pl:2:7: syntax error: incomplete_reduction",
        ),
        (
            "e13.pl",
            "p(a).\n:- X = 'ab\nq.\n",
            "e13.pl:2:10: syntax error: invalid_single_quoted_character",
        ),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let (out, _, code) = query(&dir, &["--no-kenken", "--consult", name], "true.", "");
        assert!(out.contains(&format!("% {said}\n")), "{name}: {out}");
        assert!(
            !out.contains(":0:") && !out.contains("none"),
            "{name}: {out}"
        );
        assert_eq!(code, 2, "{name}");
    }
    let out = kenken()
        .args([
            "generate", "--size", "4", "--seed", "1", "--output", "prolog",
        ])
        .output()
        .unwrap();
    std::fs::write(dir.join("gen.pl"), &out.stdout).unwrap();
    let goal = "kenken_testcase(N, C), kenken(N, C, T).";
    let (out, _, code) = query(&dir, &["--consult", "gen.pl"], goal, "");
    // (Scryer's own warning, as at its prompt: the file's test cases replace kenken.pl's)
    assert!(
        out.starts_with(
            "% Warning: overwriting kenken_testcase/2 because the clauses are discontiguous\nN = 4,"
        ),
        "{out}"
    );
    assert_eq!(code, 0);
    let (out, code) = piped(&dir, &[], &format!("[gen].\n{goal}\n"));
    assert!(
        out.starts_with(
            "?- [gen].\n% Warning: overwriting kenken_testcase/2 because the clauses are \
             discontiguous\ntrue.\n?- "
        ),
        "{out}"
    );
    assert!(out.contains("\nN = 4,"), "{out}");
    assert_eq!(code, 0);
}

/// A Ctrl-C while the repl's engine loads must not stop the load: `SIGINT` stays blocked in the
/// child's threads until the engine is loaded, its main thread's too (it was not: a press
/// went to that thread, and the flag Scryer's handler set stopped the host program's load,
/// `kk_top_start/2` left undefined).
#[test]
fn repl_child_main_thread_blocks_sigint() {
    let dir = tempdir();
    let mut p = repl(&dir, &["--no-kenken"]);
    p.send_line("X = 1.").unwrap();
    p.exp_string("X = 1.").unwrap();
    // (the child: the process in this test's directory started with `-f -g halt`)
    let child = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|d| {
            std::fs::read_link(d.join("cwd")).is_ok_and(|c| c == dir.canonicalize().unwrap())
                && std::fs::read(d.join("cmdline")).is_ok_and(|c| c.ends_with(b"-g\0halt\0"))
        })
        .expect("the repl's child");
    let status = std::fs::read_to_string(child.join("status")).unwrap();
    let blocked = status
        .lines()
        .find_map(|l| l.strip_prefix("SigBlk:"))
        .map(|m| u64::from_str_radix(m.trim(), 16).unwrap())
        .unwrap();
    // (SIGINT is signal 2: bit 1)
    assert_ne!(blocked & 2, 0, "{status}");
    p.send_line("halt.").unwrap();
    p.exp_eof().unwrap();
}
