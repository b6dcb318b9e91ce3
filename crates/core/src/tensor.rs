//! Tensors and the engine that owns their storages.
//!
//! A [`Tensor`] carries three models of the same value side by side, because showing where they
//! disagree is the product: PyTorch's layout (sizes, strides, storage_offset and which storage it
//! aliases), tinygrad's view stack (where flip, pad and every reshape stay views), and what
//! tinygrad's PyTorch bridge would report. Its values come from the lazy UOp graph: every op
//! appends nodes, and a result is realized by the reference interpreter into a storage at the end
//! of a statement (or before a write could change what it reads).
//!
//! The elementwise graph builders (`binary`, `unary`, `cast`, `where_`, PyTorch's promotion and
//! broadcasting) are in `tensor/elementwise.rs`.

use std::collections::HashMap;

use crate::autograd::GradOp;
use crate::cells::CellList;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::identity::{CounterId, Identities, ObjectId};
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use crate::strided::strides_for_shape;
use crate::torch::layout::Layout;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::interp::{self, Storages};
use crate::uop::{Graph, Op, StorageId, UOpId};

use crate::limits::{check_numel, StorageBudget, MAX_ELEMENTS};

mod elementwise;

/// How [`Engine::movement_copy`] lays out the copy: like the source (`empty_like`'s preserve
/// format, as flip does) or row-major. An enum rather than a bool parameter so a call says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyLayout {
    LikeSource,
    RowMajor,
}

/// Whether a tensor is a view of another's storage or the first tensor over its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aliasing {
    View,
    Owner,
}

/// Where a tensor's elements live, in PyTorch's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageRef {
    Realized(StorageId),
    /// The output of a computation not yet run; index into the engine's pending table.
    Pending(usize),
}

/// What tinygrad's PyTorch bridge reports for a tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Bridge {
    pub shape: Vec<usize>,
    pub strides: Vec<i64>,
    pub offset: i64,
}

impl Bridge {
    /// Fresh tensors: contiguous strides of the shape, with stride 0 on size-1 dims.
    pub fn fresh(shape: &[usize]) -> Bridge {
        Bridge { shape: shape.to_vec(), strides: strides_for_shape(shape), offset: 0 }
    }

    /// Views keep the source's offset; only slices add to it.
    fn view(&self, shape: &[usize], extra_offset: i64) -> Bridge {
        Bridge { shape: shape.to_vec(), strides: strides_for_shape(shape), offset: self.offset + extra_offset }
    }
}

/// Which output of a multi-output op (as the trace called it) a tensor is: `unbind` output 2
/// of 3. `multi_output_node` is PyTorch's autograd node when all outputs are views of one node
/// (`SplitBackward0` for `split`/`chunk`), whose outputs refuse in-place writes under autograd;
/// `None` where each output is a view of its own (`tensor_split`'s slices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOf {
    pub op: &'static str,
    pub index: usize,
    pub count: usize,
    pub multi_output_node: Option<&'static str>,
}

#[derive(Clone, Debug)]
pub struct Tensor {
    node: UOpId,
    dtype: DType,
    layout: Layout,
    storage: StorageRef,
    aliasing: Aliasing,
    tg: ShapeTracker,
    bridge: Bridge,
    output_of: Option<Box<OutputOf>>,
    /// Why a new storage was made where a view might be expected (advanced indexing's copy).
    copy_reason: Option<&'static str>,
    /// The Python object, its version counter and, for a view, its `_base` (see [`crate::identity`]).
    pub(crate) object: ObjectId,
    pub(crate) counter: CounterId,
    pub(crate) base: Option<std::sync::Arc<Tensor>>,
}

impl crate::autograd::Object for Tensor {
    fn object(&self) -> ObjectId {
        self.object
    }
}

