//! Neural-network ops (`conv2d`, pooling, `softmax`, `linear`, `cat`, ...), composed from the
//! engine's graph ops the way tinygrad builds them, so they schedule into fused kernels.

use super::runner::Run;
use super::value::{Args, Value};
use crate::error::{bail, Result};
use crate::tensor::Tensor;

/// Module-level functions not in the core library (`conv2d(x, w)`, `F.softmax(x, 1)`).
pub fn function(_run: &mut Run, name: &str, _args: Args) -> Result<Value> {
    bail!(Unsupported, "{name}() is not supported")
}

/// Tensor methods not in the core library (`x.softmax(1)`).
pub fn method(_run: &mut Run, _t: Tensor, name: &str, _args: Args) -> Result<Value> {
    bail!(Unsupported, "Tensor.{name}() is not supported")
}
