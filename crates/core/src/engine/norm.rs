//! The normalizations, written once over the engine's ops for every front end: layer norm
//! (and a batch norm's per-batch statistics) as `(x - mean) / sqrt(var + eps) * w + b` with the
//! biased variance, RMS norm as `x / sqrt(mean(x^2) + eps) * w`, group norm as a layer norm of
//! each group of channels.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

use super::reduce::KeepDim;

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

impl Engine {
    /// (x - mean) / sqrt(var + eps) over `axes` (biased variance), then `* w + b` (each
    /// broadcast against x's trailing dims).
    pub fn normalize(
        &mut self,
        x: &Tensor,
        axes: &[usize],
        eps: f64,
        w: Option<&Tensor>,
        b: Option<&Tensor>,
    ) -> Result<Tensor> {
        let mean = self.mean(x, axes, KeepDim::Keep)?;
        let centered = self.binary(BinaryOp::Sub, &t(x), &t(&mean))?;
        let sq = self.binary(BinaryOp::Mul, &t(&centered), &t(&centered))?;
        let var = self.mean(&sq, axes, KeepDim::Keep)?;
        self.scale_shift(&centered, &var, eps, w, b)
    }

    /// `centered / sqrt(var + eps) * w + b`.
    pub fn scale_shift(
        &mut self,
        centered: &Tensor,
        var: &Tensor,
        eps: f64,
        w: Option<&Tensor>,
        b: Option<&Tensor>,
    ) -> Result<Tensor> {
        let var = self.binary(BinaryOp::Add, &t(var), &Operand::Scalar(Scalar::Float(eps)))?;
        let std = self.unary(UnaryOp::Sqrt, &var)?;
        let mut y = self.binary(BinaryOp::Div, &t(centered), &t(&std))?;
        if let Some(w) = w {
            y = self.binary(BinaryOp::Mul, &t(&y), &t(w))?;
        }
        if let Some(b) = b {
            y = self.binary(BinaryOp::Add, &t(&y), &t(b))?;
        }
        Ok(y)
    }

    /// `F.rms_norm`: `x * rsqrt(mean(x^2, axes) + eps) * w`.
    pub fn rms_norm(&mut self, x: &Tensor, axes: &[usize], eps: f64, w: Option<&Tensor>) -> Result<Tensor> {
        let sq = self.binary(BinaryOp::Mul, &t(x), &t(x))?;
        let ms = self.mean(&sq, axes, KeepDim::Keep)?;
        let ms = self.binary(BinaryOp::Add, &t(&ms), &Operand::Scalar(Scalar::Float(eps)))?;
        let r = self.rsqrt(&ms)?;
        let y = self.binary(BinaryOp::Mul, &t(x), &t(&r))?;
        match w {
            Some(w) => self.binary(BinaryOp::Mul, &t(&y), &t(w)),
            None => Ok(y),
        }
    }

    /// `F.group_norm`: x of shape (N, C, *) normalized over each of `groups` groups of
    /// channels (and the spatial dims), then `* w + b` per channel. One
    /// `NativeGroupNormBackward0` node.
    pub fn group_norm(
        &mut self,
        x: &Tensor,
        groups: i64,
        eps: f64,
        w: Option<&Tensor>,
        b: Option<&Tensor>,
    ) -> Result<Tensor> {
        let shape = x.shape().to_vec();
        if shape.len() < 2 {
            bail!(Shape, "Expected at least 2 dimensions for input tensor but received {}", shape.len());
        }
        let (n, c) = (shape[0], shape[1]);
        if groups <= 0 || c % groups as usize != 0 {
            bail!(
                Shape,
                "Expected number of channels in input to be divisible by num_groups, but got input of shape {shape:?} and num_groups={groups}"
            );
        }
        for (p, what) in [(w, "weight"), (b, "bias")] {
            if let Some(p) = p {
                if p.shape() != [c] {
                    bail!(
                        Shape,
                        "Expected {what} to be a vector of size equal to the number of channels in input, but got {what} of shape {:?} and input of shape {shape:?}",
                        p.shape()
                    );
                }
            }
        }
        // Explicit sizes: -1 cannot be inferred for an empty batch.
        let rest = (c / groups as usize) * shape[2..].iter().product::<usize>();
        let g = self.reshape(x, &[n as i64, groups, rest as i64])?;
        let y = self.normalize(&g, &[2], eps, None, None)?;
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let mut y = self.reshape(&y, &dims)?;
        let mut per_channel = vec![1i64; shape.len()];
        per_channel[1] = c as i64;
        if let Some(w) = w {
            let w = self.reshape(w, &per_channel)?;
            y = self.binary(BinaryOp::Mul, &t(&y), &t(&w))?;
        }
        if let Some(b) = b {
            let b = self.reshape(b, &per_channel)?;
            y = self.binary(BinaryOp::Add, &t(&y), &t(&b))?;
        }
        self.rename_grad_fn(&y, "NativeGroupNormBackward0");
        Ok(y)
    }
}
