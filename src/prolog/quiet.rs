//! Scryer's panics kept off the standard error: [`quietly`] runs a call into Scryer and
//! catches its panic, with its message ([`panic_text`]).

use std::cell::{Cell, RefCell};
use std::sync::{Arc, Mutex};

/// The first line of a panic's message.
pub(crate) fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
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

/// A panic hook, as the standard library keeps it.
type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// How many threads run [`quietly`] now, and the hook that was there before the first.
static QUIET: Mutex<(usize, Option<Arc<Hook>>)> = Mutex::new((0, None));

thread_local! {
    /// This thread runs [`quietly`].
    static IN_ENGINE: Cell<bool> = const { Cell::new(false) };
    /// The message of the panic caught on this thread.
    static PANICKED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` (a call into Scryer), catching a panic: `Err` with its message, which is not
/// written to the standard error. While some thread runs this, a hook of ours is installed
/// that keeps the message of a panic on such a thread and hands any other to the hook that was
/// there before (the program's own, or the standard one); the last thread out puts that hook
/// back. (A hook the program sets while an engine runs is replaced by the one before it.)
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    if let Ok(mut q) = QUIET.lock() {
        if q.0 == 0 {
            let before: Arc<Hook> = Arc::new(std::panic::take_hook());
            let other = Arc::clone(&before);
            std::panic::set_hook(Box::new(move |info| {
                if IN_ENGINE.with(Cell::get) {
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
