//! The handlers of the declared ops: each is PyTorch's definition of the op written over the
//! engine's typed API (or over torch ops the library already binds, called by name with
//! [`op`], as PyTorch's composite ops call other ops). Arguments arrive bound and typed.

use super::super::context::RunContext;
use super::super::library;
use super::super::signature::Bound;
use super::super::value::{Args, Value};
use crate::dtype::DType;
use crate::engine::nn::{PoolKind, SoftmaxKind, Window2d};
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

type Out = Result<Value>;

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

fn f(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

fn v(x: Tensor) -> Out {
    Ok(Value::Tensor(x))
}

fn tv(x: &Tensor) -> Value {
    Value::Tensor(x.clone())
}

fn int(x: i64) -> Value {
    Value::Scalar(Scalar::Int(x))
}

/// A torch op the library binds, called by name (`op(run, "sum", ...)`).
fn op(run: &mut RunContext, name: &str, pos: Vec<Value>, kw: Vec<(&str, Value)>) -> Result<Tensor> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    match library::function(run, name, Args::new(name, pos, kw))? {
        Value::Tensor(x) => Ok(x),
        other => bail!(Type, "{name}() returned {}, not a Tensor", other.type_name()),
    }
}

fn bin(run: &mut RunContext, o: BinaryOp, a: &Operand, b: &Operand) -> Result<Tensor> {
    run.engine.binary(o, a, b)
}

fn un(run: &mut RunContext, o: UnaryOp, a: &Tensor) -> Result<Tensor> {
    run.engine.unary(o, a)
}

fn float_only(x: &Tensor, name: &str) -> Result<()> {
    if !x.dtype().is_float() {
        bail!(DType, "\"{name}\" not implemented for '{}'", x.dtype().torch_name());
    }
    Ok(())
}

/// `x` in a float dtype: integers and bool compute in float32, as PyTorch's float ops do.
fn floated(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_float() {
        Ok(x.clone())
    } else {
        run.engine.cast(x, DType::Float32)
    }
}

// ------------------------------------------------------------------------ classification

fn nan_mask(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_float() {
        bin(run, BinaryOp::CmpNe, &t(x), &t(x))
    } else {
        run.engine.full(x.shape(), Scalar::Bool(false), Some(DType::Bool))
    }
}

pub fn isnan(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(nan_mask(run, &x)?)
}

fn inf_mask(run: &mut RunContext, x: &Tensor, sign: Option<f64>) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return run.engine.full(x.shape(), Scalar::Bool(false), Some(DType::Bool));
    }
    match sign {
        None => {
            let a = un(run, UnaryOp::Abs, x)?;
            bin(run, BinaryOp::CmpEq, &t(&a), &f(f64::INFINITY))
        }
        Some(s) => bin(run, BinaryOp::CmpEq, &t(x), &f(s * f64::INFINITY)),
    }
}

pub fn isinf(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(inf_mask(run, &x, None)?)
}

pub fn isposinf(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(inf_mask(run, &x, Some(1.0))?)
}

pub fn isneginf(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(inf_mask(run, &x, Some(-1.0))?)
}

pub fn isfinite(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if !x.dtype().is_float() {
        return v(run.engine.full(x.shape(), Scalar::Bool(true), Some(DType::Bool))?);
    }
    // x - x is 0 for every finite x, NaN for NaN and the infinities.
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&x))?;
    v(bin(run, BinaryOp::CmpEq, &t(&d), &f(0.0))?)
}

pub fn isreal(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(run.engine.full(x.shape(), Scalar::Bool(true), Some(DType::Bool))?)
}

pub fn signbit(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if !x.dtype().is_float() {
        return v(bin(run, BinaryOp::CmpLt, &t(&x), &Operand::Scalar(Scalar::Int(0)))?);
    }
    // copysign(1, x) is -1 for -0.0 and negative NaNs too.
    let one = run.engine.full_like(&x, Scalar::Float(1.0), x.dtype())?;
    let s = bin(run, BinaryOp::Copysign, &t(&one), &t(&x))?;
    v(bin(run, BinaryOp::CmpLt, &t(&s), &f(0.0))?)
}

// ---------------------------------------------------------------------------- logical ops

fn logical(run: &mut RunContext, b: &Bound, o: BinaryOp) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    let xb = run.engine.cast(&x, DType::Bool)?;
    let yb = run.engine.cast(&y, DType::Bool)?;
    let r = bin(run, o, &t(&xb), &t(&yb))?;
    // The in-place form casts back into the input's dtype (`write_value`).
    v(r)
}

pub fn logical_and(run: &mut RunContext, b: &Bound) -> Out {
    logical(run, b, BinaryOp::And)
}

pub fn logical_or(run: &mut RunContext, b: &Bound) -> Out {
    logical(run, b, BinaryOp::Or)
}

pub fn logical_xor(run: &mut RunContext, b: &Bound) -> Out {
    logical(run, b, BinaryOp::Xor)
}

// ----------------------------------------------------------------------- elementwise maths

/// The largest finite value of a float dtype.
fn finite_max(d: DType) -> f64 {
    match d {
        DType::Float64 => f64::MAX,
        DType::Float16 => 65504.0,
        DType::BFloat16 => 3.389_531_389_251_535_5e38,
        _ => f64::from(f32::MAX),
    }
}

pub fn nan_to_num(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if !x.dtype().is_float() {
        return v(op(run, "clone", vec![tv(&x)], vec![])?);
    }
    let big = finite_max(x.dtype());
    let nan = b.opt_float("nan").unwrap_or(0.0);
    let pos = b.opt_float("posinf").unwrap_or(big);
    let neg = b.opt_float("neginf").unwrap_or(-big);
    let isnan = nan_mask(run, &x)?;
    let ispos = inf_mask(run, &x, Some(1.0))?;
    let isneg = inf_mask(run, &x, Some(-1.0))?;
    let r = run.engine.where_(&t(&isneg), &f(neg), &t(&x))?;
    let r = run.engine.where_(&t(&ispos), &f(pos), &t(&r))?;
    let r = run.engine.where_(&t(&isnan), &f(nan), &t(&r))?;
    v(run.engine.cast(&r, x.dtype())?)
}

