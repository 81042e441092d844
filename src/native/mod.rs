//! The native solver: candidate bitsets per cell, per-cage tables of admissible tuples (respecting
//! row/column distinctness inside the cage) filtered by bitset operations (`table`), naked and
//! hidden singles in rows and columns, all driven by queues of changed cells, lines and cages
//! (module `propagate`); fewest-candidates-first branching over an explicit stack of states, so solutions come out of an
//! [`Iterator`] and the search allocates nothing once warm.
//!
//! From 10x10 on, rows and columns are filtered to generalised arc consistency (module `line`), the
//! root is probed (each candidate is tried and propagated, and those that fail are removed), and
//! the cage tables are rebuilt from the tuples the root's domains leave.
//!
//! From 10x10 on, the first few solutions come from a search that learns from its failures
//! (module `learn`: every removal is recorded with its reason, each contradiction becomes a
//! clause, branching on the (cell, value) pairs of recent conflicts, restarts); past them, and
//! below 10x10, the plain search runs: it restarts (after a Luby sequence of failure counts) with the dom/wdeg weights it
//! learnt and randomised tie-breaking; solutions found before a restart are blocked in later
//! runs, so every solution still comes exactly once (after a few solutions it stops restarting
//! and finishes its current tree).
//!
//! With more than one thread ([`Solver::with_threads`]), a learning search still unresolved after
//! [`PORTFOLIO_AFTER`] failures goes on as several searches at once (module `portfolio`): it
//! goes on unchanged on one thread, and each other search breaks ties in an order of its own and
//! takes in the short clauses the others learn; each solution comes from whichever finds it
//! first.
//!
//! Handles every cage kind of the model: `+ - * /` with any number of cells (n-ary `-` and `/` as
//! in seed 001), `=` and `?` (no-op). Sizes 1 to 64 (a cell's candidates fit in a `u64`).

mod learn;
mod line;
mod luby;
mod portfolio;
mod propagate;
mod search;
mod table;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use propagate::{line_start_step, CellQueue, Queues, Recorder, Weights};
use table::{Cage, FilterScratch, Table};

pub use search::SolutionIter;

use crate::puzzle::{Grid, InvalidPuzzle, Op, Puzzle};
use crate::rng::Rng;

/// Why a search stopped before exploring everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The caller asked to stop (for example a solution limit was reached).
    Requested,
    /// The deadline passed.
    Deadline,
}

/// What a search did, for `solve --stats` and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SearchStats {
    /// Search nodes: the root of each run and every value tried.
    pub nodes: u64,
    /// Dead ends: values whose propagation failed (in the search and in probing at the root),
    /// and complete grids rejected because an earlier run already gave them.
    pub failures: u64,
    /// Propagator runs: each cage filter (by table or by search) and each row or column check
    /// (missing values, hidden singles, naked subsets) run during propagation.
    pub propagations: u64,
    /// Restarts: runs of the search abandoned to start again from the root.
    pub restarts: u64,
}

/// The outcome of [`Solver::solve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solutions {
    /// The solutions found, in search order.
    pub grids: Vec<Grid>,
    /// Whether every solution was enumerated (false when stopped by the limit or deadline).
    pub complete: bool,
    /// Whether the deadline stopped the search.
    pub timed_out: bool,
    /// What the search did.
    pub stats: SearchStats,
}

/// At most this many tuples in one cage's table.
const TABLE_TUPLES: usize = 1_000_000;
/// At most this many words (8 bytes) of tables in all; cages past it are filtered by search.
const TABLE_WORDS: usize = 4_000_000;
/// Work bound for enumerating one cage's tuples, when building its table.
const BUILD_WORK: usize = 4_000_000;
/// Work bound for building every table of a puzzle (about a second at most); cages left without
/// a table once it is spent are filtered by search.
const TOTAL_BUILD_WORK: usize = 20_000_000;
/// Work bound for one cage filtered by search (no table); past it the cage is left unfiltered.
const SEARCH_BUDGET: usize = 20_000;
/// From this size on, rows and columns are filtered to generalised arc consistency (module
/// `line`) and the root is probed ([`Solver::probe`]); smaller grids do not need it.
const STRONG_FROM: usize = 10;
/// From this size on, the search learns clauses from its failures (module `learn`).
const LEARN_FROM: usize = 10;
/// The learning search gives this many solutions; past them the plain search (which blocks
/// those) enumerates the rest in one tree, so counting many solutions costs no clauses.
const LEARN_SOLUTIONS: usize = 4;
/// Learnt clauses kept before the first cut (the limit then grows by a tenth at each cut).
const LEARN_CUT: usize = 4000;
/// At most this many passes of probing.
const PROBE_PASSES: usize = 20;
/// Failures allowed in a run of the search, times the Luby sequence's term, before a restart.
const RESTART_UNIT: u64 = 100;
/// At most this many threads for one search (each holds its own copy of the learning state).
pub const MAX_THREADS: usize = 64;
/// Failures of the learning search (after probing) before it becomes a portfolio, when it may
/// use more than one thread: most large puzzles are resolved before (about a tenth of a second at
/// 25x25), so their search stays on one thread and deterministic.
pub const PORTFOLIO_AFTER: u64 = 500;

