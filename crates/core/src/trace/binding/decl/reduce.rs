//! Declared reductions and comparisons (`count_nonzero`, `nansum`, `diff`, `allclose`, ...) and
//! the products (`outer`, `addmm`, `baddbmm`, `dist`, ...).

use super::pointwise::nan_mask;
use super::util::*;
use crate::dtype::DType;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::strided::wrap_dim;
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::Scalar;
use crate::uop::ReduceOp;
use crate::uop::{BinaryOp, UnaryOp};

// --------------------------------------------------------------------------- reductions

/// The dims a reduction's `dim` argument names (all when None).
fn axes(b: &Bound, x: &Tensor, name: &str) -> Result<Vec<usize>> {
    let nd = x.shape().len();
    match b.ints(name) {
        None => Ok((0..nd).collect()),
        Some(ds) => {
            let mut out = Vec::new();
            for d in ds {
                let a = wrap_dim(d, nd)?;
                if out.contains(&a) {
                    bail!(Index, "dim {a} appears multiple times in the list of dims");
                }
                if nd > 0 {
                    out.push(a);
                }
            }
            Ok(out)
        }
    }
}

fn dims_value(ax: &[usize]) -> Value {
    Value::Tuple(ax.iter().map(|&d| int(d as i64)).collect())
}

pub fn count_nonzero(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let ax = axes(b, &x, "dim")?;
    let nz = bin(run, BinaryOp::CmpNe, &t(&x), &Operand::Scalar(Scalar::Int(0)))?;
    let nz = run.engine.cast(&nz, DType::Int64)?;
    v(run.engine.reduce(ReduceOp::Sum, &nz, &ax, KeepDim::Drop)?)
}

fn zero_nans(run: &mut RunContext, x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Ok(x.clone());
    }
    let n = nan_mask(run, x)?;
    let r = run.engine.where_(&t(&n), &f(0.0), &t(x))?;
    run.engine.cast(&r, x.dtype())
}

pub fn nansum(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let ax = axes(b, &x, "dim")?;
    let z = zero_nans(run, &x)?;
    let mut kw = vec![("keepdim", Value::Scalar(Scalar::Bool(b.bool("keepdim"))))];
    if let Some(d) = b.dtype("dtype") {
        kw.push(("dtype", Value::DType(d)));
    }
    v(op(run, "sum", vec![tv(&z), dims_value(&ax)], kw)?)
}

pub fn nanmean(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    float_only(&x, "nanmean")?;
    let ax = axes(b, &x, "dim")?;
    let keep = Value::Scalar(Scalar::Bool(b.bool("keepdim")));
    let z = zero_nans(run, &x)?;
    let s = op(run, "sum", vec![tv(&z), dims_value(&ax)], vec![("keepdim", keep.clone())])?;
    let n = nan_mask(run, &x)?;
    let ok = run.engine.logical_not(&n)?;
    let c = op(run, "sum", vec![tv(&ok), dims_value(&ax)], vec![("keepdim", keep)])?;
    v(bin(run, BinaryOp::Div, &t(&s), &t(&c))?)
}

pub fn diff(run: &mut RunContext, b: &Bound) -> Out {
    let mut x = b.tensor("input")?;
    let n = b.int("n");
    let nd = x.shape().len();
    if nd == 0 {
        bail!(Shape, "diff expects input to be at least one-dimensional");
    }
    if n < 0 {
        bail!(Shape, "order must be non-negative but got {n}");
    }
    let d = wrap_dim(b.int("dim"), nd)? as i64;
    let mut parts = Vec::new();
    if let Some(p) = b.opt_tensor("prepend") {
        parts.push(p);
    }
    parts.push(x.clone());
    if let Some(a) = b.opt_tensor("append") {
        parts.push(a);
    }
    if parts.len() > 1 {
        x = run.engine.cat(&parts, d)?;
    }
    if n == 0 {
        // PyTorch copies the input into a new tensor (`copy_`): version 1.
        let c = op(run, "clone", vec![tv(&x)], vec![])?;
        return v(bumped(run, c, 1)?);
    }
    for _ in 0..n {
        let len = x.shape()[d as usize] as i64;
        if len == 0 {
            break;
        }
        let hi = run.engine.narrow(&x, d, 1, len - 1)?;
        let lo = run.engine.narrow(&x, d, 0, len - 1)?;
        x = if x.dtype() == DType::Bool {
            bin(run, BinaryOp::Xor, &t(&hi), &t(&lo))?
        } else {
            bin(run, BinaryOp::Sub, &t(&hi), &t(&lo))?
        };
    }
    v(x)
}

pub fn trace(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    if x.shape().len() != 2 {
        bail!(Shape, "trace: expected a matrix, but got tensor with dim {}", x.shape().len());
    }
    let d = run.engine.diagonal(&x, 0, 0, 1)?;
    v(op(run, "sum", vec![tv(&d)], vec![])?)
}