pub fn xlogy(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.value("input");
    let y = b.value("other");
    let xo = super::super::elementwise::operand(x, "input")?;
    let yo = super::super::elementwise::operand(y, "other")?;
    let ((Operand::Tensor(_), _) | (_, Operand::Tensor(_))) = (&xo, &yo) else {
        bail!(Type, "xlogy(): at least one of 'input' and 'other' must be a Tensor")
    };
    // x * log(y), 0 where x == 0 unless y is NaN.
    let yt = match &yo {
        Operand::Tensor(y) => floated(run, y)?,
        Operand::Scalar(s) => run.engine.full(&[], Scalar::Float(s.as_f64()), Some(DType::Float32))?,
    };
    let ly = un(run, UnaryOp::Log, &yt)?;
    let prod = bin(run, BinaryOp::Mul, &xo, &t(&ly))?;
    let zero_x = bin(run, BinaryOp::CmpEq, &xo, &f(0.0))?;
    let y_nan = nan_mask(run, &yt)?;
    let not_nan = run.engine.logical_not(&y_nan)?;
    let both = bin(run, BinaryOp::And, &t(&zero_x), &t(&not_nan))?;
    let r = run.engine.where_(&t(&both), &f(0.0), &t(&prod))?;
    v(run.engine.cast(&r, prod.dtype())?)
}

fn logaddexp_base(run: &mut RunContext, b: &Bound, two: bool) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let y = floated(run, &b.tensor("other")?)?;
    // max(x, y) + log(1 + exp(-|x - y|)), in base 2 for logaddexp2; equal infinities give
    // themselves.
    let m = bin(run, BinaryOp::Max, &t(&x), &t(&y))?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let a = un(run, UnaryOp::Abs, &d)?;
    let na = bin(run, BinaryOp::Mul, &t(&a), &f(-1.0))?;
    let tail = if two {
        let e = un(run, UnaryOp::Exp2, &na)?;
        let l = un(run, UnaryOp::Log1p, &e)?;
        bin(run, BinaryOp::Mul, &t(&l), &f(std::f64::consts::LOG2_E))?
    } else {
        let e = un(run, UnaryOp::Exp, &na)?;
        un(run, UnaryOp::Log1p, &e)?
    };
    let r = bin(run, BinaryOp::Add, &t(&m), &t(&tail))?;
    let same_inf = {
        let eq = bin(run, BinaryOp::CmpEq, &t(&x), &t(&y))?;
        let inf = inf_mask(run, &x, None)?;
        bin(run, BinaryOp::And, &t(&eq), &t(&inf))?
    };
    v(run.engine.where_(&t(&same_inf), &t(&x), &t(&r))?)
}

pub fn logaddexp(run: &mut RunContext, b: &Bound) -> Out {
    logaddexp_base(run, b, false)
}

pub fn logaddexp2(run: &mut RunContext, b: &Bound) -> Out {
    logaddexp_base(run, b, true)
}

pub fn sinc(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let px = bin(run, BinaryOp::Mul, &t(&x), &f(std::f64::consts::PI))?;
    let s = un(run, UnaryOp::Sin, &px)?;
    let q = bin(run, BinaryOp::Div, &t(&s), &t(&px))?;
    let zero = bin(run, BinaryOp::CmpEq, &t(&x), &f(0.0))?;
    v(run.engine.where_(&t(&zero), &f(1.0), &t(&q))?)
}

fn scale(run: &mut RunContext, b: &Bound, k: f64) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "deg2rad")?;
    v(bin(run, BinaryOp::Mul, &t(&x), &f(k))?)
}

pub fn deg2rad(run: &mut RunContext, b: &Bound) -> Out {
    scale(run, b, std::f64::consts::PI / 180.0)
}

pub fn rad2deg(run: &mut RunContext, b: &Bound) -> Out {
    scale(run, b, 180.0 / std::f64::consts::PI)
}

pub fn sgn(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(un(run, UnaryOp::Sign, &x)?)
}

pub fn positive(_run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if x.dtype() == DType::Bool {
        bail!(Type, "The `+` operator, on a bool tensor is not supported.");
    }
    Ok(Value::Tensor(x))
}

pub fn logit(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let x = match b.opt_float("eps") {
        Some(e) => {
            let lo = bin(run, BinaryOp::Max, &t(&x), &f(e))?;
            bin(run, BinaryOp::Min, &t(&lo), &f(1.0 - e))?
        }
        None => x,
    };
    let one_minus = bin(run, BinaryOp::Sub, &f(1.0), &t(&x))?;
    let q = bin(run, BinaryOp::Div, &t(&x), &t(&one_minus))?;
    v(un(run, UnaryOp::Log, &q)?)
}

pub fn float_power(run: &mut RunContext, b: &Bound) -> Out {
    let to64 = |run: &mut RunContext, v: Value| -> Result<Operand> {
        Ok(match v {
            Value::Tensor(x) => Operand::Tensor(run.engine.cast(&x, DType::Float64)?),
            Value::Scalar(s) => Operand::Scalar(Scalar::Float(s.as_f64())),
            other => bail!(Type, "float_power(): argument must be Tensor or Number, not {}", other.type_name()),
        })
    };
    let x = to64(run, b.value("input"))?;
    let e = to64(run, b.value("exponent"))?;
    v(bin(run, BinaryOp::Pow, &x, &e)?)
}

pub fn heaviside(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let values = b.tensor("values")?;
    if x.dtype() != values.dtype() {
        bail!(
            DType,
            "heaviside is not yet implemented for tensors with different dtypes, got {} and {}",
            x.dtype().torch_name(),
            values.dtype().torch_name()
        );
    }
    let pos = bin(run, BinaryOp::CmpLt, &Operand::Scalar(Scalar::Int(0)), &t(&x))?;
    let pos = run.engine.cast(&pos, x.dtype())?;
    let zero = bin(run, BinaryOp::CmpEq, &t(&x), &Operand::Scalar(Scalar::Int(0)))?;
    let r = run.engine.where_(&t(&zero), &t(&values), &t(&pos))?;
    v(run.engine.cast(&r, x.dtype())?)
}

