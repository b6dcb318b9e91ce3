//! Declared neural-network ops composed from the others: the `native_*` normalizations with their saved statistics, instance norm, local response norm,
//! `bilinear`, `pdist`, `renorm`, and the cosine-embedding, triplet-margin, multilabel
//! soft-margin and Gaussian NLL losses.

use super::util::*;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::Tensor;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

/// The axes after the first `lead` and their statistics' shape (those dims kept as 1).
fn stats_axes(x: &Tensor, from: usize) -> Vec<usize> {
    (from..x.shape().len()).collect()
}

/// `(x - mean) * rstd` with `mean` and `rstd` over `axes`, and both statistics.
fn standardized(run: &mut RunContext, x: &Tensor, axes: &[usize], eps: f64) -> Result<(Tensor, Tensor, Tensor)> {
    let mean = run.engine.mean(x, axes, KeepDim::Keep)?;
    let c = bin(run, BinaryOp::Sub, &t(x), &t(&mean))?;
    let sq = bin(run, BinaryOp::Mul, &t(&c), &t(&c))?;
    let var = run.engine.mean(&sq, axes, KeepDim::Keep)?;
    let ve = bin(run, BinaryOp::Add, &t(&var), &f(eps))?;
    let rstd = run.engine.rsqrt(&ve)?;
    let y = bin(run, BinaryOp::Mul, &t(&c), &t(&rstd))?;
    Ok((y, mean, rstd))
}

pub fn native_layer_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "LayerNormKernelImpl")?;
    let k = b.ints("normalized_shape").unwrap_or_default().len();
    let nd = x.shape().len();
    if k > nd
        || x.shape()[nd - k..].iter().map(|&n| n as i64).collect::<Vec<_>>()
            != b.ints("normalized_shape").unwrap_or_default()
    {
        bail!(
            Shape,
            "native_layer_norm: normalized_shape {:?} does not match the input's trailing dims {:?}",
            b.ints("normalized_shape"),
            x.shape()
        );
    }
    let (mut y, mean, rstd) = standardized(run, &x, &stats_axes(&x, nd - k), b.float("eps"))?;
    if let Some(w) = b.opt_tensor("weight") {
        y = bin(run, BinaryOp::Mul, &t(&y), &t(&w))?;
    }
    if let Some(bias) = b.opt_tensor("bias") {
        y = bin(run, BinaryOp::Add, &t(&y), &t(&bias))?;
    }
    run.engine.rename_grad_fn(&y, "NativeLayerNormBackward0");
    Ok(Value::Tuple(vec![Value::Tensor(y), Value::Tensor(mean), Value::Tensor(rstd)]))
}

pub fn native_group_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "GroupNormKernelImpl")?;
    let (n, g) = (b.int("N"), b.int("group"));
    let y =
        run.engine.group_norm(&x, g, b.float("eps"), b.opt_tensor("weight").as_ref(), b.opt_tensor("bias").as_ref())?;
    let rest = if n * g > 0 { x.numel() as i64 / (n * g) } else { b.int("C") / g.max(1) * b.int("HxW") };
    let grouped = run.engine.reshape(&x, &[n, g, rest])?;
    let (_, mean, rstd) = standardized(run, &grouped, &[2], b.float("eps"))?;
    let mean = run.engine.reshape(&mean, &[n, g])?;
    let rstd = run.engine.reshape(&rstd, &[n, g])?;
    Ok(Value::Tuple(vec![Value::Tensor(y), Value::Tensor(mean), Value::Tensor(rstd)]))
}

pub fn native_batch_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "batch_norm")?;
    let rank = x.shape().len();
    if rank < 2 {
        bail!(Unsupported, "native_batch_norm of a {rank}-D input is not supported");
    }
    let out = super::spatial::batch_norm(run, b)?;
    let c = x.shape()[1];
    let axes: Vec<usize> = (0..rank).filter(|&d| d != 1).collect();
    let (mean, rstd) = if b.bool("training") {
        let (_, m, r) = standardized(run, &x, &axes, b.float("eps"))?;
        (run.engine.reshape(&m, &[c as i64])?, run.engine.reshape(&r, &[c as i64])?)
    } else {
        let mean = run.engine.full(&[0], Scalar::Float(0.0), Some(x.dtype()))?;
        let rstd = run.engine.full(&[0], Scalar::Float(0.0), Some(x.dtype()))?;
        (mean, rstd)
    };
    Ok(Value::Tuple(vec![out, Value::Tensor(mean), Value::Tensor(rstd)]))
}

