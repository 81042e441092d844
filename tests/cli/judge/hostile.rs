//! Hostile judged files (tests/data/judge/hostile/README.md): each is judged for real, confined,
//! and must get the verdict that names what it tried, while nothing outside its scratch folder
//! changes, a listener on 127.0.0.1 receives nothing and no process it started lives on.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{gprolog, judge_in_env, Judged};

const HOSTILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/hostile/");
const CANARY: &str = "canary 5e1f: if this text is in a report, the judge leaked it\n";
/// The value of `KK_JUDGE_SECRET` in the judge's environment: never in a report.
const SECRET: &str = "secret 9c2d";

/// A fixture copied into a folder of its own, beside a folder holding a canary file.
struct Scene {
    _dir: tempfile::TempDir,
    here: PathBuf,
    out: PathBuf,
    file: PathBuf,
    listener: TcpListener,
}

impl Scene {
    fn new(fixture: &str) -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let (here, out) = (dir.path().join("judged"), dir.path().join("outside"));
        std::fs::create_dir_all(&here).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("canary.txt"), CANARY).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let text = std::fs::read_to_string(format!("{HOSTILE}{fixture}"))
            .unwrap()
            .replace("@OUT@", out.to_str().unwrap())
            .replace("@HERE@", here.to_str().unwrap())
            .replace("@PORT@", &port.to_string());
        let file = here.join(fixture);
        std::fs::write(&file, text).unwrap();
        Scene {
            _dir: dir,
            here,
            out,
            file,
            listener,
        }
    }

    fn judge(&self, args: &[&str]) -> (Judged, Duration) {
        let start = Instant::now();
        let mut all = vec![
            "--suite",
            "spec",
            "--predicates",
            "kenken",
            "--timeout",
            "20",
        ];
        all.extend_from_slice(args);
        // the same environment on every machine: no SHELL (a CI runner may have none), and a
        // secret the judged file must not see
        let env = [("SHELL", None), ("KK_JUDGE_SECRET", Some(SECRET))];
        let judged = judge_in_env(self.file.to_str().unwrap(), &all, &env);
        (judged, start.elapsed())
    }

    /// Nothing changed outside: the canary intact, no file new in either folder, nothing
    /// received by the listener.
    fn assert_untouched(&self) {
        assert_eq!(
            std::fs::read_to_string(self.out.join("canary.txt")).unwrap(),
            CANARY
        );
        let names = |d: &Path| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&self.out), vec!["canary.txt"]);
        assert_eq!(
            names(&self.here),
            vec![self
                .file
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()]
        );
        match self.listener.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("the listener failed: {e}"),
            Ok((mut s, _)) => {
                let mut got = String::new();
                let _ = s.read_to_string(&mut got);
                panic!("the listener was reached, and received {got:?}");
            }
        }
    }
}

/// Every case of `kenken/3` got `verdict` with a detail holding `words`.
fn assert_every_case(j: &Judged, verdict: &str, words: &str) {
    assert!(!j.verdicts.is_empty(), "no case judged");
    for ((case, pred), v) in &j.verdicts {
        assert_eq!(v, verdict, "{case} {pred}: {}", j.detail(case, pred));
        let detail = j.detail(case, pred);
        assert!(detail.contains(words), "{case}: {detail}");
        assert!(!detail.contains("canary 5e1f"), "{case}: {detail}");
        assert!(!detail.contains(SECRET), "{case}: {detail}");
    }
}

const SCRYER: [&str; 4] = ["--prolog", "scryer", "--dialect", "scryer"];

#[test]
fn writing_outside_is_refused_and_named() {
    let s = Scene::new("write_outside.pl");
    let (j, _) = s.judge(&SCRYER);
    let out = s.out.join("new.txt");
    assert_every_case(
        &j,
        "error",
        &format!(
            "the file tried to write {}: not allowed while judging",
            out.display()
        ),
    );
    assert_eq!(j.code, 1);
    s.assert_untouched();
}

#[test]
fn writing_in_its_own_folder_is_a_refused_write() {
    let s = Scene::new("write_here.pl");
    let (j, _) = s.judge(&SCRYER);
    let new = s.here.join("new.txt");
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to write {}", new.display()),
    );
    s.assert_untouched();
}

#[test]
fn a_directive_that_writes_outside_writes_nothing() {
    let s = Scene::new("init_write.pl");
    let (j, _) = s.judge(&SCRYER);
    // it loads (the directive's failure is a warning), and its cases run
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "wrong");
    assert_eq!(j.code, 1);
    s.assert_untouched();
}

#[test]
fn reading_outside_is_refused_and_nothing_is_shown() {
    let s = Scene::new("read_canary.pl");
    let (j, _) = s.judge(&SCRYER);
    let canary = s.out.join("canary.txt");
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to open {}", canary.display()),
    );
    s.assert_untouched();
}

