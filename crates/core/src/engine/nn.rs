//! Neural-network ops at the engine level, built only from the graph's movement, elementwise and
//! reduce nodes, the way tinygrad composes them. Nothing here is an opaque kernel: a convolution
//! is a padded, pooled view multiplied by the weight and summed, so a scheduler sees ordinary
//! nodes it can fuse, and the interpreter's meaning of those nodes is the meaning of the op.
//! `F.linear` is in `linear.rs`, and the gradients of convolution and pooling in `window_grad.rs`.

use crate::dtype::DType;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::torch::format::MemoryFormat;
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, Op, ReduceOp, UOpId, UnaryOp};

/// Whether an average pool's divisor counts the zero padding (`count_include_pad`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PadCounting {
    Include,
    Exclude,
}

impl PadCounting {
    fn of(count_include_pad: bool) -> PadCounting {
        if count_include_pad {
            PadCounting::Include
        } else {
            PadCounting::Exclude
        }
    }
}

/// `softmax` or `log_softmax`: an enum rather than a bool parameter so a call says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftmaxKind {
    Softmax,
    LogSoftmax,
}

/// The window geometry of a 2-D convolution or pooling, per spatial dim (height, width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window2d {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    /// Pooling only: output sizes round up, windows may start in the (implicit) right padding.
    pub ceil_mode: bool,
}

impl Window2d {
    /// The span one window covers in the input.
    fn effective(&self, d: usize) -> usize {
        self.dilation[d] * (self.kernel[d] - 1) + 1
    }

    /// PyTorch's `pooling_output_shape` for spatial dim `d` of size `i` (padding included).
    pub(super) fn pool_out(&self, d: usize, i: usize) -> i64 {
        let (k, s, p) = (self.effective(d) as i64, self.stride[d] as i64, self.padding[d] as i64);
        let span = i as i64 + 2 * p - k + if self.ceil_mode { s - 1 } else { 0 };
        let mut out = span.div_euclid(s) + 1;
        // The last window must start inside the input or its left padding.
        if self.ceil_mode && (out - 1) * s >= i as i64 + p {
            out -= 1;
        }
        out
    }
}

impl From<Window2d> for crate::autograd::Window {
    fn from(w: Window2d) -> Self {
        crate::autograd::Window {
            kernel: w.kernel,
            stride: w.stride,
            padding: w.padding,
            dilation: w.dilation,
            ceil_mode: w.ceil_mode,
        }
    }
}

impl From<crate::autograd::Window> for Window2d {
    fn from(w: crate::autograd::Window) -> Self {
        Window2d {
            kernel: w.kernel,
            stride: w.stride,
            padding: w.padding,
            dilation: w.dilation,
            ceil_mode: w.ceil_mode,
        }
    }
}

/// A pooling's extra right padding, so the last (ceil-mode) window exists (it never counts),
/// and the whole right padding with it.
pub(super) fn pool_tail(win: Window2d, hw: [usize; 2], out_hw: [usize; 2]) -> ([usize; 2], [usize; 2]) {
    let mut extra = [0; 2];
    for d in 0..2 {
        let need = (out_hw[d] - 1) * win.stride[d] + win.effective(d);
        extra[d] = need.saturating_sub(hw[d] + 2 * win.padding[d]);
    }
    (extra, [win.padding[0] + extra[0], win.padding[1] + extra[1]])
}

/// How a pooling reduces each window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    Max,
    /// Mean over the window; `count_include_pad` counts the zero padding in the divisor and
    /// `divisor` replaces the count altogether (`divisor_override`).
    Avg {
        count_include_pad: bool,
        divisor: Option<i64>,
    },
}

/// The shape of `shape` after the movement op `op` (the op's argument is for that shape).
fn moved_shape(shape: &[usize], op: &Op) -> Vec<usize> {
    match op {
        Op::Reshape(s) | Op::Expand(s) => s.clone(),
        Op::Permute(p) => p.iter().map(|&d| shape[d]).collect(),
        Op::Pad(p) => shape.iter().zip(p).map(|(&n, &(b, a))| n + b + a).collect(),
        Op::Shrink(s) => s.iter().map(|&(b, e)| e - b).collect(),
        Op::Flip(_) => shape.to_vec(),
        other => unreachable!("{} is not a shape-changing movement op", other.name()),
    }
}