pub fn instance_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "instance_norm")?;
    if b.bool("use_input_stats") && (b.opt_tensor("running_mean").is_some() || b.opt_tensor("running_var").is_some()) {
        bail!(Unsupported, "instance_norm with running statistics is not supported");
    }
    if !b.bool("use_input_stats") {
        bail!(Unsupported, "instance_norm(use_input_stats=False) is not supported");
    }
    let nd = x.shape().len();
    if nd < 3 {
        bail!(Shape, "instance_norm: expected at least 3D input (got {nd}D input)");
    }
    let (mut y, _, _) = standardized(run, &x, &stats_axes(&x, 2), b.float("eps"))?;
    let mut per = vec![1i64; nd];
    per[1] = x.shape()[1] as i64;
    if let Some(w) = b.opt_tensor("weight") {
        let w = run.engine.reshape(&w, &per)?;
        y = bin(run, BinaryOp::Mul, &t(&y), &t(&w))?;
    }
    if let Some(bias) = b.opt_tensor("bias") {
        let bias = run.engine.reshape(&bias, &per)?;
        y = bin(run, BinaryOp::Add, &t(&y), &t(&bias))?;
    }
    v(y)
}

pub fn local_response_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    if nd < 3 {
        bail!(Shape, "Expected 3D or higher dimensionality input (got {nd} dimensions)");
    }
    if x.numel() == 0 {
        return Ok(Value::Tensor(x));
    }
    let size = b.int("size");
    let (alpha, beta, k) = (b.float("alpha"), b.float("beta"), b.float("k"));
    // The mean of x^2 over a window of `size` channels, zero-padded (size / 2 before,
    // (size - 1) / 2 after), as PyTorch's avg_pool over the channel dim.
    let sq = bin(run, BinaryOp::Mul, &t(&x), &t(&x))?;
    let c = x.shape()[1] as i64;
    let (before, after) = (size / 2, (size - 1) / 2);
    let moved = run.engine.movedim(&sq, &[1], &[-1])?;
    let padded = run.engine.torch_pad(&moved, &[before, after], crate::engine::pad::PadMode::Constant, None)?;
    let mut acc: Option<Tensor> = None;
    for s in 0..size {
        let part = run.engine.narrow(&padded, -1, s, c)?;
        acc = Some(match acc {
            None => part,
            Some(a) => bin(run, BinaryOp::Add, &t(&a), &t(&part))?,
        });
    }
    let Some(sum) = acc else { bail!(Shape, "local_response_norm: size must be positive") };
    // An integer input's window mean is an integer average pool's: floored.
    let mean = if x.dtype().is_float() {
        bin(run, BinaryOp::Div, &t(&sum), &f(size as f64))?
    } else {
        bin(run, BinaryOp::FloorDiv, &t(&sum), &crate::tensor::Operand::Scalar(Scalar::Int(size)))?
    };
    let mean = run.engine.movedim(&mean, &[-1], &[1])?;
    let d = bin(run, BinaryOp::Mul, &t(&mean), &f(alpha))?;
    let d = bin(run, BinaryOp::Add, &t(&d), &f(k))?;
    let d = bin(run, BinaryOp::Pow, &t(&d), &f(beta))?;
    v(bin(run, BinaryOp::Div, &t(&x), &t(&d))?)
}

pub fn bilinear(run: &mut RunContext, b: &Bound) -> Out {
    let (x1, x2, w) = (b.tensor("input1")?, b.tensor("input2")?, b.tensor("weight")?);
    // y[..., o] = x1[..., i] w[o, i, j] x2[..., j] + b[o].
    let y = run.engine.einsum("...i,oij,...j->...o", &[x1.clone(), w.clone(), x2.clone()]);
    let y = match y {
        Ok(y) => y,
        Err(_) => {
            let lead = x1.shape().len() - 1;
            let x1f = run.engine.reshape(&x1, &[-1, x1.shape()[lead] as i64])?;
            let x2f = run.engine.reshape(&x2, &[-1, x2.shape()[lead] as i64])?;
            let r = run.engine.einsum("bi,oij,bj->bo", &[x1f, w.clone(), x2f])?;
            let mut shape: Vec<i64> = x1.shape()[..lead].iter().map(|&n| n as i64).collect();
            shape.push(w.shape()[0] as i64);
            run.engine.reshape(&r, &shape)?
        }
    };
    match b.opt_tensor("bias") {
        Some(bias) => v(bin(run, BinaryOp::Add, &t(&y), &t(&bias))?),
        None => v(y),
    }
}

