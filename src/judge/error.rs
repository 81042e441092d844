//! Why a file could not be judged ([`JudgeError`]), and the cap on any text a judged file had a
//! hand in ([`cut`]).

use crate::error::IoError;
use crate::process::WorkerError;

// (at most MESSAGE_CAP bytes of any text a judged child wrote or made, a load error, a
// warning, an exception, are kept, shown or put in a report)
pub(crate) use crate::system::cut;

/// [`JudgeError`] with every text the judged file had a hand in cut ([`cut`]).
pub(super) fn cut_error(e: JudgeError) -> JudgeError {
    match e {
        JudgeError::Syntax { file, errors } => JudgeError::Syntax {
            file,
            errors: errors
                .into_iter()
                .take(10)
                .map(|(l, m)| (l, cut(&m)))
                .collect(),
        },
        JudgeError::Load { file, why } => JudgeError::Load {
            file,
            why: cut(&why),
        },
        JudgeError::Failed(why) => JudgeError::Failed(cut(&why)),
        JudgeError::CannotConfine(why) => JudgeError::CannotConfine(cut(&why)),
        e => e,
    }
}

/// Why a file could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// The file has syntax errors: (line, message) each; the first one's line is exact.
    #[error("{}", syntax_text(.file, .errors))]
    Syntax {
        /// The file.
        file: String,
        /// The errors found, by line.
        errors: Vec<(usize, String)>,
    },
    /// The file could not be loaded.
    #[error("{file}: cannot be loaded: {why}")]
    Load {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
    /// GNU Prolog was asked for and is not installed.
    #[error("gprolog is not installed (or not on the PATH): install GNU Prolog, or judge with --prolog scryer")]
    NoGprolog,
    /// SWI-Prolog was asked for and is not installed.
    #[error("swipl is not installed (or not on the PATH): install SWI-Prolog, or judge with --prolog scryer")]
    NoSwipl,
    /// The kernel cannot confine the judged code (and `--no-confine` was not given).
    #[error("cannot judge safely: {0}; judge only files you trust with --no-confine")]
    CannotConfine(String),
    /// Reading the file or writing scratch files failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A judged engine's process failed in a way that is not the judged file's doing.
    #[error(transparent)]
    Process(WorkerError),
    /// No case of the suite has a name containing a text of [`Config::only`](super::Config::only).
    #[error("{}", no_case_text(.only, .suite, .names, *.count))]
    NoCaseNamed {
        /// The texts looked for.
        only: Vec<String>,
        /// The suite, as a report names it: `standard suite up to 7x7`.
        suite: String,
        /// A few of the suite's case names.
        names: Vec<String>,
        /// How many case names the suite has.
        count: usize,
    },
    /// A folder holds no `.pl` file, or the judge itself failed (its own driver).
    #[error("{0}")]
    Failed(String),
}

impl From<WorkerError> for JudgeError {
    fn from(e: WorkerError) -> JudgeError {
        match e {
            WorkerError::Confine(why) => JudgeError::CannotConfine(why),
            other => JudgeError::Process(other),
        }
    }
}

fn no_case_text(only: &[String], suite: &str, names: &[String], count: usize) -> String {
    let quoted = |v: &[String]| v.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>();
    format!(
        "--only {}: no case of the {suite} has a name containing {} (case-sensitive); its \
         {count} case names include {}",
        quoted(only).join(", "),
        if only.len() == 1 { "it" } else { "any of them" },
        quoted(names).join(", ")
    )
}

fn syntax_text(file: &str, errors: &[(usize, String)]) -> String {
    // Only the first error's line is sure: after an error Scryer's reader may count lines short.
    let Some((line, message)) = errors.first() else {
        return format!("{file}: syntax error");
    };
    let more = match errors.len() {
        1 => String::new(),
        2 => " (and 1 more syntax error after it)".to_string(),
        n => format!(" (and {} more syntax errors after it)", n - 1),
    };
    format!("{file}:{line}: syntax error: {message}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::MESSAGE_CAP;

    #[test]
    fn long_texts_are_cut_at_a_character_boundary() {
        assert_eq!(cut("short"), "short");
        let long = "é".repeat(MESSAGE_CAP);
        let c = cut(&long);
        assert!(c.len() < MESSAGE_CAP + 40, "{}", c.len());
        assert!(c.ends_with(&format!("... ({} bytes more)", long.len() - MESSAGE_CAP)));
        let e = cut_error(JudgeError::Load {
            file: "f.pl".into(),
            why: "x".repeat(1 << 20),
        });
        assert!(e.to_string().len() < MESSAGE_CAP + 100);
    }
}
