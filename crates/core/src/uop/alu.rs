//! The elementwise op table: every unary and binary op's facts, written once.
//!
//! One row per op gives its PyTorch names (function and method, the in-place `_` variant where
//! PyTorch has one, names that swap the operands), its ONNX op type, the dtypes it computes in
//! ([`Domain`]), its reference semantics (the interpreter's element arithmetic, as tinygrad's
//! `python_alu` is) and its WGSL template per value class (tinygrad's `code_for_op`). The
//! [`UnaryOp`] and [`BinaryOp`] enums, name lookup, the float-promotion rule, the interpreter's
//! loops and the renderer's templates are all generated from these rows, so an op cannot be
//! named in one place and missing in another.
//!
//! Ops that PyTorch defines in terms of others (`square`, `silu`, `gelu`, `lerp`, ...) are not
//! rows here: the engine builds them from these primitives.

use super::arith::{float, Arith};
use super::buffer::{Data, Elem};
use crate::dtype::DType;
use serde::Serialize;

/// How an op treats the dtype its operands were promoted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Computes in that dtype (add, neg, maximum, ...).
    Exact,
    /// Computes in floating point: bool and integer operands become float32 first (PyTorch's
    /// int-to-float ops: `sin`, `exp`, true division, ...).
    Float,
    /// A float op that is the identity on integers and bool (`floor`, `ceil`, `round`, `trunc`).
    Rounding,
    /// Compares in that dtype; the result is bool.
    Compare,
    /// Bitwise on integers and bool; PyTorch refuses floating operands.
    Bitwise,
}

/// How a renderer holds a value of a dtype in registers; WGSL templates are chosen per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// float32 as `f32`.
    F,
    /// int32 as `i32`.
    I,
    /// uint8 as `u32` (wrapped to 8 bits by the templates).
    U8,
    /// bool as `bool`.
    B,
}

impl Class {
    /// The class of a dtype WGSL can hold; `None` for the dtypes it has no type for (64-bit,
    /// 16-bit floats, int8/int16), whose kernels run on the CPU kernel executor instead.
    pub fn of(d: DType) -> Option<Class> {
        match d {
            DType::Float32 => Some(Class::F),
            DType::Int32 => Some(Class::I),
            DType::UInt8 => Some(Class::U8),
            DType::Bool => Some(Class::B),
            _ => None,
        }
    }
}

/// A WGSL template: one for every class, or one in f32 (a [`Domain::Float`] op; a renderer
/// given another class converts through f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    PerClass(&'static str),
    F32(&'static str),
}

// ------------------------------------------------------------------------- the table macros

/// The WGSL template of a row: a literal (in f32) or `[classes => template, ...]`.
macro_rules! template {
    ($c:expr, [$($($cl:ident)|+ => $t:literal),+ $(,)?]) => {
        match $c {
            $($(Class::$cl)|+ => Template::PerClass($t),)+
        }
    };
    ($c:expr, $t:literal) => {{
        let _ = $c;
        Template::F32($t)
    }};
}

macro_rules! onnx_name {
    (-) => {
        None
    };
    ($n:literal) => {
        Some($n)
    };
}

macro_rules! has_inplace {
    (inplace) => {
        true
    };
    (no_inplace) => {
        false
    };
}

/// One unary row's reference loop over a typed slice `$v`.
macro_rules! unary_alu {
    (exact, $v:ident, $m:ident) => {
        map($v, T::$m)
    };
    (float, $v:ident, $f:expr) => {
        float($v, $f)
    };
    (rounding, $v:ident, $f:expr) => {
        if T::DTYPE.is_float() {
            float($v, $f)
        } else {
            T::wrap($v.to_vec())
        }
    };
}

