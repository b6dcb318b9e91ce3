//! Order statistics along a dim (`kthvalue`, `median`, `nanmedian`) and over all elements:
//! each line's pick is made on the host with the algorithm PyTorch's CPU kernel runs, so among
//! equal values the same index comes out (`kthvalue` by PyTorch's own quickselect, `median`
//! by `std::nth_element` with ties broken by index).

use crate::autograd::GradOp;
use crate::engine::indexing::{coords, line_along};
use crate::engine::reduce::KeepDim;
use crate::error::Result;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::torch::layout::Layout;
use crate::torch::stl;
use crate::uop::buffer::Data;
use crate::uop::Op;

/// What a median does with NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nan {
    /// `median`: a NaN in the line is the answer (the first one).
    Propagate,
    /// `nanmedian`: the median of the other values (NaN only when all are).
    Ignore,
}

/// A line's values as keys that compare exactly (int64 past 2^53 included).
enum Keys {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

impl Engine {
    /// `t.kthvalue(k, dim, keepdim)` (`k` from 1, checked by the caller).
    pub fn kthvalue(&mut self, t: &Tensor, k: usize, dim: i64, keepdim: KeepDim) -> Result<(Tensor, Tensor)> {
        self.pick_along(t, dim, keepdim, "KthvalueBackward0", |keys| match keys {
            Keys::Float(v) => quick_select(&v, k - 1, f64::is_nan),
            Keys::Int(v) => quick_select(&v, k - 1, |_| false),
        })
    }

    /// `t.median(dim, keepdim)` and `t.nanmedian(dim, keepdim)`.
    pub fn median_along(&mut self, t: &Tensor, dim: i64, keepdim: KeepDim, nan: Nan) -> Result<(Tensor, Tensor)> {
        let name = match nan {
            Nan::Propagate => "MedianBackward1",
            Nan::Ignore => "NanmedianBackward1",
        };
        self.pick_along(t, dim, keepdim, name, |keys| match keys {
            Keys::Float(v) => median_index(&v, nan, f64::is_nan),
            Keys::Int(v) => median_index(&v, nan, |_| false),
        })
    }

    /// `t.mode(dim, keepdim)`: the most frequent value of each line (the smallest among equally
    /// frequent ones) and the index of one of its occurrences, as PyTorch's CPU kernel finds
    /// them: a `std::sort` of (value, index) pairs by value, then the last pair of the first
    /// longest run.
    pub fn mode(&mut self, t: &Tensor, dim: i64, keepdim: KeepDim) -> Result<(Tensor, Tensor)> {
        self.pick_along(t, dim, keepdim, "ModeBackward0", |keys| match keys {
            Keys::Float(v) => mode_index(&v),
            Keys::Int(v) => mode_index(&v),
        })
    }

    /// `t.median()` and `t.nanmedian()` of every element: a 0-d tensor whose gradient is
    /// shared evenly among the elements equal to it (PyTorch's `evenly_distribute_backward`).
    pub fn median_all(&mut self, t: &Tensor, nan: Nan) -> Result<Tensor> {
        let flat = self.untracked(|e| e.reshape(t, &[-1]))?;
        let (value, _) = self.untracked(|e| e.median_along(&flat, 0, KeepDim::Drop, nan))?;
        let name = match nan {
            Nan::Propagate => "MedianBackward0",
            Nan::Ignore => "NanmedianBackward0",
        };
        let grad = GradOp::EvenlyDistributed { name };
        self.record(&value, grad, &[Some(t)], vec![Some(t.clone()), Some(value.clone())], &[0, 1]);
        Ok(value)
    }

    /// Per line along `dim`, the element `pick` chooses: its value (gathered, with `name`'s
    /// gradient routing back to it) and its index, both new row-major tensors.
    fn pick_along(
        &mut self,
        t: &Tensor,
        dim: i64,
        keepdim: KeepDim,
        name: &'static str,
        pick: impl Fn(Keys) -> usize,
    ) -> Result<(Tensor, Tensor)> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len().max(1))?;
        let shape: Vec<usize> = if t.shape().is_empty() { vec![1] } else { t.shape().to_vec() };
        let mut lines = shape.clone();
        lines[d] = 1;
        let out: Vec<usize> = match (t.shape().is_empty(), keepdim) {
            (true, _) => vec![],
            (false, KeepDim::Keep) => lines.clone(),
            (false, KeepDim::Drop) => shape.iter().enumerate().filter(|&(i, _)| i != d).map(|(_, &s)| s).collect(),
        };
        let data = self.values(&t)?;
        let float = t.dtype().is_float();
        let count = lines.iter().product::<usize>();
        let (mut pos, mut along) = (Vec::with_capacity(count), Vec::with_capacity(count));
        for o in 0..count {
            let mut c = coords(o, &lines);
            let line = line_along(&mut c, d, &shape);
            let keys = match float {
                true => Keys::Float(line.iter().map(|&i| data.get_f64(i)).collect()),
                false => Keys::Int(line.iter().map(|&i| data.get_scalar(i).as_i64()).collect()),
            };
            let i = pick(keys);
            pos.push(line[i]);
            along.push(i as i64);
        }
        let n = t.numel();
        let take = |e: &mut Engine, src: &Tensor| -> Result<Tensor> {
            let node = e.movement(src.node(), Op::Reshape(vec![n]));
            let g = e.gather_node(node, src.dtype(), &[n], 0, &pos)?;
            let g = e.movement(g, Op::Reshape(out.clone()));
            e.index_copy_result(g, Layout::contiguous(&out))
        };
        let values = self.untracked(|e| take(e, &t))?;
        self.record_index_map(&values, &t, name, |e, p| take(e, p))?;
        let indices = self.from_data(Data::I64(along), &out)?;
        Ok((values, indices))
    }
}

