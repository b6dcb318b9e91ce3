//! The handlers the table names, by theme.

pub use super::forms::*;
pub use super::index_more::*;
pub use super::linalg::*;
pub use super::misc::*;
pub use super::more_nn::*;
pub use super::nn::*;
pub use super::pointwise::*;
pub use super::pool::*;
pub use super::reduce::*;
pub use super::shape::*;
pub use super::spatial::*;
pub use super::special::*;
pub use super::stats::*;
