//! Declared ops over spatial dims and their statistics: `F.batch_norm`, `F.interpolate`,
//! `F.conv1d` (a 2-D convolution of height 1), `F.unfold` (im2col as one gather), `F.softmin`,
//! `clamp_min`/`clamp_max` and the margin losses.

use super::util::*;
use crate::dtype::DType;
use crate::engine::norm::{BatchMoments, BatchStats};
use crate::engine::pad::PadMode;
use crate::error::{bail, Result};
use crate::tensor::{OverlapRules, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, UnaryOp};

/// `F.batch_norm`'s checks of `eps` (`shown` as the caller wrote it), after the batch size's
/// as PyTorch makes them: positive when training, non-negative otherwise.
pub fn check_eps(x: &Tensor, stats: &BatchStats<'_>, eps: f64, shown: &str) -> Result<()> {
    match stats {
        BatchStats::Batch => {
            crate::engine::norm::verify_batch_size(x.shape())?;
            if eps.is_nan() || eps <= 0.0 {
                bail!(Value, "batch_norm eps must be positive during training, but got {shown}");
            }
        }
        BatchStats::Given { .. } if eps < 0.0 => bail!(Value, "batch_norm eps must be non-negative, but got {shown}"),
        BatchStats::Given { .. } => {}
    }
    Ok(())
}

pub fn batch_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "batch_norm")?;
    let rank = x.shape().len();
    if rank < 2 {
        bail!(Unsupported, "batch_norm() of a {rank}-D input is not supported");
    }
    let c = x.shape()[1];
    let (rm, rv) = (b.opt_tensor("running_mean"), b.opt_tensor("running_var"));
    let (w, bias) = (b.opt_tensor("weight"), b.opt_tensor("bias"));
    for p in [&rm, &rv, &w, &bias].into_iter().flatten() {
        if p.numel() != c {
            bail!(Shape, "running_mean should contain {c} elements not {}", p.numel());
        }
    }
    let eps = b.float("eps");
    let stats = match (b.bool("training"), &rm, &rv) {
        (true, _, _) => BatchStats::Batch,
        (false, Some(mean), Some(var)) => BatchStats::Given { mean, var },
        _ => bail!(Shape, "running_mean and running_var must be defined in evaluation mode"),
    };
    check_eps(&x, &stats, eps, &crate::trace::python::repr_plain(&b.value("eps")))?;
    let (y, moments) = run.engine.batch_norm(&x, stats, eps, w.as_ref(), bias.as_ref())?;
    if let Some(BatchMoments { mean, var, count }) = moments {
        // The running statistics move in place, outside autograd, with the unbiased variance.
        let m = b.float("momentum");
        let n = count as f64;
        for (running, stat, unbias) in [(&rm, &mean, 1.0), (&rv, &var, n / (n - 1.0))] {
            let Some(running) = running else { continue };
            let shape: Vec<i64> = running.shape().iter().map(|&k| k as i64).collect();
            let new = run.engine.untracked(|e| {
                let s = e.reshape(stat, &shape)?;
                let s = e.binary(BinaryOp::Mul, &t(&s), &f(m * unbias))?;
                let old = e.binary(BinaryOp::Mul, &t(running), &f(1.0 - m))?;
                let sum = e.binary(BinaryOp::Add, &t(&old), &t(&s))?;
                e.cast(&sum, running.dtype())
            })?;
            // The kernel writes the running statistics directly: their version does not move.
            let alias = run.engine.data_alias(running)?;
            crate::trace::binding::elementwise::write_value(run, &alias, &new, &[], OverlapRules::ALL)?;
        }
    }
    v(y)
}

/// An int or a tuple of `n` ints (`stride=2`, `kernel_size=(2, 3)`).
fn ints_n(v: &Value, n: usize, what: &str) -> Result<Vec<i64>> {
    let xs = match &*v.seq_ref() {
        Value::Scalar(Scalar::Int(i)) => vec![*i; n],
        Value::Tuple(items) => items.iter().map(|x| x.as_int(what)).collect::<Result<Vec<_>>>()?,
        other => bail!(Type, "argument '{what}' must be tuple of ints, not {}", other.type_name()),
    };
    if xs.len() != n {
        bail!(Shape, "{what} must be an int or a tuple of {n} ints, got {xs:?}");
    }
    Ok(xs)
}

