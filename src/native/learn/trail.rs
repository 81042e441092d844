//! The trail: every literal the search made true, in order, each with its decision level and
//! its reason (a [`Why`]). It is the learning search's memory of how it got where it is: conflict
//! analysis walks it backwards, explanations ask it what held before a given point, and a
//! backjump cuts it.
//!
//! Literals are `x = v` and `x ≠ v` for a cell `x` and value `v` (see [`Lit`]). Propagation
//! records every removal here (through the `Recorder` of module `propagate`) with only the kind
//! of its reason; the literals behind a reason are worked out only when a conflict needs them
//! (module `explain`).

use super::super::table::{bit, values};

/// A literal: twice its atom ([`Trail::atom`]) for `cell ≠ v`, plus one for `cell = v`.
pub(in crate::native) type Lit = u32;

/// Why a literal became true.
#[derive(Debug, Clone, Copy)]
pub(in crate::native) enum Why {
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
pub(in crate::native) enum Conflict {
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

/// A literal's truth under some domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    True,
    False,
    Unset,
}

/// A literal on the trail.
#[derive(Debug, Clone, Copy)]
pub(super) struct Event {
    pub(super) lit: Lit,
    pub(super) level: u32,
    pub(super) why: Why,
}

/// The literals made true so far, in order, with their levels and reasons.
pub(super) struct Trail {
    /// The grid's size, and its values as bits.
    pub(super) n: usize,
    pub(super) full: u64,
    /// Atoms are `cell << shift | (v - 1)`: `1 << shift` is `n` rounded up to a power of two,
    /// so that decoding a literal (done for every literal of every clause visited) is shifts
    /// and masks, not a division.
    shift: u32,
    pub(super) events: Vec<Event>,
    /// Per literal: its index in `events`, when it is there.
    pos: Vec<u32>,
    /// The current decision level.
    pub(super) level: u32,
    /// The contradiction the last propagation found, for the analysis.
    pub(super) conflict: Option<Conflict>,
}

impl Trail {
    /// An empty trail for an `n`×`n` grid (`full`: its values as bits).
    pub(super) fn new(n: usize, full: u64) -> Trail {
        let shift = n.next_power_of_two().trailing_zeros();
        Trail {
            n,
            full,
            shift,
            events: Vec::new(),
            pos: vec![u32::MAX; 2 * Trail::atoms(n)],
            level: 0,
            conflict: None,
        }
    }

    /// How many atoms an `n`×`n` grid has (twice as many literals).
    pub(super) fn atoms(n: usize) -> usize {
        (n * n) << n.next_power_of_two().trailing_zeros()
    }

    /// The index of the pair (`cell`, `v`).
    pub(super) fn atom(&self, cell: usize, v: usize) -> usize {
        cell << self.shift | (v - 1)
    }

    /// `cell ≠ v`.
    pub(super) fn ne(&self, cell: usize, v: usize) -> Lit {
        (2 * self.atom(cell, v)) as Lit
    }

    /// `cell = v`.
    pub(super) fn eq(&self, cell: usize, v: usize) -> Lit {
        self.ne(cell, v) | 1
    }

    /// The cell and value of a literal, and whether it is `=`.
    pub(super) fn decode(&self, lit: Lit) -> (usize, usize, bool) {
        let atom = (lit >> 1) as usize;
        let mask = (1 << self.shift) - 1;
        (atom >> self.shift, (atom & mask) + 1, lit & 1 == 1)
    }

