//! The trace names of the memory-format ops, the in-place metadata ops and the metadata
//! queries (`stride()`, `nbytes`, `untyped_storage()`, `_base`, ...), over the engine's
//! [`crate::engine::meta`]. A metadata op reports the object it changed to the runner, which
//! rebinds every name bound to it.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::torch::format::MemoryFormat;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, StorageView, Value};
use crate::uop::buffer::Scalar;

/// The methods this file binds.
pub(in crate::trace) const METHODS: &[&str] = &[
    "contiguous",
    "clone",
    "to",
    "is_contiguous",
    "t_",
    "transpose_",
    "swapdims_",
    "swapaxes_",
    "squeeze_",
    "unsqueeze_",
    "as_strided_",
    "resize_",
    "resize_as_",
    "set_",
    "detach_",
    "untyped_storage",
    "storage",
    "data_ptr",
    "is_set_to",
    "_is_view",
];

pub fn is_method(name: &str) -> bool {
    METHODS.contains(&name)
}

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Sizes that must not be negative (`resize_`).
fn sizes(v: Vec<i64>) -> Result<Vec<usize>> {
    v.into_iter()
        .map(|n| match usize::try_from(n) {
            Ok(n) => Ok(n),
            Err(_) => bail!(Shape, "Trying to create tensor with negative dimension {n}: {n}"),
        })
        .collect()
}

pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let out = match name {
        "contiguous" => {
            let format = format_arg(&mut args)?;
            args.finish()?;
            return Ok(Value::Tensor(run.engine.contiguous_as(&t, format)?));
        }
        "clone" => {
            let format = args.memory_format(MemoryFormat::Preserve)?;
            args.finish()?;
            return Ok(Value::Tensor(run.engine.clone_as(&t, format)?));
        }
        "to" => {
            let dtype = crate::trace::binding::device::to_dtype(run, &t, &mut args)?;
            let format = args.memory_format(MemoryFormat::Preserve)?;
            // `copy=True` always makes a new tensor.
            let copy = args.kw_only("copy").is_some_and(|v| matches!(v, Value::Scalar(Scalar::Bool(true))));
            args.finish()?;
            let out = run.engine.to_as(&t, dtype, format)?;
            if copy && out.same_object(&t) {
                return Ok(Value::Tensor(run.engine.clone_as(&t, format)?));
            }
            return Ok(Value::Tensor(out));
        }
        "is_contiguous" => {
            let format = format_arg(&mut args)?;
            args.finish()?;
            return Ok(Value::Scalar(Scalar::Bool(t.layout().is_contiguous_as(format))));
        }
        "untyped_storage" => {
            args.finish()?;
            return Ok(Value::Storage(t, StorageView::Untyped));
        }
        "storage" => {
            args.finish()?;
            return Ok(Value::Storage(t, StorageView::Typed));
        }
        "data_ptr" => {
            // The storage's start (one address per storage, see `storage_start`) plus the
            // offset in bytes.
            args.finish()?;
            let start = storage_start(run, &t)?;
            return Ok(int(start.saturating_add(t.layout().offset().saturating_mul(to_i64(t.dtype().itemsize())))));
        }
        "is_set_to" => {
            let other = tensor_arg(args.req(0, "tensor")?, "tensor")?;
            args.finish()?;
            let same = run.engine.storage_id(&t)? == run.engine.storage_id(&other)? && t.layout() == other.layout();
            return Ok(Value::Scalar(Scalar::Bool(same)));
        }
        "_is_view" => {
            args.finish()?;
            return Ok(Value::Scalar(Scalar::Bool(t.is_view())));
        }
        "detach_" => {
            args.finish()?;
            let d = run.engine.detach_inplace(&t)?;
            run.engine.forget(&d);
            d
        }
        "t_" => {
            args.finish()?;
            run.engine.t_inplace(&t)?
        }
        "transpose_" | "swapdims_" | "swapaxes_" => {
            let a = args.int(0, "dim0")?;
            let b = args.int(1, "dim1")?;
            args.finish()?;
            run.engine.transpose_inplace(&t, a, b)?
        }
        "squeeze_" => {
            let dims = args.dims(0, "dim")?;
            args.finish()?;
            run.engine.squeeze_inplace(&t, dims.as_deref())?
        }
        "unsqueeze_" => {
            let dim = args.int(0, "dim")?;
            args.finish()?;
            run.engine.unsqueeze_inplace(&t, dim)?
        }
        "as_strided_" => {
            let size = args.req(0, "size")?.as_ints("size")?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let offset = args.opt_int(2, "storage_offset")?;
            args.finish()?;
            run.engine.as_strided_inplace(&t, &size, &stride, offset)?
        }
        "resize_" => {
            let shape = sizes(args.sizes(0, "size")?)?;
            let _ = args.memory_format(MemoryFormat::Contiguous)?;
            args.finish()?;
            run.engine.resize_inplace(&t, &shape)?
        }
        "resize_as_" => {
            let other = tensor_arg(args.req(0, "the_template")?, "the_template")?;
            args.finish()?;
            run.engine.resize_inplace(&t, other.shape())?
        }
        "set_" => set(run, &t, args)?,
        _ => return Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    };
    run.record_rebind(&out);
    Ok(Value::Tensor(out))
}

