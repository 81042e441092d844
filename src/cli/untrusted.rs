//! Text that came from a judged file (what it printed, its answers, its exceptions, its name)
//! made safe to print: no control character reaches the terminal, no line of it looks like a
//! line of the report, no CSV cell of it is a spreadsheet formula.

/// `text` with every character a terminal would act on, or a reader could not see, written out
/// instead ([`kenken::judge::visible`]): `\e` (escape), `\n`, `\x07`, `\u{9b}` (C1 controls),
/// `\u{202e}` (the bidirectional overrides), `\u{200b}` (a zero-width space)...
pub(crate) fn shown(text: &str) -> String {
    kenken::judge::visible(text)
}

/// The lines of `text` (blank ones left out), each [`shown`] and starting with `prefix`: no
/// line the file printed can pass for a line of ours.
pub(crate) fn shown_lines<'a>(text: &'a str, prefix: &'a str) -> impl Iterator<Item = String> + 'a {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(move |l| format!("{prefix}{}", shown(l.trim_end())))
}

/// Whether a spreadsheet may read a cell that starts with `c` as a formula (OWASP's list, and
/// the full-width forms some read as the same).
fn formula_start(c: char) -> bool {
    matches!(
        c,
        '=' | '+' | '-' | '@' | '\u{ff1d}' | '\u{ff0b}' | '\u{ff0d}' | '\u{ff20}'
    )
}

/// A CSV cell, as OWASP advises for CSV that a spreadsheet may open: [`shown`] (no line break,
/// tab or other control inside), a `'` before a first character (past spaces) that would make
/// it a formula (`=`, `+`, `-`, `@`, or their full-width forms), and before such a character
/// after a `;` (a spreadsheet whose locale splits cells on `;` starts a cell there, whatever
/// the quotes of a comma-separated file say); quoted when it holds a comma, a semicolon or a
/// quote.
pub(crate) fn csv_cell(text: &str) -> String {
    let shown = shown(text);
    let mut cell = String::with_capacity(shown.len() + 2);
    // (at the cell's start, or after a separator, past spaces: where a formula would start)
    let mut at_start = true;
    for c in shown.chars() {
        if at_start && formula_start(c) {
            cell.push('\'');
        }
        if !c.is_whitespace() {
            at_start = false;
        }
        if c == ';' {
            at_start = true;
        }
        cell.push(c);
    }
    if cell.contains([',', ';', '"']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out() {
        assert_eq!(shown("plain text, é ✓"), "plain text, é ✓");
        assert_eq!(shown("\x1b[2J\x1b[H49 cases"), "\\e[2J\\e[H49 cases");
        assert_eq!(shown("a\nb\r\tc\x07\x7f"), "a\\nb\\r\\tc\\x07\\x7f");
        assert_eq!(shown("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(shown("abc\u{202e}fdp.exe"), "abc\\u{202e}fdp.exe");
        assert_eq!(shown("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[test]
    fn each_line_is_prefixed() {
        let lines: Vec<String> =
            shown_lines("warning\n\n49 cases: 49 pass\x1b[K\n", "  | ").collect();
        assert_eq!(lines, vec!["  | warning", "  | 49 cases: 49 pass\\e[K"]);
    }

    #[test]
    fn csv_cells_hold_no_control_and_no_formula() {
        assert_eq!(csv_cell("ann/kenken.pl"), "ann/kenken.pl");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "two\\nlines");
        assert_eq!(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_cell("+1"), "'+1");
        assert_eq!(csv_cell("-1"), "'-1");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("\x1b]0;x\x07"), "\"\\e]0;x\\x07\"");
        // past spaces, after a separator a spreadsheet may split on, in full width
        assert_eq!(csv_cell("  =1+1"), "  '=1+1");
        assert_eq!(csv_cell("a;=cmd()"), "\"a;'=cmd()\"");
        assert_eq!(csv_cell("a; @SUM(A1)"), "\"a; '@SUM(A1)\"");
        assert_eq!(csv_cell("T = [[1,-2]]"), "\"T = [[1,-2]]\"");
        assert_eq!(csv_cell("\u{ff1d}1+1"), "'\u{ff1d}1+1");
        assert_eq!(csv_cell("a-b"), "a-b");
        assert_eq!(csv_cell("\t=1"), "\\t=1");
    }
}
