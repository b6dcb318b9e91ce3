//! PyTorch's reductions by name (`sum`, `mean`, `prod`, `amax`, `max`/`min` with their
//! indices, `argmax`, `any`/`all`, `logsumexp`, `var`/`std`, the vector norms): argument
//! binding over the engine's reduces.

use crate::autograd::Spread;
use crate::dtype::DType;
use crate::engine::reduce::{ArgExtreme, KeepDim};
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp};

/// The methods this file binds (`x.sum()`; `torch.sum(x)` mirrors them).
pub(in crate::trace) const METHODS: &[&str] = &[
    "sum",
    "mean",
    "amax",
    "amin",
    "logsumexp",
    "any",
    "all",
    "prod",
    "max",
    "min",
    "argmax",
    "argmin",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "norm",
    "linalg.vector_norm",
    "linalg.norm",
];

pub fn is_method(name: &str) -> bool {
    METHODS.contains(&name)
}

pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let tensor = |x: Tensor| Ok(Value::Tensor(x));
    match name {
        "sum" | "mean" | "amax" | "amin" | "logsumexp" => {
            let dims = args.dims(0, "dim")?;
            let keepdim = KeepDim::from(args.bool_or(1, "keepdim", false)?);
            let want = args.dtype()?;
            let t = cast_to(run, t, want)?;
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
            tensor(cast_to(run, out, want)?)
        }
        "any" | "all" => {
            // any/all are the max/min of the truth values; the result is bool.
            let dims = args.dims(0, "dim")?;
            let keepdim = KeepDim::from(args.bool_or(1, "keepdim", false)?);
            args.finish()?;
            let axes = reduce_axes(t.shape().len(), dims.as_deref())?;
            let b = run.engine.cast(&t, DType::Bool)?;
            let op = if name == "any" { ReduceOp::Max } else { ReduceOp::Min };
            if t.numel() == 0 {
                // Of nothing, any is false and all is true (max/min of nothing are refused).
                let shape: Vec<usize> = crate::engine::reduce::reduced_shape(t.shape(), &axes, keepdim);
                return tensor(run.engine.full(&shape, Scalar::Bool(name == "all"), Some(DType::Bool))?);
            }
            tensor(run.engine.reduce(op, &b, &axes, keepdim)?)
        }
        "prod" => {
            // One dim or none (PyTorch's prod takes no tuple of dims).
            let dim = args.opt_int(0, "dim")?;
            let keepdim = KeepDim::from(args.bool_or(1, "keepdim", false)?);
            let want = args.dtype()?;
            let t = cast_to(run, t, want)?;
            args.finish()?;
            let axes = match dim {
                Some(d) => reduce_axes(t.shape().len(), Some(&[d]))?,
                None => reduce_axes(t.shape().len(), None)?,
            };
            let keepdim = if dim.is_some() { keepdim } else { KeepDim::Drop };
            let out = run.engine.reduce(ReduceOp::Prod, &t, &axes, keepdim)?;
            tensor(cast_to(run, out, want)?)
        }
        "max" | "min" => {
            let first = args.opt(0, "dim");
            let keepdim = KeepDim::from(args.bool_or(1, "keepdim", false)?);
            args.finish()?;
            let op = if name == "max" { ReduceOp::Max } else { ReduceOp::Min };
            match first {
                None => {
                    if t.numel() == 0 {
                        bail!(Shape, "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
                    }
                    let axes: Vec<usize> = (0..t.shape().len()).collect();
                    tensor(run.engine.reduce(op, &t, &axes, KeepDim::Drop)?)
                }
                Some(Value::Tensor(other)) => {
                    let bop = if name == "max" { BinaryOp::Max } else { BinaryOp::Min };
                    tensor(run.engine.binary(bop, &Operand::Tensor(t), &Operand::Tensor(other))?)
                }
                Some(d) => {
                    let d = wrap_dim(d.as_int("dim")?, t.shape().len())?;
                    let extreme = if name == "max" { ArgExtreme::Max } else { ArgExtreme::Min };
                    let (values, indices) = run.engine.extreme_along(&t, d, keepdim, extreme)?;
                    Ok(Value::named(name, vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(indices))]))
                }
            }
        }
        "argmax" | "argmin" => {
            let dim = args.opt_int(0, "dim")?;
            let keepdim = KeepDim::from(args.bool_or(1, "keepdim", false)?);
            args.finish()?;
            let extreme = if name == "argmax" { ArgExtreme::Max } else { ArgExtreme::Min };
            match dim {
                Some(d) => {
                    let d = wrap_dim(d, t.shape().len())?;
                    tensor(run.engine.arg_reduce(&t, d, keepdim, extreme)?)
                }
                None => {
                    if t.numel() == 0 {
                        bail!(Shape, "{name}(): Expected reduction dim to be specified for input.numel() == 0.");
                    }
                    let flat = run.engine.reshape(&t, &[-1])?;
                    tensor(run.engine.arg_reduce(&flat, 0, KeepDim::Drop, extreme)?)
                }
            }
        }
        "var" | "std" | "var_mean" | "std_mean" => spread(run, t, name, args),
        "norm" | "linalg.vector_norm" | "linalg.norm" => norm(run, t, name, args),
        _ => Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    }
}

