//! Keen game IDs (Simon Tatham's Portable Puzzle Collection): `PARAMS:DESC`, one per line.
//!
//! `PARAMS` is `N`, optionally `d` + a difficulty letter and `m` (multiplication only).
//! `DESC = BLOCKS "," CLUES`. `BLOCKS` walks the 2N(N-1) internal edges (first the vertical edges
//! between horizontally adjacent cells in reading order, then the horizontal edges between
//! vertically adjacent cells column by column), then a virtual final edge; before each edge it gives
//! the number of non-edges since the previous one (`_` = 0, `a`..`y` = 1..25, `z` = 25 with no edge
//! after), a letter followed by digits meaning the letter repeated. `CLUES` gives one clue per cage,
//! cages ordered by their first cell in reading order: `a` (+), `m` (×), `s` (−), `d` (÷) and the
//! target.
//!
//! Keen has no `?` cages and only two-cell `-` and `/`; a `=` cage is written as a one-cell `a`.

use super::{canonical, name_above, normalized_cage, Entry, FormatError, Notation, NAME_COMMENT};
use crate::puzzle::{Cage, Cell, Op, Puzzle, MAX_SIZE};

/// Whether `line` starts like a Keen ID: digits, optional `d?` and `m`, then `:`.
pub(crate) fn looks_like_id(line: &str) -> bool {
    let Some((params, _)) = line.split_once(':') else {
        return false;
    };
    parse_params(params).is_some()
}

fn parse_params(params: &str) -> Option<usize> {
    let digits = params.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let size = params[..digits].parse().ok()?;
    let rest = &params[digits..];
    let rest = match rest.strip_prefix('d') {
        Some(r) => {
            let mut cs = r.chars();
            match cs.next() {
                Some('e' | 'n' | 'h' | 'x' | 'u') => cs.as_str(),
                _ => return None,
            }
        }
        None => rest,
    };
    matches!(rest, "" | "m").then_some(size)
}

/// The two cells on either side of internal edge `pos` of an `n`×`n` grid (0-based `(row, col)`).
fn edge_cells(pos: usize, n: usize) -> ((usize, usize), (usize, usize)) {
    if pos < n * (n - 1) {
        let (y, x) = (pos / (n - 1), pos % (n - 1));
        ((y, x), (y, x + 1))
    } else {
        let (x, y) = (pos / (n - 1) - n, pos % (n - 1));
        ((y, x), (y + 1, x))
    }
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Reads one Keen ID; `line` is used in error messages.
pub fn read_id(id: &str, line: usize) -> Result<Puzzle, FormatError> {
    let err = |m: String| FormatError::syntax(Notation::Keen, line, m);
    let (params, desc) = id
        .split_once(':')
        .ok_or_else(|| err("a Keen ID is PARAMS:DESC".into()))?;
    let n = parse_params(params).ok_or_else(|| err(format!("bad parameters '{params}'")))?;
    if n == 0 || n > MAX_SIZE {
        return Err(err(format!("grid size {n} is out of range 1..{MAX_SIZE}")));
    }
    let (blocks, clues) = desc
        .split_once(',')
        .ok_or_else(|| err("the description needs BLOCKS,CLUES".into()))?;
    let mut parent = read_blocks(blocks, n).map_err(err)?;
    // Cages in reading order of their first cell.
    let mut cage_of = vec![usize::MAX; n * n];
    let mut cells: Vec<Vec<Cell>> = Vec::new();
    for idx in 0..n * n {
        let root = find(&mut parent, idx);
        if cage_of[root] == usize::MAX {
            cage_of[root] = cells.len();
            cells.push(Vec::new());
        }
        cells[cage_of[root]].push(Cell::new(idx / n + 1, idx % n + 1));
    }
    let cages = read_clues(clues, cells).map_err(err)?;
    Ok(Puzzle::new(n, cages))
}

/// The cells an `n`x`n` block structure joins, as a union-find forest (see [`block_text`]: a
/// letter joins that many edges, `_` none, each then a cage's end but after `z`; a number after
/// either repeats it). Else what is wrong with it.
fn read_blocks(blocks: &str, n: usize) -> Result<Vec<usize>, String> {
    let edges = 2 * n * (n - 1);
    let mut parent: Vec<usize> = (0..n * n).collect();
    let mut pos = 0usize;
    let b = blocks.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        let run = match c {
            b'_' => 0,
            b'a'..=b'z' => (c - b'a' + 1).min(25) as usize,
            _ => {
                return Err(format!(
                    "invalid character '{}' in the block structure",
                    c as char
                ))
            }
        };
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let repeat: usize = if i > start {
            blocks[start..i]
                .parse()
                .map_err(|_| "repeat count too large in the block structure".to_string())?
        } else {
            1
        };
        for _ in 0..repeat {
            for _ in 0..run {
                if pos >= edges {
                    return Err("too much data in the block structure".into());
                }
                let ((r0, c0), (r1, c1)) = edge_cells(pos, n);
                let (a, b2) = (
                    find(&mut parent, r0 * n + c0),
                    find(&mut parent, r1 * n + c1),
                );
                parent[a] = b2;
                pos += 1;
            }
            if c != b'z' {
                pos += 1;
                if pos > edges + 1 {
                    return Err("too much data in the block structure".into());
                }
            }
        }
    }
    if pos != edges + 1 {
        return Err("not enough data in the block structure".into());
    }
    Ok(parent)
}

