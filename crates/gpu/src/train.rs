//! The training plan on a GPU: the same model, initialisation, batch order, loss and optimizer
//! as `stridelab_core::train::Trainer` (which this keeps for the initial parameters, the batch
//! order and the export), with every kernel of a step in WGSL: one thread per output element,
//! convolution weight gradients as per-image partial sums reduced over the batch (no atomics),
//! max pooling's gradient gathered by each input from the output whose first maximum it was.
//! A step is one upload (the batch's pixels and labels, the batch size, the optimizer's scalars
//! for this step), one command buffer of every dispatch, and one readback of the per-image
//! losses and hits (with the GPU timestamps where the adapter has them). Evaluation and export
//! read the parameters back into the CPU trainer.
//!
//! The GPU's float32 sums run in another order than the CPU's and WGSL's `sqrt` and division
//! need not round correctly, so the two trainers agree closely, not bit for bit.

use stridelab_core::train::{
    adam_corrections, Dataset, KernelTime, Layer, Optimizer, Phase, StepReport, TrainConfig, Trainer,
};
use web_time::Instant;

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::kernel::{Access, KernelSpec};
use crate::program::Program;

/// The largest batch the GPU trainer takes: every dispatch stays within 65,535 workgroups.
pub const MAX_GPU_BATCH: usize = 512;
/// Threads per workgroup of every training kernel.
const WORKGROUP: u32 = 64;

const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// The element type of a binding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    F32,
    U32,
}

/// A kernel being planned: its bindings (buffer, variable name, element type, access), body
/// and thread count.
struct Planned {
    name: String,
    op: &'static str,
    phase: Phase,
    bindings: Vec<(usize, &'static str, Elem, Access)>,
    body: String,
    threads: usize,
}

/// The WGSL of a planned kernel: the bindings in order (binding 0 is always `sizes`, whose
/// first word is this step's batch size `n`), then the body with `i` the thread's index.
fn render(k: &Planned) -> String {
    let mut s = String::new();
    for (slot, &(_, var, elem, access)) in k.bindings.iter().enumerate() {
        let mode = if access == Access::ReadOnly { "read" } else { "read_write" };
        let ty = if elem == Elem::F32 { "f32" } else { "u32" };
        s += &format!("@group(0) @binding({slot}) var<storage, {mode}> {var}: array<{ty}>;\n");
    }
    s += &format!(
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n    \
         let i = gid.x;\n    let n = sizes[0];\n{}}}\n",
        k.body
    );
    s
}

