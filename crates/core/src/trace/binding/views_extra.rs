//! PyTorch's wider view surface in the trace language: the multi-output views (`split`,
//! `chunk`, `unbind`, `tensor_split`, `hsplit`/`vsplit`/`dsplit`, `broadcast_tensors`,
//! `atleast_Nd`), the views PyTorch names apart (`adjoint`, `.H`, `.mH`, `.real`, `ravel`,
//! `broadcast_to`) and the functional scatter ops (`select_scatter`, `slice_scatter`,
//! `diagonal_scatter`, `as_strided_scatter`).
//!
//! Only names and argument binding live here; the ops are the engine's
//! ([`crate::engine::split`], [`crate::engine::aliases`], [`crate::engine::scatter`]).

use crate::engine::split::{Sections, SplitAxis};
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};

/// Tensor methods bound here (each also a `torch.` function taking the tensor first).
pub(in crate::trace) const METHODS: &[&str] = &[
    "split",
    "split_with_sizes",
    "chunk",
    "unbind",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "broadcast_to",
    "adjoint",
    "ravel",
    "select_scatter",
    "slice_scatter",
    "diagonal_scatter",
    "as_strided_scatter",
];

/// `torch.` functions that are no methods: they take any number of tensors.
pub(in crate::trace) const VARIADIC: &[&str] = &["broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d"];

/// Tensor attributes bound here.
pub(in crate::trace) const ATTRS: &[&str] = &["H", "mH", "real"];

/// Whether `torch.name` is bound here.
pub fn is_function(name: &str) -> bool {
    METHODS.contains(&name) || VARIADIC.contains(&name) || name == "real"
}

/// Whether `t.name(...)` is bound here.
pub fn is_method(name: &str) -> bool {
    METHODS.contains(&name)
}

/// Whether `t.name` is bound here.
pub fn is_attr(name: &str) -> bool {
    ATTRS.contains(&name)
}

fn tuple(ts: Vec<Tensor>) -> Value {
    Value::Tuple(ts.into_iter().map(Value::Tensor).collect())
}

/// `torch.name(...)`.
pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    if VARIADIC.contains(&name) {
        // `torch.atleast_2d(a, b)` or the list form `torch.atleast_2d((a, b))`.
        let (items, given) = match args.opt(0, "tensors").map(Value::seq) {
            Some(Value::Tuple(items)) => (items, Given::List),
            Some(first) => {
                let mut items = vec![first];
                while let Some(v) = args.opt(items.len(), "tensors") {
                    items.push(v);
                }
                (items, Given::Each)
            }
            None => (vec![], Given::Each),
        };
        args.finish()?;
        let what = format!("{name}(): argument 'tensors'");
        let tensors = items.into_iter().map(|v| tensor_arg(v, &what)).collect::<Result<Vec<_>>>()?;
        return variadic(run, name, &tensors, given);
    }
    let t = tensor_arg(args.req(0, "input")?, &format!("{name}(): argument 'input'"))?;
    if name == "real" {
        args.shifted().finish()?;
        return Ok(Value::Tensor(run.engine.real(&t)));
    }
    method(run, t, name, args.shifted())
}

/// How a variadic function got its tensors: as separate arguments or as one list, which decides
/// whether one tensor comes back alone or in a tuple.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Given {
    Each,
    List,
}

fn variadic(run: &mut RunContext, name: &str, tensors: &[Tensor], given: Given) -> Result<Value> {
    if name == "broadcast_tensors" {
        return Ok(tuple(run.engine.broadcast_tensors(tensors)?));
    }
    let dims = match name {
        "atleast_1d" => 1,
        "atleast_2d" => 2,
        _ => 3,
    };
    let out = tensors.iter().map(|t| run.engine.atleast(t, dims)).collect::<Result<Vec<_>>>()?;
    match out.as_slice() {
        [one] if given == Given::Each => Ok(Value::Tensor(one.clone())),
        _ => Ok(tuple(out)),
    }
}

/// `t.name` for the attributes bound here.
pub fn attr(run: &mut RunContext, t: Tensor, name: &str) -> Result<Value> {
    Ok(Value::Tensor(match name {
        "H" => run.engine.matrix_h(&t)?,
        "mH" => run.engine.adjoint(&t, "mH")?,
        _ => run.engine.real(&t),
    }))
}

