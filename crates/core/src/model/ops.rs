//! One lowering per ONNX op, composed from the engine's graph ops and its PyTorch-semantics
//! view ops and matmul (reshape, permute, slicing), so a model's graph is made of exactly the
//! ops a trace can show.
//!
//! Windowed ops (Conv, MaxPool, AveragePool) follow ONNX's definitions. When a window is one
//! PyTorch's 2-D ops take (two spatial dims, the same padding on both sides), it goes through the
//! engine's `conv2d`/`pool2d`, tinygrad's pooled-view construction that the scheduler fuses.
//! Everything else ONNX allows — 1-D and 3-D windows, asymmetric pads and `auto_pad`, dilated
//! average pooling, MaxPool's flat argmax output — takes an N-dimensional path here: pad once,
//! then visit the kernel's offsets as strided views of the padded input, with the geometry that
//! depends only on shapes (valid masks, divisor counts, argmax candidates) computed on the host
//! as small constant tensors.

use crate::engine::nn::{PoolKind, SoftmaxKind, Window2d};
use crate::engine::norm::{BatchMoments, BatchStats};
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::onnx::Node;
use crate::tensor::{CopyLayout, Engine, Operand, Tensor};
use crate::torch::layout::IndexItem;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, Op, ReduceOp, UnaryOp};
use crate::DType;

use super::host::HostTensor;

pub(crate) struct Lower<'r> {
    pub engine: &'r mut Engine,
    pub opset: i64,
    /// The tensors whose values the lowering read on the host (shapes, slice bounds, scales):
    /// a capture refuses a model whose graph inputs are read so, since its kernels would then
    /// hold one input's values.
    read: Vec<Tensor>,
}

pub(super) fn req(args: &[Option<Tensor>], i: usize, what: &str) -> Result<Tensor> {
    match args.get(i).cloned().flatten() {
        Some(t) => Ok(t),
        None => bail!(Type, "input {i} ({what}) is required"),
    }
}

pub(super) fn opt(args: &[Option<Tensor>], i: usize) -> Option<Tensor> {
    args.get(i).cloned().flatten()
}

/// Which axes an ONNX attribute may name: those of the tensor, or also `rank` itself (Flatten's
/// axis may equal the rank). An enum rather than a bool parameter so a call says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AxisRange {
    BelowRank,
    UpToRank,
}

/// Normalises an ONNX axis (negative counts from the end) for a rank-`rank` tensor.
pub(crate) fn axis(a: i64, rank: usize, range: AxisRange) -> Result<usize> {
    let r = rank as i64;
    let hi = match range {
        AxisRange::UpToRank => r,
        AxisRange::BelowRank => r - 1,
    };
    let v = if a < 0 { a + r } else { a };
    if v < 0 || v > hi {
        bail!(Index, "axis {a} is out of range for a rank-{rank} input");
    }
    Ok(v as usize)
}

pub(super) fn ints(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&n| n as i64).collect()
}

/// The slice `start:stop:step` as an index item.
fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> IndexItem {
    IndexItem::Slice { start, stop, step }
}

/// Every multi-index of a kernel, row-major.
fn offsets(kernel: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &k in kernel {
        out = out.into_iter().flat_map(|p| (0..k).map(move |j| [p.clone(), vec![j]].concat())).collect();
    }
    out
}

/// Row-major multi-indices of `shape`.
fn positions(shape: &[usize]) -> Vec<Vec<usize>> {
    offsets(shape)
}

/// The geometry of a window op over the spatial dims (the CPU kernels read it too).
pub(crate) struct Window {
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    /// Padding before each spatial dim.
    pub begin: Vec<usize>,
    /// Padding after each dim that the model asked for (explicitly or by `auto_pad`).
    pub end: Vec<usize>,
    /// Further padding after each dim so that `ceil_mode`'s last window fits.
    pub extra: Vec<usize>,
    pub out: Vec<usize>,
}

/// How a pool's output size rounds a partial last window: ONNX's and PyTorch's `ceil_mode`.
/// An enum rather than a bool parameter so a call says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Floor,
    Ceil,
}

impl Rounding {
    /// The `ceil_mode` attribute (0 or absent: floor).
    pub fn of_ceil_mode(node: &Node) -> Result<Rounding> {
        Ok(if node.int_or("ceil_mode", 0)? != 0 { Rounding::Ceil } else { Rounding::Floor })
    }
}

