//! The backward formulas: for each differentiable op the gradient of each input given the
//! gradient of the output, written with the engine's own ops, so gradients are graph nodes
//! that fuse and run on every backend (`tools/autograd/derivatives.yaml` is the reference for
//! what each node reads).

use crate::autograd::{GradOp, Node, Route};
use crate::dtype::DType;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::tensor::{restride_view, Engine, Operand, Tensor};
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

/// The node PyTorch names for the backward of a view's backward (what `create_graph`
/// records): the inverse view for the relabelling ones, `*BackwardBackward0` for the rest.
fn double_view_name(view: &str) -> Option<&'static str> {
    Some(match view {
        "TBackward0" => "TBackward0",
        "TransposeBackward0" => "TransposeBackward0",
        "PermuteBackward0" => "PermuteBackward0",
        "ViewBackward0" | "UnsafeViewBackward0" | "ReshapeAliasBackward0" => "ViewBackward0",
        "SqueezeBackward0" | "SqueezeBackward1" | "SqueezeBackward2" => "UnsqueezeBackward0",
        "UnsqueezeBackward0" => "SqueezeBackward1",
        "SelectBackward0" => "SelectBackwardBackward0",
        "SliceBackward0" => "SliceBackwardBackward0",
        "DiagonalBackward0" => "DiagonalBackwardBackward0",
        "UnfoldBackward0" => "UnfoldBackwardBackward0",
        "ExpandBackward0" => "SumBackward1",
        _ => return None,
    })
}

/// `output` as `input` with its dims reordered (same cells, same offset): the permutation,
/// `output` dim `i` being `input` dim `perm[i]`.
fn relabelling(input: &Layout, output: &Layout) -> Option<Vec<usize>> {
    let n = input.sizes().len();
    if output.sizes().len() != n || output.offset() != input.offset() {
        return None;
    }
    let mut used = vec![false; n];
    let mut perm = Vec::with_capacity(n);
    for (&size, &stride) in output.sizes().iter().zip(output.strides()) {
        let d = (0..n).find(|&d| !used[d] && input.sizes()[d] == size && input.strides()[d] == stride)?;
        used[d] = true;
        perm.push(d);
    }
    Some(perm)
}

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

fn s(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

fn dims(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&n| n as i64).collect()
}

impl Engine {
    pub(crate) fn add_tensors(&mut self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        self.binary(BinaryOp::Add, &t(a), &t(b))
    }

    fn mul(&mut self, a: &Operand, b: &Operand) -> Result<Tensor> {
        self.binary(BinaryOp::Mul, a, b)
    }

    /// `g` summed down to `shape` (the broadcast a forward op did, undone).
    pub(crate) fn sum_to(&mut self, g: &Tensor, shape: &[usize]) -> Result<Tensor> {
        if g.shape() == shape {
            return Ok(g.clone());
        }
        let lead = g.shape().len() - shape.len();
        let mut axes: Vec<usize> = (0..lead).collect();
        for (d, &n) in shape.iter().enumerate() {
            if n == 1 && g.shape()[lead + d] != 1 {
                axes.push(lead + d);
            }
        }
        let r = self.reduce(ReduceOp::Sum, g, &axes, KeepDim::Keep)?;
        self.reshape(&r, &dims(shape))
    }

    /// `g` (reduced over `axes`, maybe without them) spread back over `input`.
    pub(crate) fn unreduce(&mut self, g: &Tensor, axes: &[usize], keepdim: bool, input: &[usize]) -> Result<Tensor> {
        let kept: Vec<usize> = input.iter().enumerate().map(|(d, &n)| if axes.contains(&d) { 1 } else { n }).collect();
        let g = if keepdim { g.clone() } else { self.reshape(g, &dims(&kept))? };
        self.expand(&g, &dims(input))
    }

    /// The gradient of a view's input from the gradient of the view: written through the
    /// view's layout into zeros over the whole storage, then read through the input's layout.
    fn view_backward(&mut self, g: &Tensor, input: &Layout, output: &Layout) -> Result<Tensor> {
        if input.is_contiguous()
            && output.is_contiguous()
            && input.offset() == output.offset()
            && input.numel() == output.numel()
        {
            return self.reshape(g, &dims(input.sizes()));
        }
        // Broadcast dims (stride 0) gather their gradient first, so the write hits each cell once.
        let mut g = g.clone();
        let mut sizes = output.sizes().to_vec();
        let strides = output.strides().to_vec();
        let spread: Vec<usize> = (0..sizes.len()).filter(|&d| strides[d] == 0 && sizes[d] > 1).collect();
        if !spread.is_empty() {
            g = self.reduce(ReduceOp::Sum, &g, &spread, KeepDim::Keep)?;
            for &d in &spread {
                sizes[d] = 1;
            }
        }
        let output = Layout::new(&sizes, &strides, output.offset());
        if !output.is_non_overlapping() {
            return self.overlapping_view_backward(&g, input, &output);
        }
        let zeros = self.scratch(g.dtype(), &[input, &output])?;
        let g = self.reshape(&g, &dims(&sizes))?;
        self.write_through(&zeros, &output, &g)?;
        let back = self.through(&zeros, input)?;
        self.copy(&back)
    }

    /// `g` over `axes`, shared evenly among the elements `hit` marks in each reduced group.
    fn share_among(
        &mut self,
        g: &Tensor,
        hit: &Tensor,
        axes: &[usize],
        keepdim: bool,
        input: &[usize],
    ) -> Result<Tensor> {
        let hit = self.cast(hit, g.dtype())?;
        let count = self.reduce(ReduceOp::Sum, &hit, axes, KeepDim::Keep)?;
        let count = self.expand(&count, &dims(input))?;
        let gg = self.unreduce(g, axes, keepdim, input)?;
        let share = self.binary(BinaryOp::Div, &t(&gg), &t(&count))?;
        self.mul(&t(&share), &t(&hit))
    }

