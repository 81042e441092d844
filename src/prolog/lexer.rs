//! The one Prolog lexer of the crate: the ISO tokens of a text, each with its place (byte
//! offset, line and column), for every reader of Prolog text that does not run it (the form
//! check and the dialect detection of `judge`, the goal scanning of the top level).
//!
//! Tokens: names (`foo`), variables (`X`, `_x`), numbers (`12`, `1_000`, `1.5e3`, `0x1F`,
//! `0o17`, `0b101`, `0'c` with its escapes and `0'''`), quoted atoms (`'it''s'`, with escapes),
//! strings (`"..."`), back-quoted text, symbol-character atoms (`:-`, `#=`, `=..`), the solo
//! atoms `!` and `;`, punctuation (`( ) [ ] { } , |`), the end token (a `.` followed by layout,
//! `%` or the end of the text), and comments (`% ...` to the end of the line, `/* ... */`,
//! which do not nest). A character Prolog does not use is a token of its own ([`Kind::Other`]).
//! White space is the only thing between tokens: the tokens' texts and the white space between
//! them make up the whole text.
//!
//! As Scryer's and GNU Prolog's readers, a quoted item stops at a new line that no `\` escapes
//! (it is then not [`closed`](Token::closed), and ends before the new line); a quoted item or a
//! block comment the text ends within is not closed either. The lexer never fails: what it
//! cannot read it gives as it is. One pass, linear in the text, no recursion, any input.
//!
//! This module imports nothing of the crate.

use std::borrow::Cow;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A name: a letter that is not a capital, then letters, digits and `_`.
    Name,
    /// A variable: `_` or a capital letter, then letters, digits and `_`.
    Var,
    /// A number as written: integer, float, `0x`/`0o`/`0b`, or a `0'c` character code.
    Number,
    /// A quoted atom, `'...'`.
    Quoted,
    /// A double-quoted string, `"..."`.
    Str,
    /// A back-quoted text, `` `...` ``.
    BackQuoted,
    /// A run of symbol characters (`+-*/\^<>=~:.?@#&$`) that is not the end token.
    Symbol,
    /// `!` or `;`.
    Solo,
    /// One of `( ) [ ] { } , |`.
    Punct,
    /// The end of a clause: a `.` followed by layout, `%` or the end of the text.
    End,
    /// A `%` comment, up to (not including) the new line.
    LineComment,
    /// A `/* ... */` comment.
    BlockComment,
    /// A character Prolog does not use (a control character, a non-ASCII symbol, ...).
    Other,
}

/// A token: what it is, its text, and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    /// What it is.
    pub(crate) kind: Kind,
    /// Its text, exactly as written (quotes and escapes included).
    pub(crate) text: &'a str,
    /// Its byte offset in the text.
    pub(crate) start: usize,
    /// Its line, from 1.
    pub(crate) line: usize,
    /// Its column in characters, from 1.
    pub(crate) column: usize,
    /// Whether white space or a comment comes right before it (or it starts the text): a `(`
    /// right after a name with none between makes that name a functor.
    pub(crate) layout_before: bool,
    /// False for a quoted item or block comment the text ends within, and for a quoted item
    /// stopped by a new line; true for every other token.
    pub(crate) closed: bool,
}

impl<'a> Token<'a> {
    /// The byte offset just after it.
    pub(crate) fn end(&self) -> usize {
        self.start + self.text.len()
    }

    /// Whether it is a comment (layout).
    pub(crate) fn is_comment(&self) -> bool {
        matches!(self.kind, Kind::LineComment | Kind::BlockComment)
    }

    /// Whether it is a quoted item: a quoted atom, a string or a back-quoted text.
    pub(crate) fn is_quoted(&self) -> bool {
        matches!(self.kind, Kind::Quoted | Kind::Str | Kind::BackQuoted)
    }

    /// The line it ends on (a block comment or a quoted item continued with `\` spans lines).
    pub(crate) fn end_line(&self) -> usize {
        self.line + self.text.bytes().filter(|&b| b == b'\n').count()
    }

