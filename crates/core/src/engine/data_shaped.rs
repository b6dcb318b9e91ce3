//! Ops whose result shape depends on the data (`nonzero`, `sort`, `topk`, `unique`,
//! `bincount`, `one_hot`): the values are realized on the host, ordered or counted there with
//! PyTorch's rules, and the result comes back as a new storage.

use super::indexing::{coords, flat, ints_of, line_along, Combine};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::torch::layout::Layout;
use crate::torch::stl;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, Op};

impl Engine {
    /// `t.nonzero()`: int64 `[n, ndim]` laid out as PyTorch's kernel writes it, transposed
    /// (strides `[1, n]`).
    pub fn nonzero(&mut self, t: &Tensor) -> Result<Tensor> {
        let (rows, k, n) = self.nonzero_rows(t)?;
        if k == 0 || n == 0 {
            return self.empty_strided(DType::Int64, &[n, k], &[1, n as i64]);
        }
        // Column-major: the storage holds each coordinate's column in turn.
        let mut cols = vec![0i64; n * k];
        for i in 0..n {
            for j in 0..k {
                cols[j * n + i] = rows[i * k + j];
            }
        }
        let data = self.from_data(Data::I64(cols), &[k, n])?;
        let node = self.movement(data.node(), Op::Permute(vec![1, 0]));
        let node = self.graph.push(Op::Contiguous, DType::Int64, vec![n, k], vec![node]);
        self.computed_as(node, Layout::new(&[n, k], &[1, n as i64], 0))
    }

    /// The coordinates of each nonzero element, row after row, the rank and the count.
    fn nonzero_rows(&mut self, t: &Tensor) -> Result<(Vec<i64>, usize, usize)> {
        let v = self.values(t)?;
        let shape = t.shape().to_vec();
        let mut rows = Vec::new();
        let mut count = 0;
        for i in 0..v.len() {
            let nz = match v.get_scalar(i) {
                Scalar::Float(f) => f != 0.0,
                Scalar::Int(i) => i != 0,
                Scalar::Bool(b) => b,
            };
            if nz {
                count += 1;
                rows.extend(coords(i, &shape).into_iter().map(|c| c as i64));
            }
        }
        check_numel(&[count, shape.len()])?;
        Ok((rows, shape.len(), count))
    }

