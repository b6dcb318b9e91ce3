//! Declared composites of shape and statistics: `diagflat`, `block_diag`, `cartesian_prod`,
//! `combinations`, `tensordot`, the trapezoid rules, `linalg.diagonal`, `linalg.vander`,
//! `constant_pad_nd`, the 1-D pools, `channel_shuffle`, `sum_to_size`, `cov`/`corrcoef`,
//! `cummax`/`cummin` (indices found on the host, values gathered so gradients flow),
//! `logcumsumexp`, `isin`, `gcd`/`lcm`, the bit shifts, `frexp`, `unravel_index` and the
//! `_ex` forms of the factorizations.

use super::util::*;
use crate::dtype::DType;
use crate::engine::pad::PadMode;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

fn tvals(x: &Tensor) -> Value {
    Value::Tensor(x.clone())
}

fn ints_value(v: &[i64]) -> Value {
    Value::Tuple(v.iter().map(|&i| Value::Scalar(Scalar::Int(i))).collect())
}

pub fn diagflat(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let flat = run.engine.reshape(&x, &[-1])?;
    v(run.engine.diag(&flat, b.int("offset"))?)
}

pub fn block_diag(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    let mut mats = Vec::with_capacity(items.len());
    for x in &items {
        mats.push(match x.shape().len() {
            0 => run.engine.reshape(x, &[1, 1])?,
            1 => run.engine.reshape(x, &[1, x.numel() as i64])?,
            2 => x.clone(),
            n => bail!(
                Shape,
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {n} dimensions",
                mats.len()
            ),
        });
    }
    if mats.is_empty() {
        return v(run.engine.full(&[1, 0], Scalar::Float(0.0), Some(DType::Float32))?);
    }
    let ops: Vec<Operand> = mats.iter().map(|m| Operand::Tensor(m.clone())).collect();
    let refs: Vec<&Operand> = ops.iter().collect();
    let dtype = run.engine.promote(&refs);
    let cols: usize = mats.iter().map(|m| m.shape()[1]).sum();
    let mut rows = Vec::with_capacity(mats.len());
    let mut left = 0;
    for m in &mats {
        let m = if m.dtype() == dtype { m.clone() } else { run.engine.cast(m, dtype)? };
        let w = m.shape()[1];
        let right = (cols - left - w) as i64;
        rows.push(run.engine.torch_pad(&m, &[left as i64, right], PadMode::Constant, None)?);
        left += w;
    }
    v(run.engine.cat(&rows, 0)?)
}

pub fn cartesian_prod(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    if items.len() == 1 {
        return Ok(tvals(&items[0]));
    }
    let grids = match op_value(
        run,
        "meshgrid",
        vec![Value::Tuple(items.iter().map(tvals).collect())],
        vec![("indexing", Value::Str("ij".into()))],
    )? {
        Value::Tuple(g) => g,
        _ => bail!(Shape, "cartesian_prod: meshgrid gave no grids"),
    };
    let mut cols = Vec::with_capacity(grids.len());
    for g in grids {
        let Value::Tensor(g) = g else { continue };
        cols.push(run.engine.reshape(&g, &[-1])?);
    }
    v(run.engine.stack(&cols, 1)?)
}

pub fn combinations(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if x.shape().len() != 1 {
        bail!(Shape, "Expect a 1D vector, but got shape {:?}", x.shape());
    }
    let (n, r) = (x.numel(), b.int("r"));
    if r < 0 {
        bail!(Shape, "Expect a non-negative number, but got {r}");
    }
    let r = r as usize;
    if r == 0 {
        return v(run.engine.full(&[0], Scalar::Float(0.0), Some(x.dtype()))?);
    }
    let with = b.bool("with_replacement");
    let mut combos: Vec<Vec<usize>> = Vec::new();
    let mut cur = vec![0usize; r];
    fn walk(i: usize, start: usize, n: usize, with: bool, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if i == cur.len() {
            out.push(cur.clone());
            return;
        }
        for k in start..n {
            cur[i] = k;
            walk(i + 1, if with { k } else { k + 1 }, n, with, cur, out);
        }
    }
    walk(0, 0, n, with, &mut cur, &mut combos);
    crate::limits::check_numel(&[combos.len(), r])?;
    let mut cols = Vec::with_capacity(r);
    for j in 0..r {
        let idx: Vec<i64> = combos.iter().map(|c| c[j] as i64).collect();
        let len = idx.len();
        let i = run.engine.from_data(Data::I64(idx), &[len])?;
        cols.push(run.engine.index_select(&x, 0, &i)?);
    }
    if combos.is_empty() {
        return v(run.engine.full(&[0, r], Scalar::Float(0.0), Some(x.dtype()))?);
    }
    v(run.engine.stack(&cols, 1)?)
}

