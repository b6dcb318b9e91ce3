//! Tensors as the front end keeps them: a name, dims and the decoded data of any dense numeric
//! or boolean element type.
//!
//! ONNX stores a tensor's data as little-endian `raw_data`, in a typed repeated field
//! (`float_data`, `int64_data`, `double_data`, or `int32_data` for every type of 32 bits or
//! fewer), or in an external file beside the model (`data_location: EXTERNAL`, with `location`,
//! `offset` and `length` entries; PyTorch's default exporter writes `model.onnx.data`). All are
//! accepted, and the element count must match the dims exactly, so a short or padded
//! initializer is an error rather than a silently wrong weight.

use std::collections::BTreeMap;

use prost::Message;

use super::proto;
use crate::error::{bail, Error, Result};
use crate::uop::buffer::Data;
use crate::uop::half::{BF16, F16};
use crate::DType;

/// The element types the front end decodes: every dense numeric type the engine holds and bool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    Float32,
    Float64,
    Float16,
    BFloat16,
    Int8,
    UInt8,
    Int16,
    Int32,
    Int64,
    Bool,
}

/// One row per element type: the variant, ONNX's `TensorProto.DataType`, and the dtype the
/// tensor decodes to.
const ELEM_TYPES: [(ElemType, proto::tensor_proto::DataType, DType); 10] = {
    use proto::tensor_proto::DataType as P;
    [
        (ElemType::Float32, P::Float, DType::Float32),
        (ElemType::Float64, P::Double, DType::Float64),
        (ElemType::Float16, P::Float16, DType::Float16),
        (ElemType::BFloat16, P::Bfloat16, DType::BFloat16),
        (ElemType::Int8, P::Int8, DType::Int8),
        (ElemType::UInt8, P::Uint8, DType::UInt8),
        (ElemType::Int16, P::Int16, DType::Int16),
        (ElemType::Int32, P::Int32, DType::Int32),
        (ElemType::Int64, P::Int64, DType::Int64),
        (ElemType::Bool, P::Bool, DType::Bool),
    ]
};

/// Where an unsupported element type's message lists the supported ones.
pub(crate) const SUPPORTED_NOTE: &str = " (supported: ";

impl ElemType {
    fn row(self) -> (ElemType, proto::tensor_proto::DataType, DType) {
        ELEM_TYPES.into_iter().find(|r| r.0 == self).unwrap_or(ELEM_TYPES[0])
    }

