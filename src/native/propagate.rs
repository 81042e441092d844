//! Propagation to a fixpoint: queues of changed cells, cages to filter and lines to check,
//! worked through in small steps, each of which may find a contradiction:
//! - a changed cell wakes its row, its column and its cage; a placed value leaves its row and
//!   column;
//! - a cage is filtered by its table (or by search, without one), and the values it must put
//!   in a line leave the line's other cells;
//! - a line is checked for missing values and hidden singles, and from [`super::STRONG_FROM`]
//!   on filtered to generalised arc consistency (module `line`);
//! - a learning search's clauses propagate first (through the [`Recorder`]).
//!
//! Every removal and contradiction is told to a [`Recorder`]: nothing for the plain search, the
//! trail for the learning search (module `learn`). Root probing, which tries each candidate
//! and propagates it, is here too.

use std::time::Instant;

use super::learn::{Conflict, Why};
use super::table::{self, FilterScratch, Table};
use super::{line, Scratch, Solver, FREE, PROBE_PASSES, SEARCH_BUDGET};

/// What propagation tells about its work: removals with their reasons, and contradictions.
/// `()` records nothing (the plain search); a learning search records on its trail.
pub(super) trait Recorder {
    /// Whether anything is recorded (lets callers skip work).
    const ON: bool;
    /// `gone` (values as bits) just left cell `i`, whose candidates are now `now`; `why(v)` is
    /// the reason for value `v`.
    fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why);
    /// Propagation found `conflict` (and stops).
    fn conflict(&mut self, conflict: Conflict);
    /// Propagates the learnt clauses over the removals recorded since the last call. Cells
    /// narrowed are queued.
    fn clauses(&mut self, doms: &mut [u64], queue: &mut CellQueue) -> Result<(), Conflict>;
}

impl Recorder for () {
    const ON: bool = false;
    #[inline(always)]
    fn removed(&mut self, _: usize, _: u64, _: u64, _: impl Fn(usize) -> Why) {}
    #[inline(always)]
    fn conflict(&mut self, _: Conflict) {}
    #[inline(always)]
    fn clauses(&mut self, _: &mut [u64], _: &mut CellQueue) -> Result<(), Conflict> {
        Ok(())
    }
}

/// Records what a cage's filter removed (`before` holds its cells' candidates before it).
fn record_cage<R: Recorder>(cells: &[usize], k: usize, before: &[u64], doms: &[u64], rec: &mut R) {
    if !R::ON {
        return;
    }
    for (&i, &b) in cells.iter().zip(before) {
        if doms[i] != b {
            rec.removed(i, b & !doms[i], doms[i], |_| Why::Cage(k as u32));
        }
    }
}

/// The cells still to be looked at, each queued once; a cell changed only by its own cage's
/// filter (which is at its fixpoint then) does not wake that cage again.
pub(super) struct CellQueue {
    list: Vec<u32>,
    /// Per cell: 0 not queued, 1 queued and waking its cage, 2 queued without.
    state: Vec<u8>,
}

impl CellQueue {
    pub(super) fn new(cells: usize) -> Self {
        CellQueue {
            list: Vec::new(),
            state: vec![0; cells],
        }
    }

    pub(super) fn push(&mut self, i: usize, wake_cage: bool) {
        match self.state[i] {
            0 => {
                self.list.push(i as u32);
                self.state[i] = if wake_cage { 1 } else { 2 };
            }
            _ if wake_cage => self.state[i] = 1,
            _ => {}
        }
    }

    pub(super) fn pop(&mut self) -> Option<(usize, bool)> {
        let i = self.list.pop()? as usize;
        let wake = self.state[i] == 1;
        self.state[i] = 0;
        Some((i, wake))
    }

    fn clear(&mut self) {
        for i in self.list.drain(..) {
            self.state[i as usize] = 0;
        }
    }
}

/// What is still to be looked at: changed cells, cages to filter again and lines (rows `0..n`,
/// columns `n..2n`) to check, each queued once.
pub(super) struct Queues {
    pub(super) cells: CellQueue,
    cage_dirty: Vec<bool>,
    cages: Vec<usize>,
    line_dirty: Vec<bool>,
    lines: Vec<usize>,
}

