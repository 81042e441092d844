//! The worker role that serves a [`QueryWorker`](super::QueryWorker)'s queries: a [`Session`]
//! in the worker process, each item of its answers sent to the parent as it comes.

use super::query::{Answers, End, Item, Query, QueryError, StateDelta};
use super::Session;
use crate::error::Context;

/// What the goal printed so far, and whether some was cut.
fn printed<'a>(answers: &'a Answers<'_>) -> (&'a str, bool) {
    (answers.printed(), answers.printed_cut())
}

/// The request handler of the `query` worker role: each answer is sent as a part, as soon as
/// it is found, with what the goal printed before it; the last part is the end, with the
/// state after the goal when it may have changed it (the parent keeps it for a replacement), as
/// what changed since the state sent before when that is shorter ([`StateDelta`]). The reply says only whether the query failed.
pub(crate) fn query_worker() -> crate::process::Handler {
    let mut session = Session::serving();
    // the state sent last: the parent holds it, and is sent what changed since
    // (and its number: StateDelta)
    let mut last_state: Option<String> = None;
    let mut number = 0;
    Box::new(move |line: &str, part: &mut dyn FnMut(&str)| {
        let got = serde_json::from_str::<Query>(line)
            .context("reading a request")
            .map_err(|e| QueryError::Engine(e.into()))
            .and_then(|q| {
                let q = Query { timeout: None, ..q };
                let mut sent = 0;
                let mut send = |item: Item, inferences: Option<u64>, (text, cut): (&str, bool)| {
                    let new = (text.get(sent..).unwrap_or_default().to_string(), cut);
                    sent = text.len();
                    if let Ok(l) = serde_json::to_string(&(item, inferences, new)) {
                        part(&l);
                    }
                };
                let mut answers = match session.query(&q) {
                    Err(QueryError::Syntax { message, line }) => {
                        send(Item::Syntax(message, line), None, ("", false));
                        return Ok(());
                    }
                    Err(QueryError::UnknownParam { name }) => {
                        send(Item::Param(name), None, ("", false));
                        return Ok(());
                    }
                    other => other?,
                };
                if !answers.lost().is_empty() {
                    send(Item::Lost(answers.lost().to_vec()), None, printed(&answers));
                }
                // (Scryer's warnings, each sent once, before the item they came with)
                let mut warned = 0;
                let mut warn = |answers: &Answers<'_>, send: &mut dyn FnMut(Item)| {
                    let all = answers.warnings();
                    if all.len() > warned {
                        send(Item::Warnings(all[warned..].to_vec()));
                        warned = all.len();
                    }
                };
                while let Some(a) = answers.next() {
                    warn(&answers, &mut |i| send(i, None, printed(&answers)));
                    match a {
                        Ok(a) => send(Item::Answer(a), answers.inferences(), printed(&answers)),
                        // (the end says it)
                        Err(QueryError::AnswerTooLarge { .. }) => {}
                        Err(e) => return Err(e),
                    }
                }
                warn(&answers, &mut |i| send(i, None, printed(&answers)));
                let end = answers.end().cloned().unwrap_or(End::Complete);
                let item = match answers.state() {
                    None => Item::End(end, None),
                    Some(state) => {
                        let delta = last_state
                            .as_deref()
                            .and_then(|s| StateDelta::between(s, state, number + 1));
                        last_state = Some(state.to_string());
                        match delta {
                            Some(delta) => {
                                number = delta.number;
                                Item::EndChanged(end, delta)
                            }
                            None => {
                                number = 0;
                                Item::End(end, last_state.clone())
                            }
                        }
                    }
                };
                send(item, answers.inferences(), printed(&answers));
                Ok(())
            });
        let got: Result<(), String> = got.map_err(|e| e.to_string());
        serde_json::to_string(&got).unwrap_or_else(|_| r#"{"Ok":null}"#.into())
    })
}
