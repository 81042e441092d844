//! The pencil marks (candidates per cell), the puzzle's cages and lines as cell indices, and the
//! enumeration of a cage's layouts under the current candidates.

use crate::puzzle::{Cell, Op, Puzzle};

use super::Step;

/// A cage as cell indices.
pub(crate) struct CageCells {
    pub op: Op,
    pub target: u64,
    pub cells: Vec<usize>,
}

/// What does not change while solving: cages and lines as cell indices.
pub(crate) struct Ctx {
    pub n: usize,
    pub cages: Vec<CageCells>,
    /// Rows `0..n`, then columns `n..2n`, each as its cells.
    pub lines: Vec<Vec<usize>>,
}

impl Ctx {
    /// The context of a valid puzzle.
    pub(super) fn new(p: &Puzzle) -> Ctx {
        let n = p.size;
        let cages = p
            .cages
            .iter()
            .map(|c| CageCells {
                op: c.op,
                target: c.target,
                cells: c
                    .cells
                    .iter()
                    .map(|c| (c.row - 1) * n + c.col - 1)
                    .collect(),
            })
            .collect();
        let lines = (0..2 * n)
            .map(|l| {
                if l < n {
                    (0..n).map(|c| l * n + c).collect()
                } else {
                    (0..n).map(|r| r * n + l - n).collect()
                }
            })
            .collect();
        Ctx { n, cages, lines }
    }

    /// The row and column lines of a cell.
    pub(super) fn lines_of(&self, cell: usize) -> [usize; 2] {
        [cell / self.n, self.n + cell % self.n]
    }

    /// Whether two distinct cells share a row or column.
    pub(super) fn peers(&self, a: usize, b: usize) -> bool {
        a != b && (a / self.n == b / self.n || a % self.n == b % self.n)
    }
}

/// The name of a cell in the line notation (`A1`).
pub(crate) fn cell_name(n: usize, cell: usize) -> String {
    Cell::new(cell / n + 1, cell % n + 1).to_string()
}

/// The name of a line: `row B` or `column 3`.
pub(crate) fn line_name(n: usize, line: usize) -> String {
    if line < n {
        format!("row {}", Cell::row_name(line + 1))
    } else {
        format!("column {}", line - n + 1)
    }
}

/// The digits of a mask, ascending.
pub(crate) fn digits(mask: u64) -> impl Iterator<Item = u32> {
    (0..64u32)
        .filter(move |b| mask >> b & 1 == 1)
        .map(|b| b + 1)
}

/// The candidates of every cell, which cells are placed, and when each last changed.
pub(crate) struct Board {
    pub dom: Vec<u64>,
    pub placed: Vec<bool>,
    /// The tick at which each cell last changed.
    pub changed: Vec<u64>,
    /// Counts changes; a unit checked at tick `t` is clean while none of its cells changed since.
    pub tick: u64,
    /// For each rule slot and unit, the tick at which it was last found to give nothing.
    pub checked: Vec<Vec<u64>>,
    /// The tick at which each digit (0-based) last left some cell.
    pub digit_changed: Vec<u64>,
}

impl Board {
    /// Every digit possible everywhere.
    pub(super) fn new(n: usize) -> Board {
        let full = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        Board {
            dom: vec![full; n * n],
            placed: vec![false; n * n],
            changed: vec![1; n * n],
            tick: 1,
            checked: Vec::new(),
            digit_changed: vec![1; n],
        }
    }

    /// Whether `unit` of rule slot `slot` may give something new (a cell changed since it was
    /// last found to give nothing).
    pub(super) fn dirty(
        &mut self,
        slot: usize,
        unit: usize,
        units: usize,
        cells: &[usize],
    ) -> bool {
        if self.checked.len() <= slot {
            self.checked.resize(slot + 1, Vec::new());
        }
        if self.checked[slot].len() < units {
            self.checked[slot].resize(units, 0);
        }
        let at = self.checked[slot][unit];
        cells.iter().any(|&c| self.changed[c] >= at)
    }

    /// Whether digit `d` (0-based), as unit `d` of rule slot `slot`, may give something new (it
    /// left some cell since the unit was last found to give nothing).
    pub(super) fn digit_dirty(&mut self, slot: usize, d: usize) -> bool {
        let n = self.digit_changed.len();
        self.dirty(slot, d, n, &[]) || self.digit_changed[d] >= self.checked[slot][d]
    }

