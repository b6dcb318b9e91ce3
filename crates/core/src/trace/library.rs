//! The op library: every function, method and attribute a trace may use, as PyTorch spells them.
//!
//! Each entry parses its PyTorch signature, computes the result in all three models (PyTorch's
//! layout, tinygrad's tracker, the bridge's report) and leaves the arithmetic to the engine.

use super::ast::{BinOp, UnaryOp as AstUnary};
use super::elementwise::{self, operand, tensor_arg, write_binary, write_value};
use super::runner::Run;
use super::value::{Args, Value};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::tensor::{restride_view, wrap_dim, Engine, Operand, OverlapRules, Tensor};
use crate::torch::layout::{IndexItem, Layout};
use crate::uop::data::{Data, Scalar};
use crate::uop::{BinaryOp, Op, ReduceOp, UnaryOp};

/// Functions callable without a receiver (`arange(3)`, `torch.arange(3)`, `F.relu(x)`).
const FUNCTIONS: &[&str] = &[
    "arange",
    "zeros",
    "ones",
    "full",
    "tensor",
    "empty",
    "empty_strided",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "as_strided",
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "where",
    "clamp",
    "clip",
    "sum",
    "mean",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "logsumexp",
    "flip",
    "reshape",
    "permute",
    "transpose",
    "swapaxes",
    "swapdims",
    "t",
    "movedim",
    "moveaxis",
    "squeeze",
    "unsqueeze",
    "narrow",
    "select",
    "diagonal",
    "flatten",
    "unflatten",
    "clone",
    "detach",
    "matmul",
    "print",
    "len",
    "pad",
    "contiguous",
    "logical_not",
    "softmax",
    "log_softmax",
    "linear",
    "cat",
    "stack",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
];

const DTYPES: &[(&str, DType)] = &[
    ("float32", DType::Float32),
    ("float", DType::Float32),
    ("int32", DType::Int32),
    ("int64", DType::Int32),
    ("long", DType::Int32),
    ("int", DType::Int32),
    ("bool", DType::Bool),
    ("uint8", DType::UInt8),
];

/// Whether `torch.name`/`F.name` is a function the library has: the list above, the
/// elementwise ops of the op table, and the creation ops defined with them.
fn is_function(name: &str) -> bool {
    FUNCTIONS.contains(&name) || elementwise::function_entry(name).is_some() || matches!(name, "linspace" | "logspace")
}

/// `torch.pi`, `torch.e`, `torch.inf`, `torch.nan` (and `math.`'s).
fn constant(module: &str, name: &str) -> Option<f64> {
    if !matches!(module, "torch" | "math") {
        return None;
    }
    match name {
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        "inf" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// What a bare name means when the trace has not bound it.
pub fn builtin(name: &str) -> Option<Value> {
    match name {
        "torch" => Some(Value::Module("torch")),
        "F" | "functional" => Some(Value::Module("F")),
        "nn" => Some(Value::Module("nn")),
        "math" => Some(Value::Module("math")),
        _ if is_function(name) => Some(Value::Func(name.to_string())),
        _ => DTYPES
            .iter()
            .find(|(n, _)| *n == name && !matches!(*n, "float" | "int" | "bool"))
            .map(|(_, d)| Value::DType(*d)),
    }
}

pub fn attr(run: &mut Run, v: Value, name: &str) -> Result<Value> {
    match v {
        Value::Module(m) => match (m, name) {
            ("torch", "nn") => Ok(Value::Module("nn")),
            ("nn", "functional") => Ok(Value::Module("F")),
            _ => {
                if let Some((_, d)) = DTYPES.iter().find(|(n, _)| *n == name) {
                    return Ok(Value::DType(*d));
                }
                if let Some(c) = constant(m, name) {
                    return Ok(Value::Scalar(Scalar::Float(c)));
                }
                if is_function(name) {
                    return Ok(Value::Func(name.to_string()));
                }
                bail!(Unsupported, "{m}.{name} is not supported")
            }
        },
        Value::Tensor(t) => tensor_attr(run, t, name),
        Value::Named(fields) => match fields.into_iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok(v),
            None => bail!(Type, "'tuple' object has no attribute '{name}'"),
        },
        other => bail!(Type, "'{}' object has no attribute '{name}'", other.type_name()),
    }
}

fn tensor_attr(run: &mut Run, t: Tensor, name: &str) -> Result<Value> {
    Ok(match name {
        "T" => Value::Tensor(permuted(run, &t, |l| l.big_t())?),
        "mT" => {
            if t.shape().len() < 2 {
                bail!(
                    Index,
                    "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                    t.shape().len()
                );
            }
            Value::Tensor(permuted(run, &t, |l| l.transpose(-2, -1))?)
        }
        "data" => Value::Tensor(alias(run, &t)?),
        "shape" => ints(t.shape().iter().map(|&n| n as i64)),
        "ndim" => int(t.shape().len() as i64),
        "dtype" => Value::DType(t.dtype()),
        _ => bail!(Unsupported, "Tensor.{name} is not supported"),
    })
}

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

fn ints(v: impl Iterator<Item = i64>) -> Value {
    Value::Tuple(v.map(int).collect())
}

// ------------------------------------------------------------------------------- functions

pub fn function(run: &mut Run, name: &str, mut args: Args) -> Result<Value> {
    // Functions that mirror a method take the tensor first: `torch.flip(a, (0,))`.
    if !matches!(
        name,
        "arange"
            | "zeros"
            | "ones"
            | "full"
            | "tensor"
            | "empty"
            | "empty_strided"
            | "where"
            | "print"
            | "len"
            | "max"
            | "min"
            | "pad"
            | "zeros_like"
            | "ones_like"
            | "full_like"
            | "empty_like"
            | "cat"
            | "stack"
    ) {
        if let Some(entry) = elementwise::function_entry(name) {
            return elementwise::call_function(run, entry, name, args);
        }
        if matches!(name, "linspace" | "logspace") {
            return elementwise::space(run, name, args);
        }
        if !FUNCTIONS.contains(&name) {
            bail!(Unsupported, "torch.{name} is not supported");
        }
        let first = args.req(0, "input")?;
        let t = tensor_arg(first, &format!("{name}(): argument 'input'"))?;
        return method(run, t, name, shift(args));
    }
    match name {
        "arange" => {
            let a = args.req(0, "end")?.as_scalar("end")?;
            let b = args.opt(1, "end");
            let step = args.opt(2, "step");
            let dtype = args.dtype()?;
            args.finish()?;
            let (start, end) = match b {
                Some(b) => (a, b.as_scalar("end")?),
                None => (Scalar::Int(0), a),
            };
            let step = match step {
                Some(s) => s.as_scalar("step")?,
                None => Scalar::Int(1),
            };
            Ok(Value::Tensor(run.engine.arange(start, end, step, dtype)?))
        }
        "zeros" | "ones" | "empty" => {
            let shape = sizes(args.sizes(0, "size")?)?;
            let dtype = args.dtype()?;
            args.finish()?;
            let v = if name == "ones" { 1 } else { 0 };
            Ok(Value::Tensor(run.engine.full(&shape, Scalar::Int(v), Some(dtype.unwrap_or(DType::Float32)))?))
        }
        "full" => {
            let shape = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let value = args.req(1, "fill_value")?.as_scalar("fill_value")?;
            let dtype = args.dtype()?;
            args.finish()?;
            Ok(Value::Tensor(run.engine.full(&shape, value, dtype)?))
        }
        "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            let value = if name == "full_like" {
                args.req(1, "fill_value")?.as_scalar("fill_value")?
            } else {
                Scalar::Int(i64::from(name == "ones_like"))
            };
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            args.finish()?;
            Ok(Value::Tensor(run.engine.full_like(&t, value, dtype)?))
        }
        "tensor" => {
            let data = args.req(0, "data")?;
            let dtype = args.dtype()?;
            args.finish()?;
            Ok(Value::Tensor(tensor_from_nested(&mut run.engine, &data, dtype)?))
        }
        "empty_strided" => {
            let size = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let dtype = args.dtype()?.unwrap_or(DType::Float32);
            args.finish()?;
            Ok(Value::Tensor(run.engine.empty_strided(dtype, &size, &stride)?))
        }
        "where" => {
            let c = operand(args.req(0, "condition")?, "condition")?;
            let x = operand(args.req(1, "input")?, "input")?;
            let y = operand(args.req(2, "other")?, "other")?;
            args.finish()?;
            Ok(Value::Tensor(run.engine.where_(&c, &x, &y)?))
        }
        "print" => Ok(Value::None),
        "len" => {
            let v = args.req(0, "obj")?;
            args.finish()?;
            match v {
                Value::Tensor(t) => match t.shape().first() {
                    Some(&n) => Ok(int(n as i64)),
                    None => bail!(Type, "len() of a 0-d tensor"),
                },
                Value::Tuple(v) | Value::List(v) => Ok(int(v.len() as i64)),
                other => bail!(Type, "object of type '{}' has no len()", other.type_name()),
            }
        }
        "max" | "min" => {
            let first = tensor_arg(args.req(0, "input")?, "input")?;
            method(run, first, name, shift(args))
        }
        "pad" => {
            // F.pad: pairs from the LAST dim backwards, (left, right, top, bottom, ...).
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            let pad = args.req(1, "pad")?.as_ints("pad")?;
            let value = args.opt(3, "value").map(|v| v.as_scalar("value")).transpose()?;
            let _mode = args.opt(2, "mode");
            args.finish()?;
            if pad.len() % 2 != 0 || pad.len() / 2 > t.shape().len() {
                bail!(
                    Shape,
                    "Padding length must be divisible by 2 and at most twice the number of dimensions of the input"
                );
            }
            let mut arg = vec![(0i64, 0i64); t.shape().len()];
            for (i, pair) in pad.chunks(2).enumerate() {
                let d = t.shape().len() - 1 - i;
                arg[d] = (pair[0], pair[1]);
            }
            Ok(Value::Tensor(pad_tensor(run, &t, &arg, value)?))
        }
        _ => super::nn::function(run, name, args),
    }
}

