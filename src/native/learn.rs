//! Learning from failures, for large grids (lazy clause generation): every value the
//! propagators remove is recorded on a trail with why it went, so that each contradiction can be
//! traced back to the decisions behind it. The traced cause becomes a clause (a nogood) that
//! stays for the rest of the search: the same dead end is never explored twice, across restarts.
//!
//! Literals are `x = v` and `x ≠ v` for a cell `x` and value `v`. A removal's reason is computed
//! only when a contradiction needs it, from what the trail held before it:
//! - a value placed in a cell leaves its row and column: `x ≠ v` because `y = v`;
//! - a cage's filter or a value a cage must put in a line: removals on the cage's cells that
//!   leave no tuple of its table where it would hold, few of them, chosen greedily (for a large
//!   table or none, every removal on the cage's other cells);
//! - a hidden single: the value left every other cell of the line;
//! - generalised arc consistency on a line: a Hall set (as many cells as values, holding only
//!   those values), so the value cannot go elsewhere;
//! - a clause that became unit: its other literals, all false.
//!
//! Conflict analysis keeps the first unique implication point (1UIP), as SAT solvers do: the
//! learnt clause is asserting, the search jumps back to the level where it becomes unit. The
//! clause is then minimised: a literal goes when its reasons, followed back, end in the clause's
//! other literals (as in MiniSat). Found solutions are blocked by a clause over the decisions
//! that led to them, so every solution comes once. Each decision is the (cell, value) pair most
//! active in recent conflicts per candidate of its cell. Restarts follow Luby's sequence; learnt
//! clauses of high literal-block distance are forgotten as their number grows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::rng::Rng;

use super::table::{bit, values, Dead, FilterScratch, Table};
use super::{line_start_step, luby, CellQueue, Scratch, SearchStats, Solver, Stop};

/// Why a literal became true.
#[derive(Debug, Clone, Copy)]
pub(super) enum Why {
    /// A decision of the search.
    Decision,
    /// `x ≠ w`: the cell was given this value (its `x = v` literal).
    Assigned(u8),
    /// `x ≠ v`: this cell of the same row or column holds `v`.
    Peer(u32),
    /// `x ≠ v`: the filter of this cage (or, for a cage without a table, a value it must put
    /// in a line of `x`).
    Cage(u32),
    /// `x ≠ v`: the cage must put `v` in its cells of its table's `i`-th line, a line of `x`.
    Forced(u32, u16),
    /// `x ≠ w`: the cell is the line's only place left for this value.
    Single(u16, u8),
    /// `x ≠ v`: a Hall set of the line holds `v` (the values, as a bitset).
    Hall(u16, u64),
    /// `x = v`: every other value left the cell.
    Last,
    /// This clause became unit.
    Clause(u32),
}

/// A contradiction a propagator found.
#[derive(Debug, Clone, Copy)]
pub(super) enum Conflict {
    /// The cell has no value left.
    Wipe(usize),
    /// The cage has no tuple left.
    Cage(u32),
    /// The line has no cell left for the value.
    Missing(u16, u8),
    /// The cell is the line's only place for both values.
    Double(u16, u32, u8, u8),
    /// More cells of the line than values in the set hold only values of the set.
    Hall(u16, u64),
    /// Every literal of the clause is false.
    Clause(u32),
}

/// What propagation tells about its work: removals with their reasons, and contradictions.
/// `()` records nothing (the plain search); [`Trail`] records for learning.
pub(super) trait Recorder {
    /// Whether anything is recorded (lets callers skip work).
    const ON: bool;
    /// `gone` (values as bits) just left cell `i`, whose candidates are now `now`; `why(v)` is
    /// the reason for value `v`.
    fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why);
    /// Propagation found `conflict` (and returns false).
    fn conflict(&mut self, conflict: Conflict);
    /// Propagates the learnt clauses over the removals recorded since the last call; false on
    /// a contradiction. Cells narrowed are queued.
    fn clauses(&mut self, doms: &mut [u64], queue: &mut CellQueue) -> bool;
}

impl Recorder for () {
    const ON: bool = false;
    #[inline(always)]
    fn removed(&mut self, _: usize, _: u64, _: u64, _: impl Fn(usize) -> Why) {}
    #[inline(always)]
    fn conflict(&mut self, _: Conflict) {}
    #[inline(always)]
    fn clauses(&mut self, _: &mut [u64], _: &mut CellQueue) -> bool {
        true
    }
}

/// Records what a cage's filter removed (`before` holds its cells' candidates before it).
pub(super) fn record_cage<R: Recorder>(
    cells: &[usize],
    k: usize,
    before: &[u64],
    doms: &[u64],
    rec: &mut R,
) {
    if !R::ON {
        return;
    }
    for (&i, &b) in cells.iter().zip(before) {
        if doms[i] != b {
            rec.removed(i, b & !doms[i], doms[i], |_| Why::Cage(k as u32));
        }
    }
}

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

/// Cage tables of up to this many words per bitset (64 tuples each) explain a removal with
/// few literals, chosen greedily (see [`Table::explain`]); larger ones cite every removal on the
/// cage's other cells, which is cheaper to compute.
const COVER_WORDS: usize = 4;

/// A literal: twice its atom (`Trail::atom`) for `cell ≠ v`, plus one for `cell = v`.
pub(super) type Lit = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    True,
    False,
    Unset,
}

