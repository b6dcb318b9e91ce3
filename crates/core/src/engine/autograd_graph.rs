//! What the page and the report show of the backward graph: the nodes reachable from live
//! tensors, with their edges and saved tensors' versions, and the saved tensors a write has
//! made stale.

use crate::autograd::{Edge, NodeId};
use crate::tensor::{Engine, Tensor};

/// One node of the backward graph as a report shows it ([`Engine::graph_from`]).
#[derive(Clone, Debug)]
pub struct NodeView {
    pub id: NodeId,
    /// PyTorch's class name.
    pub name: String,
    /// The trace line that recorded it.
    pub line: usize,
    /// Where each input's gradient goes (None: that input needs none).
    pub next: Vec<Option<Edge>>,
    /// A backward without `retain_graph` freed what it saved.
    pub freed: bool,
    pub saved: Vec<SavedView>,
}

/// A tensor a node saved: the version its counter had then and has now (they differ once a
/// write made it stale, and a backward through the node then fails).
#[derive(Clone, Debug)]
pub struct SavedView {
    pub tensor: Tensor,
    pub saved_version: u64,
    pub version: u64,
}

impl Engine {
    /// The backward graph reachable from `roots` (their `grad_fn`s and everything those feed),
    /// in the order the nodes were recorded: each node's edges, and each saved tensor with its
    /// version when saved and now.
    pub fn graph_from(&self, roots: &[&Tensor]) -> Vec<NodeView> {
        let seen = self.reachable(roots);
        seen.into_iter()
            .map(|id| {
                let n = self.ag.node(id);
                NodeView {
                    id,
                    name: n.name.clone(),
                    line: n.line,
                    next: n.next.clone(),
                    freed: n.freed && n.holds_saved,
                    saved: n
                        .saved
                        .iter()
                        .map(|s| SavedView {
                            tensor: s.tensor.clone(),
                            saved_version: s.version,
                            version: self.ids.version(s.counter),
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// Saved tensors of every node reachable from a live tensor that a write has made stale:
    /// `(node name, its line, saved tensor)`; a backward through any of them would fail.
    pub fn stale_saved(&self, roots: &[&Tensor]) -> Vec<(String, usize, Tensor)> {
        let mut out = Vec::new();
        for n in self.reachable(roots) {
            let node = self.ag.node(n);
            for s in &node.saved {
                if self.ids.version(s.counter) != s.version {
                    out.push((node.name.clone(), node.line, s.tensor.clone()));
                }
            }
        }
        out
    }

    /// The nodes reachable from the roots' `grad_fn`s, in the order they were recorded.
    pub(super) fn reachable(&self, roots: &[&Tensor]) -> std::collections::BTreeSet<NodeId> {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<NodeId> = roots.iter().filter_map(|t| self.ag.grad_fn(t)).collect();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(self.ag.node(n).next.iter().flatten().filter_map(|e| match e {
                    Edge::Node(m) => Some(*m),
                    Edge::Leaf(_) => None,
                }));
            }
        }
        seen
    }
}
