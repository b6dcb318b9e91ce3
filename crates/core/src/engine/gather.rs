//! The two primitives every index op is built on: a gather (read at positions along an axis)
//! and a scatter (combine values into positions along an axis, keeping what no index hit).
//!
//! Positions are host values, checked before they get here. A gather is one [`Op::Gather`], an
//! indexed load: one read per output element. A scatter that replaces reads, for each target
//! position, the last contribution that landed on it (a gather), so it costs the target once.
//! A scatter that combines (sum, prod, mean, amax, amin) first folds the contributions that
//! share a target: contributions are grouped by target in index order, each group cut into
//! chunks of at most [`CHUNK`], each chunk gathered into a `[.., chunks, CHUNK, ..]` block and
//! reduced over the chunk axis; the chunks' results are grouped again until every target holds
//! one value. Each round costs the contributions once (padding is at most one chunk per
//! target), so a scatter of `m` contributions into `f` positions costs `O(m + f)` per row,
//! never `m x f`.

use super::reduce::KeepDim;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Engine;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, Op, ReduceOp, UOpId};

/// The most contributions one reduce step of a combining scatter folds at once.
pub const CHUNK: usize = 16;

/// The note a write with repeated positions and no accumulation leaves on its step.
pub const DUPLICATE_INDEX_NOTE: &str = "the index repeats a position: PyTorch documents the result of index_put_ (accumulate=False) and scatter_ with duplicate indices as undefined; its CPU kernels, as here, keep the last value written";

/// How a scatter combines the values that land on one position with what was there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// The last value written wins (PyTorch's CPU order; PyTorch documents duplicates as undefined).
    Replace,
    Sum,
    Prod,
    Mean,
    Amax,
    Amin,
}

impl Combine {
    /// `scatter_reduce`'s `reduce=` names.
    pub fn from_name(name: &str) -> Option<Combine> {
        Some(match name {
            "sum" | "add" => Combine::Sum,
            "prod" | "multiply" => Combine::Prod,
            "mean" => Combine::Mean,
            "amax" | "max" => Combine::Amax,
            "amin" | "min" => Combine::Amin,
            _ => return None,
        })
    }

    /// The reduce that folds contributions, and the binary op that folds the old value in.
    fn ops(self) -> (ReduceOp, BinaryOp) {
        match self {
            Combine::Prod => (ReduceOp::Prod, BinaryOp::Mul),
            Combine::Amax => (ReduceOp::Max, BinaryOp::Max),
            Combine::Amin => (ReduceOp::Min, BinaryOp::Min),
            Combine::Replace | Combine::Sum | Combine::Mean => (ReduceOp::Sum, BinaryOp::Add),
        }
    }
}

impl Engine {
    /// `node` (of `shape`) read at `index[j]` along `axis`: out[.., j, ..] = in[.., index[j], ..].
    /// Returns a node of `shape` with `axis` sized `index.len()`, in `dtype`.
    pub(crate) fn gather_node(
        &mut self,
        node: UOpId,
        dtype: DType,
        shape: &[usize],
        axis: usize,
        index: &[usize],
    ) -> Result<UOpId> {
        let from = self.graph.node(node).dtype;
        let node = self.cast_node(node, from, dtype);
        // Callers may hand over the node in another shape of the same elements.
        let node =
            if self.graph.node(node).shape == shape { node } else { self.movement(node, Op::Reshape(shape.to_vec())) };
        if index.is_empty() || shape.contains(&0) {
            let mut out = shape.to_vec();
            out[axis] = index.len();
            return Ok(self.graph.push(Op::Const(Scalar::Int(0)), dtype, out, vec![]));
        }
        let at = self.from_data(Data::I32(index.iter().map(|&i| i as i32).collect()), &[index.len()])?;
        self.gather_node_at(node, dtype, shape, axis, &at)
    }

