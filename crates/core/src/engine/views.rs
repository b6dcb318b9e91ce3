//! View and movement ops as typed engine calls: PyTorch's view ops (`view`, `reshape`,
//! `permute`, basic indexing, ...), tinygrad's `shrink`/`pad`, and the copies PyTorch makes for
//! `flip`, `contiguous` and a reshape that cannot be a view.
//!
//! Each op computes PyTorch's layout with PyTorch's rules ([`crate::torch::layout`]), tinygrad's
//! tracker with tinygrad's movement ops, and the offset the bridge reports, independently, so
//! the models can disagree. Errors are PyTorch's, and the ops never panic on user input.

use crate::dtype::DType;
use crate::engine::bridge::Semantics;
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::strided::{row_major_strides, wrap_dim};
use crate::tensor::{restride_view, CopyLayout, Engine, Tensor};
use crate::torch::format::MemoryFormat;
use crate::torch::layout::{IndexItem, Layout};
use crate::uop::buffer::Scalar;
use crate::uop::Op;

impl Engine {
    /// `t.view(shape)`: always a view; PyTorch's error when the strides cannot express it.
    pub fn view(&mut self, t: &Tensor, shape: &[i64]) -> Result<Tensor> {
        self.ag.name_view("ViewBackward0");
        let sizes = Layout::infer_size(shape, t.numel())?;
        let tg = t.tinygrad().reshape(&sizes)?;
        let layout = match t.layout().view(shape) {
            Ok(layout) => layout,
            // The bridge's strides are always row-major, so its `aten.view` never refuses.
            Err(_) if self.is_bridge() => return self.unviewable(t, sizes, tg),
            Err(e) => return Err(e),
        };
        self.torch_view(t, layout, tg, 0)
    }

    /// `t.reshape(shape)`: a view where the strides allow one, otherwise a row-major copy.
    pub fn reshape(&mut self, t: &Tensor, shape: &[i64]) -> Result<Tensor> {
        let sizes = Layout::infer_size(shape, t.numel())?;
        let tg = t.tinygrad().reshape(&sizes)?;
        match t.layout().reshape(shape)? {
            Some(layout) => {
                self.ag.name_view("ViewBackward0");
                self.torch_view(t, layout, tg, 0)
            }
            None => {
                self.ag.name_view("UnsafeViewBackward0");
                self.unviewable(t, sizes, tg)
            }
        }
    }

    /// A reshape the strides cannot view: PyTorch's row-major copy; the bridge's `aten.view`,
    /// a tracked view tied to the source's positions ([`Engine::bridge_mirror_view`]).
    fn unviewable(&mut self, t: &Tensor, sizes: Vec<usize>, tg: ShapeTracker) -> Result<Tensor> {
        let copy = self.movement_copy(t, Op::Reshape(sizes), tg, CopyLayout::RowMajor)?;
        if self.is_bridge() {
            return self.bridge_mirror_view(t, copy);
        }
        Ok(copy)
    }

    /// `t.flatten(start_dim, end_dim)`: a view or, like reshape, a copy.
    pub fn flatten(&mut self, t: &Tensor, start_dim: i64, end_dim: i64) -> Result<Tensor> {
        let layout = t.layout().flatten(start_dim, end_dim)?;
        let sizes = flatten_sizes(t.shape(), start_dim, end_dim)?;
        // PyTorch returns the tensor itself when there is nothing to merge (one dim).
        let n = t.shape().len();
        if n > 0 && wrap_dim(start_dim, n)? == wrap_dim(end_dim, n)? {
            return Ok(self.resolve(t));
        }
        self.ag.name_view("ViewBackward0");
        self.reshaped(t, layout, sizes)
    }

    /// `t.unflatten(dim, sizes)`: a view or, like reshape, a copy.
    pub fn unflatten(&mut self, t: &Tensor, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        self.ag.name_view("ViewBackward0");
        let layout = t.layout().unflatten(dim, sizes)?;
        let new_sizes = match &layout {
            Some(l) => l.sizes().to_vec(),
            None => {
                let d = wrap_dim(dim, t.shape().len())?;
                let inner = Layout::infer_size(sizes, t.shape()[d])?;
                t.shape()[..d].iter().chain(inner.iter()).chain(t.shape()[d + 1..].iter()).copied().collect()
            }
        };
        self.reshaped(t, layout, new_sizes)
    }

