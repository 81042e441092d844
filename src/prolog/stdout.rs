//! What Scryer writes to the standard output of a worker process of the crate's, kept from
//! it (the process's standard output is its parent's channel).
//!
//! Scryer 0.10 writes a few messages with `println!`, past the machine's streams: the loader's
//! warnings (`% Warning: overwriting p/1 because the clauses are discontiguous`, a multifile
//! predicate overwritten) and `% Warning: predicate p/0 is undefined` (the flag `unknown` set
//! to `warning`). In a worker process (the session of [`Session::serving`]: the process is
//! the crate's, no thread of a program runs there), while its engine answers, [`kept`] points
//! file descriptor 1 at a file of ours and gives back the lines Scryer wrote there (`% ...`).
//! Never in a program's own process: a [`Session`] there owns none of its file descriptors
//! (its loader warnings are told on the Prolog side instead: `prolog/host_warnings.pl`).
//!
//! [`Session::serving`]: super::Session
//! [`Session`]: super::Session

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// The capture, while some thread runs [`kept`].
#[derive(Default)]
struct Capture {
    /// How many threads run [`kept`] now.
    depth: usize,
    /// The real standard output, while the capture is on.
    saved: Option<OwnedFd>,
    /// Where standard output goes meanwhile (kept for the next capture).
    file: Option<File>,
    /// How far `file` has been read.
    read: u64,
}

static CAPTURE: Mutex<Option<Capture>> = Mutex::new(None);

/// Runs `f` (a call into Scryer) with the process's standard output kept from it: what `f`
/// returned, and the lines Scryer wrote meanwhile (its messages start with `%`), each without
/// its line end. Where the capture cannot be set up, `f` runs as it is.
pub(crate) fn kept<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let on = enter();
    let got = f();
    let lines = if on { leave() } else { Vec::new() };
    (got, lines)
}

/// Points standard output at the capture's file (the first thread in): whether it is on.
fn enter() -> bool {
    let Ok(mut guard) = CAPTURE.lock() else {
        return false;
    };
    let capture = guard.get_or_insert_with(Capture::default);
    if capture.depth == 0 && start(capture).is_err() {
        return false;
    }
    capture.depth += 1;
    true
}

fn start(capture: &mut Capture) -> std::io::Result<()> {
    let _ = std::io::stdout().flush();
    let mut file = match capture.file.take() {
        Some(f) => f,
        None => tempfile::tempfile()?,
    };
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    let saved = nix::unistd::dup(std::io::stdout())?;
    nix::unistd::dup2_stdout(&file)?;
    capture.saved = Some(saved);
    capture.file = Some(file);
    capture.read = 0;
    Ok(())
}

/// Reads what was written since, and puts standard output back (the last thread out): the
/// lines of Scryer's, the others passed on.
fn leave() -> Vec<String> {
    let Ok(mut guard) = CAPTURE.lock() else {
        return Vec::new();
    };
    let Some(capture) = guard.as_mut() else {
        return Vec::new();
    };
    let _ = std::io::stdout().flush();
    capture.depth = capture.depth.saturating_sub(1);
    let last = capture.depth == 0;
    let mut text = Vec::new();
    if let Some(file) = capture.file.as_ref() {
        // (read where it was written, without moving the offset standard output shares)
        let len = file.metadata().map_or(capture.read, |m| m.len());
        text.resize(
            usize::try_from(len.saturating_sub(capture.read)).unwrap_or(0),
            0,
        );
        let mut at = 0;
        while at < text.len() {
            match file.read_at(&mut text[at..], capture.read + at as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => at += n,
            }
        }
        text.truncate(at);
    }
    if !last {
        // (a line still being written is left for later)
        let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        text.truncate(whole);
    }
    capture.read += text.len() as u64;
    let mut lines = Vec::new();
    let mut other = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"%") {
            let line = String::from_utf8_lossy(line);
            lines.push(line.trim_end_matches(['\n', '\r']).to_string());
        } else {
            other.extend_from_slice(line);
        }
    }
    if let Some(saved) = capture.saved.as_ref() {
        let mut rest = other.as_slice();
        while !rest.is_empty() {
            match nix::unistd::write(saved, rest) {
                Ok(0) | Err(_) => break,
                Ok(n) => rest = &rest[n..],
            }
        }
    }
    if last {
        if let Some(saved) = capture.saved.take() {
            let _ = nix::unistd::dup2_stdout(&saved);
        }
    }
    lines
}
