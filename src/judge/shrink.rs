//! The smallest failing puzzle: a failing case shrunk, as property testers shrink.
//!
//! From the smallest failing case of a judgement, the shrink tries smaller puzzles (a smaller
//! grid cut from the puzzle's corners, one cage alone, a cage left out, two neighbouring cages
//! merged), keeps the smallest that still fails the same way ([`Failure`]: a wrong answer, a
//! missing answer, an answer given twice, the wrong order, an error, a halt, a crash, a hang),
//! and goes on from it until no smaller puzzle fails so or the time given is spent.
//!
//! Every try runs the judged file exactly as the suite does, confined, through [`super::judge`]
//! (a batch of tries is one judgement of a puzzle suite): each try is bounded by the case
//! time limit (less when little time is left), and the whole shrink by its budget. Before
//! shrinking, the failing case runs three times in one engine: a file that fails differently
//! on each run (random, time-dependent) is reported as not reproducible, and not shrunk. The
//! smallest puzzle found runs twice more in a fresh engine at the end, for the same reason.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::run::judge_until;
use super::suite;
use super::{CaseReport, Config, Judgement, Suite, Verdict};
use crate::format::{prolog, Entry};
use crate::prolog::Predicate;
use crate::puzzle::{Cage, Cell, Grid, Op, Puzzle};

/// How a case fails, as the shrink keeps it: a smaller puzzle must fail the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// An answer that is not a solution (or not a grid).
    WrongAnswer,
    /// A solution not given (and no answer that is not one).
    MissingAnswer,
    /// A solution given more than once.
    ExtraAnswer,
    /// The right answers in another order than the spec's.
    Order,
    /// An uncaught exception (or a built-in the judge does not support).
    Error,
    /// The judged code called `halt`.
    Halted,
    /// The engine died.
    Crashed,
    /// No end within the time limit on a grid up to 3x3.
    Hang,
}

impl Failure {
    /// How `report` fails; `None` for a pass, a timeout on a larger grid or a skip.
    pub fn of(report: &CaseReport) -> Option<Failure> {
        Some(match report.verdict {
            Verdict::Pass | Verdict::Timeout | Verdict::Skipped => return None,
            Verdict::Wrong if report.extra.is_empty() && !report.missing.is_empty() => {
                Failure::MissingAnswer
            }
            Verdict::Wrong => Failure::WrongAnswer,
            Verdict::Duplicate => Failure::ExtraAnswer,
            Verdict::Order => Failure::Order,
            Verdict::Error => Failure::Error,
            Verdict::Halted => Failure::Halted,
            Verdict::Crashed => Failure::Crashed,
            Verdict::Hang => Failure::Hang,
        })
    }

    /// The failure in words: `wrong answer`, `missing answer`, ...
    pub fn name(self) -> &'static str {
        match self {
            Failure::WrongAnswer => "wrong answer",
            Failure::MissingAnswer => "missing answer",
            Failure::ExtraAnswer => "extra answer (a solution given twice)",
            Failure::Order => "answers in the wrong order",
            Failure::Error => "error",
            Failure::Halted => "halt",
            Failure::Crashed => "crash",
            Failure::Hang => "hang",
        }
    }
}

