//! The CPU plan's elementwise and data-movement kernels over f32 buffers: Relu, Clip, the
//! unary ops, the broadcast binary ops (Pow among them) and Where, Softmax, LayerNormalization,
//! inference BatchNormalization, global average pooling, Transpose, Concat, Split and Gather.
//! Plain loops over preallocated buffers, written so they vectorise.

use super::routine::{Broadcast, BroadcastArith, UnaryF32};
use crate::error::{bail, Result};
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

/// `xs` folded by `f` in eight interleaved lanes, then the lanes in order: the loop vectorises
/// where a single running fold cannot (a float sum's order is fixed). Exact for max; a sum's
/// rounding differs from the sequential one's within f32 precision.
fn lanes8(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = f(*a, v);
        }
    }
    let head = acc.into_iter().fold(init, &f);
    rest.iter().fold(head, |a, &v| f(a, v))
}

pub(super) fn relu(x: &[f32], y: &mut [f32]) {
    y.iter_mut().zip(x).for_each(|(y, &v)| *y = if v > 0.0 { v } else { 0.0 });
}

/// Clip to `[lo, hi]`; NaN in the value or a bound gives NaN.
pub(super) fn clip(x: &[f32], lo: f32, hi: f32, y: &mut [f32]) {
    let min_nan = |a: f32, b: f32| if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) };
    y.iter_mut().zip(x).for_each(|(y, &v)| *y = min_nan(max_nan(v, lo), hi));
}

pub(super) fn unary(op: UnaryF32, x: &[f32], y: &mut [f32]) {
    // One monomorphised loop per op, as for the binary ops.
    let map = |y: &mut [f32], f: fn(f32) -> f32| y.iter_mut().zip(x).for_each(|(y, &v)| *y = f(v));
    match op {
        UnaryF32::Abs => map(y, f32::abs),
        UnaryF32::Neg => map(y, |v| -v),
        UnaryF32::Sqrt => map(y, f32::sqrt),
        UnaryF32::Reciprocal => map(y, |v| 1.0 / v),
        UnaryF32::Exp => map(y, f32::exp),
        UnaryF32::Log => map(y, f32::ln),
        UnaryF32::Tanh => map(y, f32::tanh),
        UnaryF32::Sigmoid => map(y, |v| 1.0 / (1.0 + (-v).exp())),
        UnaryF32::Erf => map(y, erf),
    }
}

/// e^x for the shifted inputs of a softmax row (x ≤ 0, -inf for a masked position, NaN where the
/// row has one): 2^n · p(r) with n = round(x / ln 2) found by adding 1.5 · 2^23, r reduced in two
/// parts of ln 2 and p Cephes' degree-6 polynomial, so the loop has no branch, no float-to-int
/// cast and vectorises on plain SSE2, where libm's `expf` is a call per element. Within 2 ulp of
/// the exact value; below -87.3 (where e^x leaves the normal floats) it is 0, as it is for -inf.
pub(super) fn exp_nonpositive(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer in the low bits
    let c = x.max(-87.3);
    let t = c * LOG2E + ROUND;
    let n = t - ROUND;
    let r = c - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_2e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // t's low mantissa bits hold n + 2^22 (two's complement in the low 23 bits): 2^n's exponent.
    let bits = (t.to_bits().wrapping_sub(ROUND.to_bits()) as i32 + 127) << 23;
    let y = e * f32::from_bits(bits as u32);
    if x.is_nan() {
        x
    } else if x < -87.3 {
        0.0
    } else {
        y
    }
}

/// erf in f32 as a ratio of odd and even polynomials in x on [-4, 4] (beyond which erf is ±1
/// in f32): no branch and no exp, so its loop vectorises. Within 8 ulp of the reference (5e-7
/// absolute at worst, near ±4; 1e-6 relative near zero), as inference runtimes' erf.
pub(super) fn erf(x: f32) -> f32 {
    const P: [f32; 7] = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_6e-3,
        -1.609_603_3e-2,
    ];
    const Q: [f32; 5] = [-1.456_607_2e-5, -2.133_740_6e-4, -1.682_827e-3, -7.373_329e-3, -1.426_474e-2];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = P.iter().fold(0.0, |acc, &c| acc * x2 + c);
    let q = Q.iter().fold(0.0, |acc, &c| acc * x2 + c);
    x * p / q
}

