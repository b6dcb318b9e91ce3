//! Tensors as the front end keeps them: a name, dims and the decoded float32 or int64 data.
//!
//! ONNX stores a tensor's data either as little-endian `raw_data` or in a typed repeated field
//! (`float_data`, `int64_data`); both are accepted, and the element count must match the dims
//! exactly, so a short or padded initializer is an error rather than a silently wrong weight.

use prost::Message;

use super::proto;
use crate::error::{bail, Error, Result};

/// The element types the front end decodes: what the supported ops need for weights and
/// activations (float32) and for shapes and indices (int64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    Float32,
    Int64,
}

impl ElemType {
    /// ONNX's name for the type (`TensorProto.DataType`), as messages and the spec spell it.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::Float32 => "FLOAT",
            ElemType::Int64 => "INT64",
        }
    }

    /// Maps ONNX's `TensorProto.DataType` code; `what` names the tensor or value in the error.
    pub(crate) fn from_code(code: i32, what: &str) -> Result<ElemType> {
        use proto::tensor_proto::DataType;
        match DataType::try_from(code) {
            Ok(DataType::Float) => Ok(ElemType::Float32),
            Ok(DataType::Int64) => Ok(ElemType::Int64),
            Ok(other) => bail!(
                Unsupported,
                "{what} has element type {}; only FLOAT and INT64 are supported",
                other.as_str_name()
            ),
            Err(_) => bail!(Decode, "{what} has unknown element type code {code}"),
        }
    }
}

/// Decoded tensor data, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    F32(Vec<f32>),
    I64(Vec<i64>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    name: String,
    dims: Vec<usize>,
    data: TensorData,
}

impl Tensor {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The shape; empty for a scalar.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    pub fn data(&self) -> &TensorData {
        &self.data
    }

    pub fn elem_type(&self) -> ElemType {
        match self.data {
            TensorData::F32(_) => ElemType::Float32,
            TensorData::I64(_) => ElemType::Int64,
        }
    }

    /// Element count, the product of `dims` (1 for a scalar).
    pub fn len(&self) -> usize {
        match &self.data {
            TensorData::F32(v) => v.len(),
            TensorData::I64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            TensorData::F32(v) => Some(v),
            TensorData::I64(_) => None,
        }
    }

    pub fn as_i64(&self) -> Option<&[i64]> {
        match &self.data {
            TensorData::I64(v) => Some(v),
            TensorData::F32(_) => None,
        }
    }

    /// Converts a `TensorProto`; `ctx` says where it sits (file, node) for error messages.
    pub(crate) fn from_proto(t: &proto::TensorProto, ctx: &str) -> Result<Tensor> {
        let name = t.name().to_string();
        let what = format!("{ctx}tensor {name:?}");
        if t.data_location() == proto::tensor_proto::DataLocation::External || !t.external_data.is_empty() {
            bail!(Unsupported, "{what} keeps its data in an external file, which is not supported");
        }
        if t.segment.is_some() {
            bail!(Unsupported, "{what} is a segment of a larger tensor, which is not supported");
        }
        let elem = ElemType::from_code(t.data_type(), &what)?;
        let mut dims = Vec::with_capacity(t.dims.len());
        for &d in &t.dims {
            let Ok(d) = usize::try_from(d) else {
                bail!(Decode, "{what} has negative dimension {d} in {:?}", t.dims);
            };
            dims.push(d);
        }
        let Some(numel) = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) else {
            bail!(Decode, "{what} has dimensions {dims:?} whose element count overflows");
        };
        let raw = t.raw_data.as_deref();
        let typed_len = match elem {
            ElemType::Float32 => t.float_data.len(),
            ElemType::Int64 => t.int64_data.len(),
        };
        let data = match raw {
            Some(raw) if typed_len == 0 => decode_raw(raw, elem, numel, &what)?,
            Some(raw) if !raw.is_empty() => {
                bail!(Decode, "{what} has both raw_data and typed data; ONNX allows one")
            }
            _ => {
                if typed_len != numel {
                    bail!(Decode, "{what} has dimensions {dims:?} ({numel} elements) but {typed_len} values");
                }
                match elem {
                    ElemType::Float32 => TensorData::F32(t.float_data.clone()),
                    ElemType::Int64 => TensorData::I64(t.int64_data.clone()),
                }
            }
        };
        Ok(Tensor { name, dims, data })
    }
}

fn decode_raw(raw: &[u8], elem: ElemType, numel: usize, what: &str) -> Result<TensorData> {
    let width = match elem {
        ElemType::Float32 => 4,
        ElemType::Int64 => 8,
    };
    if numel.checked_mul(width) != Some(raw.len()) {
        bail!(
            Decode,
            "{what} has {numel} {} elements, which need {} raw bytes, but holds {}",
            elem.name(),
            numel.saturating_mul(width),
            raw.len()
        );
    }
    Ok(match elem {
        ElemType::Float32 => {
            TensorData::F32(raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        }
        ElemType::Int64 => TensorData::I64(
            raw.chunks_exact(8).map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect(),
        ),
    })
}

/// Reads a serialized `TensorProto` (the `.pb` inputs and outputs of ONNX's backend tests).
pub fn read_tensor(name: &str, bytes: &[u8]) -> Result<Tensor> {
    let t = proto::TensorProto::decode(bytes).map_err(|e| Error::Decode(format!("{name}: not a TensorProto: {e}")))?;
    Tensor::from_proto(&t, &format!("{name}: "))
}
