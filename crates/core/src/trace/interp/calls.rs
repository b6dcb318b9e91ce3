//! One call of a `torch.autograd.Function` the trace defined, as the run keeps it (the run's
//! code for it is `runner/function.rs`).

use crate::autograd::NodeId;
use crate::tensor::Tensor;
use crate::trace::nn::modules::ModuleClass;
use crate::trace::python::value::{Module, Value};
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

impl FunctionCall {
    /// The `ctx` object, for the walks that find what the run still reaches.
    pub(in crate::trace) fn ctx(&self) -> Value {
        Value::Layer(self.ctx.clone())
    }
}
