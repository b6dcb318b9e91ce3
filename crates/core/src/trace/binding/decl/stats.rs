//! Declared order statistics and searches: `median`, `kthvalue`, `quantile` (over `sort`, so
//! their gradients are the sort's), `aminmax`, `searchsorted`/`bucketize` (host-side binary
//! searches; indices have no gradient) and `cdist`.

use super::util::*;
use crate::dtype::DType;
use crate::engine::order_stats::Nan;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::Tensor;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

fn named(b: &Bound, values: Tensor, indices: Tensor) -> Value {
    Value::named(b.func(), vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(indices))])
}

/// A float input's NaNs sort last, so a quantile over the sort would skip them; PyTorch's
/// `quantile` returns NaN where a NaN is present. Refused rather than answered otherwise.
fn refuse_nan(run: &mut RunContext, x: &Tensor, name: &str) -> Result<()> {
    if x.dtype().is_float() {
        let d = run.engine.values(x)?;
        if (0..d.len()).any(|i| d.get_f64(i).is_nan()) {
            bail!(Unsupported, "{name}() of an input with NaN is not supported");
        }
    }
    Ok(())
}

fn keep(b: &Bound) -> KeepDim {
    match b.bool("keepdim") {
        true => KeepDim::Keep,
        false => KeepDim::Drop,
    }
}

/// `median` and `nanmedian`, of every element or along `dim`.
pub fn median(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nan = if b.func().starts_with("nan") { Nan::Ignore } else { Nan::Propagate };
    let nd = x.shape().len();
    match b.opt_int("dim") {
        None => {
            if x.numel() == 0 {
                return v(run.engine.full(&[], Scalar::Float(f64::NAN), Some(x.dtype()))?);
            }
            v(run.engine.median_all(&x, nan)?)
        }
        Some(d) => {
            let d = wrap_dim(d, nd)?;
            if nd > 0 && x.shape()[d] == 0 {
                bail!(Index, "median(): Expected reduction dim {d} to have non-zero size.");
            }
            let (val, i) = run.engine.median_along(&x, d as i64, keep(b), nan)?;
            Ok(named(b, val, i))
        }
    }
}

pub fn kthvalue(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let n = if nd == 0 { 1 } else { x.shape()[d] } as i64;
    let k = b.int("k");
    if k < 1 || k > n {
        bail!(Index, "kthvalue(): selected number k out of range for dimension {d}");
    }
    let (val, i) = run.engine.kthvalue(&x, k as usize, d as i64, keep(b))?;
    Ok(named(b, val, i))
}

pub fn mode(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    if nd > 0 && x.shape()[d] == 0 {
        bail!(Index, "mode(): Expected reduction dim {d} to have non-zero size.");
    }
    let (val, i) = run.engine.mode(&x, d as i64, keep(b))?;
    Ok(named(b, val, i))
}

