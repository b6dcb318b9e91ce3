//! Reductions evaluated without materialising their source.
//!
//! A matmul or a convolution is a sum over a broadcast product of views: materialised first,
//! the product of a 1024^3 matmul alone is 2^30 elements. Here a Reduce of an elementwise tree
//! of views runs as one loop nest over the source's shape instead: the outer dims are walked by
//! an [`Odometer`] that keeps each leaf's offset up to date, and the innermost dim is read as a
//! strided row from every leaf (masked positions read as zero), evaluated with the
//! interpreter's own elementwise ops and folded into the outputs. Nothing larger than one row
//! and the outputs is ever held.
//!
//! Each output accumulates its reduce elements in a fixed order (row-major over the reduce axes;
//! a run along the innermost one in eight f64 lanes, as the dense sum does), always in f64, so
//! results are deterministic and match the dense definition up to the rounding of f64 partial
//! sums.

use super::alu;
use super::arith::Arith;
use super::buffer::{with_data, with_dtype, Data, Elem};
use super::{BinaryOp, ReduceOp, UnaryOp};
use crate::dtype::DType;
use crate::shape::view::View;
use crate::strided::{row_major_strides, Odometer};

/// The elementwise part of a reduce's source; leaves index the leaf table.
pub(crate) enum Tree {
    Leaf(usize),
    Unary(UnaryOp, Box<Tree>),
    Binary(BinaryOp, Box<Tree>, Box<Tree>),
    Where(Box<Tree>, Box<Tree>, Box<Tree>),
    Cast(DType, Box<Tree>),
}

/// A half-open range of valid indices along one dim.
type Range = (usize, usize);

/// One operand of the loop nest: offsets per outer dim and along the inner dim, and the
/// region that reads memory (the rest reads as zero).
struct Stream {
    outer: Vec<i64>,
    inner: i64,
    offset: i64,
    /// Per outer dim, then for the inner dim: half-open valid ranges.
    mask: Option<(Vec<Range>, Range)>,
}

/// One dim of a reduce's source: its size, whether it is reduced, and per stream (each leaf,
/// then the accumulator) its stride and valid range.
struct Dim {
    size: usize,
    reduce: bool,
    streams: Vec<(i64, Range)>,
}

/// Merges neighbouring dims that every stream walks as one (same kind, strides that chain, no
/// mask): fewer, longer rows, and the same row-major order of elements.
fn coalesce(dims: Vec<Dim>) -> Vec<Dim> {
    let mut out: Vec<Dim> = Vec::with_capacity(dims.len());
    for d in dims {
        if let Some(prev) = out.last_mut() {
            let chains = prev.reduce == d.reduce
                && prev.streams.iter().zip(&d.streams).all(|(&(ps, pr), &(ds, dr))| {
                    ps == ds * d.size as i64 && pr == (0, prev.size) && dr == (0, d.size)
                });
            if chains {
                prev.size *= d.size;
                prev.streams = d.streams.iter().map(|&(st, _)| (st, (0, prev.size))).collect();
                continue;
            }
        }
        out.push(d);
    }
    out
}

/// The loop nest over a reduce's source shape: outer dims (kept dims, then reduce axes) and
/// one inner dim, with one stream per leaf plus the accumulator as the last stream.
struct Nest {
    outer: Vec<usize>,
    inner: usize,
    streams: Vec<Stream>,
}

