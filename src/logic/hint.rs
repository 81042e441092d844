//! Hints: the deduction path from a partly filled grid to the solution, each step in words,
//! naming cells as the line notation does (`A1`) and cages by their clue and cells.

use std::time::Instant;

use super::board::{cell_name, digits, layouts, line_name, Board, Ctx};
use super::grade::flatten;
use super::{Deducer, Level, LogicError, Rule, Step};
use crate::puzzle::{Grid, Op, Puzzle};

/// A step with its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// The deduction.
    pub step: Step,
    /// The deduction in words: `C4 must be 3: ...` or `remove 5 from A1 and A2: ...`.
    pub text: String,
}

/// The deduction path for `puzzle`, whose only solution is `solution`, from the entries of
/// `start` (row-major, 0 for an empty cell; every entry must agree with the solution): at most
/// `limit` steps, easiest rule first, guessing only when no rule applies.
pub fn explain(
    puzzle: &Puzzle,
    solution: &Grid,
    start: &[u32],
    limit: Option<usize>,
    deadline: Option<Instant>,
) -> Result<Vec<Explained>, LogicError> {
    let n = puzzle.size;
    let flat = flatten(solution);
    if flat.len() != n * n || start.len() != n * n {
        return Err(LogicError::BadGrid(format!("a {n}x{n} grid is needed")));
    }
    let mut deducer =
        Deducer::new(puzzle, Level::Unreasonable, Some(flat.clone()))?.with_deadline(deadline);
    for (cell, &v) in start.iter().enumerate() {
        if v != 0 {
            if v != flat[cell] {
                return Err(LogicError::BadGrid(format!(
                    "{} = {v} contradicts the solution",
                    cell_name(n, cell)
                )));
            }
            deducer.enter(cell, v)?;
        }
    }
    let mut out = Vec::new();
    while limit.is_none_or(|l| out.len() < l) {
        let Some(step) = deducer.next_step()? else {
            break;
        };
        let text = describe(puzzle, &deducer.ctx, &deducer.board, &step);
        deducer.apply(&step);
        out.push(Explained { step, text });
    }
    Ok(out)
}

/// A list of names: `A1, A2 and B2`.
fn list(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        k => format!("{} and {}", items[..k - 1].join(", "), items[k - 1]),
    }
}

/// A set of digits: `{3, 8}`.
fn set(mask: u64) -> String {
    let ds: Vec<String> = digits(mask).map(|d| d.to_string()).collect();
    format!("{{{}}}", ds.join(", "))
}

/// `cage 24× over C4 D4`.
fn cage_name(puzzle: &Puzzle, k: usize) -> String {
    let cage = &puzzle.cages[k];
    let sym = match cage.op {
        Op::Add => "+",
        Op::Sub => "−",
        Op::Mul => "×",
        Op::Div => "÷",
        Op::Given | Op::Unknown if cage.cells.len() == 1 => "",
        Op::Given | Op::Unknown => "?",
    };
    let cells: Vec<String> = cage.cells.iter().map(|c| c.to_string()).collect();
    format!("cage {}{sym} over {}", cage.target, cells.join(" "))
}

/// What a step does, as a headline and a detail: `C4 must be 3` when it fixes cells (the
/// removals then in the detail), otherwise `remove 5 from A1 and A2; 3 from B1`.
fn effect(n: usize, board: &Board, step: &Step) -> (String, String) {
    if let Some((cell, v)) = step.place {
        return (format!("{} must be {v}", cell_name(n, cell)), String::new());
    }
    let mut groups: Vec<(u64, Vec<String>)> = Vec::new();
    for &(cell, mask) in &step.removals {
        match groups.iter_mut().find(|g| g.0 == mask) {
            Some(g) => g.1.push(cell_name(n, cell)),
            None => groups.push((mask, vec![cell_name(n, cell)])),
        }
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|(mask, cells)| {
            let ds: Vec<String> = digits(mask).map(|d| d.to_string()).collect();
            format!("{} from {}", list(ds), list(cells))
        })
        .collect();
    let removal = format!("remove {}", parts.join("; "));
    let forced: Vec<String> = step
        .removals
        .iter()
        .filter(|&&(cell, mask)| !board.placed[cell] && (board.dom[cell] & !mask).is_power_of_two())
        .map(|&(cell, mask)| {
            let v = (board.dom[cell] & !mask).trailing_zeros() + 1;
            format!("{} must be {v}", cell_name(n, cell))
        })
        .collect();
    if forced.is_empty() {
        (removal, String::new())
    } else {
        (list(forced), format!(" ({removal})"))
    }
}