    /// What it stands for: a quoted item's characters (without its quotes, a doubled quote as
    /// one, escapes read, `\` and a new line as nothing); any other token's text.
    pub(crate) fn value(&self) -> Cow<'a, str> {
        if !self.is_quoted() {
            return Cow::Borrowed(self.text);
        }
        let mut chars = self.text.chars();
        let quote = chars.next().unwrap_or('\'');
        let inner = chars.as_str();
        let inner = if self.closed {
            inner.strip_suffix(quote).unwrap_or(inner)
        } else {
            inner
        };
        if !inner.contains(['\\', quote]) {
            return Cow::Borrowed(inner);
        }
        let mut out = String::with_capacity(inner.len());
        let mut cursor = Cursor::new(inner);
        while let Some(c) = cursor.bump() {
            if c == quote {
                // a doubled quote
                cursor.eat(quote);
                out.push(quote);
            } else if c == '\\' {
                out.extend(cursor.escape());
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    }
}

/// The symbol characters, of which atoms such as `:-`, `#=` and `=..` are made.
pub(crate) const SYMBOL_CHARS: &str = "+-*/\\^<>=~:.?@#&$";

/// Whether `c` is a symbol character.
pub(crate) fn is_symbol_char(c: char) -> bool {
    SYMBOL_CHARS.contains(c)
}

/// Whether `c` may follow the first character of a name or variable.
pub(crate) fn is_alnum(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The tokens of `text`, comments included, in order.
pub(crate) fn tokens(text: &str) -> Lexer<'_> {
    Lexer {
        cursor: Cursor::new(text),
        layout: true,
    }
}

/// A position in a text: the byte offset, line and column of the next character.
#[derive(Debug, Clone)]
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text,
            pos: 0,
            line: 1,
            column: 1,
        }
    }

    /// The character `k` places ahead (`k` is at most 3: constant time).
    fn peek(&self, k: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(k)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// Takes the next character if it is `c`.
    fn eat(&mut self, c: char) -> bool {
        let here = self.peek(0) == Some(c);
        if here {
            self.bump();
        }
        here
    }

    /// Takes characters while `f` holds for them.
    fn eat_while(&mut self, f: impl Fn(char) -> bool) {
        let rest = &self.text[self.pos..];
        for c in rest.chars() {
            if !f(c) {
                break;
            }
            self.pos += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    /// An escape sequence after its `\`: the character it stands for (none for a line
    /// continuation or a code that is no character). `\x41\` and `\101\` end at their closing
    /// `\` (taken when there); any other escaped character stands for itself.
    fn escape(&mut self) -> Option<char> {
        let c = self.bump()?;
        let radix = match c {
            'x' => 16,
            '0'..='7' => 8,
            'n' => return Some('\n'),
            't' => return Some('\t'),
            'r' => return Some('\r'),
            'a' => return Some('\u{07}'),
            'b' => return Some('\u{08}'),
            'f' => return Some('\u{0c}'),
            'v' => return Some('\u{0b}'),
            'e' => return Some('\u{1b}'),
            's' => return Some(' '),
            '\n' => return None,
            other => return Some(other),
        };
        let from = if radix == 16 { self.pos } else { self.pos - 1 };
        self.eat_while(|d| d.is_digit(radix));
        let code = u32::from_str_radix(&self.text[from..self.pos], radix).ok();
        self.eat('\\');
        code.and_then(char::from_u32)
    }
}

/// The lexer: an iterator over the tokens of a text ([`tokens`]).
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'a> {
    cursor: Cursor<'a>,
    /// Whether layout came since the last token.
    layout: bool,
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let cur = &mut self.cursor;
        let from = cur.pos;
        cur.eat_while(char::is_whitespace);
        self.layout |= cur.pos > from;
        let (start, line, column) = (cur.pos, cur.line, cur.column);
        let c = cur.peek(0)?;
        let mut closed = true;
        let kind = match c {
            '%' => {
                cur.eat_while(|d| d != '\n');
                Kind::LineComment
            }
            '/' if cur.peek(1) == Some('*') => {
                cur.bump();
                cur.bump();
                closed = false;
                while let Some(d) = cur.bump() {
                    if d == '*' && cur.eat('/') {
                        closed = true;
                        break;
                    }
                }
                Kind::BlockComment
            }
            '0'..='9' => {
                number(cur);
                Kind::Number
            }
            '\'' | '"' | '`' => {
                cur.bump();
                closed = quoted(cur, c);
                match c {
                    '\'' => Kind::Quoted,
                    '"' => Kind::Str,
                    _ => Kind::BackQuoted,
                }
            }
            c if c == '_' || c.is_uppercase() => {
                cur.eat_while(is_alnum);
                Kind::Var
            }
            c if c.is_alphabetic() => {
                cur.eat_while(is_alnum);
                Kind::Name
            }
            c if is_symbol_char(c) => {
                cur.eat_while(is_symbol_char);
                let ends = cur.peek(0).is_none_or(|d| d.is_whitespace() || d == '%');
                if &cur.text[start..cur.pos] == "." && ends {
                    Kind::End
                } else {
                    Kind::Symbol
                }
            }
            '!' | ';' => {
                cur.bump();
                Kind::Solo
            }
            '(' | ')' | '[' | ']' | '{' | '}' | ',' | '|' => {
                cur.bump();
                Kind::Punct
            }
            _ => {
                cur.bump();
                Kind::Other
            }
        };
        let token = Token {
            kind,
            text: &cur.text[start..cur.pos],
            start,
            line,
            column,
            layout_before: self.layout,
            closed,
        };
        self.layout = token.is_comment();
        Some(token)
    }
}

