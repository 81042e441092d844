//! The engine interface: every engine gives the same report for the same request, the worker
//! engine's timeout really stops a solve, and a program that is no worker is told so.

use crate::common;

use std::time::{Duration, Instant};

use kenken::engine::{solve_all, Engine, EngineKind, Isolation, Request, Status, WorkerEngine};
use kenken::format;

use crate::use_the_kenken_binary;

pub(crate) fn spec_4x4() -> kenken::Puzzle {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-4x4.pl"))
            .unwrap();
    format::read_auto(&text).unwrap().remove(0)
}

/// The spec's six answers, in its order.
pub(crate) const SPEC_4X4: [[[u32; 4]; 4]; 6] = [
    [[1, 2, 3, 4], [3, 4, 2, 1], [4, 3, 1, 2], [2, 1, 4, 3]],
    [[1, 2, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [2, 1, 3, 4]],
    [[2, 1, 3, 4], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 4, 3]],
    [[2, 1, 4, 3], [3, 4, 2, 1], [4, 3, 1, 2], [1, 2, 3, 4]],
    [[3, 1, 2, 4], [2, 4, 3, 1], [4, 3, 1, 2], [1, 2, 4, 3]],
    [[3, 2, 4, 1], [1, 4, 2, 3], [4, 3, 1, 2], [2, 1, 3, 4]],
];

#[test]
fn every_engine_reports_the_spec_answers_in_the_spec_order() {
    let _program = use_the_kenken_binary();
    let p = spec_4x4();
    let expected: Vec<Vec<Vec<u32>>> = SPEC_4X4
        .iter()
        .map(|g| g.iter().map(|r| r.to_vec()).collect())
        .collect();
    for kind in EngineKind::BUILT_IN {
        for isolation in [Isolation::InProcess, Isolation::Worker] {
            let mut engine = kind.open(isolation).unwrap();
            assert_eq!(engine.kind(), kind);
            let all = engine.solve(&p, &Request::all());
            assert_eq!(all.solutions, expected, "{kind} {isolation:?}");
            assert_eq!(
                (all.status, all.count, all.complete),
                (Status::Solved, 6, true),
                "{kind} {isolation:?}"
            );
            let two = engine.solve(&p, &Request::unique());
            assert_eq!(
                (two.status, two.count, two.complete),
                (Status::Solved, 2, false)
            );
            let counted = engine.solve(&p, &Request::all().counting());
            assert_eq!((counted.count, counted.solutions.len()), (6, 0));
            match kind {
                EngineKind::Native => assert!(all.stats.nodes.unwrap() >= 1),
                _ => assert!(all.stats.inferences.unwrap() > 1000, "{:?}", all.stats),
            }
        }
    }
}

#[test]
fn unique_no_solution_and_invalid_puzzles() {
    let _program = use_the_kenken_binary();
    let unique = format::read_auto("2, [+(3, [[1|1], [1|2]]), =(1, [[1|1]])]");
    // Cell [1|1] in two cages: invalid for every engine, reported, not panicked on.
    let invalid = unique.unwrap().remove(0);
    let none = format::read_auto("2, [+(4, [[1|1], [1|2]]), +(3, [[2|1], [2|2]])]")
        .unwrap()
        .remove(0);
    let one = format::read_auto("2, [+(3, [[1|1], [1|2]]), =(2, [[2|1]]), =(1, [[2|2]])]")
        .unwrap()
        .remove(0);
    for kind in EngineKind::BUILT_IN {
        let mut engine = kind.open(Isolation::Worker).unwrap();
        let r = engine.solve(&one, &Request::unique());
        assert_eq!((r.status, r.count), (Status::Unique, 1), "{kind}");
        assert_eq!(r.solutions, vec![vec![vec![1, 2], vec![2, 1]]]);
        let r = engine.solve(&none, &Request::unique());
        assert_eq!(
            (r.status, r.count, r.complete),
            (Status::NoSolution, 0, true)
        );
        let r = engine.solve(&invalid, &Request::unique());
        assert_eq!(r.status, Status::Error, "{kind}");
        let message = r.error.unwrap().to_string();
        assert!(message.contains("in two cages"), "{kind}: {message}");
    }
}

