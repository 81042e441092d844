//! Reading the goals typed: where each ends ([`split_goals`]), the words they name, and what
//! that asks for (lazy libraries, `kenken.pl`, the relay of standard input).

use crate::prolog::lexer::{self, Kind};
use crate::prolog::KENKEN_PL;

/// The libraries `prolog/host/` loads only when needed (`kk_need_libraries/1`), with the names of
/// the predicates each exports (Scryer 0.10.0's `library(charsio)`, `format`, `time`,
/// `between`; `format_//2` and `format_time//2` as `format_` and `format_time`).
const LAZY_LIBRARIES: &[(&str, &[&str])] = &[
    (
        "charsio",
        &[
            "char_type",
            "chars_utf8bytes",
            "get_single_char",
            "get_n_chars",
            "get_line_to_chars",
            "read_from_chars",
            "read_term_from_chars",
            "write_term_to_chars",
            "chars_base64",
        ],
    ),
    (
        "format",
        &[
            "format_",
            "format",
            "portray_clause_",
            "portray_clause",
            "listing",
        ],
    ),
    (
        "time",
        // (not time/1 nor statistics/2: the top level has its own)
        &["max_sleep_time", "sleep", "current_time", "format_time"],
    ),
    (
        "between",
        &["between", "gen_int", "gen_nat", "numlist", "repeat"],
    ),
];

/// Whether `c` is part of a word: a letter, a digit or `_`.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words of `goal` (runs of letters, digits and `_`), which name the predicates it may call.
fn words(goal: &str) -> std::collections::HashSet<&str> {
    goal.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The words that call a goal they are given (`call(F, ...)`, `maplist(F, ...)`...): a goal
/// holding one may call a predicate whose name it builds (`atom_concat(for, mat, F), call(F,
/// "~w", [x])`), which no word of its text names.
const META_CALLS: &[&str] = &[
    "call",
    "apply",
    "maplist",
    "foldl",
    "findall",
    "forall",
    "bagof",
    "setof",
    "once",
    "ignore",
    "catch",
    "call_cleanup",
    "setup_call_cleanup",
    "assertz",
    "asserta",
    "assert",
];

/// The lazy libraries whose predicates `goal` names: a word of its text (letters, digits and
/// `_`, quoted or not, in a comment or a string too: loading one library too many does no
/// harm) that one of them exports; all of them when it calls a goal it is given (`=..`, or a
/// word of [`META_CALLS`]), since that goal's name may be built as it runs. (A variable where
/// a goal stands, `G = format("~w", [x]), G`, loads them all as it runs: `kk_var_goal/1` in
/// `prolog/host/`.)
pub(super) fn lazy_libraries(goal: &str) -> Vec<&'static str> {
    let words = words(goal);
    let meta = goal.contains("=..") || META_CALLS.iter().any(|m| words.contains(m));
    LAZY_LIBRARIES
        .iter()
        .filter(|(_, names)| meta || names.iter().any(|n| words.contains(n)))
        .map(|(lib, _)| *lib)
        .collect()
}

/// The predicates of library(clpz) (Scryer 0.10.0) that `kenken.pl` brings to the top level,
/// by name; its operators all hold `#`, or are `in`, `ins` and `..`.
const CLPZ_NAMES: &[&str] = &[
    "in",
    "ins",
    "all_different",
    "all_distinct",
    "nvalue",
    "sum",
    "scalar_product",
    "tuples_in",
    "labeling",
    "label",
    "indomain",
    "lex_chain",
    "serialized",
    "global_cardinality",
    "circuit",
    "cumulative",
    "disjoint2",
    "element",
    "automaton",
    "zcompare",
    "chain",
    "fd_var",
    "fd_inf",
    "fd_sup",
    "fd_size",
    "fd_dom",
    "clpz_t",
];

/// Whether `goal` may need `kenken.pl` (with library(clpz)): whether it holds `#` or `..`, or
/// a word (as `lazy_libraries` reads words) that names a predicate `kenken.pl` defines (a
/// clause head at the start of a line) or one of clpz's. `kenken query` loads `kenken.pl` only
/// then (or when files are consulted): the load is most of its time. A goal that builds such
/// a name (`atom_concat(ken, ken, F), call(F, ...)`) is not seen.
pub fn needs_kenken(goal: &str) -> bool {
    if goal.contains('#') || goal.contains("..") {
        return true;
    }
    let words = words(goal);
    let defined = KENKEN_PL.lines().filter_map(|l| {
        let name: &str = &l[..l.find(|c: char| !is_word_char(c)).unwrap_or(l.len())];
        name.starts_with(|c: char| c.is_ascii_lowercase())
            .then_some(name)
    });
    CLPZ_NAMES
        .iter()
        .copied()
        .chain(defined)
        .any(|n| words.contains(n))
}

