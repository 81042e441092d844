//! What a large state costs a query, and its replay after a timeout, through a `Session` and
//! a `QueryWorker` (issue #45: at 20,000 asserted facts, a query that may change the state
//! took 31 ms more, and the first query after a timeout 389 ms).
//!
//! `cargo run --example replay_cost [FACTS] [ROUNDS]` (defaults 20000 and 3; the times after
//! a timeout are the best of ROUNDS): asserts FACTS facts,
//! then times, side by side in one run, a query that changes nothing (`X = 1`), one that may
//! change the state (`assertz/1`: the state is taken after it), and, in the worker, `X = 1`
//! asked at once after a timeout (it waits for the state given back to the warm spare that
//! took over) and asked 2 s later (the state was given back meanwhile, in the background), and
//! `X = 1` after the worker was killed (a start, then the replay); and the ratio of each to
//! the query that changes nothing. Then, in the session, `.take(3)` of an endless query and
//! the query after it (a rebuild and a replay when answers dropped early cost one), and the
//! exception text of a term with many variables (`throw(f(L))`, `L` a list of 10^5 fresh
//! variables). Times are wall clock on whatever else the machine runs.

use std::time::{Duration, Instant};

use kenken::prolog::{End, Query, QueryWorker, Session};

/// Calls `run` `times` times, and gives the mean time of one call, in ms.
fn mean(times: u32, mut run: impl FnMut() -> End) -> f64 {
    let start = Instant::now();
    for _ in 0..times {
        let end = run();
        assert!(matches!(end, End::Complete), "{end:?}");
    }
    start.elapsed().as_secs_f64() * 1000.0 / f64::from(times)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::worker::init();
    let facts: u32 = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(20_000);
    let rounds: u32 = std::env::args()
        .nth(2)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(3)
        .max(1);
    let fill = format!("forall(between(1, {facts}, X), assertz(fact(X)))");
    let count = "findall(x, fact(_), L), length(L, N)";

    let mut session = Session::new();
    let mut worker = QueryWorker::new()?;
    let (_, end) = session.query(&Query::new(&fill))?.collect_all()?;
    assert_eq!(end, End::Complete);
    let (_, end) = worker.query(&Query::new(&fill))?.collect_all()?;
    assert_eq!(end, End::Complete);
    let still = Query::new("X = 1");
    let change = Query::new("assertz(other(1))");
    let here_still = mean(20, || {
        session.query(&still).unwrap().collect_all().unwrap().1
    });
    let here_change = mean(20, || {
        session.query(&change).unwrap().collect_all().unwrap().1
    });
    let there_still = mean(20, || {
        worker.query(&still).unwrap().collect_all().unwrap().1
    });
    let there_change = mean(20, || {
        worker.query(&change).unwrap().collect_all().unwrap().1
    });
    println!("{facts} facts asserted; mean of 20 queries:");
    println!(
        "  session: X = 1 {here_still:.2} ms, assertz/1 {here_change:.2} ms (x{:.1})",
        here_change / here_still
    );
    println!(
        "  worker:  X = 1 {there_still:.2} ms, assertz/1 {there_change:.2} ms (x{:.1})",
        there_change / there_still
    );

    // the first query after a timeout: the warm spare that takes over is given the state at
    // once, in the background; a query asked at once waits for that replay, one asked later
    // does not
    for (wait, when) in [(0, "at once"), (2000, "2 s later")] {
        let mut after_timeout = Vec::new();
        for _ in 0..rounds {
            let q = Query::new("repeat, fail").timeout(Duration::from_millis(200));
            worker.query(&q)?.collect_all()?;
            std::thread::sleep(Duration::from_millis(wait));
            let start = Instant::now();
            let (_, end) = worker.query(&still)?.collect_all()?;
            after_timeout.push(start.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(end, End::Complete);
            let (a, _) = worker.query(&Query::new(count))?.collect_all()?;
            assert_eq!(a[0].integer("N")?, i64::from(facts));
        }
        let best = after_timeout.iter().copied().fold(f64::MAX, f64::min);
        println!(
            "  worker: X = 1 asked {when} after a timeout: {best:.0} ms (best of {rounds}; x{:.0} \
             the same query otherwise)",
            best / there_still
        );
    }

    // the first query after the worker was killed while idle
    let pid = worker.pid().ok_or("no worker")?;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid)?),
        nix::sys::signal::Signal::SIGKILL,
    )?;
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    let (_, end) = worker.query(&still)?.collect_all()?;
    println!(
        "  worker: X = 1 after it was killed (a start, then the state given back): {:.0} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );
    assert_eq!(end, End::Complete);
    let (a, _) = worker.query(&Query::new(count))?.collect_all()?;
    assert_eq!(a[0].integer("N")?, i64::from(facts));

    // answers dropped early (`.take(3)`), then a query, in the session (its 20,000 facts)
    let start = Instant::now();
    let taken = session.query(&Query::new("length(_, N)"))?.take(3).count();
    let (_, end) = session.query(&still)?.collect_all()?;
    assert_eq!((taken, end), (3, End::Complete));
    println!(
        "  session: .take(3) of length(_, N), then X = 1: {:.0} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );

    // the text of an exception with 10^5 fresh variables
    for n in [10_000, 100_000] {
        let start = Instant::now();
        let (_, end) = session
            .query(&Query::new(&format!("length(L, {n}), throw(f(L))")))?
            .collect_all()?;
        assert!(matches!(end, End::Exception(_)), "{end:?}");
        println!(
            "  session: throw(f(L)), L of {n} fresh variables: {:.0} ms",
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
