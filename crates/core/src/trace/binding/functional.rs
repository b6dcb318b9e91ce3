//! Neural-network ops (`conv2d`, pooling, `softmax`, `linear`, the losses, `cat`, ...),
//! composed from the engine's graph ops the way tinygrad builds them, so they schedule into
//! fused kernels.
//!
//! This module only reads PyTorch's signatures (positional or keyword, ints or tuples) and
//! reports PyTorch's argument errors; the ops themselves live in [`crate::engine::nn`].

use crate::engine::nn::{PoolKind, SoftmaxKind, Window2d};
use crate::error::{bail, Result};
use crate::tensor::{CopyLayout, Engine, Tensor};
use crate::trace::python::value::{Args, Value};

/// Module-level functions not in the core library (`conv2d(x, w)`, `F.softmax(x, 1)`).
pub fn function(engine: &mut Engine, name: &str, mut args: Args) -> Result<Value> {
    match name {
        "cat" | "stack" => {
            let list = args.req(0, "tensors")?;
            let dim = args.int_or(1, "dim", 0)?;
            args.finish()?;
            let Some(items) = list.items() else {
                bail!(
                    Type,
                    "{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
                    list.type_name()
                );
            };
            let tensors = items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Tensor(t) => Ok(t.clone()),
                    other => bail!(Type, "expected Tensor as element {i} in argument 0, but got {}", other.type_name()),
                })
                .collect::<Result<Vec<Tensor>>>()?;
            let out = if name == "stack" { engine.stack(&tensors, dim)? } else { engine.cat(&tensors, dim)? };
            Ok(Value::Tensor(out))
        }
        _ => Err(crate::error::Error::unknown_op(format!("{name}()"), name)),
    }
}

/// The names [`function`] and [`method`] answer to, for "did you mean" and the op reference.
pub(in crate::trace) const NAMES: &[&str] = &[
    "avg_pool2d",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cat",
    "conv2d",
    "cross_entropy",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "softmax",
    "stack",
];

/// Tensor methods not in the core library (`x.softmax(1)`), and the functions that take the
/// tensor first (`softmax(x, 1)`, `F.conv2d(x, w)`), which the library routes here as methods.
pub fn method(engine: &mut Engine, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let out = match name {
        "softmax" | "log_softmax" => {
            let dim = match args.opt(0, "dim") {
                None | Some(Value::None) => implicit_softmax_dim(t.shape().len()),
                Some(v) => v.as_int("dim")?,
            };
            let _stacklevel = args.kw_only("_stacklevel");
            let dtype = args.dtype()?;
            args.finish()?;
            let t = match dtype {
                Some(d) if d != t.dtype() => engine.cast(&t, d)?,
                _ => t,
            };
            let kind = if name == "log_softmax" { SoftmaxKind::LogSoftmax } else { SoftmaxKind::Softmax };
            engine.softmax(&t, dim, kind)?
        }
        "linear" => {
            let w = tensor(args.req(0, "weight")?, "linear", "weight", 2)?;
            let b = opt_tensor(args.opt(1, "bias"), "linear", "bias", 3)?;
            args.finish()?;
            engine.linear(&t, &w, b.as_ref())?
        }
        "mse_loss" | "cross_entropy" | "nll_loss" | "binary_cross_entropy_with_logits" | "binary_cross_entropy" => {
            loss(engine, t, name, args)?
        }
        "conv2d" => {
            let w = tensor(args.req(0, "weight")?, "conv2d", "weight", 2)?;
            let b = opt_tensor(args.opt(1, "bias"), "conv2d", "bias", 3)?;
            let stride = conv_pair(args.opt(2, "stride"), "stride", 1)?;
            let padding = args.opt(3, "padding");
            let dilation = conv_pair(args.opt(4, "dilation"), "dilation", 1)?;
            let groups = args.int_or(5, "groups", 1)?;
            args.finish()?;
            if stride.iter().any(|&s| s <= 0) {
                bail!(Shape, "non-positive stride is not supported");
            }
            if dilation.iter().any(|&d| d <= 0) {
                bail!(Shape, "dilation should be greater than zero, but got {dilation:?}");
            }
            if groups <= 0 {
                bail!(Shape, "non-positive groups is not supported");
            }
            let kernel = w.shape().get(2..4).map_or([1, 1], |k| [k[0], k[1]]);
            let (before, after) = conv_padding(padding, kernel, dilation, stride)?;
            let win = Window2d {
                kernel,
                stride: to_usize(stride),
                padding: before,
                dilation: to_usize(dilation),
                ceil_mode: false,
            };
            if before == after {
                engine.conv2d(&t, &w, b.as_ref(), win, groups as usize)?
            } else {
                // 'same' with an even effective kernel pads one more on the right: pad first.
                let padded = pad_right(engine, &t, before, after)?;
                engine.conv2d(&padded, &w, b.as_ref(), Window2d { padding: [0, 0], ..win }, groups as usize)?
            }
        }
        "max_pool2d" | "avg_pool2d" => {
            let max = name == "max_pool2d";
            let kernel = pool_pair(
                args.req(0, "kernel_size")?,
                name,
                "kernel_size",
                "must either be a single int, or a tuple of two ints",
            )?;
            let stride = match args.opt(1, "stride") {
                None | Some(Value::None) => kernel,
                Some(v) if v.items().is_some_and(|items| items.is_empty()) => kernel,
                Some(v) => {
                    pool_pair(v, name, "stride", "must either be omitted, a single int, or a tuple of two ints")?
                }
            };
            let padding = match args.opt(2, "padding") {
                None => [0, 0],
                Some(v) => pool_pair(v, name, "padding", "must either be a single int, or a tuple of two ints")?,
            };
            let (dilation, ceil_mode, kind) = if max {
                let dilation = match args.opt(3, "dilation") {
                    None => [1, 1],
                    Some(v) => pool_pair(v, name, "dilation", "must be either a single int, or a tuple of two ints")?,
                };
                let ceil = args.bool_or(4, "ceil_mode", false)?;
                if args.bool_or(5, "return_indices", false)? {
                    bail!(Unsupported, "max_pool2d(return_indices=True) is not supported");
                }
                (dilation, ceil, PoolKind::Max)
            } else {
                let ceil = args.bool_or(3, "ceil_mode", false)?;
                let count_include_pad = args.bool_or(4, "count_include_pad", true)?;
                let divisor = args.opt_int(5, "divisor_override")?;
                if divisor == Some(0) {
                    bail!(Shape, "divisor must be not zero");
                }
                ([1, 1], ceil, PoolKind::Avg { count_include_pad, divisor })
            };
            args.finish()?;
            if padding.iter().any(|&p| p < 0) {
                bail!(
                    Shape,
                    "pad must be non-negative, but got pad: {}",
                    padding.iter().find(|&&p| p < 0).copied().unwrap_or(0)
                );
            }
            if stride.iter().any(|&s| s < 0) || kernel.iter().any(|&k| k < 0) || dilation.iter().any(|&d| d < 0) {
                bail!(Shape, "{name}: kernel_size, stride and dilation must be non-negative");
            }
            let win = Window2d {
                kernel: to_usize(kernel),
                stride: to_usize(stride),
                padding: to_usize(padding),
                dilation: to_usize(dilation),
                ceil_mode,
            };
            engine.pool2d(&t, win, kind)?
        }
        _ => return Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    };
    Ok(Value::Tensor(out))
}