/// Drops the first positional argument (the receiver) so a function can call its method.
fn shift(args: Args) -> Args {
    args.shifted()
}

fn sizes(v: Vec<i64>) -> Result<Vec<usize>> {
    v.into_iter()
        .map(|n| match usize::try_from(n) {
            Ok(n) => Ok(n),
            Err(_) => bail!(Shape, "Trying to create tensor with negative dimension {n}: {:?}", n),
        })
        .collect()
}

fn tensor_from_nested(engine: &mut Engine, data: &Value, dtype: Option<DType>) -> Result<Tensor> {
    fn walk(v: &Value, depth: usize, shape: &mut Vec<usize>, out: &mut Vec<Scalar>) -> Result<()> {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.len() < depth || shape[depth] != items.len() {
                    bail!(
                        Shape,
                        "expected sequence of length {} at dim {depth} (got {})",
                        shape.get(depth).copied().unwrap_or(0),
                        items.len()
                    );
                }
                for item in items {
                    walk(item, depth + 1, shape, out)?;
                }
                Ok(())
            }
            Value::Scalar(s) => {
                if shape.len() > depth {
                    bail!(Type, "expected a sequence at dim {depth}, got a number");
                }
                out.push(*s);
                Ok(())
            }
            Value::Tensor(_) => bail!(Unsupported, "tensor() of a list of tensors is not supported; use stack()"),
            other => bail!(Type, "Could not infer dtype of {}", other.type_name()),
        }
    }
    let mut shape = Vec::new();
    let mut flat = Vec::new();
    walk(data, 0, &mut shape, &mut flat)?;
    crate::tensor::check_numel(&shape)?;
    let inferred = flat.iter().map(|s| s.dtype()).max().unwrap_or(DType::Float32);
    let dtype = dtype.unwrap_or(if flat.is_empty() { DType::Float32 } else { inferred });
    let data = Data::F32(vec![]).cast(dtype);
    let data = match data {
        Data::Bool(_) => Data::Bool(flat.iter().map(|s| s.as_f64() != 0.0).collect()),
        Data::U8(_) => Data::U8(flat.iter().map(|s| s.as_f64() as i64 as u8).collect()),
        Data::I32(_) => Data::I32(flat.iter().map(|s| s.as_f64() as i64 as i32).collect()),
        Data::F32(_) => Data::F32(flat.iter().map(|s| s.as_f64() as f32).collect()),
    };
    engine.from_data(data, &shape)
}

// ------------------------------------------------------------------------------- views

/// A view whose tinygrad form is a permutation: the permutation is read off the layout op
/// applied to stand-in strides 0, 1, 2, ... (each stride names the source dim it came from).
fn permuted(run: &mut Run, t: &Tensor, f: impl Fn(&Layout) -> Result<Layout>) -> Result<Tensor> {
    let layout = f(t.layout())?;
    let ids: Vec<i64> = (0..t.shape().len() as i64).collect();
    let perm: Vec<usize> = f(&Layout::new(t.shape(), &ids, 0))?.strides().iter().map(|&s| s as usize).collect();
    let tg = t.tinygrad().permute(&perm)?;
    run.engine.torch_view(t, layout, tg, 0)
}

