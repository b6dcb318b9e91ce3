//! The tensors a model takes and gives back, held on the host.

use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::onnx;
use crate::uop::buffer::Data;
use crate::DType;

/// A dense host-side tensor: what a caller feeds a model and what it gets back.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub(super) shape: Vec<usize>,
    pub(super) data: Data,
}

impl HostTensor {
    /// A tensor of `shape` holding `data` in row-major order.
    pub fn new(shape: Vec<usize>, data: Data) -> Result<HostTensor> {
        check_numel(&shape)?;
        let n: usize = shape.iter().product();
        if n != data.len() {
            bail!(Shape, "{} values cannot fill shape {shape:?} ({n} elements)", data.len());
        }
        Ok(HostTensor { shape, data })
    }

    /// An ONNX tensor (initializer, constant or test input) as the engine holds it: in its own
    /// type, except int64, which is narrowed to the engine's int32 ([`onnx::ElemType::engine_dtype`]).
    /// A model's own int64 constants are shapes, indices and slice bounds, where exporters write
    /// `INT64_MAX` for "to the end"; values past int32 saturate, which keeps each such meaning
    /// (no tensor the engine holds has 2^31 elements).
    pub fn from_onnx(t: &onnx::Tensor) -> Result<HostTensor> {
        let data = match t.data() {
            Data::I64(v) => Data::I32(v.iter().map(|&x| x.clamp(i32::MIN.into(), i32::MAX.into()) as i32).collect()),
            other => other.clone(),
        };
        HostTensor::new(t.dims().to_vec(), data)
    }

    /// A value fed to a model in the type the model computes it in: int64 narrowed to int32,
    /// refusing a value that does not fit (a fed value is data, not a bound).
    pub fn for_model(self, name: &str) -> Result<HostTensor> {
        let Data::I64(v) = &self.data else { return Ok(self) };
        let data = Data::I32(
            v.iter()
                .map(|&x| {
                    i32::try_from(x).map_err(|_| {
                        crate::Error::Limit(format!(
                            "int64 value {x} in tensor {name:?} does not fit the engine's int32"
                        ))
                    })
                })
                .collect::<Result<_>>()?,
        );
        Ok(HostTensor { shape: self.shape, data })
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn data(&self) -> &Data {
        &self.data
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn into_data(self) -> Data {
        self.data
    }
}
