//! The tensor methods: `t.name(...)` for every method a trace may call, answered here or routed
//! to the table that owns the name (random draws, devices, reductions, views, copies, metadata,
//! indexing, the declared ops, the neural-network ops).

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, OverlapRules, Tensor};
use crate::trace::binding::copies;
use crate::trace::binding::decl;
use crate::trace::binding::device;
use crate::trace::binding::elementwise::{self, operand, tensor_arg, write_value};
use crate::trace::binding::library::{bool_condition, int, ints, size, tensor_from_nested, CAST_METHODS};
use crate::trace::binding::meta;
use crate::trace::binding::random;
use crate::trace::binding::reductions;
use crate::trace::binding::subscript::{copy_into, fill};
use crate::trace::binding::views_extra;
use crate::trace::python::context::RunContext;
use crate::trace::python::introspect;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::{Data, Scalar};
use crate::uop::BinaryOp;

/// tinygrad's per-dim argument of shrink/pad: one pair per dim, `None` for "leave this dim".
fn pairs(v: Value, what: &str) -> Result<Vec<Option<(i64, i64)>>> {
    let Some(items) = v.items() else { bail!(Type, "{what} must be a tuple of (begin, end) pairs") };
    items
        .iter()
        .map(|p| {
            if let Value::None = p {
                return Ok(None);
            }
            let xs = p.as_ints(what)?;
            match xs.as_slice() {
                [a, b] => Ok(Some((*a, *b))),
                _ => bail!(Type, "{what} must be a tuple of (begin, end) pairs"),
            }
        })
        .collect()
}

// ------------------------------------------------------------------------------- methods

pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let t = run.engine.resolve(&t);
    run.engine.bridge_op(name);
    if random::is_method(name) {
        return random::method(run, t, name, args);
    }
    if device::METHODS.contains(&name) {
        return device::method(run, &t, name, args);
    }
    if matches!(name, "is_floating_point" | "is_complex") {
        args.finish()?;
        let answer = name == "is_floating_point" && t.dtype().is_float();
        return Ok(Value::Scalar(Scalar::Bool(answer)));
    }
    if let Some((d, inplace)) = decl::method_decl(name) {
        return decl::call_method(run, &t, d, name, inplace, args);
    }
    let tensor = |x: Tensor| Ok(Value::Tensor(x));
    match name {
        // ---- PyTorch view ops
        "view" if matches!(args.peek(0), Some(Value::DType(_))) => {
            let Some(Value::DType(d)) = args.opt(0, "dtype") else {
                bail!(Type, "view(): argument 'dtype' must be torch.dtype")
            };
            args.finish()?;
            tensor(run.engine.view_dtype(&t, d)?)
        }
        "view" | "reshape" => {
            let shape = args.sizes(0, "shape")?;
            args.finish()?;
            tensor(if name == "view" { run.engine.view(&t, &shape)? } else { run.engine.reshape(&t, &shape)? })
        }
        "view_as" | "reshape_as" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            let shape: Vec<i64> = other.shape().iter().map(|&n| n as i64).collect();
            tensor(if name == "view_as" { run.engine.view(&t, &shape)? } else { run.engine.reshape(&t, &shape)? })
        }
        "flatten" => {
            let start = args.int_or(0, "start_dim", 0)?;
            let end = args.int_or(1, "end_dim", -1)?;
            args.finish()?;
            tensor(run.engine.flatten(&t, start, end)?)
        }
        "unflatten" => {
            let dim = args.int(0, "dim")?;
            let sizes = args.req(1, "sizes")?.as_ints("sizes")?;
            args.finish()?;
            tensor(run.engine.unflatten(&t, dim, &sizes)?)
        }
        "squeeze" => {
            let dims = args.dims(0, "dim")?;
            args.finish()?;
            tensor(run.engine.squeeze(&t, dims.as_deref())?)
        }
        "unsqueeze" => {
            let dim = args.int(0, "dim")?;
            args.finish()?;
            tensor(run.engine.unsqueeze(&t, dim)?)
        }
        "permute" => {
            let dims = args.sizes(0, "dims")?;
            args.finish()?;
            tensor(run.engine.permute(&t, &dims)?)
        }
        "transpose" | "swapaxes" | "swapdims" => {
            let a = args.int(0, "dim0")?;
            let b = args.int(1, "dim1")?;
            args.finish()?;
            tensor(run.engine.transpose(&t, a, b)?)
        }
        "t" => {
            args.finish()?;
            tensor(run.engine.t_2d(&t)?)
        }
        "movedim" | "moveaxis" => {
            let src = args.req(0, "source")?.as_ints("source")?;
            let dst = args.req(1, "destination")?.as_ints("destination")?;
            args.finish()?;
            tensor(run.engine.movedim(&t, &src, &dst)?)
        }
        "expand" => {
            let sizes = args.sizes(0, "size")?;
            args.finish()?;
            tensor(run.engine.expand(&t, &sizes)?)
        }
        "expand_as" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            let sizes: Vec<i64> = other.shape().iter().map(|&n| n as i64).collect();
            tensor(run.engine.expand(&t, &sizes)?)
        }
        "narrow" => {
            let dim = args.int(0, "dim")?;
            // `start` may be a 0-d integer tensor, as PyTorch's `narrow.Tensor` overload takes.
            let start = match args.req(1, "start")? {
                Value::Tensor(s) if s.shape().is_empty() && !s.dtype().is_float() => {
                    run.engine.values(&s)?.get_f64(0) as i64
                }
                other => other.as_int("start")?,
            };
            let length = args.int(2, "length")?;
            args.finish()?;
            tensor(run.engine.narrow(&t, dim, start, length)?)
        }
        "select" => {
            let dim = args.int(0, "dim")?;
            let i = args.int(1, "index")?;
            args.finish()?;
            tensor(run.engine.select(&t, dim, i)?)
        }
        "diagonal" => {
            let offset = args.int_or(0, "offset", 0)?;
            let d1 = args.int_or(1, "dim1", 0)?;
            let d2 = args.int_or(2, "dim2", 1)?;
            args.finish()?;
            tensor(run.engine.diagonal(&t, offset, d1, d2)?)
        }
        "unfold" => {
            let dim = args.int(0, "dimension")?;
            let size = args.int(1, "size")?;
            let step = args.int(2, "step")?;
            args.finish()?;
            tensor(run.engine.unfold(&t, dim, size, step)?)
        }
        "as_strided" => {
            let size = args.req(0, "size")?.as_ints("size")?;
            let stride = args.req(1, "stride")?.as_ints("stride")?;
            let offset = args.opt_int(2, "storage_offset")?;
            args.finish()?;
            tensor(run.engine.as_strided(&t, &size, &stride, offset)?)
        }
        "detach" => {
            args.finish()?;
            let d = run.engine.alias(&t)?;
            run.engine.forget(&d);
            tensor(d)
        }
        "flip" => {
            let dims = args.sizes(0, "dims")?;
            args.finish()?;
            tensor(run.engine.flip(&t, &dims)?)
        }
        "shrink" => {
            let arg = pairs(args.req(0, "arg")?, "shrink arg")?;
            args.finish()?;
            let arg: Vec<(i64, i64)> = arg.iter().zip(t.shape()).map(|(p, &n)| p.unwrap_or((0, n as i64))).collect();
            tensor(run.engine.shrink(&t, &arg)?)
        }
        "pad" => {
            let arg = pairs(args.req(0, "arg")?, "pad arg")?;
            let value = args.opt(1, "value").map(|v| v.as_scalar("value")).transpose()?;
            args.finish()?;
            let arg: Vec<(i64, i64)> = arg.iter().map(|p| p.unwrap_or((0, 0))).collect();
            tensor(run.engine.pad(&t, &arg, value)?)
        }
        _ if name == "type" || CAST_METHODS.iter().any(|(n, _)| *n == name) => {
            let dtype = match CAST_METHODS.iter().find(|(n, _)| *n == name) {
                Some(&(_, d)) => d,
                None => match args.opt(0, "dtype") {
                    // `x.type()`: the legacy class name.
                    None => {
                        args.finish()?;
                        return Ok(Value::Str(crate::trace::binding::query::type_string(t.dtype())));
                    }
                    Some(Value::DType(d)) => d,
                    // `x.type('torch.DoubleTensor')`, `x.type(torch.LongTensor)`.
                    Some(Value::Str(class)) => match introspect::class_dtype(&class) {
                        Some(d) => d,
                        None => bail!(Value, "invalid type: '{class}'"),
                    },
                    Some(Value::Type(class)) => match introspect::class_dtype(class) {
                        Some(d) => d,
                        None => bail!(Type, "type(): invalid type {class}"),
                    },
                    Some(other) => bail!(Type, "to() expects a dtype, got {}", other.type_name()),
                },
            };
            // `copy=True` always makes a new tensor; otherwise the same dtype is the same tensor.
            let copy = args.kw_only("copy").is_some_and(|v| matches!(v, Value::Scalar(Scalar::Bool(true))));
            let format = args.kw_only("memory_format");
            let _ = args.kw_only("non_blocking");
            args.finish()?;
            if let Some(Value::Format(format)) = format {
                // `x.float(memory_format=...)` is `x.to(torch.float32, memory_format=...)`.
                tensor(run.engine.to_as(&t, dtype, format)?)
            } else if dtype == t.dtype() && copy {
                tensor(run.engine.copy(&t)?)
            } else if dtype == t.dtype() {
                tensor(t)
            } else {
                tensor(run.engine.cast(&t, dtype)?)
            }
        }
        // ---- queries
        "size" | "stride" => {
            let dim = args.opt_int(0, "dim")?;
            args.finish()?;
            let vals: Vec<i64> = if name == "size" {
                t.shape().iter().map(|&n| n as i64).collect()
            } else {
                t.layout().strides().to_vec()
            };
            match dim {
                Some(d) => Ok(int(vals[wrap_dim(d, vals.len())?])),
                None if name == "size" => Ok(size(t.shape())),
                None => Ok(ints(vals.into_iter())),
            }
        }
        "storage_offset" => {
            args.finish()?;
            Ok(int(t.layout().offset()))
        }
        "dim" | "ndimension" => {
            args.finish()?;
            Ok(int(t.shape().len() as i64))
        }
        "numel" | "nelement" => {
            args.finish()?;
            Ok(int(t.numel() as i64))
        }
        "element_size" => {
            args.finish()?;
            Ok(int(t.dtype().itemsize() as i64))
        }
        "item" => {
            args.finish()?;
            if t.numel() != 1 {
                bail!(Shape, "a Tensor with {} elements cannot be converted to Scalar", t.numel());
            }
            let v = run.engine.values(&t)?;
            Ok(Value::Scalar(v.get_scalar(0)))
        }
        "tolist" => {
            args.finish()?;
            // Python numbers are values of their own (tens of bytes each): checked before
            // anything is read, as every list is bounded.
            let most = crate::trace::python::value::MAX_SEQUENCE;
            if t.numel() > most {
                bail!(Limit, "tolist() of {} elements: a list may hold at most {most} numbers", t.numel());
            }
            let v = run.engine.values(&t)?;
            Ok(nested_list(&v, t.shape(), &mut 0))
        }
        // ---- elementwise
        "clamp" | "clip" => {
            let lo = args.opt(0, "min");
            let hi = args.opt(1, "max");
            args.finish()?;
            tensor(clamp(run, &t, lo, hi)?)
        }
        "where" => {
            let c = operand(args.req(0, "condition")?, "condition")?;
            let y = operand(args.req(1, "other")?, "other")?;
            let c = bool_condition(run, c)?;
            args.finish()?;
            tensor(run.engine.where_(&c, &Operand::Tensor(t), &y)?)
        }
        "matmul" => {
            let other = tensor_arg(args.req(0, "other")?, "other")?;
            args.finish()?;
            tensor(run.engine.matmul(&t, &other)?)
        }
        "mm" | "mv" | "dot" | "bmm" => {
            let what = match name {
                "mm" => "mat2",
                "mv" => "vec",
                "dot" => "tensor",
                _ => "mat2",
            };
            let other = tensor_arg(args.req(0, what)?, what)?;
            args.finish()?;
            fixed_rank_product(run, name, &t, &other)
        }
        _ if reductions::is_method(name) => reductions::method(run, t, name, args),
        // ---- in-place
        "zero_" => {
            args.finish()?;
            tensor(fill(run, &t, Operand::Scalar(Scalar::Int(0)), name)?)
        }
        "fill_" => {
            let v = operand(args.req(0, "value")?, "value")?;
            args.finish()?;
            if let Operand::Tensor(v) = &v {
                if !v.shape().is_empty() {
                    bail!(
                        Shape,
                        "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                        v.shape().len()
                    );
                }
            }
            tensor(fill(run, &t, v, name)?)
        }
        "copy_" => {
            let src = tensor_arg(args.req(0, "src")?, "src")?;
            args.finish()?;
            tensor(copy_into(run, &t, &src, name)?)
        }
        "clamp_" | "clip_" => {
            let lo = args.opt(0, "min");
            let hi = args.opt(1, "max");
            args.finish()?;
            let value = clamp(run, &t, lo, hi)?;
            tensor(write_value(run, &t, &value, std::slice::from_ref(&t), OverlapRules::ALL)?)
        }
        _ if views_extra::is_method(name) => views_extra::method(run, t, name, args),
        _ if crate::trace::binding::indexing::is_method(name) => {
            crate::trace::binding::indexing::method(run, t, name, args)
        }
        "new_tensor" => {
            let data = args.req(0, "data")?;
            let dtype = args.dtype()?.unwrap_or(t.dtype());
            args.finish()?;
            tensor(match data {
                Value::Tensor(src) => {
                    let copy = run.engine.copy(&src)?;
                    run.engine.cast(&copy, dtype)?
                }
                other => tensor_from_nested(run.engine, &other, Some(dtype))?,
            })
        }
        _ if copies::is_method(name) => copies::method(run, &t, name, args),
        _ if meta::is_method(name) => meta::method(run, t, name, args),
        _ => match elementwise::method_entry(name) {
            Some(entry) => elementwise::call_method(run, &t, entry, name, args),
            None => crate::trace::binding::functional::method(run.engine, t, name, args),
        },
    }
}

