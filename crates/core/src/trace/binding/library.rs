//! The op library: every function, method and attribute a trace may use, as PyTorch spells them.
//!
//! Each entry parses its PyTorch signature, computes the result in all three models (PyTorch's
//! layout, tinygrad's tracker, the bridge's report) and leaves the arithmetic to the engine.

use crate::dtype::DType;
use crate::engine::pad::PadMode;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::torch::format::MemoryFormat;
use crate::trace::binding::copies;
use crate::trace::binding::decl;
use crate::trace::binding::device;
use crate::trace::binding::elementwise::{self, operand, tensor_arg};
use crate::trace::binding::meta;
use crate::trace::binding::query;
use crate::trace::binding::random;
use crate::trace::binding::reductions;
use crate::trace::binding::views_extra;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{sizes, Args, Value};
use crate::uop::buffer::{Data, Scalar};

/// The tensor methods [`super::methods::method`] answers itself (the rest it routes to the other tables).
pub(in crate::trace) const METHODS: &[&str] = &[
    "as_strided",
    "clamp",
    "clamp_",
    "clip",
    "clip_",
    "copy_",
    "detach",
    "diagonal",
    "dim",
    "element_size",
    "expand",
    "expand_as",
    "fill_",
    "flatten",
    "flip",
    "item",
    "matmul",
    "mm",
    "mv",
    "dot",
    "bmm",
    "moveaxis",
    "movedim",
    "narrow",
    "ndimension",
    "nelement",
    "new_tensor",
    "numel",
    "pad",
    "permute",
    "reshape",
    "reshape_as",
    "select",
    "shrink",
    "size",
    "squeeze",
    "storage_offset",
    "stride",
    "swapaxes",
    "swapdims",
    "t",
    "tolist",
    "transpose",
    "unflatten",
    "unfold",
    "unsqueeze",
    "view",
    "view_as",
    "where",
    "zero_",
];

/// Functions callable without a receiver (`arange(3)`, `torch.arange(3)`, `F.relu(x)`).
pub(in crate::trace) const FUNCTIONS: &[&str] = &[
    "from_numpy",
    "as_tensor",
    "arange",
    "zeros",
    "ones",
    "full",
    "tensor",
    "empty",
    "empty_strided",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "as_strided",
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "where",
    "clamp",
    "clip",
    "sum",
    "prod",
    "any",
    "all",
    "mean",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "logsumexp",
    "flip",
    "reshape",
    "permute",
    "transpose",
    "swapaxes",
    "swapdims",
    "t",
    "movedim",
    "moveaxis",
    "squeeze",
    "unsqueeze",
    "narrow",
    "select",
    "diagonal",
    "flatten",
    "unflatten",
    "clone",
    "detach",
    "matmul",
    "mm",
    "mv",
    "dot",
    "bmm",
    "print",
    "len",
    "float",
    "int",
    "bool",
    "result_type",
    "promote_types",
    "can_cast",
    "pad",
    "contiguous",
    "logical_not",
    "softmax",
    "log_softmax",
    "linear",
    "cat",
    "stack",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "mse_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy",
];

/// PyTorch's dtype names and aliases (`torch.long` is int64, `torch.int` int32).
pub(in crate::trace) const DTYPES: &[(&str, DType)] = &[
    ("float32", DType::Float32),
    ("float", DType::Float32),
    ("float64", DType::Float64),
    ("double", DType::Float64),
    ("float16", DType::Float16),
    ("half", DType::Float16),
    ("bfloat16", DType::BFloat16),
    ("int64", DType::Int64),
    ("long", DType::Int64),
    ("int32", DType::Int32),
    ("int", DType::Int32),
    ("int16", DType::Int16),
    ("short", DType::Int16),
    ("int8", DType::Int8),
    ("uint8", DType::UInt8),
    ("bool", DType::Bool),
];

/// Whether `torch.name` is a dtype (`torch.int`, `torch.float32`).
pub(in crate::trace) fn is_dtype_name(name: &str) -> bool {
    DTYPES.iter().any(|(n, _)| *n == name)
}

