//! The generator: puzzles with exactly one solution, connected cages, the operators asked for
//! and the difficulty asked for, the same for the same seed on every machine.
//!
//! Each attempt draws a random Latin square (row by row, each row a random perfect matching of
//! columns to the symbols they still lack), cuts it into connected cages (mostly dominoes, as
//! Keen does), picks each cage's operator, then grades the puzzle with [`crate::logic`]: the
//! attempt is kept only if the rules of the level asked for solve it and those of the level
//! below do not (which proves the solution unique; the native solver then counts to two to
//! confirm it). For `unreasonable`, the rules up to extreme must fail and the native solver
//! must find exactly one solution.

use std::time::Instant;

use crate::logic::{Deducer, Level, LogicError};
use crate::native::{Solver, Stop};
use crate::puzzle::{neighbours, Cage, Cell, Grid, Op, Puzzle, MAX_SIZE};
use crate::rng::Rng;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Side of the grid.
    pub size: usize,
    /// The grade every puzzle must have.
    pub difficulty: Level,
    /// The operators cages may use (among `+ - * /`); one-cell cages are `=`.
    pub ops: Vec<Op>,
    /// The most cells in a cage.
    pub max_cage: usize,
    /// Whether one-cell (`=`) cages may appear.
    pub singletons: bool,
}

impl Options {
    /// Every operator, cages of up to [`default_max_cage`] cells, no one-cell cages.
    pub fn new(size: usize, difficulty: Level) -> Options {
        Options {
            size,
            difficulty,
            ops: Op::ARITHMETIC.to_vec(),
            max_cage: default_max_cage(size),
            singletons: false,
        }
    }

    /// Checks the options; the message says what is wrong.
    pub fn check(&self) -> Result<(), GenerateError> {
        let bad = |m: String| Err(GenerateError::BadOptions(m));
        if self.size == 0 || self.size > MAX_SIZE {
            return bad(format!("size must be 1 to {MAX_SIZE}, not {}", self.size));
        }
        if self.ops.is_empty() || self.ops.iter().any(|op| !Op::ARITHMETIC.contains(op)) {
            return bad("--ops must be one or more of + - * /".into());
        }
        if self.max_cage == 0 || self.max_cage == 1 && !self.singletons && self.size > 1 {
            return bad("--max-cage must be at least 2 (or 1 with --singletons)".into());
        }
        if self.size == 2 && !self.singletons {
            return bad(
                "a 2x2 puzzle needs one-cell cages to have one solution: add --singletons".into(),
            );
        }
        let hardest = match self.size {
            1 | 2 => Level::Easy,
            3 => Level::Normal,
            _ => Level::Unreasonable,
        };
        if self.difficulty > hardest {
            return bad(format!(
                "a {0}x{0} puzzle cannot be {1}: the hardest possible is {hardest}",
                self.size, self.difficulty
            ));
        }
        Ok(())
    }
}

/// The default largest cage: 6 cells up to 9x9 (as in Keen), 5 above.
pub fn default_max_cage(size: usize) -> usize {
    if size <= 9 {
        6
    } else {
        5
    }
}

/// A generated puzzle with its solution, grade and seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle (no metadata).
    pub puzzle: Puzzle,
    /// Its only solution.
    pub solution: Grid,
    /// Its grade (the difficulty asked for).
    pub grade: Level,
    /// How often each rule was used in grading, indexed as [`crate::logic::Rule::ALL`] (for
    /// unreasonable puzzles, up to where the rules get stuck).
    pub counts: [usize; 9],
    /// The seed that makes this puzzle again ([`generate`] with it).
    pub seed: u64,
    /// How many attempts it took.
    pub attempts: u64,
}

/// Why generation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    /// The options cannot give a puzzle.
    #[error("{0}")]
    BadOptions(String),
    /// The time bound passed before a puzzle was found.
    #[error("time limit reached after {attempts} attempts")]
    Timeout {
        /// Attempts made.
        attempts: u64,
    },
    /// Grading failed unexpectedly.
    #[error(transparent)]
    Logic(#[from] LogicError),
}

