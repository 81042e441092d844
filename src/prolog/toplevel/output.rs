//! What the engine writes to user_output, shown in batches ([`Shown`]), and the control bytes
//! `prolog/host/` writes there for the host.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The parent the engine talks to while a goal runs (in the top level's child process, its
/// [`TopProcess`](super::TopProcess), through the process layer's frames): the questions of
/// the engine's Prolog side, and whether what it showed last ends a line.
pub(super) trait Host: Send {
    /// The answer to `question` (`ask`, `drain`, `left ...`: see `kk_host/2` in
    /// `prolog/host/input.pl`), `None` when there is none.
    fn ask(&mut self, question: &str) -> Option<String>;
    /// What the engine showed last ends a line (or not).
    fn line(&mut self, ends: bool);
}

/// Where the engine's host is, once it has one.
pub(super) type HostSlot = Arc<Mutex<Option<Box<dyn Host>>>>;

/// `question` asked of the host in `slot`: its answer, `none` without one.
pub(super) fn ask(slot: &HostSlot, question: &[u8]) -> String {
    let question = String::from_utf8_lossy(question);
    let mut host = slot.lock().unwrap_or_else(|e| e.into_inner());
    host.as_mut()
        .and_then(|h| h.ask(&question))
        .filter(|a| !a.is_empty() && a.chars().all(|c| c.is_ascii_lowercase()))
        .unwrap_or_else(|| "none".into())
}

/// What user_output writes, shown on standard output in batches: Scryer hands over every
/// write/1 and nl/0 on its own (two system calls a line were a fifth of the time of a goal
/// printing lines). A batch is written at most [`Shown::DELAY`] after its first byte (by a
/// thread of its own, so a goal that writes and then computes is seen at once), when it is
/// big, when `prolog/host/` asks ([`FLUSH`]: before it asks the host for a key), before anything is
/// written to standard error, and at the end of every host goal.
#[derive(Clone)]
pub(super) struct Shown {
    state: Arc<(Mutex<ShownState>, std::sync::Condvar)>,
}

struct ShownState {
    /// Bytes not yet written.
    bytes: Vec<u8>,
    /// Whether the bytes end a line.
    ends_line: bool,
    /// The host that is told whether what was shown ends a line, and what it was told.
    host: HostSlot,
    told: bool,
}

impl Shown {
    /// How long a byte may wait in a batch.
    const DELAY: Duration = Duration::from_millis(10);
    /// A batch this big is written at once.
    const BIG: usize = 1 << 16;

    /// A batch, and the thread that writes it out within [`Shown::DELAY`].
    pub(super) fn new(host: HostSlot) -> Shown {
        let shown = Shown {
            state: Arc::new((
                Mutex::new(ShownState {
                    bytes: Vec::new(),
                    ends_line: true,
                    host,
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

    /// Writes the batch out, and tells the host whether it ends a line.
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
            if let Some(h) = st.host.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                h.line(now);
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
/// What `prolog/host/` writes to user_output before a question to the host, which ends at the
/// next new line (`kk_host/2`): the host's answer goes back through user_input's channel, as
/// [`CLOCK`]'s does.
pub(super) const HOST: u8 = 4;
/// The longest question to the host (`left` and the codes of the input a goal did not read
/// take the most); past it, the rest of the question is dropped.
pub(super) const QUESTION_CAP: usize = 64 << 20;
