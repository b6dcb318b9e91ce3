//! Running ONNX models on the engine: each node of a validated [`onnx::Model`] is lowered to
//! the engine's lazy graph ops (views, pads, elementwise, reductions, PyTorch-style matmul), so a
//! model becomes one graph like any trace's — inspectable, schedulable into kernels and realized
//! by the same reference interpreter that defines every op's meaning.
//!
//! The graph is built for concrete inputs: shapes are known when each node is lowered, and the
//! few inputs that ONNX uses as shapes (Reshape's `shape`) are read as values.

mod data_ops;
mod host;
mod input;
mod layouts;
mod math_ops;
mod npy;
pub(crate) mod ops;
mod recurrent;
mod spatial_ops;

pub use host::HostTensor;
pub use input::{cifar_images, idx_images, seeded_input};
pub use layouts::{NodeInfo, ValueLayout, ValueRole};
pub use npy::{read_npy, write_npy};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::{bail, Result};
use crate::onnx;
use crate::schedule::{schedule_events, ScheduleOptions, StepKernels};
use crate::tensor::{Engine, Event, Tensor};
use crate::uop::buffer::Data;

/// A model's graph built on an engine for one set of inputs; realize it with
/// [`Execution::outputs`].
pub struct Execution {
    engine: Engine,
    inputs: Vec<(String, Tensor)>,
    outputs: Vec<(String, Tensor)>,
    /// Every named value in definition order (see [`Execution::layouts`]).
    values: Vec<(String, Tensor, ValueRole)>,
    nodes: Vec<NodeInfo>,
}

impl Execution {
    /// The model's nodes, in order.
    pub fn nodes(&self) -> &[NodeInfo] {
        &self.nodes
    }

    /// Every named value (inputs, weights, each node's outputs) in definition order, with its
    /// PyTorch layout and view chain.
    pub fn layouts(&self) -> Vec<ValueLayout> {
        layouts::layouts(&self.values, &self.nodes)
    }

    /// Every named value's name, shape, dtype and role, in definition order (without building
    /// the layouts).
    pub fn value_types(&self) -> impl Iterator<Item = (&str, &[usize], crate::DType, ValueRole)> {
        self.values.iter().map(|(n, t, r)| (n.as_str(), t.shape(), t.dtype(), *r))
    }

    /// The engine holding the model's graph and storages (weights, inputs, realized results).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The graph inputs' tensors, in the model's order.
    pub fn input_tensors(&self) -> &[(String, Tensor)] {
        &self.inputs
    }

    /// The graph outputs' (lazy) tensors, in the model's order.
    pub fn output_tensors(&self) -> &[(String, Tensor)] {
        &self.outputs
    }

    /// Realizes every output (one interpreter pass each) and returns them in the model's order.
    pub fn outputs(&mut self) -> Result<Vec<(String, HostTensor)>> {
        let mut out = Vec::with_capacity(self.outputs.len());
        for (name, t) in self.outputs.clone() {
            let data = self.engine.values(&t)?;
            out.push((name, HostTensor::new(t.shape().to_vec(), data)?));
        }
        Ok(out)
    }
}

impl Execution {
    /// Realizes the outputs like [`Execution::outputs`] and also schedules everything that
    /// took into fused kernels, packaged with the storages they start from and what the
    /// interpreter left, so any kernel backend can run the model and be checked against it.
    pub fn scheduled(&mut self, opts: ScheduleOptions) -> Result<(Vec<(String, HostTensor)>, StepKernels)> {
        let engine = &self.engine;
        let start = engine.events().len();
        let outputs = self.outputs()?;
        let engine = &self.engine;
        let end = engine.events().len();
        let schedule = schedule_events(engine, start..end, opts)?;
        // The storages the kernels touch: those the kernels fill start as zeros, the others
        // (weights and inputs, which the run only reads) as they are.
        let realized: BTreeSet<usize> = engine.events()[start..end]
            .iter()
            .filter_map(|e| match e {
                Event::Realize { storage, .. } => Some(*storage),
                _ => None,
            })
            .collect();
        let mut inputs = BTreeMap::new();
        for s in schedule.storages() {
            let d = &engine.storage(s).data;
            if realized.contains(&s) {
                inputs.insert(s, Data::zeros(d.dtype(), d.len()));
            } else {
                inputs.insert(s, d.clone());
            }
        }
        let expected = schedule.written().into_iter().map(|s| (s, engine.storage(s).data.clone())).collect();
        let step = StepKernels { line: 1, source: "model".to_string(), schedule, inputs, expected, note: None };
        Ok((outputs, step))
    }
}

