//! The ONNX front end: reads a serialized `ModelProto` into a small [`Model`] that the rest of
//! the core can walk, and checks up front that it is something the core can run — an opset it
//! knows and only ops it implements — so a user gets one clear refusal instead of a failure deep
//! inside execution. [`GraphBuilder`] writes models the other way (the training plan exports with it).
//!
//! Decoding uses prost with the `onnx.proto` types generated once and committed
//! (`tools/models/onnx-proto`), which keeps the build free of `protoc` and of build scripts, and
//! keeps the core wasm-friendly. Like the dataset readers, everything takes bytes plus a name
//! used only in messages.

mod node;
#[allow(clippy::all, clippy::pedantic)]
pub mod proto;
mod tensor;
mod write;

pub use node::{Attribute, Node};
pub use tensor::{read_tensor, ElemType, Tensor, TensorData};
pub use write::{AttrValue, DimSpec, GraphBuilder};

use std::collections::{BTreeMap, HashSet};

use prost::Message;

use crate::error::{bail, Error, Result};

/// The default-domain opsets the front end accepts. From 11 on, the supported ops have their
/// modern forms (Clip takes min/max as inputs, Concat and Flatten take negative axes). Inside the
/// range an op can still change meaning (Softmax coerces its input to 2-D before 13 and works on
/// one axis from 13; BatchNormalization takes `training_mode` from 14; Reshape takes
/// `allowzero` from 14), so execution looks at [`Model::opset`]. Past 17 these ops only widen
/// their type lists, except AveragePool, which gains `dilations` in 19 (handled); the range runs
/// to 25 because ONNX re-saves its own node tests at its newest opsets (22 for the window ops,
/// 25 for Flatten, Reshape, Transpose, Constant), and the executor runs all of them.
pub const OPSET_RANGE: std::ops::RangeInclusive<i64> = 11..=25;

/// The ops the core implements, each with the attributes ONNX defines for it (at the opsets of
/// [`OPSET_RANGE`]); any other op, or an attribute its op does not define, is refused when the
/// model is read (and when a capture is loaded).
pub const OPS: [(&str, &[&str]); 19] = [
    ("Conv", &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"]),
    ("Relu", &[]),
    ("MaxPool", &["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"]),
    ("AveragePool", &["auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"]),
    ("GlobalAveragePool", &[]),
    ("Flatten", &["axis"]),
    ("Reshape", &["allowzero"]),
    ("Gemm", &["alpha", "beta", "transA", "transB"]),
    ("MatMul", &[]),
    ("Add", &[]),
    ("Mul", &[]),
    ("Sub", &[]),
    ("Div", &[]),
    ("Softmax", &["axis"]),
    ("BatchNormalization", &["epsilon", "momentum", "training_mode"]),
    ("Clip", &[]),
    ("Transpose", &["perm"]),
    ("Concat", &["axis"]),
    (
        "Constant",
        &[
            "sparse_value",
            "value",
            "value_float",
            "value_floats",
            "value_int",
            "value_ints",
            "value_string",
            "value_strings",
        ],
    ),
];

/// The names of [`OPS`].
pub const SUPPORTED_OPS: [&str; 19] = {
    let mut names = [""; 19];
    let mut i = 0;
    while i < names.len() {
        names[i] = OPS[i].0;
        i += 1;
    }
    names
};

/// Refuses an attribute `node`'s op does not define (the op itself is checked apart).
pub fn check_attributes(node: &Node) -> Result<()> {
    let Some((_, known)) = OPS.iter().find(|(op, _)| *op == node.op_type()) else {
        return Ok(());
    };
    match node.attributes().keys().find(|a| !known.contains(&a.as_str())) {
        Some(a) => bail!(Decode, "{} has attribute {a:?}, which {} does not define", node.describe(), node.op_type()),
        None => Ok(()),
    }
}

/// One dimension of a declared input or output shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    Fixed(usize),
    /// A named symbolic size such as `batch`.
    Param(String),
    /// A dimension the model leaves unspecified.
    Unknown,
}

/// A graph input or output as declared: its name, element type and (if given) shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    name: String,
    elem_type: ElemType,
    shape: Option<Vec<Dim>>,
}

impl ValueInfo {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn elem_type(&self) -> ElemType {
        self.elem_type
    }

    /// The declared shape, `None` when the model gives no shape (not even a rank).
    pub fn shape(&self) -> Option<&[Dim]> {
        self.shape.as_deref()
    }

    fn from_proto(v: &proto::ValueInfoProto, ctx: &str) -> Result<ValueInfo> {
        use proto::tensor_shape_proto::dimension::Value;
        use proto::type_proto::Value as TypeValue;
        let name = v.name().to_string();
        let what = format!("{ctx}value {name:?}");
        let Some(TypeValue::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
            bail!(Unsupported, "{what} is not a dense tensor, which is all the core handles");
        };
        let elem_type = ElemType::from_code(t.elem_type(), &what)?;
        let shape = match &t.shape {
            None => None,
            Some(s) => Some(
                s.dim
                    .iter()
                    .map(|d| match &d.value {
                        Some(Value::DimValue(n)) => usize::try_from(*n)
                            .map(Dim::Fixed)
                            .map_err(|_| Error::Decode(format!("{what} has negative dimension {n}"))),
                        Some(Value::DimParam(p)) => Ok(Dim::Param(p.clone())),
                        None => Ok(Dim::Unknown),
                    })
                    .collect::<Result<_>>()?,
            ),
        };
        Ok(ValueInfo { name, elem_type, shape })
    }
}

