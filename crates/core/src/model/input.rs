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

/// A seeded input of `shape` in `dtype` (`model run --input NAME=random:SEED[:HIGH]`): floats
/// standard normal, integers uniform in `[0, high)` (default 10), bools fair. The generator is
/// SplitMix64 with Box–Muller, so a seed gives the same tensor on every host.
pub fn seeded_input(shape: &[usize], dtype: crate::DType, seed: u64, high: Option<u64>) -> Result<HostTensor> {
    crate::limits::check_numel(shape)?;
    let n: usize = shape.iter().product();
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let unit = |bits: u64| (bits >> 11) as f64 / (1u64 << 53) as f64;
    let values: Vec<f64> = if dtype.is_float() {
        (0..n)
            .map(|_| {
                let (u1, u2) = (1.0 - unit(next()), unit(next()));
                (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            })
            .collect()
    } else if dtype == crate::DType::Bool {
        (0..n).map(|_| (next() >> 63) as f64).collect()
    } else {
        let high = high.unwrap_or(10);
        if high == 0 {
            bail!(Value, "a random integer input needs a positive upper bound");
        }
        (0..n).map(|_| (next() % high) as f64).collect()
    };
    HostTensor::new(shape.to_vec(), Data::F64(values).cast(dtype))
}
