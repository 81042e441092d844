//! What the engine writes to user_output, shown in batches ([`Shown`]), and the control bytes
//! `prolog/host/` writes there for the host.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// What user_output writes, shown on standard output in batches: Scryer hands over every
/// write/1 and nl/0 on its own (two system calls a line were a fifth of the time of a goal
/// printing lines). A batch is written at most [`Shown::DELAY`] after its first byte (by a
/// thread of its own, so a goal that writes and then computes is seen at once), when it is
/// big, when `prolog/host/` asks ([`FLUSH`]: before it asks the host for a key), before anything is
/// written to standard error, and at the end of every host goal.
#[derive(Clone)]
pub(super) struct Shown {
    state: Arc<(std::sync::Mutex<ShownState>, std::sync::Condvar)>,
}

struct ShownState {
    /// Bytes not yet written.
    bytes: Vec<u8>,
    /// Whether the bytes end a line.
    ends_line: bool,
    /// The file where the parent reads whether what was shown ends a line ([`LINE_VAR`](super::LINE_VAR)),
    /// and what it says.
    line_file: Option<std::fs::File>,
    told: bool,
}

impl Shown {
    /// How long a byte may wait in a batch.
    const DELAY: Duration = Duration::from_millis(10);
    /// A batch this big is written at once.
    const BIG: usize = 1 << 16;

    /// A batch, and the thread that writes it out within [`Shown::DELAY`].
    pub(super) fn new(line_file: Option<std::fs::File>) -> Shown {
        let shown = Shown {
            state: Arc::new((
                std::sync::Mutex::new(ShownState {
                    bytes: Vec::new(),
                    ends_line: true,
                    line_file,
                    told: true,
                }),
                std::sync::Condvar::new(),
            )),
        };
        let writer = shown.clone();
        std::thread::spawn(move || loop {
            let (lock, ready) = &*writer.state;
            let Ok(mut st) = lock.lock() else { return };
            while st.bytes.is_empty() {
                st = match ready.wait(st) {
                    Ok(st) => st,
                    Err(_) => return,
                };
            }
            drop(st);
            std::thread::sleep(Shown::DELAY);
            writer.flush();
        });
        shown
    }

    /// Adds `bytes` (which end a line or not) to the batch.
    pub(super) fn push(&self, bytes: &[u8], ends_line: bool) {
        let (lock, ready) = &*self.state;
        let Ok(mut st) = lock.lock() else { return };
        if st.bytes.is_empty() {
            ready.notify_one();
        }
        st.bytes.extend_from_slice(bytes);
        st.ends_line = ends_line;
        let big = st.bytes.len() >= Shown::BIG;
        drop(st);
        if big {
            self.flush();
        }
    }

    /// Writes the batch out, and tells the parent whether it ends a line.
    pub(super) fn flush(&self) {
        let Ok(mut st) = self.state.0.lock() else {
            return;
        };
        if st.bytes.is_empty() {
            return;
        }
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(&st.bytes).and_then(|_| o.flush());
        st.bytes.clear();
        let now = st.ends_line;
        if now != st.told {
            if let Some(f) = st.line_file.as_mut() {
                use std::os::unix::fs::FileExt;
                let _ = f.write_at(if now { b"1" } else { b"0" }, 0);
            }
            st.told = now;
        }
    }
}

/// What `prolog/host/` writes to user_output for the host (never shown): [`FRESH_LINE`] asks for a
/// new line unless the output so far ends one; [`CLOCK`] for the wall-clock time, in
/// milliseconds since the engine started, which the host sends back through user_input's
/// channel (`kk_wall_ms/1`: Scryer has no clock finer than seconds).
pub(super) const FRESH_LINE: u8 = 1;
pub(super) const CLOCK: u8 = 2;
/// What `prolog/host/` writes to user_output for the batch of output to be shown now ([`Shown`]).
pub(super) const FLUSH: u8 = 3;