macro_rules! unary_ops {
    ($(
        $(#[doc = $doc:literal])*
        $op:ident = $kind:ident($($alu:tt)+) in $domain:ident,
            names [$($name:literal),+], $inplace:ident, onnx $onnx:tt, wgsl $wgsl:tt;
    )*) => {
        /// Unary elementwise ops: the rows of the table in `uop::alu`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum UnaryOp {
            $($(#[doc = $doc])* $op,)*
        }

        impl UnaryOp {
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$op),*];

            /// PyTorch's names for it, as a `torch.` function and a Tensor method; the first is
            /// the canonical one.
            pub fn names(self) -> &'static [&'static str] {
                match self {
                    $(UnaryOp::$op => &[$($name),+],)*
                }
            }

            /// Whether PyTorch has the in-place method (`name_`).
            pub fn has_inplace(self) -> bool {
                match self {
                    $(UnaryOp::$op => has_inplace!($inplace),)*
                }
            }

            pub fn onnx(self) -> Option<&'static str> {
                match self {
                    $(UnaryOp::$op => onnx_name!($onnx),)*
                }
            }

            pub fn domain(self) -> Domain {
                match self {
                    $(UnaryOp::$op => Domain::$domain,)*
                }
            }

            /// The WGSL template for an operand of class `c`; `{a}` is the operand.
            pub fn wgsl(self, c: Class) -> Template {
                match self {
                    $(UnaryOp::$op => template!(c, $wgsl),)*
                }
            }
        }

        /// The reference semantics: `op` applied to every element.
        pub(crate) fn unary(op: UnaryOp, a: &Data) -> Data {
            fn typed<T: Arith>(op: UnaryOp, v: &[T]) -> Data {
                fn map<T: Arith>(v: &[T], f: impl Fn(T) -> T) -> Data {
                    T::wrap(v.iter().map(|&x| f(x)).collect())
                }
                fn float<T: Arith>(v: &[T], f: impl Fn(f64) -> f64) -> Data {
                    T::wrap(v.iter().map(|&x| T::from_f64(f(x.to_f64()))).collect())
                }
                match op {
                    $(UnaryOp::$op => unary_alu!($kind, v, $($alu)+),)*
                }
            }
            match a {
                Data::Bool(v) => typed(op, v),
                Data::U8(v) => typed(op, v),
                Data::I32(v) => typed(op, v),
                Data::I64(v) => typed(op, v),
                Data::F32(v) => typed(op, v),
                Data::F64(v) => typed(op, v),
                // The narrow types compute in a wider one and round back, as PyTorch's kernels
                // do for half types (and exactly, for the wrapping integers): one loop fewer
                // per op in the page's code.
                narrow => unary(op, &narrow.cast(wide(narrow.dtype()))).cast(narrow.dtype()),
            }
        }
    };
}

/// The type a narrow dtype computes in: int8/int16 in int32 (wrapping back is exact for every
/// op here), float16/bfloat16 in float32 (rounded back once per op, as PyTorch does).
fn wide(d: DType) -> DType {
    if d.is_float() {
        DType::Float32
    } else {
        DType::Int32
    }
}

/// One binary row's reference loop over typed slices `$a`, `$b`.
macro_rules! binary_alu {
    (exact, $a:ident, $b:ident, $m:ident) => {
        zip($a, $b, T::$m)
    };
    (float, $a:ident, $b:ident, $f:expr) => {
        float($a, $b, $f)
    };
    (compare, $a:ident, $b:ident, $f:expr) => {
        cmp($a, $b, $f)
    };
}

