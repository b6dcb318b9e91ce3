//! tinygrad's PyTorch bridge (`extra/torch_backend` at tinygrad commit `a9069c1`) as a second
//! execution of the same engine.
//!
//! A run under [`Semantics::Bridge`] executes the trace with the bridge's rules in place of
//! PyTorch's, at the few points where they differ:
//!
//! - **Metadata.** Every bridge tensor reports row-major strides of its shape (tinygrad's
//!   `strides_for_shape`, 0 on size-1 dims), so PyTorch's composite ops that test
//!   contiguity see a contiguous tensor: `contiguous()` returns the tensor itself, and `view` /
//!   `reshape` / `flatten` always dispatch `aten.view` (never PyTorch's stride error, never its
//!   copy). `empty_strided` drops its strides.
//! - **The view table.** `view`, `expand`, `t`/`transpose`, `squeeze.dim`, `unsqueeze`,
//!   `select`, `permute`, `alias`, `diagonal`, `slice` (and the composites that lower to them:
//!   `narrow`, `movedim`, `split`, `unbind`, ...) and `as_strided` are tracked views: each keeps
//!   its canonical base and the chain of ops from it. `detach` and `.data` share the very same
//!   tinygrad object. Everything outside the table is a new tensor: `unfold` and `flip` among
//!   them, so a write through an `unfold` never reaches its source, nor does a write to the
//!   source reach the `unfold`.
//! - **The write path** (`_apply_inplace`). The value is computed whole from the old contents,
//!   cast to the target's dtype, and written: to the base itself, through a chain of reshapes
//!   by reshaping it back, or in general by a flat index tensor (the chain applied to
//!   `arange(base.numel())`), a clone of the base, a scatter (a later duplicate position wins)
//!   and the base replaced; then every derived view is recomputed from the new base. A view
//!   that is a strided window of its base's row-major storage is exactly that recomputation;
//!   a view that is not (a `reshape` of a transpose) is a [`Mirror`]: a storage of its own
//!   whose elements are tied to base positions, written back and refreshed after every write.
//! - **No overlap checks.** PyTorch refuses writes whose target overlaps itself (`expand`) or
//!   an input (`a += a.t()`, `x[2:] += x[:4]`); the bridge runs them.
//! - **`out=`** (`wrap_out`) casts the result to the output's dtype instead of PyTorch's
//!   "can't be cast" error.
//! - **`copy_`** hands its source over unbroadcast: through the reshape fast path a source of
//!   another element count fails ("size mismatch, can't reshape"), where PyTorch broadcasts.
//! - **Laziness.** tinygrad keeps every tensor a lazy graph until it is read back, and an
//!   assign writes its buffer in place. A tensor outside the view table made from a buffer
//!   (a base assigned into, a literal, the result of an op PyTorch runs through its `out=` form
//!   or `clone`) reads that buffer when it is realized: a [`Lazy`], recomputed after every write
//!   into what it reads. The bridge's own in-place ops (`add_`, `mul_`, `fill_`, ...) on a
//!   tensor no view was made of replace its graph instead ([`BridgeWrite::Own`]); an assign
//!   into a `flip`/`unfold` of a buffer walks the movement ops down into the buffer
//!   ([`Landing::Through`]). Read back in the recorder's order, a lazy tensor realized before
//!   a later store keeps what the buffer held then ([`Engine::bridge_recorded_values`]).
//!
//! The bridge keeps running where PyTorch raises and stops where it fails itself (an error
//! the engine raises under these rules too: a shape mismatch, an unknown op).

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crate::cells::CellList;
use crate::error::{Error, Result};
pub use crate::semantics::{BridgeWrite, Landing, Lazy, Mirror, Semantics, WritePath, WritePlan};
use crate::tensor::{Engine, Event, StorageRef, Tensor, Write};
use crate::uop::buffer::Data;
use crate::uop::interp;
use crate::uop::{BinaryOp, StorageId, UOpId};

