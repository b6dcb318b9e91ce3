//! Declared neural-network ops: the normalizations, `embedding`, the losses, pixel shuffles,
//! adaptive pooling and scaled dot-product attention.

use super::util::*;
use crate::dtype::DType;
use crate::engine::nn::SoftmaxKind;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::uop::buffer::Data;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

// ----------------------------------------------------------------------- normalizations

fn normalized_dims(b: &Bound, x: &Tensor) -> Result<Vec<usize>> {
    let shape = b.ints("normalized_shape").unwrap_or_default();
    let nd = x.shape().len();
    let k = shape.len();
    let tail: Vec<i64> = x.shape()[nd.saturating_sub(k)..].iter().map(|&n| n as i64).collect();
    if k == 0 || k > nd || tail != shape {
        bail!(
            Shape,
            "Given normalized_shape={shape:?}, expected input with shape [*, {}], but got input of size{:?}",
            shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
            x.shape()
        );
    }
    Ok((nd - k..nd).collect())
}

pub fn layer_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "LayerNormKernelImpl")?;
    let ax = normalized_dims(b, &x)?;
    let (w, bias) = (b.opt_tensor("weight"), b.opt_tensor("bias"));
    v(run.engine.normalize(&x, &ax, b.float("eps"), w.as_ref(), bias.as_ref())?)
}

pub fn rms_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "rms_norm")?;
    let ax = normalized_dims(b, &x)?;
    let eps = b.opt_float("eps").unwrap_or_else(|| match x.dtype() {
        DType::Float64 => f64::EPSILON,
        _ => f64::from(f32::EPSILON),
    });
    v(run.engine.rms_norm(&x, &ax, eps, b.opt_tensor("weight").as_ref())?)
}

pub fn group_norm(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "GroupNormKernelImpl")?;
    let groups = b.int("num_groups");
    v(run.engine.group_norm(
        &x,
        groups,
        b.float("eps"),
        b.opt_tensor("weight").as_ref(),
        b.opt_tensor("bias").as_ref(),
    )?)
}

pub fn normalize(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "normalize")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let ax: Vec<usize> = if nd == 0 { vec![] } else { vec![d] };
    let n = run.engine.vector_norm(&x, b.float("p"), &ax, KeepDim::Keep)?;
    let n = bin(run, BinaryOp::Max, &t(&n), &f(b.float("eps")))?;
    let shape: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
    let n = run.engine.expand(&n, &shape)?;
    v(bin(run, BinaryOp::Div, &t(&x), &t(&n))?)
}

pub fn cosine_similarity(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x1")?;
    let y = b.tensor("x2")?;
    float_only(&x, "cosine_similarity")?;
    let shape = crate::tensor::Engine::broadcast_shapes(&[x.shape(), y.shape()])?;
    if shape.is_empty() {
        // 0-d inputs: the similarity of one-element vectors along dim 0 (or -1).
        wrap_dim(b.int("dim"), 0)?;
        let (x1, y1) = (run.engine.reshape(&x, &[1])?, run.engine.reshape(&y, &[1])?);
        let unit = |run: &mut RunContext, a: &Tensor| -> Result<Tensor> {
            let n = run.engine.unary(UnaryOp::Abs, a)?;
            let n = bin(run, BinaryOp::Max, &t(&n), &f(b.float("eps")))?;
            bin(run, BinaryOp::Div, &t(a), &t(&n))
        };
        let (xu, yu) = (unit(run, &x1)?, unit(run, &y1)?);
        let p = bin(run, BinaryOp::Mul, &t(&xu), &t(&yu))?;
        return v(op(run, "sum", vec![tv(&p), int(0)], vec![])?);
    }
    let d = wrap_dim(b.int("dim"), shape.len())?;
    let eps = b.float("eps");
    // PyTorch's formula: each input divided by its clamped norm, then the dot product.
    let unit = |run: &mut RunContext, a: &Tensor| -> Result<Tensor> {
        let n = run.engine.vector_norm(a, 2.0, &[d.min(a.shape().len().saturating_sub(1))], KeepDim::Keep)?;
        let n = bin(run, BinaryOp::Max, &t(&n), &f(eps))?;
        bin(run, BinaryOp::Div, &t(a), &t(&n))
    };
    let shape_i: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let xe = run.engine.expand(&x, &shape_i)?;
    let ye = run.engine.expand(&y, &shape_i)?;
    let xu = unit(run, &xe)?;
    let yu = unit(run, &ye)?;
    let p = bin(run, BinaryOp::Mul, &t(&xu), &t(&yu))?;
    v(op(run, "sum", vec![tv(&p), int(d as i64)], vec![])?)
}