/// For each output position along a dim, the two input positions it reads and the second's
/// weight (linear modes), or the one position it copies (nearest modes).
fn sources(mode: &str, n_in: usize, n_out: usize, scale: Option<f64>, align: bool) -> Vec<(usize, usize, f64)> {
    let ratio = |align: bool| -> f64 {
        if align {
            if n_out > 1 {
                (n_in as f64 - 1.0) / (n_out as f64 - 1.0)
            } else {
                0.0
            }
        } else {
            scale.map_or(n_in as f64 / n_out as f64, |s| 1.0 / s)
        }
    };
    let last = n_in - 1;
    (0..n_out)
        .map(|j| match mode {
            "nearest" => ((((j as f64) * ratio(false)).floor() as usize).min(last), 0, 0.0),
            "nearest-exact" => (((((j as f64) + 0.5) * ratio(false)).floor() as usize).min(last), 0, 0.0),
            _ => {
                let r = ratio(align);
                let src = if align { j as f64 * r } else { ((j as f64 + 0.5) * r - 0.5).max(0.0) };
                let i0 = (src.floor() as usize).min(last);
                let i1 = (i0 + 1).min(last);
                (i0, i1, src - i0 as f64)
            }
        })
        .collect()
}

pub fn interpolate(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    if !(3..=5).contains(&nd) {
        bail!(Unsupported, "interpolate of a {nd}-D input is not supported (3-D to 5-D inputs are)");
    }
    let k = nd - 2;
    let mode = b.str("mode").unwrap_or_else(|| "nearest".into());
    let linear = match (mode.as_str(), k) {
        ("nearest" | "nearest-exact" | "area", _) => false,
        ("linear", 1) | ("bilinear", 2) | ("trilinear", 3) => true,
        ("linear" | "bilinear" | "trilinear", _) => {
            bail!(
                Unsupported,
                "Got {nd}D input, but {mode} mode needs {}D input",
                if mode == "linear" {
                    3
                } else if mode == "bilinear" {
                    4
                } else {
                    5
                }
            )
        }
        (m, _) => bail!(Unsupported, "interpolate(mode='{m}') is not supported"),
    };
    if linear {
        float_only(&x, "upsample")?;
    }
    let align = match b.value("align_corners") {
        Value::None => false,
        Value::Scalar(Scalar::Bool(a)) if linear => a,
        Value::Scalar(Scalar::Bool(_)) => bail!(
            Value,
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
        ),
        other => bail!(Type, "interpolate(): argument 'align_corners' must be bool, not {}", other.type_name()),
    };
    if b.bool("antialias") {
        bail!(Unsupported, "interpolate(antialias=True) is not supported");
    }
    let spatial = &x.shape()[2..];
    let (sizes, scales): (Vec<usize>, Vec<Option<f64>>) = match (b.value("size"), b.value("scale_factor")) {
        (Value::None, Value::None) => bail!(Value, "either size or scale_factor should be defined"),
        (s, Value::None) => {
            let s = ints_n(&s, k, "size")?;
            (s.iter().map(|&n| n.max(0) as usize).collect(), vec![None; k])
        }
        (Value::None, sf) => {
            let sf: Vec<f64> = match sf.seq() {
                Value::Scalar(s) => vec![s.as_f64(); k],
                Value::Tuple(items) => {
                    items.iter().map(|v| v.as_scalar("scale_factor").map(|s| s.as_f64())).collect::<Result<_>>()?
                }
                other => bail!(Type, "interpolate(): scale_factor must be float or tuple, not {}", other.type_name()),
            };
            if sf.len() != k {
                bail!(Value, "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {spatial:?} and scale_factor of shape {sf:?}.");
            }
            let recompute = b.bool("recompute_scale_factor");
            let sizes: Vec<usize> = spatial.iter().zip(&sf).map(|(&n, s)| (n as f64 * s).floor() as usize).collect();
            (sizes, sf.into_iter().map(|s| if recompute { None } else { Some(s) }).collect())
        }
        _ => bail!(Value, "only one of size or scale_factor should be defined"),
    };
    if sizes.contains(&0) || spatial.contains(&0) {
        bail!(Shape, "Input and output sizes should be greater than 0, but got input {spatial:?} and output {sizes:?}");
    }
    if mode == "area" {
        // PyTorch's area mode is adaptive average pooling to the output size.
        let y = super::pool::adaptive_avg(run, &x, &sizes)?;
        run.engine.rename_grad_fn(&y, &format!("AdaptiveAvgPool{k}DBackward0"));
        return v(y);
    }
    let mut y = x.clone();
    for (i, (&n_in, &n_out)) in spatial.iter().zip(&sizes).enumerate() {
        let d = (i + 2) as i64;
        let src = sources(&mode, n_in, n_out, scales[i], align);
        let first: Vec<i64> = src.iter().map(|s| s.0 as i64).collect();
        let idx0 = run.engine.from_data(Data::I64(first), &[n_out])?;
        let a = run.engine.index_select(&y, d, &idx0)?;
        if !linear {
            y = a;
            continue;
        }
        let second: Vec<i64> = src.iter().map(|s| s.1 as i64).collect();
        let idx1 = run.engine.from_data(Data::I64(second), &[n_out])?;
        let c = run.engine.index_select(&y, d, &idx1)?;
        let mut wshape = vec![1usize; nd];
        wshape[i + 2] = n_out;
        let w1: Vec<f32> = src.iter().map(|s| s.2 as f32).collect();
        let w0: Vec<f32> = src.iter().map(|s| 1.0 - s.2 as f32).collect();
        let w1 = run.engine.from_data(Data::F32(w1), &wshape)?;
        let w0 = run.engine.from_data(Data::F32(w0), &wshape)?;
        let w1 = run.engine.cast(&w1, x.dtype())?;
        let w0 = run.engine.cast(&w0, x.dtype())?;
        let pa = run.engine.binary(BinaryOp::Mul, &t(&w0), &t(&a))?;
        let pc = run.engine.binary(BinaryOp::Mul, &t(&w1), &t(&c))?;
        y = run.engine.binary(BinaryOp::Add, &t(&pa), &t(&pc))?;
    }
    let kind = match mode.as_str() {
        "nearest" => "Nearest",
        "nearest-exact" => "NearestExact",
        "linear" => "Linear",
        "bilinear" => "Bilinear",
        _ => "Trilinear",
    };
    run.engine.rename_grad_fn(&y, &format!("Upsample{kind}{k}DBackward0"));
    v(y)
}