/// Same storage, same layout (`detach`, `.data`).
fn alias(run: &mut Run, t: &Tensor) -> Result<Tensor> {
    run.engine.torch_view(t, t.layout().clone(), t.tinygrad().clone(), 0)
}

fn reshape(run: &mut Run, t: &Tensor, shape: &[i64], must_view: bool) -> Result<Tensor> {
    let sizes = Layout::infer_size(shape, t.numel())?;
    let tg = t.tinygrad().reshape(&sizes)?;
    if must_view {
        let layout = t.layout().view(shape)?;
        return run.engine.torch_view(t, layout, tg, 0);
    }
    match t.layout().reshape(shape)? {
        Some(layout) => run.engine.torch_view(t, layout, tg, 0),
        None => run.engine.movement_copy(t, Op::Reshape(sizes), tg, false),
    }
}

/// Ops that PyTorch computes as a view or a reshape-like copy, and tinygrad as a reshape.
fn reshaped(run: &mut Run, t: &Tensor, layout: Option<Layout>, sizes: Vec<usize>) -> Result<Tensor> {
    let tg = t.tinygrad().reshape(&sizes)?;
    match layout {
        Some(l) => run.engine.torch_view(t, l, tg, 0),
        None => run.engine.movement_copy(t, Op::Reshape(sizes), tg, false),
    }
}

/// Contiguous strides of a shape, by which the bridge converts slice starts to offsets.
fn contiguous_strides(shape: &[usize]) -> Vec<i64> {
    Layout::contiguous(shape).strides().to_vec()
}

fn norm_slice(start: Option<i64>, stop: Option<i64>, n: usize) -> (usize, usize) {
    let n = n as i64;
    let clamp = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let s = start.map_or(0, clamp);
    let e = stop.map_or(n, clamp).max(s);
    (s as usize, e as usize)
}

/// Basic indexing: PyTorch's layout from the index items, tinygrad's tracker from shrinks,
/// reshapes and (for steps) a pushed strided view.
fn index(run: &mut Run, t: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let layout = t.layout().index(items)?;
    let shape = t.shape().to_vec();
    let cs = contiguous_strides(&shape);
    // Expand the ellipsis to the dims no other item consumes.
    let consumed = items.iter().filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. })).count();
    // PyTorch lets the first `...` take the free dims; any later one stands for none.
    let mut expanded = Vec::new();
    let mut seen_ellipsis = false;
    for it in items {
        match it {
            IndexItem::Ellipsis if !seen_ellipsis => {
                seen_ellipsis = true;
                let full = IndexItem::Slice { start: None, stop: None, step: None };
                expanded.extend(std::iter::repeat_n(full, shape.len().saturating_sub(consumed)));
            }
            IndexItem::Ellipsis => {}
            other => expanded.push(other.clone()),
        }
    }
    let mut shrink = Vec::with_capacity(shape.len());
    let mut out_shape = Vec::new();
    let mut stepped = false;
    let mut bridge_offset = 0i64;
    let mut dim = 0;
    for it in &expanded {
        match it {
            IndexItem::NewAxis => out_shape.push(1),
            IndexItem::Int(i) => {
                let n = shape[dim] as i64;
                let i = if *i < 0 { i + n } else { *i } as usize;
                shrink.push((i, i + 1));
                bridge_offset += i as i64 * cs[dim];
                dim += 1;
            }
            IndexItem::Slice { start, stop, step } => {
                let (s, e) = norm_slice(*start, *stop, shape[dim]);
                let step = step.unwrap_or(1);
                stepped |= step != 1;
                shrink.push((s, e));
                out_shape.push(((e - s) as i64 + step - 1).max(0) as usize / step.max(1) as usize);
                bridge_offset += s as i64 * cs[dim];
                dim += 1;
            }
            IndexItem::Ellipsis => unreachable!("expanded above"),
        }
    }
    for &n in &shape[dim..] {
        shrink.push((0, n));
        out_shape.push(n);
    }
    let tg = if stepped {
        t.tinygrad().push(restride_view(&Layout::contiguous(&shape).index(items)?))?
    } else {
        t.tinygrad().shrink(&shrink)?.reshape(&out_shape)?
    };
    run.engine.torch_view(t, layout, tg, bridge_offset)
}

fn index_items(items: &[Value]) -> Result<Vec<IndexItem>> {
    items
        .iter()
        .map(|v| match v {
            Value::Scalar(Scalar::Int(i)) => Ok(IndexItem::Int(*i)),
            Value::Scalar(Scalar::Bool(_)) => {
                bail!(Unsupported, "indexing with a bool is advanced indexing, which is not supported")
            }
            Value::Slice(a, b, c) => Ok(IndexItem::Slice { start: *a, stop: *b, step: *c }),
            Value::None => Ok(IndexItem::NewAxis),
            Value::Ellipsis => Ok(IndexItem::Ellipsis),
            Value::Tensor(_) | Value::List(_) => bail!(
                Unsupported,
                "advanced indexing (with tensors or lists) is not supported: only ints, slices, None and ..."
            ),
            other => bail!(
                Type,
                "only integers, slices (`:`), ellipsis (`...`) and None are valid indices (got {})",
                other.type_name()
            ),
        })
        .collect()
}

pub fn getitem(run: &mut Run, base: &Value, items: &[Value]) -> Result<Value> {
    match base {
        Value::Tensor(t) => {
            // `a[(1, 2)]` is `a[1, 2]`.
            let flat: Vec<Value> = match items {
                [Value::Tuple(v)] => v.clone(),
                _ => items.to_vec(),
            };
            let items = index_items(&flat)?;
            Ok(Value::Tensor(index(run, t, &items)?))
        }
        Value::Tuple(v) | Value::List(v) => {
            let [i] = items else { bail!(Type, "tuple indices must be integers") };
            let i = i.as_int("tuple index")?;
            let n = v.len() as i64;
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                bail!(Index, "tuple index out of range");
            }
            Ok(v[j as usize].clone())
        }
        Value::Named(v) => {
            let [i] = items else { bail!(Type, "tuple indices must be integers") };
            let i = i.as_int("tuple index")?;
            match v.get(i as usize) {
                Some((_, x)) => Ok(x.clone()),
                None => bail!(Index, "tuple index out of range"),
            }
        }
        other => bail!(Type, "'{}' object is not subscriptable", other.type_name()),
    }
}

