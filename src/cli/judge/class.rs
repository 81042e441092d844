//! `judge` of a whole class: every file judged (`--jobs` at once), then a row per file as a
//! table, JSON lines, CSV, JUnit XML or one HTML page, each file with its points and every way
//! it failed.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;

use super::course::{scored, write_course};
use super::{
    caveat_line, class_seed, confinement_text, only_heading, ratio_text, seed_text, verdict_counts,
    Args, Output, CAVEAT_MARK,
};
use crate::cli::untrusted::{csv_cell, shown};
use crate::cli::{bad_input, exit_code, EXIT_FAILED, EXIT_LIMIT};
use kenken::judge::class::{judge_submissions, Class, Row};
use kenken::judge::report::points::{total, Scored, Weights};
use kenken::judge::report::rerun::rerun_command;
use kenken::judge::report::Judged;
use kenken::judge::shrink::{shrink_class_each, Counterexample};
use kenken::judge::{path_text, Config, JudgeError, Judgement};
use kenken::prolog::Predicate;

/// Judges a class: every file, `--jobs` at once, then one row per file, and one per path not
/// judged (a link out of the class folder, a second path to a file judged).
pub(super) fn run_class(
    class: &Class,
    config: &Config,
    args: &Args,
    weights: &Weights,
) -> Result<ExitCode> {
    let files = &class.files;
    let progress = args.output == Output::Table && std::io::stderr().is_terminal();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results = judge_submissions(class, config, args.jobs, |file, result| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if progress {
            let what = match result {
                Ok(j) => j.summary(),
                Err(e) => format!("{}: not judged: {e}", path_text(file)),
            };
            eprint!("\r\x1b[K[{n}/{}] {}", files.len(), shown(&what));
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let results = match results {
        Ok(r) => r,
        Err(e) => return Err(bad_input(shown(&e.to_string()))),
    };
    let mut results = results;
    for (f, r) in files.iter().zip(results.iter_mut()) {
        if let Ok(j) = r {
            // (its helpers it read: the command alone reads them with --read)
            let mut one = config.clone();
            one.read.extend(
                class
                    .helpers
                    .iter()
                    .filter(|(_, main)| main == f)
                    .map(|(h, _)| h.clone()),
            );
            j.rerun = Some(rerun_command(f, &one, &args.suite, j.system));
        }
    }
    let mut paths = files.clone();
    let mut rows: Vec<Row> = files
        .iter()
        .zip(&results)
        .map(|(f, r)| {
            let mut row = Row::of(f, r, config);
            row.helpers = class
                .helpers
                .iter()
                .filter(|(_, main)| main == f)
                .map(|(h, _)| path_text(h))
                .collect();
            // every case passed, and the form check failed: that is the first failure
            if let Ok(j) = r {
                if let Some(form) = j.form.as_ref().filter(|f| !f.passed) {
                    row.first_failure.get_or_insert_with(|| form.detail.clone());
                }
            }
            row
        })
        .collect();
    for (path, why) in &class.not_judged {
        let result = Err(JudgeError::Failed(why.clone()));
        rows.push(Row::of(path, &result, config));
        results.push(result);
        paths.push(path.clone());
    }
    let passed = rows.iter().filter(|r| r.ok).count();
    let code = if passed == rows.len() {
        0
    } else if rows
        .iter()
        .all(|r| r.exit_code == 0 || r.exit_code == EXIT_LIMIT)
    {
        EXIT_LIMIT
    } else {
        EXIT_FAILED
    };
    // (each file's shrink within what its judgement left of its budget: see
    // shrink_class_each)
    let shrink_time = Duration::from_secs_f64(args.shrink_time);
    let counterexamples = if args.shrink_time > 0.0 && args.output != Output::Csv {
        if progress {
            eprint!("\r\x1b[Kshrinking the failing files' cases...");
        }
        let judged: Vec<_> = files.iter().cloned().zip(&results).collect();
        let found = shrink_class_each(&judged, config, args.jobs, shrink_time);
        if progress {
            eprint!("\r\x1b[K");
        }
        found
    } else {
        Vec::new()
    };
    let tests: Vec<Vec<Scored>> = paths
        .iter()
        .zip(&results)
        .map(|(p, r)| scored(p, r, config, weights, args))
        .collect();
    let mut out = std::io::stdout().lock();
    match args.output {
        Output::Json => class_json(
            &mut out,
            &rows,
            &results,
            &counterexamples,
            &tests,
            config,
            code,
        )?,
        Output::Csv => class_csv(&mut out, &rows, &results, &tests, config)?,
        Output::Table => class_table(&mut out, &rows, &counterexamples, &tests, config, args)?,
        Output::Gradescope | Output::Junit | Output::Html => {
            let judged: Vec<Judged> = rows
                .iter()
                .zip(&results)
                .enumerate()
                .map(|(i, (r, result))| Judged {
                    file: &r.file,
                    result,
                    counterexamples: counterexamples.get(i).map_or(&[], Vec::as_slice),
                    tests: &tests[i],
                })
                .collect();
            write_course(&mut out, args, &judged, &rows, config)?;
        }
    }
    Ok(exit_code(code))
}

/// A class as JSON lines: a row per file (with its verdicts' counts, points and smallest
/// failing puzzles), then the class.
fn class_json(
    out: &mut impl Write,
    rows: &[Row],
    results: &[Result<Judgement, JudgeError>],
    counterexamples: &[Vec<Counterexample>],
    tests: &[Vec<Scored>],
    config: &Config,
    code: i32,
) -> Result<()> {
    for (i, (row, result)) in rows.iter().zip(results).enumerate() {
        let mut v = serde_json::to_value(row)?;
        let (score, max) = total(&tests[i]);
        v["points"] = serde_json::to_value(score)?;
        v["max_points"] = serde_json::to_value(max)?;
        if let Ok(j) = result {
            let found = counterexamples.get(i).map_or(&[][..], Vec::as_slice);
            v["verdicts"] = verdict_counts(j);
            v["elapsed_s"] = j.elapsed_s.into();
            v["warnings"] = j.warnings.clone().into();
            v["form"] = serde_json::to_value(&j.form)?;
            v["counterexample"] = serde_json::to_value(found.first())?;
            v["counterexamples"] = serde_json::to_value(found)?;
        }
        writeln!(out, "{v}")?;
    }
    let passed = rows.iter().filter(|r| r.ok).count();
    let class = serde_json::json!({"class": {
        "files": rows.len(), "passed": passed, "confined": config.confine,
        "memory": config.memory, "seed": class_seed(config), "only": config.only,
        "order": config.order.name(), "exit_code": code}});
    writeln!(out, "{class}")?;
    Ok(())
}

/// A class as CSV: a header, then a row per file (its points, every way it failed, the form
/// check, `pass`, `fail` or empty when it was not run, and the suite's seed).
fn class_csv(
    out: &mut impl Write,
    rows: &[Row],
    results: &[Result<Judgement, JudgeError>],
    tests: &[Vec<Scored>],
    config: &Config,
) -> Result<()> {
    let mut header = vec!["file".to_string()];
    for p in &config.predicates {
        header.push(format!("{}_passed", p.name()));
        header.push(format!("{}_cases", p.name()));
    }
    header.extend(
        [
            "points",
            "max_points",
            "failures",
            "first_failure",
            "kenken_ms",
            "plain_over_fd",
            "form",
            "seed",
            "exit_code",
        ]
        .map(String::from),
    );
    writeln!(out, "{}", header.join(","))?;
    let seed = class_seed(config).map_or_else(String::new, |s| s.to_string());
    for ((r, result), tests) in rows.iter().zip(results).zip(tests) {
        let mut cells = vec![csv_cell(&r.file)];
        for (_, pass, total) in &r.passed {
            cells.push(pass.to_string());
            cells.push(total.to_string());
        }
        let (score, max) = total(tests);
        cells.push(score.to_string());
        cells.push(max.to_string());
        cells.push(csv_cell(&r.failures.join("; ")));
        cells.push(csv_cell(r.first_failure.as_deref().unwrap_or("")));
        cells.push(r.fd_ms.map_or_else(String::new, |ms| format!("{ms:.1}")));
        cells.push(
            r.plain_over_fd
                .map_or_else(String::new, |x| format!("{x:.2}")),
        );
        let form = result.as_ref().ok().and_then(|j| j.form.as_ref());
        cells.push(
            form.map_or("", |f| if f.passed { "pass" } else { "fail" })
                .to_string(),
        );
        cells.push(seed.clone());
        cells.push(r.exit_code.to_string());
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

/// The most characters of a row's failures a class table shows.
const FAILURES_SHOWN: usize = 90;

/// A class as a table for people: a row per file (its points, every way it failed, the first
/// failing case), then each file's smallest failing puzzles, then how many passed.
fn class_table(
    out: &mut impl Write,
    rows: &[Row],
    counterexamples: &[Vec<Counterexample>],
    tests: &[Vec<Scored>],
    config: &Config,
    args: &Args,
) -> Result<()> {
    writeln!(
        out,
        "judging {} files ({}); {} suite{}{}; answers in {} order",
        rows.len(),
        shown(&confinement_text(config)),
        shown(&args.suite),
        seed_text(class_seed(config)),
        shown(&only_heading(config, None)),
        config.order.name()
    )?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    let mut header = vec!["file".to_string()];
    header.extend(config.predicates.iter().map(|p| format!("{}/3", p.name())));
    header.extend(
        [
            "points",
            "what failed (the first failing case)",
            "kenken/3 time",
            "plain/fd",
        ]
        .map(String::from),
    );
    t.set_header(header);
    for (r, tests) in rows.iter().zip(tests) {
        let mut cells = vec![shown(&r.file)];
        cells.extend(r.passed.iter().map(|(pred, p, n)| {
            let marked = pred == Predicate::Plain.name() && r.plain_caveat.is_some();
            format!("{p}/{n}{}", if marked { CAVEAT_MARK } else { "" })
        }));
        let (score, max) = total(tests);
        cells.push(format!("{score}/{max}"));
        // (every way it failed first, so that none is cut off)
        let kinds: Vec<&str> = r
            .failures
            .iter()
            .map(|f| f.split(':').next().unwrap_or(f))
            .collect();
        let mut failure = match (kinds.is_empty(), r.first_failure.as_deref()) {
            (_, None) => "-".to_string(),
            (true, Some(first)) => shown(first),
            (false, Some(first)) => shown(&format!("{} ({first})", kinds.join(", "))),
        };
        if failure.chars().count() > FAILURES_SHOWN {
            failure = failure.chars().take(FAILURES_SHOWN - 1).collect::<String>() + "…";
        }
        cells.push(failure);
        cells.push(
            r.fd_ms
                .map_or_else(|| "-".into(), |ms| format!("{ms:.1} ms")),
        );
        cells.push(r.plain_over_fd.map_or_else(|| "-".into(), ratio_text));
        t.add_row(cells);
    }
    writeln!(out, "{t}")?;
    for (r, found) in rows.iter().zip(counterexamples) {
        for c in found {
            writeln!(
                out,
                "{}: smallest failing puzzle ({}/3, {}{}): {}",
                shown(&r.file),
                c.predicate,
                c.failure.name(),
                if c.reproducible {
                    ""
                } else {
                    ", NOT REPRODUCIBLE"
                },
                shown(&c.goal)
            )?;
        }
    }
    if let Some(k) = rows.iter().find_map(|r| r.plain_caveat.as_deref()) {
        writeln!(out, "{}", shown(&caveat_line(k)))?;
    }
    for r in rows.iter().filter(|r| !r.helpers.is_empty()) {
        writeln!(
            out,
            "{}: its helper files, read by it and not judged alone: {}",
            shown(&r.file),
            shown(&r.helpers.join(", "))
        )?;
    }
    let passed = rows.iter().filter(|r| r.ok).count();
    writeln!(out, "{passed} of {} files passed every case", rows.len())?;
    Ok(())
}
