//! Per-group summaries of a benchmark run, and the table a person reads.

use comfy_table::presets::{ASCII_MARKDOWN, UTF8_FULL_CONDENSED};
use comfy_table::{CellAlignment, Table};
use serde::Serialize;

use super::{percentile, EngineKind, Record, RunStatus};
use crate::engine::SystemKind;
use crate::prolog::Predicate;

/// How group `group` went for one engine.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The group.
    pub group: String,
    /// The engine.
    pub engine: EngineKind,
    /// Puzzles run.
    pub puzzles: usize,
    /// Puzzles solved (answers checked).
    pub solved: usize,
    /// Puzzles proved to have no solution.
    pub no_solution: usize,
    /// Puzzles stopped by the timeout or the inference limit.
    pub timeout: usize,
    /// Puzzles answered wrongly.
    pub wrong: usize,
    /// Puzzles the engine failed on.
    pub error: usize,
    /// Median, 90th percentile and maximum time in ms over the puzzles that did not fail;
    /// a timeout counts as slower than anything (infinite), `None` when nothing ran.
    pub median_ms: Option<f64>,
    /// See `median_ms`.
    pub p90_ms: Option<f64>,
    /// See `median_ms`.
    pub max_ms: Option<f64>,
    /// Median over the puzzles both finished of this engine's time over the native solver's.
    pub vs_native: Option<f64>,
}

