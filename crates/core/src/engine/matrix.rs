//! Matrix-shaped copies: `tril`/`triu`, `diag`, `diag_embed` and `eye`. Each is a compare of
//! index tensors (row and column positions) selecting between the input and zero, so it runs
//! on every backend as an ordinary elementwise kernel; PyTorch lays every result out row-major.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, Op, UOpId};

/// Which triangle `tril` and `triu` keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Triangle {
    /// `tril`: column - row <= diagonal.
    Lower,
    /// `triu`: column - row >= diagonal.
    Upper,
}

impl Triangle {
    pub fn name(self) -> &'static str {
        match self {
            Triangle::Lower => "tril",
            Triangle::Upper => "triu",
        }
    }
}

/// Column minus row can reach no further than this (buffers are far smaller), so a diagonal
/// argument clamped to it keeps its meaning and fits the int32 index arithmetic.
const FAR: i64 = 1 << 30;

impl Engine {
    /// `torch.tril(t, diagonal)` and `torch.triu`: the triangle of the last two dims, zeros
    /// elsewhere, in a new row-major storage.
    pub fn triangle(&mut self, t: &Tensor, diagonal: i64, which: Triangle) -> Result<Tensor> {
        let out = self.untracked(|e| e.triangle_values(t, diagonal, which))?;
        let name = match which {
            Triangle::Lower => "TrilBackward0",
            Triangle::Upper => "TriuBackward0",
        };
        self.record_index_map(&out, t, name, |e, p| e.triangle_values(p, diagonal, which))?;
        Ok(out)
    }

    /// [`Engine::triangle`]'s values (no autograd node).
    fn triangle_values(&mut self, t: &Tensor, diagonal: i64, which: Triangle) -> Result<Tensor> {
        let t = self.resolve(t);
        let nd = t.shape().len();
        if nd < 2 {
            bail!(Shape, "{}: input tensor must have at least 2 dimensions", which.name());
        }
        let shape = t.shape().to_vec();
        if t.numel() == 0 {
            return self.empty_copy(&shape, t.dtype());
        }
        let diff = self.col_minus_row(&shape, nd - 2, nd - 1)?;
        let k = diagonal.clamp(-FAR, FAR);
        let (lhs, rhs) = match which {
            // diff <= k as diff < k + 1; diff >= k as k - 1 < diff.
            Triangle::Lower => (diff, self.const_node(Scalar::Int(k + 1), DType::Int32, &shape)),
            Triangle::Upper => (self.const_node(Scalar::Int(k - 1), DType::Int32, &shape), diff),
        };
        let keep = self.graph.push(Op::Binary(BinaryOp::CmpLt), DType::Bool, shape.clone(), vec![lhs, rhs]);
        let zero = self.const_node(Scalar::Int(0), t.dtype(), &shape);
        let node = self.graph.push(Op::Where, t.dtype(), shape, vec![keep, t.node(), zero]);
        self.computed(node)
    }

    /// Int32 `index along cols - index along rows` over `shape`.
    fn col_minus_row(&mut self, shape: &[usize], rows: usize, cols: usize) -> Result<UOpId> {
        let r = self.axis_index(shape, rows)?;
        let c = self.axis_index(shape, cols)?;
        Ok(self.graph.push(Op::Binary(BinaryOp::Sub), DType::Int32, shape.to_vec(), vec![c, r]))
    }

    /// `torch.diag(t, diagonal)`: a vector becomes a square matrix with it on the diagonal; a
    /// matrix gives a copy of its diagonal.
    pub fn diag(&mut self, t: &Tensor, diagonal: i64) -> Result<Tensor> {
        match t.shape().len() {
            1 => self.diag_embed(t, diagonal, -2, -1),
            2 => {
                let d = self.untracked(|e| e.diagonal(t, diagonal, 0, 1))?;
                let out = self.clone_as(&d, crate::torch::format::MemoryFormat::Contiguous)?;
                self.record_index_map(&out, t, "DiagonalBackward0_copy", |e, p| {
                    let d = e.diagonal(p, diagonal, 0, 1)?;
                    e.clone_as(&d, crate::torch::format::MemoryFormat::Contiguous)
                })?;
                Ok(out)
            }
            n => bail!(Shape, "diag(): Supports 1D or 2D tensors. Got {n}D"),
        }
    }

