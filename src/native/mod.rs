//! The native solver: candidate bitsets per cell, per-cage tables of admissible tuples (respecting
//! row/column distinctness inside the cage), naked and hidden singles in rows and columns (all
//! driven by queues of changed cells, lines and cages), and
//! fewest-candidates-first branching with the state copied on branch.
//!
//! Handles every cage kind of the model: `+ - * /` with any number of cells (n-ary `-` and `/` as
//! in seed 001), `=` and `?` (no-op). Sizes 1 to 64 (a cell's candidates fit in a `u64`).

use std::ops::ControlFlow;
use std::time::Instant;

use crate::puzzle::{Grid, InvalidPuzzle, Op, Puzzle};

/// Why a search stopped before exploring everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The caller's callback asked to stop (for example a solution limit was reached).
    Requested,
    /// The deadline passed.
    Deadline,
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
}

/// Above this many tuples in total, cages are filtered by a bounded search instead of a table.
const TABLE_BUDGET: usize = 2_000_000;
/// Work bound for one cage filtered by search (no table); past it the cage is left unfiltered.
const SEARCH_BUDGET: usize = 20_000;

struct CageInfo {
    op: Op,
    target: u64,
    /// Cell indices (row * n + col, 0-based).
    cells: Vec<usize>,
    /// Admissible tuples, flattened (`cells.len()` values each), when small enough.
    table: Option<Vec<u8>>,
}

/// A prepared puzzle, ready to be solved any number of times.
pub struct Solver {
    n: usize,
    cages: Vec<CageInfo>,
    /// For each cell, the cages it belongs to (exactly one in a valid puzzle).
    cage_of: Vec<usize>,
    deadline: Option<Instant>,
}

type Doms = Vec<u64>;

/// Buffers reused across the search, so that it allocates nothing once warm.
struct Scratch {
    /// Cells whose domain changed and are still to be looked at.
    queue: Vec<usize>,
    /// Cages to filter again (flags, and the list of those flagged).
    dirty: Vec<bool>,
    cage_list: Vec<usize>,
    /// Rows (`0..n`) and columns (`n..2n`) to check for hidden singles.
    line_dirty: Vec<bool>,
    line_list: Vec<usize>,
    /// Per-cell supported values of the cage being filtered.
    support: Vec<u64>,
    /// The domains of the cage being filtered, before.
    before: Vec<u64>,
    /// Spare domain buffers for child states.
    pool: Vec<Doms>,
    /// Search nodes visited (the deadline is checked every 256).
    nodes: u64,
}

fn bit(v: usize) -> u64 {
    1u64 << (v - 1)
}

