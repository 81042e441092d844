//! Cage constraints: the admissible tuples of a cage, enumerated once, and the filter that keeps
//! every cell's candidates supported by a tuple that is still possible.
//!
//! A table is stored as bitsets over its tuples, one per (position in the cage, value): the
//! tuples still possible are found by mask operations (the "compact table" of modern CP solvers,
//! recomputed from the cells' candidates, so nothing has to be undone on backtracking).

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::puzzle::Op;

/// Bit `v - 1`: the candidate mask of value `v`.
pub(super) fn bit(v: usize) -> u64 {
    1u64 << (v - 1)
}

/// The values of a candidate mask, smallest first.
pub(super) fn values(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let v = mask.trailing_zeros() as usize + 1;
            mask &= mask - 1;
            v
        })
    })
}

/// A cage as the solver sees it.
pub(super) struct Cage {
    pub op: Op,
    pub target: u64,
    /// Cell indices (row * n + col, 0-based).
    pub cells: Vec<usize>,
}

/// The admissible tuples of one cage, as bitsets per (position, value).
pub(super) struct Table {
    n: usize,
    /// Cells in the cage.
    k: usize,
    /// Tuples in the table.
    count: usize,
    /// Words per bitset.
    words: usize,
    /// Everything in one buffer: the bitset of the tuples with value `v` at position `p`
    /// (`k * n` of them, `words` each), then per position the values some tuple has there (`k`),
    /// then the bitset of every tuple (`words`), then per line of `lines` each tuple's values in
    /// that line (`count` each, when the table is small enough).
    data: Vec<u64>,
    /// See [`Table::lines`]: each line, with the positions of the cage's cells there (bit `p`).
    lines: Vec<(usize, u64)>,
    /// Whether `data` holds the values per line.
    line_values: bool,
    /// Per (position, value), the word of `live` where [`Table::filter`] last found a tuple
    /// supporting it ("residual support": looked at first next time). Only a hint, shared by
    /// every search on the table, hence atomic.
    residues: Vec<AtomicU32>,
}

/// Tables up to this many tuples also keep each tuple's values per line.
const LINE_VALUES_TUPLES: usize = 1 << 14;

/// The tuples an explanation must show dead (see [`Table::explain`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum Dead {
    /// Every tuple: the cage has none left.
    All,
    /// Those with value `v` at position `p`: `v` left that cell.
    Value(usize, usize),
    /// Those putting no `v` in the cage's cells of its `i`-th line: the cage must put `v` there.
    Line(usize, usize),
}

/// Buffers a filter reuses.
#[derive(Default)]
pub(super) struct FilterScratch {
    live: Vec<u64>,
    acc: Vec<u64>,
    /// Tuples being enumerated, when building a table.
    tuples: Vec<u8>,
}

