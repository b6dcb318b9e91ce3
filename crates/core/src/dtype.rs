//! Element types and PyTorch's type promotion for them.
//!
//! The playground only needs the handful of dtypes a trace can name; promotion follows
//! `torch.result_type` for tensor-tensor and tensor-scalar operands so that results (and the
//! in-place cast checks built on top) agree with PyTorch.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bool,
    #[serde(rename = "uint8")]
    UInt8,
    #[serde(rename = "int32")]
    Int32,
    #[serde(rename = "float32")]
    Float32,
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
    pub const ALL: [DType; 4] = [DType::Bool, DType::UInt8, DType::Int32, DType::Float32];

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int32 => "int32",
            DType::Float32 => "float32",
        }
    }

    /// The name PyTorch prints in messages (`torch.long` is what `arange(6)` gives there; we
    /// store it as int32 but speak PyTorch's language in errors).
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::UInt8 => "Byte",
            DType::Int32 => "Long",
            DType::Float32 => "Float",
        }
    }

    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 => 1,
            DType::Int32 | DType::Float32 => 4,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::UInt8 | DType::Int32 => Category::Integral,
            DType::Float32 => Category::Floating,
        }
    }

    pub fn is_float(self) -> bool {
        self == DType::Float32
    }

    /// Promotion of two tensor dtypes of equal standing.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
    }

    /// `torch.can_cast(from, to)`: PyTorch refuses to write a higher category into a lower one.
    pub fn can_cast(from: DType, to: DType) -> bool {
        from.category() <= to.category()
    }
}

/// Promotion as `torch.result_type` does it: zero-dim tensors and Python scalars only take part
/// when their category is higher than every dimensioned operand's.
pub fn result_type(dimensioned: &[DType], scalars: &[DType]) -> DType {
    let dim = dimensioned.iter().copied().reduce(DType::promote);
    let sca = scalars.iter().copied().reduce(DType::promote);
    match (dim, sca) {
        (Some(d), Some(s)) if s.category() > d.category() => default_of(s.category()),
        (Some(d), _) => d,
        (None, Some(s)) => s,
        (None, None) => DType::Float32,
    }
}

/// The dtype a Python scalar of that category becomes when it decides the result.
fn default_of(c: Category) -> DType {
    match c {
        Category::Bool => DType::Bool,
        Category::Integral => DType::Int32,
        Category::Floating => DType::Float32,
    }
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
        let cases = [
            (&[Int32, Float32][..], &[][..], Float32),
            (&[Int32][..], &[Float32][..], Float32),
            (&[Float32][..], &[Int32][..], Float32),
            (&[Bool][..], &[Int32][..], Int32),
            (&[UInt8][..], &[Int32][..], UInt8),
            (&[UInt8, Int32][..], &[][..], Int32),
            (&[Bool, Bool][..], &[][..], Bool),
        ];
        for (dims, scalars, want) in cases {
            assert_eq!(result_type(dims, scalars), want, "{dims:?} {scalars:?}");
        }
        assert!(!DType::can_cast(Float32, Int32));
        assert!(DType::can_cast(Int32, Float32));
    }
}
