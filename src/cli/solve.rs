//! `kenken solve`.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use super::{puzzle_name, read_input, require_valid, Input};
use kenken::native::Solver;
use kenken::prolog::worker::{solve_many, Solve, Worker, WorkerError};
use kenken::render::{render, Style};

#[derive(clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    input: Input,
    /// Which solver: native, fd (kenken/3) or plain (plain_kenken/3).
    #[arg(long, default_value = "native", value_parser = ["native", "fd", "plain"])]
    engine: String,
    /// Find every solution.
    #[arg(long, conflicts_with = "limit")]
    all: bool,
    /// Find at most K solutions (default 2, to tell whether the first is unique).
    #[arg(long)]
    limit: Option<usize>,
    /// Print only the number of solutions.
    #[arg(long)]
    count: bool,
    /// Output: grid, json or prolog.
    #[arg(long, default_value = "grid", value_parser = ["grid", "json", "prolog"])]
    output: String,
    /// Wall-clock bound per puzzle, in seconds.
    #[arg(long)]
    timeout: Option<f64>,
    /// ASCII drawing.
    #[arg(long)]
    ascii: bool,
    /// Prolog engines: solve this many puzzles at once, one engine process each.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
}

#[derive(Serialize)]
struct JsonResult<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: &'a Option<String>,
    engine: &'a str,
    count: usize,
    complete: bool,
    solutions: &'a [kenken::Grid],
    /// For puzzles with `?` cages: per solution, per cage, the operators under which it holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    operators: Vec<Vec<Vec<&'static str>>>,
    elapsed_ms: f64,
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

/// Result of one puzzle's solve, engine-independent.
pub struct Outcome {
    pub grids: Vec<kenken::Grid>,
    pub complete: bool,
    pub timed_out: bool,
    /// Time the solver took (for Prolog, inside the worker: engine start-up left out).
    pub elapsed_ms: f64,
}

fn solve_one(
    args: &SolveArgs,
    p: &kenken::Puzzle,
    limit: Option<usize>,
    worker: &mut Option<Worker>,
) -> Result<Outcome> {
    let deadline = args
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)));
    match args.engine.as_str() {
        "native" => {
            let start = Instant::now();
            let solver = Solver::new(p)?.with_deadline(deadline);
            let s = solver.solve(limit);
            Ok(Outcome {
                grids: s.grids,
                complete: s.complete,
                timed_out: s.timed_out,
                elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
            })
        }
        engine => {
            // Prolog solves run in a child process (one for the whole file), so that the
            // timeout can really stop them.
            let w = match worker {
                Some(w) => w,
                None => worker.insert(Worker::new(
                    std::env::current_exe().context("finding the kenken program")?,
                    &["worker", engine],
                )),
            };
            prolog_outcome(p, w.solve(p, limit, timeout(args)), args)
        }
    }
}

fn timeout(args: &SolveArgs) -> Option<Duration> {
    args.timeout.map(|t| Duration::from_secs_f64(t.max(0.0)))
}

/// The outcome of a Prolog solve run by a worker.
fn prolog_outcome(
    p: &kenken::Puzzle,
    got: Result<Solve, WorkerError>,
    args: &SolveArgs,
) -> Result<Outcome> {
    Ok(match got? {
        Solve::TimedOut => Outcome {
            grids: Vec::new(),
            complete: false,
            timed_out: true,
            elapsed_ms: timeout(args).map_or(0.0, |t| t.as_secs_f64() * 1000.0),
        },
        Solve::Done(r) => {
            if let Some(e) = r.error {
                anyhow::bail!("{}: {e}", super::puzzle_name(p, 0));
            }
            Outcome {
                grids: r.grids,
                complete: r.complete,
                timed_out: r.inference_limit,
                elapsed_ms: r.elapsed_ms,
            }
        }
    })
}

pub fn run(args: SolveArgs) -> Result<i32> {
    let puzzles = read_input(&args.input)?;
    require_valid(&puzzles)?;
    let limit = if args.all || args.count {
        args.limit
    } else {
        Some(args.limit.unwrap_or(2))
    };
    let mut code = 0;
    let mut worker = None;
    // With --jobs, the Prolog solves run first, on a pool of workers.
    let mut pooled = if args.jobs > 1 && args.engine != "native" {
        let exe = std::env::current_exe().context("finding the kenken program")?;
        let worker_args = ["worker", args.engine.as_str()];
        let all = solve_many(
            &exe,
            &worker_args,
            &puzzles,
            limit,
            timeout(&args),
            args.jobs,
        );
        all.into_iter().map(Some).collect()
    } else {
        Vec::new()
    };
    for (i, p) in puzzles.iter().enumerate() {
        let out = match pooled.get_mut(i).and_then(Option::take) {
            Some(got) => prolog_outcome(p, got, &args)?,
            None => solve_one(&args, p, limit, &mut worker)?,
        };
        let name = puzzle_name(p, i);
        if out.timed_out {
            code = code.max(3);
        } else if out.grids.is_empty() {
            code = code.max(1);
        }
        match args.output.as_str() {
            "json" => println!(
                "{}",
                serde_json::to_string(&JsonResult {
                    name: &p.name,
                    engine: &args.engine,
                    count: out.grids.len(),
                    complete: out.complete,
                    solutions: if args.count { &[] } else { &out.grids },
                    operators: if args.count {
                        Vec::new()
                    } else {
                        out.grids
                            .iter()
                            .map(|g| noop_operators(p, g))
                            .filter(|o| !o.is_empty())
                            .collect()
                    },
                    elapsed_ms: out.elapsed_ms,
                })?
            ),
            _ if args.count => {
                let more = if out.complete { "" } else { "+ (incomplete)" };
                println!("{name}: {}{more} solutions", out.grids.len());
            }
            "prolog" => {
                for g in &out.grids {
                    println!("T = {}.", kenken::prolog::grid_term(g));
                }
                if out.grids.is_empty() {
                    println!("false.");
                }
            }
            _ => {
                if puzzles.len() > 1 {
                    println!("{name}:");
                }
                if out.grids.is_empty() {
                    println!(
                        "{}",
                        if out.timed_out {
                            "timed out"
                        } else {
                            "no solution"
                        }
                    );
                }
                for g in &out.grids {
                    print!("{}", render(p, Some(g), Style { ascii: args.ascii }));
                    print!("{}", noop_lines(p, g));
                }
                let status = if out.timed_out {
                    format!(
                        "stopped by the timeout after {} solution(s)",
                        out.grids.len()
                    )
                } else if out.complete && out.grids.len() == 1 {
                    "unique solution".into()
                } else if out.complete {
                    format!("{} solutions", out.grids.len())
                } else {
                    format!("at least {} solutions (limit reached)", out.grids.len())
                };
                if !out.grids.is_empty() {
                    println!("{status} ({:.3} ms, {})", out.elapsed_ms, args.engine);
                }
            }
        }
    }
    Ok(code)
}
