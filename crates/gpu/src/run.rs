//! Running a list of kernels over a buffer table and timing each. Pipelines are built from
//! explicit bind group layouts (never `layout: auto`, which drops bindings the shader does not
//! use and then silently binds nothing), cached by WGSL text, and every kernel is checked
//! against the limits before wgpu sees it. With timestamp queries, each kernel runs in its own
//! compute pass with begin/end timestamps; all passes of a run share one query set and one
//! resolve buffer, read back once at the end, so timing never stalls between kernels.
//!
//! Dispatching a small kernel costs little more than creating what it needs, so nothing is
//! created twice: [`Gpu::prepare`] binds kernels to buffers once (pipelines and bind groups)
//! for callers that run the same work again, and the query sets, resolve and readback buffers
//! of timed runs are kept on the device and reused by the next run that fits in them.

use std::sync::Arc;

use web_time::Instant;

use crate::buffer::GpuBuffer;
use crate::cache::{Pipeline, TimestampSlots};
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::kernel::KernelSpec;
use crate::timing::{KernelTiming, TimingSource};
#[cfg(not(target_arch = "wasm32"))]
use crate::wgsl::{check_module, validate_wgsl};
use stridelab_core::codegen::wgsl_check::loops_are_counted;

/// How a run is repeated and timed.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    repeats: u32,
    wallclock: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { repeats: 1, wallclock: false }
    }
}

impl RunOptions {
    pub fn new() -> Self {
        Self::default()
    }
    /// Runs each kernel `repeats` times back to back (all repeats of kernel 0, then of kernel 1,
    /// ...). The kernels must then be idempotent for the buffers to hold one run's result.
    pub fn with_repeats(mut self, repeats: u32) -> Self {
        self.repeats = repeats;
        self
    }
    /// Times with the host clock even when the adapter has timestamp queries.
    pub fn with_wallclock(mut self, wallclock: bool) -> Self {
        self.wallclock = wallclock;
        self
    }
    pub fn repeats(&self) -> u32 {
        self.repeats
    }
    pub fn wallclock(&self) -> bool {
        self.wallclock
    }
}

/// Kernels bound to a buffer table: checked, with their pipelines and bind groups built, so
/// running them again costs only the submission. Made by [`Gpu::prepare`].
pub struct Prepared<'a> {
    specs: &'a [KernelSpec],
    pipelines: Vec<Arc<Pipeline>>,
    groups: Vec<wgpu::BindGroup>,
}

impl Prepared<'_> {
    pub fn kernels(&self) -> &[KernelSpec] {
        self.specs
    }
}

/// Bytes per resolved timestamp.
const TICK_BYTES: u64 = 8;

impl Gpu {
    /// Checks, then runs `kernels` in order over `buffers` (a kernel's binding `buffer: i` is
    /// `buffers[i]`), and returns one timing per kernel. Results stay in the buffers.
    pub async fn run(
        &self,
        kernels: &[KernelSpec],
        buffers: &[&GpuBuffer],
        opts: &RunOptions,
    ) -> Result<Vec<KernelTiming>> {
        let prepared = self.prepare(kernels, buffers).await?;
        self.run_prepared(&prepared, opts).await
    }