impl Nest {
    fn new(shape: &[usize], axes: &[usize], leaves: &[(&Data, View)]) -> Nest {
        let out_shape: Vec<usize> =
            shape.iter().enumerate().map(|(d, &n)| if axes.contains(&d) { 1 } else { n }).collect();
        let out_strides = row_major_strides(&out_shape);
        // One record per source dim; a source of one element still gets one dim of size 1.
        let mut dims: Vec<Dim> = (0..shape.len())
            .map(|d| {
                let reduce = axes.contains(&d);
                let mut streams: Vec<(i64, Range)> =
                    leaves.iter().map(|(_, v)| (v.strides()[d], v.mask().map_or((0, shape[d]), |m| m[d]))).collect();
                streams.push((if reduce { 0 } else { out_strides[d] }, (0, shape[d])));
                Dim { size: shape[d], reduce, streams }
            })
            // A size-1 dim that every stream reads whole is no loop at all.
            .filter(|d: &Dim| d.size != 1 || d.streams.iter().any(|&(_, r)| r != (0, 1)))
            .collect();
        if dims.is_empty() {
            dims.push(Dim { size: 1, reduce: false, streams: vec![(0, (0, 1)); leaves.len() + 1] });
        }
        let dims = coalesce(dims);
        let kept: Vec<usize> = (0..dims.len()).filter(|&d| !dims[d].reduce).collect();
        let reduced: Vec<usize> = (0..dims.len()).filter(|&d| dims[d].reduce).collect();
        // The innermost loop runs along the last kept dim of size > 1 (a row of outputs: the
        // i-k-j order of a matmul) or along the last reduce axis (a dot product per output),
        // whichever is long and reads more leaves with unit or zero stride: memory order.
        let unit = |d: usize| dims[d].streams[..leaves.len()].iter().filter(|(st, _)| st.abs() <= 1).count();
        let key = |d: usize| (dims[d].size >= 8, unit(d), dims[d].size);
        let row = kept.iter().rev().find(|&&d| dims[d].size > 1).copied();
        let inner = match (row, reduced.last().copied()) {
            (Some(r), Some(a)) => {
                if key(a) > key(r) {
                    a
                } else {
                    r
                }
            }
            (r, a) => r.or(a).or(kept.last().copied()).unwrap_or(0),
        };
        let order: Vec<usize> = kept.iter().chain(&reduced).copied().filter(|&d| d != inner).collect();
        let streams = (0..=leaves.len())
            .map(|s| {
                let full = order.iter().chain([&inner]).all(|&d| dims[d].streams[s].1 == (0, dims[d].size));
                Stream {
                    outer: order.iter().map(|&d| dims[d].streams[s].0).collect(),
                    inner: dims[inner].streams[s].0,
                    offset: if s < leaves.len() { leaves[s].1.offset() } else { 0 },
                    mask: (!full)
                        .then(|| (order.iter().map(|&d| dims[d].streams[s].1).collect(), dims[inner].streams[s].1)),
                }
            })
            .collect();
        Nest { outer: order.iter().map(|&d| dims[d].size).collect(), inner: dims[inner].size, streams }
    }

    /// Calls `f(index of the outer dims, offset of each stream)` for every row, row-major.
    fn for_each_row(&self, mut f: impl FnMut(&[usize], &[i64])) {
        let mut rows = Odometer::new(&self.outer);
        let mut base: Vec<i64> = self.streams.iter().map(|s| s.offset).collect();
        let strides: Vec<&[i64]> = self.streams.iter().map(|s| s.outer.as_slice()).collect();
        loop {
            f(rows.index(), &base);
            if !rows.step(&mut base, &strides) {
                return;
            }
        }
    }

    /// The part of the current row that stream `s` reads from memory.
    fn valid(&self, s: usize, idx: &[usize]) -> (usize, usize) {
        match &self.streams[s].mask {
            None => (0, self.inner),
            Some((outer, inner)) => {
                if idx.iter().zip(outer).all(|(&i, &(b, e))| b <= i && i < e) {
                    *inner
                } else {
                    (0, 0)
                }
            }
        }
    }

    /// Leaf `l`'s values along the current row.
    fn row(&self, leaf: &Data, l: usize, idx: &[usize], base: i64) -> Data {
        let (b, e) = self.valid(l, idx);
        let st = self.streams[l].inner;
        with_data!(leaf, |v: T| {
            let mut out = vec![T::default(); self.inner];
            let start = base + b as i64 * st;
            match st {
                // Outside the valid range the offset means nothing: read only inside it.
                _ if b >= e => {}
                1 => out[b..e].copy_from_slice(&v[start as usize..start as usize + (e - b)]),
                0 => out[b..e].fill(v[start as usize]),
                _ => {
                    for (j, o) in out[b..e].iter_mut().enumerate() {
                        *o = v[(start + j as i64 * st) as usize];
                    }
                }
            }
            T::wrap(out)
        })
    }

    /// The row read in place when the tree is one leaf whose row is a contiguous, unmasked
    /// run of memory (a plain reduction of a buffer): no copy at all.
    fn in_place<'d, T: Elem>(
        &self,
        t: &Tree,
        leaves: &[(&'d Data, View)],
        idx: &[usize],
        base: &[i64],
    ) -> Option<&'d [T]> {
        let Tree::Leaf(l) = t else { return None };
        let v = T::vec(leaves[*l].0)?;
        let start = base[*l] as usize;
        (self.streams[*l].inner == 1 && self.valid(*l, idx) == (0, self.inner)).then(|| &v[start..start + self.inner])
    }