#[derive(Debug, Clone, Copy)]
struct Event {
    lit: Lit,
    level: u32,
    why: Why,
}

/// In a clause's header word (see `Trail::arena`): the clause was learnt (it may be forgotten)
/// rather than added to block a solution.
const LEARNT: u32 = 1 << 31;

/// The trail of literals with their reasons, and the clauses: the recorder of a learning search.
pub(super) struct Trail {
    n: usize,
    /// Atoms are `cell << shift | (v - 1)`: `1 << shift` is `n` rounded up to a power of two,
    /// so that decoding a literal (done for every literal of every clause visited) is shifts
    /// and masks, not a division.
    shift: u32,
    full: u64,
    events: Vec<Event>,
    /// Per literal: its index in `events`, when it is there.
    pos: Vec<u32>,
    level: u32,
    /// Events up to here have been propagated through the clauses.
    qhead: usize,
    /// The clauses, one after another, each named by the index of its header: a word with its
    /// length (and `LEARNT`), its literal-block distance (how many decision levels its literals
    /// spanned when learnt), then its literals. One array rather than a vector per clause, so
    /// that visiting a clause is one memory access, not two.
    arena: Vec<u32>,
    /// How many of the clauses are learnt.
    learnt: usize,
    /// Per literal: the clauses watching it (their first two literals), each with a blocker,
    /// another of its literals: while that holds, the clause need not be looked at.
    watches: Vec<Vec<(u32, Lit)>>,
    conflict: Option<Conflict>,
    /// The cells of each cage.
    cage_cells: Vec<Vec<usize>>,
    /// Conflict analysis scratch: literals seen, and an explanation being built.
    seen: Vec<bool>,
    marked: Vec<Lit>,
    buf: Vec<Lit>,
    /// Minimisation scratch: literals whose reasons are still to follow back.
    stack: Vec<Lit>,
    /// Per atom (the pair of `cell = v` and `cell ≠ v`, see `atom`): how much it took
    /// part in recent conflicts (bumped by `bump`, decaying).
    activity: Vec<f64>,
    bump: f64,
    /// Explaining a cage: per position, values lost at the root, lost since, the value fixed,
    /// and the values cited.
    free: Vec<u64>,
    lost: Vec<u64>,
    fixed: Vec<Option<usize>>,
    chosen: Vec<u64>,
    cover: FilterScratch,
}

impl Trail {
    /// The index of the pair (`cell`, `v`).
    fn atom(&self, cell: usize, v: usize) -> usize {
        cell << self.shift | (v - 1)
    }

    fn ne(&self, cell: usize, v: usize) -> Lit {
        (2 * self.atom(cell, v)) as Lit
    }

    fn eq(&self, cell: usize, v: usize) -> Lit {
        self.ne(cell, v) | 1
    }

    /// The cell and value of a literal, and whether it is `=`.
    fn decode(&self, lit: Lit) -> (usize, usize, bool) {
        let atom = (lit >> 1) as usize;
        let mask = (1 << self.shift) - 1;
        (atom >> self.shift, (atom & mask) + 1, lit & 1 == 1)
    }

    fn value(&self, lit: Lit, doms: &[u64]) -> Value {
        let (cell, v, is_eq) = self.decode(lit);
        let d = doms[cell];
        let b = bit(v);
        let (holds, fails) = if is_eq {
            (d == b, d & b == 0)
        } else {
            (d & b == 0, d == b)
        };
        if holds {
            Value::True
        } else if fails {
            Value::False
        } else {
            Value::Unset
        }
    }

    /// Whether `lit` is on the trail.
    fn is_set(&self, lit: Lit) -> bool {
        let p = self.pos[lit as usize] as usize;
        p < self.events.len() && self.events[p].lit == lit
    }

    /// Whether `lit` is on the trail before index `t`.
    fn set_before(&self, lit: Lit, t: usize) -> bool {
        let p = self.pos[lit as usize] as usize;
        p < t && self.events[p].lit == lit
    }

    fn push(&mut self, lit: Lit, why: Why) {
        self.pos[lit as usize] = self.events.len() as u32;
        self.events.push(Event {
            lit,
            level: self.level,
            why,
        });
    }

    /// Makes `lit` true in `doms` (it is unset), for clause `c`; returns its cell.
    fn assert(&mut self, lit: Lit, c: u32, doms: &mut [u64]) -> usize {
        let (cell, v, is_eq) = self.decode(lit);
        if is_eq {
            self.push(lit, Why::Clause(c));
            let gone = doms[cell] & !bit(v);
            doms[cell] = bit(v);
            self.removed(cell, gone, bit(v), |_| Why::Assigned(v as u8));
        } else {
            doms[cell] &= !bit(v);
            self.removed(cell, bit(v), doms[cell], |_| Why::Clause(c));
        }
        cell
    }

    /// The `=` literal of `cell` on the trail before `t`, if any.
    fn fixed_before(&self, cell: usize, t: usize, doms: &[u64]) -> Option<Lit> {
        let d = doms[cell];
        if d != 0 && d & (d - 1) == 0 {
            let lit = self.eq(cell, d.trailing_zeros() as usize + 1);
            return self.set_before(lit, t).then_some(lit);
        }
        if d == 0 {
            return (1..=self.n)
                .map(|v| self.eq(cell, v))
                .find(|&l| self.set_before(l, t));
        }
        None
    }

