//! Standard input shared by a piped `kenken repl` and the goals it runs.
//!
//! A Prolog top level reads its goals and what the goals read from one stream: piped
//! `read(X).\nfoo.\nY = 1.\n`, `read/1` gets `foo` and `Y = 1.` is the next goal. The repl reads
//! standard input line by line ([`PipedInput`], through a thread of its own), and while a goal
//! runs, a [`Feeder`] writes the input after the goal to a named pipe, which the engine's relay
//! copies to the goal (`kk_reader_start/0` in `prolog/host/input.pl`). When the goal stops reading, the
//! feeder stops, and what the goal did not read comes back (`kk_reader_stop/0`) to be read
//! first ([`PipedInput::unread`]).

use std::io::{BufRead, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Standard input, read line by line by a thread of its own; text given back is read first.
pub struct PipedInput {
    /// Text given back, in order, each piece with whether it was shown (echoed) already.
    back: Mutex<Vec<Piece>>,
    lines: Mutex<Receiver<Vec<u8>>>,
}

/// Text, and whether it was shown already.
type Piece = (Vec<u8>, bool);

/// What [`PipedInput::line`] got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    /// A line given back (read before, so not to be echoed again), with its `\n` if it has one.
    Back(String),
    /// A line of standard input, with its `\n` if it has one (the last may not).
    Fresh(String),
    /// Nothing within the time given.
    Waiting,
    /// The end of the input.
    End,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl PipedInput {
    /// This process's standard input.
    pub fn stdin() -> Arc<PipedInput> {
        PipedInput::from_reader(std::io::BufReader::new(std::io::stdin()))
    }

    /// The lines of `reader` (a thread reads them).
    pub fn from_reader(mut reader: impl BufRead + Send + 'static) -> Arc<PipedInput> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut l = Vec::new();
            match reader.read_until(b'\n', &mut l) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(l).is_err() {
                        return;
                    }
                }
            }
        });
        Arc::new(PipedInput {
            back: Mutex::new(Vec::new()),
            lines: Mutex::new(rx),
        })
    }

    /// Gives `text` back (`shown`: it was echoed already): it is read before what was given
    /// back earlier and the rest.
    pub fn unread(&self, text: &[u8], shown: bool) {
        self.unread_pieces(vec![(text.to_vec(), shown)]);
    }

    pub(super) fn unread_pieces(&self, pieces: Vec<Piece>) {
        let mut back = lock(&self.back);
        let pieces = pieces.into_iter().filter(|(t, _)| !t.is_empty());
        back.splice(0..0, pieces);
    }

    /// Everything given back.
    fn take_back(&self) -> Vec<Piece> {
        std::mem::take(&mut *lock(&self.back))
    }

    /// The next line, waiting at most `wait` (`None`: as long as it takes).
    pub fn line(&self, wait: Option<Duration>) -> Got {
        {
            // (a line given back, perhaps across pieces: shown when all its pieces were)
            let mut back = lock(&self.back);
            if !back.is_empty() {
                let (mut line, mut shown) = (Vec::new(), true);
                while let Some((text, was)) = back.first_mut() {
                    shown &= *was;
                    match text.iter().position(|&b| b == b'\n') {
                        Some(i) => {
                            line.extend(text.drain(..=i));
                            if text.is_empty() {
                                back.remove(0);
                            }
                            break;
                        }
                        None => {
                            line.append(text);
                            back.remove(0);
                        }
                    }
                }
                let line = String::from_utf8_lossy(&line).into_owned();
                return if shown {
                    Got::Back(line)
                } else {
                    Got::Fresh(line)
                };
            }
        }
        let lines = lock(&self.lines);
        let got = match wait {
            Some(w) => lines.recv_timeout(w),
            None => lines.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match got {
            Ok(l) => Got::Fresh(String::from_utf8_lossy(&l).into_owned()),
            Err(RecvTimeoutError::Timeout) => Got::Waiting,
            Err(RecvTimeoutError::Disconnected) => Got::End,
        }
    }
}