impl Window {
    pub fn read(node: &Node, spatial: &[usize], kernel: &[usize], rounding: Rounding) -> Result<Window> {
        let ceil = rounding == Rounding::Ceil;
        let k = spatial.len();
        if kernel.len() != k || kernel.contains(&0) {
            bail!(Shape, "kernel shape {kernel:?} does not fit {k} spatial dims");
        }
        let list = |name: &str, default: usize, len: usize| -> Result<Vec<usize>> {
            match node.ints(name)? {
                None => Ok(vec![default; len]),
                Some(v) if v.len() == len && v.iter().all(|&x| x >= 0) => Ok(v.iter().map(|&x| x as usize).collect()),
                Some(v) => bail!(Shape, "attribute {name} {v:?} must be {len} non-negative ints"),
            }
        };
        let strides = list("strides", 1, k)?;
        let dilations = list("dilations", 1, k)?;
        if strides.contains(&0) || dilations.contains(&0) {
            bail!(Shape, "strides and dilations must be positive");
        }
        let auto_pad = node.string("auto_pad")?.unwrap_or("NOTSET");
        let (mut begin, mut end) = (vec![0; k], vec![0; k]);
        let mut out = vec![0; k];
        let mut extra = vec![0; k];
        for i in 0..k {
            let eff = (kernel[i] - 1) * dilations[i] + 1;
            match auto_pad {
                "SAME_UPPER" | "SAME_LOWER" => {
                    let o = spatial[i].div_ceil(strides[i]);
                    let total = ((o.max(1) - 1) * strides[i] + eff).saturating_sub(spatial[i]);
                    let small = total / 2;
                    (begin[i], end[i]) =
                        if auto_pad == "SAME_UPPER" { (small, total - small) } else { (total - small, small) };
                }
                "VALID" => {}
                "NOTSET" => {
                    let pads = list("pads", 0, 2 * k)?;
                    (begin[i], end[i]) = (pads[i], pads[k + i]);
                }
                other => bail!(Unsupported, "auto_pad {other:?} is not supported"),
            }
            let avail = spatial[i] + begin[i] + end[i];
            if avail < eff {
                bail!(
                    Shape,
                    "a window of {eff} does not fit spatial size {} with padding {}+{}",
                    spatial[i],
                    begin[i],
                    end[i]
                );
            }
            let span = avail - eff;
            out[i] = if ceil && matches!(auto_pad, "NOTSET" | "VALID") {
                let mut o = span.div_ceil(strides[i]) + 1;
                // The last window must start inside the input or its left padding.
                if (o - 1) * strides[i] >= spatial[i] + begin[i] {
                    o -= 1;
                }
                o
            } else if matches!(auto_pad, "SAME_UPPER" | "SAME_LOWER") {
                spatial[i].div_ceil(strides[i])
            } else {
                span / strides[i] + 1
            };
            extra[i] = ((out[i] - 1) * strides[i] + eff).saturating_sub(avail);
        }
        Ok(Window { strides, dilations, begin, end, extra, out })
    }

    fn padded(&self, spatial: &[usize]) -> Vec<usize> {
        (0..spatial.len()).map(|i| spatial[i] + self.begin[i] + self.end[i] + self.extra[i]).collect()
    }

    /// Slice items selecting kernel offset `j` for every output position (leading dims whole).
    fn items(&self, lead: usize, j: &[usize]) -> Vec<IndexItem> {
        let mut items = vec![slice(None, None, None); lead];
        for (i, &ji) in j.iter().enumerate() {
            let start = (ji * self.dilations[i]) as i64;
            let stop = start + ((self.out[i] - 1) * self.strides[i]) as i64 + 1;
            items.push(slice(Some(start), Some(stop), Some(self.strides[i] as i64)));
        }
        items
    }

    /// The same window as PyTorch's 2-D ops take it, when it is one: two spatial dims with the
    /// same padding on both sides (the 2-D ops then build tinygrad's pooled-view construction).
    fn as_2d(&self, kernel: &[usize], rounding: Rounding) -> Option<Window2d> {
        if kernel.len() != 2 || self.begin != self.end {
            return None;
        }
        Some(Window2d {
            kernel: [kernel[0], kernel[1]],
            stride: [self.strides[0], self.strides[1]],
            padding: [self.begin[0], self.begin[1]],
            dilation: [self.dilations[0], self.dilations[1]],
            ceil_mode: rounding == Rounding::Ceil,
        })
    }

    /// Whether PyTorch's pooling accepts the padding (at most half the effective kernel).
    fn torch_pool_padding(&self, kernel: &[usize]) -> bool {
        (0..kernel.len()).all(|i| 2 * self.begin[i] <= (kernel[i] - 1) * self.dilations[i] + 1)
    }

