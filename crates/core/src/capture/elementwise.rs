//! The CPU plan's elementwise and data-movement kernels over f32 buffers: Relu, Clip, the four
//! broadcast binary ops, Softmax, inference BatchNormalization, global average pooling,
//! Transpose and Concat. Plain loops over preallocated buffers, written so they vectorise.

use super::routine::{Broadcast, BroadcastArith};
use crate::strided::StridedIndex;

/// NaN-propagating max, as the interpreter's (PyTorch's) maximum, written as one compare and
/// select so that loops over it vectorise.
pub(super) fn max_nan(a: f32, b: f32) -> f32 {
    if b > a || b.is_nan() {
        b
    } else {
        a
    }
}

pub(super) fn relu(x: &[f32], y: &mut [f32]) {
    y.iter_mut().zip(x).for_each(|(y, &v)| *y = if v > 0.0 { v } else { 0.0 });
}

/// Clip to `[lo, hi]`; NaN in the value or a bound gives NaN.
pub(super) fn clip(x: &[f32], lo: f32, hi: f32, y: &mut [f32]) {
    let min_nan = |a: f32, b: f32| if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) };
    y.iter_mut().zip(x).for_each(|(y, &v)| *y = min_nan(max_nan(v, lo), hi));
}

/// `x` read through `strides` in the order of `out_shape`.
pub(super) fn transpose(x: &[f32], out_shape: &[usize], strides: &[i64], y: &mut [f32]) {
    for (y, off) in y.iter_mut().zip(StridedIndex::new(out_shape, strides, 0)) {
        *y = x[off as usize];
    }
}

/// The inputs side by side: each of the `outer` rows of `y` is every input's row of
/// `chunks[j]` values in turn.
pub(super) fn concat(xs: &[&[f32]], outer: usize, chunks: &[usize], y: &mut [f32]) {
    let total: usize = chunks.iter().sum();
    let mut base = 0;
    for (src, &len) in xs.iter().zip(chunks) {
        for o in 0..outer {
            y[o * total + base..][..len].copy_from_slice(&src[o * len..][..len]);
        }
        base += len;
    }
}

/// Inference BatchNormalization over (N, C, rest): `params` are scale, bias, mean and variance.
pub(super) fn batch_norm(x: &[f32], params: [&[f32]; 4], channels: usize, inner: usize, eps: f32, y: &mut [f32]) {
    let [scale, bias, mean, var] = params;
    for (i, (yc, xc)) in y.chunks_mut(inner).zip(x.chunks(inner)).enumerate() {
        let c = i % channels;
        let (m, sd) = (mean[c], (var[c] + eps).sqrt());
        yc.iter_mut().zip(xc).for_each(|(y, &v)| *y = scale[c] * (v - m) / sd + bias[c]);
    }
}

/// The mean of each of `planes` planes of `size` values.
pub(super) fn global_average(x: &[f32], planes: usize, size: usize, y: &mut [f32]) {
    for p in 0..planes {
        y[p] = x[p * size..][..size].iter().sum::<f32>() / size as f32;
    }
}

pub(super) fn binary(op: BroadcastArith, bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32]) {
    // One monomorphised loop per op: a function pointer per element would not vectorise.
    match op {
        BroadcastArith::Add => zip_with(bc, a, b, y, |a, b| a + b),
        BroadcastArith::Sub => zip_with(bc, a, b, y, |a, b| a - b),
        BroadcastArith::Mul => zip_with(bc, a, b, y, |a, b| a * b),
        BroadcastArith::Div => zip_with(bc, a, b, y, |a, b| a / b),
    }
}

fn zip_with(bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32], f: impl Fn(f32, f32) -> f32) {
    match (a.len() == y.len(), b.len() == y.len()) {
        (true, true) => return y.iter_mut().zip(a.iter().zip(b)).for_each(|(y, (&a, &b))| *y = f(a, b)),
        (true, false) if b.len() == 1 => return y.iter_mut().zip(a).for_each(|(y, &a)| *y = f(a, b[0])),
        (false, true) if a.len() == 1 => return y.iter_mut().zip(b).for_each(|(y, &b)| *y = f(a[0], b)),
        _ => {}
    }
    // Rows of the last dim, each with its two input offsets and strides.
    let r = bc.shape.len();
    let (len, sa, sb) = match r {
        0 => (1, 0, 0),
        _ => (bc.shape[r - 1], bc.a[r - 1], bc.b[r - 1]),
    };
    if len == 0 {
        return;
    }
    // Broadcast strides are never negative.
    let (sa, sb) = (sa as usize, sb as usize);
    let outer = &bc.shape[..r.saturating_sub(1)];
    let rows_a = StridedIndex::new(outer, &bc.a[..outer.len()], 0);
    let rows_b = StridedIndex::new(outer, &bc.b[..outer.len()], 0);
    for (out, (oa, ob)) in y.chunks_mut(len).zip(rows_a.zip(rows_b)) {
        let (oa, ob) = (oa as usize, ob as usize);
        for (i, v) in out.iter_mut().enumerate() {
            *v = f(a[oa + i * sa], b[ob + i * sb]);
        }
    }
}

pub(super) fn softmax(x: &[f32], y: &mut [f32], outer: usize, len: usize, inner: usize) {
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| o * len * inner + j * inner + i;
            let m = (0..len).map(|j| x[at(j)]).fold(f32::NEG_INFINITY, max_nan);
            let mut sum = 0.0;
            for j in 0..len {
                let e = (x[at(j)] - m).exp();
                y[at(j)] = e;
                sum += e;
            }
            for j in 0..len {
                y[at(j)] /= sum;
            }
        }
    }
}