impl Table {
    /// The table of `cage` in an `n`×`n` grid, its cells' values drawn from `dom(cell)`, or `None`
    /// when it would hold more than `budget` tuples (or its enumeration takes more than `work`
    /// steps; the steps taken are deducted).
    pub(super) fn build(
        cage: &Cage,
        n: usize,
        dom: &dyn Fn(usize) -> u64,
        budget: usize,
        work: &mut usize,
        s: &mut FilterScratch,
    ) -> Option<Table> {
        let k = cage.cells.len();
        let tuples = &mut s.tuples;
        tuples.clear();
        let limit = budget.saturating_mul(k);
        let done = enumerate(cage, n, dom, work, &mut |vals| {
            tuples.extend(vals.iter().map(|&v| v as u8));
            if tuples.len() > limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if !done {
            return None;
        }
        let count = tuples.len() / k;
        let words = count.div_ceil(64).max(1);
        let lines = cage_lines(&cage.cells, n);
        let line_values = count <= LINE_VALUES_TUPLES;
        let per_line = if line_values { count } else { 0 };
        let mut data = vec![0u64; k * n * words + k + words + lines.len() * per_line];
        let (masks, rest) = data.split_at_mut(k * n * words);
        let (present, rest) = rest.split_at_mut(k);
        let (all, by_line) = rest.split_at_mut(words);
        for (t, tuple) in tuples.chunks_exact(k).enumerate() {
            for (p, &v) in tuple.iter().enumerate() {
                masks[(p * n + v as usize - 1) * words + t / 64] |= 1u64 << (t % 64);
                present[p] |= bit(v as usize);
            }
            if line_values {
                for (l, &(_, positions)) in lines.iter().enumerate() {
                    by_line[l * count + t] =
                        values(positions).fold(0, |a, p| a | bit(tuple[p - 1] as usize));
                }
            }
        }
        all.fill(u64::MAX);
        if !count.is_multiple_of(64) {
            all[words - 1] = (1u64 << (count % 64)) - 1;
        }
        if count == 0 {
            all[0] = 0;
        }
        Some(Table {
            n,
            k,
            count,
            words,
            data,
            lines,
            line_values,
            residues: if words > 1 {
                (0..k * n).map(|_| AtomicU32::new(0)).collect()
            } else {
                Vec::new()
            },
        })
    }

    fn present(&self, p: usize) -> u64 {
        self.data[self.k * self.n * self.words + p]
    }

    fn all(&self) -> &[u64] {
        let start = self.k * self.n * self.words + self.k;
        &self.data[start..start + self.words]
    }

    /// How many words each of its bitsets has (a 64th of its tuples, rounded up).
    pub(super) fn words(&self) -> usize {
        self.words
    }

    /// How many words the table occupies (its memory cost).
    pub(super) fn size(&self) -> usize {
        self.data.len()
    }

    fn mask(&self, p: usize, v: usize) -> &[u64] {
        let start = (p * self.n + v - 1) * self.words;
        &self.data[start..start + self.words]
    }

    /// The values every possible tuple (as left by the last [`Table::filter`]) puts in the
    /// cage's cells of its `i`-th line (see [`Table::lines`]): those values are taken in that
    /// line, so no other cell of the line can hold them.
    pub(super) fn forced(&self, i: usize, s: &FilterScratch) -> u64 {
        if !self.line_values {
            return 0;
        }
        let start = self.k * self.n * self.words + self.k + self.words + i * self.count;
        let vals = &self.data[start..start + self.count];
        let mut forced = u64::MAX;
        for (w, &word) in s.live.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let t = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                forced &= vals[t];
                if forced == 0 {
                    return 0;
                }
            }
        }
        if forced == u64::MAX {
            0
        } else {
            forced
        }
    }

    /// The lines (rows `0..n`, columns `n..2n`) where the cage has two or more cells but not the
    /// whole line, each with the positions of the cage's cells there (bit `p` for position `p`).
    pub(super) fn lines(&self) -> &[(usize, u64)] {
        &self.lines
    }

    /// Removes from the cells (`cells[p]` is position `p`) every value no possible tuple supports;
    /// false when no tuple is possible.
    pub(super) fn filter(&self, cells: &[usize], doms: &mut [u64], s: &mut FilterScratch) -> bool {
        if self.words == 1 {
            return self.filter_small(cells, doms, s);
        }
        let live = &mut s.live;
        live.clear();
        live.extend_from_slice(self.all());
        let mut restricted = false;
        for (p, &c) in cells.iter().enumerate() {
            let d = doms[c] & self.present(p);
            if d == 0 {
                return false;
            }
            let removed = self.present(p) & !d;
            if removed == 0 {
                continue;
            }
            restricted = true;
            // Every tuple has one value at `p`: keep those with a candidate there, by whichever
            // of the two sets is smaller.
            if removed.count_ones() <= d.count_ones() {
                for v in values(removed) {
                    for (l, m) in live.iter_mut().zip(self.mask(p, v)) {
                        *l &= !m;
                    }
                }
            } else {
                let acc = &mut s.acc;
                acc.clear();
                acc.resize(self.words, 0);
                for v in values(d) {
                    for (a, m) in acc.iter_mut().zip(self.mask(p, v)) {
                        *a |= m;
                    }
                }
                for (l, a) in live.iter_mut().zip(acc.iter()) {
                    *l &= a;
                }
            }
        }
        if !restricted {
            for (p, &c) in cells.iter().enumerate() {
                doms[c] &= self.present(p);
            }
            return true;
        }
        if live.iter().all(|&w| w == 0) {
            return false;
        }
        for (p, &c) in cells.iter().enumerate() {
            let mut supported = 0;
            for v in values(doms[c] & self.present(p)) {
                let mask = self.mask(p, v);
                let residue = &self.residues[p * self.n + v - 1];
                let w = residue.load(Ordering::Relaxed) as usize;
                if live[w] & mask[w] != 0 {
                    supported |= bit(v);
                } else if let Some(w) = live.iter().zip(mask).position(|(l, m)| l & m != 0) {
                    residue.store(w as u32, Ordering::Relaxed);
                    supported |= bit(v);
                }
            }
            doms[c] = supported;
        }
        true
    }