/// The casting methods (`x.long()`) and the dtype each makes.
pub(in crate::trace) const CAST_METHODS: &[(&str, DType)] = &[
    ("float", DType::Float32),
    ("double", DType::Float64),
    ("half", DType::Float16),
    ("bfloat16", DType::BFloat16),
    ("long", DType::Int64),
    ("int", DType::Int32),
    ("short", DType::Int16),
    ("char", DType::Int8),
    ("byte", DType::UInt8),
    ("bool", DType::Bool),
];

/// The creation ops the elementwise and matrix modules define (`torch.linspace`, ...).
pub(in crate::trace) const SPACES: &[&str] = &["linspace", "logspace", "eye"];

/// Whether `torch.name`/`F.name` is a function the library has: the list above, the
/// elementwise ops of the op table, and the creation ops defined with them.
pub(in crate::trace) fn is_function(name: &str) -> bool {
    decl::function_decl(name).is_some()
        || FUNCTIONS.contains(&name)
        || reductions::is_method(name)
        || copies::FUNCTIONS.contains(&name)
        || elementwise::function_entry(name).is_some()
        || SPACES.contains(&name)
        || views_extra::is_function(name)
        || crate::trace::binding::indexing::is_function(name)
        || random::is_function(name)
        || query::is_function(name)
}

/// `torch.special`'s names for ops the library has under another name.
pub(in crate::trace) const SPECIAL_ALIASES: &[(&str, &str)] = &[
    ("expit", "sigmoid"),
    ("erf", "erf"),
    ("erfc", "erfc"),
    ("expm1", "expm1"),
    ("exp2", "exp2"),
    ("log1p", "log1p"),
    ("log_softmax", "log_softmax"),
    ("softmax", "softmax"),
    ("logsumexp", "logsumexp"),
];

/// Whether `torch.special.name` runs.
fn is_special(name: &str) -> bool {
    SPECIAL_ALIASES.iter().any(|(n, _)| *n == name) || decl::function_decl(&format!("special.{name}")).is_some()
}