/// PyTorch's `quick_select_template` (Sedgewick's partition, median-of-three pivot) with NaN
/// as the largest value: the line's index that lands at position `k`.
fn quick_select<K: Copy + PartialOrd>(keys: &[K], k: usize, is_nan: fn(K) -> bool) -> usize {
    let gt = |x: K, y: K| (is_nan(x) && !is_nan(y)) || x > y;
    let mut v: Vec<(K, usize)> = keys.iter().copied().zip(0..).collect();
    let (mut l, mut r) = (0usize, v.len() - 1);
    loop {
        if r <= l {
            break;
        }
        if r == l + 1 {
            if gt(v[l].0, v[r].0) {
                v.swap(l, r);
            }
            break;
        }
        v.swap((l + r) >> 1, l + 1);
        if gt(v[l + 1].0, v[r].0) {
            v.swap(l + 1, r);
        }
        if gt(v[l].0, v[r].0) {
            v.swap(l, r);
        }
        if gt(v[l + 1].0, v[l].0) {
            v.swap(l + 1, l);
        }
        let (mut i, mut j) = (l + 1, r);
        let piv = v[l].0;
        loop {
            i += 1;
            while gt(piv, v[i].0) {
                i += 1;
            }
            j -= 1;
            while gt(v[j].0, piv) {
                j -= 1;
            }
            if j < i {
                break;
            }
            v.swap(i, j);
        }
        v.swap(l, j);
        if j <= k {
            l = i;
        }
        if j >= k {
            // `R = j - 1` with signed indices: `j` is at least `l + 1` here.
            r = j - 1;
        }
    }
    v[k].1
}

/// `median_with_indices_impl`'s pick: the first NaN for `median`; else `std::nth_element` on
/// the indices, ties broken by index (NaNs last for `nanmedian`).
fn median_index<K: Copy + PartialOrd>(keys: &[K], nan: Nan, is_nan: fn(K) -> bool) -> usize {
    if nan == Nan::Propagate {
        if let Some(i) = keys.iter().position(|&x| is_nan(x)) {
            return i;
        }
    }
    let nans = keys.iter().filter(|&&x| is_nan(x)).count() as i64;
    // C++'s `(size - num_nan - 1) / 2`, which truncates -1/2 to 0.
    let nth = ((keys.len() as i64 - nans - 1) / 2) as usize;
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    let less = |&i: &usize, &j: &usize| {
        keys[i] < keys[j]
            || (keys[i] == keys[j] && i < j)
            || (nan == Nan::Ignore && is_nan(keys[j]) && !is_nan(keys[i]))
    };
    stl::nth_element(&mut idx, nth, &less);
    idx[nth]
}

/// `mode_kernel`'s pick (NaNs compare as nothing: the sort leaves them where it leaves them).
fn mode_index<K: Copy + PartialOrd>(keys: &[K]) -> usize {
    let mut pairs: Vec<(K, usize)> = keys.iter().copied().zip(0..).collect();
    stl::sort(&mut pairs, &|a: &(K, usize), b: &(K, usize)| a.0 < b.0);
    let (mut best, mut best_count, mut run) = (0, 0, 0);
    for i in 0..pairs.len() {
        run += 1;
        if i == pairs.len() - 1 || pairs[i].0 != pairs[i + 1].0 {
            if run > best_count {
                best = pairs[i].1;
                best_count = run;
            }
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kthvalue_ties_as_pytorch_picks_them() {
        // Recorded from PyTorch 2.15: `torch.ones(40).kthvalue(3)` has index 28.
        assert_eq!(quick_select(&[1.0; 40], 2, f64::is_nan), 28);
        assert_eq!(quick_select(&[1.0, f64::NAN, 2.0], 2, f64::is_nan), 1);
        assert_eq!(quick_select(&[5i64, 3, 9, 1], 1, |_| false), 1);
    }

    #[test]
    fn median_breaks_ties_by_index() {
        assert_eq!(median_index(&[1.0; 40], Nan::Propagate, f64::is_nan), 19);
        assert_eq!(median_index(&[f64::NAN; 3], Nan::Ignore, f64::is_nan), 0);
        assert_eq!(median_index(&[4.0, 1.0, f64::NAN], Nan::Ignore, f64::is_nan), 1);
        assert_eq!(median_index(&[1.0, f64::NAN, 2.0], Nan::Propagate, f64::is_nan), 1);
    }
}
