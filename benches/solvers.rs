//! Criterion benches: the native solver on the Keen and real-world files, and the embedded
//! `kenken/3` and `plain_kenken/3` on fixed puzzles. Run with `cargo bench --bench solvers`.
//! Every solve asks for two solutions, so uniqueness is proven as `kenken solve` does.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kenken::native::Solver;
use kenken::prolog::{Engine, Predicate, DEFAULT_INFERENCE_LIMIT};
use kenken::Puzzle;

fn puzzles(text: &str) -> Vec<Puzzle> {
    kenken::format::read_auto(text).expect("shipped puzzles read")
}

fn native(c: &mut Criterion) {
    let files = [
        (
            "keen-9du",
            include_str!("../tests/data/keen/keen-9du.jsonl"),
        ),
        (
            "keen-9dx",
            include_str!("../tests/data/keen/keen-9dx.jsonl"),
        ),
        (
            "keen-6dx",
            include_str!("../tests/data/keen/keen-6dx.jsonl"),
        ),
        ("real-world", include_str!("../tests/data/real-world.jsonl")),
    ];
    let mut group = c.benchmark_group("native");
    for (name, text) in files {
        let ps = puzzles(text);
        group.throughput(Throughput::Elements(ps.len() as u64));
        group.bench_with_input(BenchmarkId::new("file", name), &ps, |b, ps| {
            b.iter(|| {
                for p in ps {
                    let s = Solver::new(p).expect("valid").solve(Some(2));
                    black_box(s.grids.len());
                }
            })
        });
    }
    let menneske = puzzles(include_str!("../tests/data/real-world.jsonl"))
        .into_iter()
        .find(|p| p.name.as_deref() == Some("menneske9-4474"));
    if let Some(p) = menneske {
        group.bench_function("menneske9-4474", |b| {
            b.iter(|| black_box(Solver::new(&p).expect("valid").solve(Some(2))))
        });
    }
    group.finish();
}

fn prolog(c: &mut Criterion) {
    let spec = puzzles(include_str!("../examples/spec-6x6.jsonl")).remove(0);
    let keen9 = puzzles(include_str!("../tests/data/keen/keen-9du.jsonl")).remove(0);
    let mut engine = Engine::new();
    let mut group = c.benchmark_group("prolog");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, p, pred) in [
        ("kenken/3 spec-6x6", &spec, Predicate::Fd),
        ("plain_kenken/3 spec-6x6", &spec, Predicate::Plain),
        ("kenken/3 keen-9du#1", &keen9, Predicate::Fd),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let s = engine
                    .solve(p, pred, Some(2), DEFAULT_INFERENCE_LIMIT)
                    .expect("solves");
                black_box(s.grids.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, native, prolog);
criterion_main!(benches);
