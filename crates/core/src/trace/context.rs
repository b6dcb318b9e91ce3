//! What an op of the library may touch while a statement runs: the engine, and the record of
//! the writes the statement made (for the step's report). The runner owns both and lends them
//! here, so the library and the runner do not import each other.

use crate::tensor::{Engine, Tensor, Write};

/// The part of a run an op may touch; made by the runner for each call into the library.
pub struct RunContext<'a> {
    pub engine: &'a mut Engine,
    writes: &'a mut Vec<Write>,
    rebound: Vec<Tensor>,
}

impl<'a> RunContext<'a> {
    pub fn new(engine: &'a mut Engine, writes: &'a mut Vec<Write>) -> Self {
        RunContext { engine, writes, rebound: Vec::new() }
    }

    /// Notes a write for the statement's step (which storage cells it changed).
    pub fn record_write(&mut self, w: Write) {
        self.writes.push(w);
    }

    /// Drops the statement's records of writes into `storage`: a temporary no name shows
    /// (the copy `a[idx] += v` reads, adds to and puts back).
    pub fn forget_writes(&mut self, storage: crate::uop::StorageId) {
        self.writes.retain(|w| w.storage != storage);
    }

    /// Notes that an in-place metadata op changed the object `t` (every name bound to it must
    /// see the new layout).
    pub fn record_rebind(&mut self, t: &Tensor) {
        self.rebound.push(t.clone());
    }

    /// The objects the call changed, for the runner to rebind.
    pub fn into_rebound(self) -> Vec<Tensor> {
        self.rebound
    }
}
