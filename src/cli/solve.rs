//! `kenken solve`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use super::args::{at_least_one, engine, seconds, threads};
use super::input::{puzzle_name, read_input_each, Input};
use super::{count_of, exit_code, EXIT_BAD_INPUT};
use kenken::engine::{solve_all, EngineKind, Isolation, Report, Request, Stats, Status};
use kenken::puzzle::Severity;
use kenken::render::{render, Style};

/// The arguments of `kenken solve`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Which solver: native, fd (kenken/3) or plain (plain_kenken/3) in Scryer Prolog,
    /// gprolog-fd and gprolog-plain (prolog/gnu_kenken.pl under GNU Prolog), or swipl-fd and
    /// swipl-plain (prolog/swi_kenken.pl under SWI-Prolog), the last four when installed.
    #[arg(long, default_value_t = EngineKind::Native, value_parser = engine())]
    engine: EngineKind,
    /// Find every solution.
    #[arg(long, conflicts_with = "limit")]
    all: bool,
    /// Find at most K solutions (default 2, to tell whether the first is unique).
    #[arg(long, value_parser = at_least_one)]
    limit: Option<usize>,
    /// Print only the number of solutions.
    #[arg(long)]
    count: bool,
    /// Output: grid, json or prolog.
    #[arg(long, value_enum, default_value_t = Output::Grid)]
    output: Output,
    /// Wall-clock bound per puzzle, in seconds.
    #[arg(long, value_parser = seconds)]
    timeout: Option<f64>,
    /// ASCII drawing.
    #[arg(long)]
    ascii: bool,
    /// Solve this many puzzles at once (for fd and plain, one engine process each).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    jobs: usize,
    /// Threads the native solver may use for one puzzle (default: the machine's cores divided
    /// by --jobs). A large puzzle whose search runs long goes on as that many searches at
    /// once; with more than one, which of several solutions comes first may vary between runs.
    #[arg(long, value_parser = threads)]
    threads: Option<usize>,
    /// Print search statistics (nodes, failures, propagations, restarts; inferences and the
    /// engine's own CPU time for the goal for Scryer) and the time of each puzzle.
    #[arg(long)]
    stats: bool,
}

/// What `solve` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    Grid,
    Json,
    Prolog,
}

#[derive(Serialize)]
struct JsonResult<'a> {
    /// 1-based position of the puzzle in the input.
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: &'a Option<String>,
    engine: &'a str,
    status: &'a str,
    count: u64,
    complete: bool,
    solutions: &'a [kenken::Grid],
    /// For puzzles with `?` cages: per solution, per cage, the operators under which it holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    operators: Vec<Vec<Vec<&'static str>>>,
    elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<&'a Stats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// For a puzzle with `?` cages, the operators each cage holds under in `g`; empty otherwise.
fn noop_operators(p: &kenken::Puzzle, g: &kenken::Grid) -> Vec<Vec<&'static str>> {
    if !p.cages.iter().any(|c| c.op == kenken::Op::Unknown) {
        return Vec::new();
    }
    p.operators_holding(g)
        .into_iter()
        .map(|ops| ops.into_iter().map(kenken::Op::symbol).collect())
        .collect()
}

/// The `?` cages' operators as lines for a person: `cage 1 (3? at A1 A2): + -`.
fn noop_lines(p: &kenken::Puzzle, g: &kenken::Grid) -> String {
    let ops = noop_operators(p, g);
    let mut out = String::new();
    for (i, (cage, ops)) in p.cages.iter().zip(&ops).enumerate() {
        if cage.op == kenken::Op::Unknown && cage.cells.len() > 1 {
            out.push_str(&format!("{}: {}\n", cage.describe(i), ops.join(" ")));
        }
    }
    out
}

/// How a report ended, in words, for the grid output.
fn ending(r: &Report) -> String {
    let n = count_of(r.count, "solution");
    match r.status {
        Status::Timeout => format!("stopped by the timeout after {n}"),
        Status::Limit => format!("stopped by the inference limit after {n}"),
        Status::Unique => "unique solution".into(),
        _ if r.complete => n,
        _ => format!("at least {n} (limit reached)"),
    }
}

