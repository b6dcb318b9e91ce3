//! Autograd in the trace language: `requires_grad=` on any factory, the tensor attributes and
//! methods of autograd (`requires_grad`, `is_leaf`, `grad`, `grad_fn`, `requires_grad_()`,
//! `retain_grad()`, `backward()`), `t.grad = ...`, `torch.autograd.grad`, and the check that
//! an op through which a gradient should flow records one (an op the core cannot differentiate
//! yet says so instead of giving a tensor without history).

use crate::engine::autograd::{GradSwitch, GraphUse};
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// Ops whose float result has no gradient in PyTorch (or is a fresh tensor by design).
const NOT_DIFFERENTIABLE: &[&str] = &[
    "detach",
    "detach_",
    "requires_grad_",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "rand_like",
    "randn_like",
    "randint_like",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_empty_strided",
    "new_tensor",
    "floor_divide",
    "bernoulli",
    "normal",
    "tensor",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
];

/// Ops the engine builds from others, with the node PyTorch names for them (the gradient is
/// the composition's; only the name of the last node differs).
const COMPOSITE_NODES: &[(&str, &str)] = &[
    ("reciprocal", "ReciprocalBackward0"),
    ("square", "PowBackward0"),
    ("rsqrt", "RsqrtBackward0"),
    ("clamp", "ClampBackward1"),
    ("clip", "ClampBackward1"),
    ("clamp_min", "ClampMinBackward0"),
    ("clamp_max", "ClampMaxBackward0"),
    ("silu", "SiluBackward0"),
    ("gelu", "GeluBackward0"),
    ("softplus", "SoftplusBackward0"),
    ("elu", "EluBackward0"),
    ("leaky_relu", "LeakyReluBackward0"),
    ("hardtanh", "HardtanhBackward0"),
    ("logsigmoid", "LogSigmoidBackward0"),
    ("mish", "MishBackward0"),
    ("hardsigmoid", "HardsigmoidBackward0"),
    ("hardswish", "HardswishBackward0"),
    ("lerp", "LerpBackward1"),
    ("addcmul", "AddcmulBackward0"),
    ("addcdiv", "AddcdivBackward0"),
    ("amax", "AmaxBackward0"),
    ("amin", "AminBackward0"),
    ("masked_fill", "MaskedFillBackward0"),
    ("logcumsumexp", "LogcumsumexpBackward0"),
];

/// What PyTorch's node saves (`derivatives.yaml`), for the nodes whose op is built here from
/// others: the version check at backward then fails exactly where PyTorch's does.
enum Save {
    /// The call's tensor arguments (the receiver first).
    Inputs,
    /// The first tensor argument.
    Input,
    /// The result.
    Result,
    /// The first tensor argument and the result.
    InputAndResult,
    /// The first tensor argument and the second output (`cummax`'s indices).
    InputAndSecond,
}

const SAVES: &[(&str, Save)] = &[
    ("GeluBackward0", Save::Input),
    ("SoftplusBackward0", Save::Input),
    ("EluBackward0", Save::Input),
    ("CeluBackward0", Save::Input),
    ("LeakyReluBackward0", Save::Input),
    ("HardtanhBackward0", Save::Input),
    ("LogSigmoidBackward0", Save::Input),
    ("MishBackward0", Save::Input),
    ("HardsigmoidBackward0", Save::Input),
    ("HardswishBackward0", Save::Input),
    ("SiluBackward0", Save::Input),
    ("ThresholdBackward0", Save::Input),
    ("SincBackward0", Save::Input),
    ("PowBackward0", Save::Input),
    ("ClampBackward1", Save::Input),
    ("ClampMinBackward0", Save::Input),
    ("ClampMaxBackward0", Save::Input),
    ("ReciprocalBackward0", Save::Result),
    ("RsqrtBackward0", Save::Result),
    ("NativeLayerNormBackward0", Save::Inputs),
    ("NativeGroupNormBackward0", Save::Inputs),
    ("SmoothL1LossBackward0", Save::Inputs),
    ("HuberLossBackward0", Save::Inputs),
    ("GatherBackward0", Save::Inputs),
    ("LogcumsumexpBackward0", Save::InputAndResult),
    ("AmaxBackward0", Save::InputAndResult),
    ("AminBackward0", Save::InputAndResult),
    ("CummaxBackward0", Save::InputAndSecond),
    ("CumminBackward0", Save::InputAndSecond),
];

