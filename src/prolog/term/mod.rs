//! Prolog terms as the host sees them: the crate's own [`Term`] (what a query's bindings hold,
//! with helpers to read a grid, an integer or a text from one), and the conversions from the
//! terms the Scryer engine hands back.
//!
//! A term may be nested to any depth (a list of 100,000 elements is a chain of 100,000 cells in
//! Prolog; `f(f(f(...)))` as deep as the engine built it): nothing here recurses on a term's
//! structure. Dropping, cloning, comparing, writing and (de)serialising walk it with an explicit
//! stack, and a term travels between a worker and its parent as a flat list of tokens in
//! post-order (`serde`), so no depth limit of a decoder applies.

//!
//! The type, its accessors, constructors and the walks that keep it non-recursive are here;
//! [`scryer`] converts Scryer's terms, [`quoted`] writes a term as `writeq/1` would for messages.

pub(crate) mod param;
mod quoted;
mod scryer;

pub(crate) use scryer::{
    chain_text, chars_of, chars_of_owned, drop_scryer, quoted_text, term_text, term_to_grid,
};

use std::fmt;

use serde::{Deserialize, Serialize};

use super::PrologError;
use crate::puzzle::Grid;

/// A Prolog term, as an answer binds a variable to it.
///
/// Lists come back as [`Term::List`], except a list of one-character atoms (Prolog's text
/// under `double_quotes` `chars`), which comes back as [`Term::Chars`]; the empty list `[]`
/// comes back as the atom [`Term::Atom`]`("[]")` (an empty `List` or `Chars` is equal to it);
/// a partial list `[H|T]` comes back as `Compound(".", [H, T])`.
///
/// `Term` has its own `Drop` (iterative, so that a deep term does not overflow the stack):
/// take a compound term's arguments by reference or with [`std::mem::take`], not by moving
/// them out of a pattern.
pub enum Term {
    /// An integer that fits in 64 bits.
    Integer(i64),
    /// A larger integer, in decimal.
    BigInteger(String),
    /// A rational number, as Scryer writes it (`1r3`, `-2r5`).
    Rational(String),
    /// A float.
    Float(f64),
    /// An atom (`[]` for the empty list).
    Atom(String),
    /// A list of characters.
    Chars(String),
    /// A proper list (of one element at least, in an answer: `[]` is the atom).
    List(Vec<Term>),
    /// A compound term: its name and arguments.
    Compound(String, Vec<Term>),
    /// A variable, by the name the answer gives it.
    Var(String),
}

