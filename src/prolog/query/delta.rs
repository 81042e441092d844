//! A worker's state sent to its parent as what changed ([`StateDelta`]): the state after a
//! query (the text `kk_state_pieces/1` gives) is mostly the one before (at 20,000 facts, 330
//! kB, of which an `assertz/1` changes a few bytes): only the bytes that changed are sent.

use serde::{Deserialize, Serialize};

/// A state as the one sent before with the bytes between `prefix` and `suffix` from its end
/// replaced by `middle`. It applies only to the state it names: the worker numbers the states
/// it sends (`base`, then `number`), and the parent keeps the number of the one it holds (a
/// whole state is number 0, in an [`super::Item::End`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StateDelta {
    pub(crate) base: u64,
    pub(crate) number: u64,
    base_len: usize,
    prefix: usize,
    suffix: usize,
    middle: String,
}

impl StateDelta {
    /// `new` as what changed since `base`, the state numbered `number` - 1; `None` when that is
    /// not much shorter than `new` (it is sent whole then).
    pub(crate) fn between(base: &str, new: &str, number: u64) -> Option<StateDelta> {
        let (b, n) = (base.as_bytes(), new.as_bytes());
        let mut prefix = common(b.len().min(n.len()), |i, j| b[i..j] == n[i..j]);
        while !new.is_char_boundary(prefix) {
            prefix -= 1;
        }
        let most = b.len().min(n.len()) - prefix;
        let (bl, nl) = (b.len(), n.len());
        let mut suffix = common(most, |i, j| b[bl - j..bl - i] == n[nl - j..nl - i]);
        while !new.is_char_boundary(nl - suffix) || !base.is_char_boundary(bl - suffix) {
            suffix -= 1;
        }
        let middle = &new[prefix..nl - suffix];
        (middle.len() < nl / 2 && number > 0).then(|| StateDelta {
            base: number - 1,
            number,
            base_len: bl,
            prefix,
            suffix,
            middle: middle.to_string(),
        })
    }

    /// The state this makes of `base` (the state numbered [`StateDelta::base`]); `None` when it
    /// cannot be its base.
    pub(crate) fn apply(&self, base: &str) -> Option<String> {
        if base.len() != self.base_len
            || self.prefix.checked_add(self.suffix)? > base.len()
            || !base.is_char_boundary(self.prefix)
            || !base.is_char_boundary(base.len() - self.suffix)
        {
            return None;
        }
        let mut out = String::with_capacity(self.prefix + self.middle.len() + self.suffix);
        out.push_str(&base[..self.prefix]);
        out.push_str(&self.middle);
        out.push_str(&base[base.len() - self.suffix..]);
        Some(out)
    }
}

/// The length of the longest run `0..k` (at most `most`) for which `same(i, j)` holds of every
/// piece `i..j` of it: whole blocks compared at once (a `memcmp`), then byte by byte.
fn common(most: usize, same: impl Fn(usize, usize) -> bool) -> usize {
    const BLOCK: usize = 4096;
    let mut k = 0;
    while k + BLOCK <= most && same(k, k + BLOCK) {
        k += BLOCK;
    }
    while k < most && same(k, k + 1) {
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delta_makes_the_new_state_of_its_base() {
        let base = "kk_restore(([]),[(f(1)),(g(é))],([]))";
        for new in [
            "kk_restore(([]),[(f(1)),(g(é)),(h(2))],([]))",
            "kk_restore(([]),[(g(é))],([]))",
            "kk_restore(([]),[(f(1)),(g(è))],([]))",
            base,
        ] {
            let long_base = format!("{}{base}{}", "y".repeat(9000), "x".repeat(100));
            let long_new = format!("{}{new}{}", "y".repeat(9000), "x".repeat(100));
            let d = StateDelta::between(&long_base, &long_new, 7).expect("short");
            assert_eq!((d.base, d.number), (6, 7));
            assert_eq!(d.apply(&long_base).as_deref(), Some(long_new.as_str()));
            assert_eq!(d.apply(""), None);
        }
        // a change as long as the state is sent whole
        assert_eq!(StateDelta::between("abc", "xyz", 1), None);
    }

    #[test]
    fn a_forged_delta_is_refused_not_applied() {
        let base = "a".repeat(100);
        let mut d = StateDelta::between(&base, &format!("{base}b"), 1).unwrap();
        d.suffix = usize::MAX;
        assert_eq!(d.apply(&base), None);
        let d = StateDelta::between(&base, &format!("{base}b"), 1).unwrap();
        assert_eq!(d.apply(&"a".repeat(99)), None);
    }
}
