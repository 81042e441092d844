//! Deductions inside one row or column beyond singles: naked and hidden subsets (Hall sets),
//! which large Latin grids need.

/// Subsets of at most this many cells or values are looked for.
pub(super) const SUBSET_MAX: u32 = 4;

/// In the line of `n` cells `start + j * step`, finds the naked subsets (k open cells whose
/// candidates together are one cell's k values: the other cells lose those values) and hidden
/// subsets (k values whose possible places together are one value's k cells: those cells lose
/// every other value), for k up to [`SUBSET_MAX`]. Calls `changed` with each cell it narrows;
/// false on a contradiction (more cells than values, or more values than cells).
pub(super) fn subsets(
    doms: &mut [u64],
    start: usize,
    step: usize,
    n: usize,
    mut changed: impl FnMut(usize),
) -> bool {
    let cell = |j: usize| start + j * step;
    // Naked: the open cells, and for each one the cells whose candidates are within its own.
    let mut open = 0u64;
    for j in 0..n {
        let d = doms[cell(j)];
        if d & (d - 1) != 0 {
            open |= 1 << j;
        }
    }
    let open_count = open.count_ones();
    if open_count <= 2 {
        return true;
    }
    let mut js = open;
    while js != 0 {
        let j = js.trailing_zeros() as usize;
        js &= js - 1;
        let d = doms[cell(j)];
        let k = d.count_ones();
        if k > SUBSET_MAX || k >= open_count {
            continue;
        }
        let mut inside = 0u64;
        let mut count = 0;
        let mut others = open;
        while others != 0 {
            let i = others.trailing_zeros() as usize;
            others &= others - 1;
            if doms[cell(i)] & !d == 0 {
                inside |= 1 << i;
                count += 1;
            }
        }
        if count > k {
            return false;
        }
        if count == k {
            let mut rest = open & !inside;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let c = cell(i);
                if doms[c] & d != 0 {
                    doms[c] &= !d;
                    if doms[c] == 0 {
                        return false;
                    }
                    changed(c);
                }
            }
        }
    }
    // Hidden: where each value not yet placed can go.
    let mut places = [0u64; 64];
    let mut placed = 0u64;
    for j in 0..n {
        let mut d = doms[cell(j)];
        if d & (d - 1) == 0 {
            placed |= d;
            continue;
        }
        while d != 0 {
            places[d.trailing_zeros() as usize] |= 1 << j;
            d &= d - 1;
        }
    }
    let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let values = full & !placed;
    let value_count = values.count_ones();
    let mut vs = values;
    while vs != 0 {
        let v = vs.trailing_zeros() as usize;
        vs &= vs - 1;
        let p = places[v];
        let k = p.count_ones();
        if k > SUBSET_MAX || k >= value_count || k < 2 {
            continue;
        }
        let mut inside = 0u64;
        let mut count = 0;
        let mut ws = values;
        while ws != 0 {
            let w = ws.trailing_zeros() as usize;
            ws &= ws - 1;
            if places[w] & !p == 0 {
                inside |= 1 << w;
                count += 1;
            }
        }
        if count > k {
            return false;
        }
        if count == k {
            let mut cs = p;
            while cs != 0 {
                let j = cs.trailing_zeros() as usize;
                cs &= cs - 1;
                let c = cell(j);
                if doms[c] & !inside != 0 {
                    doms[c] &= inside;
                    changed(c);
                }
            }
        }
    }
    true
}