pub fn tensordot(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("a")?;
    let y = b.tensor("b")?;
    let (nx, ny) = (x.shape().len(), y.shape().len());
    let (dx, dy): (Vec<usize>, Vec<usize>) = match b.value("dims").seq() {
        Value::Scalar(Scalar::Int(k)) => {
            let k = k.max(0) as usize;
            if k > nx || k > ny {
                bail!(Shape, "tensordot expects dims < ndim_a or ndim_b, but got dims={k}");
            }
            ((nx - k..nx).collect(), (0..k).collect())
        }
        Value::Tuple(p) if p.len() == 2 => {
            let side = |v: &Value, n: usize| -> Result<Vec<usize>> {
                let ds = match v {
                    Value::Scalar(Scalar::Int(i)) => vec![*i],
                    other => other.as_ints("dims")?,
                };
                ds.into_iter().map(|d| wrap_dim(d, n)).collect()
            };
            (side(&p[0], nx)?, side(&p[1], ny)?)
        }
        other => bail!(Type, "tensordot(): argument 'dims' must be int or a pair of lists, not {}", other.type_name()),
    };
    if dx.len() != dy.len() {
        bail!(Shape, "both dimension lists should have same length");
    }
    let fx: Vec<usize> = (0..nx).filter(|d| !dx.contains(d)).collect();
    let fy: Vec<usize> = (0..ny).filter(|d| !dy.contains(d)).collect();
    let k: usize = dx.iter().map(|&d| x.shape()[d]).product();
    for (&a, &c) in dx.iter().zip(&dy) {
        let (sa, sc) = (x.shape()[a], y.shape()[c]);
        if sa != sc && (sa == 1 || sc == 1) {
            bail!(
                Unsupported,
                "tensordot over a size-1 dimension against a longer one (PyTorch sums it first) is not supported"
            );
        }
        if sa != sc {
            bail!(Shape, "contracted dimensions need to match, but first has size {} in dim {a} and second has size {} in dim {c}", x.shape()[a], y.shape()[c]);
        }
    }
    let px: Vec<i64> = fx.iter().chain(&dx).map(|&d| d as i64).collect();
    let py: Vec<i64> = dy.iter().chain(&fy).map(|&d| d as i64).collect();
    let xm = run.engine.permute(&x, &px)?;
    let ym = run.engine.permute(&y, &py)?;
    let m: usize = fx.iter().map(|&d| x.shape()[d]).product();
    let n: usize = fy.iter().map(|&d| y.shape()[d]).product();
    let xm = run.engine.reshape(&xm, &[m as i64, k as i64])?;
    let ym = run.engine.reshape(&ym, &[k as i64, n as i64])?;
    let r = run.engine.matmul(&xm, &ym)?;
    let shape: Vec<i64> =
        fx.iter().map(|&d| x.shape()[d] as i64).chain(fy.iter().map(|&d| y.shape()[d] as i64)).collect();
    v(run.engine.reshape(&r, &shape)?)
}