impl Term {
    /// The integer, when the term is one that fits in an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Term::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The term's text, when it is an atom or a list of characters (or of one-character
    /// atoms, or of character codes).
    pub fn as_text(&self) -> Option<String> {
        match self {
            Term::Atom(a) if a == "[]" => Some(String::new()),
            Term::Atom(a) | Term::Chars(a) => Some(a.clone()),
            Term::List(items) => items
                .iter()
                .map(|t| match t {
                    Term::Atom(a) | Term::Chars(a) if a.chars().count() == 1 => Some(a.clone()),
                    Term::Integer(c) => u32::try_from(*c)
                        .ok()
                        .and_then(char::from_u32)
                        .map(String::from),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// Whether the term is `[]` (the atom, an empty list, or an empty text).
    pub fn is_nil(&self) -> bool {
        match self {
            Term::Atom(a) => a == "[]",
            Term::List(items) => items.is_empty(),
            Term::Chars(s) => s.is_empty(),
            _ => false,
        }
    }

    /// The items of a proper list (`[]` has none); `None` for any other term.
    pub fn as_list(&self) -> Option<&[Term]> {
        match self {
            Term::List(items) => Some(items),
            Term::Atom(a) if a == "[]" => Some(&[]),
            _ => None,
        }
    }

    /// The term as an `n` x `n` grid of positive integers (the `T` of `kenken(N, C, T)`).
    pub fn as_grid(&self, n: usize) -> Result<Grid, PrologError> {
        let bad = || PrologError::BadGrid(n, self.to_string());
        let rows = self.as_list().ok_or_else(bad)?;
        if rows.len() != n {
            return Err(bad());
        }
        rows.iter()
            .map(|r| {
                let cells = r.as_list().ok_or_else(bad)?;
                if cells.len() != n {
                    return Err(bad());
                }
                cells
                    .iter()
                    .map(|c| {
                        c.as_i64()
                            .and_then(|i| u32::try_from(i).ok())
                            .ok_or_else(bad)
                    })
                    .collect()
            })
            .collect()
    }
}

impl Term {
    /// The `k`-th name of the sequence an answer names its variables without a name of the
    /// query's with (from 0): `_A`, ..., `_Z`, `_A1`, ..., `_Z1`, `_A2`, ... (as
    /// `kk_fresh_name/2` of `prolog/host/toplevel.pl`), those the query's own variables have
    /// left out ([`FreshNames`]).
    pub(crate) fn fresh_name(k: u64) -> String {
        let letter = char::from(b'A' + (k % 26) as u8);
        match k / 26 {
            0 => format!("_{letter}"),
            n => format!("_{letter}{n}"),
        }
    }
}

/// The names an answer gives its variables without a name of the query's: the `k`-th is the
/// `k`-th of [`Term::fresh_name`]'s sequence that no variable of the query has (a query's
/// `_A` keeps its name; the answer's own variables are `_B`, `_C`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FreshNames {
    /// The places in the sequence of the names the query's variables have, in order.
    taken: Vec<u64>,
}

impl FreshNames {
    /// The names of a query whose variables have `names` (those not in the sequence are
    /// ignored).
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> FreshNames {
        let mut taken: Vec<u64> = names.into_iter().filter_map(fresh_place).collect();
        taken.sort_unstable();
        taken.dedup();
        FreshNames { taken }
    }

    /// The name of the `k`-th variable without a name of the query's (from 0).
    pub(crate) fn name(&self, k: u64) -> String {
        let mut place = k;
        for &t in &self.taken {
            if t > place {
                break;
            }
            place += 1;
        }
        Term::fresh_name(place)
    }
}

/// The place of `name` in [`Term::fresh_name`]'s sequence, when it is one of it.
fn fresh_place(name: &str) -> Option<u64> {
    let rest = name.strip_prefix('_')?;
    let mut cs = rest.chars();
    let letter = cs.next().filter(char::is_ascii_uppercase)?;
    let digits = cs.as_str();
    let n: u64 = match digits {
        "" => 0,
        d if !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit()) => d.parse().ok()?,
        _ => return None,
    };
    n.checked_mul(26)?
        .checked_add(u64::from(letter as u8 - b'A'))
        .filter(|_| n > 0 || digits.is_empty())
}
/// One step of a walk through a term ([`walk`]).
enum Step<'a> {
    /// A term is reached (a leaf, or before its arguments); its parent, if any.
    Enter(&'a Term, Option<&'a Term>),
    /// Between two arguments of a term.
    Between(&'a Term),
    /// A term is left (after its arguments); its parent, if any.
    Leave(&'a Term, Option<&'a Term>),
}

/// The arguments of a term (the items of a list), none for the others.
fn children(t: &Term) -> &[Term] {
    match t {
        Term::List(items) | Term::Compound(_, items) => items,
        _ => &[],
    }
}

/// Walks `root` depth first with an explicit stack; stops when `visit` returns false.
fn walk<'a>(root: &'a Term, visit: &mut dyn FnMut(Step<'a>) -> bool) {
    if !visit(Step::Enter(root, None)) {
        return;
    }
    let mut stack: Vec<(&'a Term, usize)> = vec![(root, 0)];
    while let Some(&(node, i)) = stack.last() {
        let kids = children(node);
        if i < kids.len() {
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            if i > 0 && !visit(Step::Between(node)) {
                return;
            }
            if !visit(Step::Enter(&kids[i], Some(node))) {
                return;
            }
            stack.push((&kids[i], 0));
        } else {
            stack.pop();
            let parent = stack.last().map(|&(p, _)| p);
            if !visit(Step::Leave(node, parent)) {
                return;
            }
        }
    }
}

impl Drop for Term {
    /// Iterative: the arguments of arguments are taken out onto a stack, so that no drop
    /// recurses (a deep term would overflow the stack).
    fn drop(&mut self) {
        let items = match self {
            Term::List(items) | Term::Compound(_, items) => items,
            _ => return,
        };
        if items.iter().all(|i| children(i).is_empty()) {
            return;
        }
        let mut stack = std::mem::take(items);
        while let Some(mut t) = stack.pop() {
            if let Term::List(items) | Term::Compound(_, items) = &mut t {
                stack.append(items);
            }
        }
    }
}

impl Clone for Term {
    fn clone(&self) -> Term {
        let mut out: Vec<Term> = Vec::new();
        walk(self, &mut |step| {
            if let Step::Leave(t, _) = step {
                let n = children(t).len();
                let made = match t {
                    Term::Integer(i) => Term::Integer(*i),
                    Term::BigInteger(s) => Term::BigInteger(s.clone()),
                    Term::Rational(s) => Term::Rational(s.clone()),
                    Term::Float(x) => Term::Float(*x),
                    Term::Atom(s) => Term::Atom(s.clone()),
                    Term::Chars(s) => Term::Chars(s.clone()),
                    Term::Var(s) => Term::Var(s.clone()),
                    Term::List(_) => Term::List(out.split_off(out.len() - n)),
                    Term::Compound(f, _) => Term::Compound(f.clone(), out.split_off(out.len() - n)),
                };
                out.push(made);
            }
            true
        });
        out.pop().unwrap_or(Term::Integer(0))
    }
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            let same = match (a, b) {
                // ([] is an atom that Scryer gives as an empty list)
                (a, b) if a.is_nil() || b.is_nil() => a.is_nil() && b.is_nil(),
                (Term::Integer(x), Term::Integer(y)) => x == y,
                // (as Prolog's ==/2: a NaN is itself, 0.0 is not -0.0)
                (Term::Float(x), Term::Float(y)) => x.to_bits() == y.to_bits(),
                (Term::BigInteger(x), Term::BigInteger(y))
                | (Term::Rational(x), Term::Rational(y))
                | (Term::Atom(x), Term::Atom(y))
                | (Term::Chars(x), Term::Chars(y))
                | (Term::Var(x), Term::Var(y)) => x == y,
                (Term::List(x), Term::List(y)) => x.len() == y.len(),
                (Term::Compound(f, x), Term::Compound(g, y)) => f == g && x.len() == y.len(),
                _ => false,
            };
            if !same {
                return false;
            }
            stack.extend(children(a).iter().zip(children(b)));
        }
        true
    }
}

/// Terms are equal as Prolog's `==/2` says (floats bit for bit), which is an equivalence.
impl Eq for Term {}

impl fmt::Debug for Term {
    /// As `#[derive(Debug)]` would write it (`Compound("f", [Integer(1)])`), iteratively.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut got = Ok(());
        walk(self, &mut |step| {
            got = match step {
                Step::Enter(t, _) => match t {
                    Term::Integer(i) => write!(f, "Integer({i})"),
                    Term::BigInteger(s) => write!(f, "BigInteger({s:?})"),
                    Term::Rational(s) => write!(f, "Rational({s:?})"),
                    Term::Float(x) => write!(f, "Float({x:?})"),
                    Term::Atom(s) => write!(f, "Atom({s:?})"),
                    Term::Chars(s) => write!(f, "Chars({s:?})"),
                    Term::Var(s) => write!(f, "Var({s:?})"),
                    Term::List(_) => f.write_str("List(["),
                    Term::Compound(name, _) => write!(f, "Compound({name:?}, ["),
                },
                Step::Between(_) => f.write_str(", "),
                Step::Leave(Term::List(_) | Term::Compound(..), _) => f.write_str("])"),
                Step::Leave(..) => Ok(()),
            };
            got.is_ok()
        });
        got
    }
}

