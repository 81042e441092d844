//! The clause database: the clauses learnt from conflicts and those blocking solutions given,
//! their two watched literals each, their propagation (a clause with one literal left open
//! makes it true) and forgetting. A clause is only looked at when one of its watched literals
//! becomes false, so most removals cost nothing here; forgetting the learnt clauses of high
//! literal-block distance keeps propagation fast as they accumulate.

use super::super::CellQueue;
use super::trail::{Conflict, Lit, Trail, Value};

/// In a clause's header word (see [`Clauses::arena`]): the clause was learnt (it may be
/// forgotten) rather than added to block a solution.
const LEARNT: u32 = 1 << 31;

/// The clauses, with their watches.
pub(super) struct Clauses {
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
    /// Events of the trail up to here have been propagated through the clauses.
    qhead: usize,
}

impl Clauses {
    /// No clauses, over `lits` literals.
    pub(super) fn new(lits: usize) -> Clauses {
        Clauses {
            arena: Vec::new(),
            learnt: 0,
            watches: vec![Vec::new(); lits],
            qhead: 0,
        }
    }

    /// How many of the clauses are learnt.
    pub(super) fn learnt(&self) -> usize {
        self.learnt
    }

    /// Adds a clause with its literal-block distance, watching its first two literals (its
    /// only one, if a unit); returns its index.
    pub(super) fn add(&mut self, lits: &[Lit], learnt: bool, lbd: u32) -> u32 {
        let c = self.arena.len() as u32;
        let flag = if learnt { LEARNT } else { 0 };
        self.arena.push(lits.len() as u32 | flag);
        self.arena.push(lbd);
        self.arena.extend_from_slice(lits);
        self.learnt += usize::from(learnt);
        self.watch(c);
        c
    }

    /// The literal-block distance of clause `c`.
    pub(super) fn lbd(&self, c: u32) -> u32 {
        self.arena[c as usize + 1]
    }