/// The trapezoid rule along `dim`: the pairwise means of `y` times the spacing, summed
/// (`cumulative`: a cumulative sum instead).
fn trapezoid_with(run: &mut RunContext, b: &Bound, cumulative: bool) -> Out {
    let y = b.tensor("y")?;
    let nd = y.shape().len();
    if nd == 0 {
        bail!(Index, "Dimension out of range (expected to be in range of [-1, 0], but got -1)");
    }
    let d = wrap_dim(b.int("dim"), nd)? as i64;
    let n = y.shape()[d as usize] as i64;
    if n == 0 {
        let r = if cumulative {
            run.engine.narrow(&y, d, 0, 0)?
        } else {
            run.engine.reduce(ReduceOp::Sum, &y, &[d as usize], KeepDim::Drop)?
        };
        return v(floated(run, &r)?);
    }
    let lo = run.engine.narrow(&y, d, 0, n - 1)?;
    let hi = run.engine.narrow(&y, d, 1, n - 1)?;
    let s = bin(run, BinaryOp::Add, &t(&lo), &t(&hi))?;
    let area = match b.opt_tensor("x") {
        Some(x) => {
            let xd = if x.shape().len() == 1 { 0 } else { d };
            let xn = x.shape()[xd as usize] as i64;
            let (xl, xh) = (run.engine.narrow(&x, xd, 0, xn - 1)?, run.engine.narrow(&x, xd, 1, xn - 1)?);
            let dx = bin(run, BinaryOp::Sub, &t(&xh), &t(&xl))?;
            let dx = if x.shape().len() == 1 && nd > 1 {
                let mut shape = vec![1i64; nd];
                shape[d as usize] = xn - 1;
                run.engine.reshape(&dx, &shape)?
            } else {
                dx
            };
            let p = bin(run, BinaryOp::Mul, &t(&dx), &t(&s))?;
            bin(run, BinaryOp::Div, &t(&p), &f(2.0))?
        }
        None => {
            let dx = b.scalar("dx").unwrap_or(Scalar::Int(1));
            let p = bin(run, BinaryOp::Mul, &t(&s), &Operand::Scalar(dx))?;
            bin(run, BinaryOp::Div, &t(&p), &f(2.0))?
        }
    };
    if cumulative {
        return v(run.engine.cumsum(&area, d, None)?);
    }
    v(run.engine.reduce(ReduceOp::Sum, &area, &[d as usize], KeepDim::Drop)?)
}

pub fn trapezoid(run: &mut RunContext, b: &Bound) -> Out {
    trapezoid_with(run, b, false)
}

pub fn cumulative_trapezoid(run: &mut RunContext, b: &Bound) -> Out {
    trapezoid_with(run, b, true)
}

pub fn linalg_diagonal(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    v(run.engine.diagonal(&a, b.int("offset"), b.int("dim1"), b.int("dim2"))?)
}

pub fn vander(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x")?;
    if x.shape().is_empty() {
        bail!(Unsupported, "linalg.vander of a 0-d tensor is not supported");
    }
    let n = b.opt_int("N").unwrap_or(x.shape()[x.shape().len() - 1] as i64);
    if n <= 1 {
        bail!(Shape, "N must be greater than 1.");
    }
    // Columns x^0, x^1, ...: a cumulative product of [1, x, x, ...].
    let xe = run.engine.unsqueeze(&x, -1)?;
    let mut shape: Vec<i64> = xe.shape().iter().map(|&s| s as i64).collect();
    let last = shape.len() - 1;
    shape[last] = n - 1;
    let rep = run.engine.expand(&xe, &shape)?;
    let dtype = if x.dtype() == DType::Bool { DType::Int64 } else { x.dtype() };
    let rep = run.engine.cast(&rep, dtype)?;
    shape[last] = 1;
    let sizes: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
    let ones = run.engine.full(&sizes, Scalar::Int(1), Some(dtype))?;
    let all = run.engine.cat(&[ones, rep], -1)?;
    v(run.engine.cumprod(&all, -1, None)?)
}

pub fn constant_pad_nd(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let pad = b.ints("pad").unwrap_or_default();
    v(run.engine.torch_pad(&x, &pad, PadMode::Constant, b.scalar("value"))?)
}

