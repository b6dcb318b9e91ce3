//! The element arithmetic the op table's rows name: the [`Arith`] trait, implemented for every
//! element type with PyTorch's CPU semantics, and the float reference functions `f64` lacks.

use super::buffer::Elem;
use super::half::{BF16, F16};

/// The element arithmetic of one Rust element type: PyTorch's CPU semantics (integers wrap,
/// integer division by zero yields 0 here because the builder refuses it before a kernel runs,
/// float `maximum`/`minimum` propagate NaN, `fmax`/`fmin` ignore it).
pub(crate) trait Arith: Elem {
    /// The identities of max and min.
    const LOWEST: Self;
    const HIGHEST: Self;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
    fn floordiv(a: Self, b: Self) -> Self;
    /// Python's modulo: the result takes the divisor's sign.
    fn rem(a: Self, b: Self) -> Self;
    /// C's fmod: the result takes the dividend's sign.
    fn fmod(a: Self, b: Self) -> Self;
    fn pow(a: Self, b: Self) -> Self;
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;
    fn not(a: Self) -> Self;
    fn abs(a: Self) -> Self;
    fn sign(a: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn fmax(a: Self, b: Self) -> Self {
        Self::max(a, b)
    }
    fn fmin(a: Self, b: Self) -> Self {
        Self::min(a, b)
    }
    fn relu(a: Self) -> Self {
        if a > Self::default() {
            a
        } else {
            Self::default()
        }
    }
}

macro_rules! int_arith {
    ($t:ty) => {
        #[allow(unused_comparisons)]
        impl Arith for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn div(a: Self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            fn floordiv(a: Self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let q = a.wrapping_div(b);
                if (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = a.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r.wrapping_add(b)
                } else {
                    r
                }
            }
            fn fmod(a: Self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            fn pow(a: Self, b: Self) -> Self {
                // A negative exponent: 1 and -1 keep their magnitude, everything else is 0.
                if b < 0 {
                    return match a {
                        1 => 1,
                        _ if a == (0 as $t).wrapping_sub(1) => {
                            if b % 2 == 0 {
                                1
                            } else {
                                a
                            }
                        }
                        _ => 0,
                    };
                }
                a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
            }
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
            fn neg(a: Self) -> Self {
                (0 as $t).wrapping_sub(a)
            }
            fn not(a: Self) -> Self {
                !a
            }
            fn abs(a: Self) -> Self {
                if a < 0 {
                    (0 as $t).wrapping_sub(a)
                } else {
                    a
                }
            }
            fn sign(a: Self) -> Self {
                if a > 0 {
                    1
                } else if a < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
        }
    };
}
int_arith!(u8);
int_arith!(i8);
int_arith!(i16);
int_arith!(i32);
int_arith!(i64);

macro_rules! float_arith {
    ($t:ident) => {
        impl Arith for $t {
            const LOWEST: Self = $t::NEG_INFINITY;
            const HIGHEST: Self = $t::INFINITY;
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn sub(a: Self, b: Self) -> Self {
                a - b
            }
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
            fn floordiv(a: Self, b: Self) -> Self {
                (a / b).floor()
            }
            fn rem(a: Self, b: Self) -> Self {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r + b
                } else {
                    r
                }
            }
            fn fmod(a: Self, b: Self) -> Self {
                a % b
            }
            fn pow(a: Self, b: Self) -> Self {
                a.powf(b)
            }
            fn and(a: Self, b: Self) -> Self {
                <$t>::from(u8::from(a != 0.0 && b != 0.0))
            }
            fn or(a: Self, b: Self) -> Self {
                <$t>::from(u8::from(a != 0.0 || b != 0.0))
            }
            fn xor(a: Self, b: Self) -> Self {
                <$t>::from(u8::from((a != 0.0) != (b != 0.0)))
            }
            fn neg(a: Self) -> Self {
                -a
            }
            fn not(a: Self) -> Self {
                <$t>::from(u8::from(a == 0.0))
            }
            fn abs(a: Self) -> Self {
                a.abs()
            }
            // PyTorch's sign is (0 < x) - (x < 0): NaN gives 0, -0.0 gives 0.
            fn sign(a: Self) -> Self {
                <$t>::from(u8::from(0.0 < a)) - <$t>::from(u8::from(a < 0.0))
            }
            // PyTorch's maximum/minimum propagate NaN.
            fn max(a: Self, b: Self) -> Self {
                if a.is_nan() || b.is_nan() {
                    $t::NAN
                } else {
                    a.max(b)
                }
            }
            fn min(a: Self, b: Self) -> Self {
                if a.is_nan() || b.is_nan() {
                    $t::NAN
                } else {
                    a.min(b)
                }
            }
            // fmax/fmin take the other operand when one is NaN (C's fmax).
            fn fmax(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn fmin(a: Self, b: Self) -> Self {
                a.min(b)
            }
        }
    };
}
float_arith!(f32);
float_arith!(f64);

/// The 16-bit floats compute in f32 and round once per op, as PyTorch's CPU kernels do.
macro_rules! half_arith {
    ($t:ident, $neg_inf:literal, $inf:literal) => {
        impl Arith for $t {
            const LOWEST: Self = $t($neg_inf);
            const HIGHEST: Self = $t($inf);
            half_arith!(@binary $t: add sub mul div floordiv rem fmod pow and or xor max min fmax fmin);
            half_arith!(@unary $t: neg not abs sign);
        }
    };
    (@binary $t:ident: $($m:ident)*) => {
        $(fn $m(a: Self, b: Self) -> Self {
            $t::from_f32(<f32 as Arith>::$m(a.to_f32(), b.to_f32()))
        })*
    };
    (@unary $t:ident: $($m:ident)*) => {
        $(fn $m(a: Self) -> Self {
            $t::from_f32(<f32 as Arith>::$m(a.to_f32()))
        })*
    };
}
half_arith!(F16, 0xfc00, 0x7c00);
half_arith!(BF16, 0xff80, 0x7f80);

impl Arith for bool {
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    fn sub(a: Self, b: Self) -> Self {
        a ^ b
    }
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    fn div(a: Self, b: Self) -> Self {
        a & b
    }
    fn floordiv(a: Self, b: Self) -> Self {
        a & b
    }
    fn rem(_a: Self, _b: Self) -> Self {
        false
    }
    fn fmod(_a: Self, _b: Self) -> Self {
        false
    }
    fn pow(a: Self, b: Self) -> Self {
        a | !b
    }
    fn and(a: Self, b: Self) -> Self {
        a & b
    }
    fn or(a: Self, b: Self) -> Self {
        a | b
    }
    fn xor(a: Self, b: Self) -> Self {
        a ^ b
    }
    fn neg(a: Self) -> Self {
        a
    }
    fn not(a: Self) -> Self {
        !a
    }
    fn abs(a: Self) -> Self {
        a
    }
    fn sign(a: Self) -> Self {
        a
    }
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
}

// ------------------------------------------------------------------- float reference functions

/// The float functions the rows name that `f64` lacks. Each is computed in f64 and rounded once
/// to the result dtype, within an ulp of PyTorch's float32 kernels.
pub(super) mod float {
    pub fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    pub fn round_half_even(x: f64) -> f64 {
        x.round_ties_even()
    }

    /// erf by its Maclaurin series near zero, where `1 - erfc` would cancel, and by `erfc`
    /// elsewhere.
    pub fn erf(x: f64) -> f64 {
        if x.abs() < 0.5 {
            // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)); 12 terms reach f64
            // precision for |x| < 0.5.
            let x2 = x * x;
            let (mut term, mut sum) = (x, x);
            for n in 1..12 {
                let n = f64::from(n);
                term *= -x2 / n;
                sum += term / (2.0 * n + 1.0);
            }
            sum * std::f64::consts::FRAC_2_SQRT_PI
        } else {
            x.signum() * (1.0 - erfc(x.abs()))
        }
    }

    /// erfc by the Chebyshev fit of Numerical Recipes (`erfcc`): relative error below 1.2e-7
    /// everywhere, far inside float32's tolerance.
    pub fn erfc(x: f64) -> f64 {
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let poly = -z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
        let r = t * poly.exp();
        if x >= 0.0 {
            r
        } else {
            2.0 - r
        }
    }

    pub fn log10(x: f64) -> f64 {
        x.log10()
    }
}
