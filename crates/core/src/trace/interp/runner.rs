//! Runs a parsed trace statement by statement, as Python with PyTorch would.
//!
//! Each executed statement is a step: its results are realized when it ends, so every step has
//! concrete values and storages to show; within a statement tensors stay lazy, so a chain of ops
//! becomes one graph. A loop body run five times gives five steps, each knowing its iteration; a
//! call to a function the trace defines runs inside the calling statement's step. The run stops
//! at the first failing statement and says where (line and column). Statement execution and
//! control flow are in `exec.rs`, Python's own builtins in `python.rs`.

use crate::error::{bail, Error, Result};
use crate::limits::{Reclaim, StorageBudget};
use crate::tensor::{Engine, Tensor, Write};
use crate::trace::binding::autograd;
use crate::trace::binding::device;
use crate::trace::binding::library;
use crate::trace::binding::meta;
use crate::trace::binding::methods;
use crate::trace::binding::numpy;
use crate::trace::binding::numpy_calls;
use crate::trace::binding::operators;
use crate::trace::binding::random;
use crate::trace::binding::subscript;
use crate::trace::lang::ast::{BinOp, BoolOp, Expr, ExprKind, Import, Program, Span, Star, Stmt, UnaryOp};
use crate::trace::lang::parser;
use crate::trace::nn::modules;
use crate::trace::nn::optim;
use crate::trace::python;
use crate::trace::python::context::{Library, RunContext};
use crate::trace::python::value::{Args, Key, Value};
use crate::uop::buffer::Scalar;
use std::collections::BTreeMap;

/// The most statements a run executes (loop bodies count once per iteration).
mod eval;
mod function;
mod reach;
pub(in crate::trace) mod targets;

pub const MAX_EXECUTED: usize = 10_000;
/// The deepest nesting of calls to functions the trace defines.
pub const MAX_CALL_DEPTH: usize = 64;

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
    /// The loops the statement ran inside, outermost first: each loop's line and the 1-based
    /// iteration.
    pub iterations: Vec<(usize, usize)>,
    /// What `print` wrote while the statement ran.
    pub output: String,
    /// The time machine: each saved tensor this statement made stale, as a sentence ("this
    /// write changes a tensor saved by SigmoidBackward0; a backward through it will fail").
    pub stale: Vec<String>,
    /// The bridge's plan for the statement's first write (bridge runs only).
    pub plan: Option<crate::semantics::WritePlan>,
    /// The nodes a `backward()` (or `autograd.grad`) in the statement ran, in order.
    pub backward: Vec<BackwardStep>,
}

/// One node a backward ran: its name and line, the gradient's shape, where the gradients went
/// (node names, or `x.grad` for a leaf a name holds), and the `.grad` cells an AccumulateGrad
/// wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BackwardStep {
    pub node: String,
    pub line: usize,
    pub grad_shape: Vec<usize>,
    pub into: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<Write>,
}

/// Watches a run step by step: called before each step starts and after it is recorded (the
/// kernel view snapshots storages here).
pub trait StepObserver {
    fn before(&mut self, engine: &Engine);
    fn after(&mut self, engine: &Engine, step: &Step);
}

/// The names a function call or a comprehension binds, and whether names of the frames below
/// it are visible (a comprehension sees its function's locals; a call does not see its caller's).
pub(in crate::trace) struct Frame {
    pub(in crate::trace) vars: BTreeMap<String, Value>,
    pub(in crate::trace) scope: Scope,
    /// The names a `global` statement made the module's inside this function.
    pub(in crate::trace) globals: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::trace) enum Scope {
    Function,
    Comprehension,
}

