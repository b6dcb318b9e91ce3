//! Generators: a function whose body yields runs a piece at a time, each `next` running its body
//! from where the last `yield` left it to the next one, interleaved with the code that iterates
//! it, as CPython does (a loop over a generator sees each item as it is made, and a generator
//! that never ends is fine as long as its consumer stops).
//!
//! The body runs statement by statement from a stack of cursors kept in the generator's state
//! (`python::iterator`): a statement that does not yield anywhere inside runs whole, as any
//! function's statement does; a compound statement that yields inside (`for`, `while`, `if`,
//! `with`) becomes a cursor, so the body can stop at the `yield` and go on from there later.
//! The parser refuses a `yield` inside `try` and anywhere but a statement of its own.

use crate::error::{bail, Error, Result};
use crate::trace::interp::exec::Flow;
use crate::trace::interp::runner::{realize_value, Frame, Run, Scope, MAX_CALL_DEPTH};
use crate::trace::lang::ast::{first_yield, Stmt, StmtKind, YieldKind};
use crate::trace::python::iterator::{BlockPath, GenState};
use crate::trace::python::value::{Args, Value, MAX_SEQUENCE};
use crate::trace::python::{self};
use crate::trace::python::{Cursor, GenFrame, PyIter, SharedIter as Shared};
use std::cell::RefCell;
use std::rc::Rc;

/// Python's builtins that consume an iterable whole: a generator given to one runs to its end
/// first (`enumerate` and `zip` over a generator stay lazy, see `iteration_builtin`).
const CONSUMERS: &[&str] =
    &["list", "tuple", "dict", "OrderedDict", "min", "max", "sum", "sorted", "reversed", "any", "all", "map", "filter"];

/// What one piece of a generator's body ended with.
enum Piece {
    /// Boxed: a `Value` is large beside the other variant.
    Yielded(Box<Value>),
    Finished,
}

impl Run {
    /// The next item of an iterator object; `None` when it has ended.
    pub(in crate::trace) fn advance(&mut self, it: &Shared) -> Result<Option<Value>> {
        // Adaptors and generators run trace code: their inner iterators are cloned out first,
        // so no borrow is held while it runs (the code may reach this iterator again).
        let indexed = match &mut *it.borrow_mut() {
            PyIter::Indexed { target, next } => {
                *next += 1;
                Some((target.clone(), *next - 1))
            }
            _ => None,
        };
        if let Some((target, i)) = indexed {
            return self.next_indexed(&target, i);
        }
        let inner = match &mut *it.borrow_mut() {
            PyIter::Items { .. } | PyIter::Indexed { .. } => None,
            PyIter::Generator(_) => Some(Vec::new()),
            PyIter::Enumerate { inner, .. } => Some(vec![inner.clone()]),
            PyIter::Zip(parts) => Some(parts.clone()),
        };
        match inner {
            None => it.borrow_mut().next_item(&mut self.context()),
            Some(parts) if parts.is_empty() => self.resume(it, Value::None),
            Some(parts) => {
                let mut items = Vec::with_capacity(parts.len());
                for p in &parts {
                    match self.advance(p)? {
                        Some(v) => items.push(v),
                        None => return Ok(None),
                    }
                }
                Ok(Some(match &mut *it.borrow_mut() {
                    PyIter::Enumerate { next, .. } => {
                        let i = *next;
                        *next += 1;
                        Value::Tuple(vec![Value::Scalar(crate::uop::buffer::Scalar::Int(i)), items.remove(0)])
                    }
                    _ => Value::Tuple(items),
                }))
            }
        }
    }