/// The seed of puzzle `index` of a run seeded with `run`: `run` itself for the first, so that
/// generating one puzzle from any puzzle's seed makes that puzzle again.
pub fn puzzle_seed(run: u64, index: u64) -> u64 {
    if index == 0 {
        return run;
    }
    let mut z = run ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Generates one puzzle from `seed`; fails with [`GenerateError::Timeout`] at `deadline`.
pub fn generate(
    opts: &Options,
    seed: u64,
    deadline: Option<Instant>,
) -> Result<Generated, GenerateError> {
    opts.check()?;
    let mut rng = Rng::new(seed);
    let mut attempts = 0;
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(GenerateError::Timeout { attempts });
        }
        attempts += 1;
        match attempt(opts, &mut rng, deadline) {
            Ok(Some(mut g)) => {
                g.seed = seed;
                g.attempts = attempts;
                return Ok(g);
            }
            Ok(None) => {}
            Err(GenerateError::Logic(LogicError::Timeout) | GenerateError::Timeout { .. }) => {
                return Err(GenerateError::Timeout { attempts })
            }
            Err(e) => return Err(e),
        }
    }
}

/// Where a puzzle stands against the difficulty asked for.
enum Judged {
    /// It has the grade asked for (and one solution), with the rule counts.
    Right([usize; 9]),
    /// The rules below the level asked for solve it.
    TooEasy,
    /// The rules of the level asked for leave these cells open (or it has several solutions).
    TooHard(Vec<usize>),
}

/// Judges `puzzle` against `target`.
fn judge(
    puzzle: &Puzzle,
    target: Level,
    deadline: Option<Instant>,
) -> Result<Judged, GenerateError> {
    let mut deducer =
        Deducer::new(puzzle, target.min(Level::Extreme), None)?.with_deadline(deadline);
    let outcome = match deducer.run() {
        Ok(o) => o,
        Err(LogicError::Contradiction(_)) => return Ok(Judged::TooHard(Vec::new())),
        Err(e) => return Err(e.into()),
    };
    let open = || {
        deducer
            .candidates()
            .iter()
            .enumerate()
            .filter(|(_, d)| d.count_ones() > 1)
            .map(|(i, _)| i)
            .collect()
    };
    let hardest = outcome.hardest.unwrap_or(Level::Easy);
    Ok(match (outcome.solved, target) {
        (true, Level::Unreasonable) => Judged::TooEasy,
        (true, _) if hardest < target => Judged::TooEasy,
        (true, _) => Judged::Right(outcome.counts),
        (false, Level::Unreasonable) => {
            let solver = Solver::new(puzzle).map_err(LogicError::from)?;
            match solver.with_deadline(deadline).count(Some(2)) {
                (1, None) => Judged::Right(outcome.counts),
                (_, Some(Stop::Deadline)) => return Err(LogicError::Timeout.into()),
                _ => Judged::TooHard(open()),
            }
        }
        (false, _) => Judged::TooHard(open()),
    })
}

/// How many times one attempt may change a cage's operator to move towards the difficulty.
fn max_tweaks(n: usize) -> usize {
    2 * n
}

/// One attempt: a random puzzle, then up to [`max_tweaks`] operator changes that move it
/// towards the difficulty asked for (a cage with open cells gets its most telling operator when
/// the puzzle is too hard, a random cage its least telling one when too easy); `None` if it
/// does not get there.
fn attempt(
    opts: &Options,
    rng: &mut Rng,
    deadline: Option<Instant>,
) -> Result<Option<Generated>, GenerateError> {
    let n = opts.size;
    let square = latin_square(n, rng);
    let Some(groups) = partition(opts, rng) else {
        return Ok(None);
    };
    let mut cages = Vec::with_capacity(groups.len());
    for cells in &groups {
        let values: Vec<u64> = cells.iter().map(|&c| u64::from(square[c])).collect();
        let Some((op, target)) = choose_op(opts, &values, rng) else {
            return Ok(None);
        };
        let cells = cells
            .iter()
            .map(|&c| Cell::new(c / n + 1, c % n + 1))
            .collect();
        cages.push(Cage::new(op, target, cells));
    }
    let mut puzzle = Puzzle::new(n, cages);
    let mut tweaks = 0;
    let counts = loop {
        let judged = judge(&puzzle, opts.difficulty, deadline)?;
        let (easier, open) = match judged {
            Judged::Right(counts) => break counts,
            Judged::TooEasy => (false, Vec::new()),
            Judged::TooHard(open) => (true, open),
        };
        tweaks += 1;
        // Far from solved: change several cages at once.
        let changes = 1 + open.len() / (4 * n);
        let mut changed = false;
        for _ in 0..changes {
            changed |= tweak(opts, &mut puzzle, &groups, &square, easier, &open, rng);
        }
        if tweaks > max_tweaks(n) || !changed {
            return Ok(None);
        }
    };
    // The rules proved the solution unique; the native solver confirms it.
    let solver = Solver::new(&puzzle).map_err(LogicError::from)?;
    match solver.with_deadline(deadline).count(Some(2)) {
        (1, None) => {}
        (_, Some(Stop::Deadline)) => return Err(GenerateError::Timeout { attempts: 0 }),
        _ => return Ok(None),
    }
    Ok(Some(Generated {
        puzzle,
        solution: square.chunks(n).map(<[u32]>::to_vec).collect(),
        grade: opts.difficulty,
        counts,
        seed: 0,
        attempts: 0,
    }))
}

