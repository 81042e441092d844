//! A query's parameters ([`crate::prolog::Query::bind`]) as the engine builds them: each
//! value a flat list of tokens in post-order (`i(1)`, `a('x')`, `c('f', 2)`, ...), which the
//! wrapper (`kk_params/4` of `prolog/host_query.pl`) turns into the very term, whatever
//! operators and flags the engine has: no token is read as an operator, and no depth of the
//! term reaches the reader (it once travelled as text: `(a:b)-c` arrived as `a:(b-c)`, and
//! `xor(1,2)` or `dynamic(a/1)` were syntax errors).

use super::{walk, Step, Term};
use crate::prolog::write::quoted;

/// Why a value cannot be sent.
pub(crate) type BadParam = String;

/// Appends `t`'s tokens to `out`, a Prolog list of them (iterative: any depth).
pub(crate) fn tokens(t: &Term, out: &mut String) -> Result<(), BadParam> {
    let mut bad = None;
    let mut first = true;
    out.push('[');
    walk(t, &mut |step| {
        let Step::Leave(t, _) = step else {
            return true;
        };
        if !first {
            out.push(',');
        }
        first = false;
        match token(t, out) {
            Ok(()) => true,
            Err(why) => {
                bad = Some(why);
                false
            }
        }
    });
    out.push(']');
    bad.map_or(Ok(()), Err)
}

/// One node's token, after those of its arguments.
fn token(t: &Term, out: &mut String) -> Result<(), BadParam> {
    match t {
        Term::Integer(i) => out.push_str(&format!("i({i})")),
        Term::BigInteger(s) => {
            integer(s).ok_or_else(|| format!("{s:?} is not an integer"))?;
            out.push_str(&format!("i({s})"));
        }
        Term::Rational(s) => {
            let (n, d) = rational(s).ok_or_else(|| format!("{s:?} is not a rational"))?;
            out.push_str(&format!("r({n},{d})"));
        }
        Term::Float(x) if x.is_finite() => {
            out.push_str("f(");
            out.push_str(&crate::prolog::write::float(*x));
            out.push(')');
        }
        Term::Float(x) => {
            // (no Prolog float is infinite or NaN: the atoms, as Term's writer writes them)
            let name = if x.is_nan() {
                "nan"
            } else if *x > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            out.push_str(&format!("a('{name}')"));
        }
        Term::Atom(a) => {
            out.push_str("a(");
            quoted(out, a);
            out.push(')');
        }
        Term::Chars(s) => {
            out.push_str("s(");
            quoted(out, s);
            out.push(')');
        }
        Term::Var(v) => {
            out.push_str("v(");
            quoted(out, v);
            out.push(')');
        }
        Term::List(items) => out.push_str(&format!("l({})", items.len())),
        Term::Compound(f, args) => {
            out.push_str("c(");
            quoted(out, f);
            out.push_str(&format!(",{})", args.len()));
        }
    }
    Ok(())
}

/// The digits of an integer's text (a sign, then digits), when it is one.
fn integer(s: &str) -> Option<&str> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(s)
}

/// A rational's numerator and denominator, from `NrD` (as Scryer writes it) or `N/D`.
fn rational(s: &str) -> Option<(&str, &str)> {
    let (n, d) = s.split_once('r').or_else(|| s.split_once('/'))?;
    integer(n)?;
    (integer(d)? != "0" && !d.starts_with('-')).then_some((n, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(t: &Term) -> Result<String, BadParam> {
        let mut out = String::new();
        tokens(t, &mut out).map(|()| out)
    }

    #[test]
    fn a_value_is_its_tokens_in_post_order() {
        let t = Term::compound(
            "-",
            vec![
                Term::compound(":", vec![Term::atom("a"), Term::atom("b")]),
                Term::List(vec![Term::Integer(-1), Term::var("X"), Term::chars("h'i")]),
            ],
        );
        assert_eq!(
            toks(&t).unwrap(),
            "[a('a'),a('b'),c(':',2),i(-1),v('X'),s('h\\'i'),l(3),c('-',2)]"
        );
        assert_eq!(toks(&Term::Rational("-1r3".into())).unwrap(), "[r(-1,3)]");
        assert_eq!(toks(&Term::Rational("2/5".into())).unwrap(), "[r(2,5)]");
        assert_eq!(toks(&Term::Float(1e20)).unwrap(), "[f(1.0e20)]");
        assert_eq!(toks(&Term::Float(f64::NAN)).unwrap(), "[a('nan')]");
        // a number's text is checked: it is never pasted into the query as it is
        for bad in [
            Term::BigInteger("1), halt, i(2".into()),
            Term::Rational("1r0".into()),
            Term::Rational("1".into()),
        ] {
            assert!(toks(&Term::List(vec![bad])).is_err());
        }
    }
}
