//! Files that want `pass` without solving (issue #43): each class of way in, written here as a
//! student who does not want to write a solver would write it, judged for real, and none of its
//! cases with an answer may pass. A verdict names what the judge saw, never the file's words.
//! (The honest files of tests/data/judge keep passing: see judge.rs.)

use super::{fixture, gprolog, judge, kenken, Judged};

/// `text` written as `name` in a fresh folder: the folder (kept while the test runs) and the
/// file's path.
fn written(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    (dir, file.to_str().unwrap().to_string())
}

/// The spec's cases up to 2x2, both predicates (a fresh engine each: kept few, for speed).
const SPEC_SMALL: &[&str] = &["--suite", "spec", "--max-size", "2", "--timeout", "60"];

/// The cases of [`SPEC_SMALL`] (for each predicate), all with answers.
const ANSWERED: [&str; 2] = ["spec: kenken(1, [], T)", "spec: kenken(2, [], T)"];

/// No case of `predicate` with an answer passed.
fn none_answered_passes(j: &Judged, predicate: &str) {
    for case in ANSWERED {
        assert_ne!(
            j.verdict(case, predicate),
            "pass",
            "{case} {predicate}: {:?}",
            j.details
        );
    }
    assert_ne!(j.code, 0);
}

/// A correct clpz `kenken/3` (Scryer dialect), to which each cheat adds its `plain_kenken/3`.
const CLPZ_KENKEN: &str = r#"
:- use_module(library(clpz)).
:- use_module(library(lists)).
kenken(N, C, T) :-
    length(T, N), maplist(same_length(T), T), append(T, Vs), Vs ins 1..N,
    maplist(all_distinct, T), transpose(T, Cols), maplist(all_distinct, Cols),
    maplist(cage(T), C), maplist(label, T).