/// A term's node in the flat form a term travels in between processes: the nodes in
/// post-order, each compound term or list after its arguments (with their count).
#[derive(Serialize, Deserialize)]
enum Token<S> {
    I(i64),
    B(S),
    R(S),
    F(f64),
    A(S),
    S(S),
    V(S),
    L(usize),
    C(S, usize),
}

impl Serialize for Term {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut tokens: Vec<Token<&str>> = Vec::new();
        walk(self, &mut |step| {
            if let Step::Leave(t, _) = step {
                tokens.push(match t {
                    Term::Integer(i) => Token::I(*i),
                    Term::BigInteger(s) => Token::B(s),
                    Term::Rational(s) => Token::R(s),
                    Term::Float(x) => Token::F(*x),
                    Term::Atom(s) => Token::A(s),
                    Term::Chars(s) => Token::S(s),
                    Term::Var(s) => Token::V(s),
                    Term::List(items) => Token::L(items.len()),
                    Term::Compound(f, items) => Token::C(f, items.len()),
                });
            }
            true
        });
        tokens.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Term {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Term, D::Error> {
        let tokens: Vec<Token<String>> = Vec::deserialize(deserializer)?;
        let mut out: Vec<Term> = Vec::new();
        let args = |out: &mut Vec<Term>, n: usize| {
            out.len()
                .checked_sub(n)
                .map(|at| out.split_off(at))
                .ok_or_else(|| serde::de::Error::custom("a term with fewer arguments than it says"))
        };
        for token in tokens {
            let t = match token {
                Token::I(i) => Term::Integer(i),
                Token::B(s) => Term::BigInteger(s),
                Token::R(s) => Term::Rational(s),
                Token::F(x) => Term::Float(x),
                Token::A(s) => Term::Atom(s),
                Token::S(s) => Term::Chars(s),
                Token::V(s) => Term::Var(s),
                Token::L(n) => Term::List(args(&mut out, n)?),
                Token::C(f, n) => Term::Compound(f, args(&mut out, n)?),
            };
            out.push(t);
        }
        match (out.pop(), out.is_empty()) {
            (Some(t), true) => Ok(t),
            _ => Err(serde::de::Error::custom("not one term")),
        }
    }
}

impl fmt::Display for Term {
    /// The term as Prolog text that reads back as the same term (`writeq/1` semantics; see
    /// [`Term::to_prolog`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_prolog())
    }
}

