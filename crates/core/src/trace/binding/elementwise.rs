//! PyTorch's names for elementwise ops, bound to the engine.
//!
//! Primitive ops take their names from the op table (`uop::alu`): `torch.sin(x)`, `x.sin()` and
//! `x.sin_()` all come from the `Sin` row, so a row cannot be missing here. Composite ops (the
//! engine builds them from primitives) are named once in [`COMPOSITES`]. This module only binds
//! arguments; the arithmetic is the engine's.

use crate::dtype::DType;
use crate::engine::bridge;
use crate::engine::elementwise::Gelu;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, OverlapRules, Tensor};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::alu::Operands;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

/// Whether a name computes a new tensor or writes into its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    OutOfPlace,
    InPlace,
}

/// Composite elementwise ops: PyTorch formulas over the primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Composite {
    Square,
    LogicalNot,
    MaskedFill,
    Reciprocal,
    Rsqrt,
    Frac,
    Lerp,
    Addcmul,
    Addcdiv,
    Silu,
    Gelu,
    Softplus,
    Elu,
    LeakyRelu,
    Hardtanh,
    /// `F.relu`, whose `inplace=` the table's `relu` lacks.
    Relu,
    Relu6,
    Logsigmoid,
    Mish,
    Hardsigmoid,
    Hardswish,
}

/// Where PyTorch exposes a composite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::trace) enum Form {
    /// `torch.X(t, ...)`, `t.X(...)` and `t.X_(...)`.
    Method,
    /// `F.X(t, ..., inplace=False)` and `F.X_(t, ...)`.
    Functional,
    /// `F.X(t, ...)` only: no in-place form.
    FunctionalOnly,
}

/// Every composite's PyTorch name and form, once.
pub(in crate::trace) const COMPOSITES: &[(&str, Composite, Form)] = &[
    ("square", Composite::Square, Form::Method),
    ("logical_not", Composite::LogicalNot, Form::Method),
    ("masked_fill", Composite::MaskedFill, Form::Method),
    ("reciprocal", Composite::Reciprocal, Form::Method),
    ("rsqrt", Composite::Rsqrt, Form::Method),
    ("frac", Composite::Frac, Form::Method),
    ("lerp", Composite::Lerp, Form::Method),
    ("addcmul", Composite::Addcmul, Form::Method),
    ("addcdiv", Composite::Addcdiv, Form::Method),
    ("silu", Composite::Silu, Form::Functional),
    ("gelu", Composite::Gelu, Form::FunctionalOnly),
    ("softplus", Composite::Softplus, Form::FunctionalOnly),
    ("elu", Composite::Elu, Form::Functional),
    ("leaky_relu", Composite::LeakyRelu, Form::Functional),
    ("hardtanh", Composite::Hardtanh, Form::Functional),
    ("relu", Composite::Relu, Form::Functional),
    ("relu6", Composite::Relu6, Form::Functional),
    ("logsigmoid", Composite::Logsigmoid, Form::FunctionalOnly),
    ("mish", Composite::Mish, Form::Functional),
    ("hardsigmoid", Composite::Hardsigmoid, Form::Functional),
    ("hardswish", Composite::Hardswish, Form::Functional),
];

/// What an elementwise name means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Unary(UnaryOp, Mode),
    Binary(BinaryOp, Operands, Mode),
    Composite(Composite, Mode),
}

/// The entry a Tensor method name means (`x.sin()`, `x.sin_()`, `x.lerp_(...)`).
pub fn method_entry(name: &str) -> Option<Entry> {
    if let Some(op) = UnaryOp::from_name(name) {
        return Some(Entry::Unary(op, Mode::OutOfPlace));
    }
    if let Some(op) = UnaryOp::from_inplace_name(name) {
        return Some(Entry::Unary(op, Mode::InPlace));
    }
    if let Some((op, order)) = BinaryOp::from_name(name) {
        return Some(Entry::Binary(op, order, Mode::OutOfPlace));
    }
    if let Some(op) = BinaryOp::from_inplace_name(name) {
        return Some(Entry::Binary(op, Operands::InOrder, Mode::InPlace));
    }
    // `gt_` is `lt` of the swapped operands, written into the receiver.
    if let Some((op, Operands::Swapped)) = name.strip_suffix('_').and_then(BinaryOp::from_name) {
        if op.has_inplace() {
            return Some(Entry::Binary(op, Operands::Swapped, Mode::InPlace));
        }
    }
    let (c, mode) = composite(name)?;
    COMPOSITES.iter().any(|&(_, k, form)| k == c && form == Form::Method).then_some(Entry::Composite(c, mode))
}

