//! PyTorch's reductions by name (`sum`, `mean`, `prod`, `amax`, `max`/`min` with their
//! indices, `argmax`, `any`/`all`, `logsumexp`): argument binding over the engine's reduces.

use super::context::RunContext;
use super::value::{Args, Value};
use crate::dtype::DType;
use crate::engine::reduce::{ArgExtreme, KeepDim};
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp};

/// The methods this file binds (`x.sum()`; `torch.sum(x)` mirrors them).
pub(super) const METHODS: &[&str] =
    &["sum", "mean", "amax", "amin", "logsumexp", "any", "all", "prod", "max", "min", "argmax", "argmin"];

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
                    let axes: Vec<usize> = if t.shape().is_empty() { vec![] } else { vec![d] };
                    let values = run.engine.reduce(op, &t, &axes, keepdim)?;
                    let indices = if t.shape().is_empty() {
                        run.engine.full(&[], Scalar::Int(0), Some(DType::Int64))?
                    } else {
                        let extreme = if name == "max" { ArgExtreme::Max } else { ArgExtreme::Min };
                        run.engine.arg_reduce(&t, d, keepdim, extreme)?
                    };
                    Ok(Value::Named(vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(indices))]))
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
                    let flat = run.engine.reshape(&t, &[-1])?;
                    tensor(run.engine.arg_reduce(&flat, 0, KeepDim::Drop, extreme)?)
                }
            }
        }
        _ => Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    }
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
