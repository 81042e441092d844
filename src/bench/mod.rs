//! Runs the three engines (native, `kenken/3`, `plain_kenken/3`) side by side on the same puzzles.
//!
//! Puzzles are run one after another, each by every engine in turn, so that a noisy machine
//! slows all engines alike and the ratios between them hold. Every answer is checked: each grid
//! against the puzzle, the set of grids against the file's `solution`/`count`/`solutions` fields,
//! and the engines against each other. The Prolog engines run in child processes
//! ([`crate::prolog::worker`]) so that the per-puzzle timeout really bounds wall-clock time.

pub mod plot;
pub mod random;
pub mod report;

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::native::Solver;
use crate::prolog::worker::{Solve, Worker};
use crate::prolog::Predicate;
use crate::puzzle::{Grid, Puzzle};

/// One of the three solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The native Rust solver.
    Native,
    /// `kenken/3` (CLP(FD)).
    Fd,
    /// `plain_kenken/3`.
    Plain,
}

impl EngineKind {
    /// All engines, in the order they are run and reported.
    pub const ALL: [EngineKind; 3] = [EngineKind::Native, EngineKind::Fd, EngineKind::Plain];

    /// The engine's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Native => "native",
            EngineKind::Fd => "fd",
            EngineKind::Plain => "plain",
        }
    }

    /// The Prolog predicate the engine runs, if it is a Prolog engine.
    pub fn predicate(self) -> Option<Predicate> {
        match self {
            EngineKind::Native => None,
            EngineKind::Fd => Some(Predicate::Fd),
            EngineKind::Plain => Some(Predicate::Plain),
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EngineKind::ALL
            .into_iter()
            .find(|e| e.name() == s.trim())
            .ok_or_else(|| format!("unknown engine '{s}' (expected native, fd or plain)"))
    }
}

/// A puzzle to run, with the name and group it is reported under.
#[derive(Debug, Clone)]
pub struct Entry {
    pub puzzle: Puzzle,
    pub name: String,
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
    /// The program whose `worker ENGINE` command serves Prolog solves (the `kenken` binary).
    pub worker_exe: PathBuf,
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
    pub puzzle: String,
    pub group: String,
    pub size: usize,
    pub engine: EngineKind,
    pub status: RunStatus,
    /// Grids found (at most the solve's limit).
    pub solutions: usize,
    /// Whether every solution was enumerated.
    pub complete: bool,
    /// Median time of the repeats in milliseconds; `None` when it timed out or failed.
    pub time_ms: Option<f64>,
    /// Every repeat's time in milliseconds.
    pub times_ms: Vec<f64>,
    /// What was wrong, or the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip)]
    grids: Vec<Grid>,
}

/// How many grids to ask for: enough to prove uniqueness, or to check the file's `count`.
pub fn solution_limit(p: &Puzzle) -> usize {
    let known = p
        .count
        .map(|c| usize::try_from(c).unwrap_or(usize::MAX - 1))
        .or(p.solutions.as_ref().map(Vec::len))
        .unwrap_or(1);
    known.saturating_add(1).max(2)
}

/// Runs every engine of `config` on every entry; `progress` is called before each solve.
pub fn run(
    entries: &[Entry],
    config: &Config,
    mut progress: impl FnMut(&Entry, EngineKind),
) -> Vec<Record> {
    let mut workers: Vec<(EngineKind, Worker)> = config
        .engines
        .iter()
        .filter_map(|&e| {
            e.predicate().map(|_| {
                let worker = Worker::new(config.worker_exe.clone(), &["worker", e.name()]);
                (e, worker)
            })
        })
        .collect();
    let mut records = Vec::new();
    for entry in entries {
        let first = records.len();
        for &engine in &config.engines {
            progress(entry, engine);
            let worker = workers
                .iter_mut()
                .find(|(e, _)| *e == engine)
                .map(|(_, w)| w);
            records.push(run_one(entry, engine, config, worker));
        }
        cross_check(&mut records[first..]);
    }
    records
}

/// The result of one solve, before checking.
struct Attempt {
    grids: Vec<Grid>,
    complete: bool,
    elapsed_ms: f64,
}

enum Failure {
    Timeout(String),
    Error(String),
}

fn attempt(
    p: &Puzzle,
    engine: EngineKind,
    limit: usize,
    timeout: Duration,
    worker: Option<&mut Worker>,
) -> Result<Attempt, Failure> {
    match worker {
        None => {
            let start = Instant::now();
            let solver = Solver::new(p)
                .map_err(|e| Failure::Error(e.to_string()))?
                .with_deadline(Some(start + timeout));
            let s = solver.solve(Some(limit));
            let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
            if s.timed_out {
                return Err(Failure::Timeout("timed out".into()));
            }
            Ok(Attempt {
                grids: s.grids,
                complete: s.complete,
                elapsed_ms,
            })
        }
        Some(w) => match w.solve(p, Some(limit), Some(timeout)) {
            Err(e) => Err(Failure::Error(e.to_string())),
            Ok(Solve::TimedOut) => Err(Failure::Timeout("timed out".into())),
            Ok(Solve::Done(r)) => {
                if let Some(e) = r.error {
                    Err(Failure::Error(format!("{engine}: {e}")))
                } else if r.inference_limit {
                    Err(Failure::Timeout("inference limit reached".into()))
                } else {
                    Ok(Attempt {
                        grids: r.grids,
                        complete: r.complete,
                        elapsed_ms: r.elapsed_ms,
                    })
                }
            }
        },
    }
}