pub fn pairwise_distance(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x1")?;
    let y = b.tensor("x2")?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let d = bin(run, BinaryOp::Add, &t(&d), &f(b.float("eps")))?;
    let nd = d.shape().len();
    let ax: Vec<usize> = if nd == 0 { vec![] } else { vec![nd - 1] };
    v(run.engine.vector_norm(&d, b.float("p"), &ax, KeepDim::from(b.bool("keepdim")))?)
}

pub fn embedding(run: &mut RunContext, b: &Bound) -> Out {
    let idx = b.tensor("input")?;
    let w = b.tensor("weight")?;
    if !b.is_none("max_norm") {
        bail!(Unsupported, "embedding(max_norm=...) renormalizes the weight in place; not supported");
    }
    if idx.dtype().is_float() || idx.dtype() == DType::Bool {
        bail!(
            DType,
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{} instead (while checking arguments for embedding)",
            idx.dtype().name()
        );
    }
    if w.shape().len() != 2 {
        bail!(Shape, "'weight' must be 2-D");
    }
    if b.opt_int("padding_idx").is_some() && run.engine.autograd().requires_grad(&w) {
        bail!(Unsupported, "embedding(padding_idx=...) with a weight that requires grad is not supported");
    }
    v(run.engine.embedding(&w, &idx)?)
}

// -------------------------------------------------------------------------------- losses

pub fn l1_loss(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let a = un(run, UnaryOp::Abs, &d)?;
    reduced(run, b, a)
}

/// Smooth L1 (`beta`) and Huber (`delta`): quadratic inside the threshold, linear outside.
fn smooth(run: &mut RunContext, b: &Bound, huber: bool) -> Out {
    let (x, y) = loss_operands(run, b)?;
    let k = b.float(if huber { "delta" } else { "beta" });
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let a = un(run, UnaryOp::Abs, &d)?;
    if !huber && k == 0.0 {
        return reduced(run, b, a);
    }
    let sq = bin(run, BinaryOp::Mul, &t(&d), &t(&d))?;
    let quad = bin(run, BinaryOp::Mul, &t(&sq), &f(if huber { 0.5 } else { 0.5 / k }))?;
    let lin = bin(run, BinaryOp::Sub, &t(&a), &f(0.5 * k))?;
    let lin = if huber { bin(run, BinaryOp::Mul, &t(&lin), &f(k))? } else { lin };
    let inside = bin(run, BinaryOp::CmpLt, &t(&a), &f(k))?;
    let l = run.engine.where_(&t(&inside), &t(&quad), &t(&lin))?;
    reduced(run, b, l)
}

pub fn smooth_l1_loss(run: &mut RunContext, b: &Bound) -> Out {
    smooth(run, b, false)
}

pub fn huber_loss(run: &mut RunContext, b: &Bound) -> Out {
    smooth(run, b, true)
}

pub fn kl_div(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = loss_operands(run, b)?;
    // target * (log(target) - input), or exp(target) * (target - input) for log targets.
    let l = if b.bool("log_target") {
        let e = un(run, UnaryOp::Exp, &y)?;
        let d = bin(run, BinaryOp::Sub, &t(&y), &t(&x))?;
        bin(run, BinaryOp::Mul, &t(&e), &t(&d))?
    } else {
        let xl = op(run, "xlogy", vec![tv(&y), tv(&y)], vec![])?;
        let yx = bin(run, BinaryOp::Mul, &t(&y), &t(&x))?;
        bin(run, BinaryOp::Sub, &t(&xl), &t(&yx))?
    };
    if b.str("reduction").as_deref() == Some("batchmean") {
        let s = op(run, "sum", vec![tv(&l)], vec![])?;
        let n = if x.shape().is_empty() { 1 } else { x.shape()[0] };
        return v(bin(run, BinaryOp::Div, &t(&s), &Operand::Scalar(Scalar::Int(n as i64)))?);
    }
    reduced(run, b, l)
}

// ------------------------------------------------------------------------ spatial, attention