/// A thread that writes the input to a named pipe while a goal may read it.
pub(super) struct Feeder {
    stop: Arc<AtomicBool>,
    connected: Arc<AtomicBool>,
    /// What was written, in pieces (their length, and whether they were shown).
    written: Arc<Mutex<Vec<(usize, bool)>>>,
    thread: Option<JoinHandle<()>>,
    fifo: PathBuf,
}

impl Feeder {
    /// Feeds `input` to the reader that opens `fifo`, once one does.
    pub(super) fn start(fifo: &Path, input: Arc<PipedInput>) -> Feeder {
        let stop = Arc::new(AtomicBool::new(false));
        let connected = Arc::new(AtomicBool::new(false));
        let written = Arc::new(Mutex::new(Vec::new()));
        let (s, c, w, f) = (
            stop.clone(),
            connected.clone(),
            written.clone(),
            fifo.to_path_buf(),
        );
        let thread = std::thread::spawn(move || feed(&f, &input, &s, &c, &w));
        Feeder {
            stop,
            connected,
            written,
            thread: Some(thread),
            fifo: fifo.to_path_buf(),
        }
    }

    /// Stops feeding (what was taken and not written is given back) and closes the pipe. With
    /// `connect`, a reader that has not opened the pipe yet (its relay was starting) finds it
    /// closed, within a few seconds: it reads its end.
    /// `left`, the end of what was written (what the goal did not read), as pieces that say
    /// whether they were shown.
    pub(super) fn pieces_of(&self, left: &[u8]) -> Vec<Piece> {
        let written = lock(&self.written);
        let total: usize = written.iter().map(|(n, _)| n).sum();
        let (mut skip, mut rest) = (total.saturating_sub(left.len()), left);
        let mut pieces = Vec::new();
        for &(n, shown) in written.iter() {
            if skip >= n {
                skip -= n;
                continue;
            }
            let take = (n - skip).min(rest.len());
            skip = 0;
            pieces.push((rest[..take].to_vec(), shown));
            rest = &rest[take..];
        }
        if !rest.is_empty() {
            pieces.push((rest.to_vec(), false));
        }
        pieces
    }

    pub(super) fn stop(&mut self, connect: bool) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if connect && !self.connected.load(Ordering::Relaxed) {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if open_for_writing(&self.fifo).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// The write end of `fifo`, without waiting (an error when no reader has it open).
fn open_for_writing(fifo: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(fifo)
}

/// ENXIO: no process has the named pipe open for reading.
fn libc_enxio() -> i32 {
    nix::errno::Errno::ENXIO as i32
}

fn feed(
    fifo: &Path,
    input: &PipedInput,
    stop: &AtomicBool,
    connected: &AtomicBool,
    written: &Mutex<Vec<(usize, bool)>>,
) {
    let file = loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match open_for_writing(fifo) {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc_enxio()) => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(_) => return,
        }
    };
    connected.store(true, Ordering::Relaxed);
    // (what is to be written, in pieces: what was given back, then each line as it comes)
    let mut pending = input.take_back();
    pending.reverse();
    loop {
        while let Some((text, shown)) = pending.last_mut() {
            if stop.load(Ordering::Relaxed) {
                pending.reverse();
                input.unread_pieces(pending);
                return;
            }
            match (&file).write(text) {
                Ok(n) => {
                    text.drain(..n);
                    lock(written).push((n, *shown));
                    if text.is_empty() {
                        pending.pop();
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Err(_) => {
                    pending.reverse();
                    input.unread_pieces(pending);
                    return;
                }
            }
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match input.line(Some(Duration::from_millis(20))) {
            Got::Back(l) => pending.push((l.into_bytes(), true)),
            Got::Fresh(l) => pending.push((l.into_bytes(), false)),
            Got::Waiting => {}
            Got::End => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_given_back_come_first_and_are_told_apart() {
        let input = PipedInput::from_reader(std::io::Cursor::new(b"a.\nb.".to_vec()));
        assert_eq!(input.line(None), Got::Fresh("a.\n".into()));
        input.unread(b"x.\ny", true);
        assert_eq!(input.line(None), Got::Back("x.\n".into()));
        assert_eq!(input.line(None), Got::Back("y".into()));
        assert_eq!(input.line(None), Got::Fresh("b.".into()));
        assert_eq!(input.line(None), Got::End);
    }
}
