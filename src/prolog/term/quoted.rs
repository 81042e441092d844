//! A term written as Prolog's `writeq/1` would write it, cut at a length: [`Term::quoted`], for
//! messages about terms a program answered or threw.

use super::{walk, Step, Term};
use crate::prolog::write::quote_atom;

/// Whether `t` is a list cell `.(H, T)`.
fn is_cell(t: &Term) -> bool {
    matches!(t, Term::Compound(name, args) if name == "." && args.len() == 2)
}

/// Whether `t` is written between its arguments by [`Term::quoted`].
fn is_infix(t: &Term) -> bool {
    matches!(t, Term::Compound(n, xs) if xs.len() == 2 && INFIX.contains(&n.as_str()))
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
        walk(self, &mut |step| {
            match step {
                Step::Enter(t, parent) => {
                    if is_infix(t) && parent.is_some_and(is_infix) {
                        out.push('(');
                    }
                    match t {
                        Term::Atom(a) => out.push_str(&quote_atom(a)),
                        Term::Chars(s) => {
                            out.push('[');
                            for (i, c) in s.chars().enumerate() {
                                if out.len() > max {
                                    break;
                                }
                                if i > 0 {
                                    out.push(',');
                                }
                                out.push_str(&quote_atom(&c.to_string()));
                            }
                            out.push(']');
                        }
                        Term::List(_) => out.push('['),
                        t if is_cell(t) => out.push('['),
                        t if is_infix(t) => {}
                        Term::Compound(name, _) => {
                            out.push_str(&quote_atom(name));
                            out.push('(');
                        }
                        other => out.push_str(&other.to_string()),
                    }
                }
                Step::Between(t) if is_cell(t) => out.push('|'),
                Step::Between(t @ Term::Compound(name, _)) if is_infix(t) => {
                    if name.chars().all(char::is_alphabetic) {
                        out.push(' ');
                        out.push_str(name);
                        out.push(' ');
                    } else {
                        out.push_str(name);
                    }
                }
                Step::Between(_) => out.push(','),
                Step::Leave(t, parent) => {
                    match t {
                        Term::List(_) => out.push(']'),
                        t if is_cell(t) => out.push(']'),
                        t if is_infix(t) => {}
                        Term::Compound(..) => out.push(')'),
                        _ => {}
                    }
                    if is_infix(t) && parent.is_some_and(is_infix) {
                        out.push(')');
                    }
                }
            }
            out.len() <= max
        });
    }
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
}
