//! Reports for courses: Gradescope's autograder `results.json` ([`gradescope`]), JUnit XML for
//! CI systems ([`junit`]) and one self-contained HTML page for a class ([`html`]), each made
//! from judgements (and the smallest failing puzzle of each failing file, when shrunk).

pub mod gradescope;
pub mod html;
pub mod junit;
pub mod rerun;

use super::shrink::Counterexample;
use super::{JudgeError, Judgement};

/// One judged file, as the reports take it.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    /// The file, as given.
    pub file: &'a str,
    /// Its judgement, or why it could not be judged.
    pub result: &'a Result<Judgement, JudgeError>,
    /// Its smallest failing puzzle, when it failed and was shrunk.
    pub counterexample: Option<&'a Counterexample>,
}

/// The kind of a case, from its name: `spec examples`, `edge cases`, `random puzzles`, or
/// `puzzles` (a suite file's).
pub fn kind(suite: &str, case: &str) -> &'static str {
    if suite == "puzzles" {
        "puzzles"
    } else if case.starts_with("spec") {
        "spec examples"
    } else if case.starts_with("random ") {
        "random puzzles"
    } else {
        "edge cases"
    }
}

/// The kinds of cases, in a report's order.
pub const KINDS: [&str; 4] = ["spec examples", "edge cases", "random puzzles", "puzzles"];

/// The name of the form check's test.
pub const FORM_CHECK: &str = "plain_kenken/3 form check";

/// How a run is made again: the command ([`Judgement::rerun`], every option that chose the
/// cases kept and the path quoted for a POSIX shell; else one made of what the judgement
/// holds), with the seed of its random puzzles.
pub fn again(j: &Judgement) -> String {
    let command = j.rerun.clone().unwrap_or_else(|| {
        let mut words = vec![
            "kenken".to_string(),
            "judge".into(),
            rerun::shell_word(std::ffi::OsStr::new(&j.file)),
            "--prolog".into(),
            j.system.name().into(),
        ];
        if let Some(seed) = j.seed {
            words.extend(["--seed".into(), seed.to_string()]);
        } else {
            words.extend(["--suite".into(), rerun::shell_word(j.suite.as_ref())]);
        }
        words.join(" ")
    });
    match j.seed {
        Some(seed) => {
            format!("random puzzles of seed {seed}: `{command}` makes the same cases again")
        }
        None => format!("suite: {}; `{command}` makes the same cases again", j.suite),
    }
}

/// Text as XML (and HTML) character data or attribute value: `& < > " '` escaped, the
/// characters XML 1.0 cannot hold (control characters but tab and newline, lone surrogates
/// cannot occur in a `str`) written as `\xNN`, and the C1 controls and the characters a reader
/// cannot see ([`invisible`](crate::judge::invisible): a zero-width space, a right-to-left
/// mark...) as `\u{200b}`.
pub fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            '\0'..='\x1f' | '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            // (what a reader cannot see, or that reorders what follows, is written out)
            c if ('\u{80}'..='\u{9f}').contains(&c) || crate::judge::invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_text_escapes_markup_and_control_characters() {
        assert_eq!(
            xml_text("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(xml_text("]]>\x1b[31m\0"), "]]&gt;\\x1b[31m\\x00");
        assert_eq!(xml_text("two\nlines\tok"), "two\nlines\tok");
        assert_eq!(
            xml_text("ann\u{200b}\u{200f}\u{85}"),
            "ann\\u{200b}\\u{200f}\\u{85}"
        );
    }

    #[test]
    fn kinds_of_cases() {
        assert_eq!(kind("standard", "spec 6x6 testcase"), "spec examples");
        assert_eq!(kind("standard", "random 4x4 #1"), "random puzzles");
        assert_eq!(kind("standard", "N = 0"), "edge cases");
        assert_eq!(kind("puzzles", "spec 6x6"), "puzzles");
    }
}
