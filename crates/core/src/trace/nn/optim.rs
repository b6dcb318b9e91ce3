//! `torch.optim.SGD`, `Adam` and `AdamW` as PyTorch runs them on the CPU (the for-loop,
//! single-tensor implementation of `torch/optim/sgd.py` and `adam.py`): each `step()` is the
//! same sequence of tensor ops, under `no_grad`, as PyTorch's, written with the trace's own
//! tensor methods, so every in-place write (`param.add_`, `exp_avg.lerp_`, ...) is recorded,
//! bumps its storage's version and is seen by the tensors that share it. The state tensors
//! (`momentum_buffer`, `step`, `exp_avg`, `exp_avg_sq`, `max_exp_avg_sq`) are created at a
//! parameter's first step, as PyTorch's lazy `state[p]`.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::binding::library;
use crate::trace::binding::methods;
use crate::trace::nn::optimizer::{Hyper, OptimKind, Optimizer};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;
use std::cell::RefCell;
use std::rc::Rc;

/// An optimizer as values hold it.
pub type Optim = Optimizer<Value>;

pub fn is_optimizer(name: &str) -> bool {
    matches!(name, "SGD" | "Adam" | "AdamW")
}

fn float(f: f64) -> Value {
    Value::Scalar(Scalar::Float(f))
}

fn boolean(b: bool) -> Value {
    Value::Scalar(Scalar::Bool(b))
}

