//! `kenken bench` and the hidden `kenken worker` that serves its Prolog solves.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::{bad_input, read_input, require_valid, Input};
use kenken::bench::{self, report, EngineKind, Entry, RunStatus};
use kenken::prolog::Predicate;

/// The default set: the spec's two puzzles and three Keen puzzles of each size 4 to 9.
const DEFAULT_SET: &str = include_str!("../../examples/bench-default.jsonl");

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Puzzle files (default: the shipped set, the spec's puzzles and Keen puzzles of sizes 4-9).
    files: Vec<String>,
    /// Engines to compare, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "native,fd,plain")]
    engines: Vec<EngineKind>,
    /// Wall-clock bound per solve, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Solves per engine and puzzle (the median is reported).
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Also run random puzzles of these sizes (e.g. 12,16,25), made from fixed seeds.
    #[arg(long, value_delimiter = ',')]
    random: Vec<usize>,
    /// How many random puzzles of each size.
    #[arg(long, default_value_t = 10)]
    random_count: u64,
    /// Group the summary by input file or by grid size (default: file, or size for the default set).
    #[arg(long, value_parser = ["file", "size"])]
    group: Option<String>,
    /// Write one JSON record per engine and puzzle to this file.
    #[arg(long)]
    json: Option<String>,
    /// Draw time against grid size as SVG to this file.
    #[arg(long)]
    plot: Option<String>,
    /// ASCII (Markdown) table instead of box drawing.
    #[arg(long)]
    ascii: bool,
}

fn entries(args: &BenchArgs) -> Result<Vec<Entry>> {
    let mut files = Vec::new();
    for &n in &args.random {
        if !(1..=64).contains(&n) {
            return Err(bad_input(format!("--random: size {n} is not in 1..64")));
        }
        let puzzles = (0..args.random_count)
            .map(|seed| bench::random::puzzle(n, seed).0)
            .collect();
        files.push((format!("random-{n}"), puzzles));
    }
    if args.files.is_empty() && args.random.is_empty() {
        let puzzles = kenken::format::read_auto(DEFAULT_SET)
            .map_err(|e| bad_input(format!("the default set: {e}")))?;
        files.push(("default".to_string(), puzzles));
    }
    for f in &args.files {
        let input = Input {
            file: f.clone(),
            from: "auto".into(),
        };
        let puzzles = read_input(&input)?;
        require_valid(&puzzles)?;
        let stem = Path::new(f)
            .file_stem()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned());
        files.push((stem, puzzles));
    }
    let by_size = match args.group.as_deref() {
        Some(g) => g == "size",
        None => args.files.is_empty() && args.random.is_empty(),
    };
    let mut out = Vec::new();
    for (stem, puzzles) in files {
        for (i, p) in puzzles.into_iter().enumerate() {
            let name = p
                .name
                .clone()
                .unwrap_or_else(|| format!("{stem}#{}", i + 1));
            let group = if by_size {
                format!("{0}x{0}", p.size)
            } else {
                stem.clone()
            };
            out.push(Entry {
                puzzle: p,
                name,
                group,
            });
        }
    }
    if by_size {
        out.sort_by_key(|e| e.puzzle.size);
    }
    Ok(out)
}

pub fn run(args: BenchArgs) -> Result<i32> {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(bad_input(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    if args.engines.is_empty() {
        return Err(bad_input("--engines: name at least one engine".into()));
    }
    let entries = entries(&args)?;
    let config = bench::Config {
        engines: args.engines.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        repeat: args.repeat.max(1),
        worker_exe: std::env::current_exe().context("finding the kenken program")?,
    };
    let bar = ProgressBar::new((entries.len() * config.engines.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut started = false;
    let records = bench::run(&entries, &config, |entry, engine| {
        if started {
            bar.inc(1);
        }
        started = true;
        bar.set_message(format!("{engine} {}", entry.name));
    });
    bar.finish_and_clear();

    let summaries = report::summarize(&records);
    println!("{}", report::table(&summaries, args.timeout, args.ascii));
    let bad: Vec<_> = records
        .iter()
        .filter(|r| matches!(r.status, RunStatus::Wrong | RunStatus::Error))
        .collect();
    for r in &bad {
        let what = if r.status == RunStatus::Wrong {
            "WRONG"
        } else {
            "ERROR"
        };
        println!(
            "{what}: {} on {}: {}",
            r.engine,
            r.puzzle,
            r.message.as_deref().unwrap_or("")
        );
    }
    if let Some(path) = &args.json {
        let mut text = String::new();
        for r in &records {
            text.push_str(&serde_json::to_string(r)?);
            text.push('\n');
        }
        std::fs::write(path, text).with_context(|| format!("writing {path}"))?;
    }
    if let Some(path) = &args.plot {
        let svg = bench::plot::svg(
            &records,
            args.timeout * 1000.0,
            "KenKen: time per puzzle by engine",
        )?;
        std::fs::write(path, svg).with_context(|| format!("writing {path}"))?;
    }
    Ok(if bad.is_empty() { 0 } else { 1 })
}

/// `kenken worker fd|plain`: serves Prolog solves on standard input and output.
pub fn worker(engine: EngineKind) -> Result<i32> {
    let pred: Predicate = engine
        .predicate()
        .ok_or_else(|| bad_input("worker: the engine must be fd or plain".into()))?;
    // Scryer recurses deeply on big terms: give the engine a roomy stack.
    let served = std::thread::Builder::new()
        .name("kenken-worker".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            kenken::prolog::worker::serve(pred, stdin, stdout)
        })?
        .join()
        .map_err(|_| anyhow::anyhow!("the worker thread stopped"))?;
    served?;
    Ok(0)
}
