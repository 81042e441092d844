//! A judged file in Scryer through the seam: `ScryerWorker` loading `Program::File` (the
//! judge's engine, a fresh worker for every goal), confined or not. Its answers, its syntax
//! errors by line, its warnings, `halt`, a built-in the GNU layer lacks, a `plain_kenken/3`
//! engine without FD solver, a deadline, and a file that writes the worker's protocol itself.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kenken::judge::Dialect;
use kenken::system::{
    Bound, ChildSetup, End, Goal, Program, PrologSystem, ScryerWorker, SystemError,
};

use super::engine::SPEC_4X4;
use crate::use_the_kenken_binary;

/// `text` written as `kenken.pl` in a fresh folder.
fn written(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kenken.pl");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/judge")
        .join(name)
}

/// The judged file `path` in `dialect`, with an FD solver or none.
fn file(path: &Path, dialect: Dialect, fd: bool) -> Program {
    Program::File {
        path: path.to_path_buf(),
        dialect,
        fd,
    }
}

/// A confined system and one not confined.
fn systems() -> [(&'static str, ScryerWorker); 2] {
    [
        (
            "confined",
            ScryerWorker::confined(ChildSetup::default()).unwrap(),
        ),
        ("not confined", ScryerWorker::new()),
    ]
}

/// Runs `goal` (a grid of `size`) within 30 s: its answers and end.
fn run(s: &mut ScryerWorker, goal: &str, size: usize) -> (Vec<Result<kenken::Grid, String>>, End) {
    let goal = Goal {
        deadline: Some(Instant::now() + Duration::from_secs(30)),
        ..Goal::new(goal, size)
    };
    let mut answers = Vec::new();
    let outcome = s.run(&goal, &mut |a| answers.push(a.value)).unwrap();
    (answers, outcome.end)
}

const LOAD: Duration = Duration::from_secs(30);

#[test]
fn a_judged_file_gives_its_answers_in_its_order() {
    let _program = use_the_kenken_binary();
    let spec: Vec<Vec<Vec<u32>>> = SPEC_4X4
        .iter()
        .map(|g| g.iter().map(|r| r.to_vec()).collect())
        .collect();
    let goal = "kenken(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], [2|3], \
                [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), \
                *(2, [[3|4]])], T)";
    for (name, mut s) in systems() {
        s.load(
            &file(&fixture("clpz_correct.pl"), Dialect::Scryer, true),
            LOAD,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (answers, end) = run(&mut s, goal, 4);
        assert_eq!(end, End::Complete, "{name}");
        assert_eq!(
            answers,
            spec.iter().cloned().map(Ok).collect::<Vec<_>>(),
            "{name}"
        );
        // the answers' bound
        let bounded = Goal {
            max_answers: Some(2),
            ..Goal::new(goal, 4)
        };
        let mut n = 0;
        let outcome = s.run(&bounded, &mut |_| n += 1).unwrap();
        assert_eq!(
            (n, outcome.end),
            (2, End::Stopped(Bound::Answers)),
            "{name}"
        );
        assert_eq!(outcome.inferences, None, "{name}");
    }
}

#[test]
fn a_judged_files_syntax_errors_come_by_line_and_nothing_runs() {
    let _program = use_the_kenken_binary();
    let (_dir, path) = written("p(1).\n\nq :- .\nr(2).\n");
    let (_dir2, helper) = written(":- initialization(halt(5)).\n");
    for (name, mut s) in systems() {
        match s.load(&file(&path, Dialect::Scryer, true), LOAD) {
            Err(SystemError::Syntax { file, errors }) => {
                assert_eq!(file, path.display().to_string(), "{name}");
                assert_eq!(errors.first().map(|e| e.0), Some(3), "{name}: {errors:?}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(
            s.run(&Goal::new("T = []", 0), &mut |_| {}).err(),
            Some(SystemError::NotLoaded("scryer")),
            "{name}"
        );
        // a directive that halts is reported, not obeyed: the file loads, and its goals run
        s.load(&file(&helper, Dialect::Scryer, true), LOAD)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            run(&mut s, "T = []", 0),
            (vec![Ok(vec![])], End::Complete),
            "{name}"
        );
    }
}

#[test]
fn a_judged_file_says_how_its_goals_end() {
    let _program = use_the_kenken_binary();
    let (_dir, path) = written(
        ":- initialization((write(user_error, hello), nl(user_error))).\n\
         stop(_) :- write(bye), nl, halt(7).\n\
         oops(_) :- throw(oops).\n\
         odd(T) :- T = [x].\n\
         loop(_) :- repeat, fail.\n\
         count(T) :- ( bb_get(n, N) -> true ; N = 0 ), N1 is N + 1, bb_put(n, N1), T = [[N1]].\n",
    );
    for (name, mut s) in systems() {
        let loaded = s.load(&file(&path, Dialect::Scryer, true), LOAD).unwrap();
        assert!(loaded.warnings.contains("hello"), "{name}: {loaded:?}");
        assert_eq!(run(&mut s, "stop(T)", 1).1, End::Halted(7), "{name}");
        assert_eq!(
            run(&mut s, "oops(T)", 1).1,
            End::Exception("oops".into()),
            "{name}"
        );
        assert_eq!(
            run(&mut s, "odd(T)", 1),
            (vec![Err("[x]".into())], End::Complete),
            "{name}"
        );
        let looping = Goal {
            deadline: Some(Instant::now() + Duration::from_secs(2)),
            ..Goal::new("loop(T)", 1)
        };
        let outcome = s.run(&looping, &mut |_| {}).unwrap();
        assert_eq!(outcome.end, End::Stopped(Bound::Time), "{name}");
        // every goal in a fresh engine: nothing a goal did reaches the next
        for _ in 0..2 {
            assert_eq!(
                run(&mut s, "count(T)", 1),
                (vec![Ok(vec![vec![1]])], End::Complete),
                "{name}"
            );
        }
    }
}

#[test]
fn a_plain_engine_has_no_fd_solver_and_the_gnu_layer_names_what_it_lacks() {
    let _program = use_the_kenken_binary();
    let (_dir, path) = written(":- use_module(library(clpz)).\np(T) :- X #= 1 + 1, T = [[X]].\n");
    let mut s = ScryerWorker::confined(ChildSetup::default()).unwrap();
    s.load(&file(&path, Dialect::Scryer, false), LOAD).unwrap();
    match run(&mut s, "p(T)", 1) {
        (answers, End::Exception(e)) if answers.is_empty() => {
            assert!(e.contains("plain_kenken/3 called the FD solver"), "{e}")
        }
        other => panic!("the FD solver answered: {other:?}"),
    }
    s.load(&file(&path, Dialect::Scryer, true), LOAD).unwrap();
    assert_eq!(
        run(&mut s, "p(T)", 1),
        (vec![Ok(vec![vec![2]])], End::Complete)
    );
    // a GNU Prolog file calling a built-in the layer lacks
    s.load(&file(&fixture("unsupported.pl"), Dialect::Gnu, true), LOAD)
        .unwrap();
    assert_eq!(
        run(&mut s, "kenken(1, [], T)", 1).1,
        End::Unsupported("fd_minimize/2".into())
    );
}

/// A file whose goal gives an honest answer, then writes the worker's frames itself (guessing
/// the nonce) to every way it can reach the worker's output.
const FORGES_FRAMES: &str = r#"
forge(S) :-
    format(S, "kenken-frame 2 00000000000000000000000000000000 part {\"answer\":{\"Ok\":[[9]]},\"inferences\":null}~n", []),
    format(S, "kenken-frame 2 00000000000000000000000000000000 done {\"Ended\":{\"end\":\"Complete\",\"inferences\":null}}~n", []).

everywhere :-
    forge(user_output),
    forge(user_error),
    (   catch(open('/proc/self/fd/1', write, S), _, fail)
    ->  forge(S), catch(close(S), _, true)
    ;   true
    ).

kenken(1, [], [[1]]).
kenken(_, _, _) :- everywhere, fail.
"#;

#[test]
fn a_judged_file_cannot_forge_the_workers_frames() {
    let _program = use_the_kenken_binary();
    let (_dir, path) = written(FORGES_FRAMES);
    for (name, mut s) in systems() {
        s.load(&file(&path, Dialect::Scryer, true), LOAD).unwrap();
        let (answers, end) = run(&mut s, "kenken(1, [], T)", 1);
        // no forged answer is ever given
        assert!(
            answers.iter().all(|a| a == &Ok(vec![vec![1]])),
            "{name}: {answers:?}"
        );
        match (name, end) {
            // confined, /proc is out of its reach: what it writes goes to the engine's streams
            ("confined", end) => assert_eq!(end, End::Complete, "{name}"),
            // not confined, it reached the worker's output: the run is not believed
            (_, End::Untrusted(why)) => {
                assert!(why.contains("not the current request's"), "{name}: {why}")
            }
            (_, other) => panic!("{name}: {other:?}"),
        }
    }
}
