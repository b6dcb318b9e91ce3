//! numpy's functions and array methods (`np.zeros`, `np.sin`, `a.sum(axis=0)`, `a.astype`, ...),
//! each through the torch op of the same meaning in numpy's dtypes, over the array core
//! (`numpy.rs`: arrays, dtypes, promotion, operators, indexing).

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Operand, OverlapRules, Tensor};
use crate::trace::binding::elementwise::{tensor_arg, write_value};
use crate::trace::binding::numpy::{
    array, binary, cast_operand, dtype_named, dtype_of, inferred, new_array, operand_array, opt_dtype, promote,
    refuse_grad, result, result_dtype,
};
use crate::trace::lang::ast::BinOp;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// `np.<name>` as a value.
pub fn module_attr(name: &str) -> Result<Value> {
    Ok(match name {
        "pi" => Value::Scalar(Scalar::Float(std::f64::consts::PI)),
        "e" => Value::Scalar(Scalar::Float(std::f64::consts::E)),
        "inf" | "Inf" => Value::Scalar(Scalar::Float(f64::INFINITY)),
        "nan" | "NaN" => Value::Scalar(Scalar::Float(f64::NAN)),
        "newaxis" => Value::None,
        "ndarray" => Value::Type("numpy.ndarray"),
        "random" | "linalg" => bail!(Unsupported, "numpy.{name} is not supported"),
        _ => match dtype_named(name) {
            Some(d) if name != "float" && name != "int" => Value::NpDType(d),
            _ if FUNCTIONS.contains(&name) => Value::Func(format!("np.{name}")),
            _ => bail!(Unsupported, "numpy.{name} is not supported"),
        },
    })
}

/// numpy's functions the trace has (`np.<name>(...)`).
const FUNCTIONS: &[&str] = &[
    "array",
    "asarray",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "arange",
    "linspace",
    "eye",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "abs",
    "absolute",
    "floor",
    "ceil",
    "square",
    "sign",
    "isnan",
    "maximum",
    "minimum",
    "sum",
    "mean",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "prod",
    "cumsum",
    "std",
    "var",
    "dot",
    "matmul",
    "concatenate",
    "stack",
    "reshape",
    "transpose",
    "where",
    "clip",
    "allclose",
    "array_equal",
    "shares_memory",
    "may_share_memory",
    "expand_dims",
    "squeeze",
    "copy",
];

/// Float ufuncs: an integer or boolean input is read as float64 first.
const FLOAT_UFUNCS: &[&str] = &["sin", "cos", "tan", "exp", "log", "sqrt", "tanh"];

