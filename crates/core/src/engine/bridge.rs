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
//!
//! The bridge keeps running where PyTorch raises and stops where it fails itself (an error
//! the engine raises under these rules too: a shape mismatch, an unknown op).

use crate::error::{Error, Result};
pub use crate::semantics::{Mirror, Semantics, WritePath, WritePlan};
use crate::tensor::{Engine, Event, Tensor, Write};
use crate::uop::{BinaryOp, StorageId};

/// The binary in-place ops the bridge implements itself (`aten.add_`, `aten.mul_`,
/// `aten.floor_divide_` in its op table): they compute in the result's dtype and cast into the
/// target, with no dtype check. Every other in-place binary op (`sub_`, `div_`, `pow_`, ...)
/// reaches PyTorch's structured kernel first, whose check raises "result type Float can't be
/// cast to the desired output type Long" as PyTorch does.
pub fn casts_inplace(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Mul | BinaryOp::FloorDiv)
}

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
        if !self.is_bridge() || !target.is_view() || numel(src_shape) == numel(target.shape()) {
            return Ok(());
        }
        let Ok(s) = self.storage_id(target) else { return Ok(()) };
        let plan = self.write_plan(s, &target.layout().storage_indices());
        if plan.path() != WritePath::Assign {
            return Ok(());
        }
        let tuple = |s: &[usize]| match s {
            [n] => format!("({n},)"),
            _ => format!("({})", s.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
        };
        Err(Error::Value(format!(
            "size mismatch, can't reshape ({}) -> ({})",
            tuple(src_shape),
            tuple(&[plan.base_len])
        )))
    }

    /// The bridge's plan for a write of `elements` (storage indices in the target's element
    /// order, repeats included) into storage `s`: a write into a mirrored view is a write into
    /// its base at the mirror's positions (transitively).
    pub(crate) fn write_plan(&self, s: StorageId, elements: &[i64]) -> WritePlan {
        let mut base = s;
        let mut positions = elements.to_vec();
        let mut through_mirror = false;
        while let Some(m) = self.mirrors.iter().find(|m| m.view == base) {
            positions = positions
                .iter()
                .filter_map(|&p| usize::try_from(p).ok().and_then(|p| m.positions.get(p)).copied())
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
    pub(crate) fn bridge_refresh(&mut self, s: StorageId, elements: &[i64]) {
        if self.mirrors.is_empty() {
            return;
        }
        let mut changed: Vec<(StorageId, Vec<i64>)> = vec![(s, elements.to_vec())];
        // Up: a write into a mirror is a write into its base (transitively).
        let mut at = s;
        let mut cells = elements.to_vec();
        while let Some(m) = self.mirrors.iter().find(|m| m.view == at).cloned() {
            let values = self.storages[m.view].data.clone();
            let len = m.positions.len().min(values.len());
            let src = values.gather(&(0..len as i64).map(Some).collect::<Vec<_>>());
            self.storages[m.base].data.scatter(&m.positions[..len], &src);
            self.touch(m.base);
            cells = cells.iter().filter_map(|&c| m.positions.get(usize::try_from(c).ok()?).copied()).collect();
            self.refreshed.push(Write { storage: m.base, elements: cells.clone() });
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
                    self.storages[m.view].data = fresh;
                    self.touch(m.view);
                }
                let view_cells: Vec<i64> = (0..m.positions.len() as i64)
                    .filter(|&k| {
                        usize::try_from(m.positions[k as usize]).ok().and_then(|p| hit.get(p)).copied().unwrap_or(false)
                    })
                    .collect();
                self.refreshed.push(Write { storage: m.view, elements: view_cells.clone() });
                changed.push((m.view, view_cells));
            }
            i += 1;
        }
    }

    /// The storages the bridge's refreshes changed since the last call, with their cells:
    /// the runner counts their tensors among a write's observers.
    pub fn take_refreshed(&mut self) -> Vec<Write> {
        std::mem::take(&mut self.refreshed)
    }

    fn touch(&mut self, s: StorageId) {
        self.storages[s].version += 1;
        self.events.push(Event::Host { storage: s });
    }
}
