//! Copies that look like views: `repeat`, `tile`, `repeat_interleave`, `roll`, `narrow_copy`,
//! `fliplr`/`flipud` and `rot90`. PyTorch computes each into a new storage, whose strides
//! follow its own rule (row-major for most, the input's layout for a flip, cat's memory format
//! for roll, a transposed copy for a quarter turn); the values are movement ops, compares with
//! index tensors and reduces over the lazy graph, so every backend runs them without a kernel
//! of its own. None is a view, so tinygrad and the bridge see a fresh contiguous tensor.

use super::nn::{is_channels_last, nchw_output};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::torch::format::MemoryFormat;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, Op, UOpId};

impl Engine {
    /// An int32 node of `shape` holding each element's index along `axis`.
    pub(crate) fn axis_index(&mut self, shape: &[usize], axis: usize) -> Result<UOpId> {
        let n = shape[axis];
        let iota = self.from_data(Data::I32((0..n).map(|i| i as i32).collect()), &[n])?;
        let mut line = vec![1; shape.len()];
        line[axis] = n;
        let node = self.graph.push(Op::Reshape(line.clone()), DType::Int32, line.clone(), vec![iota.node()]);
        self.broadcast_node(node, DType::Int32, &line, shape)
    }

    /// A new row-major storage of `shape` that holds no element (a copy of nothing).
    pub(crate) fn empty_copy(&mut self, shape: &[usize], dtype: DType) -> Result<Tensor> {
        self.full(shape, Scalar::Int(0), Some(dtype))
    }

    /// `t.repeat(repeats)`: new leading dims for extra repeats, each dim tiled; row-major.
    pub fn repeat(&mut self, t: &Tensor, repeats: &[i64]) -> Result<Tensor> {
        let out = self.untracked(|e| e.repeat_values(t, repeats))?;
        self.record_index_map(&out, t, "RepeatBackward0", |e, p| e.repeat_values(p, repeats))?;
        Ok(out)
    }

