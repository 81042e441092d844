//! Learning from failures, for large grids (lazy clause generation): every value the
//! propagators remove is recorded on a trail with why it went, so that each contradiction can be
//! traced back to the decisions behind it. The traced cause becomes a clause (a nogood) that
//! stays for the rest of the search: the same dead end is never explored twice, across restarts.
//!
//! The parts, as in a SAT solver: the trail of literals and their reasons (`trail`), the
//! literals behind each reason (`explain`), conflict analysis and minimisation (`analyze`), and
//! the clause database with its watches and forgetting (`clauses`). This module is the search
//! that drives them: decisions, propagation, learning, backjumps and restarts.
//!
//! Found solutions are blocked by a clause over the decisions that led to them, so every
//! solution comes once. Each decision is the (cell, value) pair most active in recent conflicts
//! per candidate of its cell. Restarts follow Luby's sequence; learnt clauses of high
//! literal-block distance are forgotten as their number grows.

mod analyze;
mod clauses;
mod explain;
mod trail;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::rng::Rng;

use super::luby::luby;
use super::table::values;
use super::{CellQueue, Recorder, Scratch, SearchStats, Solver, Stop};
use analyze::Analyzer;
use clauses::Clauses;
use explain::{Explainer, View};
use trail::{Trail, Value};

pub(super) use trail::{Conflict, Lit, Why};

/// Activity decays by this factor at each conflict.
const ACTIVITY_DECAY: f64 = 0.95;

/// Learnt clauses of at most this literal-block distance and length are offered to the other
/// searches of a portfolio (module `portfolio`).
const SHARE_LBD: u32 = 4;
const SHARE_LEN: usize = 40;

/// Clauses the searches of a portfolio offer each other: the search that learnt it, its
/// literal-block distance, its literals. Every clause is implied by the puzzle and the solutions
/// already given (a search blocks a solution only after reporting it).
pub(super) type Pool = Arc<Mutex<Vec<(usize, u32, Vec<Lit>)>>>;

/// A search's place in a [`Pool`].
struct Share {
    pool: Pool,
    /// This search's number, and how much of the pool it has read.
    me: usize,
    read: usize,
    /// Whether it takes the others' clauses in (or only offers its own).
    takes: bool,
}

/// A seeded search's pairs start with a random activity below this: far below one conflict's
/// bump (1), so it only breaks ties.
const TIE_NOISE: f64 = 1e-3;

/// Per atom (the pair of `cell = v` and `cell ≠ v`): how much it took part in recent conflicts
/// (bumped by conflict analysis, decaying), for branching.
pub(super) struct Activity {
    score: Vec<f64>,
    bump: f64,
}

impl Activity {
    /// `atoms` atoms at zero, or with a `seed` at tiny random values (below [`TIE_NOISE`]).
    fn new(atoms: usize, seed: Option<u64>) -> Activity {
        let score = match seed {
            None => vec![0.0; atoms],
            Some(seed) => {
                let mut rng = Rng::new(seed);
                (0..atoms).map(|_| rng.unit() * TIE_NOISE).collect()
            }
        };
        Activity { score, bump: 1.0 }
    }

    /// The literal took part in a conflict.
    fn bump(&mut self, lit: Lit) {
        self.score[(lit >> 1) as usize] += self.bump;
    }

    /// A conflict is over: later bumps weigh more (rescaling everything before it overflows).
    fn decay(&mut self) {
        self.bump /= ACTIVITY_DECAY;
        if self.bump > 1e100 {
            for a in &mut self.score {
                *a *= 1e-100;
            }
            self.bump *= 1e-100;
        }
    }
}

/// The recorder of a learning search: removals go on its trail, and its clauses propagate.
struct Recording<'a> {
    trail: &'a mut Trail,
    clauses: &'a mut Clauses,
}

impl Recorder for Recording<'_> {
    const ON: bool = true;

    #[inline(always)]
    fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why) {
        self.trail.removed(i, gone, now, why);
    }

    fn conflict(&mut self, conflict: Conflict) {
        self.trail.conflict = Some(conflict);
    }

    fn clauses(&mut self, doms: &mut [u64], queue: &mut CellQueue) -> Result<(), Conflict> {
        self.clauses.propagate(self.trail, doms, queue)
    }
}