/// The predicates that read the current input (Scryer 0.10.0's builtins and library(charsio)),
/// and `user` (of `[user]`). `kk_input_goal/1` in `prolog/host/answers.pl` names the same predicates.
const INPUT_NAMES: &[&str] = &[
    "read",
    "read_term",
    "get_char",
    "get_code",
    "get_byte",
    "peek_char",
    "peek_code",
    "peek_byte",
    "get_single_char",
    "get_line_to_chars",
    "get_n_chars",
    "user",
];

/// Whether `goal` names a predicate that reads the input (a word, as [`lazy_libraries`] reads
/// words): in the repl it then reads through a relay of standard input (`kk_reader_start/0` in
/// `prolog/host/`), and so does every goal once a consulted file's code reads (`prolog/host/` marks it as
/// it loads). Other goals read standard input opened as a file, where read/1 reads as it should
/// but get_char/1 only the first character (Scryer 0.10 takes it for ended then). In `query`
/// every goal reads through the relay.
pub(super) fn reads_input(goal: &str) -> bool {
    let words = words(goal);
    INPUT_NAMES.iter().any(|n| words.contains(n))
}

/// Text cut into goals by [`split_goals`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Goals {
    /// The complete goals, in order, each with its final `.`.
    pub complete: Vec<String>,
    /// What follows the last complete goal, when it holds more than layout and comments (a
    /// goal still being typed, or a quoted item or comment not yet closed).
    pub rest: Option<String>,
}

/// Cuts `text` into goals where a Prolog reader ends a term: at a `.` followed by layout, `%`
/// or the end of the text, outside quotes (`'...'`, `"..."`, `` `...` ``, `0'c`) and comments,
/// and not part of a symbol (`=..`). A quoted item that meets a new line (not escaped by `\`)
/// ends its goal there, as Scryer's and GNU Prolog's readers stop at it with a syntax error
/// (a goal typed with a quote left open is told at once, not waited for).
pub fn split_goals(text: &str) -> Goals {
    scan_goals(text).0
}

/// Whether `goal` (one goal) ends within a quoted item: [`Toplevel::run`](super::Toplevel::run) then ends it with a
/// new line, for the reader to tell the quote left open as Scryer's top level does.
pub(super) fn ends_in_quote(goal: &str) -> bool {
    scan_goals(goal).1
}

