//! A CPU plan straight from a model: the buffers, kernels and routines a capture of it would
//! give, built from the lowered (never realized) graph's shapes and dtypes, so that running a
//! model costs what replaying its capture does. Only kernels with no direct routine, and
//! constants (folded once at build), touch the interpreter.

use std::collections::{BTreeMap, HashMap};

use crate::error::{bail, Result};
use crate::model::{Execution, HostTensor, ValueRole};
use crate::onnx;

use super::cpu::{CpuKernels, CpuPlan, Spec, SpecKernel};
use super::manifest::kernel_name;

/// The CPU plan of `model` at the shapes `exec` (its graph built for the inputs to be fed,
/// see [`crate::model::build`]) lowered it to. Kernels are named as a capture names them
/// (`k{node}_{op}`), so a run and a replay report the same steps.
pub fn model_plan(model: &onnx::Model, exec: &Execution, kernels: CpuKernels) -> Result<CpuPlan> {
    let mut buffers = Vec::new();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut inputs = Vec::new();
    for (name, shape, dtype, role) in exec.value_types() {
        let id = buffers.len();
        buffers.push((name.to_string(), dtype, shape.to_vec()));
        ids.insert(name, id);
        if role == ValueRole::Input {
            inputs.push(id);
        }
    }
    let mut constants = BTreeMap::new();
    for (name, init) in model.initializers() {
        if let Some(&id) = ids.get(name.as_str()) {
            constants.insert(id, HostTensor::from_onnx(init)?.into_data());
        }
    }
    let lookup = |node: &onnx::Node, name: &str| match ids.get(name) {
        Some(&id) => Ok(id),
        None => bail!(Shape, "{}: value {name:?} is not defined before it is read", node.describe()),
    };
    let mut specs = Vec::with_capacity(model.nodes().len());
    for (k, node) in model.nodes().iter().enumerate() {
        let reads = node
            .inputs()
            .iter()
            .map(|n| if n.is_empty() { Ok(None) } else { lookup(node, n).map(Some) })
            .collect::<Result<Vec<_>>>()?;
        // Unused optional outputs at the end are left out; one left unnamed before a named one
        // has no shape in the lowered graph.
        let named = node.outputs().iter().rposition(|o| !o.is_empty()).map_or(0, |i| i + 1);
        let writes = node.outputs()[..named]
            .iter()
            .map(|o| {
                if o.is_empty() {
                    bail!(
                        Unsupported,
                        "{}: an unnamed output before a named one is not planned; name it in the model",
                        node.describe()
                    )
                }
                lookup(node, o)
            })
            .collect::<Result<Vec<_>>>()?;
        specs.push(SpecKernel { name: kernel_name(k, node), node, reads, writes });
    }
    let outputs = model.outputs().iter().map(|o| lookup_output(&ids, o.name())).collect::<Result<Vec<_>>>()?;
    let spec = Spec { opset: model.opset(), buffers, constants, kernels: specs, inputs, outputs };
    CpuPlan::build(spec, kernels)
}

fn lookup_output(ids: &HashMap<&str, usize>, name: &str) -> Result<usize> {
    match ids.get(name) {
        Some(&id) => Ok(id),
        None => bail!(Shape, "output {name:?} is never computed"),
    }
}