    /// Explains a removal by this cage (or its contradiction): picks few of the values gone from
    /// its cells that together leave no tuple of `dead`. `free[p]` are values position `p` had
    /// lost at the root (citing them costs nothing); `lost[p]` those it lost since, each a
    /// literal to cite, except where `fixed[p]` holds the position's one value left: then one
    /// `=` literal covers every other value. Writes the values chosen per position into `chosen`
    /// (for a fixed position, any bit means its `=` literal); false when even all of them leave
    /// a tuple (a caller's error).
    pub(super) fn explain(
        &self,
        dead: Dead,
        free: &[u64],
        lost: &[u64],
        fixed: &[Option<usize>],
        chosen: &mut [u64],
        s: &mut FilterScratch,
    ) -> bool {
        let left = &mut s.live;
        left.clear();
        left.extend_from_slice(self.all());
        match dead {
            Dead::All => {}
            Dead::Value(p, v) => {
                for (l, m) in left.iter_mut().zip(self.mask(p, v)) {
                    *l &= m;
                }
            }
            Dead::Line(i, v) => {
                let positions = self.lines[i].1;
                for p in values(positions) {
                    for (l, m) in left.iter_mut().zip(self.mask(p - 1, v)) {
                        *l &= !m;
                    }
                }
            }
        }
        chosen.fill(0);
        // What the root removed costs nothing.
        for (p, &f) in free.iter().enumerate().take(self.k) {
            for w in values(f & self.present(p)) {
                for (l, m) in left.iter_mut().zip(self.mask(p, w)) {
                    *l &= !m;
                }
            }
        }
        // Then greedily, the literal that kills the most tuples still left.
        let kills = |p: usize, w: usize, left: &[u64], fixed: Option<usize>| -> u32 {
            match fixed {
                Some(u) => left
                    .iter()
                    .zip(self.mask(p, u))
                    .map(|(l, m)| (l & !m).count_ones())
                    .sum(),
                None => left
                    .iter()
                    .zip(self.mask(p, w))
                    .map(|(l, m)| (l & m).count_ones())
                    .sum(),
            }
        };
        loop {
            if left.iter().all(|&w| w == 0) {
                return true;
            }
            let mut best = None;
            let mut best_kills = 0;
            for p in 0..self.k {
                let options = match fixed[p] {
                    Some(u) if chosen[p] == 0 => bit(u),
                    Some(_) => 0,
                    None => lost[p] & self.present(p) & !chosen[p],
                };
                for w in values(options) {
                    let k = kills(p, w, left, fixed[p]);
                    if k > best_kills {
                        best_kills = k;
                        best = Some((p, w));
                    }
                }
            }
            let Some((p, w)) = best else {
                return false;
            };
            chosen[p] |= bit(w);
            match fixed[p] {
                Some(u) => {
                    for (l, m) in left.iter_mut().zip(self.mask(p, u)) {
                        *l &= m;
                    }
                }
                None => {
                    for (l, m) in left.iter_mut().zip(self.mask(p, w)) {
                        *l &= !m;
                    }
                }
            }
        }
    }