    /// The literals of clause `c`.
    pub(super) fn lits(&self, c: u32) -> &[Lit] {
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
    fn starts(&self) -> Vec<u32> {
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
    pub(super) fn reduce(&mut self) {
        let starts = self.starts();
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

    /// The trail was cut back to `start` events: those past it are to propagate again.
    pub(super) fn cancel_to(&mut self, start: usize) {
        self.qhead = self.qhead.min(start);
    }

    /// Propagates the clauses over the literals put on `trail` since the last call: a clause
    /// with one literal left not false makes it true (in `doms`, on the trail; its cell is
    /// queued); a clause with every literal false is a conflict.
    pub(super) fn propagate(
        &mut self,
        trail: &mut Trail,
        doms: &mut [u64],
        queue: &mut CellQueue,
    ) -> Result<(), Conflict> {
        while self.qhead < trail.events.len() {
            let falsified = trail.events[self.qhead].lit ^ 1;
            self.qhead += 1;
            if self.watches[falsified as usize].is_empty() {
                continue;
            }
            let mut ws = std::mem::take(&mut self.watches[falsified as usize]);
            let result = self.visit(falsified, &mut ws, trail, doms, queue);
            let rest = std::mem::replace(&mut self.watches[falsified as usize], ws);
            self.watches[falsified as usize].extend(rest);
            result?;
        }
        Ok(())
    }

    /// Visits the clauses `ws` watching `falsified`, which just became false: each finds
    /// another literal to watch (leaving `ws`), asserts its other watched literal, or is a
    /// conflict.
    #[inline(always)]
    fn visit(
        &mut self,
        falsified: Lit,
        ws: &mut Vec<(u32, Lit)>,
        trail: &mut Trail,
        doms: &mut [u64],
        queue: &mut CellQueue,
    ) -> Result<(), Conflict> {
        let mut i = 0;
        while i < ws.len() {
            let (c, blocker) = ws[i];
            if trail.value(blocker, doms) == Value::True {
                i += 1;
                continue;
            }
            let lits = self.lits_mut(c);
            if lits[0] == falsified {
                lits.swap(0, 1);
            }
            let first = lits[0];
            if trail.value(first, doms) == Value::True {
                ws[i].1 = first;
                i += 1;
                continue;
            }
            // Another literal not false takes the falsified one's watch.
            let lits = self.lits(c);
            let other = (2..lits.len()).find(|&k| trail.value(lits[k], doms) != Value::False);
            if let Some(k) = other {
                let lits = self.lits_mut(c);
                lits.swap(1, k);
                let w = lits[1];
                self.watches[w as usize].push((c, first));
                ws.swap_remove(i);
                continue;
            }
            i += 1;
            if trail.value(first, doms) == Value::False {
                return Err(Conflict::Clause(c));
            }
            let cell = trail.assert(first, c, doms);
            queue.push(cell, true);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::learn::trail::Why;
    use crate::native::table::bit;

    /// Clauses propagate through their watches (and blockers): a clause with one literal left
    /// makes it true, a clause with all false is a conflict, and a satisfied clause is left
    /// alone, while the watches move from literal to literal as others become false.
    #[test]
    fn clauses_propagate_through_their_watches() {
        let (mut t, mut db) = super::super::empty(4);
        let mut doms = vec![0b1111u64; 16];
        let mut queue = CellQueue::new(16);
        // Makes `cell ≠ v` true, as a decision.
        let exclude = |t: &mut Trail, doms: &mut [u64], cell: usize, v: usize| {
            t.level += 1;
            doms[cell] &= !bit(v);
            t.push(t.ne(cell, v), Why::Decision);
        };
        // cell 0 = 1, or cell 1 = 2, or cell 2 = 3.
        let c = db.add(&[t.eq(0, 1), t.eq(1, 2), t.eq(2, 3)], true, 3);
        // cell 3 = 1 or cell 4 = 1, and cell 4 is 1 already: satisfied.
        doms[4] = bit(1);
        t.push(t.eq(4, 1), Why::Decision);
        db.add(&[t.eq(3, 1), t.eq(4, 1)], true, 2);
        exclude(&mut t, &mut doms, 3, 1);
        exclude(&mut t, &mut doms, 0, 1);
        assert!(db.propagate(&mut t, &mut doms, &mut queue).is_ok());
        assert_eq!(
            (doms[2], doms[3]),
            (0b1111, 0b1110),
            "two literals open: nothing"
        );
        exclude(&mut t, &mut doms, 1, 2);
        assert!(db.propagate(&mut t, &mut doms, &mut queue).is_ok());
        assert_eq!(doms[2], bit(3), "one literal left: it holds");
        assert_eq!(queue.pop(), Some((2, true)));
        // Undo down to before cell 1 ≠ 2, and make every literal false.
        let start = t.index(t.ne(1, 2));
        t.cancel_to(2, start);
        db.cancel_to(start);
        (doms[1], doms[2]) = (0b1111, 0b1111);
        exclude(&mut t, &mut doms, 2, 3);
        assert!(db.propagate(&mut t, &mut doms, &mut queue).is_ok());
        exclude(&mut t, &mut doms, 1, 2);
        let result = db.propagate(&mut t, &mut doms, &mut queue);
        assert!(matches!(result, Err(Conflict::Clause(k)) if k == c));
    }

    /// Forgetting keeps the clauses blocking solutions, the learnt ones of distance 2 or less,
    /// and the better half of the other learnt ones (lower distance, then shorter), in order, and
    /// watches exactly those.
    #[test]
    fn forgetting_keeps_the_better_half() {
        let (t, mut db) = super::super::empty(2);
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
            let c = db.add(&lits, learnt, lbd);
            assert_eq!(db.lbd(c), lbd);
        }
        assert_eq!(db.learnt(), 5);
        db.reduce();
        let kept: Vec<Vec<Lit>> = db
            .starts()
            .into_iter()
            .map(|c| db.lits(c).to_vec())
            .collect();
        let expected: Vec<Vec<Lit>> = [0, 1, 3, 4].iter().map(|&i| clauses[i].0.clone()).collect();
        assert_eq!(kept, expected);
        assert_eq!(db.learnt(), 3);
        let mut watched: Vec<(Lit, Lit)> = Vec::new();
        for (l, ws) in db.watches.iter().enumerate() {
            for &(c, blocker) in ws {
                let lits = db.lits(c);
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

    /// A unit clause is watched by its one literal (asserted at the root when added, it never
    /// becomes false), and its literal made true leaves nothing to do.
    #[test]
    fn a_unit_clause_is_watched_by_its_literal() {
        let (mut t, mut db) = super::super::empty(2);
        let c = db.add(&[t.eq(1, 2)], false, 1);
        assert_eq!(db.watches[t.eq(1, 2) as usize], [(c, t.eq(1, 2))]);
        assert_eq!(db.learnt(), 0);
        let mut doms = vec![0b11u64; 4];
        assert_eq!(t.assert(t.eq(1, 2), c, &mut doms), 1);
        let mut queue = CellQueue::new(4);
        assert!(db.propagate(&mut t, &mut doms, &mut queue).is_ok());
        assert_eq!((doms[1], queue.pop()), (bit(2), None));
    }
}
