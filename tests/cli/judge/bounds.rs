//! The judge is bounded on any input (issue #53, point 2, and the judge's settings kept from
//! judged code, point 3): every path given or found is a row that says why it is not judged
//! (a named pipe, a device, a broken link, a folder, a file over the size a judged file may
//! have) instead of a hang, an endless read or the end of the class; a flood of forged answers
//! is not kept; Ctrl-C or `SIGTERM` leaves no temporary folder; and a judged process reads no
//! setting of the judge in its environment. 1x1 cases only: a few seconds in all.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::{judge, kenken};
use crate::common::{gprolog, swipl};

/// `kenken/3` on the 1x1 spec case alone.
const KENKEN_1X1: &[&str] = &[
    "--suite",
    "spec",
    "--only",
    "kenken(1,",
    "--predicates",
    "kenken",
    "--prolog",
    "scryer",
    "--timeout",
    "60",
];

/// A class of student folders: ann's file passes, carol's `kenken.pl` is a named pipe, dave's a
/// folder, eve's a link to `/dev/zero`, fred's a broken link, gina's over 1 MiB, and hal's loads
/// the helper file beside it.
fn class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    for s in [
        "ann",
        "carol",
        "dave/kenken.pl",
        "eve",
        "fred",
        "gina",
        "hal",
    ] {
        std::fs::create_dir_all(class.join(s)).unwrap();
    }
    let f = |s: &str| class.join(s).join("kenken.pl");
    std::fs::write(f("ann"), "kenken(1, _, [[1]]).\n").unwrap();
    nix::unistd::mkfifo(&f("carol"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::os::unix::fs::symlink("/dev/zero", f("eve")).unwrap();
    std::os::unix::fs::symlink(dir.join("nothing.pl"), f("fred")).unwrap();
    std::fs::write(f("gina"), "a ".repeat((1 << 19) + 1)).unwrap();
    std::fs::write(f("hal"), ":- use_module(helper).\n").unwrap();
    std::fs::write(
        class.join("hal/helper.pl"),
        ":- module(helper, [kenken/3]).\nkenken(1, _, [[1]]).\n",
    )
    .unwrap();
    class
}

/// The JSON rows (by the name of their folder) and the exit code of judging `paths`.
fn rows(paths: &[PathBuf]) -> (Vec<(String, Value)>, i32) {
    let out = kenken()
        .arg("judge")
        .args(paths)
        .args(["--output", "json", "--shrink-time", "0"])
        .args(KENKEN_1X1)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let rows = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("class").is_none())
        .map(|v| {
            let file = v["file"].as_str().unwrap().to_string();
            let student = file.split("/class/").nth(1).unwrap_or(&file).to_string();
            (student, v)
        })
        .collect();
    (rows, out.status.code().unwrap_or(-1))
}

fn says(rows: &[(String, Value)], student: &str) -> String {
    let (_, v) = rows
        .iter()
        .find(|(s, _)| s == student)
        .unwrap_or_else(|| panic!("no row {student}: {rows:?}"));
    v["first_failure"].as_str().unwrap_or("").to_string()
}

#[test]
fn every_path_given_or_found_is_a_row_that_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    // as a shell's CLASS/*/kenken.pl gives them
    let mut globbed: Vec<PathBuf> = std::fs::read_dir(&class)
        .unwrap()
        .map(|e| e.unwrap().path().join("kenken.pl"))
        .collect();
    globbed.sort();
    let (given, code) = rows(&globbed);
    assert_eq!(code, 1, "{given:?}");
    assert_eq!(given.len(), 7, "{given:?}");
    assert_eq!(says(&given, "ann/kenken.pl"), "");
    assert!(says(&given, "carol/kenken.pl").contains("not a regular file (a named pipe)"));
    assert!(says(&given, "dave/kenken.pl").contains("a folder with no .pl file"));
    assert!(says(&given, "eve/kenken.pl").contains("not a regular file (a device)"));
    assert!(says(&given, "fred/kenken.pl").contains("a link to nothing (a broken link)"));
    assert!(says(&given, "gina/kenken.pl").contains("over the 1 MiB a judged file may hold"));
    // (named one by one, hal's helper is not given: what it loads, it may not read)
    assert_ne!(says(&given, "hal/kenken.pl"), "");

    // the class folder: the same rows, hal's helper read by it, no row of its own
    let (found, code) = rows(std::slice::from_ref(&class));
    assert_eq!(code, 1, "{found:?}");
    assert_eq!(found.len(), 7, "{found:?}");
    assert!(says(&found, "carol/kenken.pl").contains("not a regular file (a named pipe)"));
    assert!(says(&found, "dave/kenken.pl").contains("a folder with no .pl file"));
    assert!(says(&found, "eve/kenken.pl").contains("a link to a file outside the class folder"));
    assert!(says(&found, "fred/kenken.pl").contains("a link to nothing (a broken link)"));
    assert!(says(&found, "gina/kenken.pl").contains("over the 1 MiB"));
    assert_eq!(says(&found, "hal/kenken.pl"), "");
    let hal = &found.iter().find(|(s, _)| s == "hal/kenken.pl").unwrap().1;
    assert!(
        hal["helpers"][0]
            .as_str()
            .unwrap()
            .ends_with("/hal/helper.pl"),
        "{hal}"
    );

    // one path alone that is no file: a usage error at once, no wait for a writer
    let out = kenken()
        .arg("judge")
        .arg(class.join("carol/kenken.pl"))
        .args(KENKEN_1X1)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a named pipe"));
}