/// The smallest failing puzzle found for a file.
#[derive(Debug, Clone, Serialize)]
pub struct Counterexample {
    /// The predicate that fails (`kenken` or `plain_kenken`).
    pub predicate: &'static str,
    /// How it fails.
    pub failure: Failure,
    /// Whether the file failed the same way on every run of the puzzle; `false`: it behaves
    /// differently from run to run (random, time-dependent), and the puzzle is the failing case
    /// as it was, not shrunk.
    pub reproducible: bool,
    /// The puzzle in the spec's syntax, as a `kenken_testcase(N, C).` fact (a suite file:
    /// `--suite` reads it).
    pub puzzle: String,
    /// The goal that fails, as the judge ran it.
    pub goal: String,
    /// The grid's side.
    pub size: usize,
    /// How many cages.
    pub cages: usize,
    /// The verdict on the puzzle.
    pub verdict: Verdict,
    /// Why, in words.
    pub detail: String,
    /// An expected answer (the nearest one to the file's answer), if the puzzle has any.
    pub expected: Option<Grid>,
    /// The file's answer shown beside it: one that is not a solution, or one given twice.
    pub answer: Option<Grid>,
    /// The cells `[row, col]` (1-based) where the file's answer differs from the expected one,
    /// or, with no expected answer, the cells of the cages it does not meet.
    pub differ: Vec<[usize; 2]>,
    /// The failing case it was shrunk from, and that case's side.
    pub from_case: String,
    /// The side of the case it was shrunk from.
    pub from_size: usize,
    /// How many puzzles were run while shrinking.
    pub tries: usize,
    /// Wall-clock time of the shrink, in seconds.
    pub elapsed_s: f64,
    /// Whether the shrink ended because no smaller puzzle fails the same way (`false`: the
    /// time given ran out first).
    pub complete: bool,
    /// The puzzle itself.
    #[serde(skip)]
    pub shape: Puzzle,
}

impl Counterexample {
    /// The report's section for people: what fails, the puzzle in the spec's syntax, and the
    /// grid drawn as `kenken show` draws it, with the expected answer and the file's side by
    /// side (the cells that differ marked `*`).
    pub fn text(&self) -> String {
        let how = if !self.reproducible {
            format!("the failing case \"{}\" as it was", self.from_case)
        } else {
            format!(
                "shrunk from \"{}\", {}x{}, in {} tries, {:.1} s{}",
                self.from_case,
                self.from_size,
                self.from_size,
                self.tries,
                self.elapsed_s,
                if self.complete {
                    ""
                } else {
                    "; time ran out before the smallest"
                }
            )
        };
        let mut s = format!(
            "smallest failing puzzle: {}/3, {} ({}x{}, {}; {how})\n",
            self.predicate,
            self.failure.name(),
            self.size,
            self.size,
            super::verdict::plural(self.cages, "cage"),
        );
        if !self.reproducible {
            s.push_str(
                "  NOT REPRODUCIBLE: the file answered differently when the same case ran \
                 again (random or time-dependent?); this is the failing case as it was\n",
            );
        }
        s.push_str(&format!("  ?- {}.\n", self.goal));
        s.push_str(&format!("  {}\n", self.detail));
        let draw = |g: Option<&Grid>, mark: bool| -> String {
            let texts: Option<Vec<Vec<String>>> = g.map(|g| {
                g.iter()
                    .enumerate()
                    .map(|(r, row)| {
                        row.iter()
                            .enumerate()
                            .map(|(c, v)| {
                                let marked = mark && self.differ.contains(&[r + 1, c + 1]);
                                format!("{v}{}", if marked { "*" } else { "" })
                            })
                            .collect()
                    })
                    .collect()
            });
            crate::render::render_text(
                &self.shape,
                texts.as_deref(),
                crate::render::Style::default(),
            )
        };
        let mut columns = Vec::new();
        match &self.expected {
            Some(e) => columns.push(("expected".to_string(), draw(Some(e), false))),
            None => columns.push(("the puzzle (no solution)".to_string(), draw(None, false))),
        }
        match &self.answer {
            Some(a) => columns.push(("the file's answer".to_string(), draw(Some(a), true))),
            None if self.failure == Failure::MissingAnswer => {
                columns.push(("the file: not given".to_string(), String::new()));
            }
            None => {}
        }
        s.push_str(&side_by_side(&columns));
        if !self.differ.is_empty() && self.answer.is_some() {
            s.push_str("  (* marks the cells that differ)\n");
        }
        s
    }
}

