//! PyTorch's signatures of the copies that look like views (`repeat`, `tile`,
//! `repeat_interleave`, `roll`, `narrow_copy`, `tril`/`triu` and their in-place forms,
//! `cumsum`/`cumprod`, `fliplr`/`flipud`, `rot90`, `diag`, `diag_embed`, `eye`) and of the
//! `new_*` factories, bound to the engine's typed API.

use crate::dtype::DType;
use crate::engine::matrix::Triangle;
use crate::error::{bail, Result};
use crate::tensor::{OverlapRules, Tensor};
use crate::trace::binding::elementwise::write_value;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{sizes, Args, Value};
use crate::uop::buffer::Scalar;

/// The functions of this file callable as `torch.X(input, ...)` (the method on `input`; `eye`
/// takes no tensor).
pub const FUNCTIONS: &[&str] = &[
    "tile",
    "repeat_interleave",
    "roll",
    "narrow_copy",
    "tril",
    "triu",
    "cumsum",
    "cumprod",
    "fliplr",
    "flipud",
    "rot90",
    "diag",
    "diag_embed",
];

/// The methods of this file that are no `torch.` function (`x.X(...)` only); every name in
/// [`FUNCTIONS`] is a method too.
pub(in crate::trace) const METHODS_ONLY: &[&str] = &[
    "repeat",
    "tril_",
    "triu_",
    "cumsum_",
    "cumprod_",
    "new_zeros",
    "new_ones",
    "new_full",
    "new_empty",
    "new_empty_strided",
];

pub fn is_method(name: &str) -> bool {
    FUNCTIONS.contains(&name) || METHODS_ONLY.contains(&name)
}

/// `x.name(args)` for a name [`is_method`] accepts.
pub fn method(run: &mut RunContext, t: &Tensor, name: &str, mut args: Args) -> Result<Value> {
    let e = &mut *run.engine;
    let out = match name {
        "repeat" | "tile" => {
            let reps = args.sizes(0, if name == "repeat" { "repeats" } else { "dims" })?;
            args.finish()?;
            if name == "repeat" {
                e.repeat(t, &reps)?
            } else {
                e.tile(t, &reps)?
            }
        }
        "repeat_interleave" => {
            let repeats = args.opt(0, "repeats");
            let dim = args.opt_int(1, "dim")?;
            let output_size = args.kw_only("output_size");
            args.finish()?;
            let out = match repeats {
                // `torch.repeat_interleave(repeats)`: the indices themselves.
                None => e.repeat_interleave_index(t)?,
                Some(Value::Tensor(r)) => e.repeat_interleave_by(t, &r, dim)?,
                Some(v) => e.repeat_interleave(t, v.as_int("repeats")?, dim)?,
            };
            if let Some(size) = output_size.filter(|v| !matches!(v, Value::None)) {
                let size = size.as_int("output_size")?;
                let got = out.shape().get(dim.map_or(Ok(0), |d| crate::strided::wrap_dim(d, out.shape().len()))?);
                if got.is_some_and(|&n| n as i64 != size) {
                    bail!(Shape, "allocated size does not match required size");
                }
            }
            out
        }
        "roll" => {
            let shifts = args.req(0, "shifts")?.as_ints("shifts")?;
            let dims = args.dims(1, "dims")?.unwrap_or_default();
            args.finish()?;
            e.roll(t, &shifts, &dims)?
        }
        "narrow_copy" => {
            let dim = args.int(0, "dim")?;
            let start = args.int(1, "start")?;
            let length = args.int(2, "length")?;
            args.finish()?;
            e.narrow_copy(t, dim, start, length)?
        }
        "tril" | "triu" | "tril_" | "triu_" => {
            let diagonal = args.int_or(0, "diagonal", 0)?;
            args.finish()?;
            let which = if name.starts_with("tril") { Triangle::Lower } else { Triangle::Upper };
            let value = e.triangle(t, diagonal, which)?;
            if name.ends_with('_') {
                return Ok(Value::Tensor(write_value(run, t, &value, std::slice::from_ref(t), OverlapRules::ALL)?));
            }
            value
        }
        "cumsum" | "cumprod" | "cumsum_" | "cumprod_" => {
            let dim = args.int(0, "dim")?;
            let dtype = args.dtype()?;
            args.finish()?;
            let value = if name.starts_with("cumsum") { e.cumsum(t, dim, dtype)? } else { e.cumprod(t, dim, dtype)? };
            if name.ends_with('_') {
                return Ok(Value::Tensor(write_value(run, t, &value, std::slice::from_ref(t), OverlapRules::ALL)?));
            }
            value
        }
        "fliplr" | "flipud" => {
            args.finish()?;
            if name == "fliplr" {
                e.fliplr(t)?
            } else {
                e.flipud(t)?
            }
        }
        "rot90" => {
            let k = args.int_or(0, "k", 1)?;
            let dims = args.opt(1, "dims").map(|v| v.as_ints("dims")).transpose()?.unwrap_or_else(|| vec![0, 1]);
            args.finish()?;
            e.rot90(t, k, &dims)?
        }
        "diag" => {
            let diagonal = args.int_or(0, "diagonal", 0)?;
            args.finish()?;
            e.diag(t, diagonal)?
        }
        "diag_embed" => {
            let offset = args.int_or(0, "offset", 0)?;
            let dim1 = args.int_or(1, "dim1", -2)?;
            let dim2 = args.int_or(2, "dim2", -1)?;
            args.finish()?;
            e.diag_embed(t, offset, dim1, dim2)?
        }
        _ => return new_factory(run, t, name, args),
    };
    Ok(Value::Tensor(out))
}

/// `x.new_zeros(size)` and friends: a new row-major tensor with `x`'s dtype unless `dtype=`
/// says otherwise.
fn new_factory(run: &mut RunContext, t: &Tensor, name: &str, mut args: Args) -> Result<Value> {
    let e = &mut *run.engine;
    let out = match name {
        "new_zeros" | "new_ones" | "new_empty" => {
            let shape = sizes(args.sizes(0, "size")?)?;
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            args.finish()?;
            e.full(&shape, Scalar::Int(i64::from(name == "new_ones")), Some(dtype))?
        }
        "new_full" => {
            let shape = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let value = args.req(1, "fill_value")?.as_scalar("fill_value")?;
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            args.finish()?;
            e.full(&shape, value, Some(dtype))?
        }
        "new_empty_strided" => {
            let size = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            args.finish()?;
            e.empty_strided(dtype, &size, &stride)?
        }
        _ => return Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    };
    Ok(Value::Tensor(out))
}

/// `torch.eye(n, m=None, *, dtype=None)`.
pub fn eye(run: &mut RunContext, mut args: Args) -> Result<Value> {
    let n = args.int(0, "n")?;
    let m = args.opt_int(1, "m")?;
    let dtype: Option<DType> = args.dtype()?;
    args.finish()?;
    Ok(Value::Tensor(run.engine.eye(n, m, dtype)?))
}