/// The binary in-place ops the bridge implements itself (`aten.add_`, `aten.mul_`,
/// `aten.floor_divide_` in its op table): they compute in the result's dtype and cast into the
/// target, with no dtype check. Every other in-place binary op (`sub_`, `div_`, `pow_`, ...)
/// reaches PyTorch's structured kernel first, whose check raises "result type Float can't be
/// cast to the desired output type Long" as PyTorch does.
pub fn casts_inplace(op: BinaryOp) -> bool {
    OWN_INPLACE.iter().any(|n| n.strip_suffix('_') == Some(op.name()))
}

/// The in-place ops the bridge implements itself (its table's in-place entries, wrapped by
/// `_inplace_op`), by PyTorch's method name.
const OWN_INPLACE: &[&str] = &[
    "add_",
    "mul_",
    "floor_divide_",
    "__ilshift__",
    "__irshift__",
    "fill_",
    "zero_",
    "relu_",
    "masked_fill_",
    "logical_or_",
    "random_",
    "uniform_",
    "normal_",
];

impl Engine {
    /// An engine that runs traces with the bridge's rules.
    pub fn bridge() -> Engine {
        let mut engine = Engine::default();
        engine.semantics = Semantics::Bridge;
        engine
    }

    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    pub fn is_bridge(&self) -> bool {
        self.semantics == Semantics::Bridge
    }

    /// The bridge's `aten.view` of a tensor whose layout PyTorch could not view: a copy tied
    /// to the source's storage positions (a [`Mirror`]), reporting the source's bridge offset.
    pub(crate) fn bridge_mirror_view(&mut self, src: &Tensor, copy: Tensor) -> Result<Tensor> {
        let src = self.realize(src)?;
        let copy = self.realize(&copy)?;
        let base = self.storage_id(&src)?;
        let view = self.storage_id(&copy)?;
        let positions = src.layout().storage_indices();
        self.lazies.retain(|l| l.storage != view);
        self.mirrors.push(Mirror { view, base, positions });
        Ok(copy)
    }

    /// The bridge's `copy_` of a source that needs broadcasting: it hands the value to
    /// `_apply_inplace` unbroadcast, and the reshape fast path (a target that is a view covering
    /// its whole base in order) reshapes it to the base's shape, which fails unless the element
    /// counts agree. The base itself (`assign`) and the general path (a scatter) broadcast.
    /// A view that covers its base in order is taken to be a reshape chain (a full slice of a
    /// base is one too, in this model). The base's shape is not kept, so its element count
    /// stands for it in the message.
    pub(crate) fn bridge_check_copy(&mut self, target: &Tensor, src_shape: &[usize]) -> Result<()> {
        let numel = |s: &[usize]| s.iter().product::<usize>();
        if !self.is_bridge() || !target.is_alias() || numel(src_shape) == numel(target.shape()) {
            return Ok(());
        }
        let Ok(s) = self.storage_id(target) else { return Ok(()) };
        let plan = self.write_plan(s, CellList::from(target.layout().storage_indices().as_slice()));
        if plan.path() != WritePath::Assign {
            return Ok(());
        }
        Err(Error::Value(format!(
            "size mismatch, can't reshape ({}) -> ({})",
            py_tuple(src_shape),
            py_tuple(&[plan.base_len])
        )))
    }

