//! The [`Answers`] of a query, a lazy iterator over whatever source, and what a query printed.

use std::collections::VecDeque;
use std::time::Instant;

use scryer_prolog::QueryState;

use super::source::Got;
use super::{Answer, AnswerSource, End, InThread, InWorker, Item, Kept, Lost, QueryError};
use crate::process::Worker;

/// At most this much of what a query prints is kept ([`Answers::printed`]).
pub const PRINTED_CAP: usize = 1 << 20;

/// What a query printed so far, at most [`PRINTED_CAP`] bytes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Printed {
    pub(super) text: String,
    pub(super) cut: bool,
}

impl Printed {
    /// Adds `more` (cut at the cap, on a character boundary).
    pub(crate) fn push(&mut self, more: &str, cut: bool) {
        let room = PRINTED_CAP.saturating_sub(self.text.len());
        if more.len() <= room {
            self.text.push_str(more);
        } else {
            let mut end = room;
            while !more.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&more[..end]);
            self.cut = true;
        }
        self.cut |= cut;
    }
}

/// At most this much of a reply is quoted in an error.
pub(super) const EXCERPT: usize = 200;

/// The start of `text`, at most [`EXCERPT`] bytes, with `...` and its length when it is
/// longer: what an error quotes of a reply (a reply may be megabytes).
pub(crate) fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT {
        return text.to_string();
    }
    let mut end = EXCERPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len())
}

/// The answers of a query, as they are found ([`crate::prolog::Session::query`],
/// [`QueryWorker::query`](super::QueryWorker::query)); after the last one, [`Answers::end`] says
/// how the query ended.
///
/// `S` is where they come from: [`InThread`] (a [`Session`](crate::prolog::Session): not `Send`, as
/// Scryer's machine is not) or [`InWorker`] (a [`QueryWorker`](super::QueryWorker): `Send`, so that
/// answers can be held across an `.await` or read on another thread).
///
/// In this thread, an iterator dropped before its end (`.take(3)`, a `break`) stops its query
/// there: the wrapper cuts the goal when asked for its next answer (the goal's work stops, the
/// state it changed is kept), and the session goes on with the same engine. (Only after a goal
/// that read `user_input` to its end is the engine rebuilt instead, about 0.4 s: Scryer's
/// stream stays at its end, and the host can no longer tell the wrapper to stop; Scryer cannot
/// leave a query half-run.) A worker's answers dropped before their
/// end (`.take(3)`) keep the worker when the rest of its reply comes within a quarter of a second
/// (the goal had found its other answers); a query still running then replaces the worker (the
/// replacement starts at once, and gets the state back at the next query).
pub struct Answers<'a, S: AnswerSource = InThread<'a>> {
    source: S,
    /// Items read ahead (the first one, to tell a syntax error).
    ahead: VecDeque<Item>,
    end: Option<End>,
    pub(super) got: Got,
    /// What the engine lost when it was replaced before this query.
    lost: Vec<Lost>,
    /// The engine's state after the query, when the goal may have changed it.
    state: Option<String>,
    _source: std::marker::PhantomData<&'a ()>,
}

impl<S: AnswerSource> std::fmt::Debug for Answers<'_, S> {
    /// How the query ended (once it has), what was lost before it, the inferences, what the
    /// goal printed and Scryer warned of so far.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("end", &self.end)
            .field("lost", &self.lost)
            .field("inferences", &self.got.inferences)
            .field("printed", &self.got.printed.text.len())
            .field("warnings", &self.got.warnings)
            .finish_non_exhaustive()
    }
}

impl<'a> Answers<'a, InThread<'a>> {
    /// Answers read from a query running in a machine whose `user_output` is `capture`;
    /// `kept` is told when the machine must not be used again, and the state after the query.
    /// `lost`: what the engine lost when it was replaced before this query.
    pub(crate) fn engine(
        state: QueryState<'a>,
        kept: &'a mut Kept,
        capture: &'a super::Capture,
        lost: Vec<Lost>,
    ) -> Result<Answers<'a, InThread<'a>>, QueryError> {
        Answers::started(
            InThread {
                state: Some(state),
                kept,
                capture,
                after_answer: false,
            },
            lost,
        )
    }
}

