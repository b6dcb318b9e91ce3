//! Code generation: scheduled kernels lowered to a small IR ([`ir`]), rendered as WGSL compute
//! shaders ([`wgsl`]) or executed directly on the CPU ([`cpu`]). Both backends read the same IR,
//! so the CPU executor is the check that the IR means what the reference interpreter computes.

pub mod cpu;
pub mod ir;
pub mod wgsl;
pub mod wgsl_check;
pub mod wgsl_helpers;