/// Drawings side by side, each under its title, indented.
fn side_by_side(columns: &[(String, String)]) -> String {
    let width = |t: &str| t.chars().count();
    let blocks: Vec<Vec<&str>> = columns
        .iter()
        .map(|(title, body)| {
            let mut lines = vec![title.as_str()];
            lines.extend(body.lines());
            lines
        })
        .collect();
    let widths: Vec<usize> = blocks
        .iter()
        .map(|b| b.iter().map(|l| width(l)).max().unwrap_or(0))
        .collect();
    let height = blocks.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..height {
        let mut line = String::from("  ");
        for (b, w) in blocks.iter().zip(&widths) {
            let l = b.get(i).copied().unwrap_or("");
            line.push_str(l);
            line.extend(std::iter::repeat_n(' ', w - width(l) + 4));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Runs a batch of puzzles for one predicate, each bounded by the given time, in order; with a
/// failure given, up to the first puzzle that fails so (the rest are not run): each puzzle's
/// report, in the batch's order (`None` where it was not run); `None` when the batch could
/// not be run at all.
pub(crate) type Runner<'a> =
    dyn FnMut(&[Puzzle], Duration, Option<Failure>) -> Option<Vec<Option<CaseReport>>> + 'a;

/// Shrinks the smallest failing case of `judgement` (of `file`, judged with `config`) within
/// `budget`; `None` when no case failed, or no failing case fails again when run alone.
pub fn shrink(
    file: &Path,
    config: &Config,
    judgement: &Judgement,
    budget: Duration,
) -> Option<Counterexample> {
    let start = Instant::now();
    let by_predicate = |predicate: Predicate| {
        let base = Config {
            system: Some(judgement.system),
            dialect: Some(judgement.dialect),
            predicates: vec![predicate],
            seed: None,
            // (its tries are named otherwise: "try 0", ...)
            only: Vec::new(),
            jobs: config.jobs.min(4),
            ..config.clone()
        };
        move |puzzles: &[Puzzle], per_try: Duration, until: Option<Failure>| {
            let entries: Vec<Entry> = puzzles
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut p = p.bare();
                    p.name = Some(format!("try {i}"));
                    Entry::new(p, 0)
                })
                .collect();
            let config = Config {
                suite: Suite::Puzzles(entries),
                max_size: Some(puzzles.iter().map(|p| p.size).max().unwrap_or(1).max(1)),
                timeout: per_try,
                ..base.clone()
            };
            // (in order, up to the first that fails as the case did: the rest are not run)
            let stop = |r: &CaseReport| until.is_some() && Failure::of(r) == until;
            let j = judge_until(file, &config, &stop).ok()?;
            Some(
                (0..puzzles.len())
                    .map(|i| {
                        let name = format!("try {i}");
                        j.cases
                            .iter()
                            .find(|c| c.case == name && c.verdict != Verdict::Skipped)
                            .cloned()
                    })
                    .collect(),
            )
        }
    };
    shrink_with(judgement, config.timeout, budget, start, &mut |p| {
        Box::new(by_predicate(p))
    })
}

/// Shrinks every failing file of a class ([`shrink`] each, `jobs` at a time): a counterexample
/// per file, in the files' order (`None` for a file that passed or was not judged).
pub fn shrink_class(
    files: &[(std::path::PathBuf, &Result<Judgement, super::JudgeError>)],
    config: &Config,
    jobs: usize,
    budget: Duration,
) -> Vec<Option<Counterexample>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(vec![None; files.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, files.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((file, result)) = files.get(i) else {
                    return;
                };
                let Ok(j) = result else { continue };
                if j.exit_code() != 1 {
                    continue;
                }
                let one = Config {
                    jobs: 1,
                    ..config.clone()
                };
                let c = shrink(file, &one, j, budget);
                if let Ok(mut f) = found.lock() {
                    f[i] = c;
                }
            });
        }
    });
    found.into_inner().unwrap_or_default()
}

