//! The form check: the spec forbids the finite domain solver in `plain_kenken/3`, and no case
//! can tell (a `plain_kenken/3` that calls `kenken/3` gives the right answers). So the judged
//! file's text is read here, in the judge, never run: its tokens (`tokens`, over the crate's
//! Prolog lexer `prolog::lexer`: comments, quoted atoms with their escapes, strings, `0'c`
//! character codes, symbol-character atoms such as `#=` and `#\=`, ...), the tokens split into clauses at each end token (a `.` followed by layout, `%`
//! or the end of the file), and for each clause its head's name and arity and every atom or
//! functor name in its body (an over-approximation of what it calls: a name as data counts as
//! a call, a closure `maplist(p(X), L)` calls every `p` of arity one or more).
//!
//! From `plain_kenken/3`, the predicates of the file it reaches are followed (a name refers to
//! the file's predicates of that name, of arity at least its arguments; a name the file does
//! not define is a built-in or a library's). The check fails, with the chain, when one of them
//! names a predicate of the FD solver the file does not define itself: CLP(Z)/CLP(FD)'s (`#=`,
//! `#\=`, `#<==>` and every atom starting with `#`, `in`, `ins`, `label`, `labeling`,
//! `all_different`, `all_distinct`, `sum`, `tuples_in`, ...), GNU Prolog's (`fd_*`, `#=#`,
//! `#\=#`, ...), or the file's own `kenken/3`. A file that imports `library(clpz)` for its
//! `kenken/3` passes when its `plain_kenken/3` reaches only plain code. What the check cannot
//! see: goals built at run time (`call(G)` with `G` from data, `=..`) and files the judged
//! file loads. Every step is linear in the text (or nearly: sorted maps), whatever its
//! nesting or number of names, and a file over 16 MiB is not read (it fails the check).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde::Serialize;

use crate::prolog::lexer::{self, Kind};

/// The verdict of the form check on `plain_kenken/3`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormCheck {
    /// Whether `plain_kenken/3` is defined and reaches no FD solver predicate.
    pub passed: bool,
    /// What was found, in words.
    pub detail: String,
    /// The chain of calls from `plain_kenken/3` to the FD solver (empty when it passed):
    /// `plain_kenken/3`, the file's predicates (`name/arity`), then the FD predicate (its name,
    /// with its arguments' count when written `name(...)`), or the file's `kenken/3`.
    pub chain: Vec<String>,
}

/// Names of the FD solvers' predicates besides those starting with `#` or `fd_`.
const FD_NAMES: [&str; 17] = [
    "in",
    "ins",
    "label",
    "labeling",
    "all_different",
    "all_distinct",
    "sum",
    "scalar_product",
    "tuples_in",
    "element",
    "global_cardinality",
    "circuit",
    "cumulative",
    "disjoint2",
    "automaton",
    "lex_chain",
    "zcompare",
];

/// Whether `name` is a predicate (or constraint operator) of an FD solver.
pub(crate) fn is_fd(name: &str) -> bool {
    (name.starts_with('#') && name.len() > 1) || name.starts_with("fd_") || FD_NAMES.contains(&name)
}

/// The largest file the form check reads (no student's `kenken.pl` comes near it).
const MAX_TEXT: usize = 16 << 20;

/// Checks the form of `plain_kenken/3` in the text of a judged file. A file larger than
/// 16 MiB is not read, and fails.
pub fn check(text: &str) -> FormCheck {
    if text.len() > MAX_TEXT {
        return FormCheck {
            passed: false,
            detail: format!(
                "the file is too large to check ({} bytes, over {} MiB)",
                text.len(),
                MAX_TEXT >> 20
            ),
            chain: Vec::new(),
        };
    }
    let program = Program::read(text);
    let start = ("plain_kenken".to_string(), 3);
    if !program.clauses.contains_key(&start) {
        // (no plain_kenken/3 to earn the check's points with: a file that leaves it out, an
        // empty file, does not pass)
        return FormCheck {
            passed: false,
            detail: "plain_kenken/3 is not defined in the file".into(),
            chain: Vec::new(),
        };
    }
    match program.fd_chain(&start) {
        Some(chain) => FormCheck {
            passed: false,
            detail: format!(
                "plain_kenken/3 uses the FD solver: {} (the spec forbids it there)",
                chain.join(" -> ")
            ),
            chain,
        },
        None => FormCheck {
            passed: true,
            detail: "plain_kenken/3 reaches no FD solver predicate".into(),
            chain: Vec::new(),
        },
    }
}

