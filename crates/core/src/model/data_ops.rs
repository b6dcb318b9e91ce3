//! ONNX's shape, indexing and data-movement ops, lowered to the engine's PyTorch ops so each
//! keeps PyTorch's view-or-copy truth: Squeeze, Unsqueeze, Expand, Split and a positive-step
//! Slice are views; Gather, Tile, Pad and a negative-step Slice copy.
//!
//! A graph is built for concrete inputs, so values ONNX passes as tensors but uses as shapes or
//! attributes (Slice's starts, Split's sizes, Expand's shape, ...) are read on the host.

use crate::engine::gather::Combine;
use crate::engine::indexing::Index;
use crate::engine::matrix::Triangle;
use crate::engine::pad::PadMode;
use crate::engine::reduce::{ArgExtreme, KeepDim};
use crate::error::{bail, Result};
use crate::onnx::{ElemType, Node};
use crate::tensor::{Operand, Tensor};
use crate::torch::layout::IndexItem;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::BinaryOp;
use crate::DType;

use super::host::HostTensor;
use super::ops::{axis, opt, req, AxisRange, Lower};

/// Axes given as a list: normalised for rank `rank`, each at most once.
fn axes_of(list: &[i64], rank: usize, range: AxisRange) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(list.len());
    for &a in list {
        let v = axis(a, rank, range)?;
        if out.contains(&v) {
            bail!(Shape, "axis {a} is given twice");
        }
        out.push(v);
    }
    Ok(out)
}

/// ONNX's multidirectional broadcast of two shapes.
pub(super) fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => bail!(Shape, "shapes {a:?} and {b:?} do not broadcast (dim {i}: {x} and {y})"),
        })
        .collect()
}

