//! One call of a `torch.autograd.Function` the trace defined, as the run keeps it (the run's
//! code for it is `runner/function.rs`).

use crate::autograd::NodeId;
use crate::tensor::Tensor;
use crate::trace::nn::modules::ModuleClass;
use crate::trace::python::value::{Module, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// One `F.apply(...)`: its class, its `ctx` and what the backward needs to know.
#[derive(Clone)]
pub(in crate::trace) struct FunctionCall {
    pub(in crate::trace) class: Rc<ModuleClass>,
    pub(in crate::trace) ctx: Rc<Module>,
    /// How many arguments the forward took, and which of them were tensors (the node's
    /// inputs, in order).
    pub(in crate::trace) nargs: usize,
    pub(in crate::trace) tensor_args: Vec<usize>,
    /// The tensor inputs' shapes and dtypes: each gradient is checked against them.
    pub(in crate::trace) inputs: Vec<(Vec<usize>, crate::dtype::DType)>,
    /// `ctx.needs_input_grad`: per argument, a tensor that requires grad.
    pub(in crate::trace) needs_input_grad: Vec<bool>,
    /// What `ctx.save_for_backward` got (kept by the node once it is recorded).
    pub(in crate::trace) saved: Vec<Tensor>,
    pub(in crate::trace) node: Option<NodeId>,
}

/// Every `F.apply(...)` of a run, by call, and which call each `ctx` object belongs to (a
/// module's attribute lookup asks, so it is a map, not a search).
#[derive(Default)]
pub(in crate::trace) struct FunctionCalls {
    calls: Vec<FunctionCall>,
    by_ctx: HashMap<*const Module, usize>,
}

impl FunctionCalls {
    /// Keeps `call`; returns its number.
    pub(in crate::trace) fn push(&mut self, call: FunctionCall) -> usize {
        let n = self.calls.len();
        self.by_ctx.insert(Rc::as_ptr(&call.ctx), n);
        self.calls.push(call);
        n
    }

    /// The number of the call whose `ctx` is `l`, if it is one.
    pub(in crate::trace) fn of_ctx(&self, l: &Rc<Module>) -> Option<usize> {
        if self.by_ctx.is_empty() {
            return None;
        }
        self.by_ctx.get(&Rc::as_ptr(l)).copied()
    }

    /// Every `ctx` object, for the walks that find what the run still reaches.
    pub(in crate::trace) fn ctxs(&self) -> impl Iterator<Item = Value> + '_ {
        self.calls.iter().map(|c| Value::Layer(c.ctx.clone()))
    }
}

impl std::ops::Index<usize> for FunctionCalls {
    type Output = FunctionCall;

    fn index(&self, call: usize) -> &FunctionCall {
        &self.calls[call]
    }
}

impl std::ops::IndexMut<usize> for FunctionCalls {
    fn index_mut(&mut self, call: usize) -> &mut FunctionCall {
        &mut self.calls[call]
    }
}
