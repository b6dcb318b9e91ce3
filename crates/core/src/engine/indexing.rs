//! Advanced indexing and the index ops (`index_select`, `gather`, `scatter*`, `index_*`,
//! `masked_*`, `put_`, `take`, ...), with PyTorch's rules.
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
use crate::autograd::Route;
use crate::cells::CellList;
use crate::dtype::DType;
use crate::error::{bail, Error, Result};
use crate::limits::check_numel;
use crate::strided::{row_major_strides, wrap_dim};
use crate::tensor::{Engine, Operand, StorageRef, Tensor, Write};
use crate::torch::layout::{IndexItem, Layout};
use crate::torch::overlap::{self, MemOverlap, MemOverlapStatus};
use crate::uop::buffer::{Data, Scalar};
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
fn broadcast_host<T: Copy>(v: &[T], shape: &[usize], to: &[usize]) -> Vec<T> {
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

impl Engine {
    /// Writes `node` (of `target`'s shape) into `target`'s storage; the record keeps the cells
    /// whose row-major position `hit` marks (`hit_of` maps a row-major position to its flag).
    fn write_hits(&mut self, target: &Tensor, node: UOpId, hit_of: impl Fn(usize) -> bool) -> Result<Write> {
        let w = self.write(target, node)?;
        let elements = if w.elements.len() == target.numel() {
            w.elements.iter().enumerate().filter(|(i, _)| hit_of(*i)).map(|(_, e)| e).collect()
        } else {
            w.elements
        };
        Ok(Write { storage: w.storage, elements })
    }

    /// PyTorch's `assert_no_internal_overlap` for an in-place index op.
    fn no_internal_overlap(&mut self, target: &Tensor) -> Result<()> {
        if overlap::has_internal_overlap(target.layout()) == MemOverlap::Yes {
            return Err(Error::Overlap {
                message: "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
                elements: overlap::repeated_elements(target.layout()),
            });
        }
        Ok(())
    }

    /// PyTorch's `assert_no_overlap(target, input)`: partial and full overlap both refuse.
    fn no_overlap(&mut self, target: &Tensor, input: &Tensor) -> Result<()> {
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
    fn index_values(&mut self, index: &Tensor, what: &str) -> Result<Vec<i64>> {
        if what == "gather" && index.numel() == 0 {
            return Ok(Vec::new());
        }
        if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
            bail!(DType, "{what}(): Expected dtype int64 for index");
        }
        Ok(ints_of(&self.values(index)?))
    }

    // ------------------------------------------------------------------ advanced indexing

    /// Applies the basic items as a view and resolves the index tensors on the host.
    fn resolve_index(&mut self, t: &Tensor, items: &[Index]) -> Result<Resolved> {
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
        let mut index = Vec::new();
        let mut layouts = Vec::new();
        for (d, v, shape, layout) in adv {
            let n = cur.shape()[d] as i64;
            let mut wrapped = Vec::with_capacity(v.len());
            for &i in &v {
                if i < -n || i >= n {
                    bail!(Index, "index {i} is out of bounds for dimension {d} with size {n}");
                }
                wrapped.push(if i < 0 { i + n } else { i } as usize);
            }
            index.push(broadcast_host(&wrapped, &shape, &bshape));
            let sizes: Vec<i64> = bshape.iter().map(|&n| n as i64).collect();
            layouts.push(layout.expand(&sizes)?.empty_like_preserve());
            dims.push(d);
        }
        Ok(Resolved { sliced: cur, dims, index, layouts, bshape })
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
        let old = if self.inplace_tracked(t, &tracked) { Some(self.begin_inplace_unread(t)?) } else { None };
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
        match self.index_put_parts(t, items, value, accumulate)? {
            None => {
                let target = self.realize(t)?;
                self.bump_empty_write(&target);
                Ok(Write { storage: self.storage_id(&target)?, elements: CellList::new() })
            }
            Some((target, node, hit_of)) => self.write_hits(&target, node, hit_of),
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
        let node = match self.index_put_parts(&t, items, value, accumulate)? {
            None => t.node(),
            Some((_, node, _)) => node,
        };
        self.index_copy_result(node, layout)
    }

    /// The target (the basic part of the index as a view), its new value, and which of its
    /// row-major positions the index hit; `None` when nothing is written.
    #[allow(clippy::type_complexity)]
    fn index_put_parts(
        &mut self,
        t: &Tensor,
        items: &[Index],
        value: &Operand,
        accumulate: bool,
    ) -> Result<Option<(Tensor, UOpId, Box<dyn Fn(usize) -> bool>)>> {
        let r = self.resolve_index(t, items)?;
        let target = self.realize(&r.sliced)?;
        let a = Self::arrange(&r);
        let dtype = target.dtype();
        let value = match value {
            Operand::Tensor(v) => {
                // A single mask with a one-element value is PyTorch's masked_fill_ (no checks).
                let masked = items.iter().filter(|i| !matches!(i, Index::Item(_))).count() == 1
                    && items.iter().any(|i| matches!(i, Index::Tensor(x) if x.dtype() == DType::Bool))
                    && v.numel() == 1
                    && !accumulate;
                if masked {
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
        if target.numel() == 0 || a.positions.is_empty() {
            return Ok(None);
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
        let shape = target.shape().to_vec();
        let (k, before, perm) = (r.dims.len(), a.before, a.perm);
        let hit_of = move |i: usize| {
            let c = coords(i, &shape);
            let pc: Vec<usize> = perm.iter().map(|&d| c[d]).collect();
            hit[flat(&pc[before..before + k], &pshape[before..before + k])]
        };
        Ok(Some((target, node, Box::new(hit_of))))
    }

    /// An in-place op that writes nothing still counts as one (PyTorch bumps the version).
    pub(super) fn bump_empty_write(&mut self, target: &Tensor) {
        if let StorageRef::Realized(s) = target.storage() {
            self.storages[s].version += 1;
        }
        self.ids.bump(target.counter);
    }

    // ------------------------------------------------------------------ dim-wise ops

    /// What every dim-wise index op checks first: `t`'s shape (a 0-d tensor as one element), the
    /// wrapped dim, and the values of `index`, a vector of int32 or int64 (`dtypes` is how the
    /// op's message names them).
    fn dim_index(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        op: &str,
        dtypes: &str,
    ) -> Result<(Vec<usize>, usize, Vec<i64>)> {
        let nd = t.shape().len();
        let d = wrap_dim(dim, nd.max(1))?;
        if index.shape().len() > 1 {
            bail!(Index, "{op}(): Index is supposed to be a vector");
        }
        if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
            bail!(DType, "{op}(): Expected dtype {dtypes} for index");
        }
        let shape: Vec<usize> = if nd == 0 { vec![1] } else { t.shape().to_vec() };
        Ok((shape, d, ints_of(&self.values(index)?)))
    }

    /// `t.index_select(dim, index)`: a row-major copy of the rows `index` names along `dim`.
    pub fn index_select(&mut self, t: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let t = self.resolve(t);
        let nd = t.shape().len();
        let (shape, d, v) = self.dim_index(&t, dim, index, "index_select", "int32 or int64")?;
        let n = shape[d] as i64;
        let mut pos = Vec::with_capacity(v.len());
        for &i in &v {
            if i < 0 || i >= n {
                bail!(Index, "index out of range in self");
            }
            pos.push(i as usize);
        }
        let mut out = shape.clone();
        out[d] = pos.len();
        let out = if nd == 0 { vec![] } else { out };
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, t.dtype());
        }
        let node = self.movement(t.node(), Op::Reshape(shape.clone()));
        let g = self.gather_node(node, t.dtype(), &shape, d, &pos)?;
        let g = self.movement(g, Op::Reshape(out.clone()));
        let out = self.index_copy_result(g, Layout::contiguous(&out))?;
        let op = crate::autograd::GradOp::IndexSelect { dim, input: t.shape().to_vec() };
        self.record(&out, op, &[Some(&t)], vec![Some(index.clone())], &[0]);
        Ok(out)
    }

    /// The row-major positions of `t` (flattened) that `mask` (broadcast with it) selects, and
    /// the broadcast shape.
    fn mask_positions(&mut self, t: &Tensor, mask: &Tensor, what: &str) -> Result<(Vec<usize>, Vec<usize>)> {
        if mask.dtype() != DType::Bool {
            bail!(DType, "{what}: expected BoolTensor for mask");
        }
        let shape = Engine::broadcast_shapes(&[t.shape(), mask.shape()])?;
        let m = self.values(mask)?;
        let on: Vec<bool> = (0..m.len()).map(|i| m.get_f64(i) != 0.0).collect();
        let on = broadcast_host(&on, mask.shape(), &shape);
        Ok((on.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i).collect(), shape))
    }

    /// `t.masked_select(mask)`: the selected elements, 1-D.
    pub fn masked_select(&mut self, t: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let t = self.resolve(t);
        let (pos, shape) = self.mask_positions(&t, mask, "masked_select")?;
        let n: usize = shape.iter().product();
        let out = vec![pos.len()];
        if pos.is_empty() {
            return self.empty_copy(&out, t.dtype());
        }
        let node = self.operand_node(&Operand::Tensor(t.clone()), t.dtype(), &shape)?;
        let node = self.movement(node, Op::Reshape(vec![n]));
        let g = self.gather_node(node, t.dtype(), &[n], 0, &pos)?;
        self.index_copy_result(g, Layout::contiguous(&out))
    }

    /// `t.masked_scatter(mask, source)`'s value: the selected positions take `source`'s
    /// elements in order. Returns the node (of `t`'s shape) and which positions were hit.
    fn masked_scatter_node(&mut self, t: &Tensor, mask: &Tensor, source: &Tensor) -> Result<(UOpId, Vec<bool>)> {
        if mask.dtype() != DType::Bool {
            bail!(
                DType,
                "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().torch_name()
            );
        }
        if source.dtype() != t.dtype() {
            bail!(
                DType,
                "masked_scatter: expected self and source to have same dtypes but got{} and{}",
                t.dtype().torch_name(),
                source.dtype().torch_name()
            );
        }
        let (pos, shape) = self.mask_positions(t, mask, "masked_scatter")?;
        if shape != t.shape() {
            bail!(Shape, "masked_scatter_: expected mask to be broadcastable to self, got shape {:?}", mask.shape());
        }
        if pos.len() > source.numel() {
            self.partial_masked_scatter(t, &pos, source)?;
            bail!(Shape, "Number of elements of source < number of ones in mask");
        }
        let n = t.numel();
        let t = self.resolve(t);
        let old = self.movement(t.node(), Op::Reshape(vec![n]));
        let src = self.resolve(source);
        let sflat = self.movement(src.node(), Op::Reshape(vec![src.numel()]));
        let vals = if pos.is_empty() { sflat } else { self.movement(sflat, Op::Shrink(vec![(0, pos.len())])) };
        let (node, hit) = self.scatter_node(old, t.dtype(), &[n], 0, vals, &pos, Combine::Replace, true)?;
        Ok((self.movement(node, Op::Reshape(t.shape().to_vec())), hit))
    }

    /// What PyTorch's CPU kernel leaves when the source runs short: the positions it reached
    /// hold the source's elements, and the op fails without counting as a write. The
    /// interpreter changes the storage itself (an [`Event::Host`](crate::tensor::Event)).
    fn partial_masked_scatter(&mut self, t: &Tensor, pos: &[usize], source: &Tensor) -> Result<()> {
        let target = self.realize(t)?;
        self.realize_pending()?;
        let StorageRef::Realized(s) = target.storage() else { return Ok(()) };
        let k = source.numel();
        let elements = target.layout().storage_indices();
        let idx: Vec<i64> = pos[..k].iter().map(|&p| elements[p]).collect();
        let src = self.values(source)?;
        self.storages[s].data.scatter(&idx, &src);
        self.events.push(crate::tensor::Event::Host { storage: s });
        Ok(())
    }

    pub fn masked_scatter(&mut self, t: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        // The out-of-place form broadcasts the input and the mask together first.
        let shape = Engine::broadcast_shapes(&[t.shape(), mask.shape()])?;
        let t = &if shape != t.shape() {
            let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
            self.expand(t, &sizes)?
        } else {
            t.clone()
        };
        let out = self.untracked(|e| e.masked_scatter_values(t, mask, source))?;
        if !self.index_map_wanted(&out, &[t, source]) {
            return Ok(out);
        }
        // Each source element is used once, in order: both maps come from probes.
        let (own, from) = self.untracked(|e| {
            let probe = e.probe(t.shape())?;
            let zeros = e.full(source.shape(), Scalar::Int(0), Some(DType::Int64))?;
            let own = e.masked_scatter_values(&probe, mask, &zeros)?;
            let blank = e.full(t.shape(), Scalar::Int(0), Some(DType::Int64))?;
            let sprobe = e.probe(source.shape())?;
            Ok((own, e.masked_scatter_values(&blank, mask, &sprobe)?))
        })?;
        self.record_index_maps(
            &out,
            "MaskedScatterBackward0",
            &[(t, Route::FromOutput, own), (source, Route::FromOutput, from)],
        );
        Ok(out)
    }

    /// [`Engine::masked_scatter`]'s values (no autograd node).
    fn masked_scatter_values(&mut self, t: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        let (node, _) = self.masked_scatter_node(t, mask, source)?;
        let layout = t.layout().empty_like_preserve();
        self.index_copy_result(node, layout)
    }

    pub fn masked_scatter_(&mut self, t: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Write> {
        let target = self.realize(t)?;
        self.no_internal_overlap(&target)?;
        let (node, hit) = self.masked_scatter_node(&target, mask, source)?;
        self.write_hits(&target, node, |i| hit[i])
    }

    /// `gather`'s and `scatter`'s shape rules: same rank, and `index` no larger than `other`
    /// apart from `dim` (and no larger than `self` for scatter).
    fn check_dim_index(t: &Tensor, dim: usize, index: &Tensor, src: Option<&Tensor>, op: &str) -> Result<()> {
        let nd = t.shape().len().max(1);
        let ind = index.shape().len().max(1);
        if index.numel() == 0 {
            return Ok(());
        }
        if ind != nd {
            bail!(
                Index,
                "Index tensor must have the same number of dimensions as {} tensor",
                if op == "gather" { "input" } else { "self" }
            );
        }
        let tsh: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        let ish: Vec<usize> = if index.shape().is_empty() { vec![1] } else { index.shape().to_vec() };
        for d in 0..nd {
            if d != dim && ish[d] > tsh[d] {
                bail!(
                    Shape,
                    "Size does not match at dimension {d} expected index {:?} to be no larger than self {:?} apart from dimension {dim}",
                    index.shape(),
                    t.shape()
                );
            }
        }
        if let Some(s) = src {
            let ssh: Vec<usize> = if s.shape().is_empty() { vec![1] } else { s.shape().to_vec() };
            if ssh.len() != nd {
                bail!(Index, "Index tensor must have the same number of dimensions as src tensor");
            }
            for d in 0..nd {
                if ish[d] > ssh[d] {
                    bail!(
                        Shape,
                        "Size does not match at dimension {d} expected index {:?} to be no larger than src {:?}",
                        index.shape(),
                        s.shape()
                    );
                }
            }
        }
        Ok(())
    }

    /// For each element of `index` (row-major), the flat position in `t` it names along `dim`.
    fn dim_positions(&mut self, t: &Tensor, dim: usize, index: &Tensor, op: &str) -> Result<Vec<usize>> {
        let v = self.index_values(index, op)?;
        let tsh: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        let ish: Vec<usize> = if index.shape().is_empty() { vec![1] } else { index.shape().to_vec() };
        let n = tsh[dim] as i64;
        let mut out = Vec::with_capacity(v.len());
        for (e, &i) in v.iter().enumerate() {
            let i = if i < 0 && i >= -n { i + n } else { i };
            if i < 0 || i >= n {
                bail!(Index, "index {} is out of bounds for dimension {dim} with size {n}", v[e]);
            }
            let mut c = coords(e, &ish);
            c[dim] = i as usize;
            out.push(flat(&c, &tsh));
        }
        Ok(out)
    }

    /// `torch.gather(t, dim, index)`: out[i][j] = t[index[i][j]][j] (for dim 0); index's shape.
    pub fn gather(&mut self, t: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let out = self.untracked(|e| e.gather_values(t, dim, index))?;
        self.record_index_map(&out, t, "GatherBackward0", |e, p| e.gather_values(p, dim, index))?;
        Ok(out)
    }

    /// [`Engine::gather`]'s values (no autograd node).
    pub(super) fn gather_values(&mut self, t: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len().max(1))?;
        // PyTorch checks the index's dtype only when it has elements.
        if index.numel() > 0 && !matches!(index.dtype(), DType::Int64 | DType::Int32) {
            bail!(DType, "gather(): Expected dtype int32/int64 for index");
        }
        Self::check_dim_index(&t, d, index, None, "gather")?;
        let pos = self.dim_positions(&t, d, index, "gather")?;
        let out = index.shape().to_vec();
        if pos.is_empty() {
            return self.empty_copy(&out, t.dtype());
        }
        let n = t.numel();
        let node = self.movement(t.node(), Op::Reshape(vec![n]));
        let g = self.gather_node(node, t.dtype(), &[n], 0, &pos)?;
        let g = self.movement(g, Op::Reshape(out.clone()));
        let layout = index.layout().empty_like_preserve();
        self.index_copy_result(g, layout)
    }

    /// The row-major positions `index` names in a tensor of `n` elements (`take`, `put_`):
    /// negative ones wrap, out-of-range ones are PyTorch's error.
    fn flat_positions(&mut self, index: &Tensor, n: usize) -> Result<Vec<usize>> {
        let n = n as i64;
        ints_of(&self.values(index)?)
            .into_iter()
            .map(|i| {
                if i < -n || i >= n {
                    bail!(Index, "out of range: tried to access index {i} on a tensor of {n} elements.");
                }
                Ok(if i < 0 { i + n } else { i } as usize)
            })
            .collect()
    }

    /// `t.take(index)`: `t` flattened, read at `index` (negative wraps); index's shape.
    pub fn take(&mut self, t: &Tensor, index: &Tensor) -> Result<Tensor> {
        let out = self.untracked(|e| e.take_values(t, index))?;
        self.record_index_map(&out, t, "TakeBackward0", |e, p| e.take_values(p, index))?;
        Ok(out)
    }

    /// [`Engine::take`]'s values (no autograd node).
    fn take_values(&mut self, t: &Tensor, index: &Tensor) -> Result<Tensor> {
        let t = self.resolve(t);
        if index.dtype() != DType::Int64 {
            bail!(DType, "take(): Expected a long tensor for index, but got {}", index.dtype().torch_name());
        }
        let pos = self.flat_positions(index, t.numel())?;
        let out = index.shape().to_vec();
        if pos.is_empty() {
            return self.empty_copy(&out, t.dtype());
        }
        let node = self.movement(t.node(), Op::Reshape(vec![t.numel()]));
        let g = self.gather_node(node, t.dtype(), &[t.numel()], 0, &pos)?;
        let g = self.movement(g, Op::Reshape(out.clone()));
        self.index_copy_result(g, Layout::contiguous(&out))
    }

    /// `scatter`'s value: `t` with `values` (index-shaped, already in `t`'s dtype) combined in.
    #[allow(clippy::too_many_arguments)]
    fn scatter_dim_node(
        &mut self,
        t: &Tensor,
        dim: usize,
        index: &Tensor,
        values: UOpId,
        combine: Combine,
        include_self: bool,
        op: &str,
    ) -> Result<(UOpId, Vec<bool>)> {
        let pos = self.dim_positions(t, dim, index, op)?;
        let n = t.numel();
        let old = self.movement(t.node(), Op::Reshape(vec![n]));
        let values = self.movement(values, Op::Reshape(vec![pos.len()]));
        let (node, hit) = self.scatter_node(old, t.dtype(), &[n], 0, values, &pos, combine, include_self)?;
        Ok((self.movement(node, Op::Reshape(t.shape().to_vec())), hit))
    }

    /// The src (a tensor sliced to index's shape, or a scalar broadcast to it) of a scatter.
    fn scatter_source(&mut self, t: &Tensor, index: &Tensor, src: &Operand, op: &str) -> Result<UOpId> {
        let ish = index.shape().to_vec();
        match src {
            Operand::Scalar(_) => self.operand_node(src, t.dtype(), &ish),
            Operand::Tensor(s) => {
                if s.dtype() != t.dtype() {
                    bail!(DType, "{op}(): Expected self.dtype to be equal to src.dtype");
                }
                let s = self.resolve(s);
                if s.shape() == ish.as_slice() || ish.is_empty() {
                    return Ok(if ish.is_empty() && !s.shape().is_empty() {
                        let n = s.numel().min(1);
                        let f = self.movement(s.node(), Op::Reshape(vec![s.numel()]));
                        let f = self.movement(f, Op::Shrink(vec![(0, n)]));
                        self.movement(f, Op::Reshape(vec![]))
                    } else {
                        s.node()
                    });
                }
                let cut: Vec<(usize, usize)> = ish.iter().map(|&n| (0, n)).collect();
                Ok(self.movement(s.node(), Op::Shrink(cut)))
            }
        }
    }

    /// The node and hits of `t.scatter*_(dim, index, src)`.
    #[allow(clippy::too_many_arguments)]
    fn scatter_parts(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        src: &Operand,
        combine: Combine,
        include_self: bool,
        op: &str,
    ) -> Result<(UOpId, Vec<bool>)> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len().max(1))?;
        if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
            bail!(DType, "{op}(): Expected dtype int32/int64 for index");
        }
        let src_t = if let Operand::Tensor(s) = src { Some(s) } else { None };
        Self::check_dim_index(&t, d, index, src_t, op)?;
        if index.numel() == 0 {
            let n = t.numel();
            return Ok((t.node(), vec![false; n]));
        }
        let values = self.scatter_source(&t, index, src, op)?;
        self.scatter_dim_node(&t, d, index, values, combine, include_self, op)
    }

    /// The out-of-place scatter ops: a clone (laid out like `t`) with the scatter applied.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        src: &Operand,
        combine: Combine,
        include_self: bool,
        op: &str,
    ) -> Result<Tensor> {
        let out = self.untracked(|e| e.scatter_values(t, dim, index, src, combine, include_self, op))?;
        let src_t = match src {
            Operand::Tensor(s) => Some(s),
            Operand::Scalar(_) => None,
        };
        let inputs: Vec<&Tensor> = std::iter::once(t).chain(src_t).collect();
        // `scatter` and `scatter_add` have gradients (the multiplying and reducing forms do
        // not: autograd then refuses the result).
        let name = match (combine, src_t) {
            (Combine::Sum, _) => "ScatterAddBackward0",
            (Combine::Replace, Some(_)) => "ScatterBackward0",
            (Combine::Replace, None) => "ScatterBackward1",
            _ => return Ok(out),
        };
        if !include_self || !self.index_map_wanted(&out, &inputs) {
            return Ok(out);
        }
        if let Some(s) = src_t.filter(|s| self.autograd().requires_grad(s)) {
            if s.shape() != index.shape() {
                bail!(Unsupported, "autograd through {op}() with a src larger than its index is not supported");
            }
        }
        // Each src element reads the output gradient where it landed (PyTorch's
        // `grad.gather(dim, index)`).
        self.record_source_op(
            &out,
            t,
            src,
            name,
            |e, probe, zeros| e.scatter_values(probe, dim, index, zeros, combine, true, op),
            |e, at| e.gather_values(at, dim, index),
        )?;
        Ok(out)
    }

    /// Records the node of an op that writes a source into a copy of `t` (the scatter and
    /// index ops): `t`'s elements the op kept, found by `own` (the op on a probe of `t` with the
    /// source zeroed), and, when the source needs a gradient, where each source element landed,
    /// found by `landing` (a read of a probe of the output).
    fn record_source_op(
        &mut self,
        out: &Tensor,
        t: &Tensor,
        src: &Operand,
        name: &'static str,
        own: impl FnOnce(&mut Self, &Tensor, &Operand) -> Result<Tensor>,
        landing: impl FnOnce(&mut Self, &Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        let src_t = match src {
            Operand::Tensor(s) => Some(s),
            Operand::Scalar(_) => None,
        };
        let src_needs = src_t.is_some_and(|s| self.autograd().requires_grad(s));
        let (own, from) = self.untracked(|e| {
            let probe = e.probe(t.shape())?;
            let zeros = match src {
                Operand::Tensor(s) => Operand::Tensor(e.full(s.shape(), Scalar::Int(0), Some(DType::Int64))?),
                Operand::Scalar(_) => Operand::Scalar(Scalar::Int(0)),
            };
            let own = own(e, &probe, &zeros)?;
            let from = if src_needs {
                let at = e.probe(t.shape())?;
                Some(landing(e, &at)?)
            } else {
                None
            };
            Ok((own, from))
        })?;
        let mut ins = vec![(t, Route::FromOutput, own)];
        if let (Some(s), Some(m)) = (src_t, from) {
            ins.push((s, Route::ToOutput, m));
        }
        self.record_index_maps(out, name, &ins);
        Ok(())
    }

    /// [`Engine::scatter`]'s values (no autograd node).
    #[allow(clippy::too_many_arguments)]
    fn scatter_values(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        src: &Operand,
        combine: Combine,
        include_self: bool,
        op: &str,
    ) -> Result<Tensor> {
        let (node, _) = self.scatter_parts(t, dim, index, src, combine, include_self, op)?;
        let layout = t.layout().empty_like_preserve();
        self.index_copy_result(node, layout)
    }

    /// The in-place scatter ops (`scatter_`, `scatter_add_`, `scatter_reduce_`).
    #[allow(clippy::too_many_arguments)]
    pub fn scatter_(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        src: &Operand,
        combine: Combine,
        include_self: bool,
        op: &str,
    ) -> Result<Write> {
        let target = self.realize(t)?;
        self.no_internal_overlap(&target)?;
        self.no_overlap(&target, index)?;
        if let Operand::Tensor(s) = src {
            self.no_overlap(&target, s)?;
        }
        let (node, hit) = self.scatter_parts(&target, dim, index, src, combine, include_self, op)?;
        self.write_hits(&target, node, |i| hit[i])
    }

    /// `index_add`/`index_copy`/`index_fill`'s value: along `dim`, position `index[m]` takes
    /// (or adds) the m-th slice of `source`.
    #[allow(clippy::too_many_arguments)]
    fn index_dim_parts(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Operand,
        combine: Combine,
        op: &str,
    ) -> Result<(UOpId, Vec<bool>, usize)> {
        let t = self.resolve(t);
        let nd = t.shape().len();
        let (shape, d, v) = self.dim_index(&t, dim, index, op, "int32/int64")?;
        let n = shape[d] as i64;
        let mut pos = Vec::with_capacity(v.len());
        if let Operand::Tensor(s) = source {
            if s.dtype() != t.dtype() {
                bail!(
                    DType,
                    "{op}(): self ({}) and source ({}) must have the same scalar type",
                    t.dtype().torch_name(),
                    s.dtype().torch_name()
                );
            }
            let ssh: Vec<usize> = if s.shape().is_empty() { vec![1] } else { s.shape().to_vec() };
            if combine != Combine::Replace || op.starts_with("index_copy") {
                if ssh.len() != shape.len() && !(s.shape().is_empty() && nd <= 1) {
                    bail!(Index, "{op}(): Source/destination tensor must have same slice shapes.");
                }
                if ssh[d.min(ssh.len() - 1)] != v.len() {
                    bail!(
                        Index,
                        "{op}(): Number of indices ({}) should be equal to source.size(dim): ({}), for dim: {d}",
                        v.len(),
                        ssh[d.min(ssh.len() - 1)]
                    );
                }
                for (k, n) in shape.iter().enumerate() {
                    if k != d && ssh.get(k) != Some(n) {
                        bail!(Index, "{op}(): Source/destination tensor must have same slice shapes.");
                    }
                }
            }
        }
        for &i in &v {
            let j = if i < 0 && op.starts_with("index_fill") { i + n } else { i };
            if j < 0 || j >= n {
                bail!(Index, "index out of range in self");
            }
            pos.push(j as usize);
        }
        let old = self.movement(t.node(), Op::Reshape(shape.clone()));
        let mut vshape = shape.clone();
        vshape[d] = pos.len();
        let values = self.operand_node(source, t.dtype(), &vshape)?;
        let (node, hit) = self.scatter_node(old, t.dtype(), &shape, d, values, &pos, combine, true)?;
        let node = self.movement(node, Op::Reshape(t.shape().to_vec()));
        Ok((node, hit, d))
    }

    /// `index_add`, `index_copy`, `index_fill` out of place: a clone laid out like `t`.
    pub fn index_dim(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Operand,
        combine: Combine,
        op: &str,
    ) -> Result<Tensor> {
        let out = self.untracked(|e| e.index_dim_values(t, dim, index, source, combine, op))?;
        let src_t = match source {
            Operand::Tensor(s) => Some(s),
            Operand::Scalar(_) => None,
        };
        let inputs: Vec<&Tensor> = std::iter::once(t).chain(src_t).collect();
        if !self.index_map_wanted(&out, &inputs) {
            return Ok(out);
        }
        let name = match (op, src_t) {
            ("index_add", _) => "IndexAddBackward0",
            ("index_copy", _) => "IndexCopyBackward0",
            (_, None) => "IndexFillBackward0",
            (_, Some(_)) => "IndexFillBackward1",
        };
        if op == "index_fill" && src_t.is_some_and(|s| self.autograd().requires_grad(s)) {
            bail!(Unsupported, "autograd through index_fill() with a value that requires grad is not supported");
        }
        // Each source slice reads the output gradient at its index (`grad.index_select`).
        self.record_source_op(
            &out,
            t,
            source,
            name,
            |e, probe, zeros| e.index_dim_values(probe, dim, index, zeros, combine, op),
            |e, at| e.index_select(at, dim, index),
        )?;
        Ok(out)
    }

    /// [`Engine::index_dim`]'s values (no autograd node).
    fn index_dim_values(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Operand,
        combine: Combine,
        op: &str,
    ) -> Result<Tensor> {
        let (node, _, _) = self.index_dim_parts(t, dim, index, source, combine, op)?;
        let layout = t.layout().empty_like_preserve();
        self.index_copy_result(node, layout)
    }

    /// `index_add_`, `index_copy_`, `index_fill_`.
    pub fn index_dim_(
        &mut self,
        t: &Tensor,
        dim: i64,
        index: &Tensor,
        source: &Operand,
        combine: Combine,
        op: &str,
    ) -> Result<Write> {
        let target = self.realize(t)?;
        self.no_internal_overlap(&target)?;
        if let Operand::Tensor(s) = source {
            self.no_overlap(&target, s)?;
        }
        self.no_overlap(&target, index)?;
        let (node, hit, d) = self.index_dim_parts(&target, dim, index, source, combine, op)?;
        let shape: Vec<usize> = if target.shape().is_empty() { vec![1] } else { target.shape().to_vec() };
        self.write_hits(&target, node, |i| hit[coords(i, &shape)[d]])
    }

    /// `t.put_(index, source, accumulate)`: flat positions of `t` (negative wraps).
    pub fn put_(&mut self, t: &Tensor, index: &Tensor, source: &Tensor, accumulate: bool) -> Result<Write> {
        let target = self.realize(t)?;
        let (node, hit) = self.put_parts(&target, index, source, accumulate)?;
        self.write_hits(&target, node, |i| hit[i])
    }

    /// `t.put(index, source, accumulate)`: a clone laid out like `t`, with the put.
    pub fn put(&mut self, t: &Tensor, index: &Tensor, source: &Tensor, accumulate: bool) -> Result<Tensor> {
        let out = self.untracked(|e| e.put_values(t, index, source, accumulate))?;
        if !self.index_map_wanted(&out, &[t, source]) {
            return Ok(out);
        }
        let needs_source = self.autograd().requires_grad(source);
        let (own, from) = self.untracked(|e| {
            let probe = e.probe(t.shape())?;
            let zeros = e.full(source.shape(), Scalar::Int(0), Some(DType::Int64))?;
            let own = e.put_values(&probe, index, &zeros, accumulate)?;
            // Each source element reads the gradient where it was put.
            let from = if needs_source { Some(e.take_values(&probe, index)?) } else { None };
            Ok((own, from))
        })?;
        let mut ins = vec![(t, Route::FromOutput, own)];
        if let Some(m) = from {
            ins.push((source, Route::ToOutput, m));
        }
        self.record_index_maps(&out, "PutBackward0", &ins);
        Ok(out)
    }

    /// [`Engine::put`]'s values (no autograd node).
    fn put_values(&mut self, t: &Tensor, index: &Tensor, source: &Tensor, accumulate: bool) -> Result<Tensor> {
        let t = self.realize(t)?;
        let (node, _) = self.put_parts(&t, index, source, accumulate)?;
        let layout = t.layout().empty_like_preserve();
        self.index_copy_result(node, layout)
    }

    fn put_parts(
        &mut self,
        target: &Tensor,
        index: &Tensor,
        source: &Tensor,
        accumulate: bool,
    ) -> Result<(UOpId, Vec<bool>)> {
        if index.dtype() != DType::Int64 {
            bail!(DType, "put_(): Expected a long tensor for index, but got {}", index.dtype().torch_name());
        }
        if source.dtype() != target.dtype() {
            bail!(
                DType,
                "put_(): self and source expected to have the same dtype, but got self.dtype = {} and source.dtype = {}",
                target.dtype().torch_name(),
                source.dtype().torch_name()
            );
        }
        if index.numel() != source.numel() {
            bail!(
                Shape,
                "put_(): Expected source and index to have the same number of elements, but got source.numel() = {}, index.numel() = {}",
                source.numel(),
                index.numel()
            );
        }
        let pos = self.flat_positions(index, target.numel())?;
        let old = self.movement(target.node(), Op::Reshape(vec![target.numel()]));
        let src = self.resolve(source);
        let vals = self.movement(src.node(), Op::Reshape(vec![src.numel()]));
        let combine = if accumulate { Combine::Sum } else { Combine::Replace };
        let (node, hit) = self.scatter_node(old, target.dtype(), &[target.numel()], 0, vals, &pos, combine, true)?;
        Ok((self.movement(node, Op::Reshape(target.shape().to_vec())), hit))
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
