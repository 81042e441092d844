//! Which Prolog a judged file was written for: GNU Prolog (the homework's system: `fd_domain/3`,
//! `fd_labeling/1`, ...) or Scryer/SWI (`library(clpz)` or `library(clpfd)`: `ins/2`,
//! `label/1`, ...).

use serde::{Deserialize, Serialize};

/// A judged file's dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Written for GNU Prolog: run with the GNU compatibility layer, or under `gprolog`.
    Gnu,
    /// Written for Scryer or SWI-Prolog (CLP(Z)/CLP(FD) libraries): run as it is.
    Scryer,
}

impl Dialect {
    /// The dialect's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Gnu => "gnu",
            Dialect::Scryer => "scryer",
        }
    }
}

/// Words only GNU Prolog has.
const GNU_WORDS: [&str; 9] = [
    "fd_domain",
    "fd_all_different",
    "fd_labeling",
    "fd_labelingff",
    "fd_set_vector_max",
    "fd_max_integer",
    "fd_element",
    "fd_relation",
    "fd_domain_bool",
];

/// Words only the CLP(Z)/CLP(FD) libraries have.
const CLP_WORDS: [&str; 7] = [
    "clpz",
    "clpfd",
    "ins",
    "all_distinct",
    "all_different",
    "label",
    "labeling",
];

/// The dialect of a Prolog text: GNU when it uses a GNU finite-domain built-in and loads no
/// CLP(Z)/CLP(FD) library; Scryer when it loads one (a `:-` directive) or uses its predicates without GNU's; GNU
/// (the homework's system) when it uses neither. Comments and quoted text are not read.
pub fn detect(text: &str) -> Dialect {
    let words = words(text);
    let gnu = words.iter().any(|w| GNU_WORDS.contains(&w.as_str()));
    let clp = words.iter().any(|w| CLP_WORDS.contains(&w.as_str()));
    // only a directive loads it: `use_module(library(clpfd)).` as a clause is a fact
    let loads_clp = words.windows(4).any(|w| {
        w[0] == ":-"
            && (w[1] == "use_module" || w[1] == "ensure_loaded")
            && w[2] == "library"
            && (w[3] == "clpz" || w[3] == "clpfd")
    });
    match (gnu, clp) {
        _ if loads_clp => Dialect::Scryer,
        (false, true) => Dialect::Scryer,
        _ => Dialect::Gnu,
    }
}

/// The words (letters, digits, `_`, and `:-`) of `text` outside comments and quotes.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    scan(text, |piece, _| match piece {
        Piece::Word(w) => out.push(w),
        Piece::Neck => out.push(":-".into()),
        Piece::Other => {}
    });
    out
}

/// The last line (1-based) of `text` that holds anything but comments and white space; 0 when
/// there is none. Scryer 0.10's reader reports a syntax error at the end of a file whose last
/// clause is followed by a `/* ... */` comment: an error after this line is not one.
pub fn last_code_line(text: &str) -> usize {
    let mut last = 0;
    scan(text, |_, line| last = line);
    last
}

/// What the scanner sees outside comments.
enum Piece {
    /// A run of letters, digits and `_`.
    Word(String),
    /// `:-`.
    Neck,
    /// Any other character that is not white space (a quoted text counts once).
    Other,
}

/// Calls `f` with each piece of `text` outside comments, and the line it ends on.
fn scan(text: &str, mut f: impl FnMut(Piece, usize)) {
    let mut line = 1;
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    let next = |chars: &mut std::iter::Peekable<std::str::Chars>, line: &mut usize| {
        let c = chars.next();
        if c == Some('\n') {
            *line += 1;
        }
        c
    };
    while let Some(c) = next(&mut chars, &mut line) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        let zero = word == "0";
        if !word.is_empty() {
            // (a word ends before c: on c's line unless c is the newline that ended it)
            f(
                Piece::Word(std::mem::take(&mut word)),
                line - usize::from(c == '\n'),
            );
        }
        match c {
            // 0'c is a character code, not a quote
            '\'' if zero => {
                if let Some('\\' | '\'') = next(&mut chars, &mut line) {
                    next(&mut chars, &mut line);
                }
                f(Piece::Other, line);
            }
            ':' if chars.peek() == Some(&'-') => {
                next(&mut chars, &mut line);
                f(Piece::Neck, line);
            }
            '%' => while !matches!(next(&mut chars, &mut line), Some('\n') | None) {},
            '/' if chars.peek() == Some(&'*') => {
                next(&mut chars, &mut line);
                let mut star = false;
                while let Some(d) = next(&mut chars, &mut line) {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
            }
            '"' | '\'' | '`' => {
                let mut escaped = false;
                while let Some(d) = next(&mut chars, &mut line) {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == c {
                        break;
                    }
                }
                f(Piece::Other, line);
            }
            c if c.is_whitespace() => {}
            _ => f(Piece::Other, line),
        }
    }
    if !word.is_empty() {
        f(Piece::Word(word), line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_of_code() {
        let text = "a :- b.\n% c\nd('%x\n').\n/* e\n f */\n\n";
        assert_eq!(last_code_line(text), 4);
        assert_eq!(last_code_line("a.\n/*\nfoo\n*/\n"), 1);
        assert_eq!(last_code_line("% only\n"), 0);
        assert_eq!(last_code_line("p :-\n  q"), 2);
    }

    #[test]
    fn dialects() {
        assert_eq!(
            detect("k(X) :- fd_domain(X, 1, 4), fd_labeling([X])."),
            Dialect::Gnu
        );
        assert_eq!(
            detect(":- use_module(library(clpz)).\nk(X) :- X in 1..4, label([X])."),
            Dialect::Scryer
        );
        assert_eq!(
            detect("k(Xs) :- Xs ins 1..4, all_distinct(Xs)."),
            Dialect::Scryer
        );
        // comments and quotes do not count
        assert_eq!(
            detect("% uses library(clpfd) in SWI\n k(X) :- fd_domain(X, 1, 2), write('label')."),
            Dialect::Gnu
        );
        assert_eq!(
            detect("/* clpz */ p :- X = \"ins\", fd_labeling(X)."),
            Dialect::Gnu
        );
        assert_eq!(detect("p(1)."), Dialect::Gnu);
        // a use_module fact (not a directive) loads nothing: GNU Prolog reads it as a clause
        assert_eq!(
            detect("use_module(library(clpfd)).\nk(L) :- fd_domain(L, 1, 4), label(L)."),
            Dialect::Gnu
        );
        assert_eq!(
            detect(":-use_module(library(clpfd)).\nk(L) :- fd_domain(L, 1, 4), label(L)."),
            Dialect::Scryer
        );
        // 0'c character codes are not quotes that run on
        assert_eq!(detect("p(0'a). q :- fd_labeling([])."), Dialect::Gnu);
    }
}
