//! Declared index ops composed from the library's: `index_reduce` (a `scatter_reduce` whose
//! index is the slice index broadcast over the source), `unique_consecutive`, `histc`,
//! `broadcast_shapes`.

use super::util::*;
use crate::dtype::DType;
use crate::error::bail;
use crate::strided::wrap_dim;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::{Data, Scalar};

pub fn index_reduce(run: &mut RunContext, b: &Bound) -> Out {
    let (x, idx, src) = (b.tensor("input")?, b.tensor("index")?, b.tensor("source")?);
    let reduce = b.str("reduce").unwrap_or_default();
    if !matches!(reduce.as_str(), "prod" | "mean" | "amax" | "amin") {
        bail!(Shape, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.");
    }
    if idx.shape().len() > 1 {
        bail!(Index, "index_reduce_(): Index is supposed to be a vector");
    }
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let sd = if src.shape().is_empty() { 0 } else { d };
    if src.shape().len() != nd.max(1) && !(nd == 0 && src.shape().len() <= 1) {
        bail!(Index, "index_reduce_(): Source and destination should have the same number of dimensions");
    }
    if src.shape().get(sd).copied().unwrap_or(1) != idx.numel() {
        bail!(
            Index,
            "index_reduce_(): Number of indices ({}) should be equal to source.size(dim) ({})",
            idx.numel(),
            src.shape().get(sd).copied().unwrap_or(1)
        );
    }
    let n = x.shape().get(d).map_or(1, |&n| n as i64);
    if run.engine.values(&idx)?.to_f64_vec().iter().any(|&i| i < 0.0 || i >= n as f64) {
        bail!(Index, "index out of range in self");
    }
    // The index along `dim`, broadcast over the source's other dims.
    let mut line = vec![1i64; src.shape().len().max(1)];
    line[sd] = idx.numel() as i64;
    let full: Vec<i64> = src.shape().iter().map(|&n| n as i64).collect();
    let i = run.engine.reshape(&idx, &line)?;
    let i = if full.is_empty() { i } else { run.engine.expand(&i, &full)? };
    let i = op(run, "clone", vec![Value::Tensor(i)], vec![])?;
    let i = run.engine.cast(&i, DType::Int64)?;
    let i = if src.shape().is_empty() { run.engine.reshape(&i, &[])? } else { i };
    v(op(
        run,
        "scatter_reduce",
        vec![
            Value::Tensor(x),
            Value::Scalar(Scalar::Int(d as i64)),
            Value::Tensor(i),
            Value::Tensor(src),
            Value::Str(reduce),
        ],
        vec![("include_self", b.value("include_self"))],
    )?)
}

pub fn unique_consecutive(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if !b.is_none("dim") {
        bail!(Unsupported, "unique_consecutive(dim=...) is not supported");
    }
    let d = run.engine.values(&x)?;
    let (mut vals, mut inverse, mut counts) = (Vec::new(), Vec::with_capacity(d.len()), Vec::new());
    for i in 0..d.len() {
        let v = d.get_f64(i);
        if vals.last().is_none_or(|&l: &f64| l != v && !(l.is_nan() && v.is_nan())) {
            vals.push(v);
            counts.push(0i64);
        }
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
        inverse.push(vals.len() as i64 - 1);
    }
    let n = vals.len();
    let out = run.engine.from_data(Data::F64(vals), &[n])?;
    let out = run.engine.cast(&out, x.dtype())?;
    let (ri, rc) = (b.bool("return_inverse"), b.bool("return_counts"));
    if !ri && !rc {
        return v(out);
    }
    let mut items = vec![Value::Tensor(out)];
    if ri {
        items.push(Value::Tensor(run.engine.from_data(Data::I64(inverse), x.shape())?));
    }
    if rc {
        items.push(Value::Tensor(run.engine.from_data(Data::I64(counts), &[n])?));
    }
    Ok(Value::Tuple(items))
}

pub fn histc(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "histogram_cpu")?;
    let bins = b.int("bins");
    if bins <= 0 {
        bail!(Shape, "torch.histc(): bins must be > 0, but got {bins} for dimension 0");
    }
    let d = run.engine.values(&x)?;
    let vals: Vec<f64> = (0..d.len()).map(|i| d.get_f64(i)).collect();
    let (mut lo, mut hi) = (b.float("min"), b.float("max"));
    if lo == hi && !vals.is_empty() {
        lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    }
    if lo == hi {
        lo -= 1.0;
        hi += 1.0;
    }
    if lo > hi {
        bail!(Shape, "torch.histc(): max must be larger than min");
    }
    let single = x.dtype() == DType::Float32;
    let (lo, hi) = if single { (f64::from(lo as f32), f64::from(hi as f32)) } else { (lo, hi) };
    let mut counts = vec![0f64; bins as usize];
    for v in vals {
        if v.is_nan() || v < lo || v > hi {
            continue;
        }
        // PyTorch's bin: (v - lo) * bins / (hi - lo), the last edge in the last bin.
        let pos = if single {
            f64::from((v as f32 - lo as f32) * bins as f32 / (hi as f32 - lo as f32))
        } else {
            (v - lo) * bins as f64 / (hi - lo)
        };
        let k = (pos as i64).clamp(0, bins - 1) as usize;
        counts[k] += 1.0;
    }
    let r = run.engine.from_data(Data::F64(counts), &[bins as usize])?;
    v(run.engine.cast(&r, x.dtype())?)
}

pub fn broadcast_shapes(run: &mut RunContext, b: &Bound) -> Out {
    let _ = &run;
    let shapes: Vec<Vec<usize>> = match b.value("shapes").seq() {
        Value::Tuple(items) => items
            .iter()
            .map(|s| match s {
                Value::Scalar(Scalar::Int(i)) => Ok(vec![(*i).max(0) as usize]),
                other => other.as_ints("shape").map(|v| v.into_iter().map(|n| n.max(0) as usize).collect()),
            })
            .collect::<crate::error::Result<_>>()?,
        _ => Vec::new(),
    };
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let out = crate::tensor::Engine::broadcast_shapes(&refs)?;
    Ok(Value::Size(out.into_iter().map(|n| Value::Scalar(Scalar::Int(n as i64))).collect()))
}
