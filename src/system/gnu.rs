//! GNU Prolog's installation, its compiler and its driver, for [`crate::system::Gprolog`]
//! (which runs each goal in a gprolog of its own: the `gprolog-fd`/`gprolog-plain` engines and
//! `kenken judge --prolog gprolog`).
//!
//! `consult/1` in gprolog starts its compiler `pl2wam` as a child process, which a confined
//! gprolog may not. So `pl2wam` is run first (by the owner's [`Start`], confined or not) on the
//! driver (`prolog/gnu_driver.pl`) and on the program, and each goal's gprolog only `load/1`s
//! the byte code. The driver reads its request ([`Gnu::request`]: the goal and a fresh nonce)
//! from standard input before it loads the program, and answers in frames that carry the nonce
//! ([`crate::process::Ticket`], read by `system::child`); everything else gprolog writes is the
//! program's printed output.
//! The nonce travels as four integers, never as an atom: an atom would stay in gprolog's atom
//! table, where the program could find it (`current_atom/1`) and write frames of its own.
//! Only the driver's compilation, which runs nothing of the program, may say that the child
//! cannot be confined: a line that says so later is the program's.
//! The driver's names get a random part for each [`Gnu`], so that a program cannot name them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::child::quoted_atom;
use super::SystemError;
use crate::process::{find_program, random_hex, Child, Ticket, WorkerError};

/// The driver: runs one goal of a loaded program, answering in frames.
const DRIVER_PL: &str = include_str!("../../prolog/gnu_driver.pl");

/// Where GNU Prolog is installed: its programs, with links resolved.
#[derive(Debug, Clone)]
pub(super) struct Install {
    /// The top level, which runs the byte code.
    pub(super) gprolog: PathBuf,
    /// The compiler to byte code.
    pub(super) pl2wam: PathBuf,
}

impl Install {
    /// `gprolog` on the `PATH`, and `pl2wam` beside it (or on the `PATH`).
    pub(super) fn find() -> Option<Install> {
        let gprolog = find_program("gprolog")?;
        let pl2wam = gprolog.parent()?.join("pl2wam");
        let pl2wam = if pl2wam.is_file() {
            pl2wam
        } else {
            find_program("pl2wam")?
        };
        Some(Install { gprolog, pl2wam })
    }

    /// What gprolog reads of its own: the folder above its programs' folder.
    pub(super) fn home(&self) -> Vec<PathBuf> {
        [&self.gprolog, &self.pl2wam]
            .iter()
            .filter_map(|p| Some(p.parent()?.parent()?.to_path_buf()))
            .collect()
    }
}

/// How an owner starts a program of the installation (`pl2wam`, with arguments): confined or
/// not, writing in the folder of the byte code, with its standard error captured and its
/// output capped.
pub(super) type Start<'a> = &'a dyn Fn(&Path, &[OsString]) -> Result<Child, WorkerError>;

/// The driver and one program, compiled to byte code in a folder, for one goal per process.
pub(super) struct Gnu {
    install: Install,
    dir: PathBuf,
    /// What the driver's names start with (`kk_drv_` and a random part).
    prefix: String,
}

impl Gnu {
    /// Byte code will be in `dir` (the owner's scratch folder).
    pub(super) fn new(install: Install, dir: &Path) -> Gnu {
        Gnu {
            install,
            dir: dir.to_path_buf(),
            prefix: format!("kk_drv_{}_", &random_hex()[..16]),
        }
    }

    /// The installation.
    pub(super) fn install(&self) -> &Install {
        &self.install
    }