/// The shrink, with the way a batch runs given (a fake one in the unit tests).
pub(crate) fn shrink_with<'a>(
    judgement: &Judgement,
    timeout: Duration,
    budget: Duration,
    start: Instant,
    runner_for: &mut dyn FnMut(Predicate) -> Box<Runner<'a>>,
) -> Option<Counterexample> {
    let mut failing: Vec<(&CaseReport, Failure, Puzzle, Predicate)> = judgement
        .cases
        .iter()
        .filter_map(|c| {
            let failure = Failure::of(c)?;
            let (predicate, puzzle) = puzzle_of_goal(&c.goal)?;
            Some((c, failure, puzzle, predicate))
        })
        .collect();
    failing.sort_by_key(|(_, _, p, _)| measure(p));
    let mut tries = 0;
    for (case, failure, puzzle, predicate) in failing.into_iter().take(3) {
        let mut run = runner_for(predicate);
        let left = budget.saturating_sub(start.elapsed());
        // a try's limit: ten times the failing case's time and what loading the file again
        // took in the suite (at least a second, at most the case limit); for a hang, the case
        // limit, or less when little time is left
        let limit = match case.elapsed_ms {
            Some(ms) if failure != Failure::Hang => Duration::from_secs_f64(
                (ms / 100.0 + load_time(judgement).as_secs_f64())
                    .clamp(1.0, timeout.as_secs_f64().max(1.0)),
            ),
            // (a hang runs to its limit: three times, then twice more in the end)
            _ => try_limit(timeout, left / 2),
        };
        if case
            .elapsed_ms
            .is_some_and(|ms| 3.0 * ms / 1000.0 > left.as_secs_f64())
            || run_time(3, limit) + run_time(CHECK_RUNS, limit) > left
        {
            // (too slow to run three times, and then check, in the time left)
            continue;
        }
        let repeats = vec![puzzle.clone(); 3];
        tries += 3;
        let Some(reports) = run(&repeats, limit, None) else {
            continue;
        };
        let reports: Vec<&CaseReport> = reports.iter().flatten().collect();
        if reports.len() < 3
            || (failure != Failure::Hang && reports.iter().any(|r| r.verdict == Verdict::Timeout))
        {
            // (not run, or too slow now to tell: the next failing case)
            continue;
        }
        let classes: Vec<Option<Failure>> = reports.iter().map(|r| Failure::of(r)).collect();
        let given_rows = case.goal.starts_with("T = ");
        if classes.iter().all(Option::is_none) && given_rows {
            // (it fails only with the rows of T it was given: try the next failing case)
            continue;
        }
        let same = classes.iter().all(|c| *c == Some(failure))
            && reports.windows(2).all(|w| same_outcome(w[0], w[1]));
        let mut found = Counterexample::of(
            &puzzle,
            predicate,
            failure,
            reports.first().copied().unwrap_or(case),
            case,
        );
        if !same {
            found.reproducible = false;
            found.tries = tries;
            found.elapsed_s = start.elapsed().as_secs_f64();
            return Some(found);
        }
        let puzzle_as_it_was = puzzle.clone();
        let mut current = puzzle;
        let mut complete = false;
        'shrinking: loop {
            let mut pending = candidates(&current);
            while !pending.is_empty() {
                // (the time the last check needs is kept for it)
                let left = budget
                    .saturating_sub(start.elapsed())
                    .saturating_sub(run_time(CHECK_RUNS, limit));
                let per_try = try_limit(limit, left);
                if !fits(1, per_try, left) {
                    break 'shrinking;
                }
                // as many as fit in the time left if every one, and the file's load before
                // them, ran to its limit
                let most = ((left.as_secs_f64() / per_try.as_secs_f64()).floor() as usize)
                    .saturating_sub(1)
                    .max(1);
                let rest = pending.split_off(most.min(pending.len()));
                let batch = std::mem::replace(&mut pending, rest);
                let Some(reports) = run(&batch, per_try, Some(failure)) else {
                    break 'shrinking;
                };
                tries += reports.iter().flatten().count();
                let smaller = batch
                    .into_iter()
                    .zip(reports)
                    .find(|(_, r)| r.as_ref().and_then(Failure::of) == Some(failure));
                if let Some((p, Some(r))) = smaller {
                    current = p;
                    found = Counterexample::of(&current, predicate, failure, &r, case);
                    continue 'shrinking;
                }
            }
            complete = true;
            break;
        }
        // the puzzle found, twice more as cases of a suite in a fresh engine: the same failure
        // each time; and no case of the judgement with the same goal passed (a file that
        // fails a puzzle only while it is shrunk has its failing case reported as it was)
        tries += CHECK_RUNS;
        let again = run(&vec![current.clone(); CHECK_RUNS], limit, None);
        let again: Vec<CaseReport> = again.into_iter().flatten().flatten().collect();
        let passed_in_suite = judgement
            .cases
            .iter()
            .any(|c| c.verdict == Verdict::Pass && c.goal == found.goal);
        let reproducible = again.len() == CHECK_RUNS
            && again.iter().all(|r| Failure::of(r) == Some(failure))
            && again.windows(2).all(|w| same_outcome(&w[0], &w[1]))
            && !passed_in_suite;
        if !reproducible {
            found = Counterexample::of(&puzzle_as_it_was, predicate, failure, case, case);
        }
        found.reproducible = reproducible;
        found.complete = complete && reproducible;
        found.tries = tries;
        found.elapsed_s = start.elapsed().as_secs_f64();
        return Some(found);
    }
    None
}

