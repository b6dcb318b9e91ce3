//! Which routine runs a capture kernel on the CPU: a direct f32 kernel where the op, its
//! attributes and its shapes are a case written out for one. Each function returns `None` for a
//! case it does not cover; the interpreter then runs the kernel and reports any error in the
//! model itself.

use crate::error::Result;
use crate::model::ops::{axis, AxisRange, Lower, Rounding, Window};
use crate::onnx::Node;

use super::routine::{Broadcast, BroadcastArith, Conv, ConvKernel, Gemm, Pool, Routine, UnaryF32};
use crate::strided::row_major_strides;
use crate::DType;

/// The buffers' shapes and dtypes, indexed by buffer id.
#[derive(Clone, Copy)]
pub(super) struct Buffers<'a> {
    pub shapes: &'a [Vec<usize>],
    pub dtypes: &'a [DType],
}

/// What input `j` of `op` must be for a direct kernel: float32 but for the index, condition
/// and shape inputs the kernels read as such.
fn accepts(op: &str, j: usize, dtype: DType) -> bool {
    match (op, j) {
        // A target shape, axes or split sizes, read when the plan is built, never by the kernel.
        ("Reshape" | "Squeeze" | "Unsqueeze" | "Split", 1) => true,
        ("Gather", 1) => matches!(dtype, DType::Int64 | DType::Int32),
        ("Where", 0) => dtype == DType::Bool,
        _ => dtype == DType::Float32,
    }
}