impl Term {
    /// The term as Prolog text that reads back as the same term, whatever its depth:
    /// `writeq/1` semantics (atoms quoted where they must be: `'hello world'`, `'it\'s'`; the
    /// standard operators written as operators, bracketed where their priorities need it:
    /// `1 - (2 - 3)`, `f((a,b))`; lists in list notation; a variable by its name). Other
    /// operators are written in canonical form (`#=(X,1)`). A [`Term::Chars`] is written as
    /// a list of characters (`[h,i]`), which reads back as one whatever the `double_quotes`
    /// flag; an infinite float or NaN as `inf`, `-inf`, `nan` (atoms to Prolog). This is what
    /// `Display` writes, and how a query's parameters travel ([`super::Query::bind`]).
    pub fn to_prolog(&self) -> String {
        let mut out = String::new();
        super::write::write(self, &mut out, None);
        out
    }

    /// An atom.
    pub fn atom(name: &str) -> Term {
        Term::Atom(name.to_string())
    }

    /// A text, as a list of characters (Prolog's text under `double_quotes` `chars`).
    pub fn chars(text: &str) -> Term {
        Term::Chars(text.to_string())
    }

    /// A compound term `name(args...)`.
    pub fn compound(name: &str, args: Vec<Term>) -> Term {
        Term::Compound(name.to_string(), args)
    }

    /// A variable, by name (`X`, `_Y`).
    pub fn var(name: &str) -> Term {
        Term::Var(name.to_string())
    }
}

impl From<i64> for Term {
    fn from(i: i64) -> Term {
        Term::Integer(i)
    }
}

impl From<i32> for Term {
    fn from(i: i32) -> Term {
        Term::Integer(i.into())
    }
}

impl From<u32> for Term {
    fn from(i: u32) -> Term {
        Term::Integer(i.into())
    }
}

impl From<u64> for Term {
    fn from(i: u64) -> Term {
        i64::try_from(i).map_or_else(|_| Term::BigInteger(i.to_string()), Term::Integer)
    }
}

impl From<usize> for Term {
    fn from(i: usize) -> Term {
        i64::try_from(i).map_or_else(|_| Term::BigInteger(i.to_string()), Term::Integer)
    }
}

impl From<f64> for Term {
    fn from(x: f64) -> Term {
        Term::Float(x)
    }
}

impl From<bool> for Term {
    /// The atom `true` or `false`.
    fn from(b: bool) -> Term {
        Term::Atom(b.to_string())
    }
}

impl From<&str> for Term {
    /// A text: a list of characters ([`Term::chars`]; [`Term::atom`] makes an atom).
    fn from(s: &str) -> Term {
        Term::chars(s)
    }
}