/// An f32 literal WGSL reads back as the same float.
fn lit(v: f32) -> String {
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Buffer ids of the fixed inputs of a step.
struct Ids {
    meta: usize,
    x: usize,
    labels: usize,
    stats: usize,
    opt: usize,
    params: Vec<usize>,
}

/// The plan under construction: the buffer table (label, bytes) and the kernels.
#[derive(Default)]
struct Plan {
    buffers: Vec<(String, u64)>,
    kernels: Vec<Planned>,
}

impl Plan {
    fn buffer(&mut self, label: impl Into<String>, words: usize) -> usize {
        self.buffers.push((label.into(), (words.max(1) * 4) as u64));
        self.buffers.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    fn kernel(
        &mut self,
        name: String,
        op: &'static str,
        phase: Phase,
        meta: usize,
        bindings: Vec<(usize, &'static str, Elem, Access)>,
        threads: usize,
        body: String,
    ) {
        let mut all = vec![(meta, "sizes", Elem::U32, Access::ReadOnly)];
        all.extend(bindings);
        self.kernels.push(Planned { name, op, phase, bindings: all, body, threads });
    }
}

use Access::{ReadOnly as R, ReadWrite as W};

/// A model being trained on a GPU.
pub struct GpuTrainer {
    trainer: Trainer,
    device: wgpu::Device,
    buffers: Vec<wgpu::Buffer>,
    program: Program,
    phases: Vec<Phase>,
    ids: Ids,
    staging: wgpu::Buffer,
    steps: u64,
}

impl GpuTrainer {
    /// The model of `config`, initialised as the CPU trainer initialises it, with its
    /// parameters, gradients, optimizer state and the buffers of a batch on `gpu`.
    pub async fn new(gpu: &Gpu, config: TrainConfig) -> Result<GpuTrainer> {
        if config.batch > MAX_GPU_BATCH {
            return Err(Error::Invalid(format!("the GPU trainer takes batches of at most {MAX_GPU_BATCH}")));
        }
        let invalid = |e: stridelab_core::Error| Error::Invalid(e.message().to_string());
        let trainer = Trainer::new(config.clone()).map_err(invalid)?;
        let shapes = config.architecture.shapes().map_err(invalid)?;
        let b = config.batch;
        let mut plan = Plan::default();
        let meta = plan.buffer("meta", 4);
        let opt = plan.buffer("optimizer scalars", 16);
        let width = |s: usize| shapes[s].iter().product::<usize>();
        let x = plan.buffer("input", b * width(0));
        let labels = plan.buffer("labels", b);
        let classes = width(shapes.len() - 1);
        let stats = plan.buffer("per-image loss and hit", 2 * b);
        // Parameters, their gradients and their optimizer state, in the CPU trainer's order.
        let (mut params, mut grads, mut state) = (Vec::new(), Vec::new(), Vec::new());
        let slots = config.optimizer.state_names().len();
        for p in trainer.params() {
            params.push(plan.buffer(p.name.clone(), p.data.len()));
            grads.push(plan.buffer(format!("{}.grad", p.name), p.data.len()));
            let names = config.optimizer.state_names();
            state.push(
                (0..slots).map(|k| plan.buffer(format!("{}.{}", p.name, names[k]), p.data.len())).collect::<Vec<_>>(),
            );
        }
        // Activations: a layer that keeps the shape (ReLU, flatten) works in place.
        let mut act = vec![x];
        let mut grad_of = vec![usize::MAX];
        for (s, (name, layer)) in config.architecture.layers.iter().enumerate() {
            let same = matches!(layer, Layer::Relu | Layer::Flatten);
            act.push(if same { act[s] } else { plan.buffer(format!("{name} output"), b * width(s + 1)) });
            grad_of.push(if same && s > 0 {
                grad_of[s]
            } else {
                plan.buffer(format!("{name} output grad"), b * width(s + 1))
            });
        }
        let partial_len = config
            .architecture
            .layers
            .iter()
            .map(|(_, l)| match *l {
                Layer::Conv2d { in_channels, out_channels, kernel, .. } => out_channels * in_channels * kernel * kernel,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let partial = plan.buffer("weight-gradient partial sums", b * partial_len);
        // The first layer whose input needs a gradient: every layer after the first with parameters.
        let first_param = config
            .architecture
            .layers
            .iter()
            .position(|(_, l)| matches!(l, Layer::Conv2d { .. } | Layer::Linear { .. }))
            .unwrap_or(0);
        let mut param_at = 0;
        let mut weight_of = Vec::new();
        for (_, l) in &config.architecture.layers {
            weight_of.push(param_at);
            if matches!(l, Layer::Conv2d { .. } | Layer::Linear { .. }) {
                param_at += 2;
            }
        }
        let mut argmax = Vec::new();
        for (s, (name, layer)) in config.architecture.layers.iter().enumerate() {
            argmax.push(forward(
                &mut plan,
                meta,
                name,
                layer,
                shapes[s],
                shapes[s + 1],
                b,
                act[s],
                act[s + 1],
                &params,
                weight_of[s],
            ));
        }
        let last = config.architecture.layers.len();
        let logits_grad = grad_of[last];
        plan.kernel(
            "cross_entropy".into(),
            "CrossEntropy",
            Phase::Forward,
            meta,
            vec![
                (act[last], "logits", Elem::F32, R),
                (labels, "labels", Elem::U32, R),
                (logits_grad, "dlogits", Elem::F32, W),
                (stats, "stats", Elem::F32, W),
            ],
            b,
            cross_entropy_body(classes),
        );
        for s in (first_param..last).rev() {
            let (name, layer) = &config.architecture.layers[s];
            let din = (s > first_param).then_some(grad_of[s]);
            let io = (act[s], act[s + 1], grad_of[s + 1], din);
            backward(
                &mut plan,
                meta,
                name,
                layer,
                shapes[s],
                shapes[s + 1],
                b,
                io,
                argmax[s],
                &params,
                &grads,
                weight_of[s],
                partial,
            );
        }
        for (i, p) in trainer.params().iter().enumerate() {
            optimizer_kernel(
                &mut plan,
                meta,
                opt,
                &config.optimizer,
                &p.name,
                p.data.len(),
                params[i],
                grads[i],
                &state[i],
            );
        }
        // The device: buffers, parameters uploaded, programs built.
        let device = gpu.device();
        let sizes: Vec<u64> = plan.buffers.iter().map(|(_, s)| *s).collect();
        let buffers = gpu
            .scoped("allocating the trainer's buffers", || {
                plan.buffers
                    .iter()
                    .map(|(label, size)| {
                        device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some(label),
                            size: *size,
                            usage: STORAGE,
                            mapped_at_creation: false,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
        for (p, &id) in trainer.params().iter().zip(&params) {
            let bytes: Vec<u8> = p.data.iter().flat_map(|v| v.to_le_bytes()).collect();
            gpu.scoped("uploading a parameter", || gpu.queue().write_buffer(&buffers[id], 0, &bytes)).await?;
        }
        let mut specs = Vec::with_capacity(plan.kernels.len());
        let mut phases = Vec::with_capacity(plan.kernels.len());
        for k in &plan.kernels {
            let mut spec = KernelSpec::new(&k.name, render(k), "main")
                .with_workgroups([(k.threads as u32).div_ceil(WORKGROUP), 1, 1])
                .with_workgroup_size([WORKGROUP, 1, 1]);
            for &(buffer, _, _, access) in &k.bindings {
                spec = spec.with_binding(buffer, access);
            }
            spec.check(gpu.limits(), &sizes)?;
            specs.push((spec, k.op.to_string()));
            phases.push(k.phase);
        }
        let stats_bytes = sizes[stats];
        let (program, readback) = Program::build(gpu, specs, &buffers, stats_bytes).await?;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("trainer readback"),
            size: readback,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(GpuTrainer {
            trainer,
            device: device.clone(),
            buffers,
            program,
            phases,
            ids: Ids { meta, x, labels, stats, opt, params },
            staging,
            steps: 0,
        })
    }

    /// The CPU trainer holding the configuration, the batch order and (after
    /// [`GpuTrainer::sync`]) the parameters.
    pub fn trainer(&self) -> &Trainer {
        &self.trainer
    }

    pub fn trainer_mut(&mut self) -> &mut Trainer {
        &mut self.trainer
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The dispatches of a step, in order, with the op each computes.
    pub fn kernels(&self) -> Vec<(&KernelSpec, &str)> {
        self.program.kernels().collect()
    }

    /// One training step on the next batch of `data` in the run's order.
    pub async fn step(&mut self, gpu: &Gpu, data: &Dataset<'_>) -> Result<StepReport> {
        let start = Instant::now();
        let invalid = |e: stridelab_core::Error| Error::Invalid(e.message().to_string());
        let idx = self.trainer.next_batch(data).map_err(invalid)?;
        let n = idx.len();
        let pixels = self.trainer.pixels(data, &idx);
        let labels: Vec<u8> = idx.iter().flat_map(|&i| u32::from(data.labels[i]).to_le_bytes()).collect();
        self.steps += 1;
        let scalars = optimizer_scalars(&self.trainer.config().optimizer, self.steps);
        let queue = gpu.queue();
        queue.write_buffer(&self.buffers[self.ids.meta], 0, &(n as u32).to_le_bytes());
        queue.write_buffer(
            &self.buffers[self.ids.x],
            0,
            &pixels.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        );
        queue.write_buffer(&self.buffers[self.ids.labels], 0, &labels);
        queue.write_buffer(
            &self.buffers[self.ids.opt],
            0,
            &scalars.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        );
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("training step") });
        self.program.encode(&mut encoder);
        let stats_bytes = (2 * n * 4) as u64;
        encoder.copy_buffer_to_buffer(&self.buffers[self.ids.stats], 0, &self.staging, 0, stats_bytes);
        self.program.resolve(&mut encoder, &self.staging);
        queue.submit([encoder.finish()]);
        let pending = validation.pop();
        let bytes = gpu.map_read(&self.staging, self.staging.size()).await?;
        if let Some(e) = pending.await {
            return Err(Error::Device(format!("a training step: {e}")));
        }
        let floats: Vec<f32> = bytes[..stats_bytes as usize]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let loss = (floats.chunks_exact(2).map(|r| f64::from(r[0])).sum::<f64>() / n as f64) as f32;
        let correct = floats.chunks_exact(2).filter(|r| r[1] > 0.5).count();
        let wall_ms = start.elapsed().as_secs_f64() * 1e3;
        let kernels = if self.program.timed() {
            self.program
                .timings(&bytes)
                .iter()
                .zip(&self.phases)
                .map(|(t, &phase)| KernelTime {
                    phase,
                    name: t.name().to_string(),
                    ms: t.time_ns().unwrap_or(0.0) / 1e6,
                })
                .collect()
        } else {
            vec![KernelTime { phase: Phase::Forward, name: "step (untimed: no GPU timestamps)".into(), ms: wall_ms }]
        };
        Ok(StepReport { step: self.steps, epoch: self.trainer.epoch(), loss, correct, size: n, kernels })
    }

    /// Reads the parameters back into the CPU trainer (for evaluation and export).
    pub async fn sync(&mut self, gpu: &Gpu) -> Result<()> {
        for (i, &id) in self.ids.params.clone().iter().enumerate() {
            let size = self.buffers[id].size();
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("parameter readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(&self.buffers[id], 0, &staging, 0, size);
            gpu.queue().submit([encoder.finish()]);
            let bytes = gpu.map_read(&staging, size).await?;
            let values: Vec<f32> =
                bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            let len = self.trainer.params()[i].data.len();
            self.trainer.set_param(i, &values[..len]).map_err(|e| Error::Invalid(e.message().to_string()))?;
        }
        Ok(())
    }
}

/// The scalars of one optimizer step, as the kernels read them from the `opt` buffer.
/// Adam/AdamW: `[1-β1, 1-β2, β2, eps, -step_size, √bias_correction2, weight_decay, 1-lr·wd]`;
/// SGD: `[momentum, 1-dampening, -lr, weight_decay, first step]`. Computed as the CPU trainer
/// (and PyTorch's Python side) computes them.
fn optimizer_scalars(opt: &Optimizer, step: u64) -> Vec<f32> {
    match *opt {
        Optimizer::Adam { lr, betas: (b1, b2), eps, weight_decay, .. }
        | Optimizer::AdamW { lr, betas: (b1, b2), eps, weight_decay, .. } => {
            let (step_size, bc2_sqrt) = adam_corrections(lr, (b1, b2), step);
            vec![
                (1.0 - b1) as f32,
                (1.0 - b2) as f32,
                b2 as f32,
                eps as f32,
                -step_size as f32,
                bc2_sqrt as f32,
                weight_decay as f32,
                (1.0 - lr * weight_decay) as f32,
            ]
        }
        Optimizer::Sgd { lr, momentum, dampening, weight_decay, .. } => vec![
            momentum as f32,
            (1.0 - dampening) as f32,
            -lr as f32,
            weight_decay as f32,
            if step == 1 { 1.0 } else { 0.0 },
        ],
    }
}

/// The forward kernel of one layer (none for flatten, whose output is its input).
#[allow(clippy::too_many_arguments)]
fn forward(
    plan: &mut Plan,
    meta: usize,
    name: &str,
    layer: &Layer,
    [c, h, w]: [usize; 3],
    [oc, oh, ow]: [usize; 3],
    b: usize,
    x: usize,
    y: usize,
    params: &[usize],
    weight: usize,
) -> Option<usize> {
    let (ins, outs) = (c * h * w, oc * oh * ow);
    let k = |plan: &mut Plan, op, binds, threads, body: String| {
        plan.kernel(name.to_string(), op, Phase::Forward, meta, binds, threads, body)
    };
    let mut argmax = None;
    match *layer {
        Layer::Normalize { mean, std } => k(
            plan,
            "Normalize",
            vec![(x, "x", Elem::F32, R), (y, "y", Elem::F32, W)],
            b * ins,
            format!("    if (i >= n * {ins}u) {{ return; }}\n    y[i] = (x[i] - {}) / {};\n", lit(mean), lit(std)),
        ),
        Layer::Conv2d { kernel: kk, padding: p, .. } => k(
            plan,
            "Conv",
            vec![(x, "x", Elem::F32, R), (params[weight], "wt", Elem::F32, R), (params[weight + 1], "bias", Elem::F32, R), (y, "y", Elem::F32, W)],
            b * outs,
            format!(
                "    if (i >= n * {outs}u) {{ return; }}
    let ox = i32(i % {ow}u); let oy = i32((i / {ow}u) % {oh}u);
    let o = (i / {plane}u) % {oc}u; let img = i / {outs}u;
    var acc = bias[o];
    for (var ci = 0u; ci < {c}u; ci++) {{
        for (var ky = 0; ky < {kk}; ky++) {{
            let iy = oy + ky - {p};
            if (iy < 0 || iy >= {h}) {{ continue; }}
            for (var kx = 0; kx < {kk}; kx++) {{
                let ix = ox + kx - {p};
                if (ix < 0 || ix >= {w}) {{ continue; }}
                acc += x[((img * {c}u + ci) * {h}u + u32(iy)) * {w}u + u32(ix)] * wt[((o * {c}u + ci) * {kk}u + u32(ky)) * {kk}u + u32(kx)];
            }}
        }}
    }}
    y[i] = acc;\n",
                plane = oh * ow
            ),
        ),
        Layer::Relu => k(
            plan,
            "Relu",
            vec![(y, "y", Elem::F32, W)],
            b * outs,
            format!("    if (i >= n * {outs}u) {{ return; }}\n    let v = y[i];\n    y[i] = select(v, 0.0, v < 0.0);\n"),
        ),
        Layer::MaxPool2d { kernel: kk } => {
            let am = plan.buffer(format!("{name} argmax"), b * outs);
            argmax = Some(am);
            k(
                plan,
                "MaxPool",
                vec![(x, "x", Elem::F32, R), (y, "y", Elem::F32, W), (am, "am", Elem::U32, W)],
                b * outs,
                format!(
                    "    if (i >= n * {outs}u) {{ return; }}
    let ox = i % {ow}u; let oy = (i / {ow}u) % {oh}u; let plane = i / {pl}u;
    let first = (plane * {h}u + oy * {kk}u) * {w}u + ox * {kk}u;
    var best = x[first]; var at = first;
    for (var ky = 0u; ky < {kk}u; ky++) {{
        for (var kx = 0u; kx < {kk}u; kx++) {{
            let j = (plane * {h}u + oy * {kk}u + ky) * {w}u + ox * {kk}u + kx;
            let v = x[j];
            if (v > best || v != v) {{ best = v; at = j; }}
        }}
    }}
    y[i] = best;
    am[i] = at;\n",
                    pl = oh * ow
                ),
            );
        }
        Layer::Flatten => {}
        Layer::Linear { in_features: fi, out_features: fo } => k(
            plan,
            "Gemm",
            vec![(x, "x", Elem::F32, R), (params[weight], "wt", Elem::F32, R), (params[weight + 1], "bias", Elem::F32, R), (y, "y", Elem::F32, W)],
            b * fo,
            format!(
                "    if (i >= n * {fo}u) {{ return; }}
    let o = i % {fo}u; let row = i / {fo}u;
    var acc = bias[o];
    for (var k = 0u; k < {fi}u; k++) {{ acc += x[row * {fi}u + k] * wt[o * {fi}u + k]; }}
    y[i] = acc;\n"
            ),
        ),
    }
    argmax
}

/// Per image: the loss `lse - x[label]`, whether the first maximum is the label, and the
/// gradient of the batch's mean loss, `(softmax - onehot) / n`.
fn cross_entropy_body(classes: usize) -> String {
    format!(
        "    if (i >= n) {{ return; }}
    let base = i * {classes}u;
    let label = labels[i];
    var m = logits[base]; var arg = 0u;
    for (var j = 1u; j < {classes}u; j++) {{
        let v = logits[base + j];
        if (v > m) {{ m = v; arg = j; }}
    }}
    var s = 0.0;
    for (var j = 0u; j < {classes}u; j++) {{ s += exp(logits[base + j] - m); }}
    let lse = m + log(s);
    let scale = 1.0 / f32(n);
    for (var j = 0u; j < {classes}u; j++) {{
        let p = exp(logits[base + j] - lse);
        dlogits[base + j] = select(p * scale, (p - 1.0) * scale, j == label);
    }}
    stats[2u * i] = lse - logits[base + label];
    stats[2u * i + 1u] = select(0.0, 1.0, arg == label);\n"
    )
}

/// The backward kernels of one layer: its parameters' gradients and, when `din` is given,
/// its input's gradient. `io` is (input, output, output gradient, input gradient).
#[allow(clippy::too_many_arguments)]
fn backward(
    plan: &mut Plan,
    meta: usize,
    name: &str,
    layer: &Layer,
    [c, h, w]: [usize; 3],
    [oc, oh, ow]: [usize; 3],
    b: usize,
    (x, y, dy, din): (usize, usize, usize, Option<usize>),
    argmax: Option<usize>,
    params: &[usize],
    grads: &[usize],
    weight: usize,
    partial: usize,
) {
    let (ins, outs) = (c * h * w, oc * oh * ow);
    let k = |plan: &mut Plan, suffix: &str, op, binds, threads, body: String| {
        plan.kernel(format!("{name}{suffix}"), op, Phase::Backward, meta, binds, threads, body)
    };
    match *layer {
        Layer::Normalize { std, .. } => {
            if let Some(dx) = din {
                k(
                    plan,
                    " grad",
                    "Normalize",
                    vec![(dy, "dy", Elem::F32, R), (dx, "dx", Elem::F32, W)],
                    b * ins,
                    format!("    if (i >= n * {ins}u) {{ return; }}\n    dx[i] = dy[i] / {};\n", lit(std)),
                );
            }
        }
        Layer::Relu => {
            // In place: the output gradient becomes the input gradient where the output is positive.
            if din.is_some() {
                k(
                    plan,
                    " grad",
                    "Relu",
                    vec![(y, "y", Elem::F32, R), (dy, "d", Elem::F32, W)],
                    b * outs,
                    format!("    if (i >= n * {outs}u) {{ return; }}\n    d[i] = select(d[i], 0.0, y[i] <= 0.0);\n"),
                );
            }
        }
        Layer::Flatten => {}
        Layer::MaxPool2d { kernel: kk } => {
            if let (Some(dx), Some(am)) = (din, argmax) {
                k(
                    plan,
                    " grad",
                    "MaxPool",
                    vec![(dy, "dy", Elem::F32, R), (am, "am", Elem::U32, R), (dx, "dx", Elem::F32, W)],
                    b * ins,
                    format!(
                        "    if (i >= n * {ins}u) {{ return; }}
    let ix = i % {w}u; let iy = (i / {w}u) % {h}u; let plane = i / {hw}u;
    let ox = ix / {kk}u; let oy = iy / {kk}u;
    var g = 0.0;
    if (ox < {ow}u && oy < {oh}u) {{
        let o = (plane * {oh}u + oy) * {ow}u + ox;
        g = select(0.0, dy[o], am[o] == i);
    }}
    dx[i] = g;\n",
                        hw = h * w
                    ),
                );
            }
        }
        Layer::Linear { in_features: fi, out_features: fo } => {
            let (gw, gb) = (grads[weight], grads[weight + 1]);
            k(
                plan,
                " weight grad",
                "Gemm",
                vec![(dy, "dy", Elem::F32, R), (x, "x", Elem::F32, R), (gw, "gw", Elem::F32, W)],
                fo * fi,
                format!(
                    "    if (i >= {}u) {{ return; }}
    let o = i / {fi}u; let k = i % {fi}u;
    var acc = 0.0;
    for (var r = 0u; r < n; r++) {{ acc += dy[r * {fo}u + o] * x[r * {fi}u + k]; }}
    gw[i] = acc;\n",
                    fo * fi
                ),
            );
            k(
                plan,
                " bias grad",
                "Gemm",
                vec![(dy, "dy", Elem::F32, R), (gb, "gb", Elem::F32, W)],
                fo,
                bias_grad_body(fo, 1),
            );
            if let Some(dx) = din {
                k(
                    plan,
                    " input grad",
                    "Gemm",
                    vec![(dy, "dy", Elem::F32, R), (params[weight], "wt", Elem::F32, R), (dx, "dx", Elem::F32, W)],
                    b * fi,
                    format!(
                        "    if (i >= n * {fi}u) {{ return; }}
    let row = i / {fi}u; let k = i % {fi}u;
    var acc = 0.0;
    for (var o = 0u; o < {fo}u; o++) {{ acc += dy[row * {fo}u + o] * wt[o * {fi}u + k]; }}
    dx[i] = acc;\n"
                    ),
                );
            }
        }
        Layer::Conv2d { kernel: kk, padding: p, .. } => {
            let (gw, gb) = (grads[weight], grads[weight + 1]);
            let taps = c * kk * kk;
            let wn = oc * taps;
            let plane = oh * ow;
            // Per image and weight: Σ over output positions of dy · x; then the sum over images.
            k(
                plan,
                " weight grad (per image)",
                "Conv",
                vec![(dy, "dy", Elem::F32, R), (x, "x", Elem::F32, R), (partial, "part", Elem::F32, W)],
                b * wn,
                format!(
                    "    if (i >= n * {wn}u) {{ return; }}
    let img = i / {wn}u; let wi = i % {wn}u;
    let o = wi / {taps}u; let ci = (wi / {kk2}u) % {c}u; let ky = i32((wi / {kk}u) % {kk}u); let kx = i32(wi % {kk}u);
    var acc = 0.0;
    for (var oy = 0; oy < {oh}; oy++) {{
        let iy = oy + ky - {p};
        if (iy < 0 || iy >= {h}) {{ continue; }}
        for (var ox = 0; ox < {ow}; ox++) {{
            let ix = ox + kx - {p};
            if (ix < 0 || ix >= {w}) {{ continue; }}
            acc += dy[(img * {oc}u + o) * {plane}u + u32(oy) * {ow}u + u32(ox)] * x[((img * {c}u + ci) * {h}u + u32(iy)) * {w}u + u32(ix)];
        }}
    }}
    part[i] = acc;\n",
                    kk2 = kk * kk
                ),
            );
            k(
                plan,
                " weight grad (sum)",
                "Conv",
                vec![(partial, "part", Elem::F32, R), (gw, "gw", Elem::F32, W)],
                wn,
                format!(
                    "    if (i >= {wn}u) {{ return; }}
    var acc = 0.0;
    for (var r = 0u; r < n; r++) {{ acc += part[r * {wn}u + i]; }}
    gw[i] = acc;\n"
                ),
            );
            k(
                plan,
                " bias grad",
                "Conv",
                vec![(dy, "dy", Elem::F32, R), (gb, "gb", Elem::F32, W)],
                oc,
                bias_grad_body(oc, plane),
            );
            if let Some(dx) = din {
                k(
                    plan,
                    " input grad",
                    "Conv",
                    vec![(dy, "dy", Elem::F32, R), (params[weight], "wt", Elem::F32, R), (dx, "dx", Elem::F32, W)],
                    b * ins,
                    format!(
                        "    if (i >= n * {ins}u) {{ return; }}
    let ix = i32(i % {w}u); let iy = i32((i / {w}u) % {h}u); let ci = (i / {hw}u) % {c}u; let img = i / {ins}u;
    var acc = 0.0;
    for (var o = 0u; o < {oc}u; o++) {{
        for (var ky = 0; ky < {kk}; ky++) {{
            let oy = iy - ky + {p};
            if (oy < 0 || oy >= {oh}) {{ continue; }}
            for (var kx = 0; kx < {kk}; kx++) {{
                let ox = ix - kx + {p};
                if (ox < 0 || ox >= {ow}) {{ continue; }}
                acc += dy[(img * {oc}u + o) * {plane}u + u32(oy) * {ow}u + u32(ox)] * wt[((o * {c}u + ci) * {kk}u + u32(ky)) * {kk}u + u32(kx)];
            }}
        }}
    }}
    dx[i] = acc;\n",
                        hw = h * w
                    ),
                );
            }
        }
    }
}

/// A bias's gradient: per channel, the sum over the batch of the output gradient over the
/// channel's `plane` positions (1 for a linear layer).
fn bias_grad_body(channels: usize, plane: usize) -> String {
    format!(
        "    if (i >= {channels}u) {{ return; }}
    var acc = 0.0;
    for (var r = 0u; r < n; r++) {{
        var s = 0.0;
        for (var q = 0u; q < {plane}u; q++) {{ s += dy[(r * {channels}u + i) * {plane}u + q]; }}
        acc += s;
    }}
    gb[i] = acc;\n"
    )
}

/// One parameter's update, the optimizer's single-tensor loop as `train::update` runs it.
#[allow(clippy::too_many_arguments)]
fn optimizer_kernel(
    plan: &mut Plan,
    meta: usize,
    opt_buf: usize,
    opt: &Optimizer,
    name: &str,
    len: usize,
    p: usize,
    g: usize,
    state: &[usize],
) {
    let guard = format!("    if (i >= {len}u) {{ return; }}\n");
    let (op, binds, body) = match *opt {
        Optimizer::Adam { weight_decay, amsgrad, .. } | Optimizer::AdamW { weight_decay, amsgrad, .. } => {
            let decay = if weight_decay == 0.0 {
                ""
            } else if matches!(opt, Optimizer::AdamW { .. }) {
                "    p[i] = p[i] * s[7];\n"
            } else {
                "    d = d + s[6] * p[i];\n"
            };
            let mut binds = vec![
                (opt_buf, "s", Elem::F32, R),
                (p, "p", Elem::F32, W),
                (g, "g", Elem::F32, R),
                (state[0], "m", Elem::F32, W),
                (state[1], "v", Elem::F32, W),
            ];
            let second = if amsgrad {
                binds.push((state[2], "vmax", Elem::F32, W));
                "    vmax[i] = max(vmax[i], v[i]);\n    let second = vmax[i];\n"
            } else {
                "    let second = v[i];\n"
            };
            let body = format!(
                "{guard}    var d = g[i];\n{decay}    m[i] = m[i] + s[0] * (d - m[i]);\n    v[i] = v[i] * s[2] + s[1] * d * d;\n{second}    \
                 let denom = sqrt(second) / s[5] + s[3];\n    p[i] = p[i] + s[4] * m[i] / denom;\n"
            );
            (opt.name(), binds, body)
        }
        Optimizer::Sgd { momentum, nesterov, weight_decay, .. } => {
            let decay = if weight_decay == 0.0 { "" } else { "    d = d + s[3] * p[i];\n" };
            let mut binds = vec![(opt_buf, "s", Elem::F32, R), (p, "p", Elem::F32, W), (g, "g", Elem::F32, R)];
            let mom = if momentum == 0.0 {
                String::new()
            } else {
                binds.push((state[0], "buf", Elem::F32, W));
                let next = if nesterov { "d + s[0] * buf[i]" } else { "buf[i]" };
                format!("    buf[i] = select(buf[i] * s[0] + s[1] * d, d, s[4] > 0.5);\n    d = {next};\n")
            };
            ("SGD", binds, format!("{guard}    var d = g[i];\n{decay}{mom}    p[i] = p[i] + s[2] * d;\n"))
        }
    };
    plan.kernel(format!("{} {name}", op), "Optimizer", Phase::Optimizer, meta, binds, len, body);
}
