//! PyTorch's strided layout and the view ops that transform it.
//!
//! A trace shows what PyTorch would do to `sizes`, `strides` and `storage_offset` for every view
//! op, whether `reshape`/`flatten` can stay a view or must copy, and which error PyTorch raises.
//! The rules follow ATen (`computeStride`, `inferExpandGeometry`, `TensorShape.cpp` and the Python
//! indexing path); the messages are PyTorch's text without the exception-class prefix, and the
//! error kind follows the Python exception: `IndexError`/`ValueError` become [`Error::Index`],
//! a refused `view` becomes [`Error::View`], out-of-range dims, ranges and storage bounds become
//! [`Error::Index`], a negative slice step [`Error::Unsupported`], other errors [`Error::Shape`].

use serde::Serialize;

use crate::error::{bail, Error, Result};
use crate::limits::checked_numel_within;
use crate::strided::{row_major_strides, to_i64, wrap_dim, StridedIndex};

/// One tensor's geometry over its storage, in elements (not bytes).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Layout {
    sizes: Vec<usize>,
    strides: Vec<i64>,
    offset: i64,
}

/// One entry of a basic-indexing subscript `x[...]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexItem {
    Int(i64),
    Slice { start: Option<i64>, stop: Option<i64>, step: Option<i64> },
    NewAxis,
    Ellipsis,
}

/// Whether the element count fits in i64 (PyTorch refuses tensors whose count does not).
fn numel_fits_i64(sizes: &[usize]) -> bool {
    checked_numel_within(sizes, i64::MAX as usize).is_some()
}