/// PyTorch's `is_channels_last_strides_2d` for a layout that is not row-major contiguous.
pub(crate) fn is_channels_last(layout: &Layout) -> bool {
    !layout.is_contiguous() && layout.strides_like(MemoryFormat::ChannelsLast)
}

/// Channels-last when an input is, as PyTorch's convolution and pooling kernels choose their
/// output's memory format.
pub(crate) fn suggested_by(inputs: &[&Layout]) -> MemoryFormat {
    if inputs.iter().any(|l| is_channels_last(l)) {
        MemoryFormat::ChannelsLast
    } else {
        MemoryFormat::Contiguous
    }
}

/// A dense (N, C, H, W) result laid out in `format`.
pub(crate) fn nchw_output(shape: &[usize], format: MemoryFormat) -> Layout {
    if format == MemoryFormat::Contiguous || shape.len() != 4 {
        return Layout::contiguous(shape);
    }
    format.dense_layout(shape).unwrap_or_else(|_| Layout::contiguous(shape))
}

impl Engine {
    /// Appends one movement node and returns it with its shape (shapes follow the op's rule).
    pub(crate) fn movement(&mut self, node: UOpId, op: Op) -> UOpId {
        let n = self.graph.node(node);
        let (dtype, shape) = (n.dtype, moved_shape(&n.shape, &op));
        self.graph.push(op, dtype, shape, vec![node])
    }

    pub(super) fn shape_of_node(&self, node: UOpId) -> Vec<usize> {
        self.graph.node(node).shape.clone()
    }

    pub(super) fn const_node(&mut self, v: Scalar, dtype: DType, shape: &[usize]) -> UOpId {
        self.graph.push(Op::Const(v), dtype, shape.to_vec(), vec![])
    }