    /// `sort`'s permutation of each row along `dim` (stable; NaN sorts as the largest).
    fn sort_order(&mut self, t: &Tensor, d: usize, descending: bool) -> Result<(Vec<usize>, Vec<usize>)> {
        let v = self.values(t)?.to_f64_vec();
        let shape: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        let n = shape[d];
        let mut perm_flat = vec![0usize; v.len()];
        let mut idx_along = vec![0usize; v.len()];
        let key = |x: f64| if x.is_nan() { f64::INFINITY } else { x };
        let cmp = |a: f64, b: f64| {
            let (an, bn) = (a.is_nan(), b.is_nan());
            match (an, bn) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                _ => key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal),
            }
        };
        let mut outer = shape.clone();
        outer[d] = 1;
        let no: usize = outer.iter().product();
        for o in 0..no {
            let mut c = coords(o, &outer);
            let line = line_along(&mut c, d, &shape);
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| {
                let o = cmp(v[line[a]], v[line[b]]);
                if descending {
                    o.reverse()
                } else {
                    o
                }
            });
            for (i, &k) in order.iter().enumerate() {
                perm_flat[line[i]] = line[k];
                idx_along[line[i]] = k;
            }
        }
        Ok((perm_flat, idx_along))
    }

    /// `t.sort(dim, descending)`: values and int64 indices, laid out like `t` (dense).
    pub fn sort(&mut self, t: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        let (values, indices) = self.untracked(|e| e.sort_values(t, dim, descending))?;
        if !t.shape().is_empty() {
            self.record_index_map(&values, t, "SortBackward0", |e, p| e.gather_values(p, dim, &indices))?;
        }
        Ok((values, indices))
    }

    /// [`Engine::sort`]'s values and indices (no autograd node).
    fn sort_values(&mut self, t: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len().max(1))?;
        let layout = t.layout().empty_like_preserve();
        if t.numel() == 0 {
            let v = self.full_like(&t, Scalar::Int(0), t.dtype())?;
            let i = self.full_like(&t, Scalar::Int(0), DType::Int64)?;
            return Ok((v, i));
        }
        let (perm, along) = self.sort_order(&t, d, descending)?;
        let n = t.numel();
        let node = self.movement(t.node(), Op::Reshape(vec![n]));
        let g = self.gather_node(node, t.dtype(), &[n], 0, &perm)?;
        let g = self.movement(g, Op::Reshape(t.shape().to_vec()));
        let values = self.index_copy_result(g, layout.clone())?;
        let idx = self.from_data(Data::I64(along.iter().map(|&i| i as i64).collect()), &[n])?;
        let node = self.movement(idx.node(), Op::Reshape(t.shape().to_vec()));
        let node = self.graph.push(Op::Contiguous, DType::Int64, t.shape().to_vec(), vec![node]);
        let indices = self.computed_as(node, layout)?;
        Ok((values, indices))
    }

    /// `t.topk(k, dim, largest, sorted)`: row-major outputs, ties broken as PyTorch's CPU
    /// kernel breaks them (see [`TopK`]).
    pub fn topk(&mut self, t: &Tensor, k: i64, dim: i64, how: TopK) -> Result<(Tensor, Tensor)> {
        let (values, indices) = self.untracked(|e| e.topk_values(t, k, dim, how))?;
        if !t.shape().is_empty() {
            self.record_index_map(&values, t, "TopkBackward0", |e, p| e.gather_values(p, dim, &indices))?;
        }
        Ok((values, indices))
    }

    /// [`Engine::topk`]'s values and indices (no autograd node).
    fn topk_values(&mut self, t: &Tensor, k: i64, dim: i64, how: TopK) -> Result<(Tensor, Tensor)> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len().max(1))?;
        let shape: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        if k < 0 || k as usize > shape[d] {
            bail!(Index, "selected index k out of range");
        }
        let k = k as usize;
        let mut out = shape.clone();
        out[d] = k;
        let out = if t.shape().is_empty() { vec![] } else { out };
        if out.contains(&0) || t.numel() == 0 {
            let v = self.empty_copy(&out, t.dtype())?;
            let i = self.empty_copy(&out, DType::Int64)?;
            return Ok((v, i));
        }
        let data = self.values(&t)?;
        let mut lines = shape.clone();
        lines[d] = 1;
        // Each output element's flat source position and its index along `dim`, row-major.
        let mut pos = vec![0usize; out.iter().product::<usize>().max(1)];
        let mut idx = vec![0i64; pos.len()];
        let out_shape = if out.is_empty() { vec![1] } else { out.clone() };
        for o in 0..lines.iter().product::<usize>() {
            let mut c = coords(o, &lines);
            let line = line_along(&mut c, d, &shape);
            let chosen = match t.dtype().is_float() {
                true => how.select(line.iter().map(|&i| data.get_f64(i)).collect(), k, f64::is_nan),
                false => how.select(line.iter().map(|&i| data.get_scalar(i).as_i64()).collect(), k, |_| false),
            };
            for (j, &along) in chosen.iter().enumerate() {
                c[d] = j;
                let at = flat(&c, &out_shape);
                pos[at] = line[along];
                idx[at] = along as i64;
            }
        }
        let numel = t.numel();
        let node = self.movement(t.node(), Op::Reshape(vec![numel]));
        let g = self.gather_node(node, t.dtype(), &[numel], 0, &pos)?;
        let g = self.movement(g, Op::Reshape(out.clone()));
        let values = self.index_copy_result(g, Layout::contiguous(&out))?;
        let indices = self.from_data(Data::I64(idx), &out)?;
        Ok((values, indices))
    }

    /// `torch.unique(t, sorted, return_inverse, return_counts)` over the flattened tensor:
    /// the sorted distinct values, each element's position among them, and the counts.
    pub fn unique(&mut self, t: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
        let t = self.resolve(t);
        let v = self.values(&t)?.to_f64_vec();
        // NaNs sort last, in input order, and each is a value of its own (NaN != NaN), as
        // PyTorch's sorted unique gives them.
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by(|&a, &b| match (v[a].is_nan(), v[b].is_nan()) {
            (false, false) => v[a].partial_cmp(&v[b]).unwrap_or(std::cmp::Ordering::Equal),
            (x, y) => x.cmp(&y),
        });
        let mut firsts: Vec<usize> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; v.len()];
        for &i in &order {
            let same = firsts.last().is_some_and(|&f| v[f] == v[i]);
            if !same {
                firsts.push(i);
                counts.push(0);
            }
            *counts.last_mut().unwrap_or(&mut 0) += 1;
            inverse[i] = firsts.len() as i64 - 1;
        }
        let u = firsts.len();
        let values = if u == 0 {
            self.empty_copy(&[0], t.dtype())?
        } else {
            let n = t.numel();
            let node = self.movement(t.node(), Op::Reshape(vec![n]));
            let g = self.gather_node(node, t.dtype(), &[n], 0, &firsts)?;
            self.index_copy_result(g, Layout::contiguous(&[u]))?
        };
        let inverse = self.from_data(Data::I64(inverse), t.shape())?;
        let counts = self.from_data(Data::I64(counts), &[u])?;
        Ok((values, inverse, counts))
    }

    /// `torch.bincount(t, weights, minlength)`: counts (int64), or sums of the weights
    /// (float32 weights stay float32, others sum in float64), as a scatter-add.
    pub fn bincount(&mut self, t: &Tensor, weights: Option<&Tensor>, minlength: i64) -> Result<Tensor> {
        if t.shape().len() != 1 {
            bail!(Shape, "bincount only supports 1-d non-negative integral inputs.");
        }
        if t.dtype().is_float() || t.dtype() == DType::Bool {
            bail!(DType, "\"bincount_cpu\" not implemented for '{}'", t.dtype().torch_name());
        }
        if minlength < 0 {
            bail!(Shape, "minlength should be >= 0");
        }
        let v = ints_of(&self.values(t)?);
        if v.iter().any(|&i| i < 0) {
            bail!(Shape, "bincount only supports 1-d non-negative integral inputs.");
        }
        if let Some(w) = weights {
            if w.shape() != t.shape() {
                bail!(Shape, "weights should be 1-d and have the same length as input");
            }
        }
        let len = v.iter().map(|&i| i as usize + 1).max().unwrap_or(0).max(minlength as usize);
        check_numel(&[len])?;
        let pos: Vec<usize> = v.iter().map(|&i| i as usize).collect();
        let (dtype, values) = match weights {
            None => (DType::Int64, None),
            Some(w) => {
                let dtype = if w.dtype() == DType::Float32 { DType::Float32 } else { DType::Float64 };
                (dtype, Some(self.resolve(w)))
            }
        };
        let zeros = self.full(&[len], Scalar::Int(0), Some(dtype))?;
        if pos.is_empty() || len == 0 {
            return Ok(zeros);
        }
        let vals = match values {
            Some(w) => self.cast_node(w.node(), w.dtype(), dtype),
            None => self.graph.push(Op::Const(Scalar::Int(1)), dtype, vec![pos.len()], vec![]),
        };
        let (node, _) = self.scatter_node(zeros.node(), dtype, &[len], 0, vals, &pos, Combine::Sum, true)?;
        let node = self.graph.push(Op::Contiguous, dtype, vec![len], vec![node]);
        self.computed(node)
    }

    /// `F.one_hot(t, num_classes)`: int64, a compare of `t` with an iota along a new last dim.
    pub fn one_hot(&mut self, t: &Tensor, num_classes: i64) -> Result<Tensor> {
        if t.dtype() != DType::Int64 {
            bail!(DType, "one_hot is only applicable to index tensor of type LongTensor.");
        }
        let v = ints_of(&self.values(t)?);
        if v.iter().any(|&i| i < 0) {
            bail!(Shape, "Class values must be non-negative.");
        }
        let classes = if num_classes == -1 {
            if v.is_empty() {
                bail!(Shape, "Can not infer total number of classes from empty tensor.");
            }
            v.iter().max().copied().unwrap_or(0) + 1
        } else {
            if v.iter().any(|&i| i >= num_classes) {
                bail!(Shape, "Class values must be smaller than num_classes.");
            }
            num_classes
        };
        let t = self.resolve(t);
        let mut out = t.shape().to_vec();
        out.push(classes as usize);
        check_numel(&out)?;
        if out.contains(&0) {
            return self.empty_copy(&out, DType::Int64);
        }
        let axis = out.len() - 1;
        let mut ones = t.shape().to_vec();
        ones.push(1);
        let x = self.movement(t.node(), Op::Reshape(ones));
        let x = self.movement(x, Op::Expand(out.clone()));
        let iota = self.axis_index(&out, axis)?;
        let iota = self.cast_node(iota, DType::Int32, DType::Int64);
        let eq = self.graph.push(Op::Binary(BinaryOp::CmpEq), DType::Bool, out.clone(), vec![x, iota]);
        let node = self.cast_node(eq, DType::Bool, DType::Int64);
        let node = self.graph.push(Op::Contiguous, DType::Int64, out, vec![node]);
        // PyTorch zero-fills a new tensor, then scatters the ones into it: two in-place ops.
        let out = self.computed(node)?;
        let out = self.realize(&out)?;
        self.bump_empty_write(&out);
        self.bump_empty_write(&out);
        Ok(out)
    }
}