pub fn ndtr(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let z = bin(run, BinaryOp::Mul, &t(&x), &f(std::f64::consts::FRAC_1_SQRT_2))?;
    let e = un(run, UnaryOp::Erf, &z)?;
    let one = bin(run, BinaryOp::Add, &t(&e), &f(1.0))?;
    v(bin(run, BinaryOp::Mul, &t(&one), &f(0.5))?)
}

pub fn entr(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    // -x log x for x > 0, 0 at 0, -inf below.
    let l = un(run, UnaryOp::Log, &x)?;
    let p = bin(run, BinaryOp::Mul, &t(&x), &t(&l))?;
    let p = bin(run, BinaryOp::Mul, &t(&p), &f(-1.0))?;
    let zero = bin(run, BinaryOp::CmpEq, &t(&x), &f(0.0))?;
    let neg = bin(run, BinaryOp::CmpLt, &t(&x), &f(0.0))?;
    let r = run.engine.where_(&t(&zero), &f(0.0), &t(&p))?;
    v(run.engine.where_(&t(&neg), &f(f64::NEG_INFINITY), &t(&r))?)
}

// ------------------------------------------------------------------------- activations

pub fn selu(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "elu")?;
    const ALPHA: f64 = 1.673_263_242_354_377_3;
    const SCALE: f64 = 1.050_700_987_355_480_5;
    let e = run.engine.elu(&x, ALPHA)?;
    v(bin(run, BinaryOp::Mul, &t(&e), &f(SCALE))?)
}

pub fn celu(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "elu")?;
    let alpha = b.float("alpha");
    if alpha == 0.0 {
        bail!(Shape, "ZeroDivisionError");
    }
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): elu of x / alpha, scaled.
    let s = bin(run, BinaryOp::Div, &t(&x), &f(alpha))?;
    let e = run.engine.elu(&s, 1.0)?;
    let neg = bin(run, BinaryOp::Mul, &t(&e), &f(alpha))?;
    let pos = bin(run, BinaryOp::CmpLt, &f(0.0), &t(&x))?;
    v(run.engine.where_(&t(&pos), &t(&x), &t(&neg))?)
}

pub fn softsign(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let a = un(run, UnaryOp::Abs, &x)?;
    let d = bin(run, BinaryOp::Add, &t(&a), &Operand::Scalar(Scalar::Int(1)))?;
    v(bin(run, BinaryOp::Div, &t(&x), &t(&d))?)
}

pub fn tanhshrink(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let th = un(run, UnaryOp::Tanh, &x)?;
    v(bin(run, BinaryOp::Sub, &t(&x), &t(&th))?)
}

fn shrink(run: &mut RunContext, b: &Bound, soft: bool) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, if soft { "softshrink_cpu" } else { "hardshrink_cpu" })?;
    let l = b.float("lambd");
    if soft && l < 0.0 {
        bail!(Shape, "lambda must be greater or equal to 0, but found to be {l}.");
    }
    let a = un(run, UnaryOp::Abs, &x)?;
    let keep = bin(run, BinaryOp::CmpLt, &f(l), &t(&a))?;
    let inside = if soft {
        let s = un(run, UnaryOp::Sign, &x)?;
        let ls = bin(run, BinaryOp::Mul, &t(&s), &f(l))?;
        bin(run, BinaryOp::Sub, &t(&x), &t(&ls))?
    } else {
        x.clone()
    };
    let zero = run.engine.full_like(&x, Scalar::Float(0.0), x.dtype())?;
    let r = run.engine.where_(&t(&keep), &t(&inside), &t(&zero))?;
    v(run.engine.cast(&r, x.dtype())?)
}

pub fn softshrink(run: &mut RunContext, b: &Bound) -> Out {
    shrink(run, b, true)
}

pub fn hardshrink(run: &mut RunContext, b: &Bound) -> Out {
    shrink(run, b, false)
}

pub fn threshold(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let th = b.scalar("threshold").unwrap_or(Scalar::Int(0));
    let value = b.scalar("value").unwrap_or(Scalar::Int(0));
    let keep = bin(run, BinaryOp::CmpLt, &Operand::Scalar(th), &t(&x))?;
    let r = run.engine.where_(&t(&keep), &t(&x), &Operand::Scalar(value))?;
    v(run.engine.cast(&r, x.dtype())?)
}

pub fn glu(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    if nd == 0 {
        bail!(Shape, "glu does not support scalars because halving size must be even");
    }
    let d = wrap_dim(b.int("dim"), nd)?;
    let n = x.shape()[d];
    if n % 2 != 0 {
        bail!(Shape, "Halving dimension must be even, but dimension {d} is size {n}");
    }
    let half = (n / 2) as i64;
    let a = run.engine.narrow(&x, d as i64, 0, half)?;
    let g = run.engine.narrow(&x, d as i64, half, half)?;
    let s = un(run, UnaryOp::Sigmoid, &g)?;
    v(bin(run, BinaryOp::Mul, &t(&a), &t(&s))?)
}

pub fn prelu(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let w = b.tensor("weight")?;
    float_only(&x, "prelu_cpu")?;
    let nd = x.shape().len();
    let channels = if nd >= 2 { x.shape()[1] } else { 1 };
    if w.numel() != 1 && w.numel() != channels {
        bail!(
            Shape,
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and channel size = {channels}.",
            w.numel()
        );
    }
    // The weight along dim 1 (one value per channel) or one value for all.
    let w = if w.numel() == 1 || nd < 2 {
        run.engine.reshape(&w, &[])?
    } else {
        let mut shape = vec![1i64; nd];
        shape[1] = channels as i64;
        run.engine.reshape(&w, &shape)?
    };
    let neg = bin(run, BinaryOp::Mul, &t(&x), &t(&w))?;
    let pos = bin(run, BinaryOp::CmpLt, &f(0.0), &t(&x))?;
    v(run.engine.where_(&t(&pos), &t(&x), &t(&neg))?)
}

// --------------------------------------------------------------------------- reductions

