//! The deduction rules. Each finds the first progress it can make, scanning its units (cells,
//! lines, cages, digits) in order, and returns it as a [`Step`] without applying it; units found
//! to give nothing are remembered until one of their cells changes.

use super::board::{cell_name, layouts, line_name, Board, Ctx};
use super::{Level, Rule, Step};

/// The candidates contradict each other; the message says where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Contradiction(pub String);

type Found = Result<Option<Step>, Contradiction>;

/// Nodes one enumeration of a cage's layouts may visit; past it the cage gives nothing.
const LAYOUT_BUDGET: usize = 400_000;

/// Cells one search for forcing chains may expand (bounds the rule on large grids).
const CHAIN_BUDGET: usize = 200_000;

/// Rule slots for [`Board::dirty`].
const SLOT_HIDDEN: usize = 0;
const SLOT_CAGE: [usize; 3] = [1, 2, 3];
const SLOT_SUBSET: usize = 4;
const SLOT_FISH: usize = 5;

/// The easiest step of a rule of at most level `max` (guessing excepted).
pub(crate) fn find(ctx: &Ctx, board: &mut Board, max: Level) -> Found {
    for rule in Rule::ALL {
        if rule.level() > max || rule == Rule::Guess {
            break;
        }
        let step = match rule {
            Rule::NakedSingle => naked_single(ctx, board),
            Rule::HiddenSingle => hidden_single(ctx, board),
            Rule::CageDigits | Rule::CageLayouts | Rule::CageLine => cage_rule(ctx, board, rule),
            Rule::LineSubset => line_subset(ctx, board),
            Rule::Fish => fish(ctx, board),
            Rule::ForcingChain => Ok(forcing_chain(ctx, board)),
            Rule::Guess => Ok(None),
        }?;
        if step.is_some() {
            return Ok(step);
        }
    }
    Ok(None)
}

/// The step placing `value` at `cell`: its other candidates go, and `value` leaves its lines.
pub(crate) fn placement(ctx: &Ctx, board: &Board, rule: Rule, cell: usize, value: u32) -> Step {
    let bit = 1u64 << (value - 1);
    let mut step = Step::new(rule);
    step.place = Some((cell, value));
    if board.dom[cell] & !bit != 0 {
        step.removals.push((cell, board.dom[cell] & !bit));
    }
    for line in ctx.lines_of(cell) {
        for &other in &ctx.lines[line] {
            if other != cell && board.dom[other] & bit != 0 {
                step.removals.push((other, bit));
            }
        }
    }
    step
}

fn naked_single(ctx: &Ctx, board: &Board) -> Found {
    for cell in 0..ctx.n * ctx.n {
        let d = board.dom[cell];
        if d == 0 {
            return Err(Contradiction(format!(
                "no value is left for {}",
                cell_name(ctx.n, cell)
            )));
        }
        if !board.placed[cell] && d.is_power_of_two() {
            let v = d.trailing_zeros() + 1;
            return Ok(Some(placement(ctx, board, Rule::NakedSingle, cell, v)));
        }
    }
    Ok(None)
}

fn hidden_single(ctx: &Ctx, board: &mut Board) -> Found {
    let n = ctx.n;
    for (l, cells) in ctx.lines.iter().enumerate() {
        if !board.dirty(SLOT_HIDDEN, l, 2 * n, cells) {
            continue;
        }
        for v in 1..=n as u32 {
            let bit = 1u64 << (v - 1);
            let mut places = cells.iter().filter(|&&c| board.dom[c] & bit != 0);
            let (first, second) = (places.next(), places.next());
            match (first, second) {
                (None, _) => {
                    return Err(Contradiction(format!(
                        "no place is left for {v} in {}",
                        line_name(n, l)
                    )))
                }
                (Some(&c), None) if !board.placed[c] => {
                    let mut step = placement(ctx, board, Rule::HiddenSingle, c, v);
                    step.lines.push(l);
                    return Ok(Some(step));
                }
                _ => {}
            }
        }
        board.clean(SLOT_HIDDEN, l);
    }
    Ok(None)
}

/// What one pass over a cage's layouts learnt.
struct CageScan {
    /// Whether the enumeration finished within its budget.
    complete: bool,
    /// How many layouts there are.
    count: usize,
    /// The digits used anywhere.
    union: u64,
    /// For each cell of the cage, the digits it takes in some layout.
    support: Vec<u64>,
    /// For each line the cage touches (in `lines`), the digits every layout puts in it.
    lines: Vec<usize>,
    required: Vec<u64>,
}