/// `torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
/// nesterov=False, *, maximize=False, ...)`, `Adam(params, lr=1e-3, betas=(0.9, 0.999),
/// eps=1e-8, weight_decay=0, amsgrad=False, *, maximize=False, ...)`, and `AdamW` (the same
/// with `weight_decay=1e-2`, decoupled).
pub fn construct(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let params = args.req(0, "params")?;
    let params = match params {
        Value::Tensor(_) => bail!(
            Type,
            "params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor"
        ),
        v => crate::trace::python::sequence(run, v)?,
    };
    let mut tensors = Vec::with_capacity(params.len());
    for p in params {
        match p {
            Value::Tensor(t) => {
                if !run.engine.autograd().is_leaf(&t) {
                    bail!(Value, "can't optimize a non-leaf Tensor");
                }
                if tensors.iter().any(|x: &Tensor| x.same_object(&t)) {
                    bail!(Value, "some parameters appear in more than one parameter group");
                }
                tensors.push(t)
            }
            Value::Dict(..) => {
                bail!(Unsupported, "parameter groups (a list of dicts) are not supported: one group of tensors is")
            }
            other => bail!(Type, "optimizer can only optimize Tensors, but one of the params is {}", other.type_name()),
        }
    }
    if tensors.is_empty() {
        bail!(Value, "optimizer got an empty parameter list");
    }
    // Each option: given (kept as given, for param_groups and the printed form) or PyTorch's
    // default.
    let take = |args: &mut Args, i: Option<usize>, key: &'static str, default: Value| -> Value {
        let v = match i {
            Some(i) => args.opt(i, key),
            None => args.kw_only(key),
        };
        v.unwrap_or(default)
    };
    let num = |v: &Value, what: &str| -> Result<f64> { Ok(v.as_scalar(what)?.as_f64()) };
    let int = |i: i64| Value::Scalar(Scalar::Int(i));
    let kind = match name {
        "SGD" => OptimKind::Sgd,
        "Adam" => OptimKind::Adam,
        _ => OptimKind::AdamW,
    };
    let lr = take(&mut args, Some(1), "lr", float(1e-3));
    let mut group: Vec<(&'static str, Value)> = Vec::new();
    let hyper = if kind == OptimKind::Sgd {
        let momentum = take(&mut args, Some(2), "momentum", int(0));
        let dampening = take(&mut args, Some(3), "dampening", int(0));
        let weight_decay = take(&mut args, Some(4), "weight_decay", int(0));
        let nesterov = take(&mut args, Some(5), "nesterov", boolean(false));
        let maximize = take(&mut args, None, "maximize", boolean(false));
        let foreach = take(&mut args, None, "foreach", Value::None);
        let differentiable = take(&mut args, None, "differentiable", boolean(false));
        let fused = take(&mut args, None, "fused", Value::None);
        args.finish()?;
        let h = Hyper {
            lr: num(&lr, "lr")?,
            momentum: num(&momentum, "momentum")?,
            dampening: num(&dampening, "dampening")?,
            weight_decay: num(&weight_decay, "weight_decay")?,
            nesterov: num(&nesterov, "nesterov")? != 0.0,
            maximize: num(&maximize, "maximize")? != 0.0,
            betas: (0.9, 0.999),
            eps: 1e-8,
            amsgrad: false,
        };
        if h.lr < 0.0 {
            bail!(Value, "Invalid learning rate: {}", crate::trace::python::repr_plain(&lr));
        }
        if h.momentum < 0.0 {
            bail!(Value, "Invalid momentum value: {}", crate::trace::python::repr_plain(&momentum));
        }
        if h.weight_decay < 0.0 {
            bail!(Value, "Invalid weight_decay value: {}", crate::trace::python::repr_plain(&weight_decay));
        }
        if h.nesterov && (h.momentum <= 0.0 || h.dampening != 0.0) {
            bail!(Value, "Nesterov momentum requires a momentum and zero dampening");
        }
        group.extend([
            ("dampening", dampening),
            ("differentiable", differentiable),
            ("foreach", foreach),
            ("fused", fused),
            ("lr", lr),
            ("maximize", maximize),
            ("momentum", momentum),
            ("nesterov", nesterov),
            ("weight_decay", weight_decay),
        ]);
        h
    } else {
        let betas = take(&mut args, Some(2), "betas", Value::Tuple(vec![float(0.9), float(0.999)]));
        let eps = take(&mut args, Some(3), "eps", float(1e-8));
        let wd_default = if kind == OptimKind::AdamW { float(1e-2) } else { int(0) };
        let weight_decay = take(&mut args, Some(4), "weight_decay", wd_default);
        let amsgrad = take(&mut args, Some(5), "amsgrad", boolean(false));
        let maximize = take(&mut args, None, "maximize", boolean(false));
        let foreach = take(&mut args, None, "foreach", Value::None);
        let capturable = take(&mut args, None, "capturable", boolean(false));
        let differentiable = take(&mut args, None, "differentiable", boolean(false));
        let fused = take(&mut args, None, "fused", Value::None);
        let decoupled = take(&mut args, None, "decoupled_weight_decay", boolean(kind == OptimKind::AdamW));
        args.finish()?;
        let (b1, b2) = match betas.items().as_deref() {
            Some([a, b]) => (num(a, "betas")?, num(b, "betas")?),
            _ => bail!(Type, "betas must be a tuple of two floats"),
        };
        let h = Hyper {
            lr: num(&lr, "lr")?,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: num(&weight_decay, "weight_decay")?,
            nesterov: false,
            maximize: num(&maximize, "maximize")? != 0.0,
            betas: (b1, b2),
            eps: num(&eps, "eps")?,
            amsgrad: num(&amsgrad, "amsgrad")? != 0.0,
        };
        if fails_nonnegative(h.lr) {
            bail!(Value, "Invalid learning rate: {}", crate::trace::python::repr_plain(&lr));
        }
        if fails_nonnegative(h.eps) {
            bail!(Value, "Invalid epsilon value: {}", crate::trace::python::repr_plain(&eps));
        }
        if !(0.0..1.0).contains(&b1) {
            bail!(Value, "Invalid beta parameter at index 0: {}", crate::trace::python::float_repr(b1));
        }
        if !(0.0..1.0).contains(&b2) {
            bail!(Value, "Invalid beta parameter at index 1: {}", crate::trace::python::float_repr(b2));
        }
        if fails_nonnegative(h.weight_decay) {
            bail!(Value, "Invalid weight_decay value: {}", crate::trace::python::repr_plain(&weight_decay));
        }
        let kind = if num(&decoupled, "decoupled_weight_decay")? != 0.0 { OptimKind::AdamW } else { kind };
        group.extend([
            ("amsgrad", amsgrad),
            ("betas", betas),
            ("capturable", capturable),
            ("decoupled_weight_decay", decoupled),
            ("differentiable", differentiable),
            ("eps", eps),
            ("foreach", foreach),
            ("fused", fused),
            ("lr", lr),
            ("maximize", maximize),
            ("weight_decay", weight_decay),
        ]);
        return Ok(new_optimizer(kind, h, group, tensors));
    };
    Ok(new_optimizer(kind, hyper, group, tensors))
}

