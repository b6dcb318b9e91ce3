//! Python's questions about values: `type()`, `id()`, `isinstance()`, `callable()`, and the
//! classes that are values of their own: `torch.Tensor` and the legacy typed constructors
//! (`torch.FloatTensor(2, 3)`, `torch.LongTensor([1, 2])`), and the builtin exceptions made
//! to be raised (`ValueError("...")`).

use super::context::RunContext;
use super::exception;
use super::value::{Args, Exception, Value, PARAMETER_CLASS};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::uop::buffer::Scalar;

/// The version of PyTorch whose behaviour the product reproduces (`torch.__version__`).
pub const TORCH_VERSION: &str = "2.15.0";

/// `torch.Tensor` and the legacy typed tensor classes, each with the dtype it makes.
const TENSOR_CLASSES: [(&str, DType); 10] = [
    ("torch.Tensor", DType::Float32),
    ("torch.FloatTensor", DType::Float32),
    ("torch.DoubleTensor", DType::Float64),
    ("torch.HalfTensor", DType::Float16),
    ("torch.BFloat16Tensor", DType::BFloat16),
    ("torch.LongTensor", DType::Int64),
    ("torch.IntTensor", DType::Int32),
    ("torch.ShortTensor", DType::Int16),
    ("torch.CharTensor", DType::Int8),
    ("torch.ByteTensor", DType::UInt8),
];

/// The class `torch.<name>` when it is `Tensor` or a legacy typed tensor class.
pub fn tensor_class(name: &str) -> Option<Value> {
    if name == "BoolTensor" {
        return Some(Value::Type("torch.BoolTensor"));
    }
    TENSOR_CLASSES.iter().find(|(q, _)| q.strip_prefix("torch.") == Some(name)).map(|(q, _)| Value::Type(q))
}

pub(crate) fn class_dtype(class: &str) -> Option<DType> {
    if class == "torch.BoolTensor" {
        return Some(DType::Bool);
    }
    TENSOR_CLASSES.iter().find(|(q, _)| *q == class).map(|(_, d)| *d)
}

/// Calling a class value: a legacy constructor makes a tensor of its dtype from data
/// (`torch.Tensor([1, 2])`) or, given sizes, an uninitialized one (`torch.Tensor(2, 3)`).
pub fn call_type(ctx: &mut RunContext, class: &'static str, args: Args) -> Result<Value> {
    let Some(dtype) = class_dtype(class) else { bail!(Type, "cannot create '{class}' instances") };
    let (pos, kw) = args.into_parts();
    if let Some((k, _)) = kw.iter().find(|(k, _)| k != "device") {
        bail!(Type, "{class}() got an unexpected keyword argument '{k}'");
    }
    let dtype_kw = vec![("dtype".to_string(), Value::DType(dtype))];
    let sizes = |vals: &[Value]| vals.iter().all(|v| matches!(v, Value::Scalar(Scalar::Int(_))));
    match pos.as_slice() {
        [] => ctx.function("empty", Args::new("empty", vec![Value::Scalar(Scalar::Int(0))], dtype_kw)),
        [Value::Size(dims)] => ctx.function("empty", Args::new("empty", dims.clone(), dtype_kw)),
        [Value::Tensor(_)] => bail!(Unsupported, "{class}(tensor) is not supported; use tensor.to(dtype) or a view"),
        [data @ (Value::List(_) | Value::Tuple(_))] => {
            ctx.function("tensor", Args::new("tensor", vec![data.clone()], dtype_kw))
        }
        dims if sizes(dims) => ctx.function("empty", Args::new("empty", dims.to_vec(), dtype_kw)),
        [other, ..] => bail!(Type, "new(): data must be a sequence (got {})", other.type_name()),
    }
}

/// `type(v)`: builtins' classes as the builtin names (so `type(x) == int` holds), a tensor's
/// as `torch.Tensor` (a parameter's as `Parameter`, its subclass), a trace class's instance as
/// its class.
pub fn type_of(engine: &crate::tensor::Engine, v: &Value, title: Title) -> Value {
    match v {
        Value::Tensor(t) if engine.is_parameter(t) => Value::Type(PARAMETER_CLASS),
        Value::Tensor(_) => Value::Type("torch.Tensor"),
        Value::Scalar(Scalar::Bool(_)) => Value::Builtin("bool"),
        Value::Scalar(Scalar::Int(_)) | Value::BigInt(_) => Value::Builtin("int"),
        Value::Scalar(Scalar::Float(_)) => Value::Builtin("float"),
        Value::Str(_) => Value::Builtin("str"),
        Value::List(_) => Value::Builtin("list"),
        Value::Tuple(_) => Value::Builtin("tuple"),
        Value::Dict(..) => Value::Builtin("dict"),
        Value::Size(_) => Value::Type("torch.Size"),
        Value::DType(_) => Value::Type("torch.dtype"),
        Value::Device(_) => Value::Type("torch.device"),
        Value::None => Value::Type("NoneType"),
        Value::Function(_) => Value::Type("function"),
        Value::Range(..) => Value::Type("range"),
        Value::Exception(e) => match exception::class(&e.class) {
            Some(c) => Value::Builtin(c),
            None => Value::Type("Exception"),
        },
        Value::Layer(l) => match &l.class {
            Some(c) => Value::Class(c.clone()),
            None => Value::Func(title(l)),
        },
        Value::Builtin(_) | Value::Type(_) | Value::Class(_) => Value::Builtin("type"),
        other => Value::Type(other.type_name()),
    }
}