#[test]
fn the_worker_timeout_stops_a_long_solve_and_the_next_solve_works() {
    let _program = use_the_kenken_binary();
    let hard = &common::file("keen/keen-9du.jsonl")[1].puzzle;
    let mut engine = EngineKind::Plain.open(Isolation::Worker).unwrap();
    let start = Instant::now();
    let r = engine.solve(
        hard,
        &Request::all().with_timeout(Duration::from_millis(300)),
    );
    assert_eq!((r.status, r.complete), (Status::Timeout, false));
    // Killed at the deadline, not when plain enumeration would have finished.
    assert!(start.elapsed() < Duration::from_secs(20));
    let after = engine.solve(&spec_4x4(), &Request::all());
    assert_eq!((after.status, after.count), (Status::Solved, 6));
}

#[test]
fn the_inference_bound_is_reported_as_a_limit() {
    let hard = &common::file("keen/keen-9du.jsonl")[1].puzzle;
    let mut engine = EngineKind::Plain.open(Isolation::InProcess).unwrap();
    let r = engine.solve(hard, &Request::all().with_inferences(Some(10_000)));
    assert_eq!((r.status, r.complete), (Status::Limit, false));
    assert_eq!(r.status.exit_code(), 3);
}

#[test]
fn a_pool_of_workers_answers_in_the_puzzles_order() {
    let _program = use_the_kenken_binary();
    let entries = common::file("keen/keen-4dx.jsonl");
    let puzzles: Vec<kenken::Puzzle> = entries.iter().map(|e| e.puzzle.clone()).collect();
    let reports: Vec<_> = solve_all(
        EngineKind::Fd,
        Isolation::Worker,
        puzzles.clone(),
        Request::unique(),
        2,
    )
    .collect();
    assert_eq!(reports.len(), puzzles.len());
    for ((r, e), p) in reports.iter().zip(&entries).zip(&puzzles) {
        assert_eq!(r.status, Status::Unique);
        assert_eq!(Some(&r.solutions[0]), e.expected.solution.as_ref());
        assert!(p.is_solution(&r.solutions[0]));
    }
}

#[test]
fn a_program_that_is_no_worker_is_named_in_the_error() {
    let _program = use_the_kenken_binary();
    // `true` exits at once without becoming a worker.
    kenken::worker::set_program("true".into());
    // the worker starts when the engine is opened: opening it fails, saying why
    let opened = EngineKind::Fd.open(Isolation::Worker);
    kenken::worker::set_program(env!("CARGO_BIN_EXE_kenken").into());
    let message = opened.expect_err("opened").to_string();
    assert!(
        message.contains("did not start as a kenken worker")
            && message.contains("kenken::worker::init()"),
        "{message}"
    );
}