    /// The padded coordinate of output position `o`, kernel offset `j`, along dim `i`.
    fn at(&self, o: &[usize], j: &[usize], i: usize) -> usize {
        o[i] * self.strides[i] + j[i] * self.dilations[i]
    }
}

impl<'r> Lower<'r> {
    pub fn new(engine: &'r mut Engine, opset: i64) -> Lower<'r> {
        Lower { engine, opset, read: Vec::new() }
    }

    /// What [`Lower::read`] recorded, oldest first.
    pub fn values_read(&self) -> &[Tensor] {
        &self.read
    }

    /// A tensor's values, read on the host while lowering (recorded for [`Lower::values_read`]).
    pub(super) fn read(&mut self, t: &Tensor) -> Result<Data> {
        self.read.push(t.clone());
        self.engine.values(t)
    }
}

impl Lower<'_> {
    pub fn node(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let one = |t: Tensor| Ok(vec![t]);
        // Elementwise ops by the op table's `onnx` column.
        if let Some(u) = UnaryOp::from_onnx(node.op_type()) {
            return one(self.engine.unary(u, &req(args, 0, "X")?)?);
        }
        if let Some(b) = BinaryOp::from_onnx(node.op_type()) {
            return one(self.bin(b, &req(args, 0, "A")?, &req(args, 1, "B")?)?);
        }
        match node.op_type() {
            "Div" => {
                let (a, b) = (req(args, 0, "A")?, req(args, 1, "B")?);
                let q = self.bin(BinaryOp::Div, &a, &b)?;
                // ONNX divides integers with truncation; the engine's true division gives float.
                if !a.dtype().is_float() && !b.dtype().is_float() {
                    one(self.engine.cast(&q, a.dtype())?)
                } else {
                    one(q)
                }
            }
            "Clip" => {
                let mut y = req(args, 0, "input")?;
                if let Some(lo) = opt(args, 1) {
                    y = self.bin(BinaryOp::Max, &y, &lo)?;
                }
                if let Some(hi) = opt(args, 2) {
                    y = self.bin(BinaryOp::Min, &y, &hi)?;
                }
                one(y)
            }
            "Softmax" => one(self.softmax(node, &req(args, 0, "input")?, SoftmaxKind::Softmax)?),
            "LogSoftmax" => one(self.softmax(node, &req(args, 0, "input")?, SoftmaxKind::LogSoftmax)?),
            "Flatten" => {
                let x = req(args, 0, "input")?;
                let a = axis(node.int_or("axis", 1)?, x.shape().len(), AxisRange::UpToRank)?;
                let (outer, inner) = (x.shape()[..a].iter().product(), x.shape()[a..].iter().product());
                one(self.reshape(&x, &[outer, inner])?)
            }
            "Reshape" => {
                let x = req(args, 0, "data")?;
                let spec = self.ints_of(&req(args, 1, "shape")?)?;
                let shape = reshape_target(
                    x.shape(),
                    &spec,
                    if node.int_or("allowzero", 0)? != 0 { ReshapeZero::Literal } else { ReshapeZero::CopiesInput },
                )?;
                one(self.reshape(&x, &shape)?)
            }
            "Transpose" => {
                let x = req(args, 0, "data")?;
                let r = x.shape().len();
                let perm: Vec<usize> = match node.ints("perm")? {
                    None => (0..r).rev().collect(),
                    Some(p) => p.iter().map(|&a| axis(a, r, AxisRange::BelowRank)).collect::<Result<_>>()?,
                };
                one(self.permute(&x, &perm)?)
            }
            "Concat" => {
                let xs: Vec<Tensor> = args.iter().flatten().cloned().collect();
                let Some(first) = xs.first() else { bail!(Type, "Concat needs at least one input") };
                let a = axis(node.int("axis")?.unwrap_or(0), first.shape().len(), AxisRange::BelowRank)?;
                one(self.concat(&xs, a)?)
            }
            "Constant" => one(self.constant(node)?),
            "Gemm" => one(self.gemm(node, args)?),
            "MatMul" => {
                let (a, b) = (req(args, 0, "A")?, req(args, 1, "B")?);
                one(self.matmul(&a, &b)?)
            }
            "BatchNormalization" => self.batch_norm(node, args),
            "GlobalAveragePool" => {
                let x = req(args, 0, "X")?;
                if x.shape().len() < 3 {
                    bail!(Shape, "input must be (N, C, spatial...), got {:?}", x.shape());
                }
                let axes: Vec<usize> = (2..x.shape().len()).collect();
                one(self.engine.mean(&x, &axes, KeepDim::Keep)?)
            }
            "Conv" => one(self.conv(node, args)?),
            "MaxPool" => self.max_pool(node, &req(args, 0, "X")?),
            "AveragePool" => one(self.avg_pool(node, &req(args, 0, "X")?)?),
            _ => self.data_op(node, args),
        }
    }

