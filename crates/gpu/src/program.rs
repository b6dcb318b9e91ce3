//! A fixed sequence of dispatches over buffers that live on one device: the pipelines and bind
//! groups built once, the timestamp queries allocated once, and every run one encoding of the
//! same dispatches. A captured model ([`crate::model`]) and a training step ([`crate::train`])
//! are both programs; they differ only in their buffers and in what they read back.

use std::sync::Arc;

use crate::cache::Pipeline;
use crate::device::Gpu;
use crate::error::Result;
use crate::kernel::KernelSpec;
use crate::run::tick_quantum;
use crate::timing::{KernelTiming, TimingSource};

/// One dispatch: its kernel, the op it computes (for the panels), its pipeline and bindings.
struct Dispatch {
    spec: KernelSpec,
    op: String,
    pipeline: Arc<Pipeline>,
    group: wgpu::BindGroup,
}

struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Where the resolved ticks land in the readback buffer.
    offset: u64,
    period_ns: f64,
}

pub(crate) struct Program {
    dispatches: Vec<Dispatch>,
    timestamps: Option<Timestamps>,
}

impl Program {
    /// Builds every dispatch of `specs` (each with its op's name) over `buffers`, and the
    /// timestamp queries (where the adapter has them) whose resolved ticks a run copies to
    /// `offset` of its readback buffer. Returns the program and the readback size it needs.
    pub(crate) async fn build(
        gpu: &Gpu,
        specs: Vec<(KernelSpec, String)>,
        buffers: &[wgpu::Buffer],
        offset: u64,
    ) -> Result<(Program, u64)> {
        let device = gpu.device();
        let mut dispatches = Vec::with_capacity(specs.len());
        for (spec, op) in specs {
            // The device's pipeline cache: kernels with the same WGSL and bindings share one.
            let pipeline = gpu.pipeline(&spec).await?;
            let group = gpu
                .scoped(&format!("binding `{}`", spec.name()), || {
                    let entries: Vec<wgpu::BindGroupEntry<'_>> = spec
                        .bindings()
                        .iter()
                        .enumerate()
                        .map(|(i, b)| wgpu::BindGroupEntry {
                            binding: i as u32,
                            resource: buffers[b.buffer()].as_entire_binding(),
                        })
                        .collect();
                    device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(spec.name()),
                        layout: pipeline.layout(),
                        entries: &entries,
                    })
                })
                .await?;
            dispatches.push(Dispatch { spec, op, pipeline, group });
        }
        let mut offset = offset;
        let queries = 2 * dispatches.len();
        let timestamps = match gpu.timestamp_period_ns() {
            // One query set holds at most 4096 queries; a program with more dispatches runs untimed.
            Some(period_ns) if queries > 0 && queries <= wgpu::QUERY_SET_MAX_QUERIES as usize => {
                // Resolved ticks are copied at an 8-byte aligned offset (copies need 4).
                offset = offset.div_ceil(8) * 8;
                let bytes = queries as u64 * 8;
                let (set, resolve) = gpu
                    .scoped("allocating timestamp queries", || {
                        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                            label: Some("program timestamps"),
                            ty: wgpu::QueryType::Timestamp,
                            count: queries as u32,
                        });
                        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("program timestamps"),
                            size: bytes,
                            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                            mapped_at_creation: false,
                        });
                        (set, resolve)
                    })
                    .await?;
                let t = Timestamps { set, resolve, offset, period_ns };
                offset += bytes;
                Some(t)
            }
            _ => None,
        };
        Ok((Program { dispatches, timestamps }, offset.max(wgpu::COPY_BUFFER_ALIGNMENT)))
    }

    /// The dispatches in run order, each with the op it computes.
    pub(crate) fn kernels(&self) -> impl Iterator<Item = (&KernelSpec, &str)> {
        self.dispatches.iter().map(|k| (&k.spec, k.op.as_str()))
    }

    /// Whether runs time each dispatch with GPU timestamps.
    pub(crate) fn timed(&self) -> bool {
        self.timestamps.is_some()
    }

    /// Records every dispatch, each in a pass of its own when timed (timestamps are written at
    /// pass boundaries), else all in one pass.
    pub(crate) fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        match &self.timestamps {
            Some(t) => {
                for (i, k) in self.dispatches.iter().enumerate() {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(k.spec.name()),
                        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                            query_set: &t.set,
                            beginning_of_pass_write_index: Some(2 * i as u32),
                            end_of_pass_write_index: Some(2 * i as u32 + 1),
                        }),
                    });
                    record(&mut pass, k);
                }
            }
            None => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                for k in &self.dispatches {
                    record(&mut pass, k);
                }
            }
        }
    }

    /// Resolves the timestamps into `staging` at the offset [`Program::build`] chose.
    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder, staging: &wgpu::Buffer) {
        if let Some(t) = &self.timestamps {
            let n = 2 * self.dispatches.len() as u32;
            encoder.resolve_query_set(&t.set, 0..n, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, staging, t.offset, u64::from(n) * 8);
        }
    }

    /// One timing per dispatch from the readback bytes.
    pub(crate) fn timings(&self, bytes: &[u8]) -> Vec<KernelTiming> {
        let Some(t) = &self.timestamps else {
            // Untimed: the dispatches share one submission, so no clock can split it.
            return self
                .dispatches
                .iter()
                .map(|k| KernelTiming::new(&k.spec, TimingSource::Wallclock, f64::INFINITY, &[], 0.0, 0.0))
                .collect();
        };
        let at = t.offset as usize;
        let ticks: Vec<u64> = bytes[at..at + 16 * self.dispatches.len()]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let resolution_ns = tick_quantum(&ticks).map_or(f64::INFINITY, |q| q as f64 * t.period_ns);
        let origin = ticks.first().copied().unwrap_or(0);
        self.dispatches
            .iter()
            .zip(ticks.chunks_exact(2))
            .map(|(k, p)| {
                let ns = p[1].saturating_sub(p[0]) as f64 * t.period_ns;
                let since = p[0].saturating_sub(origin) as f64 * t.period_ns;
                KernelTiming::new(&k.spec, TimingSource::Timestamp, resolution_ns, &[ns], since, ns)
            })
            .collect()
    }
}

fn record(pass: &mut wgpu::ComputePass<'_>, k: &Dispatch) {
    let [x, y, z] = k.spec.workgroups();
    pass.set_pipeline(k.pipeline.compute());
    pass.set_bind_group(0, &k.group, &[]);
    pass.dispatch_workgroups(x, y, z);
}
