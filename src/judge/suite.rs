//! The cases a judged file is run on: the spec's examples as written, edge cases of the spec's
//! terms, random puzzles of every size, or the puzzles of a file; each with every expected
//! answer in the spec's order, from the native solver.

use crate::format::prolog::cage_text;
use crate::native::Solver;
use crate::prolog::Predicate;
use crate::puzzle::{Cage, Cell, Grid, Op, Puzzle};

/// The largest number of answers a case may expect (a puzzle with more is left out of a suite).
pub(super) const MAX_EXPECTED: usize = 1000;

/// The largest side `plain_kenken/3` is run on: plain enumeration of bigger grids may take
/// hours even when it is right.
pub(super) const PLAIN_MAX_SIZE: usize = 4;

/// One query the judged file answers: a goal binding `T`, and every answer it must give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// What the case is, for the report.
    pub name: String,
    /// The predicate under test.
    pub predicate: Predicate,
    /// The grid's side.
    pub size: usize,
    /// The goal, Prolog text without the final `.`, binding the variable `T`.
    pub goal: String,
    /// Every answer `T` must take, in the spec's order (row by row, lexicographic).
    pub expected: Vec<Grid>,
}

/// A puzzle and what to call it, before it is made into cases.
#[derive(Debug, Clone)]
pub(super) struct Item {
    /// What the case is, for the report.
    pub name: String,
    /// The puzzle.
    pub puzzle: Puzzle,
    /// Rows of `T` given in the query (`None`: a variable), as in the spec's "T may contain
    /// logical variables".
    pub given: Vec<Option<Vec<u32>>>,
}

impl Item {
    fn new(name: impl Into<String>, puzzle: Puzzle) -> Item {
        Item {
            name: name.into(),
            puzzle,
            given: Vec::new(),
        }
    }
}

/// The spec's 6x6 testcase.
fn spec_6x6() -> Puzzle {
    let c = Cell::new;
    let cages = vec![
        Cage::new(Op::Add, 11, vec![c(1, 1), c(2, 1)]),
        Cage::new(Op::Div, 2, vec![c(1, 2), c(1, 3)]),
        Cage::new(Op::Mul, 20, vec![c(1, 4), c(2, 4)]),
        Cage::new(Op::Mul, 6, vec![c(1, 5), c(1, 6), c(2, 6), c(3, 6)]),
        Cage::new(Op::Sub, 3, vec![c(2, 2), c(2, 3)]),
        Cage::new(Op::Div, 3, vec![c(2, 5), c(3, 5)]),
        Cage::new(Op::Mul, 240, vec![c(3, 1), c(3, 2), c(4, 1), c(4, 2)]),
        Cage::new(Op::Mul, 6, vec![c(3, 3), c(3, 4)]),
        Cage::new(Op::Mul, 6, vec![c(4, 3), c(5, 3)]),
        Cage::new(Op::Add, 7, vec![c(4, 4), c(5, 4), c(5, 5)]),
        Cage::new(Op::Mul, 30, vec![c(4, 5), c(4, 6)]),
        Cage::new(Op::Mul, 6, vec![c(5, 1), c(5, 2)]),
        Cage::new(Op::Add, 9, vec![c(5, 6), c(6, 6)]),
        Cage::new(Op::Add, 8, vec![c(6, 1), c(6, 2), c(6, 3)]),
        Cage::new(Op::Div, 2, vec![c(6, 4), c(6, 5)]),
    ];
    Puzzle::new(6, cages)
}

/// The spec's 4x4 example with six answers; `sub` is the difference of its two `-` cages (the
/// spec's is 1).
fn spec_4x4(sub: u64) -> Puzzle {
    let c = Cell::new;
    let cages = vec![
        Cage::new(Op::Add, 6, vec![c(1, 1), c(1, 2), c(2, 1)]),
        Cage::new(
            Op::Mul,
            96,
            vec![c(1, 3), c(1, 4), c(2, 2), c(2, 3), c(2, 4)],
        ),
        Cage::new(Op::Sub, sub, vec![c(3, 1), c(3, 2)]),
        Cage::new(Op::Sub, sub, vec![c(4, 1), c(4, 2)]),
        Cage::new(Op::Add, 8, vec![c(3, 3), c(4, 3), c(4, 4)]),
        Cage::new(Op::Mul, 2, vec![c(3, 4)]),
    ];
    Puzzle::new(4, cages)
}

