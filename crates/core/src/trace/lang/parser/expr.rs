//! Expression parsing: operators by precedence climbing over a shunting-yard stack, postfix
//! calls, attributes and subscripts, and the atoms (names, literals, brackets), each node
//! carrying its tree height so the nesting limit costs nothing to check.

use super::{binary_op, starts_expr, too_deep, Node, Parser, Pending, PendingOp, CMP, MAX_NESTING, POW, UNARY};
use crate::error::{Error, Result};
use crate::trace::lang::ast::{
    BinOp, BoolOp, CompKind, Comprehension, Expr, ExprKind, FPart, FuncDef, Span, Star, UnaryOp,
};
use crate::trace::lang::lexer::{self, FPiece, Op, Tok};

impl<'a> Parser<'a> {
    /// `a`, or `a, b, ...` as a tuple (the right side of `x = 1, 2`, or unpacking targets).
    pub(super) fn expr_list(&mut self) -> Result<Node> {
        let first = self.item()?;
        if !matches!(self.peek(), Tok::Op(Op::Comma)) {
            if matches!(first.expr.kind, ExprKind::Starred { .. }) {
                return Err(self.error_at(first.expr.span, "can't use starred expression here"));
            }
            return Ok(first);
        }
        let span = first.expr.span;
        let mut height = first.height;
        let mut items = vec![first.expr];
        while self.eat(Op::Comma) {
            if !starts_expr(self.peek()) {
                break;
            }
            let item = self.item()?;
            height = height.max(item.height);
            items.push(item.expr);
        }
        self.node(span, ExprKind::Tuple(items), height + 1)
    }

    /// An item of a tuple or list display: an expression, or `*iterable` unpacked into it.
    fn item(&mut self) -> Result<Node> {
        if !matches!(self.peek(), Tok::Op(Op::Star)) {
            return self.test();
        }
        let span = Self::span(self.bump());
        let value = self.or_test()?;
        let height = value.height + 1;
        self.node(span, ExprKind::Starred { value: Box::new(value.expr), star: Star::Items }, height)
    }

    /// `lambda params: body`, after the keyword: a function named `<lambda>` whose body returns
    /// the expression.
    fn lambda(&mut self, span: Span) -> Result<Node> {
        let sig = self.params(Op::Colon)?;
        let body = self.test()?;
        let height = body.height + 1;
        let ret = crate::trace::lang::ast::Stmt {
            span: body.expr.span,
            source: String::new(),
            kind: crate::trace::lang::ast::StmtKind::Return(Some(body.expr)),
        };
        let def = FuncDef {
            name: "<lambda>".into(),
            params: sig.params,
            positional: sig.positional,
            var_args: sig.var_args,
            var_kwargs: sig.var_kwargs,
            decorators: Vec::new(),
            body: vec![ret],
            generator: false,
        };
        self.node(span, ExprKind::Lambda(Box::new(def)), height)
    }

    /// One expression: `a if c else b`, `or`, `and`, `not`, then the operators.
    pub(super) fn test(&mut self) -> Result<Node> {
        match self.peek() {
            Tok::Kw("lambda") => {
                let span = Self::span(self.bump());
                self.enter(span)?;
                let node = self.lambda(span);
                self.leave();
                return node;
            }
            Tok::Kw(k) if *k != "not" => return Err(self.unexpected()),
            Tok::Op(Op::Star | Op::DoubleStar) => return Err(self.unexpected()),
            _ => {}
        }
        let body = self.or_test()?;
        if matches!(self.peek(), Tok::Kw("if")) {
            let span = body.expr.span;
            self.bump();
            self.enter(span)?;
            let test = self.or_test();
            let test = test.and_then(|t| {
                if !matches!(self.peek(), Tok::Kw("else")) {
                    return Err(self.error_here("expected 'else' after 'if' expression"));
                }
                self.bump();
                Ok((t, self.test()?))
            });
            self.leave();
            let (test, orelse) = test?;
            let height = body.height.max(test.height).max(orelse.height) + 1;
            let kind =
                ExprKind::IfExp { test: Box::new(test.expr), body: Box::new(body.expr), orelse: Box::new(orelse.expr) };
            return self.node(span, kind, height);
        }
        match self.peek() {
            Tok::Kw("async") => Err(self.error_here("async comprehensions are not supported")),
            Tok::Op(Op::Walrus) => Err(self.unexpected()),
            _ => Ok(body),
        }
    }

