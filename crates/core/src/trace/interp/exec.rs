//! Statement execution: simple statements, blocks and control flow, calls to functions the
//! trace defines, comprehensions and f-strings.
//!
//! Every statement executed outside a call is one step (a compound statement's header is a step
//! each time it runs: an `if` test, each `for` iteration's binding, each `while` test), so the
//! stepper can stand between any two of them. A call to a trace function runs inside the step of
//! the statement that calls it. Executed statements are counted against [`MAX_EXECUTED`], so a
//! loop that never ends stops with a `limit` error.

use crate::error::{bail, Error, Result};
use crate::trace::binding::subscript;
use crate::trace::interp::runner::targets::unpack;
use crate::trace::interp::runner::{realize_value, Frame, Run, Scope, MAX_CALL_DEPTH, MAX_EXECUTED};
use crate::trace::lang::ast::{Expr, ExprKind, FuncDef, Handler, Stmt, StmtKind, Target};
use crate::trace::nn::layer::{ClassKind, LayerKind};
use crate::trace::nn::modules::{self, ModuleClass};
use crate::trace::python::exception;
use crate::trace::python::value::{Args, Function, FunctionKind, GradMode, Module, Value};
use crate::trace::python::{self};
use crate::trace::python::{GenFrame, SharedIter as Shared};
use crate::uop::buffer::Scalar;
use std::rc::Rc;

/// How a statement or block ended.
pub(in crate::trace) enum Flow {
    Normal,
    Break,
    Continue,
    /// Boxed: a `Value` is large and returns are rare beside the other flows.
    Return(Box<Value>),
    /// The run reached the step it was asked to stop after.
    Stop,
}

