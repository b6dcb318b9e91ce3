//! Multi-output views: `split`, `split_with_sizes`, `chunk`, `unbind`, `tensor_split` (and
//! `hsplit`/`vsplit`/`dsplit` over it), and `broadcast_tensors`.
//!
//! Each output is a view of the input with its own sizes, strides and offset, built from the
//! single views (`narrow`, `select`, a basic-index slice), so all three models come from those
//! ops. Each output records which output of which op it is ([`OutputOf`]). The rules and the
//! errors are PyTorch's (`TensorShape.cpp`), checked in PyTorch's order.

use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Engine, OutputOf, Tensor};
use crate::torch::layout::IndexItem;

/// The argument of `tensor_split` and `hsplit`/`vsplit`/`dsplit`: a number of sections or the
/// indices to split before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sections {
    Count(i64),
    Indices(Vec<i64>),
}

/// Which of `hsplit` (dim 1, or 0 for a vector), `vsplit` (dim 0) and `dsplit` (dim 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitAxis {
    Horizontal,
    Vertical,
    Depth,
}

impl SplitAxis {
    fn name(self) -> &'static str {
        match self {
            SplitAxis::Horizontal => "hsplit",
            SplitAxis::Vertical => "vsplit",
            SplitAxis::Depth => "dsplit",
        }
    }

    /// The dims the tensor needs, and the dim it splits for a tensor of `ndim` dims.
    fn dims(self, ndim: usize) -> (usize, usize) {
        match self {
            SplitAxis::Horizontal => (1, usize::from(ndim != 1)),
            SplitAxis::Vertical => (2, 0),
            SplitAxis::Depth => (3, 2),
        }
    }
}

/// PyTorch's autograd node for the outputs of `split` (and `chunk`, which calls it).
const SPLIT_NODE: &str = "SplitBackward0";
const SPLIT_WITH_SIZES_NODE: &str = "SplitWithSizesBackward0";
const UNBIND_NODE: &str = "UnbindBackward0";

impl Engine {
    /// `t.split(split_size, dim)`: pieces of `split_size` along `dim`, the last one shorter.
    pub fn split(&mut self, t: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
        let pieces = self.split_pieces(t, split_size, dim)?;
        self.narrow_pieces(t, dim, &pieces, "split", Some(SPLIT_NODE))
    }

    /// `t.split_with_sizes(split_sizes, dim)` (also `split` with a list).
    pub fn split_with_sizes(&mut self, t: &Tensor, split_sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
        self.split_sizes_checked(t, split_sizes, dim)?;
        self.narrow_pieces(t, dim, split_sizes, "split_with_sizes", Some(SPLIT_WITH_SIZES_NODE))
    }

    /// `t.chunk(chunks, dim)`: `split` by `ceil(size / chunks)`, so it may return fewer pieces.
    pub fn chunk(&mut self, t: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
        if t.shape().is_empty() {
            bail!(Shape, "chunk expects at least a 1-dimensional tensor");
        }
        if chunks <= 0 {
            bail!(Shape, "chunk expects `chunks` to be greater than 0, got: {chunks}");
        }
        let dim_size = t.shape()[wrap_dim(dim, t.shape().len())?] as i64;
        let split_size = (dim_size + chunks - 1) / chunks;
        if split_size == 0 && dim_size == 0 {
            // PyTorch goes through split_with_sizes here: `chunks` empty pieces, not one.
            let sizes = vec![0; chunks as usize];
            self.split_sizes_checked(t, &sizes, dim)?;
            return self.narrow_pieces(t, dim, &sizes, "chunk", Some(SPLIT_WITH_SIZES_NODE));
        }
        let pieces = self.split_pieces(t, split_size, dim)?;
        self.narrow_pieces(t, dim, &pieces, "chunk", Some(SPLIT_NODE))
    }

