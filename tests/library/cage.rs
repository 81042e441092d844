//! The cage helper against brute force, and against kenken.pl's cage_combination/5.

use std::collections::BTreeSet;

use kenken::cage::combinations;
use kenken::prolog::{Query, Session};
use kenken::puzzle::{Cell, Op};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn brute(n: usize, op: Op, target: u64, cells: &[Cell], exclude: &[u32]) -> BTreeSet<Vec<u32>> {
    let mut out = BTreeSet::new();
    let k = cells.len();
    let mut vals = vec![1u32; k];
    loop {
        let ok_rows = (0..k).all(|i| {
            (0..i).all(|j| {
                vals[i] != vals[j] || (cells[i].row != cells[j].row && cells[i].col != cells[j].col)
            })
        });
        let v64: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
        if ok_rows && vals.iter().all(|v| !exclude.contains(v)) && op.holds(target, &v64) {
            let mut m = vals.clone();
            m.sort();
            out.insert(m);
        }
        let mut i = 0;
        while i < k && vals[i] == n as u32 {
            vals[i] = 1;
            i += 1;
        }
        if i == k {
            return out;
        }
        vals[i] += 1;
    }
}

fn arb_cage() -> impl Strategy<Value = (usize, Op, u64, Vec<Cell>, Vec<u32>)> {
    (2usize..=6)
        .prop_flat_map(|n| {
            (
                Just(n),
                prop_oneof![
                    Just(Op::Add),
                    Just(Op::Sub),
                    Just(Op::Mul),
                    Just(Op::Div),
                    Just(Op::Unknown)
                ],
                0u64..60,
                proptest::collection::btree_set((1..=n, 1..=n), 1..=4),
                proptest::collection::vec(1..=n as u32, 0..2),
            )
        })
        .prop_map(|(n, op, t, cells, ex)| {
            (
                n,
                op,
                t,
                cells.into_iter().map(|(r, c)| Cell::new(r, c)).collect(),
                ex,
            )
        })
}

proptest! {
    #[test]
    fn listed_exactly_the_placeable_multisets((n, op, t, cells, ex) in arb_cage()) {
        let got: BTreeSet<Vec<u32>> = combinations(n, op, t, &cells, &ex).unwrap().into_iter().collect();
        prop_assert_eq!(got, brute(n, op, t, &cells, &ex));
    }
}

#[test]
fn prolog_cage_combination_gives_the_same_lists() {
    let mut e = Session::new();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..40 {
        let (n, op, t, cells, _) = arb_cage().new_tree(&mut runner).unwrap().current();
        let squares: Vec<String> = cells
            .iter()
            .map(|c| format!("[{}|{}]", c.row, c.col))
            .collect();
        let goal = format!(
            "cage_combination({n}, '{}', {t}, [{}], Vs).",
            op.symbol(),
            squares.join(",")
        );
        let (answers, _) = e
            .query(&Query::new(&goal).max_answers(10_000))
            .unwrap()
            .collect_all()
            .unwrap();
        let prolog: Vec<String> = answers.into_iter().map(|a| a.text).collect();
        let rust: Vec<String> = combinations(n, op, t, &cells, &[])
            .unwrap()
            .iter()
            .map(|m| {
                format!(
                    "Vs = [{}]",
                    m.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                )
            })
            .collect();
        assert_eq!(prolog, rust, "{goal}");
    }
}
