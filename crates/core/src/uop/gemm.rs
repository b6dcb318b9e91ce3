//! The interpreter's fast path for float32 matrix products: a `Sum` reduce over one axis of
//! `a * b`, where `a` and `b` read buffers through plain strided views, one of them constant
//! along the output's rows and the other along its columns, is a batch of SGEMMs (the packed,
//! SIMD kernels of [`crate::sgemm`]) instead of the general loop nest of [`super::fused`]. The
//! products accumulate in float32, as PyTorch's CPU matmul does.

use super::movement::fold_movement;
use super::{BinaryOp, Graph, Op, ReduceOp, UOpId};
use crate::dtype::DType;
use crate::error::Result;
use crate::strided::{row_major_strides, StridedIndex};

/// One operand of the product: the buffer node it reads, its offset and its strides over the
/// product's shape.
pub(crate) struct Operand {
    pub base: UOpId,
    offset: i64,
    strides: Vec<i64>,
}

/// A run of the product's dims that one side of the product varies along, merged into one
/// matrix dim: its length and its stride in that side's operand and in the result.
#[derive(Clone, Copy)]
struct Merged {
    len: usize,
    stride: i64,
    out: i64,
}

/// A float32 matrix product found under a reduce: `c[.., i, .., j, ..] = sum_r a * b`.
pub(crate) struct Gemm {
    pub a: Operand,
    pub b: Operand,
    /// The product's shape and its reduce axis.
    shape: Vec<usize>,
    axis: usize,
    /// The dims only `a` varies along (the rows) and those only `b` does (the columns).
    rows: Option<Merged>,
    cols: Option<Merged>,
    /// The other dims of the result (both or neither side varies along them).
    batch: Vec<usize>,
}

/// `dims` (ascending) as one matrix dim, when they nest in `side`'s strides and the result's
/// as they do in a row-major array; `None` for no dims.
fn merge(dims: &[usize], shape: &[usize], side: &[i64], out: &[i64]) -> Option<Option<Merged>> {
    let Some(&last) = dims.last() else { return Some(None) };
    let nested = dims
        .windows(2)
        .all(|w| side[w[0]] == side[w[1]] * shape[w[1]] as i64 && out[w[0]] == out[w[1]] * shape[w[1]] as i64);
    let len = dims.iter().map(|&d| shape[d]).product();
    nested.then_some(Some(Merged { len, stride: side[last], out: out[last] }))
}

/// `id` as a matrix product, when it is one (see the module docs).
pub(crate) fn find(graph: &Graph, id: UOpId) -> Result<Option<Gemm>> {
    let node = graph.node(id);
    let (Op::Reduce(ReduceOp::Sum, axes), [src]) = (&node.op, node.src.as_slice()) else { return Ok(None) };
    let prod = graph.node(*src);
    let ([axis], Op::Binary(BinaryOp::Mul)) = (axes.as_slice(), &prod.op) else { return Ok(None) };
    if node.dtype != DType::Float32 || prod.dtype != DType::Float32 {
        return Ok(None);
    }
    let operand = |s: UOpId| -> Result<Option<Operand>> {
        let (base, st) = fold_movement(graph, s)?;
        let bnode = graph.node(base);
        if bnode.dtype != DType::Float32 || matches!(bnode.op, Op::Const(_)) {
            return Ok(None);
        }
        let [v] = st.views() else { return Ok(None) };
        if v.mask().is_some() || v.strides().iter().any(|&s| s < 0) || v.offset() < 0 {
            return Ok(None);
        }
        // Every element the view reaches lies in the buffer (SGEMM checks it again).
        let reach: i64 = v.shape().iter().zip(v.strides()).map(|(&n, &s)| (n as i64 - 1).max(0) * s).sum();
        if v.shape().contains(&0) || v.offset() + reach >= bnode.shape.iter().product::<usize>() as i64 {
            return Ok(None);
        }
        Ok(Some(Operand { base, offset: v.offset(), strides: v.strides().to_vec() }))
    };
    let (Some(a), Some(b)) = (operand(prod.src[0])?, operand(prod.src[1])?) else { return Ok(None) };
    let shape = prod.shape.clone();
    let mut out_shape = shape.clone();
    out_shape[*axis] = 1;
    let os = row_major_strides(&out_shape);
    let (mut rows, mut cols, mut batch) = (Vec::new(), Vec::new(), Vec::new());
    for d in (0..shape.len()).filter(|&d| d != *axis && shape[d] > 1) {
        match (a.strides[d] != 0, b.strides[d] != 0) {
            (true, false) => rows.push(d),
            (false, true) => cols.push(d),
            _ => batch.push(d),
        }
    }
    let (Some(rows), Some(cols)) = (merge(&rows, &shape, &a.strides, &os), merge(&cols, &shape, &b.strides, &os))
    else {
        return Ok(None);
    };
    let g = Gemm { a, b, shape, axis: *axis, rows, cols, batch };
    // One SGEMM per batch element writes the result when its columns (or, for b^T a^T, its
    // rows) are contiguous.
    let direct = g.cols.is_none_or(|c| c.out == 1);
    let transposed = g.rows.is_some_and(|r| r.out == 1);
    Ok((direct || transposed).then_some(g))
}

