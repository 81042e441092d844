//! Every child process dies with its parent, however the parent ends (#45): a program that
//! runs busy workers (a query worker and a worker engine, each with its warm spare, some
//! started from threads that have ended) and then returns, panics, aborts, or is killed
//! (`SIGKILL`, `SIGTERM`) leaves no process behind. The parent is this test program, run
//! again in a child process ([`parent_side`]).
//!
//! And the other way round: a worker started from a thread that then ends lives on, as long as
//! its parent does.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kenken::engine::{Engine, EngineKind, Request, Status, WorkerEngine};
use kenken::prolog::{Query, QueryWorker};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::common::procs::{self, Proc, Reaper, END_WITHIN};
use crate::use_the_kenken_binary;

/// The environment variable that makes [`parent_side`] the parent, and says how it ends.
const WAY: &str = "KENKEN_TEST_LIFECYCLE_WAY";
/// What the parent prints once its workers run.
const READY: &str = "LIFECYCLE-READY";

/// The parent's side (a test that does nothing unless [`WAY`] is set): starts its workers,
/// says so, waits for a line on standard input, and ends the way [`WAY`] names.
#[test]
fn parent_side() {
    let Ok(way) = std::env::var(WAY) else {
        return;
    };
    let _program = use_the_kenken_binary();
    // a query worker (and its spare) started from a thread that ended
    let mut queries = std::thread::spawn(|| QueryWorker::new().unwrap())
        .join()
        .unwrap();
    // a worker engine (and its spare) started from another thread that ended
    let engine = std::thread::spawn(|| {
        let mut e = WorkerEngine::new(EngineKind::Plain).unwrap().spare(true);
        e.settle();
        e
    })
    .join()
    .unwrap();
    // the query worker busy, in a thread that never ends
    std::thread::spawn(move || {
        let _ = queries
            .query(&Query::new("repeat, fail"))
            .map(|a| a.collect_all());
    });
    // the engine busy (plain enumeration of a 9x9 grid does not end), in another
    std::thread::spawn(move || {
        let mut engine = engine;
        let hard = crate::common::file("keen/keen-9du.jsonl")[1].puzzle.clone();
        let _ = engine.solve(&hard, &Request::all());
    });
    println!("{READY}");
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    match way.as_str() {
        // (the harness then ends the process, its threads still busy: no destructor runs)
        "return" => {}
        "exit" => std::process::exit(0),
        "panic" => panic!("the parent panics, as asked"),
        "abort" => std::process::abort(),
        // (killed from outside: the line never comes)
        _ => std::thread::sleep(Duration::from_secs(600)),
    }
}

/// Runs [`parent_side`] in a child process that ends `way` (`return`, `exit`, `panic`,
/// `abort`, or `SIGKILL`/`SIGTERM` from this process) once its workers run: the processes it
/// started, and those of them left running after it ended.
fn end_the_parent(way: &str) -> (Vec<Proc>, Vec<Proc>) {
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "lifecycle::parent_side", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(WAY, way)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = parent.id() as i32;
    let mut reaper = Reaper::default();
    reaper.hold(&[Proc::of(pid).unwrap()]);
    // (the parent's output is read in a thread: each wait here is bounded)
    let out = parent.stdout.take().unwrap();
    let (tx, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if line.contains(READY) {
                let _ = tx.send(());
            }
        }
    });
    let said = ready.recv_timeout(Duration::from_secs(180));
    // its workers: the query worker, the engine, and a spare of each
    let started = procs::await_descendants(pid, 4, Duration::from_secs(60), |_| true);
    reaper.hold(&started);
    assert!(said.is_ok(), "{way}: the parent did not start its workers");
    assert!(started.len() >= 4, "{way}: {started:?}");
    // (the busy ones at work)
    std::thread::sleep(Duration::from_millis(500));
    match way {
        "SIGKILL" => kill(Pid::from_raw(pid), Signal::SIGKILL).unwrap(),
        "SIGTERM" => kill(Pid::from_raw(pid), Signal::SIGTERM).unwrap(),
        _ => {
            let mut stdin = parent.stdin.take().unwrap();
            stdin.write_all(b"go\n").unwrap();
        }
    }
    let deadline = Instant::now() + END_WITHIN;
    while parent.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        parent.try_wait().unwrap().is_some(),
        "{way}: the parent did not end"
    );
    let left = procs::await_gone(&started, END_WITHIN);
    (started, left)
}

