//! `cat` and `stack`: tinygrad's construction (each input padded with zeros to its slot, the
//! pads summed) into a new row-major storage, with PyTorch's checks.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Operand, Tensor};
use crate::torch::format::MemoryFormat;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, Op, UOpId};

impl Engine {
    /// `cat`: every input is padded with zeros to its slot along `dim` and the pads are summed,
    /// tinygrad's construction; the result is a new row-major storage.
    pub fn cat(&mut self, tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        let out = self.cat_forward(tensors, dim)?;
        if let Some(first) = tensors.iter().find(|t| t.shape() != [0]) {
            let d = crate::strided::wrap_dim(dim, first.shape().len())?;
            let sizes: Vec<usize> = tensors.iter().map(|t| if t.shape() == [0] { 0 } else { t.shape()[d] }).collect();
            let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
            self.record(&out, crate::autograd::GradOp::Cat { dim: d, sizes }, &inputs, Vec::new(), &[]);
        }
        Ok(out)
    }

    fn cat_forward(&mut self, tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        if tensors.is_empty() {
            bail!(Value, "torch.cat(): expected a non-empty list of Tensors");
        }
        let tensors: Vec<Tensor> = tensors.iter().map(|t| self.resolve(t)).collect();
        for (i, t) in tensors.iter().enumerate() {
            if t.shape().is_empty() {
                bail!(Shape, "zero-dimensional tensor (at position {i}) cannot be concatenated");
            }
        }
        let dtype = {
            let ops: Vec<Operand> = tensors.iter().map(|t| Operand::Tensor(t.clone())).collect();
            let refs: Vec<&Operand> = ops.iter().collect();
            self.promote(&refs)
        };
        // PyTorch skips 1-D empty tensors, a legacy rule that lets `cat([x, empty])` work.
        let kept: Vec<(usize, &Tensor)> = tensors.iter().enumerate().filter(|(_, t)| t.shape() != [0]).collect();
        let Some(&(_, reference)) = kept.first() else {
            let node = self.const_node(Scalar::Int(0), dtype, &[0]);
            return self.computed(node);
        };
        let rshape = reference.shape().to_vec();
        let axis = wrap_dim(dim, rshape.len())?;
        for &(i, t) in &kept {
            if t.shape().len() != rshape.len() {
                bail!(
                    Shape,
                    "Tensors must have same number of dimensions: got {} and {}",
                    rshape.len(),
                    t.shape().len()
                );
            }
            if let Some(d) = (0..rshape.len()).find(|&d| d != axis && t.shape()[d] != rshape[d]) {
                bail!(
                    Shape,
                    "Sizes of tensors must match except in dimension {axis}. Expected size {} but got size {} for tensor number {i} in the list.",
                    rshape[d],
                    t.shape()[d]
                );
            }
        }
        let parts: Vec<(UOpId, DType, usize)> =
            kept.iter().map(|(_, t)| (t.node(), t.dtype(), t.shape()[axis])).collect();
        let out = self.concat(&parts, &rshape, axis, dtype)?;
        // PyTorch's output takes the inputs' memory format when they all suggest the same one
        // (channels-last inputs give a channels-last result), else it is row-major.
        let format = reference.layout().suggest_memory_format();
        let same = kept.iter().all(|(_, t)| t.layout().suggest_memory_format() == format);
        if same && format != MemoryFormat::Contiguous && !self.is_bridge() {
            return self.untracked(|e| e.clone_as(&out, format));
        }
        Ok(out)
    }

    /// Concatenates checked parts (node, dtype, size along `axis`) whose other dims are `shape`'s.
    fn concat(
        &mut self,
        parts: &[(UOpId, DType, usize)],
        shape: &[usize],
        axis: usize,
        dtype: DType,
    ) -> Result<Tensor> {
        let total: usize = parts.iter().map(|p| p.2).sum();
        let mut out_shape = shape.to_vec();
        out_shape[axis] = total;
        crate::limits::check_numel(&out_shape)?;
        let mut acc: Option<UOpId> = None;
        let mut at = 0;
        for &(node, from, n) in parts {
            let mut node = self.cast_node(node, from, dtype);
            if n != total {
                let arg: Vec<(usize, usize)> =
                    (0..shape.len()).map(|d| if d == axis { (at, total - at - n) } else { (0, 0) }).collect();
                node = self.movement(node, Op::Pad(arg));
            }
            at += n;
            acc = Some(match acc {
                None => node,
                Some(a) => self.graph.push(Op::Binary(BinaryOp::Add), dtype, out_shape.clone(), vec![a, node]),
            });
        }
        let Some(acc) = acc else { unreachable!("the caller passes at least one part") };
        let node = self.graph.push(Op::Contiguous, dtype, out_shape, vec![acc]);
        self.computed(node)
    }

    /// `stack`: each input gains a size-1 dim at `dim`, then they are concatenated there.
    pub fn stack(&mut self, tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        let out = self.stack_forward(tensors, dim)?;
        let d = crate::strided::wrap_dim(dim, out.shape().len())?;
        let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
        self.record(&out, crate::autograd::GradOp::Stack { dim: d }, &inputs, Vec::new(), &[]);
        Ok(out)
    }

    fn stack_forward(&mut self, tensors: &[Tensor], dim: i64) -> Result<Tensor> {
        let Some(first) = tensors.first() else { bail!(Shape, "stack expects a non-empty TensorList") };
        for (i, t) in tensors.iter().enumerate().skip(1) {
            if t.shape() != first.shape() {
                bail!(
                    Shape,
                    "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                    first.shape(),
                    t.shape()
                );
            }
        }
        let axis = wrap_dim(dim, first.shape().len() + 1)?;
        let mut shape = first.shape().to_vec();
        // Before the last dim, PyTorch's stack is `cat` along `dim` viewed as the stacked
        // sizes: the result takes the inputs' memory format, split by the view's strides
        // (two channels-last `(4, 2, 1, 4)` give `(32, 8, 1, 8, 2)`).
        if axis < shape.len() {
            let cat = self.cat_forward(tensors, axis as i64)?;
            let mut sizes = shape.clone();
            sizes.insert(axis, tensors.len());
            let stacked: Vec<i64> = sizes.iter().map(|&n| n as i64).collect();
            let layout = cat.layout().view(&stacked)?;
            let node = self.movement(cat.node(), Op::Reshape(sizes));
            return self.computed_as(node, layout);
        }
        shape.insert(axis, 1);
        let dtype = {
            let ops: Vec<Operand> = tensors.iter().map(|t| Operand::Tensor(t.clone())).collect();
            let refs: Vec<&Operand> = ops.iter().collect();
            self.promote(&refs)
        };
        let mut parts = Vec::with_capacity(tensors.len());
        for t in tensors {
            let t = self.resolve(t);
            parts.push((self.movement(t.node(), Op::Reshape(shape.clone())), t.dtype(), 1));
        }
        self.concat(&parts, &shape, axis, dtype)
    }
}
