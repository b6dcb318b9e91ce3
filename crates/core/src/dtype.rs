//! Element types and PyTorch's type promotion for them.
//!
//! The dtypes are PyTorch's real ones (int64 is the default integer, float32 the default
//! float), and promotion follows `torch.promote_types` and `torch.result_type`: dimensioned
//! tensors outrank zero-dim tensors, which outrank Python numbers, and a lower tier only counts
//! when its category (bool < integral < floating) is higher.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bool,
    #[serde(rename = "uint8")]
    UInt8,
    #[serde(rename = "int8")]
    Int8,
    #[serde(rename = "int16")]
    Int16,
    #[serde(rename = "int32")]
    Int32,
    #[serde(rename = "int64")]
    Int64,
    #[serde(rename = "float16")]
    Float16,
    #[serde(rename = "bfloat16")]
    BFloat16,
    #[serde(rename = "float32")]
    Float32,
    #[serde(rename = "float64")]
    Float64,
}

/// The three categories PyTorch promotes between: a higher category always wins, even over a
/// tensor operand of a lower one (`int_tensor + 1.5` is float).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];

    /// PyTorch's name (`torch.int64` prints as `int64`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// The name PyTorch's C++ messages use (`result type Float can't be cast to ... Long`).
    /// The C++ type name PyTorch's messages use (`int64_t`, `c10::Half`, ...).
    pub fn c10_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8_t",
            DType::Int8 => "int8_t",
            DType::Int16 => "int16_t",
            DType::Int32 => "int",
            DType::Int64 => "int64_t",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            DType::Float32 => "float",
            DType::Float64 => "double",
        }
    }

    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::UInt8 => "Byte",
            DType::Int8 => "Char",
            DType::Int16 => "Short",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float16 => "Half",
            DType::BFloat16 => "BFloat16",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
        }
    }

    /// PyTorch's legacy tensor type (`torch.LongTensor`), as its messages name a tensor.
    pub fn legacy_type(self) -> String {
        format!("torch.{}Tensor", self.torch_name())
    }

    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => Category::Integral,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => Category::Floating,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Floating
    }

    pub fn is_integral(self) -> bool {
        self.category() == Category::Integral
    }

    /// The least and greatest value an integral dtype holds; `None` for bool and floats.
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            DType::UInt8 => Some((0, i64::from(u8::MAX))),
            DType::Int8 => Some((i64::from(i8::MIN), i64::from(i8::MAX))),
            DType::Int16 => Some((i64::from(i16::MIN), i64::from(i16::MAX))),
            DType::Int32 => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
            DType::Int64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }

    /// `torch.promote_types`: the smallest dtype both convert to without leaving their
    /// category. uint8 with a signed type needs one more bit (int8 + uint8 is int16);
    /// float16 with bfloat16 is float32.
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        if self == other {
            return self;
        }
        let (a, b) = if self.category() <= other.category() { (self, other) } else { (other, self) };
        if a.category() != b.category() {
            return b;
        }
        match (a, b) {
            (UInt8, Int8) | (Int8, UInt8) => Int16,
            (Float16, BFloat16) | (BFloat16, Float16) => Float32,
            _ if a.itemsize() >= b.itemsize() => a,
            _ => b,
        }
    }

    /// `torch.can_cast(from, to)`: PyTorch refuses to write a higher category into a lower one.
    pub fn can_cast(from: DType, to: DType) -> bool {
        from.category() <= to.category()
    }

    /// The dtype a Python number of that category becomes when it decides a result: bool,
    /// int64, or the default float (float32).
    pub fn default_of(c: Category) -> DType {
        match c {
            Category::Bool => DType::Bool,
            Category::Integral => DType::Int64,
            Category::Floating => DType::Float32,
        }
    }

    /// Whether WGSL has a type for it (no 64-bit or 16-bit-float types, and no 8/16-bit
    /// integers other than the uint8 the renderer packs into words).
    pub fn has_wgsl_type(self) -> bool {
        matches!(self, DType::Bool | DType::UInt8 | DType::Int32 | DType::Float32)
    }
}

/// One tier's promoted dtype (`None` when the tier is empty).
fn tier(dtypes: &[DType]) -> Option<DType> {
    dtypes.iter().copied().reduce(DType::promote)
}

/// PyTorch's `combine_categories(higher, lower)`: a lower tier counts only when its category is
/// higher, or when the higher tier is bool.
fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (Some(h), Some(l)) if !h.is_float() && (h == DType::Bool || l.category() > h.category()) => Some(h.promote(l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

/// `torch.result_type` over dimensioned tensors, zero-dim tensors and Python numbers (given as
/// the dtype they stand for: bool, int64 or float32).
pub fn result_type(dimensioned: &[DType], zero_dim: &[DType], numbers: &[DType]) -> DType {
    combine(tier(dimensioned), combine(tier(zero_dim), tier(numbers))).unwrap_or(DType::Float32)
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_torch() {
        use DType::*;
        let pairs = [
            (UInt8, Int8, Int16),
            (UInt8, Int16, Int16),
            (UInt8, Int64, Int64),
            (Int8, Int32, Int32),
            (Bool, UInt8, UInt8),
            (Float16, BFloat16, Float32),
            (Float16, Float64, Float64),
            (Int64, Float16, Float16),
            (Int32, Float32, Float32),
        ];
        for (a, b, want) in pairs {
            assert_eq!(a.promote(b), want, "{a} {b}");
            assert_eq!(b.promote(a), want, "{b} {a}");
        }
        let cases = [
            (&[Int32, Float32][..], &[][..], &[][..], Float32),
            (&[Int64][..], &[][..], &[Float32][..], Float32),
            (&[Int8][..], &[][..], &[Int64][..], Int8),
            (&[UInt8][..], &[][..], &[Int64][..], UInt8),
            (&[Bool][..], &[][..], &[Int64][..], Int64),
            (&[Bool][..], &[][..], &[Bool][..], Bool),
            (&[Int64][..], &[Float64][..], &[][..], Float64),
            (&[Int32][..], &[Float16][..], &[][..], Float16),
            (&[Float16][..], &[Float64][..], &[][..], Float16),
            (&[UInt8][..], &[Int64][..], &[][..], UInt8),
            (&[][..], &[Int64][..], &[Float32][..], Float32),
            (&[][..], &[Int32][..], &[Int64][..], Int32),
        ];
        for (dims, zero, numbers, want) in cases {
            assert_eq!(result_type(dims, zero, numbers), want, "{dims:?} {zero:?} {numbers:?}");
        }
        assert!(!DType::can_cast(Float32, Int64));
        assert!(DType::can_cast(Int64, Float32));
    }
}
