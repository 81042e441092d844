//! The channel a child speaks the protocol on: its standard input and output, or, for a child
//! that keeps the terminal as those (the top level's engine: the goals it runs read and write
//! the terminal), two named pipes in a private directory, `requests` (parent to child) and
//! `replies` (child to parent). Either way the same lines go through it: requests
//! (`ID NONCE PAYLOAD`, [`Ticket::request_line`]) one way, frames
//! ([`Ticket::frame`]) the other, read by the same reader with the same caps.
//!
//! The pipes' directory is named to the child in [`CHANNEL_VAR`], which the child removes from
//! its environment once it opened them. The parent's reader opens `replies` as the child does
//! (so that it reads the end of it when the child ends), and the parent opens `requests` when
//! it first writes a request (without waiting: a child that died first is an error, never a
//! hang). The child opens both at once, before it says it is ready. Once the parent wrote its
//! first request, every end of both pipes is open: the directory is removed, so that nothing
//! finds the pipes by their names from then on (a process of the same user can still reach
//! them through `/proc`).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::frame::Ticket;
use super::{WorkerError, READY};
use crate::error::Context;

/// The environment variable that names the directory of a child's two named pipes.
pub(crate) const CHANNEL_VAR: &str = "KENKEN_CHANNEL";
const REQUESTS: &str = "requests";
const REPLIES: &str = "replies";

/// The parent's side of a channel of named pipes: their private directory (removed when this
/// is dropped).
pub(super) struct Fifos {
    dir: tempfile::TempDir,
}

impl Fifos {
    /// Two fresh named pipes, readable and writable by this user only.
    pub(super) fn new() -> Result<Fifos, WorkerError> {
        let dir = tempfile::Builder::new()
            .prefix("kenken-channel-")
            .tempdir()
            .context("making the directory of a child's pipes")?;
        for name in [REQUESTS, REPLIES] {
            let path = dir.path().join(name);
            nix::unistd::mkfifo(
                &path,
                nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
            )
            .map_err(std::io::Error::from)
            .with_context(|| format!("making the pipe {}", path.display()))?;
        }
        Ok(Fifos { dir })
    }

    /// The directory, as the child is told it.
    pub(super) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The pipe the child replies on.
    pub(super) fn replies(&self) -> PathBuf {
        self.dir.path().join(REPLIES)
    }

    /// The pipe the child reads its requests from.
    pub(super) fn requests(&self) -> PathBuf {
        self.dir.path().join(REQUESTS)
    }
}

/// Opens `replies` for reading, waiting until the child opens it for writing (or
/// [`release_reader`] lets it go).
pub(super) fn open_replies(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Lets a reader waiting in [`open_replies`] go (it then reads the end at once), when the child
/// ended without opening its end.
pub(super) fn release_reader(path: &Path) {
    let _ = open_nonblocking(path);
}

fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
}

/// The parent's end of `requests`: opened at the first write, once the child reads it.
pub(super) struct RequestPipe {
    path: PathBuf,
    file: Option<File>,
}

impl RequestPipe {
    pub(super) fn new(path: PathBuf) -> RequestPipe {
        RequestPipe { path, file: None }
    }