    /// `next`, `iter`, and `enumerate`/`zip` over an iterator object run here; the builtins that
    /// consume an iterable whole are given a generator's items; `Err(args)` hands every other
    /// call back.
    pub(in crate::trace) fn iteration_builtin(
        &mut self,
        name: &'static str,
        args: Args,
    ) -> Result<Result<Value, Args>> {
        match name {
            "next" => {
                let mut args = args;
                let it = args.req(0, "iterator")?;
                let default = args.opt(1, "default");
                args.finish()?;
                let Value::Iterator(it) = it else {
                    bail!(Type, "'{}' object is not an iterator", it.type_name());
                };
                match (self.advance(&it)?, default) {
                    (Some(v), _) => Ok(Ok(v)),
                    (None, Some(d)) => Ok(Ok(d)),
                    (None, None) => Err(Error::Raised { class: "StopIteration".into(), message: String::new() }),
                }
            }
            "iter" => {
                let mut args = args;
                let v = args.req(0, "object")?;
                args.finish()?;
                Ok(Ok(Value::Iterator(self.iterator_of(v)?)))
            }
            "enumerate" | "zip" => {
                let (pos, kw) = args.into_parts();
                let lazy = pos.iter().any(|v| matches!(v, Value::Iterator(_)));
                if !lazy {
                    return Ok(Err(Args::new(name, pos, kw)));
                }
                let mut args = Args::new(name, pos, kw);
                if name == "zip" {
                    let (pos, kw) = args.into_parts();
                    if let Some((k, _)) = kw.first() {
                        bail!(Type, "zip() got an unexpected keyword argument '{k}'");
                    }
                    let mut parts = Vec::with_capacity(pos.len());
                    for v in pos {
                        parts.push(self.iterator_of(v)?);
                    }
                    return Ok(Ok(Value::Iterator(Rc::new(RefCell::new(PyIter::Zip(parts))))));
                }
                let v = args.req(0, "iterable")?;
                let start = args.int_or(1, "start", 0)?;
                args.finish()?;
                let inner = self.iterator_of(v)?;
                Ok(Ok(Value::Iterator(Rc::new(RefCell::new(PyIter::Enumerate { next: start, inner })))))
            }
            _ if CONSUMERS.contains(&name) => {
                let (pos, kw) = args.into_parts();
                let mut whole = Vec::with_capacity(pos.len());
                for v in pos {
                    whole.push(self.drained(v)?);
                }
                Ok(Err(Args::new(name, whole, kw)))
            }
            _ => Ok(Err(args)),
        }
    }

    /// A generator's own methods: `send(v)`, `__next__()`, `close()`.
    pub(in crate::trace) fn iterator_method(&mut self, it: &Shared, name: &str, args: Args) -> Result<Value> {
        let mut args = args;
        let got = match name {
            "send" => {
                let v = args.req(0, "value")?;
                args.finish()?;
                self.resume(it, v)?
            }
            "__next__" => {
                args.finish()?;
                self.advance(it)?
            }
            "close" => {
                args.finish()?;
                if let PyIter::Generator(g) = &mut *it.borrow_mut() {
                    if g.state == GenState::Running {
                        bail!(Value, "generator already executing");
                    }
                    if g.cursors.iter().any(|c| matches!(c, Cursor::With { .. })) {
                        bail!(Unsupported, "closing a generator suspended inside a 'with' block is not supported");
                    }
                    g.cursors.clear();
                    g.vars.clear();
                    g.state = GenState::Done;
                }
                return Ok(Value::None);
            }
            _ => bail!(Name, "'{}' object has no attribute '{name}'", it.borrow().type_name()),
        };
        match got {
            Some(v) => Ok(v),
            None => Err(Error::Raised { class: "StopIteration".into(), message: String::new() }),
        }
    }

    /// Every item of a value that Python can iterate, a generator's run to its end.
    pub(in crate::trace) fn sequence(&mut self, v: Value) -> Result<Vec<Value>> {
        let it = match v {
            Value::Iterator(it) => it,
            v @ Value::Layer(_) => match self.special_iter(&v)? {
                Some(it) => it,
                None => return python::sequence(&mut self.context(), v),
            },
            v => return python::sequence(&mut self.context(), v),
        };
        let mut out = Vec::new();
        while let Some(x) = self.advance(&it)? {
            if out.len() >= MAX_SEQUENCE {
                bail!(Limit, "a sequence may hold at most {MAX_SEQUENCE} items");
            }
            out.push(x);
        }
        Ok(out)
    }