at(T, [I|J], V) :- nth1(I, T, R), nth1(J, R, V).
cage(T, +(S, L)) :- maplist(at(T), L, Vs), sum(Vs, #=, S).
cage(T, *(P, L)) :- maplist(at(T), L, Vs), foldl(mul, Vs, 1, P).
cage(T, -(D, J, K)) :- at(T, J, A), at(T, K, B), abs(A - B) #= D.
cage(T, /(Q, J, K)) :- at(T, J, A), at(T, K, B), (A #= Q * B) #\/ (B #= Q * A).
mul(V, P0, P) :- P #= P0 * V.
"#;

/// Ways 2 and 3: `plain_kenken/3` replays what `kenken/3` recorded, or reaches the FD solver
/// in ways a reading of the text misses.
const PLAIN_CHEATS: [(&str, &str); 7] = [
    (
        "reloads library(clpz) in a goal",
        "plain_kenken(N, C, T) :- '$load_library_as_stream'(clpz, S, P), \
         loader:consult_stream(S, P), solve(N, C, T).\nkenken(N, C, T) :- solve(N, C, T).\n",
    ),
    (
        "reloads library(clpz) in a directive",
        ":- '$load_library_as_stream'(clpz, S, P), loader:consult_stream(S, P).\n\
         plain_kenken(N, C, T) :- solve(N, C, T).\nkenken(N, C, T) :- solve(N, C, T).\n",
    ),
    (
        "replays kenken/3's answers",
        ":- dynamic(seen/3).\nkenken(N, C, T) :- solve(N, C, T), assertz(seen(N, C, T)).\n\
         plain_kenken(N, C, T) :- seen(N, C, T).\n",
    ),
    (
        "a name built at run time",
        "plain_kenken(N, C, T) :- atom_chars(K, [s,o,l,v,e]), G =.. [K, N, C, T], call(G).\n\
         kenken(N, C, T) :- solve(N, C, T).\n",
    ),
    (
        "clauses made by a directive",
        ":- initialization(assertz((plain_kenken(N, C, T) :- solve(N, C, T)))).\n\
         kenken(N, C, T) :- solve(N, C, T).\n",
    ),
    (
        "clpz called by module",
        "plain_kenken(N, C, T) :- clpz:(X #= 1), X == 1, solve(N, C, T).\n\
         kenken(N, C, T) :- solve(N, C, T).\n",
    ),
    (
        "the head written as a term",
        "':-'(plain_kenken(N, C, T), solve(N, C, T)).\nkenken(N, C, T) :- solve(N, C, T).\n",
    ),
];

#[test]
fn a_plain_kenken_that_reaches_the_fd_solver_or_an_earlier_case_does_not_pass() {
    for (what, cheat) in PLAIN_CHEATS {
        let text = CLPZ_KENKEN.replace("kenken(N, C, T) :-\n", "solve(N, C, T) :-\n") + cheat;
        let (_dir, file) = written("kenken.pl", &text);
        let j = judge(&file, &[SPEC_SMALL, &["--prolog", "scryer"]].concat());
        // (loading the library in a directive unloads the file's own clauses)
        if what != "reloads library(clpz) in a directive" {
            for case in ANSWERED {
                assert_eq!(j.verdict(case, "kenken"), "pass", "{what}: {:?}", j.details);
            }
        }
        none_answered_passes(&j, "plain_kenken");
        if what != "replays kenken/3's answers" && !what.starts_with("reloads") {
            assert!(
                j.detail("spec: kenken(2, [], T)", "plain_kenken")
                    .contains("plain_kenken/3 called the FD solver"),
                "{what}: {:?}",
                j.details
            );
        }
    }
}

/// A GNU `kenken/3` (fd_domain, #=), to which each cheat adds its `plain_kenken/3`.
const GNU_KENKEN: &str = r#"
solve(N, C, T) :- length(T, N), rows(T, N), cols(T, N, N), cages(C, T), maplist(fd_labeling, T).
rows([], _).
rows([R|Rs], N) :- length(R, N), fd_domain(R, 1, N), fd_all_different(R), rows(Rs, N).
cols(_, 0, _) :- !.
cols(T, I, N) :- maplist(nth(I), T, C), fd_all_different(C), I1 is I - 1, cols(T, I1, N).
cages([], _).
cages([C|Cs], T) :- cage(C, T), cages(Cs, T).
at(T, [I|J], V) :- nth(I, T, R), nth(J, R, V).
cage(+(S, Q), T) :- maplist(at(T), Q, Vs), sum(Vs, S0), S0 #= S.
cage(*(P, Q), T) :- maplist(at(T), Q, Vs), prod(Vs, P0), P0 #= P.
cage(-(D, J, K), T) :- at(T, J, A), at(T, K, B), (A - B #= D #\/ B - A #= D).
cage(/(D, J, K), T) :- at(T, J, A), at(T, K, B), (A #= B * D #\/ B #= A * D).
sum([], 0).
sum([V|Vs], S) :- sum(Vs, S0), S #= S0 + V.
prod([], 1).
prod([V|Vs], S) :- prod(Vs, S0), S #= S0 * V.
kenken(N, C, T) :- solve(N, C, T).
plain_kenken(N, C, T) :- atom_codes(K, "solve"), G =.. [K, N, C, T], call(G).
"#;

#[test]
fn a_gnu_plain_kenken_that_calls_fd_finds_no_fd_solver_under_either_system() {
    let (_dir, file) = written("kenken.pl", GNU_KENKEN);
    let mut systems = vec!["scryer"];
    // (a GNU Prolog without FD solver is built with gplc; without it, gprolog has FD)
    if gprolog()
        && std::process::Command::new("gplc")
            .arg("--version")
            .output()
            .is_ok()
    {
        systems.push("gprolog");
    }
    for system in systems {
        let j = judge(&file, &[SPEC_SMALL, &["--prolog", system]].concat());
        for case in ANSWERED {
            assert_eq!(
                j.verdict(case, "kenken"),
                "pass",
                "{system}: {:?}",
                j.details
            );
        }
        none_answered_passes(&j, "plain_kenken");
    }
}

/// Way 1: the judge's own program (which holds the reference solvers) is not readable, even
/// with `--read` on its folder; nor is a classmate's file (way 4), even with `--read` on the
/// class folder.
#[test]
fn judged_code_reads_neither_the_judge_nor_a_classmate_whatever_read_says() {
    let me = env!("CARGO_BIN_EXE_kenken");
    let folder = std::path::Path::new(me).parent().unwrap().to_str().unwrap();
    let reads_the_judge = format!(
        "kenken(1, [], [[1]]) :- open('{me}', read, S), close(S).\n\
         plain_kenken(1, [], [[1]]) :- open('{me}', read, S), close(S).\n"
    );
    let (_dir, file) = written("kenken.pl", &reads_the_judge);
    let j = judge(
        &file,
        &[SPEC_SMALL, &["--prolog", "scryer", "--read", folder]].concat(),
    );
    for p in ["kenken", "plain_kenken"] {
        assert_ne!(
            j.verdict("spec: kenken(1, [], T)", p),
            "pass",
            "{:?}",
            j.details
        );
    }

    // a class: an honest file, and one that loads it (its directory given to --read)
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::copy(fixture("clpz_correct.pl"), class.join("ann.pl")).unwrap();
    let ann = class.join("ann.pl");
    std::fs::write(
        class.join("bob.pl"),
        format!(":- consult('{}').\n", ann.display()),
    )
    .unwrap();
    let out = kenken()
        .args(["judge", class.to_str().unwrap(), "--output", "csv"])
        .args(["--read", class.to_str().unwrap()])
        .args([
            "--suite",
            "spec",
            "--predicates",
            "kenken",
            "--prolog",
            "scryer",
            "--timeout",
            "60",
        ])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let bob = csv.lines().find(|l| l.contains("bob.pl")).unwrap();
    assert!(
        bob.starts_with(&format!("{},0,", class.join("bob.pl").display())),
        "{csv}"
    );
    let ann_row = csv.lines().find(|l| l.contains("ann.pl")).unwrap();
    assert!(ann_row.ends_with(",0"), "{csv}");
}

/// Way 5: under gprolog, lines the file writes are never the judge's: not a refusal to
/// confine, not a crash's reason, and not a frame, even with every atom of the atom table
/// tried as the nonce.
#[test]
fn what_a_gnu_file_writes_is_never_the_judges_word() {
    if !gprolog() {
        eprintln!("skipped: gprolog is not installed");
        return;
    }
    let files = [
        (
            "says it cannot be confined",
            "kenken(_, _, _) :- write('kenken-cannot-confine the kernel said no'), nl, \
             write(user_error, 'kenken-cannot-confine the kernel said no'), nl(user_error), \
             halt(97).\nplain_kenken(N, C, T) :- kenken(N, C, T).\n",
        ),
        (
            "fakes a fatal error",
            "kenken(_, _, _) :- write(user_error, 'Fatal Error: local stack overflow'), \
             nl(user_error), halt(1).\nplain_kenken(N, C, T) :- kenken(N, C, T).\n",
        ),
        (
            "writes frames with every atom as the nonce",
            "kenken(N, _, _) :- findall(A, (current_atom(A), atom_length(A, 32)), As), \
             forall(member(A, As), (format('kenken-frame 1 ~a part loaded~n', [A]), \
             grid(N, G), format('kenken-frame 1 ~a part ~q~n', [A, G]), \
             format('kenken-frame 1 ~a done complete~n', [A]))), halt(0).\n\
             grid(N, G) :- length(G, N), maplist(row(N), G).\n\
             row(N, R) :- length(R, N), maplist(=(1), R).\n\
             plain_kenken(N, C, T) :- kenken(N, C, T).\n",
        ),
    ];
    for (what, text) in files {
        let (_dir, file) = written("kenken.pl", text);
        let j = judge(&file, &[SPEC_SMALL, &["--prolog", "gprolog"]].concat());
        // (the run went on: every case has a verdict)
        assert_eq!(j.verdicts.len(), 4, "{what}: {:?}", j.details);
        for (key, detail) in &j.details {
            assert!(
                !detail.contains("cannot-confine") && !detail.contains("Fatal Error"),
                "{what}: {key:?}: {detail}"
            );
        }
        none_answered_passes(&j, "kenken");
        none_answered_passes(&j, "plain_kenken");
    }
}

/// Way 6: a huge message is cut before it is shown.
#[test]
fn a_huge_load_error_is_cut_before_it_is_shown() {
    for directive in [
        "throw(A)",
        "use_module(library(A))",
        "initialization(throw(A))",
    ] {
        let text = format!(
            ":- length(L, 1000000), maplist(=(a), L), atom_chars(A, L), {directive}.\n\
             kenken(_, _, _).\n"
        );
        let (_dir, file) = written("kenken.pl", &text);
        let out = kenken()
            .args(["judge", &file, "--prolog", "scryer", "--suite", "spec"])
            .args(["--max-size", "1", "--predicates", "kenken"])
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(0), "{directive}");
        let shown = out.stdout.len() + out.stderr.len();
        assert!(shown < 64 << 10, "{directive}: {shown} bytes shown");
    }
}
