//! Prints the benchmark's random puzzles as JSON lines (the crate's JSON notation, plus `grid`:
//! the Latin square each was cut from), for scripts that must solve exactly the same puzzles.
//!
//! `cargo run --release --example random_puzzles -- [SIZE] [--seed S] [--count K]` (with SIZE:
//! seed 0, 10 puzzles by default, as `kenken bench` makes them).
//!
//! Run bare (`cargo run --example random_puzzles`), it prints the two 12x12 puzzles
//! `random-12-0` and `random-12-1`, those `native_times` times bare. A reader checks each line's
//! `name` and `size`, that its `grid` is a Latin square of side 12 (each row and column holds 1 to
//! 12 once), and that each cage has one to four cells.

use kenken::random;

/// The side of the puzzles printed when no SIZE is given (as `native_times` times bare).
const QUICK_SIZE: usize = 12;

fn main() {
    kenken::quiet_on_closed_stdout();
    let mut args = std::env::args().skip(1);
    let (mut size, mut seed, mut count) = (None, 0u64, None);
    while let Some(a) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--seed" => seed = value().unwrap_or_else(|| usage()),
            "--count" => count = Some(value().unwrap_or_else(|| usage()) as usize),
            _ => size = Some(a.parse::<usize>().unwrap_or_else(|_| usage())),
        }
    }
    // Without SIZE, the quick run's puzzles; with it, the benchmark's count.
    let (size, count) = match size {
        None => (QUICK_SIZE, count.unwrap_or(2)),
        Some(n) if (1..=64).contains(&n) => (n, count.unwrap_or(10)),
        Some(_) => usage(),
    };
    for (p, grid) in random::puzzles(size, seed, count) {
        let line = kenken::format::json::write(&p, &kenken::format::Expected::default())
            .expect("a generated puzzle is writable");
        let mut v: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
        v["grid"] = serde_json::json!(grid);
        println!("{v}");
    }
}

fn usage() -> ! {
    eprintln!("usage: random_puzzles [SIZE(1-64)] [--seed S] [--count K]");
    std::process::exit(2)
}
