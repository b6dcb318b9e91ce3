//! Reductions: `sum`, `mean`, `amax`/`amin`, `logsumexp` and `argmax`/`argmin`, as graph
//! builders over the engine's lazy graph (sums of bool and int count in int, as PyTorch's do).

use crate::autograd::GradOp;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Bridge, Engine, Operand, Tensor};
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, Op, ReduceOp, UOpId, UnaryOp};

/// Whether a reduction keeps its reduced dims as size 1 (PyTorch's `keepdim`). An enum rather
/// than a bool parameter so that a call says which it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepDim {
    Keep,
    Drop,
}

impl From<bool> for KeepDim {
    /// PyTorch's `keepdim=` argument.
    fn from(keepdim: bool) -> KeepDim {
        if keepdim {
            KeepDim::Keep
        } else {
            KeepDim::Drop
        }
    }
}

/// Which extreme `argmax`/`argmin` look for (the reduce ops also have `Sum`, which has no index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgExtreme {
    Max,
    Min,
}

impl Engine {
    /// Reduces `axes` (already normalised, sorted, deduplicated) of a tensor; `keepdim` says
    /// whether they stay as size 1. Sums of bool and int tensors count in int, as PyTorch's do (in int64).
    pub fn reduce(&mut self, op: ReduceOp, a: &Tensor, axes: &[usize], keepdim: KeepDim) -> Result<Tensor> {
        let a = self.resolve(a);
        let node = self.reduce_node(op, a.node(), a.dtype(), a.shape(), axes, keepdim)?;
        let out = self.computed(node)?;
        let grad = GradOp::Reduce {
            op,
            axes: axes.to_vec(),
            keepdim: keepdim == KeepDim::Keep,
            input: a.shape().to_vec(),
            all: axes.len() == a.shape().len() && keepdim == KeepDim::Drop,
        };
        // Sum saves nothing; the extremes save the input and the result.
        let (operands, saved): (Vec<Option<Tensor>>, &[usize]) = match op {
            ReduceOp::Sum => (Vec::new(), &[]),
            _ => (vec![Some(a.clone()), Some(out.clone())], &[0, 1]),
        };
        self.record(&out, grad, &[Some(&a)], operands, saved);
        Ok(out)
    }

