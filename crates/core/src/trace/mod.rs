//! The trace language: the subset of Python that PyTorch snippets are written in, as users type
//! or paste them, and the runner that executes it statement by statement.

pub mod ast;
pub mod autograd;
pub mod context;
pub mod copies;
pub mod decl;
pub mod device;
pub mod elementwise;
mod exec;
pub mod indexing;
pub mod kernels;
pub mod layer;
pub mod lexer;
pub mod library;
pub mod meta;
pub mod modules;
pub mod nn;
pub mod operators;
pub mod optim;
pub mod optimizer;
pub mod parser;
pub mod python;
pub mod random;
pub mod reductions;
pub mod reference;
pub mod report;
pub mod runner;
pub mod signature;
pub mod subscript;
pub mod suggest;
pub mod value;
pub mod views_extra;