    /// [`Table::filter`] for a table of at most 64 tuples (one word per bitset), the common case.
    fn filter_small(&self, cells: &[usize], doms: &mut [u64], s: &mut FilterScratch) -> bool {
        let n = self.n;
        let masks = &self.data[..self.k * n];
        let present = &self.data[self.k * n..self.k * n + self.k];
        let mut live = self.data[self.k * n + self.k];
        for (p, &c) in cells.iter().enumerate() {
            let d = doms[c] & present[p];
            if d == 0 {
                return false;
            }
            if d != present[p] {
                let mut keep = 0;
                for v in values(d) {
                    keep |= masks[p * n + v - 1];
                }
                live &= keep;
            }
        }
        if live == 0 {
            return false;
        }
        for (p, &c) in cells.iter().enumerate() {
            let mut supported = 0;
            for v in values(doms[c] & present[p]) {
                if live & masks[p * n + v - 1] != 0 {
                    supported |= bit(v);
                }
            }
            doms[c] = supported;
        }
        s.live.clear();
        s.live.push(live);
        true
    }
}

/// The lines where a cage has two or more cells but not all of the line, with the positions (in
/// the cage) of its cells there as a bitset. Only cages of at most 64 cells are looked at.
fn cage_lines(cells: &[usize], n: usize) -> Vec<(usize, u64)> {
    let mut lines: Vec<(usize, u64)> = Vec::new();
    if cells.len() > 64 {
        return lines;
    }
    for (p, &c) in cells.iter().enumerate() {
        for line in [c / n, n + c % n] {
            match lines.iter_mut().find(|(l, _)| *l == line) {
                Some((_, ps)) => *ps |= 1 << p,
                None => lines.push((line, 1 << p)),
            }
        }
    }
    lines.retain(|&(_, ps)| ps.count_ones() >= 2 && (ps.count_ones() as usize) < n);
    lines
}

/// Filters a cage that has no table by enumerating its tuples over the current candidates,
/// within `work` steps; past that the cage is left as it is (it is checked again, exactly, once
/// its cells are fixed). False when no tuple is possible.
pub(super) fn filter_by_search(
    cage: &Cage,
    n: usize,
    doms: &mut [u64],
    work: usize,
    s: &mut FilterScratch,
) -> bool {
    let support = &mut s.acc;
    support.clear();
    support.resize(cage.cells.len(), 0);
    let mut work = work;
    let done = enumerate(cage, n, &|c| doms[c], &mut work, &mut |vals| {
        for (s, &v) in support.iter_mut().zip(vals) {
            *s |= bit(v);
        }
        ControlFlow::Continue(())
    });
    if !done {
        return true;
    }
    // Nothing is narrowed on a contradiction (explanations read the domains as they were).
    if support
        .iter()
        .zip(&cage.cells)
        .any(|(s, &c)| doms[c] & s == 0)
    {
        return false;
    }
    for (s, &c) in support.iter().zip(&cage.cells) {
        doms[c] &= s;
    }
    true
}

/// Calls `f` with every tuple of the cage's cells, each value drawn from `dom(cell)`, that meets
/// the cage and has no repeat in a row or column. Returns false when `work` ran out or `f` broke.
pub(super) fn enumerate(
    cage: &Cage,
    n: usize,
    dom: &dyn Fn(usize) -> u64,
    work: &mut usize,
    f: &mut dyn FnMut(&[usize]) -> ControlFlow<()>,
) -> bool {
    let k = cage.cells.len();
    // Small cages keep their working arrays on the stack.
    const SMALL: usize = 16;
    let mut stack = [0u64; 5 * (SMALL + 1)];
    let mut stack_vals = [0usize; SMALL];
    let mut heap: Vec<u64> = Vec::new();
    let mut heap_vals: Vec<usize> = Vec::new();
    let (buf, vals): (&mut [u64], &mut [usize]) = if k <= SMALL {
        (&mut stack[..], &mut stack_vals[..k])
    } else {
        heap.resize(5 * (k + 1), 0);
        heap_vals.resize(k, 0);
        (&mut heap[..], &mut heap_vals[..])
    };
    let (doms, rest) = buf.split_at_mut(k + 1);
    let (min_rest, rest) = rest.split_at_mut(k + 1);
    let (max_rest, rest) = rest.split_at_mut(k + 1);
    let (rows, cols) = rest.split_at_mut(k + 1);
    for (p, &c) in cage.cells.iter().enumerate() {
        doms[p] = dom(c);
        rows[p] = (c / n) as u64;
        cols[p] = (c % n) as u64;
    }
    // Bounds on the sum of the cells after position i (for '+').
    for i in (0..k).rev() {
        min_rest[i] = min_rest[i + 1] + doms[i].trailing_zeros() as u64 + 1;
        max_rest[i] = max_rest[i + 1] + (64 - doms[i].leading_zeros() as u64);
    }
    let mut walk = Walk {
        cage,
        n,
        doms,
        min_rest,
        max_rest,
        rows,
        cols,
        vals,
        work,
        f,
    };
    let init = if cage.op == Op::Mul { 1 } else { 0 };
    walk.rec(0, init)
}

