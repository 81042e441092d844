//! Scryer's panics, caught in one place: [`catch`] runs a call into Scryer and turns a panic
//! into an `Err` with its message, kept off the standard error; [`quiet_panics`] is the
//! process-wide hook of the processes that run an engine for a person (the top level's), which
//! keeps every panic's message off the screen. Both note a panic within Scryer's own way of
//! throwing a resource error ([`resource_panic`]): Scryer 0.10 panics there when its heap could
//! not grow to hold the error itself (`numlist(1, 200000000, L)` under `--memory`), which means
//! the goal reached the memory bound.
//!
//! This module imports nothing of the crate.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A panic hook, as the standard library keeps it.
type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// How many threads run [`catch`] now, and the hook that was there before the first.
static QUIET: Mutex<(usize, Option<Arc<Hook>>)> = Mutex::new((0, None));

/// Whether an engine panicked while throwing a resource error since [`clear_resource_panic`].
static RESOURCE_PANIC: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread runs [`catch`].
    static IN_ENGINE: Cell<bool> = const { Cell::new(false) };
    /// The message of the panic caught on this thread.
    static PANICKED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Notes a panic within Scryer's throwing of a resource error (its backtrace names
/// `throw_resource_error`).
fn note_resource_panic() {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    if trace.contains("throw_resource_error") {
        RESOURCE_PANIC.store(true, Ordering::Relaxed);
    }
}

/// Runs `f` (a call into Scryer), catching a panic: `Err` with its message (on one line),
/// which is not written to the standard error. While some thread runs this, a hook of ours is
/// installed that keeps the message of a panic on such a thread and hands any other to the
/// hook that was there before (the program's own, or the standard one); the last thread out
/// puts that hook back. (A hook the program sets while an engine runs is replaced by the one
/// before it.) The engine that panicked is not to be trusted after.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    if let Ok(mut q) = QUIET.lock() {
        if q.0 == 0 {
            let before: Arc<Hook> = Arc::new(std::panic::take_hook());
            let other = Arc::clone(&before);
            std::panic::set_hook(Box::new(move |info| {
                if IN_ENGINE.with(Cell::get) {
                    note_resource_panic();
                    PANICKED.with(|p| *p.borrow_mut() = Some(info.to_string()));
                } else {
                    other(info);
                }
            }));
            q.1 = Some(before);
        }
        q.0 += 1;
    }
    let was = IN_ENGINE.with(|e| e.replace(true));
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_ENGINE.with(|e| e.set(was));
    if let Ok(mut q) = QUIET.lock() {
        q.0 = q.0.saturating_sub(1);
        if q.0 == 0 {
            drop(std::panic::take_hook());
            if let Some(before) = q.1.take() {
                match Arc::try_unwrap(before) {
                    Ok(hook) => std::panic::set_hook(hook),
                    Err(shared) => std::panic::set_hook(Box::new(move |info| shared(info))),
                }
            }
        }
    }
    got.map_err(|panic| {
        PANICKED
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| panic_text(&panic))
            .replace('\n', " ")
    })
}

/// The first line of a panic's message.
fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic")
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Keeps every panic's message and backtrace off the screen, for the processes that run a top
/// level (the engine's panics are caught and told as errors: [`catch`]); a panic within
/// Scryer's throwing of a resource error is noted ([`resource_panic`]).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| note_resource_panic()));
}

/// Forgets a resource error's panic noted before (called before a goal runs).
pub(crate) fn clear_resource_panic() {
    RESOURCE_PANIC.store(false, Ordering::Relaxed);
}

/// Whether an engine panicked while throwing a resource error since
/// [`clear_resource_panic`]: the goal reached the memory bound.
pub(crate) fn resource_panic() -> bool {
    RESOURCE_PANIC.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_caught_with_its_message_and_the_hook_put_back() {
        assert_eq!(catch(|| 7), Ok(7));
        let got = catch(|| -> u8 { panic!("boom\nsecond line") });
        let why = got.unwrap_err();
        assert!(why.contains("boom second line"), "{why}");
        // nested, and on several threads at once
        let inner = catch(|| catch(|| -> u8 { panic!("inner") }));
        assert!(inner.unwrap().unwrap_err().contains("inner"));
        let threads: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || catch(|| if i % 2 == 0 { panic!("t{i}") } else { i }))
            })
            .collect();
        for (i, t) in threads.into_iter().enumerate() {
            let r = t.join().unwrap();
            assert_eq!(r.is_err(), i % 2 == 0, "{r:?}");
        }
        let payload: Box<dyn std::any::Any + Send> = Box::new("one\ntwo");
        assert_eq!(panic_text(&payload), "one");
    }
}
