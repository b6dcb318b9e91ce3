//! Freeing what nothing reaches: a run on a budget (the page's, the CLI's without a kernel
//! replay) drops a storage's elements at the end of the statement that let go of it.

use crate::tensor::{Engine, StorageRef};
use crate::uop::buffer::Data;
use crate::uop::StorageId;

impl Engine {
    /// Frees the elements of every storage outside `live` (what the trace can reach) that the
    /// engine does not hold itself: what autograd may read, the bridge's lazy tensors with what
    /// they read, and its mirrored views that something kept reaches, with their bases. The
    /// bridge's views nothing reaches are forgotten, as tinygrad's bridge drops what Python
    /// drops, so a write refreshes only what is live. A freed storage keeps its id, dtype and
    /// version.
    pub fn reclaim(&mut self, live: &[StorageId]) {
        let mut keep: std::collections::HashSet<StorageId> = live.iter().copied().collect();
        for t in self.ag.held_tensors() {
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
            let mut stack: Vec<StorageId> = keep.iter().copied().filter(|s| bases.contains_key(s)).collect();
            while let Some(s) = stack.pop() {
                for &b in bases.get(&s).into_iter().flatten() {
                    if keep.insert(b) {
                        stack.push(b);
                    }
                }
            }
            self.mirrors.retain(|m| keep.contains(&m.view));
        }
        // Only what was kept last time and what is new: the cost follows what is live.
        let fresh = self.held.1..self.storages.len();
        self.held.1 = self.storages.len();
        for s in std::mem::take(&mut self.held.0).into_iter().chain(fresh).collect::<Vec<_>>() {
            if keep.contains(&s) {
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
