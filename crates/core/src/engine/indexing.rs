//! Advanced indexing (`t[items]`, `index_put_`) with PyTorch's rules, and what every index op
//! shares: the host-side index values and overlap checks, and the write that records only the
//! cells an index hit. The other index ops sit beside it: `index_read.rs` (`index_select`,
//! `gather`, `take`), `index_write.rs` (`scatter*`, `index_add`/`index_copy`/`index_fill`,
//! `put`) and `masked.rs` (`masked_select`, `masked_scatter`).
//!
//! Index values are data: they are realized on the host, checked there (bounds, dtypes,
//! shapes, with PyTorch's messages) and turned into positions along one axis. Every read is
//! then one primitive, [`Engine::gather_node`] (an indexed load), and every write the other,
//! [`Engine::scatter_node`] (see `gather.rs`): the new value of the target is
//! `where(hit, picked, old)` (the last write wins) or `old` combined with the contributions
//! folded per target (sum, prod, mean, amax, amin), stored through the target's view by
//! [`Engine::write`]; the write record keeps only the cells an index hit.
//!
//! Reads copy (a new storage: no strides express data-dependent positions); writes are
//! `index_put_` into the original storage, through views too.

pub use super::gather::{Combine, DUPLICATE_INDEX_NOTE};
use crate::cells::CellList;
use crate::dtype::DType;
use crate::error::{bail, Error, Result};
use crate::limits::check_numel;
use crate::strided::row_major_strides;
use crate::tensor::{Engine, Operand, StorageRef, Tensor, Write};
use crate::torch::layout::{IndexItem, Layout};
use crate::torch::overlap::{self, MemOverlap, MemOverlapStatus};
use crate::uop::buffer::Data;
use crate::uop::{Op, UOpId};

/// Why an advanced-indexing result is a copy, as the step and the view chain say it.
pub const ADVANCED_INDEX_COPY: &str =
    "advanced indexing (an index tensor, list or bool) copies: no strides express data-dependent positions";

/// One item of a subscript: a basic item, a Python bool, or an index tensor (ints or a mask).
#[derive(Clone, Debug)]
pub enum Index {
    Item(IndexItem),
    Bool(bool),
    Tensor(Tensor),
}

/// An advanced index resolved on the host: the basic part applied as a view (`sliced`), and
/// for each indexed dim of it the wrapped positions broadcast to `bshape` (row-major).
struct Resolved {
    sliced: Tensor,
    dims: Vec<usize>,
    index: Vec<Vec<usize>>,
    layouts: Vec<Layout>,
    bshape: Vec<usize>,
    /// The first index element out of bounds, in the kernel's order (its position among the
    /// broadcast index elements, then the index tensors in turn); its positions read as 0.
    bad: Option<OutOfBounds>,
}

/// An index value past its dim, as PyTorch's index kernels meet it.
struct OutOfBounds {
    /// Row-major position among the broadcast index elements.
    at: usize,
    value: i64,
    /// Which index tensor (PyTorch's advanced-index kernels name this "dimension").
    ordinal: usize,
    /// The dim of the sliced tensor it indexes (`index_fill_` names this one).
    dim: usize,
    size: i64,
}

impl OutOfBounds {
    fn error(&self, dim: usize) -> Error {
        Error::Index(format!("index {} is out of bounds for dimension {dim} with size {}", self.value, self.size))
    }
}

/// Where the indexed dims go: in place when adjacent, else to the front (PyTorch's
/// `transposeToFront`); `perm` brings the sliced tensor into that order.
struct Arrangement {
    perm: Vec<usize>,
    before: usize,
    /// The permuted shape with the indexed dims flattened into one axis at `before`.
    flat_shape: Vec<usize>,
    /// The read's shape: `before` dims, the broadcast index shape, the rest.
    out_shape: Vec<usize>,
    /// Position along the flattened axis of each broadcast index element.
    positions: Vec<usize>,
}

pub(super) fn ints_of(d: &Data) -> Vec<i64> {
    (0..d.len()).map(|i| d.get_scalar(i).as_i64()).collect()
}