impl<'a> Answers<'a, InWorker<'a>> {
    /// Answers read from a worker that was sent a query; its reply ends at `deadline`; the
    /// state after the query goes to `kept`.
    pub(crate) fn worker(
        worker: &'a mut Worker,
        deadline: Option<Instant>,
        kept: &'a mut Kept,
        lost: Vec<Lost>,
    ) -> Result<Answers<'a, InWorker<'a>>, QueryError> {
        Answers::started(
            InWorker {
                worker: Some(worker),
                deadline,
                kept: Some(kept),
                number: 0,
            },
            lost,
        )
    }

    /// An answer-less query that ended as said.
    pub(crate) fn ended(end: End, lost: Vec<Lost>) -> Answers<'a, InWorker<'a>> {
        Answers {
            source: InWorker {
                worker: None,
                deadline: None,
                kept: None,
                number: 0,
            },
            ahead: VecDeque::new(),
            end: Some(end),
            got: Got::default(),
            lost,
            state: None,
            _source: std::marker::PhantomData,
        }
    }
}

impl<'a, S: AnswerSource> Answers<'a, S> {
    /// Reads the first item: a syntax error is the query's error.
    fn started(source: S, lost: Vec<Lost>) -> Result<Answers<'a, S>, QueryError> {
        let mut answers = Answers {
            source,
            ahead: VecDeque::new(),
            end: None,
            got: Got::default(),
            lost,
            state: None,
            _source: std::marker::PhantomData,
        };
        // (what a worker's own session lost comes first)
        let first = loop {
            match answers.read() {
                Ok(Item::Lost(lost)) => answers.lost.extend(lost),
                Ok(Item::Warnings(lines)) => answers.got.warnings.extend(lines),
                other => break other,
            }
        };
        match first {
            Err(e) => {
                answers.source.abandon();
                Err(e)
            }
            Ok(Item::Syntax(message, line)) => {
                answers.source.finish();
                Err(QueryError::Syntax { message, line })
            }
            Ok(Item::Param(name)) => {
                answers.source.finish();
                Err(QueryError::UnknownParam { name })
            }
            Ok(item) => {
                answers.ahead.push_back(item);
                Ok(answers)
            }
        }
    }

    /// How the query ended, once every answer has been read (`None` before).
    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    /// Prolog inferences the query took so far (`None` where not measured).
    pub fn inferences(&self) -> Option<u64> {
        self.got.inferences
    }

    /// What the goal wrote to `user_output` so far (`write/1`, `format/2`, ...): all of it
    /// once the answers are read to their end; up to each answer, once it is read. At most
    /// [`PRINTED_CAP`] bytes are kept ([`Answers::printed_cut`] says when more was written).
    /// What goes to `user_error` is not kept. (A worker stopped by its timeout loses what
    /// its goal wrote after its last answer.)
    pub fn printed(&self) -> &str {
        &self.got.printed.text
    }

    /// Whether the goal wrote more than [`PRINTED_CAP`] bytes (the rest is not in
    /// [`Answers::printed`]).
    pub fn printed_cut(&self) -> bool {
        self.got.printed.cut
    }

    /// What Scryer would have written to the process's standard output while the goal ran,
    /// so far, kept from it: its loader's warnings (`% Warning: overwriting p/1 because the
    /// clauses are discontiguous`, when the goal consults a file), and in a worker `% Warning:
    /// predicate p/0 is undefined` (the flag `unknown` set to `warning`), one line each.
    /// Scryer 0.10 writes them past the engine's streams, with Rust's `println!`: a
    /// [`crate::prolog::Session`] tells the loader's on the Prolog side and keeps Scryer from
    /// printing them, never touching the process's standard output (see its documentation
    /// for what is kept where); a worker keeps them in its own process. Never repeated when a
    /// replaced engine gets its state back.
    pub fn warnings(&self) -> &[String] {
        &self.got.warnings
    }

    /// What the engine lost when it was replaced before this query (empty when it was not,
    /// or lost nothing): the state it had after the last query that ended was given back
    /// to its replacement, save these. See [`Lost`].
    pub fn lost(&self) -> &[Lost] {
        &self.lost
    }

    /// The engine's state after the query (`kk_state_pieces/1`'s text, joined), when the goal may have
    /// changed it; once the answers are read to their end.
    pub(crate) fn state(&self) -> Option<&str> {
        self.state.as_deref()
    }

    /// Every answer left, and how the query ended.
    pub fn collect_all(mut self) -> Result<(Vec<Answer>, End), QueryError> {
        let answers = self.by_ref().collect::<Result<Vec<_>, _>>()?;
        let end = self.end.clone().unwrap_or(End::Complete);
        Ok((answers, end))
    }

    /// The next item from the source.
    fn read(&mut self) -> Result<Item, QueryError> {
        match self.source.read(&mut self.got).0 {
            Some(got) => got,
            None => Ok(Item::End(self.end.clone().unwrap_or(End::Complete), None)),
        }
    }
}