    // ------------------------------------------------------------------ building blocks

    pub(super) fn bin(&mut self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        self.engine.binary(op, &Operand::Tensor(a.clone()), &Operand::Tensor(b.clone()))
    }

    pub(super) fn bin_scalar(&mut self, op: BinaryOp, a: &Tensor, s: f64) -> Result<Tensor> {
        self.engine.binary(op, &Operand::Tensor(a.clone()), &Operand::Scalar(Scalar::Float(s)))
    }

    pub(super) fn host(&mut self, data: Data, shape: &[usize]) -> Result<Tensor> {
        self.engine.from_data(data, shape)
    }

    pub(super) fn reshape(&mut self, t: &Tensor, shape: &[usize]) -> Result<Tensor> {
        if t.shape() == shape {
            return Ok(t.clone());
        }
        self.engine.reshape(t, &ints(shape))
    }

    pub(super) fn permute(&mut self, t: &Tensor, perm: &[usize]) -> Result<Tensor> {
        self.engine.permute(t, &ints(perm))
    }

    pub(super) fn matmul(&mut self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        self.engine.matmul(a, b)
    }

    pub(super) fn index(&mut self, t: &Tensor, items: Vec<IndexItem>) -> Result<Tensor> {
        self.engine.index(t, &items)
    }

    /// Zero padding as a graph op (tinygrad's PAD), `(before, after)` per dim.
    pub(super) fn pad(&mut self, t: &Tensor, arg: Vec<(usize, usize)>) -> Result<Tensor> {
        if arg.iter().all(|&(b, a)| b == 0 && a == 0) {
            return Ok(t.clone());
        }
        let tg = t.tinygrad().pad(&arg)?;
        self.engine.movement_copy(t, Op::Pad(arg), tg, CopyLayout::RowMajor)
    }

    /// A small tensor's values as integers (shapes given as tensors).
    pub(super) fn ints_of(&mut self, t: &Tensor) -> Result<Vec<i64>> {
        if t.dtype().is_float() {
            bail!(DType, "a shape must be an integer tensor, not {}", t.dtype());
        }
        Ok(self.read(t)?.to_f64_vec().into_iter().map(|v| v as i64).collect())
    }

    /// Concatenation as a sum of zero-padded inputs: each input is padded to the full extent
    /// along `a`, placed at its offset, which keeps the graph to pads and adds.
    pub(super) fn concat(&mut self, xs: &[Tensor], a: usize) -> Result<Tensor> {
        let first = &xs[0];
        for x in xs {
            let same = x.shape().len() == first.shape().len()
                && x.shape().iter().zip(first.shape()).enumerate().all(|(d, (m, n))| d == a || m == n);
            if !same || x.dtype() != first.dtype() {
                bail!(
                    Shape,
                    "Concat inputs {:?} ({}) and {:?} ({}) differ off axis {a}",
                    first.shape(),
                    first.dtype(),
                    x.shape(),
                    x.dtype()
                );
            }
        }
        let total: usize = xs.iter().map(|x| x.shape()[a]).sum();
        let mut at = 0;
        let mut acc: Option<Tensor> = None;
        for x in xs {
            let n = x.shape()[a];
            let mut arg = vec![(0, 0); x.shape().len()];
            arg[a] = (at, total - at - n);
            at += n;
            let p = self.pad(x, arg)?;
            acc = Some(match acc {
                None => p,
                Some(s) => self.bin(BinaryOp::Add, &s, &p)?,
            });
        }
        acc.ok_or_else(|| crate::Error::Type("Concat needs at least one input".into()))
    }

    // ------------------------------------------------------------------ ops

    /// Softmax or LogSoftmax at the node's axis: one axis from opset 13, before that the
    /// input coerced to 2-D at `axis` and normalised per row.
    pub(super) fn softmax(&mut self, node: &Node, x: &Tensor, kind: SoftmaxKind) -> Result<Tensor> {
        let r = x.shape().len();
        if self.opset >= 13 {
            let a = axis(node.int_or("axis", -1)?, r, AxisRange::BelowRank)?;
            return self.softmax_axis(x, a, kind);
        }
        let a = axis(node.int_or("axis", 1)?, r, AxisRange::UpToRank)?;
        let shape = x.shape().to_vec();
        let flat = self.reshape(x, &[shape[..a].iter().product(), shape[a..].iter().product()])?;
        let y = self.softmax_axis(&flat, 1, kind)?;
        self.reshape(&y, &shape)
    }

