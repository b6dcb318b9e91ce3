//! Declared elementwise ops: classification (`isnan`, ...), the logical ops, elementwise maths
//! (`nan_to_num`, `xlogy`, `logaddexp`, ...) and the activations of `torch.nn.functional`.

use super::util::*;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

// ------------------------------------------------------------------------ classification

pub(super) fn nan_mask(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
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

pub(super) fn inf_mask(run: &mut RunContext, x: &Tensor, sign: Option<f64>) -> Result<Tensor> {
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
    let xo = crate::trace::binding::elementwise::operand(x, "input")?;
    let yo = crate::trace::binding::elementwise::operand(y, "other")?;
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
    let x = floated(run, &b.tensor("input")?)?;
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