/// `torch.pi`, `torch.e`, `torch.inf`, `torch.nan` (and `math.`'s).
fn constant(module: &str, name: &str) -> Option<f64> {
    if !matches!(module, "torch" | "math") {
        return None;
    }
    match name {
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        "inf" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// What a bare name means when the trace has not bound it.
pub fn builtin(name: &str) -> Option<Value> {
    match name {
        "torch" => Some(Value::Module("torch")),
        "F" | "functional" => Some(Value::Module("F")),
        "nn" => Some(Value::Module("nn")),
        "optim" => Some(Value::Module("optim")),
        "math" => Some(Value::Module("math")),
        _ if is_function(name) => Some(Value::Func(name.to_string())),
        _ => DTYPES
            .iter()
            .find(|(n, _)| *n == name && !matches!(*n, "float" | "int" | "bool"))
            .map(|(_, d)| Value::DType(*d)),
    }
}

pub fn attr(run: &mut RunContext, v: Value, name: &str) -> Result<Value> {
    match v {
        Value::Module(m) => match (m, name) {
            ("torch", "nn") => Ok(Value::Module("nn")),
            ("torch", "optim") => Ok(Value::Module("optim")),
            ("torch", "linalg") => Ok(Value::Module("linalg")),
            ("torch", "cuda") => Ok(Value::Module("cuda")),
            ("torch", "special") => Ok(Value::Module("special")),
            ("special", _) if is_special(name) => Ok(Value::Func(format!("special.{name}"))),
            ("torch", "device") => Ok(Value::Func("device".into())),
            ("linalg", _) if is_function(&format!("linalg.{name}")) => Ok(Value::Func(format!("linalg.{name}"))),
            ("nn", "Module") => Ok(Value::Func("Module".into())),
            ("sys", _) => crate::trace::python::sys::attr(name),
            ("torch", "__version__") => Ok(Value::Str(crate::trace::python::introspect::TORCH_VERSION.into())),

            ("nn", "functional") => Ok(Value::Module("F")),
            ("optim", "lr_scheduler") => Ok(Value::Module("lr_scheduler")),
            ("nn", "utils") => Ok(Value::Module("nn.utils")),
            ("nn", "init") => Ok(Value::Module("nn.init")),
            _ => {
                if let Some(class) = crate::trace::python::introspect::tensor_class(name).filter(|_| m == "torch") {
                    return Ok(class);
                }
                if let Some((_, d)) = DTYPES.iter().find(|(n, _)| *n == name) {
                    return Ok(Value::DType(*d));
                }
                if let Some(f) = MemoryFormat::from_name(name).filter(|_| m == "torch") {
                    return Ok(Value::Format(f));
                }
                if let Some(c) = constant(m, name) {
                    return Ok(Value::Scalar(Scalar::Float(c)));
                }
                if is_function(name) {
                    return Ok(Value::Func(name.to_string()));
                }
                Err(crate::error::Error::unknown_op(format!("{m}.{name}"), name))
            }
        },
        Value::Tensor(t) => tensor_attr(run, t, name),
        Value::DType(d) => match query::dtype_attr(d, name) {
            Some(v) => Ok(v),
            None => bail!(Type, "'torch.dtype' object has no attribute '{name}'"),
        },
        Value::Named(_, fields) => match fields.into_iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok(v),
            None => bail!(Type, "'tuple' object has no attribute '{name}'"),
        },
        other => bail!(Type, "'{}' object has no attribute '{name}'", other.type_name()),
    }
}

fn tensor_attr(run: &mut RunContext, t: Tensor, name: &str) -> Result<Value> {
    if let Some(v) = meta::attr(run, &t, name) {
        return v;
    }
    Ok(match name {
        "T" => Value::Tensor(run.engine.big_t(&t)?),
        "mT" => Value::Tensor(run.engine.matrix_t(&t)?),
        "shape" => size(t.shape()),
        "ndim" => int(t.shape().len() as i64),
        "dtype" => Value::DType(t.dtype()),
        _ if device::ATTRS.contains(&name) => device::attr(name).unwrap_or(Value::None),
        _ if views_extra::is_attr(name) => views_extra::attr(run, t, name)?,
        _ => return Err(crate::error::Error::unknown_op(format!("Tensor.{name}"), name)),
    })
}

pub(in crate::trace) fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

/// `torch.Size` of a shape.
pub(in crate::trace) fn size(shape: &[usize]) -> Value {
    Value::Size(shape.iter().map(|&n| int(n as i64)).collect())
}

pub(in crate::trace) fn ints(v: impl Iterator<Item = i64>) -> Value {
    Value::Tuple(v.map(int).collect())
}

// ------------------------------------------------------------------------------- functions

pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    if let Some(d) = decl::function_decl(name) {
        return decl::call_function(run, d, name, args);
    }
    if let Some(n) = name.strip_prefix("special.") {
        return match SPECIAL_ALIASES.iter().find(|(s, _)| *s == n) {
            Some((_, torch_name)) => function(run, torch_name, args),
            None => Err(crate::error::Error::unknown_op(format!("torch.special.{n}"), n)),
        };
    }
    if views_extra::is_function(name) {
        return views_extra::function(run, name, args);
    }
    if crate::trace::binding::indexing::is_function(name)
        || (name == "where" && crate::trace::binding::indexing::is_where_tuple(&args))
    {
        return crate::trace::binding::indexing::function(run, name, args);
    }
    if random::is_function(name) {
        return random::function(run, name, args);
    }
    if query::is_function(name) {
        return query::function(name, args);
    }
    // Functions that mirror a method take the tensor first: `torch.flip(a, (0,))`.
    if !matches!(
        name,
        "arange"
            | "zeros"
            | "ones"
            | "full"
            | "tensor"
            | "empty"
            | "empty_strided"
            | "where"
            | "print"
            | "float"
            | "int"
            | "bool"
            | "result_type"
            | "promote_types"
            | "can_cast"
            | "len"
            | "max"
            | "min"
            | "pad"
            | "zeros_like"
            | "ones_like"
            | "full_like"
            | "empty_like"
            | "cat"
            | "stack"
            | "eye"
    ) {
        if let Some(entry) = elementwise::function_entry(name) {
            return elementwise::call_function(run, entry, name, args);
        }
        if matches!(name, "linspace" | "logspace") {
            return elementwise::space(run, name, args);
        }
        if !FUNCTIONS.contains(&name) && !copies::FUNCTIONS.contains(&name) && !reductions::is_method(name) {
            return Err(crate::error::Error::unknown_op(format!("torch.{name}"), name));
        }
        let first = args.req(0, "input")?;
        let t = tensor_arg(first, &format!("{name}(): argument 'input'"))?;
        return run.method(t, name, args.shifted());
    }
    match name {
        "arange" => {
            let a = args.req(0, "end")?.as_scalar("end")?;
            let b = args.opt(1, "end");
            let step = args.opt(2, "step");
            let dtype = args.dtype()?;
            args.finish()?;
            let (start, end) = match b {
                Some(b) => (a, b.as_scalar("end")?),
                None => (Scalar::Int(0), a),
            };
            let step = match step {
                Some(s) => s.as_scalar("step")?,
                None => Scalar::Int(1),
            };
            Ok(Value::Tensor(run.engine.arange(start, end, step, dtype)?))
        }
        "zeros" | "ones" | "empty" => {
            let shape = sizes(args.sizes(0, "size")?)?;
            let dtype = args.dtype()?.unwrap_or(DType::Float32);
            let format = meta::empty_format(&mut args)?;
            args.finish()?;
            let v = Scalar::Int(if name == "ones" { 1 } else { 0 });
            meta::full_in_format(run, &shape, v, dtype, format)
        }
        "full" => {
            let shape = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let value = args.req(1, "fill_value")?.as_scalar("fill_value")?;
            let dtype = args.dtype()?;
            args.finish()?;
            Ok(Value::Tensor(run.engine.full(&shape, value, dtype)?))
        }
        "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            let value = if name == "full_like" {
                args.req(1, "fill_value")?.as_scalar("fill_value")?
            } else {
                Scalar::Int(i64::from(name == "ones_like"))
            };
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            let format = args.memory_format(MemoryFormat::Preserve)?;
            args.finish()?;
            Ok(Value::Tensor(run.engine.full_like_as(&t, value, dtype, format)?))
        }
        "tensor" => {
            let data = args.req(0, "data")?;
            let dtype = args.dtype()?;
            args.finish()?;
            Ok(Value::Tensor(tensor_from_nested(run.engine, &data, dtype)?))
        }
        "empty_strided" => {
            let size = sizes(args.req(0, "size")?.as_ints("size")?)?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let dtype = args.dtype()?.unwrap_or(DType::Float32);
            args.finish()?;
            Ok(Value::Tensor(run.engine.empty_strided(dtype, &size, &stride)?))
        }
        "where" => {
            let c = operand(args.req(0, "condition")?, "condition")?;
            let x = operand(args.req(1, "input")?, "input")?;
            let c = bool_condition(run, c)?;
            let y = operand(args.req(2, "other")?, "other")?;
            args.finish()?;
            Ok(Value::Tensor(run.engine.where_(&c, &x, &y)?))
        }
        "eye" => copies::eye(run, args),
        "print" => Ok(Value::None),
        "result_type" => {
            let a = operand(args.req(0, "tensor")?, "tensor")?;
            let b = operand(args.req(1, "other")?, "other")?;
            args.finish()?;
            Ok(Value::DType(run.engine.promote(&[&a, &b])))
        }
        "promote_types" | "can_cast" => {
            let dtype = |v: Value, what: &str| match v {
                Value::DType(d) => Ok(d),
                other => bail!(Type, "{name}(): argument '{what}' must be torch.dtype, not {}", other.type_name()),
            };
            let a = dtype(args.req(0, "type1")?, "type1")?;
            let b = dtype(args.req(1, "type2")?, "type2")?;
            args.finish()?;
            Ok(if name == "promote_types" {
                Value::DType(a.promote(b))
            } else {
                Value::Scalar(Scalar::Bool(DType::can_cast(a, b)))
            })
        }
        "float" | "int" | "bool" => {
            let v = args.req(0, "x")?;
            args.finish()?;
            python_number(run, name, v)
        }
        "len" => {
            let v = args.req(0, "obj")?;
            args.finish()?;
            match v {
                Value::Tensor(t) => match t.shape().first() {
                    Some(&n) => Ok(int(n as i64)),
                    None => bail!(Type, "len() of a 0-d tensor"),
                },
                Value::Tuple(v) => Ok(int(v.len() as i64)),
                Value::List(l) => Ok(int(l.len() as i64)),
                other => bail!(Type, "object of type '{}' has no len()", other.type_name()),
            }
        }
        "max" | "min" => {
            let first = tensor_arg(args.req(0, "input")?, "input")?;
            run.method(first, name, args.shifted())
        }
        "pad" => {
            // F.pad: pairs from the LAST dim backwards, (left, right, top, bottom, ...).
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            let pad = args.req(1, "pad")?.as_ints("pad")?;
            let mode = match args.opt(2, "mode") {
                None => PadMode::Constant,
                Some(Value::Str(m)) => match PadMode::from_name(&m) {
                    Some(mode) => mode,
                    None => bail!(Unsupported, "Unrecognised padding mode {m}"),
                },
                Some(other) => bail!(Type, "pad(): argument 'mode' must be str, not {}", other.type_name()),
            };
            let value = match args.opt(3, "value") {
                None | Some(Value::None) => None,
                Some(v) => Some(v.as_scalar("value")?),
            };
            args.finish()?;
            Ok(Value::Tensor(run.engine.torch_pad(&t, &pad, mode, value)?))
        }
        _ => crate::trace::binding::functional::function(run.engine, name, args),
    }
}