fn run_one(
    entry: &Entry,
    engine: EngineKind,
    config: &Config,
    mut worker: Option<&mut Worker>,
) -> Record {
    let p = &entry.puzzle;
    let limit = solution_limit(p);
    let mut record = Record {
        puzzle: entry.name.clone(),
        group: entry.group.clone(),
        size: p.size,
        engine,
        status: RunStatus::Error,
        solutions: 0,
        complete: false,
        time_ms: None,
        times_ms: Vec::new(),
        message: None,
        grids: Vec::new(),
    };
    let mut got: Option<Attempt> = None;
    for _ in 0..config.repeat.max(1) {
        match attempt(p, engine, limit, config.timeout, worker.as_deref_mut()) {
            Ok(a) => {
                record.times_ms.push(a.elapsed_ms);
                got.get_or_insert(a);
            }
            Err(Failure::Timeout(m)) => {
                record.status = RunStatus::Timeout;
                record.message = Some(m);
                return record;
            }
            Err(Failure::Error(m)) => {
                record.message = Some(m);
                return record;
            }
        }
    }
    let Some(a) = got else { return record };
    record.time_ms = Some(median(&record.times_ms));
    record.solutions = a.grids.len();
    record.complete = a.complete;
    record.status = match verify(p, &a.grids, a.complete) {
        Err(m) => {
            record.message = Some(m);
            RunStatus::Wrong
        }
        Ok(()) if a.grids.is_empty() => RunStatus::NoSolution,
        Ok(()) => RunStatus::Solved,
    };
    record.grids = a.grids;
    record
}

/// Checks `grids` against the puzzle and the file's expectations.
pub fn verify(p: &Puzzle, grids: &[Grid], complete: bool) -> Result<(), String> {
    for (i, g) in grids.iter().enumerate() {
        if !p.is_solution(g) {
            return Err(format!("grid {} breaks the puzzle: {g:?}", i + 1));
        }
        if grids[..i].contains(g) {
            return Err(format!("grid {} is given twice", i + 1));
        }
    }
    let found: BTreeSet<&Grid> = grids.iter().collect();
    if let Some(count) = p.count {
        let n = grids.len() as u64;
        if n > count || (complete && n != count) {
            let more = if complete { "" } else { " or more" };
            return Err(format!("{n}{more} solutions, the file says {count}"));
        }
    }
    if complete {
        if let Some(sols) = &p.solutions {
            if found != sols.iter().collect::<BTreeSet<_>>() {
                return Err("the solutions differ from the file's".into());
            }
        }
        if let Some(sol) = &p.solution {
            if !found.contains(sol) {
                return Err("the file's solution was not found".into());
            }
        }
    }
    Ok(())
}

/// What two engines must agree on: the complete set of grids, or the number found when the
/// limit stopped them (their orders differ, so the grids themselves may too).
fn answer_key(r: &Record) -> (bool, usize, Vec<Grid>) {
    let mut grids = if r.complete {
        r.grids.clone()
    } else {
        Vec::new()
    };
    grids.sort();
    (r.complete, r.solutions, grids)
}

/// Marks as wrong the engines that disagree with the majority (ties: the earliest engine).
fn cross_check(records: &mut [Record]) {
    let keys: Vec<Option<(bool, usize, Vec<Grid>)>> = records
        .iter()
        .map(|r| {
            matches!(r.status, RunStatus::Solved | RunStatus::NoSolution).then(|| answer_key(r))
        })
        .collect();
    let votes = |k: &(bool, usize, Vec<Grid>)| keys.iter().flatten().filter(|x| *x == k).count();
    let Some(best) = keys
        .iter()
        .flatten()
        .fold(None::<&(bool, usize, Vec<Grid>)>, |best, k| match best {
            Some(b) if votes(b) >= votes(k) => Some(b),
            _ => Some(k),
        })
        .cloned()
    else {
        return;
    };
    let reference = records
        .iter()
        .zip(&keys)
        .find(|(_, k)| k.as_ref() == Some(&best))
        .map(|(r, _)| (r.engine, r.solutions, r.complete));
    let Some((ref_engine, ref_count, ref_complete)) = reference else {
        return;
    };
    for (r, k) in records.iter_mut().zip(&keys) {
        if k.as_ref().is_some_and(|k| *k != best) {
            let how = |n: usize, c: bool| format!("{n}{} solution(s)", if c { "" } else { "+" });
            r.message = Some(format!(
                "disagrees with {ref_engine}: {} against {}",
                how(r.solutions, r.complete),
                how(ref_count, ref_complete)
            ));
            r.status = RunStatus::Wrong;
        }
    }
}

/// The median of `xs` (the mean of the middle two for an even count); `NaN` for none.
pub fn median(xs: &[f64]) -> f64 {
    percentile(xs, 0.5)
}

/// The `q` quantile of `xs` (0 ≤ q ≤ 1), interpolated between neighbours; `NaN` for none.
/// Infinite values (timeouts) sort last.
pub fn percentile(xs: &[f64], q: f64) -> f64 {
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
            message: None,
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
        let mut p = two_by_two();
        let a = vec![vec![1, 2], vec![2, 1]];
        let b = vec![vec![2, 1], vec![1, 2]];
        assert!(verify(&p, &[a.clone(), b.clone()], true).is_ok());
        let bad = vec![vec![1, 1], vec![2, 2]];
        assert!(verify(&p, &[bad], true).unwrap_err().contains("breaks"));
        p.count = Some(2);
        assert!(verify(&p, std::slice::from_ref(&a), true)
            .unwrap_err()
            .contains("the file says 2"));
        p.count = None;
        p.solution = Some(vec![vec![3, 3], vec![3, 3]]);
        assert!(verify(&p, &[a, b], true).unwrap_err().contains("not found"));
    }

    #[test]
    fn limit_covers_the_known_count() {
        let mut p = two_by_two();
        assert_eq!(solution_limit(&p), 2);
        p.count = Some(12);
        assert_eq!(solution_limit(&p), 13);
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