/// `F.softmax(x)` without a dim: PyTorch's legacy choice (it warns, and so should a user).
fn implicit_softmax_dim(ndim: usize) -> i64 {
    if matches!(ndim, 0 | 1 | 3) {
        0
    } else {
        1
    }
}

fn to_usize(v: [i64; 2]) -> [usize; 2] {
    // Callers have refused negatives with PyTorch's message first.
    [v[0].max(0) as usize, v[1].max(0) as usize]
}

/// The losses: `(input, target, weight=, size_average=, ignore_index=, reduce=, reduction=, ...)`
/// in each loss's own order; weights and the legacy reduction flags are not supported yet.
fn loss(engine: &mut Engine, x: Tensor, name: &str, mut args: Args) -> Result<Tensor> {
    use crate::autograd::Reduction;
    let target = tensor(args.req(0, "target")?, name, "target", 2)?;
    // Positions after the target, per loss (None: the loss has no such argument).
    let (weight, size_average, ignore, reduce, reduction, extra) = match name {
        "mse_loss" => (Some(4), Some(1), None, Some(2), 3, None),
        "cross_entropy" => (Some(1), Some(2), Some(3), Some(4), 5, Some((6, "label_smoothing"))),
        "nll_loss" => (Some(1), Some(2), Some(3), Some(4), 5, None),
        "binary_cross_entropy_with_logits" => (Some(1), Some(2), None, Some(3), 4, Some((5, "pos_weight"))),
        _ => (Some(1), Some(2), None, Some(3), 4, None),
    };
    let is_set = |v: Option<Value>| !matches!(v, None | Some(Value::None));
    if weight.is_some_and(|i| is_set(args.opt(i, "weight"))) {
        bail!(Unsupported, "{name}() with weight= is not supported yet");
    }
    if size_average.is_some_and(|i| is_set(args.opt(i, "size_average")))
        || reduce.is_some_and(|i| is_set(args.opt(i, "reduce")))
    {
        bail!(Unsupported, "{name}() with size_average= or reduce= is not supported; use reduction=");
    }
    let ignore_index = match ignore {
        Some(i) => args.int_or(i, "ignore_index", -100)?,
        None => -100,
    };
    let reduction = match args.opt(reduction, "reduction") {
        None => Reduction::Mean,
        Some(Value::Str(s)) => Reduction::parse(&s)?,
        Some(other) => bail!(Type, "{name}(): argument 'reduction' must be str, not {}", other.type_name()),
    };
    if let Some((i, what)) = extra {
        let v = args.opt(i, what);
        let set = match (&v, what) {
            (None | Some(Value::None), _) => false,
            (Some(v), "label_smoothing") => v.as_scalar(what)?.as_f64() != 0.0,
            _ => true,
        };
        if set {
            bail!(Unsupported, "{name}() with {what}= is not supported yet");
        }
    }
    args.finish()?;
    match name {
        "mse_loss" => engine.mse_loss(&x, &target, reduction),
        "cross_entropy" => engine.cross_entropy(&x, &target, reduction, ignore_index),
        "nll_loss" => engine.nll_loss(&x, &target, reduction, ignore_index),
        "binary_cross_entropy_with_logits" => engine.bce_with_logits(&x, &target, reduction),
        _ => engine.bce(&x, &target, reduction),
    }
}

