//! `torch.autograd.Function`s the trace defines (`class F(torch.autograd.Function)` with static
//! `forward(ctx, ...)` and `backward(ctx, *grads)`).
//!
//! `F.apply(...)` runs the trace's `forward` with grad mode off and a fresh `ctx`, then records
//! one node, `FBackward`, over the tensor inputs with what `ctx.save_for_backward` saved (the
//! engine's saved tensors: versions, freeing after a backward, storages kept alive). A backward
//! through the node calls back here ([`Callbacks::backward`]) to run the trace's `backward` with
//! grad mode off; `ctx.saved_tensors` is checked when it is read, as PyTorch checks it, so the
//! classic alias bug (the output changed in place before backward) fails with PyTorch's
//! message at that line.

use super::Run;
use crate::autograd::HookId;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};
use crate::trace::interp::calls::FunctionCall;
use crate::trace::nn::layer::{ClassKind, LayerKind};
use crate::trace::nn::modules::ModuleClass;
use crate::trace::python::value::{Args, Module, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

impl Run {
    /// `F.apply(*args)` for a class the trace derived from `torch.autograd.Function`.
    pub(in crate::trace) fn apply_function(
        &mut self,
        class: &Rc<ModuleClass>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        if !kw.is_empty() {
            bail!(Type, "apply() takes no keyword arguments");
        }
        let Some(forward) = method(class, "forward") else {
            return Err(not_implemented("You must implement the forward function for custom autograd.Function."));
        };
        let ctx_class = ModuleClass {
            name: format!("{}Backward", class.name),
            methods: Vec::new(),
            attrs: Vec::new(),
            kind: ClassKind::Plain,
            base: None,
        };
        let mut ctx = Module::new(LayerKind::Custom);
        ctx.class = Some(Rc::new(ctx_class));
        let ctx = Rc::new(ctx);
        let tensor_args: Vec<usize> = (0..pos.len()).filter(|&i| matches!(pos[i], Value::Tensor(_))).collect();
        let needs_input_grad: Vec<bool> = pos
            .iter()
            .map(|v| matches!(v, Value::Tensor(t) if self.engine.grad_enabled() && self.engine.autograd().requires_grad(t)))
            .collect();
        let shapes = pos
            .iter()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some((t.shape().to_vec(), t.dtype())),
                _ => None,
            })
            .collect();
        let call = self.functions.push(FunctionCall {
            class: class.clone(),
            ctx: ctx.clone(),
            nargs: pos.len(),
            tensor_args: tensor_args.clone(),
            inputs: shapes,
            needs_input_grad,
            saved: Vec::new(),
            node: None,
        });
        let inputs: Vec<Tensor> = pos
            .iter()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some(t.clone()),
                _ => None,
            })
            .collect();
        let mut args = vec![Value::Layer(ctx)];
        args.extend(pos);
        let grad = self.engine.grad_enabled();
        self.engine.set_grad_enabled(false);
        let out = self.call_value(forward, args, Vec::new());
        self.engine.set_grad_enabled(grad);
        let out = out?;
        let t = match &out {
            Value::Tensor(t) => t.clone(),
            Value::Tuple(items) if items.iter().any(|v| matches!(v, Value::Tensor(_))) => bail!(
                Unsupported,
                "an autograd.Function whose forward returns several values is not supported yet (return one tensor)"
            ),
            _ => return Ok(out),
        };
        if inputs.iter().any(|i| i.same_object(&t)) {
            bail!(
                Unsupported,
                "an autograd.Function whose forward returns one of its inputs unchanged is not supported yet"
            );
        }
        let saved = std::mem::take(&mut self.functions[call].saved);
        let refs: Vec<Option<&Tensor>> = inputs.iter().map(Some).collect();
        let node = self.engine.record_function(&t, &refs, saved.clone(), &class.name, call);
        let record = &mut self.functions[call];
        record.node = node;
        // Unrecorded (nothing requires grad): `ctx` keeps what it saved.
        if node.is_none() {
            record.saved = saved;
        }
        Ok(Value::Tensor(t))
    }

    /// The call whose `ctx` is `l`, if it is one.
    pub(in crate::trace) fn function_ctx(&self, l: &Rc<Module>) -> Option<usize> {
        self.functions.of_ctx(l)
    }

    /// `ctx.<name>(...)`: `None` for a name that is not one of ctx's own methods.
    pub(in crate::trace) fn ctx_method(&mut self, call: usize, name: &str, args: Args) -> Option<Result<Value>> {
        match name {
            "save_for_backward" => Some(self.save_for_backward(call, args)),
            "set_materialize_grads" => Some(args.finish().map(|()| Value::None)),
            "mark_dirty" | "mark_non_differentiable" | "save_for_forward" => {
                Some(Err(crate::error::Error::Unsupported(format!("ctx.{name}() is not supported yet"))))
            }
            _ => None,
        }
    }

    fn save_for_backward(&mut self, call: usize, args: Args) -> Result<Value> {
        let (pos, kw) = args.into_parts();
        if !kw.is_empty() {
            bail!(Type, "save_for_backward() takes no keyword arguments");
        }
        let mut saved = Vec::new();
        for v in pos {
            match v {
                Value::Tensor(t) => saved.push(t),
                Value::None => {}
                other => bail!(
                    Type,
                    "save_for_backward can only save variables, but argument {} is of type {}",
                    saved.len(),
                    other.type_name()
                ),
            }
        }
        self.functions[call].saved = saved;
        Ok(Value::None)
    }

    /// `ctx.<name>`: `None` for a name that is not one of ctx's own attributes.
    pub(in crate::trace) fn ctx_attr(&mut self, call: usize, name: &str) -> Option<Result<Value>> {
        let f = &self.functions[call];
        match name {
            "saved_tensors" => Some(match f.node {
                Some(node) => {
                    self.engine.function_saved(node).map(|ts| Value::Tuple(ts.into_iter().map(Value::Tensor).collect()))
                }
                None => Ok(Value::Tuple(f.saved.iter().cloned().map(Value::Tensor).collect())),
            }),
            "needs_input_grad" => Some(Ok(Value::Tuple(
                f.needs_input_grad.iter().map(|&b| Value::Scalar(crate::uop::buffer::Scalar::Bool(b))).collect(),
            ))),
            _ => None,
        }
    }

    /// Runs the trace's `backward` of call `call` on the gradient of its output (on the engine
    /// that runs the backward, swapped in): one gradient per tensor input of the forward.
    fn function_backward(&mut self, call: usize, g: Tensor) -> Result<Vec<Option<Tensor>>> {
        let f = self.functions[call].clone();
        let name = format!("{}Backward", f.class.name);
        let Some(backward) = method(&f.class, "backward") else {
            return Err(not_implemented(
                "You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.",
            ));
        };
        let grad = self.engine.grad_enabled();
        self.engine.set_grad_enabled(false);
        let out = self.call_value(backward, vec![Value::Layer(f.ctx.clone()), Value::Tensor(g)], Vec::new());
        self.engine.set_grad_enabled(grad);
        let returned = match out? {
            Value::Tuple(items) => items,
            v => vec![v],
        };
        if returned.len() != f.nargs {
            bail!(
                Autograd,
                "function {name} returned an incorrect number of gradients (expected {}, got {})",
                f.nargs,
                returned.len()
            );
        }
        let mut grads = Vec::with_capacity(f.tensor_args.len());
        for (i, v) in returned.into_iter().enumerate() {
            let is_tensor_arg = f.tensor_args.contains(&i);
            match v {
                Value::None if is_tensor_arg => grads.push(None),
                Value::None => {}
                Value::Tensor(t) if is_tensor_arg => {
                    let (shape, dtype) = &f.inputs[grads.len()];
                    grads.push(Some(self.fit_gradient(&name, i, t, shape, *dtype)?));
                }
                _ if !is_tensor_arg => bail!(
                    Autograd,
                    "function {name} returned a gradient different than None at position {}, but the corresponding forward input was not a Variable",
                    i + 1
                ),
                other => bail!(
                    Type,
                    "function {name} returned a {} as gradient {i}; expected a Tensor or None",
                    other.type_name()
                ),
            }
        }
        Ok(grads)
    }

    /// A gradient a Function's backward returned for input `i`, as PyTorch's engine takes it
    /// (`validate_outputs`): summed down to the input's shape where it is a broadcast of it
    /// (refused otherwise), in the input's dtype.
    fn fit_gradient(
        &mut self,
        name: &str,
        i: usize,
        g: Tensor,
        shape: &[usize],
        dtype: crate::dtype::DType,
    ) -> Result<Tensor> {
        let gs = g.shape().to_vec();
        let expandable =
            gs.len() >= shape.len() && shape.iter().rev().zip(gs.iter().rev()).all(|(&a, &b)| a == b || a == 1);
        if !expandable {
            let list = |s: &[usize]| s.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
            bail!(
                Autograd,
                "Function {name} returned an invalid gradient at index {i} - got [{}] but expected shape compatible with [{}]",
                list(&gs),
                list(shape)
            );
        }
        let g = self.engine.sum_to(&g, shape)?;
        if g.dtype() == dtype {
            return Ok(g);
        }
        self.engine.cast(&g, dtype)
    }
}

