//! What judged code may do, and what the judge says when it tried to do more.
//!
//! A judged file runs confined ([`crate::process::confine`]): it reads itself (not its folder:
//! a class's files often share one), what the judge was told it may read too, and the system's
//! libraries, writes only in a fresh scratch directory of its own (a private tmpfs bounding all
//! it writes together, gone afterwards), sees no `/proc`, starts no program, opens no
//! connection, and runs within limits of memory, CPU time and file size.
//! The kernel refuses the rest; here the refusals and the limits become verdicts a person
//! understands: `error: the file tried to write /home/ann/x: not allowed
//! while judging`, `crashed: memory limit 2 GiB reached`.

use std::path::{Path, PathBuf};

use super::verdict::RunEnd;
use crate::process::Limits;
use crate::system::ChildSetup;

/// The longest frame (an answer) read from a judged child system: a 9x9 grid takes some 200
/// bytes.
const JUDGED_FRAME_CAP: usize = 4096;

/// The rules a judged file runs under (none when judging with `--no-confine`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Jail {
    /// The limits of each engine process.
    pub limits: Limits,
    /// Files and folders judged code may read besides the judged file ([`super::Config::read`]).
    pub also_read: Vec<PathBuf>,
    /// Files judged code may never read, whatever else says it may (links resolved): the
    /// judge's own program (which holds the reference solvers) and the other files of a class.
    pub hidden: Vec<PathBuf>,
}

impl Jail {
    /// How a child system of the seam ([`crate::system`]) that judges a file is started under
    /// `jail` (unconfined without one): its limits, what it may read besides the judged file
    /// and its own installation (what the judge was told, less the judge's own program and
    /// the class's files), and the judge's caps.
    pub(crate) fn child_setup(jail: Option<&Jail>) -> ChildSetup {
        ChildSetup {
            limits: jail.map_or_else(Limits::default, |j| j.limits),
            read: jail.map_or_else(Vec::new, |j| narrow(&j.also_read, &j.hidden)),
            // (and never through the system's folders either)
            hidden: jail.map_or_else(Vec::new, |j| j.hidden.clone()),
            frame_cap: JUDGED_FRAME_CAP,
            confined: jail.is_some(),
            ..ChildSetup::default()
        }
    }

    /// Every file and folder a judged engine may read besides the system's: `read` (the judged
    /// file, the engine's own files) and what the judge was told it may read too.
    pub(crate) fn readable(&self, mut read: Vec<PathBuf>) -> Vec<PathBuf> {
        read.extend(self.also_read.iter().cloned());
        read
    }
}

/// The judge's own programs (this one, and the one workers run), links resolved: no judged
/// code may read them (the program holds the reference solvers as text).
pub(crate) fn own_programs() -> Vec<PathBuf> {
    let mut own: Vec<PathBuf> = [
        std::env::current_exe().ok(),
        crate::process::worker_program().ok(),
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| std::fs::canonicalize(p).ok())
    .collect();
    own.dedup();
    own
}

pub(crate) use crate::process::confine::narrow;

/// A size for a person: `2 GiB`, `512 MiB`, `64 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if bytes >= unit {
            let v = bytes as f64 / unit as f64;
            return if bytes.is_multiple_of(unit) {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{v:.1} {name}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Parses a size: `2G`, `512M`, `512MiB`, `1.5 GiB`, `100000` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 2G, 512M)"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("'{text}': unknown unit (use K, M or G)")),
    };
    let bytes = value * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("'{text}' is not a size (e.g. 2G, 512M)"));
    }
    Ok(bytes as u64)
}

