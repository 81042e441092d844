//! Where a Prolog engine's start goes, and what the warm spare saves after a timeout.
//!
//! `cargo run --release --example worker_start [ROUNDS]` (default 3; medians are printed).
//!
//! It prints three tables. A reader checks:
//! - the start in this thread by stage: Scryer's machine, the libraries `kenken.pl` loads
//!   (`clpz` is most of the start), `kenken.pl`, and the host's wrapper;
//! - a worker engine's start (a process of its own, ready to solve), which adds the process
//!   start (a few milliseconds) to the stages above;
//! - the spec's 4x4 solved right after a solve killed at its deadline: with the warm spare
//!   (the default) it takes about what a solve takes; without it, a worker's start more.
//!
//! Times are wall clock on whatever else the machine runs; compare within one run.

use std::time::{Duration, Instant};

use kenken::engine::{Engine, EngineKind, Request, WorkerEngine};

/// A Keen 9x9 "unreasonable" puzzle, which plain enumeration does not finish in a second.
const KEEN_9X9: &str = "9du:aa_3a_6a_3aa_a__a__a_3aa__aa_4b__aa_3a3_3baa_a_3a_a__a__a3_a_a_3a__a3_5a_a__b_baa,m18m6s2d4s2a10m60a14a12s3d3s3m16a18d3a15s2d2m112a8a10d3a7m12s5s2s6a10m1080m210s1m12d2d2s2d4";

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::worker::init();
    kenken::quiet_on_closed_stdout();
    let rounds: usize = std::env::args().nth(1).map_or(Ok(3), |s| s.parse())?;
    let rounds = rounds.max(1);

    println!("an engine's start in this thread, by stage (median of {rounds}):");
    let runs: Vec<_> = (0..rounds)
        .map(|_| kenken::prolog::start_phases())
        .collect();
    let mut total = Duration::ZERO;
    for (i, phase) in runs[0].iter().enumerate() {
        let m = median(runs.iter().map(|r| r[i].time).collect());
        total += m;
        println!("  {:<60} {:>8}", phase.name, ms(m));
    }
    println!("  {:<60} {:>8}", "total", ms(total));

    let mut starts = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let engine = WorkerEngine::new(EngineKind::Fd)?.spare(false);
        starts.push(t.elapsed());
        drop(engine);
    }
    println!(
        "\na worker engine's start (kenken/3), process to ready: {} (median of {rounds})",
        ms(median(starts))
    );

    let hard = kenken::format::read_auto(KEEN_9X9)?.remove(0);
    let spec = kenken::format::read_auto(include_str!("spec-4x4.pl"))?.remove(0);
    let kill = Request::all().with_timeout(Duration::from_millis(200));
    let solve = Request::all().with_timeout(Duration::from_secs(30));
    println!("\nthe spec's 4x4 (plain_kenken/3) right after a solve killed at its deadline:");
    for keep in [true, false] {
        let mut times = Vec::new();
        let mut engine = WorkerEngine::new(EngineKind::Plain)?.spare(keep);
        for _ in 0..rounds {
            engine.settle();
            let killed = engine.solve(&hard, &kill);
            let t = Instant::now();
            let r = engine.solve(&spec, &solve);
            times.push(t.elapsed());
            if killed.status.name() != "timeout" || r.count != 6 {
                return Err(format!("unexpected: {:?} then {:?}", killed.status, r.status).into());
            }
        }
        println!(
            "  {:<22} {:>8} (median of {rounds})",
            if keep {
                "with the warm spare"
            } else {
                "without a spare"
            },
            ms(median(times))
        );
    }
    Ok(())
}
