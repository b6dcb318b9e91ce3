//! ONNX's transposed convolution and Resize.
//!
//! ConvTranspose is the convolution it is the gradient of: the input spread out by the stride
//! (zeros between its elements), padded by `dilation * (kernel - 1)` less the requested padding,
//! and convolved at stride 1 with the kernel flipped and its channel axes swapped per group.
//! Resize reads each output position's source coordinate as ONNX's coordinate transformation
//! says, then gathers (nearest) or blends two gathers (linear) along each resized axis.

use std::collections::BTreeMap;

use crate::engine::pad::PadMode;
use crate::error::{bail, Result};
use crate::onnx::{Attribute, Node};
use crate::tensor::Tensor;
use crate::torch::layout::IndexItem;
use crate::uop::buffer::Data;
use crate::uop::BinaryOp;

use super::ops::{opt, req, Lower};

/// How Resize maps an output coordinate back to the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coordinates {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
}

/// Resize's rounding of a source coordinate in nearest mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nearest {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

/// The source coordinate of output index `o` along an axis of `n_in` resized to `n_out` at
/// `scale`.
fn source(o: usize, n_in: usize, n_out: usize, scale: f64, how: Coordinates) -> f64 {
    let o = o as f64;
    match how {
        Coordinates::HalfPixel => (o + 0.5) / scale - 0.5,
        Coordinates::HalfPixelSymmetric => {
            let adjustment = n_out as f64 / (scale * n_in as f64);
            let center = n_in as f64 / 2.0;
            center * (1.0 - adjustment) + (o + 0.5) / scale - 0.5
        }
        Coordinates::PytorchHalfPixel if n_out > 1 => (o + 0.5) / scale - 0.5,
        Coordinates::PytorchHalfPixel => 0.0,
        // The output length before rounding (input times scale), as ONNX's reference reads it.
        Coordinates::AlignCorners => {
            let width = n_in as f64 * scale;
            if width == 1.0 {
                0.0
            } else {
                o * (n_in as f64 - 1.0) / (width - 1.0)
            }
        }
        Coordinates::Asymmetric => o / scale,
    }
}

