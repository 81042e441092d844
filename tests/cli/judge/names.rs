//! A report cannot lie about names (issue #53, point 3): a name with a zero-width space or a
//! right-to-left mark is shown with it written out in every output (no two names read the
//! same), a CSV cell a spreadsheet would take for a formula is neutralised, a name that is not
//! UTF-8 is judged and shown escaped, and the command that judges a file again means that file
//! and runs nothing else, whatever it is named. The class runs judge named pipes (rows, no
//! engine): only two files are judged, on one 1x1 case.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use serde_json::Value;

use super::kenken;

/// Names that read like others, or that a spreadsheet reads as a formula.
const NAMES: [&str; 4] = [
    "ann\u{200b}.pl",
    "\u{200f}bob.pl",
    "=HYPERLINK(\"x\").pl",
    "carl;=cmd.pl",
];

/// What no output may hold raw: the zero-width space and the right-to-left mark.
fn holds_invisible(text: &str) -> bool {
    text.contains(['\u{200b}', '\u{200f}'])
}

/// `kenken judge NAMES... --output OUTPUT`, run in `dir`: its standard output.
fn class_output(dir: &Path, output: &str) -> String {
    let out = kenken()
        .current_dir(dir)
        .arg("judge")
        .args(NAMES)
        .args(["--output", output, "--shrink-time", "0", "--suite", "spec"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{output}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn names_that_read_alike_are_told_apart_and_no_cell_is_a_formula() {
    let dir = tempfile::tempdir().unwrap();
    for name in NAMES {
        nix::unistd::mkfifo(&dir.path().join(name), nix::sys::stat::Mode::S_IRWXU).unwrap();
    }
    for output in ["table", "json", "html", "junit", "csv"] {
        let text = class_output(dir.path(), output);
        assert!(!holds_invisible(&text), "{output}: {text:?}");
        // (JSON writes the backslash of the escape doubled)
        let text = text.replace("\\\\", "\\");
        assert!(text.contains("ann\\u{200b}.pl"), "{output}: {text}");
        assert!(text.contains("\\u{200f}bob.pl"), "{output}: {text}");
    }
    let json = class_output(dir.path(), "json");
    let files: Vec<String> = json
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|v| v["file"].as_str().map(String::from))
        .collect();
    assert_eq!(files[0], "ann\\u{200b}.pl");
    let csv = class_output(dir.path(), "csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert!(
        rows[3].starts_with("\"'=HYPERLINK(\"\"x\"\").pl\","),
        "{}",
        rows[3]
    );
    assert!(rows[4].starts_with("\"carl;'=cmd.pl\","), "{}", rows[4]);
}

#[test]
fn a_name_that_is_no_utf8_is_judged_and_the_command_again_runs_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let canary = dir.path().join("pwned");
    let mut name = b"it's $(touch pwned) `touch pwned`\xe2\x80\x8b".to_vec();
    name.extend(b"\xff.pl");
    let file = dir.path().join(OsStr::from_bytes(&name));
    std::fs::write(&file, "kenken(1, _, [[1]]).\n").unwrap();
    let out = kenken()
        .current_dir(dir.path())
        .arg("judge")
        .arg(&file)
        .args([
            "--output",
            "gradescope",
            "--shrink-time",
            "0",
            "--suite",
            "spec",
        ])
        .args([
            "--only",
            "kenken(1,",
            "--predicates",
            "kenken",
            "--prolog",
            "scryer",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("\\u{200b}\\xff.pl"), "{output}");
    // the command, between its backquotes: read by a shell, its third word is the file
    // (the name holds backquotes too: the command is what stands between the first
    // "`kenken judge " and "` makes the same cases again")
    let command = output
        .split_once("`kenken judge ")
        .and_then(|(_, rest)| rest.split_once("` makes the same cases again"))
        .map(|(c, _)| format!("kenken judge {c}"))
        .unwrap_or_else(|| panic!("{output}"));
    for kept in [
        "--prolog scryer",
        "--suite spec",
        "--predicates kenken",
        "--only 'kenken(1,'",
    ] {
        assert!(command.contains(kept), "{command}");
    }
    let read = std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!("set -- {command}; printf '%s' \"$3\""))
        .output()
        .unwrap();
    assert_eq!(read.stdout, file.as_os_str().as_bytes(), "{command}");
    assert!(!canary.exists(), "{command}");
}
