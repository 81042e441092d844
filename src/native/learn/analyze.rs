//! Conflict analysis: from a contradiction back to the clause to learn. Reasons are followed
//! back from the conflict, latest first, until one literal of the conflict's level is left:
//! the first unique implication point (1UIP), as SAT solvers do, so that the learnt clause is
//! asserting (the search jumps back to the level where it becomes unit). The clause is then
//! minimised: a literal goes when its reasons, followed back, end in the clause's other literals
//! (as in MiniSat). Every literal met bumps its pair's activity, which steers branching.

use super::clauses::Clauses;
use super::explain::{Explainer, View};
use super::trail::{Conflict, Lit, Trail, Why};
use super::Activity;

/// Derives learnt clauses; holds the explanations and reusable buffers.
pub(super) struct Analyzer {
    pub(super) explainer: Explainer,
    /// Per literal: seen in the current analysis (the list of those seen in `marked`).
    seen: Vec<bool>,
    marked: Vec<Lit>,
    /// The reasons being followed.
    buf: Vec<Lit>,
    /// Minimisation: literals whose reasons are still to follow back.
    stack: Vec<Lit>,
}

impl Analyzer {
    /// An analysis over `lits` literals, explaining with `explainer`.
    pub(super) fn new(explainer: Explainer, lits: usize) -> Analyzer {
        Analyzer {
            explainer,
            seen: vec![false; lits],
            marked: Vec::new(),
            buf: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Derives the clause learnt from `conflict`: the first unique implication point first,
    /// then the literal of the highest other level. `None` when the conflict holds at the root
    /// (the search is over).
    pub(super) fn analyze(
        &mut self,
        trail: &Trail,
        clauses: &Clauses,
        activity: &mut Activity,
        conflict: Conflict,
        view: View,
    ) -> Option<Vec<Lit>> {
        let root = view.root;
        self.buf.clear();
        self.explainer
            .conflict(trail, clauses, conflict, view, &mut self.buf);
        let top = self.conflict_level(trail, root);
        if top == 0 {
            self.buf.clear();
            return None;
        }
        let mut learnt = vec![0];
        let mut counter = 0usize;
        let mut idx = trail.events.len();
        loop {
            for &l in &self.buf {
                if trail.at_root(l, root) || self.seen[l as usize] || !trail.is_set(l) {
                    continue;
                }
                self.seen[l as usize] = true;
                self.marked.push(l);
                activity.bump(l);
                let level = trail.event(l).level;
                if level == top {
                    counter += 1;
                } else if level > 0 {
                    learnt.push(l ^ 1);
                }
            }
            self.buf.clear();
            // The latest literal of the conflict's level still to resolve.
            loop {
                if idx == 0 {
                    // Never so when every reason precedes what it explains: the clause of the
                    // decisions (they led here) is still true.
                    debug_assert!(false, "a reason after what it explains");
                    self.unmark(0);
                    return Some(trail.decision_clause());
                }
                idx -= 1;
                let e = trail.events[idx];
                if e.level == top && self.seen[e.lit as usize] {
                    break;
                }
            }
            counter -= 1;
            if counter == 0 {
                learnt[0] = trail.events[idx].lit ^ 1;
                break;
            }
            self.explainer
                .reason(trail, clauses, idx, view, &mut self.buf);
        }
        self.minimise(trail, clauses, &mut learnt, view);
        self.unmark(0);
        activity.decay();
        // The literal of the highest level after the first goes second (it is watched).
        if learnt.len() > 2 {
            let best = (1..learnt.len())
                .max_by_key(|&i| trail.false_at(learnt[i]))
                .unwrap_or(1);
            learnt.swap(1, best);
        }
        Some(learnt)
    }

    /// The conflict's level: the highest among the literals explaining it, in `self.buf` (the
    /// current level, normally); 0 when they all hold at the root.
    fn conflict_level(&self, trail: &Trail, root: &[u64]) -> u32 {
        let mut top = 0;
        for &l in &self.buf {
            if !trail.at_root(l, root) {
                debug_assert!(trail.is_set(l), "literal {l} unrecorded");
                if trail.is_set(l) {
                    top = top.max(trail.event(l).level);
                }
            }
        }
        top
    }

    /// Unmarks the literals marked seen from the `from`-th on.
    fn unmark(&mut self, from: usize) {
        for l in self.marked.drain(from..) {
            self.seen[l as usize] = false;
        }
    }

    /// Drops from `learnt` (its first literal kept) the literals whose negation the others
    /// imply: those whose reasons, followed back, end in literals of the clause or of the root
    /// only (recursive minimisation, as in MiniSat).
    fn minimise(&mut self, trail: &Trail, clauses: &Clauses, learnt: &mut Vec<Lit>, view: View) {
        let mut levels = 0u64;
        for &l in &learnt[1..] {
            levels |= 1 << (trail.false_at(l) & 63);
        }
        let mut i = 1;
        while i < learnt.len() {
            let p = learnt[i] ^ 1;
            if self.redundant(trail, clauses, p, levels, view) {
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
        trail: &Trail,
        clauses: &Clauses,
        p: Lit,
        levels: u64,
        view: View,
    ) -> bool {
        if matches!(trail.event(p).why, Why::Decision) {
            return false;
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(p);
        let top = self.marked.len();
        let mut ok = true;
        'outer: while let Some(q) = stack.pop() {
            self.buf.clear();
            self.explainer
                .reason(trail, clauses, trail.index(q), view, &mut self.buf);
            for &r in &self.buf {
                if trail.at_root(r, view.root) || self.seen[r as usize] {
                    continue;
                }
                let fine = trail.is_set(r) && {
                    let e = trail.event(r);
                    !matches!(e.why, Why::Decision) && levels & (1 << (e.level & 63)) != 0
                };
                if !fine {
                    for l in self.marked.drain(top..) {
                        self.seen[l as usize] = false;
                    }
                    ok = false;
                    break 'outer;
                }
                self.seen[r as usize] = true;
                self.marked.push(r);
                stack.push(r);
            }
        }
        self.buf.clear();
        self.stack = stack;
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::learn::explain::Explainer;

    /// A hand-built conflict: decision `a` at level 1 implies `z`; decision `b` at level 2
    /// implies `x`, which implies `y`; a clause forbids `a`, `z`, `x` and `y` together. The
    /// learnt clause is `¬x ∨ ¬a`: `x` is the first unique implication point (not the decision
    /// `b`), and `¬z` goes in minimisation (`a` implies `z`). Every literal met is bumped.
    #[test]
    fn analysis_learns_the_first_uip_minimised() {
        let (mut t, mut db) = super::super::empty(3);
        let (a, z, b, x, y) = (t.eq(0, 1), t.ne(1, 1), t.eq(4, 2), t.ne(5, 2), t.ne(8, 3));
        let cz = db.add(&[z, a ^ 1], true, 2);
        let cx = db.add(&[x, b ^ 1], true, 2);
        let cy = db.add(&[y, x ^ 1], true, 2);
        let c = db.add(&[a ^ 1, z ^ 1, x ^ 1, y ^ 1], true, 3);
        t.level = 1;
        t.push(a, Why::Decision);
        t.push(z, Why::Clause(cz));
        t.level = 2;
        t.push(b, Why::Decision);
        t.push(x, Why::Clause(cx));
        t.push(y, Why::Clause(cy));
        let root = vec![0b111u64; 9];
        let view = View {
            now: &root,
            root: &root,
            tables: &[],
        };
        let mut analyzer = Analyzer::new(Explainer::new(Vec::new()), 2 * Trail::atoms(3));
        let mut activity = Activity::new(Trail::atoms(3), None);
        let learnt = analyzer.analyze(&t, &db, &mut activity, Conflict::Clause(c), view);
        assert_eq!(learnt, Some(vec![x ^ 1, a ^ 1]));
        assert_eq!(t.backjump_level(&[x ^ 1, a ^ 1]), 1);
        let bumped = |l: Lit| activity.score[(l >> 1) as usize] > 0.0;
        assert!([a, z, x, y].into_iter().all(bumped) && !bumped(b));
        assert!(analyzer.seen.iter().all(|&s| !s), "every mark undone");
        // The same contradiction with only root-level literals: nothing to learn.
        t.cancel_to(0, 0);
        t.push(a, Why::Decision);
        let c0 = db.add(&[a ^ 1], false, 1);
        let learnt = analyzer.analyze(&t, &db, &mut activity, Conflict::Clause(c0), view);
        assert_eq!(learnt, None);
    }
}