/// A 1-D pool as the 2-D one of height 1.
fn pool1d(run: &mut RunContext, b: &Bound, name: &str) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    if nd != 2 && nd != 3 {
        bail!(
            Shape,
            "{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got: {:?}",
            x.shape()
        );
    }
    let x4 = run.engine.unsqueeze(&x, -2)?;
    let pair = |v: Value, unit: i64| -> Result<Value> {
        Ok(match v.seq() {
            Value::None => Value::None,
            Value::Scalar(Scalar::Int(i)) => ints_value(&[unit, i]),
            Value::Tuple(items) if items.len() == 1 => ints_value(&[unit, items[0].as_int("size")?]),
            other => bail!(Type, "{name}(): expected an int or a one-element tuple, got {}", other.type_name()),
        })
    };
    let mut kw = vec![
        ("kernel_size", pair(b.value("kernel_size"), 1)?),
        ("stride", pair(b.value("stride"), 1)?),
        ("padding", pair(b.value("padding"), 0)?),
        ("ceil_mode", b.value("ceil_mode")),
    ];
    let two = if name == "max_pool1d" {
        kw.push(("dilation", pair(b.value("dilation"), 1)?));
        if b.bool("return_indices") {
            bail!(Unsupported, "max_pool1d(return_indices=True) is not supported");
        }
        "max_pool2d"
    } else {
        kw.push(("count_include_pad", b.value("count_include_pad")));
        "avg_pool2d"
    };
    let kw: Vec<(&str, Value)> = kw.into_iter().filter(|(_, v)| !matches!(v, Value::None)).collect();
    let y = op(run, two, vec![Value::Tensor(x4)], kw)?;
    let y = run.engine.squeeze(&y, Some(&[-2]))?;
    v(y)
}

pub fn max_pool1d(run: &mut RunContext, b: &Bound) -> Out {
    pool1d(run, b, "max_pool1d")
}

pub fn avg_pool1d(run: &mut RunContext, b: &Bound) -> Out {
    pool1d(run, b, "avg_pool1d")
}

/// `x.__getitem__(idx)`: `x[idx]`.
pub fn getitem(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let items = match b.value("idx") {
        Value::Tuple(items) => items,
        other => vec![other],
    };
    crate::trace::binding::subscript::getitem(run, &Value::Tensor(x), &items)
}

