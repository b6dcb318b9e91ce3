//! Expression evaluation: names, literals, attributes, calls (of torch, of Python's builtins, of
//! functions and classes the trace defines, of modules), subscripts and operators, and the
//! attributes of `grad_fn` and list methods that mutate a name's value.

use super::*;
use crate::trace::python::introspect;

impl Run {
    /// A binary operator's value: membership and identity by Python's rules, the rest through
    /// the operator table (tensors, numbers, strings, containers).
    fn apply_binary(&mut self, op: BinOp, a: Value, b: Value) -> Result<Value> {
        if let Some(v) = self.special_contains(op, &a, &b)? {
            return Ok(v);
        }
        match op {
            BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot => python::compare(&mut self.context(), op, a, b),
            _ => python::binary(&mut self.context(), op, a, b),
        }
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> Result<Value> {
        match &e.kind {
            ExprKind::Name(n) => self.lookup(n, e.span),
            ExprKind::Int(i) => Ok(Value::Scalar(Scalar::Int(*i))),
            ExprKind::BigInt(digits) => crate::trace::python::number::parse_int(digits),
            ExprKind::Float(f) => Ok(Value::Scalar(Scalar::Float(*f))),
            ExprKind::Bool(b) => Ok(Value::Scalar(Scalar::Bool(*b))),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::None => Ok(Value::None),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::Tuple(v) => Ok(Value::Tuple(self.eval_items(v)?)),
            ExprKind::List(v) => Ok(Value::list(self.eval_items(v)?)),
            ExprKind::Dict(pairs) => {
                use crate::trace::python::value::{Dict, DictKind, Key};
                let dict = Dict::new(DictKind::Plain, Vec::with_capacity(pairs.len()));
                for (k, v) in pairs {
                    let key = Key::of(self.eval(k)?)?;
                    let value = self.eval(v)?;
                    dict.insert(key, value);
                }
                Ok(Value::Dict(dict))
            }
            ExprKind::Unary { op: UnaryOp::Not, operand } => {
                let v = self.eval(operand)?;
                self.span = e.span;
                Ok(Value::Scalar(Scalar::Bool(!python::truth(&mut self.context(), &v)?)))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                self.span = e.span;
                operators::unary(&mut self.context(), *op, v)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let b = self.eval(rhs)?;
                self.span = e.span;
                self.apply_binary(*op, a, b)
            }
            ExprKind::Compare { first, rest } => {
                let mut left = self.eval(first)?;
                let mut result = Value::None;
                for (i, (op, rhs)) in rest.iter().enumerate() {
                    let right = self.eval(rhs)?;
                    self.span = e.span;
                    result = self.apply_binary(*op, left, right.clone())?;
                    if i + 1 == rest.len() || !python::truth(&mut self.context(), &result)? {
                        break;
                    }
                    left = right;
                }
                Ok(result)
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = Value::None;
                for v in values {
                    last = self.eval(v)?;
                    let t = python::truth(&mut self.context(), &last)?;
                    if t == (*op == BoolOp::Or) {
                        break;
                    }
                }
                Ok(last)
            }
            ExprKind::IfExp { test, body, orelse } => {
                let t = self.eval(test)?;
                if python::truth(&mut self.context(), &t)? {
                    self.eval(body)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::Comp { kind, elt, generators } => self.comprehension(*kind, elt, generators),
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::Attr { value, name } => {
                let v = self.eval(value)?;
                self.span = e.span;
                self.attribute(v, name)
            }
            ExprKind::Lambda(def) => {
                let mut defaults = Vec::with_capacity(def.params.len());
                for (_, d) in &def.params {
                    defaults.push(match d {
                        Some(e) => Some(self.eval(e)?),
                        None => None,
                    });
                }
                let mut captured = self.enclosing_names();
                for (_, v) in &mut captured {
                    realize_value(&mut self.engine, v)?;
                }
                let f = crate::trace::python::value::Function {
                    def: std::rc::Rc::new((**def).clone()),
                    defaults,
                    captured,
                    kind: crate::trace::python::value::FunctionKind::Plain,
                    grad_mode: None,
                };
                Ok(Value::Function(std::rc::Rc::new(f)))
            }
            ExprKind::Starred { .. } => bail!(Type, "can't use starred expression here"),
            ExprKind::Index { value, items } => {
                let v = self.eval(value)?;
                let items = self.eval_items(items)?;
                self.span = e.span;
                match v {
                    Value::Size(_) | Value::Str(_) | Value::Range(..) | Value::Dict(..) => {
                        python::containers::getitem(v, &items)
                    }
                    Value::Layer(l) => match self.special_getitem(&Value::Layer(l.clone()), &items)? {
                        Some(v) => Ok(v),
                        None => modules::methods::getitem(&l, &items),
                    },
                    Value::Array(t) => numpy::getitem(&mut self.context(), &t, &items),
                    v => subscript::getitem(&mut self.context(), &v, &items),
                }
            }
            ExprKind::Slice { start, stop, step } => {
                let mut part = |x: &Option<Box<Expr>>| -> Result<Option<i64>> {
                    match x {
                        None => Ok(None),
                        Some(x) => match self.eval(x)? {
                            Value::None => Ok(None),
                            // Slices clamp their bounds: past 64 bits is as far as i64 goes.
                            Value::BigInt(b) => {
                                Ok(Some(if b.sign() == num_bigint::Sign::Minus { i64::MIN } else { i64::MAX }))
                            }
                            v => v.as_int("slice indices").map(Some),
                        },
                    }
                };
                Ok(Value::Slice(part(start)?, part(stop)?, part(step)?))
            }
            ExprKind::Call { func, args, kwargs } => {
                let (pos, kw) = self.eval_args(args, kwargs)?;
                match &func.kind {
                    ExprKind::Attr { value, name } => {
                        let recv = self.eval(value)?;
                        self.span = e.span;
                        self.call_method(recv, name, pos, kw)
                    }
                    _ => {
                        let f = self.eval(func)?;
                        self.span = e.span;
                        self.call_value(f, pos, kw)
                    }
                }
            }
        }
    }
}

impl Run {
    /// `module.apply(fn)`: `fn` on every child's tree first, then on the module (PyTorch's
    /// post-order).
    fn apply_to_modules(&mut self, l: &std::rc::Rc<crate::trace::python::value::Module>, f: &Value) -> Result<()> {
        let children: Vec<_> = l.children.borrow().iter().map(|(_, c)| c.clone()).collect();
        for c in children {
            self.apply_to_modules(&c, f)?;
        }
        self.call_value(f.clone(), vec![Value::Layer(l.clone())], Vec::new())?;
        Ok(())
    }

    /// `t.backward(...)` while tensor hooks are registered: the engine runs the graph and
    /// calls back here for each hook's function, lending its own state for the call.
    fn backward_with_hooks(&mut self, t: &Tensor, args: Args) -> Result<Value> {
        let (gradient, graph) = autograd::backward_args(args)?;
        self.with_hooks(|e, hooks| e.backward_hooked(t, gradient.as_ref(), graph, hooks))?;
        Ok(Value::None)
    }

    /// Runs `f` (a backward) on the engine with callbacks that run the hooks' functions and
    /// the autograd Functions' backwards.
    fn with_hooks<T>(
        &mut self,
        f: impl FnOnce(&mut Engine, &mut crate::engine::backward::HookRunner<'_>) -> Result<T>,
    ) -> Result<T> {
        let hooks = self.hook_fns.clone();
        // The run's engine is the one running backward: while the trace's code runs, the two
        // are swapped back, so it sees every tensor as it is.
        let mut engine = std::mem::replace(&mut self.engine, Engine::new());
        let mut callbacks = super::function::TraceCallbacks { run: &mut *self, hooks };
        let done = f(&mut engine, &mut callbacks);
        self.engine = engine;
        for w in self.engine.take_grad_writes() {
            self.writes.push(w);
        }
        done
    }

    /// `recv.name(*pos, **kw)`: a method of a tensor, module, list, optimizer, class, ... (also a
    /// method taken as a value, `f = x.add`, then called).
    pub(in crate::trace) fn call_method(
        &mut self,
        recv: Value,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        // `"".join(gen)`, `xs.extend(gen)`, `d.update(gen)`: a generator's items, all of them.
        let pos = if matches!(recv, Value::Str(_) | Value::List(_) | Value::Dict(_)) {
            let mut whole = Vec::with_capacity(pos.len());
            for v in pos {
                whole.push(self.drained(v)?);
            }
            whole
        } else {
            pos
        };
        match recv {
            Value::Iterator(it) => self.iterator_method(&it, name, Args::new(name, pos, kw)),
            // `xs.sort(key=..., reverse=...)`: `sorted`'s order (stable, through
            // the trace's key function), put back into the list itself.
            Value::List(l) if name == "sort" => {
                if !pos.is_empty() {
                    bail!(Type, "sort() takes no positional arguments");
                }
                let args = Args::new("sorted", vec![Value::List(l.clone())], kw);
                let sorted = self.call_builtin("sorted", args)?;
                l.replace(sorted.into_items().unwrap_or_default());
                Ok(Value::None)
            }
            Value::Tensor(t) if name == "numpy" => {
                numpy::from_tensor(&mut self.context(), &t, Args::new(name, pos, kw))
            }
            Value::Array(t) => numpy_calls::method(&mut self.context(), t, name, Args::new(name, pos, kw)),
            Value::Module("numpy") => numpy_calls::function(&mut self.context(), name, Args::new(name, pos, kw)),
            Value::Tensor(t) if name == "register_hook" => {
                let mut args = Args::new(name, pos, kw);
                let f = args.req(0, "hook")?;
                args.finish()?;
                let id = self.engine.register_hook(&t)?;
                self.hook_fns.insert(id, f);
                Ok(Value::HookHandle(id))
            }
            Value::Tensor(t) if name == "backward" && self.engine.needs_callbacks() => {
                self.backward_with_hooks(&t, Args::new(name, pos, kw))
            }
            Value::HookHandle(id) if name == "remove" => {
                Args::new(name, pos, kw).finish()?;
                self.engine.remove_hook(id);
                self.hook_fns.remove(&id);
                Ok(Value::None)
            }
            Value::Tensor(t) => {
                let mut kw = kw;
                let requires_grad = autograd::take_requires_grad(&mut kw)?;
                device::take_factory_kwargs(&mut self.context(), name, &mut kw)?;
                let inputs = autograd::tensors_in(
                    std::iter::once(&Value::Tensor(t.clone())).chain(&pos).chain(kw.iter().map(|(_, v)| v)),
                );
                let mut ctx = self.context();
                let mut args = Some(Args::new(name, pos, kw));
                let out = match autograd::method(&mut ctx, &t, name, &mut args) {
                    Some(r) => r,
                    None => {
                        let args = args.unwrap_or_else(|| Args::new(name, Vec::new(), Vec::new()));
                        methods::method(&mut ctx, t, name, args)
                    }
                };
                let out = out.and_then(|v| {
                    autograd::after_call(&mut ctx, name, &inputs, &v, requires_grad)?;
                    Ok(v)
                });
                let rebound = ctx.into_rebound();
                self.rebind(rebound);
                out
            }
            Value::Module("autograd") if name == "grad" && self.engine.needs_callbacks() => {
                let c = autograd::grad_args(Args::new(name, pos, kw))?;
                self.with_hooks(|e, hooks| {
                    e.grad_of_hooked(&c.out, &c.inputs, c.gradient.as_ref(), c.graph, c.allow_unused, hooks)
                })
                .map(autograd::grads_value)
            }
            Value::Module("autograd") => autograd::function(&mut self.context(), name, Args::new(name, pos, kw)),
            Value::Module("nn") if modules::is_layer(name) => {
                modules::construct(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Module("nn") if name == "Parameter" => {
                modules::parameter(&mut self.context(), Args::new(name, pos, kw))
            }
            // A module class the product does not have is named as `nn.X`, not as a function.
            Value::Module("nn") if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                Err(crate::error::Error::unknown_op(format!("nn.{name}"), name))
            }
            Value::Module("nn.init") if crate::trace::nn::init::is_function(name) => {
                crate::trace::nn::init::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Module("nn.utils") if crate::trace::nn::utils::is_function(name) => {
                crate::trace::nn::utils::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Module("optim") if optim::is_optimizer(name) => {
                optim::construct(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Layer(l) if self.function_ctx(&l).is_some() => {
                let call = self.function_ctx(&l).unwrap_or_default();
                match self.ctx_method(call, name, Args::new(name, pos, kw)) {
                    Some(out) => out,
                    None => bail!(Type, "'{}' object has no attribute '{name}'", Value::Layer(l).type_name()),
                }
            }
            Value::Layer(l) => {
                if let Some(f) = self.method_of(&l, name) {
                    let mut args = Vec::with_capacity(pos.len() + 1);
                    if f.kind != crate::trace::python::value::FunctionKind::Static {
                        args.push(Value::Layer(l.clone()));
                    }
                    args.extend(pos);
                    return self.call_user(&f, args, kw);
                }
                if name == "forward" {
                    return self.call_layer(&l, pos, kw);
                }
                if name == "apply" {
                    let mut args = Args::new(name, pos, kw);
                    let f = args.req(0, "fn")?;
                    args.finish()?;
                    self.apply_to_modules(&l, &f)?;
                    return Ok(Value::Layer(l));
                }
                // `self.fc1(x)`: an attribute that is a module or a function.
                if let Some(c) = l.child(name) {
                    return self.call_layer(&c, pos, kw);
                }
                let attr = l.attrs.borrow().iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
                match attr {
                    Some(Value::Function(f)) => return self.call_user(&f, pos, kw),
                    Some(Value::Layer(c)) => return self.call_layer(&c, pos, kw),
                    _ => {}
                }
                let mut ctx = self.context();
                let out = modules::methods::method(&mut ctx, &l, name, Args::new(name, pos, kw));
                // `m.to(...)` sets its parameters' `.data`: every name sees it.
                let rebound = ctx.into_rebound();
                self.rebind(rebound);
                out
            }
            Value::Module("lr_scheduler") if crate::trace::nn::scheduler::is_scheduler(name) => {
                crate::trace::nn::scheduler::construct(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Scheduler(s) => crate::trace::nn::scheduler::method(&s, name, Args::new(name, pos, kw)),
            Value::Optimizer(o) => optim::method(&mut self.context(), &o, name, Args::new(name, pos, kw)),
            Value::Class(c) if name == "apply" && c.kind == crate::trace::nn::layer::ClassKind::Function => {
                self.apply_function(&c, pos, kw)
            }
            // `Config.make(2)`: a class's static method or a function it holds.
            Value::Class(c) => {
                let f = self.attribute(Value::Class(c), name)?;
                self.call_value(f, pos, kw)
            }
            Value::Super(sup) => self.call_super(&sup, name, pos, kw),
            Value::GradFn(n) if name == "name" => {
                Args::new(name, pos, kw).finish()?;
                Ok(Value::Str(self.engine.autograd().node(n).name.clone()))
            }
            Value::Storage(t, view) => {
                meta::storage_method(&mut self.context(), t, view, name, Args::new(name, pos, kw))
            }
            Value::Module("math") => python::math::math(&mut self.context(), name, Args::new(name, pos, kw)),
            Value::Module("sys") => python::sys::call(name, Args::new(name, pos, kw)),
            Value::Module("special") => {
                let name = format!("special.{name}");
                self.call_function(&name, Args::new(&name, pos, kw))
            }
            Value::Module("cuda") => device::cuda_function(name, Args::new(name, pos, kw)),
            Value::Module("linalg") => {
                let name = format!("linalg.{name}");
                self.call_function(&name, Args::new(&name, pos, kw))
            }
            Value::Module("torch") if introspect::tensor_class(name).is_some() => {
                let class = introspect::tensor_class(name).unwrap_or(Value::None);
                self.call_value(class, pos, kw)
            }
            Value::Module("torch") if library::is_dtype_name(name) => {
                bail!(Type, "'torch.dtype' object is not callable")
            }
            Value::Module(m @ ("collections" | "copy")) => {
                let f = self.attribute(Value::Module(m), name)?;
                self.call_value(f, pos, kw)
            }
            Value::Module(_) => self.call_function(name, Args::new(name, pos, kw)),
            Value::Generator(g) => random::generator_method(&mut self.context(), g, name, Args::new(name, pos, kw)),
            other => python::methods::method(&mut self.context(), other, name, Args::new(name, pos, kw)),
        }
    }

    /// Calls a value: a torch function, a builtin, a function the trace defined (a lambda
    /// too), a module, a class.
    pub(in crate::trace) fn call_value(
        &mut self,
        f: Value,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        match f {
            Value::Func(name) if name == "dataset" => self.dataset(Args::new(&name, pos, kw)),
            Value::Func(name) if optim::is_optimizer(&name) => {
                optim::construct(&mut self.context(), &name, Args::new(&name, pos, kw))
            }
            // `from torch.nn import Linear`, `layer = nn.Linear` then called.
            Value::Func(name) if modules::is_layer(&name) => {
                modules::construct(&mut self.context(), &name, Args::new(&name, pos, kw))
            }
            Value::Func(name) if name == "Parameter" => {
                modules::parameter(&mut self.context(), Args::new(&name, pos, kw))
            }
            Value::Func(name) if name.starts_with("nn.init.") => {
                let name = name.trim_start_matches("nn.init.");
                crate::trace::nn::init::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Func(name) if name.starts_with("nn.utils.") => {
                let name = name.trim_start_matches("nn.utils.");
                crate::trace::nn::utils::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Func(name) if name.starts_with("lr_scheduler.") => {
                let name = name.trim_start_matches("lr_scheduler.");
                crate::trace::nn::scheduler::construct(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Func(name) if name.starts_with("sys.") => python::sys::call(&name[4..], Args::new(&name, pos, kw)),
            Value::Func(name) if name.starts_with("np.") => {
                let name = name.trim_start_matches("np.");
                numpy_calls::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::NpDType(d) => {
                let name = crate::trace::python::array_str::numpy_name(d);
                numpy_calls::function(&mut self.context(), name, Args::new(name, pos, kw))
            }
            Value::Func(name) => self.call_function(&name, Args::new(&name, pos, kw)),
            Value::Builtin(name) => self.call_builtin(name, Args::new(name, pos, kw)),
            Value::Function(f) => self.call_user(&f, pos, kw),
            Value::Layer(l) => self.call_layer(&l, pos, kw),
            Value::Class(c) => self.instantiate(&c, pos, kw),
            Value::Apply(c) => self.apply_function(&c, pos, kw),
            Value::Method(recv, name) => self.call_method(*recv, &name, pos, kw),
            Value::Type(name) => introspect::call_type(&mut self.context(), name, Args::new(name, pos, kw)),
            other => bail!(Type, "'{}' object is not callable", other.type_name()),
        }
    }

    /// `value.name` for a value already evaluated.
    pub(in crate::trace) fn attribute(&mut self, v: Value, name: &str) -> Result<Value> {
        match v {
            Value::Tensor(t) if name == "__class__" => {
                Ok(introspect::type_of(&self.engine, &Value::Tensor(t), modules::title))
            }
            Value::Tensor(t) => match autograd::attr(&mut self.context(), &t, name) {
                Some(r) => r,
                None => match library::attr(&mut self.context(), Value::Tensor(t.clone()), name) {
                    // `x.add` without a call: the method, bound to `x`.
                    Err(_) if crate::trace::binding::methods::is_tensor_method(name) => {
                        Ok(Value::Method(Box::new(Value::Tensor(t)), name.to_string()))
                    }
                    got => got,
                },
            },
            Value::GradFn(n) => self.grad_fn_attr(n, name),
            Value::Array(t) => numpy::attr(&mut self.context(), &t, name),
            Value::Module("numpy") => numpy_calls::module_attr(name),
            Value::Module("lr_scheduler") if crate::trace::nn::scheduler::is_scheduler(name) => {
                Ok(Value::Func(format!("lr_scheduler.{name}")))
            }
            Value::Scheduler(s) => crate::trace::nn::scheduler::attr(&s, name),
            Value::Module("nn.utils") if crate::trace::nn::utils::is_function(name) => {
                Ok(Value::Func(format!("nn.utils.{name}")))
            }
            Value::Module("nn.init") if crate::trace::nn::init::is_function(name) => {
                Ok(Value::Func(format!("nn.init.{name}")))
            }
            Value::Module("collections") if name == "OrderedDict" => Ok(Value::Builtin("OrderedDict")),
            Value::Module("copy") if name == "deepcopy" => Ok(Value::Builtin("copy.deepcopy")),
            Value::Module("copy") if name == "copy" => Ok(Value::Builtin("copy.copy")),
            Value::Module(m @ ("collections" | "copy")) => bail!(Unsupported, "{m}.{name} is not supported"),
            Value::Layer(l) if self.function_ctx(&l).is_some() => {
                let call = self.function_ctx(&l).unwrap_or_default();
                match self.ctx_attr(call, name) {
                    Some(v) => v,
                    None => modules::methods::attr(&l, name),
                }
            }
            Value::Layer(l) => match self.method_of(&l, name) {
                // A `@property` runs on access; a method is looked up where it is called.
                Some(f) if f.kind == crate::trace::python::value::FunctionKind::Property => {
                    self.call_user(&f, vec![Value::Layer(l.clone())], Vec::new())
                }
                _ => modules::methods::attr(&l, name),
            },
            Value::Class(c) if name == "apply" && c.kind == crate::trace::nn::layer::ClassKind::Function => {
                Ok(Value::Apply(c))
            }
            Value::Class(c) => {
                let found = c.attrs.iter().chain(&c.methods).find(|(n, _)| n == name).map(|(_, v)| v.clone());
                match found {
                    Some(v) => Ok(v),
                    None if name == "__name__" => Ok(Value::Str(c.name.clone())),
                    None => bail!(Type, "type object '{}' has no attribute '{name}'", c.name),
                }
            }
            Value::Optimizer(o) => optim::attr(&o, name),
            Value::Module("torch") if name == "autograd" => Ok(Value::Module("autograd")),
            Value::Module("autograd") if name == "Function" => Ok(Value::Func("autograd.Function".to_string())),
            Value::Module("nn") if modules::is_layer(name) || name == "Parameter" => Ok(Value::Func(name.to_string())),
            Value::Builtin(n) | Value::Type(n) if name == "__name__" => {
                Ok(Value::Str(n.rsplit('.').next().unwrap_or(n).to_string()))
            }
            Value::Function(f) if name == "__name__" => Ok(Value::Str(f.def.name.clone())),
            // A module class (`type(nn.Linear(1, 1))`, `nn.ReLU`) and a torch function.
            Value::Func(f) if name == "__name__" => Ok(Value::Str(f.rsplit('.').next().unwrap_or(&f).to_string())),
            Value::Exception(e) if name == "args" => Ok(Value::Tuple(e.args.clone())),
            Value::Device(d) if name == "type" => Ok(Value::Str(d.kind().to_string())),
            Value::Device(d) if name == "index" => Ok(match d {
                crate::torch::device::Device::Cuda(Some(i)) => Value::Scalar(Scalar::Int(i)),
                _ => Value::None,
            }),
            ref v if name == "__class__" => Ok(introspect::type_of(&self.engine, v, modules::title)),
            v => library::attr(&mut self.context(), v, name),
        }
    }

    /// `grad_fn.next_functions` and `grad_fn.name`.
    fn grad_fn_attr(&mut self, n: crate::autograd::NodeId, name: &str) -> Result<Value> {
        if let Some(field) = name.strip_prefix("_saved_") {
            use crate::engine::backward::Unpacked;
            return match self.engine.unpack_saved(n, field)? {
                Some(Unpacked::Tensor(t)) => Ok(Value::Tensor(t)),
                Some(Unpacked::Scalar(s)) => Ok(Value::Scalar(s)),
                Some(Unpacked::NotSaved) => Ok(Value::None),
                None => bail!(Type, "'{}' object has no attribute '{name}'", self.engine.autograd().node(n).name),
            };
        }
        let node = self.engine.autograd().node(n);
        match name {
            "next_functions" => Ok(Value::Tuple(
                node.next
                    .iter()
                    .map(|e| {
                        let f = match e {
                            Some(crate::autograd::Edge::Node(m)) => Value::GradFn(*m),
                            Some(crate::autograd::Edge::Leaf(_)) => Value::Str("AccumulateGrad".into()),
                            None => Value::None,
                        };
                        Value::Tuple(vec![f, Value::Scalar(Scalar::Int(0))])
                    })
                    .collect(),
            )),
            _ => bail!(Type, "'{}' object has no attribute '{name}'", node.name),
        }
    }
}