    /// [`Engine::repeat`]'s values (no autograd node).
    fn repeat_values(&mut self, t: &Tensor, repeats: &[i64]) -> Result<Tensor> {
        let t = self.resolve(t);
        let nd = t.shape().len();
        if repeats.len() < nd {
            bail!(Shape, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        }
        let padded: Vec<usize> = std::iter::repeat_n(1, repeats.len() - nd).chain(t.shape().iter().copied()).collect();
        let target: Vec<i64> = padded.iter().zip(repeats).map(|(&n, &r)| n as i64 * r).collect();
        if let Some(&neg) = target.iter().find(|&&n| n < 0) {
            bail!(Shape, "Trying to create tensor with negative dimension {neg}: {target:?}");
        }
        let out: Vec<usize> = target.iter().map(|&n| n as usize).collect();
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, t.dtype());
        }
        // (1, s0, 1, s1, ...) expanded to (r0, s0, r1, s1, ...), then merged pairwise.
        let ones: Vec<usize> = padded.iter().flat_map(|&n| [1, n]).collect();
        let wide: Vec<usize> = padded.iter().zip(repeats).flat_map(|(&n, &r)| [r as usize, n]).collect();
        let node = self.movement(t.node(), Op::Reshape(ones));
        let node = self.movement(node, Op::Expand(wide));
        let node = self.movement(node, Op::Reshape(out.clone()));
        let node = self.graph.push(Op::Contiguous, t.dtype(), out, vec![node]);
        self.computed(node)
    }

    /// `t.tile(dims)`: `repeat` with `dims` padded by leading 1s to the tensor's rank.
    pub fn tile(&mut self, t: &Tensor, dims: &[i64]) -> Result<Tensor> {
        let nd = t.shape().len();
        let reps: Vec<i64> =
            std::iter::repeat_n(1, nd.saturating_sub(dims.len())).chain(dims.iter().copied()).collect();
        self.repeat(t, &reps)
    }

    /// `t.repeat_interleave(repeats, dim)` with an int: each element `repeats` times in a row
    /// along `dim` (of the flattened tensor when `dim` is `None`); row-major.
    pub fn repeat_interleave(&mut self, t: &Tensor, repeats: i64, dim: Option<i64>) -> Result<Tensor> {
        let t = self.resolve(t);
        let d = wrap_dim(dim.unwrap_or(0), t.shape().len())?;
        if repeats < 0 {
            bail!(Shape, "Repeats must be non-negative");
        }
        let (node, shape) = self.interleave_input(&t, dim);
        let mut out = shape.clone();
        out[d] *= repeats as usize;
        check_numel(&out)?;
        let mut ones = shape.clone();
        ones.insert(d + 1, 1);
        let mut wide = ones.clone();
        wide[d + 1] = repeats as usize;
        let res = if out.contains(&0) {
            self.empty_copy(&out, t.dtype())?
        } else {
            let node = self.movement(node, Op::Reshape(ones));
            let node = self.movement(node, Op::Expand(wide.clone()));
            let node = self.movement(node, Op::Reshape(out.clone()));
            let node = self.graph.push(Op::Contiguous, t.dtype(), out, vec![node]);
            self.computed(node)?
        };
        // PyTorch clones the expanded `(.., n, repeats, ..)` tensor and flattens the clone:
        // the result is a view of that clone (`_is_view()` is true, `_base` has `wide`'s shape).
        let base = self.internal_base(&res, &wide);
        Ok(res.with_base(base))
    }

    /// `t.repeat_interleave(repeats, dim)` with a tensor of counts (one per element along
    /// `dim`, or one for all): `index_select` with `repeat_interleave(repeats)`; row-major.
    pub fn repeat_interleave_by(&mut self, t: &Tensor, repeats: &Tensor, dim: Option<i64>) -> Result<Tensor> {
        let t = self.resolve(t);
        let (node, shape) = self.interleave_input(&t, dim);
        let d = if dim.is_some() { wrap_dim(dim.unwrap_or(0), shape.len())? } else { 0 };
        let n = shape[d];
        let counts = match repeats.shape() {
            [] | [1] => vec![self.counts(repeats)?[0]; n],
            [m] if *m == n => self.counts(repeats)?,
            [m] => bail!(
                Shape,
                "repeats must have the same size as input along dim, but got repeats.size(0) = {m} and input.size({d}) = {n}"
            ),
            _ => bail!(Shape, "repeats must be 0-dim or 1-dim tensor"),
        };
        let index: Vec<usize> = counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i, c)).collect();
        self.select_along(node, t.dtype(), &shape, d, &index)
    }

    /// `torch.repeat_interleave(repeats)`: each index `i` repeated `repeats[i]` times.
    pub fn repeat_interleave_index(&mut self, repeats: &Tensor) -> Result<Tensor> {
        if repeats.shape().len() != 1 {
            bail!(Shape, "repeat_interleave only accept 1D vector as repeat");
        }
        let counts = self.counts(repeats)?;
        let index: Vec<i32> = counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i as i32, c)).collect();
        let n = index.len();
        check_numel(&[n])?;
        self.from_data(Data::I32(index).cast(DType::Int64), &[n])
    }

    /// The counts of a repeats tensor: integers, none negative.
    fn counts(&mut self, repeats: &Tensor) -> Result<Vec<usize>> {
        if !matches!(repeats.dtype(), DType::Int32 | DType::Int64) {
            bail!(DType, "repeats has to be Long or Int tensor");
        }
        let data = self.values(repeats)?;
        let counts: Vec<i64> = (0..data.len()).map(|i| data.get_f64(i) as i64).collect();
        if counts.iter().any(|&c| c < 0) {
            bail!(Shape, "repeats can not be negative");
        }
        let total: i64 = counts.iter().sum();
        check_numel(&[usize::try_from(total).unwrap_or(usize::MAX)])?;
        Ok(counts.into_iter().map(|c| c as usize).collect())
    }

    /// The input of `repeat_interleave`: the tensor, or its flattening when no dim is given.
    fn interleave_input(&mut self, t: &Tensor, dim: Option<i64>) -> (UOpId, Vec<usize>) {
        match dim {
            Some(_) => (t.node(), t.shape().to_vec()),
            None => {
                let flat = vec![t.numel()];
                (self.movement(t.node(), Op::Reshape(flat.clone())), flat)
            }
        }
    }

    /// `index_select(axis, index)` of a node with host-known indices (the gather primitive of
    /// `engine/indexing.rs`), row-major.
    fn select_along(
        &mut self,
        node: UOpId,
        dtype: DType,
        shape: &[usize],
        axis: usize,
        index: &[usize],
    ) -> Result<Tensor> {
        let mut out = shape.to_vec();
        out[axis] = index.len();
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, dtype);
        }
        let node = self.gather_node(node, dtype, shape, axis, index)?;
        let node = self.graph.push(Op::Contiguous, dtype, out, vec![node]);
        self.computed(node)
    }

    /// `torch.roll(t, shifts, dims)`: without dims, the flattened tensor rolls and keeps the
    /// shape (row-major); otherwise one dim at a time, each a cat of two narrows.
    pub fn roll(&mut self, t: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        let out = self.untracked(|e| e.roll_values(t, shifts, dims))?;
        self.record_index_map(&out, t, "RollBackward0", |e, p| e.roll_values(p, shifts, dims))?;
        Ok(out)
    }

    /// [`Engine::roll`]'s values (no autograd node).
    fn roll_values(&mut self, t: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        let t = self.resolve(t);
        if shifts.is_empty() {
            bail!(Shape, "`shifts` required");
        }
        // PyTorch returns a copy of an empty tensor before it reads the dims.
        if t.numel() == 0 {
            return self.copy(&t);
        }
        if dims.is_empty() && shifts.len() == 1 {
            let shape = t.shape().to_vec();
            let n = t.numel();
            if n == 0 {
                return self.empty_copy(&shape, t.dtype());
            }
            let flat = self.movement(t.node(), Op::Reshape(vec![n]));
            let rolled = self.rolled_node(flat, t.dtype(), &[n], 0, shifts[0]);
            let node = self.movement(rolled, Op::Reshape(shape.clone()));
            let node = self.graph.push(Op::Contiguous, t.dtype(), shape, vec![node]);
            return self.computed(node);
        }
        if shifts.len() != dims.len() {
            bail!(Shape, "shifts and dimensions must align. shifts: {}, dims:{}", shifts.len(), dims.len());
        }
        let mut cur = t;
        for (&shift, &dim) in shifts.iter().zip(dims) {
            cur = self.roll_dim(&cur, shift, dim)?;
        }
        Ok(cur)
    }

    /// One dim of `roll`: `cat(narrow(start, n - start), narrow(0, start))`, laid out in cat's
    /// memory format (channels-last only when both pieces suggest it).
    fn roll_dim(&mut self, t: &Tensor, shift: i64, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, t.shape().len())?;
        if t.shape().is_empty() {
            bail!(Index, "dimension specified as {dim} but tensor has no dimensions");
        }
        if t.numel() == 0 {
            return self.copy(t);
        }
        let n = t.shape()[d] as i64;
        let start = (n - shift).rem_euclid(n);
        let pieces = [t.layout().narrow(d as i64, start, n - start)?, t.layout().narrow(d as i64, 0, start)?];
        let format =
            if pieces.iter().all(is_channels_last) { MemoryFormat::ChannelsLast } else { MemoryFormat::Contiguous };
        let shape = t.shape().to_vec();
        let node = self.rolled_node(t.node(), t.dtype(), &shape, d, shift);
        let node = self.graph.push(Op::Contiguous, t.dtype(), shape.clone(), vec![node]);
        self.computed_as(node, nchw_output(&shape, format))
    }

    /// `node` rolled by `shift` along `axis`: the two pieces padded to their places and added,
    /// as `cat` builds it.
    fn rolled_node(&mut self, node: UOpId, dtype: DType, shape: &[usize], axis: usize, shift: i64) -> UOpId {
        let n = shape[axis];
        let start = (n as i64 - shift).rem_euclid(n as i64) as usize;
        if start == 0 {
            return node;
        }
        let piece = |e: &mut Engine, from: usize, to: usize, before: usize, after: usize| {
            let cut: Vec<(usize, usize)> =
                shape.iter().enumerate().map(|(i, &s)| if i == axis { (from, to) } else { (0, s) }).collect();
            let pad: Vec<(usize, usize)> =
                (0..shape.len()).map(|i| if i == axis { (before, after) } else { (0, 0) }).collect();
            let cut = e.movement(node, Op::Shrink(cut));
            e.movement(cut, Op::Pad(pad))
        };
        let head = piece(self, start, n, 0, start);
        let tail = piece(self, 0, start, n - start, 0);
        self.graph.push(Op::Binary(BinaryOp::Add), dtype, shape.to_vec(), vec![head, tail])
    }

    /// `t.narrow_copy(dim, start, length)`: narrow's checks, a row-major copy.
    pub fn narrow_copy(&mut self, t: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        let t = self.resolve(t);
        let layout = t.layout().narrow(dim, start, length)?;
        let d = wrap_dim(dim, t.shape().len())?;
        let s = if start < 0 { start + t.shape()[d] as i64 } else { start } as usize;
        let cut: Vec<(usize, usize)> = t
            .shape()
            .iter()
            .enumerate()
            .map(|(i, &n)| if i == d { (s, s + length as usize) } else { (0, n) })
            .collect();
        let node = self.movement(t.node(), Op::Shrink(cut));
        let node = self.graph.push(Op::Contiguous, t.dtype(), layout.sizes().to_vec(), vec![node]);
        self.computed(node)
    }

    /// `torch.fliplr`: flip of dim 1, laid out like the input.
    pub fn fliplr(&mut self, t: &Tensor) -> Result<Tensor> {
        if t.shape().len() < 2 {
            bail!(Shape, "Input must be >= 2-d.");
        }
        self.flip(t, &[1])
    }

    /// `torch.flipud`: flip of dim 0, laid out like the input.
    pub fn flipud(&mut self, t: &Tensor) -> Result<Tensor> {
        if t.shape().is_empty() {
            bail!(Shape, "Input must be >= 1-d.");
        }
        self.flip(t, &[0])
    }

    /// `torch.rot90(t, k, dims)`: a quarter turn is a flip of one dim whose copy is then
    /// transposed in place (a non-contiguous new storage); a half turn flips both dims; a whole
    /// turn is a row-major clone.
    pub fn rot90(&mut self, t: &Tensor, k: i64, dims: &[i64]) -> Result<Tensor> {
        let out = self.untracked(|e| e.rot90_values(t, k, dims))?;
        self.record_index_map(&out, t, "Rot90Backward0", |e, p| e.rot90_values(p, k, dims))?;
        Ok(out)
    }

    /// [`Engine::rot90`]'s values (no autograd node).
    fn rot90_values(&mut self, t: &Tensor, k: i64, dims: &[i64]) -> Result<Tensor> {
        let t = self.resolve(t);
        let total = t.shape().len() as i64;
        if dims.len() != 2 {
            bail!(Shape, "expected total rotation dims == 2, but got dims = {}", dims.len());
        }
        if total < 2 {
            bail!(Shape, "expected total dims >= 2, but got total dims = {total}");
        }
        let (d0, d1) = (dims[0], dims[1]);
        if d0 == d1 || (d0 - d1).abs() == total {
            bail!(Index, "expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}");
        }
        if d0 >= total || d0 < -total {
            bail!(Index, "Rotation dim0 out of range, dim0 = {d0}");
        }
        if d1 >= total || d1 < -total {
            bail!(Index, "Rotation dim1 out of range, dim1 = {d1}");
        }
        match k.rem_euclid(4) {
            1 => self.flip_transposed(&t, d1, (d0, d1)),
            2 => self.flip(&t, dims),
            3 => self.flip_transposed(&t, d0, (d0, d1)),
            _ => self.clone_as(&t, MemoryFormat::Contiguous),
        }
    }

    /// `t.flip([flip]).transpose_(swap)`: the flip's copy (laid out like `t`) with its
    /// metadata transposed.
    fn flip_transposed(&mut self, t: &Tensor, flip: i64, swap: (i64, i64)) -> Result<Tensor> {
        let n = t.shape().len();
        let f = wrap_dim(flip, n)?;
        let (a, b) = (wrap_dim(swap.0, n)?, wrap_dim(swap.1, n)?);
        let axes: Vec<bool> = (0..n).map(|i| i == f).collect();
        let mut perm: Vec<usize> = (0..n).collect();
        perm.swap(a, b);
        let layout = t.layout().empty_like_preserve().transpose(swap.0, swap.1)?;
        let node = self.movement(t.node(), Op::Flip(axes));
        let node = self.movement(node, Op::Permute(perm));
        let node = self.graph.push(Op::Contiguous, t.dtype(), layout.sizes().to_vec(), vec![node]);
        self.computed_as(node, layout)
    }
}