impl Tensor {
    /// Which Python object this is.
    pub fn object_id(&self) -> ObjectId {
        self.object
    }
    pub fn node(&self) -> UOpId {
        self.node
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        self.layout.sizes()
    }
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn storage(&self) -> StorageRef {
        self.storage
    }
    /// PyTorch's `_is_view()`: whether the tensor has a `_base`. `detach()`, `.data` and
    /// `view(dtype)` share their source's storage without being views in this sense.
    pub fn is_view(&self) -> bool {
        self.base.is_some()
    }
    /// Whether the tensor reads another tensor's storage (any alias: a view, `detach()`,
    /// `.data`, `view(dtype)`), as opposed to being the first tensor over it.
    pub fn is_alias(&self) -> bool {
        self.aliasing == Aliasing::View
    }
    /// The same tensor with `base` as its `_base` (an op whose result PyTorch returns as a
    /// view of an internal tensor, as `repeat_interleave` flattens its clone).
    pub(crate) fn with_base(self, base: Tensor) -> Tensor {
        Tensor { base: Some(std::sync::Arc::new(base)), ..self }
    }
    /// The same tensor without a `_base` (an alias PyTorch does not count as a view).
    pub(crate) fn without_base(self) -> Tensor {
        Tensor { base: None, ..self }
    }
    pub fn tinygrad(&self) -> &ShapeTracker {
        &self.tg
    }
    pub fn bridge(&self) -> &Bridge {
        &self.bridge
    }
    /// Replaces what the bridge reports (for ops whose bridge result differs from PyTorch's).
    pub(crate) fn set_bridge(&mut self, bridge: Bridge) {
        self.bridge = bridge;
    }
    /// Replaces tinygrad's tracker (for ops whose tinygrad form differs from PyTorch's).
    pub(crate) fn set_tinygrad(&mut self, tg: ShapeTracker) {
        self.tg = tg;
    }
    /// Which output of a multi-output op this tensor is, if it is one.
    pub fn output_of(&self) -> Option<&OutputOf> {
        self.output_of.as_deref()
    }
    pub(crate) fn set_output_of(&mut self, output_of: OutputOf) {
        self.output_of = Some(Box::new(output_of));
    }
    /// Why the tensor is a copy, where the op says (advanced indexing).
    pub fn copy_reason(&self) -> Option<&'static str> {
        self.copy_reason
    }
    pub(crate) fn set_copy_reason(&mut self, why: &'static str) {
        self.copy_reason = Some(why);
    }
    /// `self`'s storage and layout as the Python object `object` (an in-place metadata op:
    /// the same object, counter, `_base` and view-ness, reading differently).
    pub(crate) fn into_object(self, object: &Tensor) -> Tensor {
        let (counter, base, aliasing) = (object.counter, object.base.clone(), object.aliasing);
        Tensor { object: object.object, counter, base, aliasing, ..self }
    }
    /// `self` as a new object that is not a view, with a counter of its own (`.data`).
    pub(crate) fn into_fresh_owner(self, object: ObjectId, counter: CounterId) -> Tensor {
        Tensor { object, counter, base: None, aliasing: Aliasing::Owner, ..self }
    }
    /// Whether `self` and `other` are the same Python object.
    pub fn same_object(&self, other: &Tensor) -> bool {
        self.object == other.object
    }
}

/// An operand of an elementwise op: a tensor or a Python scalar.
#[derive(Clone, Debug)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(Scalar),
}

#[derive(Clone, Debug)]
pub struct Storage {
    pub data: Data,
    /// PyTorch's `_version`: bumped once per in-place op on any alias of the storage.
    pub version: u64,
}