    /// The bridge's own in-place `add_`/`mul_`/`floor_divide_` (`_inplace_op`) with a value
    /// of another shape than the target's (`a += a.unsqueeze(0)`): PyTorch's shape check never
    /// runs. Through the reshape fast path the value is reshaped to the base's shape, which
    /// takes any value of the same element count, in row-major order; everywhere else
    /// (`replace`, `assign`, the scatter) the value must broadcast to the target, which a
    /// bigger one does not.
    pub(crate) fn bridge_check_inplace_shape(&mut self, target: &Tensor, value: &[usize]) -> Result<()> {
        let numel = |s: &[usize]| s.iter().product::<usize>();
        let s = self.storage_id(target)?;
        let plan = self.write_plan(s, CellList::from(target.layout().storage_indices().as_slice()));
        if target.is_alias() && plan.path() == WritePath::Assign {
            if numel(value) == plan.base_len {
                return Ok(());
            }
            return Err(Error::Value(format!(
                "size mismatch, can't reshape ({}) -> ({})",
                py_tuple(value),
                py_tuple(&[plan.base_len])
            )));
        }
        let (value, to) = (py_tuple(value), py_tuple(target.shape()));
        Err(Error::Value(if value.len() > to.len() {
            format!("cannot broadcast tensor to fewer dimensions. shape={value} to new_shape={to}")
        } else {
            format!("cannot broadcast {value} to new_shape={to}")
        }))
    }

    /// The bridge's plan for a write of `elements` (storage indices in the target's element
    /// order, repeats included) into storage `s`: a write into a mirrored view is a write into
    /// its base at the mirror's positions (transitively).
    pub(crate) fn write_plan(&self, s: StorageId, elements: CellList) -> WritePlan {
        let mut base = s;
        let mut positions = elements;
        let mut through_mirror = false;
        while let Some(m) = self.mirrors.iter().find(|m| m.view == base) {
            positions = positions
                .iter()
                .filter_map(|p| usize::try_from(p).ok().and_then(|p| m.positions.get(p)).copied())
                .collect();
            base = m.base;
            through_mirror = true;
        }
        WritePlan { base, base_len: self.storages[base].data.len(), positions, through_mirror }
    }

    /// The plans of the bridge's writes since the last call, in order (bridge runs only).
    pub fn take_plans(&mut self) -> Vec<WritePlan> {
        std::mem::take(&mut self.plans)
    }

    /// After a write of `elements` into storage `s`: write mirrored views back into their
    /// bases, then recompute every mirror of a changed base from it, as `_apply_inplace`
    /// replaces the derived views it tracks. Each storage this changes, and its cells, is kept
    /// for [`Engine::take_refreshed`]. A no-op under PyTorch's rules (there are no mirrors).
    pub(crate) fn bridge_refresh(&mut self, s: StorageId, elements: &[i64], landing: Landing) {
        if !self.is_bridge() {
            return;
        }
        let mut dirty = vec![s];
        // Through a movement-only lazy tensor: the elements land in its buffer (a later
        // duplicate position wins), and the tensor is then recomputed from it like any other.
        if landing == Landing::Through {
            if let Some((base, pos)) = self.lazies.iter().find(|l| l.storage == s).and_then(|l| l.positions.clone()) {
                let src = self.storages[s].data.gather(&elements.iter().map(|&e| Some(e)).collect::<Vec<_>>());
                let cells: Vec<i64> =
                    elements.iter().filter_map(|&e| pos.get(usize::try_from(e).ok()?).copied()).collect();
                if cells.len() == elements.len() {
                    self.storages[base].data.scatter(&cells, &src);
                    self.touch(base);
                    self.refreshed.push(Write { storage: base, elements: cells.into() });
                    dirty.push(base);
                }
            }
        }
        if !self.mirrors.is_empty() {
            dirty.extend(self.refresh_mirrors(s, elements));
        }
        self.refresh_lazies(dirty);
    }

