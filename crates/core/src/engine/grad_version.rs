//! The version counters of the gradients autograd makes, as PyTorch's engine leaves them.
//!
//! PyTorch's counters count the in-place steps a gradient went through: a backward formula's
//! own (`zeros(..).scatter_(..)` for `max(dim)`), the input buffer's sum of two gradients
//! (`old.add_(new)` when the buffer holds the only reference to `old`), and AccumulateGrad's:
//! the first gradient is stolen (`.grad` shares its counter) when nothing else references it
//! and its layout obeys the gradient layout contract, else copied into a new `.grad`
//! (`empty_strided(..).copy_(g)`, version 1); later ones are added in place (`grad += g`).

use crate::identity::ObjectId;
use crate::tensor::{Engine, Tensor};
use crate::torch::layout::Layout;
use std::collections::HashMap;

/// How many in-flight gradient slots hold each gradient object, and which object the caller
/// holds (the seed: the `gradient` argument or the implicit `ones`), which is never stolen.
pub(crate) struct Holders {
    held: HashMap<ObjectId, usize>,
    seed: ObjectId,
}

/// Whether AccumulateGrad may take the arriving gradient as `.grad` (PyTorch's use count of
/// it is 1) or must copy it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    Owned,
    Shared,
}

impl Holders {
    pub(crate) fn new(seed: &Tensor) -> Holders {
        Holders { held: HashMap::from([(seed.object_id(), 1)]), seed: seed.object_id() }
    }
    pub(crate) fn hold(&mut self, t: &Tensor) {
        *self.held.entry(t.object_id()).or_default() += 1;
    }
    pub(crate) fn release(&mut self, t: &Tensor) {
        if let Some(n) = self.held.get_mut(&t.object_id()) {
            *n = n.saturating_sub(1);
        }
    }
    /// PyTorch's `use_count() == 1` for a gradient in one slot: no other slot and not the
    /// caller's tensor.
    pub(crate) fn arrival(&self, t: &Tensor) -> Arrival {
        match t.object_id() != self.seed && self.held.get(&t.object_id()).copied().unwrap_or(0) <= 1 {
            true => Arrival::Owned,
            false => Arrival::Shared,
        }
    }
    /// The input buffer's `can_accumulate_inplace`: the only reference to the tensor and to
    /// its storage (a view shares its base's), dense.
    fn in_place(&self, t: &Tensor) -> bool {
        self.arrival(t) == Arrival::Owned && !t.is_alias() && t.layout().is_non_overlapping_and_dense()
    }
}

/// The in-place steps PyTorch's backward formula for `node` takes on the gradient of an input
/// (its `derivatives.yaml` / `FunctionsManual.cpp` formula), where it takes any.
fn formula_steps(node: &str) -> u64 {
    match node {
        // `value_selecting_reduction_backward`: `at::zeros(..)` (its `zero_`) then `scatter_`.
        "MaxBackward0" | "MinBackward0" | "SortBackward0" | "TopkBackward0" => 2,
        // `evenly_distribute_backward`: `new_zeros(..).masked_fill_(..)`; `maximum`'s
        // `where(..).masked_fill_(..)`; `gather_backward`'s `new_zeros(..).scatter_add_(..)`;
        // `take_backward`'s `new_zeros(..).put_(..)`.
        "MaxBackward1" | "MinBackward1" | "MaximumBackward0" | "MinimumBackward0" | "GatherBackward0"
        | "TakeBackward0" => 1,
        // `index_select_backward`: `zeros(..).index_add_(..)`; `index_backward`:
        // `zeros_like(..).index_put_(..)`; `as_strided_backward`: `new_zeros(..)` then a
        // `copy_` or `index_add_` into its storage.
        "IndexSelectBackward0" | "IndexBackward0" | "AsStridedBackward0" => 1,
        _ => 0,
    }
}

/// PyTorch's `obeys_layout_contract(grad, variable)`.
pub(crate) fn obeys_layout_contract(grad: &Layout, variable: &Layout) -> bool {
    if grad.sizes() != variable.sizes() {
        return false;
    }
    if variable.is_non_overlapping_and_dense() {
        return grad.sizes().iter().zip(grad.strides().iter().zip(variable.strides())).all(|(&n, (&g, &v))| match n {
            1 => g != 0,
            _ => g == v,
        });
    }
    grad.is_contiguous()
}

impl Engine {
    /// A backward formula's results for `node` given the gradient `g`: their counters take the
    /// formula's in-place steps (a result of `g`'s own shape, not a pass-through or a view).
    pub(crate) fn count_formula_steps(&mut self, node: &str, g: &Tensor, grads: &[Option<Tensor>]) {
        let steps = formula_steps(node);
        // `maximum`'s gradient of a broadcast operand is reduced by `sum_to`, a fresh tensor.
        let elementwise = matches!(node, "MaximumBackward0" | "MinimumBackward0");
        for r in grads.iter().flatten() {
            let reduced = elementwise && r.shape() != g.shape();
            if steps > 0 && r.object_id() != g.object_id() && !r.is_alias() && !reduced {
                self.count_steps(r, steps);
            }
        }
    }

    /// The input buffer's sum of the gradient it holds (`old`) and an arriving one (`sum`, a
    /// fresh tensor): PyTorch adds in place into `old` when it holds the only reference to it
    /// (`old.add_(new)`), so the sum carries `old`'s version plus one; otherwise `old + new`
    /// is a new tensor at version 0.
    pub(crate) fn count_buffer_sum(&mut self, holders: &Holders, old: &Tensor, sum: &Tensor) {
        if holders.in_place(old) {
            let v = self.version(old) + 1;
            self.count_steps(sum, v);
        }
    }

    pub(crate) fn count_steps(&mut self, t: &Tensor, steps: u64) {
        for _ in 0..steps {
            self.ids.bump(t.counter);
        }
    }
}