    /// `t.squeeze(dims)`: `None` drops every size-1 dim.
    pub fn squeeze(&mut self, t: &Tensor, dims: Option<&[i64]>) -> Result<Tensor> {
        self.ag.name_view(match dims {
            None => "SqueezeBackward0",
            Some([_]) => "SqueezeBackward1",
            Some(_) => "SqueezeBackward2",
        });
        let layout = t.layout().squeeze(dims)?;
        let sizes = layout.sizes().to_vec();
        self.reshaped(t, Some(layout), sizes)
    }

    /// `t.unsqueeze(dim)`.
    pub fn unsqueeze(&mut self, t: &Tensor, dim: i64) -> Result<Tensor> {
        self.ag.name_view("UnsqueezeBackward0");
        let layout = t.layout().unsqueeze(dim)?;
        let sizes = layout.sizes().to_vec();
        self.reshaped(t, Some(layout), sizes)
    }

    /// `t.permute(dims)`.
    pub fn permute(&mut self, t: &Tensor, dims: &[i64]) -> Result<Tensor> {
        self.ag.name_view("PermuteBackward0");
        self.permuted(t, |l| l.permute(dims))
    }

    /// `t.transpose(dim0, dim1)` (also `swapaxes`, `swapdims`).
    pub fn transpose(&mut self, t: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
        self.ag.name_view("TransposeBackward0");
        self.permuted(t, |l| l.transpose(dim0, dim1))
    }

    /// `t.t()`: the transpose of a tensor of at most two dims.
    /// The bridge's `aten.t` is tinygrad's `transpose()` (dims 0 and 1) whatever the rank,
    /// which fails on fewer than two dims (PyTorch returns a 1-d tensor itself).
    pub fn t_2d(&mut self, t: &Tensor) -> Result<Tensor> {
        self.ag.name_view("TBackward0");
        if self.is_bridge() && t.shape().len() > 2 {
            return self.permuted(t, |l| l.transpose(0, 1));
        }
        if self.is_bridge() && t.shape().len() < 2 {
            return Err(crate::error::Error::Index("list index out of range".into()));
        }
        self.permuted(t, |l| l.t())
    }

    /// `t.T`: every dim reversed.
    pub fn big_t(&mut self, t: &Tensor) -> Result<Tensor> {
        self.ag.name_view("PermuteBackward0");
        self.permuted(t, |l| l.big_t())
    }

    /// `t.mT`: the last two dims swapped, for matrices and batches of matrices.
    pub fn matrix_t(&mut self, t: &Tensor) -> Result<Tensor> {
        self.ag.name_view("TransposeBackward0");
        if t.shape().len() < 2 {
            bail!(
                Index,
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                t.shape().len()
            );
        }
        self.permuted(t, |l| l.transpose(-2, -1))
    }

    /// `t.movedim(source, destination)` (also `moveaxis`).
    pub fn movedim(&mut self, t: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
        self.ag.name_view("PermuteBackward0");
        self.permuted(t, |l| l.movedim(source, destination))
    }

    /// `t.expand(sizes)`: `-1` keeps a dim, new leading dims broadcast with stride 0.
    pub fn expand(&mut self, t: &Tensor, sizes: &[i64]) -> Result<Tensor> {
        self.ag.name_view("ExpandBackward0");
        // The bridge's `aten.expand` is tinygrad's, which aligns fewer sizes than dims to the
        // right and reads each missing leading size as 1 (PyTorch refuses fewer sizes).
        let lead = t.shape().len().saturating_sub(sizes.len());
        let sizes: Vec<i64> = if self.is_bridge() && lead > 0 {
            std::iter::repeat_n(1, lead).chain(sizes.iter().copied()).collect()
        } else {
            sizes.to_vec()
        };
        let sizes = &sizes[..];
        if sizes.len() < t.shape().len() {
            bail!(
                Shape,
                "expand({}{{{:?}}}, size={sizes:?}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                t.dtype().legacy_type(),
                t.shape(),
                sizes.len(),
                t.shape().len()
            );
        }
        let layout = t.layout().expand(sizes)?;
        let new = layout.sizes().to_vec();
        let lead = new.len() - t.shape().len();
        let padded: Vec<usize> = std::iter::repeat_n(1, lead).chain(t.shape().iter().copied()).collect();
        let tg = t.tinygrad().reshape(&padded)?.expand(&new)?;
        self.torch_view(t, layout, tg, 0)
    }

