//! What our layer adds to a goal's cost, route by route: the same goals through every door of
//! the library and the command line, each set beside `time/1` of the same goal inside the
//! same kind of engine.
//!
//! `cargo run --release --example layer_cost [ROUNDS] [quick]` (default 3 rounds; medians are
//! printed; `quick`: the spec's two puzzles only, as the test script runs it).
//!
//! The goals: `kenken/3` on the spec's 6x6 (one answer), on the empty 4x4 (576 answers: what
//! each answer costs), on a Keen 9x9, and `plain_kenken/3` on the spec's 4x4 (a goal of a few
//! milliseconds: what each call costs). The routes:
//! - `time/1`: `time(findall(T, Goal, _))` in a `Session` (the reference, "1");
//! - `Session::solve`: the answers as grids in this thread (CPU time of this thread);
//! - in-process engine: `EngineKind::Fd|Plain` in this process (the report's time, and the
//!   engine's own CPU time, `Stats::cpu_us`);
//! - worker engine: the same in a worker process (what `solve` and `bench` use);
//! - `QueryWorker`: the goal's answers through the query API of a worker;
//! - `kenken query`: `time/1` inside the top level's own engine (the binary beside this
//!   example, when it is built), against the reference.
//!
//! A reader checks the ratio column: every route should be close to 1 (a constant per call,
//! never a factor). Wall-clock times grow with the load of the machine; CPU times do not.

use std::process::Command;
use std::time::Instant;

use kenken::engine::{Engine, EngineKind, Isolation, Report, Request};
use kenken::prolog::{Query, QueryWorker, Session};

/// A Keen 9x9 "unreasonable" puzzle.
const KEEN_9X9: &str = "9du:aa_3a_6a_3aa_a__a__a_3aa__aa_4b__aa_3a3_3baa_a_3a_a__a__a3_a_a_3a__a3_5a_a__b_baa,m18m6s2d4s2a10m60a14a12s3d3s3m16a18d3a15s2d2m112a8a10d3a7m12s5s2s6a10m1080m210s1m12d2d2s2d4";

/// A goal of the homework, and the puzzle it solves.
struct Goal {
    name: &'static str,
    engine: EngineKind,
    puzzle: kenken::Puzzle,
}

impl Goal {
    /// The goal's text, binding `T`, without its final `.`.
    fn text(&self) -> String {
        let predicate = if self.engine == EngineKind::Fd {
            "kenken"
        } else {
            "plain_kenken"
        };
        let cages: Vec<String> = self
            .puzzle
            .cages
            .iter()
            .map(kenken::format::prolog::cage_text)
            .collect();
        format!(
            "{predicate}({}, [{}], T)",
            self.puzzle.size,
            cages.join(", ")
        )
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The CPU time `time/1` printed (`% CPU time: 0.087s, ...`), in milliseconds.
fn time1_ms(printed: &str) -> Option<f64> {
    let rest = printed.split("CPU time: ").nth(1)?;
    let secs: f64 = rest.split('s').next()?.trim().parse().ok()?;
    Some(secs * 1000.0)
}

/// The CPU time this thread has used, in milliseconds.
fn thread_cpu_ms() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let Ok(u) = getrusage(UsageWho::RUSAGE_THREAD) else {
        return f64::NAN;
    };
    let ms = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1000.0 + t.tv_usec() as f64 / 1000.0;
    ms(u.user_time()) + ms(u.system_time())
}

/// The query of `time(findall(T, Goal, _))`.
fn reference(goal: &Goal) -> Query {
    Query::new(&format!("time(findall(T, {}, _)).", goal.text()))
}

/// What the query's goal printed, once its answers are all read: `time/1`'s CPU time in
/// milliseconds.
fn printed_time<S: kenken::prolog::AnswerSource>(
    answers: Result<kenken::prolog::Answers<'_, S>, kenken::prolog::QueryError>,
) -> f64 {
    answers
        .ok()
        .and_then(|mut a| {
            let _ = a.by_ref().count();
            time1_ms(a.printed())
        })
        .unwrap_or(f64::NAN)
}

/// An engine in this process and one in a worker.
type Engines = [Box<dyn Engine>; 2];

/// One row of the table.
struct Row {
    route: &'static str,
    goal: &'static str,
    /// The reference, `time/1` in the same kind of engine.
    time1_ms: f64,
    /// What the route reports or takes, wall clock.
    wall_ms: f64,
    /// The CPU time the route measured, where it does.
    cpu_ms: Option<f64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    kenken::worker::init();
    kenken::quiet_on_closed_stdout();
    let rounds: usize = std::env::args().nth(1).map_or(Ok(3), |s| s.parse())?;
    let rounds = rounds.max(1);
    let quick = std::env::args().nth(2).as_deref() == Some("quick");