    /// `t.unbind(dim)`: every index along `dim`, selected.
    pub fn unbind(&mut self, t: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
        // PyTorch wraps the dim as if a 0-d tensor had one dim, then asks for that dim's size.
        let d = wrap_dim(dim, t.shape().len())?;
        if t.shape().is_empty() {
            bail!(Index, "Dimension specified as 0 but tensor has no dimensions");
        }
        let n = t.shape()[d];
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let mut piece = self.select(t, d as i64, i as i64)?;
            piece.set_output_of(OutputOf { op: "unbind", index: i, count: n, multi_output_node: Some(UNBIND_NODE) });
            self.name_multi_output(&piece, UNBIND_NODE);
            out.push(piece);
        }
        // One node in PyTorch for every output.
        self.group_as_one_node(&out.iter().collect::<Vec<_>>(), &[t]);
        Ok(out)
    }

    /// `torch.tensor_split(t, sections_or_indices, dim)`: `Count(n)` gives `n` pieces, the first
    /// `size % n` one longer; `Indices` slices between consecutive indices as Python would
    /// (negative indices wrap, out-of-range ones clamp, a smaller index gives an empty piece).
    pub fn tensor_split(&mut self, t: &Tensor, sections: &Sections, dim: i64) -> Result<Vec<Tensor>> {
        self.tensor_split_named(t, sections, dim, "tensor_split")
    }

    /// `torch.hsplit`, `vsplit`, `dsplit`: `tensor_split` along dim 1 (0 for a vector), 0 or 2,
    /// where a number of sections must divide the dim.
    pub fn axis_split(&mut self, t: &Tensor, axis: SplitAxis, sections: &Sections) -> Result<Vec<Tensor>> {
        let name = axis.name();
        let ndim = t.shape().len();
        let (min_dims, dim) = axis.dims(ndim);
        if ndim < min_dims {
            bail!(
                Shape,
                "torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with {ndim} dimensions!"
            );
        }
        if let Sections::Count(n) = sections {
            let size = t.shape()[dim] as i64;
            if *n == 0 || size % n != 0 {
                bail!(
                    Shape,
                    "torch.{name} attempted to split along dimension {dim}, but the size of the dimension {size} is not divisible by the split_size {n}!"
                );
            }
        }
        self.tensor_split_named(t, sections, dim as i64, name)
    }

    /// `torch.broadcast_tensors(*tensors)`: each expanded to the common shape; a tensor that has
    /// that shape already is returned itself, not a view.
    pub fn broadcast_tensors(&mut self, tensors: &[Tensor]) -> Result<Vec<Tensor>> {
        let shapes: Vec<&[usize]> = tensors.iter().map(Tensor::shape).collect();
        let shape = Engine::broadcast_shapes(&shapes)?;
        let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
        tensors.iter().map(|t| if t.shape() == shape { Ok(t.clone()) } else { self.expand(t, &sizes) }).collect()
    }

    /// The piece lengths of `split(split_size, dim)`, after PyTorch's checks.
    fn split_pieces(&mut self, t: &Tensor, split_size: i64, dim: i64) -> Result<Vec<i64>> {
        if t.shape().is_empty() {
            bail!(Shape, "split expects at least a 1-dimensional tensor");
        }
        if split_size < 0 {
            bail!(Shape, "split expects split_size be non-negative, but got split_size={split_size}");
        }
        let dim_size = t.shape()[wrap_dim(dim, t.shape().len())?] as i64;
        if split_size == 0 && dim_size != 0 {
            bail!(Shape, "split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}");
        }
        // One piece when split_size is 0 (an empty dim) or larger than the dim.
        let num_splits = if split_size == 0 { 1 } else { ((dim_size + split_size - 1) / split_size).max(1) };
        let last = split_size - (split_size * num_splits - dim_size);
        Ok((0..num_splits).map(|i| if i < num_splits - 1 { split_size } else { last }).collect())
    }

    /// `split_with_sizes`' checks: non-negative sizes that add up to the dim.
    fn split_sizes_checked(&mut self, t: &Tensor, split_sizes: &[i64], dim: i64) -> Result<()> {
        if t.shape().is_empty() {
            bail!(Shape, "split expects at least a 1-dimensional tensor");
        }
        let dim_size = t.shape()[wrap_dim(dim, t.shape().len())?] as i64;
        if split_sizes.iter().any(|&n| n < 0) {
            bail!(
                Shape,
                "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={split_sizes:?}"
            );
        }
        if split_sizes.iter().sum::<i64>() != dim_size {
            bail!(
                Shape,
                "split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size at dimension {dim}), but got split_sizes={split_sizes:?}"
            );
        }
        Ok(())
    }

    /// Consecutive narrows of the given lengths along `dim`, each marked as output i of n.
    fn narrow_pieces(
        &mut self,
        t: &Tensor,
        dim: i64,
        lengths: &[i64],
        op: &'static str,
        multi_output_node: Option<&'static str>,
    ) -> Result<Vec<Tensor>> {
        let mut start = 0;
        let mut out = Vec::with_capacity(lengths.len());
        for (index, &length) in lengths.iter().enumerate() {
            let mut piece = self.narrow(t, dim, start, length)?;
            piece.set_output_of(OutputOf { op, index, count: lengths.len(), multi_output_node });
            if let Some(name) = multi_output_node {
                self.name_multi_output(&piece, name);
            }
            out.push(piece);
            start += length;
        }
        if multi_output_node.is_some() {
            self.group_as_one_node(&out.iter().collect::<Vec<_>>(), &[t]);
        }
        Ok(out)
    }

    fn tensor_split_named(
        &mut self,
        t: &Tensor,
        sections: &Sections,
        dim: i64,
        op: &'static str,
    ) -> Result<Vec<Tensor>> {
        let ndim = t.shape().len();
        if ndim == 0 {
            bail!(Shape, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        }
        if let Sections::Count(n) = sections {
            if *n <= 0 {
                bail!(Shape, "number of sections must be larger than 0, got {n}");
            }
            if *n as u64 > crate::limits::MAX_PIECES as u64 {
                bail!(
                    Limit,
                    "tensor_split into {n} pieces: a split may make at most {} tensors",
                    crate::limits::MAX_PIECES
                );
            }
        }
        let d = wrap_dim(dim, ndim)?;
        let size = t.shape()[d] as i64;
        // (start, stop) per piece, as ATen's slice takes them (it wraps and clamps).
        let bounds: Vec<(i64, i64)> = match sections {
            Sections::Count(n) => {
                let (min, extra) = (size / n, size % n);
                let mut start = 0;
                (0..*n)
                    .map(|i| {
                        let len = if i < extra { min + 1 } else { min };
                        start += len;
                        (start - len, start)
                    })
                    .collect()
            }
            Sections::Indices(indices) => {
                let mut start = 0;
                let mut out: Vec<(i64, i64)> = indices
                    .iter()
                    .map(|&end| {
                        let piece = (start, end);
                        start = end;
                        piece
                    })
                    .collect();
                out.push((start, size));
                out
            }
        };
        let count = bounds.len();
        let mut out = Vec::with_capacity(count);
        for (index, (start, stop)) in bounds.into_iter().enumerate() {
            let mut items = vec![IndexItem::Slice { start: None, stop: None, step: None }; d];
            items.push(IndexItem::Slice { start: Some(start), stop: Some(stop), step: None });
            let mut piece = self.index(t, &items)?;
            piece.set_output_of(OutputOf { op, index, count, multi_output_node: None });
            out.push(piece);
        }
        Ok(out)
    }
}
