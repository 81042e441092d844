//! A Prolog source file's bytes as text, as real systems read them: UTF-8 when the bytes are
//! UTF-8, else Latin-1 (ISO 8859-1: every byte a character), as GNU Prolog reads any file
//! (SWI-Prolog loads one that is not UTF-8 too, with a warning). A leaf module: `system` (Scryer, whose reader
//! cannot read a byte that is not UTF-8, is given the text as UTF-8) and `judge` (the form
//! check, the dialect, the report's note) both read a judged file through it.

use std::borrow::Cow;

/// How a source file's bytes were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// UTF-8 (ASCII included).
    Utf8,
    /// Latin-1: the file is not UTF-8; the first byte that is not, and its line (1-based).
    Latin1 { byte: u8, line: usize },
}

impl Encoding {
    /// The sentence a report gives when it matters (a file that is not UTF-8); `None` for UTF-8.
    pub(crate) fn note(self) -> Option<String> {
        match self {
            Encoding::Utf8 => None,
            Encoding::Latin1 { byte, line } => Some(format!(
                "the file is not UTF-8 (byte 0x{byte:02X} on line {line}): it was read as \
                 Latin-1 (ISO 8859-1, every byte a character), as GNU Prolog reads it (and \
                 SWI-Prolog loads it, with a warning)"
            )),
        }
    }
}

/// `bytes` as text, and how they were read: as UTF-8 when they are, else as Latin-1.
pub(crate) fn decode(bytes: &[u8]) -> (Cow<'_, str>, Encoding) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), Encoding::Utf8),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let text: String = bytes.iter().map(|&b| char::from(b)).collect();
            (
                Cow::Owned(text),
                Encoding::Latin1 {
                    byte: bytes[at],
                    line,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_read_as_it_is_and_anything_else_as_latin1() {
        let (text, e) = decode("% 3 × 4\nfoo.\n".as_bytes());
        assert_eq!((text.as_ref(), e), ("% 3 × 4\nfoo.\n", Encoding::Utf8));
        assert!(e.note().is_none());
        // 0xD7 is × in Latin-1; every byte is one character, line breaks kept
        let (text, e) = decode(b"a.\n% 3 \xd7 4\n\xff");
        assert_eq!(text, "a.\n% 3 × 4\nÿ");
        assert_eq!(
            e,
            Encoding::Latin1 {
                byte: 0xd7,
                line: 2
            }
        );
        assert_eq!(
            e.note().unwrap(),
            "the file is not UTF-8 (byte 0xD7 on line 2): it was read as Latin-1 (ISO 8859-1, \
             every byte a character), as GNU Prolog reads it (and SWI-Prolog loads it, with a \
             warning)"
        );
        // a UTF-8 sequence cut short is not UTF-8 either
        let (_, e) = decode(b"x.\n\n\xc3");
        assert_eq!(
            e,
            Encoding::Latin1 {
                byte: 0xc3,
                line: 3
            }
        );
    }
}
