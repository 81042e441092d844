//! One lifecycle for every child process: it dies with its parent, however the parent ends
//! (it returns, panics, aborts, or is killed, even by `SIGKILL`), and it is killed with its
//! process group when its [`super::Child`] is dropped.
//!
//! - **One place starts processes.** [`start`] is the only call that forks: it hands the
//!   command to one long-lived thread of this process, the spawner, which starts it. The
//!   kernel's parent-death signal (`PR_SET_PDEATHSIG`) fires when the *thread* that forked the
//!   child ends, not the process: children are often started from short-lived threads (a warm
//!   spare's start-up, a judge's job, a bench thread), whose end must not kill them. The
//!   spawner never ends before the process does.
//! - **Every child is this program first.** A child of another program (GNU Prolog, its
//!   compiler, a shell) is started as this program in the `exec` role, which sets the signal
//!   and then `exec`s the program ([`super::Spawn::program`]): `exec` keeps the signal (but
//!   not for set-user-id programs), as it keeps the confinement.
//! - **The child sets the signal itself**, first thing ([`die_with_parent`], called by
//!   [`crate::worker::init`]): `SIGKILL` when its parent ends. Its parent may have ended
//!   before then: the parent's process id comes in [`PARENT_VAR`], and a child whose parent is
//!   another process by then exits at once.
//! - **Grandchildren** die the same way: each child of ours sets its own signal (the top
//!   level's relay of standard input, a worker's own children), and a child leads a process
//!   group of its own, killed whole when it is dropped.
//!
//! No `unsafe` is needed: the signal is set by the child, not between `fork` and `exec`.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::{Mutex, OnceLock};

use nix::sys::signal::Signal;

use super::{confine, EXEC_VAR, ROLE_VAR};

/// The environment variable that gives a child its parent's process id: a child whose parent
/// is another process by the time it sets its parent-death signal exits at once.
pub(crate) const PARENT_VAR: &str = "KENKEN_PARENT";
/// The exit code of a child whose parent ended before it could set its parent-death signal.
const ORPHAN_EXIT: i32 = 96;

/// A command to start, and where the spawner sends the child (or why it could not start).
type Job = (Command, SyncSender<std::io::Result<std::process::Child>>);

/// The spawner's queue, created with the spawner on the first start.
static SPAWNER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();

/// Starts `command` from the spawner thread, with [`PARENT_VAR`] set to this process.
///
/// Every child process is started here (see the module's documentation); what it is started
/// with (its pipes, process group, environment) is the command's.
pub(crate) fn start(mut command: Command) -> std::io::Result<std::process::Child> {
    command.env(PARENT_VAR, std::process::id().to_string());
    let spawner = SPAWNER.get_or_init(|| Mutex::new(spawner()));
    let (tx, rx) = mpsc::sync_channel(1);
    spawner
        .lock()
        .map_err(|_| std::io::Error::other("the spawner's queue is poisoned"))?
        .send((command, tx))
        .map_err(|_| std::io::Error::other("the spawner thread has stopped"))?;
    rx.recv()
        .map_err(|_| std::io::Error::other("the spawner thread has stopped"))?
}

/// Starts the spawner thread: it starts every command sent to it, for the life of the process
/// (its queue is held by [`SPAWNER`], which is never dropped). Should no thread be available, the
/// queue's receiver is dropped and every start fails with an error.
fn spawner() -> Sender<Job> {
    let (tx, rx) = mpsc::channel::<Job>();
    let _ = std::thread::Builder::new()
        .name("kenken-spawner".into())
        // (it only forks: a small stack is enough)
        .stack_size(256 << 10)
        .spawn(move || {
            for (mut command, reply) in rx {
                // (a start that panics fails alone: the spawner serves the next)
                let started =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| command.spawn()))
                        .unwrap_or_else(|_| {
                            Err(std::io::Error::other("starting the process failed"))
                        });
                let _ = reply.send(started);
            }
        });
    tx
}

/// A command that runs `program`: every child's command is built here, to be started by
/// [`start`].
pub(super) fn command(program: &Path) -> Command {
    Command::new(program)
}

/// Serves the `exec` role: replaces this (already confined) process by the program
/// `KENKEN_EXEC` names, with this process's arguments; it keeps the confinement and the
/// parent-death signal. Returns only on failure.
pub(crate) fn exec_from_env() -> std::io::Error {
    let Some(program) = std::env::var_os(EXEC_VAR).filter(|p| !p.is_empty()) else {
        return std::io::Error::other("no program to run");
    };
    let e = Command::new(&program)
        .args(std::env::args_os().skip(1))
        .env_remove(ROLE_VAR)
        .env_remove(EXEC_VAR)
        .env_remove(confine::CONFINE_VAR)
        .exec();
    std::io::Error::new(
        e.kind(),
        format!("cannot run {}: {e}", Path::new(&program).display()),
    )
}

/// The parent this process was started by, as [`PARENT_VAR`] said (`Some(None)`: a child of
/// ours whose parent did not say; unset: not a child of ours).
static PARENT: OnceLock<Option<i32>> = OnceLock::new();

/// The child's side: when this process was started as a child of ours (the process layer set
/// [`PARENT_VAR`], or [`ROLE_VAR`] names a role), it asks the kernel to `SIGKILL` it when its
/// parent ends, and exits at once should its parent have ended already. Called first thing in
/// `main` (by [`crate::worker::init`]), while no other thread runs.
///
/// [`PARENT_VAR`] is removed from the environment, so that a program this one starts in its
/// turn (not through the process layer) is not taken for a child of its grandparent.
pub(crate) fn die_with_parent() {
    let parent = std::env::var(PARENT_VAR).ok();
    if parent.is_none() && std::env::var_os(ROLE_VAR).is_none() {
        return;
    }
    std::env::remove_var(PARENT_VAR);
    // (an id that is no number is no parent's: as a parent that ended)
    let parent = parent.map(|p| p.trim().parse::<i32>().unwrap_or(0));
    let _ = PARENT.set(parent);
    still_with_parent();
}

/// Makes sure, when this process is a child of ours, that it still dies with its parent and
/// that its parent is still the one that started it; exits at once otherwise. Called again
/// once the child confined itself (a change of credentials clears the signal).
pub(crate) fn still_with_parent() {
    let Some(parent) = PARENT.get() else {
        return;
    };
    let set = nix::sys::prctl::get_pdeathsig().is_ok_and(|s| s == Some(Signal::SIGKILL));
    if !set {
        if let Err(e) = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL) {
            eprintln!("kenken: cannot ask to die with the parent process: {e}");
            std::process::exit(ORPHAN_EXIT);
        }
    }
    if parent.is_some_and(|p| nix::unistd::getppid().as_raw() != p) {
        // (the parent ended before the signal was set: nobody waits for this child)
        std::process::exit(ORPHAN_EXIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_started_from_a_thread_that_ended_is_started_and_reaped() {
        let child = std::thread::spawn(|| {
            let mut c = Command::new("/bin/sh");
            c.args(["-c", "exit 7"]);
            start(c).unwrap()
        })
        .join()
        .unwrap();
        let mut child = child;
        assert_eq!(child.wait().unwrap().code(), Some(7));
    }

    #[test]
    fn a_child_gets_its_parents_id() {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", "echo $KENKEN_PARENT"])
            .stdout(std::process::Stdio::piped());
        let out = start(c).unwrap().wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            std::process::id().to_string()
        );
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error() {
        let c = Command::new("/nonexistent/kenken-no-such-program");
        assert!(start(c).is_err());
    }
}
