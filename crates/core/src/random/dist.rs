//! The distributions of PyTorch's CPU kernels (`DistributionTemplates.h`,
//! `DistributionsHelper.h`, `TransformationHelper.h`): for each, which bits it draws (32 or
//! 64), how it turns them into a value, and in which precision it computes. Samples come out
//! in the order the kernel visits the elements; the caller places them.
//!
//! Where the C++ computes `a * b + c` in a kernel built with fused multiply-add contraction
//! (`uniform_`, `normal_`), the code here says `mul_add`; the recorded fixtures pin each one.

use super::cephes;
use super::generator::Generator;
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::uop::buffer::{with_dtype, Data, Elem};

/// A distribution and its parameters, as the in-place op that draws it takes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// `uniform_(from, to)`; `rand` is `[0, 1)`.
    Uniform { from: f64, to: f64 },
    /// `normal_(mean, std)`; `randn` is `(0, 1)`.
    Normal { mean: f64, std: f64 },
    /// `bernoulli_(p)` with a number `p`.
    Bernoulli { p: f64 },
    /// `exponential_(lambd)`.
    Exponential { lambda: f64 },
    /// `random_(from, to)` and `randint`: `base + bits % range`.
    Integers { range: u64, base: i64 },
    /// `random_()`: `[0, 2^mantissa digits]` for floats, `[0, max]` for integers.
    Bits,
}

impl Distribution {
    /// The kernel's name in PyTorch's "not implemented for" error.
    fn kernel(self) -> &'static str {
        match self {
            Distribution::Uniform { .. } => "check_uniform_bounds",
            Distribution::Normal { .. } => "normal_kernel_cpu",
            Distribution::Exponential { .. } => "exponential_cpu",
            Distribution::Bernoulli { .. } => "bernoulli_scalar_cpu_",
            Distribution::Integers { .. } => "random_from_to_kernel_cpu",
            Distribution::Bits => "random_kernel_cpu",
        }
    }

    /// PyTorch's checks of the parameters and the dtype, before anything is drawn.
    pub fn check(self, dtype: DType) -> Result<()> {
        let continuous = matches!(
            self,
            Distribution::Uniform { .. } | Distribution::Normal { .. } | Distribution::Exponential { .. }
        );
        if continuous && !dtype.is_float() {
            if let Distribution::Exponential { .. } = self {
                bail!(
                    DType,
                    "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
                    dtype.torch_name()
                );
            }
            bail!(DType, "\"{}\" not implemented for '{}'", self.kernel(), dtype.torch_name());
        }
        match self {
            Distribution::Uniform { from, to } if from > to => {
                bail!(
                    Index,
                    "uniform_ expects to return a [from, to) range, but found from={} > to={}",
                    cpp_double(from),
                    cpp_double(to)
                )
            }
            Distribution::Normal { std, .. } if std.is_nan() || std < 0.0 => {
                bail!(Index, "normal expects std >= 0.0, but found std {}", cpp_double(std))
            }
            Distribution::Bernoulli { p } if p.is_nan() || !(0.0..=1.0).contains(&p) => {
                bail!(Index, "bernoulli_ expects p to be in [0, 1], but got p={}", cpp_double(p))
            }
            Distribution::Exponential { lambda } if lambda.is_nan() || lambda <= 0.0 => {
                bail!(Index, "exponential_ expects lambda > 0.0, but found lambda={}", cpp_double(lambda))
            }
            _ => Ok(()),
        }
    }
}

/// `n` samples of `dist` in `dtype`, in the kernel's visiting order. `contiguous` is whether
/// the tensor written is contiguous: `normal_` draws a contiguous tensor of 16 or more
/// elements in blocks of 16 and anything else one element at a time.
pub fn sample(g: &mut Generator, dist: Distribution, dtype: DType, n: usize, contiguous: bool) -> Result<Data> {
    dist.check(dtype)?;
    let opmath_f32 = matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16);
    Ok(match dist {
        Distribution::Uniform { from, to } => {
            let (to_s, from_s) = (round_to(dtype, to), round_to(dtype, from));
            floats(dtype, n, || {
                let v = if opmath_f32 {
                    let (from, to) = (from as f32, to as f32);
                    f64::from(uniform24(g).mul_add(to - from, from))
                } else {
                    uniform53(g).mul_add(to - from, from)
                };
                // A value that rounds up to `to` in the dtype becomes `from`.
                let v = round_to(dtype, v);
                if v == to_s {
                    from_s
                } else {
                    v
                }
            })
        }
        Distribution::Normal { mean, std } if contiguous && n >= 16 => normal_blocks(g, dtype, n, mean, std),
        Distribution::Normal { mean, std } => floats(dtype, n, || normal_double(g).mul_add(std, mean)),
        Distribution::Bernoulli { p } => floats(dtype, n, || f64::from(u8::from(uniform53(g) < p))),
        Distribution::Exponential { lambda } => floats(dtype, n, || (-1.0 / lambda) * (-uniform53(g)).ln_1p()),
        Distribution::Integers { range, base } => {
            let wide = range >= 1 << 28;
            ints(dtype, n, || {
                let bits = if wide { g.random64() } else { u64::from(g.random()) };
                (bits % range).wrapping_add(base as u64) as i64
            })
        }
        Distribution::Bits => ints(dtype, n, || bits(g, dtype)),
    })
}

