//! Explanations: the literals behind a reason. Propagation records only the kind of each
//! removal's reason (a [`Why`]) and of each contradiction (a [`Conflict`]); when conflict
//! analysis needs them, they are worked out here from what the trail held before:
//! - a value placed in a cell leaves its row and column: `x ≠ v` because `y = v`;
//! - a cage's filter or a value a cage must put in a line: removals on the cage's cells that
//!   leave no tuple of its table where it would hold, few of them, chosen greedily (for a large
//!   table or none, every removal on the cage's other cells);
//! - a hidden single: the value left every other cell of the line;
//! - generalised arc consistency on a line: a Hall set (as many cells as values, holding only
//!   those values), so the value cannot go elsewhere;
//! - a clause that became unit: its other literals, all false.
//!
//! Working them out lazily keeps propagation as cheap as in the plain search but for the
//! recording itself.

use super::super::line_start_step;
use super::super::table::{bit, values, Dead, FilterScratch, Table};
use super::clauses::Clauses;
use super::trail::{Conflict, Lit, Trail, Why};

/// Cage tables of up to this many words per bitset (64 tuples each) explain a removal with
/// few literals, chosen greedily (see [`Table::explain`]); larger ones cite every removal on the
/// cage's other cells, which is cheaper to compute.
const COVER_WORDS: usize = 4;

/// What explanations read besides the trail: the domains now (those of the conflict), at the
/// root, and the cage tables the propagation used.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) now: &'a [u64],
    pub(super) root: &'a [u64],
    pub(super) tables: &'a [Option<Table>],
}

/// Works out the literals behind reasons; holds the cages' cells and reusable buffers.
pub(super) struct Explainer {
    /// The cells of each cage.
    cage_cells: Vec<Vec<usize>>,
    /// Explaining a cage: per position, values lost at the root, lost since, the value fixed,
    /// and the values cited.
    free: Vec<u64>,
    lost: Vec<u64>,
    fixed: Vec<Option<usize>>,
    chosen: Vec<u64>,
    cover: FilterScratch,
}

impl Explainer {
    /// Explains reasons about the cages whose cells are `cage_cells`.
    pub(super) fn new(cage_cells: Vec<Vec<usize>>) -> Explainer {
        Explainer {
            cage_cells,
            free: Vec::new(),
            lost: Vec::new(),
            fixed: Vec::new(),
            chosen: Vec::new(),
            cover: FilterScratch::default(),
        }
    }

    /// Adds to `out` the literals true before `t` that imply the literal of event `t`.
    pub(super) fn reason(
        &mut self,
        trail: &Trail,
        clauses: &Clauses,
        t: usize,
        view: View,
        out: &mut Vec<Lit>,
    ) {
        let e = trail.events[t];
        let (cell, v, _) = trail.decode(e.lit);
        match e.why {
            Why::Decision => {}
            Why::Assigned(u) => out.push(trail.eq(cell, u as usize)),
            Why::Peer(j) => out.push(trail.eq(j as usize, v)),
            Why::Cage(k) => {
                let cells = &self.cage_cells[k as usize];
                match cells.iter().position(|&c| c == cell) {
                    Some(p) => self.cage(trail, k, Dead::Value(p, v), t, view, out),
                    None => self.cage(
                        trail,
                        k,
                        Dead::All,
                        t,
                        View {
                            tables: &[],
                            ..view
                        },
                        out,
                    ),
                }
            }
            Why::Forced(k, l) => self.cage(trail, k, Dead::Line(l as usize, v), t, view, out),
            Why::Single(line, u) => {
                for c in cells_of(line, trail.n) {
                    if c != cell && view.root[c] & bit(u as usize) != 0 {
                        out.push(trail.ne(c, u as usize));
                    }
                }
            }
            Why::Hall(line, hall) => hall_cells(trail, line, hall, Some(cell), t, view, out),
            Why::Last => {
                for w in values(trail.full & !bit(v) & view.root[cell]) {
                    out.push(trail.ne(cell, w));
                }
            }
            Why::Clause(c) => {
                for &l in clauses.lits(c) {
                    if l != e.lit {
                        out.push(l ^ 1);
                    }
                }
            }
        }
    }

