//! What an op of the library may touch while a statement runs: the engine, the record of the
//! writes the statement made (for the step's report), and the library's calls by name. The
//! runner owns them and lends them here, so the library and the runner do not import each
//! other, and the code the library dispatches to (declared ops, Python's builtins) calls torch
//! ops by name without importing the library.

use crate::error::Result;
use crate::tensor::{Engine, Tensor, Write};
use crate::trace::lang::ast::BinOp;
use crate::trace::python::value::{Args, Value};

/// The op library's entries by name (`library::function` and `library::method`) and Python's
/// binary operators over any values (`operators::binary`, tensors included), lent by the runner
/// with the engine.
#[derive(Clone, Copy)]
pub struct Library {
    pub function: fn(&mut RunContext<'_>, &str, Args) -> Result<Value>,
    pub method: fn(&mut RunContext<'_>, Tensor, &str, Args) -> Result<Value>,
    pub binary: fn(&mut RunContext<'_>, BinOp, Value, Value) -> Result<Value>,
}

/// The part of a run an op may touch; made by the runner for each call into the library.
pub struct RunContext<'a> {
    pub engine: &'a mut Engine,
    writes: &'a mut Vec<Write>,
    rebound: Vec<Tensor>,
    library: Library,
}

impl<'a> RunContext<'a> {
    pub fn new(engine: &'a mut Engine, writes: &'a mut Vec<Write>, library: Library) -> Self {
        RunContext { engine, writes, rebound: Vec::new(), library }
    }

    /// `torch.name(args)` as the op library runs it.
    pub fn function(&mut self, name: &str, args: Args) -> Result<Value> {
        let function = self.library.function;
        function(self, name, args)
    }

    /// `t.name(args)` as the op library runs it.
    pub fn method(&mut self, t: Tensor, name: &str, args: Args) -> Result<Value> {
        let method = self.library.method;
        method(self, t, name, args)
    }

    /// `a <op> b` as Python's operator runs it on any two values.
    pub fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Result<Value> {
        let binary = self.library.binary;
        binary(self, op, a, b)
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
