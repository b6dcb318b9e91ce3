//! Writes whose value reads the storage being written, element by element.
//!
//! PyTorch does not snapshot the source of an in-place op: when the target overlaps itself
//! (`a.unfold(0, 4, 2).add_(1)`) or an input in a way its overlap check cannot prove harmful,
//! each output element is computed from memory as it is at that moment, in TensorIterator's
//! iteration order. This module reproduces that; every other write takes the bulk path.

use super::alu;
use super::buffer::Data;
use super::interp::{self, fold_movement, Storages};
use super::{Graph, Op, StorageId, UOpId};
use crate::error::Result;
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use crate::torch::layout::Layout;

/// The value of a write, with reads of the written storage left live.
enum Plan {
    /// Storage offsets (in the written storage) per element; `None` reads as zero.
    Live(Vec<Option<i64>>),
    /// Anything that does not read the written storage, evaluated once up front.
    Dense(Data),
    /// The element being written, read before the write.
    Same,
    Unary(super::UnaryOp, Box<Plan>),
    Binary(super::BinaryOp, Box<Plan>, Box<Plan>),
    Where(Box<Plan>, Box<Plan>, Box<Plan>),
    Cast(crate::dtype::DType, Box<Plan>),
}

fn plan(graph: &Graph, storages: &dyn Storages, node: UOpId, s: StorageId, target: &ShapeTracker) -> Result<Plan> {
    if !graph.buffers_read(node).contains(&s) {
        return Ok(Plan::Dense(interp::realize(graph, storages, node)?));
    }
    let n = graph.node(node);
    let sub = |i: usize| plan(graph, storages, n.src[i], s, target).map(Box::new);
    Ok(match &n.op {
        Op::Unary(u) => Plan::Unary(*u, sub(0)?),
        Op::Binary(b) => Plan::Binary(*b, sub(0)?, sub(1)?),
        Op::Where => Plan::Where(sub(0)?, sub(1)?, sub(2)?),
        Op::Cast(d) => Plan::Cast(*d, sub(0)?),
        op if op.is_movement() => {
            let (base, st) = fold_movement(graph, node)?;
            match graph.node(base).op {
                // Through the target's own view: each element reads the one it writes (`a += 1`),
                // with no list of offsets (half a gigabyte at 2^26 elements).
                Op::Buffer(b) if b == s && st == *target => Plan::Same,
                Op::Buffer(b) if b == s => Plan::Live(st.offsets()),
                // A view of a computation over the written storage: PyTorch would have
                // materialised that computation first, so a snapshot is its semantics too.
                _ => Plan::Dense(interp::realize(graph, storages, node)?),
            }
        }
        Op::Buffer(_) if ShapeTracker::from_shape(&n.shape) == *target => Plan::Same,
        Op::Buffer(_) => Plan::Live((0..n.shape[0] as i64).map(Some).collect()),
        _ => Plan::Dense(interp::realize(graph, storages, node)?),
    })
}

/// Whether `value` reads storage `s` only through `target`, the view it is written through:
/// then each element reads the one it writes, and evaluating the whole value before storing it
/// is PyTorch's result.
pub fn reads_only_own(graph: &Graph, value: UOpId, s: StorageId, target: &Layout) -> Result<bool> {
    let own = ShapeTracker::from_view(View::new(target.sizes(), Some(target.strides()), target.offset(), None));
    reads_only_through(graph, value, s, &own)
}

/// Whether every read of storage `s` under `node` is through `target` (the written view).
fn reads_only_through(graph: &Graph, node: UOpId, s: StorageId, target: &ShapeTracker) -> Result<bool> {
    if !graph.buffers_read(node).contains(&s) {
        return Ok(true);
    }
    let n = graph.node(node);
    Ok(match &n.op {
        Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Cast(_) => {
            for &x in &n.src {
                if !reads_only_through(graph, x, s, target)? {
                    return Ok(false);
                }
            }
            true
        }
        op if op.is_movement() => {
            let (base, st) = fold_movement(graph, node)?;
            matches!(graph.node(base).op, Op::Buffer(b) if b == s) && st == *target
        }
        // The whole storage read in order: the target's view when that is the whole storage.
        Op::Buffer(_) => ShapeTracker::from_shape(&n.shape) == *target,
        _ => false,
    })
}