/// The dims a reduction's `dim` argument names (all when None).
fn axes(b: &Bound, x: &Tensor, name: &str) -> Result<Vec<usize>> {
    let nd = x.shape().len();
    match b.ints(name) {
        None => Ok((0..nd).collect()),
        Some(ds) => {
            let mut out = Vec::new();
            for d in ds {
                let a = wrap_dim(d, nd)?;
                if out.contains(&a) {
                    bail!(Index, "dim {a} appears multiple times in the list of dims");
                }
                if nd > 0 {
                    out.push(a);
                }
            }
            Ok(out)
        }
    }
}

fn dims_value(ax: &[usize]) -> Value {
    Value::Tuple(ax.iter().map(|&d| int(d as i64)).collect())
}

pub fn count_nonzero(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let ax = axes(b, &x, "dim")?;
    let nz = bin(run, BinaryOp::CmpNe, &t(&x), &Operand::Scalar(Scalar::Int(0)))?;
    let nz = run.engine.cast(&nz, DType::Int64)?;
    v(run.engine.reduce(ReduceOp::Sum, &nz, &ax, KeepDim::Drop)?)
}

fn zero_nans(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Ok(x.clone());
    }
    let n = nan_mask(run, x)?;
    let r = run.engine.where_(&t(&n), &f(0.0), &t(x))?;
    run.engine.cast(&r, x.dtype())
}

pub fn nansum(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let ax = axes(b, &x, "dim")?;
    let z = zero_nans(run, &x)?;
    let mut kw = vec![("keepdim", Value::Scalar(Scalar::Bool(b.bool("keepdim"))))];
    if let Some(d) = b.dtype("dtype") {
        kw.push(("dtype", Value::DType(d)));
    }
    v(op(run, "sum", vec![tv(&z), dims_value(&ax)], kw)?)
}

pub fn nanmean(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "nanmean")?;
    let ax = axes(b, &x, "dim")?;
    let keep = Value::Scalar(Scalar::Bool(b.bool("keepdim")));
    let z = zero_nans(run, &x)?;
    let s = op(run, "sum", vec![tv(&z), dims_value(&ax)], vec![("keepdim", keep.clone())])?;
    let n = nan_mask(run, &x)?;
    let ok = run.engine.logical_not(&n)?;
    let c = op(run, "sum", vec![tv(&ok), dims_value(&ax)], vec![("keepdim", keep)])?;
    v(bin(run, BinaryOp::Div, &t(&s), &t(&c))?)
}

pub fn diff(run: &mut RunContext, b: &Bound) -> Out {
    let mut x = b.tensor("input")?;
    let n = b.int("n");
    let nd = x.shape().len();
    if nd == 0 {
        bail!(Shape, "diff expects input to be at least one-dimensional");
    }
    if n < 0 {
        bail!(Shape, "order must be non-negative but got {n}");
    }
    let d = wrap_dim(b.int("dim"), nd)? as i64;
    let mut parts = Vec::new();
    if let Some(p) = b.opt_tensor("prepend") {
        parts.push(p);
    }
    parts.push(x.clone());
    if let Some(a) = b.opt_tensor("append") {
        parts.push(a);
    }
    if parts.len() > 1 {
        x = run.engine.cat(&parts, d)?;
    }
    for _ in 0..n {
        let len = x.shape()[d as usize] as i64;
        if len == 0 {
            break;
        }
        let hi = run.engine.narrow(&x, d, 1, len - 1)?;
        let lo = run.engine.narrow(&x, d, 0, len - 1)?;
        x = if x.dtype() == DType::Bool {
            bin(run, BinaryOp::Xor, &t(&hi), &t(&lo))?
        } else {
            bin(run, BinaryOp::Sub, &t(&hi), &t(&lo))?
        };
    }
    v(x)
}

pub fn trace(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if x.shape().len() != 2 {
        bail!(Shape, "trace: expected a matrix, but got tensor with dim {}", x.shape().len());
    }
    let d = run.engine.diagonal(&x, 0, 0, 1)?;
    v(op(run, "sum", vec![tv(&d)], vec![])?)
}

fn close_mask(run: &mut RunContext, b: &Bound) -> Result<Tensor> {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.dtype() != y.dtype() {
        bail!(
            DType,
            "{}(): argument 'other' (position 2) must have the same dtype as 'input' ({} != {})",
            b.func(),
            y.dtype().torch_name(),
            x.dtype().torch_name()
        );
    }
    let (rtol, atol) = (b.float("rtol"), b.float("atol"));
    if rtol < 0.0 || atol < 0.0 {
        bail!(Shape, "{}(): rtol and atol must be non-negative", b.func());
    }
    let eq = bin(run, BinaryOp::CmpEq, &t(&x), &t(&y))?;
    if !x.dtype().is_float() && rtol == 0.0 && atol == 0.0 {
        return Ok(eq);
    }
    let (xf, yf) = (floated(run, &x)?, floated(run, &y)?);
    let d = bin(run, BinaryOp::Sub, &t(&xf), &t(&yf))?;
    let d = un(run, UnaryOp::Abs, &d)?;
    let ay = un(run, UnaryOp::Abs, &yf)?;
    let tol = bin(run, BinaryOp::Mul, &t(&ay), &f(rtol))?;
    let tol = bin(run, BinaryOp::Add, &t(&tol), &f(atol))?;
    let near = bin(run, BinaryOp::CmpLe, &t(&d), &t(&tol))?;
    let mut ok = bin(run, BinaryOp::Or, &t(&eq), &t(&near))?;
    if b.bool("equal_nan") {
        let nx = nan_mask(run, &xf)?;
        let ny = nan_mask(run, &yf)?;
        let both = bin(run, BinaryOp::And, &t(&nx), &t(&ny))?;
        ok = bin(run, BinaryOp::Or, &t(&ok), &t(&both))?;
    }
    Ok(ok)
}

pub fn isclose(run: &mut RunContext, b: &Bound) -> Out {
    v(close_mask(run, b)?)
}

fn all_true(run: &mut RunContext, m: &Tensor) -> Result<bool> {
    let d = run.engine.values(m)?;
    Ok((0..d.len()).all(|i| d.get_f64(i) != 0.0))
}

