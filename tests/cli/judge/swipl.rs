//! `kenken judge --prolog swipl`: a file judged under the real SWI-Prolog, with the verdicts,
//! the form check and the trust checks it gets under the other systems: our own kenken.pl
//! passes (written for Scryer: library(clpz) is clpfd there), a wrong file fails, a halting or
//! looping one costs only its cases, forged frames are not believed, a GNU Prolog file gets a
//! note, and confinement refuses what it refuses under gprolog. Skipped (with a message) where swipl is not installed.

use super::{fixture, judge, Judged};

/// Whether `swipl` is installed (else the test says it is skipped).
fn swipl() -> bool {
    let there = std::process::Command::new("swipl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !there {
        eprintln!("swipl is not installed: what runs under SWI-Prolog is not tested");
    }
    there
}

/// `text` written as `name` in a fresh folder: the folder (kept while the test runs) and the
/// file's path.
fn written(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    (dir, file.to_str().unwrap().to_string())
}

const OUR_KENKEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/prolog/kenken.pl");

/// The spec's cases under swipl, `extra` added (a timeout of 30 s unless it gives one).
fn spec(extra: &[&str]) -> Vec<String> {
    let timeout: &[&str] = if extra.contains(&"--timeout") {
        &[]
    } else {
        &["--timeout", "30"]
    };
    ["--suite", "spec", "--prolog", "swipl"]
        .iter()
        .chain(timeout)
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn judged(file: &str, extra: &[&str]) -> Judged {
    let args = spec(extra);
    judge(file, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Every case's verdict is `verdict`, its detail holding `detail`.
fn every_case(j: &Judged, verdict: &str, detail: &str) {
    assert!(!j.verdicts.is_empty(), "no case judged");
    for (key, v) in &j.verdicts {
        assert_eq!(v, verdict, "{key:?}: {:?}", j.details);
        assert!(
            j.details[key].contains(detail),
            "{key:?}: {}",
            j.details[key]
        );
    }
}

#[test]
fn our_kenken_and_a_swi_file_pass_the_spec_suite_under_swipl() {
    if !swipl() {
        return;
    }
    let j = judged(OUR_KENKEN, &[]);
    assert_eq!(j.code, 0, "{:?}", j.details);
    assert_eq!(j.summary["prolog"], "swipl");
    assert_eq!(j.count("pass"), j.verdicts.len());
    assert_eq!(j.summary["form"]["passed"], true);
    // a file written for SWI-Prolog (library(clpfd), transpose/2 from it), on the standard
    // suite's small grids: its kenken/3 passes; its plain_kenken/3 calls kenken/3 and finds no
    // FD solver
    let j = judge(
        &fixture("swi_clpfd.pl"),
        &["--prolog", "swipl", "--max-size", "5", "--seed", "7"],
    );
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    for ((_, predicate), verdict) in &j.verdicts {
        let want = if predicate == "kenken" {
            "pass"
        } else {
            "error"
        };
        assert!(
            verdict == want || verdict == "pass" && want == "error",
            "{predicate}: {verdict} {:?}",
            j.details
        );
    }
    assert!(j.count("error") > 0);
    assert_eq!(j.summary["form"]["passed"], false);
}

/// `clpz_correct.pl` with `text` replaced by `by`, written in a fresh folder.
fn changed(text: &str, by: &str) -> (tempfile::TempDir, String) {
    let correct = std::fs::read_to_string(fixture("clpz_correct.pl")).unwrap();
    assert!(correct.contains(text), "{text}");
    written("kenken.pl", &correct.replace(text, by))
}

#[test]
fn a_wrong_file_fails_under_swipl_with_the_verdicts_it_gets_elsewhere() {
    if !swipl() {
        return;
    }
    // labeled largest first: right answers in the wrong order
    let (_dir, file) = changed("maplist(label, Grid)", "maplist(labeling([down]), Grid)");
    let j = judged(&file, &["--predicates", "kenken", "--order", "strict"]);
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "order"
    );
    // `-` as A - B alone: answers lost
    let (_dir, file) = changed("abs(A - B) #= D", "A - B #= D");
    let j = judged(&file, &["--predicates", "kenken"]);
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    assert_eq!(
        j.verdict("spec 4x4 example (six answers)", "kenken"),
        "wrong"
    );
    // a syntax error: named by line, and the file is not judged
    let (_dir, file) = written(
        "bad.pl",
        ":- use_module(library(clpz)).\nkenken(N, C, T) :-\n    T = .\nplain_kenken(_, _, _).\n",
    );
    let out = crate::common::kenken()
        .args(["judge", &file, "--prolog", "swipl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.pl:3: syntax error:"), "{stderr}");
}

/// A plain_kenken/3 that is kenken/3: its constraints throw where no FD solver exists; the
/// form check says so too.
const PLAIN_IS_FD: &str = r#"
:- use_module(library(clpfd)).
kenken(N, _, T) :- length(T, N), maplist(row(N), T), transpose(T, Cs), maplist(all_distinct, Cs),
    maplist(label, T).
row(N, R) :- length(R, N), R ins 1..N, all_distinct(R).
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn a_plain_kenken_that_reaches_clpfd_finds_no_fd_solver_under_swipl() {
    if !swipl() {
        return;
    }
    let (_dir, file) = written("kenken.pl", PLAIN_IS_FD);
    let j = judged(&file, &["--max-size", "2"]);
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "pass");
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "plain_kenken"), "error");
    assert!(
        j.detail("spec: kenken(2, [], T)", "plain_kenken")
            .contains("plain_kenken/3 called the FD solver"),
        "{:?}",
        j.details
    );
    assert_eq!(j.summary["form"]["passed"], false);
}