/// The deadline contract, for every engine and isolation: a request's timeout bounds the whole
/// call, and the report keeps every solution found before it, in order, with statistics.
#[test]
fn a_deadline_keeps_the_solutions_found_before_it() {
    let _program = use_the_kenken_binary();
    // kenken(6, [], T): 812,851,200 solutions, far more than any deadline here finds
    let empty = format::read_auto("kenken(6, [], T).").unwrap().remove(0);
    for kind in EngineKind::BUILT_IN {
        // native finds thousands in a few milliseconds; a loaded machine's Prolog worker may
        // need over a second for its first 6x6 answer
        let deadline = match kind {
            EngineKind::Native => Duration::from_millis(500),
            _ => Duration::from_secs(3),
        };
        for isolation in [Isolation::InProcess, Isolation::Worker] {
            let mut engine = kind.open(isolation).unwrap();
            let start = Instant::now();
            let r = engine.solve(&empty, &Request::all().with_timeout(deadline));
            let took = start.elapsed();
            if kind != EngineKind::Native && isolation == Isolation::InProcess {
                // nothing stops Scryer by the clock in this process: refused, and said why
                assert_eq!(r.status, Status::Error, "{kind}");
                let why = r.error.unwrap().to_string();
                assert!(why.contains("Isolation::Worker"), "{kind}: {why}");
                continue;
            }
            let what = format!("{kind} {isolation:?}");
            assert_eq!((r.status, r.complete), (Status::Timeout, false), "{what}");
            assert!(r.count > 0, "{what}: nothing kept");
            assert_eq!(r.count as usize, r.solutions.len(), "{what}");
            assert!(r.solutions.iter().all(|g| empty.is_solution(g)), "{what}");
            let distinct: std::collections::BTreeSet<_> = r.solutions.iter().collect();
            assert_eq!(distinct.len(), r.solutions.len(), "{what}");
            if kind != EngineKind::Native {
                // exactly the first solutions in the predicate's order (row by row,
                // lexicographic), as an enumeration that shares no code with the engines has them
                let first = common::oracle::solutions(&empty, r.solutions.len());
                assert!(
                    r.solutions == first,
                    "{what}: not the first {}",
                    first.len()
                );
                assert!(r.stats.inferences.unwrap_or(0) > 0, "{what}: {:?}", r.stats);
            } else {
                assert!(r.stats.nodes.unwrap_or(0) > 0, "{what}: {:?}", r.stats);
            }
            // the report's time is the call's; the call ends at the deadline, not later
            assert!(
                r.elapsed >= deadline && r.elapsed <= took,
                "{what}: {:?}",
                r.elapsed
            );
            assert!(took < deadline + Duration::from_secs(5), "{what}: {took:?}");
            // counting only: the count is kept, the grids are not (a worker killed at the
            // deadline is being replaced: its start counts in this call's time)
            let longer = Request::all().counting().with_timeout(deadline * 2);
            let c = engine.solve(&empty, &longer);
            assert_eq!(c.status, Status::Timeout, "{what}");
            assert!(c.count > 0 && c.solutions.is_empty(), "{what}");
        }
    }
}

/// A deadline shorter than a worker's start still bounds the call: the worker that was killed
/// is replaced at once, and the next request is answered in full.
#[test]
fn a_deadline_right_after_a_kill_counts_the_restart() {
    let _program = use_the_kenken_binary();
    let empty = format::read_auto("kenken(5, [], T).").unwrap().remove(0);
    let mut engine = EngineKind::Fd.open(Isolation::Worker).unwrap();
    let r = engine.solve(
        &empty,
        &Request::all().with_timeout(Duration::from_millis(300)),
    );
    assert_eq!(r.status, Status::Timeout);
    // the killed worker's successor is starting: a tiny deadline now ends with the start
    let start = Instant::now();
    let r = engine.solve(&spec_4x4(), &Request::all().with_timeout(Duration::ZERO));
    assert_eq!((r.status, r.count), (Status::Timeout, 0));
    assert!(start.elapsed() < Duration::from_secs(5));
    let r = engine.solve(&spec_4x4(), &Request::all());
    assert_eq!((r.status, r.count), (Status::Solved, 6));
}

/// The process ids of this process's children now.
fn children() -> Vec<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // (the fields after the command's closing parenthesis: state, then the parent)
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            (ppid == me).then_some(pid)
        })
        .collect()
}

/// A worker engine keeps a warm spare: the call after a timeout is answered by a worker that
/// was already running before it (no start to wait for); without the spare, by a fresh one.
#[test]
fn the_call_after_a_timeout_is_answered_by_the_warm_spare() {
    let _program = use_the_kenken_binary();
    let hard = &common::file("keen/keen-9du.jsonl")[1].puzzle;
    for keep in [true, false] {
        let mut engine = WorkerEngine::new(EngineKind::Plain).unwrap().spare(keep);
        engine.settle();
        let running = engine.pid();
        let before = children();
        let r = engine.solve(
            hard,
            &Request::all().with_timeout(Duration::from_millis(300)),
        );
        assert_eq!(r.status, Status::Timeout);
        let after = engine.solve(&spec_4x4(), &Request::all());
        assert_eq!((after.status, after.count), (Status::Solved, 6));
        let now = engine.pid();
        assert_ne!(now, running, "the worker that timed out was not replaced");
        assert_eq!(
            before.contains(&now.unwrap()),
            keep,
            "keep a spare: {keep}; children before the timeout: {before:?}, now {now:?}"
        );
    }
}