impl From<String> for Term {
    /// A text: a list of characters ([`Term::chars`]; [`Term::atom`] makes an atom).
    fn from(s: String) -> Term {
        Term::Chars(s)
    }
}

impl<T: Into<Term>> From<Vec<T>> for Term {
    /// A proper list.
    fn from(items: Vec<T>) -> Term {
        Term::List(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Term> + Clone> From<&[T]> for Term {
    /// A proper list.
    fn from(items: &[T]) -> Term {
        Term::List(items.iter().cloned().map(Into::into).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_terms_are_dropped_cloned_compared_written_and_sent_without_recursion() {
        // Regression (#36): every one of these recursed on the term's depth (a deep answer
        // overflowed the stack: SIGABRT), and serde_json refused more than 128 levels. A
        // thread with a small stack: any recursion over a million levels overflows it.
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                const N: usize = 1_000_000;
                let f = |t: Term| Term::Compound("f".into(), vec![t]);
                let deep = (0..N).fold(Term::Atom("z".into()), |t, _| f(t));
                let copy = deep.clone();
                assert!(copy == deep);
                assert!(f(Term::Atom("z".into())) != f(Term::Atom("y".into())));
                let text = deep.to_string();
                assert_eq!(text.len(), 2 * N + 1 + N);
                assert!(text.starts_with("f(f(") && text.contains("(f(z))"));
                assert!(format!("{deep:?}").starts_with("Compound(\"f\", [Compound(\"f\""));
                assert!(deep.quoted(50).ends_with("..."));
                let json = serde_json::to_string(&deep).unwrap();
                let back: Term = serde_json::from_str(&json).unwrap();
                assert!(back == deep);
                let list = Term::List((0..N as i64).map(Term::Integer).collect());
                let json = serde_json::to_string(&list).unwrap();
                assert!(serde_json::from_str::<Term>(&json).unwrap() == list);
                drop((deep, copy, back, list));
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn terms_travel_as_flat_tokens_and_read_as_derive_would_write_them() {
        let t = Term::Compound(
            "f".into(),
            vec![
                Term::List(vec![Term::Integer(1), Term::Float(2.5)]),
                Term::Chars("ab".into()),
                Term::Var("X".into()),
            ],
        );
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"[{"I":1},{"F":2.5},{"L":2},{"S":"ab"},{"V":"X"},{"C":["f",3]}]"#
        );
        assert_eq!(serde_json::from_str::<Term>(&json).unwrap(), t);
        assert_eq!(
            format!("{t:?}"),
            r#"Compound("f", [List([Integer(1), Float(2.5)]), Chars("ab"), Var("X")])"#
        );
        for bad in [r#"[{"L":2}]"#, "[]", r#"[{"I":1},{"I":2}]"#] {
            assert!(serde_json::from_str::<Term>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn helpers_read_what_they_say() {
        let grid = Term::List(vec![
            Term::List(vec![Term::Integer(1), Term::Integer(2)]),
            Term::List(vec![Term::Integer(2), Term::Integer(1)]),
        ]);
        assert_eq!(grid.as_grid(2).unwrap(), vec![vec![1, 2], vec![2, 1]]);
        assert!(matches!(grid.as_grid(3), Err(PrologError::BadGrid(3, _))));
        assert_eq!(grid.to_string(), "[[1,2],[2,1]]");
        assert_eq!(Term::Integer(-7).as_i64(), Some(-7));
        assert_eq!(Term::BigInteger("1".repeat(30)).as_i64(), None);
        assert_eq!(Term::Chars("abc".into()).as_text().as_deref(), Some("abc"));
        assert_eq!(Term::Atom("[]".into()).as_text().as_deref(), Some(""));
        let codes = Term::List(vec![Term::Integer(104), Term::Integer(105)]);
        assert_eq!(codes.as_text().as_deref(), Some("hi"));
        let partial = Term::Compound(
            ".".into(),
            vec![Term::Var("I".into()), Term::Var("J".into())],
        );
        assert_eq!(partial.to_string(), "[I|J]");
        assert_eq!(
            Term::Compound("-".into(), vec![Term::Integer(1), Term::Float(2.0)]).to_string(),
            "1 - 2.0"
        );
    }
}