/// A Prolog token, as far as the form check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// An atom: a name, a quoted atom (its text), a symbol-character atom, `!`, `;`, `[]`,
    /// `{}`.
    Atom(String),
    /// A variable.
    Var(String),
    /// A number (a `0'c` character code included), as written.
    Number(String),
    /// A string, `"..."` or back-quoted.
    Text(String),
    /// `(` written right after an atom: the atom is a functor.
    FunctorOpen,
    /// Punctuation: `(` `)` `[` `]` `{` `}` `,` `|`.
    Punct(char),
    /// The end of a clause.
    End,
}

/// The tokens of `text`, read by [the crate's lexer](crate::prolog::lexer): comments and
/// characters Prolog does not use are layout, `[]` and `{}` written together are atoms, and a
/// `(` right after an atom is a [`Token::FunctorOpen`]. Never fails: what it cannot read (an
/// unterminated quote or comment) gives what it can.
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    // whether layout (or a comment, or a character Prolog does not use) came right before
    let mut layout = true;
    for t in lexer::tokens(text) {
        layout |= t.layout_before;
        let token = match t.kind {
            Kind::LineComment | Kind::BlockComment | Kind::Other => {
                layout = true;
                continue;
            }
            Kind::Number => Token::Number(t.text.into()),
            Kind::Var => Token::Var(t.text.into()),
            Kind::Name | Kind::Symbol | Kind::Solo => Token::Atom(t.text.into()),
            Kind::Quoted => Token::Atom(t.value().into_owned()),
            Kind::Str | Kind::BackQuoted => Token::Text(t.value().into_owned()),
            Kind::End => Token::End,
            Kind::Punct => {
                let c = t.text.chars().next().unwrap_or(',');
                match (out.last(), c) {
                    (Some(Token::Punct(open @ ('[' | '{'))), ']' | '}') if !layout => {
                        let atom = if *open == '[' { "[]" } else { "{}" };
                        if (*open == '[') == (c == ']') {
                            out.pop();
                            Token::Atom(atom.into())
                        } else {
                            Token::Punct(c)
                        }
                    }
                    (Some(Token::Atom(_)), '(') if !layout => Token::FunctorOpen,
                    _ => Token::Punct(c),
                }
            }
        };
        layout = false;
        out.push(token);
    }
    out
}

/// A name in a clause's body: the name, and how many arguments it is written with.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Called {
    name: String,
    args: usize,
}

impl Called {
    fn text(&self) -> String {
        if self.args > 0 {
            format!("{}/{}", self.name, self.args)
        } else {
            self.name.clone()
        }
    }
}

/// A predicate: name and arity.
type Key = (String, usize);

/// The file's predicates, each with every name its clauses' bodies hold.
#[derive(Debug, Default)]
struct Program {
    clauses: BTreeMap<Key, BTreeSet<Called>>,
}

/// For each token, the number of arguments it is written with: a functor's (the atom right
/// before a [`Token::FunctorOpen`]), 0 for every other token. One pass, whatever the nesting.
fn arguments(tokens: &[Token]) -> Vec<usize> {
    let mut args = vec![0; tokens.len()];
    // each open bracket: the functor's index (None for a plain bracket), its arguments so far
    let mut open: Vec<(Option<usize>, usize)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            Token::FunctorOpen => open.push((i.checked_sub(1), 1)),
            Token::Punct('(' | '[' | '{') => open.push((None, 1)),
            Token::Punct(',') => {
                if let Some(top) = open.last_mut() {
                    top.1 += 1;
                }
            }
            Token::Punct(')' | ']' | '}') => {
                if let Some((Some(f), n)) = open.pop() {
                    args[f] = n;
                }
            }
            _ => {}
        }
    }
    // a functor whose `(` is never closed: its arguments up to the end
    for (f, n) in open.into_iter().filter_map(|(f, n)| Some((f?, n))) {
        args[f] = n;
    }
    args
}

