//! `kenken judge FILE.pl... | DIR`: anyone's kenken.pl checked against the spec and the native
//! solver, confined; one file case by case, or a whole class as one row per file.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;

use super::args::{at_least_one, dialect, predicate, seconds, system};
use super::input::{read_input, Input};
use super::untrusted::{csv_cell, shown, shown_lines};
use super::{bad_input, exit_code, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_LIMIT};
use kenken::judge::class::{class_of, judge_submissions, Class, Row};
use kenken::judge::report::gradescope::{self, Tests, Weights};
use kenken::judge::report::rerun::rerun_command;
use kenken::judge::report::{html, junit, Judged};
use kenken::judge::shrink::{shrink, shrink_class, Counterexample};
use kenken::judge::{
    check_only, judge, left_out, only_text, path_text, size_text, CaseReport, Config, Dialect,
    JudgeError, Judgement, Suite, System,
};
use kenken::prolog::Predicate;

/// The arguments of `kenken judge`.
#[derive(clap::Args)]
pub struct Args {
    /// The Prolog files to judge (each defines kenken/3 and plain_kenken/3), or folders of
    /// them (every .pl file below). One file: a row per case; more: a row per file.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The Prolog system: scryer (embedded; a GNU-dialect file runs with a GNU Prolog
    /// compatibility layer), gprolog (the real GNU Prolog) or swipl (the real SWI-Prolog,
    /// with library(clpfd)); the last two must be installed. Default: gprolog for a
    /// GNU-dialect file when it is installed, else scryer.
    #[arg(long = "prolog", value_parser = system())]
    prolog: Option<System>,
    /// The file's dialect: gnu or scryer (Scryer/SWI, CLP(Z)/CLP(FD) libraries). Default:
    /// detected from the file.
    #[arg(long, value_parser = dialect())]
    dialect: Option<Dialect>,
    /// The predicates judged, comma-separated: kenken, plain_kenken. With plain_kenken, the
    /// form check is run too (plain_kenken/3 must not reach the FD solver).
    #[arg(long, default_value = "kenken,plain_kenken", value_delimiter = ',',
          value_parser = predicate())]
    predicates: Vec<Predicate>,
    /// The cases: spec (the spec's examples as written), standard (those, edge cases of the
    /// spec's terms and of its easy misreadings, and two random puzzles of each size up to
    /// --max-size, new on every run), or a puzzle file in any notation.
    #[arg(long, default_value = "standard")]
    suite: String,
    /// The seed of the standard suite's random puzzles, as a report shows it: the same seed
    /// makes the same puzzles again. Default: a fresh one per run (the same for every file
    /// of a class).
    #[arg(long)]
    seed: Option<u64>,
    /// Run only the cases whose name contains TEXT, case-sensitive, as reports name them
    /// ("spec 4x4 example", "random", "repeats allowed"); repeatable: a case named by any of
    /// them runs. The suite is planned whole first (for the same seed, the same random
    /// puzzles); the form check still runs. A TEXT that names no case is a usage error.
    #[arg(long, value_name = "TEXT")]
    only: Vec<String>,
    /// The largest grid run (default 7 under scryer and swipl, 9 under gprolog). plain_kenken/3 runs on
    /// grids up to 4x4 only.
    #[arg(long, value_parser = at_least_one)]
    max_size: Option<usize>,
    /// Wall-clock limit per case, in seconds. A timeout on a grid up to 3x3 (which any correct
    /// solver answers at once) is a failure, "hang", and the larger cases still run. Once a
    /// predicate times out on a larger grid, its cases of larger grids are skipped (not after
    /// a case of over 100 answers, such as kenken(4, [], T)'s 576).
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    timeout: f64,
    /// One file: cases run at once; several: files judged at once. Each runs in a Prolog
    /// process of its own (times are steadier with 1).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    jobs: usize,
    /// The memory each Prolog process may use (e.g. 2G, 512M); past it the case crashes
    /// with "memory limit reached".
    #[arg(long, default_value = "2G", value_parser = kenken::judge::parse_size)]
    memory: u64,
    /// The space each Prolog process may write in its own scratch folder, all files together
    /// (e.g. 64M); past it, its writes fail.
    #[arg(long, default_value = "64M", value_parser = kenken::judge::parse_size)]
    scratch: u64,
    /// Run the judged code with the user's full rights: it may then read, write and delete
    /// any of your files, start programs and use the network. Only for files you trust.
    #[arg(long)]
    no_confine: bool,
    /// A file or folder the judged files may read besides themselves (a helper file they
    /// include, data they load); repeatable. Confined, a judged file reads nothing of its own
    /// folder but itself: a class's files often share one.
    #[arg(long, value_name = "PATH")]
    read: Vec<PathBuf>,
    /// Output: table (one row per case, or per file for a class, then a summary), json (one
    /// object per line: per case then a summary; for a class, per file then the class), csv
    /// (one row per file), gradescope (Gradescope's autograder results.json, for one file),
    /// junit (JUnit XML: a test case per case, a test suite per file), or html (one
    /// self-contained page: a row per file, each failing file's smallest failing puzzle
    /// drawn).
    #[arg(long, value_enum, default_value_t = Output::Table)]
    output: Output,
    /// With --output gradescope: the points of each group of cases, a `GROUP = POINTS` line
    /// each (groups: `kenken/3 spec examples`, `kenken/3 edge cases`, `kenken/3 random
    /// puzzles`, `kenken/3 puzzles`, the same for plain_kenken/3, and `plain_kenken/3 form
    /// check`). Default: 1 point per case, 1 for the form check.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// With --output gradescope: a Gradescope test per group of cases (the group's points
    /// shared by its cases) or per case.
    #[arg(long, value_enum, default_value_t = GradeBy::Group)]
    grade_by: GradeBy,
    /// When a file fails: the time given to shrink its smallest failing case into the smallest
    /// puzzle that still fails the same way, in seconds, per file (each try runs confined like
    /// the suite, bounded by --timeout); 0: no shrink.
    #[arg(long, default_value_t = 20.0, value_parser = seconds_or_zero)]
    shrink_time: f64,
}