/// Values of `shape` (row-major) broadcast to `to` (row-major).
pub(super) fn broadcast_host<T: Copy>(v: &[T], shape: &[usize], to: &[usize]) -> Vec<T> {
    let n: usize = to.iter().product();
    if shape == to {
        return v.to_vec();
    }
    let pad = to.len() - shape.len();
    let src_strides = row_major_strides(shape);
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; to.len()];
    for _ in 0..n {
        let mut at = 0i64;
        for (d, &s) in shape.iter().enumerate() {
            if s != 1 {
                at += idx[d + pad] as i64 * src_strides[d];
            }
        }
        out.push(v[at as usize]);
        for d in (0..to.len()).rev() {
            idx[d] += 1;
            if idx[d] < to[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// The row-major coordinates of flat position `i` in `shape`.
pub(super) fn coords(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        if shape[d] > 0 {
            c[d] = i % shape[d];
            i /= shape[d];
        }
    }
    c
}

pub(super) fn flat(c: &[usize], shape: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

/// The flat positions of the line along `d` through coordinates `c` (whose `d` it sets), in
/// order along `d`: the elements an op along a dim (`sort`, `topk`, `kthvalue`) sees together.
pub(super) fn line_along(c: &mut [usize], d: usize, shape: &[usize]) -> Vec<usize> {
    (0..shape[d])
        .map(|i| {
            c[d] = i;
            flat(c, shape)
        })
        .collect()
}

/// Where an index put writes: into the target itself (`index_put_`, `a[i] = v`) or into a
/// copy of it (`index_put`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum PutInto {
    Target,
    Copy,
}

impl Engine {
    /// Writes `node` (of `target`'s shape) into `target`'s storage; the record keeps the cells
    /// whose row-major position `hit` marks (`hit_of` maps a row-major position to its flag).
    pub(super) fn write_hits(&mut self, target: &Tensor, node: UOpId, hit_of: impl Fn(usize) -> bool) -> Result<Write> {
        let w = if overlap::has_internal_overlap(target.layout()) == MemOverlap::Yes {
            self.write_hits_overlapping(target, node, &hit_of)?
        } else {
            self.write(target, node)?
        };
        let elements = if w.elements.len() == target.numel() {
            w.elements.iter().enumerate().filter(|(i, _)| hit_of(*i)).map(|(_, e)| e).collect()
        } else {
            w.elements
        };
        Ok(Write { storage: w.storage, elements })
    }

    /// [`Engine::write_hits`] into a target whose elements share cells (an expanded tensor, as
    /// `index_fill_`, `masked_fill_` and `index_put_` accept with a warning): the kernel stores
    /// only the hit elements, in row-major order, so a cell holds its last hit's value or stays
    /// as it was. Every element of a cell is then written with that one value.
    fn write_hits_overlapping(
        &mut self,
        target: &Tensor,
        node: UOpId,
        hit_of: &impl Fn(usize) -> bool,
    ) -> Result<Write> {
        let old = self.values(target)?;
        let computed = self.computed_as(node, Layout::contiguous(target.shape()))?;
        let new = self.values(&computed)?.cast(target.dtype());
        let cells = target.layout().storage_indices();
        let base = cells.iter().copied().min().unwrap_or(0);
        let local: Vec<i64> = cells.iter().map(|c| c - base).collect();
        let len = local.iter().max().map_or(0, |&m| m as usize + 1);
        let mut storage = Data::zeros(target.dtype(), len);
        storage.scatter(&local, &old);
        let hits: Vec<usize> = (0..local.len()).filter(|&i| hit_of(i)).collect();
        let hit_cells: Vec<i64> = hits.iter().map(|&i| local[i]).collect();
        let hit_values = new.gather(&hits.iter().map(|&i| Some(i as i64)).collect::<Vec<_>>());
        storage.scatter(&hit_cells, &hit_values);
        let logical = storage.gather(&local.iter().map(|&c| Some(c)).collect::<Vec<_>>());
        let value = self.from_data(logical, target.shape())?;
        self.write(target, value.node())
    }

    /// PyTorch's `assert_no_internal_overlap` for an in-place index op.
    pub(super) fn no_internal_overlap(&mut self, target: &Tensor) -> Result<()> {
        if overlap::has_internal_overlap(target.layout()) == MemOverlap::Yes {
            return Err(Error::Overlap {
                message: "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
                elements: overlap::repeated_elements(target.layout()),
            });
        }
        Ok(())
    }

    /// PyTorch's `assert_no_overlap(target, input)`: partial and full overlap both refuse.
    pub(super) fn no_overlap(&mut self, target: &Tensor, input: &Tensor) -> Result<()> {
        let (target, input) = (self.realize(target)?, self.realize(input)?);
        if target.storage() != input.storage() || input.numel() == 0 || target.numel() == 0 {
            return Ok(());
        }
        if matches!(
            overlap::overlap_status(target.layout(), input.layout()),
            MemOverlapStatus::Partial | MemOverlapStatus::Full
        ) {
            return Err(Error::Overlap {
                message: "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.".into(),
                elements: overlap::shared_elements(target.layout(), input.layout()),
            });
        }
        Ok(())
    }

    /// A computed copy marked as advanced indexing's.
    pub(super) fn index_copy_result(&mut self, node: UOpId, layout: Layout) -> Result<Tensor> {
        let node = self.graph.push(Op::Contiguous, self.graph.node(node).dtype, layout.sizes().to_vec(), vec![node]);
        let mut out = self.computed_as(node, layout)?;
        out.set_copy_reason(ADVANCED_INDEX_COPY);
        Ok(out)
    }

    /// The integer values of an index tensor, refusing other dtypes with PyTorch's words.
    pub(super) fn index_values(&mut self, index: &Tensor, what: &str) -> Result<Vec<i64>> {
        if what == "gather" && index.numel() == 0 {
            return Ok(Vec::new());
        }
        if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
            bail!(DType, "{what}(): Expected dtype int64 for index");
        }
        Ok(ints_of(&self.values(index)?))
    }

    // ------------------------------------------------------------------ advanced indexing

    /// Applies the basic items as a view and resolves the index tensors on the host; an index
    /// out of bounds is noted, not refused (a put writes the elements before it first).
    fn resolve_index_lenient(&mut self, t: &Tensor, items: &[Index]) -> Result<Resolved> {
        let nd = t.shape().len();
        let mut consumed = 0;
        for it in items {
            consumed += match it {
                Index::Item(IndexItem::Int(_) | IndexItem::Slice { .. }) => 1,
                Index::Tensor(x) if matches!(x.dtype(), DType::Bool | DType::UInt8) => x.shape().len(),
                Index::Tensor(_) => 1,
                _ => 0,
            };
        }
        if consumed > nd {
            bail!(Index, "too many indices for tensor of dimension {nd}");
        }
        let full = IndexItem::Slice { start: None, stop: None, step: None };
        let mut cur = self.resolve(t);
        let mut dim = 0usize;
        let mut seen_ellipsis = false;
        // (dim of the sliced tensor, positions, index shape, index layout)
        let mut adv: Vec<(usize, Vec<i64>, Vec<usize>, Layout)> = Vec::new();
        for it in items {
            let basic = |e: &mut Engine, cur: &Tensor, dim: usize, item: IndexItem| {
                let mut v = vec![full.clone(); dim];
                v.push(item);
                e.index(cur, &v)
            };
            match it {
                Index::Item(IndexItem::Ellipsis) => {
                    if !seen_ellipsis {
                        dim += nd - consumed;
                        seen_ellipsis = true;
                    }
                }
                Index::Item(item @ IndexItem::Int(_)) => cur = basic(self, &cur, dim, item.clone())?,
                Index::Item(item) => {
                    cur = basic(self, &cur, dim, item.clone())?;
                    dim += 1;
                }
                Index::Bool(b) => {
                    cur = self.unsqueeze(&cur, dim as i64)?;
                    let n = usize::from(*b);
                    adv.push((dim, vec![0; n], vec![n], Layout::contiguous(&[n])));
                    dim += 1;
                }
                Index::Tensor(x) => match x.dtype() {
                    DType::Bool | DType::UInt8 if x.shape().is_empty() => {
                        let b = self.values(x)?.get_f64(0) != 0.0;
                        cur = self.unsqueeze(&cur, dim as i64)?;
                        let n = usize::from(b);
                        adv.push((dim, vec![0; n], vec![n], Layout::contiguous(&[n])));
                        dim += 1;
                    }
                    DType::Bool | DType::UInt8 => {
                        let k = x.shape().len();
                        for j in 0..k {
                            if x.shape()[j] != cur.shape()[dim + j] {
                                bail!(
                                    Index,
                                    "The shape of the mask {:?} at index {j} does not match the shape of the indexed tensor {:?} at index {}",
                                    x.shape(),
                                    cur.shape(),
                                    dim + j
                                );
                            }
                        }
                        let mask = self.values(x)?;
                        let on: Vec<usize> = (0..mask.len()).filter(|&i| mask.get_f64(i) != 0.0).collect();
                        let n = on.len();
                        for j in 0..k {
                            let v = on.iter().map(|&i| coords(i, x.shape())[j] as i64).collect();
                            adv.push((dim + j, v, vec![n], Layout::contiguous(&[n])));
                        }
                        dim += k;
                    }
                    DType::Int64 | DType::Int32 => {
                        let v = ints_of(&self.values(x)?);
                        adv.push((dim, v, x.shape().to_vec(), x.layout().clone()));
                        dim += 1;
                    }
                    _ => bail!(Index, "tensors used as indices must be long, int, byte or bool tensors"),
                },
            }
        }
        let shapes: Vec<&[usize]> = adv.iter().map(|a| a.2.as_slice()).collect();
        let bshape = Engine::broadcast_shapes(&shapes).map_err(|_| {
            let list: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
            Error::Index(format!(
                "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                list.join(", ")
            ))
        })?;
        check_numel(&bshape)?;
        let mut dims = Vec::new();
        let mut raw = Vec::new();
        let mut layouts = Vec::new();
        for (d, v, shape, layout) in adv {
            raw.push(broadcast_host(&v, &shape, &bshape));
            let sizes: Vec<i64> = bshape.iter().map(|&n| n as i64).collect();
            layouts.push(layout.expand(&sizes)?.empty_like_preserve());
            dims.push(d);
        }
        // The kernel checks each element's indices in turn as it reaches it.
        let sizes: Vec<i64> = dims.iter().map(|&d| cur.shape()[d] as i64).collect();
        let mut bad = None;
        for at in 0..bshape.iter().product::<usize>() {
            if let Some(j) = (0..raw.len()).find(|&j| raw[j][at] < -sizes[j] || raw[j][at] >= sizes[j]) {
                bad = Some(OutOfBounds { at, value: raw[j][at], ordinal: j, dim: dims[j], size: sizes[j] });
                break;
            }
        }
        let index = raw
            .iter()
            .zip(&sizes)
            .map(|(v, &n)| {
                v.iter()
                    .map(|&i| {
                        if i < -n || i >= n {
                            0
                        } else if i < 0 {
                            (i + n) as usize
                        } else {
                            i as usize
                        }
                    })
                    .collect()
            })
            .collect();
        Ok(Resolved { sliced: cur, dims, index, layouts, bshape, bad })
    }

    /// [`Engine::resolve_index_lenient`] for a read: an index out of bounds is the error.
    fn resolve_index(&mut self, t: &Tensor, items: &[Index]) -> Result<Resolved> {
        let r = self.resolve_index_lenient(t, items)?;
        match &r.bad {
            Some(b) => Err(b.error(b.ordinal)),
            None => Ok(r),
        }
    }

    /// The elements of a put that PyTorch's kernel writes before it meets the out-of-bounds
    /// index `bad` (it walks the indexed result row-major: the first row of the dims before the
    /// index, the index elements before the bad one, every element after the index dims):
    /// the put restricted to them, or `None` when that is nothing.
    fn written_before(
        &mut self,
        r: &Resolved,
        a: &Arrangement,
        value: &Operand,
    ) -> Result<Option<(Resolved, Operand)>> {
        let Some(bad) = &r.bad else { return Ok(None) };
        if bad.at == 0 || a.out_shape[..a.before].contains(&0) {
            return Ok(None);
        }
        let mut sliced = r.sliced.clone();
        for d in 0..a.before {
            sliced = self.narrow(&sliced, d as i64, 0, 1)?;
        }
        let value = match value {
            Operand::Tensor(v) => {
                let sizes: Vec<i64> = a.out_shape.iter().map(|&n| n as i64).collect();
                let mut v = self.expand(v, &sizes)?;
                for d in 0..a.before {
                    v = self.narrow(&v, d as i64, 0, 1)?;
                }
                let m = r.bshape.len();
                let flat: Vec<i64> = v.shape()[..a.before]
                    .iter()
                    .map(|&n| n as i64)
                    .chain([-1])
                    .chain(v.shape()[a.before + m..].iter().map(|&n| n as i64))
                    .collect();
                let v = self.reshape(&v, &flat)?;
                Operand::Tensor(self.narrow(&v, a.before as i64, 0, bad.at as i64)?)
            }
            s => s.clone(),
        };
        let index = r.index.iter().map(|v| v[..bad.at].to_vec()).collect();
        let layouts = r.layouts.iter().map(|_| Layout::contiguous(&[bad.at])).collect();
        Ok(Some((Resolved { sliced, dims: r.dims.clone(), index, layouts, bshape: vec![bad.at], bad: None }, value)))
    }

    fn arrange(r: &Resolved) -> Arrangement {
        let shape = r.sliced.shape();
        let nd = shape.len();
        let adjacent = r.dims.windows(2).all(|w| w[1] == w[0] + 1);
        let perm: Vec<usize> = if adjacent {
            (0..nd).collect()
        } else {
            r.dims.iter().copied().chain((0..nd).filter(|d| !r.dims.contains(d))).collect()
        };
        let before = if adjacent { r.dims[0] } else { 0 };
        let k = r.dims.len();
        let pshape: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
        let indexed = &pshape[before..before + k];
        let f: usize = indexed.iter().product();
        let strides = row_major_strides(indexed);
        let m: usize = r.bshape.iter().product();
        let positions = (0..m).map(|b| (0..k).map(|j| r.index[j][b] * strides[j] as usize).sum()).collect();
        let flat_shape =
            pshape[..before].iter().copied().chain([f]).chain(pshape[before + k..].iter().copied()).collect();
        let out_shape = pshape[..before]
            .iter()
            .copied()
            .chain(r.bshape.iter().copied())
            .chain(pshape[before + k..].iter().copied())
            .collect();
        Arrangement { perm, before, flat_shape, out_shape, positions }
    }

    /// TensorIterator's layout of the read: the source restrided (stride 0 on the index
    /// dims) and the index tensors reshaped into place, as PyTorch's `index` builds it.
    fn index_output_layout(r: &Resolved, a: &Arrangement) -> Layout {
        let src = r.sliced.layout();
        let k = r.dims.len();
        let b = r.bshape.len();
        let pstrides: Vec<i64> = a.perm.iter().map(|&d| src.strides()[d]).collect();
        let after = &pstrides[a.before + k..];
        let restrided: Vec<i64> = pstrides[..a.before]
            .iter()
            .copied()
            .chain(std::iter::repeat_n(0, b))
            .chain(after.iter().copied())
            .collect();
        let src_l = Layout::new(&a.out_shape, &restrided, 0);
        let mut layouts = vec![src_l];
        for l in &r.layouts {
            let strides: Vec<i64> = std::iter::repeat_n(0, a.before)
                .chain(l.strides().iter().copied())
                .chain(std::iter::repeat_n(0, after.len()))
                .collect();
            layouts.push(Layout::new(&a.out_shape, &strides, 0));
        }
        let refs: Vec<&Layout> = layouts.iter().collect();
        Layout::elementwise_output(&a.out_shape, &refs)
    }

    /// The node of the sliced tensor permuted and flattened as the arrangement says.
    fn flattened_node(&mut self, r: &Resolved, a: &Arrangement) -> UOpId {
        let mut node = r.sliced.node();
        if a.perm.iter().enumerate().any(|(i, &p)| i != p) {
            node = self.movement(node, Op::Permute(a.perm.clone()));
        }
        self.movement(node, Op::Reshape(a.flat_shape.clone()))
    }

    /// `t[items]` with at least one index tensor, list or bool: a copy.
    pub fn advanced_index(&mut self, t: &Tensor, items: &[Index]) -> Result<Tensor> {
        let out = self.advanced_index_forward(t, items)?;
        let (slots, operands) = index_slots(items, 0);
        let op = crate::autograd::GradOp::Index { items: slots, input: t.shape().to_vec() };
        let t = self.resolve(t);
        self.record(&out, op, &[Some(&t)], operands, &[]);
        Ok(out)
    }

    fn advanced_index_forward(&mut self, t: &Tensor, items: &[Index]) -> Result<Tensor> {
        let r = self.resolve_index(t, items)?;
        let a = Self::arrange(&r);
        check_numel(&a.out_shape)?;
        let layout = Self::index_output_layout(&r, &a);
        let dtype = r.sliced.dtype();
        if a.out_shape.contains(&0) {
            let mut out = self.empty_copy(&a.out_shape, dtype)?;
            out.set_copy_reason(ADVANCED_INDEX_COPY);
            return Ok(out);
        }
        let node = self.flattened_node(&r, &a);
        let g = self.gather_node(node, dtype, &a.flat_shape, a.before, &a.positions)?;
        let node = self.movement(g, Op::Reshape(a.out_shape.clone()));
        self.index_copy_result(node, layout)
    }

    /// `t[items] = value` / `t.index_put_(indices, value, accumulate)`: PyTorch's checks, then
    /// one store into `t`'s storage that changes only the indexed cells.
    pub fn index_put(&mut self, t: &Tensor, items: &[Index], value: &Operand, accumulate: bool) -> Result<Write> {
        let value_t = match value {
            Operand::Tensor(v) => Some(v.clone()),
            Operand::Scalar(_) => None,
        };
        let tracked: Vec<&Tensor> = value_t.iter().collect();
        let old = self.begin_tracked_unread(t, &tracked)?;
        let w = self.index_put_untracked(t, items, value, accumulate)?;
        if let Some(old) = old {
            let target = self.resolve(t);
            let (slots, extra) = index_slots(items, 3);
            let value_shape = value_t.as_ref().map_or(Vec::new(), |v| v.shape().to_vec());
            // A scalar put through one index tensor is PyTorch's index_fill_ (masked_fill_ for
            // a mask).
            let tensors: Vec<&Tensor> =
                items.iter().filter_map(|i| if let Index::Tensor(t) = i { Some(t) } else { None }).collect();
            let name = match (value_t.is_none() && !accumulate, tensors.as_slice()) {
                (true, [m]) if m.dtype() == crate::dtype::DType::Bool => "MaskedFillBackward0",
                (true, [_]) => "IndexFillBackward0",
                _ => "IndexPutBackward0",
            };
            let op = crate::autograd::GradOp::IndexPut { items: slots, accumulate, value_shape, name };
            self.finish_inplace_with(&target, op, old, &[value_t.as_ref()], extra.into_iter().skip(3).collect());
        }
        Ok(w)
    }

    fn index_put_untracked(&mut self, t: &Tensor, items: &[Index], value: &Operand, accumulate: bool) -> Result<Write> {
        match self.index_put_parts(t, items, value, accumulate, PutInto::Target)? {
            (None, Some(e)) => Err(e),
            (None, None) => {
                let target = self.realize(t)?;
                self.bump_empty_write(&target);
                Ok(Write { storage: self.storage_id(&target)?, elements: CellList::new() })
            }
            (Some((target, node, hit_of)), None) => self.write_hits(&target, node, hit_of),
            // The kernel stopped at an out-of-bounds index after writing these elements; the
            // version counter moves only when an op returns.
            (Some((target, node, hit_of)), Some(e)) => {
                self.write_hits(&target, node, hit_of)?;
                self.ids.unbump(target.counter);
                Err(e)
            }
        }
    }

    /// `t.index_put(indices, value, accumulate)`: a clone laid out like `t`, with the put.
    pub fn index_put_functional(
        &mut self,
        t: &Tensor,
        items: &[Index],
        value: &Operand,
        accumulate: bool,
    ) -> Result<Tensor> {
        let t = self.realize(t)?;
        let layout = t.layout().empty_like_preserve();
        let node = match self.index_put_parts(&t, items, value, accumulate, PutInto::Copy)? {
            (_, Some(e)) => return Err(e),
            (None, None) => t.node(),
            (Some((_, node, _)), None) => node,
        };
        self.index_copy_result(node, layout)
    }

    /// The target (the basic part of the index as a view), its new value, and which of its
    /// row-major positions the index hit; `None` when nothing is written. With an index out of
    /// bounds, the put of the elements PyTorch writes before it and the error to raise after.
    #[allow(clippy::type_complexity)]
    fn index_put_parts(
        &mut self,
        t: &Tensor,
        items: &[Index],
        value: &Operand,
        accumulate: bool,
        into: PutInto,
    ) -> Result<(Option<(Tensor, UOpId, Box<dyn Fn(usize) -> bool>)>, Option<Error>)> {
        let r = self.resolve_index_lenient(t, items)?;
        let target = self.realize(&r.sliced)?;
        // `t[i] = 2.0` through one integer index tensor is `index_fill_`, whose bounds error
        // names the tensor's dim; the put kernels name the index tensor's place.
        let tensors: Vec<&Tensor> =
            items.iter().filter_map(|i| if let Index::Tensor(x) = i { Some(x) } else { None }).collect();
        let index_fill = !accumulate
            && matches!(value, Operand::Scalar(_))
            && matches!(tensors.as_slice(), [x] if !matches!(x.dtype(), DType::Bool | DType::UInt8));
        // An index that shares memory with what it writes into (`i[i] = 5`, `m[m] = m & x`) is
        // refused, as `index_put_`'s `assert_no_overlap(self, index)` does; a lone mask with one
        // value is `masked_fill_`, which checks nothing, and the functional form writes a copy.
        let lone_mask = items.iter().filter(|i| !matches!(i, Index::Item(_))).count() == 1
            && items.iter().any(|i| matches!(i, Index::Tensor(x) if x.dtype() == DType::Bool));
        let fill = lone_mask && !accumulate && value_numel(value) == 1;
        if into == PutInto::Target && !fill {
            for it in items {
                if let Index::Tensor(ix) = it {
                    self.no_overlap(&target, ix)?;
                }
            }
        }
        let a = Self::arrange(&r);
        let dtype = target.dtype();
        let value = match value {
            Operand::Tensor(v) => {
                // A single mask with a one-element value is PyTorch's masked_fill_ (no checks).
                if fill {
                    Operand::Scalar(self.values(v)?.get_scalar(0))
                } else {
                    self.no_overlap(&target, v)?;
                    if v.dtype() != dtype {
                        bail!(
                            DType,
                            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
                            dtype.torch_name(),
                            v.dtype().torch_name()
                        );
                    }
                    let fits = Engine::broadcast_shapes(&[v.shape(), &a.out_shape]).is_ok_and(|s| s == a.out_shape);
                    if !fits {
                        bail!(
                            Shape,
                            "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
                            v.shape(),
                            a.out_shape
                        );
                    }
                    Operand::Tensor(self.resolve(v))
                }
            }
            s => s.clone(),
        };
        let (r, a, target, value, late) = match &r.bad {
            None => (r, a, target, value, None),
            Some(bad) => {
                let e = bad.error(if index_fill { bad.dim } else { bad.ordinal });
                if into == PutInto::Copy || self.is_bridge() {
                    return Ok((None, Some(e)));
                }
                match self.written_before(&r, &a, &value)? {
                    None => return Ok((None, Some(e))),
                    Some((r, value)) => {
                        let a = Self::arrange(&r);
                        let target = self.realize(&r.sliced)?;
                        (r, a, target, value, Some(e))
                    }
                }
            }
        };
        if target.numel() == 0 || a.positions.is_empty() {
            return Ok((None, late));
        }
        // The value in the arrangement's order: broadcast to the read's shape, then flattened.
        let vnode = self.operand_node(&value, dtype, &a.out_shape)?;
        let mut vflat = a.flat_shape.clone();
        vflat[a.before] = a.positions.len();
        let vnode = self.movement(vnode, Op::Reshape(vflat));
        let old = self.flattened_node(&r, &a);
        let combine = if accumulate { Combine::Sum } else { Combine::Replace };
        let (node, hit) = self.scatter_node(old, dtype, &a.flat_shape, a.before, vnode, &a.positions, combine, true)?;
        // Back to the sliced tensor's shape and order.
        let pshape: Vec<usize> = a.perm.iter().map(|&d| target.shape()[d]).collect();
        let mut node = self.movement(node, Op::Reshape(pshape.clone()));
        let mut inverse = vec![0; a.perm.len()];
        for (i, &p) in a.perm.iter().enumerate() {
            inverse[p] = i;
        }
        if a.perm.iter().enumerate().any(|(i, &p)| i != p) {
            node = self.movement(node, Op::Permute(inverse));
        }
        // Which indexed position a row-major element of the target is at: for each indexed dim
        // (in the arrangement's order) its row-major stride and size in the target, and its
        // stride among the indexed positions. No allocation per element.
        let shape = target.shape();
        let row_strides = crate::strided::row_major_strides(shape);
        let (k, before) = (r.dims.len(), a.before);
        let mut place = 1usize;
        let mut dims: Vec<(usize, usize, usize)> = Vec::with_capacity(k);
        for &d in a.perm[before..before + k].iter().rev() {
            dims.push((row_strides[d].unsigned_abs() as usize, shape[d], place));
            place *= shape[d];
        }
        let hit_of = move |i: usize| hit[dims.iter().map(|&(rs, n, p)| (i / rs.max(1)) % n.max(1) * p).sum::<usize>()];
        Ok((Some((target, node, Box::new(hit_of))), late))
    }

    /// An in-place op that writes nothing still counts as one (PyTorch bumps the version).
    pub(super) fn bump_empty_write(&mut self, target: &Tensor) {
        if let StorageRef::Realized(s) = target.storage() {
            self.storages[s].version += 1;
        }
        self.ids.bump(target.counter);
    }
}

/// An index as a node keeps it: its tensors become operands numbered from `first`.
fn index_slots(items: &[Index], first: usize) -> (Vec<crate::autograd::IndexSlot>, Vec<Option<Tensor>>) {
    use crate::autograd::IndexSlot;
    let mut operands: Vec<Option<Tensor>> = vec![None; first];
    let slots = items
        .iter()
        .map(|i| match i {
            Index::Item(it) => IndexSlot::Item(it.clone()),
            Index::Bool(b) => IndexSlot::Bool(*b),
            Index::Tensor(t) => {
                operands.push(Some(t.clone()));
                IndexSlot::Tensor(operands.len() - 1)
            }
        })
        .collect();
    (slots, operands)
}

/// How many elements a put's value has (a scalar has one).
fn value_numel(value: &Operand) -> usize {
    match value {
        Operand::Tensor(v) => v.numel(),
        Operand::Scalar(_) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::Index;
    use crate::tensor::{Engine, Operand, Tensor};
    use crate::torch::layout::IndexItem;
    use crate::uop::buffer::{Data, Scalar};

    fn arange(e: &mut Engine, shape: &[usize]) -> Tensor {
        let n: usize = shape.iter().product();
        e.from_data(Data::F32((0..n).map(|i| i as f32).collect()), shape).unwrap_or_else(|err| panic!("{err}"))
    }

    fn longs(e: &mut Engine, v: &[i64]) -> Index {
        Index::Tensor(e.from_data(Data::I64(v.to_vec()), &[v.len()]).unwrap_or_else(|err| panic!("{err}")))
    }

    #[test]
    fn separated_indices_move_to_the_front() {
        let mut e = Engine::new();
        let a = arange(&mut e, &[2, 3, 4]);
        let all = Index::Item(IndexItem::Slice { start: None, stop: None, step: None });
        let items = [longs(&mut e, &[0, 1]), all, longs(&mut e, &[0, 2])];
        let y = e.advanced_index(&a, &items).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(y.shape(), &[2, 3]);
        let got = e.values(&y).unwrap_or_else(|err| panic!("{err}")).to_f64_vec();
        assert_eq!(got, vec![0.0, 4.0, 8.0, 14.0, 18.0, 22.0]);
    }

    #[test]
    fn writes_record_only_the_indexed_cells() {
        let mut e = Engine::new();
        let x = arange(&mut e, &[6]);
        let items = [longs(&mut e, &[4, 1, 4])];
        let w = e.index_put(&x, &items, &Operand::Scalar(Scalar::Int(0)), false).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(w.elements.to_vec(), vec![1, 4]);
        assert_eq!(e.version(&x), 1);
        let got = e.values(&x).unwrap_or_else(|err| panic!("{err}")).to_f64_vec();
        assert_eq!(got, vec![0.0, 0.0, 2.0, 3.0, 0.0, 5.0]);
    }

    #[test]
    fn a_gather_costs_its_output_not_inputs_times_outputs() {
        // 70,000 positions of 70,000 elements: 4.9e9 compares as a one-hot, 70,000 reads here.
        let mut e = Engine::new();
        let x = arange(&mut e, &[70_000]);
        let pos: Vec<i64> = (0..70_000).rev().collect();
        let items = [longs(&mut e, &pos)];
        let y = e.advanced_index(&x, &items).unwrap_or_else(|err| panic!("{err}"));
        let got = e.values(&y).unwrap_or_else(|err| panic!("{err}")).to_f64_vec();
        assert_eq!(got.len(), 70_000);
        assert_eq!((got[0], got[69_999]), (69_999.0, 0.0));
    }

    #[test]
    fn sums_into_repeated_positions_fold_in_rounds() {
        // 40 contributions to one position and one each to two others: three chunk rounds.
        let mut e = Engine::new();
        let x = e.from_data(Data::F32(vec![0.5; 4]), &[4]).unwrap_or_else(|err| panic!("{err}"));
        let mut pos = vec![2i64; 40];
        pos.extend([0, 3]);
        let items = [longs(&mut e, &pos)];
        let v = Operand::Scalar(Scalar::Float(1.0));
        e.index_put(&x, &items, &v, true).unwrap_or_else(|err| panic!("{err}"));
        let got = e.values(&x).unwrap_or_else(|err| panic!("{err}")).to_f64_vec();
        assert_eq!(got, vec![1.5, 0.5, 40.5, 1.5]);
    }
}