/// The spec's examples, as the spec writes them.
pub(super) fn spec_items() -> Vec<Item> {
    let mut partly = Item::new("spec 4x4, T partly given", spec_4x4(1));
    partly.given = vec![None, Some(vec![3, 4, 2, 1]), None, None];
    vec![
        Item::new("spec: kenken(1, [], T)", Puzzle::new(1, Vec::new())),
        Item::new("spec: kenken(2, [], T)", Puzzle::new(2, Vec::new())),
        Item::new("spec: kenken(3, [], T)", Puzzle::new(3, Vec::new())),
        Item::new("spec: kenken(4, [], T)", Puzzle::new(4, Vec::new())),
        Item::new("spec 4x4 example (six answers)", spec_4x4(1)),
        partly,
        Item::new("spec 4x4 made unsatisfiable", spec_4x4(3)),
        Item::new("spec 6x6 testcase", spec_6x6()),
    ]
}

/// The edge case of squares listed in any order and a one-square `*`, with the sum `sum` over
/// three squares: 7 has no solution, 8 two.
fn any_order(sum: u64) -> Puzzle {
    let c = Cell::new;
    Puzzle::new(
        4,
        vec![
            Cage::new(Op::Sub, 3, vec![c(2, 1), c(1, 1)]),
            Cage::new(Op::Div, 2, vec![c(4, 4), c(3, 4)]),
            Cage::new(Op::Mul, 3, vec![c(2, 3)]),
            Cage::new(Op::Add, sum, vec![c(4, 2), c(3, 2), c(3, 3)]),
        ],
    )
}

/// A 4x4 whose cages may hold a digit twice (their squares are in different rows and columns):
/// an L-shaped `+` (its solutions need a digit twice), a quotient of 1 over a diagonal (where
/// integer division would also take 3 / 2 and 4 / 3), and a one-square `+`. It has 10
/// solutions.
fn repeats_allowed() -> Puzzle {
    let c = Cell::new;
    Puzzle::new(
        4,
        vec![
            Cage::new(Op::Add, 8, vec![c(1, 1), c(1, 2), c(2, 1)]),
            Cage::new(Op::Div, 1, vec![c(2, 3), c(3, 2)]),
            Cage::new(Op::Given, 1, vec![c(4, 4)]),
        ],
    )
}

/// Cases at the edges of the spec's terms: N = 0, a difference of 0 and a quotient of 1 (cells
/// in different rows and columns may be equal), squares listed in any order, one-square `*`,
/// and cages that catch the easy misreadings of the spec (see [`repeats_allowed`]): `/` as
/// integer division, every cage's digits distinct, a one-square `+` not checked, and a cage
/// not checked when `T` gives all its squares. (A `-` or `/` in one order only, and `[I|J]`
/// read as column and row, already fail the spec's 4x4 example and the squares in any
/// order.)
///
/// A puzzle with no solution passes a file that answers nothing at all; so each one here (as
/// the spec's unsatisfiable 4x4 in [`spec_items`]) comes with the same cages, one target
/// changed (or fewer rows given), that have solutions.
pub(super) fn edge_items() -> Vec<Item> {
    let c = Cell::new;
    let mut breaking = Item::new(
        "repeats allowed, T partly given breaking the + cage",
        repeats_allowed(),
    );
    // 1 + 2 + 4 is not 8; every other cage and the rows and columns could hold
    breaking.given = vec![Some(vec![1, 2, 4, 3]), Some(vec![4, 3, 1, 2]), None, None];
    vec![
        Item::new("N = 0", Puzzle::new(0, Vec::new())),
        Item::new(
            "difference 0, quotient 1",
            Puzzle::new(
                3,
                vec![
                    Cage::new(Op::Sub, 0, vec![c(1, 1), c(2, 2)]),
                    Cage::new(Op::Div, 1, vec![c(1, 2), c(2, 3)]),
                ],
            ),
        ),
        Item::new(
            "squares in any order, one-square *: no solution",
            any_order(7),
        ),
        Item::new(
            "squares in any order, one-square *: two solutions",
            any_order(8),
        ),
        Item::new(
            "repeats allowed: L-shaped +, quotient 1 on a diagonal, one-square +",
            repeats_allowed(),
        ),
        breaking,
    ]
}

