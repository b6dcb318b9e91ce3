//! The trace language: the subset of Python that PyTorch snippets are written in, as users type
//! or paste them, and the runner that executes it statement by statement.
//!
//! One folder per job, each layer importing only those below it (`cargo xtask imports` checks):
//! - [`lang`]: text to syntax (tokens, the syntax tree, the parser); no semantics.
//! - [`python`]: Python's own values and builtins (truth, iteration, `repr`, `str`, `math`).
//! - [`binding`]: the torch binding: every `torch.X`/`Tensor.X` op, declared once and bound to the
//!   engine.
//! - [`nn`]: `torch.nn` (functional ops, modules) and `torch.optim`.
//! - [`interp`]: the statement interpreter: values, scopes, statements, calls, writes.
//! - [`report`]: what a run reports (the JSON schema), the op reference and "did you mean".

pub mod binding;
pub mod interp;
pub mod lang;
pub mod nn;
pub mod python;
pub mod report;
