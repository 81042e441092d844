//! Times the native solver on the benchmark's random puzzles, one JSON line per puzzle: its name,
//! `status` (`two`: two solutions found, `unique`: one found and the search complete, `none`: no
//! solution, `found`: as many as `--limit` asked for, `timeout`), `secs` (preparing the solver included), whether the generator's square
//! was among the solutions found, and the search statistics.
//!
//! `cargo run --release --example native_times -- SIZE [--seed S] [--count K] [--timeout SECS]
//! [--limit L] [--threads T]`
//! (seed 0, 10 puzzles, 20 s, two solutions asked for, and one thread by default, as `kenken
//! bench` does; `--threads 2` lets a long search go on as two at once).

use std::time::{Duration, Instant};

use kenken::native::Solver;
use kenken::random;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut size, mut seed, mut count, mut timeout, mut limit) = (None, 0u64, 10, 20.0f64, 2);
    let mut threads = 1;
    while let Some(a) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<f64>().ok());
        match a.as_str() {
            "--seed" => seed = value().unwrap_or_else(|| usage()) as u64,
            "--count" => count = value().unwrap_or_else(|| usage()) as usize,
            "--limit" => limit = value().filter(|l| *l >= 1.0).unwrap_or_else(|| usage()) as usize,
            "--timeout" => timeout = value().filter(|t| *t > 0.0).unwrap_or_else(|| usage()),
            "--threads" => {
                threads = value().filter(|t| *t >= 1.0).unwrap_or_else(|| usage()) as usize
            }
            _ => size = Some(a.parse::<usize>().unwrap_or_else(|_| usage())),
        }
    }
    let size = size
        .filter(|n| (1..=64).contains(n))
        .unwrap_or_else(|| usage());
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
        "usage: native_times SIZE(1-64) [--seed S] [--count K] [--timeout SECS] [--limit L] \
         [--threads T]"
    );
    std::process::exit(2)
}