/// Reads a number whose first digit is next.
fn number(cur: &mut Cursor) {
    let first = cur.peek(0);
    let second = cur.peek(1);
    if first == Some('0') && second == Some('\'') {
        // 0'\ then a new line is no character code: 0, then a quoted atom (ISO conformity #259)
        if cur.peek(2) == Some('\\') && cur.peek(3) == Some('\n') {
            cur.bump();
            return;
        }
        // 0'c: an escape, a doubled quote (or a lone one) or any character is one
        cur.bump();
        cur.bump();
        match cur.bump() {
            Some('\\') => {
                cur.escape();
            }
            Some('\'') => {
                cur.eat('\'');
            }
            _ => {}
        }
        return;
    }
    if first == Some('0') {
        let radix = match second {
            Some('x') => 16,
            Some('o') => 8,
            Some('b') => 2,
            _ => 10,
        };
        if radix != 10 && cur.peek(2).is_some_and(|d| d.is_digit(radix)) {
            cur.bump();
            cur.bump();
            cur.eat_while(|d| d.is_digit(radix));
            return;
        }
    }
    let digits = |cur: &mut Cursor| loop {
        cur.eat_while(|d| d.is_ascii_digit());
        // 1_000: a `_` between digits
        if cur.peek(0) == Some('_') && cur.peek(1).is_some_and(|d| d.is_ascii_digit()) {
            cur.bump();
        } else {
            break;
        }
    };
    digits(cur);
    // a fraction needs a digit after the point (`1.` ends a clause, `X = 1.e` is `1` then `.e`)
    if cur.peek(0) == Some('.') && cur.peek(1).is_some_and(|d| d.is_ascii_digit()) {
        cur.bump();
        digits(cur);
        if matches!(cur.peek(0), Some('e' | 'E')) {
            let sign = usize::from(matches!(cur.peek(1), Some('+' | '-')));
            if cur.peek(1 + sign).is_some_and(|d| d.is_ascii_digit()) {
                for _ in 0..=sign {
                    cur.bump();
                }
                digits(cur);
            }
        }
    }
}

