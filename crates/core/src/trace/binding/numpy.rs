//! The part of numpy that alias questions meet: arrays that share memory with tensors
//! (`torch.from_numpy(a)`, `t.numpy()`, `torch.as_tensor(a)`: one storage, each side with its
//! own version counter, so a numpy write changes the tensor without moving its version), the
//! constructors, numpy's dtype rules (float64 by default, NEP 50 promotion with Python scalars
//! weak), basic indexing as views and writes through them, byte strides, `np.shares_memory`,
//! the common ufuncs and reductions, and numpy's printed forms (`python::array_str`).
//!
//! An array is a tensor of the engine held as [`Value::Array`]: every operation runs on the
//! engine (so writes are seen by every tensor over the storage) and its result is an array
//! again. Reductions to one value and full integer indexing give Python numbers.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Operand, OverlapRules, Tensor};
use crate::trace::binding::elementwise::{self, tensor_arg, write_value};
use crate::trace::binding::library;
use crate::trace::binding::subscript;
use crate::trace::lang::ast::{BinOp, UnaryOp as AstUnary};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;
use crate::uop::UnaryOp;

/// numpy's dtypes by name (`np.float32`, `dtype='int64'`).
const DTYPES: &[(&str, DType)] = &[
    ("float64", DType::Float64),
    ("float32", DType::Float32),
    ("float16", DType::Float16),
    ("int64", DType::Int64),
    ("int32", DType::Int32),
    ("int16", DType::Int16),
    ("int8", DType::Int8),
    ("uint8", DType::UInt8),
    ("bool", DType::Bool),
    ("bool_", DType::Bool),
    ("double", DType::Float64),
    ("single", DType::Float32),
    ("half", DType::Float16),
    ("longlong", DType::Int64),
    ("intc", DType::Int32),
    ("float", DType::Float64),
    ("int", DType::Int64),
];

pub(crate) fn array(t: Tensor) -> Value {
    Value::Array(t)
}

pub(crate) fn dtype_named(name: &str) -> Option<DType> {
    DTYPES.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

/// A `dtype=` argument: a numpy dtype, its name, Python's `float`/`int`/`bool`, or a torch dtype.
pub(crate) fn dtype_of(v: &Value) -> Result<DType> {
    match v {
        Value::NpDType(d) | Value::DType(d) => Ok(*d),
        Value::Str(s) => match dtype_named(s) {
            Some(d) => Ok(d),
            None => bail!(Type, "data type '{s}' not understood"),
        },
        Value::Builtin("float") => Ok(DType::Float64),
        Value::Builtin("int") => Ok(DType::Int64),
        Value::Builtin("bool") => Ok(DType::Bool),
        other => bail!(Type, "Cannot interpret '{}' as a data type", other.type_name()),
    }
}

pub(crate) fn opt_dtype(args: &mut Args, i: usize) -> Result<Option<DType>> {
    match args.opt(i, "dtype") {
        None | Some(Value::None) => Ok(None),
        Some(v) => dtype_of(&v).map(Some),
    }
}

/// The numpy dtype of nested Python data: float64 if any float, else int64, else bool.
pub(crate) fn inferred(v: &Value) -> DType {
    fn walk(v: &Value, found: &mut DType) {
        match v {
            Value::Scalar(Scalar::Float(_)) => *found = DType::Float64,
            Value::Scalar(Scalar::Int(_)) if *found == DType::Bool => *found = DType::Int64,
            Value::Array(t) | Value::Tensor(t) => *found = promote(*found, t.dtype()),
            v => {
                if let Some(items) = v.items() {
                    items.iter().for_each(|x| walk(x, found));
                }
            }
        }
    }
    let mut found = DType::Bool;
    walk(v, &mut found);
    found
}

/// numpy's promotion of two array dtypes (`np.result_type`).
pub(crate) fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    let rank = |d: DType| match d {
        Bool => 0,
        UInt8 | Int8 => 1,
        Int16 | Float16 => 2,
        Int32 | Float32 => 3,
        _ => 4,
    };
    match (a.is_float(), b.is_float()) {
        (true, true) => {
            if rank(a) >= rank(b) {
                a
            } else {
                b
            }
        }
        (false, false) => {
            if a == Bool {
                return b;
            }
            if b == Bool {
                return a;
            }
            let signed = |d: DType| d != UInt8;
            match (signed(a), signed(b)) {
                (true, true) => {
                    if rank(a) >= rank(b) {
                        a
                    } else {
                        b
                    }
                }
                // uint8 with a signed int: the next signed width that holds both.
                _ => {
                    let other = if a == UInt8 { b } else { a };
                    if other == Int8 {
                        Int16
                    } else {
                        other
                    }
                }
            }
        }
        (af, _) => {
            let (f, i) = if af { (a, b) } else { (b, a) };
            // The float must hold every value of the int.
            match (f, i) {
                (_, Bool) => f,
                (Float16, UInt8 | Int8) => Float16,
                (Float16 | Float32, Int16) | (Float32, UInt8 | Int8) => Float32,
                _ => Float64,
            }
        }
    }
}