/// Changes one cage's operator: to the one leaving the fewest layouts (`easier`, among cages
/// with a cell in `open`) or the most; false when no cage can change.
fn tweak(
    opts: &Options,
    puzzle: &mut Puzzle,
    groups: &[Vec<usize>],
    square: &[u32],
    easier: bool,
    open: &[usize],
    rng: &mut Rng,
) -> bool {
    let n = opts.size;
    let mut order: Vec<usize> = (0..groups.len())
        .filter(|&k| (2..=3).contains(&groups[k].len()))
        .filter(|&k| !easier || open.is_empty() || groups[k].iter().any(|c| open.contains(c)))
        .collect();
    rng.shuffle(&mut order);
    let full = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    for k in order {
        let values: Vec<u64> = groups[k].iter().map(|&c| u64::from(square[c])).collect();
        let cage = &puzzle.cages[k];
        let scored: Vec<(usize, Op, u64)> = fitting_ops(opts, &values)
            .into_iter()
            .map(|(op, target, _)| {
                let mut layouts = 0;
                crate::native::for_each_cage_tuple(n, op, target, &cage.cells, full, |_| {
                    layouts += 1
                });
                (layouts, op, target)
            })
            .collect();
        let best = if easier {
            scored.iter().min_by_key(|s| s.0)
        } else {
            scored.iter().max_by_key(|s| s.0)
        };
        if let Some(&(_, op, target)) = best {
            if op != cage.op {
                puzzle.cages[k].op = op;
                puzzle.cages[k].target = target;
                return true;
            }
        }
    }
    false
}

/// A random Latin square (row-major values 1..=n): each row a random perfect matching of the
/// columns to the symbols they still lack, which always exists (Hall's theorem).
fn latin_square(n: usize, rng: &mut Rng) -> Vec<u32> {
    let mut grid = vec![0u32; n * n];
    // For each column, the symbols (0-based) it still lacks.
    let mut lacks = vec![(0..n).collect::<Vec<usize>>(); n];
    for r in 0..n {
        let mut sym_col: Vec<Option<usize>> = vec![None; n];
        let mut cols: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut cols);
        for col in lacks.iter_mut() {
            rng.shuffle(col);
        }
        for &c in &cols {
            let mut seen = vec![false; n];
            augment(c, &lacks, &mut sym_col, &mut seen);
        }
        for (s, c) in sym_col.iter().enumerate() {
            if let Some(c) = *c {
                grid[r * n + c] = s as u32 + 1;
                lacks[c].retain(|&x| x != s);
            }
        }
    }
    grid
}

/// Kuhn's augmenting path from column `c`.
fn augment(
    c: usize,
    lacks: &[Vec<usize>],
    sym_col: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for &s in &lacks[c] {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        if sym_col[s].is_none_or(|other| augment(other, lacks, sym_col, seen)) {
            sym_col[s] = Some(c);
            return true;
        }
    }
    false
}

