//! The torch binding: every function, method and attribute of `torch`, `Tensor` and
//! `torch.nn.functional` a trace may call, declared once (`decl`), bound to PyTorch's
//! signatures (`signature`) and run on the engine (elementwise ops, reductions, views, copies,
//! subscripts and indexing, metadata, random draws, autograd, devices); Python's operators on
//! tensors; "did you mean" over every name.

pub mod autograd;
pub mod copies;
pub mod decl;
pub mod device;
pub mod elementwise;
pub mod functional;
pub mod indexing;
pub mod library;
pub mod meta;
pub mod methods;
pub mod numpy;
pub mod numpy_calls;
pub mod operators;
pub mod query;
pub mod random;
pub mod reductions;
pub mod signature;
pub mod subscript;
pub mod suggest;
pub mod views_extra;