macro_rules! binary_ops {
    ($(
        $(#[doc = $doc:literal])*
        $op:ident = $kind:ident($($alu:tt)+) in $domain:ident,
            names [$($name:literal),+], swapped [$($swapped:literal),*], $inplace:ident, onnx $onnx:tt,
            wgsl $wgsl:tt;
    )*) => {
        /// Binary elementwise ops: the rows of the table in `uop::alu`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum BinaryOp {
            $($(#[doc = $doc])* $op,)*
        }

        impl BinaryOp {
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$op),*];

            /// PyTorch's names for `op(a, b)`; the first is the canonical one.
            pub fn names(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$op => &[$($name),+],)*
                }
            }

            /// PyTorch's names for `op(b, a)` (`gt` is `lt` with the operands swapped).
            pub fn swapped_names(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$op => &[$($swapped),*],)*
                }
            }

            /// Whether PyTorch has the in-place method (`name_`).
            pub fn has_inplace(self) -> bool {
                match self {
                    $(BinaryOp::$op => has_inplace!($inplace),)*
                }
            }

            pub fn onnx(self) -> Option<&'static str> {
                match self {
                    $(BinaryOp::$op => onnx_name!($onnx),)*
                }
            }

            pub fn domain(self) -> Domain {
                match self {
                    $(BinaryOp::$op => Domain::$domain,)*
                }
            }

            /// The WGSL template for operands of class `c`; `{a}` and `{b}` are the operands.
            pub fn wgsl(self, c: Class) -> Template {
                match self {
                    $(BinaryOp::$op => template!(c, $wgsl),)*
                }
            }
        }

        /// The reference semantics on two buffers of the same dtype and length.
        pub(crate) fn binary(op: BinaryOp, a: &Data, b: &Data) -> Data {
            fn typed<T: Arith>(op: BinaryOp, a: &[T], b: &[T]) -> Data {
                debug_assert_eq!(a.len(), b.len());
                // Generic (not fn-pointer) closures so each op's loop is inlined and vectorised.
                fn zip<T: Arith>(a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> Data {
                    T::wrap(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect())
                }
                fn float<T: Arith>(a: &[T], b: &[T], f: impl Fn(f64, f64) -> f64) -> Data {
                    T::wrap(a.iter().zip(b).map(|(&x, &y)| T::from_f64(f(x.to_f64(), y.to_f64()))).collect())
                }
                fn cmp<T: Arith>(a: &[T], b: &[T], f: impl Fn(T, T) -> bool) -> Data {
                    Data::Bool(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect())
                }
                match op {
                    $(BinaryOp::$op => binary_alu!($kind, a, b, $($alu)+),)*
                }
            }
            fn both<T: Arith>(op: BinaryOp, x: &[T], b: &Data) -> Data {
                match T::vec(b) {
                    Some(y) => typed::<T>(op, x, y),
                    None => unreachable!("binary op on mismatched dtypes; the builder casts first"),
                }
            }
            match a {
                Data::Bool(x) => both(op, x, b),
                Data::U8(x) => both(op, x, b),
                Data::I32(x) => both(op, x, b),
                Data::I64(x) => both(op, x, b),
                Data::F32(x) => both(op, x, b),
                Data::F64(x) => both(op, x, b),
                narrow => {
                    let w = wide(narrow.dtype());
                    let out = binary(op, &narrow.cast(w), &b.cast(w));
                    if op.is_comparison() {
                        out
                    } else {
                        out.cast(narrow.dtype())
                    }
                }
            }
        }
    };
}

// -------------------------------------------------------------------------------- the tables
//
// The `onnx` column names the ONNX op a row implements for the ONNX front end; a row gets one
// when the front end's node-test subset covers it (`tools/models/pick_onnx_node_tests.py`), and a
// test checks that every name here is one the front end accepts.