/// `cage_of` of a cell in no cage.
const FREE: usize = usize::MAX;

/// A prepared puzzle, ready to be solved any number of times.
#[derive(Clone)]
pub struct Solver {
    n: usize,
    cages: Arc<Vec<Cage>>,
    /// Each cage's table, when it was small enough to build.
    tables: Arc<Vec<Option<Table>>>,
    /// For each cell, its cage.
    cage_of: Vec<usize>,
    /// For each cell, its row and its column.
    row_of: Vec<u8>,
    col_of: Vec<u8>,
    deadline: Option<Instant>,
    /// Failures per Luby term before a restart ([`RESTART_UNIT`]; tests make it 1).
    restart_unit: u64,
    /// From this size on, lines are filtered to GAC and the root is probed ([`STRONG_FROM`];
    /// tests lower it).
    strong_from: usize,
    /// From this size on, the search learns from its failures (module `learn`) for the first
    /// [`LEARN_SOLUTIONS`] solutions ([`LEARN_FROM`]; tests change both, and when clauses are cut).
    learn_from: usize,
    learn_solutions: usize,
    learn_cut: usize,
    /// Threads the learning search may use ([`Solver::with_threads`]).
    threads: usize,
    /// Failures after which a learning search still unresolved becomes a portfolio
    /// ([`PORTFOLIO_AFTER`]; tests lower it).
    portfolio_after: u64,
}

/// Buffers reused across the search, so that it allocates nothing once warm.
struct Scratch {
    /// Cells whose domain changed, cages to filter again and lines to check.
    queues: Queues,
    /// The domains of the cage being filtered, before.
    before: Vec<u64>,
    filter: FilterScratch,
    /// How often each cage, and each line, caused a contradiction (for branching).
    weights: Weights,
    /// Set when the deadline passed during a propagation (which then reports a contradiction).
    expired: bool,
    /// The cage tables narrowed to the root's domains, once they are known (see
    /// [`Solver::narrow_tables`]); the solver's own tables until then.
    tables: Option<Arc<Vec<Option<Table>>>>,
    /// Propagator runs so far (see [`SearchStats::propagations`]).
    propagations: u64,
}

