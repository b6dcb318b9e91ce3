//! stridelab's core: everything a trace needs, with no I/O, no global state and no platform
//! dependency, so the same code runs in the CLI, in tests and compiled to wasm in the browser.
//!
//! The modules read as the pipeline: [`trace`] parses and runs the user's text; each statement
//! builds tensors whose PyTorch layout lives in [`torch`], whose tinygrad-style view stack lives in
//! [`shape`], and whose computation is a lazy graph in [`uop`], realized by the reference
//! interpreter. [`share`] turns a trace into a link and back.

pub mod autograd;
pub mod capture;
pub mod cells;
pub mod codegen;
pub mod data;
pub mod dtype;
pub mod engine;
pub mod error;
pub mod fuzzing;
pub mod identity;
pub mod limits;
pub mod model;
pub mod onnx;
pub mod random;
pub mod schedule;
pub mod semantics;
mod sgemm;
pub mod shape;
pub mod share;
pub mod strided;
pub mod tensor;
pub mod torch;
pub mod trace;
pub mod train;
pub mod uop;

pub use dtype::DType;
pub use error::{Error, Result};