pub fn setitem(run: &mut Run, base: &Value, items: &[Value], value: Value) -> Result<()> {
    let Value::Tensor(_) = base else { bail!(Type, "'{}' object does not support item assignment", base.type_name()) };
    let Value::Tensor(view) = getitem(run, base, items)? else { unreachable!("indexing a tensor gives a tensor") };
    match value {
        Value::Scalar(s) => fill(run, &view, Operand::Scalar(s), "fill_"),
        // PyTorch's `copy_to`: equal sizes copy as they are; a 0-d value fills; anything else
        // drops its leading size-1 dims and is expanded to the indexing result first.
        Value::Tensor(src) if src.shape() == view.shape() => copy_into(run, &view, &src, "setitem"),
        Value::Tensor(src) if src.shape().is_empty() => fill(run, &view, Operand::Tensor(src), "fill_"),
        Value::Tensor(src) => {
            let keep = src.shape().iter().position(|&n| n != 1).unwrap_or(src.shape().len());
            let stripped: Vec<usize> = src.shape()[keep..].to_vec();
            let fits = stripped.len() <= view.shape().len()
                && Engine::broadcast_shapes(&[&stripped, view.shape()]).is_ok_and(|s| s == view.shape());
            if !fits {
                bail!(
                    Shape,
                    "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
                    src.shape(),
                    view.shape()
                );
            }
            let stripped: Vec<i64> = stripped.iter().map(|&n| n as i64).collect();
            let src = reshape(run, &src, &stripped, true)?;
            let target: Vec<i64> = view.shape().iter().map(|&n| n as i64).collect();
            let src = expand(run, &src, &target)?;
            copy_into(run, &view, &src, "setitem")
        }
        other => bail!(Type, "can't assign a {} to a Tensor", other.type_name()),
    }
    .map(|_| ())
}

fn pad_tensor(run: &mut Run, t: &Tensor, arg: &[(i64, i64)], value: Option<Scalar>) -> Result<Tensor> {
    if arg.len() != t.shape().len() {
        bail!(
            Shape,
            "pad needs one (before, after) pair per dim: got {} for a {}-D tensor",
            arg.len(),
            t.shape().len()
        );
    }
    if arg.iter().any(|&(b, a)| b < 0 || a < 0) {
        bail!(Unsupported, "negative padding (cropping) is not supported; use shrink or slicing");
    }
    if value.is_some_and(|v| v.as_f64() != 0.0) {
        bail!(Unsupported, "pad with a non-zero value is not supported");
    }
    let arg: Vec<(usize, usize)> = arg.iter().map(|&(b, a)| (b as usize, a as usize)).collect();
    let tg = t.tinygrad().pad(&arg)?;
    run.engine.movement_copy(t, Op::Pad(arg), tg, false)
}

/// tinygrad's per-dim argument of shrink/pad: one pair per dim, `None` for "leave this dim".
fn pairs(v: Value, what: &str) -> Result<Vec<Option<(i64, i64)>>> {
    let Some(items) = v.items() else { bail!(Type, "{what} must be a tuple of (begin, end) pairs") };
    items
        .iter()
        .map(|p| {
            if let Value::None = p {
                return Ok(None);
            }
            let xs = p.as_ints(what)?;
            match xs.as_slice() {
                [a, b] => Ok(Some((*a, *b))),
                _ => bail!(Type, "{what} must be a tuple of (begin, end) pairs"),
            }
        })
        .collect()
}

fn shrink(run: &mut Run, t: &Tensor, arg: &[(i64, i64)]) -> Result<Tensor> {
    let shape = t.shape().to_vec();
    if arg.len() != shape.len() {
        bail!(Shape, "shrink needs one (begin, end) pair per dim: got {} for a {}-D tensor", arg.len(), shape.len());
    }
    let mut layout = t.layout().clone();
    let mut out = Vec::new();
    let mut bridge_offset = 0;
    let cs = contiguous_strides(&shape);
    for (d, &(b, e)) in arg.iter().enumerate() {
        if b < 0 || e < b || e > shape[d] as i64 {
            bail!(Index, "shrink of dim {d} to ({b}, {e}) is out of range for size {}", shape[d]);
        }
        layout = layout.narrow(d as i64, b, e - b)?;
        bridge_offset += b * cs[d];
        out.push((b as usize, e as usize));
    }
    let tg = t.tinygrad().shrink(&out)?;
    run.engine.torch_view(t, layout, tg, bridge_offset)
}

// ------------------------------------------------------------------------------- methods