    /// [`Engine::view_backward`] for a view whose elements may share storage cells (`unfold`,
    /// `as_strided` with overlapping windows): the gradient of every view element is added
    /// into its cell, then the input's elements read theirs.
    fn overlapping_view_backward(&mut self, g: &Tensor, input: &Layout, output: &Layout) -> Result<Tensor> {
        use crate::engine::indexing::Index;
        let cells = output.storage_indices();
        let len =
            cells.iter().copied().max().unwrap_or(0).max(input.storage_indices().into_iter().max().unwrap_or(0)) + 1;
        let zeros = self.full(&[len as usize], Scalar::Int(0), Some(g.dtype()))?;
        let zeros = self.realize(&zeros)?;
        let positions = self.from_data(
            crate::uop::buffer::Data::from_scalars(
                crate::dtype::DType::Int64,
                &cells.iter().map(|&c| Scalar::Int(c)).collect::<Vec<_>>(),
            ),
            &[cells.len()],
        )?;
        let flat = self.reshape(g, &[-1])?;
        let flat = self.copy(&flat)?;
        self.index_put(&zeros, &[Index::Tensor(positions)], &t(&flat), true)?;
        let zeros = self.resolve(&zeros);
        let back = self.torch_view(&zeros, input.clone(), ShapeTracker::from_view(restride_view(input)), 0)?;
        self.copy(&back)
    }

