//! The IDX format of MNIST and Fashion-MNIST: a 4-byte magic `00 00 <type> <ndim>`, one
//! big-endian u32 per dimension, then the row-major data. Only unsigned bytes (type 0x08) are
//! read, which is what every MNIST-family file uses; the other IDX types are named in the error.

use super::decode::decode;
use crate::dtype::DType;
use crate::error::{bail, Result};

/// A decoded IDX file. `dims[0]` is the item count (images or labels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Idx {
    dtype: DType,
    dims: Vec<usize>,
    data: Vec<u8>,
    header_len: usize,
}

impl Idx {
    /// Always [`DType::UInt8`]: the only IDX type the reader accepts.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The element data after the header, row-major; its length is the product of `dims`.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// Bytes of header before the data: `4 + 4 * ndim` (16 for images, 8 for labels).
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// The number of items along the first dimension.
    pub fn len(&self) -> usize {
        self.dims[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` (an image, or a one-byte label), or `None` past the end.
    pub fn item(&self, i: usize) -> Option<&[u8]> {
        let size: usize = self.dims[1..].iter().product();
        let start = i.checked_mul(size)?;
        self.data.get(start..start.checked_add(size)?)
    }
}

/// The name of an IDX type code, so a refusal says what the file actually holds.
fn type_name(code: u8) -> Option<&'static str> {
    Some(match code {
        0x08 => "uint8",
        0x09 => "int8",
        0x0b => "int16",
        0x0c => "int32",
        0x0d => "float32",
        0x0e => "float64",
        _ => return None,
    })
}

/// Reads an IDX file, raw or gzip. `pin`, when given, is the sha256 hex of the decompressed
/// bytes. The declared dimensions must account for every data byte, no more and no fewer, so a
/// truncated download is an error rather than a silently smaller dataset.
pub fn read_idx(name: &str, bytes: &[u8], pin: Option<&str>) -> Result<Idx> {
    let raw = decode(name, bytes, pin)?;
    let raw: &[u8] = &raw;
    let [zero0, zero1, code, ndim] = match raw.get(..4) {
        Some(&[a, b, c, d]) => [a, b, c, d],
        _ => bail!(Decode, "{name}: truncated: {} bytes, an IDX header needs at least 4", raw.len()),
    };
    if (zero0, zero1) != (0, 0) {
        bail!(
            Decode,
            "{name}: bad IDX magic {zero0:#04x} {zero1:#04x} {code:#04x} {ndim:#04x}: an IDX file starts with 0x00 0x00"
        );
    }
    match type_name(code) {
        Some("uint8") => {}
        Some(other) => bail!(Decode, "{name}: IDX type code {code:#04x} ({other}) is not supported, only 0x08 (uint8)"),
        None => bail!(Decode, "{name}: unknown IDX type code {code:#04x}"),
    }
    if ndim == 0 {
        bail!(Decode, "{name}: IDX file declares 0 dimensions");
    }
    let header_len = 4 + 4 * usize::from(ndim);
    let Some(header) = raw.get(4..header_len) else {
        bail!(Decode, "{name}: truncated: {} bytes, the header for {ndim} dimensions needs {header_len}", raw.len());
    };
    let dims: Vec<usize> =
        header.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize).collect();
    let shown = dims.iter().map(usize::to_string).collect::<Vec<_>>().join(" x ");
    let Some(expected) = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) else {
        bail!(Decode, "{name}: declared dimensions {shown} overflow");
    };
    let present = raw.len() - header_len;
    if present < expected {
        bail!(
            Decode,
            "{name}: truncated: dimensions {shown} declare {expected} data bytes but only {present} are present"
        );
    }
    if present > expected {
        bail!(
            Decode,
            "{name}: {} trailing bytes after the {expected} data bytes that dimensions {shown} declare",
            present - expected
        );
    }
    Ok(Idx { dtype: DType::UInt8, dims, data: raw[header_len..].to_vec(), header_len })
}
