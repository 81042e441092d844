//! What the Prolog wrapper gives, item by item ([`Item`]), read from the terms Scryer answers
//! with (`prolog/host_query.pl`'s encoding), and a panic's text.

use scryer_prolog::Term as ScryerTerm;
use serde::{Deserialize, Serialize};

use super::{Answer, End, Exception, Lost, StateDelta};
use crate::prolog::term::{chain_text, chars_of_owned, drop_scryer, term_text, FreshNames, Term};
use crate::prolog::PrologError;
use crate::Limit;

/// What the wrapper gives, item by item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Item {
    Syntax(String, Option<usize>),
    /// A parameter names no variable of the goal.
    Param(String),
    Answer(Answer),
    /// How the query ended, and the engine's state after it when the goal may have changed
    /// it (`kk_state_pieces/1`'s text, joined).
    End(End, Option<String>),
    /// [`Item::End`] with a state, as what changed since the state the worker sent before (a
    /// worker tells its parent so: [`StateDelta`]).
    EndChanged(End, StateDelta),
    /// What the engine lost when it was replaced before this query (a worker's own session
    /// tells its parent).
    Lost(Vec<Lost>),
    /// What Scryer wrote to standard output since the item before (a worker's session tells
    /// its parent: [`crate::prolog::Answers::warnings`]).
    Warnings(Vec<String>),
}

/// The item the wrapper bound to `R`, taken apart as it is read (an answer's values may be
/// deep: they are never dropped recursively).
pub(super) fn item(r: ScryerTerm) -> Result<Item, PrologError> {
    let proto = |what: &str| PrologError::Protocol(format!("the wrapper gave {what}"));
    let ScryerTerm::Compound(f, args) = r else {
        return Err(proto("no item"));
    };
    if f == "end" && args.len() == 2 {
        let [status, state]: [ScryerTerm; 2] =
            args.try_into().map_err(|_| proto("a malformed end"))?;
        return end_item(status, state);
    }
    let [arg]: [ScryerTerm; 1] = args
        .try_into()
        .map_err(|_| proto("an item of several arguments"))?;
    match (f.as_str(), arg) {
        ("syntax_error", e) => {
            let (message, line) = syntax_error(&e);
            Ok(Item::Syntax(message, line))
        }
        ("param_error", ScryerTerm::Atom(name)) => Ok(Item::Param(name)),
        ("answer", ScryerTerm::Compound(a, parts)) if a == "a" => {
            let [bindings, text]: [ScryerTerm; 2] =
                parts.try_into().map_err(|_| proto("a malformed answer"))?;
            // (the text first: it says which names the query's variables took)
            let (text, fresh) =
                answer_text(text).ok_or_else(|| proto("an answer without its text"))?;
            let items = match bindings {
                ScryerTerm::List(items) => items,
                ScryerTerm::Atom(n) if n == "[]" => Vec::new(),
                _ => return Err(proto("malformed bindings")),
            };
            let mut out = Vec::with_capacity(items.len());
            for b in items {
                let ScryerTerm::Compound(eq, nv) = b else {
                    return Err(proto("a malformed binding"));
                };
                let [name, value]: [ScryerTerm; 2] = match (eq.as_str(), nv.try_into()) {
                    ("=", Ok(nv)) => nv,
                    _ => return Err(proto("a malformed binding")),
                };
                let name = match name {
                    ScryerTerm::Atom(n) | ScryerTerm::String(n) => n,
                    _ => return Err(proto("a binding without a name")),
                };
                let value = Term::from_encoded(value, &fresh).map_err(|e| proto(&e))?;
                out.push((name, value));
            }
            Ok(Item::Answer(Answer {
                bindings: out,
                text,
            }))
        }
        ("end", _) => Err(proto("an end without the state")),
        _ => Err(proto("an unknown item")),
    }
}

