//! Declared `torch.linalg` ops: the factorizing ones over the engine's host factorizations
//! (`det`, `slogdet`, `logdet`, `inv`, `solve`, `cholesky`; no autograd history), and the ones
//! PyTorch composes from others (`matrix_norm`, `vecdot`, `multi_dot`, `matrix_power`,
//! `cross`, `kron`), which keep theirs.

use super::util::*;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::Tensor;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

pub fn det(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    v(run.engine.det(&a)?)
}

pub fn slogdet(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    let (s, l) = run.engine.slogdet(&a)?;
    Ok(Value::named(b.func(), vec![("sign", Value::Tensor(s)), ("logabsdet", Value::Tensor(l))]))
}

pub fn logdet(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    let (s, l) = run.engine.slogdet(&a)?;
    // log(det): NaN for a negative determinant, -inf for a zero one.
    let neg = run.engine.binary(BinaryOp::CmpLt, &t(&s), &f(0.0))?;
    v(run.engine.where_(&t(&neg), &f(f64::NAN), &t(&l))?)
}

pub fn inv(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    v(run.engine.solve(&a, None, "linalg.inv")?)
}

pub fn solve(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    let rhs = b.tensor("B")?;
    if !b.bool("left") {
        bail!(Unsupported, "linalg.solve(left=False) is not supported");
    }
    v(run.engine.solve(&a, Some(&rhs), "linalg.solve")?)
}

pub fn cholesky(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    v(run.engine.cholesky(&a, b.bool("upper"))?)
}

pub fn matrix_norm(run: &mut RunContext, b: &Bound) -> Out {
    let mut a = b.tensor("A")?;
    float_only(&a, "linalg.matrix_norm")?;
    if let Some(d) = b.dtype("dtype") {
        a = run.engine.cast(&a, d)?;
    }
    let nd = a.shape().len();
    if nd < 2 {
        bail!(Shape, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
    }
    let dims = b.ints("dim").unwrap_or_else(|| vec![-2, -1]);
    if dims.len() != 2 {
        bail!(Shape, "linalg.matrix_norm: dim must be a 2-tuple. Got {dims:?}");
    }
    let (r, c) = (wrap_dim(dims[0], nd)?, wrap_dim(dims[1], nd)?);
    let keep = KeepDim::from(b.bool("keepdim"));
    let y = match b.value("ord") {
        Value::Str(s) if s == "fro" => run.engine.vector_norm(&a, 2.0, &[r, c], keep)?,
        Value::Str(s) => bail!(Unsupported, "linalg.matrix_norm(ord='{s}') is not supported"),
        Value::Scalar(s) => {
            let o = s.as_f64();
            // 1 / -1: the largest / smallest column sum of |A|; inf / -inf: of the row sums.
            let (sum_dim, pick_dim) = match o.abs() {
                1.0 => (r, c),
                x if x.is_infinite() => (c, r),
                _ => bail!(Unsupported, "linalg.matrix_norm(ord={o}) is not supported"),
            };
            let ab = run.engine.unary(UnaryOp::Abs, &a)?;
            let s = run.engine.reduce(ReduceOp::Sum, &ab, &[sum_dim], KeepDim::Keep)?;
            let op = if o > 0.0 { ReduceOp::Max } else { ReduceOp::Min };
            let m = run.engine.reduce(op, &s, &[pick_dim], KeepDim::Keep)?;
            if keep == KeepDim::Keep {
                m
            } else {
                let (hi, lo) = (r.max(c) as i64, r.min(c) as i64);
                let m = run.engine.squeeze(&m, Some(&[hi]))?;
                run.engine.squeeze(&m, Some(&[lo]))?
            }
        }
        other => bail!(Type, "linalg.matrix_norm(): argument 'ord' must be str or Number, not {}", other.type_name()),
    };
    v(y)
}

pub fn vecdot(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("x")?;
    let y = b.tensor("y")?;
    let p = run.engine.binary(BinaryOp::Mul, &t(&x), &t(&y))?;
    let d = wrap_dim(b.int("dim"), p.shape().len())?;
    v(run.engine.reduce(ReduceOp::Sum, &p, &[d], KeepDim::Drop)?)
}

pub fn multi_dot(run: &mut RunContext, b: &Bound) -> Out {
    let ts = b.tensors("tensors");
    if ts.len() < 2 {
        bail!(Shape, "multi_dot(): expected at least 2 tensors but got {}", ts.len());
    }
    let mut acc = ts[0].clone();
    for x in &ts[1..] {
        acc = run.engine.matmul(&acc, x)?;
    }
    v(acc)
}

pub fn matrix_power(run: &mut RunContext, b: &Bound) -> Out {
    let a = b.tensor("A")?;
    let n = b.int("n");
    let s = a.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        bail!(Shape, "linalg.matrix_power: A must be batches of square matrices, but they are {s:?}");
    }
    let base = if n < 0 { run.engine.solve(&a, None, "linalg.matrix_power")? } else { a.clone() };
    if n == 0 {
        let k = s[s.len() - 1] as i64;
        let eye = run.engine.eye(k, None, Some(a.dtype()))?;
        let shape: Vec<i64> = s.iter().map(|&d| d as i64).collect();
        let e = run.engine.expand(&eye, &shape)?;
        // PyTorch copies the identity into a new tensor (`copy_`): version 1.
        let e = op(run, "clone", vec![Value::Tensor(e)], vec![])?;
        return v(bumped(run, e, 1)?);
    }
    let mut acc = base.clone();
    for _ in 1..n.unsigned_abs() {
        acc = run.engine.matmul(&acc, &base)?;
    }
    if n == 1 || n == -1 {
        acc = op(run, "clone", vec![Value::Tensor(acc)], vec![])?;
    }
    v(acc)
}