/// Reads the driver's nonce from its goal on the stack, then writes 4000 forged answers of
/// 4 KiB: 16 MiB.
const SWI_FLOOD: &str = r#"
forge(Id, Nonce) :- prolog_current_frame(F), up(F, Id, Nonce).
up(F, Id, Nonce) :-
    prolog_frame_attribute(F, goal, G), ( G = _:G1 -> true ; G1 = G ),
    (   compound(G1), functor(G1, N, 6), sub_atom(N, _, _, 0, '_solve')
    ->  arg(1, G1, Id), arg(2, G1, Nonce)
    ;   prolog_frame_attribute(F, parent, P), up(P, Id, Nonce)
    ).
kenken(_, _, _) :- forge(Id, Nonce), length(L, 4000), maplist(=(0'x), L), atom_codes(A, L),
    forall(between(1, 4000, _), format("kenken-frame ~w ~w part '~a'~n", [Id, Nonce, A])),
    fail.
"#;

#[test]
fn a_flood_of_forged_answers_under_swipl_is_not_kept() {
    if !swipl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flood.pl");
    std::fs::write(&file, SWI_FLOOD).unwrap();
    let mut args = KENKEN_1X1.to_vec();
    args[7] = "swipl";
    let j = judge(file.to_str().unwrap(), &args);
    assert_eq!(j.code, 1);
    let detail = j.detail("spec: kenken(1, [], T)", "kenken");
    assert!(
        detail.contains("broke the judge's protocol") && detail.contains("more answers than"),
        "{detail}"
    );
}

/// The temporary folders of ours in `tmp` (the judge's scratch folders, libraries, links).
fn ours(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("kenken-"))
        .collect()
}

#[test]
fn a_judge_stopped_by_sigterm_or_ctrl_c_leaves_no_temporary_folder() {
    use nix::sys::signal::{kill, Signal};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("loops.pl");
    std::fs::write(&file, "kenken(_, _, _) :- repeat, fail.\n").unwrap();
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kenken"))
            .arg("judge")
            .arg(&file)
            .args(KENKEN_1X1)
            .env("TMPDIR", tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // (once its engine's scratch folder is there, the judge is at work)
        let mut waited = 0;
        while ours(tmp.path()).is_empty() && waited < 600 {
            std::thread::sleep(Duration::from_millis(100));
            waited += 1;
        }
        assert!(!ours(tmp.path()).is_empty(), "no folder of the judge");
        kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{signal}");
        assert_eq!(ours(tmp.path()), Vec::<String>::new(), "{signal}");
    }
}

#[test]
fn a_judged_process_reads_no_setting_of_the_judge() {
    // an answer only when no variable of the judge is set
    let names = "[\"KENKEN_CONFINE\", \"KENKEN_WORKER\", \"KENKEN_SCRYER_FILE_ENGINE\", \
                 \"KENKEN_PARENT\", \"KENKEN_EXEC\"]";
    let files = [
        (
            "scryer",
            format!(
                ":- use_module(library(os)).\n:- use_module(library(lists)).\n\
                 kenken(1, _, [[1]]) :- \\+ (member(N, {names}), getenv(N, _)).\n"
            ),
        ),
        (
            "swipl",
            format!(
                "kenken(1, _, [[1]]) :- \\+ (member(N, {names}), atom_string(A, N), \
                 getenv(A, _)).\n"
            ),
        ),
        (
            "gprolog",
            format!(
                ":- set_prolog_flag(double_quotes, atom).\n\
                 kenken(1, _, [[1]]) :- \\+ (member(N, {}), environ(N, _)).\n",
                names.replace('"', "'")
            ),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (system, text) in files {
        if (system == "swipl" && !swipl()) || (system == "gprolog" && !gprolog()) {
            continue;
        }
        let file = dir.path().join(format!("{system}.pl"));
        std::fs::write(&file, text).unwrap();
        let mut args = KENKEN_1X1.to_vec();
        args[7] = system;
        let j = judge(file.to_str().unwrap(), &args);
        assert_eq!(j.code, 0, "{system}: {:?}", j.details);
    }
}

#[test]
fn a_case_that_loads_the_file_again_shares_its_timeout_with_the_goal() {
    // a load of 1 s and a goal of 1 s: within a timeout of 1.5 s each, not together
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sleeper.pl");
    std::fs::write(
        &file,
        ":- use_module(library(time)).\n:- initialization(sleep(1)).\n\
         kenken(_, _, [[1]]) :- sleep(1).\n",
    )
    .unwrap();
    let j = judge(
        file.to_str().unwrap(),
        &[
            "--suite",
            "spec",
            "--only",
            "kenken(1,",
            "--only",
            "kenken(2,",
            "--predicates",
            "kenken",
            "--prolog",
            "scryer",
            "--timeout",
            "1.5",
        ],
    );
    // the first case runs in the engine that loaded the file (a load with its own timeout);
    // the second loads it again in a fresh one, and the goal has what is left
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    assert_eq!(j.verdict("spec: kenken(2, [], T)", "kenken"), "hang");
}