impl Lower<'_> {
    /// The ops `ops.rs` does not lower itself, starting with data movement.
    pub(super) fn data_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let one = |t: Tensor| Ok(vec![t]);
        let x = || req(args, 0, "input");
        match node.op_type() {
            "Identity" => one(x()?),
            "Dropout" => {
                let x = x()?;
                let training = match opt(args, 2) {
                    Some(t) => self.ints_of(&t)?.first().is_some_and(|&v| v != 0),
                    None => false,
                };
                if training {
                    bail!(Unsupported, "Dropout in training mode is not supported (inference only)");
                }
                let mut out = vec![x.clone()];
                if node.outputs().len() > 1 {
                    out.push(self.engine.full(x.shape(), Scalar::Bool(true), Some(DType::Bool))?);
                }
                Ok(out)
            }
            "CastLike" => {
                let like = req(args, 1, "target_type")?;
                one(self.engine.cast(&x()?, like.dtype())?)
            }
            "Cast" => {
                let to = ElemType::from_code(node.int("to")?.unwrap_or(0) as i32, "Cast's `to`")?;
                one(self.engine.cast(&x()?, to.engine_dtype())?)
            }
            "Shape" => {
                let x = x()?;
                let r = x.shape().len() as i64;
                let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
                let (start, end) = (clamp(node.int_or("start", 0)?), clamp(node.int("end")?.unwrap_or(r)));
                let dims: Vec<i32> = x.shape()[start..end.max(start)].iter().map(|&d| d as i32).collect();
                let n = dims.len();
                one(self.host(Data::I32(dims), &[n])?)
            }
            "Size" => {
                let n = x()?.numel() as i32;
                one(self.host(Data::I32(vec![n]), &[])?)
            }
            "ConstantOfShape" => {
                let shape = self.shape_input(&x()?)?;
                let value = match node.tensor("value")? {
                    None => HostTensor::new(vec![], Data::F32(vec![0.0]))?,
                    Some(t) if t.len() == 1 => HostTensor::from_onnx(t)?,
                    Some(t) => bail!(Shape, "value must hold one element, it has {}", t.len()),
                };
                let s = value.data().get_scalar(0);
                one(self.engine.full(&shape, s, Some(value.dtype()))?)
            }
            "Range" => one(self.range(args)?),
            "Gather" => one(self.gather_axis(node, &x()?, &req(args, 1, "indices")?)?),
            "GatherElements" => {
                let x = x()?;
                let a = axis(node.int_or("axis", 0)?, x.shape().len(), AxisRange::BelowRank)?;
                let idx = self.wrap_indices(&req(args, 1, "indices")?, x.shape()[a])?;
                let idx = self.engine.cast(&idx, DType::Int64)?;
                one(self.engine.gather(&x, a as i64, &idx)?)
            }
            "ScatterND" => one(self.scatter_nd(node, args)?),
            "ScatterElements" => {
                let (x, idx, upd) = (x()?, req(args, 1, "indices")?, req(args, 2, "updates")?);
                let a = axis(node.int_or("axis", 0)?, x.shape().len(), AxisRange::BelowRank)?;
                let combine = match node.string("reduction")?.unwrap_or("none") {
                    "none" => Combine::Replace,
                    "add" => Combine::Sum,
                    "mul" => Combine::Prod,
                    "max" => Combine::Amax,
                    "min" => Combine::Amin,
                    other => bail!(Value, "ScatterElements reduction {other:?} is not one ONNX defines"),
                };
                let idx = self.wrap_indices(&idx, x.shape()[a])?;
                let idx = self.engine.cast(&idx, DType::Int64)?;
                let op = "ScatterElements";
                one(self.engine.scatter(&x, a as i64, &idx, &Operand::Tensor(upd), combine, true, op)?)
            }
            "GatherND" => {
                let (x, idx) = (x()?, req(args, 1, "indices")?);
                if node.int_or("batch_dims", 0)? != 0 {
                    bail!(Unsupported, "GatherND with batch_dims is not supported");
                }
                let items = self.index_tuples(&x, &idx)?;
                one(self.engine.advanced_index(&x, &items)?)
            }
            "OneHot" => {
                let (idx, depth, values) = (x()?, req(args, 1, "depth")?, req(args, 2, "values")?);
                let depth = self.read(&depth)?.get_scalar(0).as_f64();
                if !(depth >= 1.0 && depth.is_finite()) {
                    bail!(Value, "OneHot depth {depth} must be at least 1");
                }
                let depth = depth as usize;
                if values.numel() != 2 {
                    bail!(Shape, "OneHot values must hold [off, on], got shape {:?}", values.shape());
                }
                let r = idx.shape().len();
                let a = axis(node.int_or("axis", -1)?, r + 1, AxisRange::BelowRank)?;
                // Positions where the (wrapped) index equals the class along the new axis.
                let wrapped = self.wrap_indices(&idx, depth)?;
                let wrapped = self.engine.unsqueeze(&wrapped, a as i64)?;
                let classes: Vec<i32> = (0..depth as i32).collect();
                let mut cshape = vec![1usize; r + 1];
                cshape[a] = depth;
                let classes = self.host(Data::I32(classes), &cshape)?;
                let hit = self.bin(BinaryOp::CmpEq, &wrapped, &classes)?;
                let flat = self.reshape(&values, &[2])?;
                let off = self.engine.select(&flat, 0, 0)?;
                let on = self.engine.select(&flat, 0, 1)?;
                one(self.engine.where_(&Operand::Tensor(hit), &Operand::Tensor(on), &Operand::Tensor(off))?)
            }
            "NonZero" => {
                // PyTorch's nonzero is (count, rank); ONNX's is (rank, count), int64.
                let nz = self.engine.nonzero(&x()?)?;
                let t = self.engine.transpose(&nz, 0, 1)?;
                one(self.engine.cast(&t, DType::Int32)?)
            }
            "DepthToSpace" | "SpaceToDepth" => one(self.depth_space(node, &x()?)?),
            "Slice" => one(self.slice(args)?),
            "Split" => self.split(node, args),
            "Squeeze" => {
                let x = x()?;
                let r = x.shape().len();
                let dims: Vec<usize> = match self.axes_arg(node, args, 1)? {
                    Some(list) => axes_of(&list, r, AxisRange::BelowRank)?,
                    None => (0..r).filter(|&d| x.shape()[d] == 1).collect(),
                };
                if let Some(&d) = dims.iter().find(|&&d| x.shape()[d] != 1) {
                    bail!(Shape, "cannot squeeze axis {d} of size {} (shape {:?})", x.shape()[d], x.shape());
                }
                let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
                one(self.engine.squeeze(&x, Some(&dims))?)
            }
            "Unsqueeze" => {
                let x = x()?;
                let Some(list) = self.axes_arg(node, args, 1)? else { bail!(Type, "Unsqueeze needs axes") };
                let mut dims = axes_of(&list, x.shape().len() + list.len(), AxisRange::BelowRank)?;
                dims.sort_unstable();
                let mut y = x;
                for d in dims {
                    y = self.engine.unsqueeze(&y, d as i64)?;
                }
                one(y)
            }
            "Expand" => {
                let x = x()?;
                let spec = self.shape_input(&req(args, 1, "shape")?)?;
                let shape = broadcast(x.shape(), &spec)?;
                if shape == x.shape() {
                    return one(x);
                }
                let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                one(self.engine.expand(&x, &sizes)?)
            }
            "Tile" => {
                let x = x()?;
                let reps = self.ints_of(&req(args, 1, "repeats")?)?;
                if reps.len() != x.shape().len() || reps.iter().any(|&r| r < 0) {
                    bail!(Shape, "repeats {reps:?} must give a non-negative count per dim of {:?}", x.shape());
                }
                one(self.engine.tile(&x, &reps)?)
            }
            "Pad" => one(self.pad_op(node, args)?),
            "Trilu" => {
                let k = match opt(args, 1) {
                    Some(t) => self.ints_of(&t)?.first().copied().unwrap_or(0),
                    None => 0,
                };
                let which = if node.int_or("upper", 1)? != 0 { Triangle::Upper } else { Triangle::Lower };
                one(self.engine.triangle(&x()?, k, which)?)
            }
            "CumSum" => one(self.cumsum(node, args)?),
            "TopK" => {
                let x = x()?;
                let k = self.ints_of(&req(args, 1, "K")?)?.first().copied().unwrap_or(-1);
                let a = axis(node.int_or("axis", -1)?, x.shape().len(), AxisRange::BelowRank)?;
                let n = x.shape()[a] as i64;
                if !(0..=n).contains(&k) {
                    bail!(Shape, "K {k} is out of range for axis {a} of size {n}");
                }
                // ONNX orders equal values by index: a stable sort, then the first K.
                let (v, i) = self.engine.sort(&x, a as i64, node.int_or("largest", 1)? != 0)?;
                let v = self.engine.narrow(&v, a as i64, 0, k)?;
                let i = self.engine.narrow(&i, a as i64, 0, k)?;
                Ok(vec![v, self.engine.cast(&i, DType::Int32)?])
            }
            "ArgMax" | "ArgMin" => one(self.arg_extreme(node, &x()?)?),
            "Einsum" => {
                let Some(eq) = node.string("equation")? else { bail!(Type, "Einsum needs an equation") };
                let ops: Vec<Tensor> = args.iter().flatten().cloned().collect();
                one(self.engine.einsum(eq, &ops)?)
            }
            "Where" => {
                let (c, a, b) = (x()?, req(args, 1, "X")?, req(args, 2, "Y")?);
                one(self.engine.where_(&Operand::Tensor(c), &Operand::Tensor(a), &Operand::Tensor(b))?)
            }
            _ => self.math_op(node, args),
        }
    }

    /// A 1-D integer tensor read as a shape.
    fn shape_input(&mut self, t: &Tensor) -> Result<Vec<usize>> {
        self.ints_of(t)?
            .into_iter()
            .map(|v| usize::try_from(v).map_err(|_| crate::Error::Shape(format!("shape entry {v} is negative"))))
            .collect()
    }

    /// The axes an op takes as input `i` (from opset 13, or 18 for the reductions) or as its
    /// `axes` attribute before; `None` when neither is given.
    pub(super) fn axes_arg(&mut self, node: &Node, args: &[Option<Tensor>], i: usize) -> Result<Option<Vec<i64>>> {
        if let Some(t) = opt(args, i) {
            return Ok(Some(self.ints_of(&t)?));
        }
        Ok(node.ints("axes")?.map(<[i64]>::to_vec))
    }

    /// Indices with ONNX's negative ones counted from the end (`i + n` where `i < 0`), as int32
    /// (or int64 when given so); the engine's gathers then refuse any still out of range, as
    /// PyTorch's do.
    fn wrap_indices(&mut self, idx: &Tensor, n: usize) -> Result<Tensor> {
        if !matches!(idx.dtype(), DType::Int32 | DType::Int64) {
            let idx = self.engine.cast(idx, DType::Int32)?;
            return self.wrap_indices(&idx, n);
        }
        let neg =
            self.engine.binary(BinaryOp::CmpLt, &Operand::Tensor(idx.clone()), &Operand::Scalar(Scalar::Int(0)))?;
        let up = self.engine.binary(
            BinaryOp::Add,
            &Operand::Tensor(idx.clone()),
            &Operand::Scalar(Scalar::Int(n as i64)),
        )?;
        self.engine.where_(&Operand::Tensor(neg), &Operand::Tensor(up), &Operand::Tensor(idx.clone()))
    }

    /// GatherND's and ScatterND's index tuples (`indices`' last axis) as one index per leading
    /// dim of `data`, negative entries counted from the end.
    fn index_tuples(&mut self, data: &Tensor, indices: &Tensor) -> Result<Vec<Index>> {
        let Some(&k) = indices.shape().last() else { bail!(Shape, "indices must have at least one dim") };
        if k > data.shape().len() {
            bail!(Shape, "index tuples of length {k} exceed the rank of data {:?}", data.shape());
        }
        let mut items = Vec::with_capacity(k);
        for j in 0..k {
            let col = self.engine.select(indices, -1, j as i64)?;
            items.push(Index::Tensor(self.wrap_indices(&col, data.shape()[j])?));
        }
        Ok(items)
    }

    /// Gather: `data`'s slices along `axis` at `indices`, of shape
    /// `data[..axis] + indices + data[axis + 1..]` (an index_select of the flattened indices).
    fn gather_axis(&mut self, node: &Node, data: &Tensor, indices: &Tensor) -> Result<Tensor> {
        let r = data.shape().len();
        let a = axis(node.int_or("axis", 0)?, r, AxisRange::BelowRank)?;
        let idx = self.wrap_indices(indices, data.shape()[a])?;
        let flat = self.reshape(&idx, &[idx.numel()])?;
        let picked = self.engine.index_select(data, a as i64, &flat)?;
        let shape: Vec<usize> =
            data.shape()[..a].iter().chain(indices.shape()).chain(&data.shape()[a + 1..]).copied().collect();
        self.reshape(&picked, &shape)
    }

    fn range(&mut self, args: &[Option<Tensor>]) -> Result<Tensor> {
        let mut v = [0.0f64; 3];
        let mut dtype = DType::Float32;
        for (i, what) in ["start", "limit", "delta"].into_iter().enumerate() {
            let t = req(args, i, what)?;
            if t.numel() != 1 {
                bail!(Shape, "{what} must be a scalar, got shape {:?}", t.shape());
            }
            dtype = t.dtype();
            v[i] = self.read(&t)?.get_scalar(0).as_f64();
        }
        let [start, limit, delta] = v;
        if delta == 0.0 || !delta.is_finite() {
            bail!(Value, "Range's delta must be finite and non-zero, got {delta}");
        }
        let n = ((limit - start) / delta).ceil().max(0.0);
        crate::limits::check_numel(&[n as usize])?;
        let vals: Vec<f64> = (0..n as usize).map(|i| start + i as f64 * delta).collect();
        let len = vals.len();
        self.host(Data::F64(vals).cast(dtype), &[len])
    }

    /// Slice: `starts`, `ends`, optional `axes` and `steps`, clamped as ONNX clamps them. A
    /// positive step is PyTorch's slicing (a view); a negative one picks its elements by an
    /// index (a copy, as `flip` is in PyTorch).
    fn slice(&mut self, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "data")?;
        let r = x.shape().len();
        let starts = self.ints_of(&req(args, 1, "starts")?)?;
        let ends = self.ints_of(&req(args, 2, "ends")?)?;
        let axes = match opt(args, 3) {
            Some(t) => axes_of(&self.ints_of(&t)?, r, AxisRange::BelowRank)?,
            None => (0..starts.len()).collect(),
        };
        let steps = match opt(args, 4) {
            Some(t) => self.ints_of(&t)?,
            None => vec![1; starts.len()],
        };
        if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
            bail!(Shape, "starts, ends, axes and steps must have one entry each per sliced axis");
        }
        let mut items = vec![IndexItem::Slice { start: None, stop: None, step: None }; r];
        let mut reversed = Vec::new();
        for (k, &a) in axes.iter().enumerate() {
            let n = x.shape()[a] as i64;
            let step = steps[k];
            if step == 0 {
                bail!(Value, "Slice's step must not be 0");
            }
            let norm = |v: i64| if v < 0 { v + n } else { v };
            if step > 0 {
                let start = norm(starts[k]).clamp(0, n);
                let end = norm(ends[k]).clamp(0, n);
                items[a] = IndexItem::Slice { start: Some(start), stop: Some(end.max(start)), step: Some(step) };
            } else {
                let start = norm(starts[k]).clamp(0, n - 1);
                let end = norm(ends[k]).clamp(-1, n - 1);
                let picked: Vec<i64> = (0..).map(|i| start + i * step).take_while(|&i| i > end).collect();
                reversed.push((a, picked));
            }
        }
        let mut y = self.index(&x, items)?;
        for (a, picked) in reversed {
            let len = picked.len();
            let idx = self.host(Data::I64(picked), &[len])?;
            y = self.engine.index_select(&y, a as i64, &idx)?;
        }
        Ok(y)
    }

    fn split(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let x = req(args, 0, "input")?;
        let a = axis(node.int_or("axis", 0)?, x.shape().len(), AxisRange::BelowRank)?;
        let n = x.shape()[a];
        let sizes: Vec<i64> = match (opt(args, 1), node.ints("split")?) {
            (Some(t), _) => self.ints_of(&t)?,
            (None, Some(s)) => s.to_vec(),
            (None, None) => {
                let parts = match node.int("num_outputs")? {
                    Some(k) => usize::try_from(k).unwrap_or(0),
                    None => node.outputs().len(),
                };
                if parts == 0 {
                    bail!(Shape, "Split into 0 parts");
                }
                // Equal parts, the last smaller when the size does not divide (opset 18).
                let each = n.div_ceil(parts);
                (0..parts).map(|i| (n.saturating_sub(i * each)).min(each) as i64).collect()
            }
        };
        if sizes.iter().sum::<i64>() != n as i64 || sizes.iter().any(|&s| s < 0) {
            bail!(Shape, "split sizes {sizes:?} do not add up to {n}, the size of axis {a}");
        }
        self.engine.split_with_sizes(&x, &sizes, a as i64)
    }

    fn pad_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "data")?;
        let r = x.shape().len();
        let pads = self.ints_of(&req(args, 1, "pads")?)?;
        let axes = match opt(args, 3) {
            Some(t) => axes_of(&self.ints_of(&t)?, r, AxisRange::BelowRank)?,
            None => (0..r).collect(),
        };
        if pads.len() != 2 * axes.len() {
            bail!(Shape, "pads {pads:?} must give a begin and an end for each of {} axes", axes.len());
        }
        let mode = match node.string("mode")?.unwrap_or("constant") {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "edge" => PadMode::Replicate,
            "wrap" => PadMode::Circular,
            other => bail!(Unsupported, "Pad mode {other:?} is not supported"),
        };
        let value = match opt(args, 2) {
            Some(t) if mode == PadMode::Constant => Some(self.read(&t)?.get_scalar(0)),
            _ => None,
        };
        // PyTorch's order: the last dim's (begin, end) first.
        let mut per = vec![(0i64, 0i64); r];
        for (k, &a) in axes.iter().enumerate() {
            per[a] = (pads[k], pads[k + axes.len()]);
        }
        let last = per.iter().rposition(|&p| p != (0, 0));
        let Some(last) = last else { return Ok(x) };
        let first = per.iter().position(|&p| p != (0, 0)).unwrap_or(last);
        let torch: Vec<i64> = (first..r).rev().flat_map(|a| [per[a].0, per[a].1]).collect();
        self.engine.torch_pad(&x, &torch, mode, value)
    }

    fn cumsum(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "x")?;
        let r = x.shape().len();
        let a = self.ints_of(&req(args, 1, "axis")?)?.first().copied().unwrap_or(0);
        let a = axis(a, r, AxisRange::BelowRank)?;
        let reverse = node.int_or("reverse", 0)? != 0;
        let mut y = if reverse { self.engine.flip(&x, &[a as i64])? } else { x.clone() };
        if node.int_or("exclusive", 0)? != 0 {
            // Shift by one along the axis: a zero first, the last element dropped.
            let mut pad = vec![0i64; 2 * (r - a)];
            let at = 2 * (r - 1 - a);
            (pad[at], pad[at + 1]) = (1, -1);
            y = self.engine.torch_pad(&y, &pad, PadMode::Constant, None)?;
        }
        y = self.engine.cumsum(&y, a as i64, Some(x.dtype()))?;
        if reverse {
            y = self.engine.flip(&y, &[a as i64])?;
        }
        Ok(y)
    }

    /// DepthToSpace (DCR or CRD) and SpaceToDepth over (N, C, H, W): a reshape, a permute and a
    /// reshape, as PyTorch's `pixel_shuffle` and `pixel_unshuffle` are.
    fn depth_space(&mut self, node: &Node, x: &Tensor) -> Result<Tensor> {
        let &[n, c, h, w] = x.shape() else { bail!(Shape, "input must be (N, C, H, W), got {:?}", x.shape()) };
        let b = usize::try_from(node.int("blocksize")?.unwrap_or(0)).unwrap_or(0);
        if b == 0 {
            bail!(Shape, "blocksize must be positive");
        }
        if node.op_type() == "SpaceToDepth" {
            if h % b != 0 || w % b != 0 {
                bail!(Shape, "blocksize {b} does not divide {h} x {w}");
            }
            let y = self.reshape(x, &[n, c, h / b, b, w / b, b])?;
            let y = self.permute(&y, &[0, 3, 5, 1, 2, 4])?;
            return self.engine.reshape(&y, &[n as i64, (c * b * b) as i64, (h / b) as i64, (w / b) as i64]);
        }
        if c % (b * b) != 0 {
            bail!(Shape, "blocksize {b} squared does not divide {c} channels");
        }
        let cb = c / (b * b);
        let (y, perm) = match node.string("mode")?.unwrap_or("DCR") {
            "DCR" => (self.reshape(x, &[n, b, b, cb, h, w])?, [0, 3, 4, 1, 5, 2]),
            "CRD" => (self.reshape(x, &[n, cb, b, b, h, w])?, [0, 1, 4, 2, 5, 3]),
            other => bail!(Value, "DepthToSpace mode {other:?} is not one ONNX defines"),
        };
        let y = self.permute(&y, &perm)?;
        self.engine.reshape(&y, &[n as i64, cb as i64, (h * b) as i64, (w * b) as i64])
    }

    fn arg_extreme(&mut self, node: &Node, x: &Tensor) -> Result<Tensor> {
        let r = x.shape().len();
        let a = axis(node.int_or("axis", 0)?, r, AxisRange::BelowRank)?;
        let keep = if node.int_or("keepdims", 1)? != 0 { KeepDim::Keep } else { KeepDim::Drop };
        let extreme = if node.op_type() == "ArgMax" { ArgExtreme::Max } else { ArgExtreme::Min };
        let y = if node.int_or("select_last_index", 0)? != 0 {
            // The last extreme is the first of the reversed axis.
            let f = self.engine.flip(x, &[a as i64])?;
            let i = self.engine.arg_reduce(&f, a, keep, extreme)?;
            let n = x.shape()[a] as i64 - 1;
            let neg = self.engine.binary(BinaryOp::Mul, &Operand::Tensor(i), &Operand::Scalar(Scalar::Int(-1)))?;
            self.engine.binary(BinaryOp::Add, &Operand::Tensor(neg), &Operand::Scalar(Scalar::Int(n)))?
        } else {
            self.engine.arg_reduce(x, a, keep, extreme)?
        };
        self.engine.cast(&y, DType::Int32)
    }

    /// ScatterND: `data` with `updates` written at the index tuples of `indices`' last axis (an
    /// index_put on a copy; `add` accumulates).
    fn scatter_nd(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let (data, indices, updates) = (req(args, 0, "data")?, req(args, 1, "indices")?, req(args, 2, "updates")?);
        let accumulate = match node.string("reduction")?.unwrap_or("none") {
            "none" => false,
            "add" => true,
            other => bail!(Unsupported, "ScatterND reduction {other:?} is not supported (none and add are)"),
        };
        let items = self.index_tuples(&data, &indices)?;
        self.engine.index_put_functional(&data, &items, &Operand::Tensor(updates), accumulate)
    }
}
