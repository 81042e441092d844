//! Why an answer is not a solution, in the words a student fixes it by: the first rule of the
//! puzzle it breaks (a row of `T` given in the goal, a value out of range, a row or a column
//! with a value twice, a cage in the spec's syntax with the values the answer puts in it).

use super::shrink::puzzle_of_goal;
use crate::format::prolog::cage_text;
use crate::puzzle::Grid;

/// The rows of `T` a goal gives (`T = [_,[3,4,2,1],_,_], kenken(...)`): `None` for a row left
/// a variable; empty when `T` is not given.
pub(super) fn given_rows(goal: &str) -> Vec<Option<Vec<u32>>> {
    let Some(rest) = goal.strip_prefix("T = [") else {
        return Vec::new();
    };
    let Some(end) = rest.find("], ") else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    let mut text = &rest[..end + 1];
    while !text.is_empty() {
        text = text.trim_start_matches(',');
        if let Some(after) = text.strip_prefix('_') {
            rows.push(None);
            text = after;
        } else if let Some(after) = text.strip_prefix('[') {
            let Some(close) = after.find(']') else {
                return Vec::new();
            };
            let values = after[..close]
                .split(',')
                .map(|v| v.trim().parse().ok())
                .collect::<Option<Vec<u32>>>();
            rows.push(values);
            text = &after[close + 1..];
        } else {
            break;
        }
    }
    rows
}

/// `[1,2,3]`.
fn list(values: &[u64]) -> String {
    let v: Vec<String> = values.iter().map(u64::to_string).collect();
    format!("[{}]", v.join(","))
}

/// The first rule of `goal`'s puzzle that `grid` (an N x N grid) breaks, in words: `row 2 is
/// not [3,4,2,1], which T was given`, `row 1 has 2 twice`, `cage -(1, [3|1], [3|2]) holds 4
/// and 4`; `None` when the goal cannot be read or the grid breaks nothing.
pub(super) fn why_not(goal: &str, grid: &Grid) -> Option<String> {
    let (_, puzzle) = puzzle_of_goal(goal)?;
    let n = puzzle.size;
    if grid.len() != n || grid.iter().any(|r| r.len() != n) {
        return Some(format!("not a {n}x{n} grid"));
    }
    for (r, given) in given_rows(goal).iter().enumerate() {
        if let (Some(given), Some(row)) = (given, grid.get(r)) {
            if given != row {
                let g: Vec<u64> = given.iter().map(|&v| u64::from(v)).collect();
                return Some(format!(
                    "row {} is not {}, which T was given",
                    r + 1,
                    list(&g)
                ));
            }
        }
    }
    // shape, values, rows and columns, as the puzzle's own check says them
    if let Some(p) = puzzle
        .bare()
        .grid_problems(grid)
        .into_iter()
        .find(|p| !p.starts_with("cage "))
    {
        return Some(p);
    }
    puzzle.cages.iter().find_map(|cage| {
        let values: Vec<u64> = cage
            .cells
            .iter()
            .map(|c| u64::from(grid[c.row - 1][c.col - 1]))
            .collect();
        (!cage.op.holds(cage.target, &values))
            .then(|| format!("cage {} holds {}", cage_text(cage), list(&values)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_rule_an_answer_breaks_is_named() {
        let goal = "kenken(2, [-(1, [1|1], [1|2]), +(3, [[2|1], [2|2]])], T)";
        assert_eq!(
            why_not(goal, &vec![vec![1, 1], vec![2, 2]]).as_deref(),
            Some("row 1 repeats 1")
        );
        assert_eq!(
            why_not(goal, &vec![vec![1, 2], vec![1, 2]]).as_deref(),
            Some("column 1 repeats 1")
        );
        assert!(why_not(goal, &vec![vec![1, 3], vec![3, 1]])
            .unwrap()
            .contains("holds 3, which is not in 1..2"));
        // a Latin square that breaks a cage: the cage, as the spec writes it, and its values
        let cage = "kenken(2, [-(0, [1|1], [1|2])], T)";
        assert_eq!(
            why_not(cage, &vec![vec![1, 2], vec![2, 1]]).as_deref(),
            Some("cage -(0, [1|1], [1|2]) holds [1,2]")
        );
        assert_eq!(
            why_not(cage, &vec![vec![1], vec![2]]).as_deref(),
            Some("not a 2x2 grid")
        );
        assert_eq!(
            why_not("kenken(2, [], T)", &vec![vec![1, 2], vec![2, 1]]),
            None
        );
        // plain_kenken/3's goals too, and rows of T given
        let given = "T = [_,[2,1]], plain_kenken(2, [], T)";
        assert_eq!(given_rows(given), vec![None, Some(vec![2, 1])]);
        assert_eq!(
            why_not(given, &vec![vec![2, 1], vec![1, 2]]).as_deref(),
            Some("row 2 is not [2,1], which T was given")
        );
        assert!(given_rows("kenken(2, [], T)").is_empty());
    }
}