    /// `a or b or ...` over `and` chains (no conditional expression: a comprehension's parts).
    pub(super) fn or_test(&mut self) -> Result<Node> {
        self.bool_chain(BoolOp::Or)
    }

    fn bool_chain(&mut self, op: BoolOp) -> Result<Node> {
        let kw = match op {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        };
        let operand = |p: &mut Self| if op == BoolOp::Or { p.bool_chain(BoolOp::And) } else { p.not_test() };
        let first = operand(self)?;
        if !matches!(self.peek(), Tok::Kw(k) if *k == kw) {
            return Ok(first);
        }
        let span = first.expr.span;
        let mut height = first.height;
        let mut values = vec![first.expr];
        while matches!(self.peek(), Tok::Kw(k) if *k == kw) {
            self.bump();
            let next = operand(self)?;
            height = height.max(next.height);
            values.push(next.expr);
            if values.len() > MAX_NESTING {
                return Err(self.error_at(span, too_deep()));
            }
        }
        self.node(span, ExprKind::BoolOp { op, values }, height + 1)
    }

    fn not_test(&mut self) -> Result<Node> {
        if !matches!(self.peek(), Tok::Kw("not")) {
            return self.operators();
        }
        let span = Self::span(self.bump());
        self.enter(span)?;
        let operand = self.not_test();
        self.leave();
        let operand = operand?;
        let height = operand.height + 1;
        self.node(span, ExprKind::Unary { op: UnaryOp::Not, operand: Box::new(operand.expr) }, height)
    }

    /// `for target in iter if cond ...` clauses after a comprehension's element.
    fn comprehension(&mut self, span: Span, kind: CompKind, elt: Node) -> Result<Node> {
        let mut height = elt.height;
        let mut generators = Vec::new();
        while matches!(self.peek(), Tok::Kw("for")) {
            self.bump();
            let target = self.targets()?;
            if !matches!(self.peek(), Tok::Kw("in")) {
                return Err(self.error_here("expected 'in'"));
            }
            self.bump();
            let iter = self.or_test()?;
            height = height.max(iter.height);
            let mut ifs = Vec::new();
            while matches!(self.peek(), Tok::Kw("if")) {
                self.bump();
                let cond = self.or_test()?;
                height = height.max(cond.height);
                ifs.push(cond.expr);
            }
            generators.push(Comprehension { target, iter: iter.expr, ifs });
        }
        self.node(span, ExprKind::Comp { kind, elt: Box::new(elt.expr), generators }, height + 1)
    }

    /// Adjacent string literals, joined; an f-string among them makes the whole an f-string.
    fn strings(&mut self, span: Span) -> Result<Node> {
        let mut parts: Vec<FPart> = Vec::new();
        let mut formatted = false;
        let mut height = 0;
        loop {
            match self.peek() {
                Tok::Str(s) => parts.push(FPart::Lit(s.clone())),
                Tok::FStr(pieces) => {
                    formatted = true;
                    for piece in pieces {
                        match piece {
                            FPiece::Lit(s) => parts.push(FPart::Lit(s.clone())),
                            FPiece::Field { start, end, line, column, conv, spec, debug } => {
                                let expr = self.field_expr(*start, *end, Span { line: *line, column: *column })?;
                                height = height.max(expr.height);
                                parts.push(FPart::Expr {
                                    expr: expr.expr,
                                    conv: *conv,
                                    spec: spec.clone(),
                                    debug: debug.clone(),
                                });
                            }
                        }
                    }
                }
                _ => break,
            }
            self.bump();
        }
        // Neighbouring literal runs merge, so the tree holds each run once.
        let mut merged: Vec<FPart> = Vec::with_capacity(parts.len());
        for p in parts {
            match (merged.last_mut(), p) {
                (Some(FPart::Lit(a)), FPart::Lit(b)) => a.push_str(&b),
                (_, p) => merged.push(p),
            }
        }
        if !formatted {
            let text = match merged.pop() {
                Some(FPart::Lit(s)) => s,
                _ => String::new(),
            };
            return self.node(span, ExprKind::Str(text), 0);
        }
        self.node(span, ExprKind::FString(merged), height + 1)
    }

