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
pub enum JudgedAnswer {
    /// `T` was an N x N grid of integers.
    Grid(Grid),
    /// `T` was something else, as Prolog writes it (cut short).
    Bad(String),
}

/// How a run of a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    /// Every answer was given.
    Complete,
    /// More answers than were asked for (the cap, `answers_wanted`): the run was stopped
    /// after that many, and there are more.
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
    /// The engine was stopped at a limit of confinement (`memory limit 2 GiB reached`).
    OverLimit(String),
}

/// What a backend gives back for one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The answers, in the order given.
    pub answers: Vec<JudgedAnswer>,
    /// How the run ended.
    pub end: RunEnd,
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
    /// The time limit passed (on a grid larger than 3x3).
    Timeout,
    /// The time limit passed on a grid up to 3x3, which any correct solver answers at once: a
    /// failure.
    Hang,
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
    pub const ALL: [Verdict; 10] = [
        Verdict::Pass,
        Verdict::Wrong,
        Verdict::Order,
        Verdict::Duplicate,
        Verdict::Timeout,
        Verdict::Hang,
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
            Verdict::Hang => "hang",
            Verdict::Skipped => "skipped",
            Verdict::Error => "error",
            Verdict::Halted => "halted",
            Verdict::Crashed => "crashed",
        }
    }

    /// A failure of the judged code (not a pass, not a limit of the judge's).
    pub(crate) fn is_failure(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Timeout | Verdict::Skipped)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The report on one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseReport {
    /// The case's name.
    pub case: String,
    /// The predicate judged (`kenken` or `plain_kenken`).
    pub predicate: &'static str,
    /// The goal run (binding `T`), as Prolog text.
    pub goal: String,
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
    /// Expected answers not given (in a run stopped at the cap: not given before it).
    pub missing: Vec<Grid>,
    /// Answers given that are not solutions.
    pub extra: Vec<Grid>,
    /// Answers given more than once.
    pub duplicates: Vec<Grid>,
    /// Wall-clock time of the goal, in milliseconds (`None` when it did not finish).
    pub elapsed_ms: Option<f64>,
    /// Why the verdict proves less than it says, when it does: a `plain_kenken/3` case run
    /// where the FD solver stays reachable (under Scryer, whose loader serves its libraries'
    /// text; GNU Prolog without `gplc`; SWI-Prolog not confined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

impl CaseReport {
    /// The report on a case that was not run.
    pub fn skipped(case: &Case, why: String) -> CaseReport {
        CaseReport {
            case: case.name.clone(),
            predicate: case.predicate.name(),
            goal: case.goal.clone(),
            size: case.size,
            verdict: Verdict::Skipped,
            detail: why,
            expected: case.expected.len(),
            answers: 0,
            missing: Vec::new(),
            extra: Vec::new(),
            duplicates: Vec::new(),
            elapsed_ms: None,
            caveat: None,
        }
    }
}

/// How many times over the judge reads the expected answers before it stops a run (at the
/// cap): a file that gives each answer up to this many times still shows every one of them. A
/// `-` cage written as `(A-B #= D ; B-A #= D)` gives each grid twice when D = 0, and with a `/`
/// cage written the same way and Q = 1, four times.
pub(super) const REPEATS_READ: usize = 4;

/// How many answers to ask for (the cap): every expected one [`REPEATS_READ`] times over, and
/// as many again as one more expected answer would add. It is always more than the expected
/// answers, so a run stopped at the cap has given an answer twice or one that is not a
/// solution. The cap also bounds the judge's time and memory on a file that never stops.
pub(super) fn answers_wanted(case: &Case) -> usize {
    (case.expected.len() + 1) * REPEATS_READ
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
pub(super) fn judge(case: &Case, run: &Run) -> CaseReport {
    let mut report = CaseReport::skipped(case, String::new());
    report.answers = run.answers.len();
    report.elapsed_ms = Some(run.elapsed.as_secs_f64() * 1000.0);
    let (verdict, detail) = match &run.end {
        RunEnd::Timeout => {
            report.elapsed_ms = None;
            (
                Verdict::Timeout,
                format!(
                    "no end within the time limit ({})",
                    plural(run.answers.len(), "answer")
                ),
            )
        }
        RunEnd::Exception(e) => (Verdict::Error, format!("uncaught exception: {e}")),
        RunEnd::Blocked(what) => (Verdict::Error, format!("{what}: not allowed while judging")),
        RunEnd::Unsupported(pi) => (
            Verdict::Error,
            format!("uses {pi}, which judge does not support"),
        ),
        RunEnd::Halted(code) => (Verdict::Halted, format!("called halt (exit code {code})")),
        RunEnd::Crashed(why) => {
            report.elapsed_ms = None;
            (Verdict::Crashed, format!("the Prolog engine died: {why}"))
        }
        RunEnd::OverLimit(limit) => {
            report.elapsed_ms = None;
            (Verdict::Crashed, limit.clone())
        }
        RunEnd::Complete | RunEnd::Limit => compare(case, run, &mut report),
    };
    report.verdict = verdict;
    report.detail = detail;
    report
}

/// Makes the report of a case that timed out on a small grid (up to 3x3) a failure that says
/// why.
pub(super) fn hang(report: &mut CaseReport) {
    let n = report.size;
    report.verdict = Verdict::Hang;
    report.detail = format!(
        "no end within the time limit on a {n}x{n} grid ({}), which any correct solver \
         answers at once: a failure (the larger grids still run)",
        plural(report.answers, "answer")
    );
}

/// Compares the answers of a run that ended normally with the expected ones.
///
/// A run that stopped at the cap ([`RunEnd::Limit`]) is not said to miss a solution it has not
/// given yet: it might have given it later. Such a run with no answer that is not a solution
/// has given some answer more than once (the cap is larger than the expected answers), and is
/// a duplicate, whether or not every solution was seen before the cap.
fn compare(case: &Case, run: &Run, report: &mut CaseReport) -> (Verdict, String) {
    if let Some((i, text)) = run.answers.iter().enumerate().find_map(|(i, a)| match a {
        JudgedAnswer::Bad(t) => Some((i, t)),
        JudgedAnswer::Grid(_) => None,
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
    let tally = Tally::of(run);
    report.duplicates = tally.repeated();
    report.missing = case
        .expected
        .iter()
        .filter(|g| !tally.seen.contains_key(g))
        .cloned()
        .collect();
    report.extra = tally
        .distinct
        .iter()
        .filter(|g| !case.expected.contains(g))
        .map(|g| (*g).clone())
        .collect();
    let at_cap = run.end == RunEnd::Limit;
    let expected = case.expected.len();
    let repeated = tally.repeated_text();
    if !report.extra.is_empty() || (!report.missing.is_empty() && (!at_cap || repeated.is_none())) {
        let mut why = Vec::new();
        if !at_cap {
            why.push(format!("{} of {expected} expected", tally.answers));
        }
        if !report.extra.is_empty() {
            why.push(format!(
                "{} not a solution, e.g. {}",
                plural(report.extra.len(), "answer"),
                grid_text(&report.extra[0])
            ));
        }
        if at_cap {
            why.push(seen_by_cap(expected, tally.answers, &report.missing));
        } else if !report.missing.is_empty() {
            why.push(format!(
                "{} missing, e.g. {}",
                plural(report.missing.len(), "answer"),
                grid_text(&report.missing[0])
            ));
        }
        why.extend(repeated);
        return (Verdict::Wrong, why.join("; "));
    }
    if let Some(repeated) = repeated {
        let count = if at_cap {
            seen_by_cap(expected, tally.answers, &report.missing)
        } else {
            format!(
                "{} for {}",
                plural(tally.answers, "answer"),
                plural(expected, "solution")
            )
        };
        return (Verdict::Duplicate, format!("{repeated}; {count}"));
    }
    match tally
        .distinct
        .iter()
        .zip(&case.expected)
        .position(|(g, e)| *g != e)
    {
        Some(at) => (
            Verdict::Order,
            format!(
                "the right answers in another order: answer {} is {}, the spec's order \
                 (row by row, smallest first) has {}",
                at + 1,
                grid_text(tally.distinct[at]),
                grid_text(&case.expected[at])
            ),
        ),
        None => (Verdict::Pass, String::new()),
    }
}

/// The grids a run gave: how many, how often each, each once in the order first given, and
/// the ones given again in the order of their second time.
struct Tally<'r> {
    answers: usize,
    seen: HashMap<&'r Grid, usize>,
    distinct: Vec<&'r Grid>,
    twice: Vec<&'r Grid>,
}

impl<'r> Tally<'r> {
    fn of(run: &'r Run) -> Tally<'r> {
        let mut tally = Tally {
            answers: 0,
            seen: HashMap::new(),
            distinct: Vec::new(),
            twice: Vec::new(),
        };
        for a in &run.answers {
            if let JudgedAnswer::Grid(g) = a {
                tally.answers += 1;
                let n = tally.seen.entry(g).or_insert(0);
                *n += 1;
                if *n == 1 {
                    tally.distinct.push(g);
                } else if *n == 2 {
                    tally.twice.push(g);
                }
            }
        }
        tally
    }

    /// Each grid given more than once, in the order of its second time.
    fn repeated(&self) -> Vec<Grid> {
        self.twice.iter().map(|g| (*g).clone()).collect()
    }

    /// What is said of the grids given more than once, if any.
    fn repeated_text(&self) -> Option<String> {
        let repeated = &self.twice;
        let first = *repeated.first()?;
        let most = self.seen.values().copied().max().unwrap_or(0);
        let who = if repeated.len() < self.distinct.len() {
            plural(repeated.len(), "answer")
        } else {
            "every answer".to_string()
        };
        let times = if repeated.len() == 1 {
            format!("{most} times")
        } else if self.seen.values().all(|&n| n == 1 || n == most) {
            format!("{most} times each")
        } else {
            format!("up to {most} times")
        };
        Some(format!(
            "{who} given more than once ({times}), e.g. {}",
            grid_text(first)
        ))
    }
}

/// What was seen of the `expected` solutions by the cap, after `answers` answers.
fn seen_by_cap(expected: usize, answers: usize, missing: &[Grid]) -> String {
    match missing.first() {
        None if expected == 0 => format!(
            "stopped at the cap of {} (there are more)",
            plural(answers, "answer")
        ),
        None if expected == 1 => format!(
            "the solution seen before the cap of {} (there are more answers)",
            plural(answers, "answer")
        ),
        None => format!(
            "all {expected} solutions seen before the cap of {} (there are more answers)",
            plural(answers, "answer")
        ),
        Some(m) => format!(
            "{} of {} not seen before the cap of {} (there are more answers), e.g. {}",
            missing.len(),
            plural(expected, "solution"),
            plural(answers, "answer"),
            grid_text(m)
        ),
    }
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

    fn run(answers: Vec<Grid>, end: RunEnd) -> Run {
        Run {
            answers: answers.into_iter().map(JudgedAnswer::Grid).collect(),
            end,
            elapsed: Duration::from_millis(3),
        }
    }

    #[test]
    fn verdicts() {
        let c = case(vec![a(), b()]);
        let v = |answers, end| judge(&c, &run(answers, end));
        assert_eq!(v(vec![a(), b()], RunEnd::Complete).verdict, Verdict::Pass);
        let order = v(vec![b(), a()], RunEnd::Complete);
        assert_eq!(order.verdict, Verdict::Order);
        assert!(
            order.detail.contains("answer 1 is [[2,1],[1,2]]"),
            "{}",
            order.detail
        );
        let missing = v(vec![a()], RunEnd::Complete);
        assert_eq!(missing.verdict, Verdict::Wrong);
        assert_eq!(missing.missing, vec![b()]);
        assert!(missing
            .detail
            .contains("1 of 2 expected; 1 answer missing, e.g. [[2,1],[1,2]]"));
        let dup = v(vec![a(), a(), b()], RunEnd::Complete);
        assert_eq!(
            (dup.verdict, dup.duplicates.clone()),
            (Verdict::Duplicate, vec![a()])
        );
        let extra = v(
            vec![a(), b(), vec![vec![1, 1], vec![2, 2]]],
            RunEnd::Complete,
        );
        assert_eq!(extra.verdict, Verdict::Wrong);
        assert_eq!(extra.extra.len(), 1);
        assert_eq!(v(vec![], RunEnd::Timeout).verdict, Verdict::Timeout);
        assert_eq!(v(vec![], RunEnd::Halted(0)).verdict, Verdict::Halted);
        let unsupported = v(vec![], RunEnd::Unsupported("fd_reified_in/4".into()));
        assert_eq!(unsupported.verdict, Verdict::Error);
        assert_eq!(
            unsupported.detail,
            "uses fd_reified_in/4, which judge does not support"
        );
        let bad = judge(
            &c,
            &Run {
                answers: vec![JudgedAnswer::Bad("[_A,_B]".into())],
                end: RunEnd::Complete,
                elapsed: Duration::ZERO,
            },
        );
        assert_eq!(bad.verdict, Verdict::Wrong);
        assert!(bad.detail.contains("not a 2x2 grid"));
        // what confinement refused or stopped, in words
        let blocked = v(
            vec![],
            RunEnd::Blocked("the file tried to write /home/ann/x".into()),
        );
        assert_eq!(blocked.verdict, Verdict::Error);
        assert_eq!(
            blocked.detail,
            "the file tried to write /home/ann/x: not allowed while judging"
        );
        let limit = v(
            vec![],
            RunEnd::OverLimit("memory limit 2 GiB reached".into()),
        );
        assert_eq!(
            (limit.verdict, limit.detail.as_str(), limit.elapsed_ms),
            (Verdict::Crashed, "memory limit 2 GiB reached", None)
        );
    }

    #[test]
    fn no_answers_for_an_unsatisfiable_puzzle_pass() {
        assert_eq!(
            judge(&case(vec![]), &run(vec![], RunEnd::Complete)).verdict,
            Verdict::Pass
        );
        assert_eq!(
            judge(&case(vec![]), &run(vec![a()], RunEnd::Complete)).verdict,
            Verdict::Wrong
        );
    }

    /// Grid number `i` (the verdicts do not look inside grids).
    fn g(i: u32) -> Grid {
        vec![vec![i]]
    }

    /// What a backend gives back for a file whose answers are `stream`: at most the cap
    /// ([`answers_wanted`]), and `Limit` when there were more.
    fn capped(case: &Case, stream: Vec<Grid>) -> Run {
        let cap = answers_wanted(case);
        let end = if stream.len() > cap {
            RunEnd::Limit
        } else {
            RunEnd::Complete
        };
        run(stream.into_iter().take(cap).collect(), end)
    }

    /// Each of `solutions` given `times` times, one after the other.
    fn each(solutions: &[Grid], times: usize) -> Vec<Grid> {
        solutions
            .iter()
            .flat_map(|s| std::iter::repeat_n(s.clone(), times))
            .collect()
    }

    #[test]
    fn the_cap_reads_every_answer_given_four_times() {
        let six: Vec<Grid> = (1..=6).map(g).collect();
        let c = case(six.clone());
        assert_eq!(answers_wanted(&c), 28);
        // all 24 answers read (the old cap of 14 stopped after 3 solutions)
        let four = judge(&c, &capped(&c, each(&six, 4)));
        assert_eq!(four.verdict, Verdict::Duplicate);
        assert_eq!(
            four.detail,
            "every answer given more than once (4 times each), e.g. [[1]]; \
             24 answers for 6 solutions"
        );
        assert_eq!((four.duplicates.len(), four.missing.len()), (6, 0));
        // the whole list four times over: the same
        let rounds: Vec<Grid> = (0..4).flat_map(|_| six.clone()).collect();
        assert_eq!(judge(&c, &capped(&c, rounds)).detail, four.detail);
    }

    #[test]
    fn a_run_stopped_at_the_cap_misses_nothing() {
        let six: Vec<Grid> = (1..=6).map(g).collect();
        let c = case(six.clone());
        // 5 times each: the cap (28) is reached after every solution was seen
        let five = judge(&c, &capped(&c, each(&six, 5)));
        assert_eq!(five.verdict, Verdict::Duplicate);
        assert_eq!(
            five.detail,
            "every answer given more than once (up to 5 times), e.g. [[1]]; \
             all 6 solutions seen before the cap of 28 answers (there are more answers)"
        );
        // 8 times each: two solutions not seen yet, which is not "missing"
        let eight = judge(&c, &capped(&c, each(&six, 8)));
        assert_eq!(eight.verdict, Verdict::Duplicate);
        assert_eq!(
            eight.detail,
            "every answer given more than once (up to 8 times), e.g. [[1]]; \
             2 of 6 solutions not seen before the cap of 28 answers (there are more \
             answers), e.g. [[5]]"
        );
        assert_eq!(eight.missing, vec![g(5), g(6)]);
        assert_eq!(eight.answers, 28);
        // one solution only, given forever
        let one = case(vec![g(1)]);
        let forever = judge(&one, &capped(&one, vec![g(1); 100]));
        assert_eq!(forever.verdict, Verdict::Duplicate);
        assert_eq!(
            forever.detail,
            "every answer given more than once (8 times), e.g. [[1]]; \
             the solution seen before the cap of 8 answers (there are more answers)"
        );
    }

    #[test]
    fn an_answer_that_is_not_a_solution_is_wrong_at_the_cap_or_not() {
        let c = case(vec![g(1), g(2)]);
        // complete: what is missing is missing
        let complete = judge(&c, &run(vec![g(1), g(9), g(1)], RunEnd::Complete));
        assert_eq!(complete.verdict, Verdict::Wrong);
        assert_eq!(
            complete.detail,
            "3 of 2 expected; 1 answer not a solution, e.g. [[9]]; 1 answer missing, e.g. \
             [[2]]; 1 answer given more than once (2 times), e.g. [[1]]"
        );
        // at the cap: not seen yet
        let stream: Vec<Grid> = (0..20)
            .map(|i| if i % 2 == 0 { g(1) } else { g(9) })
            .collect();
        let at_cap = judge(&c, &capped(&c, stream));
        assert_eq!(at_cap.verdict, Verdict::Wrong);
        assert_eq!(
            at_cap.detail,
            "1 answer not a solution, e.g. [[9]]; 1 of 2 solutions not seen before the cap of \
             12 answers (there are more answers), e.g. [[2]]; every answer given more than \
             once (6 times each), e.g. [[1]]"
        );
        assert!(!at_cap.detail.contains("missing"));
        // every solution seen, and one that is not
        let all = judge(&c, &capped(&c, each(&[g(1), g(2), g(9)], 5)));
        assert_eq!(all.verdict, Verdict::Wrong);
        assert!(all.detail.starts_with(
            "1 answer not a solution, e.g. [[9]]; all 2 solutions seen before the cap of 12 \
             answers (there are more answers)"
        ));
        // no solution at all, and answers without end
        let none = case(vec![]);
        assert_eq!(answers_wanted(&none), 4);
        let endless = judge(&none, &capped(&none, vec![g(9); 10]));
        assert_eq!(endless.verdict, Verdict::Wrong);
        assert_eq!(
            endless.detail,
            "1 answer not a solution, e.g. [[9]]; stopped at the cap of 4 answers (there are \
             more); every answer given more than once (4 times), e.g. [[9]]"
        );
    }

    #[test]
    fn missing_answers_and_repeats_without_the_cap_are_wrong() {
        let c = case(vec![g(1), g(2), g(3)]);
        let r = judge(&c, &run(vec![g(1), g(2), g(1), g(2)], RunEnd::Complete));
        assert_eq!(r.verdict, Verdict::Wrong);
        assert_eq!(
            r.detail,
            "4 of 3 expected; 1 answer missing, e.g. [[3]]; every answer given more than once \
             (2 times each), e.g. [[1]]"
        );
        let some = judge(
            &c,
            &run(vec![g(1), g(1), g(1), g(2), g(3)], RunEnd::Complete),
        );
        assert_eq!(some.verdict, Verdict::Duplicate);
        assert_eq!(
            some.detail,
            "1 answer given more than once (3 times), e.g. [[1]]; 5 answers for 3 \
             solutions"
        );
    }
}