/// A Gradescope test per group of cases or per case.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GradeBy {
    Group,
    Case,
}

/// A time in seconds, 0 or more.
fn seconds_or_zero(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(0.0) => Ok(0.0),
        _ => seconds(s),
    }
}

/// What `judge` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    Table,
    Json,
    Csv,
    Gradescope,
    Junit,
    Html,
}

/// Exit code: stopped by a signal (Ctrl-C, `SIGTERM`), as shells give for `SIGINT`.
const EXIT_INTERRUPTED: i32 = 130;

/// Exit code: the file cannot be loaded.
const EXIT_LOAD: i32 = EXIT_BAD_INPUT;

/// What marks a verdict that proves less than it says (a `plain_kenken/3` case run where the
/// FD solver stays reachable); a note says why under the table.
const CAVEAT_MARK: &str = " *";

/// The line under a class's table that says what [`CAVEAT_MARK`] means (a file's table has it
/// among its notes).
fn caveat_line(caveat: &str) -> String {
    format!("* every plain_kenken/3 case marked so: {caveat}")
}

/// The form check's row in a table: what it checks.
const FORM_ROW: &str = "form check: no FD solver in plain_kenken/3";

/// Judges one file case by case, or several (or a folder) as a class; the exit code is the
/// judgement's (0 pass, 1 a case or the form check fails, 2 the file cannot be loaded, 3 only
/// timeouts on grids larger than 3x3).
pub fn run(args: Args) -> Result<ExitCode> {
    // (stopped by Ctrl-C or SIGTERM, the judge leaves none of its temporary folders; its
    // children die with it)
    let _ = ctrlc::set_handler(|| {
        kenken::process::remove_temporary_folders();
        std::process::exit(EXIT_INTERRUPTED);
    });
    let suite = match args.suite.as_str() {
        "spec" => Suite::Spec,
        "standard" => Suite::Standard,
        file => Suite::Puzzles(read_input(&Input::file(file))?),
    };
    let config = Config {
        system: args.prolog,
        dialect: args.dialect,
        predicates: {
            let mut ps = Vec::new();
            for &p in &args.predicates {
                if !ps.contains(&p) {
                    ps.push(p);
                }
            }
            ps
        },
        suite,
        // (one seed for the whole run: every file of a class gets the same puzzles)
        seed: Some(args.seed.unwrap_or_else(kenken::judge::fresh_seed)),
        max_size: args.max_size,
        timeout: Duration::from_secs_f64(args.timeout),
        jobs: args.jobs,
        memory: args.memory,
        scratch: args.scratch,
        confine: !args.no_confine,
        read: args.read.clone(),
        only: args.only.clone(),
    };
    check_only(&config).map_err(|e| bad_input(shown(&e.to_string())))?;
    if let Some(p) = args.read.iter().find(|p| !p.exists()) {
        return Err(bad_input(format!(
            "--read {}: no such file or folder",
            p.display()
        )));
    }
    let weights = match &args.weights {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad_input(format!("--weights {}: {e}", path.display())))?;
            Weights::parse(&text)
                .map_err(|e| bad_input(format!("--weights {}: {e}", path.display())))?
        }
        None => Weights::default(),
    };
    let class = class_of(&args.files).map_err(|e| bad_input(shown(&e.to_string())))?;
    // one file (and its helpers): judged case by case; a folder, or any path not judged, a
    // class of rows
    let single = class.files.len() == 1
        && class.not_judged.is_empty()
        && (args.files.len() > 1 || !args.files[0].is_dir());
    if args.output == Output::Gradescope && !single {
        return Err(bad_input(
            "--output gradescope grades one submission: give one file".to_string(),
        ));
    }
    if !single || args.output == Output::Csv {
        return run_class(&class, &config, &args);
    }
    let file = &class.files[0];
    // (its helper files, given beside it, it may read)
    let mut config = config;
    config
        .read
        .extend(class.helpers.iter().map(|(h, _)| h.clone()));
    let config = config;
    let json = args.output == Output::Json;
    let progress = args.output == Output::Table && std::io::stderr().is_terminal();
    let mut done = 0usize;
    let result = judge(file, &config, |r: &CaseReport| {
        done += 1;
        if progress {
            let what = format!("{} {}: {}", r.predicate, r.case, r.verdict);
            eprint!("\r\x1b[K[{done}] {}", shown(&what));
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let course = matches!(
        args.output,
        Output::Gradescope | Output::Junit | Output::Html
    );
    let mut judgement = match result {
        Ok(j) => j,
        // (--only names no case of the grids this file's Prolog runs)
        Err(e @ JudgeError::NoCaseNamed { .. }) => return Err(bad_input(shown(&e.to_string()))),
        // (an autograder gets its report, score 0, whatever kept the file from being judged)
        Err(e) if course => {
            eprintln!("kenken judge: {}", shown(&e.to_string()));
            let name = path_text(file);
            let result = Err(e);
            let judged = Judged {
                file: &name,
                result: &result,
                counterexample: None,
            };
            let row = Row::of(file, &result, &config);
            let mut out = std::io::stdout().lock();
            write_course(&mut out, &args, &weights, &[judged], &[row], &config)?;
            return Ok(exit_code(EXIT_LOAD));
        }
        Err(e @ (JudgeError::Syntax { .. } | JudgeError::Load { .. })) => {
            eprintln!("kenken judge: {}", shown(&e.to_string()));
            if json {
                // (a run always ends with its summary)
                let summary = serde_json::json!({"summary": {
                    "file": path_text(file), "error": e.to_string(),
                    "cases": 0, "exit_code": EXIT_LOAD}});
                println!("{summary}");
            }
            return Ok(exit_code(EXIT_LOAD));
        }
        Err(e) => return Err(bad_input(shown(&e.to_string()))),
    };
    judgement.rerun = Some(rerun_command(file, &config, &args.suite, judgement.system));
    let counterexample = shrunk(file, &config, &judgement, &args);
    let mut out = std::io::stdout().lock();
    match args.output {
        Output::Json => {
            for c in &judgement.cases {
                writeln!(out, "{}", serde_json::to_string(c)?)?;
            }
            let mut summary = summary_json(&judgement);
            summary["summary"]["only"] = config.only.clone().into();
            summary["summary"]["only_left_out"] = left_out(&config, &judgement).into();
            summary["summary"]["counterexample"] = serde_json::to_value(&counterexample)?;
            writeln!(out, "{summary}")?;
        }
        Output::Table | Output::Csv => write_table(
            &mut out,
            &judgement,
            &args.suite,
            &config,
            counterexample.as_ref(),
        )?,
        Output::Gradescope | Output::Junit | Output::Html => {
            let name = path_text(file);
            let result = Ok(judgement);
            let row = Row::of(file, &result, &config);
            let judged = Judged {
                file: &name,
                result: &result,
                counterexample: counterexample.as_ref(),
            };
            write_course(&mut out, &args, &weights, &[judged], &[row], &config)?;
            let code = result.map_or(EXIT_LOAD, |j| j.exit_code());
            return Ok(exit_code(code));
        }
    }
    Ok(exit_code(judgement.exit_code()))
}

/// The smallest failing puzzle of a judgement that failed, shrunk within --shrink-time (none
/// when it passed, or --shrink-time is 0).
fn shrunk(
    file: &std::path::Path,
    config: &Config,
    judgement: &Judgement,
    args: &Args,
) -> Option<Counterexample> {
    if args.shrink_time <= 0.0 || judgement.exit_code() != 1 {
        return None;
    }
    let progress = args.output == Output::Table && std::io::stderr().is_terminal();
    if progress {
        eprint!(
            "\r\x1b[Kshrinking the failing case (up to {} s)...",
            args.shrink_time
        );
    }
    let c = shrink(
        file,
        config,
        judgement,
        Duration::from_secs_f64(args.shrink_time),
    );
    if progress {
        eprint!("\r\x1b[K");
    }
    c
}

/// What a report's first line says of `--only` (nothing without it): the texts, and how many
/// cases they left out when that is known (one file).
fn only_heading(config: &Config, left_out: Option<usize>) -> String {
    if config.only.is_empty() {
        return String::new();
    }
    format!(
        ", only the cases named with {}{}",
        only_text(&config.only),
        left_out.map_or_else(String::new, |n| format!(" ({n} left out)"))
    )
}

/// Writes a course report (Gradescope, JUnit or HTML) of judged files.
fn write_course(
    out: &mut impl Write,
    args: &Args,
    weights: &Weights,
    files: &[Judged],
    rows: &[Row],
    config: &Config,
) -> Result<()> {
    match args.output {
        Output::Gradescope => {
            let by = match args.grade_by {
                GradeBy::Group => Tests::PerGroup,
                GradeBy::Case => Tests::PerCase,
            };
            let Some(one) = files.first() else {
                return Ok(());
            };
            let results = gradescope::results(one, weights, by);
            writeln!(out, "{}", serde_json::to_string_pretty(&results)?)?;
        }
        Output::Junit => write!(out, "{}", junit::document(files))?,
        _ => {
            let title = format!(
                "{} {}, {} suite{}; {}",
                rows.len(),
                if rows.len() == 1 { "file" } else { "files" },
                args.suite,
                only_heading(config, None),
                confinement_text(config)
            );
            write!(out, "{}", html::page(files, rows, &title))?;
        }
    }
    Ok(())
}

fn summary_json(j: &Judgement) -> serde_json::Value {
    let counts = verdict_counts(j);
    serde_json::json!({
        "summary": {
            "file": j.file,
            "prolog": j.system.name(),
            "dialect": j.dialect.name(),
            "dialect_detected": j.dialect_detected,
            "max_size": j.max_size,
            "suite": j.suite,
            "seed": j.seed,
            "warnings": j.warnings,
            "cases": j.cases.len(),
            "verdicts": counts,
            "form": j.form,
            "plain_vs_fd": j.plain_vs_fd(),
            "notes": j.notes,
            "elapsed_s": j.elapsed_s,
            "exit_code": j.exit_code(),
            "rerun": j.rerun,
        }
    })
}

fn write_table(
    out: &mut impl Write,
    j: &Judgement,
    args_suite: &str,
    config: &Config,
    counterexample: Option<&Counterexample>,
) -> Result<()> {
    writeln!(
        out,
        "judging {} under {} ({} dialect, {}); {} suite{}, cases up to {}x{}{}; {}",
        shown(&j.file),
        j.system.name(),
        j.dialect.name(),
        if j.dialect_detected {
            "detected"
        } else {
            "chosen"
        },
        shown(if j.suite == "puzzles" {
            args_suite
        } else {
            &j.suite
        }),
        seed_text(j.seed),
        j.max_size,
        j.max_size,
        shown(&only_heading(config, Some(left_out(config, j)))),
        confinement_text(config)
    )?;
    write_warnings(out, &j.warnings)?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(vec!["case", "predicate", "verdict", "answers", "time"]);
    for c in &j.cases {
        let mut verdict = c.verdict.to_string();
        if !c.detail.is_empty() {
            verdict = format!("{verdict}: {}", c.detail);
        }
        if c.caveat.is_some() {
            verdict.push_str(CAVEAT_MARK);
        }
        t.add_row(vec![
            shown(&c.case),
            format!("{}/3", c.predicate),
            shown(&verdict),
            format!("{}/{}", c.answers, c.expected),
            c.elapsed_ms
                .map_or_else(|| "-".into(), |ms| format!("{ms:.1} ms")),
        ]);
    }
    if let Some(form) = &j.form {
        t.add_row(vec![
            FORM_ROW.to_string(),
            "plain_kenken/3".into(),
            if form.passed {
                "pass".into()
            } else {
                shown(&format!("form: {}", form.detail))
            },
            "-".into(),
            "-".into(),
        ]);
    }
    writeln!(out, "{t}")?;
    if let Some(c) = counterexample {
        write!(
            out,
            "{}",
            shown_lines(&c.text(), "").collect::<Vec<_>>().join("\n")
        )?;
        writeln!(out)?;
    }
    for n in &j.notes {
        writeln!(out, "note: {}", shown(n))?;
    }
    if let Some(p) = j.plain_vs_fd() {
        writeln!(out, "{}", shown(&p))?;
    }
    writeln!(out, "{}", shown(&j.summary()))?;
    Ok(())
}

/// The most lines of a file's load warnings the table shows (all are in the JSON summary).
const WARNING_LINES: usize = 12;

/// What each line the file and its loader wrote while it loaded starts with in the table: no
/// line the file printed can pass for a line of the report.
const WARNING_PREFIX: &str = "  | ";

/// What the file and its loader wrote while it loaded (singleton variables, a directive that
/// failed or was refused), under the report's first line: each line prefixed, control
/// characters written out.
fn write_warnings(out: &mut impl Write, warnings: &str) -> Result<()> {
    let lines: Vec<String> = shown_lines(warnings, WARNING_PREFIX).collect();
    if lines.is_empty() {
        return Ok(());
    }
    writeln!(out, "while loading, the file and its loader said:")?;
    for l in lines.iter().take(WARNING_LINES) {
        writeln!(out, "{l}")?;
    }
    if lines.len() > WARNING_LINES {
        writeln!(
            out,
            "  ... and {} more lines (--output json has them all)",
            lines.len() - WARNING_LINES
        )?;
    }
    Ok(())
}

/// Judges a class: every file, `--jobs` at once, then one row per file, and one per path not
/// judged (a link out of the class folder, a second path to a file judged).
fn run_class(class: &Class, config: &Config, args: &Args) -> Result<ExitCode> {
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
    let budget = Duration::from_secs_f64(args.shrink_time);
    let counterexamples = if args.shrink_time > 0.0 && args.output != Output::Csv {
        if progress {
            eprint!("\r\x1b[Kshrinking the failing files' cases...");
        }
        let judged: Vec<_> = files.iter().cloned().zip(&results).collect();
        let found = shrink_class(&judged, config, args.jobs, budget);
        if progress {
            eprint!("\r\x1b[K");
        }
        found
    } else {
        Vec::new()
    };
    let mut out = std::io::stdout().lock();
    match args.output {
        Output::Json => class_json(&mut out, &rows, &results, &counterexamples, config, code)?,
        Output::Csv => class_csv(&mut out, &rows, &results, config)?,
        Output::Table => class_table(&mut out, &rows, &counterexamples, config, args)?,
        Output::Gradescope | Output::Junit | Output::Html => {
            let judged: Vec<Judged> = rows
                .iter()
                .zip(&results)
                .enumerate()
                .map(|(i, (r, result))| Judged {
                    file: &r.file,
                    result,
                    counterexample: counterexamples.get(i).and_then(Option::as_ref),
                })
                .collect();
            write_course(&mut out, args, &Weights::default(), &judged, &rows, config)?;
        }
    }
    Ok(exit_code(code))
}

/// A class as JSON lines: a row per file (with its verdicts' counts), then the class.
fn class_json(
    out: &mut impl Write,
    rows: &[Row],
    results: &[Result<Judgement, JudgeError>],
    counterexamples: &[Option<Counterexample>],
    config: &Config,
    code: i32,
) -> Result<()> {
    for (i, (row, result)) in rows.iter().zip(results).enumerate() {
        let mut v = serde_json::to_value(row)?;
        if let Ok(j) = result {
            v["verdicts"] = verdict_counts(j);
            v["warnings"] = j.warnings.clone().into();
            v["form"] = serde_json::to_value(&j.form)?;
            v["counterexample"] =
                serde_json::to_value(counterexamples.get(i).and_then(Option::as_ref))?;
        }
        writeln!(out, "{v}")?;
    }
    let passed = rows.iter().filter(|r| r.ok).count();
    let class = serde_json::json!({"class": {
        "files": rows.len(), "passed": passed, "confined": config.confine,
        "memory": config.memory, "seed": class_seed(config), "only": config.only,
        "exit_code": code}});
    writeln!(out, "{class}")?;
    Ok(())
}

/// A class as CSV: a header, then a row per file (with the form check, `pass`, `fail` or empty
/// when it was not run, and the suite's seed).
fn class_csv(
    out: &mut impl Write,
    rows: &[Row],
    results: &[Result<Judgement, JudgeError>],
    config: &Config,
) -> Result<()> {
    let mut header = vec!["file".to_string()];
    for p in &config.predicates {
        header.push(format!("{}_passed", p.name()));
        header.push(format!("{}_cases", p.name()));
    }
    header.extend(
        [
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
    for (r, result) in rows.iter().zip(results) {
        let mut cells = vec![csv_cell(&r.file)];
        for (_, pass, total) in &r.passed {
            cells.push(pass.to_string());
            cells.push(total.to_string());
        }
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

/// A class as a table for people: a row per file, then how many passed.
fn class_table(
    out: &mut impl Write,
    rows: &[Row],
    counterexamples: &[Option<Counterexample>],
    config: &Config,
    args: &Args,
) -> Result<()> {
    writeln!(
        out,
        "judging {} files ({}); {} suite{}{}",
        rows.len(),
        shown(&confinement_text(config)),
        shown(&args.suite),
        seed_text(class_seed(config)),
        shown(&only_heading(config, None))
    )?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    let mut header = vec!["file".to_string()];
    header.extend(config.predicates.iter().map(|p| format!("{}/3", p.name())));
    header.extend(["first failing case", "kenken/3 time", "plain/fd"].map(String::from));
    t.set_header(header);
    for r in rows {
        let mut cells = vec![shown(&r.file)];
        cells.extend(r.passed.iter().map(|(pred, p, n)| {
            let marked = pred == Predicate::Plain.name() && r.plain_caveat.is_some();
            format!("{p}/{n}{}", if marked { CAVEAT_MARK } else { "" })
        }));
        let mut failure = shown(r.first_failure.as_deref().unwrap_or("-"));
        if failure.chars().count() > 70 {
            failure = failure.chars().take(69).collect::<String>() + "…";
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
    for (r, c) in rows.iter().zip(counterexamples) {
        if let Some(c) = c {
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

/// The seed of a run's random puzzles, for a report's first line (nothing for a suite without
/// them).
fn seed_text(seed: Option<u64>) -> String {
    seed.map_or_else(String::new, |s| {
        format!(" (random puzzles of seed {s}: --seed {s} makes them again)")
    })
}

/// The seed a class's files were judged with (the standard suite's).
fn class_seed(config: &Config) -> Option<u64> {
    matches!(config.suite, Suite::Standard)
        .then_some(config.seed)
        .flatten()
}

/// How the judged code runs, for a report's first line.
fn confinement_text(config: &Config) -> String {
    if config.confine {
        let also: Vec<String> = config
            .read
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let reads = if also.is_empty() {
            String::new()
        } else {
            format!(" (reading also {})", also.join(", "))
        };
        format!(
            "confined{reads}, memory {} per engine",
            size_text(config.memory)
        )
    } else {
        "NOT confined (--no-confine)".to_string()
    }
}

fn verdict_counts(j: &Judgement) -> serde_json::Value {
    kenken::judge::Verdict::ALL
        .iter()
        .map(|&v| (v.name().to_string(), j.count(v).into()))
        .collect::<serde_json::Map<String, serde_json::Value>>()
        .into()
}

/// A time ratio with two significant digits at least: `695x`, `11.3x`, `0.92x`, `0.037x`
/// (a plain_kenken/3 far faster than kenken/3 is not `0.0x`).
fn ratio_text(x: f64) -> String {
    if x >= 100.0 || x == 0.0 || !x.is_finite() {
        format!("{x:.0}x")
    } else if x >= 1.0 {
        format!("{x:.1}x")
    } else {
        let decimals = (1.0 - x.log10().floor()).clamp(2.0, 9.0) as usize;
        format!("{x:.decimals$}x")
    }
}

#[cfg(test)]
mod tests {
    use super::ratio_text;

    #[test]
    fn ratios_keep_two_significant_digits() {
        assert_eq!(ratio_text(695.2), "695x");
        assert_eq!(ratio_text(11.34), "11.3x");
        assert_eq!(ratio_text(1.0), "1.0x");
        assert_eq!(ratio_text(0.92), "0.92x");
        assert_eq!(ratio_text(0.0371), "0.037x");
        assert_eq!(ratio_text(0.0), "0x");
    }
}
