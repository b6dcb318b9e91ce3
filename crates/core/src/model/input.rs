//! Dataset images as model inputs: float32 pixels scaled to [0, 1] in NCHW, the layout image
//! models (and the sample MNIST model) take, read through the validating dataset readers.

use crate::data::{read_cifar, read_idx};
use crate::error::{bail, Result};
use crate::uop::buffer::Data;

use super::host::HostTensor;

fn take(name: &str, available: usize, first: Option<usize>) -> Result<usize> {
    match first {
        None => Ok(available),
        Some(0) => bail!(Shape, "{name}: --first must be at least 1"),
        Some(n) if n > available => bail!(Shape, "{name}: asked for the first {n} images, the file has {available}"),
        Some(n) => Ok(n),
    }
}

fn scaled(bytes: &[u8]) -> Data {
    Data::F32(bytes.iter().map(|&b| f32::from(b) / 255.0).collect())
}

/// The first `first` (default all) images of an IDX image file (N, H, W) as (n, 1, H, W).
pub fn idx_images(name: &str, bytes: &[u8], first: Option<usize>) -> Result<HostTensor> {
    let idx = read_idx(name, bytes, None)?;
    let &[count, h, w] = idx.dims() else {
        bail!(Shape, "{name}: an image file has 3 dimensions (N, H, W), this one has {:?}", idx.dims());
    };
    let n = take(name, count, first)?;
    HostTensor::new(vec![n, 1, h, w], scaled(&idx.data()[..n * h * w]))
}

/// The first `first` (default all) images of a CIFAR-10 batch as (n, 3, 32, 32).
pub fn cifar_images(name: &str, bytes: &[u8], first: Option<usize>) -> Result<HostTensor> {
    let c = read_cifar(name, bytes, None)?;
    let n = take(name, c.len(), first)?;
    let len = crate::data::CIFAR_IMAGE_LEN;
    HostTensor::new(vec![n, 3, 32, 32], scaled(&c.images()[..n * len]))
}