impl Solver {
    /// Prepares `puzzle`; fails when it does not validate.
    pub fn new(puzzle: &Puzzle) -> Result<Solver, InvalidPuzzle> {
        puzzle.check()?;
        let n = puzzle.size;
        // A cell in no cage is free: only its row and column constrain it.
        let mut cage_of = vec![FREE; n * n];
        let cages: Vec<Cage> = puzzle
            .cages
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let cells: Vec<usize> = c
                    .cells
                    .iter()
                    .map(|c| (c.row - 1) * n + c.col - 1)
                    .collect();
                for &i in &cells {
                    cage_of[i] = k;
                }
                Cage {
                    op: c.op,
                    target: c.target,
                    cells,
                }
            })
            .collect();
        // Smallest cages first, so the budget goes as far as it can.
        let mut order: Vec<usize> = (0..cages.len()).collect();
        order.sort_by_key(|&k| cages[k].cells.len());
        let mut tables: Vec<Option<Table>> = (0..cages.len()).map(|_| None).collect();
        let mut words = TABLE_WORDS;
        let mut scratch = FilterScratch::default();
        let mut total_work = TOTAL_BUILD_WORK;
        for k in order {
            let cage = &cages[k];
            let tuples = TABLE_TUPLES.min(words.saturating_mul(64) / (cage.cells.len() * n));
            let mut work = BUILD_WORK.min(total_work);
            let before = work;
            let full = |_| if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            let table = Table::build(cage, n, &full, tuples, &mut work, &mut scratch);
            total_work -= before - work;
            if let Some(t) = table {
                words = words.saturating_sub(t.size());
                tables[k] = Some(t);
            }
        }
        let row_of = (0..n * n).map(|i| (i / n) as u8).collect();
        let col_of = (0..n * n).map(|i| (i % n) as u8).collect();
        Ok(Solver {
            n,
            cages: Arc::new(cages),
            tables: Arc::new(tables),
            cage_of,
            row_of,
            col_of,
            deadline: None,
            restart_unit: RESTART_UNIT,
            strong_from: STRONG_FROM,
            learn_from: LEARN_FROM,
            learn_solutions: LEARN_SOLUTIONS,
            learn_cut: LEARN_CUT,
            threads: 1,
            portfolio_after: PORTFOLIO_AFTER,
        })
    }

    /// Stops any later search at `deadline`.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Lets a search use up to `threads` threads (1 to [`MAX_THREADS`]; 1 by default). From 10x10 on, a
    /// search for the first solutions that is still unresolved after [`PORTFOLIO_AFTER`]
    /// failures then goes on as that many searches at once, each breaking ties in its own
    /// order (a portfolio, module `portfolio`); each solution comes from whichever finds it
    /// first. Every solution still comes exactly once, but when there are more than were asked
    /// for, which ones come first (and the statistics) may differ from run to run: one thread
    /// keeps the search deterministic.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.clamp(1, MAX_THREADS);
        self
    }

    /// Every solution in turn, lazily: the caller may stop at any point.
    pub fn solutions(&self) -> SolutionIter<'_> {
        SolutionIter::new(self)
    }

    /// Finds up to `limit` solutions (all of them with `None`).
    pub fn solve(&self, limit: Option<usize>) -> Solutions {
        let mut it = self.solutions();
        let grids: Vec<Grid> = it.by_ref().take(limit.unwrap_or(usize::MAX)).collect();
        // Stopped exactly at the limit: the enumeration may still be complete, but we do not know.
        let stopped = limit.is_some_and(|l| grids.len() >= l);
        Solutions {
            complete: !stopped && it.stopped().is_none(),
            timed_out: it.stopped() == Some(Stop::Deadline),
            grids,
            stats: it.stats(),
        }
    }

    /// Counts solutions up to `limit`; the second value says why the count stopped early, if it did.
    pub fn count(&self, limit: Option<u64>) -> (u64, Option<Stop>) {
        let (count, stop, _) = self.count_with_stats(limit);
        (count, stop)
    }

    /// [`Solver::count`], with what the search did.
    pub fn count_with_stats(&self, limit: Option<u64>) -> (u64, Option<Stop>, SearchStats) {
        let mut it = self.solutions();
        let mut count = 0u64;
        while it.advance() {
            count += 1;
            if limit.is_some_and(|l| count >= l) {
                return (count, Some(Stop::Requested), it.stats());
            }
        }
        (count, it.stopped(), it.stats())
    }

    /// Calls `f` with each solution in turn until it breaks; returns why the search stopped early.
    pub fn for_each_solution(&self, mut f: impl FnMut(Grid) -> ControlFlow<()>) -> Option<Stop> {
        let mut it = self.solutions();
        for grid in it.by_ref() {
            if f(grid).is_break() {
                return Some(Stop::Requested);
            }
        }
        it.stopped()
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            queues: Queues::new(self.n * self.n, self.cages.len(), 2 * self.n),
            before: Vec::new(),
            filter: FilterScratch::default(),
            weights: Weights {
                cage: vec![0; self.cages.len()],
                line: vec![0; 2 * self.n],
            },
            expired: false,
            tables: None,
            propagations: 0,
        }
    }

    /// Each cage's table rebuilt from the tuples the root's domains `root` allow (smaller tables
    /// filter faster); cages too large for a table before may get one now. Valid for any search
    /// below that root.
    fn narrow_tables(&self, root: &[u64]) -> Vec<Option<Table>> {
        let mut scratch = FilterScratch::default();
        let mut words = TABLE_WORDS;
        let mut total_work = TOTAL_BUILD_WORK;
        self.cages
            .iter()
            .map(|cage| {
                let tuples =
                    TABLE_TUPLES.min(words.saturating_mul(64) / (cage.cells.len() * self.n));
                let mut work = BUILD_WORK.min(total_work);
                let before = work;
                let table =
                    Table::build(cage, self.n, &|c| root[c], tuples, &mut work, &mut scratch);
                total_work -= before - work;
                if let Some(t) = &table {
                    words = words.saturating_sub(t.size());
                }
                table
            })
            .collect()
    }

    fn full(&self) -> u64 {
        if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        }
    }

    /// The cell to branch on: fewest candidates relative to how often its cage, row and column
    /// caused contradictions so far (dom/wdeg); `None` when every cell is fixed. Ties go to the
    /// first cell, or to a uniformly chosen one with `rng`.
    fn choose(&self, doms: &[u64], scratch: &Scratch, mut rng: Option<&mut Rng>) -> Option<usize> {
        let n = self.n;
        let mut best = None;
        // Compare candidates / weight as fractions: c1 * w2 < c2 * w1 (the first open cell wins
        // against nothing).
        let (mut best_c, mut best_w) = (u64::from(u64::BITS) + 1, 1u64);
        let mut ties = 0u64;
        for (i, &d) in doms.iter().enumerate() {
            if d & (d - 1) == 0 {
                continue;
            }
            let c = d.count_ones() as u64;
            let w = 1
                + scratch
                    .weights
                    .cage
                    .get(self.cage_of[i])
                    .copied()
                    .unwrap_or(0) as u64
                + scratch.weights.line[self.row_of[i] as usize] as u64
                + scratch.weights.line[n + self.col_of[i] as usize] as u64;
            let (a, b) = (c * best_w, best_c * w);
            if a < b {
                (best_c, best_w) = (c, w);
                best = Some(i);
                ties = 1;
            } else if a == b {
                if let Some(rng) = rng.as_deref_mut() {
                    ties += 1;
                    if rng.below(ties) == 0 {
                        best = Some(i);
                    }
                }
            }
        }
        best
    }

    /// Each cell's candidates (bit `v-1` set when `v` is possible, row-major) after the cage and
    /// row/column deductions, before any guess; `None` when they already contradict.
    pub fn candidates(&self) -> Option<Vec<u64>> {
        let mut doms = vec![self.full(); self.n * self.n];
        let mut scratch = self.scratch();
        let all: Vec<usize> = (0..self.n * self.n).collect();
        self.propagate(&mut doms, &mut scratch, &all)
            .then_some(doms)
    }

    /// The cage index of each cell (row-major); `usize::MAX` for a cell in no cage.
    pub fn cage_of(&self) -> &[usize] {
        &self.cage_of
    }
}

