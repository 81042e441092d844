//! A running child process and its process group: its output read as lines or as the frames of
//! a reply, its standard error, how it ended, and killing the whole group (also when dropped).

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{ChildStdin, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::channel::{release_reader, Fifos, RequestPipe};
use super::frame::{Reply, Ticket};
use super::lines::Line;
use super::{WorkerError, CANNOT_CONFINE, FRAME};

/// At most this much of a child's printed output (lines that are not frames) is kept.
const PRINTED_CAP: usize = 64 * 1024;
/// How long the rest of a process group may hold a pipe open after its leader ended.
const DRAIN: Duration = Duration::from_millis(500);

/// What [`Child::recv`] got.
#[derive(Debug)]
pub(crate) enum Recv {
    /// A line of standard output (without its newline).
    Line(String),
    /// The last line of standard output, which ended without a newline.
    Cut(String),
    /// The deadline passed first (the child still runs).
    Timeout,
    /// Standard output ended: the child ended (its group is killed and it is reaped), or its
    /// output passed the cap (then it is killed).
    Ended,
}

/// Where requests to a child go.
pub(super) enum Input {
    /// Its standard input.
    Stdin(ChildStdin),
    /// The `requests` pipe of its channel (see `channel.rs`).
    Fifo(RequestPipe),
    /// Closed.
    Closed,
}

/// A running child process and its process group, killed when dropped.
pub struct Child {
    /// Whether the child leads a process group of its own (killed with it).
    pub(super) group: bool,
    pub(super) child: std::process::Child,
    pub(super) stdin: Input,
    /// The named pipes of a child that keeps the terminal ([`super::Spawn::terminal`]).
    pub(super) channel: Option<Fifos>,
    pub(super) lines: Receiver<Line>,
    pub(super) stderr: Arc<Mutex<Vec<u8>>>,
    pub(super) err_reader: Option<std::thread::JoinHandle<()>>,
    pub(super) status: Option<ExitStatus>,
    /// What the child printed (lines that are not frames), at most [`PRINTED_CAP`] bytes.
    pub(super) printed: Vec<String>,
    pub(super) printed_len: usize,
    /// Its output passed a cap (it was killed).
    pub(super) overflowed: bool,
    /// When the last line received was read from the pipe.
    pub(super) last_at: Option<Instant>,
}

impl Child {
    /// The child's process id.
    pub(crate) fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes `line` and a newline to the child's standard input (or the requests' pipe of
    /// its channel).
    pub(crate) fn send(&mut self, line: &str) -> std::io::Result<()> {
        let text = format!("{line}\n");
        match &mut self.stdin {
            Input::Stdin(stdin) => {
                stdin.write_all(text.as_bytes())?;
                stdin.flush()
            }
            Input::Fifo(pipe) => {
                let (child, status) = (&mut self.child, &mut self.status);
                pipe.write_all(text.as_bytes(), &mut || {
                    if status.is_none() {
                        *status = child.try_wait().ok().flatten();
                    }
                    status.is_none()
                })?;
                // (both ends of both pipes are open now: their names go, so that nothing
                // else finds them by name)
                self.channel = None;
                Ok(())
            }
            Input::Closed => Err(std::io::Error::other("the child has no standard input")),
        }
    }

    /// When the last line [`Child::recv`] (or [`Child::next_reply`]) returned was read from the
    /// child's output: this process's clock, as close to the child's writing it as a reader
    /// can be.
    pub(crate) fn last_read_at(&self) -> Option<Instant> {
        self.last_at
    }

    /// Closes the child's standard input (it reads the end of it from now on).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = Input::Closed;
    }

    /// The next line of standard output, waiting until `deadline` at most.
    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Recv {
        loop {
            let slice = Duration::from_millis(50);
            let wait = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()).min(slice),
                None => slice,
            };
            match self.lines.recv_timeout(wait) {
                Ok(Line::Text { text, complete, at }) => {
                    self.last_at = Some(at);
                    return if complete {
                        Recv::Line(text)
                    } else {
                        Recv::Cut(text)
                    };
                }
                Ok(Line::Overflow) => {
                    self.overflowed = true;
                    self.kill();
                    return Recv::Ended;
                }
                Ok(Line::Error) | Err(RecvTimeoutError::Disconnected) => {
                    self.kill();
                    return Recv::Ended;
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if self.status.is_some() {
                // (it ended before: what is left comes within DRAIN, or nothing will)
                return match self.lines.recv_timeout(DRAIN) {
                    Ok(Line::Text { text, complete, at }) => {
                        self.last_at = Some(at);
                        if complete {
                            Recv::Line(text)
                        } else {
                            Recv::Cut(text)
                        }
                    }
                    _ => Recv::Ended,
                };
            }
            if self.status.is_none() {
                if let Ok(Some(s)) = self.child.try_wait() {
                    // the leader ended: what it wrote is in the pipe, which the rest of its
                    // group may hold open; they go, and what is left is read
                    self.status = Some(s);
                    self.kill_group();
                    return match self.lines.recv_timeout(DRAIN) {
                        Ok(Line::Text { text, complete, at }) => {
                            self.last_at = Some(at);
                            if complete {
                                Recv::Line(text)
                            } else {
                                Recv::Cut(text)
                            }
                        }
                        _ => Recv::Ended,
                    };
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Recv::Timeout;
            }
        }
    }

    /// The next frame of the reply to the request of `ticket`, waiting until `deadline` at
    /// most: a part, the reply, or the deadline (the child then runs on). Lines that are not
    /// frames are kept as printed output ([`Child::printed`]). A frame that is not this
    /// request's, malformed or cut short, or output past the caps, ends the child: an error.
    pub(crate) fn next_reply(
        &mut self,
        ticket: &Ticket,
        deadline: Option<Instant>,
    ) -> Result<Reply, WorkerError> {
        loop {
            match self.recv(deadline) {
                Recv::Line(l) => match ticket.read(&l) {
                    None => self.keep_printed(l),
                    Some(Ok(reply)) => return Ok(reply),
                    Some(Err(why)) => {
                        self.kill();
                        return Err(WorkerError::BadFrame(why));
                    }
                },
                Recv::Cut(l) => {
                    if l.starts_with(FRAME) {
                        self.kill();
                        return Err(WorkerError::BadFrame(
                            "its reply was cut short (the output ended within a frame)".into(),
                        ));
                    }
                    self.keep_printed(l);
                }
                Recv::Timeout => return Ok(Reply::Timeout),
                Recv::Ended => {
                    if self.overflowed {
                        return Err(WorkerError::BadFrame(
                            "it wrote more than the judge reads (a frame over the cap, or \
                             more output in all than the cap): it was stopped"
                                .into(),
                        ));
                    }
                    return Err(self.died());
                }
            }
        }
    }

    fn keep_printed(&mut self, line: String) {
        if self.printed_len < PRINTED_CAP {
            self.printed_len += line.len() + 1;
            self.printed.push(line);
        }
    }

    /// What the child printed so far (lines of its standard output that were not frames), at
    /// most [`PRINTED_CAP`] bytes; taking it empties it.
    pub(crate) fn take_printed(&mut self) -> Vec<String> {
        self.printed_len = 0;
        std::mem::take(&mut self.printed)
    }

    /// Every remaining line until the child ends or `deadline` passes (then it is killed):
    /// the lines, and whether it ended by itself.
    pub(crate) fn collect(&mut self, deadline: Instant) -> (Vec<String>, bool) {
        let mut lines = Vec::new();
        loop {
            match self.recv(Some(deadline)) {
                Recv::Line(l) | Recv::Cut(l) => lines.push(l),
                Recv::Ended => return (lines, true),
                Recv::Timeout => {
                    self.kill();
                    return (lines, false);
                }
            }
        }
    }

    /// Whether the child has ended (without waiting).
    pub fn has_ended(&mut self) -> bool {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status.is_some()
    }

    /// How the child ended, once it has (waiting for it).
    pub fn wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.wait().ok();
        }
        self.status
    }

    /// What the child wrote to standard error (its start, when captured), once it ended.
    pub(crate) fn stderr_text(&mut self) -> String {
        if self.status.is_some() {
            if let Some(h) = self.err_reader.take() {
                let _ = h.join();
            }
        }
        self.stderr
            .lock()
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .unwrap_or_default()
    }

    /// The error that says the child died, with how and (if captured) its last words.
    pub(crate) fn died(&mut self) -> WorkerError {
        let status = self.wait().map_or_else(|| "unknown".into(), status_text);
        let stderr = self.stderr_text();
        if let Some(why) = stderr.lines().find_map(|l| l.strip_prefix(CANNOT_CONFINE)) {
            return WorkerError::Confine(why.to_string());
        }
        WorkerError::Died { status, stderr }
    }

    fn kill_group(&self) {
        if !self.group {
            return;
        }
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }

    /// Sends `SIGINT` to the child alone, unless it has ended: whether it was sent.
    pub(crate) fn interrupt(&mut self) -> bool {
        if self.has_ended() {
            return false;
        }
        i32::try_from(self.child.id())
            .is_ok_and(|pid| nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGINT).is_ok())
    }

    /// Kills the child and every process of its group, and reaps the child.
    pub fn kill(&mut self) {
        if self.status.is_none() {
            self.kill_group();
            let _ = self.child.kill();
        } else {
            // (the group may outlive its leader)
            self.kill_group();
        }
        self.wait();
        self.stdin = Input::Closed;
        if let Some(c) = &self.channel {
            // (a reader still waiting for the child's end of the pipe reads the end of it)
            release_reader(&c.replies());
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How an exit status reads in a message: `exit status 1`, `killed by SIGKILL`.
pub(crate) fn status_text(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => match Signal::try_from(sig) {
            Ok(signal) => format!("killed by {}", signal.as_str()),
            Err(_) => format!("killed by signal {sig}"),
        },
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::lines::PRINTED_LINE_CAP;
    use crate::process::{Spawn, Stderr, FRAME_CAP, STDERR_CAP};
    use std::path::Path;

    fn sh(script: &str) -> Child {
        Spawn::program(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .stderr(Stderr::Capture)
            .spawn()
            .unwrap()
    }

    #[test]
    fn lines_come_in_order_and_the_end_is_seen() {
        let mut c = sh("echo one; echo two >&2; printf 'three'");
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(10));
        assert!(ended);
        assert_eq!(lines, vec!["one", "three"]);
        assert_eq!(c.wait().and_then(|s| s.code()), Some(0));
        assert_eq!(c.stderr_text(), "two\n");
    }

    #[test]
    fn a_background_process_holding_the_pipe_does_not_hold_the_parent() {
        let start = Instant::now();
        let mut c = sh("sleep 30 & echo started");
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(20));
        assert!(ended);
        assert_eq!(lines, vec!["started"]);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_deadline_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let mut c = sh(&format!("sleep 30 & echo $! > {}; wait", pidfile.display()));
        let (lines, ended) = c.collect(Instant::now() + Duration::from_millis(500));
        assert!(!ended && lines.is_empty());
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // the background sleep was killed with its group (a zombie until init reaps it at most)
        std::thread::sleep(Duration::from_millis(200));
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z "), "{state}");
    }

    #[test]
    fn output_past_the_cap_ends_the_child() {
        let mut c = Spawn::program(Path::new("/bin/sh"), &["-c".into(), "yes".into()])
            .output_cap(1 << 16)
            .spawn()
            .unwrap();
        let (lines, ended) = c.collect(Instant::now() + Duration::from_secs(10));
        assert!(ended);
        assert!(lines.len() <= 1 << 15);
    }

    /// A child that runs `script` with `$N` the ticket's nonce, and the ticket.
    fn replying(script: &str, cap: usize) -> (Child, Ticket) {
        let ticket = Ticket::new(7);
        let script = script.replace("$N", ticket.nonce());
        let child = Spawn::program(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .stderr(Stderr::Capture)
            .frame_cap(cap)
            .spawn()
            .unwrap();
        (child, ticket)
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(20))
    }

    #[test]
    fn only_the_requests_frames_are_its_reply_and_the_rest_is_printed_output() {
        let (mut c, t) = replying(
            "echo 'kenken-reply {\"forged\":1}'; echo 'kenken-frame 7 $N part [1]'; \
             printf 'printed '; echo 'text'; echo 'kenken-frame 7 $N done {\"ok\":true}'",
            FRAME_CAP,
        );
        assert_eq!(c.next_reply(&t, soon()), Ok(Reply::Part("[1]".into())));
        assert_eq!(
            c.next_reply(&t, soon()),
            Ok(Reply::Done("{\"ok\":true}".into()))
        );
        assert_eq!(
            c.take_printed(),
            vec!["kenken-reply {\"forged\":1}", "printed text"]
        );
    }

    #[test]
    fn a_forged_an_out_of_step_or_a_cut_short_frame_ends_the_child() {
        for (script, says) in [
            // a guessed nonce
            (
                "echo 'kenken-frame 7 00000000000000000000000000000000 done {}'; sleep 30",
                "not the current request's",
            ),
            // the nonce with another id (a reply for another request)
            ("echo 'kenken-frame 6 $N done {}'; sleep 30", "another id"),
            (
                "echo 'kenken-frame 7 $N later {}'; sleep 30",
                "unknown kind",
            ),
            ("printf 'kenken-frame 7 $N done {\"cut'", "cut short"),
        ] {
            let (mut c, t) = replying(script, FRAME_CAP);
            match c.next_reply(&t, soon()) {
                Err(WorkerError::BadFrame(why)) => assert!(why.contains(says), "{script}: {why}"),
                other => panic!("{script}: {other:?}"),
            }
            // (killed: it does not sleep on)
            assert!(c.has_ended(), "{script}");
        }
    }

    #[test]
    fn what_a_child_writes_costs_the_parent_a_bounded_buffer() {
        // an endless line that is not a frame: kept to its first bytes, read away after
        let (mut c, t) = replying("head -c 50000000 /dev/zero | tr '\\0' x; echo", FRAME_CAP);
        match c.next_reply(&t, soon()) {
            Err(WorkerError::Died { .. }) => {}
            other => panic!("{other:?}"),
        }
        let printed = c.take_printed();
        assert_eq!(printed.len(), 1);
        assert_eq!(printed[0].len(), PRINTED_LINE_CAP);
        // a frame over the cap: the child is stopped
        let (mut c, t) = replying(
            "printf 'kenken-frame 7 $N part '; head -c 5000000 /dev/zero | tr '\\0' x; echo",
            1 << 20,
        );
        match c.next_reply(&t, soon()) {
            Err(WorkerError::BadFrame(why)) => assert!(why.contains("over the cap"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_end_of_a_long_stderr_is_kept_with_its_start() {
        // Regression (#36): only the first 64 KiB were kept, and a panic's message comes last.
        let mut c = sh(
            "echo first >&2; head -c 200000 /dev/zero | tr '\\0' x >&2; \
                        echo >&2; echo 'the last words' >&2; exit 3",
        );
        c.collect(Instant::now() + Duration::from_secs(20));
        let err = c.stderr_text();
        assert!(err.starts_with("first\n"), "{}", &err[..20]);
        assert!(
            err.ends_with("the last words\n"),
            "{}",
            &err[err.len() - 20..]
        );
        assert!(err.len() <= 2 * STDERR_CAP + 5, "{}", err.len());
        assert!(c.died().to_string().ends_with("the last words"));
    }

    #[test]
    fn exit_statuses_read_well() {
        let mut c = sh("kill -9 $$");
        c.collect(Instant::now() + Duration::from_secs(10));
        assert_eq!(
            c.wait().map(status_text).as_deref(),
            Some("killed by SIGKILL")
        );
        assert_eq!(
            c.died().to_string(),
            "the process stopped (killed by SIGKILL)"
        );
    }
}
