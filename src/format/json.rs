//! JSON: one puzzle per object (as in `tests/data/real-world.jsonl` and `examples/*.jsonl`):
//! `{"size": 6, "cages": [{"op": "+", "target": 11, "cells": [[1,1],[2,1]]}, ...]}`.
//!
//! Objects may follow each other on lines of their own (JSON Lines) or be pretty-printed.
//! Optional fields `name`, `solution`, `count` and `solutions` are kept; others are ignored.

use serde::{Deserialize, Serialize};

use super::{checked_size, normalized_cage, Entry, Expected, FormatError, Notation};
use crate::puzzle::{Cell, Grid, Op, Puzzle};

#[derive(Deserialize)]
struct RawPuzzle {
    size: u64,
    cages: Vec<RawCage>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    solution: Option<Grid>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    solutions: Option<Vec<Grid>>,
}

#[derive(Deserialize, Serialize)]
struct RawCage {
    op: String,
    target: u64,
    cells: Vec<[usize; 2]>,
}

#[derive(Serialize)]
struct OutPuzzle<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: &'a Option<String>,
    size: usize,
    cages: Vec<RawCage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    solution: &'a Option<Grid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: &'a Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    solutions: &'a Option<Vec<Grid>>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Reads every JSON object in `text` as a puzzle, with its expected answers.
pub fn read(text: &str) -> Result<Vec<Entry>, FormatError> {
    read_each(text).into_iter().collect()
}

/// Reads every JSON object in `text`, each on its own: after a bad object, reading goes on at the
/// next line that opens an object.
pub fn read_each(text: &str) -> Vec<Result<Entry, FormatError>> {
    let mut out = Vec::new();
    let mut base = 0;
    'streams: while base < text.len() {
        let rest = &text[base..];
        let lines_before = line_of(text, base) - 1;
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<RawPuzzle>();
        loop {
            let start = stream.byte_offset();
            let Some(item) = stream.next() else {
                break 'streams;
            };
            match item {
                Ok(raw) => {
                    let skipped = rest[start..].len() - rest[start..].trim_start().len();
                    let line = lines_before + line_of(rest, start + skipped);
                    out.push(entry(raw, line));
                }
                Err(e) => {
                    // Named by the line the bad object starts on (serde's message gives the
                    // place of the fault itself).
                    let skipped = rest[start..].len() - rest[start..].trim_start().len();
                    let first = line_of(rest, start + skipped);
                    let message = if e.line() > 0 {
                        let at = lines_before + e.line();
                        let text = e.to_string();
                        let text = text.split(" at line ").next().unwrap_or(&text).to_string();
                        format!("{text} at line {at} column {}", e.column())
                    } else {
                        e.to_string()
                    };
                    out.push(Err(FormatError::syntax(
                        Notation::Json,
                        lines_before + first,
                        message,
                    )));
                    // Go on at the next line, after the one the bad object starts on, that opens
                    // an object at its first column (nested objects are indented or inline).
                    let mut offset = 0;
                    let mut next = None;
                    for (k, l) in rest.split_inclusive('\n').enumerate() {
                        if k >= first && l.starts_with('{') {
                            next = Some(offset);
                            break;
                        }
                        offset += l.len();
                    }
                    match next {
                        Some(n) => base += n,
                        None => break 'streams,
                    }
                    continue 'streams;
                }
            }
        }
    }
    out
}

/// The entry of one object read at `line`.
fn entry(raw: RawPuzzle, line: usize) -> Result<Entry, FormatError> {
    let size = checked_size(Notation::Json, line, raw.size)?;
    let mut cages = Vec::with_capacity(raw.cages.len());
    for (i, c) in raw.cages.into_iter().enumerate() {
        let op = Op::from_symbol(&c.op).ok_or_else(|| {
            FormatError::syntax(
                Notation::Json,
                line,
                format!(
                    "cage {}: unknown operator '{}' (use + - * / = ?)",
                    i + 1,
                    c.op
                ),
            )
        })?;
        let cells = c.cells.iter().map(|&[r, col]| Cell::new(r, col)).collect();
        cages.push(normalized_cage(op, c.target, cells));
    }
    Ok(Entry {
        puzzle: Puzzle {
            size,
            cages,
            name: raw.name,
        },
        expected: Expected {
            solution: raw.solution,
            count: raw.count,
            solutions: raw.solutions,
        },
        line,
    })
}

/// Writes `p` as one JSON line, with the expected answers `e` (if any).
pub fn write(p: &Puzzle, e: &Expected) -> Result<String, FormatError> {
    let cages = p
        .cages
        .iter()
        .map(|c| RawCage {
            op: c.op.symbol().to_string(),
            target: c.target,
            cells: c.cells.iter().map(|c| [c.row, c.col]).collect(),
        })
        .collect();
    let out = OutPuzzle {
        name: &p.name,
        size: p.size,
        cages,
        solution: &e.solution,
        count: &e.count,
        solutions: &e.solutions,
    };
    let mut s = serde_json::to_string(&out)
        .map_err(|e| FormatError::unsupported(Notation::Json, e.to_string()))?;
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_shared_shape_and_ignores_extra_fields() {
        let t = r#"{"id": "x", "size": 2, "cages": [{"op": "+", "target": 3, "cells": [[1,1],[1,2]]}, {"op": "*", "target": 2, "cells": [[2,1]]}, {"op": "=", "target": 1, "cells": [[2,2]]}]}"#;
        let p = &read(t).unwrap()[0].puzzle;
        assert_eq!(p.size, 2);
        assert_eq!(p.cages[1].op, Op::Given);
        assert_eq!(p.cages[2].op, Op::Given);
    }

    #[test]
    fn names_the_line_of_a_bad_operator() {
        let t = "{\"size\":1,\"cages\":[]}\n{\"size\":1,\"cages\":[{\"op\":\"%\",\"target\":1,\"cells\":[[1,1]]}]}";
        let e = read(t).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("cage 1") && e.contains("'%'"),
            "{e}"
        );
    }

    #[test]
    fn reports_syntax_errors_with_line() {
        let e = read("{\"size\": 1,\n \"cages\": [}")
            .unwrap_err()
            .to_string();
        // The puzzle's line, then the fault's place.
        assert!(
            e.starts_with("line 1: ") && e.contains("at line 2 column 12"),
            "{e}"
        );
        let e = read("{\"size\": 1, \"cages\": []}\n\n{\"size\": 1,\n \"cages\": [}")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("line 3: ") && e.contains("at line 4 column 12"),
            "{e}"
        );
    }
}