    /// `torch.diag_embed(t, offset, dim1, dim2)`: the last dim of `t` becomes the `offset`
    /// diagonal of new dims `dim1` and `dim2` (the other dims keep their order), zeros elsewhere.
    pub fn diag_embed(&mut self, t: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let out = self.untracked(|e| e.diag_embed_values(t, offset, dim1, dim2))?;
        self.record_index_map(&out, t, "DiagEmbedBackward0", |e, p| e.diag_embed_values(p, offset, dim1, dim2))?;
        Ok(out)
    }

    /// [`Engine::diag_embed`]'s values (no autograd node).
    fn diag_embed_values(&mut self, t: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let t = self.resolve(t);
        let nd = t.shape().len() + 1;
        let (a, b) = (wrap_dim(dim1, nd)?, wrap_dim(dim2, nd)?);
        if a == b {
            bail!(Index, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let Some((&n, batch)) = t.shape().split_last() else {
            bail!(Index, "Dimension specified as -1 but tensor has no dimensions");
        };
        let far = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
        let m = n.saturating_add(far);
        let nb = batch.len();
        // Output position p holds source axis perm[p]: rows at dim1, columns at dim2.
        let mut rest = 0..nb;
        let perm: Vec<usize> = (0..nd)
            .map(|p| {
                if p == a {
                    nb
                } else if p == b {
                    nb + 1
                } else {
                    rest.next().unwrap_or(0)
                }
            })
            .collect();
        let square: Vec<usize> = batch.iter().copied().chain([m, m]).collect();
        let out: Vec<usize> = perm.iter().map(|&s| square[s]).collect();
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, t.dtype());
        }
        // Row i holds the element whose column is i + offset: the vector padded into place.
        let mut pad = vec![(0, 0); nb + 1];
        pad[nb] = if offset >= 0 { (0, far) } else { (far, 0) };
        let rows = self.movement(t.node(), Op::Pad(pad));
        let column: Vec<usize> = batch.iter().copied().chain([m, 1]).collect();
        let rows = self.movement(rows, Op::Reshape(column));
        let rows = self.movement(rows, Op::Expand(square.clone()));
        let diff = self.col_minus_row(&square, nb, nb + 1)?;
        let k = self.const_node(Scalar::Int(offset), DType::Int32, &square);
        let hit = self.graph.push(Op::Binary(BinaryOp::CmpEq), DType::Bool, square.clone(), vec![diff, k]);
        let zero = self.const_node(Scalar::Int(0), t.dtype(), &square);
        let node = self.graph.push(Op::Where, t.dtype(), square, vec![hit, rows, zero]);
        let node = self.movement(node, Op::Permute(perm));
        let node = self.graph.push(Op::Contiguous, t.dtype(), out, vec![node]);
        self.computed(node)
    }

    /// `torch.eye(n, m)`: ones on the diagonal, float32 unless a dtype is given.
    pub fn eye(&mut self, n: i64, m: Option<i64>, dtype: Option<DType>) -> Result<Tensor> {
        let dtype = dtype.unwrap_or(DType::Float32);
        if n < 0 {
            bail!(Shape, "n must be greater or equal to 0, got {n}");
        }
        let m = m.unwrap_or(n);
        if m < 0 {
            bail!(Shape, "m must be greater or equal to 0, got {m}");
        }
        let shape = [n as usize, m as usize];
        check_numel(&shape)?;
        if shape.contains(&0) {
            return self.empty_copy(&shape, dtype);
        }
        let diff = self.col_minus_row(&shape, 0, 1)?;
        let zero = self.const_node(Scalar::Int(0), DType::Int32, &shape);
        let hit = self.graph.push(Op::Binary(BinaryOp::CmpEq), DType::Bool, shape.to_vec(), vec![diff, zero]);
        let node = self.cast_node(hit, DType::Bool, dtype);
        self.computed(node)
    }
}