pub fn allclose(run: &mut RunContext, b: &Bound) -> Out {
    let m = close_mask(run, b)?;
    Ok(Value::Scalar(Scalar::Bool(all_true(run, &m)?)))
}

pub fn equal(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.shape() != y.shape() {
        return Ok(Value::Scalar(Scalar::Bool(false)));
    }
    let m = bin(run, BinaryOp::CmpEq, &t(&x), &t(&y))?;
    Ok(Value::Scalar(Scalar::Bool(all_true(run, &m)?)))
}

// ------------------------------------------------------------------------------ products

fn vector(x: &Tensor, what: &str, name: &str) -> Result<()> {
    if x.shape().len() != 1 {
        bail!(Shape, "{name}: Expected 1-D argument {what}, but got {}-D", x.shape().len());
    }
    Ok(())
}

pub fn outer(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("vec2")?;
    vector(&x, "self", "outer")?;
    vector(&y, "vec2", "outer")?;
    let col = run.engine.reshape(&x, &[x.numel() as i64, 1])?;
    v(bin(run, BinaryOp::Mul, &t(&col), &t(&y))?)
}

pub fn inner(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.shape().is_empty() || y.shape().is_empty() {
        return v(bin(run, BinaryOp::Mul, &t(&x), &t(&y))?);
    }
    let (xn, yn) = (x.shape()[x.shape().len() - 1], y.shape()[y.shape().len() - 1]);
    if xn != yn {
        bail!(
            Shape,
            "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
            x.shape(),
            y.shape()
        );
    }
    // tensordot over the last dims: x @ y^T with y's leading dims flattened.
    let yl = run.engine.reshape(&y, &[-1, yn as i64])?;
    let yt = run.engine.transpose(&yl, 0, 1)?;
    let r = run.engine.matmul(&x, &yt)?;
    let mut shape: Vec<i64> = x.shape()[..x.shape().len() - 1].iter().map(|&n| n as i64).collect();
    shape.extend(y.shape()[..y.shape().len() - 1].iter().map(|&n| n as i64));
    v(run.engine.reshape(&r, &shape)?)
}

/// `beta * input + alpha * product`, with PyTorch's rule that beta == 0 ignores the input
/// (NaNs included).
fn add_scaled(run: &mut RunContext, b: &Bound, product: Tensor) -> Out {
    let input = b.tensor("input")?;
    let beta = b.scalar("beta").unwrap_or(Scalar::Int(1));
    let alpha = b.scalar("alpha").unwrap_or(Scalar::Int(1));
    let p =
        if alpha.as_f64() == 1.0 { product } else { bin(run, BinaryOp::Mul, &t(&product), &Operand::Scalar(alpha))? };
    if beta.as_f64() == 0.0 {
        let shape: Vec<i64> = p.shape().iter().map(|&n| n as i64).collect();
        let _ = run.engine.expand(&input, &shape)?;
        return v(p);
    }
    let i = if beta.as_f64() == 1.0 { input } else { bin(run, BinaryOp::Mul, &t(&input), &Operand::Scalar(beta))? };
    let r = bin(run, BinaryOp::Add, &t(&i), &t(&p))?;
    if r.shape() != p.shape() {
        bail!(
            Shape,
            "The expanded size of the tensor must match the existing size: {:?} vs {:?}",
            r.shape(),
            p.shape()
        );
    }
    v(r)
}

fn checked_rank(x: &Tensor, rank: usize, name: &str, what: &str) -> Result<()> {
    if x.shape().len() != rank {
        bail!(Shape, "{what} must be a {rank}D tensor ({name})");
    }
    Ok(())
}

pub fn addmm(run: &mut RunContext, b: &Bound) -> Out {
    let (m1, m2) = (b.tensor("mat1")?, b.tensor("mat2")?);
    checked_rank(&m1, 2, "addmm", "mat1")?;
    checked_rank(&m2, 2, "addmm", "mat2")?;
    let p = run.engine.matmul(&m1, &m2)?;
    add_scaled(run, b, p)
}

pub fn addmv(run: &mut RunContext, b: &Bound) -> Out {
    let (m, x) = (b.tensor("mat")?, b.tensor("vec")?);
    checked_rank(&m, 2, "addmv", "mat")?;
    checked_rank(&x, 1, "addmv", "vec")?;
    let p = run.engine.matmul(&m, &x)?;
    add_scaled(run, b, p)
}

pub fn baddbmm(run: &mut RunContext, b: &Bound) -> Out {
    let (b1, b2) = (b.tensor("batch1")?, b.tensor("batch2")?);
    checked_rank(&b1, 3, "baddbmm", "batch1")?;
    checked_rank(&b2, 3, "baddbmm", "batch2")?;
    let p = run.engine.matmul(&b1, &b2)?;
    add_scaled(run, b, p)
}

pub fn addbmm(run: &mut RunContext, b: &Bound) -> Out {
    let (b1, b2) = (b.tensor("batch1")?, b.tensor("batch2")?);
    checked_rank(&b1, 3, "addbmm", "batch1")?;
    checked_rank(&b2, 3, "addbmm", "batch2")?;
    let p = run.engine.matmul(&b1, &b2)?;
    let p = run.engine.reduce(ReduceOp::Sum, &p, &[0], KeepDim::Drop)?;
    add_scaled(run, b, p)
}

pub fn addr(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = (b.tensor("vec1")?, b.tensor("vec2")?);
    vector(&x, "vec1", "addr")?;
    vector(&y, "vec2", "addr")?;
    let col = run.engine.reshape(&x, &[x.numel() as i64, 1])?;
    let p = bin(run, BinaryOp::Mul, &t(&col), &t(&y))?;
    add_scaled(run, b, p)
}

pub fn dist(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    float_only(&x, "dist")?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let all: Vec<usize> = (0..d.shape().len()).collect();
    v(run.engine.vector_norm(&d, b.float("p"), &all, KeepDim::Drop)?)
}

pub fn vdot(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    v(op(run, "dot", vec![tv(&x), tv(&y)], vec![])?)
}

// ----------------------------------------------------------------------- normalizations