    /// tinygrad's `_pool`: the last `k.len()` dims of `node` become output positions followed by
    /// window offsets, `(..., o_0, o_1, k_0, k_1)`, where output `o` and offset `j` read input
    /// `o * stride + j * dilation`. Only movement ops: a strided repeat of the input, shrunk
    /// and reshaped so the windows line up without a gather op. The caller checks that each
    /// window fits (`dilation * (k - 1) + 1 <= size`).
    pub(crate) fn pool_node(&mut self, node: UOpId, k: &[usize], s: &[usize], d: &[usize]) -> UOpId {
        let shape = self.shape_of_node(node);
        let nk = k.len();
        let lead = shape.len() - nk;
        let noop: Vec<usize> = shape[..lead].to_vec();
        let i_: Vec<usize> = shape[lead..].to_vec();
        assert!(i_.iter().zip(k).zip(d).all(|((&i, &k), &d)| d * (k - 1) < i), "pool window larger than the input");
        let o_: Vec<usize> = (0..nk).map(|j| (i_[j] - d[j] * (k[j] - 1)).div_ceil(s[j])).collect();
        let keep = |v: &[usize]| -> Vec<(usize, usize)> { v.iter().map(|&n| (0, n)).collect() };
        let mut x = node;
        if (0..nk).any(|j| k[j] > s[j] || d[j] != 1) {
            // Row stride `i * f + d` makes consecutive window offsets `d` apart; `f` doubles it
            // when the strided outputs would otherwise run past one repeat of the input.
            let f: Vec<usize> = (0..nk).map(|j| 1 + usize::from(o_[j] * s[j] > i_[j] - d[j] * (k[j] - 1))).collect();
            let row: Vec<usize> = (0..nk).map(|j| i_[j] * f[j] + d[j]).collect();
            let reps: Vec<usize> = (0..nk).map(|j| (k[j] * row[j]).div_ceil(i_[j])).collect();
            // repeat: (..., 1, i, 1, i) -> (..., r, i, r, i) -> (..., r*i, r*i)
            let spread: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [1, i_[j]])).collect();
            let wide: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [reps[j], i_[j]])).collect();
            let tiled: Vec<usize> = noop.iter().copied().chain((0..nk).map(|j| reps[j] * i_[j])).collect();
            x = self.movement(x, Op::Reshape(spread));
            x = self.movement(x, Op::Expand(wide));
            x = self.movement(x, Op::Reshape(tiled));
            // dilation: (..., k, i*f + d)
            let cut: Vec<(usize, usize)> = keep(&noop).into_iter().chain((0..nk).map(|j| (0, k[j] * row[j]))).collect();
            x = self.movement(x, Op::Shrink(cut));
            let rows: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [k[j], row[j]])).collect();
            x = self.movement(x, Op::Reshape(rows));
            // stride: (..., k, o, s), then keep the first of each stride group: (..., k, o)
            let cut: Vec<(usize, usize)> =
                keep(&noop).into_iter().chain((0..nk).flat_map(|j| [(0, k[j]), (0, o_[j] * s[j])])).collect();
            x = self.movement(x, Op::Shrink(cut));
            let groups: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [k[j], o_[j], s[j]])).collect();
            x = self.movement(x, Op::Reshape(groups));
            let cut: Vec<(usize, usize)> =
                keep(&noop).into_iter().chain((0..nk).flat_map(|j| [(0, k[j]), (0, o_[j]), (0, 1)])).collect();
            x = self.movement(x, Op::Shrink(cut));
            let ko: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [k[j], o_[j]])).collect();
            x = self.movement(x, Op::Reshape(ko));
            let perm: Vec<usize> =
                (0..lead).chain((0..nk).map(|j| lead + 2 * j + 1)).chain((0..nk).map(|j| lead + 2 * j)).collect();
            return self.movement(x, Op::Permute(perm));
        }
        // Windows no wider than the stride and no dilation: split each dim into (o, s) blocks
        // and keep the first k of each block.
        let pad: Vec<(usize, usize)> = keep(&noop)
            .into_iter()
            .map(|_| (0, 0))
            .chain((0..nk).map(|j| (0, (o_[j] * s[j]).saturating_sub(i_[j]))))
            .collect();
        if pad.iter().any(|&(_, a)| a > 0) {
            x = self.movement(x, Op::Pad(pad));
        }
        let cut: Vec<(usize, usize)> = keep(&noop).into_iter().chain((0..nk).map(|j| (0, o_[j] * s[j]))).collect();
        x = self.movement(x, Op::Shrink(cut));
        let blocks: Vec<usize> = noop.iter().copied().chain((0..nk).flat_map(|j| [o_[j], s[j]])).collect();
        x = self.movement(x, Op::Reshape(blocks));
        let cut: Vec<(usize, usize)> =
            keep(&noop).into_iter().chain((0..nk).flat_map(|j| [(0, o_[j]), (0, k[j])])).collect();
        x = self.movement(x, Op::Shrink(cut));
        let perm: Vec<usize> =
            (0..lead).chain((0..nk).map(|j| lead + 2 * j)).chain((0..nk).map(|j| lead + 2 * j + 1)).collect();
        self.movement(x, Op::Permute(perm))
    }

    /// Pads the last two dims of `node` by `before`/`after`, the padding reading `value`
    /// (tinygrad pads with zero and adds a masked constant; here a where over a padded mask).
    pub(super) fn pad_spatial(&mut self, node: UOpId, before: [usize; 2], after: [usize; 2], value: Scalar) -> UOpId {
        let shape = self.shape_of_node(node);
        let dtype = self.graph.node(node).dtype;
        let lead = shape.len() - 2;
        let arg: Vec<(usize, usize)> =
            (0..shape.len()).map(|d| if d < lead { (0, 0) } else { (before[d - lead], after[d - lead]) }).collect();
        if arg.iter().all(|&p| p == (0, 0)) {
            return node;
        }
        let padded = self.movement(node, Op::Pad(arg.clone()));
        if value.as_f64() == 0.0 {
            return padded;
        }
        let ones = self.const_node(Scalar::Bool(true), DType::Bool, &shape);
        let mask = self.movement(ones, Op::Pad(arg));
        let pshape = self.shape_of_node(padded);
        let fill = self.const_node(value, dtype, &pshape);
        self.graph.push(Op::Where, dtype, pshape, vec![mask, padded, fill])
    }

    /// A result PyTorch modifies in place before returning it (matmul of a vector by a matrix
    /// ends in `squeeze_`): realized now so its storage's version counter can read one.
    pub fn bump_version(&mut self, t: &Tensor) -> Result<Tensor> {
        let s = self.storage_id(t)?;
        self.storages[s].version += 1;
        self.ids.bump(t.counter);
        Ok(self.resolve(t))
    }

    // ---------------------------------------------------------------- softmax

    /// `softmax` / `log_softmax` over `dim`: max-shifted exponentials, as both libraries do.
    pub fn softmax(&mut self, x: &Tensor, dim: i64, kind: SoftmaxKind) -> Result<Tensor> {
        let x = self.resolve(x);
        let out = self.softmax_forward(&x, dim, kind)?;
        // A 0-d tensor is one row of one element (its gradient is zero).
        let dim = wrap_dim(dim, x.shape().len().max(1))?;
        let op = crate::autograd::GradOp::Softmax { dim, log: kind == SoftmaxKind::LogSoftmax };
        self.record(&out, op, &[Some(&x)], vec![Some(out.clone())], &[0]);
        Ok(out)
    }

    fn softmax_forward(&mut self, x: &Tensor, dim: i64, kind: SoftmaxKind) -> Result<Tensor> {
        let log = kind == SoftmaxKind::LogSoftmax;
        let x = self.resolve(x);
        let shape = x.shape().to_vec();
        let axis = wrap_dim(dim, shape.len())?;
        if !x.dtype().is_float() {
            let last = shape.len() <= 1 || axis == shape.len() - 1;
            let kernel =
                format!("{}softmax{}_kernel_impl", if log { "log_" } else { "" }, if last { "_lastdim" } else { "" });
            bail!(DType, "\"{kernel}\" not implemented for '{}'", x.dtype().torch_name());
        }
        let dtype = x.dtype();
        if x.numel() == 0 {
            let node = self.graph.push(Op::Contiguous, dtype, shape, vec![x.node()]);
            return self.computed(node);
        }
        // A 0-d tensor is one row of one element.
        let work = if shape.is_empty() { vec![1] } else { shape.clone() };
        let mut node = x.node();
        if shape.is_empty() {
            node = self.movement(node, Op::Reshape(vec![1]));
        }
        let m = self.reduce_node(ReduceOp::Max, node, dtype, &work, &[axis], KeepDim::Keep)?;
        let mshape = self.shape_of_node(m);
        let mw = self.broadcast_node(m, dtype, &mshape, &work)?;
        let shifted = self.graph.push(Op::Binary(BinaryOp::Sub), dtype, work.clone(), vec![node, mw]);
        let e = self.graph.push(Op::Unary(UnaryOp::Exp), dtype, work.clone(), vec![shifted]);
        let s = self.reduce_node(ReduceOp::Sum, e, dtype, &work, &[axis], KeepDim::Keep)?;
        let mut out = if log {
            let l = self.graph.push(Op::Unary(UnaryOp::Log), dtype, mshape.clone(), vec![s]);
            let lw = self.broadcast_node(l, dtype, &mshape, &work)?;
            self.graph.push(Op::Binary(BinaryOp::Sub), dtype, work.clone(), vec![shifted, lw])
        } else {
            let sw = self.broadcast_node(s, dtype, &mshape, &work)?;
            self.graph.push(Op::Binary(BinaryOp::Div), dtype, work.clone(), vec![e, sw])
        };
        if shape.is_empty() {
            out = self.movement(out, Op::Reshape(vec![]));
        }
        self.computed(out)
    }

    // ---------------------------------------------------------------- convolution and pooling

    /// `F.conv2d` over (N, C, H, W) or unbatched (C, H, W) input: pad, pool into windows,
    /// multiply by the weight and sum over (C/groups, KH, KW), tinygrad's construction.
    pub fn conv2d(
        &mut self,
        x: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: Window2d,
        groups: usize,
    ) -> Result<Tensor> {
        // PyTorch convolves an unbatched input as a batch of one and squeezes the result.
        let tracked = {
            let ag = self.autograd();
            ag.requires_grad(x) || ag.requires_grad(weight) || bias.is_some_and(|b| ag.requires_grad(b))
        };
        if x.shape().len() == 3 && weight.shape().len() == 4 && tracked {
            let x4 = self.unsqueeze(x, 0)?;
            let out = self.conv2d(&x4, weight, bias, win, groups)?;
            return self.squeeze(&out, Some(&[0]));
        }
        let out = self.conv2d_forward(x, weight, bias, win, groups)?;
        let (x, w) = (self.resolve(x), self.resolve(weight));
        let b = bias.map(|b| self.resolve(b));
        let kernel = w.shape().get(2..4).map_or(win.kernel, |k| [k[0], k[1]]);
        let op = crate::autograd::GradOp::Conv2d { win: Window2d { kernel, ..win }.into(), groups };
        let operands = vec![Some(x.clone()), Some(w.clone()), b.clone()];
        self.record(&out, op, &[Some(&x), Some(&w), b.as_ref()], operands, &[0, 1]);
        Ok(out)
    }

    fn conv2d_forward(
        &mut self,
        x: &Tensor,
        weight: &Tensor,
        bias: Option<&Tensor>,
        win: Window2d,
        groups: usize,
    ) -> Result<Tensor> {
        let x = self.resolve(x);
        let w = self.resolve(weight);
        let xs = x.shape().to_vec();
        let ws = w.shape().to_vec();
        if xs.len() != 3 && xs.len() != 4 {
            bail!(Shape, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {xs:?}");
        }
        if ws.len() != 4 {
            bail!(Shape, "Expected {}-dimensional input for {}-dimensional weight {ws:?}, but got {}-dimensional input of size {xs:?} instead", ws.len(), ws.len(), xs.len());
        }
        if x.dtype() != w.dtype() {
            bail!(DType, "expected scalar type {} but found {}", x.dtype().torch_name(), w.dtype().torch_name());
        }
        let unbatched = xs.len() == 3;
        let full: Vec<usize> = if unbatched { [1].iter().chain(&xs).copied().collect() } else { xs.clone() };
        let [n, cin, h, wd] = [full[0], full[1], full[2], full[3]];
        let [cout, wcin, kh, kw] = [ws[0], ws[1], ws[2], ws[3]];
        if groups == 0 {
            bail!(Shape, "non-positive groups is not supported");
        }
        if cout % groups != 0 {
            bail!(Shape, "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size [{ws:?}] instead");
        }
        if wcin * groups != cin {
            bail!(Shape, "Given groups={groups}, weight of size {ws:?}, expected input{full:?} to have {} channels, but got {cin} channels instead", wcin * groups);
        }
        if let Some(b) = bias {
            if b.shape() != [cout] {
                bail!(Shape, "Given weight of size {ws:?}, expected bias to be 1-dimensional with {cout} elements, but got bias of size {:?} instead", b.shape());
            }
        }
        if kh == 0 || kw == 0 {
            bail!(Shape, "kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}");
        }
        if win.stride.contains(&0) {
            bail!(Shape, "non-positive stride is not supported");
        }
        if win.dilation.contains(&0) {
            bail!(Shape, "dilation should be greater than zero");
        }
        let win = Window2d { kernel: [kh, kw], ..win };
        let padded = [h + 2 * win.padding[0], wd + 2 * win.padding[1]];
        if (0..2).any(|d| win.effective(d) > padded[d]) {
            bail!(
                Shape,
                "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't be greater than actual input size",
                padded[0],
                padded[1],
                win.effective(0),
                win.effective(1)
            );
        }
        let dtype = x.dtype();
        let mut xn = x.node();
        if unbatched {
            xn = self.movement(xn, Op::Reshape(full.clone()));
        }
        let xn = self.pad_spatial(xn, win.padding, win.padding, Scalar::Int(0));
        let pooled = self.pool_node(xn, &win.kernel, &win.stride, &win.dilation);
        let (oh, ow) = {
            let s = self.shape_of_node(pooled);
            (s[2], s[3])
        };
        let (g, rcout) = (groups, cout / groups);
        // (N, G*cin, OH, OW, KH, KW) -> (N, G, rcout, OH, OW, cin, KH, KW)
        let xw = self.movement(pooled, Op::Reshape(vec![n, g, wcin, 1, oh, ow, kh, kw]));
        let xw = self.movement(xw, Op::Expand(vec![n, g, wcin, rcout, oh, ow, kh, kw]));
        let xw = self.movement(xw, Op::Permute(vec![0, 1, 3, 4, 5, 2, 6, 7]));
        let full8 = vec![n, g, rcout, oh, ow, wcin, kh, kw];
        // The windows times the weight is never held (the interpreter contracts it as a loop),
        // but kernels index it.
        crate::limits::check_lazy_numel(&full8)?;
        let wn = self.movement(w.node(), Op::Reshape(vec![1, g, rcout, 1, 1, wcin, kh, kw]));
        let wn = self.movement(wn, Op::Expand(full8.clone()));
        let prod = self.graph.push(Op::Binary(BinaryOp::Mul), dtype, full8.clone(), vec![xw, wn]);
        let summed = self.reduce_node(ReduceOp::Sum, prod, dtype, &full8, &[5, 6, 7], KeepDim::Keep)?;
        let sdtype = self.graph.node(summed).dtype;
        let summed = self.cast_node(summed, sdtype, dtype);
        let out_shape = vec![n, cout, oh, ow];
        let mut out = self.movement(summed, Op::Reshape(out_shape.clone()));
        if let Some(b) = bias {
            let b = self.resolve(b);
            let bn = self.cast_node(b.node(), b.dtype(), dtype);
            let bn = self.movement(bn, Op::Reshape(vec![1, cout, 1, 1]));
            let bn = self.movement(bn, Op::Expand(out_shape.clone()));
            out = self.graph.push(Op::Binary(BinaryOp::Add), dtype, out_shape.clone(), vec![out, bn]);
        }
        if unbatched {
            out = self.movement(out, Op::Reshape(vec![cout, oh, ow]));
            return self.computed(out);
        }
        let format = suggested_by(&[x.layout(), w.layout()]);
        self.computed_as(out, nchw_output(&out_shape, format))
    }

    /// `F.max_pool2d` / `F.avg_pool2d` over (N, C, H, W) or (C, H, W) input.
    pub fn pool2d(&mut self, x: &Tensor, win: Window2d, kind: PoolKind) -> Result<Tensor> {
        let out = self.pool2d_forward(x, win, kind)?;
        let x = self.resolve(x);
        let avg = match kind {
            PoolKind::Max => None,
            PoolKind::Avg { count_include_pad, divisor } => Some((count_include_pad, divisor)),
        };
        let op = crate::autograd::GradOp::Pool2d { win: win.into(), avg };
        self.record(&out, op, &[Some(&x)], vec![Some(x.clone())], &[0]);
        Ok(out)
    }

    fn pool2d_forward(&mut self, x: &Tensor, win: Window2d, kind: PoolKind) -> Result<Tensor> {
        let x = self.resolve(x);
        let xs = x.shape().to_vec();
        let name = if kind == PoolKind::Max { "max_pool2d" } else { "avg_pool2d" };
        if (xs.len() != 3 && xs.len() != 4) || xs[xs.len() - 3..].contains(&0) {
            bail!(Shape, "non-empty 3D or 4D (batch mode) tensor expected for input");
        }
        if win.stride.contains(&0) {
            bail!(Shape, "stride should not be zero");
        }
        if win.kernel.contains(&0) {
            bail!(
                Shape,
                "kernel size should be greater than zero, but got kH: {} kW: {}",
                win.kernel[0],
                win.kernel[1]
            );
        }
        if win.dilation.contains(&0) {
            bail!(
                Shape,
                "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
                win.dilation[0],
                win.dilation[1]
            );
        }
        if let Some(d) = (0..2).find(|&d| win.padding[d] > win.effective(d) / 2) {
            bail!(
                Shape,
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                win.padding[d],
                win.kernel[d],
                win.dilation[d]
            );
        }
        let dtype = x.dtype();
        if dtype == DType::Bool {
            bail!(DType, "\"{name}\" not implemented for 'Bool'");
        }
        let (h, w) = (xs[xs.len() - 2], xs[xs.len() - 1]);
        let (oh, ow) = (win.pool_out(0, h), win.pool_out(1, w));
        if oh < 1 || ow < 1 {
            let c = xs[xs.len() - 3];
            bail!(
                Shape,
                "Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
            );
        }
        let out_hw = [oh as usize, ow as usize];
        let (_, after) = pool_tail(win, [h, w], out_hw);
        let fill = match (kind, dtype) {
            (PoolKind::Avg { .. }, _) => Scalar::Int(0),
            (PoolKind::Max, d) if d.is_float() => Scalar::Float(f64::NEG_INFINITY),
            (PoolKind::Max, DType::Int8) => Scalar::Int(i64::from(i8::MIN)),
            (PoolKind::Max, DType::Int16) => Scalar::Int(i64::from(i16::MIN)),
            (PoolKind::Max, DType::Int32) => Scalar::Int(i64::from(i32::MIN)),
            (PoolKind::Max, DType::Int64) => Scalar::Int(i64::MIN),
            (PoolKind::Max, _) => Scalar::Int(0),
        };
        let xn = self.pad_spatial(x.node(), win.padding, after, fill);
        let pooled = self.pool_node(xn, &win.kernel, &win.stride, &win.dilation);
        let pooled = self.crop_windows(pooled, out_hw);
        let pshape = self.shape_of_node(pooled);
        crate::limits::check_lazy_numel(&pshape)?;
        let nd = pshape.len();
        let axes = [nd - 2, nd - 1];
        let out_shape: Vec<usize> = pshape[..nd - 2].to_vec();
        let out = match kind {
            PoolKind::Max => self.reduce_node(ReduceOp::Max, pooled, dtype, &pshape, &axes, KeepDim::Drop)?,
            PoolKind::Avg { count_include_pad, divisor } => {
                let s = self.reduce_node(ReduceOp::Sum, pooled, dtype, &pshape, &axes, KeepDim::Drop)?;
                let sdtype = self.graph.node(s).dtype;
                // Integer averages divide in the integer type (truncating), as PyTorch does.
                let s = self.cast_node(s, sdtype, dtype);
                let div = self.avg_divisor(win, [h, w], out_hw, (count_include_pad, divisor), dtype, &out_shape)?;
                self.graph.push(Op::Binary(BinaryOp::Div), dtype, out_shape.clone(), vec![s, div])
            }
        };
        let format = suggested_by(&[x.layout()]);
        self.computed_as(out, nchw_output(&out_shape, format))
    }

    /// What each average-pool window divides by, laid out as the pool's output.
    pub(super) fn avg_divisor(
        &mut self,
        win: Window2d,
        hw: [usize; 2],
        out_hw: [usize; 2],
        (count_include_pad, divisor): (bool, Option<i64>),
        dtype: DType,
        out_shape: &[usize],
    ) -> Result<UOpId> {
        let (extra, after) = pool_tail(win, hw, out_hw);
        Ok(match divisor {
            Some(v) => self.const_node(Scalar::Int(v), dtype, out_shape),
            None if count_include_pad && extra.iter().all(|&e| e == 0) => {
                self.const_node(Scalar::Int((win.kernel[0] * win.kernel[1]) as i64), dtype, out_shape)
            }
            None => self.pool_counts(win, hw, after, out_hw, PadCounting::of(count_include_pad), dtype, out_shape)?,
        })
    }

    /// Keeps the first `out` window positions (ceil mode may pool one more than PyTorch keeps).
    pub(super) fn crop_windows(&mut self, pooled: UOpId, out: [usize; 2]) -> UOpId {
        let s = self.shape_of_node(pooled);
        let nd = s.len();
        if s[nd - 4] == out[0] && s[nd - 3] == out[1] {
            return pooled;
        }
        let arg: Vec<(usize, usize)> = s
            .iter()
            .enumerate()
            .map(|(d, &n)| if d == nd - 4 || d == nd - 3 { (0, out[d + 4 - nd]) } else { (0, n) })
            .collect();
        self.movement(pooled, Op::Shrink(arg))
    }

    /// How many elements each average-pool window divides by: the windows pooled over a mask
    /// that is 1 over the input (and over the explicit padding when it counts), 0 elsewhere.
    #[allow(clippy::too_many_arguments)] // one geometry split the way the caller already has it
    fn pool_counts(
        &mut self,
        win: Window2d,
        hw: [usize; 2],
        after: [usize; 2],
        out: [usize; 2],
        padding: PadCounting,
        dtype: DType,
        out_shape: &[usize],
    ) -> Result<UOpId> {
        let p = win.padding;
        let (base, before, tail) = if padding == PadCounting::Include {
            ([hw[0] + 2 * p[0], hw[1] + 2 * p[1]], [0, 0], [after[0] - p[0], after[1] - p[1]])
        } else {
            (hw, p, after)
        };
        let ones = self.const_node(Scalar::Int(1), dtype, &base);
        let mask = self.pad_spatial(ones, before, tail, Scalar::Int(0));
        let pooled = self.pool_node(mask, &win.kernel, &win.stride, &win.dilation);
        let pooled = self.crop_windows(pooled, out);
        let ps = self.shape_of_node(pooled);
        let counts = self.reduce_node(ReduceOp::Sum, pooled, dtype, &ps, &[2, 3], KeepDim::Drop)?;
        let cdtype = self.graph.node(counts).dtype;
        let counts = self.cast_node(counts, cdtype, dtype);
        self.broadcast_node(counts, dtype, &out, out_shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uop::buffer::Data;
    use crate::uop::interp;

    /// One pooling geometry: input (…, H, W), kernel, stride, dilation.
    struct Case {
        shape: &'static [usize],
        k: [usize; 2],
        s: [usize; 2],
        d: [usize; 2],
    }

    /// Pools an arange through the movement-only construction and checks every window element
    /// against the definition `out[.., oy, ox, ky, kx] = x[.., oy*s + ky*d, ox*s + kx*d]`.
    fn check_pool(c: &Case) -> Result<()> {
        let mut e = Engine::new();
        let n: usize = c.shape.iter().product();
        let t = e.from_data(Data::F32((0..n).map(|i| i as f32).collect()), c.shape)?;
        let node = e.pool_node(t.node(), &c.k, &c.s, &c.d);
        let got = interp::realize(&e.graph, &e.storages, node)?;
        let got: Vec<f32> = match got {
            Data::F32(v) => v,
            other => bail!(DType, "pooling a float buffer gave {:?}", other.dtype()),
        };
        let nd = c.shape.len();
        let (h, w) = (c.shape[nd - 2], c.shape[nd - 1]);
        let o: Vec<usize> = (0..2).map(|j| (c.shape[nd - 2 + j] - c.d[j] * (c.k[j] - 1)).div_ceil(c.s[j])).collect();
        let lead: usize = c.shape[..nd - 2].iter().product();
        let mut want = Vec::new();
        for b in 0..lead {
            for oy in 0..o[0] {
                for ox in 0..o[1] {
                    for ky in 0..c.k[0] {
                        for kx in 0..c.k[1] {
                            let (y, x) = (oy * c.s[0] + ky * c.d[0], ox * c.s[1] + kx * c.d[1]);
                            want.push((b * h * w + y * w + x) as f32);
                        }
                    }
                }
            }
        }
        let shape = e.graph.node(node).shape.clone();
        let mut want_shape = c.shape[..nd - 2].to_vec();
        want_shape.extend([o[0], o[1], c.k[0], c.k[1]]);
        assert_eq!(shape, want_shape, "pool shape for {:?} k{:?} s{:?} d{:?}", c.shape, c.k, c.s, c.d);
        assert_eq!(got, want, "pool windows for {:?} k{:?} s{:?} d{:?}", c.shape, c.k, c.s, c.d);
        Ok(())
    }

    #[test]
    fn pool_windows_match_their_definition() -> Result<()> {
        let cases = [
            // strided blocks (k <= s, no dilation), exact and with a ragged edge
            Case { shape: &[4, 4], k: [2, 2], s: [2, 2], d: [1, 1] },
            Case { shape: &[1, 5, 5], k: [2, 2], s: [2, 2], d: [1, 1] },
            Case { shape: &[2, 1, 3, 7], k: [1, 2], s: [3, 3], d: [1, 1] },
            // overlapping windows (k > s): the repeat construction
            Case { shape: &[5, 5], k: [3, 3], s: [1, 1], d: [1, 1] },
            Case { shape: &[2, 6, 6], k: [3, 3], s: [2, 2], d: [1, 1] },
            Case { shape: &[1, 2, 5, 6], k: [3, 2], s: [1, 2], d: [1, 1] },
            // dilation, alone and with stride
            Case { shape: &[6, 6], k: [2, 2], s: [1, 1], d: [2, 2] },
            Case { shape: &[1, 1, 9, 8], k: [3, 2], s: [2, 3], d: [2, 3] },
            // the window is the whole input
            Case { shape: &[3, 3], k: [3, 3], s: [1, 1], d: [1, 1] },
            Case { shape: &[28, 28], k: [3, 3], s: [1, 1], d: [1, 1] },
        ];
        for c in &cases {
            check_pool(c)?;
        }
        Ok(())
    }

    #[test]
    fn pool_output_sizes_follow_pytorch() {
        // (input, kernel, stride, padding, dilation, ceil_mode, expected output)
        let cases: [(usize, usize, usize, usize, usize, bool, i64); 7] = [
            (4, 2, 2, 0, 1, false, 2),
            (5, 2, 2, 0, 1, false, 2),
            (5, 2, 2, 0, 1, true, 3),
            (5, 2, 2, 1, 1, true, 3),
            (4, 3, 2, 1, 1, false, 2),
            (5, 3, 2, 1, 1, true, 3),
            (6, 2, 2, 1, 1, true, 4),
        ];
        for (i, k, s, p, d, ceil, want) in cases {
            let win = Window2d { kernel: [k, k], stride: [s, s], padding: [p, p], dilation: [d, d], ceil_mode: ceil };
            assert_eq!(win.pool_out(0, i), want, "i={i} k={k} s={s} p={p} d={d} ceil={ceil}");
        }
    }
}