impl Queues {
    /// Empty queues for `cells` cells, `cages` cages and `lines` lines.
    pub(super) fn new(cells: usize, cages: usize, lines: usize) -> Queues {
        Queues {
            cells: CellQueue::new(cells),
            cage_dirty: vec![false; cages],
            cages: Vec::new(),
            line_dirty: vec![false; lines],
            lines: Vec::new(),
        }
    }

    #[inline(always)]
    fn wake_cage(&mut self, k: usize) {
        if !self.cage_dirty[k] {
            self.cage_dirty[k] = true;
            self.cages.push(k);
        }
    }

    #[inline(always)]
    fn wake_line(&mut self, l: usize) {
        if !self.line_dirty[l] {
            self.line_dirty[l] = true;
            self.lines.push(l);
        }
    }

    #[inline(always)]
    fn next_cage(&mut self) -> Option<usize> {
        let k = self.cages.pop()?;
        self.cage_dirty[k] = false;
        Some(k)
    }

    #[inline(always)]
    fn next_line(&mut self) -> Option<usize> {
        let l = self.lines.pop()?;
        self.line_dirty[l] = false;
        Some(l)
    }

    /// Empties every queue (after a contradiction).
    fn clear(&mut self) {
        self.cells.clear();
        for k in self.cages.drain(..) {
            self.cage_dirty[k] = false;
        }
        for l in self.lines.drain(..) {
            self.line_dirty[l] = false;
        }
    }
}

/// How often each cage, and each line, caused a contradiction (for branching: dom/wdeg).
pub(super) struct Weights {
    pub(super) cage: Vec<u32>,
    pub(super) line: Vec<u32>,
}

/// Counts one more contradiction against a cage or line.
fn bump(weight: &mut u32) {
    *weight = weight.saturating_add(1);
}

/// The first cell of a line (rows `0..n`, columns `n..2n`) and the step to the next one.
pub(super) fn line_start_step(line: usize, n: usize) -> (usize, usize) {
    if line < n {
        (line * n, 1)
    } else {
        (line - n, n)
    }
}

/// One propagation: the domains it narrows, its queues, and what the steps share.
struct Run<'a, R> {
    solver: &'a Solver,
    tables: &'a [Option<Table>],
    doms: &'a mut [u64],
    rec: &'a mut R,
    queues: &'a mut Queues,
    weights: &'a mut Weights,
    /// The domains of the cage being filtered, before.
    before: &'a mut Vec<u64>,
    filter: &'a mut FilterScratch,
}

