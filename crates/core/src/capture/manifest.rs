//! The capture format: the manifest's serde types, exactly the JSON a capture is written as and
//! read from, and how a node attribute is stored in it. Recording a capture and replaying one
//! live beside it (`super`, [`super::cpu`]); nothing here runs anything.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{bail, Error, Result};
use crate::onnx::Attribute;
use crate::uop::buffer::Data;
use crate::DType;

/// The format's name, the first thing a loader checks.
pub const FORMAT: &str = "stridelab-capture";
/// The manifest layout this build writes and reads.
pub const VERSION: u32 = 1;
/// The backends a capture can target; this build replays `cpu` captures.
pub const BACKENDS: [&str; 2] = ["cpu", "webgpu"];
/// Nominal threads per workgroup behind the dispatch sizes (one thread per output element).
pub const WORKGROUP_SIZE: u64 = 64;

/// What a buffer holds in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Input,
    Weight,
    Intermediate,
    Output,
}

/// Where a weight buffer's bytes are: a tensor in the safetensors file, and their sha256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightRef {
    pub tensor: String,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub id: usize,
    /// The value's name in the model.
    pub name: String,
    pub role: Role,
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Size in bytes.
    pub size: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<WeightRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferBinding {
    pub binding: u32,
    pub buffer: usize,
    /// `read` or `read_write`, as a WGSL storage binding declares it.
    pub access: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Arithmetic operations, estimated from the op and its shapes.
    pub flops: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpKernel {
    pub name: String,
    /// The ONNX op the kernel computes and its attributes, which is what the CPU replays.
    pub op: String,
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    /// The fused GPU kernels the scheduler made of this op, in dispatch order, each a
    /// complete WGSL module with its bindings: what a WebGPU host replays.
    #[serde(default)]
    pub gpu: Vec<GpuKernel>,
    pub bindings: Vec<BufferBinding>,
    /// Buffer ids read, in the op's input order (`None` for an omitted optional input).
    pub reads: Vec<Option<usize>>,
    /// Buffer ids written, in the op's output order.
    pub writes: Vec<usize>,
    /// Workgroups in x, y, z.
    pub dispatch: [u64; 3],
    pub cost: Cost,
}

/// One WGSL compute kernel: its source, entry point, launch size and buffer bindings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuKernel {
    pub name: String,
    pub wgsl: String,
    pub entry: String,
    pub workgroup_size: [u32; 3],
    pub workgroups: [u32; 3],
    /// Binding `i` of bind group 0 is `bindings[i]` (binding 0 is the output).
    pub bindings: Vec<BufferBinding>,
    /// Why the scheduler ended the kernel here.
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceTarget {
    /// One of [`BACKENDS`].
    pub backend: String,
    /// Device features the kernels need (WebGPU feature names).
    pub features: Vec<String>,
    /// Device limits the run needs, by WebGPU limit name.
    pub limits: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub opset: i64,
    /// sha256 of the ONNX file the capture was made from.
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeightsFile {
    pub file: String,
    pub sha256: String,
}

/// The JSON half of a capture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub model: ModelInfo,
    pub target: DeviceTarget,
    pub weights: WeightsFile,
    pub buffers: Vec<Buffer>,
    pub kernels: Vec<OpKernel>,
    /// Kernel indices in execution order.
    pub schedule: Vec<usize>,
    /// Buffer ids of the inputs and outputs, in the model's order.
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
}

/// The file name the writer gives the weights, next to the manifest.
pub const WEIGHTS_FILE: &str = "weights.safetensors";

/// The most elements a tensor attribute may have in a manifest.
const MAX_TENSOR_ATTRIBUTE: usize = 4096;

/// A node attribute as the manifest stores it: a one-key object naming its kind.
pub(super) fn attr_json(a: &Attribute) -> Result<serde_json::Value> {
    use serde_json::json;
    Ok(match a {
        Attribute::Float(v) => json!({ "float": v }),
        Attribute::Int(v) => json!({ "int": v }),
        Attribute::String(v) => json!({ "string": v }),
        Attribute::Floats(v) => json!({ "floats": v }),
        Attribute::Ints(v) => json!({ "ints": v }),
        Attribute::Strings(v) => json!({ "strings": v }),
        // A small tensor (ConstantOfShape's value): dtype, dims and its bytes in hex, exact for
        // every value (NaN and infinities included).
        Attribute::Tensor(t) if t.len() <= MAX_TENSOR_ATTRIBUTE => {
            let hex: String = t.data().to_le_bytes().iter().map(|b| format!("{b:02x}")).collect();
            json!({ "tensor": { "dtype": t.data().dtype(), "dims": t.dims(), "hex": hex } })
        }
        Attribute::Tensor(t) => bail!(
            Unsupported,
            "a tensor attribute of {} elements is more than a capture records (at most {MAX_TENSOR_ATTRIBUTE})",
            t.len()
        ),
    })
}

/// The attribute an [`attr_json`] object stands for; `Decode` for anything else.
pub(super) fn attr_from_json(name: &str, v: &serde_json::Value) -> Result<Attribute> {
    let bad = || {
        Error::Decode(format!(
            "capture: attribute {name:?} is not one of float, int, string, floats, ints, strings, tensor: {v}"
        ))
    };
    let obj = v.as_object().filter(|o| o.len() == 1).ok_or_else(bad)?;
    let (kind, x) = obj.iter().next().ok_or_else(bad)?;
    let floats = |x: &serde_json::Value| -> Option<Vec<f32>> {
        x.as_array()?.iter().map(|e| e.as_f64().map(|f| f as f32)).collect()
    };
    let ints =
        |x: &serde_json::Value| -> Option<Vec<i64>> { x.as_array()?.iter().map(serde_json::Value::as_i64).collect() };
    Ok(match kind.as_str() {
        "float" => Attribute::Float(x.as_f64().ok_or_else(bad)? as f32),
        "int" => Attribute::Int(x.as_i64().ok_or_else(bad)?),
        "string" => Attribute::String(x.as_str().ok_or_else(bad)?.to_string()),
        "floats" => Attribute::Floats(floats(x).ok_or_else(bad)?),
        "tensor" => {
            let dtype: DType = serde_json::from_value(x["dtype"].clone()).map_err(|_| bad())?;
            let dims: Vec<usize> = serde_json::from_value(x["dims"].clone()).map_err(|_| bad())?;
            let hex = x["hex"].as_str().ok_or_else(bad)?;
            let n = crate::limits::checked_numel_within(&dims, MAX_TENSOR_ATTRIBUTE).ok_or_else(bad)?;
            if hex.len() != 2 * n * dtype.itemsize() || !hex.is_ascii() {
                return Err(bad());
            }
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
                .collect::<Result<_>>()?;
            Attribute::Tensor(crate::onnx::Tensor::new(name, dims, Data::from_le_bytes(dtype, &bytes))?)
        }
        "ints" => Attribute::Ints(ints(x).ok_or_else(bad)?),
        "strings" => Attribute::Strings(
            x.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|e| e.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(bad)?,
        ),
        _ => return Err(bad()),
    })
}

/// The name of the kernel made from the model's `k`-th node: `k{k}_{op}` (`k4_conv`), in a
/// capture and in a plan built from the model alike; a fused step joins them with `+`.
pub fn kernel_name(k: usize, node: &crate::onnx::Node) -> String {
    format!("k{k}_{}", node.op_type().to_lowercase())
}

/// The node index a [`kernel_name`] was made from.
pub fn kernel_node(name: &str) -> Option<usize> {
    name.strip_prefix('k')?.split('_').next()?.parse().ok()
}