    fn softmax_axis(&mut self, x: &Tensor, a: usize, kind: SoftmaxKind) -> Result<Tensor> {
        let m = self.engine.reduce(ReduceOp::Max, x, &[a], KeepDim::Keep)?;
        let d = self.bin(BinaryOp::Sub, x, &m)?;
        let e = self.engine.unary(UnaryOp::Exp, &d)?;
        let s = self.engine.reduce(ReduceOp::Sum, &e, &[a], KeepDim::Keep)?;
        match kind {
            SoftmaxKind::Softmax => self.bin(BinaryOp::Div, &e, &s),
            SoftmaxKind::LogSoftmax => {
                let l = self.engine.unary(UnaryOp::Log, &s)?;
                self.bin(BinaryOp::Sub, &d, &l)
            }
        }
    }

    fn constant(&mut self, node: &Node) -> Result<Tensor> {
        let h = if let Some(t) = node.tensor("value")? {
            HostTensor::from_onnx(t)?
        } else if let Some(v) = node.float("value_float")? {
            HostTensor::new(vec![], Data::F32(vec![v]))?
        } else if let Some(v) = node.floats("value_floats")? {
            HostTensor::new(vec![v.len()], Data::F32(v.to_vec()))?
        } else if let Some(v) = node.int("value_int")? {
            HostTensor::new(vec![], Data::I32(vec![narrow(v)?]))?
        } else if let Some(v) = node.ints("value_ints")? {
            HostTensor::new(vec![v.len()], Data::I32(v.iter().map(|&x| narrow(x)).collect::<Result<_>>()?))?
        } else {
            let names: Vec<&str> = node.attributes().keys().map(String::as_str).collect();
            bail!(
                Unsupported,
                "Constant with attributes {names:?} is not supported (value, value_float(s), value_int(s) are)"
            );
        };
        let (shape, data) = (h.shape().to_vec(), h.into_data());
        self.host(data, &shape)
    }

    fn gemm(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let (mut a, mut b) = (req(args, 0, "A")?, req(args, 1, "B")?);
        if a.shape().len() != 2 || b.shape().len() != 2 {
            bail!(Shape, "Gemm takes 2-D A and B, got {:?} and {:?}", a.shape(), b.shape());
        }
        if node.int_or("transA", 0)? != 0 {
            a = self.permute(&a, &[1, 0])?;
        }
        if node.int_or("transB", 0)? != 0 {
            b = self.permute(&b, &[1, 0])?;
        }
        let mut y = self.matmul(&a, &b)?;
        let alpha = node.float_or("alpha", 1.0)?;
        if alpha != 1.0 {
            y = self.bin_scalar(BinaryOp::Mul, &y, f64::from(alpha))?;
        }
        if let Some(mut c) = opt(args, 2) {
            let beta = node.float_or("beta", 1.0)?;
            if beta != 1.0 {
                c = self.bin_scalar(BinaryOp::Mul, &c, f64::from(beta))?;
            }
            y = self.bin(BinaryOp::Add, &y, &c)?;
        }
        Ok(y)
    }

