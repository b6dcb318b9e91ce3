//! PyTorch's random functions and methods as a trace calls them: `torch.manual_seed`,
//! `torch.Generator`, the factories (`rand`, `randn`, `randint`, `randperm`, the `*_like`
//! forms, `normal`, `bernoulli`), the in-place draws (`normal_`, `uniform_`, `bernoulli_`,
//! `exponential_`, `random_`) and dropout. The engine draws the numbers
//! ([`crate::engine::random`]); this file binds PyTorch's signatures to it.

use crate::autograd::GradOp;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::random::{Distribution, GeneratorId, Generators};
use crate::tensor::{Operand, OverlapRules, Tensor, Write};
use crate::torch::format::MemoryFormat;
use crate::torch::layout::Layout;
use crate::trace::binding::elementwise::{tensor_arg, write_value};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{sizes, Args, Value};
use crate::uop::buffer::Scalar;
use crate::uop::BinaryOp;

/// `torch.X` / `F.X` names bound here.
pub(in crate::trace) const FUNCTIONS: &[&str] = &[
    "manual_seed",
    "initial_seed",
    "Generator",
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "bernoulli",
    "dropout",
];

/// `Tensor.X()` names bound here.
pub(in crate::trace) const METHODS: &[&str] =
    &["normal_", "uniform_", "bernoulli_", "bernoulli", "exponential_", "random_"];

pub fn is_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

pub fn is_method(name: &str) -> bool {
    METHODS.contains(&name)
}

pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "manual_seed" => {
            let seed = seed_arg(&mut args)?;
            args.finish()?;
            run.engine.generators().get_mut(Generators::DEFAULT).manual_seed(seed);
            Ok(Value::Generator(Generators::DEFAULT))
        }
        "initial_seed" => {
            args.finish()?;
            Ok(seed_value(run.engine.generators().get(Generators::DEFAULT).seed()))
        }
        "Generator" => {
            device(&mut args, 0)?;
            args.finish()?;
            Ok(Value::Generator(run.engine.generators().create()))
        }
        "rand" | "randn" => {
            let shape = sizes(args.sizes(0, "size")?)?;
            let (gen, dtype) = factory_kwargs(&mut args)?;
            args.finish()?;
            let dtype = dtype.unwrap_or(DType::Float32);
            let dist = if name == "rand" { UNIFORM } else { STANDARD_NORMAL };
            tensor(run.engine.random(gen, Layout::contiguous(&shape), dtype, dist))
        }
        "randint" => {
            // randint(high, size) or randint(low, high, size); `size` may be a keyword.
            let size_kw = args.kw_only("size");
            let low_kw = args.kw_only("low");
            let bounds = args.len_pos() - usize::from(size_kw.is_none());
            let (low, high, at) = match low_kw {
                Some(low) => (low.as_int("low")?, args.int(0, "high")?, 1),
                None if bounds >= 2 => (args.int(0, "low")?, args.int(1, "high")?, 2),
                None => (0, args.int(0, "high")?, 1),
            };
            let size = match size_kw {
                Some(v) => v,
                None => args.req(at, "size")?,
            };
            let shape = sizes(size.as_ints("size")?)?;
            let (gen, dtype) = factory_kwargs(&mut args)?;
            args.finish()?;
            let dist = integers(low, high)?;
            tensor(run.engine.random(gen, Layout::contiguous(&shape), dtype.unwrap_or(DType::Int64), dist))
        }
        "randperm" => {
            let n = args.int(0, "n")?;
            let (gen, dtype) = factory_kwargs(&mut args)?;
            args.finish()?;
            if n < 0 {
                bail!(Shape, "Trying to create tensor with negative dimension {n}: [{n}]");
            }
            tensor(run.engine.randperm(gen, n as usize, dtype.unwrap_or(DType::Int64)))
        }
        "rand_like" | "randn_like" | "randint_like" => {
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            let dist = match name {
                "rand_like" => UNIFORM,
                "randn_like" => STANDARD_NORMAL,
                _ => {
                    let (low, high) = match args.kw_only("low") {
                        Some(low) => (low.as_int("low")?, args.int(1, "high")?),
                        None if args.len_pos() >= 2 => (args.int(1, "low")?, args.int(2, "high")?),
                        None => (0, args.int(1, "high")?),
                    };
                    integers(low, high)?
                }
            };
            let (gen, dtype) = factory_kwargs(&mut args)?;
            let format = args.memory_format(MemoryFormat::Preserve)?;
            args.finish()?;
            let layout = like_layout(&t, format)?;
            tensor(run.engine.random(gen, layout, dtype.unwrap_or(t.dtype()), dist))
        }
        "normal" => normal(run, args),
        "bernoulli" => {
            let t = tensor_arg(args.req(0, "input")?, "input")?;
            bernoulli(run, t, args.shifted())
        }
        "dropout" => dropout(run, args),
        _ => Err(crate::error::Error::unknown_op(format!("torch.{name}"), name)),
    }
}

pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    // Each form with the autograd node PyTorch records for it on a tensor that requires grad.
    let (dist, node) = match name {
        "bernoulli" => return bernoulli(run, t, args),
        "normal_" => {
            let mean = float_or(&mut args, 0, "mean", 0.0)?;
            let std = float_or(&mut args, 1, "std", 1.0)?;
            (Distribution::Normal { mean, std }, "NormalBackward0")
        }
        "uniform_" => {
            let from = float_or(&mut args, 0, "from", 0.0)?;
            let to = float_or(&mut args, 1, "to", 1.0)?;
            (Distribution::Uniform { from, to }, "UniformBackward0")
        }
        "exponential_" => {
            (Distribution::Exponential { lambda: float_or(&mut args, 0, "lambd", 1.0)? }, "ExponentialBackward0")
        }
        "bernoulli_" => match args.opt(0, "p") {
            Some(Value::Tensor(p)) => {
                let gen = generator(&mut args)?;
                args.finish()?;
                let old = run.engine.begin_tracked_unread(&t, &[&p])?;
                let w = run.engine.bernoulli_tensor_(&t, &p, gen)?;
                return finish_draw(run, &t, w, old, "BernoulliBackward1", Some(&p));
            }
            None | Some(Value::None) => (Distribution::Bernoulli { p: 0.5 }, "BernoulliBackward2"),
            Some(v) => (Distribution::Bernoulli { p: v.as_scalar("p")?.as_f64() }, "BernoulliBackward2"),
        },
        "random_" => random_bounds(&mut args, t.dtype())?,
        _ => return Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    };
    let gen = generator(&mut args)?;
    args.finish()?;
    let old = run.engine.begin_tracked_unread(&t, &[])?;
    let w = run.engine.random_(&t, gen, dist)?;
    finish_draw(run, &t, w, old, node, None)
}

/// After a draw: the write recorded, and the draw's node (its gradients are zeros) when
/// autograd records it.
fn finish_draw(
    run: &mut RunContext,
    t: &Tensor,
    w: Write,
    old: Option<Tensor>,
    node: &'static str,
    p: Option<&Tensor>,
) -> Result<Value> {
    run.record_write(w);
    let target = run.engine.resolve(t);
    if let Some(old) = old {
        run.engine.finish_inplace(&target, GradOp::Fill { node }, old, &[p]);
    }
    Ok(Value::Tensor(target))
}

/// A method of a generator object: `g.manual_seed(s)` (returns `g`), `g.initial_seed()`.
pub fn generator_method(run: &mut RunContext, g: GeneratorId, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "manual_seed" => {
            let seed = seed_arg(&mut args)?;
            args.finish()?;
            run.engine.generators().get_mut(g).manual_seed(seed);
            Ok(Value::Generator(g))
        }
        "initial_seed" => {
            args.finish()?;
            Ok(seed_value(run.engine.generators().get(g).seed()))
        }
        _ => bail!(Type, "'torch._C.Generator' object has no attribute '{name}'"),
    }
}

