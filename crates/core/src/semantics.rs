//! Whose rules a run follows, and the bridge's mirrored views: a leaf the engine's state and
//! [`crate::engine::bridge`] share (see there for the rules).

use crate::uop::StorageId;

/// Whose rules a run follows: PyTorch's (the product's main execution) or the bridge's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    #[default]
    Torch,
    Bridge,
}

/// A tracked bridge view that is not a strided window of its base's storage (a `reshape` of a
/// transposed view): its own storage, element `i` tied to base storage element `positions[i]`
/// (the flat index tensor the bridge's general write path computes).
#[derive(Clone, Debug)]
pub struct Mirror {
    pub view: StorageId,
    pub base: StorageId,
    pub positions: Vec<i64>,
}
