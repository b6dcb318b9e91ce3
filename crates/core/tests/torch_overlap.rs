//! Cross-checks the element-level helpers (`storage_indices`, `storage_span`, `shared_elements`,
//! `repeated_elements`) against a direct enumeration, on layouts PyTorch itself cannot build
//! (negative strides, large broadcasts) as well as ordinary ones, including the 4096 cap.

use std::collections::{BTreeMap, BTreeSet};

use stridelab_core::torch::layout::Layout;
use stridelab_core::torch::overlap::{
    has_internal_overlap, overlap_status, repeated_elements, shared_elements, MemOverlap, MemOverlapStatus,
    ELEMENTS_CAP,
};

/// Storage index of every element, by recursion over dims in row-major order.
fn enumerate(l: &Layout) -> Vec<i64> {
    fn walk(l: &Layout, d: usize, at: i64, out: &mut Vec<i64>) {
        if d == l.ndim() {
            out.push(at);
            return;
        }
        for i in 0..l.sizes()[d] {
            walk(l, d + 1, at + i as i64 * l.strides()[d], out);
        }
    }
    let mut out = Vec::new();
    walk(l, 0, l.offset(), &mut out);
    out
}

fn check_pair(a: &Layout, b: &Layout) {
    let (ea, eb) = (enumerate(a), enumerate(b));
    assert_eq!(a.storage_indices(), ea, "indices of {a:?}");
    let span = ea.iter().min().zip(ea.iter().max()).map(|(x, y)| (*x, *y));
    assert_eq!(a.storage_span(), span, "span of {a:?}");
    let sa: BTreeSet<i64> = ea.iter().copied().collect();
    let sb: BTreeSet<i64> = eb.iter().copied().collect();
    let shared: Vec<i64> = sa.intersection(&sb).copied().take(ELEMENTS_CAP).collect();
    assert_eq!(shared_elements(a, b), shared, "shared {a:?} {b:?}");
    let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
    ea.iter().for_each(|i| *counts.entry(*i).or_default() += 1);
    let repeated: Vec<i64> = counts.iter().filter(|(_, &c)| c > 1).map(|(i, _)| *i).take(ELEMENTS_CAP).collect();
    assert_eq!(repeated_elements(a), repeated, "repeated {a:?}");
    // A "No" verdict is a proof: such a layout never repeats an element.
    if has_internal_overlap(a) == MemOverlap::No {
        assert_eq!(sa.len(), ea.len(), "{a:?} claims no overlap");
    }
    // A "No" status between two layouts is a proof too.
    if overlap_status(a, b) == MemOverlapStatus::No {
        assert!(shared.is_empty(), "{a:?} {b:?} claim disjoint");
    }
}

#[test]
fn element_helpers_match_enumeration() {
    let l = |s: &[usize], st: &[i64], o: i64| Layout::new(s, st, o);
    let cases = [
        (l(&[3, 4], &[4, 1], 0), l(&[4, 3], &[1, 4], 0)),
        (l(&[3, 4], &[4, 1], 0), l(&[2, 4], &[4, 1], 4)),
        (l(&[4], &[-1], 3), l(&[2], &[1], 2)),
        (l(&[3, 3], &[-3, -1], 8), l(&[3], &[4], 0)),
        (l(&[5, 4], &[0, 1], 2), l(&[4], &[1], 4)),
        (l(&[7, 4], &[2, 1], 0), l(&[12], &[1], 4)),
        (l(&[], &[], 5), l(&[2, 0], &[1, 1], 5)),
        (l(&[2, 0], &[1, 1], 5), l(&[], &[], 5)),
        (l(&[1, 1, 3], &[9, 9, 2], 1), l(&[2, 2], &[2, 1], 0)),
        (l(&[100, 100], &[100, 1], 0), l(&[100, 100], &[1, 100], 0)),
        (l(&[6000, 2], &[1, 1], 0), l(&[5000], &[1], 3)),
        (l(&[3, 2, 2], &[0, 2, 1], 1), l(&[3, 2, 2], &[0, 2, 1], 1)),
    ];
    for (a, b) in &cases {
        check_pair(a, b);
        check_pair(b, a);
    }
}
