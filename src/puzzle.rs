//! The puzzle model: a grid size, its cages, and validation with precise errors.
//!
//! Semantics: an N×N grid (N ≥ 1; `kenken/3` also answers N = 0 with `T = []`) whose rows and
//! columns each hold 1..N once, cut into cages. A cell belongs to at most one cage; a cell in no
//! cage is free (as in `kenken/3`), and `kenken check` warns about it. `+` and `*` take any number of cells; `-` and `/` take two or more (for three or more,
//! the largest value comes first and every other value is subtracted or divided in turn); `=` is a
//! single cell whose value is given; `?` is a cage whose operator is unknown (no-op KenKen).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Largest grid side the toolkit accepts.
pub const MAX_SIZE: usize = 64;

/// A square of the grid, 1-based: `row` 1 is the top row, `col` 1 the left column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// 1-based row, top to bottom.
    pub row: usize,
    /// 1-based column, left to right.
    pub col: usize,
}

impl Cell {
    /// A cell at 1-based `row` and `col`.
    pub fn new(row: usize, col: usize) -> Self {
        Cell { row, col }
    }

    /// The row's name in the line notation: `A`..`Z`, then `AA`, `AB`, ... (spreadsheet style).
    pub fn row_name(row: usize) -> String {
        let mut n = row;
        let mut out = Vec::new();
        while n > 0 {
            let rem = (n - 1) % 26;
            out.push(b'A' + rem as u8);
            n = (n - 1) / 26;
        }
        out.reverse();
        String::from_utf8(out).unwrap_or_default()
    }
}

impl fmt::Display for Cell {
    /// The line-notation name, e.g. `C1` for row 3, column 1 (width and alignment apply); a
    /// square outside every grid (row or column 0) in the spec's notation, `[0|1]`, since it
    /// has no such name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.row == 0 || self.col == 0 {
            return f.pad(&format!("[{}|{}]", self.row, self.col));
        }
        f.pad(&format!("{}{}", Cell::row_name(self.row), self.col))
    }
}

/// A cage's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Op {
    /// Sum of the cells.
    Add,
    /// Largest value minus all the others.
    Sub,
    /// Product of the cells.
    Mul,
    /// Largest value divided by all the others, exactly.
    Div,
    /// One cell whose value is given.
    Given,
    /// Unknown operator (no-op KenKen): any of `+ - * /` may hold.
    Unknown,
}

impl Op {
    /// The operator's symbol as used by the JSON and text notations: `+ - * / = ?`.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Given => "=",
            Op::Unknown => "?",
        }
    }

    /// Parses a symbol: `+ - * / = ?`, also `x X × ÷ − !`.
    pub fn from_symbol(s: &str) -> Option<Op> {
        Some(match s {
            "+" => Op::Add,
            "-" | "−" => Op::Sub,
            "*" | "x" | "X" | "×" => Op::Mul,
            "/" | "÷" => Op::Div,
            "=" | "!" => Op::Given,
            "?" => Op::Unknown,
            _ => return None,
        })
    }

    /// The four arithmetic operators, in the order the no-op solver tries them.
    pub const ARITHMETIC: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];

    /// Applies this arithmetic operator to the values of a cage; `None` when the values do not
    /// combine (a remainder in `/`, overflow) or the operator is `Given`/`Unknown`.
    ///
    /// For `-` and `/` the largest value comes first and each other value is taken from it in turn.
    pub fn apply(self, values: &[u64]) -> Option<u64> {
        let max = *values.iter().max()?;
        match self {
            Op::Add => values.iter().try_fold(0u64, |a, &v| a.checked_add(v)),
            Op::Mul => values.iter().try_fold(1u64, |a, &v| a.checked_mul(v)),
            Op::Sub => {
                let rest: u64 = values.iter().sum::<u64>() - max;
                max.checked_sub(rest)
            }
            Op::Div => {
                let rest = values
                    .iter()
                    .try_fold(1u64, |a, &v| a.checked_mul(v))?
                    .checked_div(max)?;
                (rest != 0 && max % rest == 0).then(|| max / rest)
            }
            Op::Given | Op::Unknown => None,
        }
    }

    /// Whether `values` meet `target` under this operator (`Unknown`: under any of `+ - * /`;
    /// `Given`: the single value equals the target).
    pub fn holds(self, target: u64, values: &[u64]) -> bool {
        match self {
            Op::Given => values.len() == 1 && values[0] == target,
            Op::Unknown => {
                if values.len() == 1 {
                    values[0] == target
                } else {
                    Op::ARITHMETIC.iter().any(|op| op.holds(target, values))
                }
            }
            Op::Sub | Op::Div if values.len() < 2 => false,
            _ => self.apply(values) == Some(target),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.symbol())
    }
}