    /// An f-string field's expression, tokenized and parsed on its own, its positions moved to
    /// where the field sits in the trace.
    fn field_expr(&self, start: usize, end: usize, at: Span) -> Result<Node> {
        let text = &self.src[start..end];
        let shift = |line: usize, column: usize| {
            if line == 1 {
                (at.line, at.column + column - 1)
            } else {
                (at.line + line - 1, column)
            }
        };
        let mut lexed = lexer::tokenize(text);
        if let Some(Error::Parse { line, column, message }) = lexed.error.take() {
            let (line, column) = shift(line, column);
            return Err(Error::Parse { line, column, message });
        }
        for t in &mut lexed.tokens {
            (t.line, t.column) = shift(t.line, t.column);
        }
        let mut sub = Parser {
            src: text,
            toks: &lexed.tokens,
            lex_error: None,
            pos: 0,
            depth: self.depth + 1,
            ops: Vec::new(),
            vals: Vec::new(),
            count: 0,
            funcs: 0,
            loops: 0,
            imports: Vec::new(),
        };
        let node = sub.expr_list()?;
        if !matches!(sub.peek(), Tok::Newline | Tok::Eof) {
            return Err(sub.unexpected());
        }
        Ok(node)
    }

    /// Operators by shunting-yard over the parser's shared stacks, so that chains of operators
    /// (`- - - a`, `2 ** 2 ** 2`, `a + b + c`) cost heap, not stack; only brackets recurse.
    /// Comparisons chain as Python's do: `a < b < c` is one [`ExprKind::Compare`].
    pub(super) fn operators(&mut self) -> Result<Node> {
        let op_base = self.ops.len();
        let mut compared = false;
        loop {
            while let Tok::Op(op @ (Op::Minus | Op::Plus | Op::Tilde)) = *self.peek() {
                let op = match op {
                    Op::Minus => UnaryOp::Neg,
                    Op::Plus => UnaryOp::Pos,
                    _ => UnaryOp::Invert,
                };
                let span = Self::span(self.bump());
                self.push_op(op_base, Pending { op: PendingOp::Unary(op), prec: UNARY, span })?;
            }
            let operand = self.postfix()?;
            self.vals.push(operand);
            let (op, prec) = match *self.peek() {
                Tok::Op(Op::DoubleStar) => (BinOp::Pow, POW),
                Tok::Kw("in") => (BinOp::In, CMP),
                Tok::Kw("not") if matches!(self.peek2(), Tok::Kw("in")) => (BinOp::NotIn, CMP),
                Tok::Kw("is") if matches!(self.peek2(), Tok::Kw("not")) => (BinOp::IsNot, CMP),
                Tok::Kw("is") => (BinOp::Is, CMP),
                Tok::Op(op) => match binary_op(op) {
                    Some(found) => found,
                    None => break,
                },
                _ => break,
            };
            let chained = prec == CMP && compared;
            compared |= prec == CMP;
            // Reduce what binds tighter, or as tight for the left-associative operators.
            while self.ops.len() > op_base {
                let top = self.ops[self.ops.len() - 1].prec;
                if top > prec || (top == prec && prec != POW) {
                    self.reduce()?;
                } else {
                    break;
                }
            }
            let span = Self::span(self.bump());
            if matches!(op, BinOp::NotIn | BinOp::IsNot) {
                self.bump();
            }
            let op = if chained { PendingOp::Chained(op) } else { PendingOp::Binary(op) };
            self.push_op(op_base, Pending { op, prec, span })?;
        }
        while self.ops.len() > op_base {
            self.reduce()?;
        }
        // Every operator consumed its operands, leaving this expression's one value.
        match self.vals.pop() {
            Some(node) => Ok(node),
            None => Err(self.error_here("invalid syntax")),
        }
    }

    /// Every pending operator becomes an ancestor of what follows it, so a stack deeper than
    /// the nesting limit can only build a tree that is too tall.
    pub(super) fn push_op(&mut self, base: usize, pending: Pending) -> Result<()> {
        if self.ops.len() - base >= MAX_NESTING {
            return Err(self.error_at(pending.span, too_deep()));
        }
        self.ops.push(pending);
        Ok(())
    }

