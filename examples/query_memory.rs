//! What each query costs in resident memory, a `Session`'s against Scryer's own:
//! `cargo run --example query_memory [N]` (N queries of each kind, 20,000 by default).
//!
//! Prints, for `X = 1` through `Session::query` and for the same goal run bare on a Scryer
//! `Machine` (the query text parsed and run, no wrapper), the resident memory after N/4
//! queries (the heap warm) and after N, and the growth per query between: what is left of
//! the difference is the library's. The same for a `Session` without the answers' text, and
//! for a bare goal as long as the wrapper's call (Scryer's own cost of a longer text). Linux only (`/proc/self/status`).

use kenken::prolog::{Query, Session};

fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?.to_string();
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Runs `step` `n` times: the resident memory after a quarter of them, and after all.
fn measure(n: usize, mut step: impl FnMut()) -> (u64, u64) {
    let mut warm = 0;
    for i in 0..n {
        if i == n / 4 {
            warm = resident_kib();
        }
        step();
    }
    (warm, resident_kib())
}

fn report(what: &str, n: usize, (warm, end): (u64, u64)) {
    let per = (end.saturating_sub(warm) * 1024) as f64 / (n - n / 4) as f64;
    println!(
        "{what}: {warm} KiB after {} queries, {end} KiB after {n}: {per:.0} B a query",
        n / 4
    );
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut session = Session::new();
    let q = Query::new("X = 1");
    let got = measure(n, || {
        let answers = session.query(&q).unwrap();
        answers.collect_all().unwrap();
    });
    report("Session::query(X = 1)", n, got);
    let q = Query::new("X = 1").without_text();
    let got = measure(n, || {
        let answers = session.query(&q).unwrap();
        answers.collect_all().unwrap();
    });
    report("Session::query(X = 1), without_text", n, got);
    let mut machine = scryer_prolog::MachineBuilder::default().build();
    let got = measure(n, || {
        let _ = machine.run_query("X = 1.".to_string()).count();
    });
    report("Machine::run_query(X = 1.)", n, got);
    // (a goal as long as the wrapper's call, about 120 characters: Scryer's cost of the text)
    let long = format!("X = 1, _ = \"{}\".", "a".repeat(110));
    let got = measure(n, || {
        let _ = machine.run_query(long.clone()).count();
    });
    report(
        "Machine::run_query(X = 1, _ = \"a...\" of 120 characters)",
        n,
        got,
    );
}