/// `id(v)`: stable for one object within a run and distinct between live objects, like
/// CPython's addresses (a tensor's is made from its object number; equal small ints share
/// one, as CPython caches them).
pub fn id_of(v: &Value) -> i64 {
    const BASE: i64 = 0x7f00_0000_0000;
    let ptr = |p: *const u8| BASE + ((p as usize as i64) & 0xffff_ffff_ffff) % 0x1000_0000_0000;
    match v {
        Value::Tensor(t) => BASE + 0x10_0000_0000 + i64::from(t.object_id().number()) * 80,
        Value::None => BASE + 0x8,
        Value::Scalar(Scalar::Bool(b)) => BASE + 0x20 + i64::from(*b) * 32,
        Value::Scalar(Scalar::Int(i)) => BASE + 0x1000 + i.wrapping_mul(32),
        Value::Layer(l) => ptr(std::rc::Rc::as_ptr(l).cast()),
        Value::Function(f) => ptr(std::rc::Rc::as_ptr(f).cast()),
        Value::Iterator(it) => ptr(std::rc::Rc::as_ptr(it).cast()),
        Value::Optimizer(o) => ptr(std::rc::Rc::as_ptr(o).cast()),
        Value::Exception(e) => ptr(std::rc::Rc::as_ptr(e).cast()),
        Value::List(l) => ptr(l.address() as *const u8),
        // A value without an identity of its own here: its contents stand for it.
        other => BASE + 0x20_0000_0000 + (fnv(&super::repr_plain(other)) % 0x10_0000_0000) as i64,
    }
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// A module's class name (`Linear`), which the module layer knows.
pub type Title = fn(&super::value::Module) -> String;

/// `isinstance(v, class)` for one class value.
pub fn is_instance(engine: &crate::tensor::Engine, v: &Value, class: &Value, title: Title) -> Result<bool> {
    Ok(match (class, v) {
        (Value::Builtin("int"), Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) | Value::BigInt(_))
        | (Value::Builtin("float"), Value::Scalar(Scalar::Float(_)))
        | (Value::Builtin("bool"), Value::Scalar(Scalar::Bool(_)))
        | (Value::Builtin("str"), Value::Str(_))
        | (Value::Builtin("list"), Value::List(_))
        | (Value::Builtin("dict"), Value::Dict(..))
        | (Value::Builtin("object"), _)
        | (Value::Builtin("tuple"), Value::Tuple(_) | Value::Size(_) | Value::Named(..)) => true,
        (Value::Builtin(c), Value::Exception(e)) => exception::is_subclass(&e.class, c),
        (Value::Builtin(_), _) => false,
        (Value::Type("torch.Tensor"), Value::Tensor(_)) => true,
        (Value::Type(PARAMETER_CLASS), Value::Tensor(t)) => engine.is_parameter(t),
        (Value::Type(c), Value::Tensor(t)) => class_dtype(c) == Some(t.dtype()),
        (Value::Type("torch.Size"), Value::Size(_)) => true,
        (Value::Type(_), _) => false,
        (Value::Func(f), Value::Tensor(t)) if f == "Parameter" => engine.is_parameter(t),
        (Value::Func(f), Value::Layer(l)) => f == "Module" || l.class.is_none() && title(l) == *f,
        (Value::Func(_), _) => false,
        (Value::Class(c), Value::Layer(l)) => l.class.as_ref().is_some_and(|k| std::rc::Rc::ptr_eq(k, c)),
        (Value::Class(_), _) => false,
        (other, _) => {
            bail!(Type, "isinstance() arg 2 must be a type, a tuple of types, or a union, not {}", other.type_name())
        }
    })
}

/// `RuntimeError("message")`: an exception value, raised by `raise`.
pub fn exception(class: &'static str, args: Args) -> Result<Value> {
    let (pos, kw) = args.into_parts();
    if !kw.is_empty() {
        bail!(Type, "{class}() takes no keyword arguments");
    }
    let message = match pos.as_slice() {
        [] => String::new(),
        [Value::Str(s)] if class != "KeyError" => s.clone(),
        [other] => super::repr_plain(other),
        many => format!("({})", many.iter().map(super::repr_plain).collect::<Vec<_>>().join(", ")),
    };
    Ok(Value::Exception(std::rc::Rc::new(Exception { class: class.to_string(), message, args: pos })))
}