    /// Calls `f` with the tree's values along the current row.
    fn with_row<T: Elem>(&self, t: &Tree, leaves: &[(&Data, View)], idx: &[usize], base: &[i64], f: impl FnOnce(&[T])) {
        match self.in_place::<T>(t, leaves, idx, base) {
            Some(run) => f(run),
            None => f(T::vec(&self.eval(t, leaves, idx, base)).unwrap_or_default()),
        }
    }

    fn eval(&self, t: &Tree, leaves: &[(&Data, View)], idx: &[usize], base: &[i64]) -> Data {
        let ev = |t: &Tree| self.eval(t, leaves, idx, base);
        match t {
            Tree::Leaf(l) => self.row(leaves[*l].0, *l, idx, base[*l]),
            Tree::Unary(u, a) => alu::unary(*u, &ev(a)),
            Tree::Binary(b, x, y) => alu::binary(*b, &ev(x), &ev(y)),
            Tree::Where(c, x, y) => alu::select(&ev(c), &ev(x), &ev(y)),
            Tree::Cast(d, a) => ev(a).cast(*d),
        }
    }
}

/// Reduces `axes` of the value `tree` computes over `shape` (each leaf a single view of that
/// shape over its data), giving a dense buffer of `dtype` in row-major order of the kept dims.
pub(crate) fn reduce(
    op: ReduceOp,
    dtype: DType,
    tree: &Tree,
    leaves: &[(&Data, View)],
    shape: &[usize],
    axes: &[usize],
) -> Data {
    let out_n: usize = shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &n)| n).product();
    let red_n: usize = axes.iter().map(|&a| shape[a]).product();
    if out_n == 0 || red_n == 0 {
        // An empty reduction gives the op's identity (0 for a sum, 1 for a product), as the
        // dense definition does; max and min of nothing are refused before this.
        return Data::full(dtype, out_n, op.identity());
    }
    let nest = Nest::new(shape, axes, leaves);
    let acc = leaves.len();
    if let (ReduceOp::Sum, DType::Float32, Tree::Binary(BinaryOp::Mul, x, y)) = (op, dtype, tree) {
        if let (Tree::Leaf(a), Tree::Leaf(b)) = (x.as_ref(), y.as_ref()) {
            if let (Data::F32(av), Data::F32(bv)) = (leaves[*a].0, leaves[*b].0) {
                return Data::F32(contract(&nest, (av, *a), (bv, *b), out_n));
            }
        }
    }
    with_dtype!(dtype, |T| {
        fn typed<T: Arith>(
            op: ReduceOp,
            nest: &Nest,
            tree: &Tree,
            leaves: &[(&Data, View)],
            acc: usize,
            out_n: usize,
        ) -> Data {
            let ast = nest.streams[acc].inner;
            let at = |ab: i64, j: usize| (ab + j as i64 * ast) as usize;
            match op {
                // Integers sum exactly in i64, wrapping as PyTorch's int64 accumulator does.
                ReduceOp::Sum if !T::DTYPE.is_float() => {
                    let mut out = vec![0i64; out_n];
                    nest.for_each_row(|idx, base| {
                        nest.with_row(tree, leaves, idx, base, |row: &[T]| {
                            for (j, x) in row.iter().enumerate() {
                                let o = &mut out[at(base[acc], j)];
                                *o = o.wrapping_add(x.to_i64());
                            }
                        })
                    });
                    T::wrap(out.into_iter().map(T::from_i64).collect())
                }
                ReduceOp::Sum => {
                    let mut out = vec![0f64; out_n];
                    nest.for_each_row(|idx, base| {
                        nest.with_row(tree, leaves, idx, base, |row: &[T]| {
                            if ast == 0 {
                                // The row is one output's reduce run: the dense lane sum.
                                out[at(base[acc], 0)] += alu::sum(row);
                            } else {
                                for (j, x) in row.iter().enumerate() {
                                    out[at(base[acc], j)] += x.to_f64();
                                }
                            }
                        })
                    });
                    T::wrap(out.into_iter().map(T::from_f64).collect())
                }
                ReduceOp::Prod => {
                    let mut out = vec![T::from_i64(1); out_n];
                    nest.for_each_row(|idx, base| {
                        nest.with_row(tree, leaves, idx, base, |row: &[T]| {
                            for (j, &x) in row.iter().enumerate() {
                                let o = &mut out[at(base[acc], j)];
                                *o = T::mul(*o, x);
                            }
                        })
                    });
                    T::wrap(out)
                }
                ReduceOp::Max | ReduceOp::Min => {
                    let (init, f): (T, fn(T, T) -> T) =
                        if op == ReduceOp::Max { (T::LOWEST, T::max) } else { (T::HIGHEST, T::min) };
                    let mut out = vec![init; out_n];
                    if let Some((l, v)) = leaf_of::<T>(tree, leaves) {
                        // The fold is a type parameter, not `f`, so it inlines into the loop.
                        if op == ReduceOp::Max {
                            fold_leaf(nest, (l, v), acc, &mut out, |a, b| T::max(a, b));
                        } else {
                            fold_leaf(nest, (l, v), acc, &mut out, |a, b| T::min(a, b));
                        }
                        return T::wrap(out);
                    }
                    nest.for_each_row(|idx, base| {
                        nest.with_row(tree, leaves, idx, base, |row: &[T]| {
                            for (j, &x) in row.iter().enumerate() {
                                let o = &mut out[at(base[acc], j)];
                                *o = f(*o, x);
                            }
                        })
                    });
                    T::wrap(out)
                }
            }
        }
        typed::<T>(op, &nest, tree, leaves, acc, out_n)
    })
}