/// The direct kernel for `node` over these buffers, if one is written for its case.
pub(super) fn routine(
    node: &Node,
    opset: i64,
    reads: &[Option<usize>],
    writes: &[usize],
    bufs: Buffers,
) -> Option<Routine> {
    let shapes = bufs.shapes;
    let op = node.op_type();
    let typed = reads.iter().enumerate().all(|(j, r)| r.is_none_or(|i| accepts(op, j, bufs.dtypes[i])))
        && writes.iter().all(|&w| bufs.dtypes[w] == DType::Float32);
    typed.then_some(())?;
    let input = |j: usize| reads.get(j).copied().flatten();
    let shape = |j: usize| input(j).map(|i| shapes[i].as_slice());
    if op == "Split" {
        return split(node, shape(0)?, writes.iter().map(|&w| shapes[w].as_slice()));
    }
    if op == "LayerNormalization" {
        return layer_norm(node, writes.iter().map(|&w| shapes[w].as_slice()).collect(), shape(1)?, shape(2));
    }
    let [w] = writes else { return None };
    let out = &shapes[*w];
    let unary = |u: UnaryF32| Some(Routine::Unary(u));
    let r = match op {
        "Relu" => Routine::Relu,
        "Abs" => unary(UnaryF32::Abs)?,
        "Neg" => unary(UnaryF32::Neg)?,
        "Sqrt" => unary(UnaryF32::Sqrt)?,
        "Reciprocal" => unary(UnaryF32::Reciprocal)?,
        "Exp" => unary(UnaryF32::Exp)?,
        "Log" => unary(UnaryF32::Log)?,
        "Tanh" => unary(UnaryF32::Tanh)?,
        "Sigmoid" => unary(UnaryF32::Sigmoid)?,
        "Erf" => unary(UnaryF32::Erf)?,
        "Gather" => {
            let (xs, is) = (shape(0)?, shape(1)?);
            let a = axis(node.int_or("axis", 0).ok()?, xs.len(), AxisRange::BelowRank).ok()?;
            let want: Vec<usize> = xs[..a].iter().chain(is).chain(&xs[a + 1..]).copied().collect();
            (want == *out).then_some(())?;
            Routine::Gather { outer: xs[..a].iter().product(), len: xs[a], inner: xs[a + 1..].iter().product() }
        }
        "Where" => Routine::Where {
            cond: bcast(shape(0)?, out)?,
            values: Broadcast { shape: out.clone(), a: bcast(shape(1)?, out)?, b: bcast(shape(2)?, out)? },
        },
        "Clip" => {
            // Bounds are scalars; any other shape is the interpreter's to refuse.
            let scalar = |j: usize| shape(j).is_none_or(|s| s.iter().product::<usize>() == 1 && s.len() <= 1);
            (scalar(1) && scalar(2)).then_some(())?;
            Routine::Clip { lo: input(1).is_some(), hi: input(2).is_some() }
        }
        "Add" | "Sub" | "Mul" | "Div" | "Pow" => {
            let op = match node.op_type() {
                "Add" => BroadcastArith::Add,
                "Sub" => BroadcastArith::Sub,
                "Mul" => BroadcastArith::Mul,
                "Div" => BroadcastArith::Div,
                _ => BroadcastArith::Pow,
            };
            Routine::Binary(op, Broadcast { shape: out.clone(), a: bcast(shape(0)?, out)?, b: bcast(shape(1)?, out)? })
        }
        "Flatten" | "Reshape" | "Squeeze" | "Unsqueeze" | "Identity" => {
            (shape(0)?.iter().product::<usize>() == out.iter().product::<usize>()).then_some(())?;
            Routine::Copy
        }
        "Transpose" => {
            let xs = shape(0)?;
            let perm: Vec<usize> = match node.ints("perm").ok()? {
                None => (0..xs.len()).rev().collect(),
                Some(p) => p.iter().map(|&a| axis(a, xs.len(), AxisRange::BelowRank)).collect::<Result<_>>().ok()?,
            };
            let rs = row_major_strides(xs);
            Routine::Transpose { out_shape: out.clone(), strides: perm.iter().map(|&p| rs[p]).collect() }
        }
        "Concat" => {
            let a = axis(node.int("axis").ok()?.unwrap_or(0), out.len(), AxisRange::BelowRank).ok()?;
            let inner: usize = out[a + 1..].iter().product();
            let chunks = (0..reads.len()).map(|j| shape(j).map(|s| s[a] * inner)).collect::<Option<Vec<_>>>()?;
            Routine::Concat { outer: out[..a].iter().product(), chunks }
        }
        "Softmax" => {
            let r = out.len();
            let (outer, len, inner) = if opset >= 13 {
                let a = axis(node.int_or("axis", -1).ok()?, r, AxisRange::BelowRank).ok()?;
                (out[..a].iter().product(), out[a], out[a + 1..].iter().product())
            } else {
                let a = axis(node.int_or("axis", 1).ok()?, r, AxisRange::UpToRank).ok()?;
                (out[..a].iter().product(), out[a..].iter().product(), 1)
            };
            Routine::Softmax { outer, len, inner }
        }
        "BatchNormalization" => {
            let training = if opset >= 14 { node.int_or("training_mode", 0).ok()? != 0 } else { false };
            if training || out.len() < 2 {
                return None;
            }
            let c = out[1];
            (1..5).all(|j| shape(j) == Some(&[c][..])).then_some(())?;
            Routine::BatchNorm {
                channels: c,
                inner: out[2..].iter().product(),
                eps: node.float_or("epsilon", 1e-5).ok()?,
            }
        }
        "GlobalAveragePool" => {
            let xs = shape(0)?;
            (xs.len() >= 3).then_some(())?;
            Routine::GlobalAverage { planes: xs[0] * xs[1], size: xs[2..].iter().product() }
        }
        "Gemm" => gemm(node, shape(0)?, shape(1)?, shape(2), out)?,
        "MatMul" => matmul(shape(0)?, shape(1)?, out)?,
        "Conv" => conv(node, shape(0)?, shape(1)?, shape(2), out)?,
        "MaxPool" | "AveragePool" => pool(node, shape(0)?, out)?,
        _ => return None,
    };
    Some(r)
}