/// The layouts of a cage under the candidates before the step (at most `max`; `None` if more).
fn cage_layouts(ctx: &Ctx, board: &Board, k: usize, max: usize) -> Option<Vec<Vec<u32>>> {
    let mut out = Vec::new();
    let mut budget = 1_000_000;
    let complete = layouts(ctx, &board.dom, &ctx.cages[k], &mut budget, &mut |vals| {
        out.push(vals.to_vec());
        true
    });
    (complete && out.len() <= max).then_some(out)
}

fn tuple(vals: &[u32]) -> String {
    let vs: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
    format!("({})", vs.join(", "))
}

/// Why a step holds, in words.
fn reason(puzzle: &Puzzle, ctx: &Ctx, board: &Board, step: &Step) -> String {
    let n = ctx.n;
    match step.rule {
        Rule::NakedSingle => "every other value is ruled out by its row, column or cage".into(),
        Rule::HiddenSingle => {
            let (_, v) = step.place.unwrap_or((0, 0));
            format!(
                "it is the only place left for {v} in {}",
                first_line(n, step)
            )
        }
        Rule::CageDigits => cage_digits(puzzle, ctx, board, step),
        Rule::CageLayouts => cage_layouts_text(puzzle, ctx, board, step),
        Rule::CageLine => format!(
            "every layout of {} puts {} in {}, inside the cage",
            cage_name(puzzle, step.cage.unwrap_or(0)),
            set(step.digits),
            first_line(n, step)
        ),
        Rule::LineSubset => line_subset(n, board, step),
        Rule::Fish => fish(ctx, board, step),
        Rule::ForcingChain => forcing_chain(n, board, step),
        Rule::Guess => {
            let (cell, v) = step.place.unwrap_or((0, 0));
            format!(
                "no rule applies, so try the candidates {} of {}: only {v} leads to the solution",
                set(step.digits),
                cell_name(n, cell)
            )
        }
    }
}

/// The name of the step's first line (`row 3`), or nothing.
fn first_line(n: usize, step: &Step) -> String {
    step.lines
        .first()
        .map_or(String::new(), |&l| line_name(n, l))
}

/// [`Rule::CageDigits`]: the digit sets the cage can use, when there are few, or else the
/// digits it can use at all.
fn cage_digits(puzzle: &Puzzle, ctx: &Ctx, board: &Board, step: &Step) -> String {
    let k = step.cage.unwrap_or(0);
    let sets = cage_layouts(ctx, board, k, usize::MAX).map(|ls| {
        let mut sets: Vec<Vec<u32>> = ls
            .into_iter()
            .map(|mut l| {
                l.sort_unstable();
                l
            })
            .collect();
        sets.sort();
        sets.dedup();
        sets
    });
    match sets {
        Some(sets) if sets.len() <= 6 => {
            let sets: Vec<String> = sets
                .iter()
                .map(|s| {
                    let vs: Vec<String> = s.iter().map(u32::to_string).collect();
                    format!("{{{}}}", vs.join(", "))
                })
                .collect();
            let which = if sets.len() == 1 {
                sets[0].clone()
            } else {
                format!("one of {}", sets.join(", "))
            };
            format!("{} needs {which}", cage_name(puzzle, k))
        }
        _ => format!(
            "{} can only use the digits {}",
            cage_name(puzzle, k),
            set(step.digits)
        ),
    }
}