/// Folds one leaf's rows into `out` with `f`: a pooling window over one buffer read straight
/// from memory instead of copying every (short, strided) row out first. Masked positions read
/// as zero, as `Nest::row` has them.
///
/// Only for `max`/`min`, which give the same result in any order except for the sign of a zero:
/// a whole contiguous row folding into one output runs in eight lanes, and a row whose result
/// is a zero runs again in order.
fn fold_leaf<T: Elem>(nest: &Nest, (l, v): (usize, &[T]), acc: usize, out: &mut [T], f: impl Fn(T, T) -> T) {
    let (st, ast) = (nest.streams[l].inner, nest.streams[acc].inner);
    nest.for_each_row(|idx, base| {
        let (b, e) = nest.valid(l, idx);
        if st == 1 && ast == 0 && b == 0 && e == nest.inner && nest.inner >= 64 {
            let row = &v[base[l] as usize..base[l] as usize + nest.inner];
            let o = &mut out[base[acc] as usize];
            let folded = fold_lanes(*o, row, &f);
            *o = if folded == T::default() { row.iter().fold(*o, |a, &x| f(a, x)) } else { folded };
            return;
        }
        for j in 0..nest.inner {
            let x = if b <= j && j < e { v[(base[l] + j as i64 * st) as usize] } else { T::default() };
            let o = &mut out[(base[acc] + j as i64 * ast) as usize];
            *o = f(*o, x);
        }
    });
}

/// `xs` folded into `init` with `f` in eight interleaved lanes, combined at the end.
fn fold_lanes<T: Elem>(init: T, xs: &[T], f: &impl Fn(T, T) -> T) -> T {
    let mut lanes = [init; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            lanes[k] = f(lanes[k], c[k]);
        }
    }
    let folded = lanes.into_iter().reduce(f).unwrap_or(init);
    chunks.remainder().iter().fold(folded, |a, &x| f(a, x))
}

/// The leaf index and values when the whole tree is one leaf of element type `T`.
fn leaf_of<'d, T: Elem>(tree: &Tree, leaves: &[(&'d Data, View)]) -> Option<(usize, &'d [T])> {
    let Tree::Leaf(l) = tree else { return None };
    Some((*l, T::vec(leaves[*l].0)?))
}