fn normalized_dims(b: &Bound, x: &Tensor) -> Result<Vec<usize>> {
    let shape = b.ints("normalized_shape").unwrap_or_default();
    let nd = x.shape().len();
    let k = shape.len();
    let tail: Vec<i64> = x.shape()[nd.saturating_sub(k)..].iter().map(|&n| n as i64).collect();
    if k == 0 || k > nd || tail != shape {
        bail!(
            Shape,
            "Given normalized_shape={shape:?}, expected input with shape [*, {}], but got input of size{:?}",
            shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
            x.shape()
        );
    }
    Ok((nd - k..nd).collect())
}

pub fn layer_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "LayerNormKernelImpl")?;
    let ax = normalized_dims(b, &x)?;
    let (w, bias) = (b.opt_tensor("weight"), b.opt_tensor("bias"));
    v(run.engine.normalize(&x, &ax, b.float("eps"), w.as_ref(), bias.as_ref())?)
}

pub fn rms_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "rms_norm")?;
    let ax = normalized_dims(b, &x)?;
    let eps = b.opt_float("eps").unwrap_or_else(|| match x.dtype() {
        DType::Float64 => f64::EPSILON,
        _ => f64::from(f32::EPSILON),
    });
    v(run.engine.rms_norm(&x, &ax, eps, b.opt_tensor("weight").as_ref())?)
}

pub fn group_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "GroupNormKernelImpl")?;
    let groups = b.int("num_groups");
    v(run.engine.group_norm(
        &x,
        groups,
        b.float("eps"),
        b.opt_tensor("weight").as_ref(),
        b.opt_tensor("bias").as_ref(),
    )?)
}

pub fn normalize(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "normalize")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let ax: Vec<usize> = if nd == 0 { vec![] } else { vec![d] };
    let n = run.engine.vector_norm(&x, b.float("p"), &ax, KeepDim::Keep)?;
    let n = bin(run, BinaryOp::Max, &t(&n), &f(b.float("eps")))?;
    let shape: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
    let n = run.engine.expand(&n, &shape)?;
    v(bin(run, BinaryOp::Div, &t(&x), &t(&n))?)
}

pub fn cosine_similarity(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x1")?;
    let y = b.tensor("x2")?;
    float_only(&x, "cosine_similarity")?;
    let shape = crate::tensor::Engine::broadcast_shapes(&[x.shape(), y.shape()])?;
    let d = wrap_dim(b.int("dim"), shape.len())?;
    let eps = b.float("eps");
    // PyTorch's formula: each input divided by its clamped norm, then the dot product.
    let unit = |run: &mut RunContext, a: &Tensor| -> Result<Tensor> {
        let n = run.engine.vector_norm(a, 2.0, &[d.min(a.shape().len().saturating_sub(1))], KeepDim::Keep)?;
        let n = bin(run, BinaryOp::Max, &t(&n), &f(eps))?;
        bin(run, BinaryOp::Div, &t(a), &t(&n))
    };
    let shape_i: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let xe = run.engine.expand(&x, &shape_i)?;
    let ye = run.engine.expand(&y, &shape_i)?;
    let xu = unit(run, &xe)?;
    let yu = unit(run, &ye)?;
    let p = bin(run, BinaryOp::Mul, &t(&xu), &t(&yu))?;
    v(op(run, "sum", vec![tv(&p), int(d as i64)], vec![])?)
}

pub fn pairwise_distance(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x1")?;
    let y = b.tensor("x2")?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let d = bin(run, BinaryOp::Add, &t(&d), &f(b.float("eps")))?;
    let nd = d.shape().len();
    let ax: Vec<usize> = if nd == 0 { vec![] } else { vec![nd - 1] };
    v(run.engine.vector_norm(&d, b.float("p"), &ax, KeepDim::from(b.bool("keepdim")))?)
}

pub fn embedding(run: &mut RunContext, b: &Bound) -> Out {
    let idx = b.tensor("input")?;
    let w = b.tensor("weight")?;
    if !b.is_none("max_norm") {
        bail!(Unsupported, "embedding(max_norm=...) renormalizes the weight in place; not supported");
    }
    if idx.dtype().is_float() || idx.dtype() == DType::Bool {
        bail!(
            DType,
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{} instead (while checking arguments for embedding)",
            idx.dtype().name()
        );
    }
    if w.shape().len() != 2 {
        bail!(Shape, "'weight' must be 2-D");
    }
    if b.opt_int("padding_idx").is_some() && run.engine.autograd().requires_grad(&w) {
        bail!(Unsupported, "embedding(padding_idx=...) with a weight that requires grad is not supported");
    }
    v(run.engine.advanced_index(&w, &[crate::engine::indexing::Index::Tensor(idx)])?)
}

// -------------------------------------------------------------------------------- losses

fn reduced(run: &mut RunContext, b: &Bound, x: Tensor) -> Out {
    match b.str("reduction").as_deref() {
        Some("mean") => v(op(run, "mean", vec![tv(&x)], vec![])?),
        Some("sum") => v(op(run, "sum", vec![tv(&x)], vec![])?),
        Some("none") => v(x),
        Some(other) => bail!(Value, "{other} is not a valid value for reduction"),
        None => bail!(Type, "{}(): argument 'reduction' must be str", b.func()),
    }
}

fn loss_operands(run: &mut RunContext, b: &Bound) -> Result<(Tensor, Tensor)> {
    let x = b.tensor("input")?;
    let y = b.tensor("target")?;
    float_only(&x, b.func())?;
    let _ = run;
    Ok((x, y))
}

pub fn l1_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let a = un(run, UnaryOp::Abs, &d)?;
    reduced(run, b, a)
}

/// Smooth L1 (`beta`) and Huber (`delta`): quadratic inside the threshold, linear outside.
fn smooth(run: &mut RunContext, b: &Bound, huber: bool) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let k = b.float(if huber { "delta" } else { "beta" });
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let a = un(run, UnaryOp::Abs, &d)?;
    if !huber && k == 0.0 {
        return reduced(run, b, a);
    }
    let sq = bin(run, BinaryOp::Mul, &t(&d), &t(&d))?;
    let quad = bin(run, BinaryOp::Mul, &t(&sq), &f(if huber { 0.5 } else { 0.5 / k }))?;
    let lin = bin(run, BinaryOp::Sub, &t(&a), &f(0.5 * k))?;
    let lin = if huber { bin(run, BinaryOp::Mul, &t(&lin), &f(k))? } else { lin };
    let inside = bin(run, BinaryOp::CmpLt, &t(&a), &f(k))?;
    let l = run.engine.where_(&t(&inside), &t(&quad), &t(&lin))?;
    reduced(run, b, l)
}