impl Run {
    pub(in crate::trace) fn exec_block(&mut self, stmts: &[Stmt]) -> Result<Flow> {
        for s in stmts {
            match self.exec_stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs `f` as one executed statement: a step of its own unless inside a call. `None` when
    /// the run stops before it.
    pub(in crate::trace) fn step<T>(
        &mut self,
        stmt: &Stmt,
        f: impl FnOnce(&mut Self) -> Result<(T, Vec<String>)>,
    ) -> Result<Option<T>> {
        self.executed += 1;
        if self.executed > MAX_EXECUTED {
            self.failing.get_or_insert(stmt.span);
            bail!(Limit, "the trace ran more than {MAX_EXECUTED} statements (a loop that does not end?)");
        }
        let stepping = self.frames.iter().all(|f| f.scope != Scope::Function);
        if stepping {
            if self.should_stop() {
                return Ok(None);
            }
            self.begin_statement();
        }
        self.span = stmt.span;
        // A value the statement left pending that is past a limit fails the statement itself
        // (the page's storage budget): it is not silently left unbound.
        let done = f(self).and_then(|out| if stepping { self.realize_within_limits().map(|()| out) } else { Ok(out) });
        match done {
            Ok((v, defines)) => {
                if stepping {
                    self.finish_statement(stmt, defines);
                }
                Ok(Some(v))
            }
            Err(e) => {
                if self.failing.is_none() {
                    let column = if self.span.line == stmt.span.line { self.span.column } else { stmt.span.column };
                    self.failing = Some(crate::trace::lang::ast::Span { line: stmt.span.line, column });
                }
                if stepping {
                    // Leave the names as they were before the failing statement finished, realized.
                    self.finish_statement(stmt, Vec::new());
                }
                Err(e)
            }
        }
    }

    pub(in crate::trace) fn exec_stmt(&mut self, stmt: &Stmt) -> Result<Flow> {
        match &stmt.kind {
            StmtKind::If { test, body, orelse } => {
                let Some(taken) = self.step(stmt, |r| {
                    let v = r.eval(test)?;
                    Ok((python::truth(&mut r.context(), &v)?, Vec::new()))
                })?
                else {
                    return Ok(Flow::Stop);
                };
                self.exec_block(if taken { body } else { orelse })
            }
            StmtKind::While { test, body, orelse } => self.run_loop(stmt, body, orelse, |r| {
                let v = r.eval(test)?;
                Ok((python::truth(&mut r.context(), &v)?, Vec::new()))
            }),
            StmtKind::For { target, iter, body, orelse } => self.exec_for(stmt, target, iter, body, orelse),
            StmtKind::With { items, body } => {
                let Some((saved, anomaly)) = self.step(stmt, |r| {
                    let saved = (r.engine.grad_enabled(), r.engine.anomaly());
                    let defines = r.enter_contexts(items)?;
                    Ok((saved, defines))
                })?
                else {
                    return Ok(Flow::Stop);
                };
                let flow = self.exec_block(body);
                self.engine.set_grad_enabled(saved);
                self.engine.set_anomaly(anomaly);
                flow
            }
            StmtKind::Def(def) => {
                let done = self.step(stmt, |r| {
                    let captured = r.enclosing_names();
                    let f = r.define(def, captured)?;
                    r.bind(&def.name, f);
                    Ok(((), vec![def.name.clone()]))
                })?;
                Ok(if done.is_some() { Flow::Normal } else { Flow::Stop })
            }
            StmtKind::Class { name, bases, body } => {
                let done = self.step(stmt, |r| {
                    let class = r.class(name, bases, body)?;
                    r.bind(name, Value::Class(Rc::new(class)));
                    Ok(((), vec![name.clone()]))
                })?;
                Ok(if done.is_some() { Flow::Normal } else { Flow::Stop })
            }
            StmtKind::Try { body, handlers, orelse, finally } => self.exec_try(body, handlers, orelse, finally),
            _ => Ok(self.step(stmt, |r| r.simple(stmt))?.unwrap_or(Flow::Stop)),
        }
    }

    /// Enters a `with` statement's context managers in order (binding each `as` name); the
    /// names bound.
    pub(in crate::trace) fn enter_contexts(&mut self, items: &[(Expr, Option<String>)]) -> Result<Vec<String>> {
        let mut defines = Vec::new();
        for (ctx, name) in items {
            let v = self.eval(ctx)?;
            match &v {
                Value::Context(mode) => {
                    let on = mode.enter(self.engine.grad_enabled());
                    self.engine.set_grad_enabled(on);
                }
                Value::Anomaly(mode) => self.engine.set_anomaly(*mode),
                other => bail!(
                    Unsupported,
                    "'{}' object does not support the context manager protocol here (only torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(b) and torch.inference_mode())",
                    other.type_name()
                ),
            }
            if let Some(n) = name {
                self.bind(n, v);
                defines.push(n.clone());
            }
        }
        Ok(defines)
    }

    /// `try`: the body; on an error that is a Python exception, the first `except` clause whose
    /// class matches (each clause's line a step as it is tested), with the exception bound to
    /// its name for the clause; `else` when the body raised nothing; `finally` always, its own
    /// error or flow taking over. The product's own failures (limits, what it does not support)
    /// are never caught.
    fn exec_try(&mut self, body: &[Stmt], handlers: &[Handler], orelse: &[Stmt], finally: &[Stmt]) -> Result<Flow> {
        // A name no table has becomes what Python raises (a typo's AttributeError) before the
        // clauses are tested.
        let mut outcome = self.exec_block(body).map_err(super::runner::suggested);
        match &outcome {
            Err(e) => {
                if let Some(exc) = exception::of(e) {
                    let error = e.clone();
                    outcome = match self.handle(handlers, exc, error.clone()) {
                        Ok(Some(flow)) => flow,
                        Ok(None) => Err(error),
                        Err(other) => Err(other),
                    };
                }
            }
            Ok(Flow::Normal) => outcome = self.exec_block(orelse),
            Ok(_) => {}
        }
        if finally.is_empty() || matches!(outcome, Ok(Flow::Stop)) {
            return outcome;
        }
        // The error being handled must not point at its line while `finally` runs.
        let failing = self.failing.take();
        match self.exec_block(finally)? {
            Flow::Normal => {
                if outcome.is_err() {
                    self.failing = failing;
                }
                outcome
            }
            other => Ok(other),
        }
    }

    /// Runs the first handler that catches `exc`: `None` when none does (the error goes on).
    fn handle(
        &mut self,
        handlers: &[Handler],
        exc: crate::trace::python::value::Exception,
        error: Error,
    ) -> Result<Option<Result<Flow>>> {
        let failing = self.failing.take();
        for h in handlers {
            let exc_value = Value::Exception(Rc::new(exc.clone()));
            let taken = self.step(&h.header, |r| {
                let caught = match &h.types {
                    None => true,
                    Some(types) => {
                        let types = r.eval(types)?;
                        catches(&types, &exc.class)?
                    }
                };
                let mut defines = Vec::new();
                if let (true, Some(name)) = (caught, &h.name) {
                    r.bind(name, exc_value.clone());
                    defines.push(name.clone());
                }
                Ok((caught, defines))
            })?;
            match taken {
                None => return Ok(Some(Ok(Flow::Stop))),
                Some(false) => continue,
                Some(true) => {
                    self.handling.push(error);
                    let flow = self.exec_block(&h.body);
                    self.handling.pop();
                    // Python unbinds the name at the end of the clause.
                    if let Some(name) = &h.name {
                        if flow.is_ok() {
                            self.unbind(name)?;
                        }
                    }
                    return Ok(Some(flow));
                }
            }
        }
        self.failing = failing;
        Ok(None)
    }

    /// `raise`: an exception value or class, or (bare) the one being handled.
    fn raise(&mut self, value: Option<&Expr>) -> Result<Flow> {
        let Some(e) = value else {
            return Err(match self.handling.last() {
                Some(e) => e.clone(),
                None => {
                    Error::Raised { class: "RuntimeError".into(), message: "No active exception to reraise".into() }
                }
            });
        };
        match self.eval(e)? {
            Value::Exception(x) => Err(exception::into_error(x.as_ref().clone())),
            Value::Builtin(c) if exception::class(c).is_some() => {
                Err(Error::Raised { class: c.to_string(), message: String::new() })
            }
            _ => bail!(Type, "exceptions must derive from BaseException"),
        }
    }

    /// A function value for `def` (its defaults evaluated now, as Python does), with its
    /// decorators applied from the innermost: `@staticmethod`, `@property`, a grad-mode
    /// switch (`@torch.no_grad()`), or any function the trace defined, called on it.
    pub(in crate::trace) fn define(&mut self, def: &FuncDef, mut captured: Vec<(String, Value)>) -> Result<Value> {
        // What the closure keeps outlives this statement: nothing in it may stay lazy.
        for (_, v) in &mut captured {
            realize_value(&mut self.engine, v)?;
        }
        let mut defaults = Vec::with_capacity(def.params.len());
        for (_, d) in &def.params {
            defaults.push(match d {
                Some(e) => {
                    let mut v = self.eval(e)?;
                    realize_value(&mut self.engine, &mut v)?;
                    Some(v)
                }
                None => None,
            });
        }
        let mut f =
            Function { def: Rc::new(def.clone()), defaults, captured, kind: FunctionKind::Plain, grad_mode: None };
        let mut wrappers = Vec::new();
        for d in def.decorators.iter().rev() {
            match self.eval(d)? {
                Value::Builtin("staticmethod") => f.kind = FunctionKind::Static,
                Value::Builtin("property") => f.kind = FunctionKind::Property,
                Value::Context(mode) => f.grad_mode = Some(mode),
                Value::Func(n) if n == "no_grad" => f.grad_mode = Some(GradMode::Off),
                Value::Func(n) if n == "enable_grad" => f.grad_mode = Some(GradMode::On),
                w @ (Value::Function(_) | Value::Layer(_)) => wrappers.push(w),
                other => bail!(Unsupported, "the decorator @{} is not supported", other.type_name()),
            }
        }
        let mut v = Value::Function(Rc::new(f));
        for w in wrappers {
            v = self.call_value(w, vec![v], Vec::new())?;
        }
        Ok(v)
    }

    /// A `class` statement: its bases (`nn.Module`, `object`, or a class the trace defined,
    /// whose methods and class attributes it inherits), its methods and class attributes; a
    /// class body holds `def`s, assignments, `pass` and docstrings here.
    fn class(&mut self, name: &str, bases: &[Expr], body: &[Stmt]) -> Result<ModuleClass> {
        let mut methods: Vec<(String, Value)> = Vec::new();
        let mut attrs: Vec<(String, Value)> = Vec::new();
        let mut kind = ClassKind::Plain;
        let mut base = None;
        for b in bases {
            match self.eval(b)? {
                Value::Func(f) if f == "Module" => kind = ClassKind::Module,
                Value::Func(f) if f == "autograd.Function" => kind = ClassKind::Function,
                Value::Builtin("object") => {}
                Value::Class(c) => {
                    if c.kind != ClassKind::Plain {
                        kind = c.kind;
                    }
                    methods.extend(c.methods.iter().cloned());
                    attrs.extend(c.attrs.iter().cloned());
                    base = base.or(Some(c));
                }
                other => bail!(
                    Unsupported,
                    "class {name}: a base of {} is not supported (nn.Module, object or a class the trace defines)",
                    other.type_name()
                ),
            }
        }
        for stmt in body {
            self.span = stmt.span;
            match &stmt.kind {
                StmtKind::Def(def) => {
                    let f = self.define(def, Vec::new())?;
                    methods.retain(|(n, _)| *n != def.name);
                    methods.push((def.name.clone(), f));
                }
                StmtKind::Assign { targets, value, unpack: false } => {
                    let mut v = self.eval(value)?;
                    realize_value(&mut self.engine, &mut v)?;
                    attrs.retain(|(n, _)| *n != targets[0]);
                    attrs.push((targets[0].clone(), v));
                }
                StmtKind::Pass => {}
                StmtKind::Expr(e) if matches!(e.kind, ExprKind::Str(_)) => {}
                _ => bail!(Unsupported, "a class body here may hold only methods and attribute assignments"),
            }
        }
        Ok(ModuleClass { name: name.to_string(), methods, attrs, kind, base })
    }

    /// `Net(args)`: a new module of the trace's class, initialised by its `__init__`.
    pub(in crate::trace) fn instantiate(
        &mut self,
        class: &Rc<ModuleClass>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        let mut m = Module::new(LayerKind::Custom);
        m.class = Some(class.clone());
        let m = Rc::new(m);
        if let Some((_, Value::Function(init))) = class.methods.iter().find(|(n, _)| n == "__init__") {
            let mut args = vec![Value::Layer(m.clone())];
            args.extend(pos);
            if class.kind == ClassKind::Module {
                // `super().__init__()` reaching `nn.Module`'s marks it initialised.
                m.initialized.set(false);
            }
            self.call_user(init, args, kw)?;
        } else if !pos.is_empty() || !kw.is_empty() {
            bail!(Type, "{}() takes no arguments", class.name);
        }
        Ok(Value::Layer(m))
    }

    /// `module(args)`: a container runs its children in order, a module the trace defines its
    /// `forward`, a built-in module its own forward.
    pub(in crate::trace) fn call_layer(
        &mut self,
        layer: &Rc<Module>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        match layer.kind {
            LayerKind::Sequential => {
                let mut args = Args::new("forward", pos, kw);
                let mut x = args.req(0, "input")?;
                args.finish()?;
                let children: Vec<Rc<Module>> = layer.children.borrow().iter().map(|(_, c)| c.clone()).collect();
                for c in children {
                    x = self.call_layer(&c, vec![x], Vec::new())?;
                }
                Ok(x)
            }
            // A class's own `__call__` runs instead of `forward`.
            LayerKind::Custom => match self.method_of(layer, "__call__").or_else(|| self.method_of(layer, "forward")) {
                Some(f) => {
                    let mut args = vec![Value::Layer(layer.clone())];
                    args.extend(pos);
                    self.call_user(&f, args, kw)
                }
                None => bail!(Type, "Module [{}] is missing the required \"forward\" function", modules::title(layer)),
            },
            LayerKind::ModuleList => {
                bail!(Type, "Module [ModuleList] is missing the required \"forward\" function")
            }
            _ => modules::forward(&mut self.context(), layer, Args::new("forward", pos, kw)),
        }
    }

    /// A method of a module's trace-defined class.
    pub(in crate::trace) fn method_of(&self, layer: &Module, name: &str) -> Option<Rc<Function>> {
        let class = layer.class.as_ref()?;
        class.methods.iter().rev().find_map(|(n, f)| match f {
            Value::Function(f) if n == name => Some(f.clone()),
            _ => None,
        })
    }

    fn exec_for(&mut self, stmt: &Stmt, target: &Target, iter: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Result<Flow> {
        let mut items: Option<Shared> = None;
        let held = self.loop_iters.len();
        let flow = self.run_loop(stmt, body, orelse, |r| {
            if items.is_none() {
                // The iterable outlives this step, so nothing in it may stay lazy.
                let v = r.eval(iter)?;
                let it = r.iterator_of(v)?;
                r.loop_iters.push(it.clone());
                items = Some(it);
            }
            let Some(it) = items.as_ref() else { return Ok((false, Vec::new())) };
            match r.advance(it)? {
                Some(v) => Ok((true, r.bind_target(target, v)?)),
                None => Ok((false, Vec::new())),
            }
        });
        self.loop_iters.truncate(held);
        flow
    }

    /// A loop: its header is a step each time it runs (`header` says whether to run the body
    /// again, and what it bound), the body runs in between, each pass numbered in `loops`;
    /// `orelse` runs when the header ends the loop (not a `break`).
    fn run_loop(
        &mut self,
        stmt: &Stmt,
        body: &[Stmt],
        orelse: &[Stmt],
        mut header: impl FnMut(&mut Self) -> Result<(bool, Vec<String>)>,
    ) -> Result<Flow> {
        let mut i = 0;
        loop {
            i += 1;
            self.loops.push((stmt.span.line, i));
            let flow = match self.step(stmt, &mut header) {
                Ok(Some(true)) => self.exec_block(body),
                Ok(Some(false)) => {
                    self.loops.pop();
                    return self.exec_block(orelse);
                }
                Ok(None) => Ok(Flow::Stop),
                Err(e) => Err(e),
            };
            self.loops.pop();
            match flow? {
                Flow::Normal | Flow::Continue => {}
                Flow::Break => return Ok(Flow::Normal),
                other => return Ok(other),
            }
        }
    }

    /// A simple statement: its flow and the names it bound.
    fn simple(&mut self, stmt: &Stmt) -> Result<(Flow, Vec<String>)> {
        let mut defines = Vec::new();
        let flow = match &stmt.kind {
            StmtKind::Assign { targets, value, unpack: unpacks } => {
                let v = self.eval(value)?;
                if !unpacks {
                    self.bind(&targets[0], v);
                } else {
                    let v = self.sequence(v)?;
                    let items = unpack(Value::Tuple(v), targets.len())?;
                    for (t, v) in targets.iter().zip(items) {
                        self.bind(t, v);
                    }
                }
                defines.extend(targets.iter().cloned());
                Flow::Normal
            }
            StmtKind::Unpack { target, value } => {
                let v = self.eval(value)?;
                defines.extend(self.bind_target(target, v)?);
                Flow::Normal
            }
            StmtKind::AugAssign { target, op, value } => {
                if let ExprKind::Attr { value: base, name } = &target.kind {
                    // Python: tmp = base.name; tmp op= rhs; base.name = tmp (`x.data *= 2`
                    // writes in place, then assigns `.data` its own alias).
                    let base = self.eval(base)?;
                    let cur = self.attribute(base.clone(), name)?;
                    let rhs = self.eval(value)?;
                    self.span = stmt.span;
                    let out = self.augmented(cur, *op, rhs)?;
                    self.set_attribute(base, name, out)?;
                    return Ok((Flow::Normal, defines));
                }
                let rhs = self.eval(value)?;
                match &target.kind {
                    ExprKind::Name(name) => {
                        let cur = self.eval(target)?;
                        let out = self.augmented(cur, *op, rhs)?;
                        self.bind(name, out);
                        defines.push(name.clone());
                    }
                    ExprKind::Index { value: base, items } => {
                        // Python: tmp = base[items]; tmp op= rhs; base[items] = tmp.
                        let base = self.eval(base)?;
                        let items = self.eval_items(items)?;
                        if let Value::Dict(_) = &base {
                            let cur = python::containers::getitem(base.clone(), &items)?;
                            let out = self.augmented(cur, *op, rhs)?;
                            python::containers::setitem(base, &items, out)?;
                            return Ok((Flow::Normal, defines));
                        }
                        if let Value::Array(t) = &base {
                            let view = crate::trace::binding::numpy::getitem(&mut self.context(), t, &items)?;
                            let out = self.augmented(view, *op, rhs)?;
                            crate::trace::binding::numpy::setitem(&mut self.context(), t, &items, out)?;
                            return Ok((Flow::Normal, defines));
                        }
                        let view = subscript::getitem(&mut self.context(), &base, &items)?;
                        let out = self.augmented(view, *op, rhs)?;
                        subscript::setitem(&mut self.context(), &base, &items, out)?;
                    }
                    _ => bail!(Unsupported, "augmented assignment to this target is not supported"),
                }
                Flow::Normal
            }
            StmtKind::SetItem { target, index, value } => {
                let base = self.eval(target)?;
                let items = self.eval_items(index)?;
                let v = self.eval(value)?;
                self.span = stmt.span;
                match base {
                    base @ Value::Layer(_) if self.special(&base, "__setitem__").is_some() => {
                        self.special_setitem(&base, &items, v)?;
                    }
                    // A list or dict changes in place, wherever it is held.
                    base @ (Value::List(_) | Value::Dict(_)) => {
                        python::containers::setitem(base, &items, v)?;
                    }
                    Value::Array(t) => crate::trace::binding::numpy::setitem(&mut self.context(), &t, &items, v)?,
                    base => subscript::setitem(&mut self.context(), &base, &items, v)?,
                }
                Flow::Normal
            }
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Flow::Normal
            }
            StmtKind::SetAttr { target, name, value } => {
                let base = self.eval(target)?;
                let v = self.eval(value)?;
                self.set_attribute(base, name, v)?;
                Flow::Normal
            }
            StmtKind::Pass => Flow::Normal,
            StmtKind::Break => Flow::Break,
            StmtKind::Continue => Flow::Continue,
            StmtKind::Return(v) => Flow::Return(Box::new(match v {
                Some(e) => self.eval(e)?,
                None => Value::None,
            })),
            StmtKind::Assert { test, msg } => {
                let v = self.eval(test)?;
                if !python::truth(&mut self.context(), &v)? {
                    let text = match msg {
                        Some(m) => {
                            let m = self.eval(m)?;
                            python::str(&mut self.context(), &m)?
                        }
                        None => String::new(),
                    };
                    self.span = stmt.span;
                    bail!(Assertion, "{text}");
                }
                Flow::Normal
            }
            StmtKind::DelItem { target, index } => {
                let base = self.eval(target)?;
                let items = self.eval_items(index)?;
                self.span = stmt.span;
                python::containers::delitem(base, &items)?;
                Flow::Normal
            }
            StmtKind::Del(names) => {
                for n in names {
                    self.unbind(n)?;
                }
                Flow::Normal
            }
            StmtKind::Raise(e) => self.raise(e.as_ref())?,
            StmtKind::Global(names) => {
                // At the top level a `global` statement changes nothing.
                if let Some(f) = self.frames.last_mut() {
                    for n in names {
                        // A closure's copy of the name gives way to the module's.
                        f.vars.remove(n);
                        f.globals.push(n.clone());
                    }
                }
                Flow::Normal
            }
            StmtKind::If { .. }
            | StmtKind::Try { .. }
            | StmtKind::While { .. }
            | StmtKind::For { .. }
            | StmtKind::With { .. }
            | StmtKind::Def(_)
            | StmtKind::Class { .. } => bail!(Unsupported, "a block statement here is not supported"),
            StmtKind::Yield { .. } => bail!(Unsupported, "'yield' here is not supported"),
        };
        Ok((flow, defines))
    }

    /// `base.name = v`.
    fn set_attribute(&mut self, base: Value, name: &str, v: Value) -> Result<()> {
        match base {
            Value::Tensor(t) => {
                let mut ctx = self.context();
                let done = crate::trace::binding::autograd::setattr(&mut ctx, &t, name, v);
                let rebound = ctx.into_rebound();
                self.rebind(rebound);
                done
            }
            Value::Layer(l) => modules::methods::setattr(&mut self.context(), &l, name, v),
            other => bail!(Unsupported, "assigning attributes of a {} is not supported", other.type_name()),
        }
    }

    /// Calls a function the trace defined, in a scope of its own.
    pub(in crate::trace) fn call_user(
        &mut self,
        f: &Rc<Function>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        let def: &FuncDef = &f.def;
        if self.frames.iter().filter(|f| f.scope == Scope::Function).count() >= MAX_CALL_DEPTH {
            bail!(Limit, "maximum recursion depth exceeded (more than {MAX_CALL_DEPTH} nested calls)");
        }
        let name = &def.name;
        let (n, npos) = (def.params.len(), def.positional);
        let given = pos.len();
        let mut slots: Vec<Option<Value>> = vec![None; n];
        let mut rest = Vec::new();
        for (i, v) in pos.into_iter().enumerate() {
            if i < npos {
                slots[i] = Some(v);
            } else if def.var_args.is_some() {
                rest.push(v);
            } else {
                let s = if npos == 1 { "" } else { "s" };
                let were = if given == 1 { "was" } else { "were" };
                bail!(Type, "{name}() takes {npos} positional argument{s} but {given} {were} given");
            }
        }
        let mut rest_kw = Vec::new();
        for (k, v) in kw {
            match def.params.iter().position(|(p, _)| *p == k) {
                Some(i) if slots[i].is_some() => bail!(Type, "{name}() got multiple values for argument '{k}'"),
                Some(i) => slots[i] = Some(v),
                None if def.var_kwargs.is_some() => python::dict_insert(&mut rest_kw, k, v),
                None => bail!(Type, "{name}() got an unexpected keyword argument '{k}'"),
            }
        }
        // A closure sees its enclosing function's names; its own parameters shadow them.
        let mut vars: std::collections::BTreeMap<String, Value> = f.captured.iter().cloned().collect();
        for (i, ((p, _), slot)) in def.params.iter().zip(slots).enumerate() {
            let v = match slot.or_else(|| f.defaults[i].clone()) {
                Some(v) => v,
                None if i >= npos => bail!(Type, "{name}() missing 1 required keyword-only argument: '{p}'"),
                None => bail!(Type, "{name}() missing 1 required positional argument: '{p}'"),
            };
            vars.insert(p.clone(), v);
        }
        if let Some(a) = &def.var_args {
            vars.insert(a.clone(), Value::Tuple(rest));
        }
        if let Some(k) = &def.var_kwargs {
            vars.insert(k.clone(), Value::dict(crate::trace::python::value::DictKind::Plain, rest_kw));
        }
        if def.generator {
            // Python runs none of a generator's body until its first item is asked for.
            return Ok(Value::Iterator(GenFrame::start(f.clone(), vars)));
        }
        let span = self.span;
        let outside = self.engine.grad_enabled();
        if let Some(mode) = f.grad_mode {
            self.engine.set_grad_enabled(mode.enter(outside));
        }
        self.frames.push(Frame { vars, scope: Scope::Function, globals: Vec::new() });
        self.running.push(f.clone());
        let flow = self.exec_block(&def.body);
        self.running.pop();
        self.frames.pop();
        if f.grad_mode.is_some() {
            self.engine.set_grad_enabled(outside);
        }
        self.span = span;
        match flow? {
            Flow::Return(v) => Ok(*v),
            _ => Ok(Value::None),
        }
    }

    /// A `torch.` / `F.` function, or one of the grad-mode switches.
    pub(in crate::trace) fn call_function(&mut self, name: &str, mut args: Args) -> Result<Value> {
        let mode = match name {
            "no_grad" => GradMode::Off,
            "enable_grad" => GradMode::On,
            "inference_mode" => GradMode::Set(!args.bool_or(0, "mode", true)?),
            "set_grad_enabled" => {
                let b = args.bool_or(0, "mode", true)?;
                args.finish()?;
                // Called as a function it switches at once; as a context it also restores.
                self.engine.set_grad_enabled(b);
                return Ok(Value::Context(GradMode::Set(b)));
            }
            "is_grad_enabled" => {
                args.finish()?;
                return Ok(Value::Scalar(Scalar::Bool(self.engine.grad_enabled())));
            }
            // Every op here is deterministic already: the switch is kept for the query only.
            "use_deterministic_algorithms" => {
                let on = args.bool_or(0, "mode", true)?;
                let _ = args.kw_only("warn_only");
                args.finish()?;
                self.deterministic = on;
                return Ok(Value::None);
            }
            "is_anomaly_enabled" | "is_anomaly_check_nan_enabled" => {
                args.finish()?;
                let on = match self.engine.anomaly() {
                    crate::autograd::Anomaly::Off => false,
                    crate::autograd::Anomaly::On { check_nan } => name == "is_anomaly_enabled" || check_nan,
                };
                return Ok(Value::Scalar(Scalar::Bool(on)));
            }
            "are_deterministic_algorithms_enabled" => {
                args.finish()?;
                return Ok(Value::Scalar(Scalar::Bool(self.deterministic)));
            }
            _ => {
                let (pos, kw) = args.into_parts();
                let mut ctx = self.context();
                let out = crate::trace::binding::autograd::function_call(&mut ctx, name, pos, kw);
                // An `out=` tensor resized by the call: every name of it sees the new shape.
                let rebound = ctx.into_rebound();
                self.rebind(rebound);
                return out;
            }
        };
        args.finish()?;
        Ok(Value::Context(mode))
    }

    /// Python's builtins (`print`, `range`, `len`, ...).
    pub(in crate::trace) fn call_builtin(&mut self, name: &'static str, args: Args) -> Result<Value> {
        let args = match self.special_builtin(name, args)? {
            Ok(v) => return Ok(v),
            Err(args) => args,
        };
        let args = match self.iteration_builtin(name, args)? {
            Ok(v) => return Ok(v),
            Err(args) => args,
        };
        let args = match self.call_builtin_callback(name, args)? {
            Ok(v) => return Ok(v),
            Err(args) => args,
        };
        if name == "print" {
            let text = python::print_text(&mut self.context(), args)?;
            self.printed = self.printed.saturating_add(text.len());
            if self.printed > MAX_PRINTED {
                bail!(Limit, "a trace may print at most {} MiB in all", MAX_PRINTED >> 20);
            }
            self.output.push_str(&text);
            return Ok(Value::None);
        }
        python::call(&mut self.context(), name, args)
    }
}

/// The most text a run prints, over all its statements: every step keeps what it printed, in
/// the report and the page.
const MAX_PRINTED: usize = 16 << 20;

/// Whether an `except` clause's class (or tuple of classes) catches an exception of `class`.
fn catches(types: &Value, class: &str) -> Result<bool> {
    match types {
        Value::Tuple(items) => {
            for t in items {
                if catches(t, class)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Builtin(c) if exception::class(c).is_some() => Ok(exception::is_subclass(class, c)),
        _ => bail!(Type, "catching classes that do not inherit from BaseException is not allowed"),
    }
}
