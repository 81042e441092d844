//! Conversions from the terms the Scryer engine hands back to the crate's [`Term`] (iteratively:
//! any depth), and the helpers that read text, a grid or a message from a Scryer term.

use scryer_prolog::Term as ScryerTerm;

use super::{FreshNames, Term};
use crate::prolog::PrologError;
use crate::puzzle::Grid;

impl Term {
    /// The crate's term for a term Scryer answered with (iterative: any depth).
    pub(crate) fn from_scryer(t: &ScryerTerm) -> Term {
        let mut out: Vec<Term> = Vec::new();
        // (a term, and whether its arguments are on `out` already)
        let mut stack: Vec<(&ScryerTerm, bool)> = vec![(t, false)];
        while let Some((t, built)) = stack.pop() {
            match t {
                // ([] is the atom, as Term documents it)
                ScryerTerm::List(items) if items.is_empty() => out.push(nil()),
                ScryerTerm::List(items) | ScryerTerm::Compound(_, items) if !built => {
                    stack.push((t, true));
                    stack.extend(items.iter().rev().map(|i| (i, false)));
                }
                ScryerTerm::List(items) => {
                    let args = out.split_off(out.len() - items.len());
                    out.push(Term::List(args));
                }
                ScryerTerm::Compound(f, items) => {
                    let args = out.split_off(out.len() - items.len());
                    out.push(Term::Compound(f.clone(), args));
                }
                leaf => out.push(scryer_leaf(leaf)),
            }
        }
        out.pop().unwrap_or_else(|| Term::Atom("[]".into()))
    }

    /// The crate's term for a value the query wrapper encoded (`kk_enc/5` of
    /// `prolog/host_query.pl`), taken apart as it is read: linear in its size, iterative (the
    /// Scryer term, however deep, is never dropped recursively). Its numbered variables are
    /// named by `fresh`.
    pub(crate) fn from_encoded(t: ScryerTerm, fresh: &FreshNames) -> Result<Term, String> {
        enum Step {
            Read(ScryerTerm),
            /// A list of this many items, its tail after them on `out`.
            List(usize),
            Compound(String, usize),
        }
        let mut out: Vec<Term> = Vec::new();
        let mut stack = vec![Step::Read(t)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Read(ScryerTerm::Compound(f, args)) if f == KK => {
                    let mut args = args.into_iter();
                    match args.next() {
                        Some(ScryerTerm::Atom(tag)) if tag == "v" => {
                            match (args.next(), args.next()) {
                                (Some(ScryerTerm::Atom(name)), None) => out.push(Term::Var(name)),
                                (Some(ScryerTerm::Integer(k)), None) => {
                                    let k = k
                                        .to_string()
                                        .parse()
                                        .map_err(|_| "a malformed variable")?;
                                    out.push(Term::Var(fresh.name(k)));
                                }
                                _ => return Err("a malformed variable".into()),
                            }
                        }
                        Some(ScryerTerm::Atom(tag)) if tag == "l" => {
                            // the whole chain of cells at once: a list is built once, in order
                            let mut items = Vec::new();
                            let mut cell: Vec<ScryerTerm> = args.collect();
                            let tail = loop {
                                if cell.len() != 2 {
                                    return Err("a malformed list cell".into());
                                }
                                let tail =
                                    cell.pop().unwrap_or_else(|| ScryerTerm::Atom("[]".into()));
                                let head =
                                    cell.pop().unwrap_or_else(|| ScryerTerm::Atom("[]".into()));
                                items.push(head);
                                match tail {
                                    ScryerTerm::Compound(f, next)
                                        if f == KK
                                            && next.len() == 3
                                            && matches!(&next[0], ScryerTerm::Atom(t) if t == "l") =>
                                    {
                                        cell = next.into_iter().skip(1).collect();
                                    }
                                    tail => break tail,
                                }
                            };
                            stack.push(Step::List(items.len()));
                            stack.push(Step::Read(tail));
                            stack.extend(items.into_iter().rev().map(Step::Read));
                        }
                        Some(ScryerTerm::Atom(tag)) if tag == "c" => {
                            let args: Vec<ScryerTerm> = args.collect();
                            stack.push(Step::Compound(f, args.len()));
                            stack.extend(args.into_iter().rev().map(Step::Read));
                        }
                        _ => return Err("a malformed encoded term".into()),
                    }
                }
                Step::Read(ScryerTerm::Compound(f, args)) => {
                    stack.push(Step::Compound(f, args.len()));
                    stack.extend(args.into_iter().rev().map(Step::Read));
                }
                Step::Read(ScryerTerm::List(items)) if items.is_empty() => {
                    // (Scryer gives `[]` as an empty list: the atom, as Term documents it)
                    out.push(nil());
                }
                Step::Read(ScryerTerm::List(items)) => {
                    // (longer lists come encoded, but a list is a list)
                    stack.push(Step::List(items.len()));
                    stack.push(Step::Read(ScryerTerm::Atom("[]".into())));
                    stack.extend(items.into_iter().rev().map(Step::Read));
                }
                Step::Read(leaf) => out.push(scryer_leaf(&leaf)),
                Step::Compound(f, n) => {
                    let args = out.split_off(out.len().saturating_sub(n));
                    out.push(Term::Compound(f, args));
                }
                Step::List(n) => {
                    let tail = out.pop().ok_or("a list without its tail")?;
                    let items = out.split_off(out.len().saturating_sub(n));
                    out.push(list_of(items, tail));
                }
            }
        }
        match (out.pop(), out.is_empty()) {
            (Some(t), true) => Ok(t),
            _ => Err("a malformed encoded term".into()),
        }
    }
}