/// Why a judged engine that died died, when a limit explains it: `memory limit 2 GiB
/// reached`. `status` is how it ended (as [`crate::process::status_text`] writes it) and
/// `stderr` what it wrote last.
fn limit_reached(status: &str, stderr: &str, limits: &Limits) -> Option<String> {
    let memory = || format!("memory limit {} reached", size_text(limits.memory));
    if status.contains("SIGXCPU") {
        return Some(format!("CPU time limit ({} s) reached", limits.cpu_seconds));
    }
    if status.contains("SIGXFSZ") {
        return Some(format!(
            "file size limit {} reached",
            size_text(limits.file_size)
        ));
    }
    let text = stderr.to_ascii_lowercase();
    let out_of_memory = [
        "memory allocation of",
        "memory allocation fault",
        "cannot allocate memory",
        "out of memory",
        "failed to allocate",
        "capacity overflow",
    ];
    if out_of_memory.iter().any(|m| text.contains(m)) {
        return Some(memory());
    }
    None
}

/// How a case whose goal raised `exception` ends: [`RunEnd::Blocked`] when confinement (`jail`)
/// refused what it tried (see [`blocked_action`]; `read` as given to [`Jail::confinement`]),
/// else [`RunEnd::Exception`].
pub(crate) fn exception_end(
    jail: Option<&Jail>,
    exception: String,
    scratch: &Path,
    read: &[PathBuf],
) -> RunEnd {
    let blocked = jail.and_then(|j| {
        let mut readable = j.readable(read.to_vec());
        readable.extend(crate::process::confine::system_paths());
        blocked_action(&exception, scratch, &readable)
    });
    match (blocked, jail) {
        (Some(what), _) => RunEnd::Blocked(what),
        (None, Some(j)) => scratch_full(exception, &j.limits),
        (None, None) => RunEnd::Exception(exception),
    }
}

/// How a case whose goal raised `exception` ends when the scratch space may explain it: a
/// write refused for want of space is [`RunEnd::OverLimit`]; Scryer's word for any write that
/// failed (`existence_error(stream, S)`) gets the hint that the space may be full.
fn scratch_full(exception: String, limits: &Limits) -> RunEnd {
    let lower = exception.to_ascii_lowercase();
    let space = size_text(limits.scratch);
    if ["no space left", "enospc", "disk full"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return RunEnd::OverLimit(format!(
            "scratch space limit {space} reached (the files it wrote, all together)"
        ));
    }
    if lower.contains("existence_error(stream,") {
        return RunEnd::Exception(format!(
            "{exception} (a write that failed: was the scratch space of {space} full?)"
        ));
    }
    RunEnd::Exception(exception)
}

/// How a case ends whose engine died (`status` as [`crate::process::status_text`] writes it,
/// the end of its `stderr`), when confinement explains the death: [`RunEnd::Blocked`] for a
/// process or program it tried to start, [`RunEnd::OverLimit`] at a limit; `None` otherwise.
pub(crate) fn death_end(jail: Option<&Jail>, status: &str, stderr: &str) -> Option<RunEnd> {
    let jail = jail?;
    killed_for(status)
        .map(RunEnd::Blocked)
        .or_else(|| limit_reached(status, stderr, &jail.limits).map(RunEnd::OverLimit))
}

/// What a judged engine killed by the kernel tried: confinement kills a process that starts
/// another process or program (`SIGSYS`).
fn killed_for(status: &str) -> Option<String> {
    status
        .contains("SIGSYS")
        .then(|| "the file tried to start a program".to_string())
}