/// Calls `f` with every tuple of values (one per cell, in the order given, each in `1..=n` and
/// allowed by `allowed`) that meets `target` under `op` with no repeat in any row or column.
/// This is the code the solver's cage tables come from. Cells must lie in the `n`×`n` grid.
pub fn for_each_cage_tuple(
    n: usize,
    op: Op,
    target: u64,
    cells: &[crate::puzzle::Cell],
    allowed: u64,
    mut f: impl FnMut(&[usize]),
) {
    let cage = Cage {
        op,
        target,
        cells: cells.iter().map(|c| (c.row - 1) * n + c.col - 1).collect(),
    };
    let mut work = usize::MAX;
    table::enumerate(&cage, n, &|_| allowed, &mut work, &mut |vals| {
        f(vals);
        ControlFlow::Continue(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format;

    #[test]
    fn empty_puzzles_count_latin_squares() {
        // one '+' cage over the whole grid: only the rows and columns constrain it
        for (n, expected) in [(1, 1), (2, 2), (3, 12), (4, 576)] {
            let all: Vec<_> = (1..=n)
                .flat_map(|r| (1..=n).map(move |c| crate::puzzle::Cell::new(r, c)))
                .collect();
            let sum = (n * n * (n + 1) / 2) as u64;
            let p = Puzzle::new(n, vec![crate::puzzle::Cage::new(Op::Add, sum, all)]);
            let s = Solver::new(&p).unwrap();
            assert_eq!(s.count(None), (expected, None), "n = {n}");
        }
    }

    /// A generated puzzle with unknown operators on its cages of two or more cells: many
    /// solutions, many failures.
    fn ambiguous(n: usize, seed: u64) -> Puzzle {
        let (mut p, _) = crate::random::puzzle(n, seed);
        for c in p.cages.iter_mut().filter(|c| c.cells.len() > 1) {
            c.op = Op::Unknown;
        }
        p
    }

    /// Two solves of the same puzzle found the same solutions, the first each once.
    pub(super) fn same_solutions(a: &Solutions, b: &Solutions, what: &str) {
        assert!(a.complete && b.complete && !a.grids.is_empty(), "{what}");
        let set: std::collections::BTreeSet<&Grid> = a.grids.iter().collect();
        assert_eq!(set.len(), a.grids.len(), "{what}: a grid came twice");
        assert_eq!(set, b.grids.iter().collect(), "{what}");
    }

    /// Restarting after every failure (and so blocking every solution found before a restart)
    /// gives the same solutions, each once, as never restarting; and the iterator, `solve` and
    /// `count` agree.
    #[test]
    fn restarts_keep_the_solutions_exact() {
        let mut restarted = 0;
        for (n, seed) in [(4, 0), (5, 1), (5, 2), (6, 3), (6, 4), (6, 5)] {
            let p = ambiguous(n, seed);
            let mut eager = Solver::new(&p).unwrap();
            eager.restart_unit = 1;
            let mut never = Solver::new(&p).unwrap();
            never.restart_unit = u64::MAX;
            let a = eager.solve(None);
            let b = never.solve(None);
            same_solutions(&a, &b, &format!("{n}/{seed}"));
            assert!(a.grids.iter().all(|g| p.is_solution(g)));
            assert_eq!(eager.solutions().collect::<Vec<_>>(), a.grids);
            let (count, stop, stats) = eager.count_with_stats(None);
            assert_eq!((count, stop, stats), (a.grids.len() as u64, None, a.stats));
            assert_eq!(b.stats.restarts, 0);
            restarted += a.stats.restarts;
        }
        assert!(restarted > 10, "the restarts were exercised: {restarted}");
    }

    /// Line GAC and root probing, forced on small grids, keep the solutions exactly as without.
    #[test]
    fn strong_filtering_keeps_the_solutions_exact() {
        for (n, seed) in [(4, 10), (5, 11), (5, 12), (6, 13), (6, 14), (7, 15)] {
            let p = ambiguous(n, seed);
            let mut strong = Solver::new(&p).unwrap();
            strong.strong_from = 1;
            let plain = Solver::new(&p).unwrap();
            let a = strong.solve(None);
            let b = plain.solve(None);
            same_solutions(&a, &b, &format!("{n}/{seed}"));
            assert_eq!(strong.solutions().collect::<Vec<_>>(), a.grids);
        }
    }

    /// The `i`-th random puzzle of the benchmark's generator (seed 1) with every other cage
    /// dropped (its cells free): tens to thousands of solutions, tens to hundreds of failures.
    pub(super) fn sparse(n: usize, i: usize) -> Puzzle {
        let mut p = crate::random::puzzles(n, 1, i + 1).swap_remove(i).0;
        let mut k = 0;
        p.cages.retain(|_| {
            k += 1;
            k % 2 == 0
        });
        p
    }

    /// The learning search, forced on small grids and giving every solution itself (restarting
    /// often, cutting its clauses often), finds exactly the solutions of the plain search; so
    /// does its hand-over to the plain search after a few solutions.
    #[test]
    fn learning_keeps_the_solutions_exact() {
        let mut learnt = 0;
        for (n, i) in [(5, 1), (5, 2), (6, 3), (6, 4), (7, 0), (7, 3), (7, 5)] {
            let p = sparse(n, i);
            let seed = i;
            let plain = Solver::new(&p).unwrap().solve(None);
            for (strong, unit, solutions) in [(1, 1, usize::MAX), (99, 3, usize::MAX), (1, 5, 2)] {
                let mut s = Solver::new(&p).unwrap();
                (s.learn_from, s.strong_from, s.restart_unit) = (1, strong, unit);
                (s.learn_solutions, s.learn_cut) = (solutions, 20);
                let a = s.solve(None);
                same_solutions(
                    &a,
                    &plain,
                    &format!("{n}/{seed}/{strong}/{unit}/{solutions}"),
                );
                assert!(a.grids.iter().all(|g| p.is_solution(g)));
                assert_eq!(s.solutions().collect::<Vec<_>>(), a.grids);
                learnt += a.stats.failures;
            }
        }
        assert!(
            learnt > 1000,
            "the learning was exercised: {learnt} failures"
        );
    }

    #[test]
    fn spec_4x4_has_six_solutions() {
        let t = "kenken(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], [2|3], [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), *(2, [[3|4]])], T).";
        let p = &format::prolog::read(t).unwrap()[0].puzzle;
        let sols = Solver::new(p).unwrap().solve(None);
        assert!(sols.complete);
        assert_eq!(sols.grids.len(), 6);
        assert!(sols.grids.iter().all(|g| p.is_solution(g)));
    }
}
