//! TensorIterator's choices: the order in which it walks an op's dims, the layout it allocates
//! for an elementwise op's output, and `empty_like`'s preserve format (PyTorch's
//! `infer_dense_strides`), all from the operands' strides.

use super::layout::Layout;
use crate::strided::to_i64;

impl Layout {
    /// Strides of a fresh tensor made by `empty_like(self, preserve_format)` (clone, flip,
    /// casts): the same strides when `self` is non-overlapping and dense, else dense strides
    /// in the order of `self`'s strides (PyTorch's `infer_dense_strides`).
    pub fn empty_like_preserve(&self) -> Layout {
        if self.is_non_overlapping_and_dense() {
            return Layout::new(self.sizes(), self.strides(), 0);
        }
        let perm = iteration_order(self.ndim(), |d0, d1| {
            let (s0, s1) = (self.strides()[d0], self.strides()[d1]);
            if s0 == 0 || s1 == 0 {
                0
            } else if s0 != s1 {
                (s0 > s1) as i32 * 2 - 1
            } else {
                i32::from(self.sizes()[d0] > self.sizes()[d1])
            }
        });
        let mut strides = vec![0i64; self.ndim()];
        let mut cur = 1i64;
        for &d in &perm {
            strides[d] = cur;
            if self.sizes()[d] > 1 {
                cur = cur.saturating_mul(to_i64(self.sizes()[d]));
            }
        }
        Layout::new(self.sizes(), &strides, 0)
    }

    /// The dims in TensorIterator's iteration order, innermost first, for operands (output
    /// first) broadcast to `shape`.
    pub fn iteration_perm(shape: &[usize], operands: &[&Layout]) -> Vec<usize> {
        let nd = shape.len();
        if nd <= 1 {
            return (0..nd).collect();
        }
        let strides = broadcast_strides(shape, operands);
        iteration_order(nd, |d0, d1| {
            for st in &strides {
                let (s0, s1) = (st[d0], st[d1]);
                if s0 == 0 || s1 == 0 {
                    continue;
                }
                if s0 != s1 {
                    return (s0 > s1) as i32 * 2 - 1;
                }
                if shape[d0] > shape[d1] {
                    return 1;
                }
            }
            0
        })
    }

    /// The layout TensorIterator allocates for the output of an elementwise op over `inputs`
    /// broadcast to `shape`: the inputs' memory order where they agree, row-major otherwise.
    pub fn elementwise_output(shape: &[usize], inputs: &[&Layout]) -> Layout {
        let nd = shape.len();
        let same_shape = !inputs.is_empty() && inputs.iter().all(|l| l.sizes() == shape);
        if same_shape {
            if inputs.iter().all(|l| l.is_contiguous()) {
                return Layout::contiguous(shape);
            }
            let first = inputs[0].strides();
            if inputs.iter().all(|l| l.is_non_overlapping_and_dense() && l.strides() == first) {
                return Layout::new(shape, first, 0);
            }
        }
        let perm = Layout::iteration_perm(shape, inputs);
        if perm.iter().enumerate().all(|(i, &d)| d == nd - 1 - i) {
            return Layout::contiguous(shape);
        }
        let mut out = vec![0i64; nd];
        let mut cur = 1i64;
        for &d in &perm {
            out[d] = cur;
            cur = cur.saturating_mul(to_i64(shape[d]));
        }
        Layout::new(shape, &out, 0)
    }
}

/// The dims from innermost to outermost, by TensorIterator's insertion sort: start from
/// `n-1, ..., 0` and move a dim inward while `should_swap(outer, inner) > 0`; a 0 answer
/// (ambiguous) leaves the order as it is.
fn iteration_order(n: usize, should_swap: impl Fn(usize, usize) -> i32) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i in 1..n {
        let mut d1 = i;
        for d0 in (0..i).rev() {
            match should_swap(perm[d0], perm[d1]) {
                c if c > 0 => {
                    perm.swap(d0, d1);
                    d1 = d0;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
    perm
}

/// Each operand's strides over the broadcast shape; broadcast dims get 0 (TensorIterator then
/// ignores them when ordering dims).
fn broadcast_strides(shape: &[usize], operands: &[&Layout]) -> Vec<Vec<i64>> {
    let nd = shape.len();
    operands
        .iter()
        .map(|l| {
            let lead = nd - l.ndim();
            (0..nd)
                .map(
                    |d| if d < lead || (l.sizes()[d - lead] == 1 && shape[d] != 1) { 0 } else { l.strides()[d - lead] },
                )
                .collect()
        })
        .collect()
}
