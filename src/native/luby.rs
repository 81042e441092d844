//! Luby's sequence: how long each restart of a search may run (in units of failures), for the
//! search of `search.rs` and the learning search of `learn/`, which both restart by it.

/// The `i`-th term (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...
pub(super) fn luby(mut i: u64) -> u64 {
    loop {
        let mut k = 1u32;
        while k < 63 && (1u64 << k) - 1 < i {
            k += 1;
        }
        if (1u64 << k) - 1 == i || k == 63 {
            return 1u64 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::luby;

    #[test]
    fn luby_sequence() {
        let terms: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