    /// The gradients of a node's inputs (one per edge) from the gradient `g` of its output.
    pub(crate) fn vjp(&mut self, node: &Node<Tensor>, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let op = |i: usize| node.operands.get(i).cloned().flatten();
        Ok(match &node.op {
            GradOp::Binary { op: bop, scalar } => {
                let (a, b) = (op(0), op(1));
                let ta = a.as_ref().map(t).unwrap_or_else(|| Operand::Scalar(scalar.map_or(Scalar::Int(0), |x| x.0)));
                let tb = b.as_ref().map(t).unwrap_or_else(|| Operand::Scalar(scalar.map_or(Scalar::Int(0), |x| x.0)));
                let (ga, gb) = match bop {
                    BinaryOp::Add => (Some(g.clone()), Some(g.clone())),
                    BinaryOp::Sub => (Some(g.clone()), Some(self.unary(UnaryOp::Neg, g)?)),
                    BinaryOp::Mul => (Some(self.mul(&t(g), &tb)?), Some(self.mul(&t(g), &ta)?)),
                    BinaryOp::Div => {
                        let ga = self.binary(BinaryOp::Div, &t(g), &tb)?;
                        // -g * a / b^2
                        let q = self.binary(BinaryOp::Div, &ta, &tb)?;
                        let q = self.binary(BinaryOp::Div, &t(&q), &tb)?;
                        let neg = self.unary(UnaryOp::Neg, g)?;
                        (Some(ga), Some(self.mul(&t(&neg), &t(&q))?))
                    }
                    BinaryOp::Pow => {
                        // d/da = b * a^(b-1); d/db = out * ln(a)
                        let bm1 = self.binary(BinaryOp::Sub, &tb, &s(1.0))?;
                        let p = self.binary(BinaryOp::Pow, &ta, &t(&bm1))?;
                        let da = self.mul(&tb, &t(&p))?;
                        let ga = self.mul(&t(g), &t(&da))?;
                        let gb = match b.is_some() {
                            true => {
                                let out = match op(2) {
                                    Some(o) => o,
                                    None => self.binary(BinaryOp::Pow, &ta, &tb)?,
                                };
                                let ln = match &ta {
                                    Operand::Tensor(x) => self.unary(UnaryOp::Log, x)?,
                                    Operand::Scalar(v) => {
                                        self.full(&[], Scalar::Float(v.as_f64().ln()), Some(g.dtype()))?
                                    }
                                };
                                let d = self.mul(&t(&out), &t(&ln))?;
                                Some(self.mul(&t(g), &t(&d))?)
                            }
                            false => None,
                        };
                        (Some(ga), gb)
                    }
                    BinaryOp::Fmod | BinaryOp::Mod => {
                        // other: -grad * (self / other) rounded toward zero (fmod) or down.
                        let gb = match &b {
                            Some(_) => {
                                let q = self.binary(BinaryOp::Div, &ta, &tb)?;
                                let round = if *bop == BinaryOp::Fmod { UnaryOp::Trunc } else { UnaryOp::Floor };
                                let q = self.unary(round, &q)?;
                                let neg = self.unary(UnaryOp::Neg, g)?;
                                Some(self.mul(&t(&neg), &t(&q))?)
                            }
                            None => None,
                        };
                        (Some(g.clone()), gb)
                    }
                    BinaryOp::Atan2 => {
                        // d/dy atan2(y, x) = x / (x² + y²), d/dx = -y / (x² + y²).
                        let aa = self.mul(&ta, &ta)?;
                        let bb = self.mul(&tb, &tb)?;
                        let den = self.binary(BinaryOp::Add, &t(&aa), &t(&bb))?;
                        let ga = self.mul(&t(g), &tb)?;
                        let ga = self.binary(BinaryOp::Div, &t(&ga), &t(&den))?;
                        let neg = self.unary(UnaryOp::Neg, g)?;
                        let gb = self.mul(&t(&neg), &ta)?;
                        let gb = self.binary(BinaryOp::Div, &t(&gb), &t(&den))?;
                        (Some(ga), Some(gb))
                    }
                    BinaryOp::Hypot => {
                        let Some(out) = op(2) else { return Ok(vec![None, None]) };
                        let ga = self.mul(&t(g), &ta)?;
                        let ga = self.binary(BinaryOp::Div, &t(&ga), &t(&out))?;
                        let gb = self.mul(&t(g), &tb)?;
                        let gb = self.binary(BinaryOp::Div, &t(&gb), &t(&out))?;
                        (Some(ga), Some(gb))
                    }
                    BinaryOp::Copysign => {
                        // self: grad * (result / self), zero where self is zero; other: zeros.
                        let Some(out) = op(2) else { return Ok(vec![None, None]) };
                        let ratio = self.binary(BinaryOp::Div, &t(&out), &ta)?;
                        let zero = self.binary(BinaryOp::CmpEq, &ta, &s(0.0))?;
                        let ratio = self.where_(&t(&zero), &s(0.0), &t(&ratio))?;
                        let ga = self.mul(&t(g), &t(&ratio))?;
                        let gb = self.mul(&t(g), &s(0.0))?;
                        (Some(ga), Some(gb))
                    }
                    BinaryOp::Max | BinaryOp::Min if scalar.is_some() => {
                        // A Python-number bound (`clamp`, `clamp_min`, `clamp_max`): the tensor
                        // gets the gradient only where it is strictly inside, as PyTorch's
                        // clamp_backward gives it (zero at the bound itself).
                        let (tensor, bound) = if a.is_some() { (&ta, &tb) } else { (&tb, &ta) };
                        let inside = if *bop == BinaryOp::Max {
                            self.binary(BinaryOp::CmpLt, bound, tensor)?
                        } else {
                            self.binary(BinaryOp::CmpLt, tensor, bound)?
                        };
                        let gt = self.where_(&t(&inside), &t(g), &Operand::Scalar(Scalar::Int(0)))?;
                        if a.is_some() {
                            (Some(gt), None)
                        } else {
                            (None, Some(gt))
                        }
                    }
                    BinaryOp::Max | BinaryOp::Min => {
                        // Ties split the gradient in half, as PyTorch's maximum/minimum do.
                        let (lo, hi) = if *bop == BinaryOp::Max { (&tb, &ta) } else { (&ta, &tb) };
                        let a_wins = self.binary(BinaryOp::CmpLt, lo, hi)?;
                        let tie = self.binary(BinaryOp::CmpEq, &ta, &tb)?;
                        let half = self.mul(&t(g), &s(0.5))?;
                        let zero = Operand::Scalar(Scalar::Int(0));
                        let g_or_half = self.where_(&t(&tie), &t(&half), &t(g))?;
                        let a_gets = self.where_(&t(&a_wins), &t(g), &zero)?;
                        let a_gets = self.where_(&t(&tie), &t(&g_or_half), &t(&a_gets))?;
                        let b_not = self.binary(BinaryOp::Or, &t(&a_wins), &t(&tie))?;
                        let b_gets = self.where_(&t(&b_not), &zero, &t(g))?;
                        let b_gets = self.where_(&t(&tie), &t(&g_or_half), &t(&b_gets))?;
                        (Some(a_gets), Some(b_gets))
                    }
                    other => bail!(Unsupported, "the gradient of {} is not supported", other.name()),
                };
                let fit = |e: &mut Self, x: Option<Tensor>, side: &Option<Tensor>| -> Result<Option<Tensor>> {
                    match (x, side) {
                        (Some(x), Some(s)) => {
                            let x = e.sum_to(&x, s.shape())?;
                            Ok(Some(if x.dtype() != s.dtype() { e.cast(&x, s.dtype())? } else { x }))
                        }
                        _ => Ok(None),
                    }
                };
                vec![fit(self, ga, &a)?, fit(self, gb, &b)?]
            }
            GradOp::Unary(u) => {
                let (Some(x), out) = (op(0), op(1)) else { return Ok(vec![None]) };
                let out = match out {
                    Some(o) => o,
                    None => self.unary(*u, &x)?,
                };
                let gx = self.unary_vjp(*u, &x, &out, g)?;
                // Under create_graph, PyTorch's one-kernel backwards are nodes of their own.
                match u {
                    UnaryOp::Tanh => self.rename_grad_fn(&gx, "TanhBackwardBackward0"),
                    UnaryOp::Sigmoid => self.rename_grad_fn(&gx, "SigmoidBackwardBackward0"),
                    _ => {}
                }
                vec![Some(gx)]
            }
            GradOp::Where => {
                let Some(c) = op(0) else { return Ok(vec![None, None]) };
                let zero = Operand::Scalar(Scalar::Int(0));
                let gx = self.where_(&t(&c), &t(g), &zero)?;
                let gy = self.where_(&t(&c), &zero, &t(g))?;
                let shapes: Vec<Option<Vec<usize>>> =
                    vec![op(1).map(|x| x.shape().to_vec()), op(2).map(|x| x.shape().to_vec())];
                let gx = match &shapes[0] {
                    Some(sh) => self.sum_to(&gx, sh)?,
                    None => gx,
                };
                let gy = match &shapes[1] {
                    Some(sh) => self.sum_to(&gy, sh)?,
                    None => gy,
                };
                vec![Some(gx), Some(gy)]
            }
            GradOp::Reduce { op: rop, axes, keepdim, input, .. } => match rop {
                ReduceOp::Sum => vec![Some(self.unreduce(g, axes, *keepdim, input)?)],
                ReduceOp::Max | ReduceOp::Min => {
                    let (Some(x), Some(out)) = (op(0), op(1)) else { return Ok(vec![None]) };
                    let out = self.unreduce(&out, axes, *keepdim, input)?;
                    let hit = self.binary(BinaryOp::CmpEq, &t(&x), &t(&out))?;
                    vec![Some(self.share_among(g, &hit, axes, *keepdim, input)?)]
                }
                ReduceOp::Prod => {
                    let Some(x) = op(0) else { return Ok(vec![None]) };
                    vec![Some(self.prod_backward(&x, g, axes, *keepdim, input)?)]
                }
            },
            GradOp::Logsumexp { axes, keepdim, input } => {
                let (Some(x), Some(out)) = (op(0), op(1)) else { return Ok(vec![None]) };
                let out = self.unreduce(&out, axes, *keepdim, input)?;
                let gg = self.unreduce(g, axes, *keepdim, input)?;
                let d = self.binary(BinaryOp::Sub, &t(&x), &t(&out))?;
                let e = self.unary(UnaryOp::Exp, &d)?;
                vec![Some(self.mul(&t(&gg), &t(&e))?)]
            }
            // The trace's own backward: the backward walk runs it through its callbacks.
            GradOp::Custom { class, .. } => {
                bail!(Unsupported, "{class}Backward runs the trace's backward, not a formula")
            }
            GradOp::EvenlyDistributed { .. } => {
                let (Some(x), Some(out)) = (op(0), op(1)) else { return Ok(vec![None]) };
                // `input == value`, or `isnan(input)` where the value is NaN.
                let all: Vec<usize> = (0..x.shape().len()).collect();
                let out = self.unreduce(&out, &all, false, x.shape())?;
                let same = self.binary(BinaryOp::CmpEq, &t(&x), &t(&out))?;
                let x_nan = self.binary(BinaryOp::CmpNe, &t(&x), &t(&x))?;
                let out_nan = self.binary(BinaryOp::CmpNe, &t(&out), &t(&out))?;
                let both = self.binary(BinaryOp::And, &t(&x_nan), &t(&out_nan))?;
                let hit = self.binary(BinaryOp::Or, &t(&same), &t(&both))?;
                vec![Some(self.share_among(g, &hit, &all, false, x.shape())?)]
            }
            GradOp::Spread(of) => {
                let (Some(x), Some(out)) = (op(0), op(1)) else { return Ok(vec![None]) };
                vec![Some(self.spread_backward(&x, &out, g, of)?)]
            }
            GradOp::Norm(of) => {
                // The 0-"norm" counts: PyTorch gives no gradient at all (the leaf's .grad stays None).
                let (Some(x), Some(out)) = (op(0), op(1)) else { return Ok(vec![None]) };
                if of.ord == 0.0 {
                    return Ok(vec![None]);
                }
                vec![Some(self.norm_backward(&x, &out, g, of)?)]
            }
            GradOp::Cumprod { dim, from } => {
                let Some(x) = op(0) else { return Ok(vec![None]) };
                let r = self.cumprod_backward(&x, g, *dim)?;
                vec![Some(if r.dtype() != *from { self.cast(&r, *from)? } else { r })]
            }
            GradOp::Cumsum { dim, from } => {
                // Each input adds into every later output: the reversed running sum of g.
                let d = [*dim as i64];
                let r = self.flip(g, &d)?;
                let r = self.cumsum(&r, *dim as i64, None)?;
                let r = self.flip(&r, &d)?;
                vec![Some(if r.dtype() != *from { self.cast(&r, *from)? } else { r })]
            }
            GradOp::Conv2d { win, groups } => {
                let (Some(x), Some(w)) = (op(0), op(1)) else { return Ok(vec![None, None, None]) };
                let (gx, gw) = self.conv2d_backward(&x, &w, g, *win, *groups)?;
                let gb = match op(2) {
                    Some(_) => {
                        let axes: Vec<usize> = (0..g.shape().len()).filter(|&d| d + 3 != g.shape().len()).collect();
                        Some(self.reduce(ReduceOp::Sum, g, &axes, KeepDim::Drop)?)
                    }
                    None => None,
                };
                vec![Some(gx), Some(gw), gb]
            }
            GradOp::Pool2d { win, avg } => {
                let Some(x) = op(0) else { return Ok(vec![None]) };
                vec![Some(self.pool2d_backward(&x, g, *win, *avg)?)]
            }
            GradOp::MseLoss { .. } | GradOp::NllLoss { .. } | GradOp::BceWithLogits { .. } | GradOp::Bce { .. } => {
                self.loss_vjp(&node.op, &node.operands, g)?
            }
            GradOp::Mean { axes, keepdim, input, .. } => {
                let n: usize = axes.iter().map(|&d| input[d]).product();
                let gg = self.unreduce(g, axes, *keepdim, input)?;
                vec![Some(self.binary(BinaryOp::Div, &t(&gg), &Operand::Scalar(Scalar::Int(n as i64)))?)]
            }
            GradOp::Matmul { .. } => {
                let (Some(a), Some(b)) = (op(0), op(1)) else { return Ok(vec![None, None]) };
                if a.shape().len() == 2 && b.shape().len() == 1 {
                    // `mv`: PyTorch's `grad.outer(vec)` (a broadcast product) and `self.t().mv(grad)`.
                    let col = self.unsqueeze(g, -1)?;
                    let ga = self.mul(&t(&col), &t(&b))?;
                    let at = self.matrix_t(&a)?;
                    return Ok(vec![Some(ga), Some(self.matmul(&at, g)?)]);
                }
                let a2 = if a.shape().len() == 1 { self.unsqueeze(&a, 0)? } else { a.clone() };
                let b2 = if b.shape().len() == 1 { self.unsqueeze(&b, -1)? } else { b.clone() };
                let mut gshape = g.shape().to_vec();
                if a.shape().len() == 1 {
                    // The vector's row dim comes back just before the result's columns.
                    let at = gshape.len().saturating_sub(usize::from(b.shape().len() != 1));
                    gshape.insert(at, 1);
                }
                if b.shape().len() == 1 {
                    gshape.push(1);
                }
                let g2 = self.reshape(g, &dims(&gshape))?;
                let bt = self.matrix_t(&b2)?;
                let ga = self.matmul(&g2, &bt)?;
                let at = self.matrix_t(&a2)?;
                let gb = self.matmul(&at, &g2)?;
                let ga = self.sum_to(&ga, a2.shape())?;
                let gb = self.sum_to(&gb, b2.shape())?;
                let fit = |e: &mut Self, x: Tensor, shape: &[usize]| -> Result<Tensor> {
                    if x.shape() == shape {
                        Ok(x)
                    } else {
                        e.reshape(&x, &dims(shape))
                    }
                };
                vec![Some(fit(self, ga, a.shape())?), Some(fit(self, gb, b.shape())?)]
            }
            GradOp::Linear { bias } => {
                let (Some(x), Some(w)) = (op(0), op(1)) else { return Ok(vec![None, None, None]) };
                let gx = self.matmul(g, &w)?;
                let outf = *w.shape().first().unwrap_or(&1);
                let inf = *x.shape().last().unwrap_or(&1);
                let g2 = self.reshape(g, &[-1, outf as i64])?;
                let x2 = self.reshape(&x, &[-1, inf as i64])?;
                let g2t = self.matrix_t(&g2)?;
                let gw = self.matmul(&g2t, &x2)?;
                let gw = self.reshape(&gw, &dims(w.shape()))?;
                let _ = bias;
                let gb = match op(2) {
                    Some(b) => Some(self.sum_to(g, b.shape())?),
                    None => None,
                };
                vec![Some(gx), Some(gw), gb]
            }
            GradOp::Softmax { dim, log } => {
                let Some(out) = op(0) else { return Ok(vec![None]) };
                let gx = if out.shape().is_empty() {
                    // One element: the softmax is constant (1, or 0 for log_softmax).
                    self.full(&[], Scalar::Int(0), Some(g.dtype()))?
                } else if *log {
                    let e = self.unary(UnaryOp::Exp, &out)?;
                    let sg = self.reduce(ReduceOp::Sum, g, &[*dim], KeepDim::Keep)?;
                    let p = self.mul(&t(&e), &t(&sg))?;
                    self.binary(BinaryOp::Sub, &t(g), &t(&p))?
                } else {
                    let gy = self.mul(&t(g), &t(&out))?;
                    let sg = self.reduce(ReduceOp::Sum, &gy, &[*dim], KeepDim::Keep)?;
                    let d = self.binary(BinaryOp::Sub, &t(g), &t(&sg))?;
                    self.mul(&t(&out), &t(&d))?
                };
                vec![Some(gx)]
            }
            GradOp::View { input, output } | GradOp::NamedView { input, output, .. } => {
                // Written through storage-level ops that record nothing; under create_graph the
                // result records the view again (the adjoint of the adjoint) as its backward.
                if let Some(perm) = relabelling(input, output) {
                    // `t`, `transpose`, `permute`: the gradient is `g` permuted back, a view of
                    // it, as PyTorch's `grad.t()` is.
                    let mut inv = vec![0i64; perm.len()];
                    for (i, &d) in perm.iter().enumerate() {
                        inv[d] = i as i64;
                    }
                    let gi = self.permute(g, &inv)?;
                    if let Some(name) = double_view_name(&node.name) {
                        self.rename_grad_fn(&gi, name);
                    }
                    return Ok(vec![Some(gi)]);
                }
                let gi = self.untracked(|e| e.view_backward(g, input, output))?;
                let again = GradOp::NamedView {
                    name: double_view_name(&node.name),
                    input: output.clone(),
                    output: input.clone(),
                };
                self.record(&gi, again, &[Some(g)], Vec::new(), &[]);
                vec![Some(gi)]
            }
            GradOp::Movement { op: mop, input, .. } => {
                use crate::uop::Op;
                let gi = match mop {
                    Op::Reshape(_) => self.reshape(g, &dims(input))?,
                    Op::Permute(p) => {
                        let mut inv = vec![0i64; p.len()];
                        for (i, &d) in p.iter().enumerate() {
                            inv[d] = i as i64;
                        }
                        self.permute(g, &inv)?
                    }
                    Op::Flip(axes) => {
                        let ds: Vec<i64> = axes.iter().enumerate().filter(|(_, &f)| f).map(|(d, _)| d as i64).collect();
                        self.flip(g, &ds)?
                    }
                    Op::Pad(arg) => {
                        let arg: Vec<(i64, i64)> =
                            arg.iter().zip(input).map(|(&(lo, _), &n)| (lo as i64, (lo + n) as i64)).collect();
                        let s = self.shrink(g, &arg)?;
                        self.copy(&s)?
                    }
                    Op::Shrink(arg) => {
                        let arg: Vec<(i64, i64)> =
                            arg.iter().zip(input).map(|(&(lo, hi), &n)| (lo as i64, (n - hi) as i64)).collect();
                        self.pad(g, &arg, None)?
                    }
                    Op::Expand(_) => self.sum_to(g, input)?,
                    other => bail!(Unsupported, "the gradient of {} is not supported", other.name()),
                };
                vec![Some(gi)]
            }
            GradOp::Clone => vec![Some(g.clone())],
            GradOp::Cast { from } => vec![Some(self.cast(g, *from)?)],
            GradOp::Cat { dim, sizes } => {
                let mut out = Vec::with_capacity(sizes.len());
                let mut at = 0;
                for &n in sizes {
                    // `cat_tensors_backward`: each input's gradient is a narrow view of `g`.
                    out.push(Some(self.narrow(g, *dim as i64, at as i64, n as i64)?));
                    at += n;
                }
                out
            }
            GradOp::Stack { dim } => {
                let n = g.shape()[*dim];
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    // `stack_tensors_backward`: `unbind` views of `g`.
                    out.push(Some(self.select(g, *dim as i64, i as i64)?));
                }
                out
            }
            GradOp::IndexMap { inputs, .. } => {
                let mut out = Vec::with_capacity(inputs.len());
                for (k, (route, shape)) in inputs.iter().enumerate() {
                    let Some(map) = op(k) else {
                        out.push(None);
                        continue;
                    };
                    out.push(Some(self.route_gradient(g, &map, *route, shape)?));
                }
                out
            }
            // `index_select_backward`: zeros of the input's shape with `g` added at `index`.
            GradOp::IndexSelect { dim, input } => {
                let Some(Some(index)) = node.operands.first().cloned() else {
                    bail!(Autograd, "IndexSelectBackward0 lost its index")
                };
                let zeros = self.full(input, Scalar::Int(0), Some(g.dtype()))?;
                let source = Operand::Tensor(g.clone());
                vec![Some(self.index_dim(&zeros, *dim, &index, &source, super::indexing::Combine::Sum, "index_add")?)]
            }
            GradOp::Index { items, input } => {
                let items = index_items(items, &node.operands)?;
                // A fresh tensor: no write to track (its version is `grad_version`'s to count).
                let zeros = self.full(input, Scalar::Int(0), Some(g.dtype()))?;
                vec![Some(self.index_put_functional(&zeros, &items, &t(g), true)?)]
            }
            GradOp::IndexPut { items, accumulate, value_shape, .. } => {
                let items = index_items(items, &node.operands)?;
                // The old value's cells the put replaced get nothing (with accumulate, all of g):
                // PyTorch's `grad` itself, or `grad.index_put(indices, 0)`, a fresh tensor.
                let g_old = match accumulate {
                    true => g.clone(),
                    false => self.index_put_functional(g, &items, &Operand::Scalar(Scalar::Int(0)), false)?,
                };
                let g_value = match node.operands.get(1).cloned().flatten() {
                    Some(_) => {
                        let picked = self.advanced_index(g, &items)?;
                        Some(self.sum_to(&picked, value_shape)?)
                    }
                    None => None,
                };
                vec![Some(g_old), g_value]
            }
            GradOp::Fill { .. } => {
                let mut zeros = vec![Some(self.full(g.shape(), Scalar::Int(0), Some(g.dtype()))?)];
                // A probability tensor of `bernoulli_(p)`: zeros of its shape (PyTorch's
                // `zeros_like(p)`).
                for p in node.operands.iter().skip(1).flatten() {
                    zeros.push(Some(self.full(p.shape(), Scalar::Int(0), Some(p.dtype()))?));
                }
                zeros
            }
            GradOp::Copy { src_shape, src_dtype } => {
                let gs = self.sum_to(g, src_shape)?;
                let gs = if gs.dtype() != *src_dtype { self.cast(&gs, *src_dtype)? } else { gs };
                vec![None, Some(gs)]
            }
            GradOp::CopySlices { base, view, func } => {
                // The base's old value gets g outside the view; inside, what the in-place op
                // passes back to the view's old value. Its other inputs get the rest.
                let func = self.ag.node(*func).clone();
                let gv = self.view_backward_inverse(g, base, view)?;
                let res = self.vjp(&func, &gv)?;
                let mut out = Vec::with_capacity(res.len());
                let inside = match res.first().cloned().flatten() {
                    Some(r) => r,
                    None => self.full(view.sizes(), Scalar::Int(0), Some(g.dtype()))?,
                };
                out.push(Some(self.replace_view(g, base, view, &inside)?));
                out.extend(res.into_iter().skip(1));
                out
            }
        })
    }

    /// An index-map input's gradient: the output gradients added into the elements they came
    /// from ([`Route::FromOutput`]), or each element's output gradient read back
    /// ([`Route::ToOutput`]); zero where the map says 0.
    fn route_gradient(&mut self, g: &Tensor, map: &Tensor, route: Route, shape: &[usize]) -> Result<Tensor> {
        if route == Route::Same {
            return Ok(g.clone());
        }
        let zero = || Operand::Scalar(Scalar::Int(0));
        let map = self.reshape(map, &[-1])?;
        let flat = self.reshape(g, &[-1])?;
        let hit = self.binary(BinaryOp::CmpLt, &zero(), &t(&map))?;
        let at = self.binary(BinaryOp::Sub, &t(&map), &Operand::Scalar(Scalar::Int(1)))?;
        let at = self.where_(&t(&hit), &t(&at), &zero())?;
        let r = match route {
            Route::FromOutput => {
                let flat = self.where_(&t(&hit), &t(&flat), &zero())?;
                let n: usize = shape.iter().product();
                let zeros = self.full(&[n], Scalar::Int(0), Some(g.dtype()))?;
                self.index_dim(&zeros, 0, &at, &t(&flat), super::indexing::Combine::Sum, "index_add")?
            }
            Route::ToOutput => {
                let read = self.index_select(&flat, 0, &at)?;
                self.where_(&t(&hit), &t(&read), &zero())?
            }
            Route::Same => unreachable!("returned above"),
        };
        let r = self.reshape(&r, &dims(shape))?;
        // PyTorch's formulas build this gradient as a tensor of its own (`zeros` then a
        // scatter), not a view of a flat one, and bump its version. With no graph of the
        // backward to keep, the reshaped flat result is that tensor.
        if (self.ag.enabled && self.ag.depth == 0) || !r.is_alias() {
            return Ok(r);
        }
        let (object, counter) = (self.ids.fresh_object(), self.ids.fresh_counter());
        Ok(r.into_fresh_owner(object, counter))
    }

    /// The gradient of `cumprod` along `dim`, exact with zeros: input `i` gets
    /// `sum over j >= i of g[j] * prod(x[k] for k <= j, k != i)`, the products being running
    /// products along `k` of `x` with element `i` replaced by 1 (an n x n table per row).
    fn cumprod_backward(&mut self, x: &Tensor, g: &Tensor, dim: usize) -> Result<Tensor> {
        let last = x.shape().len() as i64 - 1;
        let (d, n) = (dim as i64, x.shape()[dim]);
        let xm = self.movedim(x, &[d], &[last])?;
        let gm = self.movedim(g, &[d], &[last])?;
        let mut wide: Vec<i64> = xm.shape().iter().map(|&s| s as i64).collect();
        wide.insert(wide.len() - 1, n as i64);
        // Rows i, columns k (then j): x[k], with x[i] replaced by 1 on row i.
        let rows = self.unsqueeze(&xm, -2)?;
        let rows = self.expand(&rows, &wide)?;
        let i = self.arange(Scalar::Int(0), Scalar::Int(n as i64), Scalar::Int(1), Some(DType::Int64))?;
        let col = self.reshape(&i, &[n as i64, 1])?;
        let row = self.reshape(&i, &[1, n as i64])?;
        let same = self.binary(BinaryOp::CmpEq, &t(&col), &t(&row))?;
        let rows = self.where_(&t(&same), &Operand::Scalar(Scalar::Float(1.0)), &t(&rows))?;
        let prods = self.cumprod(&rows, -1, None)?;
        // Only j >= i contributes, weighted by g[j].
        let later = self.binary(BinaryOp::CmpLe, &t(&col), &t(&row))?;
        let gj = self.unsqueeze(&gm, -2)?;
        let terms = self.mul(&t(&prods), &t(&gj))?;
        let terms = self.where_(&t(&later), &t(&terms), &Operand::Scalar(Scalar::Int(0)))?;
        let sum = self.reduce(ReduceOp::Sum, &terms, &[wide.len() - 1], KeepDim::Drop)?;
        // PyTorch's formula gives a tensor of its own, row-major (so AccumulateGrad takes it).
        let moved = self.movedim(&sum, &[last], &[d])?;
        self.contiguous(&moved)
    }

    /// The gradient of `prod` over `axes` (one axis, or all of them): each element gets the
    /// product of the others, as exclusive running products from both sides (exact with zeros).
    fn prod_backward(
        &mut self,
        x: &Tensor,
        g: &Tensor,
        axes: &[usize],
        keepdim: bool,
        input: &[usize],
    ) -> Result<Tensor> {
        let gg = self.unreduce(g, axes, keepdim, input)?;
        let (flat, d) = match axes {
            [d] => (x.clone(), *d),
            _ => (self.reshape(x, &[-1])?, 0),
        };
        let n = flat.shape()[d] as i64;
        let nd = flat.shape().len();
        // Shifted by one along d, the cell moved in being 1 (zero padding marks it).
        let around = |e: &mut Self, v: &Tensor, pad: (i64, i64), keep: (i64, i64)| -> Result<Tensor> {
            let arg: Vec<(i64, i64)> = (0..nd).map(|k| if k == d { pad } else { (0, 0) }).collect();
            let p = e.pad(v, &arg, None)?;
            let ones = e.full(v.shape(), Scalar::Int(1), Some(DType::Bool))?;
            let inside = e.pad(&ones, &arg, None)?;
            let p = e.where_(&t(&inside), &t(&p), &Operand::Scalar(Scalar::Float(1.0)))?;
            let arg: Vec<(i64, i64)> =
                p.shape().iter().enumerate().map(|(k, &m)| if k == d { keep } else { (0, m as i64) }).collect();
            let p = e.shrink(&p, &arg)?;
            e.copy(&p)
        };
        let before = self.cumprod(&flat, d as i64, None)?;
        let before = around(self, &before, (1, 0), (0, n))?;
        let rev = self.flip(&flat, &[d as i64])?;
        let after = self.cumprod(&rev, d as i64, None)?;
        let after = self.flip(&after, &[d as i64])?;
        let after = around(self, &after, (0, 1), (1, n + 1))?;
        let others = self.mul(&t(&before), &t(&after))?;
        let others = self.reshape(&others, &dims(input))?;
        self.mul(&t(&gg), &t(&others))
    }

    /// Zeros over a scratch storage long enough for every layout given (a gradient's storage
    /// space, where views of it are written and read).
    fn scratch(&mut self, dtype: crate::dtype::DType, layouts: &[&Layout]) -> Result<Tensor> {
        let extent = |l: &Layout| -> i64 {
            l.offset()
                + l.sizes().iter().zip(l.strides()).map(|(&n, &st)| (n as i64 - 1).max(0) * st.max(0)).sum::<i64>()
                + 1
        };
        let len = layouts.iter().map(|l| extent(l)).max().unwrap_or(1).max(1) as usize;
        let zeros = self.full(&[len], Scalar::Int(0), Some(dtype))?;
        self.realize(&zeros)
    }

    /// `storage` read through `layout`.
    fn through(&mut self, storage: &Tensor, layout: &Layout) -> Result<Tensor> {
        self.torch_view(storage, layout.clone(), ShapeTracker::from_view(restride_view(layout)), 0)
    }

    /// Writes `value` into `storage` through `layout`.
    fn write_through(&mut self, storage: &Tensor, layout: &Layout, value: &Tensor) -> Result<()> {
        let target = self.through(storage, layout)?;
        let value = self.copy(value)?;
        self.write(&target, value.node())?;
        Ok(())
    }

    /// `g` (laid out like `base`) read through `view`: the gradient of the view's elements.
    fn view_backward_inverse(&mut self, g: &Tensor, base: &Layout, view: &Layout) -> Result<Tensor> {
        let zeros = self.scratch(g.dtype(), &[base, view])?;
        self.write_through(&zeros, base, g)?;
        let v = self.through(&zeros, view)?;
        self.copy(&v)
    }

    /// `g` (laid out like `base`) with the view's cells replaced by `inside`.
    fn replace_view(&mut self, g: &Tensor, base: &Layout, view: &Layout, inside: &Tensor) -> Result<Tensor> {
        let zeros = self.scratch(g.dtype(), &[base, view])?;
        self.write_through(&zeros, base, g)?;
        self.write_through(&zeros, view, inside)?;
        let back = self.through(&zeros, base)?;
        self.copy(&back)
    }

    /// d(op)/dx times `g`, reading what PyTorch saves (the input or the result).
    fn unary_vjp(&mut self, op: UnaryOp, x: &Tensor, out: &Tensor, g: &Tensor) -> Result<Tensor> {
        use UnaryOp as U;
        let d = match op {
            U::Neg => return self.unary(U::Neg, g),
            U::Exp => out.clone(),
            U::Log => return self.binary(BinaryOp::Div, &t(g), &t(x)),
            U::Sqrt => {
                let two = self.mul(&t(out), &s(2.0))?;
                return self.binary(BinaryOp::Div, &t(g), &t(&two));
            }
            U::Abs | U::Sign if op == U::Abs => self.unary(U::Sign, x)?,
            U::Relu => {
                let pos = self.binary(BinaryOp::CmpLt, &Operand::Scalar(Scalar::Int(0)), &t(out))?;
                let zero = Operand::Scalar(Scalar::Int(0));
                return self.where_(&t(&pos), &t(g), &zero);
            }
            U::Sigmoid => {
                let one_minus = self.binary(BinaryOp::Sub, &s(1.0), &t(out))?;
                self.mul(&t(out), &t(&one_minus))?
            }
            U::Tanh => {
                let sq = self.mul(&t(out), &t(out))?;
                self.binary(BinaryOp::Sub, &s(1.0), &t(&sq))?
            }
            U::Sin => self.unary(U::Cos, x)?,
            U::Cos => {
                let sn = self.unary(U::Sin, x)?;
                self.unary(U::Neg, &sn)?
            }
            U::Tan => {
                let sq = self.mul(&t(out), &t(out))?;
                self.binary(BinaryOp::Add, &s(1.0), &t(&sq))?
            }
            U::Sinh => self.unary(U::Cosh, x)?,
            U::Cosh => self.unary(U::Sinh, x)?,
            U::Atan => {
                let sq = self.mul(&t(x), &t(x))?;
                let den = self.binary(BinaryOp::Add, &s(1.0), &t(&sq))?;
                return self.binary(BinaryOp::Div, &t(g), &t(&den));
            }
            U::Asin | U::Acos => {
                let sq = self.mul(&t(x), &t(x))?;
                let den = self.binary(BinaryOp::Sub, &s(1.0), &t(&sq))?;
                let den = self.unary(U::Sqrt, &den)?;
                let q = self.binary(BinaryOp::Div, &t(g), &t(&den))?;
                return if op == U::Acos { self.unary(U::Neg, &q) } else { Ok(q) };
            }
            U::Expm1 => self.binary(BinaryOp::Add, &t(out), &s(1.0))?,
            U::Log1p => {
                let den = self.binary(BinaryOp::Add, &t(x), &s(1.0))?;
                return self.binary(BinaryOp::Div, &t(g), &t(&den));
            }
            U::Log2 | U::Log10 => {
                let k = if op == U::Log2 { std::f64::consts::LN_2 } else { std::f64::consts::LN_10 };
                let den = self.mul(&t(x), &s(k))?;
                return self.binary(BinaryOp::Div, &t(g), &t(&den));
            }
            U::Exp2 => self.mul(&t(out), &s(std::f64::consts::LN_2))?,
            U::Erf | U::Erfc => {
                let sq = self.mul(&t(x), &t(x))?;
                let neg = self.unary(U::Neg, &sq)?;
                let e = self.unary(U::Exp, &neg)?;
                let k = 2.0 / std::f64::consts::PI.sqrt() * if op == U::Erfc { -1.0 } else { 1.0 };
                self.mul(&t(&e), &s(k))?
            }
            U::Floor | U::Ceil | U::Round | U::Trunc | U::Sign => {
                return self.full(g.shape(), Scalar::Int(0), Some(g.dtype()));
            }
            other => bail!(Unsupported, "the gradient of {} is not supported", other.name()),
        };
        self.mul(&t(g), &t(&d))
    }
}

/// A node's index slots as engine index items, its tensors taken from the operands.
fn index_items(
    slots: &[crate::autograd::IndexSlot],
    operands: &[Option<Tensor>],
) -> Result<Vec<crate::engine::indexing::Index>> {
    use crate::autograd::IndexSlot;
    use crate::engine::indexing::Index;
    slots
        .iter()
        .map(|s| {
            Ok(match s {
                IndexSlot::Item(i) => Index::Item(i.clone()),
                IndexSlot::Bool(b) => Index::Bool(*b),
                IndexSlot::Tensor(k) => match operands.get(*k).cloned().flatten() {
                    Some(t) => Index::Tensor(t),
                    None => bail!(Unsupported, "an index tensor of this node was not kept"),
                },
            })
        })
        .collect()
}