pub fn conv1d(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let w = b.tensor("weight")?;
    let batched = x.shape().len() == 3;
    if !batched && x.shape().len() != 2 {
        bail!(Shape, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {:?}", x.shape());
    }
    if w.shape().len() != 3 {
        bail!(Shape, "Expected 3-dimensional weight for 3-dimensional input, but got weight of size {:?}", w.shape());
    }
    let x3 = if batched { x.clone() } else { run.engine.unsqueeze(&x, 0)? };
    let x4 = run.engine.unsqueeze(&x3, 2)?;
    let w4 = run.engine.unsqueeze(&w, 2)?;
    let pair = |v: Value, what: &str, unit: i64| -> Result<Value> {
        Ok(match v {
            Value::Str(s) => Value::Str(s),
            other => {
                let n = ints_n(&other, 1, what)?[0];
                Value::Tuple(vec![Value::Scalar(Scalar::Int(unit)), Value::Scalar(Scalar::Int(n))])
            }
        })
    };
    let kw = vec![
        ("stride", pair(b.value("stride"), "stride", 1)?),
        ("padding", pair(b.value("padding"), "padding", 0)?),
        ("dilation", pair(b.value("dilation"), "dilation", 1)?),
        ("groups", Value::Scalar(Scalar::Int(b.int("groups")))),
    ];
    let bias = b.opt_tensor("bias").map_or(Value::None, Value::Tensor);
    let y = op(run, "conv2d", vec![Value::Tensor(x4), Value::Tensor(w4), bias], kw)?;
    let y = run.engine.squeeze(&y, Some(&[2]))?;
    let y = if batched { y } else { run.engine.squeeze(&y, Some(&[0]))? };
    run.engine.rename_grad_fn(&y, "ConvolutionBackward0");
    v(y)
}

pub fn unfold(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let batched = x.shape().len() == 4;
    let r = x.shape().len();
    if r < 3 {
        // PyTorch reads the spatial sizes before it checks the rank.
        bail!(
            Index,
            "Dimension out of range (expected to be in range of [-{0}, {1}], but got {r})",
            r.max(1),
            r.max(1) - 1
        );
    }
    if !batched && x.shape().len() != 3 {
        bail!(
            Shape,
            "Input Error: Only unbatched (3D) or batched (4D) input Tensors are supported (got {}D)",
            x.shape().len()
        );
    }
    let x4 = if batched { x.clone() } else { run.engine.unsqueeze(&x, 0)? };
    let k = ints_n(&b.value("kernel_size"), 2, "kernel_size")?;
    let dil = ints_n(&b.value("dilation"), 2, "dilation")?;
    let pad = ints_n(&b.value("padding"), 2, "padding")?;
    let st = ints_n(&b.value("stride"), 2, "stride")?;
    if k.iter().chain(&dil).chain(&st).any(|&n| n <= 0) || pad.iter().any(|&p| p < 0) {
        bail!(Shape, "kernel size, dilation and stride should be greater than zero, padding non-negative");
    }
    let (n, c, h, w) = (x4.shape()[0], x4.shape()[1], x4.shape()[2] as i64, x4.shape()[3] as i64);
    let (hp, wp) = (h + 2 * pad[0], w + 2 * pad[1]);
    let oh = (hp - dil[0] * (k[0] - 1) - 1) / st[0] + 1;
    let ow = (wp - dil[1] * (k[1] - 1) - 1) / st[1] + 1;
    if oh < 1 || ow < 1 {
        bail!(
            Shape,
            "Given input with spatial size ({h}, {w}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), calculated shape of the array of sliding blocks as ({oh}, {ow}), but its components must be at least one.",
            k[0], k[1], dil[0], dil[1], pad[0], pad[1]
        );
    }
    let padded = run.engine.torch_pad(&x4, &[pad[1], pad[1], pad[0], pad[0]], PadMode::Constant, None)?;
    let flat = run.engine.reshape(&padded, &[n as i64, c as i64, hp * wp])?;
    let mut pos = Vec::with_capacity((k[0] * k[1] * oh * ow) as usize);
    for ki in 0..k[0] {
        for kj in 0..k[1] {
            for oi in 0..oh {
                for oj in 0..ow {
                    pos.push((oi * st[0] + ki * dil[0]) * wp + oj * st[1] + kj * dil[1]);
                }
            }
        }
    }
    let len = pos.len();
    let idx = run.engine.from_data(Data::I64(pos), &[len])?;
    let g = run.engine.index_select(&flat, 2, &idx)?;
    let mut shape = vec![c as i64 * k[0] * k[1], oh * ow];
    if batched {
        shape.insert(0, n as i64);
    }
    let y = run.engine.reshape(&g, &shape)?;
    run.engine.rename_grad_fn(&y, "Im2ColBackward0");
    v(y)
}

pub fn softmin(run: &mut RunContext, b: &Bound) -> Out {
    let mut x = b.tensor("input")?;
    if let Some(d) = b.dtype("dtype") {
        x = run.engine.cast(&x, d)?;
    }
    let nd = x.shape().len();
    let dim = b.opt_int("dim").unwrap_or(if matches!(nd, 0 | 1 | 3) { 0 } else { 1 });
    let neg = run.engine.unary(UnaryOp::Neg, &x)?;
    v(run.engine.softmax(&neg, dim, crate::engine::nn::SoftmaxKind::Softmax)?)
}

fn clamp_one(run: &mut RunContext, b: &Bound, which: &str) -> Out {
    let x = b.tensor("input")?;
    let bound = b.value(which);
    let tensor_bound = matches!(bound, Value::Tensor(_));
    let y = op(run, "clamp", vec![Value::Tensor(x)], vec![(which, bound)])?;
    let node = if which == "min" { "ClampMinBackward" } else { "ClampMaxBackward" };
    run.engine.rename_grad_fn(&y, &format!("{node}{}", u8::from(tensor_bound)));
    v(y)
}

pub fn clamp_min(run: &mut RunContext, b: &Bound) -> Out {
    clamp_one(run, b, "min")
}

pub fn clamp_max(run: &mut RunContext, b: &Bound) -> Out {
    clamp_one(run, b, "max")
}

pub fn soft_margin_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let yx = run.engine.binary(BinaryOp::Mul, &t(&y), &t(&x))?;
    let nyx = run.engine.unary(UnaryOp::Neg, &yx)?;
    let e = run.engine.unary(UnaryOp::Exp, &nyx)?;
    let l = run.engine.unary(UnaryOp::Log1p, &e)?;
    reduced(run, b, l)
}

