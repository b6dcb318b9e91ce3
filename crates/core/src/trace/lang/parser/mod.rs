//! Builds the syntax tree of a trace from its tokens: the statement and expression subset of
//! Python that a tensor-aliasing snippet needs, with Python's precedence and error wording.
//!
//! Anything outside the subset (`class`, `try`, `lambda`, attribute assignment, ...) is refused here with
//! a message that names it, so the runner never meets a construct it cannot execute. Recursion is
//! bounded: both the parser's own nesting and the height of the tree it builds stop at
//! [`MAX_NESTING`], so neither parsing nor any later walk of the tree can overflow the stack.

use crate::error::{bail, Error, Result};
use crate::trace::lang::ast::{BinOp, Expr, ExprKind, Import, Program, Span, Star, Stmt, StmtKind, Target, UnaryOp};
use crate::trace::lang::lexer::{self, Op, Tok, Token};

mod expr;
mod stmt;

/// The largest source accepted, in bytes.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;
/// The most statements a trace may have (written; executed ones have their own limit).
pub const MAX_STATEMENTS: usize = 10_000;
/// The deepest nesting of brackets and operators, and the tallest expression tree.
pub const MAX_NESTING: usize = 200;

/// Parses a whole trace. Import lines are accepted and produce no statement, so a snippet copied
/// from a notebook runs unchanged.
pub fn parse(src: &str) -> Result<Program> {
    if src.len() > MAX_SOURCE_BYTES {
        bail!(Limit, "trace is longer than 1 MiB");
    }
    let lexed = lexer::tokenize(src);
    let mut parser = Parser {
        src,
        toks: &lexed.tokens,
        lex_error: lexed.error.as_ref(),
        pos: 0,
        depth: 0,
        ops: Vec::new(),
        vals: Vec::new(),
        count: 0,
        funcs: 0,
        loops: 0,
        imports: Vec::new(),
    };
    parser.program()
}

/// An expression with the height of its tree (a leaf is 0), carried so the height limit costs
/// nothing to check.
struct Node {
    expr: Expr,
    height: usize,
}

/// Binding powers, lowest first: comparisons, then the table below, then prefix `-`, `+`, `~`,
/// then `**` (so `-2**2` is `-(2**2)` while `2**-1` takes the sign into its exponent).
const CMP: u8 = 1;
const UNARY: u8 = 8;
const POW: u8 = 9;

/// An operator waiting on the shunting-yard stack for its right operand.
struct Pending {
    op: PendingOp,
    prec: u8,
    /// The operator token (where a unary node starts, and where a too-deep error points).
    span: Span,
}

enum PendingOp {
    Unary(UnaryOp),
    Binary(BinOp),
    /// A comparison after another one: `b < c` of `a < b < c` joins the chain on its left.
    Chained(BinOp),
}

fn binary_op(op: Op) -> Option<(BinOp, u8)> {
    Some(match op {
        Op::Lt => (BinOp::Lt, CMP),
        Op::Le => (BinOp::Le, CMP),
        Op::Gt => (BinOp::Gt, CMP),
        Op::Ge => (BinOp::Ge, CMP),
        Op::EqEq => (BinOp::Eq, CMP),
        Op::Ne => (BinOp::Ne, CMP),
        Op::Pipe => (BinOp::Or, 2),
        Op::Caret => (BinOp::Xor, 3),
        Op::Amp => (BinOp::And, 4),
        Op::Shl => (BinOp::Shl, 5),
        Op::Shr => (BinOp::Shr, 5),
        Op::Plus => (BinOp::Add, 6),
        Op::Minus => (BinOp::Sub, 6),
        Op::Star => (BinOp::Mul, 7),
        Op::Slash => (BinOp::Div, 7),
        Op::DoubleSlash => (BinOp::FloorDiv, 7),
        Op::Percent => (BinOp::Mod, 7),
        Op::At => (BinOp::MatMul, 7),
        _ => return None,
    })
}