/// An answer's text from the wrapper's `text(Pieces, Numbered)` (`kk_answer_text/5` of
/// `prolog/host_query.pl`): its pieces joined, each binding `Name = Value`, each residual goal
/// as it is, `true` for none; `[]` (the text left unwritten) is empty. Taken apart as it is
/// read: the chain of pieces is as deep as they are many. With it, the names of the
/// variables the wrapper numbered: `Numbered` is `numbered(Taken)`, `Taken` the query's
/// names that [`Term::fresh_name`]'s sequence has (they are left out), or `false`.
pub(super) fn answer_text(t: ScryerTerm) -> Option<(String, FreshNames)> {
    let none = || Some((String::new(), FreshNames::default()));
    let (mut pieces, fresh) = match t {
        ScryerTerm::Compound(f, mut args) if f == "text" && args.len() == 2 => {
            let fresh = match args.pop()? {
                ScryerTerm::Compound(n, mut taken) if n == "numbered" && taken.len() == 1 => {
                    let names = match taken.pop()? {
                        ScryerTerm::List(names) => names,
                        _ => Vec::new(),
                    };
                    Some(FreshNames::new(names.iter().filter_map(|n| match n {
                        ScryerTerm::Atom(a) => Some(a.as_str()),
                        _ => None,
                    })))
                }
                _ => None,
            };
            (args.pop()?, fresh)
        }
        ScryerTerm::Atom(a) if a == "[]" => return none(),
        ScryerTerm::List(items) if items.is_empty() => return none(),
        ScryerTerm::String(s) if s.is_empty() => return none(),
        other => {
            drop_scryer(other);
            return None;
        }
    };
    let mut text = String::new();
    loop {
        match pieces {
            ScryerTerm::Compound(f, args) if f == KK_CELL && args.len() == 3 => {
                let mut args = args.into_iter().skip(1);
                let (piece, rest) = (args.next()?, args.next()?);
                if !text.is_empty() {
                    text.push_str(",\n");
                }
                match piece {
                    ScryerTerm::Compound(eq, nv) if eq == "=" && nv.len() == 2 => {
                        let mut nv = nv.into_iter();
                        match (nv.next()?, nv.next()?) {
                            (ScryerTerm::Atom(name), value) => {
                                text.push_str(&name);
                                text.push_str(" = ");
                                text.push_str(&chars_of_owned(value)?);
                            }
                            (name, value) => {
                                drop_scryer(name);
                                drop_scryer(value);
                                drop_scryer(rest);
                                return None;
                            }
                        }
                    }
                    ScryerTerm::Compound(g, mut goal) if g == "g" && goal.len() == 1 => {
                        text.push_str(&chars_of_owned(goal.pop()?)?);
                    }
                    other => {
                        drop_scryer(other);
                        drop_scryer(rest);
                        return None;
                    }
                }
                pieces = rest;
            }
            ScryerTerm::Atom(a) if a == "[]" => break,
            ScryerTerm::List(items) if items.is_empty() => break,
            other => {
                drop_scryer(other);
                return None;
            }
        }
    }
    if text.is_empty() {
        text.push_str("true");
    }
    Some(match fresh {
        Some(fresh) => (unnumbered(&text, &fresh), fresh),
        None => (text, FreshNames::default()),
    })
}