    /// Checks `kernels` against the limits and `buffers`, and builds their pipelines (cached on
    /// the device) and bind groups, for [`Gpu::run_prepared`] to run as often as wanted.
    pub async fn prepare<'a>(&self, kernels: &'a [KernelSpec], buffers: &[&GpuBuffer]) -> Result<Prepared<'a>> {
        for (i, b) in buffers.iter().enumerate() {
            if let Some(j) = buffers[..i].iter().position(|o| o.raw() == b.raw()) {
                return Err(Error::Invalid(format!(
                    "the buffer table lists one buffer twice (entries {j} and {i}); bind the \
                     same index instead"
                )));
            }
        }
        let sizes: Vec<u64> = buffers.iter().map(|b| b.size()).collect();
        for k in kernels {
            k.check(self.limits(), &sizes)?;
        }
        let mut pipelines = Vec::with_capacity(kernels.len());
        for k in kernels {
            pipelines.push(self.pipeline(k).await?);
        }
        let groups = self
            .scoped("creating bind groups", || {
                kernels
                    .iter()
                    .zip(&pipelines)
                    .map(|(k, p)| {
                        let entries: Vec<wgpu::BindGroupEntry<'_>> = k
                            .bindings()
                            .iter()
                            .enumerate()
                            .map(|(i, b)| wgpu::BindGroupEntry {
                                binding: i as u32,
                                resource: buffers[b.buffer()].raw().as_entire_binding(),
                            })
                            .collect();
                        self.device().create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(k.name()),
                            layout: p.layout(),
                            entries: &entries,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        Ok(Prepared { specs: kernels, pipelines, groups })
    }

    /// Runs prepared kernels in order and returns one timing per kernel.
    pub async fn run_prepared(&self, prepared: &Prepared<'_>, opts: &RunOptions) -> Result<Vec<KernelTiming>> {
        if opts.repeats == 0 {
            return Err(Error::Invalid("a run needs at least one repeat".into()));
        }
        let passes: Vec<Pass<'_>> = prepared
            .specs
            .iter()
            .zip(&prepared.pipelines)
            .zip(&prepared.groups)
            .map(|((spec, p), group)| Pass { spec, pipeline: p.compute(), group })
            .collect();
        match self.timestamp_period_ns() {
            Some(period) if !opts.wallclock => self.run_timestamped(&passes, opts.repeats, period).await,
            _ => self.run_wallclock(&passes, opts.repeats).await,
        }
    }

    /// The cached pipeline for `spec`, built (after naga validation and the spec/shader
    /// comparison) on first use.
    pub(crate) async fn pipeline(&self, spec: &KernelSpec) -> Result<Arc<Pipeline>> {
        if let Some(p) = self.pipelines().get(spec.wgsl()).and_then(|v| v.iter().find(|p| p.serves(spec))) {
            return Ok(Arc::clone(p));
        }
        // Natively naga checks the shader and its bindings first; in the browser the WebGPU
        // implementation validates it, and a failure arrives through the error scope below.
        #[cfg(not(target_arch = "wasm32"))]
        check_module(spec, &validate_wgsl(spec.wgsl())?)?;
        let built = self
            .scoped(&format!("building the pipeline of `{}`", spec.name()), || {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = spec
                    .bindings()
                    .iter()
                    .enumerate()
                    .map(|(i, b)| wgpu::BindGroupLayoutEntry {
                        binding: i as u32,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: b.read_only() },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                let layout = self.device().create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(spec.name()),
                    entries: &entries,
                });
                let pipeline_layout = self.device().create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(spec.name()),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(spec.name()),
                    source: wgpu::ShaderSource::Wgsl(spec.wgsl().into()),
                };
                // wgpu guards every loop iteration against running forever, which costs a
                // short loop up to half its time on a CPU driver; a shader whose loops all
                // provably end does without. Bounds checks stay on either way.
                let shader = if loops_are_counted(spec.wgsl()) {
                    let checks = wgpu::ShaderRuntimeChecks { force_loop_bounding: false, ..Default::default() };
                    // SAFETY: the only check dropped is the loop guard, and `loops_are_counted`
                    // held: every loop is a `for` whose i32 counter only its own step changes,
                    // bounded by a literal the step cannot wrap past, so every loop ends.
                    unsafe { self.device().create_shader_module_trusted(desc, checks) }
                } else {
                    self.device().create_shader_module(desc)
                };
                let pipeline = self.device().create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(spec.name()),
                    layout: Some(&pipeline_layout),
                    module: &shader,
                    entry_point: Some(spec.entry()),
                    compilation_options: Default::default(),
                    cache: None,
                });
                Pipeline::new(spec, pipeline, layout)
            })
            .await?;
        let built = Arc::new(built);
        self.pipelines().entry(spec.wgsl().to_owned()).or_default().push(Arc::clone(&built));
        Ok(built)
    }

    async fn run_timestamped(&self, passes: &[Pass<'_>], repeats: u32, period_ns: f64) -> Result<Vec<KernelTiming>> {
        let reps = repeats as usize;
        let queries = 2 * passes.len() * reps;
        if queries == 0 {
            return Ok(Vec::new());
        }
        // A query set holds at most 4096 queries; larger runs use several sets resolved into
        // consecutive ranges of the one buffer (each range starts 32 KiB in, a multiple of the
        // 256-byte resolve alignment). Begin/end pairs never straddle sets: 4096 is even.
        let per_set = wgpu::QUERY_SET_MAX_QUERIES as usize;
        let bytes = queries as u64 * TICK_BYTES;
        // Slots in use by a concurrent run are simply not there: this run makes its own.
        let kept = self.timestamp_slots().take().filter(|t| t.capacity >= queries);
        let slots = match kept {
            Some(t) => t,
            None => {
                self.scoped("creating timestamp queries", || {
                    // Room for twice the queries, so slowly growing runs do not rebuild each time.
                    let capacity = 2 * queries;
                    let sets = (0..capacity.div_ceil(per_set))
                        .map(|s| {
                            self.device().create_query_set(&wgpu::QuerySetDescriptor {
                                label: Some("kernel timestamps"),
                                ty: wgpu::QueryType::Timestamp,
                                count: per_set.min(capacity - s * per_set) as u32,
                            })
                        })
                        .collect();
                    let size = capacity as u64 * TICK_BYTES;
                    let resolve = self.device().create_buffer(&wgpu::BufferDescriptor {
                        label: Some("timestamps"),
                        size,
                        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    });
                    let staging = self.device().create_buffer(&wgpu::BufferDescriptor {
                        label: Some("timestamps readback"),
                        size,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    });
                    TimestampSlots { sets, resolve, staging, capacity }
                })
                .await?
            }
        };
        // A query set holds at most 4096 queries; larger runs use several sets resolved into
        // consecutive ranges of the one buffer (each range starts 32 KiB in, a multiple of the
        // 256-byte resolve alignment). Begin/end pairs never straddle sets: 4096 is even.
        self.scoped("submitting the kernels", || {
            let mut encoder = self.device().create_command_encoder(&Default::default());
            for (k, pass) in passes.iter().enumerate() {
                for r in 0..reps {
                    let q = 2 * (k * reps + r);
                    let set = &slots.sets[q / per_set];
                    let index = (q % per_set) as u32;
                    let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(pass.spec.name()),
                        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(index),
                            end_of_pass_write_index: Some(index + 1),
                        }),
                    });
                    pass.record(&mut cpass);
                }
            }
            for (s, set) in slots.sets.iter().enumerate() {
                let used = queries.saturating_sub(s * per_set).min(per_set) as u32;
                if used > 0 {
                    let offset = (s * per_set) as u64 * TICK_BYTES;
                    encoder.resolve_query_set(set, 0..used, &slots.resolve, offset);
                }
            }
            encoder.copy_buffer_to_buffer(&slots.resolve, 0, &slots.staging, 0, bytes);
            self.queue().submit([encoder.finish()]);
        })
        .await?;
        let raw = self.map_read(&slots.staging, bytes).await;
        *self.timestamp_slots() = Some(slots);
        let raw = raw?;
        let ticks: Vec<u64> = raw
            .chunks_exact(TICK_BYTES as usize)
            .map(|c| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        let resolution_ns = match tick_quantum(&ticks) {
            Some(q) => q as f64 * period_ns,
            // Every timestamp read zero: the timer measured nothing.
            None => f64::INFINITY,
        };
        let origin = ticks[0];
        let since = |t: u64| t.saturating_sub(origin) as f64 * period_ns;
        Ok(passes
            .iter()
            .enumerate()
            .map(|(k, pass)| {
                let own = &ticks[2 * k * reps..2 * (k + 1) * reps];
                let samples: Vec<f64> =
                    own.chunks_exact(2).map(|p| p[1].saturating_sub(p[0]) as f64 * period_ns).collect();
                let (first, last) = (own[0], own[own.len() - 1]);
                let span = last.saturating_sub(first) as f64 * period_ns;
                KernelTiming::new(pass.spec, TimingSource::Timestamp, resolution_ns, &samples, since(first), span)
            })
            .collect())
    }

    async fn run_wallclock(&self, passes: &[Pass<'_>], repeats: u32) -> Result<Vec<KernelTiming>> {
        let resolution_ns = clock_step_ns();
        // Start from an idle queue so earlier work (uploads) is not charged to the first kernel.
        self.idle().await?;
        let origin = Instant::now();
        let mut timings = Vec::with_capacity(passes.len());
        for pass in passes {
            let mut samples = Vec::with_capacity(repeats as usize);
            let mut first = None;
            let mut last = origin;
            for _ in 0..repeats {
                let start = self
                    .scoped(&format!("submitting `{}`", pass.spec.name()), || {
                        let mut encoder = self.device().create_command_encoder(&Default::default());
                        {
                            let mut cpass = encoder.begin_compute_pass(&Default::default());
                            pass.record(&mut cpass);
                        }
                        let commands = encoder.finish();
                        let start = Instant::now();
                        self.queue().submit([commands]);
                        start
                    })
                    .await?;
                self.idle().await?;
                let end = Instant::now();
                samples.push(nanos(end - start));
                first.get_or_insert(start);
                last = end;
            }
            let first = first.unwrap_or(origin);
            timings.push(KernelTiming::new(
                pass.spec,
                TimingSource::Wallclock,
                resolution_ns,
                &samples,
                nanos(first - origin),
                nanos(last - first),
            ));
        }
        Ok(timings)
    }
}