pub fn method(run: &mut Run, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let t = run.engine.resolve(&t);
    let tensor = |x: Tensor| Ok(Value::Tensor(x));
    match name {
        // ---- PyTorch view ops
        "view" | "reshape" => {
            let shape = args.sizes(0, "shape")?;
            args.finish()?;
            tensor(reshape(run, &t, &shape, name == "view")?)
        }
        "view_as" | "reshape_as" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            let shape: Vec<i64> = other.shape().iter().map(|&n| n as i64).collect();
            tensor(reshape(run, &t, &shape, name == "view_as")?)
        }
        "flatten" => {
            let start = args.int_or(0, "start_dim", 0)?;
            let end = args.int_or(1, "end_dim", -1)?;
            args.finish()?;
            let layout = t.layout().flatten(start, end)?;
            let sizes = flatten_sizes(t.shape(), start, end)?;
            tensor(reshaped(run, &t, layout, sizes)?)
        }
        "unflatten" => {
            let dim = args.int(0, "dim")?;
            let sizes = args.req(1, "sizes")?.as_ints("sizes")?;
            args.finish()?;
            let layout = t.layout().unflatten(dim, &sizes)?;
            let new_sizes = match &layout {
                Some(l) => l.sizes().to_vec(),
                None => {
                    let d = wrap_dim(dim, t.shape().len())?;
                    let inner = Layout::infer_size(&sizes, t.shape()[d])?;
                    t.shape()[..d].iter().chain(inner.iter()).chain(t.shape()[d + 1..].iter()).copied().collect()
                }
            };
            tensor(reshaped(run, &t, layout, new_sizes)?)
        }
        "squeeze" => {
            let dims = args.dims(0, "dim")?;
            args.finish()?;
            let layout = t.layout().squeeze(dims.as_deref())?;
            let sizes = layout.sizes().to_vec();
            tensor(reshaped(run, &t, Some(layout), sizes)?)
        }
        "unsqueeze" => {
            let dim = args.int(0, "dim")?;
            args.finish()?;
            let layout = t.layout().unsqueeze(dim)?;
            let sizes = layout.sizes().to_vec();
            tensor(reshaped(run, &t, Some(layout), sizes)?)
        }
        "permute" => {
            let dims = args.sizes(0, "dims")?;
            args.finish()?;
            tensor(permuted(run, &t, |l| l.permute(&dims))?)
        }
        "transpose" | "swapaxes" | "swapdims" => {
            let a = args.int(0, "dim0")?;
            let b = args.int(1, "dim1")?;
            args.finish()?;
            tensor(permuted(run, &t, |l| l.transpose(a, b))?)
        }
        "t" => {
            args.finish()?;
            tensor(permuted(run, &t, |l| l.t())?)
        }
        "movedim" | "moveaxis" => {
            let src = args.req(0, "source")?.as_ints("source")?;
            let dst = args.req(1, "destination")?.as_ints("destination")?;
            args.finish()?;
            tensor(permuted(run, &t, |l| l.movedim(&src, &dst))?)
        }
        "expand" => {
            let sizes = args.sizes(0, "size")?;
            args.finish()?;
            tensor(expand(run, &t, &sizes)?)
        }
        "expand_as" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            let sizes: Vec<i64> = other.shape().iter().map(|&n| n as i64).collect();
            tensor(expand(run, &t, &sizes)?)
        }
        "narrow" => {
            let dim = args.int(0, "dim")?;
            let start = args.int(1, "start")?;
            let length = args.int(2, "length")?;
            args.finish()?;
            let layout = t.layout().narrow(dim, start, length)?;
            let d = wrap_dim(dim, t.shape().len())?;
            let s = if start < 0 { start + t.shape()[d] as i64 } else { start };
            let mut arg: Vec<(usize, usize)> = t.shape().iter().map(|&n| (0, n)).collect();
            arg[d] = (s as usize, (s + length) as usize);
            let tg = t.tinygrad().shrink(&arg)?;
            let off = s * contiguous_strides(t.shape())[d];
            tensor(run.engine.torch_view(&t, layout, tg, off)?)
        }
        "select" => {
            let dim = args.int(0, "dim")?;
            let i = args.int(1, "index")?;
            args.finish()?;
            let layout = t.layout().select(dim, i)?;
            let d = wrap_dim(dim, t.shape().len())?;
            let i = if i < 0 { i + t.shape()[d] as i64 } else { i } as usize;
            let mut arg: Vec<(usize, usize)> = t.shape().iter().map(|&n| (0, n)).collect();
            arg[d] = (i, i + 1);
            let tg = t.tinygrad().shrink(&arg)?.reshape(layout.sizes())?;
            let off = i as i64 * contiguous_strides(t.shape())[d];
            tensor(run.engine.torch_view(&t, layout, tg, off)?)
        }
        "diagonal" => {
            let offset = args.int_or(0, "offset", 0)?;
            let d1 = args.int_or(1, "dim1", 0)?;
            let d2 = args.int_or(2, "dim2", 1)?;
            args.finish()?;
            let layout = t.layout().diagonal(offset, d1, d2)?;
            let tg = t.tinygrad().push(restride_view(&Layout::contiguous(t.shape()).diagonal(offset, d1, d2)?))?;
            tensor(run.engine.torch_view(&t, layout, tg, 0)?)
        }
        "unfold" => {
            let dim = args.int(0, "dimension")?;
            let size = args.int(1, "size")?;
            let step = args.int(2, "step")?;
            args.finish()?;
            let layout = t.layout().unfold(dim, size, step)?;
            let tg = t.tinygrad().push(restride_view(&Layout::contiguous(t.shape()).unfold(dim, size, step)?))?;
            tensor(run.engine.torch_view(&t, layout, tg, 0)?)
        }
        "as_strided" => {
            let size = args.req(0, "size")?.as_ints("size")?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let offset = args.opt_int(2, "storage_offset")?;
            args.finish()?;
            let layout = t.layout().as_strided(&size, &stride, offset)?;
            let numel = run.engine.storage_numel(&t)?;
            layout.check_storage_bounds(numel, t.dtype().itemsize())?;
            let tg = ShapeTracker::from_view(restride_view(&layout));
            tensor(run.engine.torch_view(&t, layout, tg, 0)?)
        }
        "detach" => {
            args.finish()?;
            tensor(alias(run, &t)?)
        }
        "contiguous" => {
            args.finish()?;
            if t.layout().is_contiguous() {
                tensor(t)
            } else {
                tensor(run.engine.contiguous_copy(&t)?)
            }
        }
        "clone" => {
            args.finish()?;
            tensor(run.engine.copy(&t)?)
        }
        "flip" => {
            let dims = args.sizes(0, "dims")?;
            args.finish()?;
            let n = t.shape().len();
            let mut axes = vec![false; n];
            for d in dims {
                let d = wrap_dim(d, n)?;
                if axes[d] {
                    bail!(Index, "dim {d} appears multiple times in the list of dims");
                }
                axes[d] = true;
            }
            let tg = t.tinygrad().flip(&axes)?;
            tensor(run.engine.movement_copy(&t, Op::Flip(axes), tg, true)?)
        }
        "shrink" => {
            let arg = pairs(args.req(0, "arg")?, "shrink arg")?;
            args.finish()?;
            let arg: Vec<(i64, i64)> = arg.iter().zip(t.shape()).map(|(p, &n)| p.unwrap_or((0, n as i64))).collect();
            tensor(shrink(run, &t, &arg)?)
        }
        "pad" => {
            let arg = pairs(args.req(0, "arg")?, "pad arg")?;
            let value = args.opt(1, "value").map(|v| v.as_scalar("value")).transpose()?;
            args.finish()?;
            let arg: Vec<(i64, i64)> = arg.iter().map(|p| p.unwrap_or((0, 0))).collect();
            tensor(pad_tensor(run, &t, &arg, value)?)
        }
        "float" | "int" | "long" | "bool" | "byte" | "to" | "type" => {
            let dtype = match name {
                "float" => DType::Float32,
                "byte" => DType::UInt8,
                "int" | "long" => DType::Int32,
                "bool" => DType::Bool,
                _ => match args.req(0, "dtype")? {
                    Value::DType(d) => d,
                    other => bail!(Type, "to() expects a dtype, got {}", other.type_name()),
                },
            };
            args.finish()?;
            if dtype == t.dtype() {
                tensor(t)
            } else {
                tensor(run.engine.cast(&t, dtype)?)
            }
        }
        // ---- queries
        "size" | "stride" => {
            let dim = args.opt_int(0, "dim")?;
            args.finish()?;
            let vals: Vec<i64> = if name == "size" {
                t.shape().iter().map(|&n| n as i64).collect()
            } else {
                t.layout().strides().to_vec()
            };
            match dim {
                Some(d) => Ok(int(vals[wrap_dim(d, vals.len())?])),
                None => Ok(ints(vals.into_iter())),
            }
        }
        "storage_offset" => {
            args.finish()?;
            Ok(int(t.layout().offset()))
        }
        "dim" | "ndimension" => {
            args.finish()?;
            Ok(int(t.shape().len() as i64))
        }
        "numel" | "nelement" => {
            args.finish()?;
            Ok(int(t.numel() as i64))
        }
        "element_size" => {
            args.finish()?;
            Ok(int(t.dtype().itemsize() as i64))
        }
        "is_contiguous" => {
            args.finish()?;
            Ok(Value::Scalar(Scalar::Bool(t.layout().is_contiguous())))
        }
        "item" => {
            args.finish()?;
            if t.numel() != 1 {
                bail!(Shape, "a Tensor with {} elements cannot be converted to Scalar", t.numel());
            }
            let v = run.engine.values(&t)?;
            let x = v.get_f64(0);
            Ok(Value::Scalar(match t.dtype() {
                DType::Float32 => Scalar::Float(x),
                DType::Bool => Scalar::Bool(x != 0.0),
                _ => Scalar::Int(x as i64),
            }))
        }
        // ---- elementwise
        "clamp" | "clip" => {
            let lo = args.opt(0, "min");
            let hi = args.opt(1, "max");
            args.finish()?;
            tensor(clamp(run, &t, lo, hi)?)
        }
        "where" => {
            let c = operand(args.req(0, "condition")?, "condition")?;
            let y = operand(args.req(1, "other")?, "other")?;
            args.finish()?;
            tensor(run.engine.where_(&c, &Operand::Tensor(t), &y)?)
        }
        "matmul" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            tensor(matmul(run, &t, &other)?)
        }
        // ---- reductions
        "sum" | "mean" | "amax" | "amin" | "logsumexp" => {
            let dims = args.dims(0, "dim")?;
            let keepdim = args.bool_or(1, "keepdim", false)?;
            let _ = args.dtype()?;
            args.finish()?;
            if name == "logsumexp" && dims.is_none() {
                bail!(Type, "logsumexp() missing 1 required positional argument: \"dim\"");
            }
            let axes = reduce_axes(t.shape().len(), dims.as_deref())?;
            let out = match name {
                "sum" => run.engine.reduce(ReduceOp::Sum, &t, &axes, keepdim)?,
                "mean" => run.engine.mean(&t, &axes, keepdim)?,
                "amax" => run.engine.reduce(ReduceOp::Max, &t, &axes, keepdim)?,
                "amin" => run.engine.reduce(ReduceOp::Min, &t, &axes, keepdim)?,
                _ => run.engine.logsumexp(&t, &axes, keepdim)?,
            };
            tensor(out)
        }
        "max" | "min" => {
            let first = args.opt(0, "dim");
            let keepdim = args.bool_or(1, "keepdim", false)?;
            args.finish()?;
            let op = if name == "max" { ReduceOp::Max } else { ReduceOp::Min };
            match first {
                None => {
                    if t.numel() == 0 {
                        bail!(Shape, "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
                    }
                    let axes: Vec<usize> = (0..t.shape().len()).collect();
                    tensor(run.engine.reduce(op, &t, &axes, false)?)
                }
                Some(Value::Tensor(other)) => {
                    let bop = if name == "max" { BinaryOp::Max } else { BinaryOp::Min };
                    tensor(run.engine.binary(bop, &Operand::Tensor(t), &Operand::Tensor(other))?)
                }
                Some(d) => {
                    let d = wrap_dim(d.as_int("dim")?, t.shape().len())?;
                    let axes: Vec<usize> = if t.shape().is_empty() { vec![] } else { vec![d] };
                    let values = run.engine.reduce(op, &t, &axes, keepdim)?;
                    let indices = if t.shape().is_empty() {
                        run.engine.full(&[], Scalar::Int(0), Some(DType::Int32))?
                    } else {
                        run.engine.arg_reduce(&t, d, keepdim, name == "max")?
                    };
                    Ok(Value::Named(vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(indices))]))
                }
            }
        }
        "argmax" | "argmin" => {
            let dim = args.opt_int(0, "dim")?;
            let keepdim = args.bool_or(1, "keepdim", false)?;
            args.finish()?;
            let max = name == "argmax";
            match dim {
                Some(d) => {
                    let d = wrap_dim(d, t.shape().len())?;
                    tensor(run.engine.arg_reduce(&t, d, keepdim, max)?)
                }
                None => {
                    let flat = reshape(run, &t, &[-1], false)?;
                    tensor(run.engine.arg_reduce(&flat, 0, false, max)?)
                }
            }
        }
        // ---- in-place
        "zero_" => {
            args.finish()?;
            tensor(fill(run, &t, Operand::Scalar(Scalar::Int(0)), name)?)
        }
        "fill_" => {
            let v = operand(args.req(0, "value")?, "value")?;
            args.finish()?;
            if let Operand::Tensor(v) = &v {
                if !v.shape().is_empty() {
                    bail!(
                        Shape,
                        "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                        v.shape().len()
                    );
                }
            }
            tensor(fill(run, &t, v, name)?)
        }
        "copy_" => {
            let src = tensor_arg(args.req(0, "src")?, "src")?;
            args.finish()?;
            tensor(copy_into(run, &t, &src, name)?)
        }
        "clamp_" | "clip_" => {
            let lo = args.opt(0, "min");
            let hi = args.opt(1, "max");
            args.finish()?;
            let value = clamp(run, &t, lo, hi)?;
            tensor(write_value(run, &t, &value, std::slice::from_ref(&t), OverlapRules::ALL)?)
        }
        _ => match elementwise::method_entry(name) {
            Some(entry) => elementwise::call_method(run, &t, entry, name, args),
            None => super::nn::method(run, t, name, args),
        },
    }
}