/// Where [`Learner::next`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A solution (its domains at [`Learner::solution_doms`]).
    Solution,
    /// No solution is left: the search is over.
    Exhausted,
    /// The deadline passed, or the search was cancelled ([`Learner::cancel_with`]).
    Stopped(Stop),
    /// The failure count set by [`Learner::pause_at`] was reached; `next` goes on from here.
    Paused,
}

/// A learning search over a prepared puzzle, from the domains at the root; it gives solutions
/// one at a time, each once.
pub(super) struct Learner {
    trail: Trail,
    clauses: Clauses,
    analyzer: Analyzer,
    activity: Activity,
    cells: usize,
    /// The domains at each level, `cells` words per level; level 0 is the root.
    doms: Vec<u64>,
    /// Per level from 1: where its events start on the trail.
    starts: Vec<usize>,
    /// A cell to propagate from at the current level, before the next decision.
    pending: Option<usize>,
    /// Restarts: the run's index in Luby's sequence, and the failure count ending it.
    run: u64,
    limit: u64,
    unit: u64,
    /// Past this many learnt clauses (growing by a tenth at each cut), half are forgotten at
    /// the next restart.
    cut: usize,
    done: bool,
    /// The level of the solution just found, if one was.
    solution: Option<usize>,
    /// `next` pauses once the failure count reaches this.
    pause: u64,
    /// Set by another thread to stop the search.
    cancel: Option<Arc<AtomicBool>>,
    /// The clauses shared with other searches, and whether to take theirs in at the root.
    share: Option<Share>,
    import_due: bool,
}

impl Learner {
    /// A learning search from `root`, the domains after propagation (and probing) at the root,
    /// `failures` into the search. With a `seed`, every pair starts with a tiny random activity,
    /// so that ties in branching (which are many before the first conflicts) are broken at
    /// random rather than by cell order: another search of the same puzzle, for a portfolio.
    pub(super) fn new(solver: &Solver, root: &[u64], failures: u64, seed: Option<u64>) -> Learner {
        let n = solver.n;
        let atoms = Trail::atoms(n);
        let cage_cells = solver.cages.iter().map(|c| c.cells.clone()).collect();
        Learner {
            trail: Trail::new(n, solver.full()),
            clauses: Clauses::new(2 * atoms),
            analyzer: Analyzer::new(Explainer::new(cage_cells), 2 * atoms),
            activity: Activity::new(atoms, seed),
            cells: n * n,
            doms: root.to_vec(),
            starts: Vec::new(),
            pending: None,
            run: 1,
            limit: failures + solver.restart_unit,
            unit: solver.restart_unit,
            cut: solver.learn_cut,
            done: false,
            solution: None,
            pause: u64::MAX,
            cancel: None,
            share: None,
            import_due: false,
        }
    }

    /// Shares no more clauses.
    pub(super) fn stop_sharing(&mut self) {
        self.share = None;
    }

    /// Offers the short clauses this search learns to `pool` as search `me`; if it `takes`,
    /// takes the other searches' in at each restart.
    pub(super) fn share_with(&mut self, pool: Pool, me: usize, takes: bool) {
        self.share = Some(Share {
            pool,
            me,
            read: 0,
            takes,
        });
    }

    /// Makes [`Learner::next`] return [`Outcome::Paused`] once the failure count reaches
    /// `failures` (`u64::MAX`: never).
    pub(super) fn pause_at(&mut self, failures: u64) {
        self.pause = failures;
    }