unary_ops! {
    /// `-x`; integers wrap. The builder refuses bool, as PyTorch does.
    Neg = exact(neg) in Exact, names ["neg", "negative"], inplace, onnx "Neg",
        wgsl [F | I => "(-{a})", U8 => "((0u - {a}) & 0xffu)", B => "{a}"];
    Exp = float(f64::exp) in Float, names ["exp"], inplace, onnx "Exp", wgsl "exp({a})";
    Log = float(f64::ln) in Float, names ["log"], inplace, onnx "Log", wgsl "log({a})";
    Sqrt = float(f64::sqrt) in Float, names ["sqrt"], inplace, onnx "Sqrt", wgsl "sqrt({a})";
    Abs = exact(abs) in Exact, names ["abs", "absolute"], inplace, onnx "Abs",
        wgsl [F | I => "abs({a})", U8 | B => "{a}"];
    Relu = exact(relu) in Exact, names ["relu"], inplace, onnx "Relu",
        wgsl [F => "select(0.0, {a}, {a} > 0.0)", I => "max({a}, 0)", U8 | B => "{a}"];
    Sigmoid = float(float::sigmoid) in Float, names ["sigmoid"], inplace, onnx "Sigmoid",
        wgsl "(1.0 / (1.0 + exp(-{a})))";
    // Some drivers compute tanh as a ratio of exponentials that overflows to NaN.
    Tanh = float(f64::tanh) in Float, names ["tanh"], inplace, onnx "Tanh", wgsl "tanh(clamp({a}, -15.0, 15.0))";
    /// Logical not for bool, bitwise not for integers (Python's `~`).
    Not = exact(not) in Exact, names ["bitwise_not"], inplace, onnx "Not",
        wgsl [B => "(!{a})", I => "(~{a})", U8 => "((~{a}) & 0xffu)", F => "select(0.0, 1.0, {a} == 0.0)"];
    /// (0 < x) - (x < 0).
    Sign = exact(sign) in Exact, names ["sign"], inplace, onnx "Sign",
        wgsl [F => "(select(0.0, 1.0, 0.0 < {a}) - select(0.0, 1.0, {a} < 0.0))", I => "sign({a})",
              U8 => "min({a}, 1u)", B => "{a}"];
    Sin = float(f64::sin) in Float, names ["sin"], inplace, onnx "Sin", wgsl "sin({a})";
    Cos = float(f64::cos) in Float, names ["cos"], inplace, onnx "Cos", wgsl "cos({a})";
    Tan = float(f64::tan) in Float, names ["tan"], inplace, onnx "Tan", wgsl "tan({a})";
    Asin = float(f64::asin) in Float, names ["asin", "arcsin"], inplace, onnx "Asin", wgsl "asin_f32({a})";
    Acos = float(f64::acos) in Float, names ["acos", "arccos"], inplace, onnx "Acos", wgsl "acos_f32({a})";
    Atan = float(f64::atan) in Float, names ["atan", "arctan"], inplace, onnx "Atan", wgsl "atan({a})";
    Sinh = float(f64::sinh) in Float, names ["sinh"], inplace, onnx "Sinh", wgsl "sinh({a})";
    Cosh = float(f64::cosh) in Float, names ["cosh"], inplace, onnx "Cosh", wgsl "cosh({a})";
    Asinh = float(f64::asinh) in Float, names ["asinh", "arcsinh"], inplace, onnx "Asinh", wgsl "asinh({a})";
    Acosh = float(f64::acosh) in Float, names ["acosh", "arccosh"], inplace, onnx "Acosh", wgsl "acosh({a})";
    Atanh = float(f64::atanh) in Float, names ["atanh", "arctanh"], inplace, onnx "Atanh", wgsl "atanh({a})";
    Erf = float(float::erf) in Float, names ["erf"], inplace, onnx "Erf", wgsl "erf_f32({a})";
    Erfc = float(float::erfc) in Float, names ["erfc"], inplace, onnx -, wgsl "erfc_f32({a})";
    Expm1 = float(f64::exp_m1) in Float, names ["expm1"], inplace, onnx -, wgsl "expm1_f32({a})";
    Log1p = float(f64::ln_1p) in Float, names ["log1p"], inplace, onnx -, wgsl "log1p_f32({a})";
    Log2 = float(f64::log2) in Float, names ["log2"], inplace, onnx -, wgsl "log2({a})";
    Log10 = float(float::log10) in Float, names ["log10"], inplace, onnx -, wgsl "(log({a}) * 0.4342944819032518)";
    Exp2 = float(f64::exp2) in Float, names ["exp2"], inplace, onnx -, wgsl "exp2({a})";
    Floor = rounding(f64::floor) in Rounding, names ["floor"], inplace, onnx "Floor",
        wgsl [F => "floor({a})", I | U8 | B => "{a}"];
    Ceil = rounding(f64::ceil) in Rounding, names ["ceil"], inplace, onnx "Ceil",
        wgsl [F => "ceil({a})", I | U8 | B => "{a}"];
    /// Half to even, as PyTorch and WGSL's `round` both do.
    Round = rounding(float::round_half_even) in Rounding, names ["round"], inplace, onnx "Round",
        wgsl [F => "round({a})", I | U8 | B => "{a}"];
    Trunc = rounding(f64::trunc) in Rounding, names ["trunc", "fix"], inplace, onnx -,
        wgsl [F => "trunc({a})", I | U8 | B => "{a}"];
}