/// The cages of `cells` (each cage's cells, in the clues' order) with the clues: an operator
/// letter and a target each, nothing after. Else what is wrong with them.
fn read_clues(clues: &str, cells: Vec<Vec<Cell>>) -> Result<Vec<Cage>, String> {
    let cb = clues.as_bytes();
    let mut j = 0;
    let mut cages = Vec::with_capacity(cells.len());
    for (k, cage_cells) in cells.into_iter().enumerate() {
        let op = match cb.get(j) {
            Some(b'a') => Op::Add,
            Some(b'm') => Op::Mul,
            Some(b's') => Op::Sub,
            Some(b'd') => Op::Div,
            Some(&c) => {
                return Err(format!(
                    "clue {}: unknown operator letter '{}'",
                    k + 1,
                    c as char
                ))
            }
            None => return Err(format!("clue {} is missing", k + 1)),
        };
        j += 1;
        let start = j;
        while j < cb.len() && cb[j].is_ascii_digit() {
            j += 1;
        }
        let target = clues[start..j]
            .parse()
            .map_err(|_| format!("clue {}: missing or too large target", k + 1))?;
        cages.push(normalized_cage(op, target, cage_cells));
    }
    if j != cb.len() {
        return Err(format!(
            "unexpected text after the last clue: '{}'",
            &clues[j..]
        ));
    }
    Ok(cages)
}

/// Reads one Keen ID per non-blank line.
pub fn read(text: &str) -> Result<Vec<Entry>, FormatError> {
    read_each(text).into_iter().collect()
}

/// Reads every Keen ID in `text`, each on its own.
pub fn read_each(text: &str) -> Vec<Result<Entry, FormatError>> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('%'))
        .map(|(i, l)| {
            let mut p = read_id(l.trim(), i + 1)?;
            p.name = name_above(&lines, i + 1);
            Ok(Entry::new(p, i + 1))
        })
        .collect()
}

/// Writes `p` as a Keen ID line (`N:DESC`).
pub fn write(p: &Puzzle) -> Result<String, FormatError> {
    let n = p.size;
    if n == 0 || n > MAX_SIZE {
        return Err(unsupported(format!("grid size {n}")));
    }
    let canon = canonical(p);
    let owner = owners(&canon)?;
    let (blocks, mut parent) = block_text(&owner, n);
    // Each cage must be one connected block.
    for (k, cage) in canon.cages.iter().enumerate() {
        let first = (cage.cells[0].row - 1) * n + cage.cells[0].col - 1;
        let root = find(&mut parent, first);
        if cage
            .cells
            .iter()
            .any(|c| find(&mut parent, (c.row - 1) * n + c.col - 1) != root)
        {
            return Err(unsupported(format!(
                "{}: its cells are not connected",
                cage.describe(k)
            )));
        }
    }
    let mut clues = String::new();
    for cage in &canon.cages {
        let letter = match cage.op {
            Op::Add | Op::Given => 'a',
            Op::Mul => 'm',
            Op::Sub => 's',
            Op::Div => 'd',
            Op::Unknown => unreachable!("rejected by owners"),
        };
        clues.push(letter);
        clues.push_str(&cage.target.to_string());
    }
    let name = p.name.as_ref().map_or_else(String::new, |name| {
        format!("{NAME_COMMENT}{}\n", name.replace(['\n', '\r'], " "))
    });
    Ok(format!("{name}{n}:{blocks},{clues}\n"))
}

/// The error for a puzzle Keen's notation cannot say.
fn unsupported(message: String) -> FormatError {
    FormatError::unsupported(Notation::Keen, message)
}

/// The cage of each cell (row-major) of a canonical puzzle Keen can say: every cage with an
/// operator and cells Keen allows it, every cell in the grid and in a cage.
fn owners(canon: &Puzzle) -> Result<Vec<usize>, FormatError> {
    let n = canon.size;
    let mut owner = vec![usize::MAX; n * n];
    for (k, cage) in canon.cages.iter().enumerate() {
        let refused = match cage.op {
            Op::Unknown => Some(" has no operator ('?')"),
            Op::Given if cage.cells.len() != 1 => Some(": a '=' cage holds one cell"),
            Op::Sub | Op::Div if cage.cells.len() != 2 => {
                Some(": Keen's '-' and '/' take exactly 2 cells")
            }
            _ => None,
        };
        if let Some(why) = refused {
            return Err(unsupported(format!("{}{why}", cage.describe(k))));
        }
        for c in &cage.cells {
            if c.row == 0 || c.col == 0 || c.row > n || c.col > n {
                return Err(unsupported(format!(
                    "{}: cell {c} is outside the grid",
                    cage.describe(k)
                )));
            }
            owner[(c.row - 1) * n + c.col - 1] = k;
        }
    }
    match owner.iter().position(|&o| o == usize::MAX) {
        Some(idx) => Err(unsupported(format!(
            "cell {} is in no cage",
            Cell::new(idx / n + 1, idx % n + 1)
        ))),
        None => Ok(owner),
    }
}