/// Scans the layouts of cage `k` for `rule`, stopping as soon as the rule can learn nothing
/// more (every candidate supported, or nothing required in any line).
fn scan_cage(ctx: &Ctx, dom: &[u64], k: usize, rule: Rule) -> CageScan {
    let cage = &ctx.cages[k];
    let mut lines: Vec<usize> = cage.cells.iter().flat_map(|&c| ctx.lines_of(c)).collect();
    lines.sort_unstable();
    lines.dedup();
    let line_index: Vec<[usize; 2]> = cage
        .cells
        .iter()
        .map(|&c| {
            ctx.lines_of(c)
                .map(|l| lines.binary_search(&l).unwrap_or(0))
        })
        .collect();
    let all = cage.cells.iter().fold(0, |a, &c| a | dom[c]);
    let mut scan = CageScan {
        complete: false,
        count: 0,
        union: 0,
        support: vec![0; cage.cells.len()],
        required: vec![u64::MAX; lines.len()],
        lines,
    };
    let mut here = vec![0u64; scan.lines.len()];
    let mut budget = LAYOUT_BUDGET;
    scan.complete = layouts(ctx, dom, cage, &mut budget, &mut |vals| {
        scan.count += 1;
        here.iter_mut().for_each(|h| *h = 0);
        for (i, &v) in vals.iter().enumerate() {
            let bit = 1u64 << (v - 1);
            scan.union |= bit;
            scan.support[i] |= bit;
            for li in line_index[i] {
                here[li] |= bit;
            }
        }
        for (r, h) in scan.required.iter_mut().zip(&here) {
            *r &= h;
        }
        match rule {
            Rule::CageDigits => scan.union != all,
            Rule::CageLayouts => scan
                .support
                .iter()
                .zip(&cage.cells)
                .any(|(&s, &c)| s != dom[c]),
            _ => scan.required.iter().any(|&r| r != 0),
        }
    });
    scan
}

/// The three rules that read a cage's layouts: [`Rule::CageDigits`] (the union of the digits),
/// [`Rule::CageLayouts`] (each cell's own digits) and [`Rule::CageLine`] (digits forced into a
/// line).
fn cage_rule(ctx: &Ctx, board: &mut Board, rule: Rule) -> Found {
    let slot = SLOT_CAGE[rule.index() - Rule::CageDigits.index()];
    let ncages = ctx.cages.len();
    for (k, cage) in ctx.cages.iter().enumerate() {
        if !board.dirty(slot, k, ncages, &cage.cells) {
            continue;
        }
        let scan = scan_cage(ctx, &board.dom, k, rule);
        if scan.complete && scan.count == 0 {
            return Err(Contradiction(format!(
                "no layout of cage {} fits the candidates",
                k + 1
            )));
        }
        if scan.complete {
            let mut step = Step::new(rule);
            step.cage = Some(k);
            match rule {
                Rule::CageDigits => {
                    step.digits = scan.union;
                    for &c in &cage.cells {
                        if board.dom[c] & !scan.union != 0 {
                            step.removals.push((c, board.dom[c] & !scan.union));
                        }
                    }
                }
                Rule::CageLayouts => {
                    for (&c, &s) in cage.cells.iter().zip(&scan.support) {
                        if board.dom[c] & !s != 0 {
                            step.removals.push((c, board.dom[c] & !s));
                        }
                    }
                }
                _ => {
                    for (&l, &req) in scan.lines.iter().zip(&scan.required) {
                        for &c in &ctx.lines[l] {
                            if board.dom[c] & req != 0 && !cage.cells.contains(&c) {
                                step.removals.push((c, board.dom[c] & req));
                                step.digits |= board.dom[c] & req;
                            }
                        }
                        if !step.removals.is_empty() {
                            step.lines.push(l);
                            break;
                        }
                    }
                }
            }
            if !step.removals.is_empty() {
                return Ok(Some(step));
            }
        }
        board.clean(slot, k);
    }
    Ok(None)
}

/// A subset found by [`subsets`]: the rows and columns it rests on, what it removes (row ids
/// with the columns taken out), and whether it was found from the columns' side.
struct Subset {
    rows: Vec<usize>,
    cols: u64,
    removals: Vec<(usize, u64)>,
    hidden: bool,
}

/// Calls `f` with each `k`-subset of `0..m` in lexicographic order until it returns true.
fn combinations(m: usize, k: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    fn go(
        start: usize,
        m: usize,
        k: usize,
        cur: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if cur.len() == k {
            return f(cur);
        }
        for i in start..m {
            if m - i < k - cur.len() {
                break;
            }
            cur.push(i);
            if go(i + 1, m, k, cur, f) {
                return true;
            }
            cur.pop();
        }
        false
    }
    go(0, m, k, &mut Vec::with_capacity(k), f)
}