/// The entry a `torch.`/`F.` function name means; functions take the tensor first.
pub fn function_entry(name: &str) -> Option<Entry> {
    match composite(name) {
        Some((c, mode)) => Some(Entry::Composite(c, mode)),
        None => method_entry(name),
    }
}

fn composite(name: &str) -> Option<(Composite, Mode)> {
    if let Some(&(_, c, _)) = COMPOSITES.iter().find(|(n, _, _)| *n == name) {
        return Some((c, Mode::OutOfPlace));
    }
    let base = name.strip_suffix('_')?;
    COMPOSITES
        .iter()
        .find(|(n, _, form)| *n == base && *form != Form::FunctionalOnly)
        .map(|&(_, c, _)| (c, Mode::InPlace))
}

pub(crate) fn tensor_arg(v: Value, what: &str) -> Result<Tensor> {
    match v {
        Value::Tensor(t) => Ok(t),
        other => bail!(Type, "{what} must be Tensor, not {}", other.type_name()),
    }
}

pub(crate) fn operand(v: Value, what: &str) -> Result<Operand> {
    match v {
        Value::Tensor(t) => Ok(Operand::Tensor(t)),
        Value::Scalar(s) => Ok(Operand::Scalar(s)),
        Value::BigInt(b) => Ok(Operand::Scalar(crate::trace::python::value::big_operand(&b)?)),
        other => bail!(Type, "{what} must be Tensor or Number, not {}", other.type_name()),
    }
}

fn float_arg(args: &mut Args, i: usize, name: &str, default: f64) -> Result<f64> {
    match args.opt(i, name) {
        None | Some(Value::None) => Ok(default),
        Some(v) => Ok(v.as_scalar(name)?.as_f64()),
    }
}

/// PyTorch's ops whose `other` is a Tensor only (no Number overload).
fn tensor_other_only(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Max | BinaryOp::Min | BinaryOp::Fmax | BinaryOp::Fmin | BinaryOp::Atan2 | BinaryOp::Hypot)
}

/// `b * alpha` for `add`/`sub`'s `alpha=` (with `a`, the other operand), under PyTorch's
/// `alpha_check`: a float alpha needs a float result, a bool one a bool result, and a bool
/// result takes any alpha as a bool (`a + alpha * b` is `a | (bool(alpha) & b)`).
pub(crate) fn scaled(run: &mut RunContext, a: &Operand, b: Operand, alpha: Option<Value>) -> Result<Operand> {
    let alpha = match alpha {
        None | Some(Value::None) => return Ok(b),
        Some(v) => v.as_scalar("alpha")?,
    };
    let dtype = run.engine.compute_dtype(BinaryOp::Add, a, &b)?;
    let alpha = match alpha {
        Scalar::Bool(_) if dtype != DType::Bool => bail!(DType, "Boolean alpha only supported for Boolean results."),
        Scalar::Float(_) if !dtype.is_float() => {
            bail!(DType, "For integral input tensors, argument alpha must not be a floating point number.")
        }
        s if dtype == DType::Bool => Scalar::Bool(s.as_f64() != 0.0),
        s => s,
    };
    Ok(Operand::Tensor(run.engine.binary(BinaryOp::Mul, &b, &Operand::Scalar(alpha))?))
}