    /// Applies the top pending operator to the values on top of the stack.
    pub(super) fn reduce(&mut self) -> Result<()> {
        let (Some(pending), Some(rhs)) = (self.ops.pop(), self.vals.pop()) else {
            return Err(self.error_here("invalid syntax"));
        };
        let node = match pending.op {
            PendingOp::Unary(op) => {
                let kind = ExprKind::Unary { op, operand: Box::new(rhs.expr) };
                self.node(pending.span, kind, rhs.height + 1)?
            }
            PendingOp::Binary(op) => {
                let Some(lhs) = self.vals.pop() else {
                    return Err(self.error_here("invalid syntax"));
                };
                let height = lhs.height.max(rhs.height) + 1;
                let span = lhs.expr.span;
                let kind = ExprKind::Binary { op, lhs: Box::new(lhs.expr), rhs: Box::new(rhs.expr) };
                self.node(span, kind, height)?
            }
            // Comparisons bind loosest of the operators here, so the value on the left is the
            // chain's comparison reduced just before this one.
            PendingOp::Chained(op) => {
                let Some(lhs) = self.vals.pop() else {
                    return Err(self.error_here("invalid syntax"));
                };
                let height = lhs.height.max(rhs.height) + 1;
                let span = lhs.expr.span;
                let kind = match lhs.expr.kind {
                    ExprKind::Binary { op: first_op, lhs: first, rhs: second } => {
                        ExprKind::Compare { first, rest: vec![(first_op, *second), (op, rhs.expr)] }
                    }
                    ExprKind::Compare { first, mut rest } => {
                        rest.push((op, rhs.expr));
                        ExprKind::Compare { first, rest }
                    }
                    _ => return Err(self.error_here("invalid syntax")),
                };
                self.node(span, kind, height)?
            }
        };
        self.vals.push(node);
        Ok(())
    }

    /// An atom followed by attribute accesses, calls and subscripts.
    pub(super) fn postfix(&mut self) -> Result<Node> {
        let mut e = self.atom()?;
        loop {
            let span = e.expr.span;
            match self.peek() {
                Tok::Op(Op::Dot) => {
                    self.bump();
                    if !matches!(self.peek(), Tok::Name) {
                        return Err(self.unexpected());
                    }
                    let t = self.bump();
                    let name = self.text(t).to_string();
                    let height = e.height + 1;
                    e = self.node(span, ExprKind::Attr { value: Box::new(e.expr), name }, height)?;
                }
                Tok::Op(Op::LParen) => {
                    let open = Self::span(self.bump());
                    self.enter(open)?;
                    let (args, kwargs, height) = self.call_args()?;
                    self.leave();
                    let height = height.max(e.height) + 1;
                    let kind = ExprKind::Call { func: Box::new(e.expr), args, kwargs };
                    e = self.node(span, kind, height)?;
                }
                Tok::Op(Op::LBracket) => {
                    let open = Self::span(self.bump());
                    self.enter(open)?;
                    let (items, height) = self.subscript()?;
                    self.leave();
                    let height = height.max(e.height) + 1;
                    e = self.node(span, ExprKind::Index { value: Box::new(e.expr), items }, height)?;
                }
                _ => return Ok(e),
            }
        }
    }

