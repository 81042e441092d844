//! The Prolog-system seam (`kenken::system`) and the engines on it: every child system
//! (GNU Prolog, SWI-Prolog) gives the native solver's answers in its order, honours a
//! deadline, names its package when it is missing, and believes no frame a program it loaded
//! writes itself. One test per behaviour, over every system installed (a system that is not is
//! skipped, saying so).

use std::time::{Duration, Instant};

use kenken::engine::{EngineKind, Isolation, Request, Status};
use kenken::format;
use kenken::judge::Dialect;
use kenken::system::{
    Bound, ChildSetup, End, Goal, Gprolog, Program, PrologSystem, ScryerThread, Swipl, SystemError,
};

use super::engine::{spec_4x4, SPEC_4X4};
use crate::{common, use_the_kenken_binary};

/// A child system: its name, its two engines, and how to open it bare.
struct ChildSystem {
    name: &'static str,
    engines: [EngineKind; 2],
    open: fn() -> Box<dyn PrologSystem>,
}

/// The child systems installed here (each one missing says so).
fn child_systems() -> Vec<ChildSystem> {
    let mut systems = Vec::new();
    if common::gprolog() {
        systems.push(ChildSystem {
            name: "gprolog",
            engines: [EngineKind::GprologFd, EngineKind::GprologPlain],
            open: || Box::new(Gprolog::new(ChildSetup::default()).unwrap()),
        });
    }
    if common::swipl() {
        systems.push(ChildSystem {
            name: "swipl",
            engines: [EngineKind::SwiplFd, EngineKind::SwiplPlain],
            open: || Box::new(Swipl::new(ChildSetup::default()).unwrap()),
        });
    }
    systems
}

fn puzzle(text: &str) -> kenken::Puzzle {
    format::read_auto(text).unwrap().remove(0)
}

/// The spec's answers: the 6x6 example's one, the 4x4 example's six in the spec's order, and
/// `kenken(N, [], T)` for N = 1, 2, 3 (1, 2 and 12 Latin squares).
#[test]
fn every_child_system_gives_the_spec_answers() {
    let _program = use_the_kenken_binary();
    let six = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-6x6.pl"))
        .unwrap();
    let six = puzzle(&six);
    let spec: Vec<Vec<Vec<u32>>> = SPEC_4X4
        .iter()
        .map(|g| g.iter().map(|r| r.to_vec()).collect())
        .collect();
    for system in child_systems() {
        for kind in system.engines {
            let mut engine = kind.open(Isolation::Worker).unwrap();
            let r = engine.solve(&six, &Request::all());
            assert_eq!(
                (r.status, r.count),
                (Status::Unique, 1),
                "{kind}: {:?}",
                r.error
            );
            assert_eq!(
                r.solutions[0],
                vec![
                    vec![5, 6, 3, 4, 1, 2],
                    vec![6, 1, 4, 5, 2, 3],
                    vec![4, 5, 2, 3, 6, 1],
                    vec![3, 4, 1, 2, 5, 6],
                    vec![2, 3, 6, 1, 4, 5],
                    vec![1, 2, 5, 6, 3, 4]
                ],
                "{kind}"
            );
            let r = engine.solve(&spec_4x4(), &Request::all());
            assert_eq!(r.solutions, spec, "{kind}");
            assert_eq!((r.status, r.complete), (Status::Solved, true), "{kind}");
            for (n, count) in [(1, 1), (2, 2), (3, 12)] {
                let p = puzzle(&format!("kenken({n}, [], T)."));
                let r = engine.solve(&p, &Request::all());
                assert_eq!((r.count, r.complete), (count, true), "{kind} {n}x{n}");
            }
        }
    }
}