/// The storages a trace has created, plus its graph.
#[derive(Default)]
pub struct Engine {
    pub(crate) graph: Graph,
    pub(crate) storages: Vec<Storage>,
    pub(crate) buffer_nodes: Vec<UOpId>,
    pending: Vec<Pending>,
    pub(crate) events: Vec<Event>,
    pub(crate) ids: Identities,
    /// Notes on what the engine did, each at the event count when it was made (so a step,
    /// which owns a range of events, finds its own).
    notes: Vec<(usize, &'static str)>,
    /// The random number generators of the run (see [`crate::random`]).
    pub(crate) generators: crate::random::Generators,
    /// Autograd's graph and per-tensor state (see [`crate::autograd`]).
    pub(crate) ag: crate::autograd::Autograd<Tensor>,
    /// The writes a backward made into `.grad` storages, until the statement takes them.
    pub(crate) grad_writes: Vec<Write>,
    /// The nodes the last backward ran, in order, until the statement takes them.
    pub(crate) backward_log: Vec<crate::autograd::BackwardEntry>,
    /// Whose rules the run follows (see [`crate::engine::bridge`]).
    pub(crate) semantics: crate::semantics::Semantics,
    /// The bridge's tracked views that no strided window expresses (bridge runs only).
    pub(crate) mirrors: Vec<crate::semantics::Mirror>,
    /// The bridge's tensors that stay lazy graphs over a buffer (bridge runs only).
    pub(crate) lazies: Vec<crate::semantics::Lazy>,
    /// The storages tinygrad holds as buffers in the bridge: assigned into, or literals.
    pub(crate) buffers: std::collections::HashSet<StorageId>,
    /// How the bridge writes the in-place op being run (see [`Engine::bridge_op`]).
    pub(crate) bridge_via: crate::semantics::BridgeWrite,
    /// Nodes of bridge tensors made by movement ops alone outside its view table (`flip`,
    /// `unfold`), which stay movement graphs over their source ([`crate::semantics::Lazy`]).
    pub(crate) movement_nodes: std::collections::HashSet<UOpId>,
    /// Storage contents kept from before a bridge write, by (storage, version), where a lazy
    /// tensor was made at that version: what it reads if it is realized before the write runs.
    pub(crate) snapshots: HashMap<(StorageId, u64), Data>,
    /// The storages the bridge's view ops have made a view of (its `_views` is set).
    pub(crate) viewed: std::collections::HashSet<StorageId>,
    /// Writes the bridge's view refreshes made, for the runner's observers.
    pub(crate) refreshed: Vec<Write>,
    /// The bridge's plans of the writes made since the runner last took them.
    pub(crate) plans: Vec<crate::semantics::WritePlan>,
    /// What the storages may hold ([`Engine::limit_storages`]), and the bytes they hold now.
    pub(crate) budget: StorageBudget,
    pub(crate) stored_bytes: usize,
    /// Storages [`Engine::reclaim`] freed: their elements are gone.
    pub(crate) freed: std::collections::HashSet<StorageId>,
    /// Storages [`Engine::reclaim`] kept, and how many storages it has looked at.
    pub(crate) held: (Vec<StorageId>, usize),
    /// What the autograd graph's nodes hold, gathered as nodes are added (see
    /// [`crate::engine::reclaim`]).
    pub(crate) node_held: NodeHeld,
}

/// The storages the autograd graph's nodes hold. Nodes are only added, and what a node holds
/// is fixed once its statement ends, until a backward frees it: so only new nodes are looked
/// at, and everything again after a free. A long chain costs linear time, not quadratic.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeHeld {
    pub(crate) storages: Vec<StorageId>,
    /// Nodes looked at, and `Autograd::frees` then.
    pub(crate) scanned: usize,
    pub(crate) frees: u64,
}

/// What the engine ran, in order: the input a scheduler needs to turn a statement into kernels.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// `node` was computed into the fresh storage `storage` (row-major of the node's shape).
    Realize { node: UOpId, storage: StorageId },
    /// The `Store` node `node` wrote into `storage`.
    Store { node: UOpId, storage: StorageId },
    /// The interpreter changed `storage` itself, as no kernel does (a write through a dtype view,
    /// `resize_` growing it): schedules skip it, and a backend takes the storage as given.
    Host { storage: StorageId },
}

#[derive(Clone, Debug)]
struct Pending {
    producer: UOpId,
    realized: Option<StorageId>,
    /// The storages the producer reads, found when a write first asks.
    reads: Option<Box<[StorageId]>>,
}

impl Storages for Vec<Storage> {
    fn data(&self, id: StorageId) -> &Data {
        &self[id].data
    }
}

/// A record of one write: which storage, which elements (storage indices, in write order).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Write {
    pub storage: StorageId,
    pub elements: CellList,
}

/// How an in-place op treats overlap, as PyTorch's kernels do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverlapRules {
    /// Refuse a target whose elements share memory (stride 0 on a dim of size > 1).
    pub internal: bool,
    /// Refuse an input that partially overlaps the target.
    pub partial: bool,
}

impl OverlapRules {
    pub const ALL: OverlapRules = OverlapRules { internal: true, partial: true };
    pub const NONE: OverlapRules = OverlapRules { internal: false, partial: false };
}

impl Engine {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn storage(&self, id: StorageId) -> &Storage {
        &self.storages[id]
    }

    pub fn storage_count(&self) -> usize {
        self.storages.len()
    }

    /// Everything realized or stored so far, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Notes a fact about the op being run (PyTorch leaves its result undefined, ...); it
    /// belongs to the event the op logs next.
    pub(crate) fn note(&mut self, text: &'static str) {
        self.notes.push((self.events.len(), text));
    }