/// The same puzzle with its one-square given cages (`+(V, [[I|J]])`) written as one-square
/// products (`*(V, [[I|J]])`): a distinct query with the same solutions.
fn one_square_products(p: &Puzzle) -> Puzzle {
    let cages = p
        .cages
        .iter()
        .map(|cage| match cage.op {
            Op::Given => Cage::new(Op::Mul, cage.target, cage.cells.clone()),
            _ => cage.clone(),
        })
        .collect();
    Puzzle::new(p.size, cages)
}

/// How many seeds are tried for each side before [`random_items`] gives up on finding two
/// distinct puzzles with at most [`MAX_EXPECTED`] answers (it never needs more than a few).
const RANDOM_TRIES: u64 = 200;

/// The seed of the `k`-th puzzle tried for side `n` in the run of `seed`: the same run seed
/// always tries the same puzzles, in the same order.
fn puzzle_seed(seed: u64, n: usize, k: u64) -> u64 {
    crate::rng::Rng::new(seed ^ ((n as u64) << 48) ^ k.rotate_left(24)).next_u64()
}

/// Random puzzles (uniform Latin squares cut into cages of one to four squares), two distinct
/// ones of each side from 1 to `max_size`, with at most [`MAX_EXPECTED`] answers each, made
/// from the run's `seed`: a fresh seed per run makes a suite that cannot be learnt by heart,
/// and the same seed makes the same puzzles again. Each side tries the puzzles of seeds
/// derived from the run's (see [`puzzle_seed`]) until two fit. Every seed makes the same 1x1
/// puzzle, `+(1, [[1|1]])`: a puzzle already taken is taken with its one-square cages written
/// as `*` (for 1x1, `*(1, [[1|1]])`), when that is new.
pub(super) fn random_items(max_size: usize, seed: u64) -> Vec<Item> {
    let mut items = Vec::new();
    for n in 1..=max_size {
        let mut taken: Vec<Puzzle> = Vec::new();
        for k in 0..RANDOM_TRIES {
            if taken.len() == 2 {
                break;
            }
            let (p, _) = crate::random::puzzle(n, puzzle_seed(seed, n, k));
            let mut name = format!("random {n}x{n} #{}", taken.len() + 1);
            let new = |q: &Puzzle| taken.iter().all(|t| t.cages != q.cages);
            let p = if new(&p) {
                p
            } else {
                let q = one_square_products(&p);
                if !new(&q) {
                    continue;
                }
                name.push_str(", one-square cages as *");
                q
            };
            if n > 1 && expected(&p).is_none() {
                continue;
            }
            items.push(Item::new(name, p.clone()));
            taken.push(p);
        }
    }
    items
}

/// Every solution of `p` in the spec's order; `None` when there are more than
/// [`MAX_EXPECTED`] or the puzzle is invalid.
pub(super) fn expected(p: &Puzzle) -> Option<Vec<Grid>> {
    if p.size == 0 {
        return p.cages.is_empty().then(|| vec![Vec::new()]);
    }
    let solutions = Solver::new(p).ok()?.solve(Some(MAX_EXPECTED + 1));
    if !solutions.complete || solutions.grids.len() > MAX_EXPECTED {
        return None;
    }
    let mut grids = solutions.grids;
    grids.sort();
    Some(grids)
}

/// The goal that asks `predicate` to solve `item`.
pub(super) fn goal(item: &Item, predicate: Predicate) -> String {
    let cages: Vec<String> = item.puzzle.cages.iter().map(cage_text).collect();
    let call = format!(
        "{}({}, [{}], T)",
        predicate.name(),
        item.puzzle.size,
        cages.join(", ")
    );
    if item.given.iter().all(Option::is_none) {
        return call;
    }
    let rows: Vec<String> = item
        .given
        .iter()
        .map(|r| match r {
            Some(r) => format!(
                "[{}]",
                r.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
            ),
            None => "_".into(),
        })
        .collect();
    format!("T = [{}], {call}", rows.join(","))
}

/// What the spec's own goals start with in their names (`spec: kenken(2, [], T)`).
const SPEC_GOAL: &str = "spec: kenken(";
/// The same, in the name of a `plain_kenken/3` case.
const SPEC_PLAIN_GOAL: &str = "spec: plain_kenken(";

