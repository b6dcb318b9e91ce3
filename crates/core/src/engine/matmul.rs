//! PyTorch's `matmul` as tinygrad builds it: the operands broadcast to `(..., M, K, N)`,
//! multiplied and summed over K, so the product is one fused reduce and never a storage.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};

impl Engine {
    /// `a @ b` / `torch.matmul(a, b)`: 1-D operands are promoted to matrices and their dims
    /// dropped from the result; batch dims broadcast.
    pub fn matmul(&mut self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let (an, bn) = (a.shape().len(), b.shape().len());
        if an == 0 || bn == 0 {
            bail!(Shape, "both arguments to matmul need to be at least 1D, but they are {an}D and {bn}D");
        }
        if a.dtype() != b.dtype() {
            bail!(
                DType,
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                c_name(a.dtype()),
                c_name(b.dtype())
            );
        }
        // Promote 1-D operands to matrices, remembering which dims to drop at the end.
        let a2 = if an == 1 { self.reshape(a, &[1, a.shape()[0] as i64])? } else { a.clone() };
        let b2 = if bn == 1 { self.reshape(b, &[b.shape()[0] as i64, 1])? } else { b.clone() };
        let (sa, sb) = (a2.shape().to_vec(), b2.shape().to_vec());
        let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
        let (k2, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
        if k != k2 {
            bail!(Shape, "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", m, k, k2, n);
        }
        let batch = Engine::broadcast_shapes(&[&sa[..sa.len() - 2], &sb[..sb.len() - 2]])?;
        // a: (..., M, K, 1), b: (..., 1, K, N)
        let a3 = self.reshape(
            &a2,
            &sa[..sa.len() - 2].iter().map(|&x| x as i64).chain([m as i64, k as i64, 1]).collect::<Vec<_>>(),
        )?;
        let b3 = self.reshape(
            &b2,
            &sb[..sb.len() - 2].iter().map(|&x| x as i64).chain([1, k as i64, n as i64]).collect::<Vec<_>>(),
        )?;
        // The product broadcasts both to (..., M, K, N); it is never a view or a storage, and
        // the result without the vector dims is a tensor of its own (PyTorch's mv, dot, the
        // squeeze_ of mm, or _unsafe_view).
        let mut shape: Vec<usize> = batch.clone();
        if an != 1 {
            shape.push(m);
        }
        if bn != 1 {
            shape.push(n);
        }
        let mut out = self.mul_sum_as(&a3, &b3, batch.len() + 1, Some(&shape))?;
        if an == 1 && bn == 2 {
            // PyTorch computes this as mm of the unsqueezed vector, then squeeze_ in place.
            out = self.bump_version(&out)?;
        }
        let name = match (an, bn) {
            (2, 2) => "MmBackward0",
            (1, 1) => "DotBackward0",
            (2, 1) => "MvBackward0",
            (1, 2) => "SqueezeBackward4",
            _ => "UnsafeViewBackward0",
        };
        let (a, b) = (self.resolve(a), self.resolve(b));
        let op = crate::autograd::GradOp::Matmul { name };
        // `a` is saved for `b`'s gradient and `b` for `a`'s.
        let saved: Vec<usize> = [(0, &b), (1, &a)]
            .into_iter()
            .filter(|(_, other)| self.autograd().requires_grad(other))
            .map(|(i, _)| i)
            .collect();
        self.record(&out, op, &[Some(&a), Some(&b)], vec![Some(a.clone()), Some(b.clone())], &saved);
        Ok(out)
    }
}

/// The C++ type names PyTorch's matmul dtype check prints.
pub(crate) fn c_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short int",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float16 => "c10::Half",
        DType::BFloat16 => "c10::BFloat16",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}