fn tensor(v: Value, func: &str, what: &str, pos: usize) -> Result<Tensor> {
    match v {
        Value::Tensor(t) => Ok(t),
        other => bail!(Type, "{func}(): argument '{what}' (position {pos}) must be Tensor, not {}", other.type_name()),
    }
}

fn opt_tensor(v: Option<Value>, func: &str, what: &str, pos: usize) -> Result<Option<Tensor>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => tensor(v, func, what, pos).map(Some),
    }
}

/// A convolution's int-or-tuple argument: one int, or one value per spatial dim.
fn conv_pair(v: Option<Value>, what: &str, default: i64) -> Result<[i64; 2]> {
    let Some(v) = v else { return Ok([default; 2]) };
    let xs = v.as_ints(what)?;
    match xs.as_slice() {
        [a] => Ok([*a, *a]),
        [a, b] => Ok([*a, *b]),
        _ => bail!(Shape, "expected {what} to be a single integer value or a list of 2 values to match the convolution dimensions, but got {what}={xs:?}"),
    }
}

/// A pooling's int-or-tuple argument, with the message PyTorch's pooling gives for bad arity.
fn pool_pair(v: Value, func: &str, what: &str, rule: &str) -> Result<[i64; 2]> {
    let xs = v.as_ints(what)?;
    match xs.as_slice() {
        [a] => Ok([*a, *a]),
        [a, b] => Ok([*a, *b]),
        _ => bail!(Shape, "{func}: {what} {rule}"),
    }
}

/// Conv padding as (before, after) per spatial dim: ints, a tuple, `'valid'` or `'same'`.
fn conv_padding(
    v: Option<Value>,
    kernel: [usize; 2],
    dilation: [i64; 2],
    stride: [i64; 2],
) -> Result<([usize; 2], [usize; 2])> {
    match v {
        Some(Value::Str(s)) if s == "valid" => Ok(([0, 0], [0, 0])),
        Some(Value::Str(s)) if s == "same" => {
            if stride != [1, 1] {
                bail!(Shape, "padding='same' is not supported for strided convolutions");
            }
            let mut before = [0; 2];
            let mut after = [0; 2];
            for d in 0..2 {
                let total = dilation[d].max(0) as usize * kernel[d].saturating_sub(1);
                before[d] = total / 2;
                after[d] = total - before[d];
            }
            Ok((before, after))
        }
        Some(Value::Str(s)) => bail!(Shape, "Invalid padding string: '{s}'"),
        v => {
            let p = conv_pair(v, "padding", 0)?;
            if p.iter().any(|&x| x < 0) {
                bail!(Shape, "negative padding is not supported");
            }
            let p = to_usize(p);
            Ok((p, p))
        }
    }
}

/// Pads the last two dims asymmetrically with zeros (a copy, as `F.pad` is in PyTorch).
fn pad_right(engine: &mut Engine, t: &Tensor, before: [usize; 2], after: [usize; 2]) -> Result<Tensor> {
    let n = t.shape().len();
    if n < 2 {
        bail!(Shape, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {:?}", t.shape());
    }
    let arg: Vec<(usize, usize)> =
        (0..n).map(|d| if d + 2 >= n { (before[d + 2 - n], after[d + 2 - n]) } else { (0, 0) }).collect();
    let tg = t.tinygrad().pad(&arg)?;
    engine.movement_copy(t, crate::uop::Op::Pad(arg), tg, CopyLayout::RowMajor)
}