    /// Adds to `out` literals true now that together contradict, for `conflict`.
    pub(super) fn conflict(
        &mut self,
        trail: &Trail,
        clauses: &Clauses,
        conflict: Conflict,
        view: View,
        out: &mut Vec<Lit>,
    ) {
        let t = trail.events.len();
        let root = view.root;
        match conflict {
            Conflict::Wipe(i) => match trail.fixed_before(i, t, view.now) {
                Some(lit) => {
                    out.push(lit);
                    out.push(lit ^ 1);
                }
                None => lost_before(trail, i, trail.full, t, view, out),
            },
            Conflict::Cage(k) => self.cage(trail, k, Dead::All, t, view, out),
            Conflict::Missing(line, u) => {
                for c in cells_of(line, trail.n) {
                    if root[c] & bit(u as usize) != 0 {
                        out.push(trail.ne(c, u as usize));
                    }
                }
            }
            Conflict::Double(line, i, u1, u2) => {
                for c in cells_of(line, trail.n) {
                    for u in [u1, u2] {
                        if c != i as usize && root[c] & bit(u as usize) != 0 {
                            out.push(trail.ne(c, u as usize));
                        }
                    }
                }
            }
            Conflict::Hall(line, set) => hall_cells(trail, line, set, None, t, view, out),
            Conflict::Clause(c) => {
                out.extend(clauses.lits(c).iter().map(|&l| l ^ 1));
            }
        }
    }

    /// Why cage `k` had no tuple of `dead` left before `t`: few removals on its cells that kill
    /// them all, chosen with its table (`view.tables[k]`); without a table, every removal on the
    /// cells (but the one `dead` is about).
    fn cage(
        &mut self,
        trail: &Trail,
        k: u32,
        dead: Dead,
        t: usize,
        view: View,
        out: &mut Vec<Lit>,
    ) {
        let cells = std::mem::take(&mut self.cage_cells[k as usize]);
        let except = match dead {
            Dead::Value(p, _) => Some(p),
            _ => None,
        };
        let table = view
            .tables
            .get(k as usize)
            .and_then(Option::as_ref)
            .filter(|t| t.words() <= COVER_WORDS);
        let covered =
            table.is_some_and(|table| self.cover(trail, table, &cells, dead, except, t, view, out));
        if !covered {
            for (p, &c) in cells.iter().enumerate() {
                if Some(p) != except {
                    lost_before(trail, c, trail.full, t, view, out);
                }
            }
        }
        self.cage_cells[k as usize] = cells;
    }

    /// [`Explainer::cage`] with the cage's `table`: few removals, chosen greedily; false when
    /// they leave a tuple (never, but for an error: then every removal is cited).
    #[allow(clippy::too_many_arguments)]
    fn cover(
        &mut self,
        trail: &Trail,
        table: &Table,
        cells: &[usize],
        dead: Dead,
        except: Option<usize>,
        t: usize,
        view: View,
        out: &mut Vec<Lit>,
    ) -> bool {
        let (doms, root) = (view.now, view.root);
        let (free, lost, fixed, chosen) = (
            &mut self.free,
            &mut self.lost,
            &mut self.fixed,
            &mut self.chosen,
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
            free.push(trail.full & !root[c]);
            let f = trail.fixed_before(c, t, doms);
            fixed.push(f.map(|l| trail.decode(l).1));
            let mut gone = 0;
            if f.is_none() {
                for w in values(root[c] & !doms[c]) {
                    if trail.set_before(trail.ne(c, w), t) {
                        gone |= bit(w);
                    }
                }
            }
            lost.push(gone);
        }
        if !table.explain(dead, free, lost, fixed, chosen, &mut self.cover) {
            debug_assert!(false, "a cage explanation that leaves a tuple");
            return false;
        }
        for (p, &c) in cells.iter().enumerate() {
            match fixed[p] {
                Some(u) if chosen[p] != 0 => out.push(trail.eq(c, u)),
                Some(_) => {}
                None => out.extend(values(chosen[p]).map(|w| trail.ne(c, w))),
            }
        }
        true
    }
}

/// The cells of a line.
fn cells_of(line: u16, n: usize) -> impl Iterator<Item = usize> {
    let (start, step) = line_start_step(line as usize, n);
    (0..n).map(move |j| start + j * step)
}

/// Adds to `out` why `cell` had lost the values of `mask` before `t` (those it had lost): its
/// `=` literal if it was fixed, else its `≠` literals. Literals true at the root are left out.
fn lost_before(trail: &Trail, cell: usize, mask: u64, t: usize, view: View, out: &mut Vec<Lit>) {
    let (doms, root) = (view.now, view.root);
    if let Some(lit) = trail.fixed_before(cell, t, doms) {
        out.push(lit);
        return;
    }
    for w in values(mask & !doms[cell] & root[cell]) {
        let lit = trail.ne(cell, w);
        if trail.set_before(lit, t) {
            out.push(lit);
        }
    }
}