    /// ONNX's name for the type (`TensorProto.DataType`), as messages and the spec spell it.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::Float32 => "FLOAT",
            ElemType::Float64 => "DOUBLE",
            ElemType::Float16 => "FLOAT16",
            ElemType::BFloat16 => "BFLOAT16",
            ElemType::Int8 => "INT8",
            ElemType::UInt8 => "UINT8",
            ElemType::Int16 => "INT16",
            ElemType::Int32 => "INT32",
            ElemType::Int64 => "INT64",
            ElemType::Bool => "BOOL",
        }
    }

    /// The dtype a tensor of this type decodes to (the same type).
    pub fn dtype(self) -> DType {
        self.row().2
    }

    /// The dtype the engine computes a model's values of this type in: the same, except that
    /// int64 (shapes, indices, token ids) runs as int32, which every kernel backend has.
    pub fn engine_dtype(self) -> DType {
        match self {
            ElemType::Int64 => DType::Int32,
            other => other.dtype(),
        }
    }

    /// The element type of a dtype, when ONNX has one.
    pub fn of_dtype(d: DType) -> ElemType {
        ELEM_TYPES.into_iter().find(|r| r.2 == d).map_or(ElemType::Float32, |r| r.0)
    }

    /// Maps ONNX's `TensorProto.DataType` code; `what` names the tensor or value in the error.
    pub fn from_code(code: i32, what: &str) -> Result<ElemType> {
        use proto::tensor_proto::DataType;
        match DataType::try_from(code) {
            Ok(p) => match ELEM_TYPES.iter().find(|r| r.1 == p) {
                Some(r) => Ok(r.0),
                None => bail!(
                    Unsupported,
                    "{what} has element type {}{SUPPORTED_NOTE}{})",
                    p.as_str_name(),
                    ELEM_TYPES.iter().map(|r| r.0.name()).collect::<Vec<_>>().join(", ")
                ),
            },
            Err(_) => bail!(Decode, "{what} has unknown element type code {code}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    name: String,
    dims: Vec<usize>,
    elem: ElemType,
    data: Data,
}

/// The files a model's external tensors live in, by the `location` its tensors name (a plain
/// file name beside the model): what the caller read for [`super::Model::decode_with`].
pub type ExternalFiles = BTreeMap<String, Vec<u8>>;

impl Tensor {
    /// A tensor made in memory (a capture's tensor attribute), refusing data that does not fill
    /// `dims`.
    pub fn new(name: &str, dims: Vec<usize>, data: Data) -> Result<Tensor> {
        if dims.iter().product::<usize>() != data.len() {
            bail!(Shape, "{} values cannot fill dims {dims:?}", data.len());
        }
        Ok(Tensor { name: name.to_string(), dims, elem: ElemType::of_dtype(data.dtype()), data })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The shape; empty for a scalar.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The values, row-major, in the tensor's own type.
    pub fn data(&self) -> &Data {
        &self.data
    }

    pub fn elem_type(&self) -> ElemType {
        self.elem
    }

    /// Element count, the product of `dims` (1 for a scalar).
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<&[i64]> {
        match &self.data {
            Data::I64(v) => Some(v),
            _ => None,
        }
    }

    /// Converts a `TensorProto`; `ctx` says where it sits (file, node) for error messages and
    /// `external` holds the files external tensors point into.
    pub(crate) fn from_proto(t: &proto::TensorProto, ctx: &str, external: &ExternalFiles) -> Result<Tensor> {
        let name = t.name().to_string();
        let what = format!("{ctx}tensor {name:?}");
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
        let data = if t.data_location() == proto::tensor_proto::DataLocation::External || !t.external_data.is_empty() {
            decode_raw(external_bytes(t, &what, external)?, elem, numel, &what)?
        } else {
            decode_inline(t, elem, numel, &dims, &what)?
        };
        Ok(Tensor { name, dims, elem, data })
    }
}

/// The bytes an external tensor names: `location` in `external`, from `offset` for `length`
/// bytes (default: to the end of the file).
fn external_bytes<'a>(t: &proto::TensorProto, what: &str, external: &'a ExternalFiles) -> Result<&'a [u8]> {
    let mut entries: BTreeMap<&str, &str> = BTreeMap::new();
    for e in &t.external_data {
        entries.insert(e.key(), e.value());
    }
    let Some(location) = entries.get("location") else {
        bail!(Decode, "{what} keeps its data externally but names no location");
    };
    let number = |key: &str| -> Result<Option<usize>> {
        match entries.get(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<usize>()
                .map(Some)
                .map_err(|_| Error::Decode(format!("{what}: external data {key} {v:?} is not a byte count"))),
        }
    };
    let offset = number("offset")?.unwrap_or(0);
    let Some(file) = external.get(*location) else {
        bail!(Decode, "{what} keeps its data in {location:?}, which was not given (give the file beside the model)");
    };
    let end = match number("length")? {
        Some(n) => offset.checked_add(n),
        None => Some(file.len()),
    };
    match end.and_then(|end| file.get(offset..end)) {
        Some(bytes) => Ok(bytes),
        None => bail!(Decode, "{what}: bytes {offset}.. lie past the end of {location:?} ({} bytes)", file.len()),
    }
}

fn decode_inline(t: &proto::TensorProto, elem: ElemType, numel: usize, dims: &[usize], what: &str) -> Result<Data> {
    let typed_len = match elem {
        ElemType::Float32 => t.float_data.len(),
        ElemType::Float64 => t.double_data.len(),
        ElemType::Int64 => t.int64_data.len(),
        _ => t.int32_data.len(),
    };
    match t.raw_data.as_deref() {
        Some(raw) if typed_len == 0 => decode_raw(raw, elem, numel, what),
        Some(raw) if !raw.is_empty() => bail!(Decode, "{what} has both raw_data and typed data; ONNX allows one"),
        _ => {
            if typed_len != numel {
                bail!(Decode, "{what} has dimensions {dims:?} ({numel} elements) but {typed_len} values");
            }
            let small = || t.int32_data.iter().copied();
            // Types of 16 bits or fewer keep each value (float16 and bfloat16 as bits) in an
            // int32; a value outside the type is a corrupt file, not one to wrap.
            let narrow = |v: i32, lo: i32, hi: i32| -> Result<i32> {
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    bail!(Decode, "{what}: value {v} does not fit {}", elem.name())
                }
            };
            Ok(match elem {
                ElemType::Float32 => Data::F32(t.float_data.clone()),
                ElemType::Float64 => Data::F64(t.double_data.clone()),
                ElemType::Int64 => Data::I64(t.int64_data.clone()),
                ElemType::Int32 => Data::I32(t.int32_data.clone()),
                ElemType::Bool => Data::Bool(small().map(|v| narrow(v, 0, 1).map(|v| v != 0)).collect::<Result<_>>()?),
                ElemType::Int8 => {
                    Data::I8(small().map(|v| narrow(v, -128, 127).map(|v| v as i8)).collect::<Result<_>>()?)
                }
                ElemType::UInt8 => {
                    Data::U8(small().map(|v| narrow(v, 0, 255).map(|v| v as u8)).collect::<Result<_>>()?)
                }
                ElemType::Int16 => {
                    Data::I16(small().map(|v| narrow(v, -32768, 32767).map(|v| v as i16)).collect::<Result<_>>()?)
                }
                ElemType::Float16 => {
                    Data::F16(small().map(|v| narrow(v, 0, 65535).map(|v| F16(v as u16))).collect::<Result<_>>()?)
                }
                ElemType::BFloat16 => {
                    Data::BF16(small().map(|v| narrow(v, 0, 65535).map(|v| BF16(v as u16))).collect::<Result<_>>()?)
                }
            })
        }
    }
}

fn decode_raw(raw: &[u8], elem: ElemType, numel: usize, what: &str) -> Result<Data> {
    let width = elem.dtype().itemsize();
    if numel.checked_mul(width) != Some(raw.len()) {
        bail!(
            Decode,
            "{what} has {numel} {} elements, which need {} raw bytes, but holds {}",
            elem.name(),
            numel.saturating_mul(width),
            raw.len()
        );
    }
    if elem == ElemType::Bool && raw.iter().any(|&b| b > 1) {
        bail!(Decode, "{what}: a BOOL element holds a byte other than 0 or 1");
    }
    Ok(Data::from_le_bytes(elem.dtype(), raw))
}

/// Reads a serialized `TensorProto` (the `.pb` inputs and outputs of ONNX's backend tests).
pub fn read_tensor(name: &str, bytes: &[u8]) -> Result<Tensor> {
    let t = proto::TensorProto::decode(bytes).map_err(|e| Error::Decode(format!("{name}: not a TensorProto: {e}")))?;
    Tensor::from_proto(&t, &format!("{name}: "), &ExternalFiles::new())
}
