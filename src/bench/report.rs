//! Per-group summaries of a benchmark run, and the table a person reads.

use comfy_table::presets::{ASCII_MARKDOWN, UTF8_FULL_CONDENSED};
use comfy_table::{CellAlignment, Table};
use serde::Serialize;

use super::{percentile, EngineKind, Record, RunStatus};

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
        Some(r) => format!("×{r:.1}"),
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
}