/// A cage: an operator, a target and the cells it covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cage {
    /// The operator.
    pub op: Op,
    /// The value the operator must give.
    pub target: u64,
    /// The cells, in the order given.
    pub cells: Vec<Cell>,
}

impl Cage {
    /// A new cage.
    pub fn new(op: Op, target: u64, cells: Vec<Cell>) -> Self {
        Cage { op, target, cells }
    }

    /// How a person reads the cage's clue: `11+`, `2÷`-style but ASCII (`2/`), `3` for `=`, `7?`.
    pub fn label(&self) -> String {
        match self.op {
            Op::Given => self.target.to_string(),
            Op::Unknown if self.cells.len() == 1 => self.target.to_string(),
            op => format!("{}{}", self.target, op.symbol()),
        }
    }

    /// The cage named for messages: `cage 3 (11+ at A1 B1)` with a 1-based index.
    pub fn describe(&self, index: usize) -> String {
        CageName(self, index).to_string()
    }
}

/// Formats as [`Cage::describe`], only when used (validation names cages only in its messages).
struct CageName<'a>(&'a Cage, usize);

impl fmt::Display for CageName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = format!("cage {} ({} at", self.1 + 1, self.0.label());
        for c in &self.0.cells {
            text.push_str(&format!(" {c}"));
        }
        text.push(')');
        f.pad(&text)
    }
}

/// A filled grid: `rows[r][c]` is the value at row r+1, column c+1.
pub type Grid = Vec<Vec<u32>>;

/// A KenKen puzzle: its size, its cages and, when the source gave one, its name.
///
/// What a file says about a puzzle's answers (a known solution, a count) is not part of the
/// puzzle: it comes beside it, in [`crate::format::Entry`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Puzzle {
    /// Side length N of the grid.
    pub size: usize,
    /// The cages, in the order they were given.
    pub cages: Vec<Cage>,
    /// A name, when the source gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How bad a finding of [`Puzzle::validate`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The puzzle cannot be solved as written.
    Error,
    /// Allowed, but unusual (for example a cage whose cells do not touch).
    Warning,
}

/// One finding of [`Puzzle::validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// 0-based index of the cage at fault, if one is.
    pub cage: Option<usize>,
    /// What is wrong, naming the cage and cell.
    pub message: String,
}

impl Problem {
    fn error(cage: Option<usize>, message: String) -> Problem {
        Problem {
            severity: Severity::Error,
            cage,
            message,
        }
    }

    fn warning(cage: Option<usize>, message: String) -> Problem {
        Problem {
            severity: Severity::Warning,
            cage,
            message,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        f.pad(&format!("{tag}: {}", self.message))
    }
}

/// A puzzle that failed validation: every error found, each naming its cage and cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid puzzle:\n{}", .problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
pub struct InvalidPuzzle {
    /// Every error found.
    pub problems: Vec<Problem>,
}

impl Puzzle {
    /// A puzzle of side `size` with `cages` and no metadata.
    pub fn new(size: usize, cages: Vec<Cage>) -> Self {
        Puzzle {
            size,
            cages,
            ..Default::default()
        }
    }

    /// This puzzle with only its size and cages (the name dropped), for comparisons.
    pub fn bare(&self) -> Puzzle {
        Puzzle::new(self.size, self.cages.clone())
    }