/// After an out-of-place call whose node is in [`SAVES`]: the node saves what PyTorch's does.
fn declare_saves(run: &mut RunContext, inputs: &[Tensor], results: &[Tensor]) {
    let Some(r) = results.first() else { return };
    if inputs.iter().any(|t| t.same_object(r)) {
        return;
    }
    let Some(name) = run.engine.grad_fn_name(r) else { return };
    let Some((_, save)) = SAVES.iter().find(|(n, _)| *n == name) else { return };
    let first = inputs.first().cloned();
    let second = results.get(1).cloned();
    let saved: Vec<Tensor> = match save {
        Save::Inputs => inputs.to_vec(),
        Save::Input => first.into_iter().collect(),
        Save::Result => vec![r.clone()],
        Save::InputAndResult => first.into_iter().chain([r.clone()]).collect(),
        Save::InputAndSecond => first.into_iter().chain(second).collect(),
    };
    run.engine.declare_saved(r, &saved);
}

/// Takes `requires_grad=` out of a call's keywords.
/// `torch.name(pos, kw)` through the op library, with autograd's checks after it (the
/// `requires_grad=` of a factory, the node a differentiable op must have recorded).
pub fn function_call(run: &mut RunContext, name: &str, pos: Vec<Value>, mut kw: Vec<(String, Value)>) -> Result<Value> {
    if name == "device" {
        return crate::trace::binding::device::construct(Args::new(name, pos, kw));
    }
    crate::trace::binding::device::take_factory_kwargs(run, name, &mut kw)?;
    if crate::trace::binding::numpy::is_from_data(name, pos.first()) {
        return crate::trace::binding::numpy::from_data(run, name, Args::new(name, pos, kw));
    }
    let requires_grad = take_requires_grad(&mut kw)?;
    let inputs = tensors_in(pos.iter().chain(kw.iter().map(|(_, v)| v)));
    let out = crate::trace::binding::library::function(run, name, Args::new(name, pos, kw))?;
    after_call(run, name, &inputs, &out, requires_grad)?;
    Ok(out)
}

pub fn take_requires_grad(kw: &mut Vec<(String, Value)>) -> Result<Option<bool>> {
    let Some(i) = kw.iter().position(|(k, _)| k == "requires_grad") else { return Ok(None) };
    let (_, v) = kw.remove(i);
    match v {
        Value::Scalar(Scalar::Bool(b)) => Ok(Some(b)),
        Value::Scalar(Scalar::Int(i)) => Ok(Some(i != 0)),
        other => bail!(Type, "argument 'requires_grad' must be bool, not {}", other.type_name()),
    }
}

