//! PyTorch's memory-overlap rules (ATen's `MemoryOverlap.cpp`), so the playground refuses the
//! same in-place writes PyTorch refuses and can paint the elements involved.
//!
//! PyTorch only proves overlap cheaply: a layout is known free of internal overlap when it is
//! non-overlapping and dense, known overlapping when a dim of size > 1 has stride 0 (an
//! `expand`), and "too hard" otherwise — and "too hard" never raises. Between two layouts of one
//! storage it compares the `[offset, offset + numel)` ranges of dense layouts only.
//!
//! Which in-place writes check what, verified against PyTorch 2.x (`e` is an expanded view
//! `zeros(4, 1).expand(4, 4)`: internal overlap `Yes`; `u` an overlapping `unfold`: `TooHard`;
//! "input" is a tensor argument sharing the target's storage):
//!
//! | write                                   | target `Yes` (`e`) | target `TooHard` (`u`) | input/target `Partial` |
//! |-----------------------------------------|--------------------|------------------------|------------------------|
//! | `add_`, `sub_`, `mul_`, `div_`, `+=`     | error              | accepted               | error                  |
//! | `clamp_` (scalar or tensor bounds)      | error              | accepted               | error                  |
//! | `neg_`, `relu_`                         | error              | accepted               | (no input)             |
//! | `zero_`, `fill_(scalar)`                | accepted           | accepted               | (no input)             |
//! | `fill_(0-d tensor)`                     | error              | accepted               | accepted (`a.fill_(a[0, 0])`) |
//! | `copy_(src)`                            | error              | accepted               | error                  |
//! | `a[i] = scalar` (a fill)                | accepted           | accepted               | (no input)             |
//! | `a[i] = tensor` (a `copy_`)             | error              | accepted               | error                  |
//! | `torch.add(x, 1, out=t)`, `neg(out=)`   | error              | accepted               | error                  |
//!
//! The "error" texts are [`INTERNAL_OVERLAP_MESSAGE`] and [`PARTIAL_OVERLAP_MESSAGE`]. Writing a
//! tensor into itself is always fine (`a.add_(a)`, `a.copy_(a)`, even `e.copy_(e)`: `copy_`
//! returns early whenever source and target have equal layouts in one storage), and so is a `Full` overlap of two views (`a.add_(a.view(4, 4))`). An input
//! that is not dense is `TooHard` and accepted (`a.add_(a[0].expand(4, 4))`,
//! `a[:, ::2] = a[:, 1::2]`), while `a += a.t()`, `a[1:] = a[:-1]` and `a.add_(a[0])` (the
//! input is checked before broadcasting) are `Partial` and refused.

use super::layout::Layout;
use crate::error::{Error, Result};

/// PyTorch's text when a write's target refers to one element more than once.
pub const INTERNAL_OVERLAP_MESSAGE: &str = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";

/// PyTorch's text when a write's input and target partially share elements.
pub const PARTIAL_OVERLAP_MESSAGE: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";

/// How many shared or repeated storage indices the UI is given to paint.
pub const ELEMENTS_CAP: usize = 4096;

/// Internal overlap of one layout (`at::MemOverlap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOverlap {
    No,
    Yes,
    TooHard,
}

/// Overlap between two layouts of the same storage (`at::MemOverlapStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOverlapStatus {
    Full,
    Partial,
    No,
    TooHard,
}

/// `at::has_internal_overlap`: only a broadcast dim (size > 1, stride 0) counts as proof.
pub fn has_internal_overlap(l: &Layout) -> MemOverlap {
    if l.is_non_overlapping_and_dense() {
        return MemOverlap::No;
    }
    if l.sizes().iter().zip(l.strides()).any(|(&size, &stride)| size > 1 && stride == 0) {
        return MemOverlap::Yes;
    }
    MemOverlap::TooHard
}

/// `at::get_overlap_status` for two layouts already known to share a storage. PyTorch starts by
/// comparing tensor identity; layouts carry none, so equal layouts stand for the same tensor and
/// are `Full` (two distinct PyTorch tensors with one non-dense layout would be `TooHard`, which no
/// write check treats differently from `Full`).
pub fn overlap_status(a: &Layout, b: &Layout) -> MemOverlapStatus {
    if a == b {
        return MemOverlapStatus::Full;
    }
    if a.numel() == 0 || b.numel() == 0 {
        return MemOverlapStatus::No;
    }
    if !a.is_non_overlapping_and_dense() || !b.is_non_overlapping_and_dense() {
        return MemOverlapStatus::TooHard;
    }
    // A dense layout covers exactly `numel` consecutive elements starting at its offset.
    let range = |l: &Layout| (l.offset(), l.offset() + i64::try_from(l.numel()).unwrap_or(i64::MAX));
    let (a_begin, a_end) = range(a);
    let (b_begin, b_end) = range(b);
    if a_begin == b_begin && a_end == b_end {
        return if a.strides() == b.strides() { MemOverlapStatus::Full } else { MemOverlapStatus::Partial };
    }
    if a_begin < b_end && b_begin < a_end {
        return MemOverlapStatus::Partial;
    }
    MemOverlapStatus::No
}

/// TensorIterator's check before an elementwise write (in-place op, `out=`, `copy_`): the
/// target must not provably repeat an element, and no input may partially overlap it. Every
/// input must live in the target's storage (inputs elsewhere cannot overlap). The refusal
/// carries the elements to paint. `copy_` between equal layouts of one storage (the same
/// tensor, or another view of the very same elements) returns before any check in PyTorch, so
/// its caller skips this call then.
pub fn check_write(target: &Layout, inputs: &[&Layout]) -> Result<()> {
    if has_internal_overlap(target) == MemOverlap::Yes {
        return Err(Error::Overlap {
            message: INTERNAL_OVERLAP_MESSAGE.to_string(),
            elements: repeated_elements(target),
        });
    }
    for input in inputs {
        if overlap_status(target, input) == MemOverlapStatus::Partial {
            return Err(Error::Overlap {
                message: PARTIAL_OVERLAP_MESSAGE.to_string(),
                elements: shared_elements(target, input),
            });
        }
    }
    Ok(())
}

/// Storage indices that `a` and `b` both touch: sorted, deduplicated, at most [`ELEMENTS_CAP`].
pub fn shared_elements(a: &Layout, b: &Layout) -> Vec<i64> {
    let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (a.storage_span(), b.storage_span()) else {
        return Vec::new();
    };
    if a_hi < b_lo || b_hi < a_lo {
        return Vec::new();
    }
    let xs = sorted_unique(a.storage_indices());
    let ys = sorted_unique(b.storage_indices());
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < xs.len() && j < ys.len() && out.len() < ELEMENTS_CAP {
        match xs[i].cmp(&ys[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(xs[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Storage indices that more than one element of `a` maps to: sorted, deduplicated, at most
/// [`ELEMENTS_CAP`].
pub fn repeated_elements(a: &Layout) -> Vec<i64> {
    if has_internal_overlap(a) == MemOverlap::No {
        return Vec::new();
    }
    let mut all = a.storage_indices();
    all.sort_unstable();
    let mut out: Vec<i64> = Vec::new();
    for pair in all.windows(2) {
        if pair[0] == pair[1] && out.last() != Some(&pair[0]) {
            out.push(pair[0]);
            if out.len() == ELEMENTS_CAP {
                break;
            }
        }
    }
    out
}

fn sorted_unique(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v.dedup();
    v
}