impl<R: Recorder> Run<'_, R> {
    /// Removes the values `gone` (some of its candidates) from `cell` for `why`, and queues
    /// the cell; a contradiction when none is left.
    #[inline(always)]
    fn remove(
        &mut self,
        cell: usize,
        gone: u64,
        why: impl Fn(usize) -> Why,
    ) -> Result<(), Conflict> {
        self.doms[cell] &= !gone;
        self.rec.removed(cell, gone, self.doms[cell], why);
        if self.doms[cell] == 0 {
            return Err(Conflict::Wipe(cell));
        }
        self.queues.cells.push(cell, true);
        Ok(())
    }

    /// A changed cell wakes its lines and (unless only its cage changed it) its cage; a placed
    /// value leaves the cell's row and column.
    #[inline(always)]
    fn cell(&mut self, i: usize, wake_cage: bool) -> Result<(), Conflict> {
        let d = self.doms[i];
        if d == 0 {
            return Err(Conflict::Wipe(i));
        }
        let s = self.solver;
        let n = s.n;
        let (r, c) = (s.row_of[i] as usize, s.col_of[i] as usize);
        self.queues.wake_line(r);
        self.queues.wake_line(n + c);
        let k = s.cage_of[i];
        if wake_cage && k != FREE {
            self.queues.wake_cage(k);
        }
        if d & (d - 1) == 0 {
            // The other cells of the row, then of the column.
            for (line, start, step) in [(r, r * n, 1), (n + c, c, n)] {
                self.leave(i, d, start, step)
                    .inspect_err(|_| bump(&mut self.weights.line[line]))?;
            }
        }
        Ok(())
    }

    /// The value `d` placed in cell `i` leaves the other cells of the line `start + j * step`.
    #[inline(always)]
    fn leave(&mut self, i: usize, d: u64, start: usize, step: usize) -> Result<(), Conflict> {
        let mut j = start;
        for _ in 0..self.solver.n {
            if j != i && self.doms[j] & d != 0 {
                self.remove(j, d, |_| Why::Peer(i as u32))?;
            }
            j += step;
        }
        Ok(())
    }

    /// Filters cage `k`; its cells it changed are queued without waking it again (it is at its
    /// fixpoint).
    #[inline(always)]
    fn cage(&mut self, k: usize) -> Result<(), Conflict> {
        self.filter_cage(k)
            .inspect_err(|_| bump(&mut self.weights.cage[k]))?;
        for (&i, &b) in self.solver.cages[k].cells.iter().zip(self.before.iter()) {
            if self.doms[i] != b {
                self.queues.cells.push(i, false);
            }
        }
        Ok(())
    }

    /// [`Run::cage`]'s filtering: by the cage's table, whose values the cage must put in a line
    /// then leave the line's other cells, or by search.
    #[inline(always)]
    fn filter_cage(&mut self, k: usize) -> Result<(), Conflict> {
        let solver = self.solver;
        let n = solver.n;
        let cage = &solver.cages[k];
        self.before.clear();
        self.before.extend(cage.cells.iter().map(|&i| self.doms[i]));
        let Some(t) = &self.tables[k] else {
            if !table::filter_by_search(cage, n, self.doms, SEARCH_BUDGET, self.filter) {
                return Err(Conflict::Cage(k as u32));
            }
            record_cage(&cage.cells, k, self.before, self.doms, self.rec);
            return Ok(());
        };
        if !t.filter(&cage.cells, self.doms, self.filter) {
            return Err(Conflict::Cage(k as u32));
        }
        record_cage(&cage.cells, k, self.before, self.doms, self.rec);
        // Values the cage must put in a line leave the line's other cells.
        for (l, &(line, _)) in t.lines().iter().enumerate() {
            let forced = t.forced(l, self.filter);
            if forced == 0 {
                continue;
            }
            let (start, step) = line_start_step(line, n);
            for j in 0..n {
                let i = start + j * step;
                if solver.cage_of[i] != k && self.doms[i] & forced != 0 {
                    let why = |_| Why::Forced(k as u32, l as u16);
                    self.remove(i, self.doms[i] & forced, why)?;
                }
            }
        }
        Ok(())
    }

    /// Checks a line that changed: every value has a cell; a value with one cell left goes
    /// there (a hidden single); from [`super::STRONG_FROM`] on, generalised arc consistency.
    #[inline(always)]
    fn line(&mut self, line: usize) -> Result<(), Conflict> {
        self.check_line(line)
            .inspect_err(|_| bump(&mut self.weights.line[line]))
    }

    #[inline(always)]
    fn check_line(&mut self, line: usize) -> Result<(), Conflict> {
        let solver = self.solver;
        let n = solver.n;
        let full = solver.full();
        let (start, step) = line_start_step(line, n);
        let mut once = 0u64;
        let mut twice = 0u64;
        let mut placed = 0u64;
        for j in 0..n {
            let d = self.doms[start + j * step];
            twice |= once & d;
            once |= d;
            if d & (d - 1) == 0 {
                placed |= d;
            }
        }
        if once != full {
            let missing = full & !once;
            let value = missing.trailing_zeros() as u8 + 1;
            return Err(Conflict::Missing(line as u16, value));
        }
        // Values in one cell only, that cell not yet fixed to it.
        let unique = once & !twice & !placed;
        if unique != 0 {
            for j in 0..n {
                let i = start + j * step;
                let d = self.doms[i];
                if d & unique != 0 && d & (d - 1) != 0 {
                    if (d & unique).count_ones() > 1 {
                        let two = d & unique;
                        let u1 = two.trailing_zeros() as u8 + 1;
                        let u2 = (two & (two - 1)).trailing_zeros() as u8 + 1;
                        return Err(Conflict::Double(line as u16, i as u32, u1, u2));
                    }
                    let value = (d & unique).trailing_zeros() as u8 + 1;
                    self.remove(i, d & !unique, |_| Why::Single(line as u16, value))?;
                }
            }
        }
        if n >= solver.strong_from {
            let (queue, rec) = (&mut self.queues.cells, &mut *self.rec);
            line::all_different(self.doms, start, step, n, |i, kept, gone, reach| {
                queue.push(i, true);
                rec.removed(i, gone, kept, |v| {
                    Why::Hall(line as u16, reach[v - 1] | table::bit(v))
                });
            })
            .map_err(|shared| Conflict::Hall(line as u16, shared))?;
        }
        Ok(())
    }
}