    /// The notes made while the events `range` were logged.
    pub fn notes_within(&self, range: std::ops::Range<usize>) -> Vec<&'static str> {
        let mut out: Vec<&'static str> =
            self.notes.iter().filter(|(at, _)| range.contains(at)).map(|&(_, n)| n).collect();
        out.dedup();
        out
    }

    /// Runs the computation `node` into a fresh storage and logs it.
    fn realize_node(&mut self, node: UOpId) -> Result<StorageId> {
        let n = self.graph.node(node);
        // Refused before the interpreter computes it.
        self.budget.check(n.shape.iter().product(), n.dtype.itemsize(), self.stored_bytes)?;
        let data = interp::realize_within(&self.graph, &self.storages, node, &self.budget)?;
        let id = self.new_storage(data)?;
        self.events.push(Event::Realize { node, storage: id });
        self.bridge_track_lazy(node, id);
        Ok(id)
    }

    // ---------------------------------------------------------------- storages and realization

    /// Keeps `data` as a new storage, within the engine's [`StorageBudget`].
    fn new_storage(&mut self, data: Data) -> Result<StorageId> {
        let id = self.storages.len();
        let len = data.len();
        let dtype = data.dtype();
        self.budget.check(len, dtype.itemsize(), self.stored_bytes)?;
        self.stored_bytes += len * dtype.itemsize();
        self.storages.push(Storage { data, version: 0 });
        let node = self.graph.push(Op::Buffer(id), dtype, vec![len], vec![]);
        self.buffer_nodes.push(node);
        Ok(id)
    }

    /// Holds this engine's storages to `budget` from now on (the page's is
    /// [`StorageBudget::PAGE`]).
    pub fn limit_storages(&mut self, budget: StorageBudget) {
        self.budget = budget;
    }

    pub fn storage_budget(&self) -> StorageBudget {
        self.budget
    }

    /// Counts storage `s` as grown to `len` elements (more than it has), within the budget.
    pub(crate) fn reserve_growth(&mut self, s: StorageId, len: usize) -> Result<()> {
        let data = &self.storages[s].data;
        let (old, itemsize) = (data.len() * data.dtype().itemsize(), data.dtype().itemsize());
        self.budget.check(len, itemsize, self.stored_bytes - old)?;
        self.stored_bytes = self.stored_bytes - old + len * itemsize;
        Ok(())
    }

    /// A new tensor over a fresh contiguous storage holding `data`.
    pub fn from_data(&mut self, data: Data, shape: &[usize]) -> Result<Tensor> {
        check_numel(shape)?;
        assert_eq!(data.len(), shape.iter().product::<usize>(), "data does not fill the shape");
        let dtype = data.dtype();
        let s = self.new_storage(data)?;
        Ok(self.over_storage(
            StorageRef::Realized(s),
            dtype,
            Layout::contiguous(shape),
            Aliasing::Owner,
            ShapeTracker::from_shape(shape),
            Bridge::fresh(shape),
        ))
    }

    /// `empty_strided`: zero-filled storage just large enough for the strides, which it honours.
    pub fn empty_strided(&mut self, dtype: DType, sizes: &[usize], strides: &[i64]) -> Result<Tensor> {
        check_numel(sizes)?;
        if strides.len() != sizes.len() {
            bail!(Shape, "mismatch in length of strides and shape");
        }
        if strides.iter().any(|&s| s < 0) {
            bail!(Shape, "as_strided: Negative strides are not supported at the moment, got strides: {strides:?}");
        }
        // The bridge allocates every tensor row-major: it takes the strides and drops them.
        let strides = if self.is_bridge() { crate::strided::row_major_strides(sizes) } else { strides.to_vec() };
        let strides = strides.as_slice();
        let len = if sizes.contains(&0) {
            0
        } else {
            1 + sizes.iter().zip(strides).map(|(&n, &s)| (n as i64 - 1) * s).sum::<i64>() as usize
        };
        check_numel(&[len])?;
        let s = self.new_storage(Data::zeros(dtype, len))?;
        let layout = Layout::new(sizes, strides, 0);
        let tg = ShapeTracker::from_view(View::new(sizes, Some(strides), 0, None));
        Ok(self.over_storage(StorageRef::Realized(s), dtype, layout, Aliasing::Owner, tg, Bridge::fresh(sizes)))
    }

    fn root_node(&self, s: StorageRef) -> UOpId {
        match s {
            StorageRef::Realized(id) => self.buffer_nodes[id],
            StorageRef::Pending(p) => match self.pending[p].realized {
                Some(id) => self.buffer_nodes[id],
                None => self.pending[p].producer,
            },
        }
    }

    /// The computation a storage not yet realized waits for.
    pub(crate) fn pending_producer(&self, s: StorageRef) -> Option<UOpId> {
        match self.resolve_ref(s) {
            StorageRef::Pending(p) => Some(self.pending[p].producer),
            StorageRef::Realized(_) => None,
        }
    }

    fn resolve_ref(&self, s: StorageRef) -> StorageRef {
        match s {
            StorageRef::Pending(p) => self.pending[p].realized.map_or(s, StorageRef::Realized),
            r => r,
        }
    }

    /// A tensor that reads `layout` out of storage `s`.
    pub(crate) fn over_storage(
        &mut self,
        s: StorageRef,
        dtype: DType,
        layout: Layout,
        aliasing: Aliasing,
        tg: ShapeTracker,
        bridge: Bridge,
    ) -> Tensor {
        let s = self.resolve_ref(s);
        if let (Aliasing::View, StorageRef::Realized(id), true) = (aliasing, s, self.is_bridge()) {
            self.viewed.insert(id);
        }
        let mut root = self.root_node(s);
        let root_dtype = self.graph.node(root).dtype;
        if root_dtype != dtype {
            // A dtype view: the storage's bytes, flat, read as `dtype`.
            let numel: usize = self.graph.node(root).shape.iter().product();
            if self.graph.node(root).shape.len() != 1 {
                root = self.graph.push(Op::Reshape(vec![numel]), root_dtype, vec![numel], vec![root]);
            }
            let len = numel * root_dtype.itemsize() / dtype.itemsize();
            root = self.graph.push(Op::Bitcast(dtype), dtype, vec![len], vec![root]);
        }
        let root_numel: usize = self.graph.node(root).shape.iter().product();
        let node = if layout.is_contiguous()
            && layout.offset() == 0
            && layout.numel() == root_numel
            && self.graph.node(root).shape == layout.sizes()
        {
            root
        } else {
            let st = ShapeTracker::from_view(View::new(layout.sizes(), Some(layout.strides()), layout.offset(), None));
            self.graph.push(Op::View(st), dtype, layout.sizes().to_vec(), vec![root])
        };
        let (object, counter) = (self.ids.fresh_object(), self.ids.fresh_counter());
        Tensor {
            node,
            dtype,
            layout,
            storage: s,
            aliasing,
            tg,
            bridge,
            object,
            counter,
            base: None,
            output_of: None,
            copy_reason: None,
        }
    }

    /// The tensor with its storage reference and node brought up to date (a pending storage
    /// that has been realized is read from its buffer from now on).
    pub fn resolve(&mut self, t: &Tensor) -> Tensor {
        let s = self.resolve_ref(t.storage);
        if s == t.storage {
            return t.clone();
        }
        let out = self.over_storage(s, t.dtype, t.layout.clone(), t.aliasing, t.tg.clone(), t.bridge.clone());
        Tensor {
            object: t.object,
            counter: t.counter,
            base: t.base.clone(),
            output_of: t.output_of.clone(),
            copy_reason: t.copy_reason,
            ..out
        }
    }

    /// A row-major tensor of `sizes` over `t`'s storage, sharing its version counter, as the
    /// internal tensor an op flattens into its result (`t`'s `_base`, see [`Tensor::with_base`]).
    pub(crate) fn internal_base(&mut self, t: &Tensor, sizes: &[usize]) -> Tensor {
        Tensor {
            layout: Layout::contiguous(sizes),
            tg: ShapeTracker::from_shape(sizes),
            bridge: Bridge::fresh(sizes),
            aliasing: Aliasing::Owner,
            object: self.ids.fresh_object(),
            base: None,
            output_of: None,
            copy_reason: None,
            ..t.clone()
        }
    }

    /// The result of a computation: a new (pending) storage, contiguous, fresh in every model.
    pub(crate) fn computed(&mut self, node: UOpId) -> Result<Tensor> {
        let n = self.graph.node(node);
        let (dtype, shape) = (n.dtype, n.shape.clone());
        check_numel(&shape)?;
        let p = self.pending.len();
        self.pending.push(Pending { producer: node, realized: None, reads: None });
        Ok(Tensor {
            node,
            dtype,
            layout: Layout::contiguous(&shape),
            storage: StorageRef::Pending(p),
            aliasing: Aliasing::Owner,
            tg: ShapeTracker::from_shape(&shape),
            bridge: Bridge::fresh(&shape),
            output_of: None,
            copy_reason: None,
            object: self.ids.fresh_object(),
            counter: self.ids.fresh_counter(),
            base: None,
        })
    }

    /// A computation whose new storage PyTorch lays out as `layout` (dense, offset 0, maybe
    /// permuted): the storage holds the values in that memory order.
    pub(crate) fn computed_as(&mut self, node: UOpId, layout: Layout) -> Result<Tensor> {
        // The bridge's tensors are row-major whatever layout PyTorch would give the result.
        if self.is_bridge() || layout.strides() == Layout::contiguous(layout.sizes()).strides() {
            return self.computed(node);
        }
        let shape = layout.sizes().to_vec();
        check_numel(&shape)?;
        // Outermost dim first: the row-major order of this permutation is the memory order.
        let mut perm: Vec<usize> = (0..shape.len()).collect();
        perm.sort_by_key(|&d| std::cmp::Reverse(layout.strides()[d]));
        let dtype = self.graph.node(node).dtype;
        let pshape: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
        let moved = self.graph.push(Op::Permute(perm), dtype, pshape.clone(), vec![node]);
        let producer = self.graph.push(Op::Contiguous, dtype, pshape, vec![moved]);
        let p = self.pending.len();
        self.pending.push(Pending { producer, realized: None, reads: None });
        Ok(self.over_storage(
            StorageRef::Pending(p),
            dtype,
            layout,
            Aliasing::Owner,
            ShapeTracker::from_shape(&shape),
            Bridge::fresh(&shape),
        ))
    }

    /// A freshly computed result `t` as PyTorch's kernel lays it out in `format` (row-major,
    /// or channels-last where the rank allows): the same object, its values stored in that
    /// memory order. Views, and results already so laid out, are returned as they are.
    pub fn in_format(&mut self, t: &Tensor, format: crate::torch::format::MemoryFormat) -> Result<Tensor> {
        let layout = format.dense_layout(t.shape()).unwrap_or_else(|_| Layout::contiguous(t.shape()));
        if t.aliasing == Aliasing::View || t.base.is_some() || t.layout.strides() == layout.strides() {
            return Ok(t.clone());
        }
        let mut out = self.computed_as(t.node, layout)?.into_object(t);
        out.output_of = t.output_of.clone();
        out.copy_reason = t.copy_reason;
        Ok(out)
    }

    /// Runs every pending computation that reads storage `s`, so a write to it cannot change
    /// what they read. The others are left lazy: they read nothing the write changes, and a
    /// statement's intermediates nothing reaches any more are never computed.
    pub fn realize_pending_reading(&mut self, s: StorageId) -> Result<()> {
        for p in 0..self.pending.len() {
            if self.pending[p].realized.is_some() {
                continue;
            }
            let producer = self.pending[p].producer;
            let reads = self.pending[p].reads.get_or_insert_with(|| self.graph.buffers_read(producer).into());
            if reads.binary_search(&s).is_ok() {
                let id = self.realize_node(producer)?;
                self.pending[p].realized = Some(id);
            }
        }
        Ok(())
    }

    /// Realizes what `t` reads and returns it over a real storage.
    pub fn realize(&mut self, t: &Tensor) -> Result<Tensor> {
        if let StorageRef::Pending(p) = self.resolve_ref(t.storage) {
            let id = self.realize_node(self.pending[p].producer)?;
            self.pending[p].realized = Some(id);
        }
        Ok(self.resolve(t))
    }

    /// How many times any version counter moved in this run (see [`Identities::changes`]).
    pub fn version_changes(&self) -> u64 {
        self.ids.changes()
    }

    /// Whether a tensor made since the statement began may still be lazy: if not, nothing in
    /// scope needs realizing (a statement that computes nothing costs nothing per value).
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// [`Engine::realize`] in place: a tensor already over a real storage is left as it is,
    /// so the end of a statement costs nothing per realized tensor in scope.
    pub fn realize_mut(&mut self, t: &mut Tensor) -> Result<()> {
        if matches!(t.storage, StorageRef::Realized(_)) {
            return Ok(());
        }
        *t = self.realize(t)?;
        Ok(())
    }

    /// Forgets pending computations nobody can reach any more (the end of a statement).
    pub fn end_statement(&mut self) {
        // What autograd keeps must outlive the statement: realize it first. A value that fails
        // to compute leaves its node unusable, and a backward through it fails then.
        let _ = self.autograd_end_statement();
        // Ids of pending entries are only held by tensors of the finished statement, which
        // the caller has realized or dropped; start a fresh table.
        self.pending.clear();
    }

    /// The tensor's values in row-major order.
    pub fn values(&mut self, t: &Tensor) -> Result<Data> {
        check_numel(t.shape())?;
        let t = self.realize(t)?;
        let StorageRef::Realized(s) = t.storage else { unreachable!("realize leaves no pending storage") };
        let data = &self.storages[s].data;
        if data.dtype() != t.dtype {
            // A dtype view: its layout counts elements of its own dtype.
            return Ok(gather_layout(&Data::from_le_bytes(t.dtype, &data.to_le_bytes()), &t.layout));
        }
        Ok(gather_layout(data, &t.layout))
    }

    pub fn storage_id(&mut self, t: &Tensor) -> Result<StorageId> {
        match self.realize(t)?.storage {
            StorageRef::Realized(s) => Ok(s),
            StorageRef::Pending(_) => unreachable!("realize leaves no pending storage"),
        }
    }

    /// Elements in the storage under `t` (realizing it if needed).
    /// The storage's length in elements of `t`'s dtype (a dtype view reads it in its own).
    pub fn storage_numel(&mut self, t: &Tensor) -> Result<usize> {
        let s = self.storage_id(t)?;
        let data = &self.storages[s].data;
        Ok(data.len() * data.dtype().itemsize() / t.dtype.itemsize())
    }

    /// PyTorch's `t._version`: the count of in-place ops on `t`'s version counter.
    pub fn version(&self, t: &Tensor) -> u64 {
        self.ids.version(t.counter)
    }

    // ---------------------------------------------------------------- creation

    pub fn arange(&mut self, start: Scalar, end: Scalar, step: Scalar, dtype: Option<DType>) -> Result<Tensor> {
        let is_float = [start, end, step].iter().any(|s| matches!(s, Scalar::Float(_)));
        let dtype = dtype.unwrap_or(if is_float { DType::Float32 } else { DType::Int64 });
        let (a, b, st) = (start.as_f64(), end.as_f64(), step.as_f64());
        // PyTorch's checks, in its order (`RangeFactories.cpp`).
        if st == 0.0 {
            bail!(Value, "step must be nonzero");
        }
        let text = |s: Scalar| match s {
            Scalar::Float(f) => crate::random::dist::cpp_double(f),
            other => other.as_i64().to_string(),
        };
        if !st.is_finite() {
            bail!(Value, "step must be finite but got {}", text(step));
        }
        if !a.is_finite() || !b.is_finite() {
            bail!(Value, "unsupported range: {} -> {}", text(start), text(end));
        }
        if (st > 0.0 && b < a) || (st < 0.0 && b > a) {
            bail!(Value, "upper bound and lower bound inconsistent with step sign");
        }
        // Integer bounds count exactly (an f64 difference loses them past 2^53).
        let n = match (start, end, step) {
            (Scalar::Int(s0), Scalar::Int(e), Scalar::Int(s1)) => {
                let span = i128::from(e) - i128::from(s0);
                let s1 = i128::from(s1);
                (span / s1 + i128::from(span % s1 != 0)).max(0) as f64
            }
            _ => ((b - a) / st).ceil().max(0.0),
        };
        if n > MAX_ELEMENTS as f64 {
            bail!(Limit, "arange would have {n} elements; the limit is {MAX_ELEMENTS}");
        }
        let n = n as usize;
        // `start + i * step` in PyTorch's CPU accumulator type: double for floats, int64 for
        // integers (exact past 2^53 when the bounds are integers).
        let data = match (start, step) {
            (Scalar::Int(s0), Scalar::Int(s1)) if !dtype.is_float() => {
                Data::I64((0..n as i64).map(|i| s0.wrapping_add(i.wrapping_mul(s1))).collect()).cast(dtype)
            }
            _ => Data::F64((0..n).map(|i| a + i as f64 * st).collect()).cast(dtype),
        };
        self.from_data(data, &[n])
    }

    pub fn full(&mut self, shape: &[usize], value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
        check_numel(shape)?;
        let dtype = dtype.unwrap_or(value.dtype());
        // PyTorch's `full` converts to a half type unchecked (1e5 is inf in float16).
        let value = if matches!(dtype, DType::Float16 | DType::BFloat16) { value } else { value.checked_for(dtype)? };
        self.from_data(Data::full_scalar(dtype, shape.iter().product(), value), shape)
    }

    /// `full_like` and friends: laid out like `t` (PyTorch's preserve format).
    pub fn full_like(&mut self, t: &Tensor, value: Scalar, dtype: DType) -> Result<Tensor> {
        let layout = t.layout.empty_like_preserve();
        let value = if matches!(dtype, DType::Float16 | DType::BFloat16) { value } else { value.checked_for(dtype)? };
        let s = self.new_storage(Data::full_scalar(dtype, t.numel(), value))?;
        let shape = t.shape().to_vec();
        Ok(self.over_storage(
            StorageRef::Realized(s),
            dtype,
            layout,
            Aliasing::Owner,
            ShapeTracker::from_shape(&shape),
            Bridge::fresh(&shape),
        ))
    }

    // ---------------------------------------------------------------- PyTorch view ops

    /// A PyTorch view of `src` with layout `layout`; `tg` is tinygrad's tracker for the same op.
    pub fn torch_view(&mut self, src: &Tensor, layout: Layout, tg: ShapeTracker, bridge_offset: i64) -> Result<Tensor> {
        // A view allocates nothing, but it is a named value whose elements a report lists.
        check_numel(layout.sizes())?;
        let src = self.resolve(src);
        let bridge = src.bridge.view(layout.sizes(), bridge_offset);
        let out = self.over_storage(src.storage, src.dtype, layout, Aliasing::View, tg, bridge);
        let base = src.base.clone().unwrap_or_else(|| std::sync::Arc::new(src.clone()));
        let out = Tensor { counter: src.counter, base: Some(base), ..out };
        let name = self.ag.take_view_name();
        let op = GradOp::NamedView { name, input: src.layout.clone(), output: out.layout.clone() };
        self.record(&out, op, &[Some(&src)], Vec::new(), &[]);
        self.note_view(&src, &out);
        Ok(out)
    }

    /// A view of `src`'s storage read as another dtype (`x.view(torch.int32)`), with `layout`
    /// counted in elements of `dtype`. tinygrad's column shows the layout as one view over the
    /// reinterpreted buffer, the bridge a fresh tensor (it has no dtype views).
    pub fn dtype_view(&mut self, src: &Tensor, dtype: DType, layout: Layout) -> Result<Tensor> {
        check_numel(layout.sizes())?;
        let src = self.realize(src)?;
        let tg = ShapeTracker::from_view(restride_view(&layout));
        let bridge = Bridge::fresh(layout.sizes());
        let out = self.over_storage(src.storage, dtype, layout, Aliasing::View, tg, bridge);
        // PyTorch's `view.dtype` is not differentiable, so its result has no `_base`.
        Ok(Tensor { counter: src.counter, ..out })
    }

    /// A movement op PyTorch performs as a copy (flip, pad, a reshape that cannot be a view):
    /// a new storage holding `op` applied to the source.
    /// `layout` says whether the copy is laid out like the source (flip) or row-major.
    pub fn movement_copy(&mut self, src: &Tensor, op: Op, tg: ShapeTracker, layout: CopyLayout) -> Result<Tensor> {
        let src = self.resolve(src);
        let op_copy = op.clone();
        let st = interp::apply_movement(&ShapeTracker::from_shape(src.shape()), &op)?;
        let moved = self.graph.push(op, src.dtype, st.shape().to_vec(), vec![src.node]);
        let node = self.graph.push(Op::Contiguous, src.dtype, st.shape().to_vec(), vec![moved]);
        let layout = match layout {
            CopyLayout::LikeSource => src.layout.empty_like_preserve(),
            CopyLayout::RowMajor => Layout::contiguous(st.shape()),
        };
        let mut out = self.computed_as(node, layout)?;
        out.tg = tg;
        // The bridge makes flips and reshapes views of the source (its offset stays).
        if matches!(op_copy, Op::Flip(_) | Op::Reshape(_)) {
            out.bridge = src.bridge.view(out.shape(), 0);
        }
        let name = self.ag.take_view_name();
        let op = GradOp::Movement { name, op: op_copy, input: src.shape().to_vec() };
        self.record(&out, op, &[Some(&src)], Vec::new(), &[]);
        Ok(out)
    }

    /// `clone()` and `contiguous()` of a non-contiguous tensor.
    pub fn copy(&mut self, src: &Tensor) -> Result<Tensor> {
        let src = self.resolve(src);
        let node = self.graph.push(Op::Contiguous, src.dtype, src.shape().to_vec(), vec![src.node]);
        let out = self.computed_as(node, src.layout.empty_like_preserve())?;
        self.record(&out, GradOp::Clone, &[Some(&src)], Vec::new(), &[]);
        Ok(out)
    }
}

/// Reads a PyTorch layout out of a storage.
pub fn gather_layout(data: &Data, layout: &Layout) -> Data {
    if layout.is_contiguous() && layout.offset() == 0 && layout.numel() == data.len() {
        return data.clone();
    }
    data.gather_strided(layout.sizes(), layout.strides(), layout.offset())
}

/// Layout of the index items applied to a contiguous tensor of `shape`, as a view to push onto
/// tinygrad's tracker (for ops tinygrad has no movement op for).
pub fn restride_view(layout: &Layout) -> View {
    View::new(layout.sizes(), Some(layout.strides()), layout.offset(), None)
}
