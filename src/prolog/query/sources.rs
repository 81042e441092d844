//! Where a query's [`Answers`](super::Answers) come from: [`InThread`] (a session's machine) or
//! [`InWorker`] (a worker process's reply).

use std::time::{Duration, Instant};

use scryer_prolog::{LeafAnswer, QueryState, Term as ScryerTerm};

use super::{excerpt, item, End, Item, Lost, Printed, QueryError, EXCERPT};
use crate::error::Context;
use crate::process::{Reply, Worker, WorkerError};
use crate::prolog::guard::catch as quietly;
use crate::prolog::term::{chars_of_owned, drop_scryer, term_text};
use crate::prolog::PrologError;
use crate::Limit;
use source::Got;

/// Where the [`Answers`](super::Answers) of a query come from: [`InThread`] or [`InWorker`]
/// (sealed).
pub trait AnswerSource: source::Read {}

pub(super) mod source {
    use super::{Item, Printed, QueryError};

    /// What a source gives besides its items.
    #[derive(Debug, Default)]
    pub struct Got {
        /// The inferences so far.
        pub(in crate::prolog::query) inferences: Option<u64>,
        /// What the goal printed so far.
        pub(in crate::prolog::query) printed: Printed,
        /// What Scryer wrote to the process's standard output so far (its loader's
        /// warnings), kept from it.
        pub(in crate::prolog::query) warnings: Vec<String>,
    }

    /// The next item a source gives (`None`: the source is done).
    pub struct Next(pub(in crate::prolog::query) Option<Result<Item, QueryError>>);

    /// What [`super::Answers`] asks of its source.
    pub trait Read {
        /// The next item; the inferences and what was printed are updated.
        fn read(&mut self, got: &mut Got) -> Next;
        /// The engine's state after the query (kept for its replacement).
        fn keep(&mut self, state: &str);
        /// The query is over: what is left of its reply is read.
        fn finish(&mut self);
        /// The query is left before its end (an error, or the answers dropped).
        fn abandon(&mut self);
    }
}

/// The source of answers in this thread (a [`Session`](crate::prolog::Session)'s machine).
pub struct InThread<'a> {
    pub(super) state: Option<QueryState<'a>>,
    /// What the session keeps for a replacement engine.
    pub(super) kept: &'a mut Kept,
    /// What the engine writes to `user_output`.
    pub(super) capture: &'a super::Capture,
    /// The last item read was an answer: the wrapper reads whether to go on before the next.
    pub(super) after_answer: bool,
}

/// What an engine's owner keeps for the engine that may replace it.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The engine must be replaced before the next query (a query was left half-run, or the
    /// engine failed).
    pub(crate) broken: bool,
    /// The state after the last query that may have changed it (`kk_state_pieces/1`'s text, joined).
    pub(crate) state: Option<String>,
    /// The process id of the worker that holds the state (a [`QueryWorker`](super::QueryWorker)).
    pub(crate) holder: Option<u32>,
    /// The number the holder gave the state ([`super::StateDelta`]: 0 for a state sent whole).
    pub(crate) number: u64,
    /// The process id of a worker that was sent the state in the background (its reply not
    /// read yet: the next query reads it first): [`restore_early`].
    pub(crate) restoring: Option<u32>,
    /// What the engine lost when it was last replaced, not yet told (by
    /// [`Answers::lost`](super::Answers::lost)).
    pub(crate) lost: Vec<Lost>,
}

/// The source of answers from a worker process (a [`QueryWorker`](super::QueryWorker)).
pub struct InWorker<'a> {
    /// `None` once the reply is read (or there was none).
    pub(super) worker: Option<&'a mut Worker>,
    pub(super) deadline: Option<Instant>,
    /// Where the state after the query goes.
    pub(super) kept: Option<&'a mut Kept>,
    /// The number of the state the worker sent as what changed ([`InWorker::whole`]).
    pub(super) number: u64,
}

impl std::fmt::Debug for InThread<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InThread")
            .field("running", &self.state.is_some())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for InWorker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InWorker")
            .field("pid", &self.worker.as_ref().and_then(|w| w.pid()))
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl AnswerSource for InThread<'_> {}
impl AnswerSource for InWorker<'_> {}