/// `var`, `std`, `var_mean`, `std_mean`: `(dim=None, *, correction=1, keepdim=False)`, the
/// older `(dim, unbiased=True, keepdim=False)` and `(unbiased)`.
fn spread(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let flag = |v: Value, what: &str| match v {
        Value::Scalar(Scalar::Bool(b)) => Ok(b),
        other => bail!(Type, "{name}(): argument '{what}' must be bool, not {}", other.type_name()),
    };
    let (dims, unbiased) = if matches!(args.peek(0), Some(Value::Scalar(Scalar::Bool(_)))) {
        (None, args.opt(0, "unbiased").map(|v| flag(v, "unbiased")).transpose()?)
    } else {
        let dims = args.dims(0, "dim")?;
        (dims, args.opt(1, "unbiased").filter(|v| !matches!(v, Value::None)).map(|v| flag(v, "unbiased")).transpose()?)
    };
    let keepdim = KeepDim::from(args.bool_or(2, "keepdim", false)?);
    let correction = match args.kw_only("correction") {
        None | Some(Value::None) => None,
        Some(v) => Some(v.as_scalar("correction")?.as_f64()),
    };
    args.finish()?;
    let correction = match (unbiased, correction) {
        (Some(_), Some(_)) => bail!(
            Type,
            "{name}() received an invalid combination of arguments: `unbiased` and `correction` cannot both be given"
        ),
        (Some(u), None) => f64::from(u8::from(u)),
        (None, Some(c)) => c,
        (None, None) => 1.0,
    };
    let axes = reduce_axes(t.shape().len(), dims.as_deref())?;
    let which = if name.starts_with("var") { Spread::Var } else { Spread::Std };
    let out = run.engine.spread(&t, &axes, correction, keepdim, which)?;
    if !name.ends_with("_mean") {
        return Ok(Value::Tensor(out));
    }
    let mean = run.engine.mean(&t, &axes, keepdim)?;
    // PyTorch computes both in one node (`VarMeanBackward0`), an output each.
    let node = if which == Spread::Var { "VarMeanBackward0" } else { "StdMeanBackward0" };
    run.engine.rename_grad_fn(&out, node);
    run.engine.rename_grad_fn(&mean, node);
    run.engine.group_as_one_node(&[&out, &mean], &[&t]);
    Ok(Value::Tuple(vec![Value::Tensor(out), Value::Tensor(mean)]))
}

/// `t.norm(p="fro", dim=None, keepdim=False, dtype=None)` (what `torch.norm` turns into:
/// a vector norm of order `p`), `torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False,
/// *, dtype=None)` and `torch.linalg.norm`'s vector norms.
fn norm(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let ord_name = if name == "norm" { "p" } else { "ord" };
    let ord = args.opt(0, ord_name);
    let dims = args.dims(1, "dim")?;
    let keepdim = KeepDim::from(args.bool_or(2, "keepdim", false)?);
    let want = args.dtype()?;
    args.finish()?;
    let ndim = t.shape().len();
    let matrix = |what: &str| -> Result<Value> {
        bail!(Unsupported, "{name}(): matrix norms ({what}) are not supported; vector norms are")
    };
    let ord = match ord {
        None | Some(Value::None) => 2.0,
        Some(Value::Str(s)) if name != "linalg.vector_norm" => {
            let over = dims.as_ref().map_or(ndim, Vec::len);
            match s.as_str() {
                // The Frobenius norm is the 2-norm of the matrix's elements.
                "fro" if name == "norm" && over <= 2 => 2.0,
                "fro" if name == "linalg.norm" && over == 2 => 2.0,
                "fro" | "nuc" => return matrix(&format!("ord='{s}'")),
                other => bail!(Value, "linalg.matrix_norm: Order {other} not supported."),
            }
        }
        Some(v) => {
            let p = v.as_scalar(ord_name)?.as_f64();
            if name == "linalg.norm" {
                let over = dims.as_ref().map_or(ndim, Vec::len);
                if dims.is_none() && ndim != 1 && ndim != 2 {
                    bail!(
                        Value,
                        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {ndim}D."
                    );
                }
                if over == 2 {
                    return matrix(&format!("ord={p}"));
                }
            }
            p
        }
    };
    let t = cast_to(run, t, want)?;
    let axes = reduce_axes(ndim, dims.as_deref())?;
    Ok(Value::Tensor(run.engine.vector_norm(&t, ord, &axes, keepdim)?))
}

pub(crate) fn reduce_axes(ndim: usize, dims: Option<&[i64]>) -> Result<Vec<usize>> {
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

/// A reduction's `dtype=`: PyTorch casts the input before reducing and the result is that dtype
/// (integers accumulate in int64 here, which wraps the same), so both ends go through this.
fn cast_to(run: &mut RunContext, t: Tensor, dtype: Option<DType>) -> Result<Tensor> {
    match dtype {
        Some(d) if d != t.dtype() => run.engine.cast(&t, d),
        _ => Ok(t),
    }
}