/// What a judged file tried that confinement refused, read from the exception its goal
/// raised (as Prolog writes it): `the file tried to write /home/ann/x`. `readable` are the
/// files and folders it may read (an `open` refused there, or of a file that does not exist,
/// was a write). `None` for any other exception.
fn blocked_action(exception: &str, scratch: &Path, readable: &[PathBuf]) -> Option<String> {
    let lower = exception.to_ascii_lowercase();
    let os_refused = ["permission denied", "operation not permitted"]
        .iter()
        .any(|d| lower.contains(d));
    let context = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let refused_access = lower.contains("permission_error")
        && context(&["source_sink", "file", "directory", "socket"]);
    if !(refused_access || os_refused) {
        return None;
    }
    if context(&["socket", "tcp", "connect"]) {
        return Some("the file tried to open a network connection".into());
    }
    if context(&[
        "shell",
        "spawn",
        "exec",
        "popen",
        "system(",
        "process_create",
        "fork",
    ]) {
        return Some("the file tried to start a program".into());
    }
    let path = quoted_path(exception);
    if path
        .as_deref()
        .is_some_and(|p| Path::new(p).starts_with(scratch))
    {
        // inside its own scratch folder a refusal is the file's own business
        return None;
    }
    let verb = if context(&["delete", "unlink"]) {
        "delete"
    } else if context(&["rename"]) {
        "rename"
    } else if context(&["make_directory", "mkdir"]) {
        "make a folder"
    } else if context(&["open", "source_sink", "phrase_from_file", "see", "tell"]) {
        // (the exception does not say how it opened: where it may read, or where nothing is
        // to be read, the open refused was a write)
        match &path {
            Some(p) if readable.iter().any(|r| Path::new(p).starts_with(r)) => "write",
            Some(p) if !Path::new(p).exists() => "write",
            _ => "open",
        }
    } else {
        return Some(format!(
            "the file tried something confinement refused ({exception})"
        ));
    };
    Some(match path {
        Some(p) => format!("the file tried to {verb} {p}"),
        None if verb == "make a folder" => "the file tried to make a folder".into(),
        None => format!("the file tried to {verb} a file"),
    })
}