pub fn quantile(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "quantile")?;
    refuse_nan(run, &x, "quantile")?;
    let scalar_q = b.opt_float("q");
    let qs: Vec<f64> = match (&scalar_q, b.opt_tensor("q")) {
        (Some(q), _) => vec![*q],
        (None, Some(q)) => {
            if q.shape().len() > 1 {
                bail!(Shape, "quantile() q must be a scalar or 1D tensor");
            }
            let d = run.engine.values(&q)?;
            (0..d.len()).map(|i| d.get_f64(i)).collect()
        }
        _ => bail!(Type, "quantile(): argument 'q' must be Tensor or float"),
    };
    if qs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        bail!(Shape, "quantile() q values must be in the range [0, 1]");
    }
    let interp = b.str("interpolation").unwrap_or_else(|| "linear".into());
    if !matches!(interp.as_str(), "linear" | "lower" | "higher" | "nearest" | "midpoint") {
        bail!(
            Shape,
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {interp}"
        );
    }
    let keepdim = b.bool("keepdim");
    let (src, d) = match b.opt_int("dim") {
        None => (run.engine.reshape(&x, &[-1])?, 0),
        Some(d) => (x.clone(), wrap_dim(d, x.shape().len())?),
    };
    let src = if src.shape().is_empty() { run.engine.reshape(&src, &[1])? } else { src };
    let n = src.shape()[d];
    if n == 0 {
        bail!(Index, "quantile() input tensor must be non-empty");
    }
    let (sorted, _) = run.engine.sort(&src, d as i64, false)?;
    let mut outs = Vec::with_capacity(qs.len());
    for q in &qs {
        let pos = q * (n as f64 - 1.0);
        let (lo, hi) = (pos.floor(), pos.ceil());
        let pick =
            |run: &mut RunContext, i: f64| -> Result<Tensor> { run.engine.narrow(&sorted, d as i64, i as i64, 1) };
        let r = match interp.as_str() {
            "lower" => pick(run, lo)?,
            "higher" => pick(run, hi)?,
            // Round half to even, as PyTorch's `round`.
            "nearest" => {
                let r = if (pos - pos.trunc()).abs() == 0.5 { 2.0 * (pos / 2.0).round() } else { pos.round() };
                pick(run, r)?
            }
            _ => {
                let a = pick(run, lo)?;
                let c = pick(run, hi)?;
                let w = if interp == "midpoint" { 0.5 } else { pos - lo };
                let diff = run.engine.binary(BinaryOp::Sub, &t(&c), &t(&a))?;
                let step = run.engine.binary(BinaryOp::Mul, &t(&diff), &f(w))?;
                run.engine.binary(BinaryOp::Add, &t(&a), &t(&step))?
            }
        };
        let r = if keepdim && b.opt_int("dim").is_none() {
            let ones: Vec<i64> = vec![1; x.shape().len()];
            run.engine.reshape(&r, &ones)?
        } else if keepdim {
            r
        } else {
            run.engine.squeeze(&r, Some(&[d as i64]))?
        };
        outs.push(r);
    }
    if scalar_q.is_some() || b.opt_tensor("q").is_some_and(|q| q.shape().is_empty()) {
        let mut r = outs.swap_remove(0);
        if x.shape().is_empty() {
            r = run.engine.reshape(&r, &[])?;
        }
        let r = op(run, "clone", vec![Value::Tensor(r)], vec![])?;
        // PyTorch's kernel finishes its result in place twice (a sort into it, then lerp_).
        return v(bumped(run, r, 2)?);
    }
    // PyTorch computes with q as the last dim and moves it to the front: a permuted view.
    let s = run.engine.stack(&outs, -1)?;
    let s = bumped(run, s, 2)?;
    let last = s.shape().len() as i64 - 1;
    v(run.engine.movedim(&s, &[last], &[0])?)
}

pub fn aminmax(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let keep = KeepDim::from(b.bool("keepdim"));
    let axes: Vec<usize> = match b.opt_int("dim") {
        None => {
            if x.numel() == 0 {
                bail!(
                    Shape,
                    "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
                );
            }
            (0..x.shape().len()).collect()
        }
        Some(d) => {
            let d = wrap_dim(d, x.shape().len())?;
            if x.shape().is_empty() {
                vec![]
            } else {
                vec![d]
            }
        }
    };
    let lo = run.engine.reduce(ReduceOp::Min, &x, &axes, keep)?;
    let hi = run.engine.reduce(ReduceOp::Max, &x, &axes, keep)?;
    Ok(Value::named("aminmax", vec![("min", Value::Tensor(lo)), ("max", Value::Tensor(hi))]))
}

/// NaN sorts after every number, as in PyTorch's sort.
fn less(a: f64, b: f64) -> bool {
    if a.is_nan() {
        false
    } else if b.is_nan() {
        true
    } else {
        a < b
    }
}

/// For each value, the number of sorted entries before which it goes (`right`: after equal ones).
fn search(sorted: &[f64], x: f64, right: bool) -> i64 {
    let (mut lo, mut hi) = (0usize, sorted.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let go_right = if right { !less(x, sorted[mid]) } else { less(sorted[mid], x) };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo as i64
}

fn searched(run: &mut RunContext, seq: &Tensor, values: &Tensor, right: bool, int32: bool) -> Result<Tensor> {
    let nd = seq.shape().len();
    let inner = if nd == 0 { 1 } else { seq.shape()[nd - 1] };
    let sd = run.engine.values(seq)?;
    let s: Vec<f64> = (0..sd.len()).map(|i| sd.get_f64(i)).collect();
    let vd = run.engine.values(values)?;
    let n = vd.len();
    let rows = s.len().checked_div(inner).unwrap_or(0).max(1);
    let per_row = if nd <= 1 { n } else { n / rows.max(1) };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let row = if nd <= 1 || per_row == 0 { 0 } else { i / per_row };
        let slice = &s[row * inner..(row * inner + inner).min(s.len())];
        out.push(search(slice, vd.get_f64(i), right));
    }
    let r = run.engine.from_data(Data::I64(out), values.shape())?;
    if int32 {
        run.engine.cast(&r, DType::Int32)
    } else {
        Ok(r)
    }
}

