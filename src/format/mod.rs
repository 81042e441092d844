//! The notations a puzzle can be written in, each with a reader and a writer, and detection of
//! which notation a text is in.
//!
//! | notation | module | example |
//! | --- | --- | --- |
//! | the spec's Prolog terms | [`prolog`] | `kenken_testcase(2, [+(3, [[1\|1], [1\|2]]), ...]).` |
//! | the line notation of seed 003 | [`text`] | `# 4` then `? 3 A1 A2` |
//! | Keen game IDs | [`keen`] | `4:_a_b..,a5m6...` |
//! | JSON (one puzzle per line) | [`json`] | `{"size": 4, "cages": [...]}` |
//!
//! Readers normalise one-cell `+` and `*` cages to `=` (a given value): the three say the same.

use std::fmt;
use std::str::FromStr;

use crate::puzzle::{Cage, Grid, Op, Puzzle, MAX_SIZE};

pub mod json;
pub mod keen;
pub mod prolog;
pub mod text;

/// A notation for puzzles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// The spec's Prolog terms: `kenken_testcase(N, C).` facts, goals `kenken(N, C, T).` or a
    /// bare `N, C` pair.
    Prolog,
    /// The line notation of seed 003: `# N`, then `OP TARGET CELL...` lines.
    Text,
    /// Keen game IDs, one per line.
    Keen,
    /// JSON objects, one puzzle per line.
    Json,
}

impl Notation {
    /// All notations, in the order `detect` considers them.
    pub const ALL: [Notation; 4] = [
        Notation::Json,
        Notation::Keen,
        Notation::Text,
        Notation::Prolog,
    ];

    /// The notation's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Prolog => "prolog",
            Notation::Text => "text",
            Notation::Keen => "keen",
            Notation::Json => "json",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Notation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Notation::ALL
            .into_iter()
            .find(|n| n.name() == s)
            .ok_or_else(|| format!("unknown notation '{s}': use prolog, text, keen or json"))
    }
}

/// A text that could not be read, or a puzzle that a notation cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The text is not valid in the notation; `line` is 1-based.
    #[error("line {line}: {message} ({notation} notation)")]
    Syntax {
        /// The notation being read.
        notation: Notation,
        /// The 1-based line at fault.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The puzzle has something the notation cannot express.
    #[error("the {notation} notation cannot hold this puzzle: {message}")]
    Unsupported {
        /// The notation being written.
        notation: Notation,
        /// What it cannot hold.
        message: String,
    },
    /// The text holds no puzzle at all.
    #[error("no puzzle found in the input")]
    Empty,
    /// The text holds several puzzles where one was expected ([`Puzzle::from_str`]).
    #[error("{0} puzzles found in the input where one was expected")]
    Several(usize),
    /// The text reads as a puzzle that does not validate ([`Puzzle::from_str`]): every problem
    /// found, each naming its cage and cell.
    #[error(transparent)]
    Invalid(#[from] crate::puzzle::InvalidPuzzle),
}

impl FormatError {
    pub(crate) fn syntax(notation: Notation, line: usize, message: impl Into<String>) -> Self {
        FormatError::Syntax {
            notation,
            line,
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(notation: Notation, message: impl Into<String>) -> Self {
        FormatError::Unsupported {
            notation,
            message: message.into(),
        }
    }
}

/// Guesses the notation of `text` from its first meaningful line.
pub fn detect(text: &str) -> Notation {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('%'))
        .unwrap_or("");
    if first.starts_with('{') || first.starts_with('[') && first.contains('{') {
        Notation::Json
    } else if keen::looks_like_id(first) {
        Notation::Keen
    } else if first.starts_with('#') {
        Notation::Text
    } else {
        Notation::Prolog
    }
}

/// What a file says about a puzzle's answers, beside the puzzle (only the JSON notation has
/// fields for it): used by `check`, `bench` and the tests to check an engine's answers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expected {
    /// A known solution.
    pub solution: Option<Grid>,
    /// The number of solutions.
    pub count: Option<u64>,
    /// Some or all of the solutions.
    pub solutions: Option<Vec<Grid>>,
}

impl Expected {
    /// Whether the file says nothing about the answers.
    pub fn is_empty(&self) -> bool {
        self.solution.is_none() && self.count.is_none() && self.solutions.is_none()
    }
}

/// One puzzle of a file: the puzzle, what the file says about its answers, and the 1-based line
/// where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The puzzle.
    pub puzzle: Puzzle,
    /// The file's expectations about its answers.
    pub expected: Expected,
    /// The line where the puzzle starts in the file.
    pub line: usize,
}

