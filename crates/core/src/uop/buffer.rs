//! Typed element storage for the reference interpreter.
//!
//! One enum over the dtypes so that a storage keeps PyTorch's exact element semantics (float32
//! rounding, int32 wrapping, bool) instead of widening everything to f64.

use crate::dtype::DType;
use crate::shape::view::View;
use crate::strided::{row_major_strides, Odometer, StridedIndex};
use crate::uop::half::{BF16, F16};
use serde::Serialize;

/// A scalar as a trace names it; the dtype decides how it is stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// The value as an integer (floats truncate).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => i64::from(b),
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    /// The value as PyTorch fills a tensor of `dtype` with it (`fill_`, `masked_fill`, `full`
    /// but for the half types, ...): refused where it does not fit, as c10's `checked_convert`
    /// refuses it. Any value fills a bool; a float fills an integer dtype when it truncates into
    /// its range (`127.9` fills int8 with 127, `128.0` and `-128.5` are refused), an int when it
    /// lies in the range or is negative with a magnitude that fits an unsigned dtype (two's
    /// complement: `-1` fills uint8 with 255); infinity and NaN fill any float dtype, a finite
    /// value one up to its largest finite value.
    pub fn checked_for(self, dtype: DType) -> crate::error::Result<Scalar> {
        let (lowest, max): (f64, f64) = match dtype {
            DType::Bool => return Ok(self),
            DType::UInt8 => (0.0, 255.0),
            DType::Int8 => (-128.0, 127.0),
            DType::Int16 => (-32768.0, 32767.0),
            DType::Int32 => (-2147483648.0, 2147483647.0),
            DType::Int64 => (-9223372036854775808.0, 9223372036854775807.0),
            DType::Float16 => (-65504.0, 65504.0),
            DType::BFloat16 => (-3.3895313892515355e38, 3.3895313892515355e38),
            DType::Float32 => (-f64::from(f32::MAX), f64::from(f32::MAX)),
            DType::Float64 => return Ok(self),
        };
        let fits = match self {
            Scalar::Bool(_) => true,
            Scalar::Int(i) if dtype == DType::UInt8 => (-255..=255).contains(&i),
            Scalar::Int(i) => (lowest..=max).contains(&(i as f64)),
            Scalar::Float(f) if dtype.is_float() => !f.is_finite() || (lowest..=max).contains(&f),
            Scalar::Float(f) => f >= lowest && f < max + 1.0,
        };
        if !fits {
            crate::error::bail!(DType, "value cannot be converted to type {} without overflow", dtype.c10_name());
        }
        Ok(self)
    }

    /// The dtype a Python number stands for when it decides a result type (bool, int64, or
    /// the default float).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float32,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F16(Vec<F16>),
    BF16(Vec<BF16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// Conversions every element type supports, so generic loops can cast and compute.
pub trait Elem: Copy + PartialOrd + Default + Send + Sync + 'static {
    const DTYPE: DType;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Exact conversions for integers (int64 values past 2^53 do not survive an f64).
    fn from_i64(v: i64) -> Self;
    fn to_i64(self) -> i64;
    fn vec(d: &Data) -> Option<&[Self]>;
    fn wrap(v: Vec<Self>) -> Data;
}