binary_ops! {
    Add = exact(add) in Exact, names ["add"], swapped [], inplace, onnx "Add",
        wgsl [F | I => "({a} + {b})", U8 => "(({a} + {b}) & 0xffu)", B => "({a} || {b})"];
    Sub = exact(sub) in Exact, names ["sub", "subtract"], swapped [], inplace, onnx "Sub",
        wgsl [F | I => "({a} - {b})", U8 => "(({a} - {b}) & 0xffu)", B => "({a} != {b})"];
    Mul = exact(mul) in Exact, names ["mul", "multiply"], swapped [], inplace, onnx "Mul",
        wgsl [F | I => "({a} * {b})", U8 => "(({a} * {b}) & 0xffu)", B => "({a} && {b})"];
    /// True division; integer operands compute in float32, as in PyTorch. (ONNX's `Div`
    /// truncates integers, so the ONNX front end lowers it itself.)
    Div = exact(div) in Float, names ["div", "true_divide", "divide"], swapped [], inplace, onnx -,
        wgsl [F => "({a} / {b})", I => "select({a} / {b}, 0, {b} == 0)", U8 => "select({a} / {b}, 0u, {b} == 0u)",
              B => "({a} && {b})"];
    /// Python's floor division (`//`).
    FloorDiv = exact(floordiv) in Exact, names ["floor_divide"], swapped [], inplace, onnx -,
        wgsl [F => "floordiv_f32({a}, {b})", I => "idiv_floor({a}, {b})", U8 => "select({a} / {b}, 0u, {b} == 0u)",
              B => "({a} && {b})"];
    /// Python's modulo (`%`, `remainder`): the result takes the divisor's sign.
    Mod = exact(rem) in Exact, names ["remainder"], swapped [], inplace, onnx -,
        wgsl [F => "mod_f32({a}, {b})", I => "mod_i32({a}, {b})", U8 => "select({a} % {b}, 0u, {b} == 0u)",
              B => "false"];
    /// C's fmod: the result takes the dividend's sign.
    Fmod = exact(fmod) in Exact, names ["fmod"], swapped [], inplace, onnx -,
        wgsl [F => "fmod_f32({a}, {b})", I => "select({a} % {b}, 0, {b} == 0)",
              U8 => "select({a} % {b}, 0u, {b} == 0u)", B => "false"];
    Pow = exact(pow) in Exact, names ["pow"], swapped [], inplace, onnx -,
        wgsl [F => "pow_f32({a}, {b})", I => "pow_i32({a}, {b})", U8 => "pow_u8({a}, {b})", B => "({a} || !{b})"];
    /// PyTorch's `maximum`: NaN propagates.
    Max = exact(max) in Exact, names ["maximum"], swapped [], no_inplace, onnx -,
        wgsl [F => "max_f32({a}, {b})", I | U8 => "max({a}, {b})", B => "({a} || {b})"];
    /// PyTorch's `minimum`: NaN propagates.
    Min = exact(min) in Exact, names ["minimum"], swapped [], no_inplace, onnx -,
        wgsl [F => "min_f32({a}, {b})", I | U8 => "min({a}, {b})", B => "({a} && {b})"];
    /// C's fmax: a NaN operand yields the other.
    Fmax = exact(fmax) in Exact, names ["fmax"], swapped [], no_inplace, onnx -,
        wgsl [F => "fmax_f32({a}, {b})", I | U8 => "max({a}, {b})", B => "({a} || {b})"];
    Fmin = exact(fmin) in Exact, names ["fmin"], swapped [], no_inplace, onnx -,
        wgsl [F => "fmin_f32({a}, {b})", I | U8 => "min({a}, {b})", B => "({a} && {b})"];
    Atan2 = float(f64::atan2) in Float, names ["atan2", "arctan2"], swapped [], inplace, onnx -,
        wgsl "atan2({a}, {b})";
    Hypot = float(f64::hypot) in Float, names ["hypot"], swapped [], inplace, onnx -,
        wgsl "hypot_f32({a}, {b})";
    Copysign = float(f64::copysign) in Float, names ["copysign"], swapped [], inplace, onnx -,
        wgsl "copysign_f32({a}, {b})";
    CmpLt = compare(|x, y| x < y) in Compare, names ["lt", "less"], swapped ["gt", "greater"], inplace, onnx "Less",
        wgsl [B => "(!{a} && {b})", F | I | U8 => "({a} < {b})"];
    CmpLe = compare(|x, y| x <= y) in Compare, names ["le", "less_equal"], swapped ["ge", "greater_equal"],
        inplace, onnx "LessOrEqual", wgsl [B => "(!{a} || {b})", F | I | U8 => "({a} <= {b})"];
    CmpEq = compare(|x, y| x == y) in Compare, names ["eq"], swapped [], inplace, onnx "Equal",
        wgsl [F | I | U8 | B => "({a} == {b})"];
    CmpNe = compare(|x, y| x != y) in Compare, names ["ne", "not_equal"], swapped [], inplace, onnx -,
        wgsl [F | I | U8 | B => "({a} != {b})"];
    And = exact(and) in Bitwise, names ["bitwise_and"], swapped [], inplace, onnx "And",
        wgsl [I | U8 => "({a} & {b})", B => "({a} && {b})", F => "select(0.0, 1.0, {a} != 0.0 && {b} != 0.0)"];
    Or = exact(or) in Bitwise, names ["bitwise_or"], swapped [], inplace, onnx "Or",
        wgsl [I | U8 => "({a} | {b})", B => "({a} || {b})", F => "select(0.0, 1.0, {a} != 0.0 || {b} != 0.0)"];
    Xor = exact(xor) in Bitwise, names ["bitwise_xor"], swapped [], inplace, onnx "Xor",
        wgsl [I | U8 => "({a} ^ {b})", B => "({a} != {b})", F => "select(0.0, 1.0, ({a} != 0.0) != ({b} != 0.0))"];
}

