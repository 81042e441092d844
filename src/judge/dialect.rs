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

/// The words (letters, digits, `_`) of `text` outside comments and quotes.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        let zero = word == "0";
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        match c {
            // 0'c is a character code, not a quote
            '\'' if zero => {
                if let Some('\\' | '\'') = chars.next() {
                    chars.next();
                }
            }
            ':' if chars.peek() == Some(&'-') => {
                chars.next();
                out.push(":-".to_string());
            }
            '%' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for d in chars.by_ref() {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
            }
            '"' | '\'' | '`' => {
                let mut escaped = false;
                for d in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == c {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
