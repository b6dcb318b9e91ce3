//! A captured model prepared once on a [`Gpu`] and then run many times. Inference latency is
//! dominated by per-run host work on small models, so everything that does not depend on the
//! input happens in [`GpuModel::prepare`]: one buffer per capture buffer, the weights uploaded,
//! every pipeline built from an explicit layout, every bind group made, the readback buffer and
//! the timestamp queries allocated. A run is then one input write, one command encoder with all
//! the dispatches, one submit and one asynchronous readback of the outputs (and the timestamps,
//! in the same mapped buffer), so it never blocks the browser and allocates nothing on the GPU.

use std::sync::{Mutex, PoisonError};

use stridelab_core::capture::{self, Capture, Manifest, Role};
use stridelab_core::data::sha256_hex;
use stridelab_core::model::HostTensor;
use stridelab_core::onnx;
use stridelab_core::uop::buffer::Data;
use stridelab_core::DType;
use web_time::Instant;

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::exec::{byte_len, decode, encode};
use crate::kernel::{Access, KernelSpec};
use crate::oneshot::oneshot;
use crate::program::Program;
use crate::timing::KernelTiming;

/// Captures the ONNX file `bytes` (named `file` in messages; `external` holds the files its
/// weights may live in) at batch size `batch`: every symbolic input dimension takes the batch,
/// and the run is recorded on zeros, since a capture records shapes and work, not values. The
/// CLI and the page capture through this one function.
pub fn capture_onnx(
    file: &str,
    bytes: &[u8],
    external: &onnx::ExternalFiles,
    batch: usize,
) -> stridelab_core::Result<(Manifest, Vec<u8>)> {
    use stridelab_core::Error as CoreError;
    if batch == 0 {
        return Err(CoreError::Shape(format!("{file}: the batch size must be at least 1")));
    }
    let m = onnx::read_model_with(file, bytes, external)?;
    let mut inputs = Vec::new();
    for v in m.inputs() {
        let Some(dims) = v.shape() else {
            return Err(CoreError::Shape(format!("{file}: input {:?} declares no shape", v.name())));
        };
        let shape = dims
            .iter()
            .map(|d| match d {
                onnx::Dim::Fixed(n) => Ok(*n),
                onnx::Dim::Param(_) => Ok(batch),
                onnx::Dim::Unknown => {
                    Err(CoreError::Shape(format!("{file}: input {:?} has a dimension of unknown size", v.name())))
                }
            })
            .collect::<stridelab_core::Result<Vec<_>>>()?;
        // A declared shape is checked before the zeros it asks for are allocated.
        stridelab_core::limits::check_numel(&shape)?;
        let n = shape.iter().product();
        let data = Data::zeros(v.elem_type().engine_dtype(), n);
        inputs.push((v.name(), HostTensor::new(shape, data)?));
    }
    capture::capture_model(&m, &sha256_hex(bytes), &inputs)
}

/// One model input or output: its capture buffer, name, dtype and shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Port {
    buffer: usize,
    name: String,
    dtype: DType,
    shape: Vec<usize>,
}

