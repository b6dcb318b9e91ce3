//! What a device keeps between runs: the pipelines built so far, by WGSL text, and the timestamp
//! queries and buffers of the last timed run. The device owns them; running fills them.

use std::sync::Arc;

use crate::kernel::KernelSpec;

/// A pipeline is reusable for the same WGSL, entry point and binding access pattern. The cache
/// is keyed by the WGSL text (looked up by reference, so a hit copies nothing); the few variants
/// of one text sit in a list.
pub(crate) type PipelineCache = std::collections::HashMap<String, Vec<Arc<Pipeline>>>;

pub(crate) struct Pipeline {
    entry: String,
    read_only: Vec<bool>,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

impl Pipeline {
    /// A pipeline built for `spec` from its bind group layout.
    pub(crate) fn new(spec: &KernelSpec, pipeline: wgpu::ComputePipeline, layout: wgpu::BindGroupLayout) -> Self {
        Pipeline {
            entry: spec.entry().to_owned(),
            read_only: spec.bindings().iter().map(|b| b.read_only()).collect(),
            pipeline,
            layout,
        }
    }

    pub(crate) fn compute(&self) -> &wgpu::ComputePipeline {
        &self.pipeline
    }

    pub(crate) fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Whether this pipeline runs `spec` (same entry point and binding access).
    pub(crate) fn serves(&self, spec: &KernelSpec) -> bool {
        self.entry == spec.entry()
            && self.read_only.len() == spec.bindings().len()
            && self.read_only.iter().zip(spec.bindings()).all(|(&r, b)| r == b.read_only())
    }
}

/// The query sets, resolve buffer and readback buffer of a timed run, kept for the next one.
pub(crate) struct TimestampSlots {
    pub(crate) sets: Vec<wgpu::QuerySet>,
    pub(crate) resolve: wgpu::Buffer,
    pub(crate) staging: wgpu::Buffer,
    /// Queries the slots hold.
    pub(crate) capacity: usize,
}
