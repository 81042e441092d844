//! Worker processes: Prolog work in a child process that can be killed, and the table of their
//! roles.
//!
//! Scryer Prolog cannot be interrupted from outside and a thread cannot be killed; a process
//! can. So a bounded Prolog solve ([`crate::engine::WorkerEngine`]), a bounded query, the top
//! level's engine and a judged file run in a child process started from the same program: the
//! child is the program itself, started again with the environment variable `KENKEN_WORKER`
//! naming its role. [`init`], called first thing in `main`, turns such a child into a worker
//! (a confined one confines itself first, then serves requests, one line each, and exits)
//! and returns at once in the parent. This is the pattern of the `procspawn` crate, with a line
//! protocol of our own: each request carries an id and a fresh nonce, and each line of its
//! reply is a frame that carries them back (`kenken-frame ID NONCE KIND PAYLOAD`); anything else the child
//! writes is its printed output, never taken as a reply. The parent's side is the process layer
//! ([`crate::process`]).
//!
//! ```no_run
//! kenken::worker::init(); // first thing in main: serves and exits when started as a worker
//! // ... the program proper, which may use `Isolation::Worker` engines
//! ```
//!
//! A program that cannot call [`init`] (a test harness, say) points the workers at another
//! program that does, with [`set_program`] (the `kenken` binary does). A child that does not turn
//! into a worker is reported as an error, never started twice over.

use crate::process::{confine, Channel, Handler, CANNOT_CONFINE, EXEC_ROLE, ROLE_VAR};
pub use crate::process::{set_program, WorkerError};

/// The stack of the thread that serves requests: Scryer recurses deeply on big terms.
const STACK: usize = 256 << 20;
/// The exit code of a child that could not confine itself.
const CANNOT_CONFINE_EXIT: i32 = 97;

/// The roles a worker can take: each builds its engine and returns its request handler; `None`
/// for an unknown role. (`toplevel` and `exec` are served apart: see [`init`].)
fn handler(role: &str) -> Option<Handler> {
    match role {
        crate::prolog::query::ROLE => Some(crate::prolog::serve::query_worker()),
        _ => crate::system::scryer_worker(role),
    }
}

/// Turns this process into a worker when it was started as one, and never returns then;
/// returns at once otherwise. Call it first thing in `main` of any program that uses worker
/// engines.
pub fn init() {
    // A child of ours dies with its parent, however the parent ends (see
    // crate::process::lifecycle): set before anything else, confinement included.
    crate::process::lifecycle::die_with_parent();
    crate::process::init_called();
    let Ok(role) = std::env::var(ROLE_VAR) else {
        return;
    };
    // Confinement comes before anything else: no other thread runs yet, nothing untrusted has
    // been read, and every thread and program started from here on keeps it.
    if let Err(why) = confine::apply_from_env() {
        println!("{CANNOT_CONFINE}{why}");
        eprintln!("{CANNOT_CONFINE}{why}");
        std::process::exit(CANNOT_CONFINE_EXIT);
    }
    crate::process::lifecycle::still_with_parent();
    // (nothing of how it was started stays where the code it runs can read it: a judged file
    // reads no setting of the judge; the top level's relay, started by its engine, needs it)
    if role != "toplevel" {
        std::env::remove_var(ROLE_VAR);
    }
    if role == EXEC_ROLE {
        let e = crate::process::exec_from_env();
        eprintln!("kenken worker: {e}");
        std::process::exit(2);
    }
    // (the top level's child: SIGINT blocked in every thread until its engine is loaded)
    if role == "toplevel" {
        crate::prolog::toplevel::block_interrupt();
    }
    let served = std::thread::Builder::new()
        .name("kenken-worker".into())
        .stack_size(STACK)
        .spawn(move || serve_role(&role));
    let code = match served.map(|t| t.join()) {
        Ok(Ok(Ok(()))) => 0,
        // The parent went away: nothing to report to anyone.
        Ok(Ok(Err(e))) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Ok(Ok(Err(e))) => {
            eprintln!("kenken worker: {e}");
            2
        }
        _ => {
            eprintln!("kenken worker: the serving thread stopped");
            2
        }
    };
    std::process::exit(code);
}

/// Serves `role`: the top level's engine with its own loop (it answers questions mid-request),
/// any other role with its handler; both on the channel the process layer gave the child.
fn serve_role(role: &str) -> std::io::Result<()> {
    if role == "toplevel" {
        return crate::prolog::toplevel::serve_child();
    }
    serve(role)
}

/// Serves one role on its channel (standard input and output) until the requests end.
fn serve(role: &str) -> std::io::Result<()> {
    let mut channel = Channel::open()?;
    let mut handler = handler(role)
        .ok_or_else(|| std::io::Error::other(format!("unknown worker role '{role}'")))?;
    channel.ready()?;
    while let Some((ticket, payload)) = channel.next_request()? {
        let mut failed = Ok(());
        let reply = handler(&payload, &mut |part: &str| {
            if failed.is_ok() {
                failed = channel.frame(&ticket, "part", part);
            }
        });
        failed?;
        channel.frame(&ticket, "done", &reply)?;
    }
    Ok(())
}