    /// Every problem with the puzzle, errors first then warnings, each naming the cage and cell.
    pub fn validate(&self) -> Vec<Problem> {
        let n = self.size;
        if n == 0 || n > MAX_SIZE {
            return vec![Problem::error(
                None,
                format!("grid size {n} is out of range: it must be 1 to {MAX_SIZE}"),
            )];
        }
        let mut problems = Vec::new();
        // The cage owning each cell, row-major.
        let mut owner: Vec<Option<usize>> = vec![None; n * n];
        for (i, cage) in self.cages.iter().enumerate() {
            if cage.cells.is_empty() {
                problems.push(Problem::error(
                    Some(i),
                    format!("cage {} has no cells", i + 1),
                ));
                continue;
            }
            self.claim_cells(i, &mut owner, &mut problems);
            problems.extend(cage_shape_problem(cage, i, n));
        }
        problems.extend(free_cells_warning(&owner, n));
        for (i, cage) in self.cages.iter().enumerate() {
            if cage.cells.len() > 1 && !connected(&cage.cells) {
                problems.push(Problem::warning(
                    Some(i),
                    format!("{}: its cells are not connected", cage.describe(i)),
                ));
            }
        }
        problems.sort_by_key(|p| p.severity);
        problems
    }

    /// Marks cage `i`'s cells as its own in `owner` (row-major), with an error for each cell
    /// outside the grid, listed twice, or already another cage's.
    fn claim_cells(&self, i: usize, owner: &mut [Option<usize>], problems: &mut Vec<Problem>) {
        let n = self.size;
        let cage = &self.cages[i];
        let name = CageName(cage, i);
        for &cell in &cage.cells {
            if cell.row == 0 || cell.col == 0 || cell.row > n || cell.col > n {
                problems.push(Problem::error(
                    Some(i),
                    format!(
                        "{name}: cell {cell} [{}|{}] is outside the {n}x{n} grid",
                        cell.row, cell.col
                    ),
                ));
                continue;
            }
            let at = (cell.row - 1) * n + cell.col - 1;
            match owner[at] {
                Some(j) if j == i => problems.push(Problem::error(
                    Some(i),
                    format!("{name}: cell {cell} is listed twice"),
                )),
                Some(j) => problems.push(Problem::error(
                    Some(i),
                    format!(
                        "cell {cell} is in two cages: {} and {name}",
                        self.cages[j].describe(j)
                    ),
                )),
                None => owner[at] = Some(i),
            }
        }
    }

    /// `Ok` when [`Puzzle::validate`] finds no error (warnings are allowed).
    pub fn check(&self) -> Result<(), InvalidPuzzle> {
        let problems: Vec<Problem> = self
            .validate()
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(InvalidPuzzle { problems })
        }
    }

    /// Whether `grid` is a solution: a Latin square of this size meeting every cage.
    #[allow(clippy::needless_range_loop)]
    pub fn is_solution(&self, grid: &Grid) -> bool {
        let n = self.size;
        if grid.len() != n || grid.iter().any(|r| r.len() != n) {
            return false;
        }
        for i in 0..n {
            let mut row_seen = vec![false; n + 1];
            let mut col_seen = vec![false; n + 1];
            for j in 0..n {
                for (v, seen) in [(grid[i][j], &mut row_seen), (grid[j][i], &mut col_seen)] {
                    let v = v as usize;
                    if v == 0 || v > n || seen[v] {
                        return false;
                    }
                    seen[v] = true;
                }
            }
        }
        self.cages.iter().all(|cage| {
            let values: Vec<u64> = cage
                .cells
                .iter()
                .map(|c| grid[c.row - 1][c.col - 1] as u64)
                .collect();
            cage.op.holds(cage.target, &values)
        })
    }

