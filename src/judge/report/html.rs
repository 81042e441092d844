//! One self-contained HTML page for a class: no network, no script needed to read it (a small
//! inline one sorts the table when a column's head is clicked, or when the page is opened with
//! `#sort=COLUMN` or `#sort=-COLUMN`). A row per file with its verdicts and times, and a small
//! plot of `kenken/3`'s and `plain_kenken/3`'s time on the cases both passed (log scale); for
//! each failing file, its smallest failing puzzle drawn as SVG, the expected answer beside the
//! file's, the cells that differ marked.

use super::{again, xml_text as esc, Judged};
use crate::judge::class::Row;
use crate::judge::shrink::{Counterexample, Failure};
use crate::puzzle::{Grid, Puzzle};

/// The colour of a cell where the file's answer differs (in the SVG and the legend).
pub const MARK: &str = "#ff7f7f";

/// The page for `files` (with their rows, in the same order); `title` says what was run.
pub fn page(files: &[Judged], rows: &[Row], title: &str) -> String {
    let passed = rows.iter().filter(|r| r.ok).count();
    let mut s = String::new();
    s.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kenken \
         judge: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>kenken judge</h1>\n\
         <p>{}</p>\n<p><b>{passed} of {} passed every case.</b></p>\n",
        esc(title),
        esc(title),
        if rows.len() == 1 {
            "1 file".to_string()
        } else {
            format!("{} files", rows.len())
        }
    ));
    if let Some(Ok(j)) = files.first().map(|f| f.result) {
        s.push_str(&format!("<p>{}</p>\n", esc(&again(j))));
    }
    let predicates: Vec<String> = rows
        .first()
        .map(|r| r.passed.iter().map(|(p, _, _)| p.clone()).collect())
        .unwrap_or_default();
    s.push_str("<table id=\"files\">\n<thead><tr><th data-key=\"file\">file</th>");
    for p in &predicates {
        s.push_str(&format!("<th data-key=\"{p}\">{p}/3 passed</th>"));
    }
    s.push_str(
        "<th data-key=\"verdict\">verdict</th><th data-key=\"failure\">first failing case</th>\
         <th data-key=\"smallest\">smallest failing puzzle</th><th data-key=\"time\">kenken/3 \
         time</th><th data-key=\"plain_over_fd\">plain/fd</th><th data-key=\"plot\">kenken/3 \
         and plain_kenken/3 time</th></tr></thead>\n<tbody>\n",
    );
    for (i, (f, r)) in files.iter().zip(rows).enumerate() {
        let verdict = match r.exit_code {
            0 => "pass",
            3 => "timeouts",
            2 => "not judged",
            _ => "fail",
        };
        s.push_str(&format!(
            "<tr class=\"{}\"><td data-v=\"{}\"><a href=\"#file{i}\">{}</a></td>",
            if r.ok { "ok" } else { "bad" },
            esc(&r.file),
            esc(&r.file)
        ));
        for (p, pass, total) in &r.passed {
            let v = if *total == 0 {
                0.0
            } else {
                *pass as f64 / *total as f64
            };
            // (verdicts that prove less than they say are marked, the why in a title)
            let mark = match &r.plain_caveat {
                Some(k) if p == "plain_kenken" => {
                    format!(" <span class=\"caveat\" title=\"{}\">*</span>", esc(k))
                }
                _ => String::new(),
            };
            s.push_str(&format!("<td data-v=\"{v:.4}\">{pass}/{total}{mark}</td>"));
        }
        s.push_str(&format!(
            "<td data-v=\"{verdict}\" class=\"v\">{verdict}</td><td data-v=\"{0}\">{0}</td>",
            esc(r.first_failure.as_deref().unwrap_or(""))
        ));
        match f.counterexample {
            Some(c) => s.push_str(&format!(
                "<td data-v=\"{}\"><a href=\"#file{i}\">{}x{}, {}: {}{}</a></td>",
                c.size * 100 + c.cages,
                c.size,
                c.size,
                cages(c.cages),
                esc(c.failure.name()),
                if c.reproducible {
                    ""
                } else {
                    " (not reproducible)"
                }
            )),
            None => s.push_str("<td data-v=\"\"></td>"),
        }
        s.push_str(&match r.fd_ms {
            Some(ms) => format!("<td data-v=\"{ms:.3}\">{ms:.1} ms</td>"),
            None => "<td data-v=\"\">-</td>".into(),
        });
        s.push_str(&match r.plain_over_fd {
            Some(x) => format!("<td data-v=\"{x:.4}\">{x:.2}x</td>"),
            None => "<td data-v=\"\">-</td>".into(),
        });
        let both = f.result.as_ref().ok().and_then(|j| j.both_passed());
        s.push_str(&match both {
            Some((_, fd, plain)) => format!(
                "<td data-v=\"{:.4}\">{}</td>",
                plain / fd.max(1e-9),
                timing_svg(fd, plain)
            ),
            None => "<td data-v=\"\">-</td>".into(),
        });
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    if let Some(k) = rows.iter().find_map(|r| r.plain_caveat.as_deref()) {
        s.push_str(&format!("<p class=\"caveat\">* {}</p>\n", esc(k)));
    }
    s.push_str(
        "<p class=\"hint\">Click a column's head to sort by it (again: the \
         other way), or open the page with <code>#sort=time</code> or \
         <code>#sort=-time</code>.</p>\n",
    );
    for (i, f) in files.iter().enumerate() {
        let Some(r) = rows.get(i).filter(|r| !r.ok) else {
            continue;
        };
        s.push_str(&format!(
            "<section id=\"file{i}\">\n<h2>{}</h2>\n<p>{}</p>\n",
            esc(f.file),
            esc(r.first_failure.as_deref().unwrap_or(""))
        ));
        if let Some(c) = f.counterexample {
            s.push_str(&counterexample(c));
        }
        s.push_str("</section>\n");
    }
    s.push_str(&format!("<script>{SCRIPT}</script>\n</body>\n</html>\n"));
    s
}