impl Lower<'_> {
    pub(super) fn spatial_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        match node.op_type() {
            "ConvTranspose" => Ok(vec![self.conv_transpose(node, args)?]),
            "Resize" => Ok(vec![self.resize(node, args)?]),
            _ => self.recurrent_op(node, args),
        }
    }

    fn conv_transpose(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let (x, w) = (req(args, 0, "X")?, req(args, 1, "W")?);
        let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
        if xs.len() < 3 || ws.len() != xs.len() {
            bail!(Shape, "ConvTranspose needs X (N, C, spatial...) and W of the same rank, got {xs:?} and {ws:?}");
        }
        let k = xs.len() - 2;
        let groups = usize::try_from(node.int_or("group", 1)?).unwrap_or(0);
        let c = xs[1];
        if groups == 0 || ws[0] != c || c % groups != 0 {
            bail!(Shape, "W {ws:?} does not fit {c} input channels in {groups} groups");
        }
        let m = ws[1] * groups;
        let kernel = ws[2..].to_vec();
        if let Some(ks) = node.ints("kernel_shape")? {
            if ks.iter().map(|&v| v as usize).ne(kernel.iter().copied()) {
                bail!(Shape, "kernel_shape {ks:?} does not match W {ws:?}");
            }
        }
        let list = |name: &str, default: i64, len: usize| -> Result<Vec<i64>> {
            match node.ints(name)? {
                None => Ok(vec![default; len]),
                Some(v) if v.len() == len => Ok(v.to_vec()),
                Some(v) => bail!(Shape, "attribute {name} {v:?} must have {len} entries"),
            }
        };
        let strides = list("strides", 1, k)?;
        let dilations = list("dilations", 1, k)?;
        let out_pad = list("output_padding", 0, k)?;
        if strides.iter().chain(&dilations).any(|&v| v < 1) || out_pad.iter().any(|&v| v < 0) {
            bail!(Shape, "strides and dilations must be positive, output_padding non-negative");
        }
        let mut pads = list("pads", 0, 2 * k)?;
        let auto_pad = node.string("auto_pad")?.unwrap_or("NOTSET");
        let output_shape = node.ints("output_shape")?.map(<[i64]>::to_vec);
        if output_shape.is_some() || matches!(auto_pad, "SAME_UPPER" | "SAME_LOWER") {
            for i in 0..k {
                let n_in = xs[2 + i] as i64;
                let eff = (kernel[i] as i64 - 1) * dilations[i] + 1;
                let want = match &output_shape {
                    Some(o) => *o.get(o.len().wrapping_sub(k) + i).unwrap_or(&0),
                    None => n_in * strides[i],
                };
                // Negative when the requested output is larger: the output then grows.
                let total = strides[i] * (n_in - 1) + out_pad[i] + eff - want;
                let (small, large) = (total.div_euclid(2), total - total.div_euclid(2));
                (pads[i], pads[k + i]) = if auto_pad == "SAME_UPPER" { (small, large) } else { (large, small) };
            }
        }
        // The input spread out by the stride: (n - 1) * s + 1 positions, zeros between.
        let mut spread = x.clone();
        for (i, &s) in strides.iter().enumerate() {
            if s == 1 {
                continue;
            }
            let d = 2 + i;
            let n = spread.shape()[d];
            let u = self.engine.unsqueeze(&spread, (d + 1) as i64)?;
            let mut arg = vec![(0usize, 0usize); u.shape().len()];
            arg[d + 1] = (0, s as usize - 1);
            let p = self.pad(&u, arg)?;
            let mut shape = spread.shape().to_vec();
            shape[d] = n * s as usize;
            let flat = self.reshape(&p, &shape)?;
            let mut items = vec![IndexItem::Slice { start: None, stop: None, step: None }; shape.len()];
            items[d] = IndexItem::Slice { start: Some(0), stop: Some(((n - 1) * s as usize + 1) as i64), step: None };
            spread = self.index(&flat, items)?;
        }
        // Pad by the kernel's reach less the requested padding (negative: crop), plus
        // output_padding at the end.
        let mut torch = Vec::with_capacity(2 * k);
        for i in (0..k).rev() {
            let reach = (kernel[i] as i64 - 1) * dilations[i];
            torch.extend([reach - pads[i], reach - pads[k + i] + out_pad[i]]);
        }
        let padded = self.engine.torch_pad(&spread, &torch, PadMode::Constant, None)?;
        // W (C, M/g, k...) -> (M, C/g, k...) with the kernel flipped.
        let (cg, mg) = (c / groups, m / groups);
        let mut gshape = vec![groups, cg, mg];
        gshape.extend(&kernel);
        let wg = self.reshape(&w, &gshape)?;
        let mut perm = vec![0, 2, 1];
        perm.extend(3..3 + k);
        let wt = self.permute(&wg, &perm)?;
        let mut wshape = vec![m, cg];
        wshape.extend(&kernel);
        let wt = self.reshape(&wt, &wshape)?;
        let flip: Vec<i64> = (2..2 + k as i64).collect();
        let wf = self.engine.flip(&wt, &flip)?;
        let mut attrs = BTreeMap::new();
        attrs.insert("dilations".to_string(), Attribute::Ints(dilations));
        attrs.insert("group".to_string(), Attribute::Int(groups as i64));
        let conv = Node::new(node.name(), "Conv", node.inputs().to_vec(), node.outputs().to_vec(), attrs);
        self.conv(&conv, &[Some(padded), Some(wf), opt(args, 2)])
    }

    fn resize(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "X")?;
        let r = x.shape().len();
        let linear = match node.string("mode")?.unwrap_or("nearest") {
            "nearest" => false,
            "linear" => true,
            other => bail!(Unsupported, "Resize mode {other:?} is not supported (nearest and linear are)"),
        };
        let how = match node.string("coordinate_transformation_mode")?.unwrap_or("half_pixel") {
            "half_pixel" => Coordinates::HalfPixel,
            "half_pixel_symmetric" => Coordinates::HalfPixelSymmetric,
            "pytorch_half_pixel" => Coordinates::PytorchHalfPixel,
            "align_corners" => Coordinates::AlignCorners,
            "asymmetric" => Coordinates::Asymmetric,
            other => bail!(Unsupported, "Resize coordinate_transformation_mode {other:?} is not supported"),
        };
        let nearest = match node.string("nearest_mode")?.unwrap_or("round_prefer_floor") {
            "round_prefer_floor" => Nearest::RoundPreferFloor,
            "round_prefer_ceil" => Nearest::RoundPreferCeil,
            "floor" => Nearest::Floor,
            "ceil" => Nearest::Ceil,
            other => bail!(Value, "Resize nearest_mode {other:?} is not one ONNX defines"),
        };
        if node.int_or("antialias", 0)? != 0 {
            bail!(Unsupported, "Resize with antialias is not supported");
        }
        if node.string("keep_aspect_ratio_policy")?.is_some_and(|p| p != "stretch") {
            bail!(Unsupported, "Resize keep_aspect_ratio_policy other than stretch is not supported");
        }
        let axes: Vec<usize> = match node.ints("axes")? {
            Some(a) => {
                a.iter().map(|&v| super::ops::axis(v, r, super::ops::AxisRange::BelowRank)).collect::<Result<_>>()?
            }
            None => (0..r).collect(),
        };
        let given = |v: Option<Tensor>| v.filter(|t| t.numel() > 0);
        let (scales, sizes) = (given(opt(args, 2)), given(opt(args, 3)));
        let mut plan: Vec<(usize, usize, f64)> = Vec::new();
        match (scales, sizes) {
            (Some(s), None) => {
                let s = self.read(&s)?.to_f64_vec();
                if s.len() != axes.len() || s.iter().any(|&v| v <= 0.0 || !v.is_finite()) {
                    bail!(Shape, "scales {s:?} must give a positive scale per resized axis");
                }
                for (&a, &sc) in axes.iter().zip(&s) {
                    plan.push((a, (x.shape()[a] as f64 * sc).floor() as usize, sc));
                }
            }
            (None, Some(z)) => {
                let z = self.ints_of(&z)?;
                if z.len() != axes.len() || z.iter().any(|&v| v < 0) {
                    bail!(Shape, "sizes {z:?} must give a size per resized axis");
                }
                for (&a, &n) in axes.iter().zip(&z) {
                    plan.push((a, n as usize, n as f64 / x.shape()[a] as f64));
                }
            }
            _ => bail!(Value, "Resize needs exactly one of scales and sizes"),
        }
        let mut y = x.clone();
        for (a, n_out, scale) in plan {
            let n_in = x.shape()[a];
            if n_out == n_in && scale == 1.0 {
                continue;
            }
            if n_in == 0 || n_out == 0 {
                bail!(Shape, "Resize from {n_in} to {n_out} along axis {a}");
            }
            let last = (n_in - 1) as f64;
            let src: Vec<f64> = (0..n_out).map(|o| source(o, n_in, n_out, scale, how)).collect();
            if !linear {
                let idx: Vec<i32> = src
                    .iter()
                    .map(|&s| {
                        let v = match nearest {
                            Nearest::RoundPreferFloor if s.fract() == 0.5 => s.floor(),
                            Nearest::RoundPreferFloor | Nearest::RoundPreferCeil => (s + 0.5).floor(),
                            Nearest::Floor => s.floor(),
                            Nearest::Ceil => s.ceil(),
                        };
                        v.clamp(0.0, last) as i32
                    })
                    .collect();
                let idx = self.host(Data::I32(idx), &[n_out])?;
                y = self.engine.index_select(&y, a as i64, &idx)?;
                continue;
            }
            let clamped: Vec<f64> = src.iter().map(|&s| s.clamp(0.0, last)).collect();
            let i0: Vec<i32> = clamped.iter().map(|&s| s.floor() as i32).collect();
            let i1: Vec<i32> = i0.iter().map(|&i| (i + 1).min(n_in as i32 - 1)).collect();
            let w1: Vec<f64> = clamped.iter().zip(&i0).map(|(&s, &i)| s - i as f64).collect();
            let w0: Vec<f64> = w1.iter().map(|w| 1.0 - w).collect();
            let mut wshape = vec![1usize; r];
            wshape[a] = n_out;
            let (i0, i1) = (self.host(Data::I32(i0), &[n_out])?, self.host(Data::I32(i1), &[n_out])?);
            let lo = self.engine.index_select(&y, a as i64, &i0)?;
            let hi = self.engine.index_select(&y, a as i64, &i1)?;
            let w0 = self.host(Data::F64(w0).cast(x.dtype()), &wshape)?;
            let w1 = self.host(Data::F64(w1).cast(x.dtype()), &wshape)?;
            let p = self.bin(BinaryOp::Mul, &lo, &w0)?;
            let q = self.bin(BinaryOp::Mul, &hi, &w1)?;
            y = self.bin(BinaryOp::Add, &p, &q)?;
        }
        Ok(y)
    }
}
