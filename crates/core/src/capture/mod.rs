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
//! runs each kernel, whose direct kernels are `conv`, `gemm`, `pool` and `elementwise`;
//! `model_plan` builds the same plan from a model's lowered graph, without a capture.

mod conv;
mod cpu;
mod elementwise;
mod gemm;
mod manifest;
mod model_plan;
mod pool;
mod record;
mod routine;
mod select;

pub use cpu::{CpuKernels, CpuPlan, Replay, ReplayTiming};
pub use manifest::{kernel_name, kernel_node};
pub use manifest::{
    Buffer, BufferBinding, Cost, DeviceTarget, GpuKernel, Manifest, ModelInfo, OpKernel, Role, WeightRef, WeightsFile,
    BACKENDS, FORMAT, VERSION, WEIGHTS_FILE, WORKGROUP_SIZE,
};
pub use model_plan::model_plan;

use std::collections::{BTreeMap, HashMap};

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use crate::data::sha256_hex;
use crate::error::{bail, Error, Result};
use crate::limits::{checked_numel_within, MAX_ELEMENTS};
use crate::model::HostTensor;
use crate::onnx::{self, Node, SUPPORTED_OPS};
use crate::uop::buffer::Data;
use crate::DType;

use manifest::attr_from_json;
use record::{target_limits, Check, Recorder, Writer};

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

/// Runs `model` on `inputs` node by node and records the run as a capture: the manifest and
/// the safetensors bytes of its weights (initializers and Constant values). `sha256` pins the
/// ONNX file the model was read from.
pub fn capture_model(model: &onnx::Model, sha256: &str, inputs: &[(&str, HostTensor)]) -> Result<(Manifest, Vec<u8>)> {
    model.validate()?;
    let opset = model.opset();
    let mut rec = Recorder::new(opset, Writer::default());
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (name, init) in model.initializers() {
        let h = HostTensor::from_onnx(init)?;
        let id = rec.value(name, Role::Weight, h.data().clone(), h.shape())?;
        ids.insert(name.clone(), id);
    }
    let mut input_ids = Vec::new();
    for decl in model.inputs() {
        let Some((_, h)) = inputs.iter().find(|(n, _)| *n == decl.name()) else {
            bail!(Shape, "{}: input {:?} was not given", model.name(), decl.name());
        };
        let id = rec.value(decl.name(), Role::Input, h.data().clone(), h.shape())?;
        ids.insert(decl.name().to_string(), id);
        input_ids.push(id);
    }
    for (k, node) in model.nodes().iter().enumerate() {
        if node.op_type() == "Constant" {
            let id = rec.constant(node)?;
            ids.insert(node.outputs()[0].clone(), id);
            continue;
        }
        let reads: Vec<Option<usize>> =
            node.inputs().iter().map(|n| if n.is_empty() { None } else { ids.get(n).copied() }).collect();
        let first = rec.ledger.buffers.len();
        rec.op(kernel_name(k, node), node, reads)?;
        for (out, id) in node.outputs().iter().zip(first..) {
            ids.insert(out.clone(), id);
        }
    }
    let Writer { mut buffers, kernels, weights } = rec.ledger;
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
    for (id, data) in &weights {
        let (dt, bytes) = data_bytes(data)?;
        let b = &mut buffers[*id];
        b.weight = Some(WeightRef { tensor: b.name.clone(), sha256: sha256_hex(&bytes) });
        blobs.push((b.name.clone(), dt, b.shape.clone(), bytes));
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
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        model: ModelInfo { name: model.name().into(), opset, sha256: sha256.into() },
        target: DeviceTarget { backend: "cpu".into(), features: Vec::new(), limits: target_limits(&buffers, &kernels) },
        weights: WeightsFile { file: WEIGHTS_FILE.into(), sha256: sha256_hex(&st) },
        schedule: (0..kernels.len()).collect(),
        buffers,
        kernels,
        inputs: input_ids,
        outputs: output_ids,
    };
    Ok((manifest, st))
}

/// The most buffers a capture may list.
pub const MAX_BUFFERS: usize = 1 << 18;
/// The most kernels a capture may list, and the longest schedule.
pub const MAX_KERNELS: usize = 1 << 17;
/// The most bytes all of a capture's buffers may take together.
pub const MAX_BYTES: usize = 1 << 30;

/// Refuses, before anything is allocated, a capture larger than a replay may hold: too many
/// buffers or kernels, a schedule longer than [`MAX_KERNELS`], a buffer past the element limit,
/// or buffers past [`MAX_BYTES`] together.
fn check_sizes(m: &Manifest) -> Result<()> {
    if m.buffers.len() > MAX_BUFFERS {
        bail!(Limit, "capture manifest: {} buffers exceed the limit of {MAX_BUFFERS}", m.buffers.len());
    }
    for (what, n) in [("kernels", m.kernels.len()), ("schedule entries", m.schedule.len())] {
        if n > MAX_KERNELS {
            bail!(Limit, "capture manifest: {n} {what} exceed the limit of {MAX_KERNELS}");
        }
    }
    let mut total = 0usize;
    for b in &m.buffers {
        match checked_numel_within(&b.shape, MAX_ELEMENTS) {
            Some(n) => total = total.saturating_add(n.saturating_mul(dtype_size(b.dtype))),
            None => bail!(
                Limit,
                "capture buffer {} ({:?}) of shape {:?} would exceed the limit of {MAX_ELEMENTS} elements",
                b.id,
                b.name,
                b.shape
            ),
        }
    }
    if total > MAX_BYTES {
        bail!(Limit, "capture buffers take {total} bytes together, over the limit of {MAX_BYTES}");
    }
    Ok(())
}