    /// `v` itself, or the list of its items when it is an iterator object: what a builtin that
    /// consumes an iterable whole (`list`, `sum`, `sorted`, `torch.stack`, ...) is given.
    pub(in crate::trace) fn drained(&mut self, v: Value) -> Result<Value> {
        match v {
            Value::Iterator(_) => Ok(Value::list(self.sequence(v)?)),
            Value::Layer(_) if self.special(&v, "__iter__").is_some() || self.special(&v, "__getitem__").is_some() => {
                Ok(Value::list(self.sequence(v)?))
            }
            v => Ok(v),
        }
    }

    /// `iter(v)`: an iterator object over `v` (an iterator is its own).
    pub(in crate::trace) fn iterator_of(&mut self, v: Value) -> Result<Shared> {
        if let Some(it) = self.special_iter(&v)? {
            return Ok(it);
        }
        let kind = match &v {
            Value::Iterator(it) => return Ok(it.clone()),
            Value::List(_) => "list_iterator",
            Value::Tuple(_) | Value::Size(_) | Value::Named(..) => "tuple_iterator",
            Value::Range(..) => "range_iterator",
            Value::Dict(..) => "dict_keyiterator",
            Value::Str(_) => "str_ascii_iterator",
            _ => "iterator",
        };
        let mut v = v;
        realize_value(&mut self.engine, &mut v)?;
        Ok(PyIter::items(kind, python::iterate(&mut self.context(), v)?))
    }

    /// Runs a generator's body from where it stands to its next `yield` (`sent` is what the
    /// `yield` it stopped at evaluates to) or its end.
    pub(in crate::trace) fn resume(&mut self, it: &Shared, sent: Value) -> Result<Option<Value>> {
        let mut frame = {
            let mut b = it.borrow_mut();
            let PyIter::Generator(g) = &mut *b else { bail!(Type, "'{}' object is not a generator", b.type_name()) };
            match &g.state {
                GenState::Running => bail!(Value, "generator already executing"),
                GenState::Done => return Ok(None),
                GenState::Created if !matches!(sent, Value::None) => {
                    bail!(Type, "can't send non-None value to a just-started generator")
                }
                _ => {}
            }
            let running = GenFrame {
                function: g.function.clone(),
                vars: Default::default(),
                globals: Vec::new(),
                cursors: Vec::new(),
                state: GenState::Running,
            };
            std::mem::replace(&mut **g, running)
        };
        if self.frames.iter().filter(|f| f.scope == Scope::Function).count() >= MAX_CALL_DEPTH {
            bail!(Limit, "maximum recursion depth exceeded (more than {MAX_CALL_DEPTH} nested calls)");
        }
        if frame.state == GenState::Created {
            frame.cursors.push(Cursor::Block { path: Vec::new(), next: 0 });
        }
        let bind = match std::mem::replace(&mut frame.state, GenState::Running) {
            GenState::Suspended(bind) => bind,
            _ => None,
        };
        let (span, outside) = (self.span, self.engine.grad_enabled());
        if let Some(mode) = frame.function.grad_mode {
            self.engine.set_grad_enabled(mode.enter(outside));
        }
        let vars = std::mem::take(&mut frame.vars);
        let globals = std::mem::take(&mut frame.globals);
        self.frames.push(Frame { vars, scope: Scope::Function, globals });
        let mut piece = match bind {
            Some(target) => self.bind_target(&target, sent).map(|_| ()),
            None => Ok(()),
        }
        .and_then(|()| self.run_piece(&mut frame));
        if piece.is_err() || matches!(piece, Ok(Piece::Finished)) {
            // Ending (or raising) leaves every `with` it was inside, as Python's unwinding does.
            if let Err(e) = self.unwind(&mut frame.cursors, |_| false) {
                piece = piece.and(Err(e));
            }
        }
        let Some(top) = self.frames.pop() else {
            bail!(Unsupported, "internal error: a generator's frame went missing")
        };
        frame.vars = top.vars;
        frame.globals = top.globals;
        if frame.function.grad_mode.is_some() {
            self.engine.set_grad_enabled(outside);
        }
        self.span = span;
        let out = match piece {
            Ok(Piece::Yielded(v)) => Ok(Some(*v)),
            Ok(Piece::Finished) => Ok(None),
            Err(e) => Err(e),
        };
        if !matches!(out, Ok(Some(_))) {
            frame.state = GenState::Done;
            frame.vars.clear();
        }
        if let PyIter::Generator(g) = &mut *it.borrow_mut() {
            **g = frame;
        }
        out
    }