/// `memory_format`, positional or keyword, of `contiguous` and `is_contiguous` (default
/// contiguous).
fn format_arg(args: &mut Args) -> Result<MemoryFormat> {
    match args.opt(0, "memory_format") {
        None | Some(Value::None) => Ok(MemoryFormat::Contiguous),
        Some(Value::Format(f)) => Ok(f),
        Some(v) => bail!(
            Type,
            "{}(): argument 'memory_format' must be torch.memory_format, not {}",
            args.func(),
            v.type_name()
        ),
    }
}

/// `set_()`, `set_(tensor)` and `set_(storage, offset=0, size=..., stride=...)`.
fn set(run: &mut RunContext, t: &Tensor, mut args: Args) -> Result<Tensor> {
    let source = args.opt(0, "source");
    match source {
        None => {
            args.finish()?;
            run.engine.set_empty(t)
        }
        Some(Value::Tensor(src)) => {
            args.finish()?;
            run.engine.set_to(t, &src)
        }
        Some(Value::Storage(src, _)) => {
            let offset = args.int_or(1, "storage_offset", 0)?;
            let size = args.opt(2, "size").map(|v| v.as_ints("size")).transpose()?;
            let stride = args.opt(3, "stride").map(|v| v.as_ints("stride")).transpose()?;
            args.finish()?;
            // A size without strides is laid out row-major, as PyTorch's `set_` does.
            let stride = match (&size, stride) {
                (Some(size), None) => Some(row_major(size)?),
                (_, stride) => stride,
            };
            let geometry = match (&size, &stride) {
                (Some(size), Some(stride)) => Some((size.as_slice(), stride.as_slice())),
                _ => None,
            };
            run.engine.set_storage(t, &src, offset, geometry)
        }
        Some(other) => bail!(Type, "set_(): argument 'source' must be Tensor or Storage, not {}", other.type_name()),
    }
}

/// The tensor attributes this file binds (`None` for another name).
pub fn attr(run: &mut RunContext, t: &Tensor, name: &str) -> Option<Result<Value>> {
    let itemsize = to_i64(t.dtype().itemsize());
    Some(match name {
        "data" => run.engine.data_alias(t).map(|d| {
            run.engine.forget(&d);
            Value::Tensor(d)
        }),
        "_base" => Ok(run.engine.base_of(t).map_or(Value::None, Value::Tensor)),
        "_version" => Ok(int(i64::try_from(run.engine.version(t)).unwrap_or(i64::MAX))),
        "nbytes" => Ok(int(to_i64(t.numel()).saturating_mul(itemsize))),
        "itemsize" => Ok(int(itemsize)),
        _ => return None,
    })
}

/// Methods of `t.untyped_storage()` (bytes) and `t.storage()` (elements of `t`'s dtype).
pub fn storage_method(run: &mut RunContext, t: Tensor, view: StorageView, name: &str, args: Args) -> Result<Value> {
    args.finish()?;
    let nbytes = to_i64(run.engine.storage_nbytes(&t)?);
    let itemsize = match view {
        StorageView::Untyped => 1,
        StorageView::Typed => to_i64(t.dtype().itemsize()),
    };
    match name {
        "nbytes" => Ok(int(nbytes)),
        "size" | "__len__" => Ok(int(nbytes / itemsize.max(1))),
        "element_size" => Ok(int(itemsize)),
        "data_ptr" => Ok(int(storage_start(run, &t)?)),
        _ => bail!(Unsupported, "{}.{name}() is not supported", Value::Storage(t, view).type_name()),
    }
}

/// The address a storage starts at: distinct per storage and stable within a run, 4 GiB
/// apart (addresses are compared, never read).
fn storage_start(run: &mut RunContext, t: &Tensor) -> Result<i64> {
    let id = to_i64(run.engine.storage_id(t)?);
    Ok(0x7f00_0000_0000_i64.saturating_add(id.saturating_mul(1 << 32)))
}

/// Row-major strides of a size given as ints (`set_(storage, offset, size)`).
fn row_major(size: &[i64]) -> Result<Vec<i64>> {
    let dims: Vec<usize> = size.iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
    Ok(crate::strided::row_major_strides(&dims))
}

/// `memory_format=` of `torch.empty` (default contiguous).
pub fn empty_format(args: &mut Args) -> Result<MemoryFormat> {
    args.memory_format(MemoryFormat::Contiguous)
}

/// `torch.empty(sizes, memory_format=f)` and friends: a tensor of `f`'s dense strides.
pub fn full_in_format(
    run: &mut RunContext,
    shape: &[usize],
    value: Scalar,
    dtype: DType,
    format: MemoryFormat,
) -> Result<Value> {
    let layout = format.dense_layout(shape)?;
    Ok(Value::Tensor(run.engine.full_as(layout, value, dtype)?))
}
