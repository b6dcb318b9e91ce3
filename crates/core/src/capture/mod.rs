//! Captured models: a portable record of one run of a model at fixed input shapes, which any
//! host can load, check and replay without the model's source or Python.
//!
//! A capture is a JSON [`Manifest`] plus the weights in safetensors. The manifest lists every
//! buffer the run touches (size, dtype, role; weights by name and sha256), the kernels in the
//! order they ran (what each reads and writes, its binding layout, dispatch size and cost
//! estimate, and its WGSL source when a GPU code generator produced one) and the input/output
//! signature. [`capture_model`] produces one by running the model node by node; [`Capture::load`]
//! refuses a manifest of another format or version, a weight whose bytes do not hash to the
//! manifest's pin, and a kernel it cannot run, each with its own error; [`Capture::replay`]
//! runs it on the reference interpreter with per-kernel timings from a caller-supplied clock
//! (the core has no clock of its own, so the same code runs in wasm).
//!
//! The format itself (the manifest's serde types) is `manifest`; this module records a capture
//! and loads one; `cpu` is the CPU plan that replays it, choosing in `select` which `routine`
//! runs each kernel, whose direct kernels are `conv`, `gemm`, `pool` and `elementwise`.

mod conv;
mod cpu;
mod elementwise;
mod gemm;
mod manifest;
mod pool;
mod routine;
mod select;

pub use cpu::{CpuKernels, CpuPlan, Replay, ReplayTiming};
pub use manifest::{
    Buffer, BufferBinding, Cost, DeviceTarget, GpuKernel, Manifest, ModelInfo, OpKernel, Role, WeightRef, WeightsFile,
    BACKENDS, FORMAT, VERSION, WEIGHTS_FILE, WORKGROUP_SIZE,
};

use std::collections::{BTreeMap, HashMap};

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use crate::codegen::ir::BufRef;
use crate::codegen::wgsl;
use crate::data::sha256_hex;
use crate::error::{bail, Error, Result};
use crate::model::ops::Lower;
use crate::model::HostTensor;
use crate::onnx::{self, Node, SUPPORTED_OPS};
use crate::schedule::{ScheduleOptions, Scheduler};
use crate::tensor::{Engine, StorageRef, Tensor};
use crate::uop::buffer::Data;
use crate::DType;

use manifest::{attr_from_json, attr_json};

fn dtype_size(d: DType) -> usize {
    d.itemsize()
}

fn data_bytes(d: &Data) -> Result<(Dtype, Vec<u8>)> {
    Ok((st_dtype(d.dtype()), d.to_le_bytes()))
}

fn bytes_data(dtype: DType, b: &[u8]) -> Data {
    Data::from_le_bytes(dtype, b)
}

fn st_dtype(d: DType) -> Dtype {
    match d {
        DType::Float64 => Dtype::F64,
        DType::Float32 => Dtype::F32,
        DType::Float16 => Dtype::F16,
        DType::BFloat16 => Dtype::BF16,
        DType::Int64 => Dtype::I64,
        DType::Int32 => Dtype::I32,
        DType::Int16 => Dtype::I16,
        DType::Int8 => Dtype::I8,
        DType::UInt8 => Dtype::U8,
        DType::Bool => Dtype::BOOL,
    }
}

/// A rough operation count: multiply-adds for the contracting ops, one op per output element
/// (per input element for reductions) otherwise.
fn flops(node: &Node, ins: &[Option<&Buffer>], outs: &[&Buffer]) -> u64 {
    let out: u64 = outs.iter().map(|b| b.shape.iter().product::<usize>() as u64).sum();
    let first_in = ins.first().copied().flatten().map_or(0, |b| b.shape.iter().product::<usize>() as u64);
    match node.op_type() {
        "Conv" => {
            let w = ins.get(1).copied().flatten().map_or(1, |b| b.shape[1..].iter().product::<usize>() as u64);
            2 * out * w
        }
        "MatMul" | "Gemm" => {
            let a = ins.first().copied().flatten();
            let k = a
                .and_then(|b| {
                    if node.op_type() == "Gemm" && node.int_or("transA", 0).unwrap_or(0) != 0 {
                        b.shape.first()
                    } else {
                        b.shape.last()
                    }
                })
                .copied()
                .unwrap_or(1);
            2 * out * k as u64
        }
        "MaxPool" | "AveragePool" => {
            let k = node.ints("kernel_shape").ok().flatten().map_or(1, |k| k.iter().product::<i64>().max(1) as u64);
            out * k
        }
        "GlobalAveragePool" | "Softmax" | "BatchNormalization" => first_in.max(out) * 2,
        _ => out,
    }
}

