//! Writing a [`Term`] as Prolog text that reads back as the same term (`writeq/1` semantics):
//! atoms quoted where they must be, the standard operators written as operators with brackets
//! where their priorities need them, lists in list notation, variables by name. What
//! `Term`'s `Display` writes. (A query's parameters travel as tokens the engine builds the
//! term of: [`super::term`]'s `param`.) A rational is written as Scryer 0.10 writes it
//! (`1 rdiv 3`), which no reader of Scryer 0.10 reads as a rational: it has no syntax for one.
//!
//! Only the standard operators of ISO Prolog (and Scryer's defaults among them) are written as
//! operators; a term whose name is any other operator is written in canonical form (`#=(X, 1)`),
//! which reads back whatever operators are defined. Iterative: any depth.

use super::Term;

/// How an operator is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fix {
    /// `xfx`, `xfy` or `yfx`: the left and right arguments' maximum priorities.
    Infix(u16, u16),
    /// `fx` or `fy`: the argument's maximum priority.
    Prefix(u16),
}

/// The standard operator `name` of `arity` arguments: its priority and how it is written.
fn op(name: &str, arity: usize) -> Option<(u16, Fix)> {
    let xfx = |p: u16| (p, Fix::Infix(p - 1, p - 1));
    let xfy = |p: u16| (p, Fix::Infix(p - 1, p));
    let yfx = |p: u16| (p, Fix::Infix(p, p - 1));
    match (arity, name) {
        (2, ":-" | "-->") => Some(xfx(1200)),
        (2, ";") => Some(xfy(1100)),
        (2, "->" | "*->") => Some(xfy(1050)),
        (2, ",") => Some(xfy(1000)),
        (
            2,
            "=" | "\\=" | "==" | "\\==" | "@<" | "@>" | "@=<" | "@>=" | "=.." | "is" | "=:="
            | "=\\=" | "<" | ">" | "=<" | ">=",
        ) => Some(xfx(700)),
        (2, ":") => Some(xfy(200)),
        (2, "+" | "-" | "/\\" | "\\/" | "xor") => Some(yfx(500)),
        (2, "*" | "/" | "//" | "rem" | "mod" | "div" | "<<" | ">>") => Some(yfx(400)),
        (2, "**") => Some(xfx(200)),
        (2, "^") => Some(xfy(200)),
        (1, ":-" | "?-") => Some((1200, Fix::Prefix(1199))),
        (1, "dynamic" | "discontiguous" | "initialization" | "meta_predicate" | "multifile") => {
            Some((1150, Fix::Prefix(1149)))
        }
        (1, "\\+") => Some((900, Fix::Prefix(900))),
        (1, "-" | "+" | "\\") => Some((200, Fix::Prefix(200))),
        _ => None,
    }
}

/// Whether the atom `a` is a standard operator (then bracketed where it is an operand).
fn is_op_atom(a: &str) -> bool {
    op(a, 1).is_some() || op(a, 2).is_some()
}

