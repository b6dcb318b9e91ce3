//! The trace language: a torch-flavoured subset of Python that users type or paste, and the
//! runner that executes it statement by statement.

pub mod ast;
pub mod context;
pub mod copies;
pub mod elementwise;
pub mod kernels;
pub mod lexer;
pub mod library;
pub mod meta;
pub mod nn;
pub mod operators;
pub mod parser;
pub mod random;
pub mod reductions;
pub mod report;
pub mod runner;
pub mod subscript;
pub mod value;
pub mod views_extra;
