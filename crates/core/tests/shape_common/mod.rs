//! Helpers shared by the shape test suites: one movement-op vocabulary (as the fixtures spell it)
//! and the check that the symbolic index agrees with the fast offset walk.

#![allow(dead_code)] // each suite uses a different subset

use stridelab_core::shape::tracker::ShapeTracker;

/// A movement op with its argument, as the tinygrad fixtures and the random chains spell it.
#[derive(Clone, Debug)]
pub enum Op {
    Reshape(Vec<usize>),
    Permute(Vec<usize>),
    Expand(Vec<usize>),
    Pad(Vec<(usize, usize)>),
    Shrink(Vec<(usize, usize)>),
    Flip(Vec<bool>),
}

pub fn apply(st: &ShapeTracker, op: &Op) -> stridelab_core::Result<ShapeTracker> {
    match op {
        Op::Reshape(a) => st.reshape(a),
        Op::Permute(a) => st.permute(a),
        Op::Expand(a) => st.expand(a),
        Op::Pad(a) => st.pad(a),
        Op::Shrink(a) => st.shrink(a),
        Op::Flip(a) => st.flip(a),
    }
}

/// Row-major coordinates of linear position `k` in `shape`.
pub fn coords(shape: &[usize], mut k: usize) -> Vec<i64> {
    let mut c = vec![0i64; shape.len()];
    for (x, &s) in c.iter_mut().zip(shape).rev() {
        *x = (k % s) as i64;
        k /= s;
    }
    c
}

/// index()/validity evaluated at every element must equal offsets(): valid iff Some, and then
/// the index equals the offset. Also checks the rendering is the Display of index().
pub fn check_index(st: &ShapeTracker, context: &str) {
    let (idx, valid) = st.index();
    let (idx_text, valid_text) = st.index_text();
    assert_eq!(idx_text, idx.to_string(), "{context}");
    assert_eq!(valid_text, valid.to_string(), "{context}");
    let offsets = st.offsets();
    assert_eq!(offsets.len(), st.numel(), "{context}");
    for (k, off) in offsets.iter().enumerate() {
        let vars = coords(st.shape(), k);
        let ok = valid.eval(&vars) != 0;
        assert_eq!(ok, off.is_some(), "{context}: validity {valid} at {vars:?}");
        if let Some(off) = off {
            assert_eq!(idx.eval(&vars), *off, "{context}: index {idx} at {vars:?}");
        }
    }
}
