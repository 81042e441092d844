//! Runs the three engines (native, `kenken/3`, `plain_kenken/3`) side by side on the same puzzles.
//!
//! Puzzles are run one after another, each by every engine in turn, so that a noisy machine
//! slows all engines alike and the ratios between them hold. Every answer is checked: each grid
//! against the puzzle, the set of grids against the file's expectations (`solution`, `count`,
//! `solutions`), and the engines against each other. Engines come from [`crate::engine`]; the
//! Prolog ones run in worker processes, so that the per-puzzle timeout really bounds wall-clock
//! time.

pub mod plot;
pub mod report;

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

pub use crate::engine::EngineKind;
use crate::engine::{Engine, Isolation, Report, Request, Stats, Status};
use crate::format::Expected;
use crate::puzzle::{Grid, Puzzle};

/// A puzzle to run, with what its file expects, and the name and group it is reported under.
#[derive(Debug, Clone)]
pub struct BenchEntry {
    /// The puzzle.
    pub puzzle: Puzzle,
    /// What its file says about its answers.
    pub expected: Expected,
    /// The name it is reported under.
    pub name: String,
    /// The group it is summarized in.
    pub group: String,
}

/// How to run a benchmark.
#[derive(Debug, Clone)]
pub struct Config {
    /// Engines to run, in order.
    pub engines: Vec<EngineKind>,
    /// Wall-clock bound per solve.
    pub timeout: Duration,
    /// Solves per engine and puzzle; the reported time is their median.
    pub repeat: usize,
    /// Threads the native engine may use per puzzle ([`Request::threads`]).
    pub threads: usize,
}

/// How one engine did on one puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Found solutions, all checked.
    Solved,
    /// Proved there is none.
    NoSolution,
    /// Stopped by the timeout (or the inference limit).
    Timeout,
    /// A wrong answer: a grid that breaks the puzzle, a count that contradicts the file or the
    /// other engines.
    Wrong,
    /// The engine failed (see the message).
    Error,
}

impl RunStatus {
    /// Whether the engine finished with an answer (right or wrong) in time.
    pub fn finished(self) -> bool {
        matches!(
            self,
            RunStatus::Solved | RunStatus::NoSolution | RunStatus::Wrong
        )
    }
}

/// One engine × puzzle result.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    /// The puzzle's name.
    pub puzzle: String,
    /// Its group.
    pub group: String,
    /// Its grid size.
    pub size: usize,
    /// The engine.
    pub engine: EngineKind,
    /// How the engine did.
    pub status: RunStatus,
    /// Grids found (at most the solve's limit).
    pub solutions: usize,
    /// Whether every solution was enumerated.
    pub complete: bool,
    /// Median time of the repeats in milliseconds; `None` when it timed out or failed.
    pub time_ms: Option<f64>,
    /// Every repeat's time in milliseconds.
    pub times_ms: Vec<f64>,
    /// Median over the repeats of the CPU time in milliseconds the engine itself spent on
    /// the goal (`Stats::cpu_us`), where it says; `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// The engine's start in milliseconds (a worker's process start and the program's load),
    /// paid once per run and in none of the times above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<f64>,
    /// What was wrong, or the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Search statistics of the first run.
    pub stats: Stats,
    #[serde(skip)]
    grids: Vec<Grid>,
}

/// How many grids to ask for: enough to prove uniqueness, or to check the file's `count`.
pub(crate) fn solution_limit(expected: &Expected) -> usize {
    let known = expected
        .count
        .map(|c| usize::try_from(c).unwrap_or(usize::MAX - 1))
        .or(expected.solutions.as_ref().map(Vec::len))
        .unwrap_or(1);
    known.saturating_add(1).max(2)
}

/// An engine opened for a benchmark and the time its start took, or why it could not be.
type Opened = Result<(Box<dyn Engine>, f64), String>;

