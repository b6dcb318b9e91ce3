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
pub use tensor::{read_tensor, ElemType, ExternalFiles, Tensor};
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

/// The attributes of ONNX's recurrent ops (LSTM adds `input_forget`, GRU `linear_before_reset`).
const RECURRENT: [&str; 7] =
    ["activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout"];
/// The attributes of ONNX's reductions.
const REDUCE: &[&str] = &["axes", "keepdims", "noop_with_empty_axes"];
/// ONNX's elementwise ops without attributes.
const NONE: &[&str] = &[];

/// The ops the core implements, each with the attributes ONNX defines for it (at the opsets of
/// [`OPSET_RANGE`]); any other op, or an attribute its op does not define, is refused when the
/// model is read (and when a capture is loaded). What each op computes is `model::ops`.
pub const OPS: [(&str, &[&str]); 124] = [
    ("Conv", &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"]),
    (
        "ConvTranspose",
        &["auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"],
    ),
    ("Relu", NONE),
    ("MaxPool", &["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"]),
    ("AveragePool", &["auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"]),
    ("GlobalAveragePool", NONE),
    ("GlobalMaxPool", NONE),
    ("Flatten", &["axis"]),
    ("Reshape", &["allowzero"]),
    ("Gemm", &["alpha", "beta", "transA", "transB"]),
    ("MatMul", NONE),
    ("Einsum", &["equation"]),
    ("Add", NONE),
    ("Mul", NONE),
    ("Sub", NONE),
    ("Div", NONE),
    ("Pow", NONE),
    ("Mod", &["fmod"]),
    ("Max", NONE),
    ("Min", NONE),
    ("Sum", NONE),
    ("Mean", NONE),
    ("Equal", NONE),
    ("Less", NONE),
    ("LessOrEqual", NONE),
    ("Greater", NONE),
    ("GreaterOrEqual", NONE),
    ("And", NONE),
    ("Or", NONE),
    ("Xor", NONE),
    ("Not", NONE),
    ("Where", NONE),
    ("Neg", NONE),
    ("Abs", NONE),
    ("Sign", NONE),
    ("Reciprocal", NONE),
    ("Sqrt", NONE),
    ("Exp", NONE),
    ("Log", NONE),
    ("Erf", NONE),
    ("Tanh", NONE),
    ("Sigmoid", NONE),
    ("Sin", NONE),
    ("Cos", NONE),
    ("Tan", NONE),
    ("Asin", NONE),
    ("Acos", NONE),
    ("Atan", NONE),
    ("Sinh", NONE),
    ("Cosh", NONE),
    ("Asinh", NONE),
    ("Acosh", NONE),
    ("Atanh", NONE),
    ("IsNaN", NONE),
    ("IsInf", &["detect_negative", "detect_positive"]),
    ("Floor", NONE),
    ("Ceil", NONE),
    ("Round", NONE),
    ("HardSigmoid", &["alpha", "beta"]),
    ("HardSwish", NONE),
    ("LeakyRelu", &["alpha"]),
    ("PRelu", NONE),
    ("Elu", &["alpha"]),
    ("Selu", &["alpha", "gamma"]),
    ("Celu", &["alpha"]),
    ("ThresholdedRelu", &["alpha"]),
    ("Shrink", &["bias", "lambd"]),
    ("Mish", NONE),
    ("Gelu", &["approximate"]),
    ("Softplus", NONE),
    ("Softsign", NONE),
    ("Softmax", &["axis"]),
    ("LogSoftmax", &["axis"]),
    ("BatchNormalization", &["epsilon", "momentum", "training_mode"]),
    ("LayerNormalization", &["axis", "epsilon", "stash_type"]),
    ("InstanceNormalization", &["epsilon"]),
    ("GroupNormalization", &["epsilon", "num_groups", "stash_type"]),
    ("Dropout", &["ratio", "seed"]),
    ("Clip", NONE),
    ("Identity", NONE),
    ("Cast", &["saturate", "to"]),
    ("CastLike", &["saturate"]),
    ("Transpose", &["perm"]),
    ("Concat", &["axis"]),
    ("Split", &["axis", "num_outputs", "split"]),
    ("Slice", NONE),
    ("Squeeze", &["axes"]),
    ("Unsqueeze", &["axes"]),
    ("Expand", NONE),
    ("Tile", NONE),
    ("Pad", &["mode"]),
    ("Shape", &["end", "start"]),
    ("Size", NONE),
    ("ConstantOfShape", &["value"]),
    ("Range", NONE),
    ("Gather", &["axis"]),
    ("GatherElements", &["axis"]),
    ("GatherND", &["batch_dims"]),
    ("ScatterND", &["reduction"]),
    ("ScatterElements", &["axis", "reduction"]),
    ("OneHot", &["axis"]),
    ("NonZero", NONE),
    ("DepthToSpace", &["blocksize", "mode"]),
    ("SpaceToDepth", &["blocksize"]),
    ("Trilu", &["upper"]),
    ("CumSum", &["exclusive", "reverse"]),
    ("TopK", &["axis", "largest", "sorted"]),
    ("ArgMax", &["axis", "keepdims", "select_last_index"]),
    ("ArgMin", &["axis", "keepdims", "select_last_index"]),
    ("ReduceMean", REDUCE),
    ("ReduceSum", REDUCE),
    ("ReduceMax", REDUCE),
    ("ReduceMin", REDUCE),
    ("ReduceProd", REDUCE),
    ("ReduceL2", REDUCE),
    ("ReduceL1", REDUCE),
    ("ReduceSumSquare", REDUCE),
    ("ReduceLogSum", REDUCE),
    ("ReduceLogSumExp", REDUCE),
    (
        "Resize",
        &[
            "antialias",
            "axes",
            "coordinate_transformation_mode",
            "cubic_coeff_a",
            "exclude_outside",
            "extrapolation_value",
            "keep_aspect_ratio_policy",
            "mode",
            "nearest_mode",
        ],
    ),
    (
        "LSTM",
        &[
            "activation_alpha",
            "activation_beta",
            "activations",
            "clip",
            "direction",
            "hidden_size",
            "input_forget",
            "layout",
        ],
    ),
    (
        "GRU",
        &[
            "activation_alpha",
            "activation_beta",
            "activations",
            "clip",
            "direction",
            "hidden_size",
            "layout",
            "linear_before_reset",
        ],
    ),
    ("RNN", &RECURRENT),
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
pub const SUPPORTED_OPS: [&str; OPS.len()] = {
    let mut names = [""; OPS.len()];
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

/// Reads and validates a model whose tensors are all inside it: [`Model::decode`] then
/// [`Model::validate`].
pub fn read_model(name: &str, bytes: &[u8]) -> Result<Model> {
    read_model_with(name, bytes, &ExternalFiles::new())
}

/// Reads and validates a model whose weights may live in files beside it (see
/// [`external_locations`]).
pub fn read_model_with(name: &str, bytes: &[u8], external: &ExternalFiles) -> Result<Model> {
    let model = Model::decode_with(name, bytes, external)?;
    model.validate()?;
    Ok(model)
}

fn decode_proto(name: &str, bytes: &[u8]) -> Result<proto::ModelProto> {
    proto::ModelProto::decode(bytes).map_err(|e| Error::Decode(format!("{name}: not an ONNX model: {e}")))
}

/// The files a model's external tensors name (`model.onnx.data` for PyTorch's exporter), each
/// once, in order: what a host reads beside the model before [`read_model_with`]. A location
/// must be a plain file name or a relative path below the model's folder.
pub fn external_locations(name: &str, bytes: &[u8]) -> Result<Vec<String>> {
    let m = decode_proto(name, bytes)?;
    let mut out: Vec<String> = Vec::new();
    let Some(graph) = &m.graph else { return Ok(out) };
    let attr_tensors = graph.node.iter().flat_map(|n| n.attribute.iter().filter_map(|a| a.t.as_ref()));
    for t in graph.initializer.iter().chain(attr_tensors) {
        for e in t.external_data.iter().filter(|e| e.key() == "location") {
            let loc = e.value();
            let plain = !loc.is_empty()
                && !loc.starts_with('/')
                && !loc.contains('\\')
                && loc.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
            if !plain {
                bail!(
                    Decode,
                    "{name}: tensor {:?} names external file {loc:?}, which is not a file beside the model",
                    t.name()
                );
            }
            if !out.iter().any(|o| o == loc) {
                out.push(loc.to_string());
            }
        }
    }
    Ok(out)
}

impl Model {
    /// Decodes a model whose tensors are all inside it; see [`Model::decode_with`].
    pub fn decode(name: &str, bytes: &[u8]) -> Result<Model> {
        Model::decode_with(name, bytes, &ExternalFiles::new())
    }

    /// Decodes the protobuf and converts it, checking the structure (tensor sizes, element
    /// types, attribute kinds) but not the opset or the ops, so that models the core cannot run
    /// can still be inspected. `name` names the file in messages; `external` holds the files
    /// its external tensors point into. Every tensor or value of an element type the front end
    /// does not read is named in one error.
    pub fn decode_with(name: &str, bytes: &[u8], external: &ExternalFiles) -> Result<Model> {
        let m = decode_proto(name, bytes)?;
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
        let mut unsupported = Vec::new();
        let mut keep = |r: Result<()>| -> Result<()> {
            match r {
                Err(Error::Unsupported(m)) => {
                    unsupported.push(m.strip_prefix(&ctx).unwrap_or(&m).to_string());
                    Ok(())
                }
                other => other,
            }
        };
        let mut initializers = BTreeMap::new();
        for t in &graph.initializer {
            keep(Tensor::from_proto(t, &format!("{ctx}initializer "), external).and_then(|t| {
                if initializers.contains_key(t.name()) {
                    bail!(Decode, "{name}: initializer {:?} appears twice", t.name());
                }
                initializers.insert(t.name().to_string(), t);
                Ok(())
            }))?;
        }
        // Older exporters list initializers among the graph inputs too; they are weights, not
        // values the caller feeds, so they are left out here.
        let mut inputs = Vec::new();
        for v in graph.input.iter().filter(|v| !initializers.contains_key(v.name())) {
            keep(ValueInfo::from_proto(v, &format!("{ctx}input ")).map(|v| inputs.push(v)))?;
        }
        let mut outputs = Vec::new();
        for v in &graph.output {
            keep(ValueInfo::from_proto(v, &format!("{ctx}output ")).map(|v| outputs.push(v)))?;
        }
        let mut nodes = Vec::new();
        for n in &graph.node {
            keep(Node::from_proto(n, &ctx).map(|n| nodes.push(n)))?;
        }
        if !unsupported.is_empty() {
            // Each names its problem; the list of supported types is said once, at the end.
            let mut note = String::new();
            for m in &mut unsupported {
                if let Some(at) = m.find(tensor::SUPPORTED_NOTE) {
                    note = m[at..].to_string();
                    m.truncate(at);
                }
            }
            bail!(Unsupported, "{name}: {}{note}", unsupported.join("; "));
        }
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
        // Every node the core cannot run, named in one message, grouped by op.
        let mut missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for node in &self.nodes {
            let op = match node.domain() {
                "" | "ai.onnx" if SUPPORTED_OPS.contains(&node.op_type()) => {
                    check_attributes(node)?;
                    continue;
                }
                "" | "ai.onnx" => node.op_type().to_string(),
                domain => format!("{domain}::{}", node.op_type()),
            };
            let who = if node.name().is_empty() { "unnamed".to_string() } else { format!("{:?}", node.name()) };
            missing.entry(op).or_default().push(who);
        }
        if !missing.is_empty() {
            let list: Vec<String> = missing
                .iter()
                .map(|(op, nodes)| {
                    let shown: Vec<&str> = nodes.iter().take(3).map(String::as_str).collect();
                    let more = if nodes.len() > 3 { format!(" and {} more", nodes.len() - 3) } else { String::new() };
                    format!("{op} (node{} {}{more})", if nodes.len() == 1 { "" } else { "s" }, shown.join(", "))
                })
                .collect();
            bail!(
                Unsupported,
                "{name}: {} op{} not supported: {}",
                missing.len(),
                if missing.len() == 1 { " is" } else { "s are" },
                list.join("; ")
            );
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
