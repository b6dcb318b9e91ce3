//! Runs a parsed trace statement by statement, as Python with PyTorch would.
//!
//! Each statement's results are realized when it ends, so every step has concrete values and
//! storages to show; within a statement tensors stay lazy, so a chain of ops becomes one graph.
//! The run stops at the first failing statement and says where (line and column).

use super::ast::{BinOp, Expr, ExprKind, Program, Span, Stmt, StmtKind};
use super::context::RunContext;
use super::library;
use super::meta;
use super::operators;
use super::parser;
use super::random;
use super::subscript;
use super::value::{Args, Value};
use crate::error::{bail, Error, Result};
use crate::tensor::{Engine, Tensor, Write};
use crate::uop::buffer::Scalar;
use std::collections::BTreeMap;

/// The failure of a run: where it happened and what PyTorch would have raised.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    pub line: usize,
    pub column: Option<usize>,
    pub error: Error,
}

/// What one statement did, for stepping through a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub line: usize,
    pub source: String,
    pub defines: Vec<String>,
    pub writes: Vec<Write>,
    pub tensors_changed: Vec<String>,
    /// The engine events (realizations and stores) this statement caused: `events[a..b]`.
    pub events: std::ops::Range<usize>,
}

/// The state of a run: the engine, the names bound so far and the steps taken.
pub struct Run {
    pub engine: Engine,
    env: BTreeMap<String, Value>,
    /// Names in order of first binding, so reports list tensors as the trace introduced them.
    order: Vec<String>,
    pub steps: Vec<Step>,
    pub error: Option<TraceError>,
    writes: Vec<Write>,
    span: Span,
    events_start: usize,
    /// Named byte blobs the host provides for `dataset(name)` (dataset files, by name).
    files: BTreeMap<String, Vec<u8>>,
}

impl Default for Run {
    fn default() -> Self {
        Self::new()
    }
}

impl Run {
    pub fn new() -> Self {
        Run {
            engine: Engine::new(),
            env: BTreeMap::new(),
            order: Vec::new(),
            steps: Vec::new(),
            error: None,
            writes: Vec::new(),
            span: Span::default(),
            events_start: 0,
            files: BTreeMap::new(),
        }
    }

    /// A run whose `dataset(name)` can read the given files (name -> raw or gzip'd bytes).
    pub fn with_files(files: BTreeMap<String, Vec<u8>>) -> Self {
        Run { files, ..Run::new() }
    }

    /// Parses and runs `src`, stopping at the first failing statement.
    pub fn run_source(src: &str) -> Run {
        Run::new().run_text(src)
    }

    /// Parses and runs `src` in this run (e.g. one made by [`Run::with_files`]).
    pub fn run_text(self, src: &str) -> Run {
        let mut run = self;
        match parser::parse(src) {
            Ok(program) => run.run_program(&program),
            Err(e) => {
                let (line, column) = match &e {
                    Error::Parse { line, column, .. } => (*line, Some(*column)),
                    _ => (1, None),
                };
                run.error = Some(TraceError { line, column, error: e });
            }
        }
        run
    }

    pub fn run_program(&mut self, program: &Program) {
        for stmt in &program.stmts {
            if let Err(error) = self.run_stmt(stmt) {
                let column =
                    if self.span.line == stmt.span.line { Some(self.span.column) } else { Some(stmt.span.column) };
                self.error = Some(TraceError { line: stmt.span.line, column, error });
                // Leave the names as they were before the failing statement finished, realized.
                self.finish_statement(stmt, Vec::new());
                return;
            }
        }
    }

    /// The tensors bound at the end, in the order the trace introduced them.
    pub fn tensors(&self) -> Vec<(&str, &Tensor)> {
        self.order
            .iter()
            .filter_map(|n| match self.env.get(n) {
                Some(Value::Tensor(t)) => Some((n.as_str(), t)),
                _ => None,
            })
            .collect()
    }

