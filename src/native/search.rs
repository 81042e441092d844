//! The search over a [`Solver`]'s puzzle: an explicit stack of choice points, so that solutions
//! come out of an [`Iterator`] that can be dropped at any point; restarts after a Luby sequence
//! of failure counts, and the hand-over to the learning search (module `learn`) and to several
//! searches at once (module `portfolio`) on large grids.

use std::sync::Arc;
use std::time::Instant;

use super::learn::{Learner, Outcome};
use super::luby::luby;
use super::portfolio::{Next, Portfolio};
use super::{Scratch, SearchStats, Solver, Stop};
use crate::puzzle::Grid;
use crate::rng::Rng;

/// The seed of the tie-breaking after restarts (fixed: a search is deterministic).
const RESTART_SEED: u64 = 0x6b65_6e6b_656e;
/// After this many solutions the search stops restarting (and so blocking solutions) and
/// finishes its current run: enumerating many solutions is best done in one tree.
const RESTART_SOLUTIONS: usize = 4;

impl<'a> SolutionIter<'a> {
    /// A search of `solver` that has not started.
    pub(super) fn new(solver: &'a Solver) -> SolutionIter<'a> {
        SolutionIter {
            solver,
            scratch: solver.scratch(),
            doms: Vec::new(),
            frames: Vec::new(),
            phase: Phase::Start,
            stop: None,
            stats: SearchStats::default(),
            restarts: Restarts::new(solver.restart_unit),
        }
    }
}

/// A choice point: the cell branched on and the values not tried yet.
struct Frame {
    cell: usize,
    rest: u64,
}

/// The solutions of a [`Solver`], in search order (from [`Solver::solutions`]).
///
/// The search state is an explicit stack, so the iterator can be dropped at any point. When it
/// ends early because of the solver's deadline, [`SolutionIter::stopped`] says so.
pub struct SolutionIter<'a> {
    solver: &'a Solver,
    scratch: Scratch,
    /// The domains at each depth of the stack, `n * n` words per depth (depth 0: the root).
    doms: Vec<u64>,
    frames: Vec<Frame>,
    pub(super) phase: Phase,
    stop: Option<Stop>,
    stats: SearchStats,
    restarts: Restarts,
}

/// Where a [`SolutionIter`] is: the search it runs.
pub(super) enum Phase {
    /// Nothing done yet: the root is still to propagate.
    Start,
    /// The learning search gives the first solutions (large grids).
    Learning(Box<Learner>),
    /// The learning search gone on as several at once.
    Portfolio(Portfolio),
    /// The plain search, over `frames` (for every solution of small grids; past the first few
    /// of large ones).
    Plain,
    /// The search is over; `theirs` is the work of a portfolio's searches, if it ended as one.
    Over { theirs: SearchStats },
}

/// When to restart, and what earlier runs found.
struct Restarts {
    /// Whether the search may still restart.
    on: bool,
    /// Tie-breaking after the first restart (the first run breaks ties by cell order).
    rng: Option<Rng>,
    /// Failures per term of the Luby sequence.
    unit: u64,
    /// The run's index in the Luby sequence, and the failure count at which it restarts.
    run: u64,
    limit: u64,
    /// The solutions given so far (row-major candidate masks), blocked in later runs.
    found: Vec<Vec<u64>>,
}

impl Restarts {
    fn new(unit: u64) -> Restarts {
        Restarts {
            on: true,
            rng: None,
            run: 1,
            unit,
            limit: unit,
            found: Vec::new(),
        }
    }
}

/// The sum of two searches' work.
fn add(a: SearchStats, b: SearchStats) -> SearchStats {
    SearchStats {
        nodes: a.nodes + b.nodes,
        failures: a.failures + b.failures,
        propagations: a.propagations + b.propagations,
        restarts: a.restarts + b.restarts,
    }
}

