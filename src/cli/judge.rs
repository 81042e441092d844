//! `kenken judge FILE.pl`: anyone's kenken.pl checked against the spec and the native solver.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;

use super::{at_least_one, bad_input, read_input, seconds, Input};
use kenken::judge::{judge, CaseReport, Config, Dialect, JudgeError, Judgement, Suite, System};
use kenken::prolog::Predicate;

#[derive(clap::Args)]
pub struct JudgeArgs {
    /// The Prolog file to judge (defines kenken/3 and plain_kenken/3).
    file: PathBuf,
    /// The Prolog system: scryer (embedded; a GNU-dialect file runs with a GNU Prolog
    /// compatibility layer) or gprolog (the real GNU Prolog; must be installed). Default:
    /// gprolog for a GNU-dialect file when it is installed, else scryer.
    #[arg(long = "prolog", value_parser = ["scryer", "gprolog"])]
    prolog: Option<String>,
    /// The file's dialect: gnu or scryer (Scryer/SWI, CLP(Z)/CLP(FD) libraries). Default:
    /// detected from the file.
    #[arg(long, value_parser = ["gnu", "scryer"])]
    dialect: Option<String>,
    /// The predicates judged, comma-separated: kenken, plain_kenken.
    #[arg(long, default_value = "kenken,plain_kenken", value_delimiter = ',',
          value_parser = ["kenken", "plain_kenken"])]
    predicates: Vec<String>,
    /// The cases: spec (the spec's examples as written), standard (those, edge cases of the
    /// spec's terms and two random puzzles of each size up to --max-size), or a puzzle file in
    /// any notation.
    #[arg(long, default_value = "standard")]
    suite: String,
    /// The largest grid run (default 7 under scryer, 9 under gprolog). plain_kenken/3 runs on
    /// grids up to 4x4 only.
    #[arg(long, value_parser = at_least_one)]
    max_size: Option<usize>,
    /// Wall-clock limit per case, in seconds. Once a predicate times out on a size, its
    /// larger cases are skipped (not after a timeout on N = 0 or on a case of over 100
    /// answers, such as kenken(4, [], T)'s 576).
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    timeout: f64,
    /// Cases run at once, each in a Prolog process of its own (times are steadier with 1).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    jobs: usize,
    /// Output: table (one row per case, then a summary), or json (one object per case, then
    /// a summary object, one per line).
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    output: String,
}

/// Exit code: the file cannot be loaded.
const EXIT_LOAD: i32 = 2;

pub fn run(args: JudgeArgs) -> Result<i32> {
    let suite = match args.suite.as_str() {
        "spec" => Suite::Spec,
        "standard" => Suite::Standard,
        file => Suite::Puzzles(read_input(&Input {
            file: file.to_string(),
            from: "auto".into(),
        })?),
    };
    let config = Config {
        system: args.prolog.as_deref().map(|p| match p {
            "gprolog" => System::Gprolog,
            _ => System::Scryer,
        }),
        dialect: args.dialect.as_deref().map(|d| match d {
            "gnu" => Dialect::Gnu,
            _ => Dialect::Scryer,
        }),
        predicates: {
            let mut ps = Vec::new();
            for p in &args.predicates {
                let p = if p == "plain_kenken" {
                    Predicate::Plain
                } else {
                    Predicate::Fd
                };
                if !ps.contains(&p) {
                    ps.push(p);
                }
            }
            ps
        },
        suite,
        max_size: args.max_size,
        timeout: Duration::from_secs_f64(args.timeout),
        jobs: args.jobs,
    };
    let json = args.output == "json";
    let progress = !json && std::io::stderr().is_terminal();
    let mut done = 0usize;
    let result = judge(&args.file, &config, |r: &CaseReport| {
        done += 1;
        if progress {
            eprint!("\r\x1b[K[{done}] {} {}: {}", r.predicate, r.case, r.verdict);
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let judgement = match result {
        Ok(j) => j,
        Err(e @ (JudgeError::Syntax { .. } | JudgeError::Load { .. })) => {
            eprintln!("kenken judge: {e}");
            return Ok(EXIT_LOAD);
        }
        Err(e) => return Err(bad_input(e.to_string())),
    };
    let mut out = std::io::stdout().lock();
    if json {
        for c in &judgement.cases {
            writeln!(out, "{}", serde_json::to_string(c)?)?;
        }
        writeln!(out, "{}", summary_json(&judgement))?;
    } else {
        write_table(&mut out, &judgement, &args.suite)?;
    }
    Ok(judgement.exit_code())
}

fn summary_json(j: &Judgement) -> serde_json::Value {
    let counts: serde_json::Map<String, serde_json::Value> = kenken::judge::Verdict::ALL
        .iter()
        .map(|&v| (v.name().to_string(), j.count(v).into()))
        .collect();
    serde_json::json!({
        "summary": {
            "file": j.file,
            "prolog": j.system.name(),
            "dialect": j.dialect.name(),
            "dialect_detected": j.dialect_detected,
            "max_size": j.max_size,
            "suite": j.suite,
            "cases": j.cases.len(),
            "verdicts": counts,
            "plain_vs_fd": j.plain_vs_fd(),
            "notes": j.notes,
            "elapsed_s": j.elapsed_s,
            "exit_code": j.exit_code(),
        }
    })
}

fn write_table(out: &mut impl Write, j: &Judgement, args_suite: &str) -> Result<()> {
    writeln!(
        out,
        "judging {} under {} ({} dialect, {}); {} suite, cases up to {}x{}",
        j.file,
        j.system.name(),
        j.dialect.name(),
        if j.dialect_detected {
            "detected"
        } else {
            "chosen"
        },
        if j.suite == "puzzles" {
            args_suite
        } else {
            &j.suite
        },
        j.max_size,
        j.max_size
    )?;
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(vec!["case", "predicate", "verdict", "answers", "time"]);
    for c in &j.cases {
        let mut verdict = c.verdict.to_string();
        if !c.detail.is_empty() {
            verdict = format!("{verdict}: {}", c.detail);
        }
        t.add_row(vec![
            c.case.clone(),
            format!("{}/3", c.predicate),
            verdict,
            format!("{}/{}", c.answers, c.expected),
            c.elapsed_ms
                .map_or_else(|| "-".into(), |ms| format!("{ms:.1} ms")),
        ]);
    }
    writeln!(out, "{t}")?;
    for n in &j.notes {
        writeln!(out, "note: {n}")?;
    }
    if let Some(p) = j.plain_vs_fd() {
        writeln!(out, "{p}")?;
    }
    writeln!(out, "{}", j.summary())?;
    Ok(())
}