pub fn channel_shuffle(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let g = b.int("groups");
    let s: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
    if s.len() < 3 {
        bail!(Shape, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes {s:?}");
    }
    if g <= 0 || s[1] % g != 0 {
        bail!(Shape, "Number of channels must be divisible by groups. Got {} channels and {g} groups.", s[1]);
    }
    let mut split = vec![s[0], g, s[1] / g];
    split.extend_from_slice(&s[2..]);
    let r = run.engine.reshape(&x, &split)?;
    let p = run.engine.transpose(&r, 1, 2)?;
    let c = op(
        run,
        "clone",
        vec![Value::Tensor(p)],
        vec![("memory_format", Value::Format(crate::torch::format::MemoryFormat::Contiguous))],
    )?;
    v(run.engine.reshape(&c, &s)?)
}

pub fn sum_to_size(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let size = match b.value("size") {
        Value::Tuple(items)
            if items.len() == 1 && matches!(items[0], Value::Tuple(_) | Value::List(_) | Value::Size(_)) =>
        {
            items[0].as_ints("size")?
        }
        other => other.as_ints("size")?,
    };
    let nd = x.shape().len();
    if size.is_empty() {
        // PyTorch's sum_to: an empty size is the whole sum.
        return v(op(run, "sum", vec![Value::Tensor(x)], vec![])?);
    }
    if size.len() > nd {
        bail!(Shape, "size {{{size:?}}} is not expandable to size {{{:?}}}.", x.shape());
    }
    let lead = nd - size.len();
    let mut axes: Vec<usize> = (0..lead).collect();
    for (i, &s) in size.iter().enumerate() {
        let d = lead + i;
        if s == 1 && x.shape()[d] != 1 {
            axes.push(d);
        } else if s as usize != x.shape()[d] {
            bail!(Shape, "size {{{size:?}}} is not expandable to size {{{:?}}}.", x.shape());
        }
    }
    if axes.is_empty() {
        return Ok(Value::Tensor(x));
    }
    let r = run.engine.reduce(ReduceOp::Sum, &x, &axes, KeepDim::Keep)?;
    v(run.engine.reshape(&r, &size)?)
}

pub fn cov(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if !b.is_none("fweights") || !b.is_none("aweights") {
        bail!(Unsupported, "cov(fweights=..., aweights=...) is not supported");
    }
    let x = if x.shape().len() < 2 { run.engine.reshape(&x, &[1, -1])? } else { x };
    if x.shape().len() > 2 {
        bail!(
            Shape,
            "cov(): expected input to have two or fewer dimensions but got an input with {} dimensions",
            x.shape().len()
        );
    }
    let x = floated(run, &x)?;
    let n = x.shape()[1] as f64;
    let mean = run.engine.mean(&x, &[1], KeepDim::Keep)?;
    let c = bin(run, BinaryOp::Sub, &t(&x), &t(&mean))?;
    let ct = run.engine.transpose(&c, 0, 1)?;
    let p = run.engine.matmul(&c, &ct)?;
    let dof = (n - b.int("correction") as f64).max(0.0);
    let r = bin(run, BinaryOp::Div, &t(&p), &f(dof))?;
    v(if r.numel() == 1 { run.engine.reshape(&r, &[])? } else { r })
}

pub fn corrcoef(run: &mut RunContext, b: &Bound) -> Out {
    let c = match cov(run, b)? {
        Value::Tensor(c) => c,
        _ => bail!(Shape, "corrcoef: no covariance"),
    };
    if c.shape().is_empty() {
        return v(bin(run, BinaryOp::Div, &t(&c), &t(&c))?);
    }
    let d = run.engine.diagonal(&c, 0, 0, 1)?;
    let s = un(run, UnaryOp::Sqrt, &d)?;
    let col = run.engine.unsqueeze(&s, 1)?;
    let row = run.engine.unsqueeze(&s, 0)?;
    let r = bin(run, BinaryOp::Div, &t(&c), &t(&col))?;
    let r = bin(run, BinaryOp::Div, &t(&r), &t(&row))?;
    let r = run.engine.binary(BinaryOp::Max, &t(&r), &f(-1.0))?;
    v(run.engine.binary(BinaryOp::Min, &t(&r), &f(1.0))?)
}

/// `cummax`/`cummin`: the running extreme's index found on the host (the last of equal
/// values, as PyTorch), the values gathered from the input by it.
fn cum_extreme(run: &mut RunContext, b: &Bound, max: bool) -> Out {
    let x = b.tensor("input")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    let shape = x.shape().to_vec();
    let n = if nd == 0 { 1 } else { shape[d] };
    let inner: usize = if nd == 0 { 1 } else { shape[d + 1..].iter().product() };
    let vals = run.engine.values(&x)?;
    let mut idx = vec![0i64; vals.len()];
    let outer = vals.len() / (n * inner).max(1);
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| o * n * inner + k * inner + i;
            let mut best = 0usize;
            for k in 0..n {
                let (v, bv) = (vals.get_f64(at(k)), vals.get_f64(at(best)));
                let better = if bv.is_nan() {
                    false
                } else if v.is_nan() {
                    true
                } else if max {
                    v >= bv
                } else {
                    v <= bv
                };
                if better || k == 0 {
                    best = k;
                }
                idx[at(k)] = best as i64;
            }
        }
    }
    let index = run.engine.from_data(Data::I64(idx), &shape)?;
    let values = if nd == 0 {
        op(run, "clone", vec![Value::Tensor(x.clone())], vec![])?
    } else {
        run.engine.gather(&x, d as i64, &index)?
    };
    Ok(Value::named(b.func(), vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(index))]))
}

pub fn cummax(run: &mut RunContext, b: &Bound) -> Out {
    cum_extreme(run, b, true)
}

pub fn cummin(run: &mut RunContext, b: &Bound) -> Out {
    cum_extreme(run, b, false)
}

