//! The homework from Rust: the spec's 4x4 goal solved by `kenken/3`, `plain_kenken/3` and the
//! native solver, each with a deadline, side by side; a query whose `T` is read from its
//! bindings; and a deadline reached, with the answers found before it kept.
//!
//! ```text
//! cargo run --release --example homework_from_rust
//! ```

use std::time::Duration;

use kenken::engine::{EngineKind, Isolation, Request};
use kenken::prolog::{Query, QueryWorker};
use kenken::Puzzle;

/// The spec's 4x4 example, as its goal is written.
const SPEC_4X4: &str = "kenken(4, [+(6, [[1|1], [1|2], [2|1]]),
    *(96, [[1|3], [1|4], [2|2], [2|3], [2|4]]), -(1, [[3|1], [3|2]]), -(1, [[4|1], [4|2]]),
    +(8, [[3|3], [4|3], [4|4]]), *(2, [[3|4]])], T).";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // First thing: a worker (the engines with a deadline) is this program started again.
    kenken::worker::init();

    // 1. The three engines on the spec's goal, each bounded by 5 seconds.
    let puzzle: Puzzle = SPEC_4X4.parse()?;
    let request = Request::all().with_timeout(Duration::from_secs(5));
    println!(
        "{:<8} {:>7} {:>9}  first answer",
        "engine", "answers", "time"
    );
    for kind in EngineKind::BUILT_IN {
        let report = kind.open(Isolation::Worker)?.solve(&puzzle, &request);
        println!(
            "{:<8} {:>7} {:>7.1}ms  {:?}",
            kind,
            report.count,
            report.elapsed_ms(),
            report.solutions.first()
        );
    }

    // 2. A query, bounded by 5 seconds; its T read from the bindings.
    let mut worker = QueryWorker::new()?;
    let query = Query::new(SPEC_4X4).timeout(Duration::from_secs(5));
    for (i, answer) in worker.query(&query)?.enumerate() {
        println!("answer {}: T = {:?}", i + 1, answer?.grid("T", 4)?);
    }

    // 3. A deadline reached: kenken(6, [], T) has 812,851,200 answers; in 0.5 s
    //    plain_kenken/3 finds some, and they are kept.
    let empty: Puzzle = "kenken(6, [], T).".parse()?;
    let bounded = Request::all().with_timeout(Duration::from_millis(500));
    let report = EngineKind::Plain
        .open(Isolation::Worker)?
        .solve(&empty, &bounded);
    println!(
        "plain_kenken(6, [], T) for 0.5 s: {} after {:.0} ms, {} answers kept, the last {:?}",
        report.status,
        report.elapsed_ms(),
        report.count,
        report.solutions.last()
    );
    Ok(())
}