/// One step of the writer.
enum Step<'a> {
    /// A term, where at most this priority stands without brackets.
    Term(&'a Term, u16),
    Text(&'static str),
    Owned(String),
}

/// Writes `t` to `out`, stopping once `out` holds more than `max` bytes (`None`: no bound).
pub(crate) fn write(t: &Term, out: &mut String, max: Option<usize>) {
    let mut stack = vec![Step::Term(t, 1200)];
    while let Some(step) = stack.pop() {
        if max.is_some_and(|m| out.len() > m) {
            return;
        }
        let (t, max_prio) = match step {
            Step::Text(s) => {
                out.push_str(s);
                continue;
            }
            Step::Owned(s) => {
                out.push_str(&s);
                continue;
            }
            Step::Term(t, p) => (t, p),
        };
        match t {
            Term::Integer(i) => number(out, &i.to_string(), max_prio),
            Term::BigInteger(s) => number(out, s, max_prio),
            Term::Rational(s) => rational(out, s, max_prio),
            Term::Float(x) => number(out, &float(*x), max_prio),
            Term::Atom(a) => {
                if max_prio < 1200 && is_op_atom(a) {
                    out.push('(');
                    atom(out, a);
                    out.push(')');
                } else {
                    atom(out, a);
                }
            }
            Term::Var(v) => var(out, v),
            Term::Chars(s) if s.is_empty() => out.push_str("[]"),
            Term::Chars(s) => {
                out.push('[');
                for (i, c) in s.chars().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let mut b = [0; 4];
                    let c = c.encode_utf8(&mut b);
                    if is_op_atom(c) {
                        out.push('(');
                        atom(out, c);
                        out.push(')');
                    } else {
                        atom(out, c);
                    }
                    if max.is_some_and(|m| out.len() > m) {
                        return;
                    }
                }
                out.push(']');
            }
            Term::List(items) if items.is_empty() => out.push_str("[]"),
            Term::List(items) => {
                out.push('[');
                stack.push(Step::Text("]"));
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push(Step::Term(item, 999));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Term::Compound(f, args) if f == "." && args.len() == 2 => {
                // a chain of cells: [H1,H2,...|Tail]
                let mut items = vec![&args[0]];
                let mut tail = &args[1];
                while let Term::Compound(g, next) = tail {
                    if g != "." || next.len() != 2 {
                        break;
                    }
                    items.push(&next[0]);
                    tail = &next[1];
                }
                out.push('[');
                stack.push(Step::Text("]"));
                match tail {
                    Term::Atom(a) if a == "[]" => {}
                    Term::List(l) if l.is_empty() => {}
                    tail => {
                        stack.push(Step::Term(tail, 999));
                        stack.push(Step::Text("|"));
                    }
                }
                for (i, item) in items.into_iter().enumerate().rev() {
                    stack.push(Step::Term(item, 999));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Term::Compound(f, args) if f == "{}" && args.len() == 1 => {
                out.push('{');
                stack.push(Step::Text("}"));
                stack.push(Step::Term(&args[0], 1200));
            }
            Term::Compound(f, args) if args.is_empty() => atom(out, f),
            Term::Compound(f, args) => match op(f, args.len()) {
                Some((p, fix)) => {
                    let bracket = p > max_prio;
                    if bracket {
                        out.push('(');
                        stack.push(Step::Text(")"));
                    }
                    match fix {
                        Fix::Infix(left, right) => {
                            stack.push(Step::Term(&args[1], right));
                            stack.push(Step::Owned(if f == "," {
                                ",".into()
                            } else {
                                let mut s = String::from(" ");
                                atom(&mut s, f);
                                s.push(' ');
                                s
                            }));
                            stack.push(Step::Term(&args[0], left));
                        }
                        Fix::Prefix(arg) => {
                            if is_number(&args[0]) {
                                // -(1) is not the number -1
                                atom(out, f);
                                out.push('(');
                                stack.push(Step::Text(")"));
                                stack.push(Step::Term(&args[0], 999));
                            } else {
                                atom(out, f);
                                out.push(' ');
                                stack.push(Step::Term(&args[0], arg));
                            }
                        }
                    }
                }
                None => {
                    atom(out, f);
                    out.push('(');
                    stack.push(Step::Text(")"));
                    for (i, a) in args.iter().enumerate().rev() {
                        stack.push(Step::Term(a, 999));
                        if i > 0 {
                            stack.push(Step::Text(","));
                        }
                    }
                }
            },
        }
    }
}

fn is_number(t: &Term) -> bool {
    matches!(
        t,
        Term::Integer(_) | Term::BigInteger(_) | Term::Rational(_) | Term::Float(_)
    )
}

/// A number's text, bracketed when it is negative and an operand (`1 - (-1)`, `(-1)^2`).
fn number(out: &mut String, text: &str, max_prio: u16) {
    if text.starts_with('-') && max_prio < 999 {
        out.push('(');
        out.push_str(text);
        out.push(')');
    } else {
        out.push_str(text);
    }
}

/// A rational (`NrD`, or `N/D`) as Scryer 0.10 writes it: `N rdiv D`, bracketed as an
/// operand of an operator of priority under 400 (`rdiv` is `yfx` 400).
fn rational(out: &mut String, text: &str, max_prio: u16) {
    let Some((n, d)) = text.split_once('r').or_else(|| text.split_once('/')) else {
        return number(out, text, max_prio);
    };
    let bracket = max_prio < 400;
    if bracket {
        out.push('(');
    }
    out.push_str(n);
    out.push_str(" rdiv ");
    out.push_str(d);
    if bracket {
        out.push(')');
    }
}

/// A float as Prolog reads it back: digits on both sides of the point, before any exponent
/// (`1.0e20`, not Rust's `1e20`). Infinities and NaN have no such text (`inf`, `-inf`, `nan`).
pub(crate) fn float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let s = format!("{x:?}");
    match s.split_once('e') {
        Some((m, e)) if !m.contains('.') => format!("{m}.0e{e}"),
        Some(_) => s,
        None if s.contains('.') => s,
        None => format!("{s}.0"),
    }
}

/// A variable's name, or one made of it when it is not a variable's name (`_` and its bytes
/// in hexadecimal, so that one name is always one variable).
fn var(out: &mut String, v: &str) {
    let mut cs = v.chars();
    let valid = matches!(cs.next(), Some(c) if c == '_' || c.is_ascii_uppercase())
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        out.push_str(v);
    } else {
        out.push_str("_V");
        for b in v.bytes() {
            out.push_str(&format!("{b:02x}"));
        }
    }
}

/// An atom as `writeq/1` writes it: bare when it is a name (`abc`, `aB_1`, `été`), made of
/// symbol characters (`+`, `=..`; not `.` alone, nor a start of comment `/*`), or solo (`[]`,
/// `!`, `;`, `{}`); else quoted, with escapes. The one atom quoting of the crate.
pub(crate) fn atom(out: &mut String, a: &str) {
    let mut cs = a.chars();
    let bare = match cs.next() {
        None => false,
        Some(c) if c.is_alphabetic() && !c.is_uppercase() => {
            cs.all(|c| c.is_alphanumeric() || c == '_')
        }
        Some(_) => {
            ["[]", "!", ";", "{}"].contains(&a)
                || (a != "."
                    && !a.starts_with("/*")
                    && a.chars().all(|c| "+-*/\\^<>=~:.?@#&$".contains(c)))
        }
    };
    if bare {
        out.push_str(a);
    } else {
        quoted(out, a);
    }
}

/// `a` between single quotes, with escapes, whatever it is: how the host writes a file's path
/// into a goal (a bare `-` or `:-` is no argument to every reader).
pub(crate) fn quoted(out: &mut String, a: &str) {
    out.push('\'');
    for c in a.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:x}\\", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// [`atom`], as a string of its own.
pub(crate) fn quote_atom(a: &str) -> String {
    let mut out = String::with_capacity(a.len() + 2);
    atom(&mut out, a);
    out
}

/// [`quoted`], as a string of its own.
pub(crate) fn quoted_atom(a: &str) -> String {
    let mut out = String::with_capacity(a.len() + 2);
    quoted(&mut out, a);
    out
}

/// Escapes `text` as a Prolog double-quoted string: only printable ASCII stays as is.
pub(crate) fn quote(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            ' '..='~' => s.push(c),
            c => s.push_str(&format!("\\x{:x}\\", c as u32)),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &Term) -> String {
        let mut s = String::new();
        write(t, &mut s, None);
        s
    }

    #[test]
    fn operators_quotes_and_numbers() {
        let a = |s: &str| Term::Atom(s.into());
        let c = |f: &str, xs: Vec<Term>| Term::Compound(f.into(), xs);
        let i = Term::Integer;
        assert_eq!(
            w(&c("f", vec![a("hello world"), a("it's"), a("[]")])),
            "f('hello world','it\\'s',[])"
        );
        assert_eq!(w(&c("-", vec![i(1), i(-1)])), "1 - (-1)");
        assert_eq!(w(&c("-", vec![i(1)])), "-(1)");
        assert_eq!(w(&c("-", vec![a("a")])), "- a");
        assert_eq!(
            w(&c("-", vec![c("-", vec![i(1), i(2)]), i(3)])),
            "1 - 2 - 3"
        );
        assert_eq!(
            w(&c("-", vec![i(1), c("-", vec![i(2), i(3)])])),
            "1 - (2 - 3)"
        );
        assert_eq!(w(&c("f", vec![c(",", vec![a("a"), a("b")])])), "f((a,b))");
        assert_eq!(
            w(&c("f", vec![a(":-"), a("-"), a(",")])),
            "f((:-),(-),(','))"
        );
        assert_eq!(w(&c("#=", vec![a("x"), i(1)])), "#=(x,1)");
        assert_eq!(w(&Term::Float(1e20)), "1.0e20");
        assert_eq!(w(&Term::Float(2.0)), "2.0");
        assert_eq!(w(&Term::Chars("a(".into())), "[a,'(']");
        assert_eq!(w(&Term::Var("not a var".into())), "_V6e6f74206120766172");
    }

    #[test]
    fn atoms_are_quoted_in_one_place() {
        assert_eq!(quote_atom("été"), "été");
        assert_eq!(quote_atom("Été"), "'Été'");
        assert_eq!(quote_atom("."), "'.'");
        assert_eq!(quote_atom("/*"), "'/*'");
        assert_eq!(quote_atom("=.."), "=..");
        assert_eq!(quote_atom(""), "''");
        assert_eq!(quoted_atom("-"), "'-'");
        assert_eq!(
            quoted_atom("/a/o'b\\c\nd\u{1}"),
            "'/a/o\\'b\\\\c\\nd\\x1\\'"
        );
    }
}
