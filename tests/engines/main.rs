//! The engine interface and the Prolog host, in this process and in worker processes.
//!
//! The worker program is process-wide state (`kenken::worker::set_program`): these tests are a
//! test crate of their own, and those that start workers take turns (`use_the_kenken_binary`).

#[path = "../common/mod.rs"]
mod common;

mod engine;
mod kept_state;
mod lifecycle;
mod prolog;
mod query;
mod scryer_file;
mod stdout;
mod system;
mod terms;
mod user_code;

use std::sync::{Mutex, MutexGuard};

/// The worker program is set for the whole process: tests that start workers take turns.
static PROGRAM: Mutex<()> = Mutex::new(());

/// Worker engines run the `kenken` binary (this test harness cannot call `worker::init`): the
/// program is set while the guard is held.
fn use_the_kenken_binary() -> MutexGuard<'static, ()> {
    let guard = PROGRAM.lock().unwrap_or_else(|e| e.into_inner());
    kenken::worker::set_program(env!("CARGO_BIN_EXE_kenken").into());
    guard
}