    /// Why `grid` is not a solution, one line per problem, in the order a person checks: its
    /// shape, its values, rows, columns, then cages ("row 3 repeats 2", "cage 4 (7+ at B1 B2)
    /// is not met: 3 + 5 = 8"). Empty for a solution.
    pub fn grid_problems(&self, grid: &Grid) -> Vec<String> {
        let n = self.size;
        if grid.len() != n || grid.iter().any(|r| r.len() != n) {
            return vec![format!("the grid is not {n}x{n}")];
        }
        let mut out = Vec::new();
        for (r, row) in grid.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                if v == 0 || v as usize > n {
                    out.push(format!(
                        "{} holds {v}, which is not in 1..{n}",
                        Cell::new(r + 1, c + 1)
                    ));
                }
            }
        }
        for (what, columns) in [("row", false), ("column", true)] {
            for i in 0..n {
                let mut seen = vec![false; n + 1];
                for j in 0..n {
                    let (r, c) = if columns { (j, i) } else { (i, j) };
                    let v = grid[r][c] as usize;
                    if (1..=n).contains(&v) {
                        if seen[v] {
                            out.push(format!("{what} {} repeats {v}", i + 1));
                        }
                        seen[v] = true;
                    }
                }
            }
        }
        for (k, cage) in self.cages.iter().enumerate() {
            if cage
                .cells
                .iter()
                .any(|c| c.row == 0 || c.col == 0 || c.row > n || c.col > n)
            {
                continue;
            }
            let values: Vec<u64> = cage
                .cells
                .iter()
                .map(|c| u64::from(grid[c.row - 1][c.col - 1]))
                .collect();
            if !cage.op.holds(cage.target, &values) {
                let shown: Vec<String> = values.iter().map(u64::to_string).collect();
                out.push(format!(
                    "{} is not met by {}",
                    cage.describe(k),
                    shown.join(", ")
                ));
            }
        }
        out
    }

    /// For a no-op answer: for each cage, the operators under which `grid` meets it.
    pub fn operators_holding(&self, grid: &Grid) -> Vec<Vec<Op>> {
        self.cages
            .iter()
            .map(|cage| {
                let values: Vec<u64> = cage
                    .cells
                    .iter()
                    .map(|c| grid[c.row - 1][c.col - 1] as u64)
                    .collect();
                match cage.op {
                    Op::Unknown if values.len() > 1 => Op::ARITHMETIC
                        .into_iter()
                        .filter(|op| op.holds(cage.target, &values))
                        .collect(),
                    op => vec![op],
                }
            })
            .collect()
    }
}

/// The orthogonal neighbours of cell `i` (row-major) of an `n`×`n` grid.
pub(crate) fn neighbours(n: usize, i: usize) -> impl Iterator<Item = usize> {
    let (r, c) = (i / n, i % n);
    [
        (r > 0).then(|| i - n),
        (r + 1 < n).then(|| i + n),
        (c > 0).then(|| i - 1),
        (c + 1 < n).then(|| i + 1),
    ]
    .into_iter()
    .flatten()
}

/// The error, if any, in cage `i`'s operator for its number of cells and its target in a
/// grid of size `n`.
fn cage_shape_problem(cage: &Cage, i: usize, n: usize) -> Option<Problem> {
    let name = CageName(cage, i);
    let k = cage.cells.len();
    let message = match cage.op {
        Op::Given if k != 1 => {
            format!("{name}: a '=' cage holds exactly one cell, this one has {k}")
        }
        Op::Sub | Op::Div if k < 2 => {
            format!("{name}: a '{}' cage needs at least 2 cells", cage.op)
        }
        _ if target_reachable(cage.op, cage.target, k, n as u64) => return None,
        _ => format!(
            "{name}: no {k} values in 1..{n} make {} under '{}'",
            cage.target, cage.op
        ),
    };
    Some(Problem::error(Some(i), message))
}

/// A cell in no cage is free, as `kenken/3` reads it: only its row and column hold it. One
/// warning says so for all of them.
fn free_cells_warning(owner: &[Option<usize>], n: usize) -> Option<Problem> {
    let free: Vec<Cell> = (1..=n)
        .flat_map(|row| (1..=n).map(move |col| Cell::new(row, col)))
        .filter(|c| owner[(c.row - 1) * n + c.col - 1].is_none())
        .collect();
    let named = |c: &Cell| format!("{c} [{}|{}]", c.row, c.col);
    let message = match free.as_slice() {
        [] => return None,
        [cell] => format!(
            "cell {} is in no cage: it is free (any value its row and column allow)",
            named(cell)
        ),
        cells if cells.len() == n * n => format!(
            "no cell is in a cage: all {} cells are free (any value their row and column \
             allow)",
            n * n
        ),
        cells => {
            const SHOWN: usize = 8;
            let mut list: Vec<String> = cells.iter().take(SHOWN).map(named).collect();
            if cells.len() > SHOWN {
                list.push(format!("and {} more", cells.len() - SHOWN));
            }
            format!(
                "{} cells are in no cage ({}): they are free (any value their row and column \
                 allow)",
                cells.len(),
                list.join(", ")
            )
        }
    };
    Some(Problem::warning(None, message))
}