/// Whether `tok` can begin an expression (including the ones refused with a message).
fn starts_expr(tok: &Tok) -> bool {
    match tok {
        Tok::Name
        | Tok::Int(_)
        | Tok::BigInt(_)
        | Tok::Float(_)
        | Tok::Str(_)
        | Tok::FStr(_)
        | Tok::True
        | Tok::False => true,
        Tok::None => true,
        Tok::Kw(k) => matches!(*k, "not" | "lambda" | "await" | "yield"),
        Tok::Op(op) => matches!(
            op,
            Op::LParen
                | Op::LBracket
                | Op::LBrace
                | Op::Minus
                | Op::Plus
                | Op::Tilde
                | Op::Ellipsis
                | Op::Star
                | Op::DoubleStar
        ),
        Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof | Tok::Error => false,
    }
}

/// How an expression reads in "cannot assign to ..." messages.
fn describe(kind: &ExprKind) -> &'static str {
    match kind {
        ExprKind::Call { .. } => "function call",
        ExprKind::Int(_) | ExprKind::BigInt(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::FString(_) => {
            "literal"
        }
        ExprKind::BoolOp { .. } | ExprKind::Unary { op: UnaryOp::Not, .. } => "expression",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::Comp { .. } => "comprehension",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::List(_) => "list",
        ExprKind::Dict(_) => "dict display",
        ExprKind::Attr { .. } => "attribute",
        ExprKind::Index { .. } => "subscript",
        ExprKind::Binary { op: BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, .. }
        | ExprKind::Compare { .. } => "comparison",
        _ => "expression",
    }
}

struct Parser<'a> {
    src: &'a str,
    toks: &'a [Token],
    lex_error: Option<&'a Error>,
    pos: usize,
    /// Brackets open around the current position: the parser's recursion depth.
    depth: usize,
    /// Shunting-yard stacks, shared by every nesting level (each level works above the lengths
    /// it found), so an expression allocates nothing but its own nodes.
    ops: Vec<Pending>,
    vals: Vec<Node>,
    /// Statements parsed so far, nested ones included.
    count: usize,
    /// How many `def` and loop bodies enclose the current position (for `return` and `break`).
    funcs: usize,
    loops: usize,
    /// What the import lines bind so far.
    imports: Vec<Import>,
}

