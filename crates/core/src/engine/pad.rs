//! PyTorch's `F.pad` in its four modes. The constant mode is tinygrad's `pad` (a masked view of
//! the input) copied out, with negative amounts cropping first and a non-zero value filled in
//! where the mask is off; reflect, replicate and circular read each output position from one
//! input position along each padded dim, a gather by host-computed positions, so their values,
//! gradients and kernels are those of `index_select`.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::buffer::{Data, Scalar};

/// `F.pad`'s `mode=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

impl PadMode {
    pub fn from_name(name: &str) -> Option<PadMode> {
        Some(match name {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "replicate" => PadMode::Replicate,
            "circular" => PadMode::Circular,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }

    /// The input position output position `j` reads along a dim of `n` padded by `before`:
    /// reflect mirrors about the edge without repeating it, replicate repeats the edge,
    /// circular wraps around.
    fn source(self, j: i64, before: i64, n: i64) -> i64 {
        let i = j - before;
        match self {
            PadMode::Constant => i,
            PadMode::Reflect => {
                let period = 2 * (n - 1);
                let m = if period == 0 { 0 } else { i.rem_euclid(period) };
                if m < n {
                    m
                } else {
                    period - m
                }
            }
            PadMode::Replicate => i.clamp(0, n - 1),
            PadMode::Circular => i.rem_euclid(n),
        }
    }
}

impl Engine {
    /// `F.pad(t, pad, mode, value)`: `pad` holds (before, after) pairs from the last dim
    /// backwards, as PyTorch takes them.
    pub fn torch_pad(&mut self, t: &Tensor, pad: &[i64], mode: PadMode, value: Option<Scalar>) -> Result<Tensor> {
        let nd = t.shape().len();
        if !pad.len().is_multiple_of(2) {
            bail!(Shape, "Padding length must be divisible by 2");
        }
        if pad.len() > 2 * nd {
            bail!(
                Shape,
                "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {nd}",
                pad.len()
            );
        }
        // Per dim, from the first: (dim, before, after).
        let pairs: Vec<(usize, i64, i64)> = pad.chunks(2).enumerate().map(|(i, p)| (nd - 1 - i, p[0], p[1])).collect();
        // PyTorch's pad kernels lay the result out as the input suggests (channels-last stays);
        // circular padding is a composition of copies, row-major.
        let padded = self.pad_values(t, &pairs, mode, value)?;
        match mode {
            PadMode::Circular => Ok(padded),
            _ => self.in_format(&padded, t.layout().result_format()),
        }
    }

    fn pad_values(
        &mut self,
        t: &Tensor,
        pairs: &[(usize, i64, i64)],
        mode: PadMode,
        value: Option<Scalar>,
    ) -> Result<Tensor> {
        let nd = t.shape().len();
        match mode {
            PadMode::Constant => self.constant_pad(t, pairs, value),
            _ => {
                if value.is_some_and(|v| v.as_f64() != 0.0) {
                    bail!(Type, "Padding mode \"{}\" doesn't take in value argument", mode.name());
                }
                let k = pairs.len();
                if !(1..=3).contains(&k) || !(nd == k + 1 || nd == k + 2) {
                    bail!(Unsupported, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
                }
                self.gather_pad(t, pairs, mode)
            }
        }
    }

    fn constant_pad(&mut self, t: &Tensor, pairs: &[(usize, i64, i64)], value: Option<Scalar>) -> Result<Tensor> {
        let mut src = t.clone();
        let mut arg = vec![(0i64, 0i64); t.shape().len()];
        for &(d, b, a) in pairs {
            let n = t.shape()[d] as i64;
            let (cut_b, cut_a) = ((-b).max(0), (-a).max(0));
            if n + b + a < 0 {
                bail!(
                    Shape,
                    "The input size {n}, plus negative padding {b} and {a} resulted in a negative output size, which is invalid. Check dimension {d} of your input."
                );
            }
            if cut_b > 0 || cut_a > 0 {
                src = self.narrow(&src, d as i64, cut_b.min(n), (n - cut_b - cut_a).max(0))?;
            }
            arg[d] = (b.max(0), a.max(0));
        }
        let padded = self.pad(&src, &arg, None)?;
        let Some(v) = value.filter(|v| v.as_f64() != 0.0 || v.as_f64().is_nan()) else { return Ok(padded) };
        let inside = self.full(src.shape(), Scalar::Bool(true), Some(DType::Bool))?;
        let mask = self.pad(&inside, &arg, None)?;
        let picked = self.where_(&Operand::Tensor(mask), &Operand::Tensor(padded), &Operand::Scalar(v))?;
        let out = self.cast(&picked, t.dtype())?;
        self.rename_grad_fn(&out, "ConstantPadNdBackward0");
        Ok(out)
    }

    fn gather_pad(&mut self, t: &Tensor, pairs: &[(usize, i64, i64)], mode: PadMode) -> Result<Tensor> {
        let mut out = t.clone();
        for &(d, b, a) in pairs {
            let n = t.shape()[d] as i64;
            // A negative amount crops; PyTorch allows it for replicate padding.
            if (b < 0 || a < 0) && mode != PadMode::Replicate {
                bail!(Unsupported, "negative padding in mode \"{}\" is not supported", mode.name());
            }
            if n + b + a < 0 {
                bail!(Shape, "input size {n} with padding ({b}, {a}) gives a negative output size");
            }
            match mode {
                PadMode::Reflect if b >= n || a >= n => bail!(
                    Shape,
                    "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({b}, {a}) at dimension {d} of input {:?}",
                    t.shape()
                ),
                PadMode::Circular if b > n || a > n => {
                    bail!(Shape, "Padding value causes wrapping around more than once.")
                }
                PadMode::Replicate | PadMode::Circular if n == 0 => {
                    bail!(Shape, "input tensor must have non-zero size along the padded dimension {d}")
                }
                _ => {}
            }
            let positions: Vec<i64> = (0..(n + b + a).max(0)).map(|j| mode.source(j, b, n)).collect();
            let len = positions.len();
            let index = self.from_data(Data::I64(positions), &[len])?;
            out = self.index_select(&out, d as i64, &index)?;
        }
        // PyTorch's node names: reflect and replicate have kernels of their own, circular is
        // written with slice copies.
        let node = match mode {
            PadMode::Reflect => format!("ReflectionPad{}DBackward0", pairs.len()),
            PadMode::Replicate => format!("ReplicationPad{}DBackward0", pairs.len()),
            PadMode::Constant | PadMode::Circular => "CopySlices".to_string(),
        };
        self.rename_grad_fn(&out, &node);
        if mode == PadMode::Circular {
            // PyTorch copies the input into the result, then each padded side: one write each.
            let writes = 1 + pairs.iter().map(|&(_, b, a)| usize::from(b > 0) + usize::from(a > 0)).sum::<usize>();
            for _ in 0..writes {
                out = self.bump_version(&out)?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::PadMode;

    #[test]
    fn sources_follow_torch() {
        let src = |m: PadMode, b: i64, n: i64, len: i64| (0..len).map(|j| m.source(j, b, n)).collect::<Vec<_>>();
        // [0 1 2 3] padded (2, 2).
        assert_eq!(src(PadMode::Reflect, 2, 4, 8), [2, 1, 0, 1, 2, 3, 2, 1]);
        assert_eq!(src(PadMode::Replicate, 2, 4, 8), [0, 0, 0, 1, 2, 3, 3, 3]);
        assert_eq!(src(PadMode::Circular, 2, 4, 8), [2, 3, 0, 1, 2, 3, 0, 1]);
    }
}
