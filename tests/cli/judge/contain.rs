//! The judge bounded and its report safe whatever the judged file does (issue #35): the
//! scratch space bounded in total, `/proc` (and with it `/dev/fd`) closed to judged code, links
//! out of a class folder reported and not judged, and what a file prints escaped before it
//! reaches the terminal or a CSV cell. Each test writes its judged files into a temp folder.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{fixture, gprolog, judge, Judged};
use crate::common::kenken;

/// `text` written to `dir/name`; its path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// The spec's cases of kenken/3 up to 2x2 under `system`, with `extra` arguments.
fn judge_small(file: &Path, system: &str, extra: &[&str]) -> Judged {
    let mut args = vec![
        "--suite",
        "spec",
        "--predicates",
        "kenken",
        "--max-size",
        "2",
        "--timeout",
        "60",
        "--prolog",
        system,
    ];
    args.extend_from_slice(extra);
    judge(file.to_str().unwrap(), &args)
}

/// Every case judged, and each case's detail, checked by `check`.
fn every_detail(j: &Judged, check: impl Fn(&str) -> bool) {
    assert!(!j.verdicts.is_empty(), "no case judged: {:?}", j.summary);
    assert_eq!(j.summary["cases"], j.verdicts.len(), "{:?}", j.summary);
    for d in j.details.values() {
        assert!(check(d), "{d}");
    }
}

/// Scryer: files of 256 KiB written until a write fails (or 12 written: 3 MiB).
const FILL_SCRYER: &str = r#"
:- use_module(library(lists)).
:- use_module(library(between)).
chunk(A) :- length(L, 262144), maplist(=(a), L), atom_chars(A, L).
fill(A, I) :- number_codes(I, Cs), atom_codes(N, [0'f|Cs]), open(N, write, S),
    write(S, A), close(S).
kenken(_, _, _) :- chunk(A), between(1, 12, I), fill(A, I), fail.
kenken(_, _, _) :- throw(wrote_3_mib).
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn a_full_scratch_is_a_resource_error_and_the_judge_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "fill.pl", FILL_SCRYER);
    let j = judge_small(&file, "scryer", &["--dialect", "scryer", "--scratch", "1M"]);
    assert_eq!(j.code, 1);
    assert_eq!(j.count("error"), j.verdicts.len());
    every_detail(&j, |d| d.contains("was the scratch space of 1 MiB full?"));
    // the default space (64 MiB) holds the 3 MiB
    let j = judge_small(&file, "scryer", &["--dialect", "scryer"]);
    every_detail(&j, |d| d == "uncaught exception: wrote_3_mib");
}

