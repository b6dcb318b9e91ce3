//! CIFAR-10's binary batches (`data_batch_*.bin`, `test_batch.bin`): a bare sequence of
//! 3073-byte records, one label byte then a 32x32 image stored channel-first (1024 red, 1024
//! green, 1024 blue bytes). There is no header, so the length and labels are all there is to check.

use super::decode::decode;
use crate::error::{bail, Result};

/// Pixels in one record: 3 channels of 32x32.
pub const CIFAR_IMAGE_LEN: usize = 3 * 32 * 32;
/// One record: the label byte and the image.
pub const CIFAR_RECORD_LEN: usize = 1 + CIFAR_IMAGE_LEN;
/// CIFAR-10's class count; a label must be below it.
pub const CIFAR_CLASSES: u8 = 10;

/// A decoded batch: `images` holds `len() * 3 * 32 * 32` bytes, NCHW.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cifar {
    images: Vec<u8>,
    labels: Vec<u8>,
}

impl Cifar {
    pub fn images(&self) -> &[u8] {
        &self.images
    }

    pub fn labels(&self) -> &[u8] {
        &self.labels
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Image `i`, channel-first, or `None` past the end.
    pub fn image(&self, i: usize) -> Option<&[u8]> {
        let start = i.checked_mul(CIFAR_IMAGE_LEN)?;
        self.images.get(start..start.checked_add(CIFAR_IMAGE_LEN)?)
    }

    /// `(images, labels)`, for callers that build tensors from the buffers.
    pub fn into_parts(self) -> (Vec<u8>, Vec<u8>) {
        (self.images, self.labels)
    }
}

/// Reads a CIFAR-10 binary batch, raw or gzip. `pin`, when given, is the sha256 hex of the
/// decompressed bytes.
pub fn read_cifar(name: &str, bytes: &[u8], pin: Option<&str>) -> Result<Cifar> {
    let raw = decode(name, bytes, pin)?;
    if raw.is_empty() {
        bail!(Decode, "{name}: empty file, a CIFAR-10 batch holds at least one 3073-byte record");
    }
    let (count, rest) = (raw.len() / CIFAR_RECORD_LEN, raw.len() % CIFAR_RECORD_LEN);
    if rest != 0 {
        bail!(
            Decode,
            "{name}: {} bytes is not a whole number of {CIFAR_RECORD_LEN}-byte records ({count} records and {rest} bytes over)",
            raw.len()
        );
    }
    let mut images = Vec::with_capacity(count * CIFAR_IMAGE_LEN);
    let mut labels = Vec::with_capacity(count);
    for (i, record) in raw.chunks_exact(CIFAR_RECORD_LEN).enumerate() {
        let label = record[0];
        if label >= CIFAR_CLASSES {
            bail!(Decode, "{name}: record {i} has label {label}, CIFAR-10 labels are 0..=9");
        }
        labels.push(label);
        images.extend_from_slice(&record[1..]);
    }
    Ok(Cifar { images, labels })
}
