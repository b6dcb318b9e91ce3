//! Devices. The playground has one: the CPU. `device=` on a factory, `torch.device(...)`,
//! `x.device`, `x.to(device)`, `x.cpu()`, `x.cuda()` and `torch.cuda.is_available()` are
//! accepted as PyTorch accepts them; "cpu" is what runs, and "cuda" runs on the CPU with a
//! note on the step that says so (so code written for a GPU still runs, and says where).

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

pub use crate::torch::device::Device;

/// The step's note where code asks for CUDA.
const CUDA_NOTE: &str = "the playground has no CUDA device: this runs on the CPU (values and layouts are the CPU's)";

/// PyTorch's factory functions: the `torch.X` that take `device=` (and `pin_memory=`).
pub const FACTORIES: &[&str] = &[
    "arange",
    "zeros",
    "ones",
    "full",
    "tensor",
    "as_tensor",
    "empty",
    "empty_strided",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "eye",
    "linspace",
    "logspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "tril_indices",
    "scalar_tensor",
    "triu_indices",
];

/// The tensor methods that take `device=`.
const METHOD_FACTORIES: &[&str] =
    &["new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided", "new_tensor"];

/// The tensor methods this module answers.
pub const METHODS: &[&str] = &["cpu", "cuda", "get_device"];

/// The tensor attributes this module answers.
pub const ATTRS: &[&str] = &["device", "is_cuda", "is_cpu"];

/// A device argument: a string, a `torch.device`, or a CUDA ordinal.
pub fn from_value(v: &Value, func: &str) -> Result<Device> {
    match v {
        Value::Str(s) => Device::parse(s),
        Value::Device(d) => Ok(*d),
        Value::Scalar(Scalar::Int(i)) if *i >= 0 => Ok(Device::Cuda(Some(*i))),
        other => bail!(Type, "{func}(): argument 'device' must be torch.device, not {}", other.type_name()),
    }
}

/// Notes on the step that CUDA runs on the CPU here.
pub fn use_device(run: &mut RunContext, d: Device) {
    if matches!(d, Device::Cuda(_)) {
        run.engine.note(CUDA_NOTE);
    }
}

/// Takes `device=` and `pin_memory=` out of a call's keywords where PyTorch's function takes
/// them (its factories), so the op's own binding never sees them.
pub fn take_factory_kwargs(run: &mut RunContext, func: &str, kw: &mut Vec<(String, Value)>) -> Result<()> {
    if !FACTORIES.contains(&func) && !METHOD_FACTORIES.contains(&func) {
        return Ok(());
    }
    if let Some(i) = kw.iter().position(|(k, _)| k == "device") {
        let (_, v) = kw.remove(i);
        if !matches!(v, Value::None) {
            let d = from_value(&v, func)?;
            use_device(run, d);
        }
    }
    if let Some(i) = kw.iter().position(|(k, _)| k == "pin_memory") {
        match kw.remove(i).1 {
            Value::Scalar(Scalar::Bool(false)) | Value::None => {}
            Value::Scalar(Scalar::Bool(true)) => {
                bail!(Unsupported, "{func}(): pin_memory=True needs a CUDA device; the playground runs on the CPU")
            }
            other => bail!(Type, "{func}(): argument 'pin_memory' must be bool, not {}", other.type_name()),
        }
    }
    Ok(())
}

/// `torch.device(...)`: `torch.device("cuda")`, `torch.device("cuda", 0)`, `torch.device(type="cpu")`.
pub fn construct(mut args: Args) -> Result<Value> {
    let kind = args.req(0, "type")?;
    let index = args.opt(1, "index");
    args.finish()?;
    let d = match (kind, index) {
        (v, None | Some(Value::None)) => from_value(&v, "device")?,
        (Value::Str(s), Some(i)) => match (Device::parse(&s)?, i.as_int("index")?) {
            (Device::Cuda(None), i) if i >= 0 => Device::Cuda(Some(i)),
            (Device::Cpu, _) => Device::Cpu,
            _ => bail!(Type, "device(): invalid index for '{s}'"),
        },
        (other, _) => bail!(Type, "device() received an invalid combination of arguments: {}", other.type_name()),
    };
    Ok(Value::Device(d))
}

/// `torch.cuda.X()`: the playground has no CUDA device.
pub fn cuda_function(name: &str, args: Args) -> Result<Value> {
    args.finish()?;
    match name {
        "is_available" => Ok(Value::Scalar(Scalar::Bool(false))),
        "device_count" => Ok(Value::Scalar(Scalar::Int(0))),
        "synchronize" | "empty_cache" | "manual_seed" | "manual_seed_all" => Ok(Value::None),
        _ => Err(crate::error::Error::unknown_op(format!("torch.cuda.{name}"), name)),
    }
}

/// `x.device`, `x.is_cuda`, `x.is_cpu`.
pub fn attr(name: &str) -> Option<Value> {
    Some(match name {
        "device" => Value::Device(Device::Cpu),
        "is_cuda" => Value::Scalar(Scalar::Bool(false)),
        "is_cpu" => Value::Scalar(Scalar::Bool(true)),
        _ => return None,
    })
}

/// `x.cpu()`, `x.cuda()` (the tensor itself, as PyTorch returns a tensor already on the
/// device), `x.get_device()` (-1: the CPU).
pub fn method(run: &mut RunContext, t: &Tensor, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "cpu" => {
            let _ = args.kw_only("memory_format");
            args.finish()?;
            Ok(Value::Tensor(t.clone()))
        }
        "cuda" => {
            let _ = args.opt(0, "device");
            let _ = args.kw_only("non_blocking");
            let _ = args.kw_only("memory_format");
            args.finish()?;
            use_device(run, Device::Cuda(None));
            Ok(Value::Tensor(t.clone()))
        }
        "get_device" => {
            args.finish()?;
            Ok(Value::Scalar(Scalar::Int(-1)))
        }
        _ => Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    }
}

/// `x.to(...)`'s forms: `to(dtype)`, `to(device, dtype=None)`, `to(other)`, with `device=`,
/// `dtype=`, `non_blocking=` and `copy=` as keywords. Returns the dtype to cast to.
pub fn to_dtype(run: &mut RunContext, t: &Tensor, args: &mut Args) -> Result<DType> {
    let mut dtype = t.dtype();
    match args.opt(0, "dtype") {
        None | Some(Value::None) => {}
        Some(Value::DType(d)) => dtype = d,
        Some(Value::Tensor(other)) => dtype = other.dtype(),
        Some(v @ (Value::Str(_) | Value::Device(_) | Value::Scalar(Scalar::Int(_)))) => {
            let d = from_value(&v, "to")?;
            use_device(run, d);
            match args.opt(1, "dtype") {
                None | Some(Value::None) => {}
                Some(Value::DType(d)) => dtype = d,
                Some(other) => bail!(Type, "to() expects a dtype, got {}", other.type_name()),
            }
        }
        Some(other) => bail!(Type, "to() expects a dtype, got {}", other.type_name()),
    }
    if let Some(v) = args.kw_only("device") {
        if !matches!(v, Value::None) {
            let d = from_value(&v, "to")?;
            use_device(run, d);
        }
    }
    let _ = args.kw_only("non_blocking");
    Ok(dtype)
}