/// [`Rule::CageLayouts`]: the cage's layouts that fit the candidates, when there are few.
fn cage_layouts_text(puzzle: &Puzzle, ctx: &Ctx, board: &Board, step: &Step) -> String {
    let k = step.cage.unwrap_or(0);
    match cage_layouts(ctx, board, k, 6) {
        Some(ls) => {
            let ls: Vec<String> = ls.iter().map(|l| tuple(l)).collect();
            format!(
                "{} can only be laid out as {} = {}",
                cage_name(puzzle, k),
                tuple_names(ctx.n, &ctx.cages[k].cells),
                ls.join(" or ")
            )
        }
        None => format!(
            "no layout of {} that fits the candidates puts those digits there",
            cage_name(puzzle, k)
        ),
    }
}

/// [`Rule::LineSubset`]: cells that hold only some digits (naked), or digits that go only in
/// some cells (hidden).
fn line_subset(n: usize, board: &Board, step: &Step) -> String {
    let line = first_line(n, step);
    let cells = list(step.cells.iter().map(|&c| cell_name(n, c)));
    let naked = step.cells.iter().all(|&c| board.dom[c] & !step.digits == 0);
    if naked {
        format!(
            "{cells} hold only {} between them, so no other cell of {line} can",
            set(step.digits)
        )
    } else {
        format!(
            "in {line}, {} can only go in {cells}, so those cells hold nothing else",
            set(step.digits)
        )
    }
}

/// [`Rule::Fish`]: the lines where the digit can go, and the crossing lines they cover.
fn fish(ctx: &Ctx, board: &Board, step: &Step) -> String {
    let n = ctx.n;
    let v = digits(step.digits).next().unwrap_or(0);
    let mut cover: Vec<usize> = step
        .lines
        .iter()
        .flat_map(|&l| ctx.lines[l].iter().copied())
        .filter(|&cell| board.dom[cell] & step.digits != 0)
        .map(|cell| {
            if step.lines[0] < n {
                n + cell % n
            } else {
                cell / n
            }
        })
        .collect();
    cover.sort_unstable();
    cover.dedup();
    format!(
        "in {}, {v} can only go in {}, so {v} is in those lines only there",
        list(step.lines.iter().map(|&l| line_name(n, l))),
        list(cover.iter().map(|&l| line_name(n, l)))
    )
}

/// [`Rule::ForcingChain`]: the chain of two-candidate cells, and the cell that sees both ends.
fn forcing_chain(n: usize, board: &Board, step: &Step) -> String {
    let a = digits(step.digits).next().unwrap_or(0);
    let mut chain = Vec::new();
    let mut prev = a;
    for &c in &step.cells {
        let v = digits(board.dom[c] & !(1u64 << prev.saturating_sub(1)))
            .next()
            .unwrap_or(0);
        chain.push(format!("{} = {v}", cell_name(n, c)));
        prev = v;
    }
    let name = |c: Option<&usize>| c.map_or(String::new(), |&c| cell_name(n, c));
    let (first, last) = (name(step.cells.first()), name(step.cells.last()));
    let target = name(step.removals.first().map(|r| &r.0));
    format!(
        "if {first} is not {a}, then {}; so {first} or {last} is {a}, and {target} sees both",
        chain.join(", ")
    )
}

/// `(C4, D4)`.
fn tuple_names(n: usize, cells: &[usize]) -> String {
    let names: Vec<String> = cells.iter().map(|&c| cell_name(n, c)).collect();
    format!("({})", names.join(", "))
}

/// A step in words: what it does, then why.
pub(crate) fn describe(puzzle: &Puzzle, ctx: &Ctx, board: &Board, step: &Step) -> String {
    let (headline, detail) = effect(ctx.n, board, step);
    format!("{headline}: {}{detail}", reason(puzzle, ctx, board, step))
}
