//! Criterion benches for `kenken generate` and `kenken grade`: one generated puzzle per
//! iteration (each with the next seed, so the figures are over many puzzles) for each size and
//! difficulty, and grading the shipped 9x9 Keen puzzles. Run with `cargo bench --bench generate`.

// criterion_group! defines a function without a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kenken::generate::{generate, Options};
use kenken::logic::{grade, Level};

/// Bound on one puzzle, so that a slow seed cannot stall the run.
const PER_PUZZLE: Duration = Duration::from_secs(60);

fn generation(c: &mut Criterion) {
    for size in [4, 6, 9, 12, 16] {
        let mut group = c.benchmark_group(format!("generate-{size}x{size}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if size > 9 { 20 } else { 5 }));
        for level in Level::ALL {
            let opts = Options::new(size, level);
            let mut seed = 0u64;
            group.bench_with_input(BenchmarkId::from_parameter(level), &opts, |b, opts| {
                b.iter(|| {
                    seed += 1;
                    black_box(generate(opts, seed, Instant::now().checked_add(PER_PUZZLE)).ok())
                })
            });
        }
        group.finish();
    }
}

fn grading(c: &mut Criterion) {
    let mut group = c.benchmark_group("grade-keen-9x9");
    for d in ["e", "n", "h", "x", "u"] {
        let path = format!(
            "{}/tests/data/keen/keen-9d{d}.jsonl",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).expect("shipped Keen puzzles");
        let puzzles = kenken::format::read_auto(&text).expect("shipped puzzles read");
        group.bench_function(d, |b| {
            b.iter(|| {
                for p in &puzzles {
                    black_box(grade(p, None).ok());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generation, grading);
criterion_main!(benches);