/// The first absolute path quoted in `text` ('/x/y' or "/x/y", or a path in a list of chars).
pub(crate) fn quoted_path(text: &str) -> Option<String> {
    for q in ['\'', '"'] {
        let mut rest = text;
        while let Some(i) = rest.find(q) {
            let after = &rest[i + 1..];
            let Some(j) = after.find(q) else { break };
            let inner = &after[..j];
            if inner.starts_with('/') {
                return Some(inner.to_string());
            }
            rest = &after[j + 1..];
        }
    }
    // a bare atom: the first word starting with '/'
    text.split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
        .find(|w| w.starts_with('/') && w.len() > 1)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_and_write() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5 GiB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("2X").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(size_text(2 << 30), "2 GiB");
        assert_eq!(size_text(3 << 29), "1.5 GiB");
        assert_eq!(size_text(64 << 20), "64 MiB");
        assert_eq!(size_text(100), "100 bytes");
    }

    #[test]
    fn limits_explain_deaths() {
        let l = Limits::default();
        assert_eq!(
            limit_reached(
                "killed by SIGABRT",
                "memory allocation of 8589934592 bytes failed\n",
                &l
            )
            .as_deref(),
            Some("memory limit 2 GiB reached")
        );
        assert_eq!(
            limit_reached("killed by SIGXCPU", "", &l).as_deref(),
            Some("CPU time limit (3600 s) reached")
        );
        assert_eq!(
            limit_reached("killed by SIGXFSZ", "", &l).as_deref(),
            Some("file size limit 64 MiB reached")
        );
        assert_eq!(limit_reached("killed by SIGSEGV", "", &l), None);
    }

    #[test]
    fn a_full_scratch_is_named() {
        let l = Limits::default();
        assert_eq!(
            scratch_full(
                "error(system_error('No space left on device'),write/2)".into(),
                &l
            ),
            RunEnd::OverLimit(
                "scratch space limit 64 MiB reached (the files it wrote, all together)".into()
            )
        );
        assert_eq!(
            scratch_full(
                "error(existence_error(stream,'$stream'(0x1)),open/4)".into(),
                &l
            ),
            RunEnd::Exception(
                "error(existence_error(stream,'$stream'(0x1)),open/4) (a write that failed: \
                 was the scratch space of 64 MiB full?)"
                    .into()
            )
        );
        assert_eq!(
            scratch_full("error(type_error(integer,a),is/2)".into(), &l),
            RunEnd::Exception("error(type_error(integer,a),is/2)".into())
        );
    }

    #[test]
    fn a_judged_process_writes_in_a_bounded_private_scratch() {
        let jail = Jail {
            limits: Limits::default(),
            also_read: Vec::new(),
            hidden: Vec::new(),
        };
        let setup = Jail::child_setup(Some(&jail));
        assert!(setup.confined);
        assert_eq!(setup.frame_cap, 4096);
        assert!(!Jail::child_setup(None).confined);
    }

    #[test]
    fn refusals_name_the_action_and_the_path() {
        let scratch = Path::new("/tmp/kenken-judge-x");
        let readable = [PathBuf::from("/home/ann/class")];
        let blocked = |e: &str| blocked_action(e, scratch, &readable);
        // an open refused: of a file that exists, where it may not read, an open; of one
        // that does not exist, or where it may read, a write
        let dir = tempfile::tempdir().unwrap();
        let there = dir.path().join("x");
        std::fs::write(&there, "").unwrap();
        assert_eq!(
            blocked(&format!(
                "error(permission_error(open,source_sink,'{}'),open/4)",
                there.display()
            )),
            Some(format!("the file tried to open {}", there.display()))
        );
        assert_eq!(
            blocked("error(permission_error(open,source_sink,'/home/ann/x'),open/4)").as_deref(),
            Some("the file tried to write /home/ann/x")
        );
        assert_eq!(
            blocked("error(permission_error(open,source_sink,'/home/ann/class/out'),open/4)")
                .as_deref(),
            Some("the file tried to write /home/ann/class/out")
        );
        assert_eq!(
            blocked("error(system_error('Permission denied'),delete_file/2)").as_deref(),
            Some("the file tried to delete a file")
        );
        assert_eq!(
            blocked("error(permission_error(delete,file,'/home/ann/x'),delete_file/1)").as_deref(),
            Some("the file tried to delete /home/ann/x")
        );
        assert_eq!(
            blocked("error(system_error('shell: Operation not permitted'),shell/2)").as_deref(),
            Some("the file tried to start a program")
        );
        assert_eq!(
            blocked("error(permission_error(open,socket,'127.0.0.1':9),socket_client_open/3)")
                .as_deref(),
            Some("the file tried to open a network connection")
        );
        // inside the scratch directory, a refusal is the file's own business
        assert_eq!(
            blocked("error(permission_error(open,source_sink,'/tmp/kenken-judge-x/a'),open/4)"),
            None
        );
        assert_eq!(blocked("error(type_error(integer,a),is/2)"), None);
        // a refusal of Prolog's own is no confinement's
        assert_eq!(
            blocked("error(permission_error(modify,static_procedure,foo/1),assertz/1)"),
            None
        );
    }

    #[test]
    fn read_paths_are_narrowed_around_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(d.join("class/ann")).unwrap();
        std::fs::create_dir_all(d.join("class/data")).unwrap();
        for f in [
            "class/ann/kenken.pl",
            "class/bob.pl",
            "class/helper.pl",
            "class/data/x",
        ] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let hidden = vec![d.join("class/ann/kenken.pl"), d.join("class/bob.pl")];
        let mut kept = narrow(&[d.join("class")], &hidden);
        kept.sort();
        assert_eq!(
            kept,
            vec![d.join("class/data"), d.join("class/helper.pl")],
            "the folder is replaced by what it holds but the hidden files"
        );
        // a hidden file itself, or a path below none: as it is, or left out
        assert!(narrow(&[d.join("class/bob.pl")], &hidden).is_empty());
        assert_eq!(
            narrow(&[d.join("class/data")], &hidden),
            vec![d.join("class/data")]
        );
        // through a link, the same
        std::os::unix::fs::symlink(d.join("class"), d.join("link")).unwrap();
        let mut kept = narrow(&[d.join("link")], &hidden);
        kept.sort();
        assert_eq!(kept, vec![d.join("class/data"), d.join("class/helper.pl")]);
    }
}
