//! tinygrad 0.10.3's view model: a [`view::View`] is one affine map (with an optional validity
//! mask) from a logical index to a buffer offset; a [`tracker::ShapeTracker`] stacks views for
//! what one view cannot express. [`symbolic`] renders the resulting index and validity
//! expressions as text for the UI and as code for the WGSL generator.

pub mod symbolic;
pub mod tracker;
pub mod view;