/// Runs every engine of `config` on every entry; `progress` is called before each solve.
pub fn run(
    entries: &[BenchEntry],
    config: &Config,
    mut progress: impl FnMut(&BenchEntry, EngineKind),
) -> Vec<Record> {
    // (the engines start at once, each on a thread of its own: a worker's start is mostly
    // waiting for its child)
    let mut engines: Vec<(EngineKind, Opened)> = std::thread::scope(|s| {
        let starts: Vec<_> = config
            .engines
            .iter()
            .map(|&k| {
                (
                    k,
                    s.spawn(move || {
                        let started = std::time::Instant::now();
                        let engine = k.open(Isolation::Worker)?;
                        Ok((engine, started.elapsed().as_secs_f64() * 1000.0))
                    }),
                )
            })
            .collect();
        starts
            .into_iter()
            .map(|(k, start)| {
                let engine = match start.join() {
                    Ok(opened) => opened.map_err(|e: crate::engine::EngineError| e.to_string()),
                    Err(_) => Err(format!("the {k} engine's start failed")),
                };
                (k, engine)
            })
            .collect()
    });
    let mut records = Vec::new();
    for entry in entries {
        let first = records.len();
        for (kind, engine) in &mut engines {
            progress(entry, *kind);
            records.push(match engine {
                Ok((engine, start_ms)) => Record {
                    start_ms: Some(*start_ms),
                    ..run_one(entry, engine.as_mut(), config)
                },
                Err(e) => Record {
                    message: Some(e.clone()),
                    ..record(entry, *kind)
                },
            });
        }
        cross_check(&mut records[first..]);
    }
    records
}

/// A record of `entry` with nothing run yet (status `Error`).
fn record(entry: &BenchEntry, engine: EngineKind) -> Record {
    Record {
        puzzle: entry.name.clone(),
        group: entry.group.clone(),
        size: entry.puzzle.size,
        engine,
        status: RunStatus::Error,
        solutions: 0,
        complete: false,
        time_ms: None,
        times_ms: Vec::new(),
        cpu_ms: None,
        start_ms: None,
        message: None,
        stats: Stats::default(),
        grids: Vec::new(),
    }
}

fn run_one(entry: &BenchEntry, engine: &mut dyn Engine, config: &Config) -> Record {
    let p = &entry.puzzle;
    let request = Request::at_most(solution_limit(&entry.expected))
        .with_timeout(config.timeout)
        .with_threads(config.threads);
    let mut record = record(entry, engine.kind());
    let mut first: Option<Report> = None;
    let mut cpus_ms = Vec::new();
    for _ in 0..config.repeat.max(1) {
        // (a spare worker starting after a timeout would slow the solve timed next)
        engine.settle();
        let report = engine.solve(p, &request);
        match report.status {
            Status::Timeout | Status::Limit => {
                record.status = RunStatus::Timeout;
                record.message = Some(if report.status == Status::Timeout {
                    "timed out".into()
                } else {
                    "inference limit reached".into()
                });
                return record;
            }
            Status::Error => {
                record.message = report.error.map(|e| format!("{}: {e}", engine.kind()));
                return record;
            }
            _ => {}
        }
        record.times_ms.push(report.elapsed_ms());
        cpus_ms.extend(report.stats.cpu_us.map(|us| us as f64 / 1000.0));
        // Every run's answers are checked, not only the first's.
        if let Some(f) = &first {
            if f.solutions != report.solutions || f.complete != report.complete {
                record.status = RunStatus::Wrong;
                record.message = Some(format!(
                    "run {} answered differently from run 1",
                    record.times_ms.len()
                ));
                return record;
            }
        } else {
            first = Some(report);
        }
    }
    let Some(a) = first else { return record };
    record.time_ms = Some(median(&record.times_ms));
    record.cpu_ms = (cpus_ms.len() == record.times_ms.len()).then(|| median(&cpus_ms));
    record.solutions = a.solutions.len();
    record.complete = a.complete;
    record.stats = a.stats;
    record.status = match verify(p, &entry.expected, &a.solutions, a.complete) {
        Err(m) => {
            record.message = Some(m);
            RunStatus::Wrong
        }
        Ok(()) if a.solutions.is_empty() => RunStatus::NoSolution,
        Ok(()) => RunStatus::Solved,
    };
    record.grids = a.solutions;
    record
}