macro_rules! elem {
    ($t:ty, $dt:ident, $var:ident, |$v:ident| $from:expr, |$s:ident| $to:expr, |$vi:ident| $from_i:expr, |$si:ident| $to_i:expr) => {
        impl Elem for $t {
            const DTYPE: DType = DType::$dt;
            fn from_f64($v: f64) -> Self {
                $from
            }
            fn to_f64(self) -> f64 {
                let $s = self;
                $to
            }
            fn from_i64($vi: i64) -> Self {
                $from_i
            }
            fn to_i64(self) -> i64 {
                let $si = self;
                $to_i
            }
            fn vec(d: &Data) -> Option<&[Self]> {
                match d {
                    Data::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Data {
                Data::$var(v)
            }
        }
    };
}

/// A float converted to int64 as PyTorch's CPU casts do on x86 (`cvttsd2si`): truncated toward
/// zero, and int64's lowest value for NaN and anything outside int64's range.
pub fn f64_to_i64(v: f64) -> i64 {
    if v.is_nan() || !(-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        i64::MIN
    } else {
        v as i64
    }
}

/// A float converted to int32 as on x86 (`cvttss2si`): int32's lowest value for NaN and
/// anything outside its range. The narrower integers go through it and wrap, as PyTorch's
/// casts do (`300.0` as int8 is 44, `-1.0` as uint8 is 255, NaN is 0).
pub fn f64_to_i32(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

elem!(bool, Bool, Bool, |v| v != 0.0, |s| f64::from(u8::from(s)), |v| v != 0, |s| i64::from(s));
// Casts to integers truncate toward zero and wrap, as PyTorch's casts do on CPU.
elem!(u8, UInt8, U8, |v| f64_to_i32(v) as u8, |s| f64::from(s), |v| v as u8, |s| i64::from(s));
elem!(i8, Int8, I8, |v| f64_to_i32(v) as i8, |s| f64::from(s), |v| v as i8, |s| i64::from(s));
elem!(i16, Int16, I16, |v| f64_to_i32(v) as i16, |s| f64::from(s), |v| v as i16, |s| i64::from(s));
elem!(i32, Int32, I32, |v| f64_to_i32(v), |s| f64::from(s), |v| v as i32, |s| i64::from(s));
elem!(i64, Int64, I64, |v| f64_to_i64(v), |s| s as f64, |v| v, |s| s);
elem!(F16, Float16, F16, |v| F16::from_f32(v as f32), |s| f64::from(s.to_f32()), |v| F16::from_f32(v as f32), |s| s
    .to_f32()
    as i64);
elem!(
    BF16,
    BFloat16,
    BF16,
    |v| BF16::from_f32(v as f32),
    |s| f64::from(s.to_f32()),
    |v| BF16::from_f32(v as f32),
    |s| s.to_f32() as i64
);
elem!(f32, Float32, F32, |v| v as f32, |s| f64::from(s), |v| v as f32, |s| s as i64);
elem!(f64, Float64, F64, |v| v, |s| s, |v| v as f64, |s| s as i64);

/// Runs `$body` with `$v` bound to the typed slice inside `$data` and `$T` to its element type.
macro_rules! with_data {
    ($data:expr, |$v:ident : $T:ident| $body:expr) => {
        match $data {
            $crate::uop::buffer::Data::Bool($v) => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
            $crate::uop::buffer::Data::U8($v) => {
                #[allow(dead_code)]
                type $T = u8;
                $body
            }
            $crate::uop::buffer::Data::I8($v) => {
                #[allow(dead_code)]
                type $T = i8;
                $body
            }
            $crate::uop::buffer::Data::I16($v) => {
                #[allow(dead_code)]
                type $T = i16;
                $body
            }
            $crate::uop::buffer::Data::I32($v) => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::uop::buffer::Data::I64($v) => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::uop::buffer::Data::F16($v) => {
                #[allow(dead_code)]
                type $T = $crate::uop::half::F16;
                $body
            }
            $crate::uop::buffer::Data::BF16($v) => {
                #[allow(dead_code)]
                type $T = $crate::uop::half::BF16;
                $body
            }
            $crate::uop::buffer::Data::F32($v) => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::uop::buffer::Data::F64($v) => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
        }
    };
}
pub(crate) use with_data;

/// Runs `$body` with `$T` bound to the Rust element type of a [`DType`].
macro_rules! with_dtype {
    ($dtype:expr, |$T:ident| $body:expr) => {
        match $dtype {
            $crate::dtype::DType::Bool => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
            $crate::dtype::DType::UInt8 => {
                #[allow(dead_code)]
                type $T = u8;
                $body
            }
            $crate::dtype::DType::Int8 => {
                #[allow(dead_code)]
                type $T = i8;
                $body
            }
            $crate::dtype::DType::Int16 => {
                #[allow(dead_code)]
                type $T = i16;
                $body
            }
            $crate::dtype::DType::Int32 => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::dtype::DType::Int64 => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::dtype::DType::Float16 => {
                #[allow(dead_code)]
                type $T = $crate::uop::half::F16;
                $body
            }
            $crate::dtype::DType::BFloat16 => {
                #[allow(dead_code)]
                type $T = $crate::uop::half::BF16;
                $body
            }
            $crate::dtype::DType::Float32 => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::dtype::DType::Float64 => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use with_dtype;

impl Data {
    pub fn zeros(dtype: DType, len: usize) -> Data {
        with_dtype!(dtype, |T| T::wrap(vec![T::default(); len]))
    }

    /// `len` copies of `value` in `dtype`. A whole number fills an integer dtype as the int it
    /// is (wrapping, as a Python int's constant does: `2**40` is 0 in int32); anything else
    /// converts as a cast.
    pub fn full(dtype: DType, len: usize, value: f64) -> Data {
        if !dtype.is_float() && value.fract() == 0.0 && value.abs() < 9.2e18 {
            return Data::full_scalar(dtype, len, Scalar::Int(value as i64));
        }
        with_dtype!(dtype, |T| T::wrap(vec![T::from_f64(value); len]))
    }

    /// Python numbers in `dtype`, each converted as PyTorch's `tensor([...])` does (integers
    /// exactly).
    pub fn from_scalars(dtype: DType, values: &[Scalar]) -> Data {
        with_dtype!(dtype, |T| T::wrap(
            values
                .iter()
                .map(|s| match *s {
                    Scalar::Int(i) => T::from_i64(i),
                    Scalar::Bool(b) => T::from_i64(i64::from(b)),
                    Scalar::Float(f) => T::from_f64(f),
                })
                .collect()
        ))
    }

    /// `len` copies of a Python number in `dtype` (integers exactly, past 2^53 too).
    pub fn full_scalar(dtype: DType, len: usize, value: Scalar) -> Data {
        match value {
            Scalar::Int(i) => with_dtype!(dtype, |T| T::wrap(vec![T::from_i64(i); len])),
            other => Data::full(dtype, len, other.as_f64()),
        }
    }

    /// The elements as little-endian bytes (bool as one byte each): a storage's memory.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Data::Bool(v) => v.iter().map(|&b| u8::from(b)).collect(),
            Data::U8(v) => v.clone(),
            Data::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F16(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
            Data::BF16(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// Reads little-endian bytes as elements of `dtype` (a trailing partial element is
    /// dropped): the reverse of [`Data::to_le_bytes`], and how a dtype view reinterprets memory.
    pub fn from_le_bytes(dtype: DType, b: &[u8]) -> Data {
        fn chunks<const N: usize>(b: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
            b.chunks_exact(N).map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                a
            })
        }
        match dtype {
            DType::Bool => Data::Bool(b.iter().map(|&x| x != 0).collect()),
            DType::UInt8 => Data::U8(b.to_vec()),
            DType::Int8 => Data::I8(chunks::<1>(b).map(i8::from_le_bytes).collect()),
            DType::Int16 => Data::I16(chunks::<2>(b).map(i16::from_le_bytes).collect()),
            DType::Int32 => Data::I32(chunks::<4>(b).map(i32::from_le_bytes).collect()),
            DType::Int64 => Data::I64(chunks::<8>(b).map(i64::from_le_bytes).collect()),
            DType::Float16 => Data::F16(chunks::<2>(b).map(|c| F16(u16::from_le_bytes(c))).collect()),
            DType::BFloat16 => Data::BF16(chunks::<2>(b).map(|c| BF16(u16::from_le_bytes(c))).collect()),
            DType::Float32 => Data::F32(chunks::<4>(b).map(f32::from_le_bytes).collect()),
            DType::Float64 => Data::F64(chunks::<8>(b).map(f64::from_le_bytes).collect()),
        }
    }

    pub fn dtype(&self) -> DType {
        with_data!(self, |_v: T| T::DTYPE)
    }

    pub fn len(&self) -> usize {
        with_data!(self, |v: T| v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get_f64(&self, i: usize) -> f64 {
        with_data!(self, |v: T| v[i].to_f64())
    }

    /// Element `i` as a Python number: bool, int (exactly) or float.
    pub fn get_scalar(&self, i: usize) -> Scalar {
        match self.dtype() {
            DType::Bool => Scalar::Bool(self.get_f64(i) != 0.0),
            d if d.is_float() => Scalar::Float(self.get_f64(i)),
            _ => Scalar::Int(with_data!(self, |v: T| v[i].to_i64())),
        }
    }

    /// The same dtype and elements, NaN equal to NaN and -0 to 0: what two runs that computed
    /// the same thing hold. Compared in the element type, so int64 beyond 2^53 stays exact.
    pub fn same_elements(&self, other: &Data) -> bool {
        fn same<T: Elem>(a: &[T], b: &[T]) -> bool {
            let nan = |x: &T| x.partial_cmp(x).is_none();
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.partial_cmp(y) == Some(std::cmp::Ordering::Equal) || (nan(x) && nan(y)))
        }
        use Data::*;
        match (self, other) {
            (Bool(a), Bool(b)) => same(a, b),
            (U8(a), U8(b)) => same(a, b),
            (I8(a), I8(b)) => same(a, b),
            (I16(a), I16(b)) => same(a, b),
            (I32(a), I32(b)) => same(a, b),
            (I64(a), I64(b)) => same(a, b),
            (F16(a), F16(b)) => same(a, b),
            (BF16(a), BF16(b)) => same(a, b),
            (F32(a), F32(b)) => same(a, b),
            (F64(a), F64(b)) => same(a, b),
            _ => false,
        }
    }

    pub fn to_f64_vec(&self) -> Vec<f64> {
        with_data!(self, |v: T| v.iter().map(|x| x.to_f64()).collect())
    }

    pub fn cast(&self, to: DType) -> Data {
        if self.dtype() == to {
            return self.clone();
        }
        // Between integers (and bool) the cast is exact in i64; anything with a float goes
        // through f64, which holds every value of the narrower types.
        if !self.dtype().is_float() && !to.is_float() {
            return with_data!(self, |v: S| with_dtype!(to, |T| {
                T::wrap(v.iter().map(|x| T::from_i64(S::to_i64(*x))).collect())
            }));
        }
        with_data!(self, |v: S| with_dtype!(to, |T| {
            T::wrap(v.iter().map(|x| T::from_f64(S::to_f64(*x))).collect())
        }))
    }

    /// Gathers `idx` (None = padding, reads as zero) into a new buffer of the same dtype.
    pub fn gather(&self, idx: &[Option<i64>]) -> Data {
        with_data!(self, |v: T| {
            let out: Vec<T> = idx
                .iter()
                .map(|i| match i {
                    Some(i) => v[*i as usize],
                    None => T::default(),
                })
                .collect();
            T::wrap(out)
        })
    }

    /// The indexed load of [`Op::Gather`](super::Op::Gather): `self` is row-major `[outer, f,
    /// inner]`, `pos` (any integer dtype) row-major `[outer, m, inner]`; the result (of `pos`'s
    /// shape) reads `self[o, pos[o, j, i], i]`. `None` when a position is outside `0..f`.
    pub fn gather_axis(&self, pos: &Data, outer: usize, f: usize, inner: usize) -> Option<Data> {
        let m = pos.len() / (outer * inner).max(1);
        let at = |i: usize| -> Option<usize> {
            let p = match pos {
                Data::I32(v) => i64::from(v[i]),
                Data::I64(v) => v[i],
                other => other.get_f64(i) as i64,
            };
            usize::try_from(p).ok().filter(|&p| p < f)
        };
        let mut flat = Vec::with_capacity(pos.len());
        for o in 0..outer {
            for j in 0..m {
                for i in 0..inner {
                    let p = at((o * m + j) * inner + i)?;
                    flat.push(((o * f + p) * inner + i) as i64);
                }
            }
        }
        Some(with_data!(self, |v: T| T::wrap(flat.iter().map(|&i| v[i as usize]).collect())))
    }

    /// Reads a strided window (sizes, strides, offset) in row-major order, walking the
    /// innermost dim as a tight loop: the hot path of every PyTorch-layout read.
    pub fn gather_strided(&self, sizes: &[usize], strides: &[i64], offset: i64) -> Data {
        fn typed<T: Copy>(v: &[T], sizes: &[usize], strides: &[i64], offset: i64) -> Vec<T> {
            let n: usize = sizes.iter().product();
            let mut out = Vec::with_capacity(n);
            if n == 0 {
                return out;
            }
            let Some((&inner, outer)) = sizes.split_last() else {
                out.push(v[offset as usize]);
                return out;
            };
            let istride = strides[strides.len() - 1];
            for base in StridedIndex::new(outer, &strides[..outer.len()], offset) {
                if istride == 1 {
                    let b = base as usize;
                    out.extend_from_slice(&v[b..b + inner]);
                } else {
                    out.extend((0..inner as i64).map(|i| v[(base + i * istride) as usize]));
                }
            }
            out
        }
        with_data!(self, |v: T| T::wrap(typed(v, sizes, strides, offset)))
    }

    /// Reads one view (strides, offset, mask) in row-major order of its shape; masked positions
    /// read as zero. The valid region is a box, so it is one strided copy into a zeroed buffer.
    pub fn gather_view(&self, v: &View) -> Data {
        with_data!(self, |src: T| T::wrap(gather_view(src, v)))
    }

    /// Writes `src` over elements `start..start + src.len()` (nothing when `src` is empty,
    /// wherever `start` is).
    pub fn write_range(&mut self, start: usize, src: &Data) {
        assert_eq!(self.dtype(), src.dtype(), "write_range needs equal dtypes");
        if src.is_empty() {
            return;
        }
        with_data!(self, |dst: T| {
            let src = T::vec(src).unwrap_or_default();
            dst[start..start + src.len()].copy_from_slice(src);
        })
    }

    /// Writes `src` (same dtype, one value per index) at `idx`, in order, so a later duplicate
    /// index wins as it does in a sequential loop.
    pub fn scatter(&mut self, idx: &[i64], src: &Data) {
        assert_eq!(idx.len(), src.len(), "scatter of mismatched lengths");
        assert_eq!(self.dtype(), src.dtype(), "scatter needs equal dtypes");
        with_data!(self, |dst: T| {
            let src = T::vec(src).unwrap_or_default();
            for (i, s) in idx.iter().zip(src) {
                dst[*i as usize] = *s;
            }
        })
    }
}

/// [`Data::gather_view`] on a typed slice.
pub(crate) fn gather_view<T: Copy + Default>(src: &[T], v: &View) -> Vec<T> {
    let shape = v.shape();
    let n: usize = shape.iter().product();
    let mut out = vec![T::default(); n];
    if n == 0 {
        return out;
    }
    let full: Vec<(usize, usize)>;
    let bounds = match v.mask() {
        Some(m) => m,
        None => {
            full = shape.iter().map(|&s| (0, s)).collect();
            &full
        }
    };
    if bounds.iter().any(|&(b, e)| b >= e) {
        return out;
    }
    let row_major = row_major_strides(shape);
    let sizes: Vec<usize> = bounds.iter().map(|&(b, e)| e - b).collect();
    let src_off = v.offset() + bounds.iter().zip(v.strides()).map(|(&(b, _), &st)| b as i64 * st).sum::<i64>();
    let dst_off = bounds.iter().zip(&row_major).map(|(&(b, _), &st)| b as i64 * st).sum::<i64>();
    copy_box(src, &mut out, &sizes, v.strides(), src_off, &row_major, dst_off);
    out
}

/// Copies a box of `sizes` from `src` (strides `sst` from `soff`) to `dst` (strides `dst_st`
/// from `doff`): an odometer over the outer dims and a tight loop over the innermost one.
fn copy_box<T: Copy>(src: &[T], dst: &mut [T], sizes: &[usize], sst: &[i64], soff: i64, dst_st: &[i64], doff: i64) {
    if sizes.contains(&0) {
        return;
    }
    let Some((&inner, outer)) = sizes.split_last() else {
        dst[doff as usize] = src[soff as usize];
        return;
    };
    let (si, di) = (sst[sizes.len() - 1], dst_st[sizes.len() - 1]);
    let mut rows = Odometer::new(outer);
    let mut at = [soff, doff];
    loop {
        let [s, d] = at;
        if si == 1 && di == 1 {
            let (s0, d0) = (s as usize, d as usize);
            dst[d0..d0 + inner].copy_from_slice(&src[s0..s0 + inner]);
        } else {
            for j in 0..inner as i64 {
                dst[(d + j * di) as usize] = src[(s + j * si) as usize];
            }
        }
        if !rows.step(&mut at, &[sst, dst_st]) {
            return;
        }
    }
}