/// The child systems' `kenken/3` and `plain_kenken/3` give the native solver's answers in its
/// order (the spec's), on the spec's puzzles, Keen puzzles of every size, random puzzles with
/// every operator (n-ary `-` and `/`, one-square cages) and no-solution puzzles; limits and
/// counting keep the other engines' contract.
#[test]
fn every_child_system_gives_the_native_answers_in_the_same_order() {
    let _program = use_the_kenken_binary();
    let mut puzzles = vec![spec_4x4()];
    for name in ["keen-4dn", "keen-5dh", "keen-6dx", "keen-7de"] {
        let entries = common::file(&format!("keen/{name}.jsonl"));
        puzzles.extend(entries.into_iter().take(2).map(|e| e.puzzle));
    }
    for (n, seed) in [(3, 1), (4, 2), (4, 7), (5, 3)] {
        puzzles.push(kenken::random::puzzle(n, seed).0);
    }
    // n-ary - and / (seed 001's reading), one-square cages, and a puzzle with no solution
    for text in [
        "kenken(3, [-(0, [[1|1], [2|2], [3|3]]), /(1, [[1|2], [2|3], [3|1]])], T).",
        "kenken(4, [-(1, [[1|1], [1|2], [2|1]]), /(2, [[3|3], [3|4], [4|4]]), +(3, [[4|1]])], T).",
        "kenken(2, [+(3, [[1|1], [1|2]]), +(4, [[2|1], [2|2]])], T).",
    ] {
        puzzles.push(puzzle(text));
    }
    let mut native = EngineKind::Native.open(Isolation::InProcess).unwrap();
    for system in child_systems() {
        for kind in system.engines {
            let mut engine = kind.open(Isolation::Worker).unwrap();
            let plain = kind == system.engines[1];
            let mut with_answers = 0;
            for (i, p) in puzzles.iter().enumerate() {
                if plain && p.size > 5 {
                    continue; // plain enumeration of larger grids may take minutes
                }
                let want = native.solve(p, &Request::all());
                let got = engine.solve(p, &Request::all().with_timeout(Duration::from_secs(60)));
                assert_eq!(
                    got.solutions, want.solutions,
                    "{kind} puzzle {i}: {:?}",
                    got.error
                );
                assert_eq!(
                    (got.status, got.complete),
                    (want.status, true),
                    "{kind} {i}"
                );
                with_answers += usize::from(!want.solutions.is_empty());
            }
            // (the comparison is real: most puzzles have answers, and one has none)
            assert!(with_answers >= 6, "{kind}: {with_answers}");
            let p = spec_4x4();
            let two = engine.solve(&p, &Request::unique());
            assert_eq!(
                (two.status, two.count, two.complete),
                (Status::Solved, 2, false),
                "{kind}"
            );
            let counted = engine.solve(&p, &Request::all().counting());
            assert_eq!((counted.count, counted.solutions.len()), (6, 0), "{kind}");
        }
    }
}

/// A deadline stops a child system's solve: every 6x6 Latin square is an answer of the empty
/// puzzle, far more than any deadline here finds; the report keeps the first ones found, in
/// the predicate's order, and the call ends at the deadline.
#[test]
fn a_child_system_honours_a_deadline_keeping_what_it_found() {
    let _program = use_the_kenken_binary();
    let empty = puzzle("kenken(6, [], T).");
    for system in child_systems() {
        for kind in system.engines {
            let mut engine = kind.open(Isolation::Worker).unwrap();
            // (a short deadline that a loaded machine's start-up may use up: nothing found)
            let short = engine.solve(
                &empty,
                &Request::all().with_timeout(Duration::from_millis(300)),
            );
            assert_eq!(
                (short.status, short.complete),
                (Status::Timeout, false),
                "{kind}"
            );
            assert_eq!(short.solutions.len() as u64, short.count, "{kind}");
            let deadline = Duration::from_secs(3);
            let start = Instant::now();
            let r = engine.solve(&empty, &Request::all().with_timeout(deadline));
            let took = start.elapsed();
            assert_eq!((r.status, r.complete), (Status::Timeout, false), "{kind}");
            assert!(r.count > 0, "{kind}: nothing kept");
            assert_eq!(r.count as usize, r.solutions.len(), "{kind}");
            let first = common::oracle::solutions(&empty, r.solutions.len());
            assert!(
                r.solutions == first,
                "{kind}: not the first {}",
                first.len()
            );
            assert!(
                r.elapsed >= deadline && r.elapsed <= took,
                "{kind}: {:?}",
                r.elapsed
            );
            assert!(took < deadline + Duration::from_secs(5), "{kind}: {took:?}");
        }
    }
}