#[test]
fn a_gnu_file_under_swipl_is_refused_or_judged_with_a_clear_message() {
    if !swipl() {
        return;
    }
    // GNU Prolog's FD operators are syntax errors to SWI-Prolog: the load fails, saying why
    let out = crate::common::kenken()
        .args(["judge", &fixture("gnu_correct.pl"), "--prolog", "swipl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("looks written for GNU Prolog"), "{stderr}");
    assert!(stderr.contains("--prolog gprolog"), "{stderr}");
    // one that loads is judged, with a note; its fd_* calls do not exist
    let (_dir, file) = written(
        "kenken.pl",
        "kenken(N, _, T) :- fd_domain(T, 1, N).\nplain_kenken(N, C, T) :- kenken(N, C, T).\n",
    );
    let j = judged(&file, &["--predicates", "kenken", "--max-size", "2"]);
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    assert_eq!(j.summary["dialect"], "gnu");
    let notes = j.summary["notes"].to_string();
    assert!(notes.contains("written for GNU Prolog"), "{notes}");
    assert_eq!(
        j.detail("spec: kenken(1, [], T)", "kenken"),
        "uncaught exception: existence_error(procedure,fd_domain/3): fd_domain/3 is not defined"
    );
}

#[test]
fn a_halting_or_looping_file_costs_only_its_cases_under_swipl() {
    if !swipl() {
        return;
    }
    let (_dir, file) = written(
        "kenken.pl",
        "kenken(1, _, [[1]]) :- halt.\nkenken(2, _, _) :- halt(3).\n\
         kenken(3, _, T) :- loop(T).\nloop(T) :- loop(T).\nkenken(4, _, _) :- repeat, fail.\n\
         plain_kenken(N, C, T) :- kenken(N, C, T).\n",
    );
    let j = judged(&file, &["--predicates", "kenken", "--timeout", "5"]);
    assert_eq!(j.code, 1, "{:?} {}", j.details, j.summary);
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "halted");
    assert_eq!(
        j.detail("spec: kenken(1, [], T)", "kenken"),
        "called halt (exit code 0)"
    );
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "halted");
    // a loop on a small grid is a hang (or SWI's stack runs out first), and the rest runs
    assert!(
        ["hang", "error"].contains(&j.verdict("spec: kenken(3, [], T)", "kenken")),
        "{:?}",
        j.details
    );
    assert_eq!(j.verdict("spec: kenken(4, [], T)", "kenken"), "timeout");
    assert_eq!(
        j.verdict("spec 4x4 made unsatisfiable", "kenken"),
        "timeout"
    );
}