/// A class's files in one folder: a file reads only itself, never a classmate's file beside it;
/// `--read` lets it read what it is given (a helper file it loads), and nothing more.
#[test]
fn a_classmates_file_beside_it_is_not_readable() {
    let s = Scene::new("read_classmate.pl");
    let classmate = s.here.join("classmate.pl");
    std::fs::write(&classmate, "kenken(_, _, []).\n").unwrap();
    // (two of the spec's cases each time: every case of a run tries the same read)
    let scryer = [&SCRYER[..], &["--only", "(1,", "--only", "6x6"]].concat();
    let (j, _) = s.judge(&scryer);
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to open {}", classmate.display()),
    );
    // given --read, it reads the classmate's file (and answers with it: wrong), and still
    // not the canary outside
    for read in [&classmate, &s.here] {
        let (j, _) = s.judge(&[&scryer[..], &["--read", read.to_str().unwrap()]].concat());
        assert_every_case(&j, "wrong", "");
        let text = "T = [k,e,n,k,e,n,'(',";
        assert!(
            j.details.values().any(|d| d.contains(text)),
            "{:?}",
            j.details
        );
    }
    std::fs::remove_file(&classmate).unwrap();
    s.assert_untouched();
    let s = Scene::new("read_canary.pl");
    let (j, _) = s.judge(&[&scryer[..], &["--read", s.here.to_str().unwrap()]].concat());
    assert_every_case(
        &j,
        "error",
        &format!(
            "the file tried to open {}",
            s.out.join("canary.txt").display()
        ),
    );
}

#[test]
fn deleting_outside_is_refused_and_named() {
    let s = Scene::new("delete_canary.pl");
    let (j, _) = s.judge(&SCRYER);
    let canary = s.out.join("canary.txt");
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to delete {}", canary.display()),
    );
    s.assert_untouched();
}

#[test]
fn starting_a_program_is_refused_and_named() {
    let s = Scene::new("shell.pl");
    let (j, _) = s.judge(&SCRYER);
    assert_every_case(
        &j,
        "error",
        "the file tried to start a program: not allowed while judging",
    );
    s.assert_untouched();
}

#[test]
fn the_environment_is_not_inherited() {
    // the file looks for the judge's secret, and for SHELL, which the judge's environment
    // lacks: it sees no secret, and the fixed SHELL of a confined engine
    let s = Scene::new("getenv.pl");
    let (j, _) = s.judge(&SCRYER);
    assert!(!j.verdicts.is_empty(), "no case judged");
    for (case, pred) in j.verdicts.keys() {
        assert_eq!(
            j.detail(case, pred),
            "uncaught exception: environment(no_secret,'/bin/sh')"
        );
    }
    s.assert_untouched();
}

#[test]
fn connecting_to_a_listener_is_refused_and_named() {
    let s = Scene::new("socket.pl");
    let (j, _) = s.judge(&SCRYER);
    assert_every_case(&j, "error", "the file tried to open a network connection");
    s.assert_untouched();
}

#[test]
fn memory_is_bounded_and_the_limit_named() {
    let s = Scene::new("memory.pl");
    let (j, _) = s.judge(&[
        "--prolog",
        "scryer",
        "--dialect",
        "scryer",
        "--memory",
        "1G",
    ]);
    assert_every_case(&j, "crashed", "memory limit 1 GiB reached");
    assert_eq!(
        j.detail("spec 6x6 testcase", "kenken"),
        "memory limit 1 GiB reached"
    );
    // no process this test waited for (the judge and its engines) grew past the limit
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let peak_kib = usage.max_rss();
    assert!(peak_kib < 1 << 20, "a child's peak was {peak_kib} KiB");
    s.assert_untouched();
}

#[test]
fn without_confinement_the_same_file_writes() {
    // what --no-confine means: the file runs with the user's rights
    let s = Scene::new("write_outside.pl");
    let (j, _) = s.judge(&["--prolog", "scryer", "--dialect", "scryer", "--no-confine"]);
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "wrong");
    assert!(s.out.join("new.txt").exists());
}

/// No process whose command line is `sleep 313` is alive.
fn no_sleep_313() -> bool {
    std::fs::read_dir("/proc").unwrap().all(|e| {
        let cmdline = e.unwrap().path().join("cmdline");
        std::fs::read(cmdline).map_or(true, |c| c != b"sleep\x00313\x00")
    })
}

#[test]
fn under_gnu_prolog_hostile_files_are_refused_too() {
    if !gprolog() {
        eprintln!("gprolog is not installed: skipped");
        return;
    }
    let gnu = ["--prolog", "gprolog"];
    let s = Scene::new("gnu_write_outside.pl");
    let (j, _) = s.judge(&gnu);
    let out = s.out.join("new.txt");
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to write {}", out.display()),
    );
    s.assert_untouched();

    let s = Scene::new("gnu_read_classmate.pl");
    let classmate = s.here.join("classmate.pl");
    std::fs::write(&classmate, "[[1]].\n").unwrap();
    let (j, _) = s.judge(&gnu);
    assert_every_case(
        &j,
        "error",
        &format!("the file tried to open {}", classmate.display()),
    );
    let (j, _) = s.judge(&[&gnu[..], &["--read", classmate.to_str().unwrap()]].concat());
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    std::fs::remove_file(&classmate).unwrap();
    s.assert_untouched();

    let s = Scene::new("gnu_delete.pl");
    let (j, _) = s.judge(&gnu);
    assert_every_case(&j, "error", "the file tried to delete a file");
    s.assert_untouched();

    // unlink/1 ignores a refusal: the file is intact, and the answers are judged as given
    let s = Scene::new("gnu_unlink.pl");
    let (j, _) = s.judge(&gnu);
    assert_eq!(j.verdict("spec: kenken(1, [], T)", "kenken"), "pass");
    assert_eq!(j.verdict("spec 6x6 testcase", "kenken"), "wrong");
    s.assert_untouched();

    let s = Scene::new("gnu_shell.pl");
    let (j, _) = s.judge(&gnu);
    assert_every_case(&j, "error", "the file tried to start a program");
    s.assert_untouched();

    let s = Scene::new("gnu_background.pl");
    let (j, took) = s.judge(&gnu);
    assert_every_case(&j, "error", "the file tried to start a program");
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(no_sleep_313());
    s.assert_untouched();
}