impl Program {
    fn read(text: &str) -> Program {
        let tokens = tokens(text);
        let mut program = Program::default();
        for clause in tokens.split(|t| *t == Token::End) {
            program.add(clause);
        }
        program
    }

    /// Adds a clause (directives and clauses whose head is not `name` or `name(...)` are
    /// left out).
    fn add(&mut self, clause: &[Token]) {
        let mut depth = 0i32;
        let mut neck = None;
        for (i, t) in clause.iter().enumerate() {
            match t {
                Token::FunctorOpen | Token::Punct('(' | '[' | '{') => depth += 1,
                Token::Punct(')' | ']' | '}') => depth -= 1,
                Token::Atom(a) if depth == 0 && (a == ":-" || a == "-->") => {
                    neck = Some((i, a == "-->"));
                    break;
                }
                _ => {}
            }
        }
        let head_end = neck.map_or(clause.len(), |(i, _)| i);
        let mut head = &clause[..head_end];
        // Module:Head
        if let [Token::Atom(_), Token::Atom(colon), rest @ ..] = head {
            if colon == ":" {
                head = rest;
            }
        }
        let Some(Token::Atom(name)) = head.first() else {
            return;
        };
        let dcg = neck.is_some_and(|(_, dcg)| dcg);
        let arity = arguments(head).first().copied().unwrap_or(0) + if dcg { 2 } else { 0 };
        let called = self.clauses.entry((name.clone(), arity)).or_default();
        let Some((neck, _)) = neck else {
            return;
        };
        let body = &clause[neck + 1..];
        let args = arguments(body);
        for (i, t) in body.iter().enumerate() {
            if let Token::Atom(a) = t {
                let c = Called {
                    name: a.clone(),
                    args: args[i],
                };
                called.insert(c);
            }
        }
    }

    /// The file's predicates a name in a body may call.
    fn targets(&self, called: &Called) -> Vec<&Key> {
        let from = (called.name.clone(), called.args);
        let to = (called.name.clone(), usize::MAX);
        self.clauses.range(from..=to).map(|(k, _)| k).collect()
    }
}

/// The chain from the start to `at`, as `name/arity`s.
fn path<'k>(parent: &HashMap<&'k Key, &'k Key>, mut at: &'k Key) -> Vec<String> {
    let mut chain = vec![format!("{}/{}", at.0, at.1)];
    while let Some(p) = parent.get(at) {
        chain.push(format!("{}/{}", p.0, p.1));
        at = p;
    }
    chain.reverse();
    chain
}

