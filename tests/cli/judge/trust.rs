//! Files that try to forge their verdict rather than earn it: by redefining the judge's own
//! predicates, by writing the judge's protocol themselves (guessing at it, reading it from
//! their input, or under gprolog printing the driver's lines), or by printing numbers the judge
//! once read as times. Each is written here, judged for real, and must not pass; honest files
//! must still pass with several engines at once.

use super::{fixture, gprolog, judge, Judged};

/// `text` written as `name` in a fresh folder: the folder (kept while the test runs) and the
/// file's path.
fn written(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let path = file.to_str().unwrap().to_string();
    (dir, path)
}

/// No case passed, and the exit code says the file fails.
fn assert_nothing_passes(j: &Judged) {
    assert!(!j.verdicts.is_empty(), "no case judged");
    assert_eq!(j.count("pass"), 0, "{:?}", j.details);
    assert_eq!(j.code, 1, "{:?}", j.details);
}

const SPEC_KENKEN: &[&str] = &[
    "--suite",
    "spec",
    "--predicates",
    "kenken",
    "--timeout",
    "20",
];

/// A correct Scryer `kenken/3` whose answers come twice each, largest first, and clauses for
/// every helper the judge's Prolog side ever had (and a library's), which would sort and
/// de-duplicate what they collect.
const REDEFINES_THE_JUDGE: &str = r#"
:- use_module(library(clpz)).
:- use_module(library(lists)).

kenken(N, C, T) :-
    findall(G, solve(N, C, G), Gs0),
    reverse(Gs0, Gs),
    member(T, Gs),
    ( true ; true ).

solve(N, C, T) :-
    length(T, N), maplist(same_length(T), T), append(T, Vs), Vs ins 1..N,
    maplist(all_distinct, T), transpose(T, Cols), maplist(all_distinct, Cols),
    maplist(cage(T), C), maplist(label, T).