pub(in crate::trace) fn tensor_from_nested(engine: &mut Engine, data: &Value, dtype: Option<DType>) -> Result<Tensor> {
    /// `leaf`: the depth numbers were found at (all must be at one depth, sequences above it).
    struct Walk {
        shape: Vec<usize>,
        out: Vec<Scalar>,
        big: bool,
        leaf: Option<usize>,
    }
    fn number_at(w: &mut Walk, depth: usize) -> Result<()> {
        if w.shape.len() > depth || w.leaf.is_some_and(|l| l != depth) {
            bail!(Type, "not a sequence");
        }
        w.leaf = Some(depth);
        Ok(())
    }
    fn walk(v: &Value, depth: usize, w: &mut Walk) -> Result<()> {
        match &*v.seq_ref() {
            seq @ (Value::Tuple(items) | Value::Size(items)) => {
                if w.leaf.is_some_and(|l| l <= depth) {
                    let what = if matches!(v, Value::List(_)) { "list" } else { seq.type_name() };
                    let what = if matches!(seq, Value::Size(_)) { "torch.Size" } else { what };
                    bail!(Type, "'{what}' object cannot be interpreted as an integer");
                }
                let shape = &mut w.shape;
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.len() < depth || shape[depth] != items.len() {
                    bail!(
                        Shape,
                        "expected sequence of length {} at dim {depth} (got {})",
                        shape.get(depth).copied().unwrap_or(0),
                        items.len()
                    );
                }
                for item in items {
                    walk(item, depth + 1, w)?;
                }
                Ok(())
            }
            Value::Scalar(s) => {
                number_at(w, depth)?;
                w.out.push(*s);
                Ok(())
            }
            // An int past 64 bits: a float when the data is floats (PyTorch converts it as a
            // double), PyTorch's overflow otherwise (checked once the dtype is known).
            Value::BigInt(b) => {
                number_at(w, depth)?;
                w.big = true;
                w.out.push(Scalar::Float(crate::trace::python::number::big_to_f64(b)?));
                Ok(())
            }
            Value::Tensor(_) => bail!(Unsupported, "tensor() of a list of tensors is not supported; use stack()"),
            other => bail!(Type, "Could not infer dtype of {}", other.type_name()),
        }
    }
    let mut w = Walk { shape: Vec::new(), out: Vec::new(), big: false, leaf: None };
    if let Err(e) = walk(data, 0, &mut w) {
        // A big int beyond the float range still reads as PyTorch's int overflow.
        if e.message() == "int too large to convert to float" {
            bail!(Value, "Overflow when unpacking long long");
        }
        return Err(e);
    }
    let Walk { shape, out: flat, big, .. } = w;
    crate::limits::check_numel(&shape)?;
    let inferred = flat.iter().map(|s| s.dtype()).max().unwrap_or(DType::Float32);
    if big {
        // Only a float among the data (or a float dtype) takes a big int.
        let floats = flat.iter().filter(|s| matches!(s, Scalar::Float(_))).count();
        let big_count = count_big(data);
        if !dtype.is_some_and(|d| d.is_float()) && floats == big_count {
            bail!(Value, "Overflow when unpacking long long");
        }
    }
    let dtype = dtype.unwrap_or(if flat.is_empty() { DType::Float32 } else { inferred });
    let t = engine.from_data(Data::from_scalars(dtype, &flat), &shape)?;
    engine.bridge_note_buffer(&t);
    Ok(t)
}