pub fn pdist(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "pdist")?;
    if x.shape().len() != 2 {
        bail!(Shape, "pdist only supports 2D tensors, got: {}D", x.shape().len());
    }
    let n = x.shape()[0];
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in i + 1..n {
            rows.push(i as i64);
            cols.push(j as i64);
        }
    }
    let m = rows.len();
    if m == 0 {
        return v(run.engine.full(&[0], Scalar::Float(0.0), Some(x.dtype()))?);
    }
    let ri = run.engine.from_data(Data::I64(rows), &[m])?;
    let ci = run.engine.from_data(Data::I64(cols), &[m])?;
    let a = run.engine.index_select(&x, 0, &ri)?;
    let c = run.engine.index_select(&x, 0, &ci)?;
    let d = bin(run, BinaryOp::Sub, &t(&a), &t(&c))?;
    v(run.engine.vector_norm(&d, b.float("p"), &[1], KeepDim::Drop)?)
}

pub fn renorm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "renorm")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let (p, maxnorm) = (b.float("p"), b.float("maxnorm"));
    if p <= 0.0 || maxnorm < 0.0 {
        bail!(Shape, "renorm: non-positive norm or negative maxnorm not supported");
    }
    let axes: Vec<usize> = (0..nd).filter(|&a| a != d).collect();
    let norm = run.engine.vector_norm(&x, p, &axes, KeepDim::Keep)?;
    let over = bin(run, BinaryOp::CmpLt, &f(maxnorm), &t(&norm))?;
    let ne = bin(run, BinaryOp::Add, &t(&norm), &f(1e-7))?;
    let scale = bin(run, BinaryOp::Div, &f(maxnorm), &t(&ne))?;
    let scale = run.engine.where_(&t(&over), &t(&scale), &f(1.0))?;
    let scale = run.engine.cast(&scale, x.dtype())?;
    v(bin(run, BinaryOp::Mul, &t(&x), &t(&scale))?)
}

pub fn cosine_embedding_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x1, x2, y) = (b.tensor("input1")?, b.tensor("input2")?, b.tensor("target")?);
    let (x1, x2) = (floated(run, &x1)?, floated(run, &x2)?);
    const EPS: f64 = 1e-12;
    let last = x1.shape().len().saturating_sub(1);
    let sum = |run: &mut RunContext, a: &Tensor| -> Result<Tensor> {
        if a.shape().is_empty() {
            Ok(a.clone())
        } else {
            run.engine.reduce(ReduceOp::Sum, a, &[last], KeepDim::Drop)
        }
    };
    let p = bin(run, BinaryOp::Mul, &t(&x1), &t(&x2))?;
    let prod = sum(run, &p)?;
    let s1 = bin(run, BinaryOp::Mul, &t(&x1), &t(&x1))?;
    let m1 = sum(run, &s1)?;
    let m1 = bin(run, BinaryOp::Add, &t(&m1), &f(EPS))?;
    let s2 = bin(run, BinaryOp::Mul, &t(&x2), &t(&x2))?;
    let m2 = sum(run, &s2)?;
    let m2 = bin(run, BinaryOp::Add, &t(&m2), &f(EPS))?;
    let mm = bin(run, BinaryOp::Mul, &t(&m1), &t(&m2))?;
    let den = un(run, UnaryOp::Sqrt, &mm)?;
    let cos = bin(run, BinaryOp::Div, &t(&prod), &t(&den))?;
    let pos = bin(run, BinaryOp::Sub, &f(1.0), &t(&cos))?;
    let neg = bin(run, BinaryOp::Sub, &t(&cos), &f(b.float("margin")))?;
    let neg = bin(run, BinaryOp::Max, &t(&neg), &f(0.0))?;
    let zero = run.engine.full_like(&cos, Scalar::Float(0.0), cos.dtype())?;
    let is_pos = bin(run, BinaryOp::CmpEq, &t(&y), &f(1.0))?;
    let is_neg = bin(run, BinaryOp::CmpEq, &t(&y), &f(-1.0))?;
    let a = run.engine.where_(&t(&is_pos), &t(&pos), &t(&zero))?;
    let c = run.engine.where_(&t(&is_neg), &t(&neg), &t(&zero))?;
    let l = bin(run, BinaryOp::Add, &t(&a), &t(&c))?;
    reduced(run, b, l)
}

