//! The line notation of seed 003:
//!
//! ```text
//! # 4
//! ? 3 A1 A2
//! ! 3 B1
//! + 8 B2 B3 B4
//! ```
//!
//! A block starts with `# N` (optionally followed by a name); each further line is
//! `OP TARGET CELL...` with `OP` one of `+ - * / ! ?` (also `x`, `×`, `÷`, `=`). A cell is a row
//! name and a column number: `A1` is row 1, column 1; rows after `Z` are `AA`, `AB`, ...
//! Blank lines and lines starting with `%` are ignored.

use super::{checked_size, normalized_cage, Entry, FormatError, Notation};
use crate::puzzle::{Cage, Cell, Op, Puzzle};

/// Parses a cell name such as `C12` (row 3, column 12).
pub fn parse_cell(s: &str) -> Option<Cell> {
    let split = s.find(|c: char| !c.is_ascii_alphabetic())?;
    let (letters, digits) = s.split_at(split);
    if letters.is_empty() || letters.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let row = letters
        .bytes()
        .map(|b| (b.to_ascii_uppercase() - b'A') as usize + 1)
        .fold(0, |acc, d| acc * 26 + d);
    let col = digits.parse().ok()?;
    Some(Cell::new(row, col))
}

fn syntax(line: usize, message: impl Into<String>) -> FormatError {
    FormatError::syntax(Notation::Text, line, message)
}

/// Reads every `# N` block in `text`.
pub fn read(text: &str) -> Result<Vec<Entry>, FormatError> {
    read_each(text).into_iter().collect()
}

/// Reads every `# N` block in `text`, each on its own: a bad line spoils its block only.
pub fn read_each(text: &str) -> Vec<Result<Entry, FormatError>> {
    let mut out: Vec<Result<Entry, FormatError>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('%') {
            continue;
        }
        if let Some(rest) = l.strip_prefix('#') {
            out.push(header(rest, line).map(|p| Entry::new(p, line)));
            continue;
        }
        match out.last_mut() {
            None => out.push(Err(syntax(line, "a cage line comes before any '# N' line"))),
            Some(last) => match (last.as_mut(), cage_line(l, line)) {
                (Ok(entry), Ok(cage)) => entry.puzzle.cages.push(cage),
                (Ok(_), Err(e)) => *last = Err(e),
                // The block is already bad: its first error stands.
                (Err(_), _) => {}
            },
        }
    }
    out
}

/// The puzzle begun by a `# N [name]` line (`rest` follows the `#`).
fn header(rest: &str, line: usize) -> Result<Puzzle, FormatError> {
    let mut words = rest.split_whitespace();
    let size = words
        .next()
        .ok_or_else(|| syntax(line, "'#' must be followed by the grid size"))?;
    let size: u64 = size
        .parse()
        .map_err(|_| syntax(line, format!("grid size '{size}' is not a number")))?;
    let size = checked_size(Notation::Text, line, size)?;
    let name: Vec<&str> = words.collect();
    let mut p = Puzzle::new(size, Vec::new());
    if !name.is_empty() {
        p.name = Some(name.join(" "));
    }
    Ok(p)
}

/// One `OP TARGET CELL...` line.
fn cage_line(l: &str, line: usize) -> Result<Cage, FormatError> {
    let mut words = l.split_whitespace();
    let op_word = words.next().unwrap_or_default();
    let op = Op::from_symbol(op_word).ok_or_else(|| {
        syntax(
            line,
            format!("unknown operator '{op_word}' (use + - * / ! ?)"),
        )
    })?;
    let target_word = words
        .next()
        .ok_or_else(|| syntax(line, "missing target after the operator"))?;
    let target: u64 = target_word.parse().map_err(|_| {
        syntax(
            line,
            format!("target '{target_word}' is not a nonnegative integer that fits in 64 bits"),
        )
    })?;
    let cells = words
        .map(|w| parse_cell(w).ok_or_else(|| syntax(line, format!("'{w}' is not a cell like A1"))))
        .collect::<Result<Vec<_>, _>>()?;
    if cells.is_empty() {
        return Err(syntax(line, "a cage needs at least one cell"));
    }
    Ok(normalized_cage(op, target, cells))
}

/// Writes `p` as a `# N` block.
pub fn write(p: &Puzzle) -> Result<String, FormatError> {
    let mut s = format!("# {}", p.size);
    if let Some(name) = &p.name {
        s.push(' ');
        s.push_str(&name.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    s.push('\n');
    for cage in &p.cages {
        let op = if cage.op == Op::Given {
            "!"
        } else {
            cage.op.symbol()
        };
        s.push_str(&format!("{op} {}", cage.target));
        for c in &cage.cells {
            s.push_str(&format!(" {c}"));
        }
        s.push('\n');
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED_003: &str =
        "# 4\n? 3 A1 A2\n? 5 A3 A4\n! 3 B1\n? 8 B2 B3 B4\n? 2 C2 C3\n? 7 C4 D4\n? 6 D1 D2 D3\n";

    #[test]
    fn reads_seed_003() {
        let p = &read(SEED_003).unwrap()[0].puzzle;
        assert_eq!(p.size, 4);
        assert_eq!(p.cages.len(), 7);
        assert_eq!(p.cages[2].op, Op::Given);
        assert_eq!(p.cages[6].cells[2], Cell::new(4, 3));
        assert_eq!(write(p).unwrap(), SEED_003);
    }

    #[test]
    fn cells_beyond_z() {
        assert_eq!(parse_cell("AA10"), Some(Cell::new(27, 10)));
        assert_eq!(parse_cell("b2"), Some(Cell::new(2, 2)));
        assert_eq!(parse_cell("12"), None);
        assert_eq!(parse_cell("A"), None);
        assert_eq!(parse_cell("A1x"), None);
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("# 4\n+ 3 A1 A2\n% c\n+ x A3").unwrap_err().to_string();
        assert!(e.starts_with("line 4: target 'x'"), "{e}");
        let e = read("+ 3 A1").unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = read("# 4\n& 3 A1").unwrap_err().to_string();
        assert!(e.contains("'&'"), "{e}");
    }
}