/// How many ints past 64 bits a nested list holds.
fn count_big(v: &Value) -> usize {
    match &*v.seq_ref() {
        Value::Tuple(items) | Value::Size(items) => items.iter().map(count_big).sum(),
        Value::BigInt(_) => 1,
        _ => 0,
    }
}

// ------------------------------------------------------------------------------- views

/// `where`'s condition: a bool tensor, or a uint8 one read as bool (deprecated in PyTorch,
/// which warns and converts it).
pub(in crate::trace) fn bool_condition(run: &mut RunContext, c: Operand) -> Result<Operand> {
    if let Operand::Tensor(t) = &c {
        match t.dtype() {
            DType::Bool => {}
            DType::UInt8 => {
                let b = run.engine.to_as(t, DType::Bool, crate::torch::format::MemoryFormat::Preserve)?;
                return Ok(Operand::Tensor(b));
            }
            other => bail!(
                DType,
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                other.torch_name().trim_start_matches("torch.")
            ),
        }
    }
    Ok(c)
}

/// Python's `float(x)`, `int(x)` and `bool(x)` of a number, a string (`float('-inf')`) or a
/// one-element tensor.
pub(in crate::trace) fn python_number(run: &mut RunContext, name: &str, v: Value) -> Result<Value> {
    use crate::trace::python::number;
    let x = match v {
        Value::Scalar(s) => s,
        Value::BigInt(b) => {
            return Ok(match name {
                "float" => Value::Scalar(Scalar::Float(number::big_to_f64(&b)?)),
                "int" => Value::BigInt(b),
                _ => Value::Scalar(Scalar::Bool(true)),
            })
        }
        Value::Tensor(t) if t.numel() == 1 => run.engine.values(&t)?.get_scalar(0),
        Value::Tensor(t) => {
            bail!(
                Type,
                "only a Tensor with one element can be converted to a Python scalar, not {} elements",
                t.numel()
            )
        }
        Value::Str(s) => {
            let text = s.trim().to_ascii_lowercase();
            let parsed = match (name, text.as_str()) {
                ("float", "inf" | "+inf" | "infinity") => Some(Scalar::Float(f64::INFINITY)),
                ("float", "-inf" | "-infinity") => Some(Scalar::Float(f64::NEG_INFINITY)),
                ("float", "nan" | "+nan" | "-nan") => Some(Scalar::Float(f64::NAN)),
                ("float", t) => t.parse::<f64>().ok().map(Scalar::Float),
                ("int", _) => return number::parse_int(&s),
                _ => Some(Scalar::Bool(!s.is_empty())),
            };
            match parsed {
                Some(x) => x,
                None => bail!(Type, "could not convert string to {name}: '{s}'"),
            }
        }
        other => bail!(Type, "{name}() argument must be a string or a number, not '{}'", other.type_name()),
    };
    Ok(Value::Scalar(match name {
        "float" => Scalar::Float(x.as_f64()),
        "int" => match x {
            Scalar::Float(f) => return number::float_to_int(f),
            x => Scalar::Int(x.as_i64()),
        },
        _ => Scalar::Bool(x.as_f64() != 0.0),
    }))
}