/// `np.<name>(...)`.
pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    if let Some(d) = dtype_named(name) {
        // `np.float32(1.5)`: a number of that dtype.
        let v = args.opt(0, "value").unwrap_or(Value::Scalar(Scalar::Int(0)));
        args.finish()?;
        let t = new_array(run, v, Some(d))?;
        return result(run, t);
    }
    match name {
        "array" | "asarray" | "copy" => {
            let data = args.req(0, "object")?;
            let dtype = opt_dtype(&mut args, 1)?;
            let _ = args.kw_only("copy");
            args.finish()?;
            // `np.asarray` of an array (or of a tensor, through `__array__`) shares its memory.
            if name == "asarray"
                && dtype.is_none_or(|d| matches!(&data, Value::Array(t) | Value::Tensor(t) if t.dtype() == d))
            {
                match data {
                    Value::Array(t) => return Ok(array(t)),
                    Value::Tensor(t) => {
                        refuse_grad(run, &t)?;
                        return Ok(array(run.engine.data_alias(&t)?));
                    }
                    _ => {}
                }
            }
            Ok(array(new_array(run, data, dtype)?))
        }
        "zeros" | "ones" | "empty" | "full" => {
            let shape = shape_arg(args.req(0, "shape")?)?;
            let fill = if name == "full" { Some(args.req(1, "fill_value")?) } else { None };
            let dtype = opt_dtype(&mut args, if name == "full" { 2 } else { 1 })?;
            args.finish()?;
            let (value, d) = match fill {
                Some(Value::Scalar(s)) => (s, dtype.unwrap_or(inferred(&Value::Scalar(s)))),
                Some(other) => bail!(Type, "full(): fill_value must be a number, not {}", other.type_name()),
                None => (Scalar::Int(i64::from(name == "ones")), dtype.unwrap_or(DType::Float64)),
            };
            let t = run.engine.full(&shape, value, Some(d))?;
            Ok(array(run.engine.realize(&t)?))
        }
        "zeros_like" | "ones_like" => {
            let t = operand_array(run, args.req(0, "a")?)?;
            let dtype = opt_dtype(&mut args, 1)?.unwrap_or(t.dtype());
            args.finish()?;
            let v = Scalar::Int(i64::from(name == "ones_like"));
            let out = run.engine.full(t.shape(), v, Some(dtype))?;
            Ok(array(run.engine.realize(&out)?))
        }
        "arange" => {
            let (pos, kw) = args.into_parts();
            let mut dtype = None;
            let mut rest = Vec::new();
            for (k, v) in kw {
                if k == "dtype" {
                    dtype = Some(dtype_of(&v)?);
                } else {
                    rest.push((k, v));
                }
            }
            let d = dtype.unwrap_or_else(|| inferred(&Value::Tuple(pos.clone())));
            let d = if d == DType::Bool { DType::Int64 } else { d };
            rest.push(("dtype".into(), Value::DType(d)));
            let v = run.function("arange", Args::new("arange", pos, rest))?;
            Ok(array(tensor_arg(v, "arange")?))
        }
        "linspace" => {
            let start = args.req(0, "start")?;
            let stop = args.req(1, "stop")?;
            let num = args.int_or(2, "num", 50)?;
            let endpoint = args.bool_or(3, "endpoint", true)?;
            let _ = args.opt(4, "retstep");
            let dtype = opt_dtype(&mut args, 5)?.unwrap_or(DType::Float64);
            args.finish()?;
            if !endpoint {
                bail!(Unsupported, "np.linspace(endpoint=False) is not supported");
            }
            // numpy computes in float64, then casts.
            let kw = vec![("dtype".to_string(), Value::DType(DType::Float64))];
            let v = run
                .function("linspace", Args::new("linspace", vec![start, stop, Value::Scalar(Scalar::Int(num))], kw))?;
            let t = tensor_arg(v, "linspace")?;
            Ok(array(if dtype == DType::Float64 { t } else { run.engine.cast(&t, dtype)? }))
        }
        "eye" => {
            let n = args.int(0, "N")?;
            let dtype = opt_dtype(&mut args, 3)?.unwrap_or(DType::Float64);
            args.finish()?;
            let kw = vec![("dtype".to_string(), Value::DType(dtype))];
            let v = run.function("eye", Args::new("eye", vec![Value::Scalar(Scalar::Int(n))], kw))?;
            Ok(array(tensor_arg(v, "eye")?))
        }
        "shares_memory" | "may_share_memory" => {
            let a = operand_array(run, args.req(0, "a")?)?;
            let b = operand_array(run, args.req(1, "b")?)?;
            let _ = args.kw_only("max_work");
            args.finish()?;
            Ok(Value::Scalar(Scalar::Bool(overlaps(&a, &b, name == "shares_memory"))))
        }
        "allclose" | "array_equal" => {
            let a = operand_array(run, args.req(0, "a")?)?;
            let b = operand_array(run, args.req(1, "b")?)?;
            let (pos, kw) = args.into_parts();
            let torch_name = if name == "allclose" { "allclose" } else { "equal" };
            let d = promote(a.dtype(), b.dtype());
            let a = run.engine.cast(&a, d)?;
            let b = run.engine.cast(&b, d)?;
            if name == "array_equal" && a.shape() != b.shape() {
                return Ok(Value::Scalar(Scalar::Bool(false)));
            }
            let mut all = vec![Value::Tensor(a), Value::Tensor(b)];
            all.extend(pos.into_iter().skip(2));
            run.function(torch_name, Args::new(torch_name, all, kw))
        }
        _ if is_join(name) => join(run, name, args),
        _ => reduce_or_ufunc(run, name, args),
    }
}