    /// The mirror half of [`Engine::bridge_refresh`]: writes a written mirror back into its
    /// base, then recomputes every mirror of a changed storage. Returns the storages changed.
    fn refresh_mirrors(&mut self, s: StorageId, elements: &[i64]) -> Vec<StorageId> {
        let mut changed: Vec<(StorageId, Vec<i64>)> = vec![(s, elements.to_vec())];
        // Up: a write into a mirror is a write into its base (transitively).
        let mut at = s;
        let mut cells = elements.to_vec();
        while let Some(m) = self.mirrors.iter().find(|m| m.view == at).cloned() {
            let values = self.storages[m.view].data.clone();
            let len = m.positions.len().min(values.len());
            let src = values.gather(&(0..len as i64).map(Some).collect::<Vec<_>>());
            self.preserve(m.base);
            self.storages[m.base].data.scatter(&m.positions[..len], &src);
            self.touch(m.base);
            cells = cells.iter().filter_map(|&c| m.positions.get(usize::try_from(c).ok()?).copied()).collect();
            self.refreshed.push(Write { storage: m.base, elements: cells.as_slice().into() });
            changed.push((m.base, cells.clone()));
            at = m.base;
        }
        // Down: every mirror of a changed storage is recomputed from it.
        let mut i = 0;
        while i < changed.len() {
            let (b, base_cells) = changed[i].clone();
            let mut hit = vec![false; self.storages[b].data.len()];
            for &c in &base_cells {
                if let Some(h) = usize::try_from(c).ok().and_then(|c| hit.get_mut(c)) {
                    *h = true;
                }
            }
            let deps: Vec<Mirror> = self.mirrors.iter().filter(|m| m.base == b).cloned().collect();
            for m in deps {
                if changed.iter().any(|(v, _)| *v == m.view) {
                    continue;
                }
                let idx: Vec<Option<i64>> = m.positions.iter().map(|&p| Some(p)).collect();
                let fresh = self.storages[m.base].data.gather(&idx);
                if fresh.len() == self.storages[m.view].data.len() {
                    self.preserve(m.view);
                    self.storages[m.view].data = fresh;
                    self.touch(m.view);
                }
                let view_cells: Vec<i64> = (0..m.positions.len() as i64)
                    .filter(|&k| {
                        usize::try_from(m.positions[k as usize]).ok().and_then(|p| hit.get(p)).copied().unwrap_or(false)
                    })
                    .collect();
                self.refreshed.push(Write { storage: m.view, elements: view_cells.as_slice().into() });
                changed.push((m.view, view_cells));
            }
            i += 1;
        }
        changed.into_iter().skip(1).map(|(c, _)| c).collect()
    }

    /// The storages the bridge's refreshes changed since the last call, with their cells:
    /// the runner counts their tensors among a write's observers.
    pub fn take_refreshed(&mut self) -> Vec<Write> {
        std::mem::take(&mut self.refreshed)
    }

    /// Tells the engine which op the trace runs next (a method name, `add_` for `+=`): the
    /// bridge implements a few in-place ops itself (`_inplace_op`, [`BridgeWrite::Own`]), and
    /// the next write is made as it makes them. Every write resets it.
    pub fn bridge_op(&mut self, name: &str) {
        self.bridge_via = if OWN_INPLACE.contains(&name) { BridgeWrite::Own } else { BridgeWrite::Assign };
    }

    /// A tensor literal is a buffer in tinygrad (the bridge assigns the CPU data into one).
    pub fn bridge_note_buffer(&mut self, t: &Tensor) {
        if self.is_bridge() {
            if let Ok(s) = self.storage_id(t) {
                self.buffers.insert(s);
            }
        }
    }

