//! Resource limits, and the element-count checks that enforce them: a request past a limit is
//! refused with a `Limit` error instead of being allocated. A leaf: every layer may use it.

use crate::error::{bail, Result};

/// The most elements one buffer may have (a storage, anything the interpreter holds, the values
/// a report lists): larger requests are refused, not allocated.
pub const MAX_ELEMENTS: usize = 1 << 26;

/// The most elements a lazy node may have. A node that is never stored (matmul's broadcast
/// product, a convolution's windows times its weight) costs nothing until it runs, and runs as a
/// loop; what bounds it is index arithmetic, which kernels do in i32.
pub const MAX_LAZY_ELEMENTS: usize = i32::MAX as usize;

/// The number of elements of `shape`, or `None` when it overflows `usize`.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    checked_numel_within(shape, usize::MAX)
}

/// The number of elements of `shape`, or `None` when a running product (each leading dims'
/// count, the whole included) exceeds `max`.
pub fn checked_numel_within(shape: &[usize], max: usize) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d).filter(|&n| n <= max))
}

/// Refuses a shape with more elements than a buffer may hold ([`MAX_ELEMENTS`]).
pub fn check_numel(shape: &[usize]) -> Result<()> {
    match checked_numel(shape) {
        Some(n) if n <= MAX_ELEMENTS => Ok(()),
        _ => bail!(Limit, "a tensor of shape {shape:?} would exceed the limit of {MAX_ELEMENTS} elements"),
    }
}

/// Refuses a lazy node whose element count could overflow index arithmetic ([`MAX_LAZY_ELEMENTS`]).
pub fn check_lazy_numel(shape: &[usize]) -> Result<()> {
    match checked_numel(shape) {
        Some(n) if n <= MAX_LAZY_ELEMENTS => Ok(()),
        _ => bail!(
            Limit,
            "a tensor of shape {shape:?} would exceed the limit of {MAX_LAZY_ELEMENTS} elements of a lazy view or computation"
        ),
    }
}
