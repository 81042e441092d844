//! Runs `kenken/3` and `plain_kenken/3` (and the native solver) through the library on the same
//! puzzles, each in a killable worker process with a deadline, and prints their reports side by
//! side.
//!
//! `cargo run --release --example prolog_reports [TIMEOUT_SECS]` (default 2 s). A program that
//! uses worker engines calls `kenken::worker::init()` first thing in `main`.
//!
//! It prints a table, one row per engine (`native`, `fd` for `kenken/3`, `plain` for
//! `plain_kenken/3`) and puzzle (the spec's 4x4 and 6x6, a Keen 9x9): status, solutions,
//! milliseconds and Prolog inferences. A reader checks that the engines agree where they finish
//! (6 solutions for the 4x4, one for the 6x6 and the 9x9), that the native solver takes well
//! under a millisecond each, and that `plain` stops at the 9x9's deadline (`timeout`, 2000 ms)
//! where `fd` finishes in about a second (or, on a busy machine, times out too). Bare, it takes
//! some 5 s (15 s on a loaded machine): a worker starts per engine, and a solve that times out
//! waits out its deadline.

use std::time::Duration;

use kenken::engine::{EngineKind, Isolation, Request};

const PUZZLES: &str = concat!(include_str!("spec-4x4.pl"), include_str!("spec-6x6.pl"),);
/// A Keen 9x9 "unreasonable" puzzle, which plain enumeration does not finish in a few seconds.
const KEEN_9X9: &str = "9du:aa_3a_6a_3aa_a__a__a_3aa__aa_4b__aa_3a3_3baa_a_3a_a__a__a3_a_a_3a__a3_5a_a__b_baa,m18m6s2d4s2a10m60a14a12s3d3s3m16a18d3a15s2d2m112a8a10d3a7m12s5s2s6a10m1080m210s1m12d2d2s2d4";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::worker::init();
    kenken::quiet_on_closed_stdout();
    let timeout = std::env::args()
        .nth(1)
        .map(|s| s.parse::<f64>())
        .transpose()?
        .unwrap_or(2.0);
    let mut puzzles = kenken::format::read_auto(PUZZLES)?;
    puzzles.extend(kenken::format::read_auto(KEEN_9X9)?);
    let request = Request::all().with_timeout(Duration::from_secs_f64(timeout));
    println!("every solution, {timeout} s per solve; Prolog runs in worker processes\n");
    println!(
        "{:<8} {:<7} {:<12} {:>9} {:>12} {:>14}",
        "puzzle", "engine", "status", "solutions", "time (ms)", "inferences"
    );
    for kind in EngineKind::BUILT_IN {
        let mut engine = kind.open(Isolation::Worker)?;
        for p in &puzzles {
            let r = engine.solve(p, &request);
            println!(
                "{:<8} {:<7} {:<12} {:>9} {:>12.3} {:>14}",
                format!("{}x{}", p.size, p.size),
                kind.name(),
                r.status.name(),
                r.count,
                r.elapsed_ms(),
                r.stats
                    .inferences
                    .map_or_else(|| "-".to_string(), |i| i.to_string())
            );
            if let Some(e) = r.error {
                println!("  error: {e}");
            }
        }
    }
    Ok(())
}