/// The state of a run: the engine, the names bound so far and the steps taken.
pub struct Run {
    pub engine: Engine,
    pub(in crate::trace) env: BTreeMap<String, Value>,
    /// Names in order of first binding, so reports list tensors as the trace introduced them.
    order: Vec<String>,
    /// Bytes printed so far (bounded, see `exec.rs`).
    pub(in crate::trace) printed: usize,
    /// Global names whose value holds nothing the engine tracks (numbers, strings, lists of
    /// them: see [`Value::is_plain`]); the end of each statement skips them, so its cost does not grow
    /// with the Python data in scope.
    plain: std::collections::BTreeSet<String>,
    pub steps: Vec<Step>,
    pub error: Option<TraceError>,
    pub(in crate::trace) writes: Vec<Write>,
    pub(in crate::trace) span: Span,
    pub(in crate::trace) events_start: usize,
    /// Named byte blobs the host provides for `dataset(name)` (dataset files, by name).
    files: BTreeMap<String, Vec<u8>>,
    /// Function and comprehension scopes, innermost last; globals are `env`.
    pub(in crate::trace) frames: Vec<Frame>,
    /// Statements executed so far (see [`MAX_EXECUTED`]).
    pub(in crate::trace) executed: usize,
    /// The loops being run, outermost first: (line, 1-based iteration).
    pub(in crate::trace) loops: Vec<(usize, usize)>,
    /// The iterators the running `for` loops walk, outermost first: a generator held by a
    /// loop alone keeps its names alive (and realized) between the loop's steps.
    pub(in crate::trace) loop_iters: Vec<crate::trace::python::SharedIter>,
    /// The trace's functions being called, innermost last (what a bare `super()` is inside).
    pub(in crate::trace) running: Vec<std::rc::Rc<crate::trace::python::value::Function>>,
    /// What `print` wrote during the current step.
    pub(in crate::trace) output: String,
    /// Stop (without error) once this many steps are recorded: stepping replays a prefix.
    stop_after: Option<usize>,
    pub(in crate::trace) observer: Option<Box<dyn StepObserver>>,
    /// The innermost statement that failed, where the error is reported.
    pub(in crate::trace) failing: Option<Span>,
    /// The stale saved tensors already reported (a step reports the ones it made stale).
    stale_seen: Vec<String>,
    /// [`Engine::version_changes`] when `stale_seen` was taken: no version moved since, nothing
    /// new can be stale, and the graph is not walked again.
    stale_checked: u64,
    /// The same trace run under tinygrad's PyTorch bridge ([`crate::engine::bridge`]): its
    /// own execution, which runs on where PyTorch raises and stops where the bridge fails.
    pub bridge: Option<Box<Run>>,
    /// The errors being handled by `except` clauses, innermost last (a bare `raise` re-raises
    /// the last).
    pub(in crate::trace) handling: Vec<Error>,
    /// What the trace's import lines bind ([`Program::imports`]).
    imports: Vec<Import>,
    /// `torch.use_deterministic_algorithms(mode)`, as `are_deterministic_algorithms_enabled()`
    /// reports it.
    pub(in crate::trace) deterministic: bool,
    /// The functions of the tensor hooks registered (`t.register_hook(fn)`), by id.
    pub(in crate::trace) hook_fns: BTreeMap<crate::autograd::HookId, Value>,
    /// Each `F.apply(...)` of a `torch.autograd.Function` the trace defined, by call.
    pub(in crate::trace) functions: crate::trace::interp::calls::FunctionCalls,
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
            printed: 0,
            plain: std::collections::BTreeSet::new(),
            steps: Vec::new(),
            error: None,
            writes: Vec::new(),
            span: Span::default(),
            events_start: 0,
            files: BTreeMap::new(),
            frames: Vec::new(),
            executed: 0,
            loops: Vec::new(),
            loop_iters: Vec::new(),
            running: Vec::new(),
            output: String::new(),
            stop_after: None,
            observer: None,
            failing: None,
            stale_seen: Vec::new(),
            stale_checked: 0,
            bridge: None,
            handling: Vec::new(),
            imports: Vec::new(),
            deterministic: false,
            hook_fns: BTreeMap::new(),
            functions: Default::default(),
        }
    }

    /// Stops the run, without error, once `steps` steps are recorded (stepping to step k).
    pub fn stop_after(mut self, steps: usize) -> Self {
        self.stop_after = Some(steps);
        self
    }

    /// Calls `observer` around every step.
    pub fn observe(&mut self, observer: Box<dyn StepObserver>) {
        self.observer = Some(observer);
    }

    /// Stops calling the observer.
    pub fn unobserve(&mut self) {
        self.observer = None;
    }

    /// Whether the run has recorded as many steps as it was asked to stop after.
    pub(in crate::trace) fn should_stop(&self) -> bool {
        self.stop_after.is_some_and(|k| self.steps.len() >= k)
    }

    /// Holds the run's storages to `budget` (and the bridge's run beside it, to the same).
    pub fn limit_storages(mut self, budget: StorageBudget) -> Self {
        self.engine.limit_storages(budget);
        self
    }

    /// The bridge's run beside this one: the same files, stop and budget.
    fn bridge_run(&self) -> Run {
        let mut engine = Engine::bridge();
        engine.limit_storages(self.engine.storage_budget());
        Run { engine, files: self.files.clone(), stop_after: self.stop_after, ..Run::new() }
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
        if !run.engine.is_bridge() {
            run.bridge = Some(Box::new(run.bridge_run().run_text(src)));
        }
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

    /// Runs `program` in this run and, beside it, under the bridge's rules (continuing the
    /// bridge's run unless it has failed already), as [`Run::run_text`] does.
    pub fn run_program_with_bridge(&mut self, program: &Program) {
        if !self.engine.is_bridge() {
            if self.bridge.is_none() {
                self.bridge = Some(Box::new(self.bridge_run()));
            }
            if let Some(bridge) = self.bridge.as_mut().filter(|b| b.error.is_none()) {
                bridge.run_program(program);
            }
        }
        self.run_program(program);
    }

    pub fn run_program(&mut self, program: &Program) {
        self.imports = program.imports.clone();
        if let Err(error) = self.exec_block(&program.stmts) {
            let at = self.failing.take().unwrap_or(self.span);
            let error = suggested(error);
            self.error = Some(TraceError { line: at.line, column: Some(at.column), error });
        }
    }

    /// The tensors bound at the end, in the order the trace introduced them; a module's
    /// parameters and buffers follow its name (`model.0.weight`), an optimizer's state tensors
    /// its (`opt.state[0].exp_avg`).
    pub fn tensors(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for n in &self.order {
            match self.env.get(n) {
                Some(Value::Tensor(t)) => out.push((n.clone(), t.clone())),
                Some(Value::Layer(l)) => {
                    for (p, t) in l.named_parameters().into_iter().chain(l.named_buffers()) {
                        out.push((format!("{n}.{p}"), t));
                    }
                }
                Some(Value::Optimizer(o)) => {
                    for (p, t) in o.named_state() {
                        out.push((format!("{n}.{p}"), t));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Starts a step: its writes, events and printed text are counted from here.
    pub(in crate::trace) fn begin_statement(&mut self) {
        self.writes.clear();
        self.output.clear();
        self.events_start = self.engine.events().len();
        if let Some(o) = self.observer.as_mut() {
            o.before(&self.engine);
        }
    }

    /// Realizes what the statement left pending, failing with the first `limit` error (other
    /// failures leave the name to [`Run::finish_statement`], which drops it).
    pub(in crate::trace) fn realize_within_limits(&mut self) -> Result<()> {
        if !self.engine.has_pending() {
            return Ok(());
        }
        self.realize_loop_iters()?;
        let names = self.tracked_names();
        for name in names {
            let Some(mut v) = self.env.remove(&name) else { continue };
            let realized = realize_value(&mut self.engine, &mut v);
            self.env.insert(name, v);
            if let Err(e @ Error::Limit(_)) = realized {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Realizes what the running loops' iterators hold (a suspended generator's names).
    fn realize_loop_iters(&mut self) -> Result<()> {
        let mut seen = Seen::default();
        for it in self.loop_iters.clone() {
            realize_in(&mut self.engine, &mut Value::Iterator(it), &mut seen)?;
        }
        Ok(())
    }

    /// Realizes what the statement left pending and records the step.
    pub(in crate::trace) fn finish_statement(&mut self, stmt: &Stmt, defines: Vec<String>) {
        // What fails to realize here failed in `realize_within_limits` already.
        let names = if self.engine.has_pending() {
            let _ = self.realize_loop_iters();
            self.tracked_names()
        } else {
            Vec::new()
        };
        for name in names {
            let Some(mut v) = self.env.remove(&name) else { continue };
            // A computation that fails to realize has no value to show; the name is dropped.
            if realize_value(&mut self.engine, &mut v).is_ok() {
                self.env.insert(name, v);
            }
        }
        self.engine.label_nodes(stmt.span.line);
        self.engine.end_statement();
        if self.engine.is_bridge() {
            let live = self.live_storages();
            self.engine.bridge_prune_lazies(&live);
        }
        let writes = std::mem::take(&mut self.writes);
        // The bridge's refreshed views count among the observers, not among the writes.
        let refreshed = self.engine.take_refreshed();
        let tensors_changed = if refreshed.is_empty() {
            self.observers(&writes)
        } else {
            self.observers(&[&writes[..], &refreshed[..]].concat())
        };
        let stale = self.newly_stale();
        let backward = self.backward_steps();
        let events = self.events_start..self.engine.events().len();
        self.steps.push(Step {
            line: stmt.span.line,
            source: stmt.source.clone(),
            defines,
            writes: merge_writes(writes),
            tensors_changed,
            events,
            iterations: self.loops.clone(),
            output: std::mem::take(&mut self.output),
            stale,
            plan: self.engine.take_plans().into_iter().next(),
            backward,
        });
        if let (Some(o), Some(step)) = (self.observer.as_mut(), self.steps.last()) {
            o.after(&self.engine, step);
        }
        // Last, after the observer has read the statement's storages: a run on a budget frees
        // what nothing reaches any more (Python drops it too).
        if self.engine.storage_budget().reclaim == Reclaim::Unreachable {
            let live = self.live_storages();
            self.engine.reclaim(&live);
        }
    }

    /// Saved tensors that became stale in this statement (reachable from a bound tensor).
    /// The statement's backward, with leaves named by the names bound to them.
    fn backward_steps(&mut self) -> Vec<BackwardStep> {
        use crate::autograd::GradTarget;
        let log = self.engine.take_backward_log();
        let leaf = |o| {
            self.env
                .iter()
                .find_map(|(n, v)| match v {
                    Value::Tensor(t) if t.object == o => Some(format!("{n}.grad")),
                    _ => None,
                })
                .unwrap_or_else(|| "a leaf's .grad".to_string())
        };
        log.into_iter()
            .map(|e| BackwardStep {
                node: e.node,
                line: e.line,
                grad_shape: e.grad_shape,
                into: e
                    .into
                    .into_iter()
                    .map(|t| match t {
                        GradTarget::Node(n) => n,
                        GradTarget::Leaf(o) => leaf(o),
                    })
                    .collect(),
                write: e.write.map(|(storage, elements)| Write { storage, elements }),
            })
            .collect()
    }

    fn newly_stale(&mut self) -> Vec<String> {
        if self.engine.version_changes() == self.stale_checked {
            return Vec::new();
        }
        self.stale_checked = self.engine.version_changes();
        let live: Vec<Tensor> =
            self.env.values().filter_map(|v| if let Value::Tensor(t) = v { Some(t.clone()) } else { None }).collect();
        let refs: Vec<&Tensor> = live.iter().collect();
        let now: Vec<String> = self
            .engine
            .stale_saved(&refs)
            .into_iter()
            .map(|(node, line, t)| {
                format!(
                    "this write changes a tensor saved by {node} (line {line}, shape {:?}); a backward through it will fail",
                    t.shape()
                )
            })
            .collect();
        let fresh: Vec<String> = now.iter().filter(|m| !self.stale_seen.contains(*m)).cloned().collect();
        self.stale_seen = now;
        fresh
    }

    /// The global names whose values may hold something the engine tracks.
    fn tracked_names(&self) -> Vec<String> {
        self.env.iter().filter(|(n, v)| !self.still_plain(n, v)).map(|(n, _)| n.clone()).collect()
    }

    /// Whether the global `name`, bound to `v`, still holds only plain Python data: it did when
    /// bound, and a list it is has not taken anything tracked since (through any name).
    fn still_plain(&self, name: &str, v: &Value) -> bool {
        still_plain(&self.plain, name, v)
    }

    fn observers(&self, writes: &[Write]) -> Vec<String> {
        let mut out = Vec::new();
        let named = if writes.is_empty() { Vec::new() } else { self.tensors() };
        for w in writes {
            // A dense write (the usual in-place op) is one range: no mask of the storage.
            if let Some(range) = w.elements.as_range() {
                for (name, t) in &named {
                    let on = t.storage() == crate::tensor::StorageRef::Realized(w.storage);
                    if on && !out.contains(name) && t.layout().any_index_in(range.clone()) {
                        out.push(name.clone());
                    }
                }
                continue;
            }
            let mut cells = vec![false; self.engine.storage(w.storage).data.len()];
            for e in w.elements.iter() {
                cells[e as usize] = true;
            }
            for (name, t) in &named {
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

    /// Binds `name` in the innermost function scope, or globally.
    pub(in crate::trace) fn bind(&mut self, name: &str, v: Value) {
        if let Some(f) = self.frames.last_mut().filter(|f| !f.globals.iter().any(|g| g == name)) {
            f.vars.insert(name.to_string(), v);
            return;
        }
        if !self.env.contains_key(name) {
            self.order.push(name.to_string());
        }
        if v.is_plain() {
            self.plain.insert(name.to_string());
        } else {
            self.plain.remove(name);
        }
        self.env.insert(name.to_string(), v);
    }

    /// `del name`.
    pub(in crate::trace) fn unbind(&mut self, name: &str) -> Result<()> {
        let removed = match self.frames.last_mut() {
            Some(f) => f.vars.remove(name),
            None => {
                self.order.retain(|n| n != name);
                self.plain.remove(name);
                self.env.remove(name)
            }
        };
        match removed {
            Some(_) => Ok(()),
            None => bail!(Name, "name '{name}' is not defined"),
        }
    }

    /// Every name bound to an object an in-place metadata op changed now sees the change; the
    /// other tensors over the same storage are rebuilt over its current buffer (`resize_` may
    /// have grown it).
    pub(in crate::trace) fn rebind(&mut self, rebound: Vec<Tensor>) {
        for r in rebound {
            let plain = &self.plain;
            for (_, v) in self.env.iter_mut().filter(|(n, v)| !still_plain(plain, n, v)) {
                rebind_value(&mut self.engine, v, &r, &mut Seen::default());
            }
        }
    }

    fn lookup(&mut self, name: &str, span: Span) -> Result<Value> {
        for f in self.frames.iter().rev() {
            if let Some(v) = f.vars.get(name) {
                return Ok(v.clone());
            }
            if f.scope == Scope::Function {
                break;
            }
        }
        if let Some(v) = self.env.get(name) {
            return Ok(v.clone());
        }
        if let Some(i) = self.imports.iter().rposition(|i| i.name == name) {
            return self.imported(i);
        }
        if let Some(v) = python::builtin(name) {
            return Ok(v);
        }
        // `from torch.optim import SGD` leaves the optimizers' bare names.
        if optim::is_optimizer(name) {
            return Ok(Value::Func(name.to_string()));
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

    /// What an import binds: a module the trace language has (`torch`, `torch.nn`,
    /// `torch.nn.functional`, `torch.optim`, `math`, ...) or a name in one
    /// (`from torch.nn import Linear`).
    fn imported(&mut self, i: usize) -> Result<Value> {
        let path = self.imports[i].path.clone();
        let mut v = match path.first().map(String::as_str) {
            Some("torch") => Value::Module("torch"),
            Some("math") => Value::Module("math"),
            Some("sys") => Value::Module("sys"),
            Some("numpy") => Value::Module("numpy"),
            Some("collections") => Value::Module("collections"),
            Some("copy") => Value::Module("copy"),
            Some(other) => {
                bail!(Unsupported, "module '{other}' is not supported (imported as '{}')", self.imports[i].name)
            }
            None => bail!(Name, "name '{}' is not defined", self.imports[i].name),
        };
        for part in &path[1..] {
            v = self.attribute(v, part)?;
        }
        Ok(v)
    }

    /// The names visible in the innermost function being run (its locals, and what it
    /// captured): what a function or lambda defined there captures. Empty at the top level,
    /// where functions see the globals as they are when called.
    pub(in crate::trace) fn enclosing_names(&self) -> Vec<(String, Value)> {
        let Some(top) = self.frames.iter().rposition(|f| f.scope == Scope::Function) else {
            return Vec::new();
        };
        let mut names: BTreeMap<String, Value> = BTreeMap::new();
        for f in &self.frames[top..] {
            names.extend(f.vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        names.into_iter().collect()
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
    pub(in crate::trace) fn context(&mut self) -> RunContext<'_> {
        let library = Library { function: library::function, method: methods::method, binary: operators::binary };
        RunContext::new(&mut self.engine, &mut self.writes, library)
    }

    pub(in crate::trace) fn augmented(&mut self, cur: Value, op: BinOp, rhs: Value) -> Result<Value> {
        match cur {
            Value::Tensor(t) => operators::inplace_binary(&mut self.context(), &t, op, rhs).map(Value::Tensor),
            Value::Array(t) => crate::trace::binding::numpy::inplace(&mut self.context(), &t, op, rhs),
            // `xs += iterable` extends the list itself and `xs *= n` repeats it in place, so
            // every name holding it sees the change.
            Value::List(l) if op == BinOp::Add => {
                let items = self.sequence(rhs)?;
                if l.len().saturating_add(items.len()) > crate::trace::python::value::MAX_SEQUENCE {
                    bail!(Limit, "a list may hold at most {} items", crate::trace::python::value::MAX_SEQUENCE);
                }
                for x in &items {
                    python::containers::refuse_cycle(l.address(), x)?;
                }
                l.extend(items);
                Ok(Value::List(l))
            }
            Value::List(l) if op == BinOp::Mul => {
                let Value::List(grown) = operators::binary(&mut self.context(), op, Value::List(l.clone()), rhs)?
                else {
                    bail!(Type, "can't multiply sequence by non-int");
                };
                l.replace(grown.into_items());
                Ok(Value::List(l))
            }
            other => operators::binary(&mut self.context(), op, other, rhs),
        }
    }

    /// The items of a tuple or list display, `*iterable` unpacked in place.
    pub(in crate::trace) fn eval_items(&mut self, items: &[Expr]) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for e in items {
            match &e.kind {
                ExprKind::Starred { value, star: Star::Items } => {
                    let v = self.eval(value)?;
                    out.extend(self.sequence(v)?);
                }
                ExprKind::Starred { star: Star::Entries, .. } => bail!(Type, "dict unpacking is only for calls"),
                _ => out.push(self.eval(e)?),
            }
            if out.len() > crate::trace::python::value::MAX_SEQUENCE {
                bail!(Limit, "a sequence may hold at most {} items", crate::trace::python::value::MAX_SEQUENCE);
            }
        }
        Ok(out)
    }

    /// A call's arguments: positional ones with `*iterable` unpacked, keyword ones with
    /// `**mapping` unpacked (a name given twice is Python's TypeError).
    pub(in crate::trace) fn eval_args(&mut self, args: &[Expr], kwargs: &[(String, Expr)]) -> Result<CallArgs> {
        let mut pos = Vec::with_capacity(args.len());
        let mut kw: Vec<(String, Value)> = Vec::with_capacity(kwargs.len());
        let add = |kw: &mut Vec<(String, Value)>, k: String, v: Value| -> Result<()> {
            if kw.iter().any(|(n, _)| *n == k) {
                bail!(Type, "got multiple values for keyword argument '{k}'");
            }
            kw.push((k, v));
            Ok(())
        };
        for e in args {
            match &e.kind {
                ExprKind::Starred { value, star: Star::Entries } => match self.eval(value)? {
                    Value::Dict(d) => {
                        let Ok(entries) = d.str_entries() else { bail!(Type, "keywords must be strings") };
                        for (k, v) in entries {
                            add(&mut kw, k, v)?;
                        }
                    }
                    other => bail!(Type, "argument after ** must be a mapping, not {}", other.type_name()),
                },
                _ => pos.extend(self.eval_items(std::slice::from_ref(e))?),
            }
        }
        for (k, v) in kwargs {
            let v = self.eval(v)?;
            add(&mut kw, k.clone(), v)?;
        }
        Ok((pos, kw))
    }
}

/// A call's evaluated arguments: positional, then keyword.
pub(in crate::trace) type CallArgs = (Vec<Value>, Vec<(String, Value)>);

/// Realizes every tensor in `v` (inside tuples and lists too): nothing lazy outlives its
/// statement.
pub(in crate::trace) fn realize_value(engine: &mut Engine, v: &mut Value) -> Result<()> {
    realize_in(engine, v, &mut Seen::default())
}

fn realize_in(engine: &mut Engine, v: &mut Value, seen: &mut Seen) -> Result<()> {
    match v {
        Value::Tensor(t) | Value::Array(t) => engine.realize_mut(t)?,
        Value::Method(recv, _) => realize_in(engine, recv, seen)?,
        Value::Tuple(items) => {
            for x in items {
                realize_in(engine, x, seen)?;
            }
        }
        // An untracked list holds no tensor (nor a list that could hold one).
        Value::List(l) if l.tracked() && seen.insert(l.address()) => {
            for x in l.borrow_mut_same().iter_mut() {
                realize_in(engine, x, seen)?;
            }
        }
        Value::Named(_, fields) => {
            for (_, x) in fields {
                realize_in(engine, x, seen)?;
            }
        }
        Value::Dict(d) if d.tracked() && seen.insert(d.address()) => {
            for (k, x) in d.borrow_mut_same().iter_mut() {
                if let Key::Other(k) = k {
                    realize_in(engine, k, seen)?;
                }
                realize_in(engine, x, seen)?;
            }
        }
        // A module's and an optimizer's tensors outlive the statement too.
        Value::Layer(l) => {
            for m in l.all() {
                for list in [&m.params, &m.buffers] {
                    for (_, t) in list.borrow_mut().iter_mut() {
                        engine.realize_mut(t)?;
                    }
                }
                for (_, x) in m.attrs.borrow_mut().iter_mut() {
                    realize_in(engine, x, seen)?;
                }
            }
        }
        // A closure's lists and dicts (its captured tensors were realized when it was made).
        Value::Function(f) => {
            for (_, x) in &f.captured {
                if matches!(x, Value::List(_) | Value::Dict(_) | Value::Layer(_) | Value::Iterator(_)) {
                    realize_in(engine, &mut x.clone(), seen)?;
                }
            }
        }
        // A suspended generator's names, the items an iterator has left.
        Value::Iterator(it) if seen.insert(std::rc::Rc::as_ptr(it) as usize) => {
            let mut inner = Vec::new();
            if let Ok(mut it) = it.try_borrow_mut() {
                it.realize_with(&mut |x| realize_in(engine, x, seen), &mut inner)?;
            }
            for x in inner {
                realize_in(engine, &mut Value::Iterator(x), seen)?;
            }
        }
        Value::Optimizer(o) => {
            for s in o.state.borrow_mut().iter_mut().flatten() {
                for t in [&mut s.momentum_buffer, &mut s.step, &mut s.exp_avg, &mut s.exp_avg_sq, &mut s.max_exp_avg_sq]
                    .into_iter()
                    .flatten()
                {
                    engine.realize_mut(t)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// [`Run::rebind`] for one value (tensors inside tuples and lists too).
/// See [`Run::still_plain`]: only a list or dict can stop being plain (what else was plain
/// holds neither), so the check is one flag, not a walk.
fn still_plain(plain: &std::collections::BTreeSet<String>, name: &str, v: &Value) -> bool {
    plain.contains(name)
        && match v {
            Value::List(l) => !l.tracked(),
            Value::Dict(d) => !d.tracked(),
            _ => true,
        }
}

fn rebind_value(engine: &mut Engine, v: &mut Value, r: &Tensor, seen: &mut Seen) {
    let tensor = |engine: &mut Engine, t: &mut Tensor| {
        if t.same_object(r) {
            *t = r.clone();
        } else if t.storage() == r.storage() {
            *t = engine.refresh(t);
        }
    };
    match v {
        Value::Tensor(t) | Value::Array(t) => tensor(engine, t),
        Value::Method(recv, _) => rebind_value(engine, recv, r, seen),
        Value::Tuple(items) => items.iter_mut().for_each(|x| rebind_value(engine, x, r, seen)),
        Value::List(l) if l.tracked() && seen.insert(l.address()) => {
            l.borrow_mut_same().iter_mut().for_each(|x| rebind_value(engine, x, r, seen))
        }
        // A module's parameters and buffers are the same objects (`m.weight.data = t`).
        Value::Layer(l) => {
            for m in l.all() {
                for list in [&m.params, &m.buffers] {
                    list.borrow_mut().iter_mut().for_each(|(_, t)| tensor(engine, t));
                }
                m.attrs.borrow_mut().iter_mut().for_each(|(_, x)| rebind_value(engine, x, r, seen));
            }
        }
        _ => {}
    }
}

/// The lists and dicts a walk has been through (by address): many names and containers may
/// hold one, so the values form a DAG that a walk without it could follow exponentially often.
type Seen = std::collections::HashSet<usize>;

/// One entry per storage, its elements sorted and unique: a step usually writes one storage,
/// but `a.add_(1).mul_(2)` writes it twice and an overlapping view repeats elements.
pub(in crate::trace) fn merge_writes(writes: Vec<Write>) -> Vec<Write> {
    let mut out: Vec<Write> = Vec::new();
    for w in writes {
        match out.iter_mut().find(|o| o.storage == w.storage) {
            Some(o) => o.elements.extend_from(&w.elements),
            None => out.push(w),
        }
    }
    for w in &mut out {
        w.elements = std::mem::take(&mut w.elements).into_sorted_unique();
    }
    out
}

/// An error as a trace reports and raises it: a name no op table has, with the nearest known
/// name (module classes included), as Python's AttributeError where PyTorch lacks it too.
pub(super) fn suggested(e: crate::error::Error) -> crate::error::Error {
    crate::trace::binding::suggest::with_suggestion(e, crate::trace::nn::modules::class_names())
}
