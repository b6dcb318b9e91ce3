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

/// The most tensors one split (`tensor_split(n)`, `chunk`, `split`) may return: as many as a
/// Python list may hold.
pub const MAX_PIECES: usize = 1 << 20;

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

/// What one engine's storages may hold, checked before a storage is kept: each storage's
/// elements and bytes, and the bytes of all storages held together (freed ones not counted;
/// see [`Reclaim`]). The default is the per-buffer limit alone ([`MAX_ELEMENTS`]); the page
/// sets a tighter one ([`StorageBudget::PAGE`]) to stay within a browser tab's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageBudget {
    /// The most elements one storage may have.
    pub elements: usize,
    /// The most bytes one storage may have.
    pub storage_bytes: usize,
    /// The most bytes all storages of a run may hold together.
    pub bytes: usize,
    /// Whether the run frees storages nothing reaches any more.
    pub reclaim: Reclaim,
}

/// What a run does with a storage nothing can reach any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reclaim {
    /// Keeps it: every storage stays readable to the end (the CLI's reports and kernel runs).
    Never,
    /// Frees its elements at the end of the statement that dropped it, as Python would; its
    /// id, dtype and version stay.
    Unreachable,
}

impl StorageBudget {
    /// The CLI's and the library's: each storage within [`MAX_ELEMENTS`], no other limit.
    pub const DEFAULT: StorageBudget =
        StorageBudget { elements: MAX_ELEMENTS, storage_bytes: usize::MAX, bytes: usize::MAX, reclaim: Reclaim::Never };

    /// The page's, per run (the page runs PyTorch's run and the bridge's, so twice this):
    /// 2^24 elements and 64 MiB per storage (a 4096 x 4096 float32 tensor), 128 MiB held
    /// together, storages nothing reaches freed at each statement's end. A write into the
    /// largest storage holds its storage indices (8 bytes an element), its value, the operands
    /// the interpreter reads and the bridge's positions for a moment: about 8 times the
    /// storage's bytes on top of both runs' storages, under 1 GB of wasm memory.
    pub const PAGE: StorageBudget =
        StorageBudget { elements: 1 << 24, storage_bytes: 64 << 20, bytes: 128 << 20, reclaim: Reclaim::Unreachable };

    /// Refuses a new storage of `len` elements of `itemsize` bytes when `used` bytes are held.
    pub fn check(&self, len: usize, itemsize: usize, used: usize) -> Result<()> {
        let bytes = len.saturating_mul(itemsize);
        if len > self.elements || bytes > self.storage_bytes {
            bail!(
                Limit,
                "a storage of {len} elements ({} MiB) would exceed the limit of {} elements and {} MiB per storage{}",
                mib(bytes),
                self.elements,
                mib(self.storage_bytes),
                self.whose()
            );
        }
        if used.saturating_add(bytes) > self.bytes {
            bail!(
                Limit,
                "a storage of {len} elements ({} MiB) would take this run's live storages past {} MiB together (they hold {} MiB){}",
                mib(bytes),
                mib(self.bytes),
                mib(used),
                self.whose()
            );
        }
        Ok(())
    }

    /// Refuses a value the interpreter would compute and hold (an intermediate, never kept as a
    /// storage) of `len` elements of `itemsize` bytes, past the bytes one storage may have: the
    /// page's run holds nothing larger than it may keep (a 2^26-element broadcast read through
    /// a transpose, 256 MiB of float32, is refused there; the same in `uint8`, 64 MiB, is not).
    pub fn check_held(&self, op: &str, shape: &[usize], len: usize, itemsize: usize) -> Result<()> {
        let bytes = len.saturating_mul(itemsize);
        if bytes > self.storage_bytes {
            bail!(
                Limit,
                "computing a {op} of shape {shape:?} would hold {} MiB, past the limit of {} MiB per value{}",
                mib(bytes),
                mib(self.storage_bytes),
                self.whose()
            );
        }
        Ok(())
    }

    /// Where this budget applies, for an error's message: nothing for the default.
    fn whose(&self) -> &'static str {
        if *self == StorageBudget::PAGE {
            " in the page (its tab's memory; the command-line tool allows 2^26 elements per tensor and no total)"
        } else {
            ""
        }
    }
}

impl Default for StorageBudget {
    fn default() -> Self {
        StorageBudget::DEFAULT
    }
}

fn mib(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_budget_refuses_large_storages_and_large_totals() {
        let page = StorageBudget::PAGE;
        assert!(page.check(1 << 24, 4, 0).is_ok());
        let e = page.check((1 << 24) + 1, 1, 0).unwrap_err().to_string();
        assert!(e.contains("16777216 elements and 64.0 MiB per storage in the page"), "{e}");
        assert!(page.check(1 << 24, 8, 0).is_err(), "a float64 4096 x 4096 is 128 MiB");
        assert!(page.check(1 << 24, 4, 64 << 20).is_ok());
        let e = page.check(1 << 24, 4, (64 << 20) + 1).unwrap_err().to_string();
        assert!(e.contains("past 128.0 MiB"), "{e}");
        assert!(StorageBudget::DEFAULT.check(1 << 26, 8, usize::MAX / 2).is_ok());
        assert!(StorageBudget::DEFAULT.check((1 << 26) + 1, 1, 0).is_err());
    }

    #[test]
    fn the_page_budget_holds_computed_values_to_a_storage_s_bytes() {
        let page = StorageBudget::PAGE;
        assert!(page.check_held("add", &[1 << 26], 1 << 26, 1).is_ok(), "64 MiB of uint8");
        let e = page.check_held("add", &[1 << 25], 1 << 25, 4).unwrap_err().to_string();
        assert!(e.contains("computing a add of shape [33554432] would hold 128.0 MiB, past the limit of 64.0 MiB per value in the page"), "{e}");
        assert!(StorageBudget::DEFAULT.check_held("add", &[1 << 26], 1 << 26, 8).is_ok());
    }
}