    /// Records that `unit` of `slot` gave nothing now.
    pub(super) fn clean(&mut self, slot: usize, unit: usize) {
        self.checked[slot][unit] = self.tick + 1;
    }

    /// Applies a step's removals and placement.
    pub(super) fn apply(&mut self, step: &Step) {
        self.tick += 1;
        for &(cell, mask) in &step.removals {
            if self.dom[cell] & mask != 0 {
                for d in digits(self.dom[cell] & mask) {
                    self.digit_changed[d as usize - 1] = self.tick;
                }
                self.dom[cell] &= !mask;
                self.changed[cell] = self.tick;
            }
        }
        if let Some((cell, value)) = step.place {
            self.dom[cell] = 1 << (value - 1);
            self.placed[cell] = true;
            self.changed[cell] = self.tick;
        }
    }
}

/// Calls `f` with every layout of `cage` (values in cage-cell order) that the candidates allow,
/// with values distinct within each row and column, until `f` returns false. Returns false when
/// `budget` (nodes) ran out first.
pub(crate) fn layouts(
    ctx: &Ctx,
    dom: &[u64],
    cage: &CageCells,
    budget: &mut usize,
    f: &mut dyn FnMut(&[u32]) -> bool,
) -> bool {
    let k = cage.cells.len();
    let mut vals = vec![0u32; k];
    let min_rest: Vec<u64> = (0..=k)
        .map(|i| {
            cage.cells[i..]
                .iter()
                .map(|&c| u64::from(dom[c].trailing_zeros()) + 1)
                .sum()
        })
        .collect();
    let max_rest: Vec<u64> = (0..=k)
        .map(|i| {
            cage.cells[i..]
                .iter()
                .map(|&c| 64 - u64::from(dom[c].leading_zeros()))
                .sum()
        })
        .collect();
    let mut walk = Walk {
        ctx,
        dom,
        cage,
        vals: &mut vals,
        min_rest: &min_rest,
        max_rest: &max_rest,
        budget,
        f,
    };
    walk.go(0, 0, 1) != Walked::OutOfBudget
}

/// How a walk ended.
#[derive(PartialEq, Eq)]
enum Walked {
    Done,
    Stopped,
    OutOfBudget,
}

struct Walk<'a> {
    ctx: &'a Ctx,
    dom: &'a [u64],
    cage: &'a CageCells,
    vals: &'a mut Vec<u32>,
    min_rest: &'a [u64],
    max_rest: &'a [u64],
    budget: &'a mut usize,
    f: &'a mut dyn FnMut(&[u32]) -> bool,
}

impl Walk<'_> {
    fn go(&mut self, i: usize, sum: u64, product: u64) -> Walked {
        let cage = self.cage;
        if i == cage.cells.len() {
            let values: Vec<u64> = self.vals.iter().map(|&v| u64::from(v)).collect();
            if cage.op.holds(cage.target, &values) && !(self.f)(self.vals) {
                return Walked::Stopped;
            }
            return Walked::Done;
        }
        if *self.budget == 0 {
            return Walked::OutOfBudget;
        }
        *self.budget -= 1;
        let cell = cage.cells[i];
        let mut mask = self.dom[cell];
        for j in 0..i {
            if self.ctx.peers(cell, cage.cells[j]) {
                mask &= !(1u64 << (self.vals[j] - 1));
            }
        }
        while mask != 0 {
            let v = u64::from(mask.trailing_zeros()) + 1;
            mask &= mask - 1;
            let (s, p) = (sum + v, product.saturating_mul(v));
            let ok = match cage.op {
                Op::Add => {
                    s + self.min_rest[i + 1] <= cage.target
                        && s + self.max_rest[i + 1] >= cage.target
                }
                Op::Mul => cage.target.is_multiple_of(p),
                Op::Given => v == cage.target,
                _ => true,
            };
            if !ok {
                continue;
            }
            self.vals[i] = v as u32;
            match self.go(i + 1, s, p) {
                Walked::Done => {}
                end => return end,
            }
        }
        Walked::Done
    }
}