/// The name of the wrapper's encoding's nodes (`prolog/host_query.pl`).
const KK: &str = "$kk";

/// `[]`, the atom.
fn nil() -> Term {
    Term::Atom("[]".into())
}

/// The crate's term for a Scryer term without arguments.
fn scryer_leaf(t: &ScryerTerm) -> Term {
    match t {
        ScryerTerm::Integer(i) => {
            let text = i.to_string();
            text.parse().map_or(Term::BigInteger(text), Term::Integer)
        }
        // (as Scryer writes it, 1r3: the number's own text is 1/3)
        ScryerTerm::Rational(r) => Term::Rational(r.to_string().replacen('/', "r", 1)),
        ScryerTerm::Float(f) => Term::Float(*f),
        ScryerTerm::Atom(a) => Term::Atom(a.clone()),
        ScryerTerm::String(s) if s.is_empty() => nil(),
        ScryerTerm::String(s) => Term::Chars(s.clone()),
        ScryerTerm::List(items) if items.is_empty() => nil(),
        ScryerTerm::Var(v) => Term::Var(v.clone()),
        other => Term::Atom(format!("{other:?}")),
    }
}

/// The list of `items` ending in `tail`: a proper list (of characters: [`Term::Chars`]) when the
/// tail is `[]`, else cells `.(H, T)` (built from the end: no recursion).
fn list_of(items: Vec<Term>, tail: Term) -> Term {
    let proper = matches!(&tail, Term::List(l) if l.is_empty())
        || matches!(&tail, Term::Atom(a) if a == "[]");
    if proper {
        if items.is_empty() {
            return tail;
        }
        let chars: Option<String> = items
            .iter()
            .map(|i| match i {
                Term::Atom(a) if a.chars().count() == 1 => Some(a.as_str()),
                _ => None,
            })
            .collect();
        return match chars {
            Some(s) => Term::Chars(s),
            None => Term::List(items),
        };
    }
    items
        .into_iter()
        .rev()
        .fold(tail, |t, h| Term::Compound(".".into(), vec![h, t]))
}

/// Prolog's text for a term Scryer answered with (for messages).
pub(crate) fn term_text(t: &ScryerTerm) -> String {
    Term::from_scryer(t).to_string()
}