    /// A gather of `node` along `axis` at the positions a 1-D integer tensor holds (checked in
    /// range by the caller): the positions stay a graph value, so the kernel reads them from
    /// the index's buffer and the same graph serves any index values.
    pub(crate) fn gather_node_at(
        &mut self,
        node: UOpId,
        dtype: DType,
        shape: &[usize],
        axis: usize,
        index: &crate::tensor::Tensor,
    ) -> Result<UOpId> {
        let n = index.numel();
        let mut out = shape.to_vec();
        out[axis] = n;
        let from = self.graph.node(node).dtype;
        let node = self.cast_node(node, from, dtype);
        // Callers may hand over the node in another shape of the same elements.
        let node =
            if self.graph.node(node).shape == shape { node } else { self.movement(node, Op::Reshape(shape.to_vec())) };
        if out.contains(&0) || shape[axis] == 0 {
            return Ok(self.graph.push(Op::Const(Scalar::Int(0)), dtype, out, vec![]));
        }
        let at = self.cast_node(index.node(), index.dtype(), DType::Int32);
        let mut line = vec![1; shape.len()];
        line[axis] = n;
        let at = self.movement(at, Op::Reshape(line.clone()));
        let at = self.broadcast_node(at, DType::Int32, &line, &out)?;
        Ok(self.graph.push(Op::Gather(axis), dtype, out, vec![node, at]))
    }

    /// An int32 node of `shape` holding `values[i]` at position `i` along `axis`.
    pub(super) fn line(&mut self, values: &[usize], shape: &[usize], axis: usize) -> Result<UOpId> {
        let n = values.len();
        let t = self.from_data(Data::I32(values.iter().map(|&i| i as i32).collect()), &[n])?;
        let mut line = vec![1; shape.len()];
        line[axis] = n;
        let node = self.movement(t.node(), Op::Reshape(line.clone()));
        self.broadcast_node(node, DType::Int32, &line, shape)
    }

    /// A bool node of `shape` that holds along `axis` whether each position is in `hit`.
    fn hit_line(&mut self, hit: &[bool], shape: &[usize], axis: usize) -> Result<UOpId> {
        let n = hit.len();
        let t = self.from_data(Data::Bool(hit.to_vec()), &[n])?;
        let mut line = vec![1; shape.len()];
        line[axis] = n;
        let node = self.movement(t.node(), Op::Reshape(line.clone()));
        self.broadcast_node(node, DType::Bool, &line, shape)
    }

