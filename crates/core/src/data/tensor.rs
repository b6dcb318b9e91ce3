//! Dataset files as tensors of the trace language: the whole decoded file as one flat uint8
//! storage, so that a trace shows the header as what it is (bytes before the data) and the
//! images as a view at `storage_offset` 16, exactly as tinygrad's loader slices them. The file is
//! still checked by the structured readers first, so a trace never sees a broken dataset.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Data;

use super::cifar::read_cifar;
use super::decode::decode;
use super::idx::read_idx;

/// Which reader accepted a dataset file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetKind {
    Idx,
    Cifar,
}

/// Decodes (gunzips) and validates a dataset file, returning its bytes and which format it is.
/// An IDX file starts with two zero bytes (its magic); anything else must be a CIFAR-10 batch,
/// whose first byte is a label.
pub fn decode_dataset(name: &str, bytes: &[u8]) -> Result<(DatasetKind, Vec<u8>)> {
    let raw = decode(name, bytes, None)?.into_owned();
    if raw.is_empty() {
        bail!(Decode, "{name}: empty file: neither an IDX file nor a CIFAR-10 batch");
    }
    let kind = if raw.starts_with(&[0, 0]) {
        read_idx(name, &raw, None)?;
        DatasetKind::Idx
    } else {
        read_cifar(name, &raw, None)?;
        DatasetKind::Cifar
    };
    Ok((kind, raw))
}

/// `dataset(name)` in a trace: the validated, decoded file as a fresh 1-D uint8 tensor.
pub fn dataset_tensor(engine: &mut Engine, name: &str, bytes: &[u8]) -> Result<Tensor> {
    let (_, raw) = decode_dataset(name, bytes)?;
    let n = raw.len();
    engine.from_data(Data::U8(raw), &[n])
}
