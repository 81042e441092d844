//! The native solver behind the [`Engine`] interface.

use std::time::Instant;

use super::{spec_order, Engine, EngineError, EngineKind, Report, Request, Stats, Status};
use crate::native::{Solver, Stop};
use crate::puzzle::Puzzle;

/// The native Rust solver ([`crate::native`]) as an [`Engine`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NativeEngine;

impl Engine for NativeEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Native
    }

    fn solve(&mut self, puzzle: &Puzzle, request: &Request) -> Report {
        let start = Instant::now();
        let solver = match Solver::new(puzzle) {
            Ok(s) => s,
            Err(e) => return Report::failed(EngineKind::Native, EngineError::InvalidPuzzle(e)),
        };
        let solver = solver
            .with_deadline(request.timeout.map(|t| start + t))
            .with_threads(request.threads);
        let limit = request.limit.unwrap_or(usize::MAX);
        let mut it = solver.solutions();
        let mut solutions = Vec::new();
        let mut count = 0u64;
        while (count as usize) < limit {
            let Some(grid) = it.next() else { break };
            count += 1;
            if !request.count_only {
                solutions.push(grid);
            }
        }
        let stopped_by_limit = count as usize >= limit;
        let timed_out = it.stopped() == Some(Stop::Deadline);
        let complete = !stopped_by_limit && !timed_out;
        let mut report = Report {
            engine: EngineKind::Native,
            solutions,
            count,
            status: Status::of(count, complete, timed_out, false),
            complete,
            elapsed: start.elapsed(),
            stats: {
                let s = it.stats();
                Stats {
                    nodes: Some(s.nodes),
                    failures: Some(s.failures),
                    propagations: Some(s.propagations),
                    restarts: Some(s.restarts),
                    inferences: None,
                    cpu_us: None,
                }
            },
            error: None,
        };
        spec_order(&mut report, request);
        report
    }
}
