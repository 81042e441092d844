//! Prolog terms as the host sees them: the crate's own [`Term`] (what a query's bindings hold,
//! with helpers to read a grid, an integer or a text from one), and the conversions from the
//! terms the Scryer engine hands back.

use std::fmt;

use scryer_prolog::Term as ScryerTerm;
use serde::{Deserialize, Serialize};

use super::PrologError;
use crate::puzzle::Grid;

/// A Prolog term, as an answer binds a variable to it.
///
/// Lists come back as [`Term::List`], except a list of one-character atoms (Prolog's text
/// under `double_quotes` `chars`), which comes back as [`Term::Chars`]; a partial list
/// `[H|T]` comes back as `Compound(".", [H, T])`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Term {
    /// An integer that fits in 64 bits.
    Integer(i64),
    /// A larger integer, in decimal.
    BigInteger(String),
    /// A rational number, as Scryer writes it (`1r3`).
    Rational(String),
    /// A float.
    Float(f64),
    /// An atom (`[]` for the empty list).
    Atom(String),
    /// A list of characters.
    Chars(String),
    /// A proper list.
    List(Vec<Term>),
    /// A compound term: its name and arguments.
    Compound(String, Vec<Term>),
    /// A variable, by the name the answer gives it.
    Var(String),
}

impl Term {
    /// The integer, when the term is one that fits in an `i64`.
    pub(crate) fn as_i64(&self) -> Option<i64> {
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

    /// The items of a proper list (`[]` has none); `None` for any other term.
    pub fn as_list(&self) -> Option<&[Term]> {
        match self {
            Term::List(items) => Some(items),
            Term::Atom(a) if a == "[]" => Some(&[]),
            _ => None,
        }
    }

    /// The term as an `n` x `n` grid of positive integers (the `T` of `kenken(N, C, T)`).
    pub(crate) fn as_grid(&self, n: usize) -> Result<Grid, PrologError> {
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

    /// The crate's term for a term Scryer answered with.
    pub(crate) fn from_scryer(t: &ScryerTerm) -> Term {
        match t {
            ScryerTerm::Integer(i) => {
                let text = i.to_string();
                text.parse().map_or(Term::BigInteger(text), Term::Integer)
            }
            ScryerTerm::Rational(r) => Term::Rational(r.to_string()),
            ScryerTerm::Float(f) => Term::Float(*f),
            ScryerTerm::Atom(a) => Term::Atom(a.clone()),
            ScryerTerm::String(s) => Term::Chars(s.clone()),
            ScryerTerm::List(items) => Term::List(items.iter().map(Term::from_scryer).collect()),
            ScryerTerm::Compound(f, args) => {
                Term::Compound(f.clone(), args.iter().map(Term::from_scryer).collect())
            }
            ScryerTerm::Var(v) => Term::Var(v.clone()),
            other => Term::Atom(format!("{other:?}")),
        }
    }
}

impl fmt::Display for Term {
    /// The term roughly as Prolog writes it (for messages: atoms are not quoted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, items: &[Term]| -> fmt::Result {
            for (i, t) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{t}")?;
            }
            Ok(())
        };
        match self {
            Term::Integer(i) => write!(f, "{i}"),
            Term::BigInteger(s) | Term::Rational(s) | Term::Atom(s) | Term::Var(s) => {
                f.write_str(s)
            }
            Term::Float(x) => write!(f, "{x:?}"),
            Term::Chars(s) => write!(f, "{s:?}"),
            Term::List(items) => {
                f.write_str("[")?;
                join(f, items)?;
                f.write_str("]")
            }
            Term::Compound(name, args) if name == "." && args.len() == 2 => {
                write!(f, "[{}|{}]", args[0], args[1])
            }
            Term::Compound(name, args) => {
                write!(f, "{name}(")?;
                join(f, args)?;
                f.write_str(")")
            }
        }
    }
}

/// The infix operators [`Term::quoted`] writes between their arguments.
const INFIX: [&str; 20] = [
    ":-", "-->", ";", "->", "=", "\\=", "==", "\\==", "is", "=:=", "=\\=", "<", ">", "=<", ">=",
    ":", "+", "-", "*", "/",
];

impl Term {
    /// The term as Prolog's `writeq/1` would write it (atoms quoted where they must be, the
    /// usual infix operators between their arguments), cut after about `max` bytes with
    /// `...`: for messages about terms a program answered or threw.
    pub(crate) fn quoted(&self, max: usize) -> String {
        let mut out = String::new();
        self.write_quoted(&mut out, max);
        if out.len() > max {
            let mut end = max;
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push_str("...");
        }
        out
    }