impl Entry {
    /// An entry with no expectations.
    pub fn new(puzzle: Puzzle, line: usize) -> Entry {
        Entry {
            puzzle,
            expected: Expected::default(),
            line,
        }
    }
}

/// Reads every puzzle in `text`, written in `notation`, with the file's expectations and lines.
pub fn read_entries(text: &str, notation: Notation) -> Result<Vec<Entry>, FormatError> {
    read_each(text, notation).into_iter().collect()
}

/// Reads every puzzle in `text`, written in `notation`, each on its own: a puzzle that cannot
/// be read gives its error (naming its line) and the others are still read.
pub fn read_each(text: &str, notation: Notation) -> Vec<Result<Entry, FormatError>> {
    let entries = match notation {
        Notation::Prolog => prolog::read_each(text),
        Notation::Text => text::read_each(text),
        Notation::Keen => keen::read_each(text),
        Notation::Json => json::read_each(text),
    };
    if entries.is_empty() {
        return vec![Err(FormatError::Empty)];
    }
    entries
}

/// Reads every puzzle in `text`, written in `notation`.
pub fn read(text: &str, notation: Notation) -> Result<Vec<Puzzle>, FormatError> {
    Ok(read_entries(text, notation)?
        .into_iter()
        .map(|e| e.puzzle)
        .collect())
}

/// Reads every puzzle in `text`, detecting its notation.
pub fn read_auto(text: &str) -> Result<Vec<Puzzle>, FormatError> {
    read(text, detect(text))
}

impl FromStr for Puzzle {
    type Err = FormatError;

    /// The one puzzle in `text`, in any notation ([`read_auto`]), and only when it is valid
    /// ([`Puzzle::check`]): `"kenken(2, [+(3, [[1|1], [1|2]])], T).".parse::<Puzzle>()`.
    ///
    /// One story for every check: the notation's syntax (and sizes past
    /// [`crate::puzzle::MAX_SIZE`], refused as they are read) is a [`FormatError::Syntax`]
    /// naming the line; a grid of size 0, a square outside the grid, two cages on one square
    /// or a target no values can meet is a [`FormatError::Invalid`] naming the cage and the
    /// square. (The `format::read*` functions read the syntax only, and leave validation to
    /// [`Puzzle::validate`], so that a file's invalid puzzle can be reported beside the
    /// others.)
    fn from_str(text: &str) -> Result<Puzzle, FormatError> {
        let mut puzzles = read_auto(text)?;
        let puzzle = match puzzles.len() {
            1 => puzzles.remove(0),
            0 => return Err(FormatError::Empty),
            n => return Err(FormatError::Several(n)),
        };
        puzzle.check()?;
        Ok(puzzle)
    }
}

/// Writes `puzzles` in `notation`, one after the other.
pub fn write(puzzles: &[Puzzle], notation: Notation) -> Result<String, FormatError> {
    let entries: Vec<Entry> = puzzles.iter().map(|p| Entry::new(p.clone(), 0)).collect();
    write_entries(&entries, notation)
}

