//! Verdicts: what a judged predicate answered for a case, compared with every expected answer
//! (the set, duplicates, the spec's order and the count).

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::suite::Case;
use crate::puzzle::Grid;

/// One answer of the judged predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `T` was an N x N grid of integers.
    Grid(Grid),
    /// `T` was something else, as Prolog writes it (cut short).
    Bad(String),
}

/// How a run of a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Every answer was given.
    Complete,
    /// More answers than were asked for (more than the expected answers, twice over).
    Limit,
    /// The wall-clock limit passed; the engine was killed.
    Timeout,
    /// The goal raised an exception, as Prolog writes it.
    Exception(String),
    /// The goal tried something confinement does not allow (what, in words: `the file tried
    /// to write /home/ann/x`).
    Blocked(String),
    /// The goal called a built-in the judge does not support (`Name/Arity`).
    Unsupported(String),
    /// The judged code called `halt`, with this exit code.
    Halted(i64),
    /// The engine died (a crash, a stack or memory overflow); what is known of why.
    Crashed(String),
}

/// What a backend gives back for one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The answers, in the order given.
    pub answers: Vec<Answer>,
    /// How the run ended.
    pub end: End,
    /// Wall-clock time of the goal.
    pub elapsed: Duration,
}

/// The verdict on one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every expected answer, each once, in the spec's order.
    Pass,
    /// An answer is missing, or one is not a solution (or not a grid).
    Wrong,
    /// The right answers, each once, in another order.
    Order,
    /// The right answers, some more than once.
    Duplicate,
    /// The time limit passed.
    Timeout,
    /// Not run: the predicate timed out on a smaller case.
    Skipped,
    /// An uncaught exception (or an unsupported built-in).
    Error,
    /// The judged code called `halt`.
    Halted,
    /// The engine died.
    Crashed,
}

impl Verdict {
    /// Every verdict, in the order a summary lists them.
    pub const ALL: [Verdict; 9] = [
        Verdict::Pass,
        Verdict::Wrong,
        Verdict::Order,
        Verdict::Duplicate,
        Verdict::Timeout,
        Verdict::Skipped,
        Verdict::Error,
        Verdict::Halted,
        Verdict::Crashed,
    ];

    /// The verdict's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Wrong => "wrong",
            Verdict::Order => "order",
            Verdict::Duplicate => "duplicate",
            Verdict::Timeout => "timeout",
            Verdict::Skipped => "skipped",
            Verdict::Error => "error",
            Verdict::Halted => "halted",
            Verdict::Crashed => "crashed",
        }
    }

    /// A failure of the judged code (not a pass, not a limit of the judge's).
    pub fn is_failure(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Timeout | Verdict::Skipped)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The report on one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseReport {
    /// The case's name.
    pub case: String,
    /// The predicate judged (`kenken` or `plain_kenken`).
    pub predicate: &'static str,
    /// The grid's side.
    pub size: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in words (empty for a pass).
    pub detail: String,
    /// How many answers the spec asks for.
    pub expected: usize,
    /// How many answers were given.
    pub answers: usize,
    /// Expected answers not given.
    pub missing: Vec<Grid>,
    /// Answers given that are not solutions.
    pub extra: Vec<Grid>,
    /// Answers given more than once.
    pub duplicates: Vec<Grid>,
    /// Wall-clock time of the goal, in milliseconds (`None` when it did not finish).
    pub elapsed_ms: Option<f64>,
}

impl CaseReport {
    /// The report on a case that was not run.
    pub fn skipped(case: &Case, why: String) -> CaseReport {
        CaseReport {
            case: case.name.clone(),
            predicate: case.predicate.name(),
            size: case.size,
            verdict: Verdict::Skipped,
            detail: why,
            expected: case.expected.len(),
            answers: 0,
            missing: Vec::new(),
            extra: Vec::new(),
            duplicates: Vec::new(),
            elapsed_ms: None,
        }
    }
}