/// Every tensor among a call's receiver and arguments (inside lists too).
pub fn tensors_in<'a>(values: impl IntoIterator<Item = &'a Value>) -> Vec<Tensor> {
    fn walk(v: &Value, out: &mut Vec<Tensor>, seen: &mut Vec<usize>) {
        match v {
            Value::Tensor(t) => out.push(t.clone()),
            Value::Tuple(items) => items.iter().for_each(|x| walk(x, out, seen)),
            // Each shared list once (lists may form a DAG).
            Value::List(l) if l.tracked() && !seen.contains(&l.address()) => {
                seen.push(l.address());
                l.borrow().iter().for_each(|x| walk(x, out, seen))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for v in values {
        walk(v, &mut out, &mut seen);
    }
    out
}

/// After a call: `requires_grad=` applied to the result, and the check that a differentiable
/// op whose input requires grad recorded a node.
pub fn after_call(
    run: &mut RunContext,
    name: &str,
    inputs: &[Tensor],
    out: &Value,
    requires_grad: Option<bool>,
) -> Result<()> {
    if let Some(b) = requires_grad {
        if let Value::Tensor(t) = out {
            run.engine.set_requires_grad(t, b, GradSwitch::Native)?;
        }
        return Ok(());
    }
    if !run.engine.grad_enabled()
        || NOT_DIFFERENTIABLE.contains(&name)
        || crate::trace::binding::decl::not_differentiable(name)
    {
        return Ok(());
    }
    for t in inputs {
        if let Some(e) = run.engine.stale_view_error(t) {
            return Err(e);
        }
    }
    let ag = run.engine.autograd();
    if !inputs.iter().any(|t| ag.requires_grad(t)) {
        return Ok(());
    }
    let mut results = Vec::new();
    collect(out, &mut results);
    // In-place forms (`clamp_`) name the node as the op does; the target is then the result.
    let base = name.strip_suffix('_').unwrap_or(name);
    if let (Some((_, node)), [r]) = (COMPOSITE_NODES.iter().find(|(n, _)| *n == base), results.as_slice()) {
        if base != name || !inputs.iter().any(|t| t.same_object(r)) {
            // lerp's overloads: a Python-number weight is LerpBackward0, a tensor one 1.
            let node = if base == "lerp" && inputs.len() < 3 { "LerpBackward0" } else { node };
            run.engine.rename_grad_fn(r, node);
            let ins: Vec<&Tensor> = inputs.iter().filter(|t| !t.same_object(r)).collect();
            run.engine.group_as_one_node(&[r], &ins);
        }
    }
    // `max(dim)` and `min(dim)` return values and indices: the values' node is MaxBackward0.
    if let (Value::Named(..), Some(values)) = (out, results.first()) {
        match name {
            "max" => run.engine.rename_grad_fn(values, "MaxBackward0"),
            "min" => run.engine.rename_grad_fn(values, "MinBackward0"),
            "cummax" => run.engine.rename_grad_fn(values, "CummaxBackward0"),
            "cummin" => run.engine.rename_grad_fn(values, "CumminBackward0"),
            _ => {}
        }
    }
    if base == name {
        declare_saves(run, inputs, &results);
    }
    let ag = run.engine.autograd();
    for r in results {
        if r.dtype().is_float() && !ag.requires_grad(&r) && !inputs.iter().any(|t| t.same_object(&r)) {
            bail!(
                Unsupported,
                "autograd through {name}() is not supported yet: its result would have no gradient history"
            );
        }
    }
    Ok(())
}

fn collect(v: &Value, out: &mut Vec<Tensor>) {
    match v {
        Value::Tensor(t) => out.push(t.clone()),
        Value::Tuple(items) => items.iter().for_each(|x| collect(x, out)),
        Value::List(l) if l.tracked() => l.borrow().iter().for_each(|x| collect(x, out)),
        Value::Named(_, fields) => fields.iter().for_each(|(_, x)| collect(x, out)),
        _ => {}
    }
}

/// Autograd's tensor attributes; `None` for any other name.
pub fn attr(run: &mut RunContext, t: &Tensor, name: &str) -> Option<Result<Value>> {
    if name == "grad_fn" || name == "is_leaf" {
        if let Some(e) = run.engine.stale_view_error(t) {
            return Some(Err(e));
        }
        run.engine.refresh_view(t);
    }
    let ag = run.engine.autograd();
    Some(Ok(match name {
        "requires_grad" => Value::Scalar(Scalar::Bool(ag.requires_grad(t))),
        "is_leaf" => Value::Scalar(Scalar::Bool(ag.is_leaf(t))),
        "grad" => run.engine.grad(t).map_or(Value::None, Value::Tensor),
        "grad_fn" => ag.grad_fn(t).map_or(Value::None, Value::GradFn),
        _ => return None,
    }))
}

/// `t.grad = g`, `t.requires_grad = b`, `t.data = src`.
pub fn setattr(run: &mut RunContext, t: &Tensor, name: &str, v: Value) -> Result<()> {
    match (name, v) {
        ("grad", Value::None) => run.engine.set_grad(t, None),
        ("grad", Value::Tensor(g)) => run.engine.set_grad(t, Some(g)),
        ("requires_grad", Value::Scalar(Scalar::Bool(b))) => run.engine.set_requires_grad(t, b, GradSwitch::Attribute),
        ("data", Value::Tensor(src)) => {
            let new = run.engine.set_data(t, &src)?;
            run.record_rebind(&new);
            Ok(())
        }
        ("data", other) => bail!(Type, "assigned data expected to be a Tensor, got {}", other.type_name()),
        ("grad" | "requires_grad", other) => {
            bail!(Type, "assigned {name} expected to be a Tensor or None, got {}", other.type_name())
        }
        (other, _) => bail!(Unsupported, "assigning Tensor.{other} is not supported"),
    }
}

/// The tensor methods [`method`] answers.
pub const METHODS: &[&str] = &["requires_grad_", "retain_grad", "backward"];

/// Autograd's tensor attributes.
pub const ATTRS: &[&str] = &["requires_grad", "is_leaf", "grad", "grad_fn"];

/// `t.backward(gradient=None, retain_graph=None, create_graph=False)`'s arguments.
pub fn backward_args(mut args: Args) -> Result<(Option<Tensor>, GraphUse)> {
    let gradient = match args.opt(0, "gradient") {
        None | Some(Value::None) => None,
        Some(v) => Some(tensor_arg(v, "backward(): argument 'gradient'")?),
    };
    let graph = graph_use(args.opt(1, "retain_graph"), args.opt(2, "create_graph"))?;
    args.finish()?;
    Ok((gradient, graph))
}

/// Autograd's tensor methods; `None` for any other name.
pub fn method(run: &mut RunContext, t: &Tensor, name: &str, args: &mut Option<Args>) -> Option<Result<Value>> {
    if !METHODS.contains(&name) {
        return None;
    }
    let mut args = args.take()?;
    Some((|| match name {
        "requires_grad_" => {
            let b = args.bool_or(0, "requires_grad", true)?;
            args.finish()?;
            run.engine.set_requires_grad(t, b, GradSwitch::Method)?;
            Ok(Value::Tensor(t.clone()))
        }
        "retain_grad" => {
            args.finish()?;
            run.engine.retain_grad(t)?;
            Ok(Value::None)
        }
        _ => {
            let (gradient, graph) = backward_args(args)?;
            let done = run.engine.backward(t, gradient.as_ref(), graph);
            // The `.grad` cells the backward wrote show on the storage map, as any write.
            for w in run.engine.take_grad_writes() {
                run.record_write(w);
            }
            done?;
            Ok(Value::None)
        }
    })())
}

/// `retain_graph=` (None: as `create_graph`) and `create_graph=` (default False).
fn graph_use(retain: Option<Value>, create: Option<Value>) -> Result<GraphUse> {
    let flag = |v: Option<Value>, what: &str| -> Result<Option<bool>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(v) => Ok(Some(v.as_int(what)? != 0)),
        }
    };
    let create = flag(create, "create_graph")?.unwrap_or(false);
    let retain = flag(retain, "retain_graph")?.unwrap_or(create);
    Ok(GraphUse { retain, create })
}

/// `torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None, ...)`.
pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    use crate::autograd::Anomaly;
    match name {
        "grad" => {}
        // Switches at once, and restores the mode before it when used as a `with` block.
        "set_detect_anomaly" => {
            let on = args.bool_or(0, "mode", true)?;
            let check_nan = args.bool_or(1, "check_nan", true)?;
            args.finish()?;
            let mode = if on { Anomaly::On { check_nan } } else { Anomaly::Off };
            run.engine.set_anomaly(mode);
            return Ok(Value::Anomaly(mode));
        }
        // Only a `with` block switches it on.
        "detect_anomaly" => {
            let check_nan = args.bool_or(0, "check_nan", true)?;
            args.finish()?;
            return Ok(Value::Anomaly(Anomaly::On { check_nan }));
        }
        _ => bail!(Unsupported, "torch.autograd.{name} is not supported"),
    }
    let c = grad_args(args)?;
    let grads = run.engine.grad_of(&c.out, &c.inputs, c.gradient.as_ref(), c.graph, c.allow_unused)?;
    Ok(grads_value(grads))
}