/// ATen's `computeStride`: the strides that let `new` read the same elements as `old` in
/// row-major order without a copy, or `None` when some new dim would span two chunks of memory
/// that are not laid out one after the other.
fn compute_stride(old_sizes: &[usize], old_strides: &[i64], new_sizes: &[usize]) -> Option<Vec<i64>> {
    if old_sizes.is_empty() {
        return Some(vec![1; new_sizes.len()]);
    }
    let numel: usize = old_sizes.iter().product();
    if numel == 0 && old_sizes == new_sizes {
        return Some(old_strides.to_vec());
    }
    let mut new_strides = vec![0i64; new_sizes.len()];
    if numel == 0 {
        // An empty tensor reads no memory, so any strides work: PyTorch picks contiguous ones.
        for d in (0..new_sizes.len()).rev() {
            new_strides[d] = if d + 1 == new_sizes.len() {
                1
            } else {
                to_i64(new_sizes[d + 1].max(1)).saturating_mul(new_strides[d + 1])
            };
        }
        return Some(new_strides);
    }
    let mut view_d = new_sizes.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel: i64 = 1;
    let mut view_numel: i64 = 1;
    for tensor_d in (0..old_sizes.len()).rev() {
        tensor_numel = tensor_numel.saturating_mul(to_i64(old_sizes[tensor_d]));
        // A chunk ends where the next-outer dim does not continue it contiguously.
        let chunk_ends = tensor_d == 0
            || (old_sizes[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel.saturating_mul(chunk_base_stride));
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel.saturating_mul(chunk_base_stride);
                view_numel = view_numel.saturating_mul(to_i64(new_sizes[view_d as usize]));
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

impl Layout {
    /// A layout as given. Panics if `sizes` and `strides` differ in length: that is a caller bug,
    /// not a user error.
    pub fn new(sizes: &[usize], strides: &[i64], offset: i64) -> Layout {
        assert_eq!(sizes.len(), strides.len(), "one stride per size");
        Layout { sizes: sizes.to_vec(), strides: strides.to_vec(), offset }
    }

    /// Row-major strides as PyTorch computes them: a size-0 dim counts as 1, so `[2, 0, 3]` gets
    /// `[3, 3, 1]`.
    pub fn contiguous(sizes: &[usize]) -> Layout {
        Layout { sizes: sizes.to_vec(), strides: row_major_strides(sizes), offset: 0 }
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    pub fn offset(&self) -> i64 {
        self.offset
    }

    pub fn numel(&self) -> usize {
        self.sizes.iter().fold(1usize, |acc, &s| acc.saturating_mul(s))
    }

    pub fn ndim(&self) -> usize {
        self.sizes.len()
    }

    /// PyTorch's `is_contiguous()`: size-1 dims may have any stride, an empty tensor is always
    /// contiguous, and the storage offset does not matter.
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected: i64 = 1;
        for (&size, &stride) in self.sizes.iter().zip(&self.strides).rev() {
            if size != 1 {
                if stride != expected {
                    return false;
                }
                expected = expected.saturating_mul(to_i64(size));
            }
        }
        true
    }

    /// PyTorch's `is_non_overlapping_and_dense()`: some permutation of the dims is contiguous.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.is_contiguous() {
            return true;
        }
        if self.ndim() == 1 {
            return self.sizes[0] < 2 || self.strides[0] == 1;
        }
        // Dims of size < 2 go last: they never decide density (and an empty tensor is dense).
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.sort_by_key(|&d| (self.sizes[d] < 2, self.strides[d]));
        let mut required: i64 = 1;
        for d in perm {
            let size = self.sizes[d];
            if size < 2 {
                return true;
            }
            if self.strides[d] != required {
                return false;
            }
            required = required.saturating_mul(to_i64(size));
        }
        true
    }

    /// Whether every element maps to a storage index of its own. A sufficient test (dims sorted
    /// by |stride|, each stride past the farthest index the smaller ones reach), exact for every
    /// layout a view op makes; a layout it cannot prove disjoint is reported as overlapping.
    pub fn is_non_overlapping(&self) -> bool {
        if self.numel() < 2 {
            return true;
        }
        let mut dims: Vec<(i64, usize)> = self
            .sizes
            .iter()
            .zip(&self.strides)
            .filter(|(&n, _)| n > 1)
            .map(|(&n, &s)| (s.saturating_abs(), n))
            .collect();
        dims.sort_unstable();
        let mut reach: i64 = 0;
        for (stride, size) in dims {
            if stride <= reach {
                return false;
            }
            reach = reach.saturating_add(stride.saturating_mul(to_i64(size) - 1));
        }
        true
    }

    /// The lowest and highest storage index an element maps to; `None` for an empty tensor.
    pub fn storage_span(&self) -> Option<(i64, i64)> {
        if self.numel() == 0 {
            return None;
        }
        let (mut lo, mut hi) = (self.offset, self.offset);
        for (&size, &stride) in self.sizes.iter().zip(&self.strides) {
            let reach = stride.saturating_mul(to_i64(size) - 1);
            if reach < 0 {
                lo = lo.saturating_add(reach);
            } else {
                hi = hi.saturating_add(reach);
            }
        }
        Some((lo, hi))
    }

    /// Whether any element's storage index satisfies `f`, stopping at the first that does.
    /// The lowest and highest storage index an element has (`None` when there are none).
    pub fn extent(&self) -> Option<(i64, i64)> {
        if self.numel() == 0 {
            return None;
        }
        let (mut lo, mut hi) = (self.offset, self.offset);
        for (&n, &s) in self.sizes.iter().zip(&self.strides) {
            let reach = (n as i64 - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        Some((lo, hi))
    }

    /// Whether any element's storage index lies in `range`: at once when the extent lies
    /// inside it or outside it, else element by element.
    pub fn any_index_in(&self, range: std::ops::Range<i64>) -> bool {
        match self.extent() {
            None => false,
            Some((lo, hi)) if hi < range.start || lo >= range.end => false,
            Some((lo, hi)) if lo >= range.start && hi < range.end => true,
            Some(_) => self.any_index(|i| range.contains(&i)),
        }
    }

    pub fn any_index(&self, f: impl FnMut(i64) -> bool) -> bool {
        StridedIndex::new(&self.sizes, &self.strides, self.offset).any(f)
    }

    /// The storage index of every element in row-major order. The innermost dim is walked with a
    /// plain stride loop and the outer dims with [`StridedIndex`], so a gather costs one add per
    /// element.
    pub fn storage_indices(&self) -> Vec<i64> {
        let numel = self.numel();
        let mut out = Vec::with_capacity(numel);
        if numel == 0 {
            return out;
        }
        let nd = self.ndim();
        if nd == 0 {
            out.push(self.offset);
            return out;
        }
        let (inner_size, inner_stride) = (self.sizes[nd - 1], self.strides[nd - 1]);
        for base in StridedIndex::new(&self.sizes[..nd - 1], &self.strides[..nd - 1], self.offset) {
            out.extend((0..to_i64(inner_size)).map(|i| base + i * inner_stride));
        }
        out
    }

    /// ATen's `infer_size`: resolves one `-1` so the shape holds `numel` elements.
    pub fn infer_size(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
        let mut known: Option<usize> = Some(1);
        let mut infer_at = None;
        for (i, &s) in shape.iter().enumerate() {
            if s == -1 {
                if infer_at.is_some() {
                    bail!(Shape, "only one dimension can be inferred");
                }
                infer_at = Some(i);
            } else if s >= 0 {
                known = known.and_then(|k| k.checked_mul(s as usize));
            } else {
                bail!(Shape, "invalid shape dimension {s} at index {i} of shape {shape:?}");
            }
        }
        let invalid = || Error::Shape(format!("shape '{shape:?}' is invalid for input of size {numel}"));
        let known = known.ok_or_else(invalid)?;
        let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
        match infer_at {
            None if known == numel => Ok(out),
            Some(_) if known == 0 && numel == 0 => bail!(
                Shape,
                "cannot reshape tensor of 0 elements into shape {shape:?} because the unspecified dimension size -1 can be any value and is ambiguous"
            ),
            Some(i) if numel.checked_rem(known) == Some(0) => {
                out[i] = numel / known;
                Ok(out)
            }
            _ => Err(invalid()),
        }
    }

    /// `Tensor.view(shape)`: always a view, refused when the strides cannot express it.
    pub fn view(&self, shape: &[i64]) -> Result<Layout> {
        let sizes = Self::infer_size(shape, self.numel())?;
        match compute_stride(&self.sizes, &self.strides, &sizes) {
            Some(strides) => Ok(Layout { sizes, strides, offset: self.offset }),
            None => bail!(
                View,
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ),
        }
    }

    /// `Tensor.reshape(shape)`: the view when one exists, `None` when PyTorch copies into a new
    /// contiguous tensor (whose layout is `Layout::contiguous` of the inferred shape).
    pub fn reshape(&self, shape: &[i64]) -> Result<Option<Layout>> {
        let sizes = Self::infer_size(shape, self.numel())?;
        Ok(compute_stride(&self.sizes, &self.strides, &sizes).map(|strides| Layout {
            sizes,
            strides,
            offset: self.offset,
        }))
    }

    /// `Tensor.flatten(start, end)`: merges the dims through `reshape`, so it copies exactly
    /// when reshape would. A 0-d tensor becomes `[1]`; `start == end` returns the input as is.
    pub fn flatten(&self, start: i64, end: i64) -> Result<Option<Layout>> {
        let s = wrap_dim(start, self.ndim())?;
        let e = wrap_dim(end, self.ndim())?;
        if s > e {
            bail!(Shape, "flatten() has invalid args: start_dim cannot come after end_dim");
        }
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        if s == e {
            return Ok(Some(self.clone()));
        }
        let merged: usize = self.sizes[s..=e].iter().product();
        let shape: Vec<i64> = self.sizes[..s]
            .iter()
            .chain(std::iter::once(&merged))
            .chain(&self.sizes[e + 1..])
            .map(|&n| to_i64(n))
            .collect();
        self.reshape(&shape)
    }

    /// `Tensor.unflatten(dim, sizes)`: splits one dim. Splitting is always expressible with
    /// strides, so in practice this never copies; the `Option` mirrors `flatten`.
    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Option<Layout>> {
        if sizes.is_empty() {
            bail!(Shape, "unflatten: sizes must be non-empty");
        }
        let d = wrap_dim(dim, self.ndim())?;
        // PyTorch wraps every failure of the size inference; only an impossible product gets a
        // tailored message, the rest keep the inner text after a fixed preamble.
        let unexpected = |inner: &str| Error::Shape(format!("unflatten got an unexpected error:\n{inner}"));
        let Some(&dim_size) = self.sizes.get(d) else {
            return Err(unexpected(&format!("Dimension specified as {d} but tensor has no dimensions")));
        };
        let inferred = Self::infer_size(sizes, dim_size).map_err(|e| {
            if e.message().contains("is invalid for input of size") {
                Error::Shape(format!(
                    "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {d} ({dim_size}) in the input tensor"
                ))
            } else {
                unexpected(e.message())
            }
        })?;
        let shape: Vec<i64> =
            self.sizes[..d].iter().chain(&inferred).chain(&self.sizes[d + 1..]).map(|&n| to_i64(n)).collect();
        self.reshape(&shape)
    }

    /// `Tensor.permute(dims)`.
    pub fn permute(&self, dims: &[i64]) -> Result<Layout> {
        if dims.len() != self.ndim() {
            // PyTorch's dense permute really reports itself as `permute(sparse_coo)`.
            bail!(
                Index,
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.ndim(),
                dims.len()
            );
        }
        let mut seen = vec![false; self.ndim()];
        let mut sizes = Vec::with_capacity(dims.len());
        let mut strides = Vec::with_capacity(dims.len());
        for &dim in dims {
            let d = wrap_dim(dim, self.ndim())?;
            if seen[d] {
                bail!(Index, "permute(): duplicate dims are not allowed.");
            }
            seen[d] = true;
            sizes.push(self.sizes[d]);
            strides.push(self.strides[d]);
        }
        Ok(Layout { sizes, strides, offset: self.offset })
    }

    /// `Tensor.transpose(d0, d1)`.
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Layout> {
        let a = wrap_dim(d0, self.ndim())?;
        let b = wrap_dim(d1, self.ndim())?;
        let mut out = self.clone();
        if a != b {
            out.sizes.swap(a, b);
            out.strides.swap(a, b);
        }
        Ok(out)
    }

    /// `Tensor.t()`: the identity below 2 dims, refused above.
    pub fn t(&self) -> Result<Layout> {
        if self.ndim() > 2 {
            bail!(Shape, "t() expects a tensor with <= 2 dimensions, but self is {}D", self.ndim());
        }
        self.transpose(0, if self.ndim() < 2 { 0 } else { 1 })
    }

    /// `Tensor.T`: reverses all dims. PyTorch 2.x only warns (deprecation) when the tensor is
    /// not 2-D, and the identity on 0-d and 1-d tensors falls out of the reversal.
    pub fn big_t(&self) -> Result<Layout> {
        let mut out = self.clone();
        out.sizes.reverse();
        out.strides.reverse();
        Ok(out)
    }

    /// `Tensor.movedim(src, dst)`: the listed dims land at their destinations, the others keep
    /// their relative order in the remaining slots.
    pub fn movedim(&self, src: &[i64], dst: &[i64]) -> Result<Layout> {
        if src.len() != dst.len() {
            bail!(
                Shape,
                "movedim: Invalid source or destination dims: source ({src:?} dims) should contain the same number of dims as destination ({dst:?} dims)"
            );
        }
        let n = self.ndim();
        let wrap_all = |dims: &[i64]| dims.iter().map(|&d| wrap_dim(d, n)).collect::<Result<Vec<_>>>();
        let src_w = wrap_all(src)?;
        let dst_w = wrap_all(dst)?;
        let repeated = |dims: &[usize]| {
            let mut seen = std::collections::HashSet::new();
            !dims.iter().all(|d| seen.insert(*d))
        };
        if repeated(&src_w) {
            bail!(Index, "movedim: repeated dim in `source` ({src:?})");
        }
        if repeated(&dst_w) {
            bail!(Index, "movedim: repeated dim in `destination` ({dst:?})");
        }
        if n == 0 {
            return Ok(self.clone());
        }
        let mut order: Vec<Option<usize>> = vec![None; n];
        for (&s, &d) in src_w.iter().zip(&dst_w) {
            order[d] = Some(s);
        }
        let mut rest = (0..n).filter(|d| !src_w.contains(d));
        let perm: Vec<i64> = order.into_iter().map(|slot| slot.or_else(|| rest.next()).map_or(0, to_i64)).collect();
        self.permute(&perm)
    }

    /// `Tensor.expand(sizes)`: broadcast size-1 dims with stride 0, `-1` keeps a size, extra
    /// leading dims are new.
    pub fn expand(&self, sizes: &[i64]) -> Result<Layout> {
        let (n, t) = (sizes.len(), self.ndim());
        if n < t {
            // PyTorch names the tensor type here; a layout has no dtype, so this speaks of the
            // default float tensor.
            bail!(
                Shape,
                "expand(torch.FloatTensor{{{:?}}}, size={sizes:?}): the number of sizes provided ({n}) must be greater or equal to the number of dimensions in the tensor ({t})",
                self.sizes
            );
        }
        if t == 0 {
            // A 0-d tensor broadcasts to any shape with stride 0 everywhere; PyTorch takes the
            // sizes as given, so a -1 there is an invalid size rather than "keep".
            let sizes = usize_sizes(sizes)
                .filter(|s| numel_fits_i64(s))
                .ok_or_else(|| Error::Shape("numel: integer multiplication overflow".into()))?;
            let strides = vec![0; sizes.len()];
            return Ok(Layout { sizes, strides, offset: self.offset });
        }
        let mut out_sizes = vec![0i64; n];
        let mut out_strides = vec![0i64; n];
        for i in (0..n).rev() {
            let existing = (i + t).checked_sub(n);
            let mut size = existing.map_or(1, |d| to_i64(self.sizes[d]));
            let mut stride = match existing {
                Some(d) => self.strides[d],
                None => out_sizes[i + 1].saturating_mul(out_strides[i + 1]),
            };
            let mut target = sizes[i];
            if target == -1 {
                if existing.is_none() {
                    bail!(
                        Shape,
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    );
                }
                target = size;
            }
            if size != target {
                if size != 1 {
                    bail!(
                        Shape,
                        "The expanded size of the tensor ({target}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {sizes:?}.  Tensor sizes: {:?}",
                        self.sizes
                    );
                }
                size = target;
                stride = 0;
            }
            out_sizes[i] = size;
            out_strides[i] = stride;
        }
        let out_sizes = usize_sizes(&out_sizes)
            .filter(|s| numel_fits_i64(s))
            .ok_or_else(|| Error::Shape("numel: integer multiplication overflow".into()))?;
        Ok(Layout { sizes: out_sizes, strides: out_strides, offset: self.offset })
    }

    /// `Tensor.squeeze()` / `squeeze(dims)`: drops size-1 dims; a listed dim of another size
    /// stays (no error).
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Layout> {
        let mut mask = vec![dims.is_none(); self.ndim()];
        // A 0-d tensor accepts dim 0/-1 but has nothing to drop.
        let mut seen_scalar = false;
        for &dim in dims.unwrap_or(&[]) {
            let d = wrap_dim(dim, self.ndim())?;
            let slot = mask.get_mut(d).unwrap_or(&mut seen_scalar);
            if *slot {
                bail!(Shape, "dim {d} appears multiple times in the list of dims");
            }
            *slot = true;
        }
        let keep = |d: &usize| !(mask[*d] && self.sizes[*d] == 1);
        let kept: Vec<usize> = (0..self.ndim()).filter(keep).collect();
        Ok(Layout {
            sizes: kept.iter().map(|&d| self.sizes[d]).collect(),
            strides: kept.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        })
    }

    /// `Tensor.unsqueeze(dim)`: the new size-1 dim takes the stride that keeps the layout
    /// contiguous-looking (`size * stride` of the dim it precedes, 1 at the end).
    pub fn unsqueeze(&self, dim: i64) -> Result<Layout> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        let stride = if d >= self.ndim() { 1 } else { to_i64(self.sizes[d]).saturating_mul(self.strides[d]) };
        let mut out = self.clone();
        out.sizes.insert(d, 1);
        out.strides.insert(d, stride);
        Ok(out)
    }

    /// `Tensor.narrow(dim, start, length)`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Layout> {
        if self.ndim() == 0 {
            bail!(Shape, "narrow() cannot be applied to a 0-dim tensor.");
        }
        if length < 0 {
            bail!(Shape, "narrow(): length must be non-negative.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = to_i64(self.sizes[d]);
        if start < -size || start > size {
            bail!(Index, "start out of range (expected to be in range of [{}, {size}], but got {start})", -size);
        }
        let start = if start < 0 { start + size } else { start };
        if start > size - length {
            bail!(Index, "start ({start}) + length ({length}) exceeds dimension size ({size}).");
        }
        Ok(self.slice_at(d, start, start + length, 1))
    }

    /// `Tensor.select(dim, index)`.
    pub fn select(&self, dim: i64, index: i64) -> Result<Layout> {
        if self.ndim() == 0 {
            bail!(Index, "select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = to_i64(self.sizes[d]);
        if index < -size || index >= size {
            bail!(Index, "select(): index {index} out of range for tensor of size {:?} at dimension {d}", self.sizes);
        }
        Ok(self.select_at(d, if index < 0 { index + size } else { index }))
    }

    fn select_at(&self, d: usize, index: i64) -> Layout {
        let mut out = self.clone();
        out.offset += index * out.strides[d];
        out.sizes.remove(d);
        out.strides.remove(d);
        out
    }

    /// `x[..., start:stop:step]` on one dim (`aten::slice` as basic indexing reaches it):
    /// Python-style clamping of `start`/`stop`; an empty result keeps the clamped start in its
    /// offset. A step of 0 or less is refused with Python's indexing messages.
    pub fn slice(&self, dim: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Layout> {
        if self.ndim() == 0 {
            bail!(Index, "slice() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let step = slice_step(Some(step))?;
        let size = to_i64(self.sizes[d]);
        let clamp = |v: i64| {
            let v = if v < 0 { v.saturating_add(size) } else { v };
            v.clamp(0, size)
        };
        let start = clamp(start.unwrap_or(0));
        let stop = clamp(stop.unwrap_or(i64::MAX)).max(start);
        Ok(self.slice_at(d, start, stop, step))
    }

    /// Slices an already-checked, already-clamped range `start <= stop <= size`.
    fn slice_at(&self, d: usize, start: i64, stop: i64, step: i64) -> Layout {
        let mut out = self.clone();
        out.offset = out.offset.saturating_add(start.saturating_mul(out.strides[d]));
        let len = stop - start;
        out.sizes[d] = if len == 0 { 0 } else { ((len - 1) / step + 1) as usize };
        out.strides[d] = out.strides[d].saturating_mul(step);
        out
    }

    /// Basic indexing `x[items]`. A one-item list is PyTorch's non-tuple path (`x[i]`, whose
    /// 0-d errors differ from `x[(i,)]`); longer lists are the tuple path. Error messages name
    /// an index by its position in the subscript, as PyTorch does.
    pub fn index(&self, items: &[IndexItem]) -> Result<Layout> {
        if let [item] = items {
            return match *item {
                IndexItem::Int(i) => self.index_int(0, i, 0),
                IndexItem::Slice { start, stop, step } => {
                    let step = slice_step(step)?;
                    self.slice(0, start, stop, step)
                }
                IndexItem::NewAxis => self.unsqueeze(0),
                IndexItem::Ellipsis => Ok(self.clone()),
            };
        }
        let specified = items.iter().filter(|it| matches!(it, IndexItem::Int(_) | IndexItem::Slice { .. })).count();
        if specified > self.ndim() {
            bail!(Index, "too many indices for tensor of dimension {}", self.ndim());
        }
        let mut out = self.clone();
        let mut dim = 0usize;
        for (pos, item) in items.iter().enumerate() {
            match *item {
                IndexItem::Int(i) => out = out.index_int(dim, i, pos)?,
                IndexItem::Slice { start, stop, step } => {
                    let step = slice_step(step)?;
                    out = out.slice(to_i64(dim), start, stop, step)?;
                    dim += 1;
                }
                IndexItem::NewAxis => {
                    out = out.unsqueeze(to_i64(dim))?;
                    dim += 1;
                }
                // Each ellipsis skips the unspecified dims; PyTorch accepts several of them.
                IndexItem::Ellipsis => dim += self.ndim() - specified,
            }
        }
        Ok(out)
    }

    /// An integer subscript at `dim`, reported as subscript position `pos`.
    fn index_int(&self, dim: usize, index: i64, pos: usize) -> Result<Layout> {
        if self.ndim() == 0 && index == 0 {
            bail!(
                Index,
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            );
        }
        // PyTorch reports a 0-d tensor's missing dim as size 0.
        let size = self.sizes.get(dim).map_or(0, |&s| to_i64(s));
        if index >= size || index < -size {
            bail!(Index, "index {index} is out of bounds for dimension {pos} with size {size}");
        }
        Ok(self.select_at(dim, if index < 0 { index + size } else { index }))
    }

    /// `Tensor.diagonal(offset, dim1, dim2)`: the diagonal becomes the last dim with stride
    /// `stride1 + stride2`; an empty diagonal leaves the storage offset alone.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Layout> {
        let a = wrap_dim(dim1, self.ndim())?;
        let b = wrap_dim(dim2, self.ndim())?;
        if a == b {
            bail!(Index, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let (sa, sb) = (to_i64(self.sizes[a]), to_i64(self.sizes[b]));
        let diag = if offset >= 0 { sa.min(sb - offset) } else { (sa + offset).min(sb) }.max(0);
        let mut out = self.clone();
        if diag > 0 {
            out.offset += if offset >= 0 {
                offset.saturating_mul(self.strides[b])
            } else {
                offset.saturating_neg().saturating_mul(self.strides[a])
            };
        }
        let (hi, lo) = (a.max(b), a.min(b));
        for d in [hi, lo] {
            out.sizes.remove(d);
            out.strides.remove(d);
        }
        out.sizes.push(diag as usize);
        out.strides.push(self.strides[a] + self.strides[b]);
        Ok(out)
    }

    /// `Tensor.unfold(dim, size, step)`: windows of `size` every `step` along `dim`, the window
    /// becomes a new last dim. Overlapping windows share storage.
    pub fn unfold(&self, dim: i64, size: i64, step: i64) -> Result<Layout> {
        let d = wrap_dim(dim, self.ndim())?;
        let max_size = self.sizes.get(d).map_or(1, |&s| to_i64(s));
        if size > max_size {
            bail!(Shape, "maximum size for tensor at dimension {d} is {max_size} but size is {size}");
        }
        if size < 0 {
            bail!(Shape, "size is {size} but must be >= 0");
        }
        if step <= 0 {
            bail!(Shape, "step is {step} but must be > 0");
        }
        let mut out = self.clone();
        if self.ndim() == 0 {
            out.sizes.push(size as usize);
            out.strides.push(1);
        } else {
            out.sizes[d] = ((max_size - size) / step + 1) as usize;
            out.strides[d] = step.saturating_mul(self.strides[d]);
            out.sizes.push(size as usize);
            out.strides.push(self.strides[d]);
        }
        Ok(out)
    }

    /// `Tensor.as_strided(sizes, strides, offset)`; `None` keeps this layout's storage offset.
    /// Whether the result fits the storage is [`Layout::check_storage_bounds`]' job, since a
    /// layout does not know its storage's length.
    pub fn as_strided(&self, sizes: &[i64], strides: &[i64], offset: Option<i64>) -> Result<Layout> {
        if sizes.len() != strides.len() {
            bail!(Shape, "mismatch in length of strides and shape");
        }
        if strides.iter().any(|&s| s < 0) {
            bail!(Shape, "as_strided: Negative strides are not supported at the moment, got strides: {strides:?}");
        }
        // A negative size wraps to a huge unsigned count in PyTorch's storage-size arithmetic:
        // with a nonzero stride that overflows, with stride 0 the element count does.
        if let Some(i) = sizes.iter().position(|&s| s < 0) {
            if strides[i] != 0 {
                bail!(Shape, "Storage size calculation overflowed with sizes={sizes:?} and strides={strides:?}");
            }
            bail!(Shape, "numel: integer multiplication overflow");
        }
        let usizes = usize_sizes(sizes)
            .filter(|s| numel_fits_i64(s))
            .ok_or_else(|| Error::Shape("numel: integer multiplication overflow".into()))?;
        let offset = offset.unwrap_or(self.offset);
        if offset < 0 {
            bail!(Shape, "Tensor: invalid storage offset {offset}");
        }
        Ok(Layout { sizes: usizes, strides: strides.to_vec(), offset })
    }

    /// PyTorch's storage bounds check for `as_strided` (and `set_`): the layout must fit in a
    /// storage of `storage_numel` elements of `itemsize` bytes. An empty layout always fits.
    pub fn check_storage_bounds(&self, storage_numel: usize, itemsize: usize) -> Result<()> {
        let needed = match self.storage_span() {
            None => 0,
            Some((lo, hi)) if lo >= 0 => hi.saturating_add(1),
            Some(_) => i64::MAX,
        };
        let have = to_i64(storage_numel);
        if needed > have {
            let item = to_i64(itemsize);
            bail!(
                Index,
                "setStorage: sizes {:?}, strides {:?}, storage offset {}, and itemsize {item} requiring a storage size of {} are out of bounds for storage of size {}",
                self.sizes,
                self.strides,
                self.offset,
                needed.saturating_mul(item),
                have.saturating_mul(item)
            );
        }
        Ok(())
    }
}

/// Python's slice-step rules as PyTorch's indexing applies them.
fn slice_step(step: Option<i64>) -> Result<i64> {
    match step.unwrap_or(1) {
        0 => bail!(Index, "slice step cannot be zero"),
        // PyTorch does not support negative steps at all (a ValueError, not a range error).
        s if s < 0 => bail!(Unsupported, "step must be greater than zero"),
        s => Ok(s),
    }
}

/// Sizes as usize, or `None` if any is negative.
fn usize_sizes(sizes: &[i64]) -> Option<Vec<usize>> {
    sizes.iter().map(|&s| usize::try_from(s).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_index_in_agrees_with_a_walk() {
        let layouts = [
            Layout::new(&[3, 4], &[4, 1], 2),
            Layout::new(&[4, 3], &[1, 4], 0),
            Layout::new(&[2, 3], &[-3, 1], 3),
            Layout::new(&[5], &[0], 7),
            Layout::new(&[0, 2], &[2, 1], 0),
            Layout::new(&[], &[], 5),
        ];
        for l in &layouts {
            for a in -2..16 {
                for b in a..18 {
                    let walk = l.any_index(|i| (a..b).contains(&i));
                    assert_eq!(l.any_index_in(a..b), walk, "{l:?} in {a}..{b}");
                }
            }
        }
    }

    #[test]
    fn non_overlapping_agrees_with_counting_indices() {
        let layouts = [
            Layout::new(&[2, 4, 2, 3], &[36, 9, 3, 1], 0),
            Layout::new(&[3, 4], &[1, 3], 0),
            Layout::new(&[3, 4], &[1, 2], 0),
            Layout::new(&[4, 4], &[0, 1], 0),
            Layout::new(&[4, 1], &[0, 1], 0),
            Layout::new(&[3, 3], &[-3, 1], 8),
            Layout::new(&[0, 5], &[0, 0], 0),
        ];
        for l in &layouts {
            let cells = l.storage_indices();
            let distinct: std::collections::BTreeSet<i64> = cells.iter().copied().collect();
            let disjoint = distinct.len() == cells.len();
            // The test may only err towards "overlapping"; on these it is exact.
            assert_eq!(l.is_non_overlapping(), disjoint, "{l:?}");
        }
        // Interleaved strides that never collide are beyond it, and called overlapping.
        assert!(!Layout::new(&[3, 2], &[2, 3], 0).is_non_overlapping());
    }
}
