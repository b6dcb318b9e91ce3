//! The engine's typed API: the ops both front ends (the trace language and the ONNX lowering)
//! build on, each computing all three models (PyTorch's layout, tinygrad's tracker, the
//! bridge's report) over the [`Engine`](crate::tensor::Engine)'s lazy graph.
//!
//! Front ends bind their own names and arguments and call these methods; they never call each
//! other. [`views`] holds the view and movement ops, [`matmul`] PyTorch's matmul,
//! [`elementwise`] the composite elementwise ops written over the op table's primitives,
//! [`reduce`] the reductions, [`concat`] `cat` and `stack`, [`nn`] the neural-network ops.

pub mod concat;
pub mod elementwise;
pub mod matmul;
pub mod meta;
pub mod nn;
pub mod reduce;
pub mod views;
