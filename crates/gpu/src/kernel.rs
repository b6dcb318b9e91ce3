//! The kernel description: everything the runtime needs to dispatch one WGSL compute shader and
//! to report what it cost. The scheduler will emit these; today tests write them by hand. The
//! limit checks live here, beside the numbers they check, so a caller can ask "does this fit?"
//! without a device and split the kernel when it does not.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One storage-buffer binding: `@group(0) @binding(i)` is the i-th entry of
/// [`KernelSpec::bindings`]; `buffer` indexes the buffer table passed to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    buffer: usize,
    read_only: bool,
}

/// How a kernel may use a storage buffer, as its WGSL binding declares it. An enum rather than a
/// bool parameter so that a call says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

impl Binding {
    pub fn new(buffer: usize, access: Access) -> Self {
        Binding { buffer, read_only: access == Access::ReadOnly }
    }
    pub fn buffer(&self) -> usize {
        self.buffer
    }
    pub fn read_only(&self) -> bool {
        self.read_only
    }
}

/// One compute dispatch: the shader, its bindings, the dispatch size and its cost model
/// (bytes moved and arithmetic done, used for GB/s and GFLOP/s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelSpec {
    name: String,
    wgsl: String,
    entry: String,
    bindings: Vec<Binding>,
    workgroups: [u32; 3],
    workgroup_size: [u32; 3],
    bytes_read: u64,
    bytes_written: u64,
    flops: u64,
}

impl KernelSpec {
    /// A kernel with no bindings, one workgroup of one invocation and zero cost; the builder
    /// methods below fill in the rest.
    pub fn new(name: impl Into<String>, wgsl: impl Into<String>, entry: impl Into<String>) -> Self {
        KernelSpec {
            name: name.into(),
            wgsl: wgsl.into(),
            entry: entry.into(),
            bindings: Vec::new(),
            workgroups: [1, 1, 1],
            workgroup_size: [1, 1, 1],
            bytes_read: 0,
            bytes_written: 0,
            flops: 0,
        }
    }

    /// Appends `@binding(len)` over buffer-table entry `buffer`.
    pub fn with_binding(mut self, buffer: usize, access: Access) -> Self {
        self.bindings.push(Binding::new(buffer, access));
        self
    }
    pub fn with_workgroups(mut self, workgroups: [u32; 3]) -> Self {
        self.workgroups = workgroups;
        self
    }
    pub fn with_workgroup_size(mut self, workgroup_size: [u32; 3]) -> Self {
        self.workgroup_size = workgroup_size;
        self
    }
    pub fn with_cost(mut self, bytes_read: u64, bytes_written: u64, flops: u64) -> Self {
        self.bytes_read = bytes_read;
        self.bytes_written = bytes_written;
        self.flops = flops;
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }
    pub fn entry(&self) -> &str {
        &self.entry
    }
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }
    pub fn workgroups(&self) -> [u32; 3] {
        self.workgroups
    }
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.workgroup_size
    }
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }
    pub fn flops(&self) -> u64 {
        self.flops
    }

    /// Checks the spec against `limits` and a buffer table of `buffer_sizes` (bytes), without a
    /// device. Everything wgpu would reject at bind-group or dispatch time is reported here as
    /// [`Error::Limit`] (with wgpu's name for the limit) or [`Error::Kernel`].
    pub fn check(&self, limits: &wgpu::Limits, buffer_sizes: &[u64]) -> Result<()> {
        let limit = |limit: &'static str, requested: u64, allowed: u64| -> Result<()> {
            if requested > allowed {
                return Err(Error::Limit { kernel: self.name.clone(), limit, requested, allowed });
            }
            Ok(())
        };
        let count = self.bindings.len() as u64;
        limit("max_storage_buffers_per_shader_stage", count, limits.max_storage_buffers_per_shader_stage.into())?;
        limit("max_bindings_per_bind_group", count, limits.max_bindings_per_bind_group.into())?;
        for &n in &self.workgroups {
            limit(
                "max_compute_workgroups_per_dimension",
                n.into(),
                limits.max_compute_workgroups_per_dimension.into(),
            )?;
        }
        let [x, y, z] = self.workgroup_size;
        if x == 0 || y == 0 || z == 0 {
            return Err(Error::kernel(
                &self.name,
                format!("workgroup size {:?} has a zero dimension", self.workgroup_size),
            ));
        }
        limit("max_compute_workgroup_size_x", x.into(), limits.max_compute_workgroup_size_x.into())?;
        limit("max_compute_workgroup_size_y", y.into(), limits.max_compute_workgroup_size_y.into())?;
        limit("max_compute_workgroup_size_z", z.into(), limits.max_compute_workgroup_size_z.into())?;
        limit(
            "max_compute_invocations_per_workgroup",
            u64::from(x) * u64::from(y) * u64::from(z),
            limits.max_compute_invocations_per_workgroup.into(),
        )?;
        for (i, b) in self.bindings.iter().enumerate() {
            let Some(&size) = buffer_sizes.get(b.buffer) else {
                return Err(Error::kernel(
                    &self.name,
                    format!("@binding({i}) names buffer {} but the run has {} buffers", b.buffer, buffer_sizes.len()),
                ));
            };
            limit("max_storage_buffer_binding_size", size, limits.max_storage_buffer_binding_size)?;
            // A writable storage binding may not share a dispatch with a read-only view of the
            // same buffer (WebGPU's usage-scope rule).
            if let Some((j, _)) =
                self.bindings[..i].iter().enumerate().find(|(_, o)| o.buffer == b.buffer && o.read_only != b.read_only)
            {
                return Err(Error::kernel(
                    &self.name,
                    format!(
                        "buffer {} is bound read-only and writable at once (@binding({j}) and \
                         @binding({i}))",
                        b.buffer
                    ),
                ));
            }
        }
        Ok(())
    }
}