    /// Adds to `out` why `cell` had lost the values of `mask` before `t` (those it had lost):
    /// its `=` literal if it was fixed, else its `≠` literals. Literals true at the root (in
    /// `root`) are left out.
    fn lost_before(
        &self,
        cell: usize,
        mask: u64,
        t: usize,
        doms: &[u64],
        root: &[u64],
        out: &mut Vec<Lit>,
    ) {
        if let Some(lit) = self.fixed_before(cell, t, doms) {
            out.push(lit);
            return;
        }
        for w in values(mask & !doms[cell] & root[cell]) {
            let lit = self.ne(cell, w);
            if self.set_before(lit, t) {
                out.push(lit);
            }
        }
    }

    /// Whether `cell` had lost every value of `mask` before `t`.
    fn all_lost_before(
        &self,
        cell: usize,
        mask: u64,
        t: usize,
        doms: &[u64],
        root: &[u64],
    ) -> bool {
        if self.fixed_before(cell, t, doms).is_some_and(|l| {
            let (_, v, _) = self.decode(l);
            bit(v) & mask == 0
        }) {
            return true;
        }
        values(mask & root[cell]).all(|w| self.set_before(self.ne(cell, w), t))
    }

    /// The cells of a line.
    fn line(&self, line: u16) -> impl Iterator<Item = usize> {
        let (start, step) = line_start_step(line as usize, self.n);
        (0..self.n).map(move |j| start + j * step)
    }

    /// Literals true before `t` that imply `lit` (the event at `t`), into `self.buf`.
    fn explain(&mut self, t: usize, doms: &[u64], root: &[u64], tables: &[Option<Table>]) {
        let mut out = std::mem::take(&mut self.buf);
        let e = self.events[t];
        let (cell, v, _) = self.decode(e.lit);
        match e.why {
            Why::Decision => {}
            Why::Assigned(u) => out.push(self.eq(cell, u as usize)),
            Why::Peer(j) => out.push(self.eq(j as usize, v)),
            Why::Cage(k) => {
                let cells = &self.cage_cells[k as usize];
                match cells.iter().position(|&c| c == cell) {
                    Some(p) => self.cage(k, Dead::Value(p, v), t, doms, root, tables, &mut out),
                    None => self.cage(k, Dead::All, t, doms, root, &[], &mut out),
                }
            }
            Why::Forced(k, l) => self.cage(
                k,
                Dead::Line(l as usize, v),
                t,
                doms,
                root,
                tables,
                &mut out,
            ),
            Why::Single(line, u) => {
                for c in self.line(line) {
                    if c != cell && root[c] & bit(u as usize) != 0 {
                        out.push(self.ne(c, u as usize));
                    }
                }
            }
            Why::Hall(line, hall) => self.hall(line, hall, Some(cell), t, doms, root, &mut out),
            Why::Last => {
                for w in values(self.full & !bit(v) & root[cell]) {
                    out.push(self.ne(cell, w));
                }
            }
            Why::Clause(c) => {
                for &l in self.lits(c) {
                    if l != e.lit {
                        out.push(l ^ 1);
                    }
                }
            }
        }
        self.buf = out;
    }

    /// Why cage `k` had no tuple of `dead` left before `t`: few removals on its cells that kill
    /// them all, chosen with its table (`tables[k]`); without a table, every removal on the
    /// cells (but the one `dead` is about).
    #[allow(clippy::too_many_arguments)]
    fn cage(
        &mut self,
        k: u32,
        dead: Dead,
        t: usize,
        doms: &[u64],
        root: &[u64],
        tables: &[Option<Table>],
        out: &mut Vec<Lit>,
    ) {
        let cells = std::mem::take(&mut self.cage_cells[k as usize]);
        let except = match dead {
            Dead::Value(p, _) => Some(p),
            _ => None,
        };
        let mut done = false;
        if let Some(Some(table)) = tables
            .get(k as usize)
            .filter(|t| t.as_ref().is_some_and(|t| t.words() <= COVER_WORDS))
        {
            let (mut free, mut lost, mut fixed, mut chosen) = (
                std::mem::take(&mut self.free),
                std::mem::take(&mut self.lost),
                std::mem::take(&mut self.fixed),
                std::mem::take(&mut self.chosen),
            );
            free.clear();
            lost.clear();
            fixed.clear();
            chosen.clear();
            chosen.resize(cells.len(), 0);
            for (p, &c) in cells.iter().enumerate() {
                if Some(p) == except {
                    free.push(0);
                    lost.push(0);
                    fixed.push(None);
                    continue;
                }
                free.push(self.full & !root[c]);
                let f = self.fixed_before(c, t, doms);
                fixed.push(f.map(|l| self.decode(l).1));
                let mut gone = 0;
                if f.is_none() {
                    for w in values(root[c] & !doms[c]) {
                        if self.set_before(self.ne(c, w), t) {
                            gone |= bit(w);
                        }
                    }
                }
                lost.push(gone);
            }
            if table.explain(dead, &free, &lost, &fixed, &mut chosen, &mut self.cover) {
                done = true;
                for (p, &c) in cells.iter().enumerate() {
                    match fixed[p] {
                        Some(u) if chosen[p] != 0 => out.push(self.eq(c, u)),
                        Some(_) => {}
                        None => out.extend(values(chosen[p]).map(|w| self.ne(c, w))),
                    }
                }
            } else {
                debug_assert!(false, "a cage explanation that leaves a tuple");
            }
            (self.free, self.lost, self.fixed, self.chosen) = (free, lost, fixed, chosen);
        }
        if !done {
            for (p, &c) in cells.iter().enumerate() {
                if Some(p) != except {
                    self.lost_before(c, self.full, t, doms, root, out);
                }
            }
        }
        self.cage_cells[k as usize] = cells;
    }