impl Program {
    /// The shortest chain of calls from `start` to the FD solver, if there is one.
    fn fd_chain(&self, start: &Key) -> Option<Vec<String>> {
        let kenken: Key = ("kenken".into(), 3);
        let mut parent: HashMap<&Key, &Key> = HashMap::new();
        let mut seen: BTreeSet<&Key> = BTreeSet::from([start]);
        let mut queue: VecDeque<&Key> = VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            for called in self.clauses.get(at).into_iter().flatten() {
                let targets = self.targets(called);
                if targets.is_empty() {
                    if is_fd(&called.name) {
                        let mut chain = path(&parent, at);
                        chain.push(called.text());
                        return Some(chain);
                    }
                    continue;
                }
                for t in targets {
                    if seen.insert(t) {
                        parent.insert(t, at);
                        if *t == kenken {
                            return Some(path(&parent, t));
                        }
                        queue.push_back(t);
                    }
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atoms(text: &str) -> Vec<String> {
        tokens(text)
            .into_iter()
            .filter_map(|t| match t {
                Token::Atom(a) => Some(a),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn tricky_text_is_read_as_prolog_reads_it() {
        // quoted atoms holding `.` and `:-`, with escapes and doubled quotes
        let t = tokens("a :- X = 'x. y :- z', Y = 'it''s', Z = 'a\\'b\\x41\\\\n'.\n");
        assert_eq!(t.iter().filter(|t| **t == Token::End).count(), 1);
        let quoted: Vec<String> = atoms("f('x. y :- z', 'it''s', 'a\\'b\\x41\\\\n').")
            .into_iter()
            .skip(1)
            .collect();
        assert_eq!(quoted, ["x. y :- z", "it's", "a'bA\n"]);
        // 0'. is a character code, not an end; 0''' and 0'\n too
        let t = tokens("c(0'., 0''', 0'\\n, 0' ). d.");
        assert_eq!(
            t.iter().filter(|t| matches!(t, Token::Number(_))).count(),
            4
        );
        assert_eq!(t.iter().filter(|t| **t == Token::End).count(), 2);
        // comments: a `.` or a clause inside is nothing; `%` ends a clause's `.`
        let t = tokens("a. /* b :- c. */ d :- e.% f.\n/* unterminated g.");
        assert_eq!(
            atoms("a. /* b :- c. */ d :- e.% f.\n"),
            ["a", "d", ":-", "e"]
        );
        assert_eq!(t.iter().filter(|t| **t == Token::End).count(), 2);
        // operators: symbol-character atoms, `=..`, numbers ending a clause
        assert_eq!(
            atoms("p :- X #= Y, X #\\= Z, A #<==> B, T =.. L, \\+ q, !; r. s(1.5e3, 2)."),
            ["p", ":-", "#=", "#\\=", "#<==>", "=..", "\\+", "q", "!", ";", "r", "s"]
        );
        assert_eq!(
            tokens("n(1).")
                .into_iter()
                .filter(|t| *t == Token::End)
                .count(),
            1
        );
        // strings and back quotes hold no atoms
        assert_eq!(
            atoms("p :- X = \"a :- b. \\\"#=\", Y = `c.`."),
            ["p", ":-", "=", "="]
        );
        // a functor's `(` comes right after its name; `- (1)` is an operator
        let t = tokens("f(a) :- - (1).");
        assert_eq!(t[1], Token::FunctorOpen);
        assert!(t.contains(&Token::Punct('(')));
    }

    fn chain(text: &str) -> Vec<String> {
        check(text).chain
    }

    #[test]
    fn heads_and_arities_are_read() {
        let p = Program::read(
            "f(a, g(b, c), [d, e]) :- h.\nm:q(1).\nr --> s, [x].\n:- dynamic(z/1).\nt.\n",
        );
        let keys: Vec<String> = p.clauses.keys().map(|(n, a)| format!("{n}/{a}")).collect();
        assert_eq!(keys, ["f/3", "q/1", "r/2", "t/0"]);
        let called: Vec<String> = p.clauses[&("r".to_string(), 2)]
            .iter()
            .map(Called::text)
            .collect();
        assert_eq!(called, ["s", "x"]);
        let f: Vec<String> = p.clauses[&("f".to_string(), 3)]
            .iter()
            .map(Called::text)
            .collect();
        assert_eq!(f, ["h"]);
    }

    #[test]
    fn a_plain_kenken_that_reaches_the_fd_solver_is_named_with_its_chain() {
        // through the file's own kenken/3
        let text = "kenken(N, C, T) :- length(T, N), maplist(cage(T), C).\n\
                    cage(T, X) :- X #= 1.\n\
                    plain_kenken(N, C, T) :- solve(N, C, T).\n\
                    solve(N, C, T) :- kenken(N, C, T).\n";
        assert_eq!(chain(text), ["plain_kenken/3", "solve/3", "kenken/3"]);
        let c = check(text);
        assert!(!c.passed);
        assert_eq!(
            c.detail,
            "plain_kenken/3 uses the FD solver: plain_kenken/3 -> solve/3 -> kenken/3 (the \
             spec forbids it there)"
        );
        // GNU Prolog's fd_domain/3 through a helper, as a closure
        let gnu = "plain_kenken(N, C, T) :- length(T, N), maplist(dom(N), T).\n\
                   dom(N, Row) :- fd_domain(Row, 1, N).\n";
        assert_eq!(chain(gnu), ["plain_kenken/3", "dom/2", "fd_domain/3"]);
        // clpz's label/1 as a closure, #= as an operator
        assert_eq!(
            chain("plain_kenken(_, _, T) :- maplist(label, T)."),
            ["plain_kenken/3", "label"]
        );
        assert_eq!(
            chain("plain_kenken(_, _, T) :- h(T).\nh([A,B]) :- A #= B + 1."),
            ["plain_kenken/3", "h/1", "#="]
        );
        // the shortest chain
        assert_eq!(
            chain(
                "plain_kenken(_, _, T) :- a(T), b(T).\na(T) :- c(T).\nc(T) :- T ins 1..3.\n\
                 b(T) :- all_distinct(T)."
            ),
            ["plain_kenken/3", "b/1", "all_distinct/1"]
        );
    }

    #[test]
    fn plain_code_passes_beside_an_fd_kenken() {
        let text = ":- use_module(library(clpz)).\n\
                    kenken(N, C, T) :- length(T, N), cells(T, Vs), Vs ins 1..N, label(Vs).\n\
                    cells(T, Vs) :- append(T, Vs).\n\
                    plain_kenken(N, C, T) :- length(T, N), cells(T, Vs), \
                    maplist(between(1, N), Vs), label_plain(Vs), sum_list(Vs, _).\n\
                    label_plain(_) :- Y = \"#= label\", is_list(Y).\n\
                    % plain_kenken(N, C, T) :- kenken(N, C, T).\n";
        let c = check(text);
        assert!(c.passed, "{c:?}");
        assert_eq!(c.detail, "plain_kenken/3 reaches no FD solver predicate");
        // a name the file defines is the file's: its own label/1 is plain
        assert!(
            check("plain_kenken(_, _, T) :- label(T).\nlabel(T) :- maplist(integer, T).").passed
        );
        // no plain_kenken/3 (an empty file, one that leaves it out): nothing earns the check
        for text in ["kenken(_, _, _) :- X #= 1.", "", "% nothing yet\n"] {
            let c = check(text);
            assert!(!c.passed, "{text:?}");
            assert_eq!(c.detail, "plain_kenken/3 is not defined in the file");
            assert!(c.chain.is_empty());
        }
        // only plain_kenken/3 is looked at (not plain_kenken/2)
        assert!(check("plain_kenken(_, _) :- kenken(1, [], _).\nplain_kenken(_, _, _).").passed);
    }

    #[test]
    fn deep_nesting_and_unclosed_text_are_read_in_one_pass() {
        // (an argument count per functor scanned to its `)` took quadratic time here)
        let depth = 200_000;
        let text = format!(
            "plain_kenken(N, C, T) :- g({}x{}).\nkenken(_, _, _).",
            "f(".repeat(depth),
            ")".repeat(depth)
        );
        let c = check(&text);
        assert!(c.passed, "{c:?}");
        let p = Program::read(&format!("p :- q({}.", "[a, ".repeat(depth)));
        let called: Vec<String> = p.clauses[&("p".to_string(), 0)]
            .iter()
            .map(Called::text)
            .collect();
        assert_eq!(called, ["a", "q/1"]);
        // many names and many predicates: each name finds its predicates at once
        let many: String = (0..50_000)
            .map(|i| {
                format!(
                    "p{i} :- {}.\n",
                    (0..20)
                        .map(|j| format!("q{j}x{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        assert!(check(&format!("plain_kenken(_, _, _) :- p1.\n{many}")).passed);
        // unterminated quotes and comments run to the end
        for text in [
            "p :- 'abc",
            "p :- \"abc",
            "p :- /* abc",
            "p :- 0'",
            "p :- 'a\\",
        ] {
            let _ = check(text);
            assert!(!tokens(text).is_empty());
        }
        assert!(!check("plain_kenken(_, _, _) :- kenken(_, _, _). kenken(_, _, _) :- 'x").passed);
        let huge = check(&" ".repeat(MAX_TEXT + 1));
        assert!(!huge.passed);
        assert_eq!(
            huge.detail,
            "the file is too large to check (16777217 bytes, over 16 MiB)"
        );
    }

    #[test]
    fn the_shipped_correct_files_pass() {
        for file in ["clpz_correct.pl", "gnu_correct.pl"] {
            let path = format!("{}/tests/data/judge/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap();
            let c = check(&text);
            assert!(c.passed, "{file}: {c:?}");
            assert_eq!(c.detail, "plain_kenken/3 reaches no FD solver predicate");
        }
        let ours =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/prolog/kenken.pl"))
                .unwrap();
        assert!(check(&ours).passed, "{:?}", check(&ours));
        // this one's plain_kenken/3 calls its kenken/3
        let swi = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/judge/swi_clpfd.pl"
        ))
        .unwrap();
        assert_eq!(check(&swi).chain, ["plain_kenken/3", "kenken/3"]);
    }
}