    fn batch_norm(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let x = req(args, 0, "X")?;
        let r = x.shape().len();
        if r < 2 {
            bail!(Shape, "input must be (N, C, ...), got {:?}", x.shape());
        }
        let c = x.shape()[1];
        let mut params = Vec::with_capacity(4);
        for (i, what) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
            let p = req(args, i, what)?;
            if p.shape() != [c] {
                bail!(Shape, "{what} has shape {:?}, expected [{c}]", p.shape());
            }
            params.push(p);
        }
        let eps = f64::from(node.float_or("epsilon", 1e-5)?);
        let training = if self.opset >= 14 { node.int_or("training_mode", 0)? != 0 } else { node.outputs().len() > 1 };
        if training && self.opset < 14 {
            bail!(Unsupported, "training-mode BatchNormalization before opset 14 is not supported");
        }
        let stats = if training { BatchStats::Batch } else { BatchStats::Given { mean: &params[2], var: &params[3] } };
        let (y, moments) = self.engine.batch_norm(&x, stats, eps, Some(&params[0]), Some(&params[1]))?;
        let mut extra = Vec::new();
        if let Some(BatchMoments { mean, var, .. }) = moments {
            // ONNX's running statistics: `input * momentum + current * (1 - momentum)`, with the
            // biased variance.
            let momentum = f64::from(node.float_or("momentum", 0.9)?);
            let (m1, v1) = (self.reshape(&mean, &[c])?, self.reshape(&var, &[c])?);
            for (old, cur) in [(&params[2], &m1), (&params[3], &v1)] {
                let a = self.bin_scalar(BinaryOp::Mul, old, momentum)?;
                let b = self.bin_scalar(BinaryOp::Mul, cur, 1.0 - momentum)?;
                extra.push(self.bin(BinaryOp::Add, &a, &b)?);
            }
        }
        let mut out = vec![y];
        out.extend(extra);
        Ok(out)
    }

    /// Checks an (N, C, spatial...) input and reads the window attributes.
    fn window(&mut self, node: &Node, x: &Tensor, kernel: &[usize], rounding: Rounding) -> Result<Window> {
        if x.shape().len() < 3 {
            bail!(Shape, "input must be (N, C, spatial...), got {:?}", x.shape());
        }
        Window::read(node, &x.shape()[2..], kernel, rounding)
    }

    pub(super) fn conv(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let (x, w) = (req(args, 0, "X")?, req(args, 1, "W")?);
        let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
        if ws.len() != xs.len() || xs.len() < 3 {
            bail!(Shape, "Conv needs X (N, C, spatial...) and W of the same rank, got {xs:?} and {ws:?}");
        }
        let kernel = match node.ints("kernel_shape")? {
            Some(k) => k.iter().map(|&v| v as usize).collect(),
            None => ws[2..].to_vec(),
        };
        if kernel != ws[2..] {
            bail!(Shape, "kernel_shape {kernel:?} does not match W {ws:?}");
        }
        let groups = usize::try_from(node.int_or("group", 1)?).unwrap_or(0);
        let (n, cin, cout) = (xs[0], xs[1], ws[0]);
        if groups == 0 || cin % groups != 0 || cout % groups != 0 || ws[1] * groups != cin {
            bail!(Shape, "group {groups} does not fit {cin} input and {cout} output channels with W {ws:?}");
        }
        let win = self.window(node, &x, &kernel, Rounding::Floor)?;
        if let Some(w2) = win.as_2d(&kernel, Rounding::Floor) {
            return self.engine.conv2d(&x, &w, opt(args, 2).as_ref(), w2, groups);
        }
        let mut arg = vec![(0, 0), (0, 0)];
        arg.extend((0..kernel.len()).map(|i| (win.begin[i], win.end[i] + win.extra[i])));
        let xp = self.pad(&x, arg)?;
        let p: usize = win.out.iter().product();
        let (cg, og) = (cin / groups, cout / groups);
        let mut parts = Vec::with_capacity(groups);
        for g in 0..groups {
            let (xg, wg) = if groups == 1 {
                (xp.clone(), w.clone())
            } else {
                let ch = |a: usize, n: usize| slice(Some(a as i64), Some((a + n) as i64), None);
                let xg = self.index(&xp, vec![slice(None, None, None), ch(g * cg, cg)])?;
                let wg = self.index(&w, vec![ch(g * og, og)])?;
                (xg, wg)
            };
            // out[n, o, p] = sum over kernel offsets j of W[:, :, j] @ x_window_j[n, :, p].
            let mut acc: Option<Tensor> = None;
            for j in offsets(&kernel) {
                let sl = self.index(&xg, win.items(2, &j))?;
                let cols = self.reshape(&sl, &[n, cg, p])?;
                let mut items = vec![slice(None, None, None); 2];
                items.extend(j.iter().map(|&v| IndexItem::Int(v as i64)));
                let wj = self.index(&wg, items)?;
                let part = self.matmul(&wj, &cols)?;
                acc = Some(match acc {
                    None => part,
                    Some(s) => self.bin(BinaryOp::Add, &s, &part)?,
                });
            }
            parts.push(acc.ok_or_else(|| crate::Error::Shape("empty kernel".into()))?);
        }
        let mut y = if parts.len() == 1 { parts.remove(0) } else { self.concat(&parts, 1)? };
        if let Some(b) = opt(args, 2) {
            if b.shape() != [cout] {
                bail!(Shape, "bias B has shape {:?}, expected [{cout}]", b.shape());
            }
            let b = self.reshape(&b, &[cout, 1])?;
            y = self.bin(BinaryOp::Add, &y, &b)?;
        }
        let mut shape = vec![n, cout];
        shape.extend(&win.out);
        self.reshape(&y, &shape)
    }

    pub(crate) fn pool_kernel(node: &Node) -> Result<Vec<usize>> {
        match node.ints("kernel_shape")? {
            Some(k) if k.iter().all(|&v| v > 0) => Ok(k.iter().map(|&v| v as usize).collect()),
            _ => bail!(Shape, "kernel_shape is required and must be positive"),
        }
    }

    fn max_pool(&mut self, node: &Node, x: &Tensor) -> Result<Vec<Tensor>> {
        let kernel = Self::pool_kernel(node)?;
        let rounding = Rounding::of_ceil_mode(node)?;
        let win = self.window(node, x, &kernel, rounding)?;
        let want_indices = node.outputs().len() > 1 && !node.outputs()[1].is_empty();
        if let (false, true, Some(w2)) = (want_indices, win.torch_pool_padding(&kernel), win.as_2d(&kernel, rounding)) {
            return Ok(vec![self.engine.pool2d(x, w2, PoolKind::Max)?]);
        }
        let shape = x.shape().to_vec();
        let spatial = &shape[2..];
        let padded = win.padded(spatial);
        let mut arg = vec![(0, 0), (0, 0)];
        arg.extend((0..kernel.len()).map(|i| (win.begin[i], win.end[i] + win.extra[i])));
        let xp = self.pad(x, arg)?;
        // Padding never wins a max: it reads as -inf.
        let inside = |p: &[usize]| (0..p.len()).all(|i| p[i] >= win.begin[i] && p[i] < win.begin[i] + spatial[i]);
        let mask: Vec<bool> = positions(&padded).iter().map(|p| inside(p)).collect();
        let mshape: Vec<usize> = [1, 1].iter().chain(&padded).copied().collect();
        let mask = self.host(Data::Bool(mask), &mshape)?;
        let xm = self.engine.where_(
            &Operand::Tensor(mask),
            &Operand::Tensor(xp),
            &Operand::Scalar(Scalar::Float(f64::NEG_INFINITY)),
        )?;
        let order = if node.int_or("storage_order", 0)? != 0 { IndexOrder::ColumnMajor } else { IndexOrder::RowMajor };
        let oshape: Vec<usize> = [1, 1].iter().chain(&win.out).copied().collect();
        let outs = positions(&win.out);
        let mut best: Option<(Tensor, Option<Tensor>)> = None;
        for j in offsets(&kernel) {
            let sl = self.index(&xm, win.items(2, &j))?;
            let cand = if want_indices {
                // The flat index (within one (n, c) plane) each output position reads here.
                let idx: Vec<i32> = outs
                    .iter()
                    .map(|o| {
                        let p: Vec<usize> = (0..o.len()).map(|i| win.at(o, &j, i)).collect();
                        if !inside(&p) {
                            return -1;
                        }
                        let q: Vec<usize> = (0..p.len()).map(|i| p[i] - win.begin[i]).collect();
                        flat_index(&q, spatial, order) as i32
                    })
                    .collect();
                Some(self.host(Data::I32(idx), &oshape)?)
            } else {
                None
            };
            best = Some(match best {
                None => (sl, cand),
                Some((b, None)) => (self.bin(BinaryOp::Max, &b, &sl)?, None),
                Some((b, Some(bi))) => {
                    // Strictly greater: the first maximum in window order keeps its index.
                    let take = self.bin(BinaryOp::CmpLt, &b, &sl)?;
                    let take = Operand::Tensor(take);
                    let nb = self.engine.where_(&take, &Operand::Tensor(sl), &Operand::Tensor(b))?;
                    let ci = cand.ok_or_else(|| crate::Error::Shape("missing argmax candidates".into()))?;
                    let ni = self.engine.where_(&take, &Operand::Tensor(ci), &Operand::Tensor(bi))?;
                    (nb, Some(ni))
                }
            });
        }
        let Some((y, idx)) = best else { bail!(Shape, "empty kernel") };
        let mut out = vec![y];
        if let Some(idx) = idx {
            // Indices count over the whole flattened input: add each (n, c) plane's start.
            let plane: usize = spatial.iter().product();
            let base: Vec<i32> = (0..shape[0] * shape[1]).map(|nc| (nc * plane) as i32).collect();
            let bshape: Vec<usize> =
                [shape[0], shape[1]].iter().copied().chain(std::iter::repeat_n(1, spatial.len())).collect();
            let base = self.host(Data::I32(base), &bshape)?;
            // Keep broadcasting exact: a (1, 1, out...) candidate never chosen stays that shape.
            let full: Vec<usize> = [shape[0], shape[1]].iter().chain(&win.out).copied().collect();
            let idx = if idx.shape() == full.as_slice() {
                idx
            } else {
                let zeros = self.zeros_i32(&full)?;
                self.bin(BinaryOp::Add, &idx, &zeros)?
            };
            out.push(self.bin(BinaryOp::Add, &idx, &base)?);
        }
        Ok(out)
    }

    pub(super) fn zeros_i32(&mut self, shape: &[usize]) -> Result<Tensor> {
        self.engine.full(shape, Scalar::Int(0), Some(DType::Int32))
    }

    fn avg_pool(&mut self, node: &Node, x: &Tensor) -> Result<Tensor> {
        let kernel = Self::pool_kernel(node)?;
        let rounding = Rounding::of_ceil_mode(node)?;
        let win = self.window(node, x, &kernel, rounding)?;
        let include_pad = node.int_or("count_include_pad", 0)? != 0;
        let undilated = win.dilations.iter().all(|&d| d == 1);
        if let (true, true, Some(w2)) = (undilated, win.torch_pool_padding(&kernel), win.as_2d(&kernel, rounding)) {
            return self.engine.pool2d(x, w2, PoolKind::Avg { count_include_pad: include_pad, divisor: None });
        }
        let spatial = x.shape()[2..].to_vec();
        let mut arg = vec![(0, 0), (0, 0)];
        arg.extend((0..kernel.len()).map(|i| (win.begin[i], win.end[i] + win.extra[i])));
        let xp = self.pad(x, arg)?;
        let mut sum: Option<Tensor> = None;
        for j in offsets(&kernel) {
            let sl = self.index(&xp, win.items(2, &j))?;
            sum = Some(match sum {
                None => sl,
                Some(s) => self.bin(BinaryOp::Add, &s, &sl)?,
            });
        }
        let Some(sum) = sum else { bail!(Shape, "empty kernel") };
        // The divisor per output position: the window's cells inside the input, or inside the
        // input plus the requested padding (never the ceil-mode overhang).
        let counts: Vec<f32> = positions(&win.out)
            .iter()
            .map(|o| {
                offsets(&kernel)
                    .iter()
                    .filter(|j| {
                        (0..o.len()).all(|i| {
                            let p = win.at(o, j, i);
                            if include_pad {
                                p < win.begin[i] + spatial[i] + win.end[i]
                            } else {
                                p >= win.begin[i] && p < win.begin[i] + spatial[i]
                            }
                        })
                    })
                    .count() as f32
            })
            .collect();
        let cshape: Vec<usize> = [1, 1].iter().chain(&win.out).copied().collect();
        let counts = self.host(Data::F32(counts), &cshape)?;
        self.bin(BinaryOp::Div, &sum, &counts)
    }
}

