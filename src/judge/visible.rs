//! Text shown as it is: what a judged file had a hand in (its name, what it printed, its
//! answers and exceptions) written so that no character acts on a terminal, none hides, and no
//! name reads like another's.
//!
//! [`visible`] writes out every character a terminal acts on (controls, the bidirectional
//! overrides that reorder what follows them) and every one a reader cannot see (zero-width
//! spaces and joiners, the right-to-left mark, spaces other than the space, variation
//! selectors, tags...): `ann\u{200b}/kenken.pl` can then not pass for `ann/kenken.pl` in a
//! table, a page or a JSON report. [`path_text`] names a file so: its backslashes doubled (an
//! escape is always ours) and the bytes of a name that is not UTF-8 written `\xNN`.

use std::path::Path;

/// Whether `c` is one a reader cannot see, or that changes how text around it is shown: the
/// format characters (Unicode's Cf: soft hyphen, zero-width space and joiners, the left-to-right
/// and right-to-left marks, the bidirectional embeddings, overrides and isolates, the word
/// joiner and invisible operators, the byte order mark, interlinear annotations, tags), the
/// fillers and blanks that show nothing (Hangul fillers, the combining grapheme joiner, the
/// variation selectors, the Braille blank), every space but the space itself, the line and
/// paragraph separators, private-use characters and noncharacters.
pub fn invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202f}'
        | '\u{205f}'..='\u{206f}'
        | '\u{2800}' | '\u{3164}' | '\u{ffa0}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}'
        | '\u{fff0}'..='\u{fffb}'
        | '\u{fffe}' | '\u{ffff}'
        | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}'
        | '\u{3000}'
        | '\u{600}'..='\u{605}' | '\u{6dd}' | '\u{70f}' | '\u{890}' | '\u{891}' | '\u{8e2}'
        | '\u{110bd}' | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}'
        | '\u{e000}'..='\u{f8ff}'
        | '\u{f0000}'..='\u{10ffff}'
    )
}

/// `text` with every character a terminal acts on, or a reader cannot see, written out: `\e`
/// (escape), `\n`, `\r`, `\t`, `\x07` (the other controls below 0x20, and 0x7f), `\u{85}` (the
/// C1 controls), `\u{202e}` (each [`invisible`] character: the bidirectional overrides, the
/// zero-width space, the right-to-left mark, a no-break space...). Anything else is kept.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\x1b' => out.push_str("\\e"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0'..='\x1f' | '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
        '\u{80}'..='\u{9f}' => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c if invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// A file's name as every report shows it: [`visible`], with each backslash doubled (so that
/// an escape in it is always the judge's) and each byte of a name that is not UTF-8 written
/// `\xNN` (`ann\xff.pl`): two files never share a name shown, however they are named.
pub fn path_text(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c => push_visible(&mut out, c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn what_cannot_be_seen_is_written_out() {
        assert_eq!(visible("plain text, é ✓ 日本"), "plain text, é ✓ 日本");
        assert_eq!(visible("\x1b[2J\x1b[H49 cases"), "\\e[2J\\e[H49 cases");
        assert_eq!(visible("a\nb\r\tc\x07\x7f"), "a\\nb\\r\\tc\\x07\\x7f");
        assert_eq!(visible("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(visible("abc\u{202e}fdp.exe"), "abc\\u{202e}fdp.exe");
        // a zero-width space, a right-to-left mark, a no-break space, a byte order mark, a tag
        assert_eq!(visible("ann\u{200b}"), "ann\\u{200b}");
        assert_eq!(visible("\u{200f}bob"), "\\u{200f}bob");
        assert_eq!(visible("a\u{a0}b"), "a\\u{a0}b");
        assert_eq!(visible("\u{feff}x\u{e0041}"), "\\u{feff}x\\u{e0041}");
        assert_eq!(visible("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[test]
    fn names_are_told_apart_however_they_are_named() {
        let name = |bytes: &[u8]| path_text(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(name(b"class/ann/kenken.pl"), "class/ann/kenken.pl");
        assert_eq!(name(b"ann\xff.pl"), "ann\\xff.pl");
        assert_eq!(name("ann\u{200b}.pl".as_bytes()), "ann\\u{200b}.pl");
        // a name that spells an escape is not the escaped name
        assert_eq!(name(b"ann\\u{200b}.pl"), "ann\\\\u{200b}.pl");
        assert_ne!(name(b"ann\\xff.pl"), name(b"ann\xff.pl"));
        assert_eq!(name(b"two\nlines.pl"), "two\\nlines.pl");
    }
}
