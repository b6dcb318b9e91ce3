//! The WGSL helper functions the op table's templates and the index expressions call
//! (`fdiv`, `max_f32`, `erf_f32`, `pow_i32`, ...): each one's source, and which helpers it calls.
//! The renderer ([`super::wgsl`]) emits only those a kernel names.

/// Helper functions, emitted only when a template or index names them.
pub(crate) const HELPERS: &[(&str, &str)] = &[
    ("fdiv", "fn fdiv(a: i32, k: i32) -> i32 { return select(a / k, (a + 1) / k - 1, a < 0); }"),
    ("fmod", "fn fmod(a: i32, k: i32) -> i32 { return a - fdiv(a, k) * k; }"),
    (
        "idiv_floor",
        "fn idiv_floor(a: i32, b: i32) -> i32 {\n  if (b == 0) { return 0; }\n  let q = a / b;\n  return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));\n}",
    ),
    (
        "mod_i32",
        "fn mod_i32(a: i32, b: i32) -> i32 {\n  if (b == 0) { return 0; }\n  let r = a % b;\n  return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));\n}",
    ),
    // WGSL lets an implementation assume no NaN or infinity (lavapipe folds `a != a` and a
    // float remainder by zero), so NaN is tested on the bits and division by zero written out.
    ("is_nan_f32", "fn is_nan_f32(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }"),
    (
        "mod_f32",
        "fn mod_f32(a: f32, b: f32) -> f32 {\n  if (b == 0.0) { return f32_nan(); }\n  let r = a % b;\n  return select(r, r + b, r != 0.0 && ((r < 0.0) != (b < 0.0)));\n}",
    ),
    ("fmod_f32", "fn fmod_f32(a: f32, b: f32) -> f32 {\n  if (b == 0.0) { return f32_nan(); }\n  return a - b * trunc(a / b);\n}"),
    (
        "floordiv_f32",
        "fn floordiv_f32(a: f32, b: f32) -> f32 {\n  if (b == 0.0) {\n    if (a == 0.0 || is_nan_f32(a)) { return f32_nan(); }\n    return bitcast<f32>(0x7f800000u | ((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u));\n  }\n  return floor(a / b);\n}",
    ),
    (
        "asin_f32",
        "fn asin_f32(x: f32) -> f32 {\n  if (abs(x) > 1.0) { return f32_nan(); }\n  return atan2(x, sqrt((1.0 - x) * (1.0 + x)));\n}",
    ),
    (
        "acos_f32",
        "fn acos_f32(x: f32) -> f32 {\n  if (abs(x) > 1.0) { return f32_nan(); }\n  return atan2(sqrt((1.0 - x) * (1.0 + x)), x);\n}",
    ),
    ("f32_inf", "fn f32_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }"),
    ("f32_nan", "fn f32_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }"),
    ("max_f32", "fn max_f32(a: f32, b: f32) -> f32 { return select(max(a, b), f32_nan(), is_nan_f32(a) || is_nan_f32(b)); }"),
    ("min_f32", "fn min_f32(a: f32, b: f32) -> f32 { return select(min(a, b), f32_nan(), is_nan_f32(a) || is_nan_f32(b)); }"),
    ("fmax_f32", "fn fmax_f32(a: f32, b: f32) -> f32 { return select(select(max(a, b), b, is_nan_f32(a)), a, is_nan_f32(b)); }"),
    ("fmin_f32", "fn fmin_f32(a: f32, b: f32) -> f32 { return select(select(min(a, b), b, is_nan_f32(a)), a, is_nan_f32(b)); }"),
    (
        "copysign_f32",
        "fn copysign_f32(a: f32, b: f32) -> f32 {\n  return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u));\n}",
    ),
    (
        "hypot_f32",
        "fn hypot_f32(a: f32, b: f32) -> f32 {\n  let x = abs(a);\n  let y = abs(b);\n  let m = max(x, y);\n  if (m == 0.0 || is_nan_f32(m)) { return m + min(x, y); }\n  let r = min(x, y) / m;\n  return m * sqrt(1.0 + r * r);\n}",
    ),
    // expm1 and log1p by Kahan's correction, accurate near zero where exp(x) - 1 cancels.
    (
        "expm1_f32",
        "fn expm1_f32(x: f32) -> f32 {\n  let u = exp(x);\n  if (u == 1.0) { return x; }\n  let um = u - 1.0;\n  if (um == -1.0) { return -1.0; }\n  if (abs(x) > 0.5) { return um; }\n  return um * x / log(u);\n}",
    ),
    (
        "log1p_f32",
        "fn log1p_f32(x: f32) -> f32 {\n  let u = 1.0 + x;\n  if (u == 1.0) { return x; }\n  if (abs(x) > 0.5) { return log(u); }\n  return log(u) * x / (u - 1.0);\n}",
    ),
    // erfc by the Chebyshev fit the interpreter uses (relative error below 1.2e-7), erf by its
    // series near zero where 1 - erfc would cancel.
    (
        "erfc_f32",
        "fn erfc_f32(x: f32) -> f32 {\n  let z = abs(x);\n  let t = 1.0 / (1.0 + 0.5 * z);\n  let p = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));\n  let r = t * exp(p);\n  return select(2.0 - r, r, x >= 0.0);\n}",
    ),
    (
        "erf_f32",
        "fn erf_f32(x: f32) -> f32 {\n  if (abs(x) < 0.5) {\n    let x2 = x * x;\n    return 1.1283791670955126 * x * (1.0 + x2 * (-0.3333333333 + x2 * (0.1 + x2 * (-0.0238095238 + x2 * (0.0046296296 + x2 * -0.0007575758)))));\n  }\n  return sign(x) * (1.0 - erfc_f32(abs(x)));\n}",
    ),
    (
        "pow_f32",
        "fn pow_f32(a: f32, b: f32) -> f32 {\n  if (b == 0.0) { return 1.0; }\n  if (a == 0.0) { return select(0.0, f32_inf(), b < 0.0); }\n  let m = pow(abs(a), b);\n  if (a > 0.0) { return m; }\n  if (b != floor(b)) { return f32_nan(); }\n  return select(m, -m, abs(b) % 2.0 == 1.0);\n}",
    ),
    (
        "pow_i32",
        "fn pow_i32(a: i32, b: i32) -> i32 {\n  if (b < 0) { return select(select(0, 1, a == 1), select(1, -1, (b & 1) == 1), a == -1); }\n  var r = 1;\n  var x = a;\n  var e = b;\n  for (var i: i32 = 0; i < 32; i = i + 1) {\n    if (e == 0) { break; }\n    if ((e & 1) == 1) { r = r * x; }\n    x = x * x;\n    e = e >> 1u;\n  }\n  return r;\n}",
    ),
    (
        "pow_u8",
        "fn pow_u8(a: u32, b: u32) -> u32 {\n  var r = 1u;\n  var x = a;\n  var e = b;\n  for (var i: i32 = 0; i < 32; i = i + 1) {\n    if (e == 0u) { break; }\n    if ((e & 1u) == 1u) { r = r * x; }\n    x = x * x;\n    e = e >> 1u;\n  }\n  return r & 0xffu;\n}",
    ),
];

/// Which helpers each helper itself calls.
pub(crate) fn helper_deps(name: &str) -> &'static [&'static str] {
    match name {
        "fmod" => &["fdiv"],
        "max_f32" | "min_f32" => &["f32_nan", "is_nan_f32"],
        "fmax_f32" | "fmin_f32" | "hypot_f32" => &["is_nan_f32"],
        "mod_f32" | "fmod_f32" | "asin_f32" | "acos_f32" => &["f32_nan"],
        "floordiv_f32" => &["f32_nan", "is_nan_f32"],
        "erf_f32" => &["erfc_f32"],
        "pow_f32" => &["f32_inf", "f32_nan"],
        _ => &[],
    }
}