fn clamp(run: &mut RunContext, t: &Tensor, lo: Option<Value>, hi: Option<Value>) -> Result<Tensor> {
    let lo = lo.filter(|v| !matches!(v, Value::None)).map(|v| operand(v, "min")).transpose()?;
    let hi = hi.filter(|v| !matches!(v, Value::None)).map(|v| operand(v, "max")).transpose()?;
    if lo.is_none() && hi.is_none() {
        bail!(Type, "torch.clamp: At least one of 'min' or 'max' must not be None");
    }
    let mut ops: Vec<&Operand> = vec![];
    let me = Operand::Tensor(t.clone());
    ops.push(&me);
    ops.extend(lo.iter());
    ops.extend(hi.iter());
    let dtype = run.engine.promote(&ops);
    // PyTorch compares with the bound's own value: an integer bound past the dtype's range
    // bounds nothing below it (`uint8.clamp(-1, 3)` keeps 0), so it is saturated, not wrapped.
    let saturate = |o: Option<Operand>| match (o, dtype.int_range()) {
        (Some(Operand::Scalar(Scalar::Int(i))), Some((min, max))) => {
            Some(Operand::Scalar(Scalar::Int(i.clamp(min, max))))
        }
        (o, _) => o,
    };
    let (lo, hi) = (saturate(lo), saturate(hi));
    let mut cur = if dtype == t.dtype() { t.clone() } else { run.engine.cast(t, dtype)? };
    if let Some(lo) = &lo {
        cur = run.engine.binary(BinaryOp::Max, &Operand::Tensor(cur), lo)?;
    }
    if let Some(hi) = &hi {
        cur = run.engine.binary(BinaryOp::Min, &Operand::Tensor(cur), hi)?;
    }
    Ok(cur)
}

