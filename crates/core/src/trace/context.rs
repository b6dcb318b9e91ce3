//! What an op of the library may touch while a statement runs: the engine, and the record of
//! the writes the statement made (for the step's report). The runner owns both and lends them
//! here, so the library and the runner do not import each other.

use crate::tensor::{Engine, Write};

/// The part of a run an op may touch; made by the runner for each call into the library.
pub struct RunContext<'a> {
    pub engine: &'a mut Engine,
    writes: &'a mut Vec<Write>,
}

impl<'a> RunContext<'a> {
    pub fn new(engine: &'a mut Engine, writes: &'a mut Vec<Write>) -> Self {
        RunContext { engine, writes }
    }

    /// Notes a write for the statement's step (which storage cells it changed).
    pub fn record_write(&mut self, w: Write) {
        self.writes.push(w);
    }
}