fn close_mask(run: &mut RunContext, b: &Bound) -> Result<Tensor> {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.dtype() != y.dtype() {
        bail!(
            DType,
            "{}(): argument 'other' (position 2) must have the same dtype as 'input' ({} != {})",
            b.func(),
            y.dtype().torch_name(),
            x.dtype().torch_name()
        );
    }
    let (rtol, atol) = (b.float("rtol"), b.float("atol"));
    if rtol < 0.0 || atol < 0.0 {
        bail!(Shape, "{}(): rtol and atol must be non-negative", b.func());
    }
    let eq = bin(run, BinaryOp::CmpEq, &t(&x), &t(&y))?;
    if !x.dtype().is_float() && rtol == 0.0 && atol == 0.0 {
        return Ok(eq);
    }
    let (xf, yf) = (floated(run, &x)?, floated(run, &y)?);
    let d = bin(run, BinaryOp::Sub, &t(&xf), &t(&yf))?;
    let d = un(run, UnaryOp::Abs, &d)?;
    let ay = un(run, UnaryOp::Abs, &yf)?;
    let tol = bin(run, BinaryOp::Mul, &t(&ay), &f(rtol))?;
    let tol = bin(run, BinaryOp::Add, &t(&tol), &f(atol))?;
    let near = bin(run, BinaryOp::CmpLe, &t(&d), &t(&tol))?;
    let mut ok = bin(run, BinaryOp::Or, &t(&eq), &t(&near))?;
    if b.bool("equal_nan") {
        let nx = nan_mask(run, &xf)?;
        let ny = nan_mask(run, &yf)?;
        let both = bin(run, BinaryOp::And, &t(&nx), &t(&ny))?;
        ok = bin(run, BinaryOp::Or, &t(&ok), &t(&both))?;
    }
    Ok(ok)
}

pub fn isclose(run: &mut RunContext, b: &Bound) -> Out {
    let m = close_mask(run, b)?;
    // PyTorch ORs the tolerance test (and equal_nan's) into `close` in place.
    let x = b.tensor("input")?;
    let tolerant = x.dtype().is_float() || b.float("rtol") != 0.0 || b.float("atol") != 0.0;
    let n = usize::from(tolerant) + usize::from(b.bool("equal_nan") && x.dtype().is_float());
    v(bumped(run, m, n)?)
}

fn all_true(run: &mut RunContext, m: &Tensor) -> Result<bool> {
    let d = run.engine.values(m)?;
    Ok((0..d.len()).all(|i| d.get_f64(i) != 0.0))
}

pub fn allclose(run: &mut RunContext, b: &Bound) -> Out {
    let m = close_mask(run, b)?;
    Ok(Value::Scalar(Scalar::Bool(all_true(run, &m)?)))
}

pub fn equal(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.shape() != y.shape() {
        return Ok(Value::Scalar(Scalar::Bool(false)));
    }
    let m = bin(run, BinaryOp::CmpEq, &t(&x), &t(&y))?;
    Ok(Value::Scalar(Scalar::Bool(all_true(run, &m)?)))
}

// ------------------------------------------------------------------------------ products

fn vector(x: &Tensor, what: &str, name: &str) -> Result<()> {
    if x.shape().len() != 1 {
        bail!(Shape, "{name}: Expected 1-D argument {what}, but got {}-D", x.shape().len());
    }
    Ok(())
}

pub fn outer(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("vec2")?;
    vector(&x, "self", "outer")?;
    vector(&y, "vec2", "outer")?;
    let col = run.engine.reshape(&x, &[x.numel() as i64, 1])?;
    v(bin(run, BinaryOp::Mul, &t(&col), &t(&y))?)
}

pub fn inner(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    if x.shape().is_empty() || y.shape().is_empty() {
        return v(bin(run, BinaryOp::Mul, &t(&x), &t(&y))?);
    }
    if x.shape().len() == 1 && y.shape().len() == 1 {
        return v(op(run, "dot", vec![tv(&x), tv(&y)], vec![])?);
    }
    let (xn, yn) = (x.shape()[x.shape().len() - 1], y.shape()[y.shape().len() - 1]);
    if xn != yn {
        bail!(
            Shape,
            "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
            x.shape(),
            y.shape()
        );
    }
    // tensordot over the last dims: x @ y^T with y's leading dims flattened.
    let yl = run.engine.reshape(&y, &[-1, yn as i64])?;
    let yt = run.engine.transpose(&yl, 0, 1)?;
    let r = run.engine.matmul(&x, &yt)?;
    let mut shape: Vec<i64> = x.shape()[..x.shape().len() - 1].iter().map(|&n| n as i64).collect();
    shape.extend(y.shape()[..y.shape().len() - 1].iter().map(|&n| n as i64));
    v(run.engine.reshape(&r, &shape)?)
}