impl Solver {
    /// Filters `doms` to a fixpoint after the cells in `changed` changed (all cells, and every
    /// cage, for a fresh start); false on a contradiction. Work is driven by queues: a changed
    /// cell wakes its row, its column and its cage; a placed value leaves its row and column.
    pub(super) fn propagate(
        &self,
        doms: &mut [u64],
        scratch: &mut Scratch,
        changed: &[usize],
    ) -> bool {
        self.propagate_with(doms, scratch, changed, &mut ())
    }

    /// [`Solver::propagate`], telling `rec` every value removed and why, and every
    /// contradiction; `rec` may narrow domains too (learnt clauses). False also when the
    /// deadline passed (then `scratch.expired` is set, and no contradiction is told).
    pub(super) fn propagate_with(
        &self,
        doms: &mut [u64],
        scratch: &mut Scratch,
        changed: &[usize],
        rec: &mut impl Recorder,
    ) -> bool {
        for &i in changed {
            scratch.queues.cells.push(i, true);
        }
        match self.run_queues(doms, scratch, rec) {
            Ok(()) => true,
            Err(conflict) => {
                if let Some(conflict) = conflict {
                    rec.conflict(conflict);
                }
                scratch.queues.clear();
                false
            }
        }
    }

    /// Works through the queues to a fixpoint: learnt clauses first (the cheapest), then
    /// changed cells, then cages (the costliest filter), then lines. `Err(None)`: the deadline
    /// passed.
    fn run_queues(
        &self,
        doms: &mut [u64],
        scratch: &mut Scratch,
        rec: &mut impl Recorder,
    ) -> Result<(), Option<Conflict>> {
        let Scratch {
            queues,
            before,
            filter,
            weights,
            expired,
            tables,
            propagations,
        } = scratch;
        let mut run = Run {
            solver: self,
            tables: tables.as_deref().unwrap_or(&self.tables),
            doms,
            rec,
            queues,
            weights,
            before,
            filter,
        };
        loop {
            run.rec.clauses(run.doms, &mut run.queues.cells)?;
            while let Some((i, wake_cage)) = run.queues.cells.pop() {
                run.cell(i, wake_cage)?;
            }
            if let Some(k) = run.queues.next_cage() {
                *propagations += 1;
                run.cage(k)?;
                // Filtering by search can be long: the deadline is checked after each.
                if run.tables[k].is_none() && self.deadline.is_some_and(|d| Instant::now() >= d) {
                    *expired = true;
                    return Err(None);
                }
                continue;
            }
            let Some(line) = run.queues.next_line() else {
                return Ok(());
            };
            *propagations += 1;
            run.line(line)?;
        }
    }

