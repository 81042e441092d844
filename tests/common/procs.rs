//! Processes as `/proc` shows them: a process's descendants, whether they still run, and a
//! guard that kills them whatever a test's assertions do (the lifecycle tests).

use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A process, known by its id and its start time (an id may be reused once it ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    start: u64,
}

/// What `/proc/PID/stat` says of a process: its state, its parent and its start time.
fn stat(pid: i32) -> Option<(char, i32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // (the fields after the command's closing parenthesis: state, parent, ... start time is
    // the 22nd field of the line, the 20th after the parenthesis)
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((state, ppid, start))
}

impl Proc {
    /// The process `pid`, if it exists.
    pub fn of(pid: i32) -> Option<Proc> {
        stat(pid).map(|(_, _, start)| Proc { pid, start })
    }

    /// Whether it still runs (a zombie, dead but not reaped yet, does not).
    pub fn alive(&self) -> bool {
        stat(self.pid).is_some_and(|(state, _, start)| start == self.start && state != 'Z')
    }

    /// The program it runs (empty when unknown).
    pub fn exe(&self) -> String {
        std::fs::read_link(format!("/proc/{}/exe", self.pid))
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }

    /// Its command line, for messages.
    pub fn cmdline(&self) -> String {
        std::fs::read(format!("/proc/{}/cmdline", self.pid))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default()
    }
}

/// Every process alive now whose parent is `pid`.
pub fn children(pid: i32) -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let child: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let (state, ppid, start) = stat(child)?;
        (ppid == pid && state != 'Z').then_some(Proc { pid: child, start })
    })
    .collect()
}

/// Every process alive now that descends from `pid` (its children, theirs, ...).
pub fn descendants(pid: i32) -> Vec<Proc> {
    let mut found = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for c in children(p) {
            todo.push(c.pid);
            found.push(c);
        }
    }
    found
}

/// Waits (until `within` passed) until `pid` has at least `n` descendants whose command lines
/// all `ready` accepts, checking every 50 ms: the descendants then (which may be fewer).
pub fn await_descendants(
    pid: i32,
    n: usize,
    within: Duration,
    ready: impl Fn(&[Proc]) -> bool,
) -> Vec<Proc> {
    let deadline = Instant::now() + within;
    loop {
        let found = descendants(pid);
        if (found.len() >= n && ready(&found)) || Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits (until `within` passed) until none of `procs` runs: those that still run then.
pub fn await_gone(procs: &[Proc], within: Duration) -> Vec<Proc> {
    let deadline = Instant::now() + within;
    loop {
        let left: Vec<Proc> = procs.iter().copied().filter(Proc::alive).collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills the processes it holds when dropped (those that still run): a test's children end
/// even when one of its assertions fails.
#[derive(Default)]
pub struct Reaper(pub Vec<Proc>);

impl Reaper {
    /// Holds `procs` too.
    pub fn hold(&mut self, procs: &[Proc]) {
        self.0.extend_from_slice(procs);
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        for p in &self.0 {
            if p.alive() {
                let _ = kill(Pid::from_raw(p.pid), Signal::SIGKILL);
            }
        }
    }
}

/// How long a process may take to end once it is told to (generous: the machine may be busy).
pub const END_WITHIN: Duration = Duration::from_secs(30);
