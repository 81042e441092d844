//! The [`QueryWorker`]: queries in a worker process, the parent's side (the worker's is
//! `src/prolog/serve.rs`).

use std::time::{Duration, Instant};

use super::{
    consult_query, consulted, read_consult, restore_query, restored, Answers, Consulted, End,
    InWorker, Kept, Lost, Query, QueryError,
};
use crate::error::Context;
use crate::process::{Worker, WorkerError};
use crate::prolog::PrologError;
use crate::Limit;

/// Queries in a worker process: each one bounded by its timeout, wall clock, from the call to
/// the last answer (the worker is started by [`QueryWorker::new`]). A warm spare worker is
/// kept, started once the first is ready: it takes over at once when a timeout kills the
/// running one (a new spare starts in the background), so the query after a timeout waits for
/// no start; the cost is a second process.
///
/// A worker replaced (after a timeout, a crash, answers dropped before their end, a protocol
/// error) gets back the state the one before had after the last query that ended: the files
/// consulted, the clauses asserted, the flags, operators, modules and `bb_put/2` values. A warm
/// spare that takes over is sent it at once, in the background, so that a query that comes
/// after the replay waits for nothing; else the first query after the replacement gives it
/// back (within that query's timeout). That query reads the replay's reply first, and its
/// [`Answers::lost`] names what could not be given back ([`Lost`]).
pub struct QueryWorker {
    /// (in a mutex, only so that a `QueryWorker` is `Sync`: every use has `&mut self`)
    worker: std::sync::Mutex<Worker>,
    kept: Kept,
}

impl std::fmt::Debug for QueryWorker {
    /// The worker process running, and what is kept for a replacement.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryWorker")
            .field("pid", &self.pid())
            .field("state_bytes", &self.kept.state.as_ref().map(String::len))
            .field("lost", &self.kept.lost)
            .finish_non_exhaustive()
    }
}

