//! What a [`crate::prolog::Session`]'s machine writes to `user_output`, kept for the query that
//! runs, and the channel of its `user_input`, where the host tells the wrapper whether to go on.

use std::cell::{Cell, RefCell};

use scryer_prolog::UserInput;

use super::PRINTED_CAP;

/// What a machine writes to `user_output`, for the query that runs: at most [`PRINTED_CAP`]
/// bytes of it, and whether more was written.
#[derive(Debug, Default)]
pub(crate) struct Capture {
    bytes: RefCell<Vec<u8>>,
    total: Cell<usize>,
    /// The sending end of the machine's `user_input`.
    stop: RefCell<Option<UserInput>>,
    /// Whether the process's standard output is kept from Scryer while the machine runs
    /// (`stdout.rs`): in a worker process of the crate's only.
    keep_stdout: bool,
}

/// What the host tells the wrapper before it asks for an answer after another
/// (`kk_stop_asked/0` of `prolog/host_query.pl`): go on, or stop (`kk_stop_char/1`).
const GO: &[u8] = b"\x11";
const STOP: &[u8] = b"\x18";

impl Capture {
    /// A capture; `keep_stdout`: the process's standard output is kept from Scryer while the
    /// machine runs (`stdout.rs`: a worker process's only).
    pub(crate) fn new(keep_stdout: bool) -> Capture {
        Capture {
            keep_stdout,
            ..Capture::default()
        }
    }

    /// The sending end of the machine's `user_input` (a new machine's).
    pub(crate) fn set_input(&self, input: UserInput) {
        *self.stop.borrow_mut() = Some(input);
    }

    /// Whether the process's standard output is kept from Scryer while the machine runs.
    pub(crate) fn keeps_stdout(&self) -> bool {
        self.keep_stdout
    }

    /// A new query starts.
    pub(crate) fn reset(&self) {
        self.bytes.borrow_mut().clear();
        self.total.set(0);
    }

    /// Tells the wrapper, before the host asks for the answer after an answer, whether to go
    /// on or to end the query there (`kk_stop_asked/0`): false when it cannot be told.
    pub(crate) fn tell(&self, go: bool) -> bool {
        use std::io::Write;
        self.stop
            .borrow_mut()
            .as_mut()
            .is_some_and(|input| input.write_all(if go { GO } else { STOP }).is_ok())
    }

    pub(crate) fn push(&self, more: &[u8]) {
        let total = self.total.get();
        let room = PRINTED_CAP.saturating_sub(total);
        self.bytes
            .borrow_mut()
            .extend_from_slice(&more[..more.len().min(room)]);
        self.total.set(total.saturating_add(more.len()));
    }

    /// What was written since the last call, and whether some was cut.
    pub(crate) fn take(&self) -> (String, bool) {
        let bytes = std::mem::take(&mut *self.bytes.borrow_mut());
        (
            String::from_utf8_lossy(&bytes).into_owned(),
            self.total.get() > PRINTED_CAP,
        )
    }
}