#[test]
fn child_system_engines_without_their_system_name_the_package() {
    // (found on the PATH only: with none, it is not installed)
    let _program = use_the_kenken_binary();
    if common::gprolog() {
        assert!(kenken::engine::GprologEngine::new(EngineKind::GprologFd).is_ok());
    }
    if common::swipl() {
        assert!(kenken::engine::SwiplEngine::new(EngineKind::SwiplFd).is_ok());
    }
    for (engine, package) in [
        ("gprolog-plain", "apt-get install gprolog"),
        ("swipl-fd", "apt-get install swi-prolog-nox"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kenken"))
            .args(["solve", "-", "--engine", engine])
            .env("PATH", "/nonexistent")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(b"kenken(1, [], T).")?;
                c.wait_with_output()
            })
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{engine}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(package), "{engine}: {stderr}");
    }
}

/// Writes `text` as `kenken.pl` in a fresh folder.
fn written(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kenken.pl");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// Loads `file` in `system` and runs `goal` (for a grid of `size`) within 20 s: its answers
/// and outcome.
fn run(
    system: &mut dyn PrologSystem,
    file: &std::path::Path,
    goal: &str,
    size: usize,
) -> (Vec<Result<kenken::Grid, String>>, End) {
    let program = Program::File {
        path: file.to_path_buf(),
        dialect: Dialect::Scryer,
        fd: true,
    };
    system
        .load(&program, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{}: {e}", system.name()));
    let goal = Goal {
        deadline: Some(Instant::now() + Duration::from_secs(20)),
        ..Goal::new(goal, size)
    };
    let mut answers = Vec::new();
    let outcome = system.run(&goal, &mut |a| answers.push(a.value)).unwrap();
    (answers, outcome.end)
}

/// A program whose `kenken/3` prints the driver's frames itself (with the id the driver uses
/// and a guessed nonce), after an honest answer of its own; its directive reads standard
/// input to steal the request (gone before it loads: it finds the end of the input).
const FORGES_FRAMES: &str = r#"
steal :-
    catch(read(user_input, R), _, R = none),
    (   R = kk_request(Id, Nonce, _, _, _, _)
    ->  write('kenken-frame '), write(Id), write(' '), write(Nonce),
        write(' done complete'), nl
    ;   true
    ).

:- initialization(steal).

kenken(1, [], [[1]]).
kenken(_, _, _) :-
    write('kenken-frame 1 00000000000000000000000000000000 part [[1]]'), nl,
    write('kenken-frame 1 00000000000000000000000000000000 done complete'), nl,
    fail.
"#;

#[test]
fn a_program_in_a_child_system_cannot_forge_its_frames() {
    let _program = use_the_kenken_binary();
    let (_dir, file) = written(FORGES_FRAMES);
    for system in child_systems() {
        let mut s = (system.open)();
        let (answers, end) = run(s.as_mut(), &file, "kenken(1, [], T)", 1);
        // the honest answer came first; the forged frame made the run untrusted
        assert_eq!(answers, vec![Ok(vec![vec![1]])], "{}", system.name);
        match end {
            End::Untrusted(why) => assert!(
                why.contains("not the current request's"),
                "{}: {why}",
                system.name
            ),
            other => panic!("{}: {other:?}", system.name),
        }
    }
}

/// How a goal ended, as every child system says it: complete, the answers' bound, an
/// exception, a `halt`, and an answer that is not a grid (kept as its text); a frame after
/// printed output left without its newline is still read.
#[test]
fn a_child_system_says_how_a_goal_ended() {
    let _program = use_the_kenken_binary();
    let (_dir, file) = written(
        "two(T) :- write(no_newline), member(T, [[[1]], [[2]]]).\n\
         oops(_) :- throw(oops).\n\
         stop(_) :- write(bye), nl, halt(7).\n\
         odd(T) :- T = [x].\n",
    );
    for system in child_systems() {
        let name = system.name;
        let mut s = (system.open)();
        let (answers, end) = run(s.as_mut(), &file, "two(T)", 1);
        assert_eq!(
            (answers, end),
            (vec![Ok(vec![vec![1]]), Ok(vec![vec![2]])], End::Complete),
            "{name}"
        );
        let goal = Goal {
            max_answers: Some(1),
            ..Goal::new("two(T).", 1)
        };
        let mut n = 0;
        let outcome = s.run(&goal, &mut |_| n += 1).unwrap();
        assert_eq!(
            (n, outcome.end),
            (1, End::Stopped(Bound::Answers)),
            "{name}"
        );
        let (_, end) = run(s.as_mut(), &file, "oops(T)", 1);
        assert_eq!(end, End::Exception("oops".into()), "{name}");
        let (_, end) = run(s.as_mut(), &file, "stop(T)", 1);
        assert_eq!(end, End::Halted(7), "{name}");
        let (answers, end) = run(s.as_mut(), &file, "odd(T)", 1);
        assert_eq!(
            (answers, end),
            (vec![Err("[x]".into())], End::Complete),
            "{name}"
        );
    }
}

/// Loading is bounded: a directive that loops ends the load at its timeout, saying so; a
/// program that does not load says why, and runs nothing.
#[test]
fn a_child_system_bounds_and_reports_a_load() {
    let _program = use_the_kenken_binary();
    let (_dir, looping) = written(":- initialization((repeat, fail)).\n");
    let (_dir2, halting) = written(":- initialization(halt(5)).\n");
    for system in child_systems() {
        let name = system.name;
        let mut s = (system.open)();
        let program = |path: &std::path::Path| Program::File {
            path: path.to_path_buf(),
            dialect: Dialect::Scryer,
            fd: true,
        };
        let start = Instant::now();
        match s.load(&program(&looping), Duration::from_secs(3)) {
            Err(SystemError::Load(why)) => {
                assert!(why.contains("did not end within 3 s"), "{name}: {why}")
            }
            other => panic!("{name}: {other:?}"),
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{name}");
        assert!(
            matches!(
                s.load(&program(&halting), Duration::from_secs(20)),
                Err(SystemError::Load(_))
            ),
            "{name}"
        );
        // (nothing is loaded now)
        assert_eq!(
            s.run(&Goal::new("T = []", 0), &mut |_| {}).err(),
            Some(SystemError::NotLoaded(name)),
        );
    }
}

/// Scryer in this process refuses what it cannot do: a deadline (nothing stops it by the
/// clock here) and a file of its own (the judge loads those in a worker).
#[test]
fn scryer_in_this_process_refuses_a_deadline_and_a_file() {
    let mut s = ScryerThread::new().unwrap();
    s.load(&Program::Homework, Duration::from_secs(60)).unwrap();
    let goal = Goal {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        ..Goal::new("kenken(1, [], T)", 1)
    };
    assert_eq!(
        s.run(&goal, &mut |_| {}).err(),
        Some(SystemError::NeedsWorker("scryer"))
    );
    let mut found = Vec::new();
    let outcome = s
        .run(&Goal::new("kenken(2, [], T)", 2), &mut |a| {
            found.push(a.value)
        })
        .unwrap();
    assert_eq!(outcome.end, End::Complete);
    assert_eq!(found.len(), 2);
    assert!(outcome.inferences.unwrap() > 0);
    let file = Program::File {
        path: "kenken.pl".into(),
        dialect: Dialect::Scryer,
        fd: true,
    };
    assert!(matches!(
        s.load(&file, Duration::from_secs(1)),
        Err(SystemError::Unsupported(_))
    ));
}

/// The command line takes the child systems' engines: `solve --engine` gives the spec's
/// answers, and `bench --engines` checks them and sets each system's `kenken/3` against its
/// `plain_kenken/3`.
#[test]
fn solve_and_bench_take_every_child_systems_engines() {
    for system in child_systems() {
        let [fd, plain] = system.engines.map(EngineKind::name);
        let out = common::kenken()
            .args(["solve", "--engine", fd, "--all", "--output", "json"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/spec-4x4.pl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{fd}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(r#""count":6"#), "{fd}: {stdout}");
        assert!(stdout.contains(&format!(r#""engine":"{fd}""#)), "{stdout}");
        let out = common::kenken()
            .args(["bench", "--count", "1", "--ascii", "--engines"])
            .arg(format!("native,{fd},{plain}"))
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/bench/small.jsonl"
            ))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{fd}: {stdout}");
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(system.name) && l.contains("4x4")),
            "{}: {stdout}",
            system.name
        );
    }
}
