//! The index reads along one dim or over the flattened tensor (`index_select`, `gather`,
//! `take`), each one `GATHER` of host-checked positions, and the dim-wise index checks the
//! writes in `index_write.rs` share.

use super::indexing::{coords, flat, ints_of};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::torch::layout::Layout;
use crate::uop::Op;

impl Engine {
    /// What every dim-wise index op checks first: `t`'s shape (a 0-d tensor as one element), the
    /// wrapped dim, and the values of `index`, a vector of int32 or int64 (`dtypes` is how the
    /// op's message names them).
    pub(super) fn dim_index(
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
        if v.iter().any(|&i| i < 0 || i >= n) {
            bail!(Index, "index out of range in self");
        }
        let mut out = shape.clone();
        out[d] = v.len();
        let out = if nd == 0 { vec![] } else { out };
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, t.dtype());
        }
        let node = self.movement(t.node(), Op::Reshape(shape.clone()));
        let g = self.gather_node_at(node, t.dtype(), &shape, d, index)?;
        let g = self.movement(g, Op::Reshape(out.clone()));
        let out = self.index_copy_result(g, Layout::contiguous(&out))?;
        let op = crate::autograd::GradOp::IndexSelect { dim, input: t.shape().to_vec() };
        self.record(&out, op, &[Some(&t)], vec![Some(index.clone())], &[0]);
        Ok(out)
    }

    /// `gather`'s and `scatter`'s shape rules: same rank, and `index` no larger than `other`
    /// apart from `dim` (and no larger than `self` for scatter).
    pub(super) fn check_dim_index(
        t: &Tensor,
        dim: usize,
        index: &Tensor,
        src: Option<&Tensor>,
        op: &str,
    ) -> Result<()> {
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
    pub(super) fn dim_positions(&mut self, t: &Tensor, dim: usize, index: &Tensor, op: &str) -> Result<Vec<usize>> {
        let v = self.index_values(index, op)?;
        let tsh: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        let ish: Vec<usize> = if index.shape().is_empty() { vec![1] } else { index.shape().to_vec() };
        let n = tsh[dim] as i64;
        let mut out = Vec::with_capacity(v.len());
        // No wrapping: PyTorch's gather and scatter refuse negative positions.
        for (e, &i) in v.iter().enumerate() {
            if i < 0 || i >= n {
                bail!(Bounds, "index {} is out of bounds for dimension {dim} with size {n}", v[e]);
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
        // PyTorch's gather makes its output with the index's sizes and no strides: contiguous.
        self.index_copy_result(g, Layout::contiguous(&out))
    }

    /// The row-major positions `index` names in a tensor of `n` elements (`take`, `put_`):
    /// negative ones wrap, out-of-range ones are PyTorch's error.
    pub(super) fn flat_positions(&mut self, index: &Tensor, n: usize) -> Result<Vec<usize>> {
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
    /// `F.embedding(idx, w)`: the rows of `w` that `idx` names, as the index read `w[idx]`,
    /// named `EmbeddingBackward0`; unlike `w[idx]`, a negative position is refused, not counted
    /// from the end.
    pub fn embedding(&mut self, w: &Tensor, idx: &Tensor) -> Result<Tensor> {
        let rows = w.shape().first().map_or(0, |&n| n as i64);
        if self.index_values(idx, "embedding")?.iter().any(|&i| i < 0 || i >= rows) {
            bail!(Index, "index out of range in self");
        }
        let out = self.advanced_index(w, &[super::indexing::Index::Tensor(idx.clone())])?;
        self.rename_grad_fn(&out, "EmbeddingBackward0");
        Ok(out)
    }

    pub fn take(&mut self, t: &Tensor, index: &Tensor) -> Result<Tensor> {
        let out = self.untracked(|e| e.take_values(t, index))?;
        self.record_index_map(&out, t, "TakeBackward0", |e, p| e.take_values(p, index))?;
        Ok(out)
    }

    /// [`Engine::take`]'s values (no autograd node).
    pub(super) fn take_values(&mut self, t: &Tensor, index: &Tensor) -> Result<Tensor> {
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
}
