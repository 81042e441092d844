//! The grid drawn for a person: cage borders, each cage's clue in its first cell, and optionally
//! the digits of a solution. Box-drawing characters by default, plain ASCII on request.

use crate::puzzle::{Grid, Puzzle};

/// How to draw.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Use `+ - |` instead of box-drawing characters.
    pub ascii: bool,
}

/// The junction character joining the given arms (up, down, left, right).
fn junction(up: bool, down: bool, left: bool, right: bool, ascii: bool) -> char {
    if ascii {
        return match (up || down, left || right) {
            (false, false) => ' ',
            (true, false) if !(left || right) && (up && down) => '|',
            (false, true) if left && right => '-',
            _ => '+',
        };
    }
    match (up, down, left, right) {
        (false, false, false, false) => ' ',
        (true, true, false, false) => '│',
        (false, false, true, true) => '─',
        (false, true, false, true) => '┌',
        (false, true, true, false) => '┐',
        (true, false, false, true) => '└',
        (true, false, true, false) => '┘',
        (true, true, false, true) => '├',
        (true, true, true, false) => '┤',
        (false, true, true, true) => '┬',
        (true, false, true, true) => '┴',
        (true, true, true, true) => '┼',
        (true, false, false, false) => '╵',
        (false, true, false, false) => '╷',
        (false, false, true, false) => '╴',
        (false, false, false, true) => '╶',
    }
}

/// Draws `puzzle`, with the digits of `grid` when given. Cells outside every cage are drawn with
/// borders all around. The puzzle need not be valid; cells outside the grid are ignored.
pub fn render(puzzle: &Puzzle, grid: Option<&Grid>, style: Style) -> String {
    let texts: Option<Vec<Vec<String>>> = grid.map(|g| {
        g.iter()
            .map(|row| row.iter().map(u32::to_string).collect())
            .collect()
    });
    render_text(puzzle, texts.as_deref(), style)
}

/// Draws `puzzle` with `texts[r][c]` under each cell's clue (digits, or candidate lists).
pub fn render_text(puzzle: &Puzzle, texts: Option<&[Vec<String>]>, style: Style) -> String {
    let n = puzzle.size;
    if n == 0 {
        return String::new();
    }
    let mut owner = vec![usize::MAX; n * n];
    let mut label = vec![String::new(); n * n];
    for (k, cage) in puzzle.cages.iter().enumerate() {
        for c in &cage.cells {
            if (1..=n).contains(&c.row) && (1..=n).contains(&c.col) {
                owner[(c.row - 1) * n + c.col - 1] = k;
            }
        }
        if let Some(first) = cage.cells.iter().min() {
            if (1..=n).contains(&first.row) && (1..=n).contains(&first.col) {
                label[(first.row - 1) * n + first.col - 1] = cage.label();
            }
        }
    }
    let digit_w = n.to_string().len();
    // Every cell as wide as the widest clue or text, so that columns line up.
    let text_w = texts
        .into_iter()
        .flatten()
        .flatten()
        .map(|t| t.chars().count() + 1)
        .max()
        .unwrap_or(0);
    let w = label
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(text_w)
        .max(digit_w + 2)
        .max(3);
    let own = |r: isize, c: isize| -> Option<usize> {
        if r < 0 || c < 0 || r >= n as isize || c >= n as isize {
            None
        } else {
            let o = owner[r as usize * n + c as usize];
            // Cells in no cage each get a border of their own.
            Some(if o == usize::MAX {
                usize::MAX - 1 - (r as usize * n + c as usize)
            } else {
                o
            })
        }
    };
    // Wall between two cells (or a cell and the outside).
    let wall = |a: Option<usize>, b: Option<usize>| a != b;
    let (h, v) = if style.ascii {
        ('-', '|')
    } else {
        ('─', '│')
    };
    let mut out = String::new();
    // Ends the line begun at `start`, without trailing blanks.
    let end_line = |out: &mut String, start: usize| {
        let kept = start + out[start..].trim_end().len();
        out.truncate(kept);
        out.push('\n');
    };
    for r in 0..=n as isize {
        // Border line above row r.
        let start = out.len();
        for c in 0..=n as isize {
            let up = wall(own(r - 1, c - 1), own(r - 1, c));
            let down = wall(own(r, c - 1), own(r, c));
            let left = wall(own(r - 1, c - 1), own(r, c - 1));
            let right = wall(own(r - 1, c), own(r, c));
            out.push(junction(up, down, left, right, style.ascii));
            if c < n as isize {
                let ch = if right { h } else { ' ' };
                out.extend(std::iter::repeat_n(ch, w));
            }
        }
        end_line(&mut out, start);
        if r == n as isize {
            break;
        }
        // Two text lines per row: the clue, then the digit.
        for line in 0..2 {
            let start = out.len();
            for c in 0..=n as isize {
                out.push(if wall(own(r, c - 1), own(r, c)) {
                    v
                } else {
                    ' '
                });
                if c < n as isize {
                    let idx = r as usize * n + c as usize;
                    let text = if line == 0 {
                        format!("{:<w$}", label[idx])
                    } else {
                        let d = texts
                            .and_then(|g| g.get(r as usize)?.get(c as usize).cloned())
                            .unwrap_or_default();
                        format!("{d:^w$}")
                    };
                    out.push_str(&text);
                }
            }
            end_line(&mut out, start);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op};

    #[test]
    fn draws_cage_borders_and_digits() {
        let p = Puzzle::new(
            2,
            vec![
                Cage::new(Op::Add, 3, vec![Cell::new(1, 1), Cell::new(1, 2)]),
                Cage::new(Op::Given, 2, vec![Cell::new(2, 1)]),
                Cage::new(Op::Given, 1, vec![Cell::new(2, 2)]),
            ],
        );
        let g = vec![vec![1, 2], vec![2, 1]];
        let s = render(&p, Some(&g), Style { ascii: true });
        let expected = "\
+-------+
|3+     |
| 1   2 |
+---+---+
|2  |1  |
| 2 | 1 |
+---+---+
";
        assert_eq!(s, expected);
        let s = render(&p, None, Style::default());
        assert!(s.starts_with("┌───────┐\n│3+     │"), "{s}");
    }
}