/// Whether `cells` form one orthogonally connected group.
fn connected(cells: &[Cell]) -> bool {
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(i) = stack.pop() {
        for (j, other) in cells.iter().enumerate() {
            let a = cells[i];
            if !seen[j] && a.row.abs_diff(other.row) + a.col.abs_diff(other.col) == 1 {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    seen.iter().all(|&s| s)
}

/// Whether some `k` values in 1..=n (repeats allowed) meet `target` under `op`.
///
/// Row and column distinctness is not taken into account here: this is the check a notation
/// can make without knowing the cage's shape.
pub fn target_reachable(op: Op, target: u64, k: usize, n: u64) -> bool {
    let k64 = k as u64;
    match op {
        Op::Given => k == 1 && (1..=n).contains(&target),
        Op::Add => k64
            .checked_mul(n)
            .is_some_and(|max| (k64..=max).contains(&target)),
        Op::Sub => k >= 2 && target <= n.saturating_sub(k64 - 1),
        Op::Mul => product_reachable(target, k, n, n),
        Op::Div => {
            k >= 2
                && target >= 1
                && (1..=n).any(|m| m % target == 0 && product_reachable(m / target, k - 1, m, n))
        }
        Op::Unknown => {
            if k == 1 {
                (1..=n).contains(&target)
            } else {
                Op::ARITHMETIC
                    .iter()
                    .any(|&o| target_reachable(o, target, k, n))
            }
        }
    }
}

/// Whether `target` is a product of exactly `k` factors, each in 1..=min(max, n).
fn product_reachable(target: u64, k: usize, max: u64, n: u64) -> bool {
    let max = max.min(n);
    if target == 0 || max == 0 {
        return false;
    }
    // Every prime factor must be at most `max`.
    let mut rest = target;
    for p in 2..=max {
        while rest.is_multiple_of(p) {
            rest /= p;
        }
    }
    rest == 1 && factors_within(target, k, max)
}

/// Can `target` be written as a product of at most `k` factors in 2..=max? (Ones pad the rest.)
fn factors_within(target: u64, k: usize, max: u64) -> bool {
    if target == 1 {
        return true;
    }
    if k == 0 || (k < 64 && max.checked_pow(k as u32).is_some_and(|m| m < target)) {
        return false;
    }
    (2..=max.min(target))
        .rev()
        .any(|f| target.is_multiple_of(f) && factors_within(target / f, k - 1, f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(r: usize, col: usize) -> Cell {
        Cell::new(r, col)
    }

    #[test]
    fn row_names_follow_spreadsheet_style() {
        assert_eq!(Cell::row_name(1), "A");
        assert_eq!(Cell::row_name(26), "Z");
        assert_eq!(Cell::row_name(27), "AA");
        assert_eq!(Cell::row_name(64), "BL");
        assert_eq!(c(3, 1).to_string(), "C1");
        // (row 0 has no name: it once printed as "1")
        assert_eq!(c(0, 1).to_string(), "[0|1]");
        assert_eq!(c(2, 0).to_string(), "[2|0]");
    }

    #[test]
    fn nary_semantics_follow_seed_001() {
        assert!(Op::Div.holds(1, &[2, 2, 1]));
        assert!(Op::Sub.holds(0, &[3, 1, 2]));
        assert!(Op::Sub.holds(2, &[5, 3]));
        assert!(Op::Sub.holds(2, &[3, 5]));
        assert!(!Op::Div.holds(2, &[3, 6, 2]));
        assert!(Op::Div.holds(3, &[6, 2]));
        assert!(!Op::Div.holds(2, &[5, 2]));
        assert!(Op::Unknown.holds(8, &[2, 4, 1]));
        assert!(!Op::Sub.holds(1, &[1]));
    }

    #[test]
    fn reachability() {
        assert!(target_reachable(Op::Mul, 240, 4, 6));
        assert!(!target_reachable(Op::Mul, 7, 2, 6));
        assert!(target_reachable(Op::Mul, 72, 4, 9));
        assert!(!target_reachable(Op::Add, 25, 2, 9));
        assert!(target_reachable(Op::Div, 1, 3, 4));
        assert!(!target_reachable(Op::Div, 5, 2, 4));
        assert!(target_reachable(Op::Sub, 0, 4, 6));
        assert!(!target_reachable(Op::Sub, 6, 2, 6));
        // 64 = 8*8 needs 2 factors of at most 8; 3 factors of at most 4.
        assert!(target_reachable(Op::Mul, 64, 3, 4));
        assert!(!target_reachable(Op::Mul, 64, 2, 4));
        assert!(target_reachable(Op::Mul, 36, 2, 6));
    }

    #[test]
    fn validation_names_each_cage_error() {
        // one error a cage, in the cages' order: shape and target for every kind of operator
        let p = Puzzle::new(
            3,
            vec![
                Cage::new(Op::Given, 4, vec![c(1, 1)]),
                Cage::new(Op::Sub, 2, vec![c(1, 2)]),
                Cage::new(Op::Div, 4, vec![c(1, 3), c(2, 3)]),
                Cage::new(Op::Sub, 3, vec![c(2, 1), c(2, 2)]),
                Cage::new(Op::Given, 1, vec![c(3, 1), c(3, 2)]),
                Cage::new(Op::Add, 2, vec![c(3, 3), c(3, 3)]),
                Cage::new(Op::Mul, 1, vec![c(4, 1)]),
                Cage::new(Op::Add, 3, vec![c(1, 1)]),
            ],
        );
        let errors: Vec<(Option<usize>, String)> = p
            .validate()
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| (p.cage, p.message))
            .collect();
        let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            messages,
            [
                "cage 1 (4 at A1): no 1 values in 1..3 make 4 under '='",
                "cage 2 (2- at A2): a '-' cage needs at least 2 cells",
                "cage 3 (4/ at A3 B3): no 2 values in 1..3 make 4 under '/'",
                "cage 4 (3- at B1 B2): no 2 values in 1..3 make 3 under '-'",
                "cage 5 (1 at C1 C2): a '=' cage holds exactly one cell, this one has 2",
                "cage 6 (2+ at C3 C3): cell C3 is listed twice",
                "cage 7 (1* at D1): cell D1 [4|1] is outside the 3x3 grid",
                "cell A1 is in two cages: cage 1 (4 at A1) and cage 8 (3+ at A1)",
            ]
        );
        let cages: Vec<usize> = errors.iter().filter_map(|(k, _)| *k).collect();
        assert_eq!(cages, [0, 1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn validation_names_the_missing_cell() {
        // Seed 003's example leaves C1 out: the cell is free, with a warning.
        let p = Puzzle::new(
            2,
            vec![Cage::new(Op::Add, 3, vec![c(1, 1), c(1, 2), c(2, 2)])],
        );
        let problems = p.validate();
        assert!(problems.iter().any(|p| p.severity == Severity::Warning
            && p.message
                .starts_with("cell B1 [2|1] is in no cage: it is free")));
    }

    #[test]
    fn free_cells_get_one_warning() {
        // the spec's own kenken(4, [], T): one warning, not sixteen
        let problems = Puzzle::new(5, Vec::new()).validate();
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].message,
            "no cell is in a cage: all 25 cells are free (any value their row and column allow)"
        );
        let p = Puzzle::new(
            3,
            vec![Cage::new(Op::Add, 6, vec![c(1, 1), c(1, 2), c(1, 3)])],
        );
        let problems = p.validate();
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].message,
            "6 cells are in no cage (B1 [2|1], B2 [2|2], B3 [2|3], C1 [3|1], C2 [3|2], C3 \
             [3|3]): they are free (any value their row and column allow)"
        );
    }

    #[test]
    fn display_honours_width_and_alignment() {
        assert_eq!(format!("[{:>4}]", c(3, 1)), "[  C1]");
        assert_eq!(format!("[{:<3}]", Op::Add), "[+  ]");
        assert_eq!(format!("[{:^5}]", Op::Mul), "[  *  ]");
        let warning = Puzzle::new(1, Vec::new()).validate().remove(0);
        assert_eq!(format!("{warning:.7}"), "warning");
    }
}
