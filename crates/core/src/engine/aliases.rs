//! Views PyTorch defines as another view op, or as the tensor itself, under names of their own:
//! `adjoint`/`mH`, `H`, `atleast_1d/2d/3d`, `real`, `ravel`, `broadcast_to`. Which case returns the very
//! same tensor (not a new view) is PyTorch's, since a trace can tell them apart by writing.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};

impl Engine {
    /// `t.adjoint()` and `t.mH`: the last two dims swapped (the conjugate is a no-op for the
    /// real dtypes a trace has); a 0-d tensor is returned itself, a vector is refused.
    /// `name` is how PyTorch's message names the op (`adjoint()` or `mH`).
    pub fn adjoint(&mut self, t: &Tensor, name: &str) -> Result<Tensor> {
        match t.shape().len() {
            0 => Ok(t.clone()),
            1 => bail!(Index, "tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor."),
            _ => self.transpose(t, -2, -1),
        }
    }

    /// `t.H`: the transpose of a matrix; a 0-d tensor is returned itself.
    pub fn matrix_h(&mut self, t: &Tensor) -> Result<Tensor> {
        match t.shape().len() {
            0 => Ok(t.clone()),
            2 => self.transpose(t, -2, -1),
            n => bail!(
                Index,
                "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{}",
                if n > 2 { " For batches of matrices, consider using tensor.mH" } else { "" }
            ),
        }
    }

    /// `torch.atleast_1d/2d/3d(t)` for `dims` 1, 2, 3: a 0-d tensor reshaped, a vector
    /// unsqueezed in front (and, for 3, behind), a matrix unsqueezed behind for 3; a tensor
    /// with enough dims is returned itself.
    pub fn atleast(&mut self, t: &Tensor, dims: usize) -> Result<Tensor> {
        match (t.shape().len(), dims) {
            (0, _) => self.reshape(t, &vec![1; dims]),
            (1, 2) => self.unsqueeze(t, 0),
            (1, 3) => {
                let row = self.unsqueeze(t, 0)?;
                self.unsqueeze(&row, -1)
            }
            (2, 3) => self.unsqueeze(t, -1),
            _ => Ok(t.clone()),
        }
    }

    /// `t.real`: every dtype a trace has is real, and PyTorch returns a real tensor itself.
    pub fn real(&mut self, t: &Tensor) -> Tensor {
        t.clone()
    }

    /// `t.ravel()`: PyTorch's `contiguous().view(-1)`, so a non-contiguous tensor is copied
    /// and the result is a view of the copy.
    pub fn ravel(&mut self, t: &Tensor) -> Result<Tensor> {
        let c = self.contiguous(t)?;
        self.view(&c, &[-1])
    }

    /// `torch.broadcast_to(t, size)`: PyTorch's `expand`.
    pub fn broadcast_to(&mut self, t: &Tensor, size: &[i64]) -> Result<Tensor> {
        self.expand(t, size)
    }
}