/// `beta * input + alpha * product`, with PyTorch's rule that beta == 0 ignores the input
/// (NaNs included).
fn add_scaled(run: &mut RunContext, b: &Bound, product: Tensor) -> Out {
    let input = b.tensor("input")?;
    let mut beta = b.scalar("beta").unwrap_or(Scalar::Int(1));
    let mut alpha = b.scalar("alpha").unwrap_or(Scalar::Int(1));
    if !product.dtype().is_float() && !input.dtype().is_float() {
        // An integer op reads its scalars as integers (PyTorch's Scalar::to<int64_t>).
        beta = Scalar::Int(beta.as_f64() as i64);
        alpha = Scalar::Int(alpha.as_f64() as i64);
    }
    let p =
        if alpha.as_f64() == 1.0 { product } else { bin(run, BinaryOp::Mul, &t(&product), &Operand::Scalar(alpha))? };
    if beta.as_f64() == 0.0 {
        let shape: Vec<i64> = p.shape().iter().map(|&n| n as i64).collect();
        let _ = run.engine.expand(&input, &shape)?;
        return v(p);
    }
    let i = if beta.as_f64() == 1.0 { input } else { bin(run, BinaryOp::Mul, &t(&input), &Operand::Scalar(beta))? };
    let r = bin(run, BinaryOp::Add, &t(&i), &t(&p))?;
    if r.shape() != p.shape() {
        bail!(
            Shape,
            "The expanded size of the tensor must match the existing size: {:?} vs {:?}",
            r.shape(),
            p.shape()
        );
    }
    v(r)
}

fn checked_rank(x: &Tensor, rank: usize, name: &str, what: &str) -> Result<()> {
    let r = x.shape().len();
    if rank == 3 && r < 3 {
        // PyTorch reads the batches' third size before checking their rank.
        bail!(
            Index,
            "Dimension out of range (expected to be in range of [-{0}, {1}], but got 2)",
            r.max(1),
            r.max(1) - 1
        );
    }
    if r != rank {
        bail!(Shape, "{what} must be a {rank}D tensor ({name})");
    }
    Ok(())
}

pub fn addmm(run: &mut RunContext, b: &Bound) -> Out {
    let (m1, m2) = (b.tensor("mat1")?, b.tensor("mat2")?);
    checked_rank(&m1, 2, "addmm", "mat1")?;
    checked_rank(&m2, 2, "addmm", "mat2")?;
    let p = run.engine.matmul(&m1, &m2)?;
    add_scaled(run, b, p)
}

pub fn addmv(run: &mut RunContext, b: &Bound) -> Out {
    let (m, x) = (b.tensor("mat")?, b.tensor("vec")?);
    checked_rank(&m, 2, "addmv", "mat")?;
    checked_rank(&x, 1, "addmv", "vec")?;
    let p = run.engine.matmul(&m, &x)?;
    add_scaled(run, b, p)
}

pub fn baddbmm(run: &mut RunContext, b: &Bound) -> Out {
    let (b1, b2) = (b.tensor("batch1")?, b.tensor("batch2")?);
    checked_rank(&b1, 3, "baddbmm", "batch1")?;
    checked_rank(&b2, 3, "baddbmm", "batch2")?;
    let p = run.engine.matmul(&b1, &b2)?;
    add_scaled(run, b, p)
}

pub fn addbmm(run: &mut RunContext, b: &Bound) -> Out {
    let (b1, b2) = (b.tensor("batch1")?, b.tensor("batch2")?);
    checked_rank(&b1, 3, "addbmm", "batch1")?;
    checked_rank(&b2, 3, "addbmm", "batch2")?;
    let p = run.engine.matmul(&b1, &b2)?;
    let p = run.engine.reduce(ReduceOp::Sum, &p, &[0], KeepDim::Drop)?;
    add_scaled(run, b, p)
}

pub fn addr(run: &mut RunContext, b: &Bound) -> Out {
    let (x, y) = (b.tensor("vec1")?, b.tensor("vec2")?);
    vector(&x, "vec1", "addr")?;
    vector(&y, "vec2", "addr")?;
    let col = run.engine.reshape(&x, &[x.numel() as i64, 1])?;
    let p = bin(run, BinaryOp::Mul, &t(&col), &t(&y))?;
    add_scaled(run, b, p)
}

pub fn dist(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    float_only(&x, "dist")?;
    let d = bin(run, BinaryOp::Sub, &t(&x), &t(&y))?;
    let all: Vec<usize> = (0..d.shape().len()).collect();
    v(run.engine.vector_norm(&d, b.float("p"), &all, KeepDim::Drop)?)
}

pub fn vdot(run: &mut RunContext, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let y = b.tensor("other")?;
    v(op(run, "dot", vec![tv(&x), tv(&y)], vec![])?)
}
