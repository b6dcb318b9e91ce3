//! Declared adaptive average pooling to any output size (1-3 D, and `interpolate`'s area
//! mode): each output cell the mean of its window `[floor(i n / out), ceil((i + 1) n / out))`,
//! taken as a product of per-dim window means (a matrix product along each dim).

use super::super::context::RunContext;
use super::super::signature::Bound;
use super::super::value::Value;
use super::util::*;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
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
    run.engine.contiguous(&y)
}

/// `output_size` as sizes (None keeps the input's).
fn out_sizes(b: &Bound, x: &Tensor, k: usize) -> Result<Vec<usize>> {
    let nd = x.shape().len();
    let given: Vec<Option<i64>> = match b.value("output_size") {
        Value::Scalar(Scalar::Int(i)) => vec![Some(i); k],
        Value::Tuple(items) | Value::List(items) => items
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
