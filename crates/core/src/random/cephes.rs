//! The float32 `log`, `sin` and `cos` PyTorch's `randn` uses for blocks of 16 (Julien Pommier's
//! Cephes-style polynomials, as PyTorch's x86 build runs them for the AVX2 kernel, which it
//! picks on AVX-512 machines too). The compiler there fuses each `a * b + c` of the polynomials
//! into one rounding, so `mul_add` stands at exactly those places; every other step rounds as
//! written. Recorded `randn` values agree bit for bit.
//!
//! The constants are the C source's double literals rounded to float, as C rounds them.
#![allow(clippy::excessive_precision)]

const SQRTHF: f32 = std::f64::consts::FRAC_1_SQRT_2 as f32;
const LOG_P: [f32; 9] = [
    7.0376836292E-2_f64 as f32,
    -1.1514610310E-1_f64 as f32,
    1.1676998740E-1_f64 as f32,
    -1.2420140846E-1_f64 as f32,
    1.4249322787E-1_f64 as f32,
    -1.6668057665E-1_f64 as f32,
    2.0000714765E-1_f64 as f32,
    -2.4999993993E-1_f64 as f32,
    3.3333331174E-1_f64 as f32,
];
const LOG_Q1: f32 = -2.12194440e-4_f64 as f32;
const LOG_Q2: f32 = 0.693359375;

/// Natural log; NaN for `x <= 0`. Always inlined, so a caller compiled for FMA fuses its
/// `mul_add`s in hardware.
#[inline(always)]
pub fn log(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        return f32::NAN;
    }
    let x = x.max(f32::MIN_POSITIVE);
    let bits = x.to_bits();
    let mut e = ((bits >> 23) as i32 - 0x7f) as f32 + 1.0;
    // The mantissa as a number in [0.5, 1).
    let mut x = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits());
    let below = x < SQRTHF;
    let tmp = if below { x } else { 0.0 };
    x -= 1.0;
    if below {
        e -= 1.0;
    }
    x += tmp;
    let z = x * x;
    let mut y = LOG_P[0];
    for &p in &LOG_P[1..] {
        y = y.mul_add(x, p);
    }
    y *= x;
    y = y.mul_add(z, e * LOG_Q1);
    y = (-z).mul_add(0.5, y);
    x += y;
    e.mul_add(LOG_Q2, x)
}

const FOPI: f32 = 1.27323954473516_f64 as f32; // 4 / pi
const DP: [f32; 3] = [-0.78515625, -2.4187564849853515625e-4_f64 as f32, -3.77489497744594108e-8_f64 as f32];
const SIN_P: [f32; 3] = [-1.9515295891E-4_f64 as f32, 8.3321608736E-3_f64 as f32, -1.6666654611E-1_f64 as f32];
const COS_P: [f32; 3] =
    [2.443315711809948E-005_f64 as f32, -1.388731625493765E-003_f64 as f32, 4.166664568298827E-002_f64 as f32];

/// `(sin x, cos x)`, inlined as [`log`] is.
#[inline(always)]
pub fn sincos(x: f32) -> (f32, f32) {
    let sign_sin = x.to_bits() & 0x8000_0000;
    let mut x = x.abs();
    // The octant, rounded up to even (Cephes' `j = (j + 1) & ~1`).
    let j = (((x * FOPI) as i32).wrapping_add(1)) & !1;
    let y = j as f32;
    let swap_sin = ((j & 4) as u32) << 29;
    let sin_first = j & 2 == 0;
    let sign_cos = ((!(j.wrapping_sub(2)) & 4) as u32) << 29;
    for d in DP {
        x = y.mul_add(d, x);
    }
    let z = x * x;
    let mut c = COS_P[0].mul_add(z, COS_P[1]).mul_add(z, COS_P[2]);
    c *= z;
    c = c.mul_add(z, -(z * 0.5));
    c += 1.0;
    let mut s = SIN_P[0].mul_add(z, SIN_P[1]).mul_add(z, SIN_P[2]);
    s *= z;
    s = s.mul_add(x, x);
    let (sin, cos) = if sin_first { (s, c) } else { (c, s) };
    (f32::from_bits(sin.to_bits() ^ sign_sin ^ swap_sin), f32::from_bits(cos.to_bits() ^ sign_cos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_to_the_exact_functions() {
        for i in 1..2000 {
            let x = i as f32 / 2000.0;
            assert!((log(x) - x.ln()).abs() <= 2e-7 * x.ln().abs().max(1.0), "log {x}");
            let t = x * std::f32::consts::TAU;
            let (s, c) = sincos(t);
            assert!((s - t.sin()).abs() < 1e-6 && (c - t.cos()).abs() < 1e-6, "sincos {t}");
        }
        assert!(log(0.0).is_nan() && log(-1.0).is_nan());
    }
}
