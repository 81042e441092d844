//! Tickets and frames: a request's id and nonce, the frame lines that carry its reply, and what
//! a frame of the reply says.

use std::io::Read;
use std::time::Instant;

use super::FRAME;

/// A request's id and nonce: a reply frame is the request's only when it carries both.
///
/// The id orders the requests of one child; the nonce (128 random bits, new for every request)
/// makes a frame impossible to forge for code in the child that never saw the request: the
/// child's own code reads the request before anything it runs can, and only it writes the
/// nonce back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ticket {
    id: u64,
    nonce: String,
}

impl Ticket {
    /// The ticket of request `id`, with a fresh nonce.
    pub(crate) fn new(id: u64) -> Ticket {
        Ticket {
            id,
            nonce: random_hex(),
        }
    }

    /// The request's id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The request's nonce (32 hexadecimal digits).
    pub(crate) fn nonce(&self) -> &str {
        &self.nonce
    }

    /// The line that carries `payload` (no newline in it) as this request.
    pub(crate) fn request_line(&self, payload: &str) -> String {
        format!("{} {} {payload}", self.id, self.nonce)
    }

    /// The request a line carries (the child's side): its ticket and payload.
    pub(crate) fn parse_request(line: &str) -> Option<(Ticket, &str)> {
        let mut parts = line.splitn(3, ' ');
        let id = parts.next()?.parse().ok()?;
        let nonce = parts.next()?;
        let payload = parts.next().unwrap_or("");
        Some((
            Ticket {
                id,
                nonce: nonce.to_string(),
            },
            payload,
        ))
    }

    /// The frame line (without its newline) that answers this request: `kind` is `part` or
    /// `done`, and `payload` must hold no newline (a JSON text holds none).
    pub(crate) fn frame(&self, kind: &str, payload: &str) -> String {
        format!("{FRAME}{} {} {kind} {payload}", self.id, self.nonce)
    }

    /// The part of a line of the child's output that is a frame of this request: `None` for a
    /// line that is not a frame (printed output), an error for a frame that is not this
    /// request's or is malformed.
    pub(super) fn read(&self, line: &str) -> Option<Result<Reply, String>> {
        let rest = line.strip_prefix(FRAME)?;
        let mut parts = rest.splitn(4, ' ');
        let (id, nonce, kind) = (parts.next()?, parts.next()?, parts.next()?);
        let payload = parts.next().unwrap_or("").to_string();
        if nonce != self.nonce {
            return Some(Err(format!(
                "it wrote a reply frame that is not the current request's (id {}, nonce not \
                 the request's): forged, or out of step",
                shorten(id, 24)
            )));
        }
        if id.parse::<u64>().ok() != Some(self.id) {
            return Some(Err(format!(
                "it wrote a frame with the request's nonce and another id ({})",
                shorten(id, 24)
            )));
        }
        Some(match kind {
            "part" => Ok(Reply::Part(payload)),
            "done" => Ok(Reply::Done(payload)),
            other => Err(format!(
                "it wrote a frame of unknown kind {:?}",
                shorten(other, 24)
            )),
        })
    }
}

/// The first `max` characters of `text`, with `...` when it was longer.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// 128 random bits as 32 hexadecimal digits, from the kernel's generator (or, should it be
/// unreadable, from the randomly keyed hasher the standard library seeds from it).
pub(crate) fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u128(Instant::now().elapsed().as_nanos());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A line of a worker's reply ([`Worker::next`](super::Worker::next)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// A part of the reply, sent as soon as the worker had it.
    Part(String),
    /// The reply: the request is done.
    Done(String),
    /// The deadline passed first.
    Timeout,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_differ() {
        let (a, b) = (Ticket::new(1), Ticket::new(1));
        assert_ne!(a.nonce(), b.nonce());
        assert_eq!(a.nonce().len(), 32);
        assert!(a.nonce().chars().all(|c| c.is_ascii_hexdigit()));
        let line = a.request_line("{\"x\":1}");
        assert_eq!(Ticket::parse_request(&line), Some((a.clone(), "{\"x\":1}")));
        assert_eq!(Ticket::parse_request("no id"), None);
    }
}