impl Plan {
    /// Element `i` of the value, which is written at storage element `at`.
    fn eval(&self, i: usize, at: i64, live: &Data) -> Data {
        match self {
            Plan::Live(off) => live.gather(&[off[i]]),
            Plan::Same => live.gather(&[Some(at)]),
            Plan::Dense(d) => d.gather(&[Some(i as i64)]),
            Plan::Unary(u, a) => alu::unary(*u, &a.eval(i, at, live)),
            Plan::Binary(b, x, y) => alu::binary(*b, &x.eval(i, at, live), &y.eval(i, at, live)),
            Plan::Where(c, x, y) => alu::select(&c.eval(i, at, live), &x.eval(i, at, live), &y.eval(i, at, live)),
            Plan::Cast(d, a) => a.eval(i, at, live).cast(*d),
        }
    }

    /// Whether any live read differs from reading the element being written.
    fn crosses(&self, target: &[i64]) -> bool {
        match self {
            Plan::Live(off) => off.iter().zip(target).any(|(o, t)| *o != Some(*t)),
            Plan::Dense(_) | Plan::Same => false,
            Plan::Unary(_, a) | Plan::Cast(_, a) => a.crosses(target),
            Plan::Binary(_, a, b) => a.crosses(target) || b.crosses(target),
            Plan::Where(a, b, c) => a.crosses(target) || b.crosses(target) || c.crosses(target),
        }
    }
}

/// A write that must run element by element.
pub struct Hazard {
    plan: Plan,
    elements: Vec<i64>,
    /// Row-major element numbers in the order they are stored.
    order: Vec<usize>,
}

/// Whether some storage element is written more than once through `target`.
fn repeats(target: &Layout, elements: &[i64]) -> bool {
    !target.is_non_overlapping_and_dense() && {
        let mut sorted = elements.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.len() != elements.len()
    }
}

/// Plans the write of `value` through `target` (whose storage elements are `elements`) into
/// storage `s`; `None` when a bulk write (evaluate the whole value, then store it) gives the
/// same result.
pub fn hazard(
    graph: &Graph,
    storages: &dyn Storages,
    s: StorageId,
    value: UOpId,
    target: &Layout,
    elements: &[i64],
) -> Result<Option<Hazard>> {
    let repeats = repeats(target, elements);
    let own = ShapeTracker::from_view(View::new(target.sizes(), Some(target.strides()), target.offset(), None));
    // The usual in-place op (`x.add_(1)`, `x += y`): every read of the written storage goes
    // through the target's own view, so each element reads the one it writes. Settled from
    // the graph alone, without evaluating the rest of the value twice.
    if !repeats && reads_only_through(graph, value, s, &own)? {
        return Ok(None);
    }
    let plan = plan(graph, storages, value, s, &own)?;
    if !repeats && !plan.crosses(elements) {
        return Ok(None);
    }
    Ok(Some(Hazard { plan, elements: elements.to_vec(), order: iteration_order(target, &[target]) }))
}

/// The write of an op whose result is computed in another dtype than the target's
/// (`uint8.add_(int64)`): TensorIterator computes it into a temporary from the inputs as they
/// were, then copies the temporary into the target. Only a target that writes some storage
/// element twice needs the copy's order (the last write wins); `None` otherwise.
pub fn copy_back(
    graph: &Graph,
    storages: &dyn Storages,
    value: UOpId,
    target: &Layout,
    elements: &[i64],
) -> Result<Option<Hazard>> {
    if !repeats(target, elements) {
        return Ok(None);
    }
    let temporary = Layout::contiguous(target.sizes());
    Ok(Some(Hazard {
        plan: Plan::Dense(interp::realize(graph, storages, value)?),
        elements: elements.to_vec(),
        order: iteration_order(target, &[target, &temporary]),
    }))
}

impl Hazard {
    /// Runs the write on the live storage in PyTorch's iteration order.
    pub fn apply(&self, live: &mut Data) {
        let dtype = live.dtype();
        for &i in &self.order {
            let v = self.plan.eval(i, self.elements[i], live).cast(dtype);
            live.scatter(&[self.elements[i]], &v);
        }
    }
}

/// Row-major element numbers in the order TensorIterator visits `operands` (the output first):
/// its dims sorted by their strides, innermost first.
fn iteration_order(target: &Layout, operands: &[&Layout]) -> Vec<usize> {
    let shape = target.sizes();
    let perm = Layout::iteration_perm(shape, operands);
    let n = target.numel();
    let row_major = Layout::contiguous(shape);
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        out.push(idx.iter().zip(row_major.strides()).map(|(&i, &st)| i as i64 * st).sum::<i64>() as usize);
        // Advance the innermost dim of the iteration first.
        for &d in &perm {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}