/// The name of an item's case for `predicate`: a goal of the spec written with the predicate
/// it runs (`spec: plain_kenken(2, [], T)`), every other name as it is.
fn case_name(name: &str, predicate: Predicate) -> String {
    match (predicate, name.strip_prefix(SPEC_GOAL)) {
        (Predicate::Plain, Some(rest)) => format!("{SPEC_PLAIN_GOAL}{rest}"),
        _ => name.to_string(),
    }
}

/// The name of the item a case (of either predicate) was made from: the same for both
/// predicates' cases of a puzzle.
pub(crate) fn item_name(case: &str) -> std::borrow::Cow<'_, str> {
    match case.strip_prefix(SPEC_PLAIN_GOAL) {
        Some(rest) => format!("{SPEC_GOAL}{rest}").into(),
        None => case.into(),
    }
}

/// The cases of `items` for `predicates` (plain enumeration only up to [`PLAIN_MAX_SIZE`]),
/// smallest first for each predicate. Items whose answers cannot be listed are left out.
pub(super) fn cases(items: &[Item], predicates: &[Predicate]) -> Vec<Case> {
    let mut out = Vec::new();
    for &predicate in predicates {
        let mut these: Vec<Case> = items
            .iter()
            .filter(|i| predicate == Predicate::Fd || i.puzzle.size <= PLAIN_MAX_SIZE)
            .filter_map(|i| {
                let mut expected = expected(&i.puzzle)?;
                expected.retain(|g| {
                    i.given
                        .iter()
                        .zip(g)
                        .all(|(given, row)| given.as_ref().is_none_or(|r| r == row))
                });
                Some(Case {
                    name: case_name(&i.name, predicate),
                    predicate,
                    size: i.puzzle.size,
                    goal: goal(i, predicate),
                    expected,
                })
            })
            .collect();
        these.sort_by_key(|c| c.size);
        out.extend(these);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case<'a>(cases: &'a [Case], name: &str) -> &'a Case {
        cases.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn the_spec_examples_expect_what_the_spec_says() {
        let cases = cases(&spec_items(), &[Predicate::Fd]);
        let counts: Vec<usize> = (1..=4)
            .map(|n| {
                case(&cases, &format!("spec: kenken({n}, [], T)"))
                    .expected
                    .len()
            })
            .collect();
        assert_eq!(counts, vec![1, 2, 12, 576]);
        assert_eq!(
            case(&cases, "spec: kenken(2, [], T)").expected,
            vec![vec![vec![1, 2], vec![2, 1]], vec![vec![2, 1], vec![1, 2]]]
        );
        let six = &case(&cases, "spec 4x4 example (six answers)").expected;
        let text: Vec<String> = six.iter().map(|g| format!("{g:?}")).collect();
        assert_eq!(
            text.join("\n").replace(' ', ""),
            "[[1,2,3,4],[3,4,2,1],[4,3,1,2],[2,1,4,3]]\n\
             [[1,2,4,3],[3,4,2,1],[4,3,1,2],[2,1,3,4]]\n\
             [[2,1,3,4],[3,4,2,1],[4,3,1,2],[1,2,4,3]]\n\
             [[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]\n\
             [[3,1,2,4],[2,4,3,1],[4,3,1,2],[1,2,4,3]]\n\
             [[3,2,4,1],[1,4,2,3],[4,3,1,2],[2,1,3,4]]"
        );
        assert_eq!(
            case(&cases, "spec 6x6 testcase").expected,
            vec![vec![
                vec![5, 6, 3, 4, 1, 2],
                vec![6, 1, 4, 5, 2, 3],
                vec![4, 5, 2, 3, 6, 1],
                vec![3, 4, 1, 2, 5, 6],
                vec![2, 3, 6, 1, 4, 5],
                vec![1, 2, 5, 6, 3, 4],
            ]]
        );
        let partly = case(&cases, "spec 4x4, T partly given");
        assert_eq!(partly.expected, six[..4].to_vec());
        assert!(partly
            .goal
            .starts_with("T = [_,[3,4,2,1],_,_], kenken(4, ["));
        assert!(case(&cases, "spec 4x4 made unsatisfiable")
            .expected
            .is_empty());
    }

    #[test]
    fn goals_use_the_spec_terms() {
        let cases = cases(&spec_items(), &[Predicate::Plain]);
        assert_eq!(
            case(&cases, "spec 4x4 example (six answers)").goal,
            "plain_kenken(4, [+(6, [[1|1], [1|2], [2|1]]), *(96, [[1|3], [1|4], [2|2], [2|3], \
             [2|4]]), -(1, [3|1], [3|2]), -(1, [4|1], [4|2]), +(8, [[3|3], [4|3], [4|4]]), \
             *(2, [[3|4]])], T)"
        );
        // plain_kenken/3 is not asked for the 6x6
        assert!(cases.iter().all(|c| c.size <= PLAIN_MAX_SIZE));
        // the spec's goals are named with the predicate they run, and pair with kenken/3's
        let named: Vec<&str> = cases
            .iter()
            .filter(|c| c.name.starts_with("spec: "))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(
            named,
            [
                "spec: plain_kenken(1, [], T)",
                "spec: plain_kenken(2, [], T)",
                "spec: plain_kenken(3, [], T)",
                "spec: plain_kenken(4, [], T)"
            ]
        );
        assert_eq!(item_name(named[1]), "spec: kenken(2, [], T)");
        assert_eq!(item_name("spec 6x6 testcase"), "spec 6x6 testcase");
    }

    #[test]
    fn edge_cases_have_the_answers_a_brute_force_gives() {
        let cases = cases(&edge_items(), &[Predicate::Fd]);
        assert_eq!(case(&cases, "N = 0").expected, vec![Vec::<Vec<u32>>::new()]);
        // 3x3 Latin squares with T11 = T22 and T12 = T23, counted by brute force
        let n = (0..3u32.pow(9))
            .map(|k| {
                (0..3)
                    .map(|r| (0..3).map(|c| k / 3u32.pow(r * 3 + c) % 3 + 1).collect())
                    .collect::<Grid>()
            })
            .filter(|g| {
                (0..3).all(|i| {
                    let mut row: Vec<u32> = g[i].clone();
                    let mut col: Vec<u32> = (0..3).map(|r| g[r][i]).collect();
                    row.sort();
                    col.sort();
                    row == [1, 2, 3] && col == [1, 2, 3]
                })
            })
            .filter(|g| g[0][0] == g[1][1] && g[0][1] == g[1][2])
            .count();
        let zero = case(&cases, "difference 0, quotient 1");
        assert_eq!(zero.expected.len(), n);
        assert!(n > 1);
    }

    #[test]
    fn random_items_are_two_distinct_puzzles_of_every_size_made_from_the_run_seed() {
        for seed in [0, 0x2545_f491_4f6c_dd1d] {
            let items = random_items(9, seed);
            for n in 1..=9 {
                let these: Vec<&Item> = items.iter().filter(|i| i.puzzle.size == n).collect();
                assert_eq!(these.len(), 2, "{n}x{n}");
                let goals: Vec<String> = these.iter().map(|i| goal(i, Predicate::Fd)).collect();
                assert_ne!(goals[0], goals[1], "{n}x{n}");
                assert!(these[0].name.starts_with(&format!("random {n}x{n} #1")));
                assert!(these[1].name.starts_with(&format!("random {n}x{n} #2")));
                assert!(these.iter().all(|i| expected(&i.puzzle).is_some()));
            }
            let ones: Vec<String> = items
                .iter()
                .filter(|i| i.puzzle.size == 1)
                .map(|i| format!("{}: {}", i.name, goal(i, Predicate::Fd)))
                .collect();
            assert_eq!(
                ones,
                [
                    "random 1x1 #1: kenken(1, [+(1, [[1|1]])], T)",
                    "random 1x1 #2, one-square cages as *: kenken(1, [*(1, [[1|1]])], T)"
                ]
            );
        }
        // the same seed, the same puzzles; another seed, others
        let goals = |seed| -> Vec<String> {
            random_items(6, seed)
                .iter()
                .map(|i| goal(i, Predicate::Fd))
                .collect()
        };
        assert_eq!(goals(7), goals(7));
        assert_ne!(goals(7), goals(8));
    }

    /// Whether `a` and `b` have the same cages but for their targets.
    fn twins(a: &Puzzle, b: &Puzzle) -> bool {
        a.size == b.size
            && a.cages.len() == b.cages.len()
            && a.cages
                .iter()
                .zip(&b.cages)
                .all(|(x, y)| x.op == y.op && x.cells == y.cells)
    }

    #[test]
    fn answering_nothing_fails_beside_every_puzzle_without_a_solution() {
        use super::super::verdict::{judge, Run, RunEnd, Verdict};
        let nothing = Run {
            answers: Vec::new(),
            end: RunEnd::Complete,
            elapsed: std::time::Duration::ZERO,
        };
        let mut pairs = 0;
        for items in [spec_items(), edge_items()] {
            for predicate in [Predicate::Fd, Predicate::Plain] {
                let cases = cases(&items, &[predicate]);
                for unsat in cases.iter().filter(|c| c.expected.is_empty()) {
                    let puzzle = |c: &Case| {
                        let item = items.iter().find(|i| i.name == item_name(&c.name)).unwrap();
                        item.puzzle.clone()
                    };
                    let twin = cases
                        .iter()
                        .find(|c| !c.expected.is_empty() && twins(&puzzle(c), &puzzle(unsat)))
                        .unwrap_or_else(|| panic!("{} has no twin with solutions", unsat.name));
                    // answering nothing passes the one, and fails the other
                    assert_eq!(
                        judge(unsat, &nothing, crate::judge::Order::Strict).verdict,
                        Verdict::Pass
                    );
                    let report = judge(twin, &nothing, crate::judge::Order::Strict);
                    assert_eq!(report.verdict, Verdict::Wrong, "{}", twin.name);
                    assert!(report.detail.starts_with("0 of "), "{}", report.detail);
                    pairs += 1;
                }
            }
        }
        // the spec's unsatisfiable 4x4, the edge case of squares in any order and the given rows
        // breaking a cage, for both predicates
        assert_eq!(pairs, 6);
        let edge = cases(&edge_items(), &[Predicate::Fd]);
        assert_eq!(
            case(&edge, "squares in any order, one-square *: two solutions")
                .expected
                .len(),
            2
        );
    }

    /// The easy misreadings of the spec, as a wrong solution would check a cage.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Misreading {
        /// `/` with integer division: `A // B =:= Q` (either order).
        IntegerDivision,
        /// `-` as `A - B` only.
        SubOneOrder,
        /// `/` as `A / B` only.
        DivOneOrder,
        /// `[I|J]` read as column `I`, row `J`.
        ColumnRow,
        /// Every cage's digits distinct.
        CageDistinct,
        /// A `+` cage's digits distinct.
        SumDistinct,
        /// A one-square `+` not checked.
        OneSquareSum,
        /// A one-square `*` not checked.
        OneSquareProduct,
        /// A cage whose squares `T` gives all is not checked.
        GivenUnchecked,
    }

    /// Whether `g` meets `cage`, read with `wrong` (given rows: those `T` gives).
    fn holds(g: &Grid, cage: &Cage, wrong: Option<Misreading>, given: &[bool]) -> bool {
        use Misreading::*;
        let cells: Vec<(usize, usize)> = cage
            .cells
            .iter()
            .map(|c| match wrong {
                Some(ColumnRow) => (c.col, c.row),
                _ => (c.row, c.col),
            })
            .collect();
        if wrong == Some(GivenUnchecked) && cells.iter().all(|&(r, _)| given[r - 1]) {
            return true;
        }
        let v: Vec<u64> = cells.iter().map(|&(r, c)| g[r - 1][c - 1].into()).collect();
        let distinct = v.iter().all(|x| v.iter().filter(|y| *y == x).count() == 1);
        let t = cage.target;
        match cage.op {
            _ if wrong == Some(CageDistinct) && !distinct => false,
            Op::Add | Op::Given if wrong == Some(SumDistinct) && !distinct => false,
            Op::Add | Op::Given if v.len() == 1 && wrong == Some(OneSquareSum) => true,
            Op::Mul if v.len() == 1 && wrong == Some(OneSquareProduct) => true,
            Op::Add | Op::Given => v.iter().sum::<u64>() == t,
            Op::Mul => v.iter().product::<u64>() == t,
            Op::Sub if wrong == Some(SubOneOrder) => v[0] as i64 - v[1] as i64 == t as i64,
            Op::Sub => v[0].abs_diff(v[1]) == t,
            Op::Div if wrong == Some(DivOneOrder) => v[0] == t * v[1],
            Op::Div if wrong == Some(IntegerDivision) => v[0] / v[1] == t || v[1] / v[0] == t,
            Op::Div => v[0] == t * v[1] || v[1] == t * v[0],
            Op::Unknown => unreachable!(),
        }
    }

    /// Every N x N Latin square (N <= 4), by brute force.
    fn latin_squares(n: usize) -> Vec<Grid> {
        fn perms(rest: Vec<u32>) -> Vec<Vec<u32>> {
            if rest.is_empty() {
                return vec![Vec::new()];
            }
            let mut out = Vec::new();
            for (i, &x) in rest.iter().enumerate() {
                let mut r = rest.clone();
                r.remove(i);
                out.extend(perms(r).into_iter().map(|mut p| {
                    p.insert(0, x);
                    p
                }));
            }
            out
        }
        let rows = perms((1..=n as u32).collect());
        let mut squares: Vec<Grid> = vec![Vec::new()];
        for _ in 0..n {
            squares = squares
                .into_iter()
                .flat_map(|g| {
                    rows.iter()
                        .filter(|r| {
                            g.iter()
                                .all(|a| a.iter().zip(r.iter()).all(|(x, y)| x != y))
                        })
                        .map(|r| {
                            let mut h = g.clone();
                            h.push(r.clone());
                            h
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        squares
    }

    /// The answers of `item` read with `wrong`, in the spec's order.
    fn answers(item: &Item, squares: &[Grid], wrong: Option<Misreading>) -> Vec<Grid> {
        let n = item.puzzle.size;
        let given: Vec<bool> = (0..n)
            .map(|r| item.given.get(r).is_some_and(Option::is_some))
            .collect();
        squares
            .iter()
            .filter(|g| {
                item.given
                    .iter()
                    .zip(g.iter())
                    .all(|(given, row)| given.as_ref().is_none_or(|r| r == row))
            })
            .filter(|g| item.puzzle.cages.iter().all(|c| holds(g, c, wrong, &given)))
            .cloned()
            .collect()
    }

    #[test]
    fn every_easy_misreading_fails_a_case_plain_kenken_is_asked_too() {
        use Misreading::*;
        let mut items = spec_items();
        items.extend(edge_items());
        // (plain_kenken/3 runs up to 4x4: every misreading is caught there)
        items.retain(|i| (1..=PLAIN_MAX_SIZE).contains(&i.puzzle.size));
        let squares: Vec<Vec<Grid>> = (0..=PLAIN_MAX_SIZE).map(latin_squares).collect();
        assert_eq!(squares[4].len(), 576);
        let caught = |items: &[Item], wrong: Misreading| -> Vec<String> {
            items
                .iter()
                .filter(|i| {
                    let s = &squares[i.puzzle.size];
                    answers(i, s, Some(wrong)) != answers(i, s, None)
                })
                .map(|i| i.name.clone())
                .collect()
        };
        // the model reads the suite as the native solver does
        for i in &items {
            let mut right = expected(&i.puzzle).unwrap();
            right.retain(|g| {
                i.given
                    .iter()
                    .zip(g)
                    .all(|(a, r)| a.as_ref().is_none_or(|a| a == r))
            });
            assert_eq!(
                answers(i, &squares[i.puzzle.size], None),
                right,
                "{}",
                i.name
            );
        }
        let repeats = "repeats allowed: L-shaped +, quotient 1 on a diagonal, one-square +";
        for (wrong, case) in [
            (IntegerDivision, repeats),
            (SubOneOrder, "spec 4x4 example (six answers)"),
            (
                DivOneOrder,
                "squares in any order, one-square *: two solutions",
            ),
            (ColumnRow, "spec 4x4 example (six answers)"),
            (CageDistinct, "spec 4x4 example (six answers)"),
            (SumDistinct, repeats),
            (OneSquareSum, repeats),
            (
                OneSquareProduct,
                "squares in any order, one-square *: two solutions",
            ),
            (
                GivenUnchecked,
                "repeats allowed, T partly given breaking the + cage",
            ),
        ] {
            let caught = caught(&items, wrong);
            assert!(caught.iter().any(|c| c == case), "{wrong:?}: {caught:?}");
        }
        // before the new cases, three went through every case
        items.retain(|i| !i.name.starts_with("repeats allowed"));
        for wrong in [IntegerDivision, OneSquareSum, GivenUnchecked] {
            assert_eq!(caught(&items, wrong), Vec::<String>::new(), "{wrong:?}");
        }
    }
}