impl<'a> Parser<'a> {
    fn tok(&self) -> &'a Token {
        // The token list always ends with Eof or Error, and `bump` never moves past it.
        &self.toks[self.pos]
    }

    fn peek(&self) -> &'a Tok {
        &self.tok().tok
    }

    fn peek2(&self) -> &'a Tok {
        match self.toks.get(self.pos + 1) {
            Some(t) => &t.tok,
            None => &Tok::Eof,
        }
    }

    fn bump(&mut self) -> &'a Token {
        let t = &self.toks[self.pos];
        if !matches!(t.tok, Tok::Eof | Tok::Error) {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, op: Op) -> bool {
        if matches!(self.peek(), Tok::Op(o) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn text(&self, t: &Token) -> &'a str {
        &self.src[t.start..t.end]
    }

    fn span(t: &Token) -> Span {
        Span { line: t.line, column: t.column }
    }

    #[cold]
    #[inline(never)]
    fn error_at(&self, span: Span, message: impl Into<String>) -> Error {
        Error::Parse { line: span.line, column: span.column, message: message.into() }
    }

    /// The error for the current token: the lexer's own if lexing stopped here, else `message`.
    #[cold]
    #[inline(never)]
    fn error_here(&self, message: impl Into<String>) -> Error {
        let t = self.tok();
        if let (Tok::Error, Some(e)) = (&t.tok, self.lex_error) {
            return e.clone();
        }
        self.error_at(Self::span(t), message)
    }

    /// Python's complaint about an unexpected token, naming the constructs it would have started.
    #[cold]
    #[inline(never)]
    fn unexpected(&self) -> Error {
        let t = self.tok();
        let message = match &t.tok {
            Tok::Kw(k) => unsupported_keyword(k),
            Tok::Op(Op::Star) | Tok::Op(Op::DoubleStar) => "starred expressions are not supported".to_string(),
            Tok::Op(Op::Walrus) => "':=' is not supported".to_string(),
            Tok::Op(Op::AugShift) => {
                format!("'{}' is not supported", self.text(t))
            }
            Tok::Op(Op::RParen | Op::RBracket | Op::RBrace) => {
                format!("unexpected '{}'", self.text(t))
            }
            _ => "invalid syntax".to_string(),
        };
        self.error_here(message)
    }

    fn expect_close(&mut self, op: Op, close: char) -> Result<()> {
        if self.eat(op) {
            return Ok(());
        }
        Err(self.close_error(close))
    }

    /// The error when a list of items goes on with something that is neither ',' nor `close`.
    #[cold]
    #[inline(never)]
    fn close_error(&self, close: char) -> Error {
        if starts_expr(self.peek()) {
            return self.error_here("invalid syntax. Perhaps you forgot a comma?");
        }
        if matches!(self.peek(), Tok::Kw(_) | Tok::Op(Op::Walrus)) {
            return self.unexpected();
        }
        self.error_here(format!("expected '{close}'"))
    }

    fn enter(&mut self, span: Span) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_at(span, too_deep()));
        }
        Ok(())
    }

    fn leave(&mut self) {
        debug_assert!(self.depth > 0);
        self.depth -= 1;
    }

    fn node(&self, span: Span, kind: ExprKind, height: usize) -> Result<Node> {
        if height > MAX_NESTING {
            return Err(self.error_at(span, too_deep()));
        }
        Ok(Node { expr: Expr { span, kind }, height })
    }

    fn program(&mut self) -> Result<Program> {
        let stmts = self.statements(Block::Top)?;
        Ok(Program { stmts, imports: std::mem::take(&mut self.imports) })
    }

    /// Statements through the end of the trace (top level) or of the block (its Dedent).
    fn statements(&mut self, block: Block) -> Result<Vec<Stmt>> {
        let mut stmts = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => return Ok(stmts),
                Tok::Dedent if block == Block::Nested => {
                    self.bump();
                    return Ok(stmts);
                }
                Tok::Newline => {
                    self.bump();
                    continue;
                }
                Tok::Indent => return Err(self.error_here("unexpected indent")),
                _ => {}
            }
            if let Some(stmt) = self.compound()? {
                self.counted(&mut stmts, stmt)?;
                continue;
            }
            self.simple_line(&mut stmts)?;
        }
    }

    fn counted(&mut self, stmts: &mut Vec<Stmt>, stmt: Stmt) -> Result<()> {
        if self.count == MAX_STATEMENTS {
            bail!(Limit, "trace has more than {MAX_STATEMENTS} statements");
        }
        self.count += 1;
        stmts.push(stmt);
        Ok(())
    }

    /// One logical line of simple statements separated by ';', an optional trailing ';'.
    fn simple_line(&mut self, stmts: &mut Vec<Stmt>) -> Result<()> {
        loop {
            if let Some(stmt) = self.statement()? {
                self.counted(stmts, stmt)?;
            }
            match self.peek() {
                Tok::Op(Op::Semi) => {
                    self.bump();
                    if matches!(self.peek(), Tok::Newline | Tok::Eof) {
                        self.bump();
                        return Ok(());
                    }
                }
                Tok::Newline | Tok::Eof => {
                    self.bump();
                    return Ok(());
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// One simple statement, or `None` for an import.
    fn statement(&mut self) -> Result<Option<Stmt>> {
        let first = self.pos;
        let span = Self::span(self.tok());
        match self.peek() {
            Tok::Kw("import") | Tok::Kw("from") => {
                self.import()?;
                return Ok(None);
            }
            Tok::Kw(k) if !starts_expr(self.peek()) || *k == "yield" => {
                if let Some(kind) = self.keyword_statement(k)? {
                    let source = self.source(first, self.pos);
                    return Ok(Some(Stmt { span, source, kind }));
                }
                return Err(self.error_here(unsupported_keyword(k)));
            }
            _ => {}
        }
        let lhs = self.expr_list()?;
        let kind = match *self.peek() {
            Tok::Op(Op::Assign) => {
                self.bump();
                if matches!(self.peek(), Tok::Kw("yield")) {
                    if self.funcs == 0 {
                        return Err(self.error_here("'yield' outside function"));
                    }
                    let target = match lhs.expr.kind {
                        ExprKind::Name(name) => Target::Name(name),
                        ExprKind::Tuple(items) | ExprKind::List(items) if !items.is_empty() => {
                            self.unpack_target(items)?
                        }
                        _ => {
                            return Err(self.error_at(lhs.expr.span, "only names can be bound to what 'yield' receives"))
                        }
                    };
                    let kind = self.yield_statement(Some(target))?;
                    let source = self.source(first, self.pos);
                    return Ok(Some(Stmt { span, source, kind }));
                }
                let value = self.expr_list()?.expr;
                if matches!(self.peek(), Tok::Op(Op::Assign)) {
                    return Err(self.error_here("chained assignment (a = b = c) is not supported"));
                }
                self.assign(lhs.expr, value)?
            }
            Tok::Op(Op::Aug(op)) => {
                self.bump();
                let value = self.expr_list()?.expr;
                match lhs.expr.kind {
                    ExprKind::Name(_) | ExprKind::Index { .. } | ExprKind::Attr { .. } => {}
                    ref other => {
                        return Err(self.error_at(
                            lhs.expr.span,
                            format!("'{}' is an illegal expression for augmented assignment", describe(other)),
                        ))
                    }
                }
                StmtKind::AugAssign { target: lhs.expr, op, value }
            }
            Tok::Op(Op::Colon) => {
                return Err(self.error_here("annotated assignments are not supported"));
            }
            _ => StmtKind::Expr(lhs.expr),
        };
        let source = self.source(first, self.pos);
        Ok(Some(Stmt { span, source, kind }))
    }

    /// The statement kind for `lhs = value`.
    #[inline(never)]
    fn assign(&self, lhs: Expr, value: Expr) -> Result<StmtKind> {
        match lhs.kind {
            ExprKind::Name(name) => Ok(StmtKind::Assign { targets: vec![name], value, unpack: false }),
            ExprKind::Index { value: target, items } => Ok(StmtKind::SetItem { target: *target, index: items, value }),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                if items.is_empty() {
                    return Err(self.error_at(lhs.span, "unpacking into an empty target is not supported"));
                }
                let target = self.unpack_target(items)?;
                let Target::Tuple(parts) = &target else { return Err(self.error_at(lhs.span, "invalid syntax")) };
                let names: Vec<String> = parts
                    .iter()
                    .filter_map(|t| match t {
                        Target::Name(n) => Some(n.clone()),
                        Target::Tuple(_) | Target::Star(_) => None,
                    })
                    .collect();
                if names.len() == parts.len() {
                    Ok(StmtKind::Assign { targets: names, value, unpack: true })
                } else {
                    Ok(StmtKind::Unpack { target, value })
                }
            }
            ExprKind::Attr { value: target, name } => Ok(StmtKind::SetAttr { target: *target, name, value }),
            ref other => {
                let mut message = format!("cannot assign to {}", describe(other));
                if matches!(other, ExprKind::Call { .. } | ExprKind::Binary { .. }) {
                    message.push_str(" here. Maybe you meant '==' instead of '='?");
                }
                Err(self.error_at(lhs.span, message))
            }
        }
    }

    /// The names, nested as written, that `a, (b, c) = ...` unpacks into.
    fn unpack_target(&self, items: Vec<Expr>) -> Result<Target> {
        let mut targets = Vec::with_capacity(items.len());
        for item in items {
            match item.kind {
                ExprKind::Name(name) => targets.push(Target::Name(name)),
                ExprKind::Tuple(inner) | ExprKind::List(inner) if !inner.is_empty() => {
                    targets.push(self.unpack_target(inner)?)
                }
                ExprKind::Starred { value, star: Star::Items }
                    if targets.iter().all(|t| !matches!(t, Target::Star(_))) =>
                {
                    match value.kind {
                        ExprKind::Name(name) => targets.push(Target::Star(name)),
                        _ => return Err(self.error_at(item.span, "starred assignment targets must be names")),
                    }
                }
                ExprKind::Starred { .. } => {
                    return Err(self.error_at(item.span, "multiple starred expressions in assignment"))
                }
                ref other => {
                    return Err(self.error_at(
                        item.span,
                        format!("cannot unpack into {}; only names are supported", describe(other)),
                    ))
                }
            }
        }
        Ok(Target::Tuple(targets))
    }

    /// `import a.b as c, d` or `from a import (b as c, d)` / `from a import *`: the names they
    /// bind go to [`Program::imports`] (a star import binds nothing: its names resolve as bare
    /// names always do).
    #[inline(never)]
    fn import(&mut self) -> Result<()> {
        let from = matches!(self.peek(), Tok::Kw("from"));
        self.bump();
        if from {
            let mut dots = 0;
            while self.eat(Op::Dot) || self.eat(Op::Ellipsis) {
                dots += 1;
            }
            let module = if dots == 0 || matches!(self.peek(), Tok::Name) { self.dotted_name()? } else { Vec::new() };
            if !matches!(self.peek(), Tok::Kw("import")) {
                return Err(self.error_here("invalid syntax"));
            }
            self.bump();
            if self.eat(Op::Star) {
                return Ok(());
            }
            let paren = self.eat(Op::LParen);
            loop {
                let name = self.name()?.to_string();
                let alias = if matches!(self.peek(), Tok::Kw("as")) {
                    self.bump();
                    self.name()?.to_string()
                } else {
                    name.clone()
                };
                if dots == 0 {
                    let mut path = module.clone();
                    path.push(name);
                    self.imports.push(Import { name: alias, path });
                }
                if !self.eat(Op::Comma) {
                    break;
                }
                if paren && matches!(self.peek(), Tok::Op(Op::RParen)) {
                    break;
                }
            }
            if paren {
                self.expect_close(Op::RParen, ')')?;
            }
            return Ok(());
        }
        loop {
            let path = self.dotted_name()?;
            if matches!(self.peek(), Tok::Kw("as")) {
                self.bump();
                let name = self.name()?.to_string();
                self.imports.push(Import { name, path });
            } else if let Some(first) = path.first() {
                // `import torch.nn` binds `torch`.
                self.imports.push(Import { name: first.clone(), path: vec![first.clone()] });
            }
            if !self.eat(Op::Comma) {
                return Ok(());
            }
        }
    }

    fn name(&mut self) -> Result<&'a str> {
        if !matches!(self.peek(), Tok::Name) {
            return Err(self.unexpected());
        }
        let t = self.bump();
        Ok(self.text(t))
    }

    fn dotted_name(&mut self) -> Result<Vec<String>> {
        let mut path = vec![self.name()?.to_string()];
        while self.eat(Op::Dot) {
            path.push(self.name()?.to_string());
        }
        Ok(path)
    }

    /// The statement's text from token `first` up to (not including) token `end`, one physical
    /// line at a time so comments and continuation backslashes drop out.
    #[inline(never)]
    fn source(&self, first: usize, end: usize) -> String {
        let toks = &self.toks[first..end];
        let (Some(head), Some(tail)) = (toks.first(), toks.last()) else {
            return String::new();
        };
        if head.line == tail.line {
            return self.src[head.start..tail.end].to_string();
        }
        let mut out = String::new();
        let mut i = 0;
        while i < toks.len() {
            let mut j = i;
            while j + 1 < toks.len() && toks[j + 1].line == toks[i].line {
                j += 1;
            }
            let piece = &self.src[toks[i].start..toks[j].end];
            // Lines join with one space, except just inside brackets and before a comma.
            let glue = !matches!(
                (out.chars().last(), piece.chars().next()),
                (None, _) | (Some('(' | '['), _) | (_, Some(')' | ']' | ','))
            );
            if glue {
                out.push(' ');
            }
            out.push_str(piece);
            i = j + 1;
        }
        out
    }
}

/// Where a run of statements ends: the end of the trace, or the Dedent closing a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Top,
    Nested,
}

fn too_deep() -> String {
    format!("expression is nested too deeply (more than {MAX_NESTING} levels)")
}

fn unsupported_keyword(k: &str) -> String {
    match k {
        "lambda" => "lambda is not supported".into(),
        "yield" => {
            "'yield' is supported as a statement of its own only ('yield x', 'x = yield y', 'yield from xs')".into()
        }
        "class" | "try" | "raise" | "nonlocal" | "async" | "await" => {
            format!("'{k}' statements are not supported")
        }
        _ => "invalid syntax".into(),
    }
}