pub fn margin_ranking_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x1, x2, y) = (b.tensor("input1")?, b.tensor("input2")?, b.tensor("target")?);
    let d = run.engine.binary(BinaryOp::Sub, &t(&x1), &t(&x2))?;
    let yd = run.engine.binary(BinaryOp::Mul, &t(&y), &t(&d))?;
    let m = run.engine.binary(BinaryOp::Sub, &f(b.float("margin")), &t(&yd))?;
    let l = run.engine.binary(BinaryOp::Max, &t(&m), &f(0.0))?;
    // `.clamp_min_(0)`: in place, as an unreduced result's version shows.
    let l = if b.str("reduction").as_deref() == Some("none") { bumped(run, l, 1)? } else { l };
    reduced(run, b, l)
}

pub fn hinge_embedding_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let m = run.engine.binary(BinaryOp::Sub, &f(b.float("margin")), &t(&x))?;
    let m = run.engine.binary(BinaryOp::Max, &t(&m), &f(0.0))?;
    let zero = run.engine.full_like(&x, Scalar::Float(0.0), x.dtype())?;
    let not_pos = run.engine.binary(BinaryOp::CmpNe, &t(&y), &f(1.0))?;
    let not_neg = run.engine.binary(BinaryOp::CmpNe, &t(&y), &f(-1.0))?;
    let a = run.engine.where_(&t(&not_pos), &t(&m), &t(&zero))?;
    let c = run.engine.where_(&t(&not_neg), &t(&x), &t(&zero))?;
    let l = run.engine.binary(BinaryOp::Add, &t(&a), &t(&c))?;
    reduced(run, b, l)
}