pub fn triplet_margin_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (a, p, n) = (b.tensor("anchor")?, b.tensor("positive")?, b.tensor("negative")?);
    let (a, p, n) = (floated(run, &a)?, floated(run, &p)?, floated(run, &n)?);
    let (norm, eps) = (b.float("p"), b.float("eps"));
    let dist = |run: &mut RunContext, x: &Tensor, y: &Tensor| -> Result<Tensor> {
        let d = bin(run, BinaryOp::Sub, &t(x), &t(y))?;
        let d = bin(run, BinaryOp::Add, &t(&d), &f(eps))?;
        let last = d.shape().len().saturating_sub(1);
        run.engine.vector_norm(&d, norm, &[last], KeepDim::Drop)
    };
    let dp = dist(run, &a, &p)?;
    let mut dn = dist(run, &a, &n)?;
    if b.bool("swap") {
        let ds = dist(run, &p, &n)?;
        dn = bin(run, BinaryOp::Min, &t(&dn), &t(&ds))?;
    }
    let l = bin(run, BinaryOp::Sub, &t(&dp), &t(&dn))?;
    let l = bin(run, BinaryOp::Add, &t(&l), &f(b.float("margin")))?;
    let l = bin(run, BinaryOp::Max, &t(&l), &f(0.0))?;
    reduced(run, b, l)
}

pub fn multilabel_soft_margin_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = (b.tensor("input")?, b.tensor("target")?);
    float_only(&x, "multilabel_soft_margin_loss")?;
    if b.opt_tensor("weight").is_some() {
        bail!(Unsupported, "multilabel_soft_margin_loss(weight=...) is not supported");
    }
    // -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), averaged over the classes.
    let ls = run.engine.logsigmoid(&x)?;
    let nx = un(run, UnaryOp::Neg, &x)?;
    let lns = run.engine.logsigmoid(&nx)?;
    let a = bin(run, BinaryOp::Mul, &t(&y), &t(&ls))?;
    let omy = bin(run, BinaryOp::Sub, &f(1.0), &t(&y))?;
    let c = bin(run, BinaryOp::Mul, &t(&omy), &t(&lns))?;
    let s = bin(run, BinaryOp::Add, &t(&a), &t(&c))?;
    let s = un(run, UnaryOp::Neg, &s)?;
    let last = s.shape().len().saturating_sub(1);
    let l = if s.shape().is_empty() { s } else { run.engine.mean(&s, &[last], KeepDim::Drop)? };
    reduced(run, b, l)
}

pub fn gaussian_nll_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y, var) = (b.tensor("input")?, b.tensor("target")?, b.tensor("var")?);
    float_only(&x, "gaussian_nll_loss")?;
    if var.shape() != x.shape() && var.shape().last() != Some(&1) && var.shape().len() + 1 != x.shape().len() {
        bail!(
            Unsupported,
            "gaussian_nll_loss with this var shape ({:?} for input {:?}) is not supported",
            var.shape(),
            x.shape()
        );
    }
    let var = if var.shape().len() + 1 == x.shape().len() { run.engine.unsqueeze(&var, -1)? } else { var };
    let var = bin(run, BinaryOp::Max, &t(&var), &f(b.float("eps")))?;
    let lv = un(run, UnaryOp::Log, &var)?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let sq = bin(run, BinaryOp::Mul, &t(&d), &t(&d))?;
    let q = bin(run, BinaryOp::Div, &t(&sq), &t(&var))?;
    let s = bin(run, BinaryOp::Add, &t(&lv), &t(&q))?;
    let mut l = bin(run, BinaryOp::Mul, &t(&s), &f(0.5))?;
    if b.bool("full") {
        l = bin(run, BinaryOp::Add, &t(&l), &f(0.5 * (2.0 * std::f64::consts::PI).ln()))?;
        // `loss += const`: in place, as an unreduced result's version shows.
        if b.str("reduction").as_deref() == Some("none") {
            l = bumped(run, l, 1)?;
        }
    }
    reduced(run, b, l)
}
