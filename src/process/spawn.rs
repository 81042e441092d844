//! How to start a child: a program or a worker role, its environment, its confinement, where
//! its standard error goes and the caps on its output.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::channel::{open_replies, Fifos, RequestPipe, CHANNEL_VAR};
use super::child::{Child, Input};
use super::lines::{keep_start, read_lines};
use super::{confine, lifecycle};
use super::{Confinement, WorkerError, EXEC_ROLE, EXEC_VAR, FRAME_CAP, ROLE_VAR};
use crate::error::Context;

static PROGRAM: Mutex<Option<PathBuf>> = Mutex::new(None);
/// Whether [`crate::worker::init`] ran in this process: a program that never called it cannot
/// serve as a worker (started as one, it would run its own `main` again).
static INIT_CALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that [`crate::worker::init`] ran in this process.
pub(crate) fn init_called() {
    INIT_CALLED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Makes workers run `program` (which must call [`crate::worker::init`] first thing) instead of
/// this program.
pub fn set_program(program: PathBuf) {
    if let Ok(mut p) = PROGRAM.lock() {
        *p = Some(program);
    }
}

/// The program workers run: the one [`set_program`] named, or this one.
pub(crate) fn worker_program() -> Result<PathBuf, WorkerError> {
    match PROGRAM.lock().ok().and_then(|p| p.clone()) {
        Some(p) => Ok(p),
        None => Ok(std::env::current_exe().context("finding this program")?),
    }
}

/// Finds `name` on the `PATH`, as an absolute path with links resolved.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// What a child's standard error is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stderr {
    /// This process's own.
    Inherit,
    /// A pipe whose first [`STDERR_CAP`](super::STDERR_CAP) bytes are kept.
    Capture,
}

/// How to start a child: a program or a worker role, its environment and its confinement.
pub struct Spawn {
    command: std::process::Command,
    /// Shares this process's terminal: standard input and output inherited, and this
    /// process's group (so that Ctrl-C reaches it, as any job of a shell).
    terminal: bool,
    stderr: Stderr,
    /// At most this many bytes of standard output are read; past it the child is killed.
    output_cap: usize,
    /// The longest frame read; past it the child is killed.
    frame_cap: usize,
}

/// The environment of a confined child, besides what its [`Spawn`] sets (`HOME` and `TMPDIR`
/// are its scratch directory).
pub(crate) const CONFINED_ENV: [(&str, &str); 3] = [
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("SHELL", "/bin/sh"),
    ("LANG", "C.UTF-8"),
];

impl Spawn {
    /// A child running `program` with `args`: this program in the `exec` role (which makes the
    /// child die with its parent, then `exec`s `program`: see `docs/processes.md`), or, in a
    /// program that cannot start workers (it never called [`crate::worker::init`]), `program`
    /// itself, which then does not die with its parent.
    pub fn program(program: &Path, args: &[OsString]) -> Spawn {
        match Spawn::exec(program, args) {
            Ok(s) => s,
            Err(_) => Spawn::direct(program, args),
        }
    }

    /// `program` with `args`, started as it is.
    fn direct(program: &Path, args: &[OsString]) -> Spawn {
        let mut command = lifecycle::command(program);
        command.args(args);
        Spawn {
            command,
            terminal: false,
            stderr: Stderr::Inherit,
            output_cap: usize::MAX,
            frame_cap: FRAME_CAP,
        }
    }

    /// This program (or the one [`set_program`] named) started as a worker of `role`.
    pub(crate) fn worker(role: &str) -> Result<Spawn, WorkerError> {
        let init_called = INIT_CALLED.load(std::sync::atomic::Ordering::Relaxed);
        if std::env::var_os(ROLE_VAR).is_some() && !init_called {
            return Err(WorkerError::Protocol(
                "this process was started as a kenken worker, but its main did not call \
                 kenken::worker::init() first"
                    .into(),
            ));
        }
        let named = PROGRAM.lock().map(|p| p.is_some()).unwrap_or(false);
        if !named && !init_called {
            return Err(WorkerError::Protocol(format!(
                "this program cannot start a kenken worker (for the {role} role): call \
                 kenken::worker::init() first thing in main, or name a program that does with \
                 kenken::worker::set_program"
            )));
        }
        let mut s = Spawn::direct(&worker_program()?, &[]);
        s.command.env(ROLE_VAR, role);
        Ok(s)
    }

    /// `program` with `args`, run by this program in the `exec` role (which `exec`s it).
    fn exec(program: &Path, args: &[OsString]) -> Result<Spawn, WorkerError> {
        let mut s = Spawn::worker(EXEC_ROLE)?;
        s.command.env(EXEC_VAR, program).args(args);
        Ok(s)
    }