impl source::Read for InThread<'_> {
    fn read(&mut self, got: &mut Got) -> source::Next {
        source::Next(self.next_item(got))
    }

    fn keep(&mut self, state: &str) {
        self.kept.state = Some(state.to_string());
    }

    fn finish(&mut self) {
        self.state = None;
    }

    /// A query left before its end (its answers dropped, `.take(3)`) is asked to stop: the
    /// wrapper cuts the goal when asked for its next answer and ends, and the machine goes on
    /// with its state. Anything else (an error, a goal that gives another answer) leaves the
    /// machine to be replaced: Scryer cannot drop a query that holds choice points.
    fn abandon(&mut self) {
        if self.state.is_none() {
            return;
        }
        if !self.kept.broken && self.after_answer && self.capture.tell(false) {
            let mut got = Got::default();
            // (told to stop: not to go on as well)
            self.after_answer = false;
            match self.next_item(&mut got) {
                Some(Ok(Item::End(_, state))) => {
                    if let Some(state) = state {
                        self.keep(&state);
                    }
                }
                _ => self.kept.broken = true,
            }
            // (what the goal printed meanwhile is left unread)
            let _ = self.capture.take();
        } else {
            // left before its end: the machine still holds the query
            self.kept.broken = true;
        }
        self.state = None;
    }
}

impl InThread<'_> {
    fn next_item(&mut self, got: &mut Got) -> Option<Result<Item, QueryError>> {
        let state = self.state.as_mut()?;
        if std::mem::take(&mut self.after_answer) && !self.capture.tell(true) {
            self.kept.broken = true;
        }
        let (next, warnings) = if self.capture.keeps_stdout() {
            crate::prolog::stdout::kept(|| quietly(|| state.next()))
        } else {
            (quietly(|| state.next()), Vec::new())
        };
        got.warnings.extend(warnings);
        let (printed, cut) = self.capture.take();
        got.printed.push(&printed, cut);
        let item = match next {
            Ok(Some(Ok(LeafAnswer::LeafAnswer { mut bindings, .. }))) => {
                if let Some(ScryerTerm::Integer(i)) = bindings.get("I") {
                    got.inferences = i.to_string().parse().ok();
                }
                // (the loader's warnings, kept from the process's standard output by the
                // wrapper: prolog/host_warnings.pl)
                if let Some(ScryerTerm::List(ws)) = bindings.remove("W") {
                    got.warnings
                        .extend(ws.into_iter().filter_map(chars_of_owned));
                }
                match bindings.remove("R") {
                    Some(r) => item(r).map_err(QueryError::from),
                    // The wrapper stopped before its end: the machine itself halted (halt/0,1
                    // in a goal built as it ran, which the host's load-time and typed-goal
                    // rewriting cannot see): no longer to be trusted, as after a panic.
                    None => {
                        self.kept.broken = true;
                        Ok(Item::End(
                            End::Crashed(
                                "the goal stopped the Prolog engine (halt/0,1 in a goal built \
                                 as it ran); the session was restarted"
                                    .into(),
                            ),
                            None,
                        ))
                    }
                }
            }
            Ok(Some(Ok(_))) | Ok(None) => {
                self.kept.broken = true;
                Err(PrologError::Protocol("the wrapper ended without end/2".into()).into())
            }
            Ok(Some(Err(e))) => {
                self.kept.broken = true;
                let text = excerpt(&term_text(&e));
                drop_scryer(e);
                Err(PrologError::Protocol(text).into())
            }
            Err(panic) => {
                // Scryer 0.10 panics on a few goals instead of raising an error (asserting a
                // cyclic term in a user's predicate): the machine is no longer to be trusted.
                // (Its message was kept off the standard error: `guard::catch`.)
                self.kept.broken = true;
                Ok(Item::End(
                    End::Crashed(format!(
                        "the Prolog engine failed on this goal (Scryer Prolog: {panic}); the \
                         session was restarted"
                    )),
                    None,
                ))
            }
        };
        self.after_answer = matches!(item, Ok(Item::Answer(_)));
        Some(item)
    }
}