/// `sum(a * b)` over float32 leaves: the product of every matmul and convolution. It gets its
/// own loop because the row-at-a-time evaluation allocates per row, and here the rows are most
/// of a model's time; with the nest's i-k-j order the inner loop is a vectorisable
/// `acc[j] += a * b[j]`. Each product is rounded to f32 first, exactly as the dense Mul would.
fn contract(nest: &Nest, (a, la): (&[f32], usize), (b, lb): (&[f32], usize), out_n: usize) -> Vec<f32> {
    let acc_s = nest.streams.len() - 1;
    let (sa, sb, sacc) = (nest.streams[la].inner, nest.streams[lb].inner, nest.streams[acc_s].inner);
    let mut out = vec![0f64; out_n];
    nest.for_each_row(|idx, base| {
        let (ra, rb) = (nest.valid(la, idx), nest.valid(lb, idx));
        let (ab, bb, cb) = (base[la], base[lb], base[acc_s]);
        let lo = ra.0.max(rb.0);
        let hi = ra.1.min(rb.1).max(lo);
        // Where either side is masked it reads zero; the product is still computed, since
        // 0 * inf is NaN in the dense definition too.
        let read = |v: &[f32], r: (usize, usize), o: i64, s: i64, j: usize| {
            if r.0 <= j && j < r.1 {
                v[(o + j as i64 * s) as usize]
            } else {
                0.0
            }
        };
        for j in (0..lo).chain(hi..nest.inner) {
            out[(cb + j as i64 * sacc) as usize] += f64::from(read(a, ra, ab, sa, j) * read(b, rb, bb, sb, j));
        }
        let n = hi - lo;
        if n == 0 {
            return;
        }
        let (a0, b0, c0) = (ab + lo as i64 * sa, bb + lo as i64 * sb, cb + lo as i64 * sacc);
        match (sa, sb, sacc) {
            (0, 1, 1) | (1, 0, 1) => {
                let (x, ys) =
                    if sa == 0 { (a[a0 as usize], &b[b0 as usize..]) } else { (b[b0 as usize], &a[a0 as usize..]) };
                for (o, &y) in out[c0 as usize..c0 as usize + n].iter_mut().zip(&ys[..n]) {
                    *o += f64::from(x * y);
                }
            }
            (1, 1, 0) => {
                // A dot product per output: eight lanes keep the f64 sum vectorisable.
                let (xs, ys) = (&a[a0 as usize..a0 as usize + n], &b[b0 as usize..b0 as usize + n]);
                let mut lanes = [0f64; 8];
                let (xc, yc) = (xs.chunks_exact(8), ys.chunks_exact(8));
                let tail: f64 = xc.remainder().iter().zip(yc.remainder()).map(|(&x, &y)| f64::from(x * y)).sum();
                for (cx, cy) in xc.zip(yc) {
                    for ((l, &x), &y) in lanes.iter_mut().zip(cx).zip(cy) {
                        *l += f64::from(x * y);
                    }
                }
                out[c0 as usize] += lanes.iter().sum::<f64>() + tail;
            }
            _ => {
                for j in 0..n as i64 {
                    out[(c0 + j * sacc) as usize] += f64::from(a[(a0 + j * sa) as usize] * b[(b0 + j * sb) as usize]);
                }
            }
        }
    });
    out.into_iter().map(|x| x as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Result;
    use crate::shape::tracker::ShapeTracker;
    use crate::uop::{Graph, Op, UOpId};

    /// A reduce built over buffers: `build` gets the graph with one `Buffer` node per storage.
    struct Case {
        name: &'static str,
        storages: Vec<Data>,
        build: fn(&mut Graph, &[UOpId]) -> UOpId,
    }

    fn f32s(n: usize, f: impl Fn(usize) -> f32) -> Data {
        Data::F32((0..n).map(f).collect())
    }

    fn push(g: &mut Graph, op: Op, src: UOpId) -> UOpId {
        let n = g.node(src);
        let st = crate::uop::interp::apply_movement(&ShapeTracker::from_shape(&n.shape), &op).unwrap_or_else(|e| {
            panic!("bad movement {op:?} of {:?}: {e}", n.shape);
        });
        let dtype = n.dtype;
        g.push(op, dtype, st.shape().to_vec(), vec![src])
    }

    fn bin(g: &mut Graph, op: BinaryOp, a: UOpId, b: UOpId) -> UOpId {
        let (shape, dtype) = (g.node(a).shape.clone(), g.node(a).dtype);
        let dtype = if op.is_comparison() { DType::Bool } else { dtype };
        g.push(Op::Binary(op), dtype, shape, vec![a, b])
    }

    fn red(g: &mut Graph, op: ReduceOp, src: UOpId, axes: &[usize]) -> UOpId {
        let (shape, dtype) = (g.node(src).shape.clone(), g.node(src).dtype);
        let kept = shape.iter().enumerate().map(|(d, &n)| if axes.contains(&d) { 1 } else { n }).collect();
        g.push(Op::Reduce(op, axes.to_vec()), dtype, kept, vec![src])
    }

    /// `a (m, k) @ b (k, n)` as the engine builds it: broadcast to (m, k, n), multiply, sum k.
    fn matmul(g: &mut Graph, a: UOpId, b: UOpId, [m, k, n]: [usize; 3]) -> UOpId {
        let a = push(g, Op::Reshape(vec![m, k, 1]), a);
        let a = push(g, Op::Expand(vec![m, k, n]), a);
        let b = push(g, Op::Reshape(vec![1, k, n]), b);
        let b = push(g, Op::Expand(vec![m, k, n]), b);
        let p = bin(g, BinaryOp::Mul, a, b);
        red(g, ReduceOp::Sum, p, &[1])
    }

    /// The fused reduce agrees with the dense definition: materialise the source, then reduce.
    fn check(c: &Case) -> Result<()> {
        let mut g = Graph::new();
        let bufs: Vec<UOpId> = c
            .storages
            .iter()
            .enumerate()
            .map(|(i, d)| g.push(Op::Buffer(i), d.dtype(), vec![d.len()], vec![]))
            .collect();
        let root = (c.build)(&mut g, &bufs);
        let Op::Reduce(op, axes) = g.node(root).op.clone() else { panic!("{}: the root is not a reduce", c.name) };
        let src = g.node(root).src[0];
        let fused = crate::uop::interp::realize(&g, &c.storages, root)?;
        let dense = crate::uop::interp::reduce(
            op,
            &crate::uop::interp::realize(&g, &c.storages, src)?,
            &g.node(src).shape,
            &axes,
        )?;
        assert_eq!(fused.dtype(), dense.dtype(), "{}: dtype", c.name);
        assert_eq!(fused.len(), dense.len(), "{}: length", c.name);
        assert!(!fused.is_empty() || c.name.starts_with("empty"), "{}: nothing computed", c.name);
        // A float32 matrix product runs as SGEMM, accumulating in float32: its error bound is
        // norm-wise, `k` roundings of the largest result.
        let gemm = crate::uop::gemm::find(&g, root)?.is_some();
        let k = axes.iter().map(|&a| g.node(src).shape[a]).product::<usize>() as f64;
        let largest = dense.to_f64_vec().iter().fold(0f64, |m, v| m.max(v.abs()));
        let bound = if gemm { k * f64::from(f32::EPSILON) * largest } else { 0.0 };
        for (i, (x, y)) in fused.to_f64_vec().into_iter().zip(dense.to_f64_vec()).enumerate() {
            let close = (x.is_nan() && y.is_nan())
                || x == y
                || (x - y).abs() <= 1e-6 * x.abs().max(y.abs())
                || (x - y).abs() <= bound;
            assert!(close, "{}: element {i} is {x}, the dense definition gives {y}", c.name);
        }
        Ok(())
    }

    #[test]
    fn fused_reductions_match_the_dense_definition() -> Result<()> {
        let cases = [
            Case {
                name: "matmul with short rows (n < 8)",
                storages: vec![f32s(15, |i| i as f32 * 0.25 - 1.0), f32s(20, |i| 1.0 / (i as f32 + 1.0))],
                build: |g, b| matmul(g, b[0], b[1], [3, 5, 4]),
            },
            Case {
                name: "matmul, rows of outputs (i-k-j)",
                storages: vec![f32s(36, |i| (i % 7) as f32 - 3.0), f32s(144, |i| (i as f32).sin())],
                build: |g, b| matmul(g, b[0], b[1], [4, 9, 16]),
            },
            Case {
                name: "matmul of a transposed operand (general strides)",
                storages: vec![f32s(36, |i| (i % 5) as f32), f32s(144, |i| (i as f32 * 0.1).cos())],
                build: |g, b| {
                    let bt = push(g, Op::Reshape(vec![16, 9]), b[1]);
                    let bt = push(g, Op::Permute(vec![1, 0]), bt);
                    let bt = push(g, Op::Reshape(vec![144]), bt);
                    matmul(g, b[0], bt, [4, 9, 16])
                },
            },
            Case {
                name: "linear layer: a dot product per output (x @ w.T)",
                storages: vec![f32s(4 * 19, |i| (i as f32 * 0.3).cos()), f32s(16 * 19, |i| (i % 11) as f32 - 5.0)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![4, 1, 19]), b[0]);
                    let x = push(g, Op::Expand(vec![4, 16, 19]), x);
                    let w = push(g, Op::Reshape(vec![1, 16, 19]), b[1]);
                    let w = push(g, Op::Expand(vec![4, 16, 19]), w);
                    let p = bin(g, BinaryOp::Mul, x, w);
                    red(g, ReduceOp::Sum, p, &[2])
                },
            },
            Case {
                name: "padded operand times infinities: masked zeros still make NaN",
                storages: vec![
                    f32s(6 * 7, |i| i as f32),
                    f32s(11, |i| if i == 0 || i == 10 { f32::INFINITY } else { 2.0 }),
                ],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![6, 7]), b[0]);
                    let x = push(g, Op::Pad(vec![(1, 1), (2, 2)]), x);
                    let w = push(g, Op::Reshape(vec![1, 11]), b[1]);
                    let w = push(g, Op::Expand(vec![8, 11]), w);
                    let p = bin(g, BinaryOp::Mul, x, w);
                    red(g, ReduceOp::Sum, p, &[1])
                },
            },
            Case {
                name: "padded 2-d windows summed over both axes (row order over a mask)",
                storages: vec![f32s(10 * 12, |i| (i as f32 * 0.37).sin())],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![10, 12]), b[0]);
                    let x = push(g, Op::Pad(vec![(2, 1), (3, 0)]), x);
                    let x = push(g, Op::Reshape(vec![13, 1, 15, 1]), x);
                    let x = push(g, Op::Expand(vec![13, 3, 15, 2]), x);
                    red(g, ReduceOp::Sum, x, &[1, 3])
                },
            },
            Case {
                name: "int max over a padded view",
                storages: vec![Data::I32((0..40).map(|i| (i * 37 % 23) - 11).collect())],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![4, 10]), b[0]);
                    let x = push(g, Op::Pad(vec![(1, 0), (0, 3)]), x);
                    red(g, ReduceOp::Max, x, &[0])
                },
            },
            Case {
                name: "max pool's fill: where(padded true, padded x, -inf), a moved const leaf",
                storages: vec![f32s(5 * 6, |i| ((i * 7) % 11) as f32 - 20.0)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![5, 6]), b[0]);
                    let x = push(g, Op::Pad(vec![(1, 1), (1, 2)]), x);
                    let t = g.push(Op::Const(crate::uop::buffer::Scalar::Bool(true)), DType::Bool, vec![5, 6], vec![]);
                    let t = push(g, Op::Pad(vec![(1, 1), (1, 2)]), t);
                    let fill = g.push(
                        Op::Const(crate::uop::buffer::Scalar::Float(f64::NEG_INFINITY)),
                        DType::Float32,
                        vec![7, 9],
                        vec![],
                    );
                    let w = g.push(Op::Where, DType::Float32, vec![7, 9], vec![t, x, fill]);
                    red(g, ReduceOp::Max, w, &[1])
                },
            },
            Case {
                name: "2x2 stride-2 max pool window: strided rows read in place",
                storages: vec![f32s(2 * 6 * 16, |i| ((i * 37) % 23) as f32 - 11.0)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![2, 3, 2, 8, 2]), b[0]);
                    let x = push(g, Op::Permute(vec![0, 1, 3, 2, 4]), x);
                    red(g, ReduceOp::Max, x, &[3, 4])
                },
            },
            Case {
                name: "float min with a NaN, flipped",
                storages: vec![f32s(24, |i| if i == 5 { f32::NAN } else { 10.0 - i as f32 })],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![2, 3, 4]), b[0]);
                    let x = push(g, Op::Flip(vec![false, true, true]), x);
                    red(g, ReduceOp::Min, x, &[1, 2])
                },
            },
            Case {
                name: "softmax denominator: exp(x - max) over a reduce leaf",
                storages: vec![f32s(3 * 20, |i| (i as f32 * 0.7).sin() * 5.0)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![3, 20]), b[0]);
                    let m = red(g, ReduceOp::Max, x, &[1]);
                    let m = push(g, Op::Expand(vec![3, 20]), m);
                    let d = bin(g, BinaryOp::Sub, x, m);
                    let e = g.push(Op::Unary(UnaryOp::Exp), DType::Float32, vec![3, 20], vec![d]);
                    red(g, ReduceOp::Sum, e, &[1])
                },
            },
            Case {
                name: "count of a comparison: where, cast and a const leaf",
                storages: vec![f32s(30, |i| i as f32 - 12.5)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![5, 6]), b[0]);
                    let zero =
                        g.push(Op::Const(crate::uop::buffer::Scalar::Float(0.0)), DType::Float32, vec![5, 6], vec![]);
                    let lt = bin(g, BinaryOp::CmpLt, x, zero);
                    let neg = g.push(Op::Unary(UnaryOp::Neg), DType::Float32, vec![5, 6], vec![x]);
                    let ab = g.push(Op::Where, DType::Float32, vec![5, 6], vec![lt, neg, x]);
                    let gt = bin(g, BinaryOp::CmpLt, zero, ab);
                    let c = g.push(Op::Cast(DType::Int32), DType::Int32, vec![5, 6], vec![gt]);
                    red(g, ReduceOp::Sum, c, &[0])
                },
            },
            Case {
                name: "a leaf of two views (a reshape no single view expresses)",
                storages: vec![f32s(24, |i| i as f32 * 1.5)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![4, 6]), b[0]);
                    let x = push(g, Op::Permute(vec![1, 0]), x);
                    let x = push(g, Op::Reshape(vec![3, 8]), x);
                    red(g, ReduceOp::Sum, x, &[0])
                },
            },
            Case {
                name: "dims merged where every leaf allows it, kept where a permute forbids",
                storages: vec![
                    f32s(2 * 3 * 4 * 5 * 2, |i| (i as f32 * 0.11).sin()),
                    f32s(2 * 3 * 5 * 4 * 2, |i| i as f32),
                ],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![2, 3, 4, 5, 2]), b[0]);
                    let y = push(g, Op::Reshape(vec![2, 3, 5, 4, 2]), b[1]);
                    let y = push(g, Op::Permute(vec![0, 1, 3, 2, 4]), y);
                    let p = bin(g, BinaryOp::Add, x, y);
                    red(g, ReduceOp::Sum, p, &[0, 1, 2, 3])
                },
            },
            Case {
                name: "bool max and 0-d output",
                storages: vec![Data::Bool((0..12).map(|i| i == 7).collect())],
                build: |g, b| red(g, ReduceOp::Max, b[0], &[0]),
            },
            Case {
                name: "empty reduce axis gives zeros",
                storages: vec![f32s(0, |_| 0.0)],
                build: |g, b| {
                    let x = push(g, Op::Reshape(vec![3, 0]), b[0]);
                    red(g, ReduceOp::Sum, x, &[1])
                },
            },
        ];
        cases.iter().try_for_each(check)
    }

    /// A lazy product larger than any buffer may be: materialising it is refused, reducing it
    /// runs as a loop (and gives exact integer-valued sums).
    #[test]
    fn a_reduce_never_holds_its_source() -> Result<()> {
        let (m, k, n) = (512usize, 512usize, 512usize);
        assert!(m * k * n > crate::limits::MAX_ELEMENTS, "the product must exceed the buffer limit");
        let storages = vec![f32s(m * k, |i| (i % 3) as f32), f32s(k * n, |i| (i % 5) as f32)];
        let mut g = Graph::new();
        let a = g.push(Op::Buffer(0), DType::Float32, vec![m * k], vec![]);
        let b = g.push(Op::Buffer(1), DType::Float32, vec![k * n], vec![]);
        let root = matmul(&mut g, a, b, [m, k, n]);
        let prod = g.node(root).src[0];
        let err = crate::uop::interp::realize(&g, &storages, prod).map(|_| ()).unwrap_err();
        assert_eq!(err.kind(), "limit", "materialising the product: {err}");
        let got = crate::uop::interp::realize(&g, &storages, root)?;
        let Data::F32(got) = got else { panic!("matmul of f32 gave {:?}", got.dtype()) };
        assert_eq!(got.len(), m * n);
        for (i, j) in [(0, 0), (1, 2), (511, 511), (300, 7)] {
            let want: f32 = (0..k).map(|t| (((i * k + t) % 3) * ((t * n + j) % 5)) as f32).sum();
            assert_eq!(got[i * n + j], want, "c[{i}][{j}]");
        }
        Ok(())
    }

    /// A tracker read view by view equals its per-element definition (`offsets()`).
    #[test]
    fn gather_matches_per_element_offsets() -> Result<()> {
        let cases: [(&str, &[usize], Vec<Op>); 5] = [
            ("pad then flip", &[4, 5], vec![Op::Pad(vec![(1, 2), (0, 3)]), Op::Flip(vec![true, false])]),
            (
                "shrink of a permute",
                &[3, 4, 5],
                vec![Op::Permute(vec![2, 0, 1]), Op::Shrink(vec![(1, 4), (0, 2), (1, 3)])],
            ),
            (
                "expand then unmergeable reshape",
                &[3, 1],
                vec![Op::Expand(vec![3, 4]), Op::Permute(vec![1, 0]), Op::Reshape(vec![12])],
            ),
            (
                "padded, then reshaped across the padding",
                &[2, 3],
                vec![Op::Pad(vec![(0, 0), (1, 0)]), Op::Reshape(vec![4, 2]), Op::Permute(vec![1, 0])],
            ),
            (
                "view stack of three",
                &[4, 6],
                vec![
                    Op::Permute(vec![1, 0]),
                    Op::Reshape(vec![3, 8]),
                    Op::Permute(vec![1, 0]),
                    Op::Reshape(vec![2, 12]),
                    Op::Flip(vec![false, true]),
                ],
            ),
        ];
        for (name, shape, ops) in cases {
            let n: usize = shape.iter().product();
            let src = f32s(n, |i| i as f32 + 1.0);
            let mut st = ShapeTracker::from_shape(shape);
            for op in &ops {
                st = crate::uop::interp::apply_movement(&st, op)?;
            }
            let want = src.gather(&st.offsets());
            assert_eq!(crate::uop::interp::gather(&src, &st), want, "{name}: {} views", st.views().len());
        }
        Ok(())
    }
}
