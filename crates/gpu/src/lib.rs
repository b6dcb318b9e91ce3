//! stridelab's GPU runtime, and the only crate in the workspace that names wgpu. It takes kernel
//! descriptions (WGSL plus bindings, dispatch size and cost), checks them against the adapter's
//! limits and with naga, runs them natively (Vulkan, Metal, DX12) or in the browser (WebGPU from
//! wasm32), reads buffers back asynchronously and times each kernel.
//!
//! [`exec`] runs a whole schedule from the core (upload, kernels, async readback).
//!
//! The modules read as the path of a kernel: [`device`] acquires or wraps a device, [`kernel`]
//! describes and limit-checks a dispatch, [`wgsl`] validates the shader, [`buffer`] moves bytes,
//! [`run`] executes and [`timing`] reports what each kernel cost.

pub mod buffer;
mod cache;
pub mod device;
pub mod error;
pub mod exec;
pub mod kernel;
pub mod model;
mod oneshot;
mod program;
pub mod run;
pub mod step;
pub mod timing;
pub mod train;
#[cfg(not(target_arch = "wasm32"))]
pub mod wgsl;

pub use buffer::GpuBuffer;
pub use device::{acquire, AcquireOptions, AdapterReport, Gpu, LimitsReport};
pub use error::{Error, Result};
pub use exec::ScheduleOutput;
pub use kernel::{Access, Binding, KernelSpec};
pub use model::{GpuModel, ModelRun};
/// The wgpu and naga this crate was built against, so callers can build devices and read
/// modules without naming either crate themselves.
#[cfg(not(target_arch = "wasm32"))]
pub use naga;
pub use run::{Prepared, RunOptions};
pub use timing::{chrome_trace, ChromeTrace, KernelTiming, Spread, TimingSource, TraceEvent};
pub use wgpu;
#[cfg(not(target_arch = "wasm32"))]
pub use wgsl::{check_module, validate_wgsl};