    /// `t.narrow(dim, start, length)`.
    pub fn narrow(&mut self, t: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        self.ag.name_view("SliceBackward0");
        let layout = t.layout().narrow(dim, start, length)?;
        let d = wrap_dim(dim, t.shape().len())?;
        let s = if start < 0 { start + t.shape()[d] as i64 } else { start };
        let mut arg: Vec<(usize, usize)> = t.shape().iter().map(|&n| (0, n)).collect();
        arg[d] = (s as usize, (s + length) as usize);
        let tg = t.tinygrad().shrink(&arg)?;
        let off = s * row_major_strides(t.shape())[d];
        self.torch_view(t, layout, tg, off)
    }

    /// `t.select(dim, index)`: the dim is dropped.
    pub fn select(&mut self, t: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
        self.ag.name_view("SelectBackward0");
        let layout = t.layout().select(dim, index)?;
        let d = wrap_dim(dim, t.shape().len())?;
        let i = if index < 0 { index + t.shape()[d] as i64 } else { index } as usize;
        let mut arg: Vec<(usize, usize)> = t.shape().iter().map(|&n| (0, n)).collect();
        arg[d] = (i, i + 1);
        let tg = t.tinygrad().shrink(&arg)?.reshape(layout.sizes())?;
        let off = i as i64 * row_major_strides(t.shape())[d];
        self.torch_view(t, layout, tg, off)
    }

    /// `t.diagonal(offset, dim1, dim2)`: tinygrad has no movement op for it, so its tracker
    /// gets the strided view pushed.
    pub fn diagonal(&mut self, t: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        self.ag.name_view("DiagonalBackward0");
        let layout = t.layout().diagonal(offset, dim1, dim2)?;
        let rel = Layout::contiguous(t.shape()).diagonal(offset, dim1, dim2)?;
        let tg = t.tinygrad().push(restride_view(&rel))?;
        // The bridge's offset is tinygrad's shrink on the permuted (..., dim1, dim2) shape: the
        // last dim by `offset`, or the one before by `-offset` rows of dim2's size (a size-1
        // dim has stride 0 there).
        let n = t.shape().len();
        let (n1, n2) = (t.shape()[wrap_dim(dim1, n)?] as i64, t.shape()[wrap_dim(dim2, n)?] as i64);
        let bridge_offset = if offset >= 0 {
            if n2 == 1 {
                0
            } else {
                offset
            }
        } else if n1 == 1 {
            0
        } else {
            -offset * if n2 == 1 { 0 } else { n2 }
        };
        self.torch_view(t, layout, tg, bridge_offset)
    }

    /// `t.unfold(dimension, size, step)`: windows as a new last dim (a pushed strided view in
    /// tinygrad's tracker).
    pub fn unfold(&mut self, t: &Tensor, dimension: i64, size: i64, step: i64) -> Result<Tensor> {
        self.ag.name_view("UnfoldBackward0");
        let layout = t.layout().unfold(dimension, size, step)?;
        let tg = t.tinygrad().push(restride_view(&Layout::contiguous(t.shape()).unfold(dimension, size, step)?))?;
        let viewed_before = self.storage_id(t).map(|s| self.viewed.contains(&s));
        let view = self.torch_view(t, layout, tg, 0)?;
        if !self.is_bridge() {
            return Ok(view);
        }
        // `aten.unfold` is outside the bridge's view table: a new tensor, untracked, and no
        // view of its source.
        if let (Ok(false), Ok(s)) = (viewed_before, self.storage_id(t)) {
            self.viewed.remove(&s);
        }
        let mut copy = self.copy(&view)?;
        self.bridge_movement(&copy);
        copy.set_bridge(view.bridge().clone());
        copy.set_tinygrad(view.tinygrad().clone());
        Ok(copy)
    }