    /// Whether `lit` holds, fails or is open under `doms`.
    pub(super) fn value(&self, lit: Lit, doms: &[u64]) -> Value {
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

    /// Whether a literal (true now) holds at the root, so needs no explaining.
    pub(super) fn at_root(&self, lit: Lit, root: &[u64]) -> bool {
        let (cell, v, is_eq) = self.decode(lit);
        if is_eq {
            root[cell] == bit(v)
        } else {
            root[cell] & bit(v) == 0
        }
    }

    /// Whether `lit` is on the trail.
    pub(super) fn is_set(&self, lit: Lit) -> bool {
        let p = self.pos[lit as usize] as usize;
        p < self.events.len() && self.events[p].lit == lit
    }

    /// Whether `lit` is on the trail before index `t`.
    pub(super) fn set_before(&self, lit: Lit, t: usize) -> bool {
        let p = self.pos[lit as usize] as usize;
        p < t && self.events[p].lit == lit
    }

    /// The event of `lit`, which is on the trail.
    pub(super) fn event(&self, lit: Lit) -> Event {
        self.events[self.pos[lit as usize] as usize]
    }

    /// The index of `lit` on the trail (it is there).
    pub(super) fn index(&self, lit: Lit) -> usize {
        self.pos[lit as usize] as usize
    }

    /// The level at which the literal `lit` of a clause became false (its negation is set).
    pub(super) fn false_at(&self, lit: Lit) -> u32 {
        self.event(lit ^ 1).level
    }

    /// Puts `lit` on the trail at the current level.
    pub(super) fn push(&mut self, lit: Lit, why: Why) {
        self.pos[lit as usize] = self.events.len() as u32;
        self.events.push(Event {
            lit,
            level: self.level,
            why,
        });
    }

    /// Records that `gone` (values as bits) just left cell `i`, whose candidates are now
    /// `now` (`why(v)`: the reason for value `v`), and `i = v` when one value `v` is left.
    pub(super) fn removed(&mut self, i: usize, gone: u64, now: u64, why: impl Fn(usize) -> Why) {
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

    /// Makes `lit` true in `doms` (it is unset), for clause `c`; returns its cell.
    pub(super) fn assert(&mut self, lit: Lit, c: u32, doms: &mut [u64]) -> usize {
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

    /// Decides `cell = value` at a new level, in `doms` (that level's domains): the decision,
    /// then the values it removes.
    pub(super) fn decide(&mut self, cell: usize, value: usize, doms: &mut [u64]) {
        self.level += 1;
        self.push(self.eq(cell, value), Why::Decision);
        let gone = doms[cell] & !bit(value);
        doms[cell] = bit(value);
        self.removed(cell, gone, bit(value), |_| Why::Assigned(value as u8));
    }

    /// The `=` literal of `cell` on the trail before `t`, if any.
    pub(super) fn fixed_before(&self, cell: usize, t: usize, doms: &[u64]) -> Option<Lit> {
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

    /// The negations of the decisions so far, the latest first: true, since propagation is
    /// sound and the decisions led to a contradiction (or to a solution, to block).
    pub(super) fn decision_clause(&self) -> Vec<Lit> {
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
    pub(super) fn backjump_level(&self, lits: &[Lit]) -> u32 {
        lits.get(1).map(|&l| self.false_at(l)).unwrap_or(0)
    }

    /// The literal-block distance of a clause whose first literal is about to be asserted:
    /// how many decision levels its other literals (those false) span, plus one.
    pub(super) fn lbd(&self, lits: &[Lit]) -> u32 {
        let mut levels: Vec<u32> = lits[1..]
            .iter()
            .filter(|&&l| self.is_set(l ^ 1))
            .map(|&l| self.false_at(l))
            .collect();
        levels.sort_unstable();
        levels.dedup();
        levels.len() as u32 + 1
    }

    /// Undoes every event from index `start` on, back to level `level`.
    pub(super) fn cancel_to(&mut self, level: u32, start: usize) {
        self.events.truncate(start);
        self.level = level;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Literals encode a cell, a value and `=` or `≠`, in atoms padded to a power of two.
    #[test]
    fn literals_encode_cell_value_and_sign() {
        let t = Trail::new(5, 0b11111);
        assert_eq!(Trail::atoms(5), 25 * 8);
        assert_eq!(t.atom(2, 3), 2 * 8 + 2);
        assert_eq!((t.ne(2, 3), t.eq(2, 3)), (36, 37));
        assert_eq!(t.decode(37), (2, 3, true));
        assert_eq!(t.decode(t.ne(24, 5)), (24, 5, false));
        let mut doms = vec![0b11111u64; 25];
        doms[2] = bit(3);
        doms[4] = 0b00110;
        assert_eq!(t.value(t.eq(2, 3), &doms), Value::True);
        assert_eq!(t.value(t.ne(2, 3), &doms), Value::False);
        assert_eq!(t.value(t.ne(2, 4), &doms), Value::True);
        assert_eq!(t.value(t.eq(4, 2), &doms), Value::Unset);
        assert_eq!(t.value(t.eq(4, 1), &doms), Value::False);
        assert!(t.at_root(t.ne(2, 1), &doms) && !t.at_root(t.ne(4, 2), &doms));
    }

    /// The trail keeps literals in order with their levels; a removal that leaves one value
    /// records its `=` literal (once); cancelling forgets what came after.
    #[test]
    fn the_trail_records_in_order_and_cancels() {
        let mut t = Trail::new(3, 0b111);
        let mut doms = vec![0b111u64; 9];
        t.decide(0, 2, &mut doms[..]);
        assert_eq!(doms[0], bit(2));
        let lits: Vec<Lit> = t.events.iter().map(|e| e.lit).collect();
        assert_eq!(lits, [t.eq(0, 2), t.ne(0, 1), t.ne(0, 3)]);
        assert!(matches!(t.events[1].why, Why::Assigned(2)));
        let mark = t.events.len();
        t.level = 2;
        doms[1] &= !bit(2);
        t.removed(1, bit(2), doms[1], |_| Why::Peer(0));
        doms[1] &= !bit(1);
        t.removed(1, bit(1), doms[1], |_| Why::Single(0, 1));
        // Cell 1 has value 3 left: `cell 1 = 3`, for every other value gone.
        assert!(t.is_set(t.eq(1, 3)) && matches!(t.event(t.eq(1, 3)).why, Why::Last));
        assert_eq!(t.event(t.ne(1, 2)).level, 2);
        assert!(t.set_before(t.ne(1, 2), t.index(t.ne(1, 1))));
        assert!(!t.set_before(t.ne(1, 1), t.index(t.ne(1, 1))));
        assert_eq!(t.fixed_before(1, t.events.len(), &doms), Some(t.eq(1, 3)));
        assert_eq!(t.fixed_before(1, t.index(t.eq(1, 3)), &doms), None);
        // A clause false at levels 1 and 2, asserting at 2.
        let clause = [t.eq(2, 1), t.ne(1, 3), t.ne(0, 2)];
        assert_eq!((t.lbd(&clause), t.backjump_level(&clause)), (3, 2));
        t.cancel_to(1, mark);
        assert_eq!(t.level, 1);
        assert!(!t.is_set(t.eq(1, 3)) && !t.is_set(t.ne(1, 2)) && t.is_set(t.ne(0, 3)));
        assert_eq!(t.decision_clause(), [t.ne(0, 2)]);
    }

    /// Asserting a clause's literal narrows the domain and records it with the clause as the
    /// reason (an `=` literal also removes the cell's other values).
    #[test]
    fn asserting_records_the_clause() {
        let mut t = Trail::new(3, 0b111);
        let mut doms = vec![0b111u64; 9];
        assert_eq!(t.assert(t.ne(4, 1), 7, &mut doms), 4);
        assert_eq!(doms[4], 0b110);
        assert!(matches!(t.event(t.ne(4, 1)).why, Why::Clause(7)));
        assert_eq!(t.assert(t.eq(5, 3), 8, &mut doms), 5);
        assert_eq!(doms[5], bit(3));
        assert!(matches!(t.event(t.eq(5, 3)).why, Why::Clause(8)));
        assert!(matches!(t.event(t.ne(5, 1)).why, Why::Assigned(3)));
        assert_eq!(t.events.len(), 4);
    }
}