/// The text of a term Scryer answered with, when it is text: a string, a list of
/// one-character atoms, or cons cells ending in either.
pub(crate) fn chars_of(t: &ScryerTerm) -> Option<String> {
    let mut out = String::new();
    let mut cur = t;
    loop {
        match cur {
            ScryerTerm::String(s) => {
                out.push_str(s);
                return Some(out);
            }
            ScryerTerm::Atom(a) if a == "[]" => return Some(out),
            ScryerTerm::List(items) => {
                for i in items {
                    out.push_str(&chars_of_atom(i)?);
                }
                return Some(out);
            }
            ScryerTerm::Compound(f, args) if f == "." && args.len() == 2 => {
                out.push_str(&chars_of_atom(&args[0])?);
                cur = &args[1];
            }
            _ => return None,
        }
    }
}

/// [`chars_of`] for a term taken apart as it is read: Scryer gives a long text in pieces, each
/// piece's characters as cells `.(C, Rest)` nested as deep as the text is long, which must not
/// be dropped recursively.
pub(crate) fn chars_of_owned(t: ScryerTerm) -> Option<String> {
    let mut out = String::new();
    let mut cur = t;
    loop {
        match cur {
            ScryerTerm::String(s) => {
                out.push_str(&s);
                return Some(out);
            }
            ScryerTerm::Atom(a) if a == "[]" => return Some(out),
            ScryerTerm::List(items) => {
                let mut text = Some(out);
                for i in items {
                    if let (Some(t), Some(c)) = (text.as_mut(), chars_of_atom(&i)) {
                        t.push_str(&c);
                    } else {
                        text = None;
                    }
                    drop_scryer(i);
                }
                return text;
            }
            ScryerTerm::Compound(f, args) if f == "." && args.len() == 2 => {
                let mut args = args.into_iter();
                let (head, tail) = (args.next()?, args.next()?);
                let Some(c) = chars_of_atom(&head) else {
                    drop_scryer(tail);
                    return None;
                };
                out.push_str(&c);
                cur = tail;
            }
            other => {
                drop_scryer(other);
                return None;
            }
        }
    }
}

/// The text of a chain of pieces (`'$kk'(l, Chars, Pieces)` ending in `[]`), joined
/// (the state of `kk_state_pieces/1` in `prolog/host/state.pl`); `None` when it is not one.
pub(crate) fn chain_text(chain: ScryerTerm) -> Option<String> {
    let mut out = String::new();
    let mut cur = chain;
    loop {
        match cur {
            ScryerTerm::Atom(a) if a == "[]" => return Some(out),
            ScryerTerm::List(v) if v.is_empty() => return Some(out),
            ScryerTerm::Compound(f, v) if f == "$kk" && v.len() == 3 => {
                let [tag, piece, rest]: [ScryerTerm; 3] = v.try_into().ok()?;
                if !matches!(&tag, ScryerTerm::Atom(l) if l == "l") {
                    return None;
                }
                out.push_str(&chars_of_owned(piece)?);
                cur = rest;
            }
            other => {
                drop_scryer(other);
                return None;
            }
        }
    }
}

/// Drops a term Scryer answered with, however deep, without recursion (its own `Drop`
/// recurses: a deep answer would overflow the stack).
pub(crate) fn drop_scryer(t: ScryerTerm) {
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if let ScryerTerm::List(items) | ScryerTerm::Compound(_, items) = t {
            stack.extend(items);
        }
    }
}

fn chars_of_atom(t: &ScryerTerm) -> Option<String> {
    match t {
        ScryerTerm::Atom(a) | ScryerTerm::String(a) => Some(a.clone()),
        _ => None,
    }
}

/// A term Scryer answered with as `writeq/1` writes it, cut after about `max` bytes.
pub(crate) fn quoted_text(t: &ScryerTerm, max: usize) -> String {
    Term::from_scryer(t).quoted(max)
}

/// A term Scryer answered with, as an `n` x `n` grid.
pub(crate) fn term_to_grid(t: &ScryerTerm, n: usize) -> Result<Grid, PrologError> {
    Term::from_scryer(t).as_grid(n)
}