/// [`split_goals`], and whether the text ends within a quoted item.
fn scan_goals(text: &str) -> (Goals, bool) {
    let mut complete = Vec::new();
    // where the goal being read starts, whether it holds a token, whether the text ends
    // within a comment or quoted item, and within a quoted item
    let (mut start, mut content, mut open, mut quoted) = (0, false, false, false);
    for t in lexer::tokens(text) {
        match t.kind {
            Kind::LineComment => {}
            Kind::BlockComment => open = !t.closed,
            Kind::End => {
                if content {
                    complete.push(text[start..t.end()].trim().to_string());
                }
                start = t.end();
                content = false;
            }
            _ if t.is_quoted() && !t.closed => {
                if t.end() == text.len() {
                    open = true;
                    quoted = true;
                } else {
                    // a new line (the reader stops here: the goal ends, a syntax error)
                    complete.push(text[start..t.end()].trim().to_string());
                    start = t.end() + 1;
                    content = false;
                }
            }
            _ => content = true,
        }
    }
    let rest = (content || open).then(|| text[start.min(text.len())..].trim().to_string());
    (Goals { complete, rest }, quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_that_calls_a_built_name_loads_every_lazy_library() {
        assert_eq!(lazy_libraries("format(\"~w\", [x])"), vec!["format"]);
        assert!(lazy_libraries("X = 1").is_empty());
        for goal in ["call(F, 1)", "G =.. [f], G", "maplist(P, L)"] {
            assert_eq!(
                lazy_libraries(goal),
                vec!["charsio", "format", "time", "between"],
                "{goal}"
            );
        }
    }

    fn split(text: &str) -> (Vec<String>, Option<String>) {
        let g = split_goals(text);
        (g.complete, g.rest)
    }

    #[test]
    fn kenken_pl_is_needed_by_goals_that_name_it_or_clpz() {
        assert!(needs_kenken("kenken(4, C, T)."));
        assert!(needs_kenken("noop_kenken_testcase."));
        assert!(needs_kenken("X #= 1 + 2."));
        assert!(needs_kenken("X in 1..3, label([X])."));
        assert!(needs_kenken("fd_set_vector_max(255)."));
        assert!(!needs_kenken("true."));
        assert!(!needs_kenken("X = 1, format(\"~a~n\", [x])."));
        assert!(!needs_kenken("member(X, [a, b])."));
    }

    #[test]
    fn goals_end_at_a_full_stop_outside_quotes_and_comments() {
        assert_eq!(
            split("X = 1. Y = 2."),
            (vec!["X = 1.".to_string(), "Y = 2.".to_string()], None)
        );
        assert_eq!(
            split("X = 1.\nY = 2.\n"),
            (vec!["X = 1.".to_string(), "Y = 2.".to_string()], None)
        );
        assert_eq!(split("X = 1. % note\n"), (vec!["X = 1.".to_string()], None));
        assert_eq!(split("X = 1.% note"), (vec!["X = 1.".to_string()], None));
        assert_eq!(
            split("X = 'abc."),
            (Vec::<String>::new(), Some("X = 'abc.".into()))
        );
        assert_eq!(
            split("X = 'a. b'."),
            (vec!["X = 'a. b'.".to_string()], None)
        );
        assert_eq!(
            split("X = \"it''s. \"."),
            (vec!["X = \"it''s. \".".to_string()], None)
        );
        assert_eq!(
            split("X = 0'., Y = 1."),
            (vec!["X = 0'., Y = 1.".to_string()], None)
        );
        assert_eq!(
            split("X = 0''', Y = 1."),
            (vec!["X = 0''', Y = 1.".to_string()], None)
        );
        assert_eq!(split("X =.. Y."), (vec!["X =.. Y.".to_string()], None));
        assert_eq!(split("X = 1.5 ."), (vec!["X = 1.5 .".to_string()], None));
        assert_eq!(
            split("X = 1. Y = "),
            (vec!["X = 1.".to_string()], Some("Y =".into()))
        );
        assert_eq!(
            split("/* a. */ X = 1."),
            (vec!["/* a. */ X = 1.".to_string()], None)
        );
        assert_eq!(
            split("/* a. "),
            (Vec::<String>::new(), Some("/* a.".into()))
        );
        assert_eq!(
            split("  \n% only a comment\n"),
            (Vec::<String>::new(), None)
        );
        assert_eq!(
            split("X = 'a\\'. b'."),
            (vec!["X = 'a\\'. b'.".to_string()], None)
        );
    }

    /// Issue 37 item 10: ISO conformity #259 and other splits a reader makes.
    #[test]
    fn goals_are_cut_where_the_reader_ends_them() {
        let one = |t: &str| (vec![t.to_string()], None::<String>);
        // 0'\ then a new line is 0, then the quoted atom '+' (\ and the new line are a
        // continuation), then a block comment holding '. %': one goal.
        assert_eq!(
            split("X = 0'\\\n+'/*'. %*/1."),
            one("X = 0'\\\n+'/*'. %*/1.")
        );
        // 0'c with escapes that hold more than one character
        assert_eq!(
            split("X = 0'\\x41\\. Y = 1."),
            (
                vec!["X = 0'\\x41\\.".to_string(), "Y = 1.".to_string()],
                None
            )
        );
        assert_eq!(split("X = 0'\\101\\."), one("X = 0'\\101\\."));
        assert_eq!(split("X = 0'%, Y = 0'.."), one("X = 0'%, Y = 0'.."));
        // % and . in quotes, a quote in a block comment
        assert_eq!(
            split("X = \"a%b. \", Y = '%'."),
            one("X = \"a%b. \", Y = '%'.")
        );
        assert_eq!(
            split("/* it's. */ X = `a. `."),
            one("/* it's. */ X = `a. `.")
        );
        assert_eq!(split("X = 'a\\\nb'."), one("X = 'a\\\nb'."));
        // a new line in a quoted item ends the goal (a syntax error, told at once)
        assert_eq!(
            split("X = 'abc.\nY = 1.\n"),
            (vec!["X = 'abc.".to_string(), "Y = 1.".to_string()], None)
        );
        assert!(ends_in_quote("X = 'abc."));
        assert!(ends_in_quote("X = \"abc."));
        assert!(!ends_in_quote("X = 'abc'."));
        assert!(!ends_in_quote("X = 0'\\\n+'/*'. %*/1."));
    }

    /// On the crate's lexer: a run of symbol characters is one atom even when it holds `/*`,
    /// as Scryer reads it (`=/*` is an atom, no comment starts there); a `\` escape with its
    /// closing `\` does not swallow the closing quote.
    #[test]
    fn goals_are_cut_as_scryers_lexer_reads_the_tokens() {
        assert_eq!(
            split("X =/* a. */ 1."),
            (vec!["X =/* a.".to_string(), "*/ 1.".to_string()], None)
        );
        assert_eq!(
            split("X = '\\x41\\'. Y = 1."),
            (
                vec!["X = '\\x41\\'.".to_string(), "Y = 1.".to_string()],
                None
            )
        );
    }
}