    /// Failed-value probing at the root: each candidate of each open cell is tried and
    /// propagated on a copy; one that fails is removed (and the removal propagated), until a pass
    /// removes nothing. False on a contradiction (or when the deadline passes: then
    /// `scratch.expired` is set). The failures found also weigh in the branching (dom/wdeg).
    pub(super) fn probe(
        &self,
        doms: &mut [u64],
        scratch: &mut Scratch,
        failures: &mut u64,
    ) -> bool {
        let mut copy = vec![0u64; doms.len()];
        for _ in 0..PROBE_PASSES {
            let mut removed = false;
            for i in 0..doms.len() {
                if self.deadline.is_some_and(|t| Instant::now() >= t) {
                    scratch.expired = true;
                    return false;
                }
                for v in table::values(doms[i]) {
                    let d = doms[i];
                    if d & (d - 1) == 0 {
                        break;
                    }
                    if d & table::bit(v) == 0 {
                        continue;
                    }
                    copy.copy_from_slice(doms);
                    copy[i] = table::bit(v);
                    if self.propagate(&mut copy, scratch, &[i]) {
                        continue;
                    }
                    *failures += 1;
                    if scratch.expired {
                        return false;
                    }
                    doms[i] &= !table::bit(v);
                    removed = true;
                    if !self.propagate(doms, scratch, &[i]) {
                        return false;
                    }
                }
            }
            if !removed {
                break;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op, Puzzle};

    /// What propagation told: each removal (cell, values gone, values left, the reason of the
    /// first value gone) and each contradiction.
    #[derive(Default)]
    struct Log {
        removed: Vec<(usize, u64, u64, String)>,
        conflicts: Vec<String>,
    }

    impl Recorder for Log {
        const ON: bool = true;
        fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why) {
            let first = gone.trailing_zeros() as usize + 1;
            self.removed
                .push((i, gone, now, format!("{:?}", why(first))));
        }
        fn conflict(&mut self, conflict: Conflict) {
            self.conflicts.push(format!("{conflict:?}"));
        }
        fn clauses(&mut self, _: &mut [u64], _: &mut CellQueue) -> Result<(), Conflict> {
            Ok(())
        }
    }

    /// Propagates on a 3x3 grid with one `+` cage over everything (any Latin square), from the
    /// domains `doms` with cells `changed` (waking the cage) and `quiet` (not waking it):
    /// whether it holds, what it told, and its buffers after.
    fn run(doms: &mut [u64], changed: &[usize], quiet: &[usize]) -> (bool, Log, Scratch) {
        let all = (1..=3)
            .flat_map(|r| (1..=3).map(move |c| Cell::new(r, c)))
            .collect();
        let solver = Solver::new(&Puzzle::new(3, vec![Cage::new(Op::Add, 18, all)])).unwrap();
        let mut scratch = solver.scratch();
        for &i in quiet {
            scratch.queues.cells.push(i, false);
        }
        let mut log = Log::default();
        let ok = solver.propagate_with(doms, &mut scratch, changed, &mut log);
        // Nothing is left queued: a consistent grid propagates to its own fixpoint.
        let mut open = vec![0b111u64; 9];
        assert!(solver.propagate(&mut open, &mut scratch, &[]));
        assert_eq!(open, vec![0b111u64; 9]);
        (ok, log, scratch)
    }

    /// A value placed leaves the cell's row and column, each removal told with its reason.
    #[test]
    fn a_placed_value_leaves_its_row_and_column() {
        let mut doms = vec![0b111u64; 9];
        doms[0] = 0b001;
        let (ok, log, scratch) = run(&mut doms, &[0], &[]);
        assert!(ok);
        for i in [1, 2, 3, 6] {
            assert_eq!(doms[i], 0b110, "cell {i}");
            assert!(log.removed.contains(&(i, 0b001, 0b110, "Peer(0)".into())));
        }
        assert_eq!(doms[4], 0b111);
        assert!(log.conflicts.is_empty());
        assert!(scratch.propagations > 0);
    }

    /// A contradiction is told once, weighs against the line that caused it, and leaves the
    /// queues empty for the next propagation.
    #[test]
    fn a_contradiction_is_told_and_the_queues_emptied() {
        // Cells 0 and 1 of row 0 both hold 1.
        let mut doms = vec![0b111u64; 9];
        (doms[0], doms[1]) = (0b001, 0b001);
        let (ok, log, scratch) = run(&mut doms, &[0, 1], &[]);
        assert!(!ok);
        assert!(matches!(&log.conflicts[..], [c] if c.starts_with("Wipe(")));
        assert_eq!(scratch.weights.line[0], 1);
    }

    /// A value with one cell left in a line goes there (a hidden single), for that reason.
    #[test]
    fn a_hidden_single_is_placed() {
        // Value 3 of row 0 fits cell 2 only; cells 0 and 1 changed as if by their cage, which
        // is then not woken: the line finds it.
        let mut doms = vec![0b111u64; 9];
        (doms[0], doms[1]) = (0b011, 0b011);
        let (ok, log, _) = run(&mut doms, &[], &[0, 1]);
        assert!(ok);
        assert_eq!(doms[2], 0b100);
        let single = (2, 0b011, 0b100, "Single(0, 3)".to_string());
        assert!(log.removed.contains(&single));
    }
}
