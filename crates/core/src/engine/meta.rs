//! In-place metadata ops and storage surgery, and the memory-format forms of the copying ops.
//!
//! A metadata op (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `as_strided_`, `resize_`,
//! `set_`) returns the same Python object reading differently (see [`crate::identity`]) and
//! bumps its version counter once, as PyTorch does; the caller rebinds every name bound to
//! that object. `resize_` grows a storage in place (zero-filled here, uninitialised in PyTorch)
//! and never shrinks it, so every view of it sees the larger storage.
//!
//! The format forms follow ATen: `contiguous(memory_format=f)` is the tensor itself when it is
//! already contiguous in `f`; `clone(memory_format=f)` and the `*_like` factories always
//! allocate, in `f`'s dense strides or, for `preserve_format`, `empty_like`'s; `to()` returns
//! the tensor itself when neither the dtype nor the suggested memory format changes.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::tensor::{restride_view, Aliasing, Bridge, Engine, StorageRef, Tensor};
use crate::torch::format::MemoryFormat;
use crate::torch::layout::Layout;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::Op;

impl Engine {
    /// `new` as the in-place result of a metadata op on `t`: `t`'s object, one version later.
    fn metadata_result(&mut self, t: &Tensor, new: Tensor) -> Result<Tensor> {
        // The view op recorded its node on `new`'s object: the target's history becomes it,
        // under the in-place op's name (`y.t_()` has `TBackward1`). A leaf requiring grad
        // refuses, as PyTorch does.
        if let Some(node) = self.autograd().grad_fn(&new) {
            if self.autograd().is_leaf(t) {
                bail!(Autograd, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
            }
            self.check_inplace(t)?;
            self.take_history(t, node);
            let renamed = match self.grad_fn_name(t) {
                Some("TBackward0") => Some("TBackward1"),
                Some("TransposeBackward0") => Some("TransposeBackward1"),
                Some("UnsqueezeBackward0") => Some("UnsqueezeBackward1"),
                _ => None,
            };
            if let Some(n) = renamed {
                self.rename_grad_fn(t, n);
            }
        }
        let out = new.into_object(t);
        self.ids.bump(out.counter);
        Ok(out)
    }

    /// `t` with a version counter of its own at 0: the result of a functional op built from
    /// a copy and an in-place write (the write is internal, as in PyTorch's own kernel).
    pub fn with_fresh_counter(&mut self, t: &Tensor) -> Tensor {
        let counter = self.ids.fresh_counter();
        t.clone().into_fresh_owner(t.object, counter)
    }

    /// `t.t_()`.
    pub fn t_inplace(&mut self, t: &Tensor) -> Result<Tensor> {
        if t.shape().len() > 2 {
            bail!(Shape, "t_() expects a tensor with <= 2 dimensions, but self is {}D", t.shape().len());
        }
        let v = self.t_2d(t)?;
        self.metadata_result(t, v)
    }

    /// `t.transpose_(dim0, dim1)` (also `swapdims_`, `swapaxes_`).
    pub fn transpose_inplace(&mut self, t: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
        let v = self.transpose(t, dim0, dim1)?;
        self.metadata_result(t, v)
    }

    /// `t.squeeze_(dims)`.
    pub fn squeeze_inplace(&mut self, t: &Tensor, dims: Option<&[i64]>) -> Result<Tensor> {
        let v = self.squeeze(t, dims)?;
        self.metadata_result(t, v)
    }

    /// `t.unsqueeze_(dim)`.
    pub fn unsqueeze_inplace(&mut self, t: &Tensor, dim: i64) -> Result<Tensor> {
        let v = self.unsqueeze(t, dim)?;
        self.metadata_result(t, v)
    }

    /// `t.as_strided_(size, stride, storage_offset)`.
    pub fn as_strided_inplace(
        &mut self,
        t: &Tensor,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
        let v = self.as_strided(t, size, stride, storage_offset)?;
        self.metadata_result(t, v)
    }

    /// `t` over storage `s` with `layout`, as the object `t` (the tracker reads the storage
    /// through the layout, as tinygrad's bridge would after `as_strided`).
    fn restrided(&mut self, t: &Tensor, s: StorageRef, layout: Layout) -> Result<Tensor> {
        let tg = ShapeTracker::from_view(restride_view(&layout));
        let bridge = Bridge::fresh(layout.sizes());
        let new = self.over_storage(s, t.dtype(), layout, Aliasing::Owner, tg, bridge);
        self.metadata_result(t, new)
    }

    /// `t.resize_(sizes)`: contiguous strides at `t`'s offset; the storage grows in place to
    /// hold them and keeps its elements; it never shrinks.
    pub fn resize_inplace(&mut self, t: &Tensor, sizes: &[usize]) -> Result<Tensor> {
        if self.ag.requires_grad(t) {
            bail!(Autograd, "cannot resize variables that require grad");
        }
        crate::limits::check_numel(sizes)?;
        let layout = Layout::new(sizes, Layout::contiguous(sizes).strides(), t.layout().offset());
        let s = self.storage_id(t)?;
        let need = usize::try_from(layout.offset()).unwrap_or(usize::MAX).saturating_add(layout.numel());
        if need > self.storages[s].data.len() {
            crate::limits::check_numel(&[need])?;
            self.reserve_growth(s, need)?;
            self.grow_storage(s, need);
        }
        let t = self.resolve(t);
        self.restrided(&t, StorageRef::Realized(s), layout)
    }

    /// `resize_output(out, sizes)`, which an op runs on an `out=` tensor of another shape:
    /// [`Engine::resize_inplace`] below autograd, so the version counter stays.
    pub fn resize_output(&mut self, t: &Tensor, sizes: &[usize]) -> Result<Tensor> {
        let out = self.resize_inplace(t, sizes)?;
        self.ids.unbump(out.counter);
        Ok(out)
    }

    /// Storage `s` grown in place to `len` elements, the new ones zero.
    fn grow_storage(&mut self, s: usize, len: usize) {
        let old = &self.storages[s].data;
        let mut grown = Data::zeros(old.dtype(), len);
        let kept: Vec<i64> = (0..old.len() as i64).collect();
        grown.scatter(&kept, old);
        let dtype = grown.dtype();
        self.storages[s].data = grown;
        // Later reads of the whole storage see the new length.
        self.buffer_nodes[s] = self.graph.push(Op::Buffer(s), dtype, vec![len], vec![]);
        self.events.push(crate::tensor::Event::Host { storage: s });
    }

    /// `t.set_(src)`: `t` reads `src`'s storage with `src`'s layout, keeping its own counter.
    pub fn set_to(&mut self, t: &Tensor, src: &Tensor) -> Result<Tensor> {
        check_set_dtype(t.dtype(), src.dtype())?;
        let src = self.resolve(src);
        let v = self.torch_view(&src, src.layout().clone(), src.tinygrad().clone(), 0)?;
        self.metadata_result(t, v)
    }

    /// `t.set_(src.untyped_storage(), offset, size, stride)`; without a size, the whole storage
    /// as one dim.
    pub fn set_storage(
        &mut self,
        t: &Tensor,
        src: &Tensor,
        offset: i64,
        geometry: Option<(&[i64], &[i64])>,
    ) -> Result<Tensor> {
        check_set_dtype(t.dtype(), src.dtype())?;
        let numel = self.storage_numel(src)?;
        let (size, stride) = match geometry {
            Some((size, stride)) => (size.to_vec(), stride.to_vec()),
            None => (vec![numel as i64], vec![1]),
        };
        let layout = src.layout().as_strided(&size, &stride, Some(offset))?;
        layout.check_storage_bounds(numel, src.dtype().itemsize())?;
        let src = self.resolve(src);
        self.restrided(t, src.storage(), layout)
    }

    /// `t.set_()`: an empty tensor over a fresh empty storage.
    pub fn set_empty(&mut self, t: &Tensor) -> Result<Tensor> {
        let empty = self.from_data(Data::zeros(t.dtype(), 0), &[0])?;
        self.metadata_result(t, empty)
    }

    /// `t.detach_()`: nothing to change without autograd, but PyTorch refuses views.
    pub fn detach_inplace(&mut self, t: &Tensor) -> Result<Tensor> {
        if t.is_view() {
            bail!(Unsupported, "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
        }
        Ok(self.resolve(t))
    }

    /// `t.data`: the same storage and layout as a new object that is not a view, with a
    /// version counter of its own.
    pub fn data_alias(&mut self, t: &Tensor) -> Result<Tensor> {
        let v = self.alias(t)?;
        let (object, counter) = (self.ids.fresh_object(), self.ids.fresh_counter());
        Ok(v.into_fresh_owner(object, counter))
    }

    /// `t._base`: the tensor a view was made from (the root of a chain of views), over the
    /// view's storage; `None` for a tensor that is not a view.
    pub fn base_of(&mut self, t: &Tensor) -> Option<Tensor> {
        let base = t.base.clone()?;
        let t = self.resolve(t);
        let b = self.over_storage(
            t.storage(),
            base.dtype(),
            base.layout().clone(),
            Aliasing::Owner,
            base.tinygrad().clone(),
            base.bridge().clone(),
        );
        Some(b.into_object(&base))
    }

    /// `t` rebuilt over its storage's current buffer (after another alias grew the storage).
    pub fn refresh(&mut self, t: &Tensor) -> Tensor {
        let t = self.resolve(t);
        let b = self.over_storage(
            t.storage(),
            t.dtype(),
            t.layout().clone(),
            Aliasing::Owner,
            t.tinygrad().clone(),
            t.bridge().clone(),
        );
        b.into_object(&t)
    }

    /// Bytes in `t`'s storage (`t.untyped_storage().nbytes()`).
    pub fn storage_nbytes(&mut self, t: &Tensor) -> Result<usize> {
        Ok(self.storage_numel(t)? * t.dtype().itemsize())
    }

    // ------------------------------------------------------------ memory formats

    /// `t.contiguous(memory_format=format)`: `t` itself when it already is.
    /// Under the bridge every tensor reports row-major strides, so `contiguous()` is `t` itself;
    /// PyTorch's copy still reports the source's bridge metadata (the bridge hands back the
    /// source).
    pub fn contiguous_as(&mut self, t: &Tensor, format: MemoryFormat) -> Result<Tensor> {
        let bridge_self = self.is_bridge() && format == MemoryFormat::Contiguous;
        if bridge_self || t.layout().is_contiguous_as(format) {
            return Ok(self.resolve(t));
        }
        if format == MemoryFormat::Preserve {
            bail!(Unsupported, "preserve memory format is unsupported by the contiguous operator");
        }
        let mut out = self.clone_as(t, format)?;
        if format == MemoryFormat::Contiguous {
            out.set_bridge(t.bridge().clone());
        }
        Ok(out)
    }

    /// `t.clone(memory_format=format)`: always a copy.
    pub fn clone_as(&mut self, t: &Tensor, format: MemoryFormat) -> Result<Tensor> {
        if format == MemoryFormat::Preserve {
            return self.copy(t);
        }
        let layout = format.dense_layout(t.shape())?;
        let t = self.resolve(t);
        let node = self.graph.push(Op::Contiguous, t.dtype(), t.shape().to_vec(), vec![t.node()]);
        let out = self.computed_as(node, layout)?;
        self.record(&out, crate::autograd::GradOp::Clone, &[Some(&t)], Vec::new(), &[]);
        Ok(out)
    }

    /// `t.to(dtype, memory_format=format)`: `t` itself when the dtype stays and the format is
    /// preserve or the one `t` already suggests (ATen's `to_will_alias`), else a copy.
    pub fn to_as(&mut self, t: &Tensor, dtype: DType, format: MemoryFormat) -> Result<Tensor> {
        let keeps_format = format == MemoryFormat::Preserve || t.layout().suggest_memory_format() == format;
        if dtype == t.dtype() && keeps_format {
            return Ok(self.resolve(t));
        }
        if format == MemoryFormat::Preserve {
            return self.cast(t, dtype);
        }
        let layout = format.dense_layout(t.shape())?;
        let t = self.resolve(t);
        let node = self.cast_node(t.node(), t.dtype(), dtype);
        let node = self.graph.push(Op::Contiguous, dtype, t.shape().to_vec(), vec![node]);
        self.computed_as(node, layout)
    }

    /// `full_like(t, value, dtype, memory_format=format)` (and `zeros_like`, ...).
    pub fn full_like_as(&mut self, t: &Tensor, value: Scalar, dtype: DType, format: MemoryFormat) -> Result<Tensor> {
        if format == MemoryFormat::Preserve {
            return self.full_like(t, value, dtype);
        }
        let layout = format.dense_layout(t.shape())?;
        self.full_as(layout, value, dtype)
    }

    /// A fresh tensor of `layout`'s dense strides holding `value` everywhere
    /// (`torch.empty(..., memory_format=)`, zero-filled).
    pub fn full_as(&mut self, layout: Layout, value: Scalar, dtype: DType) -> Result<Tensor> {
        let shape = layout.sizes().to_vec();
        let t = self.full(&shape, value, Some(dtype))?;
        // Every element holds `value`, so the dense storage reads the same in any order.
        let (tg, bridge) = (ShapeTracker::from_shape(&shape), Bridge::fresh(&shape));
        Ok(self.over_storage(t.storage(), dtype, layout, Aliasing::Owner, tg, bridge))
    }
}

/// PyTorch's `set_` refuses another dtype, naming both as C types.
fn check_set_dtype(dst: DType, src: DType) -> Result<()> {
    if dst != src {
        bail!(DType, "Could not set tensor of type {} to a tensor of type {}", c_type(src), c_type(dst));
    }
    Ok(())
}

fn c_type(d: DType) -> &'static str {
    match d.torch_name() {
        "Float" => "float",
        "Long" => "long int",
        "Byte" => "unsigned char",
        "Bool" => "bool",
        other => other,
    }
}