impl SolutionIter<'_> {
    /// `Some(Stop::Deadline)` once the deadline has ended the search.
    pub fn stopped(&self) -> Option<Stop> {
        self.stop
    }

    /// Search nodes visited so far (the root and every value tried).
    pub fn nodes(&self) -> u64 {
        self.stats.nodes
    }

    /// What the search did so far. With several threads (see [`Solver::with_threads`]), the
    /// work of every search added up, each as of its last solution or its end.
    pub fn stats(&self) -> SearchStats {
        let mine = SearchStats {
            propagations: self.scratch.propagations,
            ..self.stats
        };
        match &self.phase {
            Phase::Portfolio(p) => add(mine, p.stats()),
            Phase::Over { theirs } => add(mine, *theirs),
            _ => mine,
        }
    }

    /// Ends the search.
    fn end(&mut self) {
        let theirs = match &self.phase {
            Phase::Portfolio(p) => p.stats(),
            _ => SearchStats::default(),
        };
        self.phase = Phase::Over { theirs };
    }

    /// Ends the search at the deadline.
    fn expire(&mut self) {
        self.stop = Some(Stop::Deadline);
        self.end();
    }

    /// The learning search's next solution (its domains), from the learner or the portfolio it
    /// became; `None` at the end (`self.stop` says when it stopped early).
    fn learn_next(&mut self) -> Option<Vec<u64>> {
        loop {
            let outcome = match &mut self.phase {
                Phase::Portfolio(p) => {
                    return match p.next(&self.restarts.found) {
                        Next::Solution(doms) => Some(doms),
                        Next::Exhausted => None,
                        Next::Stopped(stop) => {
                            self.stop = Some(stop);
                            None
                        }
                    }
                }
                Phase::Learning(learner) => {
                    match learner.next(self.solver, &mut self.scratch, &mut self.stats) {
                        Outcome::Solution => return Some(learner.solution_doms().to_vec()),
                        outcome => outcome,
                    }
                }
                _ => return None,
            };
            match outcome {
                Outcome::Stopped(stop) => {
                    self.stop = Some(stop);
                    return None;
                }
                Outcome::Paused => self.go_portfolio(),
                _ => return None,
            }
        }
    }

    /// The learning search, still unresolved, goes on beside other searches, on threads of
    /// their own (or alone, if none can start); the iterator keeps fresh buffers for the plain
    /// search after it.
    fn go_portfolio(&mut self) {
        let solver = self.solver;
        let Phase::Learning(learner) = std::mem::replace(&mut self.phase, Phase::Start) else {
            unreachable!("a portfolio comes from a learning search");
        };
        let mut fresh = solver.scratch();
        fresh.tables = self.scratch.tables.clone();
        let scratch = std::mem::replace(&mut self.scratch, fresh);
        let stats = std::mem::take(&mut self.stats);
        let root = &self.doms[..solver.n * solver.n];
        let first = (learner, scratch, stats);
        let (threads, wanted) = (solver.threads, solver.learn_solutions);
        self.phase = match Portfolio::start(solver, root, first, threads, wanted) {
            Ok(p) => Phase::Portfolio(p),
            Err(back) => {
                let (learner, scratch, stats) = *back;
                self.scratch = scratch;
                self.stats = stats;
                Phase::Learning(learner)
            }
        };
    }

    /// Abandons the current run when it has failed often enough: the search starts again from
    /// the root's domains (depth 0), with randomised tie-breaking.
    fn maybe_restart(&mut self) {
        let r = &mut self.restarts;
        if !r.on || self.stats.failures < r.limit {
            return;
        }
        r.run += 1;
        r.limit = self.stats.failures + r.unit.saturating_mul(luby(r.run));
        let rng = r.rng.get_or_insert_with(|| Rng::new(RESTART_SEED));
        self.stats.restarts += 1;
        self.stats.nodes += 1;
        self.frames.clear();
        let cells = self.solver.n * self.solver.n;
        let root = &self.doms[..cells];
        if let Some(cell) = self.solver.choose(root, &self.scratch, Some(rng)) {
            self.frames.push(Frame {
                cell,
                rest: root[cell],
            });
        }
    }

    /// Whether the complete grid at `depth` is new; records it while restarts may come.
    fn is_new_solution(&mut self, depth: usize) -> bool {
        let cells = self.solver.n * self.solver.n;
        let grid = &self.doms[depth * cells..(depth + 1) * cells];
        let r = &mut self.restarts;
        if r.found.iter().any(|g| g[..] == *grid) {
            self.stats.failures += 1;
            return false;
        }
        if r.on {
            r.found.push(grid.to_vec());
            r.on = r.found.len() < RESTART_SOLUTIONS;
        }
        true
    }

    /// Moves to the next solution; true when there is one (its domains are then at depth
    /// `frames.len()`, or last in `restarts.found` from the learning search), false when the
    /// search is over.
    pub(super) fn advance(&mut self) -> bool {
        if matches!(self.phase, Phase::Start) && self.start() {
            return true;
        }
        if matches!(self.phase, Phase::Learning(_) | Phase::Portfolio(_)) {
            if self.restarts.found.len() < self.solver.learn_solutions {
                if let Some(doms) = self.learn_next() {
                    self.restarts.found.push(doms);
                    return true;
                }
                self.end();
                return false;
            }
            self.hand_over();
        }
        match self.phase {
            Phase::Plain => self.plain_next(),
            _ => false,
        }
    }

    /// Propagates (and probes) the root, then starts the learning search or the plain one;
    /// true when the root is a solution.
    fn start(&mut self) -> bool {
        let solver = self.solver;
        let cells = solver.n * solver.n;
        self.stats.nodes = 1;
        self.doms.reserve(16 * cells);
        self.doms.resize(cells, solver.full());
        let all: Vec<usize> = (0..cells).collect();
        if !solver.propagate(&mut self.doms, &mut self.scratch, &all)
            || (solver.n >= solver.strong_from
                && !solver.probe(&mut self.doms, &mut self.scratch, &mut self.stats.failures))
        {
            if self.scratch.expired {
                self.expire();
            } else {
                self.end();
            }
            return false;
        }
        // Probing's failures do not count against the first run.
        self.restarts.limit = self.stats.failures + self.restarts.unit;
        if solver.n >= solver.strong_from {
            self.scratch.tables = Some(Arc::new(solver.narrow_tables(&self.doms[..cells])));
        }
        if solver.n >= solver.learn_from {
            let root = &self.doms[..cells];
            let mut learner = Learner::new(solver, root, self.stats.failures, None);
            if solver.threads > 1 {
                learner.pause_at(self.stats.failures + solver.portfolio_after);
            }
            self.phase = Phase::Learning(Box::new(learner));
            return false;
        }
        self.phase = Phase::Plain;
        match solver.choose(&self.doms, &self.scratch, None) {
            None => true,
            Some(cell) => {
                self.frames.push(Frame {
                    cell,
                    rest: self.doms[cell],
                });
                false
            }
        }
    }

    /// Enough solutions from the learning search: the plain search enumerates the others in one
    /// tree (skipping those found), from the root's domains, without restarts.
    fn hand_over(&mut self) {
        if let Phase::Portfolio(p) = std::mem::replace(&mut self.phase, Phase::Plain) {
            let theirs = p.stop();
            let s = &mut self.stats;
            s.nodes += theirs.nodes;
            s.failures += theirs.failures;
            s.restarts += theirs.restarts;
            self.scratch.propagations += theirs.propagations;
        }
        self.restarts.on = false;
        let root = &self.doms[..self.solver.n * self.solver.n];
        // (An open root: a fixed one has one solution, given already.)
        if let Some(cell) = self.solver.choose(root, &self.scratch, None) {
            self.frames.push(Frame {
                cell,
                rest: root[cell],
            });
        }
    }

    /// The plain search's next solution: depth first over `frames`, restarting while
    /// `restarts` allows.
    fn plain_next(&mut self) -> bool {
        let solver = self.solver;
        let cells = solver.n * solver.n;
        loop {
            let depth = self.frames.len();
            let Some(top) = self.frames.last_mut() else {
                self.end();
                return false;
            };
            if top.rest == 0 {
                self.frames.pop();
                continue;
            }
            // The smallest value first, or (after a restart) a random one.
            let mut pick = top.rest;
            if let Some(rng) = self.restarts.rng.as_mut() {
                for _ in 0..rng.below(u64::from(pick.count_ones())) {
                    pick &= pick - 1;
                }
            }
            let value = pick & pick.wrapping_neg();
            top.rest &= !value;
            let cell = top.cell;
            self.stats.nodes += 1;
            if self.stats.nodes.is_multiple_of(256)
                && solver.deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.expire();
                return false;
            }
            if self.doms.len() < (depth + 1) * cells {
                self.doms.resize((depth + 1) * cells, 0);
            }
            let (parent, child) = self.doms.split_at_mut(depth * cells);
            let child = &mut child[..cells];
            child.copy_from_slice(&parent[(depth - 1) * cells..]);
            child[cell] = value;
            if !solver.propagate(child, &mut self.scratch, &[cell]) {
                if self.scratch.expired {
                    self.expire();
                    return false;
                }
                self.stats.failures += 1;
                self.maybe_restart();
                continue;
            }
            let rng = self.restarts.rng.as_mut();
            match solver.choose(child, &self.scratch, rng) {
                None => {
                    if self.is_new_solution(depth) {
                        return true;
                    }
                    self.maybe_restart();
                }
                Some(next) => self.frames.push(Frame {
                    cell: next,
                    rest: child[next],
                }),
            }
        }
    }

    /// The grid of the solution `advance` just found.
    fn grid(&self) -> Grid {
        let n = self.solver.n;
        let depth = self.frames.len();
        let doms = match self.phase {
            Phase::Learning(_) | Phase::Portfolio(_) => {
                self.restarts.found.last().map_or(&[][..], |d| &d[..])
            }
            _ => &self.doms[depth * n * n..(depth + 1) * n * n],
        };
        doms.chunks_exact(n)
            .map(|row| row.iter().map(|d| d.trailing_zeros() + 1).collect())
            .collect()
    }
}

impl Iterator for SolutionIter<'_> {
    type Item = Grid;

    fn next(&mut self) -> Option<Grid> {
        self.advance().then(|| self.grid())
    }
}
