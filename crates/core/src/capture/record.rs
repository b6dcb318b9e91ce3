//! Recording a capture from a graph: the one procedure behind writing a capture
//! ([`super::capture_model`]) and checking one at load ([`super::Capture::load`]).
//!
//! A [`Recorder`] takes values (weights, inputs) and ops in order, lowers each op onto the
//! engine, realizes its outputs, schedules what that did into fused kernels and renders their
//! WGSL, and hands every buffer and kernel it makes to a [`Ledger`]. Writing a capture, the
//! ledger appends them; loading one, the ledger compares each with the manifest's record and
//! refuses the first difference. So a capture is only ever run as this build compiles its
//! recorded graph: edited WGSL, workgroup counts, bindings, buffer shapes or a swapped op are
//! refused before anything runs, on every backend alike.

use std::collections::{BTreeMap, HashMap};

use crate::codegen::ir::BufRef;
use crate::codegen::wgsl;
use crate::error::{Error, Result};
use crate::model::ops::Lower;
use crate::onnx::Node;
use crate::schedule::{ScheduleOptions, Scheduler};
use crate::tensor::{Engine, StorageRef, Tensor};
use crate::uop::buffer::Data;
use crate::DType;

use super::manifest::{attr_json, Buffer, BufferBinding, Cost, GpuKernel, OpKernel, Role, WORKGROUP_SIZE};

/// Where a recorder's buffers and kernels go.
pub(super) trait Ledger {
    /// A new buffer, in recording order; its id.
    fn buffer(&mut self, name: &str, role: Role, dtype: DType, shape: &[usize]) -> Result<usize>;
    /// The values of weight buffer `id`: an initializer, a Constant's value, or a constant the
    /// engine made for a kernel (a mask, a divisor).
    fn weight(&mut self, id: usize, data: &Data) -> Result<()>;
    /// The kernel of one op, in recording order.
    fn kernel(&mut self, kernel: OpKernel) -> Result<()>;
    /// Buffer `id`, once [`Ledger::buffer`] has returned it.
    fn get(&self, id: usize) -> Option<&Buffer>;
}

/// A graph being recorded: the engine the ops run on, the tensor of every buffer so far, and
/// which buffer owns each engine storage.
pub(super) struct Recorder<L> {
    engine: Engine,
    scheduler: Scheduler,
    tensors: HashMap<usize, Tensor>,
    /// Engine storage -> the buffer that owns it (the first buffer over it; later views alias).
    owner: HashMap<usize, usize>,
    opset: i64,
    pub ledger: L,
}

impl<L: Ledger> Recorder<L> {
    pub fn new(opset: i64, ledger: L) -> Recorder<L> {
        Recorder {
            engine: Engine::new(),
            scheduler: Scheduler::default(),
            tensors: HashMap::new(),
            owner: HashMap::new(),
            opset,
            ledger,
        }
    }

    fn own(&mut self, t: &Tensor, id: usize) {
        if let StorageRef::Realized(s) = t.storage() {
            self.owner.entry(s).or_insert(id);
        }
    }

    /// A weight or an input: a buffer holding `data`.
    pub fn value(&mut self, name: &str, role: Role, data: Data, shape: &[usize]) -> Result<usize> {
        let id = self.ledger.buffer(name, role, data.dtype(), shape)?;
        if role == Role::Weight {
            self.ledger.weight(id, &data)?;
        }
        let t = self.engine.from_data(data, shape)?;
        self.own(&t, id);
        self.tensors.insert(id, t);
        Ok(id)
    }

    /// A Constant node: data, not work, so it becomes a weight buffer. Its value is computed
    /// apart, so the engine holds it exactly as a check of the capture will (kernel reasons
    /// name engine storages).
    pub fn constant(&mut self, node: &Node) -> Result<usize> {
        let mut apart = Engine::new();
        let outs = Lower::new(&mut apart, self.opset).node(node, &[])?;
        let (Some(name), Some(t)) = (node.outputs().first(), outs.first()) else {
            return Err(Error::Shape(format!("{} has no output", node.describe())));
        };
        let data = apart.values(t)?;
        let shape = t.shape().to_vec();
        self.value(name, Role::Weight, data, &shape)
    }