/// An ONNX model reduced to what execution needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    name: String,
    ir_version: i64,
    opset: i64,
    producer: String,
    inputs: Vec<ValueInfo>,
    outputs: Vec<ValueInfo>,
    initializers: BTreeMap<String, Tensor>,
    nodes: Vec<Node>,
}

/// Reads and validates a model: [`Model::decode`] then [`Model::validate`].
pub fn read_model(name: &str, bytes: &[u8]) -> Result<Model> {
    let model = Model::decode(name, bytes)?;
    model.validate()?;
    Ok(model)
}

impl Model {
    /// Decodes the protobuf and converts it, checking the structure (tensor sizes, element
    /// types, attribute kinds) but not the opset or the ops, so that models the core cannot run
    /// can still be inspected. `name` names the file in messages.
    pub fn decode(name: &str, bytes: &[u8]) -> Result<Model> {
        let m =
            proto::ModelProto::decode(bytes).map_err(|e| Error::Decode(format!("{name}: not an ONNX model: {e}")))?;
        let ctx = format!("{name}: ");
        let Some(graph) = &m.graph else {
            bail!(Decode, "{name}: the model has no graph");
        };
        // The default domain may be spelled "" or "ai.onnx"; other domains' imports are ignored
        // here and any node using them fails validation.
        let Some(opset) = m.opset_import.iter().find(|o| matches!(o.domain(), "" | "ai.onnx")).map(|o| o.version())
        else {
            bail!(Decode, "{name}: the model imports no opset of the default ONNX domain");
        };
        if !graph.sparse_initializer.is_empty() {
            bail!(Unsupported, "{name}: sparse initializers are not supported");
        }
        let mut initializers = BTreeMap::new();
        for t in &graph.initializer {
            let t = Tensor::from_proto(t, &format!("{ctx}initializer "))?;
            if initializers.contains_key(t.name()) {
                bail!(Decode, "{name}: initializer {:?} appears twice", t.name());
            }
            initializers.insert(t.name().to_string(), t);
        }
        // Older exporters list initializers among the graph inputs too; they are weights, not
        // values the caller feeds, so they are left out here.
        let inputs = graph
            .input
            .iter()
            .filter(|v| !initializers.contains_key(v.name()))
            .map(|v| ValueInfo::from_proto(v, &format!("{ctx}input ")))
            .collect::<Result<Vec<_>>>()?;
        let outputs = graph
            .output
            .iter()
            .map(|v| ValueInfo::from_proto(v, &format!("{ctx}output ")))
            .collect::<Result<Vec<_>>>()?;
        let nodes = graph.node.iter().map(|n| Node::from_proto(n, &ctx)).collect::<Result<Vec<_>>>()?;
        Ok(Model {
            name: name.to_string(),
            ir_version: m.ir_version(),
            opset,
            producer: format!("{} {}", m.producer_name(), m.producer_version()).trim().to_string(),
            inputs,
            outputs,
            initializers,
            nodes,
        })
    }

    /// Checks that the core can run the model: the opset is in [`OPSET_RANGE`], every node is a
    /// default-domain op from [`SUPPORTED_OPS`], and the graph is well formed — nodes in
    /// topological order, each value defined once, every output defined.
    pub fn validate(&self) -> Result<()> {
        let name = &self.name;
        if !OPSET_RANGE.contains(&self.opset) {
            bail!(
                Unsupported,
                "{name}: opset {} is not supported; the core reads opsets {} to {}",
                self.opset,
                OPSET_RANGE.start(),
                OPSET_RANGE.end()
            );
        }
        for node in &self.nodes {
            if !matches!(node.domain(), "" | "ai.onnx") {
                bail!(
                    Unsupported,
                    "{name}: {} is in domain {:?}; only standard ONNX ops are supported",
                    node.describe(),
                    node.domain()
                );
            }
            if !SUPPORTED_OPS.contains(&node.op_type()) {
                bail!(
                    Unsupported,
                    "{name}: {} uses op {}, which is not supported (supported: {})",
                    node.describe(),
                    node.op_type(),
                    SUPPORTED_OPS.join(", ")
                );
            }
            check_attributes(node)?;
        }
        let mut defined: HashSet<&str> = self.initializers.keys().map(String::as_str).collect();
        for v in &self.inputs {
            if !defined.insert(v.name()) {
                bail!(Decode, "{name}: graph input {:?} is defined twice", v.name());
            }
        }
        for node in &self.nodes {
            for input in node.inputs().iter().filter(|i| !i.is_empty()) {
                if !defined.contains(input.as_str()) {
                    bail!(Decode, "{name}: {} reads {input:?} before anything defines it", node.describe());
                }
            }
            for output in node.outputs().iter().filter(|o| !o.is_empty()) {
                if !defined.insert(output) {
                    bail!(Decode, "{name}: {} redefines {output:?}", node.describe());
                }
            }
        }
        for v in &self.outputs {
            if !defined.contains(v.name()) {
                bail!(Decode, "{name}: graph output {:?} is never defined", v.name());
            }
        }
        Ok(())
    }

    /// The name the model was read under (the file name passed in).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn ir_version(&self) -> i64 {
        self.ir_version
    }

    /// The default-domain opset the model imports.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// `producer_name producer_version`, e.g. `pytorch 2.5.0`.
    pub fn producer(&self) -> &str {
        &self.producer
    }

    /// The values a caller feeds: graph inputs that are not initializers.
    pub fn inputs(&self) -> &[ValueInfo] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[ValueInfo] {
        &self.outputs
    }

    pub fn initializers(&self) -> &BTreeMap<String, Tensor> {
        &self.initializers
    }

    pub fn initializer(&self, name: &str) -> Option<&Tensor> {
        self.initializers.get(name)
    }

    /// Nodes in the file's (topological) order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
}