fn side(b: &Bound) -> Result<bool> {
    let right = b.bool("right");
    match b.str("side").as_deref() {
        None => Ok(right),
        Some("left") if !right => Ok(false),
        Some("right") => Ok(true),
        Some("left") => bail!(
            Shape,
            "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
        ),
        Some(s) => bail!(Shape, "torch.searchsorted(): side can only be 'left' or 'right' but got {s}"),
    }
}

pub fn searchsorted(run: &mut RunContext, b: &Bound) -> Out {
    let seq = b.tensor("sorted_sequence")?;
    if !b.is_none("sorter") {
        bail!(Unsupported, "searchsorted(sorter=...) is not supported");
    }
    let right = side(b)?;
    let values = match b.value("input") {
        Value::Tensor(x) => x,
        Value::Scalar(s) => run.engine.full(&[], s, None)?,
        other => bail!(Type, "searchsorted(): argument 'input' must be Tensor or Number, not {}", other.type_name()),
    };
    let (ns, nv) = (seq.shape().len(), values.shape().len());
    if ns > 1 && (ns != nv || seq.shape()[..ns - 1] != values.shape()[..nv - 1]) {
        bail!(
            Shape,
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {:?} and input value tensor {:?}",
            seq.shape(),
            values.shape()
        );
    }
    v(searched(run, &seq, &values, right, b.bool("out_int32"))?)
}

pub fn bucketize(run: &mut RunContext, b: &Bound) -> Out {
    let x = match b.value("input") {
        Value::Tensor(x) => x,
        Value::Scalar(s) => run.engine.full(&[], s, None)?,
        other => bail!(Type, "bucketize(): argument 'input' must be Tensor or Number, not {}", other.type_name()),
    };
    let bounds = b.tensor("boundaries")?;
    if bounds.shape().len() != 1 {
        bail!(Shape, "boundaries tensor must be 1 dimension, but got dim({})", bounds.shape().len());
    }
    v(searched(run, &bounds, &x, b.bool("right"), b.bool("out_int32"))?)
}

pub fn cdist(run: &mut RunContext, b: &Bound) -> Out {
    let x1 = b.tensor("x1")?;
    let x2 = b.tensor("x2")?;
    float_only(&x1, "cdist")?;
    let p = b.float("p");
    let (n1, n2) = (x1.shape().len(), x2.shape().len());
    if n1 < 2 || n2 < 2 {
        bail!(Shape, "cdist only supports at least 2D tensors, X1 got: {n1}D");
    }
    if x1.shape()[n1 - 1] != x2.shape()[n2 - 1] {
        bail!(
            Shape,
            "X1 and X2 must have the same number of columns. X1: {} X2: {}",
            x1.shape()[n1 - 1],
            x2.shape()[n2 - 1]
        );
    }
    if p < 0.0 {
        bail!(Shape, "cdist only supports non-negative p values");
    }
    // |x1[..., i, None, :] - x2[..., None, j, :]|_p over the last dim.
    let a = run.engine.unsqueeze(&x1, -2)?;
    let c = run.engine.unsqueeze(&x2, -3)?;
    let d = run.engine.binary(BinaryOp::Sub, &t(&a), &t(&c))?;
    let last = d.shape().len() - 1;
    let r = if p == 0.0 {
        let nz = run.engine.binary(BinaryOp::CmpNe, &t(&d), &f(0.0))?;
        let nz = run.engine.cast(&nz, x1.dtype())?;
        run.engine.reduce(ReduceOp::Sum, &nz, &[last], KeepDim::Drop)?
    } else if p.is_infinite() {
        let a = run.engine.unary(UnaryOp::Abs, &d)?;
        run.engine.reduce(ReduceOp::Max, &a, &[last], KeepDim::Drop)?
    } else {
        run.engine.vector_norm(&d, p, &[last], KeepDim::Drop)?
    };
    v(r)
}
