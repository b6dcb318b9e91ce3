//! PyTorch's alias model: how sizes, strides and storage_offset come out of each view op, when
//! an op has to copy, and the memory-overlap rules that decide whether a write is allowed.

pub mod device;
pub mod format;
pub mod iterator;
pub mod layout;
pub mod overlap;
pub mod stl;