/// The integer-division checks PyTorch makes before it computes: a zero divisor raises, and so
/// does an integer raised to a negative integer Number.
fn check_integer_operands(engine: &mut Engine, op: BinaryOp, a: &Operand, b: &Operand) -> Result<()> {
    let dtype = engine.compute_dtype(op, a, b)?;
    if dtype.is_float() {
        return Ok(());
    }
    match op {
        BinaryOp::FloorDiv | BinaryOp::Mod | BinaryOp::Fmod => {
            let zero = match b {
                Operand::Scalar(s) => s.as_f64() == 0.0,
                Operand::Tensor(t) => engine.values(t)?.to_f64_vec().contains(&0.0),
            };
            if zero {
                bail!(Shape, "ZeroDivisionError");
            }
        }
        BinaryOp::Pow => {
            if let Operand::Scalar(s @ (Scalar::Int(_) | Scalar::Bool(_))) = b {
                if s.as_f64() < 0.0 {
                    bail!(DType, "Integers to negative integer powers are not allowed.");
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// `op(a, b)` with PyTorch's checks.
pub(crate) fn binary(run: &mut RunContext, op: BinaryOp, a: &Operand, b: &Operand) -> Result<Tensor> {
    check_integer_operands(run.engine, op, a, b)?;
    run.engine.binary(op, a, b)
}

/// `t.name(args)` for an elementwise entry.
pub fn call_method(run: &mut RunContext, t: &Tensor, entry: Entry, name: &str, mut args: Args) -> Result<Value> {
    let t = &run.engine.resolve(t);
    let out = match entry {
        Entry::Unary(op, mode) => {
            args.finish()?;
            let value = run.engine.unary(op, t)?;
            finish(run, t, value, std::slice::from_ref(t), mode)?
        }
        Entry::Binary(op, order, mode) => {
            let other = args.req(0, "other")?;
            if tensor_other_only(op) && !matches!(other, Value::Tensor(_)) {
                bail!(Type, "{name}(): argument 'other' (position 1) must be Tensor, not {}", other.type_name());
            }
            let other = operand(other, "other")?;
            let alpha = if matches!(op, BinaryOp::Add | BinaryOp::Sub) { args.kw_only("alpha") } else { None };
            let rounding = if op == BinaryOp::Div { rounding_mode(&mut args)? } else { Rounding::True };
            args.finish()?;
            let me = Operand::Tensor(t.clone());
            let other = scaled(run, &me, other, alpha)?;
            if rounding != Rounding::True {
                let value = rounded_div(run, &me, &other, rounding)?;
                return Ok(Value::Tensor(finish(run, t, value, std::slice::from_ref(t), mode)?));
            }
            if mode == Mode::InPlace && op.is_comparison() && run.engine.autograd().requires_grad(t) {
                bail!(Unsupported, "{name}() on a tensor that requires grad is not supported");
            }
            match mode {
                Mode::InPlace if order == Operands::Swapped => {
                    write_binary(run, t, WriteForm::InPlace, op, &other, &me)?
                }
                Mode::InPlace => write_binary(run, t, WriteForm::InPlace, op, &me, &other)?,
                Mode::OutOfPlace => match order {
                    Operands::InOrder => binary(run, op, &me, &other)?,
                    Operands::Swapped => binary(run, op, &other, &me)?,
                },
            }
        }
        Entry::Composite(c, mode) => composite_call(run, t, c, mode, args)?,
    };
    Ok(Value::Tensor(out))
}

/// `torch.name(...)`/`F.name(...)` for an elementwise entry.
pub fn call_function(run: &mut RunContext, entry: Entry, name: &str, mut args: Args) -> Result<Value> {
    if let Entry::Binary(op, order, Mode::OutOfPlace) = entry {
        // `torch.pow(2, x)`: the input may be a Number too.
        let a = operand(args.req(0, "input")?, "input")?;
        let other = args.req(1, "other")?;
        if tensor_other_only(op) && !matches!(other, Value::Tensor(_)) {
            bail!(Type, "{name}(): argument 'other' (position 2) must be Tensor, not {}", other.type_name());
        }
        let b = operand(other, "other")?;
        let alpha = if matches!(op, BinaryOp::Add | BinaryOp::Sub) { args.kw_only("alpha") } else { None };
        let rounding = if op == BinaryOp::Div { rounding_mode(&mut args)? } else { Rounding::True };
        let out = args.kw_only("out");
        args.finish()?;
        let b = scaled(run, &a, b, alpha)?;
        if rounding != Rounding::True {
            if out.as_ref().is_some_and(|o| !matches!(o, Value::None)) {
                bail!(Unsupported, "div(rounding_mode=..., out=...) is not supported");
            }
            return Ok(Value::Tensor(rounded_div(run, &a, &b, rounding)?));
        }
        return match order {
            Operands::InOrder => with_out(run, op, &a, &b, out),
            Operands::Swapped => with_out(run, op, &b, &a, out),
        };
    }
    let first = args.req(0, "input")?;
    let t = tensor_arg(first, &format!("{name}(): argument 'input' (position 1)"))?;
    if let Entry::Unary(op, Mode::OutOfPlace) = entry {
        if let Some(out) = args.kw_only("out").filter(|o| !matches!(o, Value::None)) {
            args.shifted().finish()?;
            let out = tensor_arg(out, "out")?;
            return Ok(Value::Tensor(write_unary_out(run, &out, op, &t)?));
        }
    }
    call_method(run, &t, entry, name, args.shifted())
}

/// `torch.exp(t, out=out)`: autograd's refusal first, then the result resized into `out` as
/// PyTorch's `resize_output` does, cast to its dtype where the result may be.
fn write_unary_out(run: &mut RunContext, out: &Tensor, op: UnaryOp, t: &Tensor) -> Result<Tensor> {
    let out = run.engine.realize(out)?;
    if run.engine.inplace_tracked(&out, &[t]) {
        return Err(out_under_autograd(op.name()));
    }
    let value = run.engine.unary(op, t)?;
    let out = match value.shape() != out.shape() && !t.same_object(&out) && !run.engine.is_bridge() {
        true => {
            let resized = run.engine.resize_output(&out, value.shape())?;
            run.record_rebind(&resized);
            resized
        }
        false => out,
    };
    if value.shape() != out.shape() {
        bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", out.shape(), value.shape());
    }
    write_value(run, &out, &value, std::slice::from_ref(t), OverlapRules::ALL)
}

/// `div`'s `rounding_mode=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rounding {
    /// None: true division.
    True,
    Trunc,
    Floor,
}

fn rounding_mode(args: &mut Args) -> Result<Rounding> {
    match args.kw_only("rounding_mode") {
        None | Some(Value::None) => Ok(Rounding::True),
        Some(Value::Str(s)) if s == "trunc" => Ok(Rounding::Trunc),
        Some(Value::Str(s)) if s == "floor" => Ok(Rounding::Floor),
        Some(Value::Str(s)) => {
            bail!(Value, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{s}'")
        }
        Some(v) => bail!(Type, "div(): argument 'rounding_mode' must be str, not {}", v.type_name()),
    }
}

/// `div(a, b, rounding_mode=...)`: floor is Python's `//`; trunc rounds the true quotient
/// toward zero, in the operands' promoted dtype (integers divide exactly through float64).
fn rounded_div(run: &mut RunContext, a: &Operand, b: &Operand, rounding: Rounding) -> Result<Tensor> {
    match rounding {
        Rounding::True => binary(run, BinaryOp::Div, a, b),
        Rounding::Floor => binary(run, BinaryOp::FloorDiv, a, b),
        Rounding::Trunc => {
            let dtype = run.engine.compute_dtype(BinaryOp::FloorDiv, a, b)?;
            check_integer_operands(run.engine, BinaryOp::FloorDiv, a, b)?;
            let wide = |run: &mut RunContext, o: &Operand| -> Result<Operand> {
                Ok(match o {
                    Operand::Tensor(t) if !dtype.is_float() => Operand::Tensor(run.engine.cast(t, DType::Float64)?),
                    other => other.clone(),
                })
            };
            let (wa, wb) = (wide(run, a)?, wide(run, b)?);
            let q = run.engine.binary(BinaryOp::Div, &wa, &wb)?;
            let q = run.engine.unary(UnaryOp::Trunc, &q)?;
            if q.dtype() == dtype {
                Ok(q)
            } else {
                run.engine.cast(&q, dtype)
            }
        }
    }
}

fn with_out(run: &mut RunContext, op: BinaryOp, a: &Operand, b: &Operand, out: Option<Value>) -> Result<Value> {
    Ok(Value::Tensor(match out {
        None | Some(Value::None) => binary(run, op, a, b)?,
        Some(out) => {
            let out = tensor_arg(out, "out")?;
            write_binary(run, &out, WriteForm::Out, op, a, b)?
        }
    }))
}

/// A composite on `t` with its PyTorch arguments; in place when the name or `inplace=True` says.
fn composite_call(run: &mut RunContext, t: &Tensor, c: Composite, mode: Mode, mut args: Args) -> Result<Tensor> {
    if c == Composite::MaskedFill && mode == Mode::InPlace {
        let t = run.engine.realize(t)?;
        if crate::torch::overlap::has_internal_overlap(t.layout()) == crate::torch::overlap::MemOverlap::Yes {
            return masked_fill_expanded(run, &t, args);
        }
    }
    let e = &mut run.engine;
    let mut inputs = vec![t.clone()];
    let value = match c {
        Composite::Square => e.square(t)?,
        Composite::LogicalNot => e.logical_not(t)?,
        Composite::MaskedFill => {
            let mask = tensor_arg(args.req(0, "mask")?, "masked_fill(): argument 'mask'")?;
            let value = operand(args.req(1, "value")?, "value")?;
            inputs.push(mask.clone());
            e.masked_fill(t, &mask, &value)?
        }
        Composite::Reciprocal => e.reciprocal(t)?,
        Composite::Rsqrt => e.rsqrt(t)?,
        Composite::Frac => e.frac(t)?,
        Composite::Silu => e.silu(t)?,
        Composite::Logsigmoid => e.logsigmoid(t)?,
        Composite::Mish => e.mish(t)?,
        Composite::Hardsigmoid => e.hardsigmoid(t)?,
        Composite::Hardswish => e.hardswish(t)?,
        Composite::Relu => e.unary(UnaryOp::Relu, t)?,
        Composite::Relu6 => e.hardtanh(t, 0.0, 6.0)?,
        Composite::Gelu => {
            let approximate = match args.opt(0, "approximate") {
                None => Gelu::Exact,
                Some(Value::Str(s)) if s == "none" => Gelu::Exact,
                Some(Value::Str(s)) if s == "tanh" => Gelu::Tanh,
                Some(other) => {
                    bail!(Type, "approximate argument must be either none or tanh, not {}", other.type_name())
                }
            };
            e.gelu(t, approximate)?
        }
        Composite::Softplus => {
            let beta = float_arg(&mut args, 0, "beta", 1.0)?;
            let threshold = float_arg(&mut args, 1, "threshold", 20.0)?;
            e.softplus(t, beta, threshold)?
        }
        Composite::Elu => {
            let alpha = float_arg(&mut args, 0, "alpha", 1.0)?;
            e.elu(t, alpha)?
        }
        Composite::LeakyRelu => {
            let slope = float_arg(&mut args, 0, "negative_slope", 0.01)?;
            e.leaky_relu(t, slope)?
        }
        Composite::Hardtanh => {
            let lo = float_arg(&mut args, 0, "min_val", -1.0)?;
            let hi = float_arg(&mut args, 1, "max_val", 1.0)?;
            e.hardtanh(t, lo, hi)?
        }
        Composite::Lerp => {
            let end = tensor_arg(args.req(0, "end")?, "lerp(): argument 'end'")?;
            let weight = operand(args.req(1, "weight")?, "weight")?;
            inputs.push(end.clone());
            if let Operand::Tensor(w) = &weight {
                inputs.push(w.clone());
            }
            e.lerp(t, &end, &weight)?
        }
        Composite::Addcmul | Composite::Addcdiv => {
            let a = tensor_arg(args.req(0, "tensor1")?, "tensor1")?;
            let b = tensor_arg(args.req(1, "tensor2")?, "tensor2")?;
            let value = match args.opt(2, "value") {
                None => Scalar::Int(1),
                Some(v) => v.as_scalar("value")?,
            };
            inputs.extend([a.clone(), b.clone()]);
            if c == Composite::Addcmul {
                e.addcmul(t, &a, &b, value)?
            } else {
                e.addcdiv(t, &a, &b, value)?
            }
        }
    };
    let inplace_kw = match args.kw_only("inplace") {
        None => false,
        Some(v) => match v {
            Value::Scalar(Scalar::Bool(b)) => b,
            other => bail!(Type, "inplace must be bool, not {}", other.type_name()),
        },
    };
    args.finish()?;
    let mode = if inplace_kw { Mode::InPlace } else { mode };
    finish(run, t, value, &inputs, mode)
}

/// `masked_fill_` into an expanded target (PyTorch warns and writes): the kernel stores the
/// value at each masked element in turn, which is the put of the value at the mask broadcast
/// to the target.
fn masked_fill_expanded(run: &mut RunContext, t: &Tensor, mut args: Args) -> Result<Tensor> {
    let mask = tensor_arg(args.req(0, "mask")?, "masked_fill(): argument 'mask'")?;
    let value = operand(args.req(1, "value")?, "value")?;
    args.finish()?;
    if mask.dtype() != DType::Bool {
        bail!(DType, "masked_fill_ only supports boolean masks, but got mask with dtype {}", mask.dtype());
    }
    let sizes: Vec<i64> = t.shape().iter().map(|&n| n as i64).collect();
    let mask = run.engine.expand(&mask, &sizes)?;
    let w = run.engine.index_put(t, &[crate::engine::indexing::Index::Tensor(mask)], &value, false)?;
    run.record_write(w);
    Ok(run.engine.resolve(t))
}

/// Returns `value`, or writes it into `target` for an in-place form.
fn finish(run: &mut RunContext, target: &Tensor, value: Tensor, inputs: &[Tensor], mode: Mode) -> Result<Tensor> {
    match mode {
        Mode::OutOfPlace => Ok(value),
        Mode::InPlace => {
            if value.shape() != target.shape() {
                bail!(
                    Shape,
                    "output with shape {:?} doesn't match the broadcast shape {:?}",
                    target.shape(),
                    value.shape()
                );
            }
            write_value(run, target, &value, inputs, OverlapRules::ALL)
        }
    }
}

/// Autograd's refusal of an `out=` form when an input or `out` requires grad.
pub(crate) fn out_under_autograd(name: &str) -> crate::error::Error {
    crate::error::Error::Autograd(format!(
        "{name}(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
    ))
}

/// PyTorch's check that a result of dtype `from` may be written into a tensor of dtype `to`.
pub(crate) fn check_cast(from: DType, to: DType) -> Result<()> {
    if !DType::can_cast(from, to) {
        bail!(DType, "result type {} can't be cast to the desired output type {}", from.torch_name(), to.torch_name());
    }
    Ok(())
}

/// Whether a write is an in-place op (`a.add_(b)`, `a += b`) or an `out=` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteForm {
    InPlace,
    Out,
}

/// `target op= other` / `op(a, b, out=target)`: PyTorch's checks in its order (overlap, then
/// shape, then dtype), then a store of the computed value through the target's view.
pub(crate) fn write_binary(
    run: &mut RunContext,
    target: &Tensor,
    form: WriteForm,
    op: BinaryOp,
    a: &Operand,
    b: &Operand,
) -> Result<Tensor> {
    let inputs: Vec<Tensor> =
        [a, b].iter().filter_map(|o| if let Operand::Tensor(t) = o { Some(t.clone()) } else { None }).collect();
    let target = run.engine.realize(target)?;
    run.engine.check_write_overlap(&target, &inputs, OverlapRules::ALL)?;
    let shape = Engine::broadcast_shapes(&[op_shape(a), op_shape(b)])?;
    // The bridge's own `add_`/`mul_`/`floor_divide_` hand a value of the broadcast shape to its
    // write path unchecked, which takes it where it can (see `Engine::bridge_check_inplace_shape`).
    let bridge_own = run.engine.is_bridge() && form == WriteForm::InPlace && bridge::casts_inplace(op);
    // An `out=` of another shape that is not also an input is resized (`resize_output`:
    // row-major at its offset, the storage grown if it must; PyTorch warns when it had
    // elements), as a view too: `torch.pow(x, 2, out=a[0])`.
    // Autograd refuses an `out=` that requires grad before the kernel runs.
    let inplace = matches!(a, Operand::Tensor(t) if t.same_object(&target));
    let input_refs: Vec<&Tensor> = inputs.iter().collect();
    let tracked = run.engine.inplace_tracked(&target, &input_refs);
    if tracked && (form == WriteForm::Out || !inplace) {
        return Err(out_under_autograd(op.name()));
    }
    let read_write = inputs.iter().any(|t| t.same_object(&target));
    let target = match form == WriteForm::Out && shape != target.shape() && !read_write && !run.engine.is_bridge() {
        true => {
            let resized = run.engine.resize_output(&target, &shape)?;
            run.record_rebind(&resized);
            resized
        }
        false => target,
    };
    if shape != target.shape() {
        if !bridge_own {
            bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", target.shape(), shape);
        }
        run.engine.bridge_check_inplace_shape(&target, &shape)?;
    }
    check_integer_operands(run.engine, op, a, b)?;
    let dtype = run.engine.compute_dtype(op, a, b)?;
    let result = if op.is_comparison() { DType::Bool } else { dtype };
    // The bridge casts to the target's dtype where it implements the op itself (`wrap_out`,
    // its own `add_`/`mul_`); its other in-place ops run PyTorch's check.
    let bridge_casts = run.engine.is_bridge() && (form == WriteForm::Out || bridge::casts_inplace(op));
    if !bridge_casts {
        check_cast(result, target.dtype())?;
    }
    // Autograd: an in-place op records its node and rebases the target's history.
    // The formulas that read the old value get a copy of it (PyTorch's `original_self`).
    let reads_old = matches!(
        op,
        BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Pow
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::Atan2
            | BinaryOp::Hypot
            | BinaryOp::Copysign
            | BinaryOp::Fmod
            | BinaryOp::Mod
    );
    let old = match (tracked, reads_old) {
        (false, _) => None,
        (true, true) => Some(run.engine.begin_inplace(&target)?),
        (true, false) => Some(run.engine.begin_inplace_unread(&target)?),
    };
    let (mut node, _, _) = run.engine.binary_node(op, a, b, dtype)?;
    if shape != target.shape() {
        node = run.engine.reshape_node(node, target.shape());
    }
    // TensorIterator computes a result of another dtype than the output's into a temporary
    // (a comparison writes its bool straight into a bool output).
    let computed = if op.is_comparison() && target.dtype() == DType::Bool { DType::Bool } else { dtype };
    let w = match computed == target.dtype() {
        true => run.engine.write(&target, node)?,
        false => run.engine.write_through_temporary(&target, node)?,
    };
    run.record_write(w);
    let target = run.engine.resolve(&target);
    if let Some(old) = old {
        let other = match b {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        };
        let scalar = match b {
            Operand::Scalar(v) => Some((*v, crate::autograd::Side::Right)),
            Operand::Tensor(_) => None,
        };
        let grad = crate::autograd::GradOp::Binary { op, scalar };
        run.engine.finish_inplace(&target, grad, old, &[other]);
    }
    Ok(target)
}

fn op_shape(o: &Operand) -> &[usize] {
    match o {
        Operand::Tensor(t) => t.shape(),
        Operand::Scalar(_) => &[],
    }
}

/// Writes an already computed tensor (same shape) into `target`, with the dtype rule of an
/// in-place op (the result must be castable to the target).
pub(crate) fn write_value(
    run: &mut RunContext,
    target: &Tensor,
    value: &Tensor,
    inputs: &[Tensor],
    rules: OverlapRules,
) -> Result<Tensor> {
    let target = run.engine.realize(target)?;
    run.engine.check_write_overlap(&target, inputs, rules)?;
    check_cast(value.dtype(), target.dtype())?;
    let value = run.engine.resolve(value);
    // A value computed from the target (`exp_`, `relu_`) carries the node that becomes the
    // target's history.
    let input_refs: Vec<&Tensor> = inputs.iter().chain(std::iter::once(&value)).collect();
    let tracked = run.engine.inplace_tracked(&target, &input_refs);
    if tracked {
        run.engine.check_inplace(&target)?;
        run.engine.keep_originals(&target, &value)?;
    }
    let w = run.engine.write(&target, value.node())?;
    run.record_write(w);
    let target = run.engine.resolve(&target);
    if tracked {
        run.engine.rebase_onto(&target, &value);
        run.engine.retarget_saved(&target, &value, &target);
    }
    Ok(target)
}

/// `torch.linspace(start, end, steps)` and `torch.logspace(start, end, steps, base)`.
pub fn space(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    // `start` and `end` may be 0-d tensors (PyTorch's Tensor overloads).
    let mut number = |v: Value, what: &str| -> Result<f64> {
        match v {
            Value::Tensor(t) if t.shape().is_empty() => Ok(run.engine.values(&t)?.get_f64(0)),
            Value::Tensor(t) => bail!(
                Shape,
                "{name}(): argument '{what}' must be a 0-dimensional tensor, got a {}-dimensional one",
                t.shape().len()
            ),
            v => Ok(v.as_scalar(what)?.as_f64()),
        }
    };
    let start = number(args.req(0, "start")?, "start")?;
    let end = number(args.req(1, "end")?, "end")?;
    let steps = args.req(2, "steps")?.as_int("steps")?;
    let base = if name == "logspace" { float_arg(&mut args, 3, "base", 10.0)? } else { 10.0 };
    let dtype = args.dtype()?.unwrap_or(DType::Float32);
    args.finish()?;
    let Ok(steps) = usize::try_from(steps) else { bail!(Shape, "number of steps must be non-negative") };
    let t = if name == "logspace" {
        run.engine.logspace(start, end, steps, base, dtype)?
    } else {
        run.engine.linspace(start, end, steps, dtype)?
    };
    Ok(Value::Tensor(t))
}

/// The elementwise op of a Python operator and its operand order; `None` for `@`.
pub(crate) fn python_operator(op: crate::trace::lang::ast::BinOp) -> Option<(BinaryOp, crate::uop::alu::Operands)> {
    use crate::uop::alu::Operands::{InOrder, Swapped};
    Some(match op {
        crate::trace::lang::ast::BinOp::Add => (BinaryOp::Add, InOrder),
        crate::trace::lang::ast::BinOp::Sub => (BinaryOp::Sub, InOrder),
        crate::trace::lang::ast::BinOp::Mul => (BinaryOp::Mul, InOrder),
        crate::trace::lang::ast::BinOp::Div => (BinaryOp::Div, InOrder),
        crate::trace::lang::ast::BinOp::FloorDiv => (BinaryOp::FloorDiv, InOrder),
        crate::trace::lang::ast::BinOp::Mod => (BinaryOp::Mod, InOrder),
        crate::trace::lang::ast::BinOp::Pow => (BinaryOp::Pow, InOrder),
        crate::trace::lang::ast::BinOp::Eq => (BinaryOp::CmpEq, InOrder),
        crate::trace::lang::ast::BinOp::Ne => (BinaryOp::CmpNe, InOrder),
        crate::trace::lang::ast::BinOp::Lt => (BinaryOp::CmpLt, InOrder),
        crate::trace::lang::ast::BinOp::Le => (BinaryOp::CmpLe, InOrder),
        crate::trace::lang::ast::BinOp::Gt => (BinaryOp::CmpLt, Swapped),
        crate::trace::lang::ast::BinOp::Ge => (BinaryOp::CmpLe, Swapped),
        crate::trace::lang::ast::BinOp::And => (BinaryOp::And, InOrder),
        crate::trace::lang::ast::BinOp::Or => (BinaryOp::Or, InOrder),
        crate::trace::lang::ast::BinOp::Xor => (BinaryOp::Xor, InOrder),
        crate::trace::lang::ast::BinOp::MatMul
        | crate::trace::lang::ast::BinOp::Shl
        | crate::trace::lang::ast::BinOp::Shr
        | crate::trace::lang::ast::BinOp::In
        | crate::trace::lang::ast::BinOp::NotIn
        | crate::trace::lang::ast::BinOp::Is
        | crate::trace::lang::ast::BinOp::IsNot => return None,
    })
}