/// One kernel ready to record: its spec, pipeline and bind group.
struct Pass<'a> {
    spec: &'a KernelSpec,
    pipeline: &'a wgpu::ComputePipeline,
    group: &'a wgpu::BindGroup,
}

impl Pass<'_> {
    fn record(&self, cpass: &mut wgpu::ComputePass<'_>) {
        let [x, y, z] = self.spec.workgroups();
        cpass.set_pipeline(self.pipeline);
        cpass.set_bind_group(0, self.group, &[]);
        cpass.dispatch_workgroups(x, y, z);
    }
}

fn nanos(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

/// The step, in ticks, that the timestamps were rounded to. Browsers zero the low bits of
/// timestamps (Chrome: 16 bits, ~65.5 us); if every non-zero timestamp shares at least 10 trailing
/// zero bits that is no coincidence (odds below 2^-20 for two raw values), so the common power of
/// two is the quantum. Otherwise the tick itself is. `None` when every timestamp is zero.
pub(crate) fn tick_quantum(ticks: &[u64]) -> Option<u64> {
    let zeros = ticks.iter().filter(|&&t| t != 0).map(|t| t.trailing_zeros()).min()?;
    Some(if zeros >= 10 { 1u64 << zeros } else { 1 })
}

/// The smallest step the host clock is seen to take (browsers coarsen `performance.now()` to
/// between 5 and 100 us; native clocks step in tens of nanoseconds, the cost of reading them).
pub fn clock_step_ns() -> f64 {
    (0..5)
        .filter_map(|_| {
            let a = Instant::now();
            // Bounded so a frozen clock cannot hang the run.
            (0..10_000_000).find_map(|_| {
                let b = Instant::now();
                (b > a).then(|| nanos(b - a))
            })
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::tick_quantum;

    fn check(cases: &[(&[u64], Option<u64>)]) {
        for (ticks, want) in cases {
            assert_eq!(tick_quantum(ticks), *want, "ticks {ticks:?}");
        }
    }

    #[test]
    fn quantum_of_timestamps() {
        check(&[
            (&[0, 0], None),
            (&[1_000_003, 1_070_001], Some(1)),
            (&[3 << 16, 5 << 16, 0], Some(1 << 16)),
            (&[3 << 16, 5 << 17], Some(1 << 16)),
            (&[1 << 12, 3 << 9], Some(1)),
        ]);
    }
}
