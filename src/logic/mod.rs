//! Solving as a person does: a ladder of deduction rules on pencil marks, from which come the
//! difficulty grade of a puzzle ([`grade()`](fn@grade)) and the explained steps of a hint ([`explain`]).
//!
//! The levels follow Keen (Simon Tatham's collection), whose solver grades by the techniques it
//! needs:
//!
//! | level | rules |
//! | --- | --- |
//! | easy | [`Rule::NakedSingle`], [`Rule::HiddenSingle`], [`Rule::CageDigits`] |
//! | normal | [`Rule::CageLayouts`] |
//! | hard | [`Rule::CageLine`], [`Rule::LineSubset`] |
//! | extreme | [`Rule::Fish`], [`Rule::ForcingChain`] |
//! | unreasonable | [`Rule::Guess`] |
//!
//! The deducer always applies the easiest rule that makes progress, so the hardest rule it
//! needed is the lowest level whose rules solve the puzzle: its grade.
//!
//! Cells are numbered row-major from 0 (`r * n + c` for 0-based row `r`, column `c`); a set of
//! digits is a bit mask (bit `v - 1` for digit `v`).

mod board;
mod grade;
mod hint;
mod rules;

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use serde::Serialize;

use crate::puzzle::{InvalidPuzzle, Puzzle};
use board::{Board, Ctx};

pub use grade::{grade, grade_at_most, Grade, Grading};
pub use hint::{explain, Explained};

/// A difficulty level, on Keen's five-level scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Singles and the digits a cage can hold at all.
    Easy,
    /// Which digits each cell of a cage can hold, from the cage's layouts.
    Normal,
    /// Digits a cage forces into part of a line; subsets within a line.
    Hard,
    /// One digit across several lines (fish); forcing chains.
    Extreme,
    /// Needs trial and error.
    Unreasonable,
}

impl Level {
    /// Every level, easiest first.
    pub const ALL: [Level; 5] = [
        Level::Easy,
        Level::Normal,
        Level::Hard,
        Level::Extreme,
        Level::Unreasonable,
    ];

    /// The level's name: `easy`, `normal`, `hard`, `extreme` or `unreasonable`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
            Level::Extreme => "extreme",
            Level::Unreasonable => "unreasonable",
        }
    }

    /// The letter Keen uses in its parameters (`e n h x u`).
    pub(crate) fn keen_letter(self) -> char {
        match self {
            Level::Easy => 'e',
            Level::Normal => 'n',
            Level::Hard => 'h',
            Level::Extreme => 'x',
            Level::Unreasonable => 'u',
        }
    }

    /// The level one step easier, if any.
    pub fn easier(self) -> Option<Level> {
        Level::ALL
            .iter()
            .position(|&l| l == self)
            .and_then(|i| i.checked_sub(1))
            .map(|i| Level::ALL[i])
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Level {
    type Err = String;
    /// Parses a name (`hard`) or Keen's letter (`h`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.to_ascii_lowercase();
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s || s.len() == 1 && s.starts_with(l.keen_letter()))
            .ok_or_else(|| {
                format!("unknown difficulty '{s}': use easy, normal, hard, extreme or unreasonable")
            })
    }
}

/// A deduction rule of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// A cell with one candidate left holds it.
    NakedSingle,
    /// A digit with one place left in a row or column goes there.
    HiddenSingle,
    /// A cage's cells hold only digits that appear in some combination of the cage.
    CageDigits,
    /// Each cell of a cage holds only the digits it takes in some layout of the cage.
    CageLayouts,
    /// A digit that every layout of a cage puts in one line leaves the rest of that line.
    CageLine,
    /// K cells of a line that hold only K digits between them (or K digits with only K places).
    LineSubset,
    /// One digit confined to the same K columns in K rows (or the reverse): X-wing and larger.
    Fish,
    /// A chain of two-candidate cells that forces a digit into one of its ends.
    ForcingChain,
    /// Trial and error: the value that leads to the solution.
    Guess,
}

impl Rule {
    /// Every rule, easiest first.
    pub const ALL: [Rule; 9] = [
        Rule::NakedSingle,
        Rule::HiddenSingle,
        Rule::CageDigits,
        Rule::CageLayouts,
        Rule::CageLine,
        Rule::LineSubset,
        Rule::Fish,
        Rule::ForcingChain,
        Rule::Guess,
    ];

    /// The level the rule belongs to.
    pub fn level(self) -> Level {
        match self {
            Rule::NakedSingle | Rule::HiddenSingle | Rule::CageDigits => Level::Easy,
            Rule::CageLayouts => Level::Normal,
            Rule::CageLine | Rule::LineSubset => Level::Hard,
            Rule::Fish | Rule::ForcingChain => Level::Extreme,
            Rule::Guess => Level::Unreasonable,
        }
    }

