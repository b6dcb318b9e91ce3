//! The functional scatter ops: `select_scatter`, `slice_scatter`, `diagonal_scatter`,
//! `as_strided_scatter`. Each is a copy of the input with one view of it replaced by `src`.
//!
//! Built from engine primitives as PyTorch builds them (`TensorShape.cpp`): the input cloned
//! with its strides and offset preserved (the whole storage copied, then the input's layout
//! taken of the copy), the view taken of the clone, and `src` stored through it (cast to the
//! input's dtype). The store is an ordinary `Store` event, so every backend runs it.

use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::strided::wrap_dim;
use crate::tensor::{Bridge, Engine, Operand, OverlapRules, Tensor};
use crate::torch::layout::IndexItem;
use crate::torch::overlap::{has_internal_overlap, MemOverlap};

impl Engine {
    /// `torch.select_scatter(input, src, dim, index)`.
    pub fn select_scatter(&mut self, t: &Tensor, src: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
        self.scatter_through(t, src, |e, out| e.select(out, dim, index))
    }

    /// `torch.slice_scatter(input, src, dim, start, end, step)`.
    pub fn slice_scatter(
        &mut self,
        t: &Tensor,
        src: &Tensor,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        self.scatter_through(t, src, |e, out| {
            if out.shape().is_empty() {
                bail!(Index, "slice() cannot be applied to a 0-dim tensor.");
            }
            if step <= 0 {
                bail!(Index, "slice step must be positive");
            }
            let d = wrap_dim(dim, out.shape().len())?;
            let mut items = vec![IndexItem::Slice { start: None, stop: None, step: None }; d];
            items.push(IndexItem::Slice { start, stop: end, step: Some(step) });
            e.index(out, &items)
        })
    }

    /// `torch.diagonal_scatter(input, src, offset, dim1, dim2)`.
    pub fn diagonal_scatter(&mut self, t: &Tensor, src: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        self.scatter_through(t, src, |e, out| e.diagonal(out, offset, dim1, dim2))
    }

    /// `torch.as_strided_scatter(input, src, size, stride, storage_offset)`: the view is taken
    /// of the clone, whose storage is a copy of the input's whole storage.
    pub fn as_strided_scatter(
        &mut self,
        t: &Tensor,
        src: &Tensor,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
        self.scatter_through(t, src, |e, out| e.as_strided(out, size, stride, storage_offset))
    }

    /// PyTorch's `clone_preserve_strides`: a copy of the input's whole storage viewed with the
    /// input's sizes, strides and offset; a plain clone when the input overlaps itself.
    pub fn clone_preserve_strides(&mut self, t: &Tensor) -> Result<Tensor> {
        if has_internal_overlap(t.layout()) == MemOverlap::Yes {
            return self.copy(t);
        }
        let numel = self.storage_numel(t)? as i64;
        let whole = self.as_strided(t, &[numel], &[1], Some(0))?;
        let copy = self.copy(&whole)?;
        let l = t.layout();
        let sizes: Vec<i64> = l.sizes().iter().map(|&n| n as i64).collect();
        self.as_strided(&copy, &sizes, l.strides(), Some(l.offset()))
    }

    /// The clone of `t`, `view` of it, `src` stored through the view. The result is a fresh
    /// tensor in every model: version 0 in PyTorch, a realized buffer in tinygrad's.
    fn scatter_through(
        &mut self,
        t: &Tensor,
        src: &Tensor,
        view: impl FnOnce(&mut Engine, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        let mut out = self.clone_preserve_strides(t)?;
        let slice = view(self, &out)?;
        if slice.shape() != src.shape() {
            bail!(
                Shape,
                "expected src to have a size equal to the slice of self. src size = {:?}, slice size = {:?}",
                src.shape(),
                slice.shape()
            );
        }
        // `slice.copy_(src)`: TensorIterator's overlap checks, then the store.
        self.check_write_overlap(&slice, std::slice::from_ref(src), OverlapRules::ALL)?;
        let value = self.value_node(&Operand::Tensor(src.clone()), slice.dtype(), slice.shape())?;
        self.write(&slice, value)?;
        // The store bumped the clone's counter; PyTorch's result is a new tensor at version 0.
        let storage = self.storage_id(&out)?;
        self.storages[storage].version = 0;
        out.counter = self.ids.fresh_counter();
        out.set_tinygrad(ShapeTracker::from_shape(out.shape()));
        out.set_bridge(Bridge::fresh(out.shape()));
        // The clone's view is PyTorch's kernel-internal: the result has no `_base`.
        Ok(self.resolve(&out).without_base())
    }
}