/// `text` with the variables the wrapper numbered (written as `'$VAR'(K + 26 * 10^12)` is: a
/// capital letter and 13 digits starting with 1) named as `fresh` names the `K`-th: `_A`,
/// ..., `_Z`, `_A1`, ..., but those the query's variables have. Quoted atoms and strings are
/// left as they are.
pub(super) fn unnumbered(text: &str, fresh: &FreshNames) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'"' | b'`') => {
                // to the closing quote: \ escapes the next character (`\x11\` and `\21\`
                // run to their closing \), a doubled quote is one
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == b'\\'
                        && bytes
                            .get(i + 1)
                            .is_some_and(|&b| b == b'x' || b.is_ascii_digit())
                    {
                        i += 2;
                        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                            i += 1;
                        }
                        if bytes.get(i) == Some(&b'\\') {
                            i += 1;
                        }
                    } else if bytes[i] == b'\\' || (bytes[i] == q && bytes.get(i + 1) == Some(&q)) {
                        i += 2;
                    } else if bytes[i] == q {
                        i += 1;
                        break;
                    } else {
                        i += 1;
                    }
                }
            }
            b'A'..=b'Z' if i == 0 || !word(bytes[i - 1]) => {
                let start = i;
                while i < bytes.len() && word(bytes[i]) {
                    i += 1;
                }
                let token = &text[start..i];
                let digits = &token[1..];
                if token.len() == 14
                    && digits.starts_with('1')
                    && digits.bytes().all(|b| b.is_ascii_digit())
                {
                    if let Ok(n) = digits.parse::<u64>() {
                        let k = (n - 1_000_000_000_000) * 26 + u64::from(bytes[start] - b'A');
                        out.push_str(&text[copied..start]);
                        out.push_str(&fresh.name(k));
                        copied = i;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The name of the cells of the wrapper's chains (`'$kk'(l, Head, Tail)`).
pub(super) const KK_CELL: &str = "$kk";

/// The item `end(Status, State)` the wrapper bound to `R` (see `item`).
pub(super) fn end_item(status: ScryerTerm, state: ScryerTerm) -> Result<Item, PrologError> {
    let proto = |what: &str| PrologError::Protocol(format!("the wrapper gave {what}"));
    let state = match state {
        ScryerTerm::Compound(f, mut v) if f == "state" && v.len() == 1 => {
            v.pop().and_then(chain_text)
        }
        other => {
            drop_scryer(other);
            None
        }
    };
    let end = match status {
        ScryerTerm::Atom(s) if s == "complete" => End::Complete,
        ScryerTerm::Atom(s) if s == "answer_limit" => End::AnswerLimit,
        ScryerTerm::Atom(s) if s == "inference_limit" => End::Stopped(Limit::Inferences),
        ScryerTerm::Compound(f, e) if f == "answer_too_large" && e.len() == 1 => {
            End::AnswerTooLarge(integer(&e[0]).unwrap_or(0).try_into().unwrap_or(0))
        }
        ScryerTerm::Compound(f, e) if f == "halted" && e.len() == 1 => {
            End::Halted(integer(&e[0]).unwrap_or(0))
        }
        ScryerTerm::Compound(f, e) if f == "exception" && e.len() == 2 => {
            let [text, term]: [ScryerTerm; 2] =
                e.try_into().map_err(|_| proto("a malformed exception"))?;
            // (its variables numbered as in an answer's text: named here)
            let text = chars_of_owned(text)
                .map(|t| unnumbered(&t, &FreshNames::default()))
                .unwrap_or_else(|| "an exception".into());
            let term = match term {
                ScryerTerm::Compound(t, mut v) if t == "term" && v.len() == 1 => v
                    .pop()
                    .and_then(|v| Term::from_encoded(v, &FreshNames::default()).ok()),
                _ => None,
            };
            End::Exception(Exception { text, term })
        }
        _ => return Err(proto("an unknown end")),
    };
    Ok(Item::End(end, state))
}

/// The integer a Scryer term is, when it fits in an `i64`.
pub(super) fn integer(t: &ScryerTerm) -> Option<i64> {
    match t {
        ScryerTerm::Integer(i) => i.to_string().parse().ok(),
        _ => None,
    }
}

/// The message and line of a syntax error term: Scryer's reader throws
/// `error(syntax_error(What), read_term_from_chars/3:Line)` (the line counted from 0, where it
/// says one).
pub(super) fn syntax_error(e: &ScryerTerm) -> (String, Option<usize>) {
    match e {
        ScryerTerm::Compound(f, args) if f == "error" && args.len() == 2 => {
            let message = match &args[0] {
                ScryerTerm::Compound(s, what) if s == "syntax_error" && what.len() == 1 => {
                    term_text(&what[0])
                }
                other => term_text(other),
            };
            let line = match &args[1] {
                ScryerTerm::Compound(c, at) if c == ":" && at.len() == 2 => match &at[1] {
                    ScryerTerm::Integer(i) => i.to_string().parse::<usize>().ok().map(|c| c + 1),
                    _ => None,
                },
                _ => None,
            };
            (message, line)
        }
        other => (term_text(other).replace('_', " "), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_variables_are_named_past_quoted_escapes() {
        // Regression (#45): the escape `\x11\` ended a quoted atom's scan at its closing `\`,
        // which was taken to escape the quote: the variables after it kept their numbers.
        assert_eq!(
            unnumbered(
                "['\\x11\\'-A1000000000000,'\\21\\'-B1000000000000]",
                &FreshNames::default()
            ),
            "['\\x11\\'-_A,'\\21\\'-_B]"
        );
        assert_eq!(
            unnumbered(
                "f('it''s A1000000000000',A1000000000000,\"\\n\",B1000000000000)",
                &FreshNames::default()
            ),
            "f('it''s A1000000000000',_A,\"\\n\",_B)"
        );
    }
}