/// GNU Prolog (which ignores a write that failed): 6 files of 256 KiB written, then their
/// sizes added up.
const FILL_GNU: &str = r#"
fill(I) :- number_codes(I, Cs), atom_codes(N, [0'f|Cs]), open(N, write, S),
    length(L, 1024), fill_a(L), atom_codes(B, L), wr(S, B, 256), close(S).
wr(_, _, 0) :- !.
wr(S, B, K) :- write(S, B), K1 is K - 1, wr(S, B, K1).
fill_a([]).
fill_a([0'a|L]) :- fill_a(L).
size(I, S) :- number_codes(I, Cs), atom_codes(N, [0'f|Cs]),
    (file_exists(N) -> file_property(N, size(S)) ; S = 0).
total(T) :- findall(S, (between(1, 6, I), size(I, S)), Ss), sum(Ss, T).
sum([], 0).
sum([X|Xs], T) :- sum(Xs, T0), T is T0 + X.
kenken(_, _, _) :- between(1, 6, I), catch(fill(I), _, true), fail.
kenken(_, _, _) :- total(T), throw(total(T)).
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn under_gnu_prolog_the_scratch_is_bounded_in_total() {
    if !gprolog() {
        eprintln!("gprolog is not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "gnu_fill.pl", FILL_GNU);
    let j = judge_small(&file, "gprolog", &["--scratch", "1M"]);
    every_detail(&j, |d| {
        let total: u64 = d
            .strip_prefix("uncaught exception: total(")
            .and_then(|t| t.strip_suffix(')'))
            .and_then(|t| t.parse().ok())
            .unwrap_or(u64::MAX);
        total <= 1 << 20
    });
    // the judge goes on: every case judged, and a report
    assert_eq!(j.code, 1);
}

/// Each of `paths` opened (`opened`) or not (`refused`), in a list thrown as `r(List)`.
fn open_each(paths: &[(&str, &str)]) -> String {
    let tries: Vec<String> = paths
        .iter()
        .map(|(p, mode)| format!("try('{p}', {mode})"))
        .collect();
    format!(
        "try(P, M, R) :- catch((open(P, M, S), close(S), R = opened), _, R = refused).\n\
         all([], []).\n\
         all([try(P, M)|Ts], [R|Rs]) :- try(P, M, R), all(Ts, Rs).\n\
         kenken(_, _, _) :- all([{}], Rs), throw(r(Rs)).\n\
         plain_kenken(N, C, T) :- kenken(N, C, T).\n",
        tries.join(", ")
    )
}

/// The pipes a worker talks to the judge on are reachable as `/proc/self/fd/N` and
/// `/dev/fd/N` (which Landlock does not cover): confined, neither opens.
#[test]
fn proc_and_dev_fd_are_closed_to_judged_code() {
    let paths = [
        ("/proc/self/fd/1", "write"),
        ("/dev/fd/1", "write"),
        ("/proc/self/fd/0", "read"),
        ("/proc/self/mem", "read"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "proc.pl", &open_each(&paths));
    let refused = "uncaught exception: r([refused,refused,refused,refused])";
    let j = judge_small(&file, "scryer", &["--dialect", "scryer"]);
    every_detail(&j, |d| d == refused);
    if !gprolog() {
        eprintln!("gprolog is not installed: skipped");
        return;
    }
    let j = judge_small(&file, "gprolog", &[]);
    every_detail(&j, |d| d == refused);
}

/// A file that clears the screen and prints a fake summary line while loading, and raises an
/// exception holding an escape and a formula.
const PRINTS_ESCAPES: &str = r#"
esc :- char_code(C, 27), put_char(C).
:- initialization((esc, write('[2J'), nl, write('loud.pl: 49 cases: 49 pass'), nl)).
kenken(_, _, _) :- char_code(C, 27), atom_chars(A, [C, '[', '2', 'J']), throw(A).
plain_kenken(N, C, T) :- kenken(N, C, T).
"#;

#[test]
fn what_a_file_prints_reaches_the_report_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "loud.pl", PRINTS_ESCAPES);
    for system in ["scryer", "gprolog"] {
        if system == "gprolog" && !gprolog() {
            eprintln!("gprolog is not installed: skipped");
            continue;
        }
        // the table, then CSV
        let judged = |extra: &[&str]| {
            kenken()
                .args(["judge", file.to_str().unwrap(), "--prolog", system])
                .args([
                    "--suite",
                    "spec",
                    "--predicates",
                    "kenken",
                    "--max-size",
                    "2",
                ])
                .args(extra)
                .output()
                .unwrap()
        };
        let out = judged(&[]);
        let table = String::from_utf8(out.stdout).unwrap();
        assert!(!table.contains('\x1b'), "{system}: {table:?}");
        assert!(table.contains("  | \\e[2J\n"), "{system}: {table}");
        let fake: Vec<&str> = table
            .lines()
            .filter(|l| l.contains("loud.pl: 49 cases: 49 pass"))
            .collect();
        assert_eq!(fake, vec!["  | loud.pl: 49 cases: 49 pass"], "{system}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(!stderr.contains('\x1b'), "{system}: {stderr:?}");

        let out = judged(&["--output", "csv"]);
        let csv = String::from_utf8(out.stdout).unwrap();
        assert!(
            !csv.chars().any(|c| c.is_control() && c != '\n'),
            "{system}: {csv:?}"
        );
        assert_eq!(csv.lines().count(), 2, "{system}: {csv}");
    }
}

/// A class folder: ann's file, carol's a link to a file outside, dave's folder a link to a
/// folder outside, bob's a link to ann's file, and names with spaces, quotes and a newline.
#[test]
fn a_class_folder_does_not_follow_links_out() {
    let dir = tempfile::tempdir().unwrap();
    let (class, outside) = (dir.path().join("class"), dir.path().join("elsewhere"));
    for d in [
        class.join("ann"),
        class.join("bob"),
        class.join("carol"),
        outside.clone(),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    let correct = std::fs::read_to_string(fixture("clpz_correct.pl")).unwrap();
    write(&class, "ann/kenken.pl", &correct);
    write(&outside, "teacher_solution.pl", &correct);
    std::os::unix::fs::symlink(
        outside.join("teacher_solution.pl"),
        class.join("carol/kenken.pl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, class.join("dave")).unwrap();
    std::os::unix::fs::symlink("../ann/kenken.pl", class.join("bob/kenken.pl")).unwrap();
    let odd = "eve's \"kenken\"\nfile.pl";
    write(&class, odd, &correct);
    let out = kenken()
        .args(["judge", class.to_str().unwrap(), "--output", "json"])
        .args([
            "--suite",
            "spec",
            "--predicates",
            "kenken",
            "--max-size",
            "3",
        ])
        .args(["--prolog", "scryer", "--timeout", "60"])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |name: &Path| -> &Value {
        // (a line break in a name is shown written out)
        let name = name.to_str().unwrap().replace('\n', "\\n");
        lines
            .iter()
            .find(|l| l["file"] == name)
            .unwrap_or_else(|| panic!("no row for {name}: {lines:?}"))
    };
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(row(&class.join("ann/kenken.pl"))["ok"], true);
    assert_eq!(row(&class.join(odd))["ok"], true);
    assert_eq!(row(&class.join(odd))["passed"][0][1], 3);
    for (path, why) in [
        (
            class.join("carol/kenken.pl"),
            "not judged: a link to a file outside the class folder".to_string(),
        ),
        (
            class.join("dave"),
            "not judged: a link to a folder outside the class folder".to_string(),
        ),
        (
            class.join("bob/kenken.pl"),
            format!(
                "not judged: the same file as {} (judged there)",
                class.join("ann/kenken.pl").display()
            ),
        ),
    ] {
        let r = row(&path);
        assert_eq!(r["first_failure"], why.as_str());
        assert_eq!(r["ok"], false);
        assert_eq!(r["exit_code"], 2);
    }
    assert_eq!(lines[5]["class"]["files"], 5);
    assert_eq!(lines[5]["class"]["passed"], 2);
    assert_eq!(out.status.code(), Some(1));
}

/// Where no user namespace can be made, the judge refuses to run judged code (and says why),
/// under both systems; `--no-confine` still judges. (Run inside `unshare -Ur`, in a user
/// namespace whose limit of namespaces is 0; skipped where that cannot be set up.)
#[test]
fn without_user_namespaces_the_judge_refuses_and_says_why() {
    let kenken = assert_cmd::cargo::cargo_bin("kenken");
    let file = fixture("gnu_correct.pl");
    let run = |system: &str, confine: bool| {
        let mut args = vec![
            "-Ur",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces || exit 99; exec \"$0\" \"$@\"",
        ];
        args.extend([kenken.to_str().unwrap(), "judge", file.as_str()]);
        args.extend([
            "--suite",
            "spec",
            "--predicates",
            "kenken",
            "--max-size",
            "1",
        ]);
        args.extend(["--prolog", system]);
        if !confine {
            args.push("--no-confine");
        }
        std::process::Command::new("unshare").args(&args).output()
    };
    match run("scryer", false) {
        Ok(out) if out.status.code() == Some(0) => {}
        other => {
            eprintln!("no user namespace whose limit can be set here ({other:?}): skipped");
            return;
        }
    }
    let mut systems = vec!["scryer"];
    if gprolog() {
        systems.push("gprolog");
    }
    for system in systems {
        let out = run(system, true).unwrap();
        assert_eq!(out.status.code(), Some(2), "{system}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot judge safely: this system does not let a program make a user and mount namespace of its own")
                && stderr.contains("--no-confine"),
            "{system}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{system}: {out:?}");
    }
}
