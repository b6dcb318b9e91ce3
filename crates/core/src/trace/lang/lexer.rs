//! Turns trace text into tokens the way Python's tokenizer would, so that a snippet pasted from a
//! notebook either means what it meant there or fails with the error Python would give.
//!
//! The lexer owns everything about physical lines: comments, blank lines, backslash continuation
//! and the implicit joining of lines inside brackets. The parser only ever sees logical lines,
//! each closed by one [`Tok::Newline`]. Lexing stops at the first error, which is kept as a final
//! [`Tok::Error`] token: the parser reports it only if it does not fail earlier in the text, so
//! the error shown is always the first one in reading order, as in Python.

use crate::error::Error;

/// Words Python reserves; none of them may name a tensor. `True`, `False` and `None` have their
/// own tokens because they are values. Sorted, for binary search.
mod strings;

const KEYWORDS: [&str; 32] = [
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield",
];

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier; its text is the token's source range.
    Name,
    Int(i64),
    /// An int literal that does not fit 64 bits, as its decimal digits (Python's ints have no
    /// size limit).
    BigInt(String),
    Float(f64),
    Str(String),
    True,
    False,
    None,
    Kw(&'static str),
    Op(Op),
    /// An f-string: literal text and `{...}` fields, whose expressions the parser reads.
    FStr(Vec<FPiece>),
    /// The end of a logical line.
    Newline,
    /// The next logical line is indented deeper than the current block.
    Indent,
    /// The next logical line closes one block.
    Dedent,
    Eof,
    /// Lexing stopped here; the error itself is [`Lexed::error`].
    Error,
}

/// One piece of an f-string as lexed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FPiece {
    Lit(String),
    /// `{expr=!conv:spec}`: the expression's byte range in the source and where it starts.
    Field {
        start: usize,
        end: usize,
        line: usize,
        column: usize,
        conv: Option<char>,
        spec: String,
        /// The field's text through its `=` (`"x = "` in `{x = }`), for self-documenting fields.
        debug: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semi,
    Dot,
    Ellipsis,
    Assign,
    Arrow,
    Walrus,
    Plus,
    Minus,
    Star,
    Slash,
    DoubleSlash,
    Percent,
    DoubleStar,
    At,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    /// `+=`, `**=`, ...: the operator it applies.
    Aug(crate::trace::lang::ast::BinOp),
    /// `<<=` and `>>=`, which have no operator in the trace language.
    AugShift,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    /// Byte range in the source.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 1-based; the column counts characters.
    pub(crate) line: usize,
    pub(crate) column: usize,
}

pub(crate) struct Lexed {
    /// Ends with [`Tok::Eof`], or with [`Tok::Error`] when `error` is set.
    pub(crate) tokens: Vec<Token>,
    pub(crate) error: Option<Error>,
}

pub(crate) fn tokenize(src: &str) -> Lexed {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        pos: 0,
        line: 1,
        col_pos: 0,
        col: 1,
        brackets: Vec::new(),
        // A token every 4 bytes is typical of traces; the guess only saves reallocations.
        tokens: Vec::with_capacity(src.len() / 4 + 2),
        line_open: false,
        line_begin: 0,
        indents: vec![(0, 0)],
    };
    match lx.run() {
        Ok(()) => {
            let (line, column) = lx.position(src.len());
            lx.tokens.push(Token { tok: Tok::Eof, start: src.len(), end: src.len(), line, column });
            Lexed { tokens: lx.tokens, error: None }
        }
        Err(error) => {
            let (line, column) = match &error {
                Error::Parse { line, column, .. } => (*line, *column),
                _ => lx.position(lx.pos),
            };
            let at = lx.pos.min(src.len());
            lx.tokens.push(Token { tok: Tok::Error, start: at, end: at, line, column });
            Lexed { tokens: lx.tokens, error: Some(error) }
        }
    }
}

/// Python's reading of a character that may start or continue an identifier (close enough to
/// XID_Start / XID_Continue for anything a trace contains).
fn ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    line: usize,
    /// Column bookkeeping: `col` is the 1-based column of byte `col_pos`, which only moves forward
    /// within a line, so counting characters stays linear even on one huge line.
    col_pos: usize,
    col: usize,
    /// Open brackets with their positions, for implicit line joining and "was never closed".
    brackets: Vec<(u8, usize, usize)>,
    tokens: Vec<Token>,
    /// Whether the current logical line already has a token.
    line_open: bool,
    /// The byte where the current physical line begins.
    line_begin: usize,
    /// The indentation widths of the open blocks, outermost (0) first.
    /// The open blocks' indentation widths, tabs to multiples of 8 and, as CPython's
    /// tokenizer also keeps them to catch inconsistent tabs, tabs as one column.
    indents: Vec<(usize, usize)>,
}

