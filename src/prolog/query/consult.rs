//! The consult and restore queries, and the reading of their answers, shared by a
//! [`crate::prolog::Session`] and a [`QueryWorker`].

use super::{Answer, AnswerSource, Answers, ConsultError, End, Lost, Query, QueryError};
use crate::prolog::term::Term;
use crate::prolog::PrologError;
use crate::Limit;

/// The query that consults `file` (`kk_query_consult/2` of `prolog/host_query.pl`).
pub(crate) fn consult_query(file: &std::path::Path) -> Query {
    let name = crate::prolog::quote(&file.to_string_lossy());
    Query::new(&format!("kk_query_consult({name}, R)")).max_answers(1)
}

/// A file consulted: what Scryer's loader warned of ([`crate::prolog::Session::load`],
/// [`QueryWorker::load`](super::QueryWorker::load)).
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consulted {
    /// The loader's warnings, one line each.
    pub warnings: Vec<String>,
}

impl Consulted {
    /// What Scryer's loader warned of while the file loaded, one line each (`% Warning:
    /// overwriting p/1 because the clauses are discontiguous`): Scryer 0.10 writes these to
    /// the process's standard output; they are kept from it (without touching it: see
    /// [`crate::prolog::Session`]) and given here instead ([`Answers::warnings`]).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The answers of a consult read to their end, how they ended, and the loader's warnings.
pub(crate) type ConsultRead = (Vec<Answer>, End, Vec<String>);

/// The answers of [`consult_query`] read to their end: what the engine lost before it, and
/// the answers, how they ended and the loader's warnings.
pub(crate) fn read_consult<S: AnswerSource>(
    mut answers: Answers<'_, S>,
) -> (Vec<Lost>, Result<ConsultRead, QueryError>) {
    let lost = answers.lost().to_vec();
    let got = answers.by_ref().collect::<Result<Vec<_>, _>>().map(|a| {
        let end = answers.end().cloned().unwrap_or(End::Complete);
        (a, end, answers.warnings().to_vec())
    });
    (lost, got)
}

/// How a consult went, from the answers of [`consult_query`] ([`read_consult`]).
pub(crate) fn consulted(
    file: &std::path::Path,
    (answers, end, warnings): ConsultRead,
) -> Result<Consulted, QueryError> {
    let file = file.to_string_lossy().into_owned();
    let r = match (answers.first().and_then(|a| a.get("R")), end) {
        (Some(r), _) => r.clone(),
        (None, End::Stopped(Limit::Time)) => return Err(ConsultError::Timeout { file }.into()),
        (None, End::Halted(code)) => return Err(ConsultError::Halted { file, code }.into()),
        (None, End::Exception(e)) => {
            return Err(ConsultError::NotLoaded { file, why: e.text }.into())
        }
        (None, End::Crashed(why)) => return Err(PrologError::Failed(why).into()),
        (None, end) => {
            return Err(PrologError::Protocol(format!("consulting ended so: {end:?}")).into())
        }
    };
    match consult_error(file, &r) {
        None => Ok(Consulted { warnings }),
        Some(e) => Err(e.into()),
    }
}

/// The error that `kk_query_consult/2`'s result `r` says (`None`: the file loaded).
pub(super) fn consult_error(file: String, r: &Term) -> Option<ConsultError> {
    let text = |t: &Term| t.as_text().unwrap_or_else(|| t.to_string());
    match r {
        Term::Atom(a) if a == "true" => None,
        Term::Atom(a) if a == "no_such_file" => Some(ConsultError::NoSuchFile { file }),
        Term::Compound(f, args) if f == "syntax_error" && args.len() == 2 => {
            Some(ConsultError::Syntax {
                file,
                line: args[0]
                    .as_i64()
                    .and_then(|l| usize::try_from(l).ok())
                    .filter(|&l| l > 0),
                message: text(&args[1]),
            })
        }
        Term::Compound(f, args) if f == "halt" && args.len() == 1 => Some(ConsultError::Halted {
            file,
            code: args[0].as_i64().unwrap_or(0),
        }),
        Term::Compound(f, args) if f == "not_loaded" && args.len() == 1 => {
            Some(ConsultError::NotLoaded {
                file,
                why: text(&args[0]),
            })
        }
        other => Some(ConsultError::NotLoaded {
            file,
            why: other.to_string(),
        }),
    }
}

/// The query that gives a fresh engine `state` (`kk_query_restore/2`).
pub(crate) fn restore_query(state: &str) -> Query {
    let text = format!("{state} .");
    Query::new(&format!(
        "kk_query_restore({}, L)",
        crate::prolog::quote(&text)
    ))
    .max_answers(1)
}

/// What was lost, from the answers of [`restore_query`] (the failure to give it back when
/// there are none).
pub(crate) fn restored(answers: &[Answer]) -> Vec<Lost> {
    let Some(list) = answers.first().and_then(|a| a.get("L")) else {
        return vec![Lost::State("the state could not be read back".into())];
    };
    let text = |t: &Term| t.as_text().unwrap_or_else(|| t.to_string());
    list.as_list()
        .unwrap_or_default()
        .iter()
        .map(|l| match l {
            Term::Compound(f, a) if f == "global" && a.len() == 2 => Lost::Global {
                key: a[0].to_string(),
                why: text(&a[1]),
            },
            Term::Compound(f, a) if f == "predicate" && a.len() == 2 => Lost::Predicate {
                name: text(&a[0]),
                why: text(&a[1]),
            },
            Term::Compound(f, a) if f == "file" && a.len() == 2 => {
                let file = text(&a[0]);
                Lost::File(
                    consult_error(file.clone(), &a[1]).unwrap_or(ConsultError::NotLoaded {
                        file,
                        why: "it did not load".into(),
                    }),
                )
            }
            other => Lost::State(format!("unreadable: {other}")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_replay_lost_is_read_from_its_answer() {
        let c = |f: &str, args: Vec<Term>| Term::Compound(f.into(), args);
        let list = Term::List(vec![
            c("global", vec![Term::atom("k"), Term::atom("not ground")]),
            c("predicate", vec![Term::atom("(:)/2"), Term::atom("why")]),
        ]);
        let answer = Answer {
            bindings: vec![("L".into(), list)],
            text: String::new(),
        };
        assert_eq!(
            restored(&[answer]),
            [
                Lost::Global {
                    key: "k".into(),
                    why: "not ground".into()
                },
                Lost::Predicate {
                    name: "(:)/2".into(),
                    why: "why".into()
                }
            ]
        );
    }
}
