//! The homework's solvers: whether a consulted file defines one (it then replaces
//! `kenken.pl`), read from the file's clause heads.

use std::path::Path;

use super::goals::{is_word_char, split_goals};

/// The homework's solvers (`prolog/kenken.pl`, the spec's contract): a consulted file that
/// defines any of them is a student's own `kenken.pl`, which replaces ours wholly. A file that
/// only gives puzzles (`kenken_testcase/2`, `noop_kenken_testcase/0,2`, as `kenken generate
/// --output prolog` writes) is loaded beside `kenken.pl`: its test cases replace ours, and
/// `kenken/3` stays.
pub(super) const HOMEWORK: &[(&str, usize)] =
    &[("kenken", 3), ("plain_kenken", 3), ("noop_kenken", 4)];

/// The first of the homework's solvers (`name/arity`: `kenken/3`, `plain_kenken/3`,
/// `noop_kenken/4`) that the Prolog file `file` (or
/// `file.pl`, as consult/1 finds it) defines: a clause whose head is one of them. The file is
/// cut into clauses as a Prolog reader cuts it ([`split_goals`]); `None` when it cannot be
/// read.
pub fn homework_defined(file: &Path) -> Option<String> {
    let text = std::fs::read(file)
        .or_else(|_| {
            let mut f = file.as_os_str().to_owned();
            f.push(".pl");
            std::fs::read(f)
        })
        .ok()?;
    let text = String::from_utf8_lossy(&text);
    split_goals(&text).complete.iter().find_map(|c| {
        let (name, arity) = clause_head(c)?;
        HOMEWORK
            .iter()
            .any(|&(n, a)| n == name && a == arity)
            .then(|| format!("{name}/{arity}"))
    })
}

/// The name and arity of the head of `clause` (text from [`split_goals`], which may start with
/// comments); `None` for a directive or a head that is not a plain or quoted atom.
fn clause_head(clause: &str) -> Option<(String, usize)> {
    let mut t = clause.trim_start();
    loop {
        if let Some(r) = t.strip_prefix('%') {
            t = r.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(r) = t.strip_prefix("/*") {
            t = r.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let (name, rest) = if let Some(r) = t.strip_prefix('\'') {
        let end = r.find('\'')?;
        (r[..end].to_string(), &r[end + 1..])
    } else if t.starts_with(|c: char| c.is_lowercase()) {
        let end = t.find(|c: char| !is_word_char(c)).unwrap_or(t.len());
        (t[..end].to_string(), &t[end..])
    } else {
        return None;
    };
    let Some(args) = rest.strip_prefix('(') else {
        return Some((name, 0));
    };
    // the arguments: commas at depth 1, outside quotes
    let cs: Vec<char> = args.chars().collect();
    let (mut depth, mut arity, mut i) = (1usize, 1usize, 0usize);
    while i < cs.len() {
        match cs[i] {
            '\'' if i > 0 && cs[i - 1] == '0' && !(i > 1 && is_word_char(cs[i - 2])) => {
                i += if cs.get(i + 1) == Some(&'\\') { 2 } else { 1 };
            }
            q @ ('\'' | '"' | '`') => {
                i += 1;
                while i < cs.len() && cs[i] != q {
                    i += if cs[i] == '\\' { 2 } else { 1 };
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((name, arity));
                }
            }
            ',' if depth == 1 => arity += 1,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clause_heads_are_read_as_a_prolog_reader_reads_them() {
        let head = |c: &str| clause_head(c).map(|(n, a)| format!("{n}/{a}"));
        assert_eq!(head("kenken(N, C, T) :- true."), Some("kenken/3".into()));
        assert_eq!(head("% c\n/* d */ p."), Some("p/0".into()));
        assert_eq!(head("p :- q(a, b)."), Some("p/0".into()));
        assert_eq!(
            head("'plain_kenken'(N, [f(a, b)], \"x,y\") :- true."),
            Some("plain_kenken/3".into())
        );
        assert_eq!(head("p(0',, 'a,b', `,`)."), Some("p/3".into()));
        assert_eq!(head(":- initialization(kenken(1, 2, 3))."), None);
        assert_eq!(head("X = 1."), None);
        assert_eq!(head("p(a, "), None);
    }
}