pub fn logcumsumexp(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "logcumsumexp")?;
    let nd = x.shape().len();
    let d = wrap_dim(b.int("dim"), nd)?;
    if nd == 0 {
        return v(op(run, "clone", vec![Value::Tensor(x)], vec![])?);
    }
    // log(cumsum(exp(x - m))) + m with m the (finite) maximum along the dim.
    let m = run.engine.reduce(ReduceOp::Max, &x, &[d], KeepDim::Keep)?;
    let fin = bin(run, BinaryOp::CmpEq, &t(&m), &t(&m))?;
    let inf = un(run, UnaryOp::Abs, &m)?;
    let inf = bin(run, BinaryOp::CmpEq, &t(&inf), &f(f64::INFINITY))?;
    let bad = run.engine.logical_not(&fin)?;
    let bad = bin(run, BinaryOp::Or, &t(&bad), &t(&inf))?;
    let m = run.engine.where_(&t(&bad), &f(0.0), &t(&m))?;
    let m = run.engine.cast(&m, x.dtype())?;
    let s = bin(run, BinaryOp::Sub, &t(&x), &t(&m))?;
    let e = un(run, UnaryOp::Exp, &s)?;
    let c = run.engine.cumsum(&e, d as i64, None)?;
    let l = un(run, UnaryOp::Log, &c)?;
    v(bin(run, BinaryOp::Add, &t(&l), &t(&m))?)
}

pub fn isin(run: &mut RunContext, b: &Bound) -> Out {
    let (elements, test) = (b.value("elements"), b.value("test_elements"));
    let as_tensor = |run: &mut RunContext, v: Value| -> Result<Tensor> {
        match v {
            Value::Tensor(t) => Ok(t),
            Value::Scalar(s) => run.engine.full(&[], s, None),
            other => bail!(Type, "isin(): argument must be Tensor or Number, not {}", other.type_name()),
        }
    };
    let e = as_tensor(run, elements)?;
    let tst = as_tensor(run, test)?;
    let td = run.engine.values(&tst)?;
    let set: Vec<f64> = (0..td.len()).map(|i| td.get_f64(i)).collect();
    let ed = run.engine.values(&e)?;
    let invert = b.bool("invert");
    let hits: Vec<bool> = (0..ed.len()).map(|i| set.contains(&ed.get_f64(i)) != invert).collect();
    v(run.engine.from_data(Data::Bool(hits), e.shape())?)
}

fn int_pair(run: &mut RunContext, b: &Bound, name: &str, f: impl Fn(i64, i64) -> i64) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.dtype().is_float() || y.dtype().is_float() {
        bail!(
            DType,
            "\"{name}_cpu\" not implemented for '{}'",
            if x.dtype().is_float() { x.dtype() } else { y.dtype() }.torch_name()
        );
    }
    let shape = crate::tensor::Engine::broadcast_shapes(&[x.shape(), y.shape()])?;
    let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let (xe, ye) = (run.engine.expand(&x, &sizes)?, run.engine.expand(&y, &sizes)?);
    let (dx, dy) = (run.engine.values(&xe)?, run.engine.values(&ye)?);
    let out: Vec<i64> = (0..dx.len()).map(|i| f(dx.get_f64(i) as i64, dy.get_f64(i) as i64)).collect();
    let r = run.engine.from_data(Data::I64(out), &shape)?;
    let ops = [Operand::Tensor(x), Operand::Tensor(y)];
    let dtype = run.engine.promote(&[&ops[0], &ops[1]]);
    v(run.engine.cast(&r, dtype)?)
}

fn gcd_of(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

pub fn gcd(run: &mut RunContext, b: &Bound) -> Out {
    int_pair(run, b, "gcd", gcd_of)
}

pub fn lcm(run: &mut RunContext, b: &Bound) -> Out {
    int_pair(run, b, "lcm", |a, c| {
        let g = gcd_of(a, c);
        if g == 0 {
            0
        } else {
            (a / g).wrapping_mul(c).abs()
        }
    })
}

pub fn bitwise_left_shift(run: &mut RunContext, b: &Bound) -> Out {
    int_pair(run, b, "lshift", |a, s| if (0..64).contains(&s) { a.wrapping_shl(s as u32) } else { 0 })
}

pub fn bitwise_right_shift(run: &mut RunContext, b: &Bound) -> Out {
    int_pair(run, b, "rshift", |a, s| {
        if (0..64).contains(&s) {
            a >> s
        } else if a < 0 {
            -1
        } else {
            0
        }
    })
}

pub fn frexp(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "frexp")?;
    let d = run.engine.values(&x)?;
    let (mut m, mut e) = (Vec::with_capacity(d.len()), Vec::with_capacity(d.len()));
    for i in 0..d.len() {
        let v = d.get_f64(i);
        if v == 0.0 || !v.is_finite() {
            m.push(v);
            e.push(0i32);
            continue;
        }
        let exp = v.abs().log2().floor() as i32 + 1;
        let mut mant = v / 2f64.powi(exp);
        let mut exp = exp;
        if mant.abs() >= 1.0 {
            mant /= 2.0;
            exp += 1;
        } else if mant.abs() < 0.5 {
            mant *= 2.0;
            exp -= 1;
        }
        m.push(mant);
        e.push(exp);
    }
    let mt = run.engine.from_data(Data::F64(m), x.shape())?;
    let mt = run.engine.cast(&mt, x.dtype())?;
    let et = run.engine.from_data(Data::I32(e), x.shape())?;
    Ok(Value::named("frexp", vec![("mantissa", Value::Tensor(mt)), ("exponent", Value::Tensor(et))]))
}

