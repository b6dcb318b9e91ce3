//! Compound statements (`if`, `for`, `while`, `with`, `def`) with their indented suites, and the
//! keyword statements (`return`, `pass`, `break`, `continue`, `assert`, `del`), with Python's
//! error wording for blocks that are missing or misplaced.

use super::{describe, Block, Parser};

/// A parameter list as `def` and `lambda` declare it (see [`FuncDef`]).
#[derive(Default)]
pub(super) struct Signature {
    pub(super) params: Vec<(String, Option<Expr>)>,
    pub(super) positional: usize,
    pub(super) var_args: Option<String>,
    pub(super) var_kwargs: Option<String>,
}
use crate::error::Result;
use crate::trace::lang::ast::{first_yield, Expr, ExprKind, FuncDef, Handler, Stmt, StmtKind, Target, YieldKind};
use crate::trace::lang::lexer::{Op, Tok};

impl<'a> Parser<'a> {
    /// A compound statement if the line starts one.
    pub(super) fn compound(&mut self) -> Result<Option<Stmt>> {
        if matches!(self.peek(), Tok::Op(Op::At)) {
            return self.decorated().map(Some);
        }
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
                let orelse = self.loop_else()?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::For { target, iter, body, orelse } }))
            }
            "while" => {
                self.bump();
                let test = self.test()?.expr;
                let header = self.header_end(first)?;
                self.loops += 1;
                let body = self.suite("while", span.line);
                self.loops -= 1;
                let body = body?;
                let orelse = self.loop_else()?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::While { test, body, orelse } }))
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
                let sig = self.params(Op::RParen)?;
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
                if let Some(y) = yield_in_try(&body) {
                    return Err(self.error_at(y.span, "'yield' inside 'try' is not supported"));
                }
                Ok(Some(Stmt {
                    span,
                    source: header,
                    kind: StmtKind::Def(FuncDef {
                        name,
                        params: sig.params,
                        positional: sig.positional,
                        var_args: sig.var_args,
                        var_kwargs: sig.var_kwargs,
                        decorators: Vec::new(),
                        generator: first_yield(&body).is_some(),
                        body,
                    }),
                }))
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
                // A class body is a scope of its own: no loop or function around it counts.
                let loops = std::mem::take(&mut self.loops);
                let funcs = std::mem::take(&mut self.funcs);
                let body = self.suite("class definition", span.line);
                self.loops = loops;
                self.funcs = funcs;
                let body = body?;
                Ok(Some(Stmt { span, source: header, kind: StmtKind::Class { name, bases, body } }))
            }
            "try" => self.try_stmt().map(Some),
            "elif" | "else" | "except" | "finally" => Err(self.error_here("invalid syntax")),
            _ => Ok(None),
        }
    }

    /// `@decorator` lines, then the `def` they decorate (a decorated class is refused).
    fn decorated(&mut self) -> Result<Stmt> {
        let mut decorators = Vec::new();
        while self.eat(Op::At) {
            decorators.push(self.test()?.expr);
            if !matches!(self.peek(), Tok::Newline) {
                return Err(self.error_here("invalid syntax"));
            }
            self.bump();
        }
        match self.peek() {
            Tok::Kw("def") => {}
            Tok::Kw("class") => return Err(self.error_here("class decorators are not supported")),
            _ => return Err(self.error_here("invalid syntax")),
        }
        let mut stmt = self.compound()?.ok_or_else(|| self.error_here("invalid syntax"))?;
        if let StmtKind::Def(f) = &mut stmt.kind {
            f.decorators = decorators;
        }
        Ok(stmt)
    }

    /// A loop's `else:` suite, if it has one.
    fn loop_else(&mut self) -> Result<Vec<Stmt>> {
        if !matches!(self.peek(), Tok::Kw("else")) {
            return Ok(Vec::new());
        }
        let line = self.tok().line;
        self.bump();
        if !self.eat(Op::Colon) {
            return Err(self.error_here("expected ':'"));
        }
        self.suite("'else' statement", line)
    }

    /// `try:` through its last `except`, `else` or `finally` suite.
    fn try_stmt(&mut self) -> Result<Stmt> {
        let first = self.pos;
        let span = Self::span(self.bump());
        let header = self.header_end(first)?;
        let body = self.suite("'try' statement", span.line)?;
        let mut handlers = Vec::new();
        while matches!(self.peek(), Tok::Kw("except")) {
            let first = self.pos;
            let at = Self::span(self.bump());
            if handlers.iter().any(|h: &Handler| h.types.is_none()) {
                return Err(self.error_at(at, "default 'except:' must be last"));
            }
            let types = if matches!(self.peek(), Tok::Op(Op::Colon)) { None } else { Some(self.test()?.expr) };
            let name = if types.is_some() && matches!(self.peek(), Tok::Kw("as")) {
                self.bump();
                Some(self.name()?.to_string())
            } else {
                None
            };
            let source = self.header_end(first)?;
            let body = self.suite("'except' statement", at.line)?;
            let header = Box::new(Stmt { span: at, source, kind: StmtKind::Pass });
            handlers.push(Handler { header, types, name, body });
        }
        let clause = |p: &mut Self, kw: &str| -> Result<Vec<Stmt>> {
            if !matches!(p.peek(), Tok::Kw(k) if *k == kw) {
                return Ok(Vec::new());
            }
            let line = p.tok().line;
            p.bump();
            if !p.eat(Op::Colon) {
                return Err(p.error_here("expected ':'"));
            }
            p.suite(&format!("'{kw}' statement"), line)
        };
        let orelse = clause(self, "else")?;
        if !orelse.is_empty() && handlers.is_empty() {
            return Err(self.error_here("expected 'except' or 'finally' block"));
        }
        let finally = clause(self, "finally")?;
        if handlers.is_empty() && finally.is_empty() {
            return Err(self.error_here("expected 'except' or 'finally' block"));
        }
        Ok(Stmt { span, source: header, kind: StmtKind::Try { body, handlers, orelse, finally } })
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

    /// Parameters through `close` (`)` for a `def`, `:` for a `lambda`): names with optional
    /// defaults, `*args` or a bare `*` (what follows is keyword-only), `**kwargs`, and `/`
    /// (accepted; positional-only parameters are taken as ordinary ones). A `def`'s
    /// annotations are read and dropped.
    pub(super) fn params(&mut self, close: Op) -> Result<Signature> {
        let mut sig = Signature::default();
        let mut keyword_only = false;
        let taken = |sig: &Signature, name: &str| {
            sig.params.iter().any(|(p, _)| p == name)
                || sig.var_args.as_deref() == Some(name)
                || sig.var_kwargs.as_deref() == Some(name)
        };
        while !self.eat(close) {
            let at = Self::span(self.tok());
            if sig.var_kwargs.is_some() {
                return Err(self.error_here("arguments cannot follow var-keyword argument"));
            }
            let star = match self.peek() {
                Tok::Op(Op::Slash) => {
                    self.bump();
                    if !self.eat(Op::Comma) {
                        self.expect_close(close, if close == Op::Colon { ':' } else { ')' })?;
                        break;
                    }
                    continue;
                }
                Tok::Op(Op::Star) => Some(Op::Star),
                Tok::Op(Op::DoubleStar) => Some(Op::DoubleStar),
                _ => None,
            };
            if let Some(op) = star {
                self.bump();
                if op == Op::Star && keyword_only {
                    return Err(self.error_at(at, "* argument may appear only once"));
                }
                if op == Op::Star && matches!(self.peek(), Tok::Op(Op::Comma)) {
                    // A bare `*`: the parameters after it are keyword-only.
                    keyword_only = true;
                    sig.positional = sig.params.len();
                    self.bump();
                    continue;
                }
                let name = self.name()?.to_string();
                if taken(&sig, &name) {
                    return Err(self.error_at(at, format!("duplicate argument '{name}' in function definition")));
                }
                if close == Op::RParen && self.eat(Op::Colon) {
                    self.test()?;
                }
                if op == Op::Star {
                    keyword_only = true;
                    sig.positional = sig.params.len();
                    sig.var_args = Some(name);
                } else {
                    sig.var_kwargs = Some(name);
                }
            } else {
                let name = self.name()?.to_string();
                if taken(&sig, &name) {
                    return Err(self.error_at(at, format!("duplicate argument '{name}' in function definition")));
                }
                if close == Op::RParen && self.eat(Op::Colon) {
                    self.test()?;
                }
                let default = if self.eat(Op::Assign) { Some(self.test()?.expr) } else { None };
                if !keyword_only && default.is_none() && sig.params.iter().any(|(_, d)| d.is_some()) {
                    return Err(self.error_at(at, "parameter without a default follows parameter with a default"));
                }
                sig.params.push((name, default));
            }
            if !self.eat(Op::Comma) {
                self.expect_close(close, if close == Op::Colon { ':' } else { ')' })?;
                break;
            }
        }
        if !keyword_only {
            sig.positional = sig.params.len();
        }
        Ok(sig)
    }

    /// A `for` target: names and (nested) tuples of names.
    pub(super) fn targets(&mut self) -> Result<Target> {
        let first = self.target()?;
        if !matches!(self.peek(), Tok::Op(Op::Comma)) {
            if matches!(first, Target::Star(_)) {
                return Err(self.error_here("starred assignment target must be in a list or tuple"));
            }
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(Op::Comma) {
            if matches!(self.peek(), Tok::Kw("in")) {
                break;
            }
            items.push(self.target()?);
        }
        self.one_star(&items)?;
        Ok(Target::Tuple(items))
    }

    /// At most one starred name among a tuple target's items (none alone).
    fn one_star(&self, items: &[Target]) -> Result<()> {
        match items.iter().filter(|t| matches!(t, Target::Star(_))).count() {
            0 | 1 => Ok(()),
            _ => Err(self.error_here("multiple starred expressions in assignment")),
        }
    }

    fn target(&mut self) -> Result<Target> {
        let close = match self.peek() {
            Tok::Name => return Ok(Target::Name(self.name()?.to_string())),
            Tok::Op(Op::Star) => {
                self.bump();
                return Ok(Target::Star(self.name()?.to_string()));
            }
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
        self.one_star(&items)?;
        Ok(Target::Tuple(items))
    }

    /// `yield value`, `yield from iterable`, after `bind =` when `bind` is given.
    pub(super) fn yield_statement(&mut self, bind: Option<Target>) -> Result<StmtKind> {
        let at = Self::span(self.bump());
        if matches!(self.peek(), Tok::Kw("from")) {
            self.bump();
            if bind.is_some() {
                return Err(self.error_at(at, "'x = yield from ...' is not supported; only 'yield from ...' alone"));
            }
            let value = self.test()?.expr;
            return Ok(StmtKind::Yield { value: Some(value), kind: YieldKind::From, bind });
        }
        let value =
            if crate::trace::lang::parser::starts_expr(self.peek()) { Some(self.expr_list()?.expr) } else { None };
        Ok(StmtKind::Yield { value, kind: YieldKind::Value, bind })
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
            "yield" if self.funcs == 0 => return Err(self.error_here("'yield' outside function")),
            "yield" => return self.yield_statement(None).map(Some),
            "global" => {
                self.bump();
                let mut names = vec![self.name()?.to_string()];
                while self.eat(Op::Comma) {
                    names.push(self.name()?.to_string());
                }
                return Ok(Some(StmtKind::Global(names)));
            }
            "raise" => {
                self.bump();
                let value = if crate::trace::lang::parser::starts_expr(self.peek()) {
                    let e = self.test()?.expr;
                    if matches!(self.peek(), Tok::Kw("from")) {
                        // `raise E from cause`: the cause is evaluated and not kept.
                        self.bump();
                        self.test()?;
                    }
                    Some(e)
                } else {
                    None
                };
                return Ok(Some(StmtKind::Raise(value)));
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
                        ExprKind::Index { value, items }
                            if names.is_empty() && !matches!(self.peek(), Tok::Op(Op::Comma)) =>
                        {
                            return Ok(Some(StmtKind::DelItem { target: *value, index: items }));
                        }
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

/// A `yield` inside a `try` statement of `body` (a generator cannot suspend inside one here).
fn yield_in_try(body: &[Stmt]) -> Option<&Stmt> {
    body.iter().find_map(|s| match &s.kind {
        StmtKind::Try { .. } => s.kind.blocks().into_iter().find_map(first_yield),
        StmtKind::Def(_) | StmtKind::Class { .. } => None,
        k => k.blocks().into_iter().find_map(yield_in_try),
    })
}