    /// Compiles `source` to byte code `target` with pl2wam within `timeout`: its messages, and
    /// whether it succeeded.
    fn compile(
        &self,
        start: Start<'_>,
        source: &Path,
        target: &Path,
        timeout: Duration,
        ours: bool,
    ) -> Result<(String, bool), SystemError> {
        let args: Vec<OsString> = vec![
            "-w".into(),
            "--no-redef-error".into(),
            "-o".into(),
            target.into(),
            source.into(),
        ];
        let begun = Instant::now();
        let mut child = start(&self.install.pl2wam, &args)?;
        child.close_stdin();
        let (lines, ended) = child.collect(begun + timeout);
        let status = if ended { child.wait() } else { None };
        let stderr = child.stderr_text();
        // (only while compiling our own driver: a program's text is not the judge's words)
        if let Some(why) = cannot_confine(&lines, &stderr).filter(|_| ours) {
            return Err(SystemError::CannotConfine(why));
        }
        let Some(status) = status else {
            return Err(SystemError::Load(format!(
                "compiling did not end within {} s",
                timeout.as_secs_f64()
            )));
        };
        let mut text = lines.join("\n");
        if !stderr.trim().is_empty() {
            text = format!("{text}\n{}", stderr.trim());
        }
        Ok((
            text.trim().to_string(),
            status.success() && target.is_file(),
        ))
    }

    /// Compiles the driver, within `timeout`: its messages when it does not compile.
    pub(super) fn build_driver(
        &self,
        start: Start<'_>,
        timeout: Duration,
    ) -> Result<Result<(), String>, SystemError> {
        let driver = self.dir.join("driver.pl");
        std::fs::write(&driver, DRIVER_PL.replace("kk_drv_", &self.prefix))
            .map_err(|e| SystemError::Io(format!("writing {}: {e}", driver.display())))?;
        let (messages, ok) =
            self.compile(start, &driver, &self.dir.join("driver.wbc"), timeout, true)?;
        Ok(if ok { Ok(()) } else { Err(messages) })
    }

    /// Compiles the program `source` within `timeout`: the compiler's messages (naming
    /// `source`), and whether it compiled.
    pub(super) fn build_program(
        &self,
        start: Start<'_>,
        source: &Path,
        timeout: Duration,
    ) -> Result<(String, bool), SystemError> {
        // pl2wam writes the source's name into the byte code as it is, and gprolog cannot read
        // it back when the name holds a control character (a newline): such a file is
        // compiled from a copy with a plain name, and the messages name the file again
        let name = source.display().to_string();
        let plain = if name.chars().any(char::is_control) {
            let copy = self.dir.join("program-source.pl");
            std::fs::copy(source, &copy)
                .map_err(|e| SystemError::Io(format!("copying {name}: {e}")))?;
            copy
        } else {
            source.to_path_buf()
        };
        let (messages, ok) =
            self.compile(start, &plain, &self.dir.join("program.wbc"), timeout, false)?;
        Ok((messages.replace(&plain.display().to_string(), &name), ok))
    }

    /// The arguments of a gprolog that loads the driver and the program: `gprolog` itself, or
    /// (`no_fd`) a GNU Prolog built without its FD solver ([`build_no_fd`]).
    pub(super) fn args(&self, no_fd: bool) -> Vec<OsString> {
        let driver = self.dir.join("driver.wbc");
        let program = self.dir.join("program.wbc");
        if no_fd {
            return vec![
                driver.into(),
                program.into(),
                format!("{}main", self.prefix).into(),
            ];
        }
        let entry = format!(
            "load({}), {}main({})",
            quoted_atom(&driver),
            self.prefix,
            quoted_atom(&program)
        );
        vec!["--entry-goal".into(), entry.into()]
    }

    /// The request of `ticket` for `goal` (Prolog text binding `T`, in the spec's canonical
    /// terms), asking for at most `max` answers, as the driver reads it.
    pub(super) fn request(ticket: &Ticket, goal: &str, max: u64) -> String {
        format!(
            "kk_request({}, {}, T, ({goal}), {max}).",
            ticket.id(),
            nonce_integers(ticket.nonce()),
        )
    }
}

/// What a child that could not confine itself said of why.
fn cannot_confine(lines: &[String], stderr: &str) -> Option<String> {
    lines
        .iter()
        .map(String::as_str)
        .chain(stderr.lines())
        .find_map(|l| l.strip_prefix(crate::process::CANNOT_CONFINE))
        .map(str::to_string)
}

/// The entry of a GNU Prolog built without its FD solver: loads the driver's byte code (its
/// first argument), then calls the driver's main (the third) on the program's (the second).
const NO_FD_ENTRY: &str = "\
:- initialization(kk_no_fd_entry).
kk_no_fd_entry :-
    argument_value(1, Driver), argument_value(2, Program), argument_value(3, Main),
    load(Driver), Goal =.. [Main, Program], call(Goal).