/// `x` read through `strides` in the order of `out_shape`, a row of the last dim at a time.
pub(super) fn transpose(x: &[f32], out_shape: &[usize], strides: &[i64], y: &mut [f32]) {
    let Some((&len, outer)) = out_shape.split_last() else {
        y.copy_from_slice(x);
        return;
    };
    if len == 0 {
        return;
    }
    let step = strides[outer.len()] as usize;
    for (row, off) in y.chunks_mut(len).zip(StridedIndex::new(outer, &strides[..outer.len()], 0)) {
        let off = off as usize;
        if step == 1 {
            row.copy_from_slice(&x[off..off + len]);
        } else {
            row.iter_mut().enumerate().for_each(|(i, v)| *v = x[off + i * step]);
        }
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

/// Concat's inverse: each of the `outer` rows of `x` dealt out to the outputs, `chunks[j]`
/// values to `ys[j]`.
pub(super) fn split(x: &[f32], outer: usize, chunks: &[usize], ys: &mut [&mut [f32]]) {
    let total: usize = chunks.iter().sum();
    let mut base = 0;
    for (dst, &len) in ys.iter_mut().zip(chunks) {
        for o in 0..outer {
            dst[o * len..][..len].copy_from_slice(&x[o * total + base..][..len]);
        }
        base += len;
    }
}

/// Gather along the middle of `x` seen as (`outer`, `len`, `inner`): each index (negative
/// ones count from the end) picks a block of `inner` values.
pub(super) fn gather(
    x: &[f32],
    indices: impl Iterator<Item = i64> + Clone,
    [outer, len, inner]: [usize; 3],
    y: &mut [f32],
) -> Result<()> {
    let mut at = 0;
    for o in 0..outer {
        for i in indices.clone() {
            let j = if i < 0 { i + len as i64 } else { i };
            if j < 0 || j >= len as i64 {
                bail!(Shape, "Gather: index {i} is out of range for an axis of {len}");
            }
            let from = (o * len + j as usize) * inner;
            y[at..at + inner].copy_from_slice(&x[from..from + inner]);
            at += inner;
        }
    }
    Ok(())
}

/// LayerNormalization of each row of `len` values: mean and variance summed in f64, then
/// `(x - mean) / sqrt(var + eps) * scale + bias`; `stats` takes the optional Mean and
/// InvStdDev outputs, one value per row.
pub(super) fn layer_norm(
    x: &[f32],
    scale: &[f32],
    bias: Option<&[f32]>,
    len: usize,
    eps: f32,
    y: &mut [f32],
    stats: &mut [&mut [f32]],
) {
    if len == 0 {
        return;
    }
    for (r, (yr, xr)) in y.chunks_mut(len).zip(x.chunks(len)).enumerate() {
        let mean = (xr.iter().map(|&v| f64::from(v)).sum::<f64>() / len as f64) as f32;
        let var = xr.iter().map(|&v| f64::from(v - mean) * f64::from(v - mean)).sum::<f64>() / len as f64;
        let inv = 1.0 / (var as f32 + eps).sqrt();
        yr.iter_mut().zip(xr).zip(scale).for_each(|((y, &v), &s)| *y = (v - mean) * inv * s);
        if let Some(b) = bias {
            yr.iter_mut().zip(b).for_each(|(y, &b)| *y += b);
        }
        for (out, v) in stats.iter_mut().zip([mean, inv]) {
            out[r] = v;
        }
    }
}

/// Where: `cond` (broadcast by `cond_strides`) picks from `a` or `b` (broadcast by `bc`), a
/// row of the last dim at a time.
pub(super) fn select(cond: &[bool], cond_strides: &[i64], bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32]) {
    let r = bc.shape.len();
    let len = if r == 0 { 1 } else { bc.shape[r - 1] };
    if len == 0 {
        return;
    }
    let outer = &bc.shape[..r.saturating_sub(1)];
    // Per input: its row offsets and its stride along the row (broadcast strides are never
    // negative).
    fn rows<'a>(outer: &'a [usize], s: &'a [i64]) -> (impl Iterator<Item = usize> + 'a, usize) {
        let step = s.get(outer.len()).map_or(0, |&v| v as usize);
        (StridedIndex::new(outer, &s[..outer.len()], 0).map(|o| o as usize), step)
    }
    let ((rc, sc), (ra, sa), (rb, sb)) = (rows(outer, cond_strides), rows(outer, &bc.a), rows(outer, &bc.b));
    for (out, ((oc, oa), ob)) in y.chunks_mut(len).zip(rc.zip(ra).zip(rb)) {
        for (i, v) in out.iter_mut().enumerate() {
            *v = if cond[oc + i * sc] { a[oa + i * sa] } else { b[ob + i * sb] };
        }
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
        // Squares (variances) as a product, exact where `powf` need not be.
        BroadcastArith::Pow => zip_with(bc, a, b, y, |a, b| if b == 2.0 { a * a } else { a.powf(b) }),
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
    if inner == 1 {
        // Rows in place: the common case (the last axis), in passes that vectorise.
        for (yr, xr) in y.chunks_mut(len.max(1)).zip(x.chunks(len.max(1))) {
            let m = lanes8(xr, f32::NEG_INFINITY, max_nan);
            yr.iter_mut().zip(xr).for_each(|(y, &v)| *y = exp_nonpositive(v - m));
            let sum = lanes8(yr, 0.0, |a, b| a + b);
            yr.iter_mut().for_each(|y| *y /= sum);
        }
        return;
    }
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| o * len * inner + j * inner + i;
            let m = (0..len).map(|j| x[at(j)]).fold(f32::NEG_INFINITY, max_nan);
            let mut sum = 0.0;
            for j in 0..len {
                let e = exp_nonpositive(x[at(j)] - m);
                y[at(j)] = e;
                sum += e;
            }
            for j in 0..len {
                y[at(j)] /= sum;
            }
        }
    }
}