const UNIFORM: Distribution = Distribution::Uniform { from: 0.0, to: 1.0 };
const STANDARD_NORMAL: Distribution = Distribution::Normal { mean: 0.0, std: 1.0 };

fn tensor(t: Result<Tensor>) -> Result<Value> {
    t.map(Value::Tensor)
}

/// A seed as PyTorch takes one: any Python int, a negative one as its 64-bit two's complement.
/// From -2**63 to 2**64 - 1; past that, PyTorch's overflow.
fn seed_arg(args: &mut Args) -> Result<u64> {
    match args.req(0, "seed")? {
        Value::BigInt(b) => match num_traits::ToPrimitive::to_u64(&*b) {
            Some(s) => Ok(s),
            None => bail!(Value, "Overflow when unpacking long long"),
        },
        v => Ok(v.as_int("seed")? as u64),
    }
}

/// A seed as Python sees it: a 64-bit unsigned int.
fn seed_value(seed: u64) -> Value {
    crate::trace::python::number::int_value(num_bigint::BigInt::from(seed))
}

/// The `generator=` keyword: the default generator when absent or None.
fn generator(args: &mut Args) -> Result<GeneratorId> {
    match args.kw_only("generator") {
        None | Some(Value::None) => Ok(Generators::DEFAULT),
        Some(Value::Generator(g)) => Ok(g),
        Some(v) => {
            bail!(Type, "{}(): argument 'generator' must be torch.Generator, not {}", args.func(), v.type_name())
        }
    }
}

/// `device=` as a factory takes it: only the CPU is there.
fn device(args: &mut Args, i: usize) -> Result<()> {
    match args.opt(i, "device") {
        None | Some(Value::None) => Ok(()),
        Some(Value::Str(s)) if s == "cpu" => Ok(()),
        Some(v) => bail!(Unsupported, "{}(): only device='cpu' is supported, not {v:?}", args.func()),
    }
}

/// The keywords every random factory takes: `generator=`, `dtype=`, `device=` and
/// `requires_grad=` (accepted; the playground records no autograd graph).
fn factory_kwargs(args: &mut Args) -> Result<(GeneratorId, Option<DType>)> {
    let gen = generator(args)?;
    let dtype = args.dtype()?;
    if let Some(v) = args.kw_only("device") {
        if !matches!(&v, Value::None) && !matches!(&v, Value::Str(s) if s == "cpu") {
            bail!(Unsupported, "{}(): only device='cpu' is supported", args.func());
        }
    }
    let _ = args.kw_only("requires_grad");
    Ok((gen, dtype))
}

fn float_or(args: &mut Args, i: usize, name: &str, default: f64) -> Result<f64> {
    match args.opt(i, name) {
        None => Ok(default),
        Some(v) => Ok(v.as_scalar(name)?.as_f64()),
    }
}

/// `random_(from, to)`'s distribution over `[low, high)`, with PyTorch's check.
fn integers(low: i64, high: i64) -> Result<Distribution> {
    if low >= high {
        bail!(Index, "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}");
    }
    Ok(Distribution::Integers { range: high.wrapping_sub(low) as u64, base: low })
}

/// `random_()`, `random_(to)`, `random_(from, to)` and `random_(from, None)`, with the node
/// PyTorch records for each form.
fn random_bounds(args: &mut Args, dtype: DType) -> Result<(Distribution, &'static str)> {
    let first = args.opt(0, "from");
    let second = args.opt(1, "to");
    let dist = match (first, second) {
        (None, None) => return Ok((Distribution::Bits, "RandomBackward2")),
        (Some(to), None) | (None, Some(to)) => return Ok((integers(0, to.as_int("to")?)?, "RandomBackward1")),
        (Some(from), Some(Value::None)) => {
            let from = from.as_int("from")?;
            let to_inc = match dtype {
                DType::Bool => 1,
                DType::Float16 => 1 << 11,
                DType::BFloat16 => 1 << 8,
                DType::Float32 => 1 << 24,
                DType::Float64 => 1 << 53,
                DType::UInt8 => i64::from(u8::MAX),
                DType::Int8 => i64::from(i8::MAX),
                DType::Int16 => i64::from(i16::MAX),
                DType::Int32 => i64::from(i32::MAX),
                DType::Int64 => i64::MAX,
            };
            if from > to_inc {
                bail!(Index, "random_ expects 'from' to be less than or equal to 'to_inc', but got from={from} > to_inc={to_inc}");
            }
            Distribution::Integers { range: (to_inc.wrapping_sub(from) as u64).wrapping_add(1), base: from }
        }
        (Some(from), Some(to)) => integers(from.as_int("from")?, to.as_int("to")?)?,
    };
    Ok((dist, "RandomBackward0"))
}