pub fn unravel_index(run: &mut RunContext, b: &Bound) -> Out {
    let idx = b.tensor("indices")?;
    if idx.dtype().is_float() || idx.dtype() == DType::Bool {
        bail!(DType, "expected 'indices' to be integer dtype, but got {}", idx.dtype().torch_name());
    }
    let shape = match b.value("shape") {
        Value::Scalar(Scalar::Int(i)) => vec![i],
        other => other.as_ints("shape")?,
    };
    if shape.iter().any(|&s| s < 0) {
        bail!(Shape, "'shape' cannot have negative values, but got {shape:?}");
    }
    let total: i64 = shape.iter().product();
    let d = run.engine.values(&idx)?;
    let mut cols: Vec<Vec<i64>> = vec![Vec::with_capacity(d.len()); shape.len()];
    for i in 0..d.len() {
        let mut k = d.get_f64(i) as i64;
        if k < -total || k >= total {
            bail!(Index, "index {k} is out of bounds for shape {shape:?}");
        }
        if k < 0 {
            k += total;
        }
        for (j, &s) in shape.iter().enumerate().rev() {
            cols[j].push(k % s.max(1));
            k /= s.max(1);
        }
    }
    // PyTorch's results are the columns of one (..., k) tensor: views sharing its storage.
    let k = shape.len();
    let n = d.len();
    let mut all = vec![0i64; n * k];
    for (j, c) in cols.iter().enumerate() {
        for (i, &x) in c.iter().enumerate() {
            all[i * k + j] = x;
        }
    }
    let mut full_shape = idx.shape().to_vec();
    full_shape.push(k);
    let full = run.engine.from_data(Data::I64(all), &full_shape)?;
    let mut out = Vec::with_capacity(k);
    for j in 0..k {
        out.push(Value::Tensor(run.engine.select(&full, -1, j as i64)?));
    }
    Ok(Value::Tuple(out))
}

/// A factorization's `_ex` form: its result and an `info` of zeros (it raises instead of
/// reporting a failure, which `check_errors=False` would ask to report).
fn with_info(run: &mut RunContext, b: &Bound, r: Value, names: [&'static str; 2]) -> Out {
    let a = b.tensor("A")?;
    let lead: Vec<usize> = a.shape()[..a.shape().len().saturating_sub(2)].to_vec();
    let info = run.engine.full(&lead, Scalar::Int(0), Some(DType::Int32))?;
    Ok(Value::named(b.func(), vec![(names[0], r), (names[1], Value::Tensor(info))]))
}

pub fn inv_ex(run: &mut RunContext, b: &Bound) -> Out {
    let r = super::linalg::inv(run, b)?;
    with_info(run, b, r, ["inverse", "info"])
}

pub fn cholesky_ex(run: &mut RunContext, b: &Bound) -> Out {
    let r = super::linalg::cholesky(run, b)?;
    with_info(run, b, r, ["L", "info"])
}

pub fn solve_ex(run: &mut RunContext, b: &Bound) -> Out {
    let r = super::linalg::solve(run, b)?;
    with_info(run, b, r, ["result", "info"])
}

/// A torch op the library binds, its whole value (a tuple too).
fn op_value(run: &mut RunContext, name: &str, pos: Vec<Value>, kw: Vec<(&str, Value)>) -> Result<Value> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    run.function(name, Args::new(name, pos, kw))
}