/// Regenerates every kernel of `m` from its recorded graph (each kernel's op, attributes and
/// buffers, the weights as loaded, zeros for inputs) with this build's compiler, and refuses the
/// first buffer, kernel, WGSL module, binding, dispatch, schedule entry or limit that differs
/// from the record.
fn check_graph(m: &Manifest, weights: &BTreeMap<usize, Data>) -> Result<()> {
    if !m.schedule.iter().copied().eq(0..m.kernels.len()) {
        bail!(Decode, "capture manifest: the schedule is not every kernel once, in recorded order");
    }
    let check = Check {
        buffers: &m.buffers,
        kernels: &m.kernels,
        outputs: &m.outputs,
        weights,
        next_buffer: 0,
        next_kernel: 0,
    };
    let mut rec = Recorder::new(m.model.opset, check);
    // Inputs are zeros, except an input that gives a Reshape its target shape: only its value
    // shapes the kernels, and the recorded output shape is the one value that reproduces them.
    let mut shapes: HashMap<usize, Data> = HashMap::new();
    for k in m.kernels.iter().filter(|k| k.op == "Reshape") {
        let (Some(Some(i)), Some(out)) = (k.reads.get(1), k.writes.first().and_then(|&w| m.buffers.get(w))) else {
            continue;
        };
        if let Some(b) = m.buffers.get(*i).filter(|b| b.role == Role::Input && b.shape == [out.shape.len()]) {
            shapes.insert(*i, Data::I64(out.shape.iter().map(|&d| d as i64).collect()).cast(b.dtype));
        }
    }
    let values = |rec: &mut Recorder<Check<'_>>| -> Result<()> {
        while let Some(b) = m.buffers.get(rec.ledger.next_buffer) {
            let data = match b.role {
                Role::Weight => weights
                    .get(&b.id)
                    .cloned()
                    .ok_or_else(|| Error::Decode(format!("capture buffer {} has no weight", b.id)))?,
                Role::Input => {
                    shapes.get(&b.id).cloned().unwrap_or_else(|| Data::zeros(b.dtype, b.shape.iter().product()))
                }
                Role::Intermediate | Role::Output => return Ok(()),
            };
            rec.value(&b.name, b.role, data, &b.shape)?;
        }
        Ok(())
    };
    for kernel in &m.kernels {
        values(&mut rec)?;
        let name = |i: usize| m.buffers.get(i).map_or_else(String::new, |b| b.name.clone());
        let attributes =
            kernel.attributes.iter().map(|(n, v)| Ok((n.clone(), attr_from_json(n, v)?))).collect::<Result<_>>()?;
        let node = Node::new(
            &kernel.name,
            &kernel.op,
            kernel.reads.iter().map(|r| r.map_or_else(String::new, name)).collect(),
            kernel.writes.iter().map(|&w| name(w)).collect(),
            attributes,
        );
        onnx::check_attributes(&node)?;
        rec.op(kernel.name.clone(), &node, kernel.reads.clone())?;
    }
    values(&mut rec)?;
    if rec.ledger.next_buffer != m.buffers.len() {
        bail!(Decode, "capture manifest: buffer {} is not one its graph makes", rec.ledger.next_buffer);
    }
    let inputs: Vec<usize> = m.buffers.iter().filter(|b| b.role == Role::Input).map(|b| b.id).collect();
    if m.inputs != inputs {
        bail!(Decode, "capture manifest: inputs {:?} are not its input buffers {inputs:?}", m.inputs);
    }
    if let Some(b) = m.buffers.iter().find(|b| b.role == Role::Output && !m.outputs.contains(&b.id)) {
        bail!(Decode, "capture manifest: buffer {} is an output buffer but not a model output", b.id);
    }
    if m.target.limits != target_limits(&m.buffers, &m.kernels) {
        bail!(Decode, "capture manifest: the device limits it records are not what its kernels need");
    }
    Ok(())
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
        check_sizes(m)?;
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
        check_graph(m, &loaded)?;
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

    /// Runs the schedule on the reference interpreter, realizing each kernel's outputs before
    /// the next starts; `clock` is read before and after each kernel. A host that replays many
    /// times keeps a [`CpuPlan`] instead (buffers allocated once, direct f32 kernels).
    pub fn replay(&self, inputs: &[(&str, HostTensor)], clock: &mut dyn FnMut() -> f64) -> Result<Replay> {
        self.cpu_plan(CpuKernels::Reference)?.run(inputs, clock)
    }

    /// Allocates every buffer and binds each scheduled kernel to the routine `kernels` picks.
    pub fn cpu_plan(&self, kernels: CpuKernels) -> Result<CpuPlan> {
        CpuPlan::new(&self.manifest, &self.weights, &self.nodes, kernels)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The checked values of weight buffer `id`, which a GPU host uploads once.
    pub fn weight(&self, id: usize) -> Option<&Data> {
        self.weights.get(&id)
    }
}
