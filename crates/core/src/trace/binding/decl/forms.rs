//! Declared ops that are other ops under another form: the `*_copy` functions (a view op's
//! result copied into a new contiguous tensor), the reflected operators (`x.__radd__(y)` is
//! `y + x`), the identities of real tensors (`conj`, `conj_physical`, `resolve_conj`,
//! `resolve_neg`), the
//! `unsafe_` splits, `rsub`, `fill`, `zero_`, `scalar_tensor`.

use super::util::*;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::torch::format::MemoryFormat;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// The arguments after the input, as the view op takes them.
fn rest(b: &Bound) -> Vec<Value> {
    match b.value("args").seq() {
        Value::Tuple(items) => items,
        Value::None => Vec::new(),
        other => vec![other],
    }
}

/// A new contiguous tensor with `v`'s values (each tensor of a tuple).
fn copied(run: &mut RunContext, v: Value) -> Result<Value> {
    Ok(match v {
        Value::Tensor(t) => Value::Tensor(op(
            run,
            "clone",
            vec![Value::Tensor(t)],
            vec![("memory_format", Value::Format(MemoryFormat::Contiguous))],
        )?),
        Value::Tuple(items) => Value::Tuple(items.into_iter().map(|x| copied(run, x)).collect::<Result<_>>()?),
        Value::List(l) => Value::list(l.items().into_iter().map(|x| copied(run, x)).collect::<Result<_>>()?),
        other => other,
    })
}

/// `torch.X_copy(input, ...)`: `input.X(...)`, copied.
pub fn view_copy(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let Some(base) = b.func().strip_suffix("_copy") else { bail!(Type, "{}() is not a copy form", b.func()) };
    let base = if base == "alias" { "view_as" } else { base };
    let mut pos = rest(b);
    if base == "view_as" {
        pos = vec![Value::Tensor(x.clone())];
    }
    let kw = match b.value("kwargs") {
        Value::Dict(kw) => {
            kw.str_entries().map_err(|_| crate::error::Error::Type("keywords must be strings".into()))?
        }
        _ => Vec::new(),
    };
    let v = run.method(x, base, Args::new(base, pos, kw))?;
    copied(run, v)
}

/// `torch.unsafe_chunk`/`unsafe_split`: `chunk`/`split` (the views PyTorch does not track).
pub fn unsafe_split(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let base = b.func().trim_start_matches("unsafe_").to_string();
    run.method(x, &base, Args::new(&base, rest(b), Vec::new()))
}

/// `x.__rop__(y)`: `op(y, x)`.
pub fn reflected(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let name = match b.func() {
        "__radd__" => "add",
        "__rsub__" => "sub",
        "__rmul__" => "mul",
        "__rdiv__" | "__rtruediv__" => "div",
        "__rfloordiv__" => "floor_divide",
        "__rmod__" => "remainder",
        "__rpow__" => "pow",
        "__rmatmul__" => "matmul",
        "__rand__" => "bitwise_and",
        "__ror__" => "bitwise_or",
        "__rxor__" => "bitwise_xor",
        other => bail!(Type, "{other}() is not a reflected operator"),
    };
    let other = b.value("other");
    if name == "matmul" {
        let Value::Tensor(o) = other else { bail!(Type, "matmul(): argument 'other' must be Tensor") };
        return v(run.engine.matmul(&o, &x)?);
    }
    run.function(name, Args::new(name, vec![other, Value::Tensor(x)], Vec::new()))
}

/// `torch.rsub(input, other, alpha=1)`: `other - alpha * input`.
pub fn rsub(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let kw = match b.scalar("alpha") {
        Some(a) => vec![("alpha".to_string(), Value::Scalar(a))],
        None => Vec::new(),
    };
    run.function("sub", Args::new("sub", vec![b.value("other"), Value::Tensor(x)], kw))
}

/// The identities of a real tensor: `conj` (a view of itself for real dtypes, which PyTorch
/// returns as the tensor itself), `resolve_conj`, `resolve_neg`.
pub fn itself(_run: &mut RunContext, b: &Bound) -> Out {
    Ok(Value::Tensor(b.tensor("input")?))
}

/// `torch.fill(input, value)`: a new tensor like `input`, full of `value`.
pub fn fill(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let value = match b.value("value") {
        Value::Scalar(s) => s,
        Value::Tensor(t) if t.shape().is_empty() => run.engine.values(&t)?.get_scalar(0),
        other => bail!(Type, "fill(): argument 'value' must be Number, not {}", other.type_name()),
    };
    v(run.engine.full_like_as(&x, value, x.dtype(), MemoryFormat::Preserve)?)
}

/// `torch.zero_(input)`: `input.zero_()`.
pub fn zero_(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    run.method(x, "zero_", Args::new("zero_", Vec::new(), Vec::new()))
}

/// `torch.scalar_tensor(s, dtype=float32)`: a 0-d tensor.
pub fn scalar_tensor(run: &mut RunContext, b: &Bound) -> Out {
    let s = b.scalar("s").unwrap_or(Scalar::Int(0));
    let dtype = b.dtype("dtype").unwrap_or(DType::Float32);
    v(run.engine.full(&[], s, Some(dtype))?)
}
