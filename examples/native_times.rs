//! Times the native solver on the benchmark's random puzzles, one JSON line per puzzle: its name,
//! `status` (`two`: two solutions found, `unique`: one found and the search complete, `none`: no
//! solution, `found`: as many as `--limit` asked for, `timeout`), `secs` (preparing the solver
//! included), `found_square` (whether the generator's square was among the solutions found), and
//! the search statistics.
//!
//! `cargo run --release --example native_times -- [SIZE] [--seed S] [--count K] [--timeout SECS]
//! [--limit L] [--threads T]`
//! (with SIZE: seed 0, 10 puzzles, 20 s, two solutions asked for, and one thread by default, as
//! `kenken bench` does; `--threads 2` lets a long search go on as two at once).
//!
//! Run bare (`cargo run --example native_times`), it makes a quick run: the two 12x12 puzzles
//! `random-12-0` and `random-12-1` (those `random_puzzles` prints bare), 10 s each. It prints two
//! lines, each with `"status":"two"` (random cages seldom pin down one square) and
//! `"found_square":true`; a reader checks that no line says `timeout` and that each `secs` is a
//! few hundredths of a second at most, far below the limit.

use std::time::{Duration, Instant};

use kenken::native::Solver;
use kenken::random;

/// The side of the puzzles timed when no SIZE is given.
const QUICK_SIZE: usize = 12;

fn main() {
    kenken::quiet_on_closed_stdout();
    let mut args = std::env::args().skip(1);
    let (mut size, mut seed, mut count, mut timeout, mut limit) = (None, 0u64, None, None, 2);
    let mut threads = 1;
    while let Some(a) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<f64>().ok());
        match a.as_str() {
            "--seed" => seed = value().unwrap_or_else(|| usage()) as u64,
            "--count" => count = Some(value().unwrap_or_else(|| usage()) as usize),
            "--limit" => limit = value().filter(|l| *l >= 1.0).unwrap_or_else(|| usage()) as usize,
            "--timeout" => timeout = Some(value().filter(|t| *t > 0.0).unwrap_or_else(|| usage())),
            "--threads" => {
                threads = value().filter(|t| *t >= 1.0).unwrap_or_else(|| usage()) as usize
            }
            _ => size = Some(a.parse::<usize>().unwrap_or_else(|_| usage())),
        }
    }
    // Without SIZE, the quick run; with it, the benchmark's defaults.
    let (size, count, timeout) = match size {
        None => (QUICK_SIZE, count.unwrap_or(2), timeout.unwrap_or(10.0)),
        Some(n) if (1..=64).contains(&n) => (n, count.unwrap_or(10), timeout.unwrap_or(20.0)),
        Some(_) => usage(),
    };
    for (p, grid) in random::puzzles(size, seed, count) {
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(timeout);
        let solver = Solver::new(&p).expect("a generated puzzle is valid");
        let sols = solver
            .with_deadline(Some(deadline))
            .with_threads(threads)
            .solve(Some(limit));
        let secs = start.elapsed().as_secs_f64();
        let status = match (sols.grids.len(), sols.complete) {
            (0, true) => "none",
            (1, true) => "unique",
            (k, _) if k >= 2 => "two",
            (k, _) if k >= limit => "found",
            _ => "timeout",
        };
        let line = serde_json::json!({
            "name": p.name,
            "size": size,
            "status": status,
            "secs": secs,
            "found_square": sols.grids.contains(&grid),
            "stats": sols.stats,
        });
        println!("{line}");
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: native_times [SIZE(1-64)] [--seed S] [--count K] [--timeout SECS] [--limit L] \
         [--threads T]"
    );
    std::process::exit(2)
}