impl<S: AnswerSource> Iterator for Answers<'_, S> {
    type Item = Result<Answer, QueryError>;

    fn next(&mut self) -> Option<Result<Answer, QueryError>> {
        if self.end.is_some() {
            return None;
        }
        let item = match self.ahead.pop_front() {
            Some(item) => Ok(item),
            None => self.read(),
        };
        if let Ok(Item::End(_, Some(state))) = &item {
            self.source.keep(state);
        }
        match item {
            Ok(Item::Answer(a)) => Some(Ok(a)),
            Ok(Item::Lost(lost)) => {
                self.lost.extend(lost);
                self.next()
            }
            Ok(Item::Warnings(lines)) => {
                self.got.warnings.extend(lines);
                self.next()
            }
            Ok(Item::End(End::AnswerTooLarge(cap), state)) => {
                self.end = Some(End::AnswerTooLarge(cap));
                self.state = state;
                self.source.finish();
                Some(Err(QueryError::AnswerTooLarge { cap }))
            }
            Ok(Item::End(end, state)) => {
                self.end = Some(end);
                self.state = state;
                self.source.finish();
                None
            }
            Ok(Item::Syntax(message, line)) => {
                self.end = Some(End::Complete);
                self.source.finish();
                Some(Err(QueryError::Syntax { message, line }))
            }
            Ok(Item::Param(name)) => {
                self.end = Some(End::Complete);
                self.source.finish();
                Some(Err(QueryError::UnknownParam { name }))
            }
            // (made whole by the source: a worker's parent, `InWorker`)
            Ok(Item::EndChanged(..)) => {
                self.end = Some(End::Complete);
                self.source.abandon();
                Some(Err(QueryError::Engine(
                    crate::prolog::PrologError::Protocol("a state change without its state".into()),
                )))
            }
            Err(e) => {
                self.end = Some(End::Complete);
                self.source.abandon();
                Some(Err(e))
            }
        }
    }
}

impl<S: AnswerSource> Drop for Answers<'_, S> {
    fn drop(&mut self) {
        // (nothing left once the query is over: a source forgets it at its end)
        self.source.abandon();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_quotes_a_reply_by_an_excerpt() {
        // Regression (#36): the error carried the whole reply (3.6 MB at depth 100,000).
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(1_000_000);
        let e = excerpt(&long);
        assert!(e.len() < 250, "{}", e.len());
        assert!(e.ends_with("... (2000000 bytes)"), "{e}");
    }
}
