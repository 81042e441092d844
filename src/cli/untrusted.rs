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

/// A CSV cell: [`shown`] (no line break or other control inside), a `'` before a first `=`,
/// `+`, `-` or `@` (which a spreadsheet would take for a formula), and quoted when it holds a
/// comma or a quote.
pub(crate) fn csv_cell(text: &str) -> String {
    let mut cell = shown(text);
    if cell.starts_with(['=', '+', '-', '@']) {
        cell.insert(0, '\'');
    }
    if cell.contains([',', '"']) {
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
        assert_eq!(csv_cell("\x1b]0;x\x07"), "\\e]0;x\\x07");
    }
}