    /// `t.as_strided(size, stride, storage_offset)`: any layout within the storage's bounds.
    pub fn as_strided(
        &mut self,
        t: &Tensor,
        size: &[i64],
        stride: &[i64],
        storage_offset: Option<i64>,
    ) -> Result<Tensor> {
        // The bridge's default offset is the offset it reports, and it indexes its canonical
        // base's elements in row-major order: its storage, which the bridge keeps row-major.
        let storage_offset = match self.semantics() {
            Semantics::Bridge => Some(storage_offset.unwrap_or(t.bridge().offset)),
            Semantics::Torch => storage_offset,
        };
        let layout = t.layout().as_strided(size, stride, storage_offset)?;
        let numel = self.storage_numel(t)?;
        layout.check_storage_bounds(numel, t.dtype().itemsize())?;
        let tg = ShapeTracker::from_view(restride_view(&layout));
        // The bridge computes as_strided as a gather into a new tensor: offset 0, unless it has
        // one element, which it takes by a plain index (`base[storage_offset]`).
        let gathered = if layout.numel() == 1 { layout.offset() } else { 0 };
        let bridge_offset = gathered - t.bridge().offset;
        self.torch_view(t, layout, tg, bridge_offset)
    }

    /// `t.view(dtype)`: the same storage read as `dtype`. Equal element sizes keep the layout;
    /// otherwise the last dim (which must have stride 1) is split or merged by the size ratio and
    /// every other stride and the offset scale with it, as PyTorch's `view_dtype` does.
    pub fn view_dtype(&mut self, t: &Tensor, dtype: DType) -> Result<Tensor> {
        let (from, to) = (t.dtype().itemsize(), dtype.itemsize());
        let l = t.layout();
        let why = format!("to view {} as {} (different element sizes)", t.dtype().torch_name(), dtype.torch_name());
        let (mut sizes, mut strides, offset) =
            (l.sizes().iter().map(|&n| n as i64).collect::<Vec<i64>>(), l.strides().to_vec(), l.offset());
        if from != to {
            let n = sizes.len();
            if n == 0 {
                bail!(View, "self.dim() cannot be 0 {why}");
            }
            if strides[n - 1] != 1 {
                bail!(View, "self.stride(-1) must be 1 {why}, but got {}", strides[n - 1]);
            }
            if from > to {
                let r = (from / to) as i64;
                sizes[n - 1] *= r;
                for s in &mut strides[..n - 1] {
                    *s *= r;
                }
                return self.dtype_view_as(t, dtype, &sizes, &strides, offset * r);
            }
            let r = (to / from) as i64;
            for (i, s) in strides[..n - 1].iter().enumerate() {
                if s % r != 0 {
                    bail!(View, "self.stride({i}) must be divisible by {r} {why}, but got {s}");
                }
            }
            if sizes[n - 1] % r != 0 {
                bail!(View, "self.size(-1) must be divisible by {r} {why}, but got {}", sizes[n - 1]);
            }
            if offset % r != 0 {
                bail!(View, "self.storage_offset() must be divisible by {r} {why}, but got {offset}");
            }
            sizes[n - 1] /= r;
            for s in &mut strides[..n - 1] {
                *s /= r;
            }
            return self.dtype_view_as(t, dtype, &sizes, &strides, offset / r);
        }
        self.dtype_view_as(t, dtype, &sizes, &strides, offset)
    }

    fn dtype_view_as(
        &mut self,
        t: &Tensor,
        dtype: DType,
        sizes: &[i64],
        strides: &[i64],
        offset: i64,
    ) -> Result<Tensor> {
        let layout = t.layout().as_strided(sizes, strides, Some(offset))?;
        self.dtype_view(t, dtype, layout)
    }

    /// Same storage, same layout (`detach`, `.data`).
    /// Neither is a view in PyTorch's sense: the result has no `_base` (`_is_view()` is false).
    pub fn alias(&mut self, t: &Tensor) -> Result<Tensor> {
        self.ag.name_view("AliasBackward0");
        let v = self.torch_view(t, t.layout().clone(), t.tinygrad().clone(), 0)?;
        Ok(v.without_base())
    }

    /// `t.contiguous()`: the tensor itself when it is contiguous, otherwise a row-major copy
    /// ([`Engine::contiguous_as`] with the default format). (`t.clone()` is [`Engine::copy`].)
    pub fn contiguous(&mut self, t: &Tensor) -> Result<Tensor> {
        self.contiguous_as(t, MemoryFormat::Contiguous)
    }

    /// `t.flip(dims)`: a copy in PyTorch (laid out like the source), a movement op in tinygrad.
    pub fn flip(&mut self, t: &Tensor, dims: &[i64]) -> Result<Tensor> {
        self.ag.name_view("FlipBackward0");
        let n = t.shape().len();
        let mut axes = vec![false; n];
        for &d in dims {
            let d = wrap_dim(d, n)?;
            // A 0-d tensor accepts dim 0 or -1 and has nothing to reverse.
            if n == 0 {
                continue;
            }
            if axes[d] {
                bail!(Index, "dim {d} appears multiple times in the list of dims");
            }
            axes[d] = true;
        }
        let tg = t.tinygrad().flip(&axes)?;
        let out = self.movement_copy(t, Op::Flip(axes), tg, CopyLayout::LikeSource)?;
        self.bridge_movement(&out);
        Ok(out)
    }

