//! Generalised arc consistency for the all-different constraint of one row or column (Régin's
//! matching-based filter, on bitsets): a value stays in a cell only when some assignment of
//! distinct values to the whole line gives it there. This subsumes naked and hidden subsets of
//! every size, which large Latin grids need.

/// Filters the line of `n` cells `start + j * step` (values `1..=n`, bit `v - 1`): finds a
/// perfect matching of cells to values, then keeps a cell's other candidates only where they lie
/// on an alternating cycle with its matched value. Calls `removed(cell, kept, values, reach)` with
/// each cell it narrows, after narrowing it: a value `v` it removed lies in the Hall set
/// `reach[v - 1] | bit(v)` (values only the line's cells with candidates in that set can take,
/// as many cells as values, the narrowed cell not among them). When no matching exists, the
/// error is a set of values that more cells than it has values must share.
pub(super) fn all_different(
    doms: &mut [u64],
    start: usize,
    step: usize,
    n: usize,
    mut removed: impl FnMut(usize, u64, u64, &[u64; 64]),
) -> Result<(), u64> {
    const NONE: u8 = u8::MAX;
    let cell = |j: usize| start + j * step;
    let mut d = [0u64; 64];
    for (j, dj) in d.iter_mut().enumerate().take(n) {
        *dj = doms[cell(j)];
    }
    let mut cell_of = [NONE; 64];
    let mut value_of = [NONE; 64];
    // Greedily, then by augmenting paths.
    let mut taken = 0u64;
    for j in 0..n {
        let free = d[j] & !taken;
        if free != 0 {
            let v = free.trailing_zeros() as usize;
            taken |= 1 << v;
            cell_of[v] = j as u8;
            value_of[j] = v as u8;
        }
    }
    for j in 0..n {
        if value_of[j] == NONE {
            let mut visited = 0u64;
            if !augment(j, &d, &mut cell_of, &mut value_of, &mut visited) {
                return Err(visited);
            }
        }
    }
    // The graph on values: the value matched to a cell leads to the cell's other candidates. Its
    // transitive closure (Warshall, on bitsets) tells which values lie on a common cycle.
    let mut reach = [0u64; 64];
    for j in 0..n {
        reach[value_of[j] as usize] = d[j];
    }
    // A value matched to a fixed cell leads nowhere else: it cannot be on a path between two
    // others, so only the values of open cells are intermediates. The inner loop has no branch,
    // so it vectorises.
    let mut open = 0u64;
    for j in 0..n {
        if d[j] & (d[j] - 1) != 0 {
            open |= 1 << value_of[j];
        }
    }
    while open != 0 {
        let k = open.trailing_zeros();
        open &= open - 1;
        let rk = reach[k as usize];
        for r in reach[..n].iter_mut() {
            *r |= rk & ((*r >> k) & 1).wrapping_neg();
        }
    }
    for j in 0..n {
        let m = 1u64 << value_of[j];
        let mut keep = m;
        let mut others = d[j] & !m;
        while others != 0 {
            let v = others.trailing_zeros() as usize;
            others &= others - 1;
            if reach[v] & m != 0 {
                keep |= 1 << v;
            }
        }
        if keep != d[j] {
            doms[cell(j)] = keep;
            removed(cell(j), keep, d[j] & !keep, &reach);
        }
    }
    Ok(())
}

/// Finds an augmenting path from the unmatched cell `j` (values in `visited` are not tried
/// again); true when `j` got a value.
fn augment(
    j: usize,
    d: &[u64; 64],
    cell_of: &mut [u8; 64],
    value_of: &mut [u8; 64],
    visited: &mut u64,
) -> bool {
    let mut options = d[j] & !*visited;
    while options != 0 {
        let v = options.trailing_zeros() as usize;
        options &= options - 1;
        *visited |= 1 << v;
        let holder = cell_of[v];
        if holder == u8::MAX || augment(holder as usize, d, cell_of, value_of, visited) {
            cell_of[v] = j as u8;
            value_of[j] = v as u8;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_exactly_the_values_of_some_assignment() {
        // Cells {1,2}, {1,2}, {1,2,3}, {2,3,4}: the first two take 1 and 2, so the third is 3
        // and the fourth 4.
        let mut doms = vec![0b0011, 0b0011, 0b0111, 0b1110];
        let before = doms.clone();
        let mut changed = Vec::new();
        let mut halls = Vec::new();
        let ok = all_different(&mut doms, 0, 1, 4, |c, _, gone, reach| {
            for (v, &r) in reach.iter().enumerate().take(4) {
                if gone & (1 << v) != 0 {
                    // As many cells as values hold only values of the Hall set; the narrowed
                    // cell is not one of them.
                    let hall = r | (1 << v);
                    let inside = before.iter().filter(|&&d| d & !hall == 0).count();
                    assert_eq!(
                        inside,
                        hall.count_ones() as usize,
                        "cell {c}, value {}",
                        v + 1
                    );
                    assert_ne!(before[c] & !hall, 0);
                    halls.push(hall);
                }
            }
            changed.push((c, gone));
        });
        assert_eq!(halls, vec![0b0011, 0b0011, 0b0011, 0b0111]);
        assert_eq!(ok, Ok(()));
        assert_eq!(doms, vec![0b0011, 0b0011, 0b0100, 0b1000]);
        assert_eq!(changed, vec![(2, 0b0011), (3, 0b0110)]);
        // Three cells share two values: no assignment, and the values shared are named.
        let mut doms = vec![0b0011, 0b0011, 0b0011, 0b1111];
        assert_eq!(
            all_different(&mut doms, 0, 1, 4, |_, _, _, _| {}),
            Err(0b0011)
        );
        // A column (step n) of a 3x3 grid, nothing to remove.
        let mut doms = vec![0b111; 9];
        assert_eq!(
            all_different(&mut doms, 1, 3, 3, |_, _, _, _| panic!("nothing changes")),
            Ok(())
        );
    }
}