/// A subset found, none, or a contradiction.
type SubsetFound = Result<Option<Subset>, Contradiction>;

/// What a candidate subset of size `k` gives: a contradiction when only `fits` (< k) places
/// are left for its members, the subset when exactly `k` are and it removes something.
fn subset_outcome(fits: usize, k: usize, make: impl FnOnce() -> Subset) -> SubsetFound {
    match fits.cmp(&k) {
        std::cmp::Ordering::Less => Err(Contradiction(format!(
            "{k} cells or digits have only {fits} places left"
        ))),
        std::cmp::Ordering::Equal => {
            let s = make();
            Ok((!s.removals.is_empty()).then_some(s))
        }
        std::cmp::Ordering::Greater => Ok(None),
    }
}

/// The first `k`-subset of `0..m` for which `f` finds something (or a contradiction).
fn first_subset(m: usize, k: usize, f: &mut dyn FnMut(&[usize]) -> SubsetFound) -> SubsetFound {
    let mut result: SubsetFound = Ok(None);
    combinations(m, k, &mut |pick| {
        let found = f(pick);
        let stop = !matches!(found, Ok(None));
        if stop {
            result = found;
        }
        stop
    });
    result
}

/// Set elimination on a 0/1 matrix (rows with id and column mask, each with two or more ones):
/// `k` rows whose ones lie in `k` columns leave those columns to them (naked), or `k` columns
/// whose ones lie in `k` rows leave those rows to them (hidden); `2 <= k <= max_k`.
fn subsets(rows: &[(usize, u64)], max_k: usize) -> SubsetFound {
    let m = rows.len();
    let universe = rows.iter().fold(0, |a, r| a | r.1);
    let cols: Vec<u64> = (0..64)
        .map(|b| 1u64 << b)
        .filter(|b| universe & b != 0)
        .collect();
    for k in 2..=max_k.min(m.saturating_sub(2)) {
        let naked = first_subset(m, k, &mut |pick| {
            let union = pick.iter().fold(0, |a, &i| a | rows[i].1);
            subset_outcome(union.count_ones() as usize, k, || Subset {
                rows: pick.iter().map(|&i| rows[i].0).collect(),
                cols: union,
                removals: (0..m)
                    .filter(|i| !pick.contains(i) && rows[*i].1 & union != 0)
                    .map(|i| (rows[i].0, rows[i].1 & union))
                    .collect(),
                hidden: false,
            })
        })?;
        if naked.is_some() {
            return Ok(naked);
        }
        let hidden = first_subset(cols.len(), k, &mut |pick| {
            let set = pick.iter().fold(0, |a, &i| a | cols[i]);
            let touching: Vec<usize> = (0..m).filter(|&i| rows[i].1 & set != 0).collect();
            subset_outcome(touching.len(), k, || Subset {
                rows: touching.iter().map(|&i| rows[i].0).collect(),
                cols: set,
                removals: touching
                    .iter()
                    .filter(|&&i| rows[i].1 & !set != 0)
                    .map(|&i| (rows[i].0, rows[i].1 & !set))
                    .collect(),
                hidden: true,
            })
        })?;
        if hidden.is_some() {
            return Ok(hidden);
        }
    }
    Ok(None)
}

/// The largest subset the set rules look for: every size up to 9x9, fewer on larger grids.
fn max_subset(n: usize) -> usize {
    match n {
        0..=9 => 4,
        10..=32 => 3,
        _ => 2,
    }
}

fn line_subset(ctx: &Ctx, board: &mut Board) -> Found {
    let n = ctx.n;
    for (l, cells) in ctx.lines.iter().enumerate() {
        if !board.dirty(SLOT_SUBSET, l, 2 * n, cells) {
            continue;
        }
        let rows: Vec<(usize, u64)> = cells
            .iter()
            .filter(|&&c| board.dom[c].count_ones() >= 2)
            .map(|&c| (c, board.dom[c]))
            .collect();
        if let Some(s) = subsets(&rows, max_subset(n))? {
            let mut step = Step::new(Rule::LineSubset);
            step.lines.push(l);
            step.cells = s.rows;
            step.digits = s.cols;
            step.removals = s.removals;
            return Ok(Some(step));
        }
        board.clean(SLOT_SUBSET, l);
    }
    Ok(None)
}