    /// tinygrad's `shrink`: one `(begin, end)` pair per dim; a view in PyTorch's terms (a
    /// narrow of every dim).
    pub fn shrink(&mut self, t: &Tensor, arg: &[(i64, i64)]) -> Result<Tensor> {
        let shape = t.shape().to_vec();
        if arg.len() != shape.len() {
            bail!(
                Shape,
                "shrink needs one (begin, end) pair per dim: got {} for a {}-D tensor",
                arg.len(),
                shape.len()
            );
        }
        let mut layout = t.layout().clone();
        let mut out = Vec::new();
        let mut bridge_offset = 0;
        let cs = row_major_strides(&shape);
        for (d, &(b, e)) in arg.iter().enumerate() {
            if b < 0 || e < b || e > shape[d] as i64 {
                bail!(Index, "shrink: range ({b}, {e}) out of range for dimension {d} of size {}", shape[d]);
            }
            layout = layout.narrow(d as i64, b, e - b)?;
            bridge_offset += b * cs[d];
            out.push((b as usize, e as usize));
        }
        let tg = t.tinygrad().shrink(&out)?;
        self.torch_view(t, layout, tg, bridge_offset)
    }

    /// Zero padding, one `(before, after)` pair per dim (tinygrad's `pad`; `F.pad` once its
    /// pairs are put in dim order): a row-major copy in PyTorch.
    pub fn pad(&mut self, t: &Tensor, arg: &[(i64, i64)], value: Option<Scalar>) -> Result<Tensor> {
        self.ag.name_view("ConstantPadNdBackward0");
        if arg.len() != t.shape().len() {
            bail!(
                Shape,
                "pad needs one (before, after) pair per dim: got {} for a {}-D tensor",
                arg.len(),
                t.shape().len()
            );
        }
        if arg.iter().any(|&(b, a)| b < 0 || a < 0) {
            bail!(Unsupported, "negative padding (cropping) is not supported; use shrink or slicing");
        }
        if value.is_some_and(|v| v.as_f64() != 0.0) {
            bail!(Unsupported, "pad with a non-zero value is not supported");
        }
        let arg: Vec<(usize, usize)> = arg.iter().map(|&(b, a)| (b as usize, a as usize)).collect();
        let tg = t.tinygrad().pad(&arg)?;
        self.movement_copy(t, Op::Pad(arg), tg, CopyLayout::RowMajor)
    }