/// Runs `model` on `inputs` node by node and records the run as a capture: the manifest and
/// the safetensors bytes of its weights (initializers and Constant values). `sha256` pins the
/// ONNX file the model was read from.
pub fn capture_model(model: &onnx::Model, sha256: &str, inputs: &[(&str, HostTensor)]) -> Result<(Manifest, Vec<u8>)> {
    model.validate()?;
    let mut engine = Engine::new();
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut tensors: HashMap<usize, Tensor> = HashMap::new();
    let mut weights: Vec<(String, Data, Vec<usize>)> = Vec::new();
    // Engine storage -> the buffer that owns it (the first buffer over it; later views alias).
    let mut owner: HashMap<usize, usize> = HashMap::new();
    let own = |owner: &mut HashMap<usize, usize>, t: &Tensor, id: usize| {
        if let StorageRef::Realized(s) = t.storage() {
            owner.entry(s).or_insert(id);
        }
    };
    let add = |buffers: &mut Vec<Buffer>, name: &str, role: Role, dtype: DType, shape: &[usize]| -> usize {
        let id = buffers.len();
        let size = shape.iter().product::<usize>() * dtype_size(dtype);
        buffers.push(Buffer { id, name: name.to_string(), role, dtype, shape: shape.to_vec(), size, weight: None });
        id
    };
    for (name, init) in model.initializers() {
        let h = HostTensor::from_onnx(init)?;
        let id = add(&mut buffers, name, Role::Weight, h.dtype(), h.shape());
        let t = engine.from_data(h.data().clone(), h.shape())?;
        own(&mut owner, &t, id);
        tensors.insert(id, t);
        weights.push((name.clone(), h.data().clone(), h.shape().to_vec()));
        ids.insert(name.clone(), id);
    }
    let mut input_ids = Vec::new();
    for decl in model.inputs() {
        let Some((_, h)) = inputs.iter().find(|(n, _)| *n == decl.name()) else {
            bail!(Shape, "{}: input {:?} was not given", model.name(), decl.name());
        };
        let id = add(&mut buffers, decl.name(), Role::Input, h.dtype(), h.shape());
        let t = engine.from_data(h.data().clone(), h.shape())?;
        own(&mut owner, &t, id);
        tensors.insert(id, t);
        ids.insert(decl.name().to_string(), id);
        input_ids.push(id);
    }
    let mut kernels = Vec::new();
    let mut scheduler = Scheduler::default();
    let opset = model.opset();
    for (k, node) in model.nodes().iter().enumerate() {
        let args: Vec<Option<Tensor>> =
            node.inputs().iter().map(|n| ids.get(n).and_then(|id| tensors.get(id)).cloned()).collect();
        let outs = Lower { engine: &mut engine, opset }.node(node, &args)?;
        if node.op_type() == "Constant" {
            // A constant is data, not work: it becomes a weight buffer.
            let (name, t) = (&node.outputs()[0], &outs[0]);
            let data = engine.values(t)?;
            let id = add(&mut buffers, name, Role::Weight, t.dtype(), t.shape());
            weights.push((name.clone(), data, t.shape().to_vec()));
            let t = engine.realize(t)?;
            own(&mut owner, &t, id);
            tensors.insert(id, t);
            ids.insert(name.clone(), id);
            continue;
        }
        let mut writes = Vec::new();
        let events = engine.events().len();
        for (name, t) in node.outputs().iter().zip(&outs) {
            let t = engine.realize(t)?;
            let id = add(&mut buffers, name, Role::Intermediate, t.dtype(), t.shape());
            own(&mut owner, &t, id);
            tensors.insert(id, t);
            ids.insert(name.clone(), id);
            writes.push(id);
        }
        // The fused kernels this op became, with their bindings resolved to buffers: temps
        // get intermediate buffers, host-made constants (masks, divisors) weight buffers.
        let sched = scheduler.schedule(&engine, events..engine.events().len(), ScheduleOptions::default())?;
        let temps: Vec<usize> = sched
            .temps
            .iter()
            .enumerate()
            .map(|(i, &(dt, len))| {
                add(&mut buffers, &format!("{}.tmp{i}", node.outputs()[0]), Role::Intermediate, dt, &[len])
            })
            .collect();
        let mut gpu = Vec::with_capacity(sched.kernels.len());
        for gk in &sched.kernels {
            let r = wgsl::render(gk)?;
            let mut gb = Vec::with_capacity(gk.slots.len());
            for (i, slot) in gk.slots.iter().enumerate() {
                let buffer = match slot.buf {
                    BufRef::Temp(t) => temps[t],
                    BufRef::Storage(st) => match owner.get(&st) {
                        Some(&b) => b,
                        None => {
                            let data = engine.storage(st).data.clone();
                            let name = format!("{}.const{st}", node.outputs()[0]);
                            let b = add(&mut buffers, &name, Role::Weight, data.dtype(), &[data.len()]);
                            weights.push((name.clone(), data.clone(), vec![data.len()]));
                            ids.insert(name, b);
                            owner.insert(st, b);
                            b
                        }
                    },
                };
                let access = if r.read_only.get(i).copied().unwrap_or(false) { "read" } else { "read_write" };
                gb.push(BufferBinding { binding: i as u32, buffer, access: access.into() });
            }
            gpu.push(GpuKernel {
                name: gk.name.clone(),
                wgsl: r.wgsl,
                entry: r.entry.to_string(),
                workgroup_size: r.workgroup_size,
                workgroups: r.workgroups,
                bindings: gb,
                reason: gk.reason.clone(),
            });
        }
        let reads: Vec<Option<usize>> =
            node.inputs().iter().map(|n| if n.is_empty() { None } else { ids.get(n).copied() }).collect();
        let mut bindings = Vec::new();
        for &b in reads.iter().flatten() {
            bindings.push(BufferBinding { binding: bindings.len() as u32, buffer: b, access: "read".into() });
        }
        for &b in &writes {
            bindings.push(BufferBinding { binding: bindings.len() as u32, buffer: b, access: "read_write".into() });
        }
        let ins: Vec<Option<&Buffer>> = reads.iter().map(|r| r.map(|i| &buffers[i])).collect();
        let outb: Vec<&Buffer> = writes.iter().map(|&i| &buffers[i]).collect();
        let elems: u64 = outb.iter().map(|b| b.shape.iter().product::<usize>() as u64).max().unwrap_or(0);
        let cost = Cost {
            flops: flops(node, &ins, &outb),
            bytes_read: ins.iter().flatten().map(|b| b.size as u64).sum(),
            bytes_written: outb.iter().map(|b| b.size as u64).sum(),
        };
        let attributes =
            node.attributes().iter().map(|(n, a)| Ok((n.clone(), attr_json(a)?))).collect::<Result<_>>()?;
        kernels.push(OpKernel {
            name: format!("k{k}_{}", node.op_type().to_lowercase()),
            op: node.op_type().to_string(),
            attributes,
            gpu,
            bindings,
            reads,
            writes,
            dispatch: [elems.div_ceil(WORKGROUP_SIZE).max(1), 1, 1],
            cost,
        });
    }
    let mut output_ids = Vec::new();
    for o in model.outputs() {
        let Some(&id) = ids.get(o.name()) else {
            bail!(Shape, "{}: output {:?} is never computed", model.name(), o.name())
        };
        if buffers[id].role == Role::Intermediate {
            buffers[id].role = Role::Output;
        }
        output_ids.push(id);
    }
    // Weights into safetensors, each pinned by the sha256 of its bytes.
    let mut blobs: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, data, shape) in &weights {
        let (dt, bytes) = data_bytes(data)?;
        let id = ids[name];
        buffers[id].weight = Some(WeightRef { tensor: name.clone(), sha256: sha256_hex(&bytes) });
        blobs.push((name.clone(), dt, shape.clone(), bytes));
    }
    let views = blobs
        .iter()
        .map(|(n, dt, shape, bytes)| {
            Ok((
                n.clone(),
                TensorView::new(*dt, shape.clone(), bytes)
                    .map_err(|e| Error::Decode(format!("capture: weight {n:?}: {e}")))?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let st = safetensors::tensor::serialize(views, None)
        .map_err(|e| Error::Decode(format!("capture: writing safetensors: {e}")))?;
    let mut limits = BTreeMap::new();
    limits.insert("maxStorageBufferBindingSize".to_string(), buffers.iter().map(|b| b.size as u64).max().unwrap_or(0));
    limits.insert(
        "maxStorageBuffersPerShaderStage".to_string(),
        kernels
            .iter()
            .flat_map(|k| std::iter::once(k.bindings.len()).chain(k.gpu.iter().map(|g| g.bindings.len())))
            .max()
            .unwrap_or(0) as u64,
    );
    let gpu = || kernels.iter().flat_map(|k| k.gpu.iter());
    limits.insert(
        "maxComputeWorkgroupsPerDimension".to_string(),
        kernels.iter().map(|k| k.dispatch[0]).chain(gpu().flat_map(|g| g.workgroups.map(u64::from))).max().unwrap_or(0),
    );
    limits.insert(
        "maxComputeInvocationsPerWorkgroup".to_string(),
        gpu()
            .map(|g| g.workgroup_size.iter().map(|&n| u64::from(n)).product::<u64>())
            .chain([WORKGROUP_SIZE])
            .max()
            .unwrap_or(WORKGROUP_SIZE),
    );
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        model: ModelInfo { name: model.name().into(), opset, sha256: sha256.into() },
        target: DeviceTarget { backend: "cpu".into(), features: Vec::new(), limits },
        weights: WeightsFile { file: WEIGHTS_FILE.into(), sha256: sha256_hex(&st) },
        schedule: (0..kernels.len()).collect(),
        buffers,
        kernels,
        inputs: input_ids,
        outputs: output_ids,
    };
    Ok((manifest, st))
}

/// A loaded, checked capture, ready to replay.
#[derive(Clone, Debug)]
pub struct Capture {
    manifest: Manifest,
    /// Weight buffer id -> its values.
    weights: BTreeMap<usize, Data>,
    /// Each kernel as the op the interpreter lowers, indexed like `manifest.kernels`: decoded
    /// once at load so a replay does no JSON work (`None` for a kernel the schedule skips).
    nodes: Vec<Option<Node>>,
}

impl Capture {
    /// Parses and checks a capture: format and version, the weights file's hash, every weight's
    /// presence, dtype, shape and sha256, and that every kernel is one this build can run on its
    /// target, in an order where each buffer is written before it is read.
    pub fn load(manifest_json: &[u8], weights: &[u8]) -> Result<Capture> {
        let head: serde_json::Value = serde_json::from_slice(manifest_json)
            .map_err(|e| Error::Decode(format!("capture manifest: not JSON: {e}")))?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            bail!(
                Decode,
                "capture manifest: format is {}, expected {FORMAT:?}",
                head.get("format").map_or("missing".to_string(), |f| f.to_string())
            );
        }
        match head.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                bail!(Unsupported, "capture format version {v} is not supported; this build reads version {VERSION}")
            }
            None => bail!(Decode, "capture manifest: no format version"),
        }
        let manifest: Manifest =
            serde_json::from_value(head).map_err(|e| Error::Decode(format!("capture manifest: {e}")))?;
        let m = &manifest;
        if !BACKENDS.contains(&m.target.backend.as_str()) {
            bail!(
                Unsupported,
                "capture targets backend {:?}; known backends are {}",
                m.target.backend,
                BACKENDS.join(", ")
            );
        }
        if m.target.backend != "cpu" {
            bail!(Unsupported, "capture targets {:?}; this build replays only cpu captures", m.target.backend);
        }
        if let Some(f) = m.target.features.first() {
            bail!(Unsupported, "capture needs device feature {f:?}, which the cpu replay does not provide");
        }
        let actual = sha256_hex(weights);
        if actual != m.weights.sha256 {
            bail!(
                Decode,
                "capture weights {}: sha256 mismatch: manifest pins {}, file has {actual}",
                m.weights.file,
                m.weights.sha256
            );
        }
        let st = SafeTensors::deserialize(weights)
            .map_err(|e| Error::Decode(format!("capture weights {}: not safetensors: {e}", m.weights.file)))?;
        let mut loaded = BTreeMap::new();
        let mut written = vec![false; m.buffers.len()];
        for (i, b) in m.buffers.iter().enumerate() {
            if b.id != i {
                bail!(Decode, "capture manifest: buffer {i} has id {}", b.id);
            }
            if b.size != b.shape.iter().product::<usize>() * dtype_size(b.dtype) {
                bail!(
                    Decode,
                    "capture manifest: buffer {} ({:?}) size {} does not match {:?} {}",
                    b.id,
                    b.name,
                    b.size,
                    b.shape,
                    b.dtype
                );
            }
            match (&b.weight, b.role) {
                (Some(w), Role::Weight) => {
                    let t = st.tensor(&w.tensor).map_err(|_| {
                        Error::Decode(format!("capture weights: tensor {:?} (buffer {}) is missing", w.tensor, b.id))
                    })?;
                    if t.dtype() != st_dtype(b.dtype) || t.shape() != b.shape.as_slice() {
                        bail!(
                            Decode,
                            "capture weights: tensor {:?} is {:?} {:?}, the manifest says {} {:?}",
                            w.tensor,
                            t.dtype(),
                            t.shape(),
                            b.dtype,
                            b.shape
                        );
                    }
                    let h = sha256_hex(t.data());
                    if h != w.sha256 {
                        bail!(
                            Decode,
                            "capture weights: tensor {:?}: sha256 mismatch: manifest pins {}, data has {h}",
                            w.tensor,
                            w.sha256
                        );
                    }
                    loaded.insert(b.id, bytes_data(b.dtype, t.data()));
                    written[i] = true;
                }
                (None, Role::Weight) => {
                    bail!(Decode, "capture manifest: weight buffer {} ({:?}) has no weight reference", b.id, b.name)
                }
                (Some(_), _) => bail!(
                    Decode,
                    "capture manifest: buffer {} ({:?}) is not a weight but has a weight reference",
                    b.id,
                    b.name
                ),
                _ => {}
            }
        }
        for &i in &m.inputs {
            match m.buffers.get(i) {
                Some(b) if b.role == Role::Input => written[i] = true,
                _ => bail!(Decode, "capture manifest: input {i} is not an input buffer"),
            }
        }
        for &k in &m.schedule {
            let Some(kernel) = m.kernels.get(k) else {
                bail!(Decode, "capture manifest: schedule names kernel {k}, which does not exist")
            };
            if !SUPPORTED_OPS.contains(&kernel.op.as_str()) || kernel.op == "Constant" {
                bail!(
                    Unsupported,
                    "capture kernel {:?} computes op {:?}, which this build cannot run",
                    kernel.name,
                    kernel.op
                );
            }
            for &r in kernel.reads.iter().flatten() {
                if !written.get(r).copied().unwrap_or(false) {
                    bail!(Decode, "capture kernel {:?} reads buffer {r} before anything writes it", kernel.name);
                }
            }
            for &w in &kernel.writes {
                match written.get_mut(w) {
                    Some(slot) => *slot = true,
                    None => bail!(Decode, "capture kernel {:?} writes buffer {w}, which does not exist", kernel.name),
                }
            }
            for g in &kernel.gpu {
                if let Some(b) = g.bindings.iter().find(|b| b.buffer >= m.buffers.len()) {
                    bail!(
                        Decode,
                        "capture kernel {:?}: GPU kernel {:?} binds buffer {}, which does not exist",
                        kernel.name,
                        g.name,
                        b.buffer
                    );
                }
            }
        }
        if let Some(&o) = m.outputs.iter().find(|&&o| !written.get(o).copied().unwrap_or(false)) {
            bail!(Decode, "capture manifest: output buffer {o} is never written");
        }
        let mut nodes = vec![None; m.kernels.len()];
        for &k in &m.schedule {
            let kernel = &m.kernels[k];
            let name = |i: usize| m.buffers[i].name.clone();
            let attributes =
                kernel.attributes.iter().map(|(n, v)| Ok((n.clone(), attr_from_json(n, v)?))).collect::<Result<_>>()?;
            nodes[k] = Some(Node::new(
                &kernel.name,
                &kernel.op,
                kernel.reads.iter().map(|r| r.map_or_else(String::new, name)).collect(),
                kernel.writes.iter().map(|&w| name(w)).collect(),
                attributes,
            ));
        }
        Ok(Capture { manifest, weights: loaded, nodes })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The checked values of weight buffer `id`, which a GPU host uploads once.
    pub fn weight(&self, id: usize) -> Option<&Data> {
        self.weights.get(&id)
    }
}