impl source::Read for InWorker<'_> {
    fn read(&mut self, got: &mut Got) -> source::Next {
        source::Next(self.next_item(got))
    }

    fn keep(&mut self, state: &str) {
        if let Some(kept) = self.kept.as_mut() {
            kept.state = Some(state.to_string());
            kept.holder = self.worker.as_ref().and_then(|w| w.pid());
            kept.number = std::mem::take(&mut self.number);
        }
    }

    /// A worker's final reply is read (it follows the last item). A worker that was replaced
    /// (after a timeout) has no reply to read: the replacement is kept, starting, for the next
    /// query.
    fn finish(&mut self) {
        if let Some(worker) = self.worker.take() {
            if worker.awaiting_reply() {
                while let Ok(Reply::Part(_)) = worker.next(self.deadline) {}
            }
        }
    }

    /// A worker whose reply was not read to its end (`.take(3)`, a `break`) reads the rest
    /// of it for a moment ([`DRAIN`], and not past the query's deadline): a query whose other
    /// answers were found already ends there, and the worker is kept with its state. One
    /// still running then is replaced at once (its next reply would be this query's), the
    /// replacement starting while the caller goes on.
    fn abandon(&mut self) {
        let Some(worker) = self.worker.take() else {
            return;
        };
        if !worker.awaiting_reply() {
            return;
        }
        let drain = Instant::now() + DRAIN;
        let until = self.deadline.map_or(drain, |d| d.min(drain));
        loop {
            match worker.next(Some(until)) {
                Ok(Reply::Part(line)) => {
                    let Some(kept) = self.kept.as_mut() else {
                        continue;
                    };
                    let state = match serde_json::from_str::<Part>(&line) {
                        Ok((Item::End(_, Some(state)), _, _)) => {
                            kept.number = 0;
                            state
                        }
                        Ok((Item::EndChanged(_, delta), _, _)) => {
                            match made_of(kept, worker.pid(), &delta) {
                                Some(state) => {
                                    kept.number = delta.number;
                                    state
                                }
                                // (a change the parent cannot make: the worker is replaced)
                                None => {
                                    kept.lost.push(lost_change());
                                    kept.holder = None;
                                    break;
                                }
                            }
                        }
                        _ => continue,
                    };
                    kept.state = Some(state);
                    kept.holder = worker.pid();
                }
                Ok(Reply::Done(_)) => return,
                Ok(Reply::Timeout) | Err(_) => break,
            }
        }
        worker.stop();
        let _ = worker.prestart();
        if let Some(kept) = self.kept.as_mut() {
            restore_early(worker, kept);
        }
    }
}

/// Sends a worker that just took over (a warm spare, after a timeout, a crash or answers
/// dropped early) the state of the one before, in the background: the caller goes on, and the
/// next query reads the reply first (`QueryWorker::restore`), so that a query that comes
/// later does not wait for the replay. Only when the worker is ready (a start is not waited
/// for here: [`READY_LOOK`]) and does not hold the state already; otherwise the next query
/// gives it.
pub(super) fn restore_early(worker: &mut Worker, kept: &mut Kept) {
    let Some(state) = kept.state.as_deref() else {
        return;
    };
    let pid = worker.pid();
    if worker.awaiting_reply() || pid.is_none() || pid == kept.holder {
        return;
    }
    // (a warm spare said it is ready already; a worker still starting is not waited for)
    if !matches!(worker.start_within(Instant::now() + READY_LOOK), Ok(true)) {
        return;
    }
    let line = match serde_json::to_string(&super::restore_query(state)) {
        Ok(line) => line,
        Err(_) => return,
    };
    if let Ok(true) = worker.send(&line, None) {
        kept.restoring = pid;
    }
}

impl InWorker<'_> {
    /// The worker's spare takes over (the running one was stopped), and is given the state
    /// in the background ([`restore_early`]); this query has nothing more to read.
    fn take_over(&mut self) {
        if let Some(worker) = self.worker.take() {
            let _ = worker.prestart();
            if let Some(kept) = self.kept.as_mut() {
                restore_early(worker, kept);
            }
        }
    }

    /// The end whose state the worker sent as what changed since the state before
    /// ([`Item::EndChanged`]), with the state whole: made of the state the parent holds. A
    /// change the parent cannot make (it does not hold the state it was made from: a reply
    /// it could not read, a worker that lies) is never guessed at: the worker is replaced,
    /// and given the state the parent holds, which is said to be not the last
    /// ([`Lost::State`]).
    fn whole(&mut self, end: End, delta: &super::StateDelta) -> Item {
        let pid = self.worker.as_ref().and_then(|w| w.pid());
        let made = self.kept.as_ref().and_then(|k| made_of(k, pid, delta));
        self.number = delta.number;
        if made.is_none() {
            if let Some(kept) = self.kept.as_mut() {
                kept.lost.push(lost_change());
                kept.holder = None;
            }
            if let Some(worker) = self.worker.as_mut() {
                worker.stop();
            }
            self.take_over();
        }
        Item::End(end, made)
    }

    fn next_item(&mut self, got: &mut Got) -> Option<Result<Item, QueryError>> {
        let worker = self.worker.as_mut()?;
        let reply = match worker.next(self.deadline) {
            Ok(r) => r,
            Err(e @ WorkerError::Died { .. }) => {
                // the process died (a crash, not a Prolog error): a fresh one starts at once,
                // and gets the state back
                self.take_over();
                return Some(Ok(Item::End(End::Crashed(died_text(&e)), None)));
            }
            Err(e) => return Some(Err(e.into())),
        };
        Some(match reply {
            Reply::Part(line) => {
                let part = serde_json::from_str::<Part>(&line)
                    .with_context(|| format!("reading the worker's answer {}", excerpt(&line)))
                    .map_err(|e| PrologError::from(e).into())
                    .map(|(item, i, printed)| {
                        got.inferences = i.or(got.inferences);
                        got.printed.push(&printed.0, printed.1);
                        item
                    });
                match part {
                    Ok(Item::EndChanged(end, delta)) => Ok(self.whole(end, &delta)),
                    other => other,
                }
            }
            Reply::Done(line) => {
                let got = serde_json::from_str::<Result<(), String>>(&line)
                    .with_context(|| format!("reading the worker's reply {}", excerpt(&line)))
                    .map_err(PrologError::from);
                let e = match got {
                    Ok(Err(e)) => PrologError::Protocol(excerpt(&e)),
                    Ok(Ok(())) => PrologError::Protocol("the worker ended without end/2".into()),
                    Err(e) => e,
                };
                Err(e.into())
            }
            Reply::Timeout => {
                // a fresh worker starts at once (or the spare takes over, and gets the state
                // back), while the caller goes on
                self.take_over();
                Ok(Item::End(End::Stopped(Limit::Time), None))
            }
        })
    }
}