/// A spare is never trusted for being started early: a worker that writes the protocol itself
/// while it waits (frames of the next request's id, with a guessed nonce, claiming a solution)
/// is refused when it takes over, as the first one was, and nothing it wrote is a solution.
#[test]
fn a_spare_that_forges_replies_while_it_waits_is_refused() {
    let _program = use_the_kenken_binary();
    let dir = std::env::temp_dir().join(format!("kenken-forger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let forger = dir.join("forger.sh");
    let nonce = "0123456789abcdef0123456789abcdef";
    let mut script = String::from("#!/bin/sh\necho kenken-worker-ready\n");
    for id in [1, 2] {
        script.push_str(&format!(
            "echo 'kenken-frame {id} {nonce} part {{\"grid\":[[1]],\"inferences\":null}}'\n\
             echo 'kenken-frame {id} {nonce} done {{\"complete\":true,\"inference_limit\":false,\
             \"inferences\":null,\"error\":null}}'\n"
        ));
    }
    script.push_str("exec sleep 600\n");
    std::fs::write(&forger, script).unwrap();
    std::fs::set_permissions(&forger, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    kenken::worker::set_program(forger.clone());
    let one = format::read_auto("kenken(1, [], T).").unwrap().remove(0);
    let request = Request::all().with_timeout(Duration::from_secs(20));
    let mut engine = WorkerEngine::new(EngineKind::Fd).unwrap();
    engine.settle();
    // (the first request goes to the first worker, the second to the spare that takes over
    // when the first is killed for its forged frame)
    let first = engine.solve(&one, &request);
    let second = engine.solve(&one, &request);
    kenken::worker::set_program(env!("CARGO_BIN_EXE_kenken").into());
    let _ = std::fs::remove_dir_all(&dir);
    for r in [&first, &second] {
        assert_eq!((r.status, r.count), (Status::Error, 0), "{r:?}");
        let message = r.error.as_ref().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("cannot be trusted"), "{message}");
    }
}

/// Deadlines shorter than a worker's start, one call after another, after a kill: the
/// starting worker is not killed with each call, so some call soon finds it ready and is
/// answered (regression: each call killed the worker it waited for, and no call after the
/// first timeout was ever answered).
#[test]
fn deadlines_shorter_than_a_start_do_not_starve_the_calls_after_a_kill() {
    let _program = use_the_kenken_binary();
    let empty = format::read_auto("kenken(6, [], T).").unwrap().remove(0);
    let one = format::read_auto("kenken(1, [], T).").unwrap().remove(0);
    let mut engine = EngineKind::Fd.open(Isolation::Worker).unwrap();
    let short = Request::all().with_timeout(Duration::from_millis(20));
    let r = engine.solve(&empty, &short);
    assert_eq!(r.status, Status::Timeout);
    let start = Instant::now();
    let answered = (0..500).find(|_| engine.solve(&one, &short).complete);
    assert!(
        answered.is_some(),
        "no call answered in {:?}",
        start.elapsed()
    );
    assert!(answered.unwrap() > 0, "the first call waited for a start");
}

#[test]
fn every_engine_can_be_sent_to_another_thread() {
    let _program = use_the_kenken_binary();
    for kind in EngineKind::BUILT_IN {
        for isolation in [Isolation::InProcess, Isolation::Worker] {
            let mut engine = kind.open(isolation).unwrap();
            let r = std::thread::spawn(move || engine.solve(&spec_4x4(), &Request::unique()))
                .join()
                .unwrap();
            assert_eq!(
                (r.status, r.count),
                (Status::Solved, 2),
                "{kind} {isolation:?}"
            );
        }
    }
}