    /// What a write does to the bridge's buffers and lazy tensors. An assign makes its base a
    /// buffer (tinygrad realizes an assign's target into one). A `replace` gives the target
    /// a new graph: a buffer it was stops being its storage, so the lazy tensors that read
    /// that buffer keep what they hold. Either way a write into a lazy tensor is one more step
    /// of its graph.
    ///
    /// An assign into a movement-only lazy tensor over a buffer lands in the buffer
    /// ([`Landing::Through`]).
    pub(crate) fn bridge_note_write(
        &mut self,
        plan: &WritePlan,
        target: StorageId,
        value: UOpId,
        elements: &[i64],
        how: BridgeWrite,
    ) -> Landing {
        self.preserve(target);
        let root = self.lazies.iter().find(|l| l.storage == target).and_then(|l| l.positions.as_ref().map(|p| p.0));
        if let Some(root) = root {
            self.preserve(root);
            if how == BridgeWrite::Assign && self.buffers.contains(&root) {
                return Landing::Through;
            }
        }
        match how {
            BridgeWrite::Assign => {
                self.buffers.insert(plan.base);
            }
            BridgeWrite::Own if self.buffers.remove(&target) => {
                self.lazies.retain(|l| !l.reads.contains(&target));
            }
            BridgeWrite::Own => {}
        }
        if let Some(l) = self.lazies.iter_mut().find(|l| l.storage == target) {
            l.writes.push((value, elements.to_vec()));
            // Not a movement graph any more: writes through it stop at it.
            l.positions = None;
            for r in self.graph.buffers_read(value) {
                if r != target && !l.reads.contains(&r) {
                    l.reads.push(r);
                }
            }
        }
        Landing::Target
    }

    /// Marks `t` as made by movement ops alone outside the bridge's view table (`flip`,
    /// `unfold`): see [`Lazy::positions`].
    pub(crate) fn bridge_movement(&mut self, t: &Tensor) {
        if !self.is_bridge() {
            return;
        }
        if let Some(producer) = self.pending_producer(t.storage()) {
            self.movement_nodes.insert(producer);
        } else if let StorageRef::Realized(s) = t.storage() {
            if let Some(i) = self.lazies.iter().position(|l| l.storage == s && l.reads.len() == 1) {
                let (node, base) = (self.lazies[i].node, self.lazies[i].reads[0]);
                self.lazies[i].positions = self.root_positions(node, base);
            }
        }
    }

    /// A tensor the bridge computed into `storage` from `node` stays lazy if `node` reads a
    /// buffer or another lazy tensor ([`Lazy`]).
    ///
    /// The result is a buffer itself unless movement ops alone made it: PyTorch runs the
    /// bridge's functional ops through their `out=` forms (`add.out`, `sum.IntList_out`, ...)
    /// and `clone` through `copy_`, which assign the value into a fresh empty buffer.
    pub(crate) fn bridge_track_lazy(&mut self, node: UOpId, storage: StorageId) {
        if !self.is_bridge() {
            return;
        }
        let movement = self.movement_nodes.contains(&node);
        if !movement {
            self.buffers.insert(storage);
        }
        let reads = self.graph.buffers_read(node);
        let tied =
            |r: &StorageId| *r != storage && (self.buffers.contains(r) || self.lazies.iter().any(|l| l.storage == *r));
        if reads.iter().any(tied) {
            let born = reads.iter().map(|&r| (r, self.storages[r].version)).collect();
            let positions = match reads[..] {
                [base] if movement => self.root_positions(node, base),
                _ => None,
            };
            self.lazies.push(Lazy { storage, node, writes: Vec::new(), reads, positions, born });
        }
    }

    /// The storage a movement-only `node` over `base` reads in the end (through movement-only
    /// lazy tensors, as tinygrad's graph goes down to the buffer) and the position of it each
    /// element reads.
    fn root_positions(&mut self, node: UOpId, base: StorageId) -> Option<(StorageId, Vec<i64>)> {
        let here = self.positions_read(node, base)?;
        match self.lazies.iter().find(|l| l.storage == base).map(|l| l.positions.clone()) {
            None => Some((base, here)),
            Some(None) => None,
            Some(Some((root, inner))) => {
                let composed: Option<Vec<i64>> =
                    here.iter().map(|&p| inner.get(usize::try_from(p).ok()?).copied()).collect();
                composed.map(|c| (root, c))
            }
        }
    }

    /// The positions of `base` a movement-only `node` reads: the node evaluated over the
    /// positions themselves (the bridge's own trick with `arange`).
    fn positions_read(&mut self, node: UOpId, base: StorageId) -> Option<Vec<i64>> {
        let len = self.storages[base].data.len();
        let iota = Data::I64((0..len as i64).collect());
        let data = std::mem::replace(&mut self.storages[base].data, iota);
        let got = interp::realize(&self.graph, &self.storages, node);
        self.storages[base].data = data;
        let got = got.ok()?;
        Some((0..got.len()).map(|i| got.get_f64(i) as i64).collect())
    }