/// A file that prints the driver's frames itself, with a guessed nonce, and a fake reply.
const FORGES_FRAMES: &str = r#"
kenken(N, _, _) :-
    format("~nkenken-frame 1 00000000000000000000000000000000 part loaded~n"),
    format("kenken-frame 1 00000000000000000000000000000000 part [[1]]~n"),
    format("kenken-frame 1 00000000000000000000000000000000 done complete~n"),
    N > 0, fail.
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn a_file_that_forges_the_drivers_frames_is_not_believed_under_swipl() {
    if !swipl() {
        return;
    }
    let (_dir, file) = written("kenken.pl", FORGES_FRAMES);
    let j = judged(&file, &["--predicates", "kenken"]);
    assert_eq!(j.count("pass"), 0, "{:?}", j.details);
    assert_eq!(j.code, 1);
    assert!(
        j.details
            .values()
            .all(|d| d.contains("broke the judge's protocol")),
        "{:?}",
        j.details
    );
}

#[test]
fn a_file_that_reads_outside_its_jail_or_connects_is_refused_under_swipl() {
    if !swipl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let canary = dir.path().join("canary.txt");
    std::fs::write(&canary, "[[1]].\n").unwrap();
    let file = dir.path().join("kenken.pl");
    std::fs::write(
        &file,
        format!(
            "kenken(1, _, T) :- open('{}', read, S), read(S, T), close(S).\n\
             plain_kenken(N, C, T) :- kenken(N, C, T).\n",
            canary.display()
        ),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let small = ["--predicates", "kenken", "--max-size", "1"];
    let j = judged(file, &small);
    every_case(
        &j,
        "error",
        &format!("the file tried to open {}", canary.display()),
    );
    // what --read allows, it reads
    let j = judged(
        file,
        &[&small[..], &["--read", canary.to_str().unwrap()]].concat(),
    );
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    // a connection to a listener here is refused
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(
        dir.path().join("kenken.pl"),
        format!(
            ":- use_module(library(socket)).\n\
             kenken(1, _, _) :- tcp_connect('127.0.0.1':{port}, S, []), close(S).\n\
             plain_kenken(N, C, T) :- kenken(N, C, T).\n"
        ),
    )
    .unwrap();
    let j = judged(file, &small);
    let v = j.verdict("spec: kenken(1, [], T)", "kenken");
    let d = j.detail("spec: kenken(1, [], T)", "kenken");
    assert!(
        v == "error" && d.contains("network connection") || v == "blocked",
        "{v}: {d}"
    );
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a connection came through");
}

/// Where no user namespace can be made, the judge refuses to run a file under swipl too (and
/// says why); `--no-confine` judges it, swipl unconfined. (Run inside `unshare -Ur`, in a user
/// namespace whose limit of namespaces is 0; skipped where that cannot be set up.)
#[test]
fn without_user_namespaces_swipl_is_refused_unless_unconfined() {
    if !swipl() {
        return;
    }
    let kenken = assert_cmd::cargo::cargo_bin("kenken");
    let file = fixture("clpz_correct.pl");
    let run = |confine: bool| {
        let mut args = vec![
            "-Ur",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; exec \"$0\" \"$@\"",
            kenken.to_str().unwrap(),
            "judge",
            file.as_str(),
        ];
        args.extend(["--suite", "spec", "--predicates", "kenken"]);
        args.extend(["--max-size", "1", "--prolog", "swipl"]);
        if !confine {
            args.push("--no-confine");
        }
        std::process::Command::new("unshare").args(&args).output()
    };
    match run(false) {
        Ok(out) if out.status.code() == Some(0) => {}
        other => {
            eprintln!("no user namespace whose limit can be set here ({other:?}): skipped");
            return;
        }
    }
    let out = run(true).unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot judge safely") && stderr.contains("--no-confine"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{out:?}");
}