    /// Arguments after `(` through `)`: positional first, then `name=value`.
    #[allow(clippy::type_complexity)]
    #[inline(never)]
    pub(super) fn call_args(&mut self) -> Result<(Vec<Expr>, Vec<(String, Expr)>, usize)> {
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Expr)> = Vec::new();
        let mut height = 0;
        while !self.eat(Op::RParen) {
            if let Tok::Op(op @ (Op::Star | Op::DoubleStar)) = *self.peek() {
                let span = Self::span(self.bump());
                let value = self.test()?;
                height = height.max(value.height + 1);
                let star = if op == Op::Star { Star::Items } else { Star::Entries };
                if star == Star::Items && args.iter().any(is_entries) {
                    return Err(self.error_at(span, "iterable argument unpacking follows keyword argument unpacking"));
                }
                args.push(Expr { span, kind: ExprKind::Starred { value: Box::new(value.expr), star } });
                if !self.eat(Op::Comma) {
                    self.expect_close(Op::RParen, ')')?;
                    break;
                }
                continue;
            }
            if matches!(self.peek(), Tok::Name) && matches!(self.peek2(), Tok::Op(Op::Assign)) {
                let t = self.bump();
                let name = self.text(t);
                self.bump();
                if kwargs.iter().any(|(k, _)| k == name) {
                    return Err(self.error_at(Self::span(t), format!("keyword argument repeated: {name}")));
                }
                let value = self.test()?;
                height = height.max(value.height);
                kwargs.push((name.to_string(), value.expr));
            } else {
                let mut arg = self.test()?;
                if matches!(self.peek(), Tok::Kw("for")) {
                    let span = arg.expr.span;
                    arg = self.comprehension(span, CompKind::Generator, arg)?;
                }
                if matches!(self.peek(), Tok::Op(Op::Assign)) {
                    return Err(
                        self.error_at(arg.expr.span, "expression cannot contain assignment, perhaps you meant \"==\"?")
                    );
                }
                if !kwargs.is_empty() || args.iter().any(is_entries) {
                    let what = if kwargs.is_empty() { "keyword argument unpacking" } else { "keyword argument" };
                    return Err(self.error_at(arg.expr.span, format!("positional argument follows {what}")));
                }
                height = height.max(arg.height);
                args.push(arg.expr);
            }
            if !self.eat(Op::Comma) {
                self.expect_close(Op::RParen, ')')?;
                break;
            }
        }
        Ok((args, kwargs, height))
    }

    /// Index items after `[` through `]`: expressions and `start:stop:step` slices.
    #[inline(never)]
    pub(super) fn subscript(&mut self) -> Result<(Vec<Expr>, usize)> {
        if matches!(self.peek(), Tok::Op(Op::RBracket)) {
            return Err(self.error_here("invalid syntax"));
        }
        let mut items = Vec::new();
        let mut height = 0;
        loop {
            let item = self.slice_item()?;
            height = height.max(item.height);
            items.push(item.expr);
            if self.eat(Op::Comma) {
                if self.eat(Op::RBracket) {
                    break;
                }
                continue;
            }
            self.expect_close(Op::RBracket, ']')?;
            break;
        }
        Ok((items, height))
    }

    pub(super) fn slice_item(&mut self) -> Result<Node> {
        let span = Self::span(self.tok());
        let start = if matches!(self.peek(), Tok::Op(Op::Colon)) { None } else { Some(self.test()?) };
        if !matches!(self.peek(), Tok::Op(Op::Colon)) {
            // Not a slice, so `start` was parsed (a leading ':' would have made it one).
            return match start {
                Some(e) => Ok(e),
                None => Err(self.unexpected()),
            };
        }
        self.bump();
        let stop = if starts_expr(self.peek()) { Some(self.test()?) } else { None };
        let step = if self.eat(Op::Colon) && starts_expr(self.peek()) { Some(self.test()?) } else { None };
        let height = [&start, &stop, &step].iter().filter_map(|n| n.as_ref().map(|n| n.height)).max().unwrap_or(0);
        let boxed = |n: Option<Node>| n.map(|n| Box::new(n.expr));
        let kind = ExprKind::Slice { start: boxed(start), stop: boxed(stop), step: boxed(step) };
        self.node(span, kind, height + 1)
    }

    pub(super) fn atom(&mut self) -> Result<Node> {
        let t = self.tok();
        let span = Self::span(t);
        let kind = match &t.tok {
            Tok::Name => ExprKind::Name(self.text(t).to_string()),
            Tok::Int(v) => ExprKind::Int(*v),
            Tok::BigInt(v) => ExprKind::BigInt(v.clone()),
            Tok::Float(v) => ExprKind::Float(*v),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::None => ExprKind::None,
            Tok::Op(Op::Ellipsis) => ExprKind::Ellipsis,
            // Adjacent literals concatenate, as in Python.
            Tok::Str(_) | Tok::FStr(_) => return self.strings(span),
            Tok::Op(Op::LParen) => {
                self.bump();
                self.enter(span)?;
                let node = self.paren(span)?;
                self.leave();
                return Ok(node);
            }
            Tok::Op(Op::LBracket) => {
                self.bump();
                self.enter(span)?;
                let node = self.list_display(span);
                self.leave();
                return node;
            }
            Tok::Op(Op::LBrace) => {
                self.bump();
                self.enter(span)?;
                let node = self.dict_display(span);
                self.leave();
                return node;
            }
            _ => return Err(self.unexpected()),
        };
        self.bump();
        self.node(span, kind, 0)
    }

    /// After `(`: the empty tuple, a parenthesized expression, or a tuple.
    #[inline(never)]
    pub(super) fn paren(&mut self, span: Span) -> Result<Node> {
        if self.eat(Op::RParen) {
            return self.node(span, ExprKind::Tuple(Vec::new()), 1);
        }
        let first = self.item()?;
        if self.eat(Op::RParen) {
            if matches!(first.expr.kind, ExprKind::Starred { .. }) {
                return Err(self.error_at(first.expr.span, "cannot use starred expression here"));
            }
            return Ok(first);
        }
        if matches!(self.peek(), Tok::Kw("for")) {
            let node = self.comprehension(span, CompKind::Generator, first)?;
            self.expect_close(Op::RParen, ')')?;
            return Ok(node);
        }
        if !self.eat(Op::Comma) {
            return Err(self.close_error(')'));
        }
        let mut height = first.height;
        let mut items = vec![first.expr];
        let (rest, h) = self.items(Op::RParen, ')')?;
        items.extend(rest);
        height = height.max(h);
        self.node(span, ExprKind::Tuple(items), height + 1)
    }

    /// After `[`: a list of items, or a list comprehension.
    fn list_display(&mut self, span: Span) -> Result<Node> {
        if self.eat(Op::RBracket) {
            return self.node(span, ExprKind::List(Vec::new()), 1);
        }
        let first = self.item()?;
        if matches!(self.peek(), Tok::Kw("for")) {
            let node = self.comprehension(span, CompKind::List, first)?;
            self.expect_close(Op::RBracket, ']')?;
            return Ok(node);
        }
        let mut height = first.height;
        let mut items = vec![first.expr];
        if self.eat(Op::Comma) {
            let (rest, h) = self.items(Op::RBracket, ']')?;
            items.extend(rest);
            height = height.max(h);
        } else {
            self.expect_close(Op::RBracket, ']')?;
        }
        self.node(span, ExprKind::List(items), height + 1)
    }

    /// After `{`: a dict display, `key: value` pairs through `}`, trailing comma allowed, or a
    /// dict comprehension. Set displays say they are not supported.
    fn dict_display(&mut self, span: Span) -> Result<Node> {
        let (mut pairs, mut height) = (Vec::new(), 0);
        while !self.eat(Op::RBrace) {
            let key = self.test()?;
            if !self.eat(Op::Colon) {
                return Err(self.error_here("set displays are not supported"));
            }
            let value = self.test()?;
            if matches!(self.peek(), Tok::Kw("for")) {
                if !pairs.is_empty() {
                    return Err(self.error_here("invalid syntax"));
                }
                let h = key.height.max(value.height) + 1;
                let elt = self.node(span, ExprKind::Tuple(vec![key.expr, value.expr]), h)?;
                let node = self.comprehension(span, CompKind::Dict, elt)?;
                self.expect_close(Op::RBrace, '}')?;
                return Ok(node);
            }
            height = height.max(key.height).max(value.height);
            pairs.push((key.expr, value.expr));
            if !self.eat(Op::Comma) {
                self.expect_close(Op::RBrace, '}')?;
                break;
            }
        }
        self.node(span, ExprKind::Dict(pairs), height + 1)
    }

    /// Comma-separated expressions through the closing `close`, trailing comma allowed.
    #[inline(never)]
    pub(super) fn items(&mut self, close: Op, ch: char) -> Result<(Vec<Expr>, usize)> {
        let mut items = Vec::new();
        let mut height = 0;
        while !self.eat(close) {
            let item = self.item()?;
            height = height.max(item.height);
            items.push(item.expr);
            if !self.eat(Op::Comma) {
                self.expect_close(close, ch)?;
                break;
            }
        }
        Ok((items, height))
    }
}

/// Whether a call argument is `**mapping`.
fn is_entries(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Starred { star: Star::Entries, .. })
}