impl UnaryOp {
    /// The op a PyTorch name means (`torch.sin`, `Tensor.sin`).
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        Self::ALL.iter().copied().find(|op| op.names().contains(&name))
    }

    /// The op whose in-place method this is (`sin_`).
    pub fn from_inplace_name(name: &str) -> Option<UnaryOp> {
        let base = name.strip_suffix('_')?;
        Self::from_name(base).filter(|op| op.has_inplace())
    }

    pub fn from_onnx(op_type: &str) -> Option<UnaryOp> {
        Self::ALL.iter().copied().find(|op| op.onnx() == Some(op_type))
    }

    pub fn name(self) -> &'static str {
        self.names()[0]
    }
}

/// Which operand comes first when a name is looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// `op(a, b)`.
    InOrder,
    /// `op(b, a)`: the name is the swapped form (`gt` is `lt` of the swapped operands).
    Swapped,
}

impl BinaryOp {
    /// The op a PyTorch name means, and whether the name swaps the operands.
    pub fn from_name(name: &str) -> Option<(BinaryOp, Operands)> {
        Self::ALL.iter().copied().find_map(|op| {
            if op.names().contains(&name) {
                Some((op, Operands::InOrder))
            } else if op.swapped_names().contains(&name) {
                Some((op, Operands::Swapped))
            } else {
                None
            }
        })
    }

    /// The op whose in-place method this is (`add_`).
    pub fn from_inplace_name(name: &str) -> Option<BinaryOp> {
        let base = name.strip_suffix('_')?;
        Self::ALL.iter().copied().find(|op| op.has_inplace() && op.names().contains(&base))
    }

    pub fn from_onnx(op_type: &str) -> Option<BinaryOp> {
        Self::ALL.iter().copied().find(|op| op.onnx() == Some(op_type))
    }

    pub fn name(self) -> &'static str {
        self.names()[0]
    }

    pub fn is_comparison(self) -> bool {
        self.domain() == Domain::Compare
    }
}