fn shuffle(run: &mut RunContext, x: &Tensor, r: i64, up: bool, name: &str) -> Out {
    let s = x.shape();
    let nd = s.len();
    if nd < 3 {
        bail!(Shape, "{name} expects input to have at least 3 dimensions, but got input with {nd} dimension(s)");
    }
    if r <= 0 {
        bail!(Shape, "{name} expects its factor to be positive, but got {r}");
    }
    let lead: Vec<i64> = s[..nd - 3].iter().map(|&n| n as i64).collect();
    let (c, h, w) = (s[nd - 3] as i64, s[nd - 2] as i64, s[nd - 1] as i64);
    let l = lead.len() as i64;
    let dims = |rest: &[i64]| -> Vec<i64> {
        let mut d: Vec<i64> = (0..l).collect();
        d.extend(rest.iter().map(|k| k + l));
        d
    };
    let with = |tail: &[i64]| -> Vec<i64> {
        let mut v = lead.clone();
        v.extend_from_slice(tail);
        v
    };
    let y = if up {
        if c % (r * r) != 0 {
            bail!(Shape, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {}", r * r);
        }
        let oc = c / (r * r);
        let a = run.engine.reshape(x, &with(&[oc, r, r, h, w]))?;
        let p = run.engine.permute(&a, &dims(&[0, 3, 1, 4, 2]))?;
        run.engine.reshape(&p, &with(&[oc, h * r, w * r]))?
    } else {
        if h % r != 0 || w % r != 0 {
            bail!(Shape, "pixel_unshuffle expects height and width to be divisible by downscale_factor, but got {h} and {w} for factor {r}");
        }
        let a = run.engine.reshape(x, &with(&[c, h / r, r, w / r, r]))?;
        let p = run.engine.permute(&a, &dims(&[0, 2, 4, 1, 3]))?;
        run.engine.reshape(&p, &with(&[c * r * r, h / r, w / r]))?
    };
    // PyTorch's result is always a new contiguous tensor.
    let y = if y.same_object(x) || !y.layout().is_contiguous() { run.engine.contiguous(&y)? } else { y };
    let y = if y.storage() == x.storage() { op(run, "clone", vec![tv(&y)], vec![])? } else { y };
    v(y)
}

pub fn pixel_shuffle(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    shuffle(run, &x, b.int("upscale_factor"), true, "pixel_shuffle")
}

pub fn pixel_unshuffle(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    shuffle(run, &x, b.int("downscale_factor"), false, "pixel_unshuffle")
}

pub fn scaled_dot_product_attention(run: &mut RunContext, b: &Bound) -> Out {
    let (q, k, val) = (b.tensor("query")?, b.tensor("key")?, b.tensor("value")?);
    float_only(&q, "scaled_dot_product_attention")?;
    if b.float("dropout_p") != 0.0 {
        bail!(
            Unsupported,
            "scaled_dot_product_attention(dropout_p > 0) draws from CUDA's generator order; not supported"
        );
    }
    let nd = q.shape().len();
    if nd < 2 || k.shape().len() < 2 {
        bail!(Shape, "scaled_dot_product_attention expects query and key with at least 2 dims");
    }
    let e = q.shape()[nd - 1] as f64;
    let scale = b.opt_float("scale").unwrap_or(1.0 / e.sqrt());
    let kt = run.engine.transpose(&k, -2, -1)?;
    let s = run.engine.matmul(&q, &kt)?;
    let mut s = bin(run, BinaryOp::Mul, &t(&s), &f(scale))?;
    let (l, sl) = (s.shape()[s.shape().len() - 2], s.shape()[s.shape().len() - 1]);
    if b.bool("is_causal") {
        if !b.is_none("attn_mask") {
            bail!(Shape, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
        }
        let keep: Vec<bool> = (0..l).flat_map(|i| (0..sl).map(move |j| j <= i)).collect();
        let m = run.engine.from_data(Data::Bool(keep), &[l, sl])?;
        s = run.engine.where_(&t(&m), &t(&s), &f(f64::NEG_INFINITY))?;
    } else if let Some(m) = b.opt_tensor("attn_mask") {
        s = if m.dtype() == DType::Bool {
            run.engine.where_(&t(&m), &t(&s), &f(f64::NEG_INFINITY))?
        } else {
            bin(run, BinaryOp::Add, &t(&s), &t(&m))?
        };
    }
    let p = run.engine.softmax(&s, -1, SoftmaxKind::Softmax)?;
    v(run.engine.matmul(&p, &val)?)
}

pub fn einsum(run: &mut RunContext, b: &Bound) -> Out {
    let eq = b.str("equation").unwrap_or_default();
    let ops = b.tensors("operands");
    v(run.engine.einsum(&eq, &ops)?)
}

/// `round(input, decimals=0)`.
pub fn round(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let d = b.int("decimals");
    if d == 0 {
        return v(un(run, UnaryOp::Round, &x)?);
    }
    if !x.dtype().is_float() {
        bail!(DType, "round_cpu not implemented for '{}' with decimals != 0", x.dtype().torch_name());
    }
    // PyTorch: round(x * 10^d) / 10^d, and round(x / 10^-d) * 10^-d for negative d.
    if d > 0 {
        let k = 10f64.powi(d as i32);
        let s = bin(run, BinaryOp::Mul, &t(&x), &f(k))?;
        let r = un(run, UnaryOp::Round, &s)?;
        v(bin(run, BinaryOp::Div, &t(&r), &f(k))?)
    } else {
        let k = 10f64.powi((-d) as i32);
        let s = bin(run, BinaryOp::Div, &t(&x), &f(k))?;
        let r = un(run, UnaryOp::Round, &s)?;
        v(bin(run, BinaryOp::Mul, &t(&r), &f(k))?)
    }
}