/// A value as an array operand: arrays as they are, Python data as a new array.
pub(crate) fn operand_array(run: &mut RunContext, v: Value) -> Result<Tensor> {
    match v {
        Value::Array(t) => Ok(t),
        other => new_array(run, other, None),
    }
}

/// `np.array(data, dtype)`: a new array with its own storage.
pub(crate) fn new_array(run: &mut RunContext, data: Value, dtype: Option<DType>) -> Result<Tensor> {
    let t = match data {
        Value::Array(t) => run.engine.copy(&t)?,
        Value::Tensor(t) => {
            refuse_grad(run, &t)?;
            run.engine.copy(&t)?
        }
        other => {
            let d = dtype.unwrap_or_else(|| inferred(&other));
            let data = flatten_arrays(run, other)?;
            let nested = library::tensor_from_nested(run.engine, &data, Some(d))?;
            return Ok(nested);
        }
    };
    match dtype {
        Some(d) if d != t.dtype() => run.engine.cast(&t, d),
        _ => Ok(t),
    }
}

/// Arrays inside a list, as nested lists of their values (`np.array([a, b])`).
fn flatten_arrays(run: &mut RunContext, v: Value) -> Result<Value> {
    match v {
        Value::Array(t) | Value::Tensor(t) => run.method(t, "tolist", Args::new("tolist", Vec::new(), Vec::new())),
        Value::List(l) => {
            let items = l.items();
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(flatten_arrays(run, x)?);
            }
            Ok(Value::list(out))
        }
        Value::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(flatten_arrays(run, x)?);
            }
            Ok(Value::Tuple(out))
        }
        other => Ok(other),
    }
}