/// Solves every puzzle of the input; the exit code is the worst of the puzzles' (2 for one
/// that cannot be read).
pub fn run(args: Args) -> Result<ExitCode> {
    // A puzzle that cannot be read or is invalid is reported (by number and line) and the
    // others are still solved.
    let (file, each) = read_input_each(&args.input)?;
    let engine = args.engine;
    let puzzles: Vec<kenken::Puzzle> = each.iter().flatten().map(|e| e.puzzle.clone()).collect();
    let mut reports = solve_all(
        engine,
        Isolation::Worker,
        puzzles,
        request(&args),
        args.jobs,
    );
    let several = each.len() > 1;
    let mut code = 0;
    for (i, entry) in each.iter().enumerate() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                eprintln!("kenken: {file}: {e} (puzzle {})", i + 1);
                code = code.max(EXIT_BAD_INPUT);
                if args.output == Output::Json {
                    println!(
                        "{}",
                        serde_json::json!({"index": i + 1, "engine": engine.name(),
                            "status": "error", "error": e.to_string()})
                    );
                }
                continue;
            }
        };
        let Some(r) = reports.next() else { break };
        let p = &entry.puzzle;
        let name = puzzle_name(p, i);
        for w in p
            .validate()
            .iter()
            .filter(|w| w.severity == Severity::Warning)
        {
            eprintln!("kenken: {name} (line {}): {w}", entry.line);
        }
        code = code.max(r.status.exit_code());
        if let Some(e) = &r.error {
            eprintln!("kenken: {name} (line {}): {e}", entry.line);
        }
        match args.output {
            Output::Json => print_json(&args, i, p, &r)?,
            _ if args.count => print_count(&name, &r),
            Output::Prolog => print_prolog(&r),
            Output::Grid => {
                if several {
                    println!("{name}:");
                }
                print_grids(&args, p, &r);
            }
        }
        if args.stats && args.output != Output::Json {
            println!("{}", stats_line(&r));
        }
    }
    Ok(exit_code(code))
}

/// What the options ask of the engine: two solutions by default (to tell whether the first is
/// unique), the machine's cores shared among the jobs.
fn request(args: &Args) -> Request {
    let limit = if args.all || args.count {
        args.limit
    } else {
        Some(args.limit.unwrap_or(2))
    };
    let request = Request {
        limit,
        timeout: args.timeout.map(|t| Duration::from_secs_f64(t.max(0.0))),
        ..Request::all()
    }
    .with_threads(args.threads.unwrap_or_else(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / args.jobs).max(1)
    }));
    if args.count {
        request.counting()
    } else {
        request
    }
}

/// `--output json`: one line for the puzzle at 0-based `i`.
fn print_json(args: &Args, i: usize, p: &kenken::Puzzle, r: &Report) -> Result<()> {
    println!(
        "{}",
        serde_json::to_string(&JsonResult {
            index: i + 1,
            name: &p.name,
            engine: args.engine.name(),
            status: r.status.name(),
            count: r.count,
            complete: r.complete,
            solutions: &r.solutions,
            operators: r
                .solutions
                .iter()
                .map(|g| noop_operators(p, g))
                .filter(|o| !o.is_empty())
                .collect(),
            elapsed_ms: r.elapsed_ms(),
            stats: args.stats.then_some(&r.stats),
            error: r.error.as_ref().map(ToString::to_string),
        })?
    );
    Ok(())
}

/// `--count`: the number of solutions, and whether the search finished.
fn print_count(name: &str, r: &Report) {
    let n = count_of(r.count, "solution");
    match r.status {
        Status::Timeout => println!("{name}: at least {n} (timed out)"),
        Status::Limit => println!("{name}: at least {n} (inference limit reached)"),
        _ if r.complete => println!("{name}: {n}"),
        _ => println!("{name}: at least {n} (limit reached)"),
    }
}

/// `--output prolog`: the answers as the top level gives them.
fn print_prolog(r: &Report) {
    for g in &r.solutions {
        println!("T = {}.", kenken::prolog::grid_term(g));
    }
    // `false.` only when the search proved there is nothing (more) to find.
    match r.status {
        Status::NoSolution => println!("false."),
        Status::Timeout => println!(
            "% the time limit was reached after {}: the search did not finish",
            count_of(r.count, "solution")
        ),
        Status::Limit => println!(
            "% the inference limit was reached after {}: the search did not finish",
            count_of(r.count, "solution")
        ),
        _ => {}
    }
}

/// `--output grid`: each solution drawn in its cages, then how the search ended.
fn print_grids(args: &Args, p: &kenken::Puzzle, r: &Report) {
    if r.solutions.is_empty() {
        println!(
            "{}",
            match r.status {
                Status::Timeout => "timed out",
                Status::Limit => "inference limit reached",
                Status::Error => "error",
                _ => "no solution",
            }
        );
    }
    for g in &r.solutions {
        print!("{}", render(p, Some(g), Style { ascii: args.ascii }));
        print!("{}", noop_lines(p, g));
    }
    if !r.solutions.is_empty() {
        println!("{} ({:.3} ms, {})", ending(r), r.elapsed_ms(), args.engine);
    }
}

/// The `--stats` line: every statistic the engine measured.
fn stats_line(r: &Report) -> String {
    let s = &r.stats;
    let mut parts = vec![format!("time {:.3} ms", r.elapsed_ms())];
    if let Some(us) = s.cpu_us {
        parts.push(format!("engine CPU {:.3} ms", us as f64 / 1000.0));
    }
    for (name, v) in [
        ("nodes", s.nodes),
        ("failures", s.failures),
        ("propagations", s.propagations),
        ("restarts", s.restarts),
        ("inferences", s.inferences),
    ] {
        if let Some(v) = v {
            parts.push(format!("{name} {v}"));
        }
    }
    format!("stats: {}", parts.join(", "))
}