    /// The cells of `line` (but `except`) that held only values of `set` before `t`, with why.
    #[allow(clippy::too_many_arguments)]
    fn hall(
        &self,
        line: u16,
        set: u64,
        except: Option<usize>,
        t: usize,
        doms: &[u64],
        root: &[u64],
        out: &mut Vec<Lit>,
    ) {
        let outside = self.full & !set;
        for c in self.line(line) {
            if Some(c) != except && self.all_lost_before(c, outside, t, doms, root) {
                self.lost_before(c, outside, t, doms, root, out);
            }
        }
    }

    /// Literals true now that together contradict, for the conflict found, into `self.buf`.
    fn explain_conflict(
        &mut self,
        conflict: Conflict,
        doms: &[u64],
        root: &[u64],
        tables: &[Option<Table>],
    ) {
        let mut out = std::mem::take(&mut self.buf);
        let t = self.events.len();
        match conflict {
            Conflict::Wipe(i) => match self.fixed_before(i, t, doms) {
                Some(lit) => {
                    out.push(lit);
                    out.push(lit ^ 1);
                }
                None => self.lost_before(i, self.full, t, doms, root, &mut out),
            },
            Conflict::Cage(k) => self.cage(k, Dead::All, t, doms, root, tables, &mut out),
            Conflict::Missing(line, u) => {
                for c in self.line(line) {
                    if root[c] & bit(u as usize) != 0 {
                        out.push(self.ne(c, u as usize));
                    }
                }
            }
            Conflict::Double(line, i, u1, u2) => {
                for c in self.line(line) {
                    for u in [u1, u2] {
                        if c != i as usize && root[c] & bit(u as usize) != 0 {
                            out.push(self.ne(c, u as usize));
                        }
                    }
                }
            }
            Conflict::Hall(line, set) => self.hall(line, set, None, t, doms, root, &mut out),
            Conflict::Clause(c) => {
                out.extend(self.lits(c).iter().map(|&l| l ^ 1));
            }
        }
        self.buf = out;
    }

    /// Whether a literal (true now) holds at the root, so needs no explaining.
    fn at_root(&self, lit: Lit, root: &[u64]) -> bool {
        let (cell, v, is_eq) = self.decode(lit);
        if is_eq {
            root[cell] == bit(v)
        } else {
            root[cell] & bit(v) == 0
        }
    }

    /// Derives the clause learnt from the conflict recorded: the first unique implication point
    /// first, then the literal of the highest other level. `None` when the conflict holds at the
    /// root (the search is over).
    fn analyze(
        &mut self,
        doms: &[u64],
        root: &[u64],
        tables: &[Option<Table>],
    ) -> Option<Vec<Lit>> {
        let conflict = self.conflict.take().expect("a conflict was recorded");
        self.buf.clear();
        self.explain_conflict(conflict, doms, root, tables);
        // The conflict's level: the highest among its literals (at the current one normally).
        let mut top = 0;
        for &l in &self.buf {
            if !self.at_root(l, root) {
                debug_assert!(self.is_set(l), "literal {l} unrecorded");
                if self.is_set(l) {
                    top = top.max(self.events[self.pos[l as usize] as usize].level);
                }
            }
        }
        if top == 0 {
            self.buf.clear();
            return None;
        }
        let mut learnt = vec![0];
        let mut counter = 0usize;
        let mut idx = self.events.len();
        loop {
            let buf = std::mem::take(&mut self.buf);
            for &l in &buf {
                if self.at_root(l, root) || self.seen[l as usize] || !self.is_set(l) {
                    continue;
                }
                self.seen[l as usize] = true;
                self.marked.push(l);
                self.activity[(l >> 1) as usize] += self.bump;
                let level = self.events[self.pos[l as usize] as usize].level;
                if level == top {
                    counter += 1;
                } else if level > 0 {
                    learnt.push(l ^ 1);
                }
            }
            self.buf = buf;
            self.buf.clear();
            // The latest literal of the conflict's level still to resolve.
            loop {
                if idx == 0 {
                    // Never so when every reason precedes what it explains: the clause of the
                    // decisions (they led here) is still true.
                    debug_assert!(false, "a reason after what it explains");
                    for l in self.marked.drain(..) {
                        self.seen[l as usize] = false;
                    }
                    return Some(self.decision_clause());
                }
                idx -= 1;
                let e = self.events[idx];
                if e.level == top && self.seen[e.lit as usize] {
                    break;
                }
            }
            counter -= 1;
            if counter == 0 {
                learnt[0] = self.events[idx].lit ^ 1;
                break;
            }
            self.explain(idx, doms, root, tables);
        }
        self.minimise(&mut learnt, doms, root, tables);
        for l in self.marked.drain(..) {
            self.seen[l as usize] = false;
        }
        self.bump /= ACTIVITY_DECAY;
        if self.bump > 1e100 {
            for a in &mut self.activity {
                *a *= 1e-100;
            }
            self.bump *= 1e-100;
        }
        // The literal of the highest level after the first goes second (it is watched).
        let level_of = |l: Lit| self.events[self.pos[(l ^ 1) as usize] as usize].level;
        if learnt.len() > 2 {
            let best = (1..learnt.len())
                .max_by_key(|&i| level_of(learnt[i]))
                .unwrap_or(1);
            learnt.swap(1, best);
        }
        Some(learnt)
    }