pub fn smooth_l1_loss(run: &mut RunContext, b: &Bound) -> Out {
    smooth(run, b, false)
}

pub fn huber_loss(run: &mut RunContext, b: &Bound) -> Out {
    smooth(run, b, true)
}

pub fn kl_div(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    // target * (log(target) - input), or exp(target) * (target - input) for log targets.
    let l = if b.bool("log_target") {
        let e = un(run, UnaryOp::Exp, &y)?;
        let d = bin(run, BinaryOp::Sub, &t(&y), &t(&x))?;
        bin(run, BinaryOp::Mul, &t(&e), &t(&d))?
    } else {
        let xl = op(run, "xlogy", vec![tv(&y), tv(&y)], vec![])?;
        let yx = bin(run, BinaryOp::Mul, &t(&y), &t(&x))?;
        bin(run, BinaryOp::Sub, &t(&xl), &t(&yx))?
    };
    if b.str("reduction").as_deref() == Some("batchmean") {
        let s = op(run, "sum", vec![tv(&l)], vec![])?;
        let n = if x.shape().is_empty() { 1 } else { x.shape()[0] };
        return v(bin(run, BinaryOp::Div, &t(&s), &Operand::Scalar(Scalar::Int(n as i64)))?);
    }
    reduced(run, b, l)
}

// ------------------------------------------------------------------------ stacking, grids

fn stack_like(run: &mut RunContext, b: &Bound, rank: usize, dim: i64) -> Out {
    let items = b.tensors("tensors");
    if items.is_empty() {
        bail!(Shape, "{}(): expected a non-empty list of Tensors", b.func());
    }
    let mut parts = Vec::with_capacity(items.len());
    for x in &items {
        parts.push(run.engine.atleast(x, rank)?);
    }
    // hstack of 1-D tensors joins along dim 0.
    let dim = if rank == 1 && parts[0].shape().len() == 1 { 0 } else { dim };
    v(run.engine.cat(&parts, dim)?)
}

pub fn hstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 1, 1)
}

pub fn vstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 2, 0)
}

pub fn dstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 3, 2)
}

pub fn column_stack(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    if items.is_empty() {
        bail!(Shape, "column_stack(): expected a non-empty list of Tensors");
    }
    let mut parts = Vec::with_capacity(items.len());
    for x in &items {
        parts.push(if x.shape().len() <= 1 { run.engine.reshape(x, &[x.numel() as i64, 1])? } else { x.clone() });
    }
    v(run.engine.cat(&parts, 1)?)
}