/// Reads a quoted item after its opening `quote`: whether it is closed (false when a new line
/// that no `\` escapes, left unread, or the end of the text comes first).
fn quoted(cur: &mut Cursor, quote: char) -> bool {
    loop {
        match cur.peek(0) {
            None | Some('\n') => return false,
            Some('\\') => {
                cur.bump();
                cur.escape();
            }
            Some(c) => {
                cur.bump();
                if c == quote && !cur.eat(quote) {
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokens(text).map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn character_codes() {
        use Kind::*;
        // 0''' is the code of the quote; 0'' alone too
        assert_eq!(kinds("0'''"), [(Number, "0'''")]);
        assert_eq!(kinds("0'' ."), [(Number, "0''"), (End, ".")]);
        // 0'  (a space) is the code of the space; 0'. is no end
        assert_eq!(kinds("0' ."), [(Number, "0' "), (End, ".")]);
        assert_eq!(kinds("0'.."), [(Number, "0'."), (End, ".")]);
        // escapes, with their closing backslash
        assert_eq!(
            kinds("0'\\n 0'\\x41\\ 0'\\101\\."),
            [
                (Number, "0'\\n"),
                (Number, "0'\\x41\\"),
                (Number, "0'\\101\\"),
                (End, ".")
            ]
        );
        // 0'\ and a new line: 0, then a quoted atom continued on the next line
        assert_eq!(kinds("0'\\\n+'"), [(Number, "0"), (Quoted, "'\\\n+'")]);
        // a 0 inside a name is no character code
        assert_eq!(kinds("a0'b'"), [(Name, "a0"), (Quoted, "'b'")]);
    }

    #[test]
    fn numbers() {
        use Kind::*;
        assert_eq!(
            kinds("1_000 1.5e-3 0x1F 0o17 0b101 2.x 0xg"),
            [
                (Number, "1_000"),
                (Number, "1.5e-3"),
                (Number, "0x1F"),
                (Number, "0o17"),
                (Number, "0b101"),
                (Number, "2"),
                (Symbol, "."),
                (Name, "x"),
                (Number, "0"),
                (Name, "xg")
            ]
        );
        assert_eq!(
            kinds("n(1)."),
            [
                (Name, "n"),
                (Punct, "("),
                (Number, "1"),
                (Punct, ")"),
                (End, ".")
            ]
        );
    }

    #[test]
    fn quoted_items_and_their_values() {
        use Kind::*;
        // a doubled quote is one; the other quotes are plain characters inside
        let t: Vec<Token> = tokens("\"a\"\"b\" 'it''s' `x'\"`").collect();
        assert_eq!(
            t.iter().map(|t| (t.kind, t.value())).collect::<Vec<_>>(),
            [
                (Str, Cow::from("a\"b")),
                (Quoted, Cow::from("it's")),
                (BackQuoted, Cow::from("x'\""))
            ]
        );
        assert_eq!(
            tokens("'a\\'b\\x41\\\\n\\\nc'").next().unwrap().value(),
            "a'bA\nc"
        );
        // a new line stops a quoted item, which is then not closed
        let t: Vec<Token> = tokens("X = 'abc.\nY").collect();
        assert_eq!(t[2].text, "'abc.");
        assert!(!t[2].closed);
        assert_eq!((t[3].kind, t[3].line, t[3].column), (Var, 2, 1));
        // the end of the text too
        let last = tokens("'abc\\").last().unwrap();
        assert!(!last.closed);
        assert_eq!(last.value(), "abc");
    }

    #[test]
    fn ends_and_comments() {
        use Kind::*;
        assert_eq!(kinds("a.b"), [(Name, "a"), (Symbol, "."), (Name, "b")]);
        assert_eq!(kinds("a. b"), [(Name, "a"), (End, "."), (Name, "b")]);
        assert_eq!(
            kinds("end.%c"),
            [(Name, "end"), (End, "."), (LineComment, "%c")]
        );
        assert_eq!(
            kinds("X =.. Y."),
            [(Var, "X"), (Symbol, "=.."), (Var, "Y"), (End, ".")]
        );
        // block comments do not nest: the first */ ends it
        assert_eq!(
            kinds("/* a /* b */ c */"),
            [(BlockComment, "/* a /* b */"), (Name, "c"), (Symbol, "*/")]
        );
        let open = tokens("p /* q.").last().unwrap();
        assert_eq!((open.kind, open.closed), (BlockComment, false));
        // a `(` right after a name, or after layout
        let t: Vec<Token> = tokens("f(a) :- - /**/(1).").collect();
        assert!(!t[1].layout_before);
        assert!(t[7].layout_before && t[7].text == "(");
        assert_eq!(
            kinds("[] {} !;|§"),
            [
                (Punct, "["),
                (Punct, "]"),
                (Punct, "{"),
                (Punct, "}"),
                (Solo, "!"),
                (Solo, ";"),
                (Punct, "|"),
                (Other, "§")
            ]
        );
    }

    #[test]
    fn lines_and_columns() {
        let t: Vec<Token> = tokens("a :-\n  /* x\n y */ 'é' b.\n").collect();
        let places: Vec<(usize, usize)> = t.iter().map(|t| (t.line, t.column)).collect();
        assert_eq!(places, [(1, 1), (1, 3), (2, 3), (3, 7), (3, 11), (3, 12)]);
        assert_eq!(t[2].end_line(), 3);
    }

    #[test]
    fn huge_and_deep_inputs_are_read_in_one_pass() {
        let text = format!("{}{}", "f(".repeat(1 << 20), "'".repeat(1 << 20));
        // (the quotes: one quoted atom of doubled quotes)
        assert_eq!(tokens(&text).count(), (1 << 21) + 1);
        let comment = format!("/*{}", "*".repeat(1 << 22));
        assert_eq!(tokens(&comment).count(), 1);
    }

    /// The lexer's speed on Prolog text (`prolog/kenken.pl` repeated to 8 MiB), beside one pass
    /// over its characters: `cargo test --lib lexer_speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn lexer_speed() {
        let one = include_str!("../../prolog/kenken.pl");
        let text = one.repeat((8 << 20) / one.len() + 1);
        let time = |f: &dyn Fn() -> usize| {
            let start = std::time::Instant::now();
            let n = (0..5).map(|_| f()).sum::<usize>();
            (start.elapsed() / 5, n)
        };
        let (chars, _) = time(&|| text.chars().filter(|c| c.is_alphanumeric()).count());
        let (lex, n) = time(&|| tokens(&text).count());
        let mib = text.len() as f64 / f64::from(1 << 20);
        println!(
            "{mib:.1} MiB, {} tokens: lexer {lex:?} ({:.0} MiB/s), a pass over the characters \
             {chars:?}: ratio {:.1}",
            n / 5,
            mib / lex.as_secs_f64(),
            lex.as_secs_f64() / chars.as_secs_f64()
        );
    }

    /// The tokens' texts, with the white space between them, make up the text: joined, they
    /// are the text without the layout between tokens.
    fn check_cover(text: &str) {
        let mut at = 0;
        let mut joined = String::new();
        let mut non_layout = String::new();
        for t in tokens(text) {
            assert!(t.start >= at && !t.text.is_empty(), "{t:?} at {at}");
            let gap = &text[at..t.start];
            assert!(gap.chars().all(char::is_whitespace), "{gap:?}");
            assert_eq!(&text[t.start..t.end()], t.text);
            let _ = (t.value(), t.end_line());
            joined.push_str(t.text);
            at = t.end();
        }
        assert!(text[at..].chars().all(char::is_whitespace));
        // the text, its white space outside tokens left out
        let mut inside = vec![false; text.len()];
        for t in tokens(text) {
            inside[t.start..t.end()].fill(true);
        }
        for (i, c) in text.char_indices() {
            if inside[i] || !c.is_whitespace() {
                non_layout.push(c);
            }
        }
        assert_eq!(joined, non_layout);
    }

    proptest! {
        #[test]
        fn any_bytes_are_read_and_covered(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            check_cover(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn prolog_like_text_is_read_and_covered(
            text in "[a-zA-Z0-9_'\"`\\\\ \n%/*.()\\[\\]{},|!;:=#+-]{0,200}"
        ) {
            check_cover(&text);
        }
    }
}