/// A failing file's smallest failing puzzle: what fails, the goal, the expected answer and the
/// file's drawn side by side, and the puzzle as a suite file.
fn counterexample(c: &Counterexample) -> String {
    let how = if c.reproducible {
        format!(
            "shrunk from “{}” ({}x{}) in {} tries, {:.1} s{}",
            esc(&c.from_case),
            c.from_size,
            c.from_size,
            c.tries,
            c.elapsed_s,
            if c.complete {
                ""
            } else {
                " (time ran out before the smallest)"
            }
        )
    } else {
        format!("the failing case “{}” as it was", esc(&c.from_case))
    };
    let mut s = format!(
        "<h3>smallest failing puzzle: {}/3, {}</h3>\n<p>{}x{}, {}; {how}.</p>\n",
        c.predicate,
        esc(c.failure.name()),
        c.size,
        c.size,
        cages(c.cages),
    );
    if !c.reproducible {
        s.push_str(
            "<p class=\"warn\">Not reproducible: the file answered differently when the same \
             case ran again (random or time-dependent?); this is the failing case as it was.</p>\n",
        );
    }
    s.push_str(&format!(
        "<pre>?- {}.</pre>\n<p>{}</p>\n<div class=\"grids\">",
        esc(&c.goal),
        esc(&c.detail)
    ));
    let figure = |caption: &str, svg: String| {
        format!(
            "<figure>{svg}<figcaption>{}</figcaption></figure>",
            esc(caption)
        )
    };
    match &c.expected {
        Some(e) => s.push_str(&figure("expected", puzzle_svg(&c.shape, Some(e), &[]))),
        None => s.push_str(&figure(
            "the puzzle (it has no solution)",
            puzzle_svg(&c.shape, None, &[]),
        )),
    }
    if let Some(a) = &c.answer {
        s.push_str(&figure(
            "the file's answer (cells that differ marked)",
            puzzle_svg(&c.shape, Some(a), &c.differ),
        ));
    } else if c.expected.is_some() && c.failure == Failure::MissingAnswer {
        s.push_str("<p class=\"warn\">The file does not give this answer.</p>");
    }
    s.push_str(&format!(
        "</div>\n<details><summary>as a suite file (<code>kenken judge FILE --suite \
         this.pl</code>)</summary><pre>{}</pre></details>\n",
        esc(&c.puzzle)
    ));
    s
}

