//! Grading: the lowest level whose rules solve a puzzle, after the native solver has said
//! whether it has exactly one solution.

use std::fmt;
use std::time::Instant;

use super::{Deducer, Level, LogicError, Rule};
use crate::native::Solver;
use crate::puzzle::{Grid, Puzzle};

/// A puzzle's grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grade {
    /// Exactly one solution, reached with the rules of this level at most.
    Graded(Level),
    /// More than one solution.
    Ambiguous,
    /// No solution.
    NoSolution,
}

impl Grade {
    /// The name in reports: a level's name, `ambiguous` or `no_solution`.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Graded(l) => l.name(),
            Grade::Ambiguous => "ambiguous",
            Grade::NoSolution => "no_solution",
        }
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The grade of a puzzle, the rules its solution path used, and its solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grading {
    /// The grade.
    pub verdict: Grade,
    /// How often each rule was applied on the path, indexed as [`Rule::ALL`] (all zero unless
    /// the puzzle has exactly one solution).
    pub counts: [usize; 9],
    /// The solution, when there is exactly one.
    pub solution: Option<Grid>,
}

impl Grading {
    /// `(rule, count)` for each rule used, easiest first.
    pub fn rules_used(&self) -> impl Iterator<Item = (Rule, usize)> + '_ {
        Rule::ALL
            .into_iter()
            .zip(self.counts)
            .filter(|&(_, c)| c > 0)
    }
}

/// The row-major values of a grid.
pub(crate) fn flatten(grid: &Grid) -> Vec<u32> {
    grid.iter().flatten().copied().collect()
}

/// Grades `puzzle`: the native solver counts its solutions up to two, then the rules solve it
/// easiest first (guessing, with the solution known, when nothing else applies).
pub fn grade(puzzle: &Puzzle, deadline: Option<Instant>) -> Result<Grading, LogicError> {
    let solver = Solver::new(puzzle)?.with_deadline(deadline);
    let found = solver.solve(Some(2));
    if found.timed_out {
        return Err(LogicError::Timeout);
    }
    let none = |verdict| Grading {
        verdict,
        counts: [0; 9],
        solution: None,
    };
    match found.grids.len() {
        0 => return Ok(none(Grade::NoSolution)),
        1 => {}
        _ => return Ok(none(Grade::Ambiguous)),
    }
    let solution = found.grids.into_iter().next().unwrap_or_default();
    let mut deducer = Deducer::new(puzzle, Level::Unreasonable, Some(flatten(&solution)))?
        .with_deadline(deadline);
    let outcome = deducer.run()?;
    Ok(Grading {
        verdict: Grade::Graded(outcome.hardest.unwrap_or(Level::Easy)),
        counts: outcome.counts,
        solution: Some(solution),
    })
}

/// The grade of `puzzle` if its rules up to `max` solve it (which proves it has one solution),
/// with the rule counts; `None` when they do not (it is harder, or not uniquely solvable).
/// Guessing is never used: with `max` unreasonable this is the same as extreme.
pub fn grade_at_most(
    puzzle: &Puzzle,
    max: Level,
    deadline: Option<Instant>,
) -> Result<Option<(Level, [usize; 9])>, LogicError> {
    let mut deducer = Deducer::new(puzzle, max.min(Level::Extreme), None)?.with_deadline(deadline);
    match deducer.run() {
        Ok(outcome) if outcome.solved => Ok(Some((
            outcome.hardest.unwrap_or(Level::Easy),
            outcome.counts,
        ))),
        Ok(_) | Err(LogicError::Contradiction(_)) => Ok(None),
        Err(e) => Err(e),
    }
}