    /// Drops from `learnt` (its first literal kept) the literals whose negation the others
    /// imply: those whose reasons, followed back, end in literals of the clause or of the root
    /// only (recursive minimisation, as in MiniSat).
    fn minimise(
        &mut self,
        learnt: &mut Vec<Lit>,
        doms: &[u64],
        root: &[u64],
        tables: &[Option<Table>],
    ) {
        let mut levels = 0u64;
        for &l in &learnt[1..] {
            levels |= 1 << (self.events[self.pos[(l ^ 1) as usize] as usize].level & 63);
        }
        let mut i = 1;
        while i < learnt.len() {
            let p = learnt[i] ^ 1;
            if self.redundant(p, levels, doms, root, tables) {
                learnt.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Whether the trail literal `p` (not a decision) follows from literals seen in the
    /// analysis (in the clause) and the root, through reasons at the levels of `levels`. Literals
    /// shown redundant stay seen, so later checks stop at them.
    fn redundant(
        &mut self,
        p: Lit,
        levels: u64,
        doms: &[u64],
        root: &[u64],
        tables: &[Option<Table>],
    ) -> bool {
        if matches!(
            self.events[self.pos[p as usize] as usize].why,
            Why::Decision
        ) {
            return false;
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(p);
        let top = self.marked.len();
        let mut ok = true;
        'outer: while let Some(q) = stack.pop() {
            self.buf.clear();
            self.explain(self.pos[q as usize] as usize, doms, root, tables);
            let reasons = std::mem::take(&mut self.buf);
            for &r in &reasons {
                if self.at_root(r, root) || self.seen[r as usize] {
                    continue;
                }
                let fine = self.is_set(r) && {
                    let e = self.events[self.pos[r as usize] as usize];
                    !matches!(e.why, Why::Decision) && levels & (1 << (e.level & 63)) != 0
                };
                if !fine {
                    for l in self.marked.drain(top..) {
                        self.seen[l as usize] = false;
                    }
                    ok = false;
                    self.buf = reasons;
                    break 'outer;
                }
                self.seen[r as usize] = true;
                self.marked.push(r);
                stack.push(r);
            }
            self.buf = reasons;
        }
        self.buf.clear();
        self.stack = stack;
        ok
    }

    /// The negations of the decisions so far, the latest first: true, since propagation is
    /// sound and the decisions led to a contradiction (or to a solution, to block).
    fn decision_clause(&self) -> Vec<Lit> {
        let mut lits: Vec<Lit> = self
            .events
            .iter()
            .filter(|e| matches!(e.why, Why::Decision))
            .map(|e| e.lit ^ 1)
            .collect();
        lits.reverse();
        lits
    }

    /// The level the clause `lits` (first literal unset, the others false) becomes unit at.
    fn backjump_level(&self, lits: &[Lit]) -> u32 {
        lits.get(1)
            .map(|&l| self.events[self.pos[(l ^ 1) as usize] as usize].level)
            .unwrap_or(0)
    }

    /// Adds a learnt clause of another search (its literals unset), with its literal-block
    /// distance; returns its index.
    fn add_shared(&mut self, lits: &[Lit], lbd: u32) -> u32 {
        let c = self.arena.len() as u32;
        self.arena.push(lits.len() as u32 | LEARNT);
        self.arena.push(lbd);
        self.arena.extend_from_slice(lits);
        self.learnt += 1;
        self.watch(c);
        c
    }

    /// Adds a clause (watching its first two literals); returns its index.
    fn add_clause(&mut self, lits: Vec<Lit>, learnt: bool) -> u32 {
        let mut levels: Vec<u32> = lits[1..]
            .iter()
            .filter(|&&l| self.is_set(l ^ 1))
            .map(|&l| self.events[self.pos[(l ^ 1) as usize] as usize].level)
            .collect();
        levels.sort_unstable();
        levels.dedup();
        let c = self.arena.len() as u32;
        let flag = if learnt { LEARNT } else { 0 };
        self.arena.push(lits.len() as u32 | flag);
        self.arena.push(levels.len() as u32 + 1);
        self.arena.extend_from_slice(&lits);
        self.learnt += usize::from(learnt);
        self.watch(c);
        c
    }

    /// The literals of clause `c`.
    fn lits(&self, c: u32) -> &[Lit] {
        let c = c as usize;
        let len = (self.arena[c] & !LEARNT) as usize;
        &self.arena[c + 2..c + 2 + len]
    }

    fn lits_mut(&mut self, c: u32) -> &mut [Lit] {
        let c = c as usize;
        let len = (self.arena[c] & !LEARNT) as usize;
        &mut self.arena[c + 2..c + 2 + len]
    }

    /// Watches clause `c` by its first two literals (its only one, if a unit).
    fn watch(&mut self, c: u32) {
        if let [a, b, ..] = *self.lits(c) {
            self.watches[a as usize].push((c, b));
            self.watches[b as usize].push((c, a));
        } else {
            let a = self.lits(c)[0];
            self.watches[a as usize].push((c, a));
        }
    }

    /// The clauses, by the index of their headers.
    fn clause_starts(&self) -> Vec<u32> {
        let mut starts = Vec::new();
        let mut c = 0;
        while c < self.arena.len() {
            starts.push(c as u32);
            c += 2 + (self.arena[c] & !LEARNT) as usize;
        }
        starts
    }

    /// Forgets the worse half of the learnt clauses (highest literal-block distance, then
    /// longest), keeping those of distance 2 or less. Only at the root, where no reason refers
    /// to a clause.
    fn reduce(&mut self) {
        let starts = self.clause_starts();
        let mut learnt: Vec<(u32, usize, usize)> = starts
            .iter()
            .enumerate()
            .map(|(i, &c)| (i, self.arena[c as usize], self.arena[c as usize + 1]))
            .filter(|&(_, head, lbd)| head & LEARNT != 0 && lbd > 2)
            .map(|(i, head, lbd)| (lbd, (head & !LEARNT) as usize, i))
            .collect();
        learnt.sort_unstable();
        let mut drop = vec![false; starts.len()];
        for &(_, _, i) in &learnt[learnt.len() / 2..] {
            drop[i] = true;
        }
        self.learnt -= learnt.len() - learnt.len() / 2;
        let old = std::mem::take(&mut self.arena);
        for w in &mut self.watches {
            w.clear();
        }
        for (i, &c) in starts.iter().enumerate() {
            if !drop[i] {
                let c = c as usize;
                let len = (old[c] & !LEARNT) as usize;
                let at = self.arena.len() as u32;
                self.arena.extend_from_slice(&old[c..c + 2 + len]);
                self.watch(at);
            }
        }
    }

    /// Undoes every event after level `level`.
    fn cancel_to(&mut self, level: u32, start: usize) {
        self.events.truncate(start);
        self.qhead = self.qhead.min(start);
        self.level = level;
    }
}

impl Recorder for Trail {
    const ON: bool = true;

    fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why) {
        for v in values(gone) {
            let lit = self.ne(i, v);
            self.push(lit, why(v));
        }
        if now != 0 && now & (now - 1) == 0 {
            let v = now.trailing_zeros() as usize + 1;
            let lit = self.eq(i, v);
            if !self.is_set(lit) {
                self.push(lit, Why::Last);
            }
        }
    }

    fn conflict(&mut self, conflict: Conflict) {
        self.conflict = Some(conflict);
    }

    fn clauses(&mut self, doms: &mut [u64], queue: &mut CellQueue) -> bool {
        while self.qhead < self.events.len() {
            let falsified = self.events[self.qhead].lit ^ 1;
            self.qhead += 1;
            if self.watches[falsified as usize].is_empty() {
                continue;
            }
            let mut ws = std::mem::take(&mut self.watches[falsified as usize]);
            let mut i = 0;
            let mut ok = true;
            while i < ws.len() {
                let (c, blocker) = ws[i];
                if self.value(blocker, doms) == Value::True {
                    i += 1;
                    continue;
                }
                let lits = self.lits_mut(c);
                if lits[0] == falsified {
                    lits.swap(0, 1);
                }
                let first = lits[0];
                if self.value(first, doms) == Value::True {
                    ws[i].1 = first;
                    i += 1;
                    continue;
                }
                // Another literal not false takes the falsified one's watch.
                let lits = self.lits(c);
                let other = (2..lits.len()).find(|&k| self.value(lits[k], doms) != Value::False);
                if let Some(k) = other {
                    let lits = self.lits_mut(c);
                    lits.swap(1, k);
                    let w = lits[1];
                    self.watches[w as usize].push((c, first));
                    ws.swap_remove(i);
                    continue;
                }
                i += 1;
                if self.value(first, doms) == Value::False {
                    self.conflict = Some(Conflict::Clause(c));
                    ok = false;
                    break;
                }
                let cell = self.assert(first, c, doms);
                queue.push(cell, true);
            }
            let rest = std::mem::replace(&mut self.watches[falsified as usize], ws);
            self.watches[falsified as usize].extend(rest);
            if !ok {
                return false;
            }
        }
        true
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
        let cells = n * n;
        let shift = n.next_power_of_two().trailing_zeros();
        let atoms = cells << shift;
        let lits = 2 * atoms;
        let mut cage_cells = vec![Vec::new(); solver.cages.len()];
        for (k, cage) in solver.cages.iter().enumerate() {
            cage_cells[k] = cage.cells.clone();
        }
        Learner {
            trail: Trail {
                n,
                shift,
                full: solver.full(),
                events: Vec::new(),
                pos: vec![u32::MAX; lits],
                level: 0,
                qhead: 0,
                arena: Vec::new(),
                learnt: 0,
                watches: vec![Vec::new(); lits],
                conflict: None,
                cage_cells,
                seen: vec![false; lits],
                marked: Vec::new(),
                buf: Vec::new(),
                stack: Vec::new(),
                activity: match seed {
                    None => vec![0.0; atoms],
                    Some(seed) => {
                        let mut rng = Rng::new(seed);
                        (0..atoms).map(|_| rng.unit() * TIE_NOISE).collect()
                    }
                },
                bump: 1.0,
                free: Vec::new(),
                lost: Vec::new(),
                fixed: Vec::new(),
                chosen: Vec::new(),
                cover: FilterScratch::default(),
            },
            cells,
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
    }

    /// Adds `lits` (first literal unset at the level it jumps to, the others false) and makes
    /// its first literal true there.
    fn learn(&mut self, lits: Vec<Lit>, learnt: bool) {
        let level = self.trail.backjump_level(&lits) as usize;
        self.backjump(level);
        let first = lits[0];
        let offer = learnt && lits.len() <= SHARE_LEN;
        let c = self.trail.add_clause(lits, learnt);
        if let Some(share) = self.share.as_ref().filter(|_| offer) {
            let lbd = self.trail.arena[c as usize + 1];
            if lbd <= SHARE_LBD {
                if let Ok(mut pool) = share.pool.lock() {
                    pool.push((share.me, lbd, self.trail.lits(c).to_vec()));
                }
            }
        }
        let cells = self.cells;
        let doms = &mut self.doms[level * cells..(level + 1) * cells];
        self.pending = Some(self.trail.assert(first, c, doms));
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
        let cells = self.cells;
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
            let doms = &mut self.doms[level * cells..(level + 1) * cells];
            let changed: &[usize] = match &self.pending {
                Some(c) => std::slice::from_ref(c),
                None => &[],
            };
            let ok = solver.propagate_with(doms, scratch, changed, &mut self.trail);
            self.pending = None;
            if !ok {
                if scratch.expired {
                    *stop = Some(Stop::Deadline);
                    self.done = true;
                    return false;
                }
                stats.failures += 1;
                let now = &self.doms[level * cells..(level + 1) * cells];
                let root = &self.doms[..cells];
                let tables = scratch.tables.as_deref().unwrap_or(&solver.tables);
                let learnt = self.trail.analyze(now, root, tables);
                match learnt {
                    None => {
                        self.done = true;
                        return false;
                    }
                    Some(lits) => self.learn(lits, true),
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
            self.trail.level += 1;
            self.doms
                .extend_from_within(level * cells..(level + 1) * cells);
            let lit = self.trail.eq(cell, value);
            let child = &mut self.doms[(level + 1) * cells..];
            self.trail.push(lit, Why::Decision);
            let gone = child[cell] & !bit(value);
            child[cell] = bit(value);
            self.trail
                .removed(cell, gone, bit(value), |_| Why::Assigned(value as u8));
            self.pending = Some(cell);
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
                let score = (self.trail.activity[self.trail.atom(i, v)] + 1.0) / size;
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
            let c = self.trail.add_shared(&open, lbd);
            if let [unit] = open[..] {
                units.push(self.trail.assert(unit, c, &mut self.doms[..cells]));
            }
        }
        units.is_empty()
            || solver.propagate_with(&mut self.doms[..cells], scratch, &units, &mut self.trail)
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
        if self.trail.learnt > self.cut {
            self.trail.reduce();
            self.cut += self.cut / 10;
        }
    }

    /// The domains of the solution just found (every cell fixed).
    pub(super) fn solution_doms(&self) -> &[u64] {
        let level = self.solution.unwrap_or(self.level());
        &self.doms[level * self.cells..(level + 1) * self.cells]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op, Puzzle};

    /// Clauses propagate through their watches (and blockers): a clause with one literal left
    /// makes it true, a clause with all false is a conflict, and a satisfied clause is left
    /// alone, while the watches move from literal to literal as others become false.
    #[test]
    fn clauses_propagate_through_their_watches() {
        let all = (1..=4)
            .flat_map(|r| (1..=4).map(move |c| Cell::new(r, c)))
            .collect();
        let p = Puzzle::new(4, vec![Cage::new(Op::Add, 40, all)]);
        let solver = Solver::new(&p).unwrap();
        let mut doms = vec![0b1111u64; 16];
        let mut learner = Learner::new(&solver, &doms, 0, None);
        let t = &mut learner.trail;
        let mut queue = CellQueue::new(16);
        // Makes `cell ≠ v` true, as a decision.
        let exclude = |t: &mut Trail, doms: &mut [u64], cell: usize, v: usize| {
            t.level += 1;
            doms[cell] &= !bit(v);
            t.push(t.ne(cell, v), Why::Decision);
        };
        // cell 0 = 1, or cell 1 = 2, or cell 2 = 3.
        let c = t.add_clause(vec![t.eq(0, 1), t.eq(1, 2), t.eq(2, 3)], true);
        // cell 3 = 1 or cell 4 = 1, and cell 4 is 1 already: satisfied.
        doms[4] = bit(1);
        t.push(t.eq(4, 1), Why::Decision);
        t.add_clause(vec![t.eq(3, 1), t.eq(4, 1)], true);
        exclude(t, &mut doms, 3, 1);
        exclude(t, &mut doms, 0, 1);
        assert!(t.clauses(&mut doms, &mut queue));
        assert_eq!(
            (doms[2], doms[3]),
            (0b1111, 0b1110),
            "two literals open: nothing"
        );
        exclude(t, &mut doms, 1, 2);
        assert!(t.clauses(&mut doms, &mut queue));
        assert_eq!(doms[2], bit(3), "one literal left: it holds");
        assert_eq!(queue.pop(), Some((2, true)));
        // Undo down to before cell 1 ≠ 2, and make every literal false.
        let start = t.pos[t.ne(1, 2) as usize] as usize;
        t.cancel_to(2, start);
        (doms[1], doms[2]) = (0b1111, 0b1111);
        exclude(t, &mut doms, 2, 3);
        assert!(t.clauses(&mut doms, &mut queue));
        exclude(t, &mut doms, 1, 2);
        assert!(!t.clauses(&mut doms, &mut queue));
        assert!(matches!(t.conflict, Some(Conflict::Clause(k)) if k == c));
    }

    /// Forgetting keeps the clauses blocking solutions, the learnt ones of distance 2 or less,
    /// and the better half of the other learnt ones (lower distance, then shorter), in order, and
    /// watches exactly those.
    #[test]
    fn forgetting_keeps_the_better_half() {
        let p = Puzzle::new(
            2,
            vec![Cage::new(
                Op::Add,
                6,
                (1..=2)
                    .flat_map(|r| (1..=2).map(move |c| Cell::new(r, c)))
                    .collect(),
            )],
        );
        let solver = Solver::new(&p).unwrap();
        let mut learner = Learner::new(&solver, &[0b11u64; 4], 0, None);
        let t = &mut learner.trail;
        let clauses = [
            (vec![t.eq(0, 1), t.eq(1, 2), t.eq(2, 1)], false, 9),
            (vec![t.ne(3, 1), t.ne(2, 2)], true, 2),
            (vec![t.eq(0, 2), t.ne(1, 1), t.eq(3, 2)], true, 5),
            (
                vec![t.eq(0, 1), t.ne(1, 1), t.eq(2, 2), t.ne(3, 2)],
                true,
                3,
            ),
            (vec![t.ne(1, 2), t.eq(3, 1)], true, 3),
            (vec![t.ne(0, 2), t.ne(2, 1)], true, 7),
        ];
        for (lits, learnt, lbd) in clauses.clone() {
            let c = t.add_clause(lits, learnt);
            t.arena[c as usize + 1] = lbd;
        }
        assert_eq!(t.learnt, 5);
        t.reduce();
        let kept: Vec<Vec<Lit>> = t
            .clause_starts()
            .into_iter()
            .map(|c| t.lits(c).to_vec())
            .collect();
        let expected: Vec<Vec<Lit>> = [0, 1, 3, 4].iter().map(|&i| clauses[i].0.clone()).collect();
        assert_eq!(kept, expected);
        assert_eq!(t.learnt, 3);
        let mut watched: Vec<(Lit, Lit)> = Vec::new();
        for (l, ws) in t.watches.iter().enumerate() {
            for &(c, blocker) in ws {
                let lits = t.lits(c);
                assert!(lits[..2].contains(&(l as Lit)) && lits[..2].contains(&blocker));
                watched.push((lits[0], lits[1]));
            }
        }
        watched.sort_unstable();
        let mut twice: Vec<(Lit, Lit)> = expected.iter().flat_map(|l| [(l[0], l[1]); 2]).collect();
        twice.sort_unstable();
        assert_eq!(
            watched, twice,
            "each kept clause watched by its first two literals, once each"
        );
    }

    /// Branching takes the (cell, value) pair of highest activity per candidate of its cell: a
    /// cell of fewest candidates and its smallest value while no conflict happened, then the
    /// most active pair, even in a cell with more candidates, unless the cell's size outweighs
    /// it; fixed cells never.
    #[test]
    fn branching_takes_the_most_active_pair() {
        // 4x4, one `+` cage over everything (any Latin square).
        let all = (1..=4)
            .flat_map(|r| (1..=4).map(move |c| Cell::new(r, c)))
            .collect();
        let p = Puzzle::new(4, vec![Cage::new(Op::Add, 40, all)]);
        let solver = Solver::new(&p).unwrap();
        let mut doms = vec![0b1111u64; 16];
        (doms[0], doms[5], doms[6]) = (0b0100, 0b0110, 0b1010);
        let mut learner = Learner::new(&solver, &doms, 0, None);
        // Cell 5 has two candidates (values 2 and 3), the fewest open: its smallest value.
        assert_eq!(learner.choose(&doms), Some((5, 2)));
        // Value 4 of cell 6 (two candidates) is the most active.
        let atom = |cell, v| learner.trail.atom(cell, v);
        let (a64, a91, a03) = (atom(6, 4), atom(9, 1), atom(0, 3));
        learner.trail.activity[a64] = 1.0;
        assert_eq!(learner.choose(&doms), Some((6, 4)));
        // Cell 9 (four candidates), value 1: at activity 2 it scores (2 + 1) / 4 = 0.75, less
        // than (1 + 1) / 2 = 1; at activity 4, 1.25, more.
        learner.trail.activity[a91] = 2.0;
        assert_eq!(learner.choose(&doms), Some((6, 4)));
        learner.trail.activity[a91] = 4.0;
        assert_eq!(learner.choose(&doms), Some((9, 1)));
        // A fixed cell is never chosen, whatever its activity; nothing open, no decision.
        learner.trail.activity[a03] = 100.0;
        assert_eq!(learner.choose(&doms), Some((9, 1)));
        let fixed: Vec<u64> = (0..16).map(|i| 1 << (i % 4)).collect();
        assert_eq!(learner.choose(&fixed), None);
    }
}