/// `bernoulli_(p)` with a tensor `p` (its values in the kernel's visiting order): a float32
/// draw against each probability, a float64 one when `p` is float64.
pub fn sample_bernoulli(g: &mut Generator, dtype: DType, p: &[f64], p_double: bool) -> Data {
    let mut it = p.iter();
    floats(dtype, p.len(), || {
        let p = it.next().copied().unwrap_or(0.0);
        let hit = if p_double { uniform53(g) < p } else { uniform24(g) < p as f32 };
        f64::from(u8::from(hit))
    })
}

/// `randperm(n)`: the identity shuffled by swapping each position with one at or after it
/// (PyTorch's algorithm for `n` below 2^32 / 20).
pub fn randperm(g: &mut Generator, n: usize) -> Vec<i64> {
    let mut r: Vec<i64> = (0..n as i64).collect();
    for i in 0..n.saturating_sub(1) {
        let z = (u64::from(g.random()) % (n - i) as u64) as usize;
        r.swap(i, i + z);
    }
    r
}

/// A uniform float in `[0, 1)` from 24 bits of one 32-bit draw.
fn uniform24(g: &mut Generator) -> f32 {
    (g.random() & 0xff_ffff) as f32 * (1.0 / 16_777_216.0)
}

/// A uniform double in `[0, 1)` from 53 bits of one 64-bit draw.
fn uniform53(g: &mut Generator) -> f64 {
    (g.random64() & ((1 << 53) - 1)) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// `normal_distribution<double>`: Box–Muller over two 53-bit uniforms, the second value kept
/// for the next call.
fn normal_double(g: &mut Generator) -> f64 {
    if let Some(v) = g.take_double_normal() {
        return v;
    }
    let u1 = uniform53(g);
    let u2 = uniform53(g);
    let r = (-2.0 * (-u2).ln_1p()).sqrt();
    let theta = std::f64::consts::TAU * u1;
    g.set_double_normal(r * theta.sin());
    r * theta.cos()
}

/// `normal_fill`: uniforms transformed in blocks of 16 (8 Box–Muller pairs, element `j` with
/// element `j + 8`); when 16 does not divide `n`, the last 16 elements are drawn again and
/// transformed as one more block. float32 draws all `n` uniforms first; float16 and bfloat16
/// (computing in float32) draw block by block; float64 computes in double.
fn normal_blocks(g: &mut Generator, dtype: DType, n: usize, mean: f64, std: f64) -> Data {
    let tail = !n.is_multiple_of(16);
    if dtype == DType::Float64 {
        let mut d: Vec<f64> = (0..n).map(|_| uniform53(g)).collect();
        for i in (0..n - 15).step_by(16) {
            fill16_f64(&mut d[i..i + 16], mean, std);
        }
        if tail {
            for x in &mut d[n - 16..] {
                *x = uniform53(g);
            }
            fill16_f64(&mut d[n - 16..], mean, std);
        }
        return Data::F64(d);
    }
    let (mean, std) = (mean as f32, std as f32);
    let mut d = vec![0f32; n];
    if dtype == DType::Float32 {
        d.iter_mut().for_each(|x| *x = uniform24(g));
    }
    let whole = n - n % 16;
    if dtype == DType::Float32 {
        fill16s_f32(&mut d[..whole], mean, std);
    } else {
        for block in d[..whole].chunks_exact_mut(16) {
            block.iter_mut().for_each(|x| *x = uniform24(g));
            fill16s_f32(block, mean, std);
        }
    }
    if tail {
        let last = &mut d[n - 16..];
        last.iter_mut().for_each(|x| *x = uniform24(g));
        fill16s_f32(last, mean, std);
    }
    if dtype == DType::Float32 {
        return Data::F32(d);
    }
    floats_from(dtype, d.into_iter().map(f64::from))
}

/// Transforms `d` in blocks of 16 (`d.len()` a multiple of 16).
fn fill16s_f32(d: &mut [f32], mean: f32, std: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA, checked just above; the function needs nothing else.
        return unsafe { fill16s_f32_fma(d, mean, std) };
    }
    d.chunks_exact_mut(16).for_each(|b| fill16_f32(b, mean, std));
}

