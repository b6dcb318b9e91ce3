//! Single-precision matrix products over strided operands: `matrixmultiply`'s packed,
//! cache-blocked SGEMM (SIMD microkernels for x86, AArch64 and wasm simd128), behind one safe
//! function that checks every element the strides reach. The CPU model plan and the training
//! plan both call it.

/// `c[m×n] = alpha · a[m×k] · b[k×n] + beta · c`, each matrix given by its slice and its row
/// and column strides; `c` is row-major with row stride `ldc`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sgemm(
    (m, k, n): (usize, usize, usize),
    alpha: f32,
    a: &[f32],
    (rsa, csa): (isize, isize),
    b: &[f32],
    (rsb, csb): (isize, isize),
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, (rs, cs): (isize, isize)| {
        (rows.saturating_sub(1) as isize * rs + cols.saturating_sub(1) as isize * cs) as usize
    };
    assert!(k == 0 || (last(m, k, (rsa, csa)) < a.len() && last(k, n, (rsb, csb)) < b.len()));
    assert!((m - 1) * ldc + n <= c.len());
    // SAFETY: the asserts above keep every element the strides reach inside `a`, `b` and `c`,
    // and `c` is borrowed mutably, so it aliases neither input.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            beta,
            c.as_mut_ptr(),
            ldc as isize,
            1,
        );
    }
}
