//! The index writes along one dim or over the flattened tensor: `scatter`, `scatter_add`,
//! `scatter_reduce`, `index_add`/`index_copy`/`index_fill` and `put`, out of place and in place,
//! each one scatter of host-checked positions, with the index maps autograd reads.

use super::indexing::{coords, Combine};
use crate::autograd::Route;
use crate::dtype::DType;
use crate::error::{bail, Error, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Operand, Tensor, Write};
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{Op, UOpId};

impl Engine {
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
        // An adding scatter passes the target's gradient through unchanged.
        let route = match name {
            "ScatterAddBackward0" | "IndexAddBackward0" => Route::Same,
            _ => Route::FromOutput,
        };
        let mut ins = vec![(t, route, own)];
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
        // PyTorch's out-of-place scatters write a row-major clone, whatever `t`'s layout.
        self.index_copy_result(node, Layout::contiguous(t.shape()))
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
                // PyTorch's three kernels word (and class) this differently.
                let past = format!("index {i} is out of bounds for dimension {d} with size {n}");
                return Err(match op.trim_end_matches('_') {
                    "index_add" => Error::Bounds(past),
                    "index_copy" => Error::Index(format!("index_copy_(): {past}")),
                    _ => Error::Index(past),
                });
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
        // `index_fill` clones `t` preserving its layout; `index_add`/`index_copy` clone row-major.
        let layout =
            if op.starts_with("index_fill") { t.layout().empty_like_preserve() } else { Layout::contiguous(t.shape()) };
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
        // `index_fill_` only warns about an expanded target; `index_add_`/`index_copy_` refuse.
        if !op.starts_with("index_fill") {
            self.no_internal_overlap(&target)?;
        }
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
        let route = if accumulate { Route::Same } else { Route::FromOutput };
        let mut ins = vec![(t, route, own)];
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
