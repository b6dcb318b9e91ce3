//! A dataset file's bytes as every reader starts from them: gunzipped when the file is gzip
//! (with a cap on the decoded size), and checked against a pinned sha256 when one is given.

use std::borrow::Cow;
use std::io::Read;

use sha2::{Digest, Sha256};

use crate::error::{bail, Error, Result};

/// The two bytes every gzip member starts with (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The largest decoded file the readers accept: the biggest supported file, MNIST's training
/// images, is 47,040,016 bytes, and a CIFAR-10 batch is 30,730,000.
pub const MAX_DECODED_LEN: usize = 64 << 20;

/// Whether `bytes` start like a gzip stream; the readers use it to accept both forms.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// Decompresses a gzip stream (all its members, as `gzip -d` does), refusing to produce more
/// than `max_len` bytes so that a crafted file cannot exhaust memory.
pub fn gunzip(name: &str, bytes: &[u8], max_len: usize) -> Result<Vec<u8>> {
    if !is_gzip(bytes) {
        bail!(Decode, "{name}: not a gzip stream (it does not start with 0x1f 0x8b)");
    }
    // Reading one byte past the cap tells "exactly max_len" apart from "more than max_len"
    // without ever holding more than max_len + 1 bytes.
    let limit = u64::try_from(max_len).map_or(u64::MAX, |m| m.saturating_add(1));
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4).min(max_len));
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| Error::Decode(format!("{name}: corrupt gzip stream: {e}")))?;
    if out.len() > max_len {
        bail!(Decode, "{name}: gzip stream expands past the {max_len}-byte limit");
    }
    Ok(out)
}

/// The lowercase hex sha256 of `bytes`, the form the dataset READMEs pin.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The file's decoded bytes: gunzipped when it is gzip, borrowed otherwise. A pin is checked
/// against these, not the gzip bytes, since recompressing a file changes the latter but not the
/// data (the MNIST hashes in the test data's README are of the decompressed files).
pub(super) fn decode<'a>(name: &str, bytes: &'a [u8], pin: Option<&str>) -> Result<Cow<'a, [u8]>> {
    let decoded = if is_gzip(bytes) { Cow::Owned(gunzip(name, bytes, MAX_DECODED_LEN)?) } else { Cow::Borrowed(bytes) };
    if let Some(pin) = pin {
        check_pin(name, &decoded, pin)?;
    }
    Ok(decoded)
}

fn check_pin(name: &str, bytes: &[u8], pin: &str) -> Result<()> {
    if pin.len() != 64 || !pin.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!(Decode, "{name}: pinned hash {pin:?} is not a 64-digit sha256 hex string");
    }
    let actual = sha256_hex(bytes);
    if !actual.eq_ignore_ascii_case(pin) {
        bail!(Decode, "{name}: sha256 mismatch: pinned {pin}, file has {actual}");
    }
    Ok(())
}