/// Whether `cell` had lost every value of `mask` before `t`.
fn all_lost_before(trail: &Trail, cell: usize, mask: u64, t: usize, view: View) -> bool {
    if trail.fixed_before(cell, t, view.now).is_some_and(|l| {
        let (_, v, _) = trail.decode(l);
        bit(v) & mask == 0
    }) {
        return true;
    }
    values(mask & view.root[cell]).all(|w| trail.set_before(trail.ne(cell, w), t))
}

/// Adds to `out` the cells of `line` (but `except`) that held only values of `set` before `t`,
/// with why.
fn hall_cells(
    trail: &Trail,
    line: u16,
    set: u64,
    except: Option<usize>,
    t: usize,
    view: View,
    out: &mut Vec<Lit>,
) {
    let outside = trail.full & !set;
    for c in cells_of(line, trail.n) {
        if Some(c) != except && all_lost_before(trail, c, outside, t, view) {
            lost_before(trail, c, outside, t, view, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literals behind the reasons of a small 3x3 trail: a value placed, a peer, the last
    /// value left, a hidden single, a cage without a table, and contradictions.
    #[test]
    fn reasons_give_the_literals_behind_them() {
        let (mut t, clauses) = super::super::empty(3);
        // One cage over cells 3 and 4.
        let mut ex = Explainer::new(vec![vec![3, 4]]);
        let root = vec![0b111u64; 9];
        let mut doms = root.clone();
        t.decide(0, 1, &mut doms);
        doms[1] &= !bit(1);
        t.removed(1, bit(1), doms[1], |_| Why::Peer(0));
        t.level = 2;
        t.push(t.ne(1, 2), Why::Decision);
        doms[1] &= !bit(2);
        t.removed(1, 0, doms[1], |_| Why::Decision);
        doms[3] &= !bit(1);
        t.removed(3, bit(1), doms[3], |_| Why::Decision);
        t.decide(4, 2, &mut doms);
        doms[5] &= !bit(3);
        t.removed(5, bit(3), doms[5], |_| Why::Cage(0));
        doms[7] = bit(1);
        t.removed(7, 0b110, doms[7], |_| Why::Single(4, 1));
        let view = View {
            now: &doms,
            root: &root,
            tables: &[],
        };
        let mut reason = |lit: Lit| {
            let mut out = Vec::new();
            ex.reason(&t, &clauses, t.index(lit), view, &mut out);
            out
        };
        assert!(reason(t.eq(0, 1)).is_empty());
        assert_eq!(reason(t.ne(0, 3)), [t.eq(0, 1)]);
        assert_eq!(reason(t.ne(1, 1)), [t.eq(0, 1)]);
        assert_eq!(reason(t.eq(1, 3)), [t.ne(1, 1), t.ne(1, 2)]);
        // What cell 1 had lost before its `= 3`, and before that.
        let mut out = Vec::new();
        lost_before(&t, 1, 0b111, t.index(t.eq(1, 3)), view, &mut out);
        assert_eq!(out, [t.ne(1, 1), t.ne(1, 2)]);
        assert!(all_lost_before(&t, 1, 0b011, t.events.len(), view));
        assert!(!all_lost_before(&t, 1, 0b011, t.index(t.ne(1, 2)), view));
        // Every removal on the cage's cells before: cell 3 lost 1, cell 4 was fixed to 2.
        assert_eq!(reason(t.ne(5, 3)), [t.ne(3, 1), t.eq(4, 2)]);
        // Value 1 of column 1 (line 4) has cell 7 only left: the column's other cells lost it.
        assert_eq!(reason(t.ne(7, 3)), [t.ne(1, 1), t.ne(4, 1)]);
        let mut conflict = |c: Conflict| {
            let mut out = Vec::new();
            ex.conflict(&t, &clauses, c, view, &mut out);
            out
        };
        assert_eq!(conflict(Conflict::Wipe(1)), [t.eq(1, 3), t.ne(1, 3)]);
        assert_eq!(conflict(Conflict::Wipe(3)), [t.ne(3, 1)]);
        assert_eq!(
            conflict(Conflict::Missing(0, 2)),
            [t.ne(0, 2), t.ne(1, 2), t.ne(2, 2)]
        );
    }
}
