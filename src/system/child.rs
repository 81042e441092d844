//! What every child system shares: a goal's frames read into answers and an [`End`], by this
//! process's clock.
//!
//! A child system's driver (`prolog/gnu_driver.pl`, `prolog/swi_driver.pl`) says `part loaded`
//! when the program is loaded and the goal starts, a `part` frame per answer (`T` written
//! quoted), and a `done` frame: `complete`, `limit` or `exception(B)`. A child that ends with
//! no `done` frame called `halt` (or died); a frame that is not the request's makes the whole
//! run untrusted.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Instant;

use super::{Answer, Bound, ChildSetup, Clock, Crash, End, Goal, Outcome, Reach, SystemError};
use crate::process::{
    status_text, Child, Confinement, Reply, Spawn, Stderr, Ticket, WorkerError, CANNOT_CONFINE,
};
use crate::puzzle::Grid;

/// The most answers asked of a child when every one is wanted (gprolog's integers are
/// 60-bit).
pub(super) const ALL_ANSWERS: u64 = 1 << 50;

/// The `Max` a driver is told for `goal`.
pub(super) fn max_answers(goal: &Goal) -> u64 {
    goal.max_answers.map_or(ALL_ANSWERS, |k| k as u64)
}

/// A deadline beyond any goal, when none is asked.
pub(super) fn deadline(goal: &Goal, clock: &Clock) -> Instant {
    goal.deadline.unwrap_or_else(|| {
        clock
            .called()
            .checked_add(std::time::Duration::from_secs(100 * 365 * 86_400))
            .unwrap_or_else(|| clock.called())
    })
}

/// An answer's text read as the goal's grid, or kept as text.
pub(super) fn answer(text: &str, size: usize) -> Answer {
    let value = match parse_grid(text) {
        Some(g) if g.len() == size && g.iter().all(|r| r.len() == size) => Ok(g),
        _ => Err(text.to_string()),
    };
    Answer {
        value,
        inferences: None,
    }
}

/// The end a driver's `done` frame says.
pub(super) fn reply_end(done: &str) -> End {
    match done {
        "complete" => End::Complete,
        "limit" => End::Stopped(Bound::Answers),
        d => match d
            .strip_prefix("exception(")
            .and_then(|b| b.strip_suffix(')'))
        {
            Some(ball) => End::Exception(ball.to_string()),
            None => End::Untrusted(format!("an unknown reply {:?}", shorten(d))),
        },
    }
}

/// The end of a child that ended by itself without a reply: `halt(Code)` when it exited with
/// a code and said nothing `fatal`, else a crash.
pub(super) fn death_end(
    status: Option<ExitStatus>,
    stderr: &str,
    fatal: &dyn Fn(&str) -> bool,
) -> End {
    let fatal_line = stderr.lines().find(|l| fatal(l));
    match (fatal_line, status.and_then(|s| s.code())) {
        (None, Some(code)) => End::Halted(code.into()),
        (line, _) => {
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
            crash(line.or(last).map(|l| l.trim().to_string()), status, stderr)
        }
    }
}

/// A crash: `why` (else how it ended), its status and standard error.
pub(super) fn crash(why: Option<String>, status: Option<ExitStatus>, stderr: &str) -> End {
    let status_words = status.map(status_text);
    End::Crashed(Crash {
        why: why
            .or_else(|| status_words.clone())
            .unwrap_or_else(|| "it stopped".into()),
        status: status_words,
        stderr: stderr.to_string(),
    })
}

/// How a system tells how its child ended when it ended by itself without a reply, from its
/// exit status (`None`: unknown) and its standard error ([`death_end`], or the system's own).
pub(super) type Death<'a> = &'a dyn Fn(Option<ExitStatus>, &str) -> End;

/// What a child said of why it could not confine itself (to be believed only of a child that
/// runs nothing of the program: a program can print it too).
pub(super) fn cannot_confine(lines: &[String], stderr: &str) -> Option<String> {
    lines
        .iter()
        .map(String::as_str)
        .chain(stderr.lines())
        .find_map(|l| l.strip_prefix(CANNOT_CONFINE))
        .map(str::to_string)
}

/// Starts `program` (of a system's installation) with `args` as `setup` says: confined, reading
/// `read` and the setup's paths, executing only `program`, writing only in `scratch` (a
/// private tmpfs of the setup's scratch limit when `private`, else the folder itself, for a
/// compiler whose output is read next); or, when the setup says so, unconfined, in `scratch`.
pub(super) fn start(
    setup: &ChildSetup,
    program: &Path,
    args: &[OsString],
    scratch: &Path,
    mut read: Vec<PathBuf>,
    private: bool,
) -> Result<Child, WorkerError> {
    let spawn = if setup.confined {
        read.extend(setup.read.iter().cloned());
        let confinement = Confinement {
            read,
            hidden: setup.hidden.clone(),
            scratch: scratch.to_path_buf(),
            exec: vec![program.to_path_buf()],
            limits: setup.limits,
            scratch_size: private.then_some(setup.limits.scratch),
        };
        Spawn::confined_exec(program, args, &confinement)?
    } else {
        Spawn::program(program, args).current_dir(scratch)
    };
    spawn
        .stderr(Stderr::Capture)
        .output_cap(setup.output_cap)
        .frame_cap(setup.frame_cap)
        .spawn()
}