/// The layout of `empty_like(t, memory_format=format)`.
fn like_layout(t: &Tensor, format: MemoryFormat) -> Result<Layout> {
    if format == MemoryFormat::Preserve {
        Ok(t.layout().empty_like_preserve())
    } else {
        format.dense_layout(t.shape())
    }
}

/// `torch.normal`: (Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor
/// std) and (float mean, float std, size). The tensor forms draw a standard normal (or one of
/// the given std) into a contiguous tensor, then scale and shift it as PyTorch's `mul_`/`add_`
/// do.
fn normal(run: &mut RunContext, mut args: Args) -> Result<Value> {
    let mean = args.req(0, "mean")?;
    let std = args.opt(1, "std");
    match (mean, std) {
        (Value::Tensor(mean), std) => {
            let std = std.unwrap_or(Value::Scalar(Scalar::Float(1.0)));
            let gen = generator(&mut args)?;
            args.finish()?;
            match std {
                Value::Tensor(std) => {
                    check_std_tensor(run, &std)?;
                    let shape = crate::tensor::Engine::broadcast_shapes(&[mean.shape(), std.shape()])?;
                    let r = run.engine.random(gen, Layout::contiguous(&shape), mean.dtype(), STANDARD_NORMAL)?;
                    let scaled = run.engine.binary(BinaryOp::Mul, &Operand::Tensor(r), &Operand::Tensor(std))?;
                    tensor(run.engine.binary(BinaryOp::Add, &Operand::Tensor(scaled), &Operand::Tensor(mean)))
                }
                v => {
                    let std = v.as_scalar("std")?.as_f64();
                    let dist = Distribution::Normal { mean: 0.0, std };
                    dist.check(mean.dtype())?;
                    let r = run.engine.random(gen, Layout::contiguous(mean.shape()), mean.dtype(), dist)?;
                    tensor(run.engine.binary(BinaryOp::Add, &Operand::Tensor(r), &Operand::Tensor(mean)))
                }
            }
        }
        (mean, Some(Value::Tensor(std))) => {
            let mean = mean.as_scalar("mean")?;
            let gen = generator(&mut args)?;
            args.finish()?;
            check_std_tensor(run, &std)?;
            let r = run.engine.random(gen, Layout::contiguous(std.shape()), std.dtype(), STANDARD_NORMAL)?;
            let scaled = run.engine.binary(BinaryOp::Mul, &Operand::Tensor(r), &Operand::Tensor(std))?;
            tensor(run.engine.binary(BinaryOp::Add, &Operand::Tensor(scaled), &Operand::Scalar(mean)))
        }
        (mean, std) => {
            let mean = mean.as_scalar("mean")?.as_f64();
            let std = match std {
                Some(v) => v.as_scalar("std")?.as_f64(),
                None => bail!(Type, "normal() missing required argument 'std' (pos 2)"),
            };
            let shape = sizes(args.req(2, "size")?.as_ints("size")?)?;
            let (gen, dtype) = factory_kwargs(&mut args)?;
            args.finish()?;
            let dist = Distribution::Normal { mean, std };
            tensor(run.engine.random(gen, Layout::contiguous(&shape), dtype.unwrap_or(DType::Float32), dist))
        }
    }
}

fn check_std_tensor(run: &mut RunContext, std: &Tensor) -> Result<()> {
    let values = run.engine.values(std)?.to_f64_vec();
    if values.iter().any(|&s| s.is_nan() || s < 0.0) {
        bail!(Index, "normal expects all elements of std >= 0.0");
    }
    Ok(())
}