/// `topk`'s `largest=` and `sorted=`.
#[derive(Clone, Copy, Debug)]
pub struct TopK {
    pub largest: bool,
    pub sorted: bool,
}

impl TopK {
    /// The positions of the `k` chosen keys in output order, as `TopKImpl.h` picks them with
    /// libstdc++'s algorithms: a partial sort when `k` is at most 1/64 of the line, else
    /// `nth_element` and (when sorted) a sort of the first `k - 1`. NaN counts as the largest.
    fn select<K: Copy + PartialOrd>(self, keys: Vec<K>, k: usize, is_nan: fn(K) -> bool) -> Vec<usize> {
        let mut queue: Vec<(K, usize)> = keys.into_iter().zip(0..).collect();
        let before = |a: &(K, usize), b: &(K, usize)| match self.largest {
            true => (is_nan(a.0) && !is_nan(b.0)) || a.0 > b.0,
            false => (!is_nan(a.0) && is_nan(b.0)) || a.0 < b.0,
        };
        if k * 64 <= queue.len() {
            stl::partial_sort(&mut queue, k, &before);
        } else {
            stl::nth_element(&mut queue, k - 1, &before);
            if self.sorted {
                stl::sort(&mut queue[..k - 1], &before);
            }
        }
        queue[..k].iter().map(|p| p.1).collect()
    }
}