    /// `old` (of `shape`, in `dtype`) with `values` (of `shape` but `pos.len()` along `axis`)
    /// combined into position `pos[m]` along `axis`. Returns the new node and which positions
    /// along `axis` an index hit.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scatter_node(
        &mut self,
        old: UOpId,
        dtype: DType,
        shape: &[usize],
        axis: usize,
        values: UOpId,
        pos: &[usize],
        combine: Combine,
        include_self: bool,
    ) -> Result<(UOpId, Vec<bool>)> {
        let f = shape[axis];
        let mut hit = vec![false; f];
        let mut count = vec![0usize; f];
        let mut winner = vec![0usize; f];
        for (m, &p) in pos.iter().enumerate() {
            hit[p] = true;
            count[p] += 1;
            winner[p] = m;
        }
        if pos.is_empty() || shape.contains(&0) {
            return Ok((old, hit));
        }
        if combine == Combine::Replace && count.iter().any(|&c| c > 1) {
            self.note(DUPLICATE_INDEX_NOTE);
        }
        let vdtype = self.graph.node(values).dtype;
        let values = self.cast_node(values, vdtype, dtype);
        let mut vshape = shape.to_vec();
        vshape[axis] = pos.len();
        let hit_node = self.hit_line(&hit, shape, axis)?;
        if combine == Combine::Replace {
            let picked = self.gather_node(values, dtype, &vshape, axis, &winner)?;
            let node = self.graph.push(Op::Where, dtype, shape.to_vec(), vec![hit_node, picked, old]);
            return Ok((node, hit));
        }
        let (rop, bop) = combine.ops();
        let (folded, slot) = self.fold_by_target(rop, values, dtype, &vshape, axis, (pos, f))?;
        let mut fshape = shape.to_vec();
        fshape[axis] = slot.iter().flatten().count();
        let slots: Vec<usize> = slot.iter().map(|s| s.unwrap_or(0)).collect();
        let red = self.gather_node(folded, dtype, &fshape, axis, &slots)?;
        let combined =
            if include_self { self.graph.push(Op::Binary(bop), dtype, shape.to_vec(), vec![old, red]) } else { red };
        let combined = if combine == Combine::Mean {
            let n: Vec<usize> = count.iter().map(|&c| (c + usize::from(include_self)).max(1)).collect();
            let counts = self.line(&n, shape, axis)?;
            let counts = self.cast_node(counts, DType::Int32, dtype);
            let div = if dtype.is_float() { BinaryOp::Div } else { BinaryOp::FloorDiv };
            self.graph.push(Op::Binary(div), dtype, shape.to_vec(), vec![combined, counts])
        } else {
            combined
        };
        let node = self.graph.push(Op::Where, dtype, shape.to_vec(), vec![hit_node, combined, old]);
        Ok((node, hit))
    }

    /// Folds by `op` the contributions `values` (of `vshape`, one per `target` entry along
    /// `axis`) that share a target (each in `0..f`), in index order. Returns a node with one
    /// value per distinct target along `axis` and, per target position, where its value is.
    fn fold_by_target(
        &mut self,
        op: ReduceOp,
        values: UOpId,
        dtype: DType,
        vshape: &[usize],
        axis: usize,
        (target, f): (&[usize], usize),
    ) -> Result<(UOpId, Vec<Option<usize>>)> {
        let (mut node, mut shape, mut target) = (values, vshape.to_vec(), target.to_vec());
        loop {
            // Each target's contributions, in order, cut into chunks.
            let mut groups: Vec<Vec<usize>> = vec![Vec::new(); f];
            for (m, &p) in target.iter().enumerate() {
                groups[p].push(m);
            }
            let chunks: Vec<(usize, &[usize])> =
                groups.iter().enumerate().flat_map(|(p, g)| g.chunks(CHUNK).map(move |c| (p, c))).collect();
            if chunks.len() == target.len() {
                // One contribution per target: `node` holds the folded values.
                let mut slot = vec![None; f];
                for (m, &p) in target.iter().enumerate() {
                    slot[p] = Some(m);
                }
                return Ok((node, slot));
            }
            let k = chunks.iter().map(|c| c.1.len()).max().unwrap_or(1);
            // Every chunk padded to `k` by repeating its first contribution, masked below
            // for sum and product (max and min are unchanged by a repeat).
            let mut picks = Vec::with_capacity(chunks.len() * k);
            let mut valid = Vec::with_capacity(chunks.len() * k);
            for (_, c) in &chunks {
                for j in 0..k {
                    picks.push(c.get(j).copied().unwrap_or(c[0]));
                    valid.push(j < c.len());
                }
            }
            let gathered = self.gather_node(node, dtype, &shape, axis, &picks)?;
            let mut wide = shape.clone();
            wide[axis] = chunks.len();
            wide.insert(axis + 1, k);
            let gathered = self.movement(gathered, Op::Reshape(wide.clone()));
            let gathered = if matches!(op, ReduceOp::Sum | ReduceOp::Prod) && valid.iter().any(|v| !v) {
                let mut flat = wide.clone();
                flat[axis] *= k;
                flat.remove(axis + 1);
                let ok = self.hit_line(&valid, &flat, axis)?;
                let ok = self.movement(ok, Op::Reshape(wide.clone()));
                let identity = Scalar::Int(if op == ReduceOp::Prod { 1 } else { 0 });
                let identity = self.graph.push(Op::Const(identity), dtype, wide.clone(), vec![]);
                self.graph.push(Op::Where, dtype, wide.clone(), vec![ok, gathered, identity])
            } else {
                gathered
            };
            let red = self.reduce_node(op, gathered, dtype, &wide, &[axis + 1], KeepDim::Drop)?;
            let rdtype = self.graph.node(red).dtype;
            node = self.cast_node(red, rdtype, dtype);
            shape[axis] = chunks.len();
            target = chunks.iter().map(|c| c.0).collect();
        }
    }
}