fn fish(ctx: &Ctx, board: &mut Board) -> Found {
    let n = ctx.n;
    for v in 1..=n as u32 {
        if !board.digit_dirty(SLOT_FISH, v as usize - 1) {
            continue;
        }
        let bit = 1u64 << (v - 1);
        let rows: Vec<(usize, u64)> = (0..n)
            .map(|r| {
                let cols = (0..n)
                    .filter(|&c| board.dom[r * n + c] & bit != 0)
                    .fold(0u64, |a, c| a | 1 << c);
                (r, cols)
            })
            .filter(|(_, cols)| cols.count_ones() >= 2)
            .collect();
        if let Some(s) = subsets(&rows, max_subset(n))? {
            let mut step = Step::new(Rule::Fish);
            step.digits = bit;
            let cols: Vec<usize> = (0..n).filter(|c| s.cols >> c & 1 == 1).collect();
            // The lines the digit is confined to: rows when found from the rows' side.
            step.lines = if s.hidden {
                cols.iter().map(|c| n + c).collect()
            } else {
                s.rows.clone()
            };
            for (r, removed) in s.removals {
                for c in (0..n).filter(|c| removed >> c & 1 == 1) {
                    step.removals.push((r * n + c, bit));
                }
            }
            step.removals.sort_unstable();
            return Ok(Some(step));
        }
        board.clean(SLOT_FISH, v as usize - 1);
    }
    Ok(None)
}

/// A chain of two-candidate cells: if the start cell is not `a`, its other value forces the next
/// cell, and so on; when a cell of the chain is forced to `a`, a cell that sees both it and the
/// start cannot be `a`.
fn forcing_chain(ctx: &Ctx, board: &Board) -> Option<Step> {
    let n = ctx.n;
    let cells = n * n;
    let mut value = vec![0u32; cells];
    let mut parent = vec![usize::MAX; cells];
    let mut queue = Vec::with_capacity(cells);
    let mut work = CHAIN_BUDGET;
    for start in 0..cells {
        let d = board.dom[start];
        if d.count_ones() != 2 {
            continue;
        }
        for a in super::board::digits(d) {
            let other = super::board::digits(d & !(1 << (a - 1)))
                .next()
                .unwrap_or(a);
            value.iter_mut().for_each(|v| *v = 0);
            queue.clear();
            queue.push(start);
            value[start] = other;
            parent[start] = usize::MAX;
            let mut head = 0;
            while head < queue.len() {
                if work == 0 {
                    return None;
                }
                work -= 1;
                let cur = queue[head];
                head += 1;
                let cv = value[cur];
                let bit = 1u64 << (cv - 1);
                for line in ctx.lines_of(cur) {
                    for &p in &ctx.lines[line] {
                        if value[p] != 0 || board.dom[p] & bit == 0 {
                            continue;
                        }
                        if board.dom[p].count_ones() == 2 {
                            value[p] = super::board::digits(board.dom[p] & !bit)
                                .next()
                                .unwrap_or(cv);
                            parent[p] = cur;
                            queue.push(p);
                        }
                        if cv == a && ctx.peers(p, start) {
                            let mut step = Step::new(Rule::ForcingChain);
                            step.digits = bit;
                            step.removals.push((p, bit));
                            let mut at = cur;
                            while at != usize::MAX {
                                step.cells.push(at);
                                at = parent[at];
                            }
                            step.cells.reverse();
                            return Some(step);
                        }
                    }
                }
            }
        }
    }
    None
}

/// Trial and error: the open cell with fewest candidates takes its value in `solution`.
pub(crate) fn guess(ctx: &Ctx, board: &Board, solution: &[u32]) -> Option<Step> {
    let cell = (0..ctx.n * ctx.n)
        .filter(|&c| !board.placed[c])
        .min_by_key(|&c| board.dom[c].count_ones())?;
    let mut step = placement(ctx, board, Rule::Guess, cell, solution[cell]);
    step.digits = board.dom[cell];
    Some(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_find_a_naked_pair_and_a_hidden_pair() {
        // Cells 0 and 1 hold only {1, 2}: 1 and 2 leave cell 2.
        let rows = [(0, 0b011), (1, 0b011), (2, 0b111), (3, 0b1100)];
        let s = subsets(&rows, 4).unwrap().unwrap();
        assert!(!s.hidden);
        assert_eq!(s.removals, vec![(2, 0b011)]);
        // Digits 3 and 4 only fit cells 2 and 3: their other digits go.
        let rows = [(0, 0b0011), (1, 0b0011), (2, 0b1111), (3, 0b1111)];
        let s = subsets(&rows, 4).unwrap().unwrap();
        assert_eq!(s.removals, vec![(2, 0b0011), (3, 0b0011)]);
    }

    #[test]
    fn combinations_are_listed_in_order() {
        let mut seen = Vec::new();
        combinations(4, 2, &mut |c| {
            seen.push(c.to_vec());
            false
        });
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[0], vec![0, 1]);
        assert_eq!(seen[5], vec![2, 3]);
    }
}
