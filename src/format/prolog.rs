//! The spec's Prolog terms: `kenken_testcase(N, C).` facts, the spec's goals `kenken(N, C, T).`
//! (and `noop_kenken_testcase(N, C).`), or a bare `N, C` pair.
//!
//! Cages: `+(S, L)`, `*(P, L)`, `-(D, J, K)`, `/(Q, J, K)` with squares `[I|J]` (row I, column J);
//! the extensions `-(D, L)` and `/(Q, L)` with a list of 2+ squares, `?(T, L)` for a cage whose
//! operator is unknown, and `=(V, [[I|J]])` for a given value (written back as `+(V, [[I|J]])`, as
//! the spec has no `=`). Operator syntax such as `11+[[1|1],[2|1]]` (how Prolog prints the terms)
//! reads too. `%` and `/* */` comments are skipped.

use super::{
    checked_size, name_above, normalized_cage, Entry, FormatError, Notation, NAME_COMMENT,
};
use crate::puzzle::{Cell, Op, Puzzle};

/// A parsed Prolog term (the subset the notation needs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PTerm {
    /// A nonnegative integer (negative ones are read as `-(X)`).
    Int(u64),
    /// An atom, including `[]`.
    Atom(String),
    /// A variable (not allowed in a puzzle, kept for a precise error).
    Var(String),
    /// A compound term; lists are `'.'(Head, Tail)`.
    Compound(String, Vec<PTerm>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(u64),
    Name(String),
    /// A name directly followed by `(`.
    Functor(String),
    Var(String),
    Punct(char),
    End,
}

fn syntax(line: usize, message: impl Into<String>) -> FormatError {
    FormatError::syntax(Notation::Prolog, line, message)
}

const SYMBOL_CHARS: &str = "+-*/\\^<>=~:.?@#&$";

fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, FormatError> {
    let cs: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < cs.len() {
        let c = cs[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '%' {
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && cs.get(i + 1) == Some(&'*') {
            let start = line;
            i += 2;
            loop {
                match cs.get(i) {
                    None => return Err(syntax(start, "unterminated /* comment")),
                    Some('*') if cs.get(i + 1) == Some(&'/') => {
                        i += 2;
                        break;
                    }
                    Some('\n') => {
                        line += 1;
                        i += 1
                    }
                    _ => i += 1,
                }
            }
        } else if c.is_ascii_digit() {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '_') {
                i += 1;
            }
            let s: String = cs[start..i].iter().filter(|&&c| c != '_').collect();
            let v = s
                .parse()
                .map_err(|_| syntax(line, format!("integer {s} does not fit in 64 bits")))?;
            toks.push((Tok::Int(v), line));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            let s: String = cs[start..i].iter().collect();
            let tok = if c.is_uppercase() || c == '_' {
                Tok::Var(s)
            } else if cs.get(i) == Some(&'(') {
                Tok::Functor(s)
            } else {
                Tok::Name(s)
            };
            toks.push((tok, line));
        } else if c == '\'' {
            let start = line;
            let mut s = String::new();
            i += 1;
            loop {
                match cs.get(i) {
                    None => return Err(syntax(start, "unterminated quoted atom")),
                    Some('\'') if cs.get(i + 1) == Some(&'\'') => {
                        s.push('\'');
                        i += 2;
                    }
                    Some('\'') => {
                        i += 1;
                        break;
                    }
                    Some(&ch) => {
                        if ch == '\n' {
                            line += 1;
                        }
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            let tok = if cs.get(i) == Some(&'(') {
                Tok::Functor(s)
            } else {
                Tok::Name(s)
            };
            toks.push((tok, line));
        } else if "()[],|".contains(c) {
            toks.push((Tok::Punct(c), line));
            i += 1;
        } else if SYMBOL_CHARS.contains(c) || c == '×' || c == '÷' {
            let start = i;
            while i < cs.len() && SYMBOL_CHARS.contains(cs[i]) {
                i += 1;
            }
            if i == start {
                i += 1;
            }
            let s: String = cs[start..i].iter().collect();
            if s == "." && cs.get(i).is_none_or(|c| c.is_whitespace() || *c == '%') {
                toks.push((Tok::End, line));
            } else if cs.get(i) == Some(&'(') {
                toks.push((Tok::Functor(s), line));
            } else {
                toks.push((Tok::Name(s), line));
            }
        } else {
            return Err(syntax(line, format!("unexpected character '{c}'")));
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// How deeply the term being read nests (brackets, parentheses, arguments).
    depth: usize,
}

/// Terms nested deeper than this are refused (a puzzle nests about five deep); lists are read
/// iteratively, so their length does not count.
const MAX_DEPTH: usize = 1000;

impl Drop for PTerm {
    /// Drops iteratively: a long list is a deep chain of `'.'` terms, which the default
    /// recursive drop could overflow the stack on.
    fn drop(&mut self) {
        let PTerm::Compound(_, args) = self else {
            return;
        };
        let mut stack = std::mem::take(args);
        while let Some(mut t) = stack.pop() {
            if let PTerm::Compound(_, args) = &mut t {
                stack.append(args);
            }
        }
    }
}

/// Infix operators understood, with their priority (all `yfx`).
fn infix_priority(name: &str) -> Option<u32> {
    match name {
        "+" | "-" => Some(500),
        "*" | "/" => Some(400),
        "=" => Some(700),
        _ => None,
    }
}

impl Parser {
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.1)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        t
    }

    fn expect(&mut self, c: char) -> Result<(), FormatError> {
        let line = self.line();
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            Some(t) => Err(syntax(
                line,
                format!("expected '{c}', found {}", describe(&t)),
            )),
            None => Err(syntax(
                line,
                format!("expected '{c}', found the end of the text"),
            )),
        }
    }

    /// Parses a term of at most `max` priority (999 for arguments, 1200 for clauses).
    fn term(&mut self, max: u32) -> Result<PTerm, FormatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(syntax(
                self.line(),
                format!("the term is nested too deeply (more than {MAX_DEPTH} levels)"),
            ));
        }
        let t = self.term_(max);
        self.depth -= 1;
        t
    }

    fn term_(&mut self, max: u32) -> Result<PTerm, FormatError> {
        let mut left = self.primary()?;
        while let Some(Tok::Name(op)) = self.peek() {
            let Some(pri) = infix_priority(op) else { break };
            if pri > max {
                break;
            }
            let op = op.clone();
            self.pos += 1;
            let right = self.term(pri - 1)?;
            left = PTerm::Compound(op, vec![left, right]);
        }
        Ok(left)
    }

    fn primary(&mut self) -> Result<PTerm, FormatError> {
        let line = self.line();
        match self.next() {
            Some(Tok::Int(v)) => Ok(PTerm::Int(v)),
            Some(Tok::Var(v)) => Ok(PTerm::Var(v)),
            Some(Tok::Name(n)) if n == "-" => {
                if let Some(Tok::Int(v)) = self.peek() {
                    let v = *v;
                    self.pos += 1;
                    return Ok(PTerm::Compound("-".into(), vec![PTerm::Int(v)]));
                }
                Ok(PTerm::Atom(n))
            }
            Some(Tok::Name(n)) => Ok(PTerm::Atom(n)),
            Some(Tok::Functor(f)) => {
                self.expect('(')?;
                let mut args = vec![self.term(999)?];
                while self.peek() == Some(&Tok::Punct(',')) {
                    self.pos += 1;
                    args.push(self.term(999)?);
                }
                self.expect(')')?;
                Ok(PTerm::Compound(f, args))
            }
            Some(Tok::Punct('(')) => {
                let t = self.term(1200)?;
                self.expect(')')?;
                Ok(t)
            }
            Some(Tok::Punct('[')) => {
                if self.peek() == Some(&Tok::Punct(']')) {
                    self.pos += 1;
                    return Ok(PTerm::Atom("[]".into()));
                }
                let mut items = vec![self.term(999)?];
                while self.peek() == Some(&Tok::Punct(',')) {
                    self.pos += 1;
                    items.push(self.term(999)?);
                }
                let tail = if self.peek() == Some(&Tok::Punct('|')) {
                    self.pos += 1;
                    self.term(999)?
                } else {
                    PTerm::Atom("[]".into())
                };
                self.expect(']')?;
                Ok(items
                    .into_iter()
                    .rev()
                    .fold(tail, |t, h| PTerm::Compound(".".into(), vec![h, t])))
            }
            Some(t) => Err(syntax(line, format!("unexpected {}", describe(&t)))),
            None => Err(syntax(line, "unexpected end of the text")),
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Int(v) => format!("number {v}"),
        Tok::Name(n) | Tok::Functor(n) => format!("'{n}'"),
        Tok::Var(v) => format!("variable {v}"),
        Tok::Punct(c) => format!("'{c}'"),
        Tok::End => "end of clause '.'".into(),
    }
}

/// Parses `text` clause by clause: a clause that does not parse gives its error, and parsing
/// goes on after its final `.`.
pub(crate) fn parse_each(text: &str) -> Vec<Result<(PTerm, usize), FormatError>> {
    let toks = match tokenize(text) {
        Ok(t) => t,
        Err(e) => return vec![Err(e)],
    };
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    while p.pos < p.toks.len() {
        let line = p.line();
        let got = p.clause();
        if got.is_err() {
            // Skip to the end of the bad clause.
            p.depth = 0;
            while let Some(t) = p.next() {
                if t == Tok::End {
                    break;
                }
            }
        }
        out.push(got.map(|t| (t, line)));
    }
    out
}

impl Parser {
    /// One clause, with its final `.` (optional at the end of the text).
    fn clause(&mut self) -> Result<PTerm, FormatError> {
        let mut t = self.term(1200)?;
        // A bare `N, C` pair: comma at clause level.
        if self.peek() == Some(&Tok::Punct(',')) {
            self.pos += 1;
            let c = self.term(999)?;
            t = PTerm::Compound(",".into(), vec![t, c]);
        }
        match self.next() {
            Some(Tok::End) | None => Ok(t),
            Some(tok) => Err(syntax(
                self.toks[self.pos - 1].1,
                format!("expected '.' after the clause, found {}", describe(&tok)),
            )),
        }
    }
}

/// Turns a Prolog list into its items.
pub(crate) fn list_items(t: &PTerm) -> Option<Vec<&PTerm>> {
    let mut items = Vec::new();
    let mut cur = t;
    loop {
        match cur {
            PTerm::Atom(a) if a == "[]" => return Some(items),
            PTerm::Compound(f, args) if f == "." && args.len() == 2 => {
                items.push(&args[0]);
                cur = &args[1];
            }
            _ => return None,
        }
    }
}

fn square(t: &PTerm, line: usize, cage: usize) -> Result<Cell, FormatError> {
    match t {
        PTerm::Compound(f, args) if f == "." && args.len() == 2 => match (&args[0], &args[1]) {
            (PTerm::Int(i), PTerm::Int(j)) => Ok(Cell::new(*i as usize, *j as usize)),
            _ => Err(syntax(
                line,
                format!("cage {cage}: a square is [I|J] with two integers"),
            )),
        },
        _ => Err(syntax(
            line,
            format!("cage {cage}: expected a square [I|J]"),
        )),
    }
}

fn cage_from_term(
    t: &PTerm,
    line: usize,
    index: usize,
) -> Result<crate::puzzle::Cage, FormatError> {
    let k = index + 1;
    let PTerm::Compound(f, args) = t else {
        return Err(syntax(
            line,
            format!("cage {k}: expected a constraint such as +(S, L)"),
        ));
    };
    let op = Op::from_symbol(f)
        .ok_or_else(|| syntax(line, format!("cage {k}: unknown constraint '{f}'")))?;
    let target = match &args[0] {
        PTerm::Int(v) => *v,
        PTerm::Var(v) => {
            return Err(syntax(
                line,
                format!("cage {k}: the target is the variable {v}; puzzles must be ground"),
            ))
        }
        _ => {
            return Err(syntax(
                line,
                format!("cage {k}: the target must be a nonnegative integer"),
            ))
        }
    };
    let cells = match (op, args.len()) {
        (Op::Sub | Op::Div, 3) => vec![square(&args[1], line, k)?, square(&args[2], line, k)?],
        (_, 2) => {
            let items = list_items(&args[1])
                .ok_or_else(|| syntax(line, format!("cage {k}: expected a list of squares")))?;
            if items.is_empty() {
                return Err(syntax(
                    line,
                    format!("cage {k}: the list of squares is empty"),
                ));
            }
            items
                .into_iter()
                .map(|s| square(s, line, k))
                .collect::<Result<_, _>>()?
        }
        _ => {
            return Err(syntax(
                line,
                format!(
                    "cage {k}: '{f}' with {} arguments is not a constraint",
                    args.len()
                ),
            ))
        }
    };
    Ok(normalized_cage(op, target, cells))
}

/// Builds a puzzle from the two terms `N` and `C`.
pub(crate) fn puzzle_from_terms(n: &PTerm, c: &PTerm, line: usize) -> Result<Puzzle, FormatError> {
    let size = match n {
        PTerm::Int(v) => checked_size(Notation::Prolog, line, *v)?,
        _ => return Err(syntax(line, "N must be a nonnegative integer")),
    };
    let items = list_items(c).ok_or_else(|| syntax(line, "C must be a list of constraints"))?;
    let cages = items
        .into_iter()
        .enumerate()
        .map(|(i, t)| cage_from_term(t, line, i))
        .collect::<Result<_, _>>()?;
    Ok(Puzzle::new(size, cages))
}

/// Reads every `kenken_testcase(N, C)` fact (or goal `kenken(N, C, T)`, or `N, C` pair) in
/// `text`.
pub fn read(text: &str) -> Result<Vec<Entry>, FormatError> {
    read_each(text).into_iter().collect()
}

/// Reads every puzzle in `text`, each on its own: a clause that does not parse gives its error,
/// and reading goes on after its final `.`.
pub fn read_each(text: &str) -> Vec<Result<Entry, FormatError>> {
    let lines: Vec<&str> = text.lines().collect();
    parse_each(text)
        .into_iter()
        .map(|clause| {
            let (clause, line) = clause?;
            let mut puzzle =
                match &clause {
                    PTerm::Compound(f, args)
                        if args.len() == 2
                            && (f == "kenken_testcase"
                                || f == ","
                                || f == "kenken"
                                || f == "noop_kenken_testcase") =>
                    {
                        puzzle_from_terms(&args[0], &args[1], line)?
                    }
                    PTerm::Compound(f, args) if f == "kenken" && args.len() == 3 => {
                        puzzle_from_terms(&args[0], &args[1], line)?
                    }
                    _ => return Err(syntax(
                        line,
                        "expected kenken_testcase(N, C)., the goal kenken(N, C, T). or a pair N, C",
                    )),
                };
            puzzle.name = name_above(&lines, line);
            Ok(Entry::new(puzzle, line))
        })
        .collect()
}

/// A square as the spec writes it: `[I|J]`.
pub(crate) fn square_text(c: &Cell) -> String {
    format!("[{}|{}]", c.row, c.col)
}

/// One cage as a spec term: `+(11, [[1|1], [2|1]])`, `-(3, [2|2], [2|3])`, `?(5, [...])`.
pub fn cage_text(cage: &crate::puzzle::Cage) -> String {
    let list = |cells: &[Cell]| {
        let s: Vec<String> = cells.iter().map(square_text).collect();
        format!("[{}]", s.join(", "))
    };
    let t = cage.target;
    match cage.op {
        Op::Sub | Op::Div if cage.cells.len() == 2 => format!(
            "{}({t}, {}, {})",
            cage.op.symbol(),
            square_text(&cage.cells[0]),
            square_text(&cage.cells[1])
        ),
        Op::Given if cage.cells.len() == 1 => format!("+({t}, {})", list(&cage.cells)),
        // Not a valid cage; kept as written so that it round-trips and validation reports it.
        Op::Given => format!("=({t}, {})", list(&cage.cells)),
        op => format!("{}({t}, {})", op.symbol(), list(&cage.cells)),
    }
}

/// Writes `p` as a `kenken_testcase(N, C).` fact, one cage per line as in the spec.
pub fn write(p: &Puzzle) -> Result<String, FormatError> {
    let mut s = String::new();
    if let Some(name) = &p.name {
        s.push_str(&format!(
            "{NAME_COMMENT}{}\n",
            name.replace(['\n', '\r'], " ")
        ));
    }
    s.push_str(&format!("kenken_testcase(\n  {},\n  [", p.size));
    for (i, cage) in p.cages.iter().enumerate() {
        s.push_str(if i == 0 { "\n    " } else { ",\n    " });
        s.push_str(&cage_text(cage));
    }
    s.push_str(if p.cages.is_empty() {
        "]\n).\n"
    } else {
        "\n  ]\n).\n"
    });
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_operator_syntax_as_prolog_prints_it() {
        let t = "6, [11+[[1|1],[2|1]], /(2,[1|2],[1|3]), 20*[[1|4],[2|4]], -(3,[2|2],[2|3])]";
        let p = &read(t).unwrap()[0].puzzle;
        assert_eq!(p.size, 6);
        assert_eq!(p.cages[0].op, Op::Add);
        assert_eq!(p.cages[1].cells, vec![Cell::new(1, 2), Cell::new(1, 3)]);
        assert_eq!(p.cages[2].target, 20);
    }

    #[test]
    fn reads_nary_noop_and_given() {
        let t =
            "kenken_testcase(3, [-(0, [[1|1],[1|2],[2|1]]), ?(5, [[2|2],[2|3]]), =(2, [[3|3]])]).";
        let p = &read(t).unwrap()[0].puzzle;
        assert_eq!(p.cages[0].cells.len(), 3);
        assert_eq!(p.cages[1].op, Op::Unknown);
        assert_eq!(p.cages[2].op, Op::Given);
    }

    #[test]
    fn errors_name_line_and_cage() {
        let e = read("kenken_testcase(2,\n [+(3, [[1|1]]),\n  +(X, [[1|2]])]).")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 1") && e.contains("cage 2") && e.contains("variable X"),
            "{e}"
        );
        let e = read("kenken_testcase(2, [+(3, [[1|1]])\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expected ']'") || e.contains("expected ')'"),
            "{e}"
        );
        assert!(read("foo(1).").is_err());
    }
}
