//! NumPy's `.npy` format (versions 1 to 3), the way a user hands a model any input: the magic,
//! a header dict (`descr`, `fortran_order`, `shape`) and the raw array. Little-endian numeric
//! and bool arrays of the engine's element types are read (Fortran order too, made row-major);
//! anything else (byte-swapped, object, string, structured arrays) is refused by name.

use crate::error::{bail, Result};
use crate::limits::checked_numel_within;
use crate::limits::MAX_ELEMENTS;
use crate::uop::buffer::Data;
use crate::DType;

use super::host::HostTensor;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The dtype of an npy `descr`, or `None` for one the engine does not hold.
fn dtype_of(descr: &str) -> Option<DType> {
    Some(match descr {
        "|b1" => DType::Bool,
        "|u1" | "<u1" => DType::UInt8,
        "|i1" | "<i1" => DType::Int8,
        "<i2" => DType::Int16,
        "<i4" => DType::Int32,
        "<i8" => DType::Int64,
        "<f2" => DType::Float16,
        "<f4" => DType::Float32,
        "<f8" => DType::Float64,
        _ => return None,
    })
}

fn descr_of(d: DType) -> &'static str {
    match d {
        DType::Bool => "|b1",
        DType::UInt8 => "|u1",
        DType::Int8 => "|i1",
        DType::Int16 => "<i2",
        DType::Int32 => "<i4",
        DType::Int64 => "<i8",
        DType::Float16 => "<f2",
        // NumPy has no bfloat16; its bits travel as float32 values.
        DType::BFloat16 | DType::Float32 => "<f4",
        DType::Float64 => "<f8",
    }
}

/// The value of `key` in the header dict: the text after `'key':` up to the next top-level
/// comma or the closing brace.
fn field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    None
}

/// Reads an `.npy` file; `name` names it in messages.
pub fn read_npy(name: &str, bytes: &[u8]) -> Result<HostTensor> {
    let Some(rest) = bytes.strip_prefix(MAGIC) else { bail!(Decode, "{name}: not an .npy file (no \\x93NUMPY magic)") };
    let (len, start) = match rest {
        [1, _, a, b, ..] => (usize::from(u16::from_le_bytes([*a, *b])), 10usize),
        [2 | 3, _, a, b, c, d, ..] => (u32::from_le_bytes([*a, *b, *c, *d]) as usize, 12),
        _ => bail!(Decode, "{name}: unknown .npy version"),
    };
    let Some(header) = bytes.get(start..start.saturating_add(len)) else { bail!(Decode, "{name}: truncated header") };
    let Ok(header) = std::str::from_utf8(header) else { bail!(Decode, "{name}: the header is not text") };
    let descr = field(header, "descr").map(|d| d.trim_matches(|c| c == '\'' || c == '"'));
    let Some(descr) = descr else { bail!(Decode, "{name}: the header has no descr") };
    let Some(dtype) = dtype_of(descr) else {
        bail!(
            Unsupported,
            "{name}: arrays of dtype {descr:?} are not supported (little-endian bool, int and float are)"
        )
    };
    let fortran = match field(header, "fortran_order") {
        Some("False") => false,
        Some("True") => true,
        other => bail!(Decode, "{name}: fortran_order is {other:?}"),
    };
    let Some(shape) = field(header, "shape") else { bail!(Decode, "{name}: the header has no shape") };
    let inner = shape.trim().trim_start_matches('(').trim_end_matches(')');
    let shape: Vec<usize> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| crate::Error::Decode(format!("{name}: shape entry {s:?}"))))
        .collect::<Result<_>>()?;
    let Some(n) = checked_numel_within(&shape, MAX_ELEMENTS) else {
        bail!(Limit, "{name}: shape {shape:?} exceeds the limit of {MAX_ELEMENTS} elements");
    };
    let body = &bytes[start + len..];
    let want = n * dtype.itemsize();
    if body.len() != want {
        bail!(Decode, "{name}: shape {shape:?} of {descr} needs {want} bytes of data, the file has {}", body.len());
    }
    if dtype == DType::Bool && body.iter().any(|&b| b > 1) {
        bail!(Decode, "{name}: a bool element holds a byte other than 0 or 1");
    }
    let data = Data::from_le_bytes(dtype, body);
    if !fortran || shape.len() < 2 {
        return HostTensor::new(shape, data);
    }
    // Column-major: element (i0, i1, ...) sits at i0 + n0 * (i1 + n1 * ...).
    let mut strides = vec![1usize; shape.len()];
    for d in 1..shape.len() {
        strides[d] = strides[d - 1] * shape[d - 1];
    }
    let mut order = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        order.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum::<usize>());
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let order: Vec<Option<i64>> = order.into_iter().map(|i| Some(i as i64)).collect();
    HostTensor::new(shape, data.gather(&order))
}

/// An `.npy` file (version 1, row-major) of `t`.
pub fn write_npy(t: &HostTensor) -> Vec<u8> {
    let shape = match t.shape() {
        [n] => format!("({n},)"),
        s => format!("({})", s.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let data = match t.dtype() {
        DType::BFloat16 => t.data().cast(DType::Float32),
        _ => t.data().clone(),
    };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", descr_of(t.dtype()));
    // Pad so the data starts at a multiple of 64 bytes, ending the header with a newline.
    let total = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    header.push('\n');
    let mut out = Vec::with_capacity(total + data.len() * t.dtype().itemsize());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&data.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_fortran_order() {
        let t = HostTensor::new(vec![2, 3], Data::I64(vec![1, 2, 3, 4, 5, 6])).unwrap();
        assert_eq!(read_npy("t", &write_npy(&t)).unwrap(), t);
        let b = HostTensor::new(vec![3], Data::Bool(vec![true, false, true])).unwrap();
        assert_eq!(read_npy("b", &write_npy(&b)).unwrap(), b);
        // np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3))
        let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&[1, 0]);
        f.extend_from_slice(&(header.len() as u16).to_le_bytes());
        f.extend_from_slice(header.as_bytes());
        for v in [0f32, 3., 1., 4., 2., 5.] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        let got = read_npy("f", &f).unwrap();
        assert_eq!(got.data(), &Data::F32(vec![0., 1., 2., 3., 4., 5.]));
        assert!(read_npy("x", b"\x93NUMPY\x01\x00\x10\x00{'descr': '>f4'}").is_err());
        assert!(read_npy("x", b"not npy").is_err());
    }
}