    /// One op reading buffers `reads` (in its input order; `None` for an omitted input):
    /// lowered, its outputs realized into new buffers, what that did scheduled into fused
    /// kernels with their WGSL, and the whole recorded as the kernel `name`.
    pub fn op(&mut self, name: String, node: &Node, reads: Vec<Option<usize>>) -> Result<()> {
        let mut args = Vec::with_capacity(reads.len());
        for r in &reads {
            args.push(match r {
                None => None,
                Some(i) => Some(self.tensors.get(i).cloned().ok_or_else(|| {
                    Error::Decode(format!("capture kernel {name:?} reads buffer {i} before anything writes it"))
                })?),
            });
        }
        // Everything the op realizes counts, including values its lowering realizes to read
        // them (a gather's wrapped indices): those become this kernel's intermediate buffers.
        let events = self.engine.events().len();
        let mut lower = Lower::new(&mut self.engine, self.opset);
        let outs = lower.node(node, &args)?;
        // An input read as a value (other than Reshape's target, which a check re-derives from
        // the recorded shape) would be fixed into the kernels.
        for t in lower.values_read() {
            let owner = match t.storage() {
                StorageRef::Realized(s) => self.owner.get(&s).and_then(|&b| self.ledger.get(b)),
                _ => None,
            };
            if let Some(b) = owner.filter(|b| b.role == Role::Input) {
                let reshape_target = node.op_type() == "Reshape" && reads.get(1) == Some(&Some(b.id));
                if !reshape_target {
                    return Err(Error::Unsupported(format!(
                        "capture: {} reads input {:?} as a value (a shape, bound or scale); a capture's \
                         inputs are data only: make it a constant of the model",
                        node.describe(),
                        b.name
                    )));
                }
            }
        }
        let mut writes = Vec::new();
        for (out, t) in node.outputs().iter().zip(&outs) {
            let t = self.engine.realize(t)?;
            let id = self.ledger.buffer(out, Role::Intermediate, t.dtype(), t.shape())?;
            self.own(&t, id);
            self.tensors.insert(id, t);
            writes.push(id);
        }
        // The fused kernels this op became, with their bindings resolved to buffers: temps
        // get intermediate buffers, constants the engine made (masks, divisors) weight buffers.
        let end = self.engine.events().len();
        let sched = self.scheduler.schedule(&self.engine, events..end, ScheduleOptions::default())?;
        let base = node.outputs().first().map_or("", String::as_str);
        let mut temps = Vec::with_capacity(sched.temps.len());
        for (i, &(dt, len)) in sched.temps.iter().enumerate() {
            temps.push(self.ledger.buffer(&format!("{base}.tmp{i}"), Role::Intermediate, dt, &[len])?);
        }
        let mut constants = 0;
        let written = sched.written();
        let mut gpu = Vec::with_capacity(sched.kernels.len());
        for gk in &sched.kernels {
            let r = wgsl::render(gk)?;
            let mut gb = Vec::with_capacity(gk.slots.len());
            for (i, slot) in gk.slots.iter().enumerate() {
                let buffer = match slot.buf {
                    BufRef::Temp(t) => *temps
                        .get(t)
                        .ok_or_else(|| Error::Shape(format!("kernel {} binds temporary {t}, never made", gk.name)))?,
                    BufRef::Storage(st) => match self.owner.get(&st) {
                        Some(&b) => b,
                        None if written.contains(&st) => {
                            let d = &self.engine.storage(st).data;
                            let (dt, len) = (d.dtype(), d.len());
                            let b = self.ledger.buffer(
                                &format!("{base}.value{constants}"),
                                Role::Intermediate,
                                dt,
                                &[len],
                            )?;
                            constants += 1;
                            self.owner.insert(st, b);
                            b
                        }
                        None => {
                            let data = self.engine.storage(st).data.clone();
                            let b = self.ledger.buffer(
                                &format!("{base}.const{constants}"),
                                Role::Weight,
                                data.dtype(),
                                &[data.len()],
                            )?;
                            constants += 1;
                            self.ledger.weight(b, &data)?;
                            self.owner.insert(st, b);
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
        let mut bindings = Vec::new();
        for &b in reads.iter().flatten() {
            bindings.push(BufferBinding { binding: bindings.len() as u32, buffer: b, access: "read".into() });
        }
        for &b in &writes {
            bindings.push(BufferBinding { binding: bindings.len() as u32, buffer: b, access: "read_write".into() });
        }
        let buffer = |i: usize| {
            self.ledger.get(i).ok_or_else(|| Error::Decode(format!("capture kernel {name:?}: no buffer {i}")))
        };
        let ins: Vec<Option<&Buffer>> = reads.iter().map(|r| r.map(buffer).transpose()).collect::<Result<_>>()?;
        let outb: Vec<&Buffer> = writes.iter().map(|&i| buffer(i)).collect::<Result<_>>()?;
        let elems: u64 = outb.iter().map(|b| b.shape.iter().product::<usize>() as u64).max().unwrap_or(0);
        let cost = Cost {
            flops: flops(node, &ins, &outb),
            bytes_read: ins.iter().flatten().map(|b| b.size as u64).sum(),
            bytes_written: outb.iter().map(|b| b.size as u64).sum(),
        };
        let attributes =
            node.attributes().iter().map(|(n, a)| Ok((n.clone(), attr_json(a)?))).collect::<Result<_>>()?;
        let kernel = OpKernel {
            name,
            op: node.op_type().to_string(),
            attributes,
            gpu,
            bindings,
            reads,
            writes,
            dispatch: [elems.div_ceil(WORKGROUP_SIZE).max(1), 1, 1],
            cost,
        };
        self.ledger.kernel(kernel)
    }
}

/// The device limits a capture's buffers and kernels need, by WebGPU limit name.
pub(super) fn target_limits(buffers: &[Buffer], kernels: &[OpKernel]) -> BTreeMap<String, u64> {
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
    limits
}

/// The ledger of a new capture: buffers and kernels appended, weights kept for the file.
#[derive(Default)]
pub(super) struct Writer {
    pub buffers: Vec<Buffer>,
    pub kernels: Vec<OpKernel>,
    /// Weight buffer id and its values, in recording order.
    pub weights: Vec<(usize, Data)>,
}

impl Ledger for Writer {
    fn buffer(&mut self, name: &str, role: Role, dtype: DType, shape: &[usize]) -> Result<usize> {
        let id = self.buffers.len();
        let size = shape.iter().product::<usize>() * dtype.itemsize();
        self.buffers.push(Buffer {
            id,
            name: name.to_string(),
            role,
            dtype,
            shape: shape.to_vec(),
            size,
            weight: None,
        });
        Ok(id)
    }

    fn weight(&mut self, id: usize, data: &Data) -> Result<()> {
        self.weights.push((id, data.clone()));
        Ok(())
    }

    fn kernel(&mut self, kernel: OpKernel) -> Result<()> {
        self.kernels.push(kernel);
        Ok(())
    }

    fn get(&self, id: usize) -> Option<&Buffer> {
        self.buffers.get(id)
    }
}

/// The ledger of a capture being loaded: every buffer and kernel the recorder makes must be
/// the manifest's next one, exactly.
pub(super) struct Check<'a> {
    pub buffers: &'a [Buffer],
    pub kernels: &'a [OpKernel],
    pub outputs: &'a [usize],
    /// Weight buffer id -> its checked values.
    pub weights: &'a BTreeMap<usize, Data>,
    /// The next buffer and kernel the recording must meet.
    pub next_buffer: usize,
    pub next_kernel: usize,
}

impl Ledger for Check<'_> {
    fn buffer(&mut self, name: &str, role: Role, dtype: DType, shape: &[usize]) -> Result<usize> {
        let id = self.next_buffer;
        let Some(b) = self.buffers.get(id) else {
            return Err(Error::Decode(format!(
                "capture manifest: its graph makes a buffer {id} ({name:?}) the manifest does not list"
            )));
        };
        // A model output keeps the role the writer gives it.
        let role = if role == Role::Intermediate && self.outputs.contains(&id) { Role::Output } else { role };
        if b.name != name || b.role != role || b.dtype != dtype || b.shape != shape {
            return Err(Error::Decode(format!(
                "capture buffer {id} is recorded as {:?} {:?} {} {:?}, but its graph makes {name:?} {role:?} {dtype} {shape:?}",
                b.name, b.role, b.dtype, b.shape
            )));
        }
        self.next_buffer += 1;
        Ok(id)
    }

    fn weight(&mut self, id: usize, data: &Data) -> Result<()> {
        match self.weights.get(&id) {
            Some(w) if w.dtype() == data.dtype() && w.to_le_bytes() == data.to_le_bytes() => Ok(()),
            _ => Err(Error::Decode(format!(
                "capture buffer {id}: its recorded values are not the constant its graph computes"
            ))),
        }
    }

    fn kernel(&mut self, kernel: OpKernel) -> Result<()> {
        let k = self.next_kernel;
        let Some(rec) = self.kernels.get(k) else {
            return Err(Error::Decode(format!("capture manifest: its graph makes a kernel {k} the manifest lacks")));
        };
        if let Some(field) = first_difference(rec, &kernel) {
            return Err(Error::Decode(format!(
                "capture kernel {:?} ({}): its {field} differs from what this build compiles from the capture's graph",
                rec.name, rec.op
            )));
        }
        self.next_kernel += 1;
        Ok(())
    }

    fn get(&self, id: usize) -> Option<&Buffer> {
        self.buffers.get(id).filter(|_| id < self.next_buffer)
    }
}

/// The first field in which a recorded kernel differs from the compiled one.
fn first_difference(rec: &OpKernel, got: &OpKernel) -> Option<String> {
    let fields: [(&str, bool); 8] = [
        ("op", rec.op == got.op),
        ("attributes", rec.attributes == got.attributes),
        ("reads", rec.reads == got.reads),
        ("writes", rec.writes == got.writes),
        ("bindings", rec.bindings == got.bindings),
        ("dispatch", rec.dispatch == got.dispatch),
        ("cost", rec.cost == got.cost),
        ("number of GPU kernels", rec.gpu.len() == got.gpu.len()),
    ];
    if let Some((f, _)) = fields.iter().find(|(_, same)| !same) {
        return Some((*f).to_string());
    }
    for (i, (r, g)) in rec.gpu.iter().zip(&got.gpu).enumerate() {
        let fields: [(&str, bool); 7] = [
            ("name", r.name == g.name),
            ("WGSL", r.wgsl == g.wgsl),
            ("entry point", r.entry == g.entry),
            ("workgroup size", r.workgroup_size == g.workgroup_size),
            ("workgroup count", r.workgroups == g.workgroups),
            ("bindings", r.bindings == g.bindings),
            ("reason", r.reason == g.reason),
        ];
        if let Some((f, _)) = fields.iter().find(|(_, same)| !same) {
            return Some(format!("GPU kernel {i} {f}"));
        }
    }
    (rec.name != got.name).then(|| "name".to_string())
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