fn flatten_sizes(shape: &[usize], start: i64, end: i64) -> Result<Vec<usize>> {
    if shape.is_empty() {
        return Ok(vec![1]);
    }
    let s = wrap_dim(start, shape.len())?;
    let e = wrap_dim(end, shape.len())?;
    if s > e {
        bail!(Index, "flatten() has invalid args: start_dim cannot come after end_dim");
    }
    let mid: usize = shape[s..=e].iter().product();
    Ok(shape[..s].iter().copied().chain(std::iter::once(mid)).chain(shape[e + 1..].iter().copied()).collect())
}

fn expand(run: &mut Run, t: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let layout = t.layout().expand(sizes)?;
    let new = layout.sizes().to_vec();
    let lead = new.len() - t.shape().len();
    let padded: Vec<usize> = std::iter::repeat_n(1, lead).chain(t.shape().iter().copied()).collect();
    let tg = t.tinygrad().reshape(&padded)?.expand(&new)?;
    run.engine.torch_view(t, layout, tg, 0)
}

fn reduce_axes(ndim: usize, dims: Option<&[i64]>) -> Result<Vec<usize>> {
    let mut axes = match dims {
        None => (0..ndim).collect::<Vec<_>>(),
        // An empty tuple reduces everything, as PyTorch's sum(dim=()) does.
        Some([]) => (0..ndim).collect(),
        Some(ds) => ds.iter().map(|&d| wrap_dim(d, ndim)).collect::<Result<Vec<_>>>()?,
    };
    if ndim == 0 {
        return Ok(vec![]);
    }
    let n = axes.len();
    axes.sort_unstable();
    axes.dedup();
    if axes.len() != n {
        bail!(Index, "dim {} appears multiple times in the list of dims", axes[0]);
    }
    Ok(axes)
}