impl Gemm {
    /// The result, row-major over the product's shape with the reduce axis kept as 1.
    pub(crate) fn run(&self, a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut out_shape = self.shape.clone();
        out_shape[self.axis] = 1;
        let os = row_major_strides(&out_shape);
        let one = Merged { len: 1, stride: 0, out: 0 };
        let (rows, cols) = (self.rows.unwrap_or(one), self.cols.unwrap_or(one));
        let (m, n, k) = (rows.len, cols.len, self.shape[self.axis]);
        let (ka, kb) = (self.a.strides[self.axis] as isize, self.b.strides[self.axis] as isize);
        let direct = self.cols.is_none_or(|c| c.out == 1);
        let bshape: Vec<usize> = self.batch.iter().map(|&d| self.shape[d]).collect();
        let pick = |s: &[i64]| self.batch.iter().map(|&d| s[d]).collect::<Vec<_>>();
        let (ba, bb, bc) = (pick(&self.a.strides), pick(&self.b.strides), pick(&os));
        let mut c = vec![0f32; out_shape.iter().product()];
        let walk = |s, off| StridedIndex::new(&bshape, s, off);
        for ((oa, ob), oc) in walk(&ba, self.a.offset).zip(walk(&bb, self.b.offset)).zip(walk(&bc, 0)) {
            let (oa, ob, oc) = (oa as usize, ob as usize, oc as usize);
            if direct {
                // c[m x n] = a[m x k] b[k x n], rows `rows.out` apart.
                let ldc = if self.rows.is_some() { rows.out as usize } else { n };
                let (a, b) = (&a[oa..], &b[ob..]);
                crate::sgemm::sgemm(
                    (m, k, n),
                    1.0,
                    a,
                    (rows.stride as isize, ka),
                    b,
                    (kb, cols.stride as isize),
                    1.0,
                    &mut c[oc..],
                    ldc,
                );
            } else {
                // c^T[n x m] = b^T a^T, its rows `cols.out` apart.
                let ldc = if self.cols.is_some() { cols.out as usize } else { m };
                let (a, b) = (&a[oa..], &b[ob..]);
                crate::sgemm::sgemm(
                    (n, k, m),
                    1.0,
                    b,
                    (cols.stride as isize, kb),
                    a,
                    (ka, rows.stride as isize),
                    1.0,
                    &mut c[oc..],
                    ldc,
                );
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::find;
    use crate::dtype::DType;
    use crate::error::Result;
    use crate::uop::buffer::Data;
    use crate::uop::{BinaryOp, Graph, Op, ReduceOp};

    /// `sum_k a * b` over a product of shape `dims` whose axis 1 is `k`; `a` varies along the
    /// dims `a_dims` and `b` along `b_dims` (both along `k`), row-major in those dims.
    fn product(a_dims: [usize; 2], b_dims: [usize; 2], dims: [usize; 3]) -> Result<(Vec<f64>, Vec<f64>, bool)> {
        let mut g = Graph::new();
        let (na, nb) = (a_dims.iter().map(|&d| dims[d]).product(), b_dims.iter().map(|&d| dims[d]).product());
        let av: Vec<f32> = (0..na).map(|i| (i as f32 * 0.37).sin()).collect();
        let bv: Vec<f32> = (0..nb).map(|i| (i as f32 * 0.11).cos()).collect();
        let operand = |g: &mut Graph, buf: usize, n: usize, own: [usize; 2]| {
            let leaf = g.push(Op::Buffer(buf), DType::Float32, vec![n], vec![]);
            let mut shape = [1usize; 3];
            for d in own {
                shape[d] = dims[d];
            }
            let r = g.push(Op::Reshape(shape.to_vec()), DType::Float32, shape.to_vec(), vec![leaf]);
            g.push(Op::Expand(dims.to_vec()), DType::Float32, dims.to_vec(), vec![r])
        };
        let a = operand(&mut g, 0, na, a_dims);
        let b = operand(&mut g, 1, nb, b_dims);
        let p = g.push(Op::Binary(BinaryOp::Mul), DType::Float32, dims.to_vec(), vec![a, b]);
        let out = vec![dims[0], 1, dims[2]];
        let root = g.push(Op::Reduce(ReduceOp::Sum, vec![1]), DType::Float32, out, vec![p]);
        let found = find(&g, root)?.is_some();
        let got = crate::uop::interp::realize(&g, &vec![Data::F32(av.clone()), Data::F32(bv.clone())], root)?;
        // The definition, in f64: a and b indexed row-major in their own dims.
        let at = |v: &[f32], own: [usize; 2], c: [usize; 3]| f64::from(v[c[own[0]] * dims[own[1]] + c[own[1]]]);
        let mut want = Vec::new();
        for i in 0..dims[0] {
            for j in 0..dims[2] {
                want.push((0..dims[1]).map(|k| at(&av, a_dims, [i, k, j]) * at(&bv, b_dims, [i, k, j])).sum());
            }
        }
        Ok((got.to_f64_vec(), want, found))
    }

    #[test]
    fn products_in_either_output_layout_match_the_definition() -> Result<()> {
        // a over (m, k), b over (k, n): columns contiguous. a over (k, m) last, b over (n, k)
        // first: rows contiguous, computed as b^T a^T.
        for (a_dims, b_dims) in [([0, 1], [1, 2]), ([1, 2], [0, 1])] {
            let (got, want, found) = product(a_dims, b_dims, [5, 7, 3])?;
            assert!(found, "{a_dims:?} x {b_dims:?} is a matrix product");
            for (x, y) in got.iter().zip(&want) {
                assert!((x - y).abs() <= 1e-5, "{a_dims:?} x {b_dims:?}: {got:?} != {want:?}");
            }
        }
        Ok(())
    }
}