/// `t.tolist()`: Python numbers nested as the shape (a 0-d tensor gives the number itself).
fn nested_list(v: &Data, shape: &[usize], at: &mut usize) -> Value {
    match shape.split_first() {
        None => {
            let x = Value::Scalar(v.get_scalar(*at));
            *at += 1;
            x
        }
        Some((&n, rest)) => Value::list((0..n).map(|_| nested_list(v, rest, at)).collect()),
    }
}

/// `mm`, `mv`, `dot` and `bmm`: matmul restricted to one pair of ranks, with PyTorch's
/// refusals (no broadcasting, no dtype promotion).
fn fixed_rank_product(run: &mut RunContext, name: &str, a: &Tensor, b: &Tensor) -> Result<Value> {
    let (sa, sb) = (a.shape(), b.shape());
    let dims = |s: &[usize]| s.iter().map(|n| n.to_string()).collect::<Vec<_>>().join("x");
    match name {
        "mm" => {
            for (t, what) in [(sa, "self"), (sb, "mat2")] {
                if t.len() != 2 {
                    bail!(Shape, "mm: {what} must be a matrix, got {}-D tensor", t.len());
                }
            }
            if sa[1] != sb[0] {
                bail!(Shape, "mm: mat1 and mat2 shapes cannot be multiplied ({} and {})", dims(sa), dims(sb));
            }
        }
        "mv" => {
            if sa.len() != 2 || sb.len() != 1 {
                bail!(Shape, "vector + matrix @ vector expected, got 1, {}, {}", sa.len(), sb.len());
            }
            if sa[1] != sb[0] {
                bail!(Shape, "size mismatch, got input ({}), mat ({}), vec ({})", sa[0], dims(sa), sb[0]);
            }
        }
        "dot" => {
            if sa.len() != 1 || sb.len() != 1 {
                bail!(Shape, "1D tensors expected, but got {}D and {}D tensors", sa.len(), sb.len());
            }
            if a.dtype() != b.dtype() {
                bail!(
                    DType,
                    "dot : expected both vectors to have same dtype, but found {} and {}",
                    a.dtype().torch_name(),
                    b.dtype().torch_name()
                );
            }
            if sa[0] != sb[0] {
                bail!(
                    Shape,
                    "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                    sa[0],
                    sb[0],
                    sa[0],
                    sb[0]
                );
            }
        }
        _ => {
            for (t, what) in [(sa, "batch1"), (sb, "batch2")] {
                if t.len() != 3 {
                    bail!(Shape, "{what} must be a 3D tensor");
                }
            }
            if sb[0] != sa[0] || sb[1] != sa[2] {
                bail!(
                    Shape,
                    "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                    sa[0],
                    sa[2],
                    sb[0],
                    sb[1]
                );
            }
        }
    }
    if a.dtype() != b.dtype() {
        // PyTorch names the C++ element types here.
        let c = |d: DType| match d {
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Int64 => "long int",
            DType::Int32 => "int",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            other => other.name(),
        };
        bail!(DType, "expected m1 and m2 to have the same dtype, but got: {} != {}", c(a.dtype()), c(b.dtype()));
    }
    let out = run.engine.matmul(a, b)?;
    if name == "bmm" {
        run.engine.rename_grad_fn(&out, "BmmBackward0");
    }
    Ok(Value::Tensor(out))
}