/// Asserts that no process `way` of ending left behind.
fn leaves_no_child(way: &str) {
    let (started, left) = end_the_parent(way);
    let left: Vec<String> = left
        .iter()
        .map(|p| format!("{} {}", p.pid, p.cmdline()))
        .collect();
    assert!(
        left.is_empty(),
        "{way}: of {} children, {} outlived their parent: {left:?}",
        started.len(),
        left.len()
    );
}

#[test]
fn no_child_outlives_a_parent_that_returns() {
    leaves_no_child("return");
}

#[test]
fn no_child_outlives_a_parent_that_exits() {
    leaves_no_child("exit");
}

#[test]
fn no_child_outlives_a_parent_that_panics() {
    leaves_no_child("panic");
}

#[test]
fn no_child_outlives_a_parent_that_aborts() {
    leaves_no_child("abort");
}

#[test]
fn no_child_outlives_a_parent_killed_by_sigkill() {
    leaves_no_child("SIGKILL");
}

#[test]
fn no_child_outlives_a_parent_killed_by_sigterm() {
    leaves_no_child("SIGTERM");
}

/// The parent-death signal fires when the *thread* that started a child ends: a worker
/// started from a thread that ended must live on while its parent does.
#[test]
fn a_worker_started_from_a_thread_that_ended_lives_on() {
    let _program = use_the_kenken_binary();
    let mut engine = std::thread::spawn(|| {
        let mut e = WorkerEngine::new(EngineKind::Plain).unwrap().spare(true);
        e.settle();
        e
    })
    .join()
    .unwrap();
    let mut queries = std::thread::spawn(|| QueryWorker::new().unwrap())
        .join()
        .unwrap();
    let before = (engine.pid(), queries.pid());
    let started: Vec<Proc> = [before.0, before.1]
        .into_iter()
        .flatten()
        .filter_map(|pid| Proc::of(pid as i32))
        .collect();
    let _reaper = Reaper(started.clone());
    assert_eq!(started.len(), 2, "{before:?}");
    // (a parent-death signal would have come at once)
    std::thread::sleep(Duration::from_millis(500));
    let died: Vec<&Proc> = started.iter().filter(|p| !p.alive()).collect();
    assert!(died.is_empty(), "children that died: {died:?}");
    let spec = kenken::format::read_auto(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-4x4.pl"))
            .unwrap(),
    )
    .unwrap()
    .remove(0);
    let r = engine.solve(&spec, &Request::all());
    assert_eq!((r.status, r.count), (Status::Solved, 6));
    let (answers, _) = queries
        .query(&Query::new("X = 1"))
        .unwrap()
        .collect_all()
        .unwrap();
    assert_eq!(answers.len(), 1);
    assert_eq!(
        (engine.pid(), queries.pid()),
        before,
        "a worker was started again"
    );
}

/// A worker dropped while it runs a query is killed with its spare.
#[test]
fn a_dropped_worker_leaves_no_child() {
    let _program = use_the_kenken_binary();
    let me = std::process::id() as i32;
    let before = procs::children(me);
    let mut queries = QueryWorker::new().unwrap();
    // (its spare starts once the running one is ready; other tests may start children too:
    // those of this test are the kenken processes that were not there before)
    let ours = |found: &[Proc]| -> Vec<Proc> {
        found
            .iter()
            .filter(|p| !before.contains(p) && p.exe() == env!("CARGO_BIN_EXE_kenken"))
            .copied()
            .collect()
    };
    let found = procs::await_descendants(me, 0, Duration::from_secs(60), |f| ours(f).len() >= 2);
    let started = ours(&found);
    let _reaper = Reaper(started.clone());
    assert!(started.len() >= 2, "{started:?}");
    let answers = queries
        .query(&Query::new("repeat, fail").timeout(Duration::from_millis(300)))
        .unwrap();
    drop(answers);
    drop(queries);
    let left = procs::await_gone(&started, END_WITHIN);
    assert!(left.is_empty(), "{left:?} of {started:?}");
}