fn clamp(run: &mut Run, t: &Tensor, lo: Option<Value>, hi: Option<Value>) -> Result<Tensor> {
    let lo = lo.filter(|v| !matches!(v, Value::None)).map(|v| operand(v, "min")).transpose()?;
    let hi = hi.filter(|v| !matches!(v, Value::None)).map(|v| operand(v, "max")).transpose()?;
    if lo.is_none() && hi.is_none() {
        bail!(Type, "torch.clamp: At least one of 'min' or 'max' must not be None");
    }
    let mut ops: Vec<&Operand> = vec![];
    let me = Operand::Tensor(t.clone());
    ops.push(&me);
    ops.extend(lo.iter());
    ops.extend(hi.iter());
    let dtype = run.engine.promote(&ops);
    let mut cur = if dtype == t.dtype() { t.clone() } else { run.engine.cast(t, dtype)? };
    if let Some(lo) = &lo {
        cur = run.engine.binary(BinaryOp::Max, &Operand::Tensor(cur), lo)?;
    }
    if let Some(hi) = &hi {
        cur = run.engine.binary(BinaryOp::Min, &Operand::Tensor(cur), hi)?;
    }
    Ok(cur)
}

/// `a @ b` as tinygrad builds it: broadcast to (..., M, K, N), multiply, sum over K.
fn matmul(run: &mut Run, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (an, bn) = (a.shape().len(), b.shape().len());
    if an == 0 || bn == 0 {
        bail!(Shape, "both arguments to matmul need to be at least 1D, but they are {an}D and {bn}D");
    }
    if a.dtype() != b.dtype() {
        bail!(
            DType,
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            crate::nn_ops::c_name(a.dtype()),
            crate::nn_ops::c_name(b.dtype())
        );
    }
    // Promote 1-D operands to matrices, remembering which dims to drop at the end.
    let a2 = if an == 1 { reshape(run, a, &[1, a.shape()[0] as i64], false)? } else { a.clone() };
    let b2 = if bn == 1 { reshape(run, b, &[b.shape()[0] as i64, 1], false)? } else { b.clone() };
    let (sa, sb) = (a2.shape().to_vec(), b2.shape().to_vec());
    let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if k != k2 {
        bail!(Shape, "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", m, k, k2, n);
    }
    let batch = Engine::broadcast_shapes(&[&sa[..sa.len() - 2], &sb[..sb.len() - 2]])?;
    // a: (..., M, K, 1), b: (..., 1, K, N)
    let a3 = reshape(
        run,
        &a2,
        &sa[..sa.len() - 2].iter().map(|&x| x as i64).chain([m as i64, k as i64, 1]).collect::<Vec<_>>(),
        false,
    )?;
    let b3 = reshape(
        run,
        &b2,
        &sb[..sb.len() - 2].iter().map(|&x| x as i64).chain([1, k as i64, n as i64]).collect::<Vec<_>>(),
        false,
    )?;
    // The product broadcasts both to (..., M, K, N); it is never a view or a storage.
    let mut out = run.engine.mul_sum(&a3, &b3, batch.len() + 1)?;
    let mut shape: Vec<i64> = out.shape().iter().map(|&x| x as i64).collect();
    if bn == 1 {
        shape.pop();
    }
    if an == 1 {
        let l = shape.len();
        shape.remove(l - if bn == 1 { 1 } else { 2 });
    }
    if shape.len() != out.shape().len() {
        out = reshape(run, &out, &shape, false)?;
    }
    if an == 1 && bn == 2 {
        // PyTorch computes this as mm of the unsqueezed vector, then squeeze_ in place.
        out = run.engine.bump_version(&out)?;
    }
    Ok(out)
}

// ------------------------------------------------------------------------------- writes

/// `fill_`/`zero_`/`a[i] = scalar`: any dtype is cast; overlap as PyTorch checks it for fills.
fn fill(run: &mut Run, target: &Tensor, v: Operand, op: &str) -> Result<Tensor> {
    let target = run.engine.realize(target)?;
    let inputs: Vec<Tensor> = match &v {
        Operand::Tensor(t) => vec![t.clone()],
        Operand::Scalar(_) => vec![],
    };
    // Filling with a scalar checks nothing; with a 0-d tensor PyTorch refuses a target that
    // repeats elements but accepts any overlap with the value.
    let rules = match &v {
        Operand::Scalar(_) => overlap_rules(op),
        Operand::Tensor(_) => OverlapRules { internal: true, partial: false },
    };
    run.engine.check_write_overlap(&target, &inputs, rules)?;
    let node = run.engine.value_node(&v, target.dtype(), target.shape())?;
    let w = run.engine.write(&target, node)?;
    run.record_write(w);
    Ok(run.engine.resolve(&target))
}

/// `copy_` and `a[i] = tensor`: broadcast the source, cast any dtype.
fn copy_into(run: &mut Run, target: &Tensor, src: &Tensor, op: &str) -> Result<Tensor> {
    let target = run.engine.realize(target)?;
    let src = run.engine.realize(src)?;
    // `copy_` returns early when source and target are the same data (same storage and layout).
    let same_data =
        src.storage() == target.storage() && src.layout() == target.layout() && src.dtype() == target.dtype();
    if !same_data {
        run.engine.check_write_overlap(&target, std::slice::from_ref(&src), overlap_rules(op))?;
    }
    let src = &src;
    let shape = Engine::broadcast_shapes(&[src.shape(), target.shape()])?;
    if shape != target.shape() {
        bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", target.shape(), shape);
    }
    let node = run.engine.value_node(&Operand::Tensor(src.clone()), target.dtype(), target.shape())?;
    let w = run.engine.write(&target, node)?;
    run.record_write(w);
    Ok(run.engine.resolve(&target))
}