/// `where(c, x, y)` elementwise; `c` is bool and `x`, `y` share a dtype.
pub(crate) fn select(c: &Data, x: &Data, y: &Data) -> Data {
    let Data::Bool(c) = c else { unreachable!("where's condition is bool; the builder casts first") };
    crate::uop::buffer::with_data!(x, |xv: T| {
        let yv = T::vec(y).unwrap_or_default();
        T::wrap(c.iter().zip(xv.iter().zip(yv)).map(|(&c, (&a, &b))| if c { a } else { b }).collect())
    })
}

/// Sums in eight f64 lanes: exact for int32 ranges, more accurate than a serial f32 sum, and
/// the lanes keep the loop vectorisable.
pub(crate) fn sum<T: Elem>(v: &[T]) -> f64 {
    let mut lanes = [0f64; 8];
    let chunks = v.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += x.to_f64();
        }
    }
    lanes.iter().sum::<f64>() + tail.iter().map(|x| x.to_f64()).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_row_and_no_name_is_shared() {
        let mut seen = std::collections::HashSet::new();
        for &op in UnaryOp::ALL {
            for &n in op.names() {
                assert!(seen.insert(n), "{n} names two ops");
                assert_eq!(UnaryOp::from_name(n), Some(op));
            }
        }
        for &op in BinaryOp::ALL {
            for &n in op.names().iter().chain(op.swapped_names()) {
                assert!(seen.insert(n), "{n} names two ops");
                assert_eq!(BinaryOp::from_name(n).map(|(o, _)| o), Some(op));
            }
        }
        assert_eq!(UnaryOp::from_inplace_name("sin_"), Some(UnaryOp::Sin));
        assert_eq!(BinaryOp::from_inplace_name("maximum_"), None);
        assert_eq!(BinaryOp::from_name("gt"), Some((BinaryOp::CmpLt, Operands::Swapped)));
    }

    #[test]
    fn onnx_names_are_accepted_by_the_front_end() {
        let names = UnaryOp::ALL.iter().filter_map(|o| o.onnx()).chain(BinaryOp::ALL.iter().filter_map(|o| o.onnx()));
        for n in names {
            assert!(
                crate::onnx::SUPPORTED_OPS.contains(&n),
                "{n} is in the op table but not accepted by the ONNX front end"
            );
        }
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.1, 0.112_462_916_018_284_9),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (-1.5, -0.966_105_146_475_310_7),
        ] {
            assert!((float::erf(x) - want).abs() < 2e-7, "erf({x}) = {} != {want}", float::erf(x));
        }
        for (x, want) in
            [(3.0, 2.209_049_699_858_544e-5), (1.0, 0.157_299_207_050_285_13), (-1.0, 1.842_700_792_949_715)]
        {
            assert!(((float::erfc(x) - want) / want).abs() < 2e-7, "erfc({x})");
        }
    }

    #[test]
    fn rounding_and_sign_follow_torch() {
        let x = Data::F32(vec![-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, f32::NAN, -0.0]);
        assert_eq!(unary(UnaryOp::Round, &x).to_f64_vec()[..6], [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]);
        let s = unary(UnaryOp::Sign, &x).to_f64_vec();
        assert_eq!(s[6], 0.0);
        assert_eq!(s[7], 0.0);
        let i = Data::I32(vec![-3, 0, 4]);
        assert_eq!(unary(UnaryOp::Floor, &i), i);
        assert_eq!(unary(UnaryOp::Sign, &i), Data::I32(vec![-1, 0, 1]));
        let a = Data::I32(vec![-7, 7, -7, 7]);
        let b = Data::I32(vec![2, -2, -2, 2]);
        assert_eq!(binary(BinaryOp::Fmod, &a, &b), Data::I32(vec![-1, 1, -1, 1]));
        assert_eq!(binary(BinaryOp::Mod, &a, &b), Data::I32(vec![1, -1, -1, 1]));
        let f = Data::F32(vec![1.0, f32::NAN]);
        let g = Data::F32(vec![f32::NAN, 2.0]);
        assert_eq!(binary(BinaryOp::Fmax, &f, &g).to_f64_vec(), vec![1.0, 2.0]);
        assert!(binary(BinaryOp::Max, &f, &g).to_f64_vec().iter().all(|x| x.is_nan()));
    }
}
