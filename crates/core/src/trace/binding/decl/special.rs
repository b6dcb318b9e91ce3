//! Declared special functions over the engine's host evaluation (`lgamma`, `digamma`,
//! `polygamma`, `mvlgamma`, `special.zeta`) and the ones composed from the op table
//! (`xlog1py`, `log_ndtr`, `angle`, `ldexp`).

use super::util::*;
use crate::engine::special;
use crate::error::bail;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::uop::{BinaryOp, UnaryOp};

pub fn lgamma(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(run.engine.host_map(&x, special::lgamma)?)
}

pub fn digamma(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(run.engine.host_map(&x, special::digamma)?)
}

pub fn polygamma(run: &mut RunContext, b: &Bound) -> Out {
    let n = b.int("n");
    let x = b.tensor("input")?;
    let Ok(n) = u32::try_from(n) else { bail!(Shape, "polygamma(n, x) does not support negative n.") };
    v(run.engine.host_map(&x, |x| special::polygamma(n, x))?)
}

/// `x.polygamma(n)`: the method takes `n` second.
pub fn polygamma_method(run: &mut RunContext, b: &Bound) -> Out {
    polygamma(run, b)
}

pub fn mvlgamma(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let p = b.int("p");
    if p < 1 {
        bail!(Shape, "p has to be greater than or equal to 1");
    }
    let d = run.engine.values(&x)?;
    let min = (p as f64 - 1.0) / 2.0;
    if (0..d.len()).any(|i| d.get_f64(i) <= min) {
        bail!(Shape, "All elements must be greater than (p-1)/2");
    }
    let c = (p * (p - 1)) as f64 / 4.0 * std::f64::consts::PI.ln();
    v(run.engine.host_map(&x, |x| c + (1..=p).map(|j| special::lgamma(x + (1 - j) as f64 / 2.0)).sum::<f64>())?)
}

pub fn zeta(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let q = b.tensor("other")?;
    v(run.engine.host_map2(&x, &q, special::zeta)?)
}

pub fn xlog1py(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let y = floated(run, &b.tensor("other")?)?;
    let l = un(run, UnaryOp::Log1p, &y)?;
    let p = bin(run, BinaryOp::Mul, &t(&x), &t(&l))?;
    // 0 where x == 0, unless y is NaN.
    let zero = bin(run, BinaryOp::CmpEq, &t(&x), &f(0.0))?;
    let ok = bin(run, BinaryOp::CmpEq, &t(&y), &t(&y))?;
    let both = bin(run, BinaryOp::And, &t(&zero), &t(&ok))?;
    v(run.engine.where_(&t(&both), &f(0.0), &t(&p))?)
}

pub fn log_ndtr(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    // log(erfc(-x / sqrt 2) / 2): erfc keeps the left tail's precision.
    v(run.engine.host_map(&x, |x| {
        let e = crate::uop::erfc_f64(-x * std::f64::consts::FRAC_1_SQRT_2);
        (e / 2.0).ln()
    })?)
}

pub fn angle(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    // pi for negative numbers, 0 otherwise; NaN stays NaN.
    let neg = bin(run, BinaryOp::CmpLt, &t(&x), &f(0.0))?;
    let r = run.engine.where_(&t(&neg), &f(std::f64::consts::PI), &f(0.0))?;
    let r = run.engine.cast(&r, x.dtype())?;
    let nan = bin(run, BinaryOp::CmpNe, &t(&x), &t(&x))?;
    v(run.engine.where_(&t(&nan), &t(&x), &t(&r))?)
}

pub fn ldexp(run: &mut RunContext, b: &Bound) -> Out {
    let x = floated(run, &b.tensor("input")?)?;
    let e = b.tensor("other")?;
    let p = bin(run, BinaryOp::Pow, &f(2.0), &t(&e))?;
    v(bin(run, BinaryOp::Mul, &t(&x), &t(&p))?)
}

pub fn erfinv(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(run.engine.host_map(&x, special::erfinv)?)
}

pub fn i0(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    v(run.engine.host_map(&x, special::i0)?)
}

pub fn igamma(run: &mut RunContext, b: &Bound) -> Out {
    let (a, x) = (b.tensor("input")?, b.tensor("other")?);
    v(run.engine.host_map2(&a, &x, special::igamma)?)
}

pub fn igammac(run: &mut RunContext, b: &Bound) -> Out {
    let (a, x) = (b.tensor("input")?, b.tensor("other")?);
    v(run.engine.host_map2(&a, &x, special::igammac)?)
}

/// `nextafter(x, y)`: the next representable value of x's float dtype toward y.
pub fn nextafter(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = (b.tensor("input")?, b.tensor("other")?);
    float_only(&x, "nextafter_cpu")?;
    let single = x.dtype() == crate::dtype::DType::Float32;
    v(run.engine.host_map2(&x, &y, move |a, t| {
        if a.is_nan() || t.is_nan() {
            return f64::NAN;
        }
        if a == t {
            return t;
        }
        if single {
            let a32 = a as f32;
            let next = if a32 == 0.0 {
                f32::from_bits(1).copysign(if t > a { 1.0 } else { -1.0 })
            } else if (t > a) == (a32 > 0.0) {
                f32::from_bits(a32.to_bits() + 1)
            } else {
                f32::from_bits(a32.to_bits() - 1)
            };
            f64::from(next)
        } else if a == 0.0 {
            f64::from_bits(1).copysign(if t > a { 1.0 } else { -1.0 })
        } else if (t > a) == (a > 0.0) {
            f64::from_bits(a.to_bits() + 1)
        } else {
            f64::from_bits(a.to_bits() - 1)
        }
    })?)
}