/// `torch.autograd.grad`'s arguments.
pub struct GradCall {
    pub out: Tensor,
    pub inputs: Vec<Tensor>,
    pub gradient: Option<Tensor>,
    pub graph: GraphUse,
    pub allow_unused: bool,
}

/// Reads `torch.autograd.grad`'s arguments.
pub fn grad_args(mut args: Args) -> Result<GradCall> {
    let one = |v: Value, what: &str| -> Result<Tensor> {
        match v.seq() {
            Value::Tuple(mut items) if items.len() == 1 => tensor_arg(items.remove(0), what),
            v => tensor_arg(v, what),
        }
    };
    let out = one(args.req(0, "outputs")?, "grad(): argument 'outputs'")?;
    let inputs: Vec<Tensor> = match args.req(1, "inputs")?.seq() {
        Value::Tuple(items) => {
            items.into_iter().map(|v| tensor_arg(v, "grad(): argument 'inputs'")).collect::<Result<_>>()?
        }
        v => vec![tensor_arg(v, "grad(): argument 'inputs'")?],
    };
    let gradient = match args.opt(2, "grad_outputs") {
        None | Some(Value::None) => None,
        Some(v) => Some(one(v, "grad(): argument 'grad_outputs'")?),
    };
    let graph = graph_use(args.opt(3, "retain_graph"), args.opt(4, "create_graph"))?;
    let allow_unused = args.bool_or(usize::MAX, "allow_unused", false)?;
    args.finish()?;
    Ok(GradCall { out, inputs, gradient, graph, allow_unused })
}

/// The gradients `torch.autograd.grad` returns, as a tuple.
pub fn grads_value(grads: Vec<Option<Tensor>>) -> Value {
    Value::Tuple(grads.into_iter().map(|g| g.map_or(Value::None, Value::Tensor)).collect())
}