/// Cuts the grid into connected cages of at most `max_cage` cells, as Keen does: dominoes
/// first (each free cell pairs with a free neighbour three times in four), then each lone cell
/// joins a neighbouring cage with room (or stays alone, half the time, with singletons
/// allowed). Cells are in reading order, cages ordered by their first cell; `None` when a lone
/// cell can join no cage.
fn partition(opts: &Options, rng: &mut Rng) -> Option<Vec<Vec<usize>>> {
    let n = opts.size;
    let cells = n * n;
    let max = opts.max_cage.min(cells);
    // A random rank for every cell: ties between neighbours go to the lowest.
    let mut rank: Vec<usize> = (0..cells).collect();
    rng.shuffle(&mut rank);
    let mut owner: Vec<usize> = (0..cells).collect();
    let mut members: Vec<Vec<usize>> = (0..cells).map(|c| vec![c]).collect();
    let lowest = |cands: &mut dyn Iterator<Item = usize>| cands.min_by_key(|&c| rank[c]);
    if max >= 2 {
        for c in 0..cells {
            if members[owner[c]].len() != 1 {
                continue;
            }
            let free = lowest(&mut neighbours(n, c).filter(|&x| members[owner[x]].len() == 1));
            if let Some(other) = free {
                if rng.chance(3, 4) {
                    members[c].push(other);
                    members[other].clear();
                    owner[other] = c;
                }
            }
        }
    }
    for c in 0..cells {
        if members[owner[c]].len() != 1 || opts.singletons && rng.chance(1, 2) || max < 2 {
            continue;
        }
        let host = lowest(
            &mut neighbours(n, c)
                .filter(|&x| owner[x] != owner[c] && members[owner[x]].len() < max),
        );
        match host {
            Some(h) => {
                let (from, to) = (owner[c], owner[h]);
                members[from].clear();
                members[to].push(c);
                owner[c] = to;
            }
            None if opts.singletons || n == 1 => {}
            None => return None,
        }
    }
    let mut cages: Vec<Vec<usize>> = members.into_iter().filter(|m| !m.is_empty()).collect();
    for c in &mut cages {
        c.sort_unstable();
    }
    cages.sort_unstable();
    Some(cages)
}

/// Relative odds of each operator where it fits: `+ - * /` on two cells, `+ *` on more.
fn op_weight(op: Op, cells: usize) -> u64 {
    match (op, cells) {
        (Op::Div, 2) => 6,
        (Op::Sub, 2) => 3,
        (Op::Add | Op::Mul, _) => 2,
        _ => 1,
    }
}

/// The allowed operators that `values` meet (one-cell cages aside), each with its target and
/// relative odds.
fn fitting_ops(opts: &Options, values: &[u64]) -> Vec<(Op, u64, u64)> {
    // `-` and `/` on three or more cells only when neither `+` nor `*` is allowed.
    let fallback = !opts.ops.iter().any(|o| matches!(o, Op::Add | Op::Mul));
    opts.ops
        .iter()
        .filter_map(|&op| {
            let target = op.apply(values)?;
            let plain = values.len() == 2 || matches!(op, Op::Add | Op::Mul);
            (plain || fallback).then(|| (op, target, op_weight(op, values.len())))
        })
        .collect()
}

/// An operator from the allowed ones that the values meet, and its target; `None` if none fits.
fn choose_op(opts: &Options, values: &[u64], rng: &mut Rng) -> Option<(Op, u64)> {
    if values.len() == 1 {
        return Some((Op::Given, values[0]));
    }
    let fitting = fitting_ops(opts, values);
    let total: u64 = fitting.iter().map(|f| f.2).sum();
    if total == 0 {
        return None;
    }
    let mut pick = rng.below(total);
    for &(op, target, w) in &fitting {
        if pick < w {
            return Some((op, target));
        }
        pick -= w;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_squares_are_latin() {
        let mut rng = Rng::new(7);
        for n in 1..=12 {
            let g = latin_square(n, &mut rng);
            for i in 0..n {
                let mut row: Vec<u32> = (0..n).map(|j| g[i * n + j]).collect();
                let mut col: Vec<u32> = (0..n).map(|j| g[j * n + i]).collect();
                row.sort_unstable();
                col.sort_unstable();
                let want: Vec<u32> = (1..=n as u32).collect();
                assert_eq!(row, want);
                assert_eq!(col, want);
            }
        }
    }

    #[test]
    fn seeds_of_a_run() {
        assert_eq!(puzzle_seed(42, 0), 42);
        assert_ne!(puzzle_seed(42, 1), puzzle_seed(42, 2));
    }
}