fn parse_error(line: usize, column: usize, message: impl Into<String>) -> Error {
    Error::Parse { line, column, message: message.into() }
}

/// Whether a digit run may start with `_` (right after a `0x`, `0o` or `0b` prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeadUnderscore {
    Allowed,
    Refused,
}

/// Whether a string literal's backslashes are escapes (`'...'`, `u'...'`) or kept (`r'...'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escapes {
    Processed,
    Raw,
}

impl<'a> Lexer<'a> {
    /// Line and column of byte `at`. Positions are asked for in order; one behind the last
    /// (an error reported at an earlier byte of an f-string field) is counted from the start.
    fn position(&mut self, at: usize) -> (usize, usize) {
        if at < self.col_pos {
            let before = &self.b[..at];
            let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
            let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            let col = 1 + self.b[line_start..at].iter().filter(|&&x| (x & 0xC0) != 0x80).count();
            return (line, col);
        }
        let chars = self.b[self.col_pos..at].iter().filter(|&&x| (x & 0xC0) != 0x80).count();
        self.col += chars;
        self.col_pos = at;
        (self.line, self.col)
    }

    fn error_at(&mut self, at: usize, message: impl Into<String>) -> Error {
        let (line, column) = self.position(at);
        parse_error(line, column, message)
    }

    /// Bookkeeping after the `\n` at byte `at`.
    fn new_line(&mut self, at: usize) {
        self.line_begin = at + 1;
        self.line += 1;
        self.col_pos = at + 1;
        self.col = 1;
    }

    /// Records a token whose start position was taken before lexing it (a string literal may
    /// end on a later line).
    fn push(&mut self, tok: Tok, start: usize, (line, column): (usize, usize)) {
        self.tokens.push(Token { tok, start, end: self.pos, line, column });
        self.line_open = true;
    }

    fn peek_at(&self, at: usize) -> u8 {
        self.b.get(at).copied().unwrap_or(0)
    }