fn not_implemented(message: &str) -> crate::error::Error {
    crate::error::Error::Raised { class: "NotImplementedError".to_string(), message: message.to_string() }
}

/// A static method of the class (or one it inherited).
fn method(class: &ModuleClass, name: &str) -> Option<Value> {
    class.methods.iter().find(|(n, _)| n == name).map(|(_, f)| f.clone())
}

/// What a backward run by the trace calls back for: its hooks' functions and its autograd
/// Functions' backwards, each run with the backward's engine swapped into the run so the
/// trace's code sees every tensor as it is.
pub(in crate::trace) struct TraceCallbacks<'r> {
    pub(in crate::trace) run: &'r mut Run,
    pub(in crate::trace) hooks: BTreeMap<HookId, Value>,
}

impl crate::engine::backward::Callbacks for TraceCallbacks<'_> {
    fn hook(&mut self, engine: &mut Engine, id: HookId, g: Tensor) -> Result<Option<Tensor>> {
        let Some(f) = self.hooks.get(&id).cloned() else { return Ok(None) };
        std::mem::swap(engine, &mut self.run.engine);
        let out = self.run.call_value(f, vec![Value::Tensor(g)], Vec::new());
        std::mem::swap(engine, &mut self.run.engine);
        match out? {
            Value::None => Ok(None),
            Value::Tensor(t) => Ok(Some(t)),
            other => bail!(Type, "hook returned a {} where a Tensor or None was expected", other.type_name()),
        }
    }

    fn backward(&mut self, engine: &mut Engine, call: usize, g: Tensor) -> Result<Vec<Option<Tensor>>> {
        std::mem::swap(engine, &mut self.run.engine);
        let out = self.run.function_backward(call, g);
        std::mem::swap(engine, &mut self.run.engine);
        out
    }
}