    /// Writes `bytes` whole, as long as `alive` says the child lives (an error once it ended).
    pub(super) fn write_all(
        &mut self,
        bytes: &[u8],
        alive: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<()> {
        let gone = || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the child ended");
        let file = loop {
            if let Some(f) = self.file.as_mut() {
                break f;
            }
            match open_nonblocking(&self.path) {
                Ok(f) => self.file = Some(f),
                // (the child has not opened its end yet)
                Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ENXIO as i32) => {
                    if !alive() {
                        return Err(gone());
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(e),
            }
        };
        let mut rest = bytes;
        while !rest.is_empty() {
            match file.write(rest) {
                Ok(0) => return Err(gone()),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if !alive() {
                        return Err(gone());
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// The child's side of its channel: where it reads requests and writes its frames.
pub(crate) struct Channel {
    /// The requests, one a line.
    pub(crate) requests: Box<dyn BufRead + Send>,
    /// Where the frames go.
    pub(crate) replies: Box<dyn Write + Send>,
}

impl Channel {
    /// The channel this child was started with: the named pipes [`CHANNEL_VAR`] names (the
    /// variable is then removed), or standard input and output.
    pub(crate) fn open() -> std::io::Result<Channel> {
        match std::env::var_os(CHANNEL_VAR) {
            Some(dir) => {
                std::env::remove_var(CHANNEL_VAR);
                let dir = PathBuf::from(dir);
                // (the parent's reader waits for this end; the requests' end is opened for
                // writing too, which opens at once: this child never reads an end of its
                // requests, and ends when its parent kills it or ends)
                let replies = std::fs::OpenOptions::new()
                    .write(true)
                    .open(dir.join(REPLIES))?;
                let requests = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(dir.join(REQUESTS))?;
                Ok(Channel {
                    requests: Box::new(BufReader::new(requests)),
                    replies: Box::new(replies),
                })
            }
            None => Ok(Channel {
                requests: Box::new(BufReader::new(std::io::stdin())),
                replies: Box::new(std::io::stdout()),
            }),
        }
    }

    /// The next request: its ticket and payload; `None` at the end of the requests (the parent
    /// went away). Blank lines are skipped; a line without a ticket is an error.
    pub(crate) fn next_request(&mut self) -> std::io::Result<Option<(Ticket, String)>> {
        read_request(&mut *self.requests)
    }

    /// Writes a frame of the reply to `ticket`'s request (`kind`: `part` or `done`).
    pub(crate) fn frame(
        &mut self,
        ticket: &Ticket,
        kind: &str,
        payload: &str,
    ) -> std::io::Result<()> {
        writeln!(self.replies, "{}", ticket.frame(kind, payload))?;
        self.replies.flush()
    }

    /// Tells the parent that this child is ready for requests ([`READY`]).
    pub(crate) fn ready(&mut self) -> std::io::Result<()> {
        writeln!(self.replies, "{READY}")?;
        self.replies.flush()
    }
}

/// Reads one request line from `requests` (the child's side): its ticket and payload; `None` at
/// the end. Blank lines are skipped; a line without a ticket is an error.
pub(crate) fn read_request(
    requests: &mut dyn BufRead,
) -> std::io::Result<Option<(Ticket, String)>> {
    loop {
        let mut line = String::new();
        if requests.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        // (the parent writes every request as its ticket and a payload)
        let (ticket, payload) = Ticket::parse_request(line)
            .ok_or_else(|| std::io::Error::other("a request without its id and nonce"))?;
        return Ok(Some((ticket, payload.to_string())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::child::{Child, Recv};
    use crate::process::frame::Reply;
    use crate::process::{Spawn, Stderr};
    use std::time::Instant;

    /// A shell that keeps the terminal and speaks on its pipes: `$R` is its end of `replies`
    /// (open), and `read id nonce payload < $Q` reads a request.
    fn terminal_sh(script: &str) -> Child {
        let script = format!(
            "exec 3>\"$KENKEN_CHANNEL/replies\"; Q=\"$KENKEN_CHANNEL/requests\"; \
             echo {READY} >&3; {script}"
        );
        Spawn::program(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .terminal()
            .stderr(Stderr::Capture)
            .spawn()
            .unwrap()
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(20))
    }

    /// The child, ready, sent request 7: its ticket.
    fn asked(child: &mut Child) -> Ticket {
        match child.recv(soon()) {
            Recv::Line(l) => assert_eq!(l, READY),
            other => panic!("{other:?}"),
        }
        let ticket = Ticket::new(7);
        child.send(&ticket.request_line("{}")).unwrap();
        ticket
    }

    #[test]
    fn a_child_that_keeps_the_terminal_is_answered_on_its_pipes() {
        let mut c = terminal_sh(
            "read id nonce payload < \"$Q\"; echo printed >&3; \
             echo \"kenken-frame $id $nonce part [1]\" >&3; \
             echo \"kenken-frame $id $nonce done {\\\"got\\\":$payload}\" >&3; sleep 30",
        );
        let dir = c.channel.as_ref().unwrap().dir().to_path_buf();
        assert!(dir.join(REPLIES).exists());
        let t = asked(&mut c);
        assert_eq!(c.next_reply(&t, soon()), Ok(Reply::Part("[1]".into())));
        assert_eq!(
            c.next_reply(&t, soon()),
            Ok(Reply::Done("{\"got\":{}}".into()))
        );
        assert_eq!(c.take_printed(), vec!["printed"]);
        // (their names went once both ends of both were open)
        assert!(c.channel.is_none() && !dir.exists());
    }

    #[test]
    fn a_forged_or_a_cut_short_frame_on_the_pipes_ends_the_child() {
        for (script, says) in [
            (
                "read id nonce payload < \"$Q\"; \
                 echo \"kenken-frame $id 00000000000000000000000000000000 done {}\" >&3; sleep 30",
                "not the current request's",
            ),
            (
                "read id nonce payload < \"$Q\"; printf \"kenken-frame $id $nonce done {\" >&3",
                "cut short",
            ),
        ] {
            let mut c = terminal_sh(script);
            let t = asked(&mut c);
            match c.next_reply(&t, soon()) {
                Err(WorkerError::BadFrame(why)) => assert!(why.contains(says), "{script}: {why}"),
                other => panic!("{script}: {other:?}"),
            }
            assert!(c.has_ended(), "{script}");
        }
    }

    #[test]
    fn a_child_that_dies_mid_request_or_before_its_pipes_is_told() {
        // (killed while it holds its end of the pipe: the end is read, nothing hangs)
        let mut c = terminal_sh("read id nonce payload < \"$Q\"; kill -9 $$");
        let t = asked(&mut c);
        match c.next_reply(&t, None) {
            Err(WorkerError::Died { status, .. }) => assert_eq!(status, "killed by SIGKILL"),
            other => panic!("{other:?}"),
        }
        // (it never opens its pipes: a request to it is an error, and so is its reply)
        let mut c = Spawn::program(Path::new("/bin/sh"), &["-c".into(), "exit 3".into()])
            .terminal()
            .spawn()
            .unwrap();
        let t = Ticket::new(1);
        assert!(c.send(&t.request_line("{}")).is_err());
        match c.next_reply(&t, None) {
            Err(WorkerError::Died { status, .. }) => assert_eq!(status, "exit status 3"),
            other => panic!("{other:?}"),
        }
    }
}