/// Checks `grids` against the puzzle and the file's expectations.
pub(crate) fn verify(
    p: &Puzzle,
    e: &Expected,
    grids: &[Grid],
    complete: bool,
) -> Result<(), String> {
    for (i, g) in grids.iter().enumerate() {
        if !p.is_solution(g) {
            return Err(format!("grid {} breaks the puzzle: {g:?}", i + 1));
        }
        if grids[..i].contains(g) {
            return Err(format!("grid {} is given twice", i + 1));
        }
    }
    let found: BTreeSet<&Grid> = grids.iter().collect();
    if let Some(count) = e.count {
        let n = grids.len() as u64;
        if n > count || (complete && n != count) {
            let more = if complete { "" } else { " or more" };
            return Err(format!("{n}{more} solutions, the file says {count}"));
        }
    }
    if complete {
        if let Some(sols) = &e.solutions {
            if found != sols.iter().collect::<BTreeSet<_>>() {
                return Err("the solutions differ from the file's".into());
            }
        }
        if let Some(sol) = &e.solution {
            if !found.contains(sol) {
                return Err("the file's solution was not found".into());
            }
        }
    }
    Ok(())
}

/// Whether two engines' answers are consistent: both complete, the same set of grids; both
/// stopped by the limit, the same number found; one complete and one stopped, the stopped
/// one found no more grids than the complete one has, every one among them (a search that
/// stopped at two grids agrees with one that proved there are exactly two).
fn agree(a: &Record, b: &Record) -> bool {
    let sorted = |r: &Record| {
        let mut g = r.grids.clone();
        g.sort();
        g
    };
    match (a.complete, b.complete) {
        (true, true) => a.solutions == b.solutions && sorted(a) == sorted(b),
        (false, false) => a.solutions == b.solutions,
        (true, false) => b.solutions <= a.solutions && b.grids.iter().all(|g| a.grids.contains(g)),
        (false, true) => agree(b, a),
    }
}

/// Marks as wrong the engines that disagree with the one most others agree with (ties: the
/// earliest engine).
fn cross_check(records: &mut [Record]) {
    let answered: Vec<usize> = (0..records.len())
        .filter(|&i| matches!(records[i].status, RunStatus::Solved | RunStatus::NoSolution))
        .collect();
    let votes = |i: usize| {
        answered
            .iter()
            .filter(|&&j| agree(&records[i], &records[j]))
            .count()
    };
    let Some(best) = answered
        .iter()
        .copied()
        .fold(None::<usize>, |best, i| match best {
            Some(b) if votes(b) >= votes(i) => Some(b),
            _ => Some(i),
        })
    else {
        return;
    };
    let (ref_engine, ref_count, ref_complete) = {
        let r = &records[best];
        (r.engine, r.solutions, r.complete)
    };
    let wrong: Vec<usize> = answered
        .iter()
        .copied()
        .filter(|&i| !agree(&records[i], &records[best]))
        .collect();
    for i in wrong {
        let r = &mut records[i];
        let how = |n: usize, c: bool| format!("{n}{} solution(s)", if c { "" } else { "+" });
        r.message = Some(format!(
            "disagrees with {ref_engine}: {} against {}",
            how(r.solutions, r.complete),
            how(ref_count, ref_complete)
        ));
        r.status = RunStatus::Wrong;
    }
}

/// The median of `xs` (the mean of the middle two for an even count); `NaN` for none.
pub fn median(xs: &[f64]) -> f64 {
    percentile(xs, 0.5)
}