/// Writes `entries` in `notation`, one after the other; their expectations are kept where the
/// notation has fields for them (JSON).
pub fn write_entries(entries: &[Entry], notation: Notation) -> Result<String, FormatError> {
    let mut out = String::new();
    for e in entries {
        out.push_str(&match notation {
            Notation::Prolog => prolog::write(&e.puzzle)?,
            Notation::Text => text::write(&e.puzzle)?,
            Notation::Keen => keen::write(&e.puzzle)?,
            Notation::Json => json::write(&e.puzzle, &e.expected)?,
        });
    }
    Ok(out)
}

/// The comment line that names a puzzle in the notations without a name field (`prolog`,
/// `keen`): `% name: NAME`, among the comment lines just above the puzzle.
pub(crate) const NAME_COMMENT: &str = "% name: ";

/// The name given by a [`NAME_COMMENT`] in the comment lines just above 1-based line `line`.
pub(crate) fn name_above(lines: &[&str], line: usize) -> Option<String> {
    lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with('%'))
        .find_map(|l| l.strip_prefix(NAME_COMMENT.trim_end()))
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
}

/// The grid size a reader found, refused when it is above [`MAX_SIZE`] (so that nothing
/// allocates a grid of billions of cells); 0 reads (`kenken/3` answers it) and validation
/// says what is wrong with it.
pub(crate) fn checked_size(
    notation: Notation,
    line: usize,
    size: u64,
) -> Result<usize, FormatError> {
    match usize::try_from(size) {
        Ok(n) if n <= MAX_SIZE => Ok(n),
        _ => Err(FormatError::syntax(
            notation,
            line,
            format!("grid size {size} is above the maximum, {MAX_SIZE}"),
        )),
    }
}

/// A cage as readers build it: one-cell `+` and `*` cages become `=` cages.
pub(crate) fn normalized_cage(op: Op, target: u64, cells: Vec<crate::puzzle::Cell>) -> Cage {
    let op = match op {
        Op::Add | Op::Mul if cells.len() == 1 => Op::Given,
        op => op,
    };
    Cage::new(op, target, cells)
}

/// The same puzzle with its cages and their cells in reading order, for comparing puzzles that
/// notations may list in another order.
pub fn canonical(p: &Puzzle) -> Puzzle {
    let mut cages: Vec<Cage> = p
        .cages
        .iter()
        .map(|c| {
            let mut c = normalized_cage(c.op, c.target, c.cells.clone());
            c.cells.sort();
            c
        })
        .collect();
    cages.sort_by(|a, b| a.cells.first().cmp(&b.cells.first()));
    Puzzle::new(p.size, cages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_notation() {
        assert_eq!(detect("{\"size\": 1}"), Notation::Json);
        assert_eq!(detect("4:_a_b,a5"), Notation::Keen);
        assert_eq!(detect("9dx:abc,a5"), Notation::Keen);
        assert_eq!(detect("\n# 4\n? 3 A1 A2"), Notation::Text);
        assert_eq!(detect("kenken_testcase(1, [])."), Notation::Prolog);
        assert_eq!(detect("2, []"), Notation::Prolog);
    }

    #[test]
    fn a_puzzle_parses_from_one_text_only() {
        let p: Puzzle = "kenken(2, [+(3, [[1|1], [1|2]])], T).".parse().unwrap();
        assert_eq!((p.size, p.cages.len()), (2, 1));
        let two = "kenken_testcase(1, []).\nkenken_testcase(1, []).";
        assert_eq!(two.parse::<Puzzle>(), Err(FormatError::Several(2)));
        assert_eq!("".parse::<Puzzle>(), Err(FormatError::Empty));
        let bad = "kenken_testcase(2, [+(3, [[1|1])."
            .parse::<Puzzle>()
            .unwrap_err();
        assert!(bad.to_string().starts_with("line 1: "), "{bad}");
        let other = "foo(1, 2).".parse::<Puzzle>().unwrap_err().to_string();
        assert!(other.contains("the goal kenken(N, C, T)."), "{other}");
    }
}