    fn run_stmt(&mut self, stmt: &Stmt) -> Result<()> {
        self.span = stmt.span;
        self.writes.clear();
        self.events_start = self.engine.events().len();
        let mut defines = Vec::new();
        match &stmt.kind {
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value)?;
                if targets.len() == 1 {
                    self.bind(&targets[0], v);
                } else {
                    let items = unpack(v, targets.len())?;
                    for (t, v) in targets.iter().zip(items) {
                        self.bind(t, v);
                    }
                }
                defines.extend(targets.iter().cloned());
            }
            StmtKind::AugAssign { target, op, value } => {
                let rhs = self.eval(value)?;
                match &target.kind {
                    ExprKind::Name(name) => {
                        let cur = self.lookup(name, target.span)?;
                        let out = self.augmented(cur, *op, rhs)?;
                        self.bind(name, out);
                        defines.push(name.clone());
                    }
                    ExprKind::Index { value: base, items } => {
                        // Python: tmp = base[items]; tmp op= rhs; base[items] = tmp.
                        let base = self.eval(base)?;
                        let items = self.eval_items(items)?;
                        let view = subscript::getitem(&mut self.context(), &base, &items)?;
                        let out = self.augmented(view, *op, rhs)?;
                        subscript::setitem(&mut self.context(), &base, &items, out)?;
                    }
                    _ => bail!(Unsupported, "augmented assignment to this target is not supported"),
                }
            }
            StmtKind::SetItem { target, index, value } => {
                let base = self.eval(target)?;
                let items = self.eval_items(index)?;
                let v = self.eval(value)?;
                self.span = stmt.span;
                subscript::setitem(&mut self.context(), &base, &items, v)?;
            }
            StmtKind::Expr(e) => {
                self.eval(e)?;
            }
        }
        self.finish_statement(stmt, defines);
        Ok(())
    }

    /// Realizes what the statement left pending and records the step.
    fn finish_statement(&mut self, stmt: &Stmt, defines: Vec<String>) {
        let names: Vec<String> = self.env.keys().cloned().collect();
        for name in names {
            if let Some(Value::Tensor(t)) = self.env.get(&name) {
                let t = t.clone();
                match self.engine.realize(&t) {
                    Ok(r) => {
                        self.env.insert(name, Value::Tensor(r));
                    }
                    // A computation that fails to realize has no value to show; drop the name.
                    Err(_) => {
                        self.env.remove(&name);
                    }
                }
            }
        }
        self.engine.end_statement();
        let writes = std::mem::take(&mut self.writes);
        let tensors_changed = self.observers(&writes);
        let events = self.events_start..self.engine.events().len();
        self.steps.push(Step {
            line: stmt.span.line,
            source: stmt.source.clone(),
            defines,
            writes: merge_writes(writes),
            tensors_changed,
            events,
        });
    }

    /// Names whose elements include a written storage cell.
    fn observers(&self, writes: &[Write]) -> Vec<String> {
        let mut out = Vec::new();
        for w in writes {
            let mut cells = vec![false; self.engine.storage(w.storage).data.len()];
            for &e in &w.elements {
                cells[e as usize] = true;
            }
            for name in &self.order {
                let Some(Value::Tensor(t)) = self.env.get(name) else { continue };
                if t.storage() != crate::tensor::StorageRef::Realized(w.storage) || out.contains(name) {
                    continue;
                }
                if t.layout().any_index(|i| cells[i as usize]) {
                    out.push(name.clone());
                }
            }
        }
        out
    }

    fn bind(&mut self, name: &str, v: Value) {
        if !self.env.contains_key(name) {
            self.order.push(name.to_string());
        }
        self.env.insert(name.to_string(), v);
    }

    /// Every name bound to an object an in-place metadata op changed now sees the change; the
    /// other tensors over the same storage are rebuilt over its current buffer (`resize_` may
    /// have grown it).
    fn rebind(&mut self, rebound: Vec<Tensor>) {
        for r in rebound {
            for v in self.env.values_mut() {
                rebind_value(&mut self.engine, v, &r);
            }
        }
    }

    fn lookup(&self, name: &str, span: Span) -> Result<Value> {
        if let Some(v) = self.env.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = library::builtin(name) {
            return Ok(v);
        }
        if name == "dataset" {
            return Ok(Value::Func(name.to_string()));
        }
        let _ = span;
        bail!(Name, "name '{name}' is not defined")
    }

    /// `dataset(name)`: a registered file as a flat uint8 tensor, validated by the readers.
    fn dataset(&mut self, mut args: Args) -> Result<Value> {
        let name = match args.req(0, "name")? {
            Value::Str(s) => s,
            other => bail!(Type, "dataset() argument 'name' must be str, not {}", other.type_name()),
        };
        args.finish()?;
        let Some(bytes) = self.files.get(&name) else {
            let known: Vec<&str> = self.files.keys().map(String::as_str).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            bail!(Name, "no dataset named {name:?} (available: {known})");
        };
        let t = crate::data::dataset_tensor(&mut self.engine, &name, bytes)?;
        Ok(Value::Tensor(t))
    }

    /// The engine and the statement's writes, lent to the op library for one call.
    fn context(&mut self) -> RunContext<'_> {
        RunContext::new(&mut self.engine, &mut self.writes)
    }

    fn augmented(&mut self, cur: Value, op: BinOp, rhs: Value) -> Result<Value> {
        match cur {
            Value::Tensor(t) => operators::inplace_binary(&mut self.context(), &t, op, rhs).map(Value::Tensor),
            other => operators::binary(&mut self.context(), op, other, rhs),
        }
    }

    fn eval_items(&mut self, items: &[Expr]) -> Result<Vec<Value>> {
        items.iter().map(|e| self.eval(e)).collect()
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> Result<Value> {
        match &e.kind {
            ExprKind::Name(n) => self.lookup(n, e.span),
            ExprKind::Int(i) => Ok(Value::Scalar(Scalar::Int(*i))),
            ExprKind::Float(f) => Ok(Value::Scalar(Scalar::Float(*f))),
            ExprKind::Bool(b) => Ok(Value::Scalar(Scalar::Bool(*b))),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::None => Ok(Value::None),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::Tuple(v) => Ok(Value::Tuple(self.eval_items(v)?)),
            ExprKind::List(v) => Ok(Value::List(self.eval_items(v)?)),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                self.span = e.span;
                operators::unary(&mut self.context(), *op, v)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                self.span = e.span;
                operators::binary(&mut self.context(), *op, a, b)
            }
            ExprKind::Attr { value, name } => {
                let v = self.eval(value)?;
                self.span = e.span;
                library::attr(&mut self.context(), v, name)
            }
            ExprKind::Index { value, items } => {
                let v = self.eval(value)?;
                let items = self.eval_items(items)?;
                self.span = e.span;
                subscript::getitem(&mut self.context(), &v, &items)
            }
            ExprKind::Slice { start, stop, step } => {
                let mut part = |x: &Option<Box<Expr>>| -> Result<Option<i64>> {
                    match x {
                        None => Ok(None),
                        Some(x) => match self.eval(x)? {
                            Value::None => Ok(None),
                            v => v.as_int("slice indices").map(Some),
                        },
                    }
                };
                Ok(Value::Slice(part(start)?, part(stop)?, part(step)?))
            }
            ExprKind::Call { func, args, kwargs } => {
                let pos = self.eval_items(args)?;
                let mut kw = Vec::with_capacity(kwargs.len());
                for (k, v) in kwargs {
                    kw.push((k.clone(), self.eval(v)?));
                }
                match &func.kind {
                    ExprKind::Attr { value, name } => {
                        let recv = self.eval(value)?;
                        self.span = e.span;
                        match recv {
                            Value::Tensor(t) => {
                                let mut ctx = self.context();
                                let out = library::method(&mut ctx, t, name, Args::new(name, pos, kw));
                                let rebound = ctx.into_rebound();
                                self.rebind(rebound);
                                out
                            }
                            Value::Storage(t) => {
                                meta::storage_method(&mut self.context(), t, name, Args::new(name, pos, kw))
                            }
                            Value::Module(_) => library::function(&mut self.context(), name, Args::new(name, pos, kw)),
                            Value::Generator(g) => {
                                random::generator_method(&mut self.context(), g, name, Args::new(name, pos, kw))
                            }
                            other => bail!(Type, "'{}' object has no attribute '{name}'", other.type_name()),
                        }
                    }
                    _ => {
                        let f = self.eval(func)?;
                        self.span = e.span;
                        match f {
                            Value::Func(name) if name == "dataset" => self.dataset(Args::new(&name, pos, kw)),
                            Value::Func(name) => {
                                library::function(&mut self.context(), &name, Args::new(&name, pos, kw))
                            }
                            other => bail!(Type, "'{}' object is not callable", other.type_name()),
                        }
                    }
                }
            }
        }
    }
}

