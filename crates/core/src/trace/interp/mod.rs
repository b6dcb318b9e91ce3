//! The statement interpreter: the runner that executes each statement of a trace as a step
//! (scopes, blocks, calls, comprehensions, realizing what a step made) and the same run turned
//! into kernels for the kernel backends.

mod builtins;
mod calls;
mod comprehension;
mod exec;
mod generator;
pub mod kernels;
pub mod runner;
mod special;