struct Walk<'a, 'w> {
    cage: &'a Cage,
    n: usize,
    doms: &'a [u64],
    min_rest: &'a [u64],
    max_rest: &'a [u64],
    /// Each position's row and column.
    rows: &'a [u64],
    cols: &'a [u64],
    vals: &'a mut [usize],
    work: &'w mut usize,
    f: &'w mut dyn FnMut(&[usize]) -> ControlFlow<()>,
}

impl Walk<'_, '_> {
    fn rec(&mut self, i: usize, acc: u64) -> bool {
        if *self.work == 0 {
            return false;
        }
        *self.work -= 1;
        let cage = self.cage;
        let (k, n) = (cage.cells.len(), self.n);
        if i == k {
            let holds = match cage.op {
                // Sums are exact by the bounds, products by divisibility: check the total only.
                Op::Add | Op::Mul => acc == cage.target,
                // Two-cell '-' and '/' have only partners left (see below).
                Op::Given => true,
                Op::Sub | Op::Div if k == 2 => true,
                _ if k <= 64 => {
                    let mut v64 = [0u64; 64];
                    for (x, &v) in v64.iter_mut().zip(self.vals.iter()) {
                        *x = v as u64;
                    }
                    cage.op.holds(cage.target, &v64[..k])
                }
                _ => {
                    let v64: Vec<u64> = self.vals.iter().map(|&v| v as u64).collect();
                    cage.op.holds(cage.target, &v64)
                }
            };
            return !holds || (self.f)(self.vals).is_continue();
        }
        let mut d = self.doms[i];
        // No repeat with an earlier cell of the cage in the same row or column.
        let (row, col) = (self.rows[i], self.cols[i]);
        for j in 0..i {
            if self.rows[j] == row || self.cols[j] == col {
                d &= !bit(self.vals[j]);
            }
        }
        // The second cell of a two-cell '-' or '/' cage has at most two partners.
        if i == 1 && k == 2 && matches!(cage.op, Op::Sub | Op::Div) {
            let (a, t) = (self.vals[0] as u64, cage.target);
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
        // The last value of a sum or product is known from the others.
        if i + 1 == k {
            let last = match cage.op {
                Op::Add => cage.target.checked_sub(acc),
                Op::Mul => (acc != 0 && cage.target.is_multiple_of(acc)).then(|| cage.target / acc),
                _ => None,
            };
            if matches!(cage.op, Op::Add | Op::Mul) {
                return match last {
                    Some(v) if (1..=n as u64).contains(&v) && d & bit(v as usize) != 0 => {
                        self.vals[i] = v as usize;
                        (self.f)(self.vals).is_continue()
                    }
                    _ => true,
                };
            }
        }
        for v in values(d) {
            let next = match cage.op {
                Op::Add => {
                    let s = acc + v as u64;
                    if s + self.min_rest[i + 1] > cage.target {
                        break;
                    }
                    if s + self.max_rest[i + 1] < cage.target {
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
            self.vals[i] = v;
            if !self.rec(i + 1, next) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cage(op: Op, target: u64, cells: &[usize]) -> Cage {
        Cage {
            op,
            target,
            cells: cells.to_vec(),
        }
    }

    #[test]
    fn filter_keeps_exactly_the_supported_values() {
        // A 4x4 grid, cage '7+' over cells (0,0), (0,1), (1,0): an L shape.
        let c = cage(Op::Add, 7, &[0, 1, 4]);
        let t = Table::build(
            &c,
            4,
            &|_| 0b1111,
            1000,
            &mut 100_000,
            &mut FilterScratch::default(),
        )
        .unwrap();
        let mut doms = vec![0b1111u64; 16];
        let mut s = FilterScratch::default();
        assert!(t.filter(&c.cells, &mut doms, &mut s));
        // 7 = 1+2+4, 1+4+2, 2+1+4 ... every value 1..4 is possible somewhere.
        assert_eq!(doms[0], 0b1111);
        // Fix the corner to 4: the others sum to 3 with no repeat between them? They are in
        // different rows and columns, so 1+2, 2+1 only.
        doms[0] = bit(4);
        assert!(t.filter(&c.cells, &mut doms, &mut s));
        assert_eq!((doms[1], doms[4]), (0b0011, 0b0011));
        doms[1] = bit(1);
        assert!(t.filter(&c.cells, &mut doms, &mut s));
        assert_eq!(doms[4], bit(2));
        doms[4] = bit(3);
        assert!(!t.filter(&c.cells, &mut doms, &mut s));
    }

    #[test]
    fn search_filter_agrees_with_the_table() {
        let c = cage(Op::Mul, 24, &[0, 1, 2, 5]);
        let t = Table::build(
            &c,
            4,
            &|_| 0b1111,
            1000,
            &mut 100_000,
            &mut FilterScratch::default(),
        )
        .unwrap();
        for mask in 1u64..16 {
            let mut a = vec![0b1111u64; 16];
            a[1] = mask;
            let mut b = a.clone();
            let ok_a = t.filter(&c.cells, &mut a, &mut FilterScratch::default());
            let ok_b = filter_by_search(&c, 4, &mut b, usize::MAX, &mut FilterScratch::default());
            assert_eq!(ok_a, ok_b, "mask {mask:b}");
            if ok_a {
                assert_eq!(a, b, "mask {mask:b}");
            }
        }
    }

    #[test]
    fn a_table_of_many_words_filters_like_the_search() {
        // A 9x9 grid, cage '20+' over a 2x2 square: hundreds of tuples, several words each.
        let c = cage(Op::Add, 20, &[0, 1, 9, 10]);
        let t = Table::build(
            &c,
            9,
            &|_| 0x1ff,
            100_000,
            &mut 1_000_000,
            &mut FilterScratch::default(),
        )
        .unwrap();
        assert!(t.words > 1);
        let mut seed = 12345u64;
        for _ in 0..300 {
            let mut a = vec![0x1ffu64; 81];
            for &cell in &c.cells {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                a[cell] = (seed >> 33) & 0x1ff | (seed >> 50) & 0x1ff;
            }
            let mut b = a.clone();
            let ok_a = t.filter(&c.cells, &mut a, &mut FilterScratch::default());
            let ok_b = filter_by_search(&c, 9, &mut b, usize::MAX, &mut FilterScratch::default());
            assert_eq!(ok_a, ok_b);
            if ok_a {
                assert_eq!(a, b);
            }
        }
    }

    /// Whether `vals` (one per cell of `c`, in an `n`x`n` grid) meets the cage: written from the
    /// rules, sharing nothing with the enumeration behind the tables.
    fn meets(c: &Cage, n: usize, vals: &[u64]) -> bool {
        for a in 0..vals.len() {
            for b in a + 1..vals.len() {
                let (x, y) = (c.cells[a], c.cells[b]);
                if vals[a] == vals[b] && (x / n == y / n || x % n == y % n) {
                    return false;
                }
            }
        }
        let max = *vals.iter().max().unwrap();
        let rest = |f: fn(u64, u64) -> u64, unit| {
            let i = vals.iter().position(|&v| v == max).unwrap();
            (0..vals.len())
                .filter(|&j| j != i)
                .fold(unit, |a, j| f(a, vals[j]))
        };
        match c.op {
            Op::Add => vals.iter().sum::<u64>() == c.target,
            Op::Mul => vals.iter().product::<u64>() == c.target,
            Op::Sub => max == c.target + rest(|a, b| a + b, 0),
            Op::Div => max == c.target * rest(|a, b| a * b, 1),
            _ => unreachable!(),
        }
    }

    #[test]
    fn explanations_kill_every_tuple_they_must() {
        let n = 7;
        let full = (1u64 << n) - 1;
        let cages = [
            cage(Op::Add, 14, &[0, 1, 7, 8]),
            cage(Op::Add, 12, &[0, 1, 2]),
            cage(Op::Mul, 60, &[0, 1, 8]),
            cage(Op::Mul, 12, &[0, 7]),
            cage(Op::Sub, 2, &[0, 1]),
            cage(Op::Div, 2, &[0, 7]),
        ];
        let mut rng = crate::rng::Rng::new(7);
        let (mut checked, mut tried) = (0, 0);
        for c in &cages {
            let k = c.cells.len();
            let t = Table::build(
                c,
                n,
                &|_| full,
                100_000,
                &mut 1_000_000,
                &mut FilterScratch::default(),
            )
            .unwrap();
            // Every tuple of values, by brute force.
            let mut tuples = Vec::new();
            let mut vals = vec![1u64; k];
            'all: loop {
                if meets(c, n, &vals) {
                    tuples.push(vals.clone());
                }
                for v in vals.iter_mut() {
                    if *v < n as u64 {
                        *v += 1;
                        continue 'all;
                    }
                    *v = 1;
                }
                break;
            }
            assert_eq!(tuples.len(), t.count);
            for _ in 0..400 {
                tried += 1;
                let mut free = vec![0u64; k];
                let mut lost = vec![0u64; k];
                let mut fixed = vec![None; k];
                for p in 0..k {
                    free[p] = rng.next_u64() & rng.next_u64() & rng.next_u64() & full;
                    if rng.chance(1, 4) {
                        fixed[p] = Some(1 + rng.index(n));
                        free[p] &= !bit(fixed[p].unwrap());
                    } else {
                        lost[p] = rng.next_u64() & full & !free[p];
                    }
                }
                let p = rng.index(k);
                let v = 1 + rng.index(n);
                let line = rng.index(t.lines().len().max(1));
                let dead = match rng.index(3) {
                    0 => Dead::All,
                    1 => Dead::Value(p, v),
                    _ if !t.lines().is_empty() => Dead::Line(line, v),
                    _ => Dead::All,
                };
                let is_target = |tu: &Vec<u64>| match dead {
                    Dead::All => true,
                    Dead::Value(p, v) => tu[p] == v as u64,
                    Dead::Line(i, v) => values(t.lines()[i].1).all(|q| tu[q - 1] != v as u64),
                };
                // The position `dead` is about says nothing (as in a removal from it).
                if let Dead::Value(p, _) = dead {
                    (free[p], lost[p], fixed[p]) = (0, 0, None);
                }
                let gone = |p: usize, v: u64| {
                    free[p] & bit(v as usize) != 0
                        || lost[p] & bit(v as usize) != 0
                        || fixed[p].is_some_and(|u| u as u64 != v)
                };
                let alive = |tu: &Vec<u64>| (0..k).all(|p| !gone(p, tu[p]));
                let all_dead = tuples
                    .iter()
                    .filter(|tu| is_target(tu))
                    .all(|tu| !alive(tu));
                let mut chosen = vec![0u64; k];
                let ok = t.explain(
                    dead,
                    &free,
                    &lost,
                    &fixed,
                    &mut chosen,
                    &mut FilterScratch::default(),
                );
                assert_eq!(
                    ok, all_dead,
                    "{dead:?} free {free:?} lost {lost:?} fixed {fixed:?}"
                );
                if !ok {
                    continue;
                }
                checked += 1;
                for q in 0..k {
                    match fixed[q] {
                        Some(_) => assert!(chosen[q].count_ones() <= 1),
                        None => assert_eq!(chosen[q] & !lost[q], 0, "only lost values are cited"),
                    }
                }
                // The values cited (and the root's) kill every tuple of `dead`.
                for tu in tuples.iter().filter(|tu| is_target(tu)) {
                    let killed = (0..k).any(|q| {
                        free[q] & bit(tu[q] as usize) != 0
                            || match fixed[q] {
                                Some(u) => chosen[q] != 0 && u as u64 != tu[q],
                                None => chosen[q] & bit(tu[q] as usize) != 0,
                            }
                    });
                    assert!(killed, "{dead:?}: tuple {tu:?} survives {chosen:?}");
                }
            }
        }
        assert!(
            checked * 4 > tried,
            "most cases explain a removal: {checked} of {tried}"
        );
    }
}