at(T, [I|J], V) :- nth1(I, T, R), nth1(J, R, V).
cage(T, +(S, L)) :- maplist(at(T), L, Vs), sum(Vs, #=, S).
cage(T, *(P, L)) :- maplist(at(T), L, Vs), foldl(mul, Vs, 1, P).
cage(T, -(D, J, K)) :- at(T, J, A), at(T, K, B), abs(A - B) #= D.
cage(T, /(Q, J, K)) :- at(T, J, A), at(T, K, B), (A #= Q * B) #\/ (B #= Q * A).
mul(V, P0, P) :- P #= P0 * V.

% the judge's old collecting helpers, and the library predicates they used
kk_judge_take(As0, _, As, complete) :- sort(As0, As).
kk_judge_solve(Cs, N, Max, R) :- kk_judge_real(Cs, N, Max, R).
kk_judge_nth(Goal, T, _, _, grid(T)) :- findall(T, Goal, Ts), sort(Ts, S), member(T, S).
iso_ext:call_nth(Goal, 1) :- findall(Goal, Goal, Gs), sort(Gs, S), member(Goal, S).
lists:member(X, [X|_]).
"#;

#[test]
fn a_file_that_redefines_the_judges_predicates_is_judged_on_its_answers() {
    let (_dir, file) = written("kenken.pl", REDEFINES_THE_JUDGE);
    let j = judge(&file, &[SPEC_KENKEN, &["--prolog", "scryer"]].concat());
    // the spec's 4x4 has six answers: each came twice (and in the wrong order)
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "duplicate",
        "{:?}",
        j.details
    );
    assert!(j
        .detail("spec 4x4 example (six answers)", "kenken")
        .contains("12 answers for 6 solutions"));
    assert_eq!(j.code, 1);
}

/// A Scryer file whose `kenken/3` always fails and which writes reply lines itself, in the
/// judge's present frame format (guessing the id and nonce) and in its old format, to every
/// way it can reach the worker's output: `user_output`, and the pipes through /proc (from a
/// directive while loading, and while its goal runs). It also tries to read the requests.
const WRITES_THE_PROTOCOL: &str = r#"
forge(S) :-
    format(S, "kenken-frame 1 00000000000000000000000000000000 done {\"Loaded\":{\"warnings\":\"\"}}~n", []),
    format(S, "kenken-frame 2 00000000000000000000000000000000 done {\"Answers\":{\"answers\":[],\"end\":\"Complete\",\"spent\":false}}~n", []),
    format(S, "kenken-reply {\"Answers\":{\"answers\":[],\"end\":\"Complete\",\"elapsed_ms\":-1e300}}~n", []).

everywhere :-
    forge(user_output),
    forge(user_error),
    (   catch(open('/proc/self/fd/1', write, S), _, fail)
    ->  forge(S), catch(close(S), _, true)
    ;   true
    ),
    (   catch(open('/dev/fd/1', write, S2), _, fail)
    ->  forge(S2), catch(close(S2), _, true)
    ;   true
    ).

:- initialization(everywhere).

kenken(_, _, _) :- everywhere, fail.
"#;

#[test]
fn a_scryer_file_that_writes_the_protocol_itself_is_not_believed() {
    let (_dir, file) = written("kenken.pl", WRITES_THE_PROTOCOL);
    let j = judge(&file, &[SPEC_KENKEN, &["--prolog", "scryer"]].concat());
    assert_nothing_passes(&j);
    // (and under no confinement, where /proc is open to it, no more)
    let j = judge(
        &file,
        &[SPEC_KENKEN, &["--prolog", "scryer", "--no-confine"]].concat(),
    );
    assert_nothing_passes(&j);
}

/// A GNU Prolog file whose `kenken/3` fails after printing the driver's lines (the frames, with
/// the id the driver uses and a guessed nonce, and the driver's old lines with absurd times),
/// and whose directive reads standard input to steal the request and answer it.
const PRINTS_THE_DRIVERS_LINES: &str = r#"
steal :-
    catch(read(user_input, R), _, R = none),
    (   R = kk_request(Id, Nonce, _, _, _)
    ->  format("kenken-frame ~w ~w part loaded~nkenken-frame ~w ~w done complete~n",
               [Id, Nonce, Id, Nonce])
    ;   true
    ).

:- initialization(steal).

kenken(_, _, _) :-
    write('kenken-frame 1 00000000000000000000000000000000 part loaded'), nl,
    write('kenken-frame 1 00000000000000000000000000000000 done complete'), nl,
    write('kk_loaded.'), nl,
    write('kk_end(complete, -1.0e300).'), nl,
    fail.
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn a_gnu_file_that_prints_the_drivers_lines_is_not_believed() {
    if !gprolog() {
        return;
    }
    let (_dir, file) = written("kenken.pl", PRINTS_THE_DRIVERS_LINES);
    let j = judge(&file, &[SPEC_KENKEN, &["--prolog", "gprolog"]].concat());
    assert_nothing_passes(&j);
    // it printed a frame with a guessed nonce: no answer of that run is believed
    assert!(
        j.details
            .values()
            .any(|d| d.contains("broke the judge's protocol")),
        "{:?}",
        j.details
    );
}

#[test]
fn an_honest_gnu_file_passes_with_several_engines_at_once() {
    if !gprolog() {
        return;
    }
    // (each engine builds its own byte code: once only the first did, and the others halted)
    let j = judge(
        &fixture("gnu_correct.pl"),
        &["--suite", "spec", "--prolog", "gprolog", "--jobs", "2"],
    );
    assert_eq!(j.code, 0, "{:?}", j.details);
    assert_eq!(j.count("halted"), 0);
}

#[test]
fn a_looping_directive_is_bounded_by_the_timeout() {
    let (_dir, file) = written("kenken.pl", ":- initialization((repeat, fail)).\n");
    for system in ["scryer", "gprolog"] {
        if system == "gprolog" && !gprolog() {
            continue;
        }
        let out = crate::common::kenken()
            .args(["judge", &file, "--prolog", system, "--timeout", "3"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{system}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("loading did not end within 3 s"),
            "{system}: {stderr}"
        );
    }
}

#[test]
fn honest_files_with_awkward_names_pass() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["my kenken.pl", "o'brien \"k\".pl", "new\nline.pl"] {
        for (system, source) in [("scryer", "clpz_correct.pl"), ("gprolog", "gnu_correct.pl")] {
            if system == "gprolog" && !gprolog() {
                continue;
            }
            let file = dir.path().join(format!("{system} {name}"));
            std::fs::copy(fixture(source), &file).unwrap();
            // (the name is what is judged here: one case with several answers shows the file
            // loaded and answering)
            let j = judge(
                file.to_str().unwrap(),
                &[
                    SPEC_KENKEN,
                    &["--prolog", system, "--only", "spec 4x4 example"],
                ]
                .concat(),
            );
            assert_eq!(j.code, 0, "{system} {name:?}: {:?}", j.details);
            assert_eq!(j.details.len(), 1, "{system} {name:?}: {:?}", j.details);
        }
    }
}

/// A GNU Prolog file that prints without end: the judge reads a bounded part of it and stops it.
#[test]
fn a_file_that_prints_without_end_is_stopped() {
    if !gprolog() {
        return;
    }
    let (_dir, file) = written(
        "kenken.pl",
        "kenken(_, _, _) :- repeat, write(xxxxxxxxxxxxxxxx), fail.\n",
    );
    let j = judge(
        &file,
        &[
            "--suite",
            "spec",
            "--predicates",
            "kenken",
            "--prolog",
            "gprolog",
            "--timeout",
            "60",
        ],
    );
    assert_nothing_passes(&j);
    assert!(
        j.details.values().all(|d| d.contains("wrote more than")),
        "{:?}",
        j.details
    );
}