fn narrow(v: i64) -> Result<i32> {
    i32::try_from(v).map_err(|_| crate::Error::Limit(format!("int64 value {v} does not fit the engine's int32")))
}

/// The order [`flat_index`] numbers elements in: row-major or (ONNX's `storage_order` 1)
/// column-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IndexOrder {
    RowMajor,
    ColumnMajor,
}

/// Flat index of `q` in `dims`, in `order`.
fn flat_index(q: &[usize], dims: &[usize], order: IndexOrder) -> usize {
    let order: Vec<usize> = match order {
        IndexOrder::ColumnMajor => (0..dims.len()).collect(),
        IndexOrder::RowMajor => (0..dims.len()).rev().collect(),
    };
    let (mut idx, mut stride) = (0, 1);
    for d in order {
        idx += q[d] * stride;
        stride *= dims[d];
    }
    idx
}

/// What a 0 in ONNX Reshape's target means: the input's dim, or (with `allowzero`) a size 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReshapeZero {
    CopiesInput,
    Literal,
}

/// ONNX Reshape's target: 0 as `zero` says, one -1 is inferred.
fn reshape_target(input: &[usize], spec: &[i64], zero: ReshapeZero) -> Result<Vec<usize>> {
    let numel: usize = input.iter().product();
    let mut out = Vec::with_capacity(spec.len());
    let mut infer = None;
    for (i, &s) in spec.iter().enumerate() {
        match s {
            -1 if infer.is_none() => {
                infer = Some(i);
                out.push(1);
            }
            0 if zero == ReshapeZero::CopiesInput => match input.get(i) {
                Some(&d) => out.push(d),
                None => bail!(Shape, "shape {spec:?} copies dim {i}, which the input {input:?} lacks"),
            },
            s if s >= 0 => out.push(s as usize),
            _ => bail!(Shape, "shape {spec:?} is not a valid Reshape target"),
        }
    }
    let known: usize = out.iter().product();
    if let Some(i) = infer {
        if known == 0 || !numel.is_multiple_of(known) {
            bail!(Shape, "cannot reshape {input:?} into {spec:?}");
        }
        out[i] = numel / known;
    } else if known != numel {
        bail!(Shape, "cannot reshape {input:?} ({numel} elements) into {spec:?}");
    }
    Ok(out)
}