/// `t.name(...)` for the methods bound here.
pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let e = &mut *run.engine;
    match name {
        "split" => {
            // `torch.split` names it `split_size_or_sections`, `Tensor.split` `split_size`.
            let size = match args.kw_only("split_size_or_sections") {
                Some(v) => v,
                None => args.req(0, "split_size")?,
            };
            let dim = args.int_or(1, "dim", 0)?;
            args.finish()?;
            Ok(tuple(match size {
                Value::Tuple(_) | Value::List(_) => e.split_with_sizes(&t, &size.as_ints("split_size")?, dim)?,
                other => e.split(&t, other.as_int("split_size")?, dim)?,
            }))
        }
        "split_with_sizes" => {
            let sizes = args.req(0, "split_sizes")?.as_ints("split_sizes")?;
            let dim = args.int_or(1, "dim", 0)?;
            args.finish()?;
            Ok(tuple(e.split_with_sizes(&t, &sizes, dim)?))
        }
        "chunk" => {
            let chunks = args.int(0, "chunks")?;
            let dim = args.int_or(1, "dim", 0)?;
            args.finish()?;
            Ok(tuple(e.chunk(&t, chunks, dim)?))
        }
        "unbind" => {
            let dim = args.int_or(0, "dim", 0)?;
            args.finish()?;
            Ok(tuple(e.unbind(&t, dim)?))
        }
        "tensor_split" => {
            let v = sections_arg(&mut args)?;
            let dim = args.int_or(1, "dim", 0)?;
            args.finish()?;
            let sections = sections(run, v, name)?;
            Ok(tuple(run.engine.tensor_split(&t, &sections, dim)?))
        }
        "hsplit" | "vsplit" | "dsplit" => {
            let v = sections_arg(&mut args)?;
            args.finish()?;
            let axis = match name {
                "hsplit" => SplitAxis::Horizontal,
                "vsplit" => SplitAxis::Vertical,
                _ => SplitAxis::Depth,
            };
            let sections = match v {
                Value::Tuple(_) | Value::List(_) => Sections::Indices(v.as_ints("indices")?),
                other => Sections::Count(other.as_int("sections")?),
            };
            Ok(tuple(e.axis_split(&t, axis, &sections)?))
        }
        "broadcast_to" => {
            let size = args.sizes(0, "size")?;
            args.finish()?;
            Ok(Value::Tensor(e.broadcast_to(&t, &size)?))
        }
        "adjoint" => {
            args.finish()?;
            Ok(Value::Tensor(e.adjoint(&t, "adjoint()")?))
        }
        "ravel" => {
            args.finish()?;
            Ok(Value::Tensor(e.ravel(&t)?))
        }
        _ => scatter(run, t, name, args),
    }
}

/// The `*_scatter` ops.
fn scatter(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let src = tensor_arg(args.req(0, "src")?, &format!("{name}(): argument 'src'"))?;
    let e = &mut *run.engine;
    let out = match name {
        "select_scatter" => {
            let dim = args.int(1, "dim")?;
            let index = args.int(2, "index")?;
            args.finish()?;
            e.select_scatter(&t, &src, dim, index)?
        }
        "slice_scatter" => {
            let dim = args.int_or(1, "dim", 0)?;
            let start = args.opt_int(2, "start")?;
            let end = args.opt_int(3, "end")?;
            let step = args.int_or(4, "step", 1)?;
            args.finish()?;
            e.slice_scatter(&t, &src, dim, start, end, step)?
        }
        "diagonal_scatter" => {
            let offset = args.int_or(1, "offset", 0)?;
            let dim1 = args.int_or(2, "dim1", 0)?;
            let dim2 = args.int_or(3, "dim2", 1)?;
            args.finish()?;
            e.diagonal_scatter(&t, &src, offset, dim1, dim2)?
        }
        _ => {
            let size = args.req(1, "size")?.as_ints("size")?;
            let stride = args.req(2, "stride")?.as_ints("stride")?;
            let offset = args.opt_int(3, "storage_offset")?;
            args.finish()?;
            e.as_strided_scatter(&t, &src, &size, &stride, offset)?
        }
    };
    Ok(Value::Tensor(out))
}

/// The sections or indices argument, positional or under any of PyTorch's keyword names.
fn sections_arg(args: &mut Args) -> Result<Value> {
    for kw in ["sections", "indices", "tensor_indices_or_sections"] {
        if let Some(v) = args.kw_only(kw) {
            return Ok(v);
        }
    }
    args.req(0, "indices_or_sections")
}

/// `tensor_split`'s second argument: an int (sections), a list of ints (indices), or a tensor
/// of PyTorch's long dtype, 0-d (sections) or 1-D (indices).
fn sections(run: &mut RunContext, v: Value, name: &str) -> Result<Sections> {
    match v {
        Value::Tuple(_) | Value::List(_) => Ok(Sections::Indices(v.as_ints("indices")?)),
        Value::Tensor(s) => {
            if s.dtype() != crate::dtype::DType::Int64 {
                bail!(
                    DType,
                    "{name} expected tensor_indices_or_sections to have dtype of long, but got {}",
                    s.dtype().torch_name()
                );
            }
            let ndim = s.shape().len();
            if ndim > 1 {
                bail!(
                    Shape,
                    "{name} expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with {ndim} dims"
                );
            }
            let data = run.engine.values(&s)?;
            let ints: Vec<i64> = (0..data.len()).map(|i| data.get_f64(i) as i64).collect();
            Ok(match (ndim, ints.as_slice()) {
                (0, [n]) => Sections::Count(*n),
                _ => Sections::Indices(ints),
            })
        }
        other => Ok(Sections::Count(other.as_int("sections")?)),
    }
}
