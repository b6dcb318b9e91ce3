//! Declared adaptive average pooling to any output size (1-3 D, and `interpolate`'s area
//! mode): each output cell the mean of its window `[floor(i n / out), ceil((i + 1) n / out))`,
//! taken as a product of per-dim window means (a matrix product along each dim).

use super::util::*;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::torch::format::MemoryFormat;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::{Data, Scalar};

/// The `(out, in)` matrix that averages each of `out` adaptive windows over `n` inputs:
/// window `i` is `[floor(i n / out), ceil((i + 1) n / out))`.
fn window_means(run: &mut RunContext, n: usize, out: usize, dtype: crate::dtype::DType) -> Result<Tensor> {
    let mut w = vec![0f64; out * n];
    for i in 0..out {
        let (s, e) = ((i * n) / out, ((i + 1) * n).div_ceil(out));
        for j in s..e {
            w[i * n + j] = 1.0 / (e - s) as f64;
        }
    }
    let m = run.engine.from_data(Data::F64(w), &[out, n])?;
    run.engine.cast(&m, dtype)
}

/// Adaptive average pooling of the last `k` dims of `x` to `sizes`.
pub(super) fn adaptive_avg(run: &mut RunContext, x: &Tensor, sizes: &[usize]) -> Result<Tensor> {
    float_only(x, "adaptive_avg_pool2d")?;
    let nd = x.shape().len();
    let k = sizes.len();
    let mut y = x.clone();
    for (i, &o) in sizes.iter().enumerate() {
        let d = nd - k + i;
        let n = y.shape()[d];
        if o == 0 || n == 0 {
            bail!(
                Shape,
                "adaptive_avg_pool: input and output sizes must be positive, got input {:?} and output {sizes:?}",
                x.shape()
            );
        }
        let w = window_means(run, n, o, x.dtype())?;
        // y[..., n, ...] -> y[..., o, ...]: move the dim last, multiply by w^T, move it back.
        let moved = run.engine.movedim(&y, &[d as i64], &[-1])?;
        let wt = run.engine.transpose(&w, 0, 1)?;
        let r = run.engine.matmul(&moved, &wt)?;
        y = run.engine.movedim(&r, &[-1], &[d as i64])?;
    }
    // A fresh result (the last movedim is a view of a product); its row lays it out.
    run.engine.clone_as(&y, MemoryFormat::Contiguous)
}

/// `output_size` as sizes (None keeps the input's).
fn out_sizes(b: &Bound, x: &Tensor, k: usize) -> Result<Vec<usize>> {
    let nd = x.shape().len();
    let given: Vec<Option<i64>> = match b.value("output_size").seq() {
        Value::Scalar(Scalar::Int(i)) => vec![Some(i); k],
        Value::Tuple(items) => items
            .iter()
            .map(|v| match v {
                Value::None => Ok(None),
                v => v.as_int("output_size").map(Some),
            })
            .collect::<Result<_>>()?,
        other => bail!(Type, "output_size must be int or tuple, not {}", other.type_name()),
    };
    if given.len() != k || nd < k + 1 {
        bail!(Shape, "adaptive pool: output_size must have {k} elements for an input of {nd} dims");
    }
    Ok(given.iter().enumerate().map(|(i, g)| g.map_or(x.shape()[nd - k + i], |v| v.max(0) as usize)).collect())
}

pub fn adaptive_avg_pool_any(run: &mut RunContext, b: &Bound, k: usize) -> Out {
    let x = b.tensor("input")?;
    let sizes = out_sizes(b, &x, k)?;
    let y = adaptive_avg(run, &x, &sizes)?;
    run.engine.rename_grad_fn(&y, &format!("AdaptiveAvgPool{k}DBackward0"));
    v(y)
}

pub fn adaptive_avg_pool1d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_avg_pool_any(run, b, 1)
}

pub fn adaptive_avg_pool2d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_avg_pool_any(run, b, 2)
}