/// Keen's block structure for the cages `owner` gives each cell: for every edge between two
/// cells in reading order, `_` where a cage ends or the number of edges inside cages before
/// it as a letter (`a` = 1 ... `z` = 25, runs over 25 as `z`s). Also the union-find forest
/// of the cells joined inside cages (to check each cage is one block).
fn block_text(owner: &[usize], n: usize) -> (String, Vec<usize>) {
    let mut blocks = String::new();
    let mut run = 0usize;
    let edges = 2 * n * (n - 1);
    let mut parent: Vec<usize> = (0..n * n).collect();
    for pos in 0..=edges {
        let edge = if pos == edges {
            true
        } else {
            let ((r0, c0), (r1, c1)) = edge_cells(pos, n);
            let (a, b) = (r0 * n + c0, r1 * n + c1);
            let same = owner[a] == owner[b];
            if same {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra] = rb;
            }
            !same
        };
        if edge {
            while run > 25 {
                blocks.push('z');
                run -= 25;
            }
            blocks.push(if run == 0 {
                '_'
            } else {
                (b'a' + run as u8 - 1) as char
            });
            run = 0;
        } else {
            run += 1;
        }
    }
    (blocks, parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params() {
        assert_eq!(parse_params("9dx"), Some(9));
        assert_eq!(parse_params("9dhm"), Some(9));
        assert_eq!(parse_params("6"), Some(6));
        assert_eq!(parse_params("6dq"), None);
        assert_eq!(parse_params("x"), None);
    }

    #[test]
    fn a_puzzle_keen_cannot_say_is_refused_by_name() {
        let c = Cell::new;
        // a 2x2 grid: row 1 one cage, row 2 another, each changed in turn
        let with = |first: Cage| {
            let rest = Cage::new(Op::Add, 3, vec![c(2, 1), c(2, 2)]);
            write(&Puzzle::new(2, vec![first, rest]))
                .unwrap_err()
                .to_string()
        };
        let cases = [
            (
                Cage::new(Op::Unknown, 3, vec![c(1, 1), c(1, 2)]),
                "has no operator ('?')",
            ),
            (
                Cage::new(Op::Given, 1, vec![c(1, 1), c(1, 2)]),
                ": a '=' cage holds one cell",
            ),
            (
                Cage::new(Op::Sub, 1, vec![c(1, 1)]),
                ": Keen's '-' and '/' take exactly 2 cells",
            ),
            (
                Cage::new(Op::Add, 3, vec![c(1, 1), c(1, 3)]),
                ": cell A3 is outside the grid",
            ),
            (
                Cage::new(Op::Add, 1, vec![c(1, 1)]),
                "cell A2 is in no cage",
            ),
        ];
        for (cage, words) in cases {
            let message = with(cage);
            assert!(
                message.starts_with("the keen notation cannot hold this puzzle: ")
                    && message.contains(words),
                "{message}"
            );
        }
        // one cage in two pieces (A1 and B2, with the rest between them)
        let diagonal = Puzzle::new(
            2,
            vec![
                Cage::new(Op::Add, 3, vec![c(1, 1), c(2, 2)]),
                Cage::new(Op::Add, 3, vec![c(1, 2), c(2, 1)]),
            ],
        );
        let message = write(&diagonal).unwrap_err().to_string();
        assert!(
            message.ends_with("its cells are not connected"),
            "{message}"
        );
    }

    #[test]
    fn decodes_a_shared_id() {
        let id = "4de:__a__a_ab_a__a_a_,a5d2s1m4a4m6s2d2";
        let p = read_id(id, 1).unwrap();
        assert_eq!(p.size, 4);
        assert!(p.check().is_ok(), "{:?}", p.validate());
        assert_eq!(
            canonical(&read_id(write(&p).unwrap().trim(), 1).unwrap()),
            canonical(&p)
        );
    }

    #[test]
    fn multi_cell_given_is_not_written_as_a_sum() {
        // Regression: a 2-cell '=' cage was written as 'a' and read back as '+'.
        let c = Cell::new;
        let p = Puzzle::new(
            2,
            vec![
                Cage::new(Op::Add, 0, vec![c(1, 1), c(1, 2)]),
                Cage::new(Op::Given, 0, vec![c(2, 1), c(2, 2)]),
            ],
        );
        assert!(write(&p)
            .unwrap_err()
            .to_string()
            .contains("'=' cage holds one cell"));
    }

    #[test]
    fn bad_ids_are_errors_not_panics() {
        for id in [
            "4:",
            "4:,",
            "4:zzzzzz,a1",
            "0:_,",
            "4de:__a__a_ab_a__a_a_,a5d2s1",
            "4de:__a__a_ab_a__a_a_,q5d2s1m4a4m6s2d2",
            "4:__,a1",
        ] {
            assert!(read_id(id, 3).is_err(), "{id}");
        }
    }
}
