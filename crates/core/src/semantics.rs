//! Whose rules a run follows, the bridge's mirrored views and its write plans: a leaf the engine's state and
//! [`crate::engine::bridge`] share (see there for the rules).

use crate::cells::CellList;
use crate::uop::{StorageId, UOpId};

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

/// A bridge tensor outside the view table (`clone`, `unfold`, `flip`, an elementwise result)
/// computed from a base that tinygrad holds as a buffer (one the bridge has assigned into, or
/// a tensor literal): tinygrad keeps it a lazy graph over that buffer, and the bridge's later
/// assigns write the buffer in place, so it reads the base as it is when it is realized, not
/// as it was when it was made. Its storage is recomputed from `node` after every write into
/// a storage it reads, then the writes into it since (`replace`s of its own graph) are
/// applied again in order.
#[derive(Clone, Debug)]
pub struct Lazy {
    pub storage: StorageId,
    pub node: UOpId,
    /// The writes into it: each value's node and the storage elements it lands in.
    pub writes: Vec<(UOpId, Vec<i64>)>,
    /// Every storage `node` and the writes read.
    pub reads: Vec<StorageId>,
    /// For a tensor made by movement ops alone (`flip`, `unfold`, and those of such tensors):
    /// the storage they lead down to and the position of it each element reads. tinygrad's
    /// `assign` to such a tensor over a buffer walks the movement ops down and writes into
    /// the buffer itself.
    pub positions: Option<(StorageId, Vec<i64>)>,
    /// The version of each storage it reads when it was made: the graph tinygrad keeps
    /// reads that version, or a later one if something realized it first.
    pub born: Vec<(StorageId, u64)>,
}

/// How the bridge writes an in-place op's value (see `Engine::bridge_op`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BridgeWrite {
    #[default]
    /// `_apply_inplace`'s `assign` (and the general path's scatter): `wrap_out`, `copy_`, a
    /// write through a view, any write into a tensor a view was made of.
    Assign,
    /// `_inplace_op`'s `replace` of the target's graph: one of the bridge's own in-place ops
    /// on a tensor that is no view and was never viewed.
    Own,
}

/// Where a bridge write lands (see [`Lazy::positions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// In the target's storage.
    Target,
    /// Through the target's movement ops, in the buffer it reads.
    Through,
}

/// What the bridge's `_apply_inplace` does for one write, in its own terms: the flat positions
/// of the canonical base it writes (the index tensor `_view_write` builds) and whether that is
/// the whole base in order, which it assigns without an index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePlan {
    /// The canonical base's storage.
    pub base: StorageId,
    /// Its element count.
    pub base_len: usize,
    /// The base positions written, in the target's element order.
    pub positions: CellList,
    /// The target is a reshape of a non-contiguous view, whose own storage the bridge keeps
    /// in step with the base ([`Mirror`]).
    pub through_mirror: bool,
}

/// The two ways the bridge writes into a base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePath {
    /// Every base position in order: the base itself, or a chain of reshapes undone by
    /// reshaping the value back (`base.assign(val.reshape(base.shape))`).
    Assign,
    /// The general path: a flat index, a clone of the base, a scatter (a later duplicate
    /// position wins) and the base replaced.
    Scatter,
}

impl WritePlan {
    pub fn path(&self) -> WritePath {
        let in_order = self.positions.iter().enumerate().all(|(i, p)| p == i as i64);
        if in_order && self.positions.len() == self.base_len {
            WritePath::Assign
        } else {
            WritePath::Scatter
        }
    }
}