/// Which overlap checks PyTorch 2.x makes for each writing op (see `torch::overlap`).
fn overlap_rules(op: &str) -> OverlapRules {
    match op {
        "fill_" | "zero_" => OverlapRules::NONE,
        _ => OverlapRules::ALL,
    }
}

// ------------------------------------------------------------------------------- operators

pub fn unary(run: &mut Run, op: AstUnary, v: Value) -> Result<Value> {
    match (op, v) {
        (AstUnary::Pos, v @ (Value::Scalar(_) | Value::Tensor(_))) => Ok(v),
        (AstUnary::Neg, Value::Scalar(Scalar::Int(i))) => Ok(int(i.wrapping_neg())),
        (AstUnary::Neg, Value::Scalar(Scalar::Float(f))) => Ok(Value::Scalar(Scalar::Float(-f))),
        (AstUnary::Neg, Value::Scalar(Scalar::Bool(b))) => Ok(int(-i64::from(b))),
        (AstUnary::Invert, Value::Scalar(Scalar::Int(i))) => Ok(int(!i)),
        (AstUnary::Invert, Value::Scalar(Scalar::Bool(b))) => Ok(int(!i64::from(b))),
        (AstUnary::Neg, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Neg, &t)?)),
        (AstUnary::Invert, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Not, &t)?)),
        (op, v) => bail!(Type, "bad operand type for unary {:?}: '{}'", op, v.type_name()),
    }
}

fn ast_binary(op: BinOp) -> (BinaryOp, bool) {
    match op {
        BinOp::Add => (BinaryOp::Add, false),
        BinOp::Sub => (BinaryOp::Sub, false),
        BinOp::Mul => (BinaryOp::Mul, false),
        BinOp::Div => (BinaryOp::Div, false),
        BinOp::FloorDiv => (BinaryOp::FloorDiv, false),
        BinOp::Mod => (BinaryOp::Mod, false),
        BinOp::Pow => (BinaryOp::Pow, false),
        BinOp::Eq => (BinaryOp::CmpEq, false),
        BinOp::Ne => (BinaryOp::CmpNe, false),
        BinOp::Lt => (BinaryOp::CmpLt, false),
        BinOp::Le => (BinaryOp::CmpLe, false),
        BinOp::Gt => (BinaryOp::CmpLt, true),
        BinOp::Ge => (BinaryOp::CmpLe, true),
        BinOp::And => (BinaryOp::And, false),
        BinOp::Or => (BinaryOp::Or, false),
        BinOp::Xor => (BinaryOp::Xor, false),
        BinOp::MatMul => unreachable!("matmul is handled before"),
    }
}

pub fn binary(run: &mut Run, op: BinOp, a: Value, b: Value) -> Result<Value> {
    if op == BinOp::MatMul {
        let a = tensor_arg(a, "matmul input")?;
        let b = tensor_arg(b, "matmul other")?;
        return Ok(Value::Tensor(matmul(run, &a, &b)?));
    }
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => scalar_binary(op, x, y),
        (Value::Tuple(x), Value::Tuple(y)) if op == BinOp::Add => Ok(Value::Tuple(x.into_iter().chain(y).collect())),
        (a, b) => {
            let a = operand(a, "left operand")?;
            let b = operand(b, "right operand")?;
            let (bop, swap) = ast_binary(op);
            let (x, y) = if swap { (b, a) } else { (a, b) };
            Ok(Value::Tensor(elementwise::binary(run, bop, &x, &y)?))
        }
    }
}

/// Python arithmetic on plain numbers.
fn scalar_binary(op: BinOp, x: Scalar, y: Scalar) -> Result<Value> {
    let float = matches!(x, Scalar::Float(_)) || matches!(y, Scalar::Float(_));
    let (a, b) = (x.as_f64(), y.as_f64());
    let num = |f: f64| -> Value { Value::Scalar(if float { Scalar::Float(f) } else { Scalar::Int(f as i64) }) };
    let boolean = |v: bool| Ok(Value::Scalar(Scalar::Bool(v)));
    match op {
        BinOp::Add => Ok(num(a + b)),
        BinOp::Sub => Ok(num(a - b)),
        BinOp::Mul => Ok(num(a * b)),
        BinOp::Div => {
            if b == 0.0 {
                bail!(Shape, "division by zero");
            }
            Ok(Value::Scalar(Scalar::Float(a / b)))
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if b == 0.0 {
                bail!(Shape, "integer division or modulo by zero");
            }
            let q = (a / b).floor();
            Ok(num(if op == BinOp::FloorDiv { q } else { a - q * b }))
        }
        BinOp::Pow => Ok(num(a.powf(b))),
        BinOp::Eq => boolean(a == b),
        BinOp::Ne => boolean(a != b),
        BinOp::Lt => boolean(a < b),
        BinOp::Le => boolean(a <= b),
        BinOp::Gt => boolean(a > b),
        BinOp::Ge => boolean(a >= b),
        BinOp::And | BinOp::Or | BinOp::Xor => {
            if float {
                bail!(Type, "unsupported operand type(s) for bitwise op: 'float'");
            }
            let (i, j) = (a as i64, b as i64);
            Ok(int(match op {
                BinOp::And => i & j,
                BinOp::Or => i | j,
                _ => i ^ j,
            }))
        }
        BinOp::MatMul => bail!(Type, "unsupported operand type(s) for @: 'int' and 'int'"),
    }
}

/// `t op= rhs` for a tensor `t`: PyTorch's in-place op (`+=` is `add_`).
pub fn inplace_binary(run: &mut Run, t: &Tensor, op: BinOp, rhs: Value) -> Result<Tensor> {
    if op == BinOp::MatMul {
        bail!(Unsupported, "In-place matmul is not supported. Use 'a = a @ b' instead of 'a @= b'.");
    }
    let (bop, swap) = ast_binary(op);
    if swap || bop.is_comparison() {
        bail!(Type, "unsupported augmented assignment");
    }
    let other = operand(rhs, "right operand")?;
    write_binary(run, t, bop, &Operand::Tensor(t.clone()), &other)
}
