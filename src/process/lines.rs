//! Reading a child's output within caps: its standard output line by line (a frame whole, any
//! other line cut), and the start and the end of its standard error.

use std::io::{BufRead, BufReader, Read};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

use super::{FRAME, STDERR_CAP};

/// The longest line of a child's output kept when it is not a frame (the rest is read away).
pub(super) const PRINTED_LINE_CAP: usize = 4096;

/// Keeps the first [`STDERR_CAP`] bytes of `from` in `kept`, and the last [`STDERR_CAP`] of
/// the rest after a line `...`: what a child says last (a panic's message) is kept too.
pub(super) fn keep_start(mut from: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 8192];
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut skipped = false;
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        if let Ok(mut k) = kept.lock() {
            let room = STDERR_CAP.saturating_sub(k.len());
            k.extend_from_slice(&buf[..n.min(room)]);
            if n > room {
                tail.extend(&buf[room..n]);
                while tail.len() > STDERR_CAP {
                    tail.pop_front();
                    skipped = true;
                }
                // (the start, then the end so far)
                k.truncate(STDERR_CAP);
                k.extend_from_slice(if skipped { b"\n...\n" } else { b"" });
                k.extend(tail.iter());
            }
        }
    }
}

/// One line of a child's standard output, or why there are no more.
#[derive(Debug)]
pub(super) enum Line {
    /// A line, without its newline; `complete` is false for the last one when the output
    /// ended without a newline (a frame cut short); `at`: when it was read.
    Text {
        text: String,
        complete: bool,
        at: Instant,
    },
    /// A frame longer than the cap, or more output in all than the cap.
    Overflow,
    Error,
}

/// Sends the lines of `from` (at most `cap` bytes in all) to `tx`: a frame of at most
/// `frame_cap` bytes whole, any other line cut at [`PRINTED_LINE_CAP`] (the rest is read away).
/// The channel is bounded, so a child that writes faster than the parent reads waits: the
/// parent's memory stays bounded whatever the child writes.
pub(super) fn read_lines(
    from: impl Read,
    cap: usize,
    frame_cap: usize,
    tx: &mpsc::SyncSender<Line>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    let mut total = 0usize;
    loop {
        let line = match read_line_capped(&mut reader, frame_cap, cap.saturating_sub(total)) {
            Ok(Some(l)) => l,
            Ok(None) => return,
            Err(_) => {
                let _ = tx.send(Line::Error);
                return;
            }
        };
        total = total.saturating_add(line.read);
        if total > cap || line.over {
            let _ = tx.send(Line::Overflow);
            return;
        }
        let text = String::from_utf8_lossy(&line.kept).into_owned();
        let complete = line.complete;
        let at = Instant::now();
        if tx.send(Line::Text { text, complete, at }).is_err() || !complete {
            return;
        }
    }
}

/// A line read by [`read_line_capped`].
struct CappedLine {
    /// Its first bytes (without the newline).
    kept: Vec<u8>,
    /// How many bytes were read, the newline included.
    read: usize,
    /// Whether it ended with a newline.
    complete: bool,
    /// A frame longer than the cap.
    over: bool,
}

/// Reads one line: a frame (a line that starts with [`FRAME`]) of at most `frame_cap` bytes
/// is kept whole, any other line up to [`PRINTED_LINE_CAP`] bytes; `None` at the end. A line
/// longer than `left` bytes in all is over (the rest is not read).
fn read_line_capped(
    reader: &mut impl BufRead,
    frame_cap: usize,
    left: usize,
) -> std::io::Result<Option<CappedLine>> {
    let mut line = CappedLine {
        kept: Vec::new(),
        read: 0,
        complete: false,
        over: false,
    };
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((line.read > 0).then_some(line));
        }
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        // (a line is a frame while its start is the start of FRAME)
        let head: Vec<u8> = line
            .kept
            .iter()
            .chain(chunk.iter())
            .take(FRAME.len())
            .copied()
            .collect();
        let limit = if FRAME.as_bytes().starts_with(&head) {
            frame_cap
        } else {
            PRINTED_LINE_CAP
        };
        let room = limit.saturating_sub(line.kept.len());
        line.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if limit == frame_cap && chunk.len() > room {
            line.over = true;
        }
        let used = chunk.len() + usize::from(newline);
        line.read = line.read.saturating_add(used);
        reader.consume(used);
        if line.read > left {
            line.over = true;
        }
        if line.over {
            return Ok(Some(line));
        }
        if newline {
            line.complete = true;
            return Ok(Some(line));
        }
    }
}