/// Split along its axis into outputs of these shapes (the chunk sizes are theirs, however
/// the node gave them).
fn split<'a>(node: &Node, xs: &[usize], outs: impl Iterator<Item = &'a [usize]>) -> Option<Routine> {
    let a = axis(node.int_or("axis", 0).ok()?, xs.len(), AxisRange::BelowRank).ok()?;
    let inner: usize = xs[a + 1..].iter().product();
    let mut chunks = Vec::new();
    for o in outs {
        let same_elsewhere = o.len() == xs.len() && (0..xs.len()).all(|d| d == a || o[d] == xs[d]);
        same_elsewhere.then_some(())?;
        chunks.push(o[a] * inner);
    }
    (chunks.iter().sum::<usize>() == xs[a] * inner).then_some(())?;
    Some(Routine::Split { outer: xs[..a].iter().product(), chunks })
}

/// LayerNormalization over the dims from its axis on, with a scale (and bias) of exactly the
/// normalized shape (leading ones aside), writing Y and optionally Mean and InvStdDev.
fn layer_norm(node: &Node, outs: Vec<&[usize]>, scale: &[usize], bias: Option<&[usize]>) -> Option<Routine> {
    let out = outs.first()?;
    let a = axis(node.int_or("axis", -1).ok()?, out.len(), AxisRange::BelowRank).ok()?;
    let norm = &out[a..];
    let len: usize = norm.iter().product();
    let exact = |s: &[usize]| s.iter().product::<usize>() == len && bcast(s, norm).is_some();
    (exact(scale) && bias.is_none_or(exact) && outs.len() <= 3).then_some(())?;
    // Mean and InvStdDev keep the normalized dims as ones.
    let stats: Vec<usize> = out.iter().enumerate().map(|(d, &n)| if d < a { n } else { 1 }).collect();
    outs[1..].iter().all(|s| *s == stats.as_slice()).then_some(())?;
    Some(Routine::LayerNorm { len, eps: node.float_or("epsilon", 1e-5).ok()?, bias: bias.is_some() })
}

/// Strides that broadcast `shape` (aligned right) to `out`, or `None` if it does not.
fn bcast(shape: &[usize], out: &[usize]) -> Option<Vec<i64>> {
    let lead = out.len().checked_sub(shape.len())?;
    let rs = row_major_strides(shape);
    (0..out.len())
        .map(|d| match d.checked_sub(lead) {
            None => Some(0),
            Some(i) if shape[i] == out[d] => Some(rs[i]),
            Some(i) if shape[i] == 1 => Some(0),
            Some(_) => None,
        })
        .collect()
}

fn gemm(node: &Node, a: &[usize], b: &[usize], c: Option<&[usize]>, out: &[usize]) -> Option<Routine> {
    let ([ar, ac], [br, bc], [m, n]) = (pair(a)?, pair(b)?, pair(out)?);
    let ta = node.int_or("transA", 0).ok()? != 0;
    let tb = node.int_or("transB", 0).ok()? != 0;
    let (am, k) = if ta { (ac, ar) } else { (ar, ac) };
    let (bk, bn) = if tb { (bc, br) } else { (br, bc) };
    (am == m && bn == n && bk == k).then_some(())?;
    // A transposed operand is read down its stored columns.
    let strides = |cols: usize, t: bool| if t { (1, cols as isize) } else { (cols as isize, 1) };
    let c = match c {
        None => None,
        Some(cs) => {
            let s = bcast(cs, out)?;
            // Broadcast strides are never negative.
            Some(((s[0] as usize, s[1] as usize), node.float_or("beta", 1.0).ok()?))
        }
    };
    Some(Routine::Gemm(Gemm {
        batch: 1,
        m,
        k,
        n,
        a: strides(ac, ta),
        b: strides(bc, tb),
        b_batched: false,
        alpha: node.float_or("alpha", 1.0).ok()?,
        c,
    }))
}

