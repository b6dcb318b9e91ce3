//! The engine's typed API, grouped by what it builds. `Engine` and `Tensor` themselves live in
//! `crate::tensor`; these modules add the ops front ends call directly (never by name).

pub mod elementwise;