/// About what loading the file took in `judgement`, per load (its engine's start included):
/// the judgement's time less its goals', shared by its cases and its first load. A try loads
/// the file again in a fresh process, within its limit.
fn load_time(judgement: &Judgement) -> Duration {
    let goals: f64 = judgement.cases.iter().filter_map(|c| c.elapsed_ms).sum();
    let loads = judgement.cases.len() as f64 + 1.0;
    Duration::from_secs_f64(((judgement.elapsed_s * 1000.0 - goals) / loads / 1000.0).max(0.0))
}

/// How many times the puzzle found runs again, at the end, before it is reported.
const CHECK_RUNS: usize = 2;

/// The longest a batch of `runs` tries of `per_try` each takes: the file's load, then each
/// try (each try's limit covers its load in a fresh engine too).
fn run_time(runs: usize, per_try: Duration) -> Duration {
    per_try * (runs as u32 + 1)
}

/// Whether a batch of `runs` tries of `per_try` each ends within `left` ([`run_time`]).
fn fits(runs: usize, per_try: Duration, left: Duration) -> bool {
    run_time(runs, per_try) <= left
}

/// The time limit of one try: the case limit, or less when little of the budget is left (at
/// least a second).
fn try_limit(timeout: Duration, left: Duration) -> Duration {
    timeout
        .min(left / 4)
        .max(Duration::from_secs(1))
        .min(timeout)
}

/// Whether two runs of the same puzzle ended the same: the same verdict and, unless it is a
/// hang, the same answers.
fn same_outcome(a: &CaseReport, b: &CaseReport) -> bool {
    a.verdict == b.verdict
        && (a.verdict == Verdict::Hang
            || (a.answers == b.answers
                && a.missing == b.missing
                && a.extra == b.extra
                && a.duplicates == b.duplicates))
}

/// The predicate and puzzle of a goal as the suite writes it (`kenken(N, C, T)`, after
/// `T = [...], ` when rows of `T` are given: those are left out).
fn puzzle_of_goal(goal: &str) -> Option<(Predicate, Puzzle)> {
    let (predicate, at) = [Predicate::Plain, Predicate::Fd]
        .into_iter()
        .find_map(|p| Some((p, goal.find(&format!("{}(", p.name()))?)))?;
    let call = &goal[at + predicate.name().len()..];
    let entries = prolog::read(&format!("kenken{call}.")).ok()?;
    let puzzle = entries.into_iter().next()?.puzzle;
    Some((predicate, puzzle.bare()))
}

