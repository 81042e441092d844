//! `kenken bench`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::LazyLock;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::args::{at_least_one, engine, seconds, threads};
use super::input::{read_input, require_valid, Input};
use super::{bad_input, exit_code, EXIT_FAILED};
use kenken::bench::{self, report, BenchEntry, EngineKind, RunStatus};
use kenken::format::Expected;

/// `--engines`' default: every built-in engine, `native,fd,plain` (GNU Prolog's two,
/// `gprolog-fd` and `gprolog-plain`, and SWI-Prolog's, `swipl-fd` and `swipl-plain`, when asked
/// for).
static ALL_ENGINES: LazyLock<String> =
    LazyLock::new(|| EngineKind::BUILT_IN.map(EngineKind::name).join(","));

/// The default set: the spec's two puzzles and three Keen puzzles of each size 4 to 9.
const DEFAULT_SET: &str = include_str!("../../examples/bench-default.jsonl");

/// The arguments of `kenken bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Puzzle files (default: the shipped set, the spec's puzzles and Keen puzzles of sizes 4-9).
    files: Vec<String>,
    /// Engines to compare, comma-separated: native, fd, plain, gprolog-fd, gprolog-plain,
    /// swipl-fd, swipl-plain (GNU Prolog's two need gprolog installed, SWI-Prolog's swipl).
    #[arg(long, value_delimiter = ',', default_value = ALL_ENGINES.as_str(), value_parser = engine())]
    engines: Vec<EngineKind>,
    /// Wall-clock bound per solve, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    timeout: f64,
    /// Solves per engine and puzzle (the median is reported).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    repeat: usize,
    /// Threads the native solver may use for one puzzle (the Prolog engines use one).
    #[arg(long, default_value_t = 1, value_parser = threads)]
    threads: usize,
    /// Also run random puzzles of these sizes (e.g. 12,16,25): uniformly random Latin squares
    /// cut into random cages; the same seed gives the same puzzles.
    #[arg(long, value_delimiter = ',')]
    random: Vec<usize>,
    /// Also run generated puzzles of these sizes (e.g. 10,12,16): each with exactly one
    /// solution and the `--difficulty` asked for (as `kenken generate` makes them).
    #[arg(long, value_delimiter = ',')]
    generate: Vec<usize>,
    /// Difficulty of the generated puzzles.
    #[arg(long, default_value = "hard")]
    difficulty: kenken::logic::Level,
    /// Seed of the random and generated puzzles.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many random (or generated) puzzles of each size.
    #[arg(long, alias = "random-count", default_value_t = 10)]
    count: u64,
    /// Group the summary by input file or by grid size (default: file, or size for the default set).
    #[arg(long, value_enum)]
    group: Option<Group>,
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

/// How the summary groups the puzzles.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Group {
    File,
    Size,
}

/// The puzzles to run, each named and grouped.
fn entries(args: &Args) -> Result<Vec<BenchEntry>> {
    let mut files = Vec::new();
    for &n in &args.random {
        if !(1..=64).contains(&n) {
            return Err(bad_input(format!("--random: size {n} is not in 1..64")));
        }
        let puzzles = kenken::random::puzzles(n, args.seed, args.count as usize)
            .into_iter()
            .map(|(puzzle, grid)| kenken::format::Entry {
                puzzle,
                expected: Expected {
                    solution: Some(grid),
                    ..Expected::default()
                },
                line: 0,
            })
            .collect();
        files.push((format!("random-{n}"), puzzles));
    }
    for &n in &args.generate {
        let opts = kenken::generate::Options::new(n, args.difficulty);
        opts.check()
            .map_err(|e| bad_input(format!("--generate: {e}")))?;
        let mut puzzles = Vec::new();
        for i in 0..args.count {
            let seed = kenken::generate::puzzle_seed(args.seed, i);
            let g = kenken::generate::generate(&opts, seed, None)
                .map_err(|e| bad_input(format!("--generate {n}: {e}")))?;
            let mut puzzle = g.puzzle;
            puzzle.name = Some(format!("generated-{n}-{}-{seed}", args.difficulty));
            puzzles.push(kenken::format::Entry {
                puzzle,
                expected: Expected {
                    solution: Some(g.solution),
                    count: Some(1),
                    ..Expected::default()
                },
                line: 0,
            });
        }
        files.push((format!("generated-{n}"), puzzles));
    }
    if args.files.is_empty() && args.random.is_empty() && args.generate.is_empty() {
        let text = DEFAULT_SET;
        let puzzles = kenken::format::read_entries(text, kenken::format::detect(text))
            .map_err(|e| bad_input(format!("the default set: {e}")))?;
        files.push(("default".to_string(), puzzles));
    }
    for f in &args.files {
        let puzzles = read_input(&Input::file(f))?;
        require_valid(puzzles.iter().map(|e| &e.puzzle))?;
        let stem = Path::new(f)
            .file_stem()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned());
        files.push((stem, puzzles));
    }
    let by_size = match args.group {
        Some(g) => g == Group::Size,
        None => args.files.is_empty() && args.random.is_empty() && args.generate.is_empty(),
    };
    let mut out = Vec::new();
    for (stem, puzzles) in files {
        for (i, e) in puzzles.into_iter().enumerate() {
            let name = e
                .puzzle
                .name
                .clone()
                .unwrap_or_else(|| format!("{stem}#{}", i + 1));
            let group = if by_size {
                format!("{0}x{0}", e.puzzle.size)
            } else {
                stem.clone()
            };
            out.push(BenchEntry {
                puzzle: e.puzzle,
                expected: e.expected,
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

/// Runs every engine on every puzzle, then prints the table (and writes `--json`, `--plot`);
/// exit code 1 when an engine gave a wrong answer or failed.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.engines.is_empty() {
        return Err(bad_input("--engines: name at least one engine".into()));
    }
    let entries = entries(&args)?;
    let config = bench::Config {
        engines: args.engines.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        repeat: args.repeat.max(1),
        threads: args.threads,
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
    print!(
        "{}",
        report::fd_vs_plain_text(&report::fd_vs_plain(&records), args.timeout, args.ascii)
    );
    print!("{}", report::layer_text(&report::layer(&records)));
    print!("{}", report::starts_text(&records));
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
    Ok(exit_code(if bad.is_empty() { 0 } else { EXIT_FAILED }))
}