    fn write_quoted(&self, out: &mut String, max: usize) {
        if out.len() > max {
            return;
        }
        let list = |out: &mut String, items: &mut dyn Iterator<Item = &Term>| {
            out.push('[');
            for (i, t) in items.enumerate() {
                if out.len() > max {
                    break;
                }
                if i > 0 {
                    out.push(',');
                }
                t.write_quoted(out, max);
            }
            out.push(']');
        };
        match self {
            Term::Atom(a) => out.push_str(&quote_atom(a)),
            Term::Chars(s) => {
                let chars: Vec<Term> = s.chars().map(|c| Term::Atom(c.to_string())).collect();
                list(out, &mut chars.iter());
            }
            Term::List(items) => list(out, &mut items.iter()),
            Term::Compound(name, args) if name == "." && args.len() == 2 => {
                out.push('[');
                args[0].write_quoted(out, max);
                out.push('|');
                args[1].write_quoted(out, max);
                out.push(']');
            }
            Term::Compound(name, args) if args.len() == 2 && INFIX.contains(&name.as_str()) => {
                for (i, a) in args.iter().enumerate() {
                    let bracket = matches!(a, Term::Compound(n, xs)
                        if xs.len() == 2 && INFIX.contains(&n.as_str()));
                    if i == 1 {
                        let word = name.chars().all(char::is_alphabetic);
                        out.push_str(&if word {
                            format!(" {name} ")
                        } else {
                            name.clone()
                        });
                    }
                    if bracket {
                        out.push('(');
                    }
                    a.write_quoted(out, max);
                    if bracket {
                        out.push(')');
                    }
                }
            }
            Term::Compound(name, args) => {
                out.push_str(&quote_atom(name));
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if out.len() > max {
                        break;
                    }
                    if i > 0 {
                        out.push(',');
                    }
                    a.write_quoted(out, max);
                }
                out.push(')');
            }
            other => out.push_str(&other.to_string()),
        }
    }
}

/// An atom as `writeq/1` writes it: bare when it is a name (`abc`, `aB_1`), made of symbol
/// characters (`+`, `=..`), or solo (`[]`, `!`, `;`, `{}`, `,` excepted); else quoted.
fn quote_atom(a: &str) -> String {
    let mut cs = a.chars();
    let bare = match cs.next() {
        None => false,
        Some(c) if c.is_lowercase() => a.chars().all(|c| c.is_alphanumeric() || c == '_'),
        Some(_) => {
            ["[]", "!", ";", "{}"].contains(&a)
                || a.chars().all(|c| "+-*/\\^<>=~:.?@#&$".contains(c))
        }
    };
    if bare {
        return a.to_string();
    }
    let mut q = String::from("'");
    for c in a.chars() {
        match c {
            '\'' => q.push_str("\\'"),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            c if c.is_control() => q.push_str(&format!("\\x{:x}\\", c as u32)),
            c => q.push(c),
        }
    }
    q.push('\'');
    q
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_written_as_writeq_writes_them() {
        let a = |s: &str| Term::Atom(s.into());
        let c = |f: &str, xs: Vec<Term>| Term::Compound(f.into(), xs);
        assert_eq!(
            c("/", vec![a("fd_minimize"), Term::Integer(2)]).quoted(100),
            "fd_minimize/2"
        );
        assert_eq!(
            c("environment", vec![a("no_secret"), a("/bin/sh")]).quoted(100),
            "environment(no_secret,'/bin/sh')"
        );
        assert_eq!(Term::Chars("ke(n".into()).quoted(100), "[k,e,'(',n]");
        assert_eq!(
            c(
                "-",
                vec![c("-", vec![Term::Integer(1), Term::Integer(2)]), a("It's")]
            )
            .quoted(100),
            "(1-2)-'It\\'s'"
        );
        assert_eq!(a("a\nb").quoted(100), "'a\\nb'");
        assert_eq!(
            c("is", vec![Term::Var("X".into()), a("[]")]).quoted(100),
            "X is []"
        );
        let long = Term::List((0..1000).map(Term::Integer).collect());
        assert!(long.quoted(20).ends_with("..."));
        assert!(long.quoted(20).len() < 40);
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
            "-(1,2.0)"
        );
    }
}
