//! Freeing what nothing reaches: a run on a budget (the page's, the CLI's without a kernel
//! replay) drops a storage's elements at the end of the statement that let go of it.

use crate::tensor::{Engine, StorageRef};
use crate::uop::buffer::Data;
use crate::uop::StorageId;

impl Engine {
    /// Frees the elements of every storage outside `live` (what the trace can reach) that the
    /// engine does not hold itself: what autograd may read, and the bridge's lazy tensors and
    /// mirrored views that something live reads, with what they read. The bridge's views and
    /// lazy tensors nothing reaches are forgotten, as tinygrad's bridge drops what Python
    /// drops, so a write refreshes only what is live. A freed storage keeps its id, dtype and
    /// version.
    pub fn reclaim(&mut self, live: &[StorageId]) {
        let mut keep: std::collections::HashSet<StorageId> = live.iter().copied().collect();
        for t in self.ag.held_tensors() {
            if let StorageRef::Realized(s) = t.storage() {
                keep.insert(s);
            }
        }
        loop {
            let before = keep.len();
            for m in self.mirrors.iter().filter(|m| keep.contains(&m.view)).collect::<Vec<_>>() {
                keep.insert(m.base);
            }
            for l in self.lazies.iter().filter(|l| keep.contains(&l.storage)).collect::<Vec<_>>() {
                keep.extend(l.reads.iter().copied());
                keep.extend(l.positions.as_ref().map(|p| p.0));
            }
            if keep.len() == before {
                break;
            }
        }
        self.mirrors.retain(|m| keep.contains(&m.view));
        self.lazies.retain(|l| keep.contains(&l.storage));
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