/// Whether two arrays' memory overlaps: `exact` asks whether some element is shared (numpy's
/// `shares_memory`), otherwise whether their extents meet (`may_share_memory`).
fn overlaps(a: &Tensor, b: &Tensor, exact: bool) -> bool {
    if a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0 {
        return false;
    }
    let bytes = |t: &Tensor| -> Vec<i64> {
        let item = t.dtype().itemsize() as i64;
        let mut out = Vec::new();
        let mut index = vec![0usize; t.shape().len()];
        loop {
            let at =
                t.layout().offset() + index.iter().zip(t.layout().strides()).map(|(&i, &s)| i as i64 * s).sum::<i64>();
            out.extend((0..item).map(|k| at * item + k));
            let mut d = index.len();
            loop {
                if d == 0 {
                    return out;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < t.shape()[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    };
    let (x, y) = (bytes(a), bytes(b));
    if !exact {
        let span = |v: &[i64]| (v.iter().min().copied().unwrap_or(0), v.iter().max().copied().unwrap_or(0));
        let ((a0, a1), (b0, b1)) = (span(&x), span(&y));
        return a0 <= b1 && b0 <= a1;
    }
    let set: std::collections::HashSet<i64> = x.into_iter().collect();
    y.iter().any(|p| set.contains(p))
}

/// A shape argument: an int or a sequence of ints.
fn shape_arg(v: Value) -> Result<Vec<usize>> {
    let dims = match v {
        Value::Scalar(Scalar::Int(n)) => vec![n],
        other => other.as_ints("shape")?,
    };
    crate::trace::python::value::sizes(dims)
}

/// Reductions (`axis=`, `keepdims=`), ufuncs and shape functions through the torch op of the
/// same meaning, in numpy's dtypes.
fn reduce_or_ufunc(run: &mut RunContext, name: &str, args: Args) -> Result<Value> {
    let (pos, kw) = args.into_parts();
    let mut pos = pos.into_iter();
    let Some(first) = pos.next() else { bail!(Type, "{name}() missing required argument 'a' (pos 1)") };
    let mut t = operand_array(run, first)?;
    let rest: Vec<Value> = pos.collect();
    array_op(run, &mut t, name, rest, kw)
}

/// `a.<name>(...)` and `np.<name>(a, ...)`, one definition for both.
fn array_op(
    run: &mut RunContext,
    t: &mut Tensor,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> Result<Value> {
    if FLOAT_UFUNCS.contains(&name) && !t.dtype().is_float() {
        *t = run.engine.cast(t, DType::Float64)?;
    }
    let mut torch_kw = Vec::with_capacity(kw.len());
    let mut ddof = None;
    for (k, v) in kw {
        match k.as_str() {
            "axis" => torch_kw.push(("dim".to_string(), v)),
            "keepdims" => torch_kw.push(("keepdim".to_string(), v)),
            "ddof" => ddof = Some(v),
            "dtype" => torch_kw.push(("dtype".to_string(), Value::DType(dtype_of(&v)?))),
            _ => torch_kw.push((k, v)),
        }
    }
    let mut pos = pos;
    let call =
        |run: &mut RunContext, torch: &str, t: Tensor, pos: Vec<Value>, kw: Vec<(String, Value)>| -> Result<Value> {
            let mut all = vec![Value::Tensor(t)];
            all.extend(pos);
            let v = run.function(torch, Args::new(torch, all, kw))?;
            match v {
                Value::Tensor(out) => result(run, out),
                Value::Named(_, fields) => match fields.into_iter().next() {
                    Some((_, Value::Tensor(out))) => result(run, out),
                    _ => bail!(Type, "{torch}() gave no array"),
                },
                other => Ok(other),
            }
        };
    match name {
        "mean" | "std" | "var" if !t.dtype().is_float() => {
            *t = run.engine.cast(t, DType::Float64)?;
        }
        _ => {}
    }
    match name {
        "sum" | "prod" if t.dtype() == DType::Bool => *t = run.engine.cast(t, DType::Int64)?,
        _ => {}
    }
    let t = t.clone();
    match name {
        "std" | "var" => {
            let correction = ddof.unwrap_or(Value::Scalar(Scalar::Int(0)));
            torch_kw.push(("correction".into(), correction));
            if !pos.is_empty() {
                torch_kw.push(("dim".into(), pos.remove(0)));
            }
            call(run, name, t, Vec::new(), torch_kw)
        }
        "sum" | "mean" | "prod" | "argmax" | "argmin" | "cumsum" => {
            if name == "cumsum" && pos.is_empty() && !torch_kw.iter().any(|(k, _)| k == "dim") {
                let flat = run.engine.reshape(&t, &[-1])?;
                return call(run, name, flat, vec![Value::Scalar(Scalar::Int(0))], torch_kw);
            }
            call(run, name, t, pos, torch_kw)
        }
        "max" | "min" | "amax" | "amin" => {
            let torch = if name.ends_with("max") { "amax" } else { "amin" };
            if pos.is_empty() && !torch_kw.iter().any(|(k, _)| k == "dim") {
                let v = run.function(torch, Args::new(torch, vec![Value::Tensor(t)], torch_kw))?;
                let out = tensor_arg(v, torch)?;
                return result(run, out);
            }
            call(run, torch, t, pos, torch_kw)
        }
        "abs" | "absolute" => call(run, "abs", t, pos, torch_kw),
        "clip" => call(run, "clamp", t, pos, torch_kw),
        "maximum" | "minimum" => {
            let other = pos.into_iter().next().unwrap_or(Value::None);
            let d = result_dtype(&Value::Array(t.clone()), &other);
            let x = run.engine.cast(&t, d)?;
            let y = match cast_operand(run, other, d)? {
                Operand::Tensor(y) => y,
                Operand::Scalar(s) => run.engine.full(&[], s, Some(d))?,
            };
            call(run, name, x, vec![Value::Tensor(y)], torch_kw)
        }
        "dot" | "matmul" => {
            let other = pos.into_iter().next().unwrap_or(Value::None);
            binary(run, BinOp::MatMul, Value::Array(t), other)
        }
        "where" => {
            let mut ops = Vec::new();
            let cond = run.engine.cast(&t, DType::Bool)?;
            let d = match (pos.first(), pos.get(1)) {
                (Some(x), Some(y)) => result_dtype(x, y),
                _ => bail!(Unsupported, "np.where(condition) is not supported; use np.nonzero"),
            };
            for v in pos {
                ops.push(match cast_operand(run, v, d)? {
                    Operand::Tensor(x) => Value::Tensor(x),
                    Operand::Scalar(s) => Value::Tensor(run.engine.full(&[], s, Some(d))?),
                });
            }
            call(run, "where", cond, ops, Vec::new())
        }
        "reshape" => {
            let dims: Vec<Value> = match pos.as_slice() {
                [Value::Tuple(_) | Value::List(_)] => pos.remove(0).into_items().unwrap_or_default(),
                _ => pos,
            };
            let v = run.method(t, "reshape", Args::new("reshape", dims, Vec::new()))?;
            Ok(array(tensor_arg(v, "reshape")?))
        }
        "transpose" => {
            let dims: Vec<i64> = match pos.as_slice() {
                [] => (0..t.shape().len() as i64).rev().collect(),
                [Value::Tuple(_) | Value::List(_)] => pos.remove(0).as_ints("axes")?,
                _ => Value::Tuple(pos).as_ints("axes")?,
            };
            Ok(array(run.engine.permute(&t, &dims)?))
        }
        "expand_dims" => call(run, "unsqueeze", t, pos, torch_kw),
        "squeeze" => call(run, "squeeze", t, pos, torch_kw),
        "copy" => Ok(array(run.engine.copy(&t)?)),
        "sin" | "cos" | "tan" | "exp" | "log" | "sqrt" | "tanh" | "floor" | "ceil" | "square" | "sign" | "isnan" => {
            call(run, name, t, pos, torch_kw)
        }
        _ => bail!(Unsupported, "numpy.{name} is not supported"),
    }
}

/// `a.<name>(...)`.
pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "copy" | "flatten" => {
            args.finish()?;
            let c = run.engine.copy(&t)?;
            Ok(array(if name == "flatten" { run.engine.reshape(&c, &[-1])? } else { c }))
        }
        "ravel" => {
            args.finish()?;
            let v = run.method(t, "reshape", Args::new("reshape", vec![Value::Scalar(Scalar::Int(-1))], Vec::new()))?;
            Ok(array(tensor_arg(v, "ravel")?))
        }
        "astype" => {
            let d = dtype_of(&args.req(0, "dtype")?)?;
            let _ = args.kw_only("copy");
            args.finish()?;
            let c = run.engine.copy(&t)?;
            Ok(array(run.engine.cast(&c, d)?))
        }
        "tolist" | "item" => run.method(t, name, args),
        "fill" => {
            let v = args.req(0, "value")?;
            args.finish()?;
            let s = v.as_scalar("value")?;
            let value = run.engine.full(&[], s, Some(t.dtype()))?;
            write_value(run, &t, &value, &[], OverlapRules::ALL)?;
            Ok(Value::None)
        }
        "view" => {
            args.finish()?;
            Ok(array(run.engine.alias(&t)?))
        }
        _ if FUNCTIONS.contains(&name) => {
            let (pos, kw) = args.into_parts();
            let mut t = t;
            array_op(run, &mut t, name, pos, kw)
        }
        _ => bail!(Type, "'numpy.ndarray' object has no attribute '{name}'"),
    }
}

/// `np.concatenate(arrays, axis=0)` and `np.stack(arrays, axis=0)`.
fn join(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let seq = args.req(0, "arrays")?;
    let axis = args.opt(1, "axis").map(|v| v.as_int("axis")).transpose()?.unwrap_or(0);
    args.finish()?;
    let items = seq.items().unwrap_or_default();
    let mut tensors = Vec::with_capacity(items.len());
    let mut d: Option<DType> = None;
    for v in items.iter().cloned() {
        let t = operand_array(run, v)?;
        d = Some(d.map_or(t.dtype(), |x| promote(x, t.dtype())));
        tensors.push(t);
    }
    let d = d.unwrap_or(DType::Float64);
    let mut cast = Vec::with_capacity(tensors.len());
    for t in tensors {
        cast.push(run.engine.cast(&t, d)?);
    }
    let out = if name == "stack" { run.engine.stack(&cast, axis)? } else { run.engine.cat(&cast, axis)? };
    Ok(array(out))
}

/// Whether `name` is `np.concatenate`/`np.stack` (a sequence first, not an array).
fn is_join(name: &str) -> bool {
    matches!(name, "concatenate" | "stack")
}