fn opt(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// Summaries per group (in first-seen order) and engine (in run order).
pub fn summarize(records: &[Record]) -> Vec<Summary> {
    let mut groups: Vec<&str> = Vec::new();
    let mut engines: Vec<EngineKind> = Vec::new();
    for r in records {
        if !groups.contains(&r.group.as_str()) {
            groups.push(&r.group);
        }
        if !engines.contains(&r.engine) {
            engines.push(r.engine);
        }
    }
    let mut out = Vec::new();
    for g in &groups {
        for &e in &engines {
            let rs: Vec<&Record> = records
                .iter()
                .filter(|r| r.group == *g && r.engine == e)
                .collect();
            if rs.is_empty() {
                continue;
            }
            let count = |s: RunStatus| rs.iter().filter(|r| r.status == s).count();
            let times: Vec<f64> = rs
                .iter()
                .filter(|r| r.status != RunStatus::Error)
                .map(|r| r.time_ms.unwrap_or(f64::INFINITY))
                .collect();
            let ratios: Vec<f64> = rs
                .iter()
                .filter_map(|r| {
                    let native = records.iter().find(|n| {
                        n.engine == EngineKind::Native && n.puzzle == r.puzzle && n.group == r.group
                    })?;
                    Some(r.time_ms? / native.time_ms?.max(1e-6))
                })
                .collect();
            out.push(Summary {
                group: g.to_string(),
                engine: e,
                puzzles: rs.len(),
                solved: count(RunStatus::Solved),
                no_solution: count(RunStatus::NoSolution),
                timeout: count(RunStatus::Timeout),
                wrong: count(RunStatus::Wrong),
                error: count(RunStatus::Error),
                median_ms: opt(percentile(&times, 0.5)),
                p90_ms: opt(percentile(&times, 0.9)),
                max_ms: opt(percentile(&times, 1.0)),
                vs_native: (e != EngineKind::Native)
                    .then(|| opt(percentile(&ratios, 0.5)))
                    .flatten(),
            });
        }
    }
    out
}

/// A time for a person: `0.052 ms`, `12.3 ms`, `4.56 s`; infinite as `> TIMEOUT`.
pub(crate) fn format_ms(ms: Option<f64>, timeout_s: f64) -> String {
    match ms {
        None => "-".into(),
        Some(x) if x.is_infinite() => format!("> {timeout_s} s"),
        Some(x) if x < 1.0 => format!("{x:.3} ms"),
        Some(x) if x < 100.0 => format!("{x:.2} ms"),
        Some(x) if x < 1000.0 => format!("{x:.0} ms"),
        Some(x) => format!("{:.2} s", x / 1000.0),
    }
}

fn format_ratio(r: Option<f64>) -> String {
    match r {
        None => "-".into(),
        Some(r) if r >= 100.0 => format!("×{r:.0}"),
        Some(r) if r >= 0.1 => format!("×{r:.1}"),
        Some(r) => format!("×{r:.3}"),
    }
}

/// The summaries as a table: box drawing, or Markdown-compatible ASCII with `ascii`.
pub fn table(summaries: &[Summary], timeout_s: f64, ascii: bool) -> Table {
    let mut t = Table::new();
    t.load_style(if ascii {
        ASCII_MARKDOWN
    } else {
        UTF8_FULL_CONDENSED
    });
    t.set_header(vec![
        "group",
        "engine",
        "puzzles",
        "solved",
        "no sol.",
        "timeout",
        "wrong",
        "error",
        "median",
        "p90",
        "max",
        "÷ native",
    ]);
    for s in summaries {
        t.add_row(vec![
            s.group.clone(),
            s.engine.to_string(),
            s.puzzles.to_string(),
            s.solved.to_string(),
            s.no_solution.to_string(),
            s.timeout.to_string(),
            s.wrong.to_string(),
            s.error.to_string(),
            format_ms(s.median_ms, timeout_s),
            format_ms(s.p90_ms, timeout_s),
            format_ms(s.max_ms, timeout_s),
            format_ratio(s.vs_native),
        ]);
    }
    for i in 2..12 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// `kenken/3` against `plain_kenken/3` on one system, at one grid size.
#[derive(Debug, Clone, Serialize)]
pub struct FdVsPlain {
    /// The Prolog system: `scryer`, `gprolog` or `swipl`.
    pub system: &'static str,
    /// The grid's side.
    pub size: usize,
    /// Puzzles of this size both engines ran.
    pub puzzles: usize,
    /// `kenken/3`'s median time in ms (a timeout counts as infinite).
    pub fd_ms: Option<f64>,
    /// `plain_kenken/3`'s median time in ms (a timeout counts as infinite).
    pub plain_ms: Option<f64>,
    /// `kenken/3`'s median inferences, where the system counts them.
    pub fd_inferences: Option<u64>,
    /// `plain_kenken/3`'s median inferences, where the system counts them.
    pub plain_inferences: Option<u64>,
    /// `kenken/3`'s median time over `plain_kenken/3`'s (below 1: FD is faster).
    pub fd_over_plain: Option<f64>,
}

/// The two engines of each Prolog system, as (system, FD, plain), in [`SystemKind::ALL`]'s
/// order.
fn systems() -> Vec<(&'static str, EngineKind, EngineKind)> {
    SystemKind::ALL
        .into_iter()
        .filter_map(|s| {
            let engine = |p: Predicate| {
                EngineKind::ALL
                    .into_iter()
                    .find(|e| e.system() == Some(s) && e.predicate() == Some(p))
            };
            Some((s.name(), engine(Predicate::Fd)?, engine(Predicate::Plain)?))
        })
        .collect()
}

/// For each system both of whose engines ran, and each grid size: `kenken/3` against
/// `plain_kenken/3` (the puzzles a run errored on are left out).
pub fn fd_vs_plain(records: &[Record]) -> Vec<FdVsPlain> {
    let mut out = Vec::new();
    for (system, fd, plain) in systems() {
        let mut sizes: Vec<usize> = records
            .iter()
            .filter(|r| r.engine == fd)
            .map(|r| r.size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        for size in sizes {
            let ran = |e: EngineKind| -> Vec<&Record> {
                records
                    .iter()
                    .filter(|r| r.engine == e && r.size == size && r.status != RunStatus::Error)
                    .collect()
            };
            let (f, p) = (ran(fd), ran(plain));
            if f.is_empty() || p.is_empty() {
                continue;
            }
            let time = |rs: &[&Record]| -> Option<f64> {
                let ts: Vec<f64> = rs
                    .iter()
                    .map(|r| r.time_ms.unwrap_or(f64::INFINITY))
                    .collect();
                opt(percentile(&ts, 0.5))
            };
            let inferences = |rs: &[&Record]| -> Option<u64> {
                let is: Vec<f64> = rs
                    .iter()
                    .filter_map(|r| r.stats.inferences.map(|i| i as f64))
                    .collect();
                (!is.is_empty()).then(|| percentile(&is, 0.5) as u64)
            };
            let (fd_ms, plain_ms) = (time(&f), time(&p));
            out.push(FdVsPlain {
                system,
                size,
                puzzles: f.len().min(p.len()),
                fd_ms,
                plain_ms,
                fd_inferences: inferences(&f),
                plain_inferences: inferences(&p),
                fd_over_plain: match (fd_ms, plain_ms) {
                    (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some(a / b.max(1e-6)),
                    (Some(a), Some(b)) if a.is_finite() && b.is_infinite() => Some(0.0),
                    (Some(a), Some(_)) if a.is_infinite() => Some(f64::INFINITY),
                    _ => None,
                },
            });
        }
    }
    out
}

/// The size from which `kenken/3` is faster than `plain_kenken/3` on `system` at that size and
/// at every larger size of the run; `None` when it never is (or the system did not run).
pub fn crossover(rows: &[FdVsPlain], system: &str) -> Option<usize> {
    let mine: Vec<&FdVsPlain> = rows.iter().filter(|r| r.system == system).collect();
    let mut from = None;
    for r in mine.iter().rev() {
        match r.fd_over_plain {
            Some(x) if x < 1.0 => from = Some(r.size),
            _ => break,
        }
    }
    from
}

/// The comparison as a table, and a line per system saying where FD overtakes plain.
pub fn fd_vs_plain_text(rows: &[FdVsPlain], timeout_s: f64, ascii: bool) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut t = Table::new();
    t.load_style(if ascii {
        ASCII_MARKDOWN
    } else {
        UTF8_FULL_CONDENSED
    });
    t.set_header(vec![
        "system",
        "size",
        "puzzles",
        "kenken/3",
        "inferences",
        "plain_kenken/3",
        "inferences",
        "fd ÷ plain",
    ]);
    let count = |i: Option<u64>| i.map_or("-".to_string(), |i| i.to_string());
    for r in rows {
        t.add_row(vec![
            r.system.to_string(),
            format!("{0}x{0}", r.size),
            r.puzzles.to_string(),
            format_ms(r.fd_ms, timeout_s),
            count(r.fd_inferences),
            format_ms(r.plain_ms, timeout_s),
            count(r.plain_inferences),
            match r.fd_over_plain {
                Some(x) if x.is_infinite() => "FD timed out".into(),
                Some(0.0) => "plain timed out".into(),
                other => format_ratio(other),
            },
        ]);
    }
    for i in 2..8 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut text = format!("kenken/3 (FD) against plain_kenken/3, median per size:\n{t}\n");
    for (system, _, _) in systems() {
        if !rows.iter().any(|r| r.system == system) {
            continue;
        }
        text.push_str(&match crossover(rows, system) {
            Some(n) => {
                format!("{system}: kenken/3 is faster than plain_kenken/3 from {n}x{n} on\n")
            }
            None => format!(
                "{system}: kenken/3 is not faster than plain_kenken/3 at the largest size run\n"
            ),
        });
    }
    text
}

/// What the layer between the caller and an engine adds: for each engine that measures its
/// own CPU time for the goal (`Record::cpu_ms`, as `time/1` in that engine would say), the
/// median over the puzzles it finished of the time reported (the call's wall-clock time, as
/// the caller sees it) over that CPU time. 1 is a layer that costs nothing; on a machine
/// busy with other work the wall clock runs ahead of any CPU time, and the ratio grows with
/// the load, not with our layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    /// The engine.
    pub engine: EngineKind,
    /// Puzzles the ratio is the median of.
    pub puzzles: usize,
    /// The median ratio.
    pub ratio: f64,
}

/// The [`Layer`] of every engine of the run that measures its own CPU time.
pub fn layer(records: &[Record]) -> Vec<Layer> {
    let mut engines: Vec<EngineKind> = Vec::new();
    for r in records {
        if !engines.contains(&r.engine) {
            engines.push(r.engine);
        }
    }
    engines
        .into_iter()
        .filter_map(|engine| {
            let ratios: Vec<f64> = records
                .iter()
                .filter(|r| r.engine == engine && r.status.finished())
                .filter_map(|r| Some(r.time_ms? / r.cpu_ms?.max(1e-3)))
                .collect();
            (!ratios.is_empty()).then(|| Layer {
                engine,
                puzzles: ratios.len(),
                ratio: percentile(&ratios, 0.5),
            })
        })
        .collect()
}

/// One line: each engine's start ([`Record::start_ms`]), left out of every time above.
pub fn starts_text(records: &[Record]) -> String {
    let mut starts: Vec<String> = Vec::new();
    let mut seen: Vec<EngineKind> = Vec::new();
    for r in records {
        if let (Some(ms), false) = (r.start_ms, seen.contains(&r.engine)) {
            seen.push(r.engine);
            starts.push(format!(
                "{} {}",
                r.engine,
                format_ms(Some(ms), f64::INFINITY)
            ));
        }
    }
    if starts.is_empty() {
        return String::new();
    }
    format!(
        "engines' start (once per run, in none of the times above): {}\n",
        starts.join(", ")
    )
}

/// One line: each engine's [`Layer`] ratio.
pub fn layer_text(layers: &[Layer]) -> String {
    if layers.is_empty() {
        return String::new();
    }
    let each: Vec<String> = layers
        .iter()
        .map(|l| {
            let s = if l.puzzles == 1 { "" } else { "s" };
            format!("{} ×{:.2} ({} puzzle{s})", l.engine, l.ratio, l.puzzles)
        })
        .collect();
    format!(
        "our layer (time reported ÷ the engine's own CPU time for the goal, median): {}\n",
        each.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_well() {
        assert_eq!(format_ms(Some(0.0521), 2.0), "0.052 ms");
        assert_eq!(format_ms(Some(12.34), 2.0), "12.34 ms");
        assert_eq!(format_ms(Some(4560.0), 2.0), "4.56 s");
        assert_eq!(format_ms(Some(f64::INFINITY), 2.0), "> 2 s");
        assert_eq!(format_ms(None, 2.0), "-");
    }

    fn row(system: &'static str, size: usize, ratio: f64) -> FdVsPlain {
        FdVsPlain {
            system,
            size,
            puzzles: 1,
            fd_ms: Some(ratio),
            plain_ms: Some(1.0),
            fd_inferences: None,
            plain_inferences: None,
            fd_over_plain: Some(ratio),
        }
    }

    #[test]
    fn the_crossover_is_where_fd_stays_faster() {
        let rows = vec![
            row("scryer", 4, 2.0),
            row("scryer", 5, 0.5),
            row("scryer", 6, 3.0),
            row("scryer", 7, 0.4),
            row("scryer", 8, 0.1),
            row("gprolog", 4, 5.0),
        ];
        // (5x5 was faster once, but 6x6 was not)
        assert_eq!(crossover(&rows, "scryer"), Some(7));
        assert_eq!(crossover(&rows, "gprolog"), None);
        assert_eq!(crossover(&rows, "swi"), None);
        let text = fd_vs_plain_text(&rows, 5.0, true);
        assert!(text.contains("scryer: kenken/3 is faster than plain_kenken/3 from 7x7 on"));
        assert!(text.contains("gprolog: kenken/3 is not faster"));
    }

    fn timed(engine: EngineKind, status: RunStatus, time_ms: f64, cpu_ms: Option<f64>) -> Record {
        Record {
            puzzle: "p".into(),
            group: "g".into(),
            size: 4,
            engine,
            status,
            solutions: 1,
            complete: true,
            time_ms: Some(time_ms),
            times_ms: vec![time_ms],
            cpu_ms,
            start_ms: None,
            message: None,
            stats: Default::default(),
            grids: Vec::new(),
        }
    }

    #[test]
    fn our_layer_is_the_median_of_time_over_the_engines_cpu() {
        let records = vec![
            timed(EngineKind::Native, RunStatus::Solved, 1.0, None),
            timed(EngineKind::Fd, RunStatus::Solved, 11.0, Some(10.0)),
            timed(EngineKind::Fd, RunStatus::Solved, 30.0, Some(10.0)),
            timed(EngineKind::Fd, RunStatus::NoSolution, 12.0, Some(10.0)),
            // (a timeout says nothing of the layer)
            timed(EngineKind::Fd, RunStatus::Timeout, 1000.0, Some(1.0)),
            timed(EngineKind::Plain, RunStatus::Solved, 2.0, Some(2.0)),
        ];
        let layers = layer(&records);
        assert_eq!(
            layers,
            vec![
                Layer {
                    engine: EngineKind::Fd,
                    puzzles: 3,
                    ratio: 1.2
                },
                Layer {
                    engine: EngineKind::Plain,
                    puzzles: 1,
                    ratio: 1.0
                },
            ]
        );
        assert_eq!(
            layer_text(&layers),
            "our layer (time reported ÷ the engine's own CPU time for the goal, median): \
             fd ×1.20 (3 puzzles), plain ×1.00 (1 puzzle)\n"
        );
        assert_eq!(layer_text(&layer(&records[..1])), "");
        let mut started = records.clone();
        started[1].start_ms = Some(471.0);
        started[2].start_ms = Some(471.0);
        started[5].start_ms = Some(12.5);
        assert_eq!(
            starts_text(&started),
            "engines' start (once per run, in none of the times above): fd 471 ms, \
             plain 12.50 ms\n"
        );
        assert_eq!(starts_text(&records), "");
    }
}