/// The optimizer value, its parameter group a dict in PyTorch's key order.
fn new_optimizer(kind: OptimKind, hyper: Hyper, group: Vec<(&'static str, Value)>, params: Vec<Tensor>) -> Value {
    const SGD: &[&str] =
        &["lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable", "fused"];
    const ADAM: &[&str] = &[
        "lr",
        "betas",
        "eps",
        "weight_decay",
        "amsgrad",
        "maximize",
        "foreach",
        "capturable",
        "differentiable",
        "fused",
        "decoupled_weight_decay",
    ];
    let order = if kind == OptimKind::Sgd { SGD } else { ADAM };
    let mut entries = vec![("params".to_string(), Value::list(params.iter().cloned().map(Value::Tensor).collect()))];
    for key in order {
        if let Some((_, v)) = group.iter().find(|(k, _)| k == key) {
            entries.push((key.to_string(), v.clone()));
        }
    }
    let param_group = Value::dict(crate::trace::python::value::DictKind::Plain, entries);
    Value::Optimizer(Rc::new(Optimizer {
        kind,
        hyper,
        group,
        param_groups: Value::list(vec![param_group.clone()]),
        param_group,
        state: RefCell::new(vec![None; params.len()]),
        params,
    }))
}

/// The hyper-parameters the next step uses: the constructor's, with what the trace set in
/// `opt.param_groups[0]` since (PyTorch reads the group at every step).
fn hyper_now(opt: &Optim) -> Result<Hyper> {
    let mut h = opt.hyper;
    let Value::Dict(g) = &opt.param_group else { return Ok(h) };
    let num = |key: &str| -> Result<Option<f64>> {
        match g.get(key) {
            Some(v @ (Value::Scalar(_) | Value::BigInt(_))) => Ok(Some(v.as_scalar(key)?.as_f64())),
            Some(Value::Tensor(_)) => bail!(Unsupported, "a tensor as param_groups[0]['{key}'] is not supported"),
            _ => Ok(None),
        }
    };
    if let Some(x) = num("lr")? {
        h.lr = x;
    }
    if let Some(x) = num("weight_decay")? {
        h.weight_decay = x;
    }
    if opt.kind == OptimKind::Sgd {
        if let Some(x) = num("momentum")? {
            h.momentum = x;
        }
        if let Some(x) = num("dampening")? {
            h.dampening = x;
        }
    } else {
        if let Some(x) = num("eps")? {
            h.eps = x;
        }
        if let Some(Value::Tuple(b)) = g.get("betas") {
            if let [b1, b2] = b.as_slice() {
                h.betas = (b1.as_scalar("betas")?.as_f64(), b2.as_scalar("betas")?.as_f64());
            }
        }
    }
    Ok(h)
}

/// `opt.step()`, `opt.zero_grad(set_to_none=True)`.
pub fn method(run: &mut RunContext, opt: &Rc<Optim>, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "step" => {
            if let Some(c) = args.opt(0, "closure") {
                if !matches!(c, Value::None) {
                    bail!(Unsupported, "step(closure) is not supported; call the closure before step()");
                }
            }
            args.finish()?;
            let grad = run.engine.grad_enabled();
            run.engine.set_grad_enabled(false);
            let r = step(run, opt);
            run.engine.set_grad_enabled(grad);
            r?;
            Ok(Value::None)
        }
        "zero_grad" => {
            let to_none = args.bool_or(0, "set_to_none", true)?;
            args.finish()?;
            crate::trace::nn::modules::methods::zero_grads(run, &opt.params, to_none)?;
            Ok(Value::None)
        }
        _ => bail!(Type, "'{}' object has no attribute '{name}'", opt.kind.title()),
    }
}

/// `opt.param_groups`, `opt.defaults`.
pub fn attr(opt: &Rc<Optim>, name: &str) -> Result<Value> {
    match name {
        "param_groups" => Ok(opt.param_groups.clone()),
        "defaults" => Ok(Value::dict(
            crate::trace::python::value::DictKind::Plain,
            opt.group.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        )),
        _ => bail!(Type, "'{}' object has no attribute '{name}'", opt.kind.title()),
    }
}

/// `t.name(args...)` through the trace's own method table; the result's tensor.
fn call(run: &mut RunContext, t: &Tensor, name: &str, pos: Vec<Value>, kw: Vec<(&str, Value)>) -> Result<Tensor> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let v = methods::method(run, t.clone(), name, Args::new(name, pos, kw))?;
    tensor_arg(v, name)
}

fn tv(t: &Tensor) -> Value {
    Value::Tensor(t.clone())
}