impl Solver {
    /// Prepares `puzzle`; fails when it does not validate.
    pub fn new(puzzle: &Puzzle) -> Result<Solver, InvalidPuzzle> {
        puzzle.check()?;
        let n = puzzle.size;
        let mut cage_of = vec![0; n * n];
        let mut cages: Vec<CageInfo> = puzzle
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
                CageInfo {
                    op: c.op,
                    target: c.target,
                    cells,
                    table: None,
                }
            })
            .collect();
        let full: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut budget = TABLE_BUDGET;
        // Smallest cages first, so the budget goes as far as it can.
        let mut order: Vec<usize> = (0..cages.len()).collect();
        order.sort_by_key(|&k| cages[k].cells.len());
        for k in order {
            let c = &cages[k];
            let doms = vec![full; n * n];
            let mut tuples = Vec::new();
            let mut work = budget.saturating_mul(4);
            let ok = enumerate(c, n, &doms, &mut work, &mut |vals| {
                tuples.extend(vals.iter().map(|&v| v as u8));
                if tuples.len() / c.cells.len().max(1) > budget {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if ok {
                budget -= tuples.len() / c.cells.len().max(1);
                cages[k].table = Some(tuples);
            }
        }
        Ok(Solver {
            n,
            cages,
            cage_of,
            deadline: None,
        })
    }

    /// Stops any later search at `deadline`.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Finds up to `limit` solutions (all of them with `None`).
    pub fn solve(&self, limit: Option<usize>) -> Solutions {
        let mut grids = Vec::new();
        let stop = self.for_each_solution(|g| {
            grids.push(g);
            if limit.is_some_and(|l| grids.len() >= l) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        // Stopped exactly at the limit: the enumeration may still be complete, but we do not know.
        Solutions {
            complete: stop.is_none(),
            timed_out: stop == Some(Stop::Deadline),
            grids,
        }
    }

    /// Counts solutions up to `limit`; the flag says whether the count is complete.
    pub fn count(&self, limit: Option<u64>) -> (u64, Option<Stop>) {
        let mut count = 0u64;
        let stop = self.for_each_solution(|_| {
            count += 1;
            if limit.is_some_and(|l| count >= l) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        (count, stop)
    }

    /// Calls `f` with each solution in turn until it breaks; returns why the search stopped early.
    pub fn for_each_solution(&self, mut f: impl FnMut(Grid) -> ControlFlow<()>) -> Option<Stop> {
        let cells = self.n * self.n;
        let mut scratch = self.scratch();
        let mut doms = vec![self.full(); cells];
        let all: Vec<usize> = (0..cells).collect();
        if !self.propagate(&mut doms, &mut scratch, &all) {
            return None;
        }
        self.search(&doms, &mut f, &mut scratch).err()
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            queue: Vec::new(),
            dirty: vec![false; self.cages.len()],
            cage_list: Vec::new(),
            line_dirty: vec![false; 2 * self.n],
            line_list: Vec::new(),
            support: Vec::new(),
            before: Vec::new(),
            pool: Vec::new(),
            nodes: 0,
        }
    }

    fn full(&self) -> u64 {
        if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        }
    }

    fn search(
        &self,
        doms: &Doms,
        f: &mut impl FnMut(Grid) -> ControlFlow<()>,
        scratch: &mut Scratch,
    ) -> Result<(), Stop> {
        scratch.nodes += 1;
        if scratch.nodes.is_multiple_of(256) {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    return Err(Stop::Deadline);
                }
            }
        }
        // Fewest candidates first.
        let mut best = usize::MAX;
        let mut best_count = u32::MAX;
        for (i, &d) in doms.iter().enumerate() {
            let c = d.count_ones();
            if c > 1 && c < best_count {
                best_count = c;
                best = i;
                if c == 2 {
                    break;
                }
            }
        }
        if best == usize::MAX {
            let n = self.n;
            let grid = doms
                .chunks_exact(n)
                .map(|row| row.iter().map(|d| d.trailing_zeros() + 1).collect())
                .collect();
            return match f(grid) {
                ControlFlow::Continue(()) => Ok(()),
                ControlFlow::Break(()) => Err(Stop::Requested),
            };
        }
        // The child state lives in a buffer taken from the pool (no allocation once warm).
        let mut child = scratch.pool.pop().unwrap_or_default();
        let mut rest = doms[best];
        let mut result = Ok(());
        while rest != 0 {
            let b = rest & rest.wrapping_neg();
            rest &= rest - 1;
            child.clear();
            child.extend_from_slice(doms);
            child[best] = b;
            if self.propagate(&mut child, scratch, &[best]) {
                result = self.search(&child, f, scratch);
                if result.is_err() {
                    break;
                }
            }
        }
        scratch.pool.push(child);
        result
    }

    /// Filters `doms` to a fixpoint after the cells in `changed` changed (all cells, and every
    /// cage, for a fresh start); false on a contradiction. Work is driven by queues: a changed
    /// cell wakes its row, its column and its cage; a placed value leaves its row and column.
    fn propagate(&self, doms: &mut Doms, scratch: &mut Scratch, changed: &[usize]) -> bool {
        scratch.queue.clear();
        scratch.queue.extend_from_slice(changed);
        let ok = self.run_queues(doms, scratch);
        if !ok {
            for k in scratch.cage_list.drain(..) {
                scratch.dirty[k] = false;
            }
            for l in scratch.line_list.drain(..) {
                scratch.line_dirty[l] = false;
            }
        }
        ok
    }

    fn run_queues(&self, doms: &mut Doms, scratch: &mut Scratch) -> bool {
        let n = self.n;
        let full = self.full();
        let Scratch {
            queue,
            dirty,
            cage_list,
            line_dirty,
            line_list,
            support,
            before,
            ..
        } = scratch;
        loop {
            // Changed cells: wake their lines and cage; placed values leave the peers.
            while let Some(i) = queue.pop() {
                let d = doms[i];
                if d == 0 {
                    return false;
                }
                let (r, c) = (i / n, i % n);
                for l in [r, n + c] {
                    if !line_dirty[l] {
                        line_dirty[l] = true;
                        line_list.push(l);
                    }
                }
                let k = self.cage_of[i];
                if !dirty[k] {
                    dirty[k] = true;
                    cage_list.push(k);
                }
                if d & (d - 1) == 0 {
                    for j in (r * n..r * n + n).chain((c..n * n).step_by(n)) {
                        if j != i && doms[j] & d != 0 {
                            doms[j] &= !d;
                            if doms[j] == 0 {
                                return false;
                            }
                            queue.push(j);
                        }
                    }
                }
            }
            // Hidden singles and missing values in a line that changed.
            if let Some(line) = line_list.pop() {
                line_dirty[line] = false;
                let (start, step) = if line < n {
                    (line * n, 1)
                } else {
                    (line - n, n)
                };
                let mut once = 0u64;
                let mut twice = 0u64;
                for j in 0..n {
                    let d = doms[start + j * step];
                    twice |= once & d;
                    once |= d;
                }
                if once != full {
                    return false;
                }
                let unique = once & !twice;
                if unique != 0 {
                    for j in 0..n {
                        let i = start + j * step;
                        let d = doms[i];
                        if d & unique != 0 && d & (d - 1) != 0 {
                            if (d & unique).count_ones() > 1 {
                                return false;
                            }
                            doms[i] = d & unique;
                            queue.push(i);
                        }
                    }
                }
                continue;
            }
            // Then the cages, the costliest filter.
            let Some(k) = cage_list.pop() else {
                return true;
            };
            dirty[k] = false;
            let cage = &self.cages[k];
            before.clear();
            before.extend(cage.cells.iter().map(|&i| doms[i]));
            if !filter_cage(cage, n, doms, support) {
                return false;
            }
            for (&i, &b) in cage.cells.iter().zip(before.iter()) {
                if doms[i] != b {
                    queue.push(i);
                }
            }
        }
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

    /// The cage index of each cell (row-major).
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
    let cage = CageInfo {
        op,
        target,
        cells: cells.iter().map(|c| (c.row - 1) * n + c.col - 1).collect(),
        table: None,
    };
    let doms = vec![allowed; n * n];
    let mut work = usize::MAX;
    enumerate(&cage, n, &doms, &mut work, &mut |vals| {
        f(vals);
        ControlFlow::Continue(())
    });
}

/// Removes from the cage's cells every value that no admissible tuple supports.
fn filter_cage(cage: &CageInfo, n: usize, doms: &mut Doms, support: &mut Vec<u64>) -> bool {
    let k = cage.cells.len();
    support.clear();
    support.resize(k, 0);
    match &cage.table {
        Some(table) => {
            // Stop as soon as every value of every cell has a support.
            let mut unsupported = k;
            for t in table.chunks_exact(k) {
                if t.iter()
                    .zip(&cage.cells)
                    .all(|(&v, &i)| doms[i] & bit(v as usize) != 0)
                {
                    for ((s, &v), &i) in support.iter_mut().zip(t).zip(&cage.cells) {
                        let b = bit(v as usize);
                        if *s & b == 0 {
                            *s |= b;
                            if *s == doms[i] {
                                unsupported -= 1;
                            }
                        }
                    }
                    if unsupported == 0 {
                        return true;
                    }
                }
            }
        }
        None => {
            let mut work = SEARCH_BUDGET;
            let done = enumerate(cage, n, doms, &mut work, &mut |vals| {
                for (s, &v) in support.iter_mut().zip(vals) {
                    *s |= bit(v);
                }
                ControlFlow::Continue(())
            });
            if !done {
                return true; // too costly to filter now; checked again once cells are fixed
            }
        }
    }
    for (s, &i) in support.iter().zip(&cage.cells) {
        doms[i] &= s;
        if doms[i] == 0 {
            return false;
        }
    }
    true
}

/// Calls `f` with every tuple of the cage's cells drawn from `doms` that meets the cage and has no
/// repeat in a row or column. Returns false when `work` ran out or `f` broke.
fn enumerate(
    cage: &CageInfo,
    n: usize,
    doms: &Doms,
    work: &mut usize,
    f: &mut impl FnMut(&[usize]) -> ControlFlow<()>,
) -> bool {
    let k = cage.cells.len();
    let mut vals = vec![0usize; k];
    let min_rest: Vec<u64> = (0..=k)
        .map(|i| {
            cage.cells[i..]
                .iter()
                .map(|&c| doms[c].trailing_zeros() as u64 + 1)
                .sum()
        })
        .collect();
    let max_rest: Vec<u64> = (0..=k)
        .map(|i| {
            cage.cells[i..]
                .iter()
                .map(|&c| 64 - doms[c].leading_zeros() as u64)
                .sum()
        })
        .collect();
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn rec(
        i: usize,
        acc: u64,
        cage: &CageInfo,
        n: usize,
        doms: &Doms,
        vals: &mut Vec<usize>,
        bounds: (&[u64], &[u64]),
        work: &mut usize,
        f: &mut impl FnMut(&[usize]) -> ControlFlow<()>,
    ) -> bool {
        if *work == 0 {
            return false;
        }
        *work -= 1;
        let k = cage.cells.len();
        if i == k {
            let holds = match cage.op {
                // Sums are exact by the bounds, products by divisibility: check the total only.
                Op::Add | Op::Mul => acc == cage.target,
                Op::Given => true,
                _ if k <= 8 => {
                    let mut v64 = [0u64; 8];
                    for (x, &v) in v64.iter_mut().zip(vals.iter()) {
                        *x = v as u64;
                    }
                    cage.op.holds(cage.target, &v64[..k])
                }
                _ => {
                    let v64: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
                    cage.op.holds(cage.target, &v64)
                }
            };
            if holds {
                return f(vals).is_continue();
            }
            return true;
        }
        let cell = cage.cells[i];
        let mut d = doms[cell];
        // No repeat with an earlier cell of the cage in the same row or column.
        for j in 0..i {
            let other = cage.cells[j];
            if other / n == cell / n || other % n == cell % n {
                d &= !bit(vals[j]);
            }
        }
        // The second cell of a two-cell '-' or '/' cage has at most two partners.
        if i == 1 && k == 2 && matches!(cage.op, Op::Sub | Op::Div) {
            let (a, t) = (vals[0] as u64, cage.target);
            let partners = match cage.op {
                Op::Sub => [a.checked_add(t), a.checked_sub(t)],
                _ => [a.checked_mul(t), (t != 0 && a % t == 0).then(|| a / t)],
            };
            let mut allowed = 0u64;
            for p in partners.into_iter().flatten() {
                if (1..=n as u64).contains(&p) {
                    allowed |= bit(p as usize);
                }
            }
            d &= allowed;
        }
        while d != 0 {
            let v = d.trailing_zeros() as usize + 1;
            d &= d - 1;
            let next = match cage.op {
                Op::Add => {
                    let s = acc + v as u64;
                    if s + bounds.0[i + 1] > cage.target {
                        break;
                    }
                    if s + bounds.1[i + 1] < cage.target {
                        continue;
                    }
                    s
                }
                Op::Mul => {
                    let Some(p) = acc.checked_mul(v as u64) else {
                        continue;
                    };
                    if cage.target == 0 || !cage.target.is_multiple_of(p) {
                        continue;
                    }
                    p
                }
                Op::Given => {
                    if v as u64 != cage.target {
                        continue;
                    }
                    acc
                }
                _ => acc,
            };
            vals[i] = v;
            if !rec(i + 1, next, cage, n, doms, vals, bounds, work, f) {
                return false;
            }
        }
        true
    }
    let init = if cage.op == Op::Mul { 1 } else { 0 };
    rec(
        0,
        init,
        cage,
        n,
        doms,
        &mut vals,
        (&min_rest, &max_rest),
        work,
        f,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format;

    #[test]
    fn empty_puzzles_count_latin_squares() {
        for (n, expected) in [(1, 1), (2, 2), (3, 12), (4, 576)] {
            let cages = (1..=n)
                .flat_map(|r| (1..=n).map(move |c| (r, c)))
                .map(|(r, c)| {
                    crate::puzzle::Cage::new(Op::Unknown, 0, vec![crate::puzzle::Cell::new(r, c)])
                })
                .collect::<Vec<_>>();
            // A one-cell '?' cage with target 0 cannot hold; use a single big '+' cage instead.
            let _ = cages;
            let all: Vec<_> = (1..=n)
                .flat_map(|r| (1..=n).map(move |c| crate::puzzle::Cell::new(r, c)))
                .collect();
            let sum = (n * n * (n + 1) / 2) as u64;
            let p = Puzzle::new(n, vec![crate::puzzle::Cage::new(Op::Add, sum, all)]);
            let s = Solver::new(&p).unwrap();
            assert_eq!(s.count(None), (expected, None), "n = {n}");
        }
    }

    #[test]
    fn spec_4x4_has_six_solutions() {
        let t = "kenken(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], [2|3], [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), *(2, [[3|4]])], T).";
        let p = &format::prolog::read(t).unwrap()[0];
        let sols = Solver::new(p).unwrap().solve(None);
        assert!(sols.complete);
        assert_eq!(sols.grids.len(), 6);
        assert!(sols.grids.iter().all(|g| p.is_solution(g)));
    }
}
