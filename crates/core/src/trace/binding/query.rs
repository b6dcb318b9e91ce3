//! PyTorch's questions that compute nothing: `torch.is_tensor`, `torch.numel`,
//! `torch.is_floating_point`, `torch.get_default_dtype`, `torch.Size(...)`, `torch.finfo` and
//! `torch.iinfo`, `torch.typename`, `Tensor.type()`, and a dtype's properties
//! (`torch.float32.is_floating_point`, `.itemsize`, ...).

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// The `torch.` functions answered here.
const FUNCTIONS: &[&str] = &[
    "is_tensor",
    "is_storage",
    "numel",
    "is_floating_point",
    "is_complex",
    "get_default_dtype",
    "Size",
    "finfo",
    "iinfo",
    "typename",
];

pub fn is_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

fn boolean(b: bool) -> Value {
    Value::Scalar(Scalar::Bool(b))
}

pub fn function(name: &str, mut args: Args) -> Result<Value> {
    match name {
        "get_default_dtype" => {
            args.finish()?;
            Ok(Value::DType(DType::Float32))
        }
        "finfo" | "iinfo" => {
            let dtype = match args.opt(0, "type") {
                None if name == "finfo" => DType::Float32,
                None => bail!(Type, "iinfo() missing required argument 'type' (pos 1)"),
                Some(Value::DType(d)) => d,
                Some(other) => bail!(Type, "{name}(): argument 'type' must be torch.dtype, not {}", other.type_name()),
            };
            args.finish()?;
            if name == "finfo" {
                finfo(dtype)
            } else {
                iinfo(dtype)
            }
        }
        "Size" => {
            let items = match args.opt(0, "sizes") {
                None => Vec::new(),
                Some(v) => match v.into_items() {
                    Some(items) => items,
                    None => bail!(Type, "Size() argument must be an iterable of ints"),
                },
            };
            args.finish()?;
            for (i, v) in items.iter().enumerate() {
                if !matches!(v, Value::Scalar(Scalar::Int(_))) {
                    bail!(Type, "torch.Size() takes an iterable of 'int' (item {i} is '{}')", v.type_name());
                }
            }
            Ok(Value::Size(items))
        }
        _ => {
            let obj = args.req(0, "obj")?;
            args.finish()?;
            match (name, obj) {
                ("is_tensor", v) => Ok(boolean(matches!(v, Value::Tensor(_)))),
                ("is_storage", v) => Ok(boolean(matches!(v, Value::Storage(..)))),
                ("typename", Value::Tensor(t)) => Ok(Value::Str(type_string(t.dtype()))),
                ("typename", v) => Ok(Value::Str(v.type_name().to_string())),
                (_, Value::Tensor(t)) => Ok(match name {
                    "numel" => Value::Scalar(Scalar::Int(t.shape().iter().product::<usize>() as i64)),
                    "is_floating_point" => boolean(t.dtype().is_float()),
                    _ => boolean(false),
                }),
                (_, other) => {
                    bail!(Type, "{name}(): argument 'input' (position 1) must be Tensor, not {}", other.type_name())
                }
            }
        }
    }
}

/// `x.type()`: the legacy class name of its dtype (`torch.FloatTensor`).
pub fn type_string(dtype: DType) -> String {
    format!("torch.{}Tensor", dtype.torch_name())
}

/// A dtype's properties: `is_floating_point`, `is_complex`, `is_signed`, `itemsize`.
pub fn dtype_attr(dtype: DType, name: &str) -> Option<Value> {
    Some(match name {
        "is_floating_point" => boolean(dtype.is_float()),
        "is_complex" => boolean(false),
        "is_signed" => boolean(!matches!(dtype, DType::Bool | DType::UInt8)),
        "itemsize" => Value::Scalar(Scalar::Int(dtype.itemsize() as i64)),
        _ => return None,
    })
}

fn float(x: f64) -> Value {
    Value::Scalar(Scalar::Float(x))
}

/// `torch.finfo(dtype)`: the float type's limits, as PyTorch's `finfo` fields.
fn finfo(dtype: DType) -> Result<Value> {
    // (bits, eps, max, smallest normal, resolution)
    let (bits, eps, max, tiny, resolution) = match dtype {
        DType::Float32 => (32, f64::from(f32::EPSILON), f64::from(f32::MAX), f64::from(f32::MIN_POSITIVE), 1e-6),
        DType::Float64 => (64, f64::EPSILON, f64::MAX, f64::MIN_POSITIVE, 1e-15),
        DType::Float16 => (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
        DType::BFloat16 => (16, 0.0078125, 3.3895313892515355e38, f64::from(f32::MIN_POSITIVE), 0.01),
        // PyTorch's message names its own class where the dtype would be.
        _ => bail!(Type, "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"),
    };
    Ok(Value::named(
        "finfo",
        vec![
            ("resolution", float(resolution)),
            ("min", float(-max)),
            ("max", float(max)),
            ("eps", float(eps)),
            ("smallest_normal", float(tiny)),
            ("tiny", float(tiny)),
            ("dtype", Value::Str(dtype.name().to_string())),
            ("bits", Value::Scalar(Scalar::Int(bits))),
        ],
    ))
}

/// `torch.iinfo(dtype)`: the integer type's range.
fn iinfo(dtype: DType) -> Result<Value> {
    let (bits, min, max): (i64, i64, i64) = match dtype {
        DType::UInt8 => (8, 0, 255),
        DType::Int8 => (8, -128, 127),
        DType::Int16 => (16, i64::from(i16::MIN), i64::from(i16::MAX)),
        DType::Int32 => (32, i64::from(i32::MIN), i64::from(i32::MAX)),
        DType::Int64 => (64, i64::MIN, i64::MAX),
        _ => bail!(Type, "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"),
    };
    let int = |i| Value::Scalar(Scalar::Int(i));
    Ok(Value::named(
        "iinfo",
        vec![
            ("min", int(min)),
            ("max", int(max)),
            ("dtype", Value::Str(dtype.name().to_string())),
            ("bits", int(bits)),
        ],
    ))
}