    pub(crate) fn reduce_node(
        &mut self,
        op: ReduceOp,
        node: UOpId,
        dtype: DType,
        shape: &[usize],
        axes: &[usize],
        keepdim: KeepDim,
    ) -> Result<UOpId> {
        if let Some(&d) = axes.iter().find(|&&d| d >= shape.len()) {
            bail!(
                Index,
                "Dimension out of range (expected to be in range of [-{0}, {1}], but got {d})",
                shape.len().max(1),
                shape.len().max(1) - 1
            );
        }
        let out_dtype =
            if matches!(op, ReduceOp::Sum | ReduceOp::Prod) && !dtype.is_float() { DType::Int64 } else { dtype };
        if matches!(op, ReduceOp::Max | ReduceOp::Min) && axes.iter().any(|&d| shape[d] == 0) {
            bail!(
                Index,
                "{}(): Expected reduction dim {} to have non-zero size.",
                if op == ReduceOp::Max { "max" } else { "min" },
                axes[0]
            );
        }
        let x = self.cast_node(node, dtype, out_dtype);
        let kept: Vec<usize> = shape.iter().enumerate().map(|(d, &n)| if axes.contains(&d) { 1 } else { n }).collect();
        let mut out = self.graph.push(Op::Reduce(op, axes.to_vec()), out_dtype, kept.clone(), vec![x]);
        if keepdim == KeepDim::Drop {
            let squeezed: Vec<usize> =
                shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &n)| n).collect();
            out = self.graph.push(Op::Reshape(squeezed.clone()), out_dtype, squeezed, vec![out]);
        }
        Ok(out)
    }

    /// `(a * b).sum(axis)` with `a` and `b` broadcast to one shape by lazy nodes, neither a
    /// view nor a storage: matmul's broadcast product is a loop the interpreter contracts, and
    /// only its result is bounded by the buffer limit.
    pub fn mul_sum(&mut self, a: &Tensor, b: &Tensor, axis: usize) -> Result<Tensor> {
        self.mul_sum_as(a, b, axis, None)
    }

    /// [`Engine::mul_sum`] whose result, a fresh tensor, has the shape `like` (same numel):
    /// matmul's result with its vector dims dropped is not a view of anything. The product is
    /// summed as it is computed, so it may pass the lazy limit as long as the sum does not.
    pub fn mul_sum_as(&mut self, a: &Tensor, b: &Tensor, axis: usize, like: Option<&[usize]>) -> Result<Tensor> {
        let (a, b) = (Operand::Tensor(self.resolve(a)), Operand::Tensor(self.resolve(b)));
        let dtype = self.compute_dtype(BinaryOp::Mul, &a, &b)?;
        let shape = Engine::broadcast_shapes(&[Engine::shape_of(&a), Engine::shape_of(&b)])?;
        let mut out = shape.clone();
        if let Some(n) = out.get_mut(axis) {
            *n = 1;
        }
        crate::limits::check_lazy_numel(&out)?;
        let x = self.operand_node(&a, dtype, &shape)?;
        let y = self.operand_node(&b, dtype, &shape)?;
        let prod = self.graph.push(Op::Binary(BinaryOp::Mul), dtype, shape.clone(), vec![x, y]);
        let mut node = self.reduce_node(ReduceOp::Sum, prod, dtype, &shape, &[axis], KeepDim::Drop)?;
        // A product of integers keeps their dtype (PyTorch's integer mm accumulates in it,
        // wrapping; the sum in int64 cast back wraps the same way).
        let summed = self.graph.node(node).dtype;
        if summed != dtype {
            node = self.cast_node(node, summed, dtype);
        }
        if let Some(like) = like.filter(|l| *l != self.graph.node(node).shape.as_slice()) {
            node = self.graph.push(Op::Reshape(like.to_vec()), dtype, like.to_vec(), vec![node]);
        }
        self.computed(node)
    }

    /// `mean`: float only, sum divided by the number of reduced elements.
    pub fn mean(&mut self, a: &Tensor, axes: &[usize], keepdim: KeepDim) -> Result<Tensor> {
        let a = self.resolve(a);
        if !a.dtype().is_float() {
            bail!(
                DType,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                a.dtype().torch_name()
            );
        }
        let count: usize = axes.iter().map(|&d| a.shape()[d]).product();
        let s = self.reduce_node(ReduceOp::Sum, a.node(), a.dtype(), a.shape(), axes, keepdim)?;
        let shape = self.graph.node(s).shape.clone();
        let c = self.graph.push(Op::Const(Scalar::Float(count as f64)), a.dtype(), shape.clone(), vec![]);
        let node = self.graph.push(Op::Binary(BinaryOp::Div), a.dtype(), shape, vec![s, c]);
        let out = self.computed(node)?;
        let grad = GradOp::Mean {
            axes: axes.to_vec(),
            keepdim: keepdim == KeepDim::Keep,
            input: a.shape().to_vec(),
            all: axes.len() == a.shape().len() && keepdim == KeepDim::Drop,
        };
        self.record(&out, grad, &[Some(&a)], Vec::new(), &[]);
        Ok(out)
    }

    /// `logsumexp` over ALL the given axes: max-shifted for stability, with infinite maxima
    /// replaced by 0 so that all -inf rows give -inf, as PyTorch does.
    pub fn logsumexp(&mut self, a: &Tensor, axes: &[usize], keepdim: KeepDim) -> Result<Tensor> {
        let a = self.resolve(a);
        let dtype = if a.dtype().is_float() { a.dtype() } else { DType::Float32 };
        let shape = a.shape().to_vec();
        let x = self.cast_node(a.node(), a.dtype(), dtype);
        let m = self.reduce_node(ReduceOp::Max, x, dtype, &shape, axes, KeepDim::Keep)?;
        let mshape = self.graph.node(m).shape.clone();
        let absm = self.graph.push(Op::Unary(UnaryOp::Abs), dtype, mshape.clone(), vec![m]);
        let inf = self.graph.push(Op::Const(Scalar::Float(f64::INFINITY)), dtype, mshape.clone(), vec![]);
        let is_inf = self.graph.push(Op::Binary(BinaryOp::CmpEq), DType::Bool, mshape.clone(), vec![absm, inf]);
        let zero = self.graph.push(Op::Const(Scalar::Float(0.0)), dtype, mshape.clone(), vec![]);
        let safe = self.graph.push(Op::Where, dtype, mshape.clone(), vec![is_inf, zero, m]);
        let wide = self.broadcast_node(safe, dtype, &mshape, &shape)?;
        let shifted = self.graph.push(Op::Binary(BinaryOp::Sub), dtype, shape.clone(), vec![x, wide]);
        let e = self.graph.push(Op::Unary(UnaryOp::Exp), dtype, shape.clone(), vec![shifted]);
        let s = self.reduce_node(ReduceOp::Sum, e, dtype, &shape, axes, KeepDim::Keep)?;
        let l = self.graph.push(Op::Unary(UnaryOp::Log), dtype, mshape.clone(), vec![s]);
        let mut out = self.graph.push(Op::Binary(BinaryOp::Add), dtype, mshape.clone(), vec![l, safe]);
        if keepdim == KeepDim::Drop {
            let squeezed: Vec<usize> =
                shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &n)| n).collect();
            out = self.graph.push(Op::Reshape(squeezed.clone()), dtype, squeezed, vec![out]);
        }
        let mut t = self.computed(out)?;
        // The bridge reduces only the first of the given axes.
        if let Some(&first) = axes.first() {
            let bshape: Vec<usize> = shape
                .iter()
                .enumerate()
                .filter(|&(d, _)| keepdim == KeepDim::Keep || d != first)
                .map(|(d, &n)| if d == first { 1 } else { n })
                .collect();
            t.set_bridge(Bridge::fresh(&bshape));
        }
        let grad = GradOp::Logsumexp { axes: axes.to_vec(), keepdim: keepdim == KeepDim::Keep, input: shape };
        self.record(&t, grad, &[Some(&a)], vec![Some(a.clone()), Some(t.clone())], &[0, 1]);
        Ok(t)
    }

    /// Index of the first maximum (or minimum) along `axis`, composed from ops the graph has
    /// (tinygrad's construction): where x equals the max, count down from n; take the max.
    pub fn arg_reduce(&mut self, a: &Tensor, axis: usize, keepdim: KeepDim, extreme: ArgExtreme) -> Result<Tensor> {
        let a = self.resolve(a);
        let shape = a.shape().to_vec();
        let (op, name) = match extreme {
            ArgExtreme::Max => (ReduceOp::Max, "argmax"),
            ArgExtreme::Min => (ReduceOp::Min, "argmin"),
        };
        // A 0-d tensor has one element along its only (implied) dim: index 0.
        if shape.is_empty() {
            return self.full(&[], Scalar::Int(0), Some(DType::Int64));
        }
        let Some(&n) = shape.get(axis) else {
            bail!(
                Index,
                "Dimension out of range (expected to be in range of [-{0}, {1}], but got {axis})",
                shape.len(),
                shape.len() - 1
            )
        };
        if n == 0 {
            bail!(Index, "{name}(): Expected reduction dim {axis} to have non-zero size.");
        }
        let m = self.reduce_node(op, a.node(), a.dtype(), &shape, &[axis], KeepDim::Keep)?;
        let mshape = self.graph.node(m).shape.clone();
        let wide = self.broadcast_node(m, a.dtype(), &mshape, &shape)?;
        let mut hit = self.graph.push(Op::Binary(BinaryOp::CmpEq), DType::Bool, shape.clone(), vec![a.node(), wide]);
        if a.dtype().is_float() {
            // PyTorch's max propagates NaN and its index is the first NaN's: NaN != NaN.
            let nan =
                self.graph.push(Op::Binary(BinaryOp::CmpNe), DType::Bool, shape.clone(), vec![a.node(), a.node()]);
            hit = self.graph.push(Op::Binary(BinaryOp::Or), DType::Bool, shape.clone(), vec![hit, nan]);
        }
        let down: Vec<i64> = (0..n).map(|i| (n - i) as i64).collect();
        let counter = self.from_data(Data::I64(down), &[n])?;
        let mut cshape = vec![1; shape.len()];
        cshape[axis] = n;
        let c = self.graph.push(Op::Reshape(cshape.clone()), DType::Int64, cshape.clone(), vec![counter.node()]);
        let c = self.graph.push(Op::Expand(shape.clone()), DType::Int64, shape.clone(), vec![c]);
        let zero = self.graph.push(Op::Const(Scalar::Int(0)), DType::Int64, shape.clone(), vec![]);
        let picked = self.graph.push(Op::Where, DType::Int64, shape.clone(), vec![hit, c, zero]);
        let best = self.reduce_node(ReduceOp::Max, picked, DType::Int64, &shape, &[axis], keepdim)?;
        let bshape = self.graph.node(best).shape.clone();
        let nn = self.graph.push(Op::Const(Scalar::Int(n as i64)), DType::Int64, bshape.clone(), vec![]);
        let node = self.graph.push(Op::Binary(BinaryOp::Sub), DType::Int64, bshape, vec![nn, best]);
        self.computed(node)
    }

    /// `t.max(dim)` / `t.min(dim)`: the values and their indices. The values' gradient goes to
    /// the selected element alone (PyTorch's MaxBackward0 saves `indices`, not the input: ties
    /// do not share it, and a later write to the input does not make it stale).
    pub fn extreme_along(
        &mut self,
        t: &Tensor,
        axis: usize,
        keepdim: KeepDim,
        extreme: ArgExtreme,
    ) -> Result<(Tensor, Tensor)> {
        let (op, name) = match extreme {
            ArgExtreme::Max => (ReduceOp::Max, "MaxBackward0"),
            ArgExtreme::Min => (ReduceOp::Min, "MinBackward0"),
        };
        let axes: Vec<usize> = if t.shape().is_empty() { vec![] } else { vec![axis] };
        let values = self.untracked(|e| e.reduce(op, t, &axes, keepdim))?;
        let indices = self.arg_reduce(t, axis, keepdim, extreme)?;
        self.record_index_map(&values, t, name, |e, probe| {
            if probe.shape().is_empty() {
                return Ok(probe.clone());
            }
            let (d, kept) = (axis as i64, keepdim == KeepDim::Keep);
            let at = if kept { indices.clone() } else { e.unsqueeze(&indices, d)? };
            let picked = e.gather(probe, d, &at)?;
            if kept {
                Ok(picked)
            } else {
                e.squeeze(&picked, Some(&[d]))
            }
        })?;
        Ok((values, indices))
    }
}

/// The shape a reduction of `axes` leaves: the reduced dims kept as 1 or dropped.
pub fn reduced_shape(shape: &[usize], axes: &[usize], keepdim: KeepDim) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(d, &n)| match (axes.contains(&d), keepdim) {
            (false, _) => Some(n),
            (true, KeepDim::Keep) => Some(1),
            (true, KeepDim::Drop) => None,
        })
        .collect()
}
