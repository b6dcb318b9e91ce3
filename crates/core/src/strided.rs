//! Strided indexing shared by every layer: PyTorch's dim wrapping, row-major strides (PyTorch's
//! and tinygrad's), and the one row-major walk over a strided box ([`Odometer`],
//! [`StridedIndex`]). A leaf: it imports nothing but the error type.

use crate::error::{bail, Result};

/// A size as i64 for signed stride arithmetic. Sizes never exceed `i64::MAX` elements in a valid
/// layout (every op that creates sizes checks the element count), so this saturates only on a
/// caller's bug.
pub fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Python-style wrapping of a negative dim (`-1` is the last). A 0-d tensor accepts 0 and -1
/// as if it had one dim, as ATen's `maybe_wrap_dim` does by default.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = to_i64(ndim.max(1));
    let (min, max) = (-n, n - 1);
    if dim < min || dim > max {
        bail!(Index, "Dimension out of range (expected to be in range of [{min}, {max}], but got {dim})");
    }
    // In range [0, n) by the check above.
    Ok(if dim < 0 { dim + n } else { dim } as usize)
}

/// PyTorch's contiguous strides: row-major, every dim included, a size-0 dim counted as 1.
pub fn row_major_strides(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc: i64 = 1;
    for (st, &s) in strides.iter_mut().zip(shape).rev() {
        *st = acc;
        acc = acc.saturating_mul(to_i64(s.max(1)));
    }
    strides
}

/// Row-major strides with size-1 dims at stride 0 (tinygrad's `strides_for_shape`, which its
/// PyTorch bridge also reports).
pub fn strides_for_shape(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1i64;
    for (st, &s) in strides.iter_mut().zip(shape).rev() {
        if s != 1 {
            *st = acc;
        }
        acc = acc.saturating_mul(to_i64(s));
    }
    strides
}

/// A row-major multi-index over `dims` that moves any number of strided offsets along with it:
/// the odometer behind every strided walk. Callers that copy rows walk the outer dims with it
/// and the innermost dim with a tight loop of their own.
pub struct Odometer<'a> {
    dims: &'a [usize],
    index: Vec<usize>,
}

impl<'a> Odometer<'a> {
    /// Starts at index zero.
    pub fn new(dims: &'a [usize]) -> Self {
        Odometer { dims, index: vec![0; dims.len()] }
    }

    /// The current multi-index.
    pub fn index(&self) -> &[usize] {
        &self.index
    }

    /// Steps to the next index, moving `offsets[j]` by `strides[j]`; `false` (index and
    /// offsets back at the start) once it wraps past the first dim.
    pub fn step(&mut self, offsets: &mut [i64], strides: &[&[i64]]) -> bool {
        let mut d = self.dims.len();
        loop {
            if d == 0 {
                return false;
            }
            d -= 1;
            self.index[d] += 1;
            for (o, st) in offsets.iter_mut().zip(strides) {
                *o += st[d];
            }
            if self.index[d] < self.dims[d] {
                return true;
            }
            for (o, st) in offsets.iter_mut().zip(strides) {
                *o -= st[d] * to_i64(self.dims[d]);
            }
            self.index[d] = 0;
        }
    }
}

/// The storage offset of every index of `dims` in row-major order, from `offset` by `strides`
/// (nothing when a dim is 0; one offset for no dims).
pub struct StridedIndex<'a> {
    odometer: Odometer<'a>,
    strides: &'a [i64],
    next: Option<i64>,
}

impl<'a> StridedIndex<'a> {
    pub fn new(dims: &'a [usize], strides: &'a [i64], offset: i64) -> Self {
        let next = (!dims.contains(&0)).then_some(offset);
        StridedIndex { odometer: Odometer::new(dims), strides, next }
    }
}

impl Iterator for StridedIndex<'_> {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        let current = self.next?;
        let mut at = current;
        self.next = self.odometer.step(std::slice::from_mut(&mut at), &[self.strides]).then_some(at);
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_index_walks_row_major() {
        let offs: Vec<i64> = StridedIndex::new(&[2, 3], &[1, 2], 5).collect();
        assert_eq!(offs, [5, 7, 9, 6, 8, 10]);
        assert_eq!(StridedIndex::new(&[], &[], 4).collect::<Vec<_>>(), [4]);
        assert_eq!(StridedIndex::new(&[2, 0], &[1, 1], 0).count(), 0);
    }

    #[test]
    fn strides_of_a_shape() {
        assert_eq!(row_major_strides(&[2, 1, 3]), [3, 3, 1]);
        assert_eq!(row_major_strides(&[2, 0, 3]), [3, 3, 1]);
        assert_eq!(strides_for_shape(&[2, 1, 3]), [3, 0, 1]);
    }
}