/// How many answers to ask for: enough to see every expected one twice over, and more.
pub fn answers_wanted(case: &Case) -> usize {
    case.expected.len() * 2 + 2
}

fn grid_text(g: &Grid) -> String {
    let rows: Vec<String> = g
        .iter()
        .map(|r| {
            let cells: Vec<String> = r.iter().map(u32::to_string).collect();
            format!("[{}]", cells.join(","))
        })
        .collect();
    format!("[{}]", rows.join(","))
}

pub(crate) fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Judges one run of a case.
pub fn judge(case: &Case, run: &Run) -> CaseReport {
    let mut report = CaseReport::skipped(case, String::new());
    report.answers = run.answers.len();
    report.elapsed_ms = Some(run.elapsed.as_secs_f64() * 1000.0);
    let (verdict, detail) = match &run.end {
        End::Timeout => {
            report.elapsed_ms = None;
            (
                Verdict::Timeout,
                format!(
                    "no end within the time limit ({})",
                    plural(run.answers.len(), "answer")
                ),
            )
        }
        End::Exception(e) => (Verdict::Error, format!("uncaught exception: {e}")),
        End::Blocked(what) => (Verdict::Error, format!("{what}: not allowed while judging")),
        End::Unsupported(pi) => (
            Verdict::Error,
            format!("uses {pi}, which judge does not support"),
        ),
        End::Halted(code) => (Verdict::Halted, format!("called halt (exit code {code})")),
        End::Crashed(why) => {
            report.elapsed_ms = None;
            (Verdict::Crashed, format!("the Prolog engine died: {why}"))
        }
        End::Complete | End::Limit => compare(case, run, &mut report),
    };
    report.verdict = verdict;
    report.detail = detail;
    report
}

