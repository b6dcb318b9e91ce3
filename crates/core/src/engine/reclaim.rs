//! Freeing what nothing reaches: a run on a budget (the page's, the CLI's without a kernel
//! replay) drops a storage's elements at the end of the statement that let go of it.

use crate::tensor::{Engine, StorageRef};
use crate::uop::buffer::Data;
use crate::uop::StorageId;

/// A set of storages as one flag per storage id (ids are dense): the per-statement walks over
/// what autograd and the bridge hold insert every id they meet, thousands a statement in a long
/// chain, which a hashed set makes the cost of the run.
pub(crate) struct StorageSet(Vec<bool>);

impl StorageSet {
    pub(crate) fn new(storages: usize) -> Self {
        StorageSet(vec![false; storages])
    }

    /// Adds `s`; whether it was new.
    pub(crate) fn insert(&mut self, s: StorageId) -> bool {
        if s >= self.0.len() {
            self.0.resize(s + 1, false);
        }
        !std::mem::replace(&mut self.0[s], true)
    }

    pub(crate) fn contains(&self, s: StorageId) -> bool {
        self.0.get(s).copied().unwrap_or(false)
    }

    pub(crate) fn extend(&mut self, items: impl IntoIterator<Item = StorageId>) {
        for s in items {
            self.insert(s);
        }
    }
}

impl Engine {
    /// Brings [`crate::tensor::NodeHeld`] up to date (called after the statement's nodes are realized).
    fn gather_node_held(&mut self) {
        if self.node_held.frees != self.ag.frees {
            self.node_held = crate::tensor::NodeHeld { frees: self.ag.frees, ..Default::default() };
        }
        let from = self.node_held.scanned;
        let fresh = self.ag.held_by_nodes(from).filter_map(|t| match t.storage() {
            StorageRef::Realized(s) => Some(s),
            StorageRef::Pending(_) => None,
        });
        self.node_held.storages.extend(fresh);
        self.node_held.scanned = self.ag.nodes.len();
    }

    /// Frees the elements of every storage outside `live` (what the trace can reach) that the
    /// engine does not hold itself: what autograd may read, the bridge's lazy tensors with what
    /// they read, and its mirrored views that something kept reaches, with their bases. The
    /// bridge's views nothing reaches are forgotten, as tinygrad's bridge drops what Python
    /// drops, so a write refreshes only what is live. A freed storage keeps its id, dtype and
    /// version.
    pub fn reclaim(&mut self, live: &[StorageId]) {
        let mut keep = StorageSet::new(self.storages.len());
        keep.extend(live.iter().copied());
        self.gather_node_held();
        keep.extend(self.node_held.storages.iter().copied());
        for t in self.ag.held_by_meta() {
            if let StorageRef::Realized(s) = t.storage() {
                keep.insert(s);
            }
        }
        // Lazy tensors stay with what they read (each is recomputed when that is written).
        for l in &self.lazies {
            keep.insert(l.storage);
            keep.extend(l.reads.iter().copied());
            keep.extend(l.positions.as_ref().map(|p| p.0));
        }
        // Mirrored views stay while something kept reaches them, with their bases (each
        // storage looked at once); the rest are forgotten.
        if !self.mirrors.is_empty() {
            let mut bases: std::collections::HashMap<StorageId, Vec<StorageId>> = std::collections::HashMap::new();
            for m in &self.mirrors {
                bases.entry(m.view).or_default().push(m.base);
            }
            let mut stack: Vec<StorageId> = bases.keys().copied().filter(|&s| keep.contains(s)).collect();
            while let Some(s) = stack.pop() {
                for &b in bases.get(&s).into_iter().flatten() {
                    if keep.insert(b) {
                        stack.push(b);
                    }
                }
            }
            self.mirrors.retain(|m| keep.contains(m.view));
        }
        // Only what was kept last time and what is new: the cost follows what is live.
        let fresh = self.held.1..self.storages.len();
        self.held.1 = self.storages.len();
        for s in std::mem::take(&mut self.held.0).into_iter().chain(fresh).collect::<Vec<_>>() {
            if keep.contains(s) {
                self.held.0.push(s);
                continue;
            }
            let data = &mut self.storages[s].data;
            self.stored_bytes -= data.len() * data.dtype().itemsize();
            *data = Data::zeros(data.dtype(), 0);
            self.freed.insert(s);
        }
    }

    /// Whether [`Engine::reclaim`] freed storage `s`.
    pub fn is_freed(&self, s: StorageId) -> bool {
        self.freed.contains(&s)
    }
}