    fn run(&mut self) -> Result<(), Error> {
        let len = self.b.len();
        // Set at the start of every logical line, where Python checks indentation.
        let mut line_start = true;
        loop {
            while self.pos < len && matches!(self.b[self.pos], b' ' | b'\t' | b'\x0c' | b'\r') {
                self.pos += 1;
            }
            if self.pos >= len {
                if let Some(&(open, line, column)) = self.brackets.last() {
                    return Err(parse_error(line, column, format!("'{}' was never closed", open as char)));
                }
                let at = self.position(len);
                if self.line_open {
                    self.push(Tok::Newline, len, at);
                }
                while self.indents.len() > 1 {
                    self.indents.pop();
                    self.tokens.push(Token { tok: Tok::Dedent, start: len, end: len, line: at.0, column: at.1 });
                }
                return Ok(());
            }
            match self.b[self.pos] {
                b'#' => {
                    while self.pos < len && self.b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    continue;
                }
                b'\n' => {
                    if self.brackets.is_empty() {
                        if self.line_open {
                            let at = self.position(self.pos);
                            self.tokens.push(Token {
                                tok: Tok::Newline,
                                start: self.pos,
                                end: self.pos + 1,
                                line: at.0,
                                column: at.1,
                            });
                            self.line_open = false;
                        }
                        line_start = true;
                    }
                    self.new_line(self.pos);
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            if line_start {
                line_start = false;
                self.indentation()?;
            }
            if self.b[self.pos] == b'\\' {
                let mut at = self.pos + 1;
                if self.peek_at(at) == b'\r' {
                    at += 1;
                }
                match self.b.get(at) {
                    Some(b'\n') => {
                        self.new_line(at);
                        self.pos = at + 1;
                        continue;
                    }
                    None => return Err(self.error_at(self.pos, "unexpected EOF while parsing")),
                    Some(_) => {
                        return Err(self.error_at(self.pos, "unexpected character after line continuation character"))
                    }
                }
            }
            self.token()?;
        }
    }

    /// Opens or closes blocks at the first token of a logical line, as Python's tokenizer does:
    /// a deeper line opens one block, a shallower one closes blocks down to a width it opened.
    fn indentation(&mut self) -> Result<(), Error> {
        let (mut width, mut alt) = (0, 0);
        for &x in &self.b[self.line_begin..self.pos] {
            (width, alt) = match x {
                b'\t' => ((width / 8 + 1) * 8, alt + 1),
                b'\x0c' => (0, 0),
                _ => (width + 1, alt + 1),
            };
        }
        let at = self.position(self.pos);
        let token = |tok| Token { tok, start: self.pos, end: self.pos, line: at.0, column: at.1 };
        let (top, top_alt) = self.indents.last().copied().unwrap_or((0, 0));
        const TABS: &str = "inconsistent use of tabs and spaces in indentation";
        if width > top {
            if alt <= top_alt {
                return Err(self.error_at(self.pos, TABS));
            }
            self.indents.push((width, alt));
            self.tokens.push(token(Tok::Indent));
        } else if width < top {
            while self.indents.last().is_some_and(|&(w, _)| w > width) {
                self.indents.pop();
                self.tokens.push(token(Tok::Dedent));
            }
            match self.indents.last() {
                Some(&(w, _)) if w != width => {
                    return Err(self.error_at(self.pos, "unindent does not match any outer indentation level"))
                }
                Some(&(_, a)) if a != alt => return Err(self.error_at(self.pos, TABS)),
                _ => {}
            }
        } else if alt != top_alt {
            return Err(self.error_at(self.pos, TABS));
        }
        Ok(())
    }

    /// Lexes the one token that starts at `self.pos` (not whitespace, comment or newline).
    fn token(&mut self) -> Result<(), Error> {
        let start = self.pos;
        let at = self.position(start);
        let c = self.b[start];
        if c.is_ascii_digit() || (c == b'.' && self.peek_at(start + 1).is_ascii_digit()) {
            let tok = self.number()?;
            self.push(tok, start, at);
            return Ok(());
        }
        if c == b'\'' || c == b'"' {
            let tok = self.string(start, Escapes::Processed)?;
            self.push(tok, start, at);
            return Ok(());
        }
        if let Some((op, len)) = self.operator() {
            self.bracket(op, start)?;
            self.pos += len;
            self.push(Tok::Op(op), start, at);
            return Ok(());
        }
        // Every ASCII byte that can start a token was handled above, except identifiers.
        let ch = self.src[start..].chars().next().unwrap_or('\0');
        if !ident_start(ch) {
            let code = ch as u32;
            let message = if ch.is_control() || ch.is_whitespace() {
                format!("invalid non-printable character U+{code:04X}")
            } else {
                format!("invalid character '{ch}' (U+{code:04X})")
            };
            return Err(self.error_at(start, message));
        }
        self.pos += ch.len_utf8();
        while self.pos < self.b.len() {
            let x = self.b[self.pos];
            if x.is_ascii_alphanumeric() || x == b'_' {
                self.pos += 1;
            } else if x < 0x80 {
                break;
            } else {
                let ch = self.src[self.pos..].chars().next().unwrap_or('\0');
                if !ident_continue(ch) {
                    break;
                }
                self.pos += ch.len_utf8();
            }
        }
        let text = &self.src[start..self.pos];
        let next = self.peek_at(self.pos);
        if (next == b'\'' || next == b'"') && text.len() <= 2 {
            let prefix = text.to_ascii_lowercase();
            let raw = match prefix.as_str() {
                "r" => Some(Escapes::Raw),
                "u" => Some(Escapes::Processed),
                "b" | "br" | "rb" => return Err(self.error_at(start, "bytes literals are not supported")),
                "f" | "fr" | "rf" => {
                    let escapes = if prefix.contains('r') { Escapes::Raw } else { Escapes::Processed };
                    let tok = self.fstring(start, escapes)?;
                    self.push(tok, start, at);
                    return Ok(());
                }
                _ => None,
            };
            if let Some(raw) = raw {
                let tok = self.string(start, raw)?;
                self.push(tok, start, at);
                return Ok(());
            }
        }
        let tok = match text {
            "True" => Tok::True,
            "False" => Tok::False,
            "None" => Tok::None,
            // Keywords are lowercase ASCII of 2 to 8 letters; most names are ruled out here.
            _ if text.len() < 2 || text.len() > 8 || !text.as_bytes()[0].is_ascii_lowercase() => Tok::Name,
            _ => match KEYWORDS.binary_search(&text) {
                Ok(i) => Tok::Kw(KEYWORDS[i]),
                Err(_) => Tok::Name,
            },
        };
        self.push(tok, start, at);
        Ok(())
    }

    /// Tracks brackets so newlines inside them join lines, and so a stray closer is caught here
    /// with Python's wording.
    fn bracket(&mut self, op: Op, at: usize) -> Result<(), Error> {
        let (open, close) = match op {
            Op::LParen | Op::LBracket | Op::LBrace => {
                let (line, column) = self.position(at);
                self.brackets.push((self.b[at], line, column));
                return Ok(());
            }
            Op::RParen => (b'(', ')'),
            Op::RBracket => (b'[', ']'),
            Op::RBrace => (b'{', '}'),
            _ => return Ok(()),
        };
        match self.brackets.pop() {
            None => Err(self.error_at(at, format!("unmatched '{close}'"))),
            Some((o, _, _)) if o == open => Ok(()),
            Some((o, line, _)) => {
                let (here, _) = self.position(at);
                let mut message =
                    format!("closing parenthesis '{close}' does not match opening parenthesis '{}'", o as char);
                if line != here {
                    message.push_str(&format!(" on line {line}"));
                }
                Err(self.error_at(at, message))
            }
        }
    }

    /// The operator at `self.pos` and its length in bytes, longest match first.
    fn operator(&self) -> Option<(Op, usize)> {
        use crate::trace::lang::ast::BinOp as B;
        let c0 = self.b[self.pos];
        let c1 = self.peek_at(self.pos + 1);
        let c2 = self.peek_at(self.pos + 2);
        let three = match (c0, c1, c2) {
            (b'*', b'*', b'=') => Some(Op::Aug(B::Pow)),
            (b'/', b'/', b'=') => Some(Op::Aug(B::FloorDiv)),
            (b'<', b'<', b'=') | (b'>', b'>', b'=') => Some(Op::AugShift),
            (b'.', b'.', b'.') => Some(Op::Ellipsis),
            _ => None,
        };
        if let Some(op) = three {
            return Some((op, 3));
        }
        let two = match (c0, c1) {
            (b'*', b'*') => Some(Op::DoubleStar),
            (b'/', b'/') => Some(Op::DoubleSlash),
            (b'<', b'<') => Some(Op::Shl),
            (b'>', b'>') => Some(Op::Shr),
            (b'<', b'=') => Some(Op::Le),
            (b'>', b'=') => Some(Op::Ge),
            (b'=', b'=') => Some(Op::EqEq),
            (b'!', b'=') => Some(Op::Ne),
            (b'-', b'>') => Some(Op::Arrow),
            (b':', b'=') => Some(Op::Walrus),
            (b'+', b'=') => Some(Op::Aug(B::Add)),
            (b'-', b'=') => Some(Op::Aug(B::Sub)),
            (b'*', b'=') => Some(Op::Aug(B::Mul)),
            (b'/', b'=') => Some(Op::Aug(B::Div)),
            (b'%', b'=') => Some(Op::Aug(B::Mod)),
            (b'@', b'=') => Some(Op::Aug(B::MatMul)),
            (b'&', b'=') => Some(Op::Aug(B::And)),
            (b'|', b'=') => Some(Op::Aug(B::Or)),
            (b'^', b'=') => Some(Op::Aug(B::Xor)),
            _ => None,
        };
        if let Some(op) = two {
            return Some((op, 2));
        }
        let one = match c0 {
            b'(' => Op::LParen,
            b')' => Op::RParen,
            b'[' => Op::LBracket,
            b']' => Op::RBracket,
            b'{' => Op::LBrace,
            b'}' => Op::RBrace,
            b',' => Op::Comma,
            b':' => Op::Colon,
            b';' => Op::Semi,
            b'.' => Op::Dot,
            b'=' => Op::Assign,
            b'+' => Op::Plus,
            b'-' => Op::Minus,
            b'*' => Op::Star,
            b'/' => Op::Slash,
            b'%' => Op::Percent,
            b'@' => Op::At,
            b'&' => Op::Amp,
            b'|' => Op::Pipe,
            b'^' => Op::Caret,
            b'~' => Op::Tilde,
            b'<' => Op::Lt,
            b'>' => Op::Gt,
            _ => return None,
        };
        Some((one, 1))
    }

    /// Consumes `digit (_? digit)*` in the given radix; returns how many digits it saw.
    /// `lead` says whether the `_` Python permits right after a `0x` prefix is allowed.
    fn digits(&mut self, radix: u32, lead: LeadUnderscore) -> Result<usize, Error> {
        let start = self.pos;
        let mut count = 0;
        let mut prev_underscore = false;
        if lead == LeadUnderscore::Allowed && self.peek_at(self.pos) == b'_' {
            self.pos += 1;
            prev_underscore = true;
        }
        while self.pos < self.b.len() {
            let x = self.b[self.pos];
            if (x as char).is_digit(radix) {
                count += 1;
                prev_underscore = false;
            } else if x == b'_' && count > 0 && !prev_underscore {
                prev_underscore = true;
            } else {
                break;
            }
            self.pos += 1;
        }
        if prev_underscore {
            return Err(self.error_at(start, invalid_literal(radix)));
        }
        Ok(count)
    }

    fn number(&mut self) -> Result<Tok, Error> {
        let start = self.pos;
        let prefix = match (self.b[start], self.peek_at(start + 1) | 0x20) {
            (b'0', b'x') => Some(16),
            (b'0', b'o') => Some(8),
            (b'0', b'b') => Some(2),
            _ => None,
        };
        if let Some(radix) = prefix {
            self.pos += 2;
            let count = self.digits(radix, LeadUnderscore::Allowed)?;
            if count == 0 || self.ident_follows() || self.peek_at(self.pos).is_ascii_digit() {
                return Err(self.error_at(start, invalid_literal(radix)));
            }
            let digits = &self.src[start + 2..self.pos];
            return Ok(int_token(digits, radix));
        }
        let int_digits = self.digits(10, LeadUnderscore::Refused)?;
        let mut float = false;
        if self.peek_at(self.pos) == b'.' {
            self.pos += 1;
            float = true;
            // After `1.` a further `_` or digit run is the fraction; `1._` is not a literal.
            if self.peek_at(self.pos) == b'_' {
                return Err(self.error_at(start, invalid_literal(10)));
            }
            self.digits(10, LeadUnderscore::Refused)?;
        }
        if matches!(self.peek_at(self.pos), b'e' | b'E') {
            let mut at = self.pos + 1;
            if matches!(self.peek_at(at), b'+' | b'-') {
                at += 1;
            }
            if self.peek_at(at).is_ascii_digit() {
                self.pos = at;
                self.digits(10, LeadUnderscore::Refused)?;
                float = true;
            } else {
                return Err(self.error_at(start, invalid_literal(10)));
            }
        }
        if matches!(self.peek_at(self.pos), b'j' | b'J') {
            return Err(self.error_at(start, "complex numbers are not supported"));
        }
        if self.ident_follows() {
            return Err(self.error_at(start, invalid_literal(10)));
        }
        let text = &self.src[start..self.pos];
        if float {
            let clean: std::borrow::Cow<str> =
                if text.contains('_') { text.replace('_', "").into() } else { text.into() };
            return match clean.parse::<f64>() {
                Ok(v) => Ok(Tok::Float(v)),
                Err(_) => Err(self.error_at(start, invalid_literal(10))),
            };
        }
        debug_assert!(int_digits > 0, "a number starts with a digit or '.digit'");
        let bytes = text.as_bytes();
        if bytes[0] == b'0' && bytes.iter().any(|&x| x != b'0' && x != b'_') {
            return Err(self.error_at(
                start,
                "leading zeros in decimal integer literals are not permitted; \
                 use an 0o prefix for octal integers",
            ));
        }
        Ok(int_token(text, 10))
    }

    fn ident_follows(&self) -> bool {
        match self.src[self.pos..].chars().next() {
            Some(c) => ident_continue(c),
            None => false,
        }
    }
}

/// An int literal's token: `Int` when it fits 64 bits, `BigInt` (decimal digits) otherwise.
/// `digits` are valid digits of `radix` with `_` separators, as the lexer checked them.
fn int_token(digits: &str, radix: u32) -> Tok {
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if let Ok(v) = i64::from_str_radix(&clean, radix) {
        return Tok::Int(v);
    }
    match num_bigint::BigInt::parse_bytes(clean.as_bytes(), radix) {
        Some(b) => Tok::BigInt(b.to_string()),
        None => Tok::BigInt(clean),
    }
}

fn invalid_literal(radix: u32) -> &'static str {
    match radix {
        16 => "invalid hexadecimal literal",
        8 => "invalid octal literal",
        2 => "invalid binary literal",
        _ => "invalid decimal literal",
    }
}