/// How big a puzzle is, for the shrink: side, cages, cells in cages, then the targets.
fn measure(p: &Puzzle) -> (usize, usize, usize, u64) {
    (
        p.size,
        p.cages.len(),
        p.cages.iter().map(|c| c.cells.len()).sum(),
        p.cages.iter().map(|c| c.target).sum(),
    )
}

/// Smaller puzzles than `p`, smallest first: each valid, with at most
/// [`suite::MAX_EXPECTED`] answers, none twice.
fn candidates(p: &Puzzle) -> Vec<Puzzle> {
    let n = p.size;
    let solution = suite::expected(p).and_then(|s| s.into_iter().next());
    let mut out: Vec<Puzzle> = Vec::new();
    // smaller grids, cut from the corners: the cages inside, as they are and with targets
    // made again from a Latin square of the smaller side
    for k in 1..n {
        for (r0, c0) in [(0, 0), (n - k, n - k), (0, n - k), (n - k, 0)] {
            let inside: Vec<Cage> = p
                .cages
                .iter()
                .filter(|c| {
                    c.cells.iter().all(|x| {
                        (r0 + 1..=r0 + k).contains(&x.row) && (c0 + 1..=c0 + k).contains(&x.col)
                    })
                })
                .map(|c| {
                    let cells = c
                        .cells
                        .iter()
                        .map(|x| Cell::new(x.row - r0, x.col - c0))
                        .collect();
                    Cage::new(c.op, c.target, cells)
                })
                .collect();
            let kept = Puzzle::new(k, inside.clone());
            out.push(retargeted(&kept, &cyclic(k)));
            out.push(retargeted(&kept, &crate::random::puzzle(k, 1).1));
            out.push(kept);
        }
    }
    // one cage alone
    for c in &p.cages {
        out.push(Puzzle::new(n, vec![c.clone()]));
    }
    // a cage left out
    for i in 0..p.cages.len() {
        let mut cages = p.cages.clone();
        cages.remove(i);
        out.push(Puzzle::new(n, cages));
    }
    // two neighbouring cages merged into one sum (or product)
    if let Some(s) = &solution {
        for i in 0..p.cages.len() {
            for j in i + 1..p.cages.len() {
                if !touching(&p.cages[i], &p.cages[j]) {
                    continue;
                }
                let mut cells = p.cages[i].cells.clone();
                cells.extend(p.cages[j].cells.iter().copied());
                let mut cages = p.cages.clone();
                cages.remove(j);
                for op in [Op::Add, Op::Mul] {
                    cages[i] = retarget(&Cage::new(op, 0, cells.clone()), s);
                    out.push(Puzzle::new(n, cages.clone()));
                }
            }
        }
    }
    let limit = measure(p);
    let mut seen = std::collections::HashSet::new();
    out.retain(|q| {
        measure(q) < limit
            && q.check().is_ok()
            && seen.insert((q.size, q.cages.clone()))
            && suite::expected(q).is_some()
    });
    out.sort_by_key(measure);
    out
}

/// Whether two cages have neighbouring cells.
fn touching(a: &Cage, b: &Cage) -> bool {
    a.cells.iter().any(|x| {
        b.cells
            .iter()
            .any(|y| x.row.abs_diff(y.row) + x.col.abs_diff(y.col) == 1)
    })
}

/// The cyclic Latin square of side `k`.
fn cyclic(k: usize) -> Grid {
    (0..k)
        .map(|r| (0..k).map(|c| ((r + c) % k + 1) as u32).collect())
        .collect()
}