/// Builds `model`'s graph for `inputs` (by graph input name; every declared input must be fed,
/// with its declared element type and any fixed dims) without running it.
pub fn build(model: &onnx::Model, inputs: &[(&str, HostTensor)]) -> Result<Execution> {
    let mut engine = Engine::new();
    let mut values: HashMap<String, Tensor> = HashMap::new();
    let mut named = Vec::new();
    for (name, init) in model.initializers() {
        let h = HostTensor::from_onnx(init)?;
        let t = engine.from_data(h.data, &h.shape)?;
        values.insert(name.clone(), t.clone());
        named.push((name.clone(), t, ValueRole::Weight));
    }
    let mut fed = Vec::with_capacity(model.inputs().len());
    for decl in model.inputs() {
        let Some((_, h)) = inputs.iter().find(|(n, _)| *n == decl.name()) else {
            bail!(Shape, "{}: input {:?} was not given", model.name(), decl.name());
        };
        check_input(model.name(), decl, h)?;
        let t = engine.from_data(h.data.clone(), &h.shape)?;
        values.insert(decl.name().to_string(), t.clone());
        named.push((decl.name().to_string(), t.clone(), ValueRole::Input));
        fed.push((decl.name().to_string(), t));
    }
    if let Some((extra, _)) = inputs.iter().find(|(n, _)| !model.inputs().iter().any(|d| d.name() == *n)) {
        bail!(Shape, "{}: the model has no input named {extra:?}", model.name());
    }
    let mut lower = ops::Lower::new(&mut engine, model.opset());
    for (k, node) in model.nodes().iter().enumerate() {
        let args: Vec<Option<Tensor>> =
            node.inputs().iter().map(|n| if n.is_empty() { None } else { values.get(n).cloned() }).collect();
        let outs =
            lower.node(node, &args).map_err(|e| in_node(e, &format!("{}: {}: ", model.name(), node.describe())))?;
        for (index, (name, t)) in node.outputs().iter().zip(outs).enumerate() {
            if !name.is_empty() {
                values.insert(name.clone(), t.clone());
                named.push((name.clone(), t, ValueRole::Computed { node: k, index }));
            }
        }
    }
    let mut outputs = Vec::with_capacity(model.outputs().len());
    for o in model.outputs() {
        let Some(t) = values.get(o.name()) else {
            bail!(Unsupported, "{}: output {:?} is not produced by the lowered graph", model.name(), o.name());
        };
        outputs.push((o.name().to_string(), t.clone()));
    }
    let nodes = model
        .nodes()
        .iter()
        .map(|n| NodeInfo {
            name: n.name().to_string(),
            op: n.op_type().to_string(),
            inputs: n.inputs().to_vec(),
            outputs: n.outputs().to_vec(),
        })
        .collect();
    Ok(Execution { engine, inputs: fed, outputs, values: named, nodes })
}

/// Builds and realizes: the model's outputs for `inputs`.
pub fn execute(model: &onnx::Model, inputs: &[(&str, HostTensor)]) -> Result<Vec<(String, HostTensor)>> {
    build(model, inputs)?.outputs()
}

fn check_input(model: &str, decl: &onnx::ValueInfo, h: &HostTensor) -> Result<()> {
    let want = decl.elem_type().engine_dtype();
    if h.dtype() != want {
        bail!(
            DType,
            "{model}: input {:?} is {}, the model declares {}",
            decl.name(),
            h.dtype(),
            decl.elem_type().name()
        );
    }
    if let Some(dims) = decl.shape() {
        let fits = dims.len() == h.shape.len()
            && dims.iter().zip(&h.shape).all(|(d, &n)| !matches!(d, onnx::Dim::Fixed(f) if *f != n));
        if !fits {
            bail!(Shape, "{model}: input {:?} has shape {:?}, the model declares {dims:?}", decl.name(), h.shape);
        }
    }
    Ok(())
}

/// Prefixes an error with the model and node it came from, keeping its kind.
fn in_node(e: crate::Error, at: &str) -> crate::Error {
    use crate::Error as E;
    let m = |m: String| format!("{at}{m}");
    match e {
        E::Parse { line, column, message } => E::Parse { line, column, message: m(message) },
        E::Overlap { message, elements } => E::Overlap { message: m(message), elements },
        E::View(s) => E::View(m(s)),
        E::Index(s) => E::Index(m(s)),
        E::Bounds(s) => E::Bounds(m(s)),
        E::Shape(s) => E::Shape(m(s)),
        E::DType(s) => E::DType(m(s)),
        E::Name(s) => E::Name(m(s)),
        E::Type(s) => E::Type(m(s)),
        E::Unsupported(s) => E::Unsupported(m(s)),
        E::UnknownOp { message, name } => E::UnknownOp { message: m(message), name },
        E::Limit(s) => E::Limit(m(s)),
        E::Decode(s) => E::Decode(m(s)),
        E::Assertion(s) => E::Assertion(m(s)),
        E::Value(s) => E::Value(m(s)),
        E::Autograd(s) => E::Autograd(m(s)),
        E::Raised { class, message } => E::Raised { class, message: m(message) },
    }
}