    /// Stops the search (as [`Stop::Requested`]) soon after `cancel` is set (`None`: never).
    pub(super) fn cancel_with(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    fn level(&self) -> usize {
        self.starts.len()
    }

    /// Goes back to `level`: its domains are those it had at its fixpoint.
    fn backjump(&mut self, level: usize) {
        let start = if level < self.starts.len() {
            self.starts[level]
        } else {
            self.trail.events.len()
        };
        self.starts.truncate(level);
        self.doms.truncate((level + 1) * self.cells);
        self.trail.cancel_to(level as u32, start);
        self.clauses.cancel_to(start);
    }

    /// Adds `lits` (first literal unset at the level it jumps to, the others false) and makes
    /// its first literal true there.
    fn learn(&mut self, lits: Vec<Lit>, learnt: bool) {
        let level = self.trail.backjump_level(&lits) as usize;
        self.backjump(level);
        let first = lits[0];
        let c = self.clauses.add(&lits, learnt, self.trail.lbd(&lits));
        if let Some(share) = self.share.as_ref() {
            let lbd = self.clauses.lbd(c);
            if learnt && lits.len() <= SHARE_LEN && lbd <= SHARE_LBD {
                if let Ok(mut pool) = share.pool.lock() {
                    pool.push((share.me, lbd, lits));
                }
            }
        }
        let cells = self.cells;
        let doms = &mut self.doms[level * cells..(level + 1) * cells];
        self.pending = Some(self.trail.assert(first, c, doms));
    }

    /// Propagates the domains of the current level from the pending cell; false on a
    /// contradiction (recorded on the trail) or when the deadline passed (`scratch.expired`).
    fn propagate(&mut self, solver: &Solver, scratch: &mut Scratch) -> bool {
        let level = self.level();
        let cells = self.cells;
        let doms = &mut self.doms[level * cells..(level + 1) * cells];
        let changed: &[usize] = match &self.pending {
            Some(c) => std::slice::from_ref(c),
            None => &[],
        };
        let mut rec = Recording {
            trail: &mut self.trail,
            clauses: &mut self.clauses,
        };
        let ok = solver.propagate_with(doms, scratch, changed, &mut rec);
        self.pending = None;
        ok
    }

    /// Searches on to the next solution (its domains then at `self.solution_doms()`), the end of
    /// the search, a stop, or a pause.
    pub(super) fn next(
        &mut self,
        solver: &Solver,
        scratch: &mut Scratch,
        stats: &mut SearchStats,
    ) -> Outcome {
        let mut stop = None;
        let found = self.search(solver, scratch, stats, &mut stop);
        match (found, stop) {
            (true, _) => Outcome::Solution,
            (false, Some(stop)) => Outcome::Stopped(stop),
            (false, None) if self.done => Outcome::Exhausted,
            (false, None) => Outcome::Paused,
        }
    }

    /// `next`: true on a solution; false at the end (`done`), a stop (`stop` says why), or a
    /// pause (neither).
    fn search(
        &mut self,
        solver: &Solver,
        scratch: &mut Scratch,
        stats: &mut SearchStats,
        stop: &mut Option<Stop>,
    ) -> bool {
        if self.done {
            return false;
        }
        // Block the solution given last: not all of its decisions again.
        if let Some(level) = self.solution.take() {
            if level == 0 {
                self.done = true;
                return false;
            }
            let lits = self.trail.decision_clause();
            self.learn(lits, false);
        }
        loop {
            let level = self.level();
            if !self.propagate(solver, scratch) {
                if scratch.expired {
                    *stop = Some(Stop::Deadline);
                    self.done = true;
                    return false;
                }
                stats.failures += 1;
                if !self.learn_from_conflict(solver, scratch) {
                    self.done = true;
                    return false;
                }
                if self.expired(solver, stats.failures, stop) {
                    return false;
                }
                // (A pause after learning: the next call propagates what was learnt.)
                if stats.failures >= self.pause {
                    return false;
                }
                continue;
            }
            if stats.failures >= self.limit && level > 0 {
                self.restart(stats);
                continue;
            }
            if level == 0 && self.import_due {
                self.import_due = false;
                if !self.import(solver, scratch) {
                    if scratch.expired {
                        *stop = Some(Stop::Deadline);
                    }
                    self.done = true;
                    return false;
                }
                continue;
            }
            let cells = self.cells;
            let doms = &self.doms[level * cells..(level + 1) * cells];
            let Some((cell, value)) = self.choose(doms) else {
                self.solution = Some(level);
                return true;
            };
            stats.nodes += 1;
            if self.expired(solver, stats.nodes, stop) {
                return false;
            }
            self.starts.push(self.trail.events.len());
            self.doms
                .extend_from_within(level * cells..(level + 1) * cells);
            self.trail
                .decide(cell, value, &mut self.doms[(level + 1) * cells..]);
            self.pending = Some(cell);
        }
    }

    /// Analyses the conflict the last propagation recorded and learns its clause (jumping back
    /// to where it asserts); false when the conflict holds at the root: no solution is left.
    fn learn_from_conflict(&mut self, solver: &Solver, scratch: &Scratch) -> bool {
        let cells = self.cells;
        let level = self.level();
        let view = View {
            now: &self.doms[level * cells..(level + 1) * cells],
            root: &self.doms[..cells],
            tables: scratch.tables.as_deref().unwrap_or(&solver.tables),
        };
        let conflict = self.trail.conflict.take().expect("a conflict was recorded");
        let learnt = self.analyzer.analyze(
            &self.trail,
            &self.clauses,
            &mut self.activity,
            conflict,
            view,
        );
        match learnt {
            None => false,
            Some(lits) => {
                self.learn(lits, true);
                true
            }
        }
    }

    /// The decision `cell = value` to make: the pair most active in recent conflicts, over the
    /// cell's candidates left (so a cell of fewest candidates, its smallest value, while nothing
    /// failed; ties to the first cell, then the smallest value); `None` when every cell is fixed.
    /// A pair rather than a cell, as SAT solvers branch: the values that took part in the
    /// conflicts are tried first (measured against choosing the cell so and its value by
    /// order or at random: fewer failures where the learning search runs long).
    fn choose(&self, doms: &[u64]) -> Option<(usize, usize)> {
        let mut best = None;
        let mut best_score = f64::NEG_INFINITY;
        for (i, &d) in doms.iter().enumerate() {
            if d & (d - 1) == 0 {
                continue;
            }
            let size = f64::from(d.count_ones());
            for v in values(d) {
                let score = (self.activity.score[self.trail.atom(i, v)] + 1.0) / size;
                if score > best_score {
                    best_score = score;
                    best = Some((i, v));
                }
            }
        }
        best
    }

    /// At the root: takes in the clauses other searches offered since the last time, simplified
    /// by the root's domains, and propagates the units among them. False when they leave no
    /// solution beyond those already given (or the deadline passed: `scratch.expired`).
    fn import(&mut self, solver: &Solver, scratch: &mut Scratch) -> bool {
        let Some(share) = self.share.as_mut() else {
            return true;
        };
        let offered: Vec<(u32, Vec<Lit>)> = match share.pool.lock() {
            Ok(pool) => {
                let new = pool[share.read..]
                    .iter()
                    .filter(|(from, _, _)| *from != share.me)
                    .map(|(_, lbd, lits)| (*lbd, lits.clone()))
                    .collect();
                share.read = pool.len();
                new
            }
            Err(_) => return true,
        };
        let cells = self.cells;
        let mut units = Vec::new();
        let mut open = Vec::new();
        for (lbd, lits) in offered {
            let root = &self.doms[..cells];
            open.clear();
            let mut holds = false;
            for &l in &lits {
                match self.trail.value(l, root) {
                    Value::True => holds = true,
                    Value::Unset => open.push(l),
                    Value::False => {}
                }
            }
            if holds {
                continue;
            }
            if open.is_empty() {
                return false;
            }
            let c = self.clauses.add(&open, true, lbd);
            if let [unit] = open[..] {
                units.push(self.trail.assert(unit, c, &mut self.doms[..cells]));
            }
        }
        let mut rec = Recording {
            trail: &mut self.trail,
            clauses: &mut self.clauses,
        };
        units.is_empty()
            || solver.propagate_with(&mut self.doms[..cells], scratch, &units, &mut rec)
    }

    /// Whether the search must stop (then `stop` says why): cancelled (looked at every time),
    /// or past the deadline (looked at when `count`, of failures or nodes, is a multiple of 256).
    fn expired(&mut self, solver: &Solver, count: u64, stop: &mut Option<Stop>) -> bool {
        let deadline = solver.deadline.filter(|_| count.is_multiple_of(256));
        if deadline.is_some_and(|d| Instant::now() >= d) {
            *stop = Some(Stop::Deadline);
        } else if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            *stop = Some(Stop::Requested);
        } else {
            return false;
        }
        self.done = true;
        true
    }