#[cfg(test)]
mod tests {
    use crate::tensor::{Engine, Tensor};
    use crate::uop::buffer::Data;

    fn arange(e: &mut Engine, shape: &[usize]) -> Tensor {
        let n: usize = shape.iter().product();
        e.from_data(Data::F32((0..n).map(|i| i as f32).collect()), shape).unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn roll_keeps_channels_last_when_both_pieces_suggest_it() {
        let mut e = Engine::new();
        let x = arange(&mut e, &[2, 2, 3, 3]);
        let nhwc = e.permute(&x, &[0, 2, 3, 1]).unwrap_or_else(|err| panic!("{err}"));
        let nhwc = e.contiguous(&nhwc).unwrap_or_else(|err| panic!("{err}"));
        let cl = e.permute(&nhwc, &[0, 3, 1, 2]).unwrap_or_else(|err| panic!("{err}"));
        let rolled = e.roll(&cl, &[1], &[2]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(rolled.layout().strides(), &[18, 1, 6, 2]);
        // A whole turn leaves an empty piece, which suggests no format: row-major.
        let whole = e.roll(&cl, &[3], &[2]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(whole.layout().strides(), &[18, 9, 3, 1]);
        // Without dims the flattened tensor rolls: row-major.
        let flat = e.roll(&cl, &[1], &[]).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(flat.layout().strides(), &[18, 9, 3, 1]);
        let want: Vec<f64> = (0..36).map(|i| f64::from((i + 35) % 36)).collect();
        let got = e.values(&flat).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!((0..got.len()).map(|i| got.get_f64(i)).collect::<Vec<_>>(), want);
    }

    #[test]
    fn repeat_interleave_by_counts_selects_rows() {
        let mut e = Engine::new();
        let x = arange(&mut e, &[3, 2]);
        let counts = e.from_data(Data::I32(vec![2, 0, 1]), &[3]).unwrap_or_else(|err| panic!("{err}"));
        let out = e.repeat_interleave_by(&x, &counts, Some(0)).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(out.shape(), &[3, 2]);
        let got = e.values(&out).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!((0..got.len()).map(|i| got.get_f64(i)).collect::<Vec<_>>(), vec![0.0, 1.0, 0.0, 1.0, 4.0, 5.0]);
    }
}