    /// Runs the body from its cursors until a `yield` or the end.
    fn run_piece(&mut self, frame: &mut GenFrame) -> Result<Piece> {
        let def = frame.function.def.clone();
        loop {
            let Some(top) = frame.cursors.last_mut() else { return Ok(Piece::Finished) };
            match top {
                Cursor::Block { path, next } => {
                    let block = block_at(&def.body, path)?;
                    let Some(stmt) = block.get(*next) else {
                        frame.cursors.pop();
                        continue;
                    };
                    let (path, index) = (path.clone(), *next);
                    *next += 1;
                    if let Some(v) = self.generator_stmt(frame, stmt, path, index)? {
                        return Ok(v);
                    }
                }
                Cursor::For { path, index, items } => {
                    let (path, index, items) = (path.clone(), *index, items.clone());
                    let StmtKind::For { target, .. } = &block_at(&def.body, &path)?[index].kind else {
                        bail!(Unsupported, "internal error: a generator's loop cursor lost its statement");
                    };
                    let stmt = &block_at(&def.body, &path)?[index];
                    let more = self.step(stmt, |r| match r.advance(&items)? {
                        Some(v) => Ok((true, r.bind_target(target, v)?)),
                        None => Ok((false, Vec::new())),
                    })?;
                    self.enter_loop_block(frame, path, index, more)?;
                }
                Cursor::While { path, index } => {
                    let (path, index) = (path.clone(), *index);
                    let stmt = &block_at(&def.body, &path)?[index];
                    let StmtKind::While { test, .. } = &stmt.kind else {
                        bail!(Unsupported, "internal error: a generator's loop cursor lost its statement");
                    };
                    let more = self.step(stmt, |r| {
                        let v = r.eval(test)?;
                        Ok((python::truth(&mut r.context(), &v)?, Vec::new()))
                    })?;
                    self.enter_loop_block(frame, path, index, more)?;
                }
                Cursor::With { .. } => {
                    if let Some(c) = frame.cursors.pop() {
                        self.leave(&c);
                    }
                }
                Cursor::Delegate(items) => {
                    let items = items.clone();
                    match self.advance(&items)? {
                        Some(v) => {
                            frame.state = GenState::Suspended(None);
                            return Ok(Piece::Yielded(Box::new(v)));
                        }
                        None => {
                            frame.cursors.pop();
                        }
                    }
                }
            }
        }
    }

    /// After a loop's header ran: its body when `more` says so, else its `else:` block in its
    /// place (`None`: the run stopped at its step, which a generator's body never does).
    fn enter_loop_block(
        &mut self,
        frame: &mut GenFrame,
        path: BlockPath,
        index: usize,
        more: Option<bool>,
    ) -> Result<()> {
        let mut inner = path;
        match more {
            Some(true) => inner.push((index, 0)),
            Some(false) | None => {
                frame.cursors.pop();
                inner.push((index, 1));
            }
        }
        frame.cursors.push(Cursor::Block { path: inner, next: 0 });
        Ok(())
    }

