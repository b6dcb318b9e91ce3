//! Movement chains folded into one tracker: what every evaluator of the graph reads a moved
//! value through.

use super::{Graph, Op, UOpId};
use crate::error::Result;
use crate::shape::tracker::ShapeTracker;

/// Folds the movement chain ending at `id` into (first non-movement node, tracker over its output).
pub fn fold_movement(graph: &Graph, id: UOpId) -> Result<(UOpId, ShapeTracker)> {
    fold_movement_until(graph, id, |_| false)
}

/// [`fold_movement`], also stopping at any node `stop` accepts (a kernel's realized inputs).
pub fn fold_movement_until(graph: &Graph, id: UOpId, stop: impl Fn(UOpId) -> bool) -> Result<(UOpId, ShapeTracker)> {
    let mut chain = Vec::new();
    let mut cur = id;
    while graph.node(cur).op.is_movement() && !stop(cur) {
        chain.push(cur);
        cur = graph.node(cur).src[0];
    }
    let mut st = ShapeTracker::from_shape(&graph.node(cur).shape);
    for &m in chain.iter().rev() {
        st = apply_movement(&st, &graph.node(m).op)?;
    }
    Ok((cur, st))
}

/// Applies one movement op to a tracker (the op's argument is relative to the tracker's shape).
pub fn apply_movement(st: &ShapeTracker, op: &Op) -> Result<ShapeTracker> {
    match op {
        Op::Reshape(s) => st.reshape(s),
        Op::Permute(p) => st.permute(p),
        Op::Expand(s) => st.expand(s),
        Op::Pad(p) => st.pad(p),
        Op::Shrink(s) => st.shrink(s),
        Op::Flip(f) => st.flip(f),
        Op::View(v) => v.views().iter().try_fold(st.clone(), |acc, view| acc.push(view.clone())),
        other => unreachable!("{} is not a movement op", other.name()),
    }
}