pub fn adaptive_avg_pool3d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_avg_pool_any(run, b, 3)
}

/// Adaptive max pooling of the last `k` dims: each window's first maximum found on the host,
/// the values gathered from the input by those indices (so gradients flow to them).
fn adaptive_max(run: &mut RunContext, b: &Bound, k: usize) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "adaptive_max_pool2d")?;
    let sizes = out_sizes(b, &x, k)?;
    let nd = x.shape().len();
    let spatial: Vec<usize> = x.shape()[nd - k..].to_vec();
    if sizes.contains(&0) || spatial.contains(&0) {
        bail!(
            Shape,
            "adaptive_max_pool: input and output sizes must be positive, got input {:?} and output {sizes:?}",
            x.shape()
        );
    }
    let plane: usize = spatial.iter().product();
    let planes = x.numel() / plane.max(1);
    let d = run.engine.values(&x)?;
    let out_plane: usize = sizes.iter().product();
    let mut idx = Vec::with_capacity(planes * out_plane);
    let window = |i: usize, n: usize, o: usize| ((i * n) / o, ((i + 1) * n).div_ceil(o));
    for p in 0..planes {
        for o in 0..out_plane {
            // The output cell's coordinates, then its window in each dim.
            let mut rem = o;
            let mut ranges = vec![(0, 0); k];
            for dim in (0..k).rev() {
                let c = rem % sizes[dim];
                rem /= sizes[dim];
                ranges[dim] = window(c, spatial[dim], sizes[dim]);
            }
            let mut best: Option<(usize, f64)> = None;
            let mut cur: Vec<usize> = ranges.iter().map(|r| r.0).collect();
            'walk: loop {
                let flat = cur.iter().zip(&spatial).fold(0, |acc, (&c, &n)| acc * n + c);
                let v = d.get_f64(p * plane + flat);
                if best.is_none_or(|(_, bv)| v > bv || (v.is_nan() && !bv.is_nan())) {
                    best = Some((flat, v));
                }
                for dim in (0..k).rev() {
                    cur[dim] += 1;
                    if cur[dim] < ranges[dim].1 {
                        continue 'walk;
                    }
                    cur[dim] = ranges[dim].0;
                }
                break;
            }
            idx.push(best.map_or(0, |(f, _)| f) as i64);
        }
    }
    let mut out_shape = x.shape()[..nd - k].to_vec();
    out_shape.extend(&sizes);
    let index = run.engine.from_data(Data::I64(idx), &out_shape)?;
    // Gather from the planes flattened: values[p, o] = x[p, index[p, o]].
    let lead: Vec<i64> = x.shape()[..nd - k].iter().map(|&n| n as i64).collect();
    let mut flat_x = lead.clone();
    flat_x.push(plane as i64);
    let mut flat_i = lead;
    flat_i.push(out_plane as i64);
    let xf = run.engine.reshape(&x, &flat_x)?;
    let fi = run.engine.reshape(&index, &flat_i)?;
    let vals = run.engine.gather(&xf, -1, &fi)?;
    let shape: Vec<i64> = out_shape.iter().map(|&n| n as i64).collect();
    let vals = run.engine.reshape(&vals, &shape)?;
    // A fresh result (the reshape is a view of the gather's); its row lays it out.
    let vals = run.engine.clone_as(&vals, MemoryFormat::Contiguous)?;
    run.engine.rename_grad_fn(&vals, &format!("AdaptiveMaxPool{k}DBackward0"));
    if b.bool("return_indices") {
        return Ok(Value::Tuple(vec![Value::Tensor(vals), Value::Tensor(index)]));
    }
    v(vals)
}

pub fn adaptive_max_pool1d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_max(run, b, 1)
}

pub fn adaptive_max_pool2d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_max(run, b, 2)
}

pub fn adaptive_max_pool3d(run: &mut RunContext, b: &Bound) -> Out {
    adaptive_max(run, b, 3)
}
