//! `masked_select` and `masked_scatter` (out of place and in place): the row-major positions a
//! boolean mask selects, read by one `GATHER` or written by one scatter.

use super::indexing::{broadcast_host, Combine};
use crate::autograd::Route;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, StorageRef, Tensor, Write};
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{Op, UOpId};

impl Engine {
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
    fn masked_scatter_node(
        &mut self,
        t: &Tensor,
        mask: &Tensor,
        source: &Tensor,
        short: ShortSource,
    ) -> Result<(UOpId, Vec<bool>)> {
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
            if short == ShortSource::WritesWhatItReached {
                self.partial_masked_scatter(t, &pos, source)?;
            }
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
        let StorageRef::Realized(s) = target.storage() else { return Ok(()) };
        self.realize_pending_reading(s)?;
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
        // The out-of-place form writes a clone: a short source leaves the input as it was.
        let (node, _) = self.masked_scatter_node(t, mask, source, ShortSource::WritesNothing)?;
        // A row-major clone, whatever `t`'s layout (PyTorch's out-of-place masked_scatter).
        self.index_copy_result(node, Layout::contiguous(t.shape()))
    }

    pub fn masked_scatter_(&mut self, t: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Write> {
        let target = self.realize(t)?;
        self.no_internal_overlap(&target)?;
        let (node, hit) = self.masked_scatter_node(&target, mask, source, ShortSource::WritesWhatItReached)?;
        self.write_hits(&target, node, |i| hit[i])
    }
}

/// What `masked_scatter` does when the source has fewer elements than the mask selects: the
/// in-place kernel has written the positions it reached when it fails; the out-of-place form
/// failed on its own clone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ShortSource {
    WritesWhatItReached,
    WritesNothing,
}