/// `1 cage`, `3 cages`.
fn cages(n: usize) -> String {
    if n == 1 {
        "1 cage".into()
    } else {
        format!("{n} cages")
    }
}

/// The side of a cell in the SVG drawings, in pixels.
const CELL: usize = 44;

/// `p` drawn as SVG: thin lines between cells, thick ones between cages, each cage's clue in
/// its first cell, the digits of `grid` when given, the cells `marked` filled.
pub fn puzzle_svg(p: &Puzzle, grid: Option<&Grid>, marked: &[[usize; 2]]) -> String {
    let n = p.size;
    let side = n * CELL + 4;
    let mut owner = vec![usize::MAX; n * n];
    for (k, cage) in p.cages.iter().enumerate() {
        for c in &cage.cells {
            if (1..=n).contains(&c.row) && (1..=n).contains(&c.col) {
                owner[(c.row - 1) * n + c.col - 1] = k;
            }
        }
    }
    let own = |r: usize, c: usize| match owner[r * n + c] {
        usize::MAX => usize::MAX - 1 - (r * n + c),
        k => k,
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{side}\" height=\"{side}\" \
         viewBox=\"0 0 {side} {side}\" role=\"img\">"
    );
    let xy = |i: usize| i * CELL + 2;
    for [r, c] in marked {
        if (1..=n).contains(r) && (1..=n).contains(c) {
            s.push_str(&format!(
                "<rect class=\"mark\" x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\" \
                 fill=\"{MARK}\"/>",
                xy(c - 1),
                xy(r - 1)
            ));
        }
    }
    // thin lines, then the cage borders over them
    for i in 1..n {
        s.push_str(&format!(
            "<line x1=\"{0}\" y1=\"2\" x2=\"{0}\" y2=\"{1}\" stroke=\"#bbb\"/><line x1=\"2\" \
             y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#bbb\"/>",
            xy(i),
            xy(n)
        ));
    }
    let mut thick = String::new();
    for r in 0..n {
        for c in 0..n {
            if c + 1 < n && own(r, c) != own(r, c + 1) {
                thick.push_str(&format!("M{} {}V{}", xy(c + 1), xy(r), xy(r + 1)));
            }
            if r + 1 < n && own(r, c) != own(r + 1, c) {
                thick.push_str(&format!("M{} {}H{}", xy(c), xy(r + 1), xy(c + 1)));
            }
        }
    }
    s.push_str(&format!(
        "<path d=\"{thick}\" stroke=\"#000\" stroke-width=\"3\" fill=\"none\"/><rect x=\"2\" \
         y=\"2\" width=\"{0}\" height=\"{0}\" stroke=\"#000\" stroke-width=\"3\" \
         fill=\"none\"/>",
        n * CELL
    ));
    for cage in &p.cages {
        if let Some(first) = cage.cells.iter().min() {
            if (1..=n).contains(&first.row) && (1..=n).contains(&first.col) {
                s.push_str(&format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>",
                    xy(first.col - 1) + 4,
                    xy(first.row - 1) + 13,
                    esc(&cage.label())
                ));
            }
        }
    }
    if let Some(g) = grid {
        for (r, row) in g.iter().enumerate().take(n) {
            for (c, v) in row.iter().enumerate().take(n) {
                s.push_str(&format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"20\" text-anchor=\"middle\">{v}</text>",
                    xy(c) + CELL / 2,
                    xy(r) + CELL - 9
                ));
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// Two bars, `kenken/3`'s and `plain_kenken/3`'s time on the cases both passed, on a log
/// scale from 0.1 ms to 100 s.
fn timing_svg(fd_ms: f64, plain_ms: f64) -> String {
    let bar = |ms: f64| ((ms.max(0.1).log10() + 1.0) * 20.0).clamp(1.0, 120.0);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"26\" role=\"img\">\
         <title>kenken/3 {fd_ms:.1} ms, plain_kenken/3 {plain_ms:.1} ms (log scale)</title>\
         <rect x=\"0\" y=\"2\" width=\"{:.1}\" height=\"10\" fill=\"#4a7fd4\"/><text x=\"{:.1}\" \
         y=\"11\" font-size=\"9\">fd {fd_ms:.1} ms</text><rect x=\"0\" y=\"14\" width=\"{:.1}\" \
         height=\"10\" fill=\"#d49a4a\"/><text x=\"{:.1}\" y=\"23\" font-size=\"9\">plain \
         {plain_ms:.1} ms</text></svg>",
        bar(fd_ms),
        bar(fd_ms) + 3.0,
        bar(plain_ms),
        bar(plain_ms) + 3.0
    )
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;\
vertical-align:middle;font-size:13px}th{background:#eee;cursor:pointer}\
th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\
tr.ok td.v{background:#c8efc8}tr.bad td.v{background:#f6c4c4}\
.grids{display:flex;gap:2em}figure{margin:0}figcaption{font-size:13px}\
.warn{color:#a00;font-weight:bold}.hint{font-size:12px;color:#666}\
section{border-top:1px solid #ccc;margin-top:1.5em}pre{background:#f6f6f6;padding:4px}";

const SCRIPT: &str = "(function(){var t=document.getElementById('files');if(!t)return;\
var b=t.tBodies[0],hs=t.tHead.rows[0].cells;\
function val(r,i){return r.cells[i].getAttribute('data-v')||'';}\
function sortBy(i,desc){var rows=Array.prototype.slice.call(b.rows);\
rows.sort(function(x,y){var a=val(x,i),c=val(y,i);if(a===''||c===''){return a===c?0:(a===''?1:-1);}\
var na=Number(a),nc=Number(c);var r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return desc?-r:r;});\
rows.forEach(function(r){b.appendChild(r);});\
for(var k=0;k<hs.length;k++){hs[k].removeAttribute('aria-sort');}\
hs[i].setAttribute('aria-sort',desc?'descending':'ascending');}\
for(var i=0;i<hs.length;i++){(function(i){hs[i].addEventListener('click',function(){\
sortBy(i,hs[i].getAttribute('aria-sort')==='ascending');});})(i);}\
var m=/sort=(-?)([a-z_]+)/.exec(location.hash);\
if(m){for(var j=0;j<hs.length;j++){if(hs[j].getAttribute('data-key')===m[2]){sortBy(j,m[1]==='-');}}}})();";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cage, Cell, Op};

    #[test]
    fn a_puzzle_is_drawn_with_its_cages_digits_and_marks() {
        let p = Puzzle::new(
            2,
            vec![Cage::new(
                Op::Sub,
                1,
                vec![Cell::new(1, 1), Cell::new(1, 2)],
            )],
        );
        let svg = puzzle_svg(&p, Some(&vec![vec![1, 1], vec![2, 1]]), &[[1, 2]]);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"92\""));
        assert!(svg.contains(&format!(
            "<rect class=\"mark\" x=\"46\" y=\"2\" width=\"44\" height=\"44\" fill=\"{MARK}\"/>"
        )));
        assert!(svg.contains(">1-</text>"));
        assert_eq!(svg.matches("text-anchor=\"middle\"").count(), 4);
    }
}