pub fn poisson_nll_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = (b.tensor("input")?, b.tensor("target")?);
    let mut l = if b.bool("log_input") {
        let e = run.engine.unary(UnaryOp::Exp, &x)?;
        let yx = run.engine.binary(BinaryOp::Mul, &t(&y), &t(&x))?;
        run.engine.binary(BinaryOp::Sub, &t(&e), &t(&yx))?
    } else {
        let xe = run.engine.binary(BinaryOp::Add, &t(&x), &f(b.float("eps")))?;
        let lg = run.engine.unary(UnaryOp::Log, &xe)?;
        let ylg = run.engine.binary(BinaryOp::Mul, &t(&y), &t(&lg))?;
        run.engine.binary(BinaryOp::Sub, &t(&x), &t(&ylg))?
    };
    if b.bool("full") {
        // Stirling's term where target > 1: y log y - y + log(2 pi y) / 2.
        let yf = if y.dtype().is_float() { y.clone() } else { run.engine.cast(&y, DType::Float32)? };
        let ly = run.engine.unary(UnaryOp::Log, &yf)?;
        let a = run.engine.binary(BinaryOp::Mul, &t(&yf), &t(&ly))?;
        let a = run.engine.binary(BinaryOp::Sub, &t(&a), &t(&yf))?;
        let tp = run.engine.binary(BinaryOp::Mul, &t(&yf), &f(2.0 * std::f64::consts::PI))?;
        let lt = run.engine.unary(UnaryOp::Log, &tp)?;
        let h = run.engine.binary(BinaryOp::Mul, &t(&lt), &f(0.5))?;
        let s = run.engine.binary(BinaryOp::Add, &t(&a), &t(&h))?;
        let big = run.engine.binary(BinaryOp::CmpLt, &f(1.0), &t(&yf))?;
        let s = run.engine.where_(&t(&big), &t(&s), &f(0.0))?;
        l = run.engine.binary(BinaryOp::Add, &t(&l), &t(&s))?;
        // `loss += stirling`: in place, as an unreduced result's version shows.
        if b.str("reduction").as_deref() == Some("none") {
            l = bumped(run, l, 1)?;
        }
    }
    reduced(run, b, l)
}