";

/// Builds, in `dir` (a folder that lives as long as it is used, not a confined child's
/// scratch: that one forbids running programs), a GNU Prolog without its FD solver
/// (`gplc --no-fd-lib`): its FD built-ins do not exist, so a program that calls one gets an
/// existence error. `None` when `gplc` (or the C compiler it needs) is missing or fails
/// within `timeout`.
pub(super) fn build_no_fd(dir: &Path, timeout: Duration) -> Option<PathBuf> {
    let gplc = find_program("gplc")?;
    let source = dir.join("no_fd_entry.pl");
    std::fs::write(&source, NO_FD_ENTRY).ok()?;
    let target = dir.join("gprolog-no-fd");
    let args: Vec<OsString> = vec![
        "--no-fd-lib".into(),
        "--no-top-level".into(),
        "-o".into(),
        target.clone().into(),
        source.into(),
    ];
    // (our own program, no judged code: it runs as the user, with its output read away)
    let mut child = crate::process::Spawn::program(&gplc, &args)
        .current_dir(dir)
        .stderr(crate::process::Stderr::Capture)
        .output_cap(1 << 20)
        .spawn()
        .ok()?;
    child.close_stdin();
    let (_, ended) = child.collect(Instant::now() + timeout);
    let ok = ended && child.wait().is_some_and(|s| s.success());
    (ok && target.is_file()).then_some(target)
}

/// A nonce of hexadecimal digits as a Prolog list of integers, one per 8 digits (each below
/// 2^32), which the driver writes back as the same digits: no atom holds it.
fn nonce_integers(nonce: &str) -> String {
    let parts: Vec<String> = nonce
        .as_bytes()
        .chunks(8)
        .map(|c| {
            let digits = std::str::from_utf8(c).unwrap_or("0");
            u32::from_str_radix(digits, 16).unwrap_or(0).to_string()
        })
        .collect();
    format!("[{}]", parts.join(","))
}

/// Whether a GNU Prolog without FD solver can be built here (`gplc` is installed).
pub(super) fn no_fd_available() -> bool {
    find_program("gplc").is_some()
}

/// The syntax errors pl2wam reported while compiling `file` (its `messages`): (line, message).
pub(super) fn syntax_errors(file: &Path, messages: &str) -> Vec<(usize, String)> {
    let name = file.display().to_string();
    messages
        .lines()
        .filter(|l| l.contains("syntax error"))
        .filter_map(|l| {
            let rest = &l[l.find(&name)? + name.len()..];
            let rest = rest.strip_prefix(':')?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let line = digits.parse().ok()?;
            let message = l[l.find("syntax error")? + "syntax error".len()..]
                .trim_start_matches([':', ' '])
                .trim()
                .to_string();
            Some((line, message))
        })
        .collect()
}

/// What the compiler said of a file that compiled, less its chatter (`compiling ...`,
/// `... compiled, N lines read`), one message a line, ending with a newline when any.
pub(super) fn compiler_warnings(messages: &str) -> String {
    messages
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !(l.starts_with("compiling ") && l.ends_with("...")))
        .filter(|l| !l.contains(" compiled, "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A line of the banner gprolog prints as it starts (not the program's).
pub(super) fn is_banner(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("GNU Prolog ")
        || l.starts_with("Compiled ")
        || l == "By Daniel Diaz"
        || l.starts_with("Copyright (C)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_are_written_as_integers() {
        assert_eq!(
            nonce_integers("0000000a00000001ffffffff10000000"),
            "[10,1,4294967295,268435456]"
        );
    }

    #[test]
    fn syntax_errors_are_read_from_the_compilers_messages() {
        assert_eq!(
            syntax_errors(
                Path::new("/t/bad.pl"),
                "/t/bad.pl:12:5: syntax error: . or operator expected after expression"
            ),
            vec![(12, ". or operator expected after expression".to_string())]
        );
        assert_eq!(
            compiler_warnings("compiling /t/a.pl for byte code...\n/t/a.pl:3: warning: x\n/t/a.pl compiled, 9 lines read - 1 bytes written, 2 ms\n"),
            "/t/a.pl:3: warning: x\n"
        );
    }
}