/// `torch.bernoulli(input)` (each element of `input` a probability) and
/// `torch.bernoulli(input, p)`: a new tensor, contiguous, in `input`'s dtype.
fn bernoulli(run: &mut RunContext, t: Tensor, mut args: Args) -> Result<Value> {
    let p = args.opt(0, "p");
    let gen = generator(&mut args)?;
    args.finish()?;
    let layout = Layout::contiguous(t.shape());
    match p {
        None | Some(Value::None) => tensor(run.engine.bernoulli(&t, gen)),
        Some(p) => {
            let p = p.as_scalar("p")?.as_f64();
            tensor(run.engine.random(gen, layout, t.dtype(), Distribution::Bernoulli { p }))
        }
    }
}

/// `F.dropout(input, p=0.5, training=True, inplace=False)` and `torch.dropout(input, p,
/// train)`: a mask drawn by `bernoulli_(1 - p)` over `empty_like(input)`, divided by `1 - p`,
/// times the input. Not training, or `p == 0`, returns the input itself.
fn dropout(run: &mut RunContext, mut args: Args) -> Result<Value> {
    let t = tensor_arg(args.req(0, "input")?, "input")?;
    let p = args.opt(1, "p").map(|v| v.as_scalar("p")).transpose()?.unwrap_or(Scalar::Float(0.5));
    let training = match args.opt(2, "training") {
        Some(v) => Some(v),
        None => args.kw_only("train"),
    };
    let training = match training {
        None => true,
        Some(Value::Scalar(s)) => s.as_f64() != 0.0,
        Some(v) => bail!(Type, "dropout(): argument 'training' must be bool, not {}", v.type_name()),
    };
    let inplace = args.bool_or(3, "inplace", false)?;
    args.finish()?;
    let pf = p.as_f64();
    if pf.is_nan() || !(0.0..=1.0).contains(&pf) {
        bail!(Index, "dropout probability has to be between 0 and 1, but got {}", python_number(p));
    }
    if pf == 0.0 || !training || t.numel() == 0 {
        return Ok(Value::Tensor(t));
    }
    let mask = if pf == 1.0 {
        Operand::Tensor(run.engine.full(&[], Scalar::Int(0), Some(t.dtype()))?)
    } else {
        let noise = run.engine.random(
            Generators::DEFAULT,
            t.layout().empty_like_preserve(),
            t.dtype(),
            Distribution::Bernoulli { p: 1.0 - pf },
        )?;
        if !t.dtype().is_float() {
            bail!(DType, "result type Float can't be cast to the desired output type {}", t.dtype().torch_name());
        }
        // `noise.div_(1 - p)`: each kept element becomes 1 / (1 - p) computed in the dtype's
        // math type (float32 below float64) and rounded to the dtype, which multiplying the
        // 0/1 mask by that quotient gives exactly.
        let scale = if t.dtype() == DType::Float64 { 1.0 / (1.0 - pf) } else { f64::from(1.0 / (1.0 - pf) as f32) };
        let scaled =
            run.engine.binary(BinaryOp::Mul, &Operand::Tensor(noise), &Operand::Scalar(Scalar::Float(scale)))?;
        Operand::Tensor(scaled)
    };
    let product = run.engine.binary(BinaryOp::Mul, &Operand::Tensor(t.clone()), &mask)?;
    if inplace {
        return tensor(write_value(run, &t, &product, &[], OverlapRules::ALL));
    }
    Ok(Value::Tensor(product))
}

/// A Python number as `str()` prints it (`1.5`, `2.0`, `3`).
fn python_number(s: Scalar) -> String {
    match s {
        Scalar::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e16 => format!("{f:.1}"),
        Scalar::Float(f) => format!("{f}"),
        Scalar::Int(i) => i.to_string(),
        Scalar::Bool(b) => {
            if b {
                "True".into()
            } else {
                "False".into()
            }
        }
    }
}