/// One step over every parameter that has a gradient, in order.
fn step(run: &mut RunContext, opt: &Optim) -> Result<()> {
    let h = hyper_now(opt)?;
    for (i, param) in opt.params.iter().enumerate() {
        let Some(g) = run.engine.grad(param) else { continue };
        let param = &run.engine.resolve(param);
        let mut grad = if h.maximize { call(run, &g, "neg", vec![], vec![])? } else { g };
        let mut state = opt.state.borrow().get(i).cloned().flatten().unwrap_or_default();
        match opt.kind {
            OptimKind::Sgd => {
                if h.weight_decay != 0.0 {
                    grad = call(run, &grad, "add", vec![tv(param)], vec![("alpha", float(h.weight_decay))])?;
                }
                if h.momentum != 0.0 {
                    let buf = match state.momentum_buffer.take() {
                        None => {
                            let d = call(run, &grad, "detach", vec![], vec![])?;
                            call(run, &d, "clone", vec![], vec![])?
                        }
                        Some(buf) => {
                            let buf = call(run, &buf, "mul_", vec![float(h.momentum)], vec![])?;
                            call(run, &buf, "add_", vec![tv(&grad)], vec![("alpha", float(1.0 - h.dampening))])?
                        }
                    };
                    grad = if h.nesterov {
                        call(run, &grad, "add", vec![tv(&buf)], vec![("alpha", float(h.momentum))])?
                    } else {
                        buf.clone()
                    };
                    state.momentum_buffer = Some(buf);
                }
                call(run, param, "add_", vec![tv(&grad)], vec![("alpha", float(-h.lr))])?;
            }
            OptimKind::Adam | OptimKind::AdamW => {
                if state.step.is_none() {
                    let zero = |run: &mut RunContext| -> Result<Tensor> {
                        let v = library::function(
                            run,
                            "zeros_like",
                            Args::new(
                                "zeros_like",
                                vec![tv(param)],
                                vec![(
                                    "memory_format".into(),
                                    Value::Format(crate::torch::format::MemoryFormat::Preserve),
                                )],
                            ),
                        )?;
                        tensor_arg(v, "zeros_like")
                    };
                    let s = run.engine.full(&[], Scalar::Int(0), Some(DType::Float32))?;
                    state.step = Some(run.engine.realize(&s)?);
                    state.exp_avg = Some(zero(run)?);
                    state.exp_avg_sq = Some(zero(run)?);
                    if h.amsgrad {
                        state.max_exp_avg_sq = Some(zero(run)?);
                    }
                }
                let (Some(step_t), Some(exp_avg), Some(exp_avg_sq)) =
                    (state.step.clone(), state.exp_avg.clone(), state.exp_avg_sq.clone())
                else {
                    bail!(Value, "optimizer state is incomplete")
                };
                let step_t = call(run, &step_t, "add_", vec![Value::Scalar(Scalar::Int(1))], vec![])?;
                state.step = Some(step_t.clone());
                let (b1, b2) = h.betas;
                if h.weight_decay != 0.0 {
                    if opt.kind == OptimKind::AdamW {
                        call(run, param, "mul_", vec![float(1.0 - h.lr * h.weight_decay)], vec![])?;
                    } else {
                        grad = call(run, &grad, "add", vec![tv(param)], vec![("alpha", float(h.weight_decay))])?;
                    }
                }
                let exp_avg = call(run, &exp_avg, "lerp_", vec![tv(&grad), float(1.0 - b1)], vec![])?;
                let sq = call(run, &exp_avg_sq, "mul_", vec![float(b2)], vec![])?;
                let exp_avg_sq =
                    call(run, &sq, "addcmul_", vec![tv(&grad), tv(&grad)], vec![("value", float(1.0 - b2))])?;
                state.exp_avg = Some(exp_avg.clone());
                state.exp_avg_sq = Some(exp_avg_sq.clone());
                let step = run.engine.values(&step_t)?.get_f64(0);
                let bias_correction1 = 1.0 - b1.powf(step);
                let bias_correction2 = 1.0 - b2.powf(step);
                let step_size = h.lr / bias_correction1;
                let bias_correction2_sqrt = bias_correction2.powf(0.5);
                let second = match state.max_exp_avg_sq.clone() {
                    Some(m) => {
                        let kw = vec![("out".to_string(), tv(&m))];
                        let v =
                            library::function(run, "maximum", Args::new("maximum", vec![tv(&m), tv(&exp_avg_sq)], kw))?;
                        let m = tensor_arg(v, "maximum")?;
                        state.max_exp_avg_sq = Some(m.clone());
                        m
                    }
                    None => exp_avg_sq,
                };
                let root = call(run, &second, "sqrt", vec![], vec![])?;
                let denom = call(run, &root, "div", vec![float(bias_correction2_sqrt)], vec![])?;
                let denom = call(run, &denom, "add_", vec![float(h.eps)], vec![])?;
                call(run, param, "addcdiv_", vec![tv(&exp_avg), tv(&denom)], vec![("value", float(-step_size))])?;
            }
        }
        if let Some(slot) = opt.state.borrow_mut().get_mut(i) {
            *slot = Some(state);
        }
    }
    Ok(())
}

/// Adam's `not 0.0 <= x`: true for a negative value and for NaN (SGD's `x < 0.0` lets NaN through).
fn fails_nonnegative(x: f64) -> bool {
    x.is_nan() || x < 0.0
}