    /// Recomputes every lazy tensor that reads a storage in `dirty` (and, in turn, those that
    /// read a recomputed one), in the order they were made, which is the order they read in.
    fn refresh_lazies(&mut self, mut dirty: Vec<StorageId>) {
        for i in 0..self.lazies.len() {
            let l = &self.lazies[i];
            if !l.reads.iter().any(|r| dirty.contains(r)) {
                continue;
            }
            let (s, node, writes) = (l.storage, l.node, l.writes.clone());
            let Ok(fresh) = interp::realize(&self.graph, &self.storages, node) else { continue };
            if fresh.len() != self.storages[s].data.len() {
                continue;
            }
            self.preserve(s);
            let old = std::mem::replace(&mut self.storages[s].data, fresh);
            for (value, elements) in &writes {
                if let Ok(d) = interp::realize(&self.graph, &self.storages, *value) {
                    self.storages[s].data.scatter(elements, &d);
                }
            }
            let new = &self.storages[s].data;
            let cells: Vec<i64> =
                (0..old.len()).filter(|&k| old.get_scalar(k) != new.get_scalar(k)).map(|k| k as i64).collect();
            if cells.is_empty() {
                continue;
            }
            self.touch(s);
            self.refreshed.push(Write { storage: s, elements: cells.into() });
            dirty.push(s);
        }
    }

    /// Forgets the lazy tensors nothing can read any more: those over none of the `live`
    /// storages (the trace's bound tensors) and read by no lazy tensor that is kept. tinygrad
    /// drops them as Python does; kept, every later write would recompute them all (a training
    /// loop's activations, step after step).
    pub fn bridge_prune_lazies(&mut self, live: &[StorageId]) {
        if self.lazies.is_empty() {
            return;
        }
        // What can still change: the trace's storages (it may write them) and, in creation
        // order (readers after what they read), lazy tensors over something that can. A lazy
        // tensor over nothing that can change is final (`x = x + 1` in a loop: the old `x` is
        // gone), so it is forgotten and what it read may be freed.
        let mut changing = super::reclaim::StorageSet::new(self.storages.len());
        changing.extend(live.iter().copied());
        let mut follows = Vec::with_capacity(self.lazies.len());
        for l in &self.lazies {
            let root = l.positions.as_ref().map(|p| p.0);
            let f = l.reads.iter().chain(root.iter()).any(|&r| changing.contains(r));
            if f {
                changing.insert(l.storage);
            }
            follows.push(f);
        }
        let mut keep = super::reclaim::StorageSet::new(self.storages.len());
        keep.extend(live.iter().copied());
        // Readers come after what they read: from the last, a kept tensor keeps its sources.
        for (l, &f) in self.lazies.iter().zip(&follows).rev() {
            if f && keep.contains(l.storage) {
                keep.extend(l.reads.iter().copied());
                if let Some((root, _)) = &l.positions {
                    keep.insert(*root);
                }
            }
        }
        let mut follows = follows.into_iter();
        self.lazies.retain(|l| follows.next().unwrap_or(false) && keep.contains(l.storage));
        if !self.snapshots.is_empty() {
            let born: std::collections::HashSet<(StorageId, u64)> =
                self.lazies.iter().flat_map(|l| l.born.iter().copied()).collect();
            self.snapshots.retain(|k, _| born.contains(k));
        }
    }