/// [`Run::rebind`] for one value (tensors inside tuples and lists too).
fn rebind_value(engine: &mut Engine, v: &mut Value, r: &Tensor) {
    match v {
        Value::Tensor(t) if t.same_object(r) => *t = r.clone(),
        Value::Tensor(t) if t.storage() == r.storage() => *t = engine.refresh(t),
        Value::Tuple(items) | Value::List(items) => items.iter_mut().for_each(|x| rebind_value(engine, x, r)),
        _ => {}
    }
}

/// Python's unpacking of `a, b = value`.
fn unpack(v: Value, n: usize) -> Result<Vec<Value>> {
    let items = match v {
        Value::Tuple(v) | Value::List(v) => v,
        Value::Named(v) => v.into_iter().map(|(_, x)| x).collect(),
        other => bail!(Type, "cannot unpack non-iterable {} object", other.type_name()),
    };
    if items.len() != n {
        bail!(Type, "expected {n} values to unpack, got {}", items.len());
    }
    Ok(items)
}

/// One entry per storage, its elements sorted and unique: a step usually writes one storage,
/// but `a.add_(1).mul_(2)` writes it twice and an overlapping view repeats elements.
fn merge_writes(writes: Vec<Write>) -> Vec<Write> {
    let mut out: Vec<Write> = Vec::new();
    for w in writes {
        match out.iter_mut().find(|o| o.storage == w.storage) {
            Some(o) => o.elements.extend(w.elements),
            None => out.push(w),
        }
    }
    for w in &mut out {
        // A bitmap over the written span sorts and dedups in linear time.
        let (lo, hi) = match (w.elements.iter().min(), w.elements.iter().max()) {
            (Some(&lo), Some(&hi)) => (lo, hi),
            _ => continue,
        };
        let mut cells = vec![false; (hi - lo + 1) as usize];
        for &e in &w.elements {
            cells[(e - lo) as usize] = true;
        }
        w.elements = cells.iter().enumerate().filter(|(_, &c)| c).map(|(i, _)| lo + i as i64).collect();
    }
    out
}