/// [`fill16s_f32`] compiled with FMA: `mul_add` is one instruction instead of a library call,
/// with the same single rounding.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fill16s_f32_fma(d: &mut [f32], mean: f32, std: f32) {
    d.chunks_exact_mut(16).for_each(|b| fill16_f32(b, mean, std));
}

#[inline(always)]
fn fill16_f32(d: &mut [f32], mean: f32, std: f32) {
    let two_pi = std::f64::consts::TAU as f32;
    for j in 0..8 {
        let u1 = 1.0 - d[j];
        let radius = (-2.0 * cephes::log(u1)).sqrt();
        let (sin, cos) = cephes::sincos(two_pi * d[j + 8]);
        d[j] = (radius * cos).mul_add(std, mean);
        d[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

fn fill16_f64(d: &mut [f64], mean: f64, std: f64) {
    for j in 0..8 {
        let u1 = 1.0 - d[j];
        let radius = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * d[j + 8];
        d[j] = (radius * theta.cos()).mul_add(std, mean);
        d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
    }
}

/// `random_()`'s draw for `dtype`.
fn bits(g: &mut Generator, dtype: DType) -> i64 {
    let r32 = |g: &mut Generator, m: u64| (u64::from(g.random()) % m) as i64;
    match dtype {
        DType::Bool => i64::from(g.random() & 1),
        DType::Int64 => (g.random64() % (1 << 63)) as i64,
        DType::Float64 => (g.random64() % ((1 << 53) + 1)) as i64,
        DType::Float32 => r32(g, (1 << 24) + 1),
        DType::Float16 => r32(g, (1 << 11) + 1),
        DType::BFloat16 => r32(g, (1 << 8) + 1),
        DType::Int32 => r32(g, 1 << 31),
        DType::Int16 => r32(g, 1 << 15),
        DType::Int8 => r32(g, 1 << 7),
        DType::UInt8 => r32(g, 1 << 8),
    }
}

/// `v` rounded to `dtype` (a float dtype), as the kernel's cast does.
fn round_to(dtype: DType, v: f64) -> f64 {
    with_dtype!(dtype, |T| T::from_f64(v).to_f64())
}

fn floats(dtype: DType, n: usize, mut f: impl FnMut() -> f64) -> Data {
    floats_from(dtype, (0..n).map(|_| f()))
}

fn floats_from(dtype: DType, it: impl Iterator<Item = f64>) -> Data {
    with_dtype!(dtype, |T| T::wrap(it.map(T::from_f64).collect()))
}

fn ints(dtype: DType, n: usize, mut f: impl FnMut() -> i64) -> Data {
    with_dtype!(dtype, |T| T::wrap((0..n).map(|_| T::from_i64(f())).collect()))
}

/// A double as C++'s `operator<<` prints it (six significant digits, `%g`), for PyTorch's
/// messages.
pub fn cpp_double(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exp.abs());
    }
    trim(&format!("{x:.*}", (5 - exp).max(0) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_doubles_as_cpp_does() {
        assert_eq!(cpp_double(1.5), "1.5");
        assert_eq!(cpp_double(2.0), "2");
        assert_eq!(cpp_double(-0.1), "-0.1");
        assert_eq!(cpp_double(1e10), "1e+10");
        assert_eq!(cpp_double(1.0 / 3.0), "0.333333");
        assert_eq!(cpp_double(123456789.0), "1.23457e+08");
        assert_eq!(cpp_double(0.0001), "0.0001");
        assert_eq!(cpp_double(0.00001), "1e-05");
    }

    #[test]
    fn rand_and_randn_match_pytorch() {
        // torch.manual_seed(0); torch.rand(3); torch.randn(3)
        let mut g = Generator::new(0);
        let u = sample(&mut g, Distribution::Uniform { from: 0.0, to: 1.0 }, DType::Float32, 3, true).unwrap();
        assert_eq!(u, Data::F32(vec![0.496_256_6, 0.768_221_8, 0.088_477_43]));
        let mut g = Generator::new(0);
        let n = sample(&mut g, Distribution::Normal { mean: 0.0, std: 1.0 }, DType::Float32, 3, true).unwrap();
        assert_eq!(n, Data::F32(vec![1.540_996_1, -0.293_428_9, -2.178_789_3]));
    }
}