/// The state `delta` makes of the one `kept` holds, when that is the one it was made from: sent
/// by this worker (`pid`), with the number `delta` names.
fn made_of(kept: &Kept, pid: Option<u32>, delta: &super::StateDelta) -> Option<String> {
    if pid.is_none() || kept.holder != pid || kept.number != delta.base {
        return None;
    }
    delta.apply(kept.state.as_deref()?)
}

/// What is told when the parent could not make a worker's state from what changed
/// ([`super::StateDelta`]): the worker is replaced, and given the state the parent holds.
fn lost_change() -> Lost {
    Lost::State(
        "the state after a query could not be made from what the worker sent (the worker was \
         replaced, and given the state before that query)"
            .into(),
    )
}

/// How long [`restore_early`] looks for a worker that took over to say it is ready (a warm
/// spare has said it already).
const READY_LOOK: Duration = Duration::from_millis(20);

/// How long answers dropped before their end wait for the rest of a worker's reply before
/// the worker is replaced ([`InWorker`]'s `abandon`).
pub(super) const DRAIN: Duration = Duration::from_millis(250);

/// A part of a worker's reply: an item, the inferences so far, and what the goal printed
/// since the part before (and whether some of it was cut).
pub(super) type Part = (Item, Option<u64>, (String, bool));

/// What a worker's death says: how it ended and the end of its standard error (where a
/// panic's message is), or the error as it reads.
pub(super) fn died_text(e: &WorkerError) -> String {
    match e {
        WorkerError::Died { status, stderr } => {
            let tail = stderr.trim_end();
            let mut start = tail.len().saturating_sub(EXCERPT * 4);
            while !tail.is_char_boundary(start) {
                start += 1;
            }
            if tail.is_empty() {
                format!("the Prolog worker stopped ({status}); a fresh one was started")
            } else {
                format!(
                    "the Prolog worker stopped ({status}); a fresh one was started. It wrote: {}",
                    &tail[start..]
                )
            }
        }
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prolog::query::StateDelta;

    #[test]
    fn a_change_is_made_only_of_the_state_this_worker_sent_with_its_number() {
        let base = format!("kk_restore([{}])", "f(1),".repeat(100));
        let new = format!("kk_restore([{}g(2)])", "f(1),".repeat(100));
        let delta = StateDelta::between(&base, &new, 3).unwrap();
        let kept = |holder, number| Kept {
            state: Some(base.clone()),
            holder,
            number,
            ..Kept::default()
        };
        assert_eq!(
            made_of(&kept(Some(7), 2), Some(7), &delta),
            Some(new.clone())
        );
        // another worker's state, another number, no worker, no state: refused
        assert_eq!(made_of(&kept(Some(8), 2), Some(7), &delta), None);
        assert_eq!(made_of(&kept(Some(7), 1), Some(7), &delta), None);
        assert_eq!(made_of(&kept(Some(7), 2), None, &delta), None);
        let none = Kept {
            state: None,
            ..kept(Some(7), 2)
        };
        assert_eq!(made_of(&none, Some(7), &delta), None);
    }
}
