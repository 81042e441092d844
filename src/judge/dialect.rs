//! Which Prolog a judged file was written for: GNU Prolog (the homework's system: `fd_domain/3`,
//! `fd_labeling/1`, ...) or Scryer/SWI (`library(clpz)` or `library(clpfd)`: `ins/2`,
//! `label/1`, ...).

use crate::dialect::Dialect;
use crate::prolog::lexer::{self, Kind};

/// Predicates only GNU Prolog has (SWI's and Scryer's CLP libraries have `fd_dom/2`,
/// `fd_size/2`, `fd_var/1` ... too: those tell nothing).
const GNU_WORDS: [&str; 28] = [
    "fd_domain",
    "fd_all_different",
    "fd_labeling",
    "fd_labelingff",
    "fd_set_vector_max",
    "fd_max_integer",
    "fd_element",
    "fd_element_var",
    "fd_relation",
    "fd_relationc",
    "fd_domain_bool",
    "fd_minimize",
    "fd_maximize",
    "fd_atmost",
    "fd_atleast",
    "fd_exactly",
    "fd_cardinality",
    "fd_reified_in",
    "fd_min",
    "fd_max",
    "fd_vector_max",
    "fd_has_vector",
    "fd_use_vector",
    "fd_at_least_one",
    "fd_at_most_one",
    "fd_only_one",
    "fd_prime",
    "fd_not_prime",
];

/// The CLP(Z)/CLP(FD) libraries' names.
const CLP_LIBRARIES: [&str; 2] = ["clpz", "clpfd"];

/// Predicates (and the operator `ins`) only the CLP(Z)/CLP(FD) libraries have. `#=` and the
/// like are in both systems, so they tell nothing.
const CLP_WORDS: [&str; 7] = [
    "ins",
    "all_distinct",
    "all_different",
    "label",
    "labeling",
    "tuples_in",
    "global_cardinality",
];

/// The dialect of a Prolog text, told from what it uses (comments and quoted text are not
/// read):
///
/// - a `:-` directive that loads a CLP(Z)/CLP(FD) library makes it Scryer, unless the text uses
///   GNU-only finite-domain built-ins (`fd_domain/3`, `fd_labeling/1`, ...) and none of the
///   library's own predicates (`ins`, `all_distinct/1`, `label/1`, ...): such a file is written
///   for GNU Prolog, which only warns about the stray directive;
/// - without such a directive it is Scryer when it uses the libraries' predicates, names a CLP
///   library, or loads any other module with a `use_module` directive (GNU Prolog has no
///   modules), and uses no GNU-only built-in;
/// - else GNU (the homework's system), also when it uses neither.
pub fn detect(text: &str) -> Dialect {
    let words = words(text);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let gnu = has(&GNU_WORDS);
    let clp = has(&CLP_WORDS);
    // only a directive loads it: `use_module(library(clpfd)).` as a clause is a fact
    let loads_clp = words.windows(4).any(|w| {
        w[0] == ":-"
            && (w[1] == "use_module" || w[1] == "ensure_loaded")
            && w[2] == "library"
            && CLP_LIBRARIES.contains(&w[3].as_str())
    });
    // GNU Prolog has no module system: a `use_module` directive of any other library or module
    // (`library(os)`, `library(lists)`, a file of one's own) is written for Scryer or SWI
    let loads_module = words
        .windows(2)
        .any(|w| w[0] == ":-" && w[1] == "use_module");
    let scryer = if loads_clp {
        clp || !gnu
    } else {
        (clp || loads_module || has(&CLP_LIBRARIES)) && !gnu
    };
    if scryer {
        Dialect::Scryer
    } else {
        Dialect::Gnu
    }
}

