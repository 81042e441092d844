//! No child of `kenken` outlives it (#45): killed (`SIGKILL`, as a Python `subprocess`
//! timeout does, or `SIGTERM`) while its children are busy, or ending by itself, `kenken`
//! leaves no process behind, whatever the children are: a bounded query's child, the top
//! level's engine, solve workers and their spares, judged engines (confined Scryer, GNU
//! Prolog). The library's side (a parent that panics, aborts, exits) is in the engines tests.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::common::procs::{self, Proc, Reaper, END_WITHIN};
use crate::common::{data, gprolog};

/// `kenken ARGS`, its standard input a pipe holding `input` (kept open), its output dropped.
fn start(args: &[&str], input: &str) -> (Child, Reaper) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kenken"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let reaper = Reaper(vec![Proc::of(child.id() as i32).unwrap()]);
    (child, reaper)
}

/// Waits (a bounded time) until `kenken` has at least `n` descendants, then lets them work a
/// moment: the descendants.
fn busy_descendants(kenken: &Child, n: usize, reaper: &mut Reaper, what: &str) -> Vec<Proc> {
    let found = procs::await_descendants(kenken.id() as i32, n, Duration::from_secs(120), |_| true);
    reaper.hold(&found);
    assert!(found.len() >= n, "{what}: {found:?}");
    // (past their start, most likely: at work)
    std::thread::sleep(Duration::from_secs(3));
    let found = procs::descendants(kenken.id() as i32);
    reaper.hold(&found);
    found
}

/// Waits (a bounded time) until `kenken` ended.
fn await_end(kenken: &mut Child, what: &str) {
    let deadline = Instant::now() + END_WITHIN;
    while kenken.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(kenken.try_wait().unwrap().is_some(), "{what}: did not end");
}

/// Asserts that none of `started` runs once a bounded time has passed.
fn none_left(started: &[Proc], what: &str) {
    let left: Vec<String> = procs::await_gone(started, END_WITHIN)
        .iter()
        .map(|p| format!("{} {}", p.pid, p.cmdline()))
        .collect();
    assert!(
        left.is_empty(),
        "{what}: of {} children, {} outlived kenken: {left:?}",
        started.len(),
        left.len()
    );
}

/// Runs `kenken args` (standard input `input`) until it has `n` busy descendants, kills it
/// with `signal`, and asserts that none of them is left.
fn killed_leaves_no_child(args: &[&str], input: &str, n: usize, signal: Signal) {
    let what = format!("kenken {} ({signal})", args.join(" "));
    let (mut kenken, mut reaper) = start(args, input);
    let started = busy_descendants(&kenken, n, &mut reaper, &what);
    kill(Pid::from_raw(kenken.id() as i32), signal).unwrap();
    await_end(&mut kenken, &what);
    none_left(&started, &what);
}

#[test]
fn a_query_killed_leaves_no_child() {
    // (SIGKILL: as a Python subprocess's timeout ends it)
    for args in [
        &["query", "--", "repeat, fail."][..],
        &["query", "--timeout", "600", "--", "repeat, fail."],
    ] {
        for signal in [Signal::SIGKILL, Signal::SIGTERM] {
            killed_leaves_no_child(args, "", 1, signal);
        }
    }
}

#[test]
fn a_bounded_query_that_times_out_leaves_no_child() {
    let what = "a query that timed out";
    let (mut kenken, mut reaper) = start(&["query", "--timeout", "3", "--", "repeat, fail."], "");
    let started = busy_descendants(&kenken, 1, &mut reaper, what);
    await_end(&mut kenken, what);
    assert_eq!(kenken.wait().unwrap().code(), Some(3), "{what}");
    none_left(&started, what);
}

#[test]
fn the_repl_killed_while_a_goal_runs_leaves_no_child() {
    for signal in [Signal::SIGKILL, Signal::SIGTERM] {
        killed_leaves_no_child(&["repl"], "repeat, fail.\n", 1, signal);
    }
}

#[test]
fn solve_killed_leaves_no_worker() {
    // plain enumeration of a 9x9 grid does not end; two jobs: two workers, and their spares
    // (started once the workers are ready)
    let hard = data("keen/keen-9du.jsonl");
    let hard = hard.to_str().unwrap();
    for signal in [Signal::SIGKILL, Signal::SIGTERM] {
        killed_leaves_no_child(
            &[
                "solve",
                "--engine",
                "plain",
                "--jobs",
                "2",
                "--timeout",
                "600",
                hard,
            ],
            "",
            4,
            signal,
        );
    }
}

/// A file whose predicates never answer.
const LOOPS: &str = "kenken(_, _, _) :- repeat, fail.\nplain_kenken(_, _, _) :- repeat, fail.\n";

#[test]
fn judge_killed_leaves_no_judged_engine() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("loops.pl");
    std::fs::write(&file, LOOPS).unwrap();
    let file = file.to_str().unwrap();
    let common = ["--suite", "spec", "--timeout", "600", "--jobs", "2"];
    let mut runs = vec![vec!["--prolog", "scryer"]];
    if gprolog() {
        runs.push(vec!["--prolog", "gprolog", "--dialect", "gnu"]);
    }
    for run in runs {
        let mut args = vec!["judge", file];
        args.extend(common);
        args.extend(run);
        killed_leaves_no_child(&args, "", 2, Signal::SIGKILL);
    }
}

#[test]
fn a_worker_whose_parent_is_gone_exits_at_once() {
    // the parent it was started by (KENKEN_PARENT) is not its parent: it was orphaned before
    // it could ask to die with its parent, and nobody waits for it (nor for a forged id)
    for parent in ["1", "0", "-1", "not a number", ""] {
        let out = Command::new(env!("CARGO_BIN_EXE_kenken"))
            .env("KENKEN_WORKER", "query")
            .env("KENKEN_PARENT", parent)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(96), "{parent:?}");
        assert!(out.stdout.is_empty(), "{parent:?}: {:?}", out.stdout);
    }
}

#[test]
fn a_program_the_exec_role_cannot_run_is_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_kenken"))
        .env("KENKEN_WORKER", "exec")
        .env("KENKEN_EXEC", "/nonexistent/kenken-test-program")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot run /nonexistent/kenken-test-program"),
        "{err}"
    );
}

#[test]
fn a_program_run_by_the_exec_role_gets_its_arguments_and_not_our_variables() {
    let out = Command::new(env!("CARGO_BIN_EXE_kenken"))
        .args([
            "-c",
            "echo \"$0 $1 [$KENKEN_WORKER$KENKEN_EXEC$KENKEN_PARENT]\"",
            "one",
        ])
        .env("KENKEN_WORKER", "exec")
        .env("KENKEN_EXEC", "/bin/sh")
        .env("KENKEN_PARENT", std::process::id().to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one  []\n");
}