/// MatMul of rank-2 or more operands whose batch dims are equal, or whose B is one matrix.
fn matmul(a: &[usize], b: &[usize], out: &[usize]) -> Option<Routine> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (m, k) = (a[a.len() - 2], a[a.len() - 1]);
    let (bk, n) = (b[b.len() - 2], b[b.len() - 1]);
    let batch_a = &a[..a.len() - 2];
    let batch_b = &b[..b.len() - 2];
    let b_batched = !batch_b.is_empty();
    if bk != k
        || (b_batched && batch_a != batch_b)
        || out[..out.len() - 2] != *batch_a
        || out[out.len() - 2..] != [m, n]
    {
        return None;
    }
    Some(Routine::Gemm(Gemm {
        batch: batch_a.iter().product(),
        m,
        k,
        n,
        a: (k as isize, 1),
        b: (n as isize, 1),
        b_batched,
        alpha: 1.0,
        c: None,
    }))
}

fn pair(v: &[usize]) -> Option<[usize; 2]> {
    <[usize; 2]>::try_from(v).ok()
}

fn conv(node: &Node, x: &[usize], w: &[usize], bias: Option<&[usize]>, out: &[usize]) -> Option<Routine> {
    let ([n, c, h, wd], [oc, cg, kh, kw]) = (<[usize; 4]>::try_from(x).ok()?, <[usize; 4]>::try_from(w).ok()?);
    if let Some(k) = node.ints("kernel_shape").ok()? {
        (k.len() == 2 && k[0] as usize == kh && k[1] as usize == kw).then_some(())?;
    }
    let groups = usize::try_from(node.int_or("group", 1).ok()?).ok()?;
    (groups > 0 && c % groups == 0 && oc % groups == 0 && cg * groups == c).then_some(())?;
    let win = Window::read(node, &[h, wd], &[kh, kw], Rounding::Floor).ok()?;
    let geom = Conv {
        n,
        c,
        hw: [h, wd],
        oc,
        k: [kh, kw],
        groups,
        stride: pair(&win.strides)?,
        dilation: pair(&win.dilations)?,
        pad: pair(&win.begin)?,
        out: pair(&win.out)?,
        bias: bias.is_some(),
        relu: false,
        pool: false,
        kernel: ConvKernel::Tile,
        packed: Vec::new(),
    };
    (out == [n, oc, geom.out[0], geom.out[1]]).then_some(Routine::Conv(geom))
}

pub(super) fn pool(node: &Node, x: &[usize], out: &[usize]) -> Option<Routine> {
    let [n, c, h, w] = <[usize; 4]>::try_from(x).ok()?;
    let k = pair(&Lower::pool_kernel(node).ok()?)?;
    let rounding = Rounding::of_ceil_mode(node).ok()?;
    let win = Window::read(node, &[h, w], &k, rounding).ok()?;
    let o = pair(&win.out)?;
    (out == [n, c, o[0], o[1]]).then_some(())?;
    let pad = pair(&win.begin)?;
    let (stride, dilation) = (pair(&win.strides)?, pair(&win.dilations)?);
    let divisors = if node.op_type() == "AveragePool" {
        // The interpreter's divisor: the window's cells inside the input, or inside the input
        // plus the requested padding (never the ceil-mode overhang).
        let include_pad = node.int_or("count_include_pad", 0).ok()? != 0;
        let limit = |d: usize| if include_pad { pad[d] + [h, w][d] + win.end[d] } else { pad[d] + [h, w][d] };
        let low = |d: usize| if include_pad { 0 } else { pad[d] };
        let mut div = Vec::with_capacity(o[0] * o[1]);
        for oy in 0..o[0] {
            for ox in 0..o[1] {
                let inside = |d: usize, o: usize, j: usize| {
                    let p = o * stride[d] + j * dilation[d];
                    p >= low(d) && p < limit(d)
                };
                let rows = (0..k[0]).filter(|&j| inside(0, oy, j)).count();
                let cols = (0..k[1]).filter(|&j| inside(1, ox, j)).count();
                div.push((rows * cols) as f32);
            }
        }
        Some(div)
    } else {
        None
    };
    Some(Routine::Pool(Pool { planes: n * c, hw: [h, w], k, stride, dilation, pad, out: o, divisors }))
}