    /// Basic indexing (`t[items]`): PyTorch's layout from the index items, tinygrad's tracker
    /// from shrinks, reshapes and (for steps) a pushed strided view.
    pub fn index(&mut self, t: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
        let layout = t.layout().index(items)?;
        let shape = t.shape().to_vec();
        let cs = row_major_strides(&shape);
        // Expand the ellipsis to the dims no other item consumes.
        let consumed = items.iter().filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. })).count();
        // PyTorch lets the first `...` take the free dims; any later one stands for none.
        let mut expanded = Vec::new();
        let mut seen_ellipsis = false;
        for it in items {
            match it {
                IndexItem::Ellipsis if !seen_ellipsis => {
                    seen_ellipsis = true;
                    let full = IndexItem::Slice { start: None, stop: None, step: None };
                    expanded.extend(std::iter::repeat_n(full, shape.len().saturating_sub(consumed)));
                }
                IndexItem::Ellipsis => {}
                other => expanded.push(other.clone()),
            }
        }
        let mut shrink = Vec::with_capacity(shape.len());
        let mut out_shape = Vec::new();
        let mut stepped = false;
        let mut bridge_offset = 0i64;
        let mut dim = 0;
        for it in &expanded {
            match it {
                IndexItem::NewAxis => out_shape.push(1),
                IndexItem::Int(i) => {
                    let n = shape[dim] as i64;
                    let i = if *i < 0 { i + n } else { *i } as usize;
                    shrink.push((i, i + 1));
                    bridge_offset += i as i64 * cs[dim];
                    dim += 1;
                }
                IndexItem::Slice { start, stop, step } => {
                    let (s, e) = norm_slice(*start, *stop, shape[dim]);
                    let step = step.unwrap_or(1);
                    stepped |= step != 1;
                    shrink.push((s, e));
                    out_shape.push(((e - s) as i64 + step - 1).max(0) as usize / step.max(1) as usize);
                    bridge_offset += s as i64 * cs[dim];
                    dim += 1;
                }
                IndexItem::Ellipsis => unreachable!("expanded above"),
            }
        }
        for &n in &shape[dim..] {
            shrink.push((0, n));
            out_shape.push(n);
        }
        let tg = if stepped {
            t.tinygrad().push(restride_view(&Layout::contiguous(&shape).index(items)?))?
        } else {
            t.tinygrad().shrink(&shrink)?.reshape(&out_shape)?
        };
        // PyTorch applies the items one by one; the grad_fn is the last one's.
        self.ag.name_view(
            match expanded.iter().rev().find(|i| !matches!(i, IndexItem::Slice { start: None, stop: None, step: None }))
            {
                Some(IndexItem::Int(_)) => "SelectBackward0",
                Some(IndexItem::NewAxis) => "UnsqueezeBackward0",
                Some(_) => "SliceBackward0",
                None if expanded.is_empty() => "AliasBackward0",
                None => "SliceBackward0",
            },
        );
        self.torch_view(t, layout, tg, bridge_offset)
    }

    /// The value of `t[items] = src` for a `src` whose shape differs from the indexing result's
    /// `target` shape (PyTorch's `copy_to`): its leading size-1 dims dropped by a view, then
    /// expanded to `target` (expand's errors are PyTorch's for a value that does not fit).
    pub fn setitem_source(&mut self, src: &Tensor, target: &[usize]) -> Result<Tensor> {
        let keep = src.shape().iter().position(|&n| n != 1).unwrap_or(src.shape().len());
        let stripped: Vec<i64> = src.shape()[keep..].iter().map(|&n| n as i64).collect();
        let src = self.view(src, &stripped)?;
        let target: Vec<i64> = target.iter().map(|&n| n as i64).collect();
        self.expand(&src, &target)
    }

    /// Ops that PyTorch computes as a view or a reshape-like copy, and tinygrad as a reshape.
    fn reshaped(&mut self, t: &Tensor, layout: Option<Layout>, sizes: Vec<usize>) -> Result<Tensor> {
        let tg = t.tinygrad().reshape(&sizes)?;
        match layout {
            Some(l) => self.torch_view(t, l, tg, 0),
            None => self.unviewable(t, sizes, tg),
        }
    }

    /// A view whose tinygrad form is a permutation: the permutation is read off the layout op
    /// applied to stand-in strides 0, 1, 2, ... (each stride names the source dim it came from).
    fn permuted(&mut self, t: &Tensor, f: impl Fn(&Layout) -> Result<Layout>) -> Result<Tensor> {
        let layout = f(t.layout())?;
        let ids: Vec<i64> = (0..t.shape().len() as i64).collect();
        let perm: Vec<usize> = f(&Layout::new(t.shape(), &ids, 0))?.strides().iter().map(|&s| s as usize).collect();
        let tg = t.tinygrad().permute(&perm)?;
        self.torch_view(t, layout, tg, 0)
    }
}

/// A Python slice's `start:stop` clamped to a dim of size `n`, as `(start, stop)` with
/// `start <= stop`.
pub fn norm_slice(start: Option<i64>, stop: Option<i64>, n: usize) -> (usize, usize) {
    let n = n as i64;
    let clamp = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let s = start.map_or(0, clamp);
    let e = stop.map_or(n, clamp).max(s);
    (s as usize, e as usize)
}

/// The sizes after `flatten(start, end)` (a 0-d tensor flattens to one element).
fn flatten_sizes(shape: &[usize], start: i64, end: i64) -> Result<Vec<usize>> {
    if shape.is_empty() {
        return Ok(vec![1]);
    }
    let s = wrap_dim(start, shape.len())?;
    let e = wrap_dim(end, shape.len())?;
    if s > e {
        bail!(Index, "flatten() has invalid args: start_dim cannot come after end_dim");
    }
    let mid: usize = shape[s..=e].iter().product();
    Ok(shape[..s].iter().copied().chain(std::iter::once(mid)).chain(shape[e + 1..].iter().copied()).collect())
}