fn cross_dim(b: &Bound, x: &Tensor, linalg: bool) -> Result<usize> {
    let nd = x.shape().len();
    match b.opt_int("dim") {
        Some(d) => wrap_dim(d, nd),
        None if linalg => wrap_dim(-1, nd),
        None => x
            .shape()
            .iter()
            .position(|&n| n == 3)
            .ok_or_else(|| crate::error::Error::Shape("no dimension of size 3 in input".into())),
    }
}

fn cross_with(run: &mut RunContext, b: &Bound, linalg: bool) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    let shape = crate::tensor::Engine::broadcast_shapes(&[x.shape(), y.shape()])?;
    let d = cross_dim(b, &x, linalg)?;
    if shape.get(d) != Some(&3) {
        bail!(
            Shape,
            "linalg.cross: inputs dimension {d} must have length 3. Got {} and {}",
            x.shape().get(d).copied().unwrap_or(0),
            y.shape().get(d).copied().unwrap_or(0)
        );
    }
    let s: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let xe = run.engine.expand(&x, &s)?;
    let ye = run.engine.expand(&y, &s)?;
    let comp = |run: &mut RunContext, a: &Tensor, i: i64| run.engine.narrow(a, d as i64, i, 1);
    let mut parts = Vec::with_capacity(3);
    for (i, j) in [(1, 2), (2, 0), (0, 1)] {
        let (xi, yj) = (comp(run, &xe, i)?, comp(run, &ye, j)?);
        let (xj, yi) = (comp(run, &xe, j)?, comp(run, &ye, i)?);
        let p = run.engine.binary(BinaryOp::Mul, &t(&xi), &t(&yj))?;
        let q = run.engine.binary(BinaryOp::Mul, &t(&xj), &t(&yi))?;
        parts.push(run.engine.binary(BinaryOp::Sub, &t(&p), &t(&q))?);
    }
    v(run.engine.cat(&parts, d as i64)?)
}

pub fn cross(run: &mut RunContext, b: &Bound) -> Out {
    cross_with(run, b, false)
}

pub fn linalg_cross(run: &mut RunContext, b: &Bound) -> Out {
    cross_with(run, b, true)
}

pub fn kron(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    let nd = x.shape().len().max(y.shape().len());
    let pad = |s: &[usize]| -> Vec<i64> {
        let mut v = vec![1i64; nd - s.len()];
        v.extend(s.iter().map(|&n| n as i64));
        v
    };
    let (xs, ys) = (pad(x.shape()), pad(y.shape()));
    // x[i0, 1, i1, 1, ...] * y[1, j0, 1, j1, ...], then merged pairwise.
    let mut xi = Vec::with_capacity(2 * nd);
    let mut yi = Vec::with_capacity(2 * nd);
    for k in 0..nd {
        xi.extend([xs[k], 1]);
        yi.extend([1, ys[k]]);
    }
    let xr = run.engine.reshape(&x, &xi)?;
    let yr = run.engine.reshape(&y, &yi)?;
    let p = run.engine.binary(BinaryOp::Mul, &t(&xr), &t(&yr))?;
    let out: Vec<i64> = (0..nd).map(|k| xs[k] * ys[k]).collect();
    v(run.engine.reshape(&p, &out)?)
}