/// What a child run left besides its answers.
pub(super) struct Framed {
    /// How it went.
    pub(super) outcome: Outcome,
    /// Whether the goal started (the `loaded` frame came).
    pub(super) loaded: bool,
    /// What it printed before the goal started (the load's messages).
    pub(super) printed_before_loading: Vec<String>,
    /// Its standard error.
    pub(super) stderr: String,
}

/// Reads the frames of `ticket`'s run of `goal` from `child` until its `done` frame, its end
/// or the deadline, giving each answer to `answer` as it comes; then kills the child (its
/// process group) and reaps it. `death` tells how a child that ended without a reply ended.
/// Nothing the child says of its confinement is believed here: the program may have printed
/// it (each system checks confinement where nothing of the program runs).
pub(super) fn read_run(
    mut child: Child,
    ticket: &Ticket,
    goal: &Goal,
    mut clock: Clock,
    death: Death<'_>,
    answer: &mut dyn FnMut(Answer),
) -> Result<Framed, SystemError> {
    let deadline = deadline(goal, &clock);
    let mut loaded = false;
    let mut printed = Vec::new();
    let mut at = None;
    let mut answers = 0u64;
    let end = loop {
        match child.next_reply(ticket, Some(deadline)) {
            Ok(Reply::Part(p)) if p == "loaded" && !loaded => {
                loaded = true;
                clock.goal_started(child.last_read_at().unwrap_or_else(Instant::now));
                printed = child.take_printed();
            }
            // (the driver stops at the answers asked for: more is not its word, and is not
            // kept)
            Ok(Reply::Part(_)) if loaded && answers >= max_answers(goal) => {
                break End::Untrusted(format!(
                    "more answers than the {} asked for",
                    max_answers(goal)
                ))
            }
            Ok(Reply::Part(p)) if loaded => {
                answers += 1;
                answer(self::answer(&p, goal.size))
            }
            Ok(Reply::Part(p)) => {
                break End::Untrusted(format!(
                    "an answer before the goal started: {}",
                    shorten(&p)
                ))
            }
            Ok(Reply::Done(d)) => {
                at = child.last_read_at();
                break reply_end(&d);
            }
            Ok(Reply::Timeout) => break End::Stopped(Bound::Time),
            Err(WorkerError::BadFrame(why)) => break End::Untrusted(why),
            // (it ended: how is read below)
            Err(_) => break End::Halted(0),
        }
    };
    let at = at.unwrap_or_else(Instant::now);
    if !loaded {
        printed = child.take_printed();
    }
    let ended = child.has_ended();
    child.kill();
    let status = child.wait();
    let stderr = child.stderr_text();
    let end = match end {
        End::Halted(_) => death(if ended { status } else { None }, &stderr),
        end => end,
    };
    let elapsed = match end {
        // (the whole allowance, from the call: the goal did not end within it)
        End::Stopped(Bound::Time) => deadline.saturating_duration_since(clock.called()),
        _ => clock.until(at),
    };
    Ok(Framed {
        outcome: Outcome {
            end,
            elapsed,
            inferences: None,
            cpu: None,
        },
        loaded,
        printed_before_loading: printed,
        stderr,
    })
}

/// Parses `[[1,2],[2,1]]` (spaces allowed) as a grid.
pub(crate) fn parse_grid(text: &str) -> Option<Grid> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let inner = inner.strip_prefix('[')?.strip_suffix(']')?;
    inner
        .split("],[")
        .map(|row| {
            if row.is_empty() {
                return Some(Vec::new());
            }
            row.split(',').map(|c| c.parse().ok()).collect()
        })
        .collect()
}

/// What a child system started as `setup` says may reach ([`PrologSystem::reach`]): its
/// `scratch` folder, and `own` (its installation, its driver) with what `setup` lets it read;
/// `None` unconfined.
///
/// [`PrologSystem::reach`]: super::PrologSystem::reach
pub(super) fn reach(setup: &ChildSetup, scratch: &Path, mut own: Vec<PathBuf>) -> Option<Reach> {
    setup.confined.then(|| {
        own.extend(setup.read.iter().cloned());
        Reach {
            scratch: scratch.to_path_buf(),
            read: own,
        }
    })
}

/// `path` quoted as a Prolog atom (ISO escapes, which every system reads).
pub(super) fn quoted_atom(path: &Path) -> String {
    crate::prolog::write::quoted_atom(&path.display().to_string())
}

/// The first 80 characters of `text`.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_and_deaths_are_read() {
        assert_eq!(reply_end("complete"), End::Complete);
        assert_eq!(reply_end("limit"), End::Stopped(Bound::Answers));
        assert_eq!(
            reply_end("exception(error(foo,bar))"),
            End::Exception("error(foo,bar)".into())
        );
        assert!(matches!(reply_end("lies"), End::Untrusted(_)));
        assert_eq!(
            answer("[[1,2],[2,1]]", 2).value,
            Ok(vec![vec![1, 2], vec![2, 1]])
        );
        assert_eq!(answer("[[1]]", 2).value, Err("[[1]]".into()));
        assert_eq!(parse_grid("[]"), Some(vec![]));
        assert_eq!(parse_grid("[[1,_123],[2,1]]"), None);
        assert_eq!(
            quoted_atom(Path::new("/a/o'b\\c\nd")),
            "'/a/o\\'b\\\\c\\nd'"
        );
    }
}
