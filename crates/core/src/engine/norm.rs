//! The normalizations, written once over the engine's ops for every front end (the trace's
//! functionals and modules, ONNX models): layer norm and batch norm as
//! `(x - mean) / sqrt(var + eps) * w + b` with the biased variance (batch norm's statistics per
//! channel, from the batch or given), RMS norm as `x / sqrt(mean(x^2) + eps) * w`, group norm as
//! a layer norm of each group of channels.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

use super::reduce::KeepDim;

/// Where batch norm's per-channel statistics come from.
#[derive(Clone, Copy)]
pub enum BatchStats<'a> {
    /// The batch's own (training, or no running statistics).
    Batch,
    /// Given statistics of shape `[C]` (the running ones, in evaluation).
    Given { mean: &'a Tensor, var: &'a Tensor },
}

/// A batch's statistics over every dim but the channels (dim 1), with kept dims.
pub struct BatchMoments {
    pub mean: Tensor,
    /// The biased variance.
    pub var: Tensor,
    /// How many values each channel's statistics are over.
    pub count: usize,
}

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

    /// Batch norm of an (N, C, *) input: `(x - mean) / sqrt(var + eps) * w + b` per channel,
    /// `w` and `b` of shape `[C]`, as one `NativeBatchNormBackward0` node. With
    /// [`BatchStats::Batch`] it also returns the batch's statistics (for a front end to move its
    /// running statistics as it does), and refuses a channel of one value as PyTorch does.
    pub fn batch_norm(
        &mut self,
        x: &Tensor,
        stats: BatchStats<'_>,
        eps: f64,
        w: Option<&Tensor>,
        b: Option<&Tensor>,
    ) -> Result<(Tensor, Option<BatchMoments>)> {
        let inputs: Vec<Tensor> = [Some(x), w, b].into_iter().flatten().cloned().collect();
        let rank = x.shape().len();
        if rank < 2 {
            bail!(Value, "batch norm expects an (N, C, ...) input, got {rank} dims");
        }
        let w = w.map(|w| self.per_channel(w, rank)).transpose()?;
        let b = b.map(|b| self.per_channel(b, rank)).transpose()?;
        let (y, moments) = match stats {
            BatchStats::Batch => {
                verify_batch_size(x.shape())?;
                let axes: Vec<usize> = (0..rank).filter(|&d| d != 1).collect();
                let count: usize = axes.iter().map(|&d| x.shape()[d]).product();
                let mean = self.mean(x, &axes, KeepDim::Keep)?;
                let centered = self.binary(BinaryOp::Sub, &t(x), &t(&mean))?;
                let sq = self.binary(BinaryOp::Mul, &t(&centered), &t(&centered))?;
                let var = self.mean(&sq, &axes, KeepDim::Keep)?;
                let y = self.scale_shift(&centered, &var, eps, w.as_ref(), b.as_ref())?;
                (y, Some(BatchMoments { mean, var, count }))
            }
            BatchStats::Given { mean, var } => {
                let mean = self.per_channel(mean, rank)?;
                let var = self.per_channel(var, rank)?;
                let centered = self.binary(BinaryOp::Sub, &t(x), &t(&mean))?;
                (self.scale_shift(&centered, &var, eps, w.as_ref(), b.as_ref())?, None)
            }
        };
        // PyTorch's kernel lays the result out as the input suggests (a transposed 2-D input
        // gives a row-major result, a channels-last one stays channels-last).
        let y = self.in_format(&y, x.layout().result_format())?;
        self.rename_grad_fn(&y, "NativeBatchNormBackward0");
        self.group_as_one_node(&[&y], &inputs.iter().collect::<Vec<_>>());
        Ok((y, moments))
    }

    /// A per-channel `[C]` tensor reshaped to `[1, C, 1, ...]` against an input of `rank` dims.
    pub fn per_channel(&mut self, p: &Tensor, rank: usize) -> Result<Tensor> {
        let mut shape = vec![1i64; rank];
        shape[1] = p.numel() as i64;
        self.reshape(p, &shape)
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
        let inputs: Vec<Tensor> = [Some(x), w, b].into_iter().flatten().cloned().collect();
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
        self.group_as_one_node(&[&y], &inputs.iter().collect::<Vec<_>>());
        Ok(y)
    }
}

/// PyTorch's `_verify_batch_size`: batch statistics need more than one value per channel.
pub fn verify_batch_size(shape: &[usize]) -> Result<()> {
    let count: usize = shape.iter().enumerate().filter(|&(d, _)| d != 1).map(|(_, &n)| n).product();
    if count == 1 {
        let sizes: Vec<String> = shape.iter().map(usize::to_string).collect();
        bail!(
            Value,
            "Expected more than 1 value per channel when training, got input size torch.Size([{}])",
            sizes.join(", ")
        );
    }
    Ok(())
}