/// Whether `name` is a tensor method: a declared op's method or in-place form, or a name of one
/// of the older op tables.
pub fn is_tensor_method(name: &str) -> bool {
    let tables: [&[&str]; 10] = [
        crate::trace::binding::autograd::METHODS,
        crate::trace::binding::library::METHODS,
        copies::METHODS_ONLY,
        crate::trace::binding::indexing::METHODS,
        crate::trace::binding::meta::METHODS,
        crate::trace::binding::random::METHODS,
        crate::trace::binding::reductions::METHODS,
        crate::trace::binding::views_extra::METHODS,
        crate::trace::binding::device::METHODS,
        copies::FUNCTIONS,
    ];
    let declared = decl::table::DECLS.iter().any(|d| {
        let named = std::iter::once(&d.name).chain(d.aliases).any(|n| *n == name);
        let inplace = name.strip_suffix('_').is_some_and(|base| d.name == base) && d.has(decl::Space::Inplace);
        (named && d.has(decl::Space::Method)) || inplace
    });
    declared
        || tables.iter().any(|t| t.contains(&name))
        || crate::trace::binding::library::CAST_METHODS.iter().any(|(n, _)| *n == name)
        || crate::uop::UnaryOp::from_name(name).is_some()
        || crate::uop::UnaryOp::from_inplace_name(name).is_some()
        || crate::uop::BinaryOp::from_name(name).is_some()
        || crate::uop::BinaryOp::from_inplace_name(name).is_some()
        || crate::trace::binding::elementwise::method_entry(name).is_some()
}
