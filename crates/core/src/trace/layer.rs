//! What a `torch.nn` layer is, as a trace value holds it (the layers' behaviour is
//! `modules.rs`; this file imports nothing of the trace, so values can hold layers).

use crate::tensor::Tensor;
use std::rc::Rc;

/// One layer: what it computes, its parameters (by PyTorch's names) and its children.
#[derive(Debug)]
pub struct Layer {
    pub kind: LayerKind,
    pub params: Vec<(&'static str, Tensor)>,
    pub children: Vec<Rc<Layer>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerKind {
    Linear {
        in_features: usize,
        out_features: usize,
        bias: bool,
    },
    Relu,
    Flatten {
        start: i64,
        end: i64,
    },
    Sequential,
    Embedding {
        num: usize,
        dim: usize,
    },
    /// Over the last `dims` dims.
    LayerNorm {
        dims: usize,
        eps: f64,
    },
}