pub fn meshgrid(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    let xy = match b.str("indexing").as_deref() {
        None | Some("ij") => false,
        Some("xy") => true,
        Some(other) => bail!(Value, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {other}"),
    };
    if items.iter().any(|x| x.shape().len() > 1) {
        bail!(Shape, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list");
    }
    let mut sizes: Vec<i64> = items.iter().map(|x| x.numel() as i64).collect();
    if xy && sizes.len() >= 2 {
        sizes.swap(0, 1);
    }
    let k = items.len();
    let mut out = Vec::with_capacity(k);
    for (i, x) in items.iter().enumerate() {
        let pos = if xy && k >= 2 && i < 2 { 1 - i } else { i };
        let mut shape = vec![1i64; k];
        shape[pos] = sizes[pos];
        let r = run.engine.view(x, &shape)?;
        out.push(Value::Tensor(run.engine.expand(&r, &sizes)?));
    }
    Ok(Value::Tuple(out))
}

fn tri_indices(run: &mut RunContext, b: &Bound, lower: bool) -> Out {
    let (rows, cols, offset) = (b.int("row"), b.int("col"), b.int("offset"));
    if rows < 0 || cols < 0 {
        bail!(Shape, "row must be non-negative, got {rows}");
    }
    let dtype = b.dtype("dtype").unwrap_or(DType::Int64);
    let (mut r, mut c) = (Vec::new(), Vec::new());
    for i in 0..rows {
        for j in 0..cols {
            if (lower && j - i <= offset) || (!lower && j - i >= offset) {
                r.push(i);
                c.push(j);
            }
        }
    }
    let n = r.len();
    crate::limits::check_numel(&[2, n])?;
    r.extend(c);
    let x = run.engine.from_data(Data::I64(r), &[2, n])?;
    v(run.engine.cast(&x, dtype)?)
}

pub fn tril_indices(run: &mut RunContext, b: &Bound) -> Out {
    tri_indices(run, b, true)
}

pub fn triu_indices(run: &mut RunContext, b: &Bound) -> Out {
    tri_indices(run, b, false)
}

// ------------------------------------------------------------------------ spatial, attention

fn shuffle(run: &mut RunContext, x: &Tensor, r: i64, up: bool, name: &str) -> Out {
    let s = x.shape();
    let nd = s.len();
    if nd < 3 {
        bail!(Shape, "{name} expects input to have at least 3 dimensions, but got input with {nd} dimension(s)");
    }
    if r <= 0 {
        bail!(Shape, "{name} expects its factor to be positive, but got {r}");
    }
    let lead: Vec<i64> = s[..nd - 3].iter().map(|&n| n as i64).collect();
    let (c, h, w) = (s[nd - 3] as i64, s[nd - 2] as i64, s[nd - 1] as i64);
    let l = lead.len() as i64;
    let dims = |rest: &[i64]| -> Vec<i64> {
        let mut d: Vec<i64> = (0..l).collect();
        d.extend(rest.iter().map(|k| k + l));
        d
    };
    let with = |tail: &[i64]| -> Vec<i64> {
        let mut v = lead.clone();
        v.extend_from_slice(tail);
        v
    };
    let y = if up {
        if c % (r * r) != 0 {
            bail!(Shape, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {}", r * r);
        }
        let oc = c / (r * r);
        let a = run.engine.reshape(x, &with(&[oc, r, r, h, w]))?;
        let p = run.engine.permute(&a, &dims(&[0, 3, 1, 4, 2]))?;
        run.engine.reshape(&p, &with(&[oc, h * r, w * r]))?
    } else {
        if h % r != 0 || w % r != 0 {
            bail!(Shape, "pixel_unshuffle expects height and width to be divisible by downscale_factor, but got {h} and {w} for factor {r}");
        }
        let a = run.engine.reshape(x, &with(&[c, h / r, r, w / r, r]))?;
        let p = run.engine.permute(&a, &dims(&[0, 2, 4, 1, 3]))?;
        run.engine.reshape(&p, &with(&[c * r * r, h / r, w / r]))?
    };
    // PyTorch's result is always a new contiguous tensor.
    let y = if y.same_object(x) || !y.layout().is_contiguous() { run.engine.contiguous(&y)? } else { y };
    let y = if y.storage() == x.storage() { op(run, "clone", vec![tv(&y)], vec![])? } else { y };
    v(y)
}

pub fn pixel_shuffle(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    shuffle(run, &x, b.int("upscale_factor"), true, "pixel_shuffle")
}

pub fn pixel_unshuffle(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    shuffle(run, &x, b.int("downscale_factor"), false, "pixel_unshuffle")
}

pub fn adaptive_avg_pool2d(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "adaptive_avg_pool2d")?;
    let nd = x.shape().len();
    if nd != 3 && nd != 4 {
        bail!(Shape, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {:?}", x.shape());
    }
    let out = b.ints("output_size").unwrap_or_default();
    let (h, w) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let (oh, ow) = match out.as_slice() {
        [s] => (*s, *s),
        [a, c] => (*a, *c),
        _ => bail!(Shape, "adaptive_avg_pool2d: output_size must be 2"),
    };
    let (oh, ow) = (if oh < 0 { h as i64 } else { oh } as usize, if ow < 0 { w as i64 } else { ow } as usize);
    if oh == 0 || ow == 0 || h % oh != 0 || w % ow != 0 {
        bail!(
            Unsupported,
            "adaptive_avg_pool2d to an output size that does not divide the input ({h}x{w} to {oh}x{ow}) is not supported"
        );
    }
    // Equal windows: an average pool with kernel = stride = input / output.
    let (kh, kw) = (h / oh, w / ow);
    let win = Window2d { kernel: [kh, kw], stride: [kh, kw], padding: [0, 0], dilation: [1, 1], ceil_mode: false };
    let x4 = if nd == 3 { run.engine.unsqueeze(&x, 0)? } else { x.clone() };
    let y = run.engine.pool2d(&x4, win, PoolKind::Avg { count_include_pad: true, divisor: None })?;
    v(if nd == 3 { run.engine.squeeze(&y, Some(&[0]))? } else { y })
}

pub fn scaled_dot_product_attention(run: &mut RunContext, b: &Bound) -> Out {
    let (q, k, val) = (b.tensor("query")?, b.tensor("key")?, b.tensor("value")?);
    float_only(&q, "scaled_dot_product_attention")?;
    if b.float("dropout_p") != 0.0 {
        bail!(
            Unsupported,
            "scaled_dot_product_attention(dropout_p > 0) draws from CUDA's generator order; not supported"
        );
    }
    let nd = q.shape().len();
    if nd < 2 || k.shape().len() < 2 {
        bail!(Shape, "scaled_dot_product_attention expects query and key with at least 2 dims");
    }
    let e = q.shape()[nd - 1] as f64;
    let scale = b.opt_float("scale").unwrap_or(1.0 / e.sqrt());
    let kt = run.engine.transpose(&k, -2, -1)?;
    let s = run.engine.matmul(&q, &kt)?;
    let mut s = bin(run, BinaryOp::Mul, &t(&s), &f(scale))?;
    let (l, sl) = (s.shape()[s.shape().len() - 2], s.shape()[s.shape().len() - 1]);
    if b.bool("is_causal") {
        if !b.is_none("attn_mask") {
            bail!(Shape, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
        }
        let keep: Vec<bool> = (0..l).flat_map(|i| (0..sl).map(move |j| j <= i)).collect();
        let m = run.engine.from_data(Data::Bool(keep), &[l, sl])?;
        s = run.engine.where_(&t(&m), &t(&s), &f(f64::NEG_INFINITY))?;
    } else if let Some(m) = b.opt_tensor("attn_mask") {
        s = if m.dtype() == DType::Bool {
            run.engine.where_(&t(&m), &t(&s), &f(f64::NEG_INFINITY))?
        } else {
            bin(run, BinaryOp::Add, &t(&s), &t(&m))?
        };
    }
    let p = run.engine.softmax(&s, -1, SoftmaxKind::Softmax)?;
    v(run.engine.matmul(&p, &val)?)
}

pub fn einsum(run: &mut RunContext, b: &Bound) -> Out {
    let eq = b.str("equation").unwrap_or_default();
    let ops = b.tensors("operands");
    v(run.engine.einsum(&eq, &ops)?)
}

/// `round(input, decimals=0)`.
pub fn round(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let d = b.int("decimals");
    if d == 0 {
        return v(un(run, UnaryOp::Round, &x)?);
    }
    if !x.dtype().is_float() {
        bail!(DType, "round_cpu not implemented for '{}' with decimals != 0", x.dtype().torch_name());
    }
    // PyTorch: round(x * 10^d) / 10^d, and round(x / 10^-d) * 10^-d for negative d.
    if d > 0 {
        let k = 10f64.powi(d as i32);
        let s = bin(run, BinaryOp::Mul, &t(&x), &f(k))?;
        let r = un(run, UnaryOp::Round, &s)?;
        v(bin(run, BinaryOp::Div, &t(&r), &f(k))?)
    } else {
        let k = 10f64.powi((-d) as i32);
        let s = bin(run, BinaryOp::Div, &t(&x), &f(k))?;
        let r = un(run, UnaryOp::Round, &s)?;
        v(bin(run, BinaryOp::Mul, &t(&r), &f(k))?)
    }
}