impl Port {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Elements in the tensor.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where an output's bytes land in the readback buffer.
struct Readback {
    port: Port,
    offset: u64,
    /// Bytes copied: the GPU buffer's padded size.
    size: u64,
}

/// What one run produced.
#[derive(Debug)]
pub struct ModelRun {
    /// The model's outputs, in its order.
    pub outputs: Vec<(String, HostTensor)>,
    /// One timing per dispatch, in order.
    pub timings: Vec<KernelTiming>,
    /// Sum of the dispatch times when every one was resolved by the GPU timer.
    pub gpu_ns: Option<f64>,
    /// Host time from the call to the decoded outputs.
    pub wall_ns: f64,
}

/// A capture resident on one device. It holds its buffers and pipelines; the [`Gpu`] it was
/// prepared on must be passed to [`GpuModel::run`] (its device is compared).
pub struct GpuModel {
    device: wgpu::Device,
    buffers: Vec<wgpu::Buffer>,
    program: Program,
    inputs: Vec<Port>,
    outputs: Vec<Readback>,
    readback_size: u64,
    /// Mappable readback buffers not in use: one suffices for sequential runs; overlapping
    /// runs (a page that does not await) get another rather than failing.
    spare: Mutex<Vec<wgpu::Buffer>>,
}

const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// Bytes a buffer of this dtype and shape takes on the GPU, padded to wgpu's copy alignment
/// (a zero-sized binding is invalid, so at least one word).
fn gpu_size(dtype: DType, shape: &[usize]) -> u64 {
    let bytes = byte_len(dtype, shape.iter().product()) as u64;
    bytes.div_ceil(wgpu::COPY_BUFFER_ALIGNMENT).max(1) * wgpu::COPY_BUFFER_ALIGNMENT
}

fn padded_bytes(d: &Data) -> Result<Vec<u8>> {
    let mut b = encode(d)?;
    b.resize(b.len().div_ceil(4).max(1) * 4, 0);
    Ok(b)
}

impl GpuModel {
    /// Prepares `cap` on `gpu`: checks every dispatch against the device's limits (a kernel
    /// with more storage bindings than the adapter allows is refused here, as
    /// [`Error::Limit`]), allocates and fills the buffers and builds the pipelines.
    pub async fn prepare(gpu: &Gpu, cap: &Capture) -> Result<GpuModel> {
        let m = cap.manifest();
        let port = |id: usize| {
            let b = &m.buffers[id];
            Port { buffer: id, name: b.name.clone(), dtype: b.dtype, shape: b.shape.clone() }
        };
        let sizes: Vec<u64> = m.buffers.iter().map(|b| gpu_size(b.dtype, &b.shape)).collect();
        let mut specs = Vec::new();
        for &k in &m.schedule {
            let kernel = &m.kernels[k];
            for (i, g) in kernel.gpu.iter().enumerate() {
                let name = format!("{}.{}", kernel.name, g.name);
                let mut spec = KernelSpec::new(&name, &g.wgsl, &g.entry)
                    .with_workgroups(g.workgroups)
                    .with_workgroup_size(g.workgroup_size);
                let (mut read, mut written) = (0, 0);
                for b in &g.bindings {
                    let access = if b.access == "read" { Access::ReadOnly } else { Access::ReadWrite };
                    spec = spec.with_binding(b.buffer, access);
                    let size = m.buffers.get(b.buffer).map_or(0, |x| x.size as u64);
                    if access == Access::ReadOnly {
                        read += size;
                    } else {
                        written += size;
                    }
                }
                // The op's arithmetic is charged to its last dispatch; the earlier ones of a
                // split op prepare operands for it.
                let flops = if i + 1 == kernel.gpu.len() { kernel.cost.flops } else { 0 };
                spec = spec.with_cost(read, written, flops);
                spec.check(gpu.limits(), &sizes)?;
                specs.push((spec, kernel.op.clone()));
            }
        }
        // Every dispatch reads only weights, inputs and what an earlier dispatch wrote. An op
        // without dispatches (a reshape) leaves its output unwritten, which is right only when
        // later dispatches read its source instead; a capture whose ops lack their GPU kernels
        // would otherwise run and return stale values.
        let mut written: Vec<bool> = m.buffers.iter().map(|b| matches!(b.role, Role::Weight | Role::Input)).collect();
        for (spec, op) in &specs {
            for b in spec.bindings() {
                if b.read_only() && !written[b.buffer()] {
                    return Err(Error::kernel(
                        spec.name(),
                        format!(
                            "reads buffer {} ({:?}), which no earlier GPU kernel writes (the {op} op or \
                             an op before it has no GPU kernels in the capture)",
                            b.buffer(),
                            m.buffers[b.buffer()].name
                        ),
                    ));
                }
            }
            for b in spec.bindings().iter().filter(|b| !b.read_only()) {
                written[b.buffer()] = true;
            }
        }
        for &o in &m.outputs {
            let b = &m.buffers[o];
            if !written[o] {
                return Err(Error::Invalid(format!(
                    "output {:?} is written by no GPU kernel (it is a view of another buffer, or its op has \
                     no GPU kernels in the capture); the GPU replay reads outputs from their own buffers",
                    b.name
                )));
            }
        }
        let device = gpu.device();
        let buffers = gpu
            .scoped("allocating the model's buffers", || {
                m.buffers
                    .iter()
                    .zip(&sizes)
                    .map(|(b, &size)| {
                        device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some(&b.name),
                            size,
                            usage: STORAGE,
                            mapped_at_creation: false,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        for (id, b) in m.buffers.iter().enumerate() {
            if b.role == Role::Weight {
                let data = cap
                    .weight(id)
                    .ok_or_else(|| Error::Invalid(format!("weight {:?} has no values in the capture", b.name)))?;
                let bytes = padded_bytes(data)?;
                gpu.scoped("uploading a weight", || gpu.queue().write_buffer(&buffers[id], 0, &bytes)).await?;
            }
        }
        let mut offset = 0;
        let mut outputs = Vec::with_capacity(m.outputs.len());
        for &o in &m.outputs {
            outputs.push(Readback { port: port(o), offset, size: sizes[o] });
            offset += sizes[o];
        }
        let (program, offset) = Program::build(gpu, specs, &buffers, offset).await?;
        let model = GpuModel {
            device: device.clone(),
            buffers,
            program,
            inputs: m.inputs.iter().map(|&i| port(i)).collect(),
            outputs,
            readback_size: offset.max(wgpu::COPY_BUFFER_ALIGNMENT),
            spare: Mutex::new(Vec::new()),
        };
        let first = model.readback_buffer();
        model.spare().push(first);
        Ok(model)
    }

    pub fn inputs(&self) -> Vec<&Port> {
        self.inputs.iter().collect()
    }
    pub fn outputs(&self) -> Vec<&Port> {
        self.outputs.iter().map(|r| &r.port).collect()
    }
    /// The dispatches in run order, each with the ONNX op it computes.
    pub fn kernels(&self) -> Vec<(&KernelSpec, &str)> {
        self.program.kernels().collect()
    }
    /// Whether runs time each dispatch with GPU timestamps.
    pub fn timed(&self) -> bool {
        self.program.timed()
    }

    fn spare(&self) -> std::sync::MutexGuard<'_, Vec<wgpu::Buffer>> {
        // The list holds whole buffers only, so a panicking holder leaves it usable.
        self.spare.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn readback_buffer(&self) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("model readback"),
            size: self.readback_size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Runs the model on `inputs` (one per model input, in its order, with the captured dtype
    /// and element count) and reads back the outputs and the per-dispatch timings.
    pub async fn run(&self, gpu: &Gpu, inputs: &[Data]) -> Result<ModelRun> {
        let start = Instant::now();
        if gpu.device() != &self.device {
            return Err(Error::Invalid("the model was prepared on another device".into()));
        }
        if inputs.len() != self.inputs.len() {
            return Err(Error::Invalid(format!("the model takes {} inputs, got {}", self.inputs.len(), inputs.len())));
        }
        for (p, d) in self.inputs.iter().zip(inputs) {
            if d.dtype() != p.dtype || d.len() != p.len() {
                return Err(Error::Invalid(format!(
                    "input {:?} is {} {:?} ({} elements), got {} elements of {}",
                    p.name,
                    p.dtype,
                    p.shape,
                    p.len(),
                    d.len(),
                    d.dtype()
                )));
            }
        }
        let input_bytes = inputs.iter().map(padded_bytes).collect::<Result<Vec<_>>>()?;
        let staging = self.spare().pop().unwrap_or_else(|| self.readback_buffer());
        // Error scopes catch what the checks at preparation could not foresee (a lost device,
        // memory). Their pops are awaited together with the mapping, not before it, so a run
        // costs one round trip to the GPU process in the browser rather than two.
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.submit(gpu, &input_bytes, &staging);
        let (tx, rx) = oneshot();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| tx.send(r));
        let pending = [validation.pop(), oom.pop()];
        // Natively nothing fires the callbacks until the device is polled; in the browser the
        // event loop does.
        #[cfg(not(target_family = "wasm"))]
        crate::device::wait_for_queue(&self.device)?;
        let mapped = rx.await;
        for p in pending {
            if let Some(e) = p.await {
                return Err(Error::Device(format!("running the model: {e}")));
            }
        }
        mapped
            .ok_or_else(|| Error::Buffer("the mapping callback was dropped".into()))?
            .map_err(|e| Error::Buffer(format!("mapping the model's outputs failed: {e}")))?;
        let bytes = {
            let view = staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::Buffer(format!("reading the mapped outputs: {e}")))?;
            view.to_vec()
        };
        staging.unmap();
        self.spare().push(staging);
        let mut outputs = Vec::with_capacity(self.outputs.len());
        for r in &self.outputs {
            let p = &r.port;
            let at = r.offset as usize;
            let data = decode(&bytes[at..at + r.size as usize], p.dtype, p.len())?;
            let t = HostTensor::new(p.shape.clone(), data).map_err(|e| Error::Invalid(e.to_string()))?;
            outputs.push((p.name.clone(), t));
        }
        let timings = self.program.timings(&bytes);
        let gpu_ns = timings.iter().map(KernelTiming::time_ns).sum::<Option<f64>>();
        Ok(ModelRun { outputs, timings, gpu_ns, wall_ns: start.elapsed().as_secs_f64() * 1e9 })
    }

    /// Writes the inputs and submits every dispatch, then the copies of the outputs (and the
    /// resolved timestamps) into `staging`, as one command buffer.
    fn submit(&self, gpu: &Gpu, inputs: &[Vec<u8>], staging: &wgpu::Buffer) {
        let queue = gpu.queue();
        for (p, bytes) in self.inputs.iter().zip(inputs) {
            queue.write_buffer(&self.buffers[p.buffer], 0, bytes);
        }
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        self.program.encode(&mut encoder);
        for r in &self.outputs {
            encoder.copy_buffer_to_buffer(&self.buffers[r.port.buffer], 0, staging, r.offset, r.size);
        }
        self.program.resolve(&mut encoder, staging);
        queue.submit([encoder.finish()]);
    }
}