/// `p` with every cage's target made from the values `square` gives its cells (an operator
/// those values do not meet exactly, a `/` with a remainder, becomes `+`).
fn retargeted(p: &Puzzle, square: &Grid) -> Puzzle {
    Puzzle::new(
        p.size,
        p.cages.iter().map(|c| retarget(c, square)).collect(),
    )
}

fn retarget(c: &Cage, square: &Grid) -> Cage {
    let values: Vec<u64> = c
        .cells
        .iter()
        .map(|x| u64::from(square[x.row - 1][x.col - 1]))
        .collect();
    match c.op {
        Op::Given | Op::Unknown if values.len() == 1 => Cage::new(c.op, values[0], c.cells.clone()),
        op => match op.apply(&values) {
            Some(t) => Cage::new(op, t, c.cells.clone()),
            None => Cage::new(Op::Add, values.iter().sum(), c.cells.clone()),
        },
    }
}

impl Counterexample {
    /// The counterexample of `puzzle`, failing as `report` says (shrunk from `from`).
    fn of(
        puzzle: &Puzzle,
        predicate: Predicate,
        failure: Failure,
        report: &CaseReport,
        from: &CaseReport,
    ) -> Counterexample {
        let solutions = suite::expected(puzzle).unwrap_or_default();
        let answer = report.extra.first().or(report.duplicates.first()).cloned();
        let expected = match &answer {
            Some(a) => solutions
                .iter()
                .min_by_key(|s| differing(s, a).len())
                .cloned(),
            None => report.missing.first().or(solutions.first()).cloned(),
        };
        let differ = match (&expected, &answer) {
            (Some(e), Some(a)) => differing(e, a),
            (None, Some(a)) => unmet_cells(puzzle, a),
            _ => Vec::new(),
        };
        let cages: Vec<String> = puzzle.cages.iter().map(prolog::cage_text).collect();
        let mut named = puzzle.bare();
        named.name = Some(format!(
            "smallest failing puzzle ({}/3: {})",
            predicate.name(),
            failure.name()
        ));
        Counterexample {
            predicate: predicate.name(),
            failure,
            reproducible: true,
            puzzle: prolog::write(&named).unwrap_or_default(),
            goal: format!(
                "{}({}, [{}], T)",
                predicate.name(),
                puzzle.size,
                cages.join(", ")
            ),
            size: puzzle.size,
            cages: puzzle.cages.len(),
            verdict: report.verdict,
            detail: report.detail.clone(),
            expected,
            answer,
            differ,
            from_case: from.case.clone(),
            from_size: from.size,
            tries: 0,
            elapsed_s: 0.0,
            complete: false,
            shape: puzzle.bare(),
        }
    }
}

/// The cells where two grids differ (1-based), row by row; every cell when their shapes differ.
fn differing(a: &Grid, b: &Grid) -> Vec<[usize; 2]> {
    let n = a.len().max(b.len());
    let mut out = Vec::new();
    for r in 0..n {
        let m = a
            .get(r)
            .map_or(0, Vec::len)
            .max(b.get(r).map_or(0, Vec::len));
        for c in 0..m {
            if a.get(r).and_then(|x| x.get(c)) != b.get(r).and_then(|x| x.get(c)) {
                out.push([r + 1, c + 1]);
            }
        }
    }
    out
}

/// The cells of the cages `grid` does not meet.
fn unmet_cells(p: &Puzzle, grid: &Grid) -> Vec<[usize; 2]> {
    let mut out: Vec<[usize; 2]> = Vec::new();
    for cage in &p.cages {
        let values: Option<Vec<u64>> = cage
            .cells
            .iter()
            .map(|x| Some(u64::from(*grid.get(x.row - 1)?.get(x.col - 1)?)))
            .collect();
        if values.is_none_or(|v| !cage.op.holds(cage.target, &v)) {
            out.extend(cage.cells.iter().map(|x| [x.row, x.col]));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests;
