//! Prints the benchmark's random puzzles as JSON lines (the crate's JSON notation, plus `grid`:
//! the Latin square each was cut from), for scripts that must solve exactly the same puzzles.
//!
//! `cargo run --release --example random_puzzles -- SIZE [--seed S] [--count K]` (seed 0, 10
//! puzzles by default).

use kenken::random;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut size, mut seed, mut count) = (None, 0u64, 10usize);
    while let Some(a) = args.next() {
        let mut value = || args.next().and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--seed" => seed = value().unwrap_or_else(|| usage()),
            "--count" => count = value().unwrap_or_else(|| usage()) as usize,
            _ => size = Some(a.parse::<usize>().unwrap_or_else(|_| usage())),
        }
    }
    let size = size
        .filter(|n| (1..=64).contains(n))
        .unwrap_or_else(|| usage());
    for (p, grid) in random::puzzles(size, seed, count) {
        let line = kenken::format::json::write(&p, &kenken::format::Expected::default())
            .expect("a generated puzzle is writable");
        let mut v: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
        v["grid"] = serde_json::json!(grid);
        println!("{v}");
    }
}

fn usage() -> ! {
    eprintln!("usage: random_puzzles SIZE(1-64) [--seed S] [--count K]");
    std::process::exit(2)
}
