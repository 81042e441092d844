//! What an answer's text costs, by the shape and size of the answer, through a query worker
//! (issue #45: the text of a list of one-character atoms took quadratic time).
//!
//! `cargo run --example answer_text [MAX_EXPONENT [TIMEOUT_SECONDS]]` (default 6 and 120):
//! for each shape and each size 10^3 .. 10^MAX_EXPONENT, the wall-clock time of the query
//! with its answer's text, and without it (`Query::without_text`; an answer with variables is
//! written all the same). A size whose query passed the timeout stops that shape.
//!
//! The shapes: a list of one-character atoms, a list of fresh variables, a term nested as
//! deep as the size (`f(f(...f(z)...))`), and a long string (an atom's characters). A reader
//! checks that each shape's time grows about tenfold from one size to the next (linear), not a
//! hundredfold (quadratic). Times are wall clock on whatever else the machine runs.

use std::time::{Duration, Instant};

use kenken::prolog::{End, Query, QueryWorker};

/// The goals, by shape: `{N}` is the size; each binds `X` only.
const SHAPES: [(&str, &str); 4] = [
    ("one-char atoms", "length(X, {N}), maplist(=(x), X)"),
    ("fresh variables", "length(X, {N})"),
    ("nested f(...)", "kk_example_deep({N}, X)"),
    (
        "long string",
        "findall(S, (length(L, {N}), maplist(=(x), L), atom_chars(A, L), atom_chars(A, S)), [X])",
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::worker::init();
    let args: Vec<String> = std::env::args().collect();
    let max: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(6);
    let timeout = Duration::from_secs(args.get(2).and_then(|a| a.parse().ok()).unwrap_or(120));
    let mut worker = QueryWorker::new()?;
    let define = "assertz((kk_example_deep(N, T) :- kk_example_deep(N, z, T))), \
                  assertz((kk_example_deep(0, T, T) :- !)), \
                  assertz((kk_example_deep(N, T0, T) :- N1 is N - 1, \
                  kk_example_deep(N1, f(T0), T)))";
    worker.query(&Query::new(define))?.collect_all()?;
    println!(
        "{:<16} {:>9} {:>12} {:>12} {:>12}",
        "shape", "size", "with text", "without", "text bytes"
    );
    for (shape, goal) in SHAPES {
        for e in 3..=max {
            let n = 10usize.pow(e);
            let goal = goal.replace("{N}", &n.to_string());
            let mut times = Vec::new();
            let mut bytes = 0;
            let mut stopped = false;
            for text in [true, false] {
                let q = Query::new(&goal).timeout(timeout);
                let q = if text { q } else { q.without_text() };
                let start = Instant::now();
                let (answers, end) = worker.query(&q)?.collect_all()?;
                times.push(start.elapsed());
                if text {
                    bytes = answers.first().map_or(0, |a| a.text.len());
                }
                if end != End::Complete {
                    println!("{shape:<16} {n:>9}  ended so: {end:?}");
                    stopped = true;
                    break;
                }
            }
            if stopped {
                break;
            }
            println!(
                "{:<16} {:>9} {:>10.3} s {:>10.3} s {:>12}",
                shape,
                n,
                times[0].as_secs_f64(),
                times[1].as_secs_f64(),
                bytes
            );
        }
    }
    Ok(())
}
