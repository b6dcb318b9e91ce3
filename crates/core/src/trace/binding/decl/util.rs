//! What every handler of the declared ops shares. The handlers (`pointwise`, `reduce`,
//! `nn`, `shape`): each is PyTorch's definition of the op written over the
//! engine's typed API (or over torch ops the library already binds, called by name with
//! [`op`], as PyTorch's composite ops call other ops). Arguments arrive bound and typed.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

pub(super) type Out = Result<Value>;

pub(super) fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

pub(super) fn f(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

pub(super) fn v(x: Tensor) -> Out {
    Ok(Value::Tensor(x))
}

pub(super) fn tv(x: &Tensor) -> Value {
    Value::Tensor(x.clone())
}

pub(super) fn int(x: i64) -> Value {
    Value::Scalar(Scalar::Int(x))
}

/// A torch op the library binds, called by name (`op(run, "sum", ...)`).
pub(super) fn op(run: &mut RunContext, name: &str, pos: Vec<Value>, kw: Vec<(&str, Value)>) -> Result<Tensor> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    match run.function(name, Args::new(name, pos, kw))? {
        Value::Tensor(x) => Ok(x),
        other => bail!(Type, "{name}() returned {}, not a Tensor", other.type_name()),
    }
}

pub(super) fn bin(run: &mut RunContext, o: BinaryOp, a: &Operand, b: &Operand) -> Result<Tensor> {
    run.engine.binary(o, a, b)
}

pub(super) fn un(run: &mut RunContext, o: UnaryOp, a: &Tensor) -> Result<Tensor> {
    run.engine.unary(o, a)
}

/// `x` with its version counter moved `n` times: a fresh result PyTorch's implementation
/// finished with in-place ops (`isclose`'s `close |= ...`), which its version shows.
pub(super) fn bumped(run: &mut RunContext, x: Tensor, n: usize) -> Result<Tensor> {
    let mut x = x;
    for _ in 0..n {
        x = run.engine.bump_version(&x)?;
    }
    Ok(x)
}

pub(super) fn float_only(x: &Tensor, name: &str) -> Result<()> {
    if !x.dtype().is_float() {
        bail!(DType, "\"{name}\" not implemented for '{}'", x.dtype().torch_name());
    }
    Ok(())
}

/// `x` in a float dtype: integers and bool compute in float32, as PyTorch's float ops do.
pub(super) fn floated(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_float() {
        Ok(x.clone())
    } else {
        run.engine.cast(x, DType::Float32)
    }
}

/// A loss's `reduction=`: `mean`, `sum` or `none`.
pub(super) fn reduced(run: &mut RunContext, b: &Bound, x: Tensor) -> Out {
    match b.str("reduction").as_deref() {
        Some("mean") => v(op(run, "mean", vec![tv(&x)], vec![])?),
        Some("sum") => v(op(run, "sum", vec![tv(&x)], vec![])?),
        Some("none") => v(x),
        Some(other) => bail!(Value, "{other} is not a valid value for reduction"),
        None => bail!(Type, "{}(): argument 'reduction' must be str", b.func()),
    }
}

/// A loss's `input` (float) and `target`.
pub(super) fn loss_operands(_run: &mut RunContext, b: &Bound) -> Result<(Tensor, Tensor)> {
    let x = b.tensor("input")?;
    let y = b.tensor("target")?;
    float_only(&x, b.func())?;
    Ok((x, y))
}