    /// The rule's name in reports: `naked_single`, `cage_layouts`, ...
    pub fn name(self) -> &'static str {
        match self {
            Rule::NakedSingle => "naked_single",
            Rule::HiddenSingle => "hidden_single",
            Rule::CageDigits => "cage_digits",
            Rule::CageLayouts => "cage_layouts",
            Rule::CageLine => "cage_line",
            Rule::LineSubset => "line_subset",
            Rule::Fish => "fish",
            Rule::ForcingChain => "forcing_chain",
            Rule::Guess => "guess",
        }
    }

    /// Position in [`Rule::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One deduction: what it removes (and places), and what it rests on, for explaining it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The rule applied.
    pub rule: Rule,
    /// A cell whose value is now known, and the value.
    pub place: Option<(usize, u32)>,
    /// Candidates removed: each cell with the mask of digits taken out of it.
    pub removals: Vec<(usize, u64)>,
    /// The cage the deduction rests on, if any (0-based).
    pub cage: Option<usize>,
    /// The lines it rests on: rows `0..n`, columns `n..2n`.
    pub lines: Vec<usize>,
    /// The cells it rests on (a subset, a chain).
    pub cells: Vec<usize>,
    /// The digits it rests on.
    pub digits: u64,
}

impl Step {
    fn new(rule: Rule) -> Step {
        Step {
            rule,
            place: None,
            removals: Vec::new(),
            cage: None,
            lines: Vec::new(),
            cells: Vec::new(),
            digits: 0,
        }
    }
}

/// Why deduction stopped short.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogicError {
    /// The puzzle does not validate.
    #[error(transparent)]
    Invalid(#[from] InvalidPuzzle),
    /// The candidates contradict each other: the puzzle (or the given entries) has no solution.
    #[error("contradiction: {0}")]
    Contradiction(String),
    /// The time bound passed.
    #[error("time limit reached")]
    Timeout,
    /// A grid of entries that does not fit the puzzle.
    #[error("bad grid: {0}")]
    BadGrid(String),
}

/// The outcome of [`Deducer::run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Whether every cell is known.
    pub solved: bool,
    /// The hardest level used (`None` when nothing was needed).
    pub hardest: Option<Level>,
    /// How often each rule was applied, indexed as [`Rule::ALL`].
    pub counts: [usize; 9],
}

/// The deduction engine: candidates for every cell, and the rules applied easiest first.
pub(crate) struct Deducer {
    ctx: Ctx,
    board: Board,
    max_level: Level,
    solution: Option<Vec<u32>>,
    deadline: Option<Instant>,
}

impl Deducer {
    /// A deducer for `puzzle` using rules up to `max_level`. [`Rule::Guess`] needs the solution
    /// (row-major values); without it, guessing is never done.
    pub(crate) fn new(
        puzzle: &Puzzle,
        max_level: Level,
        solution: Option<Vec<u32>>,
    ) -> Result<Deducer, LogicError> {
        puzzle.check()?;
        let ctx = Ctx::new(puzzle);
        let board = Board::new(puzzle.size);
        Ok(Deducer {
            ctx,
            board,
            max_level,
            solution,
            deadline: None,
        })
    }

    /// Stops [`Deducer::run`] with [`LogicError::Timeout`] at `deadline`.
    pub(crate) fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Each cell's candidates (row-major masks).
    pub(crate) fn candidates(&self) -> &[u64] {
        &self.board.dom
    }

    /// Whether every cell is placed.
    pub(crate) fn solved(&self) -> bool {
        self.board.placed.iter().all(|&p| p)
    }

    /// Places `value` (1-based) at `cell` as an entry of the player's, not as a deduction.
    pub(crate) fn enter(&mut self, cell: usize, value: u32) -> Result<(), LogicError> {
        let bit = 1u64 << (value - 1);
        if self.board.dom[cell] & bit == 0 {
            return Err(LogicError::Contradiction(format!(
                "{} cannot be {value}",
                board::cell_name(self.ctx.n, cell)
            )));
        }
        let step = rules::placement(&self.ctx, &self.board, Rule::NakedSingle, cell, value);
        self.board.apply(&step);
        Ok(())
    }

    /// The next deduction: the easiest rule (up to the level allowed) that makes progress.
    /// `Ok(None)` when the grid is solved or no allowed rule applies.
    pub(crate) fn next_step(&mut self) -> Result<Option<Step>, LogicError> {
        if self.solved() {
            return Ok(None);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(LogicError::Timeout);
        }
        let found = rules::find(&self.ctx, &mut self.board, self.max_level)
            .map_err(|c| LogicError::Contradiction(c.0))?;
        if found.is_some() || self.max_level < Level::Unreasonable {
            return Ok(found);
        }
        Ok(self
            .solution
            .as_ref()
            .and_then(|s| rules::guess(&self.ctx, &self.board, s)))
    }

    /// Applies a step found by [`Deducer::next_step`].
    pub(crate) fn apply(&mut self, step: &Step) {
        self.board.apply(step);
    }

    /// Applies the easiest rules until the grid is solved or no allowed rule applies.
    pub(crate) fn run(&mut self) -> Result<Outcome, LogicError> {
        let mut counts = [0; 9];
        let mut hardest = None;
        while let Some(step) = self.next_step()? {
            counts[step.rule.index()] += 1;
            hardest = hardest.max(Some(step.rule.level()));
            self.apply(&step);
        }
        Ok(Outcome {
            solved: self.solved(),
            hardest,
            counts,
        })
    }
}