    /// Back to the root, keeping the learnt clauses (and the activities, so the next run starts
    /// where the conflicts were); the next failure limit follows Luby's sequence.
    fn restart(&mut self, stats: &mut SearchStats) {
        self.run += 1;
        self.limit = stats.failures + self.unit.saturating_mul(luby(self.run));
        stats.restarts += 1;
        self.backjump(0);
        self.import_due = self.share.as_ref().is_some_and(|s| s.takes);
        if self.clauses.learnt() > self.cut {
            self.clauses.reduce();
            self.cut += self.cut / 10;
        }
    }

    /// The domains of the solution just found (every cell fixed).
    pub(super) fn solution_doms(&self) -> &[u64] {
        let level = self.solution.unwrap_or(self.level());
        &self.doms[level * self.cells..(level + 1) * self.cells]
    }
}

/// An empty trail and clause database for an `n`×`n` grid, for tests.
#[cfg(test)]
fn empty(n: usize) -> (Trail, Clauses) {
    let full = (1u64 << n) - 1;
    (Trail::new(n, full), Clauses::new(2 * Trail::atoms(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op, Puzzle};

    /// The solver of an `n`×`n` grid with one `+` cage over everything (any Latin square).
    fn latin(n: usize) -> Solver {
        let all = (1..=n)
            .flat_map(|r| (1..=n).map(move |c| Cell::new(r, c)))
            .collect();
        let sum = (n * n * (n + 1) / 2) as u64;
        Solver::new(&Puzzle::new(n, vec![Cage::new(Op::Add, sum, all)])).unwrap()
    }

    /// Branching takes the (cell, value) pair of highest activity per candidate of its cell: a
    /// cell of fewest candidates and its smallest value while no conflict happened, then the
    /// most active pair, even in a cell with more candidates, unless the cell's size outweighs
    /// it; fixed cells never.
    #[test]
    fn branching_takes_the_most_active_pair() {
        let solver = latin(4);
        let mut doms = vec![0b1111u64; 16];
        (doms[0], doms[5], doms[6]) = (0b0100, 0b0110, 0b1010);
        let mut learner = Learner::new(&solver, &doms, 0, None);
        // Cell 5 has two candidates (values 2 and 3), the fewest open: its smallest value.
        assert_eq!(learner.choose(&doms), Some((5, 2)));
        // Value 4 of cell 6 (two candidates) is the most active.
        let atom = |cell, v| learner.trail.atom(cell, v);
        let (a64, a91, a03) = (atom(6, 4), atom(9, 1), atom(0, 3));
        learner.activity.score[a64] = 1.0;
        assert_eq!(learner.choose(&doms), Some((6, 4)));
        // Cell 9 (four candidates), value 1: at activity 2 it scores (2 + 1) / 4 = 0.75, less
        // than (1 + 1) / 2 = 1; at activity 4, 1.25, more.
        learner.activity.score[a91] = 2.0;
        assert_eq!(learner.choose(&doms), Some((6, 4)));
        learner.activity.score[a91] = 4.0;
        assert_eq!(learner.choose(&doms), Some((9, 1)));
        // A fixed cell is never chosen, whatever its activity; nothing open, no decision.
        learner.activity.score[a03] = 100.0;
        assert_eq!(learner.choose(&doms), Some((9, 1)));
        let fixed: Vec<u64> = (0..16).map(|i| 1 << (i % 4)).collect();
        assert_eq!(learner.choose(&fixed), None);
    }

    /// Activity: a bump adds to the literal's pair (both literals of an atom share it), later
    /// conflicts weigh more, and a seed only breaks ties (below any bump).
    #[test]
    fn activity_grows_with_later_conflicts() {
        let mut a = Activity::new(4, None);
        a.bump(2);
        a.bump(3);
        assert_eq!(a.score, [0.0, 2.0, 0.0, 0.0]);
        a.decay();
        a.bump(0);
        assert!(a.score[0] > 1.0 && a.score[0] < a.score[1]);
        let seeded = Activity::new(100, Some(7));
        assert!(seeded.score.iter().all(|&s| (0.0..TIE_NOISE).contains(&s)));
        assert!(seeded.score.iter().any(|&s| s != seeded.score[0]));
    }

    /// A learning search of a small grid finds its solutions, each once, blocking each before
    /// the next, then reports the search over.
    #[test]
    fn the_learning_search_gives_each_solution_once() {
        // The 12 Latin squares of size 3.
        let solver = latin(3);
        let root = vec![0b111u64; 9];
        let mut learner = Learner::new(&solver, &root, 0, None);
        let (mut scratch, mut stats) = (solver.scratch(), SearchStats::default());
        let mut found = std::collections::BTreeSet::new();
        while learner.next(&solver, &mut scratch, &mut stats) == Outcome::Solution {
            let doms = learner.solution_doms();
            assert!(doms.iter().all(|d| d.count_ones() == 1));
            assert!(found.insert(doms.to_vec()), "a solution came twice");
        }
        assert_eq!(found.len(), 12);
        assert_eq!(
            learner.next(&solver, &mut scratch, &mut stats),
            Outcome::Exhausted
        );
    }
}