    /// `program` with `args`, run by a worker that confines itself first (`exec` keeps the
    /// confinement).
    pub(crate) fn confined_exec(
        program: &Path,
        args: &[OsString],
        confinement: &Confinement,
    ) -> Result<Spawn, WorkerError> {
        Spawn::exec(program, args)?.confine(confinement)
    }

    /// Confines the child (it applies `confinement` to itself before anything else); its
    /// working directory, `HOME` and `TMPDIR` become the scratch directory.
    ///
    /// The child inherits none of this process's environment (which may hold the user's
    /// secrets): it gets the variables set on this `Spawn` so far and a fixed few, the same on
    /// every machine ([`CONFINED_ENV`]). `SHELL` is among them, so that code which would start
    /// a program through the shell tries to, and is stopped and named by the confinement,
    /// rather than failing quietly where the user has no `SHELL` set.
    pub(crate) fn confine(mut self, confinement: &Confinement) -> Result<Spawn, WorkerError> {
        let text = serde_json::to_string(confinement).context("encoding the confinement")?;
        let set: Vec<(OsString, OsString)> = self
            .command
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
            .collect();
        self.command
            .env_clear()
            .envs(set)
            .envs(CONFINED_ENV.iter().copied());
        self.command
            .env(confine::CONFINE_VAR, text)
            .env("HOME", &confinement.scratch);
        Ok(self.current_dir(&confinement.scratch))
    }

    /// Sets an environment variable of the child.
    pub fn env(mut self, key: &str, value: &str) -> Spawn {
        self.command.env(key, value);
        self
    }

    /// Gives the child this process's terminal (standard input and output) and process group:
    /// for a child that runs the user's own goals in the foreground. Killing it kills only it.
    /// Its requests and replies then go through two named pipes instead (see `channel.rs`),
    /// read and written as a child's standard input and output are.
    pub fn terminal(mut self) -> Spawn {
        self.terminal = true;
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Spawn
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets the child's working directory and `TMPDIR`.
    pub(crate) fn current_dir(mut self, dir: &Path) -> Spawn {
        self.command.current_dir(dir).env("TMPDIR", dir);
        self
    }

    /// Where the child's standard error goes.
    pub(crate) fn stderr(mut self, stderr: Stderr) -> Spawn {
        self.stderr = stderr;
        self
    }

    /// Reads at most `cap` bytes of standard output.
    pub(crate) fn output_cap(mut self, cap: usize) -> Spawn {
        self.output_cap = cap;
        self
    }

    /// Reads frames of at most `cap` bytes.
    pub(crate) fn frame_cap(mut self, cap: usize) -> Spawn {
        self.frame_cap = cap;
        self
    }

    /// Starts the child: the leader of a new process group, with piped standard output, unless
    /// it shares the terminal.
    pub fn spawn(mut self) -> Result<Child, WorkerError> {
        let name = self.command.get_program().to_string_lossy().into_owned();
        if self.terminal {
            self.command
                .stdin(Stdio::inherit())
                .stdout(Stdio::inherit());
        } else {
            self.command
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped());
        }
        self.command.stderr(match self.stderr {
            Stderr::Inherit => Stdio::inherit(),
            Stderr::Capture => Stdio::piped(),
        });
        let channel = if self.terminal {
            let fifos = Fifos::new()?;
            self.command.env(CHANNEL_VAR, fifos.dir());
            Some(fifos)
        } else {
            None
        };
        let mut child =
            lifecycle::start(self.command).with_context(|| format!("starting {name}"))?;
        let stdin = match (child.stdin.take(), &channel) {
            (Some(s), _) => Input::Stdin(s),
            (None, Some(c)) => Input::Fifo(RequestPipe::new(c.requests())),
            (None, None) => Input::Closed,
        };
        let stdout = child.stdout.take();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err_reader = child.stderr.take().map(|e| {
            let kept = stderr.clone();
            std::thread::spawn(move || keep_start(e, &kept))
        });
        let (tx, lines) = mpsc::sync_channel(4);
        let (cap, frame_cap) = (self.output_cap, self.frame_cap);
        if let Some(out) = stdout {
            std::thread::spawn(move || read_lines(out, cap, frame_cap, &tx));
        } else if let Some(c) = &channel {
            let replies = c.replies();
            std::thread::spawn(move || {
                if let Ok(out) = open_replies(&replies) {
                    read_lines(out, cap, frame_cap, &tx);
                }
            });
        }
        Ok(Child {
            group: !self.terminal,
            child,
            stdin,
            channel,
            lines,
            stderr,
            err_reader,
            status: None,
            printed: Vec::new(),
            printed_len: 0,
            overflowed: false,
            last_at: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_never_called_init_starts_no_worker() {
        // this test program never calls worker::init nor names another program: no child is
        // started (it would run this program's main again), and the error says what to do
        let e = Spawn::worker("query").err().expect("a worker spawn");
        assert!(
            e.to_string()
                .contains("call kenken::worker::init() first thing in main"),
            "{e}"
        );
    }
}
