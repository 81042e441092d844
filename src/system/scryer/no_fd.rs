//! The constraint solvers of an engine without FD solver (a judged `plain_kenken/3`'s): stub
//! modules loaded before the judged file under the solvers' own names, so that
//! `use_module(library(clpz))`, `library(clpb)` or `library(simplex)` imports a stub (Scryer
//! loads a library once) whose every predicate throws `kk_judge_no_fd(Name/Arity)`.
//!
//! `library(clpz)` is `prolog/judge_no_fd.pl` (with clpz's operators, so that a file that uses
//! clpz in `kenken/3` still loads); `library(clpb)` and `library(simplex)` are made here from
//! their exports. What this cannot close: Scryer 0.10 keeps every library's text in the
//! program, and its loader's `'$load_library_as_stream'/3` gives it to any caller, so judged
//! code can read a solver's text and load it under another name ([`OPEN_ROUTE`]).

use std::path::PathBuf;

use scryer_prolog::Term;

use crate::prolog::quoted_text;

/// library(clpz) as an engine without FD solver has it: every constraint throws.
const NO_CLPZ_PL: &str = include_str!("../../../prolog/judge_no_fd.pl");

/// A stubbed solver: its module's name, its operators (`op(P, T, N)` as Prolog text), its
/// exports (`Name/Arity`, the name written as a Prolog atom), and the one export imported into
/// `user` (Scryer 0.10 loads nothing for an empty import list; one a file is unlikely to
/// define itself).
struct Stub {
    module: &'static str,
    ops: &'static [&'static str],
    exports: &'static [(&'static str, usize)],
    import: &'static str,
}

/// Scryer's other constraint libraries (`library(clpb)`, `library(simplex)`), stubbed.
const STUBS: [Stub; 2] = [
    Stub {
        module: "clpb",
        ops: &["op(300, fy, ~)", "op(500, yfx, #)"],
        exports: &[
            ("sat", 1),
            ("taut", 2),
            ("labeling", 1),
            ("sat_count", 2),
            ("weighted_maximum", 3),
            ("random_labeling", 2),
        ],
        import: "sat_count/2",
    },
    Stub {
        module: "simplex",
        ops: &[],
        exports: &[
            ("assignment", 2),
            ("constraint", 3),
            ("constraint", 4),
            ("constraint_add", 4),
            ("gen_state", 1),
            ("maximize", 3),
            ("minimize", 3),
            ("objective", 2),
            ("shadow_price", 3),
            ("transportation", 4),
            ("variable_value", 3),
        ],
        import: "shadow_price/3",
    },
];

/// Why a pass of `plain_kenken/3` in a Scryer engine does not prove that no constraint solver
/// was used: said on every such case.
pub(crate) const OPEN_ROUTE: &str = "under Scryer, plain_kenken/3 can still reach an FD \
    solver: Scryer 0.10's loader gives any caller the text of its libraries \
    ('$load_library_as_stream'/3), library(clpz)'s included, which a file can load under another \
    module's name; the judge cannot close that route (docs/judge.md)";

/// The module text of `stub`: its exports and operators, every predicate throwing.
fn stub_text(stub: &Stub) -> String {
    let mut exports: Vec<String> = stub.ops.iter().map(|o| o.to_string()).collect();
    exports.extend(stub.exports.iter().map(|(n, a)| format!("{n}/{a}")));
    let mut text = format!(":- module({}, [{}]).\n", stub.module, exports.join(", "));
    for (name, arity) in stub.exports {
        let args = vec!["_"; *arity].join(", ");
        text.push_str(&format!(
            "{name}({args}) :- throw(kk_judge_no_fd({}:{name}/{arity})).\n",
            stub.module
        ));
    }
    text
}

/// What the report says of a stub reached: `what` is the argument of `kk_judge_no_fd/1`,
/// `Name/Arity` (clpz's) or `Module:Name/Arity`.
pub(super) fn reached(what: &Term) -> String {
    match what {
        Term::Compound(colon, args) if colon == ":" && args.len() == 2 => format!(
            "{}: plain_kenken/3 called a constraint solver (library({})), which the spec \
             forbids there (its engine has none)",
            quoted_text(&args[1], 200),
            quoted_text(&args[0], 200)
        ),
        pi => format!(
            "{}: plain_kenken/3 called the FD solver, which the spec forbids there (its engine \
             has none)",
            quoted_text(pi, 200)
        ),
    }
}

/// The directives that load the stubs before the judged file (each from a file in the
/// temporary folder, a worker's scratch, where Scryer then takes it for the library), and
/// those files, to be removed once loaded; `Err` when one cannot be written.
pub(super) fn directives() -> Result<(String, Vec<PathBuf>), String> {
    let mut texts = vec![("clpz", NO_CLPZ_PL.to_string(), "zcompare/3")];
    texts.extend(STUBS.iter().map(|s| (s.module, stub_text(s), s.import)));
    let mut directives = String::new();
    let mut files = Vec::new();
    for (module, text, import) in texts {
        let file = std::env::temp_dir().join(format!(
            "kenken-judge-no-{module}-{}.pl",
            &crate::process::random_hex()[..16]
        ));
        std::fs::write(&file, text).map_err(|e| format!("writing {}: {e}", file.display()))?;
        // (an atom: the path of a scratch folder holds no quote or control character, and one
        // that did would only make the load fail, closed)
        let path = file
            .display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('\'', "\\'");
        directives.push_str(&format!(":- use_module('{path}', [{import}]).\n"));
        files.push(file);
    }
    Ok((directives, files))
}

/// A query whose `R` is `none` when every stubbed solver throws as it should (an engine whose
/// solvers are the real ones serves no file).
pub(super) const PROBE: &str = "catch((clpz:'#='(1, 1), R = clpz), kk_judge_no_fd(_), \
    catch((clpb:sat(1), R = clpb), kk_judge_no_fd(_), \
    catch((simplex:gen_state(_), R = simplex), kk_judge_no_fd(_), R = none))).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_throws_for_each_export() {
        let text = stub_text(&STUBS[0]);
        assert!(
            text.starts_with(":- module(clpb, [op(300, fy, ~), op(500, yfx, #), sat/1, taut/2, ")
        );
        assert!(text.contains("taut(_, _) :- throw(kk_judge_no_fd(clpb:taut/2)).\n"));
        let (directives, files) = directives().unwrap();
        assert_eq!(directives.lines().count(), 3);
        for f in files {
            assert!(f.exists());
            std::fs::remove_file(f).unwrap();
        }
    }
}
