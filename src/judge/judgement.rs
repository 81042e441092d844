//! The outcome of judging a file ([`Judgement`]): its counts, exit code and summaries.

use std::collections::HashMap;

use serde::Serialize;

use super::{verdict, CaseReport, Dialect, FormCheck, System, Verdict};
use crate::prolog::Predicate;

/// The outcome of judging a file.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    /// The file judged.
    pub file: String,
    /// The Prolog system the file ran in.
    pub system: System,
    /// The file's dialect.
    pub dialect: Dialect,
    /// Whether the dialect was detected (not chosen).
    pub dialect_detected: bool,
    /// The largest grid run.
    pub max_size: usize,
    /// The suite: `spec`, `standard`, or the puzzles' file.
    pub suite: String,
    /// The seed the standard suite's random puzzles were made from (`None` for another suite).
    pub seed: Option<u64>,
    /// What the loader and the file wrote to `user_error` while loading.
    pub warnings: String,
    /// Every case, in the order run.
    pub cases: Vec<CaseReport>,
    /// The form check of `plain_kenken/3` (no FD solver), when it is judged.
    pub form: Option<FormCheck>,
    /// Things a reader should know (what was left out and why).
    pub notes: Vec<String>,
    /// Wall-clock time of the whole judgement, in seconds.
    pub elapsed_s: f64,
    /// The command that judges the file again, to paste into a POSIX shell (every option
    /// that chose its cases kept, the path quoted: [`super::report::rerun`]), when the caller
    /// set it (the command line does); reports show it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
}

impl Judgement {
    /// How many cases got `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.cases.iter().filter(|c| c.verdict == verdict).count()
    }

    /// Whether the form check was run and failed.
    pub fn form_failed(&self) -> bool {
        self.form.as_ref().is_some_and(|f| !f.passed)
    }

    /// The exit code: 0 every case passes, 1 a case fails (a hang on a small grid is a
    /// failure) or the form check fails, 3 only timeouts on larger grids (or skips).
    pub fn exit_code(&self) -> i32 {
        if self.form_failed() || self.cases.iter().any(|c| c.verdict.is_failure()) {
            1
        } else if self.cases.iter().all(|c| c.verdict == Verdict::Pass) {
            0
        } else {
            3
        }
    }

    /// The summary line: counts per verdict.
    pub fn summary(&self) -> String {
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .map(|&v| (v, self.count(v)))
            .filter(|&(_, n)| n > 0)
            .map(|(v, n)| format!("{n} {v}"))
            .collect();
        format!(
            "{}: {}: {}{} ({:.1} s, {}, {} dialect)",
            self.file,
            verdict::plural(self.cases.len(), "case"),
            if counts.is_empty() {
                "none run".to_string()
            } else {
                counts.join(", ")
            },
            if self.form_failed() {
                "; form check failed"
            } else {
                ""
            },
            self.elapsed_s,
            self.system.name(),
            self.dialect.name()
        )
    }

    /// `plain_kenken/3`'s total time over `kenken/3`'s on the cases both passed (when both
    /// took a millisecond or more).
    pub fn plain_over_fd(&self) -> Option<f64> {
        let (_, fd, plain) = self.both_passed()?;
        (fd.min(plain) >= 1.0).then(|| plain / fd)
    }

    /// On the cases both predicates passed: how many, `kenken/3`'s total time and
    /// `plain_kenken/3`'s, in milliseconds.
    pub(crate) fn both_passed(&self) -> Option<(usize, f64, f64)> {
        let time = |p: Predicate| -> HashMap<&str, f64> {
            self.cases
                .iter()
                .filter(|c| c.predicate == p.name() && c.verdict == Verdict::Pass)
                .filter_map(|c| Some((c.case.as_str(), c.elapsed_ms?)))
                .collect()
        };
        let (fd, plain) = (time(Predicate::Fd), time(Predicate::Plain));
        let both: Vec<(&str, f64, f64)> = plain
            .iter()
            .filter_map(|(name, &p)| Some((*name, fd.get(name).copied()?, p)))
            .collect();
        if both.is_empty() {
            return None;
        }
        let fd_total: f64 = both.iter().map(|b| b.1).sum();
        let plain_total: f64 = both.iter().map(|b| b.2).sum();
        Some((both.len(), fd_total, plain_total))
    }

    /// `plain_kenken/3`'s time beside `kenken/3`'s on the cases both passed, as a sentence.
    pub fn plain_vs_fd(&self) -> Option<String> {
        let (n, fd_total, plain_total) = self.both_passed()?;
        if fd_total.min(plain_total) < 1.0 {
            return Some(format!(
                "on the {n} cases both passed, plain_kenken/3 took {plain_total:.1} ms in all \
                 and kenken/3 {fd_total:.1} ms (too short to compare)"
            ));
        }
        let (faster, slower, ratio) = if plain_total <= fd_total {
            ("plain_kenken/3", "kenken/3", fd_total / plain_total)
        } else {
            ("kenken/3", "plain_kenken/3", plain_total / fd_total)
        };
        Some(format!(
            "on the {n} cases both passed, plain_kenken/3 took {plain_total:.1} ms in all and \
             kenken/3 {fd_total:.1} ms: {faster} is {ratio:.1} times as fast as {slower}"
        ))
    }
}