/// The words (names, variables, numbers, and `:-`) of `text` outside comments and quotes.
fn words(text: &str) -> Vec<String> {
    lexer::tokens(text)
        .filter(|t| match t.kind {
            Kind::Name | Kind::Var | Kind::Number => true,
            Kind::Symbol => t.text == ":-",
            _ => false,
        })
        .map(|t| t.text.to_string())
        .collect()
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
        // GNU Prolog has no modules: a file that loads library(os), library(files) ... with no
        // GNU-only built-in is Scryer's (regression: such a file was run under gprolog)
        assert_eq!(
            detect(":- use_module(library(os)).\nk(_, _, T) :- shell(\"true\"), T = []."),
            Dialect::Scryer
        );
        assert_eq!(
            detect(":- use_module(library(lists)).\nk(L) :- fd_domain(L, 1, 4), fd_labeling(L)."),
            Dialect::Gnu
        );
        // 0'c character codes are not quotes that run on
        assert_eq!(detect("p(0'a). q :- fd_labeling([])."), Dialect::Gnu);
    }

    #[test]
    fn mixed_files_are_told_by_what_they_use() {
        // a GNU body with a stray clpfd (or clpz) import: gprolog warns and loads the rest
        let gnu_body = "k(L) :- fd_domain(L, 1, 4), fd_all_different(L), S #= 10, fd_labeling(L).";
        for directive in [
            ":- use_module(library(clpfd)).",
            ":- use_module(library(clpz)).",
            ":- ensure_loaded(library(clpfd)).",
        ] {
            assert_eq!(detect(&format!("{directive}\n{gnu_body}")), Dialect::Gnu);
        }
        // fd_ words that CLP(FD)/CLP(Z) have too do not make it GNU
        assert_eq!(
            detect(":- use_module(library(clpfd)).\nk(X) :- fd_dom(X, D), fd_size(X, S)."),
            Dialect::Scryer
        );
        // a clpz body whose comments and quotes mention GNU built-ins
        let clpz = ":- use_module(library(clpz)).\n\
                    % GNU Prolog would say fd_domain(Xs, 1, N) and fd_labeling(Xs)\n\
                    k(Xs) :- Xs ins 1..4, all_distinct(Xs), label(Xs).\n\
                    /* fd_all_different */ note('fd_labeling').";
        assert_eq!(detect(clpz), Dialect::Scryer);
        // with #= only, a loaded library is what it is written for
        assert_eq!(
            detect(":- use_module(library(clpz)).\nk(X, Y) :- X #= Y + 1."),
            Dialect::Scryer
        );
        // both kinds of predicates with the library loaded: the library's (the GNU names may
        // be its own helpers)
        assert_eq!(
            detect(
                ":- use_module(library(clpfd)).\n\
                 fd_domain(L, A, B) :- L ins A..B.\n\
                 k(L) :- fd_domain(L, 1, 4), all_distinct(L), label(L)."
            ),
            Dialect::Scryer
        );
    }

    #[test]
    fn the_fixtures_dialects() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/judge/");
        let of = |name: &str| {
            let text = std::fs::read_to_string(format!("{dir}{name}")).unwrap();
            detect(&text)
        };
        assert_eq!(of("clpz_correct.pl"), Dialect::Scryer);
        for name in [
            "gnu_correct.pl",
            "gnu_with_clpfd_import.pl",
            "largest_first.pl",
            "repeats.pl",
            "unsupported.pl",
            "ends_with_comment.pl",
        ] {
            assert_eq!(of(name), Dialect::Gnu, "{name}");
        }
        // the hostile files: gnu_*.pl are written for GNU Prolog; those that load a Scryer
        // library (library(os), library(files), ...) for Scryer; the rest is portable
        let mut scryer = 0;
        for entry in std::fs::read_dir(format!("{dir}hostile")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            if name.starts_with("gnu_") {
                assert_eq!(detect(&text), Dialect::Gnu, "hostile/{name}");
            } else if name.ends_with(".pl") && text.contains(":- use_module(library(") {
                assert_eq!(detect(&text), Dialect::Scryer, "hostile/{name}");
                scryer += 1;
            }
        }
        assert!(scryer >= 4, "{scryer} hostile files load a library");
        let ours = include_str!("../../prolog/kenken.pl");
        assert_eq!(detect(ours), Dialect::Scryer);
    }
}
