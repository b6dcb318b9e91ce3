//! Declared ops that stack, grid and index (`hstack`, `meshgrid`, `triu_indices`, `einsum`).

use super::util::*;
use crate::dtype::DType;
use crate::error::bail;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::Data;

// ------------------------------------------------------------------------ stacking, grids

fn stack_like(run: &mut RunContext, b: &Bound, rank: usize, dim: i64) -> Out {
    let items = b.tensors("tensors");
    if items.is_empty() {
        bail!(Shape, "{}(): expected a non-empty list of Tensors", b.func());
    }
    let mut parts = Vec::with_capacity(items.len());
    for x in &items {
        parts.push(run.engine.atleast(x, rank)?);
    }
    // hstack of 1-D tensors joins along dim 0.
    let dim = if rank == 1 && parts[0].shape().len() == 1 { 0 } else { dim };
    v(run.engine.cat(&parts, dim)?)
}

pub fn hstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 1, 1)
}

pub fn vstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 2, 0)
}

pub fn dstack(run: &mut RunContext, b: &Bound) -> Out {
    stack_like(run, b, 3, 2)
}

pub fn column_stack(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    if items.is_empty() {
        bail!(Shape, "column_stack(): expected a non-empty list of Tensors");
    }
    let mut parts = Vec::with_capacity(items.len());
    for x in &items {
        parts.push(if x.shape().len() <= 1 { run.engine.reshape(x, &[x.numel() as i64, 1])? } else { x.clone() });
    }
    v(run.engine.cat(&parts, 1)?)
}

pub fn meshgrid(run: &mut RunContext, b: &Bound) -> Out {
    let items = b.tensors("tensors");
    let xy = match b.str("indexing").as_deref() {
        None | Some("ij") => false,
        Some("xy") => true,
        Some(other) => bail!(Value, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {other}"),
    };
    if items.iter().any(|x| x.shape().len() > 1) {
        bail!(Shape, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list");
    }
    let mut sizes: Vec<i64> = items.iter().map(|x| x.numel() as i64).collect();
    if xy && sizes.len() >= 2 {
        sizes.swap(0, 1);
    }
    let k = items.len();
    let mut out = Vec::with_capacity(k);
    for (i, x) in items.iter().enumerate() {
        let pos = if xy && k >= 2 && i < 2 { 1 - i } else { i };
        let mut shape = vec![1i64; k];
        shape[pos] = sizes[pos];
        let r = run.engine.view(x, &shape)?;
        out.push(Value::Tensor(run.engine.expand(&r, &sizes)?));
    }
    Ok(Value::Tuple(out))
}

fn tri_indices(run: &mut RunContext, b: &Bound, lower: bool) -> Out {
    let (rows, cols, offset) = (b.int("row"), b.int("col"), b.int("offset"));
    if rows < 0 || cols < 0 {
        bail!(Shape, "row must be non-negative, got {rows}");
    }
    let dtype = b.dtype("dtype").unwrap_or(DType::Int64);
    let (mut r, mut c) = (Vec::new(), Vec::new());
    for i in 0..rows {
        for j in 0..cols {
            if (lower && j - i <= offset) || (!lower && j - i >= offset) {
                r.push(i);
                c.push(j);
            }
        }
    }
    let n = r.len();
    crate::limits::check_numel(&[2, n])?;
    r.extend(c);
    let x = run.engine.from_data(Data::I64(r), &[2, n])?;
    v(run.engine.cast(&x, dtype)?)
}

pub fn tril_indices(run: &mut RunContext, b: &Bound) -> Out {
    tri_indices(run, b, true)
}

pub fn triu_indices(run: &mut RunContext, b: &Bound) -> Out {
    tri_indices(run, b, false)
}
