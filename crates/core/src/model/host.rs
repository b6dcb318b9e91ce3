//! The tensors a model takes and gives back, held on the host.

use crate::error::{bail, Result};
use crate::limits::check_numel;
use crate::onnx::{self, TensorData};
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

    /// An ONNX tensor (initializer, constant or test input) as the engine holds it: float32 as
    /// is, int64 narrowed to the engine's int32, refusing values that do not fit.
    pub fn from_onnx(t: &onnx::Tensor) -> Result<HostTensor> {
        let data = match t.data() {
            TensorData::F32(v) => Data::F32(v.clone()),
            TensorData::I64(v) => Data::I32(
                v.iter()
                    .map(|&x| {
                        i32::try_from(x).map_err(|_| {
                            crate::Error::Limit(format!(
                                "int64 value {x} in tensor {:?} does not fit the engine's int32",
                                t.name()
                            ))
                        })
                    })
                    .collect::<Result<_>>()?,
            ),
        };
        HostTensor::new(t.dims().to_vec(), data)
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