/// Compares the answers of a run that ended normally with the expected ones.
fn compare(case: &Case, run: &Run, report: &mut CaseReport) -> (Verdict, String) {
    if let Some((i, text)) = run.answers.iter().enumerate().find_map(|(i, a)| match a {
        Answer::Bad(t) => Some((i, t)),
        Answer::Grid(_) => None,
    }) {
        return (
            Verdict::Wrong,
            format!(
                "answer {} is not a {n}x{n} grid of integers: T = {text}",
                i + 1,
                n = case.size
            ),
        );
    }
    let got: Vec<&Grid> = run
        .answers
        .iter()
        .filter_map(|a| match a {
            Answer::Grid(g) => Some(g),
            Answer::Bad(_) => None,
        })
        .collect();
    let mut seen: HashMap<&Grid, usize> = HashMap::new();
    let mut distinct: Vec<&Grid> = Vec::new();
    for &g in &got {
        let n = seen.entry(g).or_insert(0);
        *n += 1;
        if *n == 1 {
            distinct.push(g);
        } else if *n == 2 {
            report.duplicates.push(g.clone());
        }
    }
    report.missing = case
        .expected
        .iter()
        .filter(|g| !seen.contains_key(g))
        .cloned()
        .collect();
    report.extra = distinct
        .iter()
        .filter(|g| !case.expected.contains(g))
        .map(|g| (*g).clone())
        .collect();
    let more = if run.end == End::Limit {
        format!(
            ", stopped after {}: there are more",
            plural(got.len(), "answer")
        )
    } else {
        String::new()
    };
    if !report.missing.is_empty() || !report.extra.is_empty() {
        let mut why = Vec::new();
        if !report.missing.is_empty() {
            why.push(format!(
                "{} missing, e.g. {}",
                plural(report.missing.len(), "answer"),
                grid_text(&report.missing[0])
            ));
        }
        if !report.extra.is_empty() {
            why.push(format!(
                "{} not a solution, e.g. {}",
                plural(report.extra.len(), "answer"),
                grid_text(&report.extra[0])
            ));
        }
        return (
            Verdict::Wrong,
            format!(
                "{} of {} expected{more}; {}",
                got.len(),
                case.expected.len(),
                why.join("; ")
            ),
        );
    }
    if !report.duplicates.is_empty() {
        return (
            Verdict::Duplicate,
            format!(
                "{} given more than once ({} for {}{more}), e.g. {}",
                plural(report.duplicates.len(), "answer"),
                plural(got.len(), "answer"),
                plural(case.expected.len(), "solution"),
                grid_text(&report.duplicates[0])
            ),
        );
    }
    if distinct.iter().zip(&case.expected).any(|(g, e)| *g != e) {
        let at = distinct
            .iter()
            .zip(&case.expected)
            .position(|(g, e)| *g != e)
            .unwrap_or(0);
        return (
            Verdict::Order,
            format!(
                "the right answers in another order: answer {} is {}, the spec's order \
                 (row by row, smallest first) has {}",
                at + 1,
                grid_text(distinct[at]),
                grid_text(&case.expected[at])
            ),
        );
    }
    (Verdict::Pass, String::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prolog::Predicate;

    fn case(expected: Vec<Grid>) -> Case {
        Case {
            name: "t".into(),
            predicate: Predicate::Fd,
            size: 2,
            goal: "kenken(2, [], T)".into(),
            expected,
        }
    }

    fn a() -> Grid {
        vec![vec![1, 2], vec![2, 1]]
    }
    fn b() -> Grid {
        vec![vec![2, 1], vec![1, 2]]
    }

    fn run(answers: Vec<Grid>, end: End) -> Run {
        Run {
            answers: answers.into_iter().map(Answer::Grid).collect(),
            end,
            elapsed: Duration::from_millis(3),
        }
    }

    #[test]
    fn verdicts() {
        let c = case(vec![a(), b()]);
        let v = |answers, end| judge(&c, &run(answers, end));
        assert_eq!(v(vec![a(), b()], End::Complete).verdict, Verdict::Pass);
        let order = v(vec![b(), a()], End::Complete);
        assert_eq!(order.verdict, Verdict::Order);
        assert!(
            order.detail.contains("answer 1 is [[2,1],[1,2]]"),
            "{}",
            order.detail
        );
        let missing = v(vec![a()], End::Complete);
        assert_eq!(missing.verdict, Verdict::Wrong);
        assert_eq!(missing.missing, vec![b()]);
        assert!(missing
            .detail
            .contains("1 of 2 expected; 1 answer missing, e.g. [[2,1],[1,2]]"));
        let dup = v(vec![a(), a(), b()], End::Complete);
        assert_eq!(
            (dup.verdict, dup.duplicates.clone()),
            (Verdict::Duplicate, vec![a()])
        );
        let extra = v(vec![a(), b(), vec![vec![1, 1], vec![2, 2]]], End::Complete);
        assert_eq!(extra.verdict, Verdict::Wrong);
        assert_eq!(extra.extra.len(), 1);
        assert_eq!(v(vec![], End::Timeout).verdict, Verdict::Timeout);
        assert_eq!(v(vec![], End::Halted(0)).verdict, Verdict::Halted);
        let unsupported = v(vec![], End::Unsupported("fd_reified_in/4".into()));
        assert_eq!(unsupported.verdict, Verdict::Error);
        assert_eq!(
            unsupported.detail,
            "uses fd_reified_in/4, which judge does not support"
        );
        let bad = judge(
            &c,
            &Run {
                answers: vec![Answer::Bad("[_A,_B]".into())],
                end: End::Complete,
                elapsed: Duration::ZERO,
            },
        );
        assert_eq!(bad.verdict, Verdict::Wrong);
        assert!(bad.detail.contains("not a 2x2 grid"));
    }

    #[test]
    fn no_answers_for_an_unsatisfiable_puzzle_pass() {
        assert_eq!(
            judge(&case(vec![]), &run(vec![], End::Complete)).verdict,
            Verdict::Pass
        );
        assert_eq!(
            judge(&case(vec![]), &run(vec![a()], End::Complete)).verdict,
            Verdict::Wrong
        );
    }
}