    /// Before a bridge write changes storage `s`: keeps its contents if a lazy tensor was
    /// made from this version of it (and it is small enough to keep: see
    /// [`Engine::bridge_recorded_values`]).
    fn preserve(&mut self, s: StorageId) {
        const KEEP_AT_MOST: usize = 1 << 20;
        let v = self.storages[s].version;
        if self.storages[s].data.len() > KEEP_AT_MOST || self.snapshots.contains_key(&(s, v)) {
            return;
        }
        if self.lazies.iter().any(|l| l.born.contains(&(s, v))) {
            self.snapshots.insert((s, v), self.storages[s].data.clone());
        }
    }

    /// The values the bridge's tensors are read back with, in the order given (the trace's
    /// names in the order they were first bound, as the recorder reads them with `.cpu()`):
    /// realizing a tensor runs the stores its graph holds, and a lazy tensor realized before a
    /// later store into its buffer keeps what the buffer held then. A lazy tensor reads each
    /// storage at the later of the version it was made at and the version an earlier read
    /// realized; the others read the storage as it ends. Where a kept version is missing (a
    /// storage past the size kept, or a lazy tensor written itself), the value is the final one.
    pub fn bridge_recorded_values(&mut self, tensors: &[Tensor]) -> Vec<Result<Data>> {
        let mut realized: HashMap<StorageId, u64> = HashMap::new();
        let mut recorded: HashMap<StorageId, Data> = HashMap::new();
        let mut out = Vec::with_capacity(tensors.len());
        for t in tensors {
            let s = match self.storage_id(t) {
                Ok(s) => s,
                Err(e) => {
                    out.push(Err(e));
                    continue;
                }
            };
            if let Entry::Vacant(slot) = recorded.entry(s) {
                if let Some(data) = self.recorded_lazy(s, &realized) {
                    if let Some(l) = self.lazies.iter().find(|l| l.storage == s) {
                        for &(r, v) in &l.born {
                            let at = realized.entry(r).or_insert(v);
                            *at = (*at).max(v);
                        }
                    }
                    slot.insert(data);
                } else {
                    // Read as it ends: so is everything it reads.
                    let reads = self.lazies.iter().find(|l| l.storage == s).map_or(vec![s], |l| l.reads.clone());
                    for r in reads.into_iter().chain([s]) {
                        realized.insert(r, self.storages[r].version);
                    }
                }
            }
            out.push(match recorded.get(&s).cloned() {
                Some(data) => {
                    let now = std::mem::replace(&mut self.storages[s].data, data);
                    let v = self.values(t);
                    self.storages[s].data = now;
                    v
                }
                None => self.values(t),
            });
        }
        out
    }

    /// A lazy tensor's value realized now: its graph over each storage it reads at the later
    /// of its own version and the realized one, when that differs from the storage as it ends
    /// and is kept. `None` when it reads every storage as it ends (or cannot tell).
    fn recorded_lazy(&mut self, s: StorageId, realized: &HashMap<StorageId, u64>) -> Option<Data> {
        let l = self.lazies.iter().find(|l| l.storage == s && l.writes.is_empty())?;
        let (node, born) = (l.node, l.born.clone());
        let mut swaps = Vec::new();
        for (r, v) in born {
            let at = realized.get(&r).copied().unwrap_or(v).max(v);
            if at != self.storages[r].version {
                swaps.push((r, self.snapshots.get(&(r, at))?.clone()));
            }
        }
        if swaps.is_empty() {
            return None;
        }
        let mut kept = Vec::new();
        for (r, data) in swaps {
            kept.push((r, std::mem::replace(&mut self.storages[r].data, data)));
        }
        let value = interp::realize(&self.graph, &self.storages, node);
        for (r, data) in kept {
            self.storages[r].data = data;
        }
        value.ok()
    }

    fn touch(&mut self, s: StorageId) {
        self.storages[s].version += 1;
        self.events.push(Event::Host { storage: s });
    }
}

/// A shape as Python prints a tuple: `(3, 4)`, or `(3,)` for one item.
fn py_tuple(s: &[usize]) -> String {
    match s {
        [n] => format!("({n},)"),
        _ => format!("({})", s.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}
