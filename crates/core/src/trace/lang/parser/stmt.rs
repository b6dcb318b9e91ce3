//! Compound statements (`if`, `for`, `while`, `with`, `def`) with their indented suites, and the
//! keyword statements (`return`, `pass`, `break`, `continue`, `assert`, `del`), with Python's
//! error wording for blocks that are missing or misplaced.

use super::{describe, Block, Parser};
use crate::error::Result;
use crate::trace::lang::ast::{Expr, ExprKind, FuncDef, Stmt, StmtKind, Target};
use crate::trace::lang::lexer::{Op, Tok};

impl<'a> Parser<'a> {
    /// A compound statement if the line starts one.
    pub(super) fn compound(&mut self) -> Result<Option<Stmt>> {
        let Tok::Kw(k) = *self.peek() else { return Ok(None) };
        let first = self.pos;
        let span = Self::span(self.tok());
        match k {
            "if" => self.if_stmt().map(Some),
            "for" => {
                self.bump();
                let target = self.targets()?;
                if !matches!(self.peek(), Tok::Kw("in")) {
                    return Err(self.error_here("expected 'in'"));
                }
                self.bump();
                let iter = self.expr_list()?.expr;
                let header = self.header_end(first)?;
                self.loops += 1;
                let body = self.suite("for", span.line);
                self.loops -= 1;
                let body = body?;
                if matches!(self.peek(), Tok::Kw("else")) {
                    return Err(self.error_here("'else' after a loop is not supported"));
                }
                Ok(Some(Stmt { span, source: header, kind: StmtKind::For { target, iter, body } }))
            }
            "while" => {
                self.bump();
                let test = self.test()?.expr;
                let header = self.header_end(first)?;
                self.loops += 1;
                let body = self.suite("while", span.line);
                self.loops -= 1;
                let body = body?;
                if matches!(self.peek(), Tok::Kw("else")) {
                    return Err(self.error_here("'else' after a loop is not supported"));
                }
                Ok(Some(Stmt { span, source: header, kind: StmtKind::While { test, body } }))
            }
            "with" => {
                self.bump();
                let mut items = Vec::new();
                loop {
                    let ctx = self.test()?.expr;
                    let name = if matches!(self.peek(), Tok::Kw("as")) {
                        self.bump();
                        Some(self.name()?.to_string())
                    } else {
                        None
                    };
                    items.push((ctx, name));
                    if !self.eat(Op::Comma) {
                        break;
                    }
                }
                let header = self.header_end(first)?;
                let body = self.suite("with", span.line)?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::With { items, body } }))
            }
            "def" => {
                self.bump();
                let name = self.name()?.to_string();
                if !self.eat(Op::LParen) {
                    return Err(self.error_here("expected '('"));
                }
                let params = self.params()?;
                if self.eat(Op::Arrow) {
                    self.test()?;
                }
                let header = self.header_end(first)?;
                // A function body is its own scope for loops.
                let loops = std::mem::take(&mut self.loops);
                self.funcs += 1;
                let body = self.suite("function definition", span.line);
                self.funcs -= 1;
                self.loops = loops;
                let body = body?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::Def(FuncDef { name, params, body }) }))
            }
            "class" => {
                self.bump();
                let name = self.name()?.to_string();
                let mut bases = Vec::new();
                if self.eat(Op::LParen) {
                    while !self.eat(Op::RParen) {
                        bases.push(self.test()?.expr);
                        if !self.eat(Op::Comma) {
                            if !self.eat(Op::RParen) {
                                return Err(self.error_here("expected ')'"));
                            }
                            break;
                        }
                    }
                }
                let header = self.header_end(first)?;
                let loops = std::mem::take(&mut self.loops);
                let body = self.suite("class definition", span.line);
                self.loops = loops;
                let body = body?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::Class { name, bases, body } }))
            }
            "elif" | "else" => Err(self.error_here("invalid syntax")),
            _ => Ok(None),
        }
    }

    /// `if`/`elif` through its last `elif` or `else` suite.
    fn if_stmt(&mut self) -> Result<Stmt> {
        let first = self.pos;
        let span = Self::span(self.bump());
        let test = self.test()?.expr;
        let header = self.header_end(first)?;
        let body =
            self.suite(if header.starts_with("elif") { "'elif' statement" } else { "'if' statement" }, span.line)?;
        let orelse = match self.peek() {
            Tok::Kw("elif") => vec![self.if_stmt()?],
            Tok::Kw("else") => {
                let line = self.tok().line;
                self.bump();
                if !self.eat(Op::Colon) {
                    return Err(self.error_here("expected ':'"));
                }
                self.suite("'else' statement", line)?
            }
            _ => Vec::new(),
        };
        Ok(Stmt { span, source: header, kind: StmtKind::If { test, body, orelse } })
    }

    /// The ':' ending a compound statement's header; returns the header's text.
    fn header_end(&mut self, first: usize) -> Result<String> {
        if !matches!(self.peek(), Tok::Op(Op::Colon)) {
            return Err(self.error_here("expected ':'"));
        }
        self.bump();
        Ok(self.source(first, self.pos))
    }

    /// The body after a header's ':': an indented block, or simple statements on the same line.
    fn suite(&mut self, what: &str, line: usize) -> Result<Vec<Stmt>> {
        if !matches!(self.peek(), Tok::Newline) {
            let mut stmts = Vec::new();
            self.simple_line(&mut stmts)?;
            return Ok(stmts);
        }
        self.bump();
        if !matches!(self.peek(), Tok::Indent) {
            let what = if what.starts_with('\'') || what.starts_with("function") || what.starts_with("class") {
                what.to_string()
            } else {
                format!("'{what}' statement")
            };
            return Err(self.error_here(format!("expected an indented block after {what} on line {line}")));
        }
        self.bump();
        self.statements(Block::Nested)
    }

    /// Parameters after `(` through `)`: names with optional defaults (annotations are read and
    /// dropped).
    fn params(&mut self) -> Result<Vec<(String, Option<Expr>)>> {
        let mut params: Vec<(String, Option<Expr>)> = Vec::new();
        while !self.eat(Op::RParen) {
            if matches!(self.peek(), Tok::Op(Op::Star | Op::DoubleStar | Op::Slash)) {
                return Err(self.error_here("*args, **kwargs and '/' or '*' markers are not supported"));
            }
            let at = Self::span(self.tok());
            let name = self.name()?.to_string();
            if params.iter().any(|(p, _)| *p == name) {
                return Err(self.error_at(at, format!("duplicate argument '{name}' in function definition")));
            }
            if self.eat(Op::Colon) {
                self.test()?;
            }
            let default = if self.eat(Op::Assign) { Some(self.test()?.expr) } else { None };
            if default.is_none() && params.iter().any(|(_, d)| d.is_some()) {
                return Err(self.error_at(at, "parameter without a default follows parameter with a default"));
            }
            params.push((name, default));
            if !self.eat(Op::Comma) {
                self.expect_close(Op::RParen, ')')?;
                break;
            }
        }
        Ok(params)
    }

    /// A `for` target: names and (nested) tuples of names.
    pub(super) fn targets(&mut self) -> Result<Target> {
        let first = self.target()?;
        if !matches!(self.peek(), Tok::Op(Op::Comma)) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(Op::Comma) {
            if matches!(self.peek(), Tok::Kw("in")) {
                break;
            }
            items.push(self.target()?);
        }
        Ok(Target::Tuple(items))
    }

    fn target(&mut self) -> Result<Target> {
        let close = match self.peek() {
            Tok::Name => return Ok(Target::Name(self.name()?.to_string())),
            Tok::Op(Op::LParen) => Op::RParen,
            Tok::Op(Op::LBracket) => Op::RBracket,
            _ => {
                let e = self.postfix()?;
                return Err(self.error_at(e.expr.span, format!("cannot assign to {}", describe(&e.expr.kind))));
            }
        };
        self.bump();
        let mut items = Vec::new();
        while !self.eat(close) {
            items.push(self.target()?);
            if !self.eat(Op::Comma) {
                self.expect_close(close, if close == Op::RParen { ')' } else { ']' })?;
                break;
            }
        }
        Ok(Target::Tuple(items))
    }

    /// `return`, `pass`, `break`, `continue`, `assert`, `del`; `None` for other keywords.
    pub(super) fn keyword_statement(&mut self, k: &str) -> Result<Option<StmtKind>> {
        let kind = match k {
            "pass" => StmtKind::Pass,
            "break" | "continue" if self.loops == 0 => {
                return Err(self.error_here(format!("'{k}' outside loop")));
            }
            "break" => StmtKind::Break,
            "continue" => StmtKind::Continue,
            "return" if self.funcs == 0 => return Err(self.error_here("'return' outside function")),
            "return" => {
                self.bump();
                let value = if crate::trace::lang::parser::starts_expr(self.peek()) {
                    Some(self.expr_list()?.expr)
                } else {
                    None
                };
                return Ok(Some(StmtKind::Return(value)));
            }
            "assert" => {
                self.bump();
                let test = self.test()?.expr;
                let msg = if self.eat(Op::Comma) { Some(self.test()?.expr) } else { None };
                return Ok(Some(StmtKind::Assert { test, msg }));
            }
            "del" => {
                self.bump();
                let mut names = Vec::new();
                loop {
                    let e = self.postfix()?;
                    match e.expr.kind {
                        ExprKind::Name(n) => names.push(n),
                        other => {
                            return Err(self.error_at(
                                e.expr.span,
                                format!("deleting {} is not supported; only names", describe(&other)),
                            ))
                        }
                    }
                    if !self.eat(Op::Comma) {
                        break;
                    }
                }
                return Ok(Some(StmtKind::Del(names)));
            }
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(kind))
    }
}