impl QueryWorker {
    /// Starts a worker (about 0.5 s) and waits until it is ready. The program must call
    /// [`crate::worker::init`] first thing in `main`.
    pub fn new() -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE).capture_stderr().with_spare();
        worker.start()?;
        Ok(QueryWorker {
            worker: std::sync::Mutex::new(worker),
            kept: Kept::default(),
        })
    }

    /// Starts a worker and waits until it is ready, for `timeout` at most:
    /// [`QueryError::StartTimeout`] then (the child is stopped). [`QueryWorker::new`] waits up
    /// to a minute.
    pub fn start_within(timeout: Duration) -> Result<QueryWorker, QueryError> {
        let mut worker = Worker::new(ROLE).capture_stderr().with_spare();
        if !worker.start_within(Instant::now() + timeout)? {
            worker.stop();
            return Err(QueryError::StartTimeout(timeout));
        }
        Ok(QueryWorker {
            worker: std::sync::Mutex::new(worker),
            kept: Kept::default(),
        })
    }

    /// The worker process (the mutex is never held across a call).
    fn worker(&mut self) -> &mut Worker {
        self.worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `query` in the worker: its answers as they come, until its end or its timeout.
    ///
    /// Each query gets its own answers, whatever happened to the one before: a reply left
    /// unread (the [`Answers`] dropped early, or ended by an error) replaces the worker, and a
    /// line of a reply that is not this query's stops it ([`crate::process`]). A worker that
    /// replaced another is given its state back first ([`Answers::lost`]).
    ///
    /// A worker process that died while it waited for this query (killed, say) is replaced
    /// before the query is sent, and given the state back: the query is answered as if
    /// nothing happened. One that dies while it runs the query ends it with
    /// [`End::Crashed`]. Neither is an `Err`.
    pub fn query(&mut self, query: &Query) -> Result<Answers<'_, InWorker<'_>>, QueryError> {
        query.check()?;
        let deadline = query.timeout.map(|t| Instant::now() + t);
        let line = serde_json::to_string(query)
            .context("encoding the query")
            .map_err(PrologError::from)?;
        let mut lost = std::mem::take(&mut self.kept.lost);
        let mut retried = false;
        loop {
            if self.worker().running_has_ended() {
                // (it died idle: a fresh one, which the restore below gives the state)
                self.worker().stop();
                self.worker().prestart()?;
            }
            match self.restore(deadline)? {
                Some(more) => lost.extend(more),
                None => {
                    self.kept.lost = lost;
                    return Ok(Answers::ended(End::Stopped(Limit::Time), Vec::new()));
                }
            }
            match self.worker().send(&line, deadline) {
                Ok(true) => break,
                Ok(false) => {
                    let _ = self.worker().prestart();
                    return Ok(Answers::ended(End::Stopped(Limit::Time), lost));
                }
                // (it died between the look above and the request: once more, afresh)
                Err(WorkerError::Died { .. }) if !retried => {
                    retried = true;
                    self.worker().stop();
                    self.worker().prestart()?;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let QueryWorker { worker, kept } = self;
        let worker = worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Answers::worker(worker, deadline, kept, lost)
    }

    /// Consults `file` in the worker (it is consulted again in a worker that replaces this
    /// one), within `timeout`: a typed error when it does not load
    /// ([`QueryError::Consult`]); the clauses before a syntax error are loaded. What the
    /// loader warned of is dropped: [`QueryWorker::load`] gives it.
    pub fn consult(&mut self, file: &std::path::Path, timeout: Duration) -> Result<(), QueryError> {
        self.load(file, timeout).map(drop)
    }

    /// [`QueryWorker::consult`], and what Scryer's loader warned of ([`Consulted::warnings`]),
    /// told once (not again when a replacement worker consults the file anew).
    pub fn load(
        &mut self,
        file: &std::path::Path,
        timeout: Duration,
    ) -> Result<Consulted, QueryError> {
        let query = consult_query(file).timeout(timeout);
        let answers = self.query(&query)?;
        let (lost, got) = read_consult(answers);
        // (told by the next query)
        self.kept.lost.extend(lost);
        consulted(file, got?)
    }

    /// Sends `query` to the worker (started unless it runs).
    fn send(
        &mut self,
        query: &Query,
        deadline: Option<Instant>,
        lost: Vec<Lost>,
    ) -> Result<Answers<'_, InWorker<'_>>, QueryError> {
        let line = serde_json::to_string(query)
            .context("encoding the query")
            .map_err(PrologError::from)?;
        if !self.worker().send(&line, deadline)? {
            let _ = self.worker().prestart();
            return Ok(Answers::ended(End::Stopped(Limit::Time), lost));
        }
        let QueryWorker { worker, kept } = self;
        let worker = worker
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Answers::worker(worker, deadline, kept, lost)
    }

    /// Gives a worker that replaced another the state the other had (`Some` with what could
    /// not be given back; nothing to give: `Some` of nothing); `None` when `deadline` passed
    /// first (the state is given at the next query). When it was sent already, in the
    /// background (`restore_early` in `sources.rs`), its reply is read. A state that breaks
    /// the worker is given up, and said so.
    fn restore(&mut self, deadline: Option<Instant>) -> Result<Option<Vec<Lost>>, QueryError> {
        let Some(state) = self.kept.state.clone() else {
            return Ok(Some(Vec::new()));
        };
        let pid = self.worker().pid();
        if pid.is_some() && pid == self.kept.holder {
            return Ok(Some(Vec::new()));
        }
        let early = self.kept.restoring.take();
        let got = if early.is_some() && early == pid && self.worker().awaiting_reply() {
            // (sent in the background when this worker took over: its reply is read now)
            let QueryWorker { worker, kept } = self;
            let worker = worker
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Answers::worker(worker, deadline, kept, Vec::new()).and_then(Answers::collect_all)
        } else {
            let mut query = restore_query(&state);
            query.timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            self.send(&query, deadline, Vec::new())
                .and_then(Answers::collect_all)
        };
        let lost = match got {
            Ok((_, End::Stopped(Limit::Time))) => return Ok(None),
            Ok((answers, End::Complete)) => restored(&answers),
            Ok((_, end)) => vec![Lost::State(format!("giving it back ended so: {end:?}"))],
            Err(e) => vec![Lost::State(e.to_string())],
        };
        if matches!(lost.as_slice(), [Lost::State(_)]) {
            // (the worker may hold part of it: a fresh one starts without it)
            self.kept.state = None;
            self.worker().stop();
            let _ = self.worker().prestart();
        }
        self.kept.holder = self.worker().pid();
        Ok(Some(lost))
    }

    /// The process id of the worker process, when one runs or starts (after a timeout, the
    /// replacement starts at once and is kept for the next query).
    pub fn pid(&self) -> Option<u32> {
        self.worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pid()
    }
}

/// The worker role that serves queries.
pub(crate) const ROLE: &str = "query";
