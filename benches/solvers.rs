//! Criterion benches: the native solver on the Keen and real-world files, and the embedded
//! `kenken/3` and `plain_kenken/3` on fixed puzzles. Run with `cargo bench --bench solvers`.
//! Every solve asks for two solutions, so uniqueness is proven as `kenken solve` does.

// criterion_group! defines a function without a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kenken::engine::{Engine, EngineKind, NativeEngine, PrologEngine, Request};
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
                    black_box(NativeEngine.solve(p, &Request::unique()).count);
                }
            })
        });
    }
    let menneske = puzzles(include_str!("../tests/data/real-world.jsonl"))
        .into_iter()
        .find(|p| p.name.as_deref() == Some("menneske9-4474"));
    if let Some(p) = menneske {
        group.bench_function("menneske9-4474", |b| {
            b.iter(|| black_box(NativeEngine.solve(&p, &Request::unique())))
        });
    }
    group.finish();
}

fn prolog(c: &mut Criterion) {
    let spec = puzzles(include_str!("../examples/spec-6x6.jsonl")).remove(0);
    let keen9 = puzzles(include_str!("../tests/data/keen/keen-9du.jsonl")).remove(0);
    let mut fd = PrologEngine::new(EngineKind::Fd).expect("a Prolog engine");
    let mut plain = PrologEngine::new(EngineKind::Plain).expect("a Prolog engine");
    let mut group = c.benchmark_group("prolog");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, p, engine) in [
        ("kenken/3 spec-6x6", &spec, &mut fd),
        ("plain_kenken/3 spec-6x6", &spec, &mut plain),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(engine.solve(p, &Request::unique()).count))
        });
    }
    group.bench_function("kenken/3 keen-9du#1", |b| {
        b.iter(|| black_box(fd.solve(&keen9, &Request::unique()).count))
    });
    group.finish();
}

criterion_group!(benches, native, prolog);
criterion_main!(benches);
