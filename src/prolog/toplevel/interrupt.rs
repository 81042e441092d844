//! Scryer's own in-place interrupt, for the top level's engine: Ctrl-C (`SIGINT`) stops the goal
//! where it is, as an exception it may catch (`error('$interrupt_thrown', repl/0)`, as at
//! Scryer's own prompt), and everything it did stays: its asserts and retracts, operators,
//! flags, consults and global variables.
//!
//! Scryer 0.10 polls a flag of its own every 256 instructions (its dispatch loop) and throws
//! that exception when the flag is set. The flag is the crate's, set only by the `SIGINT`
//! handler that `scryer_prolog::run_binary()` installs. So the top level's child (`kenken
//! repl`'s: `kenken query` ends at a timeout, and is killed then) calls `run_binary()` once
//! ([`Installing`]), beside its own engine as that loads: the arguments the parent gave it
//! ([`ARGS`]: `-f -g halt`) make Scryer's `'$toplevel':'$repl'` build a machine of its own, run
//! `halt` and return, the handler left in place. The flag belongs to the process: the top
//! level's engine polls it too.
//!
//! A goal that does not reach the poll (a builtin that runs long, a read that waits) is not
//! stopped by it: the parent kills the child after a grace period and starts a fresh engine
//! with the session's state (`session.rs`).

use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
use scryer_prolog::Term;

/// The arguments the top level's child is started with (after the program's name) when its
/// goals are to be stopped in place, which [`Installing`] gives to `run_binary()`: `-f` (no
/// `~/.scryerrc`), `-g halt` (the one goal).
pub(crate) const ARGS: [&str; 3] = ["-f", "-g", "halt"];

/// Scryer's `SIGINT` handler being installed, on a thread of its own (`run_binary()` builds a
/// machine: a third of a second of CPU, beside the top level's own engine as it loads).
///
/// `SIGINT` is blocked meanwhile (in the thread that calls [`Installing::start`] and every
/// thread it starts after): a Ctrl-C while the engine loads would stop the load where it is.
/// [`Installing::wait`] unblocks it in its caller's thread, the engine's, once the engine is
/// loaded and the handler installed: a `SIGINT` that came meanwhile stops the first thing the
/// engine runs (the host takes it: `engine.rs`).
pub(super) struct Installing(Option<std::thread::JoinHandle<()>>);

impl Installing {
    /// Blocks `SIGINT`, and starts installing the handler, when this process was started with
    /// [`ARGS`] (any other arguments would make `run_binary()` consult files and run Scryer's
    /// own top level on standard input); otherwise does nothing: `SIGINT` ends the process, as
    /// by default.
    pub(super) fn start() -> Installing {
        if !block_interrupt() {
            return Installing(None);
        }
        let thread = std::thread::Builder::new()
            .name("kenken-interrupt".into())
            .spawn(|| {
                let _ = scryer_prolog::run_binary();
            });
        Installing(thread.ok())
    }

    /// Waits until the handler is installed, then unblocks `SIGINT` in this thread: whether
    /// goals are stopped in place from now on.
    pub(super) fn wait(self) -> bool {
        let Some(thread) = self.0 else {
            return false;
        };
        let installed = thread.join().is_ok();
        let _ = sigint_mask(SigmaskHow::SIG_UNBLOCK);
        installed
    }
}

/// Blocks `SIGINT` in the calling thread and every thread it starts after, when this
/// process's goals are stopped in place (it was started with [`ARGS`]): whether it did. The
/// worker's main thread calls it before it starts the serving thread (`src/worker.rs`): a
/// thread left with `SIGINT` unblocked takes a Ctrl-C pressed while the engine loads, and the
/// flag Scryer's handler then sets stops the load itself (`kk_top_start/2` left undefined).
pub(crate) fn block_interrupt() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    args == ARGS && sigint_mask(SigmaskHow::SIG_BLOCK).is_ok()
}

fn sigint_mask(how: SigmaskHow) -> nix::Result<()> {
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    pthread_sigmask(how, Some(&set), None)
}

/// Whether `ball` is the exception Scryer throws when it is interrupted.
pub(super) fn is_interrupt(ball: &Term) -> bool {
    matches!(ball, Term::Compound(e, args)
        if e == "error" && args.len() == 2
            && matches!(&args[0], Term::Atom(a) if a == "$interrupt_thrown"))
}
