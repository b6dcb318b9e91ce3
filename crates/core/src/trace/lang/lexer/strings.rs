//! String literals and f-strings as Python's tokenizer reads them: quotes and prefixes, escapes
//! (with Python's errors for truncated ones), and an f-string's literal runs and fields.

use super::*;

impl Lexer<'_> {
    /// A '...' or "..." literal starting with its quote at `self.pos`; `start` includes any
    /// prefix, for error positions.
    pub(super) fn string(&mut self, start: usize, escapes: Escapes) -> Result<Tok, Error> {
        let raw = escapes == Escapes::Raw;
        let quote = self.b[self.pos];
        if self.peek_at(self.pos + 1) == quote && self.peek_at(self.pos + 2) == quote {
            return Err(self.error_at(start, "triple-quoted strings are not supported"));
        }
        // Positions inside the literal may sit on later lines; fix the start's column first.
        let (line, column) = self.position(start);
        let unterminated = || parse_error(line, column, "unterminated string literal");
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.pos;
            while self.pos < self.b.len() && !matches!(self.b[self.pos], b'\\' | b'\n') && self.b[self.pos] != quote {
                self.pos += 1;
            }
            out.push_str(&self.src[run..self.pos]);
            match self.b.get(self.pos) {
                None | Some(b'\n') => return Err(unterminated()),
                Some(&x) if x == quote => {
                    self.pos += 1;
                    return Ok(Tok::Str(out));
                }
                _ => {}
            }
            // A backslash.
            let esc = self.pos;
            let Some(&next) = self.b.get(esc + 1) else {
                return Err(unterminated());
            };
            if next == b'\n' {
                // Backslash-newline continues the literal on the next line.
                if raw {
                    out.push_str("\\\n");
                }
                self.new_line(esc + 1);
                self.pos = esc + 2;
                continue;
            }
            if raw {
                // In a raw literal a backslash only keeps the next quote from ending it.
                out.push('\\');
                self.pos = esc + 1;
                if next == quote || next == b'\\' {
                    out.push(next as char);
                    self.pos += 1;
                }
                continue;
            }
            self.pos = esc + 2;
            let simple = match next {
                b'\\' => Some('\\'),
                b'\'' => Some('\''),
                b'"' => Some('"'),
                b'n' => Some('\n'),
                b't' => Some('\t'),
                b'r' => Some('\r'),
                b'a' => Some('\x07'),
                b'b' => Some('\x08'),
                b'f' => Some('\x0c'),
                b'v' => Some('\x0b'),
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                continue;
            }
            let code = match next {
                b'0'..=b'7' => {
                    let mut v = u32::from(next - b'0');
                    for _ in 0..2 {
                        match self.peek_at(self.pos) {
                            d @ b'0'..=b'7' => {
                                v = v * 8 + u32::from(d - b'0');
                                self.pos += 1;
                            }
                            _ => break,
                        }
                    }
                    Some(v)
                }
                b'x' => Some(self.hex_escape(esc, 2, line, column)?),
                b'u' => Some(self.hex_escape(esc, 4, line, column)?),
                b'U' => Some(self.hex_escape(esc, 8, line, column)?),
                b'N' => return Err(parse_error(line, column, "\\N{...} escapes are not supported")),
                _ => None,
            };
            match code {
                Some(v) => match char::from_u32(v) {
                    Some(c) => out.push(c),
                    None => return Err(parse_error(line, column, "invalid unicode escape in string")),
                },
                // Python keeps an unknown escape as written.
                None => {
                    out.push('\\');
                    self.pos = esc + 1;
                }
            }
        }
    }

    /// An f-string starting with its quote at `self.pos`: literal runs (with `{{`, `}}` and the
    /// common escapes) and fields, whose expression text the parser tokenizes on its own.
    pub(super) fn fstring(&mut self, start: usize, escapes: Escapes) -> Result<Tok, Error> {
        let quote = self.b[self.pos];
        if self.peek_at(self.pos + 1) == quote && self.peek_at(self.pos + 2) == quote {
            return Err(self.error_at(start, "triple-quoted strings are not supported"));
        }
        let (line, column) = self.position(start);
        let unterminated = || parse_error(line, column, "unterminated f-string literal");
        self.pos += 1;
        let mut parts = Vec::new();
        let mut lit = String::new();
        loop {
            let Some(&x) = self.b.get(self.pos) else { return Err(unterminated()) };
            match x {
                b'\n' => return Err(unterminated()),
                _ if x == quote => {
                    self.pos += 1;
                    break;
                }
                b'{' | b'}' if self.peek_at(self.pos + 1) == x => {
                    lit.push(x as char);
                    self.pos += 2;
                }
                b'}' => return Err(self.error_at(self.pos, "f-string: single '}' is not allowed")),
                b'{' => {
                    if !lit.is_empty() {
                        parts.push(FPiece::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(self.fstring_field(quote)?);
                }
                b'\\' if escapes == Escapes::Processed => {
                    let next = self.peek_at(self.pos + 1);
                    let c = match next {
                        b'n' => Some('\n'),
                        b't' => Some('\t'),
                        b'r' => Some('\r'),
                        b'\\' | b'\'' | b'"' => Some(next as char),
                        _ => None,
                    };
                    match c {
                        Some(c) => {
                            lit.push(c);
                            self.pos += 2;
                        }
                        None => {
                            lit.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                _ => {
                    let ch = self.src[self.pos..].chars().next().unwrap_or('\0');
                    lit.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
        if !lit.is_empty() {
            parts.push(FPiece::Lit(lit));
        }
        Ok(Tok::FStr(parts))
    }

    /// One `{...}` field of an f-string, `self.pos` on its `{`.
    fn fstring_field(&mut self, quote: u8) -> Result<FPiece, Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut depth = 0usize;
        let mut inner_quote: Option<u8> = None;
        let mut debug_end = None;
        let end = loop {
            let Some(&x) = self.b.get(self.pos) else {
                return Err(self.error_at(open, "f-string: expecting '}'"));
            };
            if x == b'\n' || (x == quote && inner_quote.is_none()) {
                return Err(self.error_at(open, "f-string: expecting '}'"));
            }
            if let Some(q) = inner_quote {
                if x == q {
                    inner_quote = None;
                }
                self.pos += 1;
                continue;
            }
            match x {
                b'\'' | b'"' => inner_quote = Some(x),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                b'}' if depth > 0 => depth -= 1,
                b'}' | b':' if depth == 0 => break self.pos,
                b'!' if depth == 0 && self.peek_at(self.pos + 1) != b'=' => break self.pos,
                b'=' if depth == 0 => {
                    let prev = if self.pos > start { self.b[self.pos - 1] } else { b' ' };
                    let next = self.peek_at(self.pos + 1);
                    if !matches!(prev, b'=' | b'!' | b'<' | b'>') && next != b'=' {
                        let mut at = self.pos + 1;
                        while matches!(self.peek_at(at), b' ' | b'\t') {
                            at += 1;
                        }
                        if matches!(self.peek_at(at), b'}' | b'!' | b':') {
                            debug_end = Some(at);
                            let expr_end = self.pos;
                            self.pos = at;
                            break expr_end;
                        }
                    }
                }
                _ => {}
            }
            self.pos += 1;
        };
        let debug = debug_end.map(|d| self.src[start..d].to_string());
        // The expression without the blanks around it (the parser sees it as a line of its own).
        let text = &self.src[start..end];
        let lead = text.len() - text.trim_start().len();
        let (e_start, e_end) = (start + lead, start + text.trim_end().len());
        if e_start >= e_end {
            return Err(self.error_at(open, "f-string: empty expression not allowed"));
        }
        let (line, column) = self.position(e_start);
        let mut conv = None;
        if self.peek_at(self.pos) == b'!' {
            conv = match self.peek_at(self.pos + 1) {
                c @ (b'r' | b's' | b'a') => Some(c as char),
                _ => {
                    return Err(
                        self.error_at(self.pos, "f-string: invalid conversion character: expected 's', 'r', or 'a'")
                    )
                }
            };
            self.pos += 2;
        }
        let mut spec = String::new();
        if self.peek_at(self.pos) == b':' {
            self.pos += 1;
            while let Some(&x) = self.b.get(self.pos) {
                match x {
                    b'}' => break,
                    b'{' => {
                        return Err(self.error_at(self.pos, "nested fields in f-string format specs are not supported"))
                    }
                    b'\n' => return Err(self.error_at(open, "f-string: expecting '}'")),
                    _ if x == quote => return Err(self.error_at(open, "f-string: expecting '}'")),
                    _ => {}
                }
                let ch = self.src[self.pos..].chars().next().unwrap_or('\0');
                spec.push(ch);
                self.pos += ch.len_utf8();
            }
        }
        if self.peek_at(self.pos) != b'}' {
            return Err(self.error_at(open, "f-string: expecting '}'"));
        }
        self.pos += 1;
        Ok(FPiece::Field { start: e_start, end: e_end, line, column, conv, spec, debug })
    }

    fn hex_escape(&mut self, esc: usize, n: usize, line: usize, column: usize) -> Result<u32, Error> {
        let digits = self.b.get(esc + 2..esc + 2 + n);
        let value = digits
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .map(|d| d.iter().fold(0u32, |v, &x| v * 16 + (x as char).to_digit(16).unwrap_or(0)));
        match value {
            Some(v) => {
                self.pos = esc + 2 + n;
                Ok(v)
            }
            None => Err(parse_error(line, column, format!("truncated \\{} escape in string", self.b[esc + 1] as char))),
        }
    }
}