    /// One statement of the body, statement `index` of the block at `path`: run whole when it
    /// does not yield, else a cursor for it or (a `yield`) the piece's end.
    fn generator_stmt(
        &mut self,
        frame: &mut GenFrame,
        stmt: &Stmt,
        path: BlockPath,
        index: usize,
    ) -> Result<Option<Piece>> {
        let nested = |k: usize| {
            let mut p = path.clone();
            p.push((index, k));
            p
        };
        match &stmt.kind {
            StmtKind::Yield { value, kind, bind } => {
                let v = self.step(stmt, |r| {
                    let v = match value {
                        Some(e) => r.eval(e)?,
                        None => Value::None,
                    };
                    let mut v = v;
                    realize_value(&mut r.engine, &mut v)?;
                    Ok((v, Vec::new()))
                })?;
                let v = v.unwrap_or(Value::None);
                match kind {
                    YieldKind::Value => {
                        frame.state = GenState::Suspended(bind.clone());
                        return Ok(Some(Piece::Yielded(Box::new(v))));
                    }
                    YieldKind::From => {
                        let items = self.iterator_of(v)?;
                        frame.cursors.push(Cursor::Delegate(items));
                    }
                }
            }
            kind if kind.blocks().into_iter().all(|b| first_yield(b).is_none()) => match self.exec_stmt(stmt)? {
                Flow::Normal => {}
                Flow::Break => {
                    self.unwind(&mut frame.cursors, |c| matches!(c, Cursor::For { .. } | Cursor::While { .. }))?
                }
                Flow::Continue => self.unwind_to_loop(&mut frame.cursors)?,
                Flow::Return(_) | Flow::Stop => {
                    self.unwind(&mut frame.cursors, |_| false)?;
                    return Ok(Some(Piece::Finished));
                }
            },
            StmtKind::If { test, .. } => {
                let taken = self.step(stmt, |r| {
                    let v = r.eval(test)?;
                    Ok((python::truth(&mut r.context(), &v)?, Vec::new()))
                })?;
                let which = if taken == Some(true) { 0 } else { 1 };
                frame.cursors.push(Cursor::Block { path: nested(which), next: 0 });
            }
            StmtKind::For { iter, .. } => {
                let items = self.step(stmt, |r| {
                    let v = r.eval(iter)?;
                    Ok((r.iterator_of(v)?, Vec::new()))
                })?;
                if let Some(items) = items {
                    frame.cursors.push(Cursor::For { path, index, items });
                }
            }
            StmtKind::While { .. } => frame.cursors.push(Cursor::While { path, index }),
            StmtKind::With { items, .. } => {
                let saved = self.step(stmt, |r| {
                    let saved = (r.engine.grad_enabled(), r.engine.anomaly());
                    let defines = r.enter_contexts(items)?;
                    Ok((saved, defines))
                })?;
                if let Some((grad, anomaly)) = saved {
                    frame.cursors.push(Cursor::With { grad, anomaly });
                    frame.cursors.push(Cursor::Block { path: nested(0), next: 0 });
                }
            }
            _ => bail!(Unsupported, "'yield' inside this statement is not supported"),
        }
        Ok(None)
    }

    /// Pops cursors (leaving each `with` on the way) up to and including the first for which
    /// `stop` holds, or all of them.
    fn unwind(&mut self, cursors: &mut Vec<Cursor>, stop: impl Fn(&Cursor) -> bool) -> Result<()> {
        while let Some(c) = cursors.pop() {
            self.leave(&c);
            if !matches!(c, Cursor::With { .. }) && stop(&c) {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Leaving a popped cursor: a `with` block's grad and anomaly modes come back.
    fn leave(&mut self, c: &Cursor) {
        if let Cursor::With { grad, anomaly } = c {
            self.engine.set_grad_enabled(*grad);
            self.engine.set_anomaly(*anomaly);
        }
    }

    /// `continue`: pops cursors up to the innermost loop, which then runs its header again.
    fn unwind_to_loop(&mut self, cursors: &mut Vec<Cursor>) -> Result<()> {
        while let Some(c) = cursors.last() {
            if matches!(c, Cursor::For { .. } | Cursor::While { .. }) {
                return Ok(());
            }
            if let Some(c) = cursors.pop() {
                self.leave(&c);
            }
        }
        bail!(Unsupported, "internal error: 'continue' found no loop in a generator's body")
    }
}

/// The block at `path` inside `body`.
fn block_at<'a>(body: &'a [Stmt], path: &[(usize, usize)]) -> Result<&'a [Stmt]> {
    let mut block = body;
    for &(index, which) in path {
        let blocks = match block.get(index) {
            Some(s) => s.kind.blocks(),
            None => Vec::new(),
        };
        let Some(inner) = blocks.get(which) else {
            bail!(Unsupported, "internal error: a generator's cursor lost its block")
        };
        block = inner;
    }
    Ok(block)
}