    let read = |text: &str| -> Result<kenken::Puzzle, Box<dyn std::error::Error>> {
        Ok(kenken::format::read_auto(text)?.remove(0))
    };
    let goals = [
        Goal {
            name: "kenken/3, spec 6x6",
            engine: EngineKind::Fd,
            puzzle: read(include_str!("spec-6x6.pl"))?,
        },
        Goal {
            name: "kenken/3, empty 4x4 (576)",
            engine: EngineKind::Fd,
            puzzle: read("kenken(4, [], T).")?,
        },
        Goal {
            name: "kenken/3, Keen 9x9",
            engine: EngineKind::Fd,
            puzzle: read(KEEN_9X9)?,
        },
        Goal {
            name: "plain_kenken/3, spec 4x4",
            engine: EngineKind::Plain,
            puzzle: read(include_str!("spec-4x4.pl"))?,
        },
    ];

    let goals: Vec<Goal> = goals
        .into_iter()
        .filter(|g| !quick || g.name.contains("spec"))
        .collect();
    let mut session = Session::new();
    let mut worker = QueryWorker::new()?;
    let mut engines: Vec<(EngineKind, Engines)> = Vec::new();
    for kind in [EngineKind::Fd, EngineKind::Plain] {
        let worker_engine = kind.open(Isolation::Worker)?;
        let in_process = kind.open(Isolation::InProcess)?;
        engines.push((kind, [in_process, worker_engine]));
    }
    let toplevel = std::env::current_exe()?
        .parent()
        .and_then(|examples| examples.parent())
        .map(|dir| dir.join("kenken"))
        .filter(|p| p.exists());

    let mut rows = Vec::new();
    for goal in &goals {
        let mut row = |route: &'static str, time1: Vec<f64>, wall: Vec<f64>, cpu: Vec<f64>| {
            rows.push(Row {
                route,
                goal: goal.name,
                time1_ms: median(time1),
                wall_ms: median(wall),
                cpu_ms: (!cpu.is_empty() && cpu.iter().all(|c| c.is_finite())).then(|| median(cpu)),
            })
        };
        let (mut t1, mut wall, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            t1.push(printed_time(session.query(&reference(goal))));
            let (c, t) = (thread_cpu_ms(), Instant::now());
            let q = Query::new(&format!("{}.", goal.text())).without_text();
            let n = session.query(&q).map(|a| a.count()).unwrap_or(0);
            wall.push(t.elapsed().as_secs_f64() * 1000.0);
            cpu.push(thread_cpu_ms() - c);
            assert!(n > 0, "{}: no answer through a Session", goal.name);
        }
        row("Session::query", t1.clone(), wall, cpu);

        let (_, [in_process, worker_engine]) = engines
            .iter_mut()
            .find(|(k, _)| *k == goal.engine)
            .ok_or("no engine")?;
        for (route, engine) in [
            ("in-process engine", in_process),
            ("worker engine", worker_engine),
        ] {
            let (mut wall, mut cpu) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                engine.settle();
                let r: Report = engine.solve(&goal.puzzle, &Request::all());
                assert!(r.count > 0, "{}: {route}: {:?}", goal.name, r.error);
                wall.push(r.elapsed_ms());
                cpu.push(r.stats.cpu_us.map_or(f64::NAN, |us| us as f64 / 1000.0));
            }
            row(route, t1.clone(), wall, cpu);
        }

        let (mut t1w, mut wall) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            t1w.push(printed_time(worker.query(&reference(goal))));
            let t = Instant::now();
            let q = Query::new(&format!("{}.", goal.text())).without_text();
            let n = worker.query(&q).map(|a| a.count()).unwrap_or(0);
            wall.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(n > 0, "{}: no answer through a QueryWorker", goal.name);
        }
        row("QueryWorker::query", t1w, wall, Vec::new());

        if let Some(kenken) = &toplevel {
            let mut top = Vec::new();
            for _ in 0..rounds {
                let out = Command::new(kenken)
                    .args(["query", &format!("time(findall(T, {}, _)).", goal.text())])
                    .output()?;
                let text = String::from_utf8_lossy(&out.stdout).into_owned()
                    + &String::from_utf8_lossy(&out.stderr);
                top.push(time1_ms(&text).unwrap_or(f64::NAN));
            }
            // (the top level's time/1 against a Session's: the same goal in another engine)
            row("kenken query (time/1)", t1.clone(), top, Vec::new());
        }
    }

    println!(
        "our layer, route by route (median of {rounds}; ratio: the route's time ÷ time/1 of the \
         same goal in the same kind of engine; CPU where the route measures it):"
    );
    println!(
        "  {:<24} {:<26} {:>10} {:>10} {:>10} {:>7} {:>7}",
        "route", "goal", "time/1", "wall", "CPU", "wall ÷", "CPU ÷"
    );
    for r in &rows {
        let ratio = |x: f64| format!("×{:.2}", x / r.time1_ms.max(1e-3));
        println!(
            "  {:<24} {:<26} {:>10} {:>10} {:>10} {:>7} {:>7}",
            r.route,
            r.goal,
            format!("{:.1} ms", r.time1_ms),
            format!("{:.1} ms", r.wall_ms),
            r.cpu_ms.map_or("-".into(), |c| format!("{c:.1} ms")),
            ratio(r.wall_ms),
            r.cpu_ms.map_or("-".into(), ratio),
        );
    }
    if toplevel.is_none() {
        println!(
            "  (kenken query: the binary is not built beside this example; cargo build first)"
        );
    }
    Ok(())
}
