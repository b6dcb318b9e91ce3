//! Getting a device, kept apart from running work on it (as wgpu's own examples do): natively the
//! crate asks for an adapter itself, while the web page (or a test that wants other limits) builds
//! its device and hands it over through [`Gpu::from_device`]. Either way the [`Gpu`] remembers the
//! limits and features it was given, because every kernel is checked against them before it runs.

use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::Serialize;

use crate::cache::{PipelineCache, TimestampSlots};
use crate::error::{Error, Result};

/// How [`acquire`] picks an adapter.
#[derive(Clone, Debug, Default)]
pub struct AcquireOptions {
    power_preference: wgpu::PowerPreference,
    force_fallback_adapter: bool,
}

impl AcquireOptions {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_power_preference(mut self, preference: wgpu::PowerPreference) -> Self {
        self.power_preference = preference;
        self
    }
    /// Asks for the software ("fallback") adapter only, e.g. lavapipe.
    pub fn with_fallback_adapter(mut self, fallback: bool) -> Self {
        self.force_fallback_adapter = fallback;
        self
    }
    pub fn power_preference(&self) -> wgpu::PowerPreference {
        self.power_preference
    }
    pub fn fallback_adapter(&self) -> bool {
        self.force_fallback_adapter
    }
}

/// Requests an adapter (backends from `WGPU_BACKEND` when set), then a device with the adapter's
/// own limits rather than wgpu's conservative defaults, and with `TIMESTAMP_QUERY` when the
/// adapter offers it.
pub async fn acquire(opts: &AcquireOptions) -> Result<Gpu> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: opts.power_preference,
            force_fallback_adapter: opts.force_fallback_adapter,
            compatible_surface: None,
            apply_limit_buckets: false,
        })
        .await
        .map_err(|e| Error::NoAdapter(e.to_string()))?;
    let limits = adapter.limits();
    let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("stridelab"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        })
        .await
        .map_err(|e| Error::RequestDevice(e.to_string()))?;
    Ok(Gpu::from_device(adapter.get_info(), device, queue, features, limits))
}

/// What [`Gpu::describe`] reports: the adapter, its timer and the limits kernels are checked
/// against. The fields serialize, in this order, to the keys the CLI and the page print.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub timestamp_query: bool,
    pub timestamp_period_ns: Option<f64>,
    pub limits: LimitsReport,
}

/// The limits in an [`AdapterReport`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LimitsReport {
    pub max_storage_buffers_per_shader_stage: u32,
    pub max_bindings_per_bind_group: u32,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_compute_workgroups_per_dimension: u32,
    /// x, y, z.
    pub max_compute_workgroup_size: [u32; 3],
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_storage_size: u32,
}

/// A device and queue with the limits and features the runtime may rely on, plus the pipeline
/// cache. All work goes through its methods (buffers, [`Gpu::run`]).
pub struct Gpu {
    info: wgpu::AdapterInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    features: wgpu::Features,
    limits: wgpu::Limits,
    pipelines: Mutex<PipelineCache>,
    timestamps: Mutex<Option<TimestampSlots>>,
}

impl Gpu {
    /// Wraps a device created elsewhere. `features` and `limits` must be ones the device was
    /// created with (or tighter: kernels are checked against what is passed here).
    pub fn from_device(
        info: wgpu::AdapterInfo,
        device: wgpu::Device,
        queue: wgpu::Queue,
        features: wgpu::Features,
        limits: wgpu::Limits,
    ) -> Self {
        Gpu {
            info,
            device,
            queue,
            features,
            limits,
            pipelines: Mutex::new(PipelineCache::new()),
            timestamps: Mutex::new(None),
        }
    }

    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    pub fn features(&self) -> wgpu::Features {
        self.features
    }
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Nanoseconds per timestamp tick, or `None` when kernels are timed by the wall clock.
    pub fn timestamp_period_ns(&self) -> Option<f64> {
        let period = f64::from(self.queue.get_timestamp_period());
        (self.features.contains(wgpu::Features::TIMESTAMP_QUERY) && period > 0.0).then_some(period)
    }

    /// The adapter, its timer and the limits kernels are checked against, for logs and the page.
    pub fn describe(&self) -> AdapterReport {
        let l = &self.limits;
        AdapterReport {
            name: self.info.name.clone(),
            backend: format!("{:?}", self.info.backend),
            device_type: format!("{:?}", self.info.device_type),
            driver: self.info.driver.clone(),
            driver_info: self.info.driver_info.clone(),
            timestamp_query: self.timestamp_period_ns().is_some(),
            timestamp_period_ns: self.timestamp_period_ns(),
            limits: LimitsReport {
                max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
                max_bindings_per_bind_group: l.max_bindings_per_bind_group,
                max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
                max_buffer_size: l.max_buffer_size,
                max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
                max_compute_workgroup_size: [
                    l.max_compute_workgroup_size_x,
                    l.max_compute_workgroup_size_y,
                    l.max_compute_workgroup_size_z,
                ],
                max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
                max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            },
        }
    }

    pub(crate) fn pipelines(&self) -> MutexGuard<'_, PipelineCache> {
        // The map holds no invariant a panicking holder could break half-way, so a poisoned lock
        // is still a usable cache.
        self.pipelines.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The timestamp queries and buffers the last timed run left for reuse.
    pub(crate) fn timestamp_slots(&self) -> MutexGuard<'_, Option<TimestampSlots>> {
        // Poisoning cannot leave half-built slots behind: they are put back whole or not at all.
        self.timestamps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Number of distinct pipelines built so far.
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines().values().map(Vec::len).sum()
    }

    /// Runs `f` (which creates resources or submits work) inside error scopes, so a device error
    /// comes back as [`Error::Device`] instead of reaching wgpu's default handler, which panics.
    pub(crate) async fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let out = f();
        // Scopes pop innermost first; all are popped before any is awaited.
        let pending = [internal.pop(), validation.pop(), oom.pop()];
        let mut first = None;
        for p in pending {
            if let Some(e) = p.await {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(Error::Device(format!("{what}: {e}"))),
            None => Ok(out),
        }
    }

    /// Waits until the queue has finished all submitted work. Natively this blocks in
    /// `device.poll`; on the web it awaits the queue's promise, never blocking the page.
    pub(crate) async fn idle(&self) -> Result<()> {
        #[cfg(not(target_family = "wasm"))]
        {
            wait_for_queue(&self.device)
        }
        #[cfg(target_family = "wasm")]
        {
            let (tx, rx) = crate::oneshot::oneshot::<()>();
            self.queue.on_submitted_work_done(move || tx.send(()));
            rx.await.ok_or_else(|| Error::Device("the queue dropped its completion callback".into()))
        }
    }
}

/// Blocks until the device's queue is empty. A blocking wait sleeps until the driver signals,
/// and on a busy machine waking up costs more than a short kernel takes, so the queue is
/// polled first, yielding the core between polls (the driver's threads may need it), for up to
/// `SPIN`; past that the wait blocks.
#[cfg(not(target_family = "wasm"))]
pub(crate) fn wait_for_queue(device: &wgpu::Device) -> Result<()> {
    const SPIN: std::time::Duration = std::time::Duration::from_micros(500);
    let start = std::time::Instant::now();
    while start.elapsed() < SPIN {
        match device.poll(wgpu::PollType::Poll) {
            Ok(status) if status.is_queue_empty() => return Ok(()),
            Ok(_) => std::thread::yield_now(),
            Err(e) => return Err(Error::Device(e.to_string())),
        }
    }
    device.poll(wgpu::PollType::wait_indefinitely()).map(drop).map_err(|e| Error::Device(e.to_string()))
}