/// The `q` quantile of `xs` (0 ≤ q ≤ 1), interpolated between neighbours; `NaN` for none.
/// Infinite values (timeouts) sort last.
pub(crate) fn percentile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    if lo == hi || v[lo] == v[hi] {
        v[lo]
    } else {
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op};

    fn two_by_two() -> Puzzle {
        Puzzle::new(
            2,
            vec![
                Cage::new(Op::Add, 3, vec![Cell::new(1, 1), Cell::new(1, 2)]),
                Cage::new(Op::Add, 3, vec![Cell::new(2, 1), Cell::new(2, 2)]),
            ],
        )
    }

    fn record(engine: EngineKind, grids: Vec<Grid>, complete: bool) -> Record {
        Record {
            puzzle: "p".into(),
            group: "g".into(),
            size: 2,
            engine,
            status: if grids.is_empty() {
                RunStatus::NoSolution
            } else {
                RunStatus::Solved
            },
            solutions: grids.len(),
            complete,
            time_ms: Some(1.0),
            times_ms: vec![1.0],
            cpu_ms: None,
            start_ms: None,
            message: None,
            stats: Stats::default(),
            grids,
        }
    }

    #[test]
    fn percentiles_interpolate_and_sort_timeouts_last() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(percentile(&[1.0, f64::INFINITY], 1.0), f64::INFINITY);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn verify_catches_bad_grids_and_counts() {
        let p = two_by_two();
        let mut e = Expected::default();
        let a = vec![vec![1, 2], vec![2, 1]];
        let b = vec![vec![2, 1], vec![1, 2]];
        assert!(verify(&p, &e, &[a.clone(), b.clone()], true).is_ok());
        let bad = vec![vec![1, 1], vec![2, 2]];
        assert!(verify(&p, &e, &[bad], true).unwrap_err().contains("breaks"));
        e.count = Some(2);
        assert!(verify(&p, &e, std::slice::from_ref(&a), true)
            .unwrap_err()
            .contains("the file says 2"));
        e.count = None;
        e.solution = Some(vec![vec![3, 3], vec![3, 3]]);
        assert!(verify(&p, &e, &[a, b], true)
            .unwrap_err()
            .contains("not found"));
    }

    #[test]
    fn limit_covers_the_known_count() {
        let mut e = Expected::default();
        assert_eq!(solution_limit(&e), 2);
        e.count = Some(12);
        assert_eq!(solution_limit(&e), 13);
    }

    #[test]
    fn a_search_stopped_at_the_limit_agrees_with_one_that_proved_the_count() {
        let a = vec![vec![1, 2], vec![2, 1]];
        let b = vec![vec![2, 1], vec![1, 2]];
        let mut stopped = record(EngineKind::Native, vec![a.clone(), b.clone()], false);
        stopped.solutions = 2;
        let mut proved = record(EngineKind::Fd, vec![b.clone(), a.clone()], true);
        proved.solutions = 2;
        let mut rs = vec![stopped, proved];
        cross_check(&mut rs);
        assert!(
            rs.iter().all(|r| r.status == RunStatus::Solved),
            "{:?}",
            rs[0].message
        );
        // a stopped search with a grid the complete one lacks does not agree
        let c = vec![vec![9, 9], vec![9, 9]];
        let mut odd = record(EngineKind::Plain, vec![c], false);
        odd.solutions = 1;
        assert!(!agree(&odd, &rs[1]));
        assert!(agree(&rs[0], &rs[1]));
    }

    #[test]
    fn the_odd_engine_out_is_wrong() {
        let a = vec![vec![1, 2], vec![2, 1]];
        let b = vec![vec![2, 1], vec![1, 2]];
        let mut rs = vec![
            record(EngineKind::Native, vec![a.clone()], true),
            record(EngineKind::Fd, vec![a.clone(), b.clone()], true),
            record(EngineKind::Plain, vec![b, a], true),
        ];
        cross_check(&mut rs);
        assert_eq!(rs[0].status, RunStatus::Wrong);
        assert!(rs[0]
            .message
            .as_ref()
            .unwrap()
            .contains("disagrees with fd"));
        assert_eq!(rs[1].status, RunStatus::Solved);
        assert_eq!(rs[2].status, RunStatus::Solved);
    }

    #[test]
    fn agreeing_on_no_solution_is_not_wrong() {
        let mut rs = vec![
            record(EngineKind::Native, vec![], true),
            record(EngineKind::Fd, vec![], true),
        ];
        cross_check(&mut rs);
        assert!(rs.iter().all(|r| r.status == RunStatus::NoSolution));
    }
}