pub(crate) fn refuse_grad(run: &mut RunContext, t: &Tensor) -> Result<()> {
    if run.engine.autograd().requires_grad(t) {
        bail!(Autograd, "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
    }
    Ok(())
}

/// `t.numpy()`: an array over the tensor's storage, with a version counter of its own.
pub fn from_tensor(run: &mut RunContext, t: &Tensor, args: Args) -> Result<Value> {
    let mut args = args;
    let _ = args.kw_only("force");
    args.finish()?;
    refuse_grad(run, t)?;
    if t.dtype() == DType::BFloat16 {
        bail!(Type, "Got unsupported ScalarType BFloat16");
    }
    Ok(array(run.engine.data_alias(t)?))
}

/// `torch.from_numpy(a)` / `torch.as_tensor(a)`: a tensor over the array's storage.
pub fn to_tensor(run: &mut RunContext, name: &str, v: &Value) -> Result<Option<Tensor>> {
    match v {
        Value::Array(t) => Ok(Some(run.engine.data_alias(t)?)),
        _ if name == "from_numpy" => bail!(Type, "expected np.ndarray (got {})", v.type_name()),
        _ => Ok(None),
    }
}

/// A Python number of a 0-d result (numpy's scalar).
fn scalar(run: &mut RunContext, t: &Tensor) -> Result<Value> {
    let data = run.engine.values(t)?;
    Ok(Value::Scalar(data.get_scalar(0)))
}

/// A result as numpy gives it: an array, or a Python number for a 0-d one (a float32 number
/// as the float closest to its shortest digits, which is how numpy prints it).
pub(crate) fn result(run: &mut RunContext, t: Tensor) -> Result<Value> {
    if !t.shape().is_empty() {
        return Ok(array(t));
    }
    let v = scalar(run, &t)?;
    Ok(match (v, t.dtype()) {
        (Value::Scalar(Scalar::Float(x)), DType::Float32 | DType::Float16) => {
            Value::Scalar(Scalar::Float(format!("{}", x as f32).parse().unwrap_or(x)))
        }
        (v, _) => v,
    })
}

/// numpy's result dtype of `a op b` (`weak`: which side is a Python number).
pub(crate) fn result_dtype(a: &Value, b: &Value) -> DType {
    let of = |v: &Value| match v {
        Value::Array(t) => Some(t.dtype()),
        _ => None,
    };
    let kind = |v: &Value| match v {
        Value::Scalar(Scalar::Float(_)) => 2,
        Value::Scalar(Scalar::Int(_)) => 1,
        _ => 0,
    };
    match (of(a), of(b)) {
        (Some(x), Some(y)) => promote(x, y),
        (Some(x), None) | (None, Some(x)) => {
            let k = kind(if of(a).is_some() { b } else { a });
            match (k, x) {
                (2, d) if !d.is_float() => DType::Float64,
                (1, DType::Bool) => DType::Int64,
                (_, d) => d,
            }
        }
        (None, None) => DType::Float64,
    }
}

/// `a op b` where one side is an array and neither a tensor (the operators make that torch's).
pub fn binary(run: &mut RunContext, op: BinOp, a: Value, b: Value) -> Result<Value> {
    let mut dtype = result_dtype(&a, &b);
    if op == BinOp::Div && !dtype.is_float() {
        dtype = DType::Float64;
    }
    let x = cast_operand(run, a, dtype)?;
    let y = cast_operand(run, b, dtype)?;
    if op == BinOp::MatMul {
        let (Operand::Tensor(x), Operand::Tensor(y)) = (x, y) else {
            bail!(Value, "matmul: Input operand does not have enough dimensions");
        };
        let out = run.engine.matmul(&x, &y)?;
        return result(run, out);
    }
    if op == BinOp::Pow && !dtype.is_float() {
        if let Operand::Scalar(Scalar::Int(e)) = y {
            if e < 0 {
                bail!(Value, "Integers to negative integer powers are not allowed.");
            }
        }
    }
    let Some((bop, order)) = elementwise::python_operator(op) else {
        bail!(Type, "unsupported operand type(s) for {}: 'numpy.ndarray'", op.symbol());
    };
    let (x, y) = match order {
        crate::uop::alu::Operands::InOrder => (x, y),
        crate::uop::alu::Operands::Swapped => (y, x),
    };
    let out = elementwise::binary(run, bop, &x, &y)?;
    result(run, out)
}

/// An array operand in the result's dtype; a Python number stays a number.
pub(crate) fn cast_operand(run: &mut RunContext, v: Value, dtype: DType) -> Result<Operand> {
    Ok(match v {
        Value::Scalar(s) => Operand::Scalar(s),
        other => {
            let t = operand_array(run, other)?;
            Operand::Tensor(if t.dtype() == dtype { t } else { run.engine.cast(&t, dtype)? })
        }
    })
}

/// `-a`, `~a`, `+a`.
pub fn unary(run: &mut RunContext, op: AstUnary, t: Tensor) -> Result<Value> {
    let out = match op {
        AstUnary::Pos => run.engine.copy(&t)?,
        AstUnary::Neg => run.engine.unary(UnaryOp::Neg, &t)?,
        AstUnary::Invert => run.engine.unary(UnaryOp::Not, &t)?,
        AstUnary::Not => bail!(Type, "bad operand type for unary not"),
    };
    Ok(array(out))
}

/// `a op= b`: numpy's ufunc with `out=a` (the result cast back under 'same_kind').
pub fn inplace(run: &mut RunContext, t: &Tensor, op: BinOp, rhs: Value) -> Result<Value> {
    let out = binary(run, op, Value::Array(t.clone()), rhs)?;
    let out = operand_array(run, out)?;
    if out.dtype().is_float() && !t.dtype().is_float() {
        let name = match op {
            BinOp::Add => "add",
            BinOp::Sub => "subtract",
            BinOp::Mul => "multiply",
            BinOp::Div => "divide",
            _ => "operation",
        };
        bail!(
            Type,
            "Cannot cast ufunc '{name}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            out.dtype().name(),
            t.dtype().name()
        );
    }
    let out = if out.dtype() == t.dtype() { out } else { run.engine.cast(&out, t.dtype())? };
    write_value(run, t, &out, &[], OverlapRules::ALL)?;
    Ok(Value::Array(t.clone()))
}

/// `a[items]`: basic indexing a view, advanced indexing a copy, every axis indexed a number.
/// Index arrays as the tensors they are over.
fn index_items(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .map(|v| match v {
            Value::Array(t) => Value::Tensor(t.clone()),
            other => other.clone(),
        })
        .collect()
}

pub fn getitem(run: &mut RunContext, t: &Tensor, items: &[Value]) -> Result<Value> {
    let items = &index_items(items);
    let v = subscript::getitem(run, &Value::Tensor(t.clone()), items)?;
    let mut out = tensor_arg(v, "index")?;
    if let Some(axes) = new_axes(items, t.shape().len()) {
        // numpy's new axes step by 0 bytes.
        let size: Vec<i64> = out.shape().iter().map(|&n| n as i64).collect();
        let mut stride = out.layout().strides().to_vec();
        for a in axes {
            stride[a] = 0;
        }
        let offset = out.layout().offset();
        out = run.engine.as_strided(&out, &size, &stride, Some(offset))?;
    }
    result(run, out)
}

/// Where basic indexing puts its new axes (`None`) in the result; `None` when there are none or
/// the index is advanced.
fn new_axes(items: &[Value], ndim: usize) -> Option<Vec<usize>> {
    let basic = items
        .iter()
        .all(|v| matches!(v, Value::None | Value::Ellipsis | Value::Slice(..) | Value::Scalar(Scalar::Int(_))));
    if !basic || !items.iter().any(|v| matches!(v, Value::None)) {
        return None;
    }
    let consumed = items.iter().filter(|v| matches!(v, Value::Slice(..) | Value::Scalar(_))).count();
    let mut axes = Vec::new();
    let mut at = 0;
    for v in items {
        match v {
            Value::None => {
                axes.push(at);
                at += 1;
            }
            Value::Slice(..) => at += 1,
            Value::Ellipsis => at += ndim.saturating_sub(consumed),
            _ => {}
        }
    }
    Some(axes)
}

/// `a[items] = value`, cast to the array's dtype.
pub fn setitem(run: &mut RunContext, t: &Tensor, items: &[Value], value: Value) -> Result<()> {
    let items = &index_items(items);
    let value = match value {
        Value::Array(v) => Value::Tensor(if v.dtype() == t.dtype() { v } else { run.engine.cast(&v, t.dtype())? }),
        v @ (Value::List(_) | Value::Tuple(_)) => Value::Tensor(new_array(run, v, Some(t.dtype()))?),
        other => other,
    };
    subscript::setitem(run, &Value::Tensor(t.clone()), items, value)
}

/// An array's attributes.
pub fn attr(run: &mut RunContext, t: &Tensor, name: &str) -> Result<Value> {
    let int = |n: usize| Value::Scalar(Scalar::Int(n as i64));
    let item = t.dtype().itemsize();
    Ok(match name {
        "shape" => Value::Tuple(t.shape().iter().map(|&n| int(n)).collect()),
        "dtype" => Value::NpDType(t.dtype()),
        "ndim" => int(t.shape().len()),
        "size" => int(t.numel()),
        "itemsize" => int(item),
        "nbytes" => int(t.numel() * item),
        "strides" => {
            Value::Tuple(t.layout().strides().iter().map(|&s| Value::Scalar(Scalar::Int(s * item as i64))).collect())
        }
        "T" => {
            let dims: Vec<i64> = (0..t.shape().len() as i64).rev().collect();
            array(run.engine.permute(t, &dims)?)
        }
        _ => bail!(Type, "'numpy.ndarray' object has no attribute '{name}'"),
    })
}

/// Whether `torch.<name>(args)` takes numpy's memory: `from_numpy`, `as_tensor`, and
/// `torch.tensor` of an array.
pub fn is_from_data(name: &str, first: Option<&Value>) -> bool {
    matches!(name, "from_numpy" | "as_tensor") || (name == "tensor" && matches!(first, Some(Value::Array(_))))
}

/// `torch.from_numpy(a)` and `torch.as_tensor(data)` (over the array's or tensor's memory
/// where the dtype allows), and `torch.tensor(a)` of an array (a copy).
pub fn from_data(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let data = args.req(0, if name == "from_numpy" { "ndarray" } else { "data" })?;
    let dtype = if name == "from_numpy" { None } else { args.dtype()? };
    args.finish()?;
    let shared = match &data {
        Value::Tensor(t) if name == "as_tensor" => Some(t.clone()),
        _ => to_tensor(run, name, &data)?,
    };
    let Some(t) = shared else {
        return Ok(Value::Tensor(library::tensor_from_nested(run.engine, &data, dtype)?));
    };
    let t = if name == "tensor" { run.engine.copy(&t)? } else { t };
    Ok(Value::Tensor(match dtype {
        Some(d) if d != t.dtype() => run.engine.cast(&t, d)?,
        _ => t,
    }))
}
